#!/usr/bin/env bash
# Installs the pinned hermes-agent from PyPI into a venv of this project's own and prints the path of
# its `hermes` executable on the last line of stdout. The venv is cached under .cache/hermes-venv/<version>
# (git-ignored; scripts/lib/venv.sh) and reused when its marker file says the install finished; the system Python's
# site-packages are never touched.
#
#   scripts/hermes-venv.sh            # install (or reuse) the pinned version
#   HERMES_AGENT_VERSION=0.18.2 scripts/hermes-venv.sh
#   HERMES_PYTHON=/path/to/python3.12 scripts/hermes-venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/venv.sh

# 0.19.0 is the newest release PyPI offers here (0.20.0 is not published there); it needs Python >= 3.11.
version="${HERMES_AGENT_VERSION:-0.19.0}"
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
cached_venv hermes hermes-agent "$version" hermes "$python" "hermes-agent==${version}" "aiohttp==${aiohttp_version}"
