// Launches the real dynamic-provider gRPC server from @pulumi/pulumi and talks to it the way the engine does
// (pulumi-behaviour.md §2.1 launch, pulumi-behaviour.md §6.3 stubs and marshalling, pulumi-behaviour.md §5 shutdown).
import { spawn, type ChildProcess } from "node:child_process";
import * as readline from "node:readline";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

/** Signature key and secret signature of rpc.ts (pulumi-behaviour.md §6.3), used to send secret config the way the engine does (pulumi-behaviour.md §4). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Props = Record<string, unknown>;

export interface LaunchOptions {
  cwd: string;
  project: string;
  env?: Record<string, string>;
  startTimeoutMs?: number;
  onLine: (stream: "stdout" | "stderr", line: string) => void;
}

/** Decoded gRPC failure; `initFailed` is set when the server attached an ErrorResourceInitFailed (pulumi-behaviour.md §1.2, pulumi-behaviour.md §2.8). */
export class ProviderCallError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly initFailed?: { id: string; properties: Props; reasons: string[] },
  ) {
    super(message);
  }
}

/** Struct.fromJavaScript rejects `undefined`; the SDK drops undefined object keys and nulls array holes. */
export function toStructValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : toStructValue(x)));
  if (v !== null && typeof v === "object") {
    const out: Props = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toStructValue(x);
    return out;
  }
  return v;
}

function struct(p: Props): Struct {
  return Struct.fromJavaScript(toStructValue(p) as Parameters<typeof Struct.fromJavaScript>[0]);
}

function fromStruct(s: Struct | undefined): Props {
  return s ? (s.toJavaScript() as Props) : {};
}

/** Locate the server the way the `pulumi-resource-pulumi-nodejs` shim does: resolved from the project dir (pulumi-behaviour.md §2.1),
 * falling back to the harness's own install when the project has none (e.g. a throwaway test project). */
function dynamicProviderScript(cwd: string): string {
  try {
    return require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [cwd] });
  } catch {
    return require.resolve("@pulumi/pulumi/cmd/dynamic-provider");
  }
}

function decodeError(err: grpc.ServiceError): ProviderCallError {
  // The server packs ErrorResourceInitFailed into grpc-status-details-bin (pulumi-behaviour.md §1.2 create, pulumi-behaviour.md §6.3).
  let initFailed: ProviderCallError["initFailed"];
  const bins = err.metadata?.get("grpc-status-details-bin") ?? [];
  for (const bin of bins) {
    if (typeof bin === "string") continue;
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin));
    for (const any of status.getDetailsList()) {
      if (!any.getTypeUrl().endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
      const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      initFailed = { id: detail.getId(), properties: fromStruct(detail.getProperties()), reasons: detail.getReasonsList() };
    }
  }
  return new ProviderCallError(err.details || err.message, err.code, initFailed);
}

/** One running provider plugin plus its client. The engine starts one per deployment operation (pulumi-behaviour.md §2.1). */
export class ProviderProcess {
  private closed = false;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly client: provrpc.ResourceProviderClient,
    streamsDone: Promise<void>,
  ) {
    this.exited = streamsDone;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  static async launch(opts: LaunchOptions): Promise<ProviderProcess> {
    // Args = [engine address] (pulumi-behaviour.md §2.1). The server never dials it, but refuses to start without one (pulumi-behaviour.md §6.3).
    const child = spawn(process.execPath, [dynamicProviderScript(opts.cwd), "127.0.0.1:0"], {
      cwd: opts.cwd,
      env: {
        ...process.env,
        ...opts.env,
        // provider_plugin.go sets both for pulumi-nodejs plugins; Config.get("x") means "<project>:x" (pulumi-behaviour.md §1.2, pulumi-behaviour.md §2.1).
        PULUMI_NODEJS_PROJECT: opts.project,
        PULUMI_PROJECT: opts.project,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = readline.createInterface({ input: child.stdout! });
    const stderr = readline.createInterface({ input: child.stderr! });
    const streamsDone = Promise.all([
      new Promise<void>((r) => stdout.once("close", () => r())),
      new Promise<void>((r) => stderr.once("close", () => r())),
      new Promise<void>((r) => (child.exitCode !== null ? r() : child.once("exit", () => r()))),
    ]).then(() => undefined);
    stderr.on("line", (l) => opts.onLine("stderr", l));

    // The first stdout line is the port; every later line is provider output (pulumi-behaviour.md §6.3).
    const port = await new Promise<number>((resolve, reject) => {
      let gotPort = false;
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`dynamic provider did not print its port within ${opts.startTimeoutMs ?? 30000} ms`));
      }, opts.startTimeoutMs ?? 30000);
      stdout.on("line", (line) => {
        if (gotPort) return opts.onLine("stdout", line);
        gotPort = true;
        clearTimeout(timer);
        const p = Number(line.trim());
        if (Number.isInteger(p) && p > 0) resolve(p);
        else reject(new Error(`dynamic provider printed ${JSON.stringify(line)} instead of a port`));
      });
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        if (!gotPort) reject(new Error(`dynamic provider exited (code ${code}, signal ${sig}) before printing a port`));
      });
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new ProviderProcess(child, port, client, streamsDone);
  }

  private unary<Req, Res>(method: string, req: Req): Promise<Res> {
    const fn = (this.client as unknown as Record<string, Function>)[method];
    return new Promise<Res>((resolve, reject) =>
      fn.call(this.client, req, (err: grpc.ServiceError | null, res: Res) =>
        err ? reject(decodeError(err)) : resolve(res),
      ),
    );
  }

  /** Engine order for the provider resource: CheckConfig/DiffConfig are UNIMPLEMENTED and skipped, then Configure
   * with ALL stack config (namespaces kept), acceptSecrets=true (pulumi-behaviour.md §2.1). */
  async configure(config: Record<string, string>, secretConfig: Record<string, string>): Promise<void> {
    const args: Props = { ...config };
    for (const [k, v] of Object.entries(secretConfig)) args[k] = { [SIG_KEY]: SECRET_SIG, value: v };
    const req = new provproto.ConfigureRequest();
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries({ ...config, ...secretConfig })) vars.set(k, v);
    req.setArgs(struct(args));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.unary<provproto.ConfigureRequest, provproto.ConfigureResponse>("configure", req);
  }

  async check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.unary<provproto.CheckRequest, provproto.CheckResponse>("check", req);
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(urn: string, id: string, olds: Props, news: Props, oldInputs: Props): Promise<{ changes: number; replaces: string[]; deleteBeforeReplace: boolean }> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    req.setOldInputs(struct(oldInputs));
    const res = await this.unary<provproto.DiffRequest, provproto.DiffResponse>("diff", req);
    return { changes: res.getChanges(), replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace() };
  }

  async create(urn: string, properties: Props): Promise<{ id: string; properties: Props }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(struct(properties));
    req.setPreview(false);
    const res = await this.unary<provproto.CreateRequest, provproto.CreateResponse>("create", req);
    return { id: res.getId(), properties: fromStruct(res.getProperties()) };
  }

  async update(urn: string, id: string, olds: Props, news: Props, oldInputs: Props): Promise<Props> {
    const req = new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    req.setOldInputs(struct(oldInputs));
    req.setPreview(false);
    const res = await this.unary<provproto.UpdateRequest, provproto.UpdateResponse>("update", req);
    return fromStruct(res.getProperties());
  }

  async delete(urn: string, id: string, properties: Props, oldInputs: Props): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(struct(properties));
    req.setOldInputs(struct(oldInputs));
    await this.unary<provproto.DeleteRequest, Empty>("delete", req);
  }

  async read(urn: string, id: string, properties: Props, inputs: Props): Promise<{ id: string; properties: Props; inputs?: Props }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(struct(properties));
    req.setInputs(struct(inputs));
    const res = await this.unary<provproto.ReadRequest, provproto.ReadResponse>("read", req);
    return { id: res.getId(), properties: fromStruct(res.getProperties()), inputs: res.hasInputs() ? fromStruct(res.getInputs()) : undefined };
  }

  /** Engine shutdown: Cancel (a no-op in this server, pulumi-behaviour.md §1.2), then interrupt, then kill after 5 s (pulumi-behaviour.md §5). Resolves once
   * the process has exited and its output has been fully read, so `logs` is complete. */
  async shutdown(): Promise<void> {
    if (this.closed) return this.exited;
    this.closed = true;
    try {
      await Promise.race([
        this.unary<Empty, Empty>("cancel", new Empty()),
        new Promise((r) => setTimeout(r, 2000)),
      ]);
    } catch {
      // A dead process cannot be cancelled; the kill below still runs.
    }
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGINT");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    await this.exited;
  }
}
