// One-call setup for e2e tests: mock GitHub + real GARM (bootstrapped) in a fresh temp dir, and one teardown.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startMockGithub, type MockGithub, type MockGithubOptions } from "../mock-github";
import { startRealGarm, type ProviderSpec, type RealGarm } from "./index";

export interface E2eEnvironment {
    mock: MockGithub;
    garm: RealGarm;
    workDir: string;
    /** Stops GARM and the mock; removes workDir unless keep (or $KEEP_E2E_DIRS) is set. Idempotent. */
    stop(opts?: { keep?: boolean }): Promise<void>;
}

export async function startE2eEnvironment(
    opts: {
        workDir?: string;
        mock?: MockGithubOptions;
        providers?: ProviderSpec[];
        garmBinary?: string;
        garmRunAs?: { uid: number; gid: number };
        /** false: GARM with first-run, login and controller URLs only (startRealGarm's bootstrapEntities). */
        bootstrapEntities?: boolean;
        /** false: the controller URLs left empty too (startRealGarm's controllerUrls). */
        controllerUrls?: boolean;
    } = {},
): Promise<E2eEnvironment> {
    const workDir = opts.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-"));
    const mock = await startMockGithub({ longPollMs: 1500, ...(opts.mock ?? {}) });
    let garm: RealGarm;
    try {
        garm = await startRealGarm({
            workDir,
            mockGithubUrl: mock.url,
            providers: opts.providers,
            garmBinary: opts.garmBinary,
            runAs: opts.garmRunAs,
            bootstrapEntities: opts.bootstrapEntities,
            controllerUrls: opts.controllerUrls,
        });
    } catch (e) {
        await mock.close();
        throw e;
    }
    let stopped = false;
    return {
        mock,
        garm,
        workDir,
        async stop(s) {
            if (stopped) return;
            stopped = true;
            await garm.stop();
            await mock.close();
            if (s?.keep || process.env.KEEP_E2E_DIRS) console.log(`    (kept ${workDir}; GARM log at ${garm.logPath})`);
            else fs.rmSync(workDir, { recursive: true, force: true });
        },
    };
}
