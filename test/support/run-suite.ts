// `make test`: the test files in parallel mocha workers (`mocha --parallel`), with one reporter and so one summary line
// and one failure listing for the whole run.
//
//   node dist/test/support/run-suite.js [--jobs N] [--ignore FILE]... DIR... [-- MOCHA OPTION...]
//
// Before the workers start it packs the package once and builds the garm plugin once and hands both to every worker
// (PACKED_TARBALL_ENV, PLUGIN_ARCHIVE_ENV): each worker would otherwise pack its own, and build.sh rewrites build/ while
// another worker reads it. Files go to the workers slowest first (suite-order.ts).
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PACKED_TARBALL_ENV, REPO_ROOT, packOnce } from "../../harness/pulumi-cli/project";
import { PLUGIN_ARCHIVE_ENV, buildPluginOnce } from "../integration/plugin/plugin-project";
import { suiteOrder } from "./suite-order";

interface Args {
  jobs: number;
  ignore: Set<string>;
  dirs: string[];
  mocha: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { jobs: 3, ignore: new Set(), dirs: [], mocha: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      args.mocha = argv.slice(i + 1);
      break;
    } else if (a === "--jobs") {
      args.jobs = Number(argv[++i]);
      if (!Number.isInteger(args.jobs) || args.jobs < 1) throw new Error(`run-suite: --jobs takes a whole number of at least 1, got ${argv[i]}`);
    } else if (a === "--ignore") {
      args.ignore.add(path.normalize(argv[++i] ?? ""));
    } else {
      args.dirs.push(a);
    }
  }
  return args;
}

/** Every *.test.js under `dir`, relative to the repository root. */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.js"))
    .map((f) => path.join(dir, f));
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const files = suiteOrder(args.dirs.flatMap(testFiles).filter((f) => !args.ignore.has(f)));
  const started = Date.now();
  const tarball = packOnce();
  const plugin = buildPluginOnce();
  const env = { ...process.env, [PACKED_TARBALL_ENV]: await tarball, [PLUGIN_ARCHIVE_ENV]: plugin };
  console.log(`run-suite: ${files.length} files in ${args.jobs} workers (package packed and plugin built in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const mocha = spawn(process.execPath, [require.resolve("mocha/bin/mocha.js"), "--parallel", "--jobs", String(args.jobs), ...args.mocha, ...files], {
    cwd: REPO_ROOT,
    env,
    stdio: "inherit",
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => mocha.kill(sig));
  return new Promise((resolve) => mocha.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`run-suite: ${err.message}`);
    process.exit(1);
  },
);
