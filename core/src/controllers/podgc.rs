//! Pod garbage collection (`pkg/controller/podgc`): the pods lost with
//! their node are deleted.

use alloc::vec::Vec;

use crate::cluster::{Cluster, PodPhase};

impl Cluster {
    /// Deletes the pods that were lost with their node.
    pub(crate) fn collect_lost(&mut self) -> u32 {
        // Every Lost pod is collected below, so none is left until another
        // node's pods are marked (`lose_pods`).
        if !core::mem::take(&mut self.lost_marked) {
            debug_assert!((0..self.controllers.len()).all(|c| self.lost_of(c).is_empty()));
            return 0;
        }
        let mut n = 0;
        for c in 0..self.controllers.len() {
            for k in self.lost_of(c) {
                self.delete_pod(k, None);
                n += 1;
            }
        }
        n
    }

    /// Owner `c`'s Lost pods.
    fn lost_of(&self, c: usize) -> Vec<u32> {
        // Lost pods are unbound and not pending: pods - bound - pending.
        let ctl = &self.controllers[c];
        let unbound: u32 = ctl.counts.values().map(|x| x.pods - x.bound).sum();
        if unbound == ctl.pending.len() as u32 {
            return Vec::new();
        }
        ctl.pods
            .values()
            .copied()
            .filter(|&k| self.pod(k).phase == PodPhase::Lost)
            .collect()
    }
}
