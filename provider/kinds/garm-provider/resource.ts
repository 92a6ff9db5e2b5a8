// GarmProvider as Pulumi calls it: the lifecycle wired to the real config file, shell, clock and GARM client.
import type * as pulumi from "@pulumi/pulumi";
import { sleepUnlessCancelled } from "../../common/cancel";
import { configure, garmClient, processCancel } from "../../common/connection";
import type { KindMethods } from "../../common/planned-diff";
import type { GarmClient } from "../../garm/client";
import { markingGarmRestarts, processRestarts } from "../../garm/restart-window";
import { makeGarmProviderImpl } from "./lifecycle";
import { localHost } from "./local-host";
import { RestartCoordinator, type RestartHost } from "./restart";

const consoleLine = (line: string) => console.log(line);

// One coordinator per provider process: Pulumi runs every operation of an update in this one process, so changes
// made together share one restart. Its line goes to whoever asked for the restart that started the batch.
let restartLog: (line: string) => void = consoleLine;
const restarts = new RestartCoordinator({ run: markingGarmRestarts((command: string, timeoutMs: number, host?: RestartHost) => (host ?? localHost).run(command, timeoutMs)), log: (line) => restartLog(line) });

/**
 * The GarmProvider methods (without configure) over the given GARM client source; `log` takes the lines users see, and
 * `cancel` (the instance's cancellation, ../../common/cancel.ts) ends its waits.
 */
export function garmProviderWith(garm: () => GarmClient, log: (line: string) => void = consoleLine, cancel?: AbortSignal): KindMethods {
  restartLog = log;
  const impl = makeGarmProviderImpl({
    garm,
    restarts,
    cancel,
    sleep: (ms) => sleepUnlessCancelled(ms, cancel),
    now: () => Date.now(),
    log,
    watchRestarts: (file, read) => processRestarts.watch(file, read),
  });
  return {
    check: (olds, news) => impl.check(olds ?? {}, news),
    diff: (id, olds, news) => impl.diff(id, olds, news),
    create: (inputs) => impl.create(inputs),
    read: (id, props) => impl.read(id, props),
    update: (id, olds, news) => impl.update(id, olds, news),
    delete: (id, props) => impl.delete(id, props),
  };
}

export const garmProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => configure(req),
  ...garmProviderWith(() => garmClient(), consoleLine, processCancel),
};
