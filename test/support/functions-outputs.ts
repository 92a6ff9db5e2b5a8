// What the functions examples (examples/functions, functions-yaml, functions-python) export after `up` against the
// GARM simulator: the same answers in every language.
import { strict as assert } from "node:assert";
import type { Simulator } from "../../simulator";

/** Checks a functions example's stack outputs against what the simulator holds: its controller, org and scale set. */
export function assertFunctionsOutputs(out: Record<string, unknown>, sim: Simulator): void {
  const [scaleSet] = sim.scaleSets();
  assert.ok(scaleSet, "the scale set is in GARM");
  assert.equal(out.webhookUrl, `${sim.url}/webhooks/${sim.controllerId()}`);
  assert.equal(out.organizationId, sim.organizationId);
  assert.equal(out.templateName, "github_linux");
  assert.equal(out.liveName, scaleSet.name);
  assert.match(String(out.liveName), /^ci-small-[0-9a-f]{8}$/);
  assert.ok(Array.isArray(out.runners), JSON.stringify(out.runners));
}
