//! NodeResourcesBalancedAllocation: favours nodes whose balance the pod
//! improves. A balance is (1 - standard deviation) * 100, truncated, of each
//! resource's fraction requested/allocatable (capped at 1; requests as they
//! are, without non-zero defaults; a resource the node has none of left
//! out). Since Kubernetes v1.36 the score is the change the pod brings,
//! folded back into 50..=100 with Go's integer halving
//! (noderesources/balanced_allocation.go, `balancedResourceScorer`):
//! `50 + (50 + with - without) / 2`, where `with` is the balance with the
//! pod's requests added and `without` the node's as it is. So 75 is no
//! change, towards 100 better, towards 50 worse. A pod that requests
//! nothing at all (best effort) is not scored by it (PreScore: Skip).

// The plugin in the framework: fed from the cluster's books and the batch.
mod args;
mod scoring;

pub use args::{default_balanced_resources, validate_balanced_resources};

use super::{abs, sqrt, MAX_NODE_SCORE};

/// The score for a node: `requested` (the node's requests plus the pod's),
/// `allocated` (the node's alone) and `allocatable`, one entry per resource.
pub fn score(requested: &[i64], allocated: &[i64], allocatable: &[i64]) -> i64 {
    change(
        balance(requested, allocatable),
        balance(allocated, allocatable),
    )
}

/// The score from the two balances (each 50..=100, so the sum halved is
/// never negative and Go's truncating division is Rust's).
#[inline(always)]
pub fn change(with: i64, without: i64) -> i64 {
    MAX_NODE_SCORE / 2 + (MAX_NODE_SCORE / 2 + with - without) / 2
}

/// The balance of `requested` over `allocatable`: (1 - standard deviation
/// of the fractions) * 100, truncated (`balancedResourceScore`).
pub fn balance(requested: &[i64], allocatable: &[i64]) -> i64 {
    let mut fractions = [0f64; crate::scheduler::profile::MAX_SCORED_RESOURCES];
    let mut n = 0;
    let mut total = 0.0;
    for (&r, &a) in requested.iter().zip(allocatable) {
        if a == 0 || n == fractions.len() {
            continue;
        }
        let f = capped(r as f64 / a as f64);
        total += f;
        fractions[n] = f;
        n += 1;
    }
    let std = if n == 2 {
        std_of_two(fractions[0], fractions[1])
    } else if n > 2 {
        let mean = total / n as f64;
        let sum: f64 = fractions[..n].iter().map(|f| (f - mean) * (f - mean)).sum();
        sqrt(sum / n as f64)
    } else {
        0.0
    };
    of_std(std)
}

/// A resource's fraction requested/allocatable, capped at 1.
#[inline(always)]
pub fn capped(fraction: f64) -> f64 {
    if fraction > 1.0 {
        1.0
    } else {
        fraction
    }
}

/// The standard deviation of two (capped) fractions: half their distance.
#[inline(always)]
pub fn std_of_two(a: f64, b: f64) -> f64 {
    abs((a - b) / 2.0)
}

/// The balance for a standard deviation: (1 - std) * 100, truncated.
#[inline(always)]
pub fn of_std(std: f64) -> i64 {
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// The balance of two resources from their uncapped fractions
/// ([`balance`] when both allocatables are above 0).
#[inline(always)]
pub fn balance_of_two(a: f64, b: f64) -> i64 {
    of_std(std_of_two(capped(a), capped(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kube-scheduler's own rows (TestNodeResourcesBalancedAllocation,
    /// balanced_allocation_test.go, v1.37.2; its comments give the
    /// balances without -> with): node allocatable, what its pods request,
    /// what the incoming pod requests (cpu millicores, memory bytes), the
    /// expected score.
    #[test]
    fn scores_the_change_in_balance_as_kube_scheduler_does() {
        // (name, allocatable, on the node, the pod, score)
        #[allow(clippy::type_complexity)]
        let rows: &[(&str, [i64; 2], [i64; 2], [i64; 2], i64)] = &[
            // "nothing scheduled, resources requested, differently sized nodes"
            (
                "empty node1 (100 -> 87)",
                [4000, 10000],
                [0, 0],
                [3000, 5000],
                68,
            ),
            (
                "empty node2 (100 -> 100)",
                [6000, 10000],
                [0, 0],
                [3000, 5000],
                75,
            ),
            // "resources requested, pods scheduled with resources"
            (
                "cpu-only pods (85 -> 82)",
                [10000, 20000],
                [3000, 0],
                [3000, 5000],
                73,
            ),
            (
                "cpu and memory pods (97 -> 95)",
                [10000, 20000],
                [3000, 5000],
                [3000, 5000],
                74,
            ),
            // "... differently sized nodes"
            (
                "a bigger node (90 -> 80)",
                [10000, 50000],
                [3000, 5000],
                [3000, 5000],
                70,
            ),
            // "nodes to reach min/max score": a memory-only pod
            (
                "the pod balances the node (50 -> 100)",
                [3000, 5000],
                [3000, 0],
                [0, 5000],
                100,
            ),
            (
                "the pod unbalances the node (100 -> 50)",
                [3000, 5000],
                [0, 0],
                [0, 5000],
                50,
            ),
            // "requested resources at node capacity": a cpu-only pod
            (
                "cpu at capacity (75 -> 50)",
                [6000, 10000],
                [3000, 0],
                [3000, 0],
                62,
            ),
            (
                "cpu past half (100 -> 75)",
                [6000, 10000],
                [3000, 5000],
                [3000, 0],
                62,
            ),
            // "scalar resource is not included ... if pod doesn't request it"
            (
                "no scalar (100 -> 63)",
                [3500, 40000],
                [0, 0],
                [3000, 5000],
                56,
            ),
            // The oracle's case: an empty 4750m / 7680Mi node and a
            // 1250m / 3328Mi pod (100 -> 91).
            (
                "oracle's case",
                [4750, 7680 << 20],
                [0, 0],
                [1250, 3328 << 20],
                70,
            ),
        ];
        for &(name, cap, on, pod, want) in rows {
            let with = [on[0] + pod[0], on[1] + pod[1]];
            assert_eq!(score(&with, &on, &cap), want, "{name}");
        }
    }

    /// The balance alone: a resource the node has none of is left out, and
    /// one resource alone is always balanced.
    #[test]
    fn a_resource_the_node_lacks_is_left_out() {
        assert_eq!(balance(&[3000, 5000], &[4000, 10000]), 87);
        assert_eq!(balance(&[3000, 5000], &[4000, 0]), 100);
        assert_eq!(balance(&[0, 0], &[0, 0]), 100);
        // Three resources: the standard deviation of 0.5, 0.25 and 1.
        assert_eq!(balance(&[1, 1, 4], &[2, 4, 4]), 68);
    }

    /// The score stays within 50..=100 whatever the balances.
    #[test]
    fn the_score_is_between_half_and_max() {
        for with in 50..=100 {
            for without in 50..=100 {
                let s = change(with, without);
                assert!((50..=100).contains(&s), "{with} {without}: {s}");
            }
        }
        assert_eq!(change(100, 50), 100);
        assert_eq!(change(50, 100), 50);
        assert_eq!(change(75, 75), 75);
    }
}
