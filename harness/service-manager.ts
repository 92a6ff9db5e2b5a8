// A stand-in for the GARM host's service manager (systemd) in the test process: a restart command that reaches it on
// its own loopback port, not through GARM, so it also restarts a GARM that is down or already restarting, as
// `systemctl restart garm` does. It answers once GARM serves again, and fails when GARM refuses to start.
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Simulator } from "../simulator";

export interface ServiceManager {
  /** A shell command that restarts the simulated GARM through this service manager. */
  readonly restartCommand: string;
  close(): Promise<void>;
}

export async function startServiceManager(sim: Pick<Simulator, "restart">): Promise<ServiceManager> {
  const server = http.createServer((_req, res) => {
    sim.restart().then(
      () => res.end("restarted\n"),
      (e: Error) => {
        res.statusCode = 500;
        res.end(`garm.service: GARM refused to start: ${e.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    restartCommand: `curl -sS --fail-with-body -X POST http://127.0.0.1:${port}/restart`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
