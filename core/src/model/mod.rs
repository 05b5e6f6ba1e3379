//! Plain data: what a person declares. Nothing here knows about scheduling.
//!
//! Every declaration has a `validate` that says what is wrong in words; the
//! cluster calls it before touching any state, so a refused declaration
//! changes nothing.

pub(crate) mod affinity;
pub mod namespace;
pub mod ports;
pub mod priority;
pub mod quantity;
pub mod scalar;

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

pub use crate::model::affinity::{
    LabelSelectorRequirement, NodeAffinity, NodeInclusionPolicy, NodeSelectorOperator,
    NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm, SelectorOperator,
    TopologySpreadConstraint, WeightedAffinityTerm, WhenUnsatisfiable,
};
use crate::util::error::Error;
use crate::util::limits::quoted;

/// The most replicas one Deployment may ask for. Far above Kubernetes' supported
/// 150,000 pods per cluster; it exists so arithmetic on counts cannot overflow.
pub const MAX_REPLICAS: u32 = 1_000_000;

/// kube-scheduler's non-zero default cpu request for scoring, in millicores.
pub const DEFAULT_MILLI_CPU_REQUEST: u64 = 100;
/// kube-scheduler's non-zero default memory request for scoring, in bytes
/// (200 MiB: `DefaultMemoryRequest` in pkg/scheduler/util/pod_resources.go).
pub const DEFAULT_MEMORY_REQUEST_BYTES: u64 = 200 * crate::model::quantity::MIB;
pub use crate::util::limits::{MAX_CPU_MILLIS, MAX_MEMORY_BYTES};

/// The topology key that names "the node itself".
pub const HOSTNAME_KEY: &str = "kubernetes.io/hostname";

/// The label the Deployment controller adds to its ReplicaSets' pods and
/// selectors (`apps.DefaultDeploymentUniqueLabelKey`): a revision's hash.
pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// CPU in millicores and memory in bytes, the two resources the scheduler
/// counts, as Kubernetes counts them (`resource.Quantity.MilliValue` and
/// `Value`, int64; here never above [`MAX_CPU_MILLIS`] and
/// [`MAX_MEMORY_BYTES`] for one node or pod).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Resources {
    pub cpu_millis: u64,
    pub memory_bytes: u64,
}

/// Written as it was while the engine counted whole MiB (`memory_mib: 128`)
/// when the memory is a whole number of MiB, else with `memory_bytes`: a
/// ReplicaSet's name hashes its template's debug form (`template_hash` in
/// cluster/mod.rs), so the names of every template from before the change to
/// bytes stay what they were (saved scenarios name pods by them).
impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Resources");
        d.field("cpu_millis", &self.cpu_millis);
        if self
            .memory_bytes
            .is_multiple_of(crate::model::quantity::MIB)
        {
            d.field(
                "memory_mib",
                &(self.memory_bytes / crate::model::quantity::MIB),
            );
        } else {
            d.field("memory_bytes", &self.memory_bytes);
        }
        d.finish()
    }
}

impl Resources {
    pub const ZERO: Resources = Resources {
        cpu_millis: 0,
        memory_bytes: 0,
    };

    /// `memory_bytes` in bytes (`quantity::MIB` is one MiB).
    pub const fn new(cpu_millis: u64, memory_bytes: u64) -> Self {
        Resources {
            cpu_millis,
            memory_bytes,
        }
    }

    /// Both components at most `other`'s.
    pub fn fits_in(&self, other: &Resources) -> bool {
        self.cpu_millis <= other.cpu_millis && self.memory_bytes <= other.memory_bytes
    }

    pub fn saturating_add(&self, o: &Resources) -> Resources {
        Resources::new(
            self.cpu_millis.saturating_add(o.cpu_millis),
            self.memory_bytes.saturating_add(o.memory_bytes),
        )
    }

    pub fn saturating_sub(&self, o: &Resources) -> Resources {
        Resources::new(
            self.cpu_millis.saturating_sub(o.cpu_millis),
            self.memory_bytes.saturating_sub(o.memory_bytes),
        )
    }

    pub fn is_zero(&self) -> bool {
        self.cpu_millis == 0 && self.memory_bytes == 0
    }

    /// The requests as kube-scheduler's NodeResourcesFit score counts them
    /// for one container that sets the nonzero ones and no others: a missing
    /// request counts as 100m cpu and 200Mi memory, so pods that ask for
    /// nothing are not all piled on one node. (A container that sets 0
    /// counts 0: see `PodTemplate::non_zero_requests`.)
    pub fn non_zero(&self) -> Resources {
        Resources::new(
            if self.cpu_millis == 0 {
                DEFAULT_MILLI_CPU_REQUEST
            } else {
                self.cpu_millis
            },
            if self.memory_bytes == 0 {
                DEFAULT_MEMORY_REQUEST_BYTES
            } else {
                self.memory_bytes
            },
        )
    }
}

impl fmt::Display for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cpu {}, memory {}",
            crate::model::quantity::format_cpu_millis(self.cpu_millis),
            crate::model::quantity::format_memory_bytes(self.memory_bytes)
        )
    }
}

/// Labels on a node or a pod template. Ordered, so iteration is deterministic.
pub type Labels = BTreeMap<String, String>;

/// Builds labels from pairs: `labels(&[("app", "web")])`.
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A label selector: every `matchLabels` pair must be present and every
/// `matchExpressions` requirement must hold. An empty selector matches
/// everything, as in Kubernetes.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selector {
    pub match_labels: Labels,
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

impl Selector {
    pub fn new(pairs: &[(&str, &str)]) -> Self {
        Selector {
            match_labels: labels(pairs),
            match_expressions: Vec::new(),
        }
    }

    pub fn with_expression(mut self, r: LabelSelectorRequirement) -> Self {
        self.match_expressions.push(r);
        self
    }

    pub fn matches(&self, l: &Labels) -> bool {
        self.match_labels.iter().all(|(k, v)| l.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| r.matches(l))
    }

    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    pub fn validate(&self, what: &str) -> Result<(), Error> {
        validate_labels(&self.match_labels, what)?;
        validate_count(
            self.match_expressions.len(),
            &format!("{what} matchExpressions"),
        )?;
        for r in &self.match_expressions {
            r.validate(what)?;
        }
        Ok(())
    }

    /// Its list entries: labels, requirements and their values.
    pub fn list_entries(&self) -> usize {
        self.match_labels.len()
            + self
                .match_expressions
                .iter()
                .map(|r| 1 + r.values.len())
                .sum::<usize>()
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Admission's namespace requirements are not the user's to see.
        let mut first = true;
        for (k, v) in &self.match_labels {
            if crate::model::namespace::is_reserved(k) {
                continue;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{}={}", k, v)?;
        }
        for r in &self.match_expressions {
            if crate::model::namespace::is_reserved(&r.key) {
                continue;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaintEffect {
    /// New pods that do not tolerate it are not scheduled here.
    NoSchedule,
    /// The scheduler avoids the node for pods that do not tolerate it.
    PreferNoSchedule,
    /// Not scheduled, and running pods that do not tolerate it are evicted.
    NoExecute,
}

impl TaintEffect {
    pub fn as_str(&self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "NoSchedule" => Ok(TaintEffect::NoSchedule),
            "PreferNoSchedule" => Ok(TaintEffect::PreferNoSchedule),
            "NoExecute" => Ok(TaintEffect::NoExecute),
            _ => Err(Error::invalid(
                "taint effect",
                s,
                "NoSchedule, PreferNoSchedule or NoExecute",
            )),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: TaintEffect,
}

impl Taint {
    pub fn new(key: &str, value: &str, effect: TaintEffect) -> Self {
        Taint {
            key: key.to_string(),
            value: value.to_string(),
            effect,
        }
    }
}

impl fmt::Display for Taint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As Kubernetes' Taint.ToString: `key:Effect` when the value is empty.
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect.as_str())
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect.as_str())
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TolerationOperator {
    /// Key and value must both match.
    Equal,
    /// The key must match (an empty key tolerates every taint).
    Exists,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Toleration {
    pub key: String,
    pub operator: TolerationOperator,
    pub value: String,
    /// `None` tolerates every effect.
    pub effect: Option<TaintEffect>,
    /// `tolerationSeconds`: for a NoExecute taint, how long a running pod
    /// stays once the taint is there (in ticks: one tick is one second of
    /// cluster time); `None` stays for good, `Some(0)` is evicted at once.
    /// Kubernetes allows it only with effect NoExecute.
    pub toleration_seconds: Option<u64>,
}

impl Toleration {
    pub fn equal(key: &str, value: &str, effect: Option<TaintEffect>) -> Self {
        Toleration {
            key: key.to_string(),
            operator: TolerationOperator::Equal,
            value: value.to_string(),
            effect,
            toleration_seconds: None,
        }
    }

    pub fn exists(key: &str, effect: Option<TaintEffect>) -> Self {
        Toleration {
            key: key.to_string(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect,
            toleration_seconds: None,
        }
    }

    /// The same toleration, tolerating a NoExecute taint for `seconds`.
    pub fn for_seconds(mut self, seconds: u64) -> Self {
        self.toleration_seconds = Some(seconds);
        self
    }

    /// Kubernetes' rule: effects agree (or the toleration names none), and
    /// either Exists on the key (or on every key when the key is empty) or Equal
    /// on key and value.
    pub fn tolerates(&self, t: &Taint) -> bool {
        if let Some(e) = self.effect {
            if e != t.effect {
                return false;
            }
        }
        match self.operator {
            TolerationOperator::Exists => self.key.is_empty() || self.key == t.key,
            TolerationOperator::Equal => self.key == t.key && self.value == t.value,
        }
    }
}

/// A required (anti-)affinity term: pods matching `selector`, counted within the
/// topology domain that `topology_key` names (the node itself by default).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AffinityTerm {
    pub selector: Selector,
    pub topology_key: String,
    /// `namespaces`: the pods of these namespaces count (with
    /// `namespace_selector`, the union; with neither, the pod's own
    /// namespace). See `namespace.rs`.
    pub namespaces: Vec<String>,
    /// `namespaceSelector`: the pods of the namespaces whose labels it
    /// matches count; `Some` of an empty selector is every namespace.
    pub namespace_selector: Option<Selector>,
}

impl AffinityTerm {
    pub fn new(selector: Selector, topology_key: Option<&str>) -> Self {
        AffinityTerm {
            selector,
            topology_key: topology_key.unwrap_or(HOSTNAME_KEY).to_string(),
            namespaces: Vec::new(),
            namespace_selector: None,
        }
    }

    /// The same term counting the pods of `namespaces`.
    pub fn in_namespaces(mut self, namespaces: &[&str]) -> Self {
        self.namespaces = namespaces.iter().map(|n| n.to_string()).collect();
        self
    }

    /// The same term counting the pods of the namespaces `selector` matches
    /// (an empty selector: every namespace).
    pub fn with_namespace_selector(mut self, selector: Selector) -> Self {
        self.namespace_selector = Some(selector);
        self
    }

    /// Its list entries: itself, its selectors' and its namespaces.
    pub fn list_entries(&self) -> usize {
        1 + self.selector.list_entries()
            + self.namespaces.len()
            + self
                .namespace_selector
                .as_ref()
                .map_or(0, Selector::list_entries)
    }
}

/// What every pod of a Deployment revision looks like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodTemplate {
    /// A version or image string; changing it (or anything else) starts a roll.
    pub version: String,
    /// The pod's effective requests (containers, init containers and
    /// overhead after Kubernetes' rule): what NodeResourcesFit's filter and
    /// NodeResourcesBalancedAllocation count, and what a node's allocatable
    /// bounds.
    pub requests: Resources,
    pub labels: Labels,
    pub node_selector: Labels,
    pub tolerations: Vec<Toleration>,
    /// Required pod affinity: the pod must land in a domain that already runs a
    /// matching pod.
    pub affinity: Vec<AffinityTerm>,
    /// Required pod anti-affinity: no matching pod may share the domain.
    pub anti_affinity: Vec<AffinityTerm>,
    /// `affinity.nodeAffinity`: required node selector terms and weighted
    /// preferences.
    pub node_affinity: NodeAffinity,
    /// Preferred pod affinity: weighted terms the InterPodAffinity score adds.
    pub preferred_affinity: Vec<WeightedAffinityTerm>,
    /// Preferred pod anti-affinity: weighted terms the InterPodAffinity score subtracts.
    pub preferred_anti_affinity: Vec<WeightedAffinityTerm>,
    /// `topologySpreadConstraints`. When empty, the scheduler's profile may
    /// apply its default constraints (kube-scheduler's "System" defaulting).
    pub topology_spread: Vec<TopologySpreadConstraint>,
    /// Ticks between binding and Ready (a readiness probe that passes after a while).
    pub ready_after: u32,
    /// `priorityClassName`: resolved to a priority when each pod is created
    /// (see `controllers/admission.rs`); `None` takes the globalDefault class, else 0.
    pub priority_class_name: Option<String>,
    /// The requests as kube-scheduler's NodeResourcesFit score counts them
    /// (`PodInfo.CalculateResource`'s `Non0CPU` and `Non0Mem`,
    /// framework/types.go): each container (and init container) that sets
    /// no cpu or memory request counts 100m or 200Mi for it, one that sets
    /// 0 counts 0. `None`: the template is one container that sets exactly
    /// the nonzero parts of `requests`, which is what a template built from
    /// requests alone means, and [`Resources::non_zero`] gives its value. A
    /// manifest's import sets it when its containers say otherwise; replace
    /// it with the requests ([`PodTemplate::with_requests`]).
    // Kept last but one: see `cluster::template_hash`.
    pub non_zero_requests: Option<Resources>,
    /// Requests of every other resource NodeResourcesFit counts (extended
    /// resources, ephemeral-storage, hugepages-*), summed over the pod as
    /// computePodResourceRequest sums them; empty for most pods.
    // Kept last but one: see `cluster::template_hash`.
    pub scalar_requests: scalar::Scalars,
    /// The host ports its containers (and restartable init containers)
    /// take on the node (`ports[].hostPort`, with protocol and hostIP):
    /// what the NodePorts filter checks. Empty for most pods (no
    /// allocation); held once per revision, never per pod.
    // Kept last: see `cluster::template_hash`.
    pub host_ports: Vec<ports::HostPort>,
}

/// The longest tolerationSeconds a toleration may give: the latest tick a
/// scenario may reach, so a deadline never overflows.
pub const MAX_TOLERATION_SECONDS: u64 = crate::util::limits::MAX_TICK;

/// The default delay between binding and Ready, in ticks.
pub const DEFAULT_READY_AFTER: u32 = 1;

impl PodTemplate {
    pub fn new(requests: Resources) -> Self {
        PodTemplate {
            version: "v1".to_string(),
            requests,
            labels: Labels::new(),
            node_selector: Labels::new(),
            tolerations: Vec::new(),
            affinity: Vec::new(),
            anti_affinity: Vec::new(),
            node_affinity: NodeAffinity::default(),
            preferred_affinity: Vec::new(),
            preferred_anti_affinity: Vec::new(),
            topology_spread: Vec::new(),
            ready_after: DEFAULT_READY_AFTER,
            priority_class_name: None,
            non_zero_requests: None,
            scalar_requests: scalar::Scalars::new(),
            host_ports: Vec::new(),
        }
    }

    /// New requests, counted for scores as one container that sets the
    /// nonzero ones and misses the others (see `non_zero_requests`).
    pub fn with_requests(mut self, requests: Resources) -> Self {
        self.requests = requests;
        self.non_zero_requests = None;
        self
    }

    /// New requests and their non-zero form as the scores count them (as a
    /// manifest's containers give them; see `non_zero_requests`).
    pub fn with_scored_requests(mut self, requests: Resources, non_zero: Resources) -> Self {
        self.requests = requests;
        self.non_zero_requests = (non_zero != requests.non_zero()).then_some(non_zero);
        self
    }

    /// The requests NodeResourcesFit's score counts for each of these pods
    /// (`Non0CPU`, `Non0Mem`): `non_zero_requests`, else the requests with
    /// the defaults for a missing cpu or memory request.
    #[inline]
    pub fn non_zero(&self) -> Resources {
        self.non_zero_requests
            .unwrap_or_else(|| self.requests.non_zero())
    }

    /// The template requesting `v` of the scalar resource `name` (e.g.
    /// `("nvidia.com/gpu", 1)`).
    pub fn with_scalar(mut self, name: &str, v: u64) -> Self {
        self.scalar_requests.set(name, v);
        self
    }

    /// The template taking host port `p` on its node (as a container's
    /// `ports[].hostPort` does).
    pub fn with_host_port(mut self, p: ports::HostPort) -> Self {
        self.host_ports.push(p);
        self
    }

    pub fn with_priority_class(mut self, name: &str) -> Self {
        self.priority_class_name = Some(name.to_string());
        self
    }

    pub fn with_label(mut self, k: &str, v: &str) -> Self {
        self.labels.insert(k.to_string(), v.to_string());
        self
    }

    pub fn with_node_selector(mut self, k: &str, v: &str) -> Self {
        self.node_selector.insert(k.to_string(), v.to_string());
        self
    }

    pub fn with_toleration(mut self, t: Toleration) -> Self {
        self.tolerations.push(t);
        self
    }

    pub fn with_affinity(mut self, t: AffinityTerm) -> Self {
        self.affinity.push(t);
        self
    }

    pub fn with_anti_affinity(mut self, t: AffinityTerm) -> Self {
        self.anti_affinity.push(t);
        self
    }

    pub fn with_node_affinity(mut self, a: NodeAffinity) -> Self {
        self.node_affinity = a;
        self
    }

    pub fn with_preferred_affinity(mut self, weight: i32, t: AffinityTerm) -> Self {
        self.preferred_affinity
            .push(WeightedAffinityTerm { weight, term: t });
        self
    }

    pub fn with_preferred_anti_affinity(mut self, weight: i32, t: AffinityTerm) -> Self {
        self.preferred_anti_affinity
            .push(WeightedAffinityTerm { weight, term: t });
        self
    }

    pub fn with_topology_spread(mut self, c: TopologySpreadConstraint) -> Self {
        self.topology_spread.push(c);
        self
    }

    pub fn with_version(mut self, v: &str) -> Self {
        self.version = v.to_string();
        self
    }

    pub fn with_ready_after(mut self, ticks: u32) -> Self {
        self.ready_after = ticks;
        self
    }

    pub fn tolerates(&self, t: &Taint) -> bool {
        self.tolerations.iter().any(|tol| tol.tolerates(t))
    }

    /// Every list entry the template carries, all its lists together (what
    /// [`MAX_TEMPLATE_ENTRIES`] bounds): labels, nodeSelector, tolerations,
    /// each affinity term and spread constraint with its selectors,
    /// requirements, values and namespaces, and node affinity's terms.
    pub fn list_entries(&self) -> usize {
        let terms = self
            .affinity
            .iter()
            .chain(self.anti_affinity.iter())
            .chain(self.preferred_affinity.iter().map(|w| &w.term))
            .chain(self.preferred_anti_affinity.iter().map(|w| &w.term))
            .map(AffinityTerm::list_entries)
            .sum::<usize>();
        self.labels.len()
            + self.node_selector.len()
            + self.tolerations.len()
            + self.host_ports.len()
            + terms
            + self.node_affinity.list_entries()
            + self
                .topology_spread
                .iter()
                .map(|c| 1 + c.selector.list_entries())
                .sum::<usize>()
    }

    pub fn validate(&self, app: &str) -> Result<(), Error> {
        // A request of zero is a pod without requests (BestEffort, as
        // Kubernetes allows): NodeResourcesFit filters on the real request,
        // so it always fits; NodeResourcesFit's score counts kube-scheduler's
        // non-zero defaults (100m cpu, 200Mi memory) for a missing request.
        if self.requests.cpu_millis > MAX_CPU_MILLIS
            || self.requests.memory_bytes > MAX_MEMORY_BYTES
        {
            return Err(Error::Invalid(format!(
                "app {app}: the pod template requests {}, beyond what any node may have; expected at most cpu {MAX_CPU_MILLIS}m and memory 1Pi ({MAX_MEMORY_BYTES} bytes)",
                self.requests
            )));
        }
        if let Some(n) = self.non_zero_requests {
            // Kubernetes' defaults only add to a container's requests, so the
            // scored form is never below the requests.
            if !self.requests.fits_in(&n) {
                return Err(Error::Invalid(format!(
                    "app {app}: the pod template's scored requests ({n}) are below its requests ({}); expected each at least the request (the non-zero defaults only add)",
                    self.requests
                )));
            }
            if n.cpu_millis > MAX_CPU_MILLIS || n.memory_bytes > MAX_MEMORY_BYTES {
                return Err(Error::Invalid(format!(
                    "app {app}: the pod template's requests with kube-scheduler's non-zero defaults (100m cpu, 200Mi memory for each container without a request) come to {n}, beyond what any node may have; expected at most cpu {MAX_CPU_MILLIS}m and memory 1Pi ({MAX_MEMORY_BYTES} bytes)"
                )));
            }
        }
        validate_labels(&self.labels, "label")?;
        validate_labels(&self.node_selector, "nodeSelector")?;
        validate_count(self.tolerations.len(), "toleration")?;
        validate_count(self.affinity.len(), "pod affinity term")?;
        validate_count(self.anti_affinity.len(), "pod anti-affinity term")?;
        validate_count(self.preferred_affinity.len(), "preferred pod affinity term")?;
        validate_count(
            self.preferred_anti_affinity.len(),
            "preferred pod anti-affinity term",
        )?;
        validate_count(self.topology_spread.len(), "topology spread constraint")?;
        validate_count(self.host_ports.len(), "host port")?;
        for (i, p) in self.host_ports.iter().enumerate() {
            p.validate(app)?;
            // Kubernetes' validation (AccumulateUniqueHostPorts) refuses the
            // same protocol, hostIP and hostPort twice in one pod.
            if self.host_ports[..i].contains(p) {
                return Err(Error::Invalid(format!(
                    "app {app}: host port {p} is given twice; expected each protocol/hostIP/hostPort once in a pod, as Kubernetes validates"
                )));
            }
        }
        let entries = self.list_entries();
        if entries > MAX_TEMPLATE_ENTRIES {
            return Err(Error::Invalid(format!(
                "app {app}: the pod template carries {entries} list entries (labels, tolerations, terms, selectors and their values together); expected at most {MAX_TEMPLATE_ENTRIES}"
            )));
        }
        for t in self.affinity.iter().chain(self.anti_affinity.iter()) {
            t.selector.validate("affinity selector")?;
            validate_label_key(&t.topology_key, "topology key")?;
            crate::model::namespace::validate_term_scope(t, "pod affinity term")?;
        }
        for w in self
            .preferred_affinity
            .iter()
            .chain(self.preferred_anti_affinity.iter())
        {
            crate::model::affinity::validate_weight(app, "preferred pod affinity", w.weight)?;
            w.term
                .selector
                .validate("preferred pod affinity selector")?;
            validate_label_key(&w.term.topology_key, "topology key")?;
            crate::model::namespace::validate_term_scope(&w.term, "preferred pod affinity term")?;
        }
        self.node_affinity.validate(app)?;
        for c in &self.topology_spread {
            c.validate(app)?;
        }
        for t in &self.tolerations {
            if !t.key.is_empty() {
                validate_label_key(&t.key, "toleration key")?;
            }
            if t.operator == TolerationOperator::Exists && !t.value.is_empty() {
                return Err(Error::Invalid(format!(
                    "app {app}: a toleration with operator Exists must have an empty value, got {}",
                    quoted(&t.value)
                )));
            }
            if let Some(secs) = t.toleration_seconds {
                // Kubernetes' validation (validateTolerations): tolerationSeconds
                // needs effect NoExecute, an empty effect included.
                if t.effect != Some(TaintEffect::NoExecute) {
                    return Err(Error::Invalid(format!(
                        "app {app}: a toleration of {} with effect {} has tolerationSeconds {secs}; expected effect NoExecute when tolerationSeconds is set",
                        quoted(&t.key),
                        t.effect.map(|e| e.as_str()).unwrap_or("(none)")
                    )));
                }
                if secs > MAX_TOLERATION_SECONDS {
                    return Err(Error::Invalid(format!(
                        "app {app}: tolerationSeconds {secs} of the toleration of {} is out of range; expected 0 to {MAX_TOLERATION_SECONDS} (the latest tick)",
                        quoted(&t.key)
                    )));
                }
            }
            if t.operator == TolerationOperator::Equal && t.key.is_empty() {
                return Err(Error::Invalid(format!(
                    "app {app}: a toleration with operator Equal needs a key; use Exists to tolerate every taint"
                )));
            }
        }
        if self.version.is_empty() || self.version.len() > 63 {
            return Err(Error::invalid(
                "version",
                &self.version,
                "1 to 63 characters",
            ));
        }
        if let Some(pc) = &self.priority_class_name {
            validate_name(pc, "priorityClassName")?;
        }
        if self.ready_after > 1000 {
            return Err(Error::Invalid(format!(
                "app {app}: readyAfter {} ticks is out of range; expected 0 to 1000",
                self.ready_after
            )));
        }
        Ok(())
    }
}

/// A node as registered by its kubelet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSpec {
    pub name: String,
    pub capacity: Resources,
    /// `status.allocatable.pods`: how many pods the node admits.
    pub max_pods: u32,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    /// `status.allocatable` of every other resource NodeResourcesFit
    /// counts (extended resources such as nvidia.com/gpu,
    /// ephemeral-storage, hugepages-*); empty on most nodes.
    pub scalars: scalar::Scalars,
}

/// Scalar resources a node offers: names Kubernetes accepts, at most
/// [`scalar::MAX_SCALARS`], amounts within the memory bound (1Pi, or that
/// many devices) so sums stay exact.
fn validate_scalars(s: &scalar::Scalars, node: &str) -> Result<(), Error> {
    if s.len() > scalar::MAX_SCALARS {
        return Err(Error::Invalid(format!(
            "node {node}: {} scalar resources; expected at most {}",
            s.len(),
            scalar::MAX_SCALARS
        )));
    }
    for (k, v) in s.iter() {
        scalar::classify(k).map_err(|e| Error::Invalid(format!("node {node}: {e}")))?;
        if v > MAX_MEMORY_BYTES {
            return Err(Error::Invalid(format!(
                "node {node}: {k} {v} is beyond the supported range; expected at most {MAX_MEMORY_BYTES}"
            )));
        }
    }
    Ok(())
}

/// The kubelet's default `maxPods`, what a node admits unless it says otherwise.
pub const DEFAULT_MAX_PODS: u32 = 110;

impl NodeSpec {
    /// A node as its kubelet registers it: with the `kubernetes.io/hostname`
    /// label set to its name (the kubelet's default, where the node's name
    /// is its hostname), which `with_label` may replace. A name longer than a
    /// label value may be (63 characters) gets no such label. Nodes read
    /// from manifests keep the labels the manifest gives instead.
    /// `memory_bytes` in bytes (`quantity::MIB` is one MiB).
    pub fn new(name: &str, cpu_millis: u64, memory_bytes: u64) -> Self {
        let mut labels = Labels::new();
        if validate_label_value(name, "").is_ok() {
            labels.insert(HOSTNAME_KEY.to_string(), name.to_string());
        }
        NodeSpec {
            name: name.to_string(),
            capacity: Resources::new(cpu_millis, memory_bytes),
            max_pods: DEFAULT_MAX_PODS,
            labels,
            taints: Vec::new(),
            scalars: scalar::Scalars::new(),
        }
    }

    /// The node with `v` of the scalar resource `name` allocatable
    /// (e.g. `("nvidia.com/gpu", 8)`).
    pub fn with_scalar(mut self, name: &str, v: u64) -> Self {
        self.scalars.set(name, v);
        self
    }

    pub fn with_label(mut self, k: &str, v: &str) -> Self {
        self.labels.insert(k.to_string(), v.to_string());
        self
    }

    pub fn with_taint(mut self, t: Taint) -> Self {
        self.taints.push(t);
        self
    }

    pub fn with_max_pods(mut self, n: u32) -> Self {
        self.max_pods = n;
        self
    }

    pub fn validate(&self) -> Result<(), Error> {
        validate_name_as(&self.name, "node", NameRule::Dns1123Subdomain)?;
        // A node may offer no cpu, memory or pods at all (Kubernetes takes
        // it; it fits only pods that request none of what it lacks, and
        // none with pods 0).
        // Bounds that keep score arithmetic exact in i64: 1,000,000 cores,
        // 1 PiB (MAX_MEMORY_BYTES says why).
        if self.capacity.cpu_millis > MAX_CPU_MILLIS
            || self.capacity.memory_bytes > MAX_MEMORY_BYTES
        {
            return Err(Error::Invalid(format!(
                "node {}: capacity {} is beyond the supported range; expected at most 1,000,000 cores and 1Pi of memory",
                self.name, self.capacity
            )));
        }
        if self.max_pods > 1_000_000 {
            return Err(Error::Invalid(format!(
                "node {}: allocatable pods {} is out of range; expected 0 to 1000000 (the kubelet's default is {DEFAULT_MAX_PODS})",
                self.name, self.max_pods
            )));
        }
        validate_labels(&self.labels, "node label")?;
        validate_scalars(&self.scalars, &self.name)?;
        validate_count(self.taints.len(), "taint")?;
        for t in &self.taints {
            validate_label_key(&t.key, "taint key")?;
            validate_label_value(&t.value, "taint value")?;
        }
        Ok(())
    }
}

/// An absolute number or a percentage, as Kubernetes' IntOrString.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOrPercent {
    Int(u32),
    Percent(u32),
}

impl IntOrPercent {
    /// Scales against `total`, rounding up or down as the caller's field requires.
    pub fn scaled(&self, total: u32, round_up: bool) -> u32 {
        match *self {
            IntOrPercent::Int(n) => n,
            IntOrPercent::Percent(p) => {
                let num = p as u64 * total as u64;
                let v = if round_up {
                    num.div_ceil(100)
                } else {
                    num / 100
                };
                v.min(u32::MAX as u64) as u32
            }
        }
    }

    /// Parses "3" or "25%".
    pub fn parse(s: &str) -> Result<Self, Error> {
        let t = s.trim();
        let (digits, pct) = match t.strip_suffix('%') {
            Some(d) => (d, true),
            None => (t, false),
        };
        let n: u32 = digits.parse().map_err(|_| {
            Error::invalid(
                "number or percentage",
                s,
                "a whole number such as 2, or a percentage such as 25%",
            )
        })?;
        if pct {
            if n > 100 {
                return Err(Error::invalid("percentage", s, "0% to 100%"));
            }
            Ok(IntOrPercent::Percent(n))
        } else {
            Ok(IntOrPercent::Int(n))
        }
    }
}

impl fmt::Display for IntOrPercent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrPercent::Int(n) => write!(f, "{}", n),
            IntOrPercent::Percent(p) => write!(f, "{}%", p),
        }
    }
}

/// A Deployment's RollingUpdate strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RollingUpdate {
    pub max_surge: IntOrPercent,
    pub max_unavailable: IntOrPercent,
}

impl Default for RollingUpdate {
    fn default() -> Self {
        RollingUpdate {
            max_surge: IntOrPercent::Percent(25),
            max_unavailable: IntOrPercent::Percent(25),
        }
    }
}

impl RollingUpdate {
    /// (maxSurge, maxUnavailable) in pods for `replicas`: surge rounds up,
    /// unavailable rounds down, as Kubernetes does. When both come out zero,
    /// Kubernetes uses maxUnavailable = 1 so the roll can move at all.
    pub fn resolve(&self, replicas: u32) -> (u32, u32) {
        let surge = self.max_surge.scaled(replicas, true);
        let unavailable = self.max_unavailable.scaled(replicas, false);
        if surge == 0 && unavailable == 0 {
            (0, 1)
        } else {
            (surge, unavailable)
        }
    }

    pub fn validate(&self, app: &str) -> Result<(), Error> {
        let zero = |v: &IntOrPercent| matches!(v, IntOrPercent::Int(0) | IntOrPercent::Percent(0));
        if zero(&self.max_surge) && zero(&self.max_unavailable) {
            return Err(Error::Invalid(format!(
                "app {app}: maxSurge and maxUnavailable are both zero, so a roll could never make progress; expected at least one above zero"
            )));
        }
        for v in [self.max_surge, self.max_unavailable] {
            if let IntOrPercent::Percent(p) = v {
                if p > 100 {
                    return Err(Error::invalid("percentage", &format!("{p}%"), "0% to 100%"));
                }
            }
        }
        Ok(())
    }
}

/// A Deployment: keep `replicas` pods of `template` running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentSpec {
    /// `NAME` in the namespace default, `NAMESPACE/NAME` in another (see
    /// `namespace.rs`).
    pub name: String,
    pub replicas: u32,
    pub template: PodTemplate,
    pub strategy: RollingUpdate,
    /// `minReadySeconds`: how long a pod must have been Ready to count as
    /// available (Kubernetes' podutil.IsPodAvailable), in ticks (one tick is
    /// one second of cluster time). Default 0: available once Ready.
    pub min_ready_seconds: u32,
    /// `progressDeadlineSeconds`: how long a rollout may go without progress
    /// before its Progressing condition turns False with reason
    /// ProgressDeadlineExceeded. Default 600; [`NO_PROGRESS_DEADLINE`]
    /// (2147483647, Kubernetes' "no deadline") keeps no Progressing condition.
    pub progress_deadline_seconds: u32,
    /// `spec.selector` when it is not the template's labels (`None`: them,
    /// as `kubectl create deployment` writes it). Immutable once the
    /// Deployment exists, as the API server holds it (apps/v1).
    pub selector: Option<Selector>,
}

/// Kubernetes' default `progressDeadlineSeconds`.
pub const DEFAULT_PROGRESS_DEADLINE_SECONDS: u32 = 600;

/// The largest `minReadySeconds` / `progressDeadlineSeconds` (an int32 in
/// Kubernetes' API); as a progress deadline it means "no deadline"
/// (deploymentutil.HasProgressDeadline).
pub const NO_PROGRESS_DEADLINE: u32 = i32::MAX as u32;

impl DeploymentSpec {
    /// A Deployment whose pods carry the label `app=<name>` (`name` may be
    /// `NAMESPACE/NAME`; the label is the name alone).
    pub fn new(name: &str, replicas: u32, requests: Resources) -> Self {
        DeploymentSpec {
            name: name.to_string(),
            replicas,
            template: PodTemplate::new(requests)
                .with_label("app", crate::model::namespace::split(name).1),
            strategy: RollingUpdate::default(),
            min_ready_seconds: 0,
            progress_deadline_seconds: DEFAULT_PROGRESS_DEADLINE_SECONDS,
            selector: None,
        }
    }

    /// Its selector: `selector`, else the template's labels.
    pub fn effective_selector(&self) -> Selector {
        self.selector.clone().unwrap_or_else(|| Selector {
            match_labels: self.template.labels.clone(),
            ..Selector::default()
        })
    }

    /// The same Deployment with `minReadySeconds`.
    pub fn with_min_ready_seconds(mut self, seconds: u32) -> Self {
        self.min_ready_seconds = seconds;
        self
    }

    /// The same Deployment with `progressDeadlineSeconds`.
    pub fn with_progress_deadline_seconds(mut self, seconds: u32) -> Self {
        self.progress_deadline_seconds = seconds;
        self
    }

    pub fn with_template(mut self, f: impl FnOnce(PodTemplate) -> PodTemplate) -> Self {
        self.template = f(self.template);
        self
    }

    pub fn with_strategy(mut self, max_surge: IntOrPercent, max_unavailable: IntOrPercent) -> Self {
        self.strategy = RollingUpdate {
            max_surge,
            max_unavailable,
        };
        self
    }

    pub fn validate(&self) -> Result<(), Error> {
        crate::model::namespace::validate_key(&self.name, "app", NameRule::Dns1123Subdomain)?;
        validate_replicas(&self.name, self.replicas)?;
        self.template.validate(&self.name)?;
        self.strategy.validate(&self.name)?;
        if let Some(sel) = &self.selector {
            sel.validate("spec.selector")?;
            if sel.is_empty() || !sel.matches(&self.template.labels) {
                return Err(Error::Invalid(format!(
                    "app {}: spec.selector {sel} does not select the template's labels; expected a selector the template's labels satisfy",
                    self.name
                )));
            }
        }
        validate_rollout_timing(
            &self.name,
            self.min_ready_seconds,
            self.progress_deadline_seconds,
        )
    }
}

/// Kubernetes' validation of the two durations (ValidateDeploymentSpec):
/// both are whole seconds within an int32, and progressDeadlineSeconds must
/// be greater than minReadySeconds, or no rollout could ever be seen to
/// progress in time.
pub fn validate_rollout_timing(
    app: &str,
    min_ready_seconds: u32,
    progress_deadline_seconds: u32,
) -> Result<(), Error> {
    if min_ready_seconds > NO_PROGRESS_DEADLINE {
        return Err(Error::Invalid(format!(
            "app {app}: minReadySeconds {min_ready_seconds} is out of range; expected 0 to {NO_PROGRESS_DEADLINE}"
        )));
    }
    if progress_deadline_seconds > NO_PROGRESS_DEADLINE {
        return Err(Error::Invalid(format!(
            "app {app}: progressDeadlineSeconds {progress_deadline_seconds} is out of range; expected 1 to {NO_PROGRESS_DEADLINE}"
        )));
    }
    if progress_deadline_seconds <= min_ready_seconds {
        return Err(Error::Invalid(format!(
            "app {app}: progressDeadlineSeconds {progress_deadline_seconds} must be greater than minReadySeconds {min_ready_seconds}; expected a deadline above {min_ready_seconds} (the default is {DEFAULT_PROGRESS_DEADLINE_SECONDS})"
        )));
    }
    Ok(())
}

pub fn validate_replicas(app: &str, replicas: u32) -> Result<(), Error> {
    if replicas > MAX_REPLICAS {
        return Err(Error::Invalid(format!(
            "app {app}: {replicas} replicas is more than the {MAX_REPLICAS} supported; expected 0 to {MAX_REPLICAS}"
        )));
    }
    Ok(())
}

/// The budget of a PodDisruptionBudget: one of the two, as in Kubernetes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    MinAvailable(IntOrPercent),
    MaxUnavailable(IntOrPercent),
}

/// A PodDisruptionBudget: caps voluntary evictions of the pods it selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdbSpec {
    /// `NAME` or `NAMESPACE/NAME`: it selects the pods of its namespace only.
    pub name: String,
    pub selector: Selector,
    pub budget: Budget,
}

impl PdbSpec {
    pub fn validate(&self) -> Result<(), Error> {
        crate::model::namespace::validate_key(
            &self.name,
            "PodDisruptionBudget",
            NameRule::Dns1123Subdomain,
        )?;
        if self.selector.is_empty() {
            return Err(Error::Invalid(format!(
                "PodDisruptionBudget {}: the selector is empty; expected at least one label, e.g. app=web",
                self.name
            )));
        }
        self.selector.validate("selector")?;
        let v = match self.budget {
            Budget::MinAvailable(v) | Budget::MaxUnavailable(v) => v,
        };
        if let IntOrPercent::Percent(p) = v {
            if p > 100 {
                return Err(Error::invalid("percentage", &format!("{p}%"), "0% to 100%"));
            }
        }
        Ok(())
    }
}

/// A Service: its endpoints are the Ready pods its selector matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceSpec {
    /// `NAME` or `NAMESPACE/NAME`: it selects the pods of its namespace only.
    pub name: String,
    pub selector: Selector,
}

impl ServiceSpec {
    pub fn validate(&self) -> Result<(), Error> {
        crate::model::namespace::validate_key(&self.name, "Service", NameRule::Dns1035Label)?;
        if self.selector.is_empty() {
            return Err(Error::Invalid(format!(
                "Service {}: the selector is empty; expected at least one label, e.g. app=web",
                self.name
            )));
        }
        self.selector.validate("selector")
    }
}

/// Which of Kubernetes' name rules an object's name follows
/// (apimachinery's `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// At most 63 lowercase letters, digits or '-', starting and ending with
    /// a letter or digit.
    Dns1123Label,
    /// At most 253 characters: DNS-1123 labels joined by '.' (each part
    /// starting and ending with a letter or digit). Nodes, Deployments,
    /// DaemonSets, Pods and PodDisruptionBudgets
    /// (`ValidateNodeName`, `ValidateDeploymentName`, ... = `NameIsDNSSubdomain`).
    Dns1123Subdomain,
    /// A DNS-1123 label that starts with a letter: Services
    /// (`ValidateServiceName` = `NameIsDNS1035Label`).
    Dns1035Label,
}

impl NameRule {
    fn expected(self) -> &'static str {
        match self {
            NameRule::Dns1123Label => "1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit",
            NameRule::Dns1123Subdomain => "1 to 253 lowercase letters, digits, '-' or '.', each dot-separated part starting and ending with a letter or digit (a DNS-1123 subdomain, e.g. ip-10-0-0-1.ec2.internal)",
            NameRule::Dns1035Label => "1 to 63 lowercase letters, digits or '-', starting with a letter and ending with a letter or digit",
        }
    }

    /// Whether `name` follows the rule.
    pub fn accepts(self, name: &str) -> bool {
        let label_ok = |part: &str, max: usize| {
            let b = part.as_bytes();
            !b.is_empty()
                && b.len() <= max
                && b.iter()
                    .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
        };
        match self {
            NameRule::Dns1123Label => label_ok(name, 63),
            NameRule::Dns1035Label => label_ok(name, 63) && name.as_bytes()[0].is_ascii_lowercase(),
            NameRule::Dns1123Subdomain => {
                name.len() <= 253 && name.split('.').all(|part| label_ok(part, 253))
            }
        }
    }
}

/// Object names follow DNS-1123 labels: what Kubernetes accepts for most
/// label-like names (a scheduler profile's name here).
pub fn validate_name(name: &str, kind: &str) -> Result<(), Error> {
    validate_name_as(name, kind, NameRule::Dns1123Label)
}

/// `name` checked against Kubernetes' rule for its kind.
pub fn validate_name_as(name: &str, kind: &str, rule: NameRule) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::Invalid(format!(
            "{kind} name is empty; expected {}",
            rule.expected()
        )));
    }
    if !rule.accepts(name) {
        return Err(Error::Invalid(format!(
            "{kind} name {} is not valid; expected {}",
            quoted(name),
            rule.expected()
        )));
    }
    Ok(())
}

/// Kubernetes' name part of a qualified name and a label value: at most 63
/// letters, digits, '-', '_' or '.', starting and ending with a letter or
/// digit (apimachinery's `qualifiedNameFmt`).
fn label_name_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// A label key, taint key, toleration key or topology key: Kubernetes'
/// qualified name (apimachinery `IsQualifiedName`): a name part, optionally
/// after a DNS-1123 subdomain prefix and '/'.
pub fn validate_label_key(k: &str, what: &str) -> Result<(), Error> {
    let ok = match k.split_once('/') {
        None => label_name_ok(k),
        Some((prefix, name)) => {
            !prefix.is_empty() && NameRule::Dns1123Subdomain.accepts(prefix) && label_name_ok(name)
        }
    };
    if !ok {
        return Err(Error::Invalid(format!(
            "{what} {} is not valid; expected a qualified name: 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, optionally after a DNS subdomain prefix and '/' (e.g. app or example.com/tier)",
            quoted(k)
        )));
    }
    Ok(())
}

/// A label value: empty, or a name part as in [`validate_label_key`]
/// (apimachinery `IsValidLabelValue`).
pub fn validate_label_value(v: &str, what: &str) -> Result<(), Error> {
    if !(v.is_empty() || label_name_ok(v)) {
        return Err(Error::Invalid(format!(
            "{what} {} is not valid; expected at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (or empty)",
            quoted(v)
        )));
    }
    Ok(())
}

pub use crate::util::limits::{MAX_LIST, MAX_TEMPLATE_ENTRIES, MAX_VALUES};

/// A list within [`MAX_LIST`] (`what` names its entries).
pub(crate) fn validate_count(n: usize, what: &str) -> Result<(), Error> {
    if n > MAX_LIST {
        return Err(Error::Invalid(format!(
            "{n} {what} entries is more than the limit of {MAX_LIST}; expected at most {MAX_LIST}"
        )));
    }
    Ok(())
}

/// A requirement's values within [`MAX_VALUES`].
pub(crate) fn validate_values(n: usize, what: &str) -> Result<(), Error> {
    if n > MAX_VALUES {
        return Err(Error::Invalid(format!(
            "{what}: {n} values is more than the limit of {MAX_VALUES}; expected at most {MAX_VALUES}"
        )));
    }
    Ok(())
}

pub(crate) fn validate_labels(l: &Labels, what: &str) -> Result<(), Error> {
    validate_count(l.len(), what)?;
    for (k, v) in l {
        validate_label_key(k, what)?;
        validate_label_value(v, what)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::MIB;

    /// A template's scored requests: the one-container form unless stated,
    /// kept only when they differ from it, dropped with new requests, and
    /// refused below the requests or beyond any node.
    #[test]
    fn scored_requests_are_stated_only_where_containers_differ() {
        let t = PodTemplate::new(Resources::new(0, 512 * MIB));
        assert_eq!(t.non_zero(), Resources::new(100, 512 * MIB));
        let zero = t
            .clone()
            .with_scored_requests(Resources::new(0, 512 * MIB), Resources::new(0, 512 * MIB));
        assert_eq!(zero.non_zero_requests, Some(Resources::new(0, 512 * MIB)));
        assert_eq!(zero.non_zero(), Resources::new(0, 512 * MIB));
        let same = t
            .clone()
            .with_scored_requests(Resources::new(0, 512 * MIB), Resources::new(100, 512 * MIB));
        assert_eq!(same, t, "the one-container form is not stated");
        assert_eq!(zero.clone().with_requests(Resources::new(0, 512 * MIB)), t);
        assert!(zero.validate("web").is_ok());
        let below = t.clone().with_scored_requests(
            Resources::new(300, 512 * MIB),
            Resources::new(200, 512 * MIB),
        );
        let e = below.validate("web").unwrap_err().to_string();
        assert!(e.contains("below its requests"), "{e}");
        let huge = t.with_scored_requests(
            Resources::new(MAX_CPU_MILLIS, 512 * MIB),
            Resources::new(MAX_CPU_MILLIS + 100, 512 * MIB),
        );
        let e = huge.validate("web").unwrap_err().to_string();
        assert!(e.contains("non-zero defaults"), "{e}");
    }

    #[test]
    fn int_or_percent_parses_numbers_and_percentages() {
        assert_eq!(IntOrPercent::parse("3"), Ok(IntOrPercent::Int(3)));
        assert_eq!(IntOrPercent::parse(" 25% "), Ok(IntOrPercent::Percent(25)));
        assert!(IntOrPercent::parse("101%").is_err());
        assert!(IntOrPercent::parse("-1").is_err());
        assert!(IntOrPercent::parse("a%").is_err());
    }

    #[test]
    fn rolling_update_rounds_as_kubernetes_does() {
        let s = RollingUpdate::default();
        assert_eq!(s.resolve(10), (3, 2)); // surge up, unavailable down
        assert_eq!(s.resolve(1), (1, 0));
        let zero = RollingUpdate {
            max_surge: IntOrPercent::Percent(0),
            max_unavailable: IntOrPercent::Percent(10),
        };
        assert_eq!(zero.resolve(5), (0, 1)); // both zero after rounding: one may be unavailable
        let refused = RollingUpdate {
            max_surge: IntOrPercent::Int(0),
            max_unavailable: IntOrPercent::Percent(0),
        };
        assert!(refused.validate("web").is_err());
    }

    #[test]
    fn names_follow_dns_labels() {
        assert!(validate_name("web-1", "app").is_ok());
        for bad in [
            "",
            "-web",
            "web-",
            "Web",
            "web_1",
            "<b>",
            &"a".repeat(64),
            "a.b",
        ] {
            let e = validate_name(bad, "app").unwrap_err();
            assert!(e.to_string().contains("expected"), "{e}");
        }
    }

    #[test]
    fn names_follow_kubernetes_rule_per_kind() {
        let sub = NameRule::Dns1123Subdomain;
        for ok in [
            "ip-10-0-0-1.ec2.internal",
            "a",
            "web.v2",
            "0x",
            &"a".repeat(253),
        ] {
            assert!(sub.accepts(ok), "{ok}");
        }
        let long = format!("{}.{}", "a".repeat(200), "b".repeat(53));
        assert_eq!(long.len(), 254);
        for bad in ["", ".a", "a.", "a..b", "a.-b", "a-.b", "A.b", "a_b", &long] {
            assert!(!sub.accepts(bad), "{bad}");
        }
        let svc = NameRule::Dns1035Label;
        assert!(svc.accepts("web-1"));
        for bad in ["1web", "web.v2", "-web", &"a".repeat(64)] {
            assert!(!svc.accepts(bad), "{bad}");
        }
        assert!(NodeSpec::new("ip-10-0-0-1.ec2.internal", 1000, 1024 * MIB)
            .validate()
            .is_ok());
        let e = NodeSpec::new("ip_10", 1000, 1024 * MIB)
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains("DNS-1123 subdomain"), "{e}");
        let e = ServiceSpec {
            name: "1web".into(),
            selector: Selector::new(&[("app", "web")]),
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("starting with a letter"), "{e}");
    }

    #[test]
    fn tolerations_match_taints_by_operator_and_effect() {
        let gpu = Taint::new("dedicated", "gpu", TaintEffect::NoSchedule);
        assert!(Toleration::equal("dedicated", "gpu", None).tolerates(&gpu));
        assert!(!Toleration::equal("dedicated", "cpu", None).tolerates(&gpu));
        assert!(Toleration::exists("dedicated", Some(TaintEffect::NoSchedule)).tolerates(&gpu));
        assert!(!Toleration::exists("dedicated", Some(TaintEffect::NoExecute)).tolerates(&gpu));
        assert!(Toleration::exists("", None).tolerates(&gpu));
    }

    /// Zero requests and zero allocatable are both valid, as in Kubernetes
    /// (a node with no cpu, memory or pods fits pods that need none of it).
    #[test]
    fn zero_capacity_and_zero_requests_are_valid() {
        assert!(PodTemplate::new(Resources::ZERO).validate("web").is_ok());
        assert!(NodeSpec::new("n", 0, 1024 * MIB).validate().is_ok());
        assert!(NodeSpec::new("n", 1000, 0).validate().is_ok());
        assert!(NodeSpec::new("n", 1000, 1024 * MIB)
            .with_max_pods(0)
            .validate()
            .is_ok());
        assert!(NodeSpec::new("n", 1000, 1024 * MIB)
            .with_max_pods(1_000_001)
            .validate()
            .is_err());
        assert!(
            DeploymentSpec::new("web", MAX_REPLICAS + 1, Resources::new(1, MIB))
                .validate()
                .is_err()
        );
    }
}
