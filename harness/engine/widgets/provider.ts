// The forwarding provider of the "widgets" test resource and the throwaway project dir it runs in. Mirrors
// sdk/nodejs/shim.ts: the serialized closure only require()s a package by bare name, resolved at run time from the
// provider process's cwd = the project dir (pulumi-behaviour.md §2.1, pulumi-behaviour.md §3.1, pulumi-behaviour.md §3.4).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";

/** Package name the closure requires; created in the project's node_modules by makeWidgetProject(). */
export const WIDGETS_PACKAGE = "engine-harness-widgets";

export const widgetProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("engine-harness-widgets").configure(req),
  check: (olds, news) => require("engine-harness-widgets").check(olds, news),
  diff: (id, olds, news) => require("engine-harness-widgets").diff(id, olds, news),
  create: (inputs) => require("engine-harness-widgets").create(inputs),
  read: (id, props) => require("engine-harness-widgets").read(id, props),
  update: (id, olds, news) => require("engine-harness-widgets").update(id, olds, news),
  delete: (id, props) => require("engine-harness-widgets").delete(id, props),
};

/** A project dir whose node_modules/engine-harness-widgets re-exports the compiled impl.js next to this file. */
export function makeWidgetProject(): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-harness-"));
  const pkg = path.join(dir, "node_modules", WIDGETS_PACKAGE);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: WIDGETS_PACKAGE, version: "0.0.0", main: "index.js" }));
  fs.writeFileSync(path.join(pkg, "index.js"), `module.exports = require(${JSON.stringify(path.join(__dirname, "impl.js"))});\n`);
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Same behaviour as widgetProvider, but a different serialized text: stands in for "the provider code changed
 * between two runs" (pulumi-behaviour.md §2.3, pulumi-behaviour.md §3.4).
 */
export const widgetProviderV2: pulumi.dynamic.ResourceProvider = {
  ...widgetProvider,
  check: (olds, news) => require("engine-harness-widgets").check(olds, news, "v2"),
};
