// The state-version rule both resources follow: each output records the state shape and the pulumi-garm version that
// wrote it; a reader refuses a shape newer than it knows, since rewriting it would lose what the newer package stored.

/**
 * The installed pulumi-garm version. By package name (package.json exports it): that resolves from dist/provider/, from
 * the provider bundle (which inlines it) and from an installed copy alike.
 */
export const PACKAGE_VERSION: string = (require("pulumi-garm/package.json") as { version: string }).version;

/** The bookkeeping outputs every resource writes beside its own. */
export interface StateStamp {
  stateVersion: number;
  /** The pulumi-garm version that wrote the state, so an older reader can say which one to install; absent in old state. */
  pulumiGarmVersion?: string;
}

export function stateStamp(stateVersion: number): StateStamp {
  return { stateVersion, pulumiGarmVersion: PACKAGE_VERSION };
}

/**
 * The state version of stored outputs (1 when absent, the shape before versions were recorded). Throws when a newer
 * pulumi-garm wrote them than this one can read.
 */
export function readableStateVersion(resource: string, props: Record<string, unknown>, newestKnown: number): number {
  const version = typeof props.stateVersion === "number" ? props.stateVersion : 1;
  if (version <= newestKnown) return version;
  const writer = typeof props.pulumiGarmVersion === "string" && props.pulumiGarmVersion ? `pulumi-garm ${props.pulumiGarmVersion}` : "a newer pulumi-garm";
  throw new Error(
    `${resource} state version ${version} was written by ${writer}; this project has pulumi-garm ${PACKAGE_VERSION}, ` +
      `which reads state up to version ${newestKnown}: upgrade pulumi-garm in this project (npm install pulumi-garm@latest) and run again`,
  );
}
