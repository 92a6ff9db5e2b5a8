// Installing and removing the GitHub webhook of an organization or repository through GARM (runner/pool/pool.go
// L2204-2345): GARM lists the entity's hooks in GitHub, refuses a second hook for its controller (409), creates the hook
// with the entity's webhook secret, and on removal deletes only the hook pointing at its controller webhook URL.
import type { EntityCalls, EntityKind } from "../../garm/client";
import { isGarmError } from "../../garm/errors";

const NO_ROUTE =
  "GARM serves no webhook route, so its webhook management is off: set enable_webhook_management = true in the [default] " +
  "section of GARM's config and restart GARM, or set installWebhook: false and install the webhook yourself";

const NO_URL = "GARM's controller has no webhook URL: set it (a GarmController's webhookUrl, or garm-cli controller update --webhook-url) and run again";

type HookCalls = Pick<EntityCalls, "installWebhook" | "uninstallWebhook">;

/**
 * Installs the hook, signed with the secret GARM holds for the entity now. A hook GARM already has for this controller
 * (409 "hook already installed" for the same URL, runner/pool/util.go L141-142) may have been made with an older
 * secret, and GARM never edits a hook (runner/pool/pool.go L2246-2269), so it is made again.
 */
export async function installWebhook(api: HookCalls, kind: EntityKind, id: string, label: string): Promise<void> {
  try {
    await api.installWebhook(kind, id);
  } catch (err) {
    if (isGarmError(err, "conflict") && /hook already installed/.test(err.details)) return replaceWebhook(api, kind, id, label);
    throw new Error(`${label}: installing its webhook failed: ${whyHookFailed(err)}`);
  }
}

/**
 * Makes GARM's hook again, so that GitHub signs with the entity's current secret. GitHub holds no hook between the two
 * calls, so a delivery in that moment is lost; the alternative, a hook GARM rejects every delivery of, is worse.
 */
export async function replaceWebhook(api: HookCalls, kind: EntityKind, id: string, label: string): Promise<void> {
  await removeWebhook(api, kind, id, label);
  try {
    await api.installWebhook(kind, id);
  } catch (err) {
    throw new Error(`${label}: installing its webhook again failed: ${whyHookFailed(err)}`);
  }
}

/** Removes the hook; one already gone is fine. */
export async function removeWebhook(api: Pick<EntityCalls, "uninstallWebhook">, kind: EntityKind, id: string, label: string): Promise<void> {
  try {
    await api.uninstallWebhook(kind, id);
  } catch (err) {
    // No hook for this controller is no error (pool.go L2230-2243); a 404 means the entity itself is gone.
    if (isGarmError(err, "not-found")) return;
    throw new Error(`${label}: removing its webhook failed: ${whyHookFailed(err)}`);
  }
}

/**
 * After GARM's controller webhook URL changed: the hook made again unless GARM sees one already (GetWebhookInfo looks
 * for a hook at GARM's current URL, pool.go L2347-2381). A GarmController's update moves the hooks; this installs the
 * one that is missing still. Answers whether anything was installed.
 */
export async function followWebhookUrl(api: HookCalls & Pick<EntityCalls, "getWebhook">, kind: EntityKind, id: string, label: string): Promise<boolean> {
  if ((await webhookPresent(api, kind, id)) === true) return false;
  await installWebhook(api, kind, id, label);
  return true;
}

/** Whether GARM sees its hook in GitHub; undefined when it cannot tell (no route, GitHub unreachable). */
export async function webhookPresent(api: Pick<EntityCalls, "getWebhook">, kind: EntityKind, id: string): Promise<boolean | undefined> {
  try {
    const hook = await api.getWebhook(kind, id);
    return hook.id !== 0;
  } catch (err) {
    // GetWebhookInfo answers NotFound "hook not found" when no hook points at this controller (pool.go L2378).
    if (isGarmError(err, "not-found") && /hook not found/.test(err.details)) return false;
    return undefined;
  }
}

function whyHookFailed(err: unknown): string {
  if (isGarmError(err, "unknown-route")) return NO_ROUTE;
  if (isGarmError(err, "bad-request") && /controller webhook url is empty/.test(err.details)) return NO_URL;
  if (isGarmError(err, "conflict") && /containing the controller ID or hostname/.test(err.details)) {
    // validateHookRequest (runner/pool/util.go L128-153) finds a hook with GARM's controller id or host in its URL: made
    // for a webhook URL GARM held before. GARM removes only a hook at its current URL (pool.go L2204-2243).
    return (
      `${err.message}; GitHub holds a hook whose URL has GARM's controller id or host in it: one made for GARM's former webhook URL, ` +
      "which GARM can no longer remove (a GarmController moves the hooks when it changes webhookUrl), or another hook on GARM's host; " +
      "remove it there (repository or organization settings, Webhooks) and run again"
    );
  }
  if (isGarmError(err, "conflict")) {
    return `${err.message}; another webhook pointing at this GARM is installed in GitHub: remove it there (repository or organization settings, Webhooks) and run again`;
  }
  return (err as Error).message;
}
