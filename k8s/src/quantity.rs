//! Kubernetes resource quantities, read exactly and rounded up as Kubernetes
//! rounds them.
//!
//! TO BE REPLACED at merge by `shepherd::quantity` (the engine's full
//! implementation, written on another branch). Everything here goes through the
//! two functions [`cpu_millis`] and [`bytes`]; swap their bodies and delete the
//! rest.
//!
//! The grammar (apimachinery `resource.Quantity`):
//! `<signedNumber><suffix>`, number `[+-]digits[.digits]` (or `.digits`),
//! suffix one of the binary `Ki Mi Gi Ti Pi Ei`, the decimal `n u m "" k M G T P E`,
//! or an exponent `e<signedInt>` / `E<signedInt>`. A value that is not a whole
//! number of the unit asked for rounds up (`MilliValue()` and `Value()` round
//! away from zero), so `0.0001` cpu is 1m and `0.5` bytes is 1 byte.

/// The exact value `mantissa * 2^(10*bin) * 10^dec`, with `mantissa` >= 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Exact {
    mantissa: u128,
    bin: u32,
    dec: i64,
}

/// At most this many significant digits; Kubernetes itself keeps fewer.
const MAX_DIGITS: usize = 36;

fn parse(s: &str) -> Result<Exact, String> {
    let expected = "a quantity such as 500m, 2, 1.5, 128Mi, 1G or 1e3";
    let bad = |why: &str| format!("{s:?} is not a quantity ({why}); expected {expected}");
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        if b[i] == b'-' {
            // A request or a capacity below zero means nothing.
            let rest = &s[1..];
            if rest.bytes().any(|c| c.is_ascii_digit() && c != b'0') {
                return Err(format!("{s:?} is negative; expected zero or more"));
            }
        }
        i += 1;
    }
    let mut mantissa: u128 = 0;
    let mut digits = 0usize;
    let mut frac = 0i64;
    let mut any = false;
    let mut seen_dot = false;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        if b[i] == b'.' {
            if seen_dot {
                return Err(bad("two decimal points"));
            }
            seen_dot = true;
        } else {
            any = true;
            let d = (b[i] - b'0') as u128;
            if mantissa == 0 && d == 0 {
                if seen_dot {
                    frac += 1;
                }
            } else {
                digits += 1;
                if digits > MAX_DIGITS {
                    return Err(bad("more than 36 significant digits"));
                }
                mantissa = mantissa * 10 + d;
                if seen_dot {
                    frac += 1;
                }
            }
        }
        i += 1;
    }
    if !any {
        return Err(bad("no digits"));
    }
    let suffix = &s[i..];
    let (bin, dec) = match suffix {
        "" => (0, 0),
        "Ki" => (1, 0),
        "Mi" => (2, 0),
        "Gi" => (3, 0),
        "Ti" => (4, 0),
        "Pi" => (5, 0),
        "Ei" => (6, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        _ => {
            let exp = suffix
                .strip_prefix('e')
                .or_else(|| suffix.strip_prefix('E'))
                .ok_or_else(|| bad(&format!("unknown suffix {suffix:?}")))?;
            let digits_only = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits_only.is_empty() || !digits_only.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad(&format!("the exponent {exp:?} is not a whole number")));
            }
            // Bounded: beyond this the value is zero or far out of range anyway.
            let e: i64 = exp
                .parse::<i64>()
                .ok()
                .filter(|e| e.abs() <= 1000)
                .ok_or_else(|| bad(&format!("the exponent {exp} is out of range")))?;
            (0, e)
        }
    };
    Ok(Exact {
        mantissa,
        bin,
        dec: dec - frac,
    })
}

/// `ceil(value * 10^unit_exp)`, or an error when it does not fit in a u64.
fn ceil_scaled(q: Exact, unit_exp: i64, original: &str) -> Result<u64, String> {
    let too_big = || {
        format!("{original:?} is too large; expected a value that fits in 64 bits once converted")
    };
    if q.mantissa == 0 {
        return Ok(0);
    }
    let mut n = q.mantissa;
    for _ in 0..q.bin {
        n = n.checked_mul(1024).ok_or_else(too_big)?;
    }
    let e = q.dec + unit_exp;
    let v = if e >= 0 {
        for _ in 0..e {
            n = n.checked_mul(10).ok_or_else(too_big)?;
        }
        n
    } else if -e > 38 {
        1 // a positive value far below one unit rounds up to one
    } else {
        let div = 10u128.pow((-e) as u32);
        n.div_ceil(div)
    };
    u64::try_from(v).map_err(|_| too_big())
}

/// CPU in millicores, rounded up: `"0.5"` is 500, `"250m"` is 250, `"1"` is 1000.
pub fn cpu_millis(s: &str) -> Result<u64, String> {
    ceil_scaled(parse(s.trim())?, 3, s)
}

/// Bytes, rounded up: `"128Mi"` is 134217728, `"1G"` is 1000000000.
pub fn bytes(s: &str) -> Result<u64, String> {
    ceil_scaled(parse(s.trim())?, 0, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_reads_every_suffix_and_rounds_up_to_millicores() {
        for (s, m) in [
            ("1", 1000),
            ("0.5", 500),
            (".5", 500),
            ("250m", 250),
            ("100000u", 100),
            ("1u", 1),
            ("1n", 1),
            ("0.0001", 1),
            ("2k", 2_000_000),
            ("1e3", 1_000_000),
            ("1E-3", 1),
            ("+2", 2000),
            ("0", 0),
            ("-0", 0),
            ("1Ki", 1_024_000),
        ] {
            assert_eq!(cpu_millis(s), Ok(m), "{s}");
        }
    }

    #[test]
    fn memory_reads_binary_and_decimal_suffixes_in_bytes() {
        for (s, b) in [
            ("128Mi", 128 << 20),
            ("1Gi", 1 << 30),
            ("1G", 1_000_000_000),
            ("1.5Gi", 3 << 29),
            ("65776800Ki", 65_776_800 * 1024),
            ("129e6", 129_000_000),
            ("1Ei", 1 << 60),
            ("0.5", 1),
            ("100m", 1),
        ] {
            assert_eq!(bytes(s), Ok(b), "{s}");
        }
    }

    #[test]
    fn bad_quantities_say_what_was_expected() {
        for s in [
            "", "abc", "1.2.3", "1Xi", "1e", "1e+", "-1", "--1", "1 Gi", "m", "1e99999",
        ] {
            let e = bytes(s).unwrap_err();
            assert!(e.contains("expected"), "{s}: {e}");
        }
        assert!(bytes("20Ei").unwrap_err().contains("too large"));
        assert!(cpu_millis("1e30").unwrap_err().contains("too large"));
        assert!(bytes(&"9".repeat(40)).is_err());
    }
}
