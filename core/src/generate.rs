//! A random cluster from a seed: nodes of a few realistic shapes across three
//! zones, and Deployments of varied sizes, optionally with constraints.

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use crate::model::quantity::MIB;
use crate::model::{
    AffinityTerm, DeploymentSpec, NodeSpec, Resources, Selector, Taint, TaintEffect, Toleration,
};
use crate::util::prng::Prng;

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

/// The bench's cluster (`shepherd bench`, the 5,000-node / 150,000-pod
/// envelope): `nodes` equal nodes of 16 CPUs and 64 GiB over three zones,
/// half labelled `disktype=ssd`, and `pods` replicas shared by `apps`
/// Deployments; `constrained` adds a tainted tenth of the nodes and, in turn,
/// a nodeSelector, a toleration and a hostname anti-affinity.
pub fn envelope(
    seed: u64,
    nodes: u32,
    pods: u32,
    apps: u32,
    constrained: bool,
) -> (Vec<NodeSpec>, Vec<DeploymentSpec>) {
    let mut rng = Prng::new(seed);
    let zones = ZONES;
    let mut ns = Vec::with_capacity(nodes as usize);
    for i in 0..nodes {
        let mut n = NodeSpec::new(&format!("node-{}", i + 1), 16000, 65536 * MIB)
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
            Resources::new(rng.range(1, 4) * 100, (rng.range(1, 4) * 256) * MIB),
        );
        if constrained {
            match i % 4 {
                0 => d.template = d.template.with_node_selector("disktype", "ssd"),
                1 => {
                    d.template = d.template.with_toleration(Toleration::equal(
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

/// The realistic mix of issue 9: `apps` Deployments whose sizes follow a
/// Zipf law over 1 to 200 replicas (P(size) proportional to size^-s, with s
/// chosen so the mean is `pods / apps`), a quarter of them constrained in
/// turn by required node affinity (matchExpressions), preferred node
/// affinity, a zone spread that must hold (DoNotSchedule, maxSkew 1), and a
/// hostname spread that is preferred (ScheduleAnyway).
#[cfg(feature = "std")]
pub fn zipf(seed: u64, nodes: u32, pods: u32, apps: u32) -> (Vec<NodeSpec>, Vec<DeploymentSpec>) {
    use crate::model::{
        NodeAffinity, NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm,
        PreferredSchedulingTerm, TopologySpreadConstraint, WhenUnsatisfiable,
    };
    let (ns, _) = envelope(seed, nodes, 1, 1, false);
    let mut rng = Prng::new(seed ^ 0x5a1f);
    let mean_wanted = (pods as f64 / apps.max(1) as f64).clamp(1.0, 200.0);
    let mean_of = |s: f64| {
        let (mut num, mut den) = (0.0, 0.0);
        for v in 1..=200 {
            let w = (v as f64).powf(-s);
            num += v as f64 * w;
            den += w;
        }
        num / den
    };
    let (mut lo, mut hi) = (-3.0f64, 6.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if mean_of(mid) > mean_wanted {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = (lo + hi) / 2.0;
    let weights: Vec<f64> = (1..=200).map(|v| (v as f64).powf(-s)).collect();
    let total: f64 = weights.iter().sum();
    let ssd = || NodeSelectorTerm {
        match_expressions: vec![NodeSelectorRequirement::new(
            "disktype",
            NodeSelectorOperator::In,
            &["ssd"],
        )],
        match_fields: Vec::new(),
    };
    let mut ds = Vec::with_capacity(apps as usize);
    for i in 0..apps {
        let mut x = rng.below(1 << 53) as f64 / (1u64 << 53) as f64 * total;
        let mut size = 200;
        for (v, w) in weights.iter().enumerate() {
            if x < *w {
                size = v as u32 + 1;
                break;
            }
            x -= w;
        }
        let name = format!("app-{}", i + 1);
        let mut d = DeploymentSpec::new(
            &name,
            size,
            Resources::new(rng.range(1, 4) * 100, (rng.range(1, 4) * 256) * MIB),
        );
        let me = Selector::new(&[("app", &name)]);
        if i % 4 == 0 {
            d.template = match (i / 4) % 4 {
                0 => d.template.with_node_affinity(NodeAffinity {
                    required: Some(vec![ssd()]),
                    preferred: Vec::new(),
                }),
                1 => d.template.with_node_affinity(NodeAffinity {
                    required: None,
                    preferred: vec![PreferredSchedulingTerm {
                        weight: 50,
                        preference: ssd(),
                    }],
                }),
                2 => d
                    .template
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1,
                        "topology.kubernetes.io/zone",
                        WhenUnsatisfiable::DoNotSchedule,
                        me,
                    )),
                _ => d
                    .template
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1,
                        "kubernetes.io/hostname",
                        WhenUnsatisfiable::ScheduleAnyway,
                        me,
                    )),
            };
        }
        ds.push(d);
    }
    (ns, ds)
}
