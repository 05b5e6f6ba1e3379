#!/usr/bin/env bash
# Issue 42's inputs at their full size, run natively under a memory cap: each
# must be refused or answered in under 1 s of CPU and 300 MB of resident
# memory. Prints, per input, the exit code, CPU and wall time, peak RSS and the
# first line the command printed to stderr (the refusal). The tests
# (tests/limits.rs, tests/cli.rs) hold the smallest versions; this is the size
# the issue measured.
#
#   scripts/limits-check.sh            # builds the release binary first
#   SHEPHERD_LIMITS_KEEP=1 scripts/limits-check.sh   # keeps the generated inputs
#
# The judgement is on CPU time (user + system), which a busy machine does not
# inflate; wall time is printed beside it. The cap (ulimit -v, 4 GiB of address
# space) stops a runaway before it takes the machine. Needs python3 (to write
# the inputs), mkfifo and GNU time (/usr/bin/time -v).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"

MAX_CPU_S=1.0
MAX_RSS_KB=$((300 * 1024))
CAP_KB=$((4 * 1024 * 1024))

command -v python3 >/dev/null || die "python3 is needed to write the inputs"
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed: apt-get install time"
say "building the release binary"
cargo build --release -q -p shepherd-cli || die "the build failed"
BIN="$SHEPHERD_ROOT/target/release/shepherd"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/shepherd-limits.XXXXXX")"
[ "${SHEPHERD_LIMITS_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
say "writing the inputs into $DIR"
python3 - "$DIR" <<'PY' || die "writing the inputs failed"
import os, sys
d = sys.argv[1]
def w(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)

# Row 1: 975 KB whose aliases repeat one 10,000-byte scalar (toward 33 GB).
w("row1-aliases.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: &a "
  + "x" * 10000 + "\n  l: [" + ",".join(["*a"] * 321000) + "]\n")
# Row 1, collections: aliases of a 1,000-null list, 20,000 times (20 million values).
w("row1-alias-collections.yaml", "a: &a [" + ",".join(["~"] * 1000) + "]\nl: ["
  + ",".join(["*a"] * 20000) + "]\n")
# Row 2: 2 MB of flow nesting, YAML and JSON; a line of 1,000,000 block entries.
w("row2-flow.yaml", "a: " + "[" * 1000000 + "]" * 1000000 + "\n")
w("row2-flow.json", "[" * 1000000 + "]" * 1000000 + "\n")
w("row2-block.yaml", "a:\n" + "- " * 1000000 + "x\n")
# Row 3: a Deployment of 3,000 replicas with 5,000 preferred anti-affinity terms
# (835 KB), and 3,000 Pods sharing 64 such terms through an alias.
term = ("          - weight: 1\n            podAffinityTerm:\n              topologyKey: kubernetes.io/hostname\n"
        "              labelSelector:\n                matchExpressions:\n                - {key: k, operator: NotIn, values: [v]}\n")
nodes = "".join(f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n"
                f"status: {{allocatable: {{cpu: '64', memory: 256Gi}}}}\n" for i in range(30))
w("row3-terms.yaml", nodes + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3000\n"
  "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
  "      containers:\n      - name: c\n      affinity:\n        podAntiAffinity:\n"
  "          preferredDuringSchedulingIgnoredDuringExecution:\n" + term * 5000)
t = "".join(f"\n      - {{weight: 1, podAffinityTerm: {{topologyKey: kubernetes.io/hostname, labelSelector: {{matchLabels: {{a: x{j}}}}}}}}}" for j in range(64))
pods = [f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p0}}\n  spec:\n    containers: [{{name: c}}]\n    affinity:\n"
        f"      podAntiAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution: &t{t.replace(chr(10), chr(10) + '  ')}\n"]
pods += [f"- {{apiVersion: v1, kind: Pod, metadata: {{name: p{p}}}, spec: {{containers: [{{name: c}}], affinity: "
         f"{{podAntiAffinity: {{preferredDuringSchedulingIgnoredDuringExecution: *t}}}}}}}}\n" for p in range(1, 3000)]
w("row3-alias-terms.yaml", "apiVersion: v1\nkind: List\nitems:\n" + "".join(pods))
# Row 6: 100,000 Namespaces; 60,000 pluginConfig entries.
w("row6-namespaces.yaml", "---\n".join(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{i}\n" for i in range(100000)))
w("row6-plugin-config.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
  "- schedulerName: default-scheduler\n  pluginConfig:\n" + "".join(f"  - name: P{i}\n    args: {{}}\n" for i in range(60000)))
# Smaller: a 20 MB annotation.
w("annotation.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations:\n    a: " + "x" * 20_000_000
  + "\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi}\n")
PY
NODE='apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  allocatable:
    cpu: "4"
    memory: 8Gi'
mkdir -p "$DIR/fifo" "$DIR/zero"
printf '%s\n' "$NODE" > "$DIR/fifo/a-node.yaml"
mkfifo "$DIR/fifo/b-fifo.yaml"
printf '%s\n' "$NODE" > "$DIR/zero/a-node.yaml"
ln -s /dev/zero "$DIR/zero/b-zero.yaml"

printf '\n%-38s %4s %7s %7s %8s  %s\n' input exit "cpu s" "wall s" "RSS MB" "first line of stderr"
FAILED=0
check() {
  local label="$1"; shift
  local out="$DIR/.time" err="$DIR/.err"
  # A FIFO opened by mistake would wait for ever: 20 s of wall time ends it.
  ( ulimit -v "$CAP_KB"; exec timeout 20 /usr/bin/time -v -o "$out" "$BIN" "$@" ) >/dev/null 2>"$err"
  local rc=$?
  local user sys wall rss cpu line verdict
  user=$(awk -F': ' '/User time/ {print $2}' "$out" 2>/dev/null)
  sys=$(awk -F': ' '/System time/ {print $2}' "$out" 2>/dev/null)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out" 2>/dev/null)
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out" 2>/dev/null)
  cpu=$(awk -v u="${user:-99}" -v s="${sys:-99}" 'BEGIN {printf "%.2f", u + s}')
  line=$(head -c 300 "$err" | head -n 1)
  verdict=ok
  if [ -z "$rss" ] || [ "$rc" -gt 1 ] || awk -v c="$cpu" -v m="$MAX_CPU_S" 'BEGIN {exit !(c >= m)}' || [ "$rss" -ge "$MAX_RSS_KB" ]; then
    verdict=FAIL; FAILED=$((FAILED + 1))
  fi
  printf '%-38s %4s %7s %7s %8s  %s %s\n' "$label" "$rc" "$cpu" "${wall:-?}" "$(( ${rss:-0} / 1024 ))" "$verdict" "${line:0:160}"
}

check "row 1: aliases of a long scalar" simulate "$DIR/row1-aliases.yaml"
check "row 1: aliases of a collection" simulate "$DIR/row1-alias-collections.yaml"
check "row 2: 2 MB of [[[[ (YAML)" simulate "$DIR/row2-flow.yaml"
check "row 2: 2 MB of [[[[ (JSON)" simulate "$DIR/row2-flow.json"
check "row 2: 1,000,000 '- ' on a line" simulate "$DIR/row2-block.yaml"
check "row 3: 5,000 preferred terms" simulate "$DIR/row3-terms.yaml"
check "row 3: 3,000 pods x 64 terms (alias)" simulate "$DIR/row3-alias-terms.yaml"
check "row 6: 100,000 Namespaces" simulate "$DIR/row6-namespaces.yaml"
check "row 6: 60,000 pluginConfig entries" simulate "$DIR/row6-plugin-config.yaml"
check "row 11: simulate /dev/zero" simulate /dev/zero
check "row 11: a FIFO in a folder" simulate "$DIR/fifo"
check "row 11: /dev/zero linked in a folder" simulate "$DIR/zero"
check "a 20 MB annotation" simulate "$DIR/annotation.yaml"

if [ "$FAILED" = 0 ]; then
  say "every input refused or answered within ${MAX_CPU_S} s of CPU and $((MAX_RSS_KB / 1024)) MB"
else
  die "$FAILED input(s) over ${MAX_CPU_S} s of CPU or $((MAX_RSS_KB / 1024)) MB (or killed)"
fi
