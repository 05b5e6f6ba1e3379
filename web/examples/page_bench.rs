//! Native figures for the page's work at "Big cluster" sizes: the engine's
//! first tick and a quiet tick, a copy of the session (what a Back checkpoint
//! costs), the view the page asks for each tick, and the ticks that evict
//! and replace failed nodes' pods (as perf.mjs's node-failure column).
//!
//!   cargo run --release -p shepherd-web --example page_bench -- [nodes] [podsPerNode] [profile]
//!
//! With FIRST_TICK_ONLY set it stops after the first tick (for profilers).
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use shepherd_web::scenario::{parse_policy, Action};
use shepherd_web::session::Session;

/// The system allocator, counting the bytes in use and their peak: what a
/// copy of the simulator holds, and the most the page's memory must hold.
struct Counting;
static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = IN_USE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        IN_USE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            let now = IN_USE.fetch_add(new - l.size(), Relaxed) + new - l.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            IN_USE.fetch_sub(l.size() - new, Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5000);
    let per: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30);
    let profile = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "default-scheduler".into());
    let mut s = Session::new(1, parse_policy(&profile).expect("a named profile"));
    s.submit(Action::Generate {
        nodes,
        pods_per_node: per,
    })
    .expect("generate");
    let t = Instant::now();
    s.step();
    println!(
        "{nodes} nodes x {per} pods, {profile}: first tick {:.1} ms",
        ms(t)
    );
    if std::env::var("FIRST_TICK_ONLY").is_ok() {
        // For profilers: the first tick alone.
        return;
    }
    let mut quiet = Vec::new();
    for _ in 0..60 {
        let t = Instant::now();
        s.step();
        quiet.push(ms(t));
    }
    quiet.sort_by(|a, b| a.total_cmp(b));
    println!(
        "quiet tick median {:.3} ms, p95 {:.3} ms",
        quiet[30], quiet[57]
    );
    if std::env::var("CLONE_LOOP").is_ok() {
        for _ in 0..20 {
            drop(s.clone());
        }
    }
    println!(
        "heap at the most so far (first tick, quiet ticks) {:.1} MB",
        mb(PEAK.load(Relaxed))
    );
    let before = IN_USE.load(Relaxed);
    let mut sim = s.simulator().clone();
    let with = IN_USE.load(Relaxed) - before;
    sim.drop_caches();
    let without = IN_USE.load(Relaxed) - before;
    drop(sim);
    println!(
        "heap in use {:.1} MB; one copy of the simulator {:.1} MB, of which the scheduler's caches {:.1} MB",
        mb(before),
        mb(with),
        mb(with - without)
    );
    let t = Instant::now();
    let copy = s.clone();
    println!("a copy of the session {:.1} ms", ms(t));
    let t = Instant::now();
    drop(copy);
    println!("dropping it {:.1} ms", ms(t));
    PEAK.store(IN_USE.load(Relaxed), Relaxed);
    let t = Instant::now();
    let _ = s.snapshot(false);
    println!("snapshot(false) {:.2} ms", ms(t));
    let t = Instant::now();
    let _ = s.grid();
    println!("grid {:.2} ms", ms(t));
    s.run(200 - s.tick());
    println!("copies kept for Back at ticks {:?}", s.checkpoint_ticks());
    for _ in 0..3 {
        let t = Instant::now();
        s.step_back().expect("back");
        println!("Back to tick {} {:.1} ms", s.tick(), ms(t));
    }
    println!(
        "heap in use {:.1} MB at the end, {:.1} MB at the most since the copy above",
        mb(IN_USE.load(Relaxed)),
        mb(PEAK.load(Relaxed))
    );
    // As perf.mjs: three nodes fail on successive ticks; each is NotReady
    // 51 s later and its pods are evicted and replaced 300 s after that, on
    // three successive ticks, which are timed.
    const FAILURES: usize = 3;
    for k in 1..=FAILURES {
        s.submit(Action::FailNode {
            node: format!("node-{k}"),
        })
        .expect("failNode");
        s.step();
    }
    s.run(51 - FAILURES as u64 + 1 + 299);
    let heals = eviction_ticks(&mut s, FAILURES);
    println!("node-failure ticks (evict and replace) {heals:.2?} ms");
}

/// The eviction ticks, apart (a profiler can collect this function alone).
#[inline(never)]
fn eviction_ticks(s: &mut Session, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            s.step();
            ms(t)
        })
        .collect()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
