import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { Connection } from "../../provider/common/connection";
import { pluginResources } from "../../provider-plugin/resources";
import { GO_IMPORT_PATH, GO_MODULE_PATH, PLUGIN_DOWNLOAD_URL, PUBLISHED_REPOSITORY, pluginSchema as packageSchema } from "../../provider-plugin/schema";

const root = join(__dirname, "..", "..", "..");
// Pulumi's package metaschema (pkg/codegen/schema/pulumi.json of the CLI release the tests use), vendored: tests read
// nothing outside the repository.
const metaschemaPath = join(root, "test", "unit", "fixtures", "pulumi-metaschema.json");

describe("schema.json", () => {
  it("is generated from the current input schemas (run `make schema` when this fails)", () => {
    const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
    const committed = readFileSync(join(root, "schema.json"), "utf8");
    assert.equal(committed, `${JSON.stringify(packageSchema(version), null, 2)}\n`);
  });

  it("lists exactly the resources the plugin serves, so every generated SDK class has an implementation", () => {
    const served = [...pluginResources(new Connection()).keys()].sort();
    const declared = Object.keys(packageSchema("0.0.0").resources as Record<string, unknown>).sort();
    assert.deepEqual(served, declared);
  });

  it("validates against Pulumi's package metaschema", function () {
    assert.ok(existsSync(metaschemaPath), `Pulumi's metaschema is expected at ${metaschemaPath}`);
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    const validate = ajv.compile(JSON.parse(readFileSync(metaschemaPath, "utf8")));
    const schema = JSON.parse(readFileSync(join(root, "schema.json"), "utf8")) as Record<string, unknown>;
    assert.ok(validate(schema), JSON.stringify(validate.errors, null, 1));
    const broken = { ...schema, resources: { "garm:GarmScaleSet": {} } };
    assert.equal(validate(broken), false, "a token without a module segment must be rejected");
  });

  it("documents every input of both resources and marks replacing ones", () => {
    const schema = JSON.parse(readFileSync(join(root, "schema.json"), "utf8"));
    const scaleSet = schema.resources["garm:index:GarmScaleSet"];
    for (const [name, spec] of Object.entries<{ description?: string }>(scaleSet.inputProperties)) {
      assert.ok(spec.description, `GarmScaleSet.${name} has no description`);
    }
    assert.equal(scaleSet.inputProperties.labels.willReplaceOnChanges, true);
    assert.equal(scaleSet.inputProperties.maxRunners.willReplaceOnChanges, undefined);
    assert.ok(schema.resources["garm:index:GarmProvider"].properties.stateVersion);
  });

  it("names where the plugin is published, and every generated SDK carries it, so programs fetch the plugin from there", () => {
    const schema = JSON.parse(readFileSync(join(root, "schema.json"), "utf8"));
    assert.equal(PLUGIN_DOWNLOAD_URL, `github://api.github.com/${PUBLISHED_REPOSITORY.owner}/${PUBLISHED_REPOSITORY.name}`);
    assert.equal(schema.pluginDownloadURL, PLUGIN_DOWNLOAD_URL);
    assert.equal(schema.language.go.importBasePath, GO_IMPORT_PATH);
    assert.equal(GO_IMPORT_PATH, `${GO_MODULE_PATH}/garm`);
    for (const file of ["sdk/python/pulumi_garm/pulumi-plugin.json", "sdk/go/garm/pulumi-plugin.json"]) {
      assert.deepEqual(JSON.parse(readFileSync(join(root, file), "utf8")), { resource: true, name: "garm", version: schema.version, server: PLUGIN_DOWNLOAD_URL }, file);
    }
    assert.equal(JSON.parse(readFileSync(join(root, "sdk/nodejs-plugin/package.json"), "utf8")).pulumi.server, PLUGIN_DOWNLOAD_URL);
    assert.match(readFileSync(join(root, "sdk/go/garm/internal/pulumiUtilities.go"), "utf8"), new RegExp(`pulumi\\.PluginDownloadURL\\("${PLUGIN_DOWNLOAD_URL}"\\)`));
    assert.match(readFileSync(join(root, "sdk/python/pulumi_garm/_utilities.py"), "utf8"), new RegExp(`return "${PLUGIN_DOWNLOAD_URL}"`));
    assert.match(readFileSync(join(root, "sdk/go/go.mod"), "utf8"), new RegExp(`^module ${GO_MODULE_PATH}$`, "m"));
  });
});
