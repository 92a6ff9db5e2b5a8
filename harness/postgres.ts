// A real PostgreSQL server (Debian's postgresql package) for tests: a fresh cluster made with initdb in a temp directory,
// its own settings, listening on a free loopback port, stopped by its PID. The system's clusters are never touched.
// As root it runs as the unprivileged `postgres` user the package creates: initdb and postgres refuse to run as root.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { promises as fs, existsSync, readdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ensureDebianPackages, freeLoopbackPort, stopByPid, waitForListen } from "./daemon";

const PG_ROOT = "/usr/lib/postgresql";
/** The unprivileged user the tests run the server as when they run as root; Debian's postgresql package creates it. */
export const POSTGRES_SYSTEM_USER = "postgres";

/** The newest installed server's bin directory (Debian keeps each major version in /usr/lib/postgresql/<N>/bin). */
export function postgresBinDir(): string | undefined {
  const versions = existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => /^\d+$/.test(v)) : [];
  const dirs = versions.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(PG_ROOT, v, "bin"));
  return dirs.find((d) => ["initdb", "postgres", "psql"].every((b) => existsSync(path.join(d, b))));
}

/**
 * Makes sure Debian's postgresql server is installed, with apt-get when missing and running as root.
 * @returns undefined when it is there, else why not (the tests then skip with it).
 */
export function ensurePostgres(): string | undefined {
  const why = ensureDebianPackages(["postgresql"], () => postgresBinDir() !== undefined);
  if (why) return why;
  if (process.getuid?.() === 0 && systemUser(POSTGRES_SYSTEM_USER) === undefined) return `running as root needs the system user ${POSTGRES_SYSTEM_USER} (made by Debian's postgresql package) to run the server as`;
  return undefined;
}

export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** `postgres://user:password@127.0.0.1:port/database?sslmode=disable`: the test server has no TLS. */
  url: string;
  dir: string;
  pid: number;
  /** Runs `sql` with psql and returns its unaligned, tuples-only output. */
  query(sql: string): string;
  logs(): string;
  stop(): Promise<void>;
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  const r = spawnSync("getent", ["passwd", name], { encoding: "utf8" });
  const fields = r.status === 0 ? r.stdout.trim().split(":") : [];
  return fields.length >= 4 ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

function failed(what: string, r: SpawnSyncReturns<string>): Error {
  return new Error(`${what} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || r.error?.message || "").trim()}`);
}

/** Starts a fresh cluster on 127.0.0.1 with database `database` owned by superuser `user`, who logs in by password over TCP. */
export async function startPostgres(options: { user?: string; database?: string } = {}): Promise<PostgresServer> {
  const why = ensurePostgres();
  if (why) throw new Error(why);
  const bin = postgresBinDir()!;
  // As root, every server process runs as the system user; otherwise as the user running the tests.
  const runAs = process.getuid?.() === 0 ? systemUser(POSTGRES_SYSTEM_USER)! : undefined;
  const user = options.user ?? "pulumi_garm";
  const database = options.database ?? "pulumi_state";
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-postgres-"));
  const data = path.join(dir, "data");
  const pwfile = path.join(dir, "pwfile");
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    await fs.chown(dir, runAs.uid, runAs.gid);
    await fs.chown(pwfile, runAs.uid, runAs.gid);
  }
  const as = { ...(runAs ?? {}), encoding: "utf8" as const, cwd: dir };
  const init = spawnSync(
    path.join(bin, "initdb"),
    ["-D", data, "-U", user, `--pwfile=${pwfile}`, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
    as,
  );
  if (init.status !== 0) {
    await fs.rm(dir, { recursive: true, force: true });
    throw failed("initdb", init);
  }
  const port = await freeLoopbackPort();
  // Only this cluster's own settings: TCP on loopback, the socket in the temp directory (not /run/postgresql), and
  // no durability, which a test's throwaway state does not need.
  const settings = [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    "max_connections = 50",
    "shared_buffers = 16MB",
    "fsync = off",
    "synchronous_commit = off",
    "full_page_writes = off",
    "logging_collector = off",
    "log_min_messages = warning",
  ];
  await fs.appendFile(path.join(data, "postgresql.conf"), `\n# pulumi-garm test server\n${settings.join("\n")}\n`);
  let log = "";
  const child: ChildProcess = spawn(path.join(bin, "postgres"), ["-D", data], { ...(runAs ?? {}), cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (b: Buffer) => (log += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (log += b.toString()));
  const stop = async () => {
    // SIGINT is PostgreSQL's fast shutdown: it ends client sessions instead of waiting for them.
    await stopByPid(child, "SIGINT", 5000);
    await fs.rm(dir, { recursive: true, force: true });
  };
  // Over the socket in the temp directory, where initdb made local logins trusted.
  const psql = (args: string[]) => spawnSync(path.join(bin, "psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", dir, "-p", String(port), "-U", user, ...args], { encoding: "utf8" });
  try {
    await waitForListen(child, port, "postgres", () => log);
    const created = psql(["-d", "postgres", "-c", `CREATE DATABASE ${database}`]);
    if (created.status !== 0) throw failed(`creating database ${database}`, created);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    host: "127.0.0.1",
    port,
    user,
    password,
    database,
    url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}?sslmode=disable`,
    dir,
    pid: child.pid!,
    query: (sql) => {
      const r = psql(["-d", database, "-A", "-t", "-c", sql]);
      if (r.status !== 0) throw failed(`psql ${sql}`, r);
      return r.stdout.trim();
    },
    logs: () => log,
    stop,
  };
}
