#!/usr/bin/env bash
# `make sdks`: the plugin's SDKs from schema.json into sdk/<language>/, then proof that each builds: the Python SDK
# into a wheel (build/sdks/), the Go SDK with `go build`.
# `pulumi package gen-sdk` of CLI 3.248.0 hands generation to the language host's GeneratePackage; the hosts that
# implement it (pulumi-language-python/-go/-dotnet after v3.68.0) are modules the Go module proxy does not serve, so
# the Python and Go SDKs come from pulumi-garm-sdkgen (the same pkg/v3 code generators, scripts/tools.sh sdkgen), and
# .NET, whose generator lives only in pulumi-dotnet's host, is not generated (README, "SDKs").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
sdkgen="$(scripts/tools.sh sdkgen)/pulumi-garm-sdkgen"
python_bin="$(scripts/tools.sh python)/../venv/bin"
mkdir -p build/sdks

"$sdkgen" schema.json python sdk/python
"$sdkgen" schema.json go sdk/go
rm -f build/sdks/*.whl
# --no-build-isolation: the virtualenv's setuptools builds it, nothing is fetched.
"$python_bin/python3" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w build/sdks sdk/python
ls build/sdks/*.whl

# The Go SDK compiles against the pulumi Go SDK at the CLI's version (a copy with a go.mod, leaving sdk/go as generated).
gowork="$(mktemp -d)"
trap 'rm -rf "$gowork"' EXIT
cp -r sdk/go/garm/. "$gowork/"
cat >"$gowork/go.mod" <<MOD
module github.com/pulumi-garm/pulumi-garm/sdk/go/garm

go 1.25.11

require github.com/pulumi/pulumi/sdk/v3 v3.248.0
MOD
(cd "$gowork" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 && GOFLAGS=-mod=mod go build ./...)
echo "sdk/go/garm builds"
