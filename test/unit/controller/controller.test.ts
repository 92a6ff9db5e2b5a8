// GarmController's pure parts (provider/controller): only given fields are managed and sent (UpdateControllerParams
// takes pointers, params/requests.go L548-558), and URLs need a scheme and host (L560-590).
import { strict as assert } from "node:assert";
import { changedControllerFields, controllerMethodsWith } from "../../../provider/kinds/controller/resource";

const held = { metadataUrl: "https://g/api/v1/metadata", callbackUrl: "https://g/api/v1/callbacks", webhookUrl: "https://g/webhooks", minimumJobAgeBackoff: 30 };
const methods = controllerMethodsWith({ client: () => { throw new Error("no GARM in unit tests"); }, log: { info() {}, warn() {} } });

describe("GarmController", () => {
  it("changes only the fields given that differ", () => {
    assert.deepEqual(changedControllerFields(held, { webhookUrl: "https://g/webhooks" }), []);
    assert.deepEqual(changedControllerFields(held, { minimumJobAgeBackoff: 60 }), ["minimumJobAgeBackoff"]);
    assert.deepEqual(changedControllerFields(held, {}), []);
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
