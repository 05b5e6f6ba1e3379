//! Karpenter's view, as a preview (issue 46 item 3): a NodePool
//! (`karpenter.sh/v1`) whose requirements select among instance types given
//! as template nodes with prices, provisioning by first-fit-decreasing, and
//! consolidation candidates with the reason a node is Unconsolidatable.
//!
//! Provisioning (kubernetes-sigs/karpenter `pkg/controllers/provisioning/
//! scheduling`): the Pending pods, cpu then memory descending, each join the
//! first in-flight NodeClaim whose remaining instance types can all still
//! hold it with the pods it has, narrowing those types; else a new NodeClaim
//! with every type the pool's requirements and the pod's filters allow. Each
//! NodeClaim launches the cheapest type left.
//!
//! Consolidation (`pkg/controllers/disruption`): the pool's nodes, fewest
//! pods first (a stand-in for Karpenter's disruption cost); a node whose
//! pods a budget blocks is Unconsolidatable; **delete** when every pod fits
//! on the other nodes (the filters, first fit, nodes already chosen
//! excluded); **replace** when the pods that do not fit elsewhere fit one
//! node of a cheaper type; else Unconsolidatable ("can't replace with a
//! cheaper node").

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::estimate::{static_reason, template_node, Room};
use crate::affinity::{NodeSelectorRequirement, NodeSelectorTerm};
use crate::cluster::{Cluster, PodPhase, WorkloadKind};
use crate::model::{NodeSpec, PodTemplate};

/// The label Karpenter puts on the nodes of a NodePool.
pub const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";
/// The label that names a node's instance type.
pub const INSTANCE_TYPE_LABEL: &str = "node.kubernetes.io/instance-type";

/// An instance type: its node as launched, and its price per hour in
/// millionths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceType {
    pub name: String,
    pub node: NodeSpec,
    pub price_micros: u64,
}

/// A NodePool: `spec.template.spec.requirements` over the instance types'
/// labels, and `spec.limits.cpu`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodePool {
    pub name: String,
    pub requirements: Vec<NodeSelectorRequirement>,
    pub instance_types: Vec<InstanceType>,
    /// `spec.limits.cpu` in millis (`None`: no limit).
    pub limit_cpu_millis: Option<u64>,
}

impl NodePool {
    /// The instance types its requirements allow.
    pub fn allowed(&self) -> Vec<usize> {
        let term = NodeSelectorTerm {
            match_expressions: self.requirements.clone(),
            match_fields: Vec::new(),
        };
        (0..self.instance_types.len())
            .filter(|&i| {
                let n = &self.instance_types[i].node;
                self.requirements.is_empty() || term.matches(&n.name, &n.labels)
            })
            .collect()
    }
}

/// A node Karpenter would launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeClaim {
    pub instance_type: String,
    pub price_micros: u64,
    pub pods: Vec<String>,
}

/// What provisioning would launch, and the pods it cannot place with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provisioning {
    pub claims: Vec<NodeClaim>,
    pub unschedulable: Vec<(String, String)>,
}

/// First-fit-decreasing over the pool's instance types.
pub fn provision(c: &Cluster, pool: &NodePool) -> Provisioning {
    let ds: Vec<&crate::DaemonSetSpec> = c.daemonset_specs().collect();
    let allowed = pool.allowed();
    let bases: BTreeMap<usize, Room> = allowed
        .iter()
        .map(|&i| (i, template_node(&pool.instance_types[i].node, &ds).room))
        .collect();
    let mut pods: Vec<(String, &PodTemplate)> = c
        .pending_pods()
        .filter(|p| p.phase == PodPhase::Pending)
        .map(|p| (p.name(), p.template))
        .collect();
    pods.sort_by(|a, b| {
        (b.1.requests.cpu_millis, b.1.requests.memory_bytes)
            .cmp(&(a.1.requests.cpu_millis, a.1.requests.memory_bytes))
    });
    // Per claim: its pods, and per remaining type what is left on it.
    let mut claims: Vec<(Vec<String>, Vec<(usize, Room)>)> = Vec::new();
    let mut out = Provisioning::default();
    let mut cpu_used: u64 = 0;
    for (name, p) in pods {
        let admits = |i: usize, room: &Room| {
            static_reason(&pool.instance_types[i].node, false, p).is_none()
                && room.short(p).is_none()
        };
        if let Some(cl) = claims
            .iter_mut()
            .find(|cl| cl.1.iter().any(|(i, r)| admits(*i, r)))
        {
            cl.1.retain(|(i, r)| admits(*i, r));
            for (_, r) in cl.1.iter_mut() {
                r.take(p);
            }
            cl.0.push(name);
            continue;
        }
        let mut types: Vec<(usize, Room)> = bases
            .iter()
            .filter(|(i, r)| admits(**i, r))
            .map(|(i, r)| (*i, *r))
            .collect();
        if types.is_empty() {
            let why = if allowed.is_empty() {
                "no instance type meets the NodePool's requirements".to_string()
            } else {
                "incompatible with every instance type the NodePool allows (filters or size)"
                    .to_string()
            };
            out.unschedulable.push((name, why));
            continue;
        }
        // The limit counts the smallest type the claim could still be.
        let smallest = types
            .iter()
            .map(|(i, _)| pool.instance_types[*i].node.capacity.cpu_millis)
            .min()
            .unwrap_or(0);
        if pool
            .limit_cpu_millis
            .is_some_and(|l| cpu_used + smallest > l)
        {
            out.unschedulable.push((
                name,
                format!("NodePool {} would exceed its cpu limit", pool.name),
            ));
            continue;
        }
        cpu_used += smallest;
        for (_, r) in types.iter_mut() {
            r.take(p);
        }
        claims.push((alloc::vec![name], types));
    }
    for (pods, types) in claims {
        let best = types
            .iter()
            .map(|(i, _)| *i)
            .min_by_key(|&i| (pool.instance_types[i].price_micros, i));
        if let Some(i) = best {
            out.claims.push(NodeClaim {
                instance_type: pool.instance_types[i].name.clone(),
                price_micros: pool.instance_types[i].price_micros,
                pods,
            });
        }
    }
    out
}

/// What consolidation would do with one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consolidation {
    Delete,
    /// Replace with one node of this type, saving this much an hour.
    Replace {
        instance_type: String,
        saving_micros: u64,
    },
    /// Why not ("Unconsolidatable").
    Unconsolidatable(String),
}

/// Consolidation's verdict on each node of the pool, in its order.
pub fn consolidation(c: &Cluster, pool: &NodePool) -> Vec<(String, Consolidation)> {
    let price_of = |n: &NodeSpec| {
        n.labels
            .get(INSTANCE_TYPE_LABEL)
            .and_then(|t| pool.instance_types.iter().find(|it| &it.name == t))
            .map(|it| it.price_micros)
    };
    let mut dests: Vec<(crate::NodeId, Room, bool)> = c
        .nodes()
        .filter(|n| n.ready && !n.draining)
        .map(|n| (n.id, Room::free_on(&n), false))
        .collect();
    let mut candidates: Vec<(u32, crate::NodeId)> = c
        .nodes()
        .filter(|n| n.spec.labels.get(NODEPOOL_LABEL) == Some(&pool.name))
        .map(|n| (n.pod_count, n.id))
        .collect();
    candidates.sort();
    let ds: Vec<&crate::DaemonSetSpec> = c.daemonset_specs().collect();
    let mut out = Vec::new();
    for (_, id) in candidates {
        let Some(n) = c.node_by_id(id) else { continue };
        let name = n.spec.name.clone();
        let pods: Vec<(String, &PodTemplate, &str, &crate::Labels)> = c
            .pods_on(id)
            .filter(|p| p.kind != WorkloadKind::DaemonSet && p.phase == PodPhase::Running)
            .map(|p| (p.name(), p.template, p.app, &p.template.labels))
            .collect();
        // A budget that cannot lose these pods.
        let mut blocked = None;
        for (k, b) in &c.pdbs {
            let ns = crate::namespace::split(k).0;
            let hit = pods
                .iter()
                .filter(|(_, _, app, l)| {
                    crate::namespace::split(app).0 == ns && b.selector.matches(l)
                })
                .count() as u32;
            let allowed = c.pdb_status(k).map(|s| s.disruptions_allowed).unwrap_or(0);
            if hit > allowed {
                blocked = Some(format!("PodDisruptionBudget {k} prevents pod evictions"));
                break;
            }
        }
        if let Some(why) = blocked {
            out.push((name, Consolidation::Unconsolidatable(why)));
            continue;
        }
        let mut placed: Vec<(usize, &PodTemplate)> = Vec::new();
        let mut left: Vec<&PodTemplate> = Vec::new();
        for (_, t, _, _) in &pods {
            let spot = dests.iter().position(|(d, room, gone)| {
                *d != id
                    && !*gone
                    && room.short(t).is_none()
                    && c.node_by_id(*d)
                        .is_some_and(|dn| static_reason(dn.spec, dn.cordoned, t).is_none())
            });
            match spot {
                Some(j) => {
                    dests[j].1.take(t);
                    placed.push((j, t));
                }
                None => left.push(t),
            }
        }
        let me = dests.iter().position(|d| d.0 == id);
        if left.is_empty() {
            if let Some(j) = me {
                dests[j].2 = true;
            }
            out.push((name, Consolidation::Delete));
            continue;
        }
        // Replace: the pods left on one cheaper node.
        let current = price_of(n.spec);
        let cheaper = pool
            .allowed()
            .into_iter()
            .filter(|&i| current.is_some_and(|p| pool.instance_types[i].price_micros < p))
            .filter(|&i| {
                let it = &pool.instance_types[i];
                let mut room = template_node(&it.node, &ds).room;
                left.iter().all(|t| {
                    let ok = static_reason(&it.node, false, t).is_none() && room.short(t).is_none();
                    if ok {
                        room.take(t);
                    }
                    ok
                })
            })
            .min_by_key(|&i| (pool.instance_types[i].price_micros, i));
        match (cheaper, current) {
            (Some(i), Some(p)) => {
                if let Some(j) = me {
                    dests[j].2 = true;
                }
                out.push((
                    name,
                    Consolidation::Replace {
                        instance_type: pool.instance_types[i].name.clone(),
                        saving_micros: p - pool.instance_types[i].price_micros,
                    },
                ));
            }
            _ => {
                for (j, t) in placed {
                    dests[j].1.give(t);
                }
                out.push((
                    name,
                    Consolidation::Unconsolidatable(
                        "can't replace with a cheaper node".to_string(),
                    ),
                ));
            }
        }
    }
    out
}
