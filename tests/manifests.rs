//! The manifest gate: a corpus shaped as kubectl prints it, imported and
//! simulated with its expected placement and warnings; errors that name the
//! document, the object and the field; the round trip import(export(x)) == x
//! over random scenarios; and a fuzz of the importer.
//!
//! Sweep size: SHEPHERD_FUZZ_OPS (default 200). A failing seed prints itself:
//! `SHEPHERD_MANIFEST_SEED=N cargo test -p shepherd-k8s --test manifests <name>`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::model::{
    LabelSelectorRequirement, NodeAffinity, NodeSelectorOperator, NodeSelectorRequirement,
    NodeSelectorTerm, PreferredSchedulingTerm, SelectorOperator, TopologySpreadConstraint,
    WeightedAffinityTerm, WhenUnsatisfiable,
};
use shepherd::quantity::MIB;
use shepherd::simulator::Prng;
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{AffinityTerm, Plugin, Profile, ScoringStrategy, ScoringStrategyType};
use shepherd::{
    Budget, Cluster, IntOrPercent, PdbSpec, Resources, RollingUpdate, ScorePolicy, Selector,
    ServiceSpec,
};
use shepherd_k8s::{
    export, export_scheduler_config, import, import_with, Imported, ImportedNode, Limits, Options,
    Scenario,
};

fn corpus(name: &str) -> String {
    let p = format!("{}/../tests/manifests/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn converge(sc: &Scenario) -> Cluster {
    let mut c = sc
        .to_cluster()
        .expect("an imported scenario enters a cluster");
    // The imported KubeSchedulerConfiguration's profile, else kube-scheduler's default.
    assert!(
        c.reconcile_to_fixed_point(sc.profile_or_default())
            .converged
    );
    c
}

/// (pod, node or None) for every pod.
fn placement(c: &Cluster) -> Vec<(String, Option<String>)> {
    c.pods()
        .map(|p| {
            (
                c.short_pod_names(&p.name()),
                p.node
                    .and_then(|id| c.node_by_id(id))
                    .map(|n| n.name().to_string()),
            )
        })
        .collect()
}

fn node_of(c: &Cluster, pod: &str) -> Option<String> {
    let pod = c.short_pod_names(pod);
    placement(c)
        .into_iter()
        .find(|(p, _)| *p == pod)
        .and_then(|(_, n)| n)
}

fn has_warning(im: &Imported, path: &str, words: &str) -> bool {
    im.warnings
        .iter()
        .any(|w| w.path == path && w.message.contains(words))
}

#[test]
fn a_kubectl_list_of_three_zones_places_as_kubernetes_would() {
    let im = import(&corpus("three-zones-list.yaml")).unwrap();
    let sc = &im.scenario;
    assert_eq!(sc.nodes.len(), 3);
    // zone-c-1 is cordoned; the node controller's unschedulable taint is that state, not a taint.
    let c1 = &sc.nodes[2];
    assert!(c1.unschedulable && c1.ready && c1.spec.taints.is_empty());
    assert_eq!(
        sc.nodes[1].spec.taints[0].to_string(),
        "dedicated=gpu:NoSchedule"
    );
    // allocatable wins over capacity; 4000m and "4" are the same cpu.
    assert_eq!(sc.nodes[0].spec.capacity, Resources::new(4000, 8192 * MIB));
    assert_eq!(sc.nodes[1].spec.capacity, Resources::new(4000, 8192 * MIB));
    let web = &sc.deployments[0];
    assert_eq!((web.name.as_str(), web.replicas), ("web", 3));
    assert_eq!(web.template.requests, Resources::new(1000, 1024 * MIB));
    assert_eq!(
        web.strategy,
        RollingUpdate {
            max_surge: IntOrPercent::Int(1),
            max_unavailable: IntOrPercent::Int(0)
        }
    );
    assert_eq!(
        sc.deployments[1].template.anti_affinity[0].topology_key,
        "topology.kubernetes.io/zone"
    );
    assert_eq!(
        sc.pdbs[0].budget,
        Budget::MinAvailable(IntOrPercent::Int(2))
    );
    assert_eq!(sc.services[0].selector, Selector::new(&[("app", "web")]));
    // The ReplicaSet and its Pod are web's own; the bare Pod (debug), the
    // DaemonSet of the default namespace and kube-system's kube-proxy are
    // imported (every namespace, as `kubectl get -A` lists them).
    assert_eq!(im.summary.owned, 2);
    assert!(im.summary.skipped.is_empty(), "{:?}", im.summary.skipped);
    assert_eq!(sc.pods.len(), 1);
    assert_eq!(
        (sc.pods[0].name.as_str(), sc.pods[0].node_name.as_deref()),
        ("debug", None)
    );
    // Neither requests anything: BestEffort, simulated as such (no substitute request).
    assert!(sc.pods[0].template.requests.is_zero());
    assert_eq!(sc.daemonsets.len(), 2);
    assert!(sc.daemonsets[0].template.requests.is_zero());
    assert_eq!(sc.daemonsets[1].name, "kube-system/kube-proxy");
    // kube-system exists with no labels of its own (no Namespace object).
    assert_eq!(
        sc.namespaces,
        vec![shepherd::NamespaceSpec::new("kube-system")]
    );

    let c = converge(sc);
    // web tolerates nothing and zone-c-1 is cordoned: every web pod on
    // zone-a-1, the one that runs there under its own name (issue 45
    // item 1) and two more under generated names.
    assert_eq!(
        node_of(&c, "web-7c5b9d8f6-x2x7q").as_deref(),
        Some("zone-a-1")
    );
    for i in 1..3 {
        assert_eq!(
            node_of(&c, &format!("web-{i}")).as_deref(),
            Some("zone-a-1")
        );
    }
    // cache: one per zone by anti-affinity, tolerating the gpu taint; zone-c is cordoned.
    let mut cache: Vec<_> = (0..3)
        .filter_map(|i| node_of(&c, &format!("cache-{i}")))
        .collect();
    cache.sort();
    assert_eq!(cache, ["zone-a-1", "zone-b-1"]);
    let pending: Vec<_> = c
        .pending_pods()
        .map(|p| c.short_pod_names(&p.name()))
        .collect();
    assert_eq!(pending, ["cache-2"]);
    // log-agent: one pod on every node it tolerates: zone-a-1 and the cordoned
    // zone-c-1 (the DaemonSet controller's automatic unschedulable toleration),
    // not zone-b-1 (dedicated=gpu:NoSchedule). debug is scheduled like any pod.
    let mut agents: Vec<_> = c
        .pods()
        .filter(|p| p.app == "log-agent")
        .filter_map(|p| node_of(&c, &p.name()))
        .collect();
    agents.sort();
    assert_eq!(agents, ["zone-a-1", "zone-c-1"]);
    assert_eq!(node_of(&c, "debug").as_deref(), Some("zone-a-1"));
    let why = c.pending_reason("cache-2").unwrap().unwrap();
    assert!(
        why.contains("0/3 nodes are available")
            && why.contains("anti-affinity")
            && why.contains("unschedulable"),
        "{why}"
    );

    // status.allocatable.pods is the node's pod capacity (the kubelet's 110 unless set).
    assert_eq!(
        (sc.nodes[0].spec.max_pods, sc.nodes[1].spec.max_pods),
        (110, 8)
    );
    assert!(!im.warnings.iter().any(|w| w.path.contains("pods")));
    assert!(has_warning(
        &im,
        "spec.template.spec.containers[0].resources.limits",
        "limits are not simulated"
    ));
    assert!(!im
        .warnings
        .iter()
        .any(|w| w.loc.name == "debug" || w.loc.name == "log-agent"));
    // kube-proxy tolerates everything: one pod on each of the three nodes.
    let mut proxies: Vec<_> = c
        .pods()
        .filter(|p| p.app == "kube-system/kube-proxy")
        .filter_map(|p| node_of(&c, &p.name()))
        .collect();
    proxies.sort();
    assert_eq!(proxies, ["zone-a-1", "zone-b-1", "zone-c-1"]);
    // With a namespace filter (kubectl's -n), the others are skipped and said so.
    let only = shepherd_k8s::import_with(
        &corpus("three-zones-list.yaml"),
        &shepherd_k8s::Options {
            namespace: Some("default".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(only.summary.skipped, vec![("DaemonSet".to_string(), 1)]);
    assert!(has_warning(&only, "metadata.namespace", "\"kube-system\""));
    // Status, managedFields, annotations and the rest of a cluster's noise warn about nothing.
    assert!(!im.warnings.iter().any(|w| w.path.contains("managedFields")
        || w.path.starts_with("status.") && w.path != "status.allocatable.pods"));
    // Item indexes inside the List point at the object.
    let w = im
        .warnings
        .iter()
        .find(|w| w.loc.name == "kube-proxy")
        .unwrap();
    assert_eq!((w.loc.document, w.loc.item), (1, Some(9)));
}

/// Issue 43, item 1: memory is counted in bytes, as Kubernetes counts it
/// (`resource.Quantity.Value`): a node of 512Ki takes a pod of 100Ki (whole
/// MiB would have made the node 0 and the pod 1Mi), a node of exactly 1G
/// takes a pod of 1G and refuses one byte more, and the export writes each
/// amount as kubectl prints it, reading back to the same bytes.
#[test]
fn memory_is_counted_in_bytes_below_a_mebibyte_and_at_a_byte_over() {
    let node = |name: &str, mem: &str| {
        format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{pin: {name}}}}}\nstatus:\n  allocatable: {{cpu: \"1\", memory: \"{mem}\", pods: \"110\"}}\n---\n")
    };
    let pod = |name: &str, node: &str, mem: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  nodeSelector: {{pin: {node}}}\n  containers:\n  - name: c\n    image: pause\n    resources: {{requests: {{cpu: 10m, memory: \"{mem}\"}}}}\n---\n")
    };
    let text = [
        node("small", "512Ki"),
        node("giga", "1G"),
        node("giga-2", "1e9"),
        pod("tiny", "small", "100Ki"),
        pod("exact", "giga", "1G"),
        pod("over", "giga-2", "1000000001"),
    ]
    .concat();
    let im = import(&text).unwrap();
    let sc = &im.scenario;
    assert_eq!(sc.nodes[0].spec.capacity, Resources::new(1000, 512 << 10));
    assert_eq!(sc.nodes[1].spec.capacity.memory_bytes, 1_000_000_000);
    let c = converge(sc);
    assert_eq!(node_of(&c, "tiny").as_deref(), Some("small"));
    assert_eq!(node_of(&c, "exact").as_deref(), Some("giga"));
    assert_eq!(node_of(&c, "over"), None, "one byte beyond allocatable");
    let out = export(sc);
    for q in [
        "memory: \"512Ki\"",
        "memory: \"1G\"",
        "memory: \"100Ki\"",
        "memory: \"1000000001\"",
    ] {
        assert!(out.contains(q), "{q} in the export:\n{out}");
    }
    let again = import(&out).unwrap().scenario;
    assert_eq!(again.nodes[0].spec.capacity, sc.nodes[0].spec.capacity);
    assert_eq!(
        again
            .pods
            .iter()
            .map(|p| p.template.requests)
            .collect::<Vec<_>>(),
        sc.pods
            .iter()
            .map(|p| p.template.requests)
            .collect::<Vec<_>>()
    );
}

#[test]
fn daemonsets_bare_pods_dotted_node_names_and_toleration_seconds_are_simulated() {
    let im = import(&corpus("workloads.yaml")).unwrap();
    let sc = &im.scenario;
    let names: Vec<_> = sc.nodes.iter().map(|n| n.spec.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ip-10-0-1-17.ec2.internal",
            "ip-10-0-2-44.ec2.internal",
            "ip-10-0-3-9.ec2.internal"
        ]
    );
    assert_eq!(sc.daemonsets.len(), 2);
    assert_eq!(sc.daemonsets[0].max_unavailable, IntOrPercent::Int(2));
    // tolerationSeconds is read (DaemonSet, bare Pod and Deployment alike).
    let secs = |t: &[shepherd::Toleration]| -> Vec<Option<u64>> {
        t.iter().map(|t| t.toleration_seconds).collect()
    };
    assert_eq!(
        secs(&sc.daemonsets[0].template.tolerations),
        [None, Some(3600)]
    );
    assert_eq!(secs(&sc.deployments[0].template.tolerations), [Some(60)]);
    let pods: Vec<_> = sc
        .pods
        .iter()
        .map(|p| (p.name.as_str(), p.node_name.as_deref()))
        .collect();
    assert_eq!(
        pods,
        [
            ("debug", Some("ip-10-0-1-17.ec2.internal")),
            ("load-test", Some("ip-10-0-1-17.ec2.internal")),
            ("scratch", None)
        ]
    );
    assert_eq!(
        secs(&sc.pods[0].template.tolerations),
        [Some(300), Some(300)]
    );
    // The Job's pod has finished, and leftover too: a finished pod takes
    // no room, whoever owns it (its owner is not looked at).
    assert_eq!(im.summary.skipped, vec![("Pod".to_string(), 2)]);
    assert_eq!(im.summary.finished, 2);
    assert!(im
        .warnings
        .iter()
        .any(|w| w.loc.name == "report-29384-x7k2p"
            && w.path == "status.phase"
            && w.message.contains("finished")));
    assert!(has_warning(&im, "status.phase", "finished (Succeeded)"));
    // OnDelete is simulated: read, not warned about.
    assert_eq!(
        sc.daemonsets[1].strategy,
        shepherd::DaemonSetUpdateStrategyType::OnDelete
    );
    assert!(!has_warning(&im, "spec.updateStrategy.type", "OnDelete"));
    assert!(!im
        .warnings
        .iter()
        .any(|w| w.path.contains("tolerationSeconds")
            || w.path.contains("nodeName")
            || w.message.contains("1m cpu")));

    let c = converge(sc);
    // debug is bound by nodeName; load-test does not fit beside it: the
    // kubelet rejects it with OutOfcpu, it stays Failed, and nobody
    // recreates it (the kubelet counts cpu in millicores).
    assert_eq!(
        node_of(&c, "debug").as_deref(),
        Some("ip-10-0-1-17.ec2.internal")
    );
    let load = c.pod_by_name("load-test").unwrap();
    assert_eq!((load.phase, load.node), (shepherd::PodPhase::Failed, None));
    let out = c
        .rendered_events()
        .into_iter()
        .find(|e| e.reason == "OutOfcpu")
        .unwrap();
    assert_eq!(out.object, "pod/load-test");
    assert!(
        out.message
            .contains("requested: 1500, used: 500, capacity: 1930"),
        "{}",
        out.message
    );
    // scratch requests nothing and tolerates nothing: the one untainted node.
    assert_eq!(
        node_of(&c, "scratch").as_deref(),
        Some("ip-10-0-1-17.ec2.internal")
    );
    // node-exporter tolerates both taints: one pod on every node, taking capacity.
    let mut exporters: Vec<_> = c
        .pods()
        .filter(|p| p.app == "node-exporter")
        .filter_map(|p| node_of(&c, &p.name()))
        .collect();
    exporters.sort();
    assert_eq!(exporters, names);
    // gpu-plugin: only the node its nodeSelector picks.
    let gpu: Vec<_> = c
        .pods()
        .filter(|p| p.app == "gpu-plugin")
        .filter_map(|p| node_of(&c, &p.name()))
        .collect();
    assert_eq!(gpu, ["ip-10-0-2-44.ec2.internal"]);
    let n1 = c.node("ip-10-0-1-17.ec2.internal").unwrap();
    assert_eq!(
        n1.allocated.cpu_millis,
        500 + 100 + api_on(&c, n1.name()) * 300
    );
    // api tolerates maintenance for 60 s: it may run on the tainted node, never on the gpu one.
    assert!(c.pending_pods().next().is_none());
    assert_eq!(api_on(&c, "ip-10-0-2-44.ec2.internal"), 0);

    // Out and back in: the same scenario and the same placement.
    let again = import(&export(sc)).unwrap();
    assert_eq!(&again.scenario, sc);
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert_eq!(placement(&converge(&again.scenario)), placement(&c));
}

#[test]
fn the_kwok_export_makes_fake_nodes_every_pod_tolerates_and_places_the_same() {
    let im = import(&corpus("workloads.yaml")).unwrap();
    let text = shepherd_k8s::export_kwok(&im.scenario);
    let kwok = import(&text).unwrap();
    for n in &kwok.scenario.nodes {
        assert_eq!(n.spec.labels.get("type").map(String::as_str), Some("kwok"));
        assert!(n
            .spec
            .taints
            .iter()
            .any(|t| t.to_string() == "kwok.x-k8s.io/node=fake:NoSchedule"));
    }
    assert_eq!(
        text.matches("kwok.x-k8s.io/node: fake").count(),
        3,
        "the annotation on every Node"
    );
    let taint = shepherd::Taint::new(
        "kwok.x-k8s.io/node",
        "fake",
        shepherd::TaintEffect::NoSchedule,
    );
    let sc = &kwok.scenario;
    let templates = sc
        .deployments
        .iter()
        .map(|d| &d.template)
        .chain(sc.daemonsets.iter().map(|d| &d.template))
        .chain(sc.pods.iter().map(|p| &p.template));
    for t in templates {
        assert!(t.tolerates(&taint), "{t:?}");
    }
    // The taint is on every node and tolerated by every pod: the same placement.
    assert_eq!(placement(&converge(sc)), placement(&converge(&im.scenario)));
    // The kubectl script labels and taints nodes of the same names.
    let script = shepherd_k8s::kubectl_node_script(&im.scenario);
    assert!(
        script.contains(
            "kubectl taint node ip-10-0-3-9.ec2.internal --overwrite maintenance:NoExecute"
        ),
        "{script}"
    );
    assert!(
        script.contains("kubectl label node ip-10-0-2-44.ec2.internal --overwrite"),
        "{script}"
    );
}

fn api_on(c: &Cluster, node: &str) -> u64 {
    c.pods()
        .filter(|p| p.app == "api" && node_of(c, &p.name()).as_deref() == Some(node))
        .count() as u64
}

#[test]
fn daemonset_update_strategy_is_read_with_kubernetes_defaults_and_checks() {
    let ds = |strategy: &str| {
        format!("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  minReadySeconds: 5\n  selector:\n    matchLabels:\n      app: agent\n  template:\n    metadata:\n      labels:\n        app: agent\n    spec:\n      containers:\n      - name: a\n        image: a\n{strategy}")
    };
    // No updateStrategy: RollingUpdate, maxUnavailable 1, maxSurge 0.
    let d = &import(&ds("")).unwrap().scenario.daemonsets[0];
    assert_eq!(
        (
            d.strategy,
            d.max_unavailable,
            d.max_surge,
            d.min_ready_seconds
        ),
        (
            shepherd::DaemonSetUpdateStrategyType::RollingUpdate,
            IntOrPercent::Int(1),
            IntOrPercent::Int(0),
            5
        )
    );
    let surge = "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 25%\n      maxUnavailable: 0\n";
    let d = &import(&ds(surge)).unwrap().scenario.daemonsets[0];
    assert_eq!(
        (d.max_unavailable, d.max_surge),
        (IntOrPercent::Int(0), IntOrPercent::Percent(25))
    );
    // maxSurge alone leaves maxUnavailable at its default 1: Kubernetes refuses both set.
    let e = import(&ds(
        "  updateStrategy:\n    rollingUpdate:\n      maxSurge: 1\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("document 1 (DaemonSet agent)")
            && e.contains("maxSurge 1 of DaemonSet agent is set while maxUnavailable is 1"),
        "{e}"
    );
    let e = import(&ds("  updateStrategy:\n    type: Recreate\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("spec.updateStrategy.type") && e.contains("expected RollingUpdate or OnDelete"),
        "{e}"
    );
    // Out again as it came in.
    let sc = import(&ds(surge)).unwrap().scenario;
    let back = import(&shepherd_k8s::export(&sc)).unwrap().scenario;
    assert_eq!(back.daemonsets, sc.daemonsets);
}

/// `spec.template.spec.hostNetwork` of a DaemonSet is read (the DaemonSet
/// controller adds the network-unavailable toleration for it) and written
/// back; elsewhere it is warned about.
#[test]
fn daemonset_host_network_is_read_and_written_back() {
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: cni\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels:\n      app: cni\n  template:\n    metadata:\n      labels:\n        app: cni\n    spec:\n      hostNetwork: true\n      containers:\n      - name: a\n        image: a\n";
    let im = import(ds).unwrap();
    let d = &im.scenario.daemonsets[0];
    assert!(d.host_network);
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let out = shepherd_k8s::export(&im.scenario);
    assert!(out.contains("hostNetwork: true"), "{out}");
    let back = import(&out).unwrap().scenario;
    assert_eq!(back.daemonsets, im.scenario.daemonsets);
    // false is the default: read, and not written.
    let mut off = import(&ds.replace("hostNetwork: true", "hostNetwork: false")).unwrap();
    assert!(!off.scenario.daemonsets[0].host_network);
    // An imported object is written as given (issue 45): the explicit false stays.
    assert!(shepherd_k8s::export(&off.scenario).contains("hostNetwork: false"));
    off.scenario.kept = Default::default();
    assert!(!shepherd_k8s::export(&off.scenario).contains("hostNetwork"));
    // A Deployment's hostNetwork changes nothing simulated: a warning only.
    let dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      hostNetwork: true\n      containers:\n      - name: a\n        image: a\n";
    let im = import(dep).unwrap();
    assert!(
        has_warning(
            &im,
            "spec.template.spec.hostNetwork",
            "host networking is not simulated"
        ),
        "{:?}",
        im.warnings
    );
    // A value of the wrong type names the field.
    let e = import(&ds.replace("hostNetwork: true", "hostNetwork: yes please"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("spec.template.spec.hostNetwork"), "{e}");
}

#[test]
fn daemonset_pod_and_toleration_seconds_errors_name_the_field() {
    let ds = |selector: &str, tol: &str| {
        format!("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels:\n      app: {selector}\n  template:\n    metadata:\n      labels:\n        app: agent\n    spec:\n      tolerations:\n      - key: k\n        operator: Exists\n{tol}      containers:\n      - name: a\n        image: a\n")
    };
    let e = import(&ds("other", "")).unwrap_err().to_string();
    assert!(
        e.contains("document 1 (DaemonSet agent)") && e.contains("spec.selector"),
        "{e}"
    );
    let e = import(&ds(
        "agent",
        "        effect: NoSchedule\n        tolerationSeconds: 30\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("spec.template.spec.tolerations[0].tolerationSeconds")
            && e.contains("expected effect NoExecute"),
        "{e}"
    );
    let e = import(&ds(
        "agent",
        "        effect: NoExecute\n        tolerationSeconds: lots\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("tolerationSeconds: found a string"), "{e}");
    // Negative tolerationSeconds mean "evict at once", as Kubernetes reads them.
    let im = import(&ds(
        "agent",
        "        effect: NoExecute\n        tolerationSeconds: -5\n",
    ))
    .unwrap();
    assert_eq!(
        im.scenario.daemonsets[0].template.tolerations[0].toleration_seconds,
        Some(0)
    );
    // A node name that is not a DNS-1123 subdomain.
    let e = import("apiVersion: v1\nkind: Node\nmetadata:\n  name: ip_10.ec2\nstatus:\n  allocatable:\n    cpu: 1\n    memory: 1Gi\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("DNS-1123 subdomain"), "{e}");
    // A bare Pod and a Deployment of one name: the engine keeps one name per owner.
    let e = import("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: a\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: a\n").unwrap_err().to_string();
    assert!(
        e.contains("document 2 (DaemonSet web)") && e.contains("already declared by document 1"),
        "{e}"
    );
}

#[test]
fn a_helm_stream_reads_effective_requests_not_ready_nodes_and_skips_what_it_must() {
    // A Helm release's stream, taken for its namespace (kubectl's -n):
    // `elsewhere`, in namespace other, is skipped with a warning; without
    // the filter it is imported as other/elsewhere.
    let all = import(&corpus("helm-stream.yaml")).unwrap();
    assert!(all
        .scenario
        .deployments
        .iter()
        .any(|d| d.name == "other/elsewhere"));
    let im = shepherd_k8s::import_with(
        &corpus("helm-stream.yaml"),
        &shepherd_k8s::Options {
            namespace: Some("default".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let sc = &im.scenario;
    let dead = &sc.nodes[1];
    assert!(!dead.ready && dead.spec.taints.is_empty(), "{dead:?}");
    // batch: containers 500m + 250m (limit only, so the limit is the request)
    // + the 100m sidecar = 850m; the migrate init container runs beside the
    // sidecar: 2000m + 100m = 2100m is larger; plus 50m overhead.
    // Memory: 256 + 128 + 64 = 448Mi, plus 10Mi overhead.
    let batch = &sc.deployments[0];
    assert_eq!(batch.template.requests, Resources::new(2150, 458 * MIB));
    // Scored, migrate's missing memory counts 200Mi beside the sidecar's
    // 64Mi (264Mi), still below the containers' 448Mi: the same figures.
    assert_eq!(batch.template.non_zero(), Resources::new(2150, 458 * MIB));
    assert_eq!(
        batch.strategy,
        RollingUpdate {
            max_surge: IntOrPercent::Int(0),
            max_unavailable: IntOrPercent::Percent(100)
        }
    );
    assert_eq!(sc.deployments[1].name, "db");
    assert_eq!(
        sc.deployments[1].template.requests,
        Resources::new(1000, 2048 * MIB)
    );

    let c = converge(sc);
    for p in ["batch-0", "batch-1", "db-0"] {
        assert_eq!(node_of(&c, p).as_deref(), Some("big-1"), "{p}");
    }
    assert_eq!(node_of(&c, "db-1"), None);
    let why = c.pending_reason("db-1").unwrap().unwrap();
    assert!(
        why.contains("didn't match pod topology spread constraints"),
        "{why}"
    );
    assert!(!c.node("dead-1").unwrap().ready);
    // Document numbers count the empty document too.
    let w = im
        .warnings
        .iter()
        .find(|w| w.loc.kind == "ConfigMap")
        .unwrap();
    assert_eq!(w.loc.document, 7);
    // db spreads one per hostname (DoNotSchedule): dead-1 is NotReady but still a
    // domain (nodeTaintsPolicy Ignore counts tainted nodes), so a second db pod on
    // big-1 would make the skew 2.
    assert_eq!(
        sc.deployments[1].template.topology_spread[0].to_string(),
        "maxSkew 1 over kubernetes.io/hostname (DoNotSchedule) of pods app=db"
    );
    assert!(!im
        .warnings
        .iter()
        .any(|w| w.message.contains("not simulated yet: topology")));
    assert!(has_warning(&im, "spec.template.spec.volumes", "volumes"));
    assert!(has_warning(&im, "spec.selector", "no selector"));
    assert!(has_warning(&im, "metadata.namespace", "\"other\""));
    assert!(im
        .warnings
        .iter()
        .any(|w| w.loc.kind == "StatefulSet" && w.message.contains("ordinal")));
}

#[test]
fn json_lists_read_numbers_as_quantities_and_honour_node_selectors() {
    let im = import(&corpus("ssd-list.json")).unwrap();
    assert_eq!(
        im.scenario.deployments[0].template.requests,
        Resources::new(750, 1024 * MIB)
    );
    let c = converge(&im.scenario);
    assert_eq!(node_of(&c, "db-0").as_deref(), Some("ssd-1"));
    assert_eq!(node_of(&c, "db-1").as_deref(), Some("ssd-1"));
    assert_eq!(node_of(&c, "db-2"), None);
    let why = c.pending_reason("db-2").unwrap().unwrap();
    assert!(
        why.contains("Insufficient cpu") && why.contains("node affinity/selector"),
        "{why}"
    );
}

#[test]
fn scheduling_features_and_a_scheduler_configuration_are_simulated() {
    let im = import(&corpus("scheduling-features.yaml")).unwrap();
    let sc = &im.scenario;
    // The profile named default-scheduler, not the first one.
    let p = sc
        .profile
        .as_ref()
        .expect("the KubeSchedulerConfiguration's profile");
    assert_eq!(p.scheduler_name, "default-scheduler");
    assert_eq!(p.percentage_of_nodes_to_score, 100);
    assert_eq!(p.fit.kind, ScoringStrategyType::MostAllocated);
    assert_eq!(p.hard_pod_affinity_weight, 5);
    assert!(
        !p.system_default_spreading,
        "defaultingType List without constraints"
    );
    // multiPoint re-weights NodeResourcesFit in place; score disables BalancedAllocation.
    assert_eq!(
        p.scores,
        vec![
            (Plugin::TaintToleration, 3),
            (Plugin::NodeAffinity, 2),
            (Plugin::NodeResourcesFit, 3),
            (Plugin::PodTopologySpread, 2),
            (Plugin::InterPodAffinity, 2),
        ]
    );
    assert_eq!(p.filters, Profile::kube_scheduler().filters);
    assert_eq!(sc.nodes[3].spec.max_pods, 3);
    let web = &sc.deployments[0];
    assert_eq!(
        web.template.topology_spread[0].selector,
        Selector::default().with_expression(LabelSelectorRequirement::new(
            "app",
            SelectorOperator::In,
            &["web"]
        ))
    );
    assert_eq!(
        sc.deployments[1].template.preferred_anti_affinity[0].weight,
        100
    );
    assert_eq!(
        sc.deployments[1].template.node_affinity.preferred[0].weight,
        50
    );
    assert_eq!(sc.pdbs[0].selector.to_string(), "tier");

    let c = converge(sc);
    let zone = |n: &str| n.split('-').nth(1).unwrap().to_string();
    let mut per_zone = std::collections::BTreeMap::new();
    for i in 0..6 {
        let n = node_of(&c, &format!("web-{i}")).expect("every web pod is placed");
        *per_zone.entry(zone(&n)).or_insert(0) += 1;
    }
    assert_eq!(
        per_zone.values().copied().collect::<Vec<_>>(),
        [2, 2, 2],
        "maxSkew 1 over three zones"
    );
    for i in 0..3 {
        let n = node_of(&c, &format!("cache-{i}")).expect("every cache pod is placed");
        assert!(
            n.ends_with("-1"),
            "cache-{i} on {n}: only the ssd nodes are allowed"
        );
    }
    // pinned: matchFields metadata.name = node-b-2, which admits 3 pods (two are web's).
    assert_eq!(node_of(&c, "pinned-0").as_deref(), Some("node-b-2"));
    for i in 1..4 {
        let why = c.pending_reason(&format!("pinned-{i}")).unwrap().unwrap();
        assert!(
            why.contains("1 Too many pods")
                && why.contains("5 node(s) didn't match Pod's node affinity/selector"),
            "{why}"
        );
    }
    for (path, words) in [
        ("podMaxBackoffSeconds", "not simulated"),
        ("profiles[0]", "\"batch-scheduler\" is not simulated"),
        (
            "profiles[1].plugins.score.enabled[0].name",
            "ImageLocality is not simulated",
        ),
        (
            "profiles[1].plugins.score.enabled[1].name",
            "Coscheduling is not simulated",
        ),
        (
            "spec.template.spec.topologySpreadConstraints[0].matchLabelKeys",
            "not simulated",
        ),
    ] {
        assert!(
            has_warning(&im, path, words),
            "{path}: {words}\n{:#?}",
            im.warnings
        );
    }
    assert_eq!(im.warnings.len(), 5, "{:#?}", im.warnings);
    assert!(!im
        .warnings
        .iter()
        .any(|w| w.message.contains("not simulated yet")));
}

fn config(plugins: &str, args: &str) -> Result<Profile, String> {
    let text = format!("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n{plugins}  pluginConfig:\n{args}");
    let text = text.replace("  pluginConfig:\n\n", "").replace(
        "  pluginConfig:\n",
        if args.is_empty() {
            ""
        } else {
            "  pluginConfig:\n"
        },
    );
    import(&text)
        .map(|im| im.scenario.profile.unwrap())
        .map_err(|e| e.to_string())
}

#[test]
fn plugin_sets_merge_and_expand_as_kube_scheduler_does() {
    let default = Profile::kube_scheduler();
    // Nothing configured: the default profile.
    assert_eq!(config("    {}\n", "").unwrap(), default);
    // A score weight given at the score point overrides multiPoint's; order kept.
    let p = config(
        "    score:\n      enabled:\n      - name: NodeAffinity\n        weight: 7\n",
        "",
    )
    .unwrap();
    assert_eq!(p.weight(Plugin::NodeAffinity), Some(7));
    assert_eq!(
        p.scores[0].0,
        Plugin::NodeAffinity,
        "an override comes first at its point"
    );
    // Disabling a plugin at filter keeps its score, and the reverse.
    let p = config(
        "    filter:\n      disabled:\n      - name: TaintToleration\n",
        "",
    )
    .unwrap();
    assert!(
        !p.filter_enabled(Plugin::TaintToleration) && p.weight(Plugin::TaintToleration) == Some(3)
    );
    let p = config("    score:\n      disabled:\n      - name: \"*\"\n", "").unwrap();
    assert!(p.scores.is_empty() && p.filters == default.filters);
    // multiPoint '*' disabled, one plugin enabled: it alone runs, weight 0 reads as 1.
    let p = config("    multiPoint:\n      disabled:\n      - name: \"*\"\n      enabled:\n      - name: NodeResourcesFit\n", "").unwrap();
    assert_eq!(
        (p.filters.clone(), p.scores.clone()),
        (
            vec![Plugin::NodeResourcesFit],
            vec![(Plugin::NodeResourcesFit, 1)]
        )
    );
    // RequestedToCapacityRatio with its shape, and the other arguments.
    let p = config(
        "    {}\n",
        "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n        resources:\n        - name: cpu\n          weight: 2\n        requestedToCapacityRatio:\n          shape:\n          - utilization: 0\n            score: 0\n          - utilization: 100\n            score: 10\n",
    )
    .unwrap();
    assert_eq!(
        p.fit,
        ScoringStrategy {
            resources: vec![(shepherd::Resource::Cpu, 2)],
            ..ScoringStrategy::requested_to_capacity_ratio(&[(0, 0), (100, 10)])
        }
    );
    // Refusals name the field.
    for (plugins, args, words) in [
        ("    filter:\n      disabled:\n      - name: NodeResourcesFit\n", "", &["profiles[0]", "NodeResourcesFit filter is disabled"][..]),
        ("    score:\n      enabled:\n      - name: NodeAffinity\n        weight: 101\n", "", &["profiles[0].plugins.score.enabled[0].weight", "from 0 to 100"][..]),
        ("    {}\n", "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Fancy\n", &["scoringStrategy.type", "\"Fancy\"", "LeastAllocated"][..]),
        ("    {}\n", "  - name: PodTopologySpread\n    args:\n      defaultConstraints:\n      - maxSkew: 1\n", &["defaultConstraints", "defaultingType List"][..]),
    ] {
        let e = config(plugins, args).unwrap_err();
        for w in words {
            assert!(e.contains(w), "{e:?} should contain {w:?}");
        }
    }
    let e = import("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 101\n").unwrap_err().to_string();
    assert!(
        e.contains("percentageOfNodesToScore") && e.contains("from 0 to 100"),
        "{e}"
    );
}

/// A missing labelSelector is labels.Nothing() in Kubernetes
/// (metav1.LabelSelectorAsSelector(nil)), unlike `{}` (Everything): a
/// spread constraint without one counts no pods, yet DoNotSchedule still
/// refuses a node without its topology key; a required affinity term
/// without one holds nowhere (the pod does not match it either). Both are
/// simulated and written back without a selector.
#[test]
fn a_missing_label_selector_selects_no_pods_as_in_kubernetes() {
    let nodes = "apiVersion: v1\nkind: Node\nmetadata:\n  name: zoned\n  labels:\n    topology.kubernetes.io/zone: a\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n    pods: \"110\"\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: bare\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n    pods: \"110\"\n";
    let dep = |name: &str, extra: &str| {
        format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n{extra}      containers:\n      - name: a\n        image: a\n        resources:\n          requests:\n            cpu: 100m\n")
    };
    let spread = "      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: topology.kubernetes.io/zone\n        whenUnsatisfiable: DoNotSchedule\n";
    let affinity = "      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - topologyKey: kubernetes.io/hostname\n";
    let text = format!(
        "{nodes}{}{}",
        dep("spread", spread),
        dep("affine", affinity)
    );
    let im = import(&text).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let c = converge(&im.scenario);
    let p = placement(&c);
    // All three spread pods on the zoned node: counting nothing, every skew
    // is 0, and the bare node lacks the key (with the constraint skipped, as
    // Shepherd did before, all three went to the bare node).
    for (pod, node) in p.iter().filter(|(n, _)| n.starts_with("spread-")) {
        assert_eq!(node.as_deref(), Some("zoned"), "{pod}");
    }
    // The affinity pods match no pod, not even themselves: Pending.
    for (pod, node) in p.iter().filter(|(n, _)| n.starts_with("affine-")) {
        assert_eq!(node, &None, "{pod}");
    }
    // Out without a selector, and back the same.
    let out = export(&im.scenario);
    assert!(!out.contains("labelSelector"), "{out}");
    let back = import(&out).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.scenario.deployments, im.scenario.deployments);
    // `{}` is not the same: it counts every pod of the namespace.
    let everything = import(&text.replace(
        "whenUnsatisfiable: DoNotSchedule\n",
        "whenUnsatisfiable: DoNotSchedule\n        labelSelector: {}\n",
    ))
    .unwrap();
    let sel = &everything.scenario.deployments[0].template.topology_spread[0].selector;
    assert!(sel.match_labels.is_empty() && sel.match_expressions.is_empty());
}

#[test]
fn affinity_and_spread_errors_name_the_field() {
    let with = |spec: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n{spec}      containers:\n      - name: c\n        resources:\n          requests:\n            cpu: 1\n")
    };
    for (spec, words) in [
        ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms: []\n", &["nodeSelectorTerms", "at least one node selector term"][..]),
        ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - key: gen\n                operator: Gt\n                values: [a]\n", &["nodeSelectorTerms[0].matchExpressions[0]", "an integer"][..]),
        ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchFields:\n              - key: metadata.labels\n                operator: In\n                values: [a]\n", &["matchFields[0]", "metadata.name"][..]),
        ("      affinity:\n        podAntiAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n          - weight: 0\n            podAffinityTerm:\n              topologyKey: zone\n", &["preferredDuringSchedulingIgnoredDuringExecution[0].weight", "from 1 to 100"][..]),
        ("      topologySpreadConstraints:\n      - maxSkew: 0\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n", &["topologySpreadConstraints[0].maxSkew", "from 1"][..]),
        ("      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: Sometimes\n", &["whenUnsatisfiable", "DoNotSchedule or ScheduleAnyway"][..]),
        ("      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n        nodeTaintsPolicy: honor\n", &["topologySpreadConstraints[0].nodeTaintsPolicy", "Honor or Ignore"][..]),
        ("      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: ScheduleAnyway\n        minDomains: 2\n        labelSelector: {}\n", &["topologySpreadConstraints[0]", "minDomains", "only with DoNotSchedule"][..]),
        ("      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - topologyKey: zone\n            labelSelector:\n              matchExpressions:\n              - key: app\n                operator: Exists\n                values: [x]\n", &["labelSelector.matchExpressions[0]", "must be empty for Exists"][..]),
    ] {
        let e = import(&with(spec)).unwrap_err().to_string();
        for w in words {
            assert!(e.contains(w), "{e:?} should contain {w:?}");
        }
    }
}

#[test]
fn spread_inclusion_policies_are_read_simulated_and_written_back() {
    // nodeAffinityPolicy and nodeTaintsPolicy (GA): read as given, null or
    // missing as Kubernetes' defaults (Honor, Ignore), written back only
    // when they are not the defaults, and no longer warned about.
    let manifest = |policies: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n        labelSelector:\n          matchLabels:\n            app: web\n{policies}      containers:\n      - name: c\n        resources:\n          requests:\n            cpu: 1\n")
    };
    use shepherd::model::NodeInclusionPolicy::{Honor, Ignore};
    for (policies, want) in [
        ("", (Honor, Ignore)),
        (
            "        nodeAffinityPolicy: null\n        nodeTaintsPolicy: null\n",
            (Honor, Ignore),
        ),
        (
            "        nodeAffinityPolicy: Ignore\n        nodeTaintsPolicy: Honor\n",
            (Ignore, Honor),
        ),
        ("        nodeTaintsPolicy: Honor\n", (Honor, Honor)),
    ] {
        let im = import(&manifest(policies)).unwrap();
        let c = &im.scenario.deployments[0].template.topology_spread[0];
        assert_eq!(
            (c.node_affinity_policy, c.node_taints_policy),
            want,
            "{policies:?}"
        );
        assert!(
            !im.warnings
                .iter()
                .any(|w| w.message.contains("not simulated")),
            "{:?}",
            im.warnings
        );
        let out = export(&im.scenario);
        assert_eq!(
            out.contains("nodeAffinityPolicy: Ignore"),
            want.0 == Ignore,
            "{out}"
        );
        assert_eq!(
            out.contains("nodeTaintsPolicy: Honor"),
            want.1 == Honor,
            "{out}"
        );
        assert!(
            !out.contains("nodeAffinityPolicy: Honor") && !out.contains("nodeTaintsPolicy: Ignore")
        );
        let again = import(&out).unwrap();
        assert_eq!(
            again.scenario.deployments[0].template.topology_spread[0],
            *c
        );
    }
}

/// Quantity.UnmarshalJSON trims white space before ParseQuantity; kubectl's
/// JSON escapes a tab or a newline, which then stays and is refused (both
/// checked against the API server's decoding by the oracle).
#[test]
fn quantities_are_trimmed_as_the_api_server_trims_them() {
    let im = import(&format!(
        "{}---\n{}",
        NODE.replace("cpu: \"4\"", "cpu: \" 4 \""),
        deployment("1", "\"\u{a0}500m\u{3000}\"")
    ))
    .unwrap();
    assert_eq!(im.scenario.deployments[0].template.requests.cpu_millis, 500);
    let e = import(&format!("{NODE}---\n{}", deployment("1", "\"\\t500m\"")))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("requests.cpu") && e.contains("is not a quantity"),
        "{e}"
    );
}

const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n";

fn deployment(replicas: &str, cpu: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n        resources:\n          requests:\n            cpu: {cpu}\n"
    )
}

#[test]
fn min_ready_and_progress_deadline_are_imported_and_exported() {
    let text = deployment("2", "1").replace(
        "  replicas: 2\n",
        "  replicas: 2\n  minReadySeconds: 10\n  progressDeadlineSeconds: 120\n",
    );
    let im = import(&format!("{NODE}---\n{text}")).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let d = &im.scenario.deployments[0];
    assert_eq!(
        (d.min_ready_seconds, d.progress_deadline_seconds),
        (10, 120)
    );
    let out = export(&im.scenario);
    assert!(out.contains("minReadySeconds: 10"), "{out}");
    assert!(out.contains("progressDeadlineSeconds: 120"), "{out}");
    // Kubernetes' defaults are not written out, and come back as defaults.
    let plain = import(&format!("{NODE}---\n{}", deployment("2", "1"))).unwrap();
    let d = &plain.scenario.deployments[0];
    assert_eq!((d.min_ready_seconds, d.progress_deadline_seconds), (0, 600));
    let out = export(&plain.scenario);
    assert!(!out.contains("minReadySeconds") && !out.contains("progressDeadlineSeconds"));
    // A ReplicaSet has no progress deadline: simulated as a Deployment without one.
    let rs = deployment("2", "1")
        .replace("kind: Deployment", "kind: ReplicaSet")
        .replace("  replicas: 2\n", "  replicas: 2\n  minReadySeconds: 5\n");
    let im = import(&format!("{NODE}---\n{rs}")).unwrap();
    let d = &im.scenario.deployments[0];
    assert_eq!(
        (d.min_ready_seconds, d.progress_deadline_seconds),
        (5, shepherd::model::NO_PROGRESS_DEADLINE)
    );
}

#[test]
fn bad_values_name_the_document_the_object_the_field_what_was_found_and_what_was_expected() {
    let cases: Vec<(String, &[&str])> = vec![
        (format!("{NODE}---\n{}", deployment("three", "1")), &["document 2 (Deployment web)", "spec.replicas", "found a string (\"three\")", "expected a whole number"]),
        (format!("{NODE}---\n{}", deployment("2", "lots")), &["document 2 (Deployment web)", "spec.template.spec.containers[0].resources.requests.cpu", "\"lots\" is not a quantity", "expected cores"]),
        (format!("{NODE}---\n{}", deployment("-1", "1")), &["spec.replicas", "found an integer (-1)", "expected a whole number from 0"]),
        (format!("{NODE}---\n{}", deployment("1", "1e999")), &["requests.cpu", "expected"]),
        (format!("{NODE}---\n{}", deployment("1", "99999999999999999999999")), &["requests.cpu", "too large"]),
        (NODE.replace("cpu: \"4\"", "cpu: [4]"), &["document 1 (Node n1)", "status.allocatable.cpu", "found a list", "expected a quantity"]),
        (NODE.replace("name: n1", "name: N_1"), &["document 1 (Node N_1)", "the engine refused it", "expected"]),
        (NODE.replace("  name: n1\n", "  labels: {}\n"), &["document 1 (Node)", "metadata.name", "missing"]),
        (format!("{NODE}---\n{NODE}"), &["document 2 (Node n1)", "already declared by document 1", "expected each name once"]),
        (format!("{NODE}---\nkind: [unclosed\n"), &["document 2", "cannot be read"]),
        (format!("{NODE}spec:\n  taints:\n  - key: a\n    effect: Sometimes\n"), &["spec.taints[0].effect", "\"Sometimes\"", "NoSchedule, PreferNoSchedule or NoExecute"]),
        (deployment("1", "1").replace("apps/v1", "extensions/v1beta1"), &["apiVersion", "expected \"apps/v1\""]),
        (deployment("1", "1").replace("      app: web\n  template", "      app: api\n  template"), &["spec.selector.matchLabels", "does not match the template's labels"]),
        ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: web\n".into(), &["(PodDisruptionBudget p)", "both minAvailable and maxUnavailable"]),
        ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 150%\n".into(), &["spec.minAvailable", "\"150%\"", "\"0%\" to \"100%\""]),
        (deployment("1", "1").replace("  replicas: 1\n", "  replicas: 1\n  minReadySeconds: 10\n  progressDeadlineSeconds: 5\n"), &["(Deployment web)", "progressDeadlineSeconds 5 must be greater than minReadySeconds 10"]),
        (deployment("1", "1").replace("  replicas: 1\n", "  replicas: 1\n  minReadySeconds: -3\n"), &["spec.minReadySeconds", "found an integer (-3)", "expected a whole number from 0 to 2147483647"]),
        (deployment("1", "1").replace("  replicas: 1\n", "  replicas: 1\n  progressDeadlineSeconds: 4294967296\n"), &["spec.progressDeadlineSeconds", "expected a whole number from 0 to 2147483647"]),
        ("a: 1\na: 2\n".into(), &["document 1", "appears twice"]),
        ("just a string\n".into(), &["document 1", "expected a Kubernetes object"]),
        ("{\"kind\": \"Node\", \"apiVersion\": \"v1\", \"metadata\": {\"name\": 5}}".into(), &["metadata.name", "found an integer (5)", "expected a string"]),
    ];
    for (text, words) in cases {
        let e = match import(&text) {
            Err(e) => e.to_string(),
            Ok(im) => panic!("accepted:\n{text}\n{:?}", im.scenario),
        };
        for w in words {
            assert!(e.contains(w), "{e:?} should contain {w:?}\ninput:\n{text}");
        }
    }
}

#[test]
fn size_limits_refuse_oversized_input_with_a_message() {
    let tight = Options {
        limits: Limits {
            max_bytes: 100,
            max_documents: 2,
            max_objects: 2,
        },
        ..Options::default()
    };
    let e = import_with(&"#".repeat(101), &tight)
        .unwrap_err()
        .to_string();
    assert!(e.contains("101 bytes") && e.contains("at most 100"), "{e}");
    let roomy = Options {
        limits: Limits {
            max_bytes: 1 << 20,
            ..tight.limits
        },
        ..Options::default()
    };
    let e = import_with(&format!("{NODE}---\n{NODE}---\n{NODE}"), &roomy)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 2 documents"), "{e}");
    let list = "kind: List\napiVersion: v1\nitems: [{}, {}, {}]\n".to_string();
    let e = import_with(&list, &roomy).unwrap_err().to_string();
    assert!(e.contains("more than 2 objects"), "{e}");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(import(&deep)
        .unwrap_err()
        .to_string()
        .contains("document 1"));
    let deep_yaml: String = (0..500)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    assert!(import(&deep_yaml).is_err());
}

fn fuzz_ops(default: u64) -> u64 {
    std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `f` for every seed, printing the seed and the command that reproduces it on failure.
fn sweep(test: &str, default: u64, f: impl Fn(u64)) {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_MANIFEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(s) => vec![s],
        None => (0..fuzz_ops(default)).collect(),
    };
    for seed in seeds {
        if catch_unwind(AssertUnwindSafe(|| f(seed))).is_err() {
            panic!("seed {seed} failed; reproduce with SHEPHERD_MANIFEST_SEED={seed} cargo test -p shepherd-k8s --test manifests {test}");
        }
    }
}

/// A random scenario with everything the export writes: labels, taints,
/// cordoned and NotReady nodes, constraints, strategies, versions, readiness
/// delays, budgets and Services.
/// A Pod of the given containers (YAML list items, indented two spaces),
/// init containers (the same) and other spec fields (indented two), pending.
fn pod_yaml(name: &str, init: &str, containers: &str) -> String {
    let (extra, init) = match init.split_once("@@") {
        Some((extra, init)) => (extra, init),
        None => ("", init),
    };
    let init = if init.is_empty() {
        String::new()
    } else {
        format!("  initContainers:\n{init}")
    };
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{extra}{init}  containers:\n{containers}"
    )
}

/// kube-scheduler's non-zero defaults (100m cpu, 200Mi memory) go to each
/// container, init containers too, that sets no request for the resource
/// (framework/types.go CalculateResource with getNonMissingContainerRequests;
/// component-helpers PodRequests' NonMissingContainerRequests: "If the
/// requests for those resources are explicitly set, even if zero, they will
/// not be modified"). A limit stands in for a missing request (the API
/// server's defaulting), so it sets it.
#[test]
fn explicit_zeros_and_each_containers_missing_requests_are_scored_as_kube_scheduler_does() {
    let node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n    pods: \"110\"\n";
    let c = |name: &str, requests: &str| {
        format!("  - name: {name}\n    image: pause\n    resources:\n      requests: {requests}\n")
    };
    let bare = |name: &str| format!("  - name: {name}\n    image: pause\n");
    // (pod, init containers, containers, requests, scored requests)
    #[allow(clippy::type_complexity)]
    let rows: Vec<(&str, String, String, (u64, u64), (u64, u64))> = vec![
        // Both set to 0: nothing for the scores either.
        ("zeros", String::new(), c("a", "{cpu: \"0\", memory: \"0\"}"), (0, 0), (0, 0)),
        // Nothing set: the defaults, as one container always had them.
        ("besteffort", String::new(), bare("a"), (0, 0), (100, 200)),
        // cpu 0 set, memory missing.
        ("cpu-zero", String::new(), c("a", "{cpu: \"0\"}"), (0, 0), (0, 200)),
        // Two containers, one without memory: 200Mi more for the scores.
        (
            "two",
            String::new(),
            c("a", "{cpu: 100m}") + &c("b", "{cpu: 100m, memory: 1Gi}"),
            (200, 1024),
            (200, 1224),
        ),
        // Three containers without requests: three times the defaults.
        (
            "three",
            String::new(),
            bare("a") + &bare("b") + &bare("c"),
            (0, 0),
            (300, 600),
        ),
        // A limit sets the request: no default.
        (
            "limit",
            String::new(),
            "  - name: a\n    image: pause\n    resources:\n      limits: {cpu: 300m}\n".to_string()
                + &c("b", "{cpu: 100m, memory: 64Mi}"),
            (400, 64),
            (400, 264),
        ),
        // An init container without memory: its 200Mi is the larger.
        (
            "init",
            c("i", "{cpu: \"1\"}"),
            c("a", "{cpu: 100m, memory: 64Mi}"),
            (1000, 64),
            (1000, 200),
        ),
        // After kube-scheduler's TestNodeInfoAddPod (framework/types_test.go):
        // a 200m container without memory and an overhead of 500m (and
        // 1Mi here for its 500 bytes): 700m and the overhead's memory,
        // scored with the container's 200Mi on top.
        (
            "overhead",
            "  overhead: {cpu: 500m, memory: 1Mi}\n@@".to_string(),
            c("a", "{cpu: 200m}"),
            (700, 1),
            (700, 201),
        ),
        // The same with an init container of 500m / 200Mi: it is the
        // larger for both forms.
        (
            "overhead-init",
            "  overhead: {cpu: 500m, memory: 1Mi}\n@@".to_string() + &c("i", "{cpu: 500m, memory: 200Mi}"),
            c("a", "{cpu: 200m}"),
            (1000, 201),
            (1000, 201),
        ),
        // A sidecar without cpu counts 100m beside the containers.
        (
            "sidecar",
            "  - name: s\n    image: pause\n    restartPolicy: Always\n    resources:\n      requests: {memory: 32Mi}\n".to_string(),
            c("a", "{cpu: 250m, memory: 64Mi}"),
            (250, 96),
            (350, 96),
        ),
    ];
    let mut text = node.to_string();
    for (name, init, containers, _, _) in &rows {
        text.push_str(&pod_yaml(name, init, containers));
    }
    let im = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let sc = &im.scenario;
    for (name, _, _, req, scored) in &rows {
        let p = sc
            .pods
            .iter()
            .find(|p| p.name == *name)
            .unwrap_or_else(|| panic!("{name} imported"));
        assert_eq!(
            p.template.requests,
            Resources::new(req.0, req.1 * MIB),
            "{name}"
        );
        assert_eq!(
            p.template.non_zero(),
            Resources::new(scored.0, scored.1 * MIB),
            "{name}"
        );
    }
    // The issue's case: a 4-cpu 8Gi node and a pod asking for cpu "0" and
    // memory "0": LeastAllocated 100 (97 with the defaults).
    let mut one = node.to_string();
    one.push_str(&pod_yaml(
        "zeros",
        "",
        &c("a", "{cpu: \"0\", memory: \"0\"}"),
    ));
    let cl = converge(&import(&one).unwrap().scenario);
    let e = cl.explain("zeros", Profile::kube_scheduler()).unwrap();
    let fit = e.nodes[0]
        .scores
        .iter()
        .find(|s| s.plugin == "NodeResourcesFit")
        .unwrap();
    assert_eq!(fit.raw, 100);
    // Written back and read again, the figures are the same.
    let back = import(&export(sc)).unwrap();
    for (name, _, _, req, scored) in &rows {
        let p = back.scenario.pods.iter().find(|p| p.name == *name).unwrap();
        assert_eq!(
            p.template.requests,
            Resources::new(req.0, req.1 * MIB),
            "{name}"
        );
        assert_eq!(
            p.template.non_zero(),
            Resources::new(scored.0, scored.1 * MIB),
            "{name}"
        );
    }
    // The objects are written as given (issue 45), so the import of the
    // export says what the import said (the limits it does not simulate).
    let said = |w: &[shepherd_k8s::Warning]| {
        w.iter()
            .map(|w| (w.loc.name.clone(), w.path.clone(), w.message.clone()))
            .collect::<Vec<_>>()
    };
    let first = said(&im.warnings);
    let again = said(&back.warnings);
    assert!(
        again.iter().all(|w| first.contains(w)),
        "{again:?} not in {first:?}"
    );
}

/// The template with scored requests a manifest's containers could give:
/// each resource's request `R` and scored `N = R + x`, where `x` is 0 or
/// makes `N - k D` at least 0 for the fewest `k` defaults `D` reaching it
/// (as containers that set a part and miss the rest give).
fn scored(rng: &mut Prng, t: shepherd::PodTemplate) -> shepherd::PodTemplate {
    let r = t.requests;
    let pick = |rng: &mut Prng, r: u64, d: u64| {
        let x = match rng.below(3) {
            0 => 0,
            1 => d * rng.range(1, 3),
            _ => rng.range(1, 2 * d),
        };
        let n = r + x;
        if n >= x.div_ceil(d) * d {
            n
        } else {
            r
        }
    };
    let n = Resources::new(
        pick(rng, r.cpu_millis, 100),
        pick(rng, r.memory_bytes, 200 * MIB),
    );
    t.with_scored_requests(r, n)
}

fn random_scenario(seed: u64) -> Scenario {
    let mut rng = Prng::new(seed);
    let nodes = rng.range(1, 12) as u32;
    let apps = rng.range(0, 8) as u32;
    let w = generate(&mut rng, &WorkloadConfig::small(nodes, apps));
    let pct = |rng: &mut Prng| {
        if rng.chance(50) {
            IntOrPercent::Percent(rng.range(0, 100) as u32)
        } else {
            IntOrPercent::Int(rng.range(0, 5) as u32)
        }
    };
    let mut sc = Scenario {
        nodes: w
            .nodes
            .into_iter()
            .map(|mut spec| {
                if rng.chance(30) {
                    spec.max_pods = rng.range(1, 20) as u32;
                }
                ImportedNode {
                    spec,
                    unschedulable: rng.chance(15),
                    ready: !rng.chance(10),
                }
            })
            .collect(),
        ..Scenario::default()
    };
    // Namespaces: some scenarios spread their objects over shop, blog and
    // kube-system (declared, with labels a namespaceSelector reads).
    let spaced = rng.chance(50);
    if spaced {
        sc.namespaces = vec![
            shepherd::NamespaceSpec::new("shop").with_label("team", "a"),
            shepherd::NamespaceSpec::new("blog").with_label("team", "b"),
            shepherd::NamespaceSpec::new("kube-system"),
        ];
    }
    let spaces = ["default", "shop", "blog"];
    let mut apps: Vec<shepherd::DeploymentSpec> = Vec::new();
    for d in w.apps {
        if spaced && rng.chance(30) {
            // The same Deployment in blog as well: two of one name.
            let mut twin = d.clone();
            twin.name = shepherd::namespace::qualify("blog", &d.name);
            apps.push(twin);
        }
        let mut d = d;
        if spaced {
            let ns = spaces[rng.below(3) as usize];
            if !apps
                .iter()
                .any(|a| a.name == shepherd::namespace::qualify(ns, &d.name))
            {
                d.name = shepherd::namespace::qualify(ns, &d.name);
            }
            if rng.chance(40) {
                let term = AffinityTerm::new(
                    Selector {
                        match_labels: d.template.labels.clone(),
                        ..Default::default()
                    },
                    None,
                );
                let term = match rng.below(4) {
                    0 => term.in_namespaces(&["blog"]),
                    1 => term.with_namespace_selector(Selector::default()),
                    2 => term.with_namespace_selector(Selector::new(&[("team", "a")])),
                    _ => term
                        .in_namespaces(&["default"])
                        .with_namespace_selector(Selector::new(&[("team", "b")])),
                };
                d.template
                    .preferred_anti_affinity
                    .push(WeightedAffinityTerm {
                        weight: rng.range(1, 100) as i32,
                        term,
                    });
            }
        }
        apps.push(d);
    }
    for mut d in apps {
        d.strategy = RollingUpdate {
            max_surge: pct(&mut rng),
            max_unavailable: IntOrPercent::Int(rng.range(1, 3) as u32),
        };
        d.template.version = format!("v{}", rng.range(1, 9));
        d.template.ready_after = rng.range(0, 3) as u32;
        if rng.chance(30) {
            d.min_ready_seconds = rng.range(1, 30) as u32;
        }
        if rng.chance(30) {
            d.progress_deadline_seconds = rng.range(d.min_ready_seconds as u64 + 1, 1200) as u32;
        }
        if rng.chance(30) {
            d.template.requests.memory_bytes = 0;
        }
        if rng.chance(30) {
            d.template = scored(&mut rng, d.template.clone());
        }
        if rng.chance(40) {
            let budget = if rng.chance(50) {
                Budget::MinAvailable(pct(&mut rng))
            } else {
                Budget::MaxUnavailable(pct(&mut rng))
            };
            sc.pdbs.push(PdbSpec {
                // In the Deployment's namespace (its key's prefix).
                name: format!("{}-pdb", d.name),
                selector: Selector {
                    match_labels: d.template.labels.clone(),
                    ..Default::default()
                },
                budget,
            });
        }
        let zone = "topology.kubernetes.io/zone";
        if rng.chance(25) {
            d.template.node_affinity = NodeAffinity {
                required: rng.chance(50).then(|| {
                    vec![NodeSelectorTerm {
                        match_expressions: vec![NodeSelectorRequirement::new(
                            zone,
                            NodeSelectorOperator::NotIn,
                            &["zone-z"],
                        )],
                        match_fields: if rng.chance(30) {
                            vec![NodeSelectorRequirement::new(
                                "metadata.name",
                                NodeSelectorOperator::NotIn,
                                &["node-0"],
                            )]
                        } else {
                            Vec::new()
                        },
                    }]
                }),
                preferred: vec![PreferredSchedulingTerm {
                    weight: rng.range(1, 100) as i32,
                    preference: NodeSelectorTerm {
                        match_expressions: vec![NodeSelectorRequirement::new(
                            zone,
                            NodeSelectorOperator::Exists,
                            &[],
                        )],
                        match_fields: Vec::new(),
                    },
                }],
            };
        }
        if rng.chance(25) {
            let sel = Selector {
                match_labels: d.template.labels.clone(),
                ..Default::default()
            }
            .with_expression(LabelSelectorRequirement::new(
                "tier",
                SelectorOperator::DoesNotExist,
                &[],
            ));
            let mut c = TopologySpreadConstraint::new(
                rng.range(1, 3) as u32,
                zone,
                WhenUnsatisfiable::DoNotSchedule,
                sel.clone(),
            );
            if rng.chance(50) {
                c.min_domains = Some(rng.range(1, 4) as u32);
            }
            // The inclusion policies from a stream of their own (the rest
            // of the scenario stays what the seed made before them).
            let mut pol = Prng::new(seed ^ d.template.topology_spread.len() as u64 ^ 0x9011);
            if pol.chance(50) {
                use shepherd::model::NodeInclusionPolicy::{Honor, Ignore};
                c = c.with_policies(*pol.pick(&[Honor, Ignore]), *pol.pick(&[Honor, Ignore]));
            }
            d.template.topology_spread.push(c);
            d.template
                .preferred_anti_affinity
                .push(WeightedAffinityTerm {
                    weight: rng.range(1, 100) as i32,
                    term: AffinityTerm::new(sel, None),
                });
        }
        if rng.chance(50) {
            sc.services.push(ServiceSpec {
                name: format!("{}-svc", d.name),
                selector: Selector {
                    match_labels: d.template.labels.clone(),
                    ..Default::default()
                },
            });
        }
        sc.deployments.push(d);
    }
    // DaemonSets (some with a node selector, a toleration for a while, or no
    // requests) and bare Pods (some bound by nodeName, some too big for it).
    for i in 0..rng.range(0, 3) {
        let mut t =
            shepherd::PodTemplate::new(Resources::new(rng.range(0, 300), rng.range(0, 256) * MIB))
                .with_label("ds", &format!("ds-{i}"));
        if rng.chance(25) {
            t = scored(&mut rng, t);
        }
        let zones: Vec<String> = sc
            .nodes
            .iter()
            .filter_map(|n| n.spec.labels.get("topology.kubernetes.io/zone").cloned())
            .collect();
        if !zones.is_empty() && rng.chance(40) {
            let z = zones[rng.below(zones.len() as u64) as usize].clone();
            t = t.with_node_selector("topology.kubernetes.io/zone", &z);
        }
        if rng.chance(40) {
            t = t.with_toleration(
                shepherd::Toleration::exists("maintenance", Some(shepherd::TaintEffect::NoExecute))
                    .for_seconds(rng.range(0, 3600)),
            );
        }
        let name = format!("agent-{i}.v1");
        let name = if spaced && i == 0 {
            shepherd::namespace::qualify("kube-system", &name)
        } else {
            name
        };
        let mut d = shepherd::DaemonSetSpec::new(&name, t);
        d.max_unavailable = IntOrPercent::Int(rng.range(1, 3) as u32);
        match rng.below(4) {
            0 => d = d.with_surge(IntOrPercent::Percent(rng.range(1, 100) as u32)),
            1 => d = d.on_delete(),
            _ => {}
        }
        d.min_ready_seconds = rng.range(0, 30) as u32;
        d.host_network = rng.chance(30);
        sc.daemonsets.push(d);
    }
    for i in 0..rng.range(0, 3) {
        let node_name = if !sc.nodes.is_empty() && rng.chance(60) {
            Some(
                sc.nodes[rng.below(sc.nodes.len() as u64) as usize]
                    .spec
                    .name
                    .clone(),
            )
        } else {
            None
        };
        sc.pods.push(shepherd::BarePodSpec {
            name: if spaced && i == 1 {
                format!("shop/debug-{i}")
            } else {
                format!("debug-{i}")
            },
            template: shepherd::PodTemplate::new(Resources::new(
                rng.range(0, 3000),
                rng.range(0, 2048) * MIB,
            ))
            .with_label("run", &format!("debug-{i}")),
            node_name,
        });
    }
    if rng.chance(30) {
        let mut p = Profile::kube_scheduler();
        p.scores.retain(|_| rng.chance(70));
        for (_, w) in p.scores.iter_mut() {
            *w = rng.range(1, 100) as i64;
        }
        p.fit = if rng.chance(50) {
            ScoringStrategy::most_allocated()
        } else {
            ScoringStrategy::requested_to_capacity_ratio(&[(0, 10), (100, 0)])
        };
        p.hard_pod_affinity_weight = rng.range(0, 100) as i64;
        p.system_default_spreading = rng.chance(50);
        p.percentage_of_nodes_to_score = rng.range(0, 100) as u32;
        sc.profile = Some(p);
    }
    sc
}

#[test]
fn import_of_an_export_is_the_same_scenario_and_the_same_placement() {
    sweep("import_of_an_export", 200, |seed| {
        let sc = random_scenario(seed);
        let mut text = export(&sc);
        if let Some(p) = &sc.profile {
            // The scheduler's configuration is a file of its own (kube-scheduler --config); it reads back as part of the stream.
            text.push_str(&export_scheduler_config(p));
        }
        let back = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back.scenario, sc, "{text}");
        assert_eq!(
            placement(&converge(&back.scenario)),
            placement(&converge(&sc))
        );
        // The export itself is what we promise kubectl: nothing it writes is warned about.
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    });
}

/// Mutations of a valid stream: truncation, byte flips, a value replaced by
/// another type, huge numbers, deep nesting.
fn mutate(rng: &mut Prng, text: &str) -> String {
    let mut s = text.to_string();
    let at = |rng: &mut Prng, s: &str| {
        let mut i = rng.below(s.len() as u64 + 1) as usize;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    for _ in 0..rng.range(1, 4) {
        match rng.below(7) {
            0 => {
                let i = at(rng, &s);
                s.truncate(i);
            }
            1 => {
                let i = at(rng, &s);
                let junk = *rng.pick(&[
                    "\"",
                    ":",
                    "- ",
                    "\n",
                    "\t",
                    "{",
                    "]",
                    "&a ",
                    "*a",
                    "!!binary ",
                    "---\n",
                    "\u{0}",
                    "é",
                ]);
                s.insert_str(i, junk);
            }
            2 => {
                let i = at(rng, &s);
                let j = at(rng, &s).max(i);
                s.replace_range(i..j, "");
            }
            3 => {
                let from = *rng.pick(&[
                    "\"4\"",
                    "3",
                    "1Gi",
                    "500m",
                    "true",
                    "app: web",
                    "NoSchedule",
                    "RollingUpdate",
                    "Ready",
                ]);
                let to = *rng.pick(&[
                    "[1, 2]",
                    "{a: b}",
                    "null",
                    "99999999999999999999999999",
                    "-5",
                    "1e308",
                    "\"\"",
                    "yes",
                    "1.5",
                    "\"x\"",
                ]);
                s = s.replacen(from, to, 1);
            }
            4 => {
                let i = at(rng, &s);
                let n = rng.range(100, 5000) as usize;
                s.insert_str(i, &format!("{}{}", "[".repeat(n), "]".repeat(n)));
            }
            5 => {
                let lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let k = rng.below(lines.len() as u64) as usize;
                    let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    v.swap(k, rng.below(lines.len() as u64) as usize);
                    s = v.join("\n");
                }
            }
            _ => {
                let i = at(rng, &s);
                s.insert_str(i, &format!("{}", rng.next_u64()));
            }
        }
    }
    s
}

#[test]
fn the_importer_survives_mutated_input_all_or_nothing_with_a_path() {
    let seeds = [
        corpus("three-zones-list.yaml"),
        corpus("helm-stream.yaml"),
        corpus("ssd-list.json"),
        corpus("scheduling-features.yaml"),
        corpus("workloads.yaml"),
        export(&random_scenario(1)),
    ];
    sweep("the_importer_survives", 200, |seed| {
        let mut rng = Prng::new(seed);
        let base = rng.pick(&seeds).clone();
        let text = mutate(&mut rng, &base);
        match import(&text) {
            Ok(im) => {
                // Whatever was accepted enters an engine and converges.
                let mut c = im
                    .scenario
                    .to_cluster()
                    .expect("an accepted import enters the engine");
                assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
                for w in &im.warnings {
                    assert!(w.loc.document >= 1 && !w.message.is_empty(), "{w}");
                }
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("document "), "{msg}");
                assert!(
                    e.message.contains("expected")
                        || e.message.contains("cannot be read")
                        || e.message.contains("missing"),
                    "{msg}"
                );
            }
        }
    });
}

#[test]
fn the_examples_shipped_with_the_page_import_and_converge() {
    let dir = format!("{}/../www/examples", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let im = import(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let c = converge(&im.scenario);
        assert!(
            c.pods().any(|p| p.node.is_some()),
            "{}: no pod placed",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 3, "{seen} examples in {dir}");
}

// ----- PriorityClasses ---------------------------------------------------------

const PRIORITY_STREAM: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch}
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      priority: 1000
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
description: "before the batch jobs"
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: -5
globalDefault: true
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
"#;

/// PriorityClasses are imported (the system class as every cluster has it
/// is taken as there), a template's priorityClassName resolves at pod
/// creation, a class later in the stream still counts, and the given
/// `priority` is said to be admission's to set. batch's pods take the
/// globalDefault (-5) and web (1000) preempts one of them.
#[test]
fn priority_classes_and_priority_class_names_are_simulated() {
    let im = import(PRIORITY_STREAM).unwrap_or_else(|e| panic!("{e}"));
    let sc = &im.scenario;
    assert_eq!(sc.priority_classes.len(), 2);
    assert_eq!(sc.priority_classes[0].name, "high");
    assert_eq!(sc.priority_classes[1].value, -5);
    assert!(sc.priority_classes[1].global_default);
    assert_eq!(
        sc.priority_classes[1].preemption_policy,
        shepherd::PreemptionPolicy::Never
    );
    assert_eq!(
        sc.deployments[1].template.priority_class_name.as_deref(),
        Some("high")
    );
    assert!(
        has_warning(
            &im,
            "spec.template.spec.priority",
            "Priority admission plugin"
        ),
        "{:?}",
        im.warnings
    );
    let c = converge(sc);
    assert_eq!(c.pod_priority("batch-0"), Some(-5));
    assert_eq!(c.pod_priority("web-0"), Some(1000));
    assert_eq!(node_of(&c, "web-0").as_deref(), Some("node-1"));
    assert_eq!(c.pending_count(), 1);
    // Export and import again: the same scenario.
    let text = export(sc);
    assert!(text.contains("kind: PriorityClass"), "{text}");
    assert!(text.contains("priorityClassName: high"), "{text}");
    let back = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back.scenario, sc);
    // Written as given (issue 45): the same warnings as the import's, no new one.
    for w in &back.warnings {
        assert!(
            im.warnings
                .iter()
                .any(|x| x.path == w.path && x.message == w.message && x.loc.name == w.loc.name),
            "{w}"
        );
    }
}

#[test]
fn priority_class_errors_name_the_field() {
    let pc = |body: &str| {
        import(&format!(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: x}}\n{body}\n"
        ))
        .map(|_| ())
        .unwrap_err()
        .to_string()
    };
    let e = pc("value: 1000000001");
    assert!(e.contains("at most 1000000000"), "{e}");
    let e = pc("description: no value");
    assert!(e.contains("value") && e.contains("missing"), "{e}");
    let e = pc("value: 5\npreemptionPolicy: Sometimes");
    assert!(e.contains("preemptionPolicy") && e.contains("Never"), "{e}");
    let e = pc("value: 99999999999");
    assert!(e.contains("int32"), "{e}");
    let two = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: true\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: b}\nvalue: 2\nglobalDefault: true\n";
    let e = import(two).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("globalDefault") && e.contains("\"a\""), "{e}");
    let e = import("apiVersion: scheduling.k8s.io/v1beta1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n")
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("scheduling.k8s.io/v1"), "{e}");
    let e = import("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-node-critical}\nvalue: 7\n")
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("system class"), "{e}");
}

/// The random round trip with classes added: a template names one of them.
#[test]
fn import_of_an_export_keeps_priority_classes() {
    sweep("import_of_an_export_keeps_priority_classes", 100, |seed| {
        let mut sc = random_scenario(seed);
        let mut rng = Prng::new(seed ^ 0x5052_494f);
        let n = rng.range(1, 3);
        for i in 0..n {
            let mut pc = shepherd::PriorityClass::new(
                &format!("class-{i}"),
                rng.range(0, 2000) as i32 - 1000,
            );
            pc.global_default = i == 0 && rng.chance(30);
            if rng.chance(30) {
                pc.preemption_policy = shepherd::PreemptionPolicy::Never;
            }
            sc.priority_classes.push(pc);
        }
        for d in sc.deployments.iter_mut() {
            if rng.chance(50) {
                d.template.priority_class_name = Some(format!("class-{}", rng.below(n)));
            }
        }
        let mut text = export(&sc);
        if let Some(p) = &sc.profile {
            text.push_str(&export_scheduler_config(p));
        }
        let back = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back.scenario, sc, "{text}");
        assert_eq!(
            placement(&converge(&back.scenario)),
            placement(&converge(&sc))
        );
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    });
}

#[test]
fn namespaces_keep_names_apart_and_scope_selectors_in_and_out() {
    // shop/web runs on node-a, blog/web on node-b (nodeSelectors); each
    // budget and Service counts its own namespace's web pods (2 and 3);
    // blog/cache may not share a node with a web pod of a namespace
    // labelled team=shop-team (shop alone), so both cache pods go to
    // node-b, next to blog's own web pods.
    let im = import(&corpus("namespaces.yaml")).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let sc = &im.scenario;
    assert_eq!(
        sc.namespaces,
        vec![
            shepherd::NamespaceSpec::new("shop").with_label("team", "shop-team"),
            shepherd::NamespaceSpec::new("blog"),
        ]
    );
    let names: Vec<&str> = sc.deployments.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["shop/web", "blog/web", "blog/cache"]);
    let c = converge(sc);
    let mut placed = placement(&c);
    placed.sort();
    let on = |n: &str| Some(n.to_string());
    assert_eq!(
        placed,
        vec![
            ("blog/cache-0".to_string(), on("node-b")),
            ("blog/cache-1".to_string(), on("node-b")),
            ("blog/web-0".to_string(), on("node-b")),
            ("blog/web-1".to_string(), on("node-b")),
            ("blog/web-2".to_string(), on("node-b")),
            ("shop/web-0".to_string(), on("node-a")),
            ("shop/web-1".to_string(), on("node-a")),
        ]
    );
    // Once Ready (one tick later):
    let mut c = c;
    c.set_now(c.now() + 1);
    assert!(
        c.reconcile_to_fixed_point(sc.profile_or_default())
            .converged
    );
    assert_eq!(c.pdb_status("shop/web").unwrap().current_healthy, 2);
    assert_eq!(c.pdb_status("blog/web").unwrap().current_healthy, 3);
    assert_eq!(c.service_endpoints("shop/web").unwrap().len(), 2);
    assert_eq!(c.service_endpoints("blog/web").unwrap().len(), 3);
    // `kubectl get pods -A -o wide`: a NAMESPACE column and the bare names.
    let table = shepherd_k8s::pods_wide(&c);
    let head = table.lines().next().unwrap();
    assert!(head.starts_with("NAMESPACE   NAME"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("shop        web-rp59bsrt-cvflh ")),
        "{table}"
    );
    // Out: a Namespace before the objects in it, each object in its own
    // namespace, the term's namespaceSelector kept; and back in, the same.
    let out = export(sc);
    let first_ns = out.find("kind: Namespace").unwrap();
    assert!(first_ns < out.find("kind: Deployment").unwrap());
    assert!(out.contains("namespace: blog") && out.contains("namespaceSelector"));
    let again = import(&out).unwrap();
    assert_eq!(&again.scenario, sc);
    assert_eq!(placement(&converge(&again.scenario)), placement(&c));
    // A wrong namespace is refused with its path.
    let bad = corpus("namespaces.yaml").replace("namespace: blog", "namespace: Blog_1");
    let e = import(&bad).unwrap_err().to_string();
    assert!(
        e.contains("metadata.namespace") && e.contains("namespace name"),
        "{e}"
    );
}

/// Issue 42, row 8: a Pod owned by a Pod (or any kind no controller here
/// runs) was counted "owned by an imported controller" and simulated by
/// none. It is kept as a bare Pod, with a warning that names it; a pod of
/// a Deployment, a ReplicaSet, a StatefulSet or a DaemonSet in the input
/// is still that controller's.
#[test]
fn a_pod_owned_by_a_kind_no_controller_runs_is_kept_as_a_bare_pod() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: parent}\nspec:\n  containers: [{name: c, image: x}]\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: child\n  ownerReferences: [{apiVersion: v1, kind: Pod, name: parent, uid: \"1\", controller: true}]\nspec:\n  containers: [{name: c, image: x}]\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: once-abcde\n  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: once, uid: \"2\", controller: true}]\nspec:\n  containers: [{name: c, image: x}]\n";
    let im = import(text).unwrap();
    let names: Vec<&str> = im.scenario.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["parent", "child", "once-abcde"]);
    assert!(has_warning(
        &im,
        "metadata.ownerReferences",
        "owned by Pod \"parent\", which is not a controller Shepherd runs; simulated as a bare Pod"
    ));
    assert!(has_warning(
        &im,
        "metadata.ownerReferences",
        "owned by Job \"once\", which is not a controller Shepherd runs"
    ));
    let w = im
        .warnings
        .iter()
        .find(|w| w.message.contains("Pod \"parent\""))
        .unwrap();
    assert_eq!(w.loc.name, "child");
}

/// Issue 42, row 10: a node with 0 allocatable cpu, memory or pods failed
/// the whole import. Kubernetes takes such a node; so does the importer,
/// and the cluster places what fits (a pod without requests on the nodes
/// with no cpu or no memory, nothing on the one with no pods).
#[test]
fn nodes_with_zero_allocatable_are_imported() {
    let node = |name: &str, cpu: &str, mem: &str, pods: &str| {
        format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{pin: {name}}}}}\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: \"{mem}\", pods: \"{pods}\"}}\n---\n")
    };
    let text = [
        node("no-cpu", "0", "4Gi", "110"),
        node("no-memory", "2", "0", "110"),
        node("no-pods", "2", "4Gi", "0"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: be}\nspec:\n  replicas: 6\n  selector: {matchLabels: {app: be}}\n  template:\n    metadata: {labels: {app: be}}\n    spec:\n      containers: [{name: c, image: x}]\n".to_string(),
    ]
    .concat();
    let im = import(&text).unwrap();
    let caps: Vec<(u64, u64, u32)> = im
        .scenario
        .nodes
        .iter()
        .map(|n| {
            (
                n.spec.capacity.cpu_millis,
                n.spec.capacity.memory_bytes,
                n.spec.max_pods,
            )
        })
        .collect();
    assert_eq!(
        caps,
        [(0, 4096 * MIB, 110), (2000, 0, 110), (2000, 4096 * MIB, 0)]
    );
    let c = converge(&im.scenario);
    assert_eq!(c.pending_count(), 0);
    assert!(c
        .pods()
        .all(|p| node_of(&c, &p.name()).as_deref() != Some("no-pods")));
    // Still refused: more pods than a node may say it takes.
    let e = import(&node("big", "2", "4Gi", "1000001")).unwrap_err();
    assert!(
        e.to_string().contains("a number of pods from 0 to 1000000"),
        "{e}"
    );
}
