// One GARM request over a GarmClient's transport, for routes whose path the caller builds (the entity kinds share one
// set of calls). The answer is parsed with a zod view; an HTTP error is thrown as GarmApiError, as the client does.
import type { z } from "zod";
import { emptyAnswer, parsedAnswer } from "./answer";
import { type GarmTransport, WireRequest } from "./transport";

export async function garmCall<S extends z.ZodType>(
  transport: Pick<GarmTransport, "fetch" | "baseUrl">,
  method: string,
  path: string,
  body: unknown,
  schema: S | undefined,
): Promise<z.output<S> | undefined> {
  // Messages name the route without its query (which never holds a secret, but keeps lines short).
  const request = `${method} ${path.replace(/\?.*$/, "")}`;
  const init: RequestInit = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await transport.fetch(new WireRequest(`${transport.baseUrl}${path}`, init));
  const raw = await response.text();
  const parsedBody = raw === "" ? undefined : safeJson(raw);
  const result = { response, data: parsedBody, error: parsedBody ?? raw };
  if (schema === undefined) {
    await emptyAnswer(request, Promise.resolve(result));
    return undefined;
  }
  return parsedAnswer(request, Promise.resolve(result), schema);
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
