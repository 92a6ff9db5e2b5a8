// GarmEndpoint's dynamic-provider methods: check and diff are pure; create, read, update and delete talk to GARM's
// endpoint routes (garm-behaviour.md §2.5) through the process-wide client.
import { configure, garmClient } from "../../common/connection";
import type { EndpointCreate, EndpointUpdate, EndpointView, Forge, ForgeCalls } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { endpointUsers, refuseWhileUsed } from "../../common/dependents";
import { recordedName, sameEndpointName } from "../../garm/names";
import { type Logger, consoleLogger } from "../../common/log";
import { logReplacements, replacementsFrom } from "../../common/replace-line";
import type { KindProvider } from "../../common/planned-diff";
import { withoutProviderKey } from "../../common/unknown";
import { adoptByName } from "../../common/adopt";
import { checkEndpointInputs } from "./check";
import { endpointId, parseEndpointId } from "./id";
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
    // Never an empty one: GARM answers 400 "invalid ca_cert_bundle" (params/requests.go L428-435); diff replaces instead.
    if (f === "caCertBundle" && i.caCertBundle) body.ca_cert_bundle = base64(i.caCertBundle);
  }
  return body;
}

/** The stored outputs with what GARM holds now; provider-side options stay as stored. */
function fromView(olds: EndpointOutputs, view: EndpointView): EndpointOutputs {
  return toEndpointOutputs({
    ...olds,
    forge: view.forge,
    name: recordedName(sameEndpointName, olds.name, view.name),
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

export function endpointProviderWith(deps: EndpointDeps): KindProvider {
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
            refusal: (existing) => (existing.caCertBundle && !inputs.caCertBundle ? bundleCannotGo(inputs.name) : undefined),
            announce: () => ({ line: `${label(inputs.name)}: adopting the existing ${inputs.forge} endpoint` }),
            bringToInputs: (existing) => bringToInputs(client, fromView(toEndpointOutputs(inputs), existing), inputs),
          },
          deps.log,
        );
        if (adopted) return { id: endpointId(inputs.forge, inputs.name), outs: adopted.outs };
      }
      try {
        await client.createEndpoint(inputs.forge, createBody(inputs));
      } catch (err) {
        if (isGarmError(err, "conflict")) throw await alreadyExists(client, inputs);
        throw err;
      }
      return { id: endpointId(inputs.forge, inputs.name), outs: toEndpointOutputs(inputs) };
    },

    async read(id, props) {
      const olds = readEndpointOutputs(props ?? {});
      // The outputs name it; the id (`<forge>/<name>`, or the bare name in older state) only where they do not.
      const fromId = parseEndpointId(id);
      const found = await findEndpoint(deps.client(), olds.name ? olds.forge : (fromId.forge ?? olds.forge), olds.name || fromId.name);
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
      if (olds.forge === "github" && sameEndpointName(olds.name, DEFAULT_ENDPOINT)) {
        // GARM v0.2.1 would delete it and re-creates it only in an empty database (database/sql/sql.go L297-310).
        deps.log.info(`${label(olds.name)}: GARM's default endpoint is left in GARM as it is; only this stack stops managing it`);
        return;
      }
      const client = deps.client();
      await refuseWhileUsed(endpointUsers(client, olds.forge, olds.name), {
        label: label(olds.name),
        why: "GARM refuses to delete an endpoint still in use",
        remedy: "Delete those first (remove them from the stack that manages them, or with garm-cli), or keep the endpoint in this program; then run again",
      });
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
      await refuseWhileUsed(
        endpointUsers(client, news.forge, news.name).filter((l) => l.what === "credentials"),
        {
          label: label(news.name),
          done: "changed",
          why: "GARM cannot change an endpoint's URLs while credentials use it",
          remedy: "Keep the URLs, or create an endpoint with another name and move the credentials to it",
        },
      );
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

  /** GARM refuses an empty bundle (params/requests.go L428-435) and keeps one it is not sent: it cannot remove one in place. */
  function bundleCannotGo(name: string): string {
    return (
      `${label(name)}: not adopted: GARM's endpoint has a CA bundle and the program sets no caCertBundle, but GARM cannot remove a bundle in place; ` +
        "set caCertBundle to the certificates the forge needs (GARM's bundle stays as it is until then), then run again"
    );
  }

  /** Why GARM refused the name: one key for both forges (github.go L38, gitea.go L42), while a GET asks one forge. */
  async function alreadyExists(client: ForgeCalls, inputs: CheckedEndpointInputs): Promise<Error> {
    const name = inputs.name;
    const other: Forge = inputs.forge === "github" ? "gitea" : "github";
    const holder = await findEndpoint(client, other, name).catch(() => undefined);
    if (holder) {
      return new Error(
        `${label(name)}: GARM already has a ${other} endpoint named ${holder.name}, and one name cannot serve both forges (GARM keys endpoints by name, ignoring case); ` +
          `choose another name${inputs.adoptExisting ? `, or set forge: "${other}" to adopt that one` : ""}`,
      );
    }
    if (inputs.adoptExisting) {
      return new Error(`${label(name)}: GARM refused the name as taken, yet has no ${inputs.forge} endpoint of that name to adopt; run again, and if it persists choose another name`);
    }
    const hint =
      sameEndpointName(name, DEFAULT_ENDPOINT)
        ? `; ${DEFAULT_ENDPOINT} is GARM's default endpoint: credentials can name it ("${DEFAULT_ENDPOINT}") without a GarmEndpoint, or set adoptExisting: true to manage it`
        : "; choose another name, or set adoptExisting: true to manage it with this resource (only if no other stack manages it)";
    return new Error(`${label(name)}: GARM already has an endpoint named ${name}${hint}`);
  }
}

export const endpoint = endpointProviderWith(defaultDeps);
