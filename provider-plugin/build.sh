#!/usr/bin/env bash
# `make plugin`: builds the GARM resource plugin as a directory and a tarball that
# `pulumi plugin install resource garm <version> --file <either>` installs:
#   build/plugin/garm-v<version>/                         pulumi-resource-garm + node_modules (pulumi-garm, @pulumi/pulumi)
#   build/pulumi-resource-garm-v<version>-<os>-<arch>.tar.gz  the same, packed
# Needs `make build` first (the tarball of the package is packed from dist/) and node on the PATH of whoever runs Pulumi.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(node -p 'require("./package.json").version')"
pulumi_version="$(node -p 'require("./package.json").devDependencies["@pulumi/pulumi"]')"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m | sed -e 's/x86_64/amd64/' -e 's/aarch64/arm64/')"
dir="build/plugin/garm-v$version"
tarball="build/pulumi-resource-garm-v$version-$os-$arch.tar.gz"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$work" >/dev/null
rm -rf "$dir" && mkdir -p "$dir"
printf '{ "name": "pulumi-resource-garm", "private": true }\n' >"$dir/package.json"
# The npm cache serves what an earlier run fetched; the registry is asked only for what it lacks.
(cd "$dir" && npm install --prefer-offline --omit=dev --no-audit --no-fund --loglevel=error \
  "$work"/pulumi-garm-"$version".tgz "@pulumi/pulumi@$pulumi_version")
install -m 0755 provider-plugin/bin/pulumi-resource-garm "$dir/pulumi-resource-garm"
tar -czf "$tarball" -C "$dir" .
echo "$dir"
echo "$tarball"
