// Conformance scenarios for the forge routes GarmEndpoint and GarmCredentials use: GitHub and Gitea endpoints and
// credentials, their validation, update rules and delete refusals (garm-behaviour.md §2.5; GARM v0.2.1 params/requests.go,
// database/sql/github.go, database/sql/gitea.go).
import { APP_KEY_1, APP_KEY_1_PKCS8, APP_KEY_2, CA_CERT_1, CA_CERT_2 } from "../../../harness/forge-pem";
import type { Recorder } from "./observe";
import type { Scenario } from "./scenarios";
import type { Target } from "./target";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

const GHE = {
    name: "conf-ghe",
    description: "conformance GHE",
    api_base_url: "https://ghe.conf.invalid/api/v3/",
    upload_base_url: "https://ghe.conf.invalid/api/uploads/",
    base_url: "https://ghe.conf.invalid",
};

async function rec(t: Target, r: Recorder, label: string, method: string, path: string, body?: unknown) {
    const res = await t.api(method, path, body);
    r.res(label, res);
    return res;
}

/** §2.5: GitHub endpoint validation, CA bundle handling, update rules, credentials and deletes. */
const githubEndpoints: Scenario = {
    name: "forge: github endpoints and credentials",
    async run(t, r) {
        const ep = "/github/endpoints";
        await rec(t, r, "POST missing api_base_url", "POST", ep, { ...GHE, api_base_url: undefined });
        await rec(t, r, "POST api_base_url ftp", "POST", ep, { ...GHE, api_base_url: "ftp://ghe.conf.invalid/" });
        await rec(t, r, "POST api_base_url no host", "POST", ep, { ...GHE, api_base_url: "https:///x" });
        await rec(t, r, "POST missing upload_base_url", "POST", ep, { ...GHE, upload_base_url: undefined });
        await rec(t, r, "POST upload_base_url ftp (names api_base_url)", "POST", ep, { ...GHE, upload_base_url: "ftp://x/" });
        await rec(t, r, "POST missing base_url", "POST", ep, { ...GHE, base_url: undefined });
        await rec(t, r, "POST ca_cert_bundle not base64", "POST", ep, { ...GHE, ca_cert_bundle: "not base64!" });
        await rec(t, r, "POST ca block not a certificate", "POST", ep, { ...GHE, ca_cert_bundle: b64("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") });
        await rec(t, r, "POST ca text without PEM is dropped", "POST", ep, { ...GHE, name: "conf-noca", ca_cert_bundle: b64("hello") });
        await rec(t, r, "DELETE conf-noca", "DELETE", `${ep}/conf-noca`);
        const bundle = b64(`${CA_CERT_1}\n${CA_CERT_2}${CA_CERT_1}`);
        await rec(t, r, "POST valid with CA bundle (duplicate cert)", "POST", ep, { ...GHE, ca_cert_bundle: bundle });
        await rec(t, r, "POST duplicate name other case", "POST", ep, { ...GHE, name: "CONF-GHE" });
        await rec(t, r, "GET by name", "GET", `${ep}/conf-ghe`);
        await rec(t, r, "GET by name other case", "GET", `${ep}/Conf-Ghe`);
        await rec(t, r, "GET missing", "GET", `${ep}/conf-missing`);
        const list = (await t.api("GET", ep)).body as { name: string }[];
        r.obs("GET list has it", list.some((e) => e.name === "conf-ghe"));
        await rec(t, r, "PUT description empty", "PUT", `${ep}/conf-ghe`, { description: "" });
        await rec(t, r, "PUT api_base_url bad", "PUT", `${ep}/conf-ghe`, { api_base_url: "nope" });
        await rec(t, r, "PUT base_url ftp (names api_base_url)", "PUT", `${ep}/conf-ghe`, { base_url: "ftp://x/" });
        await rec(t, r, "PUT ca one cert", "PUT", `${ep}/conf-ghe`, { ca_cert_bundle: b64(CA_CERT_2) });
        await rec(t, r, "PUT missing endpoint", "PUT", `${ep}/conf-missing`, { description: "x" });

        const cr = "/github/credentials";
        const pat = { name: "conf-pat", description: "d", endpoint: "conf-ghe", auth_type: "pat", pat: { oauth2_token: "conf-token-1" } };
        await rec(t, r, "creds POST missing name", "POST", cr, { ...pat, name: "" });
        await rec(t, r, "creds POST missing endpoint", "POST", cr, { ...pat, endpoint: "" });
        await rec(t, r, "creds POST bad auth_type", "POST", cr, { ...pat, auth_type: "token" });
        await rec(t, r, "creds POST missing token", "POST", cr, { ...pat, pat: {} });
        await rec(t, r, "creds POST unknown endpoint", "POST", cr, { ...pat, endpoint: "conf-missing" });
        const app = (key: string, extra: Record<string, unknown> = {}) => ({
            name: "conf-app",
            endpoint: "conf-ghe",
            auth_type: "app",
            app: { app_id: 11, installation_id: 22, private_key_bytes: b64(key), ...extra },
        });
        await rec(t, r, "creds POST app missing app_id", "POST", cr, app(APP_KEY_1, { app_id: 0 }));
        await rec(t, r, "creds POST app missing installation_id", "POST", cr, app(APP_KEY_1, { installation_id: 0 }));
        await rec(t, r, "creds POST app key not PEM", "POST", cr, app("not a key"));
        await rec(t, r, "creds POST app key PKCS#8", "POST", cr, app(APP_KEY_1_PKCS8));
        const created = await rec(t, r, "creds POST pat", "POST", cr, pat);
        const patId = (created.body as { id: number }).id;
        const appRes = await rec(t, r, "creds POST app PKCS#1", "POST", cr, app(APP_KEY_1));
        const appId = (appRes.body as { id: number }).id;
        await rec(t, r, "creds POST duplicate name", "POST", cr, { ...pat, name: "CONF-PAT" });
        await rec(t, r, "creds GET by id", "GET", `${cr}/${patId}`);
        await rec(t, r, "creds GET id not a number", "GET", `${cr}/abc`);
        await rec(t, r, "creds GET missing id", "GET", `${cr}/999999`);
        await rec(t, r, "creds PUT both pat and app", "PUT", `${cr}/${patId}`, { pat: { oauth2_token: "x" }, app: { app_id: 1, installation_id: 2, private_key_bytes: b64(APP_KEY_2) } });
        await rec(t, r, "creds PUT app on pat credentials", "PUT", `${cr}/${patId}`, { app: { app_id: 1, installation_id: 2, private_key_bytes: b64(APP_KEY_2) } });
        await rec(t, r, "creds PUT pat on app credentials", "PUT", `${cr}/${appId}`, { pat: { oauth2_token: "x" } });
        await rec(t, r, "creds PUT empty token", "PUT", `${cr}/${patId}`, { pat: { oauth2_token: "" } });
        await rec(t, r, "creds PUT rotate token", "PUT", `${cr}/${patId}`, { pat: { oauth2_token: "conf-token-2" } });
        await rec(t, r, "creds PUT rotate app key", "PUT", `${cr}/${appId}`, { app: { app_id: 11, installation_id: 22, private_key_bytes: b64(APP_KEY_2) } });
        await rec(t, r, "creds PUT rename", "PUT", `${cr}/${patId}`, { name: "conf-pat-2", description: "" });
        await rec(t, r, "creds PUT missing id", "PUT", `${cr}/999999`, { description: "x" });

        await rec(t, r, "PUT api_base_url while credentials use it", "PUT", `${ep}/conf-ghe`, { api_base_url: "https://other.conf.invalid/api/v3/" });
        await rec(t, r, "PUT api_base_url same value while credentials use it", "PUT", `${ep}/conf-ghe`, { api_base_url: GHE.api_base_url, description: "again" });
        await rec(t, r, "DELETE endpoint with credentials", "DELETE", `${ep}/conf-ghe`);
        await rec(t, r, "creds DELETE pat", "DELETE", `${cr}/${patId}`);
        await rec(t, r, "creds DELETE pat again", "DELETE", `${cr}/${patId}`);
        await rec(t, r, "creds DELETE app", "DELETE", `${cr}/${appId}`);
        await rec(t, r, "PUT api_base_url without credentials", "PUT", `${ep}/conf-ghe`, { api_base_url: "https://other.conf.invalid/api/v3/" });
        await rec(t, r, "DELETE endpoint", "DELETE", `${ep}/conf-ghe`);
        await rec(t, r, "DELETE endpoint again", "DELETE", `${ep}/conf-ghe`);
        await rec(t, r, "GET after delete", "GET", `${ep}/conf-ghe`);
    },
};

/** §2.5 for Gitea: no upload URL, tools metadata defaults, token-only credentials, separate name spaces per route. */
const giteaEndpoints: Scenario = {
    name: "forge: gitea endpoints and credentials",
    async run(t, r) {
        const ep = "/gitea/endpoints";
        const gitea = { name: "conf-gitea", description: "conformance Gitea", api_base_url: "https://gitea.conf.invalid/api/v1", base_url: "https://gitea.conf.invalid" };
        await rec(t, r, "POST missing base_url", "POST", ep, { ...gitea, base_url: undefined });
        await rec(t, r, "POST valid", "POST", ep, gitea);
        await rec(t, r, "POST same name on github route", "POST", "/github/endpoints", { ...GHE, name: "conf-gitea" });
        await rec(t, r, "GET", "GET", `${ep}/conf-gitea`);
        await rec(t, r, "GET via github route", "GET", "/github/endpoints/conf-gitea");
        await rec(t, r, "GET missing", "GET", `${ep}/conf-missing`);
        const cr = "/gitea/credentials";
        await rec(t, r, "creds POST app", "POST", cr, { name: "conf-gt", endpoint: "conf-gitea", auth_type: "app", app: { app_id: 1, installation_id: 2, private_key_bytes: b64(APP_KEY_1) } });
        await rec(t, r, "creds POST unknown endpoint", "POST", cr, { name: "conf-gt", endpoint: "conf-missing", auth_type: "pat", pat: { oauth2_token: "t" } });
        const c = await rec(t, r, "creds POST pat", "POST", cr, { name: "conf-gt", endpoint: "conf-gitea", auth_type: "pat", pat: { oauth2_token: "t" } });
        const id = (c.body as { id: number }).id;
        const ghList = (await t.api("GET", "/github/credentials")).body as { name: string }[];
        r.obs("github credentials list excludes it", !ghList.some((x) => x.name === "conf-gt"));
        await rec(t, r, "creds GET", "GET", `${cr}/${id}`);
        await rec(t, r, "creds GET missing", "GET", `${cr}/999999`);
        await rec(t, r, "creds PUT rotate", "PUT", `${cr}/${id}`, { pat: { oauth2_token: "t2" } });
        await rec(t, r, "creds PUT missing", "PUT", `${cr}/999999`, { description: "x" });
        await rec(t, r, "PUT api_base_url while credentials use it", "PUT", `${ep}/conf-gitea`, { api_base_url: "https://other.conf.invalid/api/v1" });
        await rec(t, r, "DELETE endpoint with credentials", "DELETE", `${ep}/conf-gitea`);
        await rec(t, r, "creds DELETE", "DELETE", `${cr}/${id}`);
        await rec(t, r, "DELETE endpoint", "DELETE", `${ep}/conf-gitea`);
        await rec(t, r, "GET after delete", "GET", `${ep}/conf-gitea`);
    },
};

/** §2.5: deletes GARM refuses while an entity uses the credentials or the endpoint (the bootstrapped org and repo). */
const deleteGuards: Scenario = {
    name: "forge: delete refusals while in use",
    async run(t, r) {
        const org = (await t.api("GET", `/organizations/${t.orgId}`)).body as { credentials_id: number; endpoint: { name: string } };
        const detailed = await t.api("GET", `/github/credentials/${org.credentials_id}`);
        const body = detailed.body as Record<string, { name: string; owner?: string }[] | undefined>;
        r.obs("detailed read lists users", {
            repositories: (body.repositories ?? []).map((e) => `${e.owner}/${e.name}`),
            organizations: (body.organizations ?? []).map((e) => e.name),
            enterprises: (body.enterprises ?? []).map((e) => e.name),
        });
        r.obs("detailed read repository keys", Object.keys(body.repositories?.[0] ?? {}).sort().join(","));
        await rec(t, r, "DELETE credentials used by org and repo", "DELETE", `/github/credentials/${org.credentials_id}`);
        await rec(t, r, "DELETE endpoint used by credentials", "DELETE", `/github/endpoints/${org.endpoint.name}`);
    },
};

export const FORGE_SCENARIOS: Scenario[] = [githubEndpoints, giteaEndpoints, deleteGuards];
