//! Helpers shared by the native test files.
#![allow(dead_code)]

use shepherd_web::scenario;
use shepherd_web::session::Session;

/// The scalar fields of a parsed action, as the page's `raw_fields` reads them.
pub fn raw_fields(
    v: &serde_json::Value,
    prefix: &str,
    depth: u32,
    out: &mut Vec<(String, scenario::RawValue)>,
) {
    let Some(obj) = v.as_object().filter(|_| depth <= 2) else {
        return;
    };
    for (k, x) in obj {
        let path = format!("{prefix}{k}");
        match x {
            serde_json::Value::String(t) => out.push((path, scenario::RawValue::Text(t.clone()))),
            serde_json::Value::Number(n) => out.push((
                path,
                scenario::RawValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            )),
            _ => raw_fields(x, &format!("{path}."), depth + 1, out),
        }
    }
}

/// Parses a document as the page does (the same deserializer path, through
/// serde's JSON reader here) and words the error as the page does.
pub fn import_json(json: &str) -> Result<Session, String> {
    let mut v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not valid JSON: {e}"))?;
    upgrade_v1(&mut v);
    let s: scenario::Scenario = serde_path_to_error::deserialize(&v).map_err(|e| {
        let path = e.path().to_string();
        let i = path
            .strip_prefix("actions[")
            .and_then(|r| r.split_once(']'))
            .and_then(|(i, _)| i.parse::<usize>().ok());
        let entry = i.and_then(|i| v.get("actions").and_then(|a| a.get(i)));
        let tick = entry.and_then(|e| e.get("tick")).and_then(|t| t.as_u64());
        let kind = entry
            .and_then(|e| e.get("action"))
            .and_then(|a| a.get("type"))
            .and_then(|t| t.as_str());
        let mut fields = Vec::new();
        if let Some(a) = entry.and_then(|e| e.get("action")) {
            raw_fields(a, "", 1, &mut fields);
        }
        scenario::import_error(&path, &e.inner().to_string(), tick, kind, &fields)
    })?;
    Session::from_scenario(&s)
}

/// The page's `upgrade_v1` (lib.rs) on a parsed document: a version-1
/// scenario's `memory` and `template.memory` (MiB) become `memoryBytes`.
pub fn upgrade_v1(doc: &mut serde_json::Value) {
    use serde_json::Value;
    if doc.get("version").and_then(Value::as_f64) != Some(1.0) {
        return;
    }
    doc["version"] = Value::from(scenario::SCENARIO_VERSION);
    fn mib_to_bytes(o: &mut serde_json::Map<String, Value>) {
        if let Some(v) = o.remove("memory") {
            let bytes = match v.as_f64() {
                Some(mib) if mib >= 0.0 && mib.fract() == 0.0 && mib < 2f64.powi(44) => {
                    Value::from(mib as u64 * (1u64 << 20))
                }
                _ => v,
            };
            o.insert("memoryBytes".into(), bytes);
        }
    }
    let Some(entries) = doc.get_mut("actions").and_then(Value::as_array_mut) else {
        return;
    };
    for e in entries {
        let Some(a) = e.get_mut("action").and_then(Value::as_object_mut) else {
            continue;
        };
        mib_to_bytes(a);
        if let Some(t) = a.get_mut("template").and_then(Value::as_object_mut) {
            mib_to_bytes(t);
        }
    }
}
