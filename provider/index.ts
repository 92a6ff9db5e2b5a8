// The implementation the serialized shim requires at run time: one ResourceProvider per resource kind.
import { credentials as credentialsImpl } from "./credentials/resource";
import { endpoint as endpointImpl } from "./endpoint/resource";
import { controller as controllerImpl } from "./controller/resource";
import { enterprise as enterpriseImpl, organization as organizationImpl, repository as repositoryImpl } from "./entity/resource";
import { garmProvider as garmProviderImpl } from "./garm-provider/resource";
import { scaleSet as scaleSetImpl } from "./scaleset/resource";
import { pool as poolImpl } from "./pool/resource";
import { template as templateImpl } from "./template/resource";
import { userFacing } from "./user-facing";

export const scaleSet = userFacing(scaleSetImpl);
export const garmProvider = userFacing(garmProviderImpl);
export const endpoint = userFacing(endpointImpl);
export const credentials = userFacing(credentialsImpl);
export const organization = userFacing(organizationImpl);
export const repository = userFacing(repositoryImpl);
export const enterprise = userFacing(enterpriseImpl);
export const controller = userFacing(controllerImpl);
export const template = userFacing(templateImpl);
export const pool = userFacing(poolImpl);
