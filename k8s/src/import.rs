//! Kubernetes objects to engine declarations.
//!
//! One function per kind and one per field group (`node_status`,
//! `pod_requests`, `tolerations`, `pod_affinity`, ...). Each walks its part of
//! the object key by key: a key is read, or known to change nothing the engine
//! simulates (`INERT`), or reported with a warning. Fields the engine cannot
//! represent yet (`not_simulated_yet`) are the places to wire when the model
//! grows: node affinity, preferred terms, topology spread, priority, the
//! pods capacity, DaemonSets, namespaces, scheduler configuration.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::read::{objects, RawObject};
use crate::scenario::{ImportedNode, Scenario, ANNOTATION_READY_AFTER, ANNOTATION_VERSION};
use crate::value::Value;
use crate::{ImportError, Imported, Location, Options, Summary, Warning};
use shepherd::limits::{MAX_ANNOTATION_BYTES, MAX_LIST, MAX_VALUES};
use shepherd::model::{
    LabelSelectorRequirement, NodeAffinity, NodeInclusionPolicy, NodeSelectorOperator,
    NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm, SelectorOperator,
    TopologySpreadConstraint, WeightedAffinityTerm, WhenUnsatisfiable, DEFAULT_MAX_PODS,
};
use shepherd::namespace::DEFAULT_NAMESPACE;
use shepherd::{
    AffinityTerm, BarePodSpec, Budget, DaemonSetSpec, DaemonSetUpdateStrategyType, DeploymentSpec,
    IntOrPercent, Labels, NamespaceSpec, NodeSpec, PdbSpec, PodTemplate, PreemptionPolicy,
    PriorityClass, Resources, RollingUpdate, Selector, ServiceSpec, Taint, TaintEffect, Toleration,
    TolerationOperator,
};
use shepherd::{Cluster, Scalars};

#[cfg(test)]
use crate::context::LOOKUPS;
pub(crate) use crate::context::{child, index, looked_up, Ctx, Map, R};
/// Imports with the default [`Options`] (namespace `default`, default limits).
pub fn import(text: &str) -> Result<Imported, ImportError> {
    import_with(text, &Options::default())
}

/// Imports `text` (YAML, JSON, or `kind: List`). All or nothing: on an error
/// nothing is returned but the error.
pub fn import_with(text: &str, opts: &Options) -> Result<Imported, ImportError> {
    import_with_progress(text, opts, &mut |_| {})
}

/// [`import_with`], telling `progress` how many bytes of a YAML stream have
/// been read (after each document; the page shows it for large inputs).
pub fn import_with_progress(
    text: &str,
    opts: &Options,
    progress: &mut dyn FnMut(usize),
) -> Result<Imported, ImportError> {
    import_checked(text, opts, progress).map(|(imported, _)| imported)
}

/// [`import_with_progress`], also giving the cluster the import's check built
/// from the scenario (equal to `scenario.to_cluster()`), so a caller that
/// runs the scenario as imported need not build it a second time.
pub fn import_checked(
    text: &str,
    opts: &Options,
    progress: &mut dyn FnMut(usize),
) -> Result<(Imported, Cluster), ImportError> {
    let objs = objects(text, &opts.limits, progress)?;
    let mut st = State::new(opts, &objs);
    // Each object's document is kept with the declaration it became
    // (crate::kept), so an export writes it back as the user gave it: the
    // declarations are noted here, the documents moved in at the end.
    let mut made = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        let mark = Mark::of(&st.scenario);
        st.object(o)?;
        if let Some(decl) = mark.added(&st.scenario).or_else(|| st.kept_owned.take()) {
            made.push((i, decl));
        }
    }
    let (mut imported, cluster) = st.finish(objs.len())?;
    imported.scenario.autoscaler = crate::autoscaling::read(
        &objs,
        &imported.scenario,
        &opts.limits,
        &mut imported.warnings,
        &import,
    )?;
    imported.scenario.node_pools =
        crate::autoscaling::read_karpenter(&objs, &opts.limits, &import)?;
    // The autoscaler's ConfigMaps are written back from their documents
    // while the configuration read from them is unchanged.
    if imported.scenario.autoscaler.is_some() {
        for (i, o) in objs.iter().enumerate() {
            if o.loc.kind == "ConfigMap" {
                let ns = namespace_of(&o.value).unwrap_or(DEFAULT_NAMESPACE);
                made.push((
                    i,
                    crate::kept::Decl::AutoscalerConfigMap {
                        name: shepherd::namespace::qualify(ns, &o.loc.name),
                        config: imported.scenario.autoscaler.clone(),
                    },
                ));
            }
        }
    }
    // Karpenter's NodePools and their instance types are read, never
    // changed: written back as given.
    if !imported.scenario.node_pools.is_empty() {
        for (i, o) in objs.iter().enumerate() {
            let space = match o.loc.kind.as_str() {
                "NodePool" => "NodePool",
                "ConfigMap" => "ConfigMap",
                _ => continue,
            };
            if made.iter().any(|(j, _)| *j == i) {
                continue;
            }
            let ns = namespace_of(&o.value).unwrap_or(DEFAULT_NAMESPACE);
            let name = if space == "NodePool" {
                o.loc.name.clone()
            } else {
                shepherd::namespace::qualify(ns, &o.loc.name)
            };
            made.push((i, crate::kept::Decl::Verbatim { space, name }));
        }
    }
    let mut objs = objs;
    imported.scenario.kept.reserve(made.len());
    for (i, decl) in made {
        let doc = std::mem::replace(&mut objs[i].value, crate::value::Value::Null);
        imported.scenario.kept.keep(doc, decl);
    }
    Ok((imported, cluster))
}

/// `metadata.annotations["deployment.kubernetes.io/revision"]`, or 0.
fn revision_of(meta: &Map) -> u64 {
    meta.iter()
        .find(|(k, _)| k == "annotations")
        .and_then(|(_, a)| a.get("deployment.kubernetes.io/revision"))
        .and_then(Value::as_str)
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

/// `metadata.name` as written, or empty.
fn name_of_meta(meta: &Map) -> String {
    meta.iter()
        .find(|(k, _)| k == "name")
        .and_then(|(_, v)| v.as_str())
        .unwrap_or("")
        .to_string()
}

/// How many declarations of each kind a scenario holds: taken before an
/// object is read, so the one it added is found after.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Mark([usize; 8]);

impl Mark {
    fn of(sc: &Scenario) -> Mark {
        Mark([
            sc.nodes.len(),
            sc.deployments.len(),
            sc.daemonsets.len(),
            sc.pods.len(),
            sc.pdbs.len(),
            sc.services.len(),
            sc.priority_classes.len(),
            sc.namespaces.len(),
        ])
    }

    /// The declaration added since `self` was taken, if one was.
    fn added(self, sc: &Scenario) -> Option<crate::kept::Decl> {
        let now = Mark::of(sc).0;
        let grew = |i: usize| now[i] > self.0[i];
        if grew(0) {
            return sc.nodes.last().map(node_decl);
        }
        if grew(1) {
            return sc.deployments.last().cloned().map(crate::kept::Decl::App);
        }
        if grew(2) {
            return sc
                .daemonsets
                .last()
                .cloned()
                .map(crate::kept::Decl::DaemonSet);
        }
        if grew(3) {
            return sc.pods.last().cloned().map(crate::kept::Decl::Pod);
        }
        if grew(4) {
            return sc.pdbs.last().cloned().map(crate::kept::Decl::Pdb);
        }
        if grew(5) {
            return sc.services.last().cloned().map(crate::kept::Decl::Service);
        }
        if grew(6) {
            return sc
                .priority_classes
                .last()
                .cloned()
                .map(crate::kept::Decl::PriorityClass);
        }
        if grew(7) {
            return sc
                .namespaces
                .last()
                .cloned()
                .map(crate::kept::Decl::Namespace);
        }
        None
    }
}

/// A node's declaration for [`crate::kept`].
pub(crate) fn node_decl(n: &ImportedNode) -> crate::kept::Decl {
    crate::kept::Decl::Node {
        spec: n.spec.clone(),
        unschedulable: n.unschedulable,
        ready: n.ready,
    }
}

/// Metadata keys a cluster adds that change nothing simulated.
const INERT_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
    "finalizers",
    "generateName",
];

/// Pod spec keys that change nothing the scheduler or the controllers decide here.
const INERT_POD_SPEC: &[&str] = &[
    "restartPolicy",
    "dnsPolicy",
    "dnsConfig",
    "terminationGracePeriodSeconds",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "enableServiceLinks",
    "activeDeadlineSeconds",
    "shareProcessNamespace",
    "hostPID",
    "hostIPC",
    "readinessGates",
    "os",
    "hostAliases",
    "setHostnameAsFQDN",
    "hostUsers",
];

/// Container keys that change nothing simulated.
const INERT_CONTAINER: &[&str] = &[
    "name",
    "image",
    "command",
    "args",
    "env",
    "envFrom",
    "workingDir",
    "imagePullPolicy",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "resizePolicy",
    "volumeMounts",
    "volumeDevices",
];

/// Pod-level requests after Kubernetes' rule, in millicores and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Req {
    cpu: u64,
    mem: u64,
}

impl Req {
    fn add(self, o: Req) -> Req {
        Req {
            cpu: self.cpu.saturating_add(o.cpu),
            mem: self.mem.saturating_add(o.mem),
        }
    }
    fn max(self, o: Req) -> Req {
        Req {
            cpu: self.cpu.max(o.cpu),
            mem: self.mem.max(o.mem),
        }
    }
}

/// An app (Deployment, ReplicaSet, StatefulSet) seen so far, for duplicates.
struct Seen {
    loc: Location,
}

/// A ReplicaSet a Deployment in the input owns: one of its revisions.
struct OwnedReplicaSet {
    /// The Deployment's key.
    deployment: String,
    /// `deployment.kubernetes.io/revision` (0 when absent).
    revision: u64,
    /// `pod-template-hash`: from its labels, else its template's.
    hash: String,
    /// Its template without the `pod-template-hash` label.
    template: PodTemplate,
}

/// A controller's kind, namespace, name and `spec.selector`.
type OwnerSelector = (String, String, String, Selector);

/// A pod a controller in the input owns: it runs (or waits) as it is.
struct OwnedPod {
    loc: Location,
    /// Its key (`NAMESPACE/NAME` outside `default`).
    name: String,
    /// Its owner's kind and key.
    kind: String,
    owner: String,
    node: Option<String>,
    /// Its Ready condition is not False.
    ready: bool,
}

struct State<'a> {
    opts: &'a Options,
    scenario: Scenario,
    warnings: Vec<Warning>,
    imported: BTreeMap<String, usize>,
    skipped: BTreeMap<String, usize>,
    owned: usize,
    nodes: HashMap<String, Seen>,
    apps: HashMap<String, Seen>,
    pdbs: HashMap<String, Seen>,
    services: HashMap<String, Seen>,
    priority_classes: HashMap<String, Seen>,
    /// The Namespace objects read so far.
    namespaces: HashMap<String, Seen>,
    /// (kind, namespace, name) of every object in the input, so a Pod's owner
    /// can be looked up.
    present: HashSet<(&'a str, &'a str, &'a str)>,
    /// ReplicaSets skipped because a Deployment owns them: their pods belong
    /// to that Deployment.
    owned_replicasets: HashSet<(String, String)>,
    /// Those ReplicaSets by key, as the Deployment's revisions.
    replica_sets: HashMap<String, OwnedReplicaSet>,
    /// The pods of the controllers in the input, in input order.
    owned_pods: Vec<OwnedPod>,
    /// Each Deployment's `deployment.kubernetes.io/revision`: its new
    /// ReplicaSet's.
    deployment_revisions: HashMap<String, u64>,
    /// The declaration an owned ReplicaSet or pod just read keeps its
    /// document under (`crate::kept`).
    kept_owned: Option<crate::kept::Decl>,
    /// Pods skipped because they are terminating, or have finished.
    terminating: usize,
    finished: usize,
    /// Where the KubeSchedulerConfiguration came from, once one is read.
    scheduler_config: Option<Location>,
    /// The selector of every Deployment, DaemonSet and StatefulSet in the
    /// input (kind, namespace, name, selector), in input order, for
    /// adoption by selector.
    selectors: Vec<OwnerSelector>,
    /// The bare Pods that run on their node already (Ready, key, node).
    running_bare: Vec<(bool, String, String)>,
    /// The keys of the StatefulSets imported (simulated as Deployments):
    /// their controllers name the pods they make by index.
    statefulsets: HashSet<String>,
    /// (namespace, name) of the Deployments a ReplicaSet in the input
    /// belongs to (by ownerReference, else by its name `<deployment>-<hash>`).
    with_replica_sets: HashSet<(String, String)>,
}

fn owner_refs(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(Value::Seq(refs)) = v.get("metadata").and_then(|m| m.get("ownerReferences")) {
        for r in refs {
            if let (Some(k), Some(n)) = (
                r.get("kind").and_then(Value::as_str),
                r.get("name").and_then(Value::as_str),
            ) {
                out.push((k.to_string(), n.to_string()));
            }
        }
    }
    out
}

/// Kinds without a namespace (Nodes, Namespaces, PriorityClasses ...).
fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Node"
            | "Namespace"
            | "PriorityClass"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "CustomResourceDefinition"
            | "PersistentVolume"
            | "StorageClass"
            | "KubeSchedulerConfiguration"
    )
}

fn namespace_of(v: &Value) -> Option<&str> {
    v.get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
}

impl<'a> State<'a> {
    fn new(opts: &'a Options, objs: &'a [RawObject]) -> Self {
        let mut present = HashSet::with_capacity(objs.len());
        let mut selectors = Vec::new();
        let mut with_replica_sets = HashSet::new();
        for o in objs {
            let ns = namespace_of(&o.value)
                .unwrap_or(DEFAULT_NAMESPACE)
                .to_string();
            if matches!(
                o.loc.kind.as_str(),
                "Deployment" | "DaemonSet" | "StatefulSet"
            ) {
                // The whole selector, matchExpressions too; one that does
                // not read is refused with its object later.
                if let Some(v) = o.value.get("spec").and_then(|s| s.get("selector")) {
                    let mut sink = Vec::new();
                    let mut cx = Ctx {
                        loc: &o.loc,
                        warnings: &mut sink,
                        ns: &ns,
                    };
                    if let Ok(sel) = label_selector(&mut cx, v, "spec.selector") {
                        // An empty selector selects every pod: Kubernetes
                        // refuses it for these kinds (and so does the import).
                        if !sel.is_empty() {
                            selectors.push((
                                o.loc.kind.clone(),
                                ns.clone(),
                                o.loc.name.clone(),
                                sel,
                            ));
                        }
                    }
                }
            }
            if o.loc.kind == "ReplicaSet" {
                let dep = owner_refs(&o.value)
                    .into_iter()
                    .find(|(k, _)| k == "Deployment")
                    .map(|(_, n)| n)
                    .or_else(|| o.loc.name.rsplit_once('-').map(|(d, _)| d.to_string()));
                if let Some(d) = dep {
                    with_replica_sets.insert((ns.clone(), d));
                }
            }
            // Borrowed from the objects: 165,000 names are not copied.
            let space = namespace_of(&o.value).unwrap_or(DEFAULT_NAMESPACE);
            present.insert((o.loc.kind.as_str(), space, o.loc.name.as_str()));
        }
        State {
            opts,
            scenario: Scenario::default(),
            warnings: Vec::new(),
            imported: BTreeMap::new(),
            skipped: BTreeMap::new(),
            owned: 0,
            nodes: HashMap::new(),
            apps: HashMap::new(),
            pdbs: HashMap::new(),
            services: HashMap::new(),
            priority_classes: HashMap::new(),
            namespaces: HashMap::new(),
            present,
            owned_replicasets: HashSet::new(),
            replica_sets: HashMap::new(),
            owned_pods: Vec::new(),
            deployment_revisions: HashMap::new(),
            kept_owned: None,
            terminating: 0,
            finished: 0,
            scheduler_config: None,
            selectors,
            with_replica_sets,
            statefulsets: HashSet::new(),
            running_bare: Vec::new(),
        }
    }

    /// The owners of object `v` (a `what`: Pod or ReplicaSet): its
    /// ownerReferences, or, lacking any, the controller in the input that
    /// adopts it by its selector, as Kubernetes' controllers adopt orphans
    /// (pkg/controller/controller_ref_manager.go, ClaimPods and
    /// ClaimReplicaSets): a Deployment's ReplicaSet and its pods carry the
    /// `pod-template-hash` label (a pod is its ReplicaSet's, which must be
    /// in the input); a DaemonSet's or StatefulSet's pod matches its
    /// selector. With several candidates, the first in the input.
    fn owners_of(&self, v: &Value, what: &str) -> Vec<(String, String)> {
        let refs = owner_refs(v);
        if !refs.is_empty() || self.selectors.is_empty() {
            return refs;
        }
        let Some(Value::Map(labels)) = v.get("metadata").and_then(|m| m.get("labels")) else {
            return refs;
        };
        let ns = namespace_of(v).unwrap_or(DEFAULT_NAMESPACE);
        // Its labels as a label set: matchLabels and matchExpressions (In,
        // NotIn, Exists, DoesNotExist) match them as Kubernetes' label
        // selector does (apimachinery pkg/labels/selector.go,
        // Requirement.Matches: NotIn and DoesNotExist hold for a missing
        // label), every requirement at once.
        let set: Labels = labels
            .iter()
            .filter_map(|(k, x)| Some((k.clone(), x.as_str()?.to_string())))
            .collect();
        let hash = set
            .get(shepherd::model::POD_TEMPLATE_HASH)
            .map(String::as_str);
        for (kind, sns, name, sel) in &self.selectors {
            if sns != ns || !sel.matches(&set) {
                continue;
            }
            match (kind.as_str(), what, hash) {
                ("Deployment", "ReplicaSet", Some(_)) => {
                    return vec![(kind.clone(), name.clone())];
                }
                ("Deployment", "Pod", Some(h)) => {
                    let rs = format!("{name}-{h}");
                    if self.present.contains(&("ReplicaSet", ns, rs.as_str())) {
                        return vec![("ReplicaSet".into(), rs)];
                    }
                }
                ("DaemonSet" | "StatefulSet", "Pod", _) => {
                    return vec![(kind.clone(), name.clone())];
                }
                // A Deployment without ReplicaSets in the input (a
                // StatefulSet or ReplicaSet as Shepherd's export writes
                // it): its pods are its own.
                ("Deployment", "Pod", None)
                    if !self
                        .with_replica_sets
                        .contains(&(ns.to_string(), name.clone())) =>
                {
                    return vec![(kind.clone(), name.clone())];
                }
                _ => {}
            }
        }
        refs
    }

    fn finish(mut self, objects: usize) -> R<(Imported, Cluster)> {
        // Every namespace an object is in exists: one without a Namespace
        // object in the input is declared with no labels, after the declared
        // ones (so an export writes a Namespace for it and kubectl apply
        // takes the objects in it).
        // One pass over the objects, each namespace looked up in a set: an
        // input of 100,000 Namespaces once took 52 s here, scanning the list
        // of declared ones for every object.
        let mut used: Vec<String> = Vec::new();
        {
            let sc = &self.scenario;
            let mut known: HashSet<&str> = sc.namespaces.iter().map(|n| n.name.as_str()).collect();
            let keys = sc
                .deployments
                .iter()
                .map(|d| &d.name)
                .chain(sc.daemonsets.iter().map(|d| &d.name))
                .chain(sc.pods.iter().map(|p| &p.name))
                .chain(sc.pdbs.iter().map(|p| &p.name))
                .chain(sc.services.iter().map(|s| &s.name));
            for k in keys {
                let ns = shepherd::namespace::split(k).0;
                looked_up();
                if ns != DEFAULT_NAMESPACE && known.insert(ns) {
                    used.push(ns.to_string());
                }
            }
        }
        self.scenario
            .namespaces
            .extend(used.iter().map(|n| NamespaceSpec::new(n)));
        self.running_pods();
        // The engine's own checks, all at once, so a cross-object refusal is
        // still an import error rather than a half-built cluster later.
        // The cluster built here is the run's (import_checked).
        let cluster = match self.scenario.to_cluster() {
            Ok(c) => c,
            Err(e) => {
                return Err(ImportError {
                    loc: Location {
                        document: 0,
                        item: None,
                        kind: String::new(),
                        name: String::new(),
                    },
                    path: String::new(),
                    message: format!("the engine refused the scenario: {e}"),
                })
            }
        };
        let running = self.scenario.running.iter().map(|r| r.pods.len()).sum();
        let imported = Imported {
            scenario: self.scenario,
            warnings: self.warnings,
            summary: Summary {
                objects,
                imported: self.imported.into_iter().collect(),
                skipped: self.skipped.into_iter().collect(),
                owned: self.owned,
                running,
                terminating: self.terminating,
                finished: self.finished,
            },
        };
        Ok((imported, cluster))
    }

    fn skip(&mut self, kind: &str) {
        *self.skipped.entry(kind.to_string()).or_default() += 1;
    }

    fn took(&mut self, kind: &str) {
        *self.imported.entry(kind.to_string()).or_default() += 1;
    }

    fn object(&mut self, o: &RawObject) -> R<()> {
        let loc = &o.loc;
        let mut warnings = std::mem::take(&mut self.warnings);
        // The object's namespace, checked in object_in; a wrong one is
        // refused there before anything is named with it.
        let ns = match o.value.get("metadata").and_then(|m| m.get("namespace")) {
            Some(Value::Str(s)) if !s.is_empty() && !cluster_scoped(&loc.kind) => s.clone(),
            _ => DEFAULT_NAMESPACE.to_string(),
        };
        let r = self.object_in(
            o,
            &mut Ctx {
                loc,
                warnings: &mut warnings,
                ns: &ns,
            },
        );
        self.warnings = warnings;
        r
    }

    fn object_in(&mut self, o: &RawObject, cx: &mut Ctx) -> R<()> {
        let v = &o.value;
        let top = match v {
            Value::Map(m) => m,
            other => {
                return Err(cx.wrong(
                    "",
                    other,
                    "a Kubernetes object (a mapping with apiVersion and kind)",
                ))
            }
        };
        let kind = match v.get("kind") {
            Some(k) => cx.string(k, "kind")?,
            None => {
                return Err(cx.err(
                    "kind",
                    "missing; expected the object's kind, e.g. Deployment",
                ))
            }
        };
        let api = match v.get("apiVersion") {
            Some(a) => cx.string(a, "apiVersion")?,
            None => return Err(cx.err("apiVersion", "missing; expected e.g. apps/v1 or v1")),
        };
        let want = match kind {
            "Node" | "Service" | "Pod" | "Namespace" => Some("v1"),
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => Some("apps/v1"),
            "PodDisruptionBudget" => Some("policy/v1"),
            "PriorityClass" => Some("scheduling.k8s.io/v1"),
            "KubeSchedulerConfiguration" => Some("kubescheduler.config.k8s.io/v1"),
            _ => None,
        };
        if let Some(w) = want {
            if api != w {
                return Err(cx.err(
                    "apiVersion",
                    format!("found {api:?}; expected {w:?} for a {kind} (the version Kubernetes serves today)"),
                ));
            }
        }
        let namespaced = !cluster_scoped(kind);
        let meta = cx.map(v.get("metadata").unwrap_or(&Value::Null), "metadata")?;
        if namespaced {
            if let Some((_, ns)) = meta.iter().find(|(k, _)| k == "namespace") {
                let ns = cx.string(ns, "metadata.namespace")?;
                if !ns.is_empty() {
                    shepherd::namespace::validate_namespace(ns)
                        .map_err(|e| cx.err("metadata.namespace", e.to_string()))?;
                }
            }
            if let Some(only) = &self.opts.namespace {
                if cx.ns != only {
                    cx.warn(
                        "metadata.namespace",
                        format!(
                            "namespace {:?}: this import takes namespace {only:?} alone (--namespace); the object is skipped",
                            cx.ns
                        ),
                    );
                    self.skip(kind);
                    return Ok(());
                }
            }
        } else if let Some((_, ns)) = meta.iter().find(|(k, _)| k == "namespace") {
            if !matches!(ns, Value::Null) && !cx.string(ns, "metadata.namespace")?.is_empty() {
                cx.warn(
                    "metadata.namespace",
                    format!("a {kind} is cluster-scoped; the namespace is ignored"),
                );
            }
        }
        if matches!(
            kind,
            "Node"
                | "Deployment"
                | "ReplicaSet"
                | "StatefulSet"
                | "DaemonSet"
                | "Pod"
                | "PodDisruptionBudget"
                | "Service"
        ) {
            for (k, _) in top.iter() {
                if !matches!(
                    k.as_str(),
                    "apiVersion" | "kind" | "metadata" | "spec" | "status"
                ) {
                    cx.unknown(&child("", k));
                }
            }
        }
        let spec = v.get("spec").unwrap_or(&Value::Null);
        let status = v.get("status").unwrap_or(&Value::Null);
        match kind {
            "Node" => self.node(cx, meta, spec, status),
            "Deployment" | "ReplicaSet" | "StatefulSet" => self.app(cx, kind, v, meta, spec),
            "PodDisruptionBudget" => self.pdb(cx, meta, spec),
            "Service" => self.service(cx, meta, spec),
            "Pod" => self.pod(cx, v, meta, spec, status),
            "DaemonSet" => self.daemonset(cx, meta, spec),
            "PriorityClass" => self.priority_class(cx, top, meta),
            "Namespace" => self.namespace(cx, top, meta),
            "NodePool" => {
                // Karpenter's, read with its instance types (autoscaling.rs).
                self.took(kind);
                Ok(())
            }
            "ConfigMap" if crate::autoscaling::is_autoscaler_configmap(&name_of_meta(meta)) => {
                // Read with the whole input once every Node is known
                // (autoscaling.rs).
                self.took(kind);
                Ok(())
            }
            "KubeSchedulerConfiguration" => {
                if let Some(prev) = &self.scheduler_config {
                    return Err(cx.err("", format!("a second KubeSchedulerConfiguration (the first is {prev}); expected one, as kube-scheduler reads one --config file")));
                }
                self.scenario.profile = Some(crate::scheduler_config::profile(cx, top)?);
                self.scheduler_config = Some(cx.loc.clone());
                self.took(kind);
                Ok(())
            }
            _ => {
                cx.warn(
                    "",
                    format!("kind {kind} is not simulated; the object is skipped"),
                );
                self.skip(kind);
                Ok(())
            }
        }
    }

    /// `metadata`: the name (required), labels, and ownerReferences; every
    /// other key is noise a cluster adds, or warned about.
    fn metadata(&self, cx: &mut Ctx, meta: &Map, labels_matter: bool) -> R<(String, Labels)> {
        let mut name = None;
        let mut labels = Labels::new();
        for (k, v) in meta {
            let p = child("metadata", k);
            match k.as_str() {
                // The key of a namespaced object: NAMESPACE/NAME outside
                // the namespace default (cx.ns is default for the others).
                "name" => name = Some(shepherd::namespace::qualify(cx.ns, cx.string(v, &p)?)),
                "namespace" | "ownerReferences" => {}
                "labels" if labels_matter => labels = cx.labels(v, &p)?,
                "labels" => {
                    // Not kept: read as strings only (Kubernetes sets no count).
                    for (lk, lv) in cx.map(v, &p)? {
                        cx.string(lv, &child(&p, lk))?;
                    }
                }
                "annotations" => annotations(cx, v, &p)?,
                k if INERT_METADATA.contains(&k) => {}
                "deletionTimestamp" | "deletionGracePeriodSeconds" => {
                    cx.warn(&p, "the object is being deleted; simulated as if it stays");
                }
                _ => cx.unknown(&p),
            }
        }
        match name {
            Some(n) => Ok((n, labels)),
            None => Err(cx.err("metadata.name", "missing; expected the object's name")),
        }
    }

    fn first_seen(&self, cx: &Ctx, seen: &HashMap<String, Seen>, what: &str, name: &str) -> R<()> {
        looked_up();
        if let Some(prev) = seen.get(name) {
            return Err(cx.err(
                "metadata.name",
                format!(
                    "{what} {name:?} is already declared by {}; expected each name once",
                    prev.loc
                ),
            ));
        }
        Ok(())
    }

    fn engine<T>(&self, cx: &Ctx, r: Result<T, shepherd::Error>) -> R<T> {
        r.map_err(|e| cx.err("", format!("the engine refused it: {e}")))
    }

    // ----- PriorityClass -----------------------------------------------------

    /// scheduling.k8s.io/v1 PriorityClass: value (int32, required),
    /// globalDefault, preemptionPolicy; its fields sit at the top level, not
    /// under spec. The two system classes exist in every cluster (and in
    /// `kubectl get priorityclasses -o yaml`): one of them as Kubernetes
    /// defines it is taken as already there.
    fn priority_class(&mut self, cx: &mut Ctx, top: &Map, meta: &Map) -> R<()> {
        let (name, _) = self.metadata(cx, meta, false)?;
        let mut value = None;
        let mut pc = PriorityClass::new(&name, 0);
        for (k, val) in top {
            let p = child("", k);
            match k.as_str() {
                "apiVersion" | "kind" | "metadata" | "description" => {}
                "value" => {
                    value = Some(match val {
                        Value::Int(i) if i32::try_from(*i).is_ok() => *i as i32,
                        Value::UInt(u) if i32::try_from(*u).is_ok() => *u as i32,
                        other => return Err(cx.wrong(&p, other, "a whole number from -2147483648 to 1000000000 (an int32; user classes at most 1000000000)")),
                    })
                }
                "globalDefault" => pc.global_default = cx.boolean(val, &p)?,
                "preemptionPolicy" => {
                    let text = cx.string(val, &p)?;
                    pc.preemption_policy = PreemptionPolicy::parse(text).map_err(|_| {
                        cx.wrong(&p, val, "PreemptLowerPriority or Never")
                    })?;
                }
                _ => cx.unknown(&p),
            }
        }
        let Some(value) = value else {
            return Err(cx.err(
                "value",
                "missing; expected the class's priority, a whole number (scheduling.k8s.io/v1 requires it)",
            ));
        };
        pc.value = value;
        if let Some(sys) = PriorityClass::system().into_iter().find(|c| c.name == name) {
            if sys.value == pc.value && !pc.global_default {
                self.skip("PriorityClass");
                return Ok(());
            }
            return Err(cx.err(
                "value",
                format!(
                    "{name} is a system class with value {} and no globalDefault in every cluster; expected it as it is, or another name",
                    sys.value
                ),
            ));
        }
        self.first_seen(cx, &self.priority_classes, "PriorityClass", &name)?;
        self.engine(cx, pc.validate())?;
        if pc.global_default {
            if let Some(d) = self
                .scenario
                .priority_classes
                .iter()
                .find(|c| c.global_default)
            {
                let prev = &self.priority_classes[&d.name].loc;
                return Err(cx.err(
                    "globalDefault",
                    format!("true, but PriorityClass {:?} ({prev}) is already the globalDefault; expected one default at most, as Kubernetes allows", d.name),
                ));
            }
        }
        self.priority_classes.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.priority_classes.push(pc);
        self.took("PriorityClass");
        Ok(())
    }

    // ----- Namespace ----------------------------------------------------------

    /// v1 Namespace: its name and labels (what namespaceSelectors read);
    /// `kubernetes.io/metadata.name` is every Namespace's own and not kept.
    /// With `--namespace`, only that one is taken.
    fn namespace(&mut self, cx: &mut Ctx, top: &Map, meta: &Map) -> R<()> {
        let (name, mut labels) = self.metadata(cx, meta, true)?;
        for (k, _) in top {
            if !matches!(
                k.as_str(),
                "apiVersion" | "kind" | "metadata" | "spec" | "status"
            ) {
                cx.unknown(&child("", k));
            }
        }
        if let Some(only) = &self.opts.namespace {
            if &name != only {
                cx.warn(
                    "metadata.name",
                    format!("this import takes namespace {only:?} alone (--namespace); the Namespace is skipped"),
                );
                self.skip("Namespace");
                return Ok(());
            }
        }
        self.first_seen(cx, &self.namespaces, "Namespace", &name)?;
        if labels.get(shepherd::namespace::NAMESPACE_NAME_LABEL) == Some(&name) {
            labels.remove(shepherd::namespace::NAMESPACE_NAME_LABEL);
        }
        let n = NamespaceSpec {
            name: name.clone(),
            labels,
        };
        self.engine(cx, n.validate())?;
        self.namespaces.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.namespaces.push(n);
        self.took("Namespace");
        Ok(())
    }

    // ----- Node -------------------------------------------------------------

    fn node(&mut self, cx: &mut Ctx, meta: &Map, spec: &Value, status: &Value) -> R<()> {
        let (name, labels) = self.metadata(cx, meta, true)?;
        self.first_seen(cx, &self.nodes, "Node", &name)?;
        let (unschedulable, taints) = node_spec(cx, spec)?;
        let (capacity, max_pods, ready, scalars) = node_status(cx, status)?;
        let mut node = NodeSpec::new(&name, capacity.cpu_millis, capacity.memory_bytes);
        node.max_pods = max_pods;
        node.scalars = scalars;
        node.labels = labels;
        // The node controller's own taints stand for state the engine keeps
        // itself (cordoned, NotReady); importing them as taints as well would
        // outlive an uncordon or a recovery.
        node.taints = taints
            .into_iter()
            .filter(|t| {
                !(unschedulable && t.key == "node.kubernetes.io/unschedulable"
                    || !ready
                        && (t.key == "node.kubernetes.io/not-ready"
                            || t.key == "node.kubernetes.io/unreachable"))
            })
            .collect();
        self.engine(cx, node.validate())?;
        self.nodes.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.nodes.push(ImportedNode {
            spec: node,
            unschedulable,
            ready,
        });
        self.took("Node");
        Ok(())
    }

    // ----- Deployment, ReplicaSet, StatefulSet ---------------------------------

    fn app(&mut self, cx: &mut Ctx, kind: &str, v: &Value, meta: &Map, spec: &Value) -> R<()> {
        let (name, _) = self.metadata(cx, meta, false)?;
        let ns = namespace_of(v).unwrap_or(DEFAULT_NAMESPACE).to_string();
        let plain = shepherd::namespace::split(&name).1.to_string();
        if kind == "ReplicaSet" {
            if let Some((ok, on)) = self
                .owners_of(v, "ReplicaSet")
                .into_iter()
                .find(|(k, _)| k == "Deployment")
            {
                if self
                    .present
                    .contains(&(ok.as_str(), ns.as_str(), on.as_str()))
                {
                    // The Deployment's revision: the Deployment is imported, its
                    // ReplicaSets are its own and not second copies.
                    self.owned += 1;
                    let rs = self.owned_replica_set(cx, meta, spec, &on)?;
                    self.kept_owned = Some(crate::kept::Decl::ReplicaSet {
                        name: name.clone(),
                        template: rs.template.clone(),
                        replicas: None,
                    });
                    self.replica_sets.insert(name, rs);
                    self.owned_replicasets.insert((ns, plain));
                    return Ok(());
                }
                cx.warn(
                    "metadata.ownerReferences",
                    format!("owned by Deployment {on:?}, which is not in the input; simulated as a replica owner of its own"),
                );
            }
        }
        self.first_seen(
            cx,
            &self.apps,
            "a Deployment, ReplicaSet or StatefulSet named",
            &name,
        )?;
        let mut replicas = 1u32;
        let mut strategy = RollingUpdate::default();
        let mut selector = None;
        let mut template = None;
        let mut min_ready_seconds = 0u32;
        // A ReplicaSet or StatefulSet has no progress deadline (no
        // Progressing condition): simulated as a Deployment without one.
        let mut progress_deadline_seconds = if kind == "Deployment" {
            shepherd::model::DEFAULT_PROGRESS_DEADLINE_SECONDS
        } else {
            shepherd::model::NO_PROGRESS_DEADLINE
        };
        for (k, val) in cx.map(spec, "spec")? {
            let p = child("spec", k);
            match k.as_str() {
                "replicas" => {
                    replicas = cx.count(val, &p, shepherd::model::MAX_REPLICAS as u64)? as u32
                }
                "selector" => selector = Some(label_selector(cx, val, &p)?),
                "template" => template = Some(val),
                "strategy" if kind == "Deployment" => strategy = deployment_strategy(cx, val, &p)?,
                "minReadySeconds" => {
                    min_ready_seconds =
                        cx.count(val, &p, shepherd::model::NO_PROGRESS_DEADLINE as u64)? as u32
                }
                "progressDeadlineSeconds" if kind == "Deployment" => {
                    progress_deadline_seconds =
                        cx.count(val, &p, shepherd::model::NO_PROGRESS_DEADLINE as u64)? as u32
                }
                "revisionHistoryLimit"
                | "progressDeadlineSeconds"
                | "serviceName"
                | "persistentVolumeClaimRetentionPolicy" => {}
                "paused" if kind == "Deployment" => {
                    if cx.boolean(val, &p)? {
                        cx.not_simulated_yet(&p, "a paused Deployment (simulated as not paused)");
                    }
                }
                "podManagementPolicy" | "updateStrategy" | "volumeClaimTemplates" | "ordinals"
                    if kind == "StatefulSet" =>
                {
                    cx.not_simulated_yet(
                        &p,
                        "StatefulSet ordering, update strategy and volume claims",
                    )
                }
                _ => cx.unknown(&p),
            }
        }
        let Some(template) = template else {
            return Err(cx.err("spec.template", "missing; expected the pod template"));
        };
        let tpl = pod_template(cx, template, "spec.template", None)?;
        // Kept when it is not the template's labels: it is immutable, so a
        // later apply (`--then`) is checked against it.
        let selector = match selector {
            None => {
                return Err(cx.err(
                    "spec.selector",
                    "missing; expected matchLabels that the template's labels carry",
                ))
            }
            Some(sel) => {
                if sel.is_empty() {
                    return Err(cx.err(
                        "spec.selector",
                        "selects nothing; expected matchLabels that the template's labels carry",
                    ));
                }
                let implicit = Selector {
                    match_labels: tpl.labels.clone(),
                    ..Default::default()
                };
                if !sel.matches(&tpl.labels) {
                    return Err(cx.err(
                        "spec.selector.matchLabels",
                        format!(
                            "{sel} does not match the template's labels ({implicit}); expected a selector the template's labels satisfy, as Kubernetes requires",
                        ),
                    ));
                }
                (sel != implicit).then_some(sel)
            }
        };
        match kind {
            "ReplicaSet" => cx.warn("", "a ReplicaSet is simulated as a Deployment with its replicas and template"),
            "StatefulSet" => cx.warn("", "a StatefulSet is simulated as a Deployment: pods are named by ordinal, but start and update in no particular order"),
            _ => {}
        }
        if kind == "Deployment" {
            self.deployment_revisions
                .insert(name.clone(), revision_of(meta));
        }
        if kind == "StatefulSet" {
            self.statefulsets.insert(name.clone());
        }
        let d = DeploymentSpec {
            name: name.clone(),
            replicas,
            template: tpl,
            strategy,
            min_ready_seconds,
            progress_deadline_seconds,
            selector,
        };
        self.engine(cx, d.validate())?;
        self.apps.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.deployments.push(d);
        self.took(kind);
        Ok(())
    }

    /// A ReplicaSet that Deployment `deployment` (in the input) owns: its
    /// template, hash and revision, for the Deployment's revisions. Its
    /// template's warnings are the Deployment's, said once there.
    fn owned_replica_set(
        &mut self,
        cx: &mut Ctx,
        meta: &Map,
        spec: &Value,
        deployment: &str,
    ) -> R<OwnedReplicaSet> {
        let mut sink = Vec::new();
        let mut q = Ctx {
            loc: cx.loc,
            warnings: &mut sink,
            ns: cx.ns,
        };
        let label = |m: &Map| {
            m.iter()
                .find(|(k, _)| k == "labels")
                .and_then(|(_, l)| l.get(shepherd::model::POD_TEMPLATE_HASH))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let revision = revision_of(meta);
        let Some(template) = spec.get("template") else {
            return Err(cx.err("spec.template", "missing; expected the pod template"));
        };
        let mut tpl = pod_template(&mut q, template, "spec.template", None)?;
        let hash = label(meta)
            .or_else(|| tpl.labels.get(shepherd::model::POD_TEMPLATE_HASH).cloned())
            .unwrap_or_default();
        tpl.labels.remove(shepherd::model::POD_TEMPLATE_HASH);
        Ok(OwnedReplicaSet {
            deployment: shepherd::namespace::qualify(cx.ns, deployment),
            revision,
            hash,
            template: tpl,
        })
    }

    /// The pods of the controllers in the input, as they run: given to
    /// their owners (`Scenario::running`), a Deployment's with its
    /// ReplicaSets as revisions. A pod bound to a node the input does not
    /// have is left out (its controller makes another), with a warning;
    /// nodes that their bound pods overcommit are reported.
    fn running_pods(&mut self) {
        let sc = &self.scenario;
        let nodes: HashSet<&str> = sc.nodes.iter().map(|n| n.spec.name.as_str()).collect();
        let deployments: HashMap<&str, usize> = (sc.deployments.iter().enumerate())
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        let daemonsets: HashMap<&str, usize> = (sc.daemonsets.iter().enumerate())
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        // Each Deployment's ReplicaSets, oldest revision first.
        let mut sets: HashMap<&str, Vec<(&String, &OwnedReplicaSet)>> = HashMap::new();
        for (k, rs) in &self.replica_sets {
            sets.entry(rs.deployment.as_str())
                .or_default()
                .push((k, rs));
        }
        for v in sets.values_mut() {
            v.sort_by(|a, b| (a.1.revision, a.0).cmp(&(b.1.revision, b.0)));
        }
        let mut by_owner: BTreeMap<(bool, usize), shepherd::RunningPods> = BTreeMap::new();
        // An owner's running pods, with its ReplicaSets when it is a
        // Deployment: the new one is the one of the Deployment's revision
        // (Kubernetes sets the Deployment's revision annotation to its new
        // ReplicaSet's), else the newest whose template is the Deployment's.
        let revisions = |owner: &str, list: Option<&Vec<(&String, &OwnedReplicaSet)>>| {
            let mut r = shepherd::RunningPods {
                owner: owner.to_string(),
                stateful: self.statefulsets.contains(owner),
                ..Default::default()
            };
            let Some(list) = list else { return r };
            let list: Vec<&OwnedReplicaSet> = list
                .iter()
                .map(|(_, rs)| *rs)
                .filter(|rs| !rs.hash.is_empty())
                .collect();
            let want = self.deployment_revisions.get(owner).copied().unwrap_or(0);
            let template = deployments.get(owner).map(|&i| &sc.deployments[i].template);
            r.current = list
                .iter()
                .position(|rs| want != 0 && rs.revision == want)
                .or_else(|| list.iter().rposition(|rs| Some(&rs.template) == template))
                .map(|i| i as u32);
            r.replica_sets = list
                .iter()
                .map(|rs| shepherd::ReplicaSetSpec {
                    hash: rs.hash.clone(),
                    template: rs.template.clone(),
                })
                .collect();
            r
        };
        let mut warnings = Vec::new();
        for p in &self.owned_pods {
            // The owner as the engine holds it, and the pod's ReplicaSet.
            let (owner, rs) = match self.replica_sets.get(&p.owner) {
                Some(rs) if p.kind == "ReplicaSet" => (rs.deployment.as_str(), Some(&p.owner)),
                _ => (p.owner.as_str(), None),
            };
            let slot = match (deployments.get(owner), daemonsets.get(owner)) {
                (Some(&i), _) if p.kind != "DaemonSet" => (false, i),
                (_, Some(&i)) if p.kind == "DaemonSet" => (true, i),
                _ => continue,
            };
            if let Some(n) = &p.node {
                if !nodes.contains(n.as_str()) {
                    warnings.push(Warning {
                        loc: p.loc.clone(),
                        path: "spec.nodeName".into(),
                        message: format!("{n:?} is no node in the input; the pod is left out (its controller makes another)"),
                    });
                    continue;
                }
            } else if slot.0 {
                // A DaemonSet's pod not bound yet: its controller makes it.
                continue;
            }
            let entry = by_owner
                .entry(slot)
                .or_insert_with(|| revisions(owner, sets.get(owner)));
            let replica_set = rs.and_then(|k| {
                let list = sets.get(owner)?;
                let hash = &self.replica_sets.get(k)?.hash;
                entry
                    .replica_sets
                    .iter()
                    .position(|r| &r.hash == hash)
                    .filter(|_| list.iter().any(|(key, _)| *key == k))
                    .map(|i| i as u32)
            });
            entry.pods.push(shepherd::RunningPod {
                name: p.name.clone(),
                node: p.node.clone(),
                replica_set,
                ready: p.ready,
            });
        }
        // A Deployment whose ReplicaSets run no pod still has them as revisions.
        for (owner, list) in &sets {
            if let Some(&i) = deployments.get(owner) {
                by_owner
                    .entry((false, i))
                    .or_insert_with(|| revisions(owner, Some(list)));
            }
        }
        // A StatefulSet without pods still names those it makes by index.
        for owner in &self.statefulsets {
            if let Some(&i) = deployments.get(owner.as_str()) {
                by_owner
                    .entry((false, i))
                    .or_insert_with(|| revisions(owner, None));
            }
        }
        // DaemonSets first, then Deployments, each in input order.
        let mut running: Vec<(bool, usize, shepherd::RunningPods)> =
            by_owner.into_iter().map(|((d, i), r)| (d, i, r)).collect();
        running.sort_by_key(|(d, i, _)| (!*d, *i));
        let mut running: Vec<shepherd::RunningPods> =
            running.into_iter().map(|(_, _, r)| r).collect();
        // The bare Pods that run on a node of the input, as they run (one
        // bound to a node the input lacks waits for it, as Kubernetes has
        // it, `controllers/bare_pod.rs`).
        for (ready, name, node) in &self.running_bare {
            if nodes.contains(node.as_str()) {
                running.push(shepherd::RunningPods {
                    owner: name.clone(),
                    pods: vec![shepherd::RunningPod {
                        name: name.clone(),
                        node: Some(node.clone()),
                        replica_set: None,
                        ready: *ready,
                    }],
                    ..Default::default()
                });
            }
        }
        self.scenario.running = running;
        self.warnings.extend(warnings);
        self.report_overcommit();
    }

    /// A warning for each node whose controllers' bound pods request more
    /// than it has (possible in a running cluster after a node was
    /// resized): the pods are kept where they run, never moved; the
    /// scheduler places nothing more there until they fit. A bare Pod that
    /// runs on its node already counts too; one bound by nodeName without
    /// a status (a manifest, not a running cluster) passes its kubelet's
    /// admission as it is created (`controllers/bare_pod.rs`), which
    /// refuses one that does not fit.
    fn report_overcommit(&mut self) {
        let sc = &self.scenario;
        let mut used: HashMap<String, (u64, u64, u64, Scalars)> = HashMap::new();
        let mut add = |node: &str, t: &PodTemplate| {
            if !used.contains_key(node) {
                used.insert(node.to_string(), (0, 0, 0, Scalars::default()));
            }
            let Some(u) = used.get_mut(node) else { return };
            u.0 += t.requests.cpu_millis;
            u.1 += t.requests.memory_bytes;
            u.2 += 1;
            u.3.add(&t.scalar_requests);
        };
        let dep: HashMap<&str, &DeploymentSpec> = sc
            .deployments
            .iter()
            .map(|d| (d.name.as_str(), d))
            .collect();
        let ds: HashMap<&str, &DaemonSetSpec> =
            sc.daemonsets.iter().map(|d| (d.name.as_str(), d)).collect();
        let bare: HashMap<&str, &BarePodSpec> =
            sc.pods.iter().map(|p| (p.name.as_str(), p)).collect();
        for r in &sc.running {
            for p in &r.pods {
                let Some(n) = &p.node else { continue };
                let t = match (p.replica_set, dep.get(r.owner.as_str())) {
                    (Some(i), _) => &r.replica_sets[i as usize].template,
                    (None, Some(d)) => &d.template,
                    (None, None) => match (ds.get(r.owner.as_str()), bare.get(r.owner.as_str())) {
                        (Some(d), _) => &d.template,
                        (None, Some(b)) => &b.template,
                        (None, None) => continue,
                    },
                };
                add(n, t);
            }
        }
        let mut out = Vec::new();
        for n in &sc.nodes {
            let Some((cpu, mem, pods, scalars)) = used.get(&n.spec.name) else {
                continue;
            };
            let cap = &n.spec.capacity;
            let mut over = Vec::new();
            if *cpu > cap.cpu_millis {
                over.push(format!(
                    "cpu requested {cpu}m, allocatable {}m",
                    cap.cpu_millis
                ));
            }
            if *mem > cap.memory_bytes {
                over.push(format!(
                    "memory requested {mem} bytes, allocatable {} bytes",
                    cap.memory_bytes
                ));
            }
            if *pods > n.spec.max_pods as u64 {
                over.push(format!("pods {pods}, allocatable {}", n.spec.max_pods));
            }
            for (name, q) in scalars.iter() {
                let has = n.spec.scalars.get(name);
                if q > has {
                    over.push(format!("{name} requested {q}, allocatable {has}"));
                }
            }
            if !over.is_empty() {
                let loc = self.nodes.get(&n.spec.name).map(|s| s.loc.clone());
                out.push(Warning {
                    loc: loc.unwrap_or_else(|| Location {
                        document: 0,
                        item: None,
                        kind: "Node".into(),
                        name: n.spec.name.clone(),
                    }),
                    path: String::new(),
                    message: format!(
                        "overcommitted by the pods bound to it: {}; they are kept where they run, never moved, and nothing more is placed there until they fit",
                        over.join(", ")
                    ),
                });
            }
        }
        self.warnings.extend(out);
    }

    // ----- PodDisruptionBudget ---------------------------------------------------

    fn pdb(&mut self, cx: &mut Ctx, meta: &Map, spec: &Value) -> R<()> {
        let (name, _) = self.metadata(cx, meta, false)?;
        self.first_seen(cx, &self.pdbs, "PodDisruptionBudget", &name)?;
        let mut selector = None;
        let mut min = None;
        let mut max = None;
        for (k, val) in cx.map(spec, "spec")? {
            let p = child("spec", k);
            match k.as_str() {
                "selector" => selector = Some(label_selector(cx, val, &p)?),
                "minAvailable" => min = Some(cx.int_or_percent(val, &p)?),
                "maxUnavailable" => max = Some(cx.int_or_percent(val, &p)?),
                "unhealthyPodEvictionPolicy" => {
                    let s = cx.string(val, &p)?;
                    if s != "IfHealthyBudget" {
                        cx.not_simulated_yet(
                            &p,
                            &format!("{s} (evictions follow IfHealthyBudget)"),
                        );
                    }
                }
                _ => cx.unknown(&p),
            }
        }
        let budget = match (min, max) {
            (Some(_), Some(_)) => {
                return Err(cx.err("spec", "sets both minAvailable and maxUnavailable; expected one of them, as Kubernetes requires"))
            }
            (Some(v), None) => Budget::MinAvailable(v),
            (None, Some(v)) => Budget::MaxUnavailable(v),
            (None, None) => {
                cx.not_simulated_yet("spec", "a budget with neither minAvailable nor maxUnavailable; the object is skipped");
                self.skip("PodDisruptionBudget");
                return Ok(());
            }
        };
        let Some(selector) = selector else {
            cx.warn(
                "spec.selector",
                "missing: policy/v1 selects no pods with it; the object is skipped",
            );
            self.skip("PodDisruptionBudget");
            return Ok(());
        };
        if selector.is_empty() {
            cx.warn("spec.selector", "empty: policy/v1 selects every pod of the namespace with it, which the engine's budgets do not simulate; the object is skipped");
            self.skip("PodDisruptionBudget");
            return Ok(());
        }
        let p = PdbSpec {
            name: name.clone(),
            selector,
            budget,
        };
        self.engine(cx, p.validate())?;
        self.pdbs.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.pdbs.push(p);
        self.took("PodDisruptionBudget");
        Ok(())
    }

    // ----- Service -----------------------------------------------------------

    fn service(&mut self, cx: &mut Ctx, meta: &Map, spec: &Value) -> R<()> {
        let (name, _) = self.metadata(cx, meta, false)?;
        self.first_seen(cx, &self.services, "Service", &name)?;
        let mut selector = Labels::new();
        for (k, val) in cx.map(spec, "spec")? {
            let p = child("spec", k);
            match k.as_str() {
                "selector" => selector = cx.labels(val, &p)?,
                // Addressing and traffic: nothing the endpoints controller decides from.
                "type"
                | "ports"
                | "clusterIP"
                | "clusterIPs"
                | "ipFamilies"
                | "ipFamilyPolicy"
                | "sessionAffinity"
                | "sessionAffinityConfig"
                | "internalTrafficPolicy"
                | "externalTrafficPolicy"
                | "externalIPs"
                | "externalName"
                | "loadBalancerIP"
                | "loadBalancerClass"
                | "loadBalancerSourceRanges"
                | "healthCheckNodePort"
                | "allocateLoadBalancerNodePorts"
                | "publishNotReadyAddresses"
                | "trafficDistribution" => {}
                _ => cx.unknown(&p),
            }
        }
        if selector.is_empty() {
            cx.warn("spec.selector", "no selector (endpoints managed by hand or an ExternalName) is not simulated; the object is skipped");
            self.skip("Service");
            return Ok(());
        }
        let s = ServiceSpec {
            name: name.clone(),
            selector: Selector {
                match_labels: selector,
                ..Default::default()
            },
        };
        self.engine(cx, s.validate())?;
        self.services.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.services.push(s);
        self.took("Service");
        Ok(())
    }

    // ----- Pod -------------------------------------------------------------------

    /// A Pod is its controller's when the controller is in the input (not
    /// a second copy); one owned by a controller missing from the input is
    /// skipped with a warning; one owned by a kind Shepherd runs no
    /// controller for (a Pod, a Job) is kept as a bare Pod, with a warning;
    /// one without an owner is a bare Pod of its own:
    /// bound where `spec.nodeName` says (as it runs when it has a status,
    /// else through the kubelet's admission), else scheduled, and never
    /// recreated. A pod that has finished
    /// (Succeeded or Failed) holds nothing and is skipped.
    fn pod(&mut self, cx: &mut Ctx, v: &Value, meta: &Map, spec: &Value, status: &Value) -> R<()> {
        let ns = namespace_of(v).unwrap_or(DEFAULT_NAMESPACE).to_string();
        // A pod that has finished (Succeeded or Failed) or is being deleted
        // holds nothing a scheduler counts (the scheduler's cache drops a
        // pod once it is terminal or deleted: pkg/scheduler/eventhandlers.go,
        // and the kubelet frees its resources), whoever owns it; its
        // controller, if any, is short of it and makes another.
        if let Some(phase) = status.get("phase") {
            let phase = cx.string(phase, "status.phase")?;
            if phase == "Succeeded" || phase == "Failed" {
                cx.warn(
                    "status.phase",
                    format!(
                        "the pod has finished ({phase}) and holds no resources; the pod is skipped"
                    ),
                );
                self.finished += 1;
                self.skip("Pod");
                return Ok(());
            }
        }
        if meta.iter().any(|(k, _)| k == "deletionTimestamp") {
            cx.warn(
                "metadata.deletionTimestamp",
                "the pod is terminating and takes no room here; the pod is skipped (its controller, if any, replaces it)",
            );
            self.terminating += 1;
            self.skip("Pod");
            return Ok(());
        }
        // The owners whose pods the engine makes: their pods are theirs.
        const RUN: [&str; 4] = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"];
        let mut foreign = None;
        let owners = self.owners_of(v, "Pod");
        for (kind, name) in owners.clone() {
            let present = self
                .present
                .contains(&(kind.as_str(), ns.as_str(), name.as_str()));
            if (present && RUN.contains(&kind.as_str()))
                || (kind == "ReplicaSet"
                    && self.owned_replicasets.contains(&(ns.clone(), name.clone())))
            {
                self.owned += 1;
                let pod = shepherd::namespace::qualify(&ns, &name_of_meta(meta));
                let node = match spec.get("nodeName") {
                    Some(n) => Some(cx.string(n, "spec.nodeName")?.to_string()),
                    None => None,
                };
                self.kept_owned = Some(crate::kept::Decl::RunningPod {
                    name: pod.clone(),
                    node: node.clone(),
                });
                self.owned_pods.push(OwnedPod {
                    loc: cx.loc.clone(),
                    name: pod,
                    kind,
                    owner: shepherd::namespace::qualify(&ns, &name),
                    node,
                    ready: pod_ready(status),
                });
                return Ok(());
            }
            // An owner of a kind no controller here runs (a Pod, a Job, a
            // custom resource): nothing would make or replace the pod, so
            // it is kept as it is, a bare Pod.
            if !RUN.contains(&kind.as_str()) {
                foreign.get_or_insert((kind, name));
            }
        }
        match (foreign, owners.first()) {
            (Some((k, n)), _) => cx.warn(
                "metadata.ownerReferences",
                format!("owned by {k} {n:?}, which is not a controller Shepherd runs; simulated as a bare Pod (nothing recreates it)"),
            ),
            (None, Some((k, n))) => {
                cx.warn(
                    "metadata.ownerReferences",
                    format!(
                        "owned by {k} {n:?}, which is not in the input; the pod is not simulated"
                    ),
                );
                self.skip("Pod");
                return Ok(());
            }
            (None, None) => {}
        }
        let (name, labels) = self.metadata(cx, meta, true)?;
        self.first_seen(cx, &self.apps, OWNER_NAMES, &name)?;
        let mut t = PodTemplate::new(Resources::ZERO);
        t.labels = labels;
        if let Some((_, a)) = meta.iter().find(|(k, _)| k == "annotations") {
            template_annotations(cx, &mut t, a, "metadata.annotations")?;
        }
        let node_name = pod_spec(cx, &mut t, spec, "spec", None)?;
        // Bound by nodeName with a status: its kubelet admitted it already
        // (a pod its kubelet refuses is Failed, skipped above), so it runs
        // there as it is (`running_pods`), not admitted again.
        if let (Some(n), Some(_)) = (&node_name, status.get("phase")) {
            self.running_bare
                .push((pod_ready(status), name.clone(), n.clone()));
        }
        let p = BarePodSpec {
            name: name.clone(),
            template: t,
            node_name,
        };
        self.engine(cx, p.validate())?;
        self.apps.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.pods.push(p);
        self.took("Pod");
        Ok(())
    }

    // ----- DaemonSet -------------------------------------------------------------

    fn daemonset(&mut self, cx: &mut Ctx, meta: &Map, spec: &Value) -> R<()> {
        let (name, _) = self.metadata(cx, meta, false)?;
        self.first_seen(cx, &self.apps, OWNER_NAMES, &name)?;
        let mut selector = None;
        let mut template = None;
        let mut strategy = DaemonSetStrategy::default();
        let mut min_ready_seconds = 0;
        for (k, val) in cx.map(spec, "spec")? {
            let p = child("spec", k);
            match k.as_str() {
                "selector" => selector = Some(label_selector(cx, val, &p)?),
                "template" => template = Some(val),
                "updateStrategy" => strategy = daemonset_strategy(cx, val, &p)?,
                "minReadySeconds" => {
                    min_ready_seconds =
                        cx.count(val, &p, shepherd::MAX_DAEMONSET_MIN_READY_SECONDS as u64)? as u32
                }
                "revisionHistoryLimit" => {}
                _ => cx.unknown(&p),
            }
        }
        let Some(template) = template else {
            return Err(cx.err("spec.template", "missing; expected the pod template"));
        };
        let mut host_network = false;
        let tpl = pod_template(cx, template, "spec.template", Some(&mut host_network))?;
        match selector {
            None => {
                return Err(cx.err(
                    "spec.selector",
                    "missing; expected matchLabels that the template's labels carry",
                ))
            }
            Some(sel) if sel.is_empty() || !sel.matches(&tpl.labels) => {
                return Err(cx.err(
                    "spec.selector",
                    format!(
                        "{sel} does not select the template's labels ({}); expected a selector the template's labels satisfy, as Kubernetes requires",
                        Selector { match_labels: tpl.labels.clone(), ..Default::default() }
                    ),
                ))
            }
            Some(_) => {}
        }
        let d = DaemonSetSpec {
            name: name.clone(),
            template: tpl,
            max_unavailable: strategy.max_unavailable,
            max_surge: strategy.max_surge,
            strategy: strategy.kind,
            min_ready_seconds,
            host_network,
        };
        self.engine(cx, d.validate())?;
        self.apps.insert(
            name,
            Seen {
                loc: cx.loc.clone(),
            },
        );
        self.scenario.daemonsets.push(d);
        self.took("DaemonSet");
        Ok(())
    }
}

/// Whether a running pod is Ready as far as its status says: not when its
/// `Ready` condition is `False` (a readiness probe failing; the kubelet's
/// status, pkg/kubelet/status/generate.go GeneratePodReadyCondition).
/// Without the condition (a manifest, a terse dump) it is taken as Ready
/// once its node is; `Unknown` is its node's silence, which the node's
/// own Ready condition says.
fn pod_ready(status: &Value) -> bool {
    let Some(Value::Seq(conds)) = status.get("conditions") else {
        return true;
    };
    !conds.iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("Ready")
            && c.get("status").and_then(Value::as_str) == Some("False")
    })
}

/// How `first_seen` names a clash between pod owners: the engine keeps one
/// name space for them.
const OWNER_NAMES: &str = "a pod owner (the engine names Deployments, ReplicaSets, StatefulSets, DaemonSets and Pods in one space)";

/// A DaemonSet's `spec.updateStrategy` with Kubernetes' defaults
/// (SetDefaults_DaemonSet): RollingUpdate, maxUnavailable 1, maxSurge 0.
struct DaemonSetStrategy {
    kind: DaemonSetUpdateStrategyType,
    max_unavailable: IntOrPercent,
    max_surge: IntOrPercent,
}

impl Default for DaemonSetStrategy {
    fn default() -> Self {
        DaemonSetStrategy {
            kind: DaemonSetUpdateStrategyType::RollingUpdate,
            max_unavailable: IntOrPercent::Int(1),
            max_surge: IntOrPercent::Int(0),
        }
    }
}

/// `spec.updateStrategy` of a DaemonSet: type RollingUpdate (maxUnavailable,
/// maxSurge) or OnDelete. Whether the two numbers go together is the
/// engine's check (`DaemonSetSpec::validate`), so every door refuses alike.
fn daemonset_strategy(cx: &mut Ctx, v: &Value, path: &str) -> R<DaemonSetStrategy> {
    let mut out = DaemonSetStrategy::default();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "type" => {
                let t = cx.string(val, &p)?;
                out.kind = DaemonSetUpdateStrategyType::parse(t).map_err(|_| {
                    cx.err(
                        &p,
                        format!("found {t:?}; expected RollingUpdate or OnDelete"),
                    )
                })?;
            }
            "rollingUpdate" => {
                for (rk, rv) in cx.map(val, &p)? {
                    let q = child(&p, rk);
                    match rk.as_str() {
                        "maxUnavailable" => out.max_unavailable = cx.int_or_percent(rv, &q)?,
                        "maxSurge" => out.max_surge = cx.int_or_percent(rv, &q)?,
                        _ => cx.unknown(&q),
                    }
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(out)
}

// ----- field groups ------------------------------------------------------------

/// `spec` of a Node: `unschedulable` and `taints`.
fn node_spec(cx: &mut Ctx, spec: &Value) -> R<(bool, Vec<Taint>)> {
    let mut unschedulable = false;
    let mut taints = Vec::new();
    for (k, v) in cx.map(spec, "spec")? {
        let p = child("spec", k);
        match k.as_str() {
            "unschedulable" => unschedulable = cx.boolean(v, &p)?,
            "taints" => {
                for (i, t) in cx.list(v, &p, MAX_LIST)?.iter().enumerate() {
                    taints.push(taint(cx, t, &index(&p, i))?);
                }
            }
            "podCIDR" | "podCIDRs" | "providerID" | "externalID" | "configSource" => {}
            _ => cx.unknown(&p),
        }
    }
    Ok((unschedulable, taints))
}

fn taint(cx: &mut Ctx, v: &Value, path: &str) -> R<Taint> {
    let (mut key, mut value, mut effect) = (None, String::new(), None);
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "key" => key = Some(cx.string(val, &p)?.to_string()),
            "value" => value = cx.string(val, &p)?.to_string(),
            "effect" => effect = Some(taint_effect(cx, val, &p)?),
            "timeAdded" => {}
            _ => cx.unknown(&p),
        }
    }
    let key =
        key.ok_or_else(|| cx.err(&child(path, "key"), "missing; expected the taint's key"))?;
    let effect = effect.ok_or_else(|| {
        cx.err(
            &child(path, "effect"),
            "missing; expected NoSchedule, PreferNoSchedule or NoExecute",
        )
    })?;
    Ok(Taint { key, value, effect })
}

fn taint_effect(cx: &Ctx, v: &Value, path: &str) -> R<TaintEffect> {
    let s = cx.string(v, path)?;
    TaintEffect::parse(s)
        .map_err(|_| cx.wrong(path, v, "NoSchedule, PreferNoSchedule or NoExecute"))
}

/// `status` of a Node: allocatable (else capacity) cpu, memory and pods
/// (110, the kubelet's default, when absent), and the Ready condition.
/// Memory is in bytes, as `Quantity.Value()` reads it (rounded up).
fn node_status(cx: &mut Ctx, status: &Value) -> R<(Resources, u32, bool, Scalars)> {
    let mut alloc = None;
    let mut cap = None;
    let mut ready = true;
    for (k, v) in cx.map(status, "status")? {
        let p = child("status", k);
        match k.as_str() {
            "allocatable" => alloc = Some((v, p)),
            "capacity" => cap = Some((v, p)),
            "conditions" => {
                for (i, c) in cx.seq(v, &p)?.iter().enumerate() {
                    let cp = index(&p, i);
                    if c.get("type").and_then(Value::as_str) == Some("Ready") {
                        let s = c.get("status").unwrap_or(&Value::Null);
                        ready = cx.string(s, &child(&cp, "status"))? == "True";
                    }
                }
            }
            _ => {} // addresses, nodeInfo, images, daemonEndpoints, phase ...: reported state
        }
    }
    let (v, p) = alloc.or(cap).ok_or_else(|| {
        cx.err("status.allocatable", "missing (and no status.capacity); expected cpu and memory, e.g. cpu: \"4\", memory: 16Gi")
    })?;
    let mut cpu = None;
    let mut mem = None;
    let mut pods = DEFAULT_MAX_PODS;
    let mut scalars = Scalars::new();
    for (k, val) in cx.map(v, &p)? {
        let rp = child(&p, k);
        match k.as_str() {
            "cpu" => cpu = Some(quantity_of(cx, val, &rp, Unit::Cpu)?),
            "memory" => mem = Some(quantity_of(cx, val, &rp, Unit::Memory)?),
            "pods" => {
                let n = quantity_of(cx, val, &rp, Unit::Other("pods"))?;
                if n > 1_000_000 {
                    return Err(cx.wrong(
                        &rp,
                        val,
                        "a number of pods from 0 to 1000000 (the kubelet's default is 110)",
                    ));
                }
                pods = n as u32;
            }
            // Scalar resources NodeResourcesFit counts; others (such as
            // attachable-volumes-*) no pod requests, so they are skipped.
            name => {
                if shepherd::scalar::classify(name).is_ok() {
                    if scalars.len() >= shepherd::scalar::MAX_SCALARS {
                        return Err(cx.err(&rp, format!("is one resource too many; expected at most {} resources besides cpu, memory and pods", shepherd::scalar::MAX_SCALARS)));
                    }
                    let n = scalar_quantity(cx, val, &rp, name)?;
                    scalars.set(name, n);
                }
            }
        }
    }
    let cpu = cpu.ok_or_else(|| {
        cx.err(
            &child(&p, "cpu"),
            "missing; expected the node's cpu, e.g. \"4\" or \"3500m\"",
        )
    })?;
    let mem = mem.ok_or_else(|| {
        cx.err(
            &child(&p, "memory"),
            "missing; expected the node's memory, e.g. 16Gi",
        )
    })?;
    Ok((Resources::new(cpu, mem), pods, ready, scalars))
}

#[derive(Clone, Copy)]
enum Unit {
    Cpu,
    Memory,
    /// Any other resource (pods, ephemeral-storage, extended resources), in its own unit.
    Other(&'static str),
}

/// A quantity in Kubernetes' grammar, read by the engine's own
/// `shepherd::quantity` and rounded up as Kubernetes rounds: cpu to
/// millicores, everything else to whole units (bytes for memory).
fn quantity_of(cx: &Ctx, v: &Value, path: &str, unit: Unit) -> R<u64> {
    use shepherd::quantity::{parse_cpu_millis, parse_memory_bytes, QuantityErrorKind};
    let text = cx.quantity_text(v, path)?;
    let r = match unit {
        Unit::Cpu => parse_cpu_millis(&text),
        Unit::Memory | Unit::Other(_) => parse_memory_bytes(&text),
    };
    r.map_err(|e| {
        let message = match unit {
            Unit::Cpu | Unit::Memory => e.to_string(),
            Unit::Other(what) => {
                let expected = "expected a quantity such as 1, 500m, 110 or 10Gi";
                match &e.kind {
                    QuantityErrorKind::Empty => format!("{what} is empty; {expected}"),
                    QuantityErrorKind::Negative => {
                        format!("{what} {text:?} is negative; expected 0 or more")
                    }
                    QuantityErrorKind::TooLarge => format!(
                        "{what} {text:?} is too large; expected at most {}",
                        shepherd::quantity::MAX_VALUE
                    ),
                    _ => format!("{what} {text:?} is not a quantity; {expected}"),
                }
            }
        };
        cx.err(path, message)
    })
}

/// What a missing `labelSelector` of a spread constraint or a pod affinity
/// term means in Kubernetes: `metav1.LabelSelectorAsSelector(nil)` is
/// `labels.Nothing()`, which no pod matches (while an empty `{}` is
/// `labels.Everything()`). The engine says it as `KEY` Exists and `KEY`
/// DoesNotExist on the term's own topology key, which no label set can
/// satisfy; the export writes it back as a missing selector
/// ([`is_nothing`]).
pub(crate) fn nothing(key: &str) -> Selector {
    let req = |operator| LabelSelectorRequirement {
        key: key.to_string(),
        operator,
        values: Vec::new(),
    };
    Selector {
        match_labels: Default::default(),
        match_expressions: vec![
            req(SelectorOperator::Exists),
            req(SelectorOperator::DoesNotExist),
        ],
    }
}

/// Whether `sel` is [`nothing`] for `key`.
pub(crate) fn is_nothing(sel: &Selector, key: &str) -> bool {
    *sel == nothing(key)
}

/// A label selector: `matchLabels` and `matchExpressions` (In, NotIn,
/// Exists, DoesNotExist), every one of which must hold. An empty selector
/// (`{}`) matches every pod, as in Kubernetes.
fn label_selector(cx: &mut Ctx, v: &Value, path: &str) -> R<Selector> {
    let mut sel = Selector::default();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "matchLabels" => {
                sel.match_labels = cx.labels(val, &p)?;
                Selector {
                    match_labels: sel.match_labels.clone(),
                    ..Default::default()
                }
                .validate("matchLabels")
                .map_err(|e| cx.err(&p, e.to_string()))?;
            }
            "matchExpressions" => {
                for (i, e) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    sel.match_expressions
                        .push(label_requirement(cx, e, &index(&p, i))?);
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(sel)
}

/// `key`, `operator` and `values` of one requirement, as strings; the
/// operator is checked by the caller.
fn requirement_parts(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
) -> R<(String, (String, Value), Vec<String>)> {
    let mut key = None;
    let mut op = None;
    let mut values = Vec::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "key" => key = Some(cx.string(val, &p)?.to_string()),
            "operator" => op = Some((cx.string(val, &p)?.to_string(), val.clone())),
            "values" => {
                for (i, x) in cx.list(val, &p, MAX_VALUES)?.iter().enumerate() {
                    values.push(cx.string(x, &index(&p, i))?.to_string());
                }
            }
            _ => cx.unknown(&p),
        }
    }
    let key = key.ok_or_else(|| cx.err(&child(path, "key"), "missing; expected a label key"))?;
    let op = op.ok_or_else(|| {
        cx.err(
            &child(path, "operator"),
            "missing; expected an operator such as In or Exists",
        )
    })?;
    Ok((key, op, values))
}

fn label_requirement(cx: &mut Ctx, v: &Value, path: &str) -> R<LabelSelectorRequirement> {
    let (key, (op, opv), values) = requirement_parts(cx, v, path)?;
    let operator = SelectorOperator::parse(&op).map_err(|_| {
        cx.wrong(
            &child(path, "operator"),
            &opv,
            "In, NotIn, Exists or DoesNotExist",
        )
    })?;
    let r = LabelSelectorRequirement {
        key,
        operator,
        values,
    };
    r.validate("matchExpressions")
        .map_err(|e| cx.err(path, e.to_string()))?;
    Ok(r)
}

fn node_requirement(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
    field: bool,
) -> R<NodeSelectorRequirement> {
    let (key, (op, opv), values) = requirement_parts(cx, v, path)?;
    let operator = NodeSelectorOperator::parse(&op).map_err(|_| {
        cx.wrong(
            &child(path, "operator"),
            &opv,
            "In, NotIn, Exists, DoesNotExist, Gt or Lt",
        )
    })?;
    let r = NodeSelectorRequirement {
        key,
        operator,
        values,
    };
    let what = if field {
        "matchFields"
    } else {
        "matchExpressions"
    };
    r.validate(what, field)
        .map_err(|e| cx.err(path, e.to_string()))?;
    Ok(r)
}

/// A node selector term: `matchExpressions` on labels and `matchFields` on
/// `metadata.name`, all of which must hold. An empty term matches no node.
fn node_selector_term(cx: &mut Ctx, v: &Value, path: &str) -> R<NodeSelectorTerm> {
    let mut t = NodeSelectorTerm::default();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "matchExpressions" => {
                for (i, e) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    t.match_expressions
                        .push(node_requirement(cx, e, &index(&p, i), false)?);
                }
            }
            "matchFields" => {
                for (i, e) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    t.match_fields
                        .push(node_requirement(cx, e, &index(&p, i), true)?);
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(t)
}

/// A weight of a preferred term: 1 to 100, as Kubernetes validates it.
fn weight(cx: &Ctx, v: &Value, path: &str) -> R<i32> {
    match v {
        Value::Int(i) if (1..=100).contains(i) => Ok(*i as i32),
        Value::UInt(u) if (1..=100).contains(u) => Ok(*u as i32),
        other => Err(cx.wrong(path, other, "a whole number from 1 to 100")),
    }
}

/// `affinity.nodeAffinity`: required nodeSelectorTerms (any one must match)
/// and weighted preferred terms.
fn node_affinity(cx: &mut Ctx, v: &Value, path: &str) -> R<NodeAffinity> {
    let mut a = NodeAffinity::default();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "requiredDuringSchedulingIgnoredDuringExecution" => {
                let mut terms = None;
                for (rk, rv) in cx.map(val, &p)? {
                    let rp = child(&p, rk);
                    match rk.as_str() {
                        "nodeSelectorTerms" => {
                            let mut ts = Vec::new();
                            for (i, t) in cx.list(rv, &rp, MAX_LIST)?.iter().enumerate() {
                                ts.push(node_selector_term(cx, t, &index(&rp, i))?);
                            }
                            terms = Some(ts);
                        }
                        _ => cx.unknown(&rp),
                    }
                }
                match terms {
                    Some(ts) if !ts.is_empty() => a.required = Some(ts),
                    _ => {
                        return Err(cx.err(
                            &child(&p, "nodeSelectorTerms"),
                            "missing or empty; expected at least one node selector term, as Kubernetes requires",
                        ))
                    }
                }
            }
            "preferredDuringSchedulingIgnoredDuringExecution" => {
                for (i, t) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    let tp = index(&p, i);
                    let mut w = None;
                    let mut pref = None;
                    for (tk, tv) in cx.map(t, &tp)? {
                        let q = child(&tp, tk);
                        match tk.as_str() {
                            "weight" => w = Some(weight(cx, tv, &q)?),
                            "preference" => pref = Some(node_selector_term(cx, tv, &q)?),
                            _ => cx.unknown(&q),
                        }
                    }
                    let weight = w.ok_or_else(|| {
                        cx.err(
                            &child(&tp, "weight"),
                            "missing; expected a whole number from 1 to 100",
                        )
                    })?;
                    let preference = pref.ok_or_else(|| {
                        cx.err(
                            &child(&tp, "preference"),
                            "missing; expected a node selector term",
                        )
                    })?;
                    a.preferred
                        .push(PreferredSchedulingTerm { weight, preference });
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(a)
}

/// `topologySpreadConstraints`: maxSkew, topologyKey, whenUnsatisfiable,
/// labelSelector, minDomains, nodeAffinityPolicy and nodeTaintsPolicy are
/// simulated (the policies default to Honor and Ignore, as Kubernetes
/// defaults a missing or null one).
fn topology_spread(cx: &mut Ctx, v: &Value, path: &str) -> R<Vec<TopologySpreadConstraint>> {
    let mut out = Vec::new();
    for (i, c) in cx.list(v, path, MAX_LIST)?.iter().enumerate() {
        let cp = index(path, i);
        let mut skew = None;
        let mut key = None;
        let mut when = None;
        let mut sel = None;
        let mut min_domains = None;
        let mut affinity_policy = NodeInclusionPolicy::Honor;
        let mut taints_policy = NodeInclusionPolicy::Ignore;
        for (k, val) in cx.map(c, &cp)? {
            let p = child(&cp, k);
            match k.as_str() {
                "maxSkew" => match val {
                    Value::Int(_) | Value::UInt(_)
                        if cx.count(val, &p, 1_000_000).is_ok_and(|n| n > 0) =>
                    {
                        skew = Some(cx.count(val, &p, 1_000_000)? as u32)
                    }
                    other => return Err(cx.wrong(&p, other, "a whole number from 1 to 1000000")),
                },
                "topologyKey" => key = Some(cx.string(val, &p)?.to_string()),
                "whenUnsatisfiable" => {
                    let s = cx.string(val, &p)?;
                    when = Some(
                        WhenUnsatisfiable::parse(s)
                            .map_err(|_| cx.wrong(&p, val, "DoNotSchedule or ScheduleAnyway"))?,
                    );
                }
                "labelSelector" if !matches!(val, Value::Null) => {
                    sel = Some(label_selector(cx, val, &p)?)
                }
                "labelSelector" => {}
                "minDomains" => match val {
                    Value::Null => {}
                    _ => {
                        let n = cx.count(val, &p, 1_000_000)?;
                        if n == 0 {
                            return Err(cx.wrong(&p, val, "a whole number from 1 to 1000000"));
                        }
                        min_domains = Some(n as u32);
                    }
                },
                "nodeAffinityPolicy" | "nodeTaintsPolicy" if !matches!(val, Value::Null) => {
                    let s = cx.string(val, &p)?;
                    let policy = NodeInclusionPolicy::parse(s)
                        .map_err(|_| cx.wrong(&p, val, "Honor or Ignore"))?;
                    if k == "nodeAffinityPolicy" {
                        affinity_policy = policy;
                    } else {
                        taints_policy = policy;
                    }
                }
                "nodeAffinityPolicy" | "nodeTaintsPolicy" => {}
                "matchLabelKeys" => {
                    if !cx.seq(val, &p)?.is_empty() {
                        cx.warn(
                            &p,
                            "not simulated: the labelSelector alone selects the pods counted",
                        );
                    }
                }
                _ => cx.unknown(&p),
            }
        }
        let max_skew = skew.ok_or_else(|| {
            cx.err(
                &child(&cp, "maxSkew"),
                "missing; expected a whole number from 1",
            )
        })?;
        let topology_key = key.filter(|k| !k.is_empty()).ok_or_else(|| {
            cx.err(
                &child(&cp, "topologyKey"),
                "missing; expected a node label key such as topology.kubernetes.io/zone",
            )
        })?;
        let when_unsatisfiable = when.ok_or_else(|| {
            cx.err(
                &child(&cp, "whenUnsatisfiable"),
                "missing; expected DoNotSchedule or ScheduleAnyway",
            )
        })?;
        // Without a selector Kubernetes counts no pods (labels.Nothing), so
        // every domain's skew is 0, but a DoNotSchedule constraint still
        // refuses nodes without its topology key, and ScheduleAnyway scores
        // those 0: the constraint is kept, selecting nothing.
        let selector = sel.unwrap_or_else(|| nothing(&topology_key));
        let c = TopologySpreadConstraint {
            max_skew,
            topology_key,
            when_unsatisfiable,
            selector,
            min_domains,
            node_affinity_policy: affinity_policy,
            node_taints_policy: taints_policy,
        };
        c.validate(&cx.loc.name)
            .map_err(|e| cx.err(&cp, e.to_string()))?;
        out.push(c);
    }
    Ok(out)
}

/// `spec.strategy` of a Deployment. Recreate is simulated as a rolling
/// update with maxSurge 0 and maxUnavailable 100%: every old pod goes before
/// a new one is created, which is what Recreate does.
fn deployment_strategy(cx: &mut Ctx, v: &Value, path: &str) -> R<RollingUpdate> {
    let mut s = RollingUpdate::default();
    let mut kind = "RollingUpdate".to_string();
    let mut rolling = None;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "type" => kind = cx.string(val, &p)?.to_string(),
            "rollingUpdate" => rolling = Some((val, p)),
            _ => cx.unknown(&p),
        }
    }
    match kind.as_str() {
        "RollingUpdate" => {
            if let Some((val, p)) = rolling {
                for (k, x) in cx.map(val, &p)? {
                    let q = child(&p, k);
                    match k.as_str() {
                        "maxSurge" => s.max_surge = cx.int_or_percent(x, &q)?,
                        "maxUnavailable" => s.max_unavailable = cx.int_or_percent(x, &q)?,
                        _ => cx.unknown(&q),
                    }
                }
            }
            Ok(s)
        }
        "Recreate" => {
            cx.warn(
                &child(path, "type"),
                "Recreate is simulated as RollingUpdate with maxSurge 0 and maxUnavailable 100%",
            );
            Ok(RollingUpdate {
                max_surge: IntOrPercent::Int(0),
                max_unavailable: IntOrPercent::Percent(100),
            })
        }
        _ => Err(cx.err(
            &child(path, "type"),
            format!("found {kind:?}; expected RollingUpdate or Recreate"),
        )),
    }
}

/// A pod template: labels, Shepherd's own annotations, and the pod spec
/// (`host_network`: see [`pod_spec`]).
fn pod_template(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
    host_network: Option<&mut bool>,
) -> R<PodTemplate> {
    let mut t = PodTemplate::new(Resources::ZERO);
    let mut spec = None;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "metadata" => {
                for (mk, mv) in cx.map(val, &p)? {
                    let mp = child(&p, mk);
                    match mk.as_str() {
                        "labels" => t.labels = cx.labels(mv, &mp)?,
                        "annotations" => template_annotations(cx, &mut t, mv, &mp)?,
                        "name" | "namespace" | "creationTimestamp" | "generateName" => {}
                        _ => cx.unknown(&mp),
                    }
                }
            }
            "spec" => spec = Some((val, p)),
            _ => cx.unknown(&p),
        }
    }
    let Some((spec, sp)) = spec else {
        return Err(cx.err(
            &child(path, "spec"),
            "missing; expected the pod spec with its containers",
        ));
    };
    if pod_spec(cx, &mut t, spec, &sp, host_network)?.is_some() {
        cx.warn(
            &child(&sp, "nodeName"),
            "a nodeName in a pod template is not simulated; the scheduler places the pods",
        );
    }
    Ok(t)
}

/// `shepherd/version` and `shepherd/ready-after-ticks`: what the engine's
/// template holds that Kubernetes has no field for, so an export comes back
/// the same. Other annotations change nothing.
fn template_annotations(cx: &mut Ctx, t: &mut PodTemplate, v: &Value, path: &str) -> R<()> {
    annotations(cx, v, path)?;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        if k == ANNOTATION_VERSION {
            t.version = cx.string(val, &p)?.to_string();
        } else if k == ANNOTATION_READY_AFTER {
            let s = cx.string(val, &p)?;
            t.ready_after = s
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= 1000)
                .ok_or_else(|| {
                    cx.wrong(&p, val, "a whole number of ticks from \"0\" to \"1000\"")
                })?;
        }
    }
    Ok(())
}

/// `metadata.annotations` as the API server takes them (apimachinery's
/// `ValidateAnnotations`): string values, keys that are qualified names
/// (case aside), and at most 256 KiB of keys and values together
/// (`TotalAnnotationSizeLimitB`). The engine keeps none but Shepherd's own.
fn annotations(cx: &Ctx, v: &Value, path: &str) -> R<()> {
    let mut total = 0usize;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        let s = cx.string(val, &p)?;
        shepherd::model::validate_label_key(&k.to_ascii_lowercase(), "annotation key")
            .map_err(|e| cx.err(&p, e.to_string()))?;
        total = total.saturating_add(k.len() + s.len());
    }
    if total > MAX_ANNOTATION_BYTES {
        return Err(cx.err(
            path,
            format!(
                "{total} bytes of keys and values; expected at most {MAX_ANNOTATION_BYTES} (Kubernetes' TotalAnnotationSizeLimitB, 256 KiB)"
            ),
        ));
    }
    Ok(())
}

/// Reads a pod spec into `t`; returns `spec.nodeName` when set. A DaemonSet's
/// template passes `host_network` to receive `hostNetwork` (the one owner
/// for which the engine simulates its effect: the DaemonSet controller's
/// network-unavailable toleration); for other pods it is warned about.
fn pod_spec(
    cx: &mut Ctx,
    t: &mut PodTemplate,
    v: &Value,
    path: &str,
    mut host_network: Option<&mut bool>,
) -> R<Option<String>> {
    let mut node_name = None;
    let mut containers = None;
    let mut init = None;
    let mut overhead = Req::default();
    let mut overhead_s = Scalars::new();
    let mut on_host_network = false;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "containers" => containers = Some((val, p)),
            "initContainers" => init = Some((val, p)),
            "overhead" => (overhead, overhead_s) = resource_list(cx, val, &p)?,
            "nodeSelector" => t.node_selector = cx.labels(val, &p)?,
            "tolerations" => t.tolerations = tolerations(cx, val, &p)?,
            "affinity" => {
                let ns = cx.ns;
                affinity(cx, t, val, &p, ns)?
            }
            "topologySpreadConstraints" => t.topology_spread = topology_spread(cx, val, &p)?,
            "priorityClassName" => {
                let name = cx.string(val, &p)?;
                shepherd::model::validate_name(name, "priorityClassName")
                    .map_err(|e| cx.err(&p, e.to_string()))?;
                t.priority_class_name = Some(name.to_string());
            }
            // The Priority admission plugin sets both from the class (and
            // refuses a pod whose given values differ from it).
            "priority" | "preemptionPolicy" => cx.warn(
                &p,
                "set by the Priority admission plugin from priorityClassName (or the globalDefault class); the value given is not used",
            ),
            "schedulerName" => {
                let s = cx.string(val, &p)?;
                if s != "default-scheduler" {
                    cx.not_simulated_yet(&p, &format!("scheduler {s:?} (every pod goes to the one profile simulated: default-scheduler, or the KubeSchedulerConfiguration's)"));
                }
            }
            "nodeName" => {
                let n = cx.string(val, &p)?;
                if !n.is_empty() {
                    node_name = Some(n.to_string());
                }
            }
            "volumes" => {
                if !cx.seq(val, &p)?.is_empty() {
                    cx.warn(
                        &p,
                        "volumes are not simulated (no volume topology or attach limits)",
                    );
                }
            }
            "hostNetwork" => {
                let on = cx.boolean(val, &p)?;
                on_host_network = on;
                match host_network.as_deref_mut() {
                    Some(h) => *h = on,
                    None if on => cx.warn(
                        &p,
                        "host networking is not simulated beyond its host ports (each container port is taken on the node, which NodePorts checks)",
                    ),
                    None => {}
                }
            }
            "runtimeClassName" => cx.warn(
                &p,
                "RuntimeClasses are not simulated (spec.overhead is counted when set)",
            ),
            "resourceClaims" | "schedulingGates" | "resources" => {
                cx.warn(&p, "not simulated; ignored")
            }
            k if INERT_POD_SPEC.contains(&k) => {}
            _ => cx.unknown(&p),
        }
    }
    let (cv, cp) = containers.ok_or_else(|| {
        cx.err(
            &child(path, "containers"),
            "missing; expected at least one container",
        )
    })?;
    let list = cx.seq(cv, &cp)?;
    if list.is_empty() {
        return Err(cx.err(&cp, "is empty; expected at least one container"));
    }
    // Kubernetes' rule (the pod's effective request,
    // component-helpers resource.PodRequests): the larger of the regular
    // containers plus every restartable ("sidecar") init container, and the
    // largest of each ordinary init container plus the sidecars started
    // before it; then the pod overhead on top. The scores' form
    // (framework/types.go CalculateResource, `Non0CPU`/`Non0Mem`) is the
    // same sum with kube-scheduler's non-zero defaults (100m cpu, 200Mi
    // memory) given to each container, init ones too, that sets no request
    // for the resource: one that sets 0 keeps 0
    // (getNonMissingContainerRequests, PodRequests'
    // NonMissingContainerRequests).
    // Scalar resources (extended, ephemeral-storage, hugepages-*) follow
    // the same rule, resource by resource.
    let mut sum = [Req::default(); 2];
    let mut sum_s = Scalars::new();
    // The host ports: the sidecars' first, then the containers' (the
    // order of util.GetHostPorts).
    let mut ports = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let r = container(cx, c, &index(&cp, i), false, on_host_network)?;
        sum = [sum[0].add(r.requests), sum[1].add(r.non_zero)];
        sum_s.add(&r.scalars);
        ports.extend(r.host_ports);
    }
    let mut sidecar_ports = Vec::new();
    let mut init_peak = [Req::default(); 2];
    let mut sidecars = [Req::default(); 2];
    let mut init_peak_s = Scalars::new();
    let mut sidecars_s = Scalars::new();
    if let Some((iv, ip)) = init {
        for (i, c) in cx.seq(iv, &ip)?.iter().enumerate() {
            let r = container(cx, c, &index(&ip, i), true, on_host_network)?;
            // An ordinary init container ends before the pod runs: its
            // host ports are not the pod's.
            if r.sidecar {
                sidecar_ports.extend(r.host_ports.iter().cloned());
            }
            if r.sidecar {
                sidecars_s.add(&r.scalars);
                init_peak_s.max_with(&sidecars_s);
            } else {
                let mut with = sidecars_s.clone();
                with.add(&r.scalars);
                init_peak_s.max_with(&with);
            }
            let both = [r.requests, r.non_zero];
            for k in 0..2 {
                if r.sidecar {
                    sidecars[k] = sidecars[k].add(both[k]);
                    init_peak[k] = init_peak[k].max(sidecars[k]);
                } else {
                    init_peak[k] = init_peak[k].max(sidecars[k].add(both[k]));
                }
            }
        }
    }
    let [eff, non_zero] = [0, 1].map(|k| sum[k].add(sidecars[k]).max(init_peak[k]).add(overhead));
    // Memory in bytes, as kube-scheduler sums it (int64 of Value()).
    // A pod that requests nothing is BestEffort: it fits anywhere
    // NodeResourcesFit looks, and its score counts the non-zero defaults of
    // the containers that set no request.
    let bytes = |r: Req| Resources::new(r.cpu, r.mem);
    t.requests = bytes(eff);
    t.non_zero_requests = Some(bytes(non_zero)).filter(|&n| n != t.requests.non_zero());
    sum_s.add(&sidecars_s);
    sum_s.max_with(&init_peak_s);
    sum_s.add(&overhead_s);
    t.scalar_requests = sum_s;
    sidecar_ports.extend(ports);
    t.host_ports = sidecar_ports;
    Ok(node_name)
}

/// What one container asks for.
struct ContainerRequests {
    /// Its requests (a limit stands in for a missing request, as the API
    /// server defaults it: pkg/apis/core/v1 defaults.go SetDefaults_Pod).
    requests: Req,
    /// The same with kube-scheduler's non-zero default for each resource it
    /// sets no request (nor limit) for; an explicit 0 stays 0.
    non_zero: Req,
    /// A restartable init container (`restartPolicy: Always`).
    sidecar: bool,
    /// Its requests of scalar resources (extended, ephemeral-storage,
    /// hugepages-*), a limit standing in for a missing request.
    scalars: Scalars,
    /// The host ports it takes (`ports[].hostPort`).
    host_ports: Vec<shepherd::HostPort>,
}

/// One container's requests.
fn container(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
    is_init: bool,
    host_network: bool,
) -> R<ContainerRequests> {
    let mut host_ports = Vec::new();
    let mut req = Req::default();
    let mut set = (false, false);
    let mut sidecar = false;
    let mut scalars = Scalars::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "resources" => {
                let mut requests = None;
                let mut limits = None;
                for (rk, rv) in cx.map(val, &p)? {
                    let rp = child(&p, rk);
                    match rk.as_str() {
                        "requests" => requests = Some(rv),
                        "limits" => limits = Some(rv),
                        _ => cx.unknown(&rp),
                    }
                }
                let (r, rs) = match requests {
                    Some(rv) => resource_list(cx, rv, &child(&p, "requests"))?,
                    None => (Req::default(), Scalars::new()),
                };
                let given = |name: &str| requests.and_then(|rv| rv.get(name)).is_some();
                let mut l = Req::default();
                let mut ls = Scalars::new();
                if let Some(lv) = limits {
                    let lp = child(&p, "limits");
                    (l, ls) = resource_list(cx, lv, &lp)?;
                    cx.warn(
                        &lp,
                        "limits are not simulated (requests are what the scheduler counts)",
                    );
                }
                scalars = container_scalars(cx, &p, requests, limits, rs, ls)?;
                let limited = |name: &str| limits.and_then(|lv| lv.get(name)).is_some();
                req = Req {
                    cpu: if given("cpu") { r.cpu } else { l.cpu },
                    mem: if given("memory") { r.mem } else { l.mem },
                };
                set = (
                    given("cpu") || limited("cpu"),
                    given("memory") || limited("memory"),
                );
            }
            "ports" => host_ports = container_ports(cx, val, &p, host_network)?,
            "restartPolicy" if is_init => sidecar = cx.string(val, &p)? == "Always",
            k if INERT_CONTAINER.contains(&k) => {}
            _ => cx.unknown(&p),
        }
    }
    let non_zero = Req {
        cpu: if set.0 {
            req.cpu
        } else {
            shepherd::model::DEFAULT_MILLI_CPU_REQUEST
        },
        mem: if set.1 {
            req.mem
        } else {
            shepherd::model::DEFAULT_MEMORY_REQUEST_BYTES
        },
    };
    Ok(ContainerRequests {
        requests: req,
        non_zero,
        sidecar,
        scalars,
        host_ports,
    })
}

/// A container's `ports`: the host ports among them (NodePorts' input,
/// `util.GetHostPorts`), each with its protocol (TCP when unset) and
/// hostIP (every address when unset). Under `hostNetwork: true` a port
/// without a hostPort takes its containerPort on the host, as the API
/// server defaults it (pkg/apis/core/v1 defaults.go,
/// defaultHostNetworkPorts).
fn container_ports(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
    host_network: bool,
) -> R<Vec<shepherd::HostPort>> {
    let mut out = Vec::new();
    for (i, port) in cx.seq(v, path)?.iter().enumerate() {
        let at = index(path, i);
        let (mut host_port, mut container_port) = (0u64, None);
        let mut protocol = shepherd::Protocol::Tcp;
        let mut host_ip = "";
        for (k, val) in cx.map(port, &at)? {
            let p = child(&at, k);
            match k.as_str() {
                "hostPort" => host_port = cx.count(val, &p, 65_535)?,
                "containerPort" => {
                    let n = cx.count(val, &p, 65_535)?;
                    if n == 0 {
                        return Err(cx.err(&p, "is 0; expected a port number from 1 to 65535"));
                    }
                    container_port = Some(n);
                }
                "protocol" => {
                    let s = cx.string(val, &p)?;
                    protocol =
                        shepherd::Protocol::parse(s).map_err(|e| cx.err(&p, e.to_string()))?;
                }
                "hostIP" => host_ip = cx.string(val, &p)?,
                "name" => {}
                _ => cx.unknown(&p),
            }
        }
        if container_port.is_none() {
            return Err(cx.err(
                &child(&at, "containerPort"),
                "missing; expected a port number from 1 to 65535",
            ));
        }
        if host_network && host_port == 0 {
            host_port = container_port.unwrap_or(0);
        }
        if !host_ip.is_empty() && host_ip.parse::<std::net::IpAddr>().is_err() {
            return Err(cx.err(
                &child(&at, "hostIP"),
                format!("{host_ip:?} is not an IP address; expected an IPv4 or IPv6 address"),
            ));
        }
        if host_port > 0 {
            out.push(shepherd::HostPort::new(protocol, host_port as u16).on(host_ip));
        }
    }
    Ok(out)
}

/// A container's scalar requests after the API server's defaulting and
/// validation (pkg/apis/core/v1 defaults.go: a missing request takes the
/// limit; pkg/apis/core/validation validateResourceRequirements: extended
/// resources and huge pages cannot be overcommitted, so a request needs a
/// limit and must equal it).
fn container_scalars(
    cx: &Ctx,
    path: &str,
    requests: Option<&Value>,
    limits: Option<&Value>,
    rs: Scalars,
    ls: Scalars,
) -> R<Scalars> {
    use shepherd::scalar::{classify, ScalarKind};
    let names = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::Map(m)) => m.iter().map(|(k, _)| k.to_string()).collect(),
            _ => Vec::new(),
        }
    };
    let req_names = names(requests);
    let mut out = ls.clone();
    for name in &req_names {
        let Ok(kind) = classify(name) else { continue };
        let rp = child(&child(path, "requests"), name);
        let r = rs.get(name);
        let limited = names(limits).iter().any(|n| n == name);
        if kind == ScalarKind::EphemeralStorage {
            if limited && r > ls.get(name) {
                return Err(cx.err(&rp, format!("{} is more than the limit {}; expected a request less than or equal to the {name} limit, as Kubernetes validates", shepherd::scalar::format_amount(name, r), shepherd::scalar::format_amount(name, ls.get(name)))));
            }
        } else if !limited {
            return Err(cx.err(&child(path, "limits"), format!("has no {name}; expected a limit for {name}, which cannot be overcommitted (Kubernetes: \"Limit must be set for non overcommitable resources\")")));
        } else if r != ls.get(name) {
            return Err(cx.err(&rp, format!("{} differs from the limit {}; expected the request to equal the {name} limit, as Kubernetes validates for resources that cannot be overcommitted", shepherd::scalar::format_amount(name, r), shepherd::scalar::format_amount(name, ls.get(name)))));
        }
        out.set(name, r);
    }
    Ok(out)
}

/// A requests, limits or overhead list: cpu and memory, and the scalar
/// resources NodeResourcesFit counts (extended resources, whole numbers as
/// the API validates them; ephemeral-storage and hugepages-* in bytes). A
/// name Kubernetes does not accept on a container is an error.
fn resource_list(cx: &mut Ctx, v: &Value, path: &str) -> R<(Req, Scalars)> {
    let mut r = Req::default();
    let mut s = Scalars::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "cpu" => r.cpu = quantity_of(cx, val, &p, Unit::Cpu)?,
            "memory" => r.mem = quantity_of(cx, val, &p, Unit::Memory)?,
            name => {
                if s.len() >= shepherd::scalar::MAX_SCALARS {
                    return Err(cx.err(&p, format!("is one resource too many; expected at most {} resources besides cpu and memory", shepherd::scalar::MAX_SCALARS)));
                }
                let n = scalar_quantity(cx, val, &p, name)?;
                s.set(name, n);
            }
        }
    }
    Ok((r, s))
}

/// One scalar resource's amount: its name checked as Kubernetes checks a
/// container's resource names, an extended resource a whole number
/// (`IsIntegerResourceName`: "must be an integer").
fn scalar_quantity(cx: &mut Ctx, val: &Value, p: &str, name: &str) -> R<u64> {
    use shepherd::scalar::{classify, ScalarKind};
    let kind = classify(name).map_err(|e| cx.err(p, format!("{e}")))?;
    if kind == ScalarKind::Extended {
        let text = cx.quantity_text(val, p)?;
        let milli = shepherd::quantity::parse_cpu_millis(&text)
            .map_err(|_| cx.wrong(p, val, &format!("a whole number of {name}, such as 1")))?;
        if milli % 1000 != 0 {
            return Err(cx.wrong(
                p,
                val,
                &format!("a whole number of {name}, such as 1 (Kubernetes: must be an integer)"),
            ));
        }
        Ok(milli / 1000)
    } else {
        quantity_of(cx, val, p, Unit::Other("the resource"))
    }
}

fn tolerations(cx: &mut Ctx, v: &Value, path: &str) -> R<Vec<Toleration>> {
    let mut out = Vec::new();
    for (i, t) in cx.list(v, path, MAX_LIST)?.iter().enumerate() {
        let tp = index(path, i);
        let mut tol = Toleration::equal("", "", None);
        let mut op_given = false;
        for (k, val) in cx.map(t, &tp)? {
            let p = child(&tp, k);
            match k.as_str() {
                "key" => tol.key = cx.string(val, &p)?.to_string(),
                "value" => tol.value = cx.string(val, &p)?.to_string(),
                "operator" => {
                    op_given = true;
                    tol.operator = match cx.string(val, &p)? {
                        "Equal" => TolerationOperator::Equal,
                        "Exists" => TolerationOperator::Exists,
                        _ => return Err(cx.wrong(&p, val, "Equal or Exists")),
                    }
                }
                "effect" => {
                    tol.effect = match cx.string(val, &p)? {
                        "" => None,
                        _ => Some(taint_effect(cx, val, &p)?),
                    }
                }
                "tolerationSeconds" => {
                    // Kubernetes: zero and negative values mean evict at once (0).
                    let max = shepherd::model::MAX_TOLERATION_SECONDS;
                    let expected =
                        format!("a whole number of seconds up to {max} (the latest tick)");
                    tol.toleration_seconds = Some(match val {
                        Value::Int(i) if *i <= 0 => 0,
                        Value::Int(i) if (*i as u64) <= max => *i as u64,
                        Value::UInt(u) if *u <= max => *u,
                        other => return Err(cx.wrong(&p, other, &expected)),
                    });
                }
                _ => cx.unknown(&p),
            }
        }
        if tol.toleration_seconds.is_some() && tol.effect != Some(shepherd::TaintEffect::NoExecute)
        {
            return Err(cx.err(
                &child(&tp, "tolerationSeconds"),
                format!(
                    "is set on a toleration with effect {}; expected effect NoExecute, as Kubernetes requires for tolerationSeconds",
                    tol.effect.map(|e| e.as_str()).unwrap_or("(none)")
                ),
            ));
        }
        // Kubernetes: an empty key with operator Exists tolerates everything;
        // an empty key needs Exists.
        if !op_given && tol.key.is_empty() {
            return Err(cx.err(
                &child(&tp, "operator"),
                "missing with an empty key; expected Exists (to tolerate every taint) or a key",
            ));
        }
        out.push(tol);
    }
    Ok(out)
}

/// `affinity`: node affinity, and pod affinity and anti-affinity, required
/// and preferred.
fn affinity(cx: &mut Ctx, t: &mut PodTemplate, v: &Value, path: &str, ns: &str) -> R<()> {
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "nodeAffinity" => t.node_affinity = node_affinity(cx, val, &p)?,
            "podAffinity" => (t.affinity, t.preferred_affinity) = pod_affinity(cx, val, &p, ns)?,
            "podAntiAffinity" => {
                (t.anti_affinity, t.preferred_anti_affinity) = pod_affinity(cx, val, &p, ns)?
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(())
}

fn pod_affinity(
    cx: &mut Ctx,
    v: &Value,
    path: &str,
    ns: &str,
) -> R<(Vec<AffinityTerm>, Vec<WeightedAffinityTerm>)> {
    let mut required = Vec::new();
    let mut preferred = Vec::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "requiredDuringSchedulingIgnoredDuringExecution" => {
                for (i, term) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    if let Some(t) = affinity_term(cx, term, &index(&p, i), ns)? {
                        required.push(t);
                    }
                }
            }
            "preferredDuringSchedulingIgnoredDuringExecution" => {
                for (i, w) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    let wp = index(&p, i);
                    let mut weight_v = None;
                    let mut term = None;
                    let mut seen_term = false;
                    for (wk, wv) in cx.map(w, &wp)? {
                        let q = child(&wp, wk);
                        match wk.as_str() {
                            "weight" => weight_v = Some(weight(cx, wv, &q)?),
                            "podAffinityTerm" => {
                                seen_term = true;
                                term = affinity_term(cx, wv, &q, ns)?;
                            }
                            _ => cx.unknown(&q),
                        }
                    }
                    let weight = weight_v.ok_or_else(|| {
                        cx.err(
                            &child(&wp, "weight"),
                            "missing; expected a whole number from 1 to 100",
                        )
                    })?;
                    if !seen_term {
                        return Err(cx.err(
                            &child(&wp, "podAffinityTerm"),
                            "missing; expected a pod affinity term with a topologyKey",
                        ));
                    }
                    if let Some(term) = term {
                        preferred.push(WeightedAffinityTerm { weight, term });
                    }
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok((required, preferred))
}

/// One pod affinity term. Without a labelSelector it matches no pods, as
/// Kubernetes' null selector ([`nothing`]): a required affinity term then
/// holds on no node (the pod does not match it either), and an
/// anti-affinity or preferred term changes nothing.
fn affinity_term(cx: &mut Ctx, v: &Value, path: &str, _ns: &str) -> R<Option<AffinityTerm>> {
    let mut sel = None;
    let mut namespaces = Vec::new();
    let mut namespace_selector = None;
    let mut key = None;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "labelSelector" if !matches!(val, Value::Null) => {
                sel = Some(label_selector(cx, val, &p)?)
            }
            "labelSelector" => {}
            "topologyKey" => key = Some(cx.string(val, &p)?.to_string()),
            "namespaces" if !matches!(val, Value::Null) => {
                for (i, x) in cx.list(val, &p, MAX_LIST)?.iter().enumerate() {
                    let q = index(&p, i);
                    let n = cx.string(x, &q)?;
                    shepherd::namespace::validate_namespace(n)
                        .map_err(|e| cx.err(&q, e.to_string()))?;
                    namespaces.push(n.to_string());
                }
            }
            "namespaces" => {}
            "namespaceSelector" if !matches!(val, Value::Null) => {
                namespace_selector = Some(label_selector(cx, val, &p)?);
            }
            "namespaceSelector" => {}
            "matchLabelKeys" | "mismatchLabelKeys" => {
                if !cx.seq(val, &p)?.is_empty() {
                    cx.not_simulated_yet(
                        &p,
                        "label keys in an affinity term (the labelSelector alone selects)",
                    );
                }
            }
            _ => cx.unknown(&p),
        }
    }
    let key = match key {
        Some(k) if !k.is_empty() => k,
        _ => {
            return Err(cx.err(
                &child(path, "topologyKey"),
                "missing; expected a node label key such as kubernetes.io/hostname",
            ))
        }
    };
    // The engine's label-key rule, through a requirement that carries it.
    NodeSelectorRequirement {
        key: key.clone(),
        operator: NodeSelectorOperator::Exists,
        values: Vec::new(),
    }
    .validate("topologyKey", false)
    .map_err(|e| cx.err(&child(path, "topologyKey"), e.to_string()))?;
    let selector = sel.unwrap_or_else(|| nothing(&key));
    Ok(Some(AffinityTerm {
        selector,
        topology_key: key,
        namespaces,
        namespace_selector,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookups_for(text: &str) -> (Result<Imported, ImportError>, u64) {
        LOOKUPS.with(|c| c.set(0));
        let r = import(text);
        (r, LOOKUPS.with(|c| c.get()))
    }

    /// Issue 42, row 6: 100,000 Namespaces took 52 s, each Namespace (and
    /// each object's namespace at the end) scanning every one declared
    /// before. Now each costs one lookup in an index.
    #[test]
    fn namespaces_cost_one_lookup_each() {
        let n = 2_000;
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{i}\n"
            ));
            // An object in a namespace no Namespace declares.
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: other{i}\nspec:\n  selector:\n    app: web\n"
            ));
        }
        let (r, lookups) = lookups_for(&text);
        let im = r.expect("the import");
        assert_eq!(im.scenario.namespaces.len(), 2 * n);
        // A Namespace: one; a Service: its name, then its namespace at the end.
        assert_eq!(lookups, 3 * n as u64);

        let twice = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n";
        let e = import(twice).unwrap_err();
        assert_eq!(
            e.to_string(),
            "document 2 (Namespace a): metadata.name: Namespace \"a\" is already declared by document 1 (Namespace a); expected each name once"
        );
    }

    /// Row 6 again: a KubeSchedulerConfiguration's 60,000 pluginConfig
    /// entries took 34 s, each checked against every entry before it.
    #[test]
    fn plugin_config_and_enabled_plugins_cost_one_lookup_each() {
        let n = 2_000;
        let mut text = String::from("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled:\n");
        for i in 0..n {
            text.push_str(&format!("      - name: Enabled{i}\n"));
        }
        text.push_str("  pluginConfig:\n");
        for i in 0..n {
            text.push_str(&format!("  - name: P{i}\n    args: {{a: 1}}\n"));
        }
        let (r, lookups) = lookups_for(&text);
        let im = r.expect("the import");
        assert_eq!(lookups, 2 * n as u64);
        // Nothing vanishes: each unknown plugin and each argument is named.
        assert_eq!(im.warnings.len(), 2 * n);

        let twice = format!("{text}  - name: P7\n");
        let e = import(&twice).unwrap_err();
        assert!(
            e.to_string().ends_with(&format!(
                "profiles[0].pluginConfig[{n}].name: arguments for P7 are given twice; expected once"
            )),
            "{e}"
        );
    }
}
