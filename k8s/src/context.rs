//! Where an import stands while it reads one object: the object's location,
//! its warnings, the path of the field at hand (`spec.template.spec`, as
//! kubectl's JSONPath writes it) and the typed reads that report a wrong
//! field there. The importer (`import.rs`), the scheduler configuration
//! (`scheduler_config.rs`) and the values (`value.rs`) read through it.

use crate::value::Value;
pub(crate) use crate::value::{child, index};
use crate::{ImportError, Location, Warning};
use shepherd::limits::{MAX_LIST, MAX_VALUES};
use shepherd::{IntOrPercent, Labels};

pub(crate) type Map = [(String, Value)];
pub(crate) type R<T> = Result<T, ImportError>;

#[cfg(test)]
thread_local! {
    /// Lookups in the importer's indexes of names (tests hold an import to
    /// a few per object; the scans these replaced went through every name
    /// declared before, quadratic in the input).
    pub(crate) static LOOKUPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one lookup in an index of names (tests only).
#[inline]
pub(crate) fn looked_up() {
    #[cfg(test)]
    LOOKUPS.with(|c| c.set(c.get() + 1));
}

/// Where one object's warnings and errors point.
pub(crate) struct Ctx<'a> {
    pub(crate) loc: &'a Location,
    pub(crate) warnings: &'a mut Vec<Warning>,
    /// The object's namespace (`default` for a cluster-scoped object).
    pub(crate) ns: &'a str,
}

impl Ctx<'_> {
    pub(crate) fn warn(&mut self, path: &str, message: impl Into<String>) {
        self.warnings.push(Warning {
            loc: self.loc.clone(),
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// A field the engine does not model yet: kept as a warning, to be wired
    /// when the model grows.
    pub(crate) fn not_simulated_yet(&mut self, path: &str, what: &str) {
        self.warn(path, format!("not simulated yet: {what}"));
    }

    pub(crate) fn unknown(&mut self, path: &str) {
        self.warn(path, "not simulated; ignored");
    }

    pub(crate) fn err(&self, path: &str, message: impl Into<String>) -> ImportError {
        ImportError {
            loc: self.loc.clone(),
            path: path.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn wrong(&self, path: &str, found: &Value, expected: &str) -> ImportError {
        self.err(
            path,
            format!(
                "found {} ({}); expected {expected}",
                found.kind_name(),
                found.brief()
            ),
        )
    }

    // ----- typed reads ------------------------------------------------------

    /// A mapping; null reads as empty, as Kubernetes reads an absent field.
    pub(crate) fn map<'v>(&self, v: &'v Value, path: &str) -> R<&'v Map> {
        match v {
            Value::Map(m) => Ok(m),
            Value::Null => Ok(&[]),
            other => Err(self.wrong(path, other, "a mapping")),
        }
    }

    pub(crate) fn seq<'v>(&self, v: &'v Value, path: &str) -> R<&'v [Value]> {
        match v {
            Value::Seq(s) => Ok(s),
            Value::Null => Ok(&[]),
            other => Err(self.wrong(path, other, "a list")),
        }
    }

    /// A list the engine keeps, within `max` entries (`MAX_LIST`, or
    /// `MAX_VALUES` for a requirement's values): refused with its path and
    /// its length before any entry is read.
    pub(crate) fn list<'v>(&self, v: &'v Value, path: &str, max: usize) -> R<&'v [Value]> {
        let s = self.seq(v, path)?;
        self.at_most(s.len(), path, max)?;
        Ok(s)
    }

    /// `n` entries at `path` within `max` (a limit of shepherd::limits).
    pub(crate) fn at_most(&self, n: usize, path: &str, max: usize) -> R<()> {
        if n > max {
            let name = if max == MAX_VALUES {
                "MAX_VALUES"
            } else {
                "MAX_LIST"
            };
            return Err(self.err(
                path,
                format!("{n} entries; expected at most {max} (shepherd::limits::{name})"),
            ));
        }
        Ok(())
    }

    pub(crate) fn string<'v>(&self, v: &'v Value, path: &str) -> R<&'v str> {
        match v {
            Value::Str(s) => Ok(s),
            other => Err(self.wrong(
                path,
                other,
                "a string (quote it if it looks like a number or a boolean)",
            )),
        }
    }

    pub(crate) fn boolean(&self, v: &Value, path: &str) -> R<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Null => Ok(false),
            other => Err(self.wrong(path, other, "true or false")),
        }
    }

    /// A whole number in `0..=max`.
    pub(crate) fn count(&self, v: &Value, path: &str, max: u64) -> R<u64> {
        let expected = format!("a whole number from 0 to {max}");
        match v {
            Value::Int(i) if *i >= 0 && (*i as u64) <= max => Ok(*i as u64),
            Value::UInt(u) if *u <= max => Ok(*u),
            other => Err(self.wrong(path, other, &expected)),
        }
    }

    /// Kubernetes' IntOrString for maxSurge, maxUnavailable, minAvailable:
    /// a whole number or a percentage string.
    pub(crate) fn int_or_percent(&self, v: &Value, path: &str) -> R<IntOrPercent> {
        let expected = "a whole number such as 1, or a percentage string such as \"25%\"";
        match v {
            Value::Int(_) | Value::UInt(_) => {
                Ok(IntOrPercent::Int(
                    self.count(v, path, u32::MAX as u64)? as u32
                ))
            }
            Value::Str(s) => {
                let digits = s
                    .strip_suffix('%')
                    .ok_or_else(|| self.wrong(path, v, expected))?;
                match digits.parse::<u32>() {
                    Ok(p) if p <= 100 && !digits.starts_with('+') => Ok(IntOrPercent::Percent(p)),
                    _ => Err(self.wrong(path, v, "a percentage from \"0%\" to \"100%\"")),
                }
            }
            other => Err(self.wrong(path, other, expected)),
        }
    }

    /// A quantity, as a string or a bare number.
    pub(crate) fn quantity_text(&self, v: &Value, path: &str) -> R<String> {
        match v {
            Value::Str(s) => Ok(api_trim(s).to_string()),
            Value::Int(i) => Ok(i.to_string()),
            Value::UInt(u) => Ok(u.to_string()),
            Value::Float(f) if f.is_finite() => Ok(format!("{f}")),
            other => Err(self.wrong(path, other, "a quantity such as \"500m\" or \"128Mi\"")),
        }
    }

    /// Labels the engine keeps (within `MAX_LIST`).
    pub(crate) fn labels(&self, v: &Value, path: &str) -> R<Labels> {
        let m = self.map(v, path)?;
        self.at_most(m.len(), path, MAX_LIST)?;
        let mut out = Labels::new();
        for (k, val) in m {
            let p = child(path, k);
            let s = self.string(val, &p)?;
            out.insert(k.clone(), s.to_string());
        }
        Ok(out)
    }
}

/// A quantity's text as the API server parses it: Quantity.UnmarshalJSON
/// (apimachinery resource/quantity.go) trims white space
/// (strings.TrimSpace) from the JSON text between the quotes, escapes
/// included, before ParseQuantity. kubectl's JSON escapes the control
/// characters (tab, newline, vertical tab, form feed, carriage return) and
/// U+2028/U+2029, which then stay and are refused; every other white space
/// (the space, U+0085, U+00A0, U+3000 ...) is trimmed. Rust's and Go's white
/// space are the same set (Unicode White_Space).
fn api_trim(s: &str) -> &str {
    s.trim_matches(|c: char| {
        c.is_whitespace() && !matches!(c, '\t'..='\r' | '\u{2028}' | '\u{2029}')
    })
}
