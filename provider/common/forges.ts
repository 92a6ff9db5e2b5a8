// The forges GARM serves endpoints and credentials for: GitHub (github.com or GitHub Enterprise Server) and Gitea.
import type { Forge } from "../garm/client";

export type { Forge };

export const FORGES = ["github", "gitea"] as const satisfies readonly Forge[];
