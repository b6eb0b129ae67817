#!/usr/bin/env bash
# Generates the JSON API's server types and handler protocol from the OpenAPI document (the source of truth) with
# apple/swift-openapi-generator, into Sources/RedeemServer/API/Generated. The output is committed, so a normal build
# never compiles the generator.
#   scripts/openapi-generate.sh          write the generated files
#   scripts/openapi-generate.sh --check  fail if the committed files differ from what the document generates
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tool="$root/scripts/openapi-generator"
out="$root/Sources/RedeemServer/API/Generated"
swift build --package-path "$tool" --scratch-path "$root/.build-openapi-generator" --product swift-openapi-generator -q
generator="$root/.build-openapi-generator/debug/swift-openapi-generator"
target="$out"
if [[ "${1:-}" == "--check" ]]; then target="$(mktemp -d)"; trap 'rm -rf "$target"' EXIT; fi
mkdir -p "$target"
rm -f "$target"/*.swift
"$generator" generate "$root/Sources/RedeemServer/Resources/openapi.yaml" --config "$tool/config.yaml" \
    --output-directory "$target" >/dev/null 2>"$target/.log" || { cat "$target/.log" >&2; exit 1; }
rm -f "$target/.log"
if [[ "${1:-}" == "--check" ]]; then
    if ! diff -r -q "$out" "$target" >/dev/null; then
        diff -r "$out" "$target" | head -40 >&2
        echo "Sources/RedeemServer/API/Generated is stale: run scripts/openapi-generate.sh and commit the result" >&2
        exit 1
    fi
    echo "generated API code is up to date"
fi
