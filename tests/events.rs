//! The event log against Kubernetes' own emitters (k8s.io/kubernetes
//! v1.37.2): a rollout, a drain, a node failure and a preemption write
//! exactly the events the components that do the work in Kubernetes
//! record, with their reason, type, involved object, source component and
//! message, and nothing else (an API call such as creating a Deployment,
//! cordoning or evicting records no Event of its own).
//!
//! The expected lists are written from Kubernetes' source; each line cites
//! the function that records it. Events are read as emitted
//! (`Cluster::watch_events`, before the correlator counts repeats).

use shepherd::simulator::{Event, Simulator};
use shepherd::{
    Budget, Cluster, ControllerId, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec, PriorityClass,
    RenderedEvent, Resources, ScorePolicy, Selector,
};

/// An event as compared: (type, reason, object, source, message).
type Ev = (String, String, String, String, String);

fn ev(type_: &str, reason: &str, object: &str, source: &str, message: &str) -> Ev {
    (
        type_.into(),
        reason.into(),
        object.into(),
        source.into(),
        message.into(),
    )
}

/// An event with its pod names in their short form (`web-3`:
/// `Cluster::short_pod_names`), so the tables below count pods by ordinal.
fn as_ev(c: &Cluster, e: &RenderedEvent) -> Ev {
    (
        e.type_.into(),
        e.reason.into(),
        c.short_pod_names(&e.object),
        e.source_column(),
        c.short_pod_names(&e.message),
    )
}

fn taken(c: &mut Cluster) -> Vec<Ev> {
    let got = c.take_watched_events();
    got.iter().map(|e| as_ev(c, e)).collect()
}

/// The lines of `got` and `want` side by side, for a failing assertion.
fn table(got: &[Ev], want: &[Ev]) -> String {
    let n = got.len().max(want.len());
    (0..n)
        .map(|i| {
            let mark = if got.get(i) == want.get(i) { " " } else { "!" };
            format!(
                "{mark} {i:>2} got  {:?}\n     want {:?}",
                got.get(i),
                want.get(i)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_events(got: &[Ev], want: &[Ev]) {
    assert!(got == want, "\n{}", table(got, want));
}

fn web(replicas: u32) -> DeploymentSpec {
    DeploymentSpec::new("web", replicas, Resources::new(1000, 1024))
        .with_template(|t| t.with_label("app", "web"))
}

// ----- the components' events, as Kubernetes words them ---------------------

/// deployment_controller.go: the recorder's component.
const DEPLOYMENT: &str = "deployment-controller";
/// replica_set.go, NewReplicaSetController.
const REPLICASET: &str = "replicaset-controller";
/// kube-scheduler's default profile, its schedulerName.
const SCHEDULER: &str = "default-scheduler";
/// node_lifecycle_controller.go, NewNodeLifecycleController.
const NODE_CONTROLLER: &str = "node-controller";
/// cmd/kube-controller-manager/names: TaintEvictionController.
const TAINT_EVICTION: &str = "taint-eviction-controller";

fn kubelet(node: &str) -> String {
    // The kubelet's recorder carries its node as source.host; kubectl's
    // formatEventSource prints "component, host".
    format!("kubelet, {node}")
}

/// sync.go, scaleReplicaSet (and getNewReplicaSet for a new one):
/// "Scaled up|down replica set NAME from A to B", on the Deployment.
fn scaled(rs: &str, from: u32, to: u32) -> Ev {
    let way = if to > from { "up" } else { "down" };
    ev(
        "Normal",
        "ScalingReplicaSet",
        "deployment/web",
        DEPLOYMENT,
        &format!("Scaled {way} replica set {rs} from {from} to {to}"),
    )
}

/// controller_utils.go, RealPodControl.CreatePods: on the ReplicaSet.
fn created(rs: &str, pod: &str) -> Ev {
    ev(
        "Normal",
        "SuccessfulCreate",
        &format!("replicaset/{rs}"),
        REPLICASET,
        &format!("Created pod: {pod}"),
    )
}

/// controller_utils.go, RealPodControl.DeletePod: on the ReplicaSet.
fn deleted(rs: &str, pod: &str) -> Ev {
    ev(
        "Normal",
        "SuccessfulDelete",
        &format!("replicaset/{rs}"),
        REPLICASET,
        &format!("Deleted pod: {pod}"),
    )
}

/// schedule_one.go, bindingCycle's success: "Successfully assigned NS/POD to NODE".
fn scheduled(pod: &str, node: &str) -> Ev {
    ev(
        "Normal",
        "Scheduled",
        &format!("pod/{pod}"),
        SCHEDULER,
        &format!("Successfully assigned default/{pod} to {node}"),
    )
}

/// kuberuntime_container.go, killContainer: "Stopping container NAME",
/// from the pod's node's kubelet.
fn killing(pod: &str, node: &str) -> Ev {
    let container = pod.rsplit_once('-').map_or(pod, |(app, _)| app);
    ev(
        "Normal",
        "Killing",
        &format!("pod/{pod}"),
        &kubelet(node),
        &format!("Stopping container {container}"),
    )
}

/// The ReplicaSet of revision `rev`: `web-<pod-template-hash>`.
fn rs(c: &Cluster, id: ControllerId, rev: u32) -> String {
    c.replica_set_name(id, rev)
}

fn node_of(c: &Cluster, pod: &str) -> String {
    let p = c.pod_by_name(pod).expect("the pod exists");
    let n = p.node.expect("the pod is bound");
    c.node_by_id(n).expect("its node exists").spec.name.clone()
}

// ----- a rollout ---------------------------------------------------------------

/// A Deployment of 3 created, then rolled to a new template with the
/// default strategy (maxSurge 25% -> 1, maxUnavailable 25% -> 0) and pods
/// Ready at once: the Deployment controller (sync.go, rolling.go,
/// rolloutRolling) creates the first ReplicaSet at 3, then alternates
/// reconcileNewReplicaSet (up by one: 3 + 1 surge - 3 old) and
/// reconcileOldReplicaSets (down by one once the new pod is available);
/// the ReplicaSet controller creates and deletes the pods (on its
/// ReplicaSet); the scheduler binds; the kubelet stops each deleted pod.
/// No "Deployment created", no RollingUpdate, no RolloutComplete: creating
/// and updating a Deployment are API calls, and completion is the
/// Progressing condition (NewReplicaSetAvailable), not an Event.
#[test]
fn a_rollout_writes_the_deployment_and_replicaset_controllers_events() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 8000, 16384)).unwrap();
    c.watch_events();
    let id = c.deploy(web(3)).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let v1 = rs(&c, id, 1);
    assert!(
        v1.starts_with("web-") && v1.len() == "web-".len() + 8,
        "{v1}"
    );
    let mut want = vec![scaled(&v1, 0, 3)];
    want.extend((0..3).map(|i| created(&v1, &format!("web-{i}"))));
    want.extend((0..3).map(|i| scheduled(&format!("web-{i}"), "node-1")));
    assert_events(&taken(&mut c), &want);

    c.set_now(1);
    let v2_template = c.template("web").unwrap().with_version("v2");
    c.roll("web", v2_template).unwrap();
    // A tick at a time, until the roll is done (each new pod is Ready a
    // tick after it is bound).
    for t in 1..20 {
        c.set_now(t);
        assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    }
    let v2 = rs(&c, id, 2);
    assert_ne!(v1, v2, "a new template, a new pod-template-hash");
    let mut want = Vec::new();
    // Three steps; the old pods go newest first (controller.ActivePods:
    // equally Ready pods, the later created first).
    for (step, old) in ["web-2", "web-1", "web-0"].iter().enumerate() {
        let step = step as u32;
        let new = format!("web-{}", 3 + step);
        want.push(scaled(&v2, step, step + 1));
        want.push(created(&v2, &new));
        want.push(scheduled(&new, "node-1"));
        want.push(scaled(&v1, 3 - step, 2 - step));
        want.push(deleted(&v1, old));
        want.push(killing(old, "node-1"));
    }
    assert_events(&taken(&mut c), &want);
    let st = c.app("web").unwrap();
    assert_eq!((st.updated, st.available), (3, 3));

    // Scaled with one ReplicaSet holding pods: sync.go, scale.
    c.set_now(20);
    c.scale("web", 1).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_events(
        &taken(&mut c),
        &[
            scaled(&v2, 3, 1),
            deleted(&v2, "web-5"),
            killing("web-5", "node-1"),
            deleted(&v2, "web-4"),
            killing("web-4", "node-1"),
        ],
    );

    // Deleted: the API call and the garbage collector record nothing; the
    // kubelet stops the pod.
    c.set_now(21);
    c.delete_app("web").unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    assert_events(&taken(&mut c), &[killing("web-3", "node-1")]);
}

// ----- a drain -------------------------------------------------------------------

/// `kubectl drain node-1` with a budget that allows one disruption: kubectl
/// cordons the node (an API patch: the kubelet reports
/// NodeNotSchedulable, setters.go / kubelet_node_status.go
/// recordNodeSchedulableEvent) and evicts through the eviction
/// subresource, which records no Event (eviction.go); the kubelet stops
/// each evicted pod; the ReplicaSet controller replaces it; kubectl tries
/// the refused pod again 5 s later. kubectl writes no event of its own:
/// no Evicted, no DrainComplete.
#[test]
fn a_drain_writes_the_kubelets_and_the_replicaset_controllers_events_only() {
    let mut sim = Simulator::with_script(
        7,
        ScorePolicy::BinPack,
        vec![
            (1, Event::AddNode(NodeSpec::new("node-1", 4000, 8192))),
            (1, Event::Deploy(web(2))),
            (
                1,
                Event::AddPdb(PdbSpec {
                    name: "web".into(),
                    selector: Selector::new(&[("app", "web")]),
                    budget: Budget::MaxUnavailable(IntOrPercent::Int(1)),
                }),
            ),
            (2, Event::AddNode(NodeSpec::new("node-2", 4000, 8192))),
            (3, Event::Drain("node-1".into())),
        ],
    );
    sim.run(2);
    let id = ControllerId(0);
    let v1 = rs(sim.cluster(), id, 1);
    assert_eq!(node_of(sim.cluster(), "web-0"), "node-1");
    assert_eq!(node_of(sim.cluster(), "web-1"), "node-1");
    sim.cluster_mut().watch_events();
    let mut by_tick = Vec::new();
    for _ in 0..10 {
        sim.step();
        let t = sim.tick();
        let got = taken(sim.cluster_mut());
        if !got.is_empty() {
            by_tick.push((t, got));
        }
    }
    let schedulable = ev(
        "Normal",
        "NodeNotSchedulable",
        "node/node-1",
        &kubelet("node-1"),
        "Node node-1 status is now: NodeNotSchedulable",
    );
    let want = vec![
        (
            3,
            vec![
                schedulable,
                killing("web-0", "node-1"),
                created(&v1, "web-2"),
                scheduled("web-2", "node-2"),
            ],
        ),
        (
            8,
            vec![
                killing("web-1", "node-1"),
                created(&v1, "web-3"),
                scheduled("web-3", "node-2"),
            ],
        ),
    ];
    assert_eq!(by_tick, want);
    assert_eq!(
        sim.cluster().node("node-1").unwrap().drain_status,
        Some("node/node-1 drained")
    );
}

// ----- a node failure ------------------------------------------------------------

/// A node's kubelet stops. After node-monitor-grace-period (50 s) the node
/// controller records the status change on the node (monitorNodeHealth ->
/// RecordNodeStatusChange: Normal "Node X status is now: NodeNotReady")
/// and marks each pod not Ready (MarkPodsNotReady: Warning "Node is not
/// ready" on the pod). 300 s later (DefaultTolerationSeconds) the
/// taint-eviction controller deletes each pod (emitPodDeletionEvent:
/// "Marking for deletion Pod NS/NAME"); nobody logs Killing (the kubelet is
/// down); the ReplicaSet controller replaces them. When the kubelet is back
/// it reports NodeReady (recordNodeStatusEvent).
#[test]
fn a_node_failure_writes_the_node_and_taint_eviction_controllers_events() {
    let mut sim = Simulator::with_script(
        3,
        ScorePolicy::BinPack,
        vec![
            (1, Event::AddNode(NodeSpec::new("node-1", 4000, 8192))),
            (1, Event::Deploy(web(2))),
            (2, Event::AddNode(NodeSpec::new("node-2", 4000, 8192))),
            (3, Event::FailNode("node-1".into())),
            (400, Event::RecoverNode("node-1".into())),
        ],
    );
    sim.run(2);
    let v1 = rs(sim.cluster(), ControllerId(0), 1);
    sim.cluster_mut().watch_events();
    let mut by_tick = Vec::new();
    while sim.tick() < 402 {
        sim.step();
        let t = sim.tick();
        let got = taken(sim.cluster_mut());
        if !got.is_empty() {
            by_tick.push((t, got));
        }
    }
    // Silent from tick 3: NotReady once silent for more than 50 s.
    let nr = 3 + 51;
    let not_ready_pod = |pod: &str| {
        ev(
            "Warning",
            "NodeNotReady",
            &format!("pod/{pod}"),
            NODE_CONTROLLER,
            "Node is not ready",
        )
    };
    let marked = |pod: &str| {
        ev(
            "Normal",
            "TaintManagerEviction",
            &format!("pod/{pod}"),
            TAINT_EVICTION,
            &format!("Marking for deletion Pod default/{pod}"),
        )
    };
    let want = vec![
        (
            nr,
            vec![
                ev(
                    "Normal",
                    "NodeNotReady",
                    "node/node-1",
                    NODE_CONTROLLER,
                    "Node node-1 status is now: NodeNotReady",
                ),
                not_ready_pod("web-0"),
                not_ready_pod("web-1"),
            ],
        ),
        (
            nr + 300,
            vec![
                marked("web-0"),
                marked("web-1"),
                created(&v1, "web-2"),
                created(&v1, "web-3"),
                scheduled("web-2", "node-2"),
                scheduled("web-3", "node-2"),
            ],
        ),
        (
            401,
            vec![ev(
                "Normal",
                "NodeReady",
                "node/node-1",
                &kubelet("node-1"),
                "Node node-1 status is now: NodeReady",
            )],
        ),
    ];
    assert_eq!(by_tick, want);
}

// ----- a preemption --------------------------------------------------------------

/// A full node and a higher-priority pod: the scheduler's cycle fails
/// (handleSchedulingFailure: Warning FailedScheduling on the preemptor),
/// DefaultPreemption deletes the victim (preemption executor: Normal
/// "Preempted by pod UID on node NODE" on the victim, from the scheduler),
/// the kubelet stops it, the ReplicaSet controller replaces it (its
/// replacement waits: FailedScheduling), and the preemptor is bound on a
/// later cycle (Scheduled).
#[test]
fn a_preemption_writes_the_schedulers_and_kubelets_events() {
    let mut c = Cluster::new();
    c.add_node(NodeSpec::new("node-1", 2000, 8192)).unwrap();
    c.add_priority_class(PriorityClass::new("high", 1000))
        .unwrap();
    let low = c
        .deploy(
            DeploymentSpec::new("low", 2, Resources::new(1000, 1024))
                .with_template(|t| t.with_label("app", "low")),
        )
        .unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    c.set_now(1);
    c.watch_events();
    let high = c
        .deploy(
            DeploymentSpec::new("high", 1, Resources::new(1000, 1024))
                .with_template(|t| t.with_label("app", "high").with_priority_class("high")),
        )
        .unwrap();
    for t in 1..4 {
        c.set_now(t);
        assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    }
    let got: Vec<Ev> = taken(&mut c);
    let (rs_low, rs_high) = (rs(&c, low, 1), rs(&c, high, 1));
    // Who emitted what, in order, for each object.
    let of = |object: &str| -> Vec<(String, String, String)> {
        got.iter()
            .filter(|e| e.2 == object)
            .map(|e| (e.0.clone(), e.1.clone(), e.3.clone()))
            .collect()
    };
    let t = |a: &str, b: &str, s: &str| (a.to_string(), b.to_string(), s.to_string());
    let victim = got
        .iter()
        .find(|e| e.1 == "Preempted")
        .map(|e| e.2.clone())
        .expect("a victim");
    assert!(victim == "pod/low-0" || victim == "pod/low-1", "{victim}");
    assert_eq!(
        of(&victim),
        [
            t("Normal", "Preempted", SCHEDULER),
            t("Normal", "Killing", &kubelet("node-1")),
        ]
    );
    let preempted_msg = &got.iter().find(|e| e.1 == "Preempted").unwrap().4;
    let uid = c.pod_by_name("high-0").unwrap().uid();
    assert_eq!(
        preempted_msg,
        &format!("Preempted by pod {uid} on node node-1")
    );
    let high0 = of("pod/high-0");
    assert_eq!(
        high0.first(),
        Some(&t("Warning", "FailedScheduling", SCHEDULER))
    );
    assert_eq!(high0.last(), Some(&t("Normal", "Scheduled", SCHEDULER)));
    assert!(high0[1..high0.len() - 1]
        .iter()
        .all(|x| x.1 == "FailedScheduling"));
    assert_eq!(
        of("deployment/high"),
        [t("Normal", "ScalingReplicaSet", DEPLOYMENT)]
    );
    assert_eq!(
        of(&format!("replicaset/{rs_high}")),
        [t("Normal", "SuccessfulCreate", REPLICASET)]
    );
    // The victim's ReplicaSet replaces it; the replacement cannot fit.
    assert_eq!(
        of(&format!("replicaset/{rs_low}")),
        [t("Normal", "SuccessfulCreate", REPLICASET)]
    );
    assert!(of("pod/low-2")
        .iter()
        .all(|x| *x == t("Warning", "FailedScheduling", SCHEDULER)));
    // Nothing else: every event is one of these components' own.
    let reasons: std::collections::BTreeSet<&str> = got.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(
        reasons.into_iter().collect::<Vec<_>>(),
        [
            "FailedScheduling",
            "Killing",
            "Preempted",
            "ScalingReplicaSet",
            "Scheduled",
            "SuccessfulCreate"
        ]
    );
}

/// Every reason the engine can write is one a Kubernetes component emits,
/// with that component as its source: the list, read from the sources
/// cited on `shepherd::Reason`.
#[test]
fn every_reason_has_its_kubernetes_emitter() {
    use shepherd::events::ObjectRef;
    use shepherd::Reason::*;
    let pod = ObjectRef::Pod(ControllerId(0), 0);
    let node = ObjectRef::Node(shepherd::NodeId(0));
    let rs = ObjectRef::ReplicaSet(ControllerId(0), 1);
    let ds = ObjectRef::Deployment(ControllerId(0));
    let table = [
        (RegisteredNode, node, "node-controller"),
        (RemovingNode, node, "node-controller"),
        (NodeNotReady, node, "node-controller"),
        (NodeNotReady, pod, "node-controller"),
        (NodeReady, node, "kubelet"),
        (NodeNotSchedulable, node, "kubelet"),
        (NodeSchedulable, node, "kubelet"),
        (Starting, node, "kubelet"),
        (Killing, pod, "kubelet"),
        (OutOfcpu, pod, "kubelet"),
        (OutOfmemory, pod, "kubelet"),
        (OutOfpods, pod, "kubelet"),
        (NodeAffinity, pod, "kubelet"),
        (TaintToleration, pod, "kubelet"),
        (Scheduled, pod, "default-scheduler"),
        (FailedScheduling, pod, "default-scheduler"),
        (Preempted, pod, "default-scheduler"),
        (SuccessfulCreate, rs, "replicaset-controller"),
        (SuccessfulDelete, rs, "replicaset-controller"),
        (FailedCreate, rs, "replicaset-controller"),
        (SuccessfulCreate, ds, "daemonset-controller"),
        (SuccessfulDelete, ds, "daemonset-controller"),
        (FailedCreate, ds, "daemonset-controller"),
        (ScalingReplicaSet, ds, "deployment-controller"),
        (TaintManagerEviction, pod, "taint-eviction-controller"),
    ];
    for (reason, object, source) in table {
        assert_eq!(reason.source(&object).as_str(), source, "{reason:?}");
    }
}
