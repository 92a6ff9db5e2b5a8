#!/usr/bin/env node
// The `pulumi-garm` command (package.json bin): its subcommands, each a module of its own.
import { importPlan, USAGE } from "./import-plan/command";

async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "import-plan") {
    process.stderr.write(`${sub === undefined || sub === "--help" || sub === "-h" ? "" : `unknown command ${sub}\n`}${USAGE}\n`);
    return sub === "--help" || sub === "-h" ? 0 : 2;
  }
  try {
    await importPlan(rest, { stdout: (t) => process.stdout.write(t), stderr: (l) => process.stderr.write(`${l}\n`), env: process.env });
    return 0;
  } catch (err) {
    process.stderr.write(`pulumi-garm import-plan: ${(err as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
