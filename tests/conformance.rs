//! Conformance with kube-scheduler: cases whose numbers (allocatables,
//! requests, labels, taints, existing pods) and expected scores or filter
//! verdicts are taken from kube-scheduler's own plugin unit tests in
//! kubernetes/kubernetes, `pkg/scheduler/framework/plugins/`. Each row names
//! its source file and test; the Go code itself is not reproduced.
//!
//! Two kinds of rows:
//! - **formula rows** call the plugin's pure function with kube-scheduler's
//!   raw numbers (bytes and millicores as the Go test has them);
//! - **cluster rows** build a [`Cluster`] whose existing pods are pinned to
//!   their nodes by nodeSelector, then `explain` an incoming pod under a
//!   profile with only the plugin under test enabled and compare each
//!   feasible node's normalised score. Nodes the Go test lists as
//!   `failedNodes` are made infeasible by being too small for the incoming
//!   pod (their existing pods request only 1m of cpu).
//!
//! Plus whole-profile rows under [`Profile::kube_scheduler`] worked out by
//! hand, the derivation written next to them.
//!
//! A row that shows Shepherd computing differently from kube-scheduler is
//! kept with kube-scheduler's expected value and marked `#[ignore]` with the
//! reason; none is at the time of writing.

use shepherd::model::{
    LabelSelectorRequirement, NodeAffinity, NodeSelectorOperator as Op, NodeSelectorRequirement,
    NodeSelectorTerm, PreferredSchedulingTerm, SelectorOperator, TopologySpreadConstraint,
    WhenUnsatisfiable, HOSTNAME_KEY,
};
use shepherd::plugins::{
    default_normalize_score, inter_pod_affinity, node_affinity,
    node_resources_balanced_allocation as balanced, node_resources_fit as fit,
    pod_topology_spread as spread, taint_toleration,
};
use shepherd::{
    AffinityTerm, Cluster, DeploymentSpec, Labels, NodeSpec, Plugin, PodTemplate, Profile,
    Resource, Resources, ScoringStrategy, ScoringStrategyType, Selector, Taint, TaintEffect,
    Toleration,
};

// ===== helpers ===============================================================

fn lbl(pairs: &[(&str, &str)]) -> Labels {
    shepherd::labels(pairs)
}

/// A profile that scores with one plugin alone (weight 1), every node
/// scored, every default filter on.
fn only(p: Plugin) -> Profile {
    Profile {
        scheduler_name: "conformance".to_string(),
        scores: vec![(p, 1)],
        ..Profile::bin_pack()
    }
}

fn only_fit(strategy: ScoringStrategy) -> Profile {
    Profile {
        fit: strategy,
        ..only(Plugin::NodeResourcesFit)
    }
}

/// A node carrying `pin=<name>` so existing pods can be pinned to it.
fn node(name: &str, cpu: u64, mem: u64) -> NodeSpec {
    NodeSpec::new(name, cpu, mem).with_label("pin", name)
}

/// `count` existing pods on `node`, requesting `req`, shaped by `tpl`.
fn existing(
    c: &mut Cluster,
    app: &str,
    node: &str,
    count: u32,
    req: Resources,
    tpl: impl FnOnce(PodTemplate) -> PodTemplate,
) {
    c.deploy(
        DeploymentSpec::new(app, count, req)
            .with_template(|t| tpl(t.with_node_selector("pin", node))),
    )
    .expect("the existing pods' Deployment should be valid");
}

/// Settles the existing pods, adds the incoming pod (one replica of
/// `incoming`), and returns each node's normalised score for `plugin` under
/// `profile` (`None` for an infeasible node), in node order.
fn scores(
    mut c: Cluster,
    incoming: DeploymentSpec,
    profile: &Profile,
    plugin: Plugin,
) -> Vec<(String, Option<i64>)> {
    assert!(c.reconcile_to_fixed_point(Profile::bin_pack()).converged);
    assert_eq!(c.pending_count(), 0, "every existing pod should be placed");
    let name = format!("{}-0", incoming.name);
    c.deploy(incoming)
        .expect("the incoming Deployment should be valid");
    c.reconcile_to_fixed_point(Profile::bin_pack());
    let e = c.explain(&name, profile).expect("the incoming pod exists");
    e.nodes
        .iter()
        .map(|v| {
            let s = v.feasible.then(|| {
                v.scores
                    .iter()
                    .find(|s| s.plugin == plugin.name())
                    .expect("the plugin under test is enabled")
                    .normalized
            });
            (v.node.clone(), s)
        })
        .collect()
}

fn want(rows: &[(&str, Option<i64>)]) -> Vec<(String, Option<i64>)> {
    rows.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

fn expr(key: &str, op: Op, values: &[&str]) -> NodeSelectorRequirement {
    NodeSelectorRequirement::new(key, op, values)
}

fn term(exprs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: exprs,
        match_fields: Vec::new(),
    }
}

fn required(terms: Vec<NodeSelectorTerm>) -> NodeAffinity {
    NodeAffinity {
        required: Some(terms),
        preferred: Vec::new(),
    }
}

fn preferred(terms: Vec<(i32, NodeSelectorTerm)>) -> NodeAffinity {
    NodeAffinity {
        required: None,
        preferred: terms
            .into_iter()
            .map(|(weight, preference)| PreferredSchedulingTerm { weight, preference })
            .collect(),
    }
}

// ===== helper/normalize_score_test.go ========================================

#[test]
fn default_normalize_score_table() {
    // helper/normalize_score_test.go, TestDefaultNormalizeScore: every row.
    let rows: [(bool, [i64; 4], [i64; 4]); 7] = [
        (false, [1, 2, 3, 4], [25, 50, 75, 100]),
        (true, [1, 2, 3, 4], [75, 50, 25, 0]),
        (false, [1000, 10, 20, 30], [100, 1, 2, 3]),
        (true, [1000, 10, 20, 30], [0, 99, 98, 97]),
        (false, [1, 1, 1, 1], [100, 100, 100, 100]),
        (false, [1000, 1, 1, 1], [100, 0, 0, 0]),
        (true, [0, 1, 1, 1], [100, 0, 0, 0]),
    ];
    for (reverse, input, expected) in rows {
        let mut s = input;
        default_normalize_score(100, reverse, &mut s);
        assert_eq!(s, expected, "reverse {reverse}, scores {input:?}");
    }
}

// ===== noderesources/least_allocated_test.go =================================

/// Requested (existing + incoming) and allocatable per resource, and the
/// expected score, for LeastAllocated / MostAllocated formula rows.
type FitRow = (&'static str, [i64; 2], [i64; 2], i64);

fn check_fit_rows(strategy: &ScoringStrategy, rows: &[FitRow]) {
    for (what, req, alloc, expected) in rows {
        assert_eq!(
            fit::score(strategy, req, alloc),
            *expected,
            "{what}: requested {req:?} of {alloc:?}"
        );
    }
}

#[test]
fn least_allocated_table() {
    // noderesources/least_allocated_test.go, TestLeastAllocatedScoringStrategy.
    // Requests as the Go test sums them: the existing pods' plus the
    // incoming pod's (cpu and memory in the test's own units). A request
    // given explicitly as "0" stays 0 (only an unset request takes the
    // non-zero default), and the test's pods without containers request 0.
    let s = ScoringStrategy::least_allocated();
    let rows: [FitRow; 14] = [
        // "nothing scheduled, nothing requested"
        ("nothing/node1", [0, 0], [4000, 10000], 100),
        ("nothing/node2", [0, 0], [4000, 10000], 100),
        // "nothing scheduled, resources requested, differently sized nodes": pod 3000/5000
        ("sized/node1", [3000, 5000], [4000, 10000], 37),
        ("sized/node2", [3000, 5000], [6000, 10000], 50),
        // "no resources requested, pods scheduled with resources"
        ("existing/node1", [6000, 0], [10000, 20000], 70),
        ("existing/node2", [6000, 5000], [10000, 20000], 57),
        // "resources requested, pods scheduled with resources"
        ("both/node1", [6000, 5000], [10000, 20000], 57),
        ("both/node2", [6000, 10000], [10000, 20000], 45),
        // "resources requested, pods scheduled with resources, differently sized nodes"
        ("both-sized/node2", [6000, 10000], [10000, 50000], 60),
        // "requested resources exceed node capacity"
        ("exceed/node1", [6000, 0], [4000, 10000], 50),
        ("exceed/node2", [6000, 5000], [4000, 10000], 25),
        // "zero node resources, pods scheduled with resources"
        ("zero-node/node1", [3000, 0], [0, 0], 0),
        ("zero-node/node2", [3000, 5000], [0, 0], 0),
        // "if the node doesn't have a resource" (the extended resource is
        // skipped; cpu and memory weigh 1 each)
        ("no-resource/node1", [3000, 4000], [6000, 10000], 55),
    ];
    check_fit_rows(&s, &rows);
    // "nothing scheduled, resources requested with different weight on CPU
    // and memory, differently sized nodes": memory 2, cpu 1.
    let weighted = ScoringStrategy {
        resources: vec![(Resource::Memory, 2), (Resource::Cpu, 1)],
        ..ScoringStrategy::least_allocated()
    };
    check_fit_rows(
        &weighted,
        &[
            ("weighted/node1", [5000, 3000], [10000, 4000], 41),
            ("weighted/node2", [5000, 3000], [10000, 6000], 50),
        ],
    );
}

#[test]
fn resource_weights_out_of_range_are_refused() {
    // least_allocated_test.go and most_allocated_test.go: "resource with
    // negative weight", "resource with zero weight", "resource weight larger
    // than MaxNodeScore" are refused by validation.
    for (w, at) in [(-1, 0usize), (0, 1), (101, 1)] {
        let mut resources = vec![(Resource::Memory, 1), (Resource::Cpu, 1)];
        resources[at].1 = w;
        let s = ScoringStrategy {
            resources,
            ..ScoringStrategy::least_allocated()
        };
        let err = s.validate().expect_err("the weight should be refused");
        assert!(
            err.to_string().contains(&format!("resources[{at}]")),
            "{err}"
        );
        let mut p = only(Plugin::NodeResourcesFit);
        p.fit = s;
        assert!(p.validate().is_err());
    }
}

#[test]
fn least_allocated_in_a_cluster() {
    // least_allocated_test.go, "nothing scheduled, resources requested,
    // differently sized nodes" (memory read as MiB): 37 and 50.
    let mut c = Cluster::new();
    c.add_node(node("node1", 4000, 10000)).unwrap();
    c.add_node(node("node2", 6000, 10000)).unwrap();
    let got = scores(
        c,
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 5000)),
        &only_fit(ScoringStrategy::least_allocated()),
        Plugin::NodeResourcesFit,
    );
    assert_eq!(got, want(&[("node1", Some(37)), ("node2", Some(50))]));
}

// ===== noderesources/most_allocated_test.go ==================================

#[test]
fn most_allocated_table() {
    // noderesources/most_allocated_test.go, TestMostAllocatedScoringStrategy.
    let s = ScoringStrategy::most_allocated();
    let rows: [FitRow; 11] = [
        // "nothing scheduled, nothing requested"
        ("nothing/node1", [0, 0], [4000, 10000], 0),
        ("nothing/node2", [0, 0], [4000, 10000], 0),
        // "nothing scheduled, resources requested, differently sized nodes"
        ("sized/node1", [3000, 5000], [4000, 10000], 62),
        ("sized/node2", [3000, 5000], [6000, 10000], 50),
        // "no resources requested, pods scheduled with resources"
        ("existing/node1", [6000, 0], [10000, 20000], 30),
        ("existing/node2", [6000, 5000], [10000, 20000], 42),
        // "resources requested, pods scheduled with resources"
        ("both/node1", [6000, 5000], [10000, 20000], 42),
        ("both/node2", [6000, 10000], [10000, 20000], 55),
        // "resources requested equal node capacity"
        ("equal/node1", [5000, 9000], [5000, 10000], 95),
        ("equal/node2", [5000, 9000], [10000, 9000], 75),
        // "if the node doesn't have a resource"
        ("no-resource/node1", [3000, 4000], [6000, 10000], 45),
    ];
    check_fit_rows(&s, &rows);
    // Same file, the weighted row (memory 2, cpu 1): 58 and 50.
    let weighted = ScoringStrategy {
        resources: vec![(Resource::Memory, 2), (Resource::Cpu, 1)],
        ..ScoringStrategy::most_allocated()
    };
    check_fit_rows(
        &weighted,
        &[
            ("weighted/node1", [5000, 3000], [10000, 4000], 58),
            ("weighted/node2", [5000, 3000], [10000, 6000], 50),
        ],
    );
}

#[test]
fn most_allocated_nonzero_requests() {
    // most_allocated_test.go, "no resources requested, pods scheduled,
    // nonzero request for resource": nodes of 250m and 1000Mi, two existing
    // pods on node1 and the incoming pod, none requesting anything, each
    // counted as 100m and 200Mi. node1: cpu 300/250 capped 100, memory
    // 600/1000 = 60 -> 80; node2: 40 and 20 -> 30. (Shepherd refuses a pod
    // template that requests nothing at all, so this row is formula-only:
    // the non-zero defaults themselves are checked on `Resources`.)
    let d = Resources::ZERO.non_zero();
    assert_eq!(d, Resources::new(100, 200));
    let s = ScoringStrategy::most_allocated();
    let mib = 1 << 20;
    let (cpu, mem) = (d.cpu_millis as i64, d.memory_mib as i64 * mib);
    assert_eq!(fit::score(&s, &[3 * cpu, 3 * mem], &[250, 1000 * mib]), 80);
    assert_eq!(fit::score(&s, &[cpu, mem], &[250, 1000 * mib]), 30);
}

// ===== noderesources/requested_to_capacity_ratio_test.go =====================

#[test]
fn requested_to_capacity_ratio_table() {
    // TestRequestedToCapacityRatioScoringStrategy, shape (0,10),(100,0).
    let s = ScoringStrategy::requested_to_capacity_ratio(&[(0, 10), (100, 0)]);
    s.validate().unwrap();
    check_fit_rows(
        &s,
        &[
            // "nothing scheduled, nothing requested (default - least requested nodes have priority)"
            ("nothing/node1", [0, 0], [4000, 10000], 100),
            ("nothing/node2", [0, 0], [4000, 10000], 100),
            // "nothing scheduled, resources requested, differently sized nodes ..."
            // node1: cpu 75% -> 25, memory 50% -> 50, (25+50)/2 = 37.5 rounds to 38
            ("sized/node1", [3000, 5000], [4000, 10000], 38),
            ("sized/node2", [3000, 5000], [6000, 10000], 50),
            // "no resources requested, pods scheduled with resources ..."
            ("existing/node1", [3000, 5000], [4000, 10000], 38),
            ("existing/node2", [3000, 5000], [6000, 10000], 50),
        ],
    );
}

#[test]
fn broken_linear_function_table() {
    // requested_to_capacity_ratio_test.go, TestBrokenLinearFunction: the
    // three shapes and every assertion (raw shape scores, not scaled).
    // (the shape's points, then (utilization, expected score) pairs)
    type Case<'a> = (&'a [(i64, i64)], &'a [(i64, i64)]);
    let cases: [Case; 3] = [
        (
            &[(10, 1), (90, 9)],
            &[
                (-10, 1),
                (0, 1),
                (9, 1),
                (10, 1),
                (15, 1),
                (19, 1),
                (20, 2),
                (89, 8),
                (90, 9),
                (99, 9),
                (100, 9),
                (110, 9),
            ],
        ),
        (
            &[(0, 2), (40, 10), (100, 0)],
            &[
                (-10, 2),
                (0, 2),
                (20, 6),
                (30, 8),
                (40, 10),
                (70, 5),
                (100, 0),
                (110, 0),
            ],
        ),
        (
            &[(0, 2), (40, 2), (100, 2)],
            &[
                (-10, 2),
                (0, 2),
                (20, 2),
                (30, 2),
                (40, 2),
                (70, 2),
                (100, 2),
                (110, 2),
            ],
        ),
    ];
    for (shape, asserts) in cases {
        for &(p, expected) in asserts {
            assert_eq!(
                fit::broken_linear(shape, p),
                expected,
                "shape {shape:?} at {p}"
            );
        }
    }
}

#[test]
fn requested_to_capacity_ratio_bin_packing_table() {
    // TestResourceBinPackingSingleExtended and
    // TestResourceBinPackingMultipleExtended: shape (0,0),(100,1). The
    // extended resources intel.com/foo and intel.com/bar are the strategy's
    // first and second resources here; the pure function weighs by position.
    let single = ScoringStrategy {
        kind: ScoringStrategyType::RequestedToCapacityRatio,
        resources: vec![(Resource::Cpu, 1)],
        ..ScoringStrategy::requested_to_capacity_ratio(&[(0, 0), (100, 1)])
    };
    let one = |req: i64, alloc: i64| fit::score(&single, &[req], &[alloc]);
    // "nothing scheduled, nothing requested": 0 and 0.
    assert_eq!((one(0, 8), one(0, 4)), (0, 0));
    // "resources requested, pods scheduled with less resources": 2/8 -> 2, 2/4 -> 5.
    assert_eq!((one(2, 8), one(2, 4)), (2, 5));
    // "... on node with existing pod running": node2 (2+2)/4 -> 10.
    assert_eq!((one(2, 8), one(4, 4)), (2, 10));
    // "resources requested, pods scheduled with more resources": 4/8 -> 5, 4/4 -> 10.
    assert_eq!((one(4, 8), one(4, 4)), (5, 10));

    let multi = ScoringStrategy {
        kind: ScoringStrategyType::RequestedToCapacityRatio,
        resources: vec![(Resource::Cpu, 3), (Resource::Memory, 5)],
        ..ScoringStrategy::requested_to_capacity_ratio(&[(0, 0), (100, 1)])
    };
    // node1 has foo 8, bar 4; node2 has foo 4, bar 8.
    let two = |foo: i64, bar: i64, n1: bool| {
        let alloc = if n1 { [8, 4] } else { [4, 8] };
        fit::score(&multi, &[foo, bar], &alloc)
    };
    // "nothing scheduled, nothing requested"
    assert_eq!((two(0, 0, true), two(0, 0, false)), (0, 0));
    // "resources requested, pods scheduled with less resources": (2*3+5*5)/8 -> 4, (5*3+2*5)/8 -> 3
    assert_eq!((two(2, 2, true), two(2, 2, false)), (4, 3));
    // "... on node with existing pod running" (foo 4, bar 2 on node2): node2 (10*3+5*5)/8 -> 7
    assert_eq!((two(2, 2, true), two(6, 4, false)), (4, 7));
    // "resources requested, pods scheduled with more resources": 5 and 5
    assert_eq!((two(4, 2, true), two(4, 2, false)), (5, 5));
}

// ===== noderesources/balanced_allocation_test.go =============================

#[test]
fn balanced_allocation_table() {
    // balanced_allocation_test.go, TestNodeResourcesBalancedAllocation.
    // Requests as they are (no non-zero defaults): cpuAndMemory is
    // 3000m/5000, cpuOnly 3000m/0.
    let rows: [(&str, &[i64], &[i64], i64); 12] = [
        // "nothing scheduled, resources requested, differently sized nodes"
        ("sized/node1", &[3000, 5000], &[4000, 10000], 87),
        ("sized/node2", &[3000, 5000], &[6000, 10000], 100),
        // "resources requested, pods scheduled with resources"
        ("existing/node1", &[6000, 5000], &[10000, 20000], 82),
        ("existing/node2", &[6000, 10000], &[10000, 20000], 95),
        // "resources requested, pods scheduled with resources, differently sized nodes"
        ("existing-sized/node2", &[6000, 10000], &[10000, 50000], 80),
        // "requested resources at node capacity"
        ("capacity/node1", &[6000, 0], &[6000, 10000], 50),
        ("capacity/node2", &[6000, 5000], &[6000, 10000], 75),
        // "include scalar resource on a node for balanced resource allocation":
        // cpu, memory and nvidia.com/gpu
        ("gpu/node1", &[3000, 5000, 4], &[3500, 40000, 8], 70),
        ("gpu/node2", &[3000, 5000, 1], &[3500, 40000, 8], 65),
        // "node without the scalar resource should skip the scalar resource"
        ("no-gpu/node1", &[3000, 5000], &[3500, 40000], 63),
        // "include DRA resource on a node for balanced resource allocation"
        ("dra/node1", &[3000, 0, 1], &[3500, 40000, 8], 62),
        ("dra/node2", &[3000, 5000], &[3500, 40000], 63),
    ];
    for (what, req, alloc, expected) in rows {
        assert_eq!(balanced::score(req, alloc), expected, "{what}");
    }
}

#[test]
fn balanced_allocation_in_a_cluster() {
    // balanced_allocation_test.go, "resources requested, pods scheduled with
    // resources": cpuOnly on node1, cpuAndMemory on node2, the incoming pod
    // cpuAndMemory (memory read as MiB): 82 and 95.
    let mut c = Cluster::new();
    c.add_node(node("node1", 10000, 20000)).unwrap();
    c.add_node(node("node2", 10000, 20000)).unwrap();
    existing(
        &mut c,
        "cpu-only",
        "node1",
        1,
        Resources::new(3000, 0),
        |t| t,
    );
    existing(
        &mut c,
        "cpu-mem",
        "node2",
        1,
        Resources::new(3000, 5000),
        |t| t,
    );
    let got = scores(
        c,
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 5000)),
        &only(Plugin::NodeResourcesBalancedAllocation),
        Plugin::NodeResourcesBalancedAllocation,
    );
    assert_eq!(got, want(&[("node1", Some(82)), ("node2", Some(95))]));

    // "requested resources at node capacity": the incoming pod is cpuOnly.
    let mut c = Cluster::new();
    c.add_node(node("node1", 6000, 10000)).unwrap();
    c.add_node(node("node2", 6000, 10000)).unwrap();
    existing(
        &mut c,
        "cpu-only",
        "node1",
        1,
        Resources::new(3000, 0),
        |t| t,
    );
    existing(
        &mut c,
        "cpu-mem",
        "node2",
        1,
        Resources::new(3000, 5000),
        |t| t,
    );
    let got = scores(
        c,
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 0)),
        &only(Plugin::NodeResourcesBalancedAllocation),
        Plugin::NodeResourcesBalancedAllocation,
    );
    assert_eq!(got, want(&[("node1", Some(50)), ("node2", Some(75))]));
}

// ===== tainttoleration/taint_toleration_test.go ==============================

fn prefer(key: &str, value: &str) -> Taint {
    Taint::new(key, value, TaintEffect::PreferNoSchedule)
}

#[test]
fn taint_toleration_score_table() {
    // taint_toleration_test.go, TestTaintTolerationScore (the rows without
    // the Gt/Lt toleration operators, which Shepherd does not have).
    let pns = Some(TaintEffect::PreferNoSchedule);
    let ns = Some(TaintEffect::NoSchedule);
    type Row = (&'static str, Vec<Toleration>, Vec<Vec<Taint>>, Vec<i64>);
    let rows: Vec<Row> = vec![
        (
            "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
            vec![Toleration::equal("foo", "bar", pns)],
            vec![vec![prefer("foo", "bar")], vec![prefer("foo", "blah")]],
            vec![100, 0],
        ),
        (
            "the nodes that all of their taints are tolerated by the pod, get the same score",
            vec![
                Toleration::equal("cpu-type", "arm64", pns),
                Toleration::equal("disk-type", "ssd", pns),
            ],
            vec![
                vec![],
                vec![prefer("cpu-type", "arm64")],
                vec![prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
            ],
            vec![100, 100, 100],
        ),
        (
            "the more intolerable taints a node has, the lower score it gets",
            vec![Toleration::equal("foo", "bar", pns)],
            vec![
                vec![],
                vec![prefer("cpu-type", "arm64")],
                vec![prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
            ],
            vec![100, 50, 0],
        ),
        (
            "only taints and tolerations that have effect PreferNoSchedule are checked",
            vec![
                Toleration::equal("cpu-type", "arm64", ns),
                Toleration::equal("disk-type", "ssd", ns),
            ],
            vec![
                vec![],
                vec![Taint::new("cpu-type", "arm64", TaintEffect::NoSchedule)],
                vec![prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
            ],
            vec![100, 100, 0],
        ),
        (
            "Default behaviour No taints and tolerations, lands on node with no taints",
            vec![],
            vec![vec![], vec![prefer("cpu-type", "arm64")]],
            vec![100, 0],
        ),
    ];
    for (what, tolerations, nodes, expected) in rows {
        let mut s: Vec<i64> = nodes
            .iter()
            .map(|t| taint_toleration::count_intolerable_prefer_no_schedule(t, &tolerations))
            .collect();
        taint_toleration::normalize(&mut s);
        assert_eq!(s, expected, "{what}");
    }
}

#[test]
fn taint_toleration_score_in_a_cluster() {
    // TestTaintTolerationScore, "the more intolerable taints a node has, the
    // lower score it gets": 100, 50, 0.
    let mut c = Cluster::new();
    c.add_node(node("node-a", 4000, 4000)).unwrap();
    c.add_node(node("node-b", 4000, 4000).with_taint(prefer("cpu-type", "arm64")))
        .unwrap();
    c.add_node(
        node("node-c", 4000, 4000)
            .with_taint(prefer("cpu-type", "arm64"))
            .with_taint(prefer("disk-type", "ssd")),
    )
    .unwrap();
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(100, 100)).with_template(|t| {
        t.with_toleration(Toleration::equal(
            "foo",
            "bar",
            Some(TaintEffect::PreferNoSchedule),
        ))
    });
    let got = scores(
        c,
        pod,
        &only(Plugin::TaintToleration),
        Plugin::TaintToleration,
    );
    assert_eq!(
        got,
        want(&[
            ("node-a", Some(100)),
            ("node-b", Some(50)),
            ("node-c", Some(0))
        ])
    );
}

#[test]
fn taint_toleration_filter_table() {
    // taint_toleration_test.go, TestTaintTolerationFilter (rows without
    // Gt/Lt), each run through a one-node cluster and `explain`. kube-scheduler
    // rejects with the TaintToleration plugin and v1.37.2's reason, which
    // does not name the taint (taint_toleration.go, Filter).
    let ns = Some(TaintEffect::NoSchedule);
    let no_schedule = |k: &str, v: &str| Taint::new(k, v, TaintEffect::NoSchedule);
    type Row = (&'static str, Vec<Toleration>, Vec<Taint>, bool);
    let rows: Vec<Row> = vec![
        (
            "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
            vec![],
            vec![no_schedule("dedicated", "user1")],
            false,
        ),
        (
            "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
            vec![Toleration::equal("dedicated", "user1", ns)],
            vec![no_schedule("dedicated", "user1")],
            true,
        ),
        (
            "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
            vec![Toleration::equal("dedicated", "user2", ns)],
            vec![no_schedule("dedicated", "user1")],
            false,
        ),
        (
            "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
            vec![Toleration::exists("foo", ns)],
            vec![no_schedule("foo", "bar")],
            true,
        ),
        (
            "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated",
            vec![
                Toleration::equal("dedicated", "user2", ns),
                Toleration::exists("foo", ns),
            ],
            vec![no_schedule("dedicated", "user2"), no_schedule("foo", "bar")],
            true,
        ),
        (
            "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match",
            vec![Toleration::equal("foo", "bar", Some(TaintEffect::PreferNoSchedule))],
            vec![no_schedule("foo", "bar")],
            false,
        ),
        (
            "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty",
            vec![Toleration::equal("foo", "bar", None)],
            vec![no_schedule("foo", "bar")],
            true,
        ),
        (
            "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule",
            vec![Toleration::equal("dedicated", "user2", ns)],
            vec![prefer("dedicated", "user1")],
            true,
        ),
        (
            "The pod has no toleration, but the effect of taint on node is PreferNoSchedule",
            vec![],
            vec![prefer("dedicated", "user1")],
            true,
        ),
    ];
    for (what, tolerations, taints, fits) in rows {
        let mut c = Cluster::new();
        let mut n = node("node-a", 4000, 4000);
        n.taints = taints;
        c.add_node(n).unwrap();
        let tols = tolerations.clone();
        c.deploy(
            DeploymentSpec::new("pod1", 1, Resources::new(100, 100)).with_template(|mut t| {
                t.tolerations = tols;
                t
            }),
        )
        .unwrap();
        c.reconcile_to_fixed_point(Profile::kube_scheduler());
        let e = c.explain("pod1-0", Profile::kube_scheduler()).unwrap();
        let v = &e.nodes[0];
        assert_eq!(v.feasible, fits, "{what}: {v:?}");
        assert_eq!(
            c.bound_count() == 1,
            fits,
            "{what}: the bind agrees with explain"
        );
        if !fits {
            assert_eq!(v.plugin, Some("TaintToleration"), "{what}");
            assert_eq!(v.reasons, ["node(s) had untolerated taint(s)"], "{what}");
        }
    }
}

// ===== nodeaffinity/node_affinity_test.go ====================================

#[test]
fn node_affinity_filter_table() {
    // node_affinity_test.go, TestNodeAffinity: the rows Shepherd can express
    // (no addedAffinity profile argument), with the node's name and labels.
    let none = Labels::new();
    let na = NodeAffinity::default;
    type Row = (
        &'static str,
        Labels,
        NodeAffinity,
        &'static str,
        Labels,
        bool,
    );
    let rows: Vec<Row> = vec![
        ("missing labels", lbl(&[("foo", "bar")]), na(), "", none.clone(), false),
        ("same labels", lbl(&[("foo", "bar")]), na(), "", lbl(&[("foo", "bar")]), true),
        (
            "node labels are superset",
            lbl(&[("foo", "bar")]),
            na(),
            "",
            lbl(&[("foo", "bar"), ("baz", "blah")]),
            true,
        ),
        (
            "node labels are subset",
            lbl(&[("foo", "bar"), ("baz", "blah")]),
            na(),
            "",
            lbl(&[("foo", "bar")]),
            false,
        ),
        (
            "Pod with matchExpressions using In operator that matches the existing node",
            none.clone(),
            required(vec![term(vec![expr("foo", Op::In, &["bar", "value2"])])]),
            "",
            lbl(&[("foo", "bar")]),
            true,
        ),
        (
            "Pod with matchExpressions using Gt operator that matches the existing node",
            none.clone(),
            required(vec![term(vec![expr("kernel-version", Op::Gt, &["0204"])])]),
            "",
            lbl(&[("kernel-version", "0206")]),
            true,
        ),
        (
            "Pod with matchExpressions using NotIn operator that matches the existing node",
            none.clone(),
            required(vec![term(vec![expr("mem-type", Op::NotIn, &["DDR", "DDR2"])])]),
            "",
            lbl(&[("mem-type", "DDR3")]),
            true,
        ),
        (
            "Pod with matchExpressions using Exists operator that matches the existing node",
            none.clone(),
            required(vec![term(vec![expr("GPU", Op::Exists, &[])])]),
            "",
            lbl(&[("GPU", "NVIDIA-GRID-K1")]),
            true,
        ),
        (
            "Pod with affinity that don't match node's labels won't schedule onto the node",
            none.clone(),
            required(vec![term(vec![expr("foo", Op::In, &["value1", "value2"])])]),
            "",
            lbl(&[("foo", "bar")]),
            false,
        ),
        (
            "Pod with empty MatchExpressions is not a valid value will match no objects",
            none.clone(),
            required(vec![term(vec![])]),
            "",
            lbl(&[("foo", "bar")]),
            false,
        ),
        ("Pod with no Affinity will schedule onto a node", none.clone(), na(), "", lbl(&[("foo", "bar")]), true),
        (
            "Pod with multiple matchExpressions ANDed that matches the existing node",
            none.clone(),
            required(vec![term(vec![
                expr("GPU", Op::Exists, &[]),
                expr("GPU", Op::NotIn, &["AMD", "INTER"]),
            ])]),
            "",
            lbl(&[("GPU", "NVIDIA-GRID-K1")]),
            true,
        ),
        (
            "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
            none.clone(),
            required(vec![term(vec![
                expr("GPU", Op::Exists, &[]),
                expr("GPU", Op::In, &["AMD", "INTER"]),
            ])]),
            "",
            lbl(&[("GPU", "NVIDIA-GRID-K1")]),
            false,
        ),
        (
            "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels",
            none.clone(),
            required(vec![
                term(vec![expr("foo", Op::In, &["bar", "value2"])]),
                term(vec![expr("diffkey", Op::In, &["wrong", "value2"])]),
            ]),
            "",
            lbl(&[("foo", "bar")]),
            true,
        ),
        (
            "Pod with an Affinity and a PodSpec.NodeSelector both are satisfied",
            lbl(&[("foo", "bar")]),
            required(vec![term(vec![expr("foo", Op::Exists, &[])])]),
            "",
            lbl(&[("foo", "bar")]),
            true,
        ),
        (
            "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied",
            lbl(&[("foo", "bar")]),
            required(vec![term(vec![expr("foo", Op::Exists, &[])])]),
            "",
            lbl(&[("foo", "barrrrrr")]),
            false,
        ),
        (
            "Pod with matchFields using In operator that matches the existing node",
            none.clone(),
            required(vec![NodeSelectorTerm {
                match_expressions: vec![],
                match_fields: vec![expr("metadata.name", Op::In, &["node1"])],
            }]),
            "node1",
            none.clone(),
            true,
        ),
        (
            "Pod with matchFields using In operator that does not match the existing node",
            none.clone(),
            required(vec![NodeSelectorTerm {
                match_expressions: vec![],
                match_fields: vec![expr("metadata.name", Op::In, &["node1"])],
            }]),
            "node2",
            none.clone(),
            false,
        ),
        (
            "Pod with two terms: matchFields does not match, but matchExpressions matches",
            none.clone(),
            required(vec![
                NodeSelectorTerm {
                    match_expressions: vec![],
                    match_fields: vec![
                        expr("metadata.name", Op::In, &["node1"]),
                        expr("metadata.name", Op::In, &["node2"]),
                    ],
                },
                term(vec![expr("foo", Op::In, &["bar"])]),
            ]),
            "node2",
            lbl(&[("foo", "bar")]),
            true,
        ),
    ];
    for (what, selector, affinity, node_name, labels, fits) in rows {
        assert_eq!(
            node_affinity::filter(node_name, &labels, &selector, &affinity),
            fits,
            "{what}"
        );
    }
}

#[test]
fn node_affinity_invalid_value_is_refused_at_admission() {
    // TestNodeAffinity, "Pod with an invalid value in Affinity term won't be
    // scheduled onto the node": kube-scheduler fails to parse the value and
    // filters the node out; Shepherd refuses the Deployment outright, so no
    // such pod ever reaches the scheduler.
    let mut c = Cluster::new();
    c.add_node(node("node1", 1000, 1000)).unwrap();
    let bad = required(vec![term(vec![expr(
        "foo",
        Op::NotIn,
        &["invalid value: ___@#$%^"],
    )])]);
    let err = c
        .deploy(
            DeploymentSpec::new("pod", 1, Resources::new(1, 1))
                .with_template(|t| t.with_node_affinity(bad)),
        )
        .expect_err("an invalid label value should be refused");
    assert!(err.to_string().contains("not valid"), "{err}");
}

#[test]
fn node_affinity_score_table() {
    // node_affinity_test.go, TestNodeAffinityPriority (rows without the
    // addedAffinity argument). affinity1: weight 2 on foo=bar. affinity2:
    // weight 2 on foo=bar, 4 on key=value, 5 on all three of foo=bar,
    // key=value, az=az1.
    let label1 = lbl(&[("foo", "bar")]);
    let label2 = lbl(&[("key", "value")]);
    let label3 = lbl(&[("az", "az1")]);
    let label4 = lbl(&[("abc", "az11"), ("def", "az22")]);
    let label5 = lbl(&[("foo", "bar"), ("key", "value"), ("az", "az1")]);
    let affinity1 = preferred(vec![(2, term(vec![expr("foo", Op::In, &["bar"])]))]);
    let affinity2 = preferred(vec![
        (2, term(vec![expr("foo", Op::In, &["bar"])])),
        (4, term(vec![expr("key", Op::In, &["value"])])),
        (
            5,
            term(vec![
                expr("foo", Op::In, &["bar"]),
                expr("key", Op::In, &["value"]),
                expr("az", Op::In, &["az1"]),
            ]),
        ),
    ]);
    let rows: Vec<(&str, NodeAffinity, Vec<&Labels>, Vec<i64>)> = vec![
        (
            "all nodes are same priority as NodeAffinity is nil",
            NodeAffinity::default(),
            vec![&label1, &label2, &label3],
            vec![0, 0, 0],
        ),
        (
            "no node matches preferred scheduling requirements in NodeAffinity of pod",
            affinity1.clone(),
            vec![&label4, &label2, &label3],
            vec![0, 0, 0],
        ),
        (
            "only node1 matches the preferred scheduling requirements of pod",
            affinity1,
            vec![&label1, &label2, &label3],
            vec![100, 0, 0],
        ),
        (
            "all nodes matches the preferred scheduling requirements of pod but with different priorities",
            affinity2,
            vec![&label1, &label5, &label2],
            vec![18, 100, 36],
        ),
    ];
    for (what, affinity, nodes, expected) in rows {
        let mut s: Vec<i64> = nodes
            .iter()
            .map(|l| node_affinity::score("n", l, &affinity))
            .collect();
        node_affinity::normalize(&mut s);
        assert_eq!(s, expected, "{what}");
    }
}

#[test]
fn node_affinity_score_in_a_cluster() {
    // TestNodeAffinityPriority, "all nodes matches the preferred scheduling
    // requirements of pod but with different priorities": raw 2, 11, 4 ->
    // 200/11 = 18, 100, 400/11 = 36.
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node1", 1000, 1000).with_label("foo", "bar"))
        .unwrap();
    let mut n5 = NodeSpec::new("node5", 1000, 1000);
    n5.labels = lbl(&[("foo", "bar"), ("key", "value"), ("az", "az1")]);
    c.add_node(n5).unwrap();
    c.add_node(NodeSpec::new("node2", 1000, 1000).with_label("key", "value"))
        .unwrap();
    let affinity2 = preferred(vec![
        (2, term(vec![expr("foo", Op::In, &["bar"])])),
        (4, term(vec![expr("key", Op::In, &["value"])])),
        (
            5,
            term(vec![
                expr("foo", Op::In, &["bar"]),
                expr("key", Op::In, &["value"]),
                expr("az", Op::In, &["az1"]),
            ]),
        ),
    ]);
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(10, 10))
        .with_template(|t| t.with_node_affinity(affinity2));
    let got = scores(c, pod, &only(Plugin::NodeAffinity), Plugin::NodeAffinity);
    assert_eq!(
        got,
        want(&[
            ("node1", Some(18)),
            ("node5", Some(100)),
            ("node2", Some(36))
        ])
    );
}

// ===== interpodaffinity/scoring_test.go ======================================

fn sec(v: &str) -> Selector {
    Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
        "security",
        SelectorOperator::In,
        &[v],
    ))
}

fn at(sel: Selector, key: &str) -> AffinityTerm {
    AffinityTerm::new(sel, Some(key))
}

/// The pod (anti-)affinity shapes TestPreferredAffinity names.
#[derive(Clone, Copy)]
enum Aff {
    None,
    StayWithS1InRegion,
    StayWithS2InRegion,
    Affinity3,
    AwayFromS1InAz,
    AwayFromS2InAz,
    StayWithS1InRegionAwayFromS2InAz,
}

fn apply(t: PodTemplate, a: Aff) -> PodTemplate {
    match a {
        Aff::None => t,
        Aff::StayWithS1InRegion => t.with_preferred_affinity(5, at(sec("S1"), "region")),
        Aff::StayWithS2InRegion => t.with_preferred_affinity(6, at(sec("S2"), "region")),
        Aff::Affinity3 => t
            .with_preferred_affinity(
                8,
                at(
                    Selector::new(&[])
                        .with_expression(LabelSelectorRequirement::new(
                            "security",
                            SelectorOperator::NotIn,
                            &["S1"],
                        ))
                        .with_expression(LabelSelectorRequirement::new(
                            "security",
                            SelectorOperator::In,
                            &["S2"],
                        )),
                    "region",
                ),
            )
            .with_preferred_affinity(
                2,
                at(
                    Selector::new(&[])
                        .with_expression(LabelSelectorRequirement::new(
                            "security",
                            SelectorOperator::Exists,
                            &[],
                        ))
                        .with_expression(LabelSelectorRequirement::new(
                            "wrongkey",
                            SelectorOperator::DoesNotExist,
                            &[],
                        )),
                    "region",
                ),
            ),
        Aff::AwayFromS1InAz => t.with_preferred_anti_affinity(5, at(sec("S1"), "az")),
        Aff::AwayFromS2InAz => t.with_preferred_anti_affinity(5, at(sec("S2"), "az")),
        Aff::StayWithS1InRegionAwayFromS2InAz => t
            .with_preferred_affinity(8, at(sec("S1"), "region"))
            .with_preferred_anti_affinity(5, at(sec("S2"), "az")),
    }
}

/// One TestPreferredAffinity row: nodes with labels, existing pods (node,
/// security label or none, affinity), the incoming pod, expected scores.
struct IpaRow {
    name: &'static str,
    nodes: Vec<(&'static str, &'static [(&'static str, &'static str)])>,
    pods: Vec<(&'static str, Option<&'static str>, Aff)>,
    pod: (Option<&'static str>, Aff),
    want: Vec<i64>,
}

const CHINA: &[(&str, &str)] = &[("region", "China")];
const INDIA: &[(&str, &str)] = &[("region", "India")];
const AZ1: &[(&str, &str)] = &[("az", "az1")];
const AZ2: &[(&str, &str)] = &[("az", "az2")];
const CHINA_AZ1: &[(&str, &str)] = &[("region", "China"), ("az", "az1")];

fn run_ipa(row: IpaRow) {
    let mut c = Cluster::new();
    for (n, labels) in &row.nodes {
        let mut spec = node(n, 4000, 4000);
        for (k, v) in labels.iter() {
            spec = spec.with_label(k, v);
        }
        c.add_node(spec).unwrap();
    }
    for (i, (n, security, aff)) in row.pods.iter().enumerate() {
        let (security, aff) = (*security, *aff);
        // Shepherd refuses pods that request nothing; 1m of cpu changes no
        // InterPodAffinity score.
        existing(
            &mut c,
            &format!("existing{i}"),
            n,
            1,
            Resources::new(1, 0),
            |t| {
                let t = match security {
                    Some(s) => t.with_label("security", s),
                    None => t,
                };
                apply(t, aff)
            },
        );
    }
    let (security, aff) = row.pod;
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(1, 0)).with_template(|t| {
        let t = match security {
            Some(s) => t.with_label("security", s),
            None => t,
        };
        apply(t, aff)
    });
    let got = scores(
        c,
        pod,
        &only(Plugin::InterPodAffinity),
        Plugin::InterPodAffinity,
    );
    let expected: Vec<(String, Option<i64>)> = row
        .nodes
        .iter()
        .zip(&row.want)
        .map(|((n, _), w)| (n.to_string(), Some(*w)))
        .collect();
    assert_eq!(got, expected, "{}", row.name);
}

#[test]
fn inter_pod_affinity_normalize_is_min_max() {
    // The normalisation every TestPreferredAffinity row goes through:
    // 100 * (score - min) / (max - min); all 0 when every score is equal.
    let mut s = [2, 10, 0];
    inter_pod_affinity::normalize(&mut s);
    assert_eq!(s, [20, 100, 0]);
    let mut s = [-5, 0];
    inter_pod_affinity::normalize(&mut s);
    assert_eq!(s, [0, 100]);
    let mut s = [8, 8];
    inter_pod_affinity::normalize(&mut s);
    assert_eq!(s, [0, 0]);
}

#[test]
fn inter_pod_affinity_score_table() {
    // interpodaffinity/scoring_test.go, TestPreferredAffinity: the rows
    // without namespaces, namespace selectors or invalid selectors, and
    // without existing pods whose required affinity could not have been
    // scheduled by a real scheduler (the Go test places pods directly).
    use Aff::*;
    let rows = vec![
        IpaRow {
            name: "all nodes are same priority as Affinity is nil",
            nodes: vec![("node1", CHINA), ("node2", INDIA), ("node3", AZ1)],
            pods: vec![],
            pod: (Some("S1"), None),
            want: vec![0, 0, 0],
        },
        IpaRow {
            name: "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others",
            nodes: vec![("node1", CHINA), ("node2", INDIA), ("node3", AZ1)],
            pods: vec![("node1", Some("S1"), None), ("node2", Some("S2"), None), ("node3", Some("S1"), None)],
            pod: (Some("S1"), StayWithS1InRegion),
            want: vec![100, 0, 0],
        },
        IpaRow {
            name: "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
            nodes: vec![("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)],
            pods: vec![("node1", Some("S1"), None)],
            pod: (Option::None, StayWithS1InRegion),
            want: vec![100, 100, 0],
        },
        IpaRow {
            name: "Affinity: nodes in one region has more matching pods comparing to other region",
            nodes: vec![("node1", CHINA), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)],
            pods: vec![
                ("node1", Some("S2"), None),
                ("node1", Some("S2"), None),
                ("node2", Some("S2"), None),
                ("node3", Some("S2"), None),
                ("node4", Some("S2"), None),
                ("node5", Some("S2"), None),
            ],
            pod: (Some("S1"), StayWithS2InRegion),
            want: vec![100, 0, 100, 100, 0],
        },
        IpaRow {
            name: "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures",
            nodes: vec![("node1", CHINA), ("node2", INDIA), ("node3", AZ1)],
            pods: vec![("node1", Some("S1"), None), ("node2", Some("S2"), None), ("node3", Some("S1"), None)],
            pod: (Some("S1"), Affinity3),
            want: vec![20, 100, 0],
        },
        IpaRow {
            name: "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
            nodes: vec![("node1", CHINA), ("node2", INDIA), ("node3", AZ1)],
            pods: vec![("node1", Some("S1"), StayWithS1InRegion), ("node2", Some("S2"), StayWithS2InRegion)],
            pod: (Some("S2"), None),
            want: vec![0, 100, 0],
        },
        IpaRow {
            name: "Anti Affinity: pod that does not match existing pods in node will get high score",
            nodes: vec![("node1", AZ1), ("node2", CHINA)],
            pods: vec![("node1", Some("S1"), None), ("node2", Some("S2"), None)],
            pod: (Some("S1"), AwayFromS1InAz),
            want: vec![0, 100],
        },
        IpaRow {
            name: "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others",
            nodes: vec![("node1", AZ1), ("node2", CHINA)],
            pods: vec![("node1", Some("S1"), None), ("node2", Some("S1"), None)],
            pod: (Some("S1"), AwayFromS1InAz),
            want: vec![0, 100],
        },
        IpaRow {
            name: "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
            nodes: vec![("node1", AZ1), ("node2", INDIA)],
            pods: vec![("node1", Some("S1"), None), ("node1", Some("S1"), None), ("node2", Some("S2"), None)],
            pod: (Some("S1"), AwayFromS1InAz),
            want: vec![0, 100],
        },
        IpaRow {
            name: "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
            nodes: vec![("node1", AZ1), ("node2", AZ2)],
            pods: vec![("node1", Some("S1"), AwayFromS2InAz), ("node2", Some("S2"), AwayFromS1InAz)],
            pod: (Some("S2"), None),
            want: vec![0, 100],
        },
        IpaRow {
            name: "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
            nodes: vec![("node1", CHINA), ("node2", AZ1)],
            pods: vec![("node1", Some("S1"), None), ("node2", Some("S1"), None)],
            pod: (Some("S1"), StayWithS1InRegionAwayFromS2InAz),
            want: vec![100, 0],
        },
        IpaRow {
            name: "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
            nodes: vec![("node1", CHINA_AZ1), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)],
            pods: vec![
                ("node1", Some("S1"), None),
                ("node1", Some("S1"), None),
                ("node2", Some("S1"), None),
                ("node3", Some("S1"), None),
                ("node3", Some("S1"), None),
                ("node4", Some("S1"), None),
                ("node5", Some("S1"), None),
            ],
            pod: (Some("S1"), StayWithS1InRegionAwayFromS2InAz),
            want: vec![100, 0, 100, 100, 0],
        },
        IpaRow {
            name: "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
            nodes: vec![("node1", CHINA), ("node2", AZ1), ("node3", INDIA), ("node4", AZ2)],
            pods: vec![
                ("node1", Some("S1"), None),
                ("node2", Some("S2"), None),
                ("node3", Option::None, StayWithS1InRegionAwayFromS2InAz),
                ("node4", Option::None, AwayFromS1InAz),
            ],
            pod: (Some("S1"), StayWithS1InRegionAwayFromS2InAz),
            want: vec![100, 0, 100, 0],
        },
        IpaRow {
            name: "Avoid panic when partial nodes in a topology don't have pods with affinity",
            nodes: vec![("node1", CHINA), ("node2", CHINA)],
            pods: vec![("node1", Some("S1"), None), ("node2", Option::None, StayWithS1InRegionAwayFromS2InAz)],
            pod: (Some("S1"), None),
            want: vec![0, 0],
        },
    ];
    for row in rows {
        run_ipa(row);
    }
}

// ===== podtopologyspread/scoring_test.go =====================================

fn foo() -> Selector {
    Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
        "foo",
        SelectorOperator::Exists,
        &[],
    ))
}

fn bar() -> Selector {
    Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
        "bar",
        SelectorOperator::Exists,
        &[],
    ))
}

fn soft(max_skew: u32, key: &str, sel: Selector) -> TopologySpreadConstraint {
    TopologySpreadConstraint::new(max_skew, key, WhenUnsatisfiable::ScheduleAnyway, sel)
}

/// One TestPodTopologySpreadScore row. Candidate nodes have 4000m; failed
/// nodes 500m, too small for the incoming pod's 1000m. Existing pods
/// request 1m of cpu (Shepherd refuses pods that request nothing) and carry the listed labels (each set "foo" and/or
/// "bar", value empty as in the Go test).
struct SpreadRow {
    name: &'static str,
    constraints: Vec<TopologySpreadConstraint>,
    pod_labels: &'static [&'static str],
    nodes: Vec<(&'static str, Option<&'static str>, bool)>,
    pods: Vec<(&'static str, &'static [&'static str], u32)>,
    want: Vec<(&'static str, Option<i64>)>,
}

fn run_spread(row: SpreadRow) {
    let mut c = Cluster::new();
    for (n, zone, candidate) in &row.nodes {
        let mut spec = node(n, if *candidate { 4000 } else { 500 }, 4000);
        if let Some(z) = zone {
            spec = spec.with_label("zone", z);
        }
        c.add_node(spec).unwrap();
    }
    for (i, (n, labels, count)) in row.pods.iter().enumerate() {
        existing(
            &mut c,
            &format!("existing{i}"),
            n,
            *count,
            Resources::new(1, 0),
            |mut t| {
                for l in labels.iter() {
                    t = t.with_label(l, "");
                }
                t
            },
        );
    }
    let constraints = row.constraints.clone();
    let pod_labels = row.pod_labels;
    let pod =
        DeploymentSpec::new("incoming", 1, Resources::new(1000, 100)).with_template(|mut t| {
            for l in pod_labels {
                t = t.with_label(l, "");
            }
            for k in constraints {
                t = t.with_topology_spread(k);
            }
            t
        });
    let got = scores(
        c,
        pod,
        &only(Plugin::PodTopologySpread),
        Plugin::PodTopologySpread,
    );
    assert_eq!(got, want(&row.want), "{}", row.name);
}

#[test]
fn pod_topology_spread_score_table() {
    // podtopologyspread/scoring_test.go, TestPodTopologySpreadScore: the rows
    // on the hostname key (a node is its own domain) or a "zone" label,
    // without null selectors or nodes lacking the hostname label.
    let h = HOSTNAME_KEY;
    let f: &[&str] = &["foo"];
    let fb: &[&str] = &["foo", "bar"];
    let rows = vec![
        SpreadRow {
            name: "one constraint on node, all nodes have the same number of matching pods",
            constraints: vec![soft(1, h, foo())],
            pod_labels: f,
            nodes: vec![("node-a", None, true), ("node-b", None, true)],
            pods: vec![("node-a", f, 1), ("node-b", f, 1)],
            want: vec![("node-a", Some(100)), ("node-b", Some(100))],
        },
        SpreadRow {
            // 2/1/0/3, ln(6) each: 4, 2, 0, 5 -> 20, 60, 100, 0
            name: "one constraint on node, all 4 nodes are candidates",
            constraints: vec![soft(1, h, foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", None, true),
                ("node-b", None, true),
                ("node-c", None, true),
                ("node-d", None, true),
            ],
            pods: vec![("node-a", f, 2), ("node-b", f, 1), ("node-d", f, 3)],
            want: vec![
                ("node-a", Some(20)),
                ("node-b", Some(60)),
                ("node-c", Some(100)),
                ("node-d", Some(0)),
            ],
        },
        SpreadRow {
            name: "one constraint on node, all 4 nodes are candidates, maxSkew=2",
            constraints: vec![soft(2, h, foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", None, true),
                ("node-b", None, true),
                ("node-c", None, true),
                ("node-d", None, true),
            ],
            pods: vec![("node-a", f, 2), ("node-b", f, 1), ("node-d", f, 3)],
            want: vec![
                ("node-a", Some(33)),
                ("node-b", Some(66)),
                ("node-c", Some(100)),
                ("node-d", Some(16)),
            ],
        },
        SpreadRow {
            name: "one constraint on node, all 4 nodes are candidates, maxSkew=3",
            constraints: vec![soft(3, h, foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", None, true),
                ("node-b", None, true),
                ("node-c", None, true),
                ("node-d", None, true),
            ],
            pods: vec![
                ("node-a", f, 4),
                ("node-b", f, 3),
                ("node-c", f, 2),
                ("node-d", f, 1),
            ],
            want: vec![
                ("node-a", Some(44)),
                ("node-b", Some(66)),
                ("node-c", Some(77)),
                ("node-d", Some(100)),
            ],
        },
        SpreadRow {
            name: "one constraint on node, 3 out of 4 nodes are candidates",
            constraints: vec![soft(1, h, foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", None, true),
                ("node-b", None, true),
                ("node-x", None, true),
                ("node-y", None, false),
            ],
            pods: vec![
                ("node-a", f, 4),
                ("node-b", f, 2),
                ("node-x", f, 1),
                ("node-y", f, 3),
            ],
            want: vec![
                ("node-a", Some(33)),
                ("node-b", Some(83)),
                ("node-x", Some(100)),
                ("node-y", None),
            ],
        },
        SpreadRow {
            name: "one constraint on zone, 3 out of 4 nodes are candidates",
            constraints: vec![soft(1, "zone", foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", Some("zone1"), true),
                ("node-b", Some("zone1"), true),
                ("node-x", Some("zone2"), true),
                ("node-y", Some("zone2"), false),
            ],
            pods: vec![
                ("node-a", f, 4),
                ("node-b", f, 2),
                ("node-x", f, 1),
                ("node-y", f, 3),
            ],
            want: vec![
                ("node-a", Some(75)),
                ("node-b", Some(75)),
                ("node-x", Some(100)),
                ("node-y", None),
            ],
        },
        SpreadRow {
            name: "two Constraints on zone and node, 2 out of 4 nodes are candidates",
            constraints: vec![soft(1, "zone", foo()), soft(1, h, foo())],
            pod_labels: f,
            nodes: vec![
                ("node-a", Some("zone1"), true),
                ("node-b", Some("zone1"), false),
                ("node-x", Some("zone2"), true),
                ("node-y", Some("zone2"), false),
            ],
            pods: vec![
                ("node-a", f, 2),
                ("node-b", f, 1),
                ("node-x", f, 2),
                ("node-y", f, 4),
            ],
            want: vec![
                ("node-a", Some(100)),
                ("node-b", None),
                ("node-x", Some(63)),
                ("node-y", None),
            ],
        },
        SpreadRow {
            name: "two Constraints on zone, 2 out of 4 nodes are candidates",
            constraints: vec![soft(1, "zone", foo()), soft(1, "zone", bar())],
            pod_labels: fb,
            nodes: vec![
                ("node-a", Some("zone1"), true),
                ("node-b", Some("zone1"), false),
                ("node-x", Some("zone2"), true),
                ("node-y", Some("zone2"), false),
            ],
            pods: vec![
                ("node-a", fb, 1),
                ("node-a", f, 1),
                ("node-b", fb, 1),
                ("node-y", f, 2),
                ("node-y", fb, 1),
            ],
            want: vec![
                ("node-a", Some(85)),
                ("node-b", None),
                ("node-x", Some(100)),
                ("node-y", None),
            ],
        },
    ];
    for row in rows {
        run_spread(row);
    }
}

#[test]
fn pod_topology_spread_formula_rows() {
    // The same file's arithmetic, through the pure functions: 2/1/0/3 on 4
    // hostname domains with maxSkew 1 (weight ln 6).
    let w = spread::normalizing_weight(4);
    let mut raw: Vec<Option<i64>> = [2, 1, 0, 3]
        .iter()
        .map(|&n| {
            Some(shepherd::plugins::round_half_away(spread::score_for_count(
                n, 1, w,
            )))
        })
        .collect();
    assert_eq!(raw, vec![Some(4), Some(2), Some(0), Some(5)]);
    let got: Vec<i64> = spread::normalize(&mut raw).collect();
    assert_eq!(got, vec![20, 60, 100, 0]);
    // A node lacking a required key is not scored and gets 0 ("one
    // constraint on node, 3 out of 4 nodes are candidates, one node doesn't
    // match topology key"): raw 4*ln5 = 6, ignored, 1*ln5 = 2.
    let w = spread::normalizing_weight(2);
    let mut raw = vec![
        Some(shepherd::plugins::round_half_away(spread::score_for_count(
            4, 1, w,
        ))),
        None,
        Some(shepherd::plugins::round_half_away(spread::score_for_count(
            1, 1, w,
        ))),
    ];
    let got: Vec<i64> = spread::normalize(&mut raw).collect();
    assert_eq!(got, vec![16, 0, 100]);
}

// ===== whole profile, by hand ================================================

fn totals(c: &Cluster, pod: &str) -> Vec<(String, Option<i64>)> {
    let e = c.explain(pod, Profile::kube_scheduler()).unwrap();
    e.nodes.iter().map(|v| (v.node.clone(), v.total)).collect()
}

#[test]
fn default_profile_two_plain_nodes_by_hand() {
    // node1 4000m/10000Mi, node2 6000m/10000Mi, nothing else; the pod asks
    // for 3000m/5000Mi and is a Deployment's, so the system default spread
    // constraints apply.
    //   TaintToleration (x3): no PreferNoSchedule taints, raw 0 and 0,
    //     reversed -> 100, 100 -> 300, 300
    //   NodeAffinity (x2): no preferred terms -> 0, 0
    //   NodeResourcesFit LeastAllocated (x1): node1 (25 + 50) / 2 = 37,
    //     node2 (50 + 50) / 2 = 50
    //   PodTopologySpread (x2): hostname maxSkew 3 with no matching pods ->
    //     0 * ln(4) + 2 = 2 on both; zone skipped (no zone label) -> min = max
    //     -> 100 * (2 + 2 - 2) / 2 = 100 -> 200, 200
    //   InterPodAffinity (x2): no terms -> 0
    //   BalancedAllocation (x1): node1 |0.75 - 0.5| / 2 = 0.125 -> 87,
    //     node2 0 -> 100
    // node1 = 300 + 0 + 37 + 200 + 0 + 87 = 624; node2 = 300 + 50 + 200 + 100 = 650.
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node1", 4000, 10000)).unwrap();
    c.add_node(NodeSpec::new("node2", 6000, 10000)).unwrap();
    c.deploy(DeploymentSpec::new("web", 1, Resources::new(3000, 5000)))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        totals(&c, "web-0"),
        vec![
            ("node1".to_string(), Some(624)),
            ("node2".to_string(), Some(650))
        ]
    );
    assert_eq!(
        c.pod_by_name("web-0").unwrap().node,
        Some(shepherd::NodeId(1))
    );
}

#[test]
fn default_profile_zones_taints_and_preferences_by_hand() {
    // n1 (zone-a, PreferNoSchedule k=v), n2 (zone-a), n3 (zone-b), each
    // 4000m/8000Mi; "db" (2000m/2000Mi) pinned to n2; the incoming "web"
    // pod asks 1000m/2000Mi and prefers zone In [zone-a] with weight 5.
    //   TaintToleration (x3): raw 1, 0, 0 -> reversed 0, 100, 100 -> 0, 300, 300
    //   NodeAffinity (x2): raw 5, 5, 0 -> 100, 100, 0 -> 200, 200, 0
    //   Fit LeastAllocated (x1): n1 cpu 75, mem 75 -> 75; n2 cpu
    //     (4000-3000)/40 = 25, mem (8000-4000)/80 = 50 -> 37; n3 75
    //   PodTopologySpread (x2): web's own ReplicaSet has no pods anywhere:
    //     hostname 0 + 2 and zone 0 + 4 -> 6 everywhere -> 100 -> 200 each
    //   InterPodAffinity (x2): 0
    //   BalancedAllocation (x1): n1 0.25/0.25 -> 100; n2 0.75/0.5 -> 87; n3 100
    // n1 = 0+200+75+200+100 = 575; n2 = 300+200+37+200+87 = 824;
    // n3 = 300+0+75+200+100 = 675. n2 wins; against n3 NodeAffinity decides (+200).
    let zone = spread::ZONE_KEY;
    let mut c = Cluster::new();
    c.add_node(
        node("n1", 4000, 8000)
            .with_label(zone, "zone-a")
            .with_taint(prefer("k", "v")),
    )
    .unwrap();
    c.add_node(node("n2", 4000, 8000).with_label(zone, "zone-a"))
        .unwrap();
    c.add_node(node("n3", 4000, 8000).with_label(zone, "zone-b"))
        .unwrap();
    existing(&mut c, "db", "n2", 1, Resources::new(2000, 2000), |t| t);
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let pref = preferred(vec![(5, term(vec![expr(zone, Op::In, &["zone-a"])]))]);
    c.deploy(
        DeploymentSpec::new("web", 1, Resources::new(1000, 2000))
            .with_template(|t| t.with_node_affinity(pref)),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        totals(&c, "web-0"),
        vec![
            ("n1".to_string(), Some(575)),
            ("n2".to_string(), Some(824)),
            ("n3".to_string(), Some(675))
        ]
    );
    let e = c.explain("web-0", Profile::kube_scheduler()).unwrap();
    assert_eq!(e.decided_by, Some(("NodeAffinity".to_string(), 200)));
    assert_eq!(e.bound_to.as_deref(), Some("n2"));
}
