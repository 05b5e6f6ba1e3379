//! What the engine keeps, in bytes, at the limits: a pod, a bare Pod and
//! each entry of its template, a Service and a preemptor's record each cost
//! at most their stated bound (`shepherd::limits`), whatever the cluster's
//! size (issue 42: endpoints cost Services x pods, preemption the square of
//! the nodes, a heavy template 245 KB a Pod); and the work of a Pod's
//! terms is counted (`Cluster::term_index_work`); the Services' list the
//! page shows each tick holds a few hundred bytes a Service at the most,
//! whatever they select (`Cluster::service_summaries`). Counted by a
//! counting global allocator (live bytes), so this file is its own test
//! binary, and its tests take turns (`LOCK`): the count is the process's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use shepherd::limits::{MAX_PODS, MAX_SERVICES, POD_BYTES, SERVICE_BYTES};
use shepherd::quantity::MIB;
use shepherd::{
    Cluster, DeploymentSpec, NodeSpec, PodTemplate, PriorityClass, Resources, ScorePolicy,
    Selector, ServiceSpec,
};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most LIVE has been since the last `reset_peak`.
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

static LOCK: Mutex<()> = Mutex::new(());

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Starts a new peak at what is live now; returns it.
fn reset_peak() -> usize {
    let now = live();
    PEAK.store(now, Ordering::Relaxed);
    now
}

fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Nodes enough for `pods` at 110 pods a node, with room to spare.
fn nodes_for(c: &mut Cluster, pods: u64) -> u64 {
    let n = pods.div_ceil(100);
    for i in 0..n {
        c.add_node(NodeSpec::new(&format!("n{i}"), 64_000, 262_144 * MIB))
            .unwrap();
    }
    n
}

/// MAX_PODS pods (300,000) in one Deployment on 3,000 nodes, converged:
/// the heap the pods added, their events included, is at most POD_BYTES
/// a pod, though their template carries MAX_TEMPLATE_ENTRIES entries with
/// every string at its longest (labels, tolerations, node affinity: kinds
/// whose filters and scores the scheduler keeps per node): the pods share
/// their revision's template.
#[test]
fn a_pod_costs_at_most_pod_bytes_at_max_pods() {
    use shepherd::{
        NodeAffinity, NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm,
        PreferredSchedulingTerm, Toleration,
    };
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new();
    nodes_for(&mut c, MAX_PODS);
    let before = live();
    let term = |from: usize, values: usize| {
        let values: Vec<String> = (from..from + values).map(|i| long_value(0, i)).collect();
        let values: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
        NodeSelectorTerm {
            match_expressions: vec![NodeSelectorRequirement::new(
                &long_key(from),
                NodeSelectorOperator::NotIn,
                &values,
            )],
            match_fields: Vec::new(),
        }
    };
    let mut template = PodTemplate::new(Resources::new(10, 16 * MIB)).with_label("app", "web");
    for i in 0..63 {
        template = template.with_label(&long_key(i), &long_value(0, i));
    }
    for i in 0..64 {
        template =
            template.with_toleration(Toleration::equal(&long_key(i), &long_value(0, i), None));
    }
    template = template.with_node_affinity(NodeAffinity {
        required: Some(vec![term(1000, 126)]),
        preferred: (0..3)
            .map(|i| PreferredSchedulingTerm {
                weight: 1,
                preference: term(256 * i, 254),
            })
            .collect(),
    });
    assert_eq!(
        template.list_entries(),
        shepherd::limits::MAX_TEMPLATE_ENTRIES
    );
    let web = DeploymentSpec::new("web", MAX_PODS as u32, Resources::new(10, 16 * MIB))
        .with_template(|_| template);
    c.deploy(web).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    c.set_now(1);
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_eq!(c.bound_count() as u64, MAX_PODS);
    let per_pod = (live() - before) / MAX_PODS as usize;
    eprintln!("{per_pod} bytes a pod");
    assert!(per_pod <= POD_BYTES, "{per_pod} bytes a pod");
}

/// MAX_SERVICES Services (10,000), each selecting all of MAX_PODS pods
/// (300,000 Ready): 3 billion endpoints, which a list per Service would
/// hold at 8 bytes each. Each Service, its spec and its books, through
/// two endpoint syncs (all added; then a node's pods removed), costs at
/// most SERVICE_BYTES. (Kubernetes records no Event for creating a
/// Service or for its endpoints changing, and neither does Shepherd.)
#[test]
fn a_service_costs_at_most_service_bytes_whatever_it_selects() {
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new();
    nodes_for(&mut c, MAX_PODS);
    let web = DeploymentSpec::new("web", MAX_PODS as u32, Resources::new(10, 16 * MIB))
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
    assert!(!c
        .rendered_events()
        .iter()
        .any(|e| e.object.starts_with("service/")));
    let per_service = (live() - before) / MAX_SERVICES;
    eprintln!("{per_service} bytes a Service");
    assert!(
        per_service <= SERVICE_BYTES,
        "{per_service} bytes a Service"
    );
    // The list the page shows each tick: a count and the first three
    // endpoints a Service, built from the owners' counts and the first
    // pods that are Ready (here after n0's, which are not), never from
    // every endpoint (which named 3 billion pods). Its heap at the most,
    // the list itself included, is a few hundred bytes a Service.
    let first: Vec<String> = c.service_endpoints("s0").unwrap()[..3].to_vec();
    let base = reset_peak();
    let listed = c.service_summaries(3);
    let per_summary = (peak() - base) / MAX_SERVICES;
    eprintln!("{per_summary} bytes a Service's summary at the most");
    assert_eq!(listed.len(), MAX_SERVICES);
    for s in &listed {
        assert_eq!(s.endpoint_count as usize, left, "{}", s.name);
        assert_eq!(s.endpoints, first, "{}", s.name);
        assert_eq!(s.selector, "app=web");
    }
    assert!(
        per_summary <= SUMMARY_BYTES,
        "{per_summary} bytes a Service's summary"
    );
}

/// What `Cluster::service_summaries(3)` may hold a Service at the most:
/// its row (about 100 bytes), its name, selector and three pod names, and
/// the revisions its selector reaches.
const SUMMARY_BYTES: usize = 512;

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
        c.add_node(NodeSpec::new(&format!("n{i}"), 4000, 8192 * MIB))
            .unwrap();
    }
    c.add_priority_class(PriorityClass::new("batch", 10))
        .unwrap();
    c.add_priority_class(PriorityClass::new("web", 1000))
        .unwrap();
    let batch = DeploymentSpec::new("batch", 4 * nodes, Resources::new(1000, 1024 * MIB))
        .with_template(|t| t.with_label("app", "batch").with_priority_class("batch"));
    c.deploy(batch).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let before = live();
    let preemptors = 200;
    let web = DeploymentSpec::new("web", preemptors, Resources::new(2000, 1024 * MIB))
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

/// A label key at its longest (317 characters: a 253-character DNS
/// subdomain prefix, `/`, a 63-character name), distinct per `i`.
fn long_key(i: usize) -> String {
    let (a, b, c) = ("a".repeat(63), "b".repeat(63), "c".repeat(63));
    format!("{a}.{b}.{c}.{:d>61}/{:k>63}", i % 100, i)
}

/// A label value at its longest (63 characters), distinct per pod and `i`.
fn long_value(pod: usize, i: usize) -> String {
    format!("{:v>63}", format!("{pod}x{i}"))
}

fn long_selector(pod: usize, from: usize, labels: usize) -> Selector {
    let pairs: Vec<(String, String)> = (from..from + labels)
        .map(|i| (long_key(i), long_value(pod, i)))
        .collect();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    Selector::new(&refs)
}

/// The heaviest templates per list entry, distinct for each `pod` (no two
/// pods share a term) with every string at its longest: the shapes whose
/// entries cost the engine most, each at or near MAX_TEMPLATE_ENTRIES.
fn heavy_template(shape: &str, pod: usize) -> PodTemplate {
    use shepherd::{
        AffinityTerm, LabelSelectorRequirement, NodeAffinity, NodeSelectorOperator,
        NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm, SelectorOperator,
        Toleration, TopologySpreadConstraint, WhenUnsatisfiable,
    };
    // Topology keys shared by every pod (each key holds a domain per node,
    // and the cluster's templates name at most MAX_TOPOLOGY_KEYS of them).
    let topology = |j: usize| long_key(1000 + j);
    let mut t = PodTemplate::new(Resources::new(10, 16 * MIB));
    match shape {
        // One long label per term, in every list a term can be in: the
        // label's map, the term and its books cost most per entry.
        "terms of one label" => {
            for j in 0..64 {
                t = t.with_label(&long_key(j), &long_value(pod, j));
            }
            for j in 0..64 {
                // The pod matches its own required terms: the first of its group.
                t = t.with_affinity(AffinityTerm::new(
                    long_selector(pod, j, 1),
                    Some(&topology(j)),
                ));
                t = t.with_anti_affinity(AffinityTerm::new(
                    long_selector(pod, 100 + j, 1),
                    Some(&topology(j)),
                ));
                t = t.with_preferred_affinity(
                    1,
                    AffinityTerm::new(long_selector(pod, 200 + j, 1), Some(&topology(j))),
                );
                t = t.with_preferred_anti_affinity(
                    100,
                    AffinityTerm::new(long_selector(pod, 300 + j, 1), Some(&topology(j))),
                );
            }
            for j in 0..64 {
                t = t.with_toleration(Toleration::equal(&long_key(j), &long_value(pod, j), None));
                t.topology_spread.push(TopologySpreadConstraint::new(
                    1,
                    &topology(j),
                    WhenUnsatisfiable::ScheduleAnyway,
                    long_selector(pod, j, 1),
                ));
            }
            // And a node preference of 254 values.
            let values: Vec<String> = (0..254).map(|i| long_value(pod, i)).collect();
            let values: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
            t = t.with_node_affinity(NodeAffinity {
                required: None,
                preferred: vec![PreferredSchedulingTerm {
                    weight: 1,
                    preference: NodeSelectorTerm {
                        match_expressions: vec![NodeSelectorRequirement::new(
                            &long_key(0),
                            NodeSelectorOperator::NotIn,
                            &values,
                        )],
                        match_fields: Vec::new(),
                    },
                }],
            });
        }
        // Only the terms of one label: the most per entry, 256 entries.
        "preferred terms of one label" => {
            for j in 0..64 {
                t = t.with_preferred_affinity(
                    1,
                    AffinityTerm::new(long_selector(pod, j, 1), Some(&topology(j))),
                );
                t = t.with_preferred_anti_affinity(
                    1,
                    AffinityTerm::new(long_selector(pod, 100 + j, 1), Some(&topology(j))),
                );
            }
        }
        // Terms of fifteen labels each.
        "selectors of fifteen labels" => {
            for j in 0..64 {
                t = t.with_preferred_anti_affinity(
                    1,
                    AffinityTerm::new(long_selector(pod, 16 * j, 15), Some(&topology(j))),
                );
            }
        }
        // Required affinity: every term counts over the conjunction of all
        // 64 selectors (960 labels), each by its own topology key.
        "required affinity, 64 keys" => {
            for j in 0..64 {
                t = t.with_affinity(AffinityTerm::new(
                    long_selector(pod, 16 * j, 15),
                    Some(&topology(j)),
                ));
            }
        }
        "matchExpressions" => {
            for j in 0..64 {
                let values: Vec<String> = (0..14).map(|i| long_value(pod, 16 * j + i)).collect();
                let values: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
                let r = LabelSelectorRequirement::new(&long_key(j), SelectorOperator::In, &values);
                t = t.with_preferred_affinity(
                    1,
                    AffinityTerm::new(Selector::default().with_expression(r), Some(&topology(j))),
                );
            }
        }
        "namespaces" => {
            for j in 0..64 {
                let ns: Vec<String> = (0..15)
                    .map(|i| format!("{:n>63}", format!("{pod}x{j}x{i}")))
                    .collect();
                let ns: Vec<&str> = ns.iter().map(|n| n.as_str()).collect();
                t = t.with_preferred_anti_affinity(
                    1,
                    AffinityTerm::new(Selector::default(), Some(&topology(j))).in_namespaces(&ns),
                );
            }
        }
        "spread and node affinity" => {
            for j in 0..64 {
                t.topology_spread.push(TopologySpreadConstraint::new(
                    1,
                    &topology(j),
                    WhenUnsatisfiable::ScheduleAnyway,
                    long_selector(pod, j, 1),
                ));
            }
            let preferred = (0..64)
                .map(|j| {
                    let values: Vec<String> =
                        (0..12).map(|i| long_value(pod, 16 * j + i)).collect();
                    let values: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
                    PreferredSchedulingTerm {
                        weight: 1,
                        preference: NodeSelectorTerm {
                            match_expressions: vec![NodeSelectorRequirement::new(
                                &long_key(j),
                                NodeSelectorOperator::NotIn,
                                &values,
                            )],
                            match_fields: Vec::new(),
                        },
                    }
                })
                .collect();
            t = t.with_node_affinity(NodeAffinity {
                required: None,
                preferred,
            });
        }
        _ => unreachable!("no shape {shape}"),
    }
    t
}

const SHAPES: [&str; 7] = [
    "terms of one label",
    "preferred terms of one label",
    "selectors of fifteen labels",
    "required affinity, 64 keys",
    "matchExpressions",
    "namespaces",
    "spread and node affinity",
];

/// Bare Pods (each its own template) at MAX_TEMPLATE_ENTRIES entries of
/// the costliest kinds, every string at its longest and no term shared:
/// converged on 100 nodes, a Pod costs at most BARE_POD_BYTES and
/// TEMPLATE_ENTRY_BYTES an entry, its own terms' books and counts included
/// (2,000 Pods of 64 preferred terms each held 245 KB a Pod; the
/// conjunction of 64 required terms, 6 MB). The template is what the Pod
/// declares: a Deployment's pods share theirs, so each costs POD_BYTES
/// (the next test).
#[test]
fn a_bare_pod_costs_at_most_entry_bytes_an_entry_of_its_template() {
    use shepherd::limits::{BARE_POD_BYTES, MAX_TEMPLATE_ENTRIES, TEMPLATE_ENTRY_BYTES};
    use shepherd::BarePodSpec;
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let pods = 24;
    for shape in SHAPES {
        let entries = heavy_template(shape, 0).list_entries();
        assert!(
            (256..=MAX_TEMPLATE_ENTRIES).contains(&entries),
            "{shape}: {entries} entries"
        );
        let before = live();
        let mut c = Cluster::new();
        for i in 0..100 {
            // Each node its own domain of the 64 topology keys (its 64
            // labels: no kubernetes.io/hostname beside them).
            let mut n = NodeSpec::new(&format!("n{i}"), 64_000, 262_144 * MIB);
            n.labels.clear();
            for j in 0..64 {
                n = n.with_label(&long_key(1000 + j), &format!("n{i}"));
            }
            c.add_node(n).unwrap();
        }
        let nodes = live() - before;
        for p in 0..pods {
            let spec = BarePodSpec {
                name: format!("p{p}"),
                template: heavy_template(shape, p),
                node_name: None,
            };
            c.create_bare_pod(spec).unwrap();
        }
        assert!(
            c.reconcile_to_fixed_point(ScorePolicy::LeastLoaded)
                .converged
        );
        if shape != "required affinity, 64 keys" {
            // (That one's pods select 960 labels a pod cannot carry: Pending.)
            assert_eq!(c.pending_count(), 0, "{shape}");
        }
        let per_pod = (live() - before - nodes) / pods;
        let bound = BARE_POD_BYTES + entries * TEMPLATE_ENTRY_BYTES;
        eprintln!(
            "{shape}: {entries} entries, {per_pod} bytes a Pod, {} an entry",
            per_pod / entries
        );
        assert!(
            per_pod <= bound,
            "{shape}: {per_pod} bytes a Pod, more than {bound}"
        );
    }
}
/// 2,000 bare Pods of 64 preferred anti-affinity terms each (the issue's
/// 2,000 Pods that took 2 s), sharing their terms or each with its own:
/// registering a Pod's template costs a lookup a term (counted by
/// `Cluster::term_index_work`), as many at 2,000 Pods as at 250. A Pod's
/// terms select no pod here; what they select costs besides (the
/// function's doc).
#[test]
fn a_pods_terms_cost_a_lookup_each_whatever_the_cluster_holds() {
    use shepherd::limits::{BARE_POD_BYTES, TEMPLATE_ENTRY_BYTES};
    use shepherd::{AffinityTerm, BarePodSpec};
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for shared in [true, false] {
        for pods in [250, 2_000] {
            let before = live();
            let mut c = Cluster::new();
            for i in 0..30 {
                c.add_node(NodeSpec::new(&format!("n{i}"), 64_000, 262_144 * MIB))
                    .unwrap();
            }
            let mut entries = 0;
            for p in 0..pods {
                let mut t = PodTemplate::new(Resources::new(10, 16 * MIB));
                for j in 0..64 {
                    let v = if shared {
                        format!("x{j}")
                    } else {
                        format!("x{p}-{j}")
                    };
                    let term = AffinityTerm::new(Selector::new(&[("a", &v)]), None);
                    t = t.with_preferred_anti_affinity(1, term);
                }
                entries = t.list_entries();
                let spec = BarePodSpec {
                    name: format!("p{p}"),
                    template: t,
                    node_name: None,
                };
                c.create_bare_pod(spec).unwrap();
            }
            assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
            assert_eq!(c.bound_count(), pods as u32);
            let work = c.term_index_work();
            assert_eq!(work, 64 * pods as u64, "shared {shared}, {pods} Pods");
            let per_pod = (live() - before) / pods;
            eprintln!("shared {shared}, {pods} Pods: {per_pod} bytes a Pod, work {work}");
            assert!(per_pod <= BARE_POD_BYTES + entries * TEMPLATE_ENTRY_BYTES);
        }
    }
}

/// A topology key holds a domain for every node, whatever names it: the
/// cluster's templates may name MAX_TOPOLOGY_KEYS keys in all (2,000 Pods
/// naming 64 new keys each held 1.6 MB a Pod at 3,000 nodes). The next new
/// key is refused, by any door, with the limit named, and nothing changes;
/// keys already named stay free to use.
#[test]
fn topology_keys_stop_at_their_limit() {
    use shepherd::limits::MAX_TOPOLOGY_KEYS;
    use shepherd::{AffinityTerm, BarePodSpec};
    let _turn = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new();
    for i in 0..10 {
        c.add_node(NodeSpec::new(&format!("n{i}"), 64_000, 262_144 * MIB))
            .unwrap();
    }
    let naming = |keys: std::ops::Range<usize>| {
        keys.fold(PodTemplate::new(Resources::new(10, 16 * MIB)), |t, k| {
            let term = AffinityTerm::new(Selector::new(&[("a", "b")]), Some(&format!("k{k}")));
            t.with_preferred_anti_affinity(1, term)
        })
    };
    let pod = |name: &str, template| BarePodSpec {
        name: name.into(),
        template,
        node_name: None,
    };
    for p in 0..MAX_TOPOLOGY_KEYS / 64 {
        c.create_bare_pod(pod(&format!("p{p}"), naming(64 * p..64 * (p + 1))))
            .unwrap();
    }
    let events = c.events().len();
    let err = c
        .create_bare_pod(pod("one-more", naming(250..257)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("MAX_TOPOLOGY_KEYS") && err.contains("\"k256\"") && err.contains("257"),
        "{err}"
    );
    let web = DeploymentSpec::new("web", 1, Resources::new(10, 16 * MIB))
        .with_template(|_| naming(256..257));
    assert!(c
        .deploy(web)
        .unwrap_err()
        .to_string()
        .contains("MAX_TOPOLOGY_KEYS"));
    assert_eq!(c.events().len(), events);
    assert!(c.apps().all(|a| a.name != "one-more" && a.name != "web"));
    // Keys already named: any template may name them.
    c.create_bare_pod(pod("again", naming(0..64))).unwrap();
    let web = DeploymentSpec::new("web", 1, Resources::new(10, 16 * MIB))
        .with_template(|_| naming(192..256));
    c.deploy(web).unwrap();
    assert!(c
        .roll("web", naming(255..257))
        .unwrap_err()
        .to_string()
        .contains("MAX_TOPOLOGY_KEYS"));
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_eq!(c.pending_count(), 0);
}
