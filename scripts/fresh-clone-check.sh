#!/usr/bin/env bash
# A new user's first steps on a machine of this kind: clone the repo into a temp dir and run the
# README's two commands there, with Chromium absent at the start; the second (the test line, read
# from the README as written) runs three times in a row with two busy loops holding both cores, as
# on a loaded laptop, and each run's time and result is printed.
#
#   scripts/fresh-clone-check.sh [REPO [REF]]    # default: this repo, its HEAD (committed state only)
#
# As root with unshare(1), the script re-runs itself in a private mount namespace where Debian's
# Chromium (/usr/lib/chromium) and apt's package cache are empty tmpfs mounts, so the test command
# has to bring the browser itself; the machine's own files are untouched. Without root the machine
# is used as it is (say so in what you report). npm gets an empty cache of its own, so every
# package comes from the registry. Each step is timed; the exit code is the first failure's.
#
# Environment: FRESH_CLONE_KEEP=1 keeps the clone; FRESH_CLONE_TIMEOUT (seconds, default 9000)
# bounds the whole run; FRESH_CLONE_RUNS (default 3) is how many times the test line runs;
# FRESH_CLONE_BUSY (default 2) how many busy loops hold the cores meanwhile (0: a quiet run).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:-$here}"
ref="${2:-HEAD}"

if [ -z "${FRESH_CLONE_INNER:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
  exec timeout "${FRESH_CLONE_TIMEOUT:-9000}" unshare --mount --propagation private \
    env FRESH_CLONE_INNER=1 bash "$0" "$repo" "$ref"
fi

stamp() { date -u +%H:%M:%S; }
step_start=0
begin() { step_start=$(date +%s); echo "== $(stamp) $*"; }
end() { echo "== $(stamp) done in $(( $(date +%s) - step_start )) s"; }

if [ -n "${FRESH_CLONE_INNER:-}" ]; then
  # Hide Chromium and the .deb files apt already downloaded: empty directories over them.
  for dir in /usr/lib/chromium /var/cache/apt/archives; do
    if [ -d "$dir" ]; then mount -t tmpfs -o size=2g tmpfs "$dir"; fi
  done
  mkdir -p /var/cache/apt/archives/partial
  echo "== Chromium hidden in a private mount namespace"
else
  echo "== not root (or no unshare): Chromium is not hidden; the machine is used as it is"
fi
if /usr/bin/chromium --headless --no-sandbox --version >/dev/null 2>&1; then
  echo "== Chromium runs at the start"
else
  echo "== Chromium absent at the start"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/fresh-clone-XXXXXX")"
cleanup() {
  if [ -n "${daemon_pid:-}" ]; then kill "$daemon_pid" 2>/dev/null || true; fi
  if [ "${FRESH_CLONE_KEEP:-}" = 1 ]; then echo "== kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
export npm_config_cache="$work/npm-cache"

total_start=$(date +%s)
begin "git clone $repo ($ref)"
commit="$(git -C "$repo" rev-parse "$ref")"
git clone --quiet --no-checkout "$repo" "$work/agent-bridge"
git -C "$work/agent-bridge" checkout --quiet "$commit"
cd "$work/agent-bridge"
echo "   commit $commit"
end

# The README's first command: npm install && npm start. The daemon serves until it is stopped, so it
# runs in the background (on a free port, AGENT_BRIDGE_BRIDGE_PORT=0), is asked for /healthz, then
# stopped with SIGTERM, which must end it with exit code 0.
begin "npm install"
npm install --no-audit --no-fund
end
begin "npm start (until /healthz is ready, then SIGTERM)"
AGENT_BRIDGE_BRIDGE_PORT=0 npm start >"$work/start.log" 2>&1 &
daemon_pid=$!
url=""
for _ in $(seq 1 120); do
  url="$(grep -o 'listening on http://[0-9.:]*' "$work/start.log" | head -1 | sed 's/listening on //')" || true
  if [ -n "$url" ] && curl -fsS "$url/healthz" >"$work/health.json" 2>/dev/null; then break; fi
  url=""
  sleep 1
done
if [ -z "$url" ]; then
  echo "!! the daemon did not become ready within 120 s"; cat "$work/start.log"; exit 1
fi
echo "   $url/healthz: $(cat "$work/health.json")"
sed -n '1,12p' "$work/start.log" | sed 's/^/   | /'
# npm start runs the daemon as its child (npm → sh → node): SIGTERM goes to the daemon itself, as
# a service manager would send it; npm then exits with the daemon's exit code, which must be 0.
# The daemon is the descendant running `agent-bridge.js serve` (an esbuild helper may run under it).
leaf=""
queue="$daemon_pid"
while [ -n "$queue" ] && [ -z "$leaf" ]; do
  next=""
  for pid in $queue; do
    case "$(ps -o args= -p "$pid" 2>/dev/null)" in
      node*agent-bridge.js\ serve*) leaf="$pid"; break ;;
    esac
    next="$next $(pgrep -P "$pid" | tr '\n' ' ')"
  done
  queue="$(echo $next)"
done
if [ -z "$leaf" ]; then echo "!! no daemon process under npm start"; exit 1; fi
echo "   SIGTERM to the daemon (pid $leaf)"
kill -TERM "$leaf"
set +e
wait "$daemon_pid"
code=$?
set -e
daemon_pid=""
if [ "$code" != 0 ]; then echo "!! npm start ended with exit code $code after SIGTERM"; tail -20 "$work/start.log"; exit 1; fi
end

# The README's second command, exactly as the README writes it (the second line of its first `sh`
# block, less the comment), FRESH_CLONE_RUNS times in a row under FRESH_CLONE_BUSY busy loops.
test_line="$(awk '/^```sh$/ {inside=1; next} inside && /^```$/ {exit} inside {print}' README.md | sed -n 2p | sed 's/ *#.*$//')"
case "$test_line" in
  "npm install && npm test"*) ;;
  *) echo "!! the README's second command is not the test line: '$test_line'"; exit 1 ;;
esac
runs="${FRESH_CLONE_RUNS:-3}"
busy="${FRESH_CLONE_BUSY:-2}"
results=()
first_failure=0
for run in $(seq 1 "$runs"); do
  begin "run $run of $runs, $busy busy loop(s): $test_line"
  echo "   load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  set +e
  bash "$here/scripts/with-busy-cores.sh" "$busy" bash -c "$test_line"
  code=$?
  set -e
  took=$(( $(date +%s) - step_start ))
  verdict="passed"
  if [ "$code" != 0 ]; then verdict="FAILED (exit $code)"; if [ "$first_failure" = 0 ]; then first_failure=$code; fi; fi
  results+=("run $run: $verdict in $took s (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))")
  echo "== $(stamp) run $run: $verdict in $took s"
done

echo "== $(stamp) the test line, $runs run(s) with $busy busy loop(s), commit $commit:"
for line in "${results[@]}"; do echo "   $line"; done
if [ "$first_failure" != 0 ]; then echo "!! a run failed"; exit "$first_failure"; fi
echo "== $(stamp) all passed in $(( $(date +%s) - total_start )) s"
