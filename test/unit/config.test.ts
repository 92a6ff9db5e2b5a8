import { strict as assert } from "node:assert";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkConnectionSettings, readConnectionSettings } from "../../provider/common/config";
import { UNKNOWN } from "../../provider/common/unknown";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("connection settings", () => {
  it("reads garm:url, garm:username and garm:password from stack config", () => {
    const s = readConnectionSettings(config({ "garm:url": "https://garm.example:9997/", "garm:username": "admin", "garm:password": "pw" }), {});
    assert.deepEqual(s, { url: "https://garm.example:9997", username: "admin", password: "pw", caCert: undefined });
  });

  it("falls back to GARM_URL, GARM_USERNAME and GARM_PASSWORD", () => {
    const s = readConnectionSettings(config({}), { GARM_URL: "http://127.0.0.1:9997", GARM_USERNAME: "u", GARM_PASSWORD: "p" });
    assert.equal(s.url, "http://127.0.0.1:9997");
    assert.equal(s.username, "u");
  });

  it("names the exact pulumi config command for each missing setting", () => {
    assert.throws(() => readConnectionSettings(config({}), {}), /garm:url is not set: run `pulumi config set garm:url /);
    assert.throws(() => readConnectionSettings(config({ "garm:url": "https://g" }), {}), /pulumi config set garm:username/);
    assert.throws(
      () => readConnectionSettings(config({ "garm:url": "https://g", "garm:username": "a" }), {}),
      /pulumi config set --secret garm:password/,
    );
  });

  it("refuses plain http to a host that is not loopback unless garm:insecure is true", () => {
    const base = { "garm:username": "a", "garm:password": "p" };
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:url": "http://garm.internal:9997" }), {}), /garm:insecure true/);
    assert.doesNotThrow(() => readConnectionSettings(config({ ...base, "garm:url": "http://garm.internal:9997", "garm:insecure": "true" }), {}));
    assert.doesNotThrow(() => readConnectionSettings(config({ ...base, "garm:url": "http://localhost:9997" }), {}));
    assert.doesNotThrow(() => readConnectionSettings(config({ ...base, "garm:url": "http://127.0.0.1:9997" }), {}));
  });

  it("rejects a URL that is not http(s) or carries credentials, without echoing the password", () => {
    const base = { "garm:username": "a", "garm:password": "hunter2" };
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:url": "ftp://g" }), {}), /https:\/\/ or http:\/\//);
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:url": "not a url" }), {}), /is not a URL/);
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:url": "https://u:p@g" }), {}), /must not carry credentials/);
  });

  it("refuses a garm:url that ends in /api/v1 and gives the command with the base URL", () => {
    const base = { "garm:username": "a", "garm:password": "p" };
    for (const url of ["https://garm.example:9997/api/v1", "https://garm.example:9997/api/v1/"]) {
      assert.throws(
        () => readConnectionSettings(config({ ...base, "garm:url": url }), {}),
        (err: Error) => err.message.includes("/api/v1") && err.message.includes("pulumi config set garm:url https://garm.example:9997`"),
      );
    }
    assert.throws(() => readConnectionSettings(config({}), { ...base, GARM_URL: "http://127.0.0.1:9997/api/v1", GARM_USERNAME: "a", GARM_PASSWORD: "p" }), /GARM_URL "http:\/\/127.0.0.1:9997\/api\/v1" ends in \/api\/v1.*set GARM_URL=http:\/\/127.0.0.1:9997$/);
    assert.equal(readConnectionSettings(config({ ...base, "garm:url": "https://proxy.example/garm" }), {}).url, "https://proxy.example/garm");
  });

  it("reads the CA bundle from garm:caCertFile and names the file when it cannot", () => {
    const dir = mkdtempSync(join(tmpdir(), "garm-ca-"));
    const file = join(dir, "ca.pem");
    writeFileSync(file, "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n");
    const base = { "garm:url": "https://g", "garm:username": "a", "garm:password": "p" };
    assert.match(readConnectionSettings(config({ ...base, "garm:caCertFile": file }), {}).caCert ?? "", /BEGIN CERTIFICATE/);
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:caCertFile": join(dir, "missing.pem") }), {}), /garm:caCertFile ".*missing.pem" cannot be read/);
  });

  it("refuses a garm:insecure that is neither true nor false, naming the setting", () => {
    const base = { "garm:url": "https://g", "garm:username": "a", "garm:password": "p" };
    assert.throws(() => readConnectionSettings(config({ ...base, "garm:insecure": "maybe" }), {}), /garm:insecure "maybe" must be true or false/);
    assert.throws(() => readConnectionSettings(config(base), { GARM_INSECURE: "yes" }), /GARM_INSECURE "yes" must be true or false/);
    assert.doesNotThrow(() => readConnectionSettings(config({ ...base, "garm:insecure": "FALSE" }), {}));
  });

  it("lists every failing setting at once, each under the config key it belongs to", () => {
    const { settings, failures } = checkConnectionSettings(config({ "garm:url": "ftp://x/api/v1", "garm:insecure": "maybe" }), {});
    assert.equal(settings, undefined);
    assert.deepEqual(failures.map((f) => f.setting).sort(), ["insecure", "password", "url", "username"]);
    assert.match(failures.find((f) => f.setting === "url")!.message, /garm:url "ftp:\/\/x\/api\/v1" must start with https:\/\/ or http:\/\//);
  });

  it("takes a setting not known yet (preview of an explicit provider) as set, and checks the rest", () => {
    const { settings, failures } = checkConnectionSettings(config({ "garm:url": UNKNOWN, "garm:username": "a", "garm:password": UNKNOWN }), {});
    assert.equal(settings, undefined);
    assert.deepEqual(failures, []);
    assert.deepEqual(checkConnectionSettings(config({ "garm:url": UNKNOWN, "garm:insecure": "maybe" }), {}).failures.map((f) => f.setting).sort(), ["insecure", "password", "username"]);
  });
});
