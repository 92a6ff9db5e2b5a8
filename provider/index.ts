// The implementation the serialized shim requires at run time: one ResourceProvider per resource kind.
import { garmProvider as garmProviderImpl } from "./garm-provider/resource";
import { scaleSet as scaleSetImpl } from "./scaleset/resource";
import { pool as poolImpl } from "./pool/resource";
import { template as templateImpl } from "./template/resource";
import { userFacing } from "./user-facing";

export const scaleSet = userFacing(scaleSetImpl);
export const garmProvider = userFacing(garmProviderImpl);
export const template = userFacing(templateImpl);
export const pool = userFacing(poolImpl);
