//! The scheduler: filter, score, bind.
//!
//! Filters run in Kubernetes' order and each names its reason when it
//! rejects: NodeReady, NodeUnschedulable, NodeAffinity (nodeSelector),
//! TaintToleration, NodeResourcesFit, InterPodAffinity. Among feasible nodes
//! the best is the one with the fewest untolerated PreferNoSchedule taints,
//! then the best policy score, then the lowest node id.
//!
//! Pods of one Deployment revision are identical, so they are scheduled as a
//! batch: the feasible nodes are scored once into a heap, and each bind
//! re-scores only the node it changed. A batch costs O(nodes + pods log nodes),
//! never O(nodes x pods).

use alloc::collections::{BTreeMap, BinaryHeap};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::cluster::{Cluster, ControllerId, NodeId, NodeState, Revision, ScorePolicy};
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::{Resources, TaintEffect};

/// Called after every single bind with the cluster, the pod and its node:
/// how the gate checks invariants bind by bind.
pub type OnBind<'a> = dyn FnMut(&Cluster, &str, NodeId) + 'a;

/// Why a filter rejected a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfit {
    NotReady,
    Unschedulable,
    NodeSelector,
    /// An untolerated NoSchedule or NoExecute taint: `key: value`.
    Taint {
        key: String,
        value: String,
    },
    Insufficient {
        cpu: bool,
        memory: bool,
    },
    PodAffinity,
    PodAntiAffinity,
    ExistingAntiAffinity,
}

impl Unfit {
    /// The reasons as Kubernetes words them in a FailedScheduling message.
    pub fn reasons(&self) -> Vec<String> {
        match self {
            Unfit::NotReady => alloc::vec!["node(s) were not ready".to_string()],
            Unfit::Unschedulable => alloc::vec!["node(s) were unschedulable".to_string()],
            Unfit::NodeSelector => {
                alloc::vec!["node(s) didn't match Pod's node affinity/selector".to_string()]
            }
            Unfit::Taint { key, value } => {
                alloc::vec![format!("node(s) had untolerated taint {{{key}: {value}}}")]
            }
            Unfit::Insufficient { cpu, memory } => {
                let mut v = Vec::new();
                if *cpu {
                    v.push("Insufficient cpu".to_string());
                }
                if *memory {
                    v.push("Insufficient memory".to_string());
                }
                v
            }
            Unfit::PodAffinity => {
                alloc::vec!["node(s) didn't match pod affinity rules".to_string()]
            }
            Unfit::PodAntiAffinity => {
                alloc::vec!["node(s) didn't match pod anti-affinity rules".to_string()]
            }
            Unfit::ExistingAntiAffinity => {
                alloc::vec!["node(s) didn't satisfy existing pods anti-affinity rules".to_string()]
            }
        }
    }

    /// The filter plugin that rejected, by its Kubernetes name.
    pub fn plugin(&self) -> &'static str {
        match self {
            Unfit::NotReady => "NodeReady",
            Unfit::Unschedulable => "NodeUnschedulable",
            Unfit::NodeSelector => "NodeAffinity",
            Unfit::Taint { .. } => "TaintToleration",
            Unfit::Insufficient { .. } => "NodeResourcesFit",
            Unfit::PodAffinity | Unfit::PodAntiAffinity | Unfit::ExistingAntiAffinity => {
                "InterPodAffinity"
            }
        }
    }
}

/// The filters that depend only on the node and the template.
fn static_filter(node: &NodeState, rev: &Revision) -> Result<(), Unfit> {
    if !node.ready {
        return Err(Unfit::NotReady);
    }
    if node.cordoned {
        return Err(Unfit::Unschedulable);
    }
    let tpl = &rev.template;
    if !tpl.node_selector.is_empty() && !node.spec.labels_match(&tpl.node_selector) {
        return Err(Unfit::NodeSelector);
    }
    for t in &node.spec.taints {
        if t.effect != TaintEffect::PreferNoSchedule && !tpl.tolerates(t) {
            return Err(Unfit::Taint {
                key: t.key.clone(),
                value: t.value.clone(),
            });
        }
    }
    Ok(())
}

impl Cluster {
    /// The filters that change as pods come and go: resources and inter-pod
    /// (anti-)affinity.
    fn dynamic_filter(&self, n: NodeId, rev: &Revision) -> Result<(), Unfit> {
        self.dynamic_filter_without(n, rev, None)
    }

    /// `without`: a pod bound to `n` to leave out of the books, so a bound pod
    /// can be explained as if it were being placed again.
    fn dynamic_filter_without(
        &self,
        n: NodeId,
        rev: &Revision,
        without: Option<&Revision>,
    ) -> Result<(), Unfit> {
        let node = &self.nodes[n.0 as usize];
        let mut free = node.free();
        // Counts on `n` that belong to the left-out pod.
        let own = |ids: Option<&Vec<u32>>, t: u32| ids.map_or(0, |v| v.contains(&t) as u32);
        let own_matching = |t: u32| own(without.map(|w| &w.matching_terms), t);
        let own_anti = |t: u32| own(without.map(|w| &w.anti_ids), t);
        if let Some(w) = without {
            free = free.saturating_add(&w.template.requests);
        }
        let req = &rev.template.requests;
        let (cpu, memory) = (
            req.cpu_millis > free.cpu_millis,
            req.memory_mib > free.memory_mib,
        );
        if cpu || memory {
            return Err(Unfit::Insufficient { cpu, memory });
        }
        for &t in &rev.affinity_ids {
            let ts = &self.terms[t as usize];
            let dom = self.domain(ts.topo, n);
            let ok = match dom {
                Some(d) => ts.matching_in(d) - own_matching(t) > 0,
                None => false,
            };
            // Kubernetes lets the first pod of a group that matches its own
            // affinity term go anywhere, or no such group could ever start.
            let first = ts.matching_total - own_matching(t) == 0
                && ts.term.selector.matches(&rev.template.labels)
                && dom.is_some();
            if !ok && !first {
                return Err(Unfit::PodAffinity);
            }
        }
        for &t in &rev.anti_ids {
            let ts = &self.terms[t as usize];
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.matching_in(d) - own_matching(t) > 0 {
                    return Err(Unfit::PodAntiAffinity);
                }
            }
        }
        for &t in &rev.matching_terms {
            let ts = &self.terms[t as usize];
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.owners_in(d) - own_anti(t) > 0 {
                    return Err(Unfit::ExistingAntiAffinity);
                }
            }
        }
        Ok(())
    }

    fn filter(&self, n: NodeId, rev: &Revision) -> Result<(), Unfit> {
        static_filter(&self.nodes[n.0 as usize], rev)?;
        self.dynamic_filter(n, rev)
    }

    /// The heap key of a feasible node: smaller is better.
    fn rank(
        &self,
        n: NodeId,
        req: &Resources,
        policy: ScorePolicy,
        rev: &Revision,
    ) -> (u32, u64, u32) {
        self.rank_with(n, req, policy, rev, Resources::ZERO)
    }

    /// `freed`: requests to count as free on the node (a left-out pod's).
    fn rank_with(
        &self,
        n: NodeId,
        req: &Resources,
        policy: ScorePolicy,
        rev: &Revision,
        freed: Resources,
    ) -> (u32, u64, u32) {
        let node = &self.nodes[n.0 as usize];
        let room = room_after(node, node.free().saturating_add(&freed), req);
        (penalty(node, rev), policy_rank(policy, room), n.0)
    }

    /// Schedules every pending pod, Deployment by Deployment in creation
    /// order, revision by revision, lowest ordinal first. Returns the binds.
    pub(crate) fn schedule_pending(
        &mut self,
        policy: ScorePolicy,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> u32 {
        if self.pending_total == 0 {
            return 0;
        }
        let mut bound = 0;
        for c in 0..self.controllers.len() {
            let ctl = &self.controllers[c];
            if ctl.pending.is_empty() || ctl.deleted {
                continue;
            }
            if let Some((cap, bind)) = ctl.blocked {
                let helped =
                    cap != self.capacity_epoch || (ctl.has_affinity() && bind != self.bind_epoch);
                if !helped {
                    continue;
                }
            }
            // Group the pending pods by revision, each group in ordinal order.
            let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for &o in &ctl.pending {
                let k = ctl.pods[&o];
                groups.entry(self.pod(k).revision).or_default().push(k);
            }
            let mut left_pending = false;
            // The current revision first: a roll wants its new pods placed.
            let cur = ctl.current;
            let mut order: Vec<u32> = groups.keys().copied().filter(|&r| r != cur).collect();
            if groups.contains_key(&cur) {
                order.insert(0, cur);
            }
            for r in order {
                let keys = groups.remove(&r).unwrap_or_default();
                let (b, left) = self.schedule_batch(
                    ControllerId(c as u32),
                    r,
                    &keys,
                    policy,
                    on_bind.as_deref_mut(),
                );
                bound += b;
                left_pending |= left;
            }
            self.controllers[c].blocked = if left_pending {
                Some((self.capacity_epoch, self.bind_epoch))
            } else {
                None
            };
        }
        bound
    }

    fn schedule_batch(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        keys: &[u32],
        policy: ScorePolicy,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, bool) {
        // The revision is cloned out so binds can mutate the cluster; it is small.
        let rev = self.controllers[c.0 as usize].revisions[rev_no as usize - 1].clone();
        let req = rev.template.requests;
        let mut keys_of_nodes: Vec<u64> = Vec::with_capacity(self.nodes.len());
        // The scan reads the packed mirror; the full node is read only where
        // the template or the node has something the mirror cannot decide.
        let selector = !rev.template.node_selector.is_empty();
        let inter_pod = !rev.affinity_ids.is_empty()
            || !rev.anti_ids.is_empty()
            || !rev.matching_terms.is_empty();
        for (i, h) in self.hot.iter().enumerate() {
            if !h.schedulable || !req.fits_in(&h.free) {
                continue;
            }
            let n = NodeId(i as u32);
            if (selector || h.hard_taints) && static_filter(&self.nodes[i], &rev).is_err() {
                continue;
            }
            if inter_pod && self.dynamic_filter(n, &rev).is_err() {
                continue;
            }
            let penalty = if h.soft_taints {
                penalty(&self.nodes[i], &rev)
            } else {
                0
            };
            let free = h.free.saturating_sub(&req);
            let room = h.share(0, free.cpu_millis) + h.share(1, free.memory_mib);
            let r = policy_rank(policy, room);
            debug_assert_eq!(
                (penalty, r, n.0),
                self.rank(n, &req, policy, &rev),
                "the scan must rank as rank() does"
            );
            keys_of_nodes.push(pack((penalty, r, n.0)));
        }
        // Without inter-pod terms only the bound node's rank changes, so the
        // k pods of the batch land within the k best nodes: keep just those.
        if !inter_pod && keys_of_nodes.len() > keys.len() {
            keys_of_nodes.select_nth_unstable(keys.len() - 1);
            keys_of_nodes.truncate(keys.len());
        }
        let mut heap: BinaryHeap<Reverse<u64>> = keys_of_nodes.into_iter().map(Reverse).collect();
        let mut bound = 0;
        let mut i = 0;
        while i < keys.len() {
            let Some(Reverse(key)) = heap.pop() else {
                break;
            };
            let n = NodeId(key as u32);
            // Only inter-pod terms of this batch's own binds can have changed
            // feasibility since the node was pushed; re-check before binding.
            if self.dynamic_filter(n, &rev).is_err() {
                continue;
            }
            self.bind(keys[i], n);
            if let Some(f) = on_bind.as_deref_mut() {
                let p = self.pod(keys[i]);
                f(self, &self.pod_name(p.controller, p.ordinal), n);
            }
            bound += 1;
            i += 1;
            if self.dynamic_filter(n, &rev).is_ok() {
                heap.push(Reverse(pack(self.rank(n, &req, policy, &rev))));
            }
        }
        if i < keys.len() {
            self.report_unschedulable(c, rev_no, &rev, &keys[i..]);
            return (bound, true);
        }
        (bound, false)
    }

    /// Logs FailedScheduling for pods left pending, once per pod per distinct
    /// message, so a blocked pod does not flood the log on every pass.
    fn report_unschedulable(&mut self, c: ControllerId, rev_no: u32, rev: &Revision, keys: &[u32]) {
        let message = self.failure_message(rev);
        let serial = match self.controllers[c.0 as usize].failure.get(&rev_no) {
            Some((s, m)) if *m == message => *s,
            _ => {
                self.failure_serial += 1;
                let s = self.failure_serial;
                self.controllers[c.0 as usize]
                    .failure
                    .insert(rev_no, (s, message.clone()));
                s
            }
        };
        for &k in keys {
            let p = self.pod_mut(k);
            if p.reported != serial {
                p.reported = serial;
                let (ctl, o) = (p.controller, p.ordinal);
                self.note(
                    EventType::Warning,
                    Reason::FailedScheduling,
                    ObjectRef::Pod(ctl, o),
                    message.clone(),
                );
            }
        }
    }

    /// "0/6 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated
    /// taint {dedicated: gpu}." Most frequent reason first, then by text.
    pub(crate) fn failure_message(&self, rev: &Revision) -> String {
        let mut hist: BTreeMap<String, u32> = BTreeMap::new();
        let mut total = 0;
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            total += 1;
            if let Err(u) = self.filter(NodeId(i as u32), rev) {
                for r in u.reasons() {
                    *hist.entry(r).or_default() += 1;
                }
            }
        }
        if total == 0 {
            return "0/0 nodes are available: no nodes registered.".to_string();
        }
        let mut rows: Vec<(String, u32)> = hist.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let parts: Vec<String> = rows.iter().map(|(r, n)| format!("{n} {r}")).collect();
        format!("0/{total} nodes are available: {}.", parts.join(", "))
    }

    /// For one pod, every node's filter verdict with its reason, and the score
    /// of each feasible node, in the order the scheduler would rank them.
    /// Computed on demand; costs nothing unless called.
    pub fn explain(&self, pod: &str, policy: ScorePolicy) -> Result<Explanation, crate::Error> {
        let k = self.pod_key(pod)?;
        let p = self.pod(k);
        let rev = self.revision_of(p);
        let req = rev.template.requests;
        let mut nodes = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if node.removed {
                continue;
            }
            let n = NodeId(i as u32);
            // A bound pod is explained as if it were being placed again, with
            // its own requests taken off its node.
            let verdict = if p.node == Some(n) {
                static_filter(node, rev)
                    .and_then(|_| self.dynamic_filter_without(n, rev, Some(rev)))
                    .map(|_| self.rank_with(n, &req, policy, rev, req))
            } else {
                self.filter(n, rev).map(|_| self.rank(n, &req, policy, rev))
            };
            let (feasible, plugin, reasons, rank) = match verdict {
                Ok(r) => (true, None, Vec::new(), Some(r)),
                Err(u) => (false, Some(u.plugin()), u.reasons(), None),
            };
            nodes.push(NodeVerdict {
                node: node.spec.name.clone(),
                feasible,
                plugin,
                reasons,
                score: rank.map(|r| score_100(r.1, policy)),
                untolerated_prefer_no_schedule: rank.map(|r| r.0).unwrap_or(0),
                rank_key: rank,
                position: None,
            });
        }
        let mut order: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].feasible).collect();
        order.sort_by_key(|&i| nodes[i].rank_key);
        for (pos, &i) in order.iter().enumerate() {
            nodes[i].position = Some(pos as u32 + 1);
        }
        let best = order.first().map(|&i| nodes[i].node.clone());
        let ctl = &self.controllers[p.controller.0 as usize];
        let summary = match (p.node, &best) {
            (Some(n), _) => format!(
                "{} is bound to {}; the ranking below is as if it were placed again now",
                pod, self.nodes[n.0 as usize].spec.name
            ),
            (None, Some(b)) => {
                format!("{} is Pending; {} would be chosen at the next pass", pod, b)
            }
            (None, None) => ctl
                .failure
                .get(&p.revision)
                .map(|(_, m)| m.clone())
                .unwrap_or_else(|| self.failure_message(rev)),
        };
        Ok(Explanation {
            pod: pod.to_string(),
            phase: p.phase.as_str(),
            bound_to: p.node.map(|n| self.nodes[n.0 as usize].spec.name.clone()),
            requests: req,
            policy,
            summary,
            nodes,
        })
    }
}

/// A rank key as one integer, so the heap compares one word: the penalty in
/// the top 8 bits (at most 255 taints count), the policy rank (< 2^22) next,
/// the node id in the low 32 bits. Orders exactly as the tuple does.
fn pack((penalty, rank, node): (u32, u64, u32)) -> u64 {
    debug_assert!(rank < 1 << 22);
    (penalty.min(255) as u64) << 56 | rank << 32 | node as u64
}

/// Untolerated PreferNoSchedule taints: each counts against the node.
fn penalty(node: &NodeState, rev: &Revision) -> u32 {
    node.spec
        .taints
        .iter()
        .filter(|t| t.effect == TaintEffect::PreferNoSchedule && !rev.template.tolerates(t))
        .count() as u32
}

/// The policy's rank for the room left after placing: smaller is better.
fn policy_rank(policy: ScorePolicy, room: u64) -> u64 {
    match policy {
        ScorePolicy::BinPack => room,
        ScorePolicy::LeastLoaded => 2 * SCALE - room,
    }
}

/// Fixed-point scale of one resource's share in a score.
const SCALE: u64 = crate::cluster::SHARE_ONE;

/// Room left after placing `req`, as the sum of the free shares of cpu and
/// memory, each in 0..=SCALE. BinPack minimises it; LeastLoaded maximises it.
fn room_after(node: &NodeState, free: Resources, req: &Resources) -> u64 {
    let free = free.saturating_sub(req);
    node.share(0, free.cpu_millis) + node.share(1, free.memory_mib)
}

/// A 0..=100 score, higher is better, as Kubernetes reports plugin scores.
fn score_100(rank: u64, _policy: ScorePolicy) -> u32 {
    (100 - (rank * 100 / (2 * SCALE)).min(100)) as u32
}

/// One node's verdict for one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    pub node: String,
    pub feasible: bool,
    /// The filter plugin that rejected the node, if one did.
    pub plugin: Option<&'static str>,
    pub reasons: Vec<String>,
    /// 0..=100, higher is better under the policy.
    pub score: Option<u32>,
    pub untolerated_prefer_no_schedule: u32,
    /// The exact ordering key: (PreferNoSchedule penalty, policy rank, node id).
    pub rank_key: Option<(u32, u64, u32)>,
    /// 1 for the node the scheduler would choose.
    pub position: Option<u32>,
}

/// Why a pod is where it is, or why it is not anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub pod: String,
    pub phase: &'static str,
    pub bound_to: Option<String>,
    pub requests: Resources,
    pub policy: ScorePolicy,
    pub summary: String,
    pub nodes: Vec<NodeVerdict>,
}
