// The GarmCredentials SDK class sends the token and private key as Pulumi secrets, so the state's copy of the inputs
// is encrypted, and marks the secret digest output secret too.
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { GarmCredentials } from "../../../sdk/nodejs/credentials";

describe("GarmCredentials SDK class", function () {
  this.timeout(20_000);

  it("wraps token and privateKey as secrets and declares the secret outputs", async () => {
    const seen: { inputs: Record<string, unknown>; secret: string[] }[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          seen.push({ inputs: args.inputs as Record<string, unknown>, secret: [] });
          return { id: args.name, state: args.inputs };
        },
        call: (args) => args.inputs,
      },
      "p",
      "s",
      true,
    );
    const c = new GarmCredentials("c", { name: "c", endpoint: "github.com", token: "ghp_plain" });
    await new Promise<void>((resolve) => c.urn.apply(() => resolve()));
    assert.equal(seen.length, 1);
    // The mock monitor receives secrets unwrapped; that the SDK marked it secret shows on the Output.
    const token = (c as unknown as { token: pulumi.Output<string> }).token;
    assert.equal(await (token as unknown as { isSecret: Promise<boolean> }).isSecret, true);
    const name = (c as unknown as { name: pulumi.Output<string> }).name;
    assert.equal(await (name as unknown as { isSecret: Promise<boolean> }).isSecret, false, "the check tells secret from plain");
  });
});
