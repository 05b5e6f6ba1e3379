//! TaintToleration's Filter on a node (tainttoleration/taint_toleration.go),
//! with the node lifecycle controller's condition taints of a node that is
//! not Ready.

use super::first_untolerated;
use crate::scheduler::*;

impl Cluster {
    /// The node's first NoSchedule or NoExecute taint the pod does not
    /// tolerate, its own taints first.
    pub(in crate::scheduler) fn taint_toleration_filter(
        &self,
        n: NodeId,
        pod: cache::StaticInputs<'_>,
    ) -> Result<(), Unfit> {
        let node = &self.nodes[n.0 as usize];
        if let Some(t) = first_untolerated(&node.spec.taints, pod.tolerations) {
            return Err(Unfit::TaintToleration(super::Untolerated(t.clone())));
        }
        // A node that is not Ready carries the node lifecycle
        // controller's `unreachable` taints after its own
        // (`Cluster::condition_taints`); the NoExecute one is
        // also tolerated by what DefaultTolerationSeconds added.
        if !node.ready {
            let tolerated = |t: &crate::model::Taint| {
                (pod.tolerations.iter())
                    .chain(pod.added_tolerations)
                    .any(|tol| tol.tolerates(t))
            };
            if let Some(t) = self.condition_taints(n).into_iter().find(|t| !tolerated(t)) {
                return Err(Unfit::TaintToleration(super::Untolerated(t)));
            }
        }
        Ok(())
    }
}
