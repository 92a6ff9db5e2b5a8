// How a failed GitHub call surfaces at GARM's API (garm-behaviour.md §1.7, §4.1, §6 step 3, §10.1).
import { GitHubError } from "../github";
import { ApiError, badRequest, conflict, notAuthorized, notFound, serverError } from "../errors";

/** GitHub 400/404/409 keep their meaning, 401/403 become "Not Authorized" with no details, the rest 500. */
export function githubFailure(e: unknown, prefix: string): ApiError {
  if (!(e instanceof GitHubError)) throw e;
  const details = `${prefix}: ${e.message}`;
  switch (e.status) {
    case 400:
      return badRequest(details);
    case 404:
      return notFound(details);
    case 409:
      return conflict(details);
    case 401:
    case 403:
      return notAuthorized();
    default:
      return serverError();
  }
}
