// Lines the plugin shows in the CLI: sent to the engine's Log service with the URN of the request being served, so the
// CLI prints them under that resource, as the dynamic provider's are (the plugin's own stderr shows only with -v=3).
import { AsyncLocalStorage } from "node:async_hooks";
import * as grpc from "@grpc/grpc-js";
import * as engineServices from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineProto from "@pulumi/pulumi/proto/engine_pb";
import type { Logger } from "../provider/common/log";

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

/** Where a line goes; the engine client in the plugin, a recorder in tests. */
export interface LogSink {
  send(severity: "info" | "warning", message: string, urn: string): Promise<void>;
}

/** The engine at `address` (the plugin's first argument); a line the engine does not take goes to stderr instead. */
export function engineSink(address: string | undefined): LogSink {
  const client = address ? new engineServices.EngineClient(address, grpc.credentials.createInsecure()) : undefined;
  const toStderr = (severity: string, message: string) => process.stderr.write(`${severity === "warning" ? "warning: " : ""}${message}\n`);
  return {
    send: (severity, message, urn) =>
      new Promise((resolve) => {
        if (!client) {
          toStderr(severity, message);
          return resolve();
        }
        const req = new engineProto.LogRequest();
        req.setSeverity(severity === "warning" ? engineProto.LogSeverity.WARNING : engineProto.LogSeverity.INFO);
        req.setMessage(message);
        req.setUrn(urn);
        // A dead engine must not hold a line (or the operation waiting for it) for long.
        client.log(req, new grpc.Metadata(), { deadline: Date.now() + 5000 }, (err) => {
          if (err) toStderr(severity, message);
          resolve();
        });
      }),
  };
}

/**
 * A Logger for the provider/ code the plugin runs: each line carries the URN of the request it was written under
 * (`within`). Lines are sent in order; `flushed` resolves once every line so far has reached the engine, so a request
 * answers only after its lines are shown.
 */
export class EngineLog implements Logger {
  private readonly current = new AsyncLocalStorage<string>();
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly sink: LogSink) {}

  /** Runs `work` with `urn` as the resource the lines it writes belong to. */
  within<T>(urn: string, work: () => Promise<T>): Promise<T> {
    return this.current.run(urn, work);
  }

  info(line: string): void {
    this.enqueue("info", line);
  }

  warn(line: string): void {
    this.enqueue("warning", line);
  }

  flushed(): Promise<void> {
    return this.pending;
  }

  private enqueue(severity: "info" | "warning", line: string): void {
    const urn = this.current.getStore() ?? "";
    const message = oneLine(line);
    this.pending = this.pending.then(() => this.sink.send(severity, message, urn));
  }
}
