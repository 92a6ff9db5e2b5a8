// Conformance scenarios for how GARM compares names (issue 23 items 2, 10, 14, 15): endpoint, credentials and entity
// names are keys that ignore case (database/sql/models.go L238-317, L464-510 at v0.2.1), template names do not
// (models.go L96); list filters, duplicate checks and renames onto a taken name; an empty CA bundle on create and update.
import { CA_CERT_1 } from "../../../harness/forge-pem";
import type { Scenario } from "./scenarios";
import type { Target } from "./target";

type Json = Record<string, unknown>;

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

const ENDPOINT = {
    name: "conf-names",
    description: "conformance names",
    api_base_url: "https://names.conf.invalid/api/v3/",
    upload_base_url: "https://names.conf.invalid/api/uploads/",
    base_url: "https://names.conf.invalid",
};

const namesOf = async (t: Target, path: string) => (((await t.api("GET", path)).body as Json[] | null) ?? []).map((e) => String(e.name)).sort();

/** Endpoint names: one key over both forges, ignoring case; an empty CA bundle is refused on create and update. */
const endpointNames: Scenario = {
    name: "names: endpoint keys ignore case across forges; empty CA bundle",
    async run(t, r) {
        r.res("POST with empty ca_cert_bundle", await t.api("POST", "/github/endpoints", { ...ENDPOINT, ca_cert_bundle: "" }));
        r.res("POST with CA bundle", await t.api("POST", "/github/endpoints", { ...ENDPOINT, ca_cert_bundle: b64(CA_CERT_1) }));
        r.res("PUT empty ca_cert_bundle", await t.api("PUT", `/github/endpoints/${ENDPOINT.name}`, { ca_cert_bundle: "" }));
        r.res("PUT other case, description", await t.api("PUT", "/github/endpoints/CONF-NAMES", { description: "d2" }));
        const gitea = { name: "CONF-NAMES", description: "", api_base_url: "https://gitea.names.conf.invalid/api/v1", base_url: "https://gitea.names.conf.invalid" };
        r.res("POST gitea endpoint, name held by github in other case", await t.api("POST", "/gitea/endpoints", gitea));
        r.res("GET other case via gitea route", await t.api("GET", "/gitea/endpoints/conf-names"));
        r.res("DELETE other case", await t.api("DELETE", "/github/endpoints/Conf-Names"));
        r.res("GET after delete", await t.api("GET", `/github/endpoints/${ENDPOINT.name}`));
    },
};

/** Credentials names ignore case; renaming credentials or a template onto a taken name. */
const renames: Scenario = {
    name: "names: credentials and template renames onto a taken name",
    async run(t, r) {
        const ep = { ...ENDPOINT, name: "conf-names-2" };
        await t.api("POST", "/github/endpoints", ep);
        const pat = (name: string) => ({ name, description: "", endpoint: ep.name, auth_type: "pat", pat: { oauth2_token: "conf-token" } });
        const a = (await t.api("POST", "/github/credentials", pat("conf-names-a"))).body as Json;
        const b = (await t.api("POST", "/github/credentials", pat("conf-names-b"))).body as Json;
        r.res("creds PUT rename onto a taken name, other case", await t.api("PUT", `/github/credentials/${String(b.id)}`, { name: "CONF-NAMES-A" }));
        r.res("creds PUT rename, case only", await t.api("PUT", `/github/credentials/${String(a.id)}`, { name: "Conf-Names-A" }));
        r.obs("creds list after renames", (await namesOf(t, "/github/credentials")).filter((n) => n.toLowerCase().startsWith("conf-names")));
        await t.api("DELETE", `/github/credentials/${String(a.id)}`);
        await t.api("DELETE", `/github/credentials/${String(b.id)}`);
        await t.api("DELETE", `/github/endpoints/${ep.name}`);

        const tpl = (name: string) => ({ name, description: "", os_type: "linux", forge_type: "github", data: b64("#!/bin/sh\necho conf") });
        const x = (await t.api("POST", "/templates", tpl("conf-names-x"))).body as Json;
        const y = (await t.api("POST", "/templates", tpl("conf-names-y"))).body as Json;
        r.res("template POST name other case", await t.api("POST", "/templates", tpl("CONF-NAMES-X")));
        r.res("template PUT rename onto a taken name", await t.api("PUT", `/templates/${String(y.id)}`, { name: "conf-names-x" }));
        r.obs("templates listed", (await namesOf(t, "/templates?partialName=conf-names")));
        for (const tp of ((await t.api("GET", "/templates?partialName=conf-names")).body as Json[] | null) ?? []) {
            await t.api("DELETE", `/templates/${String(tp.id)}`);
        }
        void x;
    },
};

/** Entity lists filter names exactly; the duplicate check ignores case (database/sql/organizations.go L95-110, L282-299). */
const entityNames: Scenario = {
    name: "names: entity list filters and duplicate checks",
    async run(t, r) {
        const creds = String((((await t.api("GET", "/credentials")).body as Json[])[0] ?? {}).name ?? "");
        const org = (await t.api("GET", `/organizations/${t.orgId}`)).body as Json & { name: string; endpoint: { name: string } };
        const endpoint = org.endpoint.name;
        const swapped = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
        r.obs("?endpoint= exact", (await namesOf(t, `/organizations?endpoint=${encodeURIComponent(endpoint)}`)).includes(org.name));
        r.obs("?endpoint= other case", (await namesOf(t, `/organizations?endpoint=${encodeURIComponent(swapped(endpoint))}`)).includes(org.name));
        r.obs("?name= other case", (await namesOf(t, `/organizations?name=${encodeURIComponent(swapped(org.name))}`)).length);
        const dup = await t.api("POST", "/organizations", { name: swapped(org.name), credentials_name: creds, webhook_secret: "conf-secret" });
        r.obs("POST org, name other case", dup.status);
    },
};

export const NAME_SCENARIOS: Scenario[] = [endpointNames, renames, entityNames];
