//! TaintToleration. Filter: the first NoSchedule or NoExecute taint the pod
//! does not tolerate rejects the node. Score: the number of PreferNoSchedule
//! taints the pod does not tolerate, normalised in reverse (fewer is better).

// The plugin in the framework: fed from the cluster's books and the batch.
mod filtering;
mod scoring;

/// Why the Filter refused a node: this NoSchedule or NoExecute taint (the
/// first, the node's own before its condition taints) is not tolerated.
/// Kubernetes' reason does not name it ([`REASON`]); the detail does.
/// Removing pods cannot help: UnschedulableAndUnresolvable (the unreachable
/// taint of a node that is not Ready included; taint_toleration.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untolerated(pub Taint);

impl super::FilterReason for Untolerated {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(REASON)]
    }
    fn code(&self) -> crate::scheduler::Code {
        crate::scheduler::Code::UnschedulableAndUnresolvable
    }
    /// The taint as `key=value:Effect` (Kubernetes logs it at -v=4 and
    /// keeps it out of the status).
    fn detail(&self) -> Option<alloc::string::String> {
        Some(alloc::format!("{}", self.0))
    }
}

use crate::model::{Taint, TaintEffect, Toleration};

/// Filter's reason (v1.37.2 tainttoleration/taint_toleration.go, Filter):
/// the taint itself is not named.
pub const REASON: &str = "node(s) had untolerated taint(s)";

/// The first taint with a NoSchedule or NoExecute effect that no toleration
/// tolerates, if any: what the filter rejects a node for ([`REASON`]).
pub fn first_untolerated<'a>(taints: &'a [Taint], tolerations: &[Toleration]) -> Option<&'a Taint> {
    taints.iter().find(|t| {
        t.effect != TaintEffect::PreferNoSchedule && !tolerations.iter().any(|tol| tol.tolerates(t))
    })
}

/// The raw score: PreferNoSchedule taints not tolerated. Only tolerations
/// whose effect is empty or PreferNoSchedule count, as in kube-scheduler.
pub fn count_intolerable_prefer_no_schedule(taints: &[Taint], tolerations: &[Toleration]) -> i64 {
    let relevant =
        |t: &&Toleration| t.effect.is_none() || t.effect == Some(TaintEffect::PreferNoSchedule);
    taints
        .iter()
        .filter(|t| t.effect == TaintEffect::PreferNoSchedule)
        .filter(|t| {
            !tolerations
                .iter()
                .filter(relevant)
                .any(|tol| tol.tolerates(t))
        })
        .count() as i64
}

/// NormalizeScore: DefaultNormalizeScore reversed.
pub fn normalize(scores: &mut [i64]) {
    super::default_normalize_score(super::MAX_NODE_SCORE, true, scores);
}
