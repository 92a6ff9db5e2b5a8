// Retires a scale set or a pool without failing a running job: disable, drain,
// delete, verify (garm-behaviour.md Appendix B). Each pass lists, classifies (classify.ts) and acts; the loop is bounded by
// the drain timeout, after which it fails and Pulumi keeps the resource in its state (retryNote says what the next runs
// do with it). What differs between the kinds is the ScaleSetOrPool handed in; the decisions are the same for both.
import type { InstanceView, JobView } from "../../garm/client";
import type { WaitForChange } from "../../common/events-wait";
import { isCancelled } from "../../common/cancel";
import { GarmApiError, isGarmError, isTransient } from "../../garm/errors";
import { ChangeLog, type Logger, formatDuration } from "../../common/log";
import { RUNNER_STATE_WORDS, type RunnerState, type RunnerVerdict, classifyRunner, describeJob } from "./classify";
import type { DrainOptions } from "./options";
import { DRAIN_TIMEOUT_ENV } from "./override";

/** GARM's answer to a refused delete of the target: it still has runners, or is still enabled. */
export type DeleteRefusal = "has-runners" | "enabled";

/** One scale set or pool as the drain sees it: the calls that differ between the kinds. */
export interface ScaleSetOrPool<View> {
  /** How messages name it, e.g. `GarmScaleSet ci-small-1a2b3c4d (id 4)`. */
  readonly label: string;
  /** "scale set" or "pool". */
  readonly noun: string;
  /** GET by id; a not-found error means it is gone. */
  get(): Promise<View>;
  /** Whether GARM's scale set or pool under this id is this one: a database restore can give the id to another. */
  owns(view: View): boolean;
  /** Whether the GET showed no runners, so the first pass needs no separate list. */
  isEmpty(view: View): boolean;
  /** Stops new runners: enabled false, no idle runners, no maximum. A not-found error means it is gone. */
  disable(): Promise<void>;
  listRunners(): Promise<InstanceView[]>;
  /** The jobs that may point at the runners, by runner name (classify.ts). */
  listJobs(): Promise<JobView[]>;
  deleteRunner(name: string, options: { forceRemove?: boolean; bypassGHUnauthorized?: boolean }): Promise<void>;
  delete(): Promise<void>;
  /** Which refusal a 400 from the delete is, or undefined when it is another error. */
  refusal(err: GarmApiError): DeleteRefusal | undefined;
  /** Why GARM may still hold it after answering the delete with success, and what to do. */
  readonly keptAfterDelete: string;
}

export interface DrainDeps {
  readonly log: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Between passes: ends early on a GARM event about this scale set or pool, including one that came while the pass
   * before it read GARM, so it listens from before the first pass (events-wait.ts). Without it, sleeps the poll interval.
   */
  readonly wait?: WaitForChange;
  /** How often passes run, for progress lines (events-wait.ts); without it, every poll interval. */
  readonly cadence?: (pollMs: number, leftMs: number) => string;
  /**
   * The provider instance's cancellation (../../common/cancel.ts): no pass starts once it aborts, and `sleep` and
   * `wait` reject with it; the retire then fails with cancelledError's message.
   */
  readonly cancel?: AbortSignal;
}

/** A drain's deps from what a kind holds and, while GARM's events are open, its waiter on them. */
export function drainDepsOf(
  deps: Pick<DrainDeps, "log" | "now" | "sleep" | "cancel">,
  waiter: Pick<DrainDeps, "wait" | "cadence"> | undefined,
): DrainDeps {
  return { log: deps.log, now: deps.now, sleep: deps.sleep, wait: waiter?.wait, cadence: waiter?.cadence, cancel: deps.cancel };
}

/**
 * How a retire ended: deleted now (after draining runners, or with none to drain), gone before, or the id now names
 * another target, which was left alone.
 */
export type RetireOutcome<View> =
  | { readonly kind: "deleted"; readonly drained: boolean }
  | { readonly kind: "already-gone" }
  | { readonly kind: "not-ours"; readonly holder: View };

/** The delete could not finish; the message says why and what happens next. */
export class DrainError extends Error {
  override readonly name = "DrainError";
}

/** What the next runs do with a scale set or pool whose delete did not finish: Pulumi keeps it in state, disabled at 0 runners. */
const RETRY_NOTE =
  "Pulumi keeps it in its state: the next `pulumi destroy` retries the delete, and so does the next `pulumi up` if the " +
  "program no longer declares it or it was being replaced; a `pulumi up` of a program that still declares it enables it " +
  "again with the program's values";

interface Classified {
  readonly runner: InstanceView;
  readonly verdict: RunnerVerdict;
}

/**
 * Checks the id still names this target, then disables, drains and deletes it, and checks it is gone. Every retry
 * waits for the poll interval within the drain timeout.
 */
export async function retireScaleSetOrPool<View>(target: ScaleSetOrPool<View>, options: DrainOptions, deps: DrainDeps): Promise<RetireOutcome<View>> {
  const { log, now } = deps;
  const label = target.label;
  const deadline = now() + options.timeoutSeconds * 1000;
  const staleAfterMs = options.jobStaleAfterHours * 3600_000;
  const stalled: Stalled = { lastPass: [], failures: new Map() };
  // Polls repeat what nothing changed: print per change, with a slow reminder, so many drains stay readable.
  const progress = new ChangeLog(log, now);
  let checked = false;
  let disabled = false;
  // GET by id carries the runners (§2.1): an empty one needs no separate list before its delete.
  let knownEmpty = false;
  // Whether a pass found runners, and so printed drain lines the end of the delete should close.
  let drained = false;

  // Where the retire is, for the message of a cancelled one: what GARM holds now and what the next run does.
  let phase: RetirePhase = "checking";
  try {
    for (;;) {
      try {
        deps.cancel?.throwIfAborted();
        if (!checked) {
          const view = await getIfPresent(target);
          if (view === undefined) return { kind: "already-gone" };
          if (!target.owns(view)) return { kind: "not-ours", holder: view };
          checked = true;
          knownEmpty = target.isEmpty(view);
        }
        if (!disabled) {
          // Disabling stops GARM's scale-up; max_runners 0 stops a stale desired count from keeping idle runners alive
          // (§7.6, Appendix B).
          phase = "disabling";
          const gone = await disable(target);
          if (gone) return { kind: "already-gone" };
          disabled = true;
        }
        phase = "draining";
        const runners = knownEmpty ? [] : await target.listRunners();
        knownEmpty = false;
        stalled.outage = undefined;
        if (runners.length === 0) {
          phase = "deleting";
          const outcome = await deleteAndVerify(target);
          if (outcome.kind === "gone") return { kind: "deleted", drained };
          phase = "draining";
          stalled.refusal = outcome.refusal;
          // "enabled": disable again first; "has runners": a runner appeared between the list and the delete.
          if (outcome.kind === "enabled") disabled = false;
        } else {
          stalled.refusal = undefined;
          drained = true;
          const jobs = await target.listJobs();
          stalled.lastPass = runners.map((runner) => ({ runner, verdict: classifyRunner(runner, jobs, now(), staleAfterMs) }));
          const acted = await actOnRunners(stalled.lastPass, target, log);
          recordFailures(stalled, acted);
          const pass = stalled.lastPass;
          progress.info(`draining ${passSummary(pass, acted, false)}`, (again) => {
            const leftMs = deadline - now();
            return progressLine(label, pass, acted, cadenceOf(deps, options, leftMs), leftMs, again);
          });
        }
      } catch (err) {
        if (err instanceof DrainError || isCancelled(err) || !isTransient(err)) throw err;
        stalled.outage = err;
        const outage = describeOutage(err);
        progress.warn(`outage ${outage}`, () => `${label}: ${outage}; retrying every ${options.pollSeconds}s, giving up in ${formatDuration(deadline - now())}`);
      }
      const left = deadline - now();
      if (left <= 0) throw timeoutError(target, stalled, options);
      if (deps.wait) await deps.wait(options.pollSeconds * 1000, left, stalled.lastPass.map((c) => c.runner.name));
      else await deps.sleep(Math.min(options.pollSeconds * 1000, left));
    }
  } catch (err) {
    if (isCancelled(err)) throw cancelledError(target, phase, stalled);
    throw err;
  }
}

/** The step a retire was at: checking the id, disabling, draining runners, or deleting and verifying. */
type RetirePhase = "checking" | "disabling" | "draining" | "deleting";

/**
 * A retire the provider instance's cancellation stopped: what GARM holds now, and what the next runs do. Every call it
 * started was let finish, so the next run's retire starts over from the state GARM is in; it never touches a busy runner.
 */
function cancelledError<View>(target: ScaleSetOrPool<View>, phase: RetirePhase, stalled: Stalled): DrainError {
  const { label, noun } = target;
  const where: Record<RetirePhase, string> = {
    checking: `cancelled before it was changed: the ${noun} is as it was`,
    // The disable was sent or about to be: it may or may not have landed, and the next run sends it again.
    disabling: `cancelled while disabling it: the ${noun} is disabled, or still enabled if GARM had not received the change`,
    draining: `cancelled while draining: the ${noun} stays disabled${stalled.lastPass.length ? `, its runners as last seen: ${passSummary(stalled.lastPass, NOTHING_ACTED, false)}` : ""}; running jobs are not interrupted`,
    deleting: `cancelled while deleting it: GARM may have deleted the ${noun} already, or holds it disabled with no runners`,
  };
  return new DrainError(`${label}: ${where[phase]}. ${RETRY_NOTE}.`);
}

const NOTHING_ACTED: Acted = { removed: [], forced: [], failed: [] };

/** What kept the last passes from finishing, for the timeout message. */
interface Stalled {
  lastPass: Classified[];
  /** Runner name → why its removal failed on its last attempt. */
  failures: Map<string, string>;
  outage?: GarmApiError;
  /** GARM's answer to the last refused scale-set delete. */
  refusal?: string;
}

async function getIfPresent<View>(target: ScaleSetOrPool<View>): Promise<View | undefined> {
  try {
    return await target.get();
  } catch (err) {
    if (isGarmError(err, "not-found")) return undefined;
    throw err;
  }
}

/** Resolves true when GARM no longer has the target. */
async function disable<View>(target: ScaleSetOrPool<View>): Promise<boolean> {
  try {
    await target.disable();
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

type DeleteOutcome = { kind: "gone" } | { kind: DeleteRefusal; refusal: string };

async function deleteAndVerify<View>(target: ScaleSetOrPool<View>): Promise<DeleteOutcome> {
  try {
    await target.delete();
  } catch (err) {
    const refusal = isGarmError(err, "bad-request") ? target.refusal(err) : undefined;
    if (refusal) return { kind: refusal, refusal: (err as GarmApiError).message };
    // A 404 from DELETE can come from GARM's token step while the scale set still exists (§5): verify below.
    if (!isGarmError(err, "not-found")) throw err;
  }
  const left = await getIfPresent(target);
  // An id given to another scale set or pool right after this one went is not this one.
  if (left === undefined || !target.owns(left)) return { kind: "gone" };
  throw new DrainError(`${target.label}: GARM answered the delete with success but still has the ${target.noun}; ${target.keptAfterDelete}. ${RETRY_NOTE}.`);
}

interface Acted {
  removed: string[];
  forced: string[];
  failed: { name: string; reason: string }[];
}

async function actOnRunners<View>(pass: readonly Classified[], target: ScaleSetOrPool<View>, log: Logger): Promise<Acted> {
  const acted: Acted = { removed: [], forced: [], failed: [] };
  for (const { runner, verdict } of pass) {
    if (verdict.action !== "delete" && verdict.action !== "force") continue;
    const forceRemove = verdict.action === "force";
    try {
      await removeRunner(runner.name, forceRemove, target, log);
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
async function removeRunner<View>(name: string, forceRemove: boolean, target: ScaleSetOrPool<View>, log: Logger): Promise<void> {
  try {
    await target.deleteRunner(name, { forceRemove });
  } catch (err) {
    if (isGarmError(err, "not-found")) return;
    // GARM moved it on meanwhile (its own scale-down, §7.6); v0.2.1 refuses the repeat with 400 (Appendix A).
    if (isGarmError(err, "bad-request") && /status transition|must be in one of/.test(err.details)) return;
    if (!isGarmError(err, "github-unauthorized")) throw err;
    // GitHub refused GARM's credentials (§1.5). The runner is idle, so GARM may drop it without GitHub's consent.
    log.warn(
      `${target.label}: GitHub refused GARM's credentials while removing idle runner ${name}; removing it from GARM anyway ` +
        "(bypassGHUnauthorized), so it may stay registered in GitHub until you remove it there or fix GARM's GitHub credentials",
    );
    await target.deleteRunner(name, { forceRemove, bypassGHUnauthorized: true });
  }
}

/** The order runner states appear in a progress line: what holds the drain first. */
const STATE_ORDER: readonly RunnerState[] = ["busy", "idle", "failed", "stuck", "force-removing", "creating", "removing", "stopped", "unknown"];

/** What this pass found and did, e.g. `1 busy [...]; 1 being created [garm-x pending_create]`; ages only `withAges`. */
function passSummary(pass: readonly Classified[], acted: Acted, withAges: boolean): string {
  const failed = new Set(acted.failed.map((f) => f.name));
  const parts = STATE_ORDER.map((state) => {
    const inState = pass.filter((c) => c.verdict.state === state && !failed.has(c.runner.name));
    if (inState.length === 0) return "";
    return `${STATE_VERB[state] ?? ""}${inState.length} ${RUNNER_STATE_WORDS[state]} [${inState.map((c) => describeRunner(c, withAges)).join(", ")}]`;
  });
  if (acted.failed.length) parts.push(`could not remove [${acted.failed.map((f) => `${f.name} (${f.reason})`).join("; ")}]`);
  return parts.filter(Boolean).join("; ");
}

/** What this pass does to the runners in a state it acts on; GARM already force-removes a pending_force_delete one. */
const STATE_VERB: Readonly<Partial<Record<RunnerState, string>>> = { idle: "removing ", failed: "removing ", stuck: "force-removing " };

function cadenceOf(deps: DrainDeps, options: DrainOptions, leftMs: number): string {
  return deps.cadence?.(options.pollSeconds * 1000, leftMs) ?? `every ${options.pollSeconds}s`;
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

function timeoutError<View>(target: ScaleSetOrPool<View>, stalled: Stalled, options: DrainOptions): DrainError {
  const label = target.label;
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
    `${label}: not deleted ${after}: ${[refusalText, busyText, otherText].filter(Boolean).join("; ")}. The ${target.noun} stays disabled and ` +
      `running jobs are not interrupted. ${RETRY_NOTE}. To wait longer in one run, set ${DRAIN_TIMEOUT_ENV} (e.g. 1800) in its environment.`,
  );
}
