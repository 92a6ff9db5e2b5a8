// The mock GitHub on its own (no GARM): the call shapes GARM depends on (garm-behaviour.md §10.2) and the HTTP control API.
// Fast (< 5 s); lives with the e2e suite because it is a fixture of it.
import * as assert from "node:assert/strict";
import { startMockGithub, type MockGithub } from "../../harness/mock-github";

interface Json {
    [k: string]: any;
}

describe("e2e fixture: mock GitHub + actions service", function () {
    this.timeout(30000);
    let mock: MockGithub;
    let actions = "";
    let adminToken = "";

    async function call(method: string, url: string, body?: unknown, auth?: string): Promise<{ status: number; body: Json; text: string }> {
        const res = await fetch(url, {
            method,
            headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        let parsed: Json = {};
        try {
            parsed = text ? JSON.parse(text) : {};
        } catch {
            parsed = {};
        }
        return { status: res.status, body: parsed, text };
    }

    before(async function () {
        mock = await startMockGithub({ longPollMs: 400 });
    });
    after(async function () {
        await mock.close();
    });

    it("serves the REST calls (rate limit, tools, registration token) and the admin-info exchange", async function () {
        const rl = await call("GET", `${mock.endpoint.api_base_url}rate_limit`);
        assert.equal(rl.body.resources.core.limit, 5000);
        const tools = await call("GET", `${mock.endpoint.api_base_url}orgs/acme/actions/runners/downloads`);
        assert.ok(Array.isArray(tools.body) && tools.body.length > 0, "tools must be non-empty");
        const reg = await call("POST", `${mock.endpoint.api_base_url}orgs/acme/actions/runners/registration-token`);
        assert.equal(reg.status, 201);
        const info = await call("POST", `${mock.url}/actions/runner-registration`, { url: `${mock.url}/acme`, runner_event: "register" }, `RemoteAuth ${reg.body.token}`);
        assert.equal(info.status, 200);
        actions = info.body.url;
        adminToken = info.body.token;
        const payload = JSON.parse(Buffer.from(adminToken.split(".")[1], "base64url").toString());
        assert.ok(payload.exp > Date.now() / 1000, "admin token is a JWT with a future exp");
        assert.match(actions, /\/_actions\/org\/acme\/$/);
    });

    it("gives a classic pool runner a JIT config over REST and removes it by id (404 once gone)", async function () {
        const api = mock.endpoint.api_base_url;
        const made = await call("POST", `${api}orgs/acme/actions/runners/generate-jitconfig`, { name: "garm-pool-1", runner_group_id: 1, labels: ["x"] });
        assert.equal(made.status, 201, made.text);
        const jit = JSON.parse(Buffer.from(made.body.encoded_jit_config, "base64").toString());
        assert.equal(typeof jit[".runner"], "string", "a JSON object of strings, as GARM unmarshals it");
        assert.equal(made.body.runner.name, "garm-pool-1");
        assert.equal(mock.findAgentByName("garm-pool-1")?.id, made.body.runner.id);
        assert.equal((await call("POST", `${api}orgs/acme/actions/runners/generate-jitconfig`, { name: "garm-pool-1" })).status, 409);
        assert.equal((await call("DELETE", `${api}repos/acme/app/actions/runners/${made.body.runner.id}`)).status, 404, "another entity's runner");
        assert.equal((await call("DELETE", `${api}orgs/acme/actions/runners/${made.body.runner.id}`)).status, 204);
        assert.equal(mock.findAgentByName("garm-pool-1"), undefined);
        assert.equal((await call("DELETE", `${api}orgs/acme/actions/runners/${made.body.runner.id}`)).status, 404);
    });

    it("creates a scale set, a session, long-polls 202, delivers pushed messages with statistics and a string body", async function () {
        const auth = `Bearer ${adminToken}`;
        const created = await call("POST", `${actions}_apis/runtime/runnerscalesets?api-version=6.0-preview`, { name: "ss1", runnerGroupId: 1, labels: [{ type: "System", name: "ss1" }], RunnerSetting: { ephemeral: true }, enabled: true }, auth);
        assert.equal(created.status, 200);
        const id = created.body.id as number;
        const dup = await call("POST", `${actions}_apis/runtime/runnerscalesets`, { name: "ss1", runnerGroupId: 1 }, auth);
        assert.equal(dup.status, 400, "duplicate name in the runner group");
        const list = await call("GET", `${actions}_apis/runtime/runnerscalesets?runnerGroupId=1&name=ss1`, undefined, auth);
        assert.equal(list.body.count, 1);

        const sess = await call("POST", `${actions}_apis/runtime/runnerscalesets/${id}/sessions`, { ownerName: "garm-x" }, auth);
        assert.equal(sess.status, 200);
        assert.equal(sess.body.runnerScaleSet.id, id);
        assert.ok(sess.body.statistics);
        const q = sess.body.messageQueueUrl as string;
        const qa = `Bearer ${sess.body.messageQueueAccessToken}`;

        const t0 = Date.now();
        const empty = await call("GET", q, undefined, qa);
        assert.equal(empty.status, 202);
        assert.ok(Date.now() - t0 >= 350, "long poll blocks before 202");

        const jit = await call("POST", `${actions}_apis/runtime/runnerscalesets/${id}/generatejitconfig`, { name: "garm-r1", workFolder: "_work" }, auth);
        assert.equal(jit.status, 200);
        const decoded = JSON.parse(Buffer.from(jit.body.encodedJITConfig, "base64").toString());
        assert.equal(typeof decoded[".runner"], "string");
        const agents = await call("GET", `${actions}_apis/distributedtask/pools/0/agents`, undefined, auth);
        assert.deepEqual(
            agents.body.value.map((a: Json) => [a.name, a.runnerScaleSetId, a.status, a.busy]),
            [["garm-r1", id, "online", false]],
        );

        // Push through the HTTP control API while a poll is waiting: the poll returns at once.
        const poll = call("GET", q, undefined, qa);
        await new Promise((r) => setTimeout(r, 50));
        const pushed = await call("POST", `${mock.url}/_mock/jobs`, { type: "JobStarted", runnerName: "garm-r1" });
        assert.equal(pushed.status, 200);
        const msg = await poll;
        assert.equal(msg.status, 200);
        assert.equal(msg.body.messageType, "RunnerScaleSetJobMessages");
        assert.equal(typeof msg.body.body, "string");
        const entries = JSON.parse(msg.body.body);
        assert.equal(entries[0].messageType, "JobStarted");
        assert.equal(entries[0].runnerName, "garm-r1");
        assert.equal(msg.body.statistics.totalRunningJobs, 1);
        assert.equal(mock.findAgentByName("garm-r1")?.busy, true);
        // Busy agent removal is refused; after the ack the queue is empty.
        const busyDel = await call("DELETE", `${actions}_apis/distributedtask/pools/0/agents/${jit.body.runner.id}`, undefined, auth);
        assert.equal(busyDel.status, 400);
        assert.equal((await call("DELETE", `${q}/${msg.body.messageId}`, undefined, qa)).status, 204);
        assert.equal(mock.pendingMessages(id), 0);

        // Session delete never 404s, even for an unknown session.
        assert.equal((await call("DELETE", `${actions}_apis/runtime/runnerscalesets/${id}/sessions/00000000-0000-0000-0000-000000000000`, undefined, auth)).status, 204);

        // Failure switch over HTTP, then the scale-set delete answers exactly 204.
        await call("POST", `${mock.url}/_mock/fail`, { op: "deleteScaleSet", status: 500, times: 1 });
        assert.equal((await call("DELETE", `${actions}_apis/runtime/runnerscalesets/${id}`, undefined, auth)).status, 500);
        assert.ok(mock.scaleSets.has(id), "a failed delete has no side effect");
        const del = await call("DELETE", `${actions}_apis/runtime/runnerscalesets/${id}`, undefined, auth);
        assert.equal(del.status, 204);
        assert.equal(del.text, "");
        const state = await call("GET", `${mock.url}/_mock/state`);
        assert.deepEqual(state.body.scaleSets, []);
    });
});
