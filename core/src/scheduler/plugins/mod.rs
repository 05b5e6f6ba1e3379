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
pub mod node_ports;
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
/// (`None`: no Score extension point); `runs`: how the framework calls its
/// Filter, one of
/// - `static_filter(f)`: `Cluster::f(node, StaticInputs)`, a filter that
///   reads only the node and the pod's [`StaticInputs`] (its verdicts are
///   cached per node and template: see `fast/cache.rs`);
/// - `dynamic_filter(f)`: `Cluster::f(node, &Batch, &Profile)`, a filter
///   that reads what pods take (its PreFilter skip, if any, inside `f`);
/// - `no_filter`.
///
/// `reason`: the type its Filter refuses a node with (`none` without a
/// Filter), defined in its folder with its status code
/// ([`FilterReason`]); the macro wraps them all in [`crate::Unfit`].
///
/// `scoring`: how the framework calls its Score and NormalizeScore, and
/// the shape its scores take (which decides the fast paths that may serve
/// a batch), one of
/// - `node_local(f)`: `Cluster::f(node, &Batch, &Profile) -> i64`, a score
///   that reads its node's own books alone and has no NormalizeScore
///   (NodeResourcesFit, BalancedAllocation): the batch caches keep the
///   weighted sum of these per node (`local_cached`), the heap re-scores
///   the bound node, and the class cycle and the index score them;
/// - `normalized(raw, normalize, uniform)`: Score as
///   `Cluster::raw(node index, &mut Batch, &Profile, cached) -> i64` on each
///   feasible node (`cached`: it may read and fill the batch caches), then
///   `normalize(&mut [i64])` over them; `Cluster::uniform(&Batch,
///   soft_taints) -> Option<i64>` says when every node gets the same
///   normalised score without scoring them (`soft_taints`: whether a node of
///   the sample may carry a PreferNoSchedule taint), `None` when they may
///   differ;
/// - `scores_itself(f, uniform)`: a plugin that scores the feasible nodes
///   together (PodTopologySpread, whose raw score may be "ignored"):
///   `Cluster::f(&mut Batch, feasible, normalised out, Option<raw out>)`,
///   `uniform` as above;
/// - `no_score`.
///
/// `prescore`: `skips(f)`: `Cluster::f(&Batch, &Profile) -> bool`, its
/// PreScore returns Skip for the batch's pods (explain leaves it out), or
/// `never`. `classes`: whether the class cycle (`fast/classes.rs`) and the
/// sample index know its score; a plugin that says `false` keeps them off
/// for every profile that scores with it (its batches take the plain cycle
/// or the cached scorer, correct and merely slower).
///
/// The order of the rows is the variants' order. The macro generates the
/// framework's dispatch (`Cluster::run_static_filter`,
/// `Cluster::run_dynamic_filter`, `Cluster::run_score`,
/// `Cluster::run_local_score`, `Cluster::run_own_score`,
/// `Cluster::score_shape`, `Cluster::prescore_skip`,
/// [`Plugin::class_scored`]): a `match`, no allocation, no dynamic call.
///
/// [`StaticInputs`]: crate::scheduler::cache::StaticInputs
macro_rules! registry {
    (@static static_filter($f:ident) $c:ident $n:ident $pod:ident) => { $c.$f($n, $pod) };
    (@static $other:ident $(($f:ident))? $c:ident $n:ident $pod:ident) => { Ok(()) };
    (@dynamic dynamic_filter($f:ident) $c:ident $n:ident $b:ident $p:ident) => { $c.$f($n, $b, $p) };
    (@dynamic $other:ident $(($f:ident))? $c:ident $n:ident $b:ident $p:ident) => { Ok(()) };
    (@is_static static_filter) => { true };
    (@is_static $other:ident) => { false };
    (@is_own scores_itself) => { true };
    (@is_local node_local) => { true };
    (@is_local $other:ident) => { false };
    (@is_own $other:ident) => { false };
    // Score then NormalizeScore over the feasible nodes (`false`: nothing
    // to add here).
    (@score node_local($f:ident) $c:ident $b:ident $feasible:ident $p:ident $cached:ident $raw:ident $norm:ident) => {{
        // With the batch caches, the node-local sum is in the totals already.
        if $cached {
            return false;
        }
        for &i in $feasible {
            $raw.push($c.$f(crate::cluster::NodeId(i), $b, $p));
        }
        $norm.extend_from_slice($raw);
        true
    }};
    (@score normalized($f:ident, $normalize:path, $u:ident) $c:ident $b:ident $feasible:ident $p:ident $cached:ident $raw:ident $norm:ident) => {{
        for &i in $feasible {
            $raw.push($c.$f(i, $b, $p, $cached));
        }
        $norm.extend_from_slice($raw);
        $normalize($norm);
        true
    }};
    (@score scores_itself($f:ident, $u:ident) $c:ident $b:ident $feasible:ident $p:ident $cached:ident $raw:ident $norm:ident) => {{
        $c.$f($b, $feasible, $norm, Some($raw));
        true
    }};
    (@score no_score $c:ident $b:ident $feasible:ident $p:ident $cached:ident $raw:ident $norm:ident) => { false };
    (@local node_local($f:ident) $c:ident $n:ident $b:ident $p:ident) => { $c.$f($n, $b, $p) };
    (@local $other:ident $(($($a:tt)*))? $c:ident $n:ident $b:ident $p:ident) => { 0 };
    (@own scores_itself($f:ident, $u:ident) $c:ident $b:ident $feasible:ident $norm:ident) => {{
        $c.$f($b, $feasible, $norm, None);
        true
    }};
    (@own $other:ident $(($($a:tt)*))? $c:ident $b:ident $feasible:ident $norm:ident) => { false };
    (@shape node_local($f:ident) $c:ident $b:ident $soft:ident) => { ScoreShape::NodeLocal };
    (@shape normalized($f:ident, $normalize:path, $u:ident) $c:ident $b:ident $soft:ident) => {
        $c.$u($b, $soft).map_or(ScoreShape::Varies, ScoreShape::Same)
    };
    (@shape scores_itself($f:ident, $u:ident) $c:ident $b:ident $soft:ident) => {
        $c.$u($b, $soft).map_or(ScoreShape::Varies, ScoreShape::Same)
    };
    (@shape no_score $c:ident $b:ident $soft:ident) => { ScoreShape::Nothing };
    (@prescore skips($f:ident) $c:ident $b:ident $p:ident) => { $c.$f($b, $p) };
    (@prescore never $c:ident $b:ident $p:ident) => { false };
    // The central `Unfit`: one variant per plugin with a reason type,
    // gathered row by row.
    (@unfit [$($v:ident($ty:ty),)*]) => {
        /// Why a filter rejected a node: the rejecting plugin (the variant,
        /// by its kube-scheduler name) and its own reason, which says the
        /// words and the status code ([`FilterReason`]). Generated from
        /// the registry's `reason`s.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Unfit {
            $($v($ty),)*
        }

        impl Unfit {
            /// The reasons as Kubernetes words them in a FailedScheduling
            /// message.
            pub fn reasons(&self) -> Vec<String> {
                match self {
                    $(Unfit::$v(r) => r.reasons(),)*
                }
            }

            /// The status code the rejecting plugin's Filter returns with
            /// this reason, as in Kubernetes v1.37 (each plugin's
            /// [`FilterReason::code`] cites its rule).
            pub fn code(&self) -> crate::scheduler::Code {
                match self {
                    $(Unfit::$v(r) => r.code(),)*
                }
            }

            /// What the reasons leave out, for a person reading explain
            /// (the untolerated taint, the host port taken). Not part of
            /// FailedScheduling.
            pub fn detail(&self) -> Option<String> {
                match self {
                    $(Unfit::$v(r) => r.detail(),)*
                }
            }

            /// The filter plugin that rejected, by its Kubernetes name.
            pub fn plugin(&self) -> &'static str {
                match self {
                    $(Unfit::$v(_) => Plugin::$v.name(),)*
                }
            }
        }
    };
    (@unfit [$($acc:tt)*] $v:ident [none], $($rest:tt)*) => {
        registry!(@unfit [$($acc)*] $($rest)*);
    };
    (@unfit [$($acc:tt)*] $v:ident [$($ty:ident)::+], $($rest:tt)*) => {
        registry!(@unfit [$($acc)* $v($($ty)::+),] $($rest)*);
    };
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            filter: $filter:expr,
            score: $score:expr,
            runs: $runs:ident $(($f:ident))?,
            reason: $($reason:ident)::+,
            scoring: $scoring:ident $(($($sargs:tt)*))?,
            prescore: $prescore:ident $(($pf:ident))?,
            classes: $classes:expr $(,)?
        }
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

            /// Whether its Filter is static: it reads only the node and
            /// the pod's `StaticInputs` (run by `run_static_filter`).
            pub fn static_filter(&self) -> bool {
                match self {
                    $(Plugin::$variant => registry!(@is_static $runs),)+
                }
            }

            /// Whether it scores the feasible nodes together (the
            /// registry's `scores_itself`, run by `run_own_score`).
            #[inline]
            pub(crate) fn scores_itself(&self) -> bool {
                match self {
                    $(Plugin::$variant => registry!(@is_own $scoring),)+
                }
            }

            /// Whether its score reads its node's own books alone (the
            /// registry's `node_local`, summed by `run_local_score`).
            #[inline]
            pub(crate) fn node_local(&self) -> bool {
                match self {
                    $(Plugin::$variant => registry!(@is_local $scoring),)+
                }
            }

            /// Whether the class cycle and the sample index know its
            /// score (the registry's `classes`).
            #[inline]
            pub(crate) fn class_scored(&self) -> bool {
                match self {
                    $(Plugin::$variant => $classes,)+
                }
            }
        }

        registry!(@unfit [] $($variant [$($reason)::+],)+);

        impl crate::cluster::Cluster {
            /// Plugin `p`'s Filter on node `n` when it is static (else
            /// nothing): generated from the registry.
            #[inline]
            pub(in crate::scheduler) fn run_static_filter(
                &self,
                p: Plugin,
                n: crate::cluster::NodeId,
                pod: crate::scheduler::cache::StaticInputs<'_>,
            ) -> Result<(), crate::scheduler::Unfit> {
                match p {
                    $(Plugin::$variant => registry!(@static $runs $(($f))? self n pod),)+
                }
            }

            /// Plugin `p`'s Filter on node `n` for batch `b` when it is
            /// dynamic (else nothing): generated from the registry.
            #[inline]
            pub(in crate::scheduler) fn run_dynamic_filter(
                &self,
                p: Plugin,
                n: crate::cluster::NodeId,
                b: &crate::scheduler::Batch,
                profile: &crate::scheduler::Profile,
            ) -> Result<(), crate::scheduler::Unfit> {
                match p {
                    $(Plugin::$variant => registry!(@dynamic $runs $(($f))? self n b profile),)+
                }
            }

            /// Plugin `p`'s Score and NormalizeScore on the feasible nodes:
            /// the raw scores pushed onto `raw`, the normalised ones onto
            /// `norm`. `false`: it adds nothing here (no Score, or a
            /// node-local one whose sum the totals hold already when
            /// `cached`). Generated from the registry.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub(in crate::scheduler) fn run_score(
                &self,
                p: Plugin,
                b: &mut crate::scheduler::Batch,
                feasible: &[u32],
                profile: &crate::scheduler::Profile,
                cached: bool,
                raw: &mut alloc::vec::Vec<i64>,
                norm: &mut alloc::vec::Vec<i64>,
            ) -> bool {
                let _ = (&profile, &cached);
                match p {
                    $(Plugin::$variant => registry!(@score $scoring $(($($sargs)*))? self b feasible profile cached raw norm),)+
                }
            }

            /// Plugin `p`'s score on node `n` when it is node-local (else
            /// 0): generated from the registry.
            #[inline(always)]
            pub(in crate::scheduler) fn run_local_score(
                &self,
                p: Plugin,
                n: crate::cluster::NodeId,
                b: &crate::scheduler::Batch,
                profile: &crate::scheduler::Profile,
            ) -> i64 {
                let _ = (&n, &b, &profile);
                match p {
                    $(Plugin::$variant => registry!(@local $scoring $(($($sargs)*))? self n b profile),)+
                }
            }

            /// The normalised scores of plugin `p` when it scores the
            /// feasible nodes itself (`scores_itself`), onto `norm`;
            /// `false` for the others. Generated from the registry.
            #[inline]
            pub(in crate::scheduler) fn run_own_score(
                &self,
                p: Plugin,
                b: &mut crate::scheduler::Batch,
                feasible: &[u32],
                norm: &mut alloc::vec::Vec<i64>,
            ) -> bool {
                let _ = (&b, &feasible, &norm);
                match p {
                    $(Plugin::$variant => registry!(@own $scoring $(($($sargs)*))? self b feasible norm),)+
                }
            }

            /// The shape of plugin `p`'s scores for batch `b` (see
            /// [`ScoreShape`]): generated from the registry.
            #[inline]
            pub(in crate::scheduler) fn score_shape(
                &self,
                p: Plugin,
                b: &crate::scheduler::Batch,
                soft_taints: bool,
            ) -> ScoreShape {
                let _ = (&b, &soft_taints);
                match p {
                    $(Plugin::$variant => registry!(@shape $scoring $(($($sargs)*))? self b soft_taints),)+
                }
            }

            /// Whether plugin `p`'s PreScore returns Skip for the batch's
            /// pods: generated from the registry.
            pub(in crate::scheduler) fn prescore_skip(
                &self,
                p: Plugin,
                b: &crate::scheduler::Batch,
                profile: &crate::scheduler::Profile,
            ) -> bool {
                let _ = (&b, &profile);
                match p {
                    $(Plugin::$variant => registry!(@prescore $prescore $(($pf))? self b profile),)+
                }
            }
        }
    };
}

/// A plugin's reason for refusing a node (its Filter's failed Status):
/// what the FailedScheduling message says and with which code, as the Go
/// plugin returns them. Each plugin's folder defines its own type; the
/// registry's row names it (`reason`), and [`crate::Unfit`] wraps it.
pub trait FilterReason {
    /// The reasons as Kubernetes words them (most plugins give one).
    fn reasons(&self) -> Vec<String>;
    /// The status code: Unschedulable (preemption may help) or
    /// UnschedulableAndUnresolvable.
    fn code(&self) -> crate::scheduler::Code;
    /// What the reasons leave out, for explain.
    fn detail(&self) -> Option<String> {
        None
    }
}

/// What a plugin's scores look like for a batch, before any node is scored:
/// what the fast paths select on (`score_fast`, `heap_path`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScoreShape {
    /// No Score extension point: it adds nothing.
    Nothing,
    /// Each node's score reads that node's own books alone.
    NodeLocal,
    /// Every node gets this normalised score.
    Same(i64),
    /// The scores may differ from node to node in ways only scoring the
    /// feasible nodes together tells.
    Varies,
}

registry! {
    /// Filter: cordoned nodes (`spec.unschedulable`).
    NodeUnschedulable {
        filter: Some(0),
        score: None,
        runs: static_filter(node_unschedulable_filter),
        reason: node_unschedulable::Cordoned,
        scoring: no_score,
        prescore: never,
        classes: false,
    },
    /// Filter: untolerated NoSchedule/NoExecute taints. Score: untolerated
    /// PreferNoSchedule taints, fewer is better.
    TaintToleration {
        filter: Some(1),
        score: Some((0, 3)),
        runs: static_filter(taint_toleration_filter),
        reason: taint_toleration::Untolerated,
        scoring: normalized(taint_toleration_raw, taint_toleration::normalize, taint_toleration_uniform),
        prescore: never,
        classes: true,
    },
    /// Filter: nodeSelector and required node affinity. Score: preferred node
    /// affinity weights.
    NodeAffinity {
        filter: Some(2),
        score: Some((1, 2)),
        runs: static_filter(node_affinity_filter),
        reason: node_affinity::Mismatch,
        scoring: normalized(node_affinity_raw, node_affinity::normalize, node_affinity_uniform),
        prescore: skips(node_affinity_prescore_skips),
        classes: true,
    },
    /// Filter: requests fit allocatable cpu, memory and pods. Score: the
    /// scoring strategy (LeastAllocated, MostAllocated, RequestedToCapacityRatio).
    NodeResourcesFit {
        filter: Some(4),
        score: Some((2, 1)),
        runs: dynamic_filter(fit_filter),
        reason: node_resources_fit::Insufficient,
        scoring: node_local(fit_score),
        prescore: never,
        classes: true,
    },
    /// Score: how evenly cpu and memory would be used.
    NodeResourcesBalancedAllocation {
        filter: None,
        score: Some((5, 1)),
        runs: no_filter,
        reason: none,
        scoring: node_local(balanced_score),
        prescore: skips(balanced_prescore_skips),
        classes: true,
    },
    /// Filter: DoNotSchedule constraints. Score: ScheduleAnyway constraints
    /// and the system default constraints.
    PodTopologySpread {
        filter: Some(5),
        score: Some((3, 2)),
        runs: dynamic_filter(pod_topology_spread_filter),
        reason: pod_topology_spread::Unsatisfied,
        scoring: scores_itself(spread_score, spread_uniform),
        prescore: skips(spread_prescore_skips),
        classes: true,
    },
    /// Filter: required pod affinity and anti-affinity (both ways). Score:
    /// preferred terms, and existing pods' terms toward the incoming pod.
    InterPodAffinity {
        filter: Some(6),
        score: Some((4, 2)),
        runs: dynamic_filter(inter_pod_affinity_filter),
        reason: inter_pod_affinity::Unsatisfied,
        scoring: normalized(inter_pod_affinity_raw, inter_pod_affinity::normalize, inter_pod_affinity_uniform),
        prescore: skips(inter_pod_affinity_prescore_skips),
        classes: true,
    },
    /// Filter: the pod's host ports are free on the node.
    NodePorts {
        filter: Some(3),
        score: None,
        runs: dynamic_filter(node_ports_filter),
        reason: node_ports::Taken,
        scoring: no_score,
        prescore: never,
        classes: false,
    },
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
                NodePorts,
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
        // The filters whose verdicts the static cache may keep: those that
        // read only the node and the pod's StaticInputs.
        let statics: Vec<Plugin> = Plugin::ALL
            .into_iter()
            .filter(Plugin::static_filter)
            .collect();
        assert_eq!(statics, [NodeUnschedulable, TaintToleration, NodeAffinity]);
        let e = Plugin::parse("ImageLocality").unwrap_err().to_string();
        assert!(
            e.ends_with("expected one of NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit, NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity, NodePorts"),
            "{e}"
        );
    }

    /// The registry's declared score shapes, and the reasons' codes and
    /// plugins as Kubernetes v1.37's Filters return them.
    #[test]
    fn the_registry_declares_shapes_and_reasons() {
        use crate::scheduler::Code::{Unschedulable, UnschedulableAndUnresolvable};
        use Plugin::*;
        let which =
            |f: fn(&Plugin) -> bool| -> Vec<Plugin> { Plugin::ALL.into_iter().filter(f).collect() };
        assert_eq!(
            which(Plugin::node_local),
            [NodeResourcesFit, NodeResourcesBalancedAllocation]
        );
        assert_eq!(which(Plugin::scores_itself), [PodTopologySpread]);
        assert_eq!(
            which(Plugin::class_scored),
            [
                TaintToleration,
                NodeAffinity,
                NodeResourcesFit,
                NodeResourcesBalancedAllocation,
                PodTopologySpread,
                InterPodAffinity
            ]
        );
        let taint = crate::model::Taint {
            key: "k".to_string(),
            value: "v".to_string(),
            effect: crate::model::TaintEffect::NoSchedule,
        };
        let short = |unresolvable| node_resources_fit::Insufficient {
            cpu: true,
            memory: false,
            pods: true,
            scalars: alloc::vec!["nvidia.com/gpu".to_string()],
            unresolvable,
        };
        let cases = [
            (
                Unfit::NodeUnschedulable(node_unschedulable::Cordoned),
                "NodeUnschedulable",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::TaintToleration(taint_toleration::Untolerated(taint)),
                "TaintToleration",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::NodeAffinity(node_affinity::Mismatch),
                "NodeAffinity",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::NodeResourcesFit(short(false)),
                "NodeResourcesFit",
                Unschedulable,
            ),
            (
                Unfit::NodeResourcesFit(short(true)),
                "NodeResourcesFit",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::PodTopologySpread(pod_topology_spread::Unsatisfied::MissingLabel),
                "PodTopologySpread",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::PodTopologySpread(pod_topology_spread::Unsatisfied::Skew),
                "PodTopologySpread",
                Unschedulable,
            ),
            (
                Unfit::InterPodAffinity(inter_pod_affinity::Unsatisfied::Affinity),
                "InterPodAffinity",
                UnschedulableAndUnresolvable,
            ),
            (
                Unfit::InterPodAffinity(inter_pod_affinity::Unsatisfied::AntiAffinity),
                "InterPodAffinity",
                Unschedulable,
            ),
            (
                Unfit::InterPodAffinity(inter_pod_affinity::Unsatisfied::ExistingAntiAffinity),
                "InterPodAffinity",
                Unschedulable,
            ),
        ];
        for (u, plugin, code) in &cases {
            assert_eq!((u.plugin(), u.code()), (*plugin, *code), "{u:?}");
        }
        assert_eq!(
            cases[3].0.reasons(),
            [
                "Too many pods",
                "Insufficient cpu",
                "Insufficient nvidia.com/gpu"
            ]
        );
        assert_eq!(cases[1].0.reasons(), [taint_toleration::REASON]);
        assert_eq!(cases[1].0.detail().as_deref(), Some("k=v:NoSchedule"));
        assert_eq!(cases[0].0.detail(), None);
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
