// Test fixture: a widget store on 127.0.0.1, a throwaway project dir, and engines pointed at both.
import type * as pulumi from "@pulumi/pulumi";
import { startEngine } from "../engine";
import type { Engine, ResourceDecl, StartEngineOptions } from "../types";
import { makeWidgetProject, widgetProvider } from "./provider";
import { startWidgetStore, type WidgetStore } from "./store";

export interface WidgetFixture {
  store: WidgetStore;
  projectDir: string;
  /** A new engine (empty state) for this project; `config` is merged over `widgets:url`. */
  engine(opts?: Partial<StartEngineOptions>): Engine;
  /** Declares a widget resource `name` (type pulumi-nodejs:dynamic/test:Widget). */
  widget(name: string, inputs: Record<string, unknown>, extra?: Partial<ResourceDecl> & { provider?: pulumi.dynamic.ResourceProvider }): ResourceDecl;
  close(): Promise<void>;
}

export async function widgetFixture(storeOpts: { token?: string } = {}): Promise<WidgetFixture> {
  const store = await startWidgetStore(storeOpts);
  const project = makeWidgetProject();
  return {
    store,
    projectDir: project.dir,
    engine: (opts = {}) =>
      startEngine({ cwd: project.dir, project: "widgetproj", stack: "test", ...opts, config: { "widgets:url": store.url, ...opts.config } }),
    widget: (name, inputs, extra = {}) => ({ name, type: "Widget", module: "test", provider: widgetProvider, inputs: { name, ...inputs }, ...extra }),
    close: async () => {
      await store.close();
      project.cleanup();
    },
  };
}
