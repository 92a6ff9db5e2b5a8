// The gRPC ResourceProvider service of pulumi-resource-garm. Each plugin process is one provider instance (the engine
// starts one per provider resource), so the connection belongs to this server, set by Configure.
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import * as services from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { checkConnectionSettings } from "../provider/common/config";
import { cancelNow, newCancellation } from "../provider/common/cancel";
import { Connection } from "../provider/common/connection";
import { type GarmMove, garmMove } from "../provider/common/garm-identity";
import { probeGarm } from "../provider/common/garm-probe";
import { UNKNOWN } from "../provider/common/unknown";
import { FunctionArgsError, functionNamed, invokeFunction } from "../provider/functions";
import { EngineLog, engineSink } from "./engine-log";
import { type PropertyDiffKind, changedConfigKeys, concealSecrets, configSource, defined, detailedDiffOf, revealSecrets, typeOfUrn } from "./protocol";
import { type PluginResource, pluginResources } from "./resources";

type Props = Record<string, unknown>;
type Handler<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

const KIND: Record<PropertyDiffKind, proto.PropertyDiff.Kind> = {
  add: proto.PropertyDiff.Kind.ADD,
  addReplace: proto.PropertyDiff.Kind.ADD_REPLACE,
  delete: proto.PropertyDiff.Kind.DELETE,
  deleteReplace: proto.PropertyDiff.Kind.DELETE_REPLACE,
  update: proto.PropertyDiff.Kind.UPDATE,
  updateReplace: proto.PropertyDiff.Kind.UPDATE_REPLACE,
};

export interface PluginOptions {
  readonly version: string;
  readonly schema: () => string;
  /** The environment the GARM_* fallbacks come from. */
  readonly env?: NodeJS.ProcessEnv;
  /** The engine's address, the plugin's first argument: where the lines users see go. */
  readonly engineAddress?: string;
}

/** The provider settings that decide which GARM it reaches. */
const CONNECTION_KEYS: ReadonlySet<string> = new Set(["url", "username", "password", "caCertFile", "insecure"]);

const toJs = (s: Struct | undefined): Props => (s ? (s.toJavaScript() as Props) : {});
const toStruct = (p: Props | undefined): Struct => Struct.fromJavaScript(defined(p ?? {}) as never);

/** An error the engine shows as the resource's failure; a partly created resource rides along so it is kept. */
function grpcError(err: unknown): grpc.ServiceError {
  const e = err as Error & { id?: string; properties?: Props; reasons?: string[] };
  const metadata = new grpc.Metadata();
  if (e.id) {
    const detail = new proto.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(toStruct(e.properties));
    detail.setReasonsList(e.reasons ?? []);
    const any = new Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(e.message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(e?.message ?? String(err)), { code: grpc.status.UNKNOWN, details: e?.message ?? String(err), metadata });
}

/** The URN a request is about, when it is about a resource. */
function urnOf(req: unknown): string {
  const getUrn = (req as { getUrn?: () => string }).getUrn;
  return typeof getUrn === "function" ? getUrn.call(req) : "";
}

/** Serves one request; the lines it logs carry its URN and reach the engine before the answer does. */
function unary<Req, Res>(log: EngineLog, work: (req: Req) => Promise<Res>): Handler<Req, Res> {
  return (call, callback) => {
    const answer = (err: unknown, res: Res | null) => void log.flushed().then(() => (err ? callback(grpcError(err), null) : callback(null, res)));
    log.within(urnOf(call.request), () => work(call.request)).then(
      (res) => answer(undefined, res),
      (err: unknown) => answer(err ?? new Error("unknown failure"), null),
    );
  };
}

/** The service implementation; `serve` binds it. */
export class GarmPluginServer {
  /** The engine's Cancel aborts it: every wait of an operation in progress ends, and no new GARM request starts. */
  private readonly cancellation = newCancellation();
  private readonly connection = new Connection(this.cancellation.signal);
  private readonly resources: ReadonlyMap<string, PluginResource>;
  private readonly garmMoves = new Map<string, Promise<GarmMove>>();
  private schemaKeys: Map<string, { outputs: string[]; inputs: ReadonlySet<string> }> | undefined;

  constructor(
    private readonly options: PluginOptions,
    private readonly log = new EngineLog(engineSink(options.engineAddress)),
  ) {
    this.resources = pluginResources(this.connection, this.log, this.cancellation.signal);
  }

  /**
   * What preview shows as a resource's outputs: the inputs, what the kind derives from them alone, and for an update
   * the outputs it has now; every other output the schema declares is unknown until GARM answers.
   */
  private previewOutputs(type: string, urn: string, inputs: Props, current: Props): Props {
    const token = type || typeOfUrn(urn);
    this.schemaKeys ??= new Map(
      Object.entries((JSON.parse(this.options.schema()) as { resources: Record<string, { properties?: Props; inputProperties?: Props }> }).resources).map(
        ([t, spec]) => [t, { outputs: Object.keys(spec.properties ?? {}), inputs: new Set(Object.keys(spec.inputProperties ?? {})) }],
      ),
    );
    const keys = this.schemaKeys.get(token) ?? { outputs: [], inputs: new Set<string>() };
    const unknowns = Object.fromEntries(keys.outputs.map((key) => [key, UNKNOWN]));
    // An input the update drops is gone from the outputs too.
    const kept = Object.fromEntries(Object.entries(current).filter(([key]) => !keys.inputs.has(key) || key in inputs));
    return { ...unknowns, ...kept, ...inputs, ...this.resource(type, urn).preview?.(inputs) };
  }

  /** The engine asks once per resource of a changed provider; the GARMs are compared once per pair of settings. */
  private garmMoveOf(olds: Props, news: Props): Promise<GarmMove> {
    const key = JSON.stringify([olds, news]);
    let move = this.garmMoves.get(key);
    if (!move) {
      const settings = (config: Props) => checkConnectionSettings(configSource(config, new Map()), this.options.env).settings;
      move = garmMove(settings(olds), settings(news));
      this.garmMoves.set(key, move);
    }
    return move;
  }

  private resource(type: string, urn: string): PluginResource {
    const token = type || typeOfUrn(urn);
    const found = this.resources.get(token);
    if (!found) throw new Error(`pulumi-resource-garm does not serve ${token}: it serves ${[...this.resources.keys()].join(", ")}`);
    return found;
  }

  get implementation(): grpc.UntypedServiceImplementation {
    return {
      getPluginInfo: unary<Empty, plugproto.PluginInfo>(this.log, async () => {
        const info = new plugproto.PluginInfo();
        info.setVersion(this.options.version);
        return info;
      }),

      getSchema: unary<proto.GetSchemaRequest, proto.GetSchemaResponse>(this.log, async () => {
        const resp = new proto.GetSchemaResponse();
        resp.setSchema(this.options.schema());
        return resp;
      }),

      checkConfig: unary<proto.CheckRequest, proto.CheckResponse>(this.log, async (req) => {
        // The rules the dynamic provider applies when it connects, so a bad setting fails preview naming it.
        const news = req.getNews() ?? new Struct();
        const { failures } = checkConnectionSettings(configSource(toJs(news), new Map()), this.options.env);
        const resp = new proto.CheckResponse();
        resp.setInputs(news);
        resp.setFailuresList(
          failures.map((f) => {
            const failure = new proto.CheckFailure();
            failure.setProperty(f.setting);
            failure.setReason(f.message);
            return failure;
          }),
        );
        return resp;
      }),

      diffConfig: unary<proto.DiffRequest, proto.DiffResponse>(this.log, async (req) => {
        const olds = revealSecrets(toJs(req.getOldInputs() ?? req.getOlds())).plain;
        const news = revealSecrets(toJs(req.getNews())).plain;
        const changed = changedConfigKeys(olds, news);
        const resp = new proto.DiffResponse();
        resp.setChanges(changed.length > 0 ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
        resp.setDiffsList(changed);
        // A provider that now reaches another GARM is replaced, and so is every resource of it (pulumi-behaviour.md
        // §8): each is created in the new GARM and deleted from the old one through the old provider, never left behind.
        const move = changed.some((key) => CONNECTION_KEYS.has(key)) ? await this.garmMoveOf(olds, news) : undefined;
        if (move?.kind === "other") {
          resp.setReplacesList(changed.filter((key) => CONNECTION_KEYS.has(key)));
          this.log.warn(
            `garm:url ${String(news.url ?? "")} reaches another GARM (controller ${move.to}) than the one this provider's resources live in ` +
              `(controller ${move.from}, ${String(olds.url ?? "")}): every resource of this provider is replaced, created in the new GARM and then deleted from the old one`,
          );
        }
        return resp;
      }),

      configure: unary<proto.ConfigureRequest, proto.ConfigureResponse>(this.log, async (req) => {
        const args = req.getArgs();
        this.connection.configure(configSource(args ? toJs(args) : undefined, new Map(req.getVariablesMap().entries() as Iterable<[string, string]>)), this.options.env);
        const client = this.connection.tryClient();
        if (client) await probeGarm(client, this.log);
        const resp = new proto.ConfigureResponse();
        // Secrets arrive marked and go back marked. Preview calls Create and Update with `preview` set: they answer
        // from the inputs alone (previewOutputs) and never reach GARM.
        resp.setAcceptsecrets(true);
        resp.setAcceptresources(false);
        resp.setSupportspreview(true);
        resp.setAcceptoutputs(false);
        return resp;
      }),

      check: unary<proto.CheckRequest, proto.CheckResponse>(this.log, async (req) => {
        const olds = revealSecrets(toJs(req.getOlds()));
        const news = revealSecrets(toJs(req.getNews()));
        const resource = this.resource(req.getType(), req.getUrn());
        const result = await resource.check(req.getUrn(), olds.plain, news.plain);
        const resp = new proto.CheckResponse();
        // A secret input given in clear (a plain YAML value) is stored as a secret all the same.
        resp.setInputs(toStruct(concealSecrets(result.inputs ?? news.plain, outputSecrets(resource, news.secretKeys))));
        resp.setFailuresList(
          (result.failures ?? []).map((f) => {
            const failure = new proto.CheckFailure();
            failure.setProperty(f.property);
            failure.setReason(f.reason);
            return failure;
          }),
        );
        return resp;
      }),

      diff: unary<proto.DiffRequest, proto.DiffResponse>(this.log, async (req) => {
        // Against the outputs, which hold what GARM has (refresh updates them): drift is marked, a no-op is none.
        const olds = revealSecrets(toJs(req.getOlds())).plain;
        const news = revealSecrets(toJs(req.getNews())).plain;
        const result = await this.resource(req.getType(), req.getUrn()).diff(req.getId(), olds, news);
        const resp = new proto.DiffResponse();
        if (!result.changes) {
          resp.setChanges(proto.DiffResponse.DiffChanges.DIFF_NONE);
          return resp;
        }
        resp.setChanges(proto.DiffResponse.DiffChanges.DIFF_SOME);
        resp.setReplacesList([...result.replaces]);
        resp.setStablesList([...(result.stables ?? [])]);
        resp.setDeletebeforereplace(result.deleteBeforeReplace);
        const detail = detailedDiffOf(result.fields);
        resp.setDiffsList(Object.keys(detail));
        // With no field to mark (a GarmProvider block GARM never confirmed), the engine's own comparison shows the change.
        if (Object.keys(detail).length > 0) {
          resp.setHasdetaileddiff(true);
          const map = resp.getDetaileddiffMap();
          for (const [key, { kind, inputDiff }] of Object.entries(detail)) {
            const diff = new proto.PropertyDiff();
            diff.setKind(KIND[kind]);
            diff.setInputdiff(inputDiff);
            map.set(key, diff);
          }
        }
        return resp;
      }),

      create: unary<proto.CreateRequest, proto.CreateResponse>(this.log, async (req) => {
        const inputs = revealSecrets(toJs(req.getProperties()));
        if (req.getPreview()) {
          const resp = new proto.CreateResponse();
          resp.setProperties(toStruct(concealSecrets(this.previewOutputs(req.getType(), req.getUrn(), inputs.plain, {}), outputSecrets(this.resource(req.getType(), req.getUrn()), inputs.secretKeys))));
          return resp;
        }
        const resource = this.resource(req.getType(), req.getUrn());
        const result = await resource.create(inputs.plain);
        const resp = new proto.CreateResponse();
        resp.setId(result.id);
        resp.setProperties(toStruct(concealSecrets(result.outs, outputSecrets(resource, inputs.secretKeys))));
        return resp;
      }),

      read: unary<proto.ReadRequest, proto.ReadResponse>(this.log, async (req) => {
        const props = revealSecrets(toJs(req.getProperties()));
        const inputs = revealSecrets(toJs(req.getInputs()));
        const resource = this.resource(req.getType(), req.getUrn());
        const secretKeys = outputSecrets(resource, new Set([...props.secretKeys, ...inputs.secretKeys]));
        const result = await resource.read(req.getId(), props.plain);
        const resp = new proto.ReadResponse();
        // An empty id tells the engine the resource is gone.
        resp.setId(result.id ?? "");
        if (result.id) {
          resp.setProperties(toStruct(concealSecrets(result.props ?? {}, secretKeys)));
          resp.setInputs(toStruct(concealSecrets(result.inputs ?? inputs.plain, secretKeys)));
        }
        return resp;
      }),

      update: unary<proto.UpdateRequest, proto.UpdateResponse>(this.log, async (req) => {
        const olds = revealSecrets(toJs(req.getOlds())).plain;
        const news = revealSecrets(toJs(req.getNews()));
        if (req.getPreview()) {
          const resp = new proto.UpdateResponse();
          resp.setProperties(toStruct(concealSecrets(this.previewOutputs(req.getType(), req.getUrn(), news.plain, olds), outputSecrets(this.resource(req.getType(), req.getUrn()), news.secretKeys))));
          return resp;
        }
        const resource = this.resource(req.getType(), req.getUrn());
        const result = await resource.update(req.getId(), olds, news.plain);
        const resp = new proto.UpdateResponse();
        resp.setProperties(toStruct(concealSecrets(result.outs ?? {}, outputSecrets(resource, news.secretKeys))));
        return resp;
      }),

      delete: unary<proto.DeleteRequest, Empty>(this.log, async (req) => {
        const props = revealSecrets(toJs(req.getProperties())).plain;
        await this.resource(req.getType(), req.getUrn()).delete(req.getId(), props);
        return new Empty();
      }),

      invoke: unary<proto.InvokeRequest, proto.InvokeResponse>(this.log, async (req) => {
        const fn = functionNamed(req.getTok());
        if (!fn) throw new Error(`pulumi-resource-garm has no function ${req.getTok()}`);
        const resp = new proto.InvokeResponse();
        try {
          // Functions only read, so preview runs them too: a program can use what they answer in its plan.
          resp.setReturn(toStruct(await invokeFunction(fn, () => this.connection.client(), revealSecrets(toJs(req.getArgs())).plain)));
        } catch (err) {
          if (!(err instanceof FunctionArgsError)) throw err;
          resp.setFailuresList(
            err.failures.map((f) => {
              const failure = new proto.CheckFailure();
              failure.setProperty(f.property);
              failure.setReason(`${fn.name}: ${f.reason}`);
              return failure;
            }),
          );
        }
        return resp;
      }),

      cancel: unary<Empty, Empty>(this.log, async () => {
        // The engine sends it on the first Ctrl-C, then waits for the operations in progress, and also at the end of
        // every run (pulumi-behaviour.md §5): so no line here; each operation it stops says where.
        cancelNow(this.cancellation, "the engine asked to cancel (Ctrl-C)");
        return new Empty();
      }),
      attach: unary<plugproto.PluginAttach, Empty>(this.log, async () => new Empty()),
      getMapping: unary<proto.GetMappingRequest, proto.GetMappingResponse>(this.log, async () => new proto.GetMappingResponse()),
    };
  }
}

/** The keys of a resource's outputs to mark secret: those the engine sent as secrets, and those derived from one. */
function outputSecrets(resource: PluginResource, sent: ReadonlySet<string>): Set<string> {
  return new Set([...sent, ...(resource.secrets ?? [])]);
}

/** Starts the plugin on a loopback port; resolves to the port, which the engine reads from stdout. */
export async function serve(options: PluginOptions): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(services.ResourceProviderService, new GarmPluginServer(options).implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { port, server };
}
