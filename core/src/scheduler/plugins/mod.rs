//! kube-scheduler's plugins, named as kube-scheduler names them, and their
//! registry ([`Plugin`]). Each plugin's `mod.rs` (or file) holds its
//! formulas as plain functions (what the conformance tests call with
//! kube-scheduler's own test numbers); a plugin with state of its own has a
//! folder as kube-scheduler's do: `state.rs` (its per-batch PreFilter and
//! PreScore state and its update when a pod binds), `filtering.rs` and
//! `scoring.rs` (its Filter and Score fed from the cluster's books). The
//! framework (`scheduler/framework/`) calls them, and the fast paths
//! (`scheduler/fast/`) call the same functions.

pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_resources_balanced_allocation;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod taint_toleration;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::Error;

/// The plugin registry: one line per plugin generates [`Plugin`], its
/// name, its parsing, its extension points and its place and weight in
/// kube-scheduler's default profile (`default_plugins.go`), which the
/// profile ([`crate::Profile::kube_scheduler`]), the manifest reader (the
/// k8s crate's scheduler_config.rs) and the page (through the default
/// profile's document) read instead of lists of their own.
///
/// A row: the plugin's kube-scheduler name; `filter`: its place among the
/// default profile's filters (`None`: no Filter extension point);
/// `score`: its place among the default profile's scores and its weight
/// (`None`: no Score extension point). The order of the rows is the
/// variants' order.
macro_rules! registry {
    ($(
        $(#[$doc:meta])*
        $variant:ident { filter: $filter:expr, score: $score:expr $(,)? }
    ),+ $(,)?) => {
        /// The plugins Shepherd runs, by their kube-scheduler names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Plugin {
            $($(#[$doc])* $variant,)+
        }

        impl Plugin {
            /// Every plugin, in the registry's order.
            pub const ALL: [Plugin; [$(stringify!($variant)),+].len()] = [$(Plugin::$variant),+];

            /// Every plugin's name, in the registry's order.
            pub const NAMES: [&'static str; [$(stringify!($variant)),+].len()] =
                [$(stringify!($variant)),+];

            /// The plugin's kube-scheduler name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Plugin::$variant => stringify!($variant),)+
                }
            }

            /// Its place among the default profile's filters (`None`: it
            /// has no Filter extension point).
            const fn filter_place(&self) -> Option<u8> {
                match self {
                    $(Plugin::$variant => $filter,)+
                }
            }

            /// Its place among the default profile's scores and its weight
            /// there (`None`: it has no Score extension point).
            const fn score_place(&self) -> Option<(u8, i64)> {
                match self {
                    $(Plugin::$variant => $score,)+
                }
            }
        }
    };
}

registry! {
    /// Filter: cordoned nodes (`spec.unschedulable`).
    NodeUnschedulable { filter: Some(0), score: None },
    /// Filter: untolerated NoSchedule/NoExecute taints. Score: untolerated
    /// PreferNoSchedule taints, fewer is better.
    TaintToleration { filter: Some(1), score: Some((0, 3)) },
    /// Filter: nodeSelector and required node affinity. Score: preferred node
    /// affinity weights.
    NodeAffinity { filter: Some(2), score: Some((1, 2)) },
    /// Filter: requests fit allocatable cpu, memory and pods. Score: the
    /// scoring strategy (LeastAllocated, MostAllocated, RequestedToCapacityRatio).
    NodeResourcesFit { filter: Some(3), score: Some((2, 1)) },
    /// Score: how evenly cpu and memory would be used.
    NodeResourcesBalancedAllocation { filter: None, score: Some((5, 1)) },
    /// Filter: DoNotSchedule constraints. Score: ScheduleAnyway constraints
    /// and the system default constraints.
    PodTopologySpread { filter: Some(4), score: Some((3, 2)) },
    /// Filter: required pod affinity and anti-affinity (both ways). Score:
    /// preferred terms, and existing pods' terms toward the incoming pod.
    InterPodAffinity { filter: Some(5), score: Some((4, 2)) },
}

impl Plugin {
    /// The plugin named `s` (kube-scheduler's name).
    pub fn parse(s: &str) -> Result<Plugin, Error> {
        Plugin::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let expected = String::from("one of ") + &Plugin::NAMES.join(", ");
                Error::invalid("scheduler plugin", s, &expected)
            })
    }

    /// Whether the plugin has a Filter extension point.
    pub fn filters(&self) -> bool {
        self.filter_place().is_some()
    }

    /// Whether the plugin has a Score extension point.
    pub fn scores(&self) -> bool {
        self.score_place().is_some()
    }

    /// Its weight in kube-scheduler's default profile, for a score plugin.
    pub fn default_weight(&self) -> Option<i64> {
        self.score_place().map(|(_, w)| w)
    }

    /// The default profile's filters, in kube-scheduler's order.
    pub fn default_filters() -> Vec<Plugin> {
        let mut v: Vec<Plugin> = Plugin::ALL.into_iter().filter(Plugin::filters).collect();
        v.sort_by_key(|p| p.filter_place());
        v
    }

    /// The default profile's score plugins with their weights, in
    /// kube-scheduler's order.
    pub fn default_scores() -> Vec<(Plugin, i64)> {
        let mut v: Vec<(u8, Plugin, i64)> = (Plugin::ALL.into_iter())
            .filter_map(|p| p.score_place().map(|(at, w)| (at, p, w)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, p, w)| (p, w)).collect()
    }
}

/// The highest score a plugin gives a node (framework.MaxNodeScore).
pub const MAX_NODE_SCORE: i64 = 100;

/// kube-scheduler's DefaultNormalizeScore: scales scores so the highest is
/// `max_priority` (Go's integer division), or reverses them (`max - score`).
/// When every score is 0 they stay 0, or all become `max_priority` if reversed.
pub fn default_normalize_score(max_priority: i64, reverse: bool, scores: &mut [i64]) {
    let max = scores.iter().copied().max().unwrap_or(0).max(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = max_priority);
        }
        return;
    }
    for s in scores.iter_mut() {
        let mut v = max_priority * *s / max;
        if reverse {
            v = max_priority - v;
        }
        *s = v;
    }
}

/// Go's math.Round: half away from zero. (`core` has no float rounding
/// without std; this is exact for every value a score can reach.)
/// Without branches: the fraction of a logarithm-weighted score follows no
/// pattern, and a branch on it was mispredicted about half the time in the
/// spread scores every cycle computes.
#[inline]
pub fn round_half_away(x: f64) -> i64 {
    let t = x as i64; // truncates toward zero
    let frac = x - t as f64;
    t + (frac >= 0.5) as i64 - (frac <= -0.5) as i64
}

/// The natural logarithm for `x` > 0, to within an ulp or two of libm's
/// (Go's math.Log): x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then
/// ln m = 2 atanh((m-1)/(m+1)) by its series.
pub fn ln(x: f64) -> f64 {
    debug_assert!(x > 0.0);
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    // Terms fall by z2 <= 0.0295 each: 14 terms are far below an ulp.
    let mut term = z;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..14 {
        sum += term / k;
        term *= z2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * core::f64::consts::LN_2
}

/// The square root, for the standard deviation of more than two resource
/// fractions (values in 0..=1): correctly rounded, as Go's `math.Sqrt`, so
/// a balance truncates where Kubernetes' does.
pub fn sqrt(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        crate::util::math::sqrt_rounded(x)
    }
}

pub(crate) fn abs(x: f64) -> f64 {
    if x < 0.0 {
        -x
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn default_normalize_matches_kube_scheduler() {
        let mut s = [0, 3, 6];
        default_normalize_score(100, false, &mut s);
        assert_eq!(s, [0, 50, 100]);
        let mut s = [0, 3, 6];
        default_normalize_score(100, true, &mut s);
        assert_eq!(s, [100, 50, 0]);
        let mut s = [0, 0];
        default_normalize_score(100, true, &mut s);
        assert_eq!(s, [100, 100]);
        let mut s = [1, 2, 3];
        default_normalize_score(100, false, &mut s);
        assert_eq!(s, [33, 66, 100]);
    }

    #[cfg(feature = "std")]
    #[test]
    fn float_helpers_agree_with_libm() {
        // Every domain count a cluster can have, and then some.
        for size in 0..20_000u32 {
            let x = size as f64 + 2.0;
            let (got, want) = (ln(x), x.ln());
            assert!(
                abs(got - want) <= 2.0 * f64::EPSILON * want,
                "ln({x}) = {got}, libm {want}"
            );
        }
        for i in 1..1000 {
            let x = i as f64 / 997.0;
            assert!(abs(sqrt(x) - x.sqrt()) <= f64::EPSILON, "sqrt({x})");
        }
    }

    /// kube-scheduler's default_plugins.go: the filters and the score
    /// plugins with their weights, in its order.
    #[test]
    fn the_registry_gives_kube_schedulers_default_plugins() {
        use Plugin::*;
        assert_eq!(
            Plugin::default_filters(),
            [
                NodeUnschedulable,
                TaintToleration,
                NodeAffinity,
                NodeResourcesFit,
                PodTopologySpread,
                InterPodAffinity
            ]
        );
        assert_eq!(
            Plugin::default_scores(),
            [
                (TaintToleration, 3),
                (NodeAffinity, 2),
                (NodeResourcesFit, 1),
                (PodTopologySpread, 2),
                (InterPodAffinity, 2),
                (NodeResourcesBalancedAllocation, 1)
            ]
        );
        for p in Plugin::ALL {
            assert_eq!(Plugin::parse(p.name()).ok(), Some(p));
        }
        let e = Plugin::parse("ImageLocality").unwrap_err().to_string();
        assert!(
            e.ends_with("expected one of NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit, NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity"),
            "{e}"
        );
    }

    #[test]
    fn round_is_half_away_from_zero() {
        assert_eq!(round_half_away(2.5), 3);
        assert_eq!(round_half_away(2.4999999), 2);
        assert_eq!(round_half_away(-2.5), -3);
        assert_eq!(round_half_away(0.0), 0);
        assert!(abs(ln(3.0) - 1.0986122886681098) < 1e-15);
    }
}
