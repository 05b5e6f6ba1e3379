//! PodTopologySpread. Filter (DoNotSchedule constraints): the node must have
//! the topology key, and matching pods in its domain, plus one if the pod
//! matches its own selector, minus the smallest count of any eligible domain
//! (0 when fewer domains than minDomains), may not exceed maxSkew. Score
//! (ScheduleAnyway constraints, or the system defaults: hostname maxSkew 3,
//! zone maxSkew 5): per constraint, count * ln(domains + 2) + maxSkew - 1,
//! summed and rounded; normalised so the lowest sum scores highest.

// The plugin in the framework: fed from the cluster's books and the batch.
mod args;
mod filtering;
mod scoring;
mod state;

pub use args::{SystemDefaultConstraint, SYSTEM_DEFAULT_CONSTRAINTS};
pub(in crate::scheduler) use state::Spread;

/// Why the Filter refused a node (podtopologyspread/filtering.go, Filter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsatisfied {
    /// The node lacks a DoNotSchedule constraint's topology key
    /// ([`REASON_MISSING_LABEL`]): UnschedulableAndUnresolvable.
    MissingLabel,
    /// Placing the pod there would exceed a maxSkew ([`REASON_SKEW`]):
    /// Unschedulable (preemption may lower the count).
    Skew,
}

impl super::FilterReason for Unsatisfied {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(match self {
            Unsatisfied::MissingLabel => REASON_MISSING_LABEL,
            Unsatisfied::Skew => REASON_SKEW,
        })]
    }
    fn code(&self) -> crate::scheduler::Code {
        match self {
            Unsatisfied::MissingLabel => crate::scheduler::Code::UnschedulableAndUnresolvable,
            Unsatisfied::Skew => crate::scheduler::Code::Unschedulable,
        }
    }
}

/// kube-scheduler's reasons.
pub const REASON_SKEW: &str = "node(s) didn't match pod topology spread constraints";
pub const REASON_MISSING_LABEL: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// The well-known zone key the system default constraints spread over.
pub const ZONE_KEY: &str = "topology.kubernetes.io/zone";

/// The weight of a constraint whose topology has `size` domains among the
/// scored nodes: ln(size + 2), so small topologies are not watered down.
pub fn normalizing_weight(size: usize) -> f64 {
    super::ln(size as f64 + 2.0)
}

/// One constraint's contribution to a node's raw score.
pub fn score_for_count(count: i64, max_skew: i64, weight: f64) -> f64 {
    count as f64 * weight + (max_skew - 1) as f64
}

/// NormalizeScore: `None` marks a node that is not scored (it lacks a
/// required key) and gets 0. Otherwise 100 * (max + min - score) / max, or
/// 100 for every node when the highest raw score is 0.
pub fn normalize(scores: &mut [Option<i64>]) -> impl Iterator<Item = i64> + '_ {
    let mut min = i64::MAX;
    let mut max = 0i64;
    for s in scores.iter().flatten() {
        min = min.min(*s);
        max = max.max(*s);
    }
    scores.iter().map(move |s| match *s {
        None => 0,
        Some(_) if max == 0 => super::MAX_NODE_SCORE,
        Some(v) => super::MAX_NODE_SCORE * (max + min - v) / max,
    })
}

/// Whether a node with `matching` pods in its domain may take the pod:
/// `matching + self_match - global_min <= max_skew`.
pub fn skew_ok(matching: i64, self_match: bool, global_min: i64, max_skew: i64) -> bool {
    matching + self_match as i64 - global_min <= max_skew
}
