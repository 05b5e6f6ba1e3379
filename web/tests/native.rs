//! The web crate's logic, natively: sessions, scenarios, replay and the forms'
//! checks. (web.rs runs the JavaScript-facing calls in headless Chromium.)
#![cfg(not(target_arch = "wasm32"))]

use shepherd::ScorePolicy;
use shepherd_web::input::{self, DeployInput, Field, NodeInput, RollInput};
use shepherd_web::scenario::{self, Action};
use shepherd_web::session::Session;

mod common;
use common::import_json;

fn events(s: &Session) -> Vec<String> {
    let c = s.simulator().cluster();
    c.rendered_events().iter().map(|e| e.to_string()).collect()
}

fn node_named(s: &Session, name: &str) -> shepherd_web::view::NodeCard {
    let snap = s.snapshot(true);
    snap.nodes
        .expect("nodes were asked for")
        .into_iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("node {name} should be in the snapshot"))
}

fn small() -> Session {
    let mut s = Session::new(7, ScorePolicy::BinPack);
    for i in 1..=3 {
        s.submit(Action::AddNode {
            name: format!("node-{i}"),
            cpu: 4000,
            memory_bytes: 8192 << 20,
            labels: Default::default(),
            taints: Vec::new(),
        })
        .expect("a valid node is accepted");
    }
    let d = DeployInput {
        namespace: None,
        name: "web".into(),
        replicas: Field::Num(5.0),
        cpu: Field::Text("1000m".into()),
        memory: Field::Text("1Gi".into()),
        version: None,
        labels: None,
        node_selector: None,
        toleration: None,
        anti_affinity: None,
        max_surge: None,
        max_unavailable: None,
        ready_after: None,
        min_ready_seconds: None,
        progress_deadline_seconds: None,
        priority_class_name: None,
    };
    s.submit(d.action().expect("the form is valid"))
        .expect("the deploy is accepted");
    s.run(2);
    s
}

#[test]
fn the_tour_kills_a_node_and_the_cluster_heals() {
    let mut s = Session::tour();
    assert_eq!(s.tick(), 0);
    // node-1's kubelet stops at tick 6: NotReady after the 50 s grace period.
    s.run(56);
    assert_eq!(
        node_named(&s, "node-1").status,
        "Ready",
        "NotReady only after the node monitor grace period"
    );
    s.run(1);
    let n1 = node_named(&s, "node-1");
    assert_eq!(n1.status, "NotReady");
    assert_eq!(
        n1.condition_taints,
        [
            "node.kubernetes.io/unreachable:NoSchedule",
            "node.kubernetes.io/unreachable:NoExecute"
        ]
    );
    assert_eq!(n1.pod_count, 7, "marked not Ready, not deleted");
    assert!(n1.pods.iter().all(|p| !p.ready && p.evict_in == Some(300)));
    // Skip: the quiet seconds pass in one call, up to the eviction.
    assert_eq!(s.skip_quiet(3600), 300);
    assert_eq!(s.tick(), 357);
    assert_eq!(node_named(&s, "node-1").pod_count, 0, "evicted");
    let web = s
        .snapshot(false)
        .apps
        .into_iter()
        .find(|a| a.name == "web")
        .expect("web is deployed");
    assert_eq!(web.desired, 8);
    assert_eq!(web.current, 8, "the Deployment replaced the evicted pods");
    s.run(4);
    assert_eq!(
        node_named(&s, "node-1").status,
        "Ready",
        "healed after RecoverNode at tick 360"
    );
    // The drain of node-2 at 372: kubectl's retry of a pod the budget
    // refused shows on the node.
    s.run(373 - s.tick());
    let n2 = node_named(&s, "node-2");
    assert!(n2.draining, "{n2:?}");
    assert!(
        n2.drain_status
            .as_deref()
            .is_some_and(|m| m.contains("(will retry after 5s)")
                && m.contains("disruption budget")),
        "the drain was held back by the PodDisruptionBudget: {:?}",
        n2.drain_status
    );
    s.run(391 - s.tick());
    let snap = s.snapshot(true);
    assert_eq!(
        snap.upcoming_count, 2,
        "zone-a failed at 390; its recovery at 745 is still to come"
    );
    let web = snap.apps.iter().find(|a| a.name == "web").expect("web");
    assert_eq!((web.version.as_str(), web.updated, web.ready), ("v2", 8, 8));
    assert!(snap.note.is_some(), "the tour has captions");
    // The zone failure: zone-a's pods are evicted at 741, back at 745.
    s.run(745 - s.tick());
    assert_eq!(
        s.snapshot(false).upcoming_count,
        0,
        "the whole script fired"
    );
    let cache = s
        .snapshot(false)
        .apps
        .into_iter()
        .find(|a| a.name == "cache")
        .expect("cache");
    assert_eq!(cache.pending, 2, "zone anti-affinity while zone-a is down");
}

#[test]
fn same_seed_and_script_give_the_same_log() {
    let a = small();
    let b = small();
    assert_eq!(events(&a), events(&b));
    assert!(events(&a).iter().any(|e| e.contains("Scheduled")));
}

#[test]
fn export_and_import_reproduce_the_run_at_its_tick() {
    let mut s = small();
    s.submit(Action::FailNode {
        node: "node-1".into(),
    })
    .expect("node-1 exists");
    s.run(6);
    let doc = s.scenario();
    assert_eq!(doc.tick, Some(s.tick()));
    let r = Session::from_scenario(&doc).expect("an exported scenario replays");
    assert_eq!(r.tick(), s.tick());
    assert_eq!(events(&r), events(&s));
    assert_eq!(r.snapshot(true), s.snapshot(true));
}

#[test]
fn step_back_is_a_replay_to_the_tick_before() {
    let mut s = small();
    s.submit(Action::Scale {
        app: "web".into(),
        replicas: 8,
    })
    .expect("web exists");
    s.step();
    let before = s.clone();
    s.step();
    s.step();
    assert_eq!(s.step_back().expect("not at tick 0"), before.tick() + 1);
    assert_eq!(s.step_back().expect("not at tick 0"), before.tick());
    assert_eq!(events(&s), events(&before));
    assert_eq!(s.snapshot(true), before.snapshot(true));
    let mut zero = Session::new(1, ScorePolicy::BinPack);
    assert!(zero.step_back().is_err(), "nothing before tick 0");
}

#[test]
fn refused_actions_change_nothing() {
    let mut s = small();
    let doc = s.scenario();
    let log = events(&s);
    let refusals = [
        Action::FailNode {
            node: "node-9".into(),
        },
        Action::Scale {
            app: "nope".into(),
            replicas: 2,
        },
        Action::AddNode {
            name: "".into(),
            cpu: 1000,
            memory_bytes: 1024 << 20,
            labels: Default::default(),
            taints: Vec::new(),
        },
        Action::AddNode {
            name: "Bad_Name".into(),
            cpu: 1000,
            memory_bytes: 1024 << 20,
            labels: Default::default(),
            taints: Vec::new(),
        },
        Action::Evict {
            pod: "web-99".into(),
        },
    ];
    for a in refusals {
        let e = s
            .submit(a.clone())
            .expect_err(&format!("{a:?} should be refused"));
        assert!(
            e.contains("expected"),
            "the message says what was expected: {e}"
        );
    }
    // A pod bigger than every node.
    let big = DeployInput {
        namespace: None,
        name: "huge".into(),
        replicas: Field::Num(1.0),
        cpu: Field::Num(64_000.0),
        memory: Field::Num(512.0),
        version: None,
        labels: None,
        node_selector: None,
        toleration: None,
        anti_affinity: None,
        max_surge: None,
        max_unavailable: None,
        ready_after: None,
        min_ready_seconds: None,
        progress_deadline_seconds: None,
        priority_class_name: None,
    };
    let e = s
        .submit(big.action().expect("well-formed"))
        .expect_err("fits no node");
    assert!(e.contains("fits on no node"), "{e}");
    // The deploy of an existing name.
    let mut again = big.clone();
    again.name = "web".into();
    again.cpu = Field::Num(100.0);
    assert!(s
        .submit(again.action().expect("well-formed"))
        .expect_err("taken")
        .contains("already exists"));
    assert_eq!(s.scenario(), doc, "the script is unchanged");
    assert_eq!(events(&s), log, "the cluster is unchanged");
    s.step();
    assert!(
        s.simulator().refused().is_empty(),
        "nothing refused was queued"
    );
}

#[test]
fn form_fields_are_checked_with_clear_messages() {
    assert!(input::replicas(-1.0)
        .unwrap_err()
        .contains("expected a whole number from 0"));
    assert!(input::replicas(2.5).is_err());
    assert!(input::replicas(f64::NAN)
        .unwrap_err()
        .contains("not a number"));
    assert_eq!(input::replicas(3.0), Ok(3));
    assert_eq!(input::cpu(&Field::Text("250m".into())), Ok(250));
    assert_eq!(input::cpu(&Field::Text("2".into())), Ok(2000));
    assert_eq!(input::cpu(&Field::Text(" 1.5 ".into())), Ok(1500));
    assert!(input::cpu(&Field::Text("2cpu".into()))
        .unwrap_err()
        .contains("unknown suffix \"cpu\""));
    assert!(input::cpu(&Field::Text("lots".into()))
        .unwrap_err()
        .starts_with("cpu \"lots\" is not a quantity"));
    assert_eq!(input::memory(&Field::Text("2Gi".into())), Ok(2 << 30));
    assert!(input::check_seed(-3.0).is_err());
    let taints = input::parse_taints("dedicated=gpu:NoSchedule").expect("kubectl's form");
    assert_eq!(taints[0].effect, "NoSchedule");
    assert!(input::parse_taints("dedicated=gpu:Sometimes").is_err());
    let tol = input::parse_toleration("dedicated=gpu:NoSchedule")
        .expect("ok")
        .expect("one");
    assert_eq!(
        (tol.operator.as_str(), tol.value.as_str()),
        ("Equal", "gpu")
    );
    assert_eq!(
        input::parse_toleration("*")
            .expect("ok")
            .expect("one")
            .operator,
        "Exists"
    );
    assert!(scenario::parse_labels("novalue", "label").is_err());
    let n = NodeInput {
        name: "n1".into(),
        cpu: Field::Num(-5.0),
        memory: Field::Num(100.0),
        labels: None,
        taints: None,
    };
    assert!(n.action().unwrap_err().contains("cpu"));
}

#[test]
fn a_roll_must_change_the_template() {
    let mut s = small();
    let current = s.template("web").expect("web exists");
    let same = RollInput::default();
    assert!(same
        .template("web", &current)
        .unwrap_err()
        .contains("same as the current one"));
    let v2 = RollInput {
        version: Some("v2".into()),
        ..Default::default()
    };
    let t = v2.template("web", &current).expect("a new version");
    s.submit(Action::Roll {
        app: "web".into(),
        template: t,
    })
    .expect("accepted");
    s.run(10);
    let web = s
        .snapshot(false)
        .apps
        .into_iter()
        .find(|a| a.name == "web")
        .expect("web");
    assert_eq!(
        (web.version.as_str(), web.updated, web.rolling),
        ("v2", 5, false)
    );
    s.submit(Action::Rollback { app: "web".into() })
        .expect("there is a previous revision");
    s.run(10);
    let web = s
        .snapshot(false)
        .apps
        .into_iter()
        .find(|a| a.name == "web")
        .expect("web");
    assert_eq!(web.version, "v1");
    // Back on v1's revision, a rollback still has v2 to go to.
    s.submit(Action::Rollback { app: "web".into() })
        .expect("v2 is a previous revision");
    let mut fresh = small();
    assert!(fresh
        .submit(Action::Rollback { app: "web".into() })
        .unwrap_err()
        .contains("no previous revision"));
}

#[test]
fn a_generated_cluster_converges_and_draws_as_a_grid() {
    let mut s = Session::new(3, ScorePolicy::LeastLoaded);
    s.submit(Action::Generate {
        nodes: 200,
        pods_per_node: 30,
    })
    .expect("in range");
    s.step();
    let snap = s.snapshot(false);
    assert_eq!(snap.node_count, 200);
    assert_eq!(snap.bound_pods, 6000);
    assert_eq!(snap.pending_pods, 0);
    assert!(snap.nodes.is_none());
    let grid = s.grid();
    assert_eq!(grid.len(), 200 * shepherd_web::view::GRID_STRIDE);
    let pods: u32 = grid
        .chunks(shepherd_web::view::GRID_STRIDE)
        .map(|c| c[5])
        .sum();
    assert_eq!(pods, 6000);
    assert!(
        grid.chunks(7).all(|c| c[1] <= c[2] && c[3] <= c[4]),
        "no node overcommitted"
    );
    // The macro stays one action in the scenario, and replays the same.
    assert_eq!(s.scenario().actions.len(), 1);
    let r = Session::from_scenario(&s.scenario()).expect("replays");
    assert_eq!(r.grid(), grid);
    assert!(s
        .submit(Action::Generate {
            nodes: 0,
            pods_per_node: 30
        })
        .is_err());
    assert!(s
        .submit(Action::Generate {
            nodes: 10,
            pods_per_node: 500
        })
        .is_err());
    assert!(s
        .submit(Action::Generate {
            nodes: 10_000,
            pods_per_node: 110
        })
        .unwrap_err()
        .contains("at most 300000"));
    // Generating again would redeploy the same apps: refused as a whole.
    let before = s.scenario();
    assert!(s
        .submit(Action::Generate {
            nodes: 10,
            pods_per_node: 1
        })
        .unwrap_err()
        .contains("already exists"));
    assert_eq!(s.scenario(), before);
}

#[test]
fn explain_gives_every_nodes_verdict() {
    let mut s = Session::tour();
    s.run(4);
    let pending = s.snapshot(false).pending;
    let cache = pending
        .iter()
        .find(|p| p.app == "cache")
        .expect("the third cache pod is Pending");
    assert!(cache
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("anti-affinity"));
    let x = s.explain(&cache.name).expect("the pod exists");
    assert_eq!(x.phase, "Pending");
    assert_eq!(x.nodes.len(), 5);
    assert_eq!(x.feasible, 0);
    assert!(x.nodes.iter().any(|v| v.plugin == Some("TaintToleration")));
    assert!(x.nodes.iter().any(|v| v.plugin == Some("InterPodAffinity")));
    let bound = s.explain("web-0").expect("web-0 exists");
    assert_eq!(bound.bound_to.as_deref(), Some("node-1"));
    assert!(bound.nodes[0].position == Some(1) && bound.nodes[0].total.is_some());
    assert!(s.explain("nope-1").is_err());
}

#[test]
fn scenarios_are_checked_before_they_run() {
    let mut bad = scenario::tour();
    bad.version = 9;
    assert!(Session::from_scenario(&bad)
        .unwrap_err()
        .contains("version"));
    let mut bad = scenario::tour();
    bad.tick = Some(10_000_000);
    assert!(Session::from_scenario(&bad).is_err());
    let mut bad = scenario::tour();
    bad.actions.swap(0, 8);
    assert!(Session::from_scenario(&bad)
        .unwrap_err()
        .contains("tick order"));
    let mut bad = scenario::tour();
    bad.policy = "random".into();
    assert!(Session::from_scenario(&bad)
        .unwrap_err()
        .contains("binpack or leastloaded"));
}

#[test]
fn discarding_the_upcoming_script_keeps_the_past() {
    let mut s = Session::tour();
    s.run(5);
    let dropped = s.discard_upcoming().expect("replays");
    assert!(dropped > 0);
    let snap = s.snapshot(false);
    assert_eq!(snap.upcoming_count, 0);
    assert_eq!(snap.apps.len(), 2, "what already happened stays");
    s.run(10);
    assert_eq!(
        node_named(&s, "node-1").status,
        "Ready",
        "the failure never comes"
    );
}

#[test]
fn the_event_page_keeps_the_newest() {
    let s = small();
    let all = s.events_since(0, 0, 10_000);
    assert_eq!(all.skipped, 0);
    let page = s.events_since(0, 0, 3);
    assert_eq!(page.events.len(), 3);
    assert_eq!(page.skipped as usize, all.events.len() - 3);
    assert_eq!(page.events[2], all.events[all.events.len() - 1]);
    let none = s.events_since(page.cursor, page.updates, 10);
    assert!(none.events.is_empty());
}

#[test]
fn an_action_taken_during_the_tour_exports_in_tick_order_and_replays() {
    let mut s = Session::tour();
    s.run(11);
    s.submit(Action::Scale {
        app: "cache".into(),
        replicas: 2,
    })
    .expect("cache exists");
    s.run(5);
    let doc = s.scenario();
    assert!(
        doc.actions.windows(2).all(|w| w[0].tick <= w[1].tick),
        "sorted by tick"
    );
    let r = Session::from_scenario(&doc).expect("replays");
    assert_eq!(events(&r), events(&s));
    assert_eq!(r.snapshot(true), s.snapshot(true));
}

#[test]
fn an_action_on_an_app_the_script_creates_later_is_refused_now() {
    let mut s = Session::tour();
    let doc = s.scenario();
    let e = s
        .submit(Action::Scale {
            app: "web".into(),
            replicas: 2,
        })
        .unwrap_err();
    assert!(e.contains("does not exist yet"), "{e}");
    let e = s
        .submit(Action::Drain {
            node: "node-9".into(),
        })
        .unwrap_err();
    assert!(e.contains("not found"), "{e}");
    // web's roll is queued for tick 16; a rollback now would fire before it.
    s.run(3);
    assert!(s
        .submit(Action::Rollback { app: "web".into() })
        .unwrap_err()
        .contains("no previous revision"));
    assert_eq!(s.scenario().actions, doc.actions);
    // A creation due at the same tick fires first, so acting on it then is fine.
    let mut t = Session::tour();
    assert!(
        t.submit(Action::Cordon {
            node: "node-2".into()
        })
        .is_ok(),
        "node-2 registers at tick 1, before the cordon fires"
    );
}

#[test]
fn import_errors_name_the_action_the_field_and_what_was_expected() {
    let doc = |action: &str| {
        format!(
            r#"{{"version":1,"seed":1,"policy":"binpack","actions":[{{"tick":1,"action":{{"type":"addNode","name":"node-1","cpu":4000,"memory":8192}}}},{{"tick":2,"action":{action}}}]}}"#
        )
    };
    for (action, want) in [
        (
            r#"{"type":"addNode","name":"node-2","cpu":"4000m","memory":8192}"#,
            "action 2 (tick 2, addNode), field cpu (CPU in millicores: 4000 is 4 CPUs): got the text \"4000m\"; expected a whole number from 0",
        ),
        (
            r#"{"type":"addNode","name":"node-2","cpu":4000,"memory":-5.0}"#,
            "field memoryBytes (memory in bytes: 8589934592 is 8Gi; a version-1 scenario's memory, in MiB, is read as this): got the number -5",
        ),
        (
            r#"{"type":"scale","app":"web"}"#,
            "action 2 (tick 2, scale): the field replicas is missing",
        ),
        (r#"{"type":"explode"}"#, "\"explode\" is not an action type; expected one of addNode"),
    ] {
        let e = import_json(&doc(action)).expect_err("refused");
        assert!(e.contains(want), "{e}\nshould contain\n{want}");
        assert!(!e.contains("u64") && !e.contains("floating point"), "{e}");
    }
}

#[test]
fn taint_untaint_and_zone_failure_actions_replay_from_an_export() {
    let mut s = small();
    s.submit(Action::TaintNode {
        node: "node-1".into(),
        taint: scenario::TaintDoc {
            key: "maintenance".into(),
            value: String::new(),
            effect: "NoExecute".into(),
        },
    })
    .expect("node-1 exists and has no such taint");
    s.run(2);
    assert_eq!(
        node_named(&s, "node-1").pods.len(),
        0,
        "web does not tolerate it"
    );
    let bad = s.submit(Action::UntaintNode {
        node: "node-1".into(),
        key: "maintenance".into(),
        effect: Some("NoSchedule".into()),
    });
    assert!(bad.unwrap_err().contains("has no taint"));
    s.submit(Action::UntaintNode {
        node: "node-1".into(),
        key: "maintenance".into(),
        effect: None,
    })
    .expect("the taint is there");
    let bad = s.submit(Action::FailZone {
        key: "topology.kubernetes.io/zone".into(),
        value: "zone-a".into(),
    });
    assert!(bad.unwrap_err().contains("no node has label"));
    s.run(3);
    let doc = s.scenario();
    let json = serde_json::to_string(&doc).unwrap();
    assert!(json.contains("\"type\":\"taintNode\"") && json.contains("\"type\":\"untaintNode\""));
    let r = Session::from_scenario(&doc).expect("an exported scenario replays");
    assert_eq!(events(&r), events(&s));
    // failZone reads with the default key.
    let a: Action = serde_json::from_str(r#"{"type":"failZone","value":"zone-b"}"#).unwrap();
    assert_eq!(
        a,
        Action::FailZone {
            key: "topology.kubernetes.io/zone".into(),
            value: "zone-b".into()
        }
    );
}

#[test]
fn label_values_lists_each_zone_once_sorted_and_follows_removals() {
    let mut s = Session::new(7, ScorePolicy::BinPack);
    for (name, zone) in [
        ("n-1", "zone-b"),
        ("n-2", "zone-a"),
        ("n-3", "zone-b"),
        ("n-4", ""),
    ] {
        let mut labels = std::collections::BTreeMap::new();
        if !zone.is_empty() {
            labels.insert(scenario::ZONE_KEY.to_string(), zone.to_string());
        }
        s.submit(Action::AddNode {
            name: name.into(),
            cpu: 4000,
            memory_bytes: 8192 << 20,
            labels: labels.into_iter().collect(),
            taints: Vec::new(),
        })
        .expect("a valid node is accepted");
    }
    s.run(1);
    assert_eq!(s.label_values(scenario::ZONE_KEY), vec!["zone-a", "zone-b"]);
    assert!(s.label_values("no/such-key").is_empty());
    s.submit(Action::RemoveNode { node: "n-2".into() })
        .expect("n-2 exists");
    s.run(1);
    assert_eq!(s.label_values(scenario::ZONE_KEY), vec!["zone-b"]);
}

#[test]
fn min_ready_and_progress_deadline_enter_by_the_form_and_the_document_alike() {
    let form = |min: Option<Field>, deadline: Option<Field>| DeployInput {
        namespace: None,
        name: "api".into(),
        replicas: Field::Num(2.0),
        cpu: Field::Text("500m".into()),
        memory: Field::Text("256Mi".into()),
        version: None,
        labels: None,
        node_selector: None,
        toleration: None,
        anti_affinity: None,
        max_surge: None,
        max_unavailable: None,
        ready_after: None,
        min_ready_seconds: min,
        progress_deadline_seconds: deadline,
        priority_class_name: None,
    };
    // Empty boxes are the defaults (0 and 600).
    let a = form(Some(Field::Text(" ".into())), Some(Field::Text("".into())))
        .action()
        .expect("defaults");
    match &a {
        Action::Deploy {
            namespace: None,
            min_ready_seconds,
            progress_deadline_seconds,
            ..
        } => assert_eq!((*min_ready_seconds, *progress_deadline_seconds), (0, 600)),
        other => panic!("{other:?}"),
    }
    let e = form(Some(Field::Text("soon".into())), None)
        .action()
        .unwrap_err();
    assert!(
        e.starts_with(
            "minReadySeconds \"soon\" is not valid; expected a whole number from 0 to 2147483647"
        ),
        "{e}"
    );
    assert!(form(None, Some(Field::Num(0.0)))
        .action()
        .unwrap_err()
        .contains("progressDeadlineSeconds 0"));
    // The engine's rule, whichever door: the deadline must exceed minReadySeconds.
    let mut s = small();
    let bad = form(Some(Field::Num(30.0)), Some(Field::Num(30.0)))
        .action()
        .expect("each field is in range");
    let e = s.submit(bad).unwrap_err();
    assert!(
        e.contains("progressDeadlineSeconds 30 must be greater than minReadySeconds 30"),
        "{e}"
    );
    let doc = |fields: &str| {
        format!(
            r#"{{"version":1,"seed":1,"policy":"binpack","actions":[{{"tick":1,"action":{{"type":"addNode","name":"node-1","cpu":4000,"memory":8192}}}},{{"tick":1,"action":{{"type":"deploy","name":"web","replicas":2,"template":{{"cpu":500,"memory":256}}{fields}}}}}]}}"#
        )
    };
    let e = import_json(&doc(r#","minReadySeconds":10,"progressDeadlineSeconds":5"#))
        .expect_err("refused");
    assert!(
        e.contains("progressDeadlineSeconds 5 must be greater than minReadySeconds 10"),
        "{e}"
    );
    let e = import_json(&doc(r#","minReadySeconds":-1"#)).expect_err("refused");
    assert!(e.contains("minReadySeconds"), "{e}");

    // A valid document runs, shows kubectl's status line, and exports what it read.
    let mut s = import_json(&doc(r#","minReadySeconds":10"#)).expect("valid");
    s.run(3);
    let row = |s: &Session| {
        s.snapshot(false)
            .apps
            .into_iter()
            .find(|a| a.name == "web")
            .expect("web is listed")
    };
    let r = row(&s);
    assert_eq!((r.ready, r.available), (2, 0));
    assert_eq!(
        r.rollout_status,
        "Waiting for deployment \"web\" rollout to finish: 0 of 2 updated replicas are available..."
    );
    assert!(!r.deadline_exceeded);
    s.run(10);
    let r = row(&s);
    assert_eq!(r.available, 2);
    assert_eq!(
        r.rollout_status,
        "deployment \"web\" successfully rolled out"
    );
    let out = serde_json::to_string(&s.scenario()).expect("a scenario serializes");
    assert!(out.contains("\"minReadySeconds\":10"), "{out}");
    assert!(
        !out.contains("progressDeadlineSeconds"),
        "the default is not written: {out}"
    );
}

/// Scenario documents carry an optional `namespace` on each namespaced
/// object and `addNamespace` actions; a document without them reads and
/// writes exactly as before.
#[test]
fn scenario_documents_carry_namespaces_and_old_ones_are_unchanged() {
    let doc = r#"{"version":1,"seed":1,"policy":"binpack","actions":[
        {"tick":1,"action":{"type":"addNamespace","name":"shop","labels":{"team":"a"}}},
        {"tick":1,"action":{"type":"addNode","name":"node-1","cpu":4000,"memory":8192,"labels":{"kubernetes.io/hostname":"node-1"}}},
        {"tick":1,"action":{"type":"deploy","namespace":"shop","name":"web","replicas":2,"template":{"cpu":500,"memory":256}}},
        {"tick":1,"action":{"type":"deploy","name":"web","replicas":1,"template":{"cpu":500,"memory":256,
            "antiAffinity":[{"matchLabels":{"app":"web"},"namespaceSelector":{"team":"a"}}]}}},
        {"tick":1,"action":{"type":"addPdb","namespace":"shop","name":"web","selector":{"app":"web"},"minAvailable":1}},
        {"tick":1,"action":{"type":"addService","namespace":"shop","name":"web","selector":{"app":"web"}}},
        {"tick":2,"action":{"type":"scale","app":"shop/web","replicas":3}}]}"#;
    let mut s = import_json(doc).expect("a document with namespaces runs");
    s.run(4);
    let snap = s.snapshot(false);
    let names: Vec<&str> = snap.apps.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["shop/web", "web"]);
    // default/web's anti-affinity reaches shop (team=a) only: shop/web's
    // pods hold node-1, so web-0 stays Pending.
    assert_eq!(snap.pending.len(), 1, "{:?}", snap.pending);
    let pdb = snap.pdbs.iter().find(|p| p.name == "shop/web").unwrap();
    assert_eq!((pdb.current_healthy, pdb.selector.as_str()), (3, "app=web"));
    // Written back: the namespace field, not a prefixed name; and it replays.
    let out = serde_json::to_string(&s.scenario()).unwrap();
    assert!(out.contains(r#""namespace":"shop","name":"web""#), "{out}");
    assert!(
        out.contains(r#""type":"addNamespace","name":"shop""#),
        "{out}"
    );
    assert!(out.contains(r#""namespaceSelector":{"team":"a"}"#), "{out}");
    let again = Session::from_scenario(&s.scenario()).expect("it replays");
    assert_eq!(again.snapshot(true), s.snapshot(true));
    // A wrong namespace is refused with its words.
    let bad = doc.replace(
        r#""namespace":"shop","name":"web","replicas""#,
        r#""namespace":"Shop","name":"web","replicas""#,
    );
    let e = import_json(&bad).expect_err("refused");
    assert!(e.contains("namespace name \"Shop\" is not valid"), "{e}");
    // A document from before namespaces writes no namespace at all.
    let old = small().scenario();
    let text = serde_json::to_string(&old).unwrap();
    assert!(!text.contains("namespace"), "{text}");
    assert_eq!(
        Session::from_scenario(&old).unwrap().snapshot(true),
        small().snapshot(true)
    );
}

/// A generated cluster's first tick in slices (the page's way of placing
/// it without freezing) ends exactly where the whole tick does, and no
/// action is taken while it is under way.
#[test]
fn a_first_tick_in_slices_is_the_whole_tick() {
    let generate = Action::Generate {
        nodes: 300,
        pods_per_node: 12,
    };
    let mut whole = Session::new(21, shepherd::Profile::kube_scheduler());
    whole.submit(generate.clone()).unwrap();
    let mut sliced = Session::new(21, shepherd::Profile::kube_scheduler());
    sliced.submit(generate).unwrap();
    let refused = whole.step();
    let mut slices = 0;
    let mut progress = Vec::new();
    let got = loop {
        slices += 1;
        if let Some(r) = sliced.step_slice(300) {
            break r;
        }
        progress.push(sliced.step_progress().expect("a tick under way"));
        if slices == 2 {
            let e = sliced
                .submit(Action::Scale {
                    app: "web".into(),
                    replicas: 1,
                })
                .unwrap_err();
            assert!(e.contains("still being computed"), "{e}");
            assert!(!sliced.idle(true), "no idle work mid-tick");
        }
    };
    assert_eq!(got, refused);
    assert!(
        slices >= 10,
        "{slices} slices for 3,600 pods at 300 a slice"
    );
    assert_eq!(progress.last().map(|p| p.0 + p.1), Some(3600));
    // While the events fire, the replicas of the Deployments declared so
    // far; once pods exist, the pods to place.
    assert!(
        progress
            .iter()
            .all(|p| p.2 <= 3600 && (p.0 + p.1 == 0 || p.2 == 3600)),
        "{progress:?}"
    );
    assert_eq!(sliced.snapshot(true), whole.snapshot(true));
    assert_eq!(events(&sliced), events(&whole));
    assert_eq!(sliced.series().len(), whole.series().len());
    // They go on alike, and Back from the sliced run replays the same.
    whole.run(5);
    sliced.run(5);
    assert_eq!(sliced.snapshot(true), whole.snapshot(true));
    sliced.step_back().unwrap();
    whole.step_back().unwrap();
    assert_eq!(events(&sliced), events(&whole));
}

/// Issue 42, row 12, in the page: manifests applied onto a running
/// scenario are `kubectl apply` (an `apply` action): a changed Deployment
/// rolls and scales, new objects are created, and the link replays it; a
/// changed selector is refused with the API server's words and queues
/// nothing.
#[test]
fn manifests_applied_onto_a_running_scenario_update_what_exists() {
    let web = |replicas: u32, version: &str, selector: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{{selector}}}}}\n  template:\n    metadata: {{labels: {{app: web, version: {version}}}}}\n    spec:\n      containers: [{{name: c, image: x, resources: {{requests: {{cpu: 100m}}}}}}]\n")
    };
    let node = |name: &str| {
        format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n")
    };
    let (mut s, _) = shepherd_web::manifests::import_session(
        &format!("{}{}", node("node-1"), web(3, "v1", "app: web")),
        5,
    )
    .unwrap();
    s.run(3);
    let (said, report) = shepherd_web::manifests::apply_to_session(
        &mut s,
        &format!("{}{}", node("node-2"), web(5, "v2", "app: web")),
    )
    .unwrap();
    assert!(!said.is_empty() && report.nodes == 1 && report.deployments == 1);
    s.run(30);
    let c = s.simulator().cluster();
    assert!(c.node("node-2").is_ok(), "a new object is created");
    let st = c.app("web").unwrap();
    assert_eq!(
        (st.desired, st.updated, st.ready, st.revision),
        (5, 5, 5, 2),
        "the changed template rolled and the replicas scaled"
    );
    assert_eq!(
        c.template("web")
            .unwrap()
            .labels
            .get("version")
            .map(String::as_str),
        Some("v2")
    );
    // The Deployment controller scales the new ReplicaSet up.
    assert!(events(&s)
        .iter()
        .any(|e| e.contains("ScalingReplicaSet") && e.contains("from 0 to")));
    // The link replays the same run.
    let doc = s.scenario();
    assert!(doc.actions.iter().any(|e| e.action.kind() == "apply"));
    let back = Session::from_scenario(&doc).unwrap();
    assert_eq!(events(&back), events(&s));
    // An immutable field changed: refused, nothing queued.
    let before = s.scenario();
    let e =
        shepherd_web::manifests::apply_to_session(&mut s, &web(5, "v2", "app: web, version: v2"))
            .unwrap_err();
    assert!(
        e.contains("spec.selector: Invalid value: app=web,version=v2: field is immutable"),
        "{e}"
    );
    assert_eq!(s.scenario(), before);
}

/// A node offering an extended resource carries it on its card (the page
/// draws a bar for it: a GPU bar on GPU nodes), with what its pods request;
/// a node offering none carries no such list.
#[test]
fn a_gpu_nodes_card_carries_its_gpus() {
    let text = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\nstatus:\n  allocatable: {cpu: \"8\", memory: 32Gi, ephemeral-storage: 100Gi, nvidia.com/gpu: \"4\"}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: plain\nstatus:\n  allocatable: {cpu: \"8\", memory: 32Gi}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: train\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: train}\n  template:\n    metadata:\n      labels: {app: train}\n    spec:\n      containers:\n      - name: c\n        resources:\n          limits: {nvidia.com/gpu: 1}\n";
    let (mut s, _) = shepherd_web::manifests::import_session(text, 1).expect("the import");
    s.run(3);
    let gpu = node_named(&s, "gpu-a");
    assert_eq!(
        gpu.extended.len(),
        1,
        "ephemeral-storage is no extended resource"
    );
    assert_eq!(gpu.extended[0].name, "nvidia.com/gpu");
    assert_eq!((gpu.extended[0].used, gpu.extended[0].capacity), (3, 4));
    assert!(node_named(&s, "plain").extended.is_empty());
    let json = serde_json::to_value(&gpu).expect("serialisable");
    assert_eq!(json["extended"][0]["capacity"], 4);
    assert!(serde_json::to_value(node_named(&s, "plain"))
        .unwrap()
        .get("extended")
        .is_none());
}
