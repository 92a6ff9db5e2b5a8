// `stack export` holds no digest of a secret in clear (issue 27 item 7, issue 23 item 8), with the real Pulumi CLI and
// the dynamic provider against the GARM simulator: the digests are secrets in the state, and state written before,
// whose digest is a plain sha256 in clear, previews no change and is stored encrypted by the next `up`.
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi, runPulumi } from "../../../harness/pulumi-cli";

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const DIGEST_OUTPUTS = ["secretDigest", "secretSalt", "webhookSecretHash", "webhookSecretSalt"];

interface StateResource {
  type: string;
  outputs?: Record<string, unknown>;
}

describe("secret digests in the stack's state (real CLI, dynamic provider)", function () {
  this.timeout(300_000);
  let sim: Simulator;
  let dir = "";

  before(function () {
    try {
      locatePulumi();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-digests-"));
    sim = await startSimulator({ tickMs: 0 });
  });
  afterEach(async () => {
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const program = async () => {
    const creds = new garm.GarmCredentials("pat", { name: "digest-pat", endpoint: "github.com", token: "ghp_digest_token_value" });
    new garm.GarmOrganization("org", { name: "digest-org", credentials: creds.name, webhookSecret: "digest-hook-secret" });
    return {};
  };
  const run = (op: "up" | "preview") =>
    runPulumi({
      workDir: dir,
      stackName: "digests",
      projectName: "digests",
      program,
      op,
      config: { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } },
    });
  const stateFile = () => {
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\/stacks\/.*digests\.json$/.test(p)) found.push(p);
      }
    };
    walk(path.join(dir, "state"));
    assert.equal(found.length, 1, `one stack file: ${found.join(", ")}`);
    return found[0]!;
  };
  const resources = (): StateResource[] => (JSON.parse(fs.readFileSync(stateFile(), "utf8")) as { checkpoint: { latest: { resources: StateResource[] } } }).checkpoint.latest.resources;
  const garmResources = () => resources().filter((r) => /GarmCredentials|GarmOrganization/.test(r.type));

  function assertNoDigestInClear(when: string): void {
    // What the resources hold, but the serialized provider code and the encrypted values.
    const text = JSON.stringify(garmResources().map((r) => ({ ...r, outputs: { ...r.outputs, __provider: undefined } }))).replace(/"ciphertext":"[^"]*"/g, "");
    const clear = text.match(/.{0,80}(scrypt:|sha256:|[0-9a-f]{64}).{0,20}/);
    assert.equal(clear, null, `${when}: a digest in clear in the state: ${clear?.[0]}`);
    for (const r of garmResources()) {
      for (const key of DIGEST_OUTPUTS.filter((k) => r.outputs?.[k] !== undefined)) {
        const value = r.outputs![key] as Record<string, unknown>;
        assert.equal(typeof value === "object" && value !== null ? value[SECRET_SIG] : undefined, "1b47061264138c4ac30d75fd1eb44270", `${when}: ${r.type} ${key} is not a secret`);
      }
    }
  }

  it("keeps every digest encrypted, and encrypts a clear sha256 from older state on the next up with no change", async () => {
    const up = await run("up");
    assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
    assert.equal(garmResources().length, 2);
    assertNoDigestInClear("after create");

    // The state as an older pulumi-garm wrote it: version 1, the organization's digest a plain salted sha256.
    const file = stateFile();
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as { checkpoint: { latest: { resources: StateResource[] } } };
    const org = doc.checkpoint.latest.resources.find((r) => r.type.endsWith("GarmOrganization"))!;
    org.outputs = {
      ...org.outputs,
      stateVersion: 1,
      webhookSecretSalt: "feedbeef",
      webhookSecretHash: createHash("sha256").update("feedbeef\ndigest-hook-secret").digest("hex"),
    };
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));

    const preview = await run("preview");
    assert.ok(preview.exitOk, `${preview.error?.message}\n${preview.stdout}`);
    assert.deepEqual(Object.keys(preview.changeSummary ?? {}), ["same"], `older state previews no change:\n${preview.stdout}`);
    const again = await run("up");
    assert.ok(again.exitOk, `${again.error?.message}\n${again.stdout}`);
    assert.deepEqual(Object.keys(again.changeSummary ?? {}), ["same"], again.stdout);
    assertNoDigestInClear("after the up over older state");
  });
});
