// Conformance scenarios of the routes GarmOrganization, GarmRepository, GarmEnterprise and GarmController use:
// entity create/update/delete validation and texts (garm-behaviour.md §2.4; runner/organizations.go, repositories.go,
// enterprises.go), the webhook routes (runner/pool/pool.go L2204-2380) and PUT /controller (§1.6).
import type { Scenario } from "./scenarios";
import type { ApiResult, Target } from "./target";

type Json = Record<string, unknown>;

const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
const ENTITY_KEYS = ["name", "owner", "pool_balancing_type", "agent_mode", "credentials_name", "endpoint"];

/** The credentials the target was seeded with; their name differs per target, so messages show it as <creds>. */
async function seededCredentials(t: Target): Promise<string> {
    const list = (await t.api("GET", "/credentials")).body as Json[];
    return String(list[0]?.name ?? "");
}

const entities: Scenario = {
    name: "entities: create, update and delete rules",
    async run(t, r) {
        const creds = await seededCredentials(t);
        r.n.alias(creds, "<creds>");
        const entity = (res: ApiResult) => ({ status: res.status, body: res.status === 200 ? r.n.value(pick(res.body as Json, ENTITY_KEYS)) : r.n.result(res) });

        const org = { name: "conf-org", credentials_name: creds, webhook_secret: "conf-secret-1" };
        r.res("POST org without name", await t.api("POST", "/organizations", { ...org, name: "" }));
        r.res("POST org without credentials", await t.api("POST", "/organizations", { ...org, credentials_name: "" }));
        r.res("POST org without secret (MissingSecretError)", await t.api("POST", "/organizations", { ...org, webhook_secret: "" }));
        r.res("POST org with an unknown balancer", await t.api("POST", "/organizations", { ...org, pool_balancer_type: "random" }));
        r.res("POST org with unknown credentials", await t.api("POST", "/organizations", { ...org, credentials_name: "no-such-creds" }));
        const created = await t.api("POST", "/organizations", org);
        r.obs("POST org", entity(created));
        const id = String((created.body as Json).id);
        r.res("POST org again, other case (COLLATE NOCASE)", await t.api("POST", "/organizations", { ...org, name: "CONF-ORG" }));
        r.obs("GET /organizations?name=", r.n.value(((await t.api("GET", "/organizations?name=conf-org")).body as Json[]).map((e) => e.name)));

        r.obs("PUT org balancer pack, agent mode", entity(await t.api("PUT", `/organizations/${id}`, { pool_balancer_type: "pack", agent_mode: true })));
        r.obs("PUT org secret only", entity(await t.api("PUT", `/organizations/${id}`, { webhook_secret: "conf-secret-2" })));
        r.obs("PUT org empty body", entity(await t.api("PUT", `/organizations/${id}`, {})));
        r.res("PUT org unknown balancer", await t.api("PUT", `/organizations/${id}`, { pool_balancer_type: "random" }));
        r.res("PUT org unknown credentials", await t.api("PUT", `/organizations/${id}`, { credentials_name: "no-such-creds" }));
        r.res("PUT org non-UUID", await t.api("PUT", "/organizations/not-a-uuid", { pool_balancer_type: "pack" }));
        r.res("PUT org unknown id", await t.api("PUT", "/organizations/00000000-0000-4000-8000-000000000000", { pool_balancer_type: "pack" }));
        r.res("PUT repo unknown id", await t.api("PUT", "/repositories/00000000-0000-4000-8000-000000000000", { pool_balancer_type: "pack" }));
        r.res("PUT enterprise unknown id", await t.api("PUT", "/enterprises/00000000-0000-4000-8000-000000000000", { pool_balancer_type: "pack" }));

        const repo = { owner: "conf-owner", name: "conf-repo", credentials_name: creds, webhook_secret: "conf-secret-1" };
        r.res("POST repo without owner", await t.api("POST", "/repositories", { ...repo, owner: "" }));
        r.res("POST repo without name", await t.api("POST", "/repositories", { ...repo, name: "" }));
        const repoMade = await t.api("POST", "/repositories", repo);
        r.obs("POST repo", entity(repoMade));
        r.res("POST repo again", await t.api("POST", "/repositories", repo));
        const ent = { name: "conf-ent", credentials_name: creds, webhook_secret: "conf-secret-1" };
        r.res("POST enterprise without name", await t.api("POST", "/enterprises", { ...ent, name: "" }));
        const entMade = await t.api("POST", "/enterprises", ent);
        r.obs("POST enterprise", entity(entMade));
        r.res("POST enterprise again", await t.api("POST", "/enterprises", ent));
        r.res("GET enterprise webhook (no route)", await t.api("GET", `/enterprises/${String((entMade.body as Json).id)}/webhook`));

        // GARM refuses to delete an entity with scale sets; the scale set is made disabled so it deletes at once.
        const ss = await t.api("POST", `/organizations/${t.orgId}/scalesets`, {
            name: "conf-ent-dep",
            provider_name: "fake",
            image: "ubuntu:24.04",
            flavor: "small",
            os_type: "linux",
            os_arch: "amd64",
            max_runners: 1,
            enabled: false,
        });
        r.res("DELETE org with a scale set", await t.api("DELETE", `/organizations/${t.orgId}`));
        await t.api("DELETE", `/scalesets/${String((ss.body as Json).id)}`);

        r.res("DELETE org", await t.api("DELETE", `/organizations/${id}?keepWebhook=true`));
        r.res("DELETE org again", await t.api("DELETE", `/organizations/${id}`));
        r.res("DELETE org non-UUID", await t.api("DELETE", "/organizations/not-a-uuid"));
        r.res("DELETE repo", await t.api("DELETE", `/repositories/${String((repoMade.body as Json).id)}?keepWebhook=true`));
        r.res("DELETE repo again", await t.api("DELETE", `/repositories/${String((repoMade.body as Json).id)}`));
        r.res("DELETE enterprise", await t.api("DELETE", `/enterprises/${String((entMade.body as Json).id)}`));
        r.res("DELETE enterprise again", await t.api("DELETE", `/enterprises/${String((entMade.body as Json).id)}`));
    },
};

const webhooks: Scenario = {
    name: "entity webhooks: install, info, uninstall",
    async run(t, r) {
        const creds = await seededCredentials(t);
        r.n.alias(creds, "<creds>");
        const controller = (await t.api("GET", "/controller")).body as Json;
        const hook = (res: ApiResult) => {
            if (res.status !== 200) return r.n.result(res);
            const b = res.body as Json;
            return r.n.value({ active: b.active, events: b.events, url_is_controller_webhook_url: b.url === controller.controller_webhook_url });
        };
        for (const [plural, body] of [
            ["organizations", { name: "conf-hook-org" }],
            ["repositories", { owner: "conf-hook", name: "app" }],
        ] as const) {
            const made = await t.api("POST", `/${plural}`, { ...body, credentials_name: creds, webhook_secret: "conf-hook-secret" });
            const id = String((made.body as Json).id);
            r.res(`${plural}: GET webhook before install`, await t.api("GET", `/${plural}/${id}/webhook`));
            r.obs(`${plural}: POST webhook`, hook(await t.api("POST", `/${plural}/${id}/webhook`, { webhook_endpoint_type: "direct" })));
            r.res(`${plural}: POST webhook again`, await t.api("POST", `/${plural}/${id}/webhook`, {}));
            r.obs(`${plural}: GET webhook`, hook(await t.api("GET", `/${plural}/${id}/webhook`)));
            r.res(`${plural}: DELETE webhook`, await t.api("DELETE", `/${plural}/${id}/webhook`));
            r.res(`${plural}: GET webhook after uninstall`, await t.api("GET", `/${plural}/${id}/webhook`));
            r.res(`${plural}: DELETE webhook again`, await t.api("DELETE", `/${plural}/${id}/webhook`));
            r.res(`${plural}: POST webhook unknown id`, await t.api("POST", `/${plural}/00000000-0000-4000-8000-000000000000/webhook`, {}));
            await t.api("POST", `/${plural}/${id}/webhook`, {});
            r.res(`${plural}: DELETE with its webhook (keepWebhook false)`, await t.api("DELETE", `/${plural}/${id}`));
        }
    },
};

/**
 * A new controller webhook URL (issue 34): GARM touches no hook, then finds none (info 404), removes none (uninstall
 * looks at the new URL only) and refuses to install one beside the old (its URL has the controller id); with the old URL
 * back, the uninstall removes it, and with the new one the install makes a hook there. GarmController relies on this.
 */
const webhookUrlChange: Scenario = {
    name: "entity webhooks across a controller webhook URL change",
    async run(t, r) {
        const creds = await seededCredentials(t);
        r.n.alias(creds, "<creds>");
        const before = (await t.api("GET", "/controller")).body as Json;
        const oldBase = String(before.webhook_url);
        const newBase = "http://garm-moved.example.net/hooks";
        // GARM's pool managers learn the new URL through its watcher after the PUT answered (runner/pool/watcher.go L146-152).
        const moveTo = async (url: string) => {
            const res = await t.api("PUT", "/controller", { webhook_url: url });
            await t.advance();
            return res.status;
        };
        const made = await t.api("POST", "/organizations", { name: "conf-move-org", credentials_name: creds, webhook_secret: "conf-move-secret" });
        const id = String((made.body as Json).id);
        const url = (res: ApiResult) =>
            res.status === 200
                ? String((res.body as Json).url).replace(String(before.controller_id), "<cid>").replace(newBase, "<new>").replace(oldBase, "<old>")
                : r.n.result(res);
        r.obs("install at the old URL", url(await t.api("POST", `/organizations/${id}/webhook`, {})));
        r.obs("move to the new URL", await moveTo(newBase));
        r.res("GET webhook after the move", await t.api("GET", `/organizations/${id}/webhook`));
        r.res("DELETE webhook after the move", await t.api("DELETE", `/organizations/${id}/webhook`));
        r.res("POST webhook after the move", await t.api("POST", `/organizations/${id}/webhook`, {}));
        r.obs("back to the old URL", await moveTo(oldBase));
        r.res("DELETE webhook at the old URL", await t.api("DELETE", `/organizations/${id}/webhook`));
        r.obs("move again", await moveTo(newBase));
        r.obs("POST webhook at the new URL", url(await t.api("POST", `/organizations/${id}/webhook`, {})));
        r.obs("cleanup", [await moveTo(oldBase), (await t.api("DELETE", `/organizations/${id}?keepWebhook=true`)).status]);
    },
};

const controllerUpdate: Scenario = {
    name: "controller update",
    async run(t, r) {
        const before = (await t.api("GET", "/controller")).body as Json;
        const view = (res: ApiResult) =>
            res.status === 200 ? r.n.value(pick(res.body as Json, ["minimum_job_age_backoff"])) : r.n.result(res);
        r.res("PUT /controller callback_url without scheme", await t.api("PUT", "/controller", { callback_url: "garm.example.com/callbacks" }));
        r.res("PUT /controller webhook_url without host", await t.api("PUT", "/controller", { webhook_url: "https://" }));
        r.res("PUT /controller metadata_url not a URL", await t.api("PUT", "/controller", { metadata_url: "::" }));
        r.obs("PUT /controller minimum_job_age_backoff", view(await t.api("PUT", "/controller", { minimum_job_age_backoff: 45 })));
        const moved = await t.api("PUT", "/controller", { webhook_url: "http://127.0.0.1:9/hooks/" });
        const m = moved.body as Json;
        r.obs("PUT /controller webhook_url: controller_webhook_url", m.controller_webhook_url === `http://127.0.0.1:9/hooks/${String(m.controller_id)}`);
        r.obs("PUT /controller restore", (await t.api("PUT", "/controller", pick(before, ["webhook_url", "minimum_job_age_backoff"]))).status);
    },
};

/**
 * GitHub and Gitea credentials of one name (runner/common.go L12-31): each forge numbers its credentials apart, an
 * entity create without forge_type is refused for a name both hold, forge_type picks one, names match ignoring case and
 * come back in GARM's spelling; an entity on a forge GARM cannot reach, as GET by id shows it (status, events, pools);
 * a Gitea endpoint's tools_metadata_url as sent.
 */
const forgeType: Scenario = {
    name: "entities: forge type, credentials per forge, entity detail",
    async run(t, r) {
        const seeded = ((await t.api("GET", "/credentials")).body as Json[])[0] as Json;
        const seededEndpoint = String((seeded.endpoint as Json).name);
        const ep = { name: "conf-ft-gitea", api_base_url: "https://gitea.ft.invalid/api/v1", base_url: "https://gitea.ft.invalid" };
        r.res("gitea endpoint with an ftp tools_metadata_url", await t.api("POST", "/gitea/endpoints", { ...ep, tools_metadata_url: "ftp://tools.ft.invalid/" }));
        r.res("gitea endpoint with tools_metadata_url", await t.api("POST", "/gitea/endpoints", { ...ep, tools_metadata_url: "https://tools.ft.invalid/releases" }));
        r.res("GET gitea endpoint: tools_metadata_url as sent", await t.api("GET", "/gitea/endpoints/conf-ft-gitea"));

        const pat = { auth_type: "pat", pat: { oauth2_token: "conf-ft-token" } };
        const a = await t.api("POST", "/gitea/credentials", { ...pat, name: "conf-ft-a", endpoint: "conf-ft-gitea" });
        const h = await t.api("POST", "/github/credentials", { ...pat, name: "conf-ft-both", endpoint: seededEndpoint });
        const b = await t.api("POST", "/gitea/credentials", { ...pat, name: "CONF-FT-BOTH", endpoint: "conf-ft-gitea" });
        r.obs("credentials made", [a.status, h.status, b.status]);
        const id = (x: typeof a) => Number((x.body as Json).id);
        r.obs("gitea credentials ids count apart from github's", id(b) - id(a));

        const secret = { webhook_secret: "conf-ft-secret" };
        r.res("org, name on both forges, no forge_type", await t.api("POST", "/organizations", { ...secret, name: "conf-ft-org", credentials_name: "conf-ft-both" }));
        r.res("repo, name on both forges, no forge_type", await t.api("POST", "/repositories", { ...secret, owner: "conf-ft", name: "app", credentials_name: "conf-ft-both" }));
        r.res("org, unknown forge_type", await t.api("POST", "/organizations", { ...secret, name: "conf-ft-org", credentials_name: "conf-ft-both", forge_type: "bitbucket" }));
        const made = (res: typeof a, wantCreds: string, wantEndpoint: string) => ({
            status: res.status,
            credentials_name_in_garms_spelling: (res.body as Json).credentials_name === wantCreds,
            endpoint: ((res.body as Json).endpoint as Json | undefined)?.name === wantEndpoint,
            pool_manager_status: r.n.value((res.body as Json).pool_manager_status),
        });
        const gh = await t.api("POST", "/organizations", { ...secret, name: "conf-ft-org", credentials_name: "CONF-FT-BOTH", forge_type: "github" });
        r.obs("org, forge_type github, name in another case", made(gh, "conf-ft-both", seededEndpoint));
        const gt = await t.api("POST", "/organizations", { ...secret, name: "conf-ft-org", credentials_name: "conf-ft-both", forge_type: "gitea" });
        r.obs("org, forge_type gitea", made(gt, "CONF-FT-BOTH", "conf-ft-gitea"));
        const ent = await t.api("POST", "/enterprises", { ...secret, name: "conf-ft-ent", credentials_name: "CONF-FT-BOTH" });
        r.obs("enterprise, name on both forges: GitHub's", made(ent, "conf-ft-both", seededEndpoint));
        r.res("enterprise, gitea-only credentials", await t.api("POST", "/enterprises", { ...secret, name: "conf-ft-ent2", credentials_name: "conf-ft-a" }));

        const giteaOrg = String((gt.body as Json).id);
        const pool = await t.api("POST", `/organizations/${giteaOrg}/pools`, {
            provider_name: "fake",
            image: "ubuntu:24.04",
            flavor: "small",
            os_type: "linux",
            os_arch: "amd64",
            max_runners: 1,
            min_idle_runners: 0,
            tags: ["conf-ft"],
            enabled: false,
        });
        r.obs("pool under the gitea org", pool.status);
        // The pool manager starts in the background and records its failure to reach the forge as an event.
        let detail = (await t.api("GET", `/organizations/${giteaOrg}`)).body as Json;
        for (let step = 0; step < t.maxSteps && !(Array.isArray(detail.events) && Object.keys((detail.pool_manager_status as Json) ?? {}).length > 0); step++) {
            await t.advance();
            detail = (await t.api("GET", `/organizations/${giteaOrg}`)).body as Json;
        }
        const events = (detail.events as Json[] | undefined) ?? [];
        r.obs("GET org on an unreachable forge", {
            keys: Object.keys(detail).sort().join(","),
            pool_manager_status: r.n.value(detail.pool_manager_status),
            pools: Array.isArray(detail.pool) ? detail.pool.length : "<absent>",
            event_keys: Object.keys(events[0] ?? {}).sort().join(","),
            event: r.n.value({ type: events[0]?.event_type, level: events[0]?.event_level, head: String(events[0]?.message ?? "").split(":")[0] }),
        });
        const listed = ((await t.api("GET", "/organizations?endpoint=conf-ft-gitea")).body as Json[])[0] ?? {};
        r.obs("GET /organizations?endpoint= item", { keys: Object.keys(listed).sort().join(","), pool_manager_status: r.n.value(listed.pool_manager_status) });

        r.obs("cleanup", [
            (await t.api("DELETE", `/pools/${String((pool.body as Json).id)}`)).status,
            (await t.api("DELETE", `/organizations/${giteaOrg}?keepWebhook=true`)).status,
            (await t.api("DELETE", `/organizations/${String((gh.body as Json).id)}?keepWebhook=true`)).status,
            (await t.api("DELETE", `/enterprises/${String((ent.body as Json).id)}`)).status,
            (await t.api("DELETE", `/gitea/credentials/${id(a)}`)).status,
            (await t.api("DELETE", `/gitea/credentials/${id(b)}`)).status,
            (await t.api("DELETE", `/github/credentials/${id(h)}`)).status,
            (await t.api("DELETE", "/gitea/endpoints/conf-ft-gitea")).status,
        ]);
    },
};

export const ENTITY_SCENARIOS: Scenario[] = [entities, webhooks, webhookUrlChange, controllerUpdate, forgeType];
