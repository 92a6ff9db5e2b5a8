// GarmEndpoint's dynamic-provider methods: check and diff are pure; create, read, update and delete talk to GARM's
// endpoint routes (garm-behaviour.md §2.5) through the process-wide client.
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient } from "../../common/connection";
import type { EndpointCreate, EndpointUpdate, EndpointView, Forge, ForgeCalls } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { describeDependent, endpointDependents, inUseError } from "../../common/dependents";
import { type Logger, consoleLogger } from "../../common/log";
import { logReplacements, replacementsFrom } from "../../common/replace-line";
import { withoutProviderKey } from "../../common/unknown";
import { adoptByName } from "../../common/adopt";
import { checkEndpointInputs } from "./check";
import { REPLACE_REASONS, URL_FIELDS, type UpdatableEndpointField, changedEndpointFields, diffEndpoint } from "./diff";
import {
  type CheckedEndpointInputs,
  DEFAULT_ENDPOINT,
  type EndpointOutputs,
  readEndpointOutputs,
  toEndpointOutputs,
} from "./inputs";

export interface EndpointDeps {
  readonly client: () => ForgeCalls;
  readonly log: Logger;
}

const defaultDeps: EndpointDeps = { client: garmClient, log: consoleLogger };

const inputsOf = (props: Record<string, unknown>) => withoutProviderKey(props) as unknown as CheckedEndpointInputs;
const label = (name: string) => `GarmEndpoint ${name}`;

/** GARM stores []byte as base64 on the wire (params/requests.go L321). */
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

function createBody(i: CheckedEndpointInputs): EndpointCreate {
  const body: EndpointCreate = { name: i.name, description: i.description, api_base_url: i.apiBaseUrl, base_url: i.baseUrl };
  if (i.forge === "github") body.upload_base_url = i.uploadBaseUrl;
  if (i.caCertBundle) body.ca_cert_bundle = base64(i.caCertBundle);
  return body;
}

/** Only the changed fields, as UpdateGithubEndpointParams' pointers (params/requests.go L383-389). */
function updateBody(i: CheckedEndpointInputs, fields: readonly UpdatableEndpointField[]): EndpointUpdate {
  const body: EndpointUpdate = {};
  for (const f of fields) {
    if (f === "description") body.description = i.description;
    if (f === "apiBaseUrl") body.api_base_url = i.apiBaseUrl;
    if (f === "uploadBaseUrl") body.upload_base_url = i.uploadBaseUrl;
    if (f === "baseUrl") body.base_url = i.baseUrl;
    if (f === "caCertBundle") body.ca_cert_bundle = base64(i.caCertBundle);
  }
  return body;
}

/** The stored outputs with what GARM holds now; provider-side options stay as stored. */
function fromView(olds: EndpointOutputs, view: EndpointView): EndpointOutputs {
  return toEndpointOutputs({
    ...olds,
    forge: view.forge,
    name: view.name,
    description: view.description,
    apiBaseUrl: view.apiBaseUrl,
    uploadBaseUrl: view.uploadBaseUrl,
    baseUrl: view.baseUrl,
    caCertBundle: view.caCertBundle,
  });
}

async function findEndpoint(client: ForgeCalls, forge: Forge, name: string): Promise<EndpointView | undefined> {
  try {
    return await client.getEndpoint(forge, name);
  } catch (err) {
    if (isGarmError(err, "not-found")) return undefined;
    throw err;
  }
}

export function endpointProviderWith(deps: EndpointDeps): pulumi.dynamic.ResourceProvider {
  return {
    configure,

    async check(_olds, news) {
      return checkEndpointInputs(news);
    },

    async diff(_id, olds, news) {
      const stored = readEndpointOutputs(olds);
      const planned = diffEndpoint(stored, news);
      logReplacements(deps.log, label(stored.name), replacementsFrom(planned.replaces ?? [], REPLACE_REASONS));
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const client = deps.client();
      if (inputs.adoptExisting) {
        const adopted = await adoptByName(
          {
            find: () => findEndpoint(client, inputs.forge, inputs.name),
            announce: () => ({ line: `${label(inputs.name)}: adopting the existing ${inputs.forge} endpoint` }),
            bringToInputs: (existing) => bringToInputs(client, fromView(toEndpointOutputs(inputs), existing), inputs),
          },
          deps.log,
        );
        if (adopted) return { id: inputs.name, outs: adopted.outs };
      }
      try {
        await client.createEndpoint(inputs.forge, createBody(inputs));
      } catch (err) {
        if (isGarmError(err, "conflict")) throw alreadyExists(inputs.name);
        throw err;
      }
      return { id: inputs.name, outs: toEndpointOutputs(inputs) };
    },

    async read(id, props) {
      const olds = readEndpointOutputs(props ?? {});
      const found = await findEndpoint(deps.client(), olds.forge, olds.name || id);
      // Gone from GARM: an empty id drops it from the state.
      if (!found) return {};
      return { id, props: { ...fromView(olds, found), __provider: props?.__provider } };
    },

    async update(_id, oldProps, newProps) {
      const olds = readEndpointOutputs(oldProps);
      const news = inputsOf(newProps);
      return { outs: await bringToInputs(deps.client(), olds, news) };
    },

    async delete(_id, props) {
      const olds = readEndpointOutputs(props);
      if (olds.name === DEFAULT_ENDPOINT && olds.forge === "github") {
        // GARM v0.2.1 would delete it and re-creates it only in an empty database (database/sql/sql.go L297-310).
        deps.log.info(`${label(olds.name)}: GARM's default endpoint is left in GARM as it is; only this stack stops managing it`);
        return;
      }
      const client = deps.client();
      const dependents = await endpointDependents(client, olds.forge, olds.name);
      if (dependents.length > 0) {
        throw inUseError(
          label(olds.name),
          "an endpoint",
          dependents,
          "Delete those first (remove them from the stack that manages them, or with garm-cli), or keep the endpoint in this program; then run again",
        );
      }
      await client.deleteEndpoint(olds.forge, olds.name);
      deps.log.info(`${label(olds.name)}: deleted from GARM`);
    },
  };

  /** PUTs the fields that differ; URLs cannot change while credentials use the endpoint (database/sql/github.go L129-139). */
  async function bringToInputs(client: ForgeCalls, olds: EndpointOutputs, news: CheckedEndpointInputs): Promise<EndpointOutputs> {
    const fields = changedEndpointFields(olds, news);
    const outs = toEndpointOutputs(news);
    if (fields.length === 0) return outs;
    if (fields.some((f) => URL_FIELDS.includes(f))) {
      const creds = (await endpointDependents(client, news.forge, news.name)).filter((d) => d.kind === "credentials");
      if (creds.length > 0) {
        throw new Error(
          `${label(news.name)}: nothing was changed, because GARM cannot change an endpoint's URLs while credentials use it; ` +
            `it is used by ${creds.map(describeDependent).join(", ")}. Keep the URLs, or create an endpoint with another name and ` +
            "move the credentials to it",
        );
      }
    }
    try {
      await client.updateEndpoint(news.forge, news.name, updateBody(news, fields));
    } catch (err) {
      if (isGarmError(err, "not-found")) {
        throw new Error(`${label(news.name)}: GARM no longer has this endpoint; run \`pulumi refresh\` to drop it from the state, then \`pulumi up\` creates it again`);
      }
      throw err;
    }
    deps.log.info(`${label(news.name)}: updated ${fields.join(", ")}`);
    return outs;
  }

  function alreadyExists(name: string): Error {
    const hint =
      name === DEFAULT_ENDPOINT
        ? `; ${DEFAULT_ENDPOINT} is GARM's default endpoint: credentials can name it ("${DEFAULT_ENDPOINT}") without a GarmEndpoint, or set adoptExisting: true to manage it`
        : "; choose another name, or set adoptExisting: true to manage it with this resource (only if no other stack manages it)";
    return new Error(`${label(name)}: GARM already has an endpoint named ${name}${hint}`);
  }
}

export const endpoint = endpointProviderWith(defaultDeps);
