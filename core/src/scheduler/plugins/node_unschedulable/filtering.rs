//! NodeUnschedulable's Filter on a node (nodeunschedulable/node_unschedulable.go).

use super::filter;
use crate::scheduler::*;

impl Cluster {
    /// A cordoned node refuses a pod that does not tolerate its
    /// `unschedulable` taint.
    pub(in crate::scheduler) fn node_unschedulable_filter(
        &self,
        n: NodeId,
        pod: cache::StaticInputs<'_>,
    ) -> Result<(), Unfit> {
        let node = &self.nodes[n.0 as usize];
        if !filter(node.cordoned, pod.tolerations) {
            return Err(Unfit::NodeUnschedulable(super::Cordoned));
        }
        Ok(())
    }
}
