#!/usr/bin/env bash
# `make plugin`: builds the GARM resource plugin as a directory and the release archives, named as the Pulumi CLI asks a
# release for them (pulumi-resource-<name>-v<version>-<os>-<arch>.tar.gz), that the schema's pluginDownloadURL points at
# and `pulumi plugin install resource garm <version> --file <archive or directory>` installs:
#   build/plugin/garm-v<version>/                             pulumi-resource-garm + node_modules (pulumi-garm, @pulumi/pulumi)
#   build/pulumi-resource-garm-v<version>-<os>-<arch>.tar.gz  the same, packed, for linux and darwin on amd64 and arm64
# The plugin is a Node program and nothing in its node_modules is native (checked below), so the four archives hold the
# same files; node from the PATH of whoever runs Pulumi runs it. The last line printed is the archive for this machine.
# Needs `make build` first (the tarball of the package is packed from dist/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(node -p 'require("./package.json").version')"
pulumi_version="$(node -p 'require("./package.json").devDependencies["@pulumi/pulumi"]')"
here_os="$(uname -s | tr '[:upper:]' '[:lower:]')"
here_arch="$(uname -m | sed -e 's/x86_64/amd64/' -e 's/aarch64/arm64/')"
dir="build/plugin/garm-v$version"
archive() { echo "build/pulumi-resource-garm-v$version-$1-$2.tar.gz"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$work" >/dev/null
rm -rf "$dir" && mkdir -p "$dir"
printf '{ "name": "pulumi-resource-garm", "private": true }\n' >"$dir/package.json"
# The npm cache serves what an earlier run fetched; the registry is asked only for what it lacks. No install scripts and
# no optional dependencies: ssh2 would build an optional crypto addon (and pull cpu-features) for this machine only, and
# runs on its pure JavaScript code without them.
(cd "$dir" && npm install --prefer-offline --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error \
  "$work"/pulumi-garm-"$version".tgz "@pulumi/pulumi@$pulumi_version")
install -m 0755 provider-plugin/bin/pulumi-resource-garm "$dir/pulumi-resource-garm"

# One archive serves every os/arch only while no dependency ships a compiled addon (a binding.gyp alone is source that
# no script built).
native="$(find "$dir/node_modules" -name '*.node' -print | head -5)"
if [[ -n "$native" ]]; then
  echo "build.sh: native code in the plugin's node_modules, so one archive cannot serve every os/arch:" >&2
  echo "$native" >&2
  exit 1
fi

rm -f build/pulumi-resource-garm-v"$version"-*.tar.gz
# Sorted names, fixed owner and time: the same inputs give the same archive bytes.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - -C "$dir" . | gzip -n >"$work/plugin.tar.gz"
for os in linux darwin; do
  for arch in amd64 arm64; do
    [[ "$os-$arch" == "$here_os-$here_arch" ]] && continue
    cp "$work/plugin.tar.gz" "$(archive "$os" "$arch")"
    echo "$(archive "$os" "$arch")"
  done
done
echo "$dir"
cp "$work/plugin.tar.gz" "$(archive "$here_os" "$here_arch")"
echo "$(archive "$here_os" "$here_arch")"
