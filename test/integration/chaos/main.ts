// `make chaos SEEDS=N [FIRST=1] [LENGTH=8] [CONCURRENCY=1]` (or `REPLAY='<steps json>' make chaos`): runs the fault campaign over many seeds and
// prints the totals: runs, faults injected, invariant checks, and every failing seed with a shortest replay.
import { failureReport, runSeed } from "./campaign";
import type { Step } from "./plan";
import { runSteps } from "./run";

function numberFrom(name: string, fallback: number, least = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} is ${JSON.stringify(raw)}; it must be a whole number of at least ${least}`);
  return value;
}

async function main(): Promise<number> {
  const replay = process.env.REPLAY;
  if (replay) {
    const result = await runSteps(JSON.parse(replay) as Step[]);
    console.log(result.trace.join("\n"));
    console.log(result.violation ? `violation at step ${result.violation.step}: ${result.violation.invariant}: ${result.violation.detail}` : "no violation");
    return result.violation ? 1 : 0;
  }
  const seeds = numberFrom("SEEDS", 20);
  const first = numberFrom("FIRST", 1);
  const length = numberFrom("LENGTH", 8);
  const shortenRuns = numberFrom("SHORTEN_RUNS", 8, 0);
  const totals = { runs: 0, operations: 0, faults: 0, checks: 0, failed: [] as number[] };
  const started = Date.now();
  // Seeds spend most of their time waiting on simulated outages, restarts and drains, so a few can run side by side;
  // each has its own simulator, state directory and provider processes.
  const concurrency = numberFrom("CONCURRENCY", 1);
  let next = first;
  const worker = async () => {
    for (let seed = next++; seed < first + seeds; seed = next++) {
      const outcome = await runSeed(seed, length, { shortenRuns });
      totals.runs++;
      totals.operations += outcome.result.stats.operations;
      totals.faults += outcome.result.stats.faults;
      totals.checks += outcome.result.stats.checks;
      const v = outcome.result.violation;
      const lines = [`seed ${seed}: ${v ? `FAILED at step ${v.step}: ${v.invariant}` : "ok"} (${outcome.result.stats.faults} faults, ${outcome.result.stats.checks} checks)`];
      if (process.env.VERBOSE) lines.push(outcome.result.trace.map((l) => `  ${l}`).join("\n"));
      if (v) {
        totals.failed.push(seed);
        lines.push(failureReport(outcome));
      }
      console.log(lines.join("\n"));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, seeds) }, worker));
  totals.failed.sort((a, b) => a - b);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(
    `chaos: ${totals.runs} runs (seeds ${first}-${first + seeds - 1}, ${length} steps each) in ${minutes} min: ${totals.operations} operations, ` +
      `${totals.faults} faults injected, ${totals.checks} invariant checks, ${totals.failed.length} failed${totals.failed.length ? ` (seeds ${totals.failed.join(", ")})` : ""}`,
  );
  return totals.failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  },
);
