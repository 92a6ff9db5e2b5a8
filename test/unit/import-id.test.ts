// Import ids are parsed strictly (issue 34 item 8): one spelling per GARM object, refused before GARM is asked.
import { strict as assert } from "node:assert";
import { numericImportId, uuidImportId } from "../../provider/common/import-id";
import { importTemplate } from "../../provider/kinds/template/import";
import { importPool } from "../../provider/kinds/pool/import";
import { importScaleSet } from "../../provider/kinds/scaleset/import";
import { parseCredentialsId } from "../../provider/kinds/credentials/identity";

const UUID = "0b5a6f0e-2d7e-4a0e-8f5c-3c1d2a9b7e61";

describe("import ids", () => {
  describe("GARM's integer ids", () => {
    for (const [id, expected] of [["3", 3], ["42", 42], ["9007199254740991", 9007199254740991]] as const) {
      it(`takes ${JSON.stringify(id)}`, () => assert.equal(numericImportId(id, "template id", "garm-cli template list"), expected));
    }
    for (const id of [" 3", "3 ", "3.0", "0x3", "+3", "-3", "03", "0", "3e0", "", "三", "9007199254740993", "3/"]) {
      it(`refuses ${JSON.stringify(id)}, naming the form expected`, () =>
        assert.throws(() => numericImportId(id, "template id", "garm-cli template list"), /template id .* is not a GARM id: give the number as garm-cli template list shows it, in decimal digits only/));
    }
  });

  describe("GARM's UUIDs", () => {
    it("takes the printed form, lower-cased", () => assert.equal(uuidImportId(UUID.toUpperCase(), "pool id", "garm-cli pool list"), UUID));
    for (const id of [` ${UUID}`, `{${UUID}}`, `urn:uuid:${UUID}`, UUID.replace(/-/g, ""), "3", `${UUID}0`]) {
      it(`refuses ${JSON.stringify(id)}`, () => assert.throws(() => uuidImportId(id, "pool id", "garm-cli pool list"), /pool id .* is not a GARM id: give the UUID as garm-cli pool list shows it/));
    }
  });

  /** A client that must not be asked. */
  const unasked = () => {
    const asked: string[] = [];
    const client = new Proxy({}, { get: (_t, key) => async () => { asked.push(String(key)); throw new Error("asked GARM"); } });
    return { client: client as never, asked };
  };

  for (const id of [" 3", "3.0", "0x3", "+3", "03"]) {
    it(`GarmTemplate import refuses ${JSON.stringify(id)} without asking GARM`, async () => {
      const { client, asked } = unasked();
      await assert.rejects(importTemplate(client, id), /template id .* is not a GARM id/);
      assert.deepEqual(asked, []);
    });
  }
  for (const id of [" 3", "3", `{${UUID}}`, ` ${UUID}`]) {
    it(`GarmPool import refuses ${JSON.stringify(id)} without asking GARM`, async () => {
      const { client, asked } = unasked();
      await assert.rejects(importPool(client, id), /pool id .* is not a GARM id/);
      assert.deepEqual(asked, []);
    });
  }
  for (const id of [" 3", "3.0", "0x3", "+3", "03"]) {
    it(`GarmScaleSet import refuses ${JSON.stringify(id)} without asking GARM`, async () => {
      const { client, asked } = unasked();
      await assert.rejects(importScaleSet(client, id), /scale set id .* is not a GARM id/);
      assert.deepEqual(asked, []);
    });
    it(`GarmCredentials import refuses github/${id}`, () => {
      assert.throws(() => parseCredentialsId(`github/${id}`), /GarmCredentials id github\/… .* is not a GARM id: give the number as garm-cli github credentials list shows it/);
    });
  }
  it("GarmCredentials import takes github/3", () => assert.deepEqual(parseCredentialsId("github/3"), { forge: "github", credentialsId: 3 }));
});
