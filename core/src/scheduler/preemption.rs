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
//! - **How many are dry-run** (findCandidates, GetOffsetAndNumCandidates,
//!   calculateNumCandidates and DryRunPreemption): with P potential nodes the
//!   dry run wants max(P x minCandidateNodesPercentage / 100,
//!   minCandidateNodesAbsolute) candidates, at most P (the
//!   DefaultPreemptionArgs defaults: 10% and 100; Shepherd's profiles do not
//!   set them). It walks the potential nodes in slot order from an offset
//!   (wrapping round) and stops once it holds that many candidates, at least
//!   one of them breaking no budget; it keeps at most that many of each kind.
//!   kube-scheduler draws the offset at random; Shepherd draws it from the
//!   cluster's seeded PRNG, and only when the dry run may stop early (fewer
//!   candidates wanted than potential nodes): otherwise every potential node
//!   is tried and the offset changes nothing. So a run is deterministic, and
//!   up to 100 potential nodes every one is tried.
//! - **SelectVictimsOnNode**: a node without a pod of lower priority than the
//!   preemptor is no candidate. Otherwise every such pod is removed; if the
//!   preemptor still fails the filters the node is no candidate. Otherwise
//!   the removed pods are sorted
//!   by importance (MoreImportantPod: higher priority first, then the
//!   earlier start), split stably into those whose eviction would break a
//!   PodDisruptionBudget (filterPodsWithPDBViolation: each matching budget's
//!   disruptionsAllowed is counted down pod by pod, and a pod that takes one
//!   below zero violates) and the others, and reprieved in that order: the
//!   violating ones first, then the others, each put back if the preemptor
//!   still passes every filter. What cannot be put back are the victims; the
//!   violating victims are the node's PDB violations.
//! - **pickOneNodeForPreemption**, over the candidates found: the one with
//!   the fewest PDB violations; then the lowest highest-victim priority; then
//!   the smallest sum of victim priorities (each counted as priority + 2^31,
//!   so negative priorities still add up); then the fewest victims; then the
//!   latest earliest start among the highest-priority victims; then the first.
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
//! Differences by design: kube-scheduler dry-runs in parallel, and its
//! "first" is Go's map order; Shepherd dry-runs in order, and ties among the
//! candidates it found go to the lowest node slot. Victims have no
//! graceful termination: they are gone at once. Instead of filtering
//! lower-priority pods against nominated pods, a pass that preempted stops
//! scheduling the rest of the (lower or equal priority) queue until the next
//! pass, where the preemptor is first in line.
//!
//! What a decision keeps (on the preemptor, for `explain`): the best
//! [`KEPT_CANDIDATES`] candidates as the rules rank them, the chosen one's
//! victims as (owner, ordinal) ids, at most [`KEPT_VICTIMS`] of each other
//! candidate's, and how many nodes were potential and dry-run: at most
//! [`record_bytes_bound`] bytes, whatever the size of the cluster. Within
//! one batch's pass, while only resources matter, a node's dry run serves
//! the batch's later pods until a preemption takes the node or the budgets'
//! allowances split its pods otherwise (`Pass`): 5,000 preemptors on 5,000
//! full nodes read each node about once, not 500 times each.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::{Code, OnBind, Plugin, Profile};
use crate::cluster::{Cluster, ControllerId, NodeId};
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::Resources;

/// kube-scheduler's DefaultPreemptionArgs.minCandidateNodesPercentage default.
pub const MIN_CANDIDATE_NODES_PERCENTAGE: u32 = 10;
/// kube-scheduler's DefaultPreemptionArgs.minCandidateNodesAbsolute default.
pub const MIN_CANDIDATE_NODES_ABSOLUTE: u32 = 100;
/// How many of the ranked candidates a decision keeps for `explain`.
pub const KEPT_CANDIDATES: usize = 10;
/// How many victims a kept candidate other than the chosen one names.
pub const KEPT_VICTIMS: usize = 5;

/// calculateNumCandidates (default_preemption.go): how many candidates
/// the dry run wants out of `potential` nodes.
pub fn candidates_wanted(potential: u32) -> u32 {
    let n = (potential as u64 * MIN_CANDIDATE_NODES_PERCENTAGE as u64 / 100) as u32;
    n.max(MIN_CANDIDATE_NODES_ABSOLUTE).min(potential)
}

/// One node that preemption could free for a pod, with the figures
/// pickOneNodeForPreemption compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptionCandidate {
    pub node: String,
    /// The victims, most important first: all of them for the chosen node,
    /// the first [`KEPT_VICTIMS`] for the others.
    pub victims: Vec<String>,
    /// How many victims the node needs (`victims` may name fewer).
    pub victim_count: u32,
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
    /// The best [`KEPT_CANDIDATES`] candidates, ranked.
    pub candidates: Vec<PreemptionCandidate>,
    /// How many candidates the dry run found (`candidates` keeps the best).
    pub found: u32,
    /// The potential nodes: those the pod failed for reasons removing pods
    /// could fix.
    pub potential: u32,
    /// How many potential nodes were dry-run, from `offset` on.
    pub evaluated: u32,
    /// Where in the potential nodes (slot order) the dry run started.
    pub offset: u32,
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
            "; at tick {} {verb} {} lower-priority pod(s) on {} ({}) for it (priority {}): {} of {} candidate node(s) found by dry-running {} of {} potential node(s), chosen by {} (PDB violations {}, highest victim priority {}, priority sum {}, earliest start of the highest-priority victims tick {})",
            self.tick,
            c.victim_count,
            self.node,
            c.victims.join(", "),
            self.priority,
            self.node,
            self.found,
            self.evaluated,
            self.potential,
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

/// A decision as the preemptor keeps it: node slots and (owner, ordinal)
/// ids, rendered into a [`Preemption`] when asked. Node slots and owner ids
/// are never given to another object (a removed node that comes back takes
/// its old slot), so the names read later are the names of then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PreemptionRecord {
    tick: u64,
    priority: i32,
    decided_by: &'static str,
    /// At most [`KEPT_CANDIDATES`], ranked; the first is the chosen node.
    rows: Vec<Row>,
    /// The chosen node's victims, most important first.
    victims: Vec<(ControllerId, u32)>,
    found: u32,
    potential: u32,
    evaluated: u32,
    offset: u32,
}

/// One kept candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    node: NodeId,
    /// pickOneNodeForPreemption's figures (see [`Found::figures`]).
    figures: [i64; 5],
    /// At most [`KEPT_VICTIMS`] victims (the chosen node's are in the record).
    shown: Vec<(ControllerId, u32)>,
}

/// An upper bound on the heap bytes of one [`PreemptionRecord`] whose chosen
/// node has `victims` victims: the rows (each with at most [`KEPT_VICTIMS`]
/// ids) and the victims' ids, with the allocator's rounding left out (each
/// vector is allocated at its exact length).
pub fn record_bytes_bound(victims: usize) -> usize {
    let id = core::mem::size_of::<(ControllerId, u32)>();
    core::mem::size_of::<PreemptionRecord>()
        + KEPT_CANDIDATES * (core::mem::size_of::<Row>() + KEPT_VICTIMS * id)
        + victims * id
}

impl PreemptionRecord {
    /// The decision as `explain` shows it, names read from `c`.
    pub(crate) fn render(&self, c: &Cluster, preemptor: String, recorded: bool) -> Preemption {
        let name_of = |&(o, i): &(ControllerId, u32)| c.pod_name(o, i);
        let candidates = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| PreemptionCandidate {
                node: c.nodes[r.node.0 as usize].spec.name.clone(),
                victims: if i == 0 {
                    self.victims.iter().map(name_of).collect()
                } else {
                    r.shown.iter().map(name_of).collect()
                },
                victim_count: -r.figures[3] as u32,
                pdb_violations: -r.figures[0] as u32,
                highest_priority: -r.figures[1] as i32,
                priority_sum: -r.figures[2],
                earliest_start: r.figures[4] as u64,
            })
            .collect();
        Preemption {
            tick: self.tick,
            preemptor,
            priority: self.priority,
            node: c.nodes[self.rows[0].node.0 as usize].spec.name.clone(),
            decided_by: self.decided_by,
            candidates,
            found: self.found,
            potential: self.potential,
            evaluated: self.evaluated,
            offset: self.offset,
            recorded,
        }
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
    /// pickOneNodeForPreemption's figures, larger is better for each (as
    /// kube-scheduler's score functions): -violations, -highest victim
    /// priority, -sum of (priority + 2^31), -victims, the earliest start
    /// among the highest-priority victims.
    figures: [i64; 5],
}

impl Found {
    fn new(c: &Cluster, node: NodeId, victims: Vec<u32>, violations: u32) -> Found {
        let prio = |k: u32| c.pod(k).priority;
        let highest = victims.iter().map(|&k| prio(k)).max().unwrap_or(0);
        let sum: i64 = victims
            .iter()
            .map(|&k| prio(k) as i64 + (i32::MAX as i64 + 1))
            .sum();
        let earliest = victims
            .iter()
            .filter(|&&k| prio(k) == highest)
            .map(|&k| c.pod(k).bound_at())
            .min()
            .unwrap_or(0);
        let figures = [
            -(violations as i64),
            -(highest as i64),
            -sum,
            -(victims.len() as i64),
            earliest as i64,
        ];
        Found {
            node,
            victims,
            figures,
        }
    }
}

/// What the earlier preemptors of one batch's pass leave to the pods after
/// them.
#[derive(Default)]
struct Pass {
    /// Every node taken, in slot order.
    touched: BTreeSet<u32>,
    /// The node taken last.
    last: Option<u32>,
    /// The potential nodes of the batch's template, in slot order, once
    /// found (kept while only resources matter, see `select_candidate`).
    potential: Option<Vec<u32>>,
    /// Each potential node's dry run (in `potential`'s order) for the last
    /// pod, kept for the next while only resources matter and it has the
    /// priority `dry_for`.
    dry: Vec<Dry>,
    dry_for: Option<i32>,
}

/// One node's dry run for a pod.
#[derive(Clone, Debug)]
enum Dry {
    /// Not run (or no longer true).
    Unknown,
    /// No candidate: no lower-priority pod, or the pod fails even without
    /// them.
    None,
    /// The pod fits with no victim.
    Fits,
    /// A candidate, found with what it read of the budgets.
    Candidate(Found, Reads),
}

/// What splitting a node's pods by budgets read of the budgets'
/// allowances: (budget, pods of the node it matched, its allowance clamped
/// to 0..=those pods). Another allowance that clamps alike splits the pods
/// alike (a budget at or below 0 counts every matched pod as violating, one
/// at or above their number none).
type Reads = Vec<(u32, u32, i64)>;

/// Whether `reads` still hold under the allowances `allowed`.
fn reads_hold(reads: &Reads, allowed: &[(crate::model::Selector, i64)]) -> bool {
    reads
        .iter()
        .all(|&(i, m, c)| allowed[i as usize].1.clamp(0, m as i64) == c)
}

/// What one dry run found, ranked, and how much of the cluster it read.
struct DryRun {
    /// The candidates found, the chosen one first, by their place in the
    /// potential nodes (and in the pass's `dry`, which holds them).
    ranked: Vec<u32>,
    potential: u32,
    evaluated: u32,
    offset: u32,
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
            self.record_one(n, true);
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
        let mut pass = Pass::default();
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
            let (run, fits) = self.select_candidate(k, profile, &reserved, &mut pass, &mut work);
            let record = run.as_ref().map(|r| self.record_of(k, r, &pass.dry));
            if let Some(before) = before {
                let name = self.pod_name(self.pod(k).controller, self.pod(k).ordinal);
                let entry = PreemptionTrace {
                    pod: name.clone(),
                    reserved: reserved
                        .iter()
                        .map(|(&n, &(r, c))| (self.nodes[n as usize].spec.name.clone(), r, c))
                        .collect(),
                    before,
                    decision: record.as_ref().map(|r| r.render(self, name, false)),
                };
                if let Some(t) = self.preemption_trace.as_mut() {
                    t.push(entry);
                }
            }
            let (Some(run), Some(record)) = (run, record) else {
                if !fits {
                    hopeless = Some(self.pod(k).priority);
                }
                continue;
            };
            // The chosen node's dry run is stale once it is taken.
            let at = run.ranked[0] as usize;
            let Dry::Candidate(found, _) = core::mem::replace(&mut pass.dry[at], Dry::Unknown)
            else {
                unreachable!("the chosen node is a candidate");
            };
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
            pass.touched.insert(found.node.0);
            pass.last = Some(found.node.0);
            any = true;
        }
        any
    }

    /// What DefaultPreemption would do for `pod` now, without doing it
    /// (`None`: the pod is bound, may not preempt, or no node would do).
    /// The dry run's offset is drawn from a copy of the cluster's PRNG.
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
        let mut pass = Pass::default();
        let (run, _) = me.select_candidate(k, &profile, &BTreeMap::new(), &mut pass, &mut work);
        let name = me.pod_name(p.controller, p.ordinal);
        Ok(run.map(|r| me.record_of(k, &r, &pass.dry).render(&me, name, false)))
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
            return Some(r.render(self, self.pod_name(p.controller, p.ordinal), true));
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
        let p = self.pod(k);
        p.preemption()
            .map(|r| r.render(self, self.pod_name(p.controller, p.ordinal), true))
    }

    /// Tests: the heap bytes of the decision recorded on `pod`, counted as
    /// [`record_bytes_bound`] counts them (vector capacities, not lengths).
    #[doc(hidden)]
    pub fn preemption_record_bytes(&self, pod: &str) -> Option<usize> {
        let k = self.pod_key(pod).ok()?;
        let r = self.pod(k).preemption()?;
        let id = core::mem::size_of::<(ControllerId, u32)>();
        Some(
            core::mem::size_of::<PreemptionRecord>()
                + r.rows.capacity() * core::mem::size_of::<Row>()
                + r.rows
                    .iter()
                    .map(|w| w.shown.capacity() * id)
                    .sum::<usize>()
                + r.victims.capacity() * id,
        )
    }

    /// The potential nodes for pod `k` (findCandidates: the nodes whose
    /// filters failed for a reason removing pods could fix), dry-run from
    /// an offset until enough candidates are found (DryRunPreemption), and
    /// ranked by pickOneNodeForPreemption; the first is chosen. Also says
    /// whether the pod already fits a node, counting the room earlier
    /// preemptors of this pass were promised: the victims of those are gone
    /// at once here (kube-scheduler waits for their graceful exit), so the
    /// room they left beyond the preemptor's needs is free now, and the pod
    /// waits for the next pass, which binds it there, instead of evicting
    /// more pods (kube-scheduler's DryRunPreemption likewise never takes a
    /// node that needs no victim). Only the nodes of `touched` can have such
    /// room; each is checked before the dry run.
    fn select_candidate(
        &mut self,
        k: u32,
        profile: &Profile,
        reserved: &BTreeMap<u32, (Resources, u32)>,
        pass: &mut Pass,
        work: &mut Option<Cluster>,
    ) -> (Option<DryRun>, bool) {
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
        // A pod requesting scalar resources (nvidia.com/gpu, ...) takes the
        // general path: its victims are found with NodeResourcesFit's own
        // filter on a working copy, which counts every resource, so the
        // victims free what the pod lacks (cpu, memory, pods or GPUs), and
        // a node short of a resource it has too little of in all is
        // UnschedulableAndUnresolvable there.
        let scalars = !revision.template.scalar_requests.is_empty();
        // A pinned pod has no hard spread constraint (pinned_node's rule);
        // without inter-pod terms its one node's books are enough, and the
        // batch's per-node state (spreading over every node) is not built.
        // NodePorts: removing the pods that hold a port frees it, which
        // the resources' arithmetic does not see; such a pod takes the
        // general path (every filter on a working copy).
        let ports =
            profile.filter_enabled(Plugin::NodePorts) && !revision.template.host_ports.is_empty();
        let b = if pinned.is_some() && !inter_pod && !scalars && !ports {
            None
        } else {
            Some(self.new_batch(c, rev, profile))
        };
        // Resources are the only filter that removing pods changes unless
        // the pod has hard spread constraints or inter-pod terms.
        let simple = !scalars
            && !ports
            && b.as_ref()
                .is_none_or(|b| b.hard.is_empty() && !b.inter_pod_filter);
        if !simple && work.is_none() {
            *work = Some(self.clone());
        }
        let nodes = match pinned {
            Some(n) => n.0 as usize..n.0 as usize + 1,
            None => 0..self.nodes.len(),
        };
        // The potential nodes, in slot order: not those refused
        // UnschedulableAndUnresolvable. Preemption changes no node's
        // static verdicts, so while only resources matter the list of the
        // pass's first pod of this template serves the others.
        if !simple || pass.potential.is_none() {
            pass.potential = Some(
                nodes
                    .filter(|&i| {
                        let n = NodeId(i as u32);
                        if self.nodes[i].removed {
                            return false;
                        }
                        // The node-level filters refuse UnschedulableAndUnresolvable
                        // (a taint, the node's affinity, cordoned, not ready).
                        if let Err(u) = self.static_filter(n, &revision, profile) {
                            debug_assert_eq!(u.code(), Code::UnschedulableAndUnresolvable);
                            return false;
                        }
                        if simple {
                            // NodeResourcesFit: a request above allocatable
                            // is UnschedulableAndUnresolvable (no victims
                            // make room for it).
                            let (req, cap) = (revision.template.requests, self.hot[i].capacity);
                            return !super::plugins::node_resources_fit::unresolvable(
                                (req.cpu_millis, req.memory_bytes),
                                (cap.cpu_millis, cap.memory_bytes),
                            );
                        }
                        // findCandidates takes only the nodes whose Filter said
                        // Unschedulable: an UnschedulableAndUnresolvable one (a
                        // missing spread key, required pod affinity, a request
                        // above allocatable) stays so whatever is removed.
                        let b = b.as_ref().expect("the general path builds the batch");
                        !matches!(
                            self.dynamic_filter(n, b, profile),
                            Err(u) if u.code() == Code::UnschedulableAndUnresolvable
                        )
                    })
                    .map(|i| i as u32)
                    .collect(),
            );
        }
        let potential = pass
            .potential
            .as_deref()
            .expect("the potential nodes were just found");
        drop(b);
        let req = revision.template.requests;
        let victims_on = |me: &mut Cluster,
                          work: &mut Option<Cluster>,
                          n: NodeId,
                          violating: &[u32],
                          others: &[u32]| {
            if simple {
                me.victims_by_resources(n, req, profile, reserved.get(&n.0), violating, others)
            } else {
                let w = work
                    .as_mut()
                    .expect("a working copy exists for the general path");
                w.victims_by_filters(n, c, rev, profile, violating, others)
            }
        };
        // While only resources matter, a node's room changes only when a
        // preemption takes it: the nodes taken before the last one were
        // checked for this template already (by the pod that took the last).
        // Otherwise a bind moves the spread and affinity counts of every
        // node in its domains: each node taken this pass is checked.
        let check: Vec<u32> = if simple {
            pass.last.into_iter().collect()
        } else {
            pass.touched.iter().copied().collect()
        };
        for t in check {
            if potential.binary_search(&t).is_ok()
                && victims_on(self, work, NodeId(t), &[], &[]).is_some()
            {
                return (None, true);
            }
        }
        let count = potential.len() as u32;
        if count == 0 {
            return (None, false);
        }
        // GetOffsetAndNumCandidates; the offset matters only when the dry
        // run may stop before the last potential node.
        let wanted = candidates_wanted(count) as usize;
        let offset = if (wanted as u32) < count {
            self.rng.below(count as u64) as u32
        } else {
            0
        };
        let allowed = self.pdb_allowances();
        // A node's dry run holds for the later pods of the pass while only
        // resources matter, the node is not taken, the pod's priority is the
        // same and the budgets' allowances split the node's pods alike.
        if !simple || pass.dry_for != Some(prio) {
            pass.dry.clear();
            pass.dry_for = simple.then_some(prio);
        }
        pass.dry.resize(count as usize, Dry::Unknown);
        // DryRunPreemption: candidates breaking no budget and the others,
        // each list holding at most `wanted`.
        let mut clean: Vec<([i64; 5], u32)> = Vec::new();
        let mut violating: Vec<([i64; 5], u32)> = Vec::new();
        let mut evaluated = 0;
        for i in 0..count {
            if !clean.is_empty() && clean.len() + violating.len() >= wanted {
                break;
            }
            let j = ((offset + i) % count) as usize;
            let n = potential[j];
            evaluated += 1;
            let stale = match &pass.dry[j] {
                Dry::Unknown => true,
                Dry::Candidate(_, reads) => !reads_hold(reads, &allowed),
                Dry::None | Dry::Fits => false,
            };
            if stale {
                pass.dry[j] = self.dry_run_node(NodeId(n), prio, &allowed, |me, v, o| {
                    victims_on(me, work, NodeId(n), v, o)
                });
            }
            match &pass.dry[j] {
                Dry::Unknown | Dry::None => {}
                // The pod fits here as things are (a state the batch did
                // not see): no preemption.
                Dry::Fits => return (None, true),
                Dry::Candidate(f, _) => {
                    let list = if f.figures[0] == 0 {
                        &mut clean
                    } else {
                        &mut violating
                    };
                    if list.len() < wanted {
                        list.push((f.figures, j as u32));
                    }
                }
            }
        }
        if clean.is_empty() && violating.is_empty() {
            return (None, false);
        }
        // pickOneNodeForPreemption: the best figures, rule by rule; then the
        // lowest node slot (the potential nodes are in slot order).
        let mut ranked = clean;
        ranked.append(&mut violating);
        ranked.sort_by_key(|&(f, j)| (Reverse(f), j));
        (
            Some(DryRun {
                ranked: ranked.into_iter().map(|(_, j)| j).collect(),
                potential: count,
                evaluated,
                offset,
            }),
            false,
        )
    }

    /// SelectVictimsOnNode for one potential node: its lower-priority pods
    /// in importance order, split by budgets, and reprieved by `victims`.
    fn dry_run_node(
        &mut self,
        n: NodeId,
        prio: i32,
        allowed: &[(crate::model::Selector, i64)],
        victims: impl FnOnce(&mut Cluster, &[u32], &[u32]) -> Option<(Vec<u32>, u32)>,
    ) -> Dry {
        let mut lower: Vec<u32> = self.node_pods[n.0 as usize]
            .iter()
            .copied()
            .filter(|&v| self.pod(v).priority < prio)
            .collect();
        // No lower-priority pod: no candidate.
        if lower.is_empty() {
            return Dry::None;
        }
        lower.sort_by_key(|&v| importance(self, v));
        let (violating, others, reads) = self.split_by_pdb(&lower, allowed);
        match victims(self, &violating, &others) {
            None => Dry::None,
            Some((v, _)) if v.is_empty() => Dry::Fits,
            Some((mut v, violations)) => {
                v.sort_by_key(|&k| importance(self, k));
                Dry::Candidate(Found::new(self, n, v, violations), reads)
            }
        }
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
    /// others), each keeping that order, and what the split read of the
    /// budgets (see [`Reads`]).
    fn split_by_pdb(
        &self,
        pods: &[u32],
        allowed: &[(crate::model::Selector, i64)],
    ) -> (Vec<u32>, Vec<u32>, Reads) {
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
        // A budget matched m pods here: the split read its allowance
        // clamped to 0..=m.
        let reads = allowed
            .iter()
            .zip(&left)
            .enumerate()
            .filter(|(_, ((_, a), l))| *a != **l)
            .map(|(i, ((_, a), l))| {
                let m = (a - l) as u32;
                (i as u32, m, (*a).clamp(0, m as i64))
            })
            .collect();
        (violating, others, reads)
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
                (req.cpu_millis, req.memory_bytes),
                (alloc.cpu_millis, alloc.memory_bytes),
                (
                    node.spec.capacity.cpu_millis,
                    node.spec.capacity.memory_bytes,
                ),
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

    /// What the preemptor keeps of a dry run: the best rows, the chosen
    /// node's victims, the counts.
    fn record_of(&self, k: u32, run: &DryRun, dry: &[Dry]) -> PreemptionRecord {
        let id = |v: &u32| {
            let q = self.pod(*v);
            (q.controller, q.ordinal)
        };
        let found = |&j: &u32| match &dry[j as usize] {
            Dry::Candidate(f, _) => f,
            other => unreachable!("a ranked node is a candidate, not {other:?}"),
        };
        let chosen = found(&run.ranked[0]);
        let rows = run
            .ranked
            .iter()
            .take(KEPT_CANDIDATES)
            .map(found)
            .enumerate()
            .map(|(i, f)| Row {
                node: f.node,
                figures: f.figures,
                shown: if i == 0 {
                    Vec::new()
                } else {
                    f.victims.iter().take(KEPT_VICTIMS).map(id).collect()
                },
            })
            .collect();
        let decided_by = match run.ranked.get(1) {
            None => "the only candidate",
            Some(second) => {
                let (a, z) = (chosen.figures, found(second).figures);
                match (0..5).find(|&i| a[i] != z[i]) {
                    Some(i) => PICK_RULES[i],
                    None => "first in node order (every figure ties)",
                }
            }
        };
        PreemptionRecord {
            tick: self.now,
            priority: self.pod(k).priority,
            decided_by,
            rows,
            victims: chosen.victims.iter().map(id).collect(),
            found: run.ranked.len() as u32,
            potential: run.potential,
            evaluated: run.evaluated,
            offset: run.offset,
        }
    }

    /// Deletes the victims with Kubernetes' events and nominates the node.
    fn execute_preemption(&mut self, k: u32, found: &Found, record: PreemptionRecord) {
        let node_name = self.nodes[found.node.0 as usize].spec.name.clone();
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
            // The kubelet's Killing follows as it stops the victim.
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
        p.set_preemption(record);
        if let Some(m) = before.filter(|&m| m != found.node) {
            if let Some(set) = self.nominees.get_mut(&m.0) {
                set.remove(&k);
            }
        }
        nominees.insert(k);
        self.nominees.insert(found.node.0, nominees);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// calculateNumCandidates with the defaults (10%, 100): at least 100,
    /// never more than the potential nodes.
    #[test]
    fn candidates_wanted_follows_calculate_num_candidates() {
        for (potential, wanted) in [
            (0, 0),
            (1, 1),
            (50, 50),
            (100, 100),
            (101, 100),
            (1_000, 100),
            (1_009, 100),
            (1_010, 101),
            (5_000, 500),
            (10_000, 1_000),
            (u32::MAX, 429_496_729),
        ] {
            assert_eq!(
                candidates_wanted(potential),
                wanted,
                "{potential} potential nodes"
            );
        }
    }
}
