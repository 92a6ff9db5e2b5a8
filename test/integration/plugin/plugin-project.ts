// A Pulumi project in any language that uses the garm resource plugin, run as a user runs it: the plugin built by
// `make plugin` (provider-plugin/build.sh) and installed with `pulumi plugin install resource garm <v> --file`, then the
// real `pulumi` CLI from the project directory with the project's real language host.
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locatePulumi } from "../../../harness/pulumi-cli";
import { type CliResult, REPO_ROOT } from "../../../harness/pulumi-cli/project";

export const PLUGIN_VERSION: string = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const CACHE = process.env.PULUMI_GARM_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-garm");
export const YAML_HOST_DIR = path.join(CACHE, "pulumi-language-yaml-v1.25.0", "bin");
export const PYTHON_HOST_DIR = path.join(CACHE, "pulumi-language-python-v3.68.0", "bin");
export const PYTHON_VENV_BIN = path.join(CACHE, "pulumi-language-python-v3.68.0", "venv", "bin");

let built: string | undefined;

/** Set by `make test` (test/support/run-suite.ts) to the archive it built once before starting its mocha workers. */
export const PLUGIN_ARCHIVE_ENV = "PULUMI_GARM_TEST_PLUGIN";

/**
 * Runs provider-plugin/build.sh once per process; returns the plugin tarball. Under `make test` it returns the archive
 * the runner built (PLUGIN_ARCHIVE_ENV): build.sh empties build/plugin and rewrites build/'s archives, which another
 * worker may be reading at the time.
 */
export function buildPluginOnce(): string {
  built ??= process.env[PLUGIN_ARCHIVE_ENV];
  if (!built) {
    const out = execFileSync(path.join(REPO_ROOT, "provider-plugin", "build.sh"), { cwd: REPO_ROOT, encoding: "utf8", timeout: 300_000 });
    built = path.resolve(REPO_ROOT, out.trim().split("\n").pop()!);
  }
  return built;
}

/**
 * The pulumi_garm wheel `make sdks` generated into sdk/python, built into `dir` as a user's pip would (setuptools from
 * the virtualenv). It builds from a copy in `dir`: setuptools writes build/ and an egg-info beside the sources, where two
 * test files building at once (parallel workers) would overwrite each other's.
 */
export function buildPythonWheel(dir: string): string {
  const source = path.join(dir, "sdk-python");
  const sdk = path.join(REPO_ROOT, "sdk", "python");
  fs.cpSync(sdk, source, { recursive: true, filter: (p) => !/^(build|[^/]*\.egg-info)(\/|$)/.test(path.relative(sdk, p)) });
  execFileSync(path.join(PYTHON_VENV_BIN, "python3"), ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "-w", dir, source]);
  return path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith(".whl"))!);
}

/** Puts `wheel` on the program's import path as `pip install` would, leaving the shared virtualenv untouched. */
export function installPythonWheel(p: PluginProject, wheel: string): void {
  const site = path.join(p.workDir, "site");
  execFileSync(path.join(PYTHON_VENV_BIN, "python3"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target", site, wheel]);
  p.env.PYTHONPATH = site;
}

function run(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
  onStart?: (child: ChildProcess) => void,
): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(command, args, { ...opts, timeout: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ args, code, stdout, stderr, durationMs: Date.now() - started });
    });
    onStart?.(child);
  });
}

/** One step of `pulumi preview --json`; `detailedDiff` is the provider's, by property path. */
export interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[];
  replaceReasons?: string[];
  detailedDiff?: Record<string, { kind: string; inputDiff: boolean }>;
}

export class PluginProject {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly history: CliResult[] = [];
  private readonly pulumi = locatePulumi().command;

  /**
   * Copies `source` (a project directory) into a temp work dir with its own state. `home` is the PULUMI_HOME (where
   * plugins are installed), shared by the projects of one test file so the plugin is installed once.
   */
  constructor(source: string, readonly home: string, hostDirs: string[] = [], readonly workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-"))) {
    this.dir = path.join(workDir, "project");
    fs.mkdirSync(path.join(workDir, "state"), { recursive: true });
    fs.cpSync(source, this.dir, { recursive: true, filter: (p) => !/(^|\/)(Pulumi\.[^/]+\.yaml|venv|__pycache__)$/.test(path.relative(source, p)) });
    this.env = {
      PATH: [path.dirname(this.pulumi), ...hostDirs, path.dirname(process.execPath), "/usr/bin:/bin"].join(path.delimiter),
      HOME: process.env.HOME,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${path.join(workDir, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-garm-plugin-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    };
  }

  /** `pulumi plugin install resource garm <version> --file <tarball>` into PULUMI_HOME, once per home. */
  async installPlugin(file: string): Promise<void> {
    if (fs.existsSync(path.join(this.home, "plugins", `resource-garm-v${PLUGIN_VERSION}`))) return;
    await this.cli(["plugin", "install", "resource", "garm", PLUGIN_VERSION, "--file", file]);
  }

  /** `onStart` gets the `pulumi` process while it runs, e.g. to watch its output or signal it. */
  async cli(args: readonly string[], opts: { expectOk?: boolean; timeoutMs?: number; onStart?: (child: ChildProcess) => void } = {}): Promise<CliResult> {
    const r = await run(this.pulumi, [...args, "--non-interactive", "--color", "never"], { cwd: this.dir, env: this.env, timeoutMs: opts.timeoutMs ?? 180_000 }, opts.onStart);
    this.history.push(r);
    if ((opts.expectOk ?? true) && r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code} after ${r.durationMs} ms:\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  async initStack(stack: string, config: Record<string, string | { value: string; secret: boolean }>): Promise<void> {
    await this.cli(["stack", "init", stack]);
    const args = ["config", "set-all"];
    for (const [key, v] of Object.entries(config)) {
      const { value, secret } = typeof v === "string" ? { value: v, secret: false } : v;
      args.push(secret ? "--secret" : "--plaintext", `${key}=${value}`);
    }
    await this.cli(args);
  }

  /** `pulumi preview --json`: op -> count, and the steps with the keys that differ, force a replacement, and how. */
  async preview(extra: readonly string[] = []): Promise<{ changeSummary: Record<string, number>; steps: PreviewStep[] }> {
    const r = await this.cli(["preview", "--json", ...extra]);
    const parsed = JSON.parse(r.stdout) as { steps?: []; changeSummary?: Record<string, number> };
    return { changeSummary: parsed.changeSummary ?? {}, steps: parsed.steps ?? [] };
  }

  async outputs(): Promise<Record<string, unknown>> {
    return JSON.parse((await this.cli(["stack", "output", "--json", "--show-secrets"])).stdout) as Record<string, unknown>;
  }

  timings(): string {
    return this.history.map((r) => `${r.args.slice(0, 2).join(" ")} ${(r.durationMs / 1000).toFixed(1)}s`).join(", ");
  }

  close(): void {
    fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}
