//! A random cluster from a seed: nodes of a few realistic shapes across three
//! zones, and Deployments of varied sizes, optionally with constraints.

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use crate::model::{
    AffinityTerm, DeploymentSpec, NodeSpec, Selector, Taint, TaintEffect, Toleration,
};
use crate::quantity::MIB;
use crate::simulator::Prng;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkloadConfig {
    pub nodes: u32,
    pub apps: u32,
    /// Replicas per app are drawn from this range.
    pub min_replicas: u32,
    pub max_replicas: u32,
    /// nodeSelectors, taints with tolerations, and anti-affinity.
    pub constraints: bool,
}

impl WorkloadConfig {
    /// A small cluster, as `converge` builds by default.
    pub fn small(nodes: u32, apps: u32) -> Self {
        WorkloadConfig {
            nodes,
            apps,
            min_replicas: 1,
            max_replicas: 8,
            constraints: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    pub nodes: Vec<NodeSpec>,
    pub apps: Vec<DeploymentSpec>,
}

pub const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];

/// Node shapes: (cpu millicores, memory MiB).
const SHAPES: [(u64, u64); 4] = [
    (4000, 16384),
    (8000, 32768),
    (16000, 65536),
    (32000, 131072),
];

/// Builds a workload from `rng`. The same generator state gives the same workload.
pub fn generate(rng: &mut Prng, cfg: &WorkloadConfig) -> Workload {
    let mut nodes = Vec::with_capacity(cfg.nodes as usize);
    for i in 0..cfg.nodes {
        let (cpu, mem) = *rng.pick(&SHAPES);
        let mut n = NodeSpec::new(&format!("node-{}", i + 1), cpu, mem * MIB).with_label(
            "topology.kubernetes.io/zone",
            ZONES[i as usize % ZONES.len()],
        );
        if rng.chance(40) {
            n = n.with_label("disktype", "ssd");
        }
        if cfg.constraints && rng.chance(10) {
            n = n
                .with_taint(Taint::new("dedicated", "gpu", TaintEffect::NoSchedule))
                .with_label("accelerator", "gpu");
        }
        if cfg.constraints && rng.chance(5) {
            n = n.with_taint(Taint::new("spot", "true", TaintEffect::PreferNoSchedule));
        }
        nodes.push(n);
    }
    let mut apps = Vec::with_capacity(cfg.apps as usize);
    const NAMES: [&str; 8] = [
        "web", "api", "cache", "worker", "db", "queue", "search", "auth",
    ];
    for i in 0..cfg.apps {
        let base = NAMES[i as usize % NAMES.len()];
        let name = if (i as usize) < NAMES.len() {
            base.to_string()
        } else {
            format!("{base}-{}", i as usize / NAMES.len())
        };
        let replicas = rng.range(cfg.min_replicas as u64, cfg.max_replicas as u64) as u32;
        let cpu = rng.range(1, 8) * 125;
        let mem = rng.range(1, 8) * 256;
        let mut d = DeploymentSpec::new(
            &name,
            replicas,
            crate::model::Resources::new(cpu, mem * MIB),
        );
        if cfg.constraints {
            match rng.below(6) {
                0 => d.template = d.template.with_node_selector("disktype", "ssd"),
                1 => {
                    d.template = d
                        .template
                        .with_toleration(Toleration::equal(
                            "dedicated",
                            "gpu",
                            Some(TaintEffect::NoSchedule),
                        ))
                        .with_node_selector("accelerator", "gpu")
                }
                2 => {
                    d.template = d.template.with_anti_affinity(AffinityTerm::new(
                        Selector::new(&[("app", &name)]),
                        None,
                    ))
                }
                3 => {
                    d.template = d.template.with_anti_affinity(AffinityTerm::new(
                        Selector::new(&[("app", &name)]),
                        Some("topology.kubernetes.io/zone"),
                    ))
                }
                _ => {}
            }
        }
        apps.push(d);
    }
    Workload { nodes, apps }
}
