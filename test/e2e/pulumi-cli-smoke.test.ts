// Smoke test of harness/pulumi-cli: the real Pulumi CLI (offline, file backend) runs an inline program with a
// trivial dynamic resource through `up` and `destroy`, and the dynamic provider plugin really executes our code.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { locatePulumi, runPulumi } from "../../harness/pulumi-cli";

// pulumi.dynamic.Resource is abstract; output properties are declared on the subclass.
class Trivial extends pulumi.dynamic.Resource {
    declare readonly length: pulumi.Output<number>;
    constructor(provider: pulumi.dynamic.ResourceProvider, name: string, props: Record<string, unknown>) {
        super(provider, name, props, {});
    }
}

describe("e2e: Pulumi CLI runner (real CLI, inline program, dynamic resource)", function () {
    this.timeout(300000);
    let workDir = "";
    let failed = false;

    before(function () {
        locatePulumi(); // throws a clear "run make tools" error when the CLI is missing
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-cli-"));
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") failed = true;
    });

    after(function () {
        if (!workDir) return;
        if (failed || process.env.KEEP_E2E_DIRS) console.log(`    (kept ${workDir})`);
        else fs.rmSync(workDir, { recursive: true, force: true });
    });

    it("up creates and destroy deletes a trivial dynamic resource", async function () {
        const markerDir = path.join(workDir, "markers");
        const implPath = path.join(__dirname, "fixtures", "trivial-provider.js");
        const program = async () => {
            // The provider object is serialized into state; it only captures the absolute module path.
            const provider: pulumi.dynamic.ResourceProvider = {
                async create(inputs: any) {
                    // eslint-disable-next-line @typescript-eslint/no-require-imports
                    const impl = require(implPath);
                    return impl.create(inputs);
                },
                async delete(id: string, props: any) {
                    // eslint-disable-next-line @typescript-eslint/no-require-imports
                    const impl = require(implPath);
                    impl.remove(id, props);
                },
            };
            const res = new Trivial(provider, "trivial", { markerDir, greeting: "hello", length: undefined });
            return { length: res.length, rid: res.id };
        };

        const up = await runPulumi({ workDir, stackName: "smoke", program, op: "up", config: { "e2e:who": "smoke" } });
        assert.ok(up.exitOk, `up failed: ${up.error?.message}\n${up.stdout}\n${up.stderr}`);
        assert.equal(up.summary?.result, "succeeded");
        assert.equal(up.changeSummary?.create, 2, `expected stack + resource created, got ${JSON.stringify(up.changeSummary)}`);
        assert.equal(up.outputs.length, 5);
        const rid = String(up.outputs.rid);
        assert.ok(fs.existsSync(path.join(markerDir, `${rid}.created`)), "create() of the fixture module did not run");
        console.log(`    up: ${up.durationMs} ms`);

        const again = await runPulumi({ workDir, stackName: "smoke", program, op: "preview" });
        assert.ok(again.exitOk, again.error?.message);
        assert.equal(again.changeSummary?.same, 2, `second preview should be a no-op: ${JSON.stringify(again.changeSummary)}`);

        const down = await runPulumi({ workDir, stackName: "smoke", program, op: "destroy" });
        assert.ok(down.exitOk, `destroy failed: ${down.error?.message}\n${down.stdout}\n${down.stderr}`);
        assert.equal(down.changeSummary?.delete, 2);
        assert.ok(fs.existsSync(path.join(markerDir, `${rid}.deleted`)), "delete() of the fixture module did not run");
        assert.deepEqual(down.outputs, {});
        console.log(`    destroy: ${down.durationMs} ms`);
    });
});
