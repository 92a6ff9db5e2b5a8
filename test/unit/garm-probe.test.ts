import { strict as assert } from "node:assert";
import type { GarmClient } from "../../provider/garm/client";
import { GarmApiError } from "../../provider/garm/errors";
import { probeGarm, probeGarmOnce } from "../../provider/common/garm-probe";

function recorder(): { log: { info(l: string): void; warn(l: string): void }; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: { info: (l) => lines.push(`info ${l}`), warn: (l) => lines.push(`warn ${l}`) } };
}
const answering = (answer: () => Promise<unknown>) => ({ getController: answer }) as unknown as GarmClient;

describe("the look at GARM before the first operation", () => {
  it("says nothing for a tested GARM version", async () => {
    const { log, lines } = recorder();
    await probeGarm(answering(async () => ({ version: "v0.2.1" })), log);
    assert.deepEqual(lines, []);
  });

  it("warns in one line naming GARM's version and the tested ones when they differ", async () => {
    const { log, lines } = recorder();
    await probeGarm(answering(async () => ({ version: "v0.2.1-96-gafda4e76" })), log);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^warn GARM reports version "v0.2.1-96-gafda4e76", but this pulumi-garm release was tested against v0.2.1 only/);
  });

  it("warns about a refused login, and stays quiet on an unreachable GARM (the operations say why)", async () => {
    const { log, lines } = recorder();
    await probeGarm(answering(async () => Promise.reject(new GarmApiError("auth-failed", "POST /auth/login", 401, "refused", ""))), log);
    await probeGarm(answering(async () => Promise.reject(new GarmApiError("connection", "GET /controller-info", undefined, "ECONNREFUSED", ""))), log);
    await probeGarm(answering(() => new Promise(() => {})), log, 20);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^warn GARM refused the login; preview goes on, but `pulumi up` will fail/);
  });

  it("reads GARM's version once per client", async () => {
    const { log } = recorder();
    let reads = 0;
    const client = answering(async () => ({ version: "v0.2.1", n: ++reads }));
    await probeGarmOnce(client, log);
    await probeGarmOnce(client, log);
    assert.equal(reads, 1);
  });
});
