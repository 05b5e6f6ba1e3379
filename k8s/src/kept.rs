//! The documents an import was given, kept so that an export writes each
//! imported object back as the user wrote it and changes only what the
//! simulation changed (issue 45: "export is lossless for what was imported").
//!
//! Each object the import turned into a declaration keeps its document,
//! stripped at once of what the API server sets (status, `metadata.uid`,
//! `resourceVersion`, `generation`, `creationTimestamp`, `managedFields`,
//! `selfLink`, `deletionTimestamp`, `deletionGracePeriodSeconds`), so that
//! `kubectl apply` takes it, with the declaration it imported to. An export
//! compares the declaration it writes with that one, field group by field
//! group, and writes the kept document with only the changed groups taken
//! from the engine's own rendering:
//!
//! | object | what the simulation may change | never changed (immutable in Kubernetes) |
//! | --- | --- | --- |
//! | Node | metadata.labels, spec.taints, spec.unschedulable, allocatable, the Ready condition | |
//! | Deployment | spec.replicas, spec.template, spec.strategy, minReadySeconds, progressDeadlineSeconds | spec.selector |
//! | ReplicaSet | spec.replicas, spec.template, minReadySeconds | spec.selector |
//! | StatefulSet | spec.replicas, spec.template, minReadySeconds | spec.selector, serviceName, volumeClaimTemplates, podManagementPolicy |
//! | DaemonSet | spec.template, spec.updateStrategy, minReadySeconds | spec.selector |
//! | Pod | spec.nodeName (a pod the import bound keeps it) | the rest of spec |
//! | ReplicaSet of a Deployment | spec.template, spec.replicas (as the simulation left it) | spec.selector |
//! | Pod of a controller | nothing: as given while it runs where it ran; else written anew from its owner's kept template | the whole spec |
//! | PodDisruptionBudget | spec.selector, minAvailable / maxUnavailable | |
//! | Service | spec.selector | clusterIP, ... (kept as given) |
//! | PriorityClass | globalDefault | value, preemptionPolicy |
//! | Namespace | metadata.labels | |
//! | ConfigMap of the kwok provider | the whole object, from the engine, when the autoscaler configuration changed | |
//! | NodePool (Karpenter), its instance types' ConfigMap | nothing: written as given | |
//!
//! The immutable fields are Kubernetes' own: `ValidateDeploymentUpdate`,
//! `ValidateReplicaSetUpdate` and `ValidateDaemonSetUpdate` in
//! pkg/apis/apps/validation/validation.go refuse a changed `spec.selector`
//! ("field is immutable"); `ValidateStatefulSetUpdate` allows a change to
//! replicas, ordinals, template, updateStrategy,
//! persistentVolumeClaimRetentionPolicy and minReadySeconds only
//! ("updates to statefulset spec for fields other than ... are forbidden");
//! `ValidatePodUpdate` in pkg/apis/core/validation/validation.go allows
//! only container images, activeDeadlineSeconds, added tolerations,
//! terminationGracePeriodSeconds and removed schedulingGates ("pod updates
//! may not change fields other than ..."), and nodeName is set once, by
//! the binding; `ValidatePriorityClassUpdate` keeps value and
//! preemptionPolicy. So a kept Pod's spec is written as given, whatever the
//! engine holds, and a selector always comes from the kept document.
//!
//! Memory: a kept document is the parsed tree of the object less the fields
//! above (managedFields and status are most of what kubectl prints for a
//! pod). The input is at most [`crate::Limits::max_bytes`] (64 MiB by
//! default) and the parser's budget counts each value as 32 bytes plus its
//! text, so the kept trees are bounded by that budget too (see the figure in
//! docs/ measured by the `kept_memory` test).

use std::borrow::Cow;
use std::collections::HashMap;

use shepherd::{
    BarePodSpec, DaemonSetSpec, DeploymentSpec, NamespaceSpec, NodeSpec, PdbSpec, PriorityClass,
    ServiceSpec,
};

use crate::value::Value;

/// Metadata keys the API server sets: dropped from a kept document.
pub(crate) const SERVER_SET_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

/// An engine declaration as the import made it from a document.
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    /// A Node: its spec, cordon and Ready condition (as `ImportedNode`).
    Node {
        spec: NodeSpec,
        unschedulable: bool,
        ready: bool,
    },
    /// A Deployment, or a ReplicaSet or StatefulSet simulated as one.
    App(DeploymentSpec),
    DaemonSet(DaemonSetSpec),
    Pod(BarePodSpec),
    Pdb(PdbSpec),
    Service(ServiceSpec),
    PriorityClass(PriorityClass),
    Namespace(NamespaceSpec),
    /// A ConfigMap the Cluster Autoscaler's kwok provider reads (its
    /// NAMESPACE/NAME), with the configuration the import read from them.
    AutoscalerConfigMap {
        name: String,
        config: Option<shepherd::autoscaler::AutoscalerConfig>,
    },
    /// A Deployment's ReplicaSet that the import kept as one of its
    /// revisions (`Scenario::running`), by its key and template, and
    /// `spec.replicas` when a simulation set it (`None`: as imported).
    ReplicaSet {
        name: String,
        template: shepherd::PodTemplate,
        replicas: Option<u32>,
    },
    /// A controller's pod as it ran (`Scenario::running`): its key and node.
    RunningPod {
        name: String,
        node: Option<String>,
    },
    /// An object the simulation reads but never changes (Karpenter's
    /// NodePools and the ConfigMap of their instance types): written back
    /// as given.
    Verbatim {
        space: &'static str,
        name: String,
    },
}

impl Decl {
    /// The space the declaration's name lives in, and its name.
    fn key(&self) -> (&'static str, &str) {
        match self {
            Decl::Node { spec, .. } => ("Node", &spec.name),
            Decl::App(d) => ("App", &d.name),
            Decl::DaemonSet(d) => ("DaemonSet", &d.name),
            Decl::Pod(p) => ("Pod", &p.name),
            Decl::Pdb(p) => ("PodDisruptionBudget", &p.name),
            Decl::Service(s) => ("Service", &s.name),
            Decl::PriorityClass(p) => ("PriorityClass", &p.name),
            Decl::Namespace(n) => ("Namespace", &n.name),
            Decl::AutoscalerConfigMap { name, .. } => ("ConfigMap", name),
            Decl::Verbatim { space, name } => (space, name),
            Decl::ReplicaSet { name, .. } => ("ReplicaSet", name),
            Decl::RunningPod { name, .. } => ("Pod", name),
        }
    }
}

/// One kept document and the declaration it imported to, as
/// [`Kept::get`] finds it.
#[derive(Clone, Debug)]
pub struct KeptDoc<'a> {
    pub doc: &'a Value,
    pub imported: Cow<'a, Decl>,
}

/// A kept document as the table holds it. A [`Decl`] is about 500 bytes
/// inline (its largest variants hold a whole pod template), and a dump is
/// mostly controllers' running pods: each of those is held by its node
/// alone (its name is the table's key), any other declaration boxed, so
/// the 150,000 pods of a 5,000-node dump take a few dozen bytes each in the
/// table rather than 560.
#[derive(Clone, Debug)]
struct Entry {
    doc: Value,
    imported: Stored,
}

#[derive(Clone, Debug)]
enum Stored {
    /// [`Decl::RunningPod`] without its name.
    Running {
        node: Option<String>,
    },
    Other(Box<Decl>),
}

impl Stored {
    /// The declaration, for the object `name`.
    fn decl(&self, name: &str) -> Cow<'_, Decl> {
        match self {
            Stored::Running { node } => Cow::Owned(Decl::RunningPod {
                name: name.to_string(),
                node: node.clone(),
            }),
            Stored::Other(d) => Cow::Borrowed(d),
        }
    }
}

/// The documents of an import, by declaration. Two scenarios that declare
/// the same objects are equal whatever documents they came from: equality
/// ignores this (the declarations are what the engine simulates).
#[derive(Clone, Default)]
pub struct Kept {
    docs: HashMap<(&'static str, String), Entry>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kept({} documents)", self.docs.len())
    }
}

impl PartialEq for Kept {
    fn eq(&self, _: &Kept) -> bool {
        true
    }
}
impl Eq for Kept {}

impl Kept {
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// About how many bytes the kept documents take on the heap: each
    /// value's 32 bytes, each map entry's key (24 bytes and its text), each
    /// string's text; the declarations and the table aside.
    pub fn doc_bytes(&self) -> usize {
        fn size(v: &Value) -> usize {
            32 + match v {
                Value::Str(s) => s.capacity(),
                Value::Seq(xs) => xs.iter().map(size).sum::<usize>(),
                Value::Map(m) => m.iter().map(|(k, x)| 24 + k.capacity() + size(x)).sum(),
                _ => 0,
            }
        }
        self.docs.values().map(|k| size(&k.doc)).sum()
    }

    /// Room for `n` more documents (an import keeps one per object).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.docs.reserve(n);
    }

    /// Keeps `doc` (stripped of what the server sets) for `decl`.
    pub fn keep(&mut self, mut doc: Value, decl: Decl) {
        strip(&mut doc);
        let space = decl.key().0;
        let (name, imported) = match decl {
            Decl::RunningPod { name, node } => (name, Stored::Running { node }),
            other => (other.key().1.to_string(), Stored::Other(Box::new(other))),
        };
        self.docs.insert((space, name), Entry { doc, imported });
    }

    /// Adds another import's documents; those of `other` win.
    pub fn merge(&mut self, other: Kept) {
        self.docs.extend(other.docs);
    }

    /// The documents kept as given ([`Decl::Verbatim`]) that `written`
    /// does not hold, by kind and name.
    pub(crate) fn verbatim(&self, written: &[(&'static str, String)]) -> Vec<&Value> {
        let mut out: Vec<(&(&'static str, String), &Value)> = self
            .docs
            .iter()
            .filter(|(k, d)| {
                matches!(&d.imported, Stored::Other(x) if matches!(**x, Decl::Verbatim { .. }))
                    && !written.contains(k)
            })
            .map(|(k, d)| (k, &d.doc))
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out.into_iter().map(|(_, v)| v).collect()
    }

    /// Whether a document is kept for the object `name` in `space`.
    pub(crate) fn holds(&self, space: &'static str, name: &str) -> bool {
        self.docs.contains_key(&(space, name.to_string()))
    }

    /// The kept `spec.template` of the object `name` in `space` (`App`, a
    /// Deployment or what is simulated as one; `DaemonSet`; `ReplicaSet`,
    /// a Deployment's) while `template` is still the template imported
    /// from it: the pod template as the user gave it (containers, images
    /// ...), which a pod its controller creates is made from.
    pub(crate) fn template_doc(
        &self,
        space: &'static str,
        name: &str,
        template: &shepherd::PodTemplate,
    ) -> Option<&Value> {
        let k = self.docs.get(&(space, name.to_string()))?;
        let Stored::Other(imported) = &k.imported else {
            return None;
        };
        let same = match &**imported {
            Decl::App(d) => &d.template == template,
            Decl::DaemonSet(d) => &d.template == template,
            Decl::ReplicaSet { template: t, .. } => t == template,
            _ => false,
        };
        if !same {
            return None;
        }
        k.doc.get("spec")?.get("template")
    }

    /// The kept document of the object `name` in `space`.
    pub(crate) fn doc(&self, space: &'static str, name: &str) -> Option<&Value> {
        self.docs.get(&(space, name.to_string())).map(|k| &k.doc)
    }

    pub(crate) fn get(&self, now: &Decl) -> Option<KeptDoc<'_>> {
        if self.docs.is_empty() {
            return None;
        }
        let (space, name) = now.key();
        let ((_, name), e) = self.docs.get_key_value(&(space, name.to_string()))?;
        Some(KeptDoc {
            doc: &e.doc,
            imported: e.imported.decl(name),
        })
    }
}

fn entries(v: &mut Value) -> Option<&mut Vec<(String, Value)>> {
    match v {
        Value::Map(m) => Some(m),
        _ => None,
    }
}

fn get_mut<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    entries(v)?
        .iter_mut()
        .find(|(k, _)| k == key)
        .map(|(_, x)| x)
}

fn remove(v: &mut Value, key: &str) {
    if let Some(m) = entries(v) {
        m.retain(|(k, _)| k != key);
    }
}

/// Sets `key` of the mapping `v` (in place when present, else at the end).
fn set(v: &mut Value, key: &str, x: Value) {
    if let Some(m) = entries(v) {
        match m.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = x,
            None => m.push((key.to_string(), x)),
        }
    }
}

/// The mapping at `key` of `v`, made when missing.
fn child_map<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    if get_mut(v, key).is_none() {
        set(v, key, Value::Map(Vec::new()));
    }
    get_mut(v, key).filter(|c| matches!(c, Value::Map(_)))
}

/// `keys` of `doc[at]` as the engine wrote them in `gen[at]` (removed when
/// the engine wrote none).
fn take(doc: &mut Value, gen: &Value, at: &str, keys: &[&str]) {
    let from = gen.get(at);
    let Some(to) = child_map(doc, at) else { return };
    for k in keys {
        match from.and_then(|f| f.get(k)) {
            Some(x) => set(to, k, x.clone()),
            None => remove(to, k),
        }
    }
}

/// Drops what the API server sets from a document: `status` (a Node keeps
/// its allocatable, capacity and the Ready condition, which a KWOK node
/// and the import read) and the server-set metadata.
pub fn strip(doc: &mut Value) {
    let is_node = doc.get("kind").and_then(Value::as_str) == Some("Node");
    if let Some(meta) = get_mut(doc, "metadata") {
        if let Some(m) = entries(meta) {
            m.retain(|(k, _)| !SERVER_SET_METADATA.contains(&k.as_str()));
        }
    }
    // Taken out, not copied: a pod's status is most of what kubectl prints.
    let status = entries(doc).and_then(|m| {
        let i = m.iter().position(|(k, _)| k == "status")?;
        let st = m.remove(i).1;
        m.retain(|(k, _)| k != "status");
        Some(st)
    });
    if let (true, Some(st)) = (is_node, status) {
        let mut kept = Vec::new();
        for k in ["allocatable", "capacity"] {
            if let Some(x) = st.get(k) {
                kept.push((k.to_string(), x.clone()));
            }
        }
        if let Some(Value::Seq(conds)) = st.get("conditions") {
            let ready: Vec<Value> = conds
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                .map(|c| {
                    Value::Map(vec![
                        ("type".into(), Value::Str("Ready".into())),
                        (
                            "status".into(),
                            c.get("status").cloned().unwrap_or(Value::Null),
                        ),
                    ])
                })
                .collect();
            if !ready.is_empty() {
                kept.push(("conditions".into(), Value::Seq(ready)));
            }
        }
        if !kept.is_empty() {
            set(doc, "status", Value::Map(kept));
        }
    }
}

/// The object to write for `now`, which the engine rendered as `gen`: the
/// kept document with the groups the simulation changed taken from `gen`,
/// or `gen` when the object was not imported (created in the simulation).
pub(crate) fn write(kept: &Kept, now: &Decl, gen: Value) -> Value {
    let Some(k) = kept.get(now) else { return gen };
    let mut doc = k.doc.clone();
    let kind = doc
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    match (&*k.imported, now) {
        (
            Decl::Node {
                spec: os,
                unschedulable: ou,
                ready: or,
            },
            Decl::Node {
                spec: cs,
                unschedulable: cu,
                ready: cr,
            },
        ) => {
            if os.labels != cs.labels {
                take(&mut doc, &gen, "metadata", &["labels"]);
            }
            if os.taints != cs.taints {
                take(&mut doc, &gen, "spec", &["taints"]);
            }
            if ou != cu {
                take(&mut doc, &gen, "spec", &["unschedulable"]);
            }
            if os.capacity != cs.capacity || os.max_pods != cs.max_pods {
                take(&mut doc, &gen, "status", &["allocatable", "capacity"]);
            }
            if or != cr {
                take(&mut doc, &gen, "status", &["conditions"]);
            }
        }
        (Decl::App(o), Decl::App(c)) => {
            if o.replicas != c.replicas {
                take(&mut doc, &gen, "spec", &["replicas"]);
            }
            if o.template != c.template {
                take(&mut doc, &gen, "spec", &["template"]);
            }
            if o.min_ready_seconds != c.min_ready_seconds {
                take(&mut doc, &gen, "spec", &["minReadySeconds"]);
            }
            if kind == "Deployment" {
                if o.strategy != c.strategy {
                    take(&mut doc, &gen, "spec", &["strategy"]);
                }
                if o.progress_deadline_seconds != c.progress_deadline_seconds {
                    take(&mut doc, &gen, "spec", &["progressDeadlineSeconds"]);
                }
            }
        }
        (Decl::DaemonSet(o), Decl::DaemonSet(c)) => {
            if o.template != c.template || o.host_network != c.host_network {
                take(&mut doc, &gen, "spec", &["template"]);
            }
            if o.strategy != c.strategy
                || o.max_unavailable != c.max_unavailable
                || o.max_surge != c.max_surge
            {
                take(&mut doc, &gen, "spec", &["updateStrategy"]);
            }
            if o.min_ready_seconds != c.min_ready_seconds {
                take(&mut doc, &gen, "spec", &["minReadySeconds"]);
            }
        }
        (Decl::Pod(o), Decl::Pod(c)) => {
            if o.node_name != c.node_name {
                take(&mut doc, &gen, "spec", &["nodeName"]);
            }
        }
        (Decl::Pdb(o), Decl::Pdb(c)) => {
            if o != c {
                take(
                    &mut doc,
                    &gen,
                    "spec",
                    &["selector", "minAvailable", "maxUnavailable"],
                );
            }
        }
        (Decl::Service(o), Decl::Service(c)) => {
            if o.selector != c.selector {
                take(&mut doc, &gen, "spec", &["selector"]);
            }
        }
        (Decl::PriorityClass(o), Decl::PriorityClass(c)) => {
            if o.global_default != c.global_default {
                match gen.get("globalDefault") {
                    Some(x) => set(&mut doc, "globalDefault", x.clone()),
                    None => remove(&mut doc, "globalDefault"),
                }
            }
        }
        (Decl::Namespace(o), Decl::Namespace(c)) => {
            if o.labels != c.labels {
                take(&mut doc, &gen, "metadata", &["labels"]);
            }
        }
        (
            Decl::AutoscalerConfigMap { config: o, .. },
            Decl::AutoscalerConfigMap { config: c, .. },
        ) => {
            if o != c {
                return gen;
            }
        }
        (
            Decl::ReplicaSet {
                template: o,
                replicas: or,
                ..
            },
            Decl::ReplicaSet {
                template: c,
                replicas: cr,
                ..
            },
        ) => {
            if o != c {
                take(&mut doc, &gen, "spec", &["template"]);
            }
            // The replicas the simulation gave it (an old ReplicaSet the
            // continued rollout scaled down), not the imported count.
            if cr.is_some() && cr != or {
                take(&mut doc, &gen, "spec", &["replicas"]);
            }
        }
        // A pod's spec is immutable but for its binding, made once.
        (Decl::RunningPod { node: o, .. }, Decl::RunningPod { node: c, .. }) => {
            if o != c {
                return gen;
            }
        }
        (Decl::Verbatim { .. }, _) => {}
        // A declaration of another kind under the same name: the object
        // was replaced in the simulation; written as the engine has it.
        _ => return gen,
    }
    doc
}
