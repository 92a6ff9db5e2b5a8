// A resource is acted on only in the GARM it lives in (issue 27 item 1): every method of a kind, wrapped by
// keptInItsGarm, records the controller id and refuses one recorded from another GARM, naming both.
import { strict as assert } from "node:assert";
import type * as pulumi from "@pulumi/pulumi";
import type { GarmClient } from "../../provider/garm/client";
import { GARM_IDENTITY_OUTPUT, OtherGarmError, keptInItsGarm } from "../../provider/common/garm-identity";

type Props = Record<string, unknown>;

/** A client of the GARM with controller `id`, or of one that does not answer. */
function garm(id: string | Error): GarmClient {
  return {
    garmUrl: "https://garm-b.example:9997",
    getController: async () => {
      if (id instanceof Error) throw id;
      return { controllerId: id, version: "v0.2.1" };
    },
  } as unknown as GarmClient;
}

/** A kind whose methods record the calls that reached it. */
function kind(calls: string[]): pulumi.dynamic.ResourceProvider {
  return {
    create: async (inputs: Props) => (calls.push("create"), { id: "7", outs: { ...inputs, made: true } }),
    read: async (id: string, props: Props) => (calls.push("read"), { id, props: { ...props, read: true } }),
    diff: async () => (calls.push("diff"), { changes: false }),
    update: async (_id: string, _olds: Props, news: Props) => (calls.push("update"), { outs: { ...news } }),
    delete: async () => void calls.push("delete"),
  };
}

const IN_A = { name: "ci", [GARM_IDENTITY_OUTPUT]: "controller-a" };

describe("the GARM a resource lives in", () => {
  it("is recorded by create, read and update", async () => {
    const p = keptInItsGarm(kind([]), () => garm("controller-a"));
    assert.equal((await p.create({ name: "ci" })).outs[GARM_IDENTITY_OUTPUT], "controller-a");
    assert.equal((await p.read!("7", { name: "ci" })).props![GARM_IDENTITY_OUTPUT], "controller-a", "a resource recorded before the output existed gains it");
    assert.equal((await p.update!("7", IN_A, { name: "ci2" })).outs![GARM_IDENTITY_OUTPUT], "controller-a");
  });

  it("is no reason to refuse when it is the GARM reached, whatever its URL", async () => {
    const calls: string[] = [];
    const p = keptInItsGarm(kind(calls), () => garm("controller-a"));
    await p.read!("7", IN_A);
    await p.diff!("7", IN_A, { name: "ci" });
    await p.update!("7", IN_A, { name: "ci" });
    await p.delete!("7", IN_A);
    assert.deepEqual(calls, ["read", "diff", "update", "delete"]);
  });

  for (const method of ["read", "diff", "update", "delete"] as const) {
    it(`refuses ${method} through a connection that reaches another GARM, naming both, and never calls the kind`, async () => {
      const calls: string[] = [];
      const p = keptInItsGarm(kind(calls), () => garm("controller-b"));
      const call = (p[method] as (...a: unknown[]) => Promise<unknown>).bind(p);
      await assert.rejects(
        method === "read" || method === "delete" ? call("7", IN_A) : call("7", IN_A, { name: "ci" }),
        (err: Error) => {
          assert.ok(err instanceof OtherGarmError);
          assert.match(err.message, /\(GARM id 7\) lives in GARM controller-a, but garm:url https:\/\/garm-b\.example:9997 reaches GARM controller-b/);
          assert.match(err.message, /Point garm:url back/);
          return true;
        },
      );
      assert.deepEqual(calls, []);
    });
  }

  it("lets the operation say why when GARM does not answer, keeping what was recorded", async () => {
    const calls: string[] = [];
    const p = keptInItsGarm(kind(calls), () => garm(new Error("ECONNREFUSED")));
    const out = await p.update!("7", IN_A, { name: "ci" });
    assert.equal(out.outs![GARM_IDENTITY_OUTPUT], "controller-a");
    const made = await p.create({ name: "new" });
    assert.equal(GARM_IDENTITY_OUTPUT in made.outs, false, "a create is kept in state without it rather than failing");
    assert.deepEqual(calls, ["update", "create"]);
  });

  it("lets diff run at preview when a connection setting is wrong, which the diff does not need", async () => {
    const calls: string[] = [];
    const p = keptInItsGarm(kind(calls), () => {
      throw new Error("garm:url is not set");
    });
    assert.deepEqual(await p.diff!("7", IN_A, { name: "ci" }), { changes: false });
    assert.deepEqual(calls, ["diff"]);
  });

  it("asks GARM once per client however many operations ask", async () => {
    let asked = 0;
    const client = { garmUrl: "https://g", getController: async () => (asked++, { controllerId: "controller-a" }) } as unknown as GarmClient;
    const p = keptInItsGarm(kind([]), () => client);
    await Promise.all([p.diff!("7", IN_A, {}), p.diff!("8", IN_A, {}), p.read!("9", IN_A)]);
    assert.equal(asked, 1);
  });
});
