//! NodeResourcesFit. Filter: the pod's requests fit the node's allocatable
//! cpu and memory next to what is already requested there, and the node
//! admits one more pod. Score: the profile's scoring strategy over the
//! requests counted with the non-zero defaults, each resource weighted.

// The plugin in the framework: fed from the cluster's books and the batch.
mod args;
mod filtering;
mod scoring;

/// Why the Filter refused a node: the resources short there
/// (`fitsRequest`'s `InsufficientResource`s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insufficient {
    pub cpu: bool,
    pub memory: bool,
    pub pods: bool,
    /// The scalar resources short (ephemeral-storage first, then
    /// hugepages-* and extended resources by name): "Insufficient
    /// nvidia.com/gpu". Empty (no allocation) for most pods.
    pub scalars: alloc::vec::Vec<alloc::string::String>,
    /// The pod asks for more of a resource than the node has allocatable
    /// at all (`InsufficientResource.Unresolvable`).
    pub unresolvable: bool,
}

impl super::FilterReason for Insufficient {
    /// "Too many pods", then "Insufficient cpu", "Insufficient memory" and
    /// the scalars', in fitsRequest's order.
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        use alloc::string::ToString;
        let mut v = alloc::vec::Vec::new();
        if self.pods {
            v.push(TOO_MANY_PODS.to_string());
        }
        if self.cpu {
            v.push("Insufficient cpu".to_string());
        }
        if self.memory {
            v.push("Insufficient memory".to_string());
        }
        for s in &self.scalars {
            v.push(alloc::format!("Insufficient {s}"));
        }
        v
    }
    /// Unschedulable, unless a request exceeds the node's allocatable
    /// (`fitsRequest`): then UnschedulableAndUnresolvable.
    fn code(&self) -> crate::scheduler::Code {
        if self.unresolvable {
            crate::scheduler::Code::UnschedulableAndUnresolvable
        } else {
            crate::scheduler::Code::Unschedulable
        }
    }
}

use super::MAX_NODE_SCORE;
pub use args::{ScoringStrategy, ScoringStrategyType, UtilizationShapePoint};

/// kube-scheduler's reason when the node is full of pods.
pub const TOO_MANY_PODS: &str = "Too many pods";

/// Which resources would be short: (cpu, memory, pods).
pub fn insufficient(
    request: (u64, u64),
    requested: (u64, u64),
    allocatable: (u64, u64),
    pods: u32,
    max_pods: u32,
) -> (bool, bool, bool) {
    (
        request.0 > allocatable.0.saturating_sub(requested.0),
        request.1 > allocatable.1.saturating_sub(requested.1),
        pods.saturating_add(1) > max_pods,
    )
}

/// Whether a shortage is one removing pods cannot cure: the pod requests
/// more cpu or memory than the node's allocatable (`fitsRequest` marks such
/// an `InsufficientResource` Unresolvable, and the Filter's status is then
/// UnschedulableAndUnresolvable). Too many pods is never unresolvable.
pub fn unresolvable(request: (u64, u64), allocatable: (u64, u64)) -> bool {
    request.0 > allocatable.0 || request.1 > allocatable.1
}

/// LeastAllocated for one resource: (capacity - requested) * 100 / capacity,
/// in i64 as kube-scheduler computes it (noderesources
/// `leastRequestedScore`). The product cannot overflow: a capacity is at
/// most `model::MAX_MEMORY_BYTES` (2^50) or `model::MAX_CPU_MILLIS`, so
/// it stays below 2^57, and Kubernetes' own int64 result is the same.
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    quotient((capacity - requested) * MAX_NODE_SCORE, capacity)
}

/// MostAllocated for one resource: requested * 100 / capacity, with requests
/// beyond capacity (the non-zero defaults can get there) counted as capacity
/// (`mostRequestedScore`; the product is bounded as in
/// [`least_requested_score`]).
pub fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    quotient(requested.min(capacity) * MAX_NODE_SCORE, capacity)
}

/// Go's integer division `a / c` for `a >= 0` and `c > 0`, through one f64
/// division while both are below 2^52 (a node's capacity in millicores is
/// far below it, and in bytes up to 45 TB of memory; beyond that, up to
/// `model::MAX_MEMORY_BYTES` = 2^50 times 100, the integer divide): the f64
/// division pipelines where the integer one does not, and every refiled
/// index slot divides twice. Exact: when `a / c` is not a whole
/// number it lies at least `1 / c` below the next one, and the f64
/// quotient is within half an ulp, `(a / c) * 2^-53`, of it, less than
/// `1 / c` because `a + c < 2^53`; so truncating it gives the whole part.
#[inline]
pub fn quotient(a: i64, c: i64) -> i64 {
    const EXACT: i64 = 1 << 52;
    debug_assert!(a >= 0 && c > 0);
    if a < EXACT && c < EXACT {
        let q = (a as f64 / c as f64) as i64;
        debug_assert_eq!(q, a / c);
        q
    } else {
        a / c
    }
}

/// The piecewise-linear function through the shape's points (scores already
/// scaled to 0..=100), flat before the first point and after the last.
pub fn broken_linear(shape: &[(i64, i64)], p: i64) -> i64 {
    for i in 0..shape.len() {
        if p <= shape[i].0 {
            if i == 0 {
                return shape[0].1;
            }
            let (u0, s0) = shape[i - 1];
            let (u1, s1) = shape[i];
            return s0 + (s1 - s0) * (p - u0) / (u1 - u0);
        }
    }
    shape.last().map_or(0, |s| s.1)
}

/// LeastAllocated (`most` false) or MostAllocated for one resource.
#[inline(always)]
pub fn resource_score(most: bool, requested: i64, capacity: i64) -> i64 {
    if most {
        most_requested_score(requested, capacity)
    } else {
        least_requested_score(requested, capacity)
    }
}

/// LeastAllocated's or MostAllocated's score for a node
/// (`resourceAllocationScorer.score`): each resource's score weighted, a
/// resource with allocatable 0 left out, the weighted mean truncated
/// ([`weighted_mean`]). `requested` is the node's non-zero requests plus
/// the pod's.
#[inline]
pub fn allocated_score(
    most: bool,
    requested: &[i64],
    allocatable: &[i64],
    weights: impl Iterator<Item = i64>,
) -> i64 {
    let (mut sum, mut weight_sum) = (0i64, 0i64);
    for ((&r, &a), w) in requested.iter().zip(allocatable).zip(weights) {
        if a == 0 {
            continue;
        }
        sum += resource_score(most, r, a) * w;
        weight_sum += w;
    }
    weighted_mean(sum, weight_sum)
}

/// The weighted mean of the resources' scores: Go's integer division of
/// the weighted sum by the weights' sum, 0 when no resource counts.
#[inline(always)]
pub fn weighted_mean(sum: i64, weight_sum: i64) -> i64 {
    if weight_sum == 0 {
        0
    } else {
        sum / weight_sum
    }
}

/// [`weighted_mean`] of two resources' scores `a` and `b` (each 0..=100)
/// with weights above 0: with equal weights it is their sum halved
/// ([`mean_of_two_alike`], the default profile's case, without a division).
#[inline(always)]
pub fn mean_of_two(a: i64, b: i64, wa: i64, wb: i64) -> i64 {
    debug_assert!(wa > 0 && wb > 0 && (0..=MAX_NODE_SCORE).contains(&a));
    let mean = if wa == wb {
        mean_of_two_alike(a, b)
    } else {
        weighted_mean(a * wa + b * wb, wa + wb)
    };
    debug_assert_eq!(mean, weighted_mean(a * wa + b * wb, wa + wb));
    mean
}

/// [`mean_of_two`] with equal weights: both scores are 0..=100, so the
/// weighted mean `(a w + b w) / 2w` truncated is `(a + b) / 2` truncated.
#[inline(always)]
pub fn mean_of_two_alike(a: i64, b: i64) -> i64 {
    (a + b) >> 1
}

/// The strategy's score for a node: `requested` (the node's non-zero
/// requests plus the pod's) and `allocatable`, one entry per resource of the
/// strategy, in its order.
pub fn score(strategy: &ScoringStrategy, requested: &[i64], allocatable: &[i64]) -> i64 {
    let weights = strategy.resources.iter().map(|&(_, w)| w);
    match strategy.kind {
        ScoringStrategyType::LeastAllocated | ScoringStrategyType::MostAllocated => {
            let most = strategy.kind == ScoringStrategyType::MostAllocated;
            allocated_score(most, requested, allocatable, weights)
        }
        ScoringStrategyType::RequestedToCapacityRatio => {
            // Shape scores are 0..=10 in the configuration and scaled by
            // MaxNodeScore / MaxCustomPriorityScore (= 10) to 0..=100.
            let mut shape = [(0i64, 0i64); 101];
            let n = strategy.shape.len().min(101);
            for (i, p) in strategy.shape.iter().take(n).enumerate() {
                shape[i] = (p.utilization, p.score * (MAX_NODE_SCORE / 10));
            }
            let f = |r: i64, a: i64| {
                if a == 0 || r > a {
                    broken_linear(&shape[..n], 100)
                } else {
                    broken_linear(&shape[..n], r * 100 / a)
                }
            };
            let (mut sum, mut weight_sum) = (0i64, 0i64);
            for ((&r, &a), w) in requested.iter().zip(allocatable).zip(weights) {
                if a == 0 {
                    continue;
                }
                let s = f(r, a);
                if s > 0 {
                    sum += s * w;
                    weight_sum += w;
                }
            }
            if weight_sum == 0 {
                0
            } else {
                super::round_half_away(sum as f64 / weight_sum as f64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `quotient` is integer division: at exact multiples and one either
    /// side (where a rounded quotient would cross a whole number), at the
    /// largest capacities a node may have, past the f64 range, and at random.
    #[test]
    fn quotient_is_integer_division() {
        let mut rng = crate::simulator::Prng::new(5);
        let big = (crate::model::MAX_CPU_MILLIS as i64).max(crate::model::MAX_MEMORY_BYTES as i64);
        let mut cs: alloc::vec::Vec<i64> = (1..=300).collect();
        cs.extend([big - 1, big, (1 << 52) - 1, 1 << 52, i64::MAX / 200]);
        for _ in 0..300 {
            cs.push(1 + rng.below(big as u64) as i64);
        }
        for &c in &cs {
            let check = |a: i64| {
                if a >= 0 {
                    assert_eq!(quotient(a, c), a / c, "{a} / {c}");
                }
            };
            for q in [0i64, 1, 2, 3, 99, 100] {
                if let Some(a) = q.checked_mul(c) {
                    check(a - 1);
                    check(a);
                    check(a.saturating_add(1));
                }
            }
            for _ in 0..100 {
                check(rng.below((c as u64).saturating_mul(101)) as i64);
            }
        }
    }
}

#[cfg(test)]
mod scalar_rows {
    use crate::model::scalar::Scalars;
    use crate::scheduler::profile::Profile;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// Rows of Kubernetes' fit_test.go (TestEnoughRequests) for scalar
    /// resources: (name, pod's summed request, node's used, node's
    /// allocatable, ignored resources, ignored groups, the insufficient
    /// names, unresolvable). The pod's request is already summed as
    /// computePodResourceRequest sums it (the import's rule, tests/extended.rs).
    #[test]
    fn kubernetes_rows_for_scalar_resources() {
        const A: &str = "example.com/aaa";
        const B: &str = "example.com/bbb";
        const K: &str = "kubernetes.io/something";
        const H: &str = "hugepages-2Mi";
        let s = |pairs: &[(&str, u64)]| {
            pairs
                .iter()
                .fold(Scalars::new(), |acc, &(k, v)| acc.with(k, v))
        };
        type Row<'a> = (
            &'a str,
            Scalars,
            Scalars,
            Scalars,
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
            bool,
        );
        let alloc = s(&[(A, 5), (K, 5), (H, 5)]);
        let rows: Vec<Row> = alloc::vec![
            (
                "extended resource fits",
                s(&[(A, 1)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[],
                false
            ),
            (
                "extended resource fits for init containers (max of 3 and 3, 0 used)",
                s(&[(A, 3)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[],
                false
            ),
            (
                "extended resource capacity enforced",
                s(&[(A, 10)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[A],
                true
            ),
            (
                "extended resource allocatable enforced",
                s(&[(A, 1)]),
                s(&[(A, 5)]),
                alloc.clone(),
                &[],
                &[],
                &[A],
                false
            ),
            (
                "extended resource allocatable enforced for multiple containers (3 + 3 on 2 used)",
                s(&[(A, 6)]),
                s(&[(A, 2)]),
                alloc.clone(),
                &[],
                &[],
                &[A],
                true
            ),
            (
                "extended resource allocatable admits multiple init containers (max 3 on 2 used)",
                s(&[(A, 3)]),
                s(&[(A, 2)]),
                alloc.clone(),
                &[],
                &[],
                &[],
                false
            ),
            (
                "extended resource allocatable enforced for unknown resource",
                s(&[(B, 1)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[B],
                true
            ),
            (
                "kubernetes.io resource capacity enforced",
                s(&[(K, 10)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[K],
                true
            ),
            (
                "hugepages resource capacity enforced",
                s(&[(H, 10)]),
                s(&[]),
                alloc.clone(),
                &[],
                &[],
                &[H],
                true
            ),
            (
                "hugepages resource allocatable enforced for multiple containers",
                s(&[(H, 6)]),
                s(&[(H, 2)]),
                alloc.clone(),
                &[],
                &[],
                &[H],
                true
            ),
            (
                "skip checking ignored extended resource",
                s(&[(B, 1)]),
                s(&[]),
                alloc.clone(),
                &[B],
                &[],
                &[],
                false
            ),
            (
                "skip checking ignored extended resource via resource groups",
                s(&[(B, 1)]),
                s(&[]),
                alloc.clone(),
                &[],
                &["example.com"],
                &[],
                false
            ),
        ];
        for (name, req, used, alloc, ignored, groups, want, unresolvable) in rows {
            let profile = Profile {
                ignored_resources: ignored.iter().map(|x| x.to_string()).collect(),
                ignored_resource_groups: groups.iter().map(|x| x.to_string()).collect(),
                ..Profile::kube_scheduler()
            };
            // fitsRequest: only extended resources may be ignored.
            let short: Vec<&str> = req
                .insufficient(&used, &alloc)
                .filter(|k| {
                    crate::model::scalar::classify(k)
                        != Ok(crate::model::scalar::ScalarKind::Extended)
                        || !profile.ignores_resource(k)
                })
                .collect();
            assert_eq!(short, want, "{name}");
            let beyond = short.iter().any(|k| req.get(k) > alloc.get(k));
            assert_eq!(beyond, unresolvable, "{name}");
        }
    }
}
