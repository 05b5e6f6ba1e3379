//! Cluster Autoscaler's template-node check, asked of both sides.
//!
//! A case is a scheduling case of [`gen`] (nodes, bound pods, budgets,
//! Services, a profile, the incoming pod, which here is the Pending pod),
//! a node group's template node drawn from the same vocabulary (its zone,
//! labels, taints, capacity, pod slots, scalars; named as CA names it, with
//! the label `shepherd.dev/pool: template`), and sometimes DaemonSets whose
//! nodeSelector picks that label, so that only a new node would run their
//! pods (their labels and host ports are the generator's).
//!
//! Shepherd's side: the cluster imported with the DaemonSets, the incoming
//! pod created and not scheduled, and the autoscaler's check
//! (`shepherd::autoscaler::snapshot::check_templates`) for one group of
//! that template: the verdict of every filter on the template node.
//!
//! Kubernetes' side: the oracle's `schedule` over the case's nodes and pods
//! with the template node added, holding what CA's template NodeInfo holds
//! (cloudprovider/kwok: `BuildKubeProxy`, a kube-proxy pod of 100m cpu;
//! simulator: the DaemonSet pods that would run there, those Shepherd's
//! template node admits). Its verdict on the template node (feasible, the
//! rejecting plugin, its reasons and code) is compared with Shepherd's.

use serde_json::{json, Map, Value};
use shepherd::autoscaler::estimate::template_node;
use shepherd::autoscaler::snapshot::{check_templates, template_node_name};
use shepherd::autoscaler::NodeGroup;
use shepherd::simulator::Prng;

use crate::gen::{self, Avoid, Case, HOSTNAME};
use crate::sched::{self, Diff};

/// The group's name; the template node is `template-node-for-g`.
pub const GROUP: &str = "g";
/// The label only the template node carries; the DaemonSets select it.
pub const POOL_LABEL: &str = "shepherd.dev/pool";
const APPS: [&str; 6] = ["web", "api", "cache", "worker", "db", "queue"];

/// One autoscaling case.
#[derive(Clone, Debug)]
pub struct AutoscaleCase {
    pub case: Case,
    /// The template node (v1.Node), named as CA names it.
    pub template: Value,
    /// apps/v1 DaemonSets.
    pub daemonsets: Vec<Value>,
}

/// A case from `seed`: the scheduling case of that seed, a template node
/// from another seed's first node, and zero to two DaemonSets.
pub fn generate(seed: u64, avoid: &Avoid) -> AutoscaleCase {
    let case = gen::generate(seed, avoid);
    let mut rng = Prng::new(seed ^ 0x6361_5f74_706c);
    let other = gen::generate(seed ^ 0x5445_4d50_4c41_5445, avoid);
    let name = template_node_name(GROUP);
    let mut t = other.nodes[0].clone();
    t["metadata"]["name"] = json!(name);
    if let Some(l) = t["metadata"]["labels"].as_object_mut() {
        if l.contains_key(HOSTNAME) {
            l.insert(HOSTNAME.into(), json!(name));
        }
        l.insert(POOL_LABEL.into(), json!("template"));
    } else {
        t["metadata"]["labels"] = json!({ POOL_LABEL: "template" });
    }
    // A template node is not cordoned (and carries no taint for it).
    if let Some(spec) = t["spec"].as_object_mut() {
        spec.remove("unschedulable");
        if let Some(ts) = spec.get_mut("taints").and_then(|x| x.as_array_mut()) {
            ts.retain(|x| x["key"] != "node.kubernetes.io/unschedulable");
            if ts.is_empty() {
                spec.remove("taints");
            }
        }
    }
    let mut daemonsets = Vec::new();
    let n = if rng.chance(50) { rng.range(1, 2) } else { 0 };
    let mut taken = Vec::new();
    for i in 0..n {
        let app = *rng.pick(&APPS);
        let mut spec = Map::new();
        let (cpu_m, mem_b) = (rng.range(1, 8) * 50, rng.range(1, 8) * (64 << 20));
        gen::containers(&mut rng, cpu_m, mem_b, &mut spec);
        if rng.chance(40) {
            gen::host_ports(&mut rng, &mut spec, &mut taken);
        }
        if rng.chance(30) {
            spec.insert("tolerations".into(), json!([{"operator": "Exists"}]));
        }
        spec.insert("nodeSelector".into(), json!({ POOL_LABEL: "template" }));
        let mut labels = json!({"app": app, "ds": format!("ds-{i}")});
        if rng.chance(40) {
            labels["tier"] = json!(*rng.pick(&["frontend", "backend"]));
        }
        daemonsets.push(json!({
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": format!("ds-{i}"), "namespace": "default"},
            "spec": {
                "selector": {"matchLabels": {"ds": format!("ds-{i}")}},
                "template": {"metadata": {"labels": labels}, "spec": Value::Object(spec)},
            },
        }));
    }
    AutoscaleCase {
        case,
        template: t,
        daemonsets,
    }
}

/// The verdict on the template node, the same shape for both sides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    pub fits: bool,
    pub plugin: Option<String>,
    pub reasons: Vec<String>,
    pub code: Option<String>,
}

/// Shepherd's side: its verdict, and the indices of the DaemonSets whose
/// pods its template node runs.
pub fn shepherd_side(a: &AutoscaleCase) -> Result<(Verdict, Vec<usize>), Diff> {
    let c = &a.case;
    let mut manifest: Value = serde_json::from_str(&sched::cluster_manifest(c))
        .map_err(|e| diff("setup", format!("manifest: {e}")))?;
    if let Some(items) = manifest["items"].as_array_mut() {
        items.extend(a.daemonsets.iter().cloned());
    }
    let (cluster, profile) = sched::pending_incoming(c, &manifest.to_string())?;
    let node = shepherd_k8s::import(
        &json!({"apiVersion": "v1", "kind": "List", "items": [a.template]}).to_string(),
    )
    .map_err(|e| {
        diff(
            "import-refused",
            format!("shepherd refused the template node: {e}"),
        )
    })?
    .scenario
    .nodes
    .into_iter()
    .next()
    .ok_or_else(|| {
        diff(
            "import-refused",
            "the template node was not imported".into(),
        )
    })?;
    let group = NodeGroup::new(GROUP, node.spec, 0, 10);
    let ds: Vec<&shepherd::DaemonSetSpec> = cluster.daemonset_specs().collect();
    let tn = template_node(&group.template, &ds);
    let on = tn.daemonsets.clone();
    let key = shepherd::namespace::qualify("default", "incoming");
    let v = check_templates(&cluster, &[group], &[tn], &[key.as_str()], &profile);
    let r = v
        .first()
        .and_then(|row| row.first())
        .ok_or_else(|| diff("engine-refused", "no verdict".into()))?;
    Ok((
        match r {
            None => Verdict {
                fits: true,
                ..Verdict::default()
            },
            Some(r) => Verdict {
                fits: false,
                plugin: Some(r.plugin.to_string()),
                reasons: r.reasons.clone(),
                code: None,
            },
        },
        on,
    ))
}

fn diff(class: &str, text: String) -> Diff {
    Diff {
        class: class.into(),
        text,
    }
}

/// The oracle's request: the case's, with the template node and the pods
/// CA's template NodeInfo holds (kube-proxy, and the DaemonSets' pods of
/// `on`) bound to it.
pub fn oracle_request(a: &AutoscaleCase, on: &[usize]) -> Value {
    let mut r = sched::oracle_request(&a.case);
    let name = template_node_name(GROUP);
    if let Some(nodes) = r["nodes"].as_array_mut() {
        nodes.push(a.template.clone());
    }
    let mut extra = vec![json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": format!("kube-proxy-{name}"), "namespace": "kube-system",
                     "uid": "uid-kube-proxy"},
        "spec": {"nodeName": name, "priority": 0, "schedulerName": "default-scheduler",
                 "containers": [{"name": "kube-proxy", "image": "registry.k8s.io/kube-proxy",
                                 "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                   "conditions": [{"type": "Ready", "status": "True"}]},
    })];
    for &i in on {
        let Some(d) = a.daemonsets.get(i) else {
            continue;
        };
        let ds = d["metadata"]["name"].as_str().unwrap_or("ds");
        let mut spec = d["spec"]["template"]["spec"].clone();
        spec["nodeName"] = json!(name);
        spec["priority"] = json!(0);
        spec["schedulerName"] = json!("default-scheduler");
        extra.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": format!("{ds}-template"), "namespace": "default",
                         "uid": format!("uid-{ds}-template"),
                         "labels": d["spec"]["template"]["metadata"]["labels"].clone()},
            "spec": spec,
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                       "conditions": [{"type": "Ready", "status": "True"}]},
        }));
    }
    if let Some(pods) = r["pods"].as_array_mut() {
        pods.extend(extra);
    }
    if let Some(ns) = r["namespaces"].as_array_mut() {
        ns.push(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}}),
        );
    }
    r
}

/// Kubernetes' verdict on the template node from the oracle's answer.
pub fn oracle_side(v: &Value) -> Result<Verdict, String> {
    let name = template_node_name(GROUP);
    let n = v["nodes"]
        .as_array()
        .ok_or("the oracle's answer has no nodes")?
        .iter()
        .find(|n| n["name"] == name.as_str())
        .ok_or("the oracle's answer has no verdict on the template node")?;
    let fits = n["feasible"].as_bool().unwrap_or(false);
    Ok(Verdict {
        fits,
        plugin: if fits {
            None
        } else {
            n["plugin"].as_str().map(str::to_string)
        },
        reasons: if fits {
            Vec::new()
        } else {
            n["reasons"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        },
        code: if fits {
            None
        } else {
            n["code"].as_str().map(str::to_string)
        },
    })
}

/// The differences between the two verdicts (Shepherd's autoscaler keeps
/// no status code: codes are not compared).
pub fn compare(k: &Verdict, s: &Verdict) -> Vec<Diff> {
    let mut out = Vec::new();
    if k.fits != s.fits {
        out.push(diff(
            &format!(
                "template-fit:{}",
                k.plugin.clone().or(s.plugin.clone()).unwrap_or_default()
            ),
            format!(
                "template node: Kubernetes {} ({:?} {:?}), Shepherd's autoscaler {} ({:?} {:?})",
                if k.fits { "fits" } else { "does not fit" },
                k.plugin,
                k.reasons,
                if s.fits { "fits" } else { "does not fit" },
                s.plugin,
                s.reasons
            ),
        ));
    } else if !k.fits {
        if k.plugin != s.plugin {
            out.push(diff(
                "template-plugin",
                format!(
                    "template node: rejected by {:?} in Kubernetes ({:?}), by {:?} in Shepherd ({:?})",
                    k.plugin, k.reasons, s.plugin, s.reasons
                ),
            ));
        } else if k.reasons != s.reasons {
            out.push(diff(
                &format!("template-reasons:{}", k.plugin.clone().unwrap_or_default()),
                format!(
                    "template node: reasons {:?} in Kubernetes, {:?} in Shepherd",
                    k.reasons, s.reasons
                ),
            ));
        }
    }
    out
}

/// The whole case as one manifest (the template node and the DaemonSets
/// after the scheduling case's objects), for a person to look at.
pub fn repro_manifest(a: &AutoscaleCase) -> String {
    let mut v: Value = serde_json::from_str(&sched::repro_manifest(&a.case)).unwrap_or(json!({}));
    if let Some(items) = v["items"].as_array_mut() {
        items.push(a.template.clone());
        items.extend(a.daemonsets.iter().cloned());
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}
