// import-plan's logical names: derived from GARM's names, unique, and independent of the order GARM lists objects in.
import { strict as assert } from "node:assert";
import type { Listed } from "../../../cli/import-plan/import-ids";
import { logicalNames, nameWords } from "../../../cli/import-plan/names";

const pool = (id: string, entityName: string, image = "ubuntu:24.04", flavor = "small"): Listed => ({ kind: "pool", view: { id, entityName, image, flavor } as never });
const org = (id: string, name: string): Listed => ({ kind: "organization", view: { id, name } as never });

describe("import-plan logical names", () => {
  it("turn GARM's names into lower-case words joined by dashes", () => {
    assert.equal(nameWords("Acme/App_1"), "acme-app-1");
    assert.equal(nameWords("ubuntu:24.04"), "ubuntu-24-04");
    assert.equal(nameWords("---"), "unnamed");
  });

  it("suffix every member of a clash from its own GARM id, so the order of GARM's lists changes no name", () => {
    const objects = [pool("aaaaaaaa-1111", "acme"), pool("bbbbbbbb-2222", "acme"), pool("cccccccc-3333", "acme", "ubuntu:24.04", "large"), org("o-1", "acme")];
    const names = logicalNames(objects);
    assert.deepEqual(names, ["pool-acme-ubuntu-24-04-small-aaaaaaaa", "pool-acme-ubuntu-24-04-small-bbbbbbbb", "pool-acme-ubuntu-24-04-large", "org-acme"]);
    const reversed = [...objects].reverse();
    assert.deepEqual(logicalNames(reversed), [...names].reverse());
  });

  it("fall back to the whole id where the first eight characters clash too, and stay unique", () => {
    const objects = [pool("abcdefgh-1", "acme"), pool("abcdefgh-2", "acme"), org("x", "Acme"), org("y", "ACME")];
    const names = logicalNames(objects);
    assert.deepEqual(names, ["pool-acme-ubuntu-24-04-small-abcdefgh-1", "pool-acme-ubuntu-24-04-small-abcdefgh-2", "org-acme-x", "org-acme-y"]);
    assert.equal(new Set(names).size, names.length);
  });
});
