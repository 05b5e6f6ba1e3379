//! Every resource NodeResourcesFit counts (issue 45 item 2): extended
//! resources such as nvidia.com/gpu, ephemeral-storage and hugepages-*,
//! read from a kubectl-shaped dump with Kubernetes' defaulting and
//! validation, and decided by the scheduler as kube-scheduler decides them.

use shepherd_k8s::{export, import};

fn node(name: &str, gpus: Option<&str>) -> String {
    let gpu = gpus.map_or(String::new(), |g| format!("    nvidia.com/gpu: \"{g}\"\n"));
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nstatus:\n  allocatable:\n    cpu: \"8\"\n    memory: 32Gi\n    pods: \"110\"\n    ephemeral-storage: 100Gi\n    hugepages-2Mi: \"0\"\n    attachable-volumes-aws-ebs: \"25\"\n{gpu}"
    )
}

fn pod(name: &str, resources: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: c\n    image: cuda\n    resources:\n{resources}"
    )
}

#[test]
fn node_allocatable_and_pod_requests_are_read_with_kubernetes_defaulting() {
    let mut text = node("gpu-a", Some("2"));
    text += &node("plain", None);
    // The request defaults to the limit; ephemeral-storage may be overcommitted.
    text += &pod(
        "trainer",
        "      limits:\n        nvidia.com/gpu: 1\n        ephemeral-storage: 2Gi\n      requests:\n        cpu: 500m\n        ephemeral-storage: 1Gi\n",
    );
    let im = import(&text).expect("the import");
    let gpu = &im.scenario.nodes[0].spec;
    assert_eq!(gpu.scalars.get("nvidia.com/gpu"), 2);
    assert_eq!(gpu.scalars.get("ephemeral-storage"), 100 << 30);
    // hugepages-2Mi: 0 keeps nothing; attachable-volumes-* is no resource a pod requests.
    assert_eq!(gpu.scalars.len(), 2, "{:?}", gpu.scalars);
    assert_eq!(im.scenario.nodes[1].spec.scalars.get("nvidia.com/gpu"), 0);
    let t = &im.scenario.pods[0].template;
    assert_eq!(t.scalar_requests.get("nvidia.com/gpu"), 1);
    assert_eq!(t.scalar_requests.get("ephemeral-storage"), 1 << 30);
    assert!(
        !im.warnings
            .iter()
            .any(|w| w.message.contains("not simulated yet")),
        "{:#?}",
        im.warnings
    );
    // The export writes them back (the request with an equal limit).
    let again = import(&export(&im.scenario)).expect("the export imports");
    assert_eq!(again.scenario, im.scenario);
}

#[test]
fn init_containers_sidecars_and_overhead_sum_as_compute_pod_resource_request() {
    // Regular: 1 + 1 = 2 GPUs; a sidecar init container holds 1 more (3);
    // an ordinary init container that needs 4 on top of the sidecar
    // before it (5) is the peak; overhead adds 1: 6.
    let text = node("n", Some("8"))
        + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  overhead:\n    nvidia.com/gpu: \"1\"\n  initContainers:\n  - name: side\n    restartPolicy: Always\n    resources:\n      limits: {nvidia.com/gpu: 1}\n  - name: warm\n    resources:\n      limits: {nvidia.com/gpu: 4}\n  containers:\n  - name: a\n    resources:\n      limits: {nvidia.com/gpu: 1}\n  - name: b\n    resources:\n      limits: {nvidia.com/gpu: 1}\n";
    let im = import(&text).expect("the import");
    assert_eq!(
        im.scenario.pods[0]
            .template
            .scalar_requests
            .get("nvidia.com/gpu"),
        6
    );
}

#[test]
fn bad_values_are_located_errors_with_what_kubernetes_expects() {
    let cases: &[(&str, &str)] = &[
        (
            "      limits:\n        nvidia.com/gpu: 500m\n",
            r#"spec.containers[0].resources.limits["nvidia.com/gpu"]"#,
        ),
        (
            "      requests:\n        nvidia.com/gpu: 1\n",
            "spec.containers[0].resources.limits",
        ),
        (
            "      requests:\n        nvidia.com/gpu: 1\n      limits:\n        nvidia.com/gpu: 2\n",
            r#"spec.containers[0].resources.requests["nvidia.com/gpu"]"#,
        ),
        (
            "      limits:\n        gpu: 1\n",
            "spec.containers[0].resources.limits.gpu",
        ),
        (
            "      limits:\n        kubernetes.io/gpu: 1\n",
            r#"spec.containers[0].resources.limits["kubernetes.io/gpu"]"#,
        ),
    ];
    for (resources, path) in cases {
        let text = node("n", Some("1")) + &pod("p", resources);
        let e = import(&text).expect_err(resources).to_string();
        assert!(e.starts_with("document 2 (Pod p): "), "{e}");
        assert!(e.contains(&format!("{path}: ")), "{path}: {e}");
        assert!(e.contains("expected"), "{e}");
    }
    let text = node("n", Some("1.5"));
    let e = import(&text).unwrap_err().to_string();
    assert!(
        e.contains(r#"status.allocatable["nvidia.com/gpu"]: "#) && e.contains("must be an integer"),
        "{e}"
    );
}

#[test]
fn describe_node_lists_scalar_resources_as_kubectl_does() {
    use shepherd_k8s::kubectl::{run_line, Page, Reply};
    let text = node("gpu-a", Some("4"))
        + &pod(
            "trainer",
            "      limits:\n        nvidia.com/gpu: 3\n        cpu: 1\n",
        )
        + "  nodeName: gpu-a\n";
    let im = import(&text).expect("the import");
    let sc = &im.scenario;
    let mut c = sc.to_cluster().expect("a cluster");
    let profile = sc.profile_or_default();
    assert!(c.reconcile_to_fixed_point(profile.clone()).converged);
    let d = match run_line(&c, &profile, "describe node gpu-a", None, Page::ALL) {
        Ok(Reply::Text { text, .. }) => text,
        other => panic!("expected text, got {other:?}"),
    };
    // Capacity sorted by name, as kubectl sorts it.
    let cap = d.split("Capacity:\n").nth(1).unwrap();
    let names: Vec<&str> = cap
        .lines()
        .take(5)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "cpu:",
            "ephemeral-storage:",
            "memory:",
            "nvidia.com/gpu:",
            "pods:"
        ],
        "{d}"
    );
    let alloc = d.split("Allocated resources:").nth(1).unwrap();
    let row = |name: &str| {
        alloc
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
    };
    assert_eq!(
        row("nvidia.com/gpu"),
        Some(vec!["nvidia.com/gpu", "3", "3"]),
        "{d}"
    );
    assert_eq!(
        row("ephemeral-storage"),
        Some(vec!["ephemeral-storage", "0", "(0%)", "0", "(0%)"]),
        "{d}"
    );
    shepherd::verify::verify_capacity(&c).expect("capacity holds");
}

fn deployment(name: &str, replicas: u32, gpus: u32) -> String {
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n      - name: c\n        resources:\n          requests: {{cpu: 100m}}\n          limits: {{nvidia.com/gpu: {gpus}}}\n"
    )
}

fn converge(text: &str) -> shepherd::Cluster {
    let im = import(text).expect("the import");
    let sc = &im.scenario;
    let mut c = sc.to_cluster().expect("a cluster");
    assert!(
        c.reconcile_to_fixed_point(sc.profile_or_default())
            .converged
    );
    shepherd::verify::verify_capacity(&c).expect("capacity holds in every resource");
    c
}

fn nodes_of(c: &shepherd::Cluster) -> Vec<(String, Option<String>)> {
    let mut v: Vec<_> = c
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
    v.sort();
    v
}

#[test]
fn gpu_pods_land_only_on_gpu_nodes_and_the_surplus_is_pending_with_kubernetes_message() {
    // Two GPU nodes of 2 and 1, three plain nodes; 4 one-GPU pods: 3 run
    // (each GPU once), 1 is Pending; plain pods still go anywhere.
    let mut text = node("gpu-a", Some("2")) + &node("gpu-b", Some("1"));
    for i in 0..3 {
        text += &node(&format!("plain-{i}"), None);
    }
    text += &deployment("train", 4, 1);
    let c = converge(&text);
    let placed = nodes_of(&c);
    let mut on: Vec<_> = placed.iter().filter_map(|(_, n)| n.clone()).collect();
    on.sort();
    assert_eq!(on, ["gpu-a", "gpu-a", "gpu-b"], "{placed:?}");
    let pending: Vec<_> = c.pending_pods().map(|p| p.name()).collect();
    assert_eq!(pending.len(), 1);
    let why = c.pending_reason(&pending[0]).unwrap().unwrap();
    assert!(
        why.contains("0/5 nodes are available: 5 Insufficient nvidia.com/gpu."),
        "{why}"
    );
}

#[test]
fn a_pod_asking_more_gpus_than_any_node_has_is_pending_and_ignored_resources_are_not_checked() {
    let text = node("gpu-a", Some("2")) + &deployment("big", 1, 3);
    let c = converge(&text);
    let why = c
        .pending_reason(&c.pending_pods().next().unwrap().name())
        .unwrap()
        .unwrap();
    assert!(
        why.contains("0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        "{why}"
    );

    // NodeResourcesFitArgs ignoredResources / ignoredResourceGroups: the
    // Filter leaves the resource to someone else, so the pod is placed.
    for args in [
        "ignoredResources: [nvidia.com/gpu]",
        "ignoredResourceGroups: [nvidia.com]",
    ] {
        let config = format!("---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      {args}\n");
        let im = import(&(text.clone() + &config)).expect("the import");
        let sc = &im.scenario;
        let mut c = sc.to_cluster().expect("a cluster");
        assert!(
            c.reconcile_to_fixed_point(sc.profile_or_default())
                .converged
        );
        assert_eq!(c.pending_pods().count(), 0, "{args}");
    }
    // As Kubernetes validates them.
    let config = "---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      ignoredResourceGroups: [nvidia.com/gpu]\n";
    let e = import(&(text + config)).unwrap_err().to_string();
    assert!(
        e.contains("ignoredResourceGroups[0]") && e.contains("can't contain '/'"),
        "{e}"
    );
}

#[test]
fn the_kubelet_rejects_a_pod_bound_to_a_node_without_its_gpus() {
    use shepherd_k8s::kubectl::{run_line, Page, Reply};
    let text = node("gpu-a", Some("1"))
        + &pod("big", "      limits:\n        nvidia.com/gpu: 2\n")
        + "  nodeName: gpu-a\n";
    let im = import(&text).expect("the import");
    let sc = &im.scenario;
    let mut c = sc.to_cluster().expect("a cluster");
    let profile = sc.profile_or_default();
    assert!(c.reconcile_to_fixed_point(profile.clone()).converged);
    let d = match run_line(&c, &profile, "describe pod big", None, Page::ALL) {
        Ok(Reply::Text { text, .. }) => text,
        other => panic!("expected text, got {other:?}"),
    };
    assert!(d.contains("OutOfnvidia.com/gpu"), "{d}");
    assert!(
        d.contains(
            "Node didn't have enough resource: nvidia.com/gpu, requested: 2, used: 0, capacity: 1"
        ),
        "{d}"
    );
    shepherd::verify::verify_capacity(&c).expect("capacity holds");
}

/// NodeResourcesFitArgs' scoringStrategy.resources and
/// NodeResourcesBalancedAllocationArgs' resources may name extended
/// resources; the profile scores them, and the exported configuration
/// reads back as the same profile (ignoredResources too).
#[test]
fn scoring_resources_may_name_extended_resources_and_round_trip() {
    use shepherd::Resource;
    let config = "---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      ignoredResources: [example.com/other]\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n        - {name: nvidia.com/gpu, weight: 5}\n        - {name: pods, weight: 1}\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - {name: cpu, weight: 1}\n      - {name: memory}\n      - {name: nvidia.com/gpu, weight: 1}\n";
    let text = node("gpu-a", Some("8")) + config;
    let im = import(&text).expect("the import");
    let p = im.scenario.profile_or_default();
    let gpu = Resource::Scalar("nvidia.com/gpu".to_string());
    assert_eq!(
        p.fit.resources,
        [(Resource::Cpu, 1), (Resource::Memory, 1), (gpu.clone(), 5)]
    );
    assert_eq!(p.balanced_resources, [Resource::Cpu, Resource::Memory, gpu]);
    // `pods` is no resource a node offers to score: left out, with a word.
    assert!(
        im.warnings
            .iter()
            .any(|w| w.message.contains("pods is no resource")),
        "{:#?}",
        im.warnings
    );
    let again = import(&shepherd_k8s::export_scheduler_config(&p)).expect("the export imports");
    assert_eq!(again.scenario.profile_or_default(), p);
    // Kubernetes' validation of BalancedAllocation's list.
    for (args, words) in [
        ("      - {name: cpu, weight: 2}\n", "must be 1"),
        ("      - {name: cpu}\n      - {name: cpu}\n", "listed twice"),
    ] {
        let bad = format!("---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n{args}");
        let e = import(&bad).unwrap_err().to_string();
        assert!(e.contains("resources[") && e.contains(words), "{e}");
    }
}

/// A MostAllocated profile that weighs nvidia.com/gpu packs a GPU pod onto
/// the GPU node it fills most; the same pod under cpu and memory alone
/// goes to the other, whose cpu it fills more.
#[test]
fn gpu_pods_pack_by_the_gpu_weight_the_strategy_gives() {
    let nodes =
        node("gpu-a", Some("8")).replace("cpu: \"8\"", "cpu: \"2\"") + &node("gpu-b", Some("2"));
    let text = |resources: &str| {
        format!("{nodes}{}---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: NodeResourcesFit\n        weight: 1\n  percentageOfNodesToScore: 100\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n{resources}", deployment("train", 1, 1))
    };
    let placed = |text: &str| {
        let c = converge(text);
        let p = nodes_of(&c).remove(0);
        let profile = import(text).unwrap().scenario.profile_or_default();
        let e = c.explain(&p.0, &profile).expect("explained");
        let totals: Vec<(String, Option<i64>)> =
            e.nodes.iter().map(|v| (v.node.clone(), v.total)).collect();
        (p.1.unwrap(), totals)
    };
    // cpu 100m of 2 cores: 5, of 8: 1; memory 200Mi (the non-zero
    // default) of 32Gi: 0; gpu 1 of 8: 12, 1 of 2: 50.
    let (on, totals) = placed(&text("        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n        - {name: nvidia.com/gpu, weight: 10}\n"));
    assert_eq!(on, "gpu-b", "{totals:?}");
    assert_eq!(
        totals,
        [
            ("gpu-a".to_string(), Some((5 + 10 * 12) / 12)),
            ("gpu-b".to_string(), Some((1 + 10 * 50) / 12))
        ]
    );
    // Without it: (5 + 0) / 2 = 2 against (1 + 0) / 2 = 0.
    let (on, totals) = placed(&text(
        "        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n",
    ));
    assert_eq!(on, "gpu-a", "{totals:?}");
    assert_eq!(totals[0].1, Some(2));
}

/// The kubelet's OutOfmemory message counts bytes (requested, used,
/// capacity), as lifecycle.InsufficientResourceError prints them: a 40Gi
/// pod bound by nodeName to a 32Gi node.
#[test]
fn the_kubelet_counts_memory_in_bytes_when_it_rejects() {
    use shepherd_k8s::kubectl::{run_line, Page, Reply};
    let text = node("small", None)
        + &pod("big", "      requests:\n        memory: 40Gi\n")
        + "  nodeName: small\n";
    let im = import(&text).expect("the import");
    let sc = &im.scenario;
    let mut c = sc.to_cluster().expect("a cluster");
    let profile = sc.profile_or_default();
    assert!(c.reconcile_to_fixed_point(profile.clone()).converged);
    let d = match run_line(&c, &profile, "describe pod big", None, Page::ALL) {
        Ok(Reply::Text { text, .. }) => text,
        other => panic!("expected text, got {other:?}"),
    };
    assert!(d.contains("OutOfmemory"), "{d}");
    let want = format!(
        "Node didn't have enough resource: memory, requested: {}, used: 0, capacity: {}",
        40u64 << 30,
        32u64 << 30
    );
    assert!(d.contains(&want), "{d}");
}

/// `kubectl get node -o json` gives the node's extended resources,
/// ephemeral-storage and huge pages in status.allocatable, as the API
/// server holds them (what `-o jsonpath='{.status.allocatable.nvidia\.com/gpu}'`
/// reads).
#[test]
fn get_node_as_json_lists_extended_resources_in_allocatable() {
    use shepherd_k8s::kubectl::{run_line, Page, Reply};
    let im = import(&node("gpu-a", Some("4"))).expect("the import");
    let c = im.scenario.to_cluster().expect("a cluster");
    let profile = im.scenario.profile_or_default();
    let j = match run_line(&c, &profile, "get node gpu-a -o json", None, Page::ALL) {
        Ok(Reply::Text { text, .. }) => text,
        other => panic!("expected text, got {other:?}"),
    };
    let v: serde_json::Value = serde_json::from_str(&j).expect("JSON");
    let alloc = &v["status"]["allocatable"];
    assert_eq!(alloc["nvidia.com/gpu"], "4", "{j}");
    assert_eq!(alloc["ephemeral-storage"], "100Gi", "{j}");
    assert_eq!(alloc["cpu"], "8000m", "{j}");
}
