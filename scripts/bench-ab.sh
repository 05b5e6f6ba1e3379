#!/usr/bin/env bash
# Compares builds on this machine, whose pace moves by a third from one
# quarter hour to the next: each round runs every build once, one after the
# other, so all of them see the same minutes; then min / median / max per build,
# and each build's round-by-round ratio to the first.
#
#   scripts/bench-ab.sh [--rounds N] [--page] [--profile NAME] [--contend] BUILD... [-- BENCH FLAGS]
#
# A BUILD is a copy of a `shepherd` binary (the CLI), or with --page of a
# `page_bench` example binary. Build one per commit, e.g. in a worktree:
#   git worktree add /tmp/base <commit>
#   (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target cargo build --release -p shepherd-cli)
#   cp /tmp/base-target/release/shepherd /tmp/shepherd-base
#   cargo build --release -p shepherd-cli && cp target/release/shepherd /tmp/shepherd-new
#   scripts/bench-ab.sh --rounds 10 /tmp/shepherd-base /tmp/shepherd-new -- --mix zipf
# Without --page each run is `BUILD bench --converge-only --profile
# NAME FLAGS` (NAME: default-scheduler unless --profile says) and the figure
# is its converge time; with --page it
# is `BUILD 5000 30 NAME` with FIRST_TICK_ONLY=1 (page_bench's
# first tick, the engine's work in the page's "Big cluster"). The page's own
# figure in Chromium: tests/browser/perf.mjs with SHEPHERD_WEB_ROOT set to a
# copy of each build's dist/, alternated the same way.
# --contend makes the machine's slow phase on purpose: the machine's slow
# minutes are its memory system's (a loop that stays in registers keeps its
# pace through them), so a neighbour copying two 256 MiB buffers back and
# forth on the second CPU, with every run on the first, slows a quiet
# machine's runs as they do (by 5-60% in three tries: builds are still
# compared within one set). It needs two CPUs and taskset.
set -euo pipefail

rounds=8
page=0
contend=0
pin=()
profile=default-scheduler
builds=()
flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --page) page=1; shift ;;
    --profile) profile="$2"; shift 2 ;;
    --contend) contend=1; shift ;;
    --) shift; flags=("$@"); break ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) builds+=("$1"); shift ;;
  esac
done
[ ${#builds[@]} -ge 1 ] || { echo "bench-ab.sh: give at least one build (see --help)" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*|0) echo "bench-ab.sh: --rounds takes a positive number" >&2; exit 2 ;; esac
for b in "${builds[@]}"; do
  [ -x "$b" ] || { echo "bench-ab.sh: $b is not an executable build" >&2; exit 2; }
done

if [ "$contend" = 1 ]; then
  command -v taskset > /dev/null || { echo "bench-ab.sh: --contend needs taskset" >&2; exit 2; }
  [ "$(nproc)" -ge 2 ] || { echo "bench-ab.sh: --contend needs two CPUs" >&2; exit 2; }
  taskset -c 1 python3 -c '
a = bytearray(1 << 28)
b = bytearray(1 << 28)
while True:
    b[:] = a
    a[:] = b
' &
  neighbour=$!
  trap 'kill "$neighbour" 2> /dev/null' EXIT
  pin=(taskset -c 0)
  sleep 1
fi

# One run of build $1: its figure in milliseconds.
run_once() {
  if [ "$page" = 1 ]; then
    FIRST_TICK_ONLY=1 "${pin[@]}" "$1" 5000 30 "$profile" "${flags[@]}" |
      sed -n 's/.*first tick \([0-9.]*\) ms.*/\1/p'
  else
    "${pin[@]}" "$1" bench --converge-only --profile "$profile" "${flags[@]}" |
      awk '/^converge/ { for (i = 1; i <= NF; i++) if ($i ~ /ms$/) { sub(/ms$/, "", $i); print $i; exit } }'
  fi
}

# Each build's figures in round order (the order within a round alternates,
# so a drift of the machine's pace during a round favours no build).
declare -A times
n=${#builds[@]}
for ((r = 1; r <= rounds; r++)); do
  declare -A this=()
  for ((j = 0; j < n; j++)); do
    if ((r % 2)); then b="${builds[j]}"; else b="${builds[n - 1 - j]}"; fi
    t="$(run_once "$b")"
    [ -n "$t" ] || { echo "bench-ab.sh: $b printed no figure" >&2; exit 1; }
    this[$b]="$t"
  done
  for b in "${builds[@]}"; do
    times[$b]="${times[$b]:-} ${this[$b]}"
  done
done

echo "$rounds rounds, $([ "$page" = 1 ] && echo "page_bench first tick ($profile)" || echo "bench --converge-only --profile $profile ${flags[*]}")$([ "$contend" = 1 ] && echo ", beside a streaming neighbour") (ms):"
for b in "${builds[@]}"; do
  printf '%s\n' ${times[$b]} | sort -n | awk -v name="$b" '
    { v[NR] = $1 }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "  %-40s min %7.1f  median %7.1f  max %7.1f\n", name, v[1], med, v[NR]
    }'
done
# Paired: each build against the first, round by round (the same minutes),
# which the machine's swings between rounds do not blur.
base="${builds[0]}"
for b in "${builds[@]:1}"; do
  paste <(printf '%s\n' ${times[$base]}) <(printf '%s\n' ${times[$b]}) |
    awk '{ printf "%.6f %d\n", $2 / $1, ($2 < $1) }' | sort -n | awk -v name="$b" '
    { r[NR] = $1; faster += $2 }
    END {
      med = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
      printf "  %-40s against the first, round by round: ratio median %.3f (%.3f-%.3f), faster in %d of %d\n", name, med, r[1], r[NR], faster, NR
    }'
done
