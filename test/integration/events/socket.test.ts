// The simulator's events socket speaks GARM v0.2.1's protocol (citations: provider/garm/events.ts).
import { strict as assert } from "node:assert";
import WebSocket from "ws";
import { GarmClient } from "../../../provider/garm/client";
import { type Simulator, startSimulator } from "../../../simulator";

async function login(sim: Simulator): Promise<string> {
  const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
  try {
    return (await client.transport.socketLogin()).token;
  } finally {
    await client.close();
  }
}

/** Opens the socket; resolves with it open, or rejects with the HTTP status of a refused upgrade. */
function open(sim: Simulator, headers: Record<string, string>): Promise<{ socket: WebSocket; frames: string[]; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${sim.url.replace("http", "ws")}/api/v1/ws/events`, { headers });
    const frames: string[] = [];
    const closed = new Promise<void>((done) => socket.on("close", () => done()));
    socket.on("message", (data) => frames.push(data.toString()));
    socket.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })));
    });
    socket.on("error", reject);
    socket.on("open", () => resolve({ socket, frames, closed }));
  });
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("simulator events socket (GARM v0.2.1 protocol)", function () {
  this.timeout(20_000);
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator({ tickMs: 0 });
  });
  afterEach(async () => sim.stop());

  it("refuses an upgrade without a valid token with GARM's 401 body; the token goes in the Authorization header (auth/jwt.go:89-115)", async () => {
    await assert.rejects(open(sim, {}), (e: { status: number; body: string }) => e.status === 401 && /Authentication failed/.test(e.body));
    const token = await login(sim);
    // A query parameter is not a place GARM looks for the token.
    await assert.rejects(
      new Promise((resolve, reject) => {
        const s = new WebSocket(`${sim.url.replace("http", "ws")}/api/v1/ws/events?token=${token}`);
        s.on("unexpected-response", (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
        s.on("open", resolve);
      }),
      /HTTP 401/,
    );
    const { socket } = await open(sim, { Authorization: `Bearer ${token}` });
    socket.close();
  });

  it("sends nothing before a filter, then {entity-type, operation, payload} frames; an instance delete carries only its identity and scale_set_id", async () => {
    const token = await login(sim);
    const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
    const ss = await client.createScaleSet(
      { kind: "organization", id: sim.organizationId },
      { name: "ev", provider_name: "fake", image: "u", flavor: "s", os_type: "linux", os_arch: "amd64", max_runners: 2, enabled: true },
    );
    await client.close();
    const { socket, frames } = await open(sim, { Authorization: `Bearer ${token}` });
    const runner = sim.addRunner(ss.id, { name: "garm-ev1" });
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(frames, [], "events before the filter (events.go:43-46 registers WithNone)");

    socket.send(JSON.stringify({ "send-everything": false, filters: [{ "entity-type": "instance", operations: ["update", "delete"] }] }));
    await new Promise((r) => setTimeout(r, 50));
    sim.startJob(runner);
    sim.addRunner(ss.id, { name: "garm-ev2" }); // a create: filtered out
    await until(() => frames.length >= 1);
    const update = JSON.parse(frames[0]);
    assert.deepEqual(Object.keys(update).sort(), ["entity-type", "operation", "payload"]);
    assert.equal(update["entity-type"], "instance");
    assert.equal(update.operation, "update");
    assert.equal(update.payload.name, runner);
    assert.equal(update.payload.scale_set_id, ss.id);
    assert.equal(update.payload.runner_status, "active");

    const base = frames.length;
    // GARM deletes the row once the runner is torn down; the delete event carries only the identity fields.
    sim.completeJob(runner);
    await sim.consolidate();
    for (let i = 0; i < 10 && !frames.slice(base).some((f) => JSON.parse(f).operation === "delete"); i++) {
      await sim.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    const deleted = frames.slice(base).map((f) => JSON.parse(f)).find((e) => e.operation === "delete" && e.payload.name === runner);
    assert.ok(deleted, `no delete event among ${frames.slice(base).join("\n")}`);
    assert.equal(deleted.payload.scale_set_id, ss.id);
    assert.equal(deleted.payload.status, undefined);
    assert.equal(deleted.payload.runner_status, undefined);
    assert.ok(!frames.some((f) => JSON.parse(f).operation === "create"), "creates were filtered out");
    socket.close();
  });

  it("closes on an invalid or unparsable filter, with no text frame as v0.2.1 does in practice; ignores an empty one (events.go:166-193)", async () => {
    const token = await login(sim);
    for (const filter of [JSON.stringify({ filters: [{ "entity-type": "runner" }] }), JSON.stringify({ filters: [{ "entity-type": "instance", operations: ["upsert"] }] })]) {
      const bad = await open(sim, { Authorization: `Bearer ${token}` });
      bad.socket.send(filter);
      await bad.closed;
      assert.deepEqual(bad.frames, []);
    }
    // The text GARM queues first (events.go:175, 186), for clients that handle it when it gets through.
    sim.eventsSocket.textBeforeClose = true;
    const bad = await open(sim, { Authorization: `Bearer ${token}` });
    bad.socket.send(JSON.stringify({ filters: [{ "entity-type": "runner" }] }));
    await bad.closed;
    assert.deepEqual(bad.frames, ["invalid filter"]);
    const junk = await open(sim, { Authorization: `Bearer ${token}` });
    junk.socket.send("not json");
    await junk.closed;
    assert.deepEqual(junk.frames, ["failed to unmarshal filter"]);

    const empty = await open(sim, { Authorization: `Bearer ${token}` });
    empty.socket.send(JSON.stringify({ filters: [] }));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(empty.socket.readyState, WebSocket.OPEN);
    assert.deepEqual(empty.frames, []);
    empty.socket.close();
  });

  it("the control switch refuses upgrades with 400 or drops open sockets", async () => {
    const token = await login(sim);
    sim.eventsSocket.mode = "refuse";
    await assert.rejects(open(sim, { Authorization: `Bearer ${token}` }), (e: { status: number }) => e.status === 400);
    sim.eventsSocket.mode = "accept";
    const { closed } = await open(sim, { Authorization: `Bearer ${token}` });
    assert.equal(sim.eventsSocket.openSockets(), 1);
    sim.eventsSocket.drop();
    await closed;
    assert.equal(sim.eventsSocket.openSockets(), 0);
  });
});
