import { strict as assert } from "node:assert";
import { checkScaleSetInputs } from "../../../provider/kinds/scaleset/check";
import { UNKNOWN } from "../../../provider/common/unknown";

const valid = {
  name: "ci-small",
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 4,
  minIdleRunners: 1,
};

function failuresOf(overrides: Record<string, unknown>) {
  return checkScaleSetInputs({ ...valid, ...overrides }).failures;
}

describe("GarmScaleSet check", () => {
  it("accepts valid inputs and fills in the defaults", () => {
    const { inputs, failures } = checkScaleSetInputs({ ...valid, __provider: "shim" });
    assert.deepEqual(failures, []);
    assert.equal(inputs.osType, "linux");
    assert.equal(inputs.osArch, "amd64");
    assert.equal(inputs.enabled, true);
    assert.equal(inputs.naming, "hashed");
    assert.deepEqual(inputs.drain, { timeoutSeconds: 600, pollSeconds: 5, jobStaleAfterHours: 120 });
  });

  it("takes an exact name as GARM holds it, whatever its characters: GARM checks only that it is not empty (a team's scale set imports)", () => {
    for (const name of [`it's "nightly" \${ci} ü`, "ci small", "a/b"]) assert.deepEqual(failuresOf({ name, naming: "exact" }), [], name);
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["an empty name", { name: " " }, "name", /name must not be empty/],
    ["a hashed name with spaces", { name: "ci small" }, "name", /letters, digits/],
    ["an exact name over 64 characters", { name: "n".repeat(65), naming: "exact" }, "name", /at most 64/],
    ["no entity", { organization: undefined }, "organization", /exactly one of organization, repository, enterprise or entityId/],
    ["two entities", { repository: "acme/app" }, "repository", /organization and repository are all set/],
    ["a repository without owner", { organization: undefined, repository: "app" }, "repository", /"owner\/name"/],
    ["an entityId that is no UUID", { organization: undefined, entityId: "12" }, "entityId", /UUID/],
    ["a negative maxRunners", { maxRunners: -1, minIdleRunners: 0 }, "maxRunners", /maxRunners is -1; it must not be negative/],
    ["minIdleRunners above a parked maxRunners 0", { maxRunners: 0, minIdleRunners: 1 }, "minIdleRunners", /minIdleRunners \(1\) must be at most maxRunners \(0\)/],
    ["minIdleRunners above maxRunners", { minIdleRunners: 5 }, "minIdleRunners", /minIdleRunners \(5\) must be at most maxRunners \(4\)/],
    ["a negative minIdleRunners", { minIdleRunners: -1 }, "minIdleRunners", /must not be negative/],
    ["a fractional maxRunners", { maxRunners: 1.5 }, "maxRunners", /maxRunners is 1\.5; it must be a whole number/],
    ["a missing image", { image: undefined }, "image", /image is required/],
    ["an empty flavor", { flavor: "" }, "flavor", /flavor must not be empty/],
    ["an empty providerName", { providerName: "" }, "providerName", /providerName must not be empty/],
    ["an unknown osType", { osType: "macos" }, "osType", /osType/],
    ["an unknown osArch", { osArch: "sparc" }, "osArch", /osArch/],
    ["an empty label", { labels: ["linux", ""] }, "labels[1]", /labels\[1\] must not be empty/],
    ["a label with a comma", { labels: ["linux,x64"] }, "labels[0]", /commas or spaces/],
    ["a label over 64 characters", { labels: ["l".repeat(65)] }, "labels[0]", /longer than 64/],
    ["duplicate labels differing in case", { labels: ["linux", "Linux"] }, "labels", /labels repeat "Linux"/],
    ["extraSpecs that is not JSON", { extraSpecs: "{nope" }, "extraSpecs", /not valid JSON/],
    ["extraSpecs that is a JSON array", { extraSpecs: "[1]" }, "extraSpecs", /must be a JSON object/],
    ["a zero bootstrap timeout", { runnerBootstrapTimeout: 0 }, "runnerBootstrapTimeout", /at least 1/],
    ["a misspelt input", { maxRunner: 3 }, "maxRunner", /unknown input "maxRunner"/],
    ["a drain timeout of 0", { drain: { timeoutSeconds: 0 } }, "drain.timeoutSeconds", /drain\.timeoutSeconds/],
    ["an unknown naming", { naming: "short" }, "naming", /naming/],
  ];
  for (const [what, overrides, property, reason] of cases) {
    it(`rejects ${what}, naming ${property}`, () => {
      const failures = failuresOf(overrides);
      const hit = failures.find((f) => f.property === property);
      assert.ok(hit, `no failure for ${property} in ${JSON.stringify(failures)}`);
      assert.match(hit.reason, reason);
    });
  }

  it("accepts a scale set parked at maxRunners 0, as GARM's update holds it (issue 34 item 1)", () => {
    const { failures, inputs } = checkScaleSetInputs({ ...valid, maxRunners: 0, minIdleRunners: 0, enabled: false });
    assert.deepEqual(failures, []);
    assert.equal(inputs.maxRunners, 0);
  });

  it("returns the inputs unchanged when it fails, so nothing the user wrote is lost", () => {
    const news = { ...valid, maxRunners: -2 };
    assert.equal(checkScaleSetInputs(news).inputs, news);
  });

  it("tolerates unknown values during preview and checks the rest", () => {
    const { failures, inputs } = checkScaleSetInputs({ ...valid, providerName: UNKNOWN, labels: ["linux", UNKNOWN], maxRunners: UNKNOWN });
    assert.deepEqual(failures, []);
    assert.equal(inputs.providerName, UNKNOWN);
    assert.deepEqual(inputs.labels, ["linux", UNKNOWN]);
    assert.equal(failuresOf({ providerName: UNKNOWN, image: "" })[0].property, "image");
  });

  it("accepts extraSpecs as an object or a JSON string of one", () => {
    assert.deepEqual(failuresOf({ extraSpecs: { disk: 50 } }), []);
    assert.deepEqual(failuresOf({ extraSpecs: '{"disk": 50}' }), []);
  });
});
