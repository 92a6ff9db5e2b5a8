// The implementation the serialized shim requires at run time (`pulumi-garm/provider`): one ResourceProvider per kind
// of the registry, under the kind's key (`scaleSet`, `garmProvider`, ...), which state written by every version names.
import type * as pulumi from "@pulumi/pulumi";
import { garmClient } from "./common/connection";
import { keptInItsGarm } from "./common/garm-identity";
import { importedByCreate } from "./dynamic-import";
import { GARM_CONNECTION_SECRET_PATHS, inItsOwnGarm } from "./resource-garm";
import { userFacing } from "./common/user-facing";
import { BOUND_KINDS } from "./registry/implementations";
import type { KindKey } from "./registry/kinds";

// Each resource is acted on in the GARM it names (its `garm` input, else the stack's; resource-garm.ts) and only in the
// GARM it lives in; no error leaves with the value of one of the kind's secrets in it, nor with the connection's
// password; the `import` option reaches the kind's importer through create (dynamic-import.ts).
const providers = Object.fromEntries(
  BOUND_KINDS.map((kind) => {
    const support = kind.importable === true ? { importer: kind.impl.importer!, importOlds: kind.impl.importOlds } : { instead: kind.importable.instead };
    const imports = importedByCreate(kind.impl.dynamic, support, garmClient, kind.sdkClass);
    return [kind.key, userFacing(inItsOwnGarm(keptInItsGarm(imports, garmClient)), [...kind.errorSecrets, ...GARM_CONNECTION_SECRET_PATHS])];
  }),
) as Record<KindKey, pulumi.dynamic.ResourceProvider>;

export = providers;
