//! The checks and texts that the page's forms (`input.rs`), a scenario file
//! (`scenario.rs`) and the node groups form (`autoscale.rs`) share: a number
//! that JavaScript holds exactly, in a range; quantities, labels and taints as
//! typed.

use std::collections::BTreeMap;

use shepherd::Labels;

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

/// The largest cpu the engine takes, in millicores: 1,000,000 cores.
pub const MAX_CPU_MILLIS: u64 = 1_000_000_000;
/// The largest memory the engine takes, in bytes: 1Pi.
pub const MAX_MEMORY_BYTES: u64 = shepherd::model::MAX_MEMORY_BYTES;

/// CPU in millicores from a Kubernetes quantity as typed: `4` is four cores,
/// `500m` half a core, `1.5` 1500m (`shepherd::quantity`). Rounded up to a
/// whole millicore, as Kubernetes' `MilliValue` does.
pub fn cpu_text(s: &str) -> Result<shepherd::quantity::Rounded, String> {
    let t = s.trim();
    let r = shepherd::quantity::cpu_millis(t).map_err(|e| e.to_string())?;
    if r.value > MAX_CPU_MILLIS {
        return Err(format!(
            "cpu {} is {} cores; expected at most 1000000 cores (1000000000m)",
            shepherd::limits::quoted(t),
            r.value / 1000
        ));
    }
    Ok(r)
}

/// Memory in bytes from a Kubernetes quantity as typed: `8Gi`, `512Mi`,
/// `1G`; a plain number is bytes, as in Kubernetes. Rounded up to a whole
/// byte, as Kubernetes' `Value()` does.
pub fn memory_text(s: &str) -> Result<shepherd::quantity::Rounded, String> {
    let t = s.trim();
    let r = shepherd::quantity::memory_bytes(t).map_err(|e| e.to_string())?;
    if r.value > MAX_MEMORY_BYTES {
        return Err(format!(
            "memory {} is {}; expected at most 1Pi ({MAX_MEMORY_BYTES} bytes)",
            shepherd::limits::quoted(t),
            shepherd::quantity::format_memory_bytes(r.value)
        ));
    }
    Ok(r)
}

/// Labels from `key=value` pairs separated by commas: `app=web,tier=front`.
/// An empty string is no labels.
pub fn parse_labels(s: &str, what: &str) -> Result<Labels, String> {
    let mut out = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| {
            format!("{what} {} is not valid; expected key=value pairs separated by commas, e.g. app=web", shepherd::limits::quoted(part))
        })?;
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// Taints as kubectl writes them, `key=value:Effect`, separated by commas:
/// each as (key, value, effect), the effect checked.
pub fn taint_texts(s: &str) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || {
            format!(
                "taint {} is not valid; expected key=value:Effect, e.g. dedicated=gpu:NoSchedule",
                shepherd::limits::quoted(part)
            )
        };
        let (kv, effect) = part.rsplit_once(':').ok_or_else(bad)?;
        let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
        shepherd::TaintEffect::parse(effect.trim()).map_err(|e| e.to_string())?;
        if key.trim().is_empty() {
            return Err(bad());
        }
        out.push((key.trim().into(), value.trim().into(), effect.trim().into()));
    }
    Ok(out)
}
