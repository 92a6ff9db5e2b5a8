// check(): validates GarmProvider inputs field by field before anything is touched (it also runs in preview, so it
// only reads), and applies defaults.
import * as path from "node:path";
import { handWrittenProviderNames } from "./garm-config";
import { readBlockOwner } from "./managed-block";
import { describeOwner, foreignOwner, TAKE_OVER_HINT } from "./ownership";
import {
  INTERFACE_VERSIONS,
  ownerOf,
  PROVIDER_NAME_PATTERN,
  UNKNOWN,
  withDefaults,
} from "./inputs";

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface CheckContext {
  /** Reads the GARM config file; a rejection makes the collision rule pass (create reports the problem). */
  readConfig(file: string): Promise<string>;
}

const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

type Rule = (inputs: Record<string, unknown>) => CheckFailure | CheckFailure[] | undefined;

function absolutePath(field: string, required: boolean): Rule {
  return (inputs) => {
    const v = inputs[field];
    if (v === undefined || v === null) {
      return required ? { property: field, reason: `${field} is required: expected an absolute path` } : undefined;
    }
    if (typeof v !== "string" || !path.posix.isAbsolute(v) || v.includes("\0")) {
      return { property: field, reason: `${field} ${show(v)} is not an absolute path: expected a path starting with "/"` };
    }
    return undefined;
  };
}

const rules: Record<string, Rule> = {
  name: ({ name }) => {
    if (name === undefined || name === null || name === "") {
      return { property: "name", reason: "name is required: expected a non-empty GARM provider name" };
    }
    if (typeof name !== "string" || !PROVIDER_NAME_PATTERN.test(name)) {
      return {
        property: "name",
        reason: `name ${show(name)} is not a valid GARM provider name: expected letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters`,
      };
    }
    return undefined;
  },
  description: ({ description }) =>
    typeof description === "string"
      ? undefined
      : { property: "description", reason: `description ${show(description)} is not a string: expected text` },
  executable: absolutePath("executable", true),
  configFile: absolutePath("configFile", false),
  environmentVariables: ({ environmentVariables: v }) => {
    if (!Array.isArray(v)) {
      return {
        property: "environmentVariables",
        reason: `environmentVariables ${show(v)} is not a list: expected an array of variable name prefixes such as ["PATH", "OS_"]`,
      };
    }
    const failures: CheckFailure[] = [];
    v.forEach((item, i) => {
      if (item === UNKNOWN) return;
      if (typeof item !== "string" || item.trim() === "") {
        failures.push({
          property: `environmentVariables[${i}]`,
          reason: `environmentVariables[${i}] ${show(item)} is not a non-empty string: expected a variable name prefix such as "OS_"`,
        });
      } else if (item.startsWith("GARM")) {
        failures.push({
          property: `environmentVariables[${i}]`,
          reason: `environmentVariables[${i}] ${show(item)} starts with GARM: GARM never forwards its own variables, expected another prefix`,
        });
      }
    });
    return failures;
  },
  interfaceVersion: ({ interfaceVersion: v }) =>
    (INTERFACE_VERSIONS as readonly unknown[]).includes(v)
      ? undefined
      : {
          property: "interfaceVersion",
          reason: `interfaceVersion ${show(v)} is not supported: expected one of ${INTERFACE_VERSIONS.map((x) => `"${x}"`).join(", ")}`,
        },
  garmConfigPath: absolutePath("garmConfigPath", true),
  restartCommand: ({ restartCommand: v }) =>
    typeof v === "string" && v.trim() !== ""
      ? undefined
      : {
          property: "restartCommand",
          reason: `restartCommand ${show(v)} is empty: expected a shell command that restarts GARM, e.g. "systemctl restart garm"`,
        },
  owner: ({ owner: v }) =>
    v === undefined || v === null || ownerOf(v) || containsUnknownValue(v)
      ? undefined
      : {
          property: "owner",
          reason: `owner ${show(v)} is not an owner: expected {project, stack, resource} as strings (the SDK sets it)`,
        },
  restartTimeoutSeconds: ({ restartTimeoutSeconds: v }) =>
    typeof v === "number" && Number.isInteger(v) && v > 0
      ? undefined
      : {
          property: "restartTimeoutSeconds",
          reason: `restartTimeoutSeconds ${show(v)} is not a positive whole number of seconds: expected e.g. 60`,
        },
};

function containsUnknownValue(v: unknown): boolean {
  return typeof v === "object" && v !== null && Object.values(v).some((x) => x === UNKNOWN);
}

/** Runs every field rule on `news` (defaults applied), skipping fields whose value is not known yet. */
export function fieldFailures(inputs: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [field, rule] of Object.entries(rules)) {
    const v = inputs[field];
    // A list with some unknown elements is still checked element by element.
    if (v === UNKNOWN) continue;
    const r = rule(inputs);
    if (r) failures.push(...(Array.isArray(r) ? r : [r]));
  }
  return failures;
}

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
  if (inputs.owner === UNKNOWN || containsUnknownValue(inputs.owner)) return undefined;
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
 * check(): field rules, then the collision rules when the fields they need are valid. `olds` are the resource's
 * previous inputs: the block may still record their owner.
 */
export async function checkGarmProvider(
  news: Record<string, unknown>,
  ctx: CheckContext,
  olds: Record<string, unknown> = {},
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  const inputs = withDefaults(news);
  const failures = fieldFailures(inputs);
  if (!failures.some((f) => f.property === "name" || f.property === "garmConfigPath" || f.property === "owner")) {
    const collision = await collisionFailure(inputs, olds, ctx);
    if (collision) failures.push(collision);
  }
  return { inputs, failures };
}
