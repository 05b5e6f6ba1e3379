//! NodeResourcesBalancedAllocation's Score fed from the node's books.

use crate::scheduler::profile::MAX_SCORED_RESOURCES;
use crate::scheduler::*;

impl Cluster {
    pub(in crate::scheduler) fn balanced_score(
        &self,
        n: NodeId,
        b: &Batch,
        profile: &Profile,
    ) -> i64 {
        if b.best_effort {
            return 0;
        }
        let rs = &profile.balanced_resources;
        let k = rs.len().min(MAX_SCORED_RESOURCES);
        let mut with = [0i64; MAX_SCORED_RESOURCES];
        let mut without = [0i64; MAX_SCORED_RESOURCES];
        let mut alloc = [0i64; MAX_SCORED_RESOURCES];
        for (i, r) in rs.iter().take(k).enumerate() {
            let (a, on, pod) = self.resource_books(n, b, r, false);
            with[i] = on + pod;
            without[i] = on;
            alloc[i] = a;
        }
        balanced::score(&with[..k], &without[..k], &alloc[..k])
    }

    /// PreScore's Skip (balanced_allocation.go, `isBestEffortPod`): the
    /// pod requests none of the profile's balanced resources.
    pub(in crate::scheduler) fn balanced_best_effort(
        profile: &Profile,
        t: &crate::model::PodTemplate,
    ) -> bool {
        profile
            .balanced_resources
            .iter()
            .all(|r| r.requested_by(t) == 0)
    }
}

impl Cluster {
    /// PreScore's Skip, for the batch: its pods request none of the
    /// profile's balanced resources (`balanced_best_effort`).
    pub(in crate::scheduler) fn balanced_prescore_skips(
        &self,
        b: &Batch,
        _profile: &Profile,
    ) -> bool {
        b.best_effort
    }
}
