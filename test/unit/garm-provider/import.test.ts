// GarmProvider's import (issue 26): the id form, the inputs read from a hand-written or managed [[provider]] entry,
// and the markers the first update puts around a hand-written entry without changing another byte.
import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as toml from "smol-toml";
import { RESTART_COMMAND_KEY, garmProviderId, importGarmProvider, parseGarmProviderImportId } from "../../../provider/kinds/garm-provider/import";
import { beginMarker, endMarker, markHandWritten, readBlock, readBlockOwner, upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { verifyEdit } from "../../../provider/kinds/garm-provider/garm-config";
import { HAND_WRITTEN, removeDir, spec, tempConfig } from "./helpers";

const OWNER = { project: "infra", stack: "prod", resource: "lxd" };
const configured = (key: string) => (key === RESTART_COMMAND_KEY ? "systemctl restart garm" : undefined);

/** `text` without the lines pulumi-garm's markers add around `name`'s block (BEGIN, owner, what it is, END). */
function withoutMarkerLines(text: string, name: string): string {
  const ours = [beginMarker(name), endMarker(name), "# Managed by pulumi-garm (GarmProvider); edits inside this block are overwritten."];
  return text
    .split(/(?<=\n)/)
    .filter((line) => {
      const bare = line.replace(/\r?\n$/, "");
      return !ours.includes(bare) && !bare.startsWith("# pulumi-garm owner: ");
    })
    .join("");
}

describe("GarmProvider import id", () => {
  it("is <garmConfigPath>#<name>, the name after the last #, and differs from the name", () => {
    assert.deepEqual(parseGarmProviderImportId("/etc/garm/config.toml#openstack"), { garmConfigPath: "/etc/garm/config.toml", name: "openstack" });
    assert.deepEqual(parseGarmProviderImportId("/srv/a#b/config.toml#lxd_local"), { garmConfigPath: "/srv/a#b/config.toml", name: "lxd_local" });
    assert.equal(garmProviderId("/etc/garm/config.toml", "openstack"), "/etc/garm/config.toml#openstack");
  });

  it("refuses a bare name, a relative path and a name GARM does not take, saying the form", () => {
    assert.throws(() => parseGarmProviderImportId("openstack"), /"openstack" names no config file: give <garmConfigPath>#<provider name>, e.g. \/etc\/garm\/config.toml#openstack/);
    assert.throws(() => parseGarmProviderImportId("config.toml#openstack"), /config file "config.toml" is not an absolute path/);
    assert.throws(() => parseGarmProviderImportId("/etc/garm/config.toml#"), /"" is not a GARM provider name/);
    assert.throws(() => parseGarmProviderImportId("/etc/garm/config.toml#a b"), /"a b" is not a GARM provider name/);
  });
});

describe("GarmProvider importer", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => ({ dir, file } = await tempConfig(HAND_WRITTEN)));
  afterEach(async () => removeDir(dir));

  it("reads a hand-written entry as the inputs that reproduce it, GARM's defaults left out, with no owner and nothing written", async () => {
    const found = await importGarmProvider(`${file}#lxd_local`, { config: configured });
    assert.equal(found.id, `${file}#lxd_local`);
    assert.deepEqual(found.inputs, {
      name: "lxd_local",
      description: "Local LXD",
      executable: "/opt/garm/bin/garm-provider-lxd",
      environmentVariables: ["PATH"],
      garmConfigPath: file,
      restartCommand: "systemctl restart garm",
    });
    assert.equal(found.props.owner, undefined);
    assert.equal(found.props.interfaceVersion, "v0.1.0");
    assert.equal(found.props.restartTimeoutSeconds, 60);
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
  });

  it("takes the restart command and timeout from the program when there is one, and names the config key when there is none", async () => {
    const fromProgram = await importGarmProvider(`${file}#lxd_local`, { config: () => undefined, program: { restartCommand: "sudo systemctl restart garm", restartTimeoutSeconds: 30 } });
    assert.equal(fromProgram.inputs.restartCommand, "sudo systemctl restart garm");
    assert.equal(fromProgram.inputs.restartTimeoutSeconds, 30);
    await assert.rejects(
      importGarmProvider(`${file}#lxd_local`, { config: () => undefined }),
      /GarmProvider "lxd_local": GARM's config file does not hold the command that restarts GARM, so the import takes it from stack config garm:garmRestartCommand, which is not set: run `pulumi config set garm:garmRestartCommand "systemctl restart garm"`/,
    );
  });

  it("reads a managed block with the owner it records", async () => {
    await fs.writeFile(file, upsertBlock(HAND_WRITTEN, spec("openstack"), file, OWNER));
    const found = await importGarmProvider(`${file}#openstack`, { config: configured });
    assert.deepEqual(found.props.owner, OWNER);
    assert.deepEqual(found.inputs, {
      name: "openstack",
      description: "openstack runners",
      executable: "/usr/local/bin/garm-provider-openstack",
      configFile: "/etc/garm/openstack.toml",
      environmentVariables: ["PATH", "OS_"],
      garmConfigPath: file,
      restartCommand: "systemctl restart garm",
    });
  });

  it("refuses an entry GarmProvider could not write back the same, a missing entry and an SSH program, naming why", async () => {
    const entry = (extra: string) => `${HAND_WRITTEN}\n[[provider]]\nname = "odd"\nprovider_type = "external"\n${extra}`;
    await fs.writeFile(file, entry(`  [provider.external]\n  provider_dir = "/opt/garm/providers.d"\n`));
    await assert.rejects(importGarmProvider(`${file}#odd`, { config: configured }), /sets external.provider_dir \(give provider_executable instead of provider_dir\), which GarmProvider cannot express/);
    await fs.writeFile(file, entry(`disable_jit_config = true\n  [provider.external]\n  provider_executable = "/bin/true"\n`));
    await assert.rejects(importGarmProvider(`${file}#odd`, { config: configured }), /sets disable_jit_config = true/);
    await assert.rejects(importGarmProvider(`${file}#nothere`, { config: configured }), /has no \[\[provider\]\] named "nothere"/);
    await assert.rejects(importGarmProvider(`${file}#lxd_local`, { config: configured, program: { connection: { host: "garm" } } }), /over SSH \(connection\) is not supported yet/);
  });
});

describe("markHandWritten", () => {
  const check = (text: string, name: string, kept = text) => {
    const marked = markHandWritten(text, name, OWNER);
    assert.equal(withoutMarkerLines(marked, name), kept, "every other byte is kept");
    const entry = (toml.parse(text) as { provider: Record<string, unknown>[] }).provider.find((p) => p.name === name)!;
    const ext = entry.external as Record<string, unknown>;
    assert.equal(readBlock(marked, name)?.executable, ext.provider_executable);
    assert.deepEqual(readBlockOwner(marked, name), OWNER);
    verifyEdit(text, marked, name, readBlock(marked, name), "config.toml");
    return marked;
  };

  it("puts the markers around the entry and before the next table, leaving the blank line and comments that follow it outside", () => {
    const marked = check(HAND_WRITTEN, "lxd_local");
    assert.match(marked, /  environment_variables = \["PATH"\]\n# END pulumi-garm provider "lxd_local"\n\n\[database\]/);
    assert.match(marked, /log_level = "debug"\n\n# BEGIN pulumi-garm provider "lxd_local"\n/);
  });

  it("keeps CRLF line ends, an entry at the end of a file without a final newline, and one of two hand-written entries", () => {
    check(HAND_WRITTEN.replace(/\n/g, "\r\n"), "lxd_local");
    // The END marker needs a line of its own: the one byte added besides the markers.
    const unended = '[default]\n\n[[provider]]\nname = "last"\nprovider_type = "external"\n[provider.external]\nprovider_executable = "/bin/true"';
    check(unended, "last", `${unended}\n`);
    const two = `${HAND_WRITTEN}\n# the second one\n[[provider]]\nname = "k8s"\nprovider_type = "external"\nexternal = { provider_executable = "/bin/k8s" }\n`;
    const marked = check(two, "k8s");
    assert.ok(marked.includes('\n# the second one\n# BEGIN pulumi-garm provider "k8s"\n'));
    check(two, "lxd_local");
  });
});
