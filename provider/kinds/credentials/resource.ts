// GarmCredentials' dynamic-provider methods: check and diff are pure; create, read, update and delete talk to GARM's
// credentials routes (garm-behaviour.md §2.5). The token or key goes to GARM only; no output, log line or error holds it.
import { configure, garmClient } from "../../common/connection";
import type { CredentialsUpdate, CredentialsView, ForgeCalls } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import type { Forge } from "../../garm/client";
import { credentialsUsers, refuseWhileUsed } from "../../common/dependents";
import { type Logger, consoleLogger } from "../../common/log";
import { logReplacements, replacementsFrom } from "../../common/replace-line";
import type { KindProvider } from "../../common/planned-diff";
import { digestSecret } from "../../common/secret-digest";
import { stateStamp } from "../../common/state-version";
import { withoutProviderKey } from "../../common/unknown";
import { adoptByName } from "../../common/adopt";
import { notOurs } from "../../common/holder";
import { credentialsPulumiId, describeCredentialsHolder, garmIdOfPulumiId, isSameCredentials, parseCredentialsId } from "./identity";
import { checkCredentialsInputs } from "./check";
import { REPLACE_REASONS, type UpdatableCredentialsField, changedCredentialsFields, diffCredentials } from "./diff";
import { type CheckedCredentialsInputs, type CredentialsOutputs, STATE_VERSION, readCredentialsOutputs, secretMaterial } from "./inputs";
import { sameCredentialsName, sameEndpointName } from "../../garm/names";
import { type NameHolder, nameTakenError, nameTakenFailure, renamedTo } from "../../common/name-clash";
import { readGate } from "../../runners/drained";
import type { ConfigLookup } from "../../common/secrets-from-config";

export interface CredentialsDeps {
  readonly client: () => ForgeCalls;
  readonly log: Logger;
  /** Stack config by full key, for secrets named by a key (tokenFromConfig); the plugin's Configure gives it. */
  readonly config?: ConfigLookup;
}

const defaultDeps: CredentialsDeps = { client: garmClient, log: consoleLogger };

const inputsOf = (props: Record<string, unknown>) => withoutProviderKey(props) as unknown as CheckedCredentialsInputs;
const label = (name: string, id?: number) => `GarmCredentials ${name}${id ? ` (id ${id})` : ""}`;
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** The secret part of a request: `pat` or `app` (GithubPAT, GithubApp: params/requests.go L442-451). */
function secretBody(i: CheckedCredentialsInputs): Pick<CredentialsUpdate, "pat" | "app"> {
  if (i.authType === "pat") return { pat: { oauth2_token: i.token ?? "" } };
  return { app: { app_id: i.appId ?? 0, installation_id: i.installationId ?? 0, private_key_bytes: base64(i.privateKey ?? "") } };
}

/** The outputs after a write (or an import); the secret's digest is made afresh, so state of version 1 moves to the current form. */
export async function toOutputs(id: number, i: CheckedCredentialsInputs): Promise<CredentialsOutputs> {
  const { salt, digest } = await digestSecret(secretMaterial(i));
  const outs: CredentialsOutputs = {
    credentialsId: id,
    forge: i.forge,
    name: i.name,
    description: i.description,
    endpoint: i.endpoint,
    authType: i.authType,
    secretSalt: salt,
    secretDigest: digest,
    adoptExisting: i.adoptExisting,
    ...stateStamp(STATE_VERSION),
  };
  if (i.authType === "app") Object.assign(outs, { appId: i.appId, installationId: i.installationId });
  return outs;
}

/** Other credentials of the forge holding this name: the unique index ignores case (models.go L483, L510). */
async function nameHolder(client: Pick<ForgeCalls, "listCredentials">, forge: Forge, name: string, selfId?: number): Promise<NameHolder | undefined> {
  return (await client.listCredentials(forge)).find((c) => sameCredentialsName(c.name, name) && c.id !== selfId);
}

export function credentialsProviderWith(deps: CredentialsDeps): KindProvider {
  const gate = readGate({ log: deps.log, timeoutMs: 5000 });
  return {
    configure,

    async check(olds, news) {
      const checked = checkCredentialsInputs(news, deps.config);
      const name = renamedTo(olds, withoutProviderKey(news), sameCredentialsName);
      if (name === undefined || checked.failures.length > 0) return checked;
      const forge = (checked.inputs as Partial<CheckedCredentialsInputs>).forge ?? "github";
      // Ours still has the old name, so any credentials of this forge holding the new one are others.
      const read = await gate(() => nameHolder(deps.client(), forge, name));
      if (!read.ok || read.value === undefined) return checked;
      return { ...checked, failures: [nameTakenFailure(`${forge} credentials named`, name, read.value)] };
    },

    async diff(_id, olds, news) {
      const stored = readCredentialsOutputs(olds);
      const planned = await diffCredentials(stored, news);
      logReplacements(deps.log, label(stored.name, stored.credentialsId), replacementsFrom(planned.replaces ?? [], REPLACE_REASONS));
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const client = deps.client();
      if (inputs.adoptExisting) {
        const adopted = await adoptByName(
          {
            find: async () => (await client.listCredentials(inputs.forge)).find((c) => sameCredentialsName(c.name, inputs.name)),
            refusal: (existing) => adoptRefusal(existing, inputs),
            announce: (existing) => ({ line: `${label(inputs.name, existing.id)}: adopting the existing credentials; their secret is set from the inputs` }),
            async bringToInputs(existing) {
              // GARM never shows the secret, so an adopted one is always sent.
              await send(client, existing.id, inputs, ["name", "description", "secret"]);
              return toOutputs(existing.id, inputs);
            },
          },
          deps.log,
        );
        if (adopted) return { id: credentialsPulumiId(inputs.forge, adopted.found.id), outs: adopted.outs };
      }
      let created: CredentialsView;
      try {
        created = await client.createCredentials(inputs.forge, {
          name: inputs.name,
          description: inputs.description,
          endpoint: inputs.endpoint,
          auth_type: inputs.authType,
          ...secretBody(inputs),
        });
      } catch (err) {
        if (isGarmError(err, "conflict")) {
          throw new Error(
            `${label(inputs.name)}: GARM already has credentials named ${inputs.name}; choose another name, or set adoptExisting: true ` +
              "to manage them with this resource (only if no other stack manages them)",
          );
        }
        if (isGarmError(err, "not-found")) {
          throw new Error(
            `${label(inputs.name)}: GARM has no ${inputs.forge} endpoint named ${inputs.endpoint}; create it first (a GarmEndpoint, whose name ` +
              "output passed as endpoint makes Pulumi create it before these credentials), or name an existing endpoint",
          );
        }
        throw err;
      }
      return { id: credentialsPulumiId(inputs.forge, created.id), outs: await toOutputs(created.id, inputs) };
    },

    async read(id, props) {
      const olds = readCredentialsOutputs(props ?? {});
      // GitHub and Gitea credentials are numbered separately, so an id means something only with its forge.
      const imported = props === undefined;
      const { forge, credentialsId } = imported ? parseCredentialsId(id) : { forge: olds.forge, credentialsId: olds.credentialsId || (garmIdOfPulumiId(id) ?? Number(id)) };
      let view: CredentialsView;
      try {
        view = await deps.client().getCredentials(forge, credentialsId);
      } catch (err) {
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
      // A database restore gives a deleted id to the next credentials made, whoever makes them.
      if (!isSameCredentials(imported ? { forge } : olds, view, forge)) {
        deps.log.warn(notOurs.dropped(label(olds.name, credentialsId), describeCredentialsHolder(forge, view)));
        return {};
      }
      // The secret cannot be read back; what GARM shows is compared.
      const outs: CredentialsOutputs = {
        ...olds,
        forge,
        credentialsId: view.id,
        name: view.name,
        description: view.description,
        endpoint: view.endpoint,
        authType: view.authType === "app" ? "app" : "pat",
      };
      // The id read was given stays: state written before ids carried the forge keeps its bare number.
      return { id: imported ? credentialsPulumiId(forge, view.id) : id, props: { ...outs, __provider: props?.__provider } };
    },

    async update(_id, oldProps, newProps) {
      const olds = readCredentialsOutputs(oldProps);
      const news = inputsOf(newProps);
      const fields = await changedCredentialsFields(olds, news);
      const outs = await toOutputs(olds.credentialsId, news);
      if (fields.length === 0) return { outs };
      const live = await deps.client().getCredentials(olds.forge, olds.credentialsId);
      if (!isSameCredentials(olds, live, olds.forge)) {
        throw new Error(notOurs.refused(label(olds.name, olds.credentialsId), describeCredentialsHolder(olds.forge, live)));
      }
      await send(deps.client(), olds.credentialsId, news, fields);
      deps.log.info(`${label(news.name, olds.credentialsId)}: updated ${fields.map((f) => (f === "secret" ? (news.authType === "pat" ? "token" : "app key") : f)).join(", ")}`);
      return { outs };
    },

    async delete(_id, props) {
      const olds = readCredentialsOutputs(props);
      const client = deps.client();
      let view: CredentialsView;
      try {
        view = await client.getCredentials(olds.forge, olds.credentialsId);
      } catch (err) {
        if (isGarmError(err, "not-found")) {
          deps.log.info(`${label(olds.name, olds.credentialsId)}: already gone from GARM`);
          return;
        }
        throw err;
      }
      if (!isSameCredentials(olds, view, olds.forge)) {
        deps.log.warn(notOurs.leftAlone(label(olds.name, olds.credentialsId), describeCredentialsHolder(olds.forge, view)));
        return;
      }
      // One detailed read lists every user (database/sql/github.go L341-372); it answered above, or the delete stopped.
      await refuseWhileUsed([{ what: "entities", list: async () => credentialsUsers(view) }], {
        label: label(olds.name, olds.credentialsId),
        why: "GARM refuses to delete credentials still in use",
        remedy: "Delete those first, or move them to other credentials (remove them from the stack that manages them, or with garm-cli); then run again",
      });
      await client.deleteCredentials(olds.forge, olds.credentialsId);
      deps.log.info(`${label(olds.name, olds.credentialsId)}: deleted from GARM`);
    },
  };

  /** PUTs only the changed fields; the secret goes whole (GithubApp.Validate needs all three app fields). */
  async function send(client: ForgeCalls, id: number, news: CheckedCredentialsInputs, fields: readonly UpdatableCredentialsField[]) {
    const body: CredentialsUpdate = {};
    if (fields.includes("name")) body.name = news.name;
    if (fields.includes("description")) body.description = news.description;
    if (fields.includes("secret")) Object.assign(body, secretBody(news));
    try {
      await client.updateCredentials(news.forge, id, body);
    } catch (err) {
      if (fields.includes("name") && isGarmError(err, "server-error")) {
        const holder = await nameHolder(client, news.forge, news.name, id).catch(() => undefined);
        if (holder) throw nameTakenError(label(news.name, id), `${news.forge} credentials named`, news.name, holder);
      }
      if (isGarmError(err, "not-found")) {
        throw new Error(
          `${label(news.name, id)}: GARM no longer has these credentials; run \`pulumi refresh\` to drop them from the state, then \`pulumi up\` creates them again`,
        );
      }
      throw err;
    }
  }

  function adoptRefusal(existing: CredentialsView, inputs: CheckedCredentialsInputs): string | undefined {
    const authType = existing.authType === "app" ? "app" : "pat";
    if (sameEndpointName(existing.endpoint, inputs.endpoint) && authType === inputs.authType) return undefined;
    return (
      `${label(inputs.name, existing.id)}: cannot adopt them: GARM has them on endpoint ${existing.endpoint} with auth type ${authType}, ` +
      `and the inputs say endpoint ${inputs.endpoint} with auth type ${inputs.authType}, which GARM cannot change in place; make the inputs match, or choose another name`
    );
  }
}

export const credentials = credentialsProviderWith(defaultDeps);
