//! The cluster's balance: how evenly the nodes are used, per resource, and
//! how much free space is stranded by being split across nodes.
//!
//! Everything here is read from the engine's books (each node's allocated
//! requests and pod count) and the Deployments' pending sets, never from a
//! scan of the bound pods: [`Cluster::balance`] costs O(nodes + Deployments)
//! (plus the Pending pods of a Deployment only while it also holds pods lost
//! with a NotReady node, which the next pass deletes).
//!
//! Which nodes count: a node counts for **utilisation** when it is registered
//! (not removed) and Ready; a cordoned or draining node still counts, since
//! the pods it holds use it. A node counts for **fragmentation** when it is
//! also schedulable (Ready, not cordoned), since only such a node could take
//! another pod.
//!
//! The three resources are Kubernetes' `cpu` (millicores), `memory` (bytes, as
//! Kubernetes counts it) and `pods` (a node's `status.allocatable.pods`;
//! every pod requests one).

use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{Cluster, OwnerId};
use crate::model::Resources;

/// One resource's balance over the nodes that count for utilisation.
///
/// A node's **utilisation** of the resource is `requested / allocatable`: the
/// sum of the requests of the pods bound to it over its allocatable amount, a
/// fraction from 0 to 1 (the engine never binds past allocatable). A node with
/// zero allocatable of the resource has no utilisation of it and is left out
/// of this resource's figures (`nodes` says how many were counted).
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceBalance {
    /// Nodes counted: registered, Ready, with allocatable > 0 of this resource.
    pub nodes: u32,
    /// Sum of the requests bound to the counted nodes.
    pub requested: u64,
    /// Sum of the counted nodes' allocatable.
    pub allocatable: u64,
    /// `histogram[i]` counts the nodes whose utilisation `u` has
    /// `floor(10 u) == i` (that is `i/10 <= u < (i+1)/10`), computed exactly in
    /// integers as `floor(10 requested / allocatable)`; a node at exactly 100%
    /// is counted in the last bucket. The buckets sum to `nodes`.
    pub histogram: [u32; 10],
    /// The least utilisation over the counted nodes (0 when none is counted).
    pub min: f64,
    /// The greatest utilisation over the counted nodes (0 when none is counted).
    pub max: f64,
    /// The arithmetic mean of the nodes' utilisations (each node weighs the
    /// same, whatever its size; 0 when none is counted). This is not
    /// `requested / allocatable`, which weighs nodes by size: see
    /// [`ResourceBalance::overall`].
    pub mean: f64,
    /// The population standard deviation of the nodes' utilisations:
    /// `sqrt(sum((u - mean)^2) / nodes)` (0 when none is counted).
    pub std_dev: f64,
    /// Counted nodes with some of the resource requested (`requested > 0`).
    pub in_use: u32,
    /// Counted nodes with none of it requested; `in_use + empty == nodes`.
    pub empty: u32,
}

impl ResourceBalance {
    /// The cluster's utilisation of the resource: `requested / allocatable`
    /// summed over the counted nodes (0 when nothing is allocatable).
    pub fn overall(&self) -> f64 {
        if self.allocatable == 0 {
            0.0
        } else {
            self.requested as f64 / self.allocatable as f64
        }
    }
}

/// How much free space is stranded by being split across nodes, measured
/// with the largest Pending pod.
///
/// The **largest Pending pod** is the one whose requests take the greatest
/// dominant share of the cluster: `max(cpu / total_cpu, memory / total_memory)`
/// with the totals of allocatable over the nodes that count for utilisation
/// (a total of zero is taken as one); ties go to the larger cpu request, then
/// the larger memory request, then the Deployment created first. Pods of one
/// Deployment revision share their requests, so the pod is named by its
/// Deployment and requests.
///
/// How many copies of it **fit** in a node's free space: the least, over cpu,
/// memory and pods, of `floor(free / request)`, leaving out a resource the
/// pod requests none of (pods: it requests one). Free is allocatable minus
/// requested. Only resources are counted here: the pod's nodeSelector,
/// tolerations and affinity are not, so this measures the space, not the
/// pod's own constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragmentation {
    /// The Deployment of the largest Pending pod.
    pub app: String,
    /// Its requests (cpu millicores, memory bytes; and one pod).
    pub requests: Resources,
    /// Copies that fit on the schedulable nodes as they are: the sum over
    /// the nodes of what fits in each one's free space.
    pub fit_on_nodes: u64,
    /// Copies that would fit if the schedulable nodes' free space were one
    /// pool: what fits in the sums of their free cpu, memory and pods.
    pub fit_pooled: u64,
}

impl Fragmentation {
    /// How many more copies would fit if the free space were not split
    /// across nodes: `fit_pooled - fit_on_nodes` (never negative: the sum of
    /// floors is at most the floor of the sum).
    pub fn stranded(&self) -> u64 {
        self.fit_pooled - self.fit_on_nodes
    }
}

/// The cluster's balance: see the [module documentation](self) for which
/// nodes count, and each field for its definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Balance {
    pub cpu: ResourceBalance,
    pub memory: ResourceBalance,
    pub pods: ResourceBalance,
    /// Registered nodes that are Ready (the nodes counted for utilisation,
    /// whatever they allocate).
    pub ready_nodes: u32,
    /// Registered nodes that are not Ready.
    pub not_ready_nodes: u32,
    /// Ready nodes with at least one pod bound (`pods.in_use`, unless a
    /// node admits no pods at all).
    pub nodes_with_pods: u32,
    /// Pods not bound to any node (phase Pending).
    pub pending: u32,
    /// `None` when no pod is Pending.
    pub fragmentation: Option<Fragmentation>,
}

/// Accumulates one resource's figures in one pass over the nodes; the
/// deviation takes a second pass over the utilisations kept here.
struct Acc {
    b: ResourceBalance,
    sum: f64,
}

impl Acc {
    fn new() -> Acc {
        Acc {
            b: ResourceBalance {
                nodes: 0,
                requested: 0,
                allocatable: 0,
                histogram: [0; 10],
                min: 0.0,
                max: 0.0,
                mean: 0.0,
                std_dev: 0.0,
                in_use: 0,
                empty: 0,
            },
            sum: 0.0,
        }
    }

    /// Adds a node; returns its utilisation, or `None` when it has no
    /// allocatable of this resource.
    fn add(&mut self, requested: u64, allocatable: u64) -> Option<f64> {
        if allocatable == 0 {
            return None;
        }
        let b = &mut self.b;
        let u = utilisation(requested, allocatable);
        b.histogram[bucket(requested, allocatable)] += 1;
        if b.nodes == 0 || u < b.min {
            b.min = u;
        }
        if b.nodes == 0 || u > b.max {
            b.max = u;
        }
        b.nodes += 1;
        b.requested = b.requested.saturating_add(requested);
        b.allocatable = b.allocatable.saturating_add(allocatable);
        if requested > 0 {
            b.in_use += 1;
        } else {
            b.empty += 1;
        }
        self.sum += u;
        Some(u)
    }
}

/// `requested / allocatable` as a fraction (allocatable > 0).
pub fn utilisation(requested: u64, allocatable: u64) -> f64 {
    requested as f64 / allocatable as f64
}

/// The histogram bucket of a utilisation, exactly: `floor(10 r / a)`, with
/// 100% (and, defensively, anything above) in the last bucket.
pub fn bucket(requested: u64, allocatable: u64) -> usize {
    let b = (requested as u128 * 10) / (allocatable.max(1) as u128);
    b.min(9) as usize
}

pub use crate::util::math::sqrt;

/// How many copies of `req` (and one pod each) fit in `free` and `pods_free`.
fn fits(free_cpu: u128, free_mem: u128, pods_free: u128, req: Resources) -> u128 {
    let mut n = pods_free;
    if req.cpu_millis > 0 {
        n = n.min(free_cpu / req.cpu_millis as u128);
    }
    if req.memory_bytes > 0 {
        n = n.min(free_mem / req.memory_bytes as u128);
    }
    n
}

/// Whether `a` is a larger pod than `b` under the order [`Fragmentation`]
/// states, with the cluster's allocatable totals `tc` and `tm` (at least 1).
/// Ties (equal requests) are not larger: the Deployment created first wins.
pub fn larger(a: Resources, b: Resources, tc: u64, tm: u64) -> bool {
    // max(c/tc, m/tm) compared as max(c*tm, m*tc), both scaled by tc*tm.
    let share =
        |r: Resources| (r.cpu_millis as u128 * tm as u128).max(r.memory_bytes as u128 * tc as u128);
    (share(a), a.cpu_millis, a.memory_bytes) > (share(b), b.cpu_millis, b.memory_bytes)
}

impl Cluster {
    /// Ready pods per Deployment, from the controllers' books (no pod is
    /// read): `(id, name, ready)` for every Deployment not deleted, in id
    /// order. O(Deployments x revisions with pods); what the page's "Ready
    /// per Deployment" chart records each tick.
    pub fn ready_per_deployment(&self) -> impl Iterator<Item = (OwnerId, &str, u32)> + '_ {
        self.controllers
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.deleted)
            .map(|(i, c)| (OwnerId(i as u32), c.name.as_str(), c.ready()))
    }
}

impl Cluster {
    /// The cluster's balance now: utilisation per resource over the Ready
    /// nodes and fragmentation measured with the largest Pending pod (see
    /// [`Balance`]). Reads the nodes' books, not the pods: O(nodes +
    /// Deployments).
    pub fn balance(&self) -> Balance {
        let mut cpu = Acc::new();
        let mut mem = Acc::new();
        let mut pods = Acc::new();
        let mut ready_nodes = 0u32;
        let mut not_ready_nodes = 0u32;
        let mut nodes_with_pods = 0u32;
        for ((n, on), h) in self
            .nodes
            .iter()
            .zip(&self.node_pods)
            .zip(&self.hot)
            .filter(|((n, _), _)| !n.removed)
        {
            if !n.ready {
                not_ready_nodes += 1;
                continue;
            }
            ready_nodes += 1;
            let count = on.len() as u64;
            if count > 0 {
                nodes_with_pods += 1;
            }
            cpu.add(h.allocated.cpu_millis, n.spec.capacity.cpu_millis);
            mem.add(h.allocated.memory_bytes, n.spec.capacity.memory_bytes);
            pods.add(count, n.spec.max_pods as u64);
        }
        // The deviation's second pass: the mean is known now.
        let mut sq = [0.0f64; 3];
        for ((n, on), h) in self
            .nodes
            .iter()
            .zip(&self.node_pods)
            .zip(&self.hot)
            .filter(|((n, _), _)| !n.removed && n.ready)
        {
            let pairs = [
                (h.allocated.cpu_millis, n.spec.capacity.cpu_millis, &cpu),
                (h.allocated.memory_bytes, n.spec.capacity.memory_bytes, &mem),
                (on.len() as u64, n.spec.max_pods as u64, &pods),
            ];
            for (i, (r, a, acc)) in pairs.into_iter().enumerate() {
                if a > 0 {
                    let d = utilisation(r, a) - acc.sum / acc.b.nodes as f64;
                    sq[i] += d * d;
                }
            }
        }
        let finish = |acc: Acc, sq: f64| {
            let mut b = acc.b;
            if b.nodes > 0 {
                b.mean = acc.sum / b.nodes as f64;
                b.std_dev = sqrt(sq / b.nodes as f64);
            }
            b
        };
        let cpu = finish(cpu, sq[0]);
        let memory = finish(mem, sq[1]);
        let pods = finish(pods, sq[2]);
        let fragmentation = self.fragmentation(cpu.allocatable, memory.allocatable);
        Balance {
            cpu,
            memory,
            pods,
            ready_nodes,
            not_ready_nodes,
            nodes_with_pods,
            pending: self.pending_total,
            fragmentation,
        }
    }

    /// The largest Pending pod's requests and Deployment, per the order
    /// [`Fragmentation`] states.
    fn largest_pending(&self, tc: u64, tm: u64) -> Option<(usize, Resources)> {
        let tc = tc.max(1);
        let tm = tm.max(1);
        let mut best: Option<(usize, Resources)> = None;
        let mut consider = |i: usize, r: Resources| match best {
            Some((_, b)) if !larger(r, b, tc, tm) => {}
            _ => best = Some((i, r)),
        };
        for (i, c) in self.controllers.iter().enumerate() {
            if c.pending.is_empty() {
                continue;
            }
            // A revision with pods not bound holds the pending ones; a pod
            // lost with its node is unbound too, so with two candidate
            // revisions the pending set says which really have pending pods.
            let mut candidates = c
                .counts
                .iter()
                .filter(|(_, k)| k.pods > k.bound)
                .map(|(&rev, _)| rev);
            let first = candidates.next();
            let second = candidates.next();
            match (first, second) {
                (Some(rev), None) => consider(i, c.revisions[rev as usize - 1].template.requests),
                _ => {
                    let mut seen: alloc::vec::Vec<u32> = alloc::vec::Vec::new();
                    for o in &c.pending {
                        let rev = self.pod(c.pods[&o]).revision;
                        if !seen.contains(&rev) {
                            seen.push(rev);
                            consider(i, c.revisions[rev as usize - 1].template.requests);
                        }
                    }
                }
            }
        }
        best
    }

    fn fragmentation(&self, tc: u64, tm: u64) -> Option<Fragmentation> {
        let (ctl, req) = self.largest_pending(tc, tm)?;
        let (mut fc, mut fm, mut fp) = (0u128, 0u128, 0u128);
        let mut on_nodes = 0u128;
        for ((n, on), h) in self
            .nodes
            .iter()
            .zip(&self.node_pods)
            .zip(&self.hot)
            .filter(|((n, _), _)| !n.removed && n.ready && !n.cordoned)
        {
            let free = h.free();
            let pods_free = n.spec.max_pods.saturating_sub(on.len() as u32) as u128;
            on_nodes += fits(
                free.cpu_millis as u128,
                free.memory_bytes as u128,
                pods_free,
                req,
            );
            fc += free.cpu_millis as u128;
            fm += free.memory_bytes as u128;
            fp += pods_free;
        }
        let pooled = fits(fc, fm, fp, req);
        Some(Fragmentation {
            app: self.controllers[ctl].name.clone(),
            requests: req,
            // Bounded by the free pod slots: at most nodes x max_pods.
            fit_on_nodes: on_nodes.min(u64::MAX as u128) as u64,
            fit_pooled: pooled.min(u64::MAX as u128) as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::MIB;

    #[test]
    fn sqrt_matches_the_correctly_rounded_root_on_utilisation_variances() {
        for i in 0..=10_000u32 {
            let x = i as f64 / 40_000.0;
            let got = sqrt(x);
            // The true root r satisfies got*got ~ x within a couple of ulps.
            let err = (got * got - x).abs();
            assert!(
                err <= 4.0 * f64::EPSILON * x.max(f64::MIN_POSITIVE),
                "sqrt({x}) = {got}"
            );
        }
        assert_eq!(sqrt(0.0), 0.0);
        assert_eq!(sqrt(4.0), 2.0);
        assert_eq!(sqrt(0.25), 0.5);
        assert!(sqrt(-1.0).is_nan());
        assert_eq!(sqrt(1e300 * 1e300), f64::INFINITY);
    }

    #[test]
    fn buckets_are_exact_at_their_edges() {
        assert_eq!(bucket(0, 10), 0);
        assert_eq!(bucket(1, 10), 1);
        assert_eq!(bucket(99, 1000), 0);
        assert_eq!(bucket(100, 1000), 1);
        assert_eq!(bucket(899, 1000), 8);
        assert_eq!(bucket(900, 1000), 9);
        assert_eq!(bucket(1000, 1000), 9);
        assert_eq!(bucket(u64::MAX, u64::MAX), 9);
    }

    #[test]
    fn a_pod_larger_in_its_dominant_share_is_larger() {
        // 4 cores and 8 GiB in all: 1 core is 25%, 1 GiB is 12.5%.
        let big_cpu = Resources::new(1000, 1024 * MIB);
        let big_mem = Resources::new(500, 3072 * MIB);
        assert!(larger(big_mem, big_cpu, 4000, 8192 * MIB));
        assert!(!larger(big_cpu, big_mem, 4000, 8192 * MIB));
        // Equal shares: the larger cpu request.
        let a = Resources::new(1000, 0);
        let b = Resources::new(0, 2048 * MIB);
        assert!(larger(a, b, 4000, 8192 * MIB));
        assert!(!larger(a, a, 4000, 8192 * MIB));
    }
}

/// What differs between two runs of the same scenario (two profiles, or two
/// scheduler seeds), pod by pod. Pods are matched by name (Deployment and
/// ordinal); nodes are compared by name. Every list is in pod name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementDiff {
    /// Pods bound in both runs, to different nodes: `(pod, node in a, node in b)`.
    pub landed_differently: Vec<(String, String, String)>,
    /// Pods Pending in `a` and not Pending in `b` (bound there, or not there at all).
    pub pending_only_in_a: Vec<String>,
    /// Pods Pending in `b` and not Pending in `a`.
    pub pending_only_in_b: Vec<String>,
    /// Pods bound in `a` that `b` does not have at all (a rolling update or a
    /// replacement made different pods in each run): `(pod, node in a)`.
    pub bound_only_in_a: Vec<(String, String)>,
    /// Pods bound in `b` that `a` does not have at all.
    pub bound_only_in_b: Vec<(String, String)>,
}

/// Pod (Deployment, ordinal) -> the node's name (`None`: Pending) and its
/// owner (to name it), sorted by owner and ordinal.
fn placement(
    c: &Cluster,
) -> alloc::collections::BTreeMap<(&str, u32), (Option<&str>, crate::OwnerId)> {
    c.pods()
        .map(|p| {
            let node = p
                .node
                .and_then(|id| c.nodes.get(id.0 as usize))
                .filter(|n| !n.removed)
                .map(|n| n.spec.name.as_str());
            ((p.app, p.ordinal), (node, p.controller))
        })
        .collect()
}

/// The pods that landed differently in `b` than in `a`, and the Pending pods
/// one run has and the other does not. O(pods x log pods); names are built
/// only for the pods that differ.
pub fn diff_placements(a: &Cluster, b: &Cluster) -> PlacementDiff {
    // Two runs of one script have the same Deployments in the same slots:
    // walk their pods side by side, ordinal by ordinal, with no map built.
    let aligned = a.controllers.len() == b.controllers.len()
        && a.controllers
            .iter()
            .zip(&b.controllers)
            .all(|(x, y)| x.name == y.name);
    if aligned {
        return diff_aligned(a, b);
    }
    let (pa, pb) = (placement(a), placement(b));
    // A pod's name as its run gives it (`<replicaset>-<5 chars>`...).
    let name = |c: &Cluster, (_, ord): &(&str, u32), id: crate::OwnerId| c.pod_name(id, *ord);
    let mut d = PlacementDiff::default();
    for (pod, &(na, id)) in &pa {
        match (na, pb.get(pod).map(|&(n, _)| n)) {
            (Some(x), Some(Some(y))) if x != y => {
                d.landed_differently
                    .push((name(a, pod, id), String::from(x), String::from(y)))
            }
            (None, Some(Some(_)) | None) => d.pending_only_in_a.push(name(a, pod, id)),
            (Some(x), None) => d.bound_only_in_a.push((name(a, pod, id), String::from(x))),
            _ => {}
        }
    }
    for (pod, &(nb, id)) in &pb {
        match (nb, pa.get(pod).map(|&(n, _)| n)) {
            (None, None | Some(Some(_))) => d.pending_only_in_b.push(name(b, pod, id)),
            (Some(y), None) => d.bound_only_in_b.push((name(b, pod, id), String::from(y))),
            _ => {}
        }
    }
    // Sorted by (Deployment, ordinal) above; the names sort as text.
    d.landed_differently.sort();
    d.pending_only_in_a.sort();
    d.pending_only_in_b.sort();
    d.bound_only_in_a.sort();
    d.bound_only_in_b.sort();
    d
}

/// The node pod `k` is bound to, by name (`None`: Pending, or its node is gone).
fn node_of(c: &Cluster, k: u32) -> Option<&str> {
    c.pod(k)
        .node()
        .and_then(|id| c.nodes.get(id.0 as usize))
        .filter(|n| !n.removed)
        .map(|n| n.spec.name.as_str())
}

/// [`diff_placements`] for two clusters whose Deployments match slot by slot:
/// a merge of each Deployment's pods by ordinal. O(pods) plus the sort of
/// what differs.
fn diff_aligned(a: &Cluster, b: &Cluster) -> PlacementDiff {
    let mut d = PlacementDiff::default();
    for (i, (ca, cb)) in a.controllers.iter().zip(&b.controllers).enumerate() {
        let id = crate::OwnerId(i as u32);
        let name = |ord: u32| a.pod_name(id, ord);
        let name_b = |ord: u32| b.pod_name(id, ord);
        let mut ia = ca.pods.iter().peekable();
        let mut ib = cb.pods.iter().peekable();
        loop {
            let (oa, ob) = (ia.peek().map(|&(o, _)| o), ib.peek().map(|&(o, _)| o));
            match (oa, ob) {
                (None, None) => break,
                (Some(x), Some(y)) if x == y => {
                    let (Some((_, ka)), Some((_, kb))) = (ia.next(), ib.next()) else {
                        break;
                    };
                    match (node_of(a, ka), node_of(b, kb)) {
                        (Some(na), Some(nb)) if na != nb => {
                            d.landed_differently
                                .push((name(x), String::from(na), String::from(nb)))
                        }
                        (None, Some(_)) => d.pending_only_in_a.push(name(x)),
                        (Some(_), None) => d.pending_only_in_b.push(name(x)),
                        _ => {}
                    }
                }
                // The lower ordinal is a pod only one run has.
                (Some(x), y) if y.is_none_or(|y| x < y) => {
                    if let Some((_, ka)) = ia.next() {
                        match node_of(a, ka) {
                            Some(na) => d.bound_only_in_a.push((name(x), String::from(na))),
                            None => d.pending_only_in_a.push(name(x)),
                        }
                    }
                }
                (_, _) => {
                    if let Some((y, kb)) = ib.next() {
                        match node_of(b, kb) {
                            Some(nb) => d.bound_only_in_b.push((name_b(y), String::from(nb))),
                            None => d.pending_only_in_b.push(name_b(y)),
                        }
                    }
                }
            }
        }
    }
    d.landed_differently.sort();
    d.pending_only_in_a.sort();
    d.pending_only_in_b.sort();
    d.bound_only_in_a.sort();
    d.bound_only_in_b.sort();
    d
}
