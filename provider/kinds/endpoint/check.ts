// GarmEndpoint input rules, run at preview: what GARM's Validate refuses (params/requests.go L324-381 for GitHub,
// L710-764 for Gitea), and what it would accept wrongly or answer with a 500 (ca-bundle.ts).
import { type CheckOutcome, type Failure, type InputCheck, type Known, checkInputs, fail } from "../../common/input-check";
import { nameFailures, urlFailures } from "../../common/forge-inputs";
import { caBundleFailures } from "./ca-bundle";
import { type CheckedEndpointInputs, type EndpointInputs, endpointInputSchema, withDefaults } from "./inputs";

export type EndpointCheckOutcome = CheckOutcome;

const valueRules = (data: Partial<EndpointInputs>): Failure[] => [
  ...nameFailures("name", data.name),
  ...urlFailures("baseUrl", data.baseUrl),
  ...urlFailures("apiBaseUrl", data.apiBaseUrl),
  ...urlFailures("uploadBaseUrl", data.uploadBaseUrl),
  ...caBundleFailures("caCertBundle", data.caCertBundle),
];

/** GitHub needs all three URLs (requests.go L339-341); Gitea has no upload URL (CreateGiteaEndpointParams L700-708). */
function forgeRule(data: Partial<EndpointInputs>, known: Known<EndpointInputs>): Failure[] {
  if (!known("forge")) return [];
  const forge = data.forge ?? "github";
  if (forge === "github" && known("uploadBaseUrl") && data.uploadBaseUrl === undefined) {
    return [fail("uploadBaseUrl", 'uploadBaseUrl is required for a "github" endpoint, e.g. https://github.example.com/api/uploads/')];
  }
  if (forge === "gitea" && data.uploadBaseUrl !== undefined) {
    return [fail("uploadBaseUrl", 'uploadBaseUrl applies only to "github" endpoints; GARM has no upload URL for Gitea: remove it')];
  }
  return [];
}

const ENDPOINT_CHECK: InputCheck<EndpointInputs> = {
  schema: endpointInputSchema,
  resource: "GarmEndpoint",
  rules: [valueRules, forgeRule],
  withDefaults: (data) => ({ ...(withDefaults(data as EndpointInputs) satisfies CheckedEndpointInputs) }),
};

/** Validates raw inputs; with no failures, returns them with defaults filled in and unknowns kept in place. */
export function checkEndpointInputs(news: Record<string, unknown>): EndpointCheckOutcome {
  return checkInputs(ENDPOINT_CHECK, news);
}
