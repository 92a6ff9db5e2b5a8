// No check failure shows a secret input's value, whatever its type (issue 23 item 7): Pulumi prints check failures
// unmasked. Every secret input of every kind, through the dynamic provider's own check methods.
import { strict as assert } from "node:assert";
import type * as pulumi from "@pulumi/pulumi";
import * as front from "../../provider";
import { secretFieldsOf } from "../../provider/common/secret-inputs";
import { controllerInputSchema } from "../../provider/kinds/controller/inputs";
import { credentialsInputSchema } from "../../provider/kinds/credentials/inputs";
import { endpointInputSchema } from "../../provider/kinds/endpoint/inputs";
import { entityInputSchema } from "../../provider/kinds/entity/inputs";
import { poolInputSchema } from "../../provider/kinds/pool/inputs";
import { scaleSetInputSchema } from "../../provider/kinds/scaleset/inputs";
import { templateInputSchema } from "../../provider/kinds/template/inputs";
import { userFacing } from "../../provider/common/user-facing";
import { BOUND_KINDS } from "../../provider/registry/implementations";
import { credentialsProviderWith } from "../../provider/kinds/credentials/resource";
import { entityMethodsWith } from "../../provider/kinds/entity/resource";
import { GarmClient } from "../../provider/garm/client";

/** Distinct enough that no ordinary message word holds them. */
const SECRET_TEXT = "Zq7-s3cret-v4lue";
const SECRET_NUMBER = 987654321;

/** Values a program or stack config can hand a secret input by mistake, each with the text that must never appear. */
const BAD_VALUES: [string, unknown, string[]][] = [
  ["a number (from config)", SECRET_NUMBER, [String(SECRET_NUMBER)]],
  ["an object", { value: SECRET_TEXT }, [SECRET_TEXT]],
  ["a list", [SECRET_TEXT, SECRET_NUMBER], [SECRET_TEXT, String(SECRET_NUMBER)]],
  ["a string a rule refuses", ` ${SECRET_TEXT} not PEM `, [SECRET_TEXT]],
  ["a big integer as text", "123456789012345678901234567890", ["123456789012345678901234567890"]],
];

interface SecretInput {
  readonly what: string;
  readonly provider: pulumi.dynamic.ResourceProvider;
  readonly field: string;
  readonly base: Record<string, unknown>;
}

const ENTITY = { credentials: "acme-pat", webhookSecret: "ok-secret" };
const SECRET_INPUTS: SecretInput[] = [
  { what: "a GitHub personal access token", provider: front.credentials, field: "token", base: { name: "pat", endpoint: "github.com", token: "x" } },
  { what: "a Gitea token", provider: front.credentials, field: "token", base: { forge: "gitea", name: "gitea-pat", endpoint: "gitea", token: "x" } },
  { what: "a GitHub App private key", provider: front.credentials, field: "privateKey", base: { name: "app", endpoint: "github.com", appId: 1, installationId: 2 } },
  { what: "an organization's webhook secret", provider: front.organization, field: "webhookSecret", base: { name: "acme", ...ENTITY } },
  { what: "a repository's webhook secret", provider: front.repository, field: "webhookSecret", base: { name: "acme/app", ...ENTITY } },
  { what: "an enterprise's webhook secret", provider: front.enterprise, field: "webhookSecret", base: { name: "acme-ent", ...ENTITY } },
];

describe("check never shows a secret input's value", () => {
  it("knows every secret input of every kind from its schema", () => {
    const declared = {
      credentials: secretFieldsOf(credentialsInputSchema),
      organization: secretFieldsOf(entityInputSchema("organization")),
      repository: secretFieldsOf(entityInputSchema("repository")),
      enterprise: secretFieldsOf(entityInputSchema("enterprise")),
      endpoint: secretFieldsOf(endpointInputSchema),
      controller: secretFieldsOf(controllerInputSchema),
      scaleSet: secretFieldsOf(scaleSetInputSchema),
      pool: secretFieldsOf(poolInputSchema),
      template: secretFieldsOf(templateInputSchema),
    };
    assert.deepEqual(declared, {
      credentials: ["token", "privateKey"],
      organization: ["webhookSecret"],
      repository: ["webhookSecret"],
      enterprise: ["webhookSecret"],
      endpoint: [],
      controller: [],
      scaleSet: [],
      pool: [],
      template: [],
    });
  });

  for (const input of SECRET_INPUTS) {
    for (const [kind, value, forbidden] of BAD_VALUES) {
      it(`${input.what} given as ${kind}: no failure shows the value`, async () => {
        // Another field fails too, so the secret's failure is not the only text that could leak it.
        const result = await input.provider.check!({}, { ...input.base, [input.field]: value, adoptExisting: "maybe" });
        const failures = result.failures ?? [];
        assert.ok(failures.some((f) => f.property === "adoptExisting"), JSON.stringify(failures));
        // A string is the type a secret must have; other types fail on the field itself.
        if (typeof value !== "string") assert.ok(failures.some((f) => f.property === input.field), `no failure names ${input.field}: ${JSON.stringify(failures)}`);
        for (const text of forbidden) assert.ok(!JSON.stringify(failures).includes(text), `the failures show the secret: ${JSON.stringify(failures)}`);
      });
    }
  }

  it("says what kind of value a secret field got, so the user can still find the mistake", async () => {
    const result = await front.organization.check!({}, { name: "acme", credentials: "c", webhookSecret: SECRET_NUMBER });
    assert.deepEqual(result.failures, [
      { property: "webhookSecret", reason: "webhookSecret is a number (the value is secret, so it is not shown); it must be a string" },
    ]);
  });
});

describe("no error shows a secret input's value", () => {
  /** A GARM whose every answer is a 400 quoting the request it got, as an upstream error could. */
  const echoingGarm = () => {
    return GarmClient.inProcess({
      baseUrl: "http://garm.test/api/v1",
      fetch: async (req) => {
        const sent = req.method === "GET" ? "" : (req.body ?? "");
        return new Response(JSON.stringify({ error: "Bad Request", details: `refused ${sent}` }), { status: 400 });
      },
    });
  };
  const quiet = { info() {}, warn() {} };

  it("GarmCredentials: a GARM answer quoting the token is passed on without it", async () => {
    const provider = userFacing(credentialsProviderWith({ client: echoingGarm as never, log: quiet }), secretFieldsOf(credentialsInputSchema));
    const inputs = { forge: "github", name: "pat", description: "", endpoint: "github.com", authType: "pat", token: "ghp_quoted_by_garm", adoptExisting: false };
    const err = (await provider.create(inputs).then(() => undefined, (e: unknown) => e)) as Error;
    assert.ok(err instanceof Error, "create fails");
    assert.ok(!err.message.includes("ghp_quoted_by_garm"), err.message);
    assert.match(err.message, /\[secret\]/);
  });

  it("GarmOrganization: a GARM answer quoting the webhook secret is passed on without it", async () => {
    const provider = userFacing(entityMethodsWith("organization", { client: echoingGarm as never, log: quiet }) as never, secretFieldsOf(entityInputSchema("organization")));
    const inputs = { name: "acme", credentials: "acme-pat", webhookSecret: "hook-quoted-by-garm", poolBalancerType: "roundrobin", agentMode: false, installWebhook: false, keepWebhookOnDelete: false, adoptExisting: true };
    const err = (await provider.update!("6c1b2f6e-0000-4000-8000-000000000001", { ...inputs, webhookSecret: undefined, webhookSecretHash: "", webhookSecretSalt: "", stateVersion: 2 }, inputs).then(() => undefined, (e: unknown) => e)) as Error;
    assert.ok(err instanceof Error, "update fails");
    assert.ok(!err.message.includes("hook-quoted-by-garm"), err.message);
  });

  it("GarmProvider: an error quoting a key or password of its connection (nested, also the proxy's) is passed on without it", async () => {
    const row = BOUND_KINDS.find((k) => k.key === "garmProvider")!;
    const failing = { create: async () => Promise.reject(new Error("ssh2 said: cannot parse key -----BEGIN key-text-here----- with passphrase pass-phrase-here, proxy pw proxy-password-here")) };
    const provider = userFacing(failing as never, row.errorSecrets);
    const connection = { host: "garm.internal", privateKey: "-----BEGIN key-text-here-----", privateKeyPassword: "pass-phrase-here", proxy: { host: "bastion", password: "proxy-password-here" } };
    const err = (await provider.create({ name: "p", connection }).then(() => undefined, (e: unknown) => e)) as Error;
    assert.equal(err.message, "ssh2 said: cannot parse key [secret] with passphrase [secret], proxy pw [secret]");
  });
});
