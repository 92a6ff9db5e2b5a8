// The order `make test` hands its files to mocha's parallel workers: the slowest first, so that no long file starts
// last and keeps one worker busy after the others ran out of files; then the rest by path (e2e, integration, then the
// quick unit files, which fill the gaps at the end).

/**
 * The slowest files of the last measured run, longest first (seconds in a serial run on 2 cores, `make test`'s
 * closing list). Files not listed follow in path order; a renamed file only loses its place.
 */
export const SLOWEST_FIRST: readonly string[] = [
  "test/integration/examples/examples.test.ts", // 247 s
  "test/integration/garm-provider/engine-scenarios.test.ts", // 118 s
  "test/e2e/garm-provider-over-ssh-real-garm.test.ts", // 97 s
  "test/integration/entities/entities.test.ts", // 86 s
  "test/integration/plugin/team-garm.test.ts", // 72 s
  "test/integration/garm-provider/two-operators.test.ts", // 70 s
  "test/integration/plugin/cli-behaviour.test.ts", // 65 s
  "test/integration/cli/import-each-kind.test.ts", // 60 s
  "test/integration/plugin/yaml.test.ts", // 60 s
  "test/integration/scaleset/scaleset.test.ts", // 54 s
  "test/e2e/garm-from-scratch-real-garm.test.ts", // 51 s
  "test/integration/garm-provider/over-ssh.test.ts", // 47 s
  "test/e2e/garm-provider-hosts.test.ts", // 40 s
  "test/e2e/conformance/conformance.test.ts", // 36 s
  "test/integration/plugin/import-plan.test.ts", // 35 s
];

/** The compiled test file (dist/test/...js) of a source path (test/...ts). */
export const compiled = (source: string): string => `dist/${source.replace(/\.ts$/, ".js")}`;

/** `files` (compiled paths relative to the repository root) in the order described above. */
export function suiteOrder(files: readonly string[]): string[] {
  const rank = new Map(SLOWEST_FIRST.map((f, i) => [compiled(f), i]));
  const first = files.filter((f) => rank.has(f)).sort((a, b) => rank.get(a)! - rank.get(b)!);
  const rest = files.filter((f) => !rank.has(f)).sort();
  return [...first, ...rest];
}
