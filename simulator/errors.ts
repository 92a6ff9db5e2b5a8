// GARM's error bodies and their status mapping (garm-behaviour.md §1.7).

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly label: string,
    readonly details: string,
  ) {
    super(`${status} ${label}: ${details}`);
  }
}

export const badRequest = (details: string) => new ApiError(400, "Bad Request", details);
export const notFound = (details: string) => new ApiError(404, "Not Found", details);
export const conflict = (details: string) => new ApiError(409, "Conflict", details);
/** ErrUnauthorized: details are stripped by handleError (§1.5, §1.7). */
export const notAuthorized = () => new ApiError(401, "Not Authorized", "");
/** Any error GARM does not map (plain fmt.Errorf): 500 with empty details (§1.7). */
export const serverError = () => new ApiError(500, "Server error", "");
export const authFailed = () => new ApiError(401, "Authentication failed", "");
/** The mux catch-all, lower-case "found" (§1.1). */
export const routeNotFound = () => new ApiError(404, "Not found", "Resource not found");
export const invalidRequest = () => badRequest("invalid request");
