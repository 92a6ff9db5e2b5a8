// Host key pins and known_hosts lookups (provider/machine/known-hosts.ts) as OpenSSH reads them (sshd(8), "SSH_KNOWN_HOSTS
// FILE FORMAT"), and the decision of the host key policy (ssh-connection.ts) on the key a server offers. The hashed
// lines below were written by OpenSSH's `ssh-keygen -H`; the pattern table's rows agree with `ssh-keygen -F`.
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fingerprint, hostFieldMatches, hostKeyAlgorithms, knownHostKeys, knownHostsName, parsePinnedHostKeys } from "../../../provider/machine/known-hosts";
import { hostKeyPolicy, SshConnectError } from "../../../provider/machine/ssh-connection";

const sshString = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
/** A key blob of `type` (its body made up: only its fingerprint matters here). */
const blobOf = (type: string, n: number) => Buffer.concat([sshString(Buffer.from(type)), sshString(createHash("sha256").update(`k${n}`).digest())]);
const b64 = (type: string, n: number) => blobOf(type, n).toString("base64");
const fp = (type: string, n: number) => fingerprint(blobOf(type, n));

// ssh-keygen -H of "garm-01.example.com ssh-ed25519 <key 1>" and "[garm-host]:2222 ssh-ed25519 <key 1>".
const K1 = "AAAAC3NzaC1lZDI1NTE5AAAAIGq58euPfTOI9PnVhvZumf1UCA3yxEbw5YZosJwIoW3Q";
const HASHED_GARM01 = "|1|PJIFTvlcoBX9ZJapVKQpajyQDzE=|vchbz4s4WeggKo/qsg//FJpYghM=";
const HASHED_GARM_HOST_2222 = "|1|vSyvQruHVSCObIRiVUuX59Xgm/Q=|+vS879EVRmw3+L1pFyMERQdQEVI=";

describe("known_hosts and hostKey pins, read as OpenSSH reads them", () => {
  it("K1 is the ed25519 key 1 of these tables", () => {
    assert.equal(K1, b64("ssh-ed25519", 1));
  });

  describe("the name a line is matched against", () => {
    const rows: [string, number, string][] = [
      ["garm-01.example.com", 22, "garm-01.example.com"],
      ["GARM-01.Example.COM", 22, "garm-01.example.com"],
      ["garm-host", 2222, "[garm-host]:2222"],
      ["10.0.0.5", 22, "10.0.0.5"],
    ];
    for (const [host, port, name] of rows) it(`${host} port ${port} → ${name}`, () => assert.equal(knownHostsName(host, port), name));
  });

  describe("a host field against a name (patterns, negation, brackets, hashes, case)", () => {
    const rows: [field: string, name: string, matches: boolean][] = [
      ["garm-01.example.com", "garm-01.example.com", true],
      ["GARM-01.example.com", "garm-01.example.com", true],
      ["other,garm-01.example.com", "garm-01.example.com", true],
      ["garm-01.example.co", "garm-01.example.com", false],
      ["*.example.com", "garm-01.example.com", true],
      ["*.example.com", "example.com", false],
      ["*", "garm-01.example.com", true],
      ["garm-0?.example.com", "garm-01.example.com", true],
      ["garm-0?.example.com", "garm-010.example.com", false],
      ["*.example.com,!garm-01.example.com", "garm-01.example.com", false],
      ["!garm-01.example.com,*.example.com", "garm-01.example.com", false],
      ["!*.example.com", "garm-01.example.com", false],
      ["*.example.com,!garm-02.example.com", "garm-01.example.com", true],
      ["!garm-02.example.com", "garm-01.example.com", false],
      ["[garm-host]:2222", "[garm-host]:2222", true],
      ["[garm-host]:2222", "garm-host", false],
      ["garm-host", "[garm-host]:2222", false],
      ["[garm-host]:*", "[garm-host]:2222", true],
      ["[garm-host]:22", "garm-host", false],
      ["10.0.0.*", "10.0.0.5", true],
      [HASHED_GARM01, "garm-01.example.com", true],
      [HASHED_GARM01, "garm-02.example.com", false],
      [HASHED_GARM_HOST_2222, "[garm-host]:2222", true],
      [HASHED_GARM_HOST_2222, "garm-host", false],
      ["|1|not-base64!|x", "garm-01.example.com", false],
      ["|2|PJIFTvlcoBX9ZJapVKQpajyQDzE=|vchbz4s4WeggKo/qsg//FJpYghM=", "garm-01.example.com", false],
    ];
    for (const [field, name, matches] of rows) it(`${field} ${matches ? "names" : "does not name"} ${name}`, () => assert.equal(hostFieldMatches(field, name), matches));
  });

  describe("the lines of a file that name a host, with their markers", () => {
    const ed = (n: number) => `ssh-ed25519 ${b64("ssh-ed25519", n)}`;
    const file = [
      "# comment",
      "",
      `garm-01.example.com,10.0.0.5 ${ed(1)} root@garm-01`,
      `   *.example.com,!garm-01.example.com ${ed(2)}`,
      `@revoked * ${ed(3)}`,
      `@cert-authority *.example.com ${ed(4)}`,
      `@bogus garm-01.example.com ${ed(5)}`,
      `garm-01.example.com ssh-rsa ${b64("ssh-ed25519", 6)}`,
      `garm-01.example.com ssh-ed25519 not*base64`,
      `[garm-host]:2222\t${ed(7)}`,
      `${HASHED_GARM01} ${ed(8)}`,
      `GARM-01.EXAMPLE.COM ${ed(9)}`,
    ].join("\n");
    const rows: [host: string, port: number, found: string[]][] = [
      ["garm-01.example.com", 22, ["3:ssh-ed25519 1", "5:@revoked ssh-ed25519 3", "6:@cert-authority ssh-ed25519 4", "11:ssh-ed25519 8", "12:ssh-ed25519 9"]],
      ["Garm-01.Example.com", 22, ["3:ssh-ed25519 1", "5:@revoked ssh-ed25519 3", "6:@cert-authority ssh-ed25519 4", "11:ssh-ed25519 8", "12:ssh-ed25519 9"]],
      ["garm-02.example.com", 22, ["4:ssh-ed25519 2", "5:@revoked ssh-ed25519 3", "6:@cert-authority ssh-ed25519 4"]],
      ["10.0.0.5", 22, ["3:ssh-ed25519 1", "5:@revoked ssh-ed25519 3"]],
      ["garm-host", 2222, ["5:@revoked ssh-ed25519 3", "10:ssh-ed25519 7"]],
      ["garm-01.example.com", 2222, ["5:@revoked ssh-ed25519 3"]],
    ];
    const label = (k: { line: number; marker?: string; type: string; fingerprint: string }) => {
      const n = [1, 2, 3, 4, 5, 6, 7, 8, 9].find((i) => fp("ssh-ed25519", i) === k.fingerprint);
      return `${k.line}:${k.marker ? `@${k.marker} ` : ""}${k.type} ${n}`;
    };
    for (const [host, port, found] of rows) {
      it(`${host} port ${port}: lines ${found.map((f) => f.split(":")[0]).join(", ")}`, () => assert.deepEqual(knownHostKeys(file, host, port).map(label), found));
    }
  });

  describe("a pinned hostKey: bare, as ssh-keyscan prints it, several lines, fingerprints", () => {
    const ed1 = b64("ssh-ed25519", 1);
    const rsa2 = b64("ssh-rsa", 2);
    const ec3 = b64("ecdsa-sha2-nistp256", 3);
    const rows: [text: string, keys: string[] | string][] = [
      [`ssh-ed25519 ${ed1}`, [`ssh-ed25519 ${fp("ssh-ed25519", 1)}`]],
      [`  ssh-ed25519 ${ed1} root@garm  `, [`ssh-ed25519 ${fp("ssh-ed25519", 1)}`]],
      [`garm-01.example.com ssh-ed25519 ${ed1}`, [`ssh-ed25519 ${fp("ssh-ed25519", 1)}`]],
      [`[garm-host]:2222 ssh-ed25519 ${ed1}`, [`ssh-ed25519 ${fp("ssh-ed25519", 1)}`]],
      [`garm ssh-ed25519 ${ed1} a comment`, [`ssh-ed25519 ${fp("ssh-ed25519", 1)}`]],
      [`10.0.0.5 ssh-rsa ${rsa2}`, [`ssh-rsa ${fp("ssh-rsa", 2)}`]],
      [
        `# garm-01.example.com:22 SSH-2.0-OpenSSH_9.2p1\ngarm-01.example.com ssh-rsa ${rsa2}\r\ngarm-01.example.com ecdsa-sha2-nistp256 ${ec3}\n\ngarm-01.example.com ssh-ed25519 ${ed1}\n`,
        [`ssh-rsa ${fp("ssh-rsa", 2)}`, `ecdsa-sha2-nistp256 ${fp("ecdsa-sha2-nistp256", 3)}`, `ssh-ed25519 ${fp("ssh-ed25519", 1)}`],
      ],
      [fp("ssh-ed25519", 1), [fp("ssh-ed25519", 1)]],
      [`${fp("ssh-ed25519", 1)}=`, [fp("ssh-ed25519", 1)]],
      [`${fp("ssh-ed25519", 1)}\nssh-rsa ${rsa2}`, [fp("ssh-ed25519", 1), `ssh-rsa ${fp("ssh-rsa", 2)}`]],
      // The named type must be the blob's own.
      [`ssh-rsa ${ed1}`, "line 1"],
      [`garm-01 ssh-ed25519`, "line 1"],
      [`ssh-ed25519 ${ed1}\nnot a key`, "line 2"],
      [`# only a comment`, []],
    ];
    for (const [text, keys] of rows) {
      it(JSON.stringify(text.slice(0, 70)), () => {
        const got = parsePinnedHostKeys(text);
        if (typeof keys === "string") {
          assert.ok(!Array.isArray(got), JSON.stringify(got));
          assert.equal(`line ${got.badLine}`, keys);
        } else {
          assert.ok(Array.isArray(got), JSON.stringify(got));
          assert.deepEqual(got.map((k) => (k.type ? `${k.type} ${k.fingerprint}` : k.fingerprint)), keys);
        }
      });
    }
  });

  describe("the host key algorithms asked for: the trusted types first", () => {
    const rows: [string[], string[] | undefined][] = [
      [[], undefined],
      [["ssh-rsa"], ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"]],
      [["ecdsa-sha2-nistp256", "ssh-ed25519"], ["ecdsa-sha2-nistp256", "ssh-ed25519", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]],
      [["sk-ssh-ed25519@openssh.com"], undefined],
    ];
    for (const [types, algos] of rows) it(`${types.join(", ") || "none"}`, () => assert.deepEqual(hostKeyAlgorithms(types), algos));
  });
});

describe("the host key policy's decision on the key a server offers", () => {
  let dir = "";
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-known-hosts-"));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  const ed = (n: number) => `ssh-ed25519 ${b64("ssh-ed25519", n)}`;
  const decide = async (host: string, port: number, policy: { hostKey?: string; knownHosts?: string }, offered: Buffer) => {
    let knownHostsFile: string | undefined;
    if (policy.knownHosts !== undefined) {
      knownHostsFile = path.join(dir, `known_hosts_${Math.random().toString(16).slice(2)}`);
      await fs.writeFile(knownHostsFile, policy.knownHosts);
    }
    return (await hostKeyPolicy({ host, port, hostKey: policy.hostKey, knownHostsFile }, () => undefined)).decide(offered);
  };
  const rows: [what: string, host: string, port: number, policy: { hostKey?: string; knownHosts?: string }, offered: Buffer, outcome: RegExp | "accepted"][] = [
    ["a keyscan line whose host holds a dash", "garm-01.example.com", 22, { hostKey: `garm-01.example.com ${ed(1)}` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a keyscan line for a port", "garm-host", 2222, { hostKey: `[garm-host]:2222 ${ed(1)}` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["any of ssh-keyscan's lines", "garm-01", 22, { hostKey: `garm-01 ssh-rsa ${b64("ssh-rsa", 2)}\ngarm-01 ${ed(1)}` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a pinned key that changed", "garm-01", 22, { hostKey: `garm-01 ${ed(1)}` }, blobOf("ssh-ed25519", 2), /has changed: connection\.hostKey pins SHA256:\S+, the server offered ssh-ed25519 SHA256:/],
    ["a wildcard line", "garm-01.example.com", 22, { knownHosts: `*.example.com ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a host the line negates", "garm-01.example.com", 22, { knownHosts: `*.example.com,!garm-01.example.com ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), /is not in \S+; pin it with connection\.hostKey/],
    ["host name case", "GARM-01.example.com", 22, { knownHosts: `garm-01.EXAMPLE.com ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a hashed line (ssh-keygen -H)", "garm-01.example.com", 22, { knownHosts: `${HASHED_GARM01} ssh-ed25519 ${K1}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a hashed [host]:port line", "garm-host", 2222, { knownHosts: `${HASHED_GARM_HOST_2222} ssh-ed25519 ${K1}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a key that changed", "garm-01", 22, { knownHosts: `garm-01 ${ed(1)}\n` }, blobOf("ssh-ed25519", 2), /has changed: \S+ lists ssh-ed25519 SHA256:\S+, the server offered SHA256:/],
    ["a key of another type than listed", "garm-01", 22, { knownHosts: `garm-01 ssh-rsa ${b64("ssh-rsa", 2)}\n` }, blobOf("ssh-ed25519", 1), /has changed: \S+ lists ssh-rsa SHA256:\S+, the server offered ssh-ed25519 SHA256:\S+ and none of those/],
    ["a @revoked key, even when also listed", "garm-01", 22, { knownHosts: `garm-01 ${ed(1)}\n@revoked * ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), /\(ssh-ed25519 SHA256:\S+\) is marked @revoked in \S+ \(line 2\): it must not be trusted/],
    ["a @revoked key for another host", "garm-01", 22, { knownHosts: `garm-01 ${ed(1)}\n@revoked garm-02 ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a host covered only by @cert-authority", "garm-01.example.com", 22, { knownHosts: `@cert-authority *.example.com ${ed(4)}\n` }, blobOf("ssh-ed25519", 1), /trusts garm-01\.example\.com:22 only through @cert-authority \(line 1\), and certificate host keys are not supported .*add a plain line "garm-01\.example\.com ssh-ed25519 <base64 key>"/],
    ["@cert-authority beside a plain line", "garm-01.example.com", 22, { knownHosts: `@cert-authority *.example.com ${ed(4)}\ngarm-01.example.com ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), "accepted"],
    ["a host on another port", "garm-01", 2222, { knownHosts: `garm-01 ${ed(1)}\n` }, blobOf("ssh-ed25519", 1), /is not in /],
  ];
  for (const [what, host, port, policy, offered, outcome] of rows) {
    it(`${what}: ${outcome === "accepted" ? "accepted" : "refused"}`, async () => {
      const why = await decide(host, port, policy, offered);
      if (outcome === "accepted") assert.equal(why, undefined);
      else {
        assert.match(why ?? "accepted", outcome);
        assert.ok(!why!.includes("\n"), "one line");
        assert.ok(!why!.includes(b64("ssh-ed25519", 1)), "fingerprints, not keys");
      }
    });
  }

  it("a hostKey that is no key is refused before connecting, naming its line", async () => {
    await assert.rejects(hostKeyPolicy({ host: "garm-01", hostKey: `garm-01 ${ed(1)}\nnonsense here` }, () => undefined), (e: Error) => {
      assert.ok(e instanceof SshConnectError && e.reason === "host-key");
      assert.match(e.message, /^connection\.hostKey for garm-01:22 line 2 \("nonsense here"\) is not a key: give/);
      return true;
    });
  });

  it("quotes no key material of a line it cannot read (a private key pasted by mistake)", async () => {
    const body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";
    for (const text of [`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}`, body]) {
      await assert.rejects(hostKeyPolicy({ host: "garm-01", hostKey: text }, () => undefined), (e: Error) => {
        assert.ok(!e.message.includes(body.slice(0, 16)), e.message);
        return true;
      });
    }
  });

  it("asks the server for the pinned key's type first", async () => {
    const policy = await hostKeyPolicy({ host: "garm-01", hostKey: `garm-01 ssh-rsa ${b64("ssh-rsa", 2)}` }, () => undefined);
    assert.deepEqual(policy.algorithms?.slice(0, 3), ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]);
  });
});
