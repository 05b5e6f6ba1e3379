//! NodePorts' state: the node's book of used host ports (kube-scheduler's
//! `NodeInfo.UsedPorts`, updated in `NodeInfo.update` as pods come and
//! go), kept by the cluster at every bind and unbind. The PreFilter state
//! (the pod's ports) is the template's `host_ports`, shared by the batch.

use crate::cluster::Cluster;

impl Cluster {
    /// Adds (a bind) or takes back (an unbind) pod `k`'s host ports on node
    /// `i`; nothing for the common pod that has none.
    #[inline]
    pub(crate) fn book_host_ports(&mut self, k: u32, i: usize, add: bool) {
        let (c, r) = {
            let p = self.pod(k);
            (p.controller.0 as usize, p.revision as usize - 1)
        };
        let rev = &self.controllers[c].revisions[r];
        if rev.template.host_ports.is_empty() {
            return;
        }
        // The revision is shared: a handle, not a copy of its ports.
        let rev = alloc::rc::Rc::clone(rev);
        if add {
            self.used_ports[i].add(&rev.template.host_ports);
        } else {
            self.used_ports[i].remove(&rev.template.host_ports);
        }
    }

    /// The host ports the pods bound to node `n` take.
    pub fn used_ports(&self, n: crate::cluster::NodeId) -> &super::UsedPorts {
        &self.used_ports[n.0 as usize]
    }
}
