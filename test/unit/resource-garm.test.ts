// A resource's own GARM (provider/resource-garm.ts): the `garm` input is checked at preview naming its field, every
// method runs against the GARM the resource names, the connection is stored, and a new connection alone is stored
// without a call to the kind's update.
import { strict as assert } from "node:assert";
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { garmClient, resetConnection } from "../../provider/common/connection";
import type { garmConnectionSchema } from "../../provider/common/garm-connection-input";
import type { GarmConnectionArgs } from "../../sdk/nodejs/garm-connection";
import { UNKNOWN } from "../../provider/common/unknown";
import { userFacing } from "../../provider/common/user-facing";
import { GARM_CONNECTION_SECRET_PATHS, inItsOwnGarm } from "../../provider/resource-garm";

type Props = Record<string, unknown>;

// The SDK's hand-written GarmConnectionArgs (the program's package loads no zod) names exactly the schema's fields:
// this line stops compiling when one gains a field the other lacks.
type SchemaFields = keyof z.input<typeof garmConnectionSchema>;
const SAME_FIELDS: [Exclude<keyof GarmConnectionArgs, SchemaFields>, Exclude<SchemaFields, keyof GarmConnectionArgs>] extends [never, never] ? true : false = true;

const EU = { url: "https://garm-eu.example:9997", username: "admin", password: "eu-Passw0rd-1" };
const US = { url: "https://garm-us.example:9997", username: "admin", password: "us-Passw0rd-1" };

/** Where each call of the kind ran: the URL garmClient() reached, or "none" when it has no client to give. */
function reached(): string {
  try {
    return garmClient().garmUrl;
  } catch {
    return "none";
  }
}

const STACK_URL = "https://garm-stack.example:9997";
/** The stack's GARM, as GARM_* variables give it to the provider process. */
function stackGarm(): void {
  process.env.GARM_URL = STACK_URL;
  process.env.GARM_USERNAME = "admin";
  process.env.GARM_PASSWORD = "stack-Passw0rd";
}

/** A kind that records each call with the GARM it ran in, and the inputs it saw. */
function kind(calls: string[], seen: Props[], changes = true): pulumi.dynamic.ResourceProvider {
  return {
    check: async (_olds: Props, news: Props) => (calls.push(`check ${reached()}`), seen.push(news), { inputs: { ...news, checked: true } }),
    create: async (inputs: Props) => (calls.push(`create ${reached()}`), seen.push(inputs), { id: "7", outs: { ...inputs, made: true } }),
    read: async (id: string, props: Props) => (calls.push(`read ${reached()}`), seen.push(props), { id, props: { ...props, read: true } }),
    diff: async (_id: string, olds: Props, news: Props) => (calls.push(`diff ${reached()}`), seen.push(olds, news), { changes }),
    update: async (_id: string, olds: Props, news: Props) => (calls.push(`update ${reached()}`), seen.push(olds, news), { outs: { ...news, updated: true } }),
    delete: async (_id: string, props: Props) => void (calls.push(`delete ${reached()}`), seen.push(props)),
  };
}

describe("a resource's own GARM (the garm input)", () => {
  it("is described by the SDK with the fields the provider checks", () => assert.equal(SAME_FIELDS, true));

  const savedEnv = { ...process.env };
  beforeEach(() => {
    resetConnection();
    for (const key of ["GARM_URL", "GARM_USERNAME", "GARM_PASSWORD"]) delete process.env[key];
  });
  after(() => {
    process.env = savedEnv;
    resetConnection();
  });

  it("runs every method in the GARM the resource names, and no kind method sees the connection", async () => {
    const calls: string[] = [];
    const seen: Props[] = [];
    stackGarm();
    const p = inItsOwnGarm(kind(calls, seen));
    const checked = await p.check!({}, { name: "ci", garm: EU });
    assert.deepEqual(checked.failures ?? [], []);
    assert.deepEqual(checked.inputs, { name: "ci", checked: true, garm: EU }, "the checked inputs keep the connection");
    const created = await p.create(checked.inputs);
    assert.deepEqual(created.outs, { name: "ci", checked: true, made: true, garm: EU }, "the outputs keep it, for delete and refresh");
    const read = await p.read!("7", created.outs);
    assert.equal(read.props!.garm, created.outs.garm);
    await p.diff!("7", created.outs, { name: "ci2", garm: EU });
    await p.update!("7", created.outs, { name: "ci2", garm: EU });
    await p.delete!("7", { ...created.outs, garm: US });
    assert.deepEqual(calls, [
      `check ${STACK_URL}`, // check reads no GARM
      `create ${EU.url}`,
      `read ${EU.url}`,
      `diff ${EU.url}`,
      `update ${EU.url}`, // the same connection: straight to the kind's update, no second diff
      `delete ${US.url}`, // the stored connection decides
    ]);
    assert.ok(seen.every((props) => !("garm" in props)), JSON.stringify(seen));
  });

  it("runs a resource that names no GARM in the stack's", async () => {
    stackGarm();
    const calls: string[] = [];
    const p = inItsOwnGarm(kind(calls, []));
    await p.create({ name: "ci" });
    await p.delete!("7", { name: "ci" });
    assert.deepEqual(calls, [`create ${STACK_URL}`, `delete ${STACK_URL}`]);
  });

  it("diff by the new connection: a diff sees the GARM the resource is moved to, so the identity check can refuse another GARM", async () => {
    const calls: string[] = [];
    const p = inItsOwnGarm(kind(calls, [], false));
    await p.diff!("7", { name: "ci", garm: EU }, { name: "ci", garm: US });
    assert.deepEqual(calls, [`diff ${US.url}`]);
  });

  it("a new URL or password alone is a change that the update stores without calling the kind's update", async () => {
    const calls: string[] = [];
    const p = inItsOwnGarm(kind(calls, [], false));
    const olds = { name: "ci", scaleSetId: 7, garm: EU };
    const moved = { ...EU, url: "https://garm-eu-2.example:9997" };
    const planned = await p.diff!("7", olds, { name: "ci", garm: moved });
    assert.equal(planned.changes, true);
    assert.deepEqual((planned as unknown as { fields: Props }).fields.garm, { kind: "update", replaces: false, oldFromInputs: false });
    assert.equal((await p.diff!("7", olds, { name: "ci", garm: { ...EU } })).changes, false, "the same connection is no change");
    calls.length = 0;
    const updated = await p.update!("7", olds, { name: "ci", garm: moved });
    assert.deepEqual(updated.outs, { name: "ci", scaleSetId: 7, garm: moved });
    assert.deepEqual(calls, [`diff ${moved.url}`], "GARM is not written to for a new connection alone");
    const rotated = await p.update!("7", olds, { name: "ci", garm: { ...EU, password: "new-Passw0rd-2" } });
    assert.equal((rotated.outs!.garm as Props).password, "new-Passw0rd-2", "a rotated password reaches the state, where delete reads it");
  });

  it("giving a GARM to a resource that used the stack's, or taking it away, is a change too", async () => {
    const p = inItsOwnGarm(kind([], [], false));
    assert.deepEqual((await p.diff!("7", { name: "ci" }, { name: "ci", garm: EU }) as unknown as { fields: Props }).fields.garm, { kind: "add", replaces: false, oldFromInputs: false });
    assert.deepEqual((await p.diff!("7", { name: "ci", garm: EU }, { name: "ci" }) as unknown as { fields: Props }).fields.garm, { kind: "delete", replaces: false, oldFromInputs: false });
  });

  for (const [what, garm, property, reason] of [
    ["a URL that is not one", { ...EU, url: "garm-eu" }, "garm.url", /garm\.url "garm-eu" is not a URL/],
    ["a URL with /api/v1", { ...EU, url: "https://garm-eu.example:9997/api/v1" }, "garm.url", /ends in \/api\/v1.*set garm\.url to https:\/\/garm-eu\.example:9997/],
    ["plain http to a remote GARM", { ...EU, url: "http://garm-eu.example:9997" }, "garm.url", /password unencrypted.*set garm\.insecure to true/],
    ["no password", { url: EU.url, username: "admin" }, "garm.password", /expected string/],
    ["an empty username", { ...EU, username: " " }, "garm.username", /must name a GARM admin user/],
    ["a setting that does not exist", { ...EU, port: 9997 }, "garm.port", /is not a connection setting/],
    ["both caCert and caCertFile", { ...EU, caCert: "PEM", caCertFile: "/etc/ca.pem" }, "garm.caCert", /not both/],
    ["a caCertFile that cannot be read", { ...EU, caCertFile: "/nonexistent/ca.pem" }, "garm.caCertFile", /garm\.caCertFile "\/nonexistent\/ca\.pem" cannot be read/],
  ] as const) {
    it(`check refuses ${what} at preview, naming ${property}`, async () => {
      const p = inItsOwnGarm(kind([], []));
      const checked = await p.check!({}, { name: "ci", garm });
      const failure = (checked.failures ?? []).find((f) => f.property === property);
      assert.ok(failure, JSON.stringify(checked.failures));
      assert.match(failure.reason, reason);
      assert.doesNotMatch(JSON.stringify(checked.failures), new RegExp(EU.password));
    });
  }

  it("check takes a connection not known yet at preview, and plain http to this machine", async () => {
    const p = inItsOwnGarm(kind([], []));
    assert.deepEqual((await p.check!({}, { name: "ci", garm: { ...EU, url: UNKNOWN } })).failures ?? [], []);
    assert.deepEqual((await p.check!({}, { name: "ci", garm: { ...EU, url: "http://127.0.0.1:9997" } })).failures ?? [], []);
  });

  it("a connection not known yet reaches no GARM in its place, not even the stack's", async () => {
    stackGarm();
    const calls: string[] = [];
    const p = inItsOwnGarm(kind(calls, [], false));
    await p.diff!("7", { name: "ci", garm: EU }, { name: "ci", garm: { ...EU, url: UNKNOWN } });
    assert.deepEqual(calls, ["diff none"], "the diff runs with no client at all");
  });

  it("no error quotes the connection's password", async () => {
    const leaking = { ...kind([], []), create: async () => Promise.reject(new Error(`login as admin with ${EU.password} refused`)) };
    const p = userFacing(inItsOwnGarm(leaking), GARM_CONNECTION_SECRET_PATHS);
    await assert.rejects(p.create({ name: "ci", garm: EU }), (err: Error) => !err.message.includes(EU.password) && err.message.includes("[secret]"));
  });
});
