// A GARM set up as a user's would be, through its REST API only (as garm-cli does), for the import-plan tests: two more
// endpoints (GHES and Gitea), credentials on each (a PAT and a GitHub App on GHES), two organizations, a repository, an enterprise, a template, three
// pools (one with extra specs) and four scale sets, two of them named without a generation hash. The simulator seeds the rest.
import { generateKeyPairSync } from "node:crypto";
import { GarmClient } from "../provider/garm/client";
import { credentialsConfigKeys } from "../provider/kinds/credentials/import";
import { entityWebhookSecretKey } from "../provider/kinds/entity/import";
import { liveName } from "../provider/runners/naming";
import { CA_CERT_1 } from "./forge-pem";

export interface PopulatedGarm {
  readonly endpoints: { readonly ghes: string; readonly gitea: string };
  readonly credentials: string[];
  readonly organizations: Record<string, string>;
  readonly repositories: Record<string, string>;
  readonly enterprises: Record<string, string>;
  readonly templateId: number;
  readonly poolIds: string[];
  readonly scaleSets: Record<string, number>;
}

/** The GitHub App the GHES credentials hold: GARM keeps its ids and key but never returns them, so the user supplies them again. */
export const GHES_APP = { name: "ghes-app", appId: 1234, installationId: 5678 } as const;
let ghesAppKey: string | undefined;
/** The App's private key, as GitHub issues one: unencrypted PKCS#1 RSA, made once per process. */
export function ghesAppPrivateKey(): string {
  ghesAppKey ??= generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "pkcs1", format: "pem" }, privateKeyEncoding: { type: "pkcs1", format: "pem" } }).privateKey;
  return ghesAppKey;
}

const RUNNER = { provider_name: "fake", image: "ubuntu-24.04", flavor: "small", os_type: "linux", os_arch: "amd64", enabled: false, min_idle_runners: 0 } as const;

/**
 * Adds the objects to a GARM whose admin `login` reaches and that already holds organization acme, repository acme/app
 * and provider fake (the simulator's seed, and the real-GARM fixture's). The enterprise's credentials acme-pat on
 * github.com, which only the simulator seeds, are made where missing.
 */
export async function populateGarm(login: { url: string; username: string; password: string }, providerName = "fake"): Promise<PopulatedGarm> {
  const rest = new GarmClient(login);
  try {
    const runner = { ...RUNNER, provider_name: providerName };
    if (!(await rest.listCredentials("github")).some((c) => c.name === "acme-pat")) {
      await rest.createCredentials("github", { name: "acme-pat", description: "PAT", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "ghp-acme" } });
    }
    await rest.createEndpoint("github", { name: "ghes", description: "our GHES", base_url: "https://ghes.example.com", api_base_url: "https://ghes.example.com/api/v3/", upload_base_url: "https://ghes.example.com/api/uploads/" });
    await rest.createEndpoint("gitea", { name: "gitea-local", description: "our Gitea", base_url: "https://gitea.example.com", api_base_url: "https://gitea.example.com/api/v1" } as never);
    await rest.createCredentials("github", { name: "ghes-pat", description: "PAT on GHES", endpoint: "ghes", auth_type: "pat", pat: { oauth2_token: "ghp-ghes" } });
    await rest.createCredentials("github", {
      name: GHES_APP.name,
      description: "GitHub App on GHES",
      endpoint: "ghes",
      auth_type: "app",
      app: { app_id: GHES_APP.appId, installation_id: GHES_APP.installationId, private_key_bytes: Buffer.from(ghesAppPrivateKey()).toString("base64") },
    } as never);
    await rest.createCredentials("gitea", { name: "gitea-token", description: "Gitea token", endpoint: "gitea-local", auth_type: "pat", pat: { oauth2_token: "gitea-secret" } } as never);

    const acme = (await rest.findEntities("organization", "acme"))[0].id;
    const app = (await rest.findEntities("repository", "acme/app"))[0].id;
    const forge = (await rest.createEntity("organization", { name: "forge-org", credentials_name: "gitea-token", forge_type: "gitea", webhook_secret: "s3cret", pool_balancer_type: "roundrobin" } as never)).id;
    const ent = (await rest.createEntity("enterprise", { name: "acme-ent", credentials_name: "acme-pat", webhook_secret: "s3cret", pool_balancer_type: "pack" } as never)).id;

    const data = Buffer.from("#!/bin/bash\necho {{ .RunnerName }}\n").toString("base64");
    const templateId = (await rest.createTemplate({ name: "custom-linux", description: "made with garm-cli", os_type: "linux", forge_type: "github", data } as never)).id;

    const poolIds = [
      (await rest.createPool({ kind: "organization", id: acme }, { ...runner, tags: ["linux", "small"], max_runners: 2, priority: 1 } as never)).id,
      // Alike to the first in entity, image and flavor: their logical names need a suffix.
      (await rest.createPool({ kind: "organization", id: acme }, { ...runner, tags: ["linux", "gpu"], max_runners: 1, template_id: templateId } as never)).id,
      // Extra specs, which GARM's pool lists leave out: only a read of the pool shows them.
      (await rest.createPool({ kind: "enterprise", id: ent }, { ...runner, flavor: "large", tags: ["linux", "large"], max_runners: 3, extra_specs: { disk_gb: 50 } } as never)).id,
    ];

    const hashed = (name: string, labels: string[]) => liveName(name, labels, providerName, "hashed");
    const scaleSets: Record<string, number> = {};
    const make = async (entity: { kind: "organization" | "repository" | "enterprise"; id: string }, name: string, labels: string[], extra: Record<string, unknown> = {}) => {
      scaleSets[name] = (await rest.createScaleSet(entity, { ...runner, name, labels, max_runners: 4, ...extra } as never)).id;
    };
    await make({ kind: "organization", id: acme }, hashed("ci-small", ["linux", "x64"]), ["linux", "x64"]);
    await make({ kind: "organization", id: acme }, "hand-made", ["linux", "arm64"], { template_id: templateId });
    await make({ kind: "repository", id: app }, "app-builds", ["linux"], { runner_prefix: "app" });
    // GARM makes scale sets for GitHub entities only (runner/scalesets.go L227-229), so the Gitea organization has none;
    // and it registers each with GitHub first, which real GARM's tests reach only for the seeded organization and repository.
    await make({ kind: "repository", id: app }, hashed("app-ci", ["linux"]), ["linux"]);

    const credentials = ["acme-pat", "ghes-pat", GHES_APP.name, "gitea-token"];
    return {
      endpoints: { ghes: "ghes", gitea: "gitea-local" },
      credentials,
      organizations: { acme, "forge-org": forge },
      repositories: { "acme/app": app },
      enterprises: { "acme-ent": ent },
      templateId,
      poolIds,
      scaleSets,
    };
  } finally {
    await rest.close();
  }
}

/**
 * The stack config the imports of credentials and entities read their secrets from, as the user sets it before: any
 * token or webhook secret does, since GARM never shows a secret to compare; an App needs a key GARM can parse and its ids.
 */
export async function importSecretsConfig(login: { url: string; username: string; password: string }): Promise<Record<string, { value: string; secret: boolean }>> {
  const rest = new GarmClient(login);
  const config: Record<string, { value: string; secret: boolean }> = {};
  for (const forge of ["github", "gitea"] as const) {
    for (const c of await rest.listCredentials(forge)) {
      const keys = credentialsConfigKeys({ ...c, forge });
      if (c.authType !== "app") {
        config[keys.secret] = { value: `token-of-${c.name}`, secret: true };
        continue;
      }
      config[keys.secret] = { value: ghesAppPrivateKey(), secret: true };
      config[keys.appId!] = { value: String(GHES_APP.appId), secret: false };
      config[keys.installationId!] = { value: String(GHES_APP.installationId), secret: false };
    }
  }
  for (const kind of ["organization", "repository", "enterprise"] as const) {
    for (const e of await rest.listEntities(kind)) config[entityWebhookSecretKey(kind, e)] = { value: `hook-of-${e.name}`, secret: true };
  }
  return config;
}

/** What a team's GARM adds to the populated one (issue 34): each case a year of garm-cli leaves, by what it is. */
export interface TeamGarm extends PopulatedGarm {
  /** The second organization acme, on the GHES endpoint: two GitHub endpoints hold the name. */
  readonly acmeOnGhes: string;
  /** A pool of acme on GHES whose extra specs hold a JSON null. */
  readonly nullPool: string;
  /** One credentials name on both forges: GitHub's (on GHES) and Gitea's. */
  readonly sharedCredentialsName: string;
  readonly templates: { readonly crlf: number; readonly longLine: number };
  /** The GARM-side names of the scale sets the team made by hand. */
  readonly names: { readonly parked: string; readonly lookalike: string; readonly hostile: string };
}

/** Names that are code in some language and that GARM stores as given: quotes, an interpolation, non-ASCII. */
export const TEAM_HOSTILE = { template: `it's "ops" \${team} — café ☕`, credentials: `deploy "bot" \${env} ünï`, scaleSet: `it's "nightly" \${ci} ü`, description: `"prod" GHES \${dc} — Zürich 🚀` } as const;

/** A line of 12,000 characters, as a template carrying an inlined script or key has. */
const LONG_LINE = `# ${"x".repeat(11_998)}`;
/** A Windows template as an editor on Windows saves it: CRLF line ends, an emoji. */
const CRLF_BODY = "#ps1_sysnative\r\nWrite-Host \"runner {{ .RunnerName }} 🚀\"\r\nexit 0\r\n";

/**
 * A team's GARM after a year of garm-cli, over REST only, on the simulator or on real GARM v0.2.1 alike: the populated
 * GARM, plus a CA bundle on the GHES endpoint, organization acme on GHES too, credentials named alike on both forges,
 * templates with CRLF line ends, emoji and a 12,000-character line, a pool whose extra specs hold a null, a Windows
 * scale set parked disabled at max_runners 0 (GARM's create refuses 0, its update takes it), a scale set whose name
 * looks hashed and is not, and names with quotes, `${` and non-ASCII. Scale sets go on the first acme and acme/app only:
 * real GARM registers each with GitHub, which the e2e fixture mocks for those two.
 */
export async function populateTeamGarm(login: { url: string; username: string; password: string }, providerName = "fake"): Promise<TeamGarm> {
  const populated = await populateGarm(login, providerName);
  const rest = new GarmClient(login);
  try {
    const runner = { ...RUNNER, provider_name: providerName };
    await rest.updateEndpoint("github", "ghes", { description: TEAM_HOSTILE.description, ca_cert_bundle: Buffer.from(CA_CERT_1).toString("base64") } as never);
    const shared = "ci";
    await rest.createCredentials("github", { name: shared, description: "CI on GHES", endpoint: "ghes", auth_type: "pat", pat: { oauth2_token: "ghp-ci" } });
    await rest.createCredentials("gitea", { name: shared, description: "CI on Gitea", endpoint: "gitea-local", auth_type: "pat", pat: { oauth2_token: "gitea-ci" } } as never);
    await rest.createCredentials("github", { name: TEAM_HOSTILE.credentials, description: TEAM_HOSTILE.description, endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "ghp-bot" } });

    const [acme] = await rest.findEntities("organization", "acme");
    const [app] = await rest.findEntities("repository", "acme/app");
    const acmeOnGhes = (await rest.createEntity("organization", { name: "acme", credentials_name: "ghes-pat", webhook_secret: "s3cret", pool_balancer_type: "roundrobin" } as never)).id;
    const nullPool = (await rest.createPool({ kind: "organization", id: acmeOnGhes }, { ...runner, flavor: "null-specs", tags: ["linux", "nulls"], max_runners: 1, extra_specs: { disk_gb: 10, zone: null } } as never)).id;

    const template = async (name: string, os: "linux" | "windows", body: string) =>
      (await rest.createTemplate({ name, description: TEAM_HOSTILE.description, os_type: os, forge_type: "github", data: Buffer.from(body).toString("base64") } as never)).id;
    const crlf = await template("windows-crlf", "windows", CRLF_BODY);
    const longLine = await template(TEAM_HOSTILE.template, "linux", `#!/bin/bash\n${LONG_LINE}\necho {{ .RunnerName }} ✓\n`);

    const scaleSets = { ...populated.scaleSets };
    const make = async (entity: { kind: "organization" | "repository"; id: string }, name: string, labels: string[], extra: Record<string, unknown> = {}) =>
      (scaleSets[name] = (await rest.createScaleSet(entity, { ...runner, name, labels, max_runners: 1, ...extra } as never)).id);
    const parked = "win-builds";
    const parkedId = await make({ kind: "organization", id: acme!.id }, parked, ["windows", "x64"], { os_type: "windows", template_id: crlf });
    await rest.updateScaleSet(parkedId, { max_runners: 0, enabled: false } as never);
    // Eight hex digits after a dash, as a hashed live name ends, but not the hash of its labels and provider.
    const lookalike = "nightly-1a2b3c4d";
    if (liveName("nightly", ["linux", "nightly"], providerName, "hashed") === lookalike) throw new Error("the look-alike name is a real hash");
    await make({ kind: "repository", id: app!.id }, lookalike, ["linux", "nightly"], { template_id: longLine });
    await make({ kind: "repository", id: app!.id }, TEAM_HOSTILE.scaleSet, ["linux", "hostile"]);
    return {
      ...populated,
      credentials: [...populated.credentials, shared, TEAM_HOSTILE.credentials],
      organizations: populated.organizations,
      scaleSets,
      acmeOnGhes,
      nullPool,
      sharedCredentialsName: shared,
      templates: { crlf, longLine },
      names: { parked, lookalike, hostile: TEAM_HOSTILE.scaleSet },
    };
  } finally {
    await rest.close();
  }
}
