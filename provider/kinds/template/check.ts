// GarmTemplate input rules, run by `check` during preview before anything is touched, with GARM's own create rules
// (params/requests.go L886-907) said before GARM says them. A bodyFile is read here, as UTF-8 only, so the body is compared as text.
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { type CheckOutcome, type Failure, type Known, checkInputs, fail } from "../../common/input-check";
import { MAX_TEMPLATE_NAME, type TemplateInputs, templateDefaults, templateInputSchema } from "./inputs";

export type TemplateCheckOutcome = CheckOutcome;

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

function nameFailures({ name }: Partial<TemplateInputs>): Failure[] {
  if (name === undefined) return [];
  if (name.trim() === "") return [fail("name", "name is required: a template name must not be empty")];
  if (name.length > MAX_TEMPLATE_NAME) {
    return [fail("name", `name ${JSON.stringify(name.slice(0, 40))}... is ${name.length} characters; GARM keeps at most ${MAX_TEMPLATE_NAME}`)];
  }
  return [];
}

/** The body text: `body`, or what `bodyFile` holds; undefined while either is unknown or when it cannot be had. */
function bodyOf(inputs: Partial<TemplateInputs>, known: Known<TemplateInputs>, readBody: ReadBody): { body?: string; failures: Failure[] } {
  if (!known("body") || !known("bodyFile")) return { failures: [] };
  if ((inputs.body === undefined) === (inputs.bodyFile === undefined)) {
    const what = inputs.body === undefined ? "neither is set" : "both are set";
    return { failures: [fail(inputs.body === undefined ? "body" : "bodyFile", `set exactly one of body or bodyFile; ${what}`)] };
  }
  let body = inputs.body;
  if (inputs.bodyFile !== undefined) {
    try {
      body = readBody(inputs.bodyFile);
    } catch (err) {
      if (err instanceof BodyNotUtf8Error) {
        return { failures: [fail("bodyFile", `bodyFile ${JSON.stringify(inputs.bodyFile)} is not valid UTF-8 text; save the template as UTF-8 (other bytes would reach GARM changed)`)] };
      }
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { failures: [fail("bodyFile", `bodyFile ${JSON.stringify(inputs.bodyFile)} cannot be read (${why}); it must name a readable file`)] };
    }
  }
  if (body !== undefined && body.length === 0) {
    return { failures: [fail(inputs.bodyFile !== undefined ? "bodyFile" : "body", "the template body is empty; GARM refuses a template without text")] };
  }
  return { body, failures: [] };
}

/** Validates raw inputs. With no failures, returns them with defaults filled in and the body as text. */
export function checkTemplateInputs(news: Record<string, unknown>, readBody: ReadBody = readBodyFile): TemplateCheckOutcome {
  let body: string | undefined;
  return checkInputs<TemplateInputs>(
    {
      schema: templateInputSchema,
      resource: "GarmTemplate",
      rules: [
        nameFailures,
        (inputs, known) => {
          const read = bodyOf(inputs, known, readBody);
          body = read.body;
          return read.failures;
        },
      ],
      withDefaults: (inputs, known) => {
        const defaults: Record<string, unknown> = { ...templateDefaults(inputs as TemplateInputs, body ?? "") };
        // While body or bodyFile is unknown, the body is too: Pulumi shows it as "computed" in the preview.
        if (!known("body") || !known("bodyFile")) defaults.body = news.body ?? news.bodyFile;
        return defaults;
      },
    },
    news,
  );
}
