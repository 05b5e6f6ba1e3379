//! Engine declarations to Kubernetes manifests, and the placement as
//! `kubectl get pods -o wide` prints it.

use std::fmt::Write as _;

use shepherd::model::{
    NodeAffinity, NodeInclusionPolicy, NodeSelectorTerm, TopologySpreadConstraint,
    WeightedAffinityTerm, DEFAULT_READY_AFTER,
};
use shepherd::{
    AffinityTerm, BarePodSpec, Budget, Cluster, DaemonSetSpec, DeploymentSpec, IntOrPercent,
    Labels, PodTemplate, Toleration, TolerationOperator,
};
use shepherd::{Profile, Selector};

use crate::kept::Decl;
use crate::scenario::{ImportedNode, Scenario};
use crate::value::Value;

pub use crate::scenario::{ANNOTATION_READY_AFTER, ANNOTATION_VERSION};

/// The image exported pods run: the pause container, which does nothing.
const IMAGE: &str = "registry.k8s.io/pause:3.9";

fn s(x: &str) -> Value {
    Value::Str(x.to_string())
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn labels(l: &Labels) -> Value {
    Value::Map(l.iter().map(|(k, v)| (k.clone(), s(v))).collect())
}

fn int_or_percent(v: IntOrPercent) -> Value {
    match v {
        IntOrPercent::Int(n) => Value::UInt(n as u64),
        IntOrPercent::Percent(p) => s(&format!("{p}%")),
    }
}

fn node(n: &ImportedNode) -> Value {
    let mut resources = map(vec![
        ("cpu", s(&format!("{}m", n.spec.capacity.cpu_millis))),
        (
            "memory",
            s(&shepherd::quantity::format_memory_bytes(
                n.spec.capacity.memory_bytes,
            )),
        ),
        ("pods", s(&n.spec.max_pods.to_string())),
    ]);
    if let Value::Map(m) = &mut resources {
        m.extend(
            n.spec
                .scalars
                .iter()
                .map(|(k, v)| (k.to_string(), scalar_quantity(k, v))),
        );
    }
    let mut spec = Vec::new();
    if n.unschedulable {
        spec.push(("unschedulable", Value::Bool(true)));
    }
    if !n.spec.taints.is_empty() {
        spec.push((
            "taints",
            Value::Seq(
                n.spec
                    .taints
                    .iter()
                    .map(|t| {
                        let mut m = vec![("key", s(&t.key))];
                        if !t.value.is_empty() {
                            m.push(("value", s(&t.value)));
                        }
                        m.push(("effect", s(t.effect.as_str())));
                        map(m)
                    })
                    .collect(),
            ),
        ));
    }
    let mut meta = vec![("name", s(&n.spec.name))];
    if !n.spec.labels.is_empty() {
        meta.push(("labels", labels(&n.spec.labels)));
    }
    let mut obj = vec![
        ("apiVersion", s("v1")),
        ("kind", s("Node")),
        ("metadata", map(meta)),
    ];
    if !spec.is_empty() {
        obj.push(("spec", map(spec)));
    }
    obj.push((
        "status",
        map(vec![
            ("allocatable", resources.clone()),
            ("capacity", resources),
            (
                "conditions",
                Value::Seq(vec![map(vec![
                    ("type", s("Ready")),
                    ("status", s(if n.ready { "True" } else { "False" })),
                ])]),
            ),
        ]),
    ));
    map(obj)
}

fn toleration(t: &Toleration) -> Value {
    let mut m = Vec::new();
    if !t.key.is_empty() {
        m.push(("key", s(&t.key)));
    }
    match t.operator {
        TolerationOperator::Exists => m.push(("operator", s("Exists"))),
        TolerationOperator::Equal => {
            m.push(("operator", s("Equal")));
            m.push(("value", s(&t.value)));
        }
    }
    if let Some(e) = t.effect {
        m.push(("effect", s(e.as_str())));
    }
    if let Some(secs) = t.toleration_seconds {
        m.push(("tolerationSeconds", Value::UInt(secs)));
    }
    map(m)
}

fn strings(v: &[String]) -> Value {
    Value::Seq(v.iter().map(|x| s(x)).collect())
}

/// A label selector: matchLabels, and matchExpressions when there are any.
fn selector(sel: &Selector) -> Value {
    let mut m = vec![("matchLabels", labels(&sel.match_labels))];
    if !sel.match_expressions.is_empty() {
        m.push((
            "matchExpressions",
            Value::Seq(
                sel.match_expressions
                    .iter()
                    .map(|r| {
                        let mut e = vec![("key", s(&r.key)), ("operator", s(r.operator.as_str()))];
                        if !r.values.is_empty() {
                            e.push(("values", strings(&r.values)));
                        }
                        map(e)
                    })
                    .collect(),
            ),
        ));
    }
    map(m)
}

fn term(t: &AffinityTerm) -> Value {
    let mut m = Vec::new();
    // A selector of no pods is Kubernetes' missing labelSelector.
    if !crate::import::is_nothing(&t.selector, &t.topology_key) {
        m.push(("labelSelector", selector(&t.selector)));
    }
    m.push(("topologyKey", s(&t.topology_key)));
    if !t.namespaces.is_empty() {
        m.push(("namespaces", strings(&t.namespaces)));
    }
    if let Some(ns) = &t.namespace_selector {
        m.push(("namespaceSelector", selector(ns)));
    }
    map(m)
}

/// `metadata` of a namespaced object: its name and namespace, from its
/// engine key (`NAME` or `NAMESPACE/NAME`).
fn object_meta(key: &str) -> Value {
    let (ns, name) = shepherd::namespace::split(key);
    map(vec![("name", s(name)), ("namespace", s(ns))])
}

fn pod_terms(required: &[AffinityTerm], preferred: &[WeightedAffinityTerm]) -> Option<Value> {
    let mut m = Vec::new();
    if !required.is_empty() {
        m.push((
            "requiredDuringSchedulingIgnoredDuringExecution",
            Value::Seq(required.iter().map(term).collect()),
        ));
    }
    if !preferred.is_empty() {
        m.push((
            "preferredDuringSchedulingIgnoredDuringExecution",
            Value::Seq(
                preferred
                    .iter()
                    .map(|w| {
                        map(vec![
                            ("weight", Value::Int(w.weight as i64)),
                            ("podAffinityTerm", term(&w.term)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    (!m.is_empty()).then(|| map(m))
}

fn node_term(t: &NodeSelectorTerm) -> Value {
    let reqs = |rs: &[shepherd::model::NodeSelectorRequirement]| {
        Value::Seq(
            rs.iter()
                .map(|r| {
                    let mut e = vec![("key", s(&r.key)), ("operator", s(r.operator.as_str()))];
                    if !r.values.is_empty() {
                        e.push(("values", strings(&r.values)));
                    }
                    map(e)
                })
                .collect(),
        )
    };
    let mut m = Vec::new();
    if !t.match_expressions.is_empty() {
        m.push(("matchExpressions", reqs(&t.match_expressions)));
    }
    if !t.match_fields.is_empty() {
        m.push(("matchFields", reqs(&t.match_fields)));
    }
    map(m)
}

fn node_affinity(a: &NodeAffinity) -> Option<Value> {
    let mut m = Vec::new();
    if let Some(req) = &a.required {
        m.push((
            "requiredDuringSchedulingIgnoredDuringExecution",
            map(vec![(
                "nodeSelectorTerms",
                Value::Seq(req.iter().map(node_term).collect()),
            )]),
        ));
    }
    if !a.preferred.is_empty() {
        m.push((
            "preferredDuringSchedulingIgnoredDuringExecution",
            Value::Seq(
                a.preferred
                    .iter()
                    .map(|p| {
                        map(vec![
                            ("weight", Value::Int(p.weight as i64)),
                            ("preference", node_term(&p.preference)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    (!m.is_empty()).then(|| map(m))
}

fn spread(c: &TopologySpreadConstraint) -> Value {
    let mut m = vec![
        ("maxSkew", Value::UInt(c.max_skew as u64)),
        ("topologyKey", s(&c.topology_key)),
        ("whenUnsatisfiable", s(c.when_unsatisfiable.as_str())),
    ];
    if !crate::import::is_nothing(&c.selector, &c.topology_key) {
        m.push(("labelSelector", selector(&c.selector)));
    }
    if let Some(d) = c.min_domains {
        m.push(("minDomains", Value::UInt(d as u64)));
    }
    // Kubernetes' defaults (Honor, Ignore) are left out, as it leaves them.
    if c.node_affinity_policy != NodeInclusionPolicy::Honor {
        m.push(("nodeAffinityPolicy", s(c.node_affinity_policy.as_str())));
    }
    if c.node_taints_policy != NodeInclusionPolicy::Ignore {
        m.push(("nodeTaintsPolicy", s(c.node_taints_policy.as_str())));
    }
    map(m)
}

/// The containers (and init containers) that give the template's requests
/// and, read back by kube-scheduler's rule (framework/types.go
/// CalculateResource), its scored requests: one `pause` container holding
/// the requests, a missing one for a zero request (BestEffort has no
/// resources at all). When the scored requests say more (a manifest's
/// containers set 0, or several missed a request), each resource is
/// written as: the main container sets `E` (0 written out), `k` more
/// containers miss it (each counts the non-zero default `D` for the
/// score, 0 for the request), and, when `E` is below the request `R`, one
/// init container sets `R` (the pod's request is the larger of the
/// containers' sum and an init container's, so `R` stays the request and
/// `E + k D` the scored one). `k` is the fewest that reach the scored
/// request `N`: `(N - R) / D` when `D` divides it, else rounded up with
/// `E = N - k D`. Every `N` a manifest can give is reached so exactly; an
/// `N` no manifest gives is rounded up to one.
fn containers(t: &PodTemplate) -> (Vec<Value>, Vec<Value>) {
    use shepherd::model::{DEFAULT_MEMORY_REQUEST_BYTES, DEFAULT_MILLI_CPU_REQUEST};
    let cpu = |v: u64| s(&format!("{v}m"));
    let mem = |v: u64| s(&shepherd::quantity::format_memory_bytes(v));
    let pause = |name: String, requests: Vec<(&'static str, Value)>| {
        let mut c = vec![("name", s(&name)), ("image", s(IMAGE))];
        if !requests.is_empty() {
            c.push(("resources", map(vec![("requests", map(requests))])));
        }
        map(c)
    };
    let r = t.requests;
    let Some(n) = t.non_zero_requests else {
        let mut requests = Vec::new();
        if r.cpu_millis > 0 {
            requests.push(("cpu", cpu(r.cpu_millis)));
        }
        if r.memory_bytes > 0 {
            requests.push(("memory", mem(r.memory_bytes)));
        }
        return (vec![pause("app".to_string(), requests)], Vec::new());
    };
    // Per resource: (the main container's value, None for missing; how
    // many more containers miss it).
    let plan = |r: u64, n: u64, d: u64| -> (Option<u64>, u64) {
        if n == r {
            (Some(r), 0)
        } else if r == 0 && n == d {
            (None, 0)
        } else {
            let k = n.saturating_sub(r).div_ceil(d);
            (Some(n.saturating_sub(k * d)), k)
        }
    };
    let (c_main, c_more) = plan(r.cpu_millis, n.cpu_millis, DEFAULT_MILLI_CPU_REQUEST);
    let (m_main, m_more) = plan(r.memory_bytes, n.memory_bytes, DEFAULT_MEMORY_REQUEST_BYTES);
    let mut main = Vec::new();
    if let Some(v) = c_main {
        main.push(("cpu", cpu(v)));
    }
    if let Some(v) = m_main {
        main.push(("memory", mem(v)));
    }
    let mut out = vec![pause("app".to_string(), main)];
    for j in 0..c_more.max(m_more) {
        let mut req = Vec::new();
        if j >= c_more {
            req.push(("cpu", cpu(0)));
        }
        if j >= m_more {
            req.push(("memory", mem(0)));
        }
        out.push(pause(format!("app-{}", j + 1), req));
    }
    let below = |main: Option<u64>, r: u64| main.is_some_and(|e| e < r);
    let mut init = Vec::new();
    if below(c_main, r.cpu_millis) || below(m_main, r.memory_bytes) {
        init.push(pause(
            "init".to_string(),
            vec![("cpu", cpu(r.cpu_millis)), ("memory", mem(r.memory_bytes))],
        ));
    }
    (out, init)
}

/// The template's host ports on its main container (`ports[]`, each
/// containerPort the same as its hostPort; hostIP only when not every
/// address), read back in the same order.
fn with_host_ports(c: &mut Value, t: &PodTemplate) {
    if t.host_ports.is_empty() {
        return;
    }
    let Value::Map(c) = c else { return };
    let ports = t
        .host_ports
        .iter()
        .map(|h| {
            let mut m = vec![
                ("containerPort", Value::UInt(h.port as u64)),
                ("hostPort", Value::UInt(h.port as u64)),
                ("protocol", s(h.protocol.as_str())),
            ];
            if !h.binds_all() {
                m.push(("hostIP", s(&h.host_ip)));
            }
            map(m)
        })
        .collect();
    c.push(("ports".to_string(), Value::Seq(ports)));
}

/// One scalar resource's amount as a quantity.
fn scalar_quantity(name: &str, v: u64) -> Value {
    if shepherd::scalar::is_bytes(name) {
        s(&shepherd::quantity::format_memory_bytes(v))
    } else {
        s(&v.to_string())
    }
}

/// The template's scalar requests on its main container, as requests and
/// equal limits (extended resources and huge pages need the limit).
fn with_scalars(c: &mut Value, t: &PodTemplate) {
    if t.scalar_requests.is_empty() {
        return;
    }
    let Value::Map(c) = c else { return };
    let list = || {
        t.scalar_requests
            .iter()
            .map(|(k, v)| (k.to_string(), scalar_quantity(k, v)))
            .collect::<Vec<_>>()
    };
    if !c.iter().any(|(k, _)| k == "resources") {
        c.push(("resources".to_string(), Value::Map(Vec::new())));
    }
    for (k, r) in c.iter_mut() {
        if let (true, Value::Map(r)) = (k == "resources", r) {
            if !r.iter().any(|(k, _)| k == "requests") {
                r.push(("requests".to_string(), Value::Map(Vec::new())));
            }
            for (k, q) in r.iter_mut() {
                if let (true, Value::Map(q)) = (k == "requests", q) {
                    q.extend(list());
                }
            }
            r.push(("limits".to_string(), Value::Map(list())));
        }
    }
}

fn template(t: &PodTemplate) -> Value {
    let mut annotations = vec![(ANNOTATION_VERSION, s(&t.version))];
    if t.ready_after != DEFAULT_READY_AFTER {
        annotations.push((ANNOTATION_READY_AFTER, s(&t.ready_after.to_string())));
    }
    let (mut containers, init) = containers(t);
    with_scalars(&mut containers[0], t);
    with_host_ports(&mut containers[0], t);
    let mut spec = Vec::new();
    if !t.node_selector.is_empty() {
        spec.push(("nodeSelector", labels(&t.node_selector)));
    }
    if !t.tolerations.is_empty() {
        spec.push((
            "tolerations",
            Value::Seq(t.tolerations.iter().map(toleration).collect()),
        ));
    }
    let mut aff = Vec::new();
    if let Some(v) = node_affinity(&t.node_affinity) {
        aff.push(("nodeAffinity", v));
    }
    if let Some(v) = pod_terms(&t.affinity, &t.preferred_affinity) {
        aff.push(("podAffinity", v));
    }
    if let Some(v) = pod_terms(&t.anti_affinity, &t.preferred_anti_affinity) {
        aff.push(("podAntiAffinity", v));
    }
    if !aff.is_empty() {
        spec.push(("affinity", map(aff)));
    }
    if !t.topology_spread.is_empty() {
        spec.push((
            "topologySpreadConstraints",
            Value::Seq(t.topology_spread.iter().map(spread).collect()),
        ));
    }
    if let Some(pc) = &t.priority_class_name {
        spec.push(("priorityClassName", s(pc)));
    }
    if !init.is_empty() {
        spec.push(("initContainers", Value::Seq(init)));
    }
    spec.push(("containers", Value::Seq(containers)));
    map(vec![
        (
            "metadata",
            map(vec![
                ("labels", labels(&t.labels)),
                ("annotations", map(annotations)),
            ]),
        ),
        ("spec", map(spec)),
    ])
}

fn daemonset(d: &DaemonSetSpec) -> Value {
    map(vec![
        ("apiVersion", s("apps/v1")),
        ("kind", s("DaemonSet")),
        ("metadata", object_meta(&d.name)),
        (
            "spec",
            map(vec![
                (
                    "selector",
                    map(vec![("matchLabels", labels(&d.template.labels))]),
                ),
                ("updateStrategy", daemonset_strategy(d)),
                ("template", daemonset_template(d)),
            ]
            .into_iter()
            .chain(
                (d.min_ready_seconds > 0)
                    .then_some(("minReadySeconds", Value::UInt(d.min_ready_seconds as u64))),
            )
            .collect()),
        ),
    ])
}

/// A DaemonSet's pod template: `hostNetwork: true` beside the containers
/// when set (false is the default and is left out).
fn daemonset_template(d: &DaemonSetSpec) -> Value {
    let mut t = template(&d.template);
    if d.host_network {
        if let Value::Map(top) = &mut t {
            for (k, v) in top.iter_mut() {
                if let (true, Value::Map(spec)) = (k == "spec", v) {
                    let at = spec.len().saturating_sub(1);
                    spec.insert(at, ("hostNetwork".to_string(), Value::Bool(true)));
                }
            }
        }
    }
    t
}

/// `spec.updateStrategy` with both numbers (OnDelete does not read them,
/// and the API server keeps them as given).
fn daemonset_strategy(d: &DaemonSetSpec) -> Value {
    map(vec![
        ("type", s(d.strategy.as_str())),
        (
            "rollingUpdate",
            map(vec![
                ("maxSurge", int_or_percent(d.max_surge)),
                ("maxUnavailable", int_or_percent(d.max_unavailable)),
            ]),
        ),
    ])
}

/// A bare Pod: the template's metadata and spec as the Pod's own, with
/// `spec.nodeName` when it is bound by name.
fn bare_pod(p: &BarePodSpec) -> Value {
    let Value::Map(t) = template(&p.template) else {
        unreachable!("template() writes a mapping")
    };
    let (ns, name) = shepherd::namespace::split(&p.name);
    let mut meta = vec![
        ("name".to_string(), s(name)),
        ("namespace".to_string(), s(ns)),
    ];
    let mut spec = Value::Null;
    for (k, v) in t {
        match (k.as_str(), v) {
            ("metadata", Value::Map(m)) => meta.extend(m),
            ("spec", Value::Map(mut m)) => {
                if let Some(n) = &p.node_name {
                    m.insert(0, ("nodeName".to_string(), s(n)));
                }
                spec = Value::Map(m);
            }
            _ => {}
        }
    }
    map(vec![
        ("apiVersion", s("v1")),
        ("kind", s("Pod")),
        ("metadata", Value::Map(meta)),
        ("spec", spec),
    ])
}

/// The status of a running pod whose Ready condition is False.
fn not_ready() -> Value {
    map(vec![
        ("phase", s("Running")),
        (
            "conditions",
            Value::Seq(vec![map(vec![
                ("type", s("Ready")),
                ("status", s("False")),
            ])]),
        ),
    ])
}

/// The annotation that numbers a Deployment's revisions, on it and on
/// its ReplicaSets (pkg/controller/deployment/util: RevisionAnnotation).
const REVISION: &str = "deployment.kubernetes.io/revision";

/// A controller's pod `p` as it runs: `given`, the pod template of its
/// owner's kept document (the user's containers, images and every other
/// field), else the engine's `template`, under the pod's name with its
/// ReplicaSet's `pod-template-hash` and its `spec.nodeName`. A
/// StatefulSet's pod (`stateful`: its StatefulSet's key) carries the
/// identity its controller gives it (pkg/controller/statefulset,
/// stateful_set_utils.go, initIdentity and updateIdentity: the labels
/// `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`,
/// `spec.hostname` the pod's name, `spec.subdomain` the StatefulSet's
/// serviceName).
fn running_pod(
    p: &shepherd::RunningPod,
    template: &PodTemplate,
    given: Option<&Value>,
    hash: Option<&str>,
    stateful: Option<(&String, Option<&str>)>,
) -> Value {
    let t = match given {
        Some(t) => t.clone(),
        None => self::template(template),
    };
    let (ns, name) = shepherd::namespace::split(&p.name);
    let mut meta = vec![
        ("name".to_string(), s(name)),
        ("namespace".to_string(), s(ns)),
    ];
    let mut lab = match t.get("metadata").and_then(|m| m.get("labels")) {
        Some(Value::Map(l)) => l.clone(),
        _ => Vec::new(),
    };
    let mut set = |k: &str, v: Value| match lab.iter_mut().find(|(x, _)| x == k) {
        Some((_, slot)) => *slot = v,
        None => lab.push((k.to_string(), v)),
    };
    if let Some(h) = hash {
        set(shepherd::model::POD_TEMPLATE_HASH, s(h));
    }
    let index = stateful.and_then(|(sts, _)| {
        let base = shepherd::namespace::split(sts).1;
        name.strip_prefix(base)?
            .strip_prefix('-')?
            .parse::<u32>()
            .ok()
    });
    if let Some(i) = index {
        set("statefulset.kubernetes.io/pod-name", s(name));
        set("apps.kubernetes.io/pod-index", s(&i.to_string()));
    }
    if !lab.is_empty() {
        meta.push(("labels".to_string(), Value::Map(lab)));
    }
    if let Some(a) = t.get("metadata").and_then(|m| m.get("annotations")) {
        meta.push(("annotations".to_string(), a.clone()));
    }
    let mut spec = match t.get("spec") {
        Some(Value::Map(m)) => m.clone(),
        _ => Vec::new(),
    };
    spec.retain(|(k, _)| k != "nodeName");
    if let Some(n) = &p.node {
        spec.insert(0, ("nodeName".to_string(), s(n)));
    }
    if index.is_some() && !spec.iter().any(|(k, _)| k == "hostname") {
        spec.push(("hostname".to_string(), s(name)));
        if let Some(svc) = stateful.and_then(|x| x.1) {
            spec.push(("subdomain".to_string(), s(svc)));
        }
    }
    map(vec![
        ("apiVersion", s("v1")),
        ("kind", s("Pod")),
        ("metadata", Value::Map(meta)),
        ("spec", Value::Map(spec)),
    ])
}

/// A Deployment's ReplicaSet `name` (its key): the template with its
/// pod-template-hash label, the Deployment's selector and that label.
/// `revision`: its place among the Deployment's ReplicaSets, oldest first
/// (deployment.kubernetes.io/revision, which orders them on import).
fn replica_set(
    d: &DeploymentSpec,
    name: &str,
    rs: &shepherd::ReplicaSetSpec,
    pods: usize,
    revision: usize,
) -> Value {
    let mut t = rs.template.clone();
    t.labels
        .insert(shepherd::model::POD_TEMPLATE_HASH.into(), rs.hash.clone());
    let mut sel = d.selector.clone().unwrap_or_else(|| Selector {
        match_labels: rs.template.labels.clone(),
        ..Default::default()
    });
    sel.match_labels
        .insert(shepherd::model::POD_TEMPLATE_HASH.into(), rs.hash.clone());
    let mut meta = object_meta(name);
    if let Value::Map(m) = &mut meta {
        m.push(("labels".into(), labels(&t.labels)));
        m.push((
            "annotations".into(),
            map(vec![(
                "deployment.kubernetes.io/revision",
                s(&revision.to_string()),
            )]),
        ));
    }
    map(vec![
        ("apiVersion", s("apps/v1")),
        ("kind", s("ReplicaSet")),
        ("metadata", meta),
        (
            "spec",
            map(vec![
                ("replicas", Value::UInt(pods as u64)),
                ("selector", selector(&sel)),
                ("template", template(&t)),
            ]),
        ),
    ])
}

fn deployment(d: &DeploymentSpec) -> Value {
    map(vec![
        ("apiVersion", s("apps/v1")),
        ("kind", s("Deployment")),
        ("metadata", object_meta(&d.name)),
        (
            "spec",
            map(vec![
                ("replicas", Value::UInt(d.replicas as u64)),
                (
                    "selector",
                    match &d.selector {
                        Some(sel) => selector(sel),
                        None => map(vec![("matchLabels", labels(&d.template.labels))]),
                    },
                ),
                (
                    "strategy",
                    map(vec![
                        ("type", s("RollingUpdate")),
                        (
                            "rollingUpdate",
                            map(vec![
                                ("maxSurge", int_or_percent(d.strategy.max_surge)),
                                ("maxUnavailable", int_or_percent(d.strategy.max_unavailable)),
                            ]),
                        ),
                    ]),
                ),
                ("template", template(&d.template)),
            ]
            .into_iter()
            .chain(rollout_timing(d))
            .collect()),
        ),
    ])
}

/// minReadySeconds and progressDeadlineSeconds when they differ from
/// Kubernetes' defaults (0 and 600).
fn rollout_timing(d: &DeploymentSpec) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    if d.min_ready_seconds != 0 {
        out.push(("minReadySeconds", Value::UInt(d.min_ready_seconds as u64)));
    }
    if d.progress_deadline_seconds != shepherd::model::DEFAULT_PROGRESS_DEADLINE_SECONDS {
        out.push((
            "progressDeadlineSeconds",
            Value::UInt(d.progress_deadline_seconds as u64),
        ));
    }
    out
}

/// The scenario as a multi-document YAML stream that `kubectl apply -f` takes:
/// Nodes (labels, taints, unschedulable; allocatable and the Ready condition
/// in `status`, which KWOK reads and a real cluster's kubelet overwrites),
/// bare Pods (with `spec.nodeName` when bound by name), DaemonSets and
/// Deployments (one `pause` container holding the template's requests),
/// PodDisruptionBudgets and Services, each in its own namespace, after a
/// `v1 Namespace` for each namespace other than `default` that the scenario
/// declares or an object is in (so `kubectl apply` creates it first).
pub fn export(sc: &Scenario) -> String {
    export_docs(sc, false)
}

/// The annotation (and taint key) KWOK's controller looks for: kwokctl's
/// kwok runs with `--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake`,
/// and KWOK's example node carries the taint `kwok.x-k8s.io/node=fake:NoSchedule`
/// so that real workloads stay off fake nodes.
pub const KWOK_KEY: &str = "kwok.x-k8s.io/node";
const KWOK_VALUE: &str = "fake";

/// [`export`] for a KWOK cluster (`kwokctl create cluster`, then `kubectl
/// apply -f`): every Node is a fake node KWOK keeps Ready (the annotation
/// `kwok.x-k8s.io/node: fake`, the label `type: kwok` and the taint
/// `kwok.x-k8s.io/node=fake:NoSchedule` KWOK documents), and every pod
/// template tolerates that taint, so the real kube-scheduler places the
/// scenario's pods on the fake nodes as Shepherd does: the taint is on every
/// node and tolerated by every pod, so no filter or score changes.
///
/// The change is made on the written objects, so an imported object keeps
/// every field it was given (its images, its selector) and gains only the
/// annotation, label, taint or toleration; a bound pod keeps its
/// `spec.nodeName`, so the same placement loads into the KWOK cluster.
pub fn export_kwok(sc: &Scenario) -> String {
    export_docs(sc, true)
}

/// Whether the toleration `t` (a manifest's) tolerates KWOK's taint.
fn tolerates_kwok(t: &Value) -> bool {
    let get = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
    let effect_ok = matches!(get("effect"), "" | "NoSchedule");
    let key = get("key");
    let op = get("operator");
    effect_ok
        && match op {
            "Exists" => key.is_empty() || key == KWOK_KEY,
            _ => key == KWOK_KEY && get("value") == KWOK_VALUE,
        }
}

fn entry<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let Value::Map(m) = v else { return None };
    if !m.iter().any(|(k, _)| k == key) {
        m.push((key.to_string(), Value::Map(Vec::new())));
    }
    m.iter_mut().find(|(k, _)| k == key).map(|(_, x)| x)
}

fn put(v: &mut Value, key: &str, x: Value) {
    if let Value::Map(m) = v {
        match m.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = x,
            None => m.push((key.to_string(), x)),
        }
    }
}

/// KWOK's marks on one written object: a Node gets the annotation, the
/// label `type: kwok` and the taint; a pod spec (a Pod's, or a
/// controller's template) the toleration unless it tolerates the taint.
fn kwok_object(v: &mut Value) {
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    match kind.as_str() {
        "Node" => {
            if let Some(meta) = entry(v, "metadata") {
                if let Some(a) = entry(meta, "annotations") {
                    put(a, KWOK_KEY, s(KWOK_VALUE));
                }
                if let Some(l) = entry(meta, "labels") {
                    put(l, "type", s("kwok"));
                }
            }
            if let Some(spec) = entry(v, "spec") {
                let mut taints = match spec.get("taints") {
                    Some(Value::Seq(t)) => t.clone(),
                    _ => Vec::new(),
                };
                taints.retain(|t| t.get("key").and_then(Value::as_str) != Some(KWOK_KEY));
                taints.push(map(vec![
                    ("key", s(KWOK_KEY)),
                    ("value", s(KWOK_VALUE)),
                    ("effect", s("NoSchedule")),
                ]));
                put(spec, "taints", Value::Seq(taints));
            }
        }
        "Pod" | "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => {
            // A kept pod's or ReplicaSet's ownerReferences name its owners'
            // uids in the cluster it came from: in another cluster the
            // garbage collector would delete it as an orphan of an owner
            // that does not exist. Without them its controller adopts it
            // by its selector (ClaimPods, ClaimReplicaSets).
            if let Some(Value::Map(meta)) = entry(v, "metadata") {
                meta.retain(|(k, _)| k != "ownerReferences");
            }
            let Some(mut spec) = entry(v, "spec") else {
                return;
            };
            if kind != "Pod" {
                let Some(t) = entry(spec, "template") else {
                    return;
                };
                let Some(ps) = entry(t, "spec") else { return };
                spec = ps;
            }
            let mut tols = match spec.get("tolerations") {
                Some(Value::Seq(t)) => t.clone(),
                _ => Vec::new(),
            };
            if !tols.iter().any(tolerates_kwok) {
                tols.push(map(vec![
                    ("key", s(KWOK_KEY)),
                    ("operator", s("Equal")),
                    ("value", s(KWOK_VALUE)),
                    ("effect", s("NoSchedule")),
                ]));
                put(spec, "tolerations", Value::Seq(tols));
            }
        }
        _ => {}
    }
}

/// The scenario's nodes as a shell script of `kubectl label` and `kubectl
/// taint` commands for an existing cluster whose nodes have these names:
/// labels with `--overwrite`, taints with `--overwrite`, and cordons.
pub fn kubectl_node_script(sc: &Scenario) -> String {
    let q = |x: &str| {
        if x.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:".contains(&b))
        {
            x.to_string()
        } else {
            format!("'{}'", x.replace('\'', "'\\''"))
        }
    };
    let mut out = String::from("#!/bin/sh\n# Node labels and taints of a Shepherd scenario, for a cluster whose nodes have these names.\nset -e\n");
    for n in &sc.nodes {
        let name = q(&n.spec.name);
        if !n.spec.labels.is_empty() {
            let pairs: Vec<String> = n
                .spec
                .labels
                .iter()
                .map(|(k, v)| q(&format!("{k}={v}")))
                .collect();
            let _ = writeln!(
                out,
                "kubectl label node {name} --overwrite {}",
                pairs.join(" ")
            );
        }
        for t in &n.spec.taints {
            let spec = if t.value.is_empty() {
                format!("{}:{}", t.key, t.effect.as_str())
            } else {
                t.to_string()
            };
            let _ = writeln!(out, "kubectl taint node {name} --overwrite {}", q(&spec));
        }
        if n.unschedulable {
            let _ = writeln!(out, "kubectl cordon {name}");
        }
    }
    out
}

fn export_docs(sc: &Scenario, kwok: bool) -> String {
    // An imported object is written from its kept document, changed only
    // where the simulation changed it (crate::kept::write).
    let kept = |d: &dyn Fn() -> Decl, g: Value| {
        if sc.kept.is_empty() {
            g
        } else {
            crate::kept::write(&sc.kept, &d(), g)
        }
    };
    let mut docs: Vec<Value> = Vec::new();
    // Namespaces first: the declared ones (with their labels, `default`
    // too when declared), then any other an object is in.
    let mut names: Vec<&str> = Vec::new();
    for n in &sc.namespaces {
        names.push(&n.name);
        let mut meta = vec![("name", s(&n.name))];
        if !n.labels.is_empty() {
            meta.push(("labels", labels(&n.labels)));
        }
        docs.push(kept(
            &|| Decl::Namespace(n.clone()),
            map(vec![
                ("apiVersion", s("v1")),
                ("kind", s("Namespace")),
                ("metadata", map(meta)),
            ]),
        ));
    }
    let keys = sc
        .pods
        .iter()
        .map(|p| &p.name)
        .chain(sc.daemonsets.iter().map(|d| &d.name))
        .chain(sc.deployments.iter().map(|d| &d.name))
        .chain(sc.pdbs.iter().map(|p| &p.name))
        .chain(sc.services.iter().map(|x| &x.name));
    for k in keys {
        let ns = shepherd::namespace::split(k).0;
        if ns != shepherd::namespace::DEFAULT_NAMESPACE && !names.contains(&ns) {
            names.push(ns);
            docs.push(map(vec![
                ("apiVersion", s("v1")),
                ("kind", s("Namespace")),
                ("metadata", map(vec![("name", s(ns))])),
            ]));
        }
    }
    for (i, n) in sc.nodes.iter().enumerate() {
        docs.push(kept(&|| crate::import::node_decl(&sc.nodes[i]), node(n)));
    }
    // Classes before the Deployments whose pods name them.
    for pc in &sc.priority_classes {
        let mut fields = vec![
            ("apiVersion", s("scheduling.k8s.io/v1")),
            ("kind", s("PriorityClass")),
            ("metadata", map(vec![("name", s(&pc.name))])),
            ("value", Value::Int(pc.value as i64)),
        ];
        if pc.global_default {
            fields.push(("globalDefault", Value::Bool(true)));
        }
        if pc.preemption_policy != shepherd::PreemptionPolicy::PreemptLowerPriority {
            fields.push(("preemptionPolicy", s(pc.preemption_policy.as_str())));
        }
        docs.push(kept(&|| Decl::PriorityClass(pc.clone()), map(fields)));
    }
    for p in &sc.pods {
        let mut v = kept(&|| Decl::Pod(p.clone()), bare_pod(p));
        // One that runs on its node (imported from a running cluster):
        // its phase, so it is read back as running there, not as a
        // manifest its kubelet admits again (the API server ignores a
        // status given on create; KWOK sets its own).
        let runs = sc.running.iter().any(|r| {
            r.owner == p.name
                && r.pods
                    .iter()
                    .any(|x| x.node.is_some() && x.node == p.node_name)
        });
        let held = sc
            .running
            .iter()
            .any(|r| r.owner == p.name && r.pods.iter().any(|x| !x.ready));
        if held {
            put(&mut v, "status", not_ready());
        } else if runs {
            put(&mut v, "status", map(vec![("phase", s("Running"))]));
        }
        docs.push(v);
    }
    for d in &sc.daemonsets {
        docs.push(kept(&|| Decl::DaemonSet(d.clone()), daemonset(d)));
    }
    for d in &sc.deployments {
        docs.push(kept(&|| Decl::App(d.clone()), deployment(d)));
    }
    // The pods the controllers run, with a Deployment's ReplicaSets:
    // as given while unchanged, else written anew, without
    // ownerReferences (the API server wants the owner's uid, which only
    // the cluster knows): the controllers adopt them by their selectors,
    // as the importer does. A pod a controller created in the simulation
    // is written from its owner's kept pod template (`running_pod`).
    let mut current_revision: Vec<(String, u64)> = Vec::new();
    for r in &sc.running {
        let dep = sc.deployments.iter().find(|d| d.name == r.owner);
        let ds = sc.daemonsets.iter().find(|d| d.name == r.owner);
        // deployment.kubernetes.io/revision of each ReplicaSet: as kept,
        // else one past the newest before it (a revision the simulation
        // made), so the new ReplicaSet stays the newest on import.
        let mut revisions = Vec::with_capacity(r.replica_sets.len());
        let mut newest = 0u64;
        for (i, rs) in r.replica_sets.iter().enumerate() {
            let name = format!("{}-{}", r.owner, rs.hash);
            let kept_rev = sc
                .kept
                .doc("ReplicaSet", &name)
                .and_then(|d| {
                    d.get("metadata")?
                        .get("annotations")?
                        .get(REVISION)?
                        .as_str()
                })
                .and_then(|x| x.parse::<u64>().ok());
            let rev = kept_rev.unwrap_or(newest.max(i as u64) + 1);
            newest = newest.max(rev);
            revisions.push(rev);
        }
        for (i, rs) in r.replica_sets.iter().enumerate() {
            let Some(d) = dep else { break };
            let name = format!("{}-{}", r.owner, rs.hash);
            let pods = r
                .pods
                .iter()
                .filter(|p| p.replica_set.or(r.current) == Some(i as u32))
                .count();
            let replicas = sc.replica_set_replicas.get(&name).copied();
            let mut gen = replica_set(
                d,
                &name,
                rs,
                replicas.map_or(pods, |n| n as usize),
                revisions[i] as usize,
            );
            // A ReplicaSet the simulation made: its pod template as the
            // user gave the Deployment's (their images, not the pause one).
            if let Some(t) = sc.kept.template_doc("App", &r.owner, &rs.template) {
                let mut t = t.clone();
                if let Some(meta) = entry(&mut t, "metadata") {
                    if let Some(l) = entry(meta, "labels") {
                        put(l, shepherd::model::POD_TEMPLATE_HASH, s(&rs.hash));
                    }
                }
                if let Some(spec) = entry(&mut gen, "spec") {
                    put(spec, "template", t);
                }
            }
            docs.push(kept(
                &|| Decl::ReplicaSet {
                    name: name.clone(),
                    template: rs.template.clone(),
                    replicas,
                },
                gen,
            ));
            if r.current == Some(i as u32) {
                current_revision.push((r.owner.clone(), revisions[i]));
            }
        }
        // A StatefulSet's pods: its key and headless Service.
        let sts = sc
            .kept
            .doc("App", &r.owner)
            .filter(|d| d.get("kind").and_then(Value::as_str) == Some("StatefulSet"));
        let service = sts
            .and_then(|d| d.get("spec")?.get("serviceName")?.as_str())
            .filter(|x| !x.is_empty());
        let stateful = (sts.is_some() || r.stateful).then_some((&r.owner, service));
        for p in &r.pods {
            let (template, hash, space, owner) = match (p.replica_set, dep, ds) {
                (Some(i), _, _) => {
                    let rs = &r.replica_sets[i as usize];
                    let name = format!("{}-{}", r.owner, rs.hash);
                    (&rs.template, Some(rs.hash.as_str()), "ReplicaSet", name)
                }
                (None, Some(d), _) => (
                    &d.template,
                    r.current.map(|i| r.replica_sets[i as usize].hash.as_str()),
                    "App",
                    r.owner.clone(),
                ),
                (None, None, Some(d)) => (&d.template, None, "DaemonSet", r.owner.clone()),
                (None, None, None) => continue,
            };
            // The user's template: the ReplicaSet's, else its owner's
            // while the owner's template is still this pod's.
            let given = sc
                .kept
                .template_doc(space, &owner, template)
                .or_else(|| sc.kept.template_doc("App", &r.owner, template));
            let v = running_pod(p, template, given, hash, stateful);
            let mut v = kept(
                &|| Decl::RunningPod {
                    name: p.name.clone(),
                    node: p.node.clone(),
                },
                v,
            );
            // Not Ready as imported: its Ready condition says so, so it
            // reads back so (the API server ignores a status on create).
            if !p.ready {
                put(&mut v, "status", not_ready());
            }
            docs.push(v);
        }
    }
    // A Deployment names its new ReplicaSet's revision (the importer finds
    // its new ReplicaSet by it): a kept one naming another (the simulation
    // rolled to a new revision) names the new one.
    for (owner, rev) in current_revision {
        let (ns, name) = shepherd::namespace::split(&owner);
        let doc = docs.iter_mut().find(|d| {
            d.get("kind").and_then(Value::as_str) == Some("Deployment")
                && d.get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    == Some(name)
                && d.get("metadata")
                    .and_then(|m| m.get("namespace"))
                    .and_then(Value::as_str)
                    .unwrap_or(shepherd::namespace::DEFAULT_NAMESPACE)
                    == ns
        });
        let Some(doc) = doc else { continue };
        let given = doc
            .get("metadata")
            .and_then(|m| m.get("annotations")?.get(REVISION)?.as_str())
            .and_then(|x| x.parse::<u64>().ok());
        if given.is_some_and(|g| g != rev) {
            if let Some(a) = entry(doc, "metadata").and_then(|m| entry(m, "annotations")) {
                put(a, REVISION, s(&rev.to_string()));
            }
        }
    }
    for p in &sc.pdbs {
        let (k, v) = match p.budget {
            Budget::MinAvailable(v) => ("minAvailable", v),
            Budget::MaxUnavailable(v) => ("maxUnavailable", v),
        };
        docs.push(kept(
            &|| Decl::Pdb(p.clone()),
            map(vec![
                ("apiVersion", s("policy/v1")),
                ("kind", s("PodDisruptionBudget")),
                ("metadata", object_meta(&p.name)),
                (
                    "spec",
                    map(vec![
                        ("selector", selector(&p.selector)),
                        (k, int_or_percent(v)),
                    ]),
                ),
            ]),
        ));
    }
    for svc in &sc.services {
        docs.push(kept(
            &|| Decl::Service(svc.clone()),
            map(vec![
                ("apiVersion", s("v1")),
                ("kind", s("Service")),
                ("metadata", object_meta(&svc.name)),
                (
                    "spec",
                    map(vec![
                        ("selector", labels(&svc.selector.match_labels)),
                        (
                            "ports",
                            Value::Seq(vec![map(vec![
                                ("port", Value::UInt(80)),
                                ("protocol", s("TCP")),
                            ])]),
                        ),
                    ]),
                ),
            ]),
        ));
    }
    if kwok {
        docs.iter_mut().for_each(kwok_object);
    }
    if let Some(a) = &sc.autoscaler {
        let made = crate::autoscaling::configmaps(
            a,
            |n| {
                node(&ImportedNode {
                    spec: n.clone(),
                    unschedulable: false,
                    ready: true,
                })
            },
            &yaml_text,
        );
        for cm in made {
            let text = |k: &str| {
                cm.get("metadata")
                    .and_then(|m| m.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let ns = text("namespace");
            let ns = if ns.is_empty() {
                shepherd::namespace::DEFAULT_NAMESPACE.to_string()
            } else {
                ns
            };
            let name = shepherd::namespace::qualify(&ns, &text("name"));
            docs.push(kept(
                &|| Decl::AutoscalerConfigMap {
                    name: name.clone(),
                    config: sc.autoscaler.clone(),
                },
                cm.clone(),
            ));
        }
    }
    // Karpenter's NodePools: an imported one is written back as given
    // (below); one the model holds without its document is written from the
    // model, with the ConfigMap of its instance types when none was kept.
    let fresh: Vec<shepherd::autoscaler::karpenter::NodePool> = sc
        .node_pools
        .iter()
        .filter(|p| !sc.kept.holds("NodePool", &p.name))
        .cloned()
        .collect();
    if !fresh.is_empty() {
        let types_kept = sc.node_pools.len() > fresh.len();
        docs.extend(crate::autoscaling::node_pool_objects(
            &fresh,
            !types_kept,
            |n| {
                node(&ImportedNode {
                    spec: n.clone(),
                    unschedulable: false,
                    ready: true,
                })
            },
            &yaml_text,
        ));
    }
    // What the simulation reads and never changes, as it was given.
    if !sc.kept.is_empty() {
        let written: Vec<(&'static str, String)> = docs
            .iter()
            .filter_map(|d| {
                let kind = d.get("kind").and_then(Value::as_str)?;
                let meta = d.get("metadata")?;
                let name = meta.get("name").and_then(Value::as_str)?;
                let ns = meta
                    .get("namespace")
                    .and_then(Value::as_str)
                    .unwrap_or(shepherd::namespace::DEFAULT_NAMESPACE);
                (kind == "ConfigMap").then(|| ("ConfigMap", shepherd::namespace::qualify(ns, name)))
            })
            .collect();
        docs.extend(sc.kept.verbatim(&written).into_iter().cloned());
    }
    let mut out = String::new();
    for d in &docs {
        out.push_str("---\n");
        yaml(&mut out, d, 0);
    }
    out
}

/// One value as YAML text (a ConfigMap's embedded document).
pub(crate) fn yaml_text(v: &Value) -> String {
    let mut out = String::new();
    yaml(&mut out, v, 0);
    out
}

/// A profile as the `KubeSchedulerConfiguration` that kube-scheduler's
/// `--config` reads (it is not an API object, so [`export`] leaves it out of
/// the stream for `kubectl apply`): every default plugin disabled in
/// multiPoint and Shepherd's filters and scores enabled at their points, so
/// the file says exactly what runs, plus the three plugins' arguments and
/// percentageOfNodesToScore. Importing it gives the same profile back.
pub fn export_scheduler_config(p: &Profile) -> String {
    let names = |v: Vec<Value>| Value::Seq(v);
    let filters = names(
        p.filters
            .iter()
            .map(|f| map(vec![("name", s(f.name()))]))
            .collect(),
    );
    let scores = names(
        p.scores
            .iter()
            .map(|(f, w)| map(vec![("name", s(f.name())), ("weight", Value::Int(*w))]))
            .collect(),
    );
    let mut strategy = vec![
        ("type", s(p.fit.kind.name())),
        (
            "resources",
            Value::Seq(
                p.fit
                    .resources
                    .iter()
                    .map(|(r, w)| map(vec![("name", s(r.name())), ("weight", Value::Int(*w))]))
                    .collect(),
            ),
        ),
    ];
    if !p.fit.shape.is_empty() {
        strategy.push((
            "requestedToCapacityRatio",
            map(vec![(
                "shape",
                Value::Seq(
                    p.fit
                        .shape
                        .iter()
                        .map(|x| {
                            map(vec![
                                ("utilization", Value::Int(x.utilization)),
                                ("score", Value::Int(x.score)),
                            ])
                        })
                        .collect(),
                ),
            )]),
        ));
    }
    let mut fit_args = vec![("scoringStrategy", map(strategy))];
    let names = |v: &[String]| Value::Seq(v.iter().map(|x| s(x)).collect());
    if !p.ignored_resources.is_empty() {
        fit_args.push(("ignoredResources", names(&p.ignored_resources)));
    }
    if !p.ignored_resource_groups.is_empty() {
        fit_args.push(("ignoredResourceGroups", names(&p.ignored_resource_groups)));
    }
    let doc = map(vec![
        ("apiVersion", s("kubescheduler.config.k8s.io/v1")),
        ("kind", s("KubeSchedulerConfiguration")),
        (
            "profiles",
            Value::Seq(vec![map(vec![
                ("schedulerName", s(&p.scheduler_name)),
                (
                    "percentageOfNodesToScore",
                    Value::UInt(p.percentage_of_nodes_to_score as u64),
                ),
                (
                    "plugins",
                    map(vec![
                        (
                            "multiPoint",
                            map(vec![(
                                "disabled",
                                Value::Seq(vec![map(vec![("name", s("*"))])]),
                            )]),
                        ),
                        ("filter", map(vec![("enabled", filters)])),
                        ("score", map(vec![("enabled", scores)])),
                    ]),
                ),
                (
                    "pluginConfig",
                    Value::Seq(vec![
                        map(vec![
                            ("name", s("NodeResourcesFit")),
                            ("args", map(fit_args)),
                        ]),
                        map(vec![
                            ("name", s("NodeResourcesBalancedAllocation")),
                            (
                                "args",
                                map(vec![(
                                    "resources",
                                    Value::Seq(
                                        p.balanced_resources
                                            .iter()
                                            .map(|r| {
                                                map(vec![
                                                    ("name", s(r.name())),
                                                    ("weight", Value::Int(1)),
                                                ])
                                            })
                                            .collect(),
                                    ),
                                )]),
                            ),
                        ]),
                        map(vec![
                            ("name", s("InterPodAffinity")),
                            (
                                "args",
                                map(vec![(
                                    "hardPodAffinityWeight",
                                    Value::Int(p.hard_pod_affinity_weight),
                                )]),
                            ),
                        ]),
                        map(vec![
                            ("name", s("PodTopologySpread")),
                            (
                                "args",
                                map(vec![(
                                    "defaultingType",
                                    s(if p.system_default_spreading {
                                        "System"
                                    } else {
                                        "List"
                                    }),
                                )]),
                            ),
                        ]),
                    ]),
                ),
            ])]),
        ),
    ]);
    let mut out = String::from("---\n");
    yaml(&mut out, &doc, 0);
    out
}

/// Whether YAML (1.1 or 1.2) reads `k` back, unquoted, as the same string:
/// a letter first, then letters, digits, `-_./`, and not a word YAML 1.1
/// takes for a boolean or null.
fn plain(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'))
        && k.as_bytes()[0].is_ascii_alphabetic()
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        )
}

/// A key written plain when YAML reads it back as the same string, quoted otherwise.
fn key(out: &mut String, k: &str) {
    if plain(k) {
        out.push_str(k);
    } else {
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
    }
}

/// Scalars as JSON writes them (a JSON string is a valid YAML double-quoted
/// string), collections in block style.
fn scalar(out: &mut String, v: &Value) -> bool {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) => {
            let _ = write!(out, "{f}");
        }
        Value::Str(x) if plain(x) => out.push_str(x),
        Value::Str(x) => out.push_str(&serde_json::to_string(x).unwrap_or_default()),
        Value::Seq(x) if x.is_empty() => out.push_str("[]"),
        Value::Map(x) if x.is_empty() => out.push_str("{}"),
        _ => return false,
    }
    true
}

fn yaml(out: &mut String, v: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match v {
        Value::Map(m) if !m.is_empty() => {
            for (k, x) in m {
                out.push_str(&pad);
                key(out, k);
                out.push(':');
                let mut tmp = String::new();
                if scalar(&mut tmp, x) {
                    out.push(' ');
                    out.push_str(&tmp);
                    out.push('\n');
                } else {
                    out.push('\n');
                    // Lists sit at their key's indent, as kubectl prints them.
                    let inner = if matches!(x, Value::Seq(_)) {
                        indent
                    } else {
                        indent + 2
                    };
                    yaml(out, x, inner);
                }
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for x in items {
                out.push_str(&pad);
                out.push_str("- ");
                let mut tmp = String::new();
                if scalar(&mut tmp, x) {
                    out.push_str(&tmp);
                    out.push('\n');
                } else {
                    // The item's first line follows the dash; the rest line up under it.
                    let mut body = String::new();
                    yaml(&mut body, x, indent + 2);
                    out.push_str(body.trim_start_matches(' '));
                }
            }
        }
        other => {
            out.push_str(&pad);
            scalar(out, other);
            out.push('\n');
        }
    }
}

/// One row of the placement, as `kubectl get pods -o wide` shows a pod.
struct Row {
    name: String,
    ready: &'static str,
    status: &'static str,
    age: String,
    node: String,
}

fn rows(c: &Cluster) -> Vec<Row> {
    let now = c.now();
    c.pods()
        .map(|p| {
            // spec.nodeName: the node it is bound to, or for a bare Pod the
            // name it was given (a Failed pod's node, an orphan's missing one).
            let node = p
                .node
                .and_then(|id| c.node_by_id(id))
                .map(|n| n.name().to_string())
                .or_else(|| p.node_name.map(str::to_string))
                .unwrap_or_else(|| "<none>".to_string());
            Row {
                name: p.name(),
                ready: if p.ready { "1/1" } else { "0/1" },
                // kubectl shows status.reason when there is one (OutOfcpu).
                status: crate::kubectl::pod_status(c, &p),
                // Since its creation, as kubectl's AGE (Pending pods too).
                age: format!("{}t", now.saturating_sub(p.created_at)),
                node,
            }
        })
        .collect()
}

/// The pods as `kubectl get pods -o wide` prints them (AGE in ticks, `t`;
/// pod IPs are not simulated, so IP is `<none>`); when a pod is in a
/// namespace other than `default`, as `kubectl get pods -A -o wide` does,
/// with a NAMESPACE column first.
pub fn pods_wide(c: &Cluster) -> String {
    let rows = rows(c);
    let all = rows.iter().any(|r| r.name.contains('/'));
    let head = [
        "NAMESPACE",
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED NODE",
        "READINESS GATES",
    ];
    // The cells borrow from the rows; each line is written into one buffer,
    // padded as `{:<w$}` pads (by characters), its trailing blanks cut.
    let table: Vec<[&str; 10]> = rows
        .iter()
        .map(|r| {
            let (ns, name) = shepherd::namespace::split(&r.name);
            [
                ns, name, r.ready, r.status, "0", &r.age, "<none>", &r.node, "<none>", "<none>",
            ]
        })
        .collect();
    let from = if all { 0 } else { 1 };
    let mut width: Vec<usize> = head[from..].iter().map(|h| h.len()).collect();
    for r in &table {
        for (i, cell) in r[from..].iter().enumerate() {
            width[i] = width[i].max(cell.len());
        }
    }
    let mut out = String::with_capacity((table.len() + 1) * (width.iter().sum::<usize>() + 30));
    let mut l = String::new();
    let mut line = |cells: &[&str]| {
        l.clear();
        for (i, cell) in cells.iter().enumerate() {
            l.push_str(cell);
            if i + 1 < cells.len() {
                let pad = width[i].saturating_sub(cell.chars().count()) + 3;
                l.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&head[from..]);
    for r in &table {
        line(&r[from..]);
    }
    out
}

/// The placement as JSON: one object per pod with its node (or null) and,
/// for a Pending pod, its FailedScheduling message.
pub fn pods_wide_json(c: &Cluster) -> serde_json::Value {
    let pods: Vec<serde_json::Value> = c
        .pods()
        .zip(rows(c))
        .map(|(p, r)| {
            // Why it is not running: the kubelet's refusal of a Failed pod
            // (status.message), else the scheduler's (or an orphan's) reason.
            let reason = match (p.failure, p.node) {
                (Some((_, message)), _) => Some(message.to_string()),
                (None, None) => c.pending_reason(&r.name).ok().flatten(),
                (None, Some(_)) => None,
            };
            // `name` is the engine's key (NAMESPACE/NAME outside default),
            // unique as `app` is; `namespace` is given on its own as well.
            serde_json::json!({
                "namespace": shepherd::namespace::split(&r.name).0,
                "name": r.name,
                "app": p.app,
                "ready": p.ready,
                "status": r.status,
                // spec.nodeName: also a bare Pod's that is not bound (Failed,
                // or waiting for a node of that name).
                "node": (p.node.is_some() || p.node_name.is_some()).then(|| r.node.clone()),
                "reason": reason,
            })
        })
        .collect();
    serde_json::Value::Array(pods)
}

/// One object as the export writes it (for the tests' measures).
#[cfg(test)]
pub(crate) fn yaml_of(out: &mut String, v: &Value) {
    yaml(out, v, 0);
}

impl Scenario {
    /// The pods the controllers of an imported cluster run in `c` (this
    /// scenario, simulated) in place of those imported, so that an export
    /// writes the cluster as it is now: a pod the simulation deleted
    /// (evicted, drained, lost with its node) is gone (Kubernetes never
    /// moves a pod); one a controller created since is there under the
    /// name, node and ReplicaSet the simulation gave it (written from its
    /// owner's kept template, `running_pod`); each ReplicaSet carries the
    /// replicas the simulation left it ([`Scenario::replica_set_replicas`]),
    /// a revision the simulation made is one more. Nothing changes for a
    /// scenario without running pods (not a cluster imported as it is):
    /// its controllers make their pods again when it is applied.
    ///
    /// Every Deployment and DaemonSet is then written with its pods, those
    /// imported without any too; a bare Pod's entry stays while it does.
    pub fn take_running(&mut self, c: &Cluster) {
        if self.running.is_empty() {
            return;
        }
        use std::collections::HashMap;
        let mut old: HashMap<String, shepherd::RunningPods> = std::mem::take(&mut self.running)
            .into_iter()
            .map(|r| (r.owner.clone(), r))
            .collect();
        // The live pods, by owner, in the engine's order.
        let mut live: HashMap<&str, Vec<shepherd::PodView<'_>>> = HashMap::new();
        for p in c.pods() {
            if p.kind != shepherd::WorkloadKind::Pod
                && matches!(
                    p.phase,
                    shepherd::PodPhase::Pending | shepherd::PodPhase::Running
                )
            {
                live.entry(p.app).or_default().push(p);
            }
        }
        let owners: Vec<(String, bool)> = self
            .daemonsets
            .iter()
            .map(|d| (d.name.clone(), false))
            .chain(self.deployments.iter().map(|d| (d.name.clone(), true)))
            .collect();
        let mut out = Vec::new();
        for (owner, deployment) in owners {
            let mut r = old.remove(&owner).unwrap_or_else(|| shepherd::RunningPods {
                owner: owner.clone(),
                ..Default::default()
            });
            let pods = live.remove(owner.as_str()).unwrap_or_default();
            // A Deployment imported with its ReplicaSets keeps them, and
            // gains each revision the simulation made.
            if deployment && !r.replica_sets.is_empty() {
                let template = self
                    .deployments
                    .iter()
                    .find(|d| d.name == owner)
                    .map(|d| d.template.clone());
                let current = c.app(&owner).map(|a| a.revision).ok();
                for v in c.replica_sets(&owner).unwrap_or_default() {
                    let Some(hash) = v
                        .name
                        .strip_prefix(owner.as_str())
                        .and_then(|h| h.strip_prefix('-'))
                    else {
                        continue;
                    };
                    let at = match r.replica_sets.iter().position(|x| x.hash == hash) {
                        Some(i) => i,
                        None => {
                            // Its template: a pod's of it, else the
                            // Deployment's when it is the new one.
                            let t = pods
                                .iter()
                                .find(|p| p.template_hash == Some(hash))
                                .map(|p| p.template.clone())
                                .or_else(|| {
                                    template.clone().filter(|_| current == Some(v.revision))
                                });
                            let Some(t) = t else { continue };
                            r.replica_sets.push(shepherd::ReplicaSetSpec {
                                hash: hash.to_string(),
                                template: t,
                            });
                            r.replica_sets.len() - 1
                        }
                    };
                    if current == Some(v.revision) {
                        r.current = Some(at as u32);
                    }
                    self.replica_set_replicas.insert(v.name.clone(), v.desired);
                }
            }
            let node = |p: &shepherd::PodView<'_>| {
                p.node
                    .and_then(|id| c.node_by_id(id))
                    .map(|n| n.name().to_string())
            };
            let replica_set = |p: &shepherd::PodView<'_>, r: &shepherd::RunningPods| {
                if r.replica_sets.is_empty() {
                    return None;
                }
                let h = p.template_hash?;
                r.replica_sets
                    .iter()
                    .position(|x| x.hash == h)
                    .map(|i| i as u32)
            };
            // The imported pods still there first, in their order, then
            // the new ones.
            let mut now: HashMap<String, (Option<String>, Option<u32>)> = pods
                .iter()
                .map(|p| (p.name(), (node(p), replica_set(p, &r))))
                .collect();
            let mut list = Vec::with_capacity(pods.len());
            for p in &r.pods {
                if let Some((n, rs)) = now.remove(&p.name) {
                    // Held not Ready while it runs where it ran.
                    let ready = p.ready || n != p.node;
                    list.push(shepherd::RunningPod {
                        name: p.name.clone(),
                        node: n,
                        replica_set: rs,
                        ready,
                    });
                }
            }
            for p in &pods {
                let name = p.name();
                if let Some((n, rs)) = now.remove(&name) {
                    list.push(shepherd::RunningPod {
                        name,
                        node: n,
                        replica_set: rs,
                        ready: true,
                    });
                }
            }
            r.pods = list;
            out.push(r);
        }
        // Bare Pods that run as they ran, while they exist.
        let mut bare: Vec<shepherd::RunningPods> = old
            .into_values()
            .filter(|r| self.pods.iter().any(|p| p.name == r.owner))
            .collect();
        bare.sort_by(|a, b| a.owner.cmp(&b.owner));
        out.extend(bare);
        self.running = out;
    }
}
