#!/usr/bin/env bash
# RedeemKit from the repository: builds Tests/SDKInstall (an app package that depends on this repository by path and
# uses only RedeemKit), runs it, and checks that RedeemKit was the only module compiled besides the app's own: apps
# never build the server or its dependencies. (SwiftPM still resolves the whole graph and makes empty folders.)
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$PWD/.build-sdk-install"
swift build --package-path Tests/SDKInstall --scratch-path "$scratch" >/dev/null
"$scratch/debug/SDKInstall"
modules=$(cd "$scratch/debug/Modules" && ls *.swiftmodule | sort | tr '\n' ' ')
objects=$(find "$scratch/debug/" -name '*.o' -path '*.build/*' | sed 's|.*/debug/||; s|\.build/.*||' | sort -u | tr '\n' ' ')
if [ "$modules" != "RedeemKit.swiftmodule SDKInstall.swiftmodule " ] || [ "$objects" != "RedeemKit SDKInstall " ]; then
  echo "FAIL: adding the repository for RedeemKit compiled more: modules: $modules; objects from: $objects"
  exit 1
fi
echo "PASS: the repository gives RedeemKit alone (compiled: $objects)"
