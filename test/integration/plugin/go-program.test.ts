// A Go Pulumi program built against sdk/go exactly as docs/other-languages.md ("Go") and README.md tell a user to: the
// go.mod with its `replace` to a checkout's sdk/go, the program, `go mod tidy`, `go build`. It compiles the pulumi Go
// SDK v3.248.0 (minutes on 2 cores the first time; GOCACHE and GOMODCACHE are Go's defaults, so later runs reuse them).
// No Go language host is built here (docs/other-languages.md says why), so the program is built, not run.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { GO_MODULE_PATH } from "../../../provider-plugin/schema";
import { fencedBlock } from "./doc-blocks";

const PAGE = "docs/other-languages.md";
/** Where the docs say the checkout is, relative to the program: replaced by this checkout's path. */
const DOCUMENTED_CHECKOUT = "../pulumi-garm";

describe("a Go program builds against sdk/go with the documented replace", function () {
  this.timeout(900_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-go-program-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("sdk/go is a module whose path is the documented import path's module, complete with its go.sum", () => {
    const goMod = fs.readFileSync(path.join(REPO_ROOT, "sdk", "go", "go.mod"), "utf8");
    assert.match(goMod, new RegExp(`^module ${GO_MODULE_PATH.replace(/\./g, "\\.")}$`, "m"));
    assert.match(goMod, /^\tgithub\.com\/pulumi\/pulumi\/sdk\/v3 v3\.248\.0$/m);
    assert.ok(fs.existsSync(path.join(REPO_ROOT, "sdk", "go", "go.sum")), "sdk/go/go.sum ships with the module");
    // -mod=readonly: go.mod and go.sum already hold everything the module needs (what `go mod tidy` in gen-sdks.sh wrote).
    execFileSync("go", ["build", "-mod=readonly", "./..."], { cwd: path.join(REPO_ROOT, "sdk", "go"), stdio: ["ignore", "pipe", "pipe"], timeout: 840_000 });
  });

  it("go mod tidy and go build succeed for the documented go.mod and main.go", () => {
    const goMod = fencedBlock(PAGE, "gomod", "replace ");
    const replace = /^replace .*$/m.exec(goMod)![0];
    assert.equal(replace, `replace ${GO_MODULE_PATH} => ${DOCUMENTED_CHECKOUT}/sdk/go`);
    const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    assert.ok(readme.includes(replace), `README.md shows the same line as ${PAGE}: ${replace}`);
    fs.writeFileSync(path.join(dir, "go.mod"), goMod.replace(`=> ${DOCUMENTED_CHECKOUT}/`, `=> ${REPO_ROOT}/`));
    fs.writeFileSync(path.join(dir, "main.go"), fencedBlock(PAGE, "go", "package main"));
    const go = (...args: string[]) => {
      const started = Date.now();
      execFileSync("go", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], timeout: 840_000 });
      return `go ${args[0]} ${((Date.now() - started) / 1000).toFixed(1)}s`;
    };
    const timings = [go("mod", "tidy"), go("build", "-o", "garm-program", ".")];
    assert.ok(fs.statSync(path.join(dir, "garm-program")).size > 0);
    console.log(`      ${timings.join(", ")}`);
  });
});
