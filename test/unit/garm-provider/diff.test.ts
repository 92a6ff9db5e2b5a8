import * as assert from "node:assert/strict";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffGarmProvider, sameFileOn } from "../../../provider/kinds/garm-provider/diff";
import { localHost } from "../../../provider/machine/local-host";
import { UNKNOWN } from "../../../provider/kinds/garm-provider/inputs";
import { marks, withMarks } from "../../support/diff-marks";

const olds = {
  stateVersion: 1,
  name: "openstack",
  description: "",
  executable: "/bin/p",
  environmentVariables: ["PATH"],
  interfaceVersion: "v0.1.0",
  garmConfigPath: "/etc/garm/config.toml",
  restartCommand: "systemctl restart garm",
  restartTimeoutSeconds: 60,
  __provider: "serialized",
};
const news = { name: "openstack", executable: "/bin/p", environmentVariables: ["PATH"], garmConfigPath: "/etc/garm/config.toml", restartCommand: "systemctl restart garm" };

describe("garm-provider diff", () => {
  it("reports no change when only defaults differ in spelling", () => {
    assert.deepEqual(withMarks(diffGarmProvider(olds, news)), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
  });

  it("reads a state written without stateVersion", () => {
    const { stateVersion: _s, ...old } = olds;
    assert.equal(diffGarmProvider(old, news).changes, false);
  });

  it("replaces on name or garmConfigPath", () => {
    assert.deepEqual(diffGarmProvider(olds, { ...news, name: "os2" }).replaces, ["name"]);
    assert.deepEqual(diffGarmProvider(olds, { ...news, garmConfigPath: "/etc/garm2.toml" }).replaces, ["garmConfigPath"]);
    assert.equal(diffGarmProvider(olds, { ...news, name: "os2" }).deleteBeforeReplace, false);
  });

  for (const [field, value] of [
    ["description", "x"],
    ["executable", "/bin/q"],
    ["configFile", "/etc/p.toml"],
    ["environmentVariables", ["PATH", "OS_"]],
    ["interfaceVersion", "v0.1.1"],
    ["restartCommand", "true"],
    ["restartTimeoutSeconds", 30],
  ] as const) {
    it(`updates ${field} in place`, () => {
      const d = diffGarmProvider(olds, { ...news, [field]: value });
      assert.equal(d.changes, true);
      assert.deepEqual(d.replaces, []);
      assert.deepEqual(marks(d), { [field]: field === "configFile" ? "add" : "update" });
    });
  }

  it("treats an unknown name as a replacement and an unknown field as a change", () => {
    assert.deepEqual(diffGarmProvider(olds, { ...news, name: UNKNOWN }).replaces, ["name"]);
    assert.equal(diffGarmProvider(olds, { ...news, environmentVariables: [UNKNOWN] }).changes, true);
  });

  it("updates, not replaces, when garmConfigPath names the same file another way", async () => {
    const dir = mkdtempSync(join(tmpdir(), "garm-diff-"));
    const real = join(dir, "config.toml");
    writeFileSync(real, "");
    symlinkSync(real, join(dir, "link.toml"));
    const link = join(dir, "link.toml");
    const same = diffGarmProvider({ ...olds, garmConfigPath: real }, { ...news, garmConfigPath: link }, await sameFileOn(localHost, real, link));
    assert.deepEqual(withMarks(same), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { garmConfigPath: "update" } });
    const other = diffGarmProvider({ ...olds, garmConfigPath: real }, { ...news, garmConfigPath: join(dir, "other.toml") }, await sameFileOn(localHost, real, join(dir, "other.toml")));
    assert.deepEqual(other.replaces, ["garmConfigPath"]);
  });

  it("marks the replacing field as a replacement, and plans a block GARM never confirmed with no field to mark", () => {
    assert.deepEqual(marks(diffGarmProvider(olds, { ...news, name: "os2", description: "x" })), { name: "updateReplace", description: "update" });
    const unconfirmed = diffGarmProvider({ ...olds, confirmed: false }, news);
    assert.deepEqual(withMarks(unconfirmed), { changes: true, replaces: [], deleteBeforeReplace: false, fields: {} });
  });

  it("updates for another login to the same machine, replaces for another machine or one from none", () => {
    const ssh = { host: "garm.internal", user: "deploy", privateKey: "k1", hostKey: "SHA256:x" };
    const remote = { ...olds, connection: ssh };
    assert.equal(diffGarmProvider(remote, { ...news, connection: ssh }).changes, false);
    const rotated = diffGarmProvider(remote, { ...news, connection: { ...ssh, privateKey: "k2", user: "other" } });
    assert.deepEqual(withMarks(rotated), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { connection: "update" } });
    assert.deepEqual(diffGarmProvider(remote, { ...news, connection: { ...ssh, host: "garm2.internal" } }).replaces, ["connection"]);
    assert.deepEqual(diffGarmProvider(remote, { ...news, connection: { ...ssh, port: 2222 } }).replaces, ["connection"]);
    assert.deepEqual(diffGarmProvider(remote, { ...news, connection: { ...ssh, port: 22 } }).replaces, [], "port 22 is the default");
    assert.deepEqual(diffGarmProvider(olds, { ...news, connection: ssh }).replaces, ["connection"]);
    assert.deepEqual(diffGarmProvider(remote, news).replaces, ["connection"]);
    assert.deepEqual(diffGarmProvider(remote, { ...news, connection: { ...ssh, host: UNKNOWN } }).replaces, ["connection"]);
  });
});
