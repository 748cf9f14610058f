#!/usr/bin/env bash
# Runs a command while N busy loops hold the machine's cores (a loaded laptop, as users run the
# suite), then stops the loops and exits with the command's exit code.
#
#   scripts/with-busy-cores.sh N command [args...]     # N = 0 runs the command alone
#
# The loops are plain shell loops (`while :; do :; done`), niced to 0 like the command, started
# before it and killed when it ends, whatever way it ends.
set -euo pipefail
count="$1"
shift
pids=()
stop_loops() {
  if [ "${#pids[@]}" -gt 0 ]; then kill "${pids[@]}" 2>/dev/null || true; fi
}
trap stop_loops EXIT
for _ in $(seq 1 "$count"); do
  sh -c 'while :; do :; done' &
  pids+=("$!")
done
if [ "$count" -gt 0 ]; then echo "== $count busy loop(s) holding the cores: ${pids[*]}"; fi
set +e
"$@"
code=$?
set -e
exit "$code"
