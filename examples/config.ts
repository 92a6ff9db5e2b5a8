// What every example program needs to know about the GARM host it manages. The demo and the tests fill it in for the
// GARM simulator; a real project would fill it in from its own stack config (see README.md).

/** Settings of the GARM host the examples manage. GARM's URL and credentials are stack config (garm:url, ...). */
export interface ExampleConfig {
  /** GARM's config file; each GarmProvider edits its own managed block in it. */
  readonly garmConfigPath: string;
  /** Absolute path of the external provider executable GARM runs (a fake one against the simulator). */
  readonly providerExecutable: string;
  /** Restarts GARM so it loads provider changes, e.g. "systemctl restart garm". */
  readonly restartCommand: string;
  /** GitHub organization registered in GARM. Defaults to "acme" (seeded in the simulator). */
  readonly organization?: string;
  /** Labels appended to the example's own; changing them replaces the scale set. */
  readonly extraLabels?: readonly string[];
  /** Drain settings for deletes; the examples default to quick polls so a demo does not wait 5s per check. */
  readonly drain?: { readonly timeoutSeconds?: number; readonly pollSeconds?: number };
}

/** The value each example exports: a Pulumi program, runnable inline (Automation API) or from a project's index.ts. */
export type ExampleProgram = () => Promise<Record<string, unknown>>;

/** Drain options of the examples: poll every second (the provider default is 5s), give up after 2 minutes. */
export function drainOptions(cfg: ExampleConfig): { timeoutSeconds: number; pollSeconds: number } {
  return { timeoutSeconds: cfg.drain?.timeoutSeconds ?? 120, pollSeconds: cfg.drain?.pollSeconds ?? 1 };
}
