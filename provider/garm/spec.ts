// GARM v0.2.1's API as it is served: the generated types (make generate, from GARM's swagger) corrected where the
// swagger and the server disagree. Every call the client sends is typed by GarmPaths; nothing else builds a path.
import type createClient from "openapi-fetch";
import type { components, operations, paths } from "./generated/garm-api";

/**
 * Go's encoding/json writes a `[]byte` as base64 text, but go-swagger describes one as an array of uint8, so the
 * generated types say `number[]` where the wire carries a string (params/requests.go L321 `CACertBundle []byte`, L450
 * `PrivateKeyBytes []byte`, L880 `Data []byte`). Every `number[]` of GARM's swagger is such a field (all are `format:
 * uint8`), so they are retyped as one.
 */
export type Base64Bytes<T> = T extends number[]
  ? string
  : T extends readonly (infer U)[]
    ? Base64Bytes<U>[]
    : T extends object
      ? { [K in keyof T]: Base64Bytes<T[K]> }
      : T;

/**
 * GARM serves GET /controller (apiserver/routers/routers.go L217-218) beside the legacy GET /controller-info
 * (L238-239), with the same handler; the swagger lists only the latter. The two differ in what stands in front: GET
 * /controller needs only an initialized GARM and an admin token (L213-215), while /controller-info also needs the
 * controller's URLs set (L233), which a GarmController may be about to set. So it is typed here with ControllerInfo's operation.
 */
type ControllerRoutes = Omit<paths["/controller"], "get"> & { get: operations["ControllerInfo"] };

/** The routes the client calls, as GARM v0.2.1 serves them. */
export type GarmPaths = { [P in keyof paths]: Base64Bytes<P extends "/controller" ? ControllerRoutes : paths[P]> };

/** GARM's request and answer shapes, with `[]byte` fields as base64 text. */
export type GarmSchemas = Base64Bytes<components["schemas"]>;

/** The openapi-fetch client over GarmPaths. */
export type GarmApi = ReturnType<typeof createClient<GarmPaths>>;
