//! NodeResourcesFit's Score fed from the node's books: the scoring
//! strategy over the profile's resources.

use crate::scheduler::profile::MAX_SCORED_RESOURCES;
use crate::scheduler::*;

impl Cluster {
    pub(in crate::scheduler) fn fit_score(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        let mut req = [0i64; MAX_SCORED_RESOURCES];
        let mut alloc = [0i64; MAX_SCORED_RESOURCES];
        let k = profile.fit.resources.len().min(MAX_SCORED_RESOURCES);
        for (i, (r, _)) in profile.fit.resources.iter().take(k).enumerate() {
            // The score counts cpu and memory with the non-zero defaults.
            let (a, on, pod) = self.resource_books(n, b, r, true);
            req[i] = on + pod;
            alloc[i] = a;
        }
        fit::score(&profile.fit, &req[..k], &alloc[..k])
    }

    /// One resource of a score on node `n` for the batch's pods, as
    /// kube-scheduler's `calculateNodeAllocatableRequest` reads it: (the
    /// node's allocatable, what its pods request, what the pod requests).
    /// cpu and memory with the non-zero defaults when `nonzero` (the fit
    /// strategies; BalancedAllocation counts requests as they are). A
    /// scalar resource the pod does not request (ephemeral-storage aside)
    /// is left out, as is one the node has none of: allocatable 0, which
    /// every scorer skips (resource_allocation.go).
    #[inline]
    pub(in crate::scheduler) fn resource_books(
        &self,
        n: NodeId,
        b: &Batch,
        r: &Resource,
        nonzero: bool,
    ) -> (i64, i64, i64) {
        let i = n.0 as usize;
        let h = &self.hot[i];
        let (on, pod) = if nonzero {
            (h.nonzero, b.nonzero)
        } else {
            (h.allocated, b.req)
        };
        match r {
            Resource::Cpu => (
                h.capacity.cpu_millis as i64,
                on.cpu_millis as i64,
                pod.cpu_millis as i64,
            ),
            Resource::Memory => (
                h.capacity.memory_bytes as i64,
                on.memory_bytes as i64,
                pod.memory_bytes as i64,
            ),
            Resource::Scalar(name) => {
                let want = b.rev.template.scalar_requests.get(name);
                if want == 0 && r.skipped_unrequested() {
                    return (0, 0, 0);
                }
                let a = self.nodes[i].spec.scalars.get(name);
                if a == 0 {
                    return (0, 0, 0);
                }
                // Amounts are bounded by MAX_MEMORY_BYTES (2^50), so the
                // sums and the scorers' products stay within i64.
                (a as i64, self.scalar_used[i].get(name) as i64, want as i64)
            }
        }
    }
}
