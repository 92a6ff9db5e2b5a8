// Starts the built pulumi-resource-garm as the engine does (a child process printing its port) and calls it over gRPC
// with Pulumi's own generated client: the protocol the CLI speaks, without the CLI.
import * as grpc from "@grpc/grpc-js";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as services from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { PACKAGE_VERSION } from "../provider/common/state-version";
import { SECRET_SIG, SIG_KEY } from "../provider-plugin/protocol";
import { pluginSchema } from "../provider-plugin/schema";
import { serve } from "../provider-plugin/server";
import { type Simulator, type SimulatorOptions, startSimulator } from "../simulator";

export const PLUGIN_MAIN = join(__dirname, "..", "provider-plugin", "main.js");

type Props = Record<string, unknown>;

export interface PluginProcess {
  readonly client: services.ResourceProviderClient;
  readonly pid: number;
  readonly output: string[];
  call<Req, Res>(method: string, req: Req): Promise<Res>;
  configure(config: Props): Promise<void>;
  check(type: string, name: string, news: Props, olds?: Props): Promise<{ inputs: Props; failures: string[] }>;
  diff(type: string, name: string, id: string, olds: Props, news: Props, oldInputs?: Props): Promise<proto.DiffResponse>;
  create(type: string, name: string, props: Props): Promise<{ id: string; outs: Props }>;
  read(type: string, name: string, id: string, props?: Props, inputs?: Props): Promise<{ id: string; props: Props; inputs: Props }>;
  update(type: string, name: string, id: string, olds: Props, news: Props): Promise<Props>;
  delete(type: string, name: string, id: string, props: Props): Promise<void>;
  stop(): Promise<void>;
}

export const urnOf = (type: string, name: string) => `urn:pulumi:dev::plugin-it::${type}::${name}`;

/** Sets what every per-resource request carries: its URN, type and name, and its id once it has one. */
function addressed<R extends { setUrn(v: string): unknown; setType(v: string): unknown; setName(v: string): unknown }>(
  req: R,
  type: string,
  name: string,
  id?: string,
): R {
  req.setUrn(urnOf(type, name));
  req.setType(type);
  req.setName(name);
  if (id !== undefined) (req as R & { setId(v: string): unknown }).setId(id);
  return req;
}
const struct = (p: Props) => Struct.fromJavaScript(p as never);

/** Spawns the plugin with `env` (nothing of the test's GARM_* variables leaks in) and connects to it. */
export async function startPlugin(env: NodeJS.ProcessEnv = {}): Promise<PluginProcess> {
  const child: ChildProcess = spawn(process.execPath, [PLUGIN_MAIN, "127.0.0.1:1"], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    let first = true;
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      if (first) {
        first = false;
        resolve(Number(chunk.split("\n")[0]));
        output.push(...chunk.split("\n").slice(1).filter(Boolean));
      } else output.push(...chunk.split("\n").filter(Boolean));
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => output.push(...chunk.split("\n").filter(Boolean)));
    child.on("exit", (code) => reject(new Error(`plugin exited with ${code}: ${output.join("\n")}`)));
  });
  return connectedPlugin(port, child.pid ?? -1, output, async () => {
    if (child.exitCode === null) {
      child.removeAllListeners("exit");
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  });
}

/**
 * The plugin's server run inside this process, as a second provider instance sharing a process would be: whatever one
 * instance keeps process-wide, the other sees.
 */
export async function servePluginInProcess(): Promise<PluginProcess> {
  const { port, server } = await serve({ version: PACKAGE_VERSION, schema: () => JSON.stringify(pluginSchema(PACKAGE_VERSION)), env: {} });
  return connectedPlugin(port, process.pid, [], () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
}

/** A gRPC client of the plugin listening on `port`, speaking as the engine does. */
function connectedPlugin(port: number, pid: number, output: string[], stopServer: () => Promise<void>): PluginProcess {
  const client = new services.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <Req, Res>(method: string, req: Req) =>
    new Promise<Res>((resolve, reject) =>
      (client as unknown as Record<string, (r: Req, cb: (e: grpc.ServiceError | null, r: Res) => void) => void>)[method](req, (e, r) =>
        e ? reject(e) : resolve(r),
      ),
    );
  return {
    client,
    pid,
    output,
    call,
    async configure(config) {
      const req = new proto.ConfigureRequest();
      req.setArgs(struct(config));
      req.setAcceptsecrets(true);
      await call("configure", req);
    },
    async check(type, name, news, olds = {}) {
      const req = addressed(new proto.CheckRequest(), type, name);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      const res = await call<proto.CheckRequest, proto.CheckResponse>("check", req);
      return { inputs: res.getInputs()!.toJavaScript() as Props, failures: res.getFailuresList().map((f) => `${f.getProperty()}: ${f.getReason()}`) };
    },
    async diff(type, name, id, olds, news, oldInputs) {
      const req = addressed(new proto.DiffRequest(), type, name, id);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      if (oldInputs) req.setOldInputs(struct(oldInputs));
      return call("diff", req);
    },
    async create(type, name, props) {
      const req = addressed(new proto.CreateRequest(), type, name);
      req.setProperties(struct(props));
      const res = await call<proto.CreateRequest, proto.CreateResponse>("create", req);
      return { id: res.getId(), outs: res.getProperties()!.toJavaScript() as Props };
    },
    async read(type, name, id, props = {}, inputs = {}) {
      const req = addressed(new proto.ReadRequest(), type, name, id);
      req.setProperties(struct(props));
      req.setInputs(struct(inputs));
      const res = await call<proto.ReadRequest, proto.ReadResponse>("read", req);
      return { id: res.getId(), props: (res.getProperties()?.toJavaScript() ?? {}) as Props, inputs: (res.getInputs()?.toJavaScript() ?? {}) as Props };
    },
    async update(type, name, id, olds, news) {
      const req = addressed(new proto.UpdateRequest(), type, name, id);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      const res = await call<proto.UpdateRequest, proto.UpdateResponse>("update", req);
      return res.getProperties()!.toJavaScript() as Props;
    },
    async delete(type, name, id, props) {
      const req = addressed(new proto.DeleteRequest(), type, name, id);
      req.setProperties(struct(props));
      await call("delete", req);
    },
    async stop() {
      client.close();
      await stopServer();
    },
  };
}

/** A value as the engine sends a secret over gRPC. */
export const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

/** The provider configuration a stack gives the plugin for `sim`, the password a secret. */
export const settingsOf = (sim: Simulator) => ({ url: sim.url, username: sim.username, password: secret(sim.password) });

export interface PluginOnSimulator {
  readonly sim: Simulator;
  readonly plugin: PluginProcess;
  /** Stops the plugin, then the simulator. */
  close(): Promise<void>;
}

/** A simulator started with `options` and a plugin configured against it; nothing is left running if a step fails. */
export async function startPluginOnSimulator(options: SimulatorOptions): Promise<PluginOnSimulator> {
  const sim = await startSimulator(options);
  let plugin: PluginProcess | undefined;
  const close = async () => {
    await plugin?.stop();
    await sim.stop();
  };
  try {
    plugin = await startPlugin({});
    await plugin.configure(settingsOf(sim));
  } catch (err) {
    await close();
    throw err;
  }
  return { sim, plugin, close };
}
