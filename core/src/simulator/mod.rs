//! The simulator: an injected clock, one seeded PRNG and a script of events.
//!
//! The whole run is a function of the seed and the script: the same pair gives
//! the same placement and the same event log, tick for tick.

mod apply;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{Cluster, FixedPoint, ScorePolicy};
use crate::controllers::bare_pod::BarePodSpec;
use crate::controllers::daemonset::DaemonSetSpec;
use crate::model::{
    DeploymentSpec, NodeSpec, PdbSpec, PodTemplate, Resources, RollingUpdate, ServiceSpec, Taint,
    TaintEffect,
};
use crate::scheduler::Explanation;
use crate::scheduler::Profile;
use crate::util::error::Error;
use crate::util::limits::{MAX_NODES, MAX_PODS, MAX_SCRIPT_EVENTS, MAX_TICK};

pub use crate::util::prng::Prng;

/// Something that happens to the cluster at a tick of the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Register a new node (refused while the name is registered).
    AddNode(NodeSpec),
    /// The kubelet of a registered node registers again with a new body:
    /// see [`Cluster::reregister_node`].
    ReregisterNode(NodeSpec),
    /// Stop a node's kubelet: it goes NotReady after the heartbeat timeout.
    FailNode(String),
    /// Restart a node's kubelet: Ready again at its next heartbeat.
    RecoverNode(String),
    RemoveNode(String),
    Cordon(String),
    Uncordon(String),
    /// Cordon and evict every pod as disruption budgets allow.
    Drain(String),
    /// `kubectl taint nodes NODE key=value:Effect`: see [`Cluster::taint_node`].
    TaintNode {
        node: String,
        taint: Taint,
    },
    /// `kubectl taint nodes NODE key:Effect-` (every effect when `effect` is
    /// `None`): see [`Cluster::untaint_node`].
    UntaintNode {
        node: String,
        key: String,
        effect: Option<TaintEffect>,
    },
    /// A zone failure: the kubelet of every registered node whose label
    /// `key` has `value` stops, as FailNode stops one.
    FailZone {
        key: String,
        value: String,
    },
    Deploy(DeploymentSpec),
    Scale {
        app: String,
        replicas: u32,
    },
    /// Apply a new pod template: a rolling update.
    Roll {
        app: String,
        template: PodTemplate,
    },
    Rollback(String),
    SetStrategy {
        app: String,
        strategy: RollingUpdate,
    },
    DeleteApp(String),
    AddPdb(PdbSpec),
    DeletePdb(String),
    AddService(ServiceSpec),
    DeleteService(String),
    /// A voluntary eviction through the eviction call.
    Evict(String),
    SetPolicy(ScorePolicy),
    /// Switch the scheduler to a profile (a KubeSchedulerConfiguration profile).
    SetProfile(Profile),
    /// Create a PriorityClass: see [`Cluster::add_priority_class`].
    AddPriorityClass(crate::model::priority::PriorityClass),
    /// Delete a PriorityClass; pods keep their priority.
    DeletePriorityClass(String),
    /// Create a DaemonSet: see [`Cluster::create_daemonset`].
    CreateDaemonSet(DaemonSetSpec),
    /// Apply a changed DaemonSet (a new template rolls node by node).
    UpdateDaemonSet(DaemonSetSpec),
    DeleteDaemonSet(String),
    /// Create a bare Pod: see [`Cluster::create_bare_pod`].
    CreatePod(BarePodSpec),
    /// Delete a bare Pod (nobody recreates it).
    DeletePod(String),
    /// Create a Namespace with its labels: see [`Cluster::add_namespace`].
    AddNamespace(crate::model::namespace::NamespaceSpec),
    /// `kubectl apply` of a Deployment: created, or updated (a new template
    /// rolls, replicas scale): see [`Cluster::apply_deployment`].
    ApplyDeployment(DeploymentSpec),
    /// `kubectl apply` of a DaemonSet: see [`Cluster::apply_daemonset`].
    ApplyDaemonSet(DaemonSetSpec),
    /// `kubectl apply` of a bare Pod: see [`Cluster::apply_pod`].
    ApplyPod(BarePodSpec),
    /// `kubectl apply` of a Node: see [`Cluster::apply_node`].
    ApplyNode(NodeSpec),
    /// `kubectl apply` of a PriorityClass: see [`Cluster::apply_priority_class`].
    ApplyPriorityClass(crate::model::priority::PriorityClass),
    /// Start the simulated Cluster Autoscaler over these node groups (the
    /// kwok provider's ConfigMaps, read by `shepherd-k8s`), seeded from the
    /// simulator's seed; it replaces one already running (its memory of
    /// nodes asked for and unneeded timers is lost, as a restarted CA's is).
    SetAutoscaler(alloc::boxed::Box<crate::autoscaler::AutoscalerConfig>),
    /// The pods a Deployment or DaemonSet of an imported cluster runs
    /// already, bound where they run under their own names: given to a
    /// DaemonSet created before, or to the Deployment the next event of
    /// the script creates (see [`Cluster::stage_running`]).
    Running(crate::controllers::adopt::RunningPods),
}

impl Event {
    /// A short description, for logs and the page.
    pub fn describe(&self) -> String {
        match self {
            Event::AddNode(n) => format!("add node {} ({})", n.name, n.capacity),
            Event::ReregisterNode(n) => {
                format!("re-register node {} ({})", n.name, n.capacity)
            }
            Event::FailNode(n) => format!("fail node {n}"),
            Event::RecoverNode(n) => format!("recover node {n}"),
            Event::RemoveNode(n) => format!("remove node {n}"),
            Event::Cordon(n) => format!("cordon node {n}"),
            Event::Uncordon(n) => format!("uncordon node {n}"),
            Event::Drain(n) => format!("drain node {n}"),
            Event::TaintNode { node, taint } => format!("taint node {node} {taint}"),
            Event::UntaintNode { node, key, effect } => match effect {
                Some(e) => format!("untaint node {node} {key}:{}-", e.as_str()),
                None => format!("untaint node {node} {key}-"),
            },
            Event::FailZone { key, value } => format!("fail zone {key}={value}"),
            Event::Deploy(d) => format!(
                "deploy {} x{} ({})",
                d.name, d.replicas, d.template.requests
            ),
            Event::Scale { app, replicas } => format!("scale {app} to {replicas}"),
            Event::Roll { app, template } => format!("roll {app} to {}", template.version),
            Event::Rollback(a) => format!("roll back {a}"),
            Event::SetStrategy { app, strategy } => format!(
                "set {app} maxSurge {} maxUnavailable {}",
                strategy.max_surge, strategy.max_unavailable
            ),
            Event::DeleteApp(a) => format!("delete app {a}"),
            Event::AddPdb(p) => format!("add PodDisruptionBudget {}", p.name),
            Event::DeletePdb(p) => format!("delete PodDisruptionBudget {p}"),
            Event::AddService(s) => format!("add Service {}", s.name),
            Event::DeleteService(s) => format!("delete Service {s}"),
            Event::Evict(p) => format!("evict pod {p}"),
            Event::SetPolicy(p) => format!("set policy {}", p.as_str()),
            Event::SetProfile(p) => format!("set scheduler profile {}", p.scheduler_name),
            Event::AddPriorityClass(pc) => {
                format!("add PriorityClass {} (value {})", pc.name, pc.value)
            }
            Event::DeletePriorityClass(n) => format!("delete PriorityClass {n}"),
            Event::CreateDaemonSet(d) => {
                format!("create DaemonSet {} ({})", d.name, d.template.requests)
            }
            Event::UpdateDaemonSet(d) => {
                format!("update DaemonSet {} to {}", d.name, d.template.version)
            }
            Event::DeleteDaemonSet(d) => format!("delete DaemonSet {d}"),
            Event::CreatePod(p) => match &p.node_name {
                Some(n) => format!("create Pod {} on node {n}", p.name),
                None => format!("create Pod {} ({})", p.name, p.template.requests),
            },
            Event::DeletePod(p) => format!("delete Pod {p}"),
            Event::AddNamespace(n) => format!("add Namespace {}", n.name),
            Event::ApplyDeployment(d) => format!(
                "apply Deployment {} x{} ({})",
                d.name, d.replicas, d.template.requests
            ),
            Event::ApplyDaemonSet(d) => format!("apply DaemonSet {}", d.name),
            Event::ApplyPod(p) => format!("apply Pod {}", p.name),
            Event::ApplyNode(n) => format!("apply node {} ({})", n.name, n.capacity),
            Event::ApplyPriorityClass(pc) => {
                format!("apply PriorityClass {} (value {})", pc.name, pc.value)
            }
            Event::SetAutoscaler(a) => {
                format!(
                    "start Cluster Autoscaler over {} node group(s)",
                    a.groups.len()
                )
            }
            Event::Running(r) => format!("{} running pods of {}", r.pods.len(), r.owner),
        }
    }
}

/// What one tick did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepReport {
    pub tick: u64,
    /// Scripted events that fired this tick.
    pub fired: u32,
    /// Scripted events that were refused when they fired, with the reason.
    pub errors: Vec<String>,
    pub reconcile: FixedPoint,
}

/// The simulated control plane.
#[derive(Clone, Debug)]
pub struct Simulator {
    cluster: Cluster,
    profile: Profile,
    seed: u64,
    rng: Prng,
    /// (tick, event), kept sorted by tick; events of one tick fire in the order given.
    script: Vec<(u64, Event)>,
    /// Index of the next event in `script` to fire.
    next: usize,
    /// Pending AddNode and RemoveNode events: the node count the script
    /// can reach, without a scan.
    pending_adds: u32,
    pending_removes: u32,
    /// Per node name, the pending AddNode and RemoveNode events that name it:
    /// a name with none is registered when its event fires exactly if it is
    /// now, without a scan of the script.
    pending_by_node: alloc::collections::BTreeMap<String, u32>,
    /// Per app name, the tick of its pending Deploy (a name is queued once).
    pending_deploys: alloc::collections::BTreeMap<String, u64>,
    /// The replicas that pending Deploy and Scale events ask for, summed:
    /// while the desired total plus this stays under MAX_PODS, no order of
    /// the script can pass it, and `check_pods` needs no scan.
    pending_replicas: u64,
    /// A tick run in slices ([`Simulator::step_slice`]) that has not
    /// finished.
    in_step: Option<alloc::boxed::Box<InStep>>,
    /// Scripted events refused when they fired: (tick, "what: why"), in
    /// order. A refused API call is its caller's error, which Kubernetes
    /// records as no Event, so the event log does not hold it.
    refused: Vec<(u64, String)>,
    /// The simulated Cluster Autoscaler, when node groups are configured
    /// (see [`crate::autoscaler`]); `None` changes nothing.
    autoscaler: Option<alloc::boxed::Box<crate::autoscaler::Autoscaler>>,
}

/// A tick under way in slices: its report so far, whether its scripted
/// events have all fired, and its reconcile.
#[derive(Clone, Debug)]
struct InStep {
    report: StepReport,
    fired_all: bool,
    reconciling: crate::Reconciling,
    /// Pods bound when the tick began (for the progress estimate).
    bound_before: u32,
}

/// What firing a scripted event counts against a slice's budget, where
/// creating a pod counts 1 (see [`Cluster::reconcile_slice`]): declaring a
/// Deployment (or a DaemonSet) costs about as much time as creating 16 pods,
/// any other event about as much as creating one (docs/speed-history.md, "Comments' measurements").
fn event_cost(e: &Event) -> u32 {
    match e {
        Event::Deploy(_)
        | Event::CreateDaemonSet(_)
        | Event::ApplyDeployment(_)
        | Event::ApplyDaemonSet(_) => 16,
        _ => 1,
    }
}

impl Simulator {
    /// A simulator scheduling under `profile` (a [`Profile`], or a
    /// [`ScorePolicy`] naming one). The scheduler's tie-break PRNG is
    /// derived from `seed`.
    pub fn new(seed: u64, profile: impl Into<Profile>) -> Self {
        let mut cluster = Cluster::new();
        cluster.set_scheduler_seed(Prng::new(seed ^ 0x7363_6865_6475_6c65).next_u64());
        Simulator {
            cluster,
            profile: profile.into(),
            seed,
            rng: Prng::new(seed),
            script: Vec::new(),
            next: 0,
            refused: Vec::new(),
            pending_adds: 0,
            pending_removes: 0,
            pending_by_node: Default::default(),
            pending_deploys: Default::default(),
            pending_replicas: 0,
            in_step: None,
            autoscaler: None,
        }
    }

    /// Runs the simulated Cluster Autoscaler from now on (`None`: none).
    pub fn set_autoscaler(&mut self, a: Option<crate::autoscaler::Autoscaler>) {
        self.autoscaler = a.map(alloc::boxed::Box::new);
    }

    pub fn autoscaler(&self) -> Option<&crate::autoscaler::Autoscaler> {
        self.autoscaler.as_deref()
    }

    pub fn autoscaler_mut(&mut self) -> Option<&mut crate::autoscaler::Autoscaler> {
        self.autoscaler.as_deref_mut()
    }

    /// Phase 6 of [`Simulator::step`]: the autoscaler's loop when one is
    /// due, and a reconcile again if it changed the cluster.
    fn autoscale(&mut self, report: &mut StepReport) {
        let Some(a) = self.autoscaler.as_deref_mut() else {
            return;
        };
        if a.loop_due(self.cluster.now()) && a.run_once(&mut self.cluster, &self.profile) {
            report.reconcile = self.cluster.reconcile_to_fixed_point(&self.profile);
        }
    }

    /// A simulator that will play `script`; ticks start at 1.
    pub fn with_script(seed: u64, profile: impl Into<Profile>, script: Vec<(u64, Event)>) -> Self {
        let mut s = Simulator::new(seed, profile);
        for (t, e) in script {
            s.insert(t, e);
        }
        s
    }

    fn insert(&mut self, tick: u64, e: Event) {
        self.count_pending(&e, true);
        if let Event::Deploy(d) | Event::ApplyDeployment(d) = &e {
            self.pending_deploys.insert(d.name.clone(), tick);
        }
        // After every event already due at `tick`: the script keeps its order.
        let at = self.script.partition_point(|(t, _)| *t <= tick);
        self.script.insert(at, (tick, e));
    }

    fn count_pending(&mut self, e: &Event, add: bool) {
        let replicas = match e {
            Event::Deploy(d) | Event::ApplyDeployment(d) => Some(d.replicas as u64),
            Event::Scale { replicas, .. } => Some(*replicas as u64),
            _ => None,
        };
        if let Some(r) = replicas {
            if add {
                self.pending_replicas += r;
            } else {
                self.pending_replicas -= r;
            }
        }
        if let (Event::Deploy(d) | Event::ApplyDeployment(d), false) = (e, add) {
            self.pending_deploys.remove(&d.name);
        }
        let (counter, name) = match e {
            // An applied node may be new: counted as one (a bound that
            // errs toward refusing at the node limit).
            Event::AddNode(n) | Event::ApplyNode(n) => (&mut self.pending_adds, &n.name),
            Event::RemoveNode(n) => (&mut self.pending_removes, n),
            _ => return,
        };
        if add {
            *counter += 1;
            *self.pending_by_node.entry(name.clone()).or_insert(0) += 1;
        } else {
            *counter -= 1;
            if let Some(k) = self.pending_by_node.get_mut(name) {
                *k -= 1;
                if *k == 0 {
                    self.pending_by_node.remove(name);
                }
            }
        }
    }

    /// Replaces the events still to fire with those of `script` after the
    /// current tick, unchecked, as [`Simulator::with_script`] takes them
    /// (a session restoring a copy of its simulator gives it the script as
    /// it is now). Events already fired stay as they are.
    pub fn reschedule(&mut self, script: &[(u64, Event)]) {
        let later = self.script.split_off(self.next);
        for (_, e) in &later {
            self.count_pending(e, false);
        }
        let now = self.tick();
        for (t, e) in script.iter().filter(|(t, _)| *t > now) {
            self.insert(*t, e.clone());
        }
    }

    /// Adds an event to the script at `tick`, which must be in the future
    /// and at most [`MAX_TICK`]; the script holds at most
    /// [`MAX_SCRIPT_EVENTS`] events.
    pub fn schedule(&mut self, tick: u64, e: Event) -> Result<(), Error> {
        if tick <= self.tick() {
            return Err(Error::Invalid(format!(
                "tick {tick} is not in the future; expected a tick after {}",
                self.tick()
            )));
        }
        if tick > MAX_TICK {
            return Err(Error::Invalid(format!(
                "tick {tick} is beyond the limit of {MAX_TICK} (MAX_TICK); expected a tick from {} to {MAX_TICK}",
                self.tick() + 1
            )));
        }
        if self.script.len() >= MAX_SCRIPT_EVENTS {
            return Err(Error::Invalid(format!(
                "{}: the script already holds {MAX_SCRIPT_EVENTS} events, the limit (MAX_SCRIPT_EVENTS); expected a shorter scenario",
                e.describe()
            )));
        }
        self.validate_at(&e, tick)?;
        self.insert(tick, e);
        Ok(())
    }

    /// Checks an event against the cluster as it is now and queues it for the
    /// next tick. A refused event is not queued. (An event can still fail
    /// when it fires, if something queued before it changed the cluster; that
    /// failure is the step's error and in [`Simulator::refused`].)
    pub fn submit(&mut self, e: Event) -> Result<(), Error> {
        let t = self.tick() + 1;
        self.schedule(t, e)
    }

    /// What `submit` checks: the declaration is valid and the names it refers
    /// to exist (or, for new objects, do not), as of the next tick.
    pub fn validate(&self, e: &Event) -> Result<(), Error> {
        self.validate_at(e, self.tick() + 1)
    }

    /// [`Simulator::validate`] for an event that will fire at `tick`: a name
    /// it refers to may be created by a scripted event due by then.
    pub fn validate_at(&self, e: &Event, tick: u64) -> Result<(), Error> {
        let c = &self.cluster;
        let due = || {
            self.script[self.next..]
                .iter()
                .filter(move |(t, _)| *t <= tick)
        };
        let queued_app = |name: &str| self.pending_deploys.get(name).is_some_and(|&t| t <= tick);
        // Any queued Deploy of the name conflicts, whenever it is due.
        let app_will_exist = |name: &str| self.pending_deploys.contains_key(name);
        // Whether the node is registered when `tick` comes: as it is now,
        // then every AddNode and RemoveNode due by then, in order.
        let node_live = |name: &str| {
            let mut live = c.node(name).is_ok();
            if !self.pending_by_node.contains_key(name) {
                return live;
            }
            for (_, e) in due() {
                match e {
                    Event::AddNode(n) | Event::ApplyNode(n) if n.name == name => live = true,
                    Event::RemoveNode(n) if n == name => live = false,
                    _ => {}
                }
            }
            live
        };
        let queued_roll =
            |name: &str| due().any(|(_, e)| matches!(e, Event::Roll { app, .. } if app == name));
        // A name the script creates only after `tick` does not exist yet.
        let later = |kind: &'static str, name: &str, created: &dyn Fn(&Event) -> bool| {
            match self.script[self.next..].iter().find(|(t, e)| *t > tick && created(e)) {
                Some((t, _)) => Error::Invalid(format!(
                    "{kind} {} does not exist yet: the scripted action that creates it fires at tick {t}, after tick {tick}; expected the name of an existing {kind}", crate::util::limits::quoted(name)
                )),
                None => Error::not_found(kind, name),
            }
        };
        let node = |n: &str| {
            if node_live(n) {
                Ok(())
            } else {
                Err(later(
                    "node",
                    n,
                    &|e| matches!(e, Event::AddNode(s) if s.name == n),
                ))
            }
        };
        let app = |a: &str| {
            if c.app(a).is_ok() || queued_app(a) {
                Ok(())
            } else {
                Err(later(
                    "app",
                    a,
                    &|e| matches!(e, Event::Deploy(d) if d.name == a),
                ))
            }
        };
        match e {
            Event::AddNode(n) => {
                n.validate()?;
                if node_live(&n.name) {
                    return Err(Error::AlreadyExists {
                        kind: "node",
                        name: n.name.clone(),
                    });
                }
                let reach = c.live_nodes as u64 + self.pending_adds as u64 + 1;
                let reach = reach.saturating_sub(self.pending_removes as u64);
                if reach > MAX_NODES as u64 {
                    return Err(Error::Invalid(format!(
                        "node {}: with the nodes registered and queued the cluster would have {reach} nodes, more than the limit of {MAX_NODES} (MAX_NODES, twice Kubernetes' supported 5,000); expected fewer nodes",
                        n.name
                    )));
                }
                Ok(())
            }
            Event::ReregisterNode(n) => {
                n.validate()?;
                node(&n.name)
            }
            Event::FailNode(n)
            | Event::RecoverNode(n)
            | Event::RemoveNode(n)
            | Event::Cordon(n)
            | Event::Uncordon(n)
            | Event::Drain(n) => node(n),
            Event::TaintNode { node: n, taint } => {
                node(n)?;
                crate::model::validate_label_key(&taint.key, "taint key")?;
                crate::model::validate_label_value(&taint.value, "taint value")?;
                // Checked against the node as it is now when nothing queued
                // before it changes the node; otherwise when it fires.
                match c.node_id(n) {
                    Ok(id) if !self.node_changes_queued(n, tick) => c.check_taint(id, taint),
                    _ => Ok(()),
                }
            }
            Event::UntaintNode {
                node: n,
                key,
                effect,
            } => {
                node(n)?;
                match c.node_id(n) {
                    Ok(id) if !self.node_changes_queued(n, tick) => {
                        c.check_untaint(id, key, *effect)
                    }
                    _ => Ok(()),
                }
            }
            Event::FailZone { key, value } => {
                crate::model::validate_label_key(key, "label key")?;
                crate::model::validate_label_value(value, "label value")?;
                let queued = due().any(|(_, e)| {
                    matches!(e, Event::AddNode(s) | Event::ReregisterNode(s) | Event::ApplyNode(s)
                        if s.labels.get(key).is_some_and(|v| v == value))
                });
                if queued
                    || c.nodes()
                        .any(|n| n.spec.labels.get(key).is_some_and(|v| v == value))
                {
                    Ok(())
                } else {
                    Err(Error::Invalid(format!(
                        "no node has label {}={} (registered or queued by tick {tick}); expected a label value some node carries",
                        crate::util::limits::quoted(key),
                        crate::util::limits::quoted(value)
                    )))
                }
            }
            Event::Deploy(d) => {
                d.validate()?;
                if c.app(&d.name).is_ok() || app_will_exist(&d.name) {
                    return Err(Error::AlreadyExists {
                        kind: "app",
                        name: d.name.clone(),
                    });
                }
                // A DaemonSet or bare Pod of the name.
                if c.controller_by_name.contains_key(&d.name) {
                    return Err(Error::AlreadyExists {
                        kind: "app",
                        name: d.name.clone(),
                    });
                }
                self.check_fits(&d.name, &d.template.requests)?;
                self.check_pods(e, tick)
            }
            Event::Scale { app: a, replicas } => {
                app(a)?;
                crate::model::validate_replicas(a, *replicas)?;
                self.check_pods(e, tick)
            }
            Event::Roll { app: a, template } => {
                app(a)?;
                template.validate(a)?;
                self.check_fits(a, &template.requests)
            }
            Event::Rollback(a) => {
                app(a)?;
                if c.has_previous_revision(a) || queued_roll(a) {
                    Ok(())
                } else {
                    Err(Error::Invalid(format!(
                        "app {a} has no previous revision to roll back to; expected an app that has been rolled at least once"
                    )))
                }
            }
            Event::DeleteApp(a) => app(a),
            Event::SetStrategy { app: a, strategy } => {
                app(a)?;
                strategy.validate(a)
            }
            Event::AddPdb(p) => p.validate(),
            Event::AddPriorityClass(pc) => {
                // Classes created or deleted by events queued before it count.
                let mut exists = c.priority_classes.contains_key(&pc.name);
                let mut default = c.default_priority_class().map(|d| d.name.clone());
                for (_, e) in due() {
                    match e {
                        Event::AddPriorityClass(q) => {
                            exists |= q.name == pc.name;
                            if q.global_default {
                                default = Some(q.name.clone());
                            }
                        }
                        Event::DeletePriorityClass(q) => {
                            exists &= *q != pc.name;
                            if default.as_deref() == Some(q.as_str()) {
                                default = None;
                            }
                        }
                        _ => {}
                    }
                }
                if exists {
                    return Err(Error::AlreadyExists {
                        kind: "PriorityClass",
                        name: pc.name.clone(),
                    });
                }
                pc.validate()?;
                match default {
                    Some(d) if pc.global_default => Err(Error::Invalid(format!(
                        "PriorityClass {}: PriorityClass {} is already marked as the globalDefault, and only one default can exist; expected globalDefault false, or delete {} first",
                        crate::util::limits::quoted(&pc.name),
                        crate::util::limits::quoted(&d),
                        crate::util::limits::quoted(&d)
                    ))),
                    _ => Ok(()),
                }
            }
            Event::DeletePriorityClass(n) => {
                let queued =
                    due().any(|(_, e)| matches!(e, Event::AddPriorityClass(q) if q.name == *n));
                if queued {
                    Ok(())
                } else {
                    c.check_delete_priority_class(n)
                }
            }
            Event::DeletePdb(p) => c.pdb_status(p).map(|_| ()),
            Event::AddService(s) => s.validate(),
            Event::DeleteService(s) => c.service_endpoints(s).map(|_| ()),
            Event::Evict(p) => c.pod_by_name(p).map(|_| ()),
            Event::SetPolicy(_) => Ok(()),
            Event::SetProfile(p) => p.validate(),
            Event::SetAutoscaler(a) => a.validate(),
            Event::CreateDaemonSet(d) => {
                d.validate()?;
                self.check_new_workload(&d.name)?;
                let queued = self.script[self.next..]
                    .iter()
                    .filter(|(_, e)| matches!(e, Event::CreateDaemonSet(_)))
                    .count();
                let live = c.daemonset_specs().count();
                if live + queued >= crate::controllers::daemonset::MAX_DAEMONSETS {
                    return Err(Error::Invalid(format!(
                        "DaemonSet {}: with the DaemonSets created and queued the cluster would have {}, more than the limit of {} (MAX_DAEMONSETS); expected one deleted first",
                        d.name,
                        live + queued + 1,
                        crate::controllers::daemonset::MAX_DAEMONSETS
                    )));
                }
                self.check_fits(&d.name, &d.template.requests)
            }
            Event::UpdateDaemonSet(d) => {
                d.validate()?;
                self.check_workload_exists("DaemonSet", &d.name, tick)?;
                self.check_fits(&d.name, &d.template.requests)
            }
            Event::DeleteDaemonSet(d) => self.check_workload_exists("DaemonSet", d, tick),
            Event::CreatePod(p) => {
                p.validate()?;
                self.check_new_workload(&p.name)?;
                if p.node_name.is_none() {
                    self.check_fits(&p.name, &p.template.requests)?;
                }
                Ok(())
            }
            Event::DeletePod(p) => self.check_workload_exists("Pod", p, tick),
            // kubectl apply: an update is checked against the object as it
            // is now (a change queued before it is checked when it fires);
            // a creation as the creating event is.
            Event::ApplyDeployment(d) => {
                c.check_apply_deployment(d)?;
                if c.app(&d.name).is_err() && !queued_app(&d.name) {
                    self.check_new_workload(&d.name)?;
                    self.check_fits(&d.name, &d.template.requests)?;
                }
                self.check_pods(e, tick)
            }
            Event::ApplyDaemonSet(d) => {
                c.check_apply_daemonset(d)?;
                if c.daemonset_spec(&d.name).is_err() {
                    self.check_fits(&d.name, &d.template.requests)?;
                }
                Ok(())
            }
            Event::ApplyPod(p) => {
                c.check_apply_pod(p)?;
                if p.node_name.is_none() && c.bare_pod_specs().all(|b| b.name != p.name) {
                    self.check_fits(&p.name, &p.template.requests)?;
                }
                Ok(())
            }
            Event::ApplyNode(n) => {
                n.validate()?;
                if !node_live(&n.name) {
                    let reach = c.live_nodes as u64 + self.pending_adds as u64 + 1;
                    let reach = reach.saturating_sub(self.pending_removes as u64);
                    if reach > MAX_NODES as u64 {
                        return Err(Error::Invalid(format!(
                            "node {}: with the nodes registered and queued the cluster would have {reach} nodes, more than the limit of {MAX_NODES} (MAX_NODES, twice Kubernetes' supported 5,000); expected fewer nodes",
                            n.name
                        )));
                    }
                }
                Ok(())
            }
            Event::ApplyPriorityClass(pc) => c.check_apply_priority_class(pc),
            // Checked against the nodes and names when they are given to
            // their owner.
            Event::Running(r) => r.validate(),
            Event::AddNamespace(n) => {
                n.validate()?;
                let mut labels = n.labels.clone();
                labels.remove(crate::model::namespace::NAMESPACE_NAME_LABEL);
                let queued = due().any(|(_, e)| {
                    matches!(e, Event::AddNamespace(q) if q.name == n.name && {
                        let mut l = q.labels.clone();
                        l.remove(crate::model::namespace::NAMESPACE_NAME_LABEL);
                        l != labels
                    })
                });
                if queued {
                    return Err(Error::Invalid(format!(
                        "namespace {}: a Namespace of this name with other labels is queued before it; expected the same labels",
                        n.name
                    )));
                }
                c.check_namespace_labels(&n.name, &labels)
            }
        }
    }

    /// A new Deployment, DaemonSet or bare Pod name: none of the three may
    /// hold it now or be queued to (the engine keeps one name per owner).
    fn check_new_workload(&self, name: &str) -> Result<(), Error> {
        let queued = self.script[self.next..].iter().any(|(_, e)| match e {
            Event::Deploy(d) | Event::ApplyDeployment(d) => d.name == name,
            Event::CreateDaemonSet(d) | Event::ApplyDaemonSet(d) => d.name == name,
            Event::CreatePod(p) | Event::ApplyPod(p) => p.name == name,
            _ => false,
        });
        if queued || self.cluster.controller_by_name.contains_key(name) {
            return Err(Error::AlreadyExists {
                kind: "workload",
                name: name.into(),
            });
        }
        Ok(())
    }

    /// A DaemonSet or bare Pod that exists now or is created by a scripted
    /// event due by `tick`.
    fn check_workload_exists(
        &self,
        kind: &'static str,
        name: &str,
        tick: u64,
    ) -> Result<(), Error> {
        let c = &self.cluster;
        let now = match kind {
            "DaemonSet" => c.daemonset_spec(name).is_ok(),
            _ => c.bare_pod_exists(name),
        };
        let queued = self.script[self.next..]
            .iter()
            .take_while(|(t, _)| *t <= tick)
            .any(|(_, e)| match e {
                Event::CreateDaemonSet(d) | Event::ApplyDaemonSet(d) => {
                    kind == "DaemonSet" && d.name == name
                }
                Event::CreatePod(p) | Event::ApplyPod(p) => kind == "Pod" && p.name == name,
                _ => false,
            });
        if now || queued {
            Ok(())
        } else {
            Err(Error::not_found(kind, name))
        }
    }

    /// Whether an event due by `tick` may change node `name`'s taints
    /// (register, re-register, taint or untaint it).
    fn node_changes_queued(&self, name: &str, tick: u64) -> bool {
        self.script[self.next..]
            .iter()
            .take_while(|(t, _)| *t <= tick)
            .any(|(_, e)| match e {
                Event::AddNode(s) | Event::ReregisterNode(s) | Event::ApplyNode(s) => {
                    s.name == name
                }
                Event::RemoveNode(n) => n == name,
                Event::TaintNode { node, .. } | Event::UntaintNode { node, .. } => node == name,
                _ => false,
            })
    }

    /// A pod bigger than every node, even an empty one, could never run:
    /// refused, unless no node is registered or queued at all yet.
    fn check_fits(&self, app: &str, req: &Resources) -> Result<(), Error> {
        if !self.fits_some_node(&Resources::ZERO) || self.fits_some_node(req) {
            return Ok(());
        }
        let c = &self.cluster;
        let cpu = c
            .nodes()
            .map(|n| n.spec.capacity.cpu_millis)
            .max()
            .unwrap_or(0);
        let mem = c
            .nodes()
            .map(|n| n.spec.capacity.memory_bytes)
            .max()
            .unwrap_or(0);
        Err(Error::Invalid(format!(
            "app {app}: a pod requesting {req} fits on no node, even an empty one (the largest node has cpu {}, memory {}); expected smaller requests or a bigger node",
            crate::model::quantity::format_cpu_millis(cpu),
            crate::model::quantity::format_memory_bytes(mem)
        )))
    }

    /// The replicas all Deployments will desire as the script plays out,
    /// with `e` (a Deploy or a Scale firing at `tick`) among it, stay within
    /// [`MAX_PODS`] at every step.
    fn check_pods(&self, e: &Event, tick: u64) -> Result<(), Error> {
        let c = &self.cluster;
        let asked = match e {
            Event::Deploy(d) | Event::ApplyDeployment(d) => d.replicas as u64,
            Event::Scale { replicas, .. } => *replicas as u64,
            _ => 0,
        };
        // Every prefix of the script sums to at most this.
        if c.desired_total + self.pending_replicas + asked <= MAX_PODS {
            return Ok(());
        }
        let mut total = c.desired_total;
        let mut peak = total;
        let mut replicas: alloc::collections::BTreeMap<&str, u64> = Default::default();
        let pending = &self.script[self.next..];
        let at = pending.partition_point(|(t, _)| *t <= tick);
        let order = pending[..at]
            .iter()
            .map(|(_, e)| e)
            .chain(core::iter::once(e))
            .chain(pending[at..].iter().map(|(_, e)| e));
        for ev in order {
            let (name, new) = match ev {
                Event::Deploy(d) | Event::ApplyDeployment(d) => {
                    (d.name.as_str(), d.replicas as u64)
                }
                Event::Scale { app, replicas } => (app.as_str(), *replicas as u64),
                Event::DeleteApp(a) => (a.as_str(), 0),
                _ => continue,
            };
            let old = match replicas.get(name) {
                Some(&r) => r,
                None => c
                    .controller_id(name)
                    .map(|id| c.controllers[id.0 as usize].replicas as u64)
                    .unwrap_or(0),
            };
            replicas.insert(name, new);
            total = total - old.min(total) + new;
            peak = peak.max(total);
        }
        if peak > MAX_PODS {
            let what = e.describe();
            return Err(Error::Invalid(format!(
                "{what}: the Deployments would desire {peak} pods in all, more than the limit of {MAX_PODS} (MAX_PODS, twice Kubernetes' supported 150,000); expected fewer replicas"
            )));
        }
        Ok(())
    }

    /// Applies one event to the cluster now.
    pub fn apply(&mut self, e: &Event) -> Result<(), Error> {
        let c = &mut self.cluster;
        match e {
            Event::AddNode(n) => c.add_node(n.clone()).map(|_| ()),
            Event::ReregisterNode(n) => c.reregister_node(n.clone()).map(|_| ()),
            Event::FailNode(n) => c.fail_node(n),
            Event::RecoverNode(n) => c.recover_node(n),
            Event::RemoveNode(n) => c.remove_node(n),
            Event::Cordon(n) => c.cordon(n),
            Event::Uncordon(n) => c.uncordon(n),
            Event::Drain(n) => c.drain(n),
            Event::TaintNode { node, taint } => c.taint_node(node, taint.clone()),
            Event::UntaintNode { node, key, effect } => c.untaint_node(node, key, *effect),
            Event::FailZone { key, value } => c.fail_zone(key, value).map(|_| ()),
            Event::Deploy(d) => c.deploy(d.clone()).map(|_| ()),
            Event::Scale { app, replicas } => c.scale(app, *replicas),
            Event::Roll { app, template } => c.roll(app, template.clone()),
            Event::Rollback(a) => c.rollback(a),
            Event::SetStrategy { app, strategy } => c.set_strategy(app, *strategy),
            Event::DeleteApp(a) => c.delete_app(a),
            Event::AddPdb(p) => c.add_pdb(p.clone()),
            Event::DeletePdb(p) => c.delete_pdb(p),
            Event::AddPriorityClass(pc) => c.add_priority_class(pc.clone()),
            Event::DeletePriorityClass(n) => c.delete_priority_class(n),
            Event::AddService(s) => c.add_service(s.clone()),
            Event::DeleteService(s) => c.delete_service(s),
            Event::Evict(p) => c.evict(p),
            Event::SetPolicy(p) => {
                self.profile = p.profile();
                Ok(())
            }
            Event::SetProfile(p) => {
                p.validate()?;
                self.profile = p.clone();
                Ok(())
            }
            Event::CreateDaemonSet(d) => c.create_daemonset(d.clone()).map(|_| ()),
            Event::UpdateDaemonSet(d) => c.update_daemonset(d.clone()),
            Event::DeleteDaemonSet(d) => c.delete_daemonset(d),
            Event::CreatePod(p) => c.create_bare_pod(p.clone()).map(|_| ()),
            Event::DeletePod(p) => c.delete_bare_pod(p),
            Event::AddNamespace(n) => c.add_namespace(n.clone()),
            Event::ApplyDeployment(d) => c.apply_deployment(d.clone()),
            Event::ApplyDaemonSet(d) => c.apply_daemonset(d.clone()),
            Event::ApplyPod(p) => c.apply_pod(p.clone()),
            Event::ApplyNode(n) => c.apply_node(n.clone()),
            Event::ApplyPriorityClass(pc) => c.apply_priority_class(pc.clone()),
            Event::SetAutoscaler(a) => {
                let mut a = crate::autoscaler::Autoscaler::new((**a).clone(), self.seed)?;
                // Nodes already asked for still come.
                if let Some(old) = &self.autoscaler {
                    a.carry_over(old);
                }
                self.autoscaler = Some(alloc::boxed::Box::new(a));
                Ok(())
            }
            Event::Running(r) => c.stage_running(r.clone()),
        }
    }

    /// One tick, in these phases:
    /// 1. the clock advances by one tick;
    /// 2. beating nodes heartbeat (a recovered node is Ready again);
    /// 3. scripted events due at this tick fire, in script order;
    /// 4. node lifecycle: a node silent longer than the heartbeat timeout
    ///    (node-monitor-grace-period, 50 s) is NotReady: its pods are marked
    ///    not Ready and it gets the `node.kubernetes.io/unreachable` taints;
    ///    then the taint-eviction timers due now fire (one tick is one
    ///    second, so tolerationSeconds count ticks; a NotReady node's pods go
    ///    after DefaultTolerationSeconds' 300 unless they say otherwise);
    /// 5. reconcile to a fixed point (readiness, lost pods, drains,
    ///    Deployments and rollouts, scheduling, endpoints);
    /// 6. with an autoscaler, its loop when one is due (every scan
    ///    interval), then a reconcile again if it changed anything. Nodes
    ///    it asked for register in phase 2 once their delay is over.
    ///
    /// A tick begun by [`Simulator::step_slice`] and not finished is
    /// finished instead (its report returned).
    pub fn step(&mut self) -> StepReport {
        if self.in_step.is_some() {
            return self.finish_step();
        }
        let mut report = self.begin_step();
        self.fire_due(&mut report, u32::MAX);
        report.reconcile = self.cluster.reconcile_to_fixed_point(&self.profile);
        self.autoscale(&mut report);
        report
    }

    /// Phases 1-2 of [`Simulator::step`].
    fn begin_step(&mut self) -> StepReport {
        let tick = self.tick() + 1;
        self.cluster.set_now(tick);
        self.cluster.heartbeats();
        if let Some(a) = self.autoscaler.as_deref_mut() {
            a.join_due(&mut self.cluster);
        }
        StepReport {
            tick,
            ..Default::default()
        }
    }

    /// Phase 3, the scripted events due now, in script order, until
    /// `budget` is spent (each event counts [`event_cost`]), then phase 4
    /// once every one has fired. Returns whether all have, and the budget
    /// spent.
    fn fire_due(&mut self, report: &mut StepReport, budget: u32) -> (bool, u32) {
        let tick = report.tick;
        let mut spent = 0u32;
        while self.next < self.script.len() && self.script[self.next].0 <= tick {
            if spent >= budget {
                return (false, spent);
            }
            let e = self.script[self.next].1.clone();
            spent = spent.saturating_add(event_cost(&e));
            self.next += 1;
            self.count_pending(&e, false);
            report.fired += 1;
            if let Err(err) = self.apply(&e) {
                // A refused API call is its caller's error, not an Event:
                // the step's report and the simulator's list keep it.
                let msg = format!("{}: {}", e.describe(), err);
                self.refused.push((tick, msg.clone()));
                report.errors.push(msg);
            }
        }
        self.cluster.detect_failures();
        self.cluster.taint_evictions();
        (true, spent)
    }

    /// One tick in slices, so that a tick that places many pods (the first
    /// tick of an imported or generated cluster) can leave the page time to
    /// paint between them. The first call begins a tick; each call then
    /// runs it on until about `budget` units of work were done (a pod
    /// created or deleted counts 1, a pod bound [`crate::BIND_COST`], a
    /// scripted event [`event_cost`]; see [`Cluster::reconcile_slice`]).
    /// Returns the tick's report once the
    /// tick is finished, `None` while work remains.
    ///
    /// Between the calls the cluster is in the middle of the tick: submit
    /// nothing and change nothing until it is finished ([`Simulator::in_step`]),
    /// and the tick is then exactly the one [`Simulator::step`] makes:
    /// the same placement, events and PRNG draws (tests/sliced.rs).
    pub fn step_slice(&mut self, budget: u32) -> Option<StepReport> {
        let budget = budget.max(1);
        let mut st = match self.in_step.take() {
            Some(st) => st,
            None => alloc::boxed::Box::new(InStep {
                report: self.begin_step(),
                fired_all: false,
                reconciling: crate::Reconciling::default(),
                bound_before: self.cluster.bound_count(),
            }),
        };
        let mut left = budget;
        if !st.fired_all {
            let (all, spent) = self.fire_due(&mut st.report, budget);
            st.fired_all = all;
            left = budget.saturating_sub(spent);
            if !st.fired_all || left == 0 {
                self.in_step = Some(st);
                return None;
            }
        }
        if !self
            .cluster
            .reconcile_slice(&self.profile, &mut st.reconciling, left)
        {
            self.in_step = Some(st);
            return None;
        }
        let mut report = core::mem::take(&mut st.report);
        report.reconcile = st.reconciling.fixed_point().clone();
        self.autoscale(&mut report);
        Some(report)
    }

    /// Whether a tick begun by [`Simulator::step_slice`] is still under way.
    pub fn in_step(&self) -> bool {
        self.in_step.is_some()
    }

    /// During a tick in slices: `(bound, pending, expected)`, the pods it
    /// has bound so far, the pods Pending now, and an estimate of the pods
    /// it will place in all (at least `bound + pending`; while the
    /// Deployments' pods are still being created, the replicas they desire
    /// less the pods bound before the tick).
    pub fn step_progress(&self) -> Option<(u32, u32, u32)> {
        self.in_step.as_ref().map(|st| {
            let bound = st.reconciling.bound();
            let pending = self.cluster.pending_count();
            let desired = u32::try_from(self.cluster.desired_total).unwrap_or(u32::MAX);
            let expected = desired
                .saturating_sub(st.bound_before)
                .max(bound.saturating_add(pending));
            (bound, pending, expected)
        })
    }

    /// The rest of a tick begun in slices, at once.
    fn finish_step(&mut self) -> StepReport {
        loop {
            if let Some(r) = self.step_slice(u32::MAX) {
                return r;
            }
        }
    }

    /// A copy at the start of the next tick with the events queued for it
    /// fired in order (phases 1-3 of [`Simulator::step`]; their refusals
    /// ignored) and nothing else queued: the cluster an event submitted now
    /// meets when it fires. `validate` on the copy checks an event against
    /// the events queued before it for its tick, as `submit` cannot (it
    /// checks against the cluster as it is now, and a name deleted by an
    /// event queued for the same tick still exists now).
    pub fn next_tick_start(&self) -> Simulator {
        let tick = self.tick() + 1;
        let mut s = Simulator::new(self.seed, self.profile.clone());
        s.cluster = self.cluster.clone();
        s.rng = self.rng.clone();
        // Its node groups, for the checks that read them (a pod bigger than
        // every node may fit a group's template).
        s.autoscaler = self.autoscaler.clone();
        s.drop_caches();
        s.cluster.set_now(tick);
        s.cluster.heartbeats();
        for (_, e) in self.script[self.next..]
            .iter()
            .take_while(|(t, _)| *t <= tick)
        {
            let _ = s.apply(e);
        }
        s
    }

    /// One tick, as [`Simulator::step`], watching the scheduler for the
    /// bind of `pod` (`namespace/name`, or a name in `default`): returns
    /// the tick's report and, if the tick bound it, the cycle that did, as
    /// of that bind ([`Cluster::explain_decision`]: the cluster as the
    /// cycle saw it, the nodes it scored, the node it chose). To explain a
    /// bound pod as of its decision, step a copy of its run to the tick
    /// before [`crate::PodView::bound_at`] and call this. The placement is
    /// the one `step` makes: watching changes nothing.
    pub fn step_deciding(&mut self, pod: &str) -> (StepReport, Option<Result<Explanation, Error>>) {
        if self.in_step.is_some() {
            return (self.finish_step(), None);
        }
        let mut report = self.begin_step();
        self.fire_due(&mut report, u32::MAX);
        let (fp, decision) = self
            .cluster
            .reconcile_to_fixed_point_deciding(&self.profile, pod);
        report.reconcile = fp;
        self.autoscale(&mut report);
        (report, decision)
    }

    /// `ticks` steps; returns the last report.
    pub fn run(&mut self, ticks: u64) -> StepReport {
        let mut last = StepReport::default();
        for _ in 0..ticks {
            last = self.step();
        }
        last
    }

    pub fn tick(&self) -> u64 {
        self.cluster.now()
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The profile the scheduler runs under now.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The scripted events refused when they fired so far: (tick, "what:
    /// why"), oldest first (a step's [`StepReport::errors`] are its own).
    pub fn refused(&self) -> &[(u64, String)] {
        &self.refused
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Direct access, for tests and tools that build a cluster by hand.
    pub fn cluster_mut(&mut self) -> &mut Cluster {
        &mut self.cluster
    }

    /// Drops the scheduler's caches (per-node verdicts and scores kept
    /// between batches, and the sample index's buffers). They are rebuilt
    /// on use and never change a decision, so a copy kept for later (the
    /// page's Back) need not carry them: at 5,000 nodes they are megabytes.
    pub fn drop_caches(&mut self) {
        self.cluster.caches = Default::default();
    }

    /// The simulator's one PRNG, seeded from its seed.
    pub fn rng(&mut self) -> &mut Prng {
        &mut self.rng
    }

    /// The whole script, fired and pending: with the seed, all it takes to
    /// replay this run.
    pub fn script(&self) -> &[(u64, Event)] {
        &self.script
    }

    /// Whether a pod with these requests fits on some registered node when it
    /// is empty: false means it could never be scheduled.
    pub fn fits_some_node(&self, requests: &Resources) -> bool {
        self.cluster
            .nodes()
            .any(|n| requests.fits_in(&n.spec.capacity))
            || self.script[self.next..].iter().any(|(_, e)| match e {
                Event::AddNode(n) | Event::ApplyNode(n) => requests.fits_in(&n.capacity),
                // Node groups Cluster Autoscaler will start over.
                Event::SetAutoscaler(a) => a
                    .groups
                    .iter()
                    .any(|g| requests.fits_in(&g.template.capacity)),
                _ => false,
            })
            || self.autoscaler.as_ref().is_some_and(|a| {
                a.config()
                    .groups
                    .iter()
                    .any(|g| requests.fits_in(&g.template.capacity))
            })
    }

    /// Events that have not fired yet.
    pub fn pending_script(&self) -> &[(u64, Event)] {
        &self.script[self.next..]
    }
}

/// The scripted tour that `shepherd demo` prints and the page plays: five
/// nodes join (gpu-1 tainted `dedicated=gpu:NoSchedule`), `web` is bin-packed
/// and `cache` spread one per zone by anti-affinity (its third replica stays
/// Pending), both scale, node-1 stops heart-beating at tick 6 (NotReady at
/// 57 after the 50 s grace period, its pods evicted at 357 after their 300 s
/// and replaced) and heals at 360, `web` rolls to
/// v2 within maxSurge 1 / maxUnavailable 1, and a drain of node-2 is held back
/// by a PodDisruptionBudget. Run it with seed 1 and BinPack.
pub fn tour() -> Vec<(u64, Event)> {
    use crate::model::quantity::MIB;
    use crate::model::{AffinityTerm, Budget, IntOrPercent, Selector, Taint, TaintEffect};
    let zone = "topology.kubernetes.io/zone";
    let mut s: Vec<(u64, Event)> = Vec::new();
    for (i, z) in ["zone-a", "zone-a", "zone-b", "zone-b"].iter().enumerate() {
        s.push((
            1,
            Event::AddNode(
                NodeSpec::new(&format!("node-{}", i + 1), 4000, 8192 * MIB).with_label(zone, z),
            ),
        ));
    }
    let gpu = NodeSpec::new("gpu-1", 8000, 16384 * MIB)
        .with_label(zone, "zone-b")
        .with_taint(Taint::new("dedicated", "gpu", TaintEffect::NoSchedule));
    s.push((1, Event::AddNode(gpu)));
    let web = DeploymentSpec::new("web", 4, Resources::new(500, 512 * MIB))
        .with_strategy(IntOrPercent::Int(1), IntOrPercent::Int(1));
    s.push((2, Event::Deploy(web.clone())));
    let cache =
        DeploymentSpec::new("cache", 2, Resources::new(1000, 2048 * MIB)).with_template(|t| {
            t.with_anti_affinity(AffinityTerm::new(
                Selector::new(&[("app", "cache")]),
                Some(zone),
            ))
        });
    s.push((2, Event::Deploy(cache)));
    s.push((
        2,
        Event::AddService(ServiceSpec {
            name: "web".into(),
            selector: Selector::new(&[("app", "web")]),
        }),
    ));
    s.push((
        4,
        Event::Scale {
            app: "web".into(),
            replicas: 8,
        },
    ));
    s.push((
        4,
        Event::Scale {
            app: "cache".into(),
            replicas: 3,
        },
    ));
    s.push((6, Event::FailNode("node-1".into())));
    s.push((360, Event::RecoverNode("node-1".into())));
    s.push((
        364,
        Event::Roll {
            app: "web".into(),
            template: web.template.with_version("v2"),
        },
    ));
    let budget = PdbSpec {
        name: "web-pdb".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MaxUnavailable(IntOrPercent::Int(1)),
    };
    s.push((372, Event::AddPdb(budget)));
    s.push((372, Event::Drain("node-2".into())));
    s.push((382, Event::Uncordon("node-2".into())));
    // A zone failure: cache's zone anti-affinity keeps its evicted pod
    // Pending while zone-a is down (zone-b already runs a cache pod).
    s.push((
        390,
        Event::FailZone {
            key: zone.into(),
            value: "zone-a".into(),
        },
    ));
    s.push((745, Event::RecoverNode("node-1".into())));
    s.push((745, Event::RecoverNode("node-2".into())));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::MIB;

    #[test]
    fn prng_is_a_function_of_its_seed() {
        let (mut a, mut b, mut c) = (Prng::new(7), Prng::new(7), Prng::new(8));
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        for _ in 0..1000 {
            assert!(a.range(3, 5) >= 3 && a.range(3, 5) <= 5);
        }
    }

    #[test]
    fn submitted_events_fire_at_the_next_tick_and_refusals_change_nothing() {
        let mut sim = Simulator::new(1, ScorePolicy::BinPack);
        sim.submit(Event::AddNode(NodeSpec::new("node-1", 2000, 2048 * MIB)))
            .unwrap();
        assert!(sim
            .submit(Event::Scale {
                app: "missing".into(),
                replicas: 1
            })
            .is_err());
        assert_eq!(sim.pending_script().len(), 1);
        let r = sim.step();
        assert_eq!((r.tick, r.fired), (1, 1));
        assert_eq!(sim.cluster().node_count(), 1);
    }

    #[test]
    fn a_name_counts_as_existing_only_from_the_tick_it_is_created() {
        let mut sim = Simulator::new(1, ScorePolicy::BinPack);
        let web = crate::model::DeploymentSpec::new("web", 1, Resources::new(100, 64 * MIB));
        sim.schedule(5, Event::Deploy(web.clone())).unwrap();
        // Scaling at tick 1 would fire before web exists; at tick 6 it is fine.
        assert!(sim
            .submit(Event::Scale {
                app: "web".into(),
                replicas: 2
            })
            .is_err());
        sim.schedule(
            6,
            Event::Scale {
                app: "web".into(),
                replicas: 2,
            },
        )
        .unwrap();
        // A second Deploy of the same name is refused whenever it would fire.
        assert!(sim.submit(Event::Deploy(web)).is_err());
        // No roll yet: nothing to roll back to.
        assert!(sim.schedule(7, Event::Rollback("web".into())).is_err());
    }

    #[test]
    fn an_event_refused_when_it_fires_is_reported_not_logged_nor_a_panic() {
        let mut sim = Simulator::with_script(
            1,
            ScorePolicy::BinPack,
            alloc::vec![(1, Event::FailNode("ghost".into()))],
        );
        let r = sim.step();
        assert_eq!(r.errors.len(), 1);
        assert_eq!(sim.refused(), &[(1, r.errors[0].clone())][..]);
        assert!(
            r.errors[0].starts_with("fail node ghost: "),
            "{:?}",
            r.errors
        );
        // Kubernetes records no Event for a refused API call.
        assert!(sim.cluster().events().is_empty());
    }
}
