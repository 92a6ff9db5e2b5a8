// Runs an inline Pulumi program with the REAL Pulumi CLI, offline (pulumi-behaviour.md §7), for tests that need
// in-process control of the program; projects run from their directories with ./project.ts, as users run them.
// Inline mode: the CLI drives the engine and talks back to an in-process language server. Dynamic resources still need
// the `pulumi-resource-pulumi-nodejs` shim, which we copy into <workDir>/bin and put on the CLI's PATH; its cwd (the project `main`) must resolve
// `@pulumi/pulumi` (and `pulumi-garm`) from node_modules, so `main` is the repository root by default.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as auto from "@pulumi/pulumi/automation";
import type { PulumiFn, OutputMap, UpdateSummary, OpMap, ConfigMap } from "@pulumi/pulumi/automation";

export const PULUMI_VERSION = "3.248.0";

export interface PulumiLocation {
    /** Absolute path of the `pulumi` binary. */
    command: string;
    /** Directory such that `<root>/bin/pulumi` is the binary (what PulumiCommand.get({root}) expects). */
    root: string;
}

function isExecutable(p: string): boolean {
    try {
        fs.accessSync(p, fs.constants.X_OK);
        return fs.statSync(p).isFile();
    } catch {
        return false;
    }
}

/** `pulumi` from PATH if present, else the tools cache; throws naming `make tools` otherwise. */
export function locatePulumi(): PulumiLocation {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
        if (!dir) continue;
        const p = path.join(dir, "pulumi");
        if (isExecutable(p)) {
            const real = fs.realpathSync(p);
            if (path.basename(path.dirname(real)) === "bin") return { command: real, root: path.dirname(path.dirname(real)) };
            return { command: p, root: path.dirname(path.dirname(p)) };
        }
    }
    const cache = process.env.PULUMI_GARM_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-garm");
    const cached = path.join(cache, `pulumi-v${PULUMI_VERSION}`, "bin", "pulumi");
    if (isExecutable(cached)) return { command: cached, root: path.dirname(path.dirname(cached)) };
    throw new Error(`the Pulumi CLI was not found on PATH nor at ${cached}; run \`make tools\` (scripts/tools.sh pulumi) to build it`);
}

export const NODEJS_HOST_VERSION = "v3.68.0";

/**
 * Directory of the Node language host `pulumi-language-nodejs`: from PATH if present (a user's Pulumi install), else the
 * tools cache (scripts/tools.sh nodejs); throws naming `make tools` otherwise.
 */
export function locateLanguageHost(): string {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
        if (dir && isExecutable(path.join(dir, "pulumi-language-nodejs"))) return dir;
    }
    const cache = process.env.PULUMI_GARM_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-garm");
    const dir = path.join(cache, `pulumi-language-nodejs-${NODEJS_HOST_VERSION}`, "bin");
    if (isExecutable(path.join(dir, "pulumi-language-nodejs"))) return dir;
    throw new Error(`the Node language host pulumi-language-nodejs was not found on PATH nor in ${dir}; run \`make tools\` (scripts/tools.sh nodejs) to build it`);
}

/** Nearest ancestor of this file whose node_modules holds @pulumi/pulumi (the repository root). */
export function defaultProjectDir(): string {
    let dir = __dirname;
    for (let i = 0; i < 10; i++) {
        if (fs.existsSync(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"))) return dir;
        const up = path.dirname(dir);
        if (up === dir) break;
        dir = up;
    }
    throw new Error(`no node_modules/@pulumi/pulumi above ${__dirname}; run \`make setup\``);
}

export type PulumiOp = "preview" | "up" | "destroy" | "refresh";

export interface RunPulumiOptions {
    /** Scratch directory: holds the file backend (state/), PULUMI_HOME (home/), the shim (bin/) and the project dir. Reuse it across ops of one stack. */
    workDir: string;
    stackName: string;
    projectName?: string;
    program: PulumiFn;
    /** Stack config; plain strings or {value, secret}. Keys may carry a namespace ("garm:url"). */
    config?: Record<string, string | { value: string; secret?: boolean }>;
    op: PulumiOp;
    /** Project `main` (the dynamic provider plugin's cwd). Default: the repository root. */
    projectDir?: string;
    /** Extra environment for the CLI (and therefore the dynamic provider plugin). */
    env?: Record<string, string>;
    /** Passphrase for the passphrase secrets provider (default fixed test value). */
    passphrase?: string;
    /** Where the stack's state lives (e.g. a shared `postgres://` backend); default: the file backend in `<workDir>/state`. */
    backendUrl?: string;
    /** Stream CLI output (e.g. process.stdout.write) for debugging. */
    onOutput?: (chunk: string) => void;
    /** Pass --refresh to up/preview/destroy. */
    refresh?: boolean;
    /** Pulumi's own logging: `logToStdErr` and `logVerbosity` are `--logtostderr -v=N` (its output lands in stderr). */
    logging?: { logToStdErr?: boolean; logVerbosity?: number };
}

export interface RunPulumiResult {
    op: PulumiOp;
    exitOk: boolean;
    stdout: string;
    stderr: string;
    /** The thrown error when exitOk is false. */
    error?: Error;
    /** up/destroy/refresh: the update summary (result, resourceChanges, ...). */
    summary?: UpdateSummary;
    /** preview: op -> count; for the others, summary.resourceChanges. */
    changeSummary?: OpMap;
    /** Stack outputs after the operation (plain values; secrets unwrapped). */
    outputs: Record<string, unknown>;
    durationMs: number;
}

function copyShim(binDir: string, projectDir: string): void {
    fs.mkdirSync(binDir, { recursive: true });
    const src = path.join(projectDir, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs");
    if (!fs.existsSync(src)) throw new Error(`dynamic provider shim not found at ${src}`);
    const dst = path.join(binDir, "pulumi-resource-pulumi-nodejs");
    fs.copyFileSync(src, dst);
    fs.chmodSync(dst, 0o755);
}

function plainOutputs(o: OutputMap | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o ?? {})) out[k] = v.value;
    return out;
}

/** The environment the CLI needs to run offline in `workDir` (exported for callers using the automation API directly). */
export function offlineEnv(workDir: string, opts: { passphrase?: string; backendUrl?: string; env?: Record<string, string> } = {}): Record<string, string> {
    const binDir = path.join(workDir, "bin");
    return {
        PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? "pulumi-garm-e2e-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_HOME: path.join(workDir, "home"),
        PULUMI_BACKEND_URL: opts.backendUrl ?? `file://${path.join(workDir, "state")}`,
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        PULUMI_SKIP_CONFIRMATIONS: "true",
        PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
        // The shim dir first (plugin lookup is PATH-first), then node's dir (the shim runs `node`).
        PATH: [binDir, path.dirname(process.execPath), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
        ...(opts.env ?? {}),
    };
}

export async function runPulumi(opts: RunPulumiOptions): Promise<RunPulumiResult> {
    const started = Date.now();
    const workDir = path.resolve(opts.workDir);
    const projectDir = opts.projectDir ?? defaultProjectDir();
    for (const d of ["state", "home", "bin", "project"]) fs.mkdirSync(path.join(workDir, d), { recursive: true });
    copyShim(path.join(workDir, "bin"), projectDir);
    const loc = locatePulumi();
    const pulumiCommand = await auto.PulumiCommand.get({ root: loc.root });
    const envVars = offlineEnv(workDir, opts);
    const projectName = opts.projectName ?? "pulumi-garm-e2e";

    const stack = await auto.LocalWorkspace.createOrSelectStack(
        { stackName: opts.stackName, projectName, program: opts.program },
        {
            workDir: path.join(workDir, "project"),
            pulumiHome: envVars.PULUMI_HOME,
            pulumiCommand,
            envVars,
            projectSettings: { name: projectName, runtime: "nodejs", main: projectDir },
            secretsProvider: "passphrase",
        },
    );
    if (opts.config) {
        const cfg: ConfigMap = {};
        for (const [k, v] of Object.entries(opts.config)) cfg[k] = typeof v === "string" ? { value: v } : { value: v.value, secret: !!v.secret };
        await stack.setAllConfig(cfg);
    }

    let stdout = "";
    let stderr = "";
    const onOutput = (s: string) => {
        stdout += s;
        opts.onOutput?.(s);
    };
    const onError = (s: string) => {
        stderr += s;
        opts.onOutput?.(s);
    };
    const result: RunPulumiResult = { op: opts.op, exitOk: false, stdout: "", stderr: "", outputs: {}, durationMs: 0 };
    try {
        switch (opts.op) {
            case "preview": {
                const r = await stack.preview({ onOutput, onError, refresh: opts.refresh, ...opts.logging });
                result.changeSummary = r.changeSummary;
                break;
            }
            case "up": {
                const r = await stack.up({ onOutput, onError, refresh: opts.refresh, ...opts.logging });
                result.summary = r.summary;
                result.changeSummary = r.summary.resourceChanges;
                break;
            }
            case "destroy": {
                const r = await stack.destroy({ onOutput, onError, refresh: opts.refresh, ...opts.logging });
                result.summary = r.summary;
                result.changeSummary = r.summary.resourceChanges;
                break;
            }
            case "refresh": {
                const r = await stack.refresh({ onOutput, onError, ...opts.logging });
                result.summary = r.summary;
                result.changeSummary = r.summary.resourceChanges;
                break;
            }
        }
        result.exitOk = true;
    } catch (e) {
        result.error = e as Error;
        const ce = e as { stdout?: string; stderr?: string };
        if (typeof ce.stdout === "string" && !stdout.includes(ce.stdout)) stdout += ce.stdout;
        if (typeof ce.stderr === "string" && !stderr.includes(ce.stderr)) stderr += ce.stderr;
    }
    try {
        result.outputs = plainOutputs(await stack.outputs());
    } catch {
        result.outputs = {};
    }
    result.stdout = stdout;
    result.stderr = stderr;
    result.durationMs = Date.now() - started;
    return result;
}
