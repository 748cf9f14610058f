#!/usr/bin/env bash
# Installs the peers that `npm run bench:peers` (scripts/bench-peers.ts) measures the bridge against,
# into a git-ignored cache (.cache/peers, or $PEERS_CACHE_DIR), never into the project's dependencies:
#   venv/       FastMCP from PyPI in a venv of its own (python3 -m venv)
#   npm/        @modelcontextprotocol/server-everything (the reference server) and undici (the bench's
#               client), from npm, with a package.json of their own
#   bin/        mcpgo-echo and gosdk-echo: the echo servers in scripts/peers/{mcp-go,go-sdk}, built with
#               `go build` against mcp-go and the official Go SDK from the Go module proxy
# Each part is stamped with what it was built from, so a second run with nothing changed does nothing.
# Needs python3 (>= 3.10, for FastMCP), go (>= 1.25) and npm on PATH.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${PEERS_CACHE_DIR:-$ROOT/.cache/peers}"
FASTMCP_VERSION="${PEERS_FASTMCP_VERSION:-4.2.3}"
EVERYTHING_VERSION="${PEERS_EVERYTHING_VERSION:-2026.8.31}"
UNDICI_VERSION="${PEERS_UNDICI_VERSION:-7.30.2}"
PYTHON="${PEERS_PYTHON:-python3}"
mkdir -p "$CACHE"
started=$SECONDS

# ── FastMCP in a venv.
venv="$CACHE/venv"
if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "fastmcp==$FASTMCP_VERSION" && -x "$venv/bin/python" ]]; then
  echo "peers-install: fastmcp $FASTMCP_VERSION is up to date"
else
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  # --disable-pip-version-check: no extra request to PyPI for pip's own version.
  timeout 900 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "fastmcp==$FASTMCP_VERSION"
  echo "fastmcp==$FASTMCP_VERSION" >"$venv/.stamp"
  echo "peers-install: fastmcp $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("fastmcp"))') installed"
fi

# ── server-everything and the client, from npm (their own package.json, not the project's).
npmdir="$CACHE/npm"
want="everything=$EVERYTHING_VERSION undici=$UNDICI_VERSION"
if [[ -f "$npmdir/.stamp" && "$(cat "$npmdir/.stamp")" == "$want" && -d "$npmdir/node_modules/undici" ]]; then
  echo "peers-install: server-everything $EVERYTHING_VERSION and undici $UNDICI_VERSION are up to date"
else
  rm -rf "$npmdir"
  mkdir -p "$npmdir"
  echo '{ "name": "agent-bridge-peers", "private": true }' >"$npmdir/package.json"
  (cd "$npmdir" && timeout 900 npm install --no-audit --no-fund --loglevel=warn --save-exact \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" "undici@$UNDICI_VERSION")
  echo "$want" >"$npmdir/.stamp"
  echo "peers-install: server-everything $EVERYTHING_VERSION and undici $UNDICI_VERSION installed"
fi

# ── The Go echo servers: sources copied into the cache (go.sum is written there, not in the repo).
mkdir -p "$CACHE/bin"
build_go() {
  local name="$1" out="$2" src="$ROOT/scripts/peers/$1" dest="$CACHE/go/$1" stamp
  stamp="$(cat "$src/go.mod" "$src/main.go" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" && -x "$CACHE/bin/$out" ]]; then
    echo "peers-install: $out is up to date"
    return
  fi
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$src/go.mod" "$src/main.go" "$dest/"
  (cd "$dest" && GOFLAGS=-mod=mod timeout 900 go build -o "$CACHE/bin/$out" .)
  echo "$stamp" >"$dest/.stamp"
  echo "peers-install: $out built ($(grep -E '^require' "$src/go.mod" | cut -d' ' -f2-))"
}
build_go mcp-go mcpgo-echo
build_go go-sdk gosdk-echo

echo "peers-install: done in $((SECONDS - started)) s (cache: $CACHE)"
