//! The JavaScript-facing calls, in real headless Chromium:
//! `wasm-pack test --headless --chrome web` (scripts/test.sh does this with the
//! environment from scripts/lib.sh). Values cross the boundary exactly as the
//! page sees them.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect};
use shepherd_web::Shepherd;
use wasm_bindgen::{JsError, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).expect("a property")
}

fn num(v: &JsValue, key: &str) -> f64 {
    get(v, key)
        .as_f64()
        .unwrap_or_else(|| panic!("{key} should be a number"))
}

fn text(v: &JsValue, key: &str) -> String {
    get(v, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} should be a string"))
}

/// A plain object from pairs, as the page's forms build them.
fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).expect("settable");
    }
    o.into()
}

fn message(e: JsError) -> String {
    js_sys::Error::from(JsValue::from(e)).message().into()
}

fn cluster(seed: f64) -> Shepherd {
    let mut s = Shepherd::new(seed, "binpack").expect("a valid seed and policy");
    for name in ["node-1", "node-2", "node-3"] {
        s.add_node(obj(&[
            ("name", name.into()),
            ("cpu", 4000.into()),
            ("memory", "8Gi".into()),
            ("labels", "topology.kubernetes.io/zone=zone-a".into()),
        ]))
        .expect("a valid node");
    }
    s.deploy(obj(&[
        ("name", "web".into()),
        ("replicas", 6.into()),
        ("cpu", "500m".into()),
        ("memory", "512Mi".into()),
    ]))
    .expect("a valid deployment");
    s.step();
    s.step();
    s
}

fn node(s: &Shepherd, name: &str) -> JsValue {
    let snap = s.snapshot(true).expect("a snapshot");
    Array::from(&get(&snap, "nodes"))
        .iter()
        .find(|n| text(n, "name") == name)
        .unwrap_or_else(|| panic!("{name} should be drawn"))
}

fn app(s: &Shepherd, name: &str) -> JsValue {
    let snap = s.snapshot(false).expect("a snapshot");
    Array::from(&get(&snap, "apps"))
        .iter()
        .find(|a| text(a, "name") == name)
        .unwrap_or_else(|| panic!("{name} should be listed"))
}

fn all_events(s: &Shepherd) -> Vec<String> {
    let page = s.events_since(0, 1_000_000, None).expect("events");
    Array::from(&get(&page, "events"))
        .iter()
        .map(|e| {
            format!(
                "{} {} {} {}",
                num(&e, "tick"),
                text(&e, "reason"),
                text(&e, "object"),
                text(&e, "message")
            )
        })
        .collect()
}

#[wasm_bindgen_test]
fn engine_version_crosses_the_boundary() {
    let v = shepherd_web::engine_version();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn actions_fire_at_the_next_tick_and_show_in_the_snapshot() {
    let mut s = Shepherd::new(1.0, "binpack").expect("valid");
    let said = s
        .add_node(obj(&[
            ("name", "node-1".into()),
            ("cpu", 2000.into()),
            ("memory", "4Gi".into()),
        ]))
        .expect("valid");
    assert!(said.contains("queued for tick 1"), "{said}");
    assert_eq!(
        num(&s.snapshot(true).unwrap(), "nodeCount"),
        0.0,
        "not before the tick"
    );
    s.step();
    assert_eq!(s.tick(), 1.0);
    let n = node(&s, "node-1");
    assert_eq!(text(&n, "status"), "Ready");
    assert_eq!(num(&get(&n, "cpu"), "capacity"), 2000.0);
    s.deploy(obj(&[
        ("name", "api".into()),
        ("replicas", 3.into()),
        ("cpu", 500.into()),
        ("memory", "256Mi".into()),
    ]))
    .expect("valid");
    s.step();
    let pods = Array::from(&get(&node(&s, "node-1"), "pods"));
    assert_eq!(pods.length(), 3);
    assert_eq!(text(&pods.get(0), "app"), "api");
    s.scale("api", 5.0).expect("valid");
    s.step();
    // Four fit on a 2-CPU node; the fifth is Pending with the scheduler's reason.
    let snap = s.snapshot(true).unwrap();
    assert_eq!(num(&snap, "pendingPods"), 1.0);
    let pending = Array::from(&get(&snap, "pending")).get(0);
    assert!(
        text(&pending, "reason").contains("Insufficient cpu"),
        "{:?}",
        text(&pending, "reason")
    );
    let x = s.explain(&text(&pending, "name")).expect("the pod exists");
    let verdict = Array::from(&get(&x, "nodes")).get(0);
    assert_eq!(text(&verdict, "plugin"), "NodeResourcesFit");
    // The grid view: one row of seven numbers per node.
    let grid = s.node_grid();
    assert_eq!(grid.len(), Shepherd::grid_stride() as usize);
    assert_eq!((grid[1], grid[2], grid[5]), (2000, 2000, 4));
}

#[wasm_bindgen_test]
fn a_killed_node_goes_not_ready_and_heals() {
    let mut s = cluster(5.0);
    assert_eq!(
        num(&node(&s, "node-1"), "podCount"),
        6.0,
        "bin-packed onto node-1"
    );
    s.fail_node("node-1").expect("node-1 exists");
    s.run(51.0).expect("valid");
    assert_eq!(
        text(&node(&s, "node-1"), "status"),
        "Ready",
        "still within the node monitor grace period (50 s)"
    );
    s.run(1.0).expect("valid");
    let n1 = node(&s, "node-1");
    assert_eq!(text(&n1, "status"), "NotReady");
    assert_eq!(num(&n1, "podCount"), 6.0, "marked not Ready, not deleted");
    let pods = Array::from(&get(&n1, "pods"));
    assert_eq!(num(&pods.get(0), "evictIn"), 300.0);
    assert_eq!(num(&app(&s, "web"), "ready"), 0.0);
    // Skip the quiet seconds: the tick that evicts them, 300 s later.
    let before = s.tick();
    assert_eq!(s.skip_quiet(), before + 300.0);
    assert_eq!(num(&node(&s, "node-1"), "podCount"), 0.0);
    assert_eq!(
        num(&app(&s, "web"), "current"),
        6.0,
        "replacements were created"
    );
    s.run(1.0).expect("valid");
    assert_eq!(
        num(&app(&s, "web"), "ready"),
        6.0,
        "and are Ready elsewhere"
    );
    assert!(all_events(&s).iter().any(|e| e.contains("NodeNotReady")));
    s.recover_node("node-1").expect("node-1 exists");
    s.run(2.0).expect("valid");
    assert_eq!(text(&node(&s, "node-1"), "status"), "Ready");
    assert!(all_events(&s).iter().any(|e| e.contains("NodeReady")));
}

#[wasm_bindgen_test]
fn two_handles_with_the_same_seed_agree() {
    let mut a = cluster(42.0);
    let mut b = cluster(42.0);
    for s in [&mut a, &mut b] {
        s.fail_node("node-2").unwrap();
        s.scale("web", 9.0).unwrap();
        s.run(8.0).unwrap();
    }
    assert_eq!(all_events(&a), all_events(&b));
    assert_eq!(a.export_scenario().unwrap(), b.export_scenario().unwrap());
    assert_eq!(a.node_grid(), b.node_grid());
}

#[wasm_bindgen_test]
fn bad_input_throws_and_changes_nothing() {
    let mut s = cluster(3.0);
    let doc = s.export_scenario().unwrap();
    let events = all_events(&s);
    let refusals: Vec<(Result<String, JsError>, &str)> = vec![
        (s.scale("web", -1.0), "replicas -1 is not valid"),
        (s.scale("web", 2.5), "expected a whole number"),
        (s.scale("nope", 1.0), "app \"nope\" not found"),
        (s.fail_node("node-9"), "node \"node-9\" not found"),
        (s.drain(""), "not found"),
        (
            s.add_node(obj(&[
                ("name", "".into()),
                ("cpu", 1000.into()),
                ("memory", 1000.into()),
            ])),
            "name is empty",
        ),
        (
            s.add_node(obj(&[
                ("name", "<b>x</b>".into()),
                ("cpu", 1000.into()),
                ("memory", 1000.into()),
            ])),
            "not valid",
        ),
        (
            s.add_node(obj(&[("name", "n".into()), ("memory", 1000.into())])),
            "missing field `cpu`",
        ),
        (s.add_node("node-4".into()), "expected an object"),
        (
            s.deploy(obj(&[
                ("name", "huge".into()),
                ("replicas", 1.into()),
                ("cpu", 64000.into()),
                ("memory", 1.into()),
            ])),
            "fits on no node",
        ),
        (
            s.deploy(obj(&[
                ("name", "w".into()),
                ("replicas", (-2).into()),
                ("cpu", 1.into()),
                ("memory", 1.into()),
            ])),
            "replicas",
        ),
        (s.roll("web", obj(&[])), "same as the current one"),
        (s.rollback("web"), "no previous revision"),
        (
            s.add_pdb(obj(&[("name", "p".into()), ("app", "web".into())])),
            "exactly one of minAvailable and maxUnavailable",
        ),
        (
            s.add_pdb(obj(&[
                ("name", "p".into()),
                ("app", "web".into()),
                ("minAvailable", "150%".into()),
            ])),
            "0% to 100%",
        ),
        (s.set_policy("random"), "binpack or leastloaded"),
        (s.generate(0.0, 30.0), "nodes 0 is not valid"),
        (
            s.submit(obj(&[("type", "explode".into())])),
            "unknown variant",
        ),
    ];
    for (r, want) in refusals {
        let m = message(r.expect_err(&format!("should be refused with {want:?}")));
        assert!(m.contains(want), "message {m:?} should contain {want:?}");
    }
    for (r, want) in [
        (Shepherd::from_scenario("{not json"), "not valid JSON"),
        (Shepherd::from_scenario("[]"), "not an object"),
        (
            Shepherd::from_scenario(
                r#"{"version":1,"seed":1,"policy":"binpack","actions":[{"tick":1,"action":{"type":"scale"}}]}"#,
            ),
            "action 1 (tick 1, scale): the field app is missing",
        ),
        (
            Shepherd::from_scenario(r#"{"version":1,"seed":-1,"policy":"binpack","actions":[]}"#),
            "seed",
        ),
        (
            Shepherd::from_scenario(
                r#"{"version":1,"seed":1,"policy":"binpack","actions":[{"tick":1,"action":{"type":"addNode","name":"n","cpu":1,"memory":1,"lables":{}}}]}"#,
            ),
            "the field \"lables\" is not known here",
        ),
        (
            Shepherd::from_scenario(
                r#"{"version":1,"seed":1,"policy":"binpack","actions":[{"tick":3,"action":{"type":"addNode","name":"n","cpu":"4000m","memory":1}}]}"#,
            ),
            "action 1 (tick 3, addNode), field cpu (CPU in millicores: 4000 is 4 CPUs): got the text \"4000m\"; expected a whole number from 0",
        ),
        (
            Shepherd::from_scenario(
                r#"{"version":1,"seed":1,"policy":"binpack","actions":[{"tick":1,"action":{"type":"addNode","name":"n","cpu":1000,"memory":1024}},{"tick":2,"action":{"type":"addNode","name":"n","cpu":1000,"memory":1024}}]}"#,
            ),
            "action 2 (tick 2, addNode) is refused: node \"n\" already exists",
        ),
        (
            Shepherd::new(-1.0, "binpack").map(|_| unreachable!()),
            "seed -1 is not valid",
        ),
    ] {
        let m = message(r.err().expect("refused"));
        assert!(m.contains(want), "message {m:?} should contain {want:?}");
    }
    assert_eq!(s.export_scenario().unwrap(), doc, "the script is unchanged");
    assert_eq!(all_events(&s), events, "the cluster is unchanged");
    s.step();
    let refused = s.refused_actions(100).expect("refused actions");
    assert_eq!(
        Array::from(&refused).length(),
        0,
        "nothing refused was queued"
    );
}

#[wasm_bindgen_test]
fn a_scenario_round_trips_through_json_and_step_back_replays() {
    let mut s = cluster(9.0);
    s.roll("web", obj(&[("version", "v2".into())])).unwrap();
    s.add_pdb(obj(&[
        ("name", "web-pdb".into()),
        ("app", "web".into()),
        ("maxUnavailable", 1.into()),
    ]))
    .unwrap();
    s.run(3.0).unwrap();
    let json = s.export_scenario().unwrap();
    assert!(
        json.starts_with(r#"{"version":2,"seed":9,"policy":"binpack","tick":5,"actions":["#),
        "{json}"
    );
    assert!(
        json.contains(r#""type":"roll""#) && json.contains(r#""maxUnavailable":1"#),
        "{json}"
    );
    let r = Shepherd::from_scenario(&json).expect("its own export replays");
    assert_eq!(r.tick(), 5.0);
    assert_eq!(all_events(&r), all_events(&s));
    assert_eq!(r.export_scenario().unwrap(), json);

    let at4 = Shepherd::from_scenario(&json.replace(r#""tick":5,"#, r#""tick":4,"#)).unwrap();
    assert_eq!(s.step_back().unwrap(), 4.0);
    assert_eq!(all_events(&s), all_events(&at4));
    assert_eq!(s.node_grid(), at4.node_grid());
}

#[wasm_bindgen_test]
fn the_tour_starts_at_tick_zero_with_its_script_queued() {
    let mut t = Shepherd::tour();
    let snap = t.snapshot(true).unwrap();
    assert_eq!(num(&snap, "tick"), 0.0);
    assert!(num(&snap, "upcomingCount") > 10.0);
    assert!(text(&snap, "note").contains("tour"));
    t.run(4.0).unwrap();
    let snap = t.snapshot(true).unwrap();
    assert_eq!(Array::from(&get(&snap, "nodes")).length(), 5);
    assert_eq!(
        num(&snap, "pendingPods"),
        1.0,
        "the third cache pod has no zone left"
    );
}

#[wasm_bindgen_test]
fn runs_in_a_browser_window() {
    let global = js_sys::global();
    let has = |name: &str| Reflect::has(&global, &name.into()).unwrap_or(false);
    assert!(
        has("window") && has("document"),
        "expected a browser page, not node or a worker"
    );
}

#[wasm_bindgen_test]
fn a_registered_node_name_is_refused_and_reregistration_is_its_own_call() {
    let mut s = cluster(5.0);
    s.run(3.0).unwrap();
    let same = || {
        obj(&[
            ("name", "node-1".into()),
            ("cpu", 4000.into()),
            ("memory", "8Gi".into()),
        ])
    };
    let m = message(s.add_node(same()).expect_err("the name is registered"));
    assert!(m.contains("node \"node-1\" already exists"), "{m}");
    let m = message(
        s.reregister_node(obj(&[
            ("name", "node-9".into()),
            ("cpu", 1000.into()),
            ("memory", "1Gi".into()),
        ]))
        .expect_err("no such node"),
    );
    assert!(m.contains("not found"), "{m}");
    let before = s.node(s.node_id("node-1").unwrap()).unwrap();
    let pods_before = num(&before, "podCount");
    assert!(pods_before > 0.0, "node-1 runs pods");
    let tainted = obj(&[
        ("name", "node-1".into()),
        ("cpu", 4000.into()),
        ("memory", "8Gi".into()),
        ("taints", "dedicated=gpu:NoSchedule".into()),
    ]);
    let said = s.reregister_node(tainted).expect("a new body for node-1");
    assert!(said.contains("re-register node node-1"), "{said}");
    s.step();
    let after = s.node(s.node_id("node-1").unwrap()).unwrap();
    let pods_after = num(&after, "podCount");
    assert_eq!(pods_before, pods_after, "NoSchedule keeps running pods");
}

/// An imported cluster whose pods are placed in slices (`loadImported`
/// with `placeLater`, then `stepSlice` until it returns the tick's
/// refusals) ends exactly where the whole import does.
#[wasm_bindgen_test]
fn an_import_placed_in_slices_is_the_whole_import() {
    let mut docs = Vec::new();
    for i in 1..=30 {
        docs.push(format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels:\n    topology.kubernetes.io/zone: zone-{}\nstatus:\n  allocatable:\n    cpu: \"8\"\n    memory: 16Gi\n    pods: \"110\"\n",
            i % 3
        ));
    }
    for d in 1..=12 {
        docs.push(format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{d}\nspec:\n  replicas: {}\n  selector:\n    matchLabels:\n      app: app-{d}\n  template:\n    metadata:\n      labels:\n        app: app-{d}\n    spec:\n      containers:\n      - name: c\n        resources:\n          requests:\n            cpu: 250m\n            memory: 256Mi\n",
            d * 5
        ));
    }
    let (canonical, _) =
        shepherd_web::manifests::read(&docs.join("---\n"), &mut |_| {}).expect("imports");
    let mut whole = Shepherd::new(4.0, "default-scheduler").expect("a session");
    whole.load_imported(&canonical, None).expect("loads");
    assert_eq!(whole.tick(), 1.0);
    let mut sliced = Shepherd::new(4.0, "default-scheduler").expect("a session");
    sliced.load_imported(&canonical, Some(true)).expect("loads");
    assert_eq!(sliced.tick(), 0.0, "the pods are placed by the slices");
    assert!(sliced.step_progress().is_none());
    let mut seen = Vec::new();
    let refused = loop {
        match sliced.step_slice(40.0).expect("a valid budget") {
            Some(r) => break r,
            None => {
                let p = sliced.step_progress().expect("a tick under way");
                seen.push(p[0]);
                // Actions wait for the tick.
                match sliced.scale("app-1", 2.0) {
                    Ok(said) => panic!("an action mid-tick was taken: {said}"),
                    Err(e) => assert!(message(e).contains("still being computed")),
                }
            }
        }
    };
    assert!(refused.is_empty(), "{refused:?}");
    assert!(seen.len() >= 5, "slices: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(sliced.tick(), 1.0);
    assert!(sliced.step_progress().is_none());
    assert_eq!(all_events(&sliced), all_events(&whole));
    let json = |s: &Shepherd| {
        js_sys::JSON::stringify(&s.snapshot(true).expect("a snapshot"))
            .expect("JSON")
            .as_string()
            .expect("text")
    };
    assert_eq!(json(&sliced), json(&whole));
    match sliced.step_slice(0.0) {
        Ok(_) => panic!("a budget of 0 was taken"),
        Err(e) => assert!(message(e).contains("budget 0 is not valid")),
    }
}

/// A version-1 document (a saved link or file from before memory was
/// counted in bytes) still loads: its `memory` is read as MiB, and the
/// export is version 2 with `memoryBytes`, which loads to the same run.
#[wasm_bindgen_test]
fn a_version_1_scenario_reads_memory_in_mib_and_exports_version_2_in_bytes() {
    let v1 = r#"{"version":1,"seed":3,"policy":"binpack","tick":2,"actions":[{"tick":1,"action":{"type":"addNode","name":"n1","cpu":4000,"memory":8192}},{"tick":1,"action":{"type":"deploy","name":"web","replicas":2,"template":{"cpu":500,"memory":256}}}]}"#;
    let s = Shepherd::from_scenario(v1).expect("a version-1 document still loads");
    let n = node(&s, "n1");
    assert_eq!(num(&get(&n, "memory"), "capacity"), 8589934592.0);
    assert_eq!(num(&get(&n, "memory"), "used"), 2.0 * 268435456.0);
    let json = s.export_scenario().unwrap();
    assert!(json.starts_with(r#"{"version":2,"seed":3"#), "{json}");
    assert!(json.contains(r#""memoryBytes":8589934592"#), "{json}");
    assert!(json.contains(r#""memoryBytes":268435456"#), "{json}");
    assert!(!json.contains(r#""memory":"#), "{json}");
    let again = Shepherd::from_scenario(&json).expect("its own export loads");
    assert_eq!(again.export_scenario().unwrap(), json);
    assert_eq!(all_events(&again), all_events(&s));
    // A version-2 document with the version-1 field is refused, naming it.
    let m = message(
        Shepherd::from_scenario(&json.replace("memoryBytes\":8589934592", "memory\":8192"))
            .err()
            .expect("memory is not a version-2 field"),
    );
    assert!(m.contains("memory"), "{m}");
}
