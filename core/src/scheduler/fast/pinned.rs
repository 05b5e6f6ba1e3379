//! Pods pinned to one node by name: kube-scheduler's NodeAffinity PreFilter.
//!
//! When every required node selector term of a pod names nodes by
//! `matchFields metadata.name In [...]`, NodeAffinity's PreFilter returns
//! those node names and the framework filters only them (this is how a
//! DaemonSet pod, whose controller pins it with such a term, is scheduled
//! without a scan of the cluster). With one candidate there is nothing to
//! score: a single feasible node is chosen as it is.
//!
//! The engine takes the path for a template pinned to exactly one node and
//! without hard topology spread constraints (the one filter that needs the
//! batch's per-domain counts); everything else goes through the general
//! cycle. The verdict is the same filters in the profile's order, so the
//! pod lands where a full scan would put it. A pod that does not fit gets
//! the FailedScheduling message the full scan writes (every other live node
//! counted by the first filter that refuses it, NodeAffinity at the latest),
//! computed only when it fails.
//!
//! The pods of one DaemonSet generation differ only in the node they are
//! pinned to, so the other nodes' reasons are counted once per generation
//! and kept (`PinnedMessages`) until a node changes in a way the static
//! filters read (`Cluster::node_epoch`): the message for a pod pinned to
//! node `n` is that tally with `n`'s own verdict in place of what `n`
//! counted under the pin of the tally, and the tally's pinned node counted
//! as any other. A DaemonSet that fits on none of 5,000 nodes so writes its
//! 5,000 messages from one scan instead of 5,000.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::affinity::NodeSelectorOperator;
use crate::cluster::{Cluster, ControllerId, NodeId, Revision, Workload};
use crate::model::WhenUnsatisfiable;
use crate::scheduler::plugins::node_resources_fit as fit;
use crate::scheduler::{OnBind, Plugin, Profile, Unfit};

/// The other nodes' FailedScheduling reasons for pinned pods, per group of
/// revisions that differ only in their pin (a DaemonSet generation; any
/// other pinned revision is a group of its own).
#[derive(Clone, Debug, Default)]
pub(crate) struct PinnedMessages {
    /// The `Cluster::node_epoch` the tallies were counted at: all of them
    /// are dropped when it moves.
    epoch: u64,
    /// By (controller, whether a DaemonSet generation, generation or revision).
    tallies: BTreeMap<(u32, bool, u32), Tally>,
}

/// At most this many groups are kept; more clears them all (each is
/// recounted by one scan when next needed).
const MAX_TALLIES: usize = 256;

#[derive(Clone, Debug)]
struct Tally {
    /// The profile's filters it was counted under, in order.
    filters: Vec<Plugin>,
    /// The revision it was counted for, and the node that revision is pinned to.
    rev_no: u32,
    pin: NodeId,
    /// Each reason's count over the live nodes other than `pin`.
    others: BTreeMap<String, u32>,
    /// How many live nodes other than `pin` there are.
    total: u32,
}

impl Cluster {
    /// The node a revision's template is pinned to by its required node
    /// affinity (one term, one `metadata.name In [name]`), when the pinned
    /// path applies to it.
    pub(in crate::scheduler) fn pinned_node(&self, rev: &Revision) -> Option<NodeId> {
        let t = &rev.template;
        let terms = t.node_affinity.required.as_ref()?;
        let [term] = terms.as_slice() else {
            return None;
        };
        let [field] = term.match_fields.as_slice() else {
            return None;
        };
        if !term.match_expressions.is_empty()
            || field.key != "metadata.name"
            || field.operator != NodeSelectorOperator::In
            || field.values.len() != 1
            || t.topology_spread
                .iter()
                .any(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
        {
            return None;
        }
        // A name no live node has leaves no candidate: the general path
        // reports that as it reports any node affinity nobody matches.
        self.node_id(&field.values[0]).ok()
    }

    /// Every filter of the profile for the pinned node, in its order, as
    /// `filter_node` runs them.
    fn pinned_verdict(&self, n: NodeId, rev: &Revision, profile: &Profile) -> Result<(), Unfit> {
        self.static_filter(n, rev, profile)?;
        let node = &self.nodes[n.0 as usize];
        let req = rev.template.requests;
        for p in &profile.filters {
            match p {
                Plugin::NodeResourcesFit => {
                    let (cpu, memory, pods) = fit::insufficient(
                        (req.cpu_millis, req.memory_bytes),
                        (
                            self.hot[n.0 as usize].allocated.cpu_millis,
                            self.hot[n.0 as usize].allocated.memory_bytes,
                        ),
                        (
                            node.spec.capacity.cpu_millis,
                            node.spec.capacity.memory_bytes,
                        ),
                        self.node_pods[n.0 as usize].len() as u32,
                        node.spec.max_pods,
                    );
                    let (scalars, beyond) = if rev.template.scalar_requests.is_empty() {
                        (Vec::new(), false)
                    } else {
                        self.scalar_shortage(n, &rev.template.scalar_requests, profile)
                    };
                    if cpu || memory || pods || !scalars.is_empty() {
                        return Err(Unfit::NodeResourcesFit(fit::Insufficient {
                            cpu,
                            memory,
                            pods,
                            scalars,
                            unresolvable: beyond
                                || fit::unresolvable(
                                    (req.cpu_millis, req.memory_bytes),
                                    (
                                        node.spec.capacity.cpu_millis,
                                        node.spec.capacity.memory_bytes,
                                    ),
                                ),
                        }));
                    }
                }
                Plugin::NodePorts if !rev.template.host_ports.is_empty() => {
                    self.node_ports_verdict(n, &rev.template.host_ports)?
                }
                Plugin::InterPodAffinity
                    if !rev.affinity_ids.is_empty()
                        || !rev.anti_ids.is_empty()
                        || !rev.matching_terms.is_empty() =>
                {
                    self.inter_pod_filter(n, rev)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Schedules the pending pods of a pinned revision on its node, in
    /// ordinal order. Returns (binds, whether some are left pending).
    pub(in crate::scheduler) fn schedule_pinned(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        n: NodeId,
        keys: &[u32],
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, bool) {
        let rev = self.controllers[c.0 as usize].revisions[rev_no as usize - 1].clone();
        let mut bound = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Err(u) = self.pinned_verdict(n, &rev, profile) {
                let message = self.pinned_failure_message(c, rev_no, n, &rev, profile, &u);
                self.record_failure(c, rev_no, &keys[i..], message);
                return (bound, true);
            }
            self.record_one(n, false);
            self.bind_observed(k, n, &mut on_bind);
            bound += 1;
        }
        (bound, false)
    }

    /// The message the full scan writes: the pinned node's reasons, and each
    /// other live node's first refusing static filter, from the group's
    /// tally (counted here if missing or stale).
    fn pinned_failure_message(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        n: NodeId,
        rev: &Revision,
        profile: &Profile,
        u: &Unfit,
    ) -> String {
        if self.pinned_messages.epoch != self.node_epoch
            || self.pinned_messages.tallies.len() >= MAX_TALLIES
        {
            self.pinned_messages.tallies.clear();
            self.pinned_messages.epoch = self.node_epoch;
        }
        let ctl = &self.controllers[c.0 as usize];
        let group = match &ctl.workload {
            Workload::DaemonSet(d) => (c.0, true, d.rev_info[rev_no as usize - 1].0),
            _ => (c.0, false, rev_no),
        };
        let tally = match self.pinned_messages.tallies.remove(&group) {
            Some(t) if t.filters == profile.filters => t,
            _ => self.tally_others(n, rev_no, rev, profile),
        };
        let mut hist = tally.others.clone();
        if tally.pin != n {
            // `n` was counted under the tally's pin; the tally's pinned node
            // was not counted at all.
            let counted = &self.controllers[c.0 as usize].revisions[tally.rev_no as usize - 1];
            for r in self.static_reasons(n, counted, profile) {
                if let Some(k) = hist.get_mut(&r) {
                    *k -= 1;
                    if *k == 0 {
                        hist.remove(&r);
                    }
                }
            }
            for r in self.static_reasons(tally.pin, rev, profile) {
                *hist.entry(r).or_default() += 1;
            }
        }
        for r in u.reasons() {
            *hist.entry(r).or_default() += 1;
        }
        let message = render(tally.total + 1, hist);
        debug_assert_eq!(
            message,
            self.scanned_failure_message(n, rev, profile, u),
            "the tally must give the full scan's message"
        );
        self.pinned_messages.tallies.insert(group, tally);
        message
    }

    /// Every live node but `pin` under its first refusing static filter.
    fn tally_others(&self, pin: NodeId, rev_no: u32, rev: &Revision, profile: &Profile) -> Tally {
        let mut others: BTreeMap<String, u32> = BTreeMap::new();
        let mut total = 0;
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed || i == pin.0 as usize {
                continue;
            }
            total += 1;
            for r in self.static_reasons(NodeId(i as u32), rev, profile) {
                *others.entry(r).or_default() += 1;
            }
        }
        Tally {
            filters: profile.filters.clone(),
            rev_no,
            pin,
            others,
            total,
        }
    }

    /// A node's reasons under its first refusing static filter (none for a
    /// node the pin admits: unreachable for the nodes other than the pin,
    /// kept total for safety).
    fn static_reasons(&self, n: NodeId, rev: &Revision, profile: &Profile) -> Vec<String> {
        match self.static_filter(n, rev, profile) {
            Err(u) => u.reasons(),
            Ok(()) => Vec::new(),
        }
    }

    /// The message counted node by node: what the tally must agree with.
    fn scanned_failure_message(
        &self,
        n: NodeId,
        rev: &Revision,
        profile: &Profile,
        u: &Unfit,
    ) -> String {
        let mut hist: BTreeMap<String, u32> = BTreeMap::new();
        let mut total = 0;
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            total += 1;
            let reasons = if i == n.0 as usize {
                u.reasons()
            } else {
                self.static_reasons(NodeId(i as u32), rev, profile)
            };
            for r in reasons {
                *hist.entry(r).or_default() += 1;
            }
        }
        render(total, hist)
    }
}

/// kube-scheduler's "0/N nodes are available: ..." from reasons and counts.
fn render(total: u32, hist: BTreeMap<String, u32>) -> String {
    let mut parts: Vec<String> = hist.into_iter().map(|(r, k)| format!("{k} {r}")).collect();
    parts.sort();
    format!("0/{total} nodes are available: {}.", parts.join(", "))
}
