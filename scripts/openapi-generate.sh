#!/usr/bin/env bash
# Generates Swift from the OpenAPI document (the source of truth) with apple/swift-openapi-generator: the server's
# types and handler protocol into Sources/RedeemServer/API/Generated (config.yaml), and the CLI's typed admin client
# into Sources/redeem/API/Generated (cli-config.yaml). The output is committed, so a normal build never compiles the
# generator.
#   scripts/openapi-generate.sh          write the generated files
#   scripts/openapi-generate.sh --check  fail if the committed files differ from what the document generates
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tool="$root/scripts/openapi-generator"
document="$root/Sources/RedeemServer/Resources/openapi.yaml"
swift build --package-path "$tool" --scratch-path "$root/.build-openapi-generator" --product swift-openapi-generator -q
generator="$root/.build-openapi-generator/debug/swift-openapi-generator"
stale=0
# generate CONFIG OUT: writes OUT, or with --check compares it with a fresh generation.
generate() {
    local config="$1" out="$2" target="$2"
    if [[ "${check:-}" == 1 ]]; then target="$(mktemp -d)"; fi
    mkdir -p "$target"
    rm -f "$target"/*.swift
    "$generator" generate "$document" --config "$config" --output-directory "$target" >/dev/null 2>"$target/.log" \
        || { cat "$target/.log" >&2; exit 1; }
    rm -f "$target/.log"
    if [[ "${check:-}" == 1 ]]; then
        if ! diff -r -q "$out" "$target" >/dev/null; then
            diff -r "$out" "$target" | head -40 >&2
            echo "${out#"$root"/} is stale: run scripts/openapi-generate.sh and commit the result" >&2
            stale=1
        fi
        rm -rf "$target"
    fi
}
if [[ "${1:-}" == "--check" ]]; then check=1; fi
generate "$tool/config.yaml" "$root/Sources/RedeemServer/API/Generated"
generate "$tool/cli-config.yaml" "$root/Sources/redeem/API/Generated"
if [[ "${check:-}" == 1 ]]; then
    [[ $stale == 0 ]] || exit 1
    echo "generated API code is up to date"
fi
