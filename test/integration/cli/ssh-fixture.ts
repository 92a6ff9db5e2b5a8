// What the real-CLI GarmProvider-over-SSH tests share: a real OpenSSH server on loopback for the describe block, and for
// each test a fresh GARM config file as an operator wrote it, a provider executable and the GARM simulator reading it.
// Skips the block when the Pulumi CLI or openssh-server is missing.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi } from "../../../harness/pulumi-cli";
import { ensureOpenSshServer, startSshServer, type SshServer } from "../../../harness/sshd";

export const HAND_WRITTEN = "# operator's GARM config\n[default]\nenable_webhook_management = true\n";

export interface SshGarmHost {
  readonly sim: Simulator;
  readonly server: SshServer;
  /** The test's scratch directory: the CLI's state and home, the config file and the executable. */
  readonly dir: string;
  /** GARM's config file, HAND_WRITTEN at the start of each test. */
  readonly file: string;
  readonly exe: string;
}

/** Registers the block's hooks (call it inside `describe`); the returned object is filled in before each test. */
export function sshGarmHost(prefix: string): SshGarmHost {
  const fx = {} as { -readonly [K in keyof SshGarmHost]: SshGarmHost[K] };
  before(async function () {
    try {
      locatePulumi();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
    const why = ensureOpenSshServer();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    fx.server = await startSshServer();
  });
  after(async () => {
    await fx.server?.stop();
  });
  beforeEach(async () => {
    fx.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    fx.file = path.join(fx.dir, "config.toml");
    fs.writeFileSync(fx.file, HAND_WRITTEN, { mode: 0o600 });
    fx.exe = path.join(fx.dir, "garm-provider-fake");
    fs.writeFileSync(fx.exe, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    fx.sim = await startSimulator({ garmConfigPath: fx.file, tickMs: 0 });
  });
  afterEach(async () => {
    await fx.sim?.stop();
    fs.rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}
