// A GarmProvider over SSH with the real Pulumi CLI and the dynamic provider (the bundle, through node_modules/pulumi-garm)
// against a real OpenSSH server on loopback and the GARM simulator: the private key given in the program never reaches
// the stack's state, the CLI's output or its -v=9 logs in clear, and destroy reconnects with what state kept.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { runPulumi, type PulumiOp } from "../../../harness/pulumi-cli";
import { HAND_WRITTEN, sshGarmHost } from "./ssh-fixture";
import { ENGINE_RPC_LOGGING } from "../../support/engine-rpc-logging";

describe("GarmProvider over SSH: secrets (real CLI, dynamic provider)", function () {
  this.timeout(300_000);
  const fx = sshGarmHost("pulumi-garm-ssh-secrets-");

  const program = async () => {
    new garm.GarmProvider("remote", {
      name: "remote",
      executable: fx.exe,
      garmConfigPath: fx.file,
      restartCommand: `curl -fsS -X POST ${fx.sim.url}/_sim/restart`,
      restartTimeoutSeconds: 20,
      connection: { host: fx.server.host, port: fx.server.port, user: fx.server.user, privateKey: fx.server.clientKey, hostKey: fx.server.hostKey, agentSocketPath: "", dialErrorLimit: 2 },
    });
    return {};
  };
  const run = (op: PulumiOp) =>
    runPulumi({
      workDir: fx.dir,
      stackName: "ssh",
      projectName: "ssh-secrets",
      program,
      op,
      config: { "garm:url": fx.sim.url, "garm:username": fx.sim.username, "garm:password": { value: fx.sim.password, secret: true } },
      logging: { logToStdErr: true, logVerbosity: 9 },
    });
  const stateText = () => {
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\/stacks\/.*ssh\.json$/.test(p)) found.push(p);
      }
    };
    walk(path.join(fx.dir, "state"));
    assert.equal(found.length, 1, `one stack file: ${found.join(", ")}`);
    return fs.readFileSync(found[0]!, "utf8");
  };

  it("keeps the private key out of state, the CLI output and every -v=9 line but the engine's own RPC logging, and refreshes and destroys over the connection state kept", async () => {
    // Lines of the key's body: any of them in clear anywhere is a leak.
    const keyLines = fx.server.clientKey.split("\n").filter((l) => l.length > 20 && !l.startsWith("-----"));
    assert.ok(keyLines.length > 0);
    const leaks = (where: string, text: string) => {
      for (const line of keyLines) {
        const at = text.indexOf(line);
        assert.equal(at, -1, `the private key is in ${where}: ${text.slice(Math.max(0, at - 300), at + 80)}`);
      }
    };
    // Pulumi's own -v=9 RPC logging prints the properties a program registers, secrets included (as it does secret
    // stack config, verbose-logs.test.ts): the engine's behaviour. No other line may hold the key.
    const leaksBeyondEngine = (where: string, text: string) => {
      const lines = text.split("\n").filter((l) => keyLines.some((k) => l.includes(k)));
      const others = lines.filter((l) => !ENGINE_RPC_LOGGING.test(l));
      if (process.env.SHOW_KEY_LINES === "1") console.log(lines.map((l) => l.slice(0, 300)).join("\n"));
      assert.deepEqual(others.map((l) => l.slice(0, 300)), [], `the private key is in ${where} outside the engine's RPC logging`);
    };

    const up = await run("up");
    assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
    assert.match(fs.readFileSync(fx.file, "utf8"), /# BEGIN pulumi-garm provider "remote"/);
    assert.deepEqual(fx.sim.providers().map((p) => p.name), ["remote"]);
    leaks("the CLI's output of up", up.stdout);
    leaksBeyondEngine("the -v=9 logs of up", up.stderr);
    const state = stateText();
    leaks("the stack's state", state);
    const resource = (JSON.parse(state) as { checkpoint: { latest: { resources: { type: string; outputs?: Record<string, unknown> }[] } } }).checkpoint.latest.resources.find((r) => r.type.endsWith("GarmProvider"));
    assert.ok(resource?.outputs?.connection && typeof resource.outputs.connection === "object");
    assert.ok("ciphertext" in (resource.outputs.connection as object), `connection is kept encrypted: ${JSON.stringify(resource.outputs.connection).slice(0, 200)}`);

    const refreshed = await run("refresh");
    assert.ok(refreshed.exitOk, `${refreshed.error?.message}\n${refreshed.stdout}`);
    leaksBeyondEngine("the -v=9 logs of refresh", refreshed.stderr);

    const destroyed = await run("destroy");
    assert.ok(destroyed.exitOk, `${destroyed.error?.message}\n${destroyed.stdout}`);
    leaksBeyondEngine("the -v=9 logs of destroy", destroyed.stderr);
    assert.equal(fs.readFileSync(fx.file, "utf8"), HAND_WRITTEN, "the file is as it was, byte for byte");
  });
});
