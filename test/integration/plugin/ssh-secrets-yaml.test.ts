// A GarmProvider over SSH from a YAML program through the garm resource plugin (the plugin's front door; the dynamic
// provider's is test/integration/cli/ssh-secrets.test.ts), with the real CLI, the YAML host, a real OpenSSH server on
// loopback and the GARM simulator: the connection's privateKey and password, given as secret stack config, never reach
// `pulumi stack export`, the CLI's output or its -v=9 logs in clear (but the engine's own RPC logging of properties),
// and destroy reconnects with the connection state kept.
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type SimulatedHost, startSimulatedHost } from "../../../scripts/demo/host";
import { ensureOpenSshServer, startSshServer, type SshServer } from "../../../harness/sshd";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { ENGINE_RPC_LOGGING } from "../../support/engine-rpc-logging";

function projectSource(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      "name: garm-ssh-yaml",
      "runtime: yaml",
      "config:",
      "  providerExecutable: { type: string }",
      "  garmConfigPath: { type: string }",
      "  restartCommand: { type: string }",
      "  sshPort: { type: integer }",
      "  sshUser: { type: string }",
      "  sshHostKey: { type: string }",
      "  sshKey: { type: string, secret: true }",
      "  sshPassword: { type: string, secret: true }",
      "resources:",
      "  remote:",
      "    type: garm:index:GarmProvider",
      "    properties:",
      "      name: remote",
      "      executable: ${providerExecutable}",
      "      garmConfigPath: ${garmConfigPath}",
      "      restartCommand: ${restartCommand}",
      "      restartTimeoutSeconds: 20",
      "      connection:",
      "        host: 127.0.0.1",
      "        port: ${sshPort}",
      "        user: ${sshUser}",
      "        privateKey: ${sshKey}",
      // sshd refuses passwords (PasswordAuthentication no): the login falls through to the key, the password is sent.
      "        password: ${sshPassword}",
      "        hostKey: ${sshHostKey}",
      '        agentSocketPath: ""',
      "        dialErrorLimit: 2",
      "",
    ].join("\n"),
  );
  return dir;
}

describe("GarmProvider over SSH from a YAML program: secrets (real CLI, garm resource plugin, simulator)", function () {
  this.timeout(300_000);
  let server: SshServer | undefined;
  let host: SimulatedHost | undefined;
  let p: PluginProject | undefined;
  let home = "";
  let src = "";

  before(async function () {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const why = ensureOpenSshServer();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    const tarball = buildPluginOnce();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    src = projectSource(fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-ssh-yaml-src-")));
    [server, host] = await Promise.all([startSshServer(), startSimulatedHost({ prefix: "pulumi-garm-ssh-yaml-host-" })]);
    p = new PluginProject(src, home, [YAML_HOST_DIR]);
    await p.installPlugin(tarball);
  });
  after(async () => {
    p?.close();
    await host?.close();
    await server?.stop();
    for (const d of [home, src]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it("keeps privateKey and password out of stack export, the CLI output and every -v=9 line but the engine's RPC logging; destroy reconnects", async () => {
    const password = `Ssh-Pw-${randomBytes(12).toString("hex")}`;
    const secrets = [...server!.clientKey.split("\n").filter((l) => l.length > 20 && !l.startsWith("-----")), password];
    const handWritten = host!.garmConfig();
    const { "garm:url": url, "garm:username": username, "garm:password": garmPassword, restartCommand } = host!.stackConfig;
    await p!.initStack("ssh", {
      "garm:url": url,
      "garm:username": username,
      "garm:password": garmPassword,
      providerExecutable: host!.providerExecutable,
      garmConfigPath: host!.garmConfigPath,
      restartCommand,
      sshPort: String(server!.port),
      sshUser: server!.user,
      sshHostKey: server!.hostKey,
      sshKey: { value: server!.clientKey, secret: true },
      sshPassword: { value: password, secret: true },
    });
    const inClear = (text: string) => secrets.filter((s) => text.includes(s));
    const beyondEngine = (where: string, text: string) => {
      assert.ok(text.split("\n").some((l) => ENGINE_RPC_LOGGING.test(l)), `${where} were captured (the engine's RPC logging is in them)`);
      const lines = text.split("\n").filter((l) => inClear(l).length > 0 && !ENGINE_RPC_LOGGING.test(l));
      assert.deepEqual(lines.map((l) => l.slice(0, 300)), [], `a connection secret is in ${where} outside the engine's RPC logging`);
    };
    const verbose = ["--logtostderr", "-v=9"];

    const up = await p!.cli(["up", "--yes", ...verbose]);
    assert.match(host!.garmConfig(), /# BEGIN pulumi-garm provider "remote"/);
    assert.ok(server!.logs().includes(`Accepted publickey for ${server!.user}`), "the plugin logged in over SSH");
    assert.deepEqual(inClear(up.stdout), [], "the CLI's output of up holds no connection secret");
    beyondEngine("the -v=9 logs of up", up.stderr);

    const exported = (await p!.cli(["stack", "export"])).stdout;
    assert.deepEqual(inClear(exported), [], "pulumi stack export holds no connection secret");
    const resource = (JSON.parse(exported) as { deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] } }).deployment.resources.find((r) => r.type.endsWith("GarmProvider"));
    assert.ok(resource?.outputs?.connection && typeof resource.outputs.connection === "object");
    assert.ok("ciphertext" in (resource.outputs.connection as object), `connection is kept encrypted: ${JSON.stringify(resource.outputs.connection).slice(0, 200)}`);

    const down = await p!.cli(["destroy", "--yes", ...verbose]);
    assert.deepEqual(inClear(down.stdout), [], "the CLI's output of destroy holds no connection secret");
    beyondEngine("the -v=9 logs of destroy", down.stderr);
    assert.equal(host!.garmConfig(), handWritten, "the file is as it was, byte for byte");
  });
});
