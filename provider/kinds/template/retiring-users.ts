// A template delete beside the retire of the scale sets and pools that use it. A program `pulumi import --file` wrote
// names a template by its number (`templateId: 3`), which Pulumi never turns into a reference (pulumi-behaviour.md
// §2.6), so `pulumi destroy` deletes the template while those scale sets and pools drain. GARM refuses to delete a
// template in use (database/sql/templates.go L265-267); the delete waits while every user is disabled, which is what a
// retire does first, and fails naming them as soon as one is enabled, since then nothing is retiring it.
import { type Dependent, type RefusalWords, entityDetail, refusalOf } from "../../common/dependents";
import { isCancelled } from "../../common/cancel";
import { type Logger, formatDuration } from "../../common/log";
import type { GarmClient } from "../../garm/client";
import { DRAIN_DEFAULTS } from "../../runners/drain/options";

/** A retire disables first; one poll lets a retire that began beside this delete get there. */
const ENABLED_GRACE_POLLS = 1;

export interface RetiringWaitDeps {
  readonly log: Logger;
  readonly now: () => number;
  /** Rejects with the cancellation when the instance is cancelled. */
  readonly sleep: (ms: number) => Promise<void>;
}

export interface RetiringWaitOptions {
  /** How long to wait for disabled users to go: a retire's default drain timeout and a minute for its delete. */
  readonly timeoutMs?: number;
  readonly pollMs?: number;
}

export const RETIRING_WAIT_DEFAULTS = { timeoutMs: (DRAIN_DEFAULTS.timeoutSeconds + 60) * 1000, pollMs: 2000 } as const;

interface User extends Dependent {
  readonly enabled: boolean;
}

async function usersOf(client: Pick<GarmClient, "listScaleSets" | "listPools">, templateId: number): Promise<User[]> {
  const [sets, pools] = await Promise.all([client.listScaleSets(), client.listPools()]);
  return [
    ...sets.filter((s) => s.templateId === templateId).map((s) => ({ kind: "scale set", name: s.name, id: String(s.id), enabled: s.enabled, detail: entityDetail(s) })),
    ...pools.filter((p) => p.templateId === templateId).map((p) => ({ kind: "pool", id: p.id, enabled: p.enabled, detail: entityDetail(p) })),
  ];
}

const refusal = (users: readonly Dependent[], words: RefusalWords) => refusalOf({ found: users, unlisted: [] }, words)!;

/**
 * Resolves once no scale set or pool uses the template. Throws the refusal naming the users when one is enabled (after
 * one poll's grace), when disabled ones are still there after the timeout, and when the instance is cancelled.
 */
export async function awaitRetiringUsers(
  client: Pick<GarmClient, "listScaleSets" | "listPools">,
  templateId: number,
  words: RefusalWords,
  deps: RetiringWaitDeps,
  options: RetiringWaitOptions = {},
): Promise<void> {
  const { timeoutMs, pollMs } = { ...RETIRING_WAIT_DEFAULTS, ...options };
  const started = deps.now();
  let enabledPolls = 0;
  let told = "";
  for (;;) {
    const users = await usersOf(client, templateId);
    if (users.length === 0) return;
    const enabled = users.filter((u) => u.enabled);
    enabledPolls = enabled.length > 0 ? enabledPolls + 1 : 0;
    if (enabledPolls > ENABLED_GRACE_POLLS) throw refusal(enabled, { ...words, remedy: `They are enabled, so nothing is retiring them. ${words.remedy}` });
    const waited = deps.now() - started;
    if (waited >= timeoutMs) throw refusal(users, { ...words, remedy: `They were still there after ${formatDuration(waited)} of waiting for their retire. ${words.remedy}` });
    const line = `${words.label}: waiting for ${users.length} scale set(s) and pool(s) using it to be deleted (up to ${formatDuration(timeoutMs - waited)} more)`;
    // One line when the waiting starts and when what it waits for changes, not one per poll.
    const key = users.map((u) => u.id).join(",");
    if (key !== told) deps.log.info(line);
    told = key;
    try {
      await deps.sleep(pollMs);
    } catch (err) {
      if (isCancelled(err)) throw refusal(users, { ...words, remedy: `The wait for their retire was cancelled. ${words.remedy}` });
      throw err;
    }
  }
}
