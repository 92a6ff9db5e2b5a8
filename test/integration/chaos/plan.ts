// The campaign's vocabulary and its generator: a seed gives a sequence of steps, each an optional program edit, some
// runner activity, some faults, and one Pulumi operation. Steps are plain data, so a failing sequence can be printed,
// replayed and shortened by dropping steps.
import type { GitHubOp } from "../../../simulator";
import { type Rng, seeded } from "./prng";

export const LABEL_SETS = [["linux", "x64"], ["linux", "x64", "gpu"], ["linux", "arm64"]] as const;
export const PROVIDERS = { pa: "fake-a", pb: "fake-b" } as const;
export type ProviderKey = keyof typeof PROVIDERS;
export const SCALE_SETS = ["s0", "s1", "s2"] as const;

export interface ScaleSetSpec {
  labels: number;
  maxRunners: number;
  minIdleRunners: number;
  provider: ProviderKey;
  naming: "hashed" | "exact";
}
export type ProgramModel = Record<string, ScaleSetSpec>;

export type Edit =
  | { kind: "add"; name: string; spec: ScaleSetSpec }
  | { kind: "remove"; name: string }
  | { kind: "scale"; name: string; maxRunners: number; minIdleRunners: number }
  | { kind: "labels"; name: string; labels: number }
  | { kind: "move"; name: string; provider: ProviderKey };

/** Runner activity before the operation; targets are the program's scale sets, found in GARM when the step runs. */
export type RunnerAction =
  | { kind: "busy" | "idle" | "stuck"; target: string }
  | { kind: "finish-jobs" };

export type Fault =
  | { kind: "drop"; n: number }
  | { kind: "lose"; method: string; path: string }
  /** The answer is lost and GARM goes away at that moment, so the follow-up lookups fail too. */
  | { kind: "lose-then-outage"; method: string; path: string; forMs: number }
  | { kind: "outage"; afterMs: number; forMs: number }
  | { kind: "tokens"; afterMs: number }
  | { kind: "github"; op: GitHubOp; status: 401 | 403 | 500; count: number }
  | { kind: "kill"; afterMs: number }
  | { kind: "restart"; afterMs: number };

export type Operation = "up" | "preview" | "refresh" | "destroy";

export interface Step {
  edit?: Edit;
  runners: RunnerAction[];
  faults: Fault[];
  op: Operation;
}

/** The program after the edits, in order. An edit that no longer applies (its scale set is gone) is skipped. */
export function programAfter(steps: readonly Step[]): ProgramModel {
  const program: ProgramModel = {};
  for (const { edit } of steps) {
    if (!edit) continue;
    const spec = program[edit.name];
    switch (edit.kind) {
      case "add":
        if (!spec) program[edit.name] = { ...edit.spec };
        break;
      case "remove":
        delete program[edit.name];
        break;
      case "scale":
        if (spec) Object.assign(spec, { maxRunners: edit.maxRunners, minIdleRunners: edit.minIdleRunners });
        break;
      case "labels":
        if (spec) spec.labels = edit.labels;
        break;
      case "move":
        if (spec) spec.provider = edit.provider;
        break;
    }
  }
  return program;
}

const LOSABLE: readonly [string, string][] = [
  ["POST", "/scalesets$"],
  ["PUT", "/scalesets/\\d+$"],
  ["DELETE", "/scalesets/\\d+$"],
  ["DELETE", "/instances/"],
  ["GET", "/scalesets/\\d+$"],
];

function randomSpec(rng: Rng, name: string): ScaleSetSpec {
  const maxRunners = rng.int(1, 3);
  return {
    labels: rng.int(0, LABEL_SETS.length - 1),
    maxRunners,
    minIdleRunners: rng.int(0, Math.min(1, maxRunners)),
    provider: rng.pick(["pa", "pb"] as const),
    // One scale set keeps its name exact, so replacements of it delete first.
    naming: name === "s2" ? "exact" : "hashed",
  };
}

function randomEdit(rng: Rng, program: ProgramModel): Edit | undefined {
  const present = Object.keys(program);
  const absent = SCALE_SETS.filter((n) => !present.includes(n));
  const choices: (() => Edit | undefined)[] = [];
  if (absent.length) choices.push(() => { const name = rng.pick(absent); return { kind: "add", name, spec: randomSpec(rng, name) }; });
  if (present.length) {
    choices.push(() => ({ kind: "remove", name: rng.pick(present) }));
    choices.push(() => {
      const maxRunners = rng.int(1, 4);
      return { kind: "scale", name: rng.pick(present), maxRunners, minIdleRunners: rng.int(0, Math.min(1, maxRunners)) };
    });
    choices.push(() => ({ kind: "labels", name: rng.pick(present), labels: rng.int(0, LABEL_SETS.length - 1) }));
    choices.push(() => ({ kind: "move", name: rng.pick(present), provider: rng.pick(["pa", "pb"] as const) }));
  }
  return choices.length ? rng.pick(choices)() : undefined;
}

function randomFault(rng: Rng): Fault {
  switch (rng.int(0, 8)) {
    case 0:
      return { kind: "drop", n: rng.int(1, 3) };
    case 1: {
      const [method, path] = rng.pick(LOSABLE);
      return { kind: "lose", method, path };
    }
    case 2:
      return { kind: "outage", afterMs: rng.int(0, 1500), forMs: rng.int(500, 3000) };
    case 3:
      return { kind: "tokens", afterMs: rng.int(0, 1500) };
    case 4:
      return { kind: "github", op: rng.pick(["scaleset-create", "scaleset-delete", "runner-delete"] as const), status: rng.pick([401, 403, 500] as const), count: rng.int(1, 2) };
    case 5:
      return { kind: "kill", afterMs: rng.int(300, 3000) };
    case 6:
      return { kind: "restart", afterMs: rng.int(0, 2000) };
    case 7: {
      const [method, path] = rng.pick(LOSABLE.slice(0, 3));
      return { kind: "lose-then-outage", method, path, forMs: rng.int(3000, 8000) };
    }
    default:
      return { kind: "github", op: "scaleset-delete", status: 500, count: 1 }; // GARM's inverted delete (§5)
  }
}

/** The steps for one seed. The first step creates a scale set without faults, so later steps have something to hit. */
export function generate(seed: number, length: number): Step[] {
  const rng = seeded(seed);
  const steps: Step[] = [{ edit: { kind: "add", name: "s0", spec: randomSpec(rng, "s0") }, runners: [], faults: [], op: "up" }];
  while (steps.length < length) {
    const program = programAfter(steps);
    const roll = rng.next();
    const op: Operation = roll < 0.55 ? "up" : roll < 0.7 ? "refresh" : roll < 0.82 ? "preview" : "destroy";
    const edit = op === "up" && rng.chance(0.8) ? randomEdit(rng, program) : undefined;
    const runners: RunnerAction[] = [];
    const targets = Object.keys(program);
    if (targets.length && rng.chance(0.5)) {
      const kind = rng.pick(["busy", "busy", "idle", "stuck", "finish-jobs"] as const);
      runners.push(kind === "finish-jobs" ? { kind } : { kind, target: rng.pick(targets) });
    }
    const faults: Fault[] = [];
    if (rng.chance(0.7)) faults.push(randomFault(rng));
    if (rng.chance(0.25)) faults.push(randomFault(rng));
    steps.push({ ...(edit ? { edit } : {}), runners, faults, op });
  }
  return steps;
}
