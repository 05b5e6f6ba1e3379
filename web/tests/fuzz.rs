//! Fuzzers at the web crate's boundaries, natively: session actions, scenario
//! documents and typed text, plus the resource bombs of the hardening issue
//! as regression cases, and replays held to a bound of work per tick
//! (`WORK_PER_OBJECT`: events written, counted, not timed). Seeded; the number of cases comes from
//! `SHEPHERD_FUZZ_OPS` (default 200); a failure prints its seed and the
//! command that reproduces it:
//! `SHEPHERD_FUZZ_SEED=N cargo test -p shepherd-web --test fuzz <test>`.
//! Run with overflow checks and debug assertions (the test profile has both;
//! `cargo test --profile fuzz` keeps them in an optimised build).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::quantity::MIB;
use shepherd::simulator::Prng;
use shepherd::ScorePolicy;
use shepherd_web::input::{self, Field};
use shepherd_web::scenario::{self, Action, IntOrString, TemplateDoc};
use shepherd_web::session::Session;
use shepherd_web::workloads;

mod common;
use common::import_json;

/// The longest message a refusal may be, whatever it was given.
const MAX_MESSAGE: usize = 600;

fn ops() -> u64 {
    std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(200)
}

/// Runs `case` for each seed (or the one in `SHEPHERD_FUZZ_SEED`), printing
/// every failing seed with the command that reproduces it.
fn fuzz(test: &str, cases: u64, case: impl Fn(u64) -> Result<(), String>) {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_FUZZ_SEED") {
        Ok(v) => vec![v.trim().parse().expect("SHEPHERD_FUZZ_SEED is a number")],
        Err(_) => (0..cases.max(1)).collect(),
    };
    let mut failed = Vec::new();
    for seed in seeds {
        let why = match catch_unwind(AssertUnwindSafe(|| case(seed))) {
            Ok(Ok(())) => continue,
            Ok(Err(why)) => why,
            Err(p) => format!(
                "panicked: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            ),
        };
        eprintln!(
            "\n[fuzz] {test} FAILED for seed {seed}: {why}\n[fuzz] reproduce: SHEPHERD_FUZZ_SEED={seed} cargo test -p shepherd-web --test fuzz {test}\n"
        );
        failed.push(seed);
    }
    assert!(failed.is_empty(), "{test} failed for seeds {failed:?}");
}

/// Text a person (or a hostile link) might type: names, quantities, markup,
/// control characters, huge numbers, very long strings.
fn text(rng: &mut Prng) -> String {
    const PIECES: &[&str] = &[
        "web",
        "node-1",
        "node-2",
        "cache",
        "a",
        "-",
        "_",
        "=",
        ",",
        ":",
        "%",
        "m",
        "Mi",
        "Gi",
        "Ti",
        "cpu",
        "0",
        "1",
        "25",
        "100",
        "4000",
        "4000m",
        "18446744073709551615",
        "4294967296",
        "-5",
        "1.5",
        "1e9",
        " ",
        "<b>",
        "\"",
        "\\",
        "\u{0}",
        "\n",
        "é",
        "NoSchedule",
        "NoExecute",
        "dedicated=gpu:NoSchedule",
        "app=web",
        "*",
        "zone",
        "hostname",
        "kubernetes.io/hostname",
        "NaN",
        "Infinity",
    ];
    let mut s = String::new();
    for _ in 0..rng.range(0, 4) {
        let piece: &str = PIECES[rng.below(PIECES.len() as u64) as usize];
        s.push_str(piece);
    }
    if rng.chance(3) {
        s.push_str(&"x".repeat(rng.range(64, 100_000) as usize));
    }
    s
}

fn number(rng: &mut Prng) -> u64 {
    match rng.below(6) {
        0 => 0,
        1 => rng.range(1, 10),
        2 => rng.range(100, 8000),
        3 => u32::MAX as u64,
        4 => u64::MAX,
        _ => rng.next_u64(),
    }
}

fn name(rng: &mut Prng, pool: &[&str]) -> String {
    if rng.chance(80) {
        rng.pick(pool).to_string()
    } else {
        text(rng)
    }
}

fn ios(rng: &mut Prng) -> IntOrString {
    if rng.chance(50) {
        IntOrString::Int(number(rng) as u32)
    } else {
        IntOrString::Str((*rng.pick(&["0", "1", "25%", "100%", "101%", "x"])).to_string())
    }
}

fn labels(rng: &mut Prng) -> BTreeMap<String, String> {
    let mut l = BTreeMap::new();
    for _ in 0..rng.range(0, 2) {
        let k = if rng.chance(80) {
            "app".into()
        } else {
            text(rng)
        };
        let v = if rng.chance(80) {
            rng.pick(&["web", "api", "cache"]).to_string()
        } else {
            text(rng)
        };
        l.insert(k, v);
    }
    l
}

fn template(rng: &mut Prng) -> TemplateDoc {
    TemplateDoc {
        version: if rng.chance(80) {
            format!("v{}", rng.range(1, 3))
        } else {
            text(rng)
        },
        cpu: if rng.chance(70) {
            rng.range(0, 3000)
        } else {
            number(rng)
        },
        memory_bytes: if rng.chance(70) {
            rng.range(0, 4096) * MIB
        } else {
            number(rng)
        },
        labels: if rng.chance(50) {
            None
        } else {
            Some(labels(rng))
        },
        node_selector: Default::default(),
        tolerations: Vec::new(),
        affinity: Vec::new(),
        anti_affinity: Vec::new(),
        ready_after: if rng.chance(80) {
            rng.range(0, 3) as u32
        } else {
            number(rng) as u32
        },
        priority_class_name: if rng.chance(80) {
            None
        } else {
            Some(text(rng))
        },
    }
}

const NODES: &[&str] = &["node-1", "node-2", "node-3", "node-4"];
const APPS: &[&str] = &["web", "api", "cache"];

fn action(rng: &mut Prng) -> Action {
    let node = |rng: &mut Prng| name(rng, NODES);
    let app = |rng: &mut Prng| name(rng, APPS);
    match rng.below(30) {
        0 | 1 => Action::AddNode {
            name: node(rng),
            cpu: if rng.chance(70) {
                rng.range(1, 8000)
            } else {
                number(rng)
            },
            memory_bytes: if rng.chance(70) {
                rng.range(1, 16384) * MIB
            } else {
                number(rng)
            },
            labels: labels(rng),
            taints: Vec::new(),
        },
        2 => Action::ReregisterNode {
            name: node(rng),
            cpu: rng.range(1, 8000),
            memory_bytes: rng.range(1, 16384) * MIB,
            labels: labels(rng),
            taints: if rng.chance(50) {
                vec![scenario::TaintDoc {
                    key: "dedicated".into(),
                    value: "gpu".into(),
                    effect: rng
                        .pick(&["NoSchedule", "NoExecute", "PreferNoSchedule", "x"])
                        .to_string(),
                }]
            } else {
                Vec::new()
            },
        },
        3 => Action::FailNode { node: node(rng) },
        4 => Action::RecoverNode { node: node(rng) },
        5 => Action::RemoveNode { node: node(rng) },
        6 => Action::Cordon { node: node(rng) },
        7 => Action::Uncordon { node: node(rng) },
        8 => Action::Drain { node: node(rng) },
        9 | 10 => Action::Deploy {
            namespace: None,
            name: app(rng),
            replicas: if rng.chance(80) {
                rng.range(0, 8) as u32
            } else {
                number(rng) as u32
            },
            template: template(rng),
            max_surge: ios(rng),
            max_unavailable: ios(rng),
            min_ready_seconds: if rng.chance(70) {
                0
            } else {
                number(rng) as u32
            },
            progress_deadline_seconds: if rng.chance(70) {
                600
            } else {
                number(rng) as u32
            },
        },
        11 => Action::Scale {
            app: app(rng),
            replicas: if rng.chance(80) {
                rng.range(0, 8) as u32
            } else {
                number(rng) as u32
            },
        },
        12 => Action::Roll {
            app: app(rng),
            template: template(rng),
        },
        13 => Action::Rollback { app: app(rng) },
        14 => Action::SetStrategy {
            app: app(rng),
            max_surge: ios(rng),
            max_unavailable: ios(rng),
        },
        15 => Action::DeleteApp { app: app(rng) },
        16 => Action::AddPdb {
            namespace: None,
            name: name(rng, &["pdb"]),
            selector: labels(rng),
            min_available: if rng.chance(50) { Some(ios(rng)) } else { None },
            max_unavailable: if rng.chance(50) { Some(ios(rng)) } else { None },
        },
        17 => Action::Evict {
            pod: format!("{}-{}", app(rng), rng.range(0, 8)),
        },
        18 => Action::SetPolicy {
            policy: rng.pick(&["binpack", "leastloaded", "x"]).to_string(),
        },
        19 => Action::TaintNode {
            node: node(rng),
            taint: scenario::TaintDoc {
                key: rng
                    .pick(&["maintenance", "dedicated", "bad key!", ""])
                    .to_string(),
                value: rng.pick(&["", "gpu", "x y"]).to_string(),
                effect: rng
                    .pick(&["NoSchedule", "NoExecute", "PreferNoSchedule", "x"])
                    .to_string(),
            },
        },
        20 => Action::UntaintNode {
            node: node(rng),
            key: rng.pick(&["maintenance", "dedicated", ""]).to_string(),
            effect: if rng.chance(50) {
                Some(rng.pick(&["NoSchedule", "NoExecute", "x", ""]).to_string())
            } else {
                None
            },
        },
        21 => Action::FailZone {
            key: rng
                .pick(&["topology.kubernetes.io/zone", "zone", "bad key!"])
                .to_string(),
            value: rng.pick(&["zone-a", "zone-b", "zone-c", "a b"]).to_string(),
        },
        22 => Action::AddPriorityClass {
            name: rng
                .pick(&["high", "low", "system-x", "Bad Name"])
                .to_string(),
            value: if rng.chance(70) {
                rng.range(0, 2000) as i32 - 1000
            } else {
                rng.next_u64() as i32
            },
            global_default: rng.chance(30),
            preemption_policy: rng
                .pick(&["PreemptLowerPriority", "Never", "x"])
                .to_string(),
        },
        23 => Action::DeletePriorityClass {
            name: rng
                .pick(&["high", "low", "system-node-critical", "x"])
                .to_string(),
        },
        // DaemonSets (every update strategy, some refused) and bare Pods,
        // as the page's forms record them.
        24 | 25 => {
            let mut d = shepherd::DaemonSetSpec::new(
                *rng.pick(&["agent", "gpu-agent"]),
                template(rng).to_engine("agent").unwrap_or_else(|_| {
                    shepherd::PodTemplate::new(shepherd::Resources::new(100, 64 * MIB))
                }),
            );
            d.max_unavailable = shepherd::IntOrPercent::Int(rng.range(0, 3) as u32);
            d.max_surge = match rng.below(3) {
                0 => shepherd::IntOrPercent::Int(rng.range(0, 3) as u32),
                1 => shepherd::IntOrPercent::Percent(rng.range(0, 150) as u32),
                _ => shepherd::IntOrPercent::Int(0),
            };
            if rng.chance(20) {
                d = d.on_delete();
            }
            d.min_ready_seconds = rng.range(0, 5) as u32;
            d.host_network = rng.chance(30);
            let manifests = shepherd_web::manifests::one_object(|sc| sc.daemonsets.push(d));
            if rng.chance(50) {
                Action::Manifests { manifests }
            } else {
                Action::UpdateDaemonSet { manifests }
            }
        }
        26 => Action::DeleteDaemonSet {
            name: rng.pick(&["agent", "gpu-agent", "web"]).to_string(),
        },
        27 => {
            let p = shepherd::BarePodSpec {
                name: rng.pick(&["debug", "probe"]).to_string(),
                template: shepherd::PodTemplate::new(shepherd::Resources::new(
                    rng.range(0, 3000),
                    rng.range(0, 4096) * MIB,
                )),
                node_name: rng.chance(60).then(|| node(rng)),
            };
            Action::Manifests {
                manifests: shepherd_web::manifests::one_object(|sc| sc.pods.push(p)),
            }
        }
        28 => Action::DeletePod {
            name: rng.pick(&["debug", "probe", "web"]).to_string(),
        },
        _ => Action::Generate {
            nodes: if rng.chance(70) {
                rng.range(1, 20) as u32
            } else {
                number(rng) as u32
            },
            pods_per_node: if rng.chance(70) {
                rng.range(0, 10) as u32
            } else {
                number(rng) as u32
            },
        },
    }
}

/// Random actions on a session: an accepted one is queued; a refused one
/// changes nothing and says what was expected in a bounded message; the
/// export always imports back to the same run.
#[test]
fn fuzz_session_actions() {
    fuzz("fuzz_session_actions", ops(), |seed| {
        let mut rng = Prng::new(seed);
        let mut s = Session::new(seed, ScorePolicy::BinPack);
        for step in 0..rng.range(5, 40) {
            let a = action(&mut rng);
            let before = s.scenario();
            match s.submit(a.clone()) {
                Ok(_) => {}
                Err(e) => {
                    if e.len() > MAX_MESSAGE {
                        return Err(format!(
                            "step {step}: a {}-byte refusal for {}",
                            e.len(),
                            a.kind()
                        ));
                    }
                    if s.scenario() != before {
                        return Err(format!(
                            "step {step}: refused {} ({e}) but the script changed",
                            a.kind()
                        ));
                    }
                }
            }
            if rng.chance(40) {
                s.run(rng.range(1, 3));
            }
            // Back, so that later actions are queued after the current tick
            // and the next action is taken before them.
            if rng.chance(25) && s.tick() > 0 {
                s.step_back()
                    .map_err(|e| format!("step {step}: Back refused: {e}"))?;
            }
        }
        let doc = s.scenario();
        let back = Session::from_scenario(&doc).map_err(|e| {
            format!(
                "its own export was refused: {e}\n{}",
                serde_json::to_string(&doc).unwrap_or_default()
            )
        })?;
        if back.scenario() != doc {
            return Err("the import differs from its export".into());
        }
        let (a, b) = (
            s.simulator().cluster().rendered_events(),
            back.simulator().cluster().rendered_events(),
        );
        if a != b {
            return Err(format!(
                "the import's event log differs ({} vs {} events)",
                a.len(),
                b.len()
            ));
        }
        // The actions still queued fire alike in both (a refusal when one
        // fires, which an earlier action of the same tick can cause, alike too).
        let (mut s, mut back) = (s, back);
        let end = s.log().last().map_or(0, |e| e.tick);
        while s.tick() < end {
            let (x, y) = (step_within_bound(&mut s)?, back.step());
            if x != y {
                return Err(format!(
                    "tick {}: the queued actions fired differently: {x:?} (import: {y:?})",
                    s.tick()
                ));
            }
        }
        if s.simulator().cluster().rendered_events() != back.simulator().cluster().rendered_events()
        {
            return Err(format!("the runs differ by tick {end}"));
        }
        // The view's short lists, read from the books, are what a scan of
        // every pod and endpoint lists.
        let (c, snap) = (s.simulator().cluster(), s.snapshot(false));
        let scanned: Vec<String> = (c.pods())
            .filter(|p| p.phase == shepherd::PodPhase::Pending)
            .take(shepherd_web::view::PENDING_LISTED)
            .map(|p| p.name())
            .collect();
        let listed: Vec<String> = snap.pending.iter().map(|p| p.name.clone()).collect();
        if listed != scanned {
            return Err(format!("pending listed {listed:?}, scanned {scanned:?}"));
        }
        for row in &snap.services {
            let all = c.service_endpoints(&row.name).map_err(|e| e.to_string())?;
            let first = &all[..all.len().min(shepherd_web::view::ENDPOINTS_LISTED)];
            if row.endpoint_count as usize != all.len() || row.endpoints != first {
                return Err(format!(
                    "Service {}: {} {:?} listed, {} {first:?} scanned",
                    row.name,
                    row.endpoint_count,
                    row.endpoints,
                    all.len()
                ));
            }
        }
        Ok(())
    });
}

/// Random actions, ticks, idle time (which readies the spare simulator Back
/// takes, or does not while "playing") and Back: after each Back the run is
/// the one a replay of its script from the seed reaches (the same events,
/// the same view), whether Back took the spare, a kept copy or the seed.
#[test]
fn fuzz_back_after_idle() {
    fuzz("fuzz_back_after_idle", ops() / 4, |seed| {
        let mut rng = Prng::new(seed);
        let mut s = Session::new(seed, ScorePolicy::BinPack);
        // A first tick big enough to be worth a kept copy, so that the spare
        // has one to start from.
        s.submit(Action::Generate {
            nodes: rng.range(20, 40) as u32,
            pods_per_node: rng.range(10, 20) as u32,
        })
        .map_err(|e| format!("generate refused: {e}"))?;
        for step in 0..rng.range(5, 30) {
            let _ = s.submit(action(&mut rng));
            if rng.chance(50) {
                s.run(rng.range(1, 4));
            }
            if rng.chance(40) {
                let prepare = rng.chance(80);
                let mut calls = 0;
                while s.idle(prepare) {
                    calls += 1;
                    if calls > 10_000 {
                        return Err(format!("step {step}: idle work does not end"));
                    }
                }
            }
            if rng.chance(30) && s.tick() > 0 {
                s.step_back()
                    .map_err(|e| format!("step {step}: Back refused: {e}"))?;
                let fresh = Session::replayed(
                    seed,
                    ScorePolicy::BinPack.into(),
                    s.log().to_vec(),
                    s.tick(),
                )
                .map_err(|e| format!("step {step}: the replay from the seed failed: {e}"))?;
                if s.simulator().cluster().rendered_events()
                    != fresh.simulator().cluster().rendered_events()
                    || s.snapshot(true) != fresh.snapshot(true)
                {
                    return Err(format!(
                        "step {step}: Back to tick {} differs from the replay from the seed",
                        s.tick()
                    ));
                }
            }
        }
        Ok(())
    });
}

/// The tour's document, mutated: each import either replays or is refused
/// with a bounded message that names what was wrong.
#[test]
fn fuzz_scenario_documents() {
    let base = serde_json::to_value(scenario::tour()).expect("the tour serializes");
    fuzz("fuzz_scenario_documents", ops(), |seed| {
        let mut rng = Prng::new(seed);
        let mut doc = base.clone();
        for _ in 0..rng.range(1, 4) {
            mutate(&mut rng, &mut doc);
        }
        let json = doc.to_string();
        match import_json(&json) {
            Ok(_) => Ok(()),
            Err(e) if e.len() > MAX_MESSAGE => Err(format!("a {}-byte refusal: {e}", e.len())),
            Err(e) if e.contains("u64") || e.contains("u32") || e.contains("floating point") => {
                Err(format!("the refusal speaks of Rust types: {e}"))
            }
            Err(_) => Ok(()),
        }
    });
}

fn mutate(rng: &mut Prng, v: &mut serde_json::Value) {
    use serde_json::Value;
    // A random JSON pointer into the document, walked read-only.
    let mut pointer = String::new();
    {
        let mut cur: &Value = v;
        for _ in 0..rng.range(0, 5) {
            let step = match cur {
                Value::Object(m) if !m.is_empty() => {
                    let k = m
                        .keys()
                        .nth(rng.below(m.len() as u64) as usize)
                        .cloned()
                        .unwrap_or_default();
                    m.get(&k).map(|n| (k, n))
                }
                Value::Array(a) if !a.is_empty() => {
                    let i = rng.below(a.len() as u64) as usize;
                    a.get(i).map(|n| (i.to_string(), n))
                }
                _ => None,
            };
            match step {
                Some((k, n)) => {
                    pointer.push('/');
                    pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    cur = n;
                }
                None => break,
            }
        }
    }
    let Some(cur) = v.pointer_mut(&pointer) else {
        return;
    };
    let old = cur.clone();
    *cur = match rng.below(8) {
        0 => Value::String(text(rng)),
        1 => Value::from(number(rng)),
        2 => Value::from(-(rng.range(1, 1000) as i64)),
        3 => Value::from(rng.range(0, 1000) as f64 + 0.5),
        4 => Value::Null,
        5 => Value::Array(vec![old.clone(), old]),
        6 => match old {
            Value::Object(mut m) if !m.is_empty() => {
                let k = m.keys().nth(rng.below(m.len() as u64) as usize).cloned();
                if let Some(k) = k {
                    m.remove(&k);
                }
                Value::Object(m)
            }
            other => other,
        },
        _ => Value::Bool(rng.chance(50)),
    };
}

/// Typed text in every field parser: no panic, and a refusal is short and
/// says what was expected.
#[test]
fn fuzz_typed_text() {
    fuzz("fuzz_typed_text", ops() * 20, |seed| {
        let mut rng = Prng::new(seed);
        let t = text(&mut rng);
        let results: Vec<Result<(), String>> = vec![
            input::cpu(&Field::Text(t.clone())).map(drop),
            input::memory(&Field::Text(t.clone())).map(drop),
            input::cpu(&Field::Num(f64::from_bits(rng.next_u64()))).map(drop),
            input::memory(&Field::Num(f64::from_bits(rng.next_u64()))).map(drop),
            input::parse_taints(&t).map(drop),
            input::parse_toleration(&t).map(drop),
            input::topology_key(&t).map(drop),
            scenario::parse_labels(&t, "label").map(drop),
            scenario::parse_policy(&t).map(drop),
            shepherd::IntOrPercent::parse(&t)
                .map(drop)
                .map_err(|e| e.to_string()),
            input::check_seed(f64::from_bits(rng.next_u64())).map(drop),
            input::PriorityClassInput {
                name: t.clone(),
                value: if rng.chance(50) {
                    Field::Text(t.clone())
                } else {
                    Field::Num(f64::from_bits(rng.next_u64()))
                },
                global_default: Some(rng.chance(50)),
                preemption_policy: Some(t.clone()),
            }
            .action()
            .map(drop),
            // The DaemonSet and Pod forms (web/src/workloads.rs).
            workloads::DaemonSetInput {
                name: t.clone(),
                cpu: Field::Text(t.clone()),
                memory: Field::Num(f64::from_bits(rng.next_u64())),
                version: Some(t.clone()),
                labels: None,
                node_selector: None,
                toleration: Some(t.clone()),
                priority_class_name: Some(t.clone()),
                host_network: rng.chance(50),
                strategy: Some(t.clone()),
                max_unavailable: Some(Field::Text(t.clone())),
                max_surge: Some(Field::Num(f64::from_bits(rng.next_u64()))),
                min_ready_seconds: Some(Field::Text(t.clone())),
            }
            .action()
            .map(drop),
            workloads::DaemonSetInput {
                name: "agent".into(),
                cpu: Field::Text("100m".into()),
                memory: Field::Text("64Mi".into()),
                version: None,
                labels: None,
                node_selector: None,
                toleration: None,
                priority_class_name: None,
                host_network: false,
                strategy: None,
                max_unavailable: Some(Field::Text(t.clone())),
                max_surge: Some(Field::Text(t.clone())),
                min_ready_seconds: Some(Field::Num(f64::from_bits(rng.next_u64()))),
            }
            .action()
            .map(drop),
            workloads::PodInput {
                name: t.clone(),
                cpu: Field::Num(f64::from_bits(rng.next_u64())),
                memory: Field::Text(t.clone()),
                labels: None,
                node_name: Some(t.clone()),
                priority_class_name: Some(t.clone()),
            }
            .action()
            .map(drop),
        ];
        for (i, r) in results.into_iter().enumerate() {
            if let Err(e) = r {
                if e.len() > MAX_MESSAGE {
                    return Err(format!("parser {i}: a {}-byte refusal", e.len()));
                }
                if !e.contains("expected") {
                    return Err(format!(
                        "parser {i}: the refusal does not say what was expected: {e}"
                    ));
                }
            }
        }
        Ok(())
    });
}

// ----- the resource bombs of the hardening issue, as regression cases -------

fn doc_of(actions: &[(u64, Action)]) -> scenario::Scenario {
    let mut s = scenario::empty(1, &ScorePolicy::BinPack.profile());
    s.tick = None;
    s.actions = actions
        .iter()
        .map(|(tick, action)| scenario::Entry {
            tick: *tick,
            action: action.clone(),
        })
        .collect();
    s
}

#[test]
fn many_generate_actions_are_refused_at_the_second() {
    let g = Action::Generate {
        nodes: 100,
        pods_per_node: 10,
    };
    let actions: Vec<(u64, Action)> = (1..=200).map(|t| (t, g.clone())).collect();
    let e = Session::from_scenario(&doc_of(&actions)).expect_err("refused");
    assert!(e.contains("action 2 (tick 2, generate)"), "{e}");
    assert!(e.contains("already exists"), "{e}");
}

#[test]
fn deployments_beyond_the_cluster_wide_pod_limit_are_refused() {
    let deploy = |n: &str| Action::Deploy {
        namespace: None,
        name: n.into(),
        replicas: 1_000_000,
        template: TemplateDoc::from_engine(&shepherd::PodTemplate::new(shepherd::Resources::new(
            100,
            64 * MIB,
        ))),
        max_surge: IntOrString::Str("25%".into()),
        max_unavailable: IntOrString::Str("25%".into()),
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
    };
    let actions: Vec<(u64, Action)> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|n| (1, deploy(n)))
        .collect();
    let e = Session::from_scenario(&doc_of(&actions)).expect_err("refused");
    assert!(e.contains("action 1 (tick 1, deploy)"), "{e}");
    assert!(e.contains("MAX_PODS"), "{e}");
    // Below the limit in all, above it together: the second is refused.
    let mut a = deploy("a");
    let mut b = deploy("b");
    if let (Action::Deploy { replicas: ra, .. }, Action::Deploy { replicas: rb, .. }) =
        (&mut a, &mut b)
    {
        *ra = 200_000;
        *rb = 200_000;
    }
    let e = Session::from_scenario(&doc_of(&[(1, a), (1, b)])).expect_err("refused");
    assert!(
        e.contains("action 2 (tick 1, deploy)") && e.contains("MAX_PODS"),
        "{e}"
    );
}

#[test]
fn a_huge_name_gives_a_short_refusal_and_no_event() {
    let huge = "n".repeat(10 << 20);
    let mut s = Session::new(1, ScorePolicy::BinPack);
    let e = s
        .submit(Action::AddNode {
            name: huge.clone(),
            cpu: 1000,
            memory_bytes: 1024 << 20,
            labels: Default::default(),
            taints: Vec::new(),
        })
        .expect_err("refused");
    assert!(e.len() < 300, "a {}-byte refusal", e.len());
    assert!(e.contains("(10485760 characters)"), "{e}");
    let e = s
        .submit(Action::Scale {
            app: huge,
            replicas: 1,
        })
        .expect_err("refused");
    assert!(e.len() < 300, "a {}-byte refusal", e.len());
    s.run(1);
    assert!(s.simulator().cluster().events().is_empty());
}

#[test]
fn documents_with_too_many_actions_or_ticks_are_refused_by_name() {
    let a = Action::SetPolicy {
        policy: "binpack".into(),
    };
    let actions: Vec<(u64, Action)> = (0..=scenario::MAX_ACTIONS as u64)
        .map(|t| (1 + t / 100, a.clone()))
        .collect();
    let e = Session::from_scenario(&doc_of(&actions)).expect_err("refused");
    assert!(e.contains("MAX_ACTIONS"), "{e}");
    let e = Session::from_scenario(&doc_of(&[(scenario::MAX_TICK + 1, a)])).expect_err("refused");
    assert!(e.contains(&format!("1 to {}", scenario::MAX_TICK)), "{e}");
}

/// A drain of every node held back by a budget costs nothing per quiet tick:
/// the blocked drains wait for a change instead of being retried. The cost
/// is bounded by counting the events a quiet stretch writes (none), not by
/// a clock.
#[test]
fn blocked_drains_of_every_node_write_nothing_while_nothing_changes() {
    let mut s = Session::new(1, ScorePolicy::BinPack);
    s.submit(Action::Generate {
        nodes: 200,
        pods_per_node: 10,
    })
    .unwrap();
    s.run(3);
    let mut sel = BTreeMap::new();
    sel.insert("app".to_string(), "web".to_string());
    s.submit(Action::AddPdb {
        namespace: None,
        name: "web-pdb".into(),
        selector: sel,
        min_available: Some(IntOrString::Str("100%".into())),
        max_unavailable: None,
    })
    .unwrap();
    for i in 1..=200 {
        s.submit(Action::Drain {
            node: format!("node-{i}"),
        })
        .unwrap();
    }
    s.run(10);
    let c = s.simulator().cluster();
    let blocked = c.nodes().filter(|n| n.pod_count > 0).count();
    assert!(blocked > 0, "web pods hold some drains back");
    let before = c.events().writes();
    s.run(200);
    assert_eq!(
        s.simulator().cluster().events().writes(),
        before,
        "a quiet stretch logs nothing"
    );
    // Every pod left on a draining node is a web pod the budget protects.
    for p in s.simulator().cluster().pods().filter(|p| p.node.is_some()) {
        assert_eq!(p.app, "web", "{} should have been evicted", p.name());
    }
}

/// maxSurge at its largest with maxUnavailable 0: the roll completes
/// (replicas + maxSurge once wrapped in release builds and stalled).
#[test]
fn the_largest_max_surge_rolls_to_completion() {
    let mut s = Session::new(1, ScorePolicy::BinPack);
    s.submit(Action::AddNode {
        name: "node-1".into(),
        cpu: 8000,
        memory_bytes: 16384 << 20,
        labels: Default::default(),
        taints: Vec::new(),
    })
    .unwrap();
    let t = TemplateDoc::from_engine(
        &shepherd::PodTemplate::new(shepherd::Resources::new(500, 256 * MIB))
            .with_label("app", "web"),
    );
    s.submit(Action::Deploy {
        namespace: None,
        name: "web".into(),
        replicas: 4,
        template: t.clone(),
        max_surge: IntOrString::Int(u32::MAX),
        max_unavailable: IntOrString::Int(0),
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
    })
    .unwrap();
    s.run(3);
    let mut v2 = t;
    v2.version = "v2".into();
    s.submit(Action::Roll {
        app: "web".into(),
        template: v2,
    })
    .unwrap();
    s.run(6);
    let web = s.simulator().cluster().app("web").unwrap();
    assert_eq!(
        (web.version.as_str(), web.updated, web.ready, web.current),
        ("v2", 4, 4, 4)
    );
}

// ----- the drain under a budget (issue 42, row 7), and work per tick --------

/// The most a tick may write to the event log (every pod created, bound,
/// deleted or evicted writes at least one event, so this bounds those
/// operations too) for each pod and node in the cluster (before or after
/// the tick, whichever has more) and each action that fires in it. A node
/// failure writes about five a pod, a roll about six; the drain that evicted
/// the replacements landing back on its node wrote thousands.
const WORK_PER_OBJECT: u64 = 16;

/// One tick of `s` (what `Session::step` returns), failing when it writes
/// more than [`WORK_PER_OBJECT`] events per pod, node and fired action
/// (plus one).
fn step_within_bound(s: &mut Session) -> Result<Vec<String>, String> {
    let size = |s: &Session| {
        let c = s.simulator().cluster();
        (c.pods().count() as u64, c.node_count() as u64)
    };
    let next = s.tick() + 1;
    let fired = s
        .simulator()
        .pending_script()
        .iter()
        .take_while(|(t, _)| *t <= next)
        .count() as u64;
    let (p0, n0) = size(s);
    let w0 = s.simulator().cluster().events().writes();
    let report = s.step();
    let (p1, n1) = size(s);
    let wrote = s.simulator().cluster().events().writes() - w0;
    let bound = WORK_PER_OBJECT * (p0.max(p1) + n0.max(n1) + fired + 1);
    if wrote > bound {
        return Err(format!(
            "tick {}: {wrote} events written, more than the bound of {bound} ({WORK_PER_OBJECT} for each of {} pods, {} nodes, {fired} actions and one)",
            s.tick(),
            p0.max(p1),
            n0.max(n1)
        ));
    }
    Ok(report)
}

/// The shape of row 7: nodes, a Deployment whose pods tolerate the
/// unschedulable taint (an evicted pod's replacement may land on the
/// drained node again), a budget that holds the drain back, one or two
/// drains, then random actions.
fn drain_under_pdb(rng: &mut Prng) -> Vec<(u64, Action)> {
    let mut out = Vec::new();
    let nodes = rng.range(1, 4);
    for i in 1..=nodes {
        out.push((
            1,
            Action::AddNode {
                name: format!("node-{i}"),
                cpu: rng.range(2000, 8000),
                memory_bytes: rng.range(4096, 16384) * MIB,
                labels: Default::default(),
                taints: Vec::new(),
            },
        ));
    }
    let mut t = TemplateDoc::from_engine(
        &shepherd::PodTemplate::new(shepherd::Resources::new(
            rng.range(100, 1000),
            rng.range(64, 1024) * MIB,
        ))
        .with_label("app", "web")
        .with_ready_after(rng.range(0, 2) as u32)
        .with_toleration(shepherd::Toleration::exists(
            "node.kubernetes.io/unschedulable",
            Some(shepherd::TaintEffect::NoSchedule),
        )),
    );
    t.version = "v1".into();
    out.push((
        1,
        Action::Deploy {
            namespace: None,
            name: "web".into(),
            replicas: rng.range(2, 12) as u32,
            template: t,
            max_surge: IntOrString::Str("25%".into()),
            max_unavailable: IntOrString::Str("25%".into()),
            min_ready_seconds: 0,
            progress_deadline_seconds: 600,
        },
    ));
    let mut sel = BTreeMap::new();
    sel.insert("app".to_string(), "web".to_string());
    let (min, max) = if rng.chance(50) {
        (Some(IntOrString::Int(rng.range(1, 10) as u32)), None)
    } else {
        (None, Some(IntOrString::Int(rng.range(0, 2) as u32)))
    };
    out.push((
        1,
        Action::AddPdb {
            namespace: None,
            name: "web".into(),
            selector: sel,
            min_available: min,
            max_unavailable: max,
        },
    ));
    for _ in 0..rng.range(1, 2) {
        out.push((
            rng.range(2, 5),
            Action::Drain {
                node: format!("node-{}", rng.range(1, nodes)),
            },
        ));
    }
    for _ in 0..rng.range(0, 10) {
        out.push((rng.range(2, 60), action(rng)));
    }
    out.sort_by_key(|(t, _)| *t);
    out
}

/// Drains under a budget, with random actions around them, imported as a
/// link would be and played on for 300 ticks: no tick writes more than
/// [`WORK_PER_OBJECT`] events per pod, node and action (before the drain
/// followed kubectl, the replacements landing back were evicted again and
/// again: 640 evictions a tick). Refused documents are skipped: the point is
/// the cost of the ones that play.
#[test]
fn fuzz_drain_under_pdb_stays_within_the_work_bound() {
    let drained = std::cell::Cell::new(0u64);
    fuzz(
        "fuzz_drain_under_pdb_stays_within_the_work_bound",
        ops() / 2,
        |seed| {
            let mut rng = Prng::new(seed);
            // The link: the actions a session accepted, at their ticks.
            let mut s = Session::new(seed, ScorePolicy::BinPack);
            for (tick, a) in drain_under_pdb(&mut rng) {
                if tick > s.tick() + 1 {
                    s.run(tick - 1 - s.tick());
                }
                let _ = s.submit(a);
            }
            let mut doc = s.scenario();
            // Imported at tick 0, with every action queued: its replay, tick by
            // tick, each tick checked.
            doc.tick = Some(0);
            let mut r =
                Session::from_scenario(&doc).map_err(|e| format!("the link was refused: {e}"))?;
            while r.tick() < 300 {
                step_within_bound(&mut r)?;
            }
            let drains = doc
                .actions
                .iter()
                .filter(|e| matches!(e.action, Action::Drain { .. }))
                .count();
            drained.set(drained.get() + (drains > 0) as u64);
            Ok(())
        },
    );
    assert!(
        drained.get() * 2 >= ops() / 2,
        "only {} of {} links drained a node; the generator no longer makes the shape",
        drained.get(),
        ops() / 2
    );
}
