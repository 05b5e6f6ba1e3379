//! Capacity questions answered on the cluster as it is, with the same
//! filters as the autoscaler's (see [`super::estimate`]):
//!
//! - [`fewest_nodes`]: the fewest nodes of one template that take every
//!   Pending pod (open-simulator's question, computed);
//! - [`replicas_that_fit`]: how many more pods of a template fit the nodes
//!   as they are (cluster-capacity's question);
//! - [`removable_nodes`]: which nodes could go with every pod still placed
//!   (cluster compression).

use alloc::string::String;
use alloc::vec::Vec;

use super::estimate::{binpack, static_reason, template_node, Room};
use crate::cluster::{Cluster, PodPhase, WorkloadKind};
use crate::model::{NodeSpec, PodTemplate};

/// The fewest nodes like `template` (with the DaemonSet pods each would
/// run) that take the Pending pods, by CA's binpacking; and the pods no
/// such node can take.
pub fn fewest_nodes(c: &Cluster, template: &NodeSpec) -> (u32, Vec<String>) {
    let ds: Vec<&crate::DaemonSetSpec> = c.daemonset_specs().collect();
    let base = template_node(template, &ds);
    let pods: Vec<(String, &PodTemplate)> = c
        .pending_pods()
        .filter(|p| p.phase == PodPhase::Pending)
        .map(|p| (p.name(), p.template))
        .collect();
    let list: Vec<(usize, &PodTemplate)> = pods.iter().enumerate().map(|(i, p)| (i, p.1)).collect();
    let (n, taken) = binpack(template, &base, &list, u32::MAX);
    let left = (0..pods.len())
        .filter(|i| taken.binary_search(i).is_err())
        .map(|i| pods[i].0.clone())
        .collect();
    (n, left)
}

/// How many more pods of `pod` fit the Ready, schedulable nodes as they
/// are: per node, the smallest of free cpu, free memory and free pod slots
/// over the pod's requests, summed over the nodes the filters admit it to.
pub fn replicas_that_fit(c: &Cluster, pod: &PodTemplate) -> u64 {
    let mut total = 0u64;
    for n in c.nodes() {
        if !n.ready || n.draining || static_reason(n.spec, n.cordoned, pod).is_some() {
            continue;
        }
        let free_cpu = n
            .spec
            .capacity
            .cpu_millis
            .saturating_sub(n.allocated.cpu_millis);
        let free_mem = n
            .spec
            .capacity
            .memory_bytes
            .saturating_sub(n.allocated.memory_bytes);
        let mut k = n.spec.max_pods.saturating_sub(n.pod_count) as u64;
        // A request of zero does not bound the count.
        if let Some(q) = free_cpu.checked_div(pod.requests.cpu_millis) {
            k = k.min(q);
        }
        if let Some(q) = free_mem.checked_div(pod.requests.memory_bytes) {
            k = k.min(q);
        }
        total += k;
    }
    total
}

/// Nodes that could be removed with every pod still placed: least used
/// first, a node goes when each of its pods (DaemonSet pods go with it)
/// fits, by the filters, on a node that stays, counting the pods moved
/// there so far. Greedy: one answer, not always the largest set.
pub fn removable_nodes(c: &Cluster) -> Vec<String> {
    let mut nodes: Vec<(u64, crate::NodeId, Room)> = c
        .nodes()
        .filter(|n| n.ready && !n.draining)
        .map(|n| {
            let cap = n.spec.capacity;
            let share = |u: u64, t: u64| (u * 1000).checked_div(t).unwrap_or(0);
            let used = share(n.allocated.cpu_millis, cap.cpu_millis)
                .max(share(n.allocated.memory_bytes, cap.memory_bytes));
            let room = Room::free_on(&n);
            (used, n.id, room)
        })
        .collect();
    nodes.sort_by_key(|(u, id, _)| (*u, id.0));
    let mut gone = alloc::vec![false; nodes.len()];
    // A node that took moved pods stays (its pods would move twice).
    let mut took = alloc::vec![false; nodes.len()];
    let mut out = Vec::new();
    for i in 0..nodes.len() {
        if took[i] {
            continue;
        }
        let id = nodes[i].1;
        let pods: Vec<&PodTemplate> = c
            .pods_on(id)
            .filter(|p| p.kind != WorkloadKind::DaemonSet && p.phase == PodPhase::Running)
            .map(|p| p.template)
            .collect();
        let mut placed: Vec<(usize, &PodTemplate)> = Vec::new();
        let mut ok = true;
        for t in &pods {
            let spot = (0..nodes.len()).find(|&j| {
                j != i
                    && !gone[j]
                    && nodes[j].2.short(t).is_none()
                    && c.node_by_id(nodes[j].1)
                        .is_some_and(|n| static_reason(n.spec, n.cordoned, t).is_none())
            });
            match spot {
                Some(j) => {
                    nodes[j].2.take(t);
                    placed.push((j, t));
                }
                None => {
                    for &(j, t) in &placed {
                        nodes[j].2.give(t);
                    }
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            for &(j, _) in &placed {
                took[j] = true;
            }
            gone[i] = true;
            if let Some(n) = c.node_by_id(id) {
                out.push(n.spec.name.clone());
            }
        }
    }
    out
}
