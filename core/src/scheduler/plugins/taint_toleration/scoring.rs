//! TaintToleration's Score fed from the node's spec (taint_toleration.go,
//! Score and NormalizeScore).

use crate::scheduler::*;

impl Cluster {
    /// The raw score on node `i`: the PreferNoSchedule taints the pod does
    /// not tolerate (the packed record says whether the node has any).
    #[inline]
    pub(in crate::scheduler) fn taint_toleration_raw(
        &self,
        i: u32,
        b: &mut Batch,
        _profile: &Profile,
        _cached: bool,
    ) -> i64 {
        if self.hot[i as usize].soft_taints {
            taint_toleration::count_intolerable_prefer_no_schedule(
                &self.nodes[i as usize].spec.taints,
                &b.rev.template.tolerations,
            )
        } else {
            0
        }
    }

    /// Every raw score is 0 when no node of the sample carries a
    /// PreferNoSchedule taint: reverse-normalised, 100 on every node.
    #[inline]
    pub(in crate::scheduler) fn taint_toleration_uniform(
        &self,
        _b: &Batch,
        soft_taints: bool,
    ) -> Option<i64> {
        (!soft_taints).then_some(plugins::MAX_NODE_SCORE)
    }
}
