// The scripted REST scenarios of the conformance suite. Each one is a function over a Target (./target.ts) and records
// normalised observations (./observe.ts); the suite runs every scenario against the simulator and the real GARM v0.2.1
// and compares the two recordings. Section numbers refer to docs/garm-behaviour.md.
import type { Norm, Recorder } from "./observe";
import type { ApiResult, Target } from "./target";
import { ENTITY_SCENARIOS } from "./entity-scenarios";
import { FORGE_SCENARIOS } from "./forge-scenarios";
import { NAME_SCENARIOS } from "./name-scenarios";
import { TEMPLATE_POOL_SCENARIOS } from "./templates-pools";

export interface Scenario {
    name: string;
    /** Uses the real runner lifecycle (slow against the real GARM). */
    slow?: boolean;
    run(t: Target, r: Recorder): Promise<void>;
}

type Json = Record<string, unknown>;
type Instance = { name: string; status: string; runner_status?: string; provider_fault?: string };

const BASE = {
    provider_name: "fake",
    image: "ubuntu:24.04",
    flavor: "small",
    os_type: "linux",
    os_arch: "amd64",
    max_runners: 2,
    min_idle_runners: 0,
};

async function createScaleSet(t: Target, name: string, extra: Json = {}): Promise<Json & { id: number; scale_set_id: number }> {
    const res = await t.api("POST", `/organizations/${t.orgId}/scalesets`, { name, ...BASE, ...extra });
    if (res.status !== 200) throw new Error(`[${t.kind}] create scale set ${name}: ${res.status} ${res.text}`);
    return res.body as Json & { id: number; scale_set_id: number };
}

/** Polls `fn` once per advance() step, at most t.maxSteps times. */
async function waitFor<T>(t: Target, what: string, fn: () => Promise<T | undefined>, maxSteps = t.maxSteps): Promise<T> {
    for (let i = 0; i < maxSteps; i++) {
        const v = await fn();
        if (v !== undefined) return v;
        await t.advance();
    }
    throw new Error(`[${t.kind}] timed out after ${maxSteps} steps waiting for ${what}`);
}

const instancesOf = async (t: Target, ssId: number) => (await t.api("GET", `/scalesets/${ssId}/instances`)).body as Instance[];

/** Keeps consecutive distinct values only. */
function pushDistinct(seq: string[], v: string): void {
    if (seq[seq.length - 1] !== v) seq.push(v);
}

/** True when `seq` visits states in the order of `path` (states may be skipped by sampling, never reordered). */
function followsPath(seq: string[], path: string[]): boolean {
    let at = 0;
    for (const s of seq) {
        const i = path.indexOf(s, at);
        if (i < 0) return false;
        at = i;
    }
    return true;
}

function pick(o: unknown, keys: string[]): Json {
    const src = (o ?? {}) as Json;
    const out: Json = {};
    for (const k of keys) out[k] = src[k];
    return out;
}

const keysOf = (o: unknown): Norm => Object.keys((o ?? {}) as Json).sort().join(",");

// ---------------------------------------------------------------------------------------------------------------------

/** §3.1, §2.1: omitempty keys of a disabled scale set with zero counts; list vs GET differences. */
const omittedKeys: Scenario = {
    name: "omitted keys (scale set)",
    async run(t, r) {
        const created = await t.api("POST", `/organizations/${t.orgId}/scalesets`, {
            name: "conf-omit",
            ...BASE,
            min_idle_runners: 0,
            enabled: false,
            labels: ["conf-a", "conf-b"],
        });
        r.res("POST create (disabled, min 0)", created);
        const id = (created.body as { id: number }).id;
        r.res("GET /scalesets/{id}", await t.api("GET", `/scalesets/${id}`));
        const all = (await t.api("GET", "/scalesets")).body as Json[];
        r.obs("GET /scalesets entry", r.n.value(all.find((s) => s.id === id)));
        const ent = (await t.api("GET", `/organizations/${t.orgId}/scalesets`)).body as Json[];
        r.obs("GET /organizations/{id}/scalesets entry", r.n.value(ent.find((s) => s.id === id)));
        r.res("GET /scalesets/{id}/instances (none)", await t.api("GET", `/scalesets/${id}/instances`));
        r.res("DELETE /scalesets/{id}", await t.api("DELETE", `/scalesets/${id}`));
        r.res("GET after delete", await t.api("GET", `/scalesets/${id}`));
    },
};

/** §4.1, §3.6, §3.7: which update fields do what. */
const updateRules: Scenario = {
    name: "update field rules",
    async run(t, r) {
        const ss = await createScaleSet(t, "conf-upd", { min_idle_runners: 1, max_runners: 2, labels: ["conf-l1"], enabled: false });
        const id = ss.id;
        const put = async (label: string, body: unknown, keys?: string[]): Promise<ApiResult> => {
            const res = await t.api("PUT", `/scalesets/${id}`, body);
            if (keys === undefined || res.status !== 200) r.res(label, res);
            else r.obs(label, { status: res.status, body: r.n.value(pick(res.body, keys)) });
            return res;
        };
        await put("PUT {} (full body)", {});
        await put("PUT labels ignored (§4.2)", { labels: ["conf-other"], tags: [{ name: "conf-other" }] }, ["tags", "generation"]);
        await put("PUT runner_group same value (§3.6 key)", { runner_group: "Default" }, ["github-runner-group", "generation"]);
        await put("PUT github-runner-group key ignored", { "github-runner-group": "Elsewhere" }, ["github-runner-group", "generation"]);
        await put("PUT state/extended_state verbatim", { state: "error", extended_state: "conf-boom" }, ["state", "extended_state"]);
        await put("PUT state not a known value", { state: "no-such-state" }, ["state"]);
        r.obs("GET state after PUT", r.n.value(pick((await t.api("GET", `/scalesets/${id}`)).body, ["state", "extended_state"])));
        await put("PUT max_runners 0 while min_idle 1", { max_runners: 0 }, ["max_runners", "min_idle_runners"]);
        await put("PUT min 0 + max 0", { min_idle_runners: 0, max_runners: 0 }, ["max_runners", "min_idle_runners"]);
        await put("PUT min 1 alone while max 0", { min_idle_runners: 1 }, ["max_runners", "min_idle_runners"]);
        await put("PUT min 3 > max 2", { min_idle_runners: 3, max_runners: 2 }, ["max_runners", "min_idle_runners"]);
        await put("PUT runner_bootstrap_timeout 0", { runner_bootstrap_timeout: 0 }, ["runner_bootstrap_timeout"]);
        await put("PUT runner_bootstrap_timeout 7", { runner_bootstrap_timeout: 7 }, ["runner_bootstrap_timeout", "generation"]);
        await put("PUT image bumps generation", { image: "ubuntu:26.04" }, ["image", "generation"]);
        await put("PUT extra_specs", { extra_specs: { a: 1 } }, ["extra_specs", "generation"]);
        await put("PUT extra_specs reformatted (raw bytes compare)", '{"extra_specs": {"a" : 1}}', ["extra_specs", "generation"]);
        await put("PUT name (GitHub PATCH)", { name: "conf-upd-renamed" }, ["name", "generation"]);
        await put("PUT empty strings mean no change", { name: "", image: "", flavor: "" }, ["name", "image", "flavor"]);
        await put("PUT enable_shell", { enable_shell: true }, ["enable_shell", "generation"]);
        await put("PUT runner_prefix", { runner_prefix: "conf" }, ["runner_prefix", "generation"]);
        await put("PUT bad JSON", "{");
        await put("PUT negative max_runners", { max_runners: -1 });
        await put("PUT max_runners as string", { max_runners: "3" });
        await put("PUT enabled as string", { enabled: "yes" });
        await put("PUT template_id unknown", { template_id: 999 });
        // System template ids: 1 github_windows, 2 github_linux, 3 gitea_linux, 4 gitea_windows (GARM v0.2.1).
        await put("PUT template_id 1 (github_windows on linux)", { template_id: 1 });
        await put("PUT template_id 3 (gitea_linux on github)", { template_id: 3 });
        await put("PUT template_id 2 (github_linux)", { template_id: 2 }, ["template_id", "template_name", "generation"]);
        r.res("PUT unknown id", await t.api("PUT", "/scalesets/999999", { image: "x" }));
        r.res("PUT non-numeric id", await t.api("PUT", "/scalesets/abc", { image: "x" }));
        r.res("DELETE", await t.api("DELETE", `/scalesets/${id}`));
    },
};

/** §4.4: create validation happens after GitHub, as plain errors (500). */
const createRules: Scenario = {
    name: "create validation",
    async run(t, r) {
        const post = (body: Json) => t.api("POST", `/organizations/${t.orgId}/scalesets`, { ...BASE, ...body });
        r.res("max_runners 0", await post({ name: "conf-c1", max_runners: 0 }));
        r.res("min > max", await post({ name: "conf-c2", min_idle_runners: 3, max_runners: 2 }));
        r.res("missing image", await post({ name: "conf-c3", image: "" }));
        r.res("missing flavor", await post({ name: "conf-c4", flavor: "" }));
        r.res("missing provider", await post({ name: "conf-c5", provider_name: "" }));
        r.res("missing name", await post({ name: "" }));
        r.res("missing os_type", await post({ name: "conf-c6", os_type: "" }));
        r.res("unknown template", await post({ name: "conf-c7", template_id: 999 }));
        r.res("bad JSON", await t.api("POST", `/organizations/${t.orgId}/scalesets`, "{nope"));
        r.res("non-UUID org", await t.api("POST", "/organizations/not-a-uuid/scalesets", { name: "conf-c8", ...BASE }));
        r.res("unknown org", await t.api("POST", "/organizations/00000000-0000-4000-8000-000000000000/scalesets", { name: "conf-c9", ...BASE }));
        // No provider existence check (§4.4): 200, then a scale set nothing will ever serve.
        const ghost = await post({ name: "conf-ghost", provider_name: "no-such-provider" });
        r.obs("unknown provider", { status: ghost.status, provider_name: r.n.value((ghost.body as Json | undefined)?.provider_name) });
        const first = await post({ name: "conf-dup" });
        r.obs("first of a duplicate", first.status);
        r.res("duplicate name in the same runner group (GitHub refuses, §8)", await post({ name: "conf-dup" }));
        r.obs("repo scale set", (await t.api("POST", `/repositories/${t.repoId}/scalesets`, { name: "conf-dup", ...BASE })).status);
        // Labels de-duplicated by exact string; tags are case-insensitive global rows (§3.7, §4.2).
        const lab = await post({ name: "conf-labels", labels: ["conf-x", "conf-x", "Conf-Y"] });
        r.obs("labels with a duplicate", { status: lab.status, tags: r.n.value(((lab.body as Json).tags as Json[] | undefined)?.map((x) => x.name).sort()) });
        for (const s of (await t.api("GET", "/scalesets")).body as { id: number; name: string }[]) {
            if (s.name.startsWith("conf-")) await t.api("DELETE", `/scalesets/${s.id}`);
        }
        r.obs("cleanup left", ((await t.api("GET", "/scalesets")).body as Json[]).length);
    },
};

/** §1.1, §1.5, §1.7, §2.1, §2.2, §2.4: error bodies of unknown routes and ids. */
const errorBodies: Scenario = {
    name: "error bodies",
    async run(t, r) {
        const get = async (path: string) => r.res(`GET ${path}`, await t.api("GET", path));
        await get("/no-such-route");
        await get("/scalesets/abc");
        await get("/scalesets/-1");
        await get("/scalesets/999999");
        await get("/scalesets/999999/instances");
        await get("/scalesets/");
        await get("/organizations/not-a-uuid");
        await get("/organizations/00000000-0000-4000-8000-000000000000");
        await get("/organizations/not-a-uuid/scalesets");
        await get("/organizations/00000000-0000-4000-8000-000000000000/scalesets");
        await get("/repositories/not-a-uuid");
        await get("/instances/no-such-runner");
        await get("/instances/00000000-0000-4000-8000-000000000000");
        r.res("DELETE /instances/no-such-runner", await t.api("DELETE", "/instances/no-such-runner"));
        r.res("DELETE /scalesets/abc", await t.api("DELETE", "/scalesets/abc"));
        r.res("DELETE /scalesets/999999 (unknown id, §5 step 1)", await t.api("DELETE", "/scalesets/999999"));
        r.res("PATCH /scalesets/1 (method)", await t.api("PATCH", "/scalesets/1", {}));
        r.res("GET /scalesets without a token", await t.apiNoAuth("GET", "/scalesets"));
        r.res("GET /controller without a token", await t.apiNoAuth("GET", "/controller"));
        const providers = (await t.api("GET", "/providers")).body as Json[];
        r.obs("GET /providers", r.n.value(providers.map((p) => pick(p, ["name", "type"]))));
        r.obs("GET /jobs type", Array.isArray((await t.api("GET", "/jobs")).body));
    },
};

/** §5 step 2/3 with no runners: `enabled` refusal; §5 step 6 token NotFound; idempotent delete. */
const deleteEnabled: Scenario = {
    name: "delete preconditions (no runners) and delete faults",
    async run(t, r) {
        const ss = await createScaleSet(t, "conf-del", { enabled: true, min_idle_runners: 0, max_runners: 1 });
        r.res("DELETE enabled, no runners", await t.api("DELETE", `/scalesets/${ss.id}`));
        const off = await t.api("PUT", `/scalesets/${ss.id}`, { enabled: false });
        r.obs("PUT enabled false: enabled key", r.n.value((off.body as Json).enabled));
        t.failGitHub("scaleset-delete-token", 404);
        r.res("DELETE with a 404 from runner-registration (§5 step 6)", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after token 404", (await t.api("GET", `/scalesets/${ss.id}`)).status);
        t.failGitHub("scaleset-delete", 500);
        r.res("DELETE with a GitHub 500 (inverted check)", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after GitHub 500", (await t.api("GET", `/scalesets/${ss.id}`)).status);
        t.failGitHub("scaleset-delete", 404);
        r.res("DELETE with a GitHub 404 (inverted check)", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after GitHub 404", (await t.api("GET", `/scalesets/${ss.id}`)).status);
        r.res("DELETE retry", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.res("GET after retry", await t.api("GET", `/scalesets/${ss.id}`));
        r.res("DELETE again (idempotent)", await t.api("DELETE", `/scalesets/${ss.id}`));
    },
};

/**
 * Runners: instance keys, delete preconditions with runners, runner DELETE statuses, the teardown path with a provider
 * fault (§3.2, §5, §6, §6.1, §6.2).
 */
const runners: Scenario = {
    name: "runners, teardown path, provider fault",
    slow: true,
    async run(t, r) {
        const ss = await createScaleSet(t, "conf-run", { enabled: true, min_idle_runners: 2, max_runners: 2 });
        // Bring up two runners; try to catch one still in pending_create/creating and DELETE it (§6 step 2).
        const seen: string[] = [];
        // Each runner's own statuses: runners start at different times (one replaces the early-deleted one), so the
        // merged list can go back to pending_create without any runner doing so.
        const perRunner = new Map<string, string[]>();
        let earlyDelete: ApiResult | undefined;
        let earlyStatus = "";
        const up = await waitFor(t, "two running runners", async () => {
            const list = await instancesOf(t, ss.id);
            for (const i of list) {
                pushDistinct(seen, `${i.status}/${i.runner_status ?? "-"}`);
                if (!perRunner.has(i.name)) perRunner.set(i.name, []);
                pushDistinct(perRunner.get(i.name)!, i.status);
            }
            const early = list.find((i) => i.status === "pending_create" || i.status === "creating");
            if (early !== undefined && earlyDelete === undefined) {
                earlyDelete = await t.api("DELETE", `/instances/${early.name}`);
                earlyStatus = early.status;
            }
            const running = list.filter((i) => i.status === "running");
            return running.length === 2 ? running : undefined;
        });
        r.info("statuses seen while creating", seen.join(" → "));
        r.obs(
            "creation statuses follow pending_create → creating → running",
            [...perRunner.values()].every((statuses) => followsPath(statuses, ["pending_create", "creating", "running"])),
        );
        if (earlyDelete !== undefined) {
            r.info("early delete caught in", earlyStatus);
            r.res("DELETE a runner in pending_create/creating", earlyDelete);
        } else r.obs("DELETE a runner in pending_create/creating", "<not caught>");
        const [r1, r2] = up.map((i) => i.name).sort() as [string, string];
        r.n.alias(r1, "<runner1>");
        r.n.alias(r2, "<runner2>");
        r.obs("runner_status when running (before the agent reports)", up.map((i) => i.runner_status ?? "<absent>").join(","));
        for (const name of [r1, r2]) await t.runnerReportsIdle(name);

        const one = await t.api("GET", `/instances/${r1}`);
        r.res("GET /instances/{name}", one);
        r.obs("GET /instances/{uuid} same runner", (await t.api("GET", `/instances/${(one.body as Json).id as string}`)).status);
        r.obs("GET /scalesets/{id}/instances entry keys", keysOf((await instancesOf(t, ss.id)).find((i) => i.name === r1)));
        r.obs("GET /instances entry keys", keysOf(((await t.api("GET", "/instances")).body as Instance[]).find((i) => i.name === r1)));
        const full = (await t.api("GET", `/scalesets/${ss.id}`)).body as Json;
        const nested = (full.instances as Json[]).find((i) => i.name === r1);
        r.obs("GET /scalesets/{id} .instances[] entry", r.n.value(nested));

        r.res("DELETE scale set: enabled with runners (§5 step 2 before 3)", await t.api("DELETE", `/scalesets/${ss.id}`));
        const off = await t.api("PUT", `/scalesets/${ss.id}`, { enabled: false });
        r.obs("disable", off.status);
        r.res("DELETE scale set: disabled with runners", await t.api("DELETE", `/scalesets/${ss.id}`));

        // Runner delete with GitHub failures (§6 step 3).
        t.failGitHub("runner-delete", 500);
        r.res("DELETE runner, GitHub 500", await t.api("DELETE", `/instances/${r1}`));
        t.failGitHub("runner-delete", 403);
        r.res("DELETE runner, GitHub 403", await t.api("DELETE", `/instances/${r1}`));
        r.obs("status after failed deletes", r.n.value(pick((await t.api("GET", `/instances/${r1}`)).body, ["status"])));

        // Teardown path with a failing provider (§6.1, §6.2).
        t.failTeardown(r1, true);
        r.res("DELETE runner (teardown will fail)", await t.api("DELETE", `/instances/${r1}`));
        r.obs("right after DELETE", r.n.value(pick((await t.api("GET", `/instances/${r1}`)).body, ["status", "provider_fault"])));
        r.res("DELETE again while pending_delete", await t.api("DELETE", `/instances/${r1}`));
        const path1: string[] = [];
        let deletingDelete: ApiResult | undefined;
        const faulty = await waitFor(t, "provider_fault on r1", async () => {
            const i = (await t.api("GET", `/instances/${r1}`)).body as Instance;
            pushDistinct(path1, i.status + (i.provider_fault ? "+fault" : ""));
            if (i.status === "deleting" && deletingDelete === undefined) deletingDelete = await t.api("DELETE", `/instances/${r1}`);
            return i.provider_fault !== undefined && i.status === "pending_delete" ? i : undefined;
        });
        r.info("r1 statuses until the fault", path1.join(" → "));
        r.obs("faulted runner", r.n.value(pick(faulty, ["status", "provider_fault", "runner_status"])));
        if (deletingDelete !== undefined) r.res("DELETE a runner in deleting", deletingDelete);
        else r.obs("DELETE a runner in deleting", "<not caught>");
        const again = await t.api("DELETE", `/instances/${r1}`);
        r.res("DELETE a faulted pending_delete runner", again);
        r.obs("fault right after that DELETE", r.n.value(pick((await t.api("GET", `/instances/${r1}`)).body, ["status", "provider_fault"])));
        t.failTeardown(r1, false);
        const path2: string[] = [];
        await waitFor(t, "r1 row removed", async () => {
            const g = await t.api("GET", `/instances/${r1}`);
            if (g.status === 404) {
                pushDistinct(path2, "404");
                return true;
            }
            const i = g.body as Instance;
            pushDistinct(path2, i.status);
            return undefined;
        });
        r.info("r1 statuses after healing", path2.join(" → "));
        r.obs("healed teardown follows pending_delete → deleting → deleted → 404", followsPath(path2, ["pending_delete", "deleting", "deleted", "404"]));
        r.res("GET removed runner", await t.api("GET", `/instances/${r1}`));

        // forceRemove ignores provider errors (§6.1).
        t.failTeardown(r2, true);
        r.res("DELETE ?forceRemove=true (teardown fails)", await t.api("DELETE", `/instances/${r2}?forceRemove=true`));
        r.obs("right after force DELETE", r.n.value(pick((await t.api("GET", `/instances/${r2}`)).body, ["status"])));
        const path3: string[] = [];
        await waitFor(t, "r2 row removed", async () => {
            const g = await t.api("GET", `/instances/${r2}`);
            pushDistinct(path3, g.status === 404 ? "404" : (g.body as Instance).status + ((g.body as Instance).provider_fault ? "+fault" : ""));
            return g.status === 404 ? true : undefined;
        });
        t.failTeardown(r2, false);
        r.info("r2 statuses (forced)", path3.join(" → "));
        r.obs("forced teardown follows pending_force_delete → deleting → deleted → 404", followsPath(path3, ["pending_force_delete", "deleting", "deleted", "404"]));

        // Nothing replaces them while disabled (§7.6); the scale set is deletable, first through the inverted check (§5).
        for (let i = 0; i < 4; i++) await t.advance();
        r.res("instances after teardown", await t.api("GET", `/scalesets/${ss.id}/instances`));
        t.failGitHub("scaleset-delete", 500);
        r.res("DELETE scale set, GitHub 500", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after inverted delete", (await t.api("GET", `/scalesets/${ss.id}`)).status);
        r.res("DELETE scale set", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after delete", (await t.api("GET", `/scalesets/${ss.id}`)).status);
    },
};

/** §5 no-op trap after an out-of-band GitHub delete; a restart re-creates the GitHub scale set (§4.5). */
const restartTrap: Scenario = {
    name: "out-of-band GitHub delete, restart",
    async run(t, r) {
        const ss = await createScaleSet(t, "conf-oob", { enabled: false });
        t.deleteGitHubScaleSet(ss);
        r.res("DELETE after out-of-band GitHub delete", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after no-op delete", (await t.api("GET", `/scalesets/${ss.id}`)).status);
        await t.restart();
        const recreated = await waitFor(t, "GitHub scale set re-created", async () => {
            const g = (await t.api("GET", `/scalesets/${ss.id}`)).body as Json;
            return g.scale_set_id !== ss.scale_set_id ? g : undefined;
        });
        r.obs("scale_set_id changed after restart", recreated.scale_set_id !== ss.scale_set_id);
        r.res("DELETE after restart", await t.api("DELETE", `/scalesets/${ss.id}`));
        r.obs("GET after delete", (await t.api("GET", `/scalesets/${ss.id}`)).status);
    },
};

export const SCENARIOS: Scenario[] = [
  omittedKeys,
  updateRules,
  createRules,
  errorBodies,
  deleteEnabled,
  runners,
  restartTrap,
  ...FORGE_SCENARIOS,
  ...ENTITY_SCENARIOS,
  ...TEMPLATE_POOL_SCENARIOS,
  ...NAME_SCENARIOS,
];
