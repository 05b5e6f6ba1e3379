//! Arithmetic `core` lacks without `std`.

/// The square root without `std` (core has no `f64::sqrt` on the supported
/// toolchains): Newton's iteration from a power-of-two estimate, run until
/// it stops decreasing, which for a non-negative finite `x` gives the
/// correctly rounded root or one ulp from it.
pub fn sqrt(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // x = m 2^e with 1 <= m < 2, so sqrt(x) < 2^((e+1)/2) <= 2^ceil((e+1)/2):
    // a start at or above the root.
    let e = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let mut y = f64::from_bits((((e + 2).div_euclid(2) + 1023) as u64) << 52);
    // From above, Newton's iterates decrease monotonically to the root.
    loop {
        let next = 0.5 * (y + x / y);
        if next >= y {
            return y;
        }
        y = next;
    }
}

/// The correctly rounded square root, as IEEE 754's (Go's `math.Sqrt`)
/// for a non-negative finite `x`: [`sqrt`], then of it and its two
/// neighbours the one whose square is nearest `x`, each square's error
/// taken exactly (Dekker's product). A root never lies on the midpoint of
/// two doubles, so the nearest square names the nearest root.
pub fn sqrt_rounded(x: f64) -> f64 {
    let y = sqrt(x);
    if y.is_nan() || y <= 0.0 || y.is_infinite() || x < f64::MIN_POSITIVE * 4.0 {
        return y;
    }
    let residual = |c: f64| {
        let (p, e) = two_product(c, c);
        ((x - p) - e).abs()
    };
    let below = f64::from_bits(y.to_bits() - 1);
    let above = f64::from_bits(y.to_bits() + 1);
    let mut best = y;
    let mut r = residual(y);
    for c in [below, above] {
        let rc = residual(c);
        if rc < r {
            best = c;
            r = rc;
        }
    }
    best
}

/// `a * b` as the rounded product and its exact error (Dekker, with
/// Veltkamp's split), for products well inside the normal range.
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let split = |v: f64| {
        let t = 134_217_729.0 * v; // 2^27 + 1
        let hi = t - (t - v);
        (hi, v - hi)
    };
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against std's correctly rounded root: fractions' variances as
    /// BalancedAllocation computes them, random doubles over many
    /// magnitudes, and perfect squares.
    #[test]
    fn sqrt_rounded_is_the_correctly_rounded_root() {
        extern crate std;
        let mut rng = crate::util::prng::Prng::new(17);
        let mut xs: alloc::vec::Vec<f64> = (0..=20_000u32).map(|i| i as f64 / 80_000.0).collect();
        for _ in 0..200_000 {
            let m = 1.0 + rng.below(1 << 52) as f64 / (1u64 << 52) as f64;
            let e = rng.below(80) as i32 - 60;
            xs.push(m * std::primitive::f64::powi(2.0, e));
        }
        for i in 1..2000u32 {
            xs.push((i as f64) * (i as f64));
        }
        for x in xs {
            assert_eq!(
                sqrt_rounded(x).to_bits(),
                std::primitive::f64::sqrt(x).to_bits(),
                "sqrt({x:e})"
            );
        }
        assert_eq!(sqrt_rounded(0.0), 0.0);
    }
}
