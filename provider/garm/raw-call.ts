// One GARM request over a GarmClient's transport, for routes whose path the caller builds (the entity kinds share one
// set of calls). The answer is parsed with a zod view; an HTTP error is thrown as GarmApiError, as the client does.
import { z } from "zod";
import { GarmApiError, errorFromResponse } from "./errors";
import type { GarmTransport } from "./transport";

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
  const response = await transport.fetch(new Request(`${transport.baseUrl}${path}`, init));
  const raw = await response.text();
  const parsedBody = raw === "" ? undefined : safeJson(raw);
  if (!response.ok) throw errorFromResponse(request, response.status, parsedBody ?? raw);
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(parsedBody);
  if (!parsed.success) throw new GarmApiError("unexpected", request, response.status, "answer not in GARM's shape", z.prettifyError(parsed.error));
  return parsed.data;
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
