#!/usr/bin/env bash
# The large inputs of issue 42's cost rows, built here (nothing large is
# committed) and run natively under /usr/bin/time -v, one after the other:
#   row 4: 5,000 full nodes (four 1-CPU pods each, priority 10), then
#          `explain --then` a Deployment of 5,000 pods at priority 1000 that
#          must preempt (one pod, and the same with a PodDisruptionBudget
#          over the victims);
#   row 5: 10,000 Services (MAX_SERVICES), each selecting all of 300,000
#          pods (MAX_PODS) on 2,800 nodes, `simulate`d; and the same pods
#          without the Services, whose `simulate` prints as many lines.
# Each line: the input, wall seconds, CPU seconds (user + system: what the
# run cost, whatever else shares the 2 cores), peak RSS in MB, and whether
# it stayed within the issue's aim (2 s of CPU and 1 GB; a timing is this
# machine's, so it is reported, never asserted by a test).
#
#   scripts/scale-costs.sh [BINARY]      (default: target/release/shepherd)
set -euo pipefail

bin="${1:-target/release/shepherd}"
[ -x "$bin" ] || { echo "scale-costs.sh: $bin is not an executable (cargo build --release -p shepherd-cli)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale-costs.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" <<'EOF'
import json, sys
d = sys.argv[1]
def deployment(name, replicas, cls, cpu, mem, labels=None):
    spec = {"containers": [{"name": name, "image": "x",
                            "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}
    if cls:
        spec["priorityClassName"] = cls
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}
def node(name, cpu, mem):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": "110"}}}
def write(name, items):
    with open(f"{d}/{name}", "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f, separators=(",", ":"))
classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": n}, "value": v} for n, v in (("high", 1000), ("low", 10))]
full = classes + [node(f"node-{i}", "4", "8Gi") for i in range(5000)]
full.append(deployment("batch", 20000, "low", "1", "1Gi"))
write("full.json", full)
pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "batch"},
       "spec": {"maxUnavailable": 100000, "selector": {"matchLabels": {"app": "batch"}}}}
write("full-pdb.json", full + [pdb])
write("web-1.json", [deployment("web", 1, "high", "2", "1Gi")])
write("web-5000.json", [deployment("web", 5000, "high", "2", "1Gi")])
svc = [node(f"n{i}", "64", "256Gi") for i in range(2800)]
svc.append(deployment("web", 300000, None, "10m", "16Mi"))
write("pods.json", svc)
svc += [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"s{i}"},
         "spec": {"selector": {"app": "web"}}} for i in range(10000)]
write("services.json", svc)
EOF

measure() {
  local what="$1"; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$dir/time" || { echo "$what: failed"; cat "$dir/time"; return 1; }
  awk -v what="$what" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = p[n] + (n > 1 ? 60 * p[n - 1] : 0) }
    /User time \(seconds\)/ { cpu += $NF }
    /System time \(seconds\)/ { cpu += $NF }
    /Maximum resident set size/ { mb = $NF / 1024 }
    END { printf "%-52s %6.2f s (cpu %5.2f s) %7.1f MB  %s\n", what, s, cpu, mb, (cpu < 2 && mb < 1024) ? "within 2 s and 1 GB" : "OVER 2 s or 1 GB" }
  ' "$dir/time"
}

measure "row 4: 5,000 full nodes, 1 pod preempts" \
  "$bin" explain "$dir/full.json" --then "$dir/web-1.json" --pod default/web-0
measure "row 4: 5,000 full nodes, 5,000 pods preempt" \
  "$bin" explain "$dir/full.json" --then "$dir/web-5000.json" --pod default/web-0
measure "row 4: the same with a budget over the victims" \
  "$bin" explain "$dir/full-pdb.json" --then "$dir/web-5000.json" --pod default/web-0
measure "row 5: 10,000 Services over 300,000 pods" \
  "$bin" simulate "$dir/services.json"
measure "row 5 without its Services (printing 300,000 pods)" \
  "$bin" simulate "$dir/pods.json"
