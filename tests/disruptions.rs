//! Pinned scenarios for disruptions as Kubernetes has them: NoExecute taints
//! on running nodes and tolerationSeconds (the taint-eviction controller),
//! taints removed again, and zone failures. One tick is one second of
//! cluster time, so tolerationSeconds count ticks.
//!
//! ```text
//! cargo test -p shepherd --test disruptions
//! ```

use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Simulator};
use shepherd::verify::{verify_capacity, verify_constraints};
use shepherd::{
    DeploymentSpec, Error, NodeSpec, Resources, ScorePolicy, Taint, TaintEffect, Toleration,
};

const ZONE: &str = "topology.kubernetes.io/zone";

fn node(name: &str, zone: &str) -> NodeSpec {
    NodeSpec::new(name, 4000, 8192 * MIB).with_label(ZONE, zone)
}

fn app(name: &str, replicas: u32, tolerations: Vec<Toleration>) -> DeploymentSpec {
    DeploymentSpec::new(name, replicas, Resources::new(500, 512 * MIB)).with_template(|mut t| {
        t.tolerations = tolerations;
        t.with_ready_after(0)
    })
}

/// The nodes each app's pods run on, sorted: (pod, node).
fn placement(sim: &Simulator) -> Vec<(String, Option<String>)> {
    let c = sim.cluster();
    let mut v: Vec<(String, Option<String>)> = c
        .pods()
        .map(|p| {
            let n = p
                .node
                .and_then(|id| c.nodes().find(|n| n.id == id))
                .map(|n| n.name().to_string());
            (c.short_pod_names(&p.name()), n)
        })
        .collect();
    v.sort();
    v
}

fn on(sim: &Simulator, node: &str) -> Vec<String> {
    placement(sim)
        .into_iter()
        .filter(|(_, n)| n.as_deref() == Some(node))
        .map(|(p, _)| p)
        .collect()
}

fn events(sim: &Simulator, reason: &str) -> Vec<(u64, String, String)> {
    let c = sim.cluster();
    c.rendered_events()
        .into_iter()
        .filter(|e| e.reason == reason)
        .map(|e| {
            (
                e.tick,
                c.short_pod_names(&e.object),
                c.short_pod_names(&e.message),
            )
        })
        .collect()
}

fn check(sim: &Simulator) {
    verify_capacity(sim.cluster()).unwrap();
    verify_constraints(sim.cluster()).unwrap();
}

/// Kubernetes' documentation ("Taints and Tolerations", taint based
/// evictions): a pod that does not tolerate a NoExecute taint is evicted at
/// once; one that tolerates it with tolerationSeconds 3600 stays 3600 seconds;
/// one that tolerates it without tolerationSeconds stays for good.
#[test]
fn a_no_execute_taint_evicts_at_once_after_toleration_seconds_or_never() {
    let key = "node.kubernetes.io/maintenance";
    let ne = || Toleration::exists(key, Some(TaintEffect::NoExecute));
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", "zone-a")))
        .unwrap();
    sim.step();
    for (name, tol) in [
        ("plain", vec![]),
        ("hour", vec![ne().for_seconds(3600)]),
        ("forever", vec![ne()]),
    ] {
        sim.submit(Event::Deploy(app(name, 1, tol))).unwrap();
    }
    sim.step();
    assert_eq!(on(&sim, "node-1"), ["forever-0", "hour-0", "plain-0"]);
    sim.submit(Event::AddNode(node("node-2", "zone-a")))
        .unwrap();
    sim.step();

    // Taint node-1 at tick 3.
    sim.submit(Event::TaintNode {
        node: "node-1".into(),
        taint: Taint::new(key, "", TaintEffect::NoExecute),
    })
    .unwrap();
    let r = sim.step();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let t0 = sim.tick();
    check(&sim);
    // plain-0 went at once and its replacement runs elsewhere.
    assert_eq!(on(&sim, "node-1"), ["forever-0", "hour-0"]);
    assert_eq!(on(&sim, "node-2"), ["plain-1"]);
    let marks = events(&sim, "TaintManagerEviction");
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0].0, t0);
    assert_eq!(marks[0].1, "pod/plain-0");
    // taint_eviction.go, emitPodDeletionEvent: the namespaced name alone.
    assert_eq!(marks[0].2, "Marking for deletion Pod default/plain-0");

    // hour-0 stays for 3599 more ticks ...
    sim.run(3599);
    assert_eq!(
        on(&sim, "node-1"),
        ["forever-0", "hour-0"],
        "at tick {}",
        sim.tick()
    );
    // ... and goes at tick t0 + 3600, exactly.
    sim.step();
    assert_eq!(sim.tick(), t0 + 3600);
    assert!(
        !placement(&sim).iter().any(|(p, _)| p == "hour-0"),
        "hour-0 is gone"
    );
    // Its replacement tolerates the taint for an hour too: bin-packing puts it
    // back on node-1, with a fresh hour.
    assert_eq!(on(&sim, "node-1"), ["forever-0", "hour-1"]);
    let last = events(&sim, "TaintManagerEviction").pop().unwrap();
    assert_eq!((last.0, last.1.as_str()), (t0 + 3600, "pod/hour-0"));
    assert_eq!(last.2, "Marking for deletion Pod default/hour-0");
    sim.run(3599);
    assert_eq!(on(&sim, "node-1"), ["forever-0", "hour-1"]);
    sim.step();
    assert_eq!(
        on(&sim, "node-1"),
        ["forever-0", "hour-2"],
        "forever-0 never leaves"
    );
    check(&sim);
}

/// Removing the taint before the timer runs out cancels the eviction
/// ("Cancelling deletion of Pod"); NoSchedule and PreferNoSchedule taints
/// never evict a running pod.
#[test]
fn untainting_cancels_the_timer_and_no_schedule_only_affects_scheduling() {
    let key = "maintenance";
    let mut sim = Simulator::new(2, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", "zone-a")))
        .unwrap();
    sim.step();
    let tol = Toleration::exists(key, Some(TaintEffect::NoExecute)).for_seconds(30);
    sim.submit(Event::Deploy(app("web", 2, vec![tol]))).unwrap();
    sim.step();
    sim.submit(Event::TaintNode {
        node: "node-1".into(),
        taint: Taint::new(key, "", TaintEffect::NoExecute),
    })
    .unwrap();
    sim.run(10);
    sim.submit(Event::UntaintNode {
        node: "node-1".into(),
        key: key.into(),
        effect: Some(TaintEffect::NoExecute),
    })
    .unwrap();
    sim.step();
    let cancels: Vec<String> = events(&sim, "TaintManagerEviction")
        .into_iter()
        .map(|e| e.2)
        .collect();
    assert_eq!(
        cancels,
        [
            "Cancelling deletion of Pod default/web-0",
            "Cancelling deletion of Pod default/web-1"
        ]
    );
    sim.run(60);
    assert_eq!(on(&sim, "node-1"), ["web-0", "web-1"], "nothing evicted");

    // NoSchedule: running pods stay, new ones go elsewhere (or wait).
    sim.submit(Event::TaintNode {
        node: "node-1".into(),
        taint: Taint::new("dedicated", "gpu", TaintEffect::NoSchedule),
    })
    .unwrap();
    sim.submit(Event::Scale {
        app: "web".into(),
        replicas: 3,
    })
    .unwrap();
    sim.step();
    assert_eq!(on(&sim, "node-1"), ["web-0", "web-1"]);
    let pending =
        (sim.cluster().pending_pods().next()).map(|p| sim.cluster().short_pod_names(&p.name()));
    assert_eq!(pending.as_deref(), Some("web-2"));
    check(&sim);
    // Untainting every effect of the key lets it in.
    sim.submit(Event::UntaintNode {
        node: "node-1".into(),
        key: "dedicated".into(),
        effect: None,
    })
    .unwrap();
    sim.step();
    assert_eq!(on(&sim, "node-1"), ["web-0", "web-1", "web-2"]);
}

/// Taint and untaint go through the one validation path: a refusal says
/// what was wrong and changes nothing.
#[test]
fn bad_taint_actions_are_refused_with_a_reason_and_change_nothing() {
    let mut sim = Simulator::new(3, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(
        node("node-1", "zone-a").with_taint(Taint::new("a", "x", TaintEffect::NoSchedule)),
    ))
    .unwrap();
    sim.step();
    let before = sim.script().len();
    let refused = |sim: &mut Simulator, e: Event| -> String {
        match sim.submit(e) {
            Err(e) => e.to_string(),
            Ok(()) => panic!("accepted"),
        }
    };
    let m = refused(
        &mut sim,
        Event::TaintNode {
            node: "ghost".into(),
            taint: Taint::new("a", "", TaintEffect::NoExecute),
        },
    );
    assert!(m.contains("ghost") && m.contains("not found"), "{m}");
    let m = refused(
        &mut sim,
        Event::TaintNode {
            node: "node-1".into(),
            taint: Taint::new("a", "y", TaintEffect::NoSchedule),
        },
    );
    assert!(m.contains("already has taint a=x:NoSchedule"), "{m}");
    let m = refused(
        &mut sim,
        Event::TaintNode {
            node: "node-1".into(),
            taint: Taint::new("bad key!", "", TaintEffect::NoSchedule),
        },
    );
    assert!(m.contains("taint key"), "{m}");
    let m = refused(
        &mut sim,
        Event::UntaintNode {
            node: "node-1".into(),
            key: "a".into(),
            effect: Some(TaintEffect::NoExecute),
        },
    );
    assert!(
        m.contains("has no taint") && m.contains("a=x:NoSchedule"),
        "{m}"
    );
    let m = refused(
        &mut sim,
        Event::FailZone {
            key: ZONE.into(),
            value: "zone-z".into(),
        },
    );
    assert!(
        m.contains("no node has label") && m.contains("zone-z"),
        "{m}"
    );
    assert_eq!(sim.script().len(), before);

    // tolerationSeconds needs effect NoExecute, as Kubernetes validates it.
    let wrong = Toleration::exists("a", Some(TaintEffect::NoSchedule)).for_seconds(5);
    let m = refused(&mut sim, Event::Deploy(app("web", 1, vec![wrong])));
    assert!(
        m.contains("tolerationSeconds") && m.contains("NoExecute"),
        "{m}"
    );
    let any = Toleration::exists("a", None).for_seconds(5);
    assert!(sim.submit(Event::Deploy(app("web", 1, vec![any]))).is_err());
    let huge = Toleration::exists("a", Some(TaintEffect::NoExecute)).for_seconds(u64::MAX);
    assert!(sim
        .submit(Event::Deploy(app("web", 1, vec![huge])))
        .is_err());
    let e = sim.cluster_mut().untaint_node("node-1", "zzz", None);
    assert!(matches!(e, Err(Error::Invalid(_))));
}

/// A zone failure: every node of zone-a stops heart-beating at once, goes
/// NotReady after the node monitor grace period (50 s), its pods turn not
/// Ready but stay for DefaultTolerationSeconds' 300 s, then are evicted and
/// replaced in the other zone; nodes elsewhere are untouched.
#[test]
fn a_zone_failure_fails_every_node_of_the_zone() {
    let mut sim = Simulator::new(4, ScorePolicy::BinPack);
    for (n, z) in [
        ("a-1", "zone-a"),
        ("a-2", "zone-a"),
        ("b-1", "zone-b"),
        ("b-2", "zone-b"),
    ] {
        sim.submit(Event::AddNode(node(n, z))).unwrap();
    }
    sim.step();
    sim.submit(Event::Deploy(app("web", 8, vec![]))).unwrap();
    sim.run(2);
    assert_eq!(sim.cluster().pending_count(), 0);
    let on_a = on(&sim, "a-1").len() + on(&sim, "a-2").len();
    assert!(on_a > 0);
    sim.submit(Event::FailZone {
        key: ZONE.into(),
        value: "zone-a".into(),
    })
    .unwrap();
    sim.step();
    let failed_at = sim.tick();
    let silent: Vec<String> = sim
        .cluster()
        .nodes()
        .filter(|n| !n.beating)
        .map(|n| n.name().to_string())
        .collect();
    assert_eq!(silent, ["a-1", "a-2"]);
    sim.run(shepherd::DEFAULT_HEARTBEAT_TIMEOUT + 2);
    let not_ready: Vec<String> = events(&sim, "NodeNotReady")
        .into_iter()
        .map(|e| e.1)
        .filter(|o| o.starts_with("node/"))
        .collect();
    assert_eq!(not_ready, ["node/a-1", "node/a-2"]);
    // Still there, not Ready, waiting out their 300 s.
    assert_eq!(on(&sim, "a-1").len() + on(&sim, "a-2").len(), on_a);
    let nr_at = failed_at + shepherd::DEFAULT_HEARTBEAT_TIMEOUT + 1;
    for p in sim.cluster().pods().filter(|p| {
        p.node
            .is_some_and(|n| !sim.cluster().node_by_id(n).unwrap().ready)
    }) {
        assert!(!p.ready, "{} is Ready on a NotReady node", p.name());
        assert_eq!(p.eviction_at, Some(nr_at + 300), "{}", p.name());
    }
    check(&sim);
    sim.run(300);
    assert!(on(&sim, "a-1").is_empty() && on(&sim, "a-2").is_empty());
    assert_eq!(on(&sim, "b-1").len() + on(&sim, "b-2").len(), 8);
    check(&sim);
    // The action round-trips through the script as one event.
    assert!(sim
        .script()
        .iter()
        .any(|(_, e)| e.describe() == format!("fail zone {ZONE}=zone-a")));
}

/// One silent node, with Kubernetes' numbers: kube-controller-manager's
/// node-monitor-grace-period (50 s since 1.32) and DefaultTolerationSeconds'
/// 300 s. The kubelet stops at tick F; at F + 51 (silent for more than 50 s)
/// the node is NotReady with the `node.kubernetes.io/unreachable` taints,
/// its pods are marked not Ready (the Service drops them) but not deleted;
/// each is evicted when its tolerationSeconds have passed: 300 s for the
/// admission's default, 60 s for a pod's own toleration, never for a pod
/// tolerating the taint without tolerationSeconds; and at once for a pod
/// whose own toleration for the key does not match (admission adds nothing
/// to it).
#[test]
fn a_silent_node_is_tainted_unreachable_and_its_pods_evicted_after_toleration_seconds() {
    let unreachable = shepherd::TAINT_NODE_UNREACHABLE;
    let mut sim = Simulator::new(2, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", "zone-a")))
        .unwrap();
    sim.step();
    let ne = |s: Option<u64>| {
        let t = Toleration::exists(unreachable, Some(TaintEffect::NoExecute));
        match s {
            Some(s) => t.for_seconds(s),
            None => t,
        }
    };
    let wrong = Toleration::equal(unreachable, "x", Some(TaintEffect::NoExecute));
    for (name, tol) in [
        ("plain", vec![]),
        ("minute", vec![ne(Some(60))]),
        ("forever", vec![ne(None)]),
        ("wrong", vec![wrong]),
    ] {
        sim.submit(Event::Deploy(app(name, 1, tol))).unwrap();
    }
    sim.submit(Event::AddService(shepherd::ServiceSpec {
        name: "plain".into(),
        selector: shepherd::Selector::new(&[("app", "plain")]),
    }))
    .unwrap();
    sim.step();
    sim.submit(Event::AddNode(node("node-2", "zone-b")))
        .unwrap();
    sim.step();
    assert_eq!(
        on(&sim, "node-1"),
        ["forever-0", "minute-0", "plain-0", "wrong-0"]
    );
    let endpoints = sim.cluster().service_endpoints("plain").unwrap();
    assert_eq!(
        endpoints
            .iter()
            .map(|p| sim.cluster().short_pod_names(p))
            .collect::<Vec<_>>(),
        ["plain-0"]
    );
    sim.submit(Event::FailNode("node-1".into())).unwrap();
    sim.step();
    let f = sim.tick();
    // Silent for 50 s: still Ready.
    sim.run(50);
    assert!(sim.cluster().node("node-1").unwrap().ready);
    assert!(sim
        .cluster()
        .condition_taints(sim.cluster().node("node-1").unwrap().id)
        .is_empty());
    sim.step();
    let nr = sim.tick();
    assert_eq!(nr, f + 51);
    let c = sim.cluster();
    let n1 = c.node("node-1").unwrap();
    assert!(!n1.ready);
    let taints: Vec<String> = c
        .condition_taints(n1.id)
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(
        taints,
        [
            format!("{unreachable}:NoSchedule"),
            format!("{unreachable}:NoExecute")
        ]
    );
    // wrong-0 went at once; the others stay, not Ready, with their timers.
    assert_eq!(on(&sim, "node-1"), ["forever-0", "minute-0", "plain-0"]);
    let at = |p: &str| sim.cluster().pod_by_name(p).unwrap().eviction_at;
    assert_eq!(at("plain-0"), Some(nr + 300));
    assert_eq!(at("minute-0"), Some(nr + 60));
    assert_eq!(at("forever-0"), None);
    assert!(sim.cluster().pods_on(n1.id).all(|p| !p.ready));
    assert!(sim.cluster().service_endpoints("plain").unwrap().is_empty());
    let pod_marks: Vec<(u64, String, String)> = events(&sim, "NodeNotReady")
        .into_iter()
        .filter(|e| e.1.starts_with("pod/"))
        .collect();
    assert_eq!(pod_marks.len(), 4, "{pod_marks:?}");
    assert!(pod_marks
        .iter()
        .all(|e| e.0 == nr && e.2 == "Node is not ready"));
    // No replacement while they wait: the Deployments still count them.
    assert_eq!(sim.cluster().app("plain").unwrap().current, 1);
    check(&sim);

    sim.run(59);
    assert_eq!(on(&sim, "node-1"), ["forever-0", "minute-0", "plain-0"]);
    sim.step();
    assert_eq!(on(&sim, "node-1"), ["forever-0", "plain-0"]);
    sim.run(239);
    assert_eq!(on(&sim, "node-1"), ["forever-0", "plain-0"]);
    sim.step();
    assert_eq!(sim.tick(), nr + 300);
    assert_eq!(on(&sim, "node-1"), ["forever-0"]);
    assert_eq!(on(&sim, "node-2"), ["minute-1", "plain-1", "wrong-1"]);
    let marks: Vec<(u64, String)> = events(&sim, "TaintManagerEviction")
        .into_iter()
        .map(|e| (e.0, e.1))
        .collect();
    assert_eq!(
        marks,
        [
            (nr, "pod/wrong-0".to_string()),
            (nr + 60, "pod/minute-0".to_string()),
            (nr + 300, "pod/plain-0".to_string()),
        ]
    );
    let last = events(&sim, "TaintManagerEviction").pop().unwrap().2;
    assert_eq!(last, "Marking for deletion Pod default/plain-0");
    // node-1's kubelet is silent: nobody logs Killing for its pods.
    assert!(events(&sim, "Killing").is_empty());
    assert_eq!(
        sim.cluster()
            .service_endpoints("plain")
            .unwrap()
            .iter()
            .map(|v| sim.cluster().short_pod_names(v))
            .collect::<Vec<_>>(),
        ["plain-1"]
    );
    check(&sim);
    // forever-0 stays for good.
    sim.run(5000);
    assert_eq!(on(&sim, "node-1"), ["forever-0"]);
}

/// A node that comes back before the 300 s: its taints go, the pending
/// timers are cancelled (`Cancelling deletion of Pod`), its pods are Ready
/// again and nothing was replaced.
#[test]
fn a_node_back_before_toleration_seconds_keeps_its_pods() {
    let mut sim = Simulator::new(3, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", "zone-a")))
        .unwrap();
    sim.step();
    sim.submit(Event::Deploy(app("web", 3, vec![]))).unwrap();
    sim.step();
    sim.submit(Event::AddNode(node("node-2", "zone-b")))
        .unwrap();
    sim.step();
    sim.submit(Event::FailNode("node-1".into())).unwrap();
    sim.run(51 + 100);
    let id = sim.cluster().node("node-1").unwrap().id;
    assert!(!sim.cluster().node("node-1").unwrap().ready);
    assert!(sim
        .cluster()
        .pods_on(id)
        .all(|p| !p.ready && p.eviction_at.is_some()));
    sim.submit(Event::RecoverNode("node-1".into())).unwrap();
    // The kubelet starts at this tick and heart-beats at the next.
    sim.step();
    assert!(!sim.cluster().node("node-1").unwrap().ready);
    sim.step();
    let c = sim.cluster();
    assert!(c.node("node-1").unwrap().ready);
    assert!(c.condition_taints(id).is_empty());
    assert_eq!(on(&sim, "node-1"), ["web-0", "web-1", "web-2"]);
    assert!(sim
        .cluster()
        .pods_on(id)
        .all(|p| p.ready && p.eviction_at.is_none()));
    let cancels = events(&sim, "TaintManagerEviction");
    assert_eq!(cancels.len(), 3, "{cancels:?}");
    assert!(cancels
        .iter()
        .all(|e| e.2.starts_with("Cancelling deletion of Pod default/web-")));
    sim.run(400);
    assert_eq!(on(&sim, "node-1"), ["web-0", "web-1", "web-2"]);
    assert_eq!(events(&sim, "TaintManagerEviction").len(), 3);
    check(&sim);
}

/// The node lifecycle controller's taint keys are its own: `kubectl taint`
/// of them is refused here (they follow the Ready condition).
#[test]
fn condition_taint_keys_are_refused_as_kubectl_taints() {
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", "zone-a")))
        .unwrap();
    sim.step();
    for key in [
        shepherd::TAINT_NODE_UNREACHABLE,
        shepherd::TAINT_NODE_NOT_READY,
    ] {
        let e = sim
            .submit(Event::TaintNode {
                node: "node-1".into(),
                taint: Taint::new(key, "", TaintEffect::NoExecute),
            })
            .unwrap_err();
        assert!(e.to_string().contains("node lifecycle controller"), "{e}");
    }
}

/// Same seed and script, same log: taint timers replay exactly.
#[test]
fn taint_timers_replay_exactly() {
    let run = || {
        let mut sim = Simulator::new(9, ScorePolicy::BinPack);
        sim.submit(Event::AddNode(node("node-1", "zone-a")))
            .unwrap();
        sim.submit(Event::AddNode(node("node-2", "zone-b")))
            .unwrap();
        sim.step();
        let tol = Toleration::exists("m", Some(TaintEffect::NoExecute)).for_seconds(5);
        sim.submit(Event::Deploy(app("web", 6, vec![tol]))).unwrap();
        sim.submit(Event::Deploy(app("db", 3, vec![]))).unwrap();
        sim.step();
        sim.submit(Event::TaintNode {
            node: "node-1".into(),
            taint: Taint::new("m", "", TaintEffect::NoExecute),
        })
        .unwrap();
        sim.run(30);
        check(&sim);
        sim.cluster().rendered_events()
    };
    assert_eq!(run(), run());
}

/// The guided tour's zone failure: zone-a (node-1, node-2) stops at 390, is
/// NotReady after the 50 s grace period and its pods go after 300 s; web's
/// replacements fit in zone-b, cache's cannot (one cache pod per zone by
/// required anti-affinity, and zone-b has one) until zone-a is back.
#[test]
fn the_tours_zone_failure_leaves_cache_pending_until_the_zone_returns() {
    let mut sim = Simulator::with_script(1, ScorePolicy::BinPack, shepherd::simulator::tour());
    let run_to = |sim: &mut Simulator, tick: u64| {
        while sim.tick() < tick {
            sim.step();
        }
    };
    let pending_cache = |sim: &Simulator| {
        sim.cluster()
            .apps()
            .find(|a| a.name == "cache")
            .map(|a| a.pending)
            .unwrap_or(0)
    };
    run_to(&mut sim, 440);
    assert!(sim.cluster().node("node-1").unwrap().ready);
    assert_eq!(
        pending_cache(&sim),
        1,
        "the third replica, as before the failure"
    );
    run_to(&mut sim, 441);
    for n in ["node-1", "node-2"] {
        assert!(!sim.cluster().node(n).unwrap().ready, "{n} NotReady at 441");
    }
    assert!(
        !on(&sim, "node-1").is_empty(),
        "marked not Ready, not deleted"
    );
    run_to(&mut sim, 740);
    assert!(
        !on(&sim, "node-1").is_empty(),
        "still there at 740 (300 s from 441 is 741)"
    );
    run_to(&mut sim, 741);
    assert!(on(&sim, "node-1").is_empty() && on(&sim, "node-2").is_empty());
    assert_eq!(pending_cache(&sim), 2, "zone-b already runs a cache pod");
    let c = sim.cluster();
    let web = c.apps().find(|a| a.name == "web").unwrap();
    assert_eq!((web.pending, web.bound), (0, 8), "web fits in zone-b");
    let why = events(&sim, "FailedScheduling");
    assert!(
        why.iter()
            .any(|(t, _, m)| *t == 741 && m.contains("didn't match pod anti-affinity rules")),
        "{why:?}"
    );
    check(&sim);
    run_to(&mut sim, 746);
    assert_eq!(pending_cache(&sim), 1, "one cache pod back in zone-a");
    check(&sim);
}

/// Issue 42, row 7: a drain held back by a budget, of pods that tolerate
/// the unschedulable taint (so an evicted pod's replacement lands on the
/// cordoned node again). `kubectl drain` evicts the pods it listed when it
/// started, retries those only (5 s after a budget's 429), and ends when
/// they are gone; it never evicts the replacements. Over 1,000 ticks the
/// evictions are the four listed pods and the log stays small (before:
/// 640 evictions a tick, 1.9 million events by tick 1,000).
#[test]
fn a_drain_evicts_the_pods_it_listed_once_even_when_they_land_back_on_the_node() {
    use shepherd::{Budget, IntOrPercent, PdbSpec, Selector};
    let unschedulable = Toleration::exists(
        "node.kubernetes.io/unschedulable",
        Some(TaintEffect::NoSchedule),
    );
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    for e in [
        Event::AddNode(node("node-1", "zone-a")),
        Event::AddNode(node("node-2", "zone-a")),
        Event::Deploy(app("web", 4, vec![unschedulable])),
        Event::AddPdb(PdbSpec {
            name: "web".into(),
            selector: Selector::new(&[("app", "web")]),
            budget: Budget::MaxUnavailable(IntOrPercent::Int(1)),
        }),
    ] {
        sim.submit(e).unwrap();
    }
    sim.step();
    assert_eq!(on(&sim, "node-1").len(), 4, "bin-packed onto node-1");
    sim.submit(Event::Drain("node-1".into())).unwrap();
    let mut evictions_per_tick = Vec::new();
    for _ in 0..1_000 {
        let r = sim.step();
        assert!(r.reconcile.converged, "tick {}: no fixed point", r.tick);
        evictions_per_tick.push(r.reconcile.total.evicted);
    }
    let evicted: u32 = evictions_per_tick.iter().sum();
    assert_eq!(evicted, 4, "the four listed pods, once each");
    // The eviction API records no Event; node-1's kubelet logs Killing
    // as it stops each evicted pod (kuberuntime_container.go, killContainer).
    let killed: Vec<(String, String, String)> = sim
        .cluster()
        .rendered_events()
        .into_iter()
        .filter(|e| e.reason == "Killing")
        .map(|e| {
            let object = sim.cluster().short_pod_names(&e.object);
            (object, e.source_column(), e.message)
        })
        .collect();
    let want: Vec<(String, String, String)> = (0..4)
        .map(|i| {
            (
                format!("pod/web-{i}"),
                "kubelet, node-1".to_string(),
                "Stopping container web".to_string(),
            )
        })
        .collect();
    assert_eq!(killed, want);
    // The replacements landed on the cordoned node (they tolerate it) and
    // stay: the drain is over.
    let n1 = sim.cluster().node("node-1").unwrap();
    assert!(n1.cordoned && !n1.draining);
    assert_eq!(n1.drain_status, Some("node/node-1 drained"));
    assert!(!on(&sim, "node-1").is_empty());
    let log = sim.cluster().events().len();
    assert!(log < 100, "{log} events in 1,000 ticks");
    check(&sim);
}
