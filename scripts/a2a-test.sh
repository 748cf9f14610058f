#!/usr/bin/env bash
# `npm run test:a2a`: installs (or reuses) the pinned Python a2a-sdk in the project's venv
# (scripts/a2a-venv.sh), then runs the A2A suite against both real clients (test/a2a/vitest.config.ts).
# Fails, never skips, when the SDK cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
python="$(scripts/a2a-venv.sh | tail -n 1)"
export AGENT_BRIDGE_A2A_PYTHON="$python"
echo "== a2a-sdk ready in $(( $(date +%s) - start )) s; running the A2A suite against it and @a2a-js/sdk"
exec npx vitest run --config test/a2a/vitest.config.ts "$@"
