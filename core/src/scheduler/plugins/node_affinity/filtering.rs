//! NodeAffinity's Filter on a node (nodeaffinity/node_affinity.go).

use super::filter_required;
use crate::scheduler::*;

impl Cluster {
    /// nodeSelector and the required node affinity terms against the
    /// node's name and labels.
    pub(in crate::scheduler) fn node_affinity_filter(
        &self,
        n: NodeId,
        pod: cache::StaticInputs<'_>,
    ) -> Result<(), Unfit> {
        let s = &self.nodes[n.0 as usize].spec;
        if !filter_required(&s.name, &s.labels, pod.node_selector, pod.required) {
            return Err(Unfit::NodeAffinity(super::Mismatch));
        }
        Ok(())
    }
}
