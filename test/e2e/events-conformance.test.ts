// Events socket conformance: the same steps (scale set create, update, delete; a bad token; a rejected filter) against
// real GARM v0.2.1 and the simulator; the events each sends must agree in type, operation and payload fields.
// Needs the real GARM binary (`make tools`).
import { strict as assert } from "node:assert";
import WebSocket from "ws";
import { GarmClient } from "../../provider/garm/client";
import { EVENTS_FILTER, GarmEvents } from "../../provider/garm/events";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { startSimulator, type Simulator } from "../../simulator";

interface Target {
  url: string;
  orgId: string;
  client: GarmClient;
  token: string;
}

interface Socket {
  frames: string[];
  socket: WebSocket;
  closed: Promise<void>;
}

function open(url: string, headers: Record<string, string>): Promise<Socket | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/api/v1/ws/events`, { headers });
    const frames: string[] = [];
    const closed = new Promise<void>((done) => socket.on("close", () => done()));
    socket.on("message", (d) => frames.push(d.toString()));
    socket.on("unexpected-response", (_q, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.on("error", reject);
    socket.on("open", () => resolve({ frames, socket, closed }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Scale set create → update → delete, observed on a socket filtered as the provider filters. */
async function scaleSetSteps(t: Target): Promise<{ type: string; op: string; keys: string[]; id: unknown }[]> {
  const s = (await open(t.url, { Authorization: `Bearer ${t.token}` })) as Socket;
  s.socket.send(JSON.stringify(EVENTS_FILTER));
  await sleep(300);
  const ss = await t.client.createScaleSet(
    { kind: "organization", id: t.orgId },
    { name: "events-conf", provider_name: "fake", image: "ubuntu", flavor: "small", os_type: "linux", os_arch: "amd64", max_runners: 1, enabled: false },
  );
  await sleep(1000);
  await t.client.updateScaleSet(ss.id, { max_runners: 2 });
  await sleep(1000);
  await t.client.deleteScaleSet(ss.id);
  await sleep(1500);
  s.socket.close();
  return s.frames
    .map((f) => JSON.parse(f) as { "entity-type": string; operation: string; payload: Record<string, unknown> })
    .filter((e) => e["entity-type"] === "scaleset")
    .map((e) => ({ type: e["entity-type"], op: e.operation, keys: Object.keys(e.payload).sort(), id: e.payload["id"] }));
}

describe("events socket conformance: simulator vs real GARM v0.2.1", function () {
  this.timeout(180_000);
  let env: E2eEnvironment;
  let sim: Simulator;
  const targets: Record<"real" | "sim", Target> = {} as never;

  before(async () => {
    [env, sim] = await Promise.all([startE2eEnvironment(), startSimulator({ tickMs: 25 })]);
    for (const [kind, url, username, password, orgId] of [
      ["real", env.garm.url, env.garm.username, env.garm.password, env.garm.orgId!],
      ["sim", sim.url, sim.username, sim.password, sim.organizationId],
    ] as const) {
      const client = new GarmClient({ url, username, password });
      targets[kind] = { url, orgId, client, token: (await client.transport.socketLogin()).token };
    }
  });
  after(async () => {
    for (const t of Object.values(targets)) await t.client.close();
    await Promise.allSettled([env?.stop(), sim?.stop()]);
  });

  it("scale set create, update and delete send the same events with the same payload fields", async () => {
    const [real, simulated] = await Promise.all([scaleSetSteps(targets.real), scaleSetSteps(targets.sim)]);
    console.log(`    real: ${JSON.stringify(real.map((e) => [e.op, e.keys.join(",")]))}`);
    console.log(`    sim:  ${JSON.stringify(simulated.map((e) => [e.op, e.keys.join(",")]))}`);
    assert.deepEqual(
      simulated.map((e) => e.op),
      real.map((e) => e.op),
    );
    for (let i = 0; i < real.length; i++) {
      const missing = real[i].keys.filter((k) => !simulated[i].keys.includes(k));
      const extra = simulated[i].keys.filter((k) => !real[i].keys.includes(k));
      assert.deepEqual({ op: real[i].op, missing, extra }, { op: real[i].op, missing: [], extra: [] });
    }
  });

  it("a bad token is refused before the upgrade with the same status and body", async () => {
    const [real, simulated] = await Promise.all(
      [targets.real, targets.sim].map((t) => open(t.url, { Authorization: "Bearer not-a-jwt" }) as Promise<{ status: number; body: string }>),
    );
    assert.equal(simulated.status, real.status);
    assert.deepEqual(JSON.parse(simulated.body), JSON.parse(real.body));
  });

  it("a rejected filter gets the same text frame, then the socket closes", async () => {
    const answers = await Promise.all(
      [targets.real, targets.sim].map(async (t) => {
        const s = (await open(t.url, { Authorization: `Bearer ${t.token}` })) as Socket;
        s.socket.send(JSON.stringify({ filters: [{ "entity-type": "runner" }] }));
        await Promise.race([s.closed, sleep(5000)]);
        return { frames: s.frames, closed: s.socket.readyState === WebSocket.CLOSED };
      }),
    );
    console.log(`    real: ${JSON.stringify(answers[0])}  sim: ${JSON.stringify(answers[1])}`);
    assert.equal(answers[1].closed, answers[0].closed);
    assert.deepEqual(answers[1].frames, answers[0].frames);
  });

  it("the provider's client is live against both: each answers the ping sent after the filter", async () => {
    for (const t of [targets.real, targets.sim]) {
      const lines: string[] = [];
      const events = new GarmEvents({ url: t.url, login: (refused) => t.client.transport.socketLogin(refused), log: { info: (l) => lines.push(l), warn: (l) => lines.push(l) } });
      const stop = events.subscribe({ onEvent: () => {}, onLost: () => {} });
      const end = Date.now() + 5000;
      while (!events.live && Date.now() < end) await sleep(10);
      assert.ok(events.live, `not live against ${t.url}: ${lines.join("; ")}`);
      stop();
      await events.close();
    }
  });

  it("a runner's life through a drain: instance events carry scale_set_id, and its delete only identity fields", async () => {
    const observe = async (t: Target) => {
      const s = (await open(t.url, { Authorization: `Bearer ${t.token}` })) as Socket;
      s.socket.send(JSON.stringify(EVENTS_FILTER));
      await sleep(300);
      const ss = await t.client.createScaleSet(
        { kind: "organization", id: t.orgId },
        { name: "events-runner", provider_name: "fake", image: "ubuntu", flavor: "small", os_type: "linux", os_arch: "amd64", max_runners: 1, min_idle_runners: 1, enabled: true },
      );
      const end = Date.now() + 90_000;
      let runner: string | undefined;
      while (runner === undefined && Date.now() < end) {
        runner = (await t.client.listScaleSetInstances(ss.id)).find((i) => i.status === "running")?.name;
        if (runner === undefined) await sleep(250);
      }
      assert.ok(runner, `no runner came up on ${t.url}`);
      await t.client.updateScaleSet(ss.id, { enabled: false, min_idle_runners: 0, max_runners: 0 });
      await sleep(1000);
      // GARM may have scaled the idle runner down itself by now (max_runners 0, §7.6).
      await t.client.deleteInstance(runner, { forceRemove: false }).catch((e: { kind?: string }) => {
        if (e.kind !== "not-found") throw e;
      });
      while ((await t.client.listScaleSetInstances(ss.id)).length > 0 && Date.now() < end) await sleep(250);
      await sleep(1000);
      await t.client.deleteScaleSet(ss.id);
      await sleep(500);
      s.socket.close();
      const events = s.frames.map((f) => JSON.parse(f) as { "entity-type": string; operation: string; payload: Record<string, unknown> });
      return { ss: ss.id, runner, instance: events.filter((e) => e["entity-type"] === "instance" && e.payload["name"] === runner) };
    };
    const [real, simulated] = await Promise.all([observe(targets.real), observe(targets.sim)]);
    const show = (o: typeof real) => o.instance.map((e) => `${e.operation}:${e.payload["status"] ?? "-"}/${e.payload["runner_status"] ?? "-"}`).join(" ");
    console.log(`    real: ${show(real)}\n    sim:  ${show(simulated)}`);
    for (const o of [real, simulated]) {
      assert.ok(o.instance.length > 0);
      for (const e of o.instance) assert.equal(e.payload["scale_set_id"], o.ss, `${e.operation} without scale_set_id`);
    }
    const ops = (o: typeof real) => [...new Set(o.instance.map((e) => e.operation))].sort();
    assert.deepEqual(ops(simulated), ops(real));
    const deleteKeys = (o: typeof real) => Object.keys(o.instance.find((e) => e.operation === "delete")?.payload ?? {}).sort();
    console.log(`    delete payload keys: real ${deleteKeys(real).join(",")}; sim ${deleteKeys(simulated).join(",")}`);
    assert.deepEqual(deleteKeys(simulated), deleteKeys(real));
  });
});
