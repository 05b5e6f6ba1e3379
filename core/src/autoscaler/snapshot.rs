//! The template-node check, as Cluster Autoscaler makes it: for each group,
//! a snapshot of the cluster with one template node added (the group's
//! template as the provider gives it, with the DaemonSet pods a new node
//! would run and the provider's kube-proxy pod), and on it every filter of
//! the scheduler profile for one sample pod of each class of Pending pods
//! (kubernetes/autoscaler cluster-autoscaler/core/scaleup/orchestrator/
//! orchestrator.go, `SchedulablePodGroups`: `ClusterSnapshot.Fork`,
//! `AddNodeInfo`, then `CheckPredicates` of each equivalence group's first
//! pod; simulator/clustersnapshot/predicate/plugin_runner.go runs the
//! framework's PreFilter and Filter plugins). So inter-pod (anti-)affinity
//! against the pods already running, topology spread over the cluster's
//! domains with the template's added, host ports and taints all count.
//!
//! The snapshot is a copy of the cluster: the template node is added to the
//! copy, its DaemonSet pods are bound there, the filters run through
//! [`Cluster::filter_verdicts`], and the node is removed before the next
//! group's. The kube-proxy pod (100m cpu, one pod slot) is represented by
//! the node's allocatable less those (the same for every filter but
//! InterPodAffinity and PodTopologySpread, which no kube-proxy pod's
//! labels are expected to meet).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::estimate::TemplateNode;
use super::nodegroup::{NodeGroup, KUBE_PROXY_CPU_MILLIS};
use crate::cluster::{Cluster, NodeId, OwnerId, Workload};
use crate::model::{NodeSpec, HOSTNAME_KEY};
use crate::scheduler::Profile;

/// Why a pod does not fit a group's template node: the filter plugin that
/// rejected it and its reasons, as the scheduler words them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub plugin: &'static str,
    pub reasons: Vec<String>,
}

impl Rejection {
    /// The first reason, or the plugin's name when it gave none.
    pub fn first(&self) -> &str {
        self.reasons.first().map_or(self.plugin, |r| r.as_str())
    }
}

/// The name CA gives a group's template node
/// (simulator/node_info_utils.go: `template-node-for-<group>-<suffix>`;
/// the suffix here is fixed, the snapshot being a copy).
pub fn template_node_name(group: &str) -> String {
    format!("template-node-for-{group}")
}

/// The template node of `g` as the snapshot holds it, named `name`: the
/// hostname label (when the template has one) is the node's name, as CA's
/// sanitizing sets it; the kube-proxy pod's cpu and slot are taken off.
pub fn snapshot_node(g: &NodeGroup, name: &str) -> NodeSpec {
    let mut spec = g.template.clone();
    spec.name = name.to_string();
    if spec.labels.contains_key(HOSTNAME_KEY) {
        spec.labels
            .insert(HOSTNAME_KEY.to_string(), name.to_string());
    }
    spec.capacity.cpu_millis = spec
        .capacity
        .cpu_millis
        .saturating_sub(KUBE_PROXY_CPU_MILLIS);
    spec.max_pods = spec.max_pods.saturating_sub(1);
    spec
}

/// The live DaemonSets' owner ids, in creation order (the order of
/// [`Cluster::daemonset_specs`], which [`TemplateNode::daemonsets`] indexes).
fn daemonset_owners(c: &Cluster) -> Vec<OwnerId> {
    c.controllers
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.deleted && matches!(o.workload, Workload::DaemonSet(_)))
        .map(|(i, _)| OwnerId(i as u32))
        .collect()
}

/// `verdicts[s][g]`: every filter of `profile` for the Pending pod
/// `samples[s]` on group `g`'s template node (`None`: it fits), each group
/// in a snapshot of its own. A group whose template node cannot be added
/// (its name taken by a live node, the node limit) rejects every pod with
/// the reason why.
pub fn check_templates(
    c: &Cluster,
    groups: &[NodeGroup],
    templates: &[TemplateNode],
    samples: &[&str],
    profile: &Profile,
) -> Vec<Vec<Option<Rejection>>> {
    let mut out: Vec<Vec<Option<Rejection>>> =
        alloc::vec![Vec::with_capacity(groups.len()); samples.len()];
    if samples.is_empty() || groups.is_empty() {
        return out;
    }
    let mut work = c.clone();
    let owners = daemonset_owners(&work);
    for (gi, g) in groups.iter().enumerate() {
        let mut name = template_node_name(&g.name);
        let mut k = 1;
        while work.node(&name).is_ok() {
            k += 1;
            name = format!("{}-{k}", template_node_name(&g.name));
        }
        let n: NodeId = match work.add_node(snapshot_node(g, &name)) {
            Ok(n) => n,
            Err(e) => {
                let r = Rejection {
                    plugin: "",
                    reasons: alloc::vec![format!("template node not added: {e}")],
                };
                for row in out.iter_mut() {
                    row.push(Some(r.clone()));
                }
                continue;
            }
        };
        for &d in &templates[gi].daemonsets {
            let Some(&id) = owners.get(d) else { continue };
            let r = work.daemon_revision(id, n);
            let k = work.create_pod_of_revision(id, r);
            work.bind(k, n);
        }
        for (s, pod) in samples.iter().enumerate() {
            let v = work
                .filter_verdicts(pod, &[n], profile)
                .ok()
                .and_then(|mut v| v.pop());
            out[s].push(match v {
                Some(v) if v.feasible => None,
                Some(v) => Some(Rejection {
                    plugin: v.plugin.unwrap_or(""),
                    reasons: v.reasons,
                }),
                None => Some(Rejection {
                    plugin: "",
                    reasons: alloc::vec![format!("pod {pod} not found")],
                }),
            });
        }
        let _ = work.remove_node(&name);
    }
    out
}

/// The binpacking estimate with every filter of `profile`, as CA's
/// `BinpackingNodeEstimator` makes it (estimator/binpacking_estimator.go):
/// on a copy of the cluster, new template nodes of `g` are added one at a
/// time (each with its DaemonSet pods), and each Pending pod, largest
/// first ([`super::estimate::largest_first`]), is filtered on the new
/// nodes holding the pods placed so far and bound to the first that
/// passes (`tryToScheduleOnExistingNodes`, `SchedulePodOnAnyNodeMatching`
/// over the new nodes); else, while `max_nodes` allows, a new node is added
/// and the pod filtered on it (`tryToScheduleOnNewNodes`). A pod that an
/// empty new node rejects is left out, and so are the later pods of its
/// class (CA stops the equivalence group there: a pod like it would not
/// pass on one more node either). `pods`: (index, class, name, template)
/// of each pod the template check admitted. Used when
/// [`super::estimate::needs_filters`] says the resource-only count may
/// differ; returns the nodes and the indices of the pods taken, sorted.
pub fn binpack_filtered(
    c: &Cluster,
    g: &NodeGroup,
    base: &TemplateNode,
    pods: &[(usize, usize, &str, &crate::model::PodTemplate)],
    max_nodes: u32,
    profile: &Profile,
) -> (u32, Vec<usize>) {
    use super::estimate::{anti_affine, largest_first, needs_filters, static_reason, Room};
    let mut taken = Vec::new();
    if pods.is_empty() || max_nodes == 0 {
        return (0, taken);
    }
    let shaped: Vec<(usize, &crate::model::PodTemplate)> =
        pods.iter().map(|p| (p.0, p.3)).collect();
    let order = largest_first(&g.template, &shaped);
    let mut work = c.clone();
    let owners = daemonset_owners(&work);
    let mut new: Vec<NodeId> = Vec::new();
    // Per new node: what is left and its pods, for the pods that need no
    // filter of their own. Such a pod (no pod affinity, no spread, no
    // host port, anti-affinity over the hostname at most) is refused by
    // the pods already there only through room or hostname anti-affinity,
    // unless some pod's anti-affinity over another key refuses it back:
    // then every pod is filtered.
    let mut rooms: Vec<(Room, Vec<&crate::model::PodTemplate>)> = Vec::new();
    let zonal_anti = pods.iter().any(|p| {
        p.3.anti_affinity
            .iter()
            .any(|t| t.topology_key != crate::model::HOSTNAME_KEY)
    });
    let mut given_up: alloc::collections::BTreeSet<usize> = alloc::collections::BTreeSet::new();
    let mut serial = 0u32;
    for k in order {
        let (i, class, name, p) = pods[k];
        if given_up.contains(&class) || static_reason(&g.template, false, p).is_some() {
            continue;
        }
        let Ok(key) = work.pod_key(name) else {
            continue;
        };
        let plain = !zonal_anti && !needs_filters(core::iter::once(p));
        if !new.is_empty() {
            let fit = if plain {
                rooms
                    .iter()
                    .position(|(r, on)| r.short(p).is_none() && !anti_affine(p, on))
            } else {
                work.filter_verdicts(name, &new, profile)
                    .ok()
                    .and_then(|v| v.iter().position(|v| v.feasible))
            };
            if let Some(at) = fit {
                work.bind(key, new[at]);
                rooms[at].0.take(p);
                rooms[at].1.push(p);
                taken.push(i);
                continue;
            }
        }
        if new.len() as u32 >= max_nodes || base.room.short(p).is_some() {
            continue;
        }
        // A fresh name, unused in the copy.
        let node_name = loop {
            serial += 1;
            let n = format!("{}-estimate-{serial}", template_node_name(&g.name));
            if work.node(&n).is_err() {
                break n;
            }
        };
        let Ok(n) = work.add_node(snapshot_node(g, &node_name)) else {
            given_up.insert(class);
            continue;
        };
        for &d in &base.daemonsets {
            let Some(&id) = owners.get(d) else { continue };
            let r = work.daemon_revision(id, n);
            let dk = work.create_pod_of_revision(id, r);
            work.bind(dk, n);
        }
        // A plain pod passed the template check, and an empty new node is
        // the template node: it fits (room checked above).
        let fits = plain
            || work
                .filter_verdicts(name, &[n], profile)
                .ok()
                .and_then(|mut v| v.pop())
                .is_some_and(|v| v.feasible);
        if fits {
            work.bind(key, n);
            new.push(n);
            let mut r = base.room;
            r.take(p);
            rooms.push((r, alloc::vec![p]));
            taken.push(i);
        } else {
            let _ = work.remove_node(&node_name);
            given_up.insert(class);
        }
    }
    taken.sort_unstable();
    (new.len() as u32, taken)
}
