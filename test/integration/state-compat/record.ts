// Writes the fixtures of state-compat.test.ts: the state a released build leaves behind, through both front doors.
// Run once at the commit the fixture is named after, then committed; never at a later commit, which would record the
// new code instead. From a checkout of that commit, built (`make build`):
//   node dist/test/integration/state-compat/record.js <directory to write into>
// Dynamic provider: the engine harness creates one resource of every kind against the GARM simulator and saves its
// checkpoint (`__provider`, types, outputs as that build wrote them), with the simulator's database and GARM config
// file. Plugin: the plugin process creates a scale set, a pool and a template under the tokens that build served.
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execSync } from "node:child_process";
import { startFixture } from "../garm-provider/engine-fixture";
import { ref, type ResourceDecl } from "../../../harness/engine";
import { startPlugin, settingsOf } from "../../../harness/plugin-process";
import { startSimulator } from "../../../simulator";
import * as shim from "../../../sdk/nodejs/shim";

type Props = Record<string, unknown>;

/**
 * The simulator's database, read as its backup control does, and the scale sets its GitHub side holds, which a GARM
 * database does not (a test-only reach into its store).
 */
function databaseOf(sim: unknown): unknown {
  const store = (sim as { store: { snapshot(): unknown; github: { scaleSets: Map<number, unknown> } } }).store;
  return { image: store.snapshot(), githubScaleSets: [...store.github.scaleSets] };
}

const RUNNERS = { organization: "acme", image: "ubuntu-24.04", flavor: "small", labels: ["linux", "x64"], maxRunners: 2, drain: { timeoutSeconds: 10, pollSeconds: 1 } };

async function recordDynamic(out: string): Promise<void> {
  const fx = await startFixture();
  const decl = (name: string, type: string, provider: unknown, inputs: Props): ResourceDecl =>
    ({ name, type, module: "garm", provider, inputs }) as ResourceDecl;
  const program: ResourceDecl[] = [
    fx.provider("fake", "fake"),
    decl("ghe", "GarmEndpoint", shim.endpointProvider, { name: "ghe", baseUrl: "https://ghe.example.com", apiBaseUrl: "https://ghe.example.com/api/v3/", uploadBaseUrl: "https://ghe.example.com/api/uploads/" }),
    decl("ghe-pat", "GarmCredentials", shim.credentialsProvider, { name: "ghe-pat", endpoint: ref("ghe", "name"), token: "ghp_recorded" }),
    decl("widgets", "GarmOrganization", shim.organizationProvider, { name: "widgets", credentials: ref("ghe-pat", "name"), webhookSecret: "recorded-secret" }),
    decl("controller", "GarmController", shim.controllerProvider, { minimumJobAgeBackoff: 45 }),
    decl("tpl", "GarmTemplate", shim.templateProvider, { name: "recorded", body: "#!/bin/bash\necho recorded\n" }),
    fx.scaleSet("small", "fake"),
    decl("pool", "GarmPool", shim.poolProvider, { ...RUNNERS, providerName: ref("fake", "name"), templateId: ref("tpl", "templateId") }),
  ];
  const up = await fx.engine.up(program);
  if (!up.ok) throw new Error(`up failed: ${JSON.stringify(up.errors)}`);
  fx.engine.saveState(join(out, "dynamic-checkpoint.json"));
  const commit = execSync("git rev-parse HEAD", { encoding: "utf8" }).trim();
  const machine = { dir: fx.dir, simulatorUrl: fx.sim.url, serviceRestart: fx.serviceRestart, project: "garm-engine-it", stack: "dev" };
  writeFileSync(
    join(out, "dynamic-garm.json"),
    `${JSON.stringify({ commit, machine, program: program.map((d) => ({ ...d, provider: undefined })), garmConfig: readFileSync(fx.file, "utf8"), database: databaseOf(fx.sim) }, null, 1)}\n`,
  );
  await fx.close();
}

async function recordPlugin(out: string): Promise<void> {
  const sim = await startSimulator({ tickMs: 25, consolidationMs: 300 });
  const plugin = await startPlugin();
  await plugin.configure(settingsOf(sim));
  const resources: { token: string; name: string; id: string; inputs: Props; outputs: Props }[] = [];
  const create = async (token: string, name: string, news: Props) => {
    const checked = await plugin.check(token, name, news);
    if (checked.failures.length) throw new Error(`${token} ${name}: ${checked.failures.join("; ")}`);
    const made = await plugin.create(token, name, checked.inputs);
    resources.push({ token, name, id: made.id, inputs: checked.inputs, outputs: made.outs });
    return made;
  };
  const template = await create("garm:index:GarmTemplate", "tpl", { name: "recorded", body: "#!/bin/bash\necho recorded\n" });
  await create("garm:index:ScaleSet", "small", { ...RUNNERS, name: "ci-small", providerName: "fake" });
  await create("garm:index:GarmPool", "pool", { ...RUNNERS, providerName: "fake", templateId: Number(template.id) });
  const commit = execSync("git rev-parse HEAD", { encoding: "utf8" }).trim();
  writeFileSync(join(out, "plugin-state.json"), `${JSON.stringify({ commit, resources, database: databaseOf(sim) }, null, 1)}\n`);
  await plugin.stop();
  await sim.stop();
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error("usage: record.js <directory to write the fixtures into>");
  await recordDynamic(out);
  await recordPlugin(out);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
