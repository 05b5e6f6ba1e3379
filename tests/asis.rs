//! A running cluster imported as it is (issue 45 item 1): every bound pod
//! of every controller stays on its node under its own name, a
//! Deployment's ReplicaSets are its revisions (a rollout continues from
//! them), Pending pods go through the scheduler, terminating and finished
//! pods take no room, and overcommitted nodes are reported, never emptied.
//!
//! The dumps are kubectl-shaped: `tests/manifests/mid-sized-cluster.yaml`
//! (written by `scripts/example-cluster.py`) and small ones written here.

use std::collections::BTreeMap;

use shepherd::{Cluster, PodPhase};
use shepherd_k8s::{import, Imported, Scenario};

fn corpus(name: &str) -> String {
    let p = format!("{}/../tests/manifests/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Every pod of a kubectl List: (key, node, phase, terminating), keys
/// `NAMESPACE/NAME` as the engine writes them (`NAME` in `default`).
fn dump_pods(text: &str) -> Vec<(String, Option<String>, String, bool)> {
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).expect("the dump reads");
    let s = |v: &serde_yaml_ng::Value, path: &[&str]| -> Option<String> {
        let mut v = v;
        for k in path {
            v = v.get(k)?;
        }
        v.as_str().map(str::to_string)
    };
    let items = v["items"].as_sequence().expect("a List");
    items
        .iter()
        .filter(|i| s(i, &["kind"]).as_deref() == Some("Pod"))
        .map(|i| {
            let ns = s(i, &["metadata", "namespace"]).unwrap_or_default();
            let name = s(i, &["metadata", "name"]).unwrap();
            let key = if ns.is_empty() || ns == "default" {
                name
            } else {
                format!("{ns}/{name}")
            };
            (
                key,
                s(i, &["spec", "nodeName"]),
                s(i, &["status", "phase"]).unwrap_or_default(),
                i["metadata"].get("deletionTimestamp").is_some(),
            )
        })
        .collect()
}

fn converge(sc: &Scenario) -> Cluster {
    let mut c = sc.to_cluster().expect("the scenario enters a cluster");
    assert!(
        c.reconcile_to_fixed_point(sc.profile_or_default())
            .converged
    );
    c
}

/// pod key -> node, for every bound pod.
fn bindings(c: &Cluster) -> BTreeMap<String, String> {
    c.pods()
        .filter_map(|p| {
            let n = c.node_by_id(p.node?)?;
            Some((p.name(), n.name().to_string()))
        })
        .collect()
}

fn has_warning(im: &Imported, path: &str, words: &str) -> bool {
    im.warnings
        .iter()
        .any(|w| w.path == path && w.message.contains(words))
}

/// The cluster as imported, before any controller has run: every pod of
/// the dump is there, on its node, under its name.
#[test]
fn every_bound_pod_of_the_mid_sized_dump_keeps_its_node_and_name() {
    let text = corpus("mid-sized-cluster.yaml");
    let im = import(&text).unwrap();
    let want: BTreeMap<String, String> = dump_pods(&text)
        .into_iter()
        .map(|(k, n, _, _)| (k, n.expect("every pod of the dump is bound")))
        .collect();
    assert_eq!(want.len(), 54);
    assert_eq!(im.summary.running, 54);
    let c = im.scenario.to_cluster().unwrap();
    assert_eq!(bindings(&c), want);
    // Each is found by the name kubectl printed.
    for (name, node) in &want {
        let p = c
            .pod_by_name(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.node_by_id(p.node.unwrap()).unwrap().name(), node);
        assert_eq!(p.phase, PodPhase::Running);
        assert!(p.ready, "{name} runs Ready");
    }
    // Nothing was created: the controllers' pods run already.
    assert!(
        !c.rendered_events()
            .iter()
            .any(|e| e.reason == "SuccessfulCreate" || e.reason == "ScalingReplicaSet"),
        "{:?}",
        c.rendered_events()
    );
    // After convergence every pod outside the rollout is where it was.
    let c = converge(&im.scenario);
    let now = bindings(&c);
    for (name, node) in &want {
        if name.starts_with("shop/checkout-dvcwnlf2sn-") {
            assert_eq!(
                now.get(name),
                None,
                "{name}: of the old ReplicaSet, deleted"
            );
        } else {
            assert_eq!(now.get(name), Some(node), "{name}");
        }
    }
    assert_eq!(now.len(), want.len() - 2 + 1);
}

/// shop/checkout is mid-rollout in the dump: its old ReplicaSet
/// (revision 3, 1.8.2) runs 2 pods, its new one (revision 4, 1.9.0) 3,
/// with replicas 4, maxSurge 1, maxUnavailable 1. Kubernetes'
/// rolloutRolling from there: the new ReplicaSet may not grow (5 pods =
/// replicas + maxSurge); the old one scales down by allPods - minAvailable
/// - newUnavailable = 5 - 3 - 0 = 2, to 0; then the new one grows to 4.
#[test]
fn the_mid_rollout_deployment_continues_from_its_two_replica_sets() {
    let im = import(&corpus("mid-sized-cluster.yaml")).unwrap();
    let c = im.scenario.to_cluster().unwrap();
    let sets: Vec<(String, u32)> = c
        .replica_sets("shop/checkout")
        .unwrap()
        .into_iter()
        .map(|r| (r.name, r.current))
        .collect();
    assert_eq!(
        sets,
        [
            ("shop/checkout-gsdj2zwwnp".to_string(), 3),
            ("shop/checkout-dvcwnlf2sn".to_string(), 2)
        ]
    );
    let status = c.app("shop/checkout").unwrap();
    assert!(status.rolling);
    let c = converge(&im.scenario);
    let log: Vec<String> = c
        .rendered_events()
        .iter()
        .filter(|e| e.object.contains("checkout"))
        .map(|e| format!("{} {}", e.reason, e.message))
        .collect();
    assert_eq!(
        log[0],
        "ScalingReplicaSet Scaled down replica set shop/checkout-dvcwnlf2sn from 2 to 0"
    );
    let new: Vec<String> = c
        .pods()
        .filter(|p| p.app == "shop/checkout")
        .map(|p| p.name())
        .collect();
    assert_eq!(new.len(), 4, "{new:?}");
    assert!(
        new.iter()
            .all(|n| n.starts_with("shop/checkout-gsdj2zwwnp-")),
        "{new:?}"
    );
    for kept in ["8fq26", "99vxd", "9ghz9"] {
        assert!(new.contains(&format!("shop/checkout-gsdj2zwwnp-{kept}")));
    }
    let status = c.app("shop/checkout").unwrap();
    assert_eq!((status.updated, status.current), (4, 4));
}

/// A small kubectl List: two nodes (b resized to 1 cpu under its pods),
/// Deployment web (3 replicas) whose ReplicaSet has a pod on each node, a
/// Pending one, a terminating one and a finished one.
fn small_dump() -> String {
    let node = |name: &str, cpu: &str| {
        format!(
            "- apiVersion: v1\n  kind: Node\n  metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n  status:\n    allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n    conditions: [{{type: Ready, status: \"True\"}}]\n"
        )
    };
    let pod = |name: &str, node: Option<&str>, extra_meta: &str, phase: &str| {
        let node = node.map_or(String::new(), |n| format!("    nodeName: {n}\n"));
        format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {name}\n    labels: {{app: web, pod-template-hash: 5d4c8f7b9}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4c8f7b9, uid: u1, controller: true}}]\n{extra_meta}  spec:\n    containers: [{{name: web, image: nginx, resources: {{requests: {{cpu: 600m, memory: 1Gi}}}}}}]\n{node}  status: {{phase: {phase}}}\n"
        )
    };
    let template = "    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: nginx, resources: {requests: {cpu: 600m, memory: 1Gi}}}]\n";
    let rs_template = "    template:\n      metadata: {labels: {app: web, pod-template-hash: 5d4c8f7b9}}\n      spec:\n        containers: [{name: web, image: nginx, resources: {requests: {cpu: 600m, memory: 1Gi}}}]\n";
    [
        "apiVersion: v1\nkind: List\nitems:\n".to_string(),
        node("node-a", "4"),
        node("node-b", "1"),
        format!("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: web, annotations: {{deployment.kubernetes.io/revision: \"1\"}}}}\n  spec:\n    replicas: 3\n    selector: {{matchLabels: {{app: web}}}}\n{template}"),
        format!("- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: web-5d4c8f7b9\n    labels: {{app: web, pod-template-hash: 5d4c8f7b9}}\n    annotations: {{deployment.kubernetes.io/revision: \"1\"}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: u0, controller: true}}]\n  spec:\n    replicas: 3\n    selector: {{matchLabels: {{app: web, pod-template-hash: 5d4c8f7b9}}}}\n{rs_template}"),
        pod("web-5d4c8f7b9-x2x7q", Some("node-a"), "", "Running"),
        pod("web-5d4c8f7b9-b4kzn", Some("node-b"), "", "Running"),
        pod("web-5d4c8f7b9-q9wlp", Some("node-b"), "", "Running"),
        pod("web-5d4c8f7b9-pndng", None, "", "Pending"),
        pod("web-5d4c8f7b9-gone1", Some("node-a"), "    deletionTimestamp: \"2026-12-07T10:00:00Z\"\n", "Running"),
        pod("web-5d4c8f7b9-done1", Some("node-a"), "", "Succeeded"),
    ]
    .concat()
}

/// Terminating and finished pods take no room and are counted; node-b,
/// resized to 1 cpu under two pods of 600m, is reported and keeps them;
/// the Pending pod is scheduled (on node-a, the only one with room), and
/// the Deployment, with 3 replicas running or placed, creates none.
#[test]
fn pending_terminating_finished_and_overcommitted_pods_as_kubernetes_has_them() {
    let im = import(&small_dump()).unwrap();
    assert_eq!((im.summary.terminating, im.summary.finished), (1, 1));
    assert_eq!(im.summary.running, 4);
    assert!(
        im.summary
            .to_string()
            .contains("1 pods terminating and 1 finished take no room"),
        "{}",
        im.summary
    );
    assert!(has_warning(
        &im,
        "metadata.deletionTimestamp",
        "terminating"
    ));
    assert!(has_warning(&im, "status.phase", "finished (Succeeded)"));
    let over: Vec<_> = im
        .warnings
        .iter()
        .filter(|w| w.message.contains("overcommitted"))
        .collect();
    assert_eq!(over.len(), 1, "{:?}", im.warnings);
    assert_eq!(over[0].loc.name, "node-b");
    assert!(
        over[0]
            .message
            .contains("cpu requested 1200m, allocatable 1000m"),
        "{}",
        over[0].message
    );
    let c = converge(&im.scenario);
    let b = bindings(&c);
    assert_eq!(
        b.get("web-5d4c8f7b9-x2x7q").map(String::as_str),
        Some("node-a")
    );
    assert_eq!(
        b.get("web-5d4c8f7b9-b4kzn").map(String::as_str),
        Some("node-b")
    );
    assert_eq!(
        b.get("web-5d4c8f7b9-q9wlp").map(String::as_str),
        Some("node-b")
    );
    // Three replicas: the Pending one is surplus (its ReplicaSet has 4
    // pods for 3 replicas) and, Pending, is the first the controller deletes.
    assert_eq!(b.len(), 3, "{b:?}");
    assert!(c.pod_by_name("web-5d4c8f7b9-pndng").is_err());
    assert!(c.pod_by_name("web-5d4c8f7b9-gone1").is_err());
    assert!(!c
        .rendered_events()
        .iter()
        .any(|e| e.reason == "SuccessfulCreate"));
    // node-b stays overcommitted: nothing more is placed there.
    let nb = c.node("node-b").unwrap();
    assert_eq!(nb.name(), "node-b");
}

/// With one pod fewer running, the controller makes only the missing one,
/// under a generated name, and the scheduler places it (node-a: node-b
/// has no room).
#[test]
fn a_missing_replica_is_made_under_a_generated_name() {
    let text = small_dump().replace(
        "    replicas: 3\n    selector: {matchLabels: {app: web}}",
        "    replicas: 5\n    selector: {matchLabels: {app: web}}",
    );
    let im = import(&text).unwrap();
    let c = converge(&im.scenario);
    let b = bindings(&c);
    assert_eq!(b.len(), 5, "{b:?}");
    assert_eq!(
        b.get("web-5d4c8f7b9-pndng").map(String::as_str),
        Some("node-a")
    );
    let made: Vec<&String> = b
        .keys()
        .filter(|n| {
            !["x2x7q", "b4kzn", "q9wlp", "pndng"]
                .iter()
                .any(|s| n.ends_with(s))
        })
        .collect();
    assert_eq!(made.len(), 1);
    assert!(made[0].starts_with("web-5d4c8f7b9-"), "{made:?}");
    assert_eq!(b[made[0]], "node-a");
    assert_eq!(
        c.rendered_events()
            .iter()
            .filter(|e| e.reason == "SuccessfulCreate")
            .count(),
        1
    );
}

/// A pod bound to a node the input lacks is left out, with a warning;
/// the import does not fail.
#[test]
fn a_pod_on_a_node_not_in_the_input_is_left_out() {
    let text = small_dump().replace("nodeName: node-a", "nodeName: node-z");
    let im = import(&text).unwrap();
    assert!(has_warning(
        &im,
        "spec.nodeName",
        "\"node-z\" is no node in the input"
    ));
    let c = converge(&im.scenario);
    assert!(c.pod_by_name("web-5d4c8f7b9-x2x7q").is_err());
}

/// The script path (the page, `kubectl`, the what-ifs) gives the same
/// cluster as `to_cluster`: the same bindings under the same names.
#[test]
fn the_script_of_an_import_binds_as_the_import_does() {
    let text = corpus("mid-sized-cluster.yaml");
    let im = import(&text).unwrap();
    let direct = im.scenario.to_cluster().unwrap();
    let script: Vec<(u64, shepherd::simulator::Event)> =
        im.scenario.events().into_iter().map(|e| (1, e)).collect();
    let mut sim =
        shepherd::simulator::Simulator::with_script(1, im.scenario.profile_or_default(), script);
    let r = sim.step();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let want = bindings(&direct);
    let got = bindings(sim.cluster());
    for (name, node) in &want {
        if !name.starts_with("shop/checkout-") {
            assert_eq!(got.get(name), Some(node), "{name}");
        }
    }
    let p = sim.cluster().pod_by_name("data/postgres-1").unwrap();
    assert_eq!(
        sim.cluster().node_by_id(p.node.unwrap()).unwrap().name(),
        "ip-10-0-18-176.ec2.internal"
    );
}

/// The export written anew (no kept documents: a scenario built, not
/// imported) and the KWOK export carry the running pods with their nodes
/// and a Deployment's ReplicaSets; imported again, the same bindings
/// under the same names, the controllers finding their pods by selector
/// (the export writes no ownerReferences: the API server would want the
/// owners' uids).
#[test]
fn export_then_import_gives_the_same_bindings() {
    let text = corpus("mid-sized-cluster.yaml");
    let im = import(&text).unwrap();
    let want = bindings(&im.scenario.to_cluster().unwrap());
    let mut fresh = im.scenario.clone();
    fresh.kept = Default::default();
    for (what, out) in [
        ("export", shepherd_k8s::export(&fresh)),
        ("kept export", shepherd_k8s::export(&im.scenario)),
        ("kwok export", shepherd_k8s::export_kwok(&fresh)),
    ] {
        let back = import(&out).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(back.summary.running, 54, "{what}");
        let c = back.scenario.to_cluster().unwrap();
        assert_eq!(bindings(&c), want, "{what}");
        let sets: Vec<String> = c
            .replica_sets("shop/checkout")
            .unwrap()
            .into_iter()
            .map(|r| format!("{} {}", r.name, r.current))
            .collect();
        assert_eq!(
            sets,
            ["shop/checkout-gsdj2zwwnp 3", "shop/checkout-dvcwnlf2sn 2"],
            "{what}"
        );
        if what == "export" {
            // Written anew, a StatefulSet is written as the Deployment it
            // is simulated as: its pods are then named as a Deployment's.
            let plain = |sc: &Scenario| {
                let mut r = sc.running.clone();
                r.iter_mut().for_each(|r| r.stateful = false);
                r
            };
            assert_eq!(plain(&back.scenario), plain(&im.scenario));
        }
    }
}

/// The KWOK export is for another cluster: no ownerReferences (their uids
/// are the source cluster's; its garbage collector would delete the pods
/// as orphans), the controllers adopt their pods by selector.
#[test]
fn the_kwok_export_names_no_owner_uid() {
    let im = import(&corpus("mid-sized-cluster.yaml")).unwrap();
    let out = shepherd_k8s::export_kwok(&im.scenario);
    assert!(!out.contains("ownerReferences"));
    assert!(!out.contains("uid:"));
    assert!(out.contains("name: checkout-gsdj2zwwnp-99vxd"));
    assert!(out.contains("nodeName: ip-10-0-3-85.ec2.internal"));
}

/// The kinds and names of a YAML stream's objects, with each object.
fn objects(text: &str) -> Vec<serde_yaml_ng::Value> {
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|d| serde::Deserialize::deserialize(d).expect("the export reads"))
        .filter(|v: &serde_yaml_ng::Value| !v.is_null())
        .collect()
}

fn object<'a>(
    objs: &'a [serde_yaml_ng::Value],
    kind: &str,
    ns: &str,
    name: &str,
) -> Option<&'a serde_yaml_ng::Value> {
    objs.iter().find(|o| {
        o["kind"].as_str() == Some(kind)
            && o["metadata"]["name"].as_str() == Some(name)
            && o["metadata"]["namespace"].as_str().unwrap_or("default") == ns
    })
}

/// Issue 45: the export after a simulation is the cluster as it is then.
/// The mid-sized dump, converged (checkout's rollout continues: its old
/// ReplicaSet goes to 0, the new one makes a fourth pod), then a node is
/// deleted (its pods lost, their controllers make others): every pod a
/// controller made is written under the name and on the node the
/// simulation gave it, from its owner's template as the user gave it (the
/// user's images, never the pause one), each ReplicaSet with the replicas
/// the simulation left it; imported again, the same bindings (plain,
/// kept and KWOK exports).
#[test]
fn the_export_after_a_simulation_writes_the_pods_the_controllers_made() {
    let text = corpus("mid-sized-cluster.yaml");
    let im = import(&text).unwrap();
    let mut c = converge(&im.scenario);
    // A node with a Deployment's pod and a DaemonSet's.
    let lost = "ip-10-0-18-176.ec2.internal";
    c.remove_node(lost).unwrap();
    assert!(
        c.reconcile_to_fixed_point(im.scenario.profile_or_default())
            .converged
    );
    let want = bindings(&c);
    let imported: BTreeMap<String, Option<String>> =
        dump_pods(&text).into_iter().map(|p| (p.0, p.1)).collect();
    let made: Vec<&String> = want
        .iter()
        .filter(|(k, n)| imported.get(*k) != Some(&Some(n.to_string())))
        .map(|(k, _)| k)
        .collect();
    // postgres-1 (a StatefulSet's) is made again under its own name.
    assert!(made.len() >= 3, "{made:?}");
    assert!(made.contains(&&"data/postgres-1".to_string()), "{made:?}");
    let mut sc = im.scenario.clone();
    sc.nodes.retain(|n| n.spec.name != lost);
    sc.take_running(&c);
    assert_eq!(
        sc.replica_set_replicas.get("shop/checkout-dvcwnlf2sn"),
        Some(&0),
        "{:?}",
        sc.replica_set_replicas
    );
    let out = shepherd_k8s::export(&sc);
    let objs = objects(&out);
    assert!(!out.contains("pause"), "a pod written with the pause image");
    let old =
        object(&objs, "ReplicaSet", "shop", "checkout-dvcwnlf2sn").expect("the old ReplicaSet");
    assert_eq!(old["spec"]["replicas"].as_u64(), Some(0));
    let new =
        object(&objs, "ReplicaSet", "shop", "checkout-gsdj2zwwnp").expect("the new ReplicaSet");
    assert_eq!(new["spec"]["replicas"].as_u64(), Some(4));
    for key in &made {
        let (ns, name) = shepherd::namespace::split(key);
        let p = object(&objs, "Pod", ns, name).unwrap_or_else(|| panic!("{key} is not written"));
        assert_eq!(
            p["spec"]["nodeName"].as_str(),
            want.get(*key).map(|s| s.as_str()),
            "{key}"
        );
        let images: Vec<&str> = p["spec"]["containers"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|c| c["image"].as_str())
            .collect();
        assert!(!images.is_empty(), "{key}: {p:?}");
    }
    // The fourth checkout pod: the new ReplicaSet's template and hash.
    let fourth = made
        .iter()
        .find(|k| k.starts_with("shop/checkout-"))
        .expect("checkout's fourth pod");
    let p = object(&objs, "Pod", "shop", shepherd::namespace::split(fourth).1).unwrap();
    assert_eq!(
        p["metadata"]["labels"]["pod-template-hash"].as_str(),
        Some("gsdj2zwwnp")
    );
    let mut fresh = sc.clone();
    fresh.kept = Default::default();
    for (what, out) in [
        ("kept export", out.clone()),
        ("export", shepherd_k8s::export(&fresh)),
        ("kwok export", shepherd_k8s::export_kwok(&sc)),
    ] {
        let back = import(&out).unwrap_or_else(|e| panic!("{what}: {e}"));
        let c2 = back.scenario.to_cluster().unwrap();
        assert_eq!(bindings(&c2), want, "{what}");
        let sets: Vec<String> = c2
            .replica_sets("shop/checkout")
            .unwrap()
            .into_iter()
            .map(|r| format!("{} {}", r.name, r.current))
            .collect();
        assert_eq!(
            sets,
            ["shop/checkout-gsdj2zwwnp 4", "shop/checkout-dvcwnlf2sn 0"],
            "{what}"
        );
        // Nothing more to do: the cluster is as the simulation left it.
        let mut c3 = back.scenario.to_cluster().unwrap();
        assert!(
            c3.reconcile_to_fixed_point(back.scenario.profile_or_default())
                .converged
        );
        assert_eq!(bindings(&c3), want, "{what}: after converging");
    }
}

/// Issue 45: a StatefulSet's pod made again takes the missing ordinal's
/// name, `<statefulset>-<ordinal>`, as the StatefulSet controller names
/// it (pkg/controller/statefulset, getPodName), not a generated name; the
/// export writes it with the identity its controller gives it.
#[test]
fn a_statefulsets_missing_ordinal_is_made_under_its_name() {
    let node = |n: &str| {
        format!("- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}}}\n  status:\n    allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n    conditions: [{{type: Ready, status: \"True\"}}]\n")
    };
    let pod = |n: &str, on: &str| {
        format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {n}\n    namespace: data\n    labels: {{app: db}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u1, controller: true}}]\n  spec:\n    nodeName: {on}\n    containers: [{{name: pg, image: postgres:16, resources: {{requests: {{cpu: 500m}}}}}}]\n  status: {{phase: Running}}\n")
    };
    let text = [
        "apiVersion: v1\nkind: List\nitems:\n".to_string(),
        node("n1"),
        node("n2"),
        "- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {name: db, namespace: data}\n  spec:\n    replicas: 3\n    serviceName: db\n    selector: {matchLabels: {app: db}}\n    template:\n      metadata: {labels: {app: db}}\n      spec:\n        containers: [{name: pg, image: postgres:16, resources: {requests: {cpu: 500m}}}]\n".to_string(),
        pod("db-0", "n1"),
        pod("db-2", "n2"),
    ]
    .concat();
    let im = import(&text).unwrap();
    let c = converge(&im.scenario);
    let got = bindings(&c);
    let names: Vec<&String> = got.keys().collect();
    assert_eq!(names, ["data/db-0", "data/db-1", "data/db-2"], "{got:?}");
    let p = c.pod_by_name("data/db-1").unwrap();
    assert_eq!(p.name(), "data/db-1");
    // Lost with its node, db-0 is made again as db-0.
    let mut c = c;
    c.remove_node("n1").unwrap();
    assert!(
        c.reconcile_to_fixed_point(im.scenario.profile_or_default())
            .converged
    );
    let got = bindings(&c);
    let names: Vec<&String> = got.keys().collect();
    assert_eq!(names, ["data/db-0", "data/db-1", "data/db-2"], "{got:?}");
    assert!(got.values().all(|n| n == "n2"), "{got:?}");
    let mut sc = im.scenario.clone();
    sc.nodes.retain(|n| n.spec.name != "n1");
    sc.take_running(&c);
    let out = shepherd_k8s::export(&sc);
    let objs = objects(&out);
    let p = object(&objs, "Pod", "data", "db-1").expect("db-1 is written");
    assert_eq!(p["spec"]["nodeName"].as_str(), Some("n2"));
    assert_eq!(p["spec"]["hostname"].as_str(), Some("db-1"));
    assert_eq!(p["spec"]["subdomain"].as_str(), Some("db"));
    assert_eq!(
        p["spec"]["containers"][0]["image"].as_str(),
        Some("postgres:16")
    );
    assert_eq!(
        p["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"].as_str(),
        Some("db-1")
    );
    assert_eq!(
        p["metadata"]["labels"]["apps.kubernetes.io/pod-index"].as_str(),
        Some("1")
    );
    let back = import(&out).unwrap();
    assert_eq!(bindings(&back.scenario.to_cluster().unwrap()), got);
}

/// Issue 45: a bare Pod (no owner) bound to its node in a running
/// cluster's dump (it has a status: its kubelet took it long ago) runs
/// there as it is, even on a node it overcommits (reported, as the
/// controllers' pods are), not admitted again and refused; the same Pod
/// without a status (a manifest, not a dump) still passes its kubelet's
/// admission, which refuses it (OutOfcpu), as Kubernetes does.
#[test]
fn a_bare_pod_of_a_dump_runs_where_it_runs() {
    let pod = |name: &str, status: &str| {
        format!("- apiVersion: v1\n  kind: Pod\n  metadata: {{name: {name}}}\n  spec:\n    nodeName: n1\n    containers: [{{name: sh, image: busybox, resources: {{requests: {{cpu: \"2\"}}}}}}]\n{status}")
    };
    let text = [
        "apiVersion: v1\nkind: List\nitems:\n".to_string(),
        "- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status:\n    allocatable: {cpu: \"1\", memory: 8Gi, pods: \"110\"}\n    conditions: [{type: Ready, status: \"True\"}]\n".to_string(),
        pod("debug", "  status: {phase: Running}\n"),
    ]
    .concat();
    let im = import(&text).unwrap();
    assert!(
        has_warning(
            &im,
            "",
            "overcommitted by the pods bound to it: cpu requested 2000m, allocatable 1000m"
        ),
        "{:?}",
        im.warnings
    );
    for (what, c) in [
        ("as imported", im.scenario.to_cluster().unwrap()),
        ("converged", converge(&im.scenario)),
    ] {
        let p = c.pod_by_name("debug").unwrap();
        assert_eq!(p.phase, PodPhase::Running, "{what}");
        assert!(p.ready, "{what}");
        assert_eq!(
            c.node_by_id(p.node.unwrap()).unwrap().name(),
            "n1",
            "{what}"
        );
    }
    // The script of the import (the page's) binds it as well.
    let script: Vec<(u64, shepherd::simulator::Event)> =
        im.scenario.events().into_iter().map(|e| (1, e)).collect();
    let mut sim =
        shepherd::simulator::Simulator::with_script(1, im.scenario.profile_or_default(), script);
    let r = sim.step();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let p = sim.cluster().pod_by_name("debug").unwrap();
    assert_eq!(p.phase, PodPhase::Running);
    // Exported as given (status aside: the export is a manifest).
    let out = shepherd_k8s::export(&im.scenario);
    assert!(out.contains("image: busybox"), "{out}");
    // A manifest (no status): admitted by its kubelet, which refuses it.
    let manifest = text.replace("  status: {phase: Running}\n", "");
    let im = import(&manifest).unwrap();
    let c = converge(&im.scenario);
    let p = c.pod_by_name("debug").unwrap();
    assert_eq!(p.phase, PodPhase::Failed);
}

/// Issue 45: a controller adopts the pods without ownerReferences that its
/// selector selects, matchExpressions too (In, NotIn, Exists,
/// DoesNotExist), as Kubernetes' label selector matches them
/// (apimachinery pkg/labels/selector.go); a pod the expressions exclude is
/// not its own (here a bare Pod), and ownerReferences still win.
#[test]
fn selectors_with_expressions_adopt_as_kubernetes_matches() {
    let node = |n: &str| {
        format!("- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}}}\n  status:\n    allocatable: {{cpu: \"8\", memory: 16Gi, pods: \"110\"}}\n    conditions: [{{type: Ready, status: \"True\"}}]\n")
    };
    let pod = |n: &str, labels: &str, on: &str, owner: &str| {
        format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {n}\n    labels: {labels}\n{owner}  spec:\n    nodeName: {on}\n    containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: 100m}}}}}}]\n  status: {{phase: Running}}\n")
    };
    let text = [
        "apiVersion: v1\nkind: List\nitems:\n".to_string(),
        node("n1"),
        node("n2"),
        "- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata: {name: agent}\n  spec:\n    selector:\n      matchExpressions:\n      - {key: app, operator: In, values: [agent]}\n      - {key: tier, operator: DoesNotExist}\n    template:\n      metadata: {labels: {app: agent}}\n      spec:\n        containers: [{name: c, image: agent:1, resources: {requests: {cpu: 100m}}}]\n".to_string(),
        "- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {name: db}\n  spec:\n    replicas: 1\n    serviceName: db\n    selector:\n      matchLabels: {role: db}\n      matchExpressions:\n      - {key: app, operator: In, values: [db, database]}\n      - {key: track, operator: NotIn, values: [canary]}\n      - {key: role, operator: Exists}\n    template:\n      metadata: {labels: {app: db, role: db}}\n      spec:\n        containers: [{name: c, image: pg, resources: {requests: {cpu: 100m}}}]\n".to_string(),
        pod("agent-x2x7q", "{app: agent}", "n1", ""),
        pod("agent-b4kzn", "{app: agent}", "n2", ""),
        // Excluded by `tier DoesNotExist`: nobody's, a bare Pod.
        pod("stray", "{app: agent, tier: canary}", "n2", ""),
        // Selected by the StatefulSet's expressions.
        pod("db-0", "{app: database, role: db}", "n1", ""),
        // Excluded by `track NotIn [canary]`.
        pod("db-canary", "{app: db, role: db, track: canary}", "n2", ""),
        // Selected, but its ownerReference names another owner: that one's.
        pod("db-9", "{app: db, role: db}", "n2", "    ownerReferences: [{apiVersion: v1, kind: Job, name: backup, uid: u9}]\n"),
    ]
    .concat();
    let im = import(&text).unwrap();
    let c = im.scenario.to_cluster().unwrap();
    let owner = |n: &str| {
        let p = c.pod_by_name(n).unwrap_or_else(|e| panic!("{n}: {e}"));
        (p.kind, p.app.to_string())
    };
    use shepherd::WorkloadKind::{DaemonSet, Deployment, Pod};
    assert_eq!(owner("agent-x2x7q"), (DaemonSet, "agent".into()));
    assert_eq!(owner("agent-b4kzn"), (DaemonSet, "agent".into()));
    assert_eq!(owner("stray"), (Pod, "stray".into()));
    assert_eq!(owner("db-0"), (Deployment, "db".into()));
    assert_eq!(owner("db-canary"), (Pod, "db-canary".into()));
    assert_eq!(owner("db-9"), (Pod, "db-9".into()));
    // Nothing more is made: the DaemonSet has a pod on each node, the
    // StatefulSet its one replica.
    let c = converge(&im.scenario);
    assert_eq!(c.pods().filter(|p| p.kind != Pod).count(), 3);
}

/// Issue 45: a pod's own Ready condition is read. One whose Ready is
/// False (its readiness probe failing) runs where it runs but stays not
/// Ready: out of its Service's endpoints, not healthy for its budget, not
/// available for its Deployment, whatever the simulation does after; the
/// export says so and reads back so.
#[test]
fn a_pod_not_ready_in_the_dump_stays_not_ready() {
    let node = |n: &str| {
        format!("- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}}}\n  status:\n    allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n    conditions: [{{type: Ready, status: \"True\"}}]\n")
    };
    let pod = |n: &str, on: &str, ready: &str| {
        format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {n}\n    labels: {{app: web, pod-template-hash: 5d4c8f7b9}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4c8f7b9, uid: u1, controller: true}}]\n  spec:\n    nodeName: {on}\n    containers: [{{name: web, image: nginx, resources: {{requests: {{cpu: 500m}}}}}}]\n  status:\n    phase: Running\n    conditions: [{{type: PodScheduled, status: \"True\"}}, {{type: Ready, status: \"{ready}\"}}]\n    containerStatuses: [{{name: web, ready: {}, restartCount: 7}}]\n", ready == "True")
    };
    let text = [
        "apiVersion: v1\nkind: List\nitems:\n".to_string(),
        node("n1"),
        node("n2"),
        "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, annotations: {deployment.kubernetes.io/revision: \"1\"}}\n  spec:\n    replicas: 2\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m}}}]\n".to_string(),
        "- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: web-5d4c8f7b9\n    labels: {app: web, pod-template-hash: 5d4c8f7b9}\n    annotations: {deployment.kubernetes.io/revision: \"1\"}\n    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u0, controller: true}]\n  spec:\n    replicas: 2\n    selector: {matchLabels: {app: web, pod-template-hash: 5d4c8f7b9}}\n    template:\n      metadata: {labels: {app: web, pod-template-hash: 5d4c8f7b9}}\n      spec:\n        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m}}}]\n".to_string(),
        "- apiVersion: v1\n  kind: Service\n  metadata: {name: web}\n  spec:\n    selector: {app: web}\n    ports: [{port: 80}]\n".to_string(),
        "- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: web}\n  spec:\n    minAvailable: 1\n    selector: {matchLabels: {app: web}}\n".to_string(),
        pod("web-5d4c8f7b9-x2x7q", "n1", "True"),
        pod("web-5d4c8f7b9-b4kzn", "n2", "False"),
    ]
    .concat();
    let im = import(&text).unwrap();
    let check = |c: &Cluster, what: &str| {
        let p = c.pod_by_name("web-5d4c8f7b9-b4kzn").unwrap();
        assert!(!p.ready && !p.available, "{what}");
        assert_eq!(p.phase, PodPhase::Running, "{what}");
        assert!(
            c.pod_by_name("web-5d4c8f7b9-x2x7q").unwrap().ready,
            "{what}"
        );
        let eps = c.service_endpoints("web").unwrap();
        assert_eq!(eps.len(), 1, "{what}: {eps:?}");
        let pdb = c.pdb_status("web").unwrap();
        assert_eq!(
            (pdb.current_healthy, pdb.disruptions_allowed),
            (1, 0),
            "{what}"
        );
        let st = c.app("web").unwrap();
        assert_eq!((st.ready, st.available), (1, 1), "{what}");
    };
    check(&im.scenario.to_cluster().unwrap(), "as imported");
    let mut c = converge(&im.scenario);
    check(&c, "converged");
    // A node of its going NotReady and back does not make it Ready.
    c.fail_node("n2").unwrap();
    let later = c.now() + c.heartbeat_timeout() + 1;
    c.set_now(later);
    c.detect_failures();
    c.recover_node("n2").unwrap();
    c.heartbeats();
    assert!(
        c.reconcile_to_fixed_point(im.scenario.profile_or_default())
            .converged
    );
    if c.pod_by_name("web-5d4c8f7b9-b4kzn").is_ok() {
        check(&c, "after its node came back");
    }
    // Exported (kept and anew) and read back: still not Ready.
    let mut fresh = im.scenario.clone();
    fresh.kept = Default::default();
    for out in [
        shepherd_k8s::export(&im.scenario),
        shepherd_k8s::export(&fresh),
    ] {
        let back = import(&out).unwrap();
        check(&back.scenario.to_cluster().unwrap(), "read back");
    }
}
