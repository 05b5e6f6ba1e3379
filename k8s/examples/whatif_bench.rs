//! What-if speed on an imported cluster (issue 45, Speed): a drain of N
//! nodes (one a second, `kubectl drain` each) on the cluster a kubectl dump
//! describes, as `shepherd whatif DUMP --drain NODE ...` runs it, repeated.
//!
//! ```sh
//! python3 scripts/big-dump.py 5000 5000 30 > /tmp/dump.json
//! cargo run --release -p shepherd-k8s --example whatif_bench -- /tmp/dump.json [DRAINS [RUNS]]
//! ```
//!
//! The nodes drained are the first DRAINS (default 100) in name order; RUNS
//! (default 5) what-ifs on the same imported cluster, each timed on the wall
//! clock and on the CPU (this thread's run time, which a loaded machine
//! stretches far less), with the load average beside them.
//!
//! For a profiler: `SHEPHERD_BENCH_WAIT=FILE` imports, then prints `ready`
//! and waits until FILE exists before one what-if, so that
//! `valgrind --tool=callgrind --instr-atstart=no` can be switched on for the
//! what-if alone (`callgrind_control -i on PID`, then `touch FILE`).

use std::time::{Duration, Instant};

use shepherd::whatif::{what_if, Action};

/// Time this thread has run on a CPU (Linux: /proc/thread-self/schedstat).
fn cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(String::from))
        .unwrap_or_else(|| String::from("?"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: whatif_bench DUMP [DRAINS [RUNS]] (a kubectl dump, e.g. scripts/big-dump.py 5000 5000 30)");
        std::process::exit(2);
    };
    let drains: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let runs: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let t = Instant::now();
    let opts = shepherd_k8s::Options::default();
    let (imported, mut cluster) = shepherd_k8s::import_checked(&text, &opts, &mut |_| {})
        .unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(1)
        });
    drop(text);
    let profile = imported.scenario.profile_or_default();
    cluster.reconcile_to_fixed_point(&profile);
    println!(
        "{path}: {} nodes, {} pods, imported and converged in {:.2?}",
        cluster.node_count(),
        cluster.pods().count(),
        t.elapsed()
    );
    let mut names: Vec<String> = cluster.nodes().map(|n| String::from(n.name())).collect();
    names.sort();
    let actions: Vec<Action> = names.into_iter().take(drains).map(Action::Drain).collect();
    if let Ok(file) = std::env::var("SHEPHERD_BENCH_WAIT") {
        println!("ready (pid {})", std::process::id());
        while !std::path::Path::new(&file).exists() {
            std::thread::sleep(Duration::from_millis(100));
        }
        let t = Instant::now();
        let w = what_if(&cluster, &profile, &actions).expect("the drains apply");
        println!(
            "what-if: {} deleted, {} replaced, t={}..{} in {:.2?}",
            w.deleted.len(),
            w.moves.len(),
            w.start,
            w.end,
            t.elapsed()
        );
        return;
    }
    let mut walls = Vec::with_capacity(runs);
    for i in 0..runs {
        let (t, c) = (Instant::now(), cpu());
        let w = what_if(&cluster, &profile, &actions).expect("the drains apply");
        let wall = t.elapsed();
        let on_cpu = c.zip(cpu()).map(|(a, b)| b - a);
        println!(
            "run {}: {} drains, {} pods deleted, {} replaced, settled at t={}: {wall:.2?} ({} on the CPU; load {})",
            i + 1,
            actions.len(),
            w.deleted.len(),
            w.moves.len(),
            w.end,
            on_cpu.map_or_else(|| String::from("?"), |c| format!("{c:.2?}")),
            load()
        );
        walls.push(wall);
    }
    walls.sort();
    if let (Some(min), Some(max)) = (walls.first(), walls.last()) {
        println!(
            "what-if of {} drains: best {min:.2?}, median {:.2?}, worst {max:.2?} over {runs} runs",
            actions.len(),
            walls[walls.len() / 2]
        );
    }
}
