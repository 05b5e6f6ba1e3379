#!/usr/bin/env bash
# The whole test suite, from a fresh machine: set-up, native tests, the no_std core,
# the wasm32 build of core, wasm tests in headless Chromium, the browser tests of the page, and
# the differential check against Kubernetes' own code (scripts/oracle.sh, 2,000 cases unless
# SHEPHERD_ORACLE_OPS says otherwise).
#
#   scripts/test.sh
#
# Exits non-zero if any stage fails; prints one summary line per stage at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"

T_ALL=$SECONDS
RESULTS=()
PASSED=0
FAILED=0
stage() {
  local name="$1"; shift
  local t0=$SECONDS rc
  printf '\n%s==== %s%s\n' "$_B" "$name" "$_0"
  "$@"; rc=$?
  local line
  if [ "$rc" = 0 ]; then
    PASSED=$((PASSED + 1)); line="$(printf 'PASS  %-44s %4ss' "$name" $((SECONDS - t0)))"
  else
    FAILED=$((FAILED + 1)); line="$(printf 'FAIL  %-44s %4ss  (exit %s)' "$name" $((SECONDS - t0)) "$rc")"
  fi
  RESULTS+=("$line")
  printf '%s\n' "$line"
  return "$rc"
}
summary() {
  printf '\n%s==== summary (%ss)%s\n' "$_B" $((SECONDS - T_ALL)) "$_0"
  printf '%s\n' "${RESULTS[@]}"
  printf 'stages: %s passed, %s failed\n' "$PASSED" "$FAILED"
}

# Native builds and tests must not see the wasm environment.
native() { ( unset RUSTC RUSTDOC CARGO_TARGET_DIR; "$@" ); }
# wasm builds and tests get it (scripts/lib.sh: shepherd_wasm_env).
wasm() { ( shepherd_wasm_env && "$@" ); }

browser_tests() {
  build_pkg && assemble_dist || return 1
  SHEPHERD_WEB_ROOT="$SHEPHERD_ROOT/dist" node --test tests/browser/
}

if ! stage "setup (scripts/setup.sh)" scripts/setup.sh; then
  summary; exit 1
fi
stage "native: cargo test --workspace" native cargo test --workspace
stage "no_std core: cargo test --no-default-features" native cargo test -p shepherd --no-default-features --lib
stage "wasm32 build of core (no_std)" wasm cargo build -p shepherd --no-default-features --target "$WASM_TARGET"
stage "wasm tests in headless Chromium (wasm-pack)" \
  wasm wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" web
stage "browser tests of the page (node --test)" browser_tests
stage "Kubernetes oracle (scripts/oracle.sh)" \
  native env SHEPHERD_FUZZ_OPS="${SHEPHERD_ORACLE_OPS:-2000}" scripts/oracle.sh
summary
[ "$FAILED" = 0 ]
