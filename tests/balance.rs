//! The cluster's balance (`Cluster::balance`, fed by the engine's books)
//! checked against a from-scratch computation over the pods themselves,
//! through the public views only, on randomized clusters: nodes of mixed
//! sizes and pod limits, Deployments that do not all fit, node failures,
//! recoveries, cordons, removals, scales and rolls.
//!
//! Cases: `SHEPHERD_FUZZ_OPS` (default 200) seeds; a failing seed prints
//! itself and `SHEPHERD_BALANCE_SEED=N cargo test -p shepherd --test balance`.

use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::{
    Balance, Cluster, DeploymentSpec, NodeSpec, PodPhase, Profile, ResourceBalance, Resources,
};

// ===== the from-scratch computation ==========================================

struct NodeFacts {
    ready: bool,
    cordoned: bool,
    capacity: Resources,
    max_pods: u64,
    requested: Resources,
    pods: u64,
}

/// Every live node with what its pods request, summed from the pods.
fn facts(c: &Cluster) -> Vec<NodeFacts> {
    let mut out: Vec<(shepherd::NodeId, NodeFacts)> = c
        .nodes()
        .map(|n| {
            (
                n.id,
                NodeFacts {
                    ready: n.ready,
                    cordoned: n.cordoned,
                    capacity: n.spec.capacity,
                    max_pods: n.spec.max_pods as u64,
                    requested: Resources::ZERO,
                    pods: 0,
                },
            )
        })
        .collect();
    for p in c.pods() {
        if let Some(id) = p.node {
            let f = &mut out
                .iter_mut()
                .find(|(i, _)| *i == id)
                .expect("a bound pod's node is registered")
                .1;
            f.requested = f.requested.saturating_add(&p.template.requests);
            f.pods += 1;
        }
    }
    out.into_iter().map(|(_, f)| f).collect()
}

fn expected_resource(pairs: &[(u64, u64)]) -> ResourceBalance {
    let counted: Vec<(u64, u64)> = pairs.iter().copied().filter(|&(_, a)| a > 0).collect();
    let us: Vec<f64> = counted.iter().map(|&(r, a)| r as f64 / a as f64).collect();
    let n = us.len();
    let mut histogram = [0u32; 10];
    for &(r, a) in &counted {
        // floor(10 r / a) by exact rational comparison: the largest i with i*a <= 10*r.
        let i = (0..10u128)
            .rev()
            .find(|&i| i * a as u128 <= 10 * r as u128)
            .unwrap_or(0);
        histogram[i as usize] += 1;
    }
    let mean = if n == 0 {
        0.0
    } else {
        us.iter().sum::<f64>() / n as f64
    };
    let std_dev = if n == 0 {
        0.0
    } else {
        (us.iter().map(|u| (u - mean) * (u - mean)).sum::<f64>() / n as f64).sqrt()
    };
    let (min, max) = if n == 0 {
        (0.0, 0.0)
    } else {
        (
            us.iter().copied().fold(f64::INFINITY, f64::min),
            us.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    ResourceBalance {
        nodes: n as u32,
        requested: counted.iter().map(|p| p.0).sum(),
        allocatable: counted.iter().map(|p| p.1).sum(),
        histogram,
        min,
        max,
        mean,
        std_dev,
        in_use: counted.iter().filter(|p| p.0 > 0).count() as u32,
        empty: counted.iter().filter(|p| p.0 == 0).count() as u32,
    }
}

/// How many copies of `req` fit in free space `(cpu, mem, pods)`.
fn copies(free: (u128, u128, u128), req: Resources) -> u128 {
    let by_cpu = if req.cpu_millis == 0 {
        u128::MAX
    } else {
        free.0 / req.cpu_millis as u128
    };
    let by_mem = if req.memory_bytes == 0 {
        u128::MAX
    } else {
        free.1 / req.memory_bytes as u128
    };
    by_cpu.min(by_mem).min(free.2)
}

/// The balance, computed from the pods and the node specs alone.
fn from_scratch(c: &Cluster) -> Balance {
    let nodes = facts(c);
    let ready: Vec<&NodeFacts> = nodes.iter().filter(|n| n.ready).collect();
    let cpu = expected_resource(
        &ready
            .iter()
            .map(|n| (n.requested.cpu_millis, n.capacity.cpu_millis))
            .collect::<Vec<_>>(),
    );
    let memory = expected_resource(
        &ready
            .iter()
            .map(|n| (n.requested.memory_bytes, n.capacity.memory_bytes))
            .collect::<Vec<_>>(),
    );
    let pods = expected_resource(
        &ready
            .iter()
            .map(|n| (n.pods, n.max_pods))
            .collect::<Vec<_>>(),
    );

    // The largest Pending pod: the greatest max(cpu/TC, mem/TM), then cpu,
    // then memory; the first such pod in Deployment creation order.
    let tc = cpu.allocatable.max(1) as f64;
    let tm = memory.allocatable.max(1) as f64;
    let pending: Vec<_> = c.pods().filter(|p| p.phase == PodPhase::Pending).collect();
    let mut largest: Option<(&str, Resources)> = None;
    for p in &pending {
        assert!(p.node.is_none(), "a Pending pod is not bound");
        let r = p.template.requests;
        let key = |r: Resources| {
            // Exact: compare the shares as rationals through u128 cross products.
            let a = r.cpu_millis as u128 * tm as u128;
            let b = r.memory_bytes as u128 * tc as u128;
            (a.max(b), r.cpu_millis, r.memory_bytes)
        };
        if largest.map(|(_, b)| key(r) > key(b)).unwrap_or(true) {
            largest = Some((p.app, r));
        }
    }
    let fragmentation = largest.map(|(app, req)| {
        let sched: Vec<&&NodeFacts> = ready.iter().filter(|n| !n.cordoned).collect();
        let free = |n: &NodeFacts| {
            (
                (n.capacity.cpu_millis - n.requested.cpu_millis) as u128,
                (n.capacity.memory_bytes - n.requested.memory_bytes) as u128,
                n.max_pods.saturating_sub(n.pods) as u128,
            )
        };
        let on_nodes: u128 = sched.iter().map(|n| copies(free(n), req)).sum();
        let pool = sched.iter().fold((0, 0, 0), |s, n| {
            let f = free(n);
            (s.0 + f.0, s.1 + f.1, s.2 + f.2)
        });
        shepherd::Fragmentation {
            app: app.to_string(),
            requests: req,
            fit_on_nodes: on_nodes as u64,
            fit_pooled: copies(pool, req) as u64,
        }
    });
    Balance {
        cpu,
        memory,
        pods,
        ready_nodes: ready.len() as u32,
        not_ready_nodes: (nodes.len() - ready.len()) as u32,
        nodes_with_pods: ready.iter().filter(|n| n.pods > 0).count() as u32,
        pending: pending.len() as u32,
        fragmentation,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

fn compare(got: &Balance, want: &Balance) -> Result<(), String> {
    for (name, g, w) in [
        ("cpu", &got.cpu, &want.cpu),
        ("memory", &got.memory, &want.memory),
        ("pods", &got.pods, &want.pods),
    ] {
        let same = g.nodes == w.nodes
            && g.requested == w.requested
            && g.allocatable == w.allocatable
            && g.histogram == w.histogram
            && g.in_use == w.in_use
            && g.empty == w.empty
            && close(g.min, w.min)
            && close(g.max, w.max)
            && close(g.mean, w.mean)
            && close(g.std_dev, w.std_dev);
        if !same {
            return Err(format!("{name}: engine {g:?}\n  from scratch {w:?}"));
        }
        if g.histogram.iter().sum::<u32>() != g.nodes || g.in_use + g.empty != g.nodes {
            return Err(format!(
                "{name}: buckets or in-use/empty do not add up: {g:?}"
            ));
        }
    }
    if (
        got.ready_nodes,
        got.not_ready_nodes,
        got.nodes_with_pods,
        got.pending,
    ) != (
        want.ready_nodes,
        want.not_ready_nodes,
        want.nodes_with_pods,
        want.pending,
    ) {
        return Err(format!(
            "counts: engine {:?} from scratch {:?}",
            (
                got.ready_nodes,
                got.not_ready_nodes,
                got.nodes_with_pods,
                got.pending
            ),
            (
                want.ready_nodes,
                want.not_ready_nodes,
                want.nodes_with_pods,
                want.pending
            )
        ));
    }
    if got.fragmentation != want.fragmentation {
        return Err(format!(
            "fragmentation: engine {:?}\n  from scratch {:?}",
            got.fragmentation, want.fragmentation
        ));
    }
    if let Some(f) = &got.fragmentation {
        if f.fit_pooled < f.fit_on_nodes {
            return Err(format!("pooled below on-nodes: {f:?}"));
        }
    }
    Ok(())
}

// ===== randomized clusters ===================================================

fn seeds() -> Vec<u64> {
    if let Ok(v) = std::env::var("SHEPHERD_BALANCE_SEED") {
        return vec![v.trim().parse().unwrap_or_else(|_| {
            panic!("SHEPHERD_BALANCE_SEED should be a whole number, got {v:?}")
        })];
    }
    let ops = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(200);
    (0..ops.max(1)).collect()
}

fn random_node(rng: &mut Prng, i: u64) -> NodeSpec {
    let cpu = *rng.pick(&[500, 1000, 2000, 3500, 4000, 8000]);
    let mem = *rng.pick(&[512, 1024, 3000, 4096, 8192]);
    let mut n = NodeSpec::new(&format!("node-{i}"), cpu, mem * MIB);
    // A small pod limit sometimes, so pod slots run out before cpu or memory.
    if rng.chance(30) {
        n = n.with_max_pods(rng.range(1, 6) as u32);
    }
    n
}

fn random_requests(rng: &mut Prng) -> Resources {
    // At least one of the two is non-zero (the engine refuses a pod without requests).
    let cpu = *rng.pick(&[0, 100, 250, 300, 700, 1000, 1500]);
    let mem = if cpu == 0 {
        *rng.pick(&[64, 256, 1000, 2048])
    } else {
        *rng.pick(&[0, 64, 256, 1000, 2048])
    };
    Resources::new(cpu, mem * MIB)
}

/// Runs one seed; returns how many checks saw Pending pods and stranded space.
fn run_case(seed: u64) -> Result<(u32, u32), String> {
    let mut rng = Prng::new(seed);
    let profile = rng
        .pick(&["default-scheduler", "binpack", "leastloaded"])
        .to_string();
    let mut sim = Simulator::new(seed, Profile::named(&profile).map_err(|e| e.to_string())?);
    let mut nodes = 0u64;
    let mut apps = 0u64;
    for _ in 0..rng.range(0, 8) {
        nodes += 1;
        sim.cluster_mut()
            .add_node(random_node(&mut rng, nodes))
            .map_err(|e| e.to_string())?;
    }
    let mut seen = (0u32, 0u32);
    let mut check = |sim: &Simulator, when: &str| {
        let b = sim.cluster().balance();
        if let Some(f) = &b.fragmentation {
            seen.0 += 1;
            seen.1 += (f.stranded() > 0) as u32;
        }
        compare(&b, &from_scratch(sim.cluster()))
            .map_err(|e| format!("{when} (tick {}): {e}", sim.tick()))
    };
    check(&sim, "before any pod")?;
    for step in 0..rng.range(1, 12) {
        let names: Vec<String> = sim
            .cluster()
            .nodes()
            .map(|n| n.name().to_string())
            .collect();
        let app_names: Vec<String> = sim.cluster().apps().map(|a| a.name).collect();
        let ev = match rng.below(10) {
            0..=2 => {
                apps += 1;
                Some(Event::Deploy(DeploymentSpec::new(
                    &format!("app{apps}"),
                    rng.range(0, 12) as u32,
                    random_requests(&mut rng),
                )))
            }
            3 => {
                nodes += 1;
                Some(Event::AddNode(random_node(&mut rng, nodes)))
            }
            4 if !names.is_empty() => Some(Event::FailNode(rng.pick(&names).clone())),
            5 if !names.is_empty() => Some(Event::RecoverNode(rng.pick(&names).clone())),
            6 if !names.is_empty() => Some(Event::Cordon(rng.pick(&names).clone())),
            7 if !names.is_empty() => Some(Event::RemoveNode(rng.pick(&names).clone())),
            8 if !app_names.is_empty() => Some(Event::Scale {
                app: rng.pick(&app_names).clone(),
                replicas: rng.range(0, 15) as u32,
            }),
            9 if !app_names.is_empty() => {
                let app = rng.pick(&app_names).clone();
                let t = sim
                    .cluster()
                    .template(&app)
                    .map_err(|e| e.to_string())?
                    .clone()
                    .with_version(&format!("v{step}"));
                let mut t = t;
                t.requests = random_requests(&mut rng);
                Some(Event::Roll { app, template: t })
            }
            _ => None,
        };
        if let Some(ev) = ev {
            // A refused event (e.g. cordoning a node twice) changes nothing.
            let _ = sim.submit(ev);
        }
        for _ in 0..rng.range(1, 5) {
            sim.step();
            check(&sim, &format!("after step {step}"))?;
        }
    }
    Ok(seen)
}

#[test]
fn balance_equals_a_from_scratch_computation_over_the_pods() {
    let mut failed = Vec::new();
    let seeds = seeds();
    let (mut pending, mut stranded) = (0, 0);
    for &seed in &seeds {
        let r = std::panic::catch_unwind(|| run_case(seed))
            .unwrap_or_else(|_| Err("panicked".to_string()));
        if let Ok((p, s)) = r {
            pending += p;
            stranded += s;
        }
        if let Err(e) = r {
            eprintln!(
                "[balance] seed {seed}: {e}\n[balance] reproduce: SHEPHERD_BALANCE_SEED={seed} cargo test -p shepherd --test balance"
            );
            failed.push(seed);
        }
    }
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
    eprintln!(
        "[balance] {} seeds: {pending} checks with Pending pods, {stranded} with stranded space",
        seeds.len()
    );
    if seeds.len() >= 50 {
        assert!(
            pending > 0 && stranded > 0,
            "the sweep should reach Pending pods and stranded space ({pending}, {stranded})"
        );
    }
}

// ===== a cluster worked out by hand ==========================================

#[test]
fn figures_of_a_small_cluster_worked_out_by_hand() {
    // Placement pinned by nodeSelectors, so the figures do not depend on scoring.
    let mut c = Cluster::new();
    for (name, cpu, mem) in [("a", 4000, 8192), ("b", 4000, 8192), ("c", 2000, 4096)] {
        c.add_node(NodeSpec::new(name, cpu, mem * MIB).with_label("pin", name))
            .unwrap();
    }
    for (app, n, node) in [("web-a", 4, "a"), ("web-b", 2, "b")] {
        let mut d = DeploymentSpec::new(app, n, Resources::new(1000, 1024 * MIB));
        d.template = d.template.with_node_selector("pin", node);
        c.deploy(d).unwrap();
    }
    // 3 cores each: none fits anywhere (free: a 0, b 2, c 2 cores) but the
    // pooled 4 free cores hold one.
    c.deploy(DeploymentSpec::new(
        "big",
        2,
        Resources::new(3000, 512 * MIB),
    ))
    .unwrap();
    c.reconcile_to_fixed_point(Profile::bin_pack());
    let b = c.balance();
    let by_node: Vec<(String, u32)> = c
        .nodes()
        .map(|n| (n.name().to_string(), n.pod_count))
        .collect();
    assert_eq!(by_node, [("a".into(), 4), ("b".into(), 2), ("c".into(), 0)]);
    // cpu: 100%, 50%, 0%.
    assert_eq!(b.cpu.histogram, [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    assert_eq!((b.cpu.min, b.cpu.max), (0.0, 1.0));
    assert_eq!(b.cpu.mean, 0.5);
    // Deviations 0.5, 0, 0.5: variance 1/6.
    assert!((b.cpu.std_dev - (1.0f64 / 6.0).sqrt()).abs() < 1e-15);
    assert_eq!((b.cpu.in_use, b.cpu.empty), (2, 1));
    assert_eq!((b.cpu.requested, b.cpu.allocatable), (6000, 10000));
    assert!((b.cpu.overall() - 0.6).abs() < 1e-15);
    // memory: 4096/8192, 2048/8192, 0.
    assert_eq!(b.memory.histogram, [1, 0, 1, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(b.pending, 2);
    assert_eq!(b.nodes_with_pods, 2);
    let f = b.fragmentation.expect("two pods are Pending");
    assert_eq!(f.app, "big");
    assert_eq!((f.fit_on_nodes, f.fit_pooled, f.stranded()), (0, 1, 1));
}
