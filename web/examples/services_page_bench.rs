//! Issue 42's row 5 as the page runs it, natively: 10,000 Services
//! (MAX_SERVICES), each selecting all of 300,000 pods (MAX_PODS) on 3,000
//! nodes, imported as one manifests action (the input of
//! `scripts/scale-costs.sh`, at 100 pods a node); then the view the page
//! asks for each tick (`Session::snapshot(false)`) and the frame sent
//! after a quiet tick, timed, with the heap each holds at the most.
//!
//!   cargo run --release -p shepherd-web --example services_page_bench -- [services] [pods]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use shepherd_web::delta::Sent;
use shepherd_web::scenario::{parse_policy, Action};
use shepherd_web::session::Session;

/// The system allocator, counting the bytes in use and their peak.
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
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Starts a new peak at what is in use now; returns it.
fn reset_peak() -> usize {
    let now = IN_USE.load(Relaxed);
    PEAK.store(now, Relaxed);
    now
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let services = args.first().copied().unwrap_or(10_000);
    let pods = args.get(1).copied().unwrap_or(300_000);
    let nodes = pods.div_ceil(100).max(1);
    let mut items = Vec::with_capacity(nodes + services + 1);
    for i in 0..nodes {
        items.push(format!(
            r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n{i}"}},"status":{{"allocatable":{{"cpu":"64","memory":"256Gi","pods":"110"}}}}}}"#
        ));
    }
    items.push(format!(
        r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web"}},"spec":{{"replicas":{pods},"selector":{{"matchLabels":{{"app":"web"}}}},"template":{{"metadata":{{"labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"web","image":"x","resources":{{"requests":{{"cpu":"10m","memory":"16Mi"}}}}}}]}}}}}}}}"#
    ));
    for i in 0..services {
        items.push(format!(
            r#"{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"s{i}"}},"spec":{{"selector":{{"app":"web"}}}}}}"#
        ));
    }
    let manifests = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    );
    let mut s = Session::new(
        1,
        parse_policy("default-scheduler").expect("a named profile"),
    );
    s.submit(Action::Manifests { manifests })
        .expect("the manifests are taken");
    let t = Instant::now();
    s.run(3);
    let snap = s.snapshot(false);
    println!(
        "{services} Services over {pods} pods on {nodes} nodes: 3 ticks {:.0} ms; {} bound, {} Services, s0 has {} endpoints",
        ms(t),
        snap.bound_pods,
        snap.services.len(),
        snap.services.first().map_or(0, |r| r.endpoint_count)
    );
    let mut sent = Sent::default();
    let _ = sent.frame(s.simulator(), snap, false);
    let base = reset_peak();
    let t = Instant::now();
    let snap = s.snapshot(false);
    let took = ms(t);
    let held = PEAK.load(Relaxed) - base;
    println!(
        "snapshot(false) {took:.1} ms, heap at the most {:.2} MB ({} bytes a Service)",
        mb(held),
        held / services.max(1)
    );
    let t = Instant::now();
    s.step();
    let step = ms(t);
    let base = reset_peak();
    let t = Instant::now();
    let frame = sent.frame(s.simulator(), s.snapshot(false), false);
    println!(
        "a quiet tick {step:.1} ms; its snapshot and frame {:.1} ms, heap at the most {:.2} MB; Services rows sent {}",
        ms(t),
        mb(PEAK.load(Relaxed) - base),
        frame.services.as_ref().map_or(0, |r| r.rows.len())
    );
    drop(snap);
}
