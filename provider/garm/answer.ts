// What every typed GARM call does with openapi-fetch's result: an HTTP error becomes a GarmApiError naming the request,
// and a success is parsed with the zod view the caller expects, so a shape GARM never sends fails loudly here.
import { z } from "zod";
import { GarmApiError, errorFromResponse } from "./errors";

/** openapi-fetch's result, as far as these helpers read it. */
export interface ApiResult {
  data?: unknown;
  error?: unknown;
  response: { readonly ok: boolean; readonly status: number };
}

/** The data of a successful answer, parsed with `schema`; throws GarmApiError for an HTTP error or a foreign shape. */
export async function parsedAnswer<S extends z.ZodType>(request: string, pending: Promise<ApiResult>, schema: S): Promise<z.output<S>> {
  const result = await pending;
  if (!result.response.ok) throw errorFromResponse(request, result.response.status, result.error);
  const parsed = schema.safeParse(result.data);
  if (!parsed.success) {
    throw new GarmApiError("unexpected", request, result.response.status, "answer not in GARM's shape", z.prettifyError(parsed.error));
  }
  return parsed.data;
}

/** For calls whose success has no body (GARM's DELETEs answer with nothing, §2.1). */
export async function emptyAnswer(request: string, pending: Promise<ApiResult>): Promise<void> {
  const result = await pending;
  if (!result.response.ok) throw errorFromResponse(request, result.response.status, result.error);
}
