#!/usr/bin/env bash
# Installs the npm packages pinned in packaging/package.json and packaging/package-lock.json (the MCP Bundle CLI,
# @anthropic-ai/mcpb) into the project cache, by default .cache/packaging. A cache whose node_modules was installed
# from the same package.json and lock is reused without running npm. GoReleaser runs it first (.goreleaser.yaml).
set -euo pipefail

cache=${1:-.cache/packaging}
here=$(cd "$(dirname "$0")" && pwd)

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "packaging: $tool not found: install Node.js 20 or later" >&2; exit 1; }
done

sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; } # macOS has only shasum
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256 | cut -d' ' -f1)
stamp="$cache/.installed"
if [ -d "$cache/node_modules" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi

mkdir -p "$cache"
rm -f "$stamp"
cp "$here/package.json" "$here/package-lock.json" "$cache/"
(cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" > "$stamp"
echo "packaging: installed the pinned npm packages into $cache"
