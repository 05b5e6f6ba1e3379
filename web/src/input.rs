//! What the page's forms send, and its checks. A form field arrives as a
//! number or as the text a person typed; every check says what was wrong and
//! what was expected, in the words of the form.

use serde::Deserialize;
use shepherd::model::{
    DEFAULT_PROGRESS_DEADLINE_SECONDS, HOSTNAME_KEY, MAX_REPLICAS, NO_PROGRESS_DEADLINE,
};
use shepherd::{Labels, PodTemplate, Resources};

pub use crate::check::{
    check_seed, cpu_text, memory_text, whole, MAX_CPU_MILLIS, MAX_MEMORY_BYTES, MAX_SEED,
};
use crate::scenario::{
    parse_labels, IntOrString, TaintDoc, TemplateDoc, TermDoc, TolerationDoc, ZONE_KEY,
};

/// A form field: a number, or the text as typed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Field {
    Num(f64),
    Text(String),
}

/// `key=value` pairs as text (`app=web,tier=front`) or as an object.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum LabelsField {
    Text(String),
    Map(Labels),
}

impl LabelsField {
    pub fn labels(&self, what: &str) -> Result<Labels, String> {
        match self {
            LabelsField::Text(s) => parse_labels(s, what),
            LabelsField::Map(m) => Ok(m.clone()),
        }
    }
}

fn labels_of(f: &Option<LabelsField>, what: &str) -> Result<Labels, String> {
    f.as_ref().map_or(Ok(Labels::new()), |l| l.labels(what))
}

/// A form's pod labels; absent or empty: `key=<name>` (what `kubectl create
/// deployment` and `kubectl run` label their pods with: `app` and `run`).
pub(crate) fn labels_or(f: &Option<LabelsField>, key: &str, name: &str) -> Result<Labels, String> {
    let mut labels = labels_of(f, "label")?;
    if labels.is_empty() {
        labels.insert(key.into(), name.into());
    }
    Ok(labels)
}

pub(crate) fn field_whole(what: &str, f: &Field, min: u64, max: u64) -> Result<u64, String> {
    match f {
        Field::Num(v) => whole(what, *v, min, max),
        Field::Text(s) => {
            let t = s.trim();
            match t.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "{what} {} is not valid; expected a whole number from {min} to {max}",
                    shepherd::limits::quoted(s)
                )),
            }
        }
    }
}

/// Replicas: a whole number from 0 to the engine's limit.
pub fn replicas(v: f64) -> Result<u32, String> {
    whole("replicas", v, 0, MAX_REPLICAS as u64).map(|n| n as u32)
}

/// What a quantity field holds, read as Kubernetes reads it, in the engine's
/// unit, and said back in words for the form to show as the person types.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QuantityReading {
    /// Millicores for cpu, bytes for memory.
    pub value: u64,
    /// False when the value was rounded up to a whole millicore or byte.
    pub exact: bool,
    /// E.g. `4 CPU`, `500m CPU`, `8 GiB`, `1 GB (1000000000 bytes)`.
    pub said: String,
}

/// `resource` (`cpu` or `memory`) as typed, read back in words. Refuses what
/// [`cpu_text`] and [`memory_text`] refuse, with the same message.
pub fn read_quantity(resource: &str, s: &str) -> Result<QuantityReading, String> {
    let t = s.trim();
    match resource {
        "cpu" => {
            let r = cpu_text(t)?;
            let cores = shepherd::quantity::format_cpu_millis(r.value);
            let said = if r.value.is_multiple_of(1000) {
                format!("{cores} CPU")
            } else if r.value > 1000 {
                format!("{} CPU ({cores})", trim_decimal(r.value as f64 / 1000.0))
            } else {
                format!("{cores} CPU")
            };
            Ok(QuantityReading {
                value: r.value,
                exact: r.exact,
                said: if r.exact {
                    said
                } else {
                    format!(
                        "{said}, {} rounded up to a whole millicore",
                        shepherd::limits::shown(t)
                    )
                },
            })
        }
        "memory" => {
            let r = memory_text(t)?;
            let said = byte_words(r.value);
            let suffix_m = t.ends_with('m');
            Ok(QuantityReading {
                value: r.value,
                exact: r.exact,
                said: if suffix_m && r.value <= 1 {
                    format!(
                        "{said}: m is milli, so {} is a fraction of a byte; for mebibytes write Mi",
                        shepherd::limits::shown(t)
                    )
                } else if r.exact {
                    said
                } else {
                    format!(
                        "{said}, {} rounded up to a whole byte",
                        shepherd::limits::shown(t)
                    )
                },
            })
        }
        other => Err(format!(
            "resource {other:?} is not known; expected cpu or memory"
        )),
    }
}

fn trim_decimal(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Bytes in words, in the binary unit the value reaches (`8 GiB`, `1.5 GiB
/// (1536Mi)`, `100 KiB`, `1000 bytes`), with Kubernetes' own form in
/// parentheses when the words round it (`0.93 GiB (1G)`).
fn byte_words(b: u64) -> String {
    if b == 0 {
        return "0 bytes".into();
    }
    let exact = shepherd::quantity::format_memory_bytes(b);
    for (unit, size) in [
        ("PiB", 1u64 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ] {
        if b >= size {
            return if b.is_multiple_of(size) {
                format!("{} {unit}", b / size)
            } else {
                format!("{} {unit} ({exact})", trim_decimal(b as f64 / size as f64))
            };
        }
    }
    if b == 1 {
        "1 byte".into()
    } else {
        format!("{b} bytes")
    }
}

/// CPU in millicores: a JavaScript number is millicores (the scenario file's
/// unit); text is a Kubernetes quantity (see [`cpu_text`]).
pub fn cpu(f: &Field) -> Result<u64, String> {
    match f {
        Field::Num(v) => whole("cpu (millicores)", *v, 0, MAX_CPU_MILLIS),
        Field::Text(s) => cpu_text(s).map(|r| r.value),
    }
}

/// Memory in bytes: a JavaScript number is bytes (the scenario file's unit,
/// and Kubernetes' meaning of a plain number); text is a Kubernetes quantity
/// (see [`memory_text`]).
pub fn memory(f: &Field) -> Result<u64, String> {
    match f {
        Field::Num(v) => whole("memory (bytes)", *v, 0, MAX_MEMORY_BYTES),
        Field::Text(s) => memory_text(s).map(|r| r.value),
    }
}

pub(crate) fn int_or_string(what: &str, f: &Option<Field>) -> Result<Option<IntOrString>, String> {
    let v = match f {
        None => return Ok(None),
        Some(Field::Text(s)) if s.trim().is_empty() => return Ok(None),
        Some(Field::Num(v)) => IntOrString::Int(whole(what, *v, 0, u32::MAX as u64)? as u32),
        Some(Field::Text(s)) => IntOrString::Str(s.trim().to_string()),
    };
    v.to_engine().map_err(|e| format!("{what}: {e}"))?;
    Ok(Some(v))
}

/// Taints as kubectl writes them, `key=value:Effect`, separated by commas.
pub fn parse_taints(s: &str) -> Result<Vec<TaintDoc>, String> {
    Ok(crate::check::taint_texts(s)?
        .into_iter()
        .map(|(key, value, effect)| TaintDoc { key, value, effect })
        .collect())
}

/// A toleration as text: `key=value:Effect` (Equal), `key:Effect` or `key`
/// (Exists), or `*` (Exists on every key). The effect may be left out.
pub fn parse_toleration(s: &str) -> Result<Option<TolerationDoc>, String> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let (kv, effect) = match t.rsplit_once(':') {
        Some((kv, e)) => {
            shepherd::TaintEffect::parse(e.trim()).map_err(|e| e.to_string())?;
            (kv.trim(), Some(e.trim().to_string()))
        }
        None => (t, None),
    };
    Ok(Some(match kv.split_once('=') {
        Some((k, v)) => TolerationDoc {
            key: k.trim().into(),
            operator: "Equal".into(),
            value: v.trim().into(),
            effect,
            toleration_seconds: None,
        },
        None => TolerationDoc {
            key: if kv == "*" { String::new() } else { kv.into() },
            operator: "Exists".into(),
            value: String::new(),
            effect,
            toleration_seconds: None,
        },
    }))
}

/// The topology key for the form's anti-affinity choice.
pub fn topology_key(choice: &str) -> Result<Option<String>, String> {
    match choice.trim() {
        "" | "none" => Ok(None),
        "hostname" | "node" => Ok(Some(HOSTNAME_KEY.into())),
        "zone" => Ok(Some(ZONE_KEY.into())),
        other if other.contains('/') || other.contains('.') => Ok(Some(other.into())),
        other => Err(format!(
            "anti-affinity {} is not valid; expected hostname (one pod per node), zone (one pod per zone) or a topology key", shepherd::limits::quoted(other)
        )),
    }
}

/// The add-node form.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeInput {
    pub name: String,
    pub cpu: Field,
    pub memory: Field,
    #[serde(default)]
    pub labels: Option<LabelsField>,
    /// `key=value:Effect`, separated by commas; or a list of taints.
    #[serde(default)]
    pub taints: Option<TaintsField>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum TaintsField {
    Text(String),
    List(Vec<TaintDoc>),
}

impl NodeInput {
    /// The same form as a re-registration of a registered node.
    pub fn reregistration(&self) -> Result<crate::scenario::Action, String> {
        match self.action()? {
            crate::scenario::Action::AddNode {
                name,
                cpu,
                memory_bytes,
                labels,
                taints,
            } => Ok(crate::scenario::Action::ReregisterNode {
                name,
                cpu,
                memory_bytes,
                labels,
                taints,
            }),
            other => Ok(other),
        }
    }

    pub fn action(&self) -> Result<crate::scenario::Action, String> {
        Ok(crate::scenario::Action::AddNode {
            name: self.name.trim().to_string(),
            cpu: cpu(&self.cpu)?,
            memory_bytes: memory(&self.memory)?,
            labels: labels_of(&self.labels, "node label")?,
            taints: match &self.taints {
                None => Vec::new(),
                Some(TaintsField::Text(s)) => parse_taints(s)?,
                Some(TaintsField::List(l)) => l.clone(),
            },
        })
    }
}

/// The deploy form.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeployInput {
    /// Absent or empty: `default`.
    #[serde(default)]
    pub namespace: Option<String>,
    pub name: String,
    pub replicas: Field,
    pub cpu: Field,
    pub memory: Field,
    #[serde(default)]
    pub version: Option<String>,
    /// Pod labels; absent or empty: `app=<name>`.
    #[serde(default)]
    pub labels: Option<LabelsField>,
    #[serde(default)]
    pub node_selector: Option<LabelsField>,
    /// One toleration, as text (see [`parse_toleration`]).
    #[serde(default)]
    pub toleration: Option<String>,
    /// `hostname`, `zone` or a topology key: at most one of this app's pods per domain.
    #[serde(default)]
    pub anti_affinity: Option<String>,
    #[serde(default)]
    pub max_surge: Option<Field>,
    #[serde(default)]
    pub max_unavailable: Option<Field>,
    #[serde(default)]
    pub ready_after: Option<Field>,
    #[serde(default)]
    pub min_ready_seconds: Option<Field>,
    #[serde(default)]
    pub progress_deadline_seconds: Option<Field>,
    /// The pods' priorityClassName; absent or empty: none (the globalDefault applies).
    #[serde(default)]
    pub priority_class_name: Option<String>,
}

impl DeployInput {
    pub fn action(&self) -> Result<crate::scenario::Action, String> {
        let name = self.name.trim().to_string();
        let replicas = field_whole("replicas", &self.replicas, 0, MAX_REPLICAS as u64)? as u32;
        let labels = labels_or(&self.labels, "app", &name)?;
        let anti_affinity = match self
            .anti_affinity
            .as_deref()
            .map(topology_key)
            .transpose()?
        {
            Some(Some(key)) => vec![TermDoc {
                match_labels: labels.clone(),
                topology_key: key,
                namespaces: Vec::new(),
                namespace_selector: None,
            }],
            _ => Vec::new(),
        };
        let template = TemplateDoc {
            version: match self.version.as_deref().map(str::trim) {
                None | Some("") => "v1".into(),
                Some(v) => v.into(),
            },
            cpu: cpu(&self.cpu)?,
            memory_bytes: memory(&self.memory)?,
            labels: Some(labels),
            node_selector: labels_of(&self.node_selector, "nodeSelector")?,
            tolerations: parse_toleration(self.toleration.as_deref().unwrap_or(""))?
                .into_iter()
                .collect(),
            affinity: Vec::new(),
            anti_affinity,
            ready_after: match &self.ready_after {
                None => shepherd::model::DEFAULT_READY_AFTER,
                Some(f) => field_whole("readyAfter", f, 0, 1000)? as u32,
            },
            priority_class_name: match self.priority_class_name.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(pc) => {
                    shepherd::model::validate_name(pc, "priorityClassName")
                        .map_err(|e| e.to_string())?;
                    Some(pc.into())
                }
            },
        };
        Ok(crate::scenario::Action::Deploy {
            namespace: namespace_of(&self.namespace)?,
            name,
            replicas,
            template,
            max_surge: int_or_string("maxSurge", &self.max_surge)?
                .unwrap_or(IntOrString::Str("25%".into())),
            max_unavailable: int_or_string("maxUnavailable", &self.max_unavailable)?
                .unwrap_or(IntOrString::Str("25%".into())),
            min_ready_seconds: match given(&self.min_ready_seconds) {
                None => 0,
                Some(f) => {
                    field_whole("minReadySeconds", f, 0, NO_PROGRESS_DEADLINE as u64)? as u32
                }
            },
            progress_deadline_seconds: match given(&self.progress_deadline_seconds) {
                None => DEFAULT_PROGRESS_DEADLINE_SECONDS,
                Some(f) => {
                    field_whole("progressDeadlineSeconds", f, 1, NO_PROGRESS_DEADLINE as u64)?
                        as u32
                }
            },
        })
    }
}

/// An optional field that was filled in: an empty text box means "the default".
pub(crate) fn given(f: &Option<Field>) -> Option<&Field> {
    match f {
        Some(Field::Text(t)) if t.trim().is_empty() => None,
        other => other.as_ref(),
    }
}

/// The roll form: what changes in the current template.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RollInput {
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub cpu: Option<Field>,
    #[serde(default)]
    pub memory: Option<Field>,
}

impl RollInput {
    /// The new template: `current` with the fields given here changed.
    pub fn template(&self, app: &str, current: &PodTemplate) -> Result<TemplateDoc, String> {
        let mut t = TemplateDoc::from_engine(current);
        if let Some(v) = self
            .version
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            t.version = v.into();
        }
        let blank = |f: &Field| matches!(f, Field::Text(s) if s.trim().is_empty());
        if let Some(f) = self.cpu.as_ref().filter(|f| !blank(f)) {
            t.cpu = cpu(f)?;
        }
        if let Some(f) = self.memory.as_ref().filter(|f| !blank(f)) {
            t.memory_bytes = memory(f)?;
        }
        if t == TemplateDoc::from_engine(current) {
            return Err(format!(
                "roll {app}: the new pod template is the same as the current one (version {}, {}); expected a new version or new requests",
                current.version,
                Resources::new(t.cpu, t.memory_bytes)
            ));
        }
        Ok(t)
    }
}

/// The PodDisruptionBudget form: a selector (or an app) and one budget.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PdbInput {
    /// Absent or empty: `default`.
    #[serde(default)]
    pub namespace: Option<String>,
    pub name: String,
    /// Shorthand for the selector `app=<app>`.
    #[serde(default)]
    pub app: Option<String>,
    #[serde(default)]
    pub selector: Option<LabelsField>,
    #[serde(default)]
    pub min_available: Option<Field>,
    #[serde(default)]
    pub max_unavailable: Option<Field>,
}

/// A form's namespace field: empty or `default` is none (the default
/// namespace), anything else must be a DNS-1123 label.
fn namespace_of(ns: &Option<String>) -> Result<Option<String>, String> {
    match ns.as_deref().map(str::trim) {
        None | Some("") | Some("default") => Ok(None),
        Some(n) => {
            shepherd::namespace::validate_namespace(n).map_err(|e| e.to_string())?;
            Ok(Some(n.to_string()))
        }
    }
}

fn selector_of(app: &Option<String>, sel: &Option<LabelsField>) -> Result<Labels, String> {
    let mut l = labels_of(sel, "selector")?;
    if let Some(a) = app.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
        l.insert("app".into(), a.into());
    }
    Ok(l)
}

impl PdbInput {
    pub fn action(&self) -> Result<crate::scenario::Action, String> {
        let name = self.name.trim().to_string();
        let min_available = int_or_string("minAvailable", &self.min_available)?;
        let max_unavailable = int_or_string("maxUnavailable", &self.max_unavailable)?;
        if min_available.is_some() == max_unavailable.is_some() {
            return Err(format!(
                "PodDisruptionBudget {}: expected exactly one of minAvailable and maxUnavailable, e.g. maxUnavailable 1 or minAvailable 50%", shepherd::limits::quoted(&name)
            ));
        }
        Ok(crate::scenario::Action::AddPdb {
            namespace: namespace_of(&self.namespace)?,
            name,
            selector: selector_of(&self.app, &self.selector)?,
            min_available,
            max_unavailable,
        })
    }
}

/// The PriorityClass form: `{name, value, globalDefault?, preemptionPolicy?}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriorityClassInput {
    pub name: String,
    pub value: Field,
    #[serde(default)]
    pub global_default: Option<bool>,
    /// `PreemptLowerPriority` (absent or empty) or `Never`.
    #[serde(default)]
    pub preemption_policy: Option<String>,
}

impl PriorityClassInput {
    pub fn action(&self) -> Result<crate::scenario::Action, String> {
        let name = self.name.trim().to_string();
        let shown = match &self.value {
            Field::Num(n) => format!("{n}"),
            Field::Text(t) => t.clone(),
        };
        let parsed: Option<i64> = match &self.value {
            Field::Num(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e15 => Some(*n as i64),
            Field::Num(_) => None,
            Field::Text(t) => t.trim().parse().ok(),
        };
        let value = parsed.and_then(|v| i32::try_from(v).ok()).ok_or_else(|| {
            format!(
                "value {} is not valid; expected a whole number from -2147483648 to 1000000000 (the PriorityClass's priority; higher is scheduled first)",
                shepherd::limits::quoted(&shown)
            )
        })?;
        let policy = match self.preemption_policy.as_deref().map(str::trim) {
            None | Some("") => shepherd::PreemptionPolicy::PreemptLowerPriority,
            Some(p) => shepherd::PreemptionPolicy::parse(p).map_err(|e| e.to_string())?,
        };
        let pc = shepherd::PriorityClass::new(&name, value)
            .with_global_default(self.global_default.unwrap_or(false))
            .with_preemption_policy(policy);
        pc.validate().map_err(|e| e.to_string())?;
        Ok(crate::scenario::Action::AddPriorityClass {
            name,
            value,
            global_default: pc.global_default,
            preemption_policy: policy.as_str().into(),
        })
    }
}

/// The Service form: a name and a selector (or an app).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServiceInput {
    /// Absent or empty: `default`.
    #[serde(default)]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default)]
    pub app: Option<String>,
    #[serde(default)]
    pub selector: Option<LabelsField>,
}

impl ServiceInput {
    pub fn action(&self) -> Result<crate::scenario::Action, String> {
        Ok(crate::scenario::Action::AddService {
            namespace: namespace_of(&self.namespace)?,
            name: self.name.trim().to_string(),
            selector: selector_of(&self.app, &self.selector)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantity_fields_read_as_kubernetes_reads_them_and_say_so() {
        let said = |r: &str, t: &str| read_quantity(r, t).map(|q| (q.value, q.said));
        assert_eq!(said("cpu", "4"), Ok((4000, "4 CPU".into())));
        assert_eq!(said("cpu", " 500m "), Ok((500, "500m CPU".into())));
        assert_eq!(said("cpu", "1.5"), Ok((1500, "1.5 CPU (1500m)".into())));
        assert_eq!(
            said("cpu", "0.1m"),
            Ok((1, "1m CPU, 0.1m rounded up to a whole millicore".into()))
        );
        assert_eq!(said("memory", "8Gi"), Ok((8 << 30, "8 GiB".into())));
        assert_eq!(said("memory", "512Mi"), Ok((512 << 20, "512 MiB".into())));
        assert_eq!(said("memory", "100Ki"), Ok((100 << 10, "100 KiB".into())));
        assert_eq!(
            said("memory", "1.5Gi"),
            Ok((1536 << 20, "1.5 GiB (1536Mi)".into()))
        );
        assert_eq!(
            said("memory", "1G"),
            Ok((1_000_000_000, "953.674 MiB (1G)".into()))
        );
        assert_eq!(said("memory", "1000"), Ok((1000, "1000 bytes".into())));
        assert_eq!(
            said("memory", "1.5"),
            Ok((2, "2 bytes, 1.5 rounded up to a whole byte".into()))
        );
        let milli = read_quantity("memory", "512m").expect("Kubernetes takes it");
        assert!(milli.said.contains("m is milli"), "{}", milli.said);
        assert_eq!(
            read_quantity("cpu", "abc").unwrap_err(),
            "cpu \"abc\" is not a quantity: it does not start with a number; expected cores such as 2, 1.5 or 500m (m: millicores)"
        );
        assert!(read_quantity("cpu", "-5").unwrap_err().contains("negative"));
        assert!(read_quantity("cpu", "2000000")
            .unwrap_err()
            .contains("at most 1000000 cores"));
        assert!(read_quantity("memory", "2Pi")
            .unwrap_err()
            .contains("at most 1Pi"));
        assert!(read_quantity("disk", "1").is_err());
    }

    #[test]
    fn a_number_from_javascript_keeps_the_scenario_units() {
        assert_eq!(cpu(&Field::Num(4000.0)), Ok(4000));
        assert_eq!(memory(&Field::Num(8192.0)), Ok(8192), "bytes");
        assert_eq!(cpu(&Field::Text("4".into())), Ok(4000));
        assert_eq!(memory(&Field::Text("8192".into())), Ok(8192), "8192 bytes");
        assert_eq!(memory(&Field::Text("8Gi".into())), Ok(8 << 30));
        assert!(memory(&Field::Num(2f64.powi(51))).is_err(), "beyond 1Pi");
    }
}
