// Outputs derived from a secret are secret in both front doors (issue 23 item 8, issue 27 item 7), so `stack export`
// holds no digest in clear: the dynamic SDK classes declare them additionalSecretOutputs (the engine then encrypts them
// on every step, also in state written before), and schema.json marks them secret for the plugin's generated SDKs.
// The plugin's own marking is tested over its protocol (test/integration/plugin/forge.test.ts).
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { secretFieldsOf } from "../../provider/common/secret-inputs";
import { BOUND_KINDS } from "../../provider/registry/implementations";
import type { z } from "zod";

const CREDENTIALS_SECRET_OUTPUTS = ["secretSalt", "secretDigest"];
const ENTITY_SECRET_OUTPUTS = ["webhookSecretHash", "webhookSecretSalt"];
import { GarmCredentials } from "../../sdk/nodejs/credentials";
import { GarmEnterprise, GarmOrganization, GarmRepository } from "../../sdk/nodejs/entity";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtimeResource = require("@pulumi/pulumi/runtime/resource") as { registerResource: (...args: unknown[]) => void };

describe("outputs derived from a secret", function () {
  this.timeout(20_000);
  const declared = new Map<string, string[]>();
  let original: (...args: unknown[]) => void;

  before(async () => {
    await pulumi.runtime.setMocks({ newResource: (args) => ({ id: args.name, state: args.inputs }), call: (args) => args.inputs }, "p", "s", true);
    original = runtimeResource.registerResource;
    runtimeResource.registerResource = (...args: unknown[]) => {
      const [, , type, , , , , , opts] = args as [unknown, unknown, string, unknown, unknown, unknown, unknown, unknown, pulumi.CustomResourceOptions];
      declared.set(type, (opts.additionalSecretOutputs ?? []) as string[]);
      return original(...args);
    };
    new GarmCredentials("c", { name: "c", endpoint: "github.com", token: "t" });
    new GarmOrganization("o", { name: "acme", credentials: "c", webhookSecret: "s" });
    new GarmRepository("r", { name: "acme/app", credentials: "c", webhookSecret: "s" });
    new GarmEnterprise("e", { name: "acme-ent", credentials: "c", webhookSecret: "s" });
  });

  after(() => {
    runtimeResource.registerResource = original;
  });

  it("the registry keeps every input the schemas declare secret as a secret", () => {
    for (const row of BOUND_KINDS) {
      for (const field of secretFieldsOf(row.impl.inputSchema as z.ZodObject)) assert.ok(row.secrets.includes(field as never), `${row.sdkClass}: ${field}`);
    }
  });

  const kinds: [string, readonly string[]][] = [
    ["GarmCredentials", CREDENTIALS_SECRET_OUTPUTS],
    ["GarmOrganization", ENTITY_SECRET_OUTPUTS],
    ["GarmRepository", ENTITY_SECRET_OUTPUTS],
    ["GarmEnterprise", ENTITY_SECRET_OUTPUTS],
  ];
  for (const [type, outputs] of kinds) {
    it(`${type}: the SDK class declares ${outputs.join(" and ")} secret`, () => {
      const got = declared.get(`garm:${type}`) ?? [...declared.entries()].find(([t]) => t.endsWith(type))?.[1];
      assert.ok(got, `no registration of ${type}: ${[...declared.keys()].join(", ")}`);
      for (const output of outputs) assert.ok(got.includes(output), `${output} is not declared secret: ${got.join(", ")}`);
    });

    it(`${type}: schema.json marks ${outputs.join(" and ")} secret`, () => {
      const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "schema.json"), "utf8")) as { resources: Record<string, { properties: Record<string, { secret?: boolean }> }> };
      const properties = schema.resources[`garm:index:${type}`]!.properties;
      for (const output of outputs) assert.equal(properties[output]?.secret, true, `${output} in ${JSON.stringify(properties[output])}`);
    });
  }
});
