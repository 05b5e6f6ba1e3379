//! The number checks that the page's forms (`input.rs`) and a scenario file
//! (`scenario.rs`) share: a number that JavaScript holds exactly, in a range.

/// The largest seed that survives a trip through a JavaScript number.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A whole number in `min..=max`, from a JavaScript number or typed text.
pub fn whole(what: &str, v: f64, min: u64, max: u64) -> Result<u64, String> {
    if v.is_finite() && v.fract() == 0.0 && v >= min as f64 && v <= max as f64 {
        Ok(v as u64)
    } else {
        Err(format!(
            "{what} {} is not valid; expected a whole number from {min} to {max}",
            show(v)
        ))
    }
}

fn show(v: f64) -> String {
    if v.is_nan() {
        "(not a number)".into()
    } else {
        format!("{v}")
    }
}

/// A seed: a whole number that a JavaScript number holds exactly.
pub fn check_seed(v: f64) -> Result<u64, String> {
    whole("seed", v, 0, MAX_SEED)
}
