// The implementation the serialized shim requires at run time: one ResourceProvider per resource kind.
export { scaleSet } from "./scaleset/resource";
export { garmProvider } from "./garm-provider/resource";
