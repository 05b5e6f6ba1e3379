//! The page's chart feeds, natively: the per-tick series a session records
//! equals, tick for tick, figures computed from scratch (from the pods) over
//! a fresh replay of the session's script, whatever mix of steps, runs,
//! steps back, seeks, discards and actions made it; and `balance()` is the
//! engine's balance. Seeded, `SHEPHERD_FUZZ_OPS` cases (default 200, divided
//! by 4); a failing seed prints itself:
//! `SHEPHERD_CHARTS_SEED=N cargo test -p shepherd-web --test charts`.
#![cfg(not(target_arch = "wasm32"))]

use shepherd::simulator::{Prng, Simulator};
use shepherd::{Cluster, PodPhase, ScorePolicy};
use shepherd_web::charts::{BalanceView, Point};
use shepherd_web::scenario::{self, Action};
use shepherd_web::session::Session;

fn seeds() -> Vec<u64> {
    if let Ok(v) = std::env::var("SHEPHERD_CHARTS_SEED") {
        return vec![v.trim().parse().expect("SHEPHERD_CHARTS_SEED is a number")];
    }
    let ops: u64 = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(200);
    (0..(ops / 4).max(5)).collect()
}

/// A tick's figures from the pods and node specs, not the nodes' books.
fn from_scratch(c: &Cluster) -> Point {
    let ready: Vec<_> = c.nodes().filter(|n| n.ready).map(|n| n.id).collect();
    let (mut cr, mut mr) = (0u64, 0u64);
    for p in c.pods() {
        if let Some(id) = p.node {
            if ready.contains(&id) {
                cr += p.template.requests.cpu_millis;
                mr += p.template.requests.memory_bytes;
            }
        }
    }
    let ca: u64 = c
        .nodes()
        .filter(|n| n.ready)
        .map(|n| n.spec.capacity.cpu_millis)
        .sum();
    let ma: u64 = c
        .nodes()
        .filter(|n| n.ready)
        .map(|n| n.spec.capacity.memory_bytes)
        .sum();
    (
        cr as f64,
        ca as f64,
        mr as f64,
        ma as f64,
        c.pods().filter(|p| p.phase == PodPhase::Pending).count() as u32,
        c.nodes().filter(|n| !n.ready).count() as u32,
    )
}

/// Ready pods per Deployment at tick `t` as recorded, against a count of the
/// Ready pods: every live Deployment has its count, every other slot none.
fn ready_from_scratch(
    series: &shepherd_web::charts::Series,
    c: &Cluster,
    t: u32,
) -> Result<(), String> {
    let r = &series.ready;
    let mut want: std::collections::BTreeMap<String, u32> = c.apps().map(|a| (a.name, 0)).collect();
    for p in c.pods() {
        if p.ready {
            *want.entry(p.app.to_string()).or_insert(0) += 1;
        }
    }
    for (slot, name) in r.names.iter().enumerate() {
        // The slot of the Deployment by this name now: the last one seen by tick t.
        let newest = (0..r.ticks.len())
            .filter(|&i| r.ticks[i] <= t && r.names[r.slots[i] as usize] == *name)
            .map(|i| r.slots[i] as usize)
            .max();
        let live = want.contains_key(name.as_str()) && newest == Some(slot);
        let got = r.at(slot, t);
        let expected = if live {
            want.get(name.as_str()).copied()
        } else {
            None
        };
        if got != expected {
            return Err(format!("tick {t}: Deployment {name} (slot {slot}) recorded {got:?} Ready, from the pods {expected:?}"));
        }
    }
    if let Some(a) = c.apps().find(|a| !r.names.contains(&a.name)) {
        return Err(format!("tick {t}: Deployment {} is not recorded", a.name));
    }
    Ok(())
}

/// Replays the session's script from its seed, tick by tick, to its tick.
fn check(s: &Session, what: &str) -> Result<(), String> {
    let series = s.series();
    let tick = s.tick();
    if series.len() as u64 != tick + 1 {
        return Err(format!(
            "after {what}: {} ticks recorded at tick {tick}",
            series.len()
        ));
    }
    let mut script = Vec::new();
    for e in s.log() {
        for ev in e.action.to_events(s.seed())? {
            script.push((e.tick, ev));
        }
    }
    let profile = scenario::parse_policy(&s.scenario().policy)?;
    let mut sim = Simulator::with_script(s.seed(), profile, script);
    for t in 0..=tick {
        if t > 0 {
            sim.step();
        }
        let want = from_scratch(sim.cluster());
        ready_from_scratch(series, sim.cluster(), t as u32)
            .map_err(|e| format!("after {what}: {e}"))?;
        if series.at(t as usize) != Some(want) {
            return Err(format!(
                "after {what}: tick {t} recorded {:?}, from scratch {want:?}",
                series.at(t as usize)
            ));
        }
    }
    let b = s.balance();
    let engine = BalanceView::new(tick, &s.simulator().cluster().balance());
    if b != engine {
        return Err(format!("balance() {b:?} is not the engine's {engine:?}"));
    }
    let last = series.at(tick as usize).expect("checked above");
    if (b.cpu.requested as f64, b.memory.requested as f64, b.pending) != (last.0, last.2, last.4) {
        return Err(format!(
            "balance {b:?} disagrees with the series' last tick {last:?}"
        ));
    }
    Ok(())
}

fn case(seed: u64) -> Result<(), String> {
    let mut rng = Prng::new(seed);
    let mut s = Session::new(seed, ScorePolicy::BinPack);
    check(&s, "the start")?;
    for op in 0..rng.range(4, 14) {
        let nodes: Vec<String> = s
            .simulator()
            .cluster()
            .nodes()
            .map(|n| n.name().to_string())
            .collect();
        let apps: Vec<String> = s.simulator().cluster().apps().map(|a| a.name).collect();
        let what = match rng.below(11) {
            0 => {
                let _ = s.submit(Action::Generate {
                    nodes: rng.range(1, 5) as u32,
                    pods_per_node: rng.range(1, 12) as u32,
                });
                "generate"
            }
            1 if !nodes.is_empty() => {
                let _ = s.submit(Action::FailNode {
                    node: rng.pick(&nodes).clone(),
                });
                "failNode"
            }
            2 if !nodes.is_empty() => {
                let _ = s.submit(Action::RecoverNode {
                    node: rng.pick(&nodes).clone(),
                });
                "recoverNode"
            }
            3 if !apps.is_empty() => {
                let _ = s.submit(Action::Scale {
                    app: rng.pick(&apps).clone(),
                    replicas: rng.range(0, 30) as u32,
                });
                "scale"
            }
            4 if !nodes.is_empty() => {
                let _ = s.submit(Action::Drain {
                    node: rng.pick(&nodes).clone(),
                });
                "drain"
            }
            5 => {
                let _ = s.step_back();
                "stepBack"
            }
            6 => {
                let t = rng.below(s.tick() + 1);
                s.replay_to(t)?;
                "seek back"
            }
            7 => {
                s.discard_upcoming()?;
                "discardUpcoming"
            }
            8 => {
                s.run(rng.range(1, 8));
                "run"
            }
            9 if !apps.is_empty() && rng.chance(50) => {
                let _ = s.submit(Action::DeleteApp {
                    app: rng.pick(&apps).clone(),
                });
                "deleteApp"
            }
            _ => {
                s.step();
                "step"
            }
        };
        check(&s, &format!("op {op} ({what})"))?;
    }
    Ok(())
}

#[test]
fn the_series_equals_a_from_scratch_replay_tick_for_tick() {
    let mut failed = Vec::new();
    for seed in seeds() {
        let r = std::panic::catch_unwind(|| case(seed)).unwrap_or_else(|_| Err("panicked".into()));
        if let Err(e) = r {
            eprintln!("[charts] seed {seed}: {e}\n[charts] reproduce: SHEPHERD_CHARTS_SEED={seed} cargo test -p shepherd-web --test charts");
            failed.push(seed);
        }
    }
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
}

#[test]
fn a_scenario_records_every_tick_up_to_its_own() {
    // The tour replays to its tick through from_scenario: the series covers it.
    let mut s = Session::tour();
    // node-1 fails at tick 6 and is NotReady from tick 57 (the 50 s grace period).
    s.run(60);
    check(&s, "the tour at tick 60").unwrap();
    let series = s.series();
    assert!(
        series.not_ready.iter().any(|&n| n > 0),
        "the tour fails a node"
    );
    assert!(
        series.cpu_requested.iter().any(|&c| c > 0.0),
        "the tour places pods"
    );
}

/// Not a test of speed (nothing is asserted on time): prints what recording
/// one tick's chart figures costs at 5,000 nodes and 150,000 pods, for the
/// README. `cargo test --release -p shepherd-web --test charts -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_recording_a_tick_at_5000_nodes() {
    let mut s = Session::new(7, ScorePolicy::BinPack);
    s.submit(Action::Generate {
        nodes: 5000,
        pods_per_node: 30,
    })
    .expect("5,000 nodes of 30 pods are within the limits");
    s.run(3);
    let c = s.simulator().cluster();
    let deployments = c.apps().count();
    let mut series = shepherd_web::charts::Series::default();
    let n = 200;
    let t = std::time::Instant::now();
    for _ in 0..n {
        series.record(s.simulator());
    }
    let all = t.elapsed() / n;
    let mut ready = shepherd_web::charts::ReadySeries::default();
    let t = std::time::Instant::now();
    for i in 0..n {
        ready.record(i, c);
    }
    let per_deployment = t.elapsed() / n;
    println!(
        "5,000 nodes, {} pods, {deployments} Deployments: a tick's chart figures {all:?}, of which Ready per Deployment {per_deployment:?}",
        c.pods().count()
    );
}
