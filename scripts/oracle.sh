#!/usr/bin/env bash
# The differential check against Kubernetes' own code (docs/oracle.md):
# builds the oracle (oracle/, Go; the Go build cache makes a second build
# take seconds) and the driver, then runs these checks:
#   1. scheduling cases: SHEPHERD_FUZZ_OPS of them (default 2000) from
#      SHEPHERD_ORACLE_SEED (default 1), compared verdict by verdict;
#   2. the pure functions (quantities, names, selectors, tolerations,
#      requests, rollout arithmetic) from the same seed;
#   3. the known deviations pinned in oracle/driver/tests/deviations.rs,
#      with Kubernetes' side asked of the oracle;
#   4. Cluster Autoscaler's template-node check: SHEPHERD_ORACLE_AUTOSCALE
#      cases (default a quarter of SHEPHERD_FUZZ_OPS), each a scheduling
#      case with a node group's template node (and DaemonSets whose pods a
#      new node would run): the autoscaler's verdict (fits, or the filter
#      and its reasons) against the scheduler's filters on that snapshot;
#   5. the exports of every example in tests/manifests/ and of random
#      workloads (plain, --kwok, --scheduler-config) through the API
#      server's defaulting and validation.
# Each mismatch is printed with its seed and a manifest that reproduces it;
# the last line is "N passed, N failed", and the exit status is 1 on any
# mismatch.
#
#   scripts/oracle.sh                               # the CI size
#   SHEPHERD_FUZZ_OPS=100000 scripts/oracle.sh      # a sweep
#   SHEPHERD_ORACLE_AVOID=none scripts/oracle.sh    # every known deviation too
#
# SHEPHERD_ORACLE_AVOID lists the known deviation classes whose inputs the
# generator leaves out (default: all of them, docs/oracle.md's table);
# SHEPHERD_ORACLE_ONLY=cases|funcs|deviations|autoscale|exports runs one check.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"

# Native builds must not see the wasm environment.
unset RUSTC RUSTDOC CARGO_TARGET_DIR

: "${SHEPHERD_FUZZ_OPS:=2000}"
: "${SHEPHERD_ORACLE_SEED:=1}"
: "${SHEPHERD_ORACLE_AVOID:=all}"
export SHEPHERD_FUZZ_OPS SHEPHERD_ORACLE_SEED SHEPHERD_ORACLE_AVOID
ONLY="${SHEPHERD_ORACLE_ONLY:-}"

ORACLE="$SHEPHERD_ROOT/target/oracle/oracle"
command -v go >/dev/null 2>&1 || die "go not found; the oracle is a Go program (Go 1.26, see docs/oracle.md)"

say "building the oracle (oracle/, k8s.io/kubernetes v1.37.2)"
t0=$SECONDS
mkdir -p "$(dirname "$ORACLE")"
(cd oracle && go build -trimpath -o "$ORACLE" .) || die "the oracle did not build"
note "$((SECONDS - t0)) s"

say "building the driver and the shepherd binary"
t0=$SECONDS
cargo build --release -q -p shepherd-oracle -p shepherd-cli || die "the driver did not build"
note "$((SECONDS - t0)) s"
DRIVER="$SHEPHERD_ROOT/target/release/shepherd-oracle"
SHEPHERD="$SHEPHERD_ROOT/target/release/shepherd"

PASSED=0
FAILED=0
run() {
  local name="$1"; shift
  say "$name"
  local out rc line
  out="$(mktemp)"
  "$@" | tee "$out"
  rc=${PIPESTATUS[0]}
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)"
  rm -f "$out"
  if [ -z "$line" ]; then
    FAILED=$((FAILED + 1))
    printf '%s(no result line; exit %s)%s\n' "$_R" "$rc" "$_0"
    return
  fi
  PASSED=$((PASSED + ${line%% passed*}))
  local f="${line#*, }"
  FAILED=$((FAILED + ${f%% failed*}))
}

if [ -z "$ONLY" ] || [ "$ONLY" = cases ]; then
  run "scheduling cases: $SHEPHERD_FUZZ_OPS from seed $SHEPHERD_ORACLE_SEED (avoiding: $SHEPHERD_ORACLE_AVOID)" \
    "$DRIVER" --oracle "$ORACLE" cases
fi
if [ -z "$ONLY" ] || [ "$ONLY" = funcs ]; then
  run "pure functions from seed $SHEPHERD_ORACLE_SEED" "$DRIVER" --oracle "$ORACLE" funcs
fi
# The pinned deviations (oracle/driver/tests/deviations.rs), Kubernetes' side included.
deviations() {
  local out p f
  out="$(SHEPHERD_ORACLE="$ORACLE" cargo test --release -q -p shepherd-oracle --test deviations 2>&1)"
  printf '%s\n' "$out" | grep -v '^$'
  p="$(printf '%s\n' "$out" | sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' | tail -n 1)"
  f="$(printf '%s\n' "$out" | sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' | tail -n 1)"
  [ -n "$p" ] || { p=0; f=1; }
  echo "$p passed, $f failed"
}
if [ -z "$ONLY" ] || [ "$ONLY" = deviations ]; then
  run "the known deviations, pinned (both sides)" deviations
fi
if [ -z "$ONLY" ] || [ "$ONLY" = autoscale ]; then
  run "Cluster Autoscaler's template-node check: ${SHEPHERD_ORACLE_AUTOSCALE:-$((SHEPHERD_FUZZ_OPS / 4))} from seed $SHEPHERD_ORACLE_SEED" \
    "$DRIVER" --oracle "$ORACLE" autoscale
fi
if [ -z "$ONLY" ] || [ "$ONLY" = exports ]; then
  EXPORTS="$SHEPHERD_ROOT/target/oracle/exports"
  rm -rf "$EXPORTS"; mkdir -p "$EXPORTS"
  for f in tests/manifests/*; do
    b="$(basename "$f")"
    "$SHEPHERD" export "$f" >"$EXPORTS/$b.export.yaml" 2>/dev/null || note "shepherd export $f refused it (not an export failure)"
    "$SHEPHERD" export "$f" --kwok >"$EXPORTS/$b.kwok.yaml" 2>/dev/null || true
    "$SHEPHERD" export "$f" --scheduler-config >"$EXPORTS/$b.config.yaml" 2>/dev/null || true
  done
  for s in 1 2 3; do
    seed=$((SHEPHERD_ORACLE_SEED + s))
    "$SHEPHERD" export --seed "$seed" --nodes 6 --apps 5 >"$EXPORTS/random-$seed.yaml"
    "$SHEPHERD" export --seed "$seed" --nodes 6 --apps 5 --kwok >"$EXPORTS/random-$seed.kwok.yaml"
  done
  # Empty files (a source without a scheduler configuration) have nothing to check.
  find "$EXPORTS" -type f -empty -delete
  run "exports through the API server's validation" "$DRIVER" --oracle "$ORACLE" exports "$EXPORTS"/*
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
