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
