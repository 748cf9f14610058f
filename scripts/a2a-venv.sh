#!/usr/bin/env bash
# Installs the pinned Python A2A SDK (`a2a-sdk`, the A2A project's own client) from PyPI into a venv
# of this project's own and prints the path of its python on the last line of stdout
# (.cache/a2a-venv/<version>, scripts/lib/venv.sh). Used by `npm run test:a2a` (a2a-test.sh).
#
#   scripts/a2a-venv.sh                 # install (or reuse) the pinned version
#   A2A_SDK_VERSION=1.2.3 scripts/a2a-venv.sh
#   A2A_PYTHON=/path/to/python3.12 scripts/a2a-venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/venv.sh

# 1.3.0: the newest release on PyPI here, speaking A2A 1.0 (JSON-RPC binding); needs Python >= 3.10.
version="${A2A_SDK_VERSION:-1.3.0}"
cached_venv a2a a2a-sdk "$version" python "${A2A_PYTHON:-python3}" "a2a-sdk==${version}"
