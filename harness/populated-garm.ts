// A GARM set up as a user's would be, through its REST API only (as garm-cli does), for the import-plan tests: two more
// endpoints (GHES and Gitea), credentials on each (a PAT and a GitHub App on GHES), two organizations, a repository, an enterprise, a template, three
// pools (one with extra specs) and four scale sets, two of them named without a generation hash. The simulator seeds the rest.
import { generateKeyPairSync } from "node:crypto";
import { GarmClient } from "../provider/garm/client";
import { credentialsConfigKeys } from "../provider/kinds/credentials/import";
import { entityWebhookSecretKey } from "../provider/kinds/entity/import";
import { liveName } from "../provider/runners/naming";

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
