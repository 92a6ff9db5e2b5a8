// Polls GET /providers after a restart until GARM lists (or no longer lists) a provider the way the config file says.

/** One entry of GET /providers (garm-behaviour.md §2.3, §9.4). */
export interface ProviderListing {
  name: string;
  type: string;
  description: string;
}

/** What the listing must show: the provider present with this description, or absent. */
export type ProviderExpectation = { name: string; present: true; description: string } | { name: string; present: false };

export interface WaitOptions {
  timeoutMs: number;
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/** GARM did not show the expected provider set in time; `message` says what it showed last. */
export class ProviderWaitError extends Error {
  override readonly name = "ProviderWaitError";
}

/** Whether `list` (an answer of GET /providers) shows `want`. */
export function providerShown(list: ProviderListing[], want: ProviderExpectation): boolean {
  const found = list.find((p) => p.name === want.name);
  if (!want.present) return found === undefined;
  return found !== undefined && (found.description ?? "") === want.description;
}

/**
 * Resolves once `list()` shows `want`; GARM being unreachable in between (it is restarting) is expected.
 * @throws ProviderWaitError after `timeoutMs` with the last answer or error.
 */
export async function waitForProviders(
  list: () => Promise<ProviderListing[]>,
  want: ProviderExpectation,
  options: WaitOptions,
): Promise<void> {
  const deadline = options.now() + options.timeoutMs;
  let last = "no answer yet";
  for (;;) {
    try {
      const providers = await list();
      if (providerShown(providers, want)) return;
      const found = providers.find((p) => p.name === want.name);
      const names = providers.map((p) => p.name).sort().join(", ") || "none";
      last = !want.present
        ? `GARM still lists provider "${want.name}" (providers: ${names})`
        : found
          ? `GARM lists provider "${want.name}" with description "${found.description}" instead of "${want.description}"`
          : `GARM does not list provider "${want.name}" (providers: ${names})`;
    } catch (e) {
      last = `GARM did not answer: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`;
    }
    const left = deadline - options.now();
    if (left <= 0) break;
    await options.sleep(Math.min(options.pollMs, left));
  }
  throw new ProviderWaitError(
    `GARM did not show the change within ${Math.round(options.timeoutMs / 1000)}s after the restart: ${last}`,
  );
}
