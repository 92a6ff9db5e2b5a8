// Issue 34's gate on real GARM v0.2.1: the team's GARM filled over REST (populateTeamGarm), the README's walk-through as
// written in YAML and TypeScript, the label, extra-specs and template changes, one destroy (team-scenario.ts; the same
// scenario runs on the simulator in test/integration/plugin/team-garm.test.ts).
import { locateGarm } from "../../harness/real-garm";
import { type E2eEnvironment, startE2eEnvironment } from "../../harness/real-garm/environment";
import { runTeamScenario } from "../integration/plugin/team-scenario";

describe("e2e: a team's GARM on real GARM v0.2.1: imported by the README's walk-through in YAML, TypeScript and Python, changed, destroyed", function () {
  this.timeout(900_000);
  let env: E2eEnvironment | undefined;

  before(function () {
    try {
      locateGarm();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  after(async () => {
    await env?.stop();
  });

  it("imports every case with no change, takes label changes on a hashed and an exact scale set, an extra-specs and a template edit, and one destroy leaves GARM's own objects", async () => {
    env = await startE2eEnvironment();
    await runTeamScenario({ url: env.garm.url, username: env.garm.username, password: env.garm.password });
  });
});
