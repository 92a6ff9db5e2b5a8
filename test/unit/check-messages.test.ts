// GarmScaleSet check messages are written for the user: each names the field, the value given and what is expected,
// never a validation library's own wording (issue 11).
import { strict as assert } from "node:assert";
import { checkScaleSetInputs } from "../../provider/kinds/scaleset/check";
import { UNKNOWN } from "../../provider/common/unknown";

const valid = {
  name: "ci-small",
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 4,
};

const failuresOf = (overrides: Record<string, unknown>) => checkScaleSetInputs({ ...valid, ...overrides }).failures;

/** Wording that only a validation library writes. */
const LIBRARY_TEXT = /Invalid input|Invalid option|Too small|Too big|expected int|received number|Unrecognized key|expected record/;

describe("GarmScaleSet check messages", () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["a fractional maxRunners", { maxRunners: 1.5 }, "maxRunners", /^maxRunners is 1\.5; it must be a whole number$/],
    ["maxRunners as text", { maxRunners: "3" }, "maxRunners", /^maxRunners is "3"; it must be a whole number$/],
    ["a huge maxRunners", { maxRunners: 1e20 }, "maxRunners", /^maxRunners is 100000000000000000000; it must be at most 9007199254740991$/],
    ["a fractional minIdleRunners", { minIdleRunners: 0.5 }, "minIdleRunners", /^minIdleRunners is 0\.5; it must be a whole number$/],
    ["a zero drain timeout", { drain: { timeoutSeconds: 0 } }, "drain.timeoutSeconds", /^drain\.timeoutSeconds is 0; it must be greater than 0$/],
    ["a negative drain poll", { drain: { pollSeconds: -5 } }, "drain.pollSeconds", /^drain\.pollSeconds is -5; it must be greater than 0$/],
    ["a fractional drain poll", { drain: { pollSeconds: 1.5 } }, "drain.pollSeconds", /^drain\.pollSeconds is 1\.5; it must be a whole number$/],
    ["a staleness bound as text", { drain: { jobStaleAfterHours: "a day" } }, "drain.jobStaleAfterHours", /^drain\.jobStaleAfterHours is "a day"; it must be a number$/],
    ["drain as text", { drain: "fast" }, "drain", /^drain is "fast"; it must be an object such as \{ timeoutSeconds: 600 \}$/],
    ["a misspelt drain option", { drain: { timeout: 5 } }, "drain.timeout", /^unknown input "drain\.timeout"; the inputs of drain are timeoutSeconds, pollSeconds, jobStaleAfterHours$/],
    ["a misspelt input", { maxRunner: 3 }, "maxRunner", /^unknown input "maxRunner"; see GarmScaleSetArgs for the inputs$/],
    ["an unknown osType", { osType: "macos" }, "osType", /^osType is "macos"; it must be one of "linux", "windows"$/],
    ["an unknown osArch", { osArch: "sparc" }, "osArch", /^osArch is "sparc"; it must be one of "386", "amd64", "arm64", "arm"$/],
    ["an unknown naming", { naming: "short" }, "naming", /^naming is "short"; it must be one of "hashed", "exact"$/],
    ["labels as text", { labels: "linux" }, "labels", /^labels is "linux"; it must be a list of strings$/],
    ["a label that is a number", { labels: ["linux", 64] }, "labels[1]", /^labels\[1\] is 64; it must be a string$/],
    ["enabled as text", { enabled: "yes" }, "enabled", /^enabled is "yes"; it must be true or false$/],
    ["a name that is a number", { name: 5 }, "name", /^name is 5; it must be a string$/],
    ["a null image", { image: null }, "image", /^image is null; it must be a string$/],
    ["extraSpecs as a number", { extraSpecs: 5 }, "extraSpecs", /^extraSpecs is 5; it must be an object, or a JSON string holding an object$/],
    ["a fractional templateId", { templateId: 1.5 }, "templateId", /^templateId is 1\.5; it must be a whole number$/],
    ["a bootstrap timeout as text", { runnerBootstrapTimeout: "20" }, "runnerBootstrapTimeout", /^runnerBootstrapTimeout is "20"; it must be a whole number$/],
    ["adoptExisting as text", { adoptExisting: "true" }, "adoptExisting", /^adoptExisting is "true"; it must be true or false$/],
    ["enableShell as a number", { enableShell: 1 }, "enableShell", /^enableShell is 1; it must be true or false$/],
    ["an entityId that is a number", { organization: undefined, entityId: 7 }, "entityId", /^entityId is 7; it must be a string$/],
  ];
  for (const [what, overrides, property, reason] of cases) {
    it(`${what}: names ${property}, the value and what is expected`, () => {
      const failures = failuresOf(overrides);
      const failure = failures.find((f) => f.property === property);
      assert.ok(failure, JSON.stringify(failures));
      assert.match(failure.reason, reason);
      for (const f of failures) assert.doesNotMatch(f.reason, LIBRARY_TEXT);
    });
  }

  describe("labels: []", () => {
    it("is refused with hashed naming, naming the field and why", () => {
      for (const naming of [undefined, "hashed"]) {
        const failures = failuresOf({ labels: [], naming });
        assert.equal(failures.length, 1, JSON.stringify(failures));
        assert.equal(failures[0].property, "labels");
        assert.match(failures[0].reason, /^labels is empty; with naming "hashed" .*at least one label.*runs-on.*live name.*changes.*naming: "exact"/);
      }
    });

    it("is allowed with naming \"exact\", whose live name is stable", () => {
      assert.deepEqual(failuresOf({ labels: [], naming: "exact" }), []);
    });

    it("is left for `up` while naming is not known yet", () => {
      assert.deepEqual(failuresOf({ labels: [], naming: UNKNOWN }), []);
    });
  });
});
