// GarmTemplate check on a bodyFile: the file is read at preview as UTF-8 text, and a file that is not UTF-8 is refused.
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { checkTemplateInputs } from "../../../provider/kinds/template/check";

describe("GarmTemplate check: bodyFile", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "garm-template-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const inputsFor = (bodyFile: string) => ({ name: "ci-linux", osType: "linux", forgeType: "github", bodyFile });

  it("refuses a file that is not valid UTF-8, naming the field and the file, instead of sending U+FFFD", () => {
    const file = path.join(dir, "latin1.sh");
    writeFileSync(file, Buffer.from([0x65, 0x63, 0x68, 0x6f, 0x20, 0xe9, 0x0a])); // "echo é" in Latin-1
    const outcome = checkTemplateInputs(inputsFor(file));
    assert.equal(outcome.failures.length, 1);
    assert.equal(outcome.failures[0].property, "bodyFile");
    assert.match(outcome.failures[0].reason, /not valid UTF-8/);
    assert.ok(outcome.failures[0].reason.includes(JSON.stringify(file)), outcome.failures[0].reason);
  });

  it("takes a UTF-8 file byte for byte, a leading byte-order mark included", () => {
    const file = path.join(dir, "utf8.sh");
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("echo é ✓\n", "utf8")]);
    writeFileSync(file, bytes);
    const outcome = checkTemplateInputs(inputsFor(file));
    assert.deepEqual(outcome.failures, []);
    assert.deepEqual(Buffer.from(outcome.inputs.body as string, "utf8"), bytes);
  });
});
