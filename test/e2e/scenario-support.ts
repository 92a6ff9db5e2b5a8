// Helpers for scenarios.test.ts: a restart control endpoint the GarmProvider's `restartCommand` calls (so a real
// `pulumi up` restarts the real GARM), and a sampler that records what GARM and its config file held over time, so the
// tests can check orderings (new generation before old disabled, scale set deleted before provider block) from GARM's own
// data rather than from what Pulumi printed.
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { RealGarm } from "../../harness/real-garm";

/** Provider names whose pulumi-garm managed block the config text holds (the marker comment, README "managed blocks"). */
export function blocksIn(text: string): string[] {
    return [...text.matchAll(/^# BEGIN pulumi-garm provider "([^"]*)"/gm)].map((m) => m[1]);
}

/** `[[provider]]` names in a GARM config text, managed or not (enough TOML for the files these tests write). */
export function providerNamesIn(text: string): string[] {
    return [...text.matchAll(/^\[\[provider\]\]\s*\nname\s*=\s*"([^"]*)"/gm)].map((m) => m[1]);
}

export interface RestartEvent {
    /** Who asked: the GarmProvider's restartCommand (curl) or the test itself. */
    by: "command" | "test";
    /** Date.now() when the request arrived, i.e. before GARM was stopped. */
    at: number;
    /** Date.now() when GARM answered HTTP again (undefined while running or on failure). */
    doneAt?: number;
    /** Managed blocks in GARM's config file when the restart began: what the new GARM process loads (§9.2). */
    blocks: string[];
    error?: string;
}

export interface RestartControl {
    /** e.g. http://127.0.0.1:41234 */
    readonly url: string;
    /** The shell command to give GarmProvider.restartCommand. */
    readonly command: string;
    readonly events: readonly RestartEvent[];
    /**
     * Restarts GARM from the test (queued behind any restart in progress). `downMs` keeps GARM stopped that long before
     * starting it again, like a service restart with a slow shutdown, so that clients polling it see the outage.
     */
    restart(opts?: { downMs?: number }): Promise<void>;
    close(): Promise<void>;
}

/**
 * Serves `POST /restart` on 127.0.0.1: stops GARM (SIGTERM) and starts it again with the same config file, answering
 * 200 once GARM answers HTTP (500 with the reason otherwise). GARM reads `[[provider]]` only at start (garm-behaviour.md
 * §9.2), so this is what makes a GarmProvider's edit take effect. The test process stays alive during `runPulumi`, so the
 * dynamic provider (a grandchild process) can reach it with curl. Restarts are serialized: the test's own restart
 * (scenario 4) and one asked for by Pulumi never overlap.
 */
export async function startRestartControl(garm: RealGarm): Promise<RestartControl> {
    const events: RestartEvent[] = [];
    let chain: Promise<void> = Promise.resolve();

    const restart = (by: RestartEvent["by"], downMs = 0): Promise<void> => {
        const run = async () => {
            const ev: RestartEvent = { by, at: Date.now(), blocks: blocksIn(fs.readFileSync(garm.configPath, "utf8")) };
            events.push(ev);
            try {
                if (downMs > 0) {
                    await garm.stop();
                    await new Promise((r) => setTimeout(r, downMs));
                }
                // restart() = stop (a no-op when already stopped) + start with the same config file.
                await garm.restart();
                ev.doneAt = Date.now();
            } catch (e) {
                ev.error = (e as Error).message;
                throw e;
            }
        };
        const p = chain.then(run, run);
        chain = p.catch(() => undefined);
        return p;
    };

    const server = http.createServer((req, res) => {
        if (req.method === "POST" && req.url === "/restart") {
            req.resume();
            restart("command").then(
                () => {
                    res.writeHead(200, { "content-type": "text/plain" });
                    res.end("GARM restarted\n");
                },
                (e: Error) => {
                    res.writeHead(500, { "content-type": "text/plain" });
                    res.end(`GARM restart failed: ${e.message.split("\n")[0]}\n`);
                },
            );
            return;
        }
        res.writeHead(404);
        res.end();
    });
    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
        url,
        // -f: a 500 fails the command, so the GarmProvider reports the restart failure (restart.ts).
        command: `curl -fsS --max-time 120 -X POST ${url}/restart`,
        events,
        restart: (opts) => restart("test", opts?.downMs ?? 0),
        close: () =>
            new Promise<void>((resolve) => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}

export interface SampledScaleSet {
    id: number;
    name: string;
    enabled: boolean;
    /** Instances of this scale set with status `running`. */
    runningRunners: number;
}

export interface Sample {
    t: number;
    /** undefined when GARM did not answer (restarting). */
    scaleSets?: SampledScaleSet[];
    /** Managed blocks in the config file at that moment. */
    blocks: string[];
}

export interface Sampler {
    readonly samples: readonly Sample[];
    stop(): Promise<void>;
}

interface ListedScaleSet {
    id: number;
    name: string;
    enabled?: boolean;
}
interface ListedInstance {
    name: string;
    status?: string;
    scale_set_id?: number;
}

/** Polls GET /scalesets and GET /instances (and reads the config file) every intervalMs until stop(); bounded by maxMs. */
export function startSampler(garm: RealGarm, intervalMs = 300, maxMs = 600_000): Sampler {
    const samples: Sample[] = [];
    let stopped = false;
    const started = Date.now();
    const loop = (async () => {
        while (!stopped && Date.now() - started < maxMs) {
            const t = Date.now();
            let blocks: string[] = [];
            try {
                blocks = blocksIn(fs.readFileSync(garm.configPath, "utf8"));
            } catch {
                // being replaced atomically; the next sample reads it
            }
            let scaleSets: SampledScaleSet[] | undefined;
            try {
                const [ss, inst] = await Promise.all([
                    garm.api<ListedScaleSet[]>("GET", "/scalesets"),
                    garm.api<ListedInstance[]>("GET", "/instances"),
                ]);
                if (ss.status === 200 && inst.status === 200) {
                    scaleSets = ss.body.map((s) => ({
                        id: s.id,
                        name: s.name,
                        // A disabled scale set omits `enabled` (garm-behaviour.md §3.1).
                        enabled: s.enabled === true,
                        runningRunners: inst.body.filter((i) => i.scale_set_id === s.id && i.status === "running").length,
                    }));
                }
            } catch {
                // GARM restarting
            }
            samples.push({ t, scaleSets, blocks });
            await new Promise((r) => setTimeout(r, intervalMs));
        }
    })();
    return {
        samples,
        async stop() {
            stopped = true;
            await loop;
        },
    };
}

/** The lines of `text` that mention `needle` (trimmed, de-duplicated), for assertions and for the test log. */
export function linesWith(text: string, needle: string | RegExp): string[] {
    const out: string[] = [];
    for (const raw of text.split("\n")) {
        const line = raw.trim();
        if (!line) continue;
        if (typeof needle === "string" ? line.includes(needle) : needle.test(line)) {
            if (!out.includes(line)) out.push(line);
        }
    }
    return out;
}

/** The "Diagnostics:" section of a pulumi run's output (up to the next section), trimmed lines, for the test log. */
export function diagnostics(stdout: string): string[] {
    const lines = stdout.split("\n");
    const start = lines.findIndex((l) => /^Diagnostics:/.test(l));
    if (start < 0) return [];
    const out: string[] = [];
    for (const l of lines.slice(start + 1)) {
        if (/^\S/.test(l)) break;
        if (l.trim()) out.push(l.trim());
    }
    return out;
}
