//! What DaemonSets cost at Kubernetes' scale: 5,000 nodes and three
//! DaemonSets (15,000 pods, each placed by the scheduler through its
//! metadata.name node affinity) under kube-scheduler's default profile; then
//! Deployments beside them, a quiet pass, and a node added; then 5,000 full
//! nodes where a DaemonSet at priority 0 fits on none (5,000 FailedScheduling
//! messages), and a system-node-critical DaemonSet preempts one pod on each.
//!
//! `cargo run --release -p shepherd --example daemonset_bench`

use std::time::Instant;

use shepherd::quantity::MIB;
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
            PodTemplate::new(Resources::new(*cpu, 64 * MIB))
                .with_label("app", &format!("agent-{i}")),
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
    c.add_node(NodeSpec::new("extra.example.com", 8000, 16384 * MIB))
        .unwrap();
    let t = Instant::now();
    c.reconcile_to_fixed_point(&profile);
    println!(
        "a node added (its three DaemonSet pods): {:.2?}",
        t.elapsed()
    );
    // A full cluster: 5,000 4-CPU nodes, each running four 1-CPU pods of
    // priority 0; then a node agent at system-node-critical: its pod on each
    // node preempts one of them (DefaultPreemption, its pinned node the only
    // candidate), and the 5,000 replacements stay Pending.
    let mut c = Cluster::new();
    for i in 0..5000 {
        c.add_node(NodeSpec::new(&format!("node-{i}"), 4000, 16384 * MIB))
            .unwrap();
    }
    c.deploy(shepherd::DeploymentSpec::new(
        "batch",
        20_000,
        Resources::new(1000, 256 * MIB),
    ))
    .unwrap();
    c.reconcile_to_fixed_point(&profile);
    // A node agent at priority 0 fits on none of them: 5,000 FailedScheduling
    // messages, each counting every node's reason.
    c.create_daemonset(DaemonSetSpec::new(
        "blocked-agent",
        PodTemplate::new(Resources::new(500, 128 * MIB)).with_label("app", "blocked-agent"),
    ))
    .unwrap();
    let t = Instant::now();
    c.reconcile_to_fixed_point(&profile);
    println!(
        "a DaemonSet that fits on none of 5000 full nodes: {} pending, in {:.2?}",
        c.pending_count(),
        t.elapsed()
    );
    c.delete_daemonset("blocked-agent").unwrap();
    c.reconcile_to_fixed_point(&profile);
    c.create_daemonset(DaemonSetSpec::new(
        "critical-agent",
        PodTemplate::new(Resources::new(500, 128 * MIB))
            .with_label("app", "critical-agent")
            .with_priority_class("system-node-critical"),
    ))
    .unwrap();
    let t = Instant::now();
    let fp = c.reconcile_to_fixed_point(&profile);
    println!(
        "a system-node-critical DaemonSet on 5000 full nodes: {} pods preempted, {} pending, in {:.2?} ({} passes)",
        fp.total.preempted,
        c.pending_count(),
        t.elapsed(),
        fp.passes
    );
}
