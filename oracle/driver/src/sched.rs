//! One scheduling case, asked of both sides and compared.
//!
//! Shepherd's side: the case's objects (all but the incoming pod) go through
//! the manifest import (shepherd_k8s) into a cluster that reconciles to its
//! fixed point (bound pods are admitted by their node's kubelet where the
//! case puts them); then the incoming pod is created and the reconcile is
//! sliced so that it stops right after creating it, before the scheduler
//! runs (`Cluster::reconcile_slice` with a budget of one pod); the engine's
//! `Cluster::explain` then evaluates it against that snapshot.
//!
//! Kubernetes' side: the same objects, with what the API server's Priority
//! admission would have set (spec.priority, spec.preemptionPolicy), the
//! pods' status (Running and Ready, one start time), and each budget's
//! status as the disruption controller writes it for bare pods
//! (pkg/controller/disruption: expectedPods = the pods it selects,
//! desiredHealthy = minAvailable, disruptionsAllowed = healthy - desired).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use shepherd::{Cluster, Profile, Reconciling};

use crate::gen::{priority_of, Case};

/// A node's verdict, the same shape for both sides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeV {
    pub feasible: bool,
    /// The rejecting Filter's status code (None for a feasible node).
    pub code: Option<String>,
    pub plugin: Option<String>,
    pub reasons: Vec<String>,
    /// Weighted scores by plugin (feasible nodes).
    pub scores: BTreeMap<String, i64>,
    pub total: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct Preempt {
    /// The node chosen (Shepherd), or the nodes that tie for it (Kubernetes).
    pub best: BTreeSet<String>,
    /// Candidate node -> victims (pod names).
    pub candidates: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Clone, Debug, Default)]
pub struct Side {
    pub nodes: BTreeMap<String, NodeV>,
    pub skipped: BTreeSet<String>,
    pub best: BTreeSet<String>,
    pub num_to_find: u64,
    pub preemption: Option<Preempt>,
}

/// One difference, with the class it is counted under.
#[derive(Clone, Debug)]
pub struct Diff {
    pub class: String,
    pub text: String,
}

fn d(class: impl Into<String>, text: impl Into<String>) -> Diff {
    Diff {
        class: class.into(),
        text: text.into(),
    }
}

fn list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// The manifest Shepherd imports first: everything but the incoming pod.
pub fn cluster_manifest(c: &Case) -> String {
    let mut items = Vec::new();
    items.extend(c.priority_classes.iter().cloned());
    items.extend(c.nodes.iter().cloned());
    items.extend(c.pods.iter().cloned());
    items.extend(c.pdbs.iter().cloned());
    items.extend(c.services.iter().cloned());
    if let Some(cfg) = &c.config {
        items.push(cfg.clone());
    }
    list(items).to_string()
}

/// The whole case as one manifest, for a person to reproduce it with
/// `shepherd explain FILE --pod default/incoming` (which places the bound
/// pods first, as the driver does) and with a real cluster.
pub fn repro_manifest(c: &Case) -> String {
    let mut items = Vec::new();
    items.extend(c.priority_classes.iter().cloned());
    items.extend(c.nodes.iter().cloned());
    items.extend(c.pods.iter().cloned());
    items.extend(c.pdbs.iter().cloned());
    items.extend(c.services.iter().cloned());
    if let Some(cfg) = &c.config {
        items.push(cfg.clone());
    }
    items.push(c.incoming.clone());
    serde_json::to_string_pretty(&list(items)).unwrap_or_default()
}

/// What the API server's Priority admission sets on a pod.
fn admitted(pod: &Value) -> Value {
    let mut p = pod.clone();
    let class = p["spec"]["priorityClassName"].as_str().map(str::to_string);
    let (prio, policy) = priority_of(class.as_deref());
    p["spec"]["priority"] = json!(prio);
    p["spec"]["preemptionPolicy"] = json!(policy);
    let name = p["metadata"]["name"].as_str().unwrap_or("").to_string();
    p["metadata"]["uid"] = json!(format!("uid-{name}"));
    p["spec"]["schedulerName"] = json!("default-scheduler");
    p
}

fn labels_match(sel: &Value, labels: &Value) -> bool {
    sel["matchLabels"]
        .as_object()
        .map(|m| m.iter().all(|(k, v)| labels.get(k) == Some(v)))
        .unwrap_or(true)
}

/// The oracle's schedule request for a case.
pub fn oracle_request(c: &Case) -> Value {
    let pods: Vec<Value> = c
        .pods
        .iter()
        .map(|p| {
            let mut p = admitted(p);
            p["status"] = json!({
                "phase": "Running",
                "startTime": "2026-01-01T00:00:00Z",
                "conditions": [{"type": "Ready", "status": "True"}],
            });
            p
        })
        .collect();
    let pdbs: Vec<Value> = c
        .pdbs
        .iter()
        .map(|b| {
            let mut b = b.clone();
            let matching = c
                .pods
                .iter()
                .filter(|p| labels_match(&b["spec"]["selector"], &p["metadata"]["labels"]))
                .count() as i64;
            let min = b["spec"]["minAvailable"].as_i64().unwrap_or(0);
            b["status"] = json!({
                "observedGeneration": 1,
                "expectedPods": matching,
                "currentHealthy": matching,
                "desiredHealthy": min,
                "disruptionsAllowed": (matching - min).max(0),
            });
            b["metadata"]["generation"] = json!(1);
            b
        })
        .collect();
    let mut incoming = admitted(&c.incoming);
    incoming["status"] = json!({"phase": "Pending"});
    json!({
        "op": "schedule",
        "nodes": c.nodes,
        "pods": pods,
        "namespaces": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}],
        "pdbs": pdbs,
        "services": c.services,
        "config": c.config.as_ref().map(|v| v.to_string()).unwrap_or_default(),
        "pod": incoming,
    })
}

pub fn oracle_side(v: &Value) -> Result<Side, String> {
    let mut s = Side {
        num_to_find: v["numToFind"].as_u64().unwrap_or(0),
        ..Side::default()
    };
    for n in v["nodes"]
        .as_array()
        .ok_or("the oracle's answer has no nodes")?
    {
        let name = n["name"].as_str().unwrap_or("").to_string();
        let mut nv = NodeV {
            feasible: n["feasible"].as_bool().unwrap_or(false),
            code: n["code"].as_str().map(str::to_string),
            plugin: n["plugin"].as_str().map(str::to_string),
            reasons: n["reasons"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            total: n["total"].as_i64(),
            ..NodeV::default()
        };
        if let Some(m) = n["scores"].as_object() {
            for (k, x) in m {
                nv.scores.insert(k.clone(), x.as_i64().unwrap_or(0));
            }
        }
        s.nodes.insert(name, nv);
    }
    for x in v["skipped"].as_array().into_iter().flatten() {
        s.skipped.insert(x.as_str().unwrap_or("").to_string());
    }
    for x in v["best"].as_array().into_iter().flatten() {
        s.best.insert(x.as_str().unwrap_or("").to_string());
    }
    let p = &v["preemption"];
    if p.is_object() && p["eligible"].as_bool() == Some(true) {
        let cands = p["candidates"].as_array().cloned().unwrap_or_default();
        if !cands.is_empty() {
            let mut pre = Preempt::default();
            for c in cands {
                let vs = c["victims"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| x["name"].as_str().unwrap_or("").to_string())
                    .collect();
                pre.candidates
                    .insert(c["node"].as_str().unwrap_or("").to_string(), vs);
            }
            for x in p["best"].as_array().into_iter().flatten() {
                pre.best.insert(x.as_str().unwrap_or("").to_string());
            }
            s.preemption = Some(pre);
        }
    }
    Ok(s)
}

fn short(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).to_string()
}

/// Shepherd's side of a case; Err is a refusal (import or engine), which is
/// compared as a difference.
pub fn shepherd_side(c: &Case) -> Result<Side, Diff> {
    let (cluster, profile) = pending_incoming(c, &cluster_manifest(c))?;
    let key = shepherd::namespace::qualify("default", "incoming");
    let e = cluster
        .explain(&key, &profile)
        .map_err(|e| d("engine-refused", format!("explain failed: {e}")))?;
    shepherd_explained(e, &profile)
}

/// The case's cluster imported from `manifest` (the case's objects, and
/// any the caller adds) at its fixed point, with the incoming pod
/// `default/incoming` created and not yet scheduled; and the profile.
pub fn pending_incoming(c: &Case, manifest: &str) -> Result<(Cluster, Profile), Diff> {
    let imported = shepherd_k8s::import(manifest).map_err(|e| {
        d(
            "import-refused",
            format!("shepherd refused the cluster: {e}"),
        )
    })?;
    let profile: Profile = imported.scenario.profile_or_default();
    let mut cluster: Cluster = imported.scenario.to_cluster().map_err(|e| {
        d(
            "engine-refused",
            format!("the engine refused the cluster: {e}"),
        )
    })?;
    cluster.reconcile_to_fixed_point(&profile);
    // The bound pods turn Ready after their readiness delay (as `shepherd
    // explain` waits for it, cli/src/manifests.rs converge_until_ready): the
    // case's pods are Running and Ready, which budgets count.
    let delay = (imported.scenario.pods.iter())
        .map(|p| p.template.ready_after as u64)
        .max()
        .unwrap_or(0);
    if delay > 0 {
        cluster.set_now(cluster.now() + delay);
        cluster.reconcile_to_fixed_point(&profile);
    }
    if let Some(p) = cluster.pods().find(|p| !p.ready) {
        return Err(d(
            "setup",
            format!(
                "bound pod {} is not Ready after the import's reconcile",
                p.name()
            ),
        ));
    }
    // Every bound pod is where the case put it.
    let nodes: BTreeMap<u32, String> = cluster
        .nodes()
        .map(|n| (n.id.0, n.name().to_string()))
        .collect();
    let mut placed: BTreeMap<String, Option<String>> = BTreeMap::new();
    for p in cluster.pods() {
        placed.insert(
            short(&p.name()),
            p.node.and_then(|n| nodes.get(&n.0).cloned()),
        );
    }
    for p in &c.pods {
        let name = p["metadata"]["name"].as_str().unwrap_or("");
        let want = p["spec"]["nodeName"].as_str();
        let got = placed.get(name).cloned().flatten();
        if got.as_deref() != want {
            return Err(d(
                "bound-pod-not-admitted",
                format!("bound pod {name} (spec.nodeName {want:?}) is on {got:?} after the import's reconcile"),
            ));
        }
    }
    let one = list(vec![c.incoming.clone()]).to_string();
    let inc = shepherd_k8s::import(&one).map_err(|e| {
        d(
            "import-refused",
            format!("shepherd refused the incoming pod: {e}"),
        )
    })?;
    let spec = inc.scenario.pods.first().cloned().ok_or_else(|| {
        d(
            "import-refused",
            "the incoming pod was not imported as a Pod",
        )
    })?;
    cluster.create_bare_pod(spec).map_err(|e| {
        d(
            "engine-refused",
            format!("the engine refused the incoming pod: {e}"),
        )
    })?;
    // One slice with a budget of one pod: the pass creates the pod and stops
    // before its scheduler step.
    let mut state = Reconciling::default();
    cluster.reconcile_slice(&profile, &mut state, 1);
    Ok((cluster, profile))
}

fn shepherd_explained(e: shepherd::Explanation, profile: &Profile) -> Result<Side, Diff> {
    if e.bound_to.is_some() {
        return Err(d(
            "setup",
            "the incoming pod was bound before it was explained",
        ));
    }
    let mut s = Side::default();
    for v in &e.nodes {
        let mut nv = NodeV {
            feasible: v.feasible,
            code: (!v.feasible).then(|| v.code.as_str().to_string()),
            plugin: v.plugin.map(str::to_string),
            reasons: v.reasons.clone(),
            total: v.total,
            ..NodeV::default()
        };
        for sc in &v.scores {
            nv.scores.insert(sc.plugin.to_string(), sc.weighted);
        }
        if v.position == Some(1) {
            s.best.insert(v.node.clone());
        }
        s.nodes.insert(v.node.clone(), nv);
    }
    s.skipped = e.skipped.iter().map(|p| p.to_string()).collect();
    s.num_to_find = profile.feasible_nodes_to_find(e.nodes.len() as u32) as u64;
    if let Some(p) = &e.preemption {
        let mut pre = Preempt::default();
        pre.best.insert(p.node.clone());
        for cand in &p.candidates {
            pre.candidates.insert(
                cand.node.clone(),
                cand.victims.iter().map(|v| short(v)).collect(),
            );
        }
        s.preemption = Some(pre);
    }
    Ok(s)
}

pub fn compare(k: &Side, s: &Side) -> Vec<Diff> {
    let mut out = Vec::new();
    let any_feasible = |x: &Side| x.nodes.values().any(|v| v.feasible);
    if any_feasible(k) && any_feasible(s) && k.skipped != s.skipped {
        out.push(d(
            "status-codes",
            format!(
                "plugins skipped at PreScore: {:?} in Kubernetes, {:?} in Shepherd",
                k.skipped, s.skipped
            ),
        ));
    }
    let names: BTreeSet<&String> = k.nodes.keys().chain(s.nodes.keys()).collect();
    for n in names {
        let (Some(kv), Some(sv)) = (k.nodes.get(n), s.nodes.get(n)) else {
            out.push(d("node-set", format!("node {n}: present on one side only")));
            continue;
        };
        if kv.feasible != sv.feasible {
            out.push(d(
                format!(
                    "feasibility:{}",
                    kv.plugin.clone().or(sv.plugin.clone()).unwrap_or_default()
                ),
                format!(
                    "node {n}: Kubernetes {} ({:?} {:?}), Shepherd {} ({:?} {:?})",
                    if kv.feasible {
                        "feasible"
                    } else {
                        "infeasible"
                    },
                    kv.plugin,
                    kv.reasons,
                    if sv.feasible {
                        "feasible"
                    } else {
                        "infeasible"
                    },
                    sv.plugin,
                    sv.reasons
                ),
            ));
            continue;
        }
        if !kv.feasible {
            if kv.plugin != sv.plugin {
                out.push(d(
                    "filter-plugin",
                    format!("node {n}: rejected by {:?} in Kubernetes ({:?}), by {:?} in Shepherd ({:?})", kv.plugin, kv.reasons, sv.plugin, sv.reasons),
                ));
            } else if kv.reasons != sv.reasons {
                out.push(d(
                    format!("reasons:{}", kv.plugin.clone().unwrap_or_default()),
                    format!(
                        "node {n}: reasons {:?} in Kubernetes, {:?} in Shepherd",
                        kv.reasons, sv.reasons
                    ),
                ));
            }
            if kv.code != sv.code {
                out.push(d(
                    "status-codes",
                    format!(
                        "node {n}: code {:?} in Kubernetes, {:?} in Shepherd",
                        kv.code.clone().unwrap_or_default(),
                        sv.code.clone().unwrap_or_default()
                    ),
                ));
            }
            continue;
        }
        let plugins: BTreeSet<&String> = kv.scores.keys().chain(sv.scores.keys()).collect();
        for p in plugins {
            let kx = kv.scores.get(p).copied();
            let sx = sv.scores.get(p).copied();
            let skipped = k.skipped.contains(p.as_str());
            match (kx, sx) {
                (Some(a), Some(b)) if a != b => out.push(d(
                    format!("score:{p}"),
                    format!("node {n}: {p} weighted score {a} in Kubernetes, {b} in Shepherd"),
                )),
                (None, Some(b)) if skipped && b != 0 => out.push(d(
                    format!("score:{p}"),
                    format!("node {n}: {p} skipped by its PreScore in Kubernetes (adds nothing), {b} in Shepherd"),
                )),
                (None, Some(_)) if skipped => {
                        out.push(d(
                            "status-codes",
                            format!("node {n}: {p} skipped by its PreScore in Kubernetes, scored (0) in Shepherd's explain"),
                        ));
                    }
                (None, Some(b)) if b != 0 => out.push(d(
                    format!("score:{p}"),
                    format!("node {n}: {p} is not a score plugin of Kubernetes' profile, {b} in Shepherd"),
                )),
                (Some(a), None) if a != 0 => out.push(d(
                    format!("score:{p}"),
                    format!("node {n}: {p} weighted score {a} in Kubernetes, not scored by Shepherd"),
                )),
                _ => {}
            }
        }
        if kv.total != sv.total {
            out.push(d(
                "total",
                format!(
                    "node {n}: total {:?} in Kubernetes, {:?} in Shepherd",
                    kv.total, sv.total
                ),
            ));
        }
    }
    if k.best != s.best {
        out.push(d(
            "best",
            format!(
                "best nodes {:?} in Kubernetes, {:?} in Shepherd",
                k.best, s.best
            ),
        ));
    }
    if k.num_to_find != s.num_to_find {
        out.push(d(
            "sample-size",
            format!(
                "numFeasibleNodesToFind {} in Kubernetes, {} in Shepherd",
                k.num_to_find, s.num_to_find
            ),
        ));
    }
    let any_feasible = k.nodes.values().any(|v| v.feasible) || s.nodes.values().any(|v| v.feasible);
    if !any_feasible {
        match (&k.preemption, &s.preemption) {
            (None, None) => {}
            (Some(kp), None) => out.push(d(
                "preemption",
                format!(
                    "Kubernetes preempts on {:?} (candidates {:?}), Shepherd finds no preemption",
                    kp.best, kp.candidates
                ),
            )),
            (None, Some(sp)) => out.push(d(
                "preemption",
                format!(
                    "Shepherd preempts on {:?} (candidates {:?}), Kubernetes finds no candidate",
                    sp.best, sp.candidates
                ),
            )),
            (Some(kp), Some(sp)) => {
                if !sp.best.is_subset(&kp.best) {
                    out.push(d(
                        "preemption-node",
                        format!(
                            "Shepherd nominates {:?}, Kubernetes one of {:?}",
                            sp.best, kp.best
                        ),
                    ));
                }
                let kc: BTreeSet<&String> = kp.candidates.keys().collect();
                let sc: BTreeSet<&String> = sp.candidates.keys().collect();
                if kc != sc {
                    out.push(d(
                        "preemption-candidates",
                        format!("candidate nodes {kc:?} in Kubernetes, {sc:?} in Shepherd"),
                    ));
                }
                for (node, kv) in &kp.candidates {
                    if let Some(sv) = sp.candidates.get(node) {
                        if kv != sv {
                            out.push(d(
                                "preemption-victims",
                                format!(
                                    "victims on {node}: {kv:?} in Kubernetes, {sv:?} in Shepherd"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}
