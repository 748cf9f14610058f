#!/usr/bin/env bash
# Installs the pinned Python A2A SDK (`a2a-sdk`, the A2A project's own client) from PyPI into a venv
# of this project's own and prints the path of its python on the last line of stdout. Cached under
# .cache/a2a-venv/<version> (git-ignored) and reused when its marker says the install finished; the
# system Python's site-packages are never touched. Used by `npm run test:a2a` (scripts/a2a-test.sh).
#
#   scripts/a2a-venv.sh                 # install (or reuse) the pinned version
#   A2A_SDK_VERSION=1.2.3 scripts/a2a-venv.sh
#   A2A_PYTHON=/path/to/python3.12 scripts/a2a-venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# 1.3.0: the newest release on PyPI here, speaking A2A 1.0 (JSON-RPC binding); needs Python >= 3.10.
version="${A2A_SDK_VERSION:-1.3.0}"
python="${A2A_PYTHON:-python3}"

venv=".cache/a2a-venv/${version}"
marker="${venv}/.installed"
if [[ -f "$marker" && -x "${venv}/bin/python" ]]; then
  echo "== a2a-sdk ${version}: cached venv ${venv}" >&2
  echo "$(pwd)/${venv}/bin/python"
  exit 0
fi

echo "== a2a-sdk ${version}: creating ${venv} with $("$python" --version 2>&1)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
start=$(date +%s)
"$python" -m venv "$venv"
# --disable-pip-version-check: no extra request to PyPI for pip's own version.
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "a2a-sdk==${version}" >&2
"${venv}/bin/python" -c "import importlib.metadata as m; print(\"a2a-sdk\", m.version(\"a2a-sdk\"))" >&2
echo "$version" > "$marker"
echo "== a2a-sdk ${version}: installed in $(( $(date +%s) - start )) s" >&2
echo "$(pwd)/${venv}/bin/python"
