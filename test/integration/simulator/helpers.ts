// Plain-fetch client for the simulator tests: login once, then call the API as a GARM client would.
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../simulator";

export interface Res {
  status: number;
  /** parsed JSON, or undefined for an empty body */
  body: any;
  text: string;
}

export class Client {
  token = "";
  constructor(readonly sim: Simulator) {}

  async login(): Promise<void> {
    const r = await this.call("POST", "/auth/login", { username: this.sim.username, password: this.sim.password }, false);
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    this.token = r.body.token;
  }

  /** `path` is below /api/v1; `body` is JSON-encoded unless it is a string (sent verbatim). */
  async call(method: string, path: string, body?: unknown, auth = true): Promise<Res> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (auth) headers["Authorization"] = `Bearer ${this.token}`;
    const res = await fetch(`${this.sim.url}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text), text };
  }

  get = (path: string) => this.call("GET", path);
  post = (path: string, body: unknown) => this.call("POST", path, body);
  put = (path: string, body: unknown) => this.call("PUT", path, body);
  del = (path: string) => this.call("DELETE", path);

  /** Creates a valid scale set under the seeded org; returns the response body. */
  async createScaleSet(overrides: Record<string, unknown> = {}): Promise<any> {
    const r = await this.post(`/organizations/${this.sim.organizationId}/scalesets`, {
      name: `ss-${Math.random().toString(36).slice(2, 8)}`,
      provider_name: "fake",
      image: "ubuntu:24.04",
      flavor: "small",
      os_type: "linux",
      os_arch: "amd64",
      max_runners: 5,
      min_idle_runners: 0,
      labels: ["linux", "x64"],
      ...overrides,
    });
    if (r.status !== 200) throw new Error(`create failed: ${r.status} ${r.text}`);
    return r.body;
  }
}

/** For tests of what a restart reloads, not of how long it takes (harsh.test.ts covers that with the default). */
export const QUICK_RESTART = { restartDownMs: 50 } as const;

/** Starts a seeded simulator with no background ticks (tests call sim.tick()) and a logged-in client. */
export async function setup(opts: SimulatorOptions = {}): Promise<{ sim: Simulator; api: Client }> {
  const sim = await startSimulator({ tickMs: 0, ...opts });
  const api = new Client(sim);
  if (opts.seed !== false) await api.login();
  return { sim, api };
}

export async function ticks(sim: Simulator, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await sim.tick();
}
