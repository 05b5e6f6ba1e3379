//! NodePorts' Filter on a node (nodeports/node_ports.go, `Filter`).

use super::first_conflict;
use crate::model::ports::HostPort;
use crate::scheduler::*;

impl Cluster {
    /// The Filter as the framework runs it (the registry's `runs`): nothing
    /// for a pod without host ports (PreFilter's Skip, `Batch::host_ports`).
    #[inline]
    pub(in crate::scheduler) fn node_ports_filter(
        &self,
        n: NodeId,
        b: &Batch,
        _profile: &Profile,
    ) -> Result<(), Unfit> {
        if !b.host_ports {
            return Ok(());
        }
        self.node_ports_verdict(n, &b.rev.template.host_ports)
    }

    /// The pod's host ports (`want`, the PreFilter state) against those
    /// the node's pods take.
    pub(in crate::scheduler) fn node_ports_verdict(
        &self,
        n: NodeId,
        want: &[HostPort],
    ) -> Result<(), Unfit> {
        if let Some(p) = first_conflict(want, &self.used_ports[n.0 as usize]) {
            return Err(Unfit::NodePorts(super::Taken(p.clone())));
        }
        Ok(())
    }
}
