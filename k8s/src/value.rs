//! The one in-memory shape of a parsed document: a tree of plain values.
//!
//! Both YAML and JSON are read into this tree first and the importer walks it
//! by hand, so every field it meets is either read, known to be inert, or
//! reported with its path; typed structs would drop unknown fields silently.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Value>),
    /// In document order. Duplicate keys are refused while parsing.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// What a value is, in the words an error message uses.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::UInt(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// A short rendering of the value for an error message, cut at 60 characters.
    pub fn brief(&self) -> String {
        let s = match self {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Seq(v) => format!("a list of {} items", v.len()),
            Value::Map(m) => format!("a mapping with {} keys", m.len()),
        };
        if s.chars().count() > 60 {
            let cut: String = s.chars().take(57).collect();
            format!("{cut}...")
        } else {
            s
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor { budget: None })
    }
}

/// The bytes one value is counted as, whatever the platform: a value's
/// size on a 64-bit machine (a map key, a String there, is counted alike).
pub(crate) const VALUE_BYTES: usize = 32;

/// How many bytes the values read from one input may take, aliases
/// expanded: a value counts [`VALUE_BYTES`] plus its text. The full YAML
/// parser repeats an aliased node wherever it is named; serde_yaml_ng's own
/// repetition limit counts aliases (100 per event), not what they repeat,
/// so 1 MB of aliases of one long scalar would grow toward tens of
/// gigabytes. Reading with a budget stops at the value that passes it.
pub(crate) struct Budget {
    left: Cell<usize>,
    limit: usize,
    exceeded: Cell<bool>,
    /// Where the read stopped, innermost step first, filled as the error
    /// travels out.
    path: RefCell<Vec<Step>>,
}

enum Step {
    Key(String),
    Index(usize),
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Budget {
        Budget {
            left: Cell::new(limit),
            limit,
            exceeded: Cell::new(false),
            path: RefCell::new(Vec::new()),
        }
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Whether a read failed because the budget ran out (rather than for a
    /// reason of the parser's own).
    pub(crate) fn exceeded(&self) -> bool {
        self.exceeded.get()
    }

    /// The field path where the budget ran out, as an error message names
    /// it (`data.l[6543]`).
    pub(crate) fn path(&self) -> String {
        let mut out = String::new();
        for step in self.path.borrow().iter().rev() {
            out = match step {
                // A key as long as the input is cut, as every message cuts
                // what it repeats.
                Step::Key(k) => child(&out, &shepherd::limits::shown(k)),
                Step::Index(i) => index(&out, *i),
            };
        }
        out
    }

    fn charge<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        let n = VALUE_BYTES.saturating_add(bytes);
        match self.left.get().checked_sub(n) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.exceeded.set(true);
                Err(de::Error::custom(
                    "the values take more bytes than the input limit",
                ))
            }
        }
    }

    fn at(&self, step: Step) {
        if self.exceeded.get() {
            self.path.borrow_mut().push(step);
        }
    }

    /// Reads one value within the budget.
    pub(crate) fn read<'de, D: Deserializer<'de>>(&self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor { budget: Some(self) })
    }
}

/// Builds a [`Value`], counting it against `budget` when there is one.
#[derive(Clone, Copy)]
struct ValueVisitor<'b> {
    budget: Option<&'b Budget>,
}

impl<'de> DeserializeSeed<'de> for ValueVisitor<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueVisitor<'_> {
    fn charge<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.budget {
            Some(b) => b.charge(bytes),
            None => Ok(()),
        }
    }

    fn at(&self, step: impl FnOnce() -> Step) {
        if let Some(b) = self.budget {
            if b.exceeded() {
                b.at(step());
            }
        }
    }
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::UInt(v))
    }
    // Integers beyond 64 bits (YAML reads them as 128-bit): kept as a number
    // so that a quantity reports "too large" and a count "expected a whole number".
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Float(v as f64))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Float(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        // Counted before it is copied: a refused string is never held twice.
        self.charge(v.len())?;
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.charge(v.len())?;
        Ok(Value::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        self.charge(0)?;
        let mut v = Vec::new();
        loop {
            match a.next_element_seed(self) {
                Ok(Some(x)) => v.push(x),
                Ok(None) => break,
                Err(e) => {
                    self.at(|| Step::Index(v.len()));
                    return Err(e);
                }
            }
        }
        Ok(Value::Seq(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        self.charge(0)?;
        let mut v: Vec<(String, Value)> = Vec::new();
        let mut index: Option<HashSet<String>> = None;
        while let Some(k) = a.next_key_seed(self)? {
            let k = match k {
                Value::Str(s) => s,
                Value::Int(i) => i.to_string(),
                Value::UInt(u) => u.to_string(),
                Value::Bool(b) => b.to_string(),
                other => {
                    return Err(de::Error::custom(format!(
                        "a mapping key is {}; expected a string",
                        other.kind_name()
                    )))
                }
            };
            // Kubernetes' strict decoding refuses a key given twice; taking
            // either copy silently would simulate something nobody wrote.
            // Small maps dominate: a linear scan until 16 keys, then a set.
            let dup = match &mut index {
                Some(set) => !set.insert(k.clone()),
                None => {
                    let d = v.iter().any(|(seen, _)| *seen == k);
                    if v.len() >= 16 {
                        let mut set: HashSet<String> = v.iter().map(|(s, _)| s.clone()).collect();
                        set.insert(k.clone());
                        index = Some(set);
                    }
                    d
                }
            };
            if dup {
                return Err(de::Error::custom(format!(
                    "the key {k:?} appears twice in one mapping; expected each key once"
                )));
            }
            match a.next_value_seed(self) {
                Ok(val) => v.push((k, val)),
                Err(e) => {
                    self.at(|| Step::Key(k));
                    return Err(e);
                }
            }
        }
        Ok(Value::Map(v))
    }
}

/// `a.b` for a plain key, `a["x/y"]` for a key with dots or slashes, as
/// kubectl's JSONPath would need it.
pub(crate) fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key:?}]"),
    }
}

pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}
