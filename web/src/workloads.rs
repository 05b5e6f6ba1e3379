//! The page's forms for DaemonSets and bare Pods.
//!
//! A form's fields become the engine's spec (`DaemonSetSpec`, `BarePodSpec`)
//! and then the very action the scenario format holds for it: a new object
//! is a `manifests` action carrying it as a manifest (as a pasted manifest
//! or an imported scenario carries it), a changed DaemonSet an
//! `updateDaemonSet`, and the deletions `deleteDaemonSet` and `deletePod`.
//! `Session::submit` then checks it the one way every door is checked: the
//! manifests are read back by the importer and the engine's submit decides.
//! So a form, a scenario file and a manifest are refused with the same
//! words, and the share link and Back replay what the form did.

pub use crate::view::{daemonset_lines, strategy_text};
use serde::Deserialize;
use shepherd::{BarePodSpec, DaemonSetSpec, DaemonSetUpdateStrategyType};

use crate::input::{
    cpu, field_whole, given, int_or_string, labels_or, memory, parse_toleration, Field, LabelsField,
};
use crate::scenario::{Action, TemplateDoc};

/// The create-a-DaemonSet form: `{name, cpu, memory, version?, labels?,
/// nodeSelector?, toleration?, priorityClassName?, hostNetwork?, strategy?
/// ("RollingUpdate" | "OnDelete"), maxUnavailable?, maxSurge?,
/// minReadySeconds?}`. Empty fields take Kubernetes' defaults:
/// RollingUpdate, maxUnavailable 1, maxSurge 0, minReadySeconds 0, labels
/// `app=<name>`, no priorityClassName (the globalDefault class, else 0),
/// hostNetwork false.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DaemonSetInput {
    pub name: String,
    pub cpu: Field,
    pub memory: Field,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub labels: Option<LabelsField>,
    #[serde(default)]
    pub node_selector: Option<LabelsField>,
    #[serde(default)]
    pub toleration: Option<String>,
    #[serde(default)]
    pub priority_class_name: Option<String>,
    #[serde(default)]
    pub host_network: bool,
    #[serde(default)]
    pub strategy: Option<String>,
    #[serde(default)]
    pub max_unavailable: Option<Field>,
    #[serde(default)]
    pub max_surge: Option<Field>,
    #[serde(default)]
    pub min_ready_seconds: Option<Field>,
}

/// Fields of the DaemonSet's update strategy that a form may leave empty.
fn strategy_fields(
    d: &mut DaemonSetSpec,
    strategy: &Option<String>,
    max_unavailable: &Option<Field>,
    max_surge: &Option<Field>,
    min_ready_seconds: &Option<Field>,
) -> Result<(), String> {
    if let Some(s) = strategy.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        d.strategy = DaemonSetUpdateStrategyType::parse(s).map_err(|_| {
            format!(
                "updateStrategy {} is not valid; expected RollingUpdate or OnDelete",
                shepherd::limits::quoted(s)
            )
        })?;
    }
    if let Some(v) = int_or_string("maxUnavailable", max_unavailable)? {
        d.max_unavailable = v.to_engine()?;
    }
    if let Some(v) = int_or_string("maxSurge", max_surge)? {
        d.max_surge = v.to_engine()?;
    }
    if let Some(f) = given(min_ready_seconds) {
        d.min_ready_seconds = field_whole(
            "minReadySeconds",
            f,
            0,
            shepherd::MAX_DAEMONSET_MIN_READY_SECONDS as u64,
        )? as u32;
    }
    Ok(())
}

fn version_of(v: &Option<String>) -> String {
    match v.as_deref().map(str::trim) {
        None | Some("") => "v1".into(),
        Some(v) => v.into(),
    }
}

impl DaemonSetInput {
    pub fn spec(&self) -> Result<DaemonSetSpec, String> {
        let name = self.name.trim().to_string();
        let labels = labels_or(&self.labels, "app", &name)?;
        let doc = TemplateDoc {
            version: version_of(&self.version),
            cpu: cpu(&self.cpu)?,
            memory_bytes: memory(&self.memory)?,
            labels: Some(labels),
            node_selector: match &self.node_selector {
                Some(l) => l.labels("nodeSelector")?,
                None => Default::default(),
            },
            tolerations: parse_toleration(self.toleration.as_deref().unwrap_or(""))?
                .into_iter()
                .collect(),
            affinity: Vec::new(),
            anti_affinity: Vec::new(),
            ready_after: shepherd::model::DEFAULT_READY_AFTER,
            priority_class_name: priority_class(&self.priority_class_name)?,
        };
        let mut d = DaemonSetSpec::new(&name, doc.to_engine(&name)?);
        d.host_network = self.host_network;
        strategy_fields(
            &mut d,
            &self.strategy,
            &self.max_unavailable,
            &self.max_surge,
            &self.min_ready_seconds,
        )?;
        d.validate().map_err(|e| e.to_string())?;
        Ok(d)
    }

    /// `kubectl apply` of the new DaemonSet, as the scenario records it.
    pub fn action(&self) -> Result<Action, String> {
        let d = self.spec()?;
        Ok(Action::Manifests {
            manifests: crate::manifests::one_object(|sc| sc.daemonsets.push(d)),
        })
    }
}

/// The change-a-DaemonSet form: what changes in its current spec. A new
/// version or new requests roll the pods as its updateStrategy says.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DaemonSetChange {
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub cpu: Option<Field>,
    #[serde(default)]
    pub memory: Option<Field>,
    #[serde(default)]
    pub strategy: Option<String>,
    #[serde(default)]
    pub max_unavailable: Option<Field>,
    #[serde(default)]
    pub max_surge: Option<Field>,
    #[serde(default)]
    pub min_ready_seconds: Option<Field>,
}

impl DaemonSetChange {
    /// The DaemonSet `current` with this change applied, checked.
    pub fn apply(&self, current: &DaemonSetSpec) -> Result<DaemonSetSpec, String> {
        let mut d = current.clone();
        if let Some(v) = self
            .version
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            d.template.version = v.into();
        }
        if let Some(f) = given(&self.cpu) {
            d.template.requests.cpu_millis = cpu(f)?;
        }
        if let Some(f) = given(&self.memory) {
            d.template.requests.memory_bytes = memory(f)?;
        }
        if d.template.requests != current.template.requests {
            // New requests are one container's (an imported template's
            // scored requests, from its containers, no longer hold).
            d.template = d.template.clone().with_requests(d.template.requests);
        }
        strategy_fields(
            &mut d,
            &self.strategy,
            &self.max_unavailable,
            &self.max_surge,
            &self.min_ready_seconds,
        )?;
        if d == *current {
            return Err(format!(
                "version {} is the DaemonSet's own and nothing else changed; expected a new version, CPU or memory request, or update strategy",
                shepherd::limits::quoted(&current.template.version)
            ));
        }
        d.validate().map_err(|e| e.to_string())?;
        Ok(d)
    }

    pub fn action(&self, current: &DaemonSetSpec) -> Result<Action, String> {
        let d = self.apply(current)?;
        Ok(Action::UpdateDaemonSet {
            manifests: crate::manifests::one_object(|sc| sc.daemonsets.push(d)),
        })
    }
}

/// The create-a-Pod form: `{name, cpu, memory, labels?, nodeName?,
/// priorityClassName?}`. Labels default to `run=<name>`, as `kubectl run`
/// sets them; with a nodeName the kubelet admits it without the scheduler.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodInput {
    pub name: String,
    pub cpu: Field,
    pub memory: Field,
    #[serde(default)]
    pub labels: Option<LabelsField>,
    #[serde(default)]
    pub node_name: Option<String>,
    #[serde(default)]
    pub priority_class_name: Option<String>,
}

impl PodInput {
    pub fn spec(&self) -> Result<BarePodSpec, String> {
        let name = self.name.trim().to_string();
        let labels = labels_or(&self.labels, "run", &name)?;
        let priority_class_name = priority_class(&self.priority_class_name)?;
        let doc = TemplateDoc {
            version: "v1".into(),
            cpu: cpu(&self.cpu)?,
            memory_bytes: memory(&self.memory)?,
            labels: Some(labels),
            node_selector: Default::default(),
            tolerations: Vec::new(),
            affinity: Vec::new(),
            anti_affinity: Vec::new(),
            ready_after: shepherd::model::DEFAULT_READY_AFTER,
            priority_class_name,
        };
        let p = BarePodSpec {
            template: doc.to_engine(&name)?,
            node_name: self
                .node_name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(String::from),
            name,
        };
        p.validate().map_err(|e| e.to_string())?;
        Ok(p)
    }

    /// `kubectl apply` of the Pod, as the scenario records it.
    pub fn action(&self) -> Result<Action, String> {
        let p = self.spec()?;
        Ok(Action::Manifests {
            manifests: crate::manifests::one_object(|sc| sc.pods.push(p)),
        })
    }
}

/// A form's priorityClassName: empty is none, anything else a valid name.
fn priority_class(field: &Option<String>) -> Result<Option<String>, String> {
    match field.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(pc) => {
            shepherd::model::validate_name(pc, "priorityClassName").map_err(|e| e.to_string())?;
            Ok(Some(pc.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shepherd::IntOrPercent;

    fn ds(json: serde_json::Value) -> Result<DaemonSetSpec, String> {
        serde_json::from_value::<DaemonSetInput>(json)
            .map_err(|e| e.to_string())?
            .spec()
    }

    #[test]
    fn a_daemonset_form_takes_kubernetes_defaults_and_refuses_both_numbers_set() {
        let d = ds(serde_json::json!({"name": "agent", "cpu": "100m", "memory": "64Mi"})).unwrap();
        assert_eq!(
            (
                d.strategy,
                d.max_unavailable,
                d.max_surge,
                d.min_ready_seconds
            ),
            (
                DaemonSetUpdateStrategyType::RollingUpdate,
                IntOrPercent::Int(1),
                IntOrPercent::Int(0),
                0
            )
        );
        assert_eq!(
            d.template.labels.get("app").map(String::as_str),
            Some("agent")
        );
        let e = ds(
            serde_json::json!({"name": "agent", "cpu": "100m", "memory": "64Mi", "maxSurge": "1"}),
        )
        .unwrap_err();
        assert!(
            e.starts_with("maxSurge 1 of DaemonSet agent is set while maxUnavailable is 1"),
            "{e}"
        );
        let d = ds(serde_json::json!({"name": "agent", "cpu": 100, "memory": 64, "maxSurge": "25%", "maxUnavailable": "0", "minReadySeconds": "5"})).unwrap();
        assert_eq!(
            (d.max_surge, d.max_unavailable, d.min_ready_seconds),
            (IntOrPercent::Percent(25), IntOrPercent::Int(0), 5)
        );
        let e = ds(serde_json::json!({"name": "agent", "cpu": "100m", "memory": "64Mi", "strategy": "Recreate"})).unwrap_err();
        assert!(
            e.starts_with("updateStrategy \"Recreate\" is not valid"),
            "{e}"
        );
    }

    #[test]
    fn a_daemonset_form_carries_its_priority_class_and_host_network() {
        let d = ds(serde_json::json!({"name": "cni", "cpu": "100m", "memory": "64Mi", "priorityClassName": " system-node-critical ", "hostNetwork": true})).unwrap();
        assert_eq!(
            d.template.priority_class_name.as_deref(),
            Some("system-node-critical")
        );
        assert!(d.host_network);
        let d = ds(serde_json::json!({"name": "cni", "cpu": "100m", "memory": "64Mi", "priorityClassName": ""})).unwrap();
        assert_eq!(d.template.priority_class_name, None);
        assert!(!d.host_network);
        let e = ds(serde_json::json!({"name": "cni", "cpu": "100m", "memory": "64Mi", "priorityClassName": "Gold!"})).unwrap_err();
        assert!(e.contains("priorityClassName"), "{e}");
    }

    #[test]
    fn a_change_that_changes_nothing_is_refused() {
        let d = ds(serde_json::json!({"name": "agent", "cpu": "100m", "memory": "64Mi"})).unwrap();
        let e = DaemonSetChange::default().apply(&d).unwrap_err();
        assert!(e.contains("nothing else changed"), "{e}");
        let c = DaemonSetChange {
            version: Some("v2".into()),
            ..Default::default()
        };
        assert_eq!(c.apply(&d).unwrap().template.version, "v2");
    }

    #[test]
    fn a_pod_form_labels_run_and_keeps_its_node_name() {
        let p: PodInput = serde_json::from_value(serde_json::json!({"name": "debug", "cpu": "250m", "memory": "64Mi", "nodeName": " node-1 "})).unwrap();
        let p = p.spec().unwrap();
        assert_eq!(p.node_name.as_deref(), Some("node-1"));
        assert_eq!(
            p.template.labels.get("run").map(String::as_str),
            Some("debug")
        );
    }

    #[test]
    fn form_actions_are_recorded_as_scenario_actions_and_replay_to_the_same_placement() {
        use crate::session::Session;
        let mut s = Session::new(7, shepherd::Profile::kube_scheduler());
        for n in ["node-1", "node-2", "node-3"] {
            let a: Action = serde_json::from_value(
                serde_json::json!({"type": "addNode", "name": n, "cpu": 2000, "memoryBytes": 4096u64 << 20}),
            )
            .unwrap();
            s.submit(a).unwrap();
        }
        s.step();
        let ds: DaemonSetInput = serde_json::from_value(serde_json::json!({
            "name": "log-agent", "cpu": "100m", "memory": "128Mi",
            "maxUnavailable": "0", "maxSurge": "1"
        }))
        .unwrap();
        s.submit(ds.action().unwrap()).unwrap();
        let pod: PodInput = serde_json::from_value(
            serde_json::json!({"name": "debug", "cpu": "250m", "memory": "64Mi", "nodeName": "node-3"}),
        )
        .unwrap();
        s.submit(pod.action().unwrap()).unwrap();
        s.run(4);
        let current = s
            .simulator()
            .cluster()
            .daemonset_spec("log-agent")
            .unwrap()
            .clone();
        let change = DaemonSetChange {
            version: Some("v2".into()),
            ..Default::default()
        };
        s.submit(change.action(&current).unwrap()).unwrap();
        s.run(3);
        s.submit(Action::DeletePod {
            name: "debug".into(),
        })
        .unwrap();
        s.run(10);
        let kinds: Vec<&str> = s.log().iter().map(|e| e.action.kind()).collect();
        assert_eq!(
            kinds,
            [
                "addNode",
                "addNode",
                "addNode",
                "manifests",
                "manifests",
                "updateDaemonSet",
                "deletePod"
            ]
        );
        let c = s.simulator().cluster();
        let st = &c.daemonsets()[0];
        assert_eq!((st.desired, st.updated, st.ready), (3, 3, 3), "{st:?}");
        assert!(c.pod_by_name("debug").is_err());
        // The document the link and Export carry replays to the same pods on the same nodes.
        let json = serde_json::to_string(&s.scenario()).unwrap();
        let doc: crate::scenario::Scenario = serde_json::from_str(&json).unwrap();
        let again = Session::from_scenario(&doc).unwrap();
        assert_eq!(again.tick(), s.tick());
        assert_eq!(
            crate::compare::placements(&again),
            crate::compare::placements(&s)
        );
    }
}
