//! Which group nodes are unneeded, as Cluster Autoscaler decides it
//! (FAQ "How does scale-down work?", "What types of pods can prevent CA
//! from removing a node?"; core/scaledown/, simulator/drainability/rules/).
//!
//! A node is unneeded when
//! - its utilisation (the sum of its pods' requests over its allocatable,
//!   the larger of cpu and memory, DaemonSet pods counted) is under
//!   `--scale-down-utilization-threshold`;
//! - its group stays at or above its min size without it;
//! - every pod on it that must move can: none is blocked by
//!   `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`, none is a
//!   bare Pod, none is a kube-system pod without a PodDisruptionBudget,
//!   none mounts local storage (each unless `safe-to-evict: "true"`), no
//!   budget would be broken, and each fits another node (the filters only,
//!   first fit, nodes already found unneeded excluded and the pods moved
//!   so far counted). DaemonSet pods and expendable pods do not move.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::estimate::{static_reason, Room};
use super::Autoscaler;
use crate::cluster::{Cluster, NodeId, PodPhase, WorkloadKind};

/// Why a group node is not unneeded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// Not Ready: CA leaves it to `--scale-down-unready-time`.
    NotReady,
    /// Utilisation at or above the threshold, in thousandths.
    NotUnderutilized(u32),
    /// Its group would go under its min size.
    MinSize,
    /// A pod with `safe-to-evict: "false"`.
    NotSafeToEvict(String),
    /// A pod with no controller.
    NotReplicated(String),
    /// A kube-system pod without a PodDisruptionBudget.
    UnmovableKubeSystemPod(String),
    /// A pod with local storage.
    LocalStorageRequested(String),
    /// A pod whose PodDisruptionBudget allows too few disruptions.
    NotEnoughPdb(String, String),
    /// A pod that fits no other node.
    NoPlaceToMovePods(String),
}

impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocker::NotReady => f.write_str("NotReady: the node is not Ready"),
            Blocker::NotUnderutilized(u) => write!(
                f,
                "NotUnderutilized: utilization {}.{}% is not under the threshold",
                u / 10,
                u % 10
            ),
            Blocker::MinSize => f.write_str("NodeGroupMinSizeReached: the group is at its min size"),
            Blocker::NotSafeToEvict(p) => write!(
                f,
                "NotSafeToEvictAnnotation: pod {p} has cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\""
            ),
            Blocker::NotReplicated(p) => write!(f, "NotReplicated: pod {p} has no controller"),
            Blocker::UnmovableKubeSystemPod(p) => write!(
                f,
                "UnmovableKubeSystemPod: pod {p} is in kube-system without a PodDisruptionBudget"
            ),
            Blocker::LocalStorageRequested(p) => {
                write!(f, "LocalStorageRequested: pod {p} has local storage")
            }
            Blocker::NotEnoughPdb(p, b) => write!(
                f,
                "NotEnoughPdb: PodDisruptionBudget {b} allows too few disruptions for pod {p}"
            ),
            Blocker::NoPlaceToMovePods(p) => {
                write!(f, "NoPlaceToMovePods: pod {p} fits no other node")
            }
        }
    }
}

/// One group node's verdict at a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    pub node: String,
    pub group: usize,
    /// Utilisation in thousandths (the larger of cpu and memory).
    pub utilization_permille: u32,
    /// `None`: unneeded.
    pub blocker: Option<Blocker>,
    /// The pods that would move (empty for an empty node).
    pub to_move: Vec<String>,
}

/// A node pods may move to.
struct Dest {
    id: NodeId,
    room: Room,
    excluded: bool,
}

/// The verdict on every group node, in node order.
pub fn verdicts(a: &Autoscaler, c: &Cluster) -> Vec<NodeVerdict> {
    let cfg = &a.config;
    let o = &cfg.options;
    let mut sizes = a.sizes(c);
    let mut dests: Vec<Dest> = Vec::new();
    let mut at: BTreeMap<NodeId, usize> = BTreeMap::new();
    for n in c.nodes() {
        if !n.ready || n.draining {
            continue;
        }
        at.insert(n.id, dests.len());
        dests.push(Dest {
            id: n.id,
            room: Room::free_on(&n),
            excluded: false,
        });
    }
    let mut out = Vec::new();
    for (id, g) in super::group_nodes(a, c) {
        let Some(n) = c.node_by_id(id) else { continue };
        let mut v = NodeVerdict {
            node: n.spec.name.clone(),
            group: g,
            utilization_permille: 0,
            blocker: None,
            to_move: Vec::new(),
        };
        let cap = n.spec.capacity;
        let share = |used: u64, cap: u64| -> u64 {
            if cap == 0 {
                0
            } else {
                (used as u128 * 1000 / cap as u128) as u64
            }
        };
        v.utilization_permille = share(n.allocated.cpu_millis, cap.cpu_millis)
            .max(share(n.allocated.memory_bytes, cap.memory_bytes))
            as u32;
        let th = o.scale_down_utilization_threshold_permille as u128;
        let under = |used: u64, cap: u64| (used as u128) * 1000 < th * cap as u128;
        if !n.ready {
            v.blocker = Some(Blocker::NotReady);
        } else if !(under(n.allocated.cpu_millis, cap.cpu_millis)
            && under(n.allocated.memory_bytes, cap.memory_bytes))
        {
            v.blocker = Some(Blocker::NotUnderutilized(v.utilization_permille));
        } else if sizes[g] <= cfg.groups[g].min_size {
            v.blocker = Some(Blocker::MinSize);
        } else {
            match movable(a, c, id) {
                Err(b) => v.blocker = Some(b),
                Ok(pods) => {
                    // Try every pod elsewhere; undo if one does not fit.
                    let mut placed: Vec<(usize, &crate::PodTemplate)> = Vec::new();
                    let mut failed = None;
                    for (name, t) in &pods {
                        let spot = dests.iter().position(|d| {
                            d.id != id
                                && !d.excluded
                                && c.node_by_id(d.id).is_some_and(|dn| {
                                    static_reason(dn.spec, dn.cordoned, t).is_none()
                                })
                                && d.room.short(t).is_none()
                        });
                        match spot {
                            Some(i) => {
                                dests[i].room.take(t);
                                placed.push((i, t));
                            }
                            None => {
                                failed = Some(name.clone());
                                break;
                            }
                        }
                    }
                    if let Some(p) = failed {
                        for (i, t) in placed {
                            dests[i].room.give(t);
                        }
                        v.blocker = Some(Blocker::NoPlaceToMovePods(p));
                    } else {
                        v.to_move = pods.iter().map(|(n, _)| n.clone()).collect();
                        if let Some(&i) = at.get(&id) {
                            dests[i].excluded = true;
                        }
                        sizes[g] -= 1;
                    }
                }
            }
        }
        out.push(v);
    }
    out
}

/// The pods that must move off node `id`, or what blocks it.
fn movable<'c>(
    a: &Autoscaler,
    c: &'c Cluster,
    id: NodeId,
) -> Result<Vec<(String, &'c crate::PodTemplate)>, Blocker> {
    let cfg = &a.config;
    let o = &cfg.options;
    let mut out = Vec::new();
    // Per budget, the pods on this node it covers.
    let mut per_pdb: BTreeMap<&str, (u32, String)> = BTreeMap::new();
    for p in c.pods_on(id) {
        if p.kind == WorkloadKind::DaemonSet || p.phase != PodPhase::Running {
            continue;
        }
        if p.priority < o.expendable_pods_priority_cutoff {
            continue;
        }
        let name = p.name();
        let owner = p.app;
        let (ns, _) = crate::namespace::split(owner);
        let pdbs: Vec<&str> = c
            .pdbs
            .iter()
            .filter(|(k, b)| {
                crate::namespace::split(k).0 == ns && b.selector.matches(&p.template.labels)
            })
            .map(|(k, _)| k.as_str())
            .collect();
        let safe = cfg.safe_to_evict.contains(owner);
        if cfg.not_safe_to_evict.contains(owner) {
            return Err(Blocker::NotSafeToEvict(name));
        }
        if !safe {
            if p.kind == WorkloadKind::Pod {
                return Err(Blocker::NotReplicated(name));
            }
            if o.skip_nodes_with_system_pods && ns == "kube-system" && pdbs.is_empty() {
                return Err(Blocker::UnmovableKubeSystemPod(name));
            }
            if o.skip_nodes_with_local_storage && cfg.local_storage.contains(owner) {
                return Err(Blocker::LocalStorageRequested(name));
            }
        }
        for b in pdbs {
            let e = per_pdb.entry(b).or_insert((0, name.clone()));
            e.0 += 1;
        }
        out.push((name, p.template));
    }
    for (b, (n, pod)) in per_pdb {
        let allowed = c.pdb_status(b).map(|s| s.disruptions_allowed).unwrap_or(0);
        if n > allowed {
            return Err(Blocker::NotEnoughPdb(pod, b.to_string()));
        }
    }
    Ok(out)
}

/// `"12.5%"` from thousandths.
pub fn permille_text(p: u32) -> String {
    format!("{}.{}%", p / 10, p % 10)
}
