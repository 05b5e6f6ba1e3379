//! What-if answered as a diff (core/src/whatif.rs): each test builds a
//! small cluster whose placement is forced by its constraints, works out by
//! hand what Kubernetes does after the actions (the rule is in the comment),
//! and checks the diff says exactly that.

use shepherd::quantity::MIB;
use shepherd::whatif::{what_if, Action, Cause, NodeState, WhatIf};
use shepherd::{
    Budget, Cluster, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec, Profile, Resources, Selector,
    TopologySpreadConstraint, WhenUnsatisfiable,
};

const ZONE: &str = "topology.kubernetes.io/zone";

fn node(name: &str, cpu: u64, zone: &str) -> NodeSpec {
    NodeSpec::new(name, cpu, 8192 * MIB).with_label(ZONE, zone)
}

fn converge(c: &mut Cluster) {
    assert!(
        c.reconcile_to_fixed_point(&Profile::kube_scheduler())
            .converged
    );
}

fn on(c: &Cluster, node: &str) -> Vec<String> {
    let id = c.node(node).unwrap().id;
    let mut v: Vec<String> = c
        .pods_on(id)
        .map(|p| c.short_pod_names(&p.name()))
        .collect();
    v.sort();
    v
}

fn run(c: &Cluster, actions: &[Action]) -> WhatIf {
    what_if(c, &Profile::kube_scheduler(), actions).expect("the what-if should run")
}

fn deleted(c: &Cluster, w: &WhatIf) -> Vec<(String, Option<String>, u64, Cause)> {
    w.deleted
        .iter()
        .map(|d| {
            (
                c.short_pod_names(&d.pod),
                d.node.clone(),
                d.tick,
                d.cause.clone(),
            )
        })
        .collect()
}

fn moves(c: &Cluster, w: &WhatIf) -> Vec<(String, Option<String>, String, Option<String>)> {
    w.moves
        .iter()
        .map(|m| {
            (
                c.short_pod_names(&m.deleted),
                m.from.clone(),
                c.short_pod_names(&m.replacement),
                m.to.clone(),
            )
        })
        .collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

/// `web` (2 replicas, Ready 7 s after binding) runs on n1 alone (n2 was
/// cordoned while it was placed), under a budget of minAvailable 1.
fn two_on_n1(ready_after: u32) -> Cluster {
    let mut c = Cluster::new();
    c.add_node(node("n1", 4000, "a")).unwrap();
    c.add_node(node("n2", 4000, "b")).unwrap();
    c.cordon("n2").unwrap();
    c.deploy(
        DeploymentSpec::new("web", 2, Resources::new(1000, 512 * MIB))
            .with_template(|t| t.with_ready_after(ready_after)),
    )
    .unwrap();
    c.add_pdb(PdbSpec {
        name: "web-pdb".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MinAvailable(IntOrPercent::Int(1)),
    })
    .unwrap();
    converge(&mut c);
    c.set_now(c.now() + ready_after as u64 + 1);
    converge(&mut c);
    c.uncordon("n2").unwrap();
    c.set_now(c.now() + 1);
    converge(&mut c);
    assert_eq!(on(&c, "n1"), ["web-0", "web-1"]);
    assert!(on(&c, "n2").is_empty());
    c
}

#[test]
fn a_drain_under_a_budget_evicts_one_pod_then_waits_for_its_replacement_to_be_ready() {
    let before = two_on_n1(7);
    let t = before.now() + 1; // the drain's tick
    let w = run(&before, &[Action::Drain(s("n1"))]);
    assert!(w.settled);
    // kubectl drain lists web-0, web-1 (name order) and evicts at once:
    // web-0 goes (2 healthy, 1 needed: 1 disruption allowed); web-1 is
    // refused (1 healthy, 1 needed). web-0's replacement web-2 is bound on
    // n2 at t (n1 is cordoned) and Ready at t + 7. kubectl retries every
    // 5 s: at t + 5 web-2 is not Ready yet (refused again), at t + 10 it is
    // (2 healthy): web-1 goes, replaced by web-3 on n2.
    assert_eq!(
        deleted(&before, &w),
        [
            (s("web-0"), Some(s("n1")), t, Cause::Eviction),
            (s("web-1"), Some(s("n1")), t + 10, Cause::Eviction),
        ]
    );
    assert_eq!(w.blocked.len(), 1);
    let b = &w.blocked[0];
    assert_eq!(
        (
            before.short_pod_names(&b.pod).as_str(),
            b.node.as_str(),
            b.pdb.as_str()
        ),
        ("web-1", "n1", "web-pdb")
    );
    assert_eq!((b.from, b.until, b.refusals), (t, Some(t + 10), 2));
    assert!(
        b.message.contains("disruption budget web-pdb"),
        "{}",
        b.message
    );
    assert_eq!(
        moves(&before, &w),
        [
            (s("web-0"), Some(s("n1")), s("web-2"), Some(s("n2"))),
            (s("web-1"), Some(s("n1")), s("web-3"), Some(s("n2"))),
        ]
    );
    assert_eq!((w.moves[0].created_at, w.moves[1].created_at), (t, t + 10));
    assert_eq!(w.drains.len(), 1);
    assert_eq!(w.drains[0].finished, Some(t + 10));
    assert_eq!(w.drains[0].status, "node/n1 drained");
    assert!(w.pending.is_empty());
    // Availability: one pod of two from t (web-0 gone, web-2 not Ready) until
    // web-2 is Ready at t + 7; web-3 is not Ready until t + 17.
    let d = &w.deployments[0];
    assert_eq!((d.name.as_str(), d.min_available, d.min_at), ("web", 1, t));
    assert!(d.lost_availability && !d.stalled);
    assert_eq!((d.available_before, d.available_after), (2, 2));
    // n1: 2 pods, 2000m of 4000m, then cordoned and empty; n2 takes both.
    let n1 = w.nodes.iter().find(|n| n.name == "n1").unwrap();
    assert_eq!(
        (n1.state_before, n1.state_after),
        (NodeState::Ready, NodeState::SchedulingDisabled)
    );
    assert_eq!((n1.before.cpu_requested, n1.after.cpu_requested), (2000, 0));
    let n2 = w.nodes.iter().find(|n| n.name == "n2").unwrap();
    assert_eq!((n2.before.pods, n2.after.pods), (0, 2));
    // The whole: 8000m schedulable before (2000m requested), 4000m after
    // (n1 cordoned), all of it on n2.
    assert_eq!(
        (w.total.before.cpu_allocatable, w.total.before.cpu_requested),
        (8000, 2000)
    );
    assert_eq!(
        (w.total.after.cpu_allocatable, w.total.after.cpu_requested),
        (4000, 2000)
    );
    // The before cluster is untouched; the after cluster is the end state.
    assert_eq!(on(&before, "n1"), ["web-0", "web-1"]);
    assert_eq!(on(&w.after, "n2"), ["web-2", "web-3"]);
}

#[test]
fn a_zone_failure_evicts_after_the_grace_period_and_the_toleration() {
    let mut c = Cluster::new();
    c.add_node(node("a1", 4000, "a")).unwrap();
    c.add_node(node("b1", 4000, "b")).unwrap();
    c.add_node(node("c1", 8000, "c")).unwrap();
    // web: one pod a zone (maxSkew 1, DoNotSchedule); db: zone a only.
    let spread = TopologySpreadConstraint::new(
        1,
        ZONE,
        WhenUnsatisfiable::DoNotSchedule,
        Selector::new(&[("app", "web")]),
    );
    c.deploy(
        DeploymentSpec::new("web", 3, Resources::new(500, 256 * MIB))
            .with_template(|t| t.with_topology_spread(spread)),
    )
    .unwrap();
    c.deploy(
        DeploymentSpec::new("db", 1, Resources::new(1000, 1024 * MIB))
            .with_template(|t| t.with_node_selector(ZONE, "a")),
    )
    .unwrap();
    converge(&mut c);
    let a1 = on(&c, "a1");
    assert_eq!(a1.len(), 2, "{a1:?}");
    assert!(a1.contains(&s("db-0")));
    let web_a = a1.iter().find(|p| p.starts_with("web-")).unwrap().clone();
    let t = c.now() + 1; // the failure's tick: a1's last heartbeat
    let w = run(&c, &[Action::FailZone(s("a"))]);
    assert!(w.settled);
    // node-monitor-grace-period: NotReady once more than 50 s passed since
    // the last heartbeat, at t + 51; the unreachable NoExecute taint then
    // evicts pods without a toleration after DefaultTolerationSeconds
    // (300 s): both at t + 351, by the taint-eviction controller.
    let mut want = vec![
        (s("db-0"), Some(s("a1")), t + 351, Cause::TaintEviction),
        (web_a.clone(), Some(s("a1")), t + 351, Cause::TaintEviction),
    ];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(deleted(&c, &w), want);
    // Neither replacement can go anywhere: db's nodeSelector admits a1
    // only (untolerated taint); web's zone a still counts as a domain (the
    // default nodeTaintsPolicy is Ignore) with 0 pods, so a web pod in b or
    // c would make the skew 2 > 1.
    assert_eq!(w.pending.len(), 2);
    let msg = |owner: &str| {
        w.pending
            .iter()
            .find(|p| p.owner == owner)
            .map(|p| p.message.clone())
            .unwrap()
    };
    assert!(
        msg("db").starts_with("0/3 nodes are available"),
        "{}",
        msg("db")
    );
    assert!(msg("db").contains("1 node(s) had untolerated taint"));
    assert!(msg("db").contains("2 node(s) didn't match Pod's node affinity/selector"));
    assert!(msg("web").contains("2 node(s) didn't match pod topology spread constraints"));
    assert!(w.pending.iter().all(|p| !p.was_pending));
    // Replaced, but Pending: no node to go to.
    assert_eq!(w.moves.len(), 2);
    assert!(w
        .moves
        .iter()
        .all(|m| m.to.is_none() && m.created_at == t + 351));
    // Both Deployments stalled: db 0/1, web 2/3, from t + 51, when a1
    // went NotReady and the node controller marked its pods not Ready
    // (MarkPodsNotReady): availability is lost 300 s before the evictions.
    for (name, avail) in [("db", 0), ("web", 2)] {
        let d = w.deployments.iter().find(|d| d.name == name).unwrap();
        assert_eq!((d.available_after, d.min_at), (avail, t + 51), "{name}");
        assert_eq!(d.unavailable_ticks, w.end - (t + 51) + 1, "{name}");
        assert!(d.stalled && d.lost_availability, "{name}");
    }
    // Zone a: one schedulable node before, none after.
    let za = w.zones.iter().find(|z| z.zone == "a").unwrap();
    assert_eq!((za.schedulable_before, za.schedulable_after), (1, 0));
    assert_eq!((za.nodes_before, za.nodes_after), (1, 1));
    let n = w.nodes.iter().find(|n| n.name == "a1").unwrap();
    assert_eq!(n.state_after, NodeState::NotReady);
    assert_eq!(n.after.pods, 0);
}

#[test]
fn a_scale_up_that_does_not_fit_leaves_the_surplus_pending_with_the_schedulers_message() {
    let mut c = Cluster::new();
    c.add_node(node("n1", 2000, "a")).unwrap();
    c.add_node(node("n2", 2000, "b")).unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        2,
        Resources::new(800, 256 * MIB),
    ))
    .unwrap();
    converge(&mut c);
    let t = c.now() + 1;
    let w = run(
        &c,
        &[Action::Scale {
            deployment: s("web"),
            replicas: 5,
        }],
    );
    assert!(w.settled);
    // Each node holds two 800m pods (1600m of 2000m): four in all. The
    // fifth fits nowhere, and has no lower-priority victim to preempt.
    assert!(w.deleted.is_empty() && w.moves.is_empty());
    assert_eq!(w.created.len(), 3);
    assert!(w.created.iter().all(|p| p.created_at == t));
    assert_eq!(w.created.iter().filter(|p| p.node.is_some()).count(), 2);
    assert_eq!(w.pending.len(), 1);
    assert!(
        w.pending[0]
            .message
            .starts_with("0/2 nodes are available: 2 Insufficient cpu."),
        "{}",
        w.pending[0].message
    );
    let d = &w.deployments[0];
    assert_eq!(
        (d.desired_before, d.desired_after, d.available_after),
        (2, 5, 4)
    );
    assert!(d.stalled);
    // cpu: 1600m of 4000m before, 3200m after; free 2400m -> 800m.
    assert_eq!(w.total.before.free().0, 2400);
    assert_eq!(w.total.after.free().0, 800);
}

/// n1 4000m, n2 8000m: LeastAllocated puts web's pods on n2.
fn small_and_big() -> Cluster {
    let mut c = Cluster::new();
    c.add_node(node("n1", 4000, "a")).unwrap();
    c.add_node(node("n2", 8000, "b")).unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        1,
        Resources::new(1000, 256 * MIB),
    ))
    .unwrap();
    converge(&mut c);
    assert_eq!(on(&c, "n2"), ["web-0"]);
    c
}

#[test]
fn combined_actions_apply_in_the_order_given() {
    let c = small_and_big();
    let t = c.now() + 1;
    let scale = Action::Scale {
        deployment: s("web"),
        replicas: 2,
    };
    // Cordon n1 first: the new pod can only go to n2.
    let w = run(&c, &[Action::Cordon(s("n1")), scale.clone()]);
    assert_eq!(
        w.actions.iter().map(|a| a.tick).collect::<Vec<_>>(),
        [t, t + 1]
    );
    assert_eq!(w.created.len(), 1);
    assert_eq!(w.created[0].node.as_deref(), Some("n2"));
    assert!(w.deleted.is_empty());
    // Scale first: the new pod lands on n1 (empty: LeastAllocated and the
    // default hostname spread prefer it), and the cordon evicts nothing (a
    // cordon only keeps new pods away).
    let w = run(&c, &[scale.clone(), Action::Cordon(s("n1"))]);
    assert_eq!(w.created[0].node.as_deref(), Some("n1"));
    assert!(w.deleted.is_empty());
    // Scale, then drain n1: the drain lists web-1 (placed there a second
    // before) and evicts it (no budget); its replacement goes to n2, the
    // only schedulable node.
    let w = run(&c, &[scale.clone(), Action::Drain(s("n1"))]);
    assert_eq!(
        deleted(&c, &w),
        [(s("web-1"), Some(s("n1")), t + 1, Cause::Eviction)]
    );
    assert!(!w.deleted[0].existed_before);
    assert_eq!(
        moves(&c, &w),
        [(s("web-1"), Some(s("n1")), s("web-2"), Some(s("n2")))]
    );
    assert_eq!(on(&w.after, "n2"), ["web-0", "web-2"]);
    assert_eq!(w.created.len(), 2);
    assert!(w.created[0].deleted && !w.created[1].deleted);
    // Drain first: nothing to evict on n1; the new pod goes to n2.
    let w = run(&c, &[Action::Drain(s("n1")), scale]);
    assert!(w.deleted.is_empty() && w.blocked.is_empty());
    assert_eq!(w.drains[0].listed, 0);
    assert_eq!(on(&w.after, "n2"), ["web-0", "web-1"]);
    // Then delete n1: its pods go with it (the pod garbage collector) and
    // n2, cordoned, takes none: both Pending.
    let w = run(
        &c,
        &[
            Action::Cordon(s("n2")),
            Action::Scale {
                deployment: s("web"),
                replicas: 2,
            },
            Action::DeleteNode(s("n1")),
        ],
    );
    let gone: Vec<_> = deleted(&c, &w);
    assert_eq!(
        gone,
        [(s("web-1"), Some(s("n1")), t + 2, Cause::NodeDeleted)]
    );
    assert_eq!(w.pending.len(), 1);
    assert!(
        w.pending[0].message.contains("unschedulable"),
        "{}",
        w.pending[0].message
    );
    let n1 = w.nodes.iter().find(|n| n.name == "n1").unwrap();
    assert_eq!(n1.state_after, NodeState::Absent);
}

#[test]
fn unknown_names_are_refused_with_some_that_exist() {
    let c = small_and_big();
    let e = |a: Action| {
        what_if(&c, &Profile::kube_scheduler(), &[a])
            .unwrap_err()
            .to_string()
    };
    let m = e(Action::Drain(s("n9")));
    assert!(m.contains("no node \"n9\"") && m.contains("n1, n2"), "{m}");
    let m = e(Action::FailZone(s("z")));
    assert!(m.contains("a, b"), "{m}");
    let m = e(Action::Scale {
        deployment: s("api"),
        replicas: 1,
    });
    assert!(
        m.contains("no Deployment \"api\"") && m.contains("web"),
        "{m}"
    );
    // A node deleted by an earlier action is gone for a later one.
    let m = what_if(
        &c,
        &Profile::kube_scheduler(),
        &[Action::DeleteNode(s("n1")), Action::Drain(s("n1"))],
    )
    .unwrap_err()
    .to_string();
    assert!(m.starts_with("drain n1: no node"), "{m}");
    assert!(what_if(&c, &Profile::kube_scheduler(), &[]).is_err());
}

#[test]
fn the_same_cluster_and_actions_give_the_same_diff() {
    let c = two_on_n1(3);
    let a = [Action::Drain(s("n1")), Action::FailNode(s("n2"))];
    let (x, y) = (run(&c, &a), run(&c, &a));
    assert_eq!(
        (&x.deleted, &x.moves, &x.pending, &x.blocked, &x.nodes, x.end),
        (&y.deleted, &y.moves, &y.pending, &y.blocked, &y.nodes, y.end)
    );
    assert_eq!(x.after.rendered_events(), y.after.rendered_events());
}

/// n1 runs web-0 (one replica); n2 is schedulable and empty; n3 is
/// cordoned.
fn one_on_n1_n3_cordoned() -> Cluster {
    let mut c = Cluster::new();
    for n in ["n1", "n2", "n3"] {
        c.add_node(node(n, 4000, "a")).unwrap();
    }
    c.cordon("n2").unwrap();
    c.cordon("n3").unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        1,
        Resources::new(1000, 256 * MIB),
    ))
    .unwrap();
    converge(&mut c);
    c.uncordon("n2").unwrap();
    c.set_now(c.now() + 1);
    converge(&mut c);
    assert_eq!(on(&c, "n1"), ["web-0"]);
    c
}

#[test]
fn a_replacement_that_a_later_drain_evicts_is_counted_and_shown_where_it_ran() {
    let c = one_on_n1_n3_cordoned();
    let t = c.now() + 1;
    let w = run(&c, &[Action::Drain(s("n1")), Action::Drain(s("n2"))]);
    assert!(w.settled);
    // Drain n1 at t: web-0 is evicted (no budget); the ReplicaSet creates
    // web-1, bound at t on n2, the only schedulable node. Drain n2 at t + 1:
    // web-1 is evicted in its turn; web-2 has nowhere to go (n1 and n2
    // cordoned by their drains, n3 cordoned): Pending.
    assert_eq!(
        deleted(&c, &w),
        [
            (s("web-0"), Some(s("n1")), t, Cause::Eviction),
            (s("web-1"), Some(s("n2")), t + 1, Cause::Eviction),
        ]
    );
    assert!(w.deleted[0].existed_before && !w.deleted[1].existed_before);
    // One move per deletion, as Kubernetes sees it (each evicted pod is
    // replaced by a new one): web-0 -> web-1, which ran on n2 from t until
    // the second drain deleted it (not "Pending"), then web-1 -> web-2,
    // Pending at the end.
    assert_eq!(
        moves(&c, &w),
        [
            (s("web-0"), Some(s("n1")), s("web-1"), Some(s("n2"))),
            (s("web-1"), Some(s("n2")), s("web-2"), None),
        ]
    );
    assert_eq!(
        (w.moves[0].bound_at, w.moves[0].replacement_deleted_at),
        (Some(t), Some(t + 1))
    );
    assert_eq!(
        (w.moves[1].bound_at, w.moves[1].replacement_deleted_at),
        (None, None)
    );
    // The counts agree: every deletion of an owned pod has its move.
    assert_eq!(w.moves.len(), w.deleted.len());
    assert_eq!(w.pending.len(), 1);
    assert_eq!(c.short_pod_names(&w.pending[0].pod), "web-2");
    // The created pods: web-1 deleted again, web-2 Pending.
    assert_eq!(w.created.len(), 2);
    assert!(w.created[0].deleted && w.created[0].node.is_none());
    assert!(!w.created[1].deleted && w.created[1].node.is_none());
}

#[test]
fn a_report_restricted_to_a_namespace_keeps_its_pods_and_deployments_and_every_node() {
    let mut c = Cluster::new();
    c.add_node(node("n1", 8000, "a")).unwrap();
    c.add_node(node("n2", 8000, "b")).unwrap();
    c.cordon("n2").unwrap();
    c.deploy(DeploymentSpec::new(
        "web",
        2,
        Resources::new(500, 256 * MIB),
    ))
    .unwrap();
    c.deploy(DeploymentSpec::new(
        "shop/api",
        1,
        Resources::new(500, 256 * MIB),
    ))
    .unwrap();
    converge(&mut c);
    c.uncordon("n2").unwrap();
    c.set_now(c.now() + 1);
    converge(&mut c);
    assert_eq!(on(&c, "n1").len(), 3);
    let whole = run(&c, &[Action::Drain(s("n1"))]);
    // The drain evicts all three (no budget); each is replaced on n2.
    assert_eq!((whole.deleted.len(), whole.moves.len()), (3, 3));
    assert_eq!(whole.deployments.len(), 2);
    let mut shop = whole.clone();
    shop.restrict_to_namespace("shop");
    assert_eq!(shop.namespace.as_deref(), Some("shop"));
    // The pods and Deployments of shop alone: api's pod, its replacement.
    assert_eq!(shop.deleted.len(), 1);
    assert!(
        shop.deleted[0].pod.starts_with("shop/api-"),
        "{:?}",
        shop.deleted[0]
    );
    assert_eq!(shop.moves.len(), 1);
    assert!(shop.moves[0].replacement.starts_with("shop/api-"));
    assert_eq!(shop.created.len(), 1);
    assert_eq!(
        shop.deployments
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["shop/api"]
    );
    // Cluster-scoped sections stay whole: the drain lists every pod of its
    // node, and the nodes, zones and total count every namespace's pods.
    assert_eq!(shop.drains, whole.drains);
    assert_eq!(shop.drains[0].listed, 3);
    assert_eq!(shop.nodes, whole.nodes);
    assert_eq!(shop.zones, whole.zones);
    assert_eq!(shop.total, whole.total);
    // default: web's two pods, in both spellings of the namespace.
    for ns in ["default", ""] {
        let mut d = whole.clone();
        d.restrict_to_namespace(ns);
        assert_eq!(d.namespace.as_deref(), Some("default"));
        assert_eq!(d.deleted.len(), 2);
        assert!(d.deleted.iter().all(|x| !x.pod.contains('/')));
        assert_eq!(
            d.deployments
                .iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>(),
            ["web"]
        );
    }
    // A namespace with nothing in it: empty sections, nodes still there.
    let mut none = whole.clone();
    none.restrict_to_namespace("blog");
    assert!(none.deleted.is_empty() && none.moves.is_empty() && none.deployments.is_empty());
    assert_eq!(none.nodes.len(), 2);
}

/// The speed figure (docs/whatif.md): a drain of 100 nodes on the
/// 5,000-node / 150,000-pod envelope, against the same simulation without
/// the diff (the same copy of the cluster, the same actions, the same
/// ticks). `cargo test -p shepherd --release --test whatif -- --ignored --nocapture`
#[test]
#[ignore]
fn speed_of_a_100_node_drain_at_the_envelope() {
    use shepherd::simulator::{Event, Simulator};
    use std::time::Instant;
    let (ns, ds) = shepherd::workload::envelope(42, 5000, 150000, 500, false);
    let mut c = Cluster::new();
    for n in ns {
        c.add_node(n).unwrap();
    }
    for d in ds {
        c.deploy(d).unwrap();
    }
    let profile = Profile::kube_scheduler();
    let t = Instant::now();
    assert!(c.reconcile_to_fixed_point(&profile).converged);
    println!("converged 150,000 pods in {:.2?}", t.elapsed());
    let drained: Vec<String> = (1..=100).map(|i| format!("node-{}", i * 50)).collect();
    let actions: Vec<Action> = drained.iter().cloned().map(Action::Drain).collect();
    let (mut best_whole, mut best_engine) = (f64::MAX, f64::MAX);
    for round in 0..5 {
        let t = Instant::now();
        let w = what_if(&c, &profile, &actions).unwrap();
        let whole = t.elapsed();
        // The engine alone: a copy, the same drains one a tick, the same ticks.
        let t = Instant::now();
        let mut sim = Simulator::new(0, profile.clone());
        *sim.cluster_mut() = c.clone();
        for (i, n) in drained.iter().enumerate() {
            sim.schedule(c.now() + 1 + i as u64, Event::Drain(n.clone()))
                .unwrap();
        }
        for _ in c.now()..w.end {
            sim.step();
        }
        let engine = t.elapsed();
        assert_eq!(sim.cluster().pods().count(), w.after.pods().count());
        println!(
            "round {round}: what-if {whole:.2?}, the engine's simulation alone {engine:.2?}, the diff's own work {:.2?}; {} pods deleted, {} replaced, {} Pending, {} ticks",
            whole.saturating_sub(engine),
            w.deleted.len(),
            w.moves.len(),
            w.pending.len(),
            w.end - w.start
        );
        best_whole = best_whole.min(whole.as_secs_f64());
        best_engine = best_engine.min(engine.as_secs_f64());
    }
    println!(
        "best of 5: what-if {:.1} ms, the engine alone {:.1} ms, the diff's own work {:.1} ms",
        best_whole * 1e3,
        best_engine * 1e3,
        (best_whole - best_engine) * 1e3
    );
}
