// `make schema`: writes schema.json (the resource plugin's package schema) from the zod input schemas. `--check` fails when the committed file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pluginSchema as packageSchema } from "../provider-plugin/schema";

const root = join(__dirname, "..", "..");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const text = `${JSON.stringify(packageSchema(version), null, 2)}\n`;
const target = join(root, "schema.json");
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {
    // reported below as stale
  }
  if (current !== text) {
    console.error("schema.json is out of date with the input schemas: run `make schema` and commit it");
    process.exit(1);
  }
  console.log("schema.json is up to date");
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
