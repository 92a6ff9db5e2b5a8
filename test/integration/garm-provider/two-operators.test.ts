// Two operators at once (issue 25): two copies of examples/remote-garm, each with its own PULUMI_HOME, two stacks in
// one shared Pulumi backend (the DIY postgres:// backend on a PostgreSQL server from Debian's packages), each adding a
// different GarmProvider to the same GARM config file in parallel, over SSH to GARM's machine (a real OpenSSH server on
// loopback), then destroying in parallel, twice. The real Pulumi CLI and Node language host run from the project
// directories; GARM is the simulator, which reloads its providers from that file on every restart.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { INITIAL_GARM_CONFIG, type SimulatedHost, startSimulatedHost } from "../../../scripts/demo/host";
import { locateLanguageHost, locatePulumi } from "../../../harness/pulumi-cli";
import { type CliResult, PulumiProject, packOnce } from "../../../harness/pulumi-cli/project";
import { ensurePostgres, startPostgres, type PostgresServer } from "../../../harness/postgres";
import { ensureOpenSshServer, startSshServer, type SshServer } from "../../../harness/sshd";
import { GarmClient } from "../../../provider/garm/client";
import { beginMarker, endMarker } from "../../../provider/kinds/garm-provider/managed-block";
import { announcementPath } from "../../../provider/kinds/garm-provider/restart-announcement";

const OPERATORS = ["alice", "bob"] as const;
type Operator = (typeof OPERATORS)[number];
// Two rounds: the second starts from what the first left behind (make test budget; `ROUNDS=N` runs more).
const ROUNDS = Number(process.env.ROUNDS ?? 2);

/**
 * The GarmProvider inputs operator `who`'s stack gives examples/remote-garm (its `garmProvider` config object): a
 * provider of its own name in the GARM config file of `host`, restarted there. Where GARM's file is reached from is
 * decided here and nowhere else in the test.
 */
export function garmProviderArgs(who: Operator, host: SimulatedHost): Record<string, unknown> {
  return {
    name: who,
    description: `runners of ${who}'s team`,
    executable: host.providerExecutable,
    garmConfigPath: host.garmConfigPath,
    restartCommand: host.stackConfig.restartCommand,
    restartTimeoutSeconds: 30,
  };
}

/** The SSH login to GARM's machine each operator's stack keeps in its secret `connection` config object. */
export function connectionArgs(server: SshServer): Record<string, unknown> {
  return { host: server.host, port: server.port, user: server.user, privateKey: server.clientKey, hostKey: server.hostKey, agentSocketPath: "" };
}

describe("two operators, two stacks in one postgres:// backend, each adding its own GarmProvider to one GARM at once", function () {
  this.timeout(600_000);
  let pg: PostgresServer | undefined;
  let host: SimulatedHost | undefined;
  let sshd: SshServer | undefined;
  const projects = new Map<Operator, PulumiProject>();

  before(async function () {
    try {
      locatePulumi();
      locateLanguageHost();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
    const why = ensurePostgres() ?? ensureOpenSshServer();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    const started = Date.now();
    const tarball = await packOnce();
    [pg, host, sshd] = await Promise.all([startPostgres(), startSimulatedHost({ prefix: "pulumi-garm-two-operators-host-" }), startSshServer()]);
    const made = await Promise.all(
      OPERATORS.map((who) => PulumiProject.fromExample({ example: "remote-garm", tarball, backendUrl: pg!.url, prefix: `pulumi-garm-operator-${who}-` })),
    );
    OPERATORS.forEach((who, i) => projects.set(who, made[i]));
    for (const who of OPERATORS) {
      const p = projects.get(who)!;
      const { "garm:url": url, "garm:username": username, "garm:password": password } = host.stackConfig;
      await p.initStack(who, { "garm:url": url, "garm:username": username, "garm:password": password, garmProvider: JSON.stringify(garmProviderArgs(who, host)), connection: { value: JSON.stringify(connectionArgs(sshd!)), secret: true } });
    }
    console.log(`      (postgres, simulator, npm pack and two npm installs, two stack inits: ${((Date.now() - started) / 1000).toFixed(1)}s)`);
  });
  let passed = false;
  after(async () => {
    for (const p of projects.values()) {
      console.log(`      (${p.timings()})`);
      // A failed round may leave a stack's GarmProvider behind; the simulated host goes anyway, the block with it.
      if (!passed) await p.cli(["destroy", "--yes"], { expectOk: false }).catch(() => undefined);
      p.close();
    }
    await host?.close();
    await pg?.stop();
    await sshd?.stop();
  });

  /** The same `pulumi` command in both operators' directories, started together; fails naming each run that failed. */
  async function both(args: string[]): Promise<CliResult[]> {
    const runs = await Promise.all(OPERATORS.map((who) => projects.get(who)!.cli(args, { expectOk: false })));
    const failed = runs.map((r, i) => (r.code === 0 ? "" : `${OPERATORS[i]}: pulumi ${args.join(" ")} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)).filter(Boolean);
    assert.deepEqual(failed, [], `${failed.join("\n")}\nsimulator log:\n${host!.simLog.slice(-30).join("\n")}`);
    return runs;
  }

  const blocksInFile = () => OPERATORS.filter((who) => host!.garmConfig().includes(beginMarker(who)) && host!.garmConfig().includes(endMarker(who)));
  const listedByGarm = async () => {
    const providers = await new GarmClient({ url: host!.sim.url, username: host!.sim.username, password: host!.sim.password }).listProviders();
    return providers.map((p) => p.name).filter((n) => (OPERATORS as readonly string[]).includes(n)).sort();
  };
  /** SSH logins the server accepted so far (its log, LogLevel VERBOSE). */
  const logins = () => sshd!.logs().split("\n").filter((l) => l.includes("Accepted publickey")).length;
  /** Every lock and note either side may leave: the GARM config file's lock and restart note, the stacks' locks. */
  function locksLeft(): string[] {
    const left = [`${host!.garmConfigPath}.lock`, announcementPath(host!.garmConfigPath)].filter((f) => fs.existsSync(f));
    const stackLocks = pg!.query("SELECT key FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%'");
    return [...left, ...stackLocks.split("\n").filter(Boolean)];
  }

  it(`${ROUNDS} rounds of both stacks' up, then both stacks' destroy, at the same time: each round ends with both blocks, GARM listing both providers and no lock left`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const restartsBefore = host!.restarts();
      const loginsBefore = logins();
      await both(["up", "--yes", "--skip-preview"]);
      assert.ok(logins() - loginsBefore >= OPERATORS.length, `round ${round}: each operator's up reached GARM's machine over SSH`);
      assert.deepEqual(blocksInFile(), [...OPERATORS], `round ${round}: both blocks in the file after up:\n${host!.garmConfig()}`);
      assert.deepEqual(await listedByGarm(), [...OPERATORS], `round ${round}: GARM lists both providers`);
      assert.deepEqual(locksLeft(), [], `round ${round}: no lock left after up`);
      assert.ok(host!.garmConfig().startsWith(INITIAL_GARM_CONFIG), `round ${round}: the operator's lines are kept`);
      assert.ok(host!.restarts() - restartsBefore >= 1, `round ${round}: GARM restarted for the new entries`);
      for (const who of OPERATORS) {
        const out = (await projects.get(who)!.outputs()) as { providerName: string; owner: { stack: string } };
        assert.deepEqual([out.providerName, out.owner.stack], [who, who], `${who}'s stack holds its own provider`);
      }

      await both(["destroy", "--yes", "--skip-preview"]);
      assert.equal(host!.garmConfig(), INITIAL_GARM_CONFIG, `round ${round}: both destroys give the file back byte for byte`);
      assert.deepEqual(await listedByGarm(), [], `round ${round}: GARM lists neither provider after destroy`);
      assert.deepEqual(locksLeft(), [], `round ${round}: no lock left after destroy`);
    }
    passed = true;
  });
});
