//! A tick run in slices (`Simulator::step_slice`, the page's way of placing
//! a big cluster without freezing) is exactly the tick run whole
//! (`Simulator::step`): the same state, placement, events, reports and PRNG
//! draws, for any budget, 1 included.
//!
//! Each case builds a random cluster and script (nodes with zones, labels
//! and taints; Deployments with selectors, tolerations, anti-affinity,
//! topology spread and priorities, so preemption happens; DaemonSets, bare
//! Pods, budgets; node failures, drains, scales, rolls and deletions over
//! later ticks) under a random profile, and plays it twice: whole, and in
//! slices with a budget drawn per tick. After every tick the two simulators
//! are compared field by field (their `Debug` text: every book, queue,
//! cache and PRNG state) and their reports must be equal.
//!
//! - `cargo test -p shepherd --test sliced` runs `DEFAULT_CASES` cases;
//! - `SHEPHERD_FUZZ_OPS=2000 cargo test --profile fuzz -p shepherd --test sliced`
//!   runs 2,000;
//! - `SHEPHERD_SLICED_SEED=17 cargo test -p shepherd --test sliced` runs one.
//!
//! A failing case prints its seed and the command that reproduces it.

use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Prng, Simulator, StepReport};
use shepherd::{
    AffinityTerm, Budget, DaemonSetSpec, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec,
    PodTemplate, PriorityClass, Profile, Resources, Selector, Taint, TaintEffect, Toleration,
    TopologySpreadConstraint, WhenUnsatisfiable,
};

const DEFAULT_CASES: u64 = 60;
const ZONE: &str = "topology.kubernetes.io/zone";

fn seeds() -> Vec<u64> {
    if let Ok(v) = std::env::var("SHEPHERD_SLICED_SEED") {
        let seed = v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("SHEPHERD_SLICED_SEED should be a whole number, got {v:?}"));
        return vec![seed];
    }
    let n = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_CASES)
        .max(1);
    (0..n).collect()
}

fn profile(rng: &mut Prng) -> Profile {
    let mut p = match rng.below(3) {
        0 => Profile::kube_scheduler(),
        1 => Profile::bin_pack(),
        _ => Profile::least_loaded(),
    };
    if rng.chance(30) {
        // kube-scheduler's own percentageOfNodesToScore range: sampling and
        // the rotating start node (kept across the slices) come into play.
        p.percentage_of_nodes_to_score = rng.range(5, 100) as u32;
    }
    p
}

fn node(rng: &mut Prng, i: u64) -> NodeSpec {
    let mut n = NodeSpec::new(
        &format!("node-{i}"),
        rng.range(2, 16) * 500,
        (rng.range(2, 32) * 512) * MIB,
    )
    .with_label(ZONE, ["a", "b", "c"][rng.below(3) as usize]);
    if rng.chance(30) {
        n = n.with_label("disktype", "ssd");
    }
    if rng.chance(10) {
        n = n.with_taint(Taint::new("dedicated", "gpu", TaintEffect::NoSchedule));
    }
    if rng.chance(10) {
        n = n.with_max_pods(rng.range(2, 12) as u32);
    }
    n
}

fn template(rng: &mut Prng, name: &str, peers: &[String]) -> PodTemplate {
    let mut t = PodTemplate::new(Resources::new(
        rng.range(1, 20) * 50,
        (rng.range(1, 16) * 64) * MIB,
    ))
    .with_label("app", name)
    .with_ready_after(rng.range(0, 2) as u32);
    if rng.chance(20) {
        t = t.with_node_selector("disktype", "ssd");
    }
    if rng.chance(15) {
        t = t.with_toleration(Toleration::exists("dedicated", None));
    }
    if rng.chance(15) {
        let key = if rng.chance(50) { Some(ZONE) } else { None };
        t = t.with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", name)]), key));
    }
    if rng.chance(10) && !peers.is_empty() {
        let peer = rng.pick(peers).clone();
        t = t.with_preferred_affinity(
            rng.range(1, 100) as i32,
            AffinityTerm::new(Selector::new(&[("app", peer.as_str())]), Some(ZONE)),
        );
    }
    if rng.chance(20) {
        let when = if rng.chance(50) {
            WhenUnsatisfiable::DoNotSchedule
        } else {
            WhenUnsatisfiable::ScheduleAnyway
        };
        t = t.with_topology_spread(TopologySpreadConstraint::new(
            rng.range(1, 3) as u32,
            ZONE,
            when,
            Selector::new(&[("app", name)]),
        ));
    }
    if rng.chance(20) {
        t = t.with_priority_class(["high", "low"][rng.below(2) as usize]);
    }
    t
}

/// A random script: the cluster at tick 1, then changes over later ticks.
fn script(rng: &mut Prng) -> (Vec<(u64, Event)>, u64) {
    let mut s: Vec<(u64, Event)> = Vec::new();
    let nodes = rng.range(1, 40);
    let names: Vec<String> = (1..=nodes).map(|i| format!("node-{i}")).collect();
    s.push((1, Event::AddPriorityClass(PriorityClass::new("high", 1000))));
    s.push((1, Event::AddPriorityClass(PriorityClass::new("low", -10))));
    for i in 1..=nodes {
        s.push((1, Event::AddNode(node(rng, i))));
    }
    let apps = rng.range(1, 30);
    let mut app_names: Vec<String> = Vec::new();
    for i in 0..apps {
        let name = format!("app-{i}");
        let t = template(rng, &name, &app_names);
        let mut d = DeploymentSpec::new(&name, rng.range(0, 40) as u32, t.requests);
        d.template = t;
        s.push((1, Event::Deploy(d)));
        app_names.push(name);
    }
    if rng.chance(40) {
        let t = PodTemplate::new(Resources::new(rng.range(1, 4) * 50, 64 * MIB))
            .with_label("app", "agent")
            .with_toleration(Toleration::exists("dedicated", None));
        s.push((1, Event::CreateDaemonSet(DaemonSetSpec::new("agent", t))));
    }
    if rng.chance(40) {
        let app = rng.pick(&app_names).clone();
        s.push((
            1,
            Event::AddPdb(PdbSpec {
                name: format!("{app}-pdb"),
                selector: Selector::new(&[("app", app.as_str())]),
                budget: Budget::MaxUnavailable(IntOrPercent::Int(1)),
            }),
        ));
    }
    let end = rng.range(3, 12);
    for t in 2..=end {
        for _ in 0..rng.below(4) {
            let e = match rng.below(9) {
                0 => Event::FailNode(rng.pick(&names).clone()),
                1 => Event::RecoverNode(rng.pick(&names).clone()),
                2 => Event::Drain(rng.pick(&names).clone()),
                3 => Event::Uncordon(rng.pick(&names).clone()),
                4 => Event::Scale {
                    app: rng.pick(&app_names).clone(),
                    replicas: rng.range(0, 60) as u32,
                },
                5 => {
                    let app = rng.pick(&app_names).clone();
                    let peers = app_names.clone();
                    Event::Roll {
                        template: template(rng, &app, &peers),
                        app,
                    }
                }
                6 => Event::DeleteApp(rng.pick(&app_names).clone()),
                7 => {
                    let i = nodes + t * 10 + rng.below(10);
                    Event::AddNode(node(rng, i))
                }
                _ => {
                    let name = format!("late-{t}-{}", rng.below(1000));
                    let tmpl = template(rng, &name, &app_names);
                    let mut d = DeploymentSpec::new(&name, rng.range(1, 80) as u32, tmpl.requests);
                    d.template = tmpl.with_priority_class("high");
                    Event::Deploy(d)
                }
            };
            s.push((t, e));
        }
    }
    // Later ticks with nothing scripted: readiness, timers, retries.
    (s, end + rng.range(0, 4))
}

/// Everything a simulator holds, to compare two of them.
fn state(sim: &Simulator) -> String {
    format!("{sim:?}")
}

fn case(seed: u64) -> Result<(), String> {
    let mut rng = Prng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0511_7ced);
    let p = profile(&mut rng);
    let (script, ticks) = script(&mut rng);
    let mut whole = Simulator::with_script(seed, p.clone(), script.clone());
    let mut sliced = Simulator::with_script(seed, p, script);
    for tick in 1..=ticks {
        let budget = match rng.below(4) {
            0 => 1,
            1 => rng.range(1, 8) as u32,
            2 => rng.range(8, 200) as u32,
            _ => u32::MAX,
        };
        let want = whole.step();
        let mut slices = 0u32;
        let got: StepReport = loop {
            slices += 1;
            if slices > 1_000_000 {
                return Err(format!("tick {tick}: the slices never finish"));
            }
            if let Some(r) = sliced.step_slice(budget) {
                break r;
            }
            if !sliced.in_step() {
                return Err(format!(
                    "tick {tick}: a slice left work but no tick under way"
                ));
            }
            let (bound, pending, expected) =
                sliced.step_progress().ok_or("no progress mid-tick")?;
            if expected < bound + pending {
                return Err(format!(
                    "tick {tick}: expected {expected} is less than bound {bound} + pending {pending}"
                ));
            }
            if bound > want.reconcile.total.bound {
                return Err(format!(
                    "tick {tick}: the slices report {bound} binds, more than the whole tick's {}",
                    want.reconcile.total.bound
                ));
            }
        };
        if sliced.in_step() {
            return Err(format!("tick {tick}: finished but still under way"));
        }
        if got != want {
            return Err(format!(
                "tick {tick}, budget {budget}, {slices} slices: reports differ\nwhole: {want:?}\nsliced: {got:?}"
            ));
        }
        if state(&sliced) != state(&whole) {
            let a = state(&whole);
            let b = state(&sliced);
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let from = at.saturating_sub(300);
            return Err(format!(
                "tick {tick}, budget {budget}, {slices} slices: the states differ at byte {at}\nwhole:  ...{}\nsliced: ...{}",
                &a[from..(at + 300).min(a.len())],
                &b[from..(at + 300).min(b.len())]
            ));
        }
    }
    // The PRNGs go on alike.
    if whole.rng().next_u64() != sliced.rng().next_u64() {
        return Err("the simulators' PRNGs differ after the run".into());
    }
    Ok(())
}

#[test]
fn a_tick_in_slices_is_the_tick_run_whole() {
    let mut failed = Vec::new();
    for seed in seeds() {
        let why = match catch_unwind(AssertUnwindSafe(|| case(seed))) {
            Ok(Ok(())) => continue,
            Ok(Err(why)) => why,
            Err(_) => "panicked (see above)".to_string(),
        };
        eprintln!(
            "\n[sliced] FAILED for seed {seed}: {why}\n[sliced] reproduce: SHEPHERD_SLICED_SEED={seed} cargo test -p shepherd --test sliced\n"
        );
        failed.push(seed);
    }
    assert!(failed.is_empty(), "seeds failed: {failed:?}");
}

#[test]
fn a_big_first_tick_takes_many_slices_and_ends_where_the_whole_one_does() {
    // 200 nodes and 20 Deployments of 150 pods: budget 500 needs several slices.
    let mut script = Vec::new();
    for i in 0..200 {
        script.push((
            1,
            Event::AddNode(NodeSpec::new(&format!("node-{i}"), 8000, 16384 * MIB)),
        ));
    }
    for a in 0..20 {
        script.push((
            1,
            Event::Deploy(DeploymentSpec::new(
                &format!("app-{a}"),
                150,
                Resources::new(100, 128 * MIB),
            )),
        ));
    }
    let mut whole = Simulator::with_script(9, Profile::kube_scheduler(), script.clone());
    let mut sliced = Simulator::with_script(9, Profile::kube_scheduler(), script);
    let want = whole.step();
    let mut progress = Vec::new();
    let got = loop {
        if let Some(r) = sliced.step_slice(500) {
            break r;
        }
        progress.push(sliced.step_progress().expect("a tick under way"));
    };
    assert_eq!(want.reconcile.total.bound, 3000);
    assert!(progress.len() >= 5, "slices: {progress:?}");
    // Progress only grows, and every slice stops near its budget: a
    // controller's 150 pods past it at most.
    for w in progress.windows(2) {
        assert!(w[1].0 >= w[0].0, "{progress:?}");
        assert!(w[1].0 - w[0].0 <= 500 + 150, "{progress:?}");
    }
    assert_eq!(progress.last().map(|p| p.0 + p.1), Some(3000));
    // While the events fire, the replicas of the Deployments declared so
    // far; once pods exist, the pods to place.
    assert!(
        progress
            .iter()
            .all(|p| p.2 <= 3000 && (p.0 + p.1 == 0 || p.2 == 3000)),
        "{progress:?}"
    );
    assert!(
        progress.windows(2).all(|w| w[0].2 <= w[1].2),
        "{progress:?}"
    );
    assert_eq!(got, want);
    assert_eq!(state(&sliced), state(&whole));
    // A step() while a tick is under way finishes that tick.
    let mut again = Simulator::with_script(9, Profile::kube_scheduler(), whole.script().to_vec());
    assert!(
        again.step_slice(500).is_none(),
        "the first slice leaves work"
    );
    assert!(again.in_step());
    assert_eq!(again.step(), want);
    assert!(!again.in_step());
    assert_eq!(state(&again), state(&whole));
}

/// A bound pod explained as of its decision (`Simulator::step_deciding`):
/// a copy of the run stepped to the tick before its bind, then that tick
/// watched. Watching changes nothing (the state equals the tick run
/// plainly), the decision names the node the pod is on, and that node was
/// feasible and had the best total among the nodes the cycle scored.
fn decision_case(seed: u64) -> Result<u32, String> {
    let mut rng = Prng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0511_7ced);
    let p = profile(&mut rng);
    let (script, ticks) = script(&mut rng);
    let mut whole = Simulator::with_script(seed, p.clone(), script.clone());
    whole.run(ticks);
    let c = whole.cluster();
    let bound: Vec<(String, u64, String)> = c
        .pods()
        .filter(|v| !v.by_node_name && v.bind_serial > 0 && v.bound_at > 0)
        .filter_map(|v| {
            let node = c.node_by_id(v.node?)?.name().to_string();
            Some((v.name(), v.bound_at, node))
        })
        .collect();
    let mut checked = 0;
    let mut pick = Prng::new(seed ^ 0xdec1_5101);
    for (pod, at, node) in bound.iter().filter(|_| pick.chance(25)).take(4) {
        let mut watched = Simulator::with_script(seed, p.clone(), script.clone());
        watched.run(at - 1);
        let mut plain = watched.clone();
        let (report, decision) = watched.step_deciding(pod);
        if report != plain.step() {
            return Err(format!("{pod}: watching tick {at} changed its report"));
        }
        // The record of the last cycle lists its scored nodes only while
        // watched (`CycleRecord`): everything else must be equal.
        let unrecorded = |sim: &Simulator| {
            let s = state(sim);
            match s.find("last_cycle: CycleRecord {") {
                Some(i) => {
                    let end = i + s[i..].find('}').unwrap_or(0);
                    format!("{}{}", &s[..i], &s[end..])
                }
                None => s,
            }
        };
        let (a, b) = (unrecorded(&plain), unrecorded(&watched));
        if a != b {
            let at_byte = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let from = at_byte.saturating_sub(300);
            return Err(format!(
                "{pod}: watching tick {at} changed the state at byte {at_byte}\nplain:   ...{}\nwatched: ...{}",
                &a[from..(at_byte + 200).min(a.len())],
                &b[from..(at_byte + 200).min(b.len())]
            ));
        }
        let e = decision
            .ok_or_else(|| format!("{pod}: tick {at} bound it, but no decision was seen"))?
            .map_err(|e| format!("{pod}: {e}"))?;
        if e.bound_to.as_deref() != Some(node.as_str()) {
            return Err(format!(
                "{pod}: the decision at tick {at} names {:?}, the pod is on {node}",
                e.bound_to
            ));
        }
        let v = e
            .nodes
            .iter()
            .find(|v| v.node == *node)
            .ok_or_else(|| format!("{pod}: no verdict for {node}"))?;
        if !v.feasible {
            return Err(format!(
                "{pod}: {node} was chosen at tick {at} but its verdict then is {:?} {:?}",
                v.plugin, v.reasons
            ));
        }
        if v.total.is_some() && v.position != Some(1) {
            return Err(format!(
                "{pod}: {node} was chosen at tick {at} at position {:?}: {}",
                v.position, e.summary
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

#[test]
fn a_bound_pod_is_explained_as_of_the_cycle_that_bound_it() {
    let mut failed = Vec::new();
    let mut checked = 0;
    for seed in seeds() {
        let why = match catch_unwind(AssertUnwindSafe(|| decision_case(seed))) {
            Ok(Ok(n)) => {
                checked += n;
                continue;
            }
            Ok(Err(why)) => why,
            Err(_) => "panicked (see above)".to_string(),
        };
        eprintln!(
            "\n[decision] FAILED for seed {seed}: {why}\n[decision] reproduce: SHEPHERD_SLICED_SEED={seed} cargo test -p shepherd --test sliced explained\n"
        );
        failed.push(seed);
    }
    assert!(failed.is_empty(), "seeds failed: {failed:?}");
    assert!(checked > 0, "no bound pod was checked");
}

#[test]
fn the_decision_shows_the_cluster_as_it_was_not_as_it_is() {
    // Two empty nodes tie for web-0 at tick 1; at tick 3 a filler of 3 cpu
    // lands on the node web-0 took. Placed again now, web-0 would go to the
    // other node; the cycle that bound it saw the two equal.
    let mut script = vec![
        (1, Event::AddNode(NodeSpec::new("node-a", 4000, 8192 * MIB))),
        (1, Event::AddNode(NodeSpec::new("node-b", 4000, 8192 * MIB))),
        (
            1,
            Event::Deploy(DeploymentSpec::new(
                "web",
                1,
                Resources::new(500, 512 * MIB),
            )),
        ),
    ];
    let mut sim = Simulator::with_script(3, Profile::kube_scheduler(), script.clone());
    sim.run(2);
    let web = sim.cluster().pod_by_name("web-0").expect("web-0");
    let (at, on) = (web.bound_at, web.node.expect("web-0 is bound"));
    let took = sim
        .cluster()
        .node_by_id(on)
        .expect("its node")
        .name()
        .to_string();
    let other = if took == "node-a" { "node-b" } else { "node-a" };
    let mut filler = DeploymentSpec::new("filler", 1, Resources::new(3000, 512 * MIB));
    filler
        .template
        .node_selector
        .insert("kubernetes.io/hostname".to_string(), took.clone());
    script.push((3, Event::Deploy(filler)));
    let mut sim = Simulator::with_script(3, Profile::kube_scheduler(), script.clone());
    sim.run(4);
    let now = sim
        .cluster()
        .explain("web-0", sim.profile())
        .expect("explain now");
    let rank = |e: &shepherd::Explanation, n: &str| {
        e.nodes
            .iter()
            .find(|v| v.node == n)
            .and_then(|v| v.position)
    };
    assert_eq!(rank(&now, other), Some(1), "{}", now.summary);
    assert_eq!(rank(&now, &took), Some(2), "{}", now.summary);

    let mut replay = Simulator::with_script(3, Profile::kube_scheduler(), script);
    replay.run(at - 1);
    // The pod as the run names it (its generated name is the same on a replay).
    let web0 = sim.cluster().pod_by_name("web-0").unwrap().name();
    let (_, decision) = replay.step_deciding(&web0);
    let then = decision.expect("tick 1 binds web-0").expect("explained");
    assert_eq!(then.bound_to.as_deref(), Some(took.as_str()));
    assert_eq!(rank(&then, &took), Some(1), "{}", then.summary);
    assert_eq!(rank(&then, other), Some(1), "{}", then.summary);
    assert!(
        then.summary.contains("2 nodes shared the best total")
            && then.summary.contains("picked one at random"),
        "{}",
        then.summary
    );
    // Another pod's name, or a tick that binds nothing, gives no decision.
    let mut later = replay.clone();
    assert!(later.step_deciding("web-0").1.is_none());
}

#[test]
fn a_generated_name_is_watched_with_the_nodes_its_cycle_scored() {
    // 300 nodes: percentageOfNodesToScore's adaptive default scores
    // 300 * (50 - 300/125)% = 144 of them
    // (pkg/scheduler/schedule_one.go, numFeasibleNodesToFind). The
    // watched pod is named as Kubernetes names it (`<replicaset>-<5
    // chars>`): the cycle that
    // bound it is the one recorded, so the decision says it scored a sample.
    let mut script: Vec<(u64, Event)> = (0..300)
        .map(|i| {
            (
                1,
                Event::AddNode(NodeSpec::new(&format!("node-{i}"), 4000, 8192 * MIB)),
            )
        })
        .collect();
    script.push((
        1,
        Event::Deploy(DeploymentSpec::new(
            "web",
            3,
            Resources::new(500, 512 * MIB),
        )),
    ));
    let mut sim = Simulator::with_script(3, Profile::kube_scheduler(), script.clone());
    sim.run(2);
    let c = sim.cluster();
    let web2 = c.pod_by_name("web-2").expect("web-2").name();
    assert!(web2.starts_with("web-") && web2 != "web-2", "{web2}");
    let mut replay = Simulator::with_script(3, Profile::kube_scheduler(), script);
    let at = c.pod_by_name(&web2).unwrap().bound_at;
    replay.run(at - 1);
    let (_, decision) = replay.step_deciding(&web2);
    let e = decision.expect("the tick binds it").expect("explained");
    assert!(
        e.summary.starts_with(&format!("{web2} was bound to ")),
        "{}",
        e.summary
    );
    assert!(
        e.summary.contains("it scored 144 of the feasible nodes"),
        "{}",
        e.summary
    );
}
