// What a team does with an imported program after its no-change preview, for the import-plan tests on the simulator and
// on real GARM alike, whichever wrote the program (`pulumi import --file` in YAML, import-plan in Python or TypeScript):
// the references it must hold, a label change on one imported scale set (a replacement, new generation first), then one
// `pulumi destroy` that leaves only GARM's own objects.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ImportFile } from "../../../cli/import-plan/plan";
import type { SimulatedHost } from "../../../scripts/demo/host";
import { GarmClient } from "../../../provider/garm/client";
/** What both project harnesses (the plugin's and the package's) offer. */
export interface ImportedProject {
  readonly dir: string;
  readonly workDir: string;
  readonly env: NodeJS.ProcessEnv;
  cli(args: readonly string[], opts?: { expectOk?: boolean; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }>;
  preview(extra?: readonly string[]): Promise<{ steps: readonly { op: string; urn: string; replaceReasons?: string[] }[] }>;
}

type Login = { url: string; username: string; password: string };
type Entry = ImportFile["resources"][number];

/** The block of `name` in the YAML program: its lines up to the next resource. */
function blockOf(code: string, name: string): { start: number; end: number } {
  const start = code.search(new RegExp(`^  ${name}:\\n`, "m"));
  assert.ok(start >= 0, `the program declares ${name}`);
  const next = code.slice(start + 1).search(/^  \S/m);
  return { start, end: next < 0 ? code.length : start + 1 + next };
}

/** Credentials name their endpoint by a reference to its `name` where the program declares it, so destroy orders them. */
export function assertEndpointReferences(code: string, file: ImportFile): void {
  const endpoints = file.resources.filter((r) => r.type === "garm:index:GarmEndpoint");
  assert.ok(endpoints.length > 0, "the plan imports endpoints");
  // YAML writes a logical name with dashes as `${["endpoint-ghes"].name}`.
  for (const e of endpoints) assert.ok(code.includes(`endpoint: \${["${e.name}"].name}`) || code.includes(`endpoint: \${${e.name}.name}`), `a credentials' endpoint refers to ${e.name}:\n${code}`);
  assert.doesNotMatch(code, /^\s+endpoint: (ghes|gitea-local)$/m, "no credentials name an imported endpoint by a literal");
}

/** `protect: true` goes from the program and the state, as a team does before changing or destroying what it imported. */
export async function unprotect(p: ImportedProject): Promise<void> {
  const file = path.join(p.dir, "Pulumi.yaml");
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^\s+protect: true\n/gm, "").replace(/^    options:\n(?!      )/gm, ""));
  await p.cli(["state", "unprotect", "--all", "--yes"]);
}

/** Adds `label` to the scale set `name`'s labels in a YAML program (a block list under `labels:`). */
export function addLabelInYaml(name: string, label: string): (code: string) => string {
  return (code) => {
    const { start, end } = blockOf(code, name);
    const block = code.slice(start, end);
    const changed = block.replace(/^(\s+)labels:\n((?:\1\s+- .*\n)+)/m, (_all, indent: string, items: string) => `${indent}labels:\n${items}${items.split("\n")[0]!.replace(/- .*/, `- ${label}`)}\n`);
    return code.slice(0, start) + changed + code.slice(end);
  };
}

/**
 * Adds a label to the scale set `entry` with `edit` on the program's file `program` (Pulumi.yaml by default); the
 * preview shows the replacement; up makes it, new generation first, or, for a scale set whose name stays (`naming:
 * exact`), the old one deleted first. Returns the new generation as GARM holds it.
 */
export async function changeLabels(
  p: ImportedProject,
  entry: Entry,
  label: string,
  login: Login,
  opts: { program?: string; edit?: (code: string) => string; deleteFirst?: boolean } = {},
): Promise<{ id: number; name: string; labels: string[] }> {
  const file = path.join(p.dir, opts.program ?? "Pulumi.yaml");
  const code = fs.readFileSync(file, "utf8");
  const changed = (opts.edit ?? addLabelInYaml(entry.name, label))(code);
  assert.notEqual(changed, code, `the labels of ${entry.name} are in the program as written:\n${code}`);
  fs.writeFileSync(file, changed);

  const preview = await p.preview();
  const steps = preview.steps.filter((s) => s.urn.endsWith(`::${entry.name}`));
  assert.deepEqual(steps.map((s) => [s.op, s.replaceReasons]), [["replace", ["labels"]]], `the label change replaces ${entry.name}: ${JSON.stringify(steps)}`);
  // The engine's events say in which order it ran the replacement's steps (`--event-log` is a debug command's flag).
  const events = path.join(p.workDir, `up-${entry.name}.events.jsonl`);
  p.env.PULUMI_DEBUG_COMMANDS = "true";
  try {
    await p.cli(["up", "--yes", "--event-log", events]);
  } finally {
    delete p.env.PULUMI_DEBUG_COMMANDS;
  }
  const ops = fs
    .readFileSync(events, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => (JSON.parse(l) as { resourcePreEvent?: { metadata: { op: string; urn: string } } }).resourcePreEvent?.metadata)
    .filter((m) => m !== undefined && m.urn.endsWith(`::${entry.name}`))
    .map((m) => m!.op);
  const order = opts.deleteFirst ? ["delete-replaced", "create-replacement"] : ["create-replacement", "delete-replaced"];
  assert.deepEqual(ops.filter((op) => op !== "replace"), order, `the replacement of ${entry.name} runs ${order.join(" then ")}: ${ops.join(", ")}`);
  const rest = new GarmClient(login);
  try {
    const sets = await rest.listScaleSets();
    assert.ok(!sets.some((s) => String(s.id) === entry.id), `the old generation of ${entry.name} (id ${entry.id}) is gone from GARM`);
    const made = sets.filter((s) => s.labels.includes(label));
    assert.equal(made.length, 1, `GARM holds one new generation with ${label}: ${JSON.stringify(sets)}`);
    return { id: made[0]!.id, name: made[0]!.name, labels: made[0]!.labels };
  } finally {
    await rest.close();
  }
}

/** `edit` of the program's file; the preview plans exactly `op` on `name`, for the keys `keys`; up applies it. */
export async function editAndUp(p: ImportedProject, name: string, op: string, keys: readonly string[], edit: (code: string) => string, program = "Pulumi.yaml"): Promise<void> {
  const file = path.join(p.dir, program);
  const code = fs.readFileSync(file, "utf8");
  const changed = edit(code);
  assert.notEqual(changed, code, `the edit of ${name} applies to the program as written:\n${code}`);
  fs.writeFileSync(file, changed);
  const preview = await p.preview();
  const changing = preview.steps.filter((s) => s.op !== "same");
  assert.deepEqual(changing.map((s) => [s.urn.split("::").pop(), s.op]), [[name, op]], `only ${name} changes: ${JSON.stringify(changing)}`);
  const step = changing[0] as { diffReasons?: string[] };
  if (step.diffReasons !== undefined) assert.deepEqual([...step.diffReasons].sort(), [...keys].sort(), `${name} changes ${keys.join(", ")}`);
  await p.cli(["up", "--yes"]);
}

/** `edit` applied to the lines of `name`'s block only, in a YAML program. */
export function inYamlBlock(name: string, edit: (block: string) => string): (code: string) => string {
  return (code) => {
    const { start, end } = blockOf(code, name);
    return code.slice(0, start) + edit(code.slice(start, end)) + code.slice(end);
  };
}

/** What GARM's lists hold, by kind, as names: what a write would show, not what GARM's own workers change. */
export async function garmHoldings(login: Login): Promise<Record<string, string[]>> {
  const rest = new GarmClient(login);
  try {
    const entities = async (kind: "organization" | "repository" | "enterprise") => (await rest.listEntities(kind)).map((e) => `${e.name}@${e.endpoint}`).sort();
    return {
      controller: [(await rest.getController()).controllerId],
      endpoints: [...(await rest.listEndpoints("github")).map((e) => e.name), ...(await rest.listEndpoints("gitea")).map((e) => `gitea/${e.name}`)].sort(),
      credentials: [...(await rest.listCredentials("github")).map((c) => c.name), ...(await rest.listCredentials("gitea")).map((c) => `gitea/${c.name}`)].sort(),
      organizations: await entities("organization"),
      repositories: await entities("repository"),
      enterprises: await entities("enterprise"),
      templates: (await rest.listTemplates()).map((t) => `${t.name}${t.owner === "system" ? " (system)" : ""}`).sort(),
      pools: (await rest.listPools()).map((p) => `${p.image}/${p.flavor}/${p.labels.join(",")}`).sort(),
      scaleSets: (await rest.listScaleSets()).map((s) => s.name).sort(),
    };
  } finally {
    await rest.close();
  }
}

/** What of `holdings` is GARM's own, which a destroy of everything imported leaves: the controller, github.com, the system templates. */
export function garmsOwn(holdings: Record<string, string[]>): Record<string, string[]> {
  const own = Object.fromEntries(Object.keys(holdings).map((k) => [k, [] as string[]]));
  return { ...own, controller: holdings.controller!, endpoints: holdings.endpoints!.filter((e) => e === "github.com"), templates: holdings.templates!.filter((t) => t.endsWith(" (system)")) };
}

/** One destroy succeeds, and GARM keeps only its own objects: the default github.com endpoint and the system templates. */
export async function destroyLeavesGarmsOwn(p: ImportedProject, login: Login): Promise<void> {
  const destroyed = await p.cli(["destroy", "--yes"], { expectOk: false, timeoutMs: 300_000 });
  assert.equal(destroyed.code, 0, `one destroy removes everything the program imported:\n${destroyed.stdout}\n${destroyed.stderr}`);
  for (const line of destroyed.stdout.split("\n").filter((l) => /waiting for|drain|retir/i.test(l))) console.log(`      destroy: ${line.trim()}`);
  const rest = new GarmClient(login);
  try {
    const [github, gitea, templates, sets, pools, orgs, repos, ents, ghCreds, gtCreds] = await Promise.all([
      rest.listEndpoints("github"),
      rest.listEndpoints("gitea"),
      rest.listTemplates(),
      rest.listScaleSets(),
      rest.listPools(),
      rest.listEntities("organization"),
      rest.listEntities("repository"),
      rest.listEntities("enterprise"),
      rest.listCredentials("github"),
      rest.listCredentials("gitea"),
    ]);
    assert.deepEqual(github.map((e) => e.name), ["github.com"], "GARM's default endpoint stays");
    assert.deepEqual(gitea, []);
    assert.ok(templates.length > 0 && templates.every((t) => t.owner === "system"), `only the system templates stay: ${templates.map((t) => `${t.name} (${t.owner})`).join(", ")}`);
    assert.deepEqual([sets.length, pools.length, orgs.length, repos.length, ents.length, ghCreds.length, gtCreds.length], [0, 0, 0, 0, 0, 0, 0], "every imported object is gone");
  } finally {
    await rest.close();
  }
}

const ENTITY_ROUTES = { organization: "organizations", repository: "repositories", enterprise: "enterprises" } as const;

/** What uses what in GARM now, as pairs of REST paths: a scale set or pool its template and entity, an entity its credentials, credentials their endpoint. */
export async function dependencyEdges(login: Login): Promise<[user: string, used: string][]> {
  const rest = new GarmClient(login);
  try {
    const [sets, pools, creds, ...entities] = await Promise.all([
      rest.listScaleSets(),
      rest.listPools(),
      Promise.all((["github", "gitea"] as const).map(async (forge) => (await rest.listCredentials(forge)).map((c) => ({ ...c, forge })))).then((l) => l.flat()),
      ...(Object.keys(ENTITY_ROUTES) as (keyof typeof ENTITY_ROUTES)[]).map(async (kind) => (await rest.listEntities(kind)).map((e) => ({ ...e, kind }))),
    ]);
    const edges: [string, string][] = [];
    for (const [route, list] of [["scalesets", sets], ["pools", pools]] as const) {
      for (const r of list) {
        if (r.templateId !== undefined) edges.push([`/${route}/${r.id}`, `/templates/${r.templateId}`]);
        if (r.entity) edges.push([`/${route}/${r.id}`, `/${ENTITY_ROUTES[r.entity.kind]}/${r.entity.id}`]);
      }
    }
    for (const e of entities.flat()) {
      for (const c of creds.filter((c) => c.name === e.credentials && c.endpoint === e.endpoint)) edges.push([`/${ENTITY_ROUTES[e.kind]}/${e.id}`, `/${c.forge}/credentials/${c.id}`]);
    }
    for (const c of creds) edges.push([`/${c.forge}/credentials/${c.id}`, `/${c.forge}/endpoints/${c.endpoint}`]);
    return edges;
  } finally {
    await rest.close();
  }
}

/** Each object deleted (`deletes`, REST paths in the order GARM got them) went after every user of it. */
export function assertDeletedInOrder(deletes: readonly string[], edges: readonly [string, string][]): void {
  assert.ok(edges.length > 0, "GARM had objects using others");
  for (const [user, used] of edges) {
    const at = deletes.indexOf(used);
    if (at < 0) continue;
    assert.ok(deletes.indexOf(user) >= 0 && deletes.indexOf(user) < at, `${user} was deleted before ${used}, which it used: ${deletes.join(", ")}`);
  }
}

/**
 * Enables the pool `poolId` with one idle runner and waits for GARM to make it, so a destroy has a runner to drain
 * while the delete of the pool's template runs beside it (a team's GARM has some).
 */
export async function withIdleRunner(login: Login, poolId: string, timeoutMs = 120_000): Promise<void> {
  const rest = new GarmClient(login);
  try {
    await rest.updatePool(poolId, { enabled: true, min_idle_runners: 1 });
    const until = Date.now() + timeoutMs;
    while ((await rest.listPoolInstances(poolId)).length === 0) {
      assert.ok(Date.now() < until, `GARM made no idle runner for pool ${poolId} in ${timeoutMs / 1000}s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await rest.close();
  }
}

/**
 * What issue 34 found the plan and Pulumi's codegen getting wrong, added to the populated GARM: organization acme on a
 * second GitHub endpoint (ghes) with a scale set, so two endpoints hold the name; a pool there whose extra specs hold a
 * null; and GitHub and Gitea credentials numbered alike (each forge counts its own: acme-pat and gitea-token are 1).
 */
export async function populateClashes(login: { url: string; username: string; password: string }): Promise<{ acmeOnGhes: string; scaleSet: number; nullPool: string }> {
  const rest = new GarmClient(login);
  try {
    const [github, gitea] = await Promise.all([rest.listCredentials("github"), rest.listCredentials("gitea")]);
    assert.ok(github.some((c) => gitea.some((g) => g.id === c.id)), `GitHub and Gitea credentials share an id: ${JSON.stringify([github, gitea])}`);
    const acmeOnGhes = (await rest.createEntity("organization", { name: "acme", credentials_name: "ghes-pat", webhook_secret: "s3cret", pool_balancer_type: "roundrobin" } as never)).id;
    const runner = { provider_name: "fake", image: "ubuntu-24.04", flavor: "small", os_type: "linux", os_arch: "amd64", enabled: false, min_idle_runners: 0 };
    const scaleSet = (await rest.createScaleSet({ kind: "organization", id: acmeOnGhes }, { ...runner, name: "ghes-ci", labels: ["linux", "on-ghes"], max_runners: 2 } as never)).id;
    const nullPool = (await rest.createPool({ kind: "organization", id: acmeOnGhes }, { ...runner, flavor: "null-specs", tags: ["linux", "nulls"], max_runners: 1, extra_specs: { disk_gb: 10, zone: null } } as never)).id;
    return { acmeOnGhes, scaleSet, nullPool };
  } finally {
    await rest.close();
  }
}

/** GARM checks a pool's provider: the entry "fake" written by hand into the simulated GARM's config, as an operator would, and GARM restarted to read it. */
export async function handWriteFakeProvider(host: Pick<SimulatedHost, "garmConfigPath" | "providerExecutable" | "sim">): Promise<void> {
  fs.appendFileSync(host.garmConfigPath, `\n[[provider]]\nname = "fake"\nprovider_type = "external"\n[provider.external]\nprovider_executable = "${host.providerExecutable}"\nconfig_file = ""\n`);
  await host.sim.restart();
}
