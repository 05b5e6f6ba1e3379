//! NodeResourcesFit's Score fed from the node's books: the scoring
//! strategy over the profile's resources.

use crate::scheduler::*;

impl Cluster {
    pub(in crate::scheduler) fn fit_score(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        let h = &self.hot[n.0 as usize];
        let mut req = [0i64; 2];
        let mut alloc = [0i64; 2];
        for (i, (r, _)) in profile.fit.resources.iter().enumerate().take(2) {
            let (have, add, cap) = match r {
                Resource::Cpu => (
                    h.nonzero.cpu_millis,
                    b.nonzero.cpu_millis,
                    h.capacity.cpu_millis,
                ),
                Resource::Memory => (
                    h.nonzero.memory_bytes,
                    b.nonzero.memory_bytes,
                    h.capacity.memory_bytes,
                ),
            };
            req[i] = (have + add) as i64;
            alloc[i] = cap as i64;
        }
        let k = profile.fit.resources.len().min(2);
        fit::score(&profile.fit, &req[..k], &alloc[..k])
    }
}
