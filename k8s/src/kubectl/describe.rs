//! `kubectl describe node|pod|deployment`: kubectl's sections (k8s.io/kubectl
//! pkg/describe) over the engine's state, and for a pod this project's
//! explanation of its scheduling.

use shepherd::namespace::split;
use shepherd::{Cluster, Profile, RenderedEvent, Resources};

use super::get::{
    labels_text, node_roles, pod_age, pod_labels, pod_node, pod_status, NONE, UNKNOWN,
};
use super::grammar::{Command, Kind};
use super::{human_duration, Reply};

/// kubectl describe's tab writer: padding 2, no minimum width.
fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    let mut widths = vec![0usize; rows.iter().map(Vec::len).max().unwrap_or(0)];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count() + 2);
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(indent);
        for (i, c) in r.iter().enumerate() {
            line.push_str(c);
            if i + 1 < r.len() {
                for _ in c.chars().count()..widths[i] {
                    line.push(' ');
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn field(out: &mut String, name: &str, value: &str) {
    out.push_str(&format!("{:<20}{}\n", format!("{name}:"), value));
}

/// A multi-line field (Labels, Taints): the first value beside the name,
/// the rest under it.
fn list_field(out: &mut String, name: &str, values: &[String]) {
    if values.is_empty() {
        field(out, name, NONE);
        return;
    }
    field(out, name, &values[0]);
    for v in &values[1..] {
        out.push_str(&format!("{:<20}{v}\n", ""));
    }
}

fn events_section(out: &mut String, c: &Cluster, object: &str) {
    let now = c.now();
    let evs: Vec<RenderedEvent> = c
        .events()
        .iter()
        .map(|e| c.render_event(&e))
        .filter(|r| r.object == object)
        .collect();
    if evs.is_empty() {
        out.push_str("Events:              <none>\n");
        return;
    }
    out.push_str("Events:\n");
    let mut rows = vec![
        ["Type", "Reason", "Age", "From", "Message"]
            .map(String::from)
            .to_vec(),
        ["----", "------", "----", "----", "-------"]
            .map(String::from)
            .to_vec(),
    ];
    for e in evs {
        let age = if e.count > 1 {
            format!(
                "{} (x{} over {})",
                human_duration(now.saturating_sub(e.last_tick)),
                e.count,
                human_duration(now.saturating_sub(e.tick))
            )
        } else {
            human_duration(now.saturating_sub(e.tick))
        };
        rows.push(vec![
            e.type_.into(),
            e.reason.into(),
            age,
            // The engine names the emitting component (`Reason::source`).
            e.source.into(),
            e.message,
        ]);
    }
    out.push_str(&aligned(&rows, "  "));
}

fn pct(used: u64, cap: u64) -> u64 {
    used.saturating_mul(100).checked_div(cap).unwrap_or(0)
}

fn cpu(m: u64) -> String {
    if m.is_multiple_of(1000) {
        (m / 1000).to_string()
    } else {
        format!("{m}m")
    }
}

/// Bytes as kubectl prints a memory quantity (`512Mi`, `8Gi`, `1G`).
fn mem(b: u64) -> String {
    shepherd::quantity::format_memory_bytes(b)
}

pub(super) fn describe(
    c: &Cluster,
    profile: &Profile,
    decide: Option<super::Decide<'_>>,
    cmd: &Command,
) -> Result<Reply, String> {
    let Command::Describe {
        kind,
        names,
        scope,
        selector,
    } = cmd
    else {
        unreachable!("describe is given a Describe");
    };
    if !matches!(kind, Kind::Nodes | Kind::Pods | Kind::Deployments) {
        return Err(format!(
            "error: describe is written for nodes, pods and deployments here; expected kubectl get {} (-o wide)",
            kind.plural()
        ));
    }
    let mut targets: Vec<String> = names.clone();
    if targets.is_empty() {
        // `kubectl describe nodes` (or with -l): every matching object.
        targets = match kind {
            Kind::Nodes => c
                .nodes()
                .filter(|n| selector.as_ref().is_none_or(|q| q.matches(&n.spec.labels)))
                .map(|n| n.name().to_string())
                .collect(),
            Kind::Pods => c
                .pods()
                .filter(|p| scope.all || split(p.app).0 == scope.namespace())
                .filter(|p| selector.as_ref().is_none_or(|q| q.matches(&pod_labels(p))))
                .take(100)
                .map(|p| split(&p.name()).1.to_string())
                .collect(),
            Kind::Deployments => c
                .owners()
                .filter(|(_, k, w)| {
                    *w == shepherd::WorkloadKind::Deployment && split(k).0 == scope.namespace()
                })
                .map(|(_, k, _)| split(k).1.to_string())
                .collect(),
            _ => Vec::new(),
        };
        if targets.is_empty() {
            return Ok(Reply::text(if *kind == Kind::Nodes {
                "No resources found".to_string()
            } else {
                format!("No resources found in {} namespace.", scope.namespace())
            }));
        }
    }
    let mut parts = Vec::new();
    for name in &targets {
        parts.push(match kind {
            Kind::Nodes => describe_node(c, name)?,
            Kind::Pods => describe_pod(c, profile, decide, &super::key(scope.namespace(), name), name)?,
            Kind::Deployments => describe_deployment(c, &super::key(scope.namespace(), name), name)?,
            other => {
                return Err(format!(
                    "error: describe is written for nodes, pods and deployments here; expected kubectl get {} (-o wide)",
                    other.plural()
                ))
            }
        });
    }
    Ok(Reply::text(parts.join("\n\n")))
}

fn describe_node(c: &Cluster, name: &str) -> Result<String, String> {
    let n = c.node(name).map_err(|_| Kind::Nodes.not_found(name))?;
    let mut out = String::new();
    field(&mut out, "Name", name);
    field(&mut out, "Roles", &node_roles(&n.spec.labels));
    let labels: Vec<String> = n
        .spec
        .labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    list_field(&mut out, "Labels", &labels);
    field(&mut out, "Annotations", NONE);
    field(&mut out, "CreationTimestamp", UNKNOWN);
    let taints: Vec<String> = n.spec.taints.iter().map(|t| t.to_string()).collect();
    list_field(&mut out, "Taints", &taints);
    field(&mut out, "Unschedulable", &n.cordoned.to_string());
    out.push_str("Conditions:\n");
    let (status, reason, message) = match (n.ready, n.beating) {
        (true, _) => ("True", "KubeletReady", "kubelet is posting ready status"),
        (false, true) => ("False", "KubeletNotReady", "kubelet is not ready yet"),
        (false, false) => (
            "Unknown",
            "NodeStatusUnknown",
            "Kubelet stopped posting node status.",
        ),
    };
    let since = n
        .silent_since
        .map(|t| format!("{} ago", human_duration(c.now().saturating_sub(t))))
        .unwrap_or_else(|| "now".into());
    out.push_str(&aligned(
        &[
            ["Type", "Status", "LastHeartbeatTime", "Reason", "Message"]
                .map(String::from)
                .to_vec(),
            ["----", "------", "-----------------", "------", "-------"]
                .map(String::from)
                .to_vec(),
            vec![
                "Ready".into(),
                status.into(),
                since,
                reason.into(),
                message.into(),
            ],
        ],
        "  ",
    ));
    let cap = n.spec.capacity;
    // kubectl sorts the resource names (SortableResourceNames); the node's
    // scalar resources (nvidia.com/gpu, ephemeral-storage, hugepages-*)
    // take their places among cpu, memory and pods.
    let res = |r: Resources, pods: u32| {
        let mut rows = vec![
            ("cpu".to_string(), cpu(r.cpu_millis)),
            ("memory".to_string(), mem(r.memory_bytes)),
            ("pods".to_string(), pods.to_string()),
        ];
        rows.extend(
            n.spec
                .scalars
                .iter()
                .map(|(k, v)| (k.to_string(), shepherd::scalar::format_amount(k, v))),
        );
        rows.sort();
        aligned(
            &rows
                .into_iter()
                .map(|(k, v)| vec![format!("{k}:"), v])
                .collect::<Vec<_>>(),
            "  ",
        )
    };
    out.push_str("Capacity:\n");
    out.push_str(&res(cap, n.spec.max_pods));
    out.push_str("Allocatable:\n");
    out.push_str(&res(cap, n.spec.max_pods));
    let pods: Vec<_> = c.pods_on(n.id).collect();
    out.push_str(&format!(
        "Non-terminated Pods:          ({} in total)\n",
        pods.len()
    ));
    let mut rows = vec![
        [
            "Namespace",
            "Name",
            "CPU Requests",
            "CPU Limits",
            "Memory Requests",
            "Memory Limits",
            "Age",
        ]
        .map(String::from)
        .to_vec(),
        [
            "---------",
            "----",
            "------------",
            "----------",
            "---------------",
            "-------------",
            "---",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut sorted: Vec<(String, usize)> = pods
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name(), i))
        .collect();
    sorted.sort();
    for (key, i) in &sorted {
        let p = &pods[*i];
        let (ns, pname) = split(key);
        let r = p.template.requests;
        rows.push(vec![
            ns.into(),
            pname.into(),
            format!(
                "{} ({}%)",
                cpu(r.cpu_millis),
                pct(r.cpu_millis, cap.cpu_millis)
            ),
            "0 (0%)".into(),
            format!(
                "{} ({}%)",
                mem(r.memory_bytes),
                pct(r.memory_bytes, cap.memory_bytes)
            ),
            "0 (0%)".into(),
            pod_age(p, c.now()),
        ]);
    }
    out.push_str(&aligned(&rows, "  "));
    out.push_str(
        "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n",
    );
    let a = n.allocated;
    // describeNodeResource: cpu, memory, ephemeral-storage, then huge pages
    // (with percentages) and extended resources (without), each sorted;
    // the requests of the pods here, the limits equal to them for the
    // resources that cannot be overcommitted.
    let used = c.scalars_requested(n.id);
    let mut more = Vec::new();
    let (mut huge, mut ext): (Vec<_>, Vec<_>) = n
        .spec
        .scalars
        .iter()
        .filter(|(k, _)| *k != shepherd::scalar::EPHEMERAL_STORAGE)
        .partition(|(k, _)| k.starts_with(shepherd::scalar::HUGEPAGES_PREFIX));
    huge.sort();
    ext.sort();
    let es = shepherd::scalar::EPHEMERAL_STORAGE;
    if n.spec.scalars.get(es) > 0 {
        let (u, all) = (used.get(es), n.spec.scalars.get(es));
        more.push(vec![
            es.to_string(),
            format!("{} ({}%)", mem(u), pct(u, all)),
            "0 (0%)".into(),
        ]);
    }
    for (k, all) in huge {
        let u = used.get(k);
        let v = format!("{} ({}%)", mem(u), pct(u, all));
        more.push(vec![k.to_string(), v.clone(), v]);
    }
    for (k, _) in ext {
        let u = used.get(k).to_string();
        more.push(vec![k.to_string(), u.clone(), u]);
    }
    out.push_str(&aligned(
        &[
            ["Resource", "Requests", "Limits"]
                .map(String::from)
                .to_vec(),
            ["--------", "--------", "------"]
                .map(String::from)
                .to_vec(),
            vec![
                "cpu".into(),
                format!(
                    "{} ({}%)",
                    cpu(a.cpu_millis),
                    pct(a.cpu_millis, cap.cpu_millis)
                ),
                "0 (0%)".into(),
            ],
            vec![
                "memory".into(),
                format!(
                    "{} ({}%)",
                    mem(a.memory_bytes),
                    pct(a.memory_bytes, cap.memory_bytes)
                ),
                "0 (0%)".into(),
            ],
        ]
        .into_iter()
        .chain(more)
        .collect::<Vec<_>>(),
        "  ",
    ));
    if let Some(d) = n.drain_status {
        // What `kubectl drain` printed last for this node (it runs over ticks here).
        field(&mut out, "Drain", d);
    }
    events_section(&mut out, c, &format!("node/{name}"));
    Ok(out)
}

fn describe_pod(
    c: &Cluster,
    profile: &Profile,
    decide: Option<super::Decide<'_>>,
    key: &str,
    name: &str,
) -> Result<String, String> {
    let p = c.pod_by_name(key).map_err(|_| Kind::Pods.not_found(name))?;
    // The pod's own name, also when it was looked up by its short form
    // (`web-0`): its events and its decision are filed under it.
    let own = p.name();
    let key = own.as_str();
    let (ns, pname) = split(key);
    let mut out = String::new();
    field(&mut out, "Name", pname);
    field(&mut out, "Namespace", ns);
    field(&mut out, "Priority", &p.priority.to_string());
    if let Some(pc) = &p.template.priority_class_name {
        field(&mut out, "Priority Class Name", pc);
    }
    field(&mut out, "Node", pod_node(c, &p).unwrap_or(NONE));
    let labels: Vec<String> = pod_labels(&p)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    list_field(&mut out, "Labels", &labels);
    field(&mut out, "Status", pod_status(c, &p));
    if let Some((reason, message)) = p.failure {
        field(&mut out, "Reason", reason);
        field(&mut out, "Message", message);
    }
    let controlled = match p.kind {
        shepherd::WorkloadKind::Deployment => format!(
            "ReplicaSet/{}-{}",
            split(p.app).1,
            p.template_hash.unwrap_or("")
        ),
        shepherd::WorkloadKind::DaemonSet => format!("DaemonSet/{}", split(p.app).1),
        shepherd::WorkloadKind::Pod => String::new(),
    };
    if !controlled.is_empty() {
        field(&mut out, "Controlled By", &controlled);
    }
    if let Some(n) = p.nominated.and_then(|id| c.node_by_id(id)) {
        field(&mut out, "NominatedNodeName", n.name());
    }
    out.push_str("Containers:\n  app:\n");
    out.push_str(&format!(
        "    Image:      {}\n    Requests:\n",
        p.template.version
    ));
    let r = p.template.requests;
    out.push_str(&format!(
        "      cpu:     {}\n      memory:  {}\n",
        cpu(r.cpu_millis),
        mem(r.memory_bytes)
    ));
    out.push_str("Conditions:\n");
    let scheduled = if p.node.is_some() { "True" } else { "False" };
    out.push_str(&aligned(
        &[
            vec!["Type".into(), "Status".into()],
            vec!["PodScheduled".into(), scheduled.into()],
            vec![
                "Ready".into(),
                if p.ready { "True" } else { "False" }.into(),
            ],
        ],
        "  ",
    ));
    field(
        &mut out,
        "Node-Selectors",
        &labels_text(&p.template.node_selector),
    );
    let tol: Vec<String> = p
        .template
        .tolerations
        .iter()
        .map(|t| {
            // kubectl describe's form: key[=value][:Effect] [op=Exists] [for Ns].
            let mut s = t.key.clone();
            if !t.value.is_empty() {
                s.push_str(&format!("={}", t.value));
            }
            if let Some(e) = t.effect {
                s.push_str(&format!(":{}", e.as_str()));
            }
            if t.operator == shepherd::TolerationOperator::Exists {
                s.push_str(" op=Exists");
            }
            if let Some(secs) = t.toleration_seconds {
                s.push_str(&format!(" for {secs}s"));
            }
            s
        })
        .collect();
    list_field(&mut out, "Tolerations", &tol);
    events_section(&mut out, c, &format!("pod/{key}"));
    // This project's explanation: every node's verdict and score, as of
    // the cycle that bound the pod when that is known, else as if it were
    // scheduled now.
    let decided = p
        .node
        .filter(|_| !p.by_node_name)
        .and_then(|_| decide.and_then(|d| d(key)));
    let (explained, as_of) = match decided {
        Some((tick, e)) => (
            Ok(e),
            format!("as of the scheduling cycle that bound it, tick {tick}"),
        ),
        None => (
            c.explain(key, profile),
            "as if it were scheduled now".to_string(),
        ),
    };
    match explained {
        Ok(e) => {
            out.push_str(&format!(
                "Explain ({}, {as_of}):\n  {}\n",
                e.profile, e.summary
            ));
            if let Some((plugin, by)) = &e.decided_by {
                out.push_str(&format!("  decided by {plugin}: {by} weighted points between the best node and the runner-up\n"));
            }
            let mut rows = vec![["Node", "Verdict", "Score"].map(String::from).to_vec()];
            let mut nodes: Vec<_> = e.nodes.iter().collect();
            nodes.sort_by_key(|v| (v.position.unwrap_or(u32::MAX), v.node.clone()));
            for v in nodes.iter().take(10) {
                let verdict = match v.plugin {
                    None => "feasible".to_string(),
                    Some(pl) => format!("{pl}: {}", v.reasons.join(", ")),
                };
                rows.push(vec![
                    v.node.clone(),
                    verdict,
                    v.total.map(|t| t.to_string()).unwrap_or_else(|| "-".into()),
                ]);
            }
            out.push_str(&aligned(&rows, "  "));
            if nodes.len() > 10 {
                out.push_str(&format!("  ... and {} more nodes\n", nodes.len() - 10));
            }
        }
        Err(err) => out.push_str(&format!("Explain:             {err}\n")),
    }
    Ok(out)
}

fn describe_deployment(c: &Cluster, key: &str, name: &str) -> Result<String, String> {
    let a = c
        .app(key)
        .ok()
        .filter(|a| a.kind == shepherd::WorkloadKind::Deployment)
        .ok_or_else(|| Kind::Deployments.not_found(name))?;
    let (ns, dname) = split(key);
    let mut out = String::new();
    field(&mut out, "Name", dname);
    field(&mut out, "Namespace", ns);
    field(&mut out, "CreationTimestamp", UNKNOWN);
    let sel = c
        .deployment_selector_of(key)
        .map(|s| s.to_string())
        .unwrap_or_default();
    field(&mut out, "Selector", &sel);
    field(
        &mut out,
        "Replicas",
        &format!(
            "{} desired | {} updated | {} total | {} available | {} unavailable",
            a.desired,
            a.updated,
            a.current,
            a.available,
            a.current.saturating_sub(a.available)
        ),
    );
    field(&mut out, "StrategyType", "RollingUpdate");
    field(
        &mut out,
        "RollingUpdateStrategy",
        &format!(
            "{} max unavailable, {} max surge",
            a.strategy.max_unavailable, a.strategy.max_surge
        ),
    );
    if let Ok(st) = c.deployment_status(key) {
        out.push_str("Conditions:\n");
        let mut rows = vec![
            ["Type", "Status", "Reason"].map(String::from).to_vec(),
            ["----", "------", "------"].map(String::from).to_vec(),
        ];
        for cond in &st.conditions {
            rows.push(vec![
                cond.type_.as_str().into(),
                cond.status.as_str().into(),
                cond.reason.into(),
            ]);
        }
        out.push_str(&aligned(&rows, "  "));
    }
    let rs = c.replica_sets(key).map_err(|e| e.to_string())?;
    let new = rs.iter().find(|r| r.revision == a.revision);
    let old: Vec<String> = rs
        .iter()
        .filter(|r| r.revision != a.revision && r.current > 0)
        .map(|r| {
            format!(
                "{} ({}/{} replicas created)",
                split(&r.name).1,
                r.current,
                r.desired
            )
        })
        .collect();
    field(
        &mut out,
        "OldReplicaSets",
        &if old.is_empty() {
            NONE.to_string()
        } else {
            old.join(", ")
        },
    );
    field(
        &mut out,
        "NewReplicaSet",
        &new.map(|r| {
            format!(
                "{} ({}/{} replicas created)",
                split(&r.name).1,
                r.current,
                r.desired
            )
        })
        .unwrap_or_else(|| NONE.into()),
    );
    events_section(&mut out, c, &format!("deployment/{key}"));
    Ok(out)
}
