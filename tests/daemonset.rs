//! DaemonSets and bare Pods in the engine.
//!
//! The randomized test adds, removes, relabels, taints, cordons, fails and
//! recovers nodes under four DaemonSets (one on the host network, one
//! asking for a GPU, one for ephemeral-storage) and a Deployment asking for
//! an extended resource few nodes have, on nodes with GPUs
//! (`nvidia.com/gpu`), ephemeral-storage and that resource, and after every
//! operation checks from scratch (from the node specs and the DaemonSet
//! specs, not from the controller's books) that every node a DaemonSet
//! should run on has exactly one pod of it, bound there, and no other node
//! has one it should not keep.
//!
//! Size: SHEPHERD_FUZZ_OPS (default 200). A failing seed prints itself:
//! `SHEPHERD_DS_SEED=N cargo test -p shepherd --test daemonset`.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::quantity::MIB;
use shepherd::simulator::Prng;
use shepherd::verify::{verify_capacity, verify_constraints, verify_settled};
use shepherd::{
    BarePodSpec, Budget, Cluster, DaemonSetSpec, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec,
    PodTemplate, PriorityClass, Profile, Resources, Selector, Taint, TaintEffect, Toleration,
    WorkloadKind,
};

const ZONE: &str = "topology.kubernetes.io/zone";
const NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";
const GPU: &str = "nvidia.com/gpu";
const EPHEMERAL: &str = "ephemeral-storage";
const FOO: &str = "example.com/foo";

fn converge(c: &mut Cluster) {
    let fp = c.reconcile_to_fixed_point(Profile::kube_scheduler());
    assert!(fp.converged, "no fixed point after {} passes", fp.passes);
}

fn node_of(c: &Cluster, pod: &str) -> Option<String> {
    let p = c.pod_by_name(pod).ok()?;
    p.node
        .and_then(|n| c.node_by_id(n))
        .map(|n| n.name().to_string())
}

/// Kubernetes' NodeShouldRunDaemonPod from scratch, with the automatic
/// tolerations the DaemonSet controller adds: (should run, may keep a pod).
fn should_run(n: &shepherd::NodeView, ds: &DaemonSetSpec) -> (bool, bool) {
    let t = &ds.template;
    let selected = t
        .node_selector
        .iter()
        .all(|(k, v)| n.spec.labels.get(k) == Some(v));
    if !selected {
        return (false, false);
    }
    let auto = [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/unschedulable",
    ];
    // hostNetwork pods also tolerate network-unavailable:NoSchedule.
    let network = |taint: &Taint| {
        ds.host_network
            && taint.key == NETWORK_UNAVAILABLE
            && taint.effect == TaintEffect::NoSchedule
    };
    let tolerated = |taint: &Taint| {
        t.tolerations.iter().any(|x| x.tolerates(taint))
            || auto.contains(&taint.key.as_str())
            || network(taint)
    };
    let no_schedule = n
        .spec
        .taints
        .iter()
        .any(|x| x.effect == TaintEffect::NoSchedule && !tolerated(x));
    let no_execute = n
        .spec
        .taints
        .iter()
        .any(|x| x.effect == TaintEffect::NoExecute && !tolerated(x));
    (!no_schedule && !no_execute && n.ready, !no_execute)
}

/// Every eligible node has exactly one pod of each DaemonSet, bound there;
/// other nodes have at most the one pod that continues running.
fn check_daemonsets(c: &Cluster, specs: &[DaemonSetSpec]) -> Result<(), String> {
    for ds in specs {
        let mut per_node: BTreeMap<String, u32> = BTreeMap::new();
        for p in c.pods().filter(|p| p.app == ds.name) {
            assert_eq!(p.kind, WorkloadKind::DaemonSet);
            match p.node.and_then(|n| c.node_by_id(n)) {
                Some(n) => *per_node.entry(n.name().to_string()).or_default() += 1,
                None => {
                    return Err(format!(
                        "{} is Pending: {:?}",
                        p.name(),
                        c.pending_reason(&p.name())
                    ))
                }
            }
        }
        for n in c.nodes() {
            let have = per_node.remove(n.name()).unwrap_or(0);
            let (run, keep) = should_run(&n, ds);
            if run && have != 1 {
                return Err(format!(
                    "DaemonSet {} has {have} pods on eligible node {}",
                    ds.name,
                    n.name()
                ));
            }
            if !run && (have > 1 || have == 1 && !keep) {
                return Err(format!(
                    "DaemonSet {} has {have} pods on node {} (should run: no, may keep: {keep})",
                    ds.name,
                    n.name()
                ));
            }
        }
        if let Some((n, k)) = per_node.into_iter().next() {
            return Err(format!(
                "DaemonSet {} has {k} pods on unknown node {n}",
                ds.name
            ));
        }
    }
    Ok(())
}

fn ops() -> u64 {
    std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

#[test]
fn every_eligible_node_has_exactly_one_pod_of_each_daemonset_after_random_node_changes() {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_DS_SEED") {
        Ok(s) => vec![s.parse().expect("SHEPHERD_DS_SEED is a number")],
        Err(_) => (1..=4).collect(),
    };
    for seed in seeds {
        let r = catch_unwind(AssertUnwindSafe(|| run_seed(seed, ops())));
        if let Err(e) = r {
            eprintln!("failing seed: SHEPHERD_DS_SEED={seed}");
            std::panic::resume_unwind(e);
        }
    }
}

fn run_seed(seed: u64, ops: u64) {
    let mut rng = Prng::new(seed);
    let mut c = Cluster::new();
    let agent = DaemonSetSpec::new(
        "log-agent",
        PodTemplate::new(Resources::new(100, 128 * MIB))
            .with_label("app", "log-agent")
            .with_scalar(EPHEMERAL, 2 << 30),
    );
    // A GPU's DaemonSet (a burn-in test on every GPU node): one GPU each.
    let burn = DaemonSetSpec::new(
        "gpu-burn",
        PodTemplate::new(Resources::new(50, 64 * MIB))
            .with_label("app", "gpu-burn")
            .with_node_selector("gpu", "true")
            .with_toleration(Toleration::equal("dedicated", "gpu", None))
            .with_scalar(GPU, 1),
    );
    let gpu = DaemonSetSpec::new(
        "gpu-plugin",
        PodTemplate::new(Resources::new(50, 64 * MIB))
            .with_label("app", "gpu-plugin")
            .with_node_selector("gpu", "true")
            .with_toleration(Toleration::equal("dedicated", "gpu", None)),
    );
    // A host-network DaemonSet: it also tolerates network-unavailable.
    let cni = DaemonSetSpec::new(
        "cni",
        PodTemplate::new(Resources::new(50, 64 * MIB)).with_label("app", "cni"),
    )
    .with_host_network();
    c.create_daemonset(agent.clone()).unwrap();
    c.create_daemonset(gpu.clone()).unwrap();
    c.create_daemonset(cni.clone()).unwrap();
    c.create_daemonset(burn.clone()).unwrap();
    // Its pods need an extended resource few nodes have: some wait.
    let mut web = DeploymentSpec::new("web", 6, Resources::new(500, 512 * MIB));
    web.template = web.template.with_scalar(FOO, 1);
    c.deploy(web).unwrap();
    let specs = [agent, gpu, cni, burn];
    let mut names: Vec<String> = Vec::new();
    let mut next = 0u32;
    let mut gpus_taken = false;
    for op in 0..ops {
        let live: Vec<String> = c.nodes().map(|n| n.name().to_string()).collect();
        let pick = |rng: &mut Prng| live[rng.below(live.len() as u64) as usize].clone();
        let what = rng.below(10);
        let r = match what {
            0..=2 => {
                next += 1;
                // Dotted names, as cloud providers name nodes.
                let name = format!("ip-10-0-0-{next}.ec2.internal");
                let mut n = NodeSpec::new(&name, 4000, 8192 * MIB)
                    .with_label(ZONE, ["a", "b", "c"][rng.below(3) as usize])
                    .with_scalar(EPHEMERAL, (20 + rng.below(80)) << 30);
                if rng.below(2) == 0 {
                    // A GPU node: one to four GPUs, as its device plugin
                    // reports them.
                    n = n
                        .with_label("gpu", "true")
                        .with_scalar(GPU, 1 + rng.below(4));
                }
                let foo = rng.below(4);
                if foo > 0 {
                    n = n.with_scalar(FOO, foo);
                }
                if rng.below(4) == 0 {
                    n = n.with_taint(Taint::new("dedicated", "gpu", TaintEffect::NoSchedule));
                }
                names.push(name);
                c.add_node(n).map(drop)
            }
            3 if !live.is_empty() => c.remove_node(&pick(&mut rng)),
            4 if !live.is_empty() => {
                let effect =
                    [TaintEffect::NoSchedule, TaintEffect::NoExecute][rng.below(2) as usize];
                let taint = if rng.below(3) == 0 {
                    // The node's pod network is not up yet.
                    Taint::new(NETWORK_UNAVAILABLE, "", TaintEffect::NoSchedule)
                } else {
                    Taint::new("maintenance", "", effect)
                };
                c.taint_node(&pick(&mut rng), taint)
            }
            5 if !live.is_empty() => {
                let key = ["maintenance", NETWORK_UNAVAILABLE][rng.below(2) as usize];
                c.untaint_node(&pick(&mut rng), key, None)
            }
            6 if !live.is_empty() => {
                // Relabel: the kubelet registers again with or without gpu=true.
                let n = c.node(&pick(&mut rng)).unwrap();
                let mut spec = n.spec.clone();
                if spec.labels.remove("gpu").is_none() {
                    spec.labels.insert("gpu".into(), "true".into());
                    // GPUs installed: its device plugin reports them.
                    if spec.scalars.get(GPU) == 0 {
                        spec.scalars.set(GPU, 1 + rng.below(4));
                    }
                }
                c.reregister_node(spec).map(drop)
            }
            7 if !live.is_empty() => c.cordon(&pick(&mut rng)),
            8 if !live.is_empty() => {
                let n = pick(&mut rng);
                let r = c.fail_node(&n);
                let later = c.now() + c.heartbeat_timeout() + 1;
                c.set_now(later);
                c.detect_failures();
                r
            }
            _ if !live.is_empty() => {
                let n = pick(&mut rng);
                let r = c.recover_node(&n);
                c.heartbeats();
                r
            }
            _ => Ok(()),
        };
        // Refusals (a taint already there, none to remove) change nothing.
        let _ = r;
        converge(&mut c);
        if let Err(e) = check_daemonsets(&c, &specs) {
            panic!("seed {seed}, op {op} ({what}): {e}");
        }
        verify_capacity(&c).unwrap_or_else(|e| panic!("seed {seed}, op {op}: {e}"));
        verify_constraints(&c).unwrap_or_else(|e| panic!("seed {seed}, op {op}: {e}"));
        verify_settled(&c).unwrap_or_else(|e| panic!("seed {seed}, op {op}: {e}"));
        gpus_taken |= c.pods().any(|p| p.app == "gpu-burn" && p.node.is_some());
    }
    // The GPUs were in play (a sweep too short may not add a GPU node).
    assert!(
        gpus_taken || ops < 50,
        "seed {seed}: no GPU DaemonSet pod ever ran"
    );
}

fn three_nodes() -> Cluster {
    let mut c = Cluster::new();
    for (i, z) in ["a", "b", "c"].iter().enumerate() {
        c.add_node(
            NodeSpec::new(&format!("node-{i}.example.com"), 2000, 4096 * MIB).with_label(ZONE, z),
        )
        .unwrap();
    }
    c
}

#[test]
fn daemonset_pods_take_capacity_go_to_cordoned_nodes_and_survive_a_drain() {
    let mut c = three_nodes();
    c.cordon("node-2.example.com").unwrap();
    c.create_daemonset(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(500, 256 * MIB)).with_label("app", "agent"),
    ))
    .unwrap();
    converge(&mut c);
    let mut on: Vec<_> = (0..3)
        .filter_map(|i| node_of(&c, &format!("agent-{i}")))
        .collect();
    on.sort();
    // The unschedulable toleration is automatic: the cordoned node has one too.
    assert_eq!(
        on,
        [
            "node-0.example.com",
            "node-1.example.com",
            "node-2.example.com"
        ]
    );
    for n in c.nodes() {
        assert_eq!(n.allocated, Resources::new(500, 256 * MIB), "{}", n.name());
    }
    // The scheduler placed them: explain shows the metadata.name affinity at work.
    let e = c.explain("agent-0", Profile::kube_scheduler()).unwrap();
    let feasible: Vec<_> = e.nodes.iter().filter(|v| v.feasible).collect();
    assert_eq!(feasible.len(), 1, "{:?}", e.nodes);
    // A drain leaves DaemonSet pods (kubectl drain --ignore-daemonsets).
    c.deploy(DeploymentSpec::new(
        "web",
        2,
        Resources::new(500, 256 * MIB),
    ))
    .unwrap();
    converge(&mut c);
    c.drain("node-0.example.com").unwrap();
    converge(&mut c);
    assert_eq!(
        c.pods_on(c.node("node-0.example.com").unwrap().id)
            .map(|p| p.app.to_string())
            .collect::<Vec<_>>(),
        ["agent"]
    );
    // kubectl's words: the DaemonSet pod ignored, then the node drained.
    let n0 = c.node("node-0.example.com").unwrap();
    assert!(n0.cordoned && !n0.draining);
    assert_eq!(n0.drain_status, Some("node/node-0.example.com drained"));
    // A new node gets its pod; a removed one loses it and nobody replaces it elsewhere.
    c.add_node(NodeSpec::new("node-3.example.com", 2000, 4096 * MIB))
        .unwrap();
    converge(&mut c);
    assert_eq!(c.daemonsets()[0].desired, 4);
    c.remove_node("node-1.example.com").unwrap();
    converge(&mut c);
    let st = &c.daemonsets()[0];
    assert_eq!((st.desired, st.current, st.pending), (3, 3, 0), "{st:?}");
}

#[test]
fn a_daemonset_pod_that_does_not_fit_stays_pending_with_kube_scheduler_reasons() {
    let mut c = three_nodes();
    c.deploy(
        DeploymentSpec::new("big", 1, Resources::new(1800, 512 * MIB))
            .with_template(|t| t.with_node_selector(ZONE, "a")),
    )
    .unwrap();
    converge(&mut c);
    c.create_daemonset(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(500, 256 * MIB)).with_label("app", "agent"),
    ))
    .unwrap();
    converge(&mut c);
    let pending: Vec<String> = c.pending_pods().map(|p| p.name()).collect();
    assert_eq!(pending.len(), 1);
    let why = c.pending_reason(&pending[0]).unwrap().unwrap();
    assert!(
        why.contains("0/3 nodes are available")
            && why.contains("1 Insufficient cpu")
            && why.contains("2 node(s) didn't match Pod's node affinity/selector"),
        "{why}"
    );
}

/// The FailedScheduling message of every pod of a DaemonSet that fits
/// nowhere counts every node, as the full scan does: the node the pod is
/// pinned to under its own reason, each other node under its first refusing
/// filter. The engine counts the other nodes once per generation and reuses
/// the tally until a node changes (its debug check compares each message
/// with a node-by-node count); the messages here are written out by hand,
/// before and after nodes change.
#[test]
fn every_pod_of_an_unplaceable_daemonset_gets_the_full_scans_message_as_nodes_change() {
    let mut c = Cluster::new();
    for i in 0..5 {
        c.add_node(NodeSpec::new(&format!("n{i}"), 2000, 4096 * MIB))
            .unwrap();
    }
    c.cordon("n1").unwrap();
    c.taint_node("n2", Taint::new("dedicated", "x", TaintEffect::NoSchedule))
        .unwrap();
    c.create_daemonset(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(3000, 256 * MIB)).with_label("app", "agent"),
    ))
    .unwrap();
    converge(&mut c);
    // Every Pending pod, and `count` of them, told `want`.
    let all_say = |c: &Cluster, count: usize, want: &str| {
        let got: Vec<(String, String)> = c
            .pending_pods()
            .map(|p| {
                let name = p.name();
                let why = c.pending_reason(&name).unwrap().unwrap_or_default();
                (name, why)
            })
            .collect();
        assert_eq!(got.len(), count, "{got:?}");
        for (pod, why) in &got {
            assert_eq!(why, want, "{pod}");
        }
    };
    // n0, n1 (cordoned: a DaemonSet pod tolerates that), n3 and n4 run the
    // agent; n2's taint keeps it off.
    all_say(&c, 4, "0/5 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), 3 node(s) didn't match Pod's node affinity/selector.");
    // Two more nodes, one with the taint: five pods, seven nodes counted.
    c.add_node(NodeSpec::new("n5", 2000, 4096 * MIB)).unwrap();
    c.add_node(NodeSpec::new("n6", 2000, 4096 * MIB).with_taint(Taint::new(
        "dedicated",
        "x",
        TaintEffect::NoSchedule,
    )))
    .unwrap();
    converge(&mut c);
    all_say(&c, 5, "0/7 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s), 4 node(s) didn't match Pod's node affinity/selector.");
    // The taint goes from n2: n2 gets its pod and nothing else changes in
    // the other pods' counts but the taint's.
    c.untaint_node("n2", "dedicated", Some(TaintEffect::NoSchedule))
        .unwrap();
    converge(&mut c);
    all_say(&c, 6, "0/7 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), 5 node(s) didn't match Pod's node affinity/selector.");
}

#[test]
fn a_daemonset_template_change_rolls_one_node_at_a_time() {
    let mut c = three_nodes();
    let mut ds = DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(100, 128 * MIB))
            .with_label("app", "agent")
            .with_ready_after(2),
    );
    c.create_daemonset(ds.clone()).unwrap();
    for _ in 0..5 {
        c.set_now(c.now() + 1);
        converge(&mut c);
    }
    assert_eq!(c.daemonsets()[0].ready, 3);
    ds.template = ds.template.clone().with_version("v2");
    c.update_daemonset(ds.clone()).unwrap();
    let mut most_unavailable = 0;
    for _ in 0..20 {
        c.set_now(c.now() + 1);
        converge(&mut c);
        let st = &c.daemonsets()[0];
        most_unavailable = most_unavailable.max(3 - st.ready);
    }
    let st = &c.daemonsets()[0];
    assert_eq!((st.updated, st.ready, st.current), (3, 3, 3), "{st:?}");
    assert_eq!(
        most_unavailable, 1,
        "maxUnavailable 1 keeps two Ready at all times"
    );
    // maxUnavailable 0 is refused, as Kubernetes refuses it with maxSurge 0.
    ds.max_unavailable = IntOrPercent::Int(0);
    assert!(c.update_daemonset(ds).is_err());
}

#[test]
fn bare_pods_bind_by_node_name_fail_kubelet_admission_or_are_scheduled_and_are_never_recreated() {
    let mut c = three_nodes();
    let pod = |name: &str, cpu: u64, node: Option<&str>| BarePodSpec {
        name: name.into(),
        template: PodTemplate::new(Resources::new(cpu, 128 * MIB)).with_label("run", name),
        node_name: node.map(String::from),
    };
    c.create_bare_pod(pod("debug", 500, Some("node-1.example.com")))
        .unwrap();
    c.create_bare_pod(pod("huge", 1900, Some("node-1.example.com")))
        .unwrap();
    c.create_bare_pod(pod("ghost", 100, Some("node-9.example.com")))
        .unwrap();
    c.create_bare_pod(pod("free", 0, None)).unwrap();
    converge(&mut c);
    assert_eq!(node_of(&c, "debug").as_deref(), Some("node-1.example.com"));
    // A pod the kubelet rejects is Failed with its reason, and stays.
    let huge = c.pod_by_name("huge").expect("a Failed pod stays");
    assert_eq!(huge.phase, shepherd::PodPhase::Failed);
    assert_eq!(huge.node, None, "it takes no capacity");
    assert_eq!(
        huge.failure,
        Some((
            "OutOfcpu",
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 1900, used: 500, capacity: 2000"
        ))
    );
    let out = c
        .rendered_events()
        .into_iter()
        .find(|e| e.reason == "OutOfcpu")
        .expect("an OutOfcpu event");
    assert_eq!(
        (out.object.as_str(), out.message.as_str()),
        (
            "pod/huge",
            "Node didn't have enough resource: cpu, requested: 1900, used: 500, capacity: 2000"
        )
    );
    // A nodeName no node has: Pending, bound to that name, never scheduled.
    let ghost = c.pod_by_name("ghost").expect("an orphan stays Pending");
    assert_eq!(
        (ghost.phase, ghost.node),
        (shepherd::PodPhase::Pending, None)
    );
    assert_eq!(ghost.node_name, Some("node-9.example.com"));
    // A pod without requests is scheduled (BestEffort fits anywhere).
    assert!(node_of(&c, "free").is_some());
    // The kubelet does not read NoSchedule taints or the cordon: a pod bound
    // by nodeName runs there anyway (only the scheduler keeps pods away).
    c.taint_node(
        "node-2.example.com",
        Taint::new("dedicated", "db", TaintEffect::NoSchedule),
    )
    .unwrap();
    c.cordon("node-2.example.com").unwrap();
    c.create_bare_pod(pod("pinned", 100, Some("node-2.example.com")))
        .unwrap();
    converge(&mut c);
    assert_eq!(node_of(&c, "pinned").as_deref(), Some("node-2.example.com"));
    verify_constraints(&c).unwrap();
    verify_capacity(&c).unwrap();
    // Evicted or lost with its node, nobody recreates it.
    c.remove_node("node-1.example.com").unwrap();
    converge(&mut c);
    assert!(c.pod_by_name("debug").is_err());
    assert!(c.apps().all(|a| a.name != "debug"));
    c.delete_bare_pod("free").unwrap();
    c.delete_bare_pod("pinned").unwrap();
    // The pod garbage collector deletes the orphans (ghost's node never
    // came, huge's went away) 40 s after it finds them.
    c.set_now(c.now() + 40);
    converge(&mut c);
    assert_eq!(c.pods().count(), 0);
    // Its name is free again.
    c.create_bare_pod(pod("debug", 100, None)).unwrap();
    converge(&mut c);
    assert!(node_of(&c, "debug").is_some());
}

/// Issue 42, row 8: pods that vanished from the output with no word. Each
/// is there now with the status Kubernetes would show: a nodeName no node
/// has leaves the pod Pending (never scheduled) until the pod garbage
/// collector deletes it 40 s later, or a node of that name takes it; a pod
/// bound to a NotReady node is bound there, not Ready, until the
/// taint-eviction controller deletes it after its 300 s for the unreachable
/// taint; a Deployment naming a missing PriorityClass says FailedCreate.
#[test]
fn bare_pods_of_missing_or_not_ready_nodes_and_forbidden_pods_are_shown_as_kubernetes_shows_them() {
    use shepherd::simulator::{Event, Simulator};
    let pod = |name: &str, node: &str| BarePodSpec {
        name: name.into(),
        template: PodTemplate::new(Resources::new(100, 64 * MIB)),
        node_name: Some(node.into()),
    };
    let mut sim = Simulator::new(1, Profile::kube_scheduler());
    for e in [
        Event::AddNode(NodeSpec::new("node-1", 2000, 4096 * MIB)),
        Event::AddNode(NodeSpec::new("down", 2000, 4096 * MIB)),
        Event::FailNode("down".into()),
    ] {
        sim.submit(e).unwrap();
    }
    sim.run(52);
    assert!(!sim.cluster().node("down").unwrap().ready);
    for e in [
        Event::CreatePod(pod("ghost", "node-9")),
        Event::CreatePod(pod("late", "node-7")),
        Event::CreatePod(pod("stranded", "down")),
        Event::Deploy(
            DeploymentSpec::new("web", 2, Resources::new(100, 64 * MIB))
                .with_template(|t| t.with_priority_class("missing-class")),
        ),
    ] {
        sim.submit(e).unwrap();
    }
    sim.step();
    let t0 = sim.tick();
    let c = sim.cluster();
    let ghost = c.pod_by_name("ghost").unwrap();
    assert_eq!(
        (ghost.phase, ghost.node, ghost.node_name),
        (shepherd::PodPhase::Pending, None, Some("node-9"))
    );
    let why = c.pending_reason("ghost").unwrap().unwrap();
    assert!(
        why.contains("no node has this name") && why.contains(&format!("tick {}", t0 + 40)),
        "{why}"
    );
    let stranded = c.pod_by_name("stranded").unwrap();
    assert_eq!(node_of(c, "stranded").as_deref(), Some("down"));
    assert!(!stranded.ready);
    assert_eq!(stranded.eviction_at, Some(t0 + 300));
    let web = c.app("web").unwrap();
    assert_eq!((web.desired, web.current), (2, 0));
    let (reason, message) = web.failure.clone().expect("web cannot create its pods");
    assert_eq!(reason, "FailedCreate");
    assert!(
        message.ends_with("is forbidden: no PriorityClass with name missing-class was found"),
        "{message}"
    );
    verify_capacity(c).unwrap();
    verify_settled(c).unwrap();
    // A node named as `late` wants registers: its kubelet takes the pod.
    sim.submit(Event::AddNode(NodeSpec::new("node-7", 2000, 4096 * MIB)))
        .unwrap();
    sim.step();
    assert_eq!(node_of(sim.cluster(), "late").as_deref(), Some("node-7"));
    // podgc: ghost goes 40 s after it was created.
    while sim.tick() < t0 + 39 {
        sim.step();
    }
    assert!(sim.cluster().pod_by_name("ghost").is_ok());
    sim.step();
    assert!(sim.cluster().pod_by_name("ghost").is_err());
    // Created by its user and deleted by podgc (gc_controller.go,
    // gcOrphaned), never scheduled nor run: no component logs an Event
    // about it.
    assert!(!sim
        .cluster()
        .rendered_events()
        .iter()
        .any(|e| e.object == "pod/ghost"));
    // The taint-eviction controller: stranded goes after its 300 s.
    while sim.tick() < t0 + 300 {
        sim.step();
    }
    assert!(sim.cluster().pod_by_name("stranded").is_err());
    assert!(sim
        .cluster()
        .rendered_events()
        .iter()
        .any(|e| e.object == "pod/stranded" && e.reason == "TaintManagerEviction"));
}

/// Issue 42, row 9: a bare Pod bound by nodeName to a node with a NoExecute
/// taint it does not tolerate ran there, while explain said TaintToleration
/// rejects the node. The taint-eviction controller deletes it as soon as it
/// sees it bound, in the same pass (no tick needs to pass: `simulate`
/// converges without one).
#[test]
fn a_bare_pod_bound_to_an_untolerated_no_execute_taint_is_deleted_by_the_taint_eviction_controller()
{
    let mut c = Cluster::new();
    c.add_node(
        NodeSpec::new("node-1", 2000, 4096 * MIB).with_taint(Taint::new(
            "maintenance",
            "",
            TaintEffect::NoExecute,
        )),
    )
    .unwrap();
    let pinned = |name: &str, tolerations: Vec<Toleration>| {
        let mut template = PodTemplate::new(Resources::new(100, 64 * MIB));
        template.tolerations = tolerations;
        BarePodSpec {
            name: name.into(),
            template,
            node_name: Some("node-1".into()),
        }
    };
    c.create_bare_pod(pinned("pinned", vec![])).unwrap();
    c.create_bare_pod(pinned(
        "tolerant",
        vec![Toleration::exists(
            "maintenance",
            Some(TaintEffect::NoExecute),
        )],
    ))
    .unwrap();
    converge(&mut c);
    assert!(c.pod_by_name("pinned").is_err(), "deleted");
    assert_eq!(node_of(&c, "tolerant").as_deref(), Some("node-1"));
    // The taint-eviction controller marks it (taint_eviction.go,
    // emitPodDeletionEvent), then its kubelet stops it.
    let about: Vec<(&str, &str, String)> = c
        .rendered_events()
        .into_iter()
        .filter(|e| e.object == "pod/pinned")
        .map(|e| (e.reason, e.source, e.message))
        .collect();
    assert_eq!(
        about,
        [
            (
                "TaintManagerEviction",
                "taint-eviction-controller",
                "Marking for deletion Pod default/pinned".to_string()
            ),
            (
                "Killing",
                "kubelet",
                "Stopping container pinned".to_string()
            ),
        ]
    );
    // Bound by nodeName, not by a scheduler: no Scheduled event.
    assert!(!c
        .rendered_events()
        .iter()
        .any(|e| e.reason == "Scheduled" && e.object == "pod/tolerant"));
    assert!(c.apps().all(|a| a.name != "pinned"), "nobody recreates it");
}

// ----- update strategies: RollingUpdate (maxUnavailable, maxSurge) and OnDelete

/// One tick of cluster time, converged.
fn tick(c: &mut Cluster) {
    c.set_now(c.now() + 1);
    converge(c);
}

/// From scratch, per eligible node of `ds` (eligibility by `should_run` from
/// the node specs): (eligible nodes, nodes without an available pod of it,
/// nodes with two of its pods, most pods on one node, pods of an older
/// version than the spec's, pods of the spec's version that are available).
fn roll_counts(c: &Cluster, ds: &DaemonSetSpec) -> (u32, u32, u32, u32, u32, u32) {
    let mut per_node: BTreeMap<String, (u32, bool)> = BTreeMap::new();
    let (mut old, mut new_available) = (0, 0);
    for p in c.pods().filter(|p| p.app == ds.name) {
        let fresh = p.template.version == ds.template.version;
        if !fresh {
            old += 1;
        } else if p.available {
            new_available += 1;
        }
        assert!(
            !p.available || p.ready,
            "{} is available but not Ready",
            p.name()
        );
        if let Some(n) = p.node.and_then(|n| c.node_by_id(n)) {
            let e = per_node.entry(n.name().to_string()).or_default();
            e.0 += 1;
            e.1 |= p.available;
        }
    }
    let (mut eligible, mut unavailable, mut doubled, mut most) = (0, 0, 0, 0);
    for n in c.nodes() {
        let (pods, available) = per_node.get(n.name()).copied().unwrap_or((0, false));
        most = most.max(pods);
        if should_run(&n, ds).0 {
            eligible += 1;
            if !available {
                unavailable += 1;
            }
            if pods == 2 {
                doubled += 1;
            }
        }
    }
    (eligible, unavailable, doubled, most, old, new_available)
}

fn nodes(n: u32, cpu: u64) -> Cluster {
    let mut c = Cluster::new();
    for i in 0..n {
        c.add_node(NodeSpec::new(&format!("node-{i}"), cpu, 8192 * MIB))
            .unwrap();
    }
    c
}

fn agent(min_ready: u32, ready_after: u32) -> DaemonSetSpec {
    let mut ds = DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(100, 64 * MIB))
            .with_label("app", "agent")
            .with_ready_after(ready_after),
    );
    ds.min_ready_seconds = min_ready;
    ds
}

/// Runs ticks until every eligible node has one available pod of the
/// spec's version; returns the peak (unavailable, doubled) seen meanwhile.
fn roll_to_end(c: &mut Cluster, ds: &DaemonSetSpec, limit: u32) -> (u32, u32) {
    let mut peak = (0, 0);
    for _ in 0..limit {
        tick(c);
        let (eligible, unavailable, doubled, _, old, fresh) = roll_counts(c, ds);
        peak = (peak.0.max(unavailable), peak.1.max(doubled));
        if old == 0 && fresh == eligible && doubled == 0 {
            return peak;
        }
    }
    panic!(
        "the roll of {} did not end in {limit} ticks: {:?}",
        ds.name,
        roll_counts(c, ds)
    );
}

#[test]
fn max_unavailable_percent_rounds_up_against_the_nodes_that_should_run_the_pod() {
    // 10 eligible nodes: 25% is 2.5, rounded up to 3 (UnavailableCount
    // scales with rounding up, unlike a Deployment's maxUnavailable); 30% is
    // exactly 3; 31% is 3.1, so 4.
    for (pct, expected) in [(25, 3), (30, 3), (31, 4), (1, 1), (100, 10)] {
        let mut c = nodes(10, 4000);
        let mut ds = agent(0, 2);
        ds.max_unavailable = IntOrPercent::Percent(pct);
        c.create_daemonset(ds.clone()).unwrap();
        roll_to_end(&mut c, &ds, 30);
        ds.template = ds.template.clone().with_version("v2");
        c.update_daemonset(ds.clone()).unwrap();
        let (unavailable, doubled) = roll_to_end(&mut c, &ds, 60);
        assert_eq!(
            (unavailable, doubled),
            (expected, 0),
            "maxUnavailable {pct}% of 10 nodes"
        );
    }
}

#[test]
fn max_surge_creates_the_new_pod_beside_the_old_one_and_deletes_the_old_once_available() {
    // 5 nodes, maxSurge 30%: 1.5 rounded up to 2 nodes at a time hold two
    // pods, and no node is ever without an available pod (maxUnavailable 0).
    // A pod is Ready 1 tick after binding and available 3 ticks later.
    let mut c = nodes(5, 4000);
    let ds = agent(3, 1).with_surge(IntOrPercent::Percent(30));
    c.create_daemonset(ds.clone()).unwrap();
    roll_to_end(&mut c, &ds, 30);
    let mut v2 = ds.clone();
    v2.template = v2.template.clone().with_version("v2");
    c.update_daemonset(v2.clone()).unwrap();
    tick(&mut c);
    let (_, unavailable, doubled, most, old, _) = roll_counts(&c, &v2);
    assert_eq!((unavailable, doubled, most, old), (0, 2, 2, 5));
    let rolling = shepherd::DaemonSetUpdateStrategyType::RollingUpdate;
    // updatedNumberScheduled counts each node by its first pod, bound
    // before unbound and then the oldest (podByCreationTimestampAndPhase):
    // on a surging node that is the old pod, so no node is up to date yet.
    assert_eq!(
        c.daemonsets()[0].rollout_status(rolling),
        "Waiting for daemon set \"agent\" rollout to finish: 0 out of 5 new pods have been updated..."
    );
    // Two nodes hold 100m + 100m while the surge lasts.
    let busy = c.nodes().filter(|n| n.allocated.cpu_millis == 200).count();
    assert_eq!(busy, 2);
    let (unavailable, doubled) = roll_to_end(&mut c, &v2, 60);
    assert_eq!((unavailable, doubled), (0, 2));
    assert_eq!(
        c.daemonsets()[0].rollout_status(rolling),
        "daemon set \"agent\" successfully rolled out"
    );
    // An integer maxSurge is taken as is: 1 node at a time.
    let mut v3 = v2.with_surge(IntOrPercent::Int(1));
    v3.template = v3.template.clone().with_version("v3");
    c.update_daemonset(v3.clone()).unwrap();
    assert_eq!(roll_to_end(&mut c, &v3, 80), (0, 1));
}

#[test]
fn a_surge_pod_that_does_not_fit_beside_the_old_one_stays_pending_and_the_old_one_keeps_running() {
    // 250m nodes: the old pod (200m) and its surge pod (200m) cannot share one.
    let mut c = nodes(2, 250);
    let mut ds = agent(0, 1).with_surge(IntOrPercent::Int(1));
    ds.template.requests = Resources::new(200, 64 * MIB);
    c.create_daemonset(ds.clone()).unwrap();
    roll_to_end(&mut c, &ds, 10);
    ds.template = ds.template.clone().with_version("v2");
    c.update_daemonset(ds.clone()).unwrap();
    for _ in 0..10 {
        tick(&mut c);
    }
    let st = &c.daemonsets()[0];
    // The pending pod is the one updated (new-template) pod.
    assert_eq!((st.pending, st.ready, st.updated), (1, 2, 1), "{st:?}");
}

#[test]
fn on_delete_replaces_nothing_until_a_pod_is_deleted_or_evicted() {
    let mut c = nodes(3, 4000);
    let ds = agent(0, 1).on_delete();
    c.create_daemonset(ds.clone()).unwrap();
    roll_to_end(&mut c, &ds, 10);
    let mut v2 = ds.clone();
    v2.template = v2.template.clone().with_version("v2");
    c.update_daemonset(v2.clone()).unwrap();
    for _ in 0..20 {
        tick(&mut c);
    }
    assert_eq!(roll_counts(&c, &v2).4, 3, "every pod is still the old one");
    // kubectl has no rollout to wait for under OnDelete.
    assert_eq!(
        c.daemonsets()[0].rollout_status(v2.strategy),
        "error: rollout status is only available for RollingUpdate strategy type"
    );
    verify_settled(&c).unwrap();
    let victim = c
        .pods_on(c.node("node-1").unwrap().id)
        .map(|p| p.name())
        .next()
        .unwrap();
    c.evict(&victim).unwrap();
    tick(&mut c);
    tick(&mut c);
    let on1: Vec<_> = c
        .pods_on(c.node("node-1").unwrap().id)
        .map(|p| (p.template.version.clone(), p.ready))
        .collect();
    assert_eq!(on1, [("v2".to_string(), true)]);
    assert_eq!(roll_counts(&c, &v2).4, 2, "the other two are untouched");
    // Switching to RollingUpdate rolls the rest.
    let mut rolling = v2.clone();
    rolling.strategy = shepherd::DaemonSetUpdateStrategyType::RollingUpdate;
    c.update_daemonset(rolling.clone()).unwrap();
    assert_eq!(roll_to_end(&mut c, &rolling, 20).0, 1);
}

#[test]
fn update_strategy_validation_follows_kubernetes() {
    let ds = agent(0, 1);
    let refuse = |d: DaemonSetSpec, words: &str| {
        let e = d.validate().unwrap_err().to_string();
        assert!(e.contains(words), "{e}");
    };
    let mut both_zero = ds.clone();
    both_zero.max_unavailable = IntOrPercent::Percent(0);
    refuse(
        both_zero,
        "maxUnavailable of DaemonSet agent is 0 while maxSurge is 0",
    );
    let mut both_set = ds.clone();
    both_set.max_surge = IntOrPercent::Int(1);
    refuse(
        both_set,
        "maxSurge 1 of DaemonSet agent is set while maxUnavailable is 1",
    );
    refuse(
        ds.clone().with_surge(IntOrPercent::Percent(101)),
        "maxSurge 101% of DaemonSet agent is out of range",
    );
    ds.clone()
        .with_surge(IntOrPercent::Percent(100))
        .validate()
        .unwrap();
    // OnDelete reads neither number.
    let mut od = ds.on_delete();
    od.max_unavailable = IntOrPercent::Int(0);
    od.validate().unwrap();
    let mut c = nodes(1, 1000);
    assert!(c
        .create_daemonset({
            let mut d = agent(0, 1);
            d.max_unavailable = IntOrPercent::Int(0);
            d
        })
        .is_err());
    assert_eq!(c.daemonsets().len(), 0, "a refusal changes nothing");
}

#[test]
fn rolls_keep_within_max_unavailable_and_max_surge_at_every_tick() {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_DS_SEED") {
        Ok(s) => vec![s.parse().expect("SHEPHERD_DS_SEED is a number")],
        Err(_) => (1..=6).collect(),
    };
    for seed in seeds {
        let r = catch_unwind(AssertUnwindSafe(|| roll_seed(seed, ops())));
        if let Err(e) = r {
            eprintln!(
                "failing seed: SHEPHERD_DS_SEED={seed} cargo test -p shepherd --test daemonset rolls_keep"
            );
            std::panic::resume_unwind(e);
        }
    }
}

fn roll_seed(seed: u64, ops: u64) {
    let mut rng = Prng::new(seed);
    let n = 2 + rng.below(11) as u32;
    let mut c = Cluster::new();
    for i in 0..n {
        let mut node = NodeSpec::new(&format!("node-{i}"), 4000, 8192 * MIB);
        // Some nodes are not for the DaemonSet: it does not tolerate them.
        if rng.below(5) == 0 {
            node = node.with_taint(Taint::new("dedicated", "db", TaintEffect::NoSchedule));
        }
        c.add_node(node).unwrap();
    }
    let mut ds = agent(rng.below(4) as u32, 1 + rng.below(3) as u32);
    match rng.below(5) {
        0 => ds.max_unavailable = IntOrPercent::Int(1 + rng.below(3) as u32),
        1 => ds.max_unavailable = IntOrPercent::Percent(1 + rng.below(100) as u32),
        2 => ds = ds.with_surge(IntOrPercent::Int(1 + rng.below(3) as u32)),
        3 => ds = ds.with_surge(IntOrPercent::Percent(1 + rng.below(100) as u32)),
        _ => ds = ds.on_delete(),
    }
    let rolling = ds.strategy == shepherd::DaemonSetUpdateStrategyType::RollingUpdate;
    c.create_daemonset(ds.clone()).unwrap();
    roll_to_end(&mut c, &ds, 40);
    let mut version = 1;
    let mut roll_started: Option<u64> = None;
    for op in 0..ops {
        let (eligible, _, _, _, stale, fresh) = roll_counts(&c, &ds);
        let settled = stale == 0 && fresh == eligible;
        if settled {
            roll_started = None;
        }
        let ctx = format!("seed {seed}, op {op}, {n} nodes, {ds:?}");
        if settled && rng.below(3) == 0 {
            version += 1;
            ds.template = ds.template.clone().with_version(&format!("v{version}"));
            c.update_daemonset(ds.clone()).unwrap();
            roll_started = Some(c.now());
        } else if !rolling && rng.below(3) == 0 {
            // OnDelete: someone deletes a pod; its node gets the new version.
            let pods: Vec<(String, bool)> = c
                .pods()
                .filter(|p| p.app == "agent")
                .map(|p| (p.name(), p.ready))
                .collect();
            if !pods.is_empty() {
                let (name, _) = pods[rng.below(pods.len() as u64) as usize].clone();
                c.evict(&name).unwrap();
            }
        }
        // Old pods left after what the test did, before the controllers run.
        let old = roll_counts(&c, &ds).4;
        tick(&mut c);
        let (eligible, unavailable, doubled, most, old_now, _) = roll_counts(&c, &ds);
        let max_u = ds.max_unavailable.scaled(eligible, true);
        let max_s = ds.max_surge.scaled(eligible, true);
        if !rolling {
            assert!(most <= 1, "{ctx}: OnDelete put {most} pods on one node");
            assert_eq!(
                old_now, old,
                "{ctx}: OnDelete replaced a pod nobody deleted"
            );
        } else if max_s == 0 {
            assert!(most <= 1, "{ctx}: {most} pods on one node without surge");
            assert!(
                unavailable <= max_u.max(1),
                "{ctx}: {unavailable} nodes without an available pod; maxUnavailable resolves to {max_u}"
            );
        } else {
            assert!(most <= 2, "{ctx}: {most} pods on one node");
            assert_eq!(
                unavailable, 0,
                "{ctx}: a node without an available pod during a surge"
            );
            assert!(
                doubled <= max_s,
                "{ctx}: {doubled} nodes surging; maxSurge resolves to {max_s}"
            );
        }
        if let (true, Some(t)) = (rolling, roll_started) {
            // Every node rolls within ceil(eligible / step) steps of at most
            // readyAfter + minReadySeconds + 2 ticks each.
            let step = max_u.max(max_s).max(1) as u64;
            let per = 3 + 2 + ds.min_ready_seconds as u64;
            let bound = (eligible as u64).div_ceil(step) * per + 4;
            assert!(
                c.now() - t <= bound,
                "{ctx}: the roll takes more than {bound} ticks"
            );
        }
        verify_capacity(&c).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    }
}

// ----- preemption by DaemonSet pods ------------------------------------------

/// The name of the pod of `app` on `node`, if any.
fn pod_of_on(c: &Cluster, app: &str, node: &str) -> Option<String> {
    let id = c.node(node).ok()?.id;
    c.pods_on(id)
        .find(|p| p.app == app)
        .map(|p| c.short_pod_names(&p.name()))
}

/// A pod's metadata.uid, as kube-scheduler's Preempted event names a preemptor.
fn uid(c: &Cluster, pod: &str) -> String {
    c.pod_by_name(pod).expect("the pod should exist").uid()
}

fn events_of(c: &Cluster, reason: &str) -> Vec<String> {
    c.rendered_events()
        .into_iter()
        .filter(|e| e.reason == reason)
        .map(|e| c.short_pod_names(&format!("{} {}", e.object, e.message)))
        .collect()
}

/// Two 2-CPU nodes, each labelled `slot=<name>`, and three PriorityClasses:
/// `low` 10, `mid` 20, `high` 5000.
fn two_slots() -> Cluster {
    let mut c = Cluster::new();
    for n in ["n1", "n2"] {
        c.add_node(NodeSpec::new(n, 2000, 4096 * MIB).with_label("slot", n))
            .unwrap();
    }
    for (name, value) in [("low", 10), ("mid", 20), ("high", 5000)] {
        c.add_priority_class(PriorityClass::new(name, value))
            .unwrap();
    }
    c
}

/// A Deployment of 1-CPU pods with a PriorityClass, kept on one node.
fn on_slot(name: &str, replicas: u32, class: &str, node: &str) -> DeploymentSpec {
    DeploymentSpec::new(name, replicas, Resources::new(1000, 256 * MIB)).with_template(|t| {
        t.with_label("app", name)
            .with_priority_class(class)
            .with_node_selector("slot", node)
    })
}

/// A half-CPU DaemonSet with a PriorityClass.
fn critical_agent(class: &str) -> DaemonSetSpec {
    DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(500, 128 * MIB))
            .with_label("app", "agent")
            .with_priority_class(class),
    )
}

/// Runs a few ticks so that pods become Ready (budgets count healthy pods).
fn settle(c: &mut Cluster, ticks: u64) {
    for _ in 0..ticks {
        tick(c);
    }
}

/// kube-scheduler schedules DaemonSet pods (since 1.12) and so runs
/// DefaultPreemption for them like for any pod. n1 runs keep-0 (priority
/// 5000) and batch-0 (10), 1 CPU each; the agent (half a CPU,
/// system-node-critical: 2000001000) must run there. SelectVictimsOnNode
/// removes both (both are lower), then reprieves the more important first:
/// keep-0 goes back (1 CPU left, enough), batch-0 does not: the victim.
/// n2 runs api-0 and api-1 (5000 each): the later, api-1, is the victim.
#[test]
fn a_daemonset_pod_preempts_a_lower_priority_pod_on_its_node_never_a_higher_one() {
    let mut c = two_slots();
    c.deploy(on_slot("keep", 1, "high", "n1")).unwrap();
    c.deploy(on_slot("batch", 1, "low", "n1")).unwrap();
    c.deploy(on_slot("api", 2, "high", "n2")).unwrap();
    converge(&mut c);
    assert_eq!(c.pending_count(), 0);
    c.create_daemonset(critical_agent("system-node-critical"))
        .unwrap();
    converge(&mut c);
    // n1: the agent is bound where batch-0 was; keep-0 stays.
    let agent_n1 = pod_of_on(&c, "agent", "n1").expect("an agent pod on n1");
    assert_eq!(pod_of_on(&c, "keep", "n1").as_deref(), Some("keep-0"));
    assert_eq!(pod_of_on(&c, "batch", "n1"), None);
    // Events in kube-scheduler's and the kubelet's words.
    let agent_n2 = pod_of_on(&c, "agent", "n2").expect("an agent pod on n2");
    assert_eq!(
        events_of(&c, "Preempted"),
        [
            format!(
                "pod/batch-0 Preempted by pod {} on node n1",
                uid(&c, &agent_n1)
            ),
            format!(
                "pod/api-1 Preempted by pod {} on node n2",
                uid(&c, &agent_n2)
            ),
        ]
    );
    assert_eq!(
        events_of(&c, "Killing"),
        [
            "pod/batch-0 Stopping container batch",
            "pod/api-1 Stopping container api"
        ]
    );
    let pre = c.last_preemption(&agent_n1).unwrap();
    assert_eq!(pre.node, "n1");
    assert_eq!(pre.priority, shepherd::priority::SYSTEM_NODE_CRITICAL);
    // The pinned node is the only potential node (NodeAffinity's PreFilter).
    assert_eq!(pre.decided_by, "the only candidate");
    assert_eq!(pre.candidates.len(), 1);
    assert_eq!(
        pre.candidates[0]
            .victims
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["batch-0"]
    );
    assert_eq!(pre.candidates[0].pdb_violations, 0);
    assert_eq!(pre.candidates[0].highest_priority, 10);
    // Bound on its nominated node: the nomination is cleared.
    assert_eq!(c.nominated_node(&agent_n1), None);
    let ex = c.explain(&agent_n1, Profile::kube_scheduler()).unwrap();
    assert!(
        c.short_pod_names(&ex.summary)
            .contains("preemption deleted 1 lower-priority pod(s) on n1 (batch-0)"),
        "{}",
        ex.summary
    );
    // n2 runs two 1-CPU pods of priority 5000 < system-node-critical: the
    // agent preempts one there too, the least important (api-1, the later).
    assert_eq!(
        c.last_preemption(&agent_n2).unwrap().candidates[0]
            .victims
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["api-1"]
    );
    // The replacements wait at their own priority: they cannot preempt
    // the agents (higher) nor keep-0 and api-0 (equal or higher).
    let mut pending: Vec<String> = c
        .pending_pods()
        .map(|p| c.short_pod_names(&p.name()))
        .collect();
    pending.sort();
    assert_eq!(pending, ["api-2", "batch-1"]);
    verify_capacity(&c).unwrap();
    verify_constraints(&c).unwrap();
    verify_settled(&c).unwrap();
}

/// With a class below every pod on the node, the DaemonSet pod preempts
/// nothing and stays Pending with the filter's reasons.
#[test]
fn a_daemonset_pod_never_preempts_pods_of_higher_or_equal_priority() {
    let mut c = two_slots();
    c.deploy(on_slot("keep", 2, "high", "n1")).unwrap();
    c.deploy(on_slot("peer", 2, "mid", "n2")).unwrap();
    converge(&mut c);
    c.create_daemonset(critical_agent("mid")).unwrap();
    converge(&mut c);
    assert_eq!(events_of(&c, "Preempted"), Vec::<String>::new());
    assert_eq!(c.pods().filter(|p| p.app == "agent").count(), 2);
    for p in c.pods().filter(|p| p.app == "agent") {
        assert_eq!(p.node, None, "{} is bound", p.name());
        assert_eq!(
            c.preemption_preview(&p.name(), Profile::kube_scheduler())
                .unwrap(),
            None
        );
        let why = c.pending_reason(&p.name()).unwrap().unwrap();
        assert!(why.contains("1 Insufficient cpu"), "{why}");
    }
    assert_eq!(c.pods().filter(|p| p.node.is_some()).count(), 4);
    verify_settled(&c).unwrap();
}

/// filterPodsWithPDBViolation: the pods whose eviction would break a
/// budget are reprieved first, so the agent takes the priority-20 pod and
/// spares the priority-10 one its budget protects (minAvailable 1 of 1:
/// disruptionsAllowed 0). With the node full of protected pods only, the
/// agent still preempts (a budget is best effort for preemption) and the
/// violation is counted. (free's class never preempts, so its replacement
/// waits instead of taking guarded-0's place in turn.)
#[test]
fn a_daemonset_pod_spares_budget_protected_pods_when_it_can() {
    let mut c = two_slots();
    c.add_priority_class(
        PriorityClass::new("patient", 20).with_preemption_policy(shepherd::PreemptionPolicy::Never),
    )
    .unwrap();
    c.deploy(on_slot("guarded", 1, "low", "n1")).unwrap();
    c.deploy(on_slot("free", 1, "patient", "n1")).unwrap();
    c.deploy(on_slot("solo", 2, "low", "n2")).unwrap();
    for app in ["guarded", "solo"] {
        c.add_pdb(PdbSpec {
            name: app.into(),
            selector: Selector::new(&[("app", app)]),
            budget: Budget::MinAvailable(IntOrPercent::Percent(100)),
        })
        .unwrap();
    }
    settle(&mut c, 3);
    assert_eq!(c.pdb_status("guarded").unwrap().disruptions_allowed, 0);
    c.create_daemonset(critical_agent("high")).unwrap();
    converge(&mut c);
    let on_n1 = pod_of_on(&c, "agent", "n1").expect("an agent pod on n1");
    let pre = c.last_preemption(&on_n1).unwrap();
    // Removing both leaves 2 CPUs; guarded-0 (violating) is put back first
    // and fits (1 CPU left for the agent's half); free-0 then does not.
    assert_eq!(
        pre.candidates[0]
            .victims
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["free-0"]
    );
    assert_eq!(pre.candidates[0].pdb_violations, 0);
    assert_eq!(pod_of_on(&c, "guarded", "n1").as_deref(), Some("guarded-0"));
    // n2: both pods are protected; one must go, and it is a violation.
    let on_n2 = pod_of_on(&c, "agent", "n2").expect("an agent pod on n2");
    let pre = c.last_preemption(&on_n2).unwrap();
    assert_eq!(
        pre.candidates[0]
            .victims
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["solo-1"]
    );
    assert_eq!(pre.candidates[0].pdb_violations, 1);
    assert_eq!(
        events_of(&c, "Preempted"),
        [
            format!("pod/free-0 Preempted by pod {} on node n1", uid(&c, &on_n1)),
            format!("pod/solo-1 Preempted by pod {} on node n2", uid(&c, &on_n2)),
        ]
    );
    verify_capacity(&c).unwrap();
    verify_settled(&c).unwrap();
}

// ----- hostNetwork -----------------------------------------------------------

/// AddOrUpdateDaemonPodTolerations adds network-unavailable:NoSchedule to
/// the pods of a DaemonSet whose template has hostNetwork: true, so such a
/// DaemonSet runs on a node whose pod network is not up yet, and another
/// does not. Turning hostNetwork on or off is a template change: the pods
/// roll, and the tainted node gets its pod, or loses it.
#[test]
fn host_network_daemonsets_tolerate_network_unavailable_nodes() {
    let mut c = three_nodes();
    c.taint_node(
        "node-1.example.com",
        Taint::new(
            "node.kubernetes.io/network-unavailable",
            "",
            TaintEffect::NoSchedule,
        ),
    )
    .unwrap();
    let plain = DaemonSetSpec::new(
        "plain",
        PodTemplate::new(Resources::new(100, 64 * MIB)).with_label("app", "plain"),
    );
    let cni = DaemonSetSpec::new(
        "cni",
        PodTemplate::new(Resources::new(100, 64 * MIB)).with_label("app", "cni"),
    )
    .with_host_network();
    c.create_daemonset(plain.clone()).unwrap();
    c.create_daemonset(cni.clone()).unwrap();
    converge(&mut c);
    let counts = |c: &Cluster| -> BTreeMap<String, (u32, u32)> {
        c.daemonsets()
            .into_iter()
            .map(|s| (s.name.clone(), (s.desired, s.current)))
            .collect()
    };
    assert_eq!(counts(&c)["plain"], (2, 2));
    assert_eq!(counts(&c)["cni"], (3, 3));
    assert!(pod_of_on(&c, "cni", "node-1.example.com").is_some());
    assert_eq!(pod_of_on(&c, "plain", "node-1.example.com"), None);
    check_daemonsets(&c, &[plain.clone(), cni.clone()]).unwrap();
    // The toleration is the controller's: the declared spec has none.
    assert!(c
        .daemonset_spec("cni")
        .unwrap()
        .template
        .tolerations
        .is_empty());
    assert!(c.daemonset_spec("cni").unwrap().host_network);
    // hostNetwork on for plain: a new template generation, rolled.
    let on = plain.clone().with_host_network();
    c.update_daemonset(on.clone()).unwrap();
    settle(&mut c, 10);
    assert_eq!(counts(&c)["plain"], (3, 3));
    assert!(pod_of_on(&c, "plain", "node-1.example.com").is_some());
    assert!(c.pods().filter(|p| p.app == "plain").all(|p| !p.outdated));
    check_daemonsets(&c, &[on, cni.clone()]).unwrap();
    // hostNetwork off for cni: node-1 no longer should run its pod (an
    // untolerated NoSchedule taint), which would continue running there
    // (no NoExecute taint); the roll, which walks every node with a pod,
    // deletes that old pod and the manage loop creates none there.
    let mut off = cni.clone();
    off.host_network = false;
    c.update_daemonset(off.clone()).unwrap();
    settle(&mut c, 10);
    assert_eq!(pod_of_on(&c, "cni", "node-1.example.com"), None);
    assert_eq!(counts(&c)["cni"], (2, 2));
    assert!(c.pods().filter(|p| p.app == "cni").all(|p| !p.outdated));
    check_daemonsets(&c, &[off]).unwrap();
}

/// AddOrUpdateTolerationInPodSpec replaces a template's toleration that
/// matches the automatic one (same key, operator, value and effect), so a
/// tolerationSeconds given there is dropped: a DaemonSet pod stays on a
/// NotReady node for good. One that differs (operator Equal) is kept beside it.
#[test]
fn automatic_tolerations_replace_a_matching_one_and_keep_the_others() {
    let mut with_seconds =
        Toleration::exists("node.kubernetes.io/not-ready", Some(TaintEffect::NoExecute));
    with_seconds.toleration_seconds = Some(30);
    let other = Toleration::equal(
        "node.kubernetes.io/unreachable",
        "x",
        Some(TaintEffect::NoExecute),
    );
    let t = PodTemplate::new(Resources::new(100, 64 * MIB))
        .with_toleration(with_seconds)
        .with_toleration(other.clone());
    let got = shepherd::daemon_tolerations(&t, false);
    assert_eq!(got.tolerations.len(), 7, "{:?}", got.tolerations);
    assert_eq!(got.tolerations[0].key, "node.kubernetes.io/not-ready");
    assert_eq!(got.tolerations[0].toleration_seconds, None);
    assert_eq!(got.tolerations[1], other);
    assert!(!got
        .tolerations
        .iter()
        .any(|x| x.key == "node.kubernetes.io/network-unavailable"));
    let host = shepherd::daemon_tolerations(&t, true);
    assert_eq!(host.tolerations.len(), 8);
    let last = host.tolerations.last().unwrap();
    assert_eq!(
        (last.key.as_str(), last.effect, last.toleration_seconds),
        (
            "node.kubernetes.io/network-unavailable",
            Some(TaintEffect::NoSchedule),
            None
        )
    );
}

/// updateDaemonSetStatus counts by node: desiredNumberScheduled is the nodes
/// that should run the pod (shouldRun), not those that merely keep one
/// (shouldContinueRunning): a node that takes an untolerated NoSchedule
/// taint keeps its pod, which is then misscheduled. currentNumberScheduled
/// counts a node whose pod is still Pending (the pod's node is read from its
/// metadata.name node affinity).
#[test]
fn desired_counts_the_nodes_that_should_run_the_pod_and_a_kept_pod_is_misscheduled() {
    let mut c = three_nodes();
    let ds = DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(500, 256 * MIB)).with_label("app", "agent"),
    );
    c.create_daemonset(ds.clone()).unwrap();
    tick(&mut c);
    tick(&mut c);
    let st = &c.daemonsets()[0];
    assert_eq!(
        (
            st.desired,
            st.current,
            st.ready,
            st.updated_scheduled,
            st.misscheduled
        ),
        (3, 3, 3, 3, 0),
        "{st:?}"
    );
    c.taint_node(
        "node-0.example.com",
        Taint::new("dedicated", "db", TaintEffect::NoSchedule),
    )
    .unwrap();
    tick(&mut c);
    // The pod stays (NoSchedule does not evict) but the node no longer
    // should run one.
    assert!(pod_of_on(&c, "agent", "node-0.example.com").is_some());
    let st = &c.daemonsets()[0];
    assert_eq!(
        (
            st.desired,
            st.current,
            st.ready,
            st.available,
            st.misscheduled
        ),
        (2, 2, 2, 2, 1),
        "{st:?}"
    );
    let row = c
        .apps()
        .find(|a| a.name == "agent")
        .expect("the DaemonSet's row");
    assert_eq!((row.desired, row.current), (2, 3), "{row:?}");
    check_daemonsets(&c, core::slice::from_ref(&ds)).unwrap();
    // A node whose pod cannot be placed is desired and current, not ready.
    c.add_node(NodeSpec::new("small.example.com", 200, 4096 * MIB))
        .unwrap();
    tick(&mut c);
    let st = &c.daemonsets()[0];
    assert_eq!(
        (
            st.desired,
            st.current,
            st.ready,
            st.pending,
            st.misscheduled
        ),
        (3, 3, 2, 1, 1),
        "{st:?}"
    );
    assert_eq!(
        st.rollout_status(ds.strategy),
        "Waiting for daemon set \"agent\" rollout to finish: 2 of 3 updated pods are available..."
    );
}

/// A DaemonSet whose pods request a GPU (a per-GPU agent, say): the
/// controller gives every node a pod, as Kubernetes' does (resources are
/// the scheduler's business); on the GPU nodes it runs, on the plain node
/// it stays Pending with NodeResourcesFit's "Insufficient nvidia.com/gpu",
/// and on a GPU node whose GPUs lower-priority pods hold, its higher
/// priority preempts one of them (the daemon pod's node is its only
/// candidate).
#[test]
fn daemonset_pods_requesting_gpus_fit_gpu_nodes_and_preempt_for_their_gpu() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("gpu-a", 4000, 8192 * MIB).with_scalar("nvidia.com/gpu", 2))
        .unwrap();
    c.add_node(NodeSpec::new("gpu-b", 4000, 8192 * MIB).with_scalar("nvidia.com/gpu", 1))
        .unwrap();
    c.add_node(NodeSpec::new("plain", 4000, 8192 * MIB))
        .unwrap();
    c.add_priority_class(PriorityClass::new("node-critical", 100000))
        .unwrap();
    // gpu-b's one GPU taken by a priority-0 pod first.
    c.deploy(
        DeploymentSpec::new("train", 1, Resources::new(100, 64 * MIB)).with_template(|t| {
            t.with_scalar("nvidia.com/gpu", 1)
                .with_node_selector("kubernetes.io/hostname", "gpu-b")
        }),
    )
    .unwrap();
    converge(&mut c);
    assert_eq!(node_of(&c, "train-0").as_deref(), Some("gpu-b"));
    c.create_daemonset(DaemonSetSpec::new(
        "gpu-agent",
        PodTemplate::new(Resources::new(100, 64 * MIB))
            .with_label("app", "gpu-agent")
            .with_scalar("nvidia.com/gpu", 1)
            .with_priority_class("node-critical"),
    ))
    .unwrap();
    converge(&mut c);
    let mut on: Vec<Option<String>> = c
        .pods()
        .filter(|p| p.name().starts_with("gpu-agent"))
        .map(|p| node_of(&c, &p.name()))
        .collect();
    on.sort();
    assert_eq!(
        on,
        [None, Some("gpu-a".to_string()), Some("gpu-b".to_string())],
        "one pod per node; the plain node's Pending"
    );
    let pending: Vec<String> = c
        .pending_pods()
        .map(|p| p.name())
        .filter(|n| n.starts_with("gpu-agent"))
        .collect();
    let why = c.pending_reason(&pending[0]).unwrap().unwrap();
    assert!(
        why.contains("0/3 nodes are available") && why.contains("1 Insufficient nvidia.com/gpu"),
        "{why}"
    );
    // The daemon pod took gpu-b's GPU from the training pod, which waits.
    assert_eq!(node_of(&c, "train-0"), None);
    verify_capacity(&c).expect("no GPU counted twice");
}
