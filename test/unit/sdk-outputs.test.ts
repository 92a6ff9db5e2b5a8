// Every output the registry lists for a kind exists on its SDK class at run time (issue 23 item 12): Pulumi makes an
// Output only for a key the constructor passes, so a declared output the class did not pass was `undefined` and
// `pool.templateId.apply(...)` threw a TypeError. Each class is built with only its required inputs under Pulumi's mocks.
import { strict as assert } from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import * as sdk from "../../sdk/nodejs";
import { KINDS, type KindKey, type OutputOf } from "../../provider/registry/kinds";

/** The least each kind takes: its required inputs. */
const REQUIRED: Record<KindKey, Record<string, unknown>> = {
  scaleSet: { name: "ci", providerName: "fake", image: "img", flavor: "small", labels: ["linux"], maxRunners: 1 },
  garmProvider: { name: "fake", executable: "/bin/true", garmConfigPath: "/etc/garm/config.toml", restartCommand: "true" },
  endpoint: { name: "ghe", baseUrl: "https://ghe.example.com", apiBaseUrl: "https://ghe.example.com/api/v3/" },
  credentials: { name: "pat", endpoint: "github.com" },
  organization: { name: "acme", credentials: "pat", webhookSecret: "s3cret" },
  repository: { name: "acme/app", credentials: "pat", webhookSecret: "s3cret" },
  enterprise: { name: "acme-ent", credentials: "pat", webhookSecret: "s3cret" },
  controller: {},
  template: { name: "t" },
  pool: { providerName: "fake", image: "img", flavor: "small", labels: ["linux"], maxRunners: 1 },
};

// At compile time too: a name the registry lists that a class does not declare names itself in the error.
type Undeclared<C, K extends KindKey> = [Exclude<OutputOf<K>, keyof C>] extends [never] ? true : Exclude<OutputOf<K>, keyof C>;
export const EVERY_OUTPUT_DECLARED: { [K in KindKey]: true } = {
  scaleSet: true as Undeclared<sdk.GarmScaleSet, "scaleSet">,
  garmProvider: true as Undeclared<sdk.GarmProvider, "garmProvider">,
  endpoint: true as Undeclared<sdk.GarmEndpoint, "endpoint">,
  credentials: true as Undeclared<sdk.GarmCredentials, "credentials">,
  organization: true as Undeclared<sdk.GarmOrganization, "organization">,
  repository: true as Undeclared<sdk.GarmRepository, "repository">,
  enterprise: true as Undeclared<sdk.GarmEnterprise, "enterprise">,
  controller: true as Undeclared<sdk.GarmController, "controller">,
  template: true as Undeclared<sdk.GarmTemplate, "template">,
  pool: true as Undeclared<sdk.GarmPool, "pool">,
};

/** What the mock engine answers for an output the program did not give. */
const computed = (name: string) => `computed ${name}`;

const valueOf = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply((v) => resolve(v)));

describe("SDK classes: every output the registry lists exists at run time", function () {
  this.timeout(30_000);
  before(() =>
    pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          const state: Record<string, unknown> = { ...(args.inputs as Record<string, unknown>) };
          const row = KINDS.find((k) => args.type.endsWith(`:${k.sdkClass}`));
          for (const name of row?.outputs ?? []) if (state[name] === undefined) state[name] = computed(name);
          return { id: `${args.name}-id`, state };
        },
        call: (args) => args.inputs,
      },
      "sdk-outputs",
      "test",
      false,
    ),
  );

  for (const row of KINDS) {
    it(`${row.sdkClass}, built with only its required inputs, has an Output for each of its ${row.outputs.length} outputs`, async () => {
      const Class = (sdk as unknown as Record<string, new (name: string, args: object) => pulumi.CustomResource>)[row.sdkClass];
      assert.equal(typeof Class, "function", `the SDK exports no class ${row.sdkClass}`);
      const resource = Class.prototype instanceof pulumi.dynamic.Resource ? new Class(row.key, REQUIRED[row.key]) : assert.fail(`${row.sdkClass} is not a dynamic resource`);
      const missing = row.outputs.filter((name) => !pulumi.Output.isInstance((resource as unknown as Record<string, unknown>)[name]));
      assert.deepEqual(missing, [], `${row.sdkClass} has no Output for ${missing.join(", ")}`);
      for (const name of row.outputs) {
        const value = await valueOf((resource as unknown as Record<string, pulumi.Output<unknown>>)[name]);
        const given = REQUIRED[row.key][name];
        if (given !== undefined) assert.deepEqual(value, given, `${row.sdkClass}.${name}`);
        else if (name !== "owner") assert.equal(value, computed(name), `${row.sdkClass}.${name}`);
      }
    });
  }

  it("reads the outputs the defect named: a pool's templateId, entityId and enabled, a controller's webhookUrl, a template's body", async () => {
    const pool = new sdk.GarmPool("p", REQUIRED.pool as unknown as sdk.GarmPoolArgs);
    assert.equal(await valueOf(pool.templateId.apply((id) => `template ${id}`)), `template ${computed("templateId")}`);
    assert.equal(await valueOf(pool.entityId), computed("entityId"));
    assert.equal(await valueOf(pool.enabled), computed("enabled"));
    const controller = new sdk.GarmController("c", {});
    assert.equal(await valueOf(controller.webhookUrl), computed("webhookUrl"));
    const template = new sdk.GarmTemplate("t", { name: "t", bodyFile: "/tmp/body.sh" });
    assert.equal(await valueOf(template.body), computed("body"));
  });
});
