//! # Rollout conditions, pinned
//!
//! minReadySeconds, progressDeadlineSeconds and the Available / Progressing
//! conditions, each checked tick by tick with Kubernetes' numbers (the
//! default progressDeadlineSeconds of 600, minReadySeconds of 10 as in the
//! Deployment documentation's examples). One tick is one second.
//!
//! The rules, as kubernetes/kubernetes states them (see `core/src/rollout.rs`):
//! a pod is available once Ready for minReadySeconds (podutil.IsPodAvailable);
//! a rollout that makes no progress for progressDeadlineSeconds gets
//! `Progressing=False`, reason ProgressDeadlineExceeded (DeploymentTimedOut);
//! a complete rollout is not judged again (syncRolloutStatus); and
//! `kubectl rollout status` prints its lines in the order of
//! DeploymentStatusViewer.

use shepherd::quantity::MIB;
use shepherd::rollout::reasons;
use shepherd::simulator::{Event, Simulator};
use shepherd::{
    Budget, ConditionStatus, DeploymentConditionType, DeploymentSpec, DeploymentStatus,
    IntOrPercent, NodeSpec, PdbSpec, Resources, RolloutStatus, ScorePolicy, Selector, ServiceSpec,
};

const SLOT: Resources = Resources::new(1000, 1024 * MIB);

fn sim_with_slots(slots: u64) -> Simulator {
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(NodeSpec::new(
        "node-1",
        SLOT.cpu_millis * slots,
        SLOT.memory_bytes * slots,
    )))
    .expect("a node should be accepted");
    sim
}

fn app(replicas: u32) -> DeploymentSpec {
    DeploymentSpec::new("web", replicas, SLOT)
}

fn status(sim: &Simulator) -> DeploymentStatus {
    sim.cluster()
        .deployment_status("web")
        .expect("web should exist")
}

/// (status, reason, lastUpdateTime, lastTransitionTime) of a condition.
fn cond(sim: &Simulator, t: DeploymentConditionType) -> (ConditionStatus, &'static str, u64, u64) {
    let s = status(sim);
    let c = s
        .condition(t)
        .unwrap_or_else(|| panic!("web should have a {} condition: {s:?}", t.as_str()));
    (
        c.status,
        c.reason,
        c.last_update_time,
        c.last_transition_time,
    )
}

fn line(sim: &Simulator) -> RolloutStatus {
    sim.cluster()
        .rollout_status("web")
        .expect("web should exist")
}

fn waiting(s: &str) -> RolloutStatus {
    RolloutStatus::Waiting(s.to_string())
}

/// Runs until `tick` (inclusive).
fn run_to(sim: &mut Simulator, tick: u64) {
    while sim.tick() < tick {
        sim.step();
    }
}

#[test]
fn a_pod_is_available_min_ready_seconds_after_it_is_ready() {
    let mut sim = sim_with_slots(4);
    sim.submit(Event::Deploy(app(1).with_min_ready_seconds(10)))
        .unwrap();
    sim.submit(Event::AddService(ServiceSpec {
        name: "web".into(),
        selector: Selector::new(&[("app", "web")]),
    }))
    .unwrap();
    sim.submit(Event::AddPdb(PdbSpec {
        name: "web".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MinAvailable(IntOrPercent::Int(1)),
    }))
    .unwrap();
    // Tick 1: created and bound; Ready at tick 2 (readyAfter 1).
    run_to(&mut sim, 1);
    assert_eq!(status(&sim).ready_replicas, 0);
    assert_eq!(
        line(&sim),
        waiting("Waiting for deployment \"web\" rollout to finish: 0 of 1 updated replicas are available...")
    );
    run_to(&mut sim, 2);
    let s = status(&sim);
    assert_eq!((s.ready_replicas, s.available_replicas), (1, 0));
    assert_eq!(s.unavailable_replicas, 1);
    // Services and budgets count Ready pods, not available ones.
    let endpoints = sim.cluster().service_endpoints("web").unwrap();
    let endpoints: Vec<String> = endpoints
        .iter()
        .map(|p| sim.cluster().short_pod_names(p))
        .collect();
    assert_eq!(endpoints, ["web-0"]);
    assert_eq!(sim.cluster().pdb_status("web").unwrap().current_healthy, 1);
    // replicas 1, maxUnavailable 25% of 1 = 0: one available pod is the minimum.
    assert_eq!(
        cond(&sim, DeploymentConditionType::Available).1,
        reasons::MINIMUM_REPLICAS_UNAVAILABLE
    );
    run_to(&mut sim, 11);
    assert_eq!(
        status(&sim).available_replicas,
        0,
        "Ready at 2, minReadySeconds 10"
    );
    assert!(!sim.cluster().pods().next().unwrap().available);
    run_to(&mut sim, 12);
    let s = status(&sim);
    assert_eq!((s.available_replicas, s.unavailable_replicas), (1, 0));
    assert!(sim.cluster().pods().next().unwrap().available);
    assert_eq!(sim.cluster().app("web").unwrap().available, 1);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Available),
        (
            ConditionStatus::True,
            reasons::MINIMUM_REPLICAS_AVAILABLE,
            12,
            12
        )
    );
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (
            ConditionStatus::True,
            reasons::NEW_REPLICA_SET_AVAILABLE,
            12,
            1
        )
    );
    assert_eq!(
        line(&sim),
        RolloutStatus::RolledOut("deployment \"web\" successfully rolled out".into())
    );
}

#[test]
fn a_roll_with_max_unavailable_zero_waits_for_availability_not_readiness() {
    let mut sim = sim_with_slots(5);
    let spec = app(4)
        .with_min_ready_seconds(10)
        .with_strategy(IntOrPercent::Int(1), IntOrPercent::Int(0));
    sim.submit(Event::Deploy(spec.clone())).unwrap();
    run_to(&mut sim, 20);
    assert_eq!(status(&sim).available_replicas, 4);
    let v2 = spec.template.clone().with_version("v2");
    sim.submit(Event::Roll {
        app: "web".into(),
        template: v2,
    })
    .unwrap();
    // Tick 21: the surge pod is created and bound; Ready at 22, available at 32.
    run_to(&mut sim, 21);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (ConditionStatus::True, reasons::REPLICA_SET_UPDATED, 21, 1)
    );
    assert_eq!(
        line(&sim),
        waiting("Waiting for deployment \"web\" rollout to finish: 1 out of 4 new replicas have been updated...")
    );
    run_to(&mut sim, 31);
    let s = status(&sim);
    assert_eq!(
        (
            s.replicas,
            s.updated_replicas,
            s.ready_replicas,
            s.available_replicas
        ),
        (5, 1, 5, 4),
        "the new pod is Ready but not yet available: no old pod may go"
    );
    // lastUpdateTime moved when the new pod became Ready (progress: more ready).
    assert_eq!(cond(&sim, DeploymentConditionType::Progressing).2, 22);
    run_to(&mut sim, 32);
    let s = status(&sim);
    assert_eq!(
        (s.replicas, s.updated_replicas, s.available_replicas),
        (5, 2, 4),
        "the new pod became available at 32: one old pod went and the next new one came"
    );
    // Each step takes 11 ticks (1 to Ready, 10 more to available): 4 steps.
    run_to(&mut sim, 64);
    assert_eq!(
        line(&sim),
        waiting("Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...")
    );
    run_to(&mut sim, 65);
    assert_eq!(
        line(&sim),
        RolloutStatus::RolledOut("deployment \"web\" successfully rolled out".into())
    );
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing).1,
        reasons::NEW_REPLICA_SET_AVAILABLE
    );
}

#[test]
fn a_rollout_that_fits_nowhere_exceeds_its_progress_deadline_after_600_seconds() {
    let mut sim = sim_with_slots(3);
    sim.submit(Event::Deploy(app(2))).unwrap();
    run_to(&mut sim, 5);
    // v2 asks for two slots: the node has one free, and maxUnavailable (25%
    // of 2, rounded down) is 0, so no old pod makes room.
    let big = shepherd::PodTemplate {
        requests: Resources::new(2 * SLOT.cpu_millis, 2 * SLOT.memory_bytes),
        ..app(2).template.with_version("v2")
    };
    sim.submit(Event::Roll {
        app: "web".into(),
        template: big,
    })
    .unwrap();
    // Tick 6: the new ReplicaSet is created and scaled to 1 (maxSurge 25% of
    // 2 rounds up to 1); its pod fits nowhere.
    run_to(&mut sim, 6);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (ConditionStatus::True, reasons::REPLICA_SET_UPDATED, 6, 1)
    );
    run_to(&mut sim, 605);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (ConditionStatus::True, reasons::REPLICA_SET_UPDATED, 6, 1),
        "599 seconds without progress: still within the deadline"
    );
    assert_eq!(
        line(&sim),
        waiting("Waiting for deployment \"web\" rollout to finish: 1 out of 2 new replicas have been updated...")
    );
    let before = sim.cluster().events().len();
    let r = sim.step();
    assert_eq!(sim.tick(), 606);
    assert_eq!(r.reconcile.total.timed_out, 1);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (
            ConditionStatus::False,
            reasons::PROGRESS_DEADLINE_EXCEEDED,
            606,
            606
        )
    );
    let s = status(&sim);
    let p = s.condition(DeploymentConditionType::Progressing).unwrap();
    assert!(
        p.message.starts_with("ReplicaSet \"web-")
            && p.message.ends_with("\" has timed out progressing."),
        "{}",
        p.message
    );
    // The old pods are untouched: Available stays True.
    assert_eq!(
        cond(&sim, DeploymentConditionType::Available).1,
        reasons::MINIMUM_REPLICAS_AVAILABLE
    );
    assert_eq!(
        line(&sim),
        RolloutStatus::DeadlineExceeded("deployment \"web\" exceeded its progress deadline".into())
    );
    assert_eq!(
        line(&sim).to_string(),
        "error: deployment \"web\" exceeded its progress deadline"
    );
    // The condition is the record: the Deployment controller emits no
    // Event for it (progress.go, syncRolloutStatus only updates status).
    assert!(sim.cluster().rendered_events()[before..]
        .iter()
        .all(|e| e.reason != "ProgressDeadlineExceeded"));
    // It stays timed out.
    sim.run(100);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing).1,
        reasons::PROGRESS_DEADLINE_EXCEEDED
    );
    assert_eq!(
        sim.cluster()
            .rendered_events()
            .iter()
            .filter(|e| e.reason == "ProgressDeadlineExceeded")
            .count(),
        0
    );
    // Undo: back to the old template, which is complete at once.
    sim.submit(Event::Rollback("web".into())).unwrap();
    sim.step();
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing).0,
        ConditionStatus::True
    );
    assert_eq!(
        line(&sim),
        RolloutStatus::RolledOut("deployment \"web\" successfully rolled out".into())
    );
}

#[test]
fn progress_moves_the_deadline_and_a_timed_out_rollout_recovers_on_progress() {
    // Pods of v2 take 400 s to become Ready: each step is progress within
    // 600 s, so the rollout never times out.
    let mut sim = sim_with_slots(4);
    let spec = app(3).with_strategy(IntOrPercent::Int(1), IntOrPercent::Int(0));
    sim.submit(Event::Deploy(spec.clone())).unwrap();
    run_to(&mut sim, 3);
    sim.submit(Event::Roll {
        app: "web".into(),
        template: spec
            .template
            .clone()
            .with_version("v2")
            .with_ready_after(400),
    })
    .unwrap();
    run_to(&mut sim, 4);
    assert_eq!(cond(&sim, DeploymentConditionType::Progressing).2, 4);
    run_to(&mut sim, 404);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (ConditionStatus::True, reasons::REPLICA_SET_UPDATED, 404, 1)
    );
    run_to(&mut sim, 1204);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (
            ConditionStatus::True,
            reasons::NEW_REPLICA_SET_AVAILABLE,
            1204,
            1
        )
    );

    // Pods of v3 take 700 s: the deadline passes at 600 s after the last
    // progress, then readiness is progress again and the condition is True
    // with a new lastTransitionTime.
    sim.submit(Event::Roll {
        app: "web".into(),
        template: spec
            .template
            .clone()
            .with_version("v3")
            .with_ready_after(700),
    })
    .unwrap();
    run_to(&mut sim, 1205);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (ConditionStatus::True, reasons::REPLICA_SET_UPDATED, 1205, 1)
    );
    run_to(&mut sim, 1804);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing).0,
        ConditionStatus::True
    );
    run_to(&mut sim, 1805);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (
            ConditionStatus::False,
            reasons::PROGRESS_DEADLINE_EXCEEDED,
            1805,
            1805
        )
    );
    run_to(&mut sim, 1905);
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing),
        (
            ConditionStatus::True,
            reasons::REPLICA_SET_UPDATED,
            1905,
            1905
        )
    );
}

#[test]
fn a_complete_deployment_scaled_beyond_capacity_never_times_out() {
    let mut sim = sim_with_slots(3);
    sim.submit(Event::Deploy(app(3))).unwrap();
    run_to(&mut sim, 5);
    sim.submit(Event::Scale {
        app: "web".into(),
        replicas: 10,
    })
    .unwrap();
    run_to(&mut sim, 800);
    let s = status(&sim);
    assert_eq!(
        (
            s.replicas,
            s.updated_replicas,
            s.available_replicas,
            s.unavailable_replicas
        ),
        (10, 10, 3, 7)
    );
    assert_eq!(
        cond(&sim, DeploymentConditionType::Progressing).1,
        reasons::NEW_REPLICA_SET_AVAILABLE,
        "a complete rollout is not judged again until a new one starts"
    );
    // 10 replicas, maxUnavailable 25% = 2: 3 available is below 8.
    assert_eq!(
        cond(&sim, DeploymentConditionType::Available),
        (
            ConditionStatus::False,
            reasons::MINIMUM_REPLICAS_UNAVAILABLE,
            6,
            6
        )
    );
    assert_eq!(
        line(&sim),
        waiting("Waiting for deployment \"web\" rollout to finish: 3 of 10 updated replicas are available...")
    );
}

#[test]
fn no_progress_deadline_keeps_no_progressing_condition() {
    let mut sim = sim_with_slots(3);
    sim.submit(Event::Deploy(app(2).with_progress_deadline_seconds(
        shepherd::model::NO_PROGRESS_DEADLINE,
    )))
    .unwrap();
    run_to(&mut sim, 3);
    let s = status(&sim);
    assert!(s.condition(DeploymentConditionType::Progressing).is_none());
    assert_eq!(s.conditions.len(), 1);
    assert_eq!(
        line(&sim),
        RolloutStatus::RolledOut("deployment \"web\" successfully rolled out".into())
    );
}

#[test]
fn durations_are_validated_as_kubernetes_validates_them() {
    let e = app(1)
        .with_min_ready_seconds(600)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("progressDeadlineSeconds 600 must be greater than minReadySeconds 600"),
        "{e}"
    );
    let e = app(1)
        .with_progress_deadline_seconds(0)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be greater than minReadySeconds 0"), "{e}");
    let e = app(1)
        .with_min_ready_seconds(u32::MAX)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("minReadySeconds 4294967295 is out of range; expected 0 to 2147483647"),
        "{e}"
    );
    assert!(app(1).with_min_ready_seconds(599).validate().is_ok());
    // A refused Deployment changes nothing.
    let mut sim = sim_with_slots(1);
    assert!(sim
        .submit(Event::Deploy(app(1).with_progress_deadline_seconds(0)))
        .is_err());
    sim.step();
    assert_eq!(sim.cluster().apps().count(), 0);
}
