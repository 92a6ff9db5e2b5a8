// Retires a scale set without failing a running job: disable, drain, delete, verify (garm-api.md Appendix B). Each
// pass lists, classifies (classify.ts) and acts; the loop is bounded by the drain timeout, after which it fails and
// Pulumi keeps the resource in its state (RETRY_NOTE says what the next runs do with it).
import type { GarmClient, InstanceView } from "../garm/client";
import { GarmApiError, isGarmError, isTransient } from "../garm/errors";
import { type Logger, formatDuration } from "../log";
import { briefly } from "./brief-error";
import { type RunnerVerdict, classifyRunner, describeJob } from "./classify";
import type { DrainOptions } from "./inputs";

export type DrainClient = Pick<
  GarmClient,
  "updateScaleSet" | "listScaleSetInstances" | "listJobs" | "deleteInstance" | "deleteScaleSet" | "getScaleSet"
>;

export interface DrainDeps {
  readonly client: DrainClient;
  readonly log: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

export interface DrainTarget {
  readonly id: number;
  readonly liveName: string;
}

/** The delete could not finish; the message says why and what happens next. */
export class DrainError extends Error {
  override readonly name = "DrainError";
}

/** What the next runs do with a scale set whose delete did not finish: Pulumi keeps it in state, disabled at 0 runners. */
const RETRY_NOTE =
  "Pulumi keeps it in its state: the next `pulumi destroy` retries the delete, and so does the next `pulumi up` if the " +
  "program no longer declares it or it was being replaced; a `pulumi up` of a program that still declares it enables it " +
  "again with the program's values";

interface Classified {
  readonly runner: InstanceView;
  readonly verdict: RunnerVerdict;
}

/** Disables, drains and deletes the scale set, then checks it is gone. Resolves once GARM no longer has it. */
export async function retireScaleSet(target: DrainTarget, options: DrainOptions, deps: DrainDeps): Promise<void> {
  const { client, log, now } = deps;
  const label = `GarmScaleSet ${target.liveName} (id ${target.id})`;
  const deadline = now() + options.timeoutSeconds * 1000;
  const staleAfterMs = options.jobStaleAfterHours * 3600_000;
  let lastPass: Classified[] = [];
  let outage: GarmApiError | undefined;

  // Disabling stops GARM's listener and scale-up; max_runners 0 stops a stale desired count from keeping idle
  // runners alive (§7.6, Appendix B).
  const disable = () => client.updateScaleSet(target.id, { enabled: false, min_idle_runners: 0, max_runners: 0 });
  try {
    await disable();
  } catch (err) {
    if (isGarmError(err, "not-found")) return;
    if (!isTransient(err)) throw err;
    outage = err;
  }
  let disabled = outage === undefined;

  for (;;) {
    try {
      if (!disabled) {
        await disable();
        disabled = true;
      }
      const runners = await client.listScaleSetInstances(target.id);
      outage = undefined;
      if (runners.length === 0) {
        const outcome = await deleteAndVerify(target, label, client);
        if (outcome === "gone") return;
        if (outcome === "enabled") {
          disabled = false;
          continue;
        }
        // "has runners": a runner appeared between the list and the delete; drain it on the next pass.
      } else {
        const jobs = await client.listJobs();
        lastPass = runners.map((runner) => ({ runner, verdict: classifyRunner(runner, jobs, now(), staleAfterMs) }));
        const acted = await actOnRunners(lastPass, label, client, log);
        log.info(progressLine(label, lastPass, acted, options, deadline - now()));
      }
    } catch (err) {
      if (err instanceof DrainError || !isTransient(err)) throw err;
      outage = err;
      log.warn(`${label}: GARM is unreachable (${outage.message}); retrying in ${options.pollSeconds}s`);
    }
    const left = deadline - now();
    if (left <= 0) throw timeoutError(label, lastPass, outage, options);
    await deps.sleep(Math.min(options.pollSeconds * 1000, left));
  }
}

type DeleteOutcome = "gone" | "enabled" | "has-runners";

async function deleteAndVerify(target: DrainTarget, label: string, client: DrainClient): Promise<DeleteOutcome> {
  try {
    await client.deleteScaleSet(target.id);
  } catch (err) {
    if (isGarmError(err, "bad-request")) {
      if (/has runners|with runners/.test(err.details)) return "has-runners";
      if (/is enabled/.test(err.details)) return "enabled";
    }
    // A 404 from DELETE can come from GARM's token step while the scale set still exists (§5): verify below.
    if (!isGarmError(err, "not-found")) throw err;
  }
  try {
    await client.getScaleSet(target.id);
  } catch (err) {
    if (isGarmError(err, "not-found")) return "gone";
    throw err;
  }
  // GARM answers 200 and keeps the scale set when its GitHub call fails (§5).
  throw new DrainError(
    `${label}: GARM answered the delete with success but still has the scale set; GARM does this when its call to ` +
      "GitHub fails (check GARM's log for \"scale set not found\" or GitHub errors; if the GitHub scale set was removed by hand, " +
      `restarting GARM re-creates it so the delete can go through). ${RETRY_NOTE}.`,
  );
}

interface Acted {
  removed: string[];
  forced: string[];
  failed: string[];
}

async function actOnRunners(pass: readonly Classified[], label: string, client: DrainClient, log: Logger): Promise<Acted> {
  const acted: Acted = { removed: [], forced: [], failed: [] };
  for (const { runner, verdict } of pass) {
    if (verdict.action !== "delete" && verdict.action !== "force") continue;
    const forceRemove = verdict.action === "force";
    try {
      await removeRunner(runner.name, forceRemove, label, client, log);
      (forceRemove ? acted.forced : acted.removed).push(runner.name);
    } catch (err) {
      if (isTransient(err)) throw err;
      acted.failed.push(`${runner.name} (${(err as Error).message})`);
    }
  }
  return acted;
}

/** One runner removal. Only called for runners classified as not busy. */
async function removeRunner(name: string, forceRemove: boolean, label: string, client: DrainClient, log: Logger): Promise<void> {
  try {
    await client.deleteInstance(name, { forceRemove });
  } catch (err) {
    if (isGarmError(err, "not-found")) return;
    // GARM moved it on meanwhile (its own scale-down, §7.6); v0.2.1 refuses the repeat with 400 (Appendix A).
    if (isGarmError(err, "bad-request") && /status transition|must be in one of/.test(err.details)) return;
    if (!isGarmError(err, "github-unauthorized")) throw err;
    // GitHub refused GARM's credentials (§1.5). The runner is idle, so GARM may drop it without GitHub's consent.
    log.warn(
      `${label}: GitHub refused GARM's credentials while removing idle runner ${name}; removing it from GARM anyway ` +
        "(bypassGHUnauthorized), so it may stay registered in GitHub until you remove it there or fix GARM's GitHub credentials",
    );
    await client.deleteInstance(name, { forceRemove, bypassGHUnauthorized: true });
  }
}

function progressLine(label: string, pass: readonly Classified[], acted: Acted, options: DrainOptions, leftMs: number): string {
  const busy = pass.filter((c) => c.verdict.action === "leave");
  const waiting = pass.filter((c) => c.verdict.action === "wait");
  const parts = [
    busy.length ? `${busy.length} busy [${busy.map(describeBusy).join(", ")}]` : "",
    acted.removed.length ? `removing ${acted.removed.length} idle [${acted.removed.join(", ")}]` : "",
    acted.forced.length ? `force-removing ${acted.forced.length} stuck [${acted.forced.join(", ")}]` : "",
    waiting.length ? `${waiting.length} tearing down [${waiting.map((c) => `${c.runner.name} ${c.runner.status}`).join(", ")}]` : "",
    acted.failed.length ? `could not remove [${acted.failed.join("; ")}]` : "",
  ].filter(Boolean);
  return `${label}: draining: ${parts.join("; ")}; next check in ${options.pollSeconds}s, giving up in ${formatDuration(leftMs)}`;
}

function describeBusy({ runner, verdict }: Classified): string {
  if (!verdict.job) return `${runner.name}: ${verdict.reason}`;
  const age = verdict.jobAgeMs === undefined ? "" : ` for ${formatDuration(verdict.jobAgeMs)}`;
  return `${runner.name}: job ${describeJob(verdict.job)} ${verdict.job.status}${age}`;
}

function timeoutError(label: string, pass: readonly Classified[], outage: GarmApiError | undefined, options: DrainOptions): DrainError {
  const after = `after ${formatDuration(options.timeoutSeconds * 1000)}`;
  if (outage) {
    return new DrainError(`${label}: could not finish draining ${after}: GARM is unreachable (${briefly(outage)}). ${RETRY_NOTE}.`);
  }
  const busy = pass.filter((c) => c.verdict.action === "leave");
  const others = pass.filter((c) => c.verdict.action !== "leave");
  const busyText = busy.length
    ? `${busy.length} runner${busy.length === 1 ? " is" : "s are"} still busy: ${busy.map(describeBusy).join(", ")}`
    : "";
  const otherText = others.length ? `${others.length} still tearing down: ${others.map((c) => `${c.runner.name} (${c.verdict.reason})`).join(", ")}` : "";
  return new DrainError(
    `${label}: not deleted ${after}: ${[busyText, otherText].filter(Boolean).join("; ")}. The scale set stays disabled and ` +
      `running jobs are not interrupted. ${RETRY_NOTE}; raise drain.timeoutSeconds to wait longer in one run.`,
  );
}
