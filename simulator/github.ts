// The GitHub side GARM talks to, reduced to what changes GARM's answers: scale sets, runner agents, injected failures (garm-behaviour.md §10).

/** GitHub calls a test can make fail (garm-behaviour.md §10.3). */
export type GitHubOp =
  | "scaleset-create" // A1 during POST .../scalesets (§4.4 step 5)
  | "scaleset-update" // A3 during PUT when name or runner group changes (§4.1)
  | "scaleset-delete" // A5 during DELETE /scalesets/{id} (§5 step 5)
  | "scaleset-delete-token" // R3/R4 before A5; a 404 there is the one error DELETE reports (§5 step 6)
  | "runner-delete"; // J2 during DELETE /instances/{name} (§6 step 3)

/** A failed GitHub call with the status GitHub answered. */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** the call that failed */
    readonly op: GitHubOp | "other",
  ) {
    super(message);
  }
}

/** Where the simulated actions service lives; GARM's actions-client errors name the URL they called (§10.1). */
const ACTIONS_URL = "https://pipelines.actions.githubusercontent.com/sim";

/** The actions client's error text for a 400: `bad request while calling <url>: "<body>"` (Go %q of the body). */
function badRequestText(apiPath: string, body: Record<string, string>): string {
  return `bad request while calling ${ACTIONS_URL}/${apiPath}?api-version=6.0-preview: ${JSON.stringify(JSON.stringify(body))}`;
}

/** GitHub's runner group ids: "Default" is 1 (repositories always use 1, §10.2 R5). */
const runnerGroupId = (name: string) => (name.toLowerCase() === "default" ? "1" : name);

export interface GitHubScaleSet {
  id: number;
  entityId: string;
  runnerGroup: string;
  name: string;
}

export interface GitHubAgent {
  id: number;
  name: string;
  busy: boolean;
}

export class FakeGitHub {
  readonly scaleSets = new Map<number, GitHubScaleSet>();
  readonly agents = new Map<number, GitHubAgent>();
  private readonly faults = new Map<GitHubOp, number[]>();
  private nextScaleSetId = 101;
  private nextAgentId = 5001;

  failNext(op: GitHubOp, status: number, count = 1): void {
    const queue = this.faults.get(op) ?? [];
    for (let i = 0; i < count; i++) queue.push(status);
    this.faults.set(op, queue);
  }

  /** Throws the next injected failure for `op`, if any. */
  private call(op: GitHubOp): void {
    const status = this.faults.get(op)?.shift();
    if (status !== undefined) throw new GitHubError(status, `github ${op} failed with code ${status}`, op);
  }

  createScaleSet(entityId: string, runnerGroup: string, name: string): number {
    this.call("scaleset-create");
    return this.register(entityId, runnerGroup, name);
  }

  /** Registers a scale set without fault injection (worker re-create, §4.5). */
  register(entityId: string, runnerGroup: string, name: string): number {
    for (const s of this.scaleSets.values()) {
      // Names are unique per runner group of an entity; GitHub answers 400 (§8).
      if (s.entityId === entityId && s.runnerGroup.toLowerCase() === runnerGroup.toLowerCase() && s.name === name) {
        // The body the mock GitHub of harness/mock-github answers (modelled on the actions service).
        const body = {
          message: `A runner scale set named ${name} already exists in runner group ${runnerGroupId(runnerGroup)}`,
          typeName: "RunnerScaleSetExistsException",
        };
        throw new GitHubError(400, badRequestText("_apis/runtime/runnerscalesets", body), "other");
      }
    }
    const id = this.nextScaleSetId++;
    this.scaleSets.set(id, { id, entityId, runnerGroup, name });
    return id;
  }

  updateScaleSet(id: number, patch: { name?: string; runnerGroup?: string }): void {
    this.call("scaleset-update");
    const s = this.scaleSets.get(id);
    if (s === undefined) throw new GitHubError(404, `runner scale set ${id} not found`, "scaleset-update");
    if (patch.name !== undefined) s.name = patch.name;
    if (patch.runnerGroup !== undefined) s.runnerGroup = patch.runnerGroup;
  }

  /** DELETE runnerscalesets/{id}: anything but 204 is a failure (§5 step 5). */
  deleteScaleSet(id: number): void {
    try {
      this.call("scaleset-delete-token");
    } catch (e) {
      if (!(e instanceof GitHubError) || e.status !== 404) throw e;
      // GARM v0.2.1's text for a 404 from /actions/runner-registration (test/e2e/conformance).
      const body = JSON.stringify(JSON.stringify({ message: "Not Found" }));
      throw new GitHubError(
        404,
        `failed to get action service info: failed to get actions service admin info: resource https://api.github.com/actions/runner-registration not found: ${body}`,
        "scaleset-delete-token",
      );
    }
    this.call("scaleset-delete");
    if (!this.scaleSets.delete(id)) throw new GitHubError(404, "failed to delete scale set with code 404", "scaleset-delete");
  }

  /** Deletes a GitHub scale set out of band (the §5 no-op trap). */
  forgetScaleSet(id: number): void {
    this.scaleSets.delete(id);
  }

  registerAgent(name: string): number {
    const id = this.nextAgentId++;
    this.agents.set(id, { id, name, busy: false });
    return id;
  }

  /**
   * Removes a runner from GitHub; a missing agent is a 404 (GARM ignores it, §6 step 3).
   * Removing a busy runner is refused with 400 (open question 6 of garm-behaviour.md: presumed, as ARC's JobStillRunning).
   */
  removeAgent(agentId: number, injectable: boolean): void {
    if (injectable) this.call("runner-delete");
    const a = this.agents.get(agentId);
    if (a === undefined) throw new GitHubError(404, `agent ${agentId} not found`, "runner-delete");
    if (a.busy) throw new GitHubError(400, `runner ${a.name} is running a job`, "runner-delete");
    this.agents.delete(agentId);
  }
}
