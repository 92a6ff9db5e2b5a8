// GarmTemplate input rules, run by `check` during preview before anything is touched, with GARM's own create rules
// (params/requests.go L886-907) said before GARM says them. A bodyFile is read here, as UTF-8 only, so the body is compared as text.
import type * as pulumi from "@pulumi/pulumi";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { inputIssueWords } from "../../common/input-words";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { MAX_TEMPLATE_NAME, type TemplateInputs, templateDefaults, templateInputSchema } from "./inputs";

type Failure = pulumi.dynamic.CheckFailure;

export interface TemplateCheckOutcome {
  readonly inputs: Record<string, unknown>;
  readonly failures: Failure[];
}

const issueToFailure = inputIssueWords(templateInputSchema, "GarmTemplateArgs");
const knownFieldsSchema = templateInputSchema.partial();
const fail = (property: string, reason: string): Failure => ({ property, reason });

/** Reads a body file; relative paths are taken from `cwd` (Pulumi runs the program in its project directory). */
export type ReadBody = (file: string) => string;
export const readBodyFile: ReadBody = (file) => utf8Text(readFileSync(path.resolve(file)));

/** A body file whose bytes are not UTF-8: the body is kept and compared as text, so such bytes would reach GARM as U+FFFD. */
export class BodyNotUtf8Error extends Error {}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function utf8Text(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new BodyNotUtf8Error("not valid UTF-8");
  }
}

/** Validates raw inputs. With no failures, returns them with defaults filled in and the body as text. */
export function checkTemplateInputs(news: Record<string, unknown>, readBody: ReadBody = readBodyFile): TemplateCheckOutcome {
  const raw = withoutProviderKey(news);
  const unknownFields = new Set(Object.keys(raw).filter((k) => containsUnknown(raw[k])));
  const known = (field: string) => !unknownFields.has(field);
  const knownOnly = Object.fromEntries(Object.entries(raw).filter(([k]) => known(k)));
  const parsed = knownFieldsSchema.safeParse(knownOnly);
  if (!parsed.success) return { inputs: news, failures: parsed.error.issues.map((issue) => issueToFailure(issue, knownOnly)) };
  const inputs = parsed.data as Partial<TemplateInputs>;

  const failures: Failure[] = [];
  if (known("name")) {
    if (inputs.name === undefined || inputs.name.trim() === "") failures.push(fail("name", "name is required: a template name must not be empty"));
    else if (inputs.name.length > MAX_TEMPLATE_NAME) {
      failures.push(fail("name", `name ${JSON.stringify(inputs.name.slice(0, 40))}... is ${inputs.name.length} characters; GARM keeps at most ${MAX_TEMPLATE_NAME}`));
    }
  }
  let body: string | undefined;
  if (known("body") && known("bodyFile")) {
    if ((inputs.body === undefined) === (inputs.bodyFile === undefined)) {
      const what = inputs.body === undefined ? "neither is set" : "both are set";
      failures.push(fail(inputs.body === undefined ? "body" : "bodyFile", `set exactly one of body or bodyFile; ${what}`));
    } else if (inputs.bodyFile !== undefined) {
      try {
        body = readBody(inputs.bodyFile);
      } catch (err) {
        if (err instanceof BodyNotUtf8Error) {
          failures.push(fail("bodyFile", `bodyFile ${JSON.stringify(inputs.bodyFile)} is not valid UTF-8 text; save the template as UTF-8 (other bytes would reach GARM changed)`));
        } else failures.push(fail("bodyFile", `bodyFile ${JSON.stringify(inputs.bodyFile)} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); it must name a readable file`));
      }
    } else {
      body = inputs.body;
    }
    if (body !== undefined && body.length === 0) {
      failures.push(fail(inputs.bodyFile !== undefined ? "bodyFile" : "body", "the template body is empty; GARM refuses a template without text"));
    }
  }
  if (failures.length > 0) return { inputs: news, failures };
  const unknownBody = !known("body") || !known("bodyFile");
  const defaults = templateDefaults(inputs as TemplateInputs, body ?? "");
  // Keep the unknowns where they were, so Pulumi shows them as "computed" in the preview.
  const kept = Object.fromEntries([...unknownFields].map((k) => [k, raw[k]]));
  return { inputs: { ...defaults, ...(unknownBody ? { body: raw.body ?? kept.bodyFile } : {}), ...kept }, failures: [] };
}
