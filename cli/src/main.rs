//! `shepherd`: the engine from a terminal.
//!
//! ```text
//! shepherd demo                      a scripted tour, tick by tick
//! shepherd converge [--seed N] [--nodes N] [--apps N] [--profile default-scheduler|binpack|leastloaded] [--roll]
//! shepherd bench [--nodes N] [--pods N] [--apps N] [--mix even|zipf] [--converge-only]
//! shepherd simulate FILE|DIR|- [--output json] [--profile NAME] [--namespace NS] [--then FILE]
//! shepherd explain FILE|DIR|- --pod NAMESPACE/NAME [--output json] [--profile NAME] [--then FILE] [--now]
//! shepherd kubectl FILE|DIR [--profile NAME] [--namespace NS] -- get pods -o wide [-- COMMAND ...]
//! shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N] [--scheduler-config | --kwok | --kubectl-script]
//! shepherd whatif FILE|DIR|- [--drain NODE]... [--fail-zone ZONE]... [--fail-node NODE]... [--scale NS/NAME=N]... [--apply FILE]... [--cordon NODE]... [--delete-node NODE]... [--output json]
//! shepherd compare [FILE|DIR|-] [--profiles P,P...] [--seeds N,N...] [--seed N --nodes N --apps N | --namespace NS] [--output json]
//! ```

mod autoscale;
mod manifests;
mod rollout;
mod whatif;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use shepherd::quantity::format_memory_bytes;
use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{Cluster, IntOrPercent, Profile, ScorePolicy};

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
    /// Forwarded, so a growing vector is grown where the system allocator
    /// can (a large block is remapped, not copied); the default would
    /// allocate, copy and free, which cost the bench a tenth of its time.
    /// The peak counts the new size only: an in-place growth never holds
    /// both blocks.
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new_size) };
        if !q.is_null() {
            if new_size >= l.size() {
                let grew = new_size - l.size();
                let now = LIVE.fetch_add(grew, Ordering::Relaxed) + grew;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new_size, Ordering::Relaxed);
            }
        }
        q
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
  shepherd bench [--nodes N] [--pods N] [--apps N] [--mix even|zipf] [--converge-only]
      speed and memory at Kubernetes' envelope (defaults: 5000 nodes, 150000 pods, 500 apps)
  shepherd simulate FILE|DIR|- [--output json] [--profile default-scheduler|binpack|leastloaded] [--namespace NS] [--then FILE]
      Kubernetes manifests (YAML, JSON, kind: List) converged under the input's
      KubeSchedulerConfiguration (else kube-scheduler's default profile, or --profile): per-node requests, the pods as
      kubectl get pods -o wide prints them, Pending pods with their reasons, the warnings;
      --then FILE applies a second file to the converged cluster and converges again;
      every namespace is imported unless --namespace NS (-n NS) takes that one alone
  shepherd autoscale FILE|DIR|- [--expander LIST] [--output json] [--fewest-nodes G] [--fit APP] [--compress] [--karpenter]
      Cluster Autoscaler over the input's node groups, to a fixed point (docs/autoscaling.md)
  shepherd kubectl FILE|DIR|- [--profile NAME] [--namespace NS] -- COMMAND [-- COMMAND ...]
      kubectl's words over the converged cluster (docs/kubectl.md): get, describe,
      top nodes, scale, cordon, uncordon, drain, taint, label, delete, rollout,
      set image, create deployment, apply -f - (standard input); each change is
      applied a tick after the last and converged before the next command
  shepherd explain FILE|DIR|- --pod NAMESPACE/NAME [--output json] [--profile NAME] [--namespace NS] [--then FILE] [--now]
      for one pod after converging: every node's filter verdict (plugin and reason) and,
      for feasible nodes, each score plugin's raw, normalized, weight and weighted score,
      the total and the position, and the plugin that decided (a bare NAME is in the
      namespace default, or in --namespace); for a pod that preempted,
      the candidate nodes with their victims and the figures that chose one;
      a bound pod as of the scheduling cycle that bound it (--now: as if it
      were scheduled now)
  shepherd rollout status FILE|DIR|- --deployment NAME [--at TICK] [--timeout TICKS] [--profile NAME] [--namespace NS]
      the lines kubectl rollout status prints as the manifests roll out, one tick a second:
      each new line until \"successfully rolled out\" (exit 0) or \"exceeded its progress deadline\"
      (exit 1); --at TICK prints the one line at that tick; --namespace NS (-n NS) is the
      Deployment's namespace (default: default)
  shepherd whatif FILE|DIR|- [--drain NODE]... [--fail-zone ZONE]... [--fail-node NODE]... [--scale NS/NAME=N]...
                  [--apply FILE]... [--cordon NODE]... [--delete-node NODE]... [--namespace NS] [--output json] [--profile NAME]
      the actions in order, then Kubernetes' timing until settled, as a diff (docs/whatif.md);
      --namespace NS (-n NS) reports the pods and Deployments of NS alone, the actions act on the whole cluster
  shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N] [--scheduler-config | --kwok | --kubectl-script]
      the input's scenario, or a random workload from the seed, as manifests kubectl apply takes;
      --scheduler-config prints the input's profile as a KubeSchedulerConfiguration instead
  shepherd compare [FILE|DIR|-] [--profiles P,P...] [--seeds N,N...] [--seed N --nodes N --apps N | --namespace NS] [--output json]
      one random workload (from --seed; defaults: seed 7, 6 nodes, 4 apps) converged under each
      profile (default: default-scheduler,binpack,leastloaded) and scheduler seed: a row per run
      (nodes used, Pending, cpu and memory utilisation min/max/std, stranded space), then the pods
      that landed differently from the first run and the Pending pods one run has and the other not";

/// The usage after an argument mistake: each command's line of [`USAGE`]
/// without what it does (`shepherd help` prints all of it), so the mistake
/// stays in view.
fn synopsis() -> String {
    let mut out = String::from("usage:\n");
    for line in USAGE.lines().skip(1) {
        // A command's line, or the continuation of its options.
        if line.starts_with("  shepherd ") || line.trim_start().starts_with('[') {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("`shepherd help` says what each command does; docs/cli.md has the details");
    out
}

/// Why a command stopped: the arguments were wrong (usage, exit 2), or the
/// run itself failed, e.g. a from-scratch verification (exit 1).
enum Failure {
    Usage(String),
    Run(String),
}

/// Argument errors are the `?` default; a failed run says so explicitly.
impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::Usage(s)
    }
}

fn run_failed(e: impl ToString) -> Failure {
    Failure::Run(e.to_string())
}

/// A reader that stops early (`shepherd converge | head`) ends the process
/// quietly, as it does `cat` or `ls`: Rust's runtime ignores SIGPIPE, so
/// without this the next print to the closed pipe would panic.
#[cfg(unix)]
fn end_quietly_on_a_closed_pipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    // SIGPIPE is 13 and SIG_DFL 0 on Linux and the BSDs, macOS included.
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restores the default action for one signal before any other
    // thread exists; nothing here runs in a signal handler.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    end_quietly_on_a_closed_pipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(|s| s.as_str()) {
        Some("demo") => demo(&args[1..]),
        Some("converge") => converge(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("compare") => compare(&args[1..]),
        Some("simulate") => manifests::simulate(&args[1..]).map_err(Failure::from),
        Some("autoscale") => autoscale::autoscale(&args[1..]).map_err(Failure::from),
        Some("export") => manifests::export_cmd(&args[1..]).map_err(Failure::from),
        Some("explain") => manifests::explain(&args[1..]).map_err(Failure::from),
        Some("rollout") => rollout::rollout(&args[1..]).map_err(Failure::from),
        Some("kubectl") => manifests::kubectl(&args[1..]).map_err(Failure::from),
        Some("whatif") => whatif::whatif(&args[1..]),
        Some("help") | Some("--help") | Some("-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Failure::Usage(format!(
            "unknown command {}; expected demo, converge, bench, simulate, autoscale, explain, rollout, kubectl, whatif, export or compare",
            shepherd::limits::quoted(other)
        ))),
        None => Err(Failure::Usage(
            "no command given; expected demo, converge, bench, simulate, autoscale, explain, rollout, kubectl, whatif, export or compare"
                .to_string(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            eprintln!("shepherd: {e}\n\n{}", synopsis());
            ExitCode::from(2)
        }
        Err(Failure::Run(e)) => {
            eprintln!("shepherd: {e}");
            ExitCode::from(1)
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
            let seen = o.flags.iter().any(|f| f == a) || o.pairs.iter().any(|(k, _)| k == a);
            if seen {
                return Err(format!(
                    "{a} is given twice; expected each option at most once"
                ));
            }
            if flags.contains(&a) {
                o.flags.push(a.to_string());
                i += 1;
            } else if valued.contains(&a) {
                let v = args
                    .get(i + 1)
                    .ok_or_else(|| format!("{a} needs a value"))?;
                o.pairs.push((a.to_string(), v.clone()));
                i += 2;
            } else if valued.is_empty() && flags.is_empty() {
                return Err(format!(
                    "unexpected argument {}; this command takes no options",
                    shepherd::limits::quoted(a)
                ));
            } else {
                return Err(format!(
                    "unknown option {}; expected one of {}",
                    shepherd::limits::quoted(a),
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
                    "{name} {} is not valid; expected a whole number from {min} to {max}",
                    shepherd::limits::quoted(v)
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

/// The cluster's utilisation as bars (`Cluster::balance`): per resource the
/// overall share and the spread over the Ready nodes, then how many nodes
/// fall in each tenth of utilisation.
fn print_utilisation(c: &Cluster) {
    let b = c.balance();
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    println!(
        "utilisation of the {} ({} with pods):",
        match b.ready_nodes {
            1 => "1 Ready node".to_string(),
            n => format!("{n} Ready nodes"),
        },
        b.nodes_with_pods
    );
    for (name, r) in [("cpu", &b.cpu), ("memory", &b.memory), ("pods", &b.pods)] {
        println!(
            "  {name:<7} {} {:>4} overall; least {}, mean {}, most {}, std dev {}",
            bar(r.requested, r.allocatable),
            pct(r.overall()),
            pct(r.min),
            pct(r.mean),
            pct(r.max),
            pct(r.std_dev)
        );
    }
    let most = b
        .cpu
        .histogram
        .iter()
        .chain(&b.memory.histogram)
        .copied()
        .max()
        .unwrap_or(0) as u64;
    println!("  nodes by utilisation   cpu                    memory");
    for i in 0..10 {
        let (nc, nm) = (b.cpu.histogram[i], b.memory.histogram[i]);
        println!(
            "  {:>7}              {} {:>5}     {} {:>5}",
            format!("{}-{}%", i * 10, i * 10 + 10),
            bar(nc as u64, most),
            nc,
            bar(nm as u64, most),
            nm
        );
    }
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
            "  {:<8} cpu {} {:>6} {:<7} mem {} {:>7} {:<8} {:>3} {:<4}{}{}",
            n.name(),
            bar(n.allocated.cpu_millis, cap.cpu_millis),
            format!("{}/", n.allocated.cpu_millis),
            format!("{}m", cap.cpu_millis),
            bar(n.allocated.memory_bytes, cap.memory_bytes),
            format!("{}/", format_memory_bytes(n.allocated.memory_bytes)),
            format_memory_bytes(cap.memory_bytes),
            n.pod_count,
            if n.pod_count == 1 { "pod" } else { "pods" },
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

/// Prints what a reader at `from` has not seen: the events whose count
/// moved (the event correlator counted a repeat into them), then the new
/// ones; returns the cursor after them.
fn print_events_since(
    c: &Cluster,
    from: shepherd::events::EventCursor,
) -> shepherd::events::EventCursor {
    let ev = c.events();
    for (_, e) in ev.since(from) {
        println!("    {}", c.render_event(&e));
    }
    ev.cursor()
}

// ----- demo ----------------------------------------------------------------

fn demo(args: &[String]) -> Result<(), Failure> {
    Opts::parse(args, &[], &[])?;
    let script = shepherd::simulator::tour();
    // One tick is one second: node-1 fails at 6, is NotReady at 57 (the 50 s
    // grace period), its pods go at 357 (300 s); zone-a fails at 390, its
    // pods go at 741 and it is back at 745; quiet ticks print nothing.
    let last = 748;

    let mut sim = Simulator::with_script(1, ScorePolicy::BinPack, script);
    println!(
        "Shepherd demo: BinPack policy, heartbeat timeout {} ticks, seed {}\n",
        sim.cluster().heartbeat_timeout(),
        sim.seed()
    );
    let mut seen = shepherd::events::EventCursor::default();
    let show_at = [2, 4, 57, 357, 362, 366, 372, 378, 384, 441, 741, 748];
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
        if fired.is_empty() && c.events().cursor() == seen && !show_at.contains(&t) {
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
    verified(shepherd::verify::verify_capacity(c))?;
    verified(shepherd::verify::verify_constraints(c))?;
    println!("Checked from scratch at the end: no node overcommitted, every binding within its constraints.");
    Ok(())
}

// ----- converge ------------------------------------------------------------

/// A from-scratch verification's failure: the run failed, not the arguments.
fn verified(r: Result<(), String>) -> Result<(), Failure> {
    r.map_err(|e| Failure::Run(format!("verification failed: {e}")))
}

fn converge(args: &[String]) -> Result<(), Failure> {
    let o = Opts::parse(
        args,
        &["--seed", "--nodes", "--apps", "--policy", "--profile"],
        &["--roll"],
    )?;
    let seed = o.num("--seed", 7, 0, u64::MAX)?;
    let nodes = o.num("--nodes", 6, 1, 5000)? as u32;
    let apps = o.num("--apps", 4, 0, MAX_BENCH_APPS)? as u32;
    let profile = o.profile()?;
    let mut sim = Simulator::new(seed, profile.clone());
    let w = generate(sim.rng(), &WorkloadConfig::small(nodes, apps));
    {
        let c = sim.cluster_mut();
        for n in w.nodes {
            c.add_node(n).map_err(run_failed)?;
        }
        for a in w.apps {
            c.deploy(a).map_err(run_failed)?;
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
        "{} after {} {} in {:.2?}: {} bound, {} pending\n",
        if fp.converged {
            "fixed point reached"
        } else {
            "pass budget exhausted"
        },
        fp.passes,
        if fp.passes == 1 { "pass" } else { "passes" },
        took,
        match c.bound_count() {
            1 => "1 pod".to_string(),
            n => format!("{n} pods"),
        },
        c.pending_count()
    );
    println!("nodes:");
    print_nodes(c);
    println!();
    print_utilisation(c);
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
    verified(shepherd::verify::verify_capacity(c))?;
    verified(shepherd::verify::verify_constraints(c))?;
    verified(shepherd::verify::verify_settled(c))?;
    println!("\nverified from scratch: capacity, constraints, and every pending pod genuinely unschedulable");
    if o.flag("--roll") {
        roll_all(&mut sim).map_err(Failure::Run)?;
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

/// The most Deployments `bench` and `converge` build: thousands of small
/// Deployments, as real clusters hold.
const MAX_BENCH_APPS: u64 = 10_000;

fn mib(b: usize) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn bench(args: &[String]) -> Result<(), Failure> {
    let o = Opts::parse(
        args,
        &["--nodes", "--pods", "--apps", "--mix", "--profile"],
        &["--converge-only"],
    )?;
    // One profile only (for profilers): its canonical name.
    let only = match o.pairs.iter().find(|(k, _)| k == "--profile") {
        Some((_, v)) => Some(
            Profile::named(v)
                .map_err(|e| Failure::Usage(format!("--profile: {e}")))?
                .scheduler_name,
        ),
        None => None,
    };
    let zipf = match o
        .pairs
        .iter()
        .find(|(k, _)| k == "--mix")
        .map(|(_, v)| v.as_str())
    {
        None | Some("even") => false,
        Some("zipf") => true,
        Some(other) => {
            return Err(Failure::Usage(format!(
                "--mix {}: expected even or zipf",
                shepherd::limits::quoted(other)
            )))
        }
    };
    // The engine's own limits: twice Kubernetes' supported envelope.
    let nodes = o.num("--nodes", 5000, 1, shepherd::limits::MAX_NODES as u64)? as u32;
    let pods = o.num("--pods", 150_000, 1, shepherd::limits::MAX_PODS)? as u32;
    let apps = o.num("--apps", if zipf { 10_000 } else { 500 }, 1, MAX_BENCH_APPS)? as u32;
    println!("shepherd bench: {nodes} nodes, {pods} pods in {apps} Deployments{} (release build, one thread)\n",
        if zipf { " of Zipf-distributed sizes (1 to 200), a quarter with node affinity or spread" } else { "" });
    println!(
        "{:<52} {:>10} {:>12} {:>8} {:>8} {:>12}",
        "scenario", "time", "pods/s", "passes", "pending", "peak heap"
    );
    for constrained in [false, true] {
        for profile in [
            Profile::kube_scheduler(),
            Profile::bin_pack(),
            Profile::least_loaded(),
        ] {
            if (constrained && (o.flag("--converge-only") || zipf))
                || only.as_ref().is_some_and(|n| *n != profile.scheduler_name)
            {
                continue;
            }
            let (ns, ds) = if zipf {
                shepherd::workload::zipf(42, nodes, pods, apps)
            } else {
                shepherd::workload::envelope(42, nodes, pods, apps, constrained)
            };
            // The heap this run holds at its most, building included: the
            // allocator counts from here.
            let base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let mut c = Cluster::new();
            for n in ns {
                c.add_node(n).map_err(run_failed)?;
            }
            for d in ds {
                c.deploy(d).map_err(run_failed)?;
            }
            let t0 = Instant::now();
            let fp = c.reconcile_to_fixed_point(&profile);
            let dt = t0.elapsed();
            let peak = PEAK.load(Ordering::Relaxed) - base;
            let label = format!(
                "converge from empty, {}, {}",
                profile.scheduler_name,
                if zipf {
                    "zipf mix"
                } else if constrained {
                    "constraints"
                } else {
                    "plain"
                }
            );
            println!(
                "{:<52} {:>10} {:>12.0} {:>8} {:>8} {:>12}",
                label,
                // Milliseconds whatever the size: a second printed as "1.3s"
                // hides the differences a change makes.
                format!("{:.1}ms", dt.as_secs_f64() * 1000.0),
                c.bound_count() as f64 / dt.as_secs_f64(),
                fp.passes,
                c.pending_count(),
                format!("{:.1} MiB", mib(peak))
            );
        }
    }

    if o.flag("--converge-only") {
        return Ok(());
    }
    // A live simulator at the envelope: a quiet tick, then a node failure.
    // Its workload is the plain one (even sizes, whatever --mix says) under
    // binpack, and the lines below say so.
    println!(
        "\nlive simulator: binpack, {nodes} nodes, {pods} pods in {apps} Deployments of even sizes"
    );
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let (ns, ds) = shepherd::workload::envelope(42, nodes, pods, apps, false);
    let mut sim = Simulator::new(42, ScorePolicy::BinPack);
    for n in ns {
        sim.cluster_mut().add_node(n).map_err(run_failed)?;
    }
    for d in ds {
        sim.cluster_mut().deploy(d).map_err(run_failed)?;
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
        .ok_or_else(|| run_failed("no node has pods"))?;
    sim.submit(Event::FailNode(victim.0.clone()))
        .map_err(run_failed)?;
    // One tick is one second: NotReady after the node monitor grace period,
    // its pods evicted and re-placed DefaultTolerationSeconds (300) later.
    let timeout = sim.cluster().heartbeat_timeout();
    for _ in 0..=timeout {
        sim.step();
    }
    let t0 = Instant::now();
    sim.step();
    let not_ready = t0.elapsed();
    for _ in 1..shepherd::DEFAULT_TOLERATION_SECONDS {
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
        "{:<52} {:>10.1?}",
        format!("quiet tick (mean of {QUIET})"),
        quiet
    );
    println!(
        "{:<52} {:>10.1?}   ({} pods marked not Ready, eviction timers started)",
        format!("tick that declares {} NotReady", victim.0),
        not_ready,
        victim.1
    );
    println!(
        "{:<52} {:>10.1?}   ({} pods evicted and re-placed, {} binds, healed: {})",
        "tick that evicts them, 300 s later", heal, victim.1, r.reconcile.total.bound, healed
    );

    // A zone failure: every node of the first zone (a third of the nodes).
    let key = "topology.kubernetes.io/zone";
    let zone = shepherd::workload::ZONES[0];
    let (zone_nodes, zone_pods) = sim
        .cluster()
        .nodes()
        .filter(|n| n.spec.labels.get(key).is_some_and(|v| v == zone))
        .fold((0u32, 0u32), |(n, p), v| (n + 1, p + v.pod_count));
    sim.submit(Event::FailZone {
        key: key.into(),
        value: zone.into(),
    })
    .map_err(run_failed)?;
    for _ in 0..=timeout {
        sim.step();
    }
    let t0 = Instant::now();
    sim.step();
    let zone_not_ready = t0.elapsed();
    for _ in 1..shepherd::DEFAULT_TOLERATION_SECONDS {
        sim.step();
    }
    let t0 = Instant::now();
    let r = sim.step();
    let zone_evict = t0.elapsed();
    println!(
        "{:<52} {:>10.1?}   ({zone_nodes} nodes, {zone_pods} pods marked not Ready)",
        format!("zone failure ({zone}): the NotReady tick"),
        zone_not_ready
    );
    println!(
        "{:<52} {:>10.1?}   ({} binds, {} Pending after)",
        "zone failure: the tick that evicts, re-places",
        zone_evict,
        r.reconcile.total.bound,
        sim.cluster().pending_count()
    );
    println!(
        "{:<52} {:>10.1} MiB  ({:.0} bytes per pod, events included)",
        "peak heap, build and converge",
        mib(peak),
        peak as f64 / bound.max(1) as f64
    );
    println!(
        "{:<52} {:>10.1} MiB  ({} events in the log)",
        "live heap after converging",
        mib(live),
        sim.cluster().events().len()
    );
    Ok(())
}

// ----- compare -------------------------------------------------------------

/// `shepherd compare`: one workload converged under several profiles and/or
/// scheduler seeds, side by side: a row of balance figures per run, then what
/// differs between the first run and each other one.
fn compare(args: &[String]) -> Result<(), Failure> {
    use shepherd::balance::{diff_placements, PlacementDiff};
    use shepherd::{Balance, ResourceBalance};

    /// At most this many runs, so what a user types stays bounded.
    const MAX_SEEDS: usize = 8;
    /// Names shown per list in the text output (JSON lists them all).
    const SHOWN: usize = 5;

    // FILE, DIR or - first: manifests, as `simulate` reads them.
    let (input, args) = match args.first() {
        Some(a) if a == "-" || !a.starts_with("--") => (Some(a.clone()), &args[1..]),
        _ => (None, args),
    };
    let o = Opts::parse(
        args,
        &[
            "--profiles",
            "--seeds",
            "--seed",
            "--nodes",
            "--apps",
            "--output",
            "--namespace",
        ],
        &[],
    )?;
    let value = |name: &str| {
        o.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if input.is_some() {
        if let Some((k, _)) = o
            .pairs
            .iter()
            .find(|(k, _)| matches!(k.as_str(), "--seed" | "--nodes" | "--apps"))
        {
            return Err(Failure::Usage(format!(
                "{k} builds a random workload; with FILE, DIR or - the manifests declare the nodes and Deployments (use --seeds for the scheduler's seed)"
            )));
        }
    } else if value("--namespace").is_some() {
        return Err(Failure::Usage(
            "--namespace applies to manifests; expected FILE, DIR or - before the options".into(),
        ));
    }
    let seed = o.num("--seed", 7, 0, u64::MAX)?;
    let nodes = o.num("--nodes", 6, 1, 5000)? as u32;
    let apps = o.num("--apps", 4, 0, MAX_BENCH_APPS)? as u32;
    let json = match value("--output") {
        None | Some("text") => false,
        Some("json") => true,
        Some(v) => {
            return Err(Failure::Usage(format!(
                "--output {} is not valid; expected json or text",
                shepherd::limits::quoted(v)
            )))
        }
    };
    // A comma-separated list: no empty item, no item twice.
    let list = |name: &str, text: &str, max: usize| -> Result<Vec<String>, String> {
        let items: Vec<&str> = text.split(',').collect();
        if items.len() > max {
            return Err(format!(
                "{name} lists {} items; expected at most {max}",
                items.len()
            ));
        }
        let mut out: Vec<String> = Vec::new();
        for (i, it) in items.iter().enumerate() {
            if it.is_empty() {
                return Err(format!(
                    "{name} {}: item {} is empty; expected names or numbers separated by commas",
                    shepherd::limits::quoted(text),
                    i + 1
                ));
            }
            if out.iter().any(|x| x == it) {
                return Err(format!(
                    "{name} lists {} twice; expected each at most once",
                    shepherd::limits::quoted(it)
                ));
            }
            out.push(it.to_string());
        }
        Ok(out)
    };
    let profiles: Vec<Profile> = list(
        "--profiles",
        value("--profiles").unwrap_or("default-scheduler,binpack,leastloaded"),
        3,
    )?
    .iter()
    .map(|p| Profile::named(p).map_err(|e| format!("--profiles: {e}")))
    .collect::<Result<_, _>>()?;
    // None: the cluster's own scheduler seed, as `simulate` runs manifests.
    let seeds: Vec<Option<u64>> = match value("--seeds") {
        None if input.is_some() => vec![None],
        None => vec![Some(seed)],
        Some(text) => list("--seeds", text, MAX_SEEDS)?
            .iter()
            .map(|s| {
                s.parse::<u64>().map(Some).map_err(|_| {
                    format!(
                        "--seeds: {} is not valid; expected a whole number from 0 to {}",
                        shepherd::limits::quoted(s),
                        u64::MAX
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    if profiles.len() * seeds.len() < 2 {
        return Err(Failure::Usage(
            "compare needs at least two runs; expected two or more --profiles, or two or more --seeds"
                .into(),
        ));
    }

    // The workload comes from --seed alone (the same as `converge --seed`),
    // or from the manifests, so every run schedules the same nodes and
    // Deployments; a run's seed feeds only its scheduler's tie-break.
    enum Workload {
        Random(shepherd::workload::Workload),
        // Boxed: an import's record is far larger than a workload's.
        Manifests(Box<shepherd_k8s::Imported>),
    }
    let workload = match &input {
        None => Workload::Random(generate(
            &mut Prng::new(seed),
            &WorkloadConfig::small(nodes, apps),
        )),
        Some(arg) => {
            let opts = shepherd_k8s::Options {
                namespace: value("--namespace").map(str::to_string),
                ..shepherd_k8s::Options::default()
            };
            let text = manifests::read_input(arg, opts.limits.max_bytes).map_err(Failure::Run)?;
            Workload::Manifests(Box::new(
                shepherd_k8s::import_with(&text, &opts)
                    .map_err(|e| Failure::Run(format!("{e}\nnothing was imported.")))?,
            ))
        }
    };
    struct Run {
        label: String,
        profile: String,
        seed: Option<u64>,
        converged: bool,
        passes: u32,
        balance: Balance,
        pods: usize,
        cluster: Cluster,
    }
    let mut runs: Vec<Run> = Vec::new();
    for &s in &seeds {
        for p in &profiles {
            // The seed as a simulator sets it; none: a fresh cluster's own.
            let mut c = match s {
                Some(s) => Simulator::new(s, p.clone()).cluster().clone(),
                None => Cluster::new(),
            };
            let fp = match &workload {
                Workload::Random(w) => {
                    for n in &w.nodes {
                        c.add_node(n.clone()).map_err(run_failed)?;
                    }
                    for a in &w.apps {
                        c.deploy(a.clone()).map_err(run_failed)?;
                    }
                    c.reconcile_to_fixed_point(p)
                }
                Workload::Manifests(m) => {
                    m.scenario.apply(&mut c).map_err(run_failed)?;
                    // As `simulate`: the readiness delays pass.
                    manifests::converge_until_ready(&mut c, &m.scenario, p)
                }
            };
            let c = &c;
            verified(shepherd::verify::verify_capacity(c))?;
            verified(shepherd::verify::verify_constraints(c))?;
            runs.push(Run {
                label: match s {
                    Some(s) if seeds.len() > 1 => format!("{} seed {s}", p.scheduler_name),
                    _ => p.scheduler_name.to_string(),
                },
                profile: p.scheduler_name.to_string(),
                seed: s,
                converged: fp.converged,
                passes: fp.passes,
                balance: c.balance(),
                pods: c.pods().count(),
                cluster: c.clone(),
            });
        }
    }

    // What differs between the first run and each other one, by pod name
    // (the engine's diff: `shepherd::balance::diff_placements`).
    let diffs: Vec<PlacementDiff> = runs[1..]
        .iter()
        .map(|r| diff_placements(&runs[0].cluster, &r.cluster))
        .collect();
    let pods_total = runs[0].pods;

    if json {
        let res = |r: &ResourceBalance| {
            serde_json::json!({
                "nodes": r.nodes, "requested": r.requested, "allocatable": r.allocatable,
                "histogram": r.histogram, "min": r.min, "max": r.max, "mean": r.mean,
                "stdDev": r.std_dev, "inUse": r.in_use, "empty": r.empty,
            })
        };
        let out = serde_json::json!({
            "workload": match &input {
                None => serde_json::json!({"seed": seed, "nodes": nodes, "apps": apps, "pods": pods_total}),
                Some(arg) => serde_json::json!({
                    "input": arg, "nodes": runs[0].cluster.node_count(),
                    "apps": runs[0].cluster.apps().count(), "pods": pods_total,
                    "warnings": match &workload { Workload::Manifests(m) => m.warnings.len(), Workload::Random(_) => 0 },
                }),
            },
            "runs": runs.iter().map(|r| {
                let b = &r.balance;
                serde_json::json!({
                    "label": r.label, "profile": r.profile, "seed": r.seed,
                    "converged": r.converged, "passes": r.passes,
                    "nodesUsed": b.nodes_with_pods, "readyNodes": b.ready_nodes,
                    "pending": b.pending,
                    "cpu": res(&b.cpu), "memory": res(&b.memory), "pods": res(&b.pods),
                    "fragmentation": b.fragmentation.as_ref().map(|f| serde_json::json!({
                        "app": f.app, "cpuMillis": f.requests.cpu_millis,
                        "memoryBytes": f.requests.memory_bytes, "fitOnNodes": f.fit_on_nodes,
                        "fitPooled": f.fit_pooled, "stranded": f.stranded(),
                    })),
                })
            }).collect::<Vec<_>>(),
            "differences": runs[1..].iter().zip(&diffs).map(|(r, d)| serde_json::json!({
                "from": runs[0].label, "to": r.label,
                "landedDifferently": d.landed_differently.iter().map(|(p, x, y)| serde_json::json!({"pod": p, "from": x, "to": y})).collect::<Vec<_>>(),
                "pendingOnlyInFrom": d.pending_only_in_a,
                "pendingOnlyInTo": d.pending_only_in_b,
                "boundOnlyInFrom": d.bound_only_in_a.iter().map(|(p, n)| serde_json::json!({"pod": p, "node": n})).collect::<Vec<_>>(),
                "boundOnlyInTo": d.bound_only_in_b.iter().map(|(p, n)| serde_json::json!({"pod": p, "node": n})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(run_failed)?
        );
        return Ok(());
    }

    match (&input, &workload) {
        (Some(arg), Workload::Manifests(m)) => println!(
            "shepherd compare: {arg}: {} nodes, {} Deployments ({pods_total} pods), {} runs{}\n",
            runs[0].cluster.node_count(),
            runs[0].cluster.apps().count(),
            runs.len(),
            if m.warnings.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} warnings (shepherd simulate lists them)",
                    m.warnings.len()
                )
            }
        ),
        _ => println!(
            "shepherd compare: workload seed {seed}, {nodes} nodes, {apps} apps ({pods_total} pods), {} runs\n",
            runs.len()
        ),
    }
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    let w = runs.iter().map(|r| r.label.len()).max().unwrap_or(0).max(3);
    println!(
        "{:<w$}  {:>10}  {:>7}  {:>19}  {:>19}  {:>8}",
        "run", "nodes used", "pending", "cpu min/max/std", "memory min/max/std", "stranded"
    );
    for r in &runs {
        let b = &r.balance;
        let imb = |x: &ResourceBalance| format!("{}/{}/{}", pct(x.min), pct(x.max), pct(x.std_dev));
        println!(
            "{:<w$}  {:>10}  {:>7}  {:>19}  {:>19}  {:>8}{}",
            r.label,
            format!("{}/{}", b.nodes_with_pods, b.ready_nodes),
            b.pending,
            imb(&b.cpu),
            imb(&b.memory),
            b.fragmentation
                .as_ref()
                .map_or("-".to_string(), |f| f.stranded().to_string()),
            if r.converged {
                ""
            } else {
                "  (pass budget exhausted)"
            }
        );
    }
    println!("\nstranded: how many more of the largest Pending pod would fit if each run's free space were one pool");
    for r in &runs {
        if let Some(f) = &r.balance.fragmentation {
            println!(
                "  {:<w$}  {} ({}m cpu, {} memory): {} fit on the nodes as they are, {} in the pooled free space",
                r.label, f.app, f.requests.cpu_millis, format_memory_bytes(f.requests.memory_bytes), f.fit_on_nodes, f.fit_pooled
            );
        }
    }
    let names = |v: &[String]| {
        let mut s = v.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(" ");
        if v.len() > SHOWN {
            s.push_str(&format!(" ... ({} more)", v.len() - SHOWN));
        }
        s
    };
    for (r, d) in runs[1..].iter().zip(&diffs) {
        println!(
            "\n{} -> {}: {} pods landed on a different node",
            runs[0].label,
            r.label,
            d.landed_differently.len()
        );
        for (p, x, y) in d.landed_differently.iter().take(SHOWN) {
            println!("  {p:<16} {x} -> {y}");
        }
        if d.landed_differently.len() > SHOWN {
            println!("  ... ({} more)", d.landed_differently.len() - SHOWN);
        }
        println!(
            "  Pending only under {}: {}{}",
            runs[0].label,
            d.pending_only_in_a.len(),
            if d.pending_only_in_a.is_empty() {
                String::new()
            } else {
                format!(" ({})", names(&d.pending_only_in_a))
            }
        );
        println!(
            "  Pending only under {}: {}{}",
            r.label,
            d.pending_only_in_b.len(),
            if d.pending_only_in_b.is_empty() {
                String::new()
            } else {
                format!(" ({})", names(&d.pending_only_in_b))
            }
        );
        // Pods one run made and the other did not (a roll or a replacement
        // went differently): only shown when there are some.
        for (label, only) in [
            (&runs[0].label, &d.bound_only_in_a),
            (&r.label, &d.bound_only_in_b),
        ] {
            if !only.is_empty() {
                let pods: Vec<String> = only.iter().map(|(p, _)| p.clone()).collect();
                println!(
                    "  Bound only under {label} (no such pod in the other run): {} ({})",
                    only.len(),
                    names(&pods)
                );
            }
        }
    }
    Ok(())
}
