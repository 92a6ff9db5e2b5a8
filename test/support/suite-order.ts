// The order `make test` hands its files to mocha's parallel workers: the slowest first, so that no long file starts
// last and keeps one worker busy after the others ran out of files; then the rest by path (e2e, integration, then the
// quick unit files, which fill the gaps at the end).

/**
 * The slowest files of the last measured run, longest first (seconds of their tests and hooks in `make test`'s
 * closing list, three workers on 2 cores at load 3-4). Files not listed follow in path order; a renamed file only
 * loses its place.
 */
export const SLOWEST_FIRST: readonly string[] = [
  "test/integration/examples/examples.test.ts", // 305 s
  "test/integration/entities/entities.test.ts", // 139 s
  "test/integration/garm-provider/engine-scenarios.test.ts", // 131 s
  "test/e2e/garm-provider-over-ssh-real-garm.test.ts", // 126 s
  "test/integration/plugin/team-garm.test.ts", // 100 s
  "test/integration/cli/import-each-kind.test.ts", // 95 s
  "test/integration/plugin/yaml.test.ts", // 82 s
  "test/integration/garm-provider/two-operators.test.ts", // 77 s
  "test/integration/plugin/cli-behaviour.test.ts", // 77 s
  "test/integration/scaleset/scaleset.test.ts", // 69 s
  "test/integration/cli/two-garms.test.ts", // 65 s alone at load 2-4, not yet measured in the parallel run
  "test/e2e/two-garms-real-garm.test.ts", // 55 s alone, not yet measured in the parallel run
  "test/e2e/garm-from-scratch-real-garm.test.ts", // 55 s
  "test/integration/garm-provider/over-ssh.test.ts", // 50 s
  "test/integration/cli/import-option.test.ts", // 44 s
  "test/integration/forge/endpoint.test.ts", // 43 s
  "test/integration/pool/pool.test.ts", // 43 s
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
