// The GarmProvider resource operations with their collaborators passed in: the config file edits, the shared GARM
// restart, and the GARM reads that confirm a change or guard a delete.
import { AsyncLocalStorage } from "node:async_hooks";
import { isDeepStrictEqual } from "node:util";
import { isCancelled } from "../../common/cancel";
import { partialCreate } from "../../common/lost-answer";
import { checkGarmProvider, type CheckFailure } from "./checks";
import { describeCommand } from "./command-text";
import { DEFAULT_LOCK_WAIT_MS, editConfigFile, readConfigText, type EditOptions } from "./config-file";
import { CONNECTION_LOST, errnoOf, type GarmHost } from "../../machine/host";
import { containsUnknown } from "../../common/unknown";
import { SshConnectError } from "../../machine/ssh-connection";
import { LOCK_STALE_MS } from "../../machine/lock";
import { localHost } from "../../machine/local-host";
import { diffGarmProvider, sameFileOn } from "./diff";
import type { PlannedDiff } from "../../common/planned-diff";
import { handWrittenProviderNames, parseToml, providerEntries, verifyEdit } from "./garm-config";
import { type ScaleSetAndPoolSource, listDependents, refusalOf, scaleSetsAndPoolsWhere } from "../../common/dependents";
import { findBlocks, markHandWritten, readBlock, readBlockClaim, readBlockOwner, removeBlock, setBlockClaim, upsertBlock, type BlockClaim } from "./managed-block";
import { garmProviderId, handWrittenSpec } from "./import";
import { describeOwner, foreignOwner, TAKE_OVER_HINT } from "./ownership";
import {
  blockSpecOf,
  migrateState,
  newGeneration,
  outputsOf,
  withDefaults,
  type GarmProviderInputs,
  type GarmProviderOutputs,
  type GarmProviderOwner,
  type ProviderBlockSpec,
} from "./inputs";
import { announceRestart, readAnnouncement } from "./restart-announcement";
import type { RestartAnnouncement } from "../../garm/restart-window";
import { providerShown, waitForProviders, type ProviderExpectation, type ProviderListing } from "./wait";
import { declareFor } from "../../garm/lookups";

/** The GARM reads GarmProvider needs. */
export interface GarmReader extends ScaleSetAndPoolSource {
  listProviders(): Promise<ProviderListing[]>;
}

export interface Restarter {
  /**
   * Resolves after a restart that began after this call succeeded, on `host` (this machine when absent); rejects with
   * the restart's failure, or with the cancellation when `cancel` aborts first.
   */
  request(command: string, timeoutMs: number, host?: GarmHost, cancel?: AbortSignal): Promise<void>;
  /** Marks a change on `host` under way, so restarts requested meanwhile wait to share one with it; returns the release. */
  hold?(host?: GarmHost): () => void;
}

export interface GarmProviderDeps {
  /** The GARM client; called only when needed, so check and diff never need connection settings. */
  garm(): GarmReader;
  restarts: Restarter;
  /** Rejects with the cancellation when `cancel` aborts. */
  sleep(ms: number): Promise<void>;
  /** The provider instance's cancellation (../../common/cancel.ts): the restart wait, the polls and the lock wait end on it. */
  cancel?: AbortSignal;
  now(): number;
  log(line: string): void;
  /** Interval between GET /providers polls after a restart. Defaults to 1000 ms. */
  pollMs?: number;
  /** Options of config file edits; their `host` is ignored in favour of `host`. */
  editOptions?: EditOptions;
  /** The machine GARM's config file lives on and its restart command runs on. Defaults to this one. */
  host?: GarmHost;
  /** Watches where other writers of a config file announce their GARM restarts (RestartWindows.watch). */
  watchRestarts?(file: string, read: RestartAnnouncement): void;
  /** Bound on planning's GET /providers, so an unreachable GARM does not hold a preview up. Defaults to 5000 ms. */
  planningReadMs?: number;
  /** Returns why `file` cannot serve as provider executable (or config file), or undefined when it can. */
  inspectFile?(file: string, mustBeExecutable: boolean): Promise<string | undefined>;
}

export interface GarmProviderImpl {
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs?: Record<string, unknown>; failures?: CheckFailure[] }>;
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<PlannedDiff>;
  create(inputs: Record<string, unknown>): Promise<{ id: string; outs: GarmProviderOutputs }>;
  read(id: string, props?: Record<string, unknown>): Promise<{ id?: string; props?: GarmProviderOutputs; inputs?: GarmProviderInputs }>;
  update(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ outs: GarmProviderOutputs }>;
  delete(id: string, props: Record<string, unknown>): Promise<void>;
}

/** Default file inspection: the executable must exist and carry an execute bit; GARM refuses to start otherwise (§9.1). */
export async function inspectHostFile(host: GarmHost, file: string, mustBeExecutable: boolean): Promise<string | undefined> {
  try {
    const st = await host.stat(file);
    if (!st.isFile) return `${file} is not a regular file`;
    if (mustBeExecutable && (st.mode & 0o111) === 0) return `${file} is not executable (mode ${(st.mode & 0o777).toString(8)})`;
    return undefined;
  } catch (e) {
    // Not reaching GARM's machine says nothing about the file: the caller words it as what it is.
    if (e instanceof SshConnectError) throw e;
    const code = errnoOf(e);
    return code === "ENOENT" ? `${file} does not exist` : `${file} cannot be inspected (${(e as Error).message})`;
  }
}

function inputsOf(raw: Record<string, unknown>): GarmProviderInputs {
  const o = migrateState(withDefaults(raw));
  const { stateVersion: _ignored, confirmed: _unused, generation: _output, ...inputs } = o;
  return inputs;
}

/** A generation as messages name it. */
function generationText(generation: string | undefined): string {
  return generation === undefined ? "none" : generation;
}

const PROVIDER_KEY = "__provider";

function one(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function makeGarmProviderImpl(deps: GarmProviderDeps): GarmProviderImpl {
  const pollMs = deps.pollMs ?? 1000;
  const host = deps.host ?? localHost;
  const editOptions: EditOptions = { ...deps.editOptions, host, cancel: deps.cancel };
  const readText = (file: string) => readConfigText(file, host);
  const inspect = deps.inspectFile ?? ((file: string, mustBeExecutable: boolean) => inspectHostFile(host, file, mustBeExecutable));
  const say = (name: string, what: string) => deps.log(`GarmProvider "${name}": ${what}`);

  /** Refuses, before the file is touched, a block that would stop GARM from starting. */
  async function preflight(inputs: GarmProviderInputs): Promise<void> {
    const problems: (string | undefined)[] = [];
    try {
      problems.push(await inspect(inputs.executable, true));
      if (inputs.configFile) problems.push(await inspect(inputs.configFile, false));
    } catch (e) {
      if (!(e instanceof SshConnectError)) throw e;
      throw new Error(`GarmProvider "${inputs.name}": cannot reach GARM's machine, so ${inputs.garmConfigPath} is unchanged: ${e.message}`);
    }
    const found = problems.filter((p): p is string => p !== undefined);
    // GARM exits at start when a provider executable is missing (garm-behaviour.md §9.1).
    if (found.length > 0) {
      throw new Error(
        `GarmProvider "${inputs.name}": not writing ${inputs.garmConfigPath} because ${found.join("; ")}; GARM refuses to start with a provider whose files are missing. Install them first, then run pulumi up again`,
      );
    }
  }

  /**
   * Writes the block for `inputs`, recording `inputs.owner` and `generation` in it. `previousOwner` (the resource's
   * owner before this update) may also own the block. `adopt` (a resource imported from a hand-written entry) first
   * puts the markers around that entry as it stands. A block that already says `spec` keeps its bytes but for its
   * owner line, which says `inputs.owner` and `generation` after. Returns whether the file changed, whether the block
   * was there before, and whether what GARM reads from the block changed.
   * @throws when the block belongs to another owner, or a hand-written entry uses the name; the file is unchanged.
   */
  async function writeBlock(
    inputs: GarmProviderInputs,
    generation: string,
    previousOwner?: GarmProviderOwner,
    adopt = false,
  ): Promise<{ written: boolean; existed: boolean; garmChanged: boolean }> {
    const spec = blockSpecOf(inputs);
    const file = inputs.garmConfigPath;
    let garmChanged = true;
    let existed = false;
    const result = await editConfigFile(
      file,
      (current) => {
        const text = adopt && pendingMarkers(current, spec.name, file) ? markHandWritten(current, spec.name, inputs.owner, file, generation) : current;
        if (handWrittenProviderNames(text)?.includes(spec.name)) {
          throw new Error(
            `GarmProvider "${spec.name}": ${file} already defines provider "${spec.name}" by hand (outside pulumi-garm's managed blocks); remove or rename that entry, or choose another name. The file is unchanged`,
          );
        }
        const holder = foreignOwner(readBlockOwner(text, spec.name, file), inputs.owner, previousOwner);
        if (holder) {
          throw new Error(
            `GarmProvider "${spec.name}": the block of provider "${spec.name}" in ${file} belongs to ${describeOwner(holder)}; not overwriting it: ${TAKE_OVER_HINT}. The file is unchanged`,
          );
        }
        const found = readBlock(text, spec.name, file);
        existed = found !== undefined;
        garmChanged = !isDeepStrictEqual(found, spec);
        if (garmChanged) return upsertBlock(text, spec, file, inputs.owner, generation);
        // What GARM reads is as wanted: only the owner line may change (a takeover, a rename, a new generation).
        const claim = readBlockClaim(text, spec.name, file);
        const claimKept = isDeepStrictEqual(claim?.owner, inputs.owner) && claim?.generation === generation;
        return claimKept ? text : setBlockClaim(text, spec.name, inputs.owner, generation, file);
      },
      (before, after) => verifyEdit(before, after, spec.name, spec, file),
      editOptions,
    );
    return { written: result.changed, existed, garmChanged };
  }

  /**
   * Restarts GARM (shared with other changes) and waits until GET /providers shows `want`. The restart is announced
   * beside the config file for the time it takes, so other writers' requests wait through it.
   */
  async function applyAndWait(
    inputs: Pick<GarmProviderInputs, "name" | "restartCommand" | "restartTimeoutSeconds" | "garmConfigPath">,
    want: ProviderExpectation,
  ): Promise<void> {
    const timeoutMs = inputs.restartTimeoutSeconds * 1000;
    const withdraw = await announceRestart(host, inputs.garmConfigPath, timeoutMs);
    try {
      // On the machine the file is on: the GARM that reads it runs there. This machine's restarts keep their old key.
      // This change no longer holds the batch back: it joins it.
      changeUnderWay.getStore()?.();
      await deps.restarts.request(inputs.restartCommand, timeoutMs, host === localHost ? undefined : host, deps.cancel);
      const garm = deps.garm();
      await waitForProviders(() => garm.listProviders(), want, { timeoutMs, pollMs, sleep: deps.sleep, now: deps.now });
    } finally {
      await withdraw();
    }
    say(inputs.name, want.present ? "GARM lists the provider as configured" : "GARM no longer lists the provider");
  }

  /**
   * What check (so preview too) can tell, by reading only, of a GARM host reached over SSH: that it can be reached and
   * logged in to with its host key verified, and that the config file is there; a lock another writer holds on it is
   * said in a line. The failure carries the message create would give, on the field to fix (none for the connection).
   * This machine's file is left to create, as before (check stays fast there), and so are inputs not known yet.
   */
  async function previewReach(news: Record<string, unknown>): Promise<CheckFailure | undefined> {
    const file = news.garmConfigPath;
    if (host === localHost || typeof file !== "string" || containsUnknown(file) || !file.startsWith("/")) return undefined;
    const name = typeof news.name === "string" && !containsUnknown(news.name) ? news.name : "?";
    let target: string;
    try {
      const st = await host.stat(file);
      if (!st.isFile) return { property: "garmConfigPath", reason: `GARM config file ${file} on ${host.label} is not a regular file; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)` };
      target = await host.realpath(file);
    } catch (e) {
      const code = errnoOf(e);
      if (code === "EUNKNOWN") return undefined;
      if (e instanceof SshConnectError || code === CONNECTION_LOST) {
        // No property: Pulumi prints a failing property's value beside the reason, and this one's holds the login's secrets.
        return { property: "", reason: `GarmProvider "${name}": cannot reach GARM's machine, so ${file} is unchanged: ${one(e)}` };
      }
      if (code === "ENOENT") return { property: "garmConfigPath", reason: `GARM config file ${file} does not exist on ${host.label}; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)` };
      return { property: "garmConfigPath", reason: `cannot read GARM config file ${file} on ${host.label}: ${one(e)}` };
    }
    const holder = await host.readFile(`${target}.lock/holder`).then(
      (b) => b.toString("utf8"),
      () => undefined,
    );
    if (holder !== undefined) {
      let who = "another writer";
      try {
        const h = JSON.parse(holder) as { who?: unknown; where?: unknown };
        if (typeof h.who === "string" && typeof h.where === "string") who = `${h.who} on ${h.where}`;
      } catch {
        // a holder file being written: "another writer"
      }
      say(name, `${file} on ${host.label} is locked by ${who} now; up waits up to ${DEFAULT_LOCK_WAIT_MS / 1000}s for that lock, and takes it over once it has not been refreshed for ${LOCK_STALE_MS / 1000}s`);
    }
    return undefined;
  }

  /** Watches the restarts other writers announce beside `file`, so this process's requests wait through them too. */
  function watchFile(file: unknown): void {
    if (typeof file === "string" && file !== "") deps.watchRestarts?.(file, () => readAnnouncement(host, file));
  }

  function presentWant(spec: ProviderBlockSpec): ProviderExpectation {
    return { name: spec.name, present: true, description: spec.description };
  }

  /** Whether GARM lists the provider as `spec` describes it; false also when GARM cannot be asked (a restart may help). */
  async function garmRuns(spec: ProviderBlockSpec): Promise<boolean> {
    try {
      return providerShown(await deps.garm().listProviders(), presentWant(spec));
    } catch {
      return false;
    }
  }

  // Planning asks GARM through one bounded gate per process: once GARM could not be reached, diff plans from the
  // file and the state and says so once.
  let planningUnavailable = false;
  const planningReadMs = deps.planningReadMs ?? 5000;
  async function planningProviders(): Promise<ProviderListing[] | undefined> {
    if (planningUnavailable) return undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(planningReadMs / 1000)}s`)), planningReadMs);
        timer.unref();
      });
      return await Promise.race([deps.garm().listProviders(), timeout]);
    } catch (e) {
      planningUnavailable = true;
      deps.log(`GarmProvider: could not ask GARM which providers it loaded (${one(e).split("\n")[0]}); planning from the config file and Pulumi's state, so a provider GARM has not loaded shows as unchanged`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * What an update of a resource imported from a hand-written entry does to that entry, for the preview; undefined
   * when the resource's block is not a hand-written entry awaiting markers.
   */
  async function markingLine(olds: GarmProviderOutputs, news: Record<string, unknown>): Promise<{ name: string; line: string } | undefined> {
    if (olds.owner !== undefined) return undefined;
    const file = olds.garmConfigPath;
    let entry: ProviderBlockSpec;
    try {
      const text = await readText(file);
      if (!pendingMarkers(text, olds.name, file)) return undefined;
      const found = providerEntries(parseToml(text, file)).find((e) => e.name === olds.name);
      if (!found) return undefined;
      entry = handWrittenSpec(found, file);
    } catch {
      // update reads the file again and says what is wrong.
      return undefined;
    }
    const wanted = blockSpecOf(inputsOf(news));
    if (isDeepStrictEqual(entry, wanted)) {
      return { name: olds.name, line: `this update puts pulumi-garm's markers around the hand-written block in ${file}, byte for byte otherwise; GARM is not restarted` };
    }
    return { name: olds.name, line: `this update puts pulumi-garm's markers around the hand-written block in ${file} and rewrites it as the program says; GARM restarts to load it` };
  }

  /** What makes an unchanged GarmProvider need an update anyway: its block gone, rewritten, or not loaded by GARM. */
  async function findDrift(olds: GarmProviderOutputs): Promise<{ name: string; line: string } | undefined> {
    const file = olds.garmConfigPath;
    const name = olds.name;
    let text: string;
    try {
      text = await readText(file);
    } catch (e) {
      // update reads it again and fails with this reason; planning need not.
      return { name, line: `cannot read ${file} to check its block (${one(e)}); this update tries again` };
    }
    // A name taken by a hand-written entry or another owner is update's refusal to make, not planning's.
    if (handWrittenProviderNames(text)?.includes(name)) return undefined;
    if (foreignOwner(readBlockOwner(text, name, file), olds.owner)) return undefined;
    const found = readBlock(text, name, file);
    if (!found) return { name, line: `its block is gone from ${file}; this update writes it again and restarts GARM` };
    if (!isDeepStrictEqual(found, blockSpecOf(olds))) return { name, line: `its block in ${file} differs from the one it wrote; this update writes it again and restarts GARM` };
    const listed = await planningProviders();
    if (listed && !providerShown(listed, presentWant(blockSpecOf(olds)))) {
      return { name, line: `GARM has not loaded the provider its block in ${file} defines; this update restarts GARM` };
    }
    return undefined;
  }

  /**
   * Restarts GARM for a block just written and waits for it.
   * @throws a partial failure (an error carrying `id` and `properties`) when GARM does not confirm the block: Pulumi
   * then records the resource, unconfirmed, so the next up restarts GARM again and destroy can remove the block.
   */
  async function applyWritten(raw: Record<string, unknown>, id: string, inputs: GarmProviderInputs, generation: string, verb: string): Promise<void> {
    try {
      await applyAndWait(inputs, presentWant(blockSpecOf(inputs)));
    } catch (e) {
      const message = `GarmProvider "${inputs.name}": the ${verb} block is written to ${inputs.garmConfigPath}, but GARM has not confirmed it: ${one(e)}. GARM runs with the providers it had before, or is stopped if the restart stopped it. Pulumi keeps the resource with its block: fix the cause and run pulumi up again, which restarts GARM once more, or remove the resource (or run pulumi destroy) to take the block out`;
      // With the generation written, so that destroying the partial resource still removes its block.
      const properties: Record<string, unknown> = { ...outputsOf(inputs, generation), confirmed: false };
      // The serialized provider must stay with the outputs, or Pulumi cannot call delete or read on them.
      if (raw[PROVIDER_KEY] !== undefined) properties[PROVIDER_KEY] = raw[PROVIDER_KEY];
      throw partialCreate(message, id, properties);
    }
  }

  /**
   * Refuses while GARM has scale sets or pools naming the provider, or cannot be asked. A block GARM never confirmed
   * (`unconfirmed`) may be removed while GARM cannot be asked: GARM may be down because of that very block.
   */
  async function refuseWhileUsed(name: string, unconfirmed = false): Promise<void> {
    const users = await listDependents(scaleSetsAndPoolsWhere(deps.garm(), (ref) => ref.providerName === name));
    if (unconfirmed && users.found.length === 0 && users.unlisted.length > 0) {
      const why = users.unlisted.map((u) => one(u.error)).join("; ");
      say(name, `GARM cannot be asked which scale sets use the provider (${why}); removing its block anyway, because GARM never confirmed loading it and may be down because of it`);
      return;
    }
    // A scale set whose provider is gone cannot be drained: its runners stay pending_delete (garm-behaviour.md §9.3).
    const refused = refusalOf(users, {
      label: `GarmProvider "${name}"`,
      done: "removed",
      why: "a provider removed under a scale set or pool leaves it undrainable: GARM can no longer delete its runners",
      remedy: "Delete them or move them to another provider first. The provider stays; Pulumi will retry the delete on the next run",
    });
    if (refused) throw refused;
  }

  /**
   * Runs one create, update or delete as a change under way on the host (Restarter.hold): a restart another resource
   * requests meanwhile waits to share this one's, released when this one requests its own restart or ends.
   */
  const changeUnderWay = new AsyncLocalStorage<() => void>();
  async function asChange<T>(change: () => Promise<T>): Promise<T> {
    const release = deps.restarts.hold?.(host === localHost ? undefined : host) ?? (() => undefined);
    try {
      return await changeUnderWay.run(release, change);
    } finally {
      release();
    }
  }

  const methods: GarmProviderImpl = {
    async check(olds, news) {
      watchFile(news.garmConfigPath);
      // A scale set's preview check must not call this provider unknown to GARM before `up` adds it.
      if (typeof news.name === "string") {
        const name = news.name;
        declareFor(() => deps.garm(), (d) => d.declareProvider(name));
      }
      const unreachable = await previewReach(news);
      // Not reached: the collision rule's read would only try (and wait) again.
      const readConfig = unreachable && unreachable.property === "" ? () => Promise.reject(new Error("not reached")) : readText;
      const checked = await checkGarmProvider(news, { readConfig }, olds);
      return unreachable ? { inputs: news, failures: [...checked.failures, unreachable] } : checked;
    },

    async diff(_id, olds, news) {
      watchFile(olds.garmConfigPath);
      const planned = diffGarmProvider(olds, news, await sameFileOn(host, olds.garmConfigPath, news.garmConfigPath));
      if (planned.changes) {
        const marking = planned.replaces.length === 0 ? await markingLine(migrateState(olds), news) : undefined;
        if (marking) say(marking.name, marking.line);
        return planned;
      }
      // Pulumi's state says nothing changed; the file and GARM may say otherwise (drift.ts).
      const drift = await findDrift(migrateState(olds));
      if (!drift) return planned;
      say(drift.name, drift.line);
      return { ...planned, changes: true };
    },

    async create(raw) {
      const inputs = inputsOf(raw);
      watchFile(inputs.garmConfigPath);
      await preflight(inputs);
      // Always a new generation, also for a block that is already in (this resource's replacement takes the block
      // over): the resource it replaces then sees the block is no longer its own and leaves it (delete below).
      const generation = newGeneration();
      const { existed, garmChanged } = await writeBlock(inputs, generation);
      const id = garmProviderId(inputs.garmConfigPath, inputs.name);
      const file = inputs.garmConfigPath;
      if (!garmChanged && (await garmRuns(blockSpecOf(inputs)))) {
        say(inputs.name, `its block is already in ${file}, now recording this resource's generation ${generation}; GARM lists the provider as configured, so GARM is not restarted`);
      } else {
        const what = !existed ? `added its block to ${file}` : garmChanged ? `rewrote its block in ${file}` : `its block is already in ${file}, now recording this resource's generation ${generation}`;
        say(inputs.name, `${what}; GARM restarts to load it`);
        await applyWritten(raw, id, inputs, generation, "new");
      }
      return { id, outs: outputsOf(inputs, generation) };
    },

    async update(id, rawOlds, rawNews) {
      const olds = migrateState(rawOlds);
      const inputs = inputsOf(rawNews);
      if (olds.name !== inputs.name || !(await sameFileOn(host, olds.garmConfigPath, inputs.garmConfigPath))) {
        throw new Error(
          `GarmProvider "${olds.name}": name or garmConfigPath changed in an update; these need a replacement, which diff should have reported. Nothing was changed`,
        );
      }
      const blockChanged = !isDeepStrictEqual(blockSpecOf(olds), blockSpecOf(inputs));
      if (blockChanged) await preflight(inputs);
      // The generation stays that of the create (a state from before generations gets one now).
      const generation = olds.generation ?? newGeneration();
      // Imported from a hand-written entry: the state records no owner, and the file the entry without markers.
      const { written, garmChanged } = await writeBlock(inputs, generation, olds.owner, olds.owner === undefined);
      // Restart when what GARM loads changed, when the file held something else (edited by hand, or its block was
      // gone), when GARM never confirmed the block (the retry of a create or update whose restart failed), and when
      // GARM does not run the block the file holds (restarted by another writer while the block was out). An owner
      // change alone rewrites a comment GARM does not read.
      if (blockChanged || garmChanged || olds.confirmed === false || !(await garmRuns(blockSpecOf(inputs)))) {
        say(inputs.name, `${written ? "updated its block in" : "its block is already in"} ${inputs.garmConfigPath}; GARM restarts to load it`);
        await applyWritten(rawNews, id, inputs, generation, "updated");
      }
      return { outs: outputsOf(inputs, generation) };
    },

    async delete(_id, rawProps) {
      const props = migrateState(rawProps);
      watchFile(props.garmConfigPath);
      const file = props.garmConfigPath;
      const name = props.name;
      let text: string;
      try {
        text = await readText(file);
      } catch (e) {
        throw new Error(`GarmProvider "${name}": cannot read ${file} to remove its block (${one(e)}). The resource stays; Pulumi will retry the delete on the next run`);
      }
      const handWritten = handWrittenProviderNames(text)?.includes(name) ?? false;
      if (!readBlock(text, name, file)) {
        await finishEarlierDelete(props, handWritten);
        return;
      }
      const claim = readBlockClaim(text, name, file) ?? {};
      const holder = foreignOwner(claim.owner, props.owner);
      if (holder) {
        say(name, `its block in ${file} belongs to ${describeOwner(holder)}; leaving it there and removing only this resource from the stack`);
        return;
      }
      // The same owner but another generation: this resource's replacement (or another resource of this owner) wrote
      // the block after it. It is that resource's to remove.
      if (claim.generation !== props.generation) {
        say(name, supersededLine(file, claim, props));
        return;
      }
      await refuseWhileUsed(name, props.confirmed === false);
      let superseded: BlockClaim | undefined;
      await editConfigFile(
        file,
        (t) => {
          const now = readBlockClaim(t, name, file);
          const taker = foreignOwner(now?.owner, props.owner);
          if (taker) throw new Error(`GarmProvider "${name}": its block in ${file} was taken over by ${describeOwner(taker)} meanwhile; not removing it. Run pulumi up or destroy again`);
          if (now && now.generation !== props.generation) {
            superseded = now;
            return t;
          }
          return removeBlock(t, name, file);
        },
        (before, after) => verifyEdit(before, after, name, undefined, file),
        editOptions,
      );
      if (superseded) {
        say(name, supersededLine(file, superseded, props));
        return;
      }
      if (handWritten) {
        say(name, `removed its block from ${file}; a hand-written entry with the same name stays, so GARM is not restarted`);
        return;
      }
      say(name, `removed its block from ${file}; GARM restarts to unload it`);
      try {
        await applyAndWait(props, { name, present: false });
      } catch (e) {
        throw new Error(
          `GarmProvider "${name}": its block is removed from ${file}, but GARM has not confirmed it unloaded the provider: ${one(e)}. GARM may still run with it until it restarts. The resource stays; Pulumi will retry the delete on the next run, which restarts GARM again`,
        );
      }
    },

    async read(id, rawProps) {
      const props = migrateState(rawProps ?? {});
      watchFile(props.garmConfigPath);
      const block = readBlock(await readText(props.garmConfigPath), props.name, props.garmConfigPath);
      if (!block) {
        say(props.name, `its block is gone from ${props.garmConfigPath}; dropping the resource from the stack`);
        return {};
      }
      const outs: GarmProviderOutputs = { ...props, ...block };
      if (!block.configFile) delete outs.configFile;
      const { stateVersion: _v, confirmed: _c, generation: _g, ...inputs } = outs;
      return { id, props: outs, inputs };
    },
  };
  const changes: GarmProviderImpl = {
    ...methods,
    create: (inputs) => asChange(() => methods.create(inputs)),
    update: (id, olds, news) => asChange(() => methods.update(id, olds, news)),
    delete: (id, props) => asChange(() => methods.delete(id, props)),
  };
  return changes;

  /**
   * The block is already gone. If GARM still lists the provider, an earlier delete removed the block but its restart
   * failed: restart now (after the guard). If GARM cannot be asked, the delete still succeeds: the file no longer
   * names the provider, so the next restart of GARM unloads it.
   */
  async function finishEarlierDelete(props: GarmProviderOutputs, handWritten: boolean): Promise<void> {
    const name = props.name;
    if (handWritten) {
      say(name, `its block is already gone from ${props.garmConfigPath}; nothing to do`);
      return;
    }
    let listed: boolean;
    try {
      listed = (await deps.garm().listProviders()).some((p) => p.name === name);
    } catch (e) {
      if (isCancelled(e)) {
        throw new Error(`GarmProvider "${name}": cancelled before GARM was asked whether it still runs the provider; its block is already gone from ${props.garmConfigPath}, and the next \`pulumi destroy\` or \`pulumi up\` asks again`);
      }
      say(name, `its block is already gone from ${props.garmConfigPath}; GARM could not be asked whether it still runs the provider (${one(e)}), it unloads it at its next restart`);
      return;
    }
    if (!listed) {
      say(name, `its block is already gone from ${props.garmConfigPath}; nothing to do`);
      return;
    }
    await refuseWhileUsed(name);
    say(name, `its block is already gone from ${props.garmConfigPath} but GARM still runs the provider; restarting GARM with ${describeCommand(props.restartCommand)}`);
    try {
      await applyAndWait(props, { name, present: false });
    } catch (e) {
      throw new Error(
        `GarmProvider "${name}": its block is removed from ${props.garmConfigPath}, but GARM has not confirmed it unloaded the provider: ${one(e)}. The resource stays; Pulumi will retry the delete on the next run`,
      );
    }
  }
}

/** The one line a delete logs when the block records another generation than the state. */
function supersededLine(file: string, claim: BlockClaim, props: GarmProviderOutputs): string {
  return `its block in ${file} records generation ${generationText(claim.generation)}, not ${generationText(props.generation)} that this resource wrote: it now belongs to this resource's replacement (or another generation of it); leaving the file and GARM as they are and removing only this resource from the stack`;
}

/** Whether `name` is a hand-written entry of `text` with no managed block: an imported entry the first update marks. */
function pendingMarkers(text: string, name: string, file: string): boolean {
  return (handWrittenProviderNames(text)?.includes(name) ?? false) && !findBlocks(text, file).some((b) => b.name === name);
}
