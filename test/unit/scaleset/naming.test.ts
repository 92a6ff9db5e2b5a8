import { strict as assert } from "node:assert";
import { canonicalLabels, generationHash, isOtherGeneration, liveName } from "../../../provider/runners/naming";

describe("scale-set naming", () => {
  it("canonicalises labels: trimmed, lower-cased, de-duplicated, sorted", () => {
    assert.deepEqual(canonicalLabels([" X64", "linux", "x64 ", "Small"]), ["linux", "small", "x64"]);
  });

  // Published in the README; computed independently with `printf 'labels=linux,small,x64\nprovider=openstack' | sha256sum`.
  const vectors: [string, string[], string, string][] = [
    ["ci-small", ["linux", "x64", "small"], "openstack", "ci-small-42e04976"],
    ["ci-small", ["Small", " X64", "linux"], "openstack", "ci-small-42e04976"],
    ["ci-small", ["linux", "x64", "small", "gpu"], "openstack", "ci-small-33fd5ffb"],
    ["ci-small", ["linux", "x64", "small"], "aws", "ci-small-583d1497"],
  ];
  for (const [name, labels, provider, expected] of vectors) {
    it(`names ${name} with ${JSON.stringify(labels)} on ${provider} ${expected}`, () => {
      assert.equal(liveName(name, labels, provider, "hashed"), expected);
    });
  }

  it("gives different names to different label sets or providers, and the same to reorderings", () => {
    const seen = new Map<string, string>();
    const labelPool = ["linux", "windows", "x64", "arm64", "gpu", "small", "large"];
    for (let mask = 0; mask < 1 << labelPool.length; mask++) {
      const labels = labelPool.filter((_, i) => mask & (1 << i));
      for (const provider of ["a", "b"]) {
        const name = liveName("ci", labels, provider, "hashed");
        const key = `${provider}:${labels.join(",")}`;
        assert.ok(!seen.has(name), `${key} collides with ${seen.get(name)}`);
        seen.set(name, key);
        assert.equal(liveName("ci", [...labels].reverse().map((l) => l.toUpperCase()), provider, "hashed"), name);
      }
    }
  });

  it("cuts long names so the live name stays within 64 characters, without a dangling separator", () => {
    const long = liveName("a".repeat(70), ["linux"], "fake", "hashed");
    assert.equal(long.length, 64);
    assert.match(long, /^a{55}-[0-9a-f]{8}$/);
    const dashed = liveName(`${"b".repeat(54)}-xyz`, ["linux"], "fake", "hashed");
    assert.match(dashed, /^b{54}-[0-9a-f]{8}$/);
  });

  it("uses the name as is with naming exact", () => {
    assert.equal(liveName("ci-small", ["linux"], "fake", "exact"), "ci-small");
  });

  it("hashes eight hex digits", () => {
    assert.match(generationHash(["linux"], "fake"), /^[0-9a-f]{8}$/);
  });
});

describe("generation matching", () => {
  it("recognises another generation of a hashed live name, and nothing else", () => {
    assert.equal(isOtherGeneration("ci-small-42e04976", "ci-small-33fd5ffb"), true);
    assert.equal(isOtherGeneration("ci-small-42e04976", "ci-small-42e04976"), false);
    assert.equal(isOtherGeneration("ci-big-42e04976", "ci-small-33fd5ffb"), false);
    assert.equal(isOtherGeneration("ci-small", "ci-small-33fd5ffb"), false);
  });
});
