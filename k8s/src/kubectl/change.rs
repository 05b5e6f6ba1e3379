//! The verbs that change the cluster, each as the engine's events (the
//! actions the page's forms and the CLI's scripts submit), with what
//! kubectl prints once the API server accepted it. Each is checked here
//! against the cluster as it is, so kubectl's own refusals (a missing
//! object, `--overwrite` needed) come in its words; the engine checks the
//! rest when the events are submitted.

use shepherd::namespace::split;
use shepherd::simulator::Event;
use shepherd::{Cluster, DeploymentSpec, Resources, RolloutStatus, WorkloadKind};

use super::grammar::{Command, Kind, Rollout, Scope, TaintChange};
use super::Reply;

fn changed(events: Vec<Event>, message: String) -> Result<Reply, String> {
    Ok(Reply::Change {
        events,
        manifests: None,
        message,
        error: None,
    })
}

/// The key of a Deployment named in a command, or kubectl's NotFound.
fn deployment(c: &Cluster, scope: &Scope, name: &str) -> Result<String, String> {
    let key = super::key(scope.namespace(), name);
    match c.app(&key) {
        Ok(a) if a.kind == WorkloadKind::Deployment => Ok(key),
        _ => Err(Kind::Deployments.not_found(name)),
    }
}

fn node_exists(c: &Cluster, node: &str) -> Result<(), String> {
    c.node(node)
        .map(|_| ())
        .map_err(|_| Kind::Nodes.not_found(node))
}

/// The engine's stand-in for the image: a template's `version`. A restart
/// changes it as kubectl's `kubectl.kubernetes.io/restartedAt` annotation
/// changes the template: a new ReplicaSet rolls out.
const RESTARTED_AT: &str = "#restartedAt=";

pub(super) fn rollout_status(c: &Cluster, name: &str, scope: &Scope) -> Result<Reply, String> {
    let key = deployment(c, scope, name)?;
    match c.rollout_status(&key).map_err(|e| format!("error: {e}"))? {
        RolloutStatus::DeadlineExceeded(m) => Err(format!("error: {m}")),
        s => Ok(Reply::text(format!("{}\n", s.message()))),
    }
}

pub(super) fn change(c: &Cluster, cmd: &Command, stdin: Option<&str>) -> Result<Reply, String> {
    match cmd {
        Command::Scale {
            name,
            scope,
            replicas,
            ..
        } => {
            let key = deployment(c, scope, name)?;
            changed(
                vec![Event::Scale {
                    app: key,
                    replicas: *replicas,
                }],
                format!("deployment.apps/{name} scaled"),
            )
        }
        Command::Cordon { node } => {
            let n = c.node(node).map_err(|_| Kind::Nodes.not_found(node))?;
            if n.cordoned {
                return changed(Vec::new(), format!("node/{node} already cordoned"));
            }
            changed(
                vec![Event::Cordon(node.clone())],
                format!("node/{node} cordoned"),
            )
        }
        Command::Uncordon { node } => {
            let n = c.node(node).map_err(|_| Kind::Nodes.not_found(node))?;
            if !n.cordoned {
                return changed(Vec::new(), format!("node/{node} already uncordoned"));
            }
            changed(
                vec![Event::Uncordon(node.clone())],
                format!("node/{node} uncordoned"),
            )
        }
        Command::Drain {
            node,
            ignore_daemonsets,
            force,
            disable_eviction,
            ..
        } => drain(c, node, *ignore_daemonsets, *force, *disable_eviction),
        Command::Taint {
            node,
            changes,
            overwrite,
        } => taint(c, node, changes, *overwrite),
        Command::Label {
            kind,
            name,
            changes,
            overwrite,
            ..
        } => {
            if *kind != Kind::Nodes {
                return Err(format!(
                    "error: labelling {} is not simulated (their labels come from their templates); expected kubectl label nodes NAME key=value, or apply -f - with the new template",
                    kind.plural()
                ));
            }
            let n = c.node(name).map_err(|_| Kind::Nodes.not_found(name))?;
            let mut spec = n.spec.clone();
            let mut removed_only = true;
            let mut notes = Vec::new();
            for (k, v) in changes {
                match v {
                    Some(v) => {
                        shepherd::model::validate_label_key(k, "label key")
                            .map_err(|e| format!("error: {e}"))?;
                        shepherd::model::validate_label_value(v, "label value")
                            .map_err(|e| format!("error: {e}"))?;
                        if let Some(old) = spec.labels.get(k) {
                            if old != v && !overwrite {
                                return Err(format!("error: '{k}' already has a value ({old}), and --overwrite is false"));
                            }
                        }
                        spec.labels.insert(k.clone(), v.clone());
                        removed_only = false;
                    }
                    None => {
                        if spec.labels.remove(k).is_none() {
                            notes.push(format!("label {k:?} not found."));
                        }
                    }
                }
            }
            if spec.labels == n.spec.labels {
                notes.push(format!("node/{name} not labeled"));
                return changed(Vec::new(), notes.join("\n"));
            }
            notes.push(format!(
                "node/{name} {}",
                if removed_only { "unlabeled" } else { "labeled" }
            ));
            changed(vec![Event::ApplyNode(spec)], notes.join("\n"))
        }
        Command::Delete { kind, names, scope } => {
            let mut events = Vec::new();
            let mut said = Vec::new();
            for name in names {
                let key = super::key(scope.namespace(), name);
                let gone = format!("{} {name:?} deleted", kind.singular());
                let e = match kind {
                    Kind::Pods => {
                        let p = c.pod_by_name(&key).map_err(|_| Kind::Pods.not_found(name))?;
                        if p.kind != WorkloadKind::Pod {
                            return Err(format!(
                                "error: deleting pod {name:?}, which its {} controls, is not simulated (the engine replaces such pods only after an eviction or a node failure); expected kubectl drain NODE, or delete of its {}",
                                if p.kind == WorkloadKind::Deployment { "ReplicaSet" } else { "DaemonSet" },
                                if p.kind == WorkloadKind::Deployment { "deployment" } else { "daemonset" },
                            ));
                        }
                        Event::DeletePod(key)
                    }
                    Kind::Deployments => Event::DeleteApp(deployment(c, scope, name)?),
                    Kind::DaemonSets => {
                        c.daemonset_spec(&key).map_err(|_| Kind::DaemonSets.not_found(name))?;
                        Event::DeleteDaemonSet(key)
                    }
                    Kind::PodDisruptionBudgets => {
                        c.pdb_spec(&key).map_err(|_| Kind::PodDisruptionBudgets.not_found(name))?;
                        Event::DeletePdb(key)
                    }
                    Kind::Services => {
                        if !c.service_specs().any(|s| s.name == key) {
                            return Err(Kind::Services.not_found(name));
                        }
                        Event::DeleteService(key)
                    }
                    Kind::Nodes => {
                        node_exists(c, name)?;
                        Event::RemoveNode(name.clone())
                    }
                    Kind::PriorityClasses => {
                        if !c.priority_classes().iter().any(|p| p.name == *name) {
                            return Err(Kind::PriorityClasses.not_found(name));
                        }
                        Event::DeletePriorityClass(name.clone())
                    }
                    other => {
                        return Err(format!(
                            "error: deleting {} is not simulated; expected pods (bare), deployments, daemonsets, pdb, services, nodes or priorityclasses",
                            other.plural()
                        ))
                    }
                };
                events.push(e);
                said.push(gone);
            }
            changed(events, said.join("\n"))
        }
        Command::Rollout { what, name, scope } => {
            let key = deployment(c, scope, name)?;
            match what {
                Rollout::Undo => {
                    if !c.has_previous_revision(&key) {
                        return Err(format!(
                            "error: no rollout history found for deployment {name:?}"
                        ));
                    }
                    changed(
                        vec![Event::Rollback(key)],
                        format!("deployment.apps/{name} rolled back"),
                    )
                }
                Rollout::Restart => {
                    let mut t = c.template(&key).map_err(|e| format!("error: {e}"))?;
                    let base = t
                        .version
                        .split(RESTARTED_AT)
                        .next()
                        .unwrap_or("")
                        .to_string();
                    t.version = format!("{base}{RESTARTED_AT}{}", c.now());
                    changed(
                        vec![Event::Roll {
                            app: key,
                            template: t,
                        }],
                        format!("deployment.apps/{name} restarted"),
                    )
                }
            }
        }
        Command::SetImage {
            name,
            scope,
            container,
            image,
        } => {
            let key = deployment(c, scope, name)?;
            if container != "app" && container != "*" {
                return Err(format!(
                    "error: unable to find container named {container:?}; expected \"app\" (the one container of the engine's pods) or *"
                ));
            }
            let mut t = c.template(&key).map_err(|e| format!("error: {e}"))?;
            if t.version == *image {
                return changed(Vec::new(), String::new());
            }
            t.version = image.clone();
            changed(
                vec![Event::Roll {
                    app: key,
                    template: t,
                }],
                format!("deployment.apps/{name} image updated"),
            )
        }
        Command::CreateDeployment {
            name,
            scope,
            image,
            replicas,
        } => {
            let key = super::key(scope.namespace(), name);
            if c.app(&key).is_ok() {
                return Err(format!(
                    "error: failed to create deployment: deployments.apps {name:?} already exists"
                ));
            }
            // kubectl create deployment: label app=NAME, one container, no requests.
            let mut spec = DeploymentSpec::new(&key, *replicas, Resources::new(0, 0));
            spec.template.version = image.clone();
            changed(
                vec![Event::Deploy(spec)],
                format!("deployment.apps/{name} created"),
            )
        }
        Command::Apply { .. } => {
            let text = stdin.filter(|s| !s.trim().is_empty()).ok_or(
                "error: no objects passed to apply; expected manifests after apply -f - (pasted, or on standard input)",
            )?;
            let im = crate::import(text).map_err(|e| format!("error: {e}"))?;
            let sc = &im.scenario;
            let mut said = Vec::new();
            let verb = |exists: bool| if exists { "configured" } else { "created" };
            for n in &sc.nodes {
                said.push(format!(
                    "node/{} {}",
                    n.spec.name,
                    verb(c.node(&n.spec.name).is_ok())
                ));
            }
            for d in &sc.deployments {
                said.push(format!(
                    "deployment.apps/{} {}",
                    split(&d.name).1,
                    verb(c.app(&d.name).is_ok())
                ));
            }
            for d in &sc.daemonsets {
                said.push(format!(
                    "daemonset.apps/{} {}",
                    split(&d.name).1,
                    verb(c.daemonset_spec(&d.name).is_ok())
                ));
            }
            for p in &sc.pods {
                said.push(format!(
                    "pod/{} {}",
                    split(&p.name).1,
                    verb(c.pod_by_name(&p.name).is_ok())
                ));
            }
            for p in &sc.pdbs {
                said.push(format!(
                    "poddisruptionbudget.policy/{} {}",
                    split(&p.name).1,
                    verb(c.pdb_spec(&p.name).is_ok())
                ));
            }
            for s in &sc.services {
                said.push(format!(
                    "service/{} {}",
                    split(&s.name).1,
                    verb(c.service_specs().any(|x| x.name == s.name))
                ));
            }
            for pc in &sc.priority_classes {
                said.push(format!(
                    "priorityclass.scheduling.k8s.io/{} {}",
                    pc.name,
                    verb(c.priority_classes().iter().any(|x| x.name == pc.name))
                ));
            }
            for w in &im.warnings {
                said.push(format!("Warning: {w}"));
            }
            Ok(Reply::Change {
                events: Vec::new(),
                manifests: Some(text.to_string()),
                message: said.join("\n"),
                error: None,
            })
        }
        Command::Get { .. }
        | Command::Describe { .. }
        | Command::TopNodes { .. }
        | Command::RolloutStatus { .. } => {
            unreachable!("reads are answered by run")
        }
    }
}

/// `kubectl drain` (k8s.io/kubectl/pkg/drain): cordon, then list the pods
/// to evict; DaemonSet pods need `--ignore-daemonsets`, pods without a
/// controller need `--force`, or kubectl refuses after cordoning. The
/// evictions go through the eviction API over the next ticks (the engine's
/// Drain), retried every 5 s while a PodDisruptionBudget refuses, as
/// kubectl retries; `describe node` shows what kubectl printed last.
fn drain(
    c: &Cluster,
    node: &str,
    ignore_ds: bool,
    force: bool,
    disable_eviction: bool,
) -> Result<Reply, String> {
    let n = c.node(node).map_err(|_| Kind::Nodes.not_found(node))?;
    if disable_eviction {
        return Err(format!(
            "error: --disable-eviction deletes the pods of node {node:?} without the eviction API, so no PodDisruptionBudget is checked; refused here as unsafe; expected kubectl drain {node} --ignore-daemonsets (evictions that budgets may refuse)"
        ));
    }
    let mut daemons = Vec::new();
    let mut bare = Vec::new();
    let mut evict = Vec::new();
    let mut pods: Vec<_> = c.pods_on(n.id).map(|p| (p.name(), p.kind)).collect();
    pods.sort_by(|a, b| a.0.cmp(&b.0));
    for (key, kind) in pods {
        let full = shepherd::namespace::full_name(&key);
        match kind {
            WorkloadKind::DaemonSet => daemons.push(full),
            WorkloadKind::Pod => {
                bare.push(full.clone());
                evict.push(full);
            }
            WorkloadKind::Deployment => evict.push(full),
        }
    }
    let mut out = Vec::new();
    let mut events = Vec::new();
    if n.cordoned {
        out.push(format!("node/{node} already cordoned"));
    } else {
        out.push(format!("node/{node} cordoned"));
    }
    let mut errs = Vec::new();
    if !daemons.is_empty() && !ignore_ds {
        errs.push(format!(
            "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): {}",
            daemons.join(", ")
        ));
    }
    if !bare.is_empty() && !force {
        errs.push(format!(
            "cannot delete Pods that declare no controller (use --force to override): {}",
            bare.join(", ")
        ));
    }
    if !errs.is_empty() {
        if !n.cordoned {
            events.push(Event::Cordon(node.to_string()));
        }
        let all = errs.join(", ");
        return Ok(Reply::Change {
            events,
            manifests: None,
            message: out.join("\n"),
            error: Some(format!(
                "error: unable to drain node {node:?} due to error: {all}, continuing command...\nThere are pending nodes to be drained:\n {node}\n{}",
                errs.join("\n")
            )),
        });
    }
    let mut warn = Vec::new();
    if !daemons.is_empty() {
        warn.push(format!(
            "ignoring DaemonSet-managed Pods: {}",
            daemons.join(", ")
        ));
    }
    if !bare.is_empty() {
        warn.push(format!(
            "deleting Pods that declare no controller: {}",
            bare.join(", ")
        ));
    }
    if !warn.is_empty() {
        out.push(format!("Warning: {}", warn.join("; ")));
    }
    for p in &evict {
        out.push(format!("evicting pod {p}"));
    }
    if evict.is_empty() {
        out.push(format!("node/{node} drained"));
    }
    events.push(Event::Drain(node.to_string()));
    changed(events, out.join("\n"))
}

fn taint(
    c: &Cluster,
    node: &str,
    changes: &[TaintChange],
    overwrite: bool,
) -> Result<Reply, String> {
    let n = c.node(node).map_err(|_| Kind::Nodes.not_found(node))?;
    let mut taints = n.spec.taints.clone();
    let mut events = Vec::new();
    let (mut added, mut removed) = (false, false);
    for ch in changes {
        match ch {
            TaintChange::Add(t) => {
                if let Some(i) = taints
                    .iter()
                    .position(|x| x.key == t.key && x.effect == t.effect)
                {
                    if !overwrite {
                        return Err(format!(
                            "error: node {node} already has {} taint(s) with same effect(s) and --overwrite is false",
                            t.key
                        ));
                    }
                    taints.remove(i);
                    events.push(Event::UntaintNode {
                        node: node.into(),
                        key: t.key.clone(),
                        effect: Some(t.effect),
                    });
                }
                taints.push(t.clone());
                events.push(Event::TaintNode {
                    node: node.into(),
                    taint: t.clone(),
                });
                added = true;
            }
            TaintChange::Remove { key, effect } => {
                let before = taints.len();
                taints.retain(|x| !(x.key == *key && effect.is_none_or(|e| e == x.effect)));
                if taints.len() == before {
                    let what = match effect {
                        Some(e) => format!("{key}:{}", e.as_str()),
                        None => key.clone(),
                    };
                    return Err(format!("error: taint {what:?} not found"));
                }
                events.push(Event::UntaintNode {
                    node: node.into(),
                    key: key.clone(),
                    effect: *effect,
                });
                removed = true;
            }
        }
    }
    let verb = match (added, removed) {
        (true, true) => "modified",
        (true, false) => "tainted",
        _ => "untainted",
    };
    changed(events, format!("node/{node} {verb}"))
}
