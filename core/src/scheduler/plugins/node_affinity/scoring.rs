//! NodeAffinity's Score (node_affinity.go, PreScore, Score and
//! NormalizeScore): the weights of the preferred terms a node matches.

use crate::scheduler::*;

impl Cluster {
    /// The raw score on node `i`: from the batch's cache when `cached`
    /// (kept until the node's spec changes), 0 for a pod without
    /// preferred terms (or a profile without the score).
    #[inline]
    pub(in crate::scheduler) fn node_affinity_raw(
        &self,
        i: u32,
        b: &mut Batch,
        _profile: &Profile,
        cached: bool,
    ) -> i64 {
        if !b.node_affinity_score {
            0
        } else if cached {
            self.na_raw_cached(i as usize, b)
        } else {
            let s = &self.nodes[i as usize].spec;
            node_affinity::score(&s.name, &s.labels, &b.rev.template.node_affinity)
        }
    }

    /// Without preferred terms every raw score is 0, and so is every
    /// normalised one.
    #[inline]
    pub(in crate::scheduler) fn node_affinity_uniform(
        &self,
        b: &Batch,
        _soft_taints: bool,
    ) -> Option<i64> {
        (!b.node_affinity_score).then_some(0)
    }

    /// PreScore's Skip: the pod has no preferred term.
    pub(in crate::scheduler) fn node_affinity_prescore_skips(
        &self,
        b: &Batch,
        _profile: &Profile,
    ) -> bool {
        b.rev.template.node_affinity.preferred.is_empty()
    }
}
