import * as assert from "node:assert/strict";
import { checkGarmProvider, type CheckContext } from "../../../provider/kinds/garm-provider/checks";
import { upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { UNKNOWN } from "../../../provider/kinds/garm-provider/inputs";
import { HAND_WRITTEN, spec } from "./helpers";

const valid = {
  name: "openstack",
  description: "OpenStack runners",
  executable: "/usr/local/bin/garm-provider-openstack",
  configFile: "/etc/garm/openstack.toml",
  environmentVariables: ["PATH", "OS_"],
  interfaceVersion: "v0.1.0",
  garmConfigPath: "/etc/garm/config.toml",
  restartCommand: "systemctl restart garm",
  restartTimeoutSeconds: 60,
};

const noFile: CheckContext = { readConfig: () => Promise.reject(new Error("ENOENT")) };
const file = (text: string): CheckContext => ({ readConfig: async () => text });

async function failures(news: Record<string, unknown>, ctx = noFile) {
  return (await checkGarmProvider(news, ctx)).failures;
}

describe("garm-provider check", () => {
  it("accepts valid inputs and applies defaults", async () => {
    const { name, executable, garmConfigPath, restartCommand } = valid;
    const r = await checkGarmProvider({ name, executable, garmConfigPath, restartCommand }, noFile);
    assert.deepEqual(r.failures, []);
    assert.equal(r.inputs.interfaceVersion, "v0.1.0");
    assert.equal(r.inputs.restartTimeoutSeconds, 60);
    assert.deepEqual(r.inputs.environmentVariables, []);
    assert.equal(r.inputs.description, "");
    assert.deepEqual(await failures(valid), []);
  });

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["empty name", { name: "" }, "name", /^name is ""; it must be a GARM provider name: letters/],
    ["name with spaces", { name: "open stack" }, "name", /^name is "open stack"; it must be a GARM provider name: letters, digits/],
    ["name with a quote", { name: 'a"b' }, "name", /it must be a GARM provider name/],
    ["relative executable", { executable: "bin/x" }, "executable", /executable "bin\/x" is not an absolute path: expected/],
    ["missing executable", { executable: undefined }, "executable", /executable is required/],
    ["relative configFile", { configFile: "x.toml" }, "configFile", /configFile "x.toml" is not an absolute path/],
    ["env not a list", { environmentVariables: "PATH" }, "environmentVariables", /^environmentVariables is "PATH"; it must be a list of variable name prefixes/],
    ["empty env prefix", { environmentVariables: ["PATH", ""] }, "environmentVariables[1]", /environmentVariables\[1\] "" is not a non-empty string/],
    ["GARM env prefix", { environmentVariables: ["GARM_X"] }, "environmentVariables[0]", /starts with GARM/],
    ["interface version", { interfaceVersion: "v0.2.0" }, "interfaceVersion", /^interfaceVersion is "v0.2.0"; it must be one of "v0.1.0", "v0.1.1"$/],
    ["relative garmConfigPath", { garmConfigPath: "config.toml" }, "garmConfigPath", /garmConfigPath "config.toml" is not an absolute path/],
    ["blank restartCommand", { restartCommand: "  " }, "restartCommand", /restartCommand "  " is empty: expected a shell command/],
    ["zero timeout", { restartTimeoutSeconds: 0 }, "restartTimeoutSeconds", /^restartTimeoutSeconds is 0; it must be a positive whole number of seconds/],
    ["fractional timeout", { restartTimeoutSeconds: 1.5 }, "restartTimeoutSeconds", /is 1.5; it must be a positive whole number/],
    ["description not text", { description: 3 }, "description", /^description is 3; it must be a string$/],
  ];
  for (const [title, change, property, reason] of cases) {
    it(`fails on ${title}`, async () => {
      const f = await failures({ ...valid, ...change });
      assert.equal(f.length, 1, JSON.stringify(f));
      assert.equal(f[0].property, property);
      assert.match(f[0].reason, reason);
    });
  }

  it("tolerates unknown values during preview", async () => {
    const news = Object.fromEntries(Object.keys(valid).map((k) => [k, UNKNOWN]));
    assert.deepEqual(await failures(news), []);
    assert.deepEqual(await failures({ ...valid, environmentVariables: [UNKNOWN, "PATH"] }), []);
    assert.deepEqual(await failures({ ...valid, name: UNKNOWN }, file(HAND_WRITTEN.replace("lxd_local", UNKNOWN))), []);
  });

  it("refuses a name a hand-written entry already uses", async () => {
    const f = await failures({ ...valid, name: "lxd_local" }, file(HAND_WRITTEN));
    assert.equal(f.length, 1);
    assert.equal(f[0].property, "name");
    assert.match(f[0].reason, /name "lxd_local" is already used by a hand-written \[\[provider\]\] entry in \/etc\/garm\/config.toml/);
  });

  it("does not count its own managed block as a collision", async () => {
    const text = upsertBlock(HAND_WRITTEN, spec("openstack"));
    assert.deepEqual(await failures(valid, file(text)), []);
  });

  it("passes the collision rule when the file cannot be read", async () => {
    assert.deepEqual(await failures({ ...valid, name: "lxd_local" }, noFile), []);
  });
});
