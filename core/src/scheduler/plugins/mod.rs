//! kube-scheduler's plugins, one file each, named as kube-scheduler names
//! them. Each file holds the plugin's formulas as plain functions (what the
//! conformance tests call with kube-scheduler's own test numbers); the
//! framework in `scheduler/mod.rs` feeds them from the cluster's books.

pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_resources_balanced_allocation;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod taint_toleration;

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
/// fractions (values in 0..=1): the engine's one implementation, in `balance`.
pub fn sqrt(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        crate::balance::sqrt(x)
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

    #[test]
    fn round_is_half_away_from_zero() {
        assert_eq!(round_half_away(2.5), 3);
        assert_eq!(round_half_away(2.4999999), 2);
        assert_eq!(round_half_away(-2.5), -3);
        assert_eq!(round_half_away(0.0), 0);
        assert!(abs(ln(3.0) - 1.0986122886681098) < 1e-15);
    }
}
