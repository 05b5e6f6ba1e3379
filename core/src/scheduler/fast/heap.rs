//! The heap path: a batch whose scores all read their node alone, under a
//! profile that scores every node with lowest-id ties, is placed from one
//! scan into a heap, each bind re-scoring its own node.

use crate::scheduler::*;

impl Cluster {
    /// A batch the heap path could serve (every node scored, lowest-id
    /// ties) lends a kept sample index instead when refiling what changed
    /// since its last batch costs less than the heap's pass over every
    /// node: then its cycles read the index (`cycle_indexed`, which breaks
    /// ties by lowest id as well), as a small Deployment among thousands
    /// would otherwise visit all 5,000 nodes for a pod or two.
    pub(in crate::scheduler) fn index_instead_of_heap(
        &mut self,
        b: &mut Batch,
        pods: usize,
        profile: &Profile,
    ) {
        let n = self.nodes.len();
        // Only for a batch whose cycles cost well under the heap's pass
        // (the heap pops a pod's node in a few steps; an indexed cycle
        // reads every group's summary when every node is scored), as large
        // batches were slower through the index (docs/speed-history.md).
        let heap = n as u64 * SCAN_VISIT;
        if b.inter_pod_filter
            || (pods as u64).saturating_mul(CYCLE_VISITS) * 4 > heap
            || !self.index_allowed()
            || n < INDEX_MIN_NODES
            || !(self.bound_classes(b) && self.fast_cycle_applies(b, profile))
        {
            return;
        }
        // What `cycle` would work out at its first call.
        b.fast = Some(true);
        b.heap_cost = Some(heap);
        b.pods_left = pods;
        b.index_tried = true;
        self.lend_index(b, profile);
        #[cfg(test)]
        {
            self.caches.heap_indexes += b.index.is_some() as u32;
        }
    }

    /// Whether every enabled score of this batch depends on its node alone
    /// (or is the same for every node), and the profile scores every node
    /// with lowest-id ties: then a heap of nodes chooses what the cycle would.
    pub(in crate::scheduler) fn heap_path(&self, b: &Batch, profile: &Profile) -> bool {
        if b.scalars || b.host_ports {
            return false;
        }
        if profile.tie_break != TieBreak::LowestNodeId
            || profile.feasible_nodes_to_find(b.live_nodes) < b.live_nodes
            || !b.hard.is_empty()
        {
            return false;
        }
        // Every score node-local or the same on every node, whatever taints
        // the nodes carry (the heap scores every node once, before any is
        // visited): the shapes the plugins declare (the registry's
        // `scoring`).
        profile
            .scores
            .iter()
            .all(|&(p, _)| self.score_shape(p, b, true) != ScoreShape::Varies)
    }

    /// The teaching profiles' path: one scan into a heap, then each bind
    /// re-scores only its node (the only one whose score changed).
    pub(in crate::scheduler) fn schedule_batch_heap(
        &mut self,
        b: &mut Batch,
        keys: &[u32],
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, usize) {
        const TOP: i64 = 1 << 30;
        let key_of = |total: i64, n: NodeId| ((TOP - total) as u64) << 32 | n.0 as u64;
        let mut heap_keys: Vec<u64> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            if !self.feasible_fast(i, b, profile) {
                continue;
            }
            let n = NodeId(i as u32);
            heap_keys.push(key_of(self.local_cached(i, b, profile), n));
        }
        // Without inter-pod terms only the bound node's score changes, so the
        // k pods of the batch land within the k best nodes: keep just those.
        if !b.inter_pod_filter && heap_keys.len() > keys.len() {
            heap_keys.select_nth_unstable(keys.len() - 1);
            heap_keys.truncate(keys.len());
        }
        let mut heap: BinaryHeap<Reverse<u64>> = heap_keys.into_iter().map(Reverse).collect();
        let (mut bound, mut i) = (0, 0);
        while i < keys.len() {
            let Some(Reverse(key)) = heap.pop() else {
                break;
            };
            let n = NodeId(key as u32);
            // Only this batch's own binds can have changed feasibility since
            // the node was pushed (inter-pod terms, pods count); check again.
            if self.dynamic_filter(n, b, profile).is_err() {
                continue;
            }
            self.record_one(n, false);
            self.bind_observed(keys[i], n, &mut on_bind);
            bound += 1;
            i += 1;
            if self.dynamic_filter(n, b, profile).is_ok() {
                heap.push(Reverse(key_of(
                    self.local_cached(n.0 as usize, b, profile),
                    n,
                )));
            }
        }
        (bound, i)
    }
}
