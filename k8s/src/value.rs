//! The one in-memory shape of a parsed document: a tree of plain values.
//!
//! Both YAML and JSON are read into this tree first and the importer walks it
//! by hand, so every field it meets is either read, known to be inert, or
//! reported with its path; typed structs would drop unknown fields silently.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

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
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::UInt(v))
    }
    // Integers beyond 64 bits (YAML reads them as 128-bit): kept as a number
    // so that a quantity reports "too large" and a count "expected a whole number".
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Float(v as f64))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(Value::Float(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(Value::Seq(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut v: Vec<(String, Value)> = Vec::new();
        let mut index: Option<HashSet<String>> = None;
        while let Some(k) = a.next_key::<Value>()? {
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
            let val = a.next_value()?;
            v.push((k, val));
        }
        Ok(Value::Map(v))
    }
}
