// Retires a scale set without failing a running job: disable, drain, delete, verify (garm-api.md Appendix B). Each
// pass lists, classifies (classify.ts) and acts; the loop is bounded by the drain timeout, after which it fails and
// Pulumi keeps the resource in its state (RETRY_NOTE says what the next runs do with it).
import type { GarmClient, InstanceView, ScaleSetView } from "../garm/client";
import type { WaitForChange } from "../garm/events-wait";
import { GarmApiError, isGarmError, isTransient } from "../garm/errors";
import { ChangeLog, type Logger, formatDuration } from "../log";
import { RUNNER_STATE_WORDS, type RunnerState, type RunnerVerdict, classifyRunner, describeJob } from "./classify";
import { DRAIN_TIMEOUT_ENV } from "./drain-override";
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
  /** Between passes: ends early on a GARM event about this scale set (events-wait.ts). Without it, sleeps the poll interval. */
  readonly wait?: WaitForChange;
  /** How often passes run, for progress lines (events-wait.ts); without it, every poll interval. */
  readonly cadence?: (pollMs: number) => string;
}

export interface DrainTarget {
  readonly id: number;
  readonly liveName: string;
  /** Whether GARM's scale set under `id` is this one: a database restore can give the id to another scale set. */
  readonly owns: (view: ScaleSetView) => boolean;
}

/** How a retire ended: deleted now, gone before, or the id now names another scale set, which was left alone. */
export type RetireOutcome = { readonly kind: "deleted" } | { readonly kind: "already-gone" } | { readonly kind: "not-ours"; readonly holder: ScaleSetView };

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

/**
 * Checks the id still names this scale set, then disables, drains and deletes it, and checks it is gone. Every retry
 * waits for the poll interval within the drain timeout.
 */
export async function retireScaleSet(target: DrainTarget, options: DrainOptions, deps: DrainDeps): Promise<RetireOutcome> {
  const { client, log, now } = deps;
  const label = `GarmScaleSet ${target.liveName} (id ${target.id})`;
  const deadline = now() + options.timeoutSeconds * 1000;
  const staleAfterMs = options.jobStaleAfterHours * 3600_000;
  const stalled: Stalled = { lastPass: [], failures: new Map() };
  // Polls repeat what nothing changed: print per change, with a slow reminder, so many drains stay readable.
  const progress = new ChangeLog(log, now);
  let checked = false;
  let disabled = false;
  // GET by id carries the instances (§2.1): an empty scale set needs no separate list before its delete.
  let knownEmpty = false;

  for (;;) {
    try {
      if (!checked) {
        const view = await getIfPresent(client, target.id);
        if (view === undefined) return { kind: "already-gone" };
        if (!target.owns(view)) return { kind: "not-ours", holder: view };
        checked = true;
        knownEmpty = view.instances.length === 0;
      }
      if (!disabled) {
        // Disabling stops GARM's listener and scale-up; max_runners 0 stops a stale desired count from keeping idle
        // runners alive (§7.6, Appendix B).
        const gone = await disable(client, target.id);
        if (gone) return { kind: "already-gone" };
        disabled = true;
      }
      const runners = knownEmpty ? [] : await client.listScaleSetInstances(target.id);
      knownEmpty = false;
      stalled.outage = undefined;
      if (runners.length === 0) {
        const outcome = await deleteAndVerify(target, label, client);
        if (outcome.kind === "gone") return { kind: "deleted" };
        stalled.refusal = outcome.refusal;
        // "enabled": disable again first; "has runners": a runner appeared between the list and the delete.
        if (outcome.kind === "enabled") disabled = false;
      } else {
        stalled.refusal = undefined;
        const jobs = await client.listJobs();
        stalled.lastPass = runners.map((runner) => ({ runner, verdict: classifyRunner(runner, jobs, now(), staleAfterMs) }));
        const acted = await actOnRunners(stalled.lastPass, label, client, log);
        recordFailures(stalled, acted);
        const pass = stalled.lastPass;
        progress.info(`draining ${passSummary(pass, acted, false)}`, (again) => progressLine(label, pass, acted, cadenceOf(deps, options), deadline - now(), again));
      }
    } catch (err) {
      if (err instanceof DrainError || !isTransient(err)) throw err;
      stalled.outage = err;
      const outage = describeOutage(err);
      progress.warn(`outage ${outage}`, () => `${label}: ${outage}; retrying every ${options.pollSeconds}s, giving up in ${formatDuration(deadline - now())}`);
    }
    const left = deadline - now();
    if (left <= 0) throw timeoutError(label, stalled, options);
    if (deps.wait) await deps.wait(options.pollSeconds * 1000, left, stalled.lastPass.map((c) => c.runner.name));
    else await deps.sleep(Math.min(options.pollSeconds * 1000, left));
  }
}

/** What kept the last passes from finishing, for the timeout message. */
interface Stalled {
  lastPass: Classified[];
  /** Runner name → why its removal failed on its last attempt. */
  failures: Map<string, string>;
  outage?: GarmApiError;
  /** GARM's answer to the last refused scale-set delete. */
  refusal?: string;
}

async function getIfPresent(client: DrainClient, id: number): Promise<ScaleSetView | undefined> {
  try {
    return await client.getScaleSet(id);
  } catch (err) {
    if (isGarmError(err, "not-found")) return undefined;
    throw err;
  }
}

/** Resolves true when GARM no longer has the scale set. */
async function disable(client: DrainClient, id: number): Promise<boolean> {
  try {
    await client.updateScaleSet(id, { enabled: false, min_idle_runners: 0, max_runners: 0 });
    return false;
  } catch (err) {
    if (isGarmError(err, "not-found")) return true;
    throw err;
  }
}

function recordFailures(stalled: Stalled, acted: Acted): void {
  const listed = new Set(stalled.lastPass.map((c) => c.runner.name));
  for (const name of [...stalled.failures.keys()]) if (!listed.has(name)) stalled.failures.delete(name);
  for (const name of [...acted.removed, ...acted.forced]) stalled.failures.delete(name);
  for (const { name, reason } of acted.failed) stalled.failures.set(name, reason);
}

function describeOutage(err: GarmApiError): string {
  return err.kind === "server-error" ? `GARM failed (${err.message})` : `GARM is unreachable (${err.message})`;
}

type DeleteOutcome = { kind: "gone" } | { kind: "enabled" | "has-runners"; refusal: string };

async function deleteAndVerify(target: DrainTarget, label: string, client: DrainClient): Promise<DeleteOutcome> {
  try {
    await client.deleteScaleSet(target.id);
  } catch (err) {
    if (isGarmError(err, "bad-request")) {
      if (/has runners|with runners/.test(err.details)) return { kind: "has-runners", refusal: err.message };
      if (/is enabled/.test(err.details)) return { kind: "enabled", refusal: err.message };
    }
    // A 404 from DELETE can come from GARM's token step while the scale set still exists (§5): verify below.
    if (!isGarmError(err, "not-found")) throw err;
  }
  const left = await getIfPresent(client, target.id);
  // An id given to another scale set right after this one went is not this one.
  if (left === undefined || !target.owns(left)) return { kind: "gone" };
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
  failed: { name: string; reason: string }[];
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
      // One runner's failure, even a 5xx, is that runner's; only losing GARM itself ends the pass.
      if (!isRunnerFailure(err)) throw err;
      acted.failed.push({ name: runner.name, reason: err.message });
    }
  }
  return acted;
}

/** A failed call about one runner, as opposed to GARM being unreachable or refusing our credentials. */
function isRunnerFailure(err: unknown): err is GarmApiError {
  return isGarmError(err) && !["connection", "auth-failed", "init-required", "urls-required"].includes(err.kind);
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

/** The order runner states appear in a progress line: what holds the drain first. */
const STATE_ORDER: readonly RunnerState[] = ["busy", "idle", "failed", "stuck", "force-removing", "creating", "removing", "stopped", "unknown"];

/** What this pass found and did, e.g. `1 busy [...]; 1 being created [garm-x pending_create]`; ages only `withAges`. */
function passSummary(pass: readonly Classified[], acted: Acted, withAges: boolean): string {
  const failed = new Set(acted.failed.map((f) => f.name));
  const parts = STATE_ORDER.map((state) => {
    const group = pass.filter((c) => c.verdict.state === state && !failed.has(c.runner.name));
    if (group.length === 0) return "";
    return `${STATE_VERB[state] ?? ""}${group.length} ${RUNNER_STATE_WORDS[state]} [${group.map((c) => describeRunner(c, withAges)).join(", ")}]`;
  });
  if (acted.failed.length) parts.push(`could not remove [${acted.failed.map((f) => `${f.name} (${f.reason})`).join("; ")}]`);
  return parts.filter(Boolean).join("; ");
}

/** What this pass does to the runners in a state it acts on; GARM already force-removes a pending_force_delete one. */
const STATE_VERB: Readonly<Partial<Record<RunnerState, string>>> = { idle: "removing ", failed: "removing ", stuck: "force-removing " };

function cadenceOf(deps: DrainDeps, options: DrainOptions): string {
  return deps.cadence?.(options.pollSeconds * 1000) ?? `every ${options.pollSeconds}s`;
}

function progressLine(label: string, pass: readonly Classified[], acted: Acted, cadence: string, leftMs: number, reminder: boolean): string {
  const still = reminder ? "still " : "";
  return `${label}: ${still}draining: ${passSummary(pass, acted, true)}; checking ${cadence}, giving up in ${formatDuration(leftMs)}`;
}

function describeRunner(c: Classified, withAges: boolean): string {
  switch (c.verdict.state) {
    case "busy":
      return describeBusy(c, withAges);
    case "creating":
    case "removing":
    case "unknown":
      return c.runner.status ? `${c.runner.name} ${c.runner.status}` : c.runner.name;
    default:
      return c.runner.name;
  }
}

function describeBusy({ runner, verdict }: Classified, withAge = true): string {
  if (!verdict.job) return `${runner.name}: ${verdict.reason}`;
  const age = verdict.jobAgeMs === undefined || !withAge ? "" : ` for ${formatDuration(verdict.jobAgeMs)}`;
  return `${runner.name}: job ${describeJob(verdict.job)} ${verdict.job.status}${age}`;
}

function timeoutError(label: string, stalled: Stalled, options: DrainOptions): DrainError {
  const after = `after ${formatDuration(options.timeoutSeconds * 1000)}`;
  if (stalled.outage) {
    return new DrainError(`${label}: could not finish draining ${after}: ${describeOutage(stalled.outage)}. ${RETRY_NOTE}.`);
  }
  const pass = stalled.lastPass;
  const busy = pass.filter((c) => c.verdict.action === "leave");
  const others = pass.filter((c) => c.verdict.action !== "leave");
  const busyText = busy.length
    ? `${busy.length} runner${busy.length === 1 ? " is" : "s are"} still busy: ${busy.map((c) => describeBusy(c)).join(", ")}`
    : "";
  const why = (c: Classified) => {
    const failure = stalled.failures.get(c.runner.name);
    return failure ? `could not remove: ${failure}` : c.verdict.reason;
  };
  const otherText = others.length
    ? `${others.length} not removed yet: ${others.map((c) => `${c.runner.name} (${RUNNER_STATE_WORDS[c.verdict.state]}: ${why(c)})`).join(", ")}`
    : "";
  const refusalText = stalled.refusal ? `GARM refused the delete: ${stalled.refusal}` : "";
  return new DrainError(
    `${label}: not deleted ${after}: ${[refusalText, busyText, otherText].filter(Boolean).join("; ")}. The scale set stays disabled and ` +
      `running jobs are not interrupted. ${RETRY_NOTE}. To wait longer in one run, set ${DRAIN_TIMEOUT_ENV} (e.g. 1800) in its environment.`,
  );
}
