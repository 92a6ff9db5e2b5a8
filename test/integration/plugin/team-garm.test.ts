// Issue 34's gate on the simulator: a team's GARM filled over REST, taken over by the README's walk-through as written,
// changed and destroyed with the real CLI (the scenario in team-scenario.ts; test/e2e/team-garm-real-garm.test.ts runs
// it on real GARM v0.2.1).
import { startSimulatedHost } from "../../../scripts/demo/host";
import { handWriteFakeProvider } from "./imported-lifecycle";
import { runTeamScenario } from "./team-scenario";

describe("a team's GARM (simulator): imported by the README's walk-through in YAML, TypeScript and Python, changed, destroyed", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("imports every case with no change, takes label changes on a hashed and an exact scale set, an extra-specs and a template edit, and one destroy leaves GARM's own objects", async () => {
    const host = await startSimulatedHost({ prefix: "pulumi-garm-team-", tickMs: 0 });
    cleanup.push(() => host.close());
    await handWriteFakeProvider(host);
    await runTeamScenario({ url: host.sim.url, username: host.sim.username, password: host.sim.password });
  });
});
