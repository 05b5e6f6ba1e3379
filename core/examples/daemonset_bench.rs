//! What DaemonSets cost at Kubernetes' scale: 5,000 nodes and three
//! DaemonSets (15,000 pods, each placed by the scheduler through its
//! metadata.name node affinity) under kube-scheduler's default profile; then
//! Deployments beside them, a quiet pass, and a node added.
//!
//! `cargo run --release -p shepherd --example daemonset_bench`

use std::time::Instant;

use shepherd::simulator::Prng;
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{Cluster, DaemonSetSpec, NodeSpec, PodTemplate, Profile, Resources};

fn main() {
    let mut rng = Prng::new(7);
    let w = generate(&mut rng, &WorkloadConfig::small(5000, 100));
    let mut c = Cluster::new();
    for n in &w.nodes {
        c.add_node(n.clone()).unwrap();
    }
    for (i, cpu) in [100u64, 50, 25].iter().enumerate() {
        c.create_daemonset(DaemonSetSpec::new(
            &format!("agent-{i}"),
            PodTemplate::new(Resources::new(*cpu, 64)).with_label("app", &format!("agent-{i}")),
        ))
        .unwrap();
    }
    let profile = Profile::kube_scheduler();
    let t = Instant::now();
    let fp = c.reconcile_to_fixed_point(&profile);
    println!(
        "3 DaemonSets on {} nodes: {} pods bound in {:.2?} ({} passes)",
        c.node_count(),
        c.bound_count(),
        t.elapsed(),
        fp.passes
    );
    for d in w.apps {
        c.deploy(d).unwrap();
    }
    let t = Instant::now();
    c.reconcile_to_fixed_point(&profile);
    println!(
        "then the Deployments: {} pods bound, {} pending, in {:.2?}",
        c.bound_count(),
        c.pending_count(),
        t.elapsed()
    );
    let t = Instant::now();
    c.reconcile_once(&profile);
    println!("a quiet pass: {:.2?}", t.elapsed());
    c.add_node(NodeSpec::new("extra.example.com", 8000, 16384))
        .unwrap();
    let t = Instant::now();
    c.reconcile_to_fixed_point(&profile);
    println!(
        "a node added (its three DaemonSet pods): {:.2?}",
        t.elapsed()
    );
}
