//! The known deviations from Kubernetes that the oracle's default run
//! avoids (scripts/oracle.sh, SHEPHERD_ORACLE_AVOID; docs/oracle.md's
//! table), each pinned as it is today. Each test states Kubernetes' answer
//! (as the oracle, k8s.io/kubernetes v1.37.2, gives it, with the source that
//! decides it) and asserts Shepherd's different one: when a deviation is
//! fixed its test fails, as a reminder to delete the test, drop the class's
//! avoidance from the driver and its row from docs/oracle.md.
//!
//! The cases go through the driver's own Shepherd side
//! (`sched::shepherd_side`: manifest import, reconcile, explain of a
//! pending pod), so they need no Go toolchain. When SHEPHERD_ORACLE names
//! the oracle program (scripts/oracle.sh runs these tests so), each test
//! also asks it and checks Kubernetes' answer stated here.

use serde_json::{json, Value};
use shepherd_oracle::gen::Case;
use shepherd_oracle::oracle::Oracle;
use shepherd_oracle::sched::{oracle_request, oracle_side, shepherd_side, Side};

/// Kubernetes' side of a case, when the oracle is at hand.
fn kube(c: &Case) -> Option<Side> {
    let path = std::env::var("SHEPHERD_ORACLE")
        .ok()
        .filter(|p| !p.is_empty())?;
    let mut o = Oracle::start(&path).expect("the oracle starts");
    let v = o.ask(&oracle_request(c)).expect("the oracle answers");
    Some(oracle_side(&v).expect("an answer with nodes"))
}

fn node(name: &str, cpu: &str, memory: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    })
}

fn pod(name: &str, requests: Value, extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                                          "resources": {"requests": requests}}]});
    if let Some(m) = extra.as_object() {
        for (k, v) in m {
            spec[k] = v.clone();
        }
    }
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
           "spec": spec})
}

fn case(nodes: Vec<Value>, pods: Vec<Value>, incoming: Value) -> Case {
    Case {
        seed: 0,
        nodes,
        pods,
        priority_classes: Vec::new(),
        pdbs: Vec::new(),
        services: Vec::new(),
        config: None,
        incoming,
    }
}

fn side(c: &Case) -> Side {
    shepherd_side(c).unwrap_or_else(|d| panic!("[{}] {}", d.class, d.text))
}

fn host(name: &str) -> Value {
    json!({"kubernetes.io/hostname": name})
}

/// memory-mib (issue 43, item 1): Kubernetes counts memory in bytes
/// (resource.Quantity.Value, int64); a node whose memory is below one MiB is
/// a node like any other there (it fits pods asking for less). Shepherd
/// counts whole MiB (allocatable rounded down) and refuses the node.
#[test]
fn memory_below_one_mib_is_refused_at_import() {
    let c = case(
        vec![node("small", "1", "512Ki", host("small"))],
        Vec::new(),
        pod(
            "incoming",
            json!({"cpu": "100m", "memory": "100Ki"}),
            json!({}),
        ),
    );
    let e =
        shepherd_side(&c).expect_err("Shepherd takes a node of 512Ki now: memory-mib is fixed?");
    assert_eq!(e.class, "import-refused", "{}", e.text);
}

/// explicit-zero (item 2): kube-scheduler applies its non-zero defaults
/// (100m cpu, 200Mi memory) only to a container that sets no request
/// (framework/types.go getNonMissingContainerRequests, component-helpers
/// PodRequests' NonMissingContainerRequests: "If the requests for those
/// resources are explicitly set, even if zero, they will not be modified").
/// A pod asking for cpu "0" and memory "0" on an empty 4-cpu 8Gi node: the
/// oracle gives NodeResourcesFit 100 (LeastAllocated, weight 1); Shepherd
/// counts the defaults and gives 97.
#[test]
fn an_explicit_zero_request_is_scored_as_a_missing_one() {
    let c = case(
        vec![node("n1", "4", "8Gi", host("n1"))],
        Vec::new(),
        pod("incoming", json!({"cpu": "0", "memory": "0"}), json!({})),
    );
    if let Some(k) = kube(&c) {
        assert_eq!(k.nodes["n1"].scores["NodeResourcesFit"], 100);
    }
    let s = side(&c);
    let fit = s.nodes["n1"].scores["NodeResourcesFit"];
    assert_ne!(
        fit, 100,
        "Shepherd scores an explicit zero as Kubernetes does now: explicit-zero is fixed?"
    );
    assert_eq!(fit, 97);
}

/// default-spreading (item 3): PodTopologySpread's system default
/// constraints take their selector from the Services, ReplicaSets,
/// StatefulSets and ReplicationControllers that select the pod
/// (podtopologyspread/common.go buildDefaultConstraints,
/// helper.DefaultSelector); with none, the pod has no constraints and
/// PreScore returns Skip (podtopologyspread/scoring.go): the plugin adds
/// nothing. Shepherd spreads a standalone pod by default: 100 x weight 2 on
/// every node.
#[test]
fn a_standalone_pod_is_spread_by_default() {
    let c = case(
        vec![
            node("n1", "4", "8Gi", host("n1")),
            node("n2", "4", "8Gi", host("n2")),
        ],
        Vec::new(),
        pod(
            "incoming",
            json!({"cpu": "100m", "memory": "128Mi"}),
            json!({}),
        ),
    );
    if let Some(k) = kube(&c) {
        assert!(k.skipped.contains("PodTopologySpread"));
        assert!(!k.nodes["n1"].scores.contains_key("PodTopologySpread"));
    }
    let s = side(&c);
    for n in ["n1", "n2"] {
        assert_eq!(
            s.nodes[n].scores.get("PodTopologySpread").copied(),
            Some(200),
            "Shepherd no longer spreads a standalone pod by default: default-spreading is fixed?"
        );
    }
}

/// spread-policies (item 4): with nodeTaintsPolicy Honor, kube-scheduler
/// leaves the nodes whose taints the pod does not tolerate out of the
/// domains it counts (podtopologyspread/common.go, the policies read by
/// nodeLabelsMatchSpreadConstraints / matchNodeInclusionPolicies). Zone a's
/// only node is tainted: Kubernetes counts zone b alone, so the pod may go
/// to zone b (skew 1); Shepherd ignores the policy (a warning at import),
/// counts zone a with 0 pods and refuses zone b (skew 2).
#[test]
fn node_taints_policy_honor_is_ignored() {
    let mut a = node(
        "a1",
        "4",
        "8Gi",
        json!({"kubernetes.io/hostname": "a1", "topology.kubernetes.io/zone": "a"}),
    );
    a["spec"] = json!({"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]});
    let b = node(
        "b1",
        "4",
        "8Gi",
        json!({"kubernetes.io/hostname": "b1", "topology.kubernetes.io/zone": "b"}),
    );
    let mut existing = pod(
        "web-0",
        json!({"cpu": "100m", "memory": "128Mi"}),
        json!({"nodeName": "b1"}),
    );
    existing["metadata"]["name"] = json!("web-0");
    let incoming = pod(
        "incoming",
        json!({"cpu": "100m", "memory": "128Mi"}),
        json!({"topologySpreadConstraints": [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}}, "nodeTaintsPolicy": "Honor"}]}),
    );
    let s = side(&case(vec![a, b], vec![existing], incoming));
    assert!(
        !s.nodes["b1"].feasible,
        "Shepherd honours nodeTaintsPolicy now: spread-policies is fixed?"
    );
    assert_eq!(s.nodes["b1"].plugin.as_deref(), Some("PodTopologySpread"));
}

/// hostname-label (item 5): a topology domain is a node label's value, the
/// hostname domain included: a node without `kubernetes.io/hostname` is
/// refused for a DoNotSchedule constraint over it ("node(s) didn't match
/// pod topology spread constraints (missing required label)",
/// podtopologyspread/filtering.go, UnschedulableAndUnresolvable). Shepherd
/// takes the node's name as its hostname domain.
#[test]
fn the_hostname_domain_comes_from_the_node_name() {
    let c = case(
        vec![node(
            "n1",
            "4",
            "8Gi",
            json!({"topology.kubernetes.io/zone": "a"}),
        )],
        Vec::new(),
        pod(
            "incoming",
            json!({"cpu": "100m", "memory": "128Mi"}),
            json!({"topologySpreadConstraints": [{
                "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}}}]}),
        ),
    );
    let s = side(&c);
    assert!(
        s.nodes["n1"].feasible,
        "Shepherd refuses a node without the hostname label now: hostname-label is fixed?"
    );
}

/// zero-resource-nodes (item 6): a node with no cpu (or no memory) in
/// allocatable is a node in Kubernetes; it fits the pods that request none
/// of it (noderesources/fit.go fitsRequest compares each requested
/// resource). Shepherd refuses it at import.
#[test]
fn a_node_without_cpu_is_refused_at_import() {
    let c = case(
        vec![node("n1", "0", "8Gi", host("n1"))],
        Vec::new(),
        pod("incoming", json!({"memory": "128Mi"}), json!({})),
    );
    let e = shepherd_side(&c)
        .expect_err("Shepherd takes a node without cpu now: zero-resource-nodes is fixed?");
    assert_eq!(e.class, "import-refused", "{}", e.text);
}

/// status-codes (item 7): kube-scheduler's statuses carry a code
/// (Unschedulable or UnschedulableAndUnresolvable; DefaultPreemption only
/// tries nodes of the first), and a score plugin whose PreScore returned
/// Skip scores nothing (framework/runtime/framework.go RunPreScorePlugins,
/// SetSkipScorePlugins): NodeAffinity skips a pod without preferred terms
/// (nodeaffinity/node_affinity.go PreScore). Shepherd's explain has no code
/// and reports NodeAffinity's 0 as a score.
#[test]
fn explain_reports_a_skipped_plugin_as_a_score() {
    let c = case(
        vec![node("n1", "4", "8Gi", host("n1"))],
        Vec::new(),
        pod(
            "incoming",
            json!({"cpu": "100m", "memory": "128Mi"}),
            json!({}),
        ),
    );
    if let Some(k) = kube(&c) {
        assert!(k.skipped.contains("NodeAffinity"));
    }
    let s = side(&c);
    assert_eq!(
        s.nodes["n1"].scores.get("NodeAffinity").copied(),
        Some(0),
        "Shepherd's explain no longer lists a skipped NodeAffinity: status-codes is fixed?"
    );
    assert!(s.nodes["n1"].code.is_none());
}

/// balanced-allocation: v1.37's NodeResourcesBalancedAllocation scores the
/// change in balance the pod brings, 50 + (50 + with - without) / 2
/// (noderesources/balanced_allocation.go balancedResourceScorer). An empty
/// 4750m / 7680Mi node and a 1250m / 3328Mi pod: with the pod the balance is
/// 91, without 100, so Kubernetes scores 70; Shepherd scores the balance with
/// the pod, 91.
#[test]
fn balanced_allocation_scores_the_balance_with_the_pod() {
    let c = case(
        vec![node("n1", "4750m", "7680Mi", host("n1"))],
        Vec::new(),
        pod(
            "incoming",
            json!({"cpu": "1250m", "memory": "3328Mi"}),
            json!({}),
        ),
    );
    if let Some(k) = kube(&c) {
        assert_eq!(k.nodes["n1"].scores["NodeResourcesBalancedAllocation"], 70);
    }
    let s = side(&c);
    assert_eq!(
        s.nodes["n1"].scores["NodeResourcesBalancedAllocation"], 91,
        "Shepherd scores the change in balance now: balanced-allocation is fixed?"
    );
}

/// non-zero-per-container: kube-scheduler gives the non-zero default (200Mi
/// memory) to each container without a memory request
/// (framework/types.go CalculateResource with NonMissingContainerRequests),
/// so a bound pod of two containers, one without memory, counts 200Mi more
/// in the node's non-zero requested memory. An 8-cpu 8Gi node holding such
/// a pod (100m; 100m and 1Gi): for a 1-cpu 1Gi pod Kubernetes' LeastAllocated
/// is (cpu 85 + memory 72) / 2 = 78 (1224Mi + 1Gi of 8Gi used), Shepherd's
/// (85 + 75) / 2 = 80 (1Gi + 1Gi).
#[test]
fn non_zero_defaults_go_to_the_pod_not_to_each_container() {
    let mut existing = pod("web-0", json!({"cpu": "100m"}), json!({"nodeName": "n1"}));
    existing["spec"]["containers"]
        .as_array_mut()
        .expect("containers")
        .push(
            json!({"name": "side", "image": "registry.k8s.io/pause:3.10",
                     "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}}}),
        );
    let c = case(
        vec![node("n1", "8", "8Gi", host("n1"))],
        vec![existing],
        pod("incoming", json!({"cpu": "1", "memory": "1Gi"}), json!({})),
    );
    if let Some(k) = kube(&c) {
        assert_eq!(k.nodes["n1"].scores["NodeResourcesFit"], 78);
    }
    let s = side(&c);
    assert_eq!(
        s.nodes["n1"].scores["NodeResourcesFit"], 80,
        "Shepherd gives each container the non-zero defaults now: non-zero-per-container is fixed?"
    );
}
