// A GarmProvider's restart marks the restart window of the GARM its own instance reaches: the garm plugin's instances
// (and a TypeScript resource's `garm` connection) reach GARMs the process's stack config does not name, and the
// transport of that GARM's client waits through that GARM's window only (restart-window.ts restartWindowsFor).
import { strict as assert } from "node:assert";
import { resetConnection } from "../../../provider/common/connection";
import { GarmClient } from "../../../provider/garm/client";
import { restartWindowsFor } from "../../../provider/garm/restart-window";
import { garmProviderWith } from "../../../provider/kinds/garm-provider/resource";
import { type SimulatedHost, startSimulatedHost } from "../../../scripts/demo/host";

describe("a GarmProvider instance's restart and the window of its own GARM", function () {
  this.timeout(60_000);
  let host: SimulatedHost;
  let client: GarmClient;
  const savedEnv = { ...process.env };

  before(async () => {
    // Like a plugin process: no stack config and no GARM_* variables; the instance's client is all there is.
    for (const key of ["GARM_URL", "GARM_USERNAME", "GARM_PASSWORD"]) delete process.env[key];
    resetConnection();
    host = await startSimulatedHost({ prefix: "pulumi-garm-it-restart-window-" });
    client = new GarmClient({ url: host.sim.url, username: host.sim.username, password: host.sim.password });
  });
  after(async () => {
    process.env = savedEnv;
    await client?.close();
    await host?.close();
  });

  it("is open while the instance's create restarts that GARM, and closed once GARM answered after it", async () => {
    const impl = garmProviderWith(() => client, () => undefined);
    const inputs = {
      name: "regional",
      executable: host.providerExecutable,
      garmConfigPath: host.garmConfigPath,
      restartCommand: String(host.stackConfig.restartCommand),
      restartTimeoutSeconds: 30,
    };
    const checked = (await impl.check!({}, inputs)).inputs!;
    let seenOpen = false;
    const watching = setInterval(() => {
      if (restartWindowsFor(host.sim.url).current()) seenOpen = true;
    }, 5);
    try {
      await impl.create(checked);
    } finally {
      clearInterval(watching);
    }
    assert.equal(host.restarts(), 1);
    assert.ok(seenOpen, "the restart opened no window of the GARM the instance reaches");
    assert.equal(restartWindowsFor(host.sim.url).current(), undefined, "GARM answered after the restart: the window is closed");
    await impl.delete!("regional", { ...checked });
  });
});
