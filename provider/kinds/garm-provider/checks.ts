// check(): validates GarmProvider inputs field by field before anything is touched (it also runs in preview, so it
// only reads), and applies defaults.
import * as path from "node:path";
import { type Failure, type InputCheck, type InputRule, checkInputs } from "../../common/input-check";
import { handWrittenProviderNames } from "./garm-config";
import { findBlocks, readBlockOwner } from "./managed-block";
import { describeOwner, foreignOwner, TAKE_OVER_HINT } from "./ownership";
import { containsUnknown } from "../../common/unknown";
import { ownerOf, UNKNOWN, garmProviderInputSchema, withDefaults } from "./inputs";
import type { z } from "zod";

export type CheckFailure = Failure;

export interface CheckContext {
  /** Reads the GARM config file; a rejection makes the collision rule pass (create reports the problem). */
  readConfig(file: string): Promise<string>;
}

type Inputs = z.input<typeof garmProviderInputSchema>;

const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

function absolutePath(field: "executable" | "configFile" | "garmConfigPath"): InputRule<Inputs> {
  return (inputs, known) => {
    const v = inputs[field];
    if (!known(field) || v === undefined || (path.posix.isAbsolute(v) && !v.includes("\0"))) return [];
    return [{ property: field, reason: `${field} ${show(v)} is not an absolute path: expected a path starting with "/"` }];
  };
}

const environmentRule: InputRule<Inputs> = ({ environmentVariables: v }, known) => {
  if (!known("environmentVariables") || v === undefined) return [];
  const failures: Failure[] = [];
  v.forEach((item, i) => {
    if (item.trim() === "") {
      failures.push({ property: `environmentVariables[${i}]`, reason: `environmentVariables[${i}] ${show(item)} is not a non-empty string: expected a variable name prefix such as "OS_"` });
    } else if (item.startsWith("GARM")) {
      failures.push({
        property: `environmentVariables[${i}]`,
        reason: `environmentVariables[${i}] ${show(item)} starts with GARM: GARM never forwards its own variables, expected another prefix`,
      });
    }
  });
  return failures;
};

const restartCommandRule: InputRule<Inputs> = ({ restartCommand: v }, known) =>
  known("restartCommand") && v !== undefined && v.trim() === ""
    ? [{ property: "restartCommand", reason: `restartCommand ${show(v)} is empty: expected a shell command that restarts GARM, e.g. "systemctl restart garm"` }]
    : [];

/** Types from the input schema (worded below where the schema's own words say too little), then the rules. */
const GARM_PROVIDER_CHECK: InputCheck<Inputs> = {
  schema: garmProviderInputSchema,
  resource: "GarmProvider",
  expected: {
    name: 'a GARM provider name: letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters',
    environmentVariables: 'a list of variable name prefixes such as ["PATH", "OS_"]',
    restartTimeoutSeconds: "a positive whole number of seconds, e.g. 60",
    owner: "{project, stack, resource} as strings (the SDK sets it)",
  },
  rules: [absolutePath("executable"), absolutePath("configFile"), absolutePath("garmConfigPath"), environmentRule, restartCommandRule],
  withDefaults: (inputs) => withDefaults(inputs),
};

/**
 * Refuses a name already defined by a hand-written `[[provider]]` entry (GARM would refuse to start with the
 * duplicate, garm-behaviour.md §9.1, and only after the restart), or by another owner's managed block.
 */
async function collisionFailure(
  inputs: Record<string, unknown>,
  olds: Record<string, unknown>,
  ctx: CheckContext,
): Promise<CheckFailure | undefined> {
  const { name, garmConfigPath } = inputs;
  if (typeof name !== "string" || name === UNKNOWN || typeof garmConfigPath !== "string" || garmConfigPath === UNKNOWN) {
    return undefined;
  }
  let text: string;
  try {
    text = await ctx.readConfig(garmConfigPath);
  } catch {
    return undefined;
  }
  const handWritten = handWrittenProviderNames(text);
  if (!handWritten?.includes(name)) return ownerFailure(text, name, garmConfigPath, inputs, olds);
  // The resource already has this name in this file and no block of its own there: it was imported from that very
  // entry, which its first update marks (a block beside the entry is the duplicate GARM refuses).
  if (olds.name === name && olds.garmConfigPath === garmConfigPath && !hasBlock(text, name, garmConfigPath)) return undefined;
  return {
    property: "name",
    reason: `name "${name}" is already used by a hand-written [[provider]] entry in ${garmConfigPath} (outside pulumi-garm's managed blocks): expected a name no other entry uses; remove or rename that entry, or choose another name`,
  };
}

function ownerFailure(
  text: string,
  name: string,
  file: string,
  inputs: Record<string, unknown>,
  olds: Record<string, unknown>,
): CheckFailure | undefined {
  if (containsUnknown(inputs.owner)) return undefined;
  let recorded;
  try {
    recorded = readBlockOwner(text, name, file);
  } catch {
    return undefined; // a broken block: create and update report it with the remedy
  }
  const holder = foreignOwner(recorded, ownerOf(inputs.owner), ownerOf(olds.owner));
  if (!holder) return undefined;
  return {
    property: "name",
    reason: `name "${name}" is already managed in ${file} by ${describeOwner(holder)}: expected a name no other GarmProvider manages; ${TAKE_OVER_HINT}`,
  };
}

/**
 * check(): the input pipeline's types and field rules, then the collision rules when the fields they need are valid. `olds` are the resource's
 * previous inputs: the block may still record their owner.
 */
export async function checkGarmProvider(
  news: Record<string, unknown>,
  ctx: CheckContext,
  olds: Record<string, unknown> = {},
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  const { inputs, failures } = checkInputs(GARM_PROVIDER_CHECK, news);
  if (!failures.some((f) => ["name", "garmConfigPath", "owner"].includes(f.property.split(/[.[]/)[0]!))) {
    const collision = await collisionFailure(inputs, olds, ctx);
    if (collision) return { inputs: news, failures: [...failures, collision] };
  }
  return { inputs, failures };
}

function hasBlock(text: string, name: string, file: string): boolean {
  try {
    return findBlocks(text, file).some((b) => b.name === name);
  } catch {
    return true; // broken markers: the refusal stands, and create and update say what to fix
  }
}
