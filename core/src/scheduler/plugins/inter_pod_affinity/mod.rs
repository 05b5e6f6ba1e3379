//! InterPodAffinity. Filter: required affinity (the node's domain holds a pod
//! matching every term, or the pod is the first of a group that matches its
//! own terms), required anti-affinity (no matching pod in the domain), and
//! existing pods' required anti-affinity toward the incoming pod. Score: per
//! topology domain, + weight for each existing pod a preferred affinity term
//! matches, - weight for preferred anti-affinity, + hardPodAffinityWeight for
//! each existing pod whose required affinity matches the incoming pod, and
//! the existing pods' preferred terms toward it; normalised min-max.

// The plugin in the framework: fed from the cluster's books and the batch.
mod args;
mod filtering;
mod scoring;
mod state;

pub use args::{
    validate_hard_pod_affinity_weight, DEFAULT_HARD_POD_AFFINITY_WEIGHT,
    MAX_HARD_POD_AFFINITY_WEIGHT,
};

/// Why the Filter refused a node (interpodaffinity/filtering.go, Filter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsatisfied {
    /// The pod's required affinity ([`REASON_AFFINITY`]):
    /// UnschedulableAndUnresolvable.
    Affinity,
    /// The pod's required anti-affinity ([`REASON_ANTI_AFFINITY`]):
    /// Unschedulable.
    AntiAffinity,
    /// An existing pod's required anti-affinity
    /// ([`REASON_EXISTING_ANTI_AFFINITY`]): Unschedulable.
    ExistingAntiAffinity,
}

impl super::FilterReason for Unsatisfied {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(match self {
            Unsatisfied::Affinity => REASON_AFFINITY,
            Unsatisfied::AntiAffinity => REASON_ANTI_AFFINITY,
            Unsatisfied::ExistingAntiAffinity => REASON_EXISTING_ANTI_AFFINITY,
        })]
    }
    fn code(&self) -> crate::scheduler::Code {
        match self {
            Unsatisfied::Affinity => crate::scheduler::Code::UnschedulableAndUnresolvable,
            Unsatisfied::AntiAffinity | Unsatisfied::ExistingAntiAffinity => {
                crate::scheduler::Code::Unschedulable
            }
        }
    }
}

/// kube-scheduler's reasons.
pub const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// NormalizeScore: 100 * (score - min) / (max - min), truncated; all 0 when
/// every node has the same score.
pub fn normalize(scores: &mut [i64]) {
    let (Some(&min), Some(&max)) = (scores.iter().min(), scores.iter().max()) else {
        return;
    };
    let diff = max - min;
    for s in scores.iter_mut() {
        *s = if diff > 0 {
            (super::MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64)) as i64
        } else {
            0
        };
    }
}
