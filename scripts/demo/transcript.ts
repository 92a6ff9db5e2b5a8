// Turns a Pulumi CLI run and the simulator's request log into a few readable lines: what Pulumi did to each resource,
// what the provider said, and which GARM calls it made. Pulumi's own progress stream repeats every row while it works
// and carries harness noise (the dynamic-provider plugin found on PATH), so only finished steps and messages are kept.
import type { RequestLogEntry } from "../../simulator";

/** One resource row of Pulumi's progress output, e.g. `++ GarmScaleSet small create replacement [diff: ~labels]`. */
export interface ResourceStep {
  /** Pulumi's op marker: "+", "-", "~", "++", "+-", "--". */
  readonly marker: string;
  /** "GarmScaleSet", "GarmProvider". */
  readonly type: string;
  /** The Pulumi resource name. */
  readonly name: string;
  /** What happened: "create", "created", "deleted original", "replace", ... */
  readonly op: string;
  /** The rest of the row: duration, `[diff: ...]`. */
  readonly detail: string;
}

// `<marker> pulumi-nodejs:dynamic/garm:<Type> <name> <status> [(<secs>s)] [[diff: ...]]`
const RESOURCE_ROW = /^\s*(\+\+|\+-|--|\+|-|~)\s+pulumi-nodejs:dynamic\/garm:(\w+) (\S+) (.*?)\s*$/;
// Finished steps and preview verdicts; "creating", "deleting ..." rows are in-progress repeats of the same step.
const FINISHED_OP = /^(create|created|update|updated|delete|deleted|replace|replaced|same)( replacement| original)?\b/;
const STACK_ROW = /^\s*(?:[+-]\s+)?pulumi:pulumi:Stack \S+ (.*)$/;
// The stack row's status word: progress during up/destroy ("creating (1s)"), the planned op during preview ("create").
const STACK_STATUS = /^(?:(?:creat|updat|delet)(?:ing|ed|e)\b(?: \([\d.]+s\))?|running\b|same\b|\*\*[a-z ]+\*\*)?\s*/;

/** The finished resource steps of a run, in the order Pulumi printed them. */
export function resourceSteps(stdout: string): ResourceStep[] {
  const steps: ResourceStep[] = [];
  for (const line of stdout.split("\n")) {
    const m = RESOURCE_ROW.exec(line);
    if (!m) continue;
    const [, marker, type, name, rest] = m;
    const op = FINISHED_OP.exec(rest);
    if (!op) continue;
    steps.push({ marker, type, name, op: op[0], detail: rest.slice(op[0].length).trim() });
  }
  return steps;
}

/**
 * Messages the provider logged during the run (drain progress, restarts, warnings), once each. A dynamic provider's
 * log lines reach the CLI on the stack's row, not the resource's (pulumi-behaviour.md §5).
 */
export function providerMessages(stdout: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of stdout.split("\n")) {
    const m = STACK_ROW.exec(line);
    if (!m) continue;
    const text = m[1].replace(STACK_STATUS, "").trim();
    // Skip the row's counters ("1 error; 2 warnings"), Pulumi's generic "update failed" and the harness's plugin warning.
    if (text === "" || /^\d+ (warning|message|error)s?\b/.test(text) || text === "error: update failed") continue;
    if (text.includes("pulumi-resource-pulumi-nodejs")) continue;
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/** Finished resource rows and provider messages, in the order Pulumi printed them (a drain's progress, then its row). */
export function pulumiLines(stdout: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const line of stdout.split("\n")) {
    const step = resourceSteps(line)[0];
    const text = step ? formatStep(step) : providerMessages(line)[0];
    if (text === undefined || seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/**
 * The `error:` entries of Pulumi's Diagnostics section, per resource, with their continuation lines joined: what a
 * failed run says went wrong. The stack's generic "update failed" is left out.
 */
export function diagnosticsErrors(text: string): string[] {
  const out: string[] = [];
  let resource = "";
  let inDiagnostics = false;
  let current: string | undefined;
  const flush = () => {
    if (current !== undefined && !/^update failed$/.test(current)) out.push(`${resource}: ${current}`);
    current = undefined;
  };
  for (const line of text.split("\n")) {
    if (/^Diagnostics:/.test(line)) {
      inDiagnostics = true;
      continue;
    }
    if (!inDiagnostics) continue;
    if (/^\S/.test(line)) break; // the next section (Outputs:, Resources:)
    const head = /^ {2}(\S.*):$/.exec(line);
    const err = /^ {4}error: (.*)$/.exec(line);
    const more = /^ {8}(\S.*)$/.exec(line);
    if (head) {
      flush();
      resource = head[1];
    } else if (err) {
      flush();
      current = err[1];
    } else if (more && current !== undefined) {
      current += ` ${more[1]}`;
    } else {
      flush();
    }
  }
  flush();
  return [...new Set(out)];
}

/** `++ GarmScaleSet small created replacement (0.08s) [diff: ~labels]` */
export function formatStep(s: ResourceStep): string {
  return `${s.marker.padEnd(2)} ${s.type} ${s.name} ${s.op}${s.detail ? ` ${s.detail}` : ""}`;
}

export interface CallSummary {
  /** API calls other than logins. */
  readonly total: number;
  readonly reads: number;
  /** Mutating calls, e.g. "POST /organizations/{id}/scalesets", in order. */
  readonly writes: string[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export function summarizeCalls(requests: readonly RequestLogEntry[]): CallSummary {
  const calls = requests.filter((r) => !r.path.endsWith("/auth/login"));
  const writes = calls
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace(/^\/api\/v1/, "").replace(UUID, "{id}")}`);
  return { total: calls.length, reads: calls.length - writes.length, writes };
}

export function formatCalls(c: CallSummary): string {
  if (c.total === 0) return "no GARM calls";
  const writes = c.writes.length === 0 ? "no writes" : `${c.writes.length} write${c.writes.length === 1 ? "" : "s"}: ${c.writes.join(", ")}`;
  return `${c.total} GARM call${c.total === 1 ? "" : "s"} (${c.reads} read${c.reads === 1 ? "" : "s"}, ${writes})`;
}
