// Conformance scenarios for runner install templates and classic pools (issue 16): what GarmTemplate and GarmPool rely
// on, run against the simulator and the real GARM v0.2.1 alike. Pools stay disabled with no idle runners, so no runner
// is ever made. Section numbers refer to docs/garm-behaviour.md.
import type { Recorder } from "./observe";
import type { Scenario } from "./scenarios";
import type { Target } from "./target";

type Json = Record<string, unknown>;
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

function pick(o: unknown, keys: string[]): Json {
    const src = (o ?? {}) as Json;
    return Object.fromEntries(keys.map((k) => [k, src[k]]));
}

/** §2.6; runner/templates.go, database/sql/templates.go: create rules, update fields, in-use delete, missing delete. */
const templates: Scenario = {
    name: "templates: create, update, in-use delete",
    async run(t: Target, r: Recorder) {
        const valid = { name: "conf-tpl", description: "d", os_type: "linux", forge_type: "github", data: b64("echo 1") };
        r.res("POST name empty", await t.api("POST", "/templates", { ...valid, name: "" }));
        r.res("POST data empty", await t.api("POST", "/templates", { ...valid, data: "" }));
        r.res("POST os_type macos", await t.api("POST", "/templates", { ...valid, os_type: "macos" }));
        r.res("POST forge_type omitted", await t.api("POST", "/templates", { ...valid, forge_type: undefined }));
        r.res("POST data not base64", await t.api("POST", "/templates", { ...valid, data: "%%%" }));
        const created = await t.api("POST", "/templates", valid);
        r.res("POST valid", created);
        const id = (created.body as { id: number }).id;
        r.res("POST same name again", await t.api("POST", "/templates", valid));
        r.res("GET by id (data base64)", await t.api("GET", `/templates/${id}`));
        const listed = (await t.api("GET", "/templates?partialName=CONF-T")).body as Json[];
        r.obs("GET list partialName (case-insensitive), data omitted", r.n.value(listed.map((x) => pick(x, ["name", "data", "owner_id", "description"]))));
        r.res("PUT name empty", await t.api("PUT", `/templates/${id}`, { name: "" }));
        r.res("PUT description only", await t.api("PUT", `/templates/${id}`, { description: "d2" }));
        r.res("PUT data", await t.api("PUT", `/templates/${id}`, { data: b64("echo 2") }));
        r.res("PUT os_type ignored", await t.api("PUT", `/templates/${id}`, { os_type: "windows" }));
        r.res("PUT name to a system template's name", await t.api("PUT", `/templates/${id}`, { name: "github_linux" }));
        r.res("PUT name back", await t.api("PUT", `/templates/${id}`, { name: "conf-tpl" }));
        r.res("PUT unknown id", await t.api("PUT", "/templates/999999", { description: "x" }));
        r.res("GET unknown id", await t.api("GET", "/templates/999999"));
        r.res("GET non-numeric id", await t.api("GET", "/templates/abc"));
        const ss = await t.api("POST", `/organizations/${t.orgId}/scalesets`, {
            name: "conf-tpl-user",
            provider_name: "fake",
            image: "ubuntu:24.04",
            flavor: "small",
            os_type: "linux",
            os_arch: "amd64",
            max_runners: 1,
            enabled: false,
            labels: ["conf-tpl"],
            template_id: id,
        });
        r.obs("POST scale set with the template", r.n.value(pick(ss.body, ["template_id", "template_name"])));
        r.res("DELETE while a scale set uses it", await t.api("DELETE", `/templates/${id}`));
        await t.api("DELETE", `/scalesets/${(ss.body as { id: number }).id}`);
        r.res("DELETE once unused", await t.api("DELETE", `/templates/${id}`));
        r.res("DELETE again (missing)", await t.api("DELETE", `/templates/${id}`));
    },
};

const POOL = { provider_name: "fake", image: "ubuntu:24.04", flavor: "small", os_type: "linux", os_arch: "amd64", max_runners: 2, tags: ["conf-pool"] };

/** runner/pools.go, runner/runner.go L903-923, database/sql/util.go L580-689: pool create rules and update fields. */
const pools: Scenario = {
    name: "pools: create rules, update fields, delete",
    async run(t: Target, r: Recorder) {
        const create = (label: string, body: Json) => t.api("POST", `/organizations/${t.orgId}/pools`, body).then((res) => (r.res(label, res), res));
        await create("POST provider missing", { ...POOL, provider_name: "" });
        await create("POST min > max", { ...POOL, min_idle_runners: 3 });
        await create("POST max 0", { ...POOL, max_runners: 0 });
        await create("POST tags missing", { ...POOL, tags: [] });
        await create("POST image missing", { ...POOL, image: "" });
        await create("POST os_type macos", { ...POOL, os_type: "macos" });
        await create("POST os_arch sparc", { ...POOL, os_arch: "sparc" });
        await create("POST unknown provider", { ...POOL, provider_name: "no-such" });
        await create("POST template_id 1 (windows) on linux", { ...POOL, template_id: 1 });
        const created = await create("POST valid, disabled, bootstrap timeout omitted", { ...POOL, enabled: false });
        const id = (created.body as { id: string }).id;
        r.res("GET /pools/{id}", await t.api("GET", `/pools/${id}`));
        const all = (await t.api("GET", "/pools")).body as Json[];
        r.obs("GET /pools entry", r.n.value(all.find((p) => p.id === id)));
        r.res("GET /pools/{id}/instances (none)", await t.api("GET", `/pools/${id}/instances`));
        const put = async (label: string, body: unknown, keys: string[]) => {
            const res = await t.api("PUT", `/pools/${id}`, body);
            if (res.status !== 200) r.res(label, res);
            else r.obs(label, { status: res.status, body: r.n.value(pick(res.body, keys)) });
        };
        await put("PUT tags replace the tags", { tags: ["conf-pool", "conf-gpu"] }, ["tags", "generation"]);
        await put("PUT empty tags leave them", { tags: [] }, ["tags"]);
        await put("PUT image bumps generation", { image: "ubuntu:26.04" }, ["image", "generation"]);
        await put("PUT priority and runner group", { priority: 5, "github-runner-group": "ci" }, ["priority", "github-runner-group", "generation"]);
        await put("PUT runner_bootstrap_timeout 0", { runner_bootstrap_timeout: 0 }, ["runner_bootstrap_timeout"]);
        await put("PUT min 3 > max 2", { min_idle_runners: 3 }, ["min_idle_runners"]);
        await put("PUT drain settings (disabled, 0, 0)", { enabled: false, min_idle_runners: 0, max_runners: 0 }, ["enabled", "min_idle_runners", "max_runners"]);
        await put("PUT provider_name ignored", { provider_name: "other" }, ["provider_name"]);
        r.res("PUT unknown id", await t.api("PUT", "/pools/00000000-0000-4000-8000-000000000000", { image: "x" }));
        r.res("GET unknown id", await t.api("GET", "/pools/00000000-0000-4000-8000-000000000000"));
        r.res("DELETE", await t.api("DELETE", `/pools/${id}`));
        r.res("DELETE again (missing)", await t.api("DELETE", `/pools/${id}`));
        r.res("GET after delete", await t.api("GET", `/pools/${id}`));
    },
};

/**
 * What GARM answers of a scale set's and a pool's tags and extra specs: tags read back in the order their rows were
 * created, a label in another case folds into the tag that exists (database/sql/util.go L560-577), and extra specs are
 * in every scale-set list (database/sql/scalesets.go L42-43: gorm's second Omit replaces the first) but not in GET /pools
 * (database/sql/pools.go L48).
 */
const tagsAndExtraSpecs: Scenario = {
    name: "tags order and folding, extra specs in lists",
    async run(t: Target, r: Recorder) {
        const labels = ["conf-zz", "Conf-Fold", "conf-mm", "conf-aa", "conf-qq"];
        const first = await t.api("POST", `/organizations/${t.orgId}/pools`, { ...POOL, enabled: false, tags: ["conf-fold"] });
        const ss = await t.api("POST", `/organizations/${t.orgId}/scalesets`, {
            name: "conf-tags", provider_name: "fake", image: "ubuntu:24.04", flavor: "small", os_type: "linux", os_arch: "amd64",
            max_runners: 1, min_idle_runners: 0, enabled: false, labels, extra_specs: { conf: 1 },
        });
        const pool = await t.api("POST", `/organizations/${t.orgId}/pools`, { ...POOL, enabled: false, tags: labels, extra_specs: { conf: 1 } });
        for (const [what, res] of [["pool", first], ["scale set", ss], ["second pool", pool]] as const) {
            if (res.status !== 200) throw new Error(`[${t.kind}] create ${what}: ${res.status} ${res.text}`);
        }
        const ssId = (ss.body as { id: number }).id;
        const poolId = (pool.body as { id: string }).id;
        for (const [what, path] of [["scale set", `/scalesets/${ssId}`], ["pool", `/pools/${poolId}`]]) {
            const tags = ((await t.api("GET", path)).body as { tags: { id: string; name: string }[] }).tags;
            // In the order the tag rows were created: conf-fold (the first pool's) first, then as sent, Conf-Fold folded.
            r.obs(`GET ${what} by id: tag names in order`, tags.map((tag) => tag.name).join(","));
        }
        const listed = async (path: string, id: number | string) => ((await t.api("GET", path)).body as Json[]).find((x) => x.id === id);
        r.obs("GET /scalesets entry: extra_specs", r.n.value((await listed("/scalesets", ssId))?.extra_specs ?? "<absent>"));
        r.obs("GET /organizations/{id}/scalesets entry: extra_specs", r.n.value((await listed(`/organizations/${t.orgId}/scalesets`, ssId))?.extra_specs ?? "<absent>"));
        r.obs("GET /pools entry: extra_specs", r.n.value((await listed("/pools", poolId))?.extra_specs ?? "<absent>"));
        r.obs("GET /pools/{id}: extra_specs", r.n.value(((await t.api("GET", `/pools/${poolId}`)).body as Json).extra_specs ?? "<absent>"));
        r.res("DELETE scale set", await t.api("DELETE", `/scalesets/${ssId}`));
        r.res("DELETE pool", await t.api("DELETE", `/pools/${poolId}`));
        r.res("DELETE first pool", await t.api("DELETE", `/pools/${(first.body as { id: string }).id}`));
    },
};

export const TEMPLATE_POOL_SCENARIOS: Scenario[] = [templates, pools, tagsAndExtraSpecs];
