// The GarmProvider provider as a module whose exports are the provider itself. Pulumi's closure serializer writes a
// module found under node_modules as a require of its path, `require("pulumi-garm/dist/sdk/nodejs/dynamic/garm-provider.js")`
// (package.json exports it), so each resource's state holds that line instead of the source of seven forwarding
// methods (shim.ts): about 0.3 KB instead of 2.3 KB, twice per resource (inputs and outputs), which the engine rewrites
// at every step of an up or destroy.
import { forwardTo } from "./forward";

const provider = forwardTo("garmProvider");
export const { configure, check, diff, create, read, update } = provider;
const remove = provider.delete;
export { remove as delete };
