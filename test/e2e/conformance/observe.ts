// Normalised observations: what a client can see, minus what legitimately differs between two GARMs (ids, times,
// tokens, endpoint URLs, runner names). Observations are compared per label; differences are listed path by path.
import type { ApiResult } from "./target";

export type Norm = null | boolean | number | string | Norm[] | { [k: string]: Norm };

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ZERO_TIME = "0001-01-01T00:00:00Z";

/** Keys whose values are identities or clocks: only their JSON type is compared (garm-behaviour.md §3: ids, times). */
const TYPE_ONLY = new Set([
    "id",
    "scale_set_id",
    "agent_id",
    "provider_id",
    "controller_id",
    "credentials_id",
    "created_at",
    "updated_at",
    "heartbeat",
    "started_at",
    "completed_at",
    "runner_id",
    "workflow_job_id",
    "scaleset_job_id",
    "run_id",
    "template_id",
    "credentials_name",
]);

/** Structs whose content is deployment-specific (endpoint URLs): only their key sets are compared. */
const KEYS_ONLY = new Set(["endpoint", "credentials"]);

function typeTag(v: unknown): string {
    if (v === null) return "<null>";
    if (Array.isArray(v)) return "<array>";
    return `<${typeof v}>`;
}

export class Normaliser {
    /** Runner names etc. seen in this target, replaced by stable placeholders (`<runner1>`). */
    private readonly aliases = new Map<string, string>();

    alias(value: string, as: string): void {
        this.aliases.set(value, as);
    }

    text(s: string): string {
        let out = s;
        for (const [v, a] of this.aliases) out = out.split(v).join(a);
        // The provider executable path is per deployment (garm-behaviour.md §11.1 error text).
        out = out.replace(/provider binary (\/\S+) returned error/g, "provider binary <exe> returned error");
        // GitHub URLs are per deployment (mock vs simulated GitHub, §10.1); so is the body of an injected 404.
        out = out.replace(/while calling \S+?\/_apis\//g, "while calling <actions>/_apis/");
        out = out.replace(/resource \S+\/actions\/runner-registration not found: ".*"$/, 'resource <api>/actions/runner-registration not found: "<body>"');
        return out.replace(UUID_RE, "<uuid>");
    }

    value(v: unknown, key = ""): Norm {
        if (v === undefined) return "<absent>";
        if (TYPE_ONLY.has(key)) return v === 0 || v === "" ? v : typeTag(v);
        if (KEYS_ONLY.has(key) && v !== null && typeof v === "object" && !Array.isArray(v)) {
            return Object.keys(v).sort().join(",");
        }
        if (key === "provider_fault" && typeof v === "string") {
            // []byte → base64 on the wire (§3.2, §6.2); compare the decoded text.
            return `base64:${this.text(Buffer.from(v, "base64").toString("utf8"))}`;
        }
        if (typeof v === "string") {
            if (v !== ZERO_TIME && TIME_RE.test(v)) return "<time>";
            return this.text(v);
        }
        if (typeof v === "number" || typeof v === "boolean" || v === null) return v;
        if (Array.isArray(v)) {
            const items = v.map((x) => this.value(x));
            // Tag order is not guaranteed (§3.7: tags are global rows; real GARM returned them in a different order
            // than created), so tags are compared as a set.
            if (key === "tags") items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
            return items;
        }
        const o = v as Record<string, unknown>;
        const out: { [k: string]: Norm } = {};
        for (const k of Object.keys(o).sort()) out[k] = this.value(o[k], k);
        return out;
    }

    /** Status code plus normalised body; an empty body is "<empty>". */
    result(r: ApiResult): Norm {
        return { status: r.status, body: r.text === "" ? "<empty>" : r.body === undefined ? `<text:${this.text(r.text.trim())}>` : this.value(r.body) };
    }
}

export interface Recorder {
    readonly n: Normaliser;
    /** A compared observation. */
    obs(label: string, value: Norm): void;
    /** Convenience: obs(label, n.result(r)). */
    res(label: string, r: ApiResult): void;
    /** Information only (timings, sampled sequences); printed, never compared. */
    info(label: string, value: unknown): void;
}

export class Observations implements Recorder {
    readonly n = new Normaliser();
    readonly values = new Map<string, Norm>();
    readonly infos = new Map<string, unknown>();

    obs(label: string, value: Norm): void {
        if (this.values.has(label)) throw new Error(`observation ${label} recorded twice`);
        this.values.set(label, value);
    }

    res(label: string, r: ApiResult): void {
        this.obs(label, this.n.result(r));
    }

    info(label: string, value: unknown): void {
        this.infos.set(label, value);
    }
}

export interface Difference {
    scenario: string;
    label: string;
    /** JSON-ish path inside the observation ("" for the whole value). */
    path: string;
    sim: string;
    real: string;
}

const show = (v: Norm | undefined): string => (v === undefined ? "<absent>" : typeof v === "string" ? v : JSON.stringify(v));

function diffValue(path: string, a: Norm | undefined, b: Norm | undefined, out: { path: string; sim: string; real: string }[]): void {
    const isObj = (v: Norm | undefined): v is { [k: string]: Norm } => v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);
    if (isObj(a) && isObj(b)) {
        for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
            diffValue(path === "" ? k : `${path}.${k}`, a[k] ?? "<absent>", b[k] ?? "<absent>", out);
        }
        return;
    }
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
        a.forEach((x, i) => diffValue(`${path}[${i}]`, x, b[i], out));
        return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, sim: show(a), real: show(b) });
}

export function compare(scenario: string, sim: Observations, real: Observations): Difference[] {
    const out: Difference[] = [];
    const labels = [...new Set([...sim.values.keys(), ...real.values.keys()])];
    for (const label of labels) {
        const d: { path: string; sim: string; real: string }[] = [];
        diffValue("", sim.values.get(label), real.values.get(label), d);
        for (const x of d) out.push({ scenario, label, ...x });
    }
    return out;
}
