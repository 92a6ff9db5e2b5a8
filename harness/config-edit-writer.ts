// A writer of GARM's config file in a process of its own, for the config-edit fault tests: editConfigFile on this
// machine or over SSH, one appended line per round, reporting each round's outcome as a JSON line on stdout. Run as
// `node config-edit-writer.js '<spec json>'`, often under another uid (spawn's uid/gid), so the in-place path a
// non-owner takes runs for real; the test SIGKILLs it at its hook to play "the provider process was killed".
import * as fs from "node:fs";
import * as path from "node:path";
import { editConfigFile } from "../provider/kinds/garm-provider/config-file";
import { FileEditError } from "../provider/machine/errors";
import type { GarmHost } from "../provider/machine/host";
import { localHost } from "../provider/machine/local-host";
import { SshHost } from "../provider/machine/ssh-host";
import type { SshConnection } from "../provider/machine/ssh-connection";

export interface WriterSpec {
  file: string;
  /** One line appended per round (an edit that leaves the text as it is when the line is already there). */
  lines: string[];
  transport: "local" | "ssh";
  connection?: SshConnection;
  lockWaitMs?: number;
  /** editConfigFile's test seam: when a lock not refreshed counts as stale (its default is 30 s). */
  lockStaleMs?: number;
  /** Epoch ms to start the first round at, so two writers start together. */
  startAt?: number;
  /** At the afterTempWritten hook (the lock held, the new file complete, before it replaces the old one): */
  hook?: {
    /** Report and wait to be killed. */
    pause?: boolean;
    /** A directory every writer may write: an exclusive mkdir there while holding shows two holders at once. */
    critical?: string;
    /** How long to stay in the hook (ms). */
    holdMs?: number;
    /** Then stay in the hook until this file exists. */
    waitFor?: string;
  };
}

export interface WriterEvent {
  /** "inside": the hook began (the lock held); "hook": it ended; "result": the round's edit settled. */
  event: "inside" | "hook" | "result" | "done";
  round: number;
  temp?: string;
  /** At a hook: what showed another writer holding the lock at the same time. */
  violation?: string;
  ok?: boolean;
  changed?: boolean;
  name?: string;
  isFileEditError?: boolean;
  fileState?: string;
  message?: string;
}

function say(e: WriterEvent): void {
  fs.writeSync(1, `${JSON.stringify(e)}\n`);
}

export const appendLine = (line: string) => (text: string) => (text.split("\n").includes(line) ? text : `${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${line}\n`);

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as WriterSpec;
  let host: GarmHost = localHost;
  let close = async () => undefined as void;
  if (spec.transport === "ssh") {
    const ssh = new SshHost(spec.connection!, (l: string) => void process.stderr.write(`${l}\n`));
    host = ssh;
    close = () => ssh.close();
  }
  if (spec.startAt) await new Promise((r) => setTimeout(r, Math.max(0, spec.startAt! - Date.now())));
  for (let round = 0; round < spec.lines.length; round++) {
    const hook = spec.hook;
    try {
      const r = await editConfigFile(spec.file, appendLine(spec.lines[round]), () => undefined, {
        host,
        lockWaitMs: spec.lockWaitMs ?? 60_000,
        ...(spec.lockStaleMs !== undefined ? { lockStaleMs: spec.lockStaleMs } : {}),
        hooks: hook
          ? {
              afterTempWritten: async (temp) => {
                if (hook.pause) {
                  say({ event: "hook", round, temp });
                  await new Promise(() => setInterval(() => undefined, 1000));
                }
                let violation: string | undefined;
                const marker = hook.critical ? path.join(hook.critical, "inside") : undefined;
                if (marker) {
                  try {
                    fs.mkdirSync(marker);
                  } catch (e) {
                    violation = `another writer was inside the lock when this one took it (${(e as Error).message})`;
                  }
                }
                say({ event: "inside", round, temp, violation });
                await new Promise((r) => setTimeout(r, hook.holdMs ?? 0));
                while (hook.waitFor && !fs.existsSync(hook.waitFor)) await new Promise((r) => setTimeout(r, 20));
                if (!fs.existsSync(`${spec.file}.lock`)) violation ??= `${spec.file}.lock was gone while this writer held it`;
                if (marker && !violation) fs.rmdirSync(marker);
                say({ event: "hook", round, temp, violation });
              },
            }
          : undefined,
      });
      say({ event: "result", round, ok: true, changed: r.changed });
    } catch (e) {
      const err = e as Error & { fileState?: string };
      say({ event: "result", round, ok: false, name: err.name, isFileEditError: e instanceof FileEditError, fileState: err.fileState, message: err.message });
    }
  }
  await close().catch(() => undefined);
  say({ event: "done", round: spec.lines.length });
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(2);
    },
  );
}
