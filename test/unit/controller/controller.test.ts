// GarmController's pure parts (provider/controller): only given fields are managed and sent (UpdateControllerParams
// takes pointers, params/requests.go L548-558), and URLs need a scheme and host (L560-590).
import { strict as assert } from "node:assert";
import { changedControllerFields, controllerMethodsWith } from "../../../provider/kinds/controller/resource";
import { marks } from "../../support/diff-marks";

const held = { metadataUrl: "https://g/api/v1/metadata", callbackUrl: "https://g/api/v1/callbacks", webhookUrl: "https://g/webhooks", minimumJobAgeBackoff: 30 };
const methods = controllerMethodsWith({ client: () => { throw new Error("no GARM in unit tests"); }, log: { info() {}, warn() {} } });

describe("GarmController", () => {
  it("changes only the fields given that differ", () => {
    assert.deepEqual(changedControllerFields(held, { webhookUrl: "https://g/webhooks" }), []);
    assert.deepEqual(changedControllerFields(held, { minimumJobAgeBackoff: 60 }), ["minimumJobAgeBackoff"]);
    assert.deepEqual(changedControllerFields(held, {}), []);
  });

  it("diff marks the settings that differ from GARM's, and those taken into or out of its hands", async () => {
    const stored = { ...held, controllerId: "c-1", version: "v0.2.1", managed: ["webhookUrl"], stateVersion: 1 };
    assert.deepEqual(marks(await methods.diff("c-1", stored, { webhookUrl: "https://g/webhooks" })), {});
    // A refresh read another back-off from GARM; the program manages the back-off and says 30.
    const refreshed = { ...stored, minimumJobAgeBackoff: 45, managed: ["webhookUrl", "minimumJobAgeBackoff"] };
    assert.deepEqual(marks(await methods.diff("c-1", refreshed, { webhookUrl: "https://g/webhooks", minimumJobAgeBackoff: 30 })), { minimumJobAgeBackoff: "update" });
    assert.deepEqual(marks(await methods.diff("c-1", stored, {})), { webhookUrl: "delete" }, "no longer managed");
    assert.deepEqual(marks(await methods.diff("c-1", stored, { webhookUrl: "https://g/webhooks", callbackUrl: "https://g/api/v1/callbacks" })), { callbackUrl: "update" }, "now managed");
  });

  it("refuses a URL without scheme or host and a negative back-off, naming the field", async () => {
    const bad = await methods.check!({}, { metadataUrl: "garm/metadata", minimumJobAgeBackoff: 1 });
    assert.equal(bad.failures?.[0]?.property, "metadataUrl");
    const negative = await methods.check!({}, { minimumJobAgeBackoff: -1 });
    assert.equal(negative.failures?.[0]?.property, "minimumJobAgeBackoff");
    assert.match(negative.failures?.[0]?.reason ?? "", /at least 0/);
  });

  it("delete touches nothing and says so", async () => {
    const lines: string[] = [];
    const m = controllerMethodsWith({ client: () => { throw new Error("must not be called"); }, log: { info: (l) => lines.push(l), warn: (l) => lines.push(l) } });
    await m.delete!("c-1", {});
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /GARM keeps its controller settings as they are/);
  });
});
