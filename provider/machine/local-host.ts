// This machine as GARM's host: its files through node's fs (local-files.ts), the restart command run by shell.ts.
import { fileOperations, type GarmHost } from "./host";
import { localFiles } from "./local-files";
import { runShellCommand } from "./shell";

export const localHost: GarmHost = {
  label: localFiles.label,
  files: localFiles,
  ...fileOperations(localFiles),
  run: runShellCommand,
};
