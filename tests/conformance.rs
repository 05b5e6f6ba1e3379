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
use shepherd::quantity::MIB;
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
    NodeSpec::new(name, cpu, mem * MIB).with_label("pin", name)
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
    c: Cluster,
    incoming: DeploymentSpec,
    profile: &Profile,
    plugin: Plugin,
) -> Vec<(String, Option<i64>)> {
    let e = explain_incoming(c, incoming, profile);
    assert!(
        !e.skipped.contains(&plugin.name()),
        "{} skipped at PreScore",
        plugin.name()
    );
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

/// Settles the existing pods, adds the incoming pod (one replica of
/// `incoming`) and explains it under `profile`.
fn explain_incoming(
    mut c: Cluster,
    incoming: DeploymentSpec,
    profile: &Profile,
) -> shepherd::Explanation {
    assert!(c.reconcile_to_fixed_point(Profile::bin_pack()).converged);
    assert_eq!(c.pending_count(), 0, "every existing pod should be placed");
    let name = format!("{}-0", incoming.name);
    c.deploy(incoming)
        .expect("the incoming Deployment should be valid");
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.explain(&name, profile).expect("the incoming pod exists")
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
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 5000 * MIB)),
        &only_fit(ScoringStrategy::least_allocated()),
        Plugin::NodeResourcesFit,
    );
    assert_eq!(got, want(&[("node1", Some(37)), ("node2", Some(50))]));
}

/// NodeResourcesFit counts each pod's scored requests (`Non0CPU`,
/// `Non0Mem`: framework/types.go CalculateResource), which a template
/// states apart from its requests when its containers set a request to 0
/// (counted 0) or several miss one (the default each): rows of nodes, the
/// pods on them, the incoming pod, the expected LeastAllocated score.
#[test]
fn least_allocated_counts_the_scored_requests_of_each_pod() {
    // (what, node, on it: requests and scored, incoming: requests and
    // scored, expected)
    #[allow(clippy::type_complexity)]
    let rows: &[(
        &str,
        (u64, u64),
        Option<(Resources, Resources)>,
        (Resources, Resources),
        i64,
    )] = &[
        // A pod asking for cpu "0" and memory "0" on an empty 4-cpu 8Gi
        // node (issue 43): nothing is counted, 100; 97 with the defaults.
        (
            "explicit zeros",
            (4000, 8192),
            None,
            (Resources::new(0, 0), Resources::new(0, 0)),
            100,
        ),
        (
            "missing requests",
            (4000, 8192),
            None,
            (Resources::new(0, 0), Resources::new(100, 200 * MIB)),
            97,
        ),
        // An 8-cpu 8Gi node holding a pod of two containers (100m; 100m
        // and 1Gi), one without memory: 1224Mi counted there, so a 1-cpu
        // 1Gi pod scores (cpu 85 + memory 72) / 2 = 78 (80 with 1Gi).
        (
            "a container without memory on the node",
            (8000, 8192),
            Some((
                Resources::new(200, 1024 * MIB),
                Resources::new(200, 1224 * MIB),
            )),
            (
                Resources::new(1000, 1024 * MIB),
                Resources::new(1000, 1024 * MIB),
            ),
            78,
        ),
        // The incoming pod of three containers without requests: 300m and
        // 600Mi of a 1-cpu 2Gi node: (70 + 70) / 2.
        (
            "three containers without requests",
            (1000, 2048),
            None,
            (Resources::new(0, 0), Resources::new(300, 600 * MIB)),
            70,
        ),
    ];
    for &(what, cap, on, (req, scored), expected) in rows {
        let mut c = Cluster::new();
        c.add_node(node("n1", cap.0, cap.1)).unwrap();
        if let Some((r, n)) = on {
            existing(&mut c, "on", "n1", 1, r, |t| t.with_scored_requests(r, n));
        }
        let got = scores(
            c,
            DeploymentSpec::new("incoming", 1, req)
                .with_template(|t| t.with_scored_requests(req, scored)),
            &only_fit(ScoringStrategy::least_allocated()),
            Plugin::NodeResourcesFit,
        );
        assert_eq!(got, want(&[("n1", Some(expected))]), "{what}");
    }
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
    assert_eq!(d, Resources::new(100, 200 * MIB));
    let s = ScoringStrategy::most_allocated();
    let mib = MIB as i64;
    let (cpu, mem) = (d.cpu_millis as i64, d.memory_bytes as i64);
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

// ===== extended resources in the scores (issue 45) ============================

/// A Kubernetes extended resource of the noderesources tests (util_test.go
/// `extendedRes`).
const XYZ: &str = "abc.com/xyz";

fn scalar(name: &str) -> Resource {
    Resource::parse(name).expect("a resource name")
}

/// The two nodes of the tests' extended rows: 6000m and 10000 (read as
/// MiB), the second with `second` of abc.com/xyz, the first with `first`.
fn xyz_nodes(first: u64, second: u64) -> Cluster {
    let mut c = Cluster::new();
    c.add_node(node("node1", 6000, 10000).with_scalar(XYZ, first))
        .unwrap();
    c.add_node(node("node2", 6000, 10000).with_scalar(XYZ, second))
        .unwrap();
    c
}

/// least_allocated_test.go and most_allocated_test.go (v1.37.2), the rows
/// with an extended resource in the strategy's resources: bypassed when the
/// pod does not request it, honoured when it does, and left out on a node
/// that has none of it.
#[test]
fn fit_strategies_score_extended_resources_as_kubernetes_does() {
    // extendedResourceSet: cpu 1, memory 1, abc.com/xyz 1.
    let set = vec![(Resource::Cpu, 1), (Resource::Memory, 1), (scalar(XYZ), 1)];
    // The node lacking it weighs it 2 first.
    let heavy = vec![(scalar(XYZ), 2), (Resource::Cpu, 1), (Resource::Memory, 1)];
    let plain = |cpu, mem| DeploymentSpec::new("incoming", 1, Resources::new(cpu, mem * MIB));
    let with_xyz = |n| plain(3000, 5000).with_template(move |t| t.with_scalar(XYZ, n));
    // (what, strategy type, resources, nodes' abc.com/xyz, the pod, scores)
    #[allow(clippy::type_complexity)]
    let rows: Vec<(
        &str,
        ScoringStrategy,
        Vec<(Resource, i64)>,
        (u64, u64),
        DeploymentSpec,
        [i64; 2],
    )> = vec![
        // (50 + 50) / 2 on both: the resource is bypassed.
        (
            "least: bypass extended resource if the pod does not request",
            ScoringStrategy::least_allocated(),
            set.clone(),
            (0, 4),
            plain(3000, 5000),
            [50, 50],
        ),
        // node1 (50 + 50 + 50) / 3, node2 (50 + 50 + 80) / 3.
        (
            "least: honor extended resource if the pod requests",
            ScoringStrategy::least_allocated(),
            set.clone(),
            (4, 10),
            with_xyz(2),
            [50, 60],
        ),
        // (50 + 60) / 2 on both.
        (
            "least: if the node doesn't have a resource",
            ScoringStrategy::least_allocated(),
            heavy.clone(),
            (0, 4),
            plain(3000, 4000),
            [55, 55],
        ),
        (
            "most: bypass extended resource if the pod does not request",
            ScoringStrategy::most_allocated(),
            set.clone(),
            (0, 4),
            plain(3000, 5000),
            [50, 50],
        ),
        // node1 (50 + 50 + 50) / 3, node2 (50 + 50 + 20) / 3.
        (
            "most: honor extended resource if the pod request",
            ScoringStrategy::most_allocated(),
            set.clone(),
            (4, 10),
            with_xyz(2),
            [50, 40],
        ),
        // (50 + 40) / 2 on both.
        (
            "most: if the node doesn't have a resource",
            ScoringStrategy::most_allocated(),
            heavy.clone(),
            (0, 4),
            plain(3000, 4000),
            [45, 45],
        ),
    ];
    for (what, strategy, resources, (first, second), pod, expected) in rows {
        let profile = only_fit(ScoringStrategy {
            resources,
            ..strategy
        });
        profile.validate().unwrap();
        let got = scores(
            xyz_nodes(first, second),
            pod,
            &profile,
            Plugin::NodeResourcesFit,
        );
        assert_eq!(
            got,
            want(&[("node1", Some(expected[0])), ("node2", Some(expected[1]))]),
            "{what}"
        );
    }
}

/// requested_to_capacity_ratio_test.go, TestResourceBinPackingSingleExtended
/// (v1.37.2): intel.com/foo alone, weight 1, shape (0, 0), (100, 1); node1
/// has 8, node2 4; scores are the shape's, scaled to 0..=10.
#[test]
fn requested_to_capacity_ratio_bin_packs_an_extended_resource() {
    const FOO: &str = "intel.com/foo";
    let profile = only_fit(ScoringStrategy {
        resources: vec![(scalar(FOO), 1)],
        ..ScoringStrategy::requested_to_capacity_ratio(&[(0, 0), (100, 1)])
    });
    profile.validate().unwrap();
    let nodes = |on_node2: u64| {
        let mut c = Cluster::new();
        c.add_node(
            NodeSpec::new("node1", 4000, 10000 * MIB)
                .with_label("pin", "node1")
                .with_scalar(FOO, 8),
        )
        .unwrap();
        c.add_node(
            NodeSpec::new("node2", 4000, 10000 * MIB)
                .with_label("pin", "node2")
                .with_scalar(FOO, 4),
        )
        .unwrap();
        if on_node2 > 0 {
            existing(&mut c, "on", "node2", 1, Resources::ZERO, |t| {
                t.with_scalar(FOO, on_node2)
            });
        }
        c
    };
    let pod = |n: u64| {
        DeploymentSpec::new("incoming", 1, Resources::ZERO)
            .with_template(move |t| t.with_scalar(FOO, n))
    };
    // (what, foo on node2 already, the pod's foo, scores)
    let rows: [(&str, u64, u64, [i64; 2]); 4] = [
        // No resource the strategy names is requested: every score 0.
        ("nothing scheduled, nothing requested", 0, 0, [0, 0]),
        // 2/8 = 25% -> 2; 2/4 = 50% -> 5.
        (
            "resources requested, pods scheduled with less resources",
            0,
            2,
            [2, 5],
        ),
        // node2 (2 + 2)/4 -> 10.
        (
            "resources requested, pods scheduled with resources, on node with existing pod running",
            2,
            2,
            [2, 10],
        ),
        // 4/8 -> 5; 4/4 -> 10.
        (
            "resources requested, pods scheduled with more resources",
            0,
            4,
            [5, 10],
        ),
    ];
    for (what, on, req, expected) in rows {
        let p = if req == 0 {
            DeploymentSpec::new("incoming", 1, Resources::ZERO)
        } else {
            pod(req)
        };
        let got = scores(nodes(on), p, &profile, Plugin::NodeResourcesFit);
        assert_eq!(
            got,
            want(&[("node1", Some(expected[0])), ("node2", Some(expected[1]))]),
            "{what}"
        );
    }
}

/// balanced_allocation_test.go (v1.37.2), the rows with nvidia.com/gpu in
/// the args' resources: counted when the pod requests it (its cpu and
/// memory requests 0 and still not best effort), left out when it does not.
#[test]
fn balanced_allocation_balances_a_gpu_the_pod_requests() {
    const GPU: &str = "nvidia.com/gpu";
    let profile = Profile {
        balanced_resources: vec![Resource::Cpu, Resource::Memory, scalar(GPU)],
        ..only(Plugin::NodeResourcesBalancedAllocation)
    };
    profile.validate().unwrap();
    // "scalar resource is included in the score computation if pod
    // requests the scalar resource": node1 holds 3000m, 5000 and 3 GPUs
    // (69 -> 70: 75), node2 3000m and 5000 (62 -> 65: 76).
    let mut c = Cluster::new();
    c.add_node(node("node1", 3500, 40000).with_scalar(GPU, 8))
        .unwrap();
    c.add_node(node("node2", 3500, 40000).with_scalar(GPU, 8))
        .unwrap();
    let on = Resources::new(3000, 5000 * MIB);
    existing(&mut c, "gpu", "node1", 1, on, |t| t.with_scalar(GPU, 3));
    existing(&mut c, "plain", "node2", 1, on, |t| t);
    let pod = DeploymentSpec::new("incoming", 1, Resources::ZERO)
        .with_template(|t| t.with_scalar(GPU, 1));
    let got = scores(c, pod, &profile, Plugin::NodeResourcesBalancedAllocation);
    assert_eq!(got, want(&[("node1", Some(75)), ("node2", Some(76))]));
    // "... is not included ... if pod doesn't request the scalar
    // resource": 100 -> 63 on both, 56.
    let mut c = Cluster::new();
    c.add_node(node("node1", 3500, 40000).with_scalar(GPU, 8))
        .unwrap();
    c.add_node(node("node2", 3500, 40000)).unwrap();
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(3000, 5000 * MIB));
    let got = scores(c, pod, &profile, Plugin::NodeResourcesBalancedAllocation);
    assert_eq!(got, want(&[("node1", Some(56)), ("node2", Some(56))]));
}

// ===== noderesources/balanced_allocation_test.go =============================

#[test]
fn balanced_allocation_table() {
    // balanced_allocation_test.go, TestNodeResourcesBalancedAllocation
    // (v1.37.2): the score is the change in balance the pod brings,
    // 50 + (50 + with - without) / 2; its comments give the balances as
    // "without -> with". Requests as they are (no non-zero defaults):
    // cpuAndMemory is 3000m/5000, cpuOnly 3000m/0. Each row: what is
    // requested with the pod, without it, the node's allocatable.
    #[allow(clippy::type_complexity)]
    let rows: [(&str, &[i64], &[i64], &[i64], i64); 13] = [
        // "nothing scheduled, resources requested, differently sized nodes"
        (
            "sized/node1 (100 -> 87)",
            &[3000, 5000],
            &[0, 0],
            &[4000, 10000],
            68,
        ),
        (
            "sized/node2 (100 -> 100)",
            &[3000, 5000],
            &[0, 0],
            &[6000, 10000],
            75,
        ),
        // "resources requested, pods scheduled with resources"
        (
            "existing/node1 (85 -> 82)",
            &[6000, 5000],
            &[3000, 0],
            &[10000, 20000],
            73,
        ),
        (
            "existing/node2 (97 -> 95)",
            &[6000, 10000],
            &[3000, 5000],
            &[10000, 20000],
            74,
        ),
        // "resources requested, pods scheduled with resources, differently sized nodes"
        (
            "existing-sized/node2 (90 -> 80)",
            &[6000, 10000],
            &[3000, 5000],
            &[10000, 50000],
            70,
        ),
        // "nodes to reach min/max score": the pod asks for memory only
        (
            "min-max/node1 (50 -> 100)",
            &[3000, 5000],
            &[3000, 0],
            &[3000, 5000],
            100,
        ),
        (
            "min-max/node2 (100 -> 50)",
            &[0, 5000],
            &[0, 0],
            &[3000, 5000],
            50,
        ),
        // "requested resources at node capacity"
        (
            "capacity/node1 (75 -> 50)",
            &[6000, 0],
            &[3000, 0],
            &[6000, 10000],
            62,
        ),
        (
            "capacity/node2 (100 -> 75)",
            &[6000, 5000],
            &[3000, 5000],
            &[6000, 10000],
            62,
        ),
        // "scalar resource is included in the score computation if pod
        // requests the scalar resource": cpu, memory and nvidia.com/gpu
        (
            "gpu/node1 (69 -> 70)",
            &[3000, 5000, 4],
            &[3000, 5000, 3],
            &[3500, 40000, 8],
            75,
        ),
        (
            "gpu/node2 (62 -> 65)",
            &[3000, 5000, 1],
            &[3000, 5000, 0],
            &[3500, 40000, 8],
            76,
        ),
        // "scalar resource is not included ... if pod doesn't request" it
        (
            "no-gpu (100 -> 63)",
            &[3000, 5000],
            &[0, 0],
            &[3500, 40000],
            56,
        ),
        // "include DRA resource on a node for balanced resource allocation"
        (
            "dra/node1 (60 -> 62)",
            &[3000, 0, 1],
            &[3000, 0, 0],
            &[3500, 40000, 8],
            76,
        ),
    ];
    for (what, req, on, alloc, expected) in rows {
        assert_eq!(balanced::score(req, on, alloc), expected, "{what}");
    }
}

#[test]
fn balanced_allocation_in_a_cluster() {
    // balanced_allocation_test.go, "resources requested, pods scheduled with
    // resources": cpuOnly on node1, cpuAndMemory on node2, the incoming pod
    // cpuAndMemory (memory read as MiB): 73 (85 -> 82) and 74 (97 -> 95).
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
        Resources::new(3000, 5000 * MIB),
        |t| t,
    );
    let got = scores(
        c,
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 5000 * MIB)),
        &only(Plugin::NodeResourcesBalancedAllocation),
        Plugin::NodeResourcesBalancedAllocation,
    );
    assert_eq!(got, want(&[("node1", Some(73)), ("node2", Some(74))]));

    // "requested resources at node capacity": the incoming pod is cpuOnly,
    // 62 (75 -> 50) and 62 (100 -> 75).
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
        Resources::new(3000, 5000 * MIB),
        |t| t,
    );
    let got = scores(
        c,
        DeploymentSpec::new("incoming", 1, Resources::new(3000, 0)),
        &only(Plugin::NodeResourcesBalancedAllocation),
        Plugin::NodeResourcesBalancedAllocation,
    );
    assert_eq!(got, want(&[("node1", Some(62)), ("node2", Some(62))]));
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
    let pod =
        DeploymentSpec::new("incoming", 1, Resources::new(100, 100 * MIB)).with_template(|t| {
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
            DeploymentSpec::new("pod1", 1, Resources::new(100, 100 * MIB)).with_template(
                |mut t| {
                    t.tolerations = tols;
                    t
                },
            ),
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
            DeploymentSpec::new("pod", 1, Resources::new(1, MIB))
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
    c.add_node(NodeSpec::new("node1", 1000, 1000 * MIB).with_label("foo", "bar"))
        .unwrap();
    let mut n5 = NodeSpec::new("node5", 1000, 1000 * MIB);
    n5.labels = lbl(&[("foo", "bar"), ("key", "value"), ("az", "az1")]);
    c.add_node(n5).unwrap();
    c.add_node(NodeSpec::new("node2", 1000, 1000 * MIB).with_label("key", "value"))
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
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(10, 10 * MIB))
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
    let profile = only(Plugin::InterPodAffinity);
    if row.want.is_empty() {
        // The Go row wants PreScore's Skip: no score rows, nothing added.
        let e = explain_incoming(c, pod, &profile);
        assert_eq!(e.skipped, vec!["InterPodAffinity"], "{}", row.name);
        assert!(
            e.nodes
                .iter()
                .all(|v| v.scores.is_empty() && v.total == Some(0)),
            "{}",
            row.name
        );
        return;
    }
    let got = scores(c, pod, &profile, Plugin::InterPodAffinity);
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
            // wantStatus Skip: no pod carries a term, nor matches one.
            want: vec![],
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
    let pod = DeploymentSpec::new("incoming", 1, Resources::new(1000, 100 * MIB)).with_template(
        |mut t| {
            for l in pod_labels {
                t = t.with_label(l, "");
            }
            for k in constraints {
                t = t.with_topology_spread(k);
            }
            t
        },
    );
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
    //   BalancedAllocation (x1): node1 |0.75 - 0.5| / 2 = 0.125 -> 87 with
    //     the pod, 100 without -> 50 + (50 + 87 - 100) / 2 = 68; node2
    //     100 and 100 -> 75
    // node1 = 300 + 0 + 37 + 200 + 0 + 68 = 605; node2 = 300 + 50 + 200 + 75 = 625.
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node1", 4000, 10000 * MIB))
        .unwrap();
    c.add_node(NodeSpec::new("node2", 6000, 10000 * MIB))
        .unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        1,
        Resources::new(3000, 5000 * MIB),
    ))
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        totals(&c, "web-0"),
        vec![
            ("node1".to_string(), Some(605)),
            ("node2".to_string(), Some(625))
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
    //   BalancedAllocation (x1), the balance with the pod against without:
    //     n1 0.25/0.25 -> 100 against 100; n2 0.75/0.5 -> 87 against
    //     0.5/0.25 -> 87; n3 100 against 100: no change anywhere, 75
    // n1 = 0+200+75+200+75 = 550; n2 = 300+200+37+200+75 = 812;
    // n3 = 300+0+75+200+75 = 650. n2 wins; against n3 NodeAffinity decides (+200).
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
    existing(
        &mut c,
        "db",
        "n2",
        1,
        Resources::new(2000, 2000 * MIB),
        |t| t,
    );
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let pref = preferred(vec![(5, term(vec![expr(zone, Op::In, &["zone-a"])]))]);
    c.deploy(
        DeploymentSpec::new("web", 1, Resources::new(1000, 2000 * MIB))
            .with_template(|t| t.with_node_affinity(pref)),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        totals(&c, "web-0"),
        vec![
            ("n1".to_string(), Some(550)),
            ("n2".to_string(), Some(812)),
            ("n3".to_string(), Some(650))
        ]
    );
    let e = c.explain("web-0", Profile::kube_scheduler()).unwrap();
    assert_eq!(e.decided_by, Some(("NodeAffinity".to_string(), 200)));
    assert_eq!(e.bound_to.as_deref(), Some("n2"));
}

// ===== nodes with zero allocatable (issue 42, row 10) ========================

/// kube-scheduler's scorers leave out a resource whose allocatable is 0
/// (noderesources/resource_allocation.go fills only the resources a node
/// has; leastResourceScorer, mostResourceScorer and balancedResourceScorer
/// skip `allocable[i] == 0`), so a node with no cpu is scored on memory
/// alone; with neither, the fit score is 0.
#[test]
fn a_resource_with_zero_allocatable_is_left_out_of_the_scores() {
    let least = ScoringStrategy::least_allocated();
    let most = ScoringStrategy::most_allocated();
    // Requested with the non-zero defaults (100m, 200Mi), in the Go units.
    let req = [100, 200 << 20];
    assert_eq!(fit::score(&least, &req, &[0, 4096 << 20]), 95);
    assert_eq!(fit::score(&least, &req, &[2000, 0]), 95);
    assert_eq!(fit::score(&least, &req, &[0, 0]), 0);
    assert_eq!(fit::score(&most, &req, &[0, 4096 << 20]), 4);
    // One resource left: balanced with the pod and without, no change.
    assert_eq!(balanced::balance(&[0, 256], &[0, 4096]), 100);
    assert_eq!(balanced::score(&[0, 256], &[0, 0], &[0, 4096]), 75);
    assert_eq!(balanced::score(&[0, 0], &[0, 0], &[0, 0]), 75);
}

/// A node with 0 allocatable cpu, memory or pods is taken; it fits pods
/// that request none of what it lacks (a pod without requests fits cpu and
/// memory 0, never pods 0), and explain gives kube-scheduler's reasons and
/// scores there.
#[test]
fn nodes_with_zero_allocatable_fit_only_pods_that_need_none_of_it() {
    let mut c = Cluster::new();
    c.add_node(node("no-cpu", 0, 4096)).unwrap();
    c.add_node(node("no-memory", 2000, 0)).unwrap();
    c.add_node(node("no-pods", 2000, 4096).with_max_pods(0))
        .unwrap();
    c.deploy(DeploymentSpec::new("be", 1, Resources::new(0, 0)))
        .unwrap();
    c.deploy(DeploymentSpec::new("cpu", 1, Resources::new(100, 0)))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("be-0", Profile::kube_scheduler()).unwrap();
    let verdict = |node: &str| e.nodes.iter().find(|v| v.node == node).unwrap();
    assert!(verdict("no-cpu").feasible && verdict("no-memory").feasible);
    assert_eq!(verdict("no-pods").reasons, ["Too many pods"]);
    let fit_of = |node: &str| {
        verdict(node)
            .scores
            .iter()
            .find(|s| s.plugin == "NodeResourcesFit")
            .unwrap()
            .raw
    };
    // Memory alone on no-cpu: (4096 - 200) * 100 / 4096; cpu alone on
    // no-memory, where cpu-0 runs: (2000 - 100 - 100) * 100 / 2000.
    assert_eq!((fit_of("no-cpu"), fit_of("no-memory")), (95, 90));
    let e = c.explain("cpu-0", Profile::kube_scheduler()).unwrap();
    let v = e.nodes.iter().find(|v| v.node == "no-cpu").unwrap();
    assert_eq!(v.reasons, ["Insufficient cpu"]);
    assert_eq!(
        c.pod_by_name("cpu-0")
            .unwrap()
            .node
            .and_then(|n| c.node_by_id(n))
            .map(|n| n.name().to_string())
            .as_deref(),
        Some("no-memory")
    );
}
// ===== status codes (framework/interface.go) ==================================

/// Each node's Filter code for `pod` under the default profile, in node order.
fn codes(c: &Cluster, pod: &str) -> Vec<(String, shepherd::Code)> {
    let e = c.explain(pod, Profile::kube_scheduler()).unwrap();
    e.nodes.iter().map(|v| (v.node.clone(), v.code)).collect()
}

fn want_codes(rows: &[(&str, shepherd::Code)]) -> Vec<(String, shepherd::Code)> {
    rows.iter().map(|(n, c)| (n.to_string(), *c)).collect()
}

#[test]
fn filter_status_codes_table() {
    use shepherd::Code::{Success, Unschedulable, UnschedulableAndUnresolvable as Unresolvable};
    let zone = "zone";
    let foo = || {
        Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
            "foo",
            SelectorOperator::Exists,
            &[],
        ))
    };

    // podtopologyspread/filtering_test.go, TestSingleConstraint, "pods spread
    // across zones as 1/2 due to absence of label 'zone' on node-b": the
    // missing label is UnschedulableAndUnresolvable, the skew Unschedulable.
    let mut c = Cluster::new();
    for (n, key, z) in [
        ("node-a", zone, "zone1"),
        ("node-b", "zon", "zone1"),
        ("node-x", zone, "zone2"),
        ("node-y", zone, "zone2"),
    ] {
        c.add_node(node(n, 4000, 4000).with_label(key, z).with_label("node", n))
            .unwrap();
    }
    for n in ["node-a", "node-b", "node-x", "node-y"] {
        existing(&mut c, &format!("p-{n}"), n, 1, Resources::new(1, 0), |t| {
            t.with_label("foo", "")
        });
    }
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.deploy(
        DeploymentSpec::new("p", 1, Resources::new(1, 0)).with_template(|t| {
            t.with_label("foo", "")
                .with_topology_spread(TopologySpreadConstraint::new(
                    1,
                    zone,
                    WhenUnsatisfiable::DoNotSchedule,
                    foo(),
                ))
        }),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        codes(&c, "p-0"),
        want_codes(&[
            ("node-a", Success),
            ("node-b", Unresolvable),
            ("node-x", Unschedulable),
            ("node-y", Unschedulable),
        ])
    );

    // noderesources/fit_test.go: "too many resources fails" (node 10m /
    // 20, full; the pod asks 1 / 1, here in Mi) and TestNotEnoughRequests
    // "even if both resources fit, predicate fails when there's no space
    // for additional pod" are Unschedulable; a request above the node's
    // allocatable is UnschedulableAndUnresolvable (fitsRequest's
    // Unresolvable, as the "extended resource capacity enforced" row has it
    // for a request of 10 on an allocatable of 5).
    let mut c = Cluster::new();
    c.add_node(node("full", 10, 20)).unwrap();
    c.add_node(node("one-pod", 20, 20).with_max_pods(1))
        .unwrap();
    c.add_node(node("small", 5, 20)).unwrap();
    existing(
        &mut c,
        "held",
        "full",
        1,
        Resources::new(10, 20 * MIB),
        |t| t,
    );
    existing(
        &mut c,
        "only",
        "one-pod",
        1,
        Resources::new(5, 5 * MIB),
        |t| t,
    );
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.deploy(DeploymentSpec::new("p", 1, Resources::new(6, MIB)))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("p-0", Profile::kube_scheduler()).unwrap();
    let by: Vec<_> = e
        .nodes
        .iter()
        .map(|v| (v.node.as_str(), v.code, v.reasons.clone()))
        .collect();
    assert_eq!(
        by,
        vec![
            (
                "full",
                Unschedulable,
                vec![
                    "Insufficient cpu".to_string(),
                    "Insufficient memory".to_string()
                ]
            ),
            ("one-pod", Unschedulable, vec!["Too many pods".to_string()]),
            ("small", Unresolvable, vec!["Insufficient cpu".to_string()]),
        ]
    );

    // interpodaffinity/filtering_test.go, TestRequiredAffinitySingleNode
    // (node1: region r1, zone z11; the existing pod service=securityscan):
    // required affinity unmatched is UnschedulableAndUnresolvable, the
    // pod's anti-affinity and an existing pod's are Unschedulable.
    let svc = |v: &[&str]| {
        Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
            "service",
            SelectorOperator::In,
            v,
        ))
    };
    type Row = (
        &'static str,
        fn(PodTemplate) -> PodTemplate,
        Box<dyn Fn(PodTemplate) -> PodTemplate>,
        shepherd::Code,
    );
    let rows: Vec<Row> = vec![
        (
            "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
            |t| t,
            Box::new(move |t| {
                t.with_label("service", "securityscan")
                    .with_affinity(at(svc(&["antivirusscan", "value2"]), "region"))
            }),
            Unresolvable,
        ),
        (
            "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
            |t| t,
            Box::new(move |t| {
                t.with_label("security", "S1")
                    .with_affinity(at(svc(&["securityscan", "value2"]), "region"))
                    .with_anti_affinity(at(svc(&["securityscan", "value2"]), "zone"))
            }),
            Unschedulable,
        ),
        (
            "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
            |t| {
                t.with_anti_affinity(at(
                    Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
                        "service",
                        SelectorOperator::In,
                        &["securityscan", "value2"],
                    )),
                    "zone",
                ))
            },
            Box::new(|t| t.with_label("service", "securityscan")),
            Unschedulable,
        ),
    ];
    for (what, existing_tpl, incoming, code) in rows {
        let mut c = Cluster::new();
        c.add_node(
            node("node1", 4000, 4000)
                .with_label("region", "r1")
                .with_label("zone", "z11"),
        )
        .unwrap();
        existing(&mut c, "pod", "node1", 1, Resources::new(1, 0), |t| {
            existing_tpl(t.with_label("service", "securityscan"))
        });
        c.reconcile_to_fixed_point(Profile::bin_pack());
        c.deploy(DeploymentSpec::new("incoming", 1, Resources::new(1, 0)).with_template(incoming))
            .unwrap();
        c.reconcile_to_fixed_point(Profile::kube_scheduler());
        assert_eq!(
            codes(&c, "incoming-0"),
            want_codes(&[("node1", code)]),
            "{what}"
        );
    }

    // nodeunschedulable_test.go "Does not schedule pod to unschedulable
    // node", node_affinity_test.go (ErrReasonPod) and
    // taint_toleration_test.go: UnschedulableAndUnresolvable.
    let mut c = Cluster::new();
    c.add_node(node("cordoned", 4000, 4000)).unwrap();
    c.add_node(node("elsewhere", 4000, 4000).with_label("foo", "baz"))
        .unwrap();
    c.add_node(
        node("tainted", 4000, 4000)
            .with_label("foo", "bar")
            .with_taint(Taint::new("dedicated", "user1", TaintEffect::NoSchedule)),
    )
    .unwrap();
    c.add_node(node("fits", 4000, 4000).with_label("foo", "bar"))
        .unwrap();
    c.cordon("cordoned").unwrap();
    c.deploy(
        DeploymentSpec::new("p", 1, Resources::new(100, 100 * MIB))
            .with_template(|t| t.with_node_selector("foo", "bar")),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("p-0", Profile::kube_scheduler()).unwrap();
    let by: Vec<_> = e
        .nodes
        .iter()
        .map(|v| (v.node.as_str(), v.plugin, v.code))
        .collect();
    assert_eq!(
        by,
        vec![
            ("cordoned", Some("NodeUnschedulable"), Unresolvable),
            ("elsewhere", Some("NodeAffinity"), Unresolvable),
            ("tainted", Some("TaintToleration"), Unresolvable),
            ("fits", None, Success),
        ]
    );
}

#[test]
fn prescore_skip_leaves_the_plugin_out() {
    // A plugin whose PreScore returns Skip has no score row on any node and
    // adds nothing to a total (framework/runtime/framework.go,
    // RunPreScorePlugins and RunScorePlugins). The rows: node_affinity_test.go
    // "Skip is returned in PreScore when NodeAffinity is nil";
    // balanced_allocation_test.go "nothing scheduled, nothing requested,
    // skip in PreScore"; interpodaffinity/scoring_test.go "all nodes are
    // same priority as Affinity is nil".
    let mut c = Cluster::new();
    c.add_node(node("node1", 4000, 8000)).unwrap();
    c.add_node(node("node2", 4000, 8000)).unwrap();
    c.deploy(DeploymentSpec::new("nothing", 1, Resources::ZERO))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("nothing-0", Profile::kube_scheduler()).unwrap();
    assert_eq!(
        e.skipped,
        vec![
            "NodeAffinity",
            "InterPodAffinity",
            "NodeResourcesBalancedAllocation"
        ]
    );
    for v in &e.nodes {
        let plugins: Vec<&str> = v.scores.iter().map(|s| s.plugin).collect();
        assert_eq!(
            plugins,
            vec!["TaintToleration", "NodeResourcesFit", "PodTopologySpread"],
            "{}",
            v.node
        );
        let sum: i64 = v.scores.iter().map(|s| s.weighted).sum();
        assert_eq!(v.total, Some(sum));
    }

    // With a preference and a request, neither skips; InterPodAffinity
    // stays skipped until a bound pod gives a domain a score.
    let mut c = Cluster::new();
    c.add_node(node("node1", 4000, 8000).with_label("zone", "a"))
        .unwrap();
    c.add_node(node("node2", 4000, 8000).with_label("zone", "b"))
        .unwrap();
    let pref = preferred(vec![(5, term(vec![expr("zone", Op::In, &["a"])]))]);
    c.deploy(
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB)).with_template(|t| {
            t.with_node_affinity(pref)
                .with_preferred_anti_affinity(3, at(sec("S1"), "zone"))
        }),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("web-0", Profile::kube_scheduler()).unwrap();
    assert_eq!(e.skipped, vec!["InterPodAffinity"]);
    existing(&mut c, "s1", "node2", 1, Resources::new(1, 0), |t| {
        t.with_label("security", "S1")
    });
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("web-0", Profile::kube_scheduler()).unwrap();
    assert!(e.skipped.is_empty(), "{:?}", e.skipped);
    let ipa: Vec<i64> = e
        .nodes
        .iter()
        .map(|v| {
            v.scores
                .iter()
                .find(|s| s.plugin == "InterPodAffinity")
                .unwrap()
                .normalized
        })
        .collect();
    assert_eq!(ipa, vec![100, 0]);
}

// ===== system default spreading: helper/spread.go's DefaultSelector ==========

/// PodTopologySpread's normalised score per node for `pod` under the
/// default profile, or `None` when its PreScore skipped.
fn spread_of(c: &Cluster, pod: &str) -> Option<Vec<(String, i64, i64)>> {
    let e = c.explain(pod, Profile::kube_scheduler()).unwrap();
    if e.skipped.contains(&"PodTopologySpread") {
        assert!(e
            .nodes
            .iter()
            .all(|v| v.scores.iter().all(|s| s.plugin != "PodTopologySpread")));
        return None;
    }
    Some(
        e.nodes
            .iter()
            .filter(|v| v.feasible)
            .map(|v| {
                let s = v
                    .scores
                    .iter()
                    .find(|s| s.plugin == "PodTopologySpread")
                    .unwrap();
                (v.node.clone(), s.raw, s.normalized)
            })
            .collect(),
    )
}

#[test]
fn default_spreading_needs_a_service_or_an_owning_replicaset() {
    // helper/spread_test.go, TestGetPodServices: services service-0..2 in
    // namespace test select app=test-0..2; pods test-pod-0..4 carry
    // app=test-i. A bare pod's only selector is its Services': pods 3 and
    // 4 have none, so the system defaults do not apply and PreScore skips
    // (scoring_test.go TestPreScoreSkip); pods 0..2 are spread.
    let mut c = Cluster::new();
    c.add_node(node("node-a", 4000, 8000)).unwrap();
    c.add_node(node("node-b", 4000, 8000)).unwrap();
    for i in 0..3 {
        c.add_service(shepherd::ServiceSpec {
            name: format!("test/service-{i}"),
            selector: Selector::new(&[("app", &format!("test-{i}"))]),
        })
        .unwrap();
    }
    for i in 0..5 {
        c.create_bare_pod(shepherd::BarePodSpec {
            name: format!("test/test-pod-{i}"),
            template: PodTemplate::new(Resources::new(100, 100 * MIB))
                .with_label("app", &format!("test-{i}"))
                .with_label("label", &format!("label-{i}")),
            node_name: None,
        })
        .unwrap();
    }
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    for i in 0..5 {
        let pod = format!("test/test-pod-{i}");
        assert_eq!(spread_of(&c, &pod).is_some(), i < 3, "{pod}");
    }
    // A Service of another namespace does not select them.
    c.add_service(shepherd::ServiceSpec {
        name: "other/service-3".into(),
        selector: Selector::new(&[("app", "test-3")]),
    })
    .unwrap();
    assert_eq!(spread_of(&c, "test/test-pod-3"), None);
    // A standalone pod no longer scores 100 everywhere (200 weighted):
    // without the plugin its totals are what the other plugins give.
    let e = c
        .explain("test/test-pod-4", Profile::kube_scheduler())
        .unwrap();
    for v in &e.nodes {
        let sum: i64 = v.scores.iter().map(|s| s.weighted).sum();
        assert_eq!(v.total, Some(sum));
    }

    // A DaemonSet's pod: its owner is not a ReplicaSet, StatefulSet or
    // ReplicationController, so only a Service gives it a selector.
    let mut c = Cluster::new();
    c.add_node(node("node-a", 4000, 8000)).unwrap();
    c.create_daemonset(shepherd::DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(100, 100 * MIB)).with_label("app", "agent"),
    ))
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let pod = c.pods().find(|p| p.app == "agent").unwrap().name();
    assert_eq!(spread_of(&c, &pod), None);
    c.add_service(shepherd::ServiceSpec {
        name: "agent".into(),
        selector: Selector::new(&[("app", "agent")]),
    })
    .unwrap();
    assert!(spread_of(&c, &pod).is_some());

    // A profile without the system defaults (ListDefaulting with no
    // constraints: TestPreScoreSkip "the pod doesn't have soft topology
    // spread Constraints") skips for a Deployment's pod too.
    let mut c = Cluster::new();
    c.add_node(node("node-a", 4000, 8000)).unwrap();
    c.add_node(node("node-b", 4000, 8000)).unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        1,
        Resources::new(100, 100 * MIB),
    ))
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let listed = Profile {
        system_default_spreading: false,
        ..Profile::kube_scheduler()
    };
    let e = c.explain("web-0", listed).unwrap();
    assert!(e.skipped.contains(&"PodTopologySpread"), "{:?}", e.skipped);
}

#[test]
fn default_spreading_counts_what_the_replicaset_selects() {
    // scoring_test.go, TestPreScoreStateEmptyNodes, "system default
    // constraints and a replicaset": node-a and node-b in zone mars, node-c
    // and node-d without a zone (one more domain, the empty value), no
    // matching pods: hostname weight ln(4 + 2), zone weight ln(2 + 2).
    // Raw: node-a, node-b 0 + (3 - 1) + 0 + (5 - 1) = 6; node-c, node-d
    // lack the zone key, so only the hostname constraint scores: 2.
    // Normalised 100 * (6 + 2 - raw) / 6: 33, 33, 100, 100.
    let mut c = Cluster::new();
    for (n, zone) in [
        ("node-a", Some("mars")),
        ("node-b", Some("mars")),
        ("node-c", None),
        ("node-d", None),
    ] {
        let mut spec = node(n, 4000, 8000);
        if let Some(z) = zone {
            spec = spec.with_label(spread::ZONE_KEY, z);
        }
        c.add_node(spec).unwrap();
    }
    c.deploy(
        DeploymentSpec::new("p", 1, Resources::new(100, 100 * MIB))
            .with_template(|t| t.with_label("foo", "tar").with_label("baz", "sup")),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let want_rows = |rows: &[(&str, i64, i64)]| -> Vec<(String, i64, i64)> {
        rows.iter()
            .map(|(n, r, s)| (n.to_string(), *r, *s))
            .collect()
    };
    assert_eq!(
        spread_of(&c, "p-0"),
        Some(want_rows(&[
            ("node-a", 6, 33),
            ("node-b", 6, 33),
            ("node-c", 2, 100),
            ("node-d", 2, 100)
        ]))
    );

    // The ReplicaSet's selector is the Deployment's plus pod-template-hash:
    // another Deployment with the very same template (labels included) has
    // the same hash, so its pods are counted too, as Kubernetes counts them.
    // Three nodes without zones; "b" has a pod on n1 and one on n2.
    let shared = |t: PodTemplate| {
        let mut t = t;
        t.labels = shepherd::labels(&[("app", "shared")]);
        t
    };
    let mut c = Cluster::new();
    for n in ["n1", "n2", "n3"] {
        c.add_node(NodeSpec::new(n, 4000, 8000 * MIB)).unwrap();
    }
    c.deploy(DeploymentSpec::new("b", 2, Resources::new(100, 100 * MIB)).with_template(shared))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.deploy(DeploymentSpec::new("a", 1, Resources::new(100, 100 * MIB)).with_template(shared))
        .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let b_on: Vec<String> = c
        .pods()
        .filter(|p| p.app == "b")
        .map(|p| c.node_by_id(p.node.unwrap()).unwrap().name().to_string())
        .collect();
    assert_eq!(
        b_on,
        vec!["n1", "n1"],
        "binpack puts both of b's pods on n1"
    );
    // Hostname only (no zones): ln(3 + 2) per matching pod, + 2.
    // n1: round(2 * 1.609 + 2) = 5; n2, n3: 2 -> 100 * (5 + 2 - raw) / 5.
    assert_eq!(
        spread_of(&c, "a-0"),
        Some(want_rows(&[("n1", 5, 40), ("n2", 2, 100), ("n3", 2, 100)]))
    );
    // A pod of a different template (another hash) is not counted, even
    // with the same labels: "c" differs by its requests.
    let mut c2 = Cluster::new();
    for n in ["n1", "n2", "n3"] {
        c2.add_node(NodeSpec::new(n, 4000, 8000 * MIB)).unwrap();
    }
    c2.deploy(DeploymentSpec::new("c", 2, Resources::new(200, 100 * MIB)).with_template(shared))
        .unwrap();
    c2.reconcile_to_fixed_point(Profile::bin_pack());
    c2.deploy(DeploymentSpec::new("a", 1, Resources::new(100, 100 * MIB)).with_template(shared))
        .unwrap();
    c2.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert_eq!(
        spread_of(&c2, "a-0"),
        Some(want_rows(&[("n1", 2, 100), ("n2", 2, 100), ("n3", 2, 100)]))
    );
}

// ===== nodeAffinityPolicy and nodeTaintsPolicy ================================

/// A spread row: nodes (name, labels, tainted with `node.kubernetes.io/
/// unschedulable` NoSchedule, as filtering_test.go's `taints`), existing pods
/// (node, labels), and the incoming pod's template.
/// Labels as the rows write them.
type Pairs = &'static [(&'static str, &'static str)];

struct PolicyRow {
    name: &'static str,
    nodes: Vec<(&'static str, Pairs, bool)>,
    pods: Vec<(&'static str, &'static [(&'static str, &'static str)])>,
    pod: fn(PodTemplate) -> PodTemplate,
}

/// Builds the row's cluster (existing pods pinned and tolerating every
/// taint), adds the incoming pod and explains it.
fn explain_row(row: &PolicyRow) -> shepherd::Explanation {
    let mut c = Cluster::new();
    for (n, labels, tainted) in &row.nodes {
        let mut spec = node(n, 4000, 4000);
        for (k, v) in labels.iter() {
            spec = spec.with_label(k, v);
        }
        if *tainted {
            spec = spec.with_taint(Taint::new(
                "node.kubernetes.io/unschedulable",
                "",
                TaintEffect::NoSchedule,
            ));
        }
        c.add_node(spec).unwrap();
    }
    for (i, (n, labels)) in row.pods.iter().enumerate() {
        existing(
            &mut c,
            &format!("existing{i}"),
            n,
            1,
            Resources::new(1, 0),
            |t| {
                let mut t = t.with_toleration(Toleration::exists("", None));
                for (k, v) in labels.iter() {
                    t = t.with_label(k, v);
                }
                t
            },
        );
    }
    assert!(c.reconcile_to_fixed_point(Profile::bin_pack()).converged);
    assert_eq!(
        c.pending_count(),
        0,
        "{}: every existing pod placed",
        row.name
    );
    c.deploy(DeploymentSpec::new("p", 1, Resources::new(1, 0)).with_template(row.pod))
        .unwrap();
    // (Placed or not: a bound pod is explained as if placed again.)
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    c.explain("p-0", Profile::kube_scheduler()).unwrap()
}

const FOO: &[(&str, &str)] = &[("foo", "")];
const BAR: &[(&str, &str)] = &[("bar", "")];
const NONE: &[(&str, &str)] = &[];

fn hard(key: &str, sel: Selector) -> TopologySpreadConstraint {
    TopologySpreadConstraint::new(1, key, WhenUnsatisfiable::DoNotSchedule, sel)
}

#[test]
fn inclusion_policies_filter_table() {
    // podtopologyspread/filtering_test.go, TestPreFilterState: the rows on
    // NodeAffinityPolicy and NodeTaintsPolicy. The Go test checks the
    // counts (TpValueToMatchNum); here each node's Filter verdict that
    // follows from them, `matching + selfMatch - min <= maxSkew`, with the
    // code and plugin. The topology key "node" is a plain label.
    use shepherd::model::NodeInclusionPolicy::{Honor, Ignore};
    use shepherd::Code::{Success, Unschedulable, UnschedulableAndUnresolvable as Unresolvable};
    let abc = |a: &'static [(&'static str, &'static str)],
               b: &'static [(&'static str, &'static str)],
               c: &'static [(&'static str, &'static str)],
               tainted_c: bool| {
        vec![
            ("node-a", a, false),
            ("node-b", b, false),
            ("node-c", c, tainted_c),
        ]
    };
    type Want = Vec<(&'static str, Option<&'static str>, shepherd::Code)>;
    let rows: Vec<(PolicyRow, Want)> = vec![
        (
            // counts node-a 1, node-b 2 (node-c is not admitted): min 1.
            PolicyRow {
                name: "NodeAffinityPolicy honored with labelSelectors",
                nodes: abc(
                    &[("node", "node-a"), ("foo", "")],
                    &[("node", "node-b"), ("foo", "")],
                    &[("node", "node-c"), ("bar", "")],
                    false,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_node_selector("foo", "")
                        .with_topology_spread(hard("node", bar()))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", None, Success),
                ("node-c", Some("NodeAffinity"), Unresolvable),
            ],
        ),
        (
            // counts 1, 2, 0: min 0, node-b's skew is 2.
            PolicyRow {
                name: "NodeAffinityPolicy ignored with labelSelectors",
                nodes: abc(
                    &[("node", "node-a"), ("foo", "")],
                    &[("node", "node-b"), ("foo", "")],
                    &[("node", "node-c"), ("bar", "")],
                    false,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_node_selector("foo", "")
                        .with_topology_spread(hard("node", bar()).with_policies(Ignore, Ignore))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("PodTopologySpread"), Unschedulable),
                ("node-c", Some("NodeAffinity"), Unresolvable),
            ],
        ),
        (
            PolicyRow {
                name: "NodeAffinityPolicy honored with nodeAffinity",
                nodes: abc(
                    &[("node", "node-a"), ("foo", "")],
                    &[("node", "node-b"), ("foo", "")],
                    &[("node", "node-c"), ("bar", "")],
                    false,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_node_affinity(required(vec![term(vec![expr("foo", Op::In, &[""])])]))
                        .with_topology_spread(hard("node", bar()))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", None, Success),
                ("node-c", Some("NodeAffinity"), Unresolvable),
            ],
        ),
        (
            PolicyRow {
                name: "NodeAffinityPolicy ignored with nodeAffinity",
                nodes: abc(
                    &[("node", "node-a"), ("foo", "")],
                    &[("node", "node-b"), ("foo", "")],
                    &[("node", "node-c"), ("bar", "")],
                    false,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_node_affinity(required(vec![term(vec![expr("foo", Op::In, &[""])])]))
                        .with_topology_spread(hard("node", bar()).with_policies(Ignore, Ignore))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("PodTopologySpread"), Unschedulable),
                ("node-c", Some("NodeAffinity"), Unresolvable),
            ],
        ),
        (
            // counts 1, 2, 0 (the tainted node counts): min 0.
            PolicyRow {
                name: "NodeTaintsPolicy ignored",
                nodes: abc(
                    &[("node", "node-a")],
                    &[("node", "node-b")],
                    &[("node", "node-c"), ("bar", "")],
                    true,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_topology_spread(hard("node", bar()))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("PodTopologySpread"), Unschedulable),
                ("node-c", Some("TaintToleration"), Unresolvable),
            ],
        ),
        (
            // counts 1, 2 (the tainted node does not count): min 1.
            PolicyRow {
                name: "NodeTaintsPolicy honored",
                nodes: abc(
                    &[("node", "node-a")],
                    &[("node", "node-b")],
                    &[("node", "node-c"), ("bar", "")],
                    true,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_topology_spread(hard("node", bar()).with_policies(Honor, Honor))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", None, Success),
                ("node-c", Some("TaintToleration"), Unresolvable),
            ],
        ),
        (
            // The pod tolerates the taint: node-c counts again (0), min 0.
            PolicyRow {
                name: "NodeTaintsPolicy honored with tolerated taints",
                nodes: abc(
                    &[("node", "node-a")],
                    &[("node", "node-b")],
                    &[("node", "node-c"), ("bar", "")],
                    true,
                ),
                pods: vec![
                    ("node-a", BAR),
                    ("node-b", BAR),
                    ("node-b", BAR),
                    ("node-c", NONE),
                ],
                pod: |t| {
                    t.with_label("foo", "")
                        .with_toleration(Toleration::exists(
                            "node.kubernetes.io/unschedulable",
                            None,
                        ))
                        .with_topology_spread(hard("node", bar()).with_policies(Honor, Honor))
                },
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("PodTopologySpread"), Unschedulable),
                ("node-c", None, Success),
            ],
        ),
    ];
    for (row, want) in rows {
        let e = explain_row(&row);
        let got: Want = e
            .nodes
            .iter()
            .map(|v| {
                (
                    match v.node.as_str() {
                        "node-a" => "node-a",
                        "node-b" => "node-b",
                        _ => "node-c",
                    },
                    v.plugin,
                    v.code,
                )
            })
            .collect();
        assert_eq!(got, want, "{}", row.name);
    }

    // The rows with two constraints ("two node inclusion Constraints, ...").
    type Row4 = (
        &'static str,
        Vec<(&'static str, &'static [(&'static str, &'static str)], bool)>,
        Vec<(&'static str, &'static [(&'static str, &'static str)])>,
        fn(PodTemplate) -> PodTemplate,
        Want,
    );
    const Z1A: &[(&str, &str)] = &[("zone", "zone1"), ("node", "node-a")];
    const Z1A_FOO: &[(&str, &str)] = &[("zone", "zone1"), ("node", "node-a"), ("foo", "")];
    const Z1B: &[(&str, &str)] = &[("zone", "zone1"), ("node", "node-b")];
    const Z1B_FOO: &[(&str, &str)] = &[("zone", "zone1"), ("node", "node-b"), ("foo", "")];
    const Z2X_FOO: &[(&str, &str)] = &[("zone", "zone2"), ("node", "node-x"), ("foo", "")];
    const Z2Y: &[(&str, &str)] = &[("zone", "zone2"), ("node", "node-y")];
    const Z2Y_FOO: &[(&str, &str)] = &[("zone", "zone2"), ("node", "node-y"), ("foo", "")];
    let rows: Vec<Row4> = vec![
        (
            // zone counts (node affinity honoured): zone1 0 (node-a), zone2
            // 1; node counts (ignored): a 0, b 2, x 1. The pod matches itself.
            "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
            vec![
                ("node-a", Z1A_FOO, false),
                ("node-b", Z1B, false),
                ("node-x", Z2X_FOO, false),
            ],
            vec![("node-b", FOO), ("node-b", FOO), ("node-x", FOO)],
            |t| {
                t.with_label("foo", "")
                    .with_node_selector("foo", "")
                    .with_topology_spread(hard("zone", foo()))
                    .with_topology_spread(hard("node", foo()).with_policies(Ignore, Ignore))
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("NodeAffinity"), Unresolvable),
                ("node-x", Some("PodTopologySpread"), Unschedulable),
            ],
        ),
        (
            // zone counts (taints honoured): zone1 0, zone2 1.
            "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
            vec![
                ("node-a", Z1A_FOO, false),
                ("node-b", Z1B, true),
                ("node-x", Z2X_FOO, false),
            ],
            vec![("node-b", FOO), ("node-b", FOO), ("node-x", FOO)],
            |t| {
                t.with_label("foo", "")
                    .with_topology_spread(hard("zone", foo()).with_policies(Honor, Honor))
                    .with_topology_spread(hard("node", foo()))
            },
            vec![
                ("node-a", None, Success),
                ("node-b", Some("TaintToleration"), Unresolvable),
                ("node-x", Some("PodTopologySpread"), Unschedulable),
            ],
        ),
        (
            "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
            vec![
                ("node-a", Z1A, false),
                ("node-b", Z1B_FOO, true),
                ("node-x", Z2X_FOO, false),
                ("node-y", Z2Y, false),
            ],
            vec![
                ("node-a", FOO),
                ("node-a", FOO),
                ("node-x", FOO),
                ("node-y", FOO),
            ],
            |t| {
                t.with_label("foo", "")
                    .with_node_selector("foo", "")
                    .with_topology_spread(hard("zone", foo()))
                    .with_topology_spread(hard("node", foo()))
            },
            vec![
                ("node-a", Some("NodeAffinity"), Unresolvable),
                ("node-b", Some("TaintToleration"), Unresolvable),
                ("node-x", Some("PodTopologySpread"), Unschedulable),
                ("node-y", Some("NodeAffinity"), Unresolvable),
            ],
        ),
        (
            // zone counts (all nodes): zone1 2, zone2 3, min 2; node-x
            // and node-y skew 3 + 1 - 2 = 2 in their zone.
            "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
            vec![
                ("node-a", Z1A, false),
                ("node-b", Z1B_FOO, true),
                ("node-x", Z2X_FOO, false),
                ("node-y", Z2Y_FOO, false),
            ],
            vec![
                ("node-a", FOO),
                ("node-a", FOO),
                ("node-x", FOO),
                ("node-x", FOO),
                ("node-y", FOO),
            ],
            |t| {
                t.with_label("foo", "")
                    .with_node_selector("foo", "")
                    .with_topology_spread(hard("zone", foo()).with_policies(Ignore, Ignore))
                    .with_topology_spread(hard("node", foo()).with_policies(Honor, Honor))
            },
            vec![
                ("node-a", Some("NodeAffinity"), Unresolvable),
                ("node-b", Some("TaintToleration"), Unresolvable),
                ("node-x", Some("PodTopologySpread"), Unschedulable),
                ("node-y", Some("PodTopologySpread"), Unschedulable),
            ],
        ),
    ];
    for (name, nodes, pods, pod, want) in rows {
        let row = PolicyRow {
            name,
            nodes,
            pods,
            pod,
        };
        let e = explain_row(&row);
        let got: Vec<(String, Option<&str>, shepherd::Code)> = e
            .nodes
            .iter()
            .map(|v| (v.node.clone(), v.plugin, v.code))
            .collect();
        let want: Vec<(String, Option<&str>, shepherd::Code)> = want
            .into_iter()
            .map(|(n, p, c)| (n.to_string(), p, c))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn inclusion_policies_score_by_hand() {
    // scoring_test.go's NodeAffinityPolicy and NodeTaintsPolicy rows score
    // node-c although it fails the filters (the Go test calls Score on
    // every node); in a cluster node-c is not scored, so these rows keep
    // their shape over a zone key, where the excluded node's pods change
    // the count of a feasible node's domain. Nodes a (zone1), b and c
    // (zone2); pods: a 2, b 1, c 1, all matching. The feasible nodes are a
    // and b: two domains, weight ln(4) = 1.386; maxSkew 1.
    //   Honor: zone1 2, zone2 1 -> raw 3, 1 -> 100 * (3 + 1 - raw) / 3 = 33, 100
    //   Ignore: zone1 2, zone2 2 -> raw 3, 3 -> 100, 100
    use shepherd::model::NodeInclusionPolicy::{Honor, Ignore};
    const Z1_FOO: &[(&str, &str)] = &[("zone", "zone1"), ("foo", "")];
    const Z2_FOO: &[(&str, &str)] = &[("zone", "zone2"), ("foo", "")];
    const Z2: &[(&str, &str)] = &[("zone", "zone2")];
    type Case = (
        &'static str,
        bool,
        Vec<(&'static str, &'static [(&'static str, &'static str)], bool)>,
        fn(PodTemplate) -> PodTemplate,
        [i64; 2],
    );
    let by_affinity = vec![
        ("node-a", Z1_FOO, false),
        ("node-b", Z2_FOO, false),
        ("node-c", Z2, false),
    ];
    let by_taints = vec![
        ("node-a", Z1_FOO, false),
        ("node-b", Z2_FOO, false),
        ("node-c", Z2_FOO, true),
    ];
    let cases: Vec<Case> = vec![
        (
            "NodeAffinityPolicy honored",
            true,
            by_affinity.clone(),
            |t| {
                t.with_label("foo", "")
                    .with_node_selector("foo", "")
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1,
                        "zone",
                        WhenUnsatisfiable::ScheduleAnyway,
                        foo(),
                    ))
            },
            [33, 100],
        ),
        (
            "NodeAffinityPolicy ignored",
            true,
            by_affinity,
            |t| {
                t.with_label("foo", "")
                    .with_node_selector("foo", "")
                    .with_topology_spread(
                        TopologySpreadConstraint::new(
                            1,
                            "zone",
                            WhenUnsatisfiable::ScheduleAnyway,
                            foo(),
                        )
                        .with_policies(Ignore, Ignore),
                    )
            },
            [100, 100],
        ),
        (
            "NodeTaintsPolicy honored",
            false,
            by_taints.clone(),
            |t| {
                t.with_label("foo", "").with_topology_spread(
                    TopologySpreadConstraint::new(
                        1,
                        "zone",
                        WhenUnsatisfiable::ScheduleAnyway,
                        foo(),
                    )
                    .with_policies(Honor, Honor),
                )
            },
            [33, 100],
        ),
        (
            "NodeTaintsPolicy ignored",
            false,
            by_taints,
            |t| {
                t.with_label("foo", "")
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1,
                        "zone",
                        WhenUnsatisfiable::ScheduleAnyway,
                        foo(),
                    ))
            },
            [100, 100],
        ),
    ];
    for (name, _, nodes, pod, want) in cases {
        let row = PolicyRow {
            name,
            nodes,
            pods: vec![
                ("node-a", FOO),
                ("node-a", FOO),
                ("node-b", FOO),
                ("node-c", FOO),
            ],
            pod,
        };
        let e = explain_row(&row);
        let got: Vec<(String, i64)> = e
            .nodes
            .iter()
            .filter(|v| v.feasible)
            .map(|v| {
                let s = v
                    .scores
                    .iter()
                    .find(|s| s.plugin == "PodTopologySpread")
                    .unwrap();
                (v.node.clone(), s.normalized)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("node-a".to_string(), want[0]),
                ("node-b".to_string(), want[1])
            ],
            "{name}"
        );
    }
}

// ===== the hostname domain is the kubernetes.io/hostname label ================

/// A node pinned as `node` makes it, without the hostname label, or with
/// another value.
fn host(name: &str, hostname: Option<&str>) -> NodeSpec {
    let mut n = node(name, 4000, 4000);
    match hostname {
        Some(h) => n.labels.insert(HOSTNAME_KEY.to_string(), h.to_string()),
        None => n.labels.remove(HOSTNAME_KEY),
    };
    n
}

#[test]
fn hostname_label_decides_the_hostname_domain() {
    // scoring_test.go, TestPodTopologySpreadScore, "one constraint on node, 3
    // out of 4 nodes are candidates, one node doesn't match topology key":
    // matching pods 4 / ?2? / 1 / ~3~, node-b has no hostname label (its
    // label is `n`), node-y is not a candidate. node-b is not scored (0);
    // weight ln(2 + 2): node-a round(4 * 1.386) = 6, node-x 1.
    let mut c = Cluster::new();
    for (n, h, cpu) in [
        ("node-a", Some("node-a"), 4000),
        ("node-b", None, 4000),
        ("node-x", Some("node-x"), 4000),
        ("node-y", Some("node-y"), 500),
    ] {
        let mut spec = host(n, h);
        spec.capacity.cpu_millis = cpu;
        if h.is_none() {
            spec = spec.with_label("n", n);
        }
        c.add_node(spec).unwrap();
    }
    for (i, (n, count)) in [("node-a", 4), ("node-b", 2), ("node-x", 1), ("node-y", 3)]
        .into_iter()
        .enumerate()
    {
        existing(
            &mut c,
            &format!("existing{i}"),
            n,
            count,
            Resources::new(1, 0),
            |t| t.with_label("foo", ""),
        );
    }
    let pod =
        DeploymentSpec::new("incoming", 1, Resources::new(1000, 100 * MIB)).with_template(|t| {
            t.with_label("foo", "")
                .with_topology_spread(soft(1, HOSTNAME_KEY, foo()))
        });
    assert_eq!(
        scores(
            c,
            pod,
            &only(Plugin::PodTopologySpread),
            Plugin::PodTopologySpread
        ),
        want(&[
            ("node-a", Some(16)),
            ("node-b", Some(0)),
            ("node-x", Some(100)),
            ("node-y", None)
        ])
    );

    // scoring_test.go, "system defaulting, nodes don't have zone, pods
    // match service": a bare pod a Service selects, matching pods 4/3/2/1
    // on node-a..d, each its own hostname: 44, 66, 77, 100 ("same scores as
    // if we were using one spreading constraint").
    let mut c = Cluster::new();
    for n in ["node-a", "node-b", "node-c", "node-d"] {
        c.add_node(node(n, 4000, 4000)).unwrap();
    }
    for (n, count) in [("node-a", 4), ("node-b", 3), ("node-c", 2), ("node-d", 1)] {
        existing(
            &mut c,
            &format!("p-{n}"),
            n,
            count,
            Resources::new(1, 0),
            |t| t.with_label("foo", ""),
        );
    }
    c.add_service(shepherd::ServiceSpec {
        name: "svc".into(),
        selector: Selector::new(&[("foo", "")]),
    })
    .unwrap();
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.create_bare_pod(shepherd::BarePodSpec {
        name: "p".into(),
        template: PodTemplate::new(Resources::new(100, 100 * MIB)).with_label("foo", ""),
        node_name: None,
    })
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let defaulting = Profile {
        system_default_spreading: true,
        ..only(Plugin::PodTopologySpread)
    };
    let e = c.explain("p", defaulting).unwrap();
    let got: Vec<(String, i64)> = e
        .nodes
        .iter()
        .map(|v| (v.node.clone(), v.scores[0].normalized))
        .collect();
    let want_rows: Vec<(String, i64)> = [
        ("node-a", 44),
        ("node-b", 66),
        ("node-c", 77),
        ("node-d", 100),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), *s))
    .collect();
    assert_eq!(got, want_rows);
}

#[test]
fn hostname_filters_read_the_label() {
    use shepherd::Code::{Success, Unschedulable, UnschedulableAndUnresolvable as Unresolvable};
    // PodTopologySpread's Filter (filtering.go): a node without the
    // constraint's key is refused UnschedulableAndUnresolvable with the
    // missing-label reason; nodes sharing a hostname value are one domain.
    // n1 and n2 share "rack-1" (2 matching pods between them), n3 is
    // "n3" (1), n4 has no hostname. min 1: n1, n2: 2 + 1 - 1 = 2 > 1.
    let mut c = Cluster::new();
    c.add_node(host("n1", Some("rack-1"))).unwrap();
    c.add_node(host("n2", Some("rack-1"))).unwrap();
    c.add_node(host("n3", Some("n3"))).unwrap();
    c.add_node(host("n4", None)).unwrap();
    for (n, count) in [("n1", 1), ("n2", 1), ("n3", 1), ("n4", 3)] {
        existing(
            &mut c,
            &format!("p-{n}"),
            n,
            count,
            Resources::new(1, 0),
            |t| t.with_label("foo", ""),
        );
    }
    c.reconcile_to_fixed_point(Profile::bin_pack());
    c.deploy(
        DeploymentSpec::new("p", 1, Resources::new(1, 0)).with_template(|t| {
            t.with_label("foo", "")
                .with_topology_spread(hard(HOSTNAME_KEY, foo()))
        }),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let e = c.explain("p-0", Profile::kube_scheduler()).unwrap();
    let got: Vec<_> = e
        .nodes
        .iter()
        .map(|v| (v.node.as_str(), v.code, v.reasons.clone()))
        .collect();
    let skew = vec![spread::REASON_SKEW.to_string()];
    assert_eq!(
        got,
        vec![
            ("n1", Unschedulable, skew.clone()),
            ("n2", Unschedulable, skew),
            ("n3", Success, vec![]),
            (
                "n4",
                Unresolvable,
                vec![spread::REASON_MISSING_LABEL.to_string()]
            ),
        ]
    );
    assert_eq!(
        c.pod_by_name("p-0").unwrap().node,
        Some(shepherd::NodeId(2))
    );

    // InterPodAffinity: anti-affinity over the hostname key refuses every
    // node of the domain that holds a matching pod (n1 and n2 share one);
    // a node without the label is in no domain, so it never violates it,
    // and cannot satisfy a required affinity term over the key.
    let mut c = Cluster::new();
    c.add_node(host("n1", Some("rack-1"))).unwrap();
    c.add_node(host("n2", Some("rack-1"))).unwrap();
    c.add_node(host("n3", None)).unwrap();
    existing(&mut c, "db", "n1", 1, Resources::new(1, 0), |t| {
        t.with_label("app", "db")
    });
    existing(&mut c, "db2", "n3", 1, Resources::new(1, 0), |t| {
        t.with_label("app", "db")
    });
    c.reconcile_to_fixed_point(Profile::bin_pack());
    let away = AffinityTerm::new(Selector::new(&[("app", "db")]), None);
    c.deploy(
        DeploymentSpec::new("away", 1, Resources::new(1, 0))
            .with_template(|t| t.with_anti_affinity(away.clone())),
    )
    .unwrap();
    c.deploy(
        DeploymentSpec::new("near", 1, Resources::new(1, 0))
            .with_template(|t| t.with_affinity(away.clone())),
    )
    .unwrap();
    c.reconcile_to_fixed_point(Profile::kube_scheduler());
    let verdicts = |pod: &str| -> Vec<(String, Option<&'static str>, shepherd::Code)> {
        let e = c.explain(pod, Profile::kube_scheduler()).unwrap();
        e.nodes
            .iter()
            .map(|v| (v.node.clone(), v.plugin, v.code))
            .collect()
    };
    let ipa = Some("InterPodAffinity");
    assert_eq!(
        verdicts("away-0"),
        vec![
            ("n1".to_string(), ipa, Unschedulable),
            ("n2".to_string(), ipa, Unschedulable),
            ("n3".to_string(), None, Success),
        ]
    );
    assert_eq!(
        verdicts("near-0"),
        vec![
            ("n1".to_string(), None, Success),
            ("n2".to_string(), None, Success),
            ("n3".to_string(), ipa, Unresolvable),
        ]
    );
}

#[test]
fn nodes_shepherd_makes_carry_the_kubelets_hostname_label() {
    // NodeSpec::new registers as the kubelet does: hostname = node name
    // (a label value holds at most 63 characters: a longer name gets none).
    let n = NodeSpec::new("ip-10-0-0-1.ec2.internal", 1000, 1024 * MIB);
    assert_eq!(
        n.labels.get(HOSTNAME_KEY).map(String::as_str),
        Some("ip-10-0-0-1.ec2.internal")
    );
    let long = format!("{}.example.com", "a".repeat(60));
    let n = NodeSpec::new(&long, 1000, 1024 * MIB);
    assert!(n.validate().is_ok());
    assert!(!n.labels.contains_key(HOSTNAME_KEY));
    // The spec may give another value.
    let n = NodeSpec::new("node-1", 1000, 1024 * MIB).with_label(HOSTNAME_KEY, "host-a");
    assert_eq!(
        n.labels.get(HOSTNAME_KEY).map(String::as_str),
        Some("host-a")
    );
}
