// The forges GARM serves endpoints and credentials for: GitHub (github.com or GitHub Enterprise Server) and Gitea.
export const FORGES = ["github", "gitea"] as const;

export type Forge = (typeof FORGES)[number];
