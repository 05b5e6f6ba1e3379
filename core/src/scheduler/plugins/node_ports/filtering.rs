//! NodePorts' Filter on a node (nodeports/node_ports.go, `Filter`).

use super::first_conflict;
use crate::model::ports::HostPort;
use crate::scheduler::*;

impl Cluster {
    /// The pod's host ports (`want`, the batch's PreFilter state) against
    /// those the node's pods take. Called only for a pod with host ports
    /// (PreFilter skips the others).
    pub(in crate::scheduler) fn node_ports_filter(
        &self,
        n: NodeId,
        want: &[HostPort],
    ) -> Result<(), Unfit> {
        if let Some(p) = first_conflict(want, &self.used_ports[n.0 as usize]) {
            return Err(Unfit::NodePorts(p.clone()));
        }
        Ok(())
    }
}
