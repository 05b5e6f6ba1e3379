//! Kubernetes resource quantities: `4`, `500m`, `1.5`, `8Gi`, `512Mi`, `1e3`.
//!
//! [`Quantity::parse`] takes exactly the strings that
//! `k8s.io/apimachinery/pkg/api/resource.ParseQuantity` (v0.37.2,
//! parseQuantityString) takes, and refuses the others:
//!
//! ```text
//! quantity        ::= signedNumber suffix          (suffix may be empty)
//! signedNumber    ::= number | sign number
//! sign            ::= "+" | "-"
//! number          ::= digits | digits "." digits | digits "." | "." digits | "." | ""
//! suffix          ::= binarySI | decimalSI | decimalExponent
//! binarySI        ::= Ki | Mi | Gi | Ti | Pi | Ei        (2^10 .. 2^60)
//! decimalSI       ::= n | u | m | "" | k | M | G | T | P | E   (10^-9 .. 10^18)
//! decimalExponent ::= "e" signedDigits | "E" signedDigits      (1e3, 1E-3)
//! ```
//!
//! A number without digits is zero (`Mi`, `+`, `.`, `E2`, `.e+2`, even `-`),
//! except before `Pi`, `Ei` or an exponent below -9, where Kubernetes parses
//! the number on its arbitrary-precision path, which wants a digit ("unable to
//! parse numeric part of quantity"). The exponent of `e`/`E` is a 64-bit
//! whole number (beyond that: refused) truncated to 32 bits, as Kubernetes
//! truncates it (`1e4294967299` is `1e3`). Strings that differ only by a
//! suffix Kubernetes has no word for (`1K`, `8GB`, `1e`), by whitespace (` 4`)
//! or by a second point (`1.2.3`) are refused.
//!
//! Note the two meanings of `E`: alone it is exa (10^18), followed by digits it
//! starts an exponent (`1E3` is 1000). A quantity is never a floating-point
//! number here either: the digits are kept as written and scaled exactly, so
//! `0.1` is exactly one tenth and `1.5Gi` exactly 1610612736 bytes.
//!
//! Rounding follows Kubernetes: a value that is not a whole number of the
//! unit asked for is rounded **up** (`Quantity.MilliValue()` and `Value()`
//! round up; "if you want some resources, you should get some"), so `0.1m` of
//! cpu is 1 millicore and `1.5` bytes is 2 bytes. The engine counts memory in
//! bytes, as Kubernetes does (`Value()`): [`parse_memory_bytes`], and
//! [`memory_bytes`] says whether rounding happened.
//!
//! Printing follows Kubernetes' canonical form (`Quantity.String`, what
//! kubectl shows): [`format_cpu_millis`] and [`format_memory_bytes`].
//!
//! The value is the one Kubernetes computes (`MilliValue()`, `Value()`)
//! wherever that fits an int64. Where it does not, Kubernetes caps a binary
//! quantity at 2^63 - 1 and lets the rest overflow; here a value above
//! 2^63 - 1 of the unit asked for is refused ([`QuantityErrorKind::TooLarge`])
//! rather than capped, so a caller can store every result in an `i64` (the
//! engine's own bounds are far lower). Negative quantities parse, but the
//! cpu and memory readers refuse them (requests and capacities must be 0 or
//! more, as the API server's validation says). ParseQuantity allows no
//! whitespace; the API server's JSON decoding trims it first
//! (Quantity.UnmarshalJSON), and so do the manifest import and the forms.
//! One corner is not reproduced: an exponent within a few of -2^31 makes
//! Kubernetes' int32 scale arithmetic wrap (values that are garbage, or a
//! parse that does not finish); here such a number is read as written, a
//! tiny fraction rounded up. Huge exponents (`1e999999999`) are refused
//! without doing work proportional to the exponent, and the work for a long
//! string of digits is linear in its length.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The largest value any parse here returns, in the unit asked for: 2^63 - 1,
/// the bound Kubernetes puts on every quantity.
pub const MAX_VALUE: u64 = i64::MAX as u64;

/// Bytes in one MiB (2^20).
pub const MIB: u64 = 1 << 20;

/// Why a quantity was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuantityErrorKind {
    /// Nothing was typed.
    Empty,
    /// The text does not start with a number (after an optional sign).
    NotANumber,
    /// A suffix that is none of Kubernetes' (e.g. `GB`, `mb`, `cores`).
    UnknownSuffix(String),
    /// `e`/`E` followed by something that is not a whole number (`1e`, `1e3.5`).
    BadExponent(String),
    /// `e`/`E` followed by a whole number beyond a 64-bit integer, which
    /// Kubernetes refuses (`1e99999999999999999999`).
    ExponentOutOfRange(String),
    /// Below zero: requests and capacities are 0 or more.
    Negative,
    /// Above [`MAX_VALUE`] of the unit (the message names the engine's
    /// own bound, which is lower: `MAX_CPU_MILLIS`, `MAX_MEMORY_BYTES`).
    TooLarge,
}

/// A refused quantity: what it was for, what was typed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantityError {
    /// `cpu` or `memory`.
    pub resource: &'static str,
    /// The text exactly as given.
    pub input: String,
    pub kind: QuantityErrorKind,
}

impl QuantityError {
    fn expected(&self) -> &'static str {
        if self.resource == "cpu" {
            "cores such as 2, 1.5 or 500m (m: millicores)"
        } else {
            "bytes such as 512Mi, 8Gi or 1G (Ki Mi Gi Ti Pi Ei: powers of 1024; k M G T P E: powers of 1000)"
        }
    }
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, input) = (self.resource, crate::util::limits::quoted(&self.input));
        match &self.kind {
            QuantityErrorKind::Empty => {
                write!(f, "{what} is empty; expected {}", self.expected())
            }
            QuantityErrorKind::NotANumber => write!(
                f,
                "{what} {input} is not a quantity: it does not start with a number; expected {}",
                self.expected()
            ),
            QuantityErrorKind::UnknownSuffix(s) => write!(
                f,
                "{what} {input} is not a quantity: unknown suffix {}; expected {}",
                crate::util::limits::quoted(s),
                self.expected()
            ),
            QuantityErrorKind::BadExponent(s) => write!(
                f,
                "{what} {input} is not a quantity: the exponent {} is not a whole number; expected e or E and digits, such as 1e3 or 5E-1",
                crate::util::limits::quoted(s)
            ),
            QuantityErrorKind::ExponentOutOfRange(s) => write!(
                f,
                "{what} {input} is not a quantity: the exponent {} is out of range; expected e or E and a whole number from {} to {}, such as 1e3 or 5E-1",
                crate::util::limits::quoted(s),
                i64::MIN,
                i64::MAX
            ),
            QuantityErrorKind::Negative => write!(
                f,
                "{what} {input} is negative; expected 0 or more, {}",
                self.expected()
            ),
            // The bound a user can reach is the engine's (MAX_CPU_MILLIS,
            // MAX_MEMORY_BYTES), far below the parse's 2^63 - 1: naming the
            // parse's bound read as "at most" the very value typed.
            QuantityErrorKind::TooLarge => {
                if what == "cpu" {
                    write!(
                        f,
                        "{what} {input} is too large; expected at most {} cores ({}m), the most a node may have or a pod request",
                        crate::model::MAX_CPU_MILLIS / 1000,
                        crate::model::MAX_CPU_MILLIS
                    )
                } else {
                    write!(
                        f,
                        "{what} {input} is too large; expected at most 1Pi ({} bytes), the most a node may have or a pod request",
                        crate::model::MAX_MEMORY_BYTES
                    )
                }
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for QuantityError {}

/// A parsed quantity, exactly: `±digits × 10^exp10 × 2^exp2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    /// Significant decimal digits (values 0..=9), most significant first;
    /// no leading or trailing zeros. Empty: the quantity is zero.
    digits: Vec<u8>,
    /// Power of ten. Saturates far beyond any value that could fit a u64, so
    /// no exponent a person types can overflow it.
    exp10: i64,
    /// Power of two from a binary suffix: 0, 10, 20, ... 60.
    exp2: u32,
}

/// A value in whole units, and whether it is exactly what was typed (false:
/// it was rounded up to the next whole unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounded {
    pub value: u64,
    pub exact: bool,
}

// Exponents beyond this cannot matter (a u128 has 39 decimal digits), so
// larger ones are held at it instead of growing without bound.
const EXP_LIMIT: i64 = 1 << 40;

fn decimal_si(s: &str) -> Option<i64> {
    Some(match s {
        "" => 0,
        "n" => -9,
        "u" => -6,
        "m" => -3,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        _ => return None,
    })
}

fn binary_si(s: &str) -> Option<u32> {
    Some(match s {
        "Ki" => 10,
        "Mi" => 20,
        "Gi" => 30,
        "Ti" => 40,
        "Pi" => 50,
        "Ei" => 60,
        _ => return None,
    })
}

/// What a suffix means, as `quantitySuffixer.interpret` reads it
/// (apimachinery `resource/suffix.go`).
enum Suffix {
    /// A decimal SI suffix (`""`, `n` .. `E`): a power of ten.
    Decimal(i64),
    /// A binary SI suffix (`Ki` .. `Ei`): a power of two.
    Binary(u32),
    /// `e`/`E` and a whole number: a power of ten. The number is read as an
    /// int64 (strconv.ParseInt) and then truncated to int32, as
    /// `int32(parsed)` does: `1e4294967299` is `1e3` in Kubernetes too.
    Exponent(i32),
}

/// Why a suffix is none of Kubernetes'.
enum BadSuffix {
    Unknown,
    /// `e`/`E` and something that is not a whole number.
    Exponent,
    /// `e`/`E` and a whole number beyond int64.
    OutOfRange,
}

/// The suffix, or why it is none of Kubernetes'.
fn interpret(s: &str) -> Result<Suffix, BadSuffix> {
    if let Some(e) = decimal_si(s) {
        return Ok(Suffix::Decimal(e));
    }
    if let Some(p) = binary_si(s) {
        return Ok(Suffix::Binary(p));
    }
    if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) {
        // str::parse::<i64> takes what ParseInt(s, 10, 64) takes: an
        // optional sign, then decimal digits, in range.
        return match s[1..].parse::<i64>() {
            Ok(e) => Ok(Suffix::Exponent(e as i32)),
            Err(e) => Err(match e.kind() {
                core::num::IntErrorKind::PosOverflow | core::num::IntErrorKind::NegOverflow => {
                    BadSuffix::OutOfRange
                }
                _ => BadSuffix::Exponent,
            }),
        };
    }
    if s == "e" {
        return Err(BadSuffix::Exponent);
    }
    Err(BadSuffix::Unknown)
}

impl Quantity {
    /// Reads a quantity exactly as `resource.ParseQuantity` does (apimachinery
    /// `resource/quantity.go`, parseQuantityString and ParseQuantity): it
    /// takes what that takes and refuses what it refuses (see the module
    /// doc). Signs are kept; [`parse_cpu_millis`] and the memory parsers
    /// refuse negatives.
    pub fn parse(s: &str) -> Result<Quantity, QuantityErrorKind> {
        if s.is_empty() {
            return Err(QuantityErrorKind::Empty);
        }
        let b = s.as_bytes();
        let mut i = 0;
        let negative = match b[0] {
            b'-' => {
                i = 1;
                true
            }
            b'+' => {
                i = 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &b[int_start..i];
        let mut frac_part: &[u8] = &[];
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let f = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &b[f..i];
        }
        let has_digits = !int_part.is_empty() || !frac_part.is_empty();
        // Everything left is the suffix; `i` is at an ASCII boundary.
        let suffix = &s[i..];
        let (exp10, exp2) = match interpret(suffix) {
            // A number without digits ("", "+", ".", "Mi", "E2", ".e+2") is
            // zero: parseQuantityString reads its numerator as "0". It stays
            // zero only on ParseQuantity's int64 path; the other path
            // parses the text before the suffix as a decimal
            // (inf.Dec.SetString), which needs a digit. That path is taken
            // for Pi and Ei (precision below 0) and for exponents below
            // -9 (scale below Nano).
            Ok(Suffix::Binary(p)) if !has_digits && p > 40 => {
                return Err(QuantityErrorKind::NotANumber)
            }
            Ok(Suffix::Exponent(e)) if !has_digits && e < -9 => {
                return Err(QuantityErrorKind::NotANumber)
            }
            Ok(Suffix::Decimal(e)) => (e, 0),
            Ok(Suffix::Binary(p)) => (0, p),
            Ok(Suffix::Exponent(e)) => (i64::from(e), 0),
            Err(_) if !has_digits => return Err(QuantityErrorKind::NotANumber),
            Err(BadSuffix::OutOfRange) => {
                return Err(QuantityErrorKind::ExponentOutOfRange(suffix.into()))
            }
            Err(BadSuffix::Exponent) => return Err(QuantityErrorKind::BadExponent(suffix.into())),
            Err(BadSuffix::Unknown) => return Err(QuantityErrorKind::UnknownSuffix(suffix.into())),
        };

        let mut digits: Vec<u8> = int_part
            .iter()
            .chain(frac_part)
            .map(|d| d - b'0')
            .skip_while(|&d| d == 0)
            .collect();
        // (In i64 before the cap: on 32-bit targets a usize cannot hold EXP_LIMIT.)
        let frac_len = i64::try_from(frac_part.len())
            .unwrap_or(EXP_LIMIT)
            .min(EXP_LIMIT);
        let mut exp10 = exp10.saturating_sub(frac_len);
        while digits.last() == Some(&0) {
            digits.pop();
            exp10 = exp10.saturating_add(1);
        }
        Ok(Quantity {
            negative: negative && !digits.is_empty(),
            digits,
            exp10: exp10.clamp(-EXP_LIMIT, EXP_LIMIT),
            exp2,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The magnitude times `10^scale`, rounded up to a whole number; `None`
    /// when that is above [`MAX_VALUE`]. `scale` 3 gives milli-units, 0 units.
    pub fn ceil_scaled(&self, scale: i64) -> Option<Rounded> {
        if self.digits.is_empty() {
            return Some(Rounded {
                value: 0,
                exact: true,
            });
        }
        // P = digits × 2^exp2, exactly, as decimal digits (most significant first).
        let mut p = self.digits.clone();
        for _ in 0..self.exp2 {
            let mut carry = 0u8;
            for d in p.iter_mut().rev() {
                let v = *d * 2 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                p.insert(0, carry);
            }
        }
        let e = self.exp10.saturating_add(scale);
        // A u128 holds every number of up to 38 digits; more is far above MAX_VALUE.
        let to_int = |ds: &[u8]| -> Option<u128> {
            if ds.len() > 38 {
                return None;
            }
            Some(ds.iter().fold(0u128, |n, &d| n * 10 + u128::from(d)))
        };
        let (value, exact) = if e >= 0 {
            if p.len() as i64 + e > 38 {
                return None;
            }
            let n = to_int(&p)?.checked_mul(10u128.checked_pow(e as u32)?)?;
            (n, true)
        } else {
            let k = e.unsigned_abs();
            if k >= p.len() as u64 {
                // Below one unit but above zero: one unit.
                (1, false)
            } else {
                let (head, tail) = p.split_at(p.len() - k as usize);
                let exact = tail.iter().all(|&d| d == 0);
                (to_int(head)? + u128::from(!exact), exact)
            }
        };
        if value > u128::from(MAX_VALUE) {
            return None;
        }
        Some(Rounded {
            value: value as u64,
            exact,
        })
    }
}

fn parse_nonnegative(
    resource: &'static str,
    s: &str,
    scale: i64,
) -> Result<Rounded, QuantityError> {
    let fail = |kind| QuantityError {
        resource,
        input: s.into(),
        kind,
    };
    let q = Quantity::parse(s).map_err(fail)?;
    if q.is_negative() {
        return Err(fail(QuantityErrorKind::Negative));
    }
    q.ceil_scaled(scale)
        .ok_or_else(|| fail(QuantityErrorKind::TooLarge))
}

/// A cpu quantity in millicores, rounded up: `2` → 2000, `500m` → 500,
/// `1.5` → 1500, `0.1m` → 1, and whether no rounding was needed.
pub fn cpu_millis(s: &str) -> Result<Rounded, QuantityError> {
    parse_nonnegative("cpu", s, 3)
}

/// A cpu quantity in millicores, rounded up (see [`cpu_millis`]).
pub fn parse_cpu_millis(s: &str) -> Result<u64, QuantityError> {
    cpu_millis(s).map(|r| r.value)
}

/// A memory quantity in bytes, rounded up: `512Mi` → 536870912, `1G` →
/// 1000000000, `1k` → 1000, `0.5` → 1.
pub fn parse_memory_bytes(s: &str) -> Result<u64, QuantityError> {
    memory_bytes(s).map(|r| r.value)
}

/// A memory quantity in bytes, rounded up as `Quantity.Value()` rounds, and
/// whether no rounding was needed: `8Gi` → 8589934592 exact, `0.5` → 1
/// rounded.
pub fn memory_bytes(s: &str) -> Result<Rounded, QuantityError> {
    parse_nonnegative("memory", s, 0)
}

/// Millicores in Kubernetes' canonical form: whole cores as a plain number
/// (`2`), otherwise millicores (`1500m`), as `kubectl` prints them.
pub fn format_cpu_millis(m: u64) -> String {
    if m.is_multiple_of(1000) {
        alloc::format!("{}", m / 1000)
    } else {
        alloc::format!("{m}m")
    }
}

/// Bytes as Kubernetes prints a quantity of that value (`Quantity.String`,
/// `CanonicalizeBytes`), so that it reads back to exactly the same bytes:
/// a multiple of 1024 with the largest binary suffix that keeps a whole
/// number (`8Gi`, `1536Mi`, `100Ki`: a BinarySI quantity's form), any other
/// value with the largest decimal suffix that does (`1G`, `1500k`, `1k`,
/// `1536`: a DecimalSI quantity's form, which Kubernetes also uses for a
/// BinarySI one below 1024), and zero as `0`. Kubernetes keeps the format a
/// quantity was written in (`1000Ki` stays binary, `1024000` decimal); the
/// engine keeps bytes alone, so it prints the binary form whenever that is
/// whole.
pub fn format_memory_bytes(b: u64) -> String {
    if b == 0 {
        return "0".into();
    }
    let (base, units): (u64, [&str; 7]) = if b.is_multiple_of(1024) {
        (1024, ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
    } else {
        (1000, ["", "k", "M", "G", "T", "P", "E"])
    };
    let mut n = b;
    let mut i = 0;
    while n.is_multiple_of(base) && i + 1 < units.len() {
        n /= base;
        i += 1;
    }
    alloc::format!("{n}{}", units[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    // (input, millicores) — Kubernetes' own examples from the resource
    // package's documentation and tests, read as cpu.
    #[test]
    fn cpu_quantities_read_as_kubernetes_reads_them() {
        let rows: &[(&str, u64)] = &[
            ("0", 0),
            ("0m", 0),
            ("0n", 0),
            ("-0", 0),
            ("4", 4000),
            ("+4", 4000),
            ("500m", 500),
            ("100m", 100),
            ("1.5", 1500),   // serialised by Kubernetes as 1500m
            ("5.4", 5400),   // MilliValue() 5400
            ("5300m", 5300), // MilliValue() 5300
            (".5", 500),
            ("1.", 1000),
            ("0.1m", 1), // "0.1m will rounded up to 1m"
            ("1n", 1),   // above zero: at least one millicore
            ("1u", 1),
            ("1500000n", 2), // 1.5m, rounded up
            ("1000000n", 1),
            ("1e3", 1_000_000),
            ("1E3", 1_000_000),
            ("1e-3", 1),
            ("5E-1", 500),
            ("1e+2", 100_000),
            ("1k", 1_000_000),
            ("1Ki", 1_024_000),
            ("0.5Ki", 512_000),
            ("0001.5000", 1500),
            ("12e6", 12_000_000_000),
        ];
        for &(input, want) in rows {
            assert_eq!(parse_cpu_millis(input), Ok(want), "cpu {input:?}");
        }
        assert_eq!(
            cpu_millis("0.1m"),
            Ok(Rounded {
                value: 1,
                exact: false
            })
        );
        assert_eq!(
            cpu_millis("1.5"),
            Ok(Rounded {
                value: 1500,
                exact: true
            })
        );
    }

    // (input, bytes): the memory examples of Kubernetes' documentation.
    #[test]
    fn memory_quantities_read_as_kubernetes_reads_them() {
        let rows: &[(&str, u64)] = &[
            ("128974848", 128_974_848),
            ("129e6", 129_000_000),
            ("129M", 129_000_000),
            ("123Mi", 123 * MIB),
            ("5Gi", 5_368_709_120),
            ("5G", 5_000_000_000),
            ("1.5Gi", 1_610_612_736), // serialised as 1536Mi
            ("1k", 1000),
            ("1Ki", 1024),
            ("0.5", 1),
            ("400m", 1), // a famous mistake: 0.4 bytes, not 400 MiB
        ];
        for &(input, want) in rows {
            assert_eq!(parse_memory_bytes(input), Ok(want), "memory {input:?}");
        }
        // 8Ei is 2^63: one above the largest value any quantity may hold.
        assert_eq!(
            parse_memory_bytes("8Ei").unwrap_err().kind,
            QuantityErrorKind::TooLarge
        );
        assert_eq!(parse_memory_bytes("7Ei"), Ok(7 << 60));
    }

    #[test]
    fn memory_in_bytes_is_rounded_up_and_says_so() {
        assert_eq!(
            memory_bytes("8Gi"),
            Ok(Rounded {
                value: 8 << 30,
                exact: true
            })
        );
        assert_eq!(
            memory_bytes("1G"),
            Ok(Rounded {
                value: 1_000_000_000,
                exact: true
            })
        );
        assert_eq!(
            memory_bytes("100Ki"),
            Ok(Rounded {
                value: 102_400,
                exact: true
            })
        );
        assert_eq!(
            memory_bytes("0.5"),
            Ok(Rounded {
                value: 1,
                exact: false
            })
        );
        assert_eq!(
            memory_bytes("1500m"),
            Ok(Rounded {
                value: 2,
                exact: false
            })
        );
        assert_eq!(parse_memory_bytes("1.5Gi"), Ok(1_610_612_736));
        assert_eq!(
            parse_memory_bytes("8192"),
            Ok(8192),
            "8192 bytes, as Kubernetes reads a plain number"
        );
    }

    #[test]
    fn malformed_quantities_are_refused_with_what_was_typed() {
        use QuantityErrorKind::*;
        let rows: &[(&str, QuantityErrorKind)] = &[
            ("", Empty),
            ("abc", NotANumber),
            ("Pi", NotANumber),
            ("-Ei", NotANumber),
            ("e-10", NotANumber),
            (".e-10", NotANumber),
            ("e4294967286", NotANumber), // the exponent truncated to -10
            (" 4", NotANumber),
            ("4 ", UnknownSuffix(" ".into())),
            ("8GB", UnknownSuffix("GB".into())),
            ("8gi", UnknownSuffix("gi".into())),
            ("2cpu", UnknownSuffix("cpu".into())),
            ("1.2.3", UnknownSuffix(".3".into())),
            ("1K", UnknownSuffix("K".into())), // kilo is a lower-case k
            ("1e", BadExponent("e".into())),
            ("1e3.5", BadExponent("e3.5".into())),
            ("1E+", BadExponent("E+".into())),
            ("1ei", BadExponent("ei".into())),
            (
                "1e9223372036854775808",
                ExponentOutOfRange("e9223372036854775808".into()),
            ),
            (
                "1e-9223372036854775809",
                ExponentOutOfRange("e-9223372036854775809".into()),
            ),
            ("-5", Negative),
            ("-0.1m", Negative),
            ("1e19", TooLarge),
            ("1e999999999", TooLarge),
            ("99999999999999999999999999999999999999999999", TooLarge),
        ];
        for (input, kind) in rows {
            let e = cpu_millis(input).unwrap_err();
            assert_eq!(&e.kind, kind, "cpu {input:?}");
            assert_eq!(e.input, *input);
        }
        let msg = parse_cpu_millis("abc").unwrap_err().to_string();
        assert!(msg.starts_with("cpu \"abc\" is not a quantity"), "{msg}");
        assert!(msg.contains("500m"), "{msg}");
        let msg = parse_memory_bytes("8GB").unwrap_err().to_string();
        assert!(
            msg.contains("unknown suffix \"GB\"") && msg.contains("8Gi"),
            "{msg}"
        );
        let msg = parse_cpu_millis("-5").unwrap_err().to_string();
        assert!(
            msg.contains("negative") && msg.contains("0 or more"),
            "{msg}"
        );
        // Issue 42: 2^63 - 1 cores is too large, and the message names the
        // engine's bound, not "at most 9223372036854775807" (the very digits).
        let msg = parse_cpu_millis("9223372036854775807")
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "cpu \"9223372036854775807\" is too large; expected at most 1000000 cores (1000000000m), the most a node may have or a pod request"
        );
        let msg = parse_memory_bytes("9Ei").unwrap_err().to_string();
        assert_eq!(
            msg,
            "memory \"9Ei\" is too large; expected at most 1Pi (1125899906842624 bytes), the most a node may have or a pod request"
        );
    }

    #[test]
    fn tiny_and_huge_exponents_cost_nothing_and_never_wrap() {
        // Far below a millicore but above zero: one millicore.
        assert_eq!(parse_cpu_millis("1e-1000000"), Ok(1));
        // (Kubernetes' arbitrary-precision rounding of this one does not
        // finish in seconds.)
        assert_eq!(parse_cpu_millis("1e-999999999"), Ok(1));
        // The exponent truncated to 32 bits is 1486618625: far too large.
        assert_eq!(
            parse_cpu_millis("1e-999999999999999999").unwrap_err().kind,
            QuantityErrorKind::TooLarge
        );
        assert_eq!(parse_cpu_millis("0e999999999999"), Ok(0));
        // A long run of digits is linear work, and exact.
        let mut long = String::from("0.");
        long.extend(core::iter::repeat_n('0', 100_000));
        long.push('1');
        assert_eq!(parse_cpu_millis(&long), Ok(1));
        let mut big = String::from("1");
        big.extend(core::iter::repeat_n('0', 100_000));
        assert_eq!(
            parse_cpu_millis(&big).unwrap_err().kind,
            QuantityErrorKind::TooLarge
        );
        let mut exact = String::from("2");
        exact.extend(core::iter::repeat_n('0', 50_000));
        exact.push_str("e-50000");
        assert_eq!(parse_cpu_millis(&exact), Ok(2000));
        // The last value that fits, and the first that does not.
        assert_eq!(parse_cpu_millis("9223372036854775807m"), Ok(MAX_VALUE));
        assert_eq!(
            parse_cpu_millis("9223372036854775808m").unwrap_err().kind,
            QuantityErrorKind::TooLarge
        );
        assert_eq!(parse_memory_bytes("9223372036854775807"), Ok(MAX_VALUE));
    }

    // ParseQuantity reads a number without digits as zero, unless it takes
    // its arbitrary-precision path (Pi, Ei, an exponent below -9), which
    // wants a digit; the oracle's quantity-no-digits sweep checks the rest.
    #[test]
    fn a_number_without_digits_is_zero_where_kubernetes_says_so() {
        // (E4294967287: the exponent truncated to 32 bits is -9.)
        for zero in [
            "Mi",
            "+",
            "-",
            ".",
            "-.",
            "E2",
            ".e+2",
            "e-9",
            "m",
            "Ti",
            "+Ki",
            "n",
            "E",
            "0Ei",
            "0.e-10",
            "E4294967287",
        ] {
            let q = Quantity::parse(zero).unwrap_or_else(|e| panic!("{zero:?}: {e:?}"));
            assert!(q.is_zero() && !q.is_negative(), "{zero:?}");
            assert_eq!(parse_cpu_millis(zero), Ok(0), "{zero:?}");
            assert_eq!(parse_memory_bytes(zero), Ok(0), "{zero:?}");
        }
        for refused in [
            "Pi", "Ei", "+Pi", "-.Ei", "e-10", "E-10", ".e-10", "", "e", "i",
        ] {
            assert!(Quantity::parse(refused).is_err(), "{refused:?}");
        }
    }

    // The exponent is an int64 truncated to int32, as ParseQuantity's
    // `int32(parsed)` truncates it; values as the oracle reported them.
    #[test]
    fn the_exponent_is_truncated_to_32_bits_as_kubernetes_does() {
        assert_eq!(parse_cpu_millis("1e4294967299"), Ok(1_000_000)); // 1e3
        assert_eq!(parse_cpu_millis("1e4294967286"), Ok(1)); // 1e-10
        assert_eq!(parse_cpu_millis("1e9223372036854775807"), Ok(100)); // 1e-1
        assert_eq!(parse_cpu_millis("1e-9223372036854775808"), Ok(1000)); // 1e0
        assert_eq!(
            parse_cpu_millis("1e+000000000000000000000000003"),
            Ok(1_000_000)
        );
    }

    // Kubernetes' own table (apimachinery resource/quantity_test.go,
    // TestQuantityParse and TestQuantityParseEmit): each input with the
    // MilliValue() and Value() v0.37.2 returns for it, None where that is
    // beyond int64 (Kubernetes overflows or caps; here: too large).
    #[test]
    fn kubernetes_quantity_tables_read_the_same() {
        let rows: &[(&str, Option<u64>, Option<u64>)] = &[
            ("0", Some(0), Some(0)),
            ("0n", Some(0), Some(0)),
            ("0Ki", Some(0), Some(0)),
            ("0Ti", Some(0), Some(0)),
            ("1", Some(1000), Some(1)),
            ("1Ki", Some(1_024_000), Some(1024)),
            ("7Mi", Some(7_340_032_000), Some(7_340_032)),
            ("6Gi", Some(6_442_450_944_000), Some(6_442_450_944)),
            ("5Ti", Some(5_497_558_138_880_000), Some(5_497_558_138_880)),
            (
                "4Pi",
                Some(4_503_599_627_370_496_000),
                Some(4_503_599_627_370_496),
            ),
            ("3Ei", None, Some(3_458_764_513_820_540_928)),
            (
                "100Ti",
                Some(109_951_162_777_600_000),
                Some(109_951_162_777_600),
            ),
            ("5n", Some(1), Some(1)),
            ("4u", Some(1), Some(1)),
            ("3m", Some(3), Some(1)),
            ("50k", Some(50_000_000), Some(50_000)),
            (
                "300T",
                Some(300_000_000_000_000_000),
                Some(300_000_000_000_000),
            ),
            (
                "2P",
                Some(2_000_000_000_000_000_000),
                Some(2_000_000_000_000_000),
            ),
            ("1E", None, Some(1_000_000_000_000_000_000)),
            ("1E-3", Some(1), Some(1)),
            ("1E12", Some(1_000_000_000_000_000), Some(1_000_000_000_000)),
            (
                "1e15",
                Some(1_000_000_000_000_000_000),
                Some(1_000_000_000_000_000),
            ),
            ("1E18", None, Some(1_000_000_000_000_000_000)),
            ("100.035k", Some(100_035_000), Some(100_035)),
            ("0.0005k", Some(500), Some(1)),
            ("0.00050k", Some(500), Some(1)),
            ("0.05000", Some(50), Some(1)),
            ("0.5e-2", Some(5), Some(1)),
            ("10.035M", Some(10_035_000_000), Some(10_035_000)),
            ("1.3E+6", Some(1_300_000_000), Some(1_300_000)),
            (
                "1.53E12",
                Some(1_530_000_000_000_000),
                Some(1_530_000_000_000),
            ),
            ("1.7E18", None, Some(1_700_000_000_000_000_000)),
            ("9.01", Some(9010), Some(10)),
            ("6.987654321G", Some(6_987_654_321_000), Some(6_987_654_321)),
            (
                "2.5P",
                Some(2_500_000_000_000_000_000),
                Some(2_500_000_000_000_000),
            ),
            ("1.01E", None, Some(1_010_000_000_000_000_000)),
            ("3.001n", Some(1), Some(1)),
            ("1.1E-9", Some(1), Some(1)),
            ("0.00000000050", Some(1), Some(1)),
            ("0.00000012354", Some(1), Some(1)),
            ("9Ei", None, None), // capped at 2^63 - 1 by Kubernetes
            ("12E", None, None),
            ("100.035Ki", Some(102_435_840), Some(102_436)),
            ("0.5Mi", Some(524_288_000), Some(524_288)),
            ("0.05Gi", Some(53_687_091_200), Some(53_687_092)),
            ("0.025Ti", Some(27_487_790_694_400), Some(27_487_790_695)),
            ("0.000000000001Ki", Some(1), Some(1)),
            (".0001k", Some(100), Some(1)),
            ("1.", Some(1000), Some(1)),
            ("1.G", Some(1_000_000_000_000), Some(1_000_000_000)),
            (".001Ki", Some(1024), Some(2)),
            (".000001Ki", Some(2), Some(1)),
        ];
        for &(input, milli, bytes) in rows {
            assert!(Quantity::parse(input).is_ok(), "{input:?}");
            for (got, want, what) in [
                (parse_cpu_millis(input), milli, "MilliValue"),
                (parse_memory_bytes(input), bytes, "Value"),
            ] {
                match want {
                    Some(v) => assert_eq!(got, Ok(v), "{what} of {input:?}"),
                    None => assert_eq!(
                        got.map_err(|e| e.kind),
                        Err(QuantityErrorKind::TooLarge),
                        "{what} of {input:?}"
                    ),
                }
            }
        }
        // Its table of invalid quantities.
        for bad in [
            "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1",
            "1 ",
        ] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn canonical_forms_read_back_to_the_same_value() {
        for m in [0u64, 1, 500, 1000, 1500, 4000, 123_456] {
            assert_eq!(parse_cpu_millis(&format_cpu_millis(m)), Ok(m), "{m}m");
        }
        assert_eq!(format_cpu_millis(4000), "4");
        assert_eq!(format_cpu_millis(1500), "1500m");
        for b in [
            0u64,
            1,
            500,
            1000,
            1023,
            1024,
            1536,
            102_400,
            1_000_000,
            1_500_000,
            512 << 20,
            1536 << 20,
            8 << 30,
            1 << 40,
            1 << 50,
            1_000_000_000_000_000,
            (1 << 50) - 1,
            7 << 60,
            i64::MAX as u64,
        ] {
            assert_eq!(parse_memory_bytes(&format_memory_bytes(b)), Ok(b), "{b}");
        }
        let rows: &[(u64, &str)] = &[
            (0, "0"),
            (1, "1"),
            (1000, "1k"),
            (1023, "1023"),
            (1024, "1Ki"),
            (1536, "1536"),
            (100 << 10, "100Ki"),
            (1_500_000, "1500k"),
            (1_000_000_000, "1G"),
            (512 << 20, "512Mi"),
            (1536 << 20, "1536Mi"),
            (8 << 30, "8Gi"),
            (1 << 40, "1Ti"),
            (1 << 50, "1Pi"),
            (7 << 60, "7Ei"),
        ];
        for &(b, want) in rows {
            assert_eq!(format_memory_bytes(b), want, "{b} bytes");
        }
    }
}
