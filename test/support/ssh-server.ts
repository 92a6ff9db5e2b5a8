// A real OpenSSH server for one test file (harness/sshd.ts): started before its tests, stopped after them, and the
// file skipped, saying why, where Debian's openssh-server cannot be had. Call inside `describe`.
import { ensureOpenSshServer, startSshServer, type SshServer, type SshServerOptions } from "../../harness/sshd";

export function useSshServer(options?: SshServerOptions): { readonly server: SshServer } {
  let server: SshServer | undefined;
  before(async function () {
    const why = ensureOpenSshServer();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    server = await startSshServer(options);
  });
  after(async () => {
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
  };
}
