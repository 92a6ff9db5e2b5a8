// Resource options a dynamic provider never sees: the TypeScript classes carry them as inputs no kind declares
// (registry/kinds.ts), and the provider's entry (dynamic-import.ts) takes them out before any kind method runs. What
// a kind needs of them, it asks here, within the create the entry runs for it.
import { AsyncLocalStorage } from "node:async_hooks";

/** The options of the create running now. */
export interface CreateOptions {
  /**
   * Pulumi's `retainOnDelete`: the engine will never delete this resource, nor the generation its create replaces. A
   * scale set's create therefore does not retire the generation it replaces (kinds/scaleset/succession.ts).
   */
  readonly retainOnDelete: boolean;
}

const current = new AsyncLocalStorage<CreateOptions>();

/** Runs `create` with `options` as what `createOptions()` answers within it. */
export function withCreateOptions<T>(options: CreateOptions, create: () => T): T {
  return current.run(options, create);
}

/** The options of the create running now; none set (the plugin, which is never told) reads as all false. */
export function createOptions(): CreateOptions {
  return current.getStore() ?? { retainOnDelete: false };
}
