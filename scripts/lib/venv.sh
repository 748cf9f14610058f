# Sourced by the venv scripts (hermes-venv.sh, a2a-venv.sh): a pinned PyPI install in a venv of the
# project's own under .cache/<dir>-venv/<version> (git-ignored), reused when its marker says the
# install finished. The system Python's site-packages are never touched.
#
#   cached_venv DIR PACKAGE VERSION EXE PYTHON PIP_SPEC...
# prints the path of the venv's EXE (bin/EXE) on the last line of stdout; progress goes to stderr.
cached_venv() {
  local dir="$1" name="$2" version="$3" exe="$4" python="$5"
  shift 5
  local venv=".cache/${dir}-venv/${version}"
  local marker="${venv}/.installed"
  if [[ -f "$marker" && -x "${venv}/bin/${exe}" ]]; then
    echo "== ${name} ${version}: cached venv ${venv}" >&2
    echo "$(pwd)/${venv}/bin/${exe}"
    return 0
  fi
  echo "== ${name} ${version}: creating ${venv} with $("$python" --version 2>&1)" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  local start
  start=$(date +%s)
  "$python" -m venv "$venv"
  # --disable-pip-version-check: no extra request to PyPI for pip's own version.
  "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$@" >&2
  "${venv}/bin/python" -c "import importlib.metadata as m; print(\"${name}\", m.version(\"${name}\"))" >&2
  echo "$version" > "$marker"
  echo "== ${name} ${version}: installed in $(( $(date +%s) - start )) s" >&2
  echo "$(pwd)/${venv}/bin/${exe}"
}
