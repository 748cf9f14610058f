#!/usr/bin/env bash
# Installs the real MCP clients that `npm run test:clients` drives, into a git-ignored cache
# (.cache/clients, or $CLIENTS_CACHE_DIR), never into the project's own dependencies:
#   node22/  Node 22 from the npm registry's `node` package (the client tools need Node >= 22;
#            on the project's Node 20, npm quietly resolves an old Inspector without --header)
#   tools/   the conformance suite (0.1.x and the 0.2 pre-release), the MCP Inspector, Claude Code
#            and Codex, at the versions pinned in test/clients/tools/package-lock.json
# Each folder is installed with `npm install` over the lockfile kept in test/clients/tools/ and stamped
# with the lockfile's digest, so a second run with nothing changed does nothing. Debian's tmux, which
# Claude Code's interactive case runs in, is installed with apt-get as root when absent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CLIENTS_CACHE_DIR:-$ROOT/.cache/clients}"
SRC="$ROOT/test/clients/tools"
NODE22_VERSION="v22.23.3"

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

digest() { cat "$1/package.json" "$1/package-lock.json" | sha256sum | cut -d' ' -f1; }

# install_into SRC_DIR DEST_DIR: npm install (over the lockfile: `npm ci` refuses it for a Windows-only
# optional package the lockfile leaves out) from SRC_DIR's manifest and lockfile, unless already stamped.
install_into() {
  local from="$1" dest="$2" want
  want="$(digest "$from")"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$want" && -d "$dest/node_modules" ]]; then
    echo "clients-install: $(basename "$dest") is up to date"
    return
  fi
  local started=$SECONDS
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$from/package.json" "$from/package-lock.json" "$dest/"
  (cd "$dest" && timeout 900 npm install --no-audit --no-fund --loglevel=warn)
  echo "$want" >"$dest/.stamp"
  echo "clients-install: $(basename "$dest") installed in $((SECONDS - started)) s"
}

started=$SECONDS
# Claude Code's MCP tasks are on only in its interactive mode, which the suite drives in tmux
# (test/clients/support/tmux.ts): Debian's package, installed here as root when absent.
if ! command -v tmux >/dev/null 2>&1; then
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    echo "clients-install: installing tmux (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  else
    echo "clients-install: tmux is needed (Claude Code's interactive case); install Debian's tmux package" >&2
    exit 1
  fi
fi
install_into "$SRC/node22" "$CACHE/node22"
NODE22_BIN="$CACHE/node22/node_modules/node/bin"
got="$("$NODE22_BIN/node" --version)"
if [[ "$got" != "$NODE22_VERSION" ]]; then
  echo "clients-install: expected node $NODE22_VERSION in $NODE22_BIN, got $got" >&2
  exit 1
fi

# The tools install and run under Node 22: npm itself runs on the first `node` on PATH.
PATH="$NODE22_BIN:$PATH" install_into "$SRC" "$CACHE/tools"

BIN="$CACHE/tools/node_modules/.bin"
PATH="$NODE22_BIN:$PATH" bash -c "
  set -e
  echo \"node \$(node --version)\"
  echo \"claude \$('$BIN/claude' --version)\"
  echo \"codex \$('$BIN/codex' --version)\"
  echo \"inspector \$('$BIN/mcp-inspector' --cli --version)\"
"
echo "clients-install: done in $((SECONDS - started)) s (cache: $CACHE)"
