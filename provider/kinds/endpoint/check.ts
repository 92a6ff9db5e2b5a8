// GarmEndpoint input rules, run at preview: what GARM's Validate refuses (params/requests.go L324-381 for GitHub,
// L710-764 for Gitea), and what it would accept wrongly or answer with a 500 (ca-bundle.ts).
import { type Failure, fail, nameFailures, parseKnown, urlFailures } from "../../common/forge-inputs";
import { caBundleFailures } from "./ca-bundle";
import { type CheckedEndpointInputs, type EndpointInputs, endpointInputSchema, withDefaults } from "./inputs";

export interface EndpointCheckOutcome {
  readonly inputs: Record<string, unknown>;
  readonly failures: Failure[];
}

/** Validates raw inputs; with no failures, returns them with defaults filled in and unknowns kept in place. */
export function checkEndpointInputs(news: Record<string, unknown>): EndpointCheckOutcome {
  const outcome = parseKnown<EndpointInputs>(news, endpointInputSchema, ["name", "baseUrl", "apiBaseUrl"], new Set(), "GarmEndpoint");
  if (!outcome.ok) return { inputs: news, failures: outcome.failures };
  const { data, known, unknowns } = outcome.parsed;
  const forge = data.forge ?? "github";
  const failures: Failure[] = [
    ...nameFailures("name", data.name),
    ...urlFailures("baseUrl", data.baseUrl),
    ...urlFailures("apiBaseUrl", data.apiBaseUrl),
    ...urlFailures("uploadBaseUrl", data.uploadBaseUrl),
    ...caBundleFailures("caCertBundle", data.caCertBundle),
  ];
  if (known("forge")) {
    // GitHub needs all three URLs (requests.go L339-341); Gitea has no upload URL (CreateGiteaEndpointParams L700-708).
    if (forge === "github" && known("uploadBaseUrl") && data.uploadBaseUrl === undefined) {
      failures.push(fail("uploadBaseUrl", 'uploadBaseUrl is required for a "github" endpoint, e.g. https://github.example.com/api/uploads/'));
    }
    if (forge === "gitea" && data.uploadBaseUrl !== undefined) {
      failures.push(fail("uploadBaseUrl", 'uploadBaseUrl applies only to "github" endpoints; GARM has no upload URL for Gitea: remove it'));
    }
  }
  if (failures.length > 0) return { inputs: news, failures };
  const checked: CheckedEndpointInputs = withDefaults(data as EndpointInputs);
  return { inputs: { ...checked, ...unknowns }, failures: [] };
}
