// GarmProvider's `connection` input at check (so at preview): each bad field named by its path, secrets never quoted,
// and no connection at all leaving the inputs as they were.
import * as assert from "node:assert/strict";
import { checkGarmProvider, type CheckContext } from "../../../provider/kinds/garm-provider/checks";
import { UNKNOWN } from "../../../provider/kinds/garm-provider/inputs";

const valid = {
  name: "openstack",
  executable: "/usr/local/bin/garm-provider-openstack",
  garmConfigPath: "/etc/garm/config.toml",
  restartCommand: "systemctl restart garm",
};
const login = { host: "garm.internal", user: "deploy", privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-body\n", hostKey: "SHA256:abc" };
const noFile: CheckContext = { readConfig: () => Promise.reject(new Error("ENOENT")) };

async function failures(connection: unknown) {
  return (await checkGarmProvider({ ...valid, connection }, noFile)).failures;
}

describe("garm-provider check: connection", () => {
  it("accepts a connection and keeps it, with a bastion; no connection adds none", async () => {
    const connection = { ...login, port: 2222, proxy: { host: "bastion", user: "jump", password: "bastion-pw" }, sudo: true };
    const r = await checkGarmProvider({ ...valid, connection }, noFile);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.inputs.connection, connection);
    const plain = await checkGarmProvider(valid, noFile);
    assert.equal("connection" in plain.inputs, false);
  });

  const cases: Array<[string, unknown, string, RegExp]> = [
    ["port out of range", { ...login, port: 70000 }, "connection.port", /connection\.port/],
    ["port not a number", { ...login, port: "22" }, "connection.port", /connection\.port/],
    ["no host", { user: "deploy" }, "connection.host", /connection\.host/],
    ["empty host", { ...login, host: "" }, "connection.host", /connection\.host/],
    ["unknown field", { ...login, hostname: "x" }, "connection.hostname", /^unknown input "connection.hostname"; the inputs of connection are host, port, user/],
    ["proxy port out of range", { ...login, proxy: { host: "b", port: 0 } }, "connection.proxy.port", /connection\.proxy\.port/],
    ["proxy nested in a proxy", { ...login, proxy: { host: "b", proxy: { host: "c" } } }, "connection.proxy.proxy", /^unknown input "connection.proxy.proxy"; the inputs of connection.proxy are host, port, .*dialErrorLimit$/],
    ["sudo not a boolean", { ...login, sudo: "yes" }, "connection.sudo", /connection\.sudo/],
    ["connection not an object", "garm.internal", "connection", /^connection /],
  ];
  for (const [what, connection, property, reason] of cases) {
    it(`names the field: ${what}`, async () => {
      const found = await failures(connection);
      assert.ok(found.length > 0, "no failure");
      assert.ok(
        found.some((f) => f.property === property && reason.test(f.reason)),
        `expected ${property} ~ ${reason}, got ${JSON.stringify(found)}`,
      );
    });
  }

  it("never quotes a secret field's value in a failure", async () => {
    const found = [
      ...(await failures({ ...login, privateKey: 12345678 })),
      ...(await failures({ ...login, password: 87654321 })),
      ...(await failures({ ...login, proxy: { host: "b", privateKeyPassword: 11223344 } })),
    ];
    assert.equal(found.length, 3, JSON.stringify(found));
    for (const f of found) assert.doesNotMatch(f.reason, /12345678|87654321|11223344/);
  });

  it("leaves a connection not known yet (preview) unchecked and in place", async () => {
    const r = await checkGarmProvider({ ...valid, connection: { ...login, host: UNKNOWN } }, noFile);
    assert.deepEqual(r.failures, []);
    assert.equal((r.inputs.connection as Record<string, unknown>).host, UNKNOWN);
  });
});
