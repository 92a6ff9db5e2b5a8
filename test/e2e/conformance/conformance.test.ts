// Conformance: the same scripted REST scenarios (./scenarios.ts) run against the GARM simulator and the real GARM
// v0.2.1; the normalised observations must agree, except for the differences listed in ./accepted.ts with their reason.
// Prints a table of every difference. Needs the real GARM binary (`make tools`); see test/e2e/README.md.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { ACCEPTED, type Accepted } from "./accepted";
import { compare, Observations, type Difference } from "./observe";
import { SCENARIOS } from "./scenarios";
import { realTarget, simTarget, type Target } from "./target";

function matches(a: Accepted, d: Difference): boolean {
    return a.scenario === d.scenario && a.label === d.label && (a.path === undefined || a.path === d.path);
}

const clip = (s: string, n = 70) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

describe("conformance: GARM simulator vs real GARM v0.2.1", function () {
    this.timeout(600000);
    let sim: Target | undefined;
    let real: Target | undefined;
    const all: Difference[] = [];
    const timings: Record<string, number> = {};
    const infos: string[] = [];
    /** CONFORMANCE_DUMP=/path.json writes every observation of both targets (for reviewing what real GARM answered). */
    const dump: Record<string, { sim: Record<string, unknown>; real: Record<string, unknown> }> = {};

    before(async function () {
        const t0 = Date.now();
        [sim, real] = await Promise.all([simTarget(), realTarget()]);
        timings["start both"] = Date.now() - t0;
    });

    after(async function () {
        await Promise.allSettled([sim?.stop(), real?.stop()]);
        const used = new Set<Accepted>();
        const rows = all.map((d) => {
            const a = ACCEPTED.find((x) => matches(x, d));
            if (a) used.add(a);
            return { d, a };
        });
        console.log(`\n    conformance differences (${rows.length}; sim vs real GARM v0.2.1):`);
        for (const { d, a } of rows) {
            console.log(`    ${a ? "accepted " : "UNEXPECTED"} [${d.scenario}] ${d.label}${d.path ? ` @ ${d.path}` : ""}`);
            console.log(`        sim:  ${clip(d.sim, 140)}\n        real: ${clip(d.real, 140)}`);
            if (a) console.log(`        why:  ${a.reason}`);
        }
        const stale = ACCEPTED.filter((a) => !used.has(a));
        for (const a of stale) console.log(`    (accepted difference not seen this run: [${a.scenario}] ${a.label}${a.path ? ` @ ${a.path}` : ""})`);
        for (const line of infos) console.log(`    info ${line}`);
        console.log(`    timings (ms): ${JSON.stringify(timings)}`);
        if (process.env.CONFORMANCE_DUMP) fs.writeFileSync(process.env.CONFORMANCE_DUMP, JSON.stringify(dump, null, 1));
    });

    for (const sc of SCENARIOS) {
        it(sc.name, async function () {
            const s = new Observations();
            const r = new Observations();
            const t0 = Date.now();
            const timed = async (t: Target, o: Observations) => {
                const a = Date.now();
                try {
                    await sc.run(t, o);
                } catch (e) {
                    if (t.kind === "real") console.log(`    GARM log tail:\n${t.logTail()}`);
                    throw e;
                }
                timings[`${sc.name} (${t.kind})`] = Date.now() - a;
            };
            await Promise.all([timed(sim!, s), timed(real!, r)]);
            timings[sc.name] = Date.now() - t0;
            for (const [k, v] of s.infos) infos.push(`[${sc.name}] sim  ${k}: ${JSON.stringify(v)}`);
            for (const [k, v] of r.infos) infos.push(`[${sc.name}] real ${k}: ${JSON.stringify(v)}`);
            dump[sc.name] = { sim: Object.fromEntries(s.values), real: Object.fromEntries(r.values) };
            const diffs = compare(sc.name, s, r);
            all.push(...diffs);
            const unexpected = diffs.filter((d) => !ACCEPTED.some((a) => matches(a, d)));
            assert.deepEqual(
                unexpected.map((d) => `${d.label}${d.path ? ` @ ${d.path}` : ""}: sim=${d.sim} real=${d.real}`),
                [],
                "differences between the simulator and real GARM that are neither fixed nor documented in accepted.ts",
            );
        });
    }
});
