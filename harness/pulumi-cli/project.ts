// Runs a Pulumi project the way a user does: the package packed with `npm pack`, installed from that tarball into a copy
// of the project directory, and the real `pulumi` CLI (file backend, real Node language host) run from that directory.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "./index";
import { installShared } from "./shared-install";

/** The repository root (holds package.json and examples/). */
export const REPO_ROOT = path.resolve(__dirname, "..", "..", "..");

export interface CliResult {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

/** Runs a command; resolves with its exit code and output (never rejects on a non-zero exit). */
export function run(command: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...opts, timeout: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      if (err && typeof err.code !== "number" && !err.killed) return reject(err); // could not start it at all
      resolve({ args, code, stdout, stderr: err?.killed ? `${stderr}\n(killed after ${opts.timeoutMs} ms)` : stderr, durationMs: Date.now() - started });
    });
  });
}

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
let packed: Promise<string> | undefined;

/** Set by `make test` (test/support/run-suite.ts) to the tarball it packed once for all its mocha workers. */
export const PACKED_TARBALL_ENV = "PULUMI_GARM_TEST_TARBALL";

/**
 * `npm pack` of the repository, once per process, into a temp directory; returns the tarball's path. Scripts are skipped
 * (prepack would run tsc again): the callers run after `make build`, so dist/ is current. Under `make test` the tarball
 * its runner packed is used instead (PACKED_TARBALL_ENV), so parallel workers install the same bytes.
 */
export function packOnce(): Promise<string> {
  const shared = process.env[PACKED_TARBALL_ENV];
  if (shared) return Promise.resolve(shared);
  packed ??= (async () => {
    const dest = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-pack-"));
    process.once("exit", () => fs.rmSync(dest, { recursive: true, force: true }));
    const r = await run(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", dest], { cwd: REPO_ROOT, env: process.env, timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`npm pack failed (exit ${r.code}): ${r.stderr}`);
    const [{ filename }] = JSON.parse(r.stdout) as [{ filename: string }];
    return path.join(dest, filename);
  })();
  return packed;
}

/**
 * `npm install <tarball>` in `dir`, as a user installs the package into a project. Projects declaring the same
 * dependencies share one full install per tarball (shared-install.ts): a later one starts from a copy of its tree.
 */
export async function installTarball(dir: string, tarball: string): Promise<void> {
  await installShared(dir, tarball, async () => {
    // The npm cache serves what an earlier run fetched; the registry is asked only for what it lacks.
    const npm = await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: dir, env: process.env, timeoutMs: 300_000 });
    if (npm.code !== 0) throw new Error(`npm install ${tarball} in ${dir} failed (exit ${npm.code}):\n${npm.stderr}`);
  });
}

export interface ProjectOptions {
  /** Directory of examples/ to copy. */
  readonly example: string;
  /** A project directory elsewhere to copy instead of examples/<example> (the benches write theirs to a temp dir). */
  readonly source?: string;
  /** The package tarball (packOnce()). */
  readonly tarball: string;
  /** Temp directory name prefix. */
  readonly prefix?: string;
  /** Extra environment for the CLI (and so the program and the dynamic provider). */
  readonly env?: Record<string, string>;
  /**
   * Where the stacks' state lives, e.g. `postgres://user:pass@127.0.0.1:5432/db?sslmode=disable` shared by several
   * projects; default: a file backend in this project's own state/ directory.
   */
  readonly backendUrl?: string;
}

/** A copy of an example project with the package installed from its tarball, and a CLI bound to it. */
export class PulumiProject {
  /** Holds project/ (the copy), state/ (file backend, unless backendUrl names another) and home/ (PULUMI_HOME). */
  readonly workDir: string;
  /** The project directory: Pulumi.yaml, package.json, index.ts, node_modules. */
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Every `pulumi` run so far, in order. */
  readonly history: CliResult[] = [];
  private readonly pulumi: string;

  private constructor(workDir: string, extraEnv: Record<string, string>, backendUrl: string | undefined) {
    this.workDir = workDir;
    this.dir = path.join(workDir, "project");
    const cli = locatePulumi();
    this.pulumi = cli.command;
    const host = locateLanguageHost();
    for (const d of ["state", "home"]) fs.mkdirSync(path.join(workDir, d), { recursive: true });
    this.env = {
      ...process.env,
      // The CLI's own directory first (the cached build has the host and the dynamic-provider script linked in), then the
      // host's, then node's (the host and the plugin script run `node`).
      PATH: [path.dirname(cli.command), host, path.dirname(process.execPath), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
      PULUMI_HOME: path.join(workDir, "home"),
      PULUMI_BACKEND_URL: backendUrl ?? `file://${path.join(workDir, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-garm-examples-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      ...extraEnv,
    };
  }

  /** Copies examples/<example> (without node_modules or stack files) and installs the tarball into it with npm. */
  static async fromExample(opts: ProjectOptions): Promise<PulumiProject> {
    const src = opts.source ?? path.join(REPO_ROOT, "examples", opts.example);
    if (!fs.existsSync(path.join(src, "Pulumi.yaml"))) throw new Error(`${src} is not a Pulumi project (no Pulumi.yaml)`);
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? `pulumi-garm-${opts.example}-`));
    try {
      const project = new PulumiProject(workDir, opts.env ?? {}, opts.backendUrl);
      fs.cpSync(src, project.dir, {
        recursive: true,
        filter: (p) => !/(^|\/)(node_modules|package-lock\.json|Pulumi\.[^/]+\.yaml)$/.test(path.relative(src, p)),
      });
      await installTarball(project.dir, opts.tarball);
      return project;
    } catch (err) {
      fs.rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** `pulumi <args>` from the project directory; throws with the CLI's output unless it exits 0 (or expectOk is false). */
  async cli(args: readonly string[], opts: { expectOk?: boolean; timeoutMs?: number } = {}): Promise<CliResult> {
    const r = await run(this.pulumi, [...args, "--non-interactive", "--color", "never"], { cwd: this.dir, env: this.env, timeoutMs: opts.timeoutMs ?? 300_000 });
    this.history.push(r);
    if ((opts.expectOk ?? true) && r.code !== 0) {
      throw new Error(`pulumi ${args.join(" ")} exited ${r.code} after ${r.durationMs} ms:\n${r.stdout}\n${r.stderr}`);
    }
    return r;
  }

  /** `pulumi stack init` and `pulumi config set` for each entry (a secret with --secret). */
  async initStack(stack: string, config: Record<string, string | { value: string; secret: boolean }>): Promise<void> {
    await this.cli(["stack", "init", stack]);
    await this.setConfig(config);
  }

  async setConfig(config: Record<string, string | { value: string; secret: boolean }>): Promise<void> {
    const args = ["config", "set-all"];
    for (const [key, v] of Object.entries(config)) {
      const { value, secret } = typeof v === "string" ? { value: v, secret: false } : v;
      args.push(secret ? "--secret" : "--plaintext", `${key}=${value}`);
    }
    await this.cli(args);
  }

  /** `pulumi preview --json`: the planned steps and the change counts. */
  async preview(extra: readonly string[] = []): Promise<Preview> {
    const r = await this.cli(["preview", "--json", ...extra]);
    const parsed = JSON.parse(r.stdout) as { steps?: PreviewStep[]; changeSummary?: Record<string, number> };
    return { steps: parsed.steps ?? [], changeSummary: parsed.changeSummary ?? {}, result: r };
  }

  /** The stack's outputs, secrets shown. */
  async outputs(): Promise<Record<string, unknown>> {
    const r = await this.cli(["stack", "output", "--json", "--show-secrets"]);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  /** "12 pulumi runs, 31.0s: up 4.1s, ..." for a test's log. */
  timings(): string {
    const total = this.history.reduce((sum, r) => sum + r.durationMs, 0);
    const each = this.history.map((r) => `${r.args.slice(0, 2).join(" ")} ${(r.durationMs / 1000).toFixed(1)}s`);
    return `${this.history.length} pulumi runs, ${(total / 1000).toFixed(1)}s: ${each.join(", ")}`;
  }

  /** Removes the temp directory unless keep is set (then says where it is). */
  close(opts: { keep?: boolean } = {}): void {
    if (opts.keep) console.log(`      (kept ${this.workDir})`);
    else fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}

export interface PreviewStep {
  readonly op: string;
  readonly urn: string;
  /** Input properties whose change forces a replacement. */
  readonly replaceReasons?: string[];
}

export interface Preview {
  readonly steps: PreviewStep[];
  /** op -> count, e.g. {create: 3} or {replace: 1, same: 2}. */
  readonly changeSummary: Record<string, number>;
  readonly result: CliResult;
}

/** The resource name at the end of a URN ("...::garm:GarmScaleSet::small" -> "small"). */
export const urnName = (urn: string): string => urn.slice(urn.lastIndexOf("::") + 2);
