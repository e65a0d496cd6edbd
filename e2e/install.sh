#!/usr/bin/env bash
# Installs the npm packages pinned in npm/package.json and npm/package-lock.json (the real Gemini CLI,
# firecrawl-mcp, the MCP TypeScript SDK, the MCP Inspector, mcp-remote, the MCP conformance suite and, on
# Linux, the Node.js 24 that runs the suite) into the project cache, by default .cache/e2e. A cache whose
# node_modules was installed from the same package.json and lock is reused without running npm.
set -euo pipefail

cache=${1:-.cache/e2e}
pins=$(cd "$(dirname "$0")/../npm" && pwd) # the pinned packages, with the firecrawl-mcp the binaries start

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool not found: install Node.js 20 or later" >&2; exit 1; }
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "e2e: Node.js $(node --version) is too old: the Gemini CLI needs 20 or later" >&2
  exit 1
fi

want=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -d' ' -f1)
stamp="$cache/.installed"
if [ -d "$cache/node_modules" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "e2e: pinned npm packages already in $cache"
  exit 0
fi

mkdir -p "$cache"
rm -f "$stamp"
cp "$pins/package.json" "$pins/package-lock.json" "$cache/"
start=$SECONDS
# npm ci installs exactly the lock; install scripts are not needed (the CLI's optional native modules,
# keytar and node-pty, are for interactive use).
(cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
# node-linux-<arch> links its node into node_modules/.bin, which the scenarios put first on the server's PATH:
# the Gemini CLI and npx would then run on it instead of the system's Node. Only the conformance suite runs
# it, by its path (e2e/conformance_test.go).
rm -f "$cache/node_modules/.bin/node"
echo "$want" > "$stamp"
echo "e2e: installed the pinned npm packages into $cache in $((SECONDS - start))s"
