// A restart command can hold a token (issue 10 item 16): it never appears in a log line or an error, nor does the
// command's own output repeat it there.
import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { makeGarmProviderImpl, type GarmProviderDeps } from "../../../provider/kinds/garm-provider/lifecycle";
import { upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { describeCommand, maskCommandSecrets } from "../../../provider/kinds/garm-provider/command-text";
import { RestartCoordinator, RestartFailedError, runShellCommand } from "../../../provider/kinds/garm-provider/restart";
import { HAND_WRITTEN, removeDir, spec, tempConfig } from "./helpers";

const TOKEN = "ghp_S3cr3tT0ken0123456789abcdefXYZ";
const PASSWORD = "hunter2hunter2";

/** Restart commands that fail and print their secret, the way `curl -v` or `set -x` would (none reaches a network). */
const FAILING = [
  `echo "> POST /restart" >&2; echo "> Authorization: Bearer ${TOKEN}" >&2; exit 7 # curl -v -H "Authorization: Bearer ${TOKEN}"`,
  `GARM_TOKEN=${TOKEN} sh -c 'echo "token $GARM_TOKEN refused" >&2; exit 3'`,
  `sshpass -p ${PASSWORD} ssh garm@host systemctl restart garm; echo "password ${PASSWORD} rejected"; exit 5`,
];

function assertNoSecret(texts: string[]): void {
  for (const t of texts) {
    assert.ok(!t.includes(TOKEN), `token printed in: ${t}`);
    assert.ok(!t.includes(PASSWORD), `password printed in: ${t}`);
  }
}

describe("garm-provider restart command secrecy", function () {
  this.timeout(15_000);
  let dir: string;
  let file: string;
  let logs: string[];
  let deps: GarmProviderDeps;
  let listed: string[];

  beforeEach(async () => {
    ({ dir, file } = await tempConfig(HAND_WRITTEN));
    logs = [];
    listed = [];
    deps = {
      garm: () => ({
        listProviders: async () => listed.map((name) => ({ name, type: "external", description: "" })),
        listScaleSets: async () => [],
        listPools: async () => [],
      }),
      restarts: new RestartCoordinator({ run: runShellCommand, quietMs: 5, log: (l) => logs.push(l) }),
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
      now: () => Date.now(),
      log: (l) => logs.push(l),
      pollMs: 5,
      inspectFile: async () => undefined,
    };
  });
  afterEach(async () => removeDir(dir));

  const inputs = (restartCommand: string, restartTimeoutSeconds = 5) => ({
    name: "os",
    executable: "/usr/local/bin/garm-provider-os",
    garmConfigPath: file,
    restartCommand,
    restartTimeoutSeconds,
  });

  for (const command of FAILING) {
    it(`keeps the secret of a failing command out of logs and errors: ${command.split(" ")[0].split("=")[0]} …`, async () => {
      const impl = makeGarmProviderImpl(deps);
      const error = await impl.create(inputs(command)).then(
        () => assert.fail("the restart fails"),
        (e: Error) => e,
      );
      assert.match(error.message, /exited with code \d/);
      assert.match(error.message, /its last output/, "the output tail is still shown, with the secret masked");
      assertNoSecret([error.message, error.stack ?? "", ...logs]);
      assert.ok(logs.some((l) => /restarting GARM/.test(l)), logs.join("\n"));
    });
  }

  it("keeps the secret of a command that times out out of the error", async () => {
    const r = await runShellCommand(`echo "Bearer ${TOKEN}"; sleep 5`, 200);
    const e = new RestartFailedError(`curl -H "Authorization: Bearer ${TOKEN}" x; sleep 5`, r, 200);
    assert.match(e.message, /did not finish within 0.2s/);
    assertNoSecret([e.message]);
  });

  it("keeps the secret out of the log line of a delete that finishes an earlier one", async () => {
    const impl = makeGarmProviderImpl(deps);
    // The block is gone but GARM still lists the provider: the delete restarts GARM to unload it.
    listed = ["os"];
    await impl
      .delete("os", { ...inputs(`: restart --token ${TOKEN}`, 1), stateVersion: 1 })
      .catch(() => undefined);
    assert.ok(logs.some((l) => /restarting GARM/.test(l)), logs.join("\n"));
    assertNoSecret(logs);
  });

  it("keeps the secret out of an update's log lines", async () => {
    await fs.writeFile(file, upsertBlock(HAND_WRITTEN, spec("os", { executable: "/usr/local/bin/garm-provider-os", configFile: undefined })));
    const impl = makeGarmProviderImpl(deps);
    listed = [];
    const olds = { ...inputs(`true ${TOKEN}`), description: "old", stateVersion: 1 };
    await impl.update("os", olds, inputs(`echo ${TOKEN}; exit 1`)).catch((e: Error) => logs.push(e.message));
    assertNoSecret(logs);
  });

  it("names only the program, and masks only secret-looking words of the command in its output", () => {
    assert.equal(describeCommand("systemctl restart garm"), "the restart command `systemctl …`");
    assert.equal(describeCommand(`GARM_TOKEN=${TOKEN} sudo -E /usr/local/bin/restart-garm`), "the restart command `sudo …`");
    assert.equal(describeCommand("/usr/local/bin/restart-garm"), "the restart command `/usr/local/bin/restart-garm`");
    assert.equal(describeCommand(`${TOKEN} restart`), "the restart command");
    const out = "Job for garm.service failed; see /var/log/garm.log";
    assert.equal(maskCommandSecrets(out, "systemctl restart garm.service"), out, "ordinary words stay readable");
    assert.equal(maskCommandSecrets(`auth ${TOKEN}: no`, `curl -u "admin:${PASSWORD}" -H "X-Token=${TOKEN}"`), "auth ***: no");
  });
});
