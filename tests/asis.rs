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
    assert!(c.reconcile_to_fixed_point(sc.profile_or_default()).converged);
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
        let p = c.pod_by_name(name).unwrap_or_else(|e| panic!("{name}: {e}"));
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
            assert_eq!(now.get(name), None, "{name}: of the old ReplicaSet, deleted");
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
    assert!(new.iter().all(|n| n.starts_with("shop/checkout-gsdj2zwwnp-")), "{new:?}");
    for kept in ["8fq26", "99vxd", "9ghz9"] {
        assert!(new.contains(&format!("shop/checkout-gsdj2zwwnp-{kept}")));
    }
    let status = c.app("shop/checkout").unwrap();
    assert_eq!((status.updated, status.current), (4, 4));
}


