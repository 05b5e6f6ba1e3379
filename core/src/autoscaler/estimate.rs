//! Pods on a template node, and CA's binpacking estimate
//! (cluster-autoscaler/estimator/binpacking_estimator.go).
//!
//! Whether a pod may go on a group's template node at all is decided by
//! every filter of the profile on a snapshot ([`super::snapshot`]). The
//! binpacking here counts, per new node, cpu, memory and pod slots, with
//! required anti-affinity over `kubernetes.io/hostname` among the pods
//! packed onto one new node (a new node holds no other pod): the same
//! answer as every filter on the growing set of new nodes unless a pod
//! needs those filters ([`needs_filters`]), when the autoscaler runs
//! [`super::snapshot::binpack_filtered`] instead. The node-local
//! filters below ([`static_reason`]) serve the capacity questions and the
//! scale-down's moves (see docs/autoscaling.md).

use alloc::vec::Vec;

use crate::model::{NodeSpec, PodTemplate, HOSTNAME_KEY};
use crate::scheduler::plugins::{node_affinity, node_unschedulable, taint_toleration};
use crate::DaemonSetSpec;

/// cpu millis, memory bytes and pods of a node: its allocatable, or what is
/// left of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Room {
    pub cpu: u64,
    pub mem: u64,
    pub pods: u32,
}

impl Room {
    pub fn of(n: &NodeSpec) -> Room {
        Room {
            cpu: n.capacity.cpu_millis,
            mem: n.capacity.memory_bytes,
            pods: n.max_pods,
        }
    }

    /// What is left on a running node: its capacity less the requests bound
    /// there, and its pod slots less its pods.
    pub fn free_on(n: &crate::NodeView<'_>) -> Room {
        Room {
            cpu: n
                .spec
                .capacity
                .cpu_millis
                .saturating_sub(n.allocated.cpu_millis),
            mem: n
                .spec
                .capacity
                .memory_bytes
                .saturating_sub(n.allocated.memory_bytes),
            pods: n.spec.max_pods.saturating_sub(n.pod_count),
        }
    }

    /// Why `pod` does not fit in what is left, as NodeResourcesFit says it
    /// (the first of cpu, memory, pods).
    pub fn short(&self, pod: &PodTemplate) -> Option<&'static str> {
        if self.pods == 0 {
            Some(crate::scheduler::plugins::node_resources_fit::TOO_MANY_PODS)
        } else if pod.requests.cpu_millis > self.cpu {
            Some("Insufficient cpu")
        } else if pod.requests.memory_bytes > self.mem {
            Some("Insufficient memory")
        } else {
            None
        }
    }

    pub fn take(&mut self, pod: &PodTemplate) {
        self.cpu -= pod.requests.cpu_millis;
        self.mem -= pod.requests.memory_bytes;
        self.pods -= 1;
    }

    pub fn give(&mut self, pod: &PodTemplate) {
        self.cpu += pod.requests.cpu_millis;
        self.mem += pod.requests.memory_bytes;
        self.pods += 1;
    }
}

/// The filters that do not depend on other pods, as their reasons: `None`
/// when the pod passes them all on `node` (cordoned or not).
pub fn static_reason(node: &NodeSpec, cordoned: bool, pod: &PodTemplate) -> Option<&'static str> {
    if !node_unschedulable::filter(cordoned, &pod.tolerations) {
        return Some(node_unschedulable::REASON);
    }
    if taint_toleration::first_untolerated(&node.taints, &pod.tolerations).is_some() {
        return Some(taint_toleration::REASON);
    }
    if !node_affinity::filter(
        &node.name,
        &node.labels,
        &pod.node_selector,
        &pod.node_affinity,
    ) {
        return Some(node_affinity::REASON);
    }
    None
}

/// The reason InterPodAffinity gives for required anti-affinity over the
/// node's hostname.
pub const ANTI_AFFINITY_REASON: &str = "node(s) didn't match pod anti-affinity rules";

/// Whether `pod` refuses a node holding `others` (required anti-affinity
/// over the hostname, either way round, in one namespace).
pub fn anti_affine(pod: &PodTemplate, others: &[&PodTemplate]) -> bool {
    let refuses = |a: &PodTemplate, b: &PodTemplate| {
        a.anti_affinity
            .iter()
            .any(|t| t.topology_key == HOSTNAME_KEY && t.selector.matches(&b.labels))
    };
    others.iter().any(|o| refuses(pod, o) || refuses(o, pod))
}

/// A new node of a group as CA's template NodeInfo has it: the template,
/// with the DaemonSet pods that would land on it and the provider's
/// kube-proxy pod; `room` is what is left for other pods.
#[derive(Clone, Debug)]
pub struct TemplateNode {
    pub room: Room,
    /// The DaemonSets whose pods it would run.
    pub daemonsets: Vec<usize>,
}

/// The template NodeInfo of `node`: the DaemonSets whose pods pass the
/// filters on it (their templates with the controller's tolerations), and
/// the kube-proxy pod's 100m cpu.
pub fn template_node(node: &NodeSpec, daemonsets: &[&DaemonSetSpec]) -> TemplateNode {
    let mut room = Room::of(node);
    room.cpu = room
        .cpu
        .saturating_sub(super::nodegroup::KUBE_PROXY_CPU_MILLIS);
    room.pods = room.pods.saturating_sub(1);
    let mut on = Vec::new();
    for (i, d) in daemonsets.iter().enumerate() {
        let t = crate::daemon_tolerations(&d.template, d.host_network);
        if static_reason(node, false, &t).is_none() && room.short(&t).is_none() {
            room.take(&t);
            on.push(i);
        }
    }
    TemplateNode {
        room,
        daemonsets: on,
    }
}

/// Positions in `pods`, largest first by CA's score (cpu share plus memory
/// share of the template's allocatable, estimator/decreasing_pod_orderer.go);
/// equal scores keep the pending order.
pub fn largest_first(template: &NodeSpec, pods: &[(usize, &PodTemplate)]) -> Vec<usize> {
    let alloc = Room::of(template);
    let score = |p: &PodTemplate| -> u128 {
        let c = if alloc.cpu == 0 {
            0
        } else {
            p.requests.cpu_millis as u128 * 1_000_000 / alloc.cpu as u128
        };
        let m = if alloc.mem == 0 {
            0
        } else {
            p.requests.memory_bytes as u128 * 1_000_000 / alloc.mem as u128
        };
        c + m
    };
    let mut order: Vec<usize> = (0..pods.len()).collect();
    order.sort_by_key(|&k| core::cmp::Reverse(score(pods[k].1)));
    order
}

/// Whether the resource-only count of [`binpack`] may differ from the
/// profile's filters run on the new nodes with the pods already packed
/// there: only when a pod carries required pod affinity, required
/// anti-affinity over a key other than the hostname, a topology spread
/// constraint with DoNotSchedule, or a host port (the filters whose
/// verdict on a new node depends on the pods the estimate put on the new
/// nodes, InterPodAffinity, PodTopologySpread and NodePorts). Otherwise
/// NodeResourcesFit (cpu, memory, pods) and hostname anti-affinity among
/// the packed pods are the only verdicts that change as the nodes fill,
/// and [`binpack`] counts exactly those.
pub fn needs_filters<'a>(mut pods: impl Iterator<Item = &'a PodTemplate>) -> bool {
    pods.any(|p| {
        !p.affinity.is_empty()
            || !p.host_ports.is_empty()
            || p.anti_affinity
                .iter()
                .any(|t| t.topology_key != HOSTNAME_KEY)
            || p.topology_spread
                .iter()
                .any(|t| t.when_unsatisfiable == crate::model::WhenUnsatisfiable::DoNotSchedule)
    })
}

/// The binpacking estimate for one group: how many new nodes (at most
/// `max_nodes`) the pods need and which pods they take. Pods are taken
/// largest first by CA's score (cpu share plus memory share of the
/// template's allocatable, estimator/decreasing_pod_orderer.go); each goes
/// to the first new node it fits on, else to a new node while the limit
/// allows; a pod that fits no empty new node is left out.
pub fn binpack(
    template: &NodeSpec,
    base: &TemplateNode,
    pods: &[(usize, &PodTemplate)],
    max_nodes: u32,
) -> (u32, Vec<usize>) {
    let order: Vec<&(usize, &PodTemplate)> = largest_first(template, pods)
        .into_iter()
        .map(|k| &pods[k])
        .collect();
    // Per new node: what is left, and its pods when one of them carries
    // required anti-affinity (the only case another pod's presence
    // matters); `anti` says whether any does.
    struct New<'a> {
        room: Room,
        pods: Vec<&'a PodTemplate>,
        anti: bool,
    }
    let mut nodes: Vec<New> = Vec::new();
    let mut taken = Vec::new();
    // The pod before, when it had no anti-affinity, and the node it went
    // to (or `nodes.len()` when none took it): a pod like it (the same
    // requests and labels, no anti-affinity) fits none of the nodes before
    // that one either, since rooms only shrink and pods only join, so its
    // first fit starts there. The same answer as from the first node, for
    // a Deployment's replicas in one pass instead of one per node.
    let mut last: Option<(&PodTemplate, usize)> = None;
    for &&(i, p) in &order {
        if static_reason(template, false, p).is_some() {
            continue;
        }
        let own = !p.anti_affinity.is_empty();
        let from = match last {
            Some((q, at)) if !own && q.requests == p.requests && q.labels == p.labels => at,
            _ => 0,
        };
        let fits =
            |n: &New| n.room.short(p).is_none() && (!(own || n.anti) || !anti_affine(p, &n.pods));
        if let Some(k) = nodes[from..].iter().position(fits) {
            let n = &mut nodes[from + k];
            n.room.take(p);
            n.pods.push(p);
            n.anti |= own;
            taken.push(i);
            last = (!own).then_some((p, from + k));
            continue;
        }
        last = (!own).then_some((p, nodes.len()));
        if (nodes.len() as u32) < max_nodes && base.room.short(p).is_none() {
            let mut r = base.room;
            r.take(p);
            nodes.push(New {
                room: r,
                pods: alloc::vec![p],
                anti: own,
            });
            taken.push(i);
        }
    }
    taken.sort_unstable();
    (nodes.len() as u32, taken)
}
