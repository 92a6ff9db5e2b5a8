// `pulumi import garm:index:Garm<Organization|Repository|Enterprise> <name> <id>`: reads an entity GARM holds, by its
// GARM id, its name (owner/name for a repository), or `<name>@<endpoint>` where two endpoints hold that name. GARM
// never returns the webhook secret (params/params.go `json:"-"`), so the inputs name a stack config key for it
// (webhookSecretFromConfig), which must be set before the import: the state's digest is of the secret the program sends.
import type { EntityCalls, EntityKind, EntityView } from "../../garm/client";
import { type ConfigLookup, missingConfigMessage, secretConfigKey } from "../../common/secrets-from-config";
import { sameEndpointName, sameEntityName } from "../../garm/names";
import { type EntityInputs, withDefaults } from "./inputs";
import { KIND_SPECS } from "./kinds";
import { toOutputs } from "./state";
import { digestSecret } from "../../common/secret-digest";

type Props = Record<string, unknown>;

const GARM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The import id of an entity GARM lists: its GARM id, unique across endpoints and stable across renames. */
export function entityImportId(view: Pick<EntityView, "id">): string {
  return view.id;
}

/** The config key an import of this entity reads its webhook secret from. */
export function entityWebhookSecretKey(kind: EntityKind, view: Pick<EntityView, "name" | "endpoint">): string {
  // An entity's name is unique per endpoint: the endpoint qualifies all but github.com's; a repository's is owner/name.
  const endpoint = view.endpoint && !sameEndpointName(view.endpoint, "github.com") ? { qualifier: view.endpoint } : {};
  return secretConfigKey({ kind, ...endpoint, name: view.name, nameParts: kind === "repository" ? 2 : 1 }, "webhook-secret");
}

async function findEntity(client: Pick<EntityCalls, "getEntity" | "listEntities">, kind: EntityKind, id: string): Promise<EntityView> {
  const resource = KIND_SPECS[kind].resource;
  if (GARM_ID.test(id)) return client.getEntity(kind, id);
  const at = id.lastIndexOf("@");
  const [name, endpoint] = at > 0 ? [id.slice(0, at), id.slice(at + 1)] : [id, undefined];
  const found = (await client.listEntities(kind)).filter((e) => sameEntityName(e.name, name) && (endpoint === undefined || sameEndpointName(e.endpoint, endpoint)));
  if (found.length === 0) throw new Error(`${resource} import: GARM has no ${kind} named ${name}${endpoint ? ` on endpoint ${endpoint}` : ""}; give its GARM id or name (garm-cli ${KIND_SPECS[kind].cliNoun} list shows both)`);
  if (found.length > 1) {
    throw new Error(`${resource} import: GARM has a ${kind} named ${name} on endpoints ${found.map((e) => e.endpoint).join(" and ")}: import ${found.map((e) => `${name}@${e.endpoint}`).join(" or ")}, or its GARM id`);
  }
  return found[0]!;
}

/** The inputs that reproduce the entity GARM lists: the webhook secret named by its config key, which need not be set yet. */
export function importedEntityInputs(kind: EntityKind, view: EntityView): Props {
  return {
    name: view.name,
    credentials: view.credentials,
    webhookSecretFromConfig: entityWebhookSecretKey(kind, view),
    ...(view.poolBalancerType !== "roundrobin" ? { poolBalancerType: view.poolBalancerType } : {}),
    ...(view.agentMode ? { agentMode: true } : {}),
  };
}

/** Reads the entity for import; throws naming the `pulumi config set` the webhook secret needs while it is not set. */
export async function importEntity(kind: EntityKind, client: Pick<EntityCalls, "getEntity" | "listEntities">, id: string, config: ConfigLookup): Promise<{ id: string; props: Props; inputs: Props }> {
  const view = await findEntity(client, kind, id);
  const key = entityWebhookSecretKey(kind, view);
  const secret = config(key);
  if (!secret) throw new Error(missingConfigMessage(`${KIND_SPECS[kind].resource} ${view.name}`, key, "webhook secret"));
  const inputs = importedEntityInputs(kind, view);
  const checked = withDefaults({ ...(inputs as EntityInputs), webhookSecret: secret });
  // A webhook installed by hand is left as it is: the imported resource does not manage it (installWebhook false).
  const props = toOutputs(kind, checked, view, await digestSecret(secret), false);
  return { id: view.id, props: props as unknown as Props, inputs };
}
