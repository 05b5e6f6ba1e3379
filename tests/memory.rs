//! What the engine keeps, in bytes, at the limits: a pod, a Service and a
//! preemptor's record each cost at most their stated bound
//! (`shepherd::limits`), whatever the cluster's size (issue 42: endpoints
//! cost Services x pods, preemption the square of the nodes). Counted by a
//! counting global allocator (live bytes), so this file is its own test
//! binary, and its tests take turns (`LOCK`): the count is the process's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use shepherd::limits::{MAX_PODS, MAX_SERVICES, POD_BYTES, SERVICE_BYTES};
use shepherd::{
    Cluster, DeploymentSpec, NodeSpec, PriorityClass, Resources, ScorePolicy, Selector, ServiceSpec,
};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            LIVE.fetch_add(l.size(), Ordering::Relaxed);
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

static LOCK: Mutex<()> = Mutex::new(());

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Nodes enough for `pods` at 110 pods a node, with room to spare.
fn nodes_for(c: &mut Cluster, pods: u64) -> u64 {
    let n = pods.div_ceil(100);
    for i in 0..n {
        c.add_node(NodeSpec::new(&format!("n{i}"), 64_000, 262_144))
            .unwrap();
    }
    n
}

/// MAX_PODS pods (300,000) in one Deployment on 3,000 nodes, converged:
/// the heap the pods added, their events included, is at most POD_BYTES
/// a pod.
#[test]
fn a_pod_costs_at_most_pod_bytes_at_max_pods() {
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new();
    nodes_for(&mut c, MAX_PODS);
    let before = live();
    let web = DeploymentSpec::new("web", MAX_PODS as u32, Resources::new(10, 16))
        .with_template(|t| t.with_label("app", "web"));
    c.deploy(web).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    c.set_now(1);
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let per_pod = (live() - before) / MAX_PODS as usize;
    eprintln!("{per_pod} bytes a pod");
    assert!(per_pod <= POD_BYTES, "{per_pod} bytes a pod");
}

/// MAX_SERVICES Services (10,000), each selecting all of MAX_PODS pods
/// (300,000 Ready): 3 billion endpoints, which a list per Service would
/// hold at 8 bytes each. Each Service, its spec, its books, its Created
/// event and the EndpointsUpdated events of two syncs (all added; then a
/// node's pods removed) included, costs at most SERVICE_BYTES.
#[test]
fn a_service_costs_at_most_service_bytes_whatever_it_selects() {
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new();
    nodes_for(&mut c, MAX_PODS);
    let web = DeploymentSpec::new("web", MAX_PODS as u32, Resources::new(10, 16))
        .with_template(|t| t.with_label("app", "web"));
    c.deploy(web).unwrap();
    for t in 1..=2 {
        c.set_now(t);
        assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    }
    let specs: Vec<ServiceSpec> = (0..MAX_SERVICES)
        .map(|i| ServiceSpec {
            name: format!("s{i}"),
            selector: Selector::new(&[("app", "web")]),
        })
        .collect();
    let before = live();
    for s in specs {
        c.add_service(s).unwrap();
    }
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_eq!(
        c.service_endpoints("s9999").unwrap().len(),
        MAX_PODS as usize
    );
    // A node's kubelet stops: its pods leave every Service.
    c.fail_node("n0").unwrap();
    c.set_now(2 + shepherd::DEFAULT_HEARTBEAT_TIMEOUT + 1);
    c.detect_failures();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let left = c.service_endpoints("s0").unwrap().len();
    assert!(
        left < MAX_PODS as usize && left >= MAX_PODS as usize - 110,
        "{left}"
    );
    let updated = c
        .rendered_events()
        .iter()
        .filter(|e| e.reason == "EndpointsUpdated")
        .count();
    assert_eq!(updated, 2 * MAX_SERVICES);
    let per_service = (live() - before) / MAX_SERVICES;
    eprintln!("{per_service} bytes a Service");
    assert!(
        per_service <= SERVICE_BYTES,
        "{per_service} bytes a Service"
    );
}

/// 10,000 full nodes (MAX_NODES), then 200 pods that must preempt: each
/// dry run reads max(10%, 100) = 1,000 nodes and keeps at most
/// `record_bytes_bound` bytes; with the pod itself, its two victims'
/// replacements and the events, a preemptor costs a few KiB, where a row
/// with victims per node cost about 1.7 MB.
#[test]
fn a_preemptor_costs_a_bounded_record_at_max_nodes() {
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let nodes = shepherd::limits::MAX_NODES;
    let mut c = Cluster::new();
    for i in 0..nodes {
        c.add_node(NodeSpec::new(&format!("n{i}"), 4000, 8192))
            .unwrap();
    }
    c.add_priority_class(PriorityClass::new("batch", 10))
        .unwrap();
    c.add_priority_class(PriorityClass::new("web", 1000))
        .unwrap();
    let batch = DeploymentSpec::new("batch", 4 * nodes, Resources::new(1000, 1024))
        .with_template(|t| t.with_label("app", "batch").with_priority_class("batch"));
    c.deploy(batch).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let before = live();
    let preemptors = 200;
    let web = DeploymentSpec::new("web", preemptors, Resources::new(2000, 1024))
        .with_template(|t| t.with_label("app", "web").with_priority_class("web"));
    c.deploy(web).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    for i in 0..preemptors {
        let d = c.last_preemption(&format!("web-{i}")).unwrap();
        // A node taken by two earlier preemptors is no candidate: the
        // dry run goes on past it.
        assert_eq!((d.potential, d.found), (nodes, 1_000));
        assert!(d.evaluated < 1_100, "{} nodes dry-run", d.evaluated);
        assert_eq!(d.candidates.len(), shepherd::scheduler::KEPT_CANDIDATES);
    }
    let per = (live() - before) / preemptors as usize;
    let bound = shepherd::scheduler::record_bytes_bound(2) + 3 * POD_BYTES;
    eprintln!("{per} bytes a preemptor (bound {bound})");
    assert!(per <= bound, "{per} bytes a preemptor, more than {bound}");
}
