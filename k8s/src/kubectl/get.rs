//! `kubectl get` and `kubectl top nodes`: kubectl's columns over the
//! engine's views, a page of rows at a time.

use serde_json::{json, Value};
use shepherd::namespace::split;
use shepherd::{Cluster, ControllerId, PodPhase, PodView, WorkloadKind};

use super::grammar::{Command, FieldReq, Kind, LabelQuery, Output, Scope};
use super::table::{row, write};
use super::{human_duration, Page, Reply};

/// What kubectl prints for an object whose creationTimestamp it does not
/// have (the engine does not record when Nodes and owners were created).
pub(super) const UNKNOWN: &str = "<unknown>";
pub(super) const NONE: &str = "<none>";

/// A pod's STATUS column: status.reason when there is one (`OutOfcpu`),
/// else the phase; a pod whose node went NotReady shows `Unknown`, as the
/// node lifecycle controller marks it.
pub(crate) fn pod_status(c: &Cluster, p: &PodView) -> &'static str {
    match (p.phase, p.failure) {
        (_, Some((reason, _))) => reason,
        (PodPhase::Running, _)
            if p.by_node_name
                && !p.ready
                && p.node
                    .and_then(|id| c.node_by_id(id))
                    .is_some_and(|n| !n.ready) =>
        {
            "Pending"
        }
        (PodPhase::Pending, _) => "Pending",
        (PodPhase::Running, _) => "Running",
        (PodPhase::Lost, _) => "Unknown",
        (PodPhase::Failed, _) => "Failed",
    }
}

/// status.phase, for `--field-selector status.phase=...`.
fn pod_phase(p: &PodView) -> &'static str {
    match p.phase {
        PodPhase::Pending => "Pending",
        PodPhase::Running => "Running",
        PodPhase::Lost => "Unknown",
        PodPhase::Failed => "Failed",
    }
}

/// spec.nodeName.
pub(super) fn pod_node<'a>(c: &'a Cluster, p: &PodView<'a>) -> Option<&'a str> {
    p.node
        .and_then(|id| c.node_by_id(id))
        .map(|n| n.spec.name.as_str())
        .or(p.node_name)
}

/// The pod's labels as the API shows them: its template's (without the
/// labels only admission writes) and a Deployment pod's pod-template-hash.
pub(super) fn pod_labels(p: &PodView) -> shepherd::Labels {
    let mut l: shepherd::Labels = p
        .template
        .labels
        .iter()
        .filter(|(k, _)| !shepherd::namespace::is_reserved(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(h) = p.template_hash {
        l.insert("pod-template-hash".into(), h.into());
    }
    l
}

pub(super) fn labels_text(l: &shepherd::Labels) -> String {
    if l.is_empty() {
        return NONE.into();
    }
    l.iter()
        .filter(|(k, _)| !shepherd::namespace::is_reserved(k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn in_scope(scope: &Scope, key: &str) -> bool {
    scope.all || split(key).0 == scope.namespace()
}

fn no_resources(kind: Kind, scope: &Scope) -> String {
    if kind.namespaced() && !scope.all {
        format!("No resources found in {} namespace.", scope.namespace())
    } else {
        "No resources found".into()
    }
}

fn bad_field(kind: Kind, f: &FieldReq, all: &[FieldReq]) -> String {
    let sel: Vec<String> = all
        .iter()
        .map(|r| format!("{}{}{}", r.field, if r.equal { "=" } else { "!=" }, r.value))
        .collect();
    format!(
        "Error from server (BadRequest): Unable to find \"{}\" that match label selector \"\", field selector \"{}\": field label not supported: {}",
        kind.resource(),
        sel.join(","),
        f.field
    )
}

fn field_ok(f: &FieldReq, value: &str) -> bool {
    (value == f.value) == f.equal
}

/// An object listed by `get`: its key, labels, and the cells of its row.
struct Listed {
    key: String,
    labels: shepherd::Labels,
    cells: Vec<String>,
    json: Option<Value>,
}

pub(super) fn get(c: &Cluster, cmd: &Command, page: Page) -> Result<Reply, String> {
    let Command::Get {
        kind,
        names,
        scope,
        selector,
        fields,
        output,
        show_labels,
    } = cmd
    else {
        unreachable!("get is given a Get");
    };
    let kind = *kind;
    if kind == Kind::Pods {
        return get_pods(
            c,
            names,
            scope,
            selector.as_ref(),
            fields,
            *output,
            *show_labels,
            page,
        );
    }
    for f in fields {
        let known = matches!(f.field.as_str(), "metadata.name" | "metadata.namespace")
            || (kind == Kind::Nodes && f.field == "spec.unschedulable");
        if !known {
            return Err(bad_field(kind, f, fields));
        }
    }
    let wide = *output == Output::Wide;
    let (head, all) = list(
        c,
        kind,
        wide,
        *output == Output::Json || *output == Output::Yaml,
    )?;
    let mut errors = Vec::new();
    let mut chosen: Vec<Listed> = Vec::new();
    let want = |l: &Listed| {
        let (ns, name) = split(&l.key);
        (!kind.namespaced() || in_scope(scope, &l.key))
            && selector.as_ref().is_none_or(|q| q.matches(&l.labels))
            && fields.iter().all(|f| match f.field.as_str() {
                "metadata.name" => field_ok(f, name),
                "metadata.namespace" => field_ok(f, ns),
                "spec.unschedulable" => field_ok(
                    f,
                    l.cells
                        .get(1)
                        .is_some_and(|s| s.contains("SchedulingDisabled"))
                        .to_string()
                        .as_str(),
                ),
                _ => false,
            })
    };
    if names.is_empty() {
        chosen = all.into_iter().filter(|l| want(l)).collect();
    } else {
        let mut all = all;
        for n in names {
            let k = if kind.namespaced() {
                super::key(scope.namespace(), n)
            } else {
                n.clone()
            };
            match all.iter().position(|l| l.key == k) {
                Some(i) => chosen.push(all.swap_remove(i)),
                None => errors.push(kind.not_found(n)),
            }
        }
    }
    if chosen.is_empty() {
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        return Ok(Reply::text(no_resources(kind, scope)));
    }
    let total = chosen.len();
    let from = page.offset.min(total);
    let to = from.saturating_add(page.limit).min(total);
    let mut text = String::new();
    match output {
        Output::Name => {
            for l in &chosen[from..to] {
                text.push_str(&format!("{}/{}\n", kind.singular(), split(&l.key).1));
            }
        }
        Output::Json | Output::Yaml => {
            // A page of objects, as a page of rows: the prompt must not
            // write 150,000 pods' objects at once (the CLI asks for all).
            let items: Vec<Value> = chosen[from..to]
                .iter()
                .filter_map(|l| l.json.clone())
                .collect();
            text = serialize(items, names.len() == 1, *output)?;
        }
        Output::Table | Output::Wide => {
            let ns_col = kind.namespaced() && scope.all;
            let mut rows = Vec::with_capacity(to - from + 1);
            let mut h: Vec<String> = head.iter().map(|s| s.to_string()).collect();
            if ns_col {
                h.insert(0, "NAMESPACE".into());
            }
            if *show_labels {
                h.push("LABELS".into());
            }
            rows.push(h);
            for l in &chosen[from..to] {
                let mut r = l.cells.clone();
                if ns_col {
                    r.insert(0, split(&l.key).0.to_string());
                }
                if *show_labels {
                    r.push(labels_text(&l.labels));
                }
                rows.push(r);
            }
            write(&mut text, &mut Vec::new(), &rows);
        }
    }
    for e in errors {
        text.push_str(&e);
        text.push('\n');
    }
    Ok(Reply::Text {
        text,
        offset: from,
        rows: to - from,
        total,
    })
}

/// kubectl's `-o json` (four spaces) and `-o yaml`: one object, or a `List`.
pub(super) fn serialize(items: Vec<Value>, one: bool, output: Output) -> Result<String, String> {
    let v = if one && items.len() == 1 {
        items.into_iter().next().expect("one item")
    } else {
        json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
    };
    match output {
        Output::Yaml => serde_yaml_ng::to_string(&v).map_err(|e| format!("error: {e}")),
        _ => {
            use serde::Serialize;
            let mut buf = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
            v.serialize(&mut ser).map_err(|e| format!("error: {e}"))?;
            let mut s = String::from_utf8(buf).map_err(|e| format!("error: {e}"))?;
            s.push('\n');
            Ok(s)
        }
    }
}

/// Every object of a kind (not pods), with its row; `json`: with its object.
fn list(
    c: &Cluster,
    kind: Kind,
    wide: bool,
    objects: bool,
) -> Result<(Vec<&'static str>, Vec<Listed>), String> {
    let now = c.now();
    let mut out = Vec::new();
    let head: Vec<&'static str> = match kind {
        Kind::Nodes => {
            let mut head = vec!["NAME", "STATUS", "ROLES", "AGE", "VERSION"];
            if wide {
                head.extend([
                    "INTERNAL-IP",
                    "EXTERNAL-IP",
                    "OS-IMAGE",
                    "KERNEL-VERSION",
                    "CONTAINER-RUNTIME",
                ]);
            }
            for n in c.nodes() {
                let mut cells = vec![
                    n.name().to_string(),
                    node_status(&n),
                    node_roles(&n.spec.labels),
                    UNKNOWN.into(),
                    String::new(),
                ];
                if wide {
                    cells.extend([NONE, NONE, UNKNOWN, UNKNOWN, UNKNOWN].map(String::from));
                }
                out.push(Listed {
                    key: n.name().into(),
                    labels: n.spec.labels.clone(),
                    cells,
                    json: objects.then(|| node_json(&n)),
                });
            }
            head
        }
        Kind::Deployments => {
            let mut head = vec!["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"];
            if wide {
                head.extend(["CONTAINERS", "IMAGES", "SELECTOR"]);
            }
            for a in c.apps().filter(|a| a.kind == WorkloadKind::Deployment) {
                let sel = c
                    .deployment_selector_of(&a.name)
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                let mut cells = vec![
                    split(&a.name).1.to_string(),
                    format!("{}/{}", a.ready, a.desired),
                    a.updated.to_string(),
                    a.available.to_string(),
                    UNKNOWN.into(),
                ];
                if wide {
                    cells.extend(["app".to_string(), a.version.clone(), sel]);
                }
                let t = c
                    .template(&a.name)
                    .unwrap_or_else(|_| shepherd::PodTemplate::new(a.requests));
                out.push(Listed {
                    key: a.name.clone(),
                    labels: t.labels.clone(),
                    json: objects.then(|| deployment_json(c, &a, &t)),
                    cells,
                });
            }
            head
        }
        Kind::ReplicaSets => {
            let mut head = vec!["NAME", "DESIRED", "CURRENT", "READY", "AGE"];
            if wide {
                head.extend(["CONTAINERS", "IMAGES", "SELECTOR"]);
            }
            for (_, name, k) in c.owners() {
                if k != WorkloadKind::Deployment {
                    continue;
                }
                let sel = c
                    .deployment_selector_of(name)
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                let t = c.template(name).ok();
                for rs in c.replica_sets(name).map_err(|e| e.to_string())? {
                    let hash = rs.name.rsplit('-').next().unwrap_or("").to_string();
                    let mut cells = vec![
                        split(&rs.name).1.to_string(),
                        rs.desired.to_string(),
                        rs.current.to_string(),
                        rs.ready.to_string(),
                        UNKNOWN.into(),
                    ];
                    if wide {
                        cells.extend([
                            "app".into(),
                            t.as_ref().map(|t| t.version.clone()).unwrap_or_default(),
                            format!("{sel},pod-template-hash={hash}"),
                        ]);
                    }
                    let mut labels = t.as_ref().map(|t| t.labels.clone()).unwrap_or_default();
                    labels.insert("pod-template-hash".into(), hash);
                    out.push(Listed {
                        key: rs.name.clone(),
                        labels,
                        cells,
                        json: None,
                    });
                }
            }
            head
        }
        Kind::StatefulSets => {
            let mut head = vec!["NAME", "READY", "AGE"];
            if wide {
                head.extend(["CONTAINERS", "IMAGES"]);
            }
            head
        }
        Kind::DaemonSets => {
            let mut head = vec![
                "NAME",
                "DESIRED",
                "CURRENT",
                "READY",
                "UP-TO-DATE",
                "AVAILABLE",
                "NODE SELECTOR",
                "AGE",
            ];
            if wide {
                head.extend(["CONTAINERS", "IMAGES", "SELECTOR"]);
            }
            for d in c.daemonsets() {
                let spec = c.daemonset_spec(&d.name).map_err(|e| e.to_string())?;
                let ns = labels_text(&spec.template.node_selector);
                let mut cells = vec![
                    split(&d.name).1.to_string(),
                    d.desired.to_string(),
                    d.current.to_string(),
                    d.ready.to_string(),
                    d.updated.to_string(),
                    d.available.to_string(),
                    ns,
                    UNKNOWN.into(),
                ];
                if wide {
                    cells.extend([
                        "app".into(),
                        spec.template.version.clone(),
                        labels_text(&spec.template.labels),
                    ]);
                }
                out.push(Listed {
                    key: d.name.clone(),
                    labels: spec.template.labels.clone(),
                    cells,
                    json: None,
                });
            }
            head
        }
        Kind::PodDisruptionBudgets => {
            for name in c.pdb_names() {
                let spec = c.pdb_spec(&name).map_err(|e| e.to_string())?;
                let st = c.pdb_status(&name).map_err(|e| e.to_string())?;
                let (min, max) = match spec.budget {
                    shepherd::Budget::MinAvailable(v) => (v.to_string(), "N/A".to_string()),
                    shepherd::Budget::MaxUnavailable(v) => ("N/A".to_string(), v.to_string()),
                };
                out.push(Listed {
                    key: name.clone(),
                    labels: Default::default(),
                    cells: vec![
                        split(&name).1.into(),
                        min,
                        max,
                        st.disruptions_allowed.to_string(),
                        UNKNOWN.into(),
                    ],
                    json: None,
                });
            }
            vec![
                "NAME",
                "MIN AVAILABLE",
                "MAX UNAVAILABLE",
                "ALLOWED DISRUPTIONS",
                "AGE",
            ]
        }
        Kind::Services => {
            let mut head = vec![
                "NAME",
                "TYPE",
                "CLUSTER-IP",
                "EXTERNAL-IP",
                "PORT(S)",
                "AGE",
            ];
            if wide {
                head.push("SELECTOR");
            }
            for s in c.service_specs() {
                let mut cells = vec![
                    split(&s.name).1.to_string(),
                    "ClusterIP".into(),
                    NONE.into(),
                    NONE.into(),
                    NONE.into(),
                    UNKNOWN.into(),
                ];
                if wide {
                    cells.push(s.selector.to_string());
                }
                out.push(Listed {
                    key: s.name.clone(),
                    labels: Default::default(),
                    cells,
                    json: None,
                });
            }
            head
        }
        Kind::Events => {
            let log = c.events();
            for e in log.iter() {
                let r = c.render_event(&e);
                let (okind, oname) = r.object.split_once('/').unwrap_or(("", &r.object));
                let (ns, name) = split(oname);
                let ns = if okind == "node" { "default" } else { ns };
                out.push(Listed {
                    // NAMESPACE/KIND/NAME: the namespace always written, so
                    // that `split` finds it before the kind's slash.
                    key: format!("{ns}/{okind}/{name}"),
                    labels: Default::default(),
                    cells: vec![
                        human_duration(now.saturating_sub(r.last_tick)),
                        r.type_.into(),
                        r.reason.into(),
                        format!("{okind}/{name}"),
                        r.message,
                    ],
                    json: None,
                });
            }
            vec!["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        }
        Kind::Namespaces => {
            let mut names: Vec<String> = c.namespaces().into_iter().map(|n| n.name).collect();
            for n in ["default", "kube-node-lease", "kube-public", "kube-system"] {
                if !names.iter().any(|x| x == n) {
                    names.push(n.into());
                }
            }
            names.sort();
            for n in names {
                out.push(Listed {
                    key: n.clone(),
                    labels: Default::default(),
                    cells: vec![n, "Active".into(), UNKNOWN.into()],
                    json: None,
                });
            }
            vec!["NAME", "STATUS", "AGE"]
        }
        Kind::PriorityClasses => {
            for p in c.priority_classes() {
                out.push(Listed {
                    key: p.name.clone(),
                    labels: Default::default(),
                    cells: vec![
                        p.name.clone(),
                        p.value.to_string(),
                        p.global_default.to_string(),
                        UNKNOWN.into(),
                        p.preemption_policy.as_str().into(),
                    ],
                    json: None,
                });
            }
            vec!["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
        }
        Kind::Pods => unreachable!("pods are listed by get_pods"),
    };
    // The API server lists by namespace, then name.
    if kind != Kind::Events {
        out.sort_by(|a, b| split(&a.key).cmp(&split(&b.key)));
    }
    if objects && out.iter().any(|l| l.json.is_none()) {
        return Err(format!(
            "error: -o json and -o yaml are written for pods, nodes and deployments here; expected -o wide or -o name for {}",
            kind.plural()
        ));
    }
    Ok((head, out))
}

pub(super) fn node_status(n: &shepherd::NodeView) -> String {
    let mut s = String::from(if n.ready { "Ready" } else { "NotReady" });
    if n.cordoned {
        s.push_str(",SchedulingDisabled");
    }
    s
}

/// ROLES: the `node-role.kubernetes.io/ROLE` labels (and
/// `kubernetes.io/role`), as kubectl's findNodeRoles reads them.
pub(super) fn node_roles(l: &shepherd::Labels) -> String {
    let mut roles: Vec<&str> = l
        .iter()
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(r) if !r.is_empty() => Some(r),
            _ if k == "kubernetes.io/role" && !v.is_empty() => Some(v.as_str()),
            _ => None,
        })
        .collect();
    roles.sort();
    roles.dedup();
    if roles.is_empty() {
        NONE.into()
    } else {
        roles.join(",")
    }
}

fn quantity_json(r: shepherd::Resources) -> Value {
    json!({"cpu": format!("{}m", r.cpu_millis), "memory": shepherd::quantity::format_memory_bytes(r.memory_bytes)})
}

fn node_json(n: &shepherd::NodeView) -> Value {
    let mut alloc = quantity_json(n.spec.capacity);
    alloc["pods"] = json!(n.spec.max_pods.to_string());
    // Extended resources, ephemeral-storage and huge pages, as the node
    // reports them (what `-o jsonpath='{.status.allocatable.nvidia\.com/gpu}'`
    // reads).
    for (k, v) in n.spec.scalars.iter() {
        alloc[k] = json!(shepherd::model::scalar::format_amount(k, v));
    }
    let taints: Vec<Value> = n
        .spec
        .taints
        .iter()
        .map(|t| {
            let mut v = json!({"key": t.key, "effect": t.effect.as_str()});
            if !t.value.is_empty() {
                v["value"] = json!(t.value);
            }
            v
        })
        .collect();
    let mut spec = json!({});
    if n.cordoned {
        spec["unschedulable"] = json!(true);
    }
    if !taints.is_empty() {
        spec["taints"] = Value::Array(taints);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": n.name(), "labels": n.spec.labels},
        "spec": spec,
        "status": {
            "allocatable": alloc.clone(),
            "capacity": alloc,
            "conditions": [{"type": "Ready", "status": if n.ready { "True" } else if n.beating { "False" } else { "Unknown" }}],
        },
    })
}

fn deployment_json(c: &Cluster, a: &shepherd::AppStatus, t: &shepherd::PodTemplate) -> Value {
    let (ns, name) = split(&a.name);
    let sel = c
        .deployment_selector_of(&a.name)
        .map(|s| s.match_labels)
        .unwrap_or_default();
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "generation": a.revision},
        "spec": {
            "replicas": a.desired,
            "selector": {"matchLabels": sel},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                "maxSurge": a.strategy.max_surge.to_string(),
                "maxUnavailable": a.strategy.max_unavailable.to_string(),
            }},
            "template": {
                "metadata": {"labels": t.labels},
                "spec": {"containers": [{"name": "app", "image": t.version, "resources": {"requests": quantity_json(t.requests)}}]},
            },
        },
        "status": {
            "replicas": a.current,
            "readyReplicas": a.ready,
            "updatedReplicas": a.updated,
            "availableReplicas": a.available,
        },
    })
}

pub(super) fn pod_json(c: &Cluster, p: &PodView) -> Value {
    let key = p.name();
    let (ns, name) = split(&key);
    let mut spec = json!({
        "containers": [{"name": "app", "image": p.template.version, "resources": {"requests": quantity_json(p.template.requests)}}],
        "priority": p.priority,
        "schedulerName": "default-scheduler",
    });
    if let Some(n) = pod_node(c, p) {
        spec["nodeName"] = json!(n);
    }
    if !p.template.node_selector.is_empty() {
        spec["nodeSelector"] = json!(p.template.node_selector);
    }
    let mut meta = json!({"name": name, "namespace": ns, "uid": p.uid(), "labels": pod_labels(p)});
    let owner = match p.kind {
        WorkloadKind::Deployment => Some((
            "ReplicaSet",
            format!("{}-{}", split(p.app).1, p.template_hash.unwrap_or("")),
        )),
        WorkloadKind::DaemonSet => Some(("DaemonSet", split(p.app).1.to_string())),
        WorkloadKind::Pod => None,
    };
    if let Some((kind, oname)) = owner {
        meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": kind, "name": oname, "controller": true, "blockOwnerDeletion": true}]);
    }
    let mut status = json!({"phase": pod_phase(p)});
    if let Some(n) = p.nominated.and_then(|id| c.node_by_id(id)) {
        status["nominatedNodeName"] = json!(n.name());
    }
    if let Some((reason, message)) = p.failure {
        status["reason"] = json!(reason);
        status["message"] = json!(message);
    }
    if p.node.is_some() {
        status["conditions"] =
            json!([{"type": "Ready", "status": if p.ready { "True" } else { "False" }}]);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})
}

/// The pods' rows, in the API server's order (namespace, then name) and
/// costing what the page shows: owners are ordered by key, and only the
/// owners the page reaches have their pods named and sorted; the rows
/// before the page are counted, not written.
#[allow(clippy::too_many_arguments)]
fn get_pods(
    c: &Cluster,
    names: &[String],
    scope: &Scope,
    selector: Option<&LabelQuery>,
    fields: &[FieldReq],
    output: Output,
    show_labels: bool,
    page: Page,
) -> Result<Reply, String> {
    for f in fields {
        if !matches!(
            f.field.as_str(),
            "metadata.name" | "metadata.namespace" | "spec.nodeName" | "status.phase"
        ) {
            return Err(bad_field(Kind::Pods, f, fields));
        }
    }
    let now = c.now();
    let wide = output == Output::Wide;
    // Named pods: each looked up.
    if !names.is_empty() {
        let mut found = Vec::new();
        let mut errors = Vec::new();
        for n in names {
            match c.pod_by_name(&super::key(scope.namespace(), n)) {
                Ok(p) => found.push(p),
                Err(_) => errors.push(Kind::Pods.not_found(n)),
            }
        }
        if found.is_empty() {
            return Err(errors.join("\n"));
        }
        let mut text = match output {
            Output::Json | Output::Yaml => serialize(
                found.iter().map(|p| pod_json(c, p)).collect(),
                names.len() == 1,
                output,
            )?,
            Output::Name => found
                .iter()
                .map(|p| format!("pod/{}\n", split(&p.name()).1))
                .collect(),
            _ => {
                let mut rows = vec![pod_head(false, wide, show_labels)];
                rows.extend(
                    found
                        .iter()
                        .map(|p| pod_row(c, p, now, false, wide, show_labels)),
                );
                let mut t = String::new();
                write(&mut t, &mut Vec::new(), &rows);
                t
            }
        };
        for e in &errors {
            text.push_str(e);
            text.push('\n');
        }
        let rows = found.len();
        return Ok(Reply::Text {
            text,
            offset: 0,
            rows,
            total: rows,
        });
    }
    // Owners in key order (namespace, then name).
    let mut owners: Vec<(ControllerId, &str)> = c
        .owners()
        .filter(|(_, k, _)| in_scope(scope, k))
        .map(|(id, k, _)| (id, k))
        .collect();
    owners.sort_by(|a, b| split(a.1).cmp(&split(b.1)));
    // Per owner and revision, whether the selector matches (labels are a
    // revision's): the query runs once per revision, not per pod.
    let mut rev_match: std::collections::HashMap<(u32, u32), bool> = Default::default();
    let mut keep = |p: &PodView| -> bool {
        if let Some(q) = selector {
            let m = *rev_match
                .entry((p.controller.0, p.revision))
                .or_insert_with(|| q.matches(&pod_labels(p)));
            if !m {
                return false;
            }
        }
        fields.iter().all(|f| match f.field.as_str() {
            "spec.nodeName" => field_ok(f, pod_node(c, p).unwrap_or("")),
            "status.phase" => field_ok(f, pod_phase(p)),
            "metadata.namespace" => field_ok(f, split(p.app).0),
            "metadata.name" => field_ok(f, split(&p.name()).1),
            _ => false,
        })
    };
    let filtered = selector.is_some() || !fields.is_empty();
    let (from, to) = (page.offset, page.offset.saturating_add(page.limit));
    let mut total = 0usize;
    let mut shown: Vec<PodView> = Vec::new();
    for &(id, _) in &owners {
        // An owner wholly before or after the page is counted only.
        if !filtered {
            let n = c.pod_count_of(id);
            if total + n <= from || total >= to {
                total += n;
                continue;
            }
        }
        let mut pods: Vec<(String, PodView)> = c
            .pods_of(id)
            .filter(|p| keep(p))
            .map(|p| (p.name(), p))
            .collect();
        if total + pods.len() <= from || total >= to {
            total += pods.len();
            continue;
        }
        pods.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, p) in pods {
            if total >= from && total < to {
                shown.push(p);
            }
            total += 1;
        }
    }
    if total == 0 {
        return Ok(Reply::text(no_resources(Kind::Pods, scope)));
    }
    let rows_n = shown.len();
    let text = match output {
        Output::Json | Output::Yaml => serialize(
            shown.iter().map(|p| pod_json(c, p)).collect(),
            false,
            output,
        )?,
        Output::Name => shown
            .iter()
            .map(|p| format!("pod/{}\n", split(&p.name()).1))
            .collect(),
        _ => {
            let mut rows = Vec::with_capacity(rows_n + 1);
            rows.push(pod_head(scope.all, wide, show_labels));
            rows.extend(
                shown
                    .iter()
                    .map(|p| pod_row(c, p, now, scope.all, wide, show_labels)),
            );
            let mut t = String::new();
            write(&mut t, &mut Vec::new(), &rows);
            t
        }
    };
    Ok(Reply::Text {
        text,
        offset: from.min(total),
        rows: rows_n,
        total,
    })
}

fn pod_head(ns: bool, wide: bool, labels: bool) -> Vec<String> {
    let mut h = Vec::new();
    if ns {
        h.push("NAMESPACE");
    }
    h.extend(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    if wide {
        h.extend(["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
    }
    if labels {
        h.push("LABELS");
    }
    row_of(&h)
}

fn row_of(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

/// AGE of a pod: since it was bound (the engine does not record when a
/// Pending pod was created).
/// AGE: the time since metadata.creationTimestamp, for every pod, Pending
/// ones too (kubectl's printPod: `translateTimestampSince(pod.CreationTimestamp)`,
/// pkg/printers/internalversion/printers.go).
pub(super) fn pod_age(p: &PodView, now: u64) -> String {
    human_duration(now.saturating_sub(p.created_at))
}

fn pod_row(c: &Cluster, p: &PodView, now: u64, ns: bool, wide: bool, labels: bool) -> Vec<String> {
    let key = p.name();
    let (namespace, name) = split(&key);
    let mut r = Vec::with_capacity(11);
    if ns {
        r.push(namespace.to_string());
    }
    r.push(name.to_string());
    r.push(if p.ready { "1/1" } else { "0/1" }.to_string());
    r.push(pod_status(c, p).to_string());
    r.push("0".into());
    r.push(pod_age(p, now));
    if wide {
        r.push(NONE.into());
        r.push(pod_node(c, p).unwrap_or(NONE).to_string());
        r.push(
            p.nominated
                .and_then(|id| c.node_by_id(id))
                .map(|n| n.name().to_string())
                .unwrap_or_else(|| NONE.into()),
        );
        r.push(NONE.into());
    }
    if labels {
        r.push(labels_text(&pod_labels(p)));
    }
    r
}

/// `kubectl top nodes`, from requests (the simulation has no usage):
/// NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%), as kubectl's
/// TopNodes printer writes them (millicores, Mi, percent of allocatable).
pub(super) fn top_nodes(c: &Cluster, cmd: &Command, page: Page) -> Result<Reply, String> {
    let Command::TopNodes { names, selector } = cmd else {
        unreachable!("top_nodes is given a TopNodes");
    };
    let mut rows = vec![row([
        "NAME",
        "CPU(cores)",
        "CPU(%)",
        "MEMORY(bytes)",
        "MEMORY(%)",
    ])];
    let mut listed: Vec<_> = c
        .nodes()
        .filter(|n| names.is_empty() || names.iter().any(|x| x == n.name()))
        .filter(|n| selector.as_ref().is_none_or(|q| q.matches(&n.spec.labels)))
        .collect();
    for n in names {
        if !listed.iter().any(|x| x.name() == n) {
            return Err(Kind::Nodes.not_found(n));
        }
    }
    listed.sort_by(|a, b| a.name().cmp(b.name()));
    let total = listed.len();
    let from = page.offset.min(total);
    let to = from.saturating_add(page.limit).min(total);
    let pct = |used: u64, cap: u64| used.saturating_mul(100).checked_div(cap).unwrap_or(0);
    for n in &listed[from..to] {
        let (a, cap) = (n.allocated, n.spec.capacity);
        rows.push(vec![
            n.name().to_string(),
            format!("{}m", a.cpu_millis),
            format!("{}%", pct(a.cpu_millis, cap.cpu_millis)),
            // kubectl top: MEMORY(bytes) in whole Mi, rounded down.
            format!("{}Mi", a.memory_bytes / shepherd::quantity::MIB),
            format!("{}%", pct(a.memory_bytes, cap.memory_bytes)),
        ]);
    }
    if total == 0 {
        return Err("error: metrics not available yet".into());
    }
    let mut text = String::new();
    write(&mut text, &mut Vec::new(), &rows);
    Ok(Reply::Text {
        text,
        offset: from,
        rows: to - from,
        total,
    })
}
