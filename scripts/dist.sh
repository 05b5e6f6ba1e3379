#!/usr/bin/env bash
# Build the self-contained static site into dist/ (index.html, www/, pkg/), relative paths only.
#
#   scripts/dist.sh
#
# Any static host can serve dist/ as is (wasm must be served as application/wasm).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"

scripts/setup.sh || exit 1
say "building the wasm package (wasm-pack build --release --target web)"
build_pkg || die "wasm-pack build failed"
say "assembling dist/"
assemble_dist || die "assembling dist/ failed"
(cd dist && find . -type f | sort | while read -r f; do printf '    %8s  %s\n' "$(stat -c %s "$f")" "${f#./}"; done)
say "dist/ is ready: serve it with any static server, e.g. node scripts/static-server.mjs --root dist"
