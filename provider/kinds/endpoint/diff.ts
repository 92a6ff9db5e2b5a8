// GarmEndpoint's pure diff: which changes GARM applies in place (UpdateGithubEndpointParams, params/requests.go
// L383-389: description, the three URLs, the CA bundle) and which need a new endpoint.
import { withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import { canonicalCaBundle } from "./ca-bundle";
import type { CheckedEndpointInputs, EndpointOutputs } from "./inputs";
import { sameEndpointName } from "../../garm/names";

/** Fields an update sends to GARM. */
export type UpdatableEndpointField = "description" | "apiBaseUrl" | "uploadBaseUrl" | "baseUrl" | "caCertBundle";
export const URL_FIELDS: readonly UpdatableEndpointField[] = ["apiBaseUrl", "uploadBaseUrl", "baseUrl"];

const UPDATABLE: readonly UpdatableEndpointField[] = ["description", "apiBaseUrl", "uploadBaseUrl", "baseUrl", "caCertBundle"];

function same(field: UpdatableEndpointField, a: string, b: string): boolean {
  return field === "caCertBundle" ? canonicalCaBundle(a) === canonicalCaBundle(b) : a === b;
}

/** Updatable fields whose wanted value differs from the stored one. */
export function changedEndpointFields(olds: EndpointOutputs, news: Partial<CheckedEndpointInputs>): UpdatableEndpointField[] {
  return UPDATABLE.filter((f) => news[f] !== undefined && !same(f, olds[f], news[f] as string));
}

/** Why each replaced field replaces, for the plan's log line. */
export const REPLACE_REASONS: Record<string, string> = {
  name: "the name is the endpoint's key in GARM",
  forge: "GitHub and Gitea endpoints are separate kinds in GARM",
  caCertBundle: "GARM cannot clear a CA bundle in place (an empty bundle is not sent)",
};

export function diffEndpoint(olds: EndpointOutputs, newsRaw: object): PlannedDiff {
  const news = withoutProviderKey(newsRaw as Record<string, unknown>) as Partial<CheckedEndpointInputs>;
  const replaces: string[] = [];
  if (news.name !== undefined && news.name !== olds.name) replaces.push("name");
  if (news.forge !== undefined && news.forge !== olds.forge) replaces.push("forge");
  // An empty bundle is omitted from the update (runner/github_endpoints.go L90, `len(param.CACertBundle) > 0`).
  if (news.caCertBundle === "" && olds.caCertBundle !== "") replaces.push("caCertBundle");
  const changed = changedEndpointFields(olds, news).filter((f) => !replaces.includes(f));
  const options = news.adoptExisting !== undefined && news.adoptExisting !== olds.adoptExisting ? ["adoptExisting"] : [];
  // One key for both forges, ignoring case (models.go L464): a new endpoint whose name GARM holds already, in any
  // case and for either forge, is refused (github.go L38, gitea.go L42), so the old one goes first.
  const deleteBeforeReplace = sameEndpointName(news.name ?? olds.name, olds.name);
  return plannedDiff({ olds, news, replaces, updates: [...changed, ...options], deleteBeforeReplace });
}
