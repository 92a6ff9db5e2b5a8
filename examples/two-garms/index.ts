// Two GARMs from one program: one GARM per region, each resource and function naming the GARM it lives in with the
// `garm` connection (url, username, password) instead of the stack's garm:* config, which this stack does not set.
// Each region gets a scale set on the organization GARM holds there; a label change in one region replaces that
// region's scale set only, and the other GARM is not called for it.
//
// Stack config, per region (eu and us): `<region>Url`, `<region>Username` (default admin), `<region>Password` (secret),
// optional `<region>Labels` (a JSON list, default ["linux","x64"]); shared: `organization` (default acme) and
// `providerName` (default fake), which both GARMs must hold. With `<region>GarmConfigPath` set, the region's scale set
// runs on a provider entry of its own, `<region>-fleet`, which a GarmProvider writes into that GARM's config file
// (`<region>ProviderExecutable`, `<region>RestartCommand`) and applies by restarting that GARM only.
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();

function region(name: "eu" | "us") {
  // The password stays a secret: the whole connection is kept encrypted in the state.
  const connection: garm.GarmConnectionArgs = {
    url: config.require(`${name}Url`),
    username: config.get(`${name}Username`) ?? "admin",
    password: config.requireSecret(`${name}Password`),
  };
  const controller = garm.getControllerOutput({}, { garm: connection });
  const org = garm.getOrganizationOutput({ name: config.get("organization") ?? "acme" }, { garm: connection });
  const garmConfigPath = config.get(`${name}GarmConfigPath`);
  const provider = garmConfigPath
    ? new garm.GarmProvider(`${name}-fleet`, {
        garm: connection,
        name: `${name}-fleet`,
        description: `runners of region ${name}`,
        executable: config.require(`${name}ProviderExecutable`),
        garmConfigPath,
        restartCommand: config.require(`${name}RestartCommand`),
      })
    : undefined;
  const scaleSet = new garm.GarmScaleSet(`${name}-small`, {
    garm: connection,
    name: "ci-small",
    entityId: org.id,
    providerName: provider?.name ?? config.get("providerName") ?? "fake",
    image: "ubuntu-24.04",
    flavor: "small",
    labels: config.getObject<string[]>(`${name}Labels`) ?? ["linux", "x64"],
    maxRunners: 2,
    minIdleRunners: 1,
    drain: { timeoutSeconds: 120, pollSeconds: 1 },
  });
  return { controllerId: controller.controllerId, organizationId: org.id, scaleSetId: scaleSet.scaleSetId, liveName: scaleSet.liveName, garmControllerId: scaleSet.garmControllerId };
}

export const eu = region("eu");
export const us = region("us");
