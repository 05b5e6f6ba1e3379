//! The scenario document: a seed, a policy and the script of actions a person
//! submitted, as plain serde types. The engine has no serde, so this module
//! mirrors [`shepherd::simulator::Event`] field by field, in Kubernetes' words
//! (`nodeSelector`, `maxSurge`, `minAvailable`), and converts both ways.
//!
//! Every action is self-contained: a roll carries the whole new pod template,
//! not a change to "whatever the template was", so a scenario replays to the
//! same cluster from its seed alone. The one macro, [`Action::Generate`], is a
//! pure function of its parameters and the scenario's seed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shepherd::model::HOSTNAME_KEY;
use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Prng};
use shepherd::{
    AffinityTerm, Budget, DeploymentSpec, IntOrPercent, Labels, NodeSpec, PdbSpec, PodTemplate,
    PreemptionPolicy, PriorityClass, Profile, Resources, RollingUpdate, ScorePolicy, Selector,
    ServiceSpec, Taint, TaintEffect, Toleration, TolerationOperator,
};

/// The format version written into every exported scenario. Version 2
/// counts memory in bytes (`memoryBytes`); version 1 counted whole MiB
/// (`memory`), and is still read: `fromScenario` upgrades it (lib.rs,
/// `upgrade_v1`).
pub const SCENARIO_VERSION: u32 = 2;

/// The latest tick a scenario may ask to replay to: a bound that keeps a
/// pasted link from freezing the page (the engine's limit).
pub const MAX_TICK: u64 = shepherd::limits::MAX_TICK;

/// The most actions a scenario may hold.
pub const MAX_ACTIONS: usize = 20_000;

/// The largest scenario document, in bytes of JSON text.
pub const MAX_DOCUMENT_BYTES: usize = 8 << 20;

/// The most captions a scenario may hold, and the longest caption.
pub const MAX_NOTES: usize = 1_000;
pub const MAX_NOTE_CHARS: usize = 2_000;

/// The largest cluster [`Action::Generate`] builds: twice Kubernetes' envelope.
pub const MAX_GENERATED_NODES: u32 = 10_000;

/// Kubernetes' default limit of pods per node.
pub const MAX_PODS_PER_NODE: u32 = 110;

/// The most pods [`Action::Generate`] creates: twice Kubernetes' supported 150,000.
pub const MAX_GENERATED_PODS: u64 = 300_000;

/// The topology key of zones, as Kubernetes' well-known label.
pub const ZONE_KEY: &str = "topology.kubernetes.io/zone";

/// A whole scenario: what `exportScenario` writes and `fromScenario` reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    pub seed: u64,
    /// The profile at tick 0 (`default-scheduler`, `binpack` or `leastloaded`);
    /// `setPolicy` and `setProfile` actions change it later.
    pub policy: String,
    /// The tick the page was at; replaying stops there. Absent: the last action's tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<u64>,
    pub actions: Vec<Entry>,
    /// Captions shown at given ticks (the guided tour has them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
}

/// One action and the tick at which it fires.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub tick: u64,
    pub action: Action,
}

/// A caption for a tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub tick: u64,
    pub text: String,
}

/// A number or a percentage, as Kubernetes' IntOrString: `1` or `"25%"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(u32),
    Str(String),
}

impl IntOrString {
    pub fn to_engine(&self) -> Result<IntOrPercent, String> {
        match self {
            IntOrString::Int(n) => Ok(IntOrPercent::Int(*n)),
            IntOrString::Str(s) => IntOrPercent::parse(s).map_err(|e| e.to_string()),
        }
    }

    pub fn from_engine(v: IntOrPercent) -> Self {
        match v {
            IntOrPercent::Int(n) => IntOrString::Int(n),
            IntOrPercent::Percent(p) => IntOrString::Str(format!("{p}%")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaintDoc {
    pub key: String,
    #[serde(default)]
    pub value: String,
    pub effect: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TolerationDoc {
    #[serde(default)]
    pub key: String,
    /// `Equal` (the default) or `Exists`.
    #[serde(default = "equal")]
    pub operator: String,
    #[serde(default)]
    pub value: String,
    /// Absent: every effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// How long a NoExecute taint is tolerated, in seconds (ticks); absent: for good.
    #[serde(
        default,
        rename = "tolerationSeconds",
        skip_serializing_if = "Option::is_none"
    )]
    pub toleration_seconds: Option<u64>,
}

fn equal() -> String {
    "Equal".into()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TermDoc {
    pub match_labels: Labels,
    /// Absent: `kubernetes.io/hostname`, the node itself.
    #[serde(default = "hostname")]
    pub topology_key: String,
    /// The term counts the pods of these namespaces (with
    /// `namespaceSelector`, the union); with neither, the pod's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// The term counts the pods of the namespaces whose labels match
    /// (`{}`: every namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<Labels>,
}

/// The engine key of `name` in the optional `namespace` (absent: default).
pub fn key_of(namespace: &Option<String>, name: &str) -> Result<String, String> {
    match namespace.as_deref().map(str::trim) {
        None | Some("") => Ok(name.to_string()),
        Some(ns) => {
            shepherd::namespace::validate_namespace(ns).map_err(|e| e.to_string())?;
            if name.contains('/') {
                return Err(format!(
                    "name {} has a namespace prefix and namespace {} is given as well; expected the name alone",
                    shepherd::limits::quoted(name),
                    shepherd::limits::quoted(ns)
                ));
            }
            Ok(shepherd::namespace::qualify(ns, name))
        }
    }
}

/// `(namespace, name)` of an engine key, the namespace absent for default.
fn split_key(key: &str) -> (Option<String>, String) {
    let (ns, name) = shepherd::namespace::split(key);
    (
        (ns != shepherd::namespace::DEFAULT_NAMESPACE).then(|| ns.to_string()),
        name.to_string(),
    )
}

fn hostname() -> String {
    HOSTNAME_KEY.into()
}

/// A pod template, all of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TemplateDoc {
    #[serde(default = "v1")]
    pub version: String,
    /// CPU request in millicores.
    pub cpu: u64,
    /// Memory request in bytes (`memoryBytes`; version 1: `memory`, MiB).
    pub memory_bytes: u64,
    /// Absent: `app=<name>`, as `kubectl create deployment` labels pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Labels>,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub node_selector: Labels,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<TolerationDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affinity: Vec<TermDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anti_affinity: Vec<TermDoc>,
    #[serde(default = "ready_after")]
    pub ready_after: u32,
    /// `priorityClassName`: resolved when each pod is created; absent: the
    /// globalDefault class, else priority 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
}

fn zone_key() -> String {
    "topology.kubernetes.io/zone".into()
}

fn v1() -> String {
    "v1".into()
}

fn ready_after() -> u32 {
    shepherd::model::DEFAULT_READY_AFTER
}

/// What a person can do, one variant per [`Event`], plus one macro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Action {
    AddNode {
        name: String,
        /// Millicores.
        cpu: u64,
        /// Bytes (`memoryBytes`; version 1: `memory`, MiB).
        memory_bytes: u64,
        #[serde(default, skip_serializing_if = "Labels::is_empty")]
        labels: Labels,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        taints: Vec<TaintDoc>,
    },
    /// The kubelet of a registered node registers again with a new body:
    /// the pods it no longer admits are released (see the engine's
    /// `Cluster::reregister_node`).
    ReregisterNode {
        name: String,
        /// Millicores.
        cpu: u64,
        /// Bytes (`memoryBytes`; version 1: `memory`, MiB).
        memory_bytes: u64,
        #[serde(default, skip_serializing_if = "Labels::is_empty")]
        labels: Labels,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        taints: Vec<TaintDoc>,
    },
    FailNode {
        node: String,
    },
    RecoverNode {
        node: String,
    },
    RemoveNode {
        node: String,
    },
    Cordon {
        node: String,
    },
    Uncordon {
        node: String,
    },
    Drain {
        node: String,
    },
    /// `kubectl taint nodes NODE key=value:Effect`.
    TaintNode {
        node: String,
        taint: TaintDoc,
    },
    /// `kubectl taint nodes NODE key:Effect-`; without `effect`, `key-`
    /// (every effect of the key).
    UntaintNode {
        node: String,
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effect: Option<String>,
    },
    /// Every node whose label `key` (default `topology.kubernetes.io/zone`)
    /// has `value` stops heart-beating, as failNode does one.
    FailZone {
        #[serde(default = "zone_key")]
        key: String,
        value: String,
    },
    /// A Namespace with labels (what namespaceSelectors read), created
    /// before the objects in it.
    AddNamespace {
        name: String,
        #[serde(default, skip_serializing_if = "Labels::is_empty")]
        labels: Labels,
    },
    Deploy {
        /// Absent: `default`. Other actions name the Deployment
        /// `NAMESPACE/NAME` outside `default`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        name: String,
        replicas: u32,
        template: TemplateDoc,
        #[serde(default = "pct25")]
        max_surge: IntOrString,
        #[serde(default = "pct25")]
        max_unavailable: IntOrString,
        /// Seconds (ticks) a pod must be Ready to count as available.
        #[serde(default, skip_serializing_if = "is_zero")]
        min_ready_seconds: u32,
        /// Seconds (ticks) without progress before a rollout is reported
        /// failed (Progressing=False, ProgressDeadlineExceeded).
        #[serde(
            default = "progress_deadline",
            skip_serializing_if = "is_default_deadline"
        )]
        progress_deadline_seconds: u32,
    },
    Scale {
        app: String,
        replicas: u32,
    },
    Roll {
        app: String,
        template: TemplateDoc,
    },
    Rollback {
        app: String,
    },
    SetStrategy {
        app: String,
        max_surge: IntOrString,
        max_unavailable: IntOrString,
    },
    DeleteApp {
        app: String,
    },
    AddPdb {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        name: String,
        selector: Labels,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_available: Option<IntOrString>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_unavailable: Option<IntOrString>,
    },
    DeletePdb {
        name: String,
    },
    AddService {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        name: String,
        selector: Labels,
    },
    DeleteService {
        name: String,
    },
    Evict {
        pod: String,
    },
    /// Switch to a named profile: `default-scheduler`, `binpack`, `leastloaded`.
    SetPolicy {
        policy: String,
    },
    /// Switch to a profile given in full, KubeSchedulerConfiguration-shaped.
    SetProfile {
        profile: crate::profile::ProfileDoc,
    },
    /// Cluster Autoscaler over these node groups with these options (the
    /// page's node groups form, or a kwok provider ConfigMap applied):
    /// it restarts with them, as a new CA pod would.
    SetAutoscaler {
        autoscaler: Box<crate::autoscale::AutoscalerDoc>,
    },
    /// A PriorityClass (scheduling.k8s.io/v1): `value` at most 1000000000,
    /// at most one `globalDefault`, `preemptionPolicy` PreemptLowerPriority
    /// (the default) or Never.
    AddPriorityClass {
        name: String,
        value: i32,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        global_default: bool,
        #[serde(default = "preempt_lower", skip_serializing_if = "is_preempt_lower")]
        preemption_policy: String,
    },
    DeletePriorityClass {
        name: String,
    },
    /// A generated cluster: `nodes` nodes across three zones and ten
    /// Deployments with `nodes * podsPerNode` pods in all. Node shapes and pod
    /// requests come from a PRNG seeded by the scenario's seed.
    Generate {
        nodes: u32,
        pods_per_node: u32,
    },
    /// An imported cluster: Kubernetes manifests (the canonical export of
    /// what was imported, see `crate::manifests`), declared at once. A pure
    /// function of its text, so a link that carries it replays the same cluster.
    Manifests {
        manifests: String,
    },
    /// `kubectl apply -f` of manifests onto the running cluster: each
    /// object created when its name is new, else updated as the API server
    /// updates it (a changed Deployment template rolls, replicas scale, an
    /// immutable field changed is refused): see `Scenario::apply_onto` in
    /// shepherd-k8s.
    Apply {
        manifests: String,
    },
    /// `kubectl apply` of a changed DaemonSet: `manifests` holds exactly one
    /// DaemonSet (a new template rolls node by node). New DaemonSets and
    /// bare Pods arrive by a `manifests` action.
    UpdateDaemonSet {
        manifests: String,
    },
    DeleteDaemonSet {
        name: String,
    },
    /// Delete a bare Pod (nobody recreates it).
    DeletePod {
        name: String,
    },
}

fn preempt_lower() -> String {
    PreemptionPolicy::PreemptLowerPriority.as_str().into()
}

fn is_preempt_lower(s: &String) -> bool {
    s == PreemptionPolicy::PreemptLowerPriority.as_str()
}

fn pct25() -> IntOrString {
    IntOrString::Str("25%".into())
}

fn policy_name(p: ScorePolicy) -> String {
    p.as_str().into()
}

/// A named scheduler profile: `default-scheduler` (kube-scheduler's own),
/// `binpack` or `leastloaded`.
pub fn parse_policy(s: &str) -> Result<Profile, String> {
    Profile::named(s).map_err(|e| e.to_string())
}

fn effect(s: &str) -> Result<TaintEffect, String> {
    TaintEffect::parse(s).map_err(|e| e.to_string())
}

impl TemplateDoc {
    pub fn from_engine(t: &PodTemplate) -> Self {
        let term = |a: &AffinityTerm| TermDoc {
            match_labels: a.selector.match_labels.clone(),
            topology_key: a.topology_key.clone(),
            namespaces: a.namespaces.clone(),
            namespace_selector: a
                .namespace_selector
                .as_ref()
                .map(|s| s.match_labels.clone()),
        };
        TemplateDoc {
            version: t.version.clone(),
            cpu: t.requests.cpu_millis,
            memory_bytes: t.requests.memory_bytes,
            labels: Some(t.labels.clone()),
            node_selector: t.node_selector.clone(),
            tolerations: t
                .tolerations
                .iter()
                .map(|t| TolerationDoc {
                    key: t.key.clone(),
                    operator: match t.operator {
                        TolerationOperator::Equal => "Equal".into(),
                        TolerationOperator::Exists => "Exists".into(),
                    },
                    value: t.value.clone(),
                    effect: t.effect.map(|e| e.as_str().into()),
                    toleration_seconds: t.toleration_seconds,
                })
                .collect(),
            affinity: t.affinity.iter().map(term).collect(),
            anti_affinity: t.anti_affinity.iter().map(term).collect(),
            ready_after: t.ready_after,
            priority_class_name: t.priority_class_name.clone(),
        }
    }

    /// The engine's template; `app` names the default `app=<app>` label.
    pub fn to_engine(&self, app: &str) -> Result<PodTemplate, String> {
        let mut t = PodTemplate::new(Resources::new(self.cpu, self.memory_bytes))
            .with_version(&self.version)
            .with_ready_after(self.ready_after);
        t.labels = match &self.labels {
            Some(l) => l.clone(),
            None => shepherd::labels(&[("app", app)]),
        };
        t.node_selector = self.node_selector.clone();
        t.priority_class_name = self.priority_class_name.clone();
        for tol in &self.tolerations {
            let eff = match &tol.effect {
                None => None,
                Some(e) if e.is_empty() => None,
                Some(e) => Some(effect(e)?),
            };
            let operator = match tol.operator.as_str() {
                "Equal" => TolerationOperator::Equal,
                "Exists" => TolerationOperator::Exists,
                other => {
                    return Err(format!(
                        "toleration operator {} is not valid; expected Equal or Exists",
                        shepherd::limits::quoted(other)
                    ))
                }
            };
            t.tolerations.push(Toleration {
                key: tol.key.clone(),
                operator,
                value: tol.value.clone(),
                effect: eff,
                toleration_seconds: tol.toleration_seconds,
            });
        }
        let term = |d: &TermDoc| AffinityTerm {
            selector: Selector {
                match_labels: d.match_labels.clone(),
                ..Default::default()
            },
            topology_key: d.topology_key.clone(),
            namespaces: d.namespaces.clone(),
            namespace_selector: d.namespace_selector.as_ref().map(|l| Selector {
                match_labels: l.clone(),
                ..Default::default()
            }),
        };
        t.affinity = self.affinity.iter().map(term).collect();
        t.anti_affinity = self.anti_affinity.iter().map(term).collect();
        Ok(t)
    }
}

fn taint_docs(n: &NodeSpec) -> Vec<TaintDoc> {
    n.taints
        .iter()
        .map(|t| TaintDoc {
            key: t.key.clone(),
            value: t.value.clone(),
            effect: t.effect.as_str().into(),
        })
        .collect()
}

fn node_spec(
    name: &str,
    cpu: u64,
    memory_bytes: u64,
    labels: &Labels,
    taints: &[TaintDoc],
) -> Result<NodeSpec, String> {
    // The kubelet's hostname label (the node's name) unless the form or
    // the document gives one.
    let mut n = NodeSpec::new(name, cpu, memory_bytes);
    let hostname = n.labels.get(HOSTNAME_KEY).cloned();
    n.labels = labels.clone();
    if let Some(h) = hostname {
        n.labels.entry(HOSTNAME_KEY.to_string()).or_insert(h);
    }
    for t in taints {
        n.taints
            .push(Taint::new(&t.key, &t.value, effect(&t.effect)?));
    }
    Ok(n)
}

impl Action {
    /// The action's `type`, as the document writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::AddNode { .. } => "addNode",
            Action::ReregisterNode { .. } => "reregisterNode",
            Action::FailNode { .. } => "failNode",
            Action::RecoverNode { .. } => "recoverNode",
            Action::RemoveNode { .. } => "removeNode",
            Action::Cordon { .. } => "cordon",
            Action::Uncordon { .. } => "uncordon",
            Action::Drain { .. } => "drain",
            Action::TaintNode { .. } => "taintNode",
            Action::UntaintNode { .. } => "untaintNode",
            Action::FailZone { .. } => "failZone",
            Action::AddNamespace { .. } => "addNamespace",
            Action::Deploy { .. } => "deploy",
            Action::Scale { .. } => "scale",
            Action::Roll { .. } => "roll",
            Action::Rollback { .. } => "rollback",
            Action::SetStrategy { .. } => "setStrategy",
            Action::DeleteApp { .. } => "deleteApp",
            Action::AddPdb { .. } => "addPdb",
            Action::DeletePdb { .. } => "deletePdb",
            Action::AddService { .. } => "addService",
            Action::DeleteService { .. } => "deleteService",
            Action::Evict { .. } => "evict",
            Action::SetPolicy { .. } => "setPolicy",
            Action::SetProfile { .. } => "setProfile",
            Action::SetAutoscaler { .. } => "setAutoscaler",
            Action::Manifests { .. } => "manifests",
            Action::Apply { .. } => "apply",
            Action::UpdateDaemonSet { .. } => "updateDaemonSet",
            Action::DeleteDaemonSet { .. } => "deleteDaemonSet",
            Action::DeletePod { .. } => "deletePod",
            Action::Generate { .. } => "generate",
            Action::AddPriorityClass { .. } => "addPriorityClass",
            Action::DeletePriorityClass { .. } => "deletePriorityClass",
        }
    }

    /// The action that submits `e`. Total: every event has one.
    pub fn from_event(e: &Event) -> Action {
        let ios = IntOrString::from_engine;
        match e {
            Event::AddNode(n) => Action::AddNode {
                name: n.name.clone(),
                cpu: n.capacity.cpu_millis,
                memory_bytes: n.capacity.memory_bytes,
                labels: n.labels.clone(),
                taints: taint_docs(n),
            },
            Event::ReregisterNode(n) => Action::ReregisterNode {
                name: n.name.clone(),
                cpu: n.capacity.cpu_millis,
                memory_bytes: n.capacity.memory_bytes,
                labels: n.labels.clone(),
                taints: taint_docs(n),
            },
            Event::FailNode(n) => Action::FailNode { node: n.clone() },
            Event::RecoverNode(n) => Action::RecoverNode { node: n.clone() },
            Event::RemoveNode(n) => Action::RemoveNode { node: n.clone() },
            Event::Cordon(n) => Action::Cordon { node: n.clone() },
            Event::Uncordon(n) => Action::Uncordon { node: n.clone() },
            Event::Drain(n) => Action::Drain { node: n.clone() },
            Event::TaintNode { node, taint } => Action::TaintNode {
                node: node.clone(),
                taint: TaintDoc {
                    key: taint.key.clone(),
                    value: taint.value.clone(),
                    effect: taint.effect.as_str().into(),
                },
            },
            Event::UntaintNode { node, key, effect } => Action::UntaintNode {
                node: node.clone(),
                key: key.clone(),
                effect: effect.map(|e| e.as_str().into()),
            },
            Event::FailZone { key, value } => Action::FailZone {
                key: key.clone(),
                value: value.clone(),
            },
            Event::Deploy(d) => Action::Deploy {
                namespace: split_key(&d.name).0,
                name: split_key(&d.name).1,
                replicas: d.replicas,
                template: TemplateDoc::from_engine(&d.template),
                max_surge: ios(d.strategy.max_surge),
                max_unavailable: ios(d.strategy.max_unavailable),
                min_ready_seconds: d.min_ready_seconds,
                progress_deadline_seconds: d.progress_deadline_seconds,
            },
            Event::Scale { app, replicas } => Action::Scale {
                app: app.clone(),
                replicas: *replicas,
            },
            Event::Roll { app, template } => Action::Roll {
                app: app.clone(),
                template: TemplateDoc::from_engine(template),
            },
            Event::Rollback(a) => Action::Rollback { app: a.clone() },
            Event::SetStrategy { app, strategy } => Action::SetStrategy {
                app: app.clone(),
                max_surge: ios(strategy.max_surge),
                max_unavailable: ios(strategy.max_unavailable),
            },
            Event::DeleteApp(a) => Action::DeleteApp { app: a.clone() },
            Event::AddPdb(p) => {
                let (min_available, max_unavailable) = match p.budget {
                    Budget::MinAvailable(v) => (Some(ios(v)), None),
                    Budget::MaxUnavailable(v) => (None, Some(ios(v))),
                };
                Action::AddPdb {
                    namespace: split_key(&p.name).0,
                    name: split_key(&p.name).1,
                    selector: p.selector.match_labels.clone(),
                    min_available,
                    max_unavailable,
                }
            }
            Event::DeletePdb(p) => Action::DeletePdb { name: p.clone() },
            Event::AddService(s) => Action::AddService {
                namespace: split_key(&s.name).0,
                name: split_key(&s.name).1,
                selector: s.selector.match_labels.clone(),
            },
            Event::DeleteService(s) => Action::DeleteService { name: s.clone() },
            Event::AddPriorityClass(pc) => Action::AddPriorityClass {
                name: pc.name.clone(),
                value: pc.value,
                global_default: pc.global_default,
                preemption_policy: pc.preemption_policy.as_str().into(),
            },
            Event::DeletePriorityClass(n) => Action::DeletePriorityClass { name: n.clone() },
            Event::Evict(p) => Action::Evict { pod: p.clone() },
            Event::SetPolicy(p) => Action::SetPolicy {
                policy: policy_name(*p),
            },
            Event::SetProfile(p) => match Profile::named(&p.scheduler_name) {
                Ok(named) if named == *p => Action::SetPolicy {
                    policy: p.scheduler_name.clone(),
                },
                _ => Action::SetProfile {
                    profile: crate::profile::ProfileDoc::from_engine(p),
                },
            },
            Event::CreateDaemonSet(d) => Action::Manifests {
                manifests: crate::manifest_text::one_object(|sc| sc.daemonsets.push(d.clone())),
            },
            Event::UpdateDaemonSet(d) => Action::UpdateDaemonSet {
                manifests: crate::manifest_text::one_object(|sc| sc.daemonsets.push(d.clone())),
            },
            Event::DeleteDaemonSet(d) => Action::DeleteDaemonSet { name: d.clone() },
            Event::CreatePod(p) => Action::Manifests {
                manifests: crate::manifest_text::one_object(|sc| sc.pods.push(p.clone())),
            },
            // An imported cluster's running pods, written with their owner's.
            Event::Running(r) => Action::Manifests {
                manifests: crate::manifest_text::one_object(|sc| sc.running.push(r.clone())),
            },
            Event::DeletePod(p) => Action::DeletePod { name: p.clone() },
            Event::AddNamespace(n) => Action::AddNamespace {
                name: n.name.clone(),
                labels: n.labels.clone(),
            },
            Event::ApplyDeployment(d) => Action::Apply {
                manifests: crate::manifest_text::one_object(|sc| sc.deployments.push(d.clone())),
            },
            Event::ApplyDaemonSet(d) => Action::Apply {
                manifests: crate::manifest_text::one_object(|sc| sc.daemonsets.push(d.clone())),
            },
            Event::ApplyPod(p) => Action::Apply {
                manifests: crate::manifest_text::one_object(|sc| sc.pods.push(p.clone())),
            },
            Event::ApplyNode(n) => Action::Apply {
                manifests: crate::manifest_text::one_object(|sc| {
                    sc.nodes.push(shepherd_k8s::ImportedNode {
                        spec: n.clone(),
                        unschedulable: false,
                        ready: true,
                    })
                }),
            },
            Event::ApplyPriorityClass(pc) => Action::Apply {
                manifests: crate::manifest_text::one_object(|sc| {
                    sc.priority_classes.push(pc.clone())
                }),
            },
            // With its options and members, which the ConfigMaps do not hold.
            Event::SetAutoscaler(a) => Action::SetAutoscaler {
                autoscaler: Box::new(crate::autoscale::AutoscalerDoc::from_engine(
                    a,
                    a.members.clone(),
                )),
            },
        }
    }

    /// The engine events this action submits, in order. `seed` is the
    /// scenario's (only [`Action::Generate`] reads it).
    pub fn to_events(&self, seed: u64) -> Result<Vec<Event>, String> {
        let one = |e: Event| Ok(vec![e]);
        match self {
            Action::AddNode {
                name,
                cpu,
                memory_bytes,
                labels,
                taints,
            } => one(Event::AddNode(node_spec(
                name,
                *cpu,
                *memory_bytes,
                labels,
                taints,
            )?)),
            Action::ReregisterNode {
                name,
                cpu,
                memory_bytes,
                labels,
                taints,
            } => one(Event::ReregisterNode(node_spec(
                name,
                *cpu,
                *memory_bytes,
                labels,
                taints,
            )?)),
            Action::FailNode { node } => one(Event::FailNode(node.clone())),
            Action::RecoverNode { node } => one(Event::RecoverNode(node.clone())),
            Action::RemoveNode { node } => one(Event::RemoveNode(node.clone())),
            Action::Cordon { node } => one(Event::Cordon(node.clone())),
            Action::Uncordon { node } => one(Event::Uncordon(node.clone())),
            Action::Drain { node } => one(Event::Drain(node.clone())),
            Action::Deploy {
                namespace,
                name,
                replicas,
                template,
                max_surge,
                max_unavailable,
                min_ready_seconds,
                progress_deadline_seconds,
            } => one(Event::Deploy(DeploymentSpec {
                name: key_of(namespace, name)?,
                replicas: *replicas,
                // The default label app=<name> takes the name alone.
                template: template.to_engine(shepherd::namespace::split(name).1)?,
                strategy: RollingUpdate {
                    max_surge: max_surge.to_engine()?,
                    max_unavailable: max_unavailable.to_engine()?,
                },
                min_ready_seconds: *min_ready_seconds,
                progress_deadline_seconds: *progress_deadline_seconds,
                selector: None,
            })),
            Action::Scale { app, replicas } => one(Event::Scale {
                app: app.clone(),
                replicas: *replicas,
            }),
            Action::Roll { app, template } => one(Event::Roll {
                app: app.clone(),
                template: template.to_engine(shepherd::namespace::split(app).1)?,
            }),
            Action::Rollback { app } => one(Event::Rollback(app.clone())),
            Action::SetStrategy {
                app,
                max_surge,
                max_unavailable,
            } => one(Event::SetStrategy {
                app: app.clone(),
                strategy: RollingUpdate {
                    max_surge: max_surge.to_engine()?,
                    max_unavailable: max_unavailable.to_engine()?,
                },
            }),
            Action::DeleteApp { app } => one(Event::DeleteApp(app.clone())),
            Action::AddPdb {
                namespace,
                name,
                selector,
                min_available,
                max_unavailable,
            } => {
                let budget = match (min_available, max_unavailable) {
                    (Some(v), None) => Budget::MinAvailable(v.to_engine()?),
                    (None, Some(v)) => Budget::MaxUnavailable(v.to_engine()?),
                    _ => {
                        return Err(format!(
                            "PodDisruptionBudget {}: expected exactly one of minAvailable and maxUnavailable",
                            shepherd::limits::quoted(name)
                        ))
                    }
                };
                one(Event::AddPdb(PdbSpec {
                    name: key_of(namespace, name)?,
                    selector: Selector {
                        match_labels: selector.clone(),
                        ..Default::default()
                    },
                    budget,
                }))
            }
            Action::DeletePdb { name } => one(Event::DeletePdb(name.clone())),
            Action::AddService {
                namespace,
                name,
                selector,
            } => one(Event::AddService(ServiceSpec {
                name: key_of(namespace, name)?,
                selector: Selector {
                    match_labels: selector.clone(),
                    ..Default::default()
                },
            })),
            Action::DeleteService { name } => one(Event::DeleteService(name.clone())),
            Action::Evict { pod } => one(Event::Evict(pod.clone())),
            Action::TaintNode { node, taint } => one(Event::TaintNode {
                node: node.clone(),
                taint: Taint::new(&taint.key, &taint.value, effect(&taint.effect)?),
            }),
            Action::UntaintNode {
                node,
                key,
                effect: e,
            } => one(Event::UntaintNode {
                node: node.clone(),
                key: key.clone(),
                effect: match e.as_deref() {
                    None | Some("") => None,
                    Some(x) => Some(effect(x)?),
                },
            }),
            Action::AddNamespace { name, labels } => {
                one(Event::AddNamespace(shepherd::NamespaceSpec {
                    name: name.clone(),
                    labels: labels.clone(),
                }))
            }
            Action::FailZone { key, value } => one(Event::FailZone {
                key: key.clone(),
                value: value.clone(),
            }),
            Action::SetPolicy { policy } => one(Event::SetProfile(parse_policy(policy)?)),
            Action::SetProfile { profile } => one(Event::SetProfile(profile.to_engine()?)),
            Action::SetAutoscaler { autoscaler } => {
                one(Event::SetAutoscaler(Box::new(autoscaler.to_engine()?)))
            }
            Action::Generate {
                nodes,
                pods_per_node,
            } => generate(seed, *nodes, *pods_per_node),
            Action::Manifests { manifests } => crate::manifest_text::events(manifests),
            Action::Apply { manifests } => crate::manifest_text::apply_events(manifests),
            Action::AddPriorityClass {
                name,
                value,
                global_default,
                preemption_policy,
            } => one(Event::AddPriorityClass(
                PriorityClass::new(name, *value)
                    .with_global_default(*global_default)
                    .with_preemption_policy(
                        PreemptionPolicy::parse(preemption_policy).map_err(|e| e.to_string())?,
                    ),
            )),
            Action::DeletePriorityClass { name } => one(Event::DeletePriorityClass(name.clone())),
            Action::UpdateDaemonSet { manifests } => {
                crate::manifest_text::daemonset_update(manifests)
                    .map(|d| vec![Event::UpdateDaemonSet(d)])
            }
            Action::DeleteDaemonSet { name } => one(Event::DeleteDaemonSet(name.clone())),
            Action::DeletePod { name } => one(Event::DeletePod(name.clone())),
        }
    }
}

/// The names of the generated Deployments.
const GENERATED_APPS: [&str; 10] = [
    "web", "api", "cache", "worker", "db", "queue", "search", "auth", "ingest", "metrics",
];

/// `nodes` nodes named `node-1`.. across three zones, and ten Deployments
/// whose replicas add up to `nodes * pods_per_node`. Requests are small
/// (100m to 250m CPU) so that 30 pods per node use about half of an 8-CPU node.
pub fn generate(seed: u64, nodes: u32, pods_per_node: u32) -> Result<Vec<Event>, String> {
    if nodes == 0 || nodes > MAX_GENERATED_NODES {
        return Err(format!(
            "{nodes} nodes is out of range; expected 1 to {MAX_GENERATED_NODES}"
        ));
    }
    if pods_per_node > MAX_PODS_PER_NODE {
        return Err(format!(
            "{pods_per_node} pods per node is out of range; expected 0 to {MAX_PODS_PER_NODE} (Kubernetes' default limit)"
        ));
    }
    let total = nodes as u64 * pods_per_node as u64;
    if total > MAX_GENERATED_PODS {
        return Err(format!(
            "{nodes} nodes with {pods_per_node} pods each is {total} pods; expected at most {MAX_GENERATED_PODS} (twice Kubernetes' supported 150,000)"
        ));
    }
    // Derived from the seed, so that the script's other streams stay independent.
    let mut rng = Prng::new(seed ^ 0x5348_4550_4845_5244);
    let mut out = Vec::with_capacity(nodes as usize + GENERATED_APPS.len());
    const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];
    for i in 0..nodes {
        let (cpu, mem) = if rng.chance(20) {
            (16_000, 65_536)
        } else {
            (8_000, 32_768)
        };
        out.push(Event::AddNode(
            NodeSpec::new(&format!("node-{}", i + 1), cpu, mem * MIB)
                .with_label(ZONE_KEY, ZONES[i as usize % ZONES.len()]),
        ));
    }
    let apps = GENERATED_APPS.len() as u64;
    for (i, name) in GENERATED_APPS.iter().enumerate() {
        let replicas = total / apps + u64::from((i as u64) < total % apps);
        let cpu = [100, 125, 150, 200, 250][rng.below(5) as usize];
        let mem = [128, 256, 384, 512][rng.below(4) as usize];
        out.push(Event::Deploy(DeploymentSpec::new(
            name,
            replicas as u32,
            Resources::new(cpu, mem * MIB),
        )));
    }
    Ok(out)
}

/// The guided tour, the page's version of `shepherd demo`: nodes join, two
/// apps deploy (one spread across zones), they scale, a node dies and heals, a
/// rolling update, and a drain held back by a PodDisruptionBudget.
pub fn tour() -> Scenario {
    let s = shepherd::simulator::tour();
    let note = |tick: u64, text: &str| Note {
        tick,
        text: text.into(),
    };
    Scenario {
        version: SCENARIO_VERSION,
        seed: 1,
        policy: "binpack".into(),
        tick: Some(0),
        actions: s
            .iter()
            .map(|(tick, e)| Entry {
                tick: *tick,
                action: Action::from_event(e),
            })
            .collect(),
        notes: vec![
            note(0, "The guided tour. Press Step (or Play) to advance one tick at a time; the script below says what happens next."),
            note(1, "Five nodes register with the control plane. gpu-1 carries the taint dedicated=gpu:NoSchedule, so only pods that tolerate it may land there."),
            note(2, "Two Deployments arrive. The scheduler filters the nodes and bin-packs: web's pods fill node-1 first. cache has zone anti-affinity: at most one cache pod per zone."),
            note(3, "Pods become Ready one tick after they are bound; the Service web now lists them as endpoints."),
            note(4, "web scales to 8 and cache to 3. The third cache pod stays Pending: its anti-affinity allows one cache pod per zone and both zones already run one (gpu-1 is also tainted, and node-1 is full). Click it to see each node's verdict."),
            note(6, "node-1's kubelet stops. The control plane does not know yet: it waits for the node monitor grace period, 50 seconds in Kubernetes (one tick is one second). Skip jumps over quiet seconds."),
            note(57, "No heartbeat for 51 s: node-1 is NotReady and tainted node.kubernetes.io/unreachable. Its pods are marked not Ready (the Service drops them) but not deleted: each tolerates the taint for 300 s (DefaultTolerationSeconds) and shows the seconds left."),
            note(357, "300 s are up: the taint-eviction controller deletes node-1's pods (TaintManagerEviction) and the Deployments create replacements on the other nodes."),
            note(360, "node-1's kubelet is back; at its next heartbeat the node is Ready again, its taints go, and it takes new pods."),
            note(364, "A rolling update of web to v2, with maxSurge 1 and maxUnavailable 1: a few new pods at a time, old ones deleted as new ones become Ready."),
            note(372, "A PodDisruptionBudget allows at most one web pod to be unavailable. Draining node-2 evicts its pods only as fast as the budget allows: kubectl drain tries a refused pod again after 5 s."),
            note(382, "node-2 is uncordoned and schedulable again."),
            note(390, "A zone failure: every node labelled topology.kubernetes.io/zone=zone-a stops at once (node-1 and node-2; a node's dialog has Fail zone). Watch cache: its required anti-affinity allows one cache pod per zone."),
            note(441, "Both zone-a nodes are NotReady and tainted unreachable; their pods are marked not Ready and count down their 300 s, as node-1's did."),
            note(741, "zone-a's pods are evicted. web's replacements fit in zone-b, but cache's cannot: zone-b already runs a cache pod and the anti-affinity forbids a second, so two cache pods are Pending (click one: explain says why)."),
            note(745, "zone-a's kubelets are back: at their next heartbeat the nodes are Ready, and one Pending cache pod lands there; the third stays Pending as before, three replicas for two zones. That is the tour: try the controls on the right, or click any pod."),
        ],
    }
}

/// The default shape of an exported scenario with no actions.
pub fn empty(seed: u64, profile: &Profile) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        seed,
        policy: profile.scheduler_name.clone(),
        tick: Some(0),
        actions: Vec::new(),
        notes: Vec::new(),
    }
}

/// Checks what can be checked without running: the version, the seed and
/// policy, the limits on actions and captions, and the ticks' order. Every
/// action is then checked as it was submitted: see `Session::from_scenario`.
pub fn check(s: &Scenario) -> Result<(), String> {
    if s.version != SCENARIO_VERSION {
        return Err(format!(
            "scenario version {} is not supported; expected {SCENARIO_VERSION} (or 1, which is read as memory in MiB and upgraded)",
            s.version
        ));
    }
    crate::check::check_seed(s.seed as f64)?;
    parse_policy(&s.policy)?;
    if s.actions.len() > MAX_ACTIONS {
        return Err(format!(
            "the scenario has {} actions, more than the limit of {MAX_ACTIONS} (MAX_ACTIONS); expected at most {MAX_ACTIONS}",
            s.actions.len()
        ));
    }
    if s.notes.len() > MAX_NOTES {
        return Err(format!(
            "the scenario has {} captions, more than the limit of {MAX_NOTES}; expected at most {MAX_NOTES}",
            s.notes.len()
        ));
    }
    for (i, n) in s.notes.iter().enumerate() {
        let chars = n.text.chars().count();
        if chars > MAX_NOTE_CHARS {
            return Err(format!(
                "caption {} (tick {}) has {chars} characters, more than the limit of {MAX_NOTE_CHARS}; expected a shorter caption",
                i + 1,
                n.tick
            ));
        }
        if n.tick > MAX_TICK {
            return Err(format!(
                "caption {} is at tick {}; expected a tick from 0 to {MAX_TICK}",
                i + 1,
                n.tick
            ));
        }
    }
    let mut last = 0;
    for (i, e) in s.actions.iter().enumerate() {
        if e.tick == 0 || e.tick > MAX_TICK {
            return Err(format!(
                "action {} fires at tick {}; expected a tick from 1 to {MAX_TICK}",
                i + 1,
                e.tick
            ));
        }
        if e.tick < last {
            return Err(format!(
                "action {} fires at tick {}, before the action above it (tick {last}); expected actions in tick order",
                i + 1,
                e.tick
            ));
        }
        last = e.tick;
    }
    if let Some(t) = s.tick {
        if t > MAX_TICK {
            return Err(format!(
                "tick {t} is out of range; expected 0 to {MAX_TICK}"
            ));
        }
    }
    Ok(())
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

/// Where an action sits in a document, for messages: "action 3 (tick 5, addNode)".
pub fn action_place(index: usize, tick: Option<u64>, kind: Option<&str>) -> String {
    match (tick, kind) {
        (Some(t), Some(k)) => format!("action {} (tick {t}, {})", index + 1, shown(k)),
        (Some(t), None) => format!("action {} (tick {t})", index + 1),
        (None, Some(k)) => format!("action {} ({})", index + 1, shown(k)),
        (None, None) => format!("action {}", index + 1),
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn progress_deadline() -> u32 {
    shepherd::model::DEFAULT_PROGRESS_DEADLINE_SECONDS
}

fn is_default_deadline(n: &u32) -> bool {
    *n == shepherd::model::DEFAULT_PROGRESS_DEADLINE_SECONDS
}

fn shown(s: &str) -> String {
    shepherd::limits::shown(s)
}

/// What a field of the document holds, in words: for the fields whose unit
/// a person must know.
fn field_hint(field: &str) -> &'static str {
    match field {
        "cpu" => " (CPU in millicores: 4000 is 4 CPUs)",
        "memoryBytes" => " (memory in bytes: 8589934592 is 8Gi; a version-1 scenario's memory, in MiB, is read as this)",
        "replicas" => " (replicas, 0 to 1000000)",
        "tick" => " (the tick the action fires at)",
        "seed" => " (the seed)",
        "readyAfter" => " (ticks from binding to Ready)",
        "minReadySeconds" => {
            " (seconds a pod must be Ready to count as available, 0 to 2147483647)"
        }
        "progressDeadlineSeconds" => {
            " (seconds without progress before a rollout fails, 1 to 2147483647)"
        }
        "value" => " (the PriorityClass's priority: a whole number up to 1000000000)",
        "nodes" => " (nodes, 1 to 10000)",
        "podsPerNode" => " (pods per node, 0 to 110)",
        _ => "",
    }
}

/// A deserializer's complaint in a person's words: Rust's type names become
/// what a JSON document holds ("a whole number", "text"), and the value it
/// quotes is cut to a readable length.
pub fn plain_words(msg: &str) -> String {
    // serde_wasm_bindgen carries a JavaScript Error: "Error: missing field ...".
    let msg = msg.strip_prefix("Error: ").unwrap_or(msg);
    // serde_json appends a position; the field path says more.
    let msg = match msg.find(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    };
    let kind = |t: &str| -> String {
        let t = t.trim();
        match t {
            "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number from 0".into(),
            "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
            "f32" | "f64" => "a number".into(),
            "a string" | "string" => "text in quotes".into(),
            "a boolean" => "true or false".into(),
            "a map" | "map" => "an object {\"key\": \"value\", ...}".into(),
            "a sequence" | "sequence" => "a list [...]".into(),
            other => other.replace('`', ""),
        }
    };
    let got = |v: &str| -> String {
        let v = v.trim();
        if let Some(rest) = v.strip_prefix("string ") {
            let inner = rest.trim_matches('"');
            format!("the text {}", shepherd::limits::quoted(inner))
        } else if let Some(rest) = v
            .strip_prefix("floating point ")
            .or_else(|| v.strip_prefix("integer "))
        {
            format!("the number {}", shown(rest.trim_matches('`')))
        } else if v == "map" {
            "an object".into()
        } else if v == "sequence" {
            "a list".into()
        } else {
            shown(&v.replace('`', ""))
        }
    };
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            if let Some((v, exp)) = rest.rsplit_once(", expected ") {
                return format!("got {}; expected {}", got(v), kind(exp));
            }
        }
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        return format!(
            "the field {} is missing; expected it to be given",
            rest.replace('`', "")
        );
    }
    for (prefix, what) in [("unknown field ", "field"), ("unknown variant ", "type")] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            let (name, exp) = rest.split_once(", expected ").unwrap_or((rest, ""));
            let name = shown(&name.replace('`', ""));
            let exp = exp.replace('`', "");
            return if what == "type" {
                format!("\"{name}\" is not an action type; expected {exp}")
            } else if exp.is_empty() {
                format!("the field \"{name}\" is not known here")
            } else {
                format!("the field \"{name}\" is not known here; expected {exp}")
            };
        }
    }
    shown(msg)
}

/// A scalar of the raw document, for finding the field a complaint is about.
#[derive(Clone, Debug, PartialEq)]
pub enum RawValue {
    Text(String),
    Number(f64),
}

/// The field of `fields` (path, value) holding the value that `msg` quotes
/// (`invalid type: string "4000m", expected u64`). Needed because an action
/// is read through its `type` tag, and the deserializer's path stops at the
/// action.
fn locate(fields: &[(String, RawValue)], msg: &str) -> Option<String> {
    let quoted = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))?;
    let (v, _) = quoted.rsplit_once(", expected ")?;
    let want = if let Some(rest) = v.strip_prefix("string ") {
        let inner = rest.strip_prefix('"')?.strip_suffix('"')?;
        RawValue::Text(inner.replace("\\\"", "\"").replace("\\\\", "\\"))
    } else {
        let n = v
            .strip_prefix("floating point ")
            .or_else(|| v.strip_prefix("integer "))?
            .trim_matches('`');
        RawValue::Number(n.parse().ok()?)
    };
    fields
        .iter()
        .find(|(_, x)| *x == want)
        .map(|(p, _)| p.clone())
}

/// An import error: `path` is the deserializer's path to the wrong field
/// (`actions[2].action.cpu`), `tick` and `kind` what could be read of that
/// action, `fields` its scalar fields (path within the action, value). Says
/// which action, which field, what was there and what was expected.
pub fn import_error(
    path: &str,
    msg: &str,
    tick: Option<u64>,
    kind: Option<&str>,
    fields: &[(String, RawValue)],
) -> String {
    let words = plain_words(msg);
    let msg = msg.strip_prefix("Error: ").unwrap_or(msg);
    let msg = match msg.find(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    };
    // An unknown action type is named by the message itself; the place
    // does not repeat it.
    let kind = kind.filter(|_| !msg.starts_with("unknown variant "));
    let field_of = |p: &str| -> String {
        let last = p.rsplit('.').next().unwrap_or(p);
        format!("{}{}", shown(p), field_hint(last))
    };
    if let Some(rest) = path.strip_prefix("actions[") {
        if let Some((i, tail)) = rest.split_once(']') {
            if let Ok(i) = i.parse::<usize>() {
                let place = action_place(i, tick, kind);
                let tail = tail.trim_start_matches('.');
                let tail = tail.strip_prefix("action").unwrap_or(tail);
                let tail = tail.trim_start_matches('.');
                let found = if tail.is_empty() || tail == "?" {
                    locate(fields, msg)
                } else {
                    None
                };
                let tail = found.as_deref().unwrap_or(tail);
                return if tail.is_empty() || tail == "?" {
                    format!("the scenario's {place}: {words}")
                } else {
                    format!("the scenario's {place}, field {}: {words}", field_of(tail))
                };
            }
        }
    }
    if path.is_empty() || path == "." || path == "?" {
        format!("the scenario is not valid: {words}; expected {{version, seed, policy, tick, actions: [{{tick, action: {{type, ...}}}}]}}")
    } else {
        format!("the scenario's field {}: {words}", field_of(path))
    }
}
