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
