//! NodeResourcesFit's Filter on a node (noderesources/fit.go), from the
//! node's packed record.

use super::{insufficient, unresolvable};
use crate::scheduler::*;

impl Cluster {
    /// The pod's cpu and memory against what the node has left, and one
    /// more pod against its free pod slots.
    #[inline]
    pub(in crate::scheduler) fn fit_filter(&self, n: NodeId, b: &Batch) -> Result<(), Unfit> {
        let h = &self.hot[n.0 as usize];
        // The pods verdict from the packed record: a node
        // without room for one more pod has none free (its
        // list may wait to be filed, see `Cluster::unfiled`).
        let (cpu, memory, _) = insufficient(
            (b.req.cpu_millis, b.req.memory_bytes),
            (h.allocated.cpu_millis, h.allocated.memory_bytes),
            (h.capacity.cpu_millis, h.capacity.memory_bytes),
            0,
            1,
        );
        let pods = h.pods_free == 0;
        if cpu || memory || pods {
            return Err(Unfit::Insufficient {
                cpu,
                memory,
                pods,
                unresolvable: unresolvable(
                    (b.req.cpu_millis, b.req.memory_bytes),
                    (h.capacity.cpu_millis, h.capacity.memory_bytes),
                ),
            });
        }
        Ok(())
    }
}
