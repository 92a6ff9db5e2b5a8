// `make demo`: runs the examples/quickstart project as a user does: the package packed with `npm pack` and installed from
// the tarball into a copy of the project, then the real `pulumi` CLI (local file backend, offline, real Node language
// host) from that directory, against the GARM simulator started in this process: preview, up, a label change, destroy.
// It prints one line per step saying what happened and why, with the relevant lines of Pulumi's own output, and keeps
// the full transcript (every command and its output) in a file. No GARM, GitHub or cloud needed.
// Usage: node dist/scripts/demo.js [--verbose]   (--verbose also prints Pulumi's full output; PULUMI_GARM_DEMO_KEEP=1
// keeps the temp directories: GARM config file, the project copy, Pulumi state).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { liveName as expectedLiveName } from "../provider/runners/naming";
import { locateLanguageHost, locatePulumi } from "../harness/pulumi-cli";
import { type CliResult, PulumiProject, REPO_ROOT, packOnce } from "../harness/pulumi-cli/project";
import { INITIAL_GARM_CONFIG, type SimulatedHost, startSimulatedHost, waitFor } from "./demo/host";
import { diagnosticsErrors, formatCalls, formatStep, pulumiLines, resourceSteps, summarizeCalls } from "./demo/transcript";

const verbose = process.argv.includes("--verbose");
const keep = process.env.PULUMI_GARM_DEMO_KEEP === "1";
const STEPS = 5;
const BASE_LABELS = ["linux", "x64"];
const EXTRA_LABEL = "large";

class DemoFailure extends Error {
  constructor(
    message: string,
    readonly run?: CliResult,
  ) {
    super(message);
  }
}

const say = (line: string) => console.log(line);
const detail = (line: string) => console.log(`      ${line}`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** Pulumi's finished resource rows and the provider's messages, indented under the step's line. */
function showPulumi(run: CliResult): void {
  for (const line of pulumiLines(run.stdout)) detail(`pulumi | ${line}`);
}

/** Waits for GARM to bring up the idle runner minIdleRunners asks for; returns its name. */
async function idleRunner(host: SimulatedHost, scaleSetId: number, liveName: string): Promise<string> {
  const runner = await waitFor(`an idle runner in ${liveName}`, () =>
    host.sim.instances().find((i) => i.scaleSetId === scaleSetId && i.status === "running" && i.runnerStatus === "idle"),
  );
  return runner.name;
}

async function main(): Promise<void> {
  const started = Date.now();
  const pulumiBin = locatePulumi(); // throws "run make tools" when the CLI is missing
  const version = execFileSync(pulumiBin.command, ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }).trim();
  const hostDir = locateLanguageHost(); // likewise for the Node language host
  const transcriptPath = path.join(REPO_ROOT, "dist", "demo-transcript.txt");
  const transcript: string[] = [];
  const host = await startSimulatedHost({ prefix: "pulumi-garm-demo-" });
  let project: PulumiProject | undefined;
  // Ctrl-C mid-run: the CLI child gets the signal too; leave no temp directory behind.
  process.once("SIGINT", () => {
    project?.close({ keep });
    void host.close({ keep }).finally(() => process.exit(130));
  });
  let failed = false;
  const timings: string[] = [];
  try {
    say(`pulumi-garm demo: the examples/quickstart project with Pulumi CLI ${version} (${pulumiBin.command}), local file backend`);
    say(`  Node language host from ${hostDir}; GARM simulator at ${host.sim.url} (in-process), GARM config file ${host.garmConfigPath}`);

    const installStarted = Date.now();
    project = await PulumiProject.fromExample({ example: "quickstart", tarball: await packOnce(), prefix: "pulumi-garm-demo-project-" });
    const p = project;
    say(`[0/${STEPS}] npm pack, then npm install of the tarball into a copy of examples/quickstart (${secs(Date.now() - installStarted)}): ${p.dir}`);
    const record = (r: CliResult) => {
      transcript.push(`$ pulumi ${r.args.join(" ")}    # exit ${r.code}, ${secs(r.durationMs)}`, r.stdout, r.stderr);
      if (verbose) process.stdout.write(`${r.stdout}${r.stderr}`);
    };
    const cli = async (n: number, args: string[]): Promise<CliResult> => {
      host.sim.clearRequests();
      const r = await p.cli(args, { expectOk: false });
      record(r);
      timings.push(`${args[0]} ${secs(r.durationMs)}`);
      if (r.code !== 0) throw new DemoFailure(`[${n}/${STEPS}] pulumi ${args.join(" ")} failed (exit ${r.code})`, r);
      return r;
    };
    const outputs = async (): Promise<Record<string, unknown>> => {
      const o = await p.outputs();
      transcript.push("$ pulumi stack output --json --show-secrets", JSON.stringify(o, null, 2));
      return o;
    };
    await p.initStack("demo", host.stackConfig);
    transcript.push(`$ pulumi stack init demo`, `$ pulumi config set ... (garm:url ${host.sim.url}, garm:username, garm:password as a secret, providerExecutable, garmConfigPath, restartCommand)`);

    // 1. preview: check and diff only; the provider must not touch GARM.
    const preview = await cli(1, ["preview"]);
    const toCreate = resourceSteps(preview.stdout).filter((s) => s.op === "create");
    const previewCalls = summarizeCalls(host.sim.requests());
    if (previewCalls.writes.length > 0) throw new DemoFailure(`[1/${STEPS}] preview changed GARM: ${previewCalls.writes.join(", ")}`);
    say(
      `[1/${STEPS}] preview: ${toCreate.length} to create (${toCreate.map((s) => `${s.type} ${s.name}`).join(", ")}); ` +
        `${formatCalls(previewCalls)}: a preview only checks inputs and computes the diff`,
    );
    showPulumi(preview);

    // 2. up: the provider entry first (the scale set takes its name as an input), then the scale set.
    const restartsBefore = host.restarts();
    const up = await cli(2, ["up", "--yes"]);
    const upCalls = summarizeCalls(host.sim.requests());
    const upOutputs = await outputs();
    const firstId = Number(upOutputs.scaleSetId);
    const firstName = String(upOutputs.liveName);
    const firstSet = host.sim.scaleSets().find((s) => s.id === firstId);
    if (!firstSet || firstSet.name !== firstName) throw new DemoFailure(`[2/${STEPS}] GARM has no scale set ${firstName} (id ${firstId}) after up`);
    if (!host.sim.providers().some((p) => p.name === "fake")) throw new DemoFailure(`[2/${STEPS}] GARM does not list provider "fake" after up`);
    say(
      `[2/${STEPS}] up: GarmProvider fake added its block to garm-config.toml and restarted GARM ` +
        `(${host.restarts() - restartsBefore}x, GARM reads providers only at start); GarmScaleSet small created ` +
        `${firstName} (id ${firstId}) under org acme, named after a hash of its labels; ${formatCalls(upCalls)}`,
    );
    showPulumi(up);
    const idle = await idleRunner(host, firstId, firstName);
    detail(`GARM | runner ${idle} is idle in ${firstName}, because minIdleRunners is 1`);

    // 3. label change, preview: a replacement, because GitHub cannot change a scale set's labels.
    const newLabels = [...BASE_LABELS, EXTRA_LABEL];
    const nextName = expectedLiveName("ci-small", newLabels, "fake", "hashed");
    const setLabel = await p.cli(["config", "set", "--path", "extraLabels[0]", EXTRA_LABEL]);
    record(setLabel);
    const preview2 = await cli(3, ["preview"]);
    const replaced = resourceSteps(preview2.stdout).filter((s) => s.op === "replace");
    const preview2Calls = summarizeCalls(host.sim.requests());
    if (replaced.length !== 1 || replaced[0].type !== "GarmScaleSet") {
      throw new DemoFailure(`[3/${STEPS}] expected the label change to replace GarmScaleSet small, got: ${resourceSteps(preview2.stdout).map(formatStep).join("; ")}`);
    }
    say(
      `[3/${STEPS}] label change [${BASE_LABELS}] -> [${newLabels}], preview: GarmScaleSet small replaced, because GitHub ` +
        `cannot change a scale set's labels; the new generation ${nextName} comes up before ${firstName} is drained; ` +
        `${formatCalls(preview2Calls)}`,
    );
    showPulumi(preview2);

    // 4. label change, up: create the new generation, then disable, drain and delete the old one.
    const restartsBefore4 = host.restarts();
    const up2 = await cli(4, ["up", "--yes"]);
    const log = host.sim.requests();
    const up2Calls = summarizeCalls(log);
    const up2Outputs = await outputs();
    const secondId = Number(up2Outputs.scaleSetId);
    const secondName = String(up2Outputs.liveName);
    const created = log.findIndex((r) => r.method === "POST" && r.path.endsWith("/scalesets"));
    const retired = log.findIndex((r) => r.method === "PUT" && r.path.endsWith(`/scalesets/${firstId}`));
    if (secondName !== nextName || !host.sim.scaleSets().some((s) => s.id === secondId)) {
      throw new DemoFailure(`[4/${STEPS}] GARM has no scale set ${nextName} after the label change (stack says ${secondName}, id ${secondId})`);
    }
    if (host.sim.scaleSets().some((s) => s.id === firstId)) throw new DemoFailure(`[4/${STEPS}] the old generation ${firstName} (id ${firstId}) is still in GARM`);
    if (created < 0 || retired < 0 || created > retired) {
      throw new DemoFailure(`[4/${STEPS}] expected the new scale set to be created before the old one was disabled; GARM calls: ${up2Calls.writes.join(", ")}`);
    }
    if (host.sim.instances().some((i) => i.name === idle)) throw new DemoFailure(`[4/${STEPS}] runner ${idle} of the old generation is still in GARM`);
    say(
      `[4/${STEPS}] label change, up: ${secondName} (id ${secondId}) created first, then ${firstName} (id ${firstId}) disabled, ` +
        `drained (its idle runner ${idle} removed), deleted and verified gone; ` +
        `GarmProvider fake unchanged (${host.restarts() - restartsBefore4} restarts); ${formatCalls(up2Calls)}`,
    );
    showPulumi(up2);
    detail(`GARM | runner ${await idleRunner(host, secondId, secondName)} is idle in ${secondName}`);

    // 5. destroy: dependents first, so the scale set is drained while its provider still exists.
    const restartsBefore5 = host.restarts();
    const destroy = await cli(5, ["destroy", "--yes"]);
    const destroyCalls = summarizeCalls(host.sim.requests());
    const left = host.sim.scaleSets().length;
    const providersLeft = host.sim.providers().map((p) => p.name);
    if (left > 0 || providersLeft.length > 0) {
      throw new DemoFailure(`[5/${STEPS}] after destroy GARM still has ${left} scale set(s) and providers [${providersLeft}]`);
    }
    const configRestored = host.garmConfig() === INITIAL_GARM_CONFIG;
    say(
      `[5/${STEPS}] destroy: GarmScaleSet small drained and deleted first (it depends on GarmProvider fake's name), then ` +
        `GarmProvider fake removed its block and restarted GARM (${host.restarts() - restartsBefore5}x); GARM has no scale sets ` +
        `and no providers; garm-config.toml ${configRestored ? "is byte for byte what the operator wrote" : "DIFFERS from the original"}; ` +
        `${formatCalls(destroyCalls)}`,
    );
    showPulumi(destroy);
    if (!configRestored) throw new DemoFailure(`[5/${STEPS}] garm-config.toml was not restored:\n${host.garmConfig()}`);

    say(`demo OK in ${secs(Date.now() - started)} (pulumi ${timings.join(", ")})`);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    fs.mkdirSync(path.dirname(transcriptPath), { recursive: true });
    fs.writeFileSync(transcriptPath, `${transcript.join("\n")}\n`);
    console.log(`full transcript (every pulumi command and its output): ${path.relative(process.cwd(), transcriptPath)}`);
    project?.close({ keep });
    await host.close({ keep });
    if (keep) console.error(`kept ${host.dir}${failed ? " (the demo failed)" : ""}`);
  }
}

main().catch((err: unknown) => {
  const e = err as Error;
  console.error(`\ndemo FAILED: ${e.message}`);
  if (err instanceof DemoFailure && err.run) {
    const text = `${err.run.stdout}\n${err.run.stderr}`;
    const errors = diagnosticsErrors(text);
    for (const line of errors) console.error(`  ${line}`);
    if (errors.length === 0) console.error(`  ${err.run.stderr.trim().split("\n").slice(0, 8).join("\n  ")}`);
    console.error("  what Pulumi did before it stopped:");
    for (const line of pulumiLines(err.run.stdout)) console.error(`    pulumi | ${line}`);
  } else if (!(err instanceof DemoFailure) && e.stack) {
    console.error(e.stack);
  }
  console.error("(rerun with --verbose for Pulumi's full output, PULUMI_GARM_DEMO_KEEP=1 to keep the GARM config and state)");
  process.exit(1);
});
