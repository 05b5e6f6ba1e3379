//! `--balance-similar-node-groups`: which groups are similar, and how a
//! scale-up is spread over them (kubernetes/autoscaler cluster-autoscaler/
//! processors/nodegroupset/compare_nodegroups.go and
//! balancing_processor.go; the default ratios of config/const.go).
//!
//! Two groups are similar when their template nodes are (the generic
//! comparator, `IsCloudProviderNodeInfoSimilar`): every capacity equal but
//! memory, which may differ by 1.5% of the larger; allocatable and free
//! (allocatable less the template's pods: DaemonSet pods and kube-proxy)
//! within 5%; the same labels with the same values, except the basic
//! ignored ones (hostname, zone, region, ...) and those of
//! `--balancing-ignore-label`. The orchestrator also asks that the similar
//! group take the same Pending pods (`ComputeSimilarNodeGroups`), which the
//! caller checks. In this model capacity and allocatable are one
//! (`NodeSpec::capacity`).

use alloc::string::String;
use alloc::vec::Vec;

use super::estimate::Room;
use crate::model::NodeSpec;

/// `MaxCapacityMemoryDifferenceRatio` (0.015), in thousandths.
pub const MAX_CAPACITY_MEMORY_DIFFERENCE_PERMILLE: u64 = 15;
/// `MaxAllocatableDifferenceRatio` (0.05), in thousandths.
pub const MAX_ALLOCATABLE_DIFFERENCE_PERMILLE: u64 = 50;
/// `MaxFreeDifferenceRatio` (0.05), in thousandths.
pub const MAX_FREE_DIFFERENCE_PERMILLE: u64 = 50;

/// `BasicIgnoredLabels`: labels that differ between groups of one kind.
pub const BASIC_IGNORED_LABELS: [&str; 7] = [
    "kubernetes.io/hostname",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "beta.kubernetes.io/fluentd-ds-ready",
    "kops.k8s.io/instancegroup",
];

/// `resourceListWithinTolerance`: the difference is at most `permille`
/// thousandths of the larger.
fn within(a: u64, b: u64, permille: u64) -> bool {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    ((hi - lo) as u128) * 1000 <= (hi as u128) * permille as u128
}

/// Whether two groups' template nodes are similar (see the module doc);
/// `ra` and `rb` are what their template pods leave free.
pub fn similar(a: &NodeSpec, ra: &Room, b: &NodeSpec, rb: &Room, ignored: &[String]) -> bool {
    // Capacity: exact but memory.
    if a.capacity.cpu_millis != b.capacity.cpu_millis
        || a.max_pods != b.max_pods
        || a.scalars != b.scalars
        || !within(
            a.capacity.memory_bytes,
            b.capacity.memory_bytes,
            MAX_CAPACITY_MEMORY_DIFFERENCE_PERMILLE,
        )
    {
        return false;
    }
    // Allocatable (the same quantities here: memory is the only one left
    // to differ, and 1.5% is within 5%).
    if !within(
        a.capacity.memory_bytes,
        b.capacity.memory_bytes,
        MAX_ALLOCATABLE_DIFFERENCE_PERMILLE,
    ) {
        return false;
    }
    // Free: allocatable less the template's requests.
    if !within(ra.cpu, rb.cpu, MAX_FREE_DIFFERENCE_PERMILLE)
        || !within(ra.mem, rb.mem, MAX_FREE_DIFFERENCE_PERMILLE)
    {
        return false;
    }
    // Labels: every label not ignored is on both, with one value.
    let skip = |k: &str| BASIC_IGNORED_LABELS.contains(&k) || ignored.iter().any(|i| i == k);
    let same = |x: &NodeSpec, y: &NodeSpec| {
        x.labels
            .iter()
            .filter(|(k, _)| !skip(k))
            .all(|(k, v)| y.labels.get(k) == Some(v))
    };
    same(a, b) && same(b, a)
}

/// `BalanceScaleUpBetweenGroups`: `new_nodes` spread over groups of the
/// given (current size, max size), one at a time to the smallest group
/// (ties to the one first in the order sorted by current size, the
/// given order kept among equals), never past a max. Returns each
/// group's new size; the total is capped by the room the groups have.
pub fn balance(groups: &[(u32, u32)], new_nodes: u32) -> Vec<u32> {
    let mut sizes: Vec<u32> = groups.iter().map(|g| g.0).collect();
    let mut order: Vec<usize> = (0..groups.len())
        .filter(|&i| groups[i].0 < groups[i].1)
        .collect();
    order.sort_by_key(|&i| groups[i].0);
    let room: u64 = order
        .iter()
        .map(|&i| (groups[i].1 - groups[i].0) as u64)
        .sum();
    let mut left = (new_nodes as u64).min(room);
    while left > 0 {
        let Some(&i) = order
            .iter()
            .filter(|&&i| sizes[i] < groups[i].1)
            .min_by_key(|&&i| sizes[i])
        else {
            break;
        };
        sizes[i] += 1;
        left -= 1;
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// balancing_processor_test.go's shapes: sizes 1, 3, 5 (max 10 each)
    /// and 5 new nodes go 1 -> 4, 3 -> 5; then 5, 5, 5 share the rest.
    #[test]
    fn balance_fills_the_smallest_first() {
        assert_eq!(
            balance(&[(1, 10), (3, 10), (5, 10)], 5),
            alloc::vec![5, 4, 5]
        );
        assert_eq!(
            balance(&[(1, 10), (3, 10), (5, 10)], 8),
            alloc::vec![6, 6, 5]
        );
        // A max caps its group; the total is capped by the room.
        assert_eq!(balance(&[(0, 1), (0, 10)], 6), alloc::vec![1, 5]);
        assert_eq!(balance(&[(0, 1), (0, 2)], 9), alloc::vec![1, 2]);
        // A full group takes nothing.
        assert_eq!(balance(&[(4, 4), (0, 9)], 2), alloc::vec![4, 2]);
    }

    #[test]
    fn memory_within_one_and_a_half_percent() {
        assert!(within(1000, 985, 15));
        assert!(!within(1000, 984, 15));
        assert!(within(0, 0, 15));
    }
}
