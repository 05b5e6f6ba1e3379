//! NodeAffinity. Filter: `nodeSelector` (every pair) and the required node
//! selector terms (any one term). Score: the sum of the weights of the
//! preferred terms a node matches, normalised by DefaultNormalizeScore.

// The plugin in the framework: fed from the cluster's books and the batch.
mod filtering;
mod scoring;

/// Why the Filter refused a node: the pod's nodeSelector or required node
/// affinity does not match it ([`REASON`]). Removing pods cannot help:
/// UnschedulableAndUnresolvable (node_affinity.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch;

impl super::FilterReason for Mismatch {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(REASON)]
    }
    fn code(&self) -> crate::scheduler::Code {
        crate::scheduler::Code::UnschedulableAndUnresolvable
    }
}

use crate::affinity::NodeSelectorTerm;
use crate::model::{Labels, NodeAffinity};

/// The filter's reason, as kube-scheduler words it.
pub const REASON: &str = "node(s) didn't match Pod's node affinity/selector";

/// Whether the node passes `nodeSelector` and required node affinity.
pub fn filter(
    node_name: &str,
    labels: &Labels,
    node_selector: &Labels,
    affinity: &NodeAffinity,
) -> bool {
    filter_required(
        node_name,
        labels,
        node_selector,
        affinity.required.as_deref(),
    )
}

/// [`filter`] given the required terms alone (what the static filters'
/// inputs hold, `StaticInputs`).
pub fn filter_required(
    node_name: &str,
    labels: &Labels,
    node_selector: &Labels,
    required: Option<&[NodeSelectorTerm]>,
) -> bool {
    node_selector.iter().all(|(k, v)| labels.get(k) == Some(v))
        && required.is_none_or(|terms| terms.iter().any(|t| t.matches(node_name, labels)))
}

/// The raw score.
pub fn score(node_name: &str, labels: &Labels, affinity: &NodeAffinity) -> i64 {
    affinity.preferred_score(node_name, labels)
}

/// NormalizeScore: DefaultNormalizeScore, highest sum = 100.
pub fn normalize(scores: &mut [i64]) {
    super::default_normalize_score(super::MAX_NODE_SCORE, false, scores);
}
