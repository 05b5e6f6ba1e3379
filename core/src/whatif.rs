//! What-if: actions applied to a converged cluster, converged again with
//! Kubernetes' timing, and the answer as a diff of before and after.
//!
//! [`what_if`] takes the cluster as it is (the *before*), applies a list of
//! [`Action`]s in the order given, one simulated second apart (each converged
//! by its tick's reconcile before the next fires, as `kubectl` commands typed
//! one after the other are), then lets the cluster run on, tick by tick (one
//! tick is one second), until nothing is left to happen or a bound is
//! reached ([`SETTLE_LIMIT`]). The timing is the engine's, which is
//! Kubernetes':
//!
//! - a failed node (its kubelet stopped, or its whole zone) is NotReady once
//!   node-monitor-grace-period (50 s) has passed without a heartbeat
//!   (pkg/controller/nodelifecycle/node_lifecycle_controller.go), and gets
//!   the `node.kubernetes.io/unreachable:NoExecute` taint;
//! - its pods then stay for their toleration of that taint: 300 s for a pod
//!   that declares none, the DefaultTolerationSeconds admission plugin's
//!   default (plugin/pkg/admission/defaulttolerationseconds), after which
//!   the taint-eviction controller deletes them
//!   (pkg/controller/tainteviction/taint_eviction.go) and their owners
//!   replace them;
//! - a drain is `kubectl drain --ignore-daemonsets --force`: cordon, then the
//!   eviction subresource for each pod, a refusal by a
//!   PodDisruptionBudget retried every 5 s (k8s.io/kubectl/pkg/drain);
//! - a deleted Node's pods are deleted with it (the pod garbage collector's
//!   gcOrphaned) and replaced.
//!
//! The diff ([`WhatIf`]) says which pods were deleted (from which node, when,
//! and by whom), their replacements and where they landed, which pods are
//! Pending at the end and why (the FailedScheduling message), which
//! evictions a PodDisruptionBudget refused and for how long, which
//! Deployments lost availability or stalled, and the requests against
//! allocatable per node, per zone and per resource before and after.
//!
//! Kubernetes never moves a pod: a [`Move`] is a pod deleted on one node
//! whose owner created a new pod in its place that was bound to another.
//!
//! Pods are followed by name through the events the components emit
//! ([`Cluster::watch_events`]) and the evictions the API server made
//! ([`Cluster::watch_api`]), so the diff works on whatever names the pods
//! have (the engine's, or the ones an import kept).
//!
//! **Bounded work.** At most [`MAX_ACTIONS`] actions (and
//! [`crate::limits::MAX_SCRIPT_EVENTS`] objects applied in all); the run
//! after the last action is at most [`SETTLE_LIMIT`] ticks; the diff's
//! cost is the pods the run touched plus one pass over the nodes before and
//! after, never a scan of every pod per tick. Same cluster, same actions:
//! the same diff.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, WorkloadKind};
use crate::error::Error;
use crate::rollout::{ConditionStatus, DeploymentCondition, DeploymentConditionType};
use crate::scheduler::Profile;
use crate::simulator::{Event, Simulator};

/// The zone label a `fail-zone` names (well-known label
/// `topology.kubernetes.io/zone`).
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// At most this many actions in one what-if.
pub const MAX_ACTIONS: usize = 256;

/// The run after the last action stops after this many ticks (one hour)
/// even if a timer is still pending; [`WhatIf::settled`] then says so.
/// A zone failure settles in about 360 s (50 s to NotReady, 300 s of
/// toleration, then the replacements), a rollout times out after its
/// progressDeadlineSeconds (600 s by default).
pub const SETTLE_LIMIT: u64 = 3600;

/// Ticks without any change (no pod created, deleted, bound or turning
/// Ready, no event but repeated FailedScheduling) after which, with no timer
/// pending, the cluster is taken as settled. Longer than kubectl drain's
/// 5 s retry and the pod garbage collector's 40 s quarantine.
pub const QUIET_TICKS: u64 = 60;

/// Something done to the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `kubectl drain NODE --ignore-daemonsets --force`.
    Drain(String),
    /// Every node whose `topology.kubernetes.io/zone` is this value stops
    /// heart-beating (a zone outage).
    FailZone(String),
    /// The node's kubelet stops heart-beating (a node failure).
    FailNode(String),
    /// `kubectl scale deployment NAME --replicas=N` (`NS/NAME` outside the
    /// namespace `default`).
    Scale { deployment: String, replicas: u32 },
    /// `kubectl cordon NODE`.
    Cordon(String),
    /// `kubectl delete node NODE`.
    DeleteNode(String),
    /// `kubectl apply -f` of objects, as engine events (what an import's
    /// `Scenario::apply_events` gives), fired in order at one tick;
    /// `what` names them in the report (a file name).
    Apply { what: String, events: Vec<Event> },
}

impl Action {
    /// The action as the command line writes it.
    pub fn describe(&self) -> String {
        match self {
            Action::Drain(n) => format!("drain {n}"),
            Action::FailZone(z) => format!("fail-zone {z}"),
            Action::FailNode(n) => format!("fail-node {n}"),
            Action::Scale {
                deployment,
                replicas,
            } => format!("scale {deployment}={replicas}"),
            Action::Cordon(n) => format!("cordon {n}"),
            Action::DeleteNode(n) => format!("delete-node {n}"),
            Action::Apply { what, events } => {
                format!("apply {what} ({} objects)", events.len())
            }
        }
    }

    fn events(&self) -> Vec<Event> {
        match self {
            Action::Drain(n) => alloc::vec![Event::Drain(n.clone())],
            Action::FailZone(z) => alloc::vec![Event::FailZone {
                key: ZONE_LABEL.to_string(),
                value: z.clone(),
            }],
            Action::FailNode(n) => alloc::vec![Event::FailNode(n.clone())],
            Action::Scale {
                deployment,
                replicas,
            } => alloc::vec![Event::Scale {
                app: deployment.clone(),
                replicas: *replicas,
            }],
            Action::Cordon(n) => alloc::vec![Event::Cordon(n.clone())],
            Action::DeleteNode(n) => alloc::vec![Event::RemoveNode(n.clone())],
            Action::Apply { events, .. } => events.clone(),
        }
    }
}

/// Who deleted a pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The eviction subresource, called by a drain (`kubectl drain`).
    Eviction,
    /// The taint-eviction controller: its node's NoExecute taint
    /// (`node.kubernetes.io/unreachable` on a failed node) outlasted the
    /// pod's toleration.
    TaintEviction,
    /// The ReplicaSet controller: its Deployment scaled down, or an old
    /// ReplicaSet scaled down in a rollout.
    ReplicaSetController,
    /// The DaemonSet controller.
    DaemonSetController,
    /// The scheduler preempted it for a pod of higher priority.
    Preemption,
    /// Its Node was deleted (the pod garbage collector deletes the pods of a
    /// node that no longer exists).
    NodeDeleted,
    /// None of the above was seen (a bare Pod deleted by an apply).
    Other,
}

impl Cause {
    /// A short name, for the text output and JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Cause::Eviction => "eviction",
            Cause::TaintEviction => "taint-eviction",
            Cause::ReplicaSetController => "replicaset-controller",
            Cause::DaemonSetController => "daemonset-controller",
            Cause::Preemption => "preemption",
            Cause::NodeDeleted => "node-deleted",
            Cause::Other => "other",
        }
    }

    /// Who did it, in Kubernetes' words.
    pub fn who(&self) -> &'static str {
        match self {
            Cause::Eviction => "evicted by kubectl drain (eviction API)",
            Cause::TaintEviction => "deleted by the taint-eviction-controller (NoExecute taint)",
            Cause::ReplicaSetController => "deleted by the replicaset-controller (scale down)",
            Cause::DaemonSetController => "deleted by the daemonset-controller",
            Cause::Preemption => "preempted by the default-scheduler",
            Cause::NodeDeleted => "deleted with its Node (pod garbage collector)",
            Cause::Other => "deleted",
        }
    }
}

/// An action as it was applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub action: String,
    pub tick: u64,
    /// What the engine refused, each "event: why" (the rest was applied).
    pub refused: Vec<String>,
}

/// A pod that existed before or was created during the run, and was deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deleted {
    /// The pod's name (`NS/NAME` outside `default`).
    pub pod: String,
    /// Its owner: Deployment, DaemonSet or the bare Pod itself.
    pub owner: String,
    pub kind: WorkloadKind,
    /// The node it ran on, if it was bound.
    pub node: Option<String>,
    pub tick: u64,
    pub cause: Cause,
    /// The event that said so (or the eviction), as text.
    pub message: String,
    /// Whether it existed before the actions.
    pub existed_before: bool,
}

/// A pod deleted on one node whose owner's replacement was bound on another
/// (or is Pending): Kubernetes never moves a pod, it deletes one and its
/// owner creates another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub owner: String,
    pub deleted: String,
    pub from: Option<String>,
    pub deleted_at: u64,
    pub replacement: String,
    pub created_at: u64,
    /// Where it was bound (if it was deleted again, where it ran until
    /// then); `None`: never bound (Pending at the end, or deleted while
    /// Pending).
    pub to: Option<String>,
    pub bound_at: Option<u64>,
    /// When the replacement was deleted in its turn (a drain that reached
    /// the node it had been bound to, say): it then has a [`Move`] of its
    /// own, and a line in [`WhatIf::deleted`]. `None`: it is there at the end.
    pub replacement_deleted_at: Option<u64>,
}

/// A pod created during the run (a replacement or a new replica).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Created {
    pub pod: String,
    pub owner: String,
    pub kind: WorkloadKind,
    pub created_at: u64,
    /// Where it is bound at the end; `None`: Pending, or deleted again.
    pub node: Option<String>,
    pub bound_at: Option<u64>,
    /// Deleted again before the end.
    pub deleted: bool,
}

/// A pod Pending at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub pod: String,
    pub owner: String,
    /// Pending before the actions too.
    pub was_pending: bool,
    /// The scheduler's FailedScheduling message (or why it waits).
    pub message: String,
}

/// Evictions of one pod that a PodDisruptionBudget refused during a drain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub pod: String,
    pub node: String,
    pub pdb: String,
    /// The tick of the first refused attempt.
    pub from: u64,
    /// The tick the pod was evicted at last; `None`: still refused at the end.
    pub until: Option<u64>,
    /// How many attempts were refused (kubectl retries every 5 s).
    pub refusals: u64,
    /// The refusal, as kubectl drain prints it.
    pub message: String,
}

/// How a drain went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrainOutcome {
    pub node: String,
    pub started: u64,
    /// When its last listed pod was gone; `None`: still waiting at the end.
    pub finished: Option<u64>,
    /// What kubectl drain printed last (`node/NAME drained`, or why it waits).
    pub status: String,
    /// The pods it listed (DaemonSet pods are left).
    pub listed: u32,
}

/// A Deployment whose pods the run touched, before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentChange {
    pub name: String,
    pub desired_before: u32,
    pub available_before: u32,
    pub desired_after: u32,
    pub available_after: u32,
    pub ready_after: u32,
    pub updated_after: u32,
    /// The fewest available replicas seen at the end of any tick, and when.
    pub min_available: u32,
    pub min_at: u64,
    /// Ticks during which fewer than the desired replicas were available.
    pub unavailable_ticks: u64,
    /// Its conditions at the end (Available, Progressing).
    pub conditions_after: Vec<DeploymentCondition>,
    /// Available went False (MinimumReplicasUnavailable) at some point.
    pub lost_availability: bool,
    /// At the end: Progressing False (ProgressDeadlineExceeded), or fewer
    /// available than desired.
    pub stalled: bool,
}

/// Requested against allocatable, for cpu, memory and pods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub cpu_requested: u64,
    pub cpu_allocatable: u64,
    pub memory_requested: u64,
    pub memory_allocatable: u64,
    pub pods: u64,
    pub pods_allocatable: u64,
}

impl Usage {
    fn add(&mut self, o: &Usage) {
        self.cpu_requested += o.cpu_requested;
        self.cpu_allocatable += o.cpu_allocatable;
        self.memory_requested += o.memory_requested;
        self.memory_allocatable += o.memory_allocatable;
        self.pods += o.pods;
        self.pods_allocatable += o.pods_allocatable;
    }
    /// Allocatable not requested: cpu millis, memory bytes, pods.
    pub fn free(&self) -> (u64, u64, u64) {
        (
            self.cpu_allocatable.saturating_sub(self.cpu_requested),
            self.memory_allocatable
                .saturating_sub(self.memory_requested),
            self.pods_allocatable.saturating_sub(self.pods),
        )
    }
}

/// A node's state, as the diff needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    Ready,
    /// Ready, spec.unschedulable (cordoned, or draining).
    SchedulingDisabled,
    NotReady,
    /// Not registered (deleted, or not there yet).
    Absent,
}

impl NodeState {
    pub fn as_str(&self) -> &'static str {
        match self {
            NodeState::Ready => "Ready",
            NodeState::SchedulingDisabled => "Ready,SchedulingDisabled",
            NodeState::NotReady => "NotReady",
            NodeState::Absent => "(deleted)",
        }
    }
    /// Whether the scheduler may place pods here.
    pub fn schedulable(&self) -> bool {
        matches!(self, NodeState::Ready)
    }
}

/// A node before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeUse {
    pub name: String,
    /// Its `topology.kubernetes.io/zone`, empty without one.
    pub zone: String,
    pub state_before: NodeState,
    pub state_after: NodeState,
    pub before: Usage,
    pub after: Usage,
}

/// A zone (or the whole cluster) before and after: over its nodes that are
/// Ready and schedulable (where a pod can go), and the allocatable of its
/// nodes that are not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneUse {
    pub zone: String,
    pub nodes_before: u32,
    pub schedulable_before: u32,
    pub nodes_after: u32,
    pub schedulable_after: u32,
    /// Over the schedulable nodes.
    pub before: Usage,
    pub after: Usage,
    /// Over every registered node (NotReady and cordoned ones too): what
    /// runs there.
    pub all_before: Usage,
    pub all_after: Usage,
}

/// The answer: the actions as applied, the run, and the diff.
#[derive(Clone, Debug)]
pub struct WhatIf {
    pub actions: Vec<Applied>,
    /// The tick of the before state, and the last tick run.
    pub start: u64,
    pub end: u64,
    /// Whether the cluster settled (nothing left to happen) within
    /// [`SETTLE_LIMIT`]; false: stopped at the limit with a timer pending.
    pub settled: bool,
    pub deleted: Vec<Deleted>,
    pub moves: Vec<Move>,
    pub created: Vec<Created>,
    pub pending: Vec<Pending>,
    pub blocked: Vec<Blocked>,
    pub drains: Vec<DrainOutcome>,
    pub deployments: Vec<DeploymentChange>,
    pub nodes: Vec<NodeUse>,
    /// Per zone, in name order ("" for nodes without a zone label).
    pub zones: Vec<ZoneUse>,
    /// The whole cluster.
    pub total: ZoneUse,
    /// The cluster at the end.
    pub after: Cluster,
    /// The namespace the pod and Deployment sections were restricted to
    /// ([`WhatIf::restrict_to_namespace`]); `None`: every namespace.
    pub namespace: Option<String>,
}

impl WhatIf {
    /// Keeps, of the sections about namespaced objects (pods deleted,
    /// replaced, created and Pending, refused evictions, Deployments), the
    /// rows of namespace `ns`, as `kubectl get -n NS` lists one namespace;
    /// the actions ran on the whole cluster all the same. The sections
    /// about cluster-scoped objects stay whole: drains (a drain lists every
    /// pod of its node), nodes, zones and the total (a node's requests are
    /// every namespace's pods). A pod row belongs to the namespace of its
    /// pod (a move: of the pod deleted, whose replacement has the same
    /// owner and namespace).
    pub fn restrict_to_namespace(&mut self, ns: &str) {
        let ns = if ns.is_empty() {
            crate::namespace::DEFAULT_NAMESPACE
        } else {
            ns
        };
        let keep = |key: &str| crate::namespace::split(key).0 == ns;
        self.deleted.retain(|d| keep(&d.pod));
        self.moves.retain(|m| keep(&m.deleted));
        self.created.retain(|c| keep(&c.pod));
        self.pending.retain(|p| keep(&p.pod));
        self.blocked.retain(|b| keep(&b.pod));
        self.deployments.retain(|d| keep(&d.name));
        self.namespace = Some(String::from(ns));
    }
}

/// Each drain by node: its tick and the pods it listed, with the budget
/// covering each.
type Drains = BTreeMap<String, (u64, Vec<(String, Option<String>)>)>;

/// What the run saw of one Deployment's availability.
#[derive(Clone, Copy, Debug)]
struct Watch {
    /// The fewest available pods at the end of a tick, and that tick.
    min: u32,
    at: u64,
    /// Ticks that ended with fewer available than desired.
    unavailable: u64,
    /// Available went False at some tick's end.
    lost: bool,
    /// Fewer available than desired at the last sample.
    below: bool,
    /// To be sampled this tick.
    due: bool,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            min: u32::MAX,
            at: 0,
            unavailable: 0,
            lost: false,
            below: false,
            due: true,
        }
    }
}

/// What is known of one pod the run touched.
#[derive(Clone, Debug, Default)]
struct Track {
    owner: String,
    kind: Option<WorkloadKind>,
    existed_before: bool,
    /// Its node, as last seen (before, or bound since).
    node: Option<String>,
    created_at: Option<u64>,
    bound_at: Option<u64>,
    deleted: Option<(u64, Cause, String)>,
}

/// A few names of a list, for an error: "a, b, c" or "a, b, c, ... (N in all)".
fn some_of(names: &[String]) -> String {
    const SHOWN: usize = 5;
    if names.is_empty() {
        return String::from("none");
    }
    let mut s = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

/// Checks the names the actions give against `c`: each node, zone and
/// Deployment must exist when its action fires (as far as earlier actions
/// of the list tell: a node deleted by an earlier action is gone).
fn check(c: &Cluster, actions: &[Action]) -> Result<(), Error> {
    if actions.is_empty() {
        return Err(Error::Invalid(String::from(
            "no action given; expected at least one of drain, fail-zone, fail-node, scale, apply, cordon, delete-node",
        )));
    }
    if actions.len() > MAX_ACTIONS {
        return Err(Error::Invalid(format!(
            "{} actions given; expected at most {MAX_ACTIONS}",
            actions.len()
        )));
    }
    let applied: usize = actions
        .iter()
        .map(|a| match a {
            Action::Apply { events, .. } => events.len(),
            _ => 1,
        })
        .sum();
    if applied > crate::limits::MAX_SCRIPT_EVENTS {
        return Err(Error::Invalid(format!(
            "the actions apply {applied} objects in all; expected at most {}",
            crate::limits::MAX_SCRIPT_EVENTS
        )));
    }
    let mut deleted: BTreeSet<&str> = BTreeSet::new();
    let nodes = || {
        c.nodes()
            .map(|n| String::from(n.name()))
            .collect::<Vec<_>>()
    };
    for a in actions {
        let what = a.describe();
        match a {
            Action::Drain(n) | Action::FailNode(n) | Action::Cordon(n) | Action::DeleteNode(n) => {
                if c.node(n).is_err() || deleted.contains(n.as_str()) {
                    return Err(Error::Invalid(format!(
                        "{what}: no node {}; expected one of the nodes: {}",
                        crate::limits::quoted(n),
                        some_of(&nodes())
                    )));
                }
                if let Action::DeleteNode(n) = a {
                    deleted.insert(n);
                }
            }
            Action::FailZone(z) => {
                if c.nodes_labelled(ZONE_LABEL, z).is_empty() {
                    let zones: BTreeSet<String> = c
                        .nodes()
                        .filter_map(|n| n.spec.labels.get(ZONE_LABEL).cloned())
                        .collect();
                    let zones: Vec<String> = zones.into_iter().collect();
                    return Err(Error::Invalid(format!(
                        "{what}: no node has {ZONE_LABEL}={}; expected one of the zones: {}",
                        crate::limits::quoted(z),
                        some_of(&zones)
                    )));
                }
            }
            Action::Scale { deployment, .. } => {
                if c.deployment_status(deployment).is_err() {
                    let names: Vec<String> = c
                        .owners()
                        .filter(|(_, _, k)| *k == WorkloadKind::Deployment)
                        .map(|(_, n, _)| String::from(n))
                        .collect();
                    return Err(Error::Invalid(format!(
                        "{what}: no Deployment {}; expected one of the Deployments (NAME in default, else NAMESPACE/NAME): {}",
                        crate::limits::quoted(deployment),
                        some_of(&names)
                    )));
                }
            }
            Action::Apply { .. } => {}
        }
    }
    Ok(())
}

fn zone_of(n: &crate::views::NodeView<'_>) -> String {
    n.spec.labels.get(ZONE_LABEL).cloned().unwrap_or_default()
}

/// A node's state and usage (`None`: not registered).
fn node_use(node: Option<&crate::views::NodeView<'_>>) -> (NodeState, Usage) {
    match node {
        None => (NodeState::Absent, Usage::default()),
        Some(n) => {
            let state = match (n.ready, n.cordoned) {
                (false, _) => NodeState::NotReady,
                (true, true) => NodeState::SchedulingDisabled,
                (true, false) => NodeState::Ready,
            };
            (
                state,
                Usage {
                    cpu_requested: n.allocated.cpu_millis,
                    cpu_allocatable: n.spec.capacity.cpu_millis,
                    memory_requested: n.allocated.memory_bytes,
                    memory_allocatable: n.spec.capacity.memory_bytes,
                    pods: n.pod_count as u64,
                    pods_allocatable: n.spec.max_pods as u64,
                },
            )
        }
    }
}

/// `pod/NAME` → NAME.
fn pod_of(object: &str) -> Option<&str> {
    object.strip_prefix("pod/")
}

/// Runs `actions` on a copy of `before` under `profile` and answers with
/// the diff. `before` should be converged (its pods where they run); it is
/// not changed. Errors: an action that names a node, zone or Deployment
/// that does not exist (with some that do), or too many actions.
pub fn what_if(before: &Cluster, profile: &Profile, actions: &[Action]) -> Result<WhatIf, Error> {
    check(before, actions)?;
    let start = before.now();
    let last_action = start + actions.len() as u64;
    if last_action + SETTLE_LIMIT > crate::limits::MAX_TICK {
        return Err(Error::Invalid(format!(
            "the cluster's clock is at tick {start}; a what-if runs to tick {} at most, past the limit of {} (MAX_TICK); expected an earlier cluster",
            last_action + SETTLE_LIMIT,
            crate::limits::MAX_TICK
        )));
    }
    let mut sim = Simulator::new(0, profile.clone());
    *sim.cluster_mut() = before.clone();
    sim.cluster_mut().watch_events();
    sim.cluster_mut().take_watched_events();
    sim.cluster_mut().watch_api();
    sim.cluster_mut().take_api_log();
    // Action i fires at tick start + 1 + i.
    let mut applied = Vec::with_capacity(actions.len());
    for (i, a) in actions.iter().enumerate() {
        let tick = start + 1 + i as u64;
        for e in a.events() {
            // Checked against the cluster as the events before it leave
            // it; a refusal when it fires is reported with the action.
            sim.schedule(tick, e)
                .map_err(|err| Error::Invalid(format!("{}: {err}", a.describe())))?;
        }
        applied.push(Applied {
            action: a.describe(),
            tick,
            refused: Vec::new(),
        });
    }

    let mut tracks: BTreeMap<String, Track> = BTreeMap::new();
    // Deployments whose pods the run touched, by name.
    let mut deployments: BTreeMap<String, Watch> = BTreeMap::new();
    for a in actions {
        match a {
            Action::Scale { deployment, .. } => {
                if let Ok(s) = before.deployment_status(deployment) {
                    deployments.insert(s.name, Watch::default());
                }
            }
            Action::Apply { events, .. } => {
                for e in events {
                    if let Event::ApplyDeployment(d) | Event::Deploy(d) = e {
                        deployments.insert(
                            String::from(crate::namespace::canonical(&d.name)),
                            Watch::default(),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    // Drains: node → (start tick, listed pods (name, pdb)).
    let mut drains: Drains = BTreeMap::new();
    let mut drain_done: BTreeMap<String, u64> = BTreeMap::new();
    // Refusals seen in kubectl drain's messages: pod → (first tick, last message).
    let mut refusals: BTreeMap<String, (u64, String)> = BTreeMap::new();

    let mut quiet = 0u64;
    // The pods this tick's events and evictions named.
    let mut named: Vec<String> = Vec::new();
    let mut wait_until: Option<u64> = None;
    let settled;
    loop {
        let tick = sim.tick() + 1;
        // Before the tick's actions: what a drain lists and what a deleted
        // node holds (its pods vanish with no event).
        if tick <= last_action {
            let a = &actions[(tick - start - 1) as usize];
            let c = sim.cluster();
            match a {
                Action::Drain(n) => {
                    // The budgets as they are now (an earlier apply may
                    // have added one).
                    let pdbs: Vec<(String, crate::model::Selector)> = c
                        .pdb_names()
                        .into_iter()
                        .filter_map(|n| c.pdb_spec(&n).ok().map(|s| (n, s.selector.clone())))
                        .collect();
                    if let Ok(node) = c.node(n) {
                        let listed: Vec<(String, Option<String>)> = c
                            .pods_on(node.id)
                            .filter(|p| p.kind != WorkloadKind::DaemonSet)
                            .map(|p| {
                                let pdb = pdbs
                                    .iter()
                                    .find(|(_, s)| s.matches(&p.template.labels))
                                    .map(|(n, _)| n.clone());
                                (p.name(), pdb)
                            })
                            .collect();
                        drains.entry(n.clone()).or_insert((tick, listed));
                    }
                }
                Action::DeleteNode(n) => {
                    if let Ok(node) = c.node(n) {
                        for p in c.pods_on(node.id) {
                            let t = track(&mut tracks, before, c, &p.name());
                            t.node = Some(n.clone());
                            t.deleted.get_or_insert((
                                tick,
                                Cause::NodeDeleted,
                                format!("node/{n} deleted"),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let epoch = sim.cluster().change_epoch();
        let report = sim.step();
        if tick <= last_action {
            applied[(tick - start - 1) as usize].refused = report.errors.clone();
        }
        let events = sim.cluster_mut().take_watched_events();
        let api = sim.cluster_mut().take_api_log();
        let mut changed = sim.cluster().change_epoch() != epoch || !api.is_empty();
        {
            let c = sim.cluster();
            named.clear();
            for r in &api {
                if let crate::cluster::ApiRecord::Evicted { tick, pod, .. } = r {
                    named.push(pod.clone());
                    let t = track(&mut tracks, before, c, pod);
                    t.deleted
                        .get_or_insert((*tick, Cause::Eviction, format!("evicted pod {pod}")));
                }
            }
            for e in &events {
                if e.reason != "FailedScheduling" {
                    changed = true;
                }
                if let Some(pod) = observe(&mut tracks, before, c, e) {
                    named.push(pod);
                }
            }
            for (node, (started, listed)) in &drains {
                if drain_done.contains_key(node) {
                    continue;
                }
                let status = c.node(node).ok().and_then(|n| n.drain_status);
                if let Some(s) = status {
                    if let Some(rest) = s.strip_prefix("error when evicting pods/\"") {
                        if let Some((pod, _)) = rest.split_once('"') {
                            // kubectl names the pod without its namespace.
                            if let Some((name, _)) = listed
                                .iter()
                                .find(|(p, _)| crate::namespace::split(p).1 == pod)
                            {
                                refusals
                                    .entry(name.clone())
                                    .or_insert((tick, String::new()))
                                    .1 = String::from(s);
                            }
                        }
                    }
                    if s.ends_with(" drained") || s.starts_with("error: unable to drain") {
                        drain_done.insert(node.clone(), tick.max(*started));
                    }
                }
                if c.node(node).is_err() {
                    drain_done.insert(node.clone(), tick);
                }
            }
            // Deployments touched: the owners of the pods this tick's
            // events and evictions named. Each is sampled when touched, and
            // every tick while it has fewer available pods than desired
            // (availability comes back on a timer, with no event): not every
            // Deployment every tick.
            for name in &named {
                let owner = match tracks.get(name.as_str()) {
                    Some(t) => (t.kind == Some(WorkloadKind::Deployment) && !t.owner.is_empty())
                        .then(|| t.owner.clone()),
                    None => c
                        .pod_by_name(name)
                        .ok()
                        .filter(|p| p.kind == WorkloadKind::Deployment)
                        .map(|p| String::from(p.app)),
                };
                if let Some(owner) = owner {
                    deployments.entry(owner).or_default().due = true;
                }
            }
            for (name, w) in deployments.iter_mut() {
                if w.due || w.below {
                    w.due = false;
                    if let Ok(s) = c.deployment_status(name) {
                        if s.available_replicas < w.min {
                            w.min = s.available_replicas;
                            w.at = tick;
                        }
                        w.below = s.available_replicas < s.spec_replicas;
                        if s.condition(DeploymentConditionType::Available)
                            .is_some_and(|c| c.status == ConditionStatus::False)
                        {
                            w.lost = true;
                        }
                    }
                }
                if w.below {
                    w.unavailable += 1;
                }
            }
        }
        if tick <= last_action {
            quiet = 0;
            continue;
        }
        quiet = if changed { 0 } else { quiet + 1 };
        if changed {
            wait_until = None;
        }
        if tick >= last_action + SETTLE_LIMIT {
            settled = quiet >= QUIET_TICKS && next_timer(sim.cluster()).is_none();
            break;
        }
        // Quiet long enough: settled unless a timer is pending. The pass
        // over the pods that finds the next timer runs again only once that
        // timer is due (or something changed), not every quiet tick.
        if quiet >= QUIET_TICKS && wait_until.is_none_or(|t| tick >= t) {
            match next_timer(sim.cluster()) {
                None => {
                    settled = true;
                    break;
                }
                Some(t) => wait_until = Some(t),
            }
        }
    }

    let end = sim.tick();
    // The end state is the simulator's: taken, not copied.
    let after = core::mem::take(sim.cluster_mut());
    Ok(diff(
        before,
        after,
        applied,
        start,
        end,
        settled,
        tracks,
        deployments,
        drains,
        drain_done,
        refusals,
    ))
}

/// The tick of the next thing the cluster waits for, if any: a pod's
/// taint eviction, a silent node still Ready (it goes NotReady), a bound pod
/// not yet Ready on a Ready node, a Ready pod not yet available, a rollout
/// whose progress deadline has not passed. One pass over the pods: called
/// only once the cluster has been quiet for [`QUIET_TICKS`].
fn next_timer(c: &Cluster) -> Option<u64> {
    let now = c.now();
    let mut next: Option<u64> = None;
    let mut at = |t: u64| {
        if t > now {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
    };
    let mut ready_nodes = BTreeSet::new();
    for n in c.nodes() {
        if n.ready {
            ready_nodes.insert(n.id);
            if let Some(s) = n.silent_since {
                at(s + c.heartbeat_timeout() + 1);
            }
        }
        // A drain's retries are the quiet ticks' business: a refusal that
        // stands changes nothing.
    }
    // A pod's taint eviction: each deadline set is queued at its tick
    // (controllers/tainteviction.rs); the first one still held by its pod.
    if let Some(t) = c
        .taint_queue
        .range(now + 1..)
        .find(|(&t, due)| {
            due.iter().any(|&(k, uid)| {
                c.pods
                    .get(k as usize)
                    .and_then(|p| p.as_ref())
                    .is_some_and(|p| p.uid == uid && p.taint_deadline() == Some(t))
            })
        })
        .map(|(&t, _)| t)
    {
        at(t);
    }
    for o in &c.controllers {
        // A bound pod not yet Ready on a Ready node: only an owner with
        // fewer Ready pods than bound ones has one (a Ready pod is bound).
        let (bound, ready) = o
            .counts
            .values()
            .fold((0u32, 0u32), |(b, r), n| (b + n.bound, r + n.ready));
        if ready < bound {
            for p in o.pods.values().map(|&k| c.pod(k)) {
                if let Some(node) = p.node() {
                    if !p.ready && ready_nodes.contains(&node) {
                        let tpl = &o.revisions[p.revision as usize - 1].template;
                        at(p.bound_at() + tpl.ready_after as u64);
                    }
                }
            }
        }
        // A live Deployment's rollout status (Cluster::deployment_status).
        if o.deleted || o.workload.kind() != WorkloadKind::Deployment {
            continue;
        }
        if let Some(p) = &o.rollout.progressing {
            if p.reason == crate::rollout::reasons::REPLICA_SET_UPDATED
                || p.reason == crate::rollout::reasons::NEW_REPLICA_SET_CREATED
            {
                at(p.last_update_time + o.progress_deadline_seconds as u64);
            }
        }
        if o.ready() > o.available() {
            // minReadySeconds still running for some pod.
            at(now + 1);
        }
    }
    next
}

/// The track of pod `name`, made on first sight from the before cluster or
/// the cluster now.
fn track<'t>(
    tracks: &'t mut BTreeMap<String, Track>,
    before: &Cluster,
    now: &Cluster,
    name: &str,
) -> &'t mut Track {
    track_in(tracks, Some(before), now, name)
}

/// [`track`] of a pod `before` does not have (`None`: one just created,
/// whose name a generated name never repeats), or does.
fn track_in<'t>(
    tracks: &'t mut BTreeMap<String, Track>,
    before: Option<&Cluster>,
    now: &Cluster,
    name: &str,
) -> &'t mut Track {
    if !tracks.contains_key(name) {
        let mut t = Track::default();
        if let Some((before, p)) = before.and_then(|b| b.pod_by_name(name).ok().map(|p| (b, p))) {
            t.existed_before = true;
            t.owner = String::from(p.app);
            t.kind = Some(p.kind);
            t.node = p
                .node
                .and_then(|n| before.node_by_id(n))
                .map(|n| String::from(n.name()));
        } else if let Ok(p) = now.pod_by_name(name) {
            t.owner = String::from(p.app);
            t.kind = Some(p.kind);
        }
        tracks.insert(String::from(name), t);
    }
    tracks.get_mut(name).expect("inserted above")
}

/// Takes in one event as emitted; returns the pod it is about, if any.
fn observe(
    tracks: &mut BTreeMap<String, Track>,
    before: &Cluster,
    c: &Cluster,
    e: &crate::events::RenderedEvent,
) -> Option<String> {
    let said = |prefix: &str| e.message.strip_prefix(prefix).map(String::from);
    let object_pod = || pod_of(&e.object).map(String::from);
    let pod = match e.reason {
        "SuccessfulCreate" => {
            let pod = said("Created pod: ")?;
            // Created now: not a pod of the before cluster (a created pod
            // gets a name no pod had: util/podname.rs, controllers/adopt.rs).
            let t = track_in(tracks, None, c, &pod);
            t.created_at.get_or_insert(e.tick);
            if t.owner.is_empty() {
                // Created and gone within the tick: its owner from the
                // object (a ReplicaSet is NAME-HASH of its Deployment).
                let (kind, name) = e.object.split_once('/').unwrap_or(("", ""));
                t.owner = match kind {
                    "replicaset" => name.rsplit_once('-').map_or(name, |(d, _)| d).into(),
                    _ => name.into(),
                };
                t.kind = Some(match kind {
                    "daemonset" => WorkloadKind::DaemonSet,
                    _ => WorkloadKind::Deployment,
                });
            }
            pod
        }
        "SuccessfulDelete" => {
            let pod = said("Deleted pod: ")?;
            let cause = if e.object.starts_with("daemonset/") {
                Cause::DaemonSetController
            } else {
                Cause::ReplicaSetController
            };
            let t = track(tracks, before, c, &pod);
            t.deleted.get_or_insert((
                e.tick,
                cause,
                format!("{} {}: {}", e.reason, e.object, e.message),
            ));
            pod
        }
        "Scheduled" => {
            let pod = object_pod()?;
            let (_, node) = e.message.rsplit_once(" to ")?;
            let t = track(tracks, before, c, &pod);
            t.node = Some(String::from(node));
            t.bound_at = Some(e.tick);
            pod
        }
        "TaintManagerEviction" if e.message.starts_with("Marking for deletion") => {
            let pod = object_pod()?;
            let t = track(tracks, before, c, &pod);
            t.deleted.get_or_insert((
                e.tick,
                Cause::TaintEviction,
                format!("{}: {}", e.reason, e.message),
            ));
            pod
        }
        "Preempted" => {
            let pod = object_pod()?;
            let t = track(tracks, before, c, &pod);
            t.deleted.get_or_insert((
                e.tick,
                Cause::Preemption,
                format!("{}: {}", e.reason, e.message),
            ));
            pod
        }
        // The kubelet stops it: where it ran (source.host).
        "Killing" if !e.host.is_empty() => {
            let pod = object_pod()?;
            let t = track(tracks, before, c, &pod);
            t.node = Some(e.host.clone());
            t.deleted
                .get_or_insert((e.tick, Cause::Other, format!("{}: {}", e.reason, e.message)));
            pod
        }
        // A pod whose node went NotReady: its Deployment loses availability.
        "NodeNotReady" => object_pod()?,
        _ => return None,
    };
    Some(pod)
}

#[allow(clippy::too_many_arguments)]
fn diff(
    before: &Cluster,
    after: Cluster,
    actions: Vec<Applied>,
    start: u64,
    end: u64,
    settled: bool,
    tracks: BTreeMap<String, Track>,
    deployments: BTreeMap<String, Watch>,
    drains: Drains,
    drain_done: BTreeMap<String, u64>,
    refusals: BTreeMap<String, (u64, String)>,
) -> WhatIf {
    let mut deleted = Vec::new();
    let mut created = Vec::new();
    for (name, t) in &tracks {
        let found = after.pod_by_name(name).ok();
        // A StatefulSet's pod made again takes the name of the one deleted
        // (`<statefulset>-<ordinal>`): the pod of that name created at or
        // after the deletion is another pod, the replacement.
        let reborn = matches!((&t.deleted, found), (Some(d), Some(p)) if p.created_at >= d.0);
        let alive = if reborn { None } else { found };
        // A pod deleted with no event (its node deleted) is caught by the
        // track made when the node went; a pod still alive was not deleted.
        let gone = match (&t.deleted, alive) {
            (Some(d), None) => Some(d.clone()),
            (None, None) if t.existed_before => Some((end, Cause::Other, String::new())),
            _ => None,
        };
        let kind = t.kind.unwrap_or(WorkloadKind::Deployment);
        if let Some((tick, cause, message)) = &gone {
            deleted.push(Deleted {
                pod: name.clone(),
                owner: t.owner.clone(),
                kind,
                node: t.node.clone(),
                tick: *tick,
                cause: cause.clone(),
                message: message.clone(),
                existed_before: t.existed_before,
            });
        }
        let (created_at, alive) = match (reborn, found) {
            (true, Some(p)) => (Some(p.created_at), Some(p)),
            _ if !t.existed_before => (t.created_at, alive),
            _ => (None, alive),
        };
        {
            if let Some(c_at) = created_at {
                let (node, bound_at) = match alive {
                    Some(p) => (
                        p.node
                            .and_then(|n| after.node_by_id(n))
                            .map(|n| String::from(n.name())),
                        p.node.map(|_| p.bound_at),
                    ),
                    None => (None, None),
                };
                created.push(Created {
                    pod: name.clone(),
                    owner: t.owner.clone(),
                    kind,
                    created_at: c_at,
                    node,
                    bound_at: bound_at.or(t.bound_at.filter(|_| alive.is_some())),
                    deleted: alive.is_none(),
                });
            }
        }
    }
    deleted.sort_by(|a, b| (a.tick, &a.pod).cmp(&(b.tick, &b.pod)));
    created.sort_by(|a, b| (a.created_at, &a.pod).cmp(&(b.created_at, &b.pod)));

    // When each deleted pod went, by name (a pod is deleted once).
    let deleted_at: BTreeMap<&str, u64> =
        deleted.iter().map(|d| (d.pod.as_str(), d.tick)).collect();

    // Moves: per owner, the pods deleted from a node (not by a scale down)
    // paired in order with the pods its controller created.
    let mut moves = Vec::new();
    let mut by_owner: BTreeMap<&str, (Vec<&Deleted>, Vec<&Created>)> = BTreeMap::new();
    for d in &deleted {
        if d.node.is_some() && d.cause != Cause::ReplicaSetController && d.kind != WorkloadKind::Pod
        {
            by_owner.entry(&d.owner).or_default().0.push(d);
        }
    }
    for c in &created {
        if let Some(e) = by_owner.get_mut(c.owner.as_str()) {
            e.1.push(c);
        }
    }
    for (owner, (gone, new)) in by_owner {
        let mut new = new.into_iter();
        for d in gone {
            // The first replacement created at or after the deletion.
            let Some(r) = new.by_ref().find(|c| c.created_at >= d.tick) else {
                break;
            };
            // A replacement deleted again is no Pending pod: where it
            // ran until then, from its track.
            let (to, bound_at, replacement_deleted_at) = if r.deleted {
                let t = tracks.get(r.pod.as_str());
                let bound_at = t.and_then(|t| t.bound_at);
                (
                    t.and_then(|t| t.node.clone())
                        .filter(|_| bound_at.is_some()),
                    bound_at,
                    deleted_at.get(r.pod.as_str()).copied(),
                )
            } else {
                (r.node.clone(), r.bound_at, None)
            };
            moves.push(Move {
                owner: String::from(owner),
                deleted: d.pod.clone(),
                from: d.node.clone(),
                deleted_at: d.tick,
                replacement: r.pod.clone(),
                created_at: r.created_at,
                to,
                bound_at,
                replacement_deleted_at,
            });
        }
    }
    moves.sort_by(|a, b| (a.deleted_at, &a.deleted).cmp(&(b.deleted_at, &b.deleted)));

    let mut pending: Vec<Pending> = after
        .pending_pods()
        .map(|p| {
            let name = p.name();
            let was_pending = before.pod_by_name(&name).is_ok_and(|b| b.node.is_none());
            let message = after
                .pending_reason(&name)
                .ok()
                .flatten()
                .unwrap_or_else(|| String::from("not yet scheduled"));
            Pending {
                pod: name,
                owner: String::from(p.app),
                was_pending,
                message,
            }
        })
        .collect();
    pending.sort_by(|a, b| a.pod.cmp(&b.pod));

    let mut blocked = Vec::new();
    let mut drain_out = Vec::new();
    for (node, (started, listed)) in &drains {
        for (pod, pdb) in listed {
            let Some(pdb) = pdb else { continue };
            let until = deleted_at.get(pod.as_str()).copied();
            let refused = refusals.get(pod);
            // Evicted at the drain's first attempt: not refused. Later, or
            // never: its budget refused it at each attempt until then
            // (kubectl retries every 5 s).
            let late = until.is_none_or(|u| u > *started);
            if late {
                let retry = crate::controllers::disruption::DRAIN_RETRY_TICKS;
                let refusals_n = match until {
                    Some(u) => (u - started).div_ceil(retry),
                    None => (end - started) / retry + 1,
                };
                let message = match refused {
                    Some((_, m)) if !m.is_empty() => m.clone(),
                    _ => format!(
                        "Cannot evict pod as it would violate the pod's disruption budget {pdb}"
                    ),
                };
                blocked.push(Blocked {
                    pod: pod.clone(),
                    node: node.clone(),
                    pdb: pdb.clone(),
                    from: *started,
                    until,
                    refusals: refusals_n,
                    message,
                });
            }
        }
        let status = after
            .node(node)
            .ok()
            .and_then(|n| n.drain_status.map(String::from))
            .unwrap_or_else(|| format!("node/{node} deleted"));
        drain_out.push(DrainOutcome {
            node: node.clone(),
            started: *started,
            finished: drain_done.get(node).copied(),
            status,
            listed: listed.len() as u32,
        });
    }
    blocked.sort_by(|a, b| {
        (a.until.unwrap_or(u64::MAX), &a.pod).cmp(&(b.until.unwrap_or(u64::MAX), &b.pod))
    });

    let mut deps = Vec::new();
    for (
        name,
        Watch {
            min,
            at: min_at,
            unavailable,
            lost,
            ..
        },
    ) in deployments
    {
        let b = before.deployment_status(&name).ok();
        let Ok(a) = after.deployment_status(&name) else {
            continue;
        };
        let progress_failed = a
            .condition(DeploymentConditionType::Progressing)
            .is_some_and(|c| c.status == ConditionStatus::False);
        deps.push(DeploymentChange {
            name: a.name.clone(),
            desired_before: b.as_ref().map_or(0, |b| b.spec_replicas),
            available_before: b.as_ref().map_or(0, |b| b.available_replicas),
            desired_after: a.spec_replicas,
            available_after: a.available_replicas,
            ready_after: a.ready_replicas,
            updated_after: a.updated_replicas,
            min_available: if min == u32::MAX {
                a.available_replicas
            } else {
                min
            },
            min_at,
            unavailable_ticks: unavailable,
            conditions_after: a.conditions.clone(),
            lost_availability: lost,
            stalled: progress_failed || a.available_replicas < a.spec_replicas,
        });
    }

    // Nodes before and after (those of either), zones, the whole. The
    // after cluster is a copy of the before one, so a node most often has
    // the same id in both: looked up by name only when it does not.
    fn same<'c>(
        c: &'c Cluster,
        n: &crate::views::NodeView<'_>,
    ) -> Option<crate::views::NodeView<'c>> {
        c.node_by_id(n.id)
            .filter(|m| m.name() == n.name())
            .or_else(|| c.node(n.name()).ok())
    }
    type Pair<'b, 'a> = (
        Option<crate::views::NodeView<'b>>,
        Option<crate::views::NodeView<'a>>,
    );
    let mut pairs: Vec<Pair<'_, '_>> = before
        .nodes()
        .map(|n| (same(&after, &n), n))
        .map(|(a, b)| (Some(b), a))
        .collect();
    for n in after.nodes() {
        if same(before, &n).is_none() {
            pairs.push((None, Some(n)));
        }
    }
    let mut nodes = Vec::with_capacity(pairs.len());
    let mut zones: BTreeMap<String, ZoneUse> = BTreeMap::new();
    let mut total = ZoneUse::default();
    for (b, a) in pairs {
        let (sb, ub) = node_use(b.as_ref());
        let (sa, ua) = node_use(a.as_ref());
        let Some(n) = b.as_ref().or(a.as_ref()) else {
            continue;
        };
        let name = String::from(n.name());
        let zone = zone_of(n);
        if !zones.contains_key(&zone) {
            zones.insert(
                zone.clone(),
                ZoneUse {
                    zone: zone.clone(),
                    ..Default::default()
                },
            );
        }
        let z = zones.get_mut(&zone).expect("inserted above");
        for acc in [&mut *z, &mut total] {
            if sb != NodeState::Absent {
                acc.nodes_before += 1;
                acc.all_before.add(&ub);
            }
            if sa != NodeState::Absent {
                acc.nodes_after += 1;
                acc.all_after.add(&ua);
            }
            if sb.schedulable() {
                acc.schedulable_before += 1;
                acc.before.add(&ub);
            }
            if sa.schedulable() {
                acc.schedulable_after += 1;
                acc.after.add(&ua);
            }
        }
        nodes.push(NodeUse {
            name,
            zone,
            state_before: sb,
            state_after: sa,
            before: ub,
            after: ua,
        });
    }
    total.zone = String::from("(all)");

    WhatIf {
        actions,
        start,
        end,
        settled,
        deleted,
        moves,
        created,
        pending,
        blocked,
        drains: drain_out,
        deployments: deps,
        nodes,
        zones: zones.into_values().collect(),
        total,
        after,
        namespace: None,
    }
}
