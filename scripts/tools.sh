#!/usr/bin/env bash
# Builds the real components the end-to-end suite and `make demo` run against, from the Go module proxy, into a cache
# outside the checkout. Idempotent: a tool already built at the pinned version is left alone.
#   GARM v0.2.1      -> $CACHE/garm-v0.2.1/garm          (garm-behaviour.md §12: wrapper module repeats GARM's replace line)
#   Pulumi v3.248.0  -> $CACHE/pulumi-v3.248.0/bin/pulumi (pulumi-behaviour.md §7)
#   YAML language host v1.25.0 -> $CACHE/pulumi-language-yaml-v1.25.0/bin/pulumi-language-yaml, linked beside the CLI
#   Node language host -> $CACHE/pulumi-language-nodejs-v3.68.0/bin/pulumi-language-nodejs, beside the dynamic-provider
#                       plugin script pulumi-resource-pulumi-nodejs from @pulumi/pulumi, both also linked into the
#                       cached CLI's bin directory, so `pulumi` from there runs projects from their directories.
#                       A pulumi-language-nodejs already on PATH (a user's Pulumi install) is used as it is.
#   Python language host v3.68.0 -> $CACHE/pulumi-language-python-v3.68.0/bin (with its -exec script, linked beside the
#                       CLI) and venv/ holding the pulumi Python package 3.248.0 (PyPI) for programs and the SDK wheel
#   pulumi-garm-sdkgen (for `make sdks` and the test that sdk/ matches schema.json) -> $CACHE/pulumi-garm-sdkgen-v3.248.0/bin
#   sdk/go compiled once into Go's build cache (go-sdk), so the Go program test does not pay a cold compile
#   OpenSSH server (Debian's openssh-server, for the GarmProvider SSH tests, which start their own sshd on a loopback
#                       port) -> /usr/sbin/sshd, installed with apt-get when missing; the system's sshd is not started;
#                       with it Debian's sudo, for the real-GARM test whose SSH login edits GARM's file through `sudo -n`
#   PostgreSQL server (Debian's postgresql package, for the two-operators test's shared postgres:// Pulumi backend; the
#                       test makes its own cluster) -> /usr/lib/postgresql/<N>/bin, installed with apt-get when missing
# Usage: scripts/tools.sh [garm|pulumi|nodejs|yaml|python|sdkgen|go-sdk|sshd|postgres|all]   (prints the bin directories it made ready)
set -euo pipefail

CACHE="${PULUMI_GARM_CACHE:-$HOME/.cache/pulumi-garm}"
GARM_VERSION=v0.2.1
PULUMI_VERSION=3.248.0
# The Pulumi CLI build's requirements and replace line, shared by the SDK generator built from the same modules.
PULUMI_REQUIRES="	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION"
PULUMI_REPLACE="replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e"

log() { printf 'tools: %s\n' "$*" >&2; }

need_go() {
  command -v go >/dev/null || { log "go is not on PATH; install Go >= 1.26.2 (GARM's go.mod requires it)"; exit 1; }
}

# Builds one Go package from a wrapper module under SRC: its go.mod requires the pinned modules and repeats their
# replace lines (Go applies a replace only in the main module, which is why `go install pkg@version` fails for GARM
# and sdk/v3), and tools.go imports the package so `go mod tidy` keeps what it needs.
# Usage: wrapper_build SRC GO_VERSION REQUIRES REPLACES PACKAGE OUTPUT [go build flags...]
wrapper_build() {
  local src=$1 go_version=$2 requires=$3 replaces=$4 package=$5 output=$6
  shift 6
  mkdir -p "$src" "$(dirname "$output")"
  printf 'module pulumi-garm.local/%s-build\n\ngo %s\n\nrequire (\n%s\n)\n\n%s\n' \
    "$(basename "$output")" "$go_version" "$requires" "$replaces" >"$src/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$package" >"$src/tools.go"
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1) || log "go mod tidy in $src reported problems; building anyway"
  (cd "$src" && GOFLAGS=-mod=mod go build "$@" -o "$output.tmp" "$package")
  mv "$output.tmp" "$output"
}

build_garm() {
  local dir="$CACHE/garm-$GARM_VERSION"
  if [[ -x "$dir/garm" ]]; then echo "$dir"; return; fi
  need_go
  command -v cc >/dev/null || { log "GARM needs cgo for SQLite, and no C compiler is on PATH (apt-get install gcc)"; exit 1; }
  log "building GARM $GARM_VERSION into $dir (first time only; takes a few minutes)"
  CGO_ENABLED=1 wrapper_build "$dir/src" 1.26.2 "	github.com/cloudbase/garm $GARM_VERSION" \
    "replace github.com/mattn/go-sqlite3 => github.com/gabriel-samfira/go-sqlite3 v0.0.0-20251005121134-bc61ecf9b4c7" \
    github.com/cloudbase/garm/cmd/garm "$dir/garm" \
    -tags osusergo,netgo,sqlite_omit_load_extension -ldflags "-X github.com/cloudbase/garm/util/appdefaults.Version=$GARM_VERSION"
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
  wrapper_build "$dir/src" 1.25.11 "$PULUMI_REQUIRES" "$PULUMI_REPLACE" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$dir/bin/pulumi" \
    -tags osusergo,grpcnotrace -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
  echo "$dir/bin"
}

# Releases after v3.68.0 moved the host into a module of its own (github.com/pulumi/pulumi/sdk/nodejs/cmd/
# pulumi-language-nodejs/v3), which the Go module proxy refuses to serve ("403 This module version is not available");
# v3.68.0 is the last release where it is a package of the sdk/v3 module. It speaks the same language-host protocol the
# current CLI uses for `pulumi up` from a project directory (see README, "The Node language host").
NODEJS_HOST_VERSION=v3.68.0

# Builds a language host that is a package of sdk/v3 at VERSION (nodejs or python) into DIR/bin. sdk/v3's go.mod pins
# golang.org/x/text with a replace line; it is repeated so the host is built as that release built it.
sdk_host_build() {
  local dir=$1 version=$2 language=$3
  wrapper_build "$dir/src" 1.18 "	github.com/pulumi/pulumi/sdk/v3 $version" "replace golang.org/x/text => golang.org/x/text v0.3.6" \
    "github.com/pulumi/pulumi/sdk/v3/$language/cmd/pulumi-language-$language" "$dir/bin/pulumi-language-$language" \
    -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version"
}

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
    sdk_host_build "$dir" "$NODEJS_HOST_VERSION" nodejs
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
    sdk_host_build "$dir" "$PYTHON_HOST_VERSION" python
    local exec_src; exec_src="$(cd "$dir/src" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)/python/cmd/pulumi-language-python-exec"
    install -m 0755 "$exec_src" "$dir/bin/pulumi-language-python-exec"
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
  # Keyed by main.go's content, not its time: a fresh clone's files are newer than any cached binary.
  local source_sum; source_sum="$(sha256sum "$here/provider-plugin/sdkgen/main.go" | cut -d' ' -f1)"
  if [[ -x "$dir/bin/pulumi-garm-sdkgen" && "$(cat "$dir/bin/main.go.sha256" 2>/dev/null)" == "$source_sum" ]]; then
    echo "$dir/bin"; return
  fi
  need_go
  log "building pulumi-garm-sdkgen (pkg/v3 v$PULUMI_VERSION code generators) into $dir"
  local src="$dir/src"
  mkdir -p "$src" "$dir/bin"
  printf 'module pulumi-garm.local/sdkgen\n\ngo 1.25.11\n\nrequire (\n%s\n)\n\n%s\n' "$PULUMI_REQUIRES" "$PULUMI_REPLACE" >"$src/go.mod"
  cp "$here/provider-plugin/sdkgen/main.go" "$src/main.go"
  (cd "$src" && GOFLAGS=-mod=mod go mod tidy && GOFLAGS=-mod=mod go build -o "$dir/bin/pulumi-garm-sdkgen" .)
  echo "$source_sum" >"$dir/bin/main.go.sha256"
  echo "$dir/bin"
}

# Compiles the Go SDK in sdk/go once per pulumi and Go version into Go's own build cache (GOCACHE), so the test that
# builds a Go program against it (test/integration/plugin/go-program.test.ts) takes seconds instead of the minutes a
# cold cache costs on two cores. Prints nothing: it makes no directory of its own, only the marker below.
warm_go_sdk() {
  local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local marker="$CACHE/go-sdk-v$PULUMI_VERSION-$(go env GOVERSION 2>/dev/null || echo none).warm"
  [[ -f "$marker" || ! -f "$here/sdk/go/go.mod" ]] && return
  need_go
  log "compiling sdk/go against pulumi sdk v$PULUMI_VERSION into Go's build cache ($(go env GOCACHE))"
  (cd "$here/sdk/go" && go build -mod=readonly ./...)
  mkdir -p "$CACHE" && touch "$marker"
}

# Installs Debian packages with apt-get (refreshing the package lists when an install fails), as root only. A policy
# that forbids starting services keeps a package from starting its system service: the tests start their own servers.
apt_install() {
  local policy=/usr/sbin/policy-rc.d created=
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; created=1; fi
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null))
  if [[ -n $created ]]; then rm -f "$policy"; fi
}

can_apt_install() { [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; }

ensure_sshd() {
  if [[ -x /usr/sbin/sshd && -x /usr/bin/sudo ]] && command -v ssh-keygen >/dev/null; then echo /usr/sbin; return; fi
  if ! can_apt_install; then
    log "openssh-server or sudo is missing: install them (apt-get install openssh-server sudo) for the SSH tests, which skip without them"
    return
  fi
  log "installing openssh-server and sudo (the tests start their own sshd and write their own sudoers line; the system's are left alone)"
  apt_install openssh-server openssh-client sudo
  echo /usr/sbin
}

# The newest PostgreSQL server's bin directory from Debian's postgresql package, for the two-operators test's shared
# Pulumi backend (postgres://); the test makes its own cluster with initdb in a temp directory.
postgres_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

ensure_postgres() {
  local dir; dir="$(postgres_bin)"
  if [[ -n $dir && -x $dir/initdb ]]; then echo "$dir"; return; fi
  if ! can_apt_install; then
    log "postgresql is missing: install it (apt-get install postgresql) for the two-operators test, which skips without it"
    return
  fi
  log "installing postgresql (the tests start their own cluster; the system's is left alone)"
  apt_install postgresql
  postgres_bin
}

case "${1:-all}" in
  garm) build_garm ;;
  pulumi) build_pulumi ;;
  nodejs) build_nodejs_host ;;
  yaml) build_yaml_host ;;
  python) build_python_host ;;
  sdkgen) build_sdkgen ;;
  go-sdk) warm_go_sdk ;;
  sshd) ensure_sshd ;;
  postgres) ensure_postgres ;;
  all) build_garm; build_pulumi; build_nodejs_host; build_yaml_host; build_python_host; build_sdkgen; warm_go_sdk; ensure_sshd; ensure_postgres ;;
  *) log "usage: $0 [garm|pulumi|nodejs|yaml|python|sdkgen|go-sdk|sshd|postgres|all]"; exit 2 ;;
esac
