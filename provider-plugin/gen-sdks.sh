#!/usr/bin/env bash
# `make sdks`: the plugin's SDKs from schema.json into sdk/python, sdk/go and sdk/nodejs-plugin (the plugin's Node SDK,
# package @pulumi-garm/garm; sdk/nodejs is the dynamic provider's package), then proof that each builds: the Python SDK
# into a wheel (build/sdks/, offline), the Go SDK with `go build` against the go.mod and go.sum it ships, the Node SDK
# with this checkout's tsc into build/sdks/nodejs-plugin (an installable package directory).
#   provider-plugin/gen-sdks.sh [out]   generates into out/python, out/go, out/nodejs-plugin (default sdk/); the proof runs only for sdk/
#                                       (test/integration/plugin/sdks-current.test.ts regenerates into a scratch dir)
# `pulumi package gen-sdk` of CLI 3.248.0 hands generation to the language host's GeneratePackage; the hosts that
# implement it (pulumi-language-python/-go/-dotnet after v3.68.0) are modules the Go module proxy does not serve, so
# the SDKs come from pulumi-garm-sdkgen (the same pkg/v3 code generators, scripts/tools.sh sdkgen), and .NET, whose
# generator lives only in pulumi-dotnet's host, is not generated (docs/other-languages.md, "SDKs").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-sdk}"
sdkgen="$(scripts/tools.sh sdkgen)/pulumi-garm-sdkgen"
# The pulumi Go SDK the Go module requires: the CLI's version (the generator writes v3.30.0, its oldest supported).
pulumi_go_sdk="github.com/pulumi/pulumi/sdk/v3@v$(node -p 'require("./package.json").devDependencies["@pulumi/pulumi"]')"

"$sdkgen" schema.json python "$out/python"
# pyproject.toml names README.md beside it as the long description; the generator writes it into the package.
cp "$out/python/pulumi_garm/"README.md "$out/python/"README.md
"$sdkgen" schema.json go "$out/go"
"$sdkgen" schema.json nodejs "$out/nodejs-plugin"
# sdk/go/go.mod is the generator's (schema meta.supportPack); require the CLI's SDK and record every checksum in go.sum,
# so a program with a `replace` to sdk/go builds with -mod=readonly. Default GOMODCACHE: a second run is offline.
(cd "$out/go" && go mod edit -require="$pulumi_go_sdk" && GOFLAGS=-mod=mod go mod tidy)

[[ "$out" == sdk ]] || exit 0
python_bin="$(scripts/tools.sh python)/../venv/bin"
mkdir -p build/sdks
rm -f build/sdks/*.whl
# --no-build-isolation --no-index: the virtualenv's setuptools builds it, nothing is fetched.
"$python_bin/python3" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --no-index -w build/sdks sdk/python
rm -rf sdk/python/build sdk/python/*.egg-info
ls build/sdks/*.whl
(cd sdk/go && go build ./... && go vet ./...)
echo "sdk/go builds"
rm -rf build/sdks/nodejs-plugin
npx --no-install tsc -p sdk/nodejs-plugin/tsconfig.json --outDir build/sdks/nodejs-plugin
# With its package.json beside the output, the directory is the package `npm install` takes.
cp sdk/nodejs-plugin/package.json build/sdks/nodejs-plugin/
echo "build/sdks/nodejs-plugin: @pulumi-garm/garm, ready for npm install"
