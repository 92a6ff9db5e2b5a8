// Runs a shell command with a time limit and reports its exit and the tail of its output, without ever waiting for
// processes the command left running in the background (a restart command may start GARM as a daemon).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface CommandResult {
  /** Exit code, or null when the command was ended by a signal. */
  code: number | null;
  signal: string | null;
  /** Combined stdout and stderr (its tail when long). */
  output: string;
  timedOut: boolean;
  /**
   * Set when the command's end is not known or it never started on its host: what happened there, as a phrase after
   * the command's name ("did not start on deploy@garm:22 within 60s: ..."), one line saying what to do.
   */
  failure?: string;
}

/** Runs `command` through the shell; never rejects for a failing command, only reports. */
export type CommandRunner = (command: string, timeoutMs: number) => Promise<CommandResult>;

const OUTPUT_KEEP_BYTES = 64 * 1024;

/**
 * Runs `command` with `/bin/sh -c` in a process group of its own and settles when the shell exits. After `timeoutMs`
 * it kills that process group (the shell and whatever it started that is still in the group; a daemon that detached
 * into its own session is left alone).
 *
 * Output goes to a temp file, not to pipes: a daemon started in the background inherits the shell's stdout and
 * stderr, and a pipe would keep the command "running" for as long as the daemon lives, or kill the daemon with
 * SIGPIPE once the pipe is closed. A daemon that keeps writing there writes into the removed temp file until it exits;
 * redirect its output (`garm … >>/var/log/garm.log 2>&1 &`) to keep it.
 */
export const runShellCommand: CommandRunner = async (command, timeoutMs) => {
  const outFile = path.join(os.tmpdir(), `pulumi-garm-restart-${process.pid}-${randomBytes(4).toString("hex")}.log`);
  const out = await fs.open(outFile, "wx", 0o600);
  try {
    const settled = await new Promise<Omit<CommandResult, "output"> & { error?: string }>((resolve) => {
      let timedOut = false;
      const child = spawn("/bin/sh", ["-c", command], { stdio: ["ignore", out.fd, out.fd], detached: true });
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }, timeoutMs);
      child.on("error", (err) => {
        clearTimeout(timer);
        resolve({ code: null, signal: null, timedOut, error: err.message });
      });
      // "exit", not "close": "close" waits for every process that holds the output open, daemons included.
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, timedOut });
      });
    });
    const { error, ...result } = settled;
    const output = await readTail(outFile, OUTPUT_KEEP_BYTES);
    return { ...result, output: error ? `${output}${error}` : output };
  } finally {
    await out.close().catch(() => undefined);
    await fs.unlink(outFile).catch(() => undefined);
  }
};

/** The last `bytes` bytes of `file` as text (a split character at the cut is dropped). */
async function readTail(file: string, bytes: number): Promise<string> {
  const fh = await fs.open(file, "r");
  try {
    const { size } = await fh.stat();
    const length = Math.min(size, bytes);
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, size - length);
    const text = buf.toString("utf8");
    return size > bytes ? text.replace(/^\uFFFD+/, "") : text;
  } finally {
    await fh.close();
  }
}

/** The last `lines` non-empty lines of `output`, trimmed, at most `maxChars` characters. */
export function outputTail(output: string, lines = 15, maxChars = 2000): string {
  const kept = output
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(-lines)
    .join("\n");
  return kept.length > maxChars ? `…${kept.slice(-maxChars)}` : kept;
}
