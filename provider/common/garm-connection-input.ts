// A GARM named by the program instead of the stack's `garm:*` config: the `garm` input of a TypeScript resource and
// the `garm` option of a TypeScript function, so one program manages several GARMs (docs/concepts/several-garms.md).
// The same rules as the stack config's settings (config.ts), with messages that name the input's fields.
import { z } from "zod";
import { type ConnectionSettings, ConnectionSettingsError, checkUrl, readCaCert } from "./config";
import { containsUnknown } from "./unknown";

/** The fields of a connection, as a program gives them (the SDK's GarmConnectionArgs, checked to match in its test). */
export const garmConnectionSchema = z
  .object({
    url: z.string().trim().min(1, "must be GARM's base URL, e.g. https://garm.example.com:9997"),
    username: z.string().trim().min(1, "must name a GARM admin user"),
    password: z.string().min(1, "must be the user's password (pulumi.secret or config.requireSecret)"),
    caCertFile: z.string().trim().min(1).optional(),
    caCert: z.string().trim().min(1).optional(),
    insecure: z.boolean().optional(),
  })
  .strict();

export interface ConnectionProblem {
  /** The field at fault, from the connection's own name: `garm.url`. */
  readonly property: string;
  readonly reason: string;
}

/**
 * The settings `value` (a resource's `garm` input, a function's `garm` option) gives, or every problem with it, each
 * naming its field under `field`. A value not known yet (preview, computed by another resource) has neither: it is
 * checked once known.
 */
export function connectionSettingsOf(value: unknown, field: string): { settings?: ConnectionSettings; problems: ConnectionProblem[] } {
  if (containsUnknown(value)) return { problems: [] };
  const parsed = garmConnectionSchema.safeParse(value);
  const problems: ConnectionProblem[] = parsed.success ? [] : parsed.error.issues.map((issue) => problemOf(issue, field));
  // The URL's own rules are said together with the other fields' problems, so one preview names them all.
  const raw = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const url = typeof raw.url === "string" ? raw.url.trim() : "";
  if (url) {
    const fixes = { url: (base: string) => `set ${field}.url to ${base}`, insecure: `set ${field}.insecure to true to accept that` };
    const urlFailure = checkUrl(url, raw.insecure === true, `${field}.url`, fixes);
    if (urlFailure) problems.push({ property: `${field}.url`, reason: urlFailure.message });
  }
  if (!parsed.success || problems.length > 0) return { problems };
  const given = parsed.data;
  if (given.caCert !== undefined && given.caCertFile !== undefined) {
    problems.push({ property: `${field}.caCert`, reason: `give ${field}.caCert (PEM text) or ${field}.caCertFile (a path), not both` });
  }
  let caCert = given.caCert;
  if (given.caCertFile !== undefined && given.caCert === undefined) {
    try {
      caCert = readCaCert(given.caCertFile, `${field}.caCertFile`);
    } catch (err) {
      problems.push({ property: `${field}.caCertFile`, reason: (err as ConnectionSettingsError).message });
    }
  }
  if (problems.length > 0) return { problems };
  return {
    settings: { url: given.url.replace(/\/+$/, ""), username: given.username, password: given.password, caCert, urlSetting: `${field}.url` },
    problems,
  };
}

/** A schema issue as the problem of the field it names under `field`. */
function problemOf(issue: z.core.$ZodIssue, field: string): ConnectionProblem {
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  if (keys.length > 0) {
    const settings = Object.keys(garmConnectionSchema.shape).join(", ");
    return keys.length === 1
      ? { property: `${field}.${keys[0]}`, reason: `is not a connection setting (${settings})` }
      : { property: field, reason: `${keys.join(", ")} are not connection settings (${settings})` };
  }
  return { property: [field, ...issue.path.map(String)].join("."), reason: issue.message };
}

/** Whether two `garm` inputs (either absent) name the same connection, field by field. */
export function sameConnection(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "object") return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([x], [y]) => x.localeCompare(y));
  return JSON.stringify(entries);
}
