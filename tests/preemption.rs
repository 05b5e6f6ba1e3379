//! Priority and preemption: PriorityClasses and the Priority admission
//! plugin, the PrioritySort queue, and DefaultPreemption, pinned with
//! hand-computed numbers and checked at random against a slow reference.

use shepherd::scheduler::{Preemption, PICK_RULES};
use shepherd::simulator::{Event, Simulator};
use shepherd::{
    Budget, Cluster, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec, PreemptionPolicy,
    PriorityClass, Profile, Resources, ScorePolicy, Selector, Taint, TaintEffect,
};

fn app(name: &str, replicas: u32, cpu: u64, class: Option<&str>) -> DeploymentSpec {
    DeploymentSpec::new(name, replicas, Resources::new(cpu, 1024)).with_template(|t| {
        let t = t.with_label("app", name);
        match class {
            Some(c) => t.with_priority_class(c),
            None => t,
        }
    })
}

fn events(c: &Cluster, reason: &str) -> Vec<String> {
    c.rendered_events()
        .into_iter()
        .filter(|e| e.reason == reason)
        .map(|e| format!("{} {}", e.object, e.message))
        .collect()
}

fn node_of(c: &Cluster, pod: &str) -> Option<String> {
    let p = c.pod_by_name(pod).ok()?;
    p.node.map(|n| c.node_by_id(n).unwrap().spec.name.clone())
}

/// Two full 4-CPU nodes: node-1 runs four `batch` pods (priority 100),
/// node-2 four `cheap` pods (priority 50), 1 CPU each.
fn two_full_nodes() -> Cluster {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 4000, 8192)).unwrap();
    c.add_node(NodeSpec::new("node-2", 4000, 8192)).unwrap();
    c.add_priority_class(PriorityClass::new("cheap", 50)).unwrap();
    c.add_priority_class(PriorityClass::new("batch", 100)).unwrap();
    c.add_priority_class(PriorityClass::new("web", 1000)).unwrap();
    c.deploy(app("batch", 4, 1000, Some("batch"))).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    c.deploy(app("cheap", 4, 1000, Some("cheap"))).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    for i in 0..4 {
        assert_eq!(node_of(&c, &format!("batch-{i}")).as_deref(), Some("node-1"));
        assert_eq!(node_of(&c, &format!("cheap-{i}")).as_deref(), Some("node-2"));
    }
    c
}

/// web (priority 1000, 2 CPUs) fits nowhere. Both nodes are candidates:
/// each frees 2 CPUs by deleting 2 pods. Figures (PDB violations, highest
/// victim priority, sum of priorities + 2^31 each, victims):
/// node-1: 0, 100, 2 x (100 + 2147483648) = 4294967496, 2;
/// node-2: 0, 50, 2 x (50 + 2147483648) = 4294967396, 2.
/// node-2 wins on the second rule. Its victims are the two least important
/// cheap pods (equal priority: the later started), cheap-2 and cheap-3:
/// after removing all four, cheap-0 and cheap-1 are reprieved (2 + 1 + 1 =
/// 4 CPUs), cheap-2 and cheap-3 are not.
#[test]
fn preemption_picks_the_node_whose_victims_have_the_lowest_priority() {
    let mut c = two_full_nodes();
    c.deploy(app("web", 1, 2000, Some("web"))).unwrap();
    let fp = c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert!(fp.converged);
    assert_eq!(fp.total.preempted, 2);
    assert_eq!(node_of(&c, "web-0").as_deref(), Some("node-2"));
    assert_eq!(
        events(&c, "Preempted"),
        [
            "pod/cheap-2 Preempted by pod web-0 on node node-2",
            "pod/cheap-3 Preempted by pod web-0 on node node-2"
        ]
    );
    assert_eq!(
        events(&c, "Killing"),
        [
            "pod/cheap-2 Stopping container cheap",
            "pod/cheap-3 Stopping container cheap"
        ]
    );
    // The Deployment replaced them; they wait at their own priority (50),
    // and cannot preempt batch (100).
    assert_eq!(c.pod_priority("cheap-4"), Some(50));
    assert_eq!(c.pod_priority("cheap-5"), Some(50));
    assert_eq!(node_of(&c, "cheap-4"), None);
    assert_eq!(c.pending_count(), 2);
    let pre: Preemption = c.last_preemption("web-0").unwrap();
    assert_eq!(pre.node, "node-2");
    assert_eq!(pre.decided_by, PICK_RULES[1]);
    assert_eq!(pre.candidates.len(), 2);
    assert_eq!(pre.candidates[0].victims, ["cheap-2", "cheap-3"]);
    assert_eq!(pre.candidates[0].highest_priority, 50);
    assert_eq!(pre.candidates[0].priority_sum, 4_294_967_396);
    assert_eq!(pre.candidates[1].node, "node-1");
    assert_eq!(pre.candidates[1].victims, ["batch-2", "batch-3"]);
    assert_eq!(pre.candidates[1].priority_sum, 4_294_967_496);
    // Bound where it was nominated; the nomination is cleared.
    assert_eq!(c.nominated_node("web-0"), None);
    let ex = c.explain("web-0", Profile::bin_pack()).unwrap();
    assert_eq!(ex.priority, 1000);
    assert!(
        ex.summary.contains("preemption deleted 2 lower-priority pod(s) on node-2 (cheap-2, cheap-3)"),
        "{}",
        ex.summary
    );
    assert_eq!(ex.preemption.unwrap(), pre);
}

/// The same cluster with a budget on `cheap` that allows no disruption: each
/// cheap victim violates it, so node-2 has 2 PDB violations and node-1 none:
/// node-1 wins on the first rule, and batch-2 and batch-3 go.
#[test]
fn preemption_prefers_a_node_that_breaks_no_budget() {
    let mut c = two_full_nodes();
    c.add_pdb(PdbSpec {
        name: "cheap".into(),
        selector: Selector::new(&[("app", "cheap")]),
        budget: Budget::MaxUnavailable(IntOrPercent::Int(0)),
    })
    .unwrap();
    c.deploy(app("web", 1, 2000, Some("web"))).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let pre = c.last_preemption("web-0").unwrap();
    assert_eq!(pre.node, "node-1");
    assert_eq!(pre.decided_by, PICK_RULES[0]);
    assert_eq!(pre.candidates[0].pdb_violations, 0);
    assert_eq!(pre.candidates[1].node, "node-2");
    assert_eq!(pre.candidates[1].pdb_violations, 2);
    assert_eq!(node_of(&c, "web-0").as_deref(), Some("node-1"));
    // batch's replacements (priority 100) then preempt cheap pods: node-2
    // is their only candidate, so the budget is broken, one victim each
    // (batch-4: cheap-0..2 reprieved, cheap-3 goes; batch-5, with batch-4's
    // room reserved: cheap-0 and cheap-1 reprieved, cheap-2 goes).
    assert_eq!(
        events(&c, "Preempted"),
        [
            "pod/batch-2 Preempted by pod web-0 on node node-1",
            "pod/batch-3 Preempted by pod web-0 on node node-1",
            "pod/cheap-3 Preempted by pod batch-4 on node node-2",
            "pod/cheap-2 Preempted by pod batch-5 on node node-2",
        ]
    );
    let b4 = c.last_preemption("batch-4").unwrap();
    assert_eq!((b4.candidates.len(), b4.candidates[0].pdb_violations), (1, 1));
    for p in ["cheap-0", "cheap-1", "batch-4", "batch-5"] {
        assert_eq!(node_of(&c, p).as_deref(), Some("node-2"), "{p}");
    }
    assert_eq!((node_of(&c, "cheap-4"), node_of(&c, "cheap-5")), (None, None));
}

/// Equal highest priorities: the sum decides. A 3.5-CPU pod frees node-2
/// by deleting its one 3-CPU pod (1 x (10 + 2^31)), node-1 only by deleting
/// all four 1-CPU pods (3.5 + 1 > 4 leaves none to reprieve: 4 x (10 + 2^31)).
#[test]
fn preemption_prefers_the_smallest_sum_of_victim_priorities() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 4000, 8192)).unwrap();
    c.add_node(NodeSpec::new("node-2", 4000, 8192)).unwrap();
    c.add_priority_class(PriorityClass::new("low", 10)).unwrap();
    c.add_priority_class(PriorityClass::new("high", 20)).unwrap();
    c.deploy(app("small", 4, 1000, Some("low"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    c.deploy(app("big", 1, 3000, Some("low"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(node_of(&c, "big-0").as_deref(), Some("node-2"));
    c.deploy(app("urgent", 1, 3500, Some("high"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    let pre = c.last_preemption("urgent-0").unwrap();
    assert_eq!(pre.node, "node-2");
    assert_eq!(pre.decided_by, PICK_RULES[2]);
    assert_eq!(pre.candidates[0].victims, ["big-0"]);
    assert_eq!(pre.candidates[1].victims.len(), 4);
    assert_eq!(pre.candidates[0].priority_sum, 2_147_483_658);
    assert_eq!(pre.candidates[1].priority_sum, 4 * 2_147_483_658);
    assert_eq!(node_of(&c, "urgent-0").as_deref(), Some("node-2"));
}

/// preemptionPolicy Never: the pod is queued ahead of lower priorities but
/// never preempts.
#[test]
fn a_pod_with_preemption_policy_never_waits() {
    let mut c = two_full_nodes();
    c.add_priority_class(
        PriorityClass::new("polite", 5000).with_preemption_policy(PreemptionPolicy::Never),
    )
    .unwrap();
    c.deploy(app("web", 1, 2000, Some("polite"))).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_eq!(node_of(&c, "web-0"), None);
    assert!(events(&c, "Preempted").is_empty());
    assert!(c.last_preemption("web-0").is_none());
    assert!(c.explain("web-0", Profile::bin_pack()).unwrap().preemption.is_none());
}

/// Nodes refused for reasons removing pods cannot fix are no candidates:
/// node-2 has a taint web does not tolerate, so only node-1 is tried.
#[test]
fn nodes_refused_unresolvably_are_not_candidates() {
    let mut c = two_full_nodes();
    c.taint_node("node-2", Taint::new("dedicated", "cheap", TaintEffect::NoSchedule))
        .unwrap();
    c.deploy(app("web", 1, 2000, Some("web"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    let pre = c.last_preemption("web-0").unwrap();
    assert_eq!(pre.candidates.len(), 1);
    assert_eq!(pre.node, "node-1");
    assert_eq!(pre.decided_by, "the only candidate");
    assert_eq!(node_of(&c, "web-0").as_deref(), Some("node-1"));
}

/// A pod never preempts pods of its own priority or higher.
#[test]
fn equal_priority_is_never_preempted() {
    let mut c = two_full_nodes();
    c.deploy(app("peer", 1, 2000, Some("batch"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    // node-2's cheap pods (50) are lower: two of them go, not batch's.
    assert_eq!(node_of(&c, "peer-0").as_deref(), Some("node-2"));
    let pre = c.last_preemption("peer-0").unwrap();
    assert_eq!(pre.candidates.len(), 1);
    assert!(events(&c, "Preempted")
        .iter()
        .all(|e| e.starts_with("pod/cheap-")));
}

/// PrioritySort: of two pods that both want the last slot, the higher
/// priority is scheduled first whatever the creation order.
#[test]
fn the_queue_orders_by_priority_then_arrival() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 1000, 8192)).unwrap();
    c.add_priority_class(PriorityClass::new("high", 10)).unwrap();
    c.deploy(app("first", 1, 1000, None)).unwrap();
    c.deploy(app("second", 1, 1000, Some("high"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(node_of(&c, "second-0").as_deref(), Some("node-1"));
    assert_eq!(node_of(&c, "first-0"), None);
    assert!(events(&c, "Preempted").is_empty());
    // Equal priorities keep creation order.
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 1000, 8192)).unwrap();
    c.deploy(app("first", 1, 1000, None)).unwrap();
    c.deploy(app("second", 1, 1000, None)).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(node_of(&c, "first-0").as_deref(), Some("node-1"));
}

/// The Priority admission plugin: an unknown class forbids the pods
/// (FailedCreate, once); the class appearing lets them be created; a
/// template without a class takes the globalDefault's value, else 0.
#[test]
fn admission_resolves_priority_class_names() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 4000, 8192)).unwrap();
    c.deploy(app("web", 2, 500, Some("gold"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    let failed = events(&c, "FailedCreate");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].contains("is forbidden: no PriorityClass with name gold was found"),
        "{failed:?}"
    );
    assert!(c.pod_by_name("web-0").is_err());
    c.deploy(app("plain", 1, 500, None)).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(c.pod_priority("plain-0"), Some(0));
    c.add_priority_class(PriorityClass::new("gold", 700)).unwrap();
    c.add_priority_class(PriorityClass::new("everyone", 3).with_global_default(true))
        .unwrap();
    c.deploy(app("later", 1, 500, None)).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(c.pod_priority("web-0"), Some(700));
    assert_eq!(c.pod_priority("later-0"), Some(3));
    // Pods keep the priority they were created with.
    assert_eq!(c.pod_priority("plain-0"), Some(0));
    c.add_priority_class(PriorityClass::new("crit", 1)).unwrap();
    c.deploy(app("sys", 1, 100, Some("system-node-critical"))).unwrap();
    c.reconcile_to_fixed_point(ScorePolicy::BinPack);
    assert_eq!(c.pod_priority("sys-0"), Some(2_000_001_000));
}

#[test]
fn priority_class_validation_says_what_was_wrong() {
    let mut c = Cluster::new();
    let err = |c: &mut Cluster, pc: PriorityClass| c.add_priority_class(pc).unwrap_err().to_string();
    let e = err(&mut c, PriorityClass::new("huge", 1_000_000_001));
    assert!(e.contains("expected at most 1000000000"), "{e}");
    let e = err(&mut c, PriorityClass::new("system-mine", 5));
    assert!(e.contains("reserved"), "{e}");
    let e = err(&mut c, PriorityClass::new("Bad_Name", 5));
    assert!(e.contains("Bad_Name"), "{e}");
    let e = err(&mut c, PriorityClass::new("system-node-critical", 5));
    assert!(e.contains("already exists"), "{e}");
    c.add_priority_class(PriorityClass::new("d1", 1).with_global_default(true))
        .unwrap();
    let e = err(&mut c, PriorityClass::new("d2", 2).with_global_default(true));
    assert!(e.contains("d1") && e.contains("only one default"), "{e}");
    let e = c.delete_priority_class("system-cluster-critical").unwrap_err().to_string();
    assert!(e.contains("cannot be deleted"), "{e}");
    assert!(c.delete_priority_class("nope").is_err());
    c.delete_priority_class("d1").unwrap();
    c.add_priority_class(PriorityClass::new("d2", 2).with_global_default(true))
        .unwrap();
    assert_eq!(c.priority_classes().len(), 3);
}

/// The simulator's events go through the same checks, counting what is
/// queued before them.
#[test]
fn simulator_priority_class_events_are_checked_when_submitted() {
    let mut s = Simulator::new(1, ScorePolicy::BinPack);
    s.submit(Event::AddPriorityClass(PriorityClass::new("a", 1).with_global_default(true)))
        .unwrap();
    let e = s
        .submit(Event::AddPriorityClass(PriorityClass::new("b", 1).with_global_default(true)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("only one default"), "{e}");
    let e = s
        .submit(Event::AddPriorityClass(PriorityClass::new("a", 2)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("already exists"), "{e}");
    s.submit(Event::DeletePriorityClass("a".into())).unwrap();
    assert!(s.submit(Event::DeletePriorityClass("zzz".into())).is_err());
    s.step();
    assert!(s.cluster().default_priority_class().is_none());
}

