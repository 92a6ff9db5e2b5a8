// The body of the by-reference provider modules (scaleset.ts, garm-provider.ts): each method loads the implementation
// on first call, so the program, which only names these modules, never loads it.
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "../shim";

type Provider = Required<pulumi.dynamic.ResourceProvider>;

/** The seven methods forwarding to `pulumi-garm/provider`'s implementation of `kind`, loaded at the first call. */
export function forwardTo(kind: ResourceKind): Provider {
  // By package name, as shim.ts does: it resolves to this package (a package may require itself through its exports),
  // and still does wherever the function's source is evaluated.
  const impl = (): Provider => require("pulumi-garm/provider")[kind];
  return {
    configure: (req) => impl().configure(req),
    check: (olds, news) => impl().check(olds, news),
    diff: (id, olds, news) => impl().diff(id, olds, news),
    create: (inputs) => impl().create(inputs),
    read: (id, props) => impl().read(id, props),
    update: (id, olds, news) => impl().update(id, olds, news),
    delete: (id, props) => impl().delete(id, props),
  };
}
