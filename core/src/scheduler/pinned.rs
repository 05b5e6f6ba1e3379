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

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::plugins::node_resources_fit as fit;
use super::{OnBind, Plugin, Profile, Unfit};
use crate::affinity::NodeSelectorOperator;
use crate::cluster::{Cluster, ControllerId, NodeId, Revision};
use crate::model::WhenUnsatisfiable;

impl Cluster {
    /// The node a revision's template is pinned to by its required node
    /// affinity (one term, one `metadata.name In [name]`), when the pinned
    /// path applies to it.
    pub(super) fn pinned_node(&self, rev: &Revision) -> Option<NodeId> {
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

    /// Every filter of the profile for the pinned node, in its order
    /// (NodeReady first), as `filter_node` runs them.
    fn pinned_verdict(&self, n: NodeId, rev: &Revision, profile: &Profile) -> Result<(), Unfit> {
        self.static_filter(n, rev, profile)?;
        let node = &self.nodes[n.0 as usize];
        let req = rev.template.requests;
        for p in &profile.filters {
            match p {
                Plugin::NodeResourcesFit => {
                    let (cpu, memory, pods) = fit::insufficient(
                        (req.cpu_millis, req.memory_mib),
                        (node.allocated.cpu_millis, node.allocated.memory_mib),
                        (node.spec.capacity.cpu_millis, node.spec.capacity.memory_mib),
                        node.pods.len() as u32,
                        node.spec.max_pods,
                    );
                    if cpu || memory || pods {
                        return Err(Unfit::Insufficient { cpu, memory, pods });
                    }
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
    pub(super) fn schedule_pinned(
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
                let message = self.pinned_failure_message(n, &rev, profile, &u);
                self.record_failure(c, rev_no, &keys[i..], message);
                return (bound, true);
            }
            self.bind_observed(k, n, &mut on_bind);
            bound += 1;
        }
        (bound, false)
    }

    /// The message the full scan writes: the pinned node's reasons, and each
    /// other live node's first refusing static filter.
    fn pinned_failure_message(
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
                match self.static_filter(NodeId(i as u32), rev, profile) {
                    Err(other) => other.reasons(),
                    // Unreachable for a name pin; kept total for safety.
                    Ok(()) => Vec::new(),
                }
            };
            for r in reasons {
                *hist.entry(r).or_default() += 1;
            }
        }
        let mut parts: Vec<String> = hist.into_iter().map(|(r, k)| format!("{k} {r}")).collect();
        parts.sort();
        format!("0/{total} nodes are available: {}.", parts.join(", "))
    }
}
