//! NodeResourcesBalancedAllocation: favours nodes whose resources would be
//! used evenly. Each resource's fraction requested/allocatable (capped at 1,
//! requests as they are, without non-zero defaults), then
//! score = (1 - standard deviation) * 100, truncated. A pod that requests
//! nothing at all (best effort) is not scored by it.

use super::{abs, sqrt, MAX_NODE_SCORE};

pub fn score(requested: &[i64], allocatable: &[i64]) -> i64 {
    let mut fractions = [0f64; 8];
    let mut n = 0;
    let mut total = 0.0;
    for (&r, &a) in requested.iter().zip(allocatable) {
        if a == 0 || n == fractions.len() {
            continue;
        }
        let mut f = r as f64 / a as f64;
        if f > 1.0 {
            f = 1.0;
        }
        total += f;
        fractions[n] = f;
        n += 1;
    }
    let std = if n == 2 {
        abs((fractions[0] - fractions[1]) / 2.0)
    } else if n > 2 {
        let mean = total / n as f64;
        let sum: f64 = fractions[..n].iter().map(|f| (f - mean) * (f - mean)).sum();
        sqrt(sum / n as f64)
    } else {
        0.0
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}
