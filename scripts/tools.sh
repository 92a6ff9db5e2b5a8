#!/usr/bin/env bash
# Builds the real components the end-to-end suite and `make demo` run against, from the Go module proxy, into a cache
# outside the checkout. Idempotent: a tool already built at the pinned version is left alone.
#   GARM v0.2.1      -> $CACHE/garm-v0.2.1/garm          (garm-api.md §12: wrapper module repeats GARM's replace line)
#   Pulumi v3.248.0  -> $CACHE/pulumi-v3.248.0/bin/pulumi (pulumi-dynamic-providers.md §7)
#   YAML language host v1.25.0 -> $CACHE/pulumi-language-yaml-v1.25.0/bin/pulumi-language-yaml, linked beside the CLI
#   Node language host -> $CACHE/pulumi-language-nodejs-v3.68.0/bin/pulumi-language-nodejs, beside the dynamic-provider
#                       plugin script pulumi-resource-pulumi-nodejs from @pulumi/pulumi, both also linked into the
#                       cached CLI's bin directory, so `pulumi` from there runs projects from their directories.
#                       A pulumi-language-nodejs already on PATH (a user's Pulumi install) is used as it is.
#   Python language host v3.68.0 -> $CACHE/pulumi-language-python-v3.68.0/bin (with its -exec script, linked beside the
#                       CLI) and venv/ holding the pulumi Python package 3.248.0 (PyPI) for programs and the SDK wheel
#   pulumi-garm-sdkgen (sdkgen, not in all; `make sdks` builds it) -> $CACHE/pulumi-garm-sdkgen-v3.248.0/bin
# Usage: scripts/tools.sh [garm|pulumi|nodejs|yaml|python|sdkgen|all]   (prints the bin directories it made ready)
set -euo pipefail

CACHE="${PULUMI_GARM_CACHE:-$HOME/.cache/pulumi-garm}"
GARM_VERSION=v0.2.1
PULUMI_VERSION=3.248.0

log() { printf 'tools: %s\n' "$*" >&2; }

need_go() {
  command -v go >/dev/null || { log "go is not on PATH; install Go >= 1.26.2 (GARM's go.mod requires it)"; exit 1; }
}

build_garm() {
  local dir="$CACHE/garm-$GARM_VERSION"
  if [[ -x "$dir/garm" ]]; then echo "$dir"; return; fi
  need_go
  command -v cc >/dev/null || { log "GARM needs cgo for SQLite, and no C compiler is on PATH (apt-get install gcc)"; exit 1; }
  log "building GARM $GARM_VERSION into $dir (first time only; takes a few minutes)"
  local src="$dir/src"
  mkdir -p "$src"
  cat >"$src/go.mod" <<MOD
module pulumi-garm.local/garm-build

go 1.26.2

require github.com/cloudbase/garm $GARM_VERSION

replace github.com/mattn/go-sqlite3 => github.com/gabriel-samfira/go-sqlite3 v0.0.0-20251005121134-bc61ecf9b4c7
MOD
  cat >"$src/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/cloudbase/garm/cmd/garm"
GO
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  (cd "$src" && CGO_ENABLED=1 GOFLAGS=-mod=mod go build \
      -tags osusergo,netgo,sqlite_omit_load_extension \
      -ldflags "-X github.com/cloudbase/garm/util/appdefaults.Version=$GARM_VERSION" \
      -o "$dir/garm.tmp" github.com/cloudbase/garm/cmd/garm)
  mv "$dir/garm.tmp" "$dir/garm"
  echo "$dir"
}

build_pulumi() {
  if command -v pulumi >/dev/null; then
    dirname "$(command -v pulumi)"; return
  fi
  local dir="$CACHE/pulumi-v$PULUMI_VERSION"
  if [[ -x "$dir/bin/pulumi" ]]; then echo "$dir/bin"; return; fi
  need_go
  log "building the Pulumi CLI v$PULUMI_VERSION into $dir (first time only; takes 10-20 minutes on 2 cores)"
  local src="$dir/src"
  mkdir -p "$src" "$dir/bin"
  cat >"$src/go.mod" <<MOD
module pulumi-garm.local/pulumi-build

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
  cat >"$src/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
GO
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy)
  local ld="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
  (cd "$src" && GOFLAGS=-mod=mod go build -tags osusergo,grpcnotrace -ldflags "$ld" -o "$dir/bin/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  mv "$dir/bin/pulumi.tmp" "$dir/bin/pulumi"
  echo "$dir/bin"
}

# Releases after v3.68.0 moved the host into a module of its own (github.com/pulumi/pulumi/sdk/nodejs/cmd/
# pulumi-language-nodejs/v3), which the Go module proxy refuses to serve ("403 This module version is not available");
# v3.68.0 is the last release where it is a package of the sdk/v3 module. It speaks the same language-host protocol the
# current CLI uses for `pulumi up` from a project directory (see README, "The Node language host").
NODEJS_HOST_VERSION=v3.68.0

build_nodejs_host() {
  local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local shim_src="$here/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  if command -v pulumi-language-nodejs >/dev/null; then
    dirname "$(command -v pulumi-language-nodejs)"; return
  fi
  local dir="$CACHE/pulumi-language-nodejs-$NODEJS_HOST_VERSION"
  if [[ ! -x "$dir/bin/pulumi-language-nodejs" ]]; then
    need_go
    log "building the Node language host $NODEJS_HOST_VERSION into $dir (first time only; takes a few minutes)"
    local src="$dir/src"
    mkdir -p "$src" "$dir/bin"
    # sdk/v3's go.mod pins golang.org/x/text with a replace line; a replace only applies in the main module, so it is
    # repeated here to build what that release built.
    cat >"$src/go.mod" <<MOD
module pulumi-garm.local/pulumi-language-nodejs-build

go 1.18

require github.com/pulumi/pulumi/sdk/v3 $NODEJS_HOST_VERSION

replace golang.org/x/text => golang.org/x/text v0.3.6
MOD
    cat >"$src/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
GO
    (cd "$src" && GOFLAGS=-mod=mod go mod tidy)
    local ld="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$NODEJS_HOST_VERSION"
    (cd "$src" && GOFLAGS=-mod=mod go build -ldflags "$ld" -o "$dir/bin/pulumi-language-nodejs.tmp" \
        github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
    mv "$dir/bin/pulumi-language-nodejs.tmp" "$dir/bin/pulumi-language-nodejs"
  fi
  # The CLI runs a dynamic provider through this script, found on PATH; it resolves @pulumi/pulumi from the program's
  # directory, so one copy serves every project.
  if [[ ! -x "$dir/bin/pulumi-resource-pulumi-nodejs" ]]; then
    [[ -f "$shim_src" ]] || { log "$shim_src is missing; run \`make setup\` first"; exit 1; }
    install -m 0755 "$shim_src" "$dir/bin/pulumi-resource-pulumi-nodejs"
  fi
  # Next to the cached CLI, the CLI takes both as its bundled plugins; found elsewhere on PATH, it warns on every run.
  local cli_bin="$CACHE/pulumi-v$PULUMI_VERSION/bin"
  if [[ -x "$cli_bin/pulumi" ]]; then
    ln -sfn "$dir/bin/pulumi-language-nodejs" "$cli_bin/pulumi-language-nodejs"
    ln -sfn "$dir/bin/pulumi-resource-pulumi-nodejs" "$cli_bin/pulumi-resource-pulumi-nodejs"
  fi
  echo "$dir/bin"
}

# The YAML language host, for YAML programs that use the resource plugin (README, "YAML"). Its go.mod has no replace
# lines, so `go install` of the pinned version builds exactly what that release built.
YAML_HOST_VERSION=v1.25.0

build_yaml_host() {
  if command -v pulumi-language-yaml >/dev/null; then
    dirname "$(command -v pulumi-language-yaml)"; return
  fi
  local dir="$CACHE/pulumi-language-yaml-$YAML_HOST_VERSION"
  if [[ ! -x "$dir/bin/pulumi-language-yaml" ]]; then
    need_go
    log "building the YAML language host $YAML_HOST_VERSION into $dir (first time only; takes a few minutes)"
    mkdir -p "$dir/bin"
    GOBIN="$dir/bin" GOFLAGS=-mod=mod go install "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$YAML_HOST_VERSION"
  fi
  # Beside the cached CLI it is taken as a bundled plugin, without the warning a PATH plugin gets.
  local cli_bin="$CACHE/pulumi-v$PULUMI_VERSION/bin"
  if [[ -x "$cli_bin/pulumi" ]]; then
    ln -sfn "$dir/bin/pulumi-language-yaml" "$cli_bin/pulumi-language-yaml"
  fi
  echo "$dir/bin"
}

# The Python language host, for Python programs that use the resource plugin (README, "Python"): v3.68.0, the last
# release where it is a package of sdk/v3 (later ones are modules the Go module proxy does not serve, as for Node), with
# the pulumi-language-python-exec script of the same release beside it, and a virtualenv holding the `pulumi` Python
# package at PULUMI_PYTHON_VERSION that programs run with (the host runs `python3` from PATH: put $dir/venv/bin first).
PYTHON_HOST_VERSION=v3.68.0
PULUMI_PYTHON_VERSION=3.248.0

build_python_host() {
  local dir="$CACHE/pulumi-language-python-$PYTHON_HOST_VERSION"
  if [[ ! -x "$dir/bin/pulumi-language-python" ]]; then
    need_go
    log "building the Python language host $PYTHON_HOST_VERSION into $dir (first time only; takes a few minutes)"
    local src="$dir/src"
    mkdir -p "$src" "$dir/bin"
    # As for the Node host: sdk/v3's replace line for golang.org/x/text applies only in the main module, so it is repeated.
    cat >"$src/go.mod" <<MOD
module pulumi-garm.local/pulumi-language-python-build

go 1.18

require github.com/pulumi/pulumi/sdk/v3 $PYTHON_HOST_VERSION

replace golang.org/x/text => golang.org/x/text v0.3.6
MOD
    cat >"$src/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
GO
    (cd "$src" && GOFLAGS=-mod=mod go mod tidy)
    local ld="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PYTHON_HOST_VERSION"
    (cd "$src" && GOFLAGS=-mod=mod go build -ldflags "$ld" -o "$dir/bin/pulumi-language-python.tmp" \
        github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python)
    local exec_src; exec_src="$(cd "$src" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)/python/cmd/pulumi-language-python-exec"
    install -m 0755 "$exec_src" "$dir/bin/pulumi-language-python-exec"
    mv "$dir/bin/pulumi-language-python.tmp" "$dir/bin/pulumi-language-python"
  fi
  if [[ ! -x "$dir/venv/bin/python3" ]] || ! "$dir/venv/bin/python3" -c "import pulumi, wheel, parver, semver" 2>/dev/null; then
    command -v python3 >/dev/null || { log "python3 is not on PATH; install Python >= 3.9"; exit 1; }
    log "installing the pulumi Python package $PULUMI_PYTHON_VERSION into $dir/venv"
    python3 -m venv "$dir/venv"
    # wheel builds the SDK's wheel (make sdks); parver and semver are what the generated pulumi_garm SDK imports.
    "$dir/venv/bin/python3" -m pip install --quiet --disable-pip-version-check "pulumi==$PULUMI_PYTHON_VERSION" wheel parver semver
  fi
  # Beside the cached CLI it is taken as a bundled plugin, without the warning a PATH plugin gets.
  local cli_bin="$CACHE/pulumi-v$PULUMI_VERSION/bin"
  if [[ -x "$cli_bin/pulumi" ]]; then
    ln -sfn "$dir/bin/pulumi-language-python" "$cli_bin/pulumi-language-python"
    ln -sfn "$dir/bin/pulumi-language-python-exec" "$cli_bin/pulumi-language-python-exec"
  fi
  echo "$dir/bin"
}

# The SDK generator behind `make sdks` (provider-plugin/sdkgen): pkg/v3's code generators at the CLI's version, in a
# module that repeats the CLI build's requirements and replace line.
build_sdkgen() {
  local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local dir="$CACHE/pulumi-garm-sdkgen-v$PULUMI_VERSION"
  if [[ -x "$dir/bin/pulumi-garm-sdkgen" && "$dir/bin/pulumi-garm-sdkgen" -nt "$here/provider-plugin/sdkgen/main.go" ]]; then
    echo "$dir/bin"; return
  fi
  need_go
  log "building pulumi-garm-sdkgen (pkg/v3 v$PULUMI_VERSION code generators) into $dir"
  local src="$dir/src"
  mkdir -p "$src" "$dir/bin"
  cat >"$src/go.mod" <<MOD
module pulumi-garm.local/sdkgen

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
  cp "$here/provider-plugin/sdkgen/main.go" "$src/main.go"
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy && GOFLAGS=-mod=mod go build -o "$dir/bin/pulumi-garm-sdkgen" .)
  echo "$dir/bin"
}

case "${1:-all}" in
  garm) build_garm ;;
  pulumi) build_pulumi ;;
  nodejs) build_nodejs_host ;;
  yaml) build_yaml_host ;;
  python) build_python_host ;;
  sdkgen) build_sdkgen ;;
  all) build_garm; build_pulumi; build_nodejs_host; build_yaml_host; build_python_host ;;
  *) log "usage: $0 [garm|pulumi|nodejs|yaml|python|sdkgen|all]"; exit 2 ;;
esac
