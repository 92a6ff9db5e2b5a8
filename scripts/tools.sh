#!/usr/bin/env bash
# Builds the real components the end-to-end suite and `make demo` run against, from the Go module proxy, into a cache
# outside the checkout. Idempotent: a tool already built at the pinned version is left alone.
#   GARM v0.2.1      -> $CACHE/garm-v0.2.1/garm          (garm-api.md §12: wrapper module repeats GARM's replace line)
#   Pulumi v3.248.0  -> $CACHE/pulumi-v3.248.0/bin/pulumi (pulumi-dynamic-providers.md §7)
#   Node language host -> $CACHE/pulumi-language-nodejs-v3.68.0/bin/pulumi-language-nodejs, beside the dynamic-provider
#                       plugin script pulumi-resource-pulumi-nodejs from @pulumi/pulumi, both also linked into the
#                       cached CLI's bin directory, so `pulumi` from there runs projects from their directories.
#                       A pulumi-language-nodejs already on PATH (a user's Pulumi install) is used as it is.
# Usage: scripts/tools.sh [garm|pulumi|nodejs|all]   (prints the bin directories it made ready)
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

case "${1:-all}" in
  garm) build_garm ;;
  pulumi) build_pulumi ;;
  nodejs) build_nodejs_host ;;
  all) build_garm; build_pulumi; build_nodejs_host ;;
  *) log "usage: $0 [garm|pulumi|nodejs|all]"; exit 2 ;;
esac
