//! NodeUnschedulable: a cordoned node (`spec.unschedulable: true`) takes no
//! new pods, unless the pod tolerates the `node.kubernetes.io/unschedulable`
//! NoSchedule taint, as kube-scheduler allows.

// The plugin in the framework: fed from the cluster's books and the batch.
mod filtering;

/// Why the Filter refused a node: it is cordoned and the pod does not
/// tolerate its `unschedulable` taint ([`REASON`]). Removing pods cannot
/// help: UnschedulableAndUnresolvable (node_unschedulable.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cordoned;

impl super::FilterReason for Cordoned {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(REASON)]
    }
    fn code(&self) -> crate::scheduler::Code {
        crate::scheduler::Code::UnschedulableAndUnresolvable
    }
}

use crate::model::{Taint, TaintEffect, Toleration};

/// The taint key kube-scheduler checks a cordoned node's tolerations against.
pub const UNSCHEDULABLE_TAINT_KEY: &str = "node.kubernetes.io/unschedulable";

/// The filter's reason, as kube-scheduler words it.
pub const REASON: &str = "node(s) were unschedulable";

/// Whether a pod with these tolerations may land on a node that is
/// (`unschedulable`) or is not cordoned.
pub fn filter(unschedulable: bool, tolerations: &[Toleration]) -> bool {
    if !unschedulable {
        return true;
    }
    let taint = Taint::new(UNSCHEDULABLE_TAINT_KEY, "", TaintEffect::NoSchedule);
    tolerations.iter().any(|t| t.tolerates(&taint))
}
