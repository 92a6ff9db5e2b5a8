// The engine harness: replays the Pulumi engine's call sequences (pulumi-behaviour.md §2) against the real
// dynamic-provider server (pulumi-behaviour.md §6.3) and keeps a checkpoint-like state between operations. It models only what matters
// for dynamic resources: Check/Diff/Create/Update/Delete/Read ordering, Same-keeps-old-outputs, create-before-delete
// and delete-before-replace replacement, pending deletes, reverse-order deletes, refresh drops and init errors.
import * as fs from "node:fs";
import { isDeepStrictEqual } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { runDag } from "./dag";
import { ProviderCallError, ProviderProcess, type Props } from "./provider-process";
import {
  UNKNOWN,
  type CheckFailure,
  type DestroyResult,
  type DiffSummary,
  type Engine,
  type LogEntry,
  type OperationKind,
  type OperationResult,
  type PreviewResult,
  type RefMarker,
  type RefreshResult,
  type ResourceDecl,
  type ResourceState,
  type ResourceStep,
  type RpcOp,
  type StartEngineOptions,
  type StateSnapshot,
  type StepRecord,
  type UpResult,
} from "./types";

const PROVIDER_KEY = "__provider";
/** DiffResponse.DiffChanges: 0 unknown, 1 none, 2 some (pulumi-behaviour.md §1.2). */
const DIFF_NAMES = ["unknown", "none", "some"] as const;

export function ref(resource: string, output: string): RefMarker {
  return { __engineHarnessRef: true, resource, output };
}

export function isRef(v: unknown): v is RefMarker {
  return typeof v === "object" && v !== null && (v as RefMarker).__engineHarnessRef === true;
}

function refsIn(v: unknown, acc: RefMarker[] = []): RefMarker[] {
  if (isRef(v)) acc.push(v);
  else if (Array.isArray(v)) v.forEach((x) => refsIn(x, acc));
  else if (v !== null && typeof v === "object") Object.values(v).forEach((x) => refsIn(x, acc));
  return acc;
}

/** Replaces ref markers. `undefined` drops an object key and becomes null in arrays, as SDK serialization does. */
function resolveRefs(v: unknown, lookup: (r: RefMarker) => unknown): unknown {
  if (isRef(v)) return lookup(v);
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, lookup) ?? null);
  if (v !== null && typeof v === "object") {
    const out: Props = {};
    for (const [k, x] of Object.entries(v)) {
      const r = resolveRefs(x, lookup);
      if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return v;
}

function withoutProvider(p: Props | undefined): Props {
  const { [PROVIDER_KEY]: _omit, ...rest } = p ?? {};
  return rest;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function emptyResult(): OperationResult {
  return { ok: true, steps: [], created: [], updated: [], replaced: [], same: [], deleted: [], diffs: {}, checkFailures: {}, errors: {}, logs: [] };
}

function declDeps(d: ResourceDecl): string[] {
  return [...new Set([...refsIn(d.inputs).map((r) => r.resource), ...(d.dependsOn ?? [])])];
}

/** Per-operation context: one provider process, one result, one stop-on-error flag. */
interface OpCtx {
  kind: OperationKind;
  proc: ProviderProcess;
  result: OperationResult;
  failed: boolean;
}

/** The key in `OperationResult.errors` for a failure of the provider process itself rather than of a resource. */
export const PROVIDER_PROCESS = "(provider process)";

class HarnessEngine implements Engine {
  readonly steps: StepRecord[] = [];
  readonly logs: string[] = [];
  readonly logEntries: LogEntry[] = [];
  readonly processes: { operation: OperationKind; pid: number; port: number }[] = [];

  private readonly project: string;
  private readonly stack: string;
  private resources: ResourceState[] = [];
  private seq = 0;
  /** Per provider object, like the SDK's WeakMap cache of serialized providers (pulumi-behaviour.md §3.1). */
  private readonly serialized = new WeakMap<object, Promise<string>>();

  constructor(private readonly opts: StartEngineOptions) {
    this.project = opts.project ?? "project";
    this.stack = opts.stack ?? "stack";
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Public operations

  async preview(program: ResourceDecl[]): Promise<PreviewResult> {
    this.validate(program);
    const previewOutputs = new Map<string, { plan: "same" | "create" | "update" | "replace"; id?: string; outputs: Props }>();
    const result = await this.operation("preview", async (ctx) => {
      const byName = new Map(program.map((d) => [d.name, d]));
      await this.dag(ctx, program.map((d) => d.name), (n) => declDeps(byName.get(n)!), async (name) => {
        const decl = byName.get(name)!;
        const urn = this.urn(decl);
        // pulumi-behaviour.md §2.2: outputs of resources that will be created/updated/replaced are unknown in preview, except that a
        // provider without preview support returns the checked inputs as the state; `id` is unknown unless kept.
        const lookup = (r: RefMarker): unknown => {
          const p = previewOutputs.get(r.resource)!;
          if (r.output === "id") return p.id ?? UNKNOWN;
          const v = p.outputs[r.output];
          return v === undefined && p.plan !== "same" ? UNKNOWN : v;
        };
        const news: Props = { ...(resolveRefs(decl.inputs, lookup) as Props), [PROVIDER_KEY]: await this.providerText(decl) };
        const old = this.live(urn);
        const checked = await this.check(ctx, decl, urn, old, news);
        if (!checked) return false;
        if (!old) {
          previewOutputs.set(name, { plan: "create", outputs: checked });
          this.pushStep(ctx, { name, urn, op: "create", ok: true });
          return true;
        }
        const plan = await this.plan(ctx, decl, urn, old, checked);
        if (!plan) return false;
        if (plan.kind === "same") {
          previewOutputs.set(name, { plan: "same", id: old.id, outputs: old.outputs });
          this.pushStep(ctx, { name, urn, op: "same", ok: true });
        } else if (plan.kind === "update") {
          previewOutputs.set(name, { plan: "update", id: old.id, outputs: checked });
          this.pushStep(ctx, { name, urn, op: "update", ok: true });
        } else {
          previewOutputs.set(name, { plan: "replace", outputs: checked });
          if (plan.deleteBeforeReplace) this.pushStep(ctx, { name, urn, op: "delete", ok: true, replaced: true, deleteBeforeReplace: true });
          this.pushStep(ctx, { name, urn, op: "replace", ok: true, deleteBeforeReplace: plan.deleteBeforeReplace });
          if (!plan.deleteBeforeReplace) this.pushStep(ctx, { name, urn, op: "delete", ok: true, replaced: true });
        }
        return true;
      });
      // The deletes `up` would run at the end (pulumi-behaviour.md §2.3); preview sends no RPC for them.
      for (const r of this.pendingDeletes(program)) this.pushStep(ctx, { name: r.name, urn: r.urn, op: "delete", ok: true, replaced: r.pendingDelete });
    });
    const outputs: Record<string, Props> = {};
    for (const [n, p] of previewOutputs) outputs[n] = withoutProvider(p.outputs);
    return { ...result, outputs };
  }

  async up(program: ResourceDecl[]): Promise<UpResult> {
    this.validate(program);
    const outputs = new Map<string, ResourceState>();
    const result = await this.operation("up", async (ctx) => {
      const byName = new Map(program.map((d) => [d.name, d]));
      await this.dag(ctx, program.map((d) => d.name), (n) => declDeps(byName.get(n)!), async (name) => {
        const st = await this.upOne(ctx, byName.get(name)!);
        if (st) outputs.set(name, st);
        return st !== undefined;
      });
      // pulumi-behaviour.md §2.3: deletes (replaced resources, pending deletes from earlier runs, resources gone from the program) run
      // after all creates/updates, in reverse dependency order, and not at all after a failure unless
      // continue-on-error.
      if (!ctx.failed || this.opts.continueOnError) await this.deleteAll(ctx, this.pendingDeletes(program));
    });
    const outs: Record<string, Props> = {};
    for (const [n, s] of outputs) outs[n] = withoutProvider(s.outputs);
    return { ...result, outputs: outs };
  }

  async destroy(): Promise<DestroyResult> {
    // pulumi-behaviour.md §2.4: the program does not run; every resource is deleted with its stored outputs (and their __provider).
    return this.operation("destroy", (ctx) => this.deleteAll(ctx, [...this.resources]));
  }

  async refresh(opts: { diff?: boolean } = {}): Promise<RefreshResult> {
    const dropped: string[] = [];
    const result = await this.operation("refresh", async (ctx) => {
      const entries = [...this.resources];
      const keys = entries.map((_, i) => String(i));
      await this.dag(ctx, keys, () => [], async (k) => {
        const r = entries[Number(k)];
        // pulumi-behaviour.md §2.5: Read(id, properties = old outputs, inputs = old inputs).
        const res = await this.rpc(ctx, "read", r.name, r.urn, r.id, { properties: r.outputs, inputs: r.inputs }, () =>
          ctx.proc.read(r.urn, r.id, r.outputs, r.inputs),
        ).catch((e: unknown) => this.fail(ctx, { name: r.name, urn: r.urn, op: "read" }, e));
        if (!res) return false;
        if (res.id === "") {
          // "If the ID is blank treat this as a delete" (pulumi-behaviour.md §2.5).
          this.resources = this.resources.filter((x) => x !== r);
          dropped.push(r.name);
          this.pushStep(ctx, { name: r.name, urn: r.urn, op: "read", ok: true, gone: true });
          return true;
        }
        const changed = !isDeepStrictEqual(r.outputs, res.properties) || (res.inputs !== undefined && !isDeepStrictEqual(r.inputs, res.inputs));
        r.id = res.id;
        r.outputs = res.properties;
        if (res.inputs) r.inputs = res.inputs; // ReadResult.inputs replaces stored inputs (pulumi-behaviour.md §2.5, ≥3.216)
        if (opts.diff !== false) {
          // pulumi-behaviour.md §2.5: the engine then diffs to display drift; here: refreshed outputs vs stored inputs.
          const d = await this.rpc(ctx, "diff", r.name, r.urn, r.id, { olds: r.outputs, news: r.inputs, oldInputs: r.inputs }, () =>
            ctx.proc.diff(r.urn, r.id, r.outputs, r.inputs, r.inputs),
          ).catch((e: unknown) => this.fail(ctx, { name: r.name, urn: r.urn, op: "read" }, e));
          if (!d) return false;
          ctx.result.diffs[r.name] = { changes: DIFF_NAMES[d.changes] ?? "unknown", replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
        }
        this.pushStep(ctx, { name: r.name, urn: r.urn, op: "read", ok: true, changed });
        return true;
      });
    });
    return { ...result, dropped };
  }

  state(): StateSnapshot {
    return { project: this.project, stack: this.stack, resources: clone(this.resources) };
  }

  saveState(path: string): void {
    fs.writeFileSync(path, JSON.stringify({ version: 1, ...this.state() }, null, 2));
  }

  loadState(path: string): void {
    const snap = JSON.parse(fs.readFileSync(path, "utf8")) as StateSnapshot & { version?: number };
    if (!Array.isArray(snap.resources)) throw new Error(`${path}: no resources array`);
    this.resources = clone(snap.resources);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Up of one resource (pulumi-behaviour.md §2.3)

  private async upOne(ctx: OpCtx, decl: ResourceDecl): Promise<ResourceState | undefined> {
    const urn = this.urn(decl);
    const name = decl.name;
    const lookup = (r: RefMarker): unknown => {
      const dep = this.live(this.urnOfName(r.resource));
      if (!dep) return undefined;
      return r.output === "id" ? dep.id : dep.outputs[r.output];
    };
    const news: Props = { ...(resolveRefs(decl.inputs, lookup) as Props), [PROVIDER_KEY]: await this.providerText(decl) };
    const old = this.live(urn);
    const checked = await this.check(ctx, decl, urn, old, news);
    if (!checked) return undefined;
    const dependencies = declDeps(decl);

    if (!old) {
      const created = await this.doCreate(ctx, decl, urn, checked, dependencies, "create");
      return created;
    }
    const plan = await this.plan(ctx, decl, urn, old, checked);
    if (!plan) return undefined;

    if (plan.kind === "same") {
      // Same step: new inputs, OLD outputs (step.go:173-179, pulumi-behaviour.md §2.3), so the old __provider stays in the outputs.
      old.inputs = checked;
      old.dependencies = dependencies;
      this.pushStep(ctx, { name, urn, op: "same", ok: true });
      return old;
    }
    if (plan.kind === "update") {
      // Update(id, olds = old outputs, news = checked inputs); the returned properties replace the outputs.
      try {
        const outs = await this.rpc(ctx, "update", name, urn, old.id, { olds: old.outputs, news: checked, oldInputs: old.inputs }, () =>
          ctx.proc.update(urn, old.id, old.outputs, checked, old.inputs),
        );
        Object.assign(old, { inputs: checked, outputs: outs, dependencies });
        delete old.initErrors;
        this.pushStep(ctx, { name, urn, op: "update", ok: true });
        return old;
      } catch (e) {
        if (e instanceof ProviderCallError && e.initFailed) {
          // Partial failure: the engine keeps the new state with init errors (pulumi-behaviour.md §2.8).
          Object.assign(old, { inputs: checked, outputs: e.initFailed.properties, dependencies, initErrors: e.initFailed.reasons });
          this.fail(ctx, { name, urn, op: "update", initErrors: e.initFailed.reasons }, e);
          return undefined;
        }
        this.fail(ctx, { name, urn, op: "update" }, e);
        return undefined;
      }
    }
    if (plan.deleteBeforeReplace) {
      // deleteBeforeReplace: Delete(old) first, then Create(new) (pulumi-behaviour.md §2.3). A failed delete leaves the old one alone.
      const deleted = await this.doDelete(ctx, old, { deleteBeforeReplace: true });
      if (!deleted) {
        this.fail(ctx, { name, urn, op: "replace", deleteBeforeReplace: true }, new Error(`delete of the old ${name} failed`));
        return undefined;
      }
      return this.doCreate(ctx, decl, urn, checked, dependencies, "replace", { deleteBeforeReplace: true });
    }
    // Create-before-delete: Create(new) now, mark the old one pending delete, Delete(old) after all creates/updates.
    return this.doCreate(ctx, decl, urn, checked, dependencies, "replace", { old });
  }

  private async doCreate(
    ctx: OpCtx,
    decl: ResourceDecl,
    urn: string,
    checked: Props,
    dependencies: string[],
    op: "create" | "replace",
    extra: { old?: ResourceState; deleteBeforeReplace?: boolean } = {},
  ): Promise<ResourceState | undefined> {
    const name = decl.name;
    const entry = (id: string, outputs: Props, initErrors?: string[]): ResourceState => {
      const st: ResourceState = { urn, name, type: this.typeToken(decl), id, inputs: checked, outputs, pendingDelete: false, dependencies };
      if (initErrors) st.initErrors = initErrors;
      if (decl.retainOnDelete) st.retainOnDelete = true;
      // On success (also partial success) the old resource is flagged for deletion (step.go:467-472).
      if (extra.old) extra.old.pendingDelete = true;
      this.resources.push(st);
      return st;
    };
    const step = { name, urn, op, ...(extra.deleteBeforeReplace !== undefined ? { deleteBeforeReplace: extra.deleteBeforeReplace } : op === "replace" ? { deleteBeforeReplace: false } : {}) };
    try {
      const res = await this.rpc(ctx, "create", name, urn, undefined, { properties: checked }, () => ctx.proc.create(urn, checked));
      const st = entry(res.id, res.properties);
      this.pushStep(ctx, { ...step, ok: true });
      return st;
    } catch (e) {
      if (e instanceof ProviderCallError && e.initFailed) {
        entry(e.initFailed.id, e.initFailed.properties, e.initFailed.reasons);
        this.fail(ctx, { ...step, initErrors: e.initFailed.reasons }, e);
        return undefined;
      }
      // A plain create failure records nothing (pulumi-behaviour.md §2.8): a remote object made before the throw is orphaned.
      this.fail(ctx, step, e);
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Shared steps

  /** Check(olds = old inputs or {}, news) (pulumi-behaviour.md §2.2, pulumi-behaviour.md §2.3). Returns the checked inputs, or undefined on failure. */
  private async check(ctx: OpCtx, decl: ResourceDecl, urn: string, old: ResourceState | undefined, news: Props): Promise<Props | undefined> {
    const op = old ? "update" : "create";
    const olds = old?.inputs ?? {};
    let res: { inputs: Props; failures: CheckFailure[] };
    try {
      res = await this.rpc(ctx, "check", decl.name, urn, old?.id, { olds, news }, () => ctx.proc.check(urn, olds, news));
    } catch (e) {
      this.fail(ctx, { name: decl.name, urn, op }, e);
      return undefined;
    }
    if (res.failures.length > 0) {
      ctx.result.checkFailures[decl.name] = res.failures;
      const msg = res.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
      this.fail(ctx, { name: decl.name, urn, op }, new Error(`check failed: ${msg}`));
      return undefined;
    }
    return res.inputs;
  }

  /** Diff(id, olds = old OUTPUTS, news = checked inputs, oldInputs) and the engine's decision (pulumi-behaviour.md §2.3). */
  private async plan(
    ctx: OpCtx,
    decl: ResourceDecl,
    urn: string,
    old: ResourceState,
    checked: Props,
  ): Promise<{ kind: "same" | "update" | "replace"; deleteBeforeReplace: boolean } | undefined> {
    let d: { changes: number; replaces: string[]; deleteBeforeReplace: boolean };
    try {
      d = await this.rpc(ctx, "diff", decl.name, urn, old.id, { olds: old.outputs, news: checked, oldInputs: old.inputs }, () =>
        ctx.proc.diff(urn, old.id, old.outputs, checked, old.inputs),
      );
    } catch (e) {
      this.fail(ctx, { name: decl.name, urn, op: "update" }, e);
      return undefined;
    }
    const summary: DiffSummary = { changes: DIFF_NAMES[d.changes] ?? "unknown", replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
    ctx.result.diffs[decl.name] = summary;
    // The resource option overrides the provider's answer when set (step_generator.go:2044, pulumi-behaviour.md §2.3).
    const deleteBeforeReplace = decl.deleteBeforeReplace ?? d.deleteBeforeReplace;
    if (d.replaces.length > 0) return { kind: "replace", deleteBeforeReplace };
    // DIFF_UNKNOWN: the engine compares old and new inputs itself, __provider included (pulumi-behaviour.md §1.2, pulumi-behaviour.md §2.3).
    const changed = summary.changes === "some" || (summary.changes === "unknown" && !isDeepStrictEqual(old.inputs, checked));
    // Unchanged but with init errors: an empty update "continues initialization" (pulumi-behaviour.md §2.8).
    if (changed || (old.initErrors?.length ?? 0) > 0) return { kind: "update", deleteBeforeReplace };
    return { kind: "same", deleteBeforeReplace };
  }

  private async doDelete(ctx: OpCtx, r: ResourceState, extra: { deleteBeforeReplace?: boolean } = {}): Promise<boolean> {
    const replaced = r.pendingDelete || extra.deleteBeforeReplace === true;
    const step: Omit<ResourceStep, "ok"> = { name: r.name, urn: r.urn, op: "delete", ...(replaced ? { replaced: true } : {}), ...extra };
    try {
      // retainOnDelete: the engine forgets the resource and sends no Delete, a replaced one included.
      if (r.retainOnDelete) {
        this.resources = this.resources.filter((x) => x !== r);
        this.pushStep(ctx, { ...step, ok: true });
        return true;
      }
      // Delete(id, properties = stored OUTPUTS incl. their __provider, oldInputs) (pulumi-behaviour.md §2.4, pulumi-behaviour.md §3.4).
      await this.rpc(ctx, "delete", r.name, r.urn, r.id, { properties: r.outputs, oldInputs: r.inputs }, () =>
        ctx.proc.delete(r.urn, r.id, r.outputs, r.inputs),
      );
    } catch (e) {
      // "If it throws, the engine treats the resource as still existing" (pulumi-behaviour.md §1.2): it stays in state, and a replaced
      // one stays pending delete to be retried at the end of the next up (pulumi-behaviour.md §2.3).
      this.fail(ctx, step, e);
      return false;
    }
    this.resources = this.resources.filter((x) => x !== r);
    this.pushStep(ctx, { ...step, ok: true });
    return true;
  }

  /** Deletes in reverse dependency order: a resource goes only after every resource (in the set) depending on it. */
  private async deleteAll(ctx: OpCtx, entries: ResourceState[]): Promise<void> {
    const keys = entries.map((_, i) => String(i));
    await this.dag(
      ctx,
      keys,
      (k) => {
        const target = entries[Number(k)];
        return keys.filter((j) => j !== k && entries[Number(j)].dependencies.includes(target.name));
      },
      (k) => this.doDelete(ctx, entries[Number(k)]),
      (k, reason) => {
        const r = entries[Number(k)];
        ctx.result.steps.push({ name: r.name, urn: r.urn, op: "delete", ok: false, skipped: true, error: reason, ...(r.pendingDelete ? { replaced: true } : {}) });
        ctx.result.ok = false;
      },
    );
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Plumbing

  /** One provider process per operation: launched at the start, configured, shut down at the end (pulumi-behaviour.md §2.1). */
  private async operation(kind: OperationKind, body: (ctx: OpCtx) => Promise<void>): Promise<OperationResult> {
    const result = emptyResult();
    const proc = await ProviderProcess.launch({
      cwd: this.opts.cwd,
      project: this.project,
      env: this.opts.env,
      startTimeoutMs: this.opts.startTimeoutMs,
      onLine: (stream, line) => {
        this.logs.push(line);
        this.logEntries.push({ operation: kind, stream, line });
        result.logs.push(line);
      },
    });
    this.processes.push({ operation: kind, pid: proc.pid, port: proc.port });
    this.opts.onLaunch?.(proc.pid);
    const ctx: OpCtx = { kind, proc, result, failed: false };
    try {
      try {
        await proc.configure(this.opts.config ?? {}, this.opts.secretConfig ?? {});
      } catch (e) {
        // The CLI ends a run whose provider plugin dies before it is configured with an error of the run, not of a
        // resource: the operation failed and nothing was asked of the provider.
        result.errors[PROVIDER_PROCESS] = `the provider process could not be configured: ${errMessage(e)}`;
        result.ok = false;
        return result;
      }
      await body(ctx);
    } finally {
      await proc.shutdown();
    }
    result.ok = result.ok && !ctx.failed && Object.keys(result.checkFailures).length === 0;
    return result;
  }

  private dag(ctx: OpCtx, nodes: string[], deps: (n: string) => string[], run: (n: string) => Promise<boolean>, onSkip?: (n: string, reason: string) => void) {
    return runDag({
      nodes,
      deps,
      parallel: Math.max(1, this.opts.parallel ?? 16),
      run,
      canStart: () => !ctx.failed || this.opts.continueOnError === true,
      onSkip:
        onSkip ??
        ((n, reason) => {
          ctx.result.steps.push({ name: n, urn: this.urnOfName(n), op: this.live(this.urnOfName(n)) ? "update" : "create", ok: false, skipped: true, error: reason });
          ctx.result.ok = false;
        }),
    });
  }

  /** Sends one RPC and records it in `steps` in send order. */
  private async rpc<T>(ctx: OpCtx, op: RpcOp, name: string, urn: string, id: string | undefined, request: Record<string, Props>, call: () => Promise<T>): Promise<T> {
    const rec: StepRecord = { seq: ++this.seq, operation: ctx.kind, op, name, urn, ok: false, request: {} };
    if (id !== undefined) rec.id = id;
    for (const [k, v] of Object.entries(request)) rec.request[k] = withoutProvider(clone(v));
    this.steps.push(rec);
    try {
      const res = await call();
      rec.ok = true;
      if (res && typeof res === "object") {
        const r = clone(res) as Props;
        for (const k of ["properties", "inputs"]) if (r[k] && typeof r[k] === "object") r[k] = withoutProvider(r[k] as Props);
        rec.response = r;
      }
      return res;
    } catch (e) {
      rec.error = errMessage(e);
      throw e;
    }
  }

  private pushStep(ctx: OpCtx, step: ResourceStep): void {
    ctx.result.steps.push(step);
    if (!step.ok) return;
    const list = { create: "created", update: "updated", replace: "replaced", same: "same", delete: "deleted", read: undefined }[step.op] as
      | "created" | "updated" | "replaced" | "same" | "deleted" | undefined;
    if (list) ctx.result[list].push(step.name);
  }

  private fail(ctx: OpCtx, step: Omit<ResourceStep, "ok">, e: unknown): undefined {
    const error = errMessage(e);
    ctx.failed = true;
    ctx.result.ok = false;
    ctx.result.errors[step.name] = error;
    this.pushStep(ctx, { ...step, ok: false, error });
    return undefined;
  }

  private providerText(decl: ResourceDecl): Promise<string> {
    // Exactly what pulumi.dynamic.Resource does (pulumi-behaviour.md §3.1), so serialization mistakes surface here.
    let p = this.serialized.get(decl.provider);
    if (!p) {
      const provider = decl.provider;
      p = pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true }).then((sf) => sf.text);
      this.serialized.set(provider, p);
    }
    return p;
  }

  private typeToken(decl: ResourceDecl): string {
    return `pulumi-nodejs:dynamic${decl.module ? "/" + decl.module : ""}:${decl.type}`;
  }

  private urn(decl: ResourceDecl): string {
    return `urn:pulumi:${this.stack}::${this.project}::${this.typeToken(decl)}::${decl.name}`;
  }

  /** URN of the live resource with this name (names are unique per program). */
  private urnOfName(name: string): string {
    return this.resources.find((r) => r.name === name && !r.pendingDelete)?.urn ?? `urn:pulumi:${this.stack}::${this.project}::?::${name}`;
  }

  private live(urn: string): ResourceState | undefined {
    return this.resources.find((r) => r.urn === urn && !r.pendingDelete);
  }

  /** What `up` deletes at the end: pending deletes, and live resources whose URN the program no longer declares. */
  private pendingDeletes(program: ResourceDecl[]): ResourceState[] {
    const urns = new Set(program.map((d) => this.urn(d)));
    return this.resources.filter((r) => r.pendingDelete || !urns.has(r.urn));
  }

  private validate(program: ResourceDecl[]): void {
    const names = new Set<string>();
    for (const d of program) {
      if (names.has(d.name)) throw new Error(`duplicate resource name ${d.name}`);
      names.add(d.name);
      if (PROVIDER_KEY in d.inputs) throw new Error("A dynamic resource must not define the __provider key");
    }
    for (const d of program) {
      for (const dep of declDeps(d)) if (!names.has(dep)) throw new Error(`${d.name} depends on ${dep}, which the program does not declare`);
    }
    // Cycles cannot happen in a real program (an Output cannot depend on itself); reject them early.
    const byName = new Map(program.map((d) => [d.name, d]));
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (n: string): void => {
      if (done.has(n)) return;
      if (visiting.has(n)) throw new Error(`dependency cycle through ${n}`);
      visiting.add(n);
      declDeps(byName.get(n)!).forEach(visit);
      visiting.delete(n);
      done.add(n);
    };
    program.forEach((d) => visit(d.name));
  }
}

export function startEngine(opts: StartEngineOptions): Engine {
  return new HarnessEngine(opts);
}
