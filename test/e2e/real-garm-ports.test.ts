// The real-GARM fixture's ports: chosen outside the kernel's ephemeral range, and moved when GARM cannot bind its port
// ("address already in use"), even when whatever holds the port answers HTTP the way GARM does.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { startMockGithub, type MockGithub } from "../../harness/mock-github";
import { locateGarm, startRealGarm, type RealGarm } from "../../harness/real-garm";
import { ephemeralPortRange, listensOn, pickPort, portsOutside } from "../../harness/real-garm/ports";

describe("e2e fixtures: ports for real GARM", function () {
    this.timeout(120_000);

    it("reads the kernel's ephemeral range, falling back to Linux's default on text it cannot parse", () => {
        assert.deepEqual(ephemeralPortRange("32768\t60999\n"), [32768, 60999]);
        assert.deepEqual(ephemeralPortRange("1024 65535"), [1024, 65535]);
        assert.deepEqual(ephemeralPortRange("garbage"), [32768, 60999]);
        assert.deepEqual(ephemeralPortRange("5000 4000"), [32768, 60999]);
    });

    it("picks from the ports above 10000 on either side of the ephemeral range", () => {
        assert.deepEqual(portsOutside([32768, 60999]), [
            [10000, 32767],
            [61000, 65535],
        ]);
        assert.deepEqual(portsOutside([1024, 65535]), []);
        assert.deepEqual(portsOutside([5000, 40000]), [[40001, 65535]]);
    });

    it("pickPort gives free ports outside this machine's ephemeral range", async () => {
        const [lo, hi] = ephemeralPortRange();
        for (let i = 0; i < 20; i++) {
            const p = await pickPort();
            assert.ok(p >= 10000 && (p < lo || p > hi), `port ${p} inside the ephemeral range ${lo}-${hi}`);
        }
    });

    it("listensOn tells which process holds a listening port", async () => {
        const srv = http.createServer();
        await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
        const port = (srv.address() as AddressInfo).port;
        try {
            assert.equal(listensOn(process.pid, port), true);
            assert.equal(listensOn(1, port), false);
            // A GARM that exited on its taken port, while another server answers there: gone, so not the listener.
            const gone = spawnSync("true").pid;
            assert.equal(listensOn(gone, port), false);
        } finally {
            await new Promise((r) => srv.close(r));
        }
        assert.equal(listensOn(process.pid, port), false);
    });

    describe("with the real GARM binary", () => {
        let workDir = "";
        let mock: MockGithub | undefined;
        let garm: RealGarm | undefined;
        let squatter: http.Server | undefined;

        before(function () {
            try {
                locateGarm();
            } catch (e) {
                console.log(`      skipped: ${(e as Error).message}`);
                this.skip();
            }
        });
        after(async () => {
            await garm?.stop();
            await mock?.close();
            squatter?.closeAllConnections();
            await new Promise((r) => (squatter ? squatter.close(r) : r(undefined)));
            if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
        });

        it("moves GARM to another port when its port is taken, even by a server answering as GARM would", async () => {
            workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-ports-"));
            mock = await startMockGithub({ longPollMs: 1500 });
            const taken = await pickPort();
            // Answers like a fresh GARM (409 init_required, garm-behaviour.md §1.2): only the socket's owner tells them apart.
            squatter = http.createServer((_req, res) => {
                res.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ error: "init_required", details: "Missing superuser" }));
            });
            await new Promise<void>((r) => squatter!.listen(taken, "127.0.0.1", () => r()));
            garm = await startRealGarm({ workDir, mockGithubUrl: mock.url, port: taken });
            const port = Number(new URL(garm.url).port);
            assert.notEqual(port, taken);
            assert.match(garm.logs(), /creating listener: .*address already in use/, "the first attempt lost the port");
            assert.ok(garm.orgId, "bootstrapped on the new port");
            assert.equal((await garm.api("GET", "/scalesets")).status, 200);
            await garm.restart();
            assert.equal(Number(new URL(garm.url).port), port, "a restart keeps the port");
            assert.equal((await garm.api("GET", "/scalesets")).status, 200);
        });
    });
});
