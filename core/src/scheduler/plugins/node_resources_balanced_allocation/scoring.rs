//! NodeResourcesBalancedAllocation's Score fed from the node's books.

use crate::scheduler::*;

impl Cluster {
    pub(in crate::scheduler) fn balanced_score(&self, n: NodeId, b: &Batch) -> i64 {
        if b.best_effort {
            return 0;
        }
        let h = &self.hot[n.0 as usize];
        balanced::score(
            &[
                (h.allocated.cpu_millis + b.req.cpu_millis) as i64,
                (h.allocated.memory_bytes + b.req.memory_bytes) as i64,
            ],
            &[
                h.allocated.cpu_millis as i64,
                h.allocated.memory_bytes as i64,
            ],
            &[h.capacity.cpu_millis as i64, h.capacity.memory_bytes as i64],
        )
    }
}
