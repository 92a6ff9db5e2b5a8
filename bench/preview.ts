// Issue 13 item 3: what checking providerName and the entity against GARM adds to a preview. check runs once per
// scale set; the run-wide lookups make the GARM reads one GET per distinct reference, whatever the count.
import { GarmClient } from "../provider/garm/client";
import { checkScaleSetInputs } from "../provider/kinds/scaleset/check";
import { scaleSetProviderWith } from "../provider/kinds/scaleset/resource";
import { startSimulator } from "../simulator";
import { simulatorScaleSetInputs } from "../harness/scaleset-inputs";

interface Result {
  target: string;
  measured: string;
  met: boolean;
  details?: Record<string, unknown>;
}

const silent = { info: () => {}, warn: () => {} };
const inputsFor = (i: number) => simulatorScaleSetInputs(`bench-${i}`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Added time: check with GARM's reads (a fresh provider, so cold caches, as in a new preview) minus check without. */
export async function previewReferenceCost(): Promise<Result[]> {
  const sim = await startSimulator({ tickMs: 0 });
  const runs = 11;
  const results: Result[] = [];
  try {
    for (const count of [1, 100]) {
      const added: number[] = [];
      let gets = 0;
      for (let run = 0; run <= runs; run++) {
        const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
        await client.listJobs(); // a preview's client has logged in by the time check reads
        const impl = scaleSetProviderWith({ client: () => client, log: silent, now: Date.now, sleep: async () => {} });
        const all = Array.from({ length: count }, (_, i) => inputsFor(i));
        const t0 = performance.now();
        all.forEach((inputs) => checkScaleSetInputs(inputs));
        const pure = performance.now() - t0;
        sim.clearRequests();
        const t1 = performance.now();
        const checked = await Promise.all(all.map((inputs) => impl.check!({}, inputs)));
        const withGarm = performance.now() - t1;
        if (checked.some((c) => (c.failures ?? []).length > 0)) throw new Error("bench inputs failed check");
        gets = sim.requests().filter((r) => !r.path.endsWith("/auth/login")).length;
        await client.close();
        if (run > 0) added.push(withGarm - pure); // run 0 warms the JIT
      }
      const limitMs = count === 1 ? 50 : 150;
      results.push({
        target: `preview's reference check (providerName, entity) for ${count} scale set${count > 1 ? "s" : ""} adds at most ${limitMs} ms and 2 GARM reads`,
        measured: `+${median(added).toFixed(1)} ms median of ${runs} runs (max ${Math.max(...added).toFixed(1)} ms), ${gets} GETs`,
        met: median(added) <= limitMs && gets <= 2,
        details: { count, addedMs: added.map((x) => Number(x.toFixed(2))), gets, against: "the simulator on 127.0.0.1" },
      });
    }
  } finally {
    await sim.stop();
  }
  return results;
}
