// The implementation the serialized shim requires at run time: one ResourceProvider per resource kind.
import { credentials as credentialsImpl } from "./kinds/credentials/resource";
import { endpoint as endpointImpl } from "./kinds/endpoint/resource";
import { controller as controllerImpl } from "./kinds/controller/resource";
import { enterprise as enterpriseImpl, organization as organizationImpl, repository as repositoryImpl } from "./kinds/entity/resource";
import { garmProvider as garmProviderImpl } from "./kinds/garm-provider/resource";
import { scaleSet as scaleSetImpl } from "./kinds/scaleset/resource";
import { pool as poolImpl } from "./kinds/pool/resource";
import { template as templateImpl } from "./kinds/template/resource";
import { userFacing } from "./common/user-facing";

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
