//! DefaultPreemption, kube-scheduler's PostFilter plugin
//! (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
//! and pkg/scheduler/framework/preemption/preemption.go), and the
//! PrioritySort queue order.
//!
//! When a pod fits no node and its preemptionPolicy is not Never:
//! - **Potential nodes** are the nodes whose filters failed for a reason
//!   removing pods could fix (Unschedulable). Nodes refused
//!   UnschedulableAndUnresolvable are not tried: NotReady, cordoned
//!   (NodeUnschedulable), an untolerated taint, node affinity or nodeSelector,
//!   a missing topology spread key, or required pod affinity (which removing
//!   pods can only make worse).
//! - **SelectVictimsOnNode**: every pod on the node with a priority strictly
//!   below the preemptor's is removed; if the preemptor still fails the
//!   filters the node is no candidate. Otherwise the removed pods are sorted
//!   by importance (MoreImportantPod: higher priority first, then the
//!   earlier start), split stably into those whose eviction would break a
//!   PodDisruptionBudget (filterPodsWithPDBViolation: each matching budget's
//!   disruptionsAllowed is counted down pod by pod, and a pod that takes one
//!   below zero violates) and the others, and reprieved in that order: the
//!   violating ones first, then the others, each put back if the preemptor
//!   still passes every filter. What cannot be put back are the victims; the
//!   violating victims are the node's PDB violations.
//! - **pickOneNodeForPreemption**: the candidate with the fewest PDB
//!   violations; then the lowest highest-victim priority; then the smallest
//!   sum of victim priorities (each counted as priority + 2^31, so negative
//!   priorities still add up); then the fewest victims; then the latest
//!   earliest start among the highest-priority victims; then the first.
//! - The victims are deleted (a `Preempted` event on each, naming the
//!   preemptor by its UID and the node, and the kubelet's `Killing`), the preemptor's
//!   nominatedNodeName is set, lower-priority pods nominated to that node
//!   lose their nomination, and the preemptor is scheduled in a later pass,
//!   where its nominated node is tried first (PreferNominatedNode).
//!
//! A DaemonSet's pod is scheduled by the default scheduler (through its
//! `metadata.name` node affinity, see `daemonset.rs` and `pinned.rs`) and
//! so preempts exactly as any other pod, with its node as the only
//! potential one: with `system-node-critical` (or any class above the
//! node's pods) it evicts lower-priority pods on the node it must run on.
//!
//! Differences by design: kube-scheduler dry-runs at least
//! max(10% of the potential nodes, 100) candidates from a random offset (the
//! DefaultPreemptionArgs minCandidateNodesPercentage and
//! minCandidateNodesAbsolute), in parallel, so with more than 100 nodes it
//! may not see the best one, and its "first" is Go's map order; Shepherd
//! tries every potential node in slot order, so its choice is the best over
//! all of them and its ties go to the lowest node slot. Victims have no
//! graceful termination: they are gone at once. Instead of filtering
//! lower-priority pods against nominated pods, a pass that preempted stops
//! scheduling the rest of the (lower or equal priority) queue until the next
//! pass, where the preemptor is first in line.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::{Code, OnBind, Plugin, Profile};
use crate::cluster::{Cluster, ControllerId, NodeId};
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::Resources;

/// One node that preemption could free for a pod, with the figures
/// pickOneNodeForPreemption compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptionCandidate {
    pub node: String,
    /// The victims, most important first.
    pub victims: Vec<String>,
    /// Victims whose eviction breaks a PodDisruptionBudget.
    pub pdb_violations: u32,
    /// The highest priority among the victims.
    pub highest_priority: i32,
    /// The sum of (priority + 2^31) over the victims.
    pub priority_sum: i64,
    /// The earliest start (tick) among the highest-priority victims; the
    /// latest wins.
    pub earliest_start: u64,
}

/// The outcome of DefaultPreemption for one pod: the candidates in the
/// order the rules rank them, the chosen one first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preemption {
    /// The tick at which the victims were (or would be) deleted.
    pub tick: u64,
    pub preemptor: String,
    pub priority: i32,
    /// The chosen node (the first candidate).
    pub node: String,
    /// The rule that set the chosen node apart from the runner-up, or
    /// "the only candidate", or "first in node order" for a full tie.
    pub decided_by: &'static str,
    pub candidates: Vec<PreemptionCandidate>,
    /// True once carried out (recorded on the pod); false for a preview.
    pub recorded: bool,
}

impl Preemption {
    /// One sentence for an explanation's summary.
    pub fn summary(&self, pending: bool) -> String {
        let c = &self.candidates[0];
        let verb = if pending && !self.nominated_already() {
            "preemption would delete"
        } else {
            "preemption deleted"
        };
        format!(
            "; at tick {} {verb} {} lower-priority pod(s) on {} ({}) for it (priority {}): {} of {} candidate node(s), chosen by {} (PDB violations {}, highest victim priority {}, priority sum {}, earliest start of the highest-priority victims tick {})",
            self.tick,
            c.victims.len(),
            self.node,
            c.victims.join(", "),
            self.priority,
            self.node,
            self.candidates.len(),
            self.decided_by,
            c.pdb_violations,
            c.highest_priority,
            c.priority_sum,
            c.earliest_start
        )
    }

    fn nominated_already(&self) -> bool {
        self.recorded
    }
}

/// One preemption attempt as a test sees it: the cluster just before, the
/// pod, the room already promised on each node to earlier preemptors of the
/// same pass (node, requests, pods), and the decision (`None`: no candidate).
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct PreemptionTrace {
    pub before: Cluster,
    pub pod: String,
    pub reserved: Vec<(String, Resources, u32)>,
    pub decision: Option<Preemption>,
}

/// The rules of pickOneNodeForPreemption, in order.
pub const PICK_RULES: [&str; 5] = [
    "fewest PDB violations",
    "lowest highest-victim priority",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start of the highest-priority victims",
];

/// A candidate with pod keys, before names are rendered.
#[derive(Clone, Debug)]
struct Found {
    node: NodeId,
    victims: Vec<u32>,
    violations: u32,
}

impl Found {
    fn figures(&self, c: &Cluster) -> [i64; 5] {
        let prio = |k: u32| c.pod(k).priority;
        let highest = self.victims.iter().map(|&k| prio(k)).max().unwrap_or(0);
        let sum: i64 = self
            .victims
            .iter()
            .map(|&k| prio(k) as i64 + (i32::MAX as i64 + 1))
            .sum();
        let earliest = self
            .victims
            .iter()
            .filter(|&&k| prio(k) == highest)
            .map(|&k| c.pod(k).bound_at())
            .min()
            .unwrap_or(0);
        // Larger is better for every entry, as kube-scheduler's score functions.
        [
            -(self.violations as i64),
            -(highest as i64),
            -sum,
            -(self.victims.len() as i64),
            earliest as i64,
        ]
    }
}

/// MoreImportantPod's order as a sort key: higher priority first, then the
/// earlier start (bind tick, then bind order).
fn importance(c: &Cluster, k: u32) -> (Reverse<i32>, u64, u64) {
    let p = c.pod(k);
    (Reverse(p.priority), p.bound_at(), p.bind_serial)
}

impl Cluster {
    /// PrioritySort: the order in which controllers' pending pods are
    /// scheduled, by their highest pending priority (higher first), then
    /// creation order. `None` while every pod has priority 0: creation order,
    /// without looking at a pod.
    pub(crate) fn scheduling_queue(&self) -> Option<Vec<u32>> {
        if !self.priorities_in_use {
            return None;
        }
        let mut q: Vec<(Reverse<i32>, u32)> = Vec::new();
        for (c, ctl) in self.controllers.iter().enumerate() {
            if ctl.deleted || ctl.pending.is_empty() {
                continue;
            }
            let top = ctl
                .pending
                .iter()
                .map(|o| self.pod(ctl.pods[&o]).priority)
                .max()
                .unwrap_or(0);
            q.push((Reverse(top), c as u32));
        }
        q.sort();
        Some(q.into_iter().map(|(_, c)| c).collect())
    }

    /// Whether a bind elsewhere may give this controller's pending pods a
    /// preemption candidate (a lower-priority pod they could displace).
    pub(crate) fn may_preempt(&self, c: usize) -> bool {
        if !self.priorities_in_use {
            return false;
        }
        let ctl = &self.controllers[c];
        ctl.pending
            .iter()
            .any(|o| !self.pod(ctl.pods[&o]).preempt_never)
    }

    /// The pods of one batch in queue order: higher priority first (stable).
    pub(crate) fn queue_order(&self, keys: &mut [u32]) {
        if self.priorities_in_use {
            keys.sort_by_key(|&k| Reverse(self.pod(k).priority));
        }
    }

    /// PreferNominatedNode: pods that preemption nominated to a node are
    /// tried there first, and bound there if it passes every filter. Those
    /// bound leave `keys`. Returns the binds.
    pub(crate) fn bind_nominated(
        &mut self,
        keys: &mut Vec<u32>,
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> u32 {
        if !self.priorities_in_use || keys.iter().all(|&k| self.pod(k).nominated().is_none()) {
            return 0;
        }
        let p = self.pod(keys[0]);
        let mut b = self.new_batch(p.controller, p.revision, profile);
        let mut bound = 0;
        keys.retain(|&k| {
            let Some(n) = self.pod(k).nominated() else {
                return true;
            };
            if self.nodes[n.0 as usize].removed || self.filter_node(n, &mut b, profile).is_err() {
                return true;
            }
            self.bind_observed(k, n, &mut on_bind);
            self.spread_bound(&mut b, n);
            bound += 1;
            false
        });
        bound
    }

    /// DefaultPreemption for the pods a batch left Pending, in order. Each
    /// that finds a candidate deletes its victims and is nominated. Returns
    /// whether any pod was preempted.
    pub(crate) fn preempt_for(&mut self, keys: &[u32], profile: &Profile) -> bool {
        let mut any = false;
        // Room already promised this pass to earlier preemptors, per node.
        let mut reserved: BTreeMap<u32, (Resources, u32)> = BTreeMap::new();
        // Nodes where an earlier preemptor of this pass was nominated: the
        // only nodes whose room changed since the batch found none.
        let mut touched: BTreeSet<u32> = BTreeSet::new();
        let mut work: Option<Cluster> = None;
        // The batch's pods share a template and come highest priority first:
        // once one finds no candidate, none of lower or equal priority can.
        let mut hopeless: Option<i32> = None;
        for &k in keys {
            let p = self.pod(k);
            if p.preempt_never || p.node().is_some() || hopeless.is_some_and(|h| p.priority <= h) {
                continue;
            }
            let before = self.preemption_trace.take().map(|t| {
                let snapshot = self.clone();
                self.preemption_trace = Some(t);
                snapshot
            });
            let (chosen, fits) = self.select_candidate(k, profile, &reserved, &touched, &mut work);
            if let Some(before) = before {
                let decision = chosen
                    .as_ref()
                    .map(|(found, ranked)| self.render_preemption(k, found, ranked));
                let entry = PreemptionTrace {
                    pod: self.pod_name(self.pod(k).controller, self.pod(k).ordinal),
                    reserved: reserved
                        .iter()
                        .map(|(&n, &(r, c))| (self.nodes[n as usize].spec.name.clone(), r, c))
                        .collect(),
                    before,
                    decision,
                };
                if let Some(t) = self.preemption_trace.as_mut() {
                    t.push(entry);
                }
            }
            let Some((found, ranked)) = chosen else {
                if !fits {
                    hopeless = Some(self.pod(k).priority);
                }
                continue;
            };
            let record = self.render_preemption(k, &found, &ranked);
            self.execute_preemption(k, &found, record);
            if let Some(w) = work.as_mut() {
                for &v in &found.victims {
                    w.delete_pod(v, None);
                }
                w.bind(k, found.node);
            } else {
                let e = reserved.entry(found.node.0).or_default();
                e.0 =
                    e.0.saturating_add(&self.revision_of(self.pod(k)).template.requests);
                e.1 += 1;
            }
            touched.insert(found.node.0);
            any = true;
        }
        any
    }

    /// What DefaultPreemption would do for `pod` now, without doing it
    /// (`None`: the pod is bound, may not preempt, or no node would do).
    pub fn preemption_preview<'p>(
        &self,
        pod: &str,
        profile: impl Into<alloc::borrow::Cow<'p, Profile>>,
    ) -> Result<Option<Preemption>, crate::Error> {
        let profile = profile.into();
        let k = self.pod_key(pod)?;
        let p = self.pod(k);
        if p.node().is_some() || p.preempt_never {
            return Ok(None);
        }
        let mut me = self.clone();
        let mut work = None;
        Ok(me
            .select_candidate(k, &profile, &BTreeMap::new(), &BTreeSet::new(), &mut work)
            .0
            .map(|(found, ranked)| me.render_preemption(k, &found, &ranked)))
    }

    /// What `explain` says about preemption for a pod: its own recorded
    /// decision, or, for a Pending pod no node fits, a preview.
    pub(crate) fn explain_preemption(
        &self,
        pod: &str,
        p: &crate::cluster::Pod,
        fits_nowhere: bool,
        profile: &Profile,
    ) -> Option<Preemption> {
        if let Some(r) = p.preemption() {
            return Some(r.clone());
        }
        if p.node().is_none() && fits_nowhere {
            return self.preemption_preview(pod, profile).ok().flatten();
        }
        None
    }

    /// Tests: keep the state before every preemption attempt from now on.
    #[doc(hidden)]
    pub fn trace_preemptions(&mut self) {
        self.preemption_trace.get_or_insert_with(Vec::new);
    }

    /// Tests: the attempts traced since the last call.
    #[doc(hidden)]
    pub fn take_preemption_trace(&mut self) -> Vec<PreemptionTrace> {
        self.preemption_trace
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// The decision recorded when `pod` preempted (kept on the pod for its life).
    pub fn last_preemption(&self, pod: &str) -> Option<Preemption> {
        let k = self.pod_key(pod).ok()?;
        self.pod(k).preemption().cloned()
    }

    /// Finds every candidate for pod `k` and ranks them; the first is chosen.
    /// Also says whether the pod already fits a node, counting the room
    /// earlier preemptors of this pass were promised: the victims of those
    /// are gone at once here (kube-scheduler waits for their graceful
    /// exit), so the room they left beyond the preemptor's needs is free
    /// now, and the pod waits for the next pass, which binds it there,
    /// instead of evicting more pods (kube-scheduler's DryRunPreemption
    /// likewise never takes a node that needs no victim).
    fn select_candidate(
        &mut self,
        k: u32,
        profile: &Profile,
        reserved: &BTreeMap<u32, (Resources, u32)>,
        touched: &BTreeSet<u32>,
        work: &mut Option<Cluster>,
    ) -> (Option<(Found, Vec<Found>)>, bool) {
        let (c, rev, prio) = {
            let p = self.pod(k);
            (p.controller, p.revision, p.priority)
        };
        let revision = self.controllers[c.0 as usize].revisions[rev as usize - 1].clone();
        // A pod pinned to one node by name (a DaemonSet's, see pinned.rs)
        // has that node as its only potential node: the Filter never sees
        // the nodes outside NodeAffinity's PreFilter result, and
        // NewDefaultNodeToStatus reads those as UnschedulableAndUnresolvable,
        // which findCandidates skips. The others would fail static_filter
        // below anyway; this only spares the scan.
        let pinned = self.pinned_node(&revision);
        let inter_pod = profile.filter_enabled(Plugin::InterPodAffinity)
            && (!revision.affinity_ids.is_empty()
                || !revision.anti_ids.is_empty()
                || !revision.matching_terms.is_empty());
        // A pinned pod has no hard spread constraint (pinned_node's rule);
        // without inter-pod terms its one node's books are enough, and the
        // batch's per-node state (spreading over every node) is not built.
        let b = if pinned.is_some() && !inter_pod {
            None
        } else {
            Some(self.new_batch(c, rev, profile))
        };
        // Resources are the only filter that removing pods changes unless
        // the pod has hard spread constraints or inter-pod terms.
        let simple = b
            .as_ref()
            .is_none_or(|b| b.hard.is_empty() && !b.inter_pod_filter);
        if !simple && work.is_none() {
            *work = Some(self.clone());
        }
        let allowed = self.pdb_allowances();
        let mut found: Vec<Found> = Vec::new();
        let mut fits = false;
        let nodes = match pinned {
            Some(n) => n.0 as usize..n.0 as usize + 1,
            None => 0..self.nodes.len(),
        };
        let req = revision.template.requests;
        for i in nodes {
            let n = NodeId(i as u32);
            if self.nodes[i].removed {
                continue;
            }
            // The node-level filters refuse UnschedulableAndUnresolvable
            // (a taint, the node's affinity, cordoned, not ready).
            if let Err(u) = self.static_filter(n, &revision, profile) {
                debug_assert_eq!(u.code(), Code::UnschedulableAndUnresolvable);
                continue;
            }
            if !simple {
                let b = b.as_ref().expect("the general path builds the batch");
                // findCandidates takes only the nodes whose Filter said
                // Unschedulable: an UnschedulableAndUnresolvable one (a
                // missing spread key, required pod affinity) stays so
                // whatever is removed.
                if let Err(u) = self.dynamic_filter(n, b, profile) {
                    if u.code() == Code::UnschedulableAndUnresolvable {
                        continue;
                    }
                }
            }
            let mut potential: Vec<u32> = self.node_pods[i]
                .iter()
                .copied()
                .filter(|&v| self.pod(v).priority < prio)
                .collect();
            if potential.is_empty() && !touched.contains(&n.0) {
                continue;
            }
            potential.sort_by_key(|&v| importance(self, v));
            let (violating, others) = self.split_by_pdb(&potential, &allowed);
            let got = if simple {
                self.victims_by_resources(n, req, profile, reserved.get(&n.0), &violating, &others)
            } else {
                let w = work
                    .as_mut()
                    .expect("a working copy exists for the general path");
                w.victims_by_filters(n, c, rev, profile, &violating, &others)
            };
            if let Some((mut victims, violations)) = got {
                if victims.is_empty() {
                    fits = true;
                    continue;
                }
                victims.sort_by_key(|&v| importance(self, v));
                found.push(Found {
                    node: n,
                    victims,
                    violations,
                });
            }
        }
        drop(b);
        if fits || found.is_empty() {
            return (None, fits);
        }
        // pickOneNodeForPreemption: the best figures, rule by rule; a stable
        // sort on all five keys puts the chosen node first (ties: node order).
        let mut ranked: Vec<(Reverse<[i64; 5]>, Found)> = found
            .into_iter()
            .map(|f| (Reverse(f.figures(self)), f))
            .collect();
        ranked.sort_by_key(|a| a.0);
        let ranked: Vec<Found> = ranked.into_iter().map(|(_, f)| f).collect();
        (Some((ranked[0].clone(), ranked)), false)
    }

    /// Each budget's disruptionsAllowed now, with its selector.
    fn pdb_allowances(&self) -> Vec<(crate::model::Selector, i64)> {
        self.pdbs
            .iter()
            .map(|(name, spec)| {
                let allowed = self
                    .pdb_status(name)
                    .map(|s| s.disruptions_allowed as i64)
                    .unwrap_or(0);
                (spec.selector.clone(), allowed)
            })
            .collect()
    }

    /// filterPodsWithPDBViolation over pods in importance order: (violating,
    /// others), each keeping that order.
    fn split_by_pdb(
        &self,
        pods: &[u32],
        allowed: &[(crate::model::Selector, i64)],
    ) -> (Vec<u32>, Vec<u32>) {
        let mut left: Vec<i64> = allowed.iter().map(|(_, a)| *a).collect();
        let (mut violating, mut others) = (Vec::new(), Vec::new());
        for &k in pods {
            let labels = &self.revision_of(self.pod(k)).template.labels;
            let mut violated = false;
            if !labels.is_empty() {
                for (i, (sel, _)) in allowed.iter().enumerate() {
                    if sel.is_empty() || !sel.matches(labels) {
                        continue;
                    }
                    left[i] -= 1;
                    violated |= left[i] < 0;
                }
            }
            if violated {
                violating.push(k);
            } else {
                others.push(k);
            }
        }
        (violating, others)
    }

    /// SelectVictimsOnNode when NodeResourcesFit is the only filter removing
    /// pods can change: arithmetic on the node's books.
    fn victims_by_resources(
        &self,
        n: NodeId,
        req: Resources,
        profile: &Profile,
        reserved: Option<&(Resources, u32)>,
        violating: &[u32],
        others: &[u32],
    ) -> Option<(Vec<u32>, u32)> {
        let node = &self.nodes[n.0 as usize];
        let (res, extra) = reserved.copied().unwrap_or_default();
        let base = self.hot[n.0 as usize].allocated.saturating_add(&res);
        let base_pods = self.node_pods[n.0 as usize].len() as u32 + extra;
        let req_of = |k: u32| self.revision_of(self.pod(k)).template.requests;
        let check = profile.filter_enabled(Plugin::NodeResourcesFit);
        let fits = |alloc: Resources, pods: u32| {
            if !check {
                return true;
            }
            let (cpu, mem, many) = super::fit::insufficient(
                (req.cpu_millis, req.memory_mib),
                (alloc.cpu_millis, alloc.memory_mib),
                (node.spec.capacity.cpu_millis, node.spec.capacity.memory_mib),
                pods,
                node.spec.max_pods,
            );
            !(cpu || mem || many)
        };
        let mut alloc = base;
        let mut pods = base_pods;
        for &k in violating.iter().chain(others) {
            alloc = alloc.saturating_sub(&req_of(k));
            pods -= 1;
        }
        if !fits(alloc, pods) {
            return None;
        }
        let mut victims = Vec::new();
        let mut violations = 0;
        for (j, &k) in violating.iter().chain(others).enumerate() {
            let back = alloc.saturating_add(&req_of(k));
            if fits(back, pods + 1) {
                alloc = back;
                pods += 1;
            } else {
                victims.push(k);
                if j < violating.len() {
                    violations += 1;
                }
            }
        }
        Some((victims, violations))
    }

    /// SelectVictimsOnNode with every filter, on a working copy of the
    /// cluster: the pods are taken off and put back for real, and the
    /// batch's pre-filter state is computed again for each check. The copy
    /// is left as it was found.
    fn victims_by_filters(
        &mut self,
        n: NodeId,
        c: ControllerId,
        rev: u32,
        profile: &Profile,
        violating: &[u32],
        others: &[u32],
    ) -> Option<(Vec<u32>, u32)> {
        let all: Vec<u32> = violating.iter().chain(others).copied().collect();
        for &k in &all {
            self.sim_unbind(k);
        }
        let passes = |me: &mut Cluster| {
            let mut b = me.new_batch(c, rev, profile);
            me.filter_node(n, &mut b, profile).is_ok()
        };
        if !passes(self) {
            for &k in &all {
                self.bind(k, n);
            }
            return None;
        }
        let mut victims = Vec::new();
        let mut violations = 0;
        for (j, &k) in all.iter().enumerate() {
            self.bind(k, n);
            if !passes(self) {
                self.sim_unbind(k);
                victims.push(k);
                if j < violating.len() {
                    violations += 1;
                }
            }
        }
        for &k in &victims {
            self.bind(k, n);
        }
        Some((victims, violations))
    }

    /// Takes a pod off its node in a working copy so that `bind` puts it back.
    fn sim_unbind(&mut self, k: u32) {
        self.unbind(k);
        self.pending_total += 1;
    }

    fn render_preemption(&self, k: u32, chosen: &Found, ranked: &[Found]) -> Preemption {
        let p = self.pod(k);
        let name_of = |v: u32| {
            let q = self.pod(v);
            self.pod_name(q.controller, q.ordinal)
        };
        let candidates: Vec<PreemptionCandidate> = ranked
            .iter()
            .map(|f| {
                let fig = f.figures(self);
                PreemptionCandidate {
                    node: self.nodes[f.node.0 as usize].spec.name.clone(),
                    victims: f.victims.iter().map(|&v| name_of(v)).collect(),
                    pdb_violations: f.violations,
                    highest_priority: -fig[1] as i32,
                    priority_sum: -fig[2],
                    earliest_start: fig[4] as u64,
                }
            })
            .collect();
        let decided_by = match ranked.get(1) {
            None => "the only candidate",
            Some(second) => {
                let (a, z) = (chosen.figures(self), second.figures(self));
                match (0..5).find(|&i| a[i] != z[i]) {
                    Some(i) => PICK_RULES[i],
                    None => "first in node order (every figure ties)",
                }
            }
        };
        Preemption {
            tick: self.now,
            preemptor: self.pod_name(p.controller, p.ordinal),
            priority: p.priority,
            node: self.nodes[chosen.node.0 as usize].spec.name.clone(),
            decided_by,
            candidates,
            recorded: false,
        }
    }

    /// Deletes the victims with Kubernetes' events and nominates the node.
    fn execute_preemption(&mut self, k: u32, found: &Found, record: Preemption) {
        let node_name = record.node.clone();
        let prio = self.pod(k).priority;
        // kube-scheduler names the preemptor by its UID
        // (preemption.go: "Preempted by pod %v on node %v", preemptor.UID).
        let preemptor_uid = crate::views::uid_text(self.pod(k).uid);
        for &v in &found.victims {
            let (vc, vo) = {
                let q = self.pod(v);
                (q.controller, q.ordinal)
            };
            self.note(
                EventType::Normal,
                Reason::Preempted,
                ObjectRef::Pod(vc, vo),
                format!("Preempted by pod {preemptor_uid} on node {node_name}"),
            );
            let app = self.controllers[vc.0 as usize].name.clone();
            self.note(
                EventType::Normal,
                Reason::Killing,
                ObjectRef::Pod(vc, vo),
                format!("Stopping container {app}"),
            );
            self.delete_pod(v, None);
            self.preempted += 1;
        }
        // Lower-priority pods nominated to this node may no longer fit there
        // (getLowerPriorityNominatedPods). The node's nominees are every pod
        // nominated there: binds and deletions take theirs out, and a pod
        // nominated again is moved below.
        let mut nominees = self.nominees.remove(&found.node.0).unwrap_or_default();
        nominees.retain(|&q| {
            let p = self.pod_mut(q);
            debug_assert_eq!(
                p.nominated(),
                Some(found.node),
                "a nominee is nominated to its node"
            );
            if p.priority < prio {
                p.set_nominated(None);
                return false;
            }
            true
        });
        debug_assert!(
            self.controllers
                .iter()
                .flat_map(|ctl| ctl.pending.iter().map(|o| ctl.pods[&o]))
                .all(|q| self.pod(q).nominated() != Some(found.node) || nominees.contains(&q)),
            "every pod nominated to a node is among its nominees"
        );
        let p = self.pod_mut(k);
        let before = p.set_nominated(Some(found.node));
        p.set_preemption(Preemption {
            recorded: true,
            ..record
        });
        if let Some(m) = before.filter(|&m| m != found.node) {
            if let Some(set) = self.nominees.get_mut(&m.0) {
                set.remove(&k);
            }
        }
        nominees.insert(k);
        self.nominees.insert(found.node.0, nominees);
    }
}
