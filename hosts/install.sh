#!/usr/bin/env bash
# Installs the pinned host CLIs of hosts/package-lock.json into hosts/node_modules with `npm ci`,
# once per lockfile (a stamp keeps its hash), bounded in time.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "e2e-hosts: npm is not installed (apt-get install nodejs npm)" >&2; exit 1; }
stamp=node_modules/.kapi-e2e-lock
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e node_modules/.bin/claude ] && [ -e node_modules/.bin/codex ] && [ -e node_modules/opencode-linux-x64/bin/opencode ] && [ -e node_modules/.bin/copilot ] && [ -e node_modules/.bin/qwen ] && [ -e node_modules/.bin/gemini ] \
  && [ -e node_modules/@factory/cli-linux-x64/bin/droid ] && [ -e node_modules/@kilocode/cli-linux-x64/bin/kilo ]; then
  exit 0
fi
echo "e2e-hosts: installing the host CLIs pinned in hosts/package-lock.json (npm ci)"
# `npm ci` refuses a lock that lacks the packages of other platforms, which a registry that holds
# only some platforms' packages cannot give (Qwen Code's optional clipboard binaries, droid's and
# Kilo Code's binaries for other platforms): then
# `npm install` of the same pinned versions, the lock's entries kept.
timeout 600 npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
  || timeout 600 npm install --no-audit --no-fund --no-save --loglevel=error
echo "$want" > "$stamp"
