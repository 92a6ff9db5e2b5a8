// An engine harness configured the way a user's stack talks to GARM: garm:url and garm:username as plain config,
// garm:password as a secret. The provider processes start in the repository root, whose node_modules/pulumi-garm
// links back to this checkout's build.
import { join } from "node:path";
import { type Engine, type StartEngineOptions, startEngine } from "./engine";

export const REPO_ROOT = join(__dirname, "..", "..");

export interface GarmLogin {
  readonly url: string;
  readonly username: string;
  readonly password: string;
}

export function engineForGarm(garm: GarmLogin, project: string, stack = "dev", options: Pick<StartEngineOptions, "parallel" | "continueOnError"> = {}): Engine {
  return startEngine({
    ...options,
    cwd: REPO_ROOT,
    project,
    stack,
    config: { "garm:url": garm.url, "garm:username": garm.username },
    secretConfig: { "garm:password": garm.password },
  });
}
