#!/usr/bin/env bash
# A release tarball that runs on a Debian machine without Swift: the Swift runtime and Foundation are linked
# statically; the C libraries it still needs (listed in DEPENDENCIES, with their Debian packages) come from apt.
# Usage: bash scripts/release.sh [VERSION]  ->  dist/redeem-VERSION-linux-ARCH.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
arch="$(uname -m)"
name="redeem-$version-linux-$arch"
bash scripts/system-deps.sh pkg-config libqrencode-dev libcurl4-openssl-dev libsqlite3-dev
swift build -c release --product redeem --static-swift-stdlib
bin="$(swift build -c release --show-bin-path)"
rm -rf "dist/$name" && mkdir -p "dist/$name/bin"
cp "$bin/redeem" "dist/$name/bin/"
# Templates and the OpenAPI document: Bundle.module looks for them beside the executable.
cp -R "$bin/redeem_RedeemServer.resources" "dist/$name/bin/"
cp -R LICENSE NOTICE README.md deploy "dist/$name/"
mkdir -p "dist/$name/docs" && cp docs/deploy.md docs/errors.md "dist/$name/docs/"
{
  echo "# The shared libraries bin/redeem links directly, and the Debian packages that provide them (apt-get install …);"
  echo "# apt brings what those need in turn."
  readelf -d "dist/$name/bin/redeem" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r lib; do
    path=$(ldd "dist/$name/bin/redeem" | awk -v l="$lib" '$1 == l { print $3 }')
    package=$( { [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || true; } | head -1 | cut -d: -f1)
    echo "$lib ${package:-(the C runtime)}"
  done
} > "dist/$name/DEPENDENCIES"
if ldd "dist/$name/bin/redeem" | grep -Eq 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime'; then
  echo "release: the binary still loads the Swift runtime:" >&2; ldd "dist/$name/bin/redeem" >&2; exit 1
fi
tar -C dist -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
