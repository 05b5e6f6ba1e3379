//! Issue 45: export is lossless for what was imported, and the round trip
//! over every example and dump the repository ships.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::kept::strip;
use crate::read::objects;
use crate::value::Value;
use crate::{export, export_kwok, import, Limits, Scenario};

/// Every manifest file under tests/manifests/ and www/examples/.
fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["tests/manifests", "www/examples"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("yaml" | "yml" | "json")
                )
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// (kind, namespace, name) of an object, namespace "" when it has none.
fn key(v: &Value) -> (String, String, String) {
    let s = |x: Option<&Value>| x.and_then(Value::as_str).unwrap_or("").to_string();
    let meta = v.get("metadata");
    (
        s(v.get("kind")),
        s(meta.and_then(|m| m.get("namespace"))),
        s(meta.and_then(|m| m.get("name"))),
    )
}

fn docs(text: &str) -> Vec<Value> {
    objects(text, &Limits::default(), &mut |_| {})
        .unwrap()
        .into_iter()
        .map(|o| o.value)
        .collect()
}

/// Every pod of the converged scenario and its node.
fn bindings(sc: &Scenario) -> Vec<(String, Option<String>)> {
    let mut c = sc.to_cluster().unwrap();
    assert!(
        c.reconcile_to_fixed_point(sc.profile_or_default())
            .converged
    );
    let mut out: Vec<_> = c
        .pods()
        .map(|p| {
            (
                p.name(),
                p.node
                    .and_then(|id| c.node_by_id(id))
                    .map(|n| n.name().to_string()),
            )
        })
        .collect();
    out.sort();
    out
}

/// Export of an unchanged import equals the input object by object (status
/// and server-set fields aside), and its import is the same cluster with
/// the same bindings; the KWOK export too, less KWOK's marks.
#[test]
fn every_example_and_dump_round_trips_object_by_object() {
    let mut checked = 0;
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display();
        let im = import(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = export(&im.scenario);
        let mut back = import(&out).unwrap_or_else(|e| panic!("{name}: {e}\n{out}"));
        // A KubeSchedulerConfiguration is kube-scheduler's file, not an
        // API object: export_scheduler_config writes it apart.
        back.scenario.profile = im.scenario.profile.clone();
        assert_eq!(back.scenario, im.scenario, "{name}: the same declarations");
        assert_eq!(
            bindings(&back.scenario),
            bindings(&im.scenario),
            "{name}: the same bindings"
        );
        // Object by object.
        let input: HashMap<_, _> = docs(&text)
            .into_iter()
            .map(|mut v| {
                strip(&mut v);
                (key(&v), v)
            })
            .collect();
        let mut same = 0;
        for mut v in docs(&out) {
            // Status aside (a bare Pod that runs says so in its phase).
            strip(&mut v);
            if let Some(given) = input.get(&key(&v)) {
                assert_eq!(&v, given, "{name}: {:?}", key(&v));
                same += 1;
            }
        }
        assert_eq!(
            same,
            im.scenario.kept.len(),
            "{name}: every imported object written from its document"
        );
        // Twice over: the export of the export's import is the export.
        assert_eq!(export(&back.scenario), out, "{name}");
        // With KWOK's marks: the same cluster less them.
        let kwok =
            import(&export_kwok(&im.scenario)).unwrap_or_else(|e| panic!("{name}: kwok: {e}"));
        assert_eq!(kwok.scenario.nodes.len(), im.scenario.nodes.len());
        assert_eq!(kwok.scenario.pods.len(), im.scenario.pods.len());
        for (a, b) in kwok.scenario.pods.iter().zip(&im.scenario.pods) {
            assert_eq!(a.node_name, b.node_name, "{name}: {} stays bound", a.name);
        }
        checked += 1;
    }
    assert!(checked >= 14, "{checked} fixtures round-tripped");
}

const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    uid: 0c6d
    resourceVersion: "812"
    creationTimestamp: "2026-11-02T10:00:00Z"
    labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: z1}
    annotations: {node.alpha.kubernetes.io/ttl: "0"}
  spec:
    podCIDR: 10.244.1.0/24
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
    conditions:
    - {type: MemoryPressure, status: "False"}
    - {type: Ready, status: "True", lastHeartbeatTime: "2026-12-07T10:00:00Z"}
    nodeInfo: {kubeletVersion: v1.37.2}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: api
    namespace: shop
    generation: 4
    annotations: {deployment.kubernetes.io/revision: "2"}
    managedFields:
    - manager: kubectl
      operation: Update
  spec:
    replicas: 2
    revisionHistoryLimit: 10
    selector:
      matchLabels: {app: api}
    template:
      metadata:
        labels: {app: api, version: v2}
      spec:
        containers:
        - name: server
          image: ghcr.io/acme/api:2.4.1
          env:
          - {name: MODE, value: prod}
          resources:
            requests: {cpu: 500m, memory: 512Mi}
          volumeMounts:
          - {name: cfg, mountPath: /etc/api}
        volumes:
        - name: cfg
          configMap: {name: api-config}
  status:
    replicas: 2
    readyReplicas: 2
- apiVersion: v1
  kind: Pod
  metadata:
    name: debug
    namespace: shop
    uid: 77aa
  spec:
    nodeName: n1
    containers:
    - name: shell
      image: busybox:1.36
      command: [sleep, infinity]
      resources:
        requests: {cpu: 100m}
  status:
    phase: Running
    podIP: 10.244.1.7
"#;

/// What the simulation changed is written, nothing else: the image, env,
/// volumes, annotations and selector stay; status and server-set fields go.
#[test]
fn only_what_the_simulation_changed_is_changed() {
    let im = import(CLUSTER).unwrap();
    let mut sc = im.scenario.clone();
    let untouched = export(&sc);
    for gone in [
        "uid:",
        "resourceVersion",
        "managedFields",
        "creationTimestamp",
        "generation:",
        "readyReplicas",
        "podIP",
        "nodeInfo",
        "lastHeartbeatTime",
        "MemoryPressure",
    ] {
        assert!(!untouched.contains(gone), "{gone} written:\n{untouched}");
    }
    for kept in [
        "ghcr.io/acme/api:2.4.1",
        "name: server",
        "value: prod",
        "configMap:",
        "deployment.kubernetes.io/revision",
        "10.244.1.0/24",
        "node.alpha.kubernetes.io/ttl",
        "busybox:1.36",
        "nodeName: n1",
        "revisionHistoryLimit: 10",
    ] {
        assert!(untouched.contains(kept), "{kept} lost:\n{untouched}");
    }
    // The simulation scales api, cordons and taints n1.
    sc.deployments[0].replicas = 5;
    sc.nodes[0].unschedulable = true;
    sc.nodes[0].spec.taints.push(shepherd::Taint::new(
        "dedicated",
        "gpu",
        shepherd::TaintEffect::NoSchedule,
    ));
    let out = export(&sc);
    let back = import(&out).unwrap();
    assert_eq!(back.scenario, sc);
    let api = docs(&out)
        .into_iter()
        .find(|v| key(v).0 == "Deployment")
        .unwrap();
    let spec = api.get("spec").unwrap();
    assert_eq!(spec.get("replicas"), Some(&Value::UInt(5)));
    // The selector is immutable: as given, not the template's labels.
    assert_eq!(
        spec.get("selector"),
        Some(&Value::Map(vec![(
            "matchLabels".into(),
            Value::Map(vec![("app".into(), Value::Str("api".into()))])
        )]))
    );
    assert!(out.contains("ghcr.io/acme/api:2.4.1"));
    assert!(out.contains("unschedulable: true"));
    assert!(out.contains("key: dedicated"));
    // A rolled template is the engine's (the simulation changed it), under
    // the same selector.
    sc.deployments[0]
        .template
        .labels
        .insert("version".into(), "v3".into());
    let rolled = export(&sc);
    let back = import(&rolled).unwrap();
    assert_eq!(back.scenario, sc);
    assert!(rolled.contains("version: v3"));
    assert!(!rolled.contains("version: v2"));
    // A Pod's spec is immutable: only nodeName follows the simulation.
    sc.pods[0].template.requests = shepherd::Resources::new(900, 0);
    assert!(export(&sc).contains("cpu: \"100m\""));
}

/// The KWOK export keeps each imported object's fields and its binding,
/// and adds KWOK's annotation, label, taint and toleration.
#[test]
fn kwok_export_keeps_objects_and_bindings() {
    let im = import(CLUSTER).unwrap();
    let out = export_kwok(&im.scenario);
    assert!(out.contains("kwok.x-k8s.io/node: fake"), "{out}");
    assert!(out.contains("busybox:1.36"));
    assert!(out.contains("nodeName: n1"));
    assert!(out.contains("podCIDR"));
    let back = import(&out).unwrap().scenario;
    assert_eq!(back.pods[0].node_name.as_deref(), Some("n1"));
    let n = &back.nodes[0].spec;
    assert_eq!(n.labels.get("type").map(String::as_str), Some("kwok"));
    assert!(n.taints.iter().any(|t| t.key == crate::KWOK_KEY));
    assert!(back.deployments[0]
        .template
        .tolerations
        .iter()
        .any(|t| t.key == crate::KWOK_KEY));
    // Twice: one mark each.
    let again = export_kwok(&back);
    assert_eq!(
        again.matches("value: fake").count(),
        out.matches("value: fake").count()
    );
}

/// What keeping the documents costs: the kept trees of an input made only
/// of objects that are kept (Deployments as kubectl prints them, status
/// and managedFields included), against the input's bytes. Printed for
/// docs/; the bound asserted is the one docs/ states.
#[test]
fn kept_memory() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/manifests/mid-sized-cluster.yaml"),
    )
    .unwrap();
    let im = import(&text).unwrap();
    let kept = im.scenario.kept.doc_bytes();
    // The kept objects' text, as given (status and server-set fields in).
    let mut given = 0;
    for v in docs(&text) {
        if matches!(
            key(&v).0.as_str(),
            "Node"
                | "Deployment"
                | "StatefulSet"
                | "DaemonSet"
                | "PodDisruptionBudget"
                | "Service"
                // The controllers' ReplicaSets and pods, kept since
                // the import keeps pods as they run (issue 45 item 1).
                | "ReplicaSet"
                | "Pod"
        ) {
            let mut out = String::new();
            crate::export::yaml_of(&mut out, &v);
            given += out.len();
        }
    }
    println!(
        "kept {} documents: {kept} bytes for {given} bytes of their text ({:.2} per byte)",
        im.scenario.kept.len(),
        kept as f64 / given as f64
    );
    assert!(kept <= 3 * given, "{kept} > 3 x {given}");
}
