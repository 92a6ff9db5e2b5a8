// The GarmProvider SDK class passes its owner (Pulumi project, stack and resource name) as an input, since a dynamic
// provider never learns the resource's URN (issue 10 item 5).
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { GarmProvider } from "../../../sdk/nodejs/garm-provider";

describe("GarmProvider SDK class", function () {
  this.timeout(20_000);

  it("passes the project, stack and resource name as owner", async () => {
    const seen: Record<string, unknown>[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          seen.push(args.inputs as Record<string, unknown>);
          return { id: args.name, state: args.inputs };
        },
        call: (args) => args.inputs,
      },
      "garm-infra",
      "prod",
      true,
    );
    const p = new GarmProvider("openstack-provider", {
      name: "openstack",
      executable: "/usr/local/bin/garm-provider-openstack",
      garmConfigPath: "/etc/garm/config.toml",
      restartCommand: "systemctl restart garm",
    });
    await new Promise<void>((resolve) => p.urn.apply(() => resolve()));
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0].owner, { project: "garm-infra", stack: "prod", resource: "openstack-provider" });
  });
});
