#!/usr/bin/env bash
# `npm run test:hermes`: installs (or reuses) the pinned hermes-agent in the project's venv
# (scripts/hermes-venv.sh), then runs the contract suite against the real Hermes
# (test/hermes-real/vitest.config.ts). Fails, never skips, when Hermes cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bin="$(scripts/hermes-venv.sh | tail -n 1)"
export AGENT_BRIDGE_HERMES_BIN="$bin"
export AGENT_BRIDGE_HERMES_VERSION="$(basename "$(dirname "$(dirname "$bin")")")"
echo "== hermes-agent ${AGENT_BRIDGE_HERMES_VERSION} ready in $(( $(date +%s) - start )) s; running the contract suite against it"
exec npx vitest run --config test/hermes-real/vitest.config.ts "$@"
