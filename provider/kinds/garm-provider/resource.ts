// GarmProvider as Pulumi calls it: the lifecycle wired to the real config file, shell, clock and GARM client, on the
// host each resource's `connection` names (this machine without one).
import { AsyncLocalStorage } from "node:async_hooks";
import type * as pulumi from "@pulumi/pulumi";
import { sleepUnlessCancelled } from "../../common/cancel";
import { configure, garmClient, processCancel } from "../../common/connection";
import type { KindMethods } from "../../common/planned-diff";
import type { GarmClient } from "../../garm/client";
import { markingGarmRestarts, restartWindowsFor } from "../../garm/restart-window";
import type { MachineFiles } from "../../machine/files";
import type { GarmHost } from "../../machine/host";
import { connectionOf } from "./inputs";
import { makeGarmProviderImpl, type GarmProviderImpl, type Restarter } from "./lifecycle";
import { localHost } from "../../machine/local-host";
import { RestartCoordinator, type RestartHost } from "./restart";
import { sshHostFor } from "./ssh-hosts";

const consoleLine = (line: string) => console.log(line);

// One coordinator per provider process: Pulumi runs every operation of an update in this one process, so changes
// made together share one restart. Its line goes to whoever asked for the restart that started the batch.
let restartLog: (line: string) => void = consoleLine;
/**
 * The GARM client of the GarmProvider instance a restart is run for: the dynamic provider's (the GARM the running
 * resource names) or one plugin instance's. A batch's timer is set within a request or a hold's release of an
 * instance (restarterOf), so the batch marks the restart window of that instance's GARM, whose transport reads it.
 */
const restartingGarm = new AsyncLocalStorage<() => GarmClient>();
const restarts = new RestartCoordinator({
  run: markingGarmRestarts(
    (command: string, timeoutMs: number, host?: RestartHost) => (host ?? localHost).run(command, timeoutMs),
    () => restartWindowsFor(urlOf(restartingGarm.getStore() ?? garmClient)),
  ),
  log: (line) => restartLog(line),
});

/** The URL of the GARM `garm` reaches; "" while a setting is wrong. */
function urlOf(garm: () => GarmClient): string {
  try {
    return garm().garmUrl;
  } catch {
    return "";
  }
}

/** The process's coordinator, as one instance asks it: every batch it starts or releases runs for `garm`. */
function restarterOf(garm: () => GarmClient): Restarter {
  return {
    request: (...args) => restartingGarm.run(garm, () => restarts.request(...args)),
    hold: (host) => {
      const release = restarts.hold(host);
      return () => restartingGarm.run(garm, release);
    },
  };
}

/** A connection not known yet (preview) or not valid: nothing can be read there, so check's reads pass. */
const NOT_KNOWN_YET = "the GARM host is not known yet";
const notKnownYet = (code?: string) => Promise.reject(Object.assign(new Error(NOT_KNOWN_YET), code ? { code } : {}));
const UNRESOLVED = "a GARM host not known yet";
// Every file operation fails as the host's own ones do: an edit there never starts.
const unresolvedFiles = new Proxy({ label: UNRESOLVED, actor: "nobody" } as MachineFiles, {
  get: (known, key) => (key in known ? known[key as keyof MachineFiles] : () => notKnownYet()),
});
const unresolvedHost: GarmHost = {
  label: UNRESOLVED,
  files: unresolvedFiles,
  readFile: () => notKnownYet("EUNKNOWN"),
  realpath: () => notKnownYet("EUNKNOWN"),
  stat: () => notKnownYet("EUNKNOWN"),
  writeNote: () => notKnownYet(),
  remove: () => Promise.resolve(),
  run: () => Promise.resolve({ code: null, signal: null, output: NOT_KNOWN_YET, timedOut: false }),
};

/**
 * The GarmProvider methods (without configure) over the given GARM client source; `log` takes the lines users see, and
 * `cancel` (the instance's cancellation, ../../common/cancel.ts) ends its waits.
 */
export function garmProviderWith(garm: () => GarmClient, log: (line: string) => void = consoleLine, cancel?: AbortSignal): KindMethods {
  restartLog = log;
  const restarter = restarterOf(garm);
  // One lifecycle per GARM host: its file edits, reads and restart all go there.
  const impls = new Map<GarmHost, GarmProviderImpl>();
  const on = (host: GarmHost): GarmProviderImpl => {
    let impl = impls.get(host);
    if (!impl) {
      impl = makeGarmProviderImpl({
        garm,
        restarts: restarter,
        cancel,
        host,
        sleep: (ms) => sleepUnlessCancelled(ms, cancel),
        now: () => Date.now(),
        log,
        watchRestarts: (file, read) => restartWindowsFor(urlOf(garm)).watch(file, read),
      });
      impls.set(host, impl);
    }
    return impl;
  };
  /** The host the properties' `connection` names: this machine without one. */
  const hostOf = (props: Record<string, unknown> | undefined): GarmHost => {
    const raw = props?.connection;
    if (raw === undefined || raw === null) return localHost;
    const connection = connectionOf(raw);
    return connection ? sshHostFor(connection, log, cancel) : unresolvedHost;
  };
  return {
    check: (olds, news) => on(hostOf(news)).check(olds ?? {}, news),
    // The state says where the block is; a connection to another machine is a replacement diff reports.
    diff: (id, olds, news) => on(hostOf(olds)).diff(id, olds, news),
    create: (inputs) => on(hostOf(inputs)).create(inputs),
    read: (id, props) => on(hostOf(props)).read(id, props),
    // Another login to the same machine (a rotated key) reaches the block with the new inputs.
    update: (id, olds, news) => on(hostOf(news)).update(id, olds, news),
    delete: (id, props) => on(hostOf(props)).delete(id, props),
  };
}

export const garmProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => configure(req),
  ...garmProviderWith(() => garmClient(), consoleLine, processCancel),
};
