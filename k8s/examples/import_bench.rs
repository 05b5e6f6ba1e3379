//! Import speed at Kubernetes' scale: 5,000 Nodes and 10,000 Deployments as
//! `kubectl get nodes,deployments -o yaml` prints them (status, managedFields
//! and all), as one multi-document YAML stream and as one JSON List.
//!
//! `cargo run --release -p shepherd-k8s --example import_bench [NODES DEPLOYMENTS]`
//! (`SHEPHERD_BENCH_ONCE=yaml` or `=full` imports the stream once, through the
//! fast reader or the full parser, and stops: for a profiler)

use std::time::Instant;

fn node(i: usize) -> String {
    let z = ["zone-a", "zone-b", "zone-c"][i % 3];
    let rv = 1000 + i;
    let a = i % 256;
    let b = i % 200 + 2;
    format!(
        r#"apiVersion: v1
kind: Node
metadata:
  annotations:
    kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
    node.alpha.kubernetes.io/ttl: "0"
    volumes.kubernetes.io/controller-managed-attach-detach: "true"
  creationTimestamp: "2024-05-01T10:00:00Z"
  labels:
    beta.kubernetes.io/arch: amd64
    beta.kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: node-{i}
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: {z}
  name: node-{i}
  resourceVersion: "{rv}"
  uid: 6f1c2a0e-0000-4000-8000-{i:012}
spec:
  podCIDR: 10.244.{a}.0/24
  podCIDRs:
  - 10.244.{a}.0/24
  providerID: kind://docker/kind/node-{i}
status:
  addresses:
  - address: 172.18.{a}.{b}
    type: InternalIP
  - address: node-{i}
    type: Hostname
  allocatable:
    cpu: "16"
    ephemeral-storage: 102626232Ki
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    memory: 65776800Ki
    pods: "110"
  capacity:
    cpu: "16"
    ephemeral-storage: 102626232Ki
    hugepages-1Gi: "0"
    hugepages-2Mi: "0"
    memory: 65879200Ki
    pods: "110"
  conditions:
  - lastHeartbeatTime: "2024-05-01T12:00:00Z"
    lastTransitionTime: "2024-05-01T10:00:00Z"
    message: kubelet has sufficient memory available
    reason: KubeletHasSufficientMemory
    status: "False"
    type: MemoryPressure
  - lastHeartbeatTime: "2024-05-01T12:00:00Z"
    lastTransitionTime: "2024-05-01T10:00:30Z"
    message: kubelet is posting ready status
    reason: KubeletReady
    status: "True"
    type: Ready
  daemonEndpoints:
    kubeletEndpoint:
      Port: 10250
  nodeInfo:
    architecture: amd64
    containerRuntimeVersion: containerd://1.7.15
    kernelVersion: 6.1.0-21-amd64
    kubeProxyVersion: v1.30.0
    kubeletVersion: v1.30.0
    operatingSystem: linux
    osImage: Debian GNU/Linux 12 (bookworm)
"#
    )
}

fn deployment(i: usize) -> String {
    let rv = 200000 + i;
    let r = 1 + i % 30;
    let v = i % 7;
    let cpu = 100 + (i % 8) * 50;
    let mem = 128 + (i % 4) * 64;
    format!(
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "1"
  creationTimestamp: "2024-05-01T10:05:00Z"
  generation: 1
  labels:
    app: app-{i}
  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicas: {{}}
        f:template:
          f:spec:
            f:containers:
              k:{{"name":"main"}}:
                .: {{}}
                f:image: {{}}
    manager: kubectl-client-side-apply
    operation: Update
    time: "2024-05-01T10:05:00Z"
  name: app-{i}
  namespace: default
  resourceVersion: "{rv}"
  uid: 0a7f3d2c-0000-4000-8000-{i:012}
spec:
  progressDeadlineSeconds: 600
  replicas: {r}
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: app-{i}
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: app-{i}
    spec:
      containers:
      - image: registry.example/app-{i}:1.0.{v}
        imagePullPolicy: IfNotPresent
        name: main
        ports:
        - containerPort: 8080
          protocol: TCP
        resources:
          limits:
            memory: 512Mi
          requests:
            cpu: {cpu}m
            memory: {mem}Mi
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status:
  availableReplicas: {r}
  conditions:
  - lastTransitionTime: "2024-05-01T10:05:10Z"
    lastUpdateTime: "2024-05-01T10:05:10Z"
    message: Deployment has minimum availability.
    reason: MinimumReplicasAvailable
    status: "True"
    type: Available
  observedGeneration: 1
  readyReplicas: {r}
  replicas: {r}
  updatedReplicas: {r}
"#
    )
}

/// Time this thread has run on a CPU (Linux: /proc/thread-self/schedstat),
/// which a loaded machine stretches far less than the wall clock.
fn cpu() -> Option<std::time::Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

fn time<T>(what: &str, f: impl Fn() -> T) -> T {
    let mut best: Option<(std::time::Duration, Option<std::time::Duration>)> = None;
    let mut out = None;
    for _ in 0..3 {
        let (t, c) = (Instant::now(), cpu());
        out = Some(f());
        let e = (t.elapsed(), c.zip(cpu()).map(|(a, b)| b - a));
        best = Some(best.map_or(e, |b| if e.0 < b.0 { e } else { b }));
    }
    let (wall, on_cpu) = best.unwrap_or_default();
    match on_cpu {
        Some(c) => println!("{what}: best of 3 {wall:.2?} ({c:.2?} on the CPU)"),
        None => println!("{what}: best of 3 {wall:.2?}"),
    }
    out.expect("ran three times")
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (n, d) = (
        args.first().copied().unwrap_or(5000),
        args.get(1).copied().unwrap_or(10000),
    );
    let mut docs: Vec<String> = (1..=n).map(node).collect();
    docs.extend((1..=d).map(deployment));
    let yaml = docs.join("---\n");
    println!(
        "{n} Nodes + {d} Deployments: YAML {:.1} MB",
        yaml.len() as f64 / 1e6
    );
    // The same stream behind a `%YAML 1.2` directive, which the fast reader
    // (k8s/src/yaml_fast.rs) leaves to the full parser: the reader before it.
    let full = format!("%YAML 1.2\n---\n{yaml}");
    // For a profiler (valgrind --tool=callgrind): one import, nothing else.
    if let Ok(which) = std::env::var("SHEPHERD_BENCH_ONCE") {
        let text = if which == "full" { &full } else { &yaml };
        let t = Instant::now();
        let im = shepherd_k8s::import(text).expect("the generated stream imports");
        println!("  {which}: {} in {:.2?}", im.summary, t.elapsed());
        return;
    }
    let im = time("import YAML stream", || {
        shepherd_k8s::import(&yaml).expect("the generated stream imports")
    });
    println!("  {}; {} warnings", im.summary, im.warnings.len());
    let again = time("import YAML stream, full parser only", || {
        shepherd_k8s::import(&full).expect("the generated stream imports")
    });
    assert_eq!(
        again.scenario, im.scenario,
        "both readers give the same cluster"
    );
    // The same objects as kubectl's JSON List.
    let values: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| serde_yaml_ng::from_str(d).expect("each generated document is YAML"))
        .collect();
    let json = serde_json::to_string(
        &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": values}),
    )
    .expect("serialises");
    println!("JSON List {:.1} MB", json.len() as f64 / 1e6);
    time("import JSON List", || {
        shepherd_k8s::import(&json).expect("the generated List imports")
    });
    let mut c = im.scenario.to_cluster().expect("enters the engine");
    let t = Instant::now();
    let fp = c.reconcile_to_fixed_point(shepherd::ScorePolicy::BinPack);
    println!(
        "converge: {} pods bound in {:.2?} ({} passes)",
        c.pods().filter(|p| p.node.is_some()).count(),
        t.elapsed(),
        fp.passes
    );
}
