//! Engine declarations to Kubernetes manifests, and the placement as
//! `kubectl get pods -o wide` prints it.

use std::fmt::Write as _;

use shepherd::model::DEFAULT_READY_AFTER;
use shepherd::{
    AffinityTerm, Budget, Cluster, DeploymentSpec, IntOrPercent, Labels, PodTemplate, Toleration,
    TolerationOperator,
};

use crate::scenario::{ImportedNode, Scenario};
use crate::value::Value;

/// The pod-template annotation that carries the engine's template version.
pub const ANNOTATION_VERSION: &str = "shepherd/version";
/// The pod-template annotation that carries the ticks from binding to Ready.
pub const ANNOTATION_READY_AFTER: &str = "shepherd/ready-after-ticks";

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
    let resources = map(vec![
        ("cpu", s(&format!("{}m", n.spec.capacity.cpu_millis))),
        ("memory", s(&format!("{}Mi", n.spec.capacity.memory_mib))),
    ]);
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
    map(m)
}

fn terms(ts: &[AffinityTerm]) -> Value {
    map(vec![(
        "requiredDuringSchedulingIgnoredDuringExecution",
        Value::Seq(
            ts.iter()
                .map(|t| {
                    map(vec![
                        (
                            "labelSelector",
                            map(vec![("matchLabels", labels(&t.selector.match_labels))]),
                        ),
                        ("topologyKey", s(&t.topology_key)),
                    ])
                })
                .collect(),
        ),
    )])
}

fn template(t: &PodTemplate) -> Value {
    let mut annotations = vec![(ANNOTATION_VERSION, s(&t.version))];
    if t.ready_after != DEFAULT_READY_AFTER {
        annotations.push((ANNOTATION_READY_AFTER, s(&t.ready_after.to_string())));
    }
    let mut requests = vec![("cpu", s(&format!("{}m", t.requests.cpu_millis)))];
    if t.requests.memory_mib > 0 {
        requests.push(("memory", s(&format!("{}Mi", t.requests.memory_mib))));
    }
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
    if !t.affinity.is_empty() {
        aff.push(("podAffinity", terms(&t.affinity)));
    }
    if !t.anti_affinity.is_empty() {
        aff.push(("podAntiAffinity", terms(&t.anti_affinity)));
    }
    if !aff.is_empty() {
        spec.push(("affinity", map(aff)));
    }
    spec.push((
        "containers",
        Value::Seq(vec![map(vec![
            ("name", s("app")),
            ("image", s(IMAGE)),
            ("resources", map(vec![("requests", map(requests))])),
        ])]),
    ));
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

fn deployment(d: &DeploymentSpec, namespace: &str) -> Value {
    map(vec![
        ("apiVersion", s("apps/v1")),
        ("kind", s("Deployment")),
        (
            "metadata",
            map(vec![("name", s(&d.name)), ("namespace", s(namespace))]),
        ),
        (
            "spec",
            map(vec![
                ("replicas", Value::UInt(d.replicas as u64)),
                (
                    "selector",
                    map(vec![("matchLabels", labels(&d.template.labels))]),
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
            ]),
        ),
    ])
}

/// The scenario as a multi-document YAML stream that `kubectl apply -f` takes:
/// Nodes (labels, taints, unschedulable; allocatable and the Ready condition
/// in `status`, which KWOK reads and a real cluster's kubelet overwrites),
/// Deployments (one `pause` container holding the template's requests),
/// PodDisruptionBudgets and Services, in namespace `namespace`.
pub fn export(sc: &Scenario, namespace: &str) -> String {
    let mut docs: Vec<Value> = Vec::new();
    docs.extend(sc.nodes.iter().map(node));
    docs.extend(sc.deployments.iter().map(|d| deployment(d, namespace)));
    for p in &sc.pdbs {
        let (k, v) = match p.budget {
            Budget::MinAvailable(v) => ("minAvailable", v),
            Budget::MaxUnavailable(v) => ("maxUnavailable", v),
        };
        docs.push(map(vec![
            ("apiVersion", s("policy/v1")),
            ("kind", s("PodDisruptionBudget")),
            (
                "metadata",
                map(vec![("name", s(&p.name)), ("namespace", s(namespace))]),
            ),
            (
                "spec",
                map(vec![
                    (
                        "selector",
                        map(vec![("matchLabels", labels(&p.selector.match_labels))]),
                    ),
                    (k, int_or_percent(v)),
                ]),
            ),
        ]));
    }
    for svc in &sc.services {
        docs.push(map(vec![
            ("apiVersion", s("v1")),
            ("kind", s("Service")),
            (
                "metadata",
                map(vec![("name", s(&svc.name)), ("namespace", s(namespace))]),
            ),
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
        ]));
    }
    let mut out = String::new();
    for d in &docs {
        out.push_str("---\n");
        yaml(&mut out, d, 0);
    }
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
            let node = p
                .node
                .and_then(|id| c.node_by_id(id))
                .map(|n| n.name().to_string())
                .unwrap_or_else(|| "<none>".to_string());
            Row {
                name: p.name(),
                ready: if p.ready { "1/1" } else { "0/1" },
                status: match p.phase {
                    shepherd::PodPhase::Pending => "Pending",
                    shepherd::PodPhase::Running => "Running",
                    shepherd::PodPhase::Lost => "Unknown",
                },
                age: if p.node.is_some() {
                    format!("{}t", now.saturating_sub(p.bound_at))
                } else {
                    "<none>".to_string()
                },
                node,
            }
        })
        .collect()
}

/// The pods as `kubectl get pods -o wide` prints them (AGE in ticks, `t`;
/// pod IPs are not simulated, so IP is `<none>`).
pub fn pods_wide(c: &Cluster) -> String {
    let rows = rows(c);
    let head = [
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
    let table: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                r.name.clone(),
                r.ready.to_string(),
                r.status.to_string(),
                "0".to_string(),
                r.age.clone(),
                "<none>".to_string(),
                r.node.clone(),
                "<none>".to_string(),
                "<none>".to_string(),
            ]
        })
        .collect();
    let mut width = head.map(|h| h.len());
    for r in &table {
        for (i, cell) in r.iter().enumerate() {
            width[i] = width[i].max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 < cells.len() {
                let _ = write!(l, "{:<w$}   ", cell, w = width[i]);
            } else {
                l.push_str(cell);
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&head);
    for r in &table {
        let cells: Vec<&str> = r.iter().map(|x| x.as_str()).collect();
        line(&cells);
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
            let reason = if p.node.is_none() {
                c.pending_reason(&r.name).ok().flatten()
            } else {
                None
            };
            serde_json::json!({
                "name": r.name,
                "app": p.app,
                "ready": p.ready,
                "status": r.status,
                "node": p.node.map(|_| r.node.clone()),
                "reason": reason,
            })
        })
        .collect();
    serde_json::Value::Array(pods)
}
