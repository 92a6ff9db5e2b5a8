// Moving the GitHub webhooks of GARM's organizations and repositories when GARM's controller webhook URL changes
// (garm-behaviour.md §2.4). GARM v0.2.1 does nothing to the hooks when the URL changes (runner/runner.go L259-281), and
// afterwards cannot remove a hook at the old URL: its uninstall deletes only a hook at its current controller URL, and
// its install refuses a new hook while one with its controller id in the URL is there (runner/pool/pool.go L2204-2243,
// runner/pool/util.go L128-153). So each hook at the old URL is removed before the change and installed after it.
import type { EntityCalls, EntityKind } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import type { Logger } from "../../common/log";

export type HookMoveCalls = Pick<EntityCalls, "listEntities" | "getWebhook" | "installWebhook" | "uninstallWebhook">;

/** GARM has webhook routes for organizations and repositories only (apiserver/routers/routers.go L384-394, L442-452). */
const HOOK_KINDS: readonly EntityKind[] = ["organization", "repository"];

interface HookedEntity {
  kind: EntityKind;
  id: string;
  name: string;
}

const label = (e: HookedEntity) => `${e.kind} ${e.name} (id ${e.id})`;
/** GARM compares hook URLs so (pool.go L2216-2225). */
const sameHookUrl = (a: string, b: string) => a.replace(/\/+$/, "").toLowerCase() === b.replace(/\/+$/, "").toLowerCase();

/**
 * The entities whose GitHub hook points at `controllerUrl`, GARM's controller webhook URL now. Throws, before anything
 * changed, when GARM cannot say for one of them: its hook would be left at the old URL for good.
 */
export async function hookedEntities(api: HookMoveCalls, controllerUrl: string, log: Logger): Promise<HookedEntity[]> {
  if (controllerUrl === "") return [];
  const hooked: HookedEntity[] = [];
  const unknown: string[] = [];
  for (const kind of HOOK_KINDS) {
    for (const e of await api.listEntities(kind)) {
      const entity = { kind, id: e.id, name: e.name };
      try {
        const hook = await api.getWebhook(kind, e.id);
        if (hook.id === 0) continue;
        if (sameHookUrl(hook.url, controllerUrl)) hooked.push(entity);
        // GetWebhookInfo falls back to a hook at the base URL (pool.go L2366-2378), which someone made by hand.
        else log.warn(`GarmController: the ${label(entity)} has a webhook at ${hook.url}, made outside GARM; it stays there: change it in GitHub`);
      } catch (err) {
        if (isGarmError(err, "unknown-route")) return []; // webhook management is off: GARM installed no hook
        if (isGarmError(err, "not-found")) continue; // no hook (or the entity just went)
        unknown.push(`${label(entity)}: ${(err as Error).message}`);
      }
    }
  }
  if (unknown.length > 0) {
    throw new Error(
      `GarmController: webhookUrl not changed, because GARM could not say whether these have a webhook at its current URL, which it could no longer remove after the change: ${unknown.join("; ")}. Fix their credentials or GitHub's reachability, then run again`,
    );
  }
  return hooked;
}

/**
 * Runs `change` (the controller update) between removing each hook at the old URL and installing it for the new one.
 * A removal or the change failing puts the removed hooks back at the old URL; an install failing after the change is
 * reported with every entity left without a hook, whose resources' next update (or a refresh and `up`) installs it.
 */
export async function movingHooks<T>(
  api: HookMoveCalls,
  hooked: readonly HookedEntity[],
  log: Logger,
  change: () => Promise<T>,
  newUrl: (result: T) => string,
  settleMs = 250,
): Promise<T> {
  const removed: HookedEntity[] = [];
  const putBack = async () => {
    for (const e of removed) await api.installWebhook(e.kind, e.id).catch((err: unknown) => log.warn(`GarmController: could not put back the webhook of the ${label(e)}: ${(err as Error).message}`));
  };
  let result: T;
  try {
    for (const e of hooked) {
      await api.uninstallWebhook(e.kind, e.id);
      removed.push(e);
    }
    result = await change();
  } catch (err) {
    await putBack();
    throw err;
  }
  const url = newUrl(result);
  const failed: string[] = [];
  for (const e of hooked) {
    try {
      let hook = await api.installWebhook(e.kind, e.id);
      if (!sameHookUrl(hook.url, url)) {
        // GARM's pool managers learn the new URL through its watcher, after the PUT answered (runner/pool/watcher.go
        // L146-152): one that had not yet made the hook at the old URL, and removes it again while it still holds that.
        await api.uninstallWebhook(e.kind, e.id);
        await new Promise((resolve) => setTimeout(resolve, settleMs));
        hook = await api.installWebhook(e.kind, e.id);
      }
      if (!sameHookUrl(hook.url, url)) failed.push(`${label(e)}: GARM made it at ${hook.url}, not ${url}; delete that hook in GitHub`);
      else log.info(`GarmController: moved the webhook of the ${label(e)} to ${url}`);
    } catch (err) {
      failed.push(`${label(e)}: ${(err as Error).message}`);
    }
  }
  if (failed.length > 0) {
    throw new Error(
      `GarmController: webhookUrl changed to ${url}, but installing these webhooks again failed: ${failed.join("; ")}. Run \`pulumi up\` again: an entity resource with installWebhook and webhookUrl installs its hook (or garm-cli organization webhook install / garm-cli repository webhook install)`,
    );
  }
  return result;
}
