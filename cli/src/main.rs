//! `shepherd`: the engine from a terminal.
//!
//! ```text
//! shepherd demo                      a scripted tour, tick by tick
//! shepherd converge [--seed N] [--nodes N] [--apps N] [--profile default-scheduler|binpack|leastloaded] [--roll]
//! shepherd bench [--nodes N] [--pods N] [--apps N] [--converge-only]
//! shepherd simulate FILE|DIR|- [--output json] [--profile NAME] [--namespace NS]
//! shepherd explain FILE|DIR|- --pod NAMESPACE/NAME [--output json] [--profile NAME]
//! shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N] [--scheduler-config]
//! ```

mod manifests;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{
    AffinityTerm, Cluster, DeploymentSpec, IntOrPercent, NodeSpec, Profile, Resources, ScorePolicy,
    Selector, Taint, TaintEffect,
};

/// Counts live and peak heap bytes, so `bench` can report memory per pod.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const USAGE: &str = "usage:
  shepherd demo
      a scripted tour: nodes join, apps are bin-packed, scale, a node dies and
      heals, a rolling update, a drain held back by a PodDisruptionBudget
  shepherd converge [--seed N] [--nodes N] [--apps N] [--profile default-scheduler|binpack|leastloaded] [--roll]
      a random workload reconciled to a fixed point (defaults: seed 7, 6 nodes, 4 apps, binpack);
      --roll then rolls every app to a new version, tick by tick
  shepherd bench [--nodes N] [--pods N] [--apps N] [--converge-only]
      speed and memory at Kubernetes' envelope (defaults: 5000 nodes, 150000 pods, 500 apps)
  shepherd simulate FILE|DIR|- [--output json] [--profile default-scheduler|binpack|leastloaded] [--namespace NS]
      Kubernetes manifests (YAML, JSON, kind: List) converged under the input's
      KubeSchedulerConfiguration (else kube-scheduler's default profile, or --profile): per-node requests, the pods as
      kubectl get pods -o wide prints them, Pending pods with their reasons, the warnings
  shepherd explain FILE|DIR|- --pod NAMESPACE/NAME [--output json] [--profile NAME] [--namespace NS]
      for one pod after converging: every node's filter verdict (plugin and reason) and,
      for feasible nodes, each score plugin's raw, normalized, weight and weighted score,
      the total and the position, and the plugin that decided
  shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N] [--scheduler-config]
      the input's scenario, or a random workload from the seed, as manifests kubectl apply takes;
      --scheduler-config prints the input's profile as a KubeSchedulerConfiguration instead";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(|s| s.as_str()) {
        Some("demo") => demo(&args[1..]),
        Some("converge") => converge(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("simulate") => manifests::simulate(&args[1..]),
        Some("export") => manifests::export_cmd(&args[1..]),
        Some("explain") => manifests::explain(&args[1..]),
        Some("help") | Some("--help") | Some("-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown command {other:?}; expected demo, converge, bench, simulate, explain or export"
        )),
        None => Err("no command given; expected demo, converge, bench, simulate, explain or export".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shepherd: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// `--name value` options, each allowed once, all known in advance.
struct Opts {
    pairs: Vec<(String, String)>,
    flags: Vec<String>,
}

impl Opts {
    fn parse(args: &[String], valued: &[&str], flags: &[&str]) -> Result<Opts, String> {
        let mut o = Opts {
            pairs: Vec::new(),
            flags: Vec::new(),
        };
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            if flags.contains(&a) {
                o.flags.push(a.to_string());
                i += 1;
            } else if valued.contains(&a) {
                let v = args
                    .get(i + 1)
                    .ok_or_else(|| format!("{a} needs a value"))?;
                o.pairs.push((a.to_string(), v.clone()));
                i += 2;
            } else {
                return Err(format!(
                    "unknown option {a:?}; expected one of {}",
                    valued
                        .iter()
                        .chain(flags)
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        Ok(o)
    }

    fn num(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, String> {
        match self.pairs.iter().find(|(k, _)| k == name) {
            None => Ok(default),
            Some((_, v)) => match v.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "{name} {v:?} is not valid; expected a whole number from {min} to {max}"
                )),
            },
        }
    }

    /// `--profile NAME` (or its older spelling `--policy`): a named
    /// scheduler profile, kube-scheduler's own by default.
    fn profile(&self) -> Result<Profile, String> {
        match self
            .pairs
            .iter()
            .find(|(k, _)| k == "--profile" || k == "--policy")
        {
            None => Ok(Profile::kube_scheduler()),
            Some((_, v)) => Profile::named(v).map_err(|e| e.to_string()),
        }
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

// ----- drawing -------------------------------------------------------------

fn bar(used: u64, cap: u64) -> String {
    const W: u64 = 12;
    let filled = if cap == 0 {
        0
    } else {
        (used * W).div_ceil(cap).min(W)
    };
    format!(
        "[{}{}]",
        "#".repeat(filled as usize),
        ".".repeat((W - filled) as usize)
    )
}

fn print_nodes(c: &Cluster) {
    for n in c.nodes() {
        let cap = n.spec.capacity;
        let state = match (n.ready, n.cordoned, n.draining) {
            (false, _, _) => " NotReady",
            (true, _, true) => " Draining",
            (true, true, _) => " Cordoned",
            _ => "",
        };
        let pods: Vec<String> = c.pods_on(n.id).map(|p| p.name()).collect::<Vec<_>>();
        let mut pods = pods;
        pods.sort();
        println!(
            "  {:<8} cpu {} {:>6} {:<7} mem {} {:>7} {:<8} {:>3} pods{}{}",
            n.name(),
            bar(n.allocated.cpu_millis, cap.cpu_millis),
            format!("{}/", n.allocated.cpu_millis),
            format!("{}m", cap.cpu_millis),
            bar(n.allocated.memory_mib, cap.memory_mib),
            format!("{}/", n.allocated.memory_mib),
            format!("{}Mi", cap.memory_mib),
            n.pod_count,
            state,
            if pods.is_empty() || pods.len() > 12 {
                String::new()
            } else {
                format!(": {}", pods.join(" "))
            }
        );
    }
}

fn print_apps(c: &Cluster) {
    println!(
        "  {:<10} {:>7} {:>7} {:>7} {:>7} {:>9} {:>7}  revision",
        "app", "desired", "current", "ready", "updated", "available", "pending"
    );
    for a in c.apps() {
        println!(
            "  {:<10} {:>7} {:>7} {:>7} {:>7} {:>9} {:>7}  {} ({}){}",
            a.name,
            a.desired,
            a.current,
            a.ready,
            a.updated,
            a.available,
            a.pending,
            a.revision,
            a.version,
            if a.rolling { "  rolling" } else { "" }
        );
    }
}

fn print_events_since(c: &Cluster, from: usize) -> usize {
    let ev = c.events();
    for e in &ev[from..] {
        println!("    {}", c.render_event(e));
    }
    ev.len()
}

// ----- demo ----------------------------------------------------------------

fn demo(args: &[String]) -> Result<(), String> {
    Opts::parse(args, &[], &[])?;
    let script = shepherd::simulator::tour();
    let last = 36;

    let mut sim = Simulator::with_script(1, ScorePolicy::BinPack, script);
    println!(
        "Shepherd demo: BinPack policy, heartbeat timeout {} ticks, seed {}\n",
        sim.cluster().heartbeat_timeout(),
        sim.seed()
    );
    let mut seen = 0;
    let show_at = [2, 4, 10, 14, 18, 24, 30, 36];
    for _ in 0..last {
        let fired: Vec<String> = sim
            .pending_script()
            .iter()
            .filter(|(t, _)| *t == sim.tick() + 1)
            .map(|(_, e)| e.describe())
            .collect();
        let r = sim.step();
        let t = r.tick;
        let c = sim.cluster();
        if fired.is_empty() && c.events().len() == seen && !show_at.contains(&t) {
            continue;
        }
        println!(
            "== tick {t} {}",
            if fired.is_empty() {
                String::new()
            } else {
                format!("({})", fired.join("; "))
            }
        );
        seen = print_events_since(c, seen);
        if show_at.contains(&t) {
            print_nodes(c);
            print_apps(c);
        }
        println!();
    }
    let c = sim.cluster();
    shepherd::verify::verify_capacity(c)?;
    shepherd::verify::verify_constraints(c)?;
    println!("Checked from scratch at the end: no node overcommitted, every binding within its constraints.");
    Ok(())
}

// ----- converge ------------------------------------------------------------

fn converge(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(
        args,
        &["--seed", "--nodes", "--apps", "--policy", "--profile"],
        &["--roll"],
    )?;
    let seed = o.num("--seed", 7, 0, u64::MAX)?;
    let nodes = o.num("--nodes", 6, 1, 5000)? as u32;
    let apps = o.num("--apps", 4, 0, 10_000)? as u32;
    let profile = o.profile()?;
    let mut sim = Simulator::new(seed, profile.clone());
    let w = generate(sim.rng(), &WorkloadConfig::small(nodes, apps));
    {
        let c = sim.cluster_mut();
        for n in w.nodes {
            c.add_node(n).map_err(|e| e.to_string())?;
        }
        for a in w.apps {
            c.deploy(a).map_err(|e| e.to_string())?;
        }
    }
    let t0 = Instant::now();
    let fp = sim.cluster_mut().reconcile_to_fixed_point(&profile);
    let took = t0.elapsed();
    // Let the readiness delay pass so the table shows Ready pods.
    let delay = sim
        .cluster()
        .apps()
        .filter_map(|a| sim.cluster().template(&a.name).ok().map(|t| t.ready_after))
        .max()
        .unwrap_or(0);
    sim.run(delay as u64);
    let c = sim.cluster();
    println!(
        "seed {seed}, {nodes} nodes, {apps} apps, scheduler profile {}",
        profile.scheduler_name
    );
    println!(
        "{} after {} passes in {:.2?}: {} pods bound, {} pending\n",
        if fp.converged {
            "fixed point reached"
        } else {
            "pass budget exhausted"
        },
        fp.passes,
        took,
        c.bound_count(),
        c.pending_count()
    );
    println!("nodes:");
    print_nodes(c);
    println!("\napps:");
    print_apps(c);
    let pending: Vec<_> = c.apps().filter(|a| a.pending > 0).collect();
    if !pending.is_empty() {
        println!("\npending:");
        for a in pending {
            println!(
                "  {} x{}: {}",
                a.name,
                a.pending,
                a.pending_reason
                    .clone()
                    .unwrap_or_else(|| "not yet tried".into())
            );
        }
    }
    shepherd::verify::verify_capacity(c)?;
    shepherd::verify::verify_constraints(c)?;
    shepherd::verify::verify_settled(c)?;
    println!("\nverified from scratch: capacity, constraints, and every pending pod genuinely unschedulable");
    if o.flag("--roll") {
        roll_all(&mut sim)?;
    }
    Ok(())
}

fn roll_all(sim: &mut Simulator) -> Result<(), String> {
    let apps: Vec<String> = sim.cluster().apps().map(|a| a.name).collect();
    let mut rng = Prng::new(sim.seed() ^ 0x5eed);
    for a in &apps {
        let t = sim
            .cluster()
            .template(a)
            .map_err(|e| e.to_string())?
            .clone()
            .with_version("v2");
        let surge = *rng.pick(&[
            IntOrPercent::Percent(25),
            IntOrPercent::Int(1),
            IntOrPercent::Int(0),
        ]);
        let unavailable = if surge == IntOrPercent::Int(0) {
            IntOrPercent::Int(1)
        } else {
            *rng.pick(&[IntOrPercent::Percent(25), IntOrPercent::Int(0)])
        };
        sim.submit(Event::SetStrategy {
            app: a.clone(),
            strategy: shepherd::RollingUpdate {
                max_surge: surge,
                max_unavailable: unavailable,
            },
        })
        .map_err(|e| e.to_string())?;
        sim.submit(Event::Roll {
            app: a.clone(),
            template: t,
        })
        .map_err(|e| e.to_string())?;
    }
    println!("\nrolling every app to v2 (a line per tick that changed something):");
    let mut last = String::new();
    for _ in 0..200 {
        sim.step();
        let c = sim.cluster();
        let line: Vec<String> = c
            .apps()
            .map(|a| {
                format!(
                    "{} {}/{} updated {} ready",
                    a.name, a.updated, a.desired, a.ready
                )
            })
            .collect();
        let line = line.join(" | ");
        if line != last {
            println!("  t={:<3} {}", sim.tick(), line);
            last = line;
        }
        if c.apps().all(|a| !a.rolling) {
            println!("every roll complete at tick {}", sim.tick());
            return Ok(());
        }
    }
    println!("after 200 ticks these rolls wait for capacity without breaking their bounds:");
    for a in sim.cluster().apps().filter(|a| a.rolling) {
        println!(
            "  {}: maxSurge {} maxUnavailable {}; {} new pods pending: {}",
            a.name,
            a.max_surge,
            a.max_unavailable,
            a.pending,
            a.pending_reason.clone().unwrap_or_default()
        );
    }
    Ok(())
}

// ----- bench ---------------------------------------------------------------

fn envelope_workload(
    seed: u64,
    nodes: u32,
    pods: u32,
    apps: u32,
    constrained: bool,
) -> (Vec<NodeSpec>, Vec<DeploymentSpec>) {
    let mut rng = Prng::new(seed);
    let zones = shepherd::workload::ZONES;
    let mut ns = Vec::with_capacity(nodes as usize);
    for i in 0..nodes {
        let mut n = NodeSpec::new(&format!("node-{}", i + 1), 16000, 65536)
            .with_label("topology.kubernetes.io/zone", zones[i as usize % 3]);
        if i % 2 == 0 {
            n = n.with_label("disktype", "ssd");
        }
        if constrained && i % 10 == 9 {
            n = n.with_taint(Taint::new("dedicated", "batch", TaintEffect::NoSchedule));
        }
        ns.push(n);
    }
    let per_app = pods / apps.max(1);
    let mut ds = Vec::with_capacity(apps as usize);
    for i in 0..apps {
        let replicas = if i == apps - 1 {
            pods - per_app * (apps - 1)
        } else {
            per_app
        };
        let name = format!("app-{}", i + 1);
        let mut d = DeploymentSpec::new(
            &name,
            replicas,
            Resources::new(rng.range(1, 4) * 100, rng.range(1, 4) * 256),
        );
        if constrained {
            match i % 4 {
                0 => d.template = d.template.with_node_selector("disktype", "ssd"),
                1 => {
                    d.template = d.template.with_toleration(shepherd::Toleration::equal(
                        "dedicated",
                        "batch",
                        Some(TaintEffect::NoSchedule),
                    ))
                }
                2 if replicas <= nodes => {
                    d.template = d.template.with_anti_affinity(AffinityTerm::new(
                        Selector::new(&[("app", &name)]),
                        None,
                    ))
                }
                _ => {}
            }
        }
        ds.push(d);
    }
    (ns, ds)
}

fn mib(b: usize) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn bench(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &["--nodes", "--pods", "--apps"], &["--converge-only"])?;
    let nodes = o.num("--nodes", 5000, 1, 100_000)? as u32;
    let pods = o.num("--pods", 150_000, 1, 1_000_000)? as u32;
    let apps = o.num("--apps", 500, 1, 100_000)? as u32;
    println!("shepherd bench: {nodes} nodes, {pods} pods in {apps} Deployments (release build, one thread)\n");
    println!(
        "{:<44} {:>10} {:>12} {:>8} {:>8}",
        "scenario", "time", "pods/s", "passes", "pending"
    );
    for constrained in [false, true] {
        for profile in [
            Profile::kube_scheduler(),
            Profile::bin_pack(),
            Profile::least_loaded(),
        ] {
            if constrained && o.flag("--converge-only") {
                continue;
            }
            let (ns, ds) = envelope_workload(42, nodes, pods, apps, constrained);
            let mut c = Cluster::new();
            for n in ns {
                c.add_node(n).map_err(|e| e.to_string())?;
            }
            for d in ds {
                c.deploy(d).map_err(|e| e.to_string())?;
            }
            let t0 = Instant::now();
            let fp = c.reconcile_to_fixed_point(&profile);
            let dt = t0.elapsed();
            let label = format!(
                "converge from empty, {}, {}",
                profile.scheduler_name,
                if constrained { "constraints" } else { "plain" }
            );
            println!(
                "{:<44} {:>10.1?} {:>12.0} {:>8} {:>8}",
                label,
                dt,
                c.bound_count() as f64 / dt.as_secs_f64(),
                fp.passes,
                c.pending_count()
            );
        }
    }

    if o.flag("--converge-only") {
        return Ok(());
    }
    // A live simulator at the envelope: a quiet tick, then a node failure.
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let (ns, ds) = envelope_workload(42, nodes, pods, apps, false);
    let mut sim = Simulator::new(42, ScorePolicy::BinPack);
    for n in ns {
        sim.cluster_mut().add_node(n).map_err(|e| e.to_string())?;
    }
    for d in ds {
        sim.cluster_mut().deploy(d).map_err(|e| e.to_string())?;
    }
    sim.step();
    sim.step();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let live = LIVE.load(Ordering::Relaxed) - base;
    let bound = sim.cluster().bound_count();

    const QUIET: u32 = 1000;
    let t0 = Instant::now();
    for _ in 0..QUIET {
        sim.step();
    }
    let quiet = t0.elapsed() / QUIET;

    let victim = sim
        .cluster()
        .nodes()
        .find(|n| n.pod_count > 0)
        .map(|n| (n.name().to_string(), n.pod_count))
        .ok_or("no node has pods")?;
    sim.submit(Event::FailNode(victim.0.clone()))
        .map_err(|e| e.to_string())?;
    let timeout = sim.cluster().heartbeat_timeout();
    for _ in 0..=timeout {
        sim.step();
    }
    let t0 = Instant::now();
    let r = sim.step();
    let heal = t0.elapsed();
    let healed = sim.cluster().fully_satisfied()
        && !sim
            .cluster()
            .node(&victim.0)
            .map(|n| n.ready)
            .unwrap_or(true);

    println!(
        "\n{:<44} {:>10.1?}",
        format!("quiet tick (mean of {QUIET})"),
        quiet
    );
    println!(
        "{:<44} {:>10.1?}   ({} pods lost and re-placed, {} binds, healed: {})",
        format!("tick that declares {} NotReady and heals", victim.0),
        heal,
        victim.1,
        r.reconcile.total.bound,
        healed
    );
    println!(
        "{:<44} {:>10.1} MiB  ({:.0} bytes per pod, events included)",
        "peak heap, build and converge",
        mib(peak),
        peak as f64 / bound.max(1) as f64
    );
    println!(
        "{:<44} {:>10.1} MiB  ({} events in the log)",
        "live heap after converging",
        mib(live),
        sim.cluster().events().len()
    );
    Ok(())
}
