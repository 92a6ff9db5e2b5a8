// Standalone simulator: `npm run sim -- --port <p> [--config <garm-config.toml>] [--tick-ms N] [--consolidation-ms N]
// [--behaviour v0.2.1|head] [--check-executables true|false] [--restart-down-ms N] [--front-proxy nginx|plain]
// [--seed true|false]` (false: a GARM before first-run, nothing in it).
import { startSimulator, type Behaviour } from "./index";

function parseArgs(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const [k, inline] = a.slice(2).split("=", 2) as [string, string | undefined];
    const v = inline ?? argv[++i];
    if (v === undefined) throw new Error(`--${k} needs a value`);
    out.set(k, v);
  }
  return out;
}

function int(args: Map<string, string>, key: string): number | undefined {
  const v = args.get(key);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${key} must be a non-negative integer, got ${v}`);
  return n;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const known = new Set(["port", "config", "tick-ms", "consolidation-ms", "behaviour", "check-executables", "restart-down-ms", "front-proxy", "seed"]);
  for (const k of args.keys()) if (!known.has(k)) throw new Error(`unknown option --${k}`);
  const behaviour = args.get("behaviour") ?? "v0.2.1";
  if (behaviour !== "v0.2.1" && behaviour !== "head") throw new Error(`--behaviour must be v0.2.1 or head`);
  const check = args.get("check-executables") ?? "true";
  if (check !== "true" && check !== "false") throw new Error(`--check-executables must be true or false`);
  const seed = args.get("seed") ?? "true";
  if (seed !== "true" && seed !== "false") throw new Error(`--seed must be true or false`);
  const frontProxy = args.get("front-proxy");
  if (frontProxy !== undefined && frontProxy !== "nginx" && frontProxy !== "plain") throw new Error(`--front-proxy must be nginx or plain, got ${frontProxy}`);
  const sim = await startSimulator({
    port: int(args, "port") ?? 0,
    garmConfigPath: args.get("config"),
    tickMs: int(args, "tick-ms") ?? 5000,
    consolidationMs: int(args, "consolidation-ms"),
    behaviour: behaviour as Behaviour,
    checkProviderExecutables: check === "true",
    restartDownMs: int(args, "restart-down-ms"),
    frontProxy,
    seed: seed === "true",
    log: (line) => console.error(`[garm-sim] ${line}`),
  });
  console.log(`GARM simulator at ${sim.url} username=${sim.username} password=${sim.password}`);
  const shutdown = () => {
    void sim.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  // A failed restart closes the listener (GARM down); the process still waits for a signal.
  setInterval(() => {}, 1 << 30);
}

main().catch((e: unknown) => {
  console.error(`garm-sim: ${(e as Error).message}`);
  process.exit(1);
});
