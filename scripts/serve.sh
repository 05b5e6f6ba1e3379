#!/usr/bin/env bash
# Build the page and serve it on loopback.
#
#   scripts/serve.sh [--port N] [--host ADDR] [--dist] [--fast]
#
# Serves the repository root (index.html, www/, pkg/) by default, or dist/ with --dist.
# --fast skips wasm-opt (quicker rebuilds, a bigger module). Port 0 picks a free port.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"

PORT=8000 HOST=127.0.0.1 ROOT_DIR="$SHEPHERD_ROOT"
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="${2:?--port needs a number}"; shift 2 ;;
    --port=*) PORT="${1#*=}"; shift ;;
    --host) HOST="${2:?--host needs an address}"; shift 2 ;;
    --dist) ROOT_DIR="$SHEPHERD_ROOT/dist"; shift ;;
    --fast) export SHEPHERD_WASM_OPT=0; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown option $1 (try --help)" ;;
  esac
done

scripts/setup.sh || exit 1
say "building the wasm package (wasm-pack build --release --target web)"
build_pkg || die "wasm-pack build failed"
if [ "$ROOT_DIR" != "$SHEPHERD_ROOT" ]; then assemble_dist || die "assembling dist/ failed"; fi
note "pkg/shepherd_web_bg.wasm: $(stat -c %s pkg/shepherd_web_bg.wasm) bytes"
exec node scripts/static-server.mjs --root "$ROOT_DIR" --host "$HOST" --port "$PORT"
