// A GARM whose every name is hostile as code (issue 34 item 5), for the tests of what import-plan writes from it.
import type { CredentialsView, EndpointView, EntityView, TemplateView } from "../../../provider/garm/client";
import { inputsFor } from "../../../cli/import-plan/inputs";
import type { Inventory } from "../../../cli/import-plan/inventory";
import { type Plan, buildPlan } from "../../../cli/import-plan/plan";

/** Names that end a comment or a string, open an interpolation, or are awkward bytes for one language or another. */
export const HOSTILE: readonly string[] = [
  `it's "quoted" \`back\``,
  "back\\slash\\",
  "${globalThis.pwned = 'template'}",
  "#{pwned = 'ruby'}",
  "*/ globalThis.pwned = 'block'; /*",
  "nl\nglobalThis.pwned = 'nl'; pwned = 'nl' #",
  "cr\rglobalThis.pwned = 'cr'; pwned = 'cr' #",
  "ls\u2028globalThis.pwned = 'u2028';",
  "ps\u2029globalThis.pwned = 'u2029';",
  "nul\u0000byte",
  "tab\there",
  "ünïcödé ✓ Ω",
  "emoji 🚀🧪",
  "lone \ud800 surrogate",
  "bidi \u202e txt.exe",
  "del\u007f c1\u0085 bom\ufeff",
  "\ntouch pwned #",
  "'; touch pwned; '",
  "$(touch pwned)",
  "a\\\nb",
];

const ENDPOINT = (name: string, forge: "github" | "gitea" = "github"): EndpointView => ({ name, description: name, apiBaseUrl: "https://ghes.example/api/v3", uploadBaseUrl: "", baseUrl: "https://ghes.example", caCertBundle: "", forge });
const CREDENTIALS = (id: number, name: string, forge: "github" | "gitea" = "github"): CredentialsView => ({ id, name, description: name, authType: "pat", forge, endpoint: "ghes", repositories: [], organizations: [], enterprises: [] });
const ENTITY = (id: string, name: string): EntityView => ({ id, name, credentials: "ci", endpoint: "github.com", poolBalancerType: "roundrobin", agentMode: false });

/** A GARM whose every name is hostile: endpoints, credentials on both forges, entities, templates (its own and a system one), provider entries. */
export function hostileInventory(): Inventory {
  return {
    controller: { controllerId: "c0ffee00-0000-4000-8000-000000000000", metadataUrl: "https://garm.example/api/v1/metadata", callbackUrl: "", webhookUrl: "", controllerWebhookUrl: "", minimumJobAgeBackoff: 0, version: "v0.2.1" },
    endpoints: [ENDPOINT("github.com"), ENDPOINT("ghes"), ...HOSTILE.map((h) => ENDPOINT(`ep ${h}`, "gitea"))],
    credentials: HOSTILE.flatMap((h, i) => [CREDENTIALS(i + 1, h), CREDENTIALS(i + 1, h, "gitea")]),
    entities: HOSTILE.flatMap((h, i) => [
      { kind: "organization" as const, view: ENTITY(`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, h) },
      { kind: "repository" as const, view: ENTITY(`10000000-0000-4000-8000-${String(i).padStart(12, "0")}`, `owner/${h}`) },
    ]),
    templates: [{ id: 1, name: `system ${HOSTILE[5]}`, osType: "linux", forgeType: "github", owner: "system" }, ...HOSTILE.map((h, i): TemplateView => ({ id: i + 2, name: h, osType: "linux", forgeType: "github", owner: "admin" }))],
    pools: [],
    scaleSets: [],
    providers: HOSTILE.map((h) => ({ name: h, type: "external", description: h })),
  };
}

/** The plan and each entry's inputs for the hostile GARM, with hostile values, list items and map keys added to each entity's. */
export async function hostilePlan(garmConfigPath?: string): Promise<{ plan: Plan; inputs: (Record<string, unknown> | string | undefined)[] }> {
  const inv = hostileInventory();
  const plan = buildPlan(inv, {}, garmConfigPath);
  const client = { getTemplate: async (id: number) => ({ ...inv.templates.find((t) => t.id === id)!, description: HOSTILE[id % HOSTILE.length], body: HOSTILE.join("\n") }) };
  const inputs = await inputsFor(plan.entries, { client: client as never, templates: inv.templates, entities: inv.entities });
  const extra = JSON.parse('{"__proto__": "proto key"}') as Record<string, unknown>;
  for (const h of HOSTILE) extra[h] = h;
  plan.entries.forEach((e, i) => {
    const given = inputs[i];
    if (e.object.kind === "organization" && typeof given === "object") inputs[i] = { ...given, labels: [...HOSTILE], extraSpecs: { ...extra } };
  });
  // An importer that could not state the inputs: its reason, naming the object, becomes a comment.
  const failing = plan.entries.findIndex((e) => e.object.kind === "template");
  inputs[failing] = `GarmTemplate ${HOSTILE[5]}: GARM answered 500 for ${HOSTILE[7]}`;
  return { plan, inputs };
}
