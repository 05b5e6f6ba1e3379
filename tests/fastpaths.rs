//! Every fast path chooses what the plain cycle chooses.
//!
//! Each randomized cluster is built and reconciled under
//! [`FastPaths::NONE`] (kube-scheduler's cycle alone: every filter and
//! every score plugin on every node it visits), under each fast path
//! switched on alone, and under all of them; the placements after every
//! wave, the pods left pending and the event logs must be identical.
//!
//! `SHEPHERD_FUZZ_OPS` sets the number of clusters (default 12);
//! `SHEPHERD_FASTPATHS_SEED=n` runs one. A failure prints its seed and the
//! command that reproduces it. Some clusters have 260 to 300 nodes, enough
//! for the sample index (it needs 256).

// `*rng.pick(..)` picks the type `pick` returns (without it, `str`).
#![allow(clippy::explicit_auto_deref)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::model::{TopologySpreadConstraint, WhenUnsatisfiable, HOSTNAME_KEY};
use shepherd::quantity::MIB;
use shepherd::simulator::Prng;
use shepherd::{
    AffinityTerm, Cluster, DaemonSetSpec, DeploymentSpec, FastPaths, NodeSpec, PodTemplate,
    PriorityClass, Profile, Resources, Selector, Taint, TaintEffect, TieBreak, Toleration,
};

mod common;

use common::{random_profile, ZONE};

const DEFAULT_CASES: u64 = 12;

/// A node; with `uniform`, one of two shapes (many equal scores, so the
/// tie-break decides), labelled with its hostname most of the time.
fn random_node(rng: &mut Prng, i: usize, uniform: bool) -> NodeSpec {
    let name = format!("n{i}");
    let mut n = if uniform {
        let big = rng.chance(30) as u64;
        NodeSpec::new(&name, 4000 << big, (8192 << big) * MIB)
    } else {
        NodeSpec::new(&name, rng.range(2, 16) * 500, rng.range(2, 32) * 512 * MIB)
    };
    if uniform && rng.chance(90) {
        n = n.with_label(HOSTNAME_KEY, &name);
    }
    if !rng.chance(10) {
        n = n.with_label(ZONE, *rng.pick(&["z1", "z2", "z3"]));
    }
    n = n.with_label("disk", *rng.pick(&["ssd", "hdd"]));
    if rng.chance(10) {
        n = n.with_taint(Taint::new("dedicated", "x", TaintEffect::NoSchedule));
    }
    if rng.chance(8) {
        n = n.with_taint(Taint::new("soft", "y", TaintEffect::PreferNoSchedule));
    }
    if rng.chance(10) {
        n = n.with_max_pods(rng.range(2, 8) as u32);
    }
    n
}

fn random_template(rng: &mut Prng, name: &str, others: usize) -> PodTemplate {
    let cpu = if rng.chance(10) {
        0
    } else {
        rng.range(1, 10) * 100
    };
    let mem = if rng.chance(10) {
        0
    } else {
        rng.range(1, 12) * 128
    };
    let mut t = PodTemplate::new(Resources::new(cpu, mem * MIB))
        .with_label("app", name)
        .with_label("tier", *rng.pick(&["a", "b"]));
    if rng.chance(10) {
        t = t.with_priority_class(*rng.pick(&["high", "low"]));
    }
    if rng.chance(15) {
        t = t.with_node_selector("disk", "ssd");
    }
    t = t.with_node_affinity(common::random_node_affinity(rng, 12));
    if rng.chance(30) {
        t = t.with_toleration(Toleration::exists("dedicated", None));
    }
    if rng.chance(20) {
        t = t.with_toleration(Toleration::exists(
            "soft",
            Some(TaintEffect::PreferNoSchedule),
        ));
    }
    let own = Selector::new(&[("app", name)]);
    if rng.chance(35) {
        let key = *rng.pick(&[HOSTNAME_KEY, ZONE]);
        let when = *rng.pick(&[
            WhenUnsatisfiable::DoNotSchedule,
            WhenUnsatisfiable::ScheduleAnyway,
        ]);
        t = t.with_topology_spread(TopologySpreadConstraint::new(
            rng.range(1, 3) as u32,
            key,
            when,
            own.clone(),
        ));
    }
    if others > 0 && rng.chance(8) {
        let target = format!("app{}", rng.below(others as u64));
        t = t.with_affinity(AffinityTerm::new(
            Selector::new(&[("app", &target)]),
            Some(ZONE),
        ));
    }
    if rng.chance(12) {
        let key = if rng.chance(70) { HOSTNAME_KEY } else { ZONE };
        t = t.with_anti_affinity(AffinityTerm::new(own, Some(key)));
    }
    if rng.chance(15) {
        let sel = Selector::new(&[("tier", *rng.pick(&["a", "b"]))]);
        let key = *rng.pick(&[HOSTNAME_KEY, ZONE]);
        let w = rng.range(1, 100) as i32;
        t = if rng.chance(50) {
            t.with_preferred_affinity(w, AffinityTerm::new(sel, Some(key)))
        } else {
            t.with_preferred_anti_affinity(w, AffinityTerm::new(sel, Some(key)))
        };
    }
    t
}

/// Scalar resources in a third of the clusters (issue 45), from a stream
/// of their own: GPUs and ephemeral storage on some nodes, requested by
/// some apps, and a profile that may score them. Pods that request none
/// still take the fast paths, and must score there as the plain cycle does.
fn scalar_node(rng: &mut Prng, on: bool, mut n: NodeSpec) -> NodeSpec {
    if on && rng.chance(40) {
        n = n.with_scalar("nvidia.com/gpu", *rng.pick(&[1, 2, 4, 8]));
    }
    if on && rng.chance(50) {
        n = n.with_scalar("ephemeral-storage", rng.range(20, 100) << 30);
    }
    n
}

fn scalar_template(rng: &mut Prng, on: bool, mut t: PodTemplate) -> PodTemplate {
    if on && rng.chance(30) {
        t = t.with_scalar("nvidia.com/gpu", rng.range(1, 3));
    }
    if on && rng.chance(20) {
        t = t.with_scalar("ephemeral-storage", rng.range(1, 12) << 30);
    }
    t
}

fn scalar_profile(rng: &mut Prng, on: bool, mut p: Profile) -> Profile {
    use shepherd::Resource;
    if !on {
        return p;
    }
    if rng.chance(50) {
        p.fit.resources.push((
            Resource::Scalar("nvidia.com/gpu".to_string()),
            rng.range(1, 6) as i64,
        ));
    }
    if rng.chance(20) {
        p.fit
            .resources
            .push((Resource::Scalar("ephemeral-storage".to_string()), 1));
    }
    if rng.chance(50) {
        p.balanced_resources
            .push(Resource::Scalar("nvidia.com/gpu".to_string()));
    }
    p
}

/// What a run leaves: per wave, every pod's name and node; then the event log.
type Trace = (Vec<Vec<(String, String)>>, Vec<String>);

/// Builds the cluster of `seed` under `fast` and reconciles it wave by
/// wave; with `lowest`, the profile breaks ties by lowest node id.
fn run(seed: u64, fast: FastPaths, lowest: bool) -> Trace {
    let mut rng = Prng::new(seed ^ 0xfa57_9a75);
    let mut sc = Prng::new(seed ^ 0x5ca1_a125);
    let scalars = sc.chance(33);
    let mut profile = scalar_profile(&mut sc, scalars, random_profile(&mut rng));
    if lowest {
        profile.tie_break = TieBreak::LowestNodeId;
    }
    let uniform = rng.chance(50);
    let nodes = match rng.below(8) {
        0 | 1 => rng.range(260, 300),
        2 | 3 => rng.range(60, 130),
        _ => rng.range(2, 14),
    } as usize;
    let mut c = Cluster::new();
    c.set_fast_paths(fast);
    c.set_scheduler_seed(seed);
    for name in ["high", "low"] {
        let value = if name == "high" { 1000 } else { 10 };
        c.add_priority_class(PriorityClass::new(name, value))
            .expect("a new class");
    }
    for i in 0..nodes {
        c.add_node(scalar_node(
            &mut sc,
            scalars,
            random_node(&mut rng, i, uniform),
        ))
        .expect("a new node");
    }
    let apps = rng.range(3, 10) as usize;
    let mut made = 0usize;
    let mut waves = Vec::new();
    for wave in 0..3 {
        for _ in 0..apps {
            let name = format!("app{made}");
            let replicas = match nodes {
                0..=20 => rng.range(1, 10),
                _ => rng.range(1, (nodes as u64) / 2),
            } as u32;
            let mut d = DeploymentSpec::new(&name, replicas, Resources::new(0, 0));
            d.template = scalar_template(&mut sc, scalars, random_template(&mut rng, &name, made));
            c.deploy(d).expect("a valid Deployment");
            made += 1;
        }
        if rng.chance(40) {
            let name = format!("ds{wave}");
            let mut t = PodTemplate::new(Resources::new(rng.range(0, 3) * 100, 64 * MIB))
                .with_label("app", &name);
            if rng.chance(50) {
                t = t.with_toleration(Toleration::exists("dedicated", None));
            }
            c.create_daemonset(DaemonSetSpec::new(&name, t))
                .expect("a valid DaemonSet");
        }
        if wave > 0 && rng.chance(40) {
            let n = format!("n{}", rng.below(nodes as u64));
            c.cordon(&n).ok();
        }
        if wave > 0 && nodes > 3 && rng.chance(25) {
            c.remove_node(&format!("n{}", rng.below(nodes as u64))).ok();
        }
        if wave > 0 && rng.chance(30) {
            let i = nodes + wave;
            c.add_node(scalar_node(
                &mut sc,
                scalars,
                random_node(&mut rng, i, uniform),
            ))
            .expect("a new node");
        }
        if wave > 0 && rng.chance(50) {
            let name = format!("app{}", rng.below(made as u64));
            c.scale(&name, rng.range(0, 30) as u32).ok();
        }
        c.reconcile_to_fixed_point(&profile);
        waves.push(
            c.pods()
                .map(|p| (p.name(), format!("{:?}", p.node)))
                .collect(),
        );
    }
    let events = c.rendered_events().iter().map(|e| e.to_string()).collect();
    (waves, events)
}

/// The plain cycle's trace against each path alone and all together.
///
/// Under random ties the class cycle (and the index, which runs inside it)
/// draws among the tied nodes in (class, visiting order), where the plain
/// cycle draws in visiting order, as kube-scheduler's selectHost does: the
/// same nodes tie and each is as likely, but one seed's draw can land on
/// another of them. Those paths are compared under lowest-id ties.
fn check(seed: u64) -> Result<(), String> {
    let plain_random = run(seed, FastPaths::NONE, false);
    let plain_lowest = run(seed, FastPaths::NONE, true);
    let mut configs: Vec<(String, FastPaths)> = FastPaths::NAMES
        .iter()
        .map(|&n| (n.to_string(), FastPaths::only(n).expect("a listed path")))
        .collect();
    // The index runs inside the class cycle.
    let mut index = FastPaths::only("index").expect("a listed path");
    index.classes = true;
    configs.push(("classes+index".to_string(), index));
    configs.push(("all".to_string(), FastPaths::ALL));
    let mut no_classes = FastPaths::ALL;
    no_classes.classes = false;
    configs.push(("all but classes".to_string(), no_classes));
    for (name, fast) in configs {
        let lowest = fast.classes;
        let plain = if lowest { &plain_lowest } else { &plain_random };
        let got = run(seed, fast, lowest);
        for (w, (a, b)) in plain.0.iter().zip(&got.0).enumerate() {
            if let Some((x, y)) = a.iter().zip(b).find(|(x, y)| x != y) {
                return Err(format!(
                    "fast path {name}, wave {w}: the plain cycle placed {x:?}, the path {y:?}"
                ));
            }
            if a.len() != b.len() {
                return Err(format!("fast path {name}, wave {w}: pod counts differ"));
            }
        }
        if let Some((x, y)) = plain.1.iter().zip(&got.1).find(|(x, y)| x != y) {
            return Err(format!(
                "fast path {name}: events differ:\n  plain: {x}\n  path:  {y}"
            ));
        }
        if plain.1.len() != got.1.len() {
            return Err(format!("fast path {name}: event counts differ"));
        }
    }
    Ok(())
}

#[test]
fn every_fast_path_binds_as_the_plain_cycle() {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_FASTPATHS_SEED") {
        Ok(s) => vec![s.parse().expect("SHEPHERD_FASTPATHS_SEED is a number")],
        Err(_) => {
            let n = std::env::var("SHEPHERD_FUZZ_OPS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(DEFAULT_CASES);
            (1..=n).collect()
        }
    };
    eprintln!("fastpaths: seeds {:?}..={:?}", seeds.first(), seeds.last());
    for seed in seeds {
        let r = catch_unwind(AssertUnwindSafe(|| check(seed)))
            .unwrap_or_else(|p| Err(format!("panicked: {p:?}")));
        if let Err(e) = r {
            panic!(
                "seed {seed}: {e}\n  reproduce: SHEPHERD_FASTPATHS_SEED={seed} cargo test -p shepherd --test fastpaths"
            );
        }
    }
}

/// Switching a path off and on by name.
#[test]
fn paths_switch_by_name() {
    let mut f = FastPaths::NONE;
    for name in FastPaths::NAMES {
        *f.switch(name).expect("a listed path") = true;
    }
    assert_eq!(f, FastPaths::ALL);
    assert_eq!(FastPaths::default(), FastPaths::ALL);
    assert!(FastPaths::only("no-such-path").is_none());
}
