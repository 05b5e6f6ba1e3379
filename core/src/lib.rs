//! # Shepherd: a deterministic Kubernetes-style control plane
//!
//! Declare nodes and Deployments; a reconciliation loop creates pods, the
//! scheduler filters and scores nodes and binds pods, controllers heal what
//! fails, and every change is an event in a log. No I/O, no threads, no wall
//! clock, no randomness beyond one seeded PRNG: a run is a function of a seed
//! and a script, so it can be tested, fuzzed and replayed exactly.
//!
//! ## Layers
//!
//! - [`model`]: plain declarations ([`NodeSpec`], [`DeploymentSpec`],
//!   [`PodTemplate`], [`Taint`], [`Toleration`], [`AffinityTerm`],
//!   [`PdbSpec`], [`ServiceSpec`]), each with a `validate` that says what is
//!   wrong.
//! - [`Cluster`]: observed state and the incremental books that keep it cheap;
//!   [`Cluster::reconcile_once`] runs one pass and
//!   [`Cluster::reconcile_to_fixed_point`] runs passes until one changes nothing.
//! - [`scheduler`]: kube-scheduler's framework and plugins under a
//!   [`Profile`] (kube-scheduler's default profile, or the teaching profiles
//!   `binpack` and `leastloaded` that [`ScorePolicy`] names): filter, score,
//!   normalise, weigh, select; [`Cluster::explain`] shows every node's verdict
//!   and every plugin's score for a pod.
//! - [`rollout`]: minReadySeconds, the Available and Progressing conditions
//!   with progressDeadlineSeconds ([`Cluster::deployment_status`]) and
//!   `kubectl rollout status` ([`Cluster::rollout_status`]).
//! - controllers (`controllers/`, one file or folder per control loop as
//!   kube-controller-manager names them): `deployment` (with `rollout`),
//!   `daemonset`, `bare_pod`, `disruption` (budgets, the eviction call,
//!   drains), `endpoints`, `nodelifecycle`, `tainteviction`, `podgc` and
//!   `admission` (Priority).
//! - [`simulator::Simulator`]: the clock, the PRNG and a script of
//!   [`simulator::Event`]s; [`simulator::Simulator::step`] lists its phases.
//! - [`limits`]: what one scenario may ask for in total (nodes, pods,
//!   scripted events, ticks), each checked before anything changes.
//! - [`balance`]: the cluster's balance ([`Cluster::balance`]): utilisation
//!   per resource over the Ready nodes and fragmentation measured with the
//!   largest Pending pod, from the nodes' books.
//! - [`verify`]: independent checkers that recompute every invariant from the
//!   pods themselves.
//! - [`whatif`]: actions (drain, zone and node failures, scale, apply,
//!   cordon, delete-node) on a converged cluster, run with Kubernetes' timing,
//!   answered as a before/after diff ([`whatif::what_if`]).
//!
//! ## Where things are
//!
//! The source is grouped by subject, from the leaves up; a module imports
//! only its own layer or lower ones (`tests/layers.rs` checks it and lists
//! the exceptions): `util/` (chunked vectors, ordinals, the PRNG, math, the
//! error type, the limits), `model/` (declarations, selectors, quantities,
//! namespaces, PriorityClasses), `cluster/` (the store and its books: node
//! info, topology domain counts, namespaces, events), `scheduler/`,
//! `controllers/`, `reconcile.rs` (the pass), the readers (`views.rs`,
//! `balance.rs`, `verify.rs`), and `simulator/` with `generate.rs` (random
//! clusters). Older paths (`shepherd::rollout`, `shepherd::workload`,
//! `ControllerId` for [`OwnerId`]) are kept as re-exports.
//!
//! ## Example
//!
//! ```
//! use shepherd::{Cluster, DeploymentSpec, NodeSpec, Resources, ScorePolicy};
//! use shepherd::verify::{verify_capacity, verify_constraints};
//! use shepherd::quantity::MIB; // bytes in one MiB: memory is counted in bytes
//!
//! let mut cluster = Cluster::new();
//! cluster.add_node(NodeSpec::new("node-1", 4000, 8192 * MIB)).unwrap();
//! cluster.add_node(NodeSpec::new("node-2", 4000, 8192 * MIB)).unwrap();
//! cluster.deploy(DeploymentSpec::new("web", 5, Resources::new(1000, 1024 * MIB))).unwrap();
//!
//! let fp = cluster.reconcile_to_fixed_point(ScorePolicy::BinPack);
//! assert!(fp.converged);
//! assert!(cluster.fully_satisfied());
//! verify_capacity(&cluster).unwrap();
//! verify_constraints(&cluster).unwrap();
//!
//! // Bin-packing fills node-1 first (ties go to the lowest node id).
//! assert_eq!(cluster.node("node-1").unwrap().pod_count, 4);
//! assert_eq!(cluster.node("node-2").unwrap().pod_count, 1);
//! ```

#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

/// The engine's version, as the page and the CLI show it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

// The modules by subject. Their layers, from the leaves up: util, model,
// cluster, scheduler, controllers, reconcile, the readers (views, balance,
// verify), simulator and generate; `tests/layers.rs` states which may import
// which.
pub mod autoscaler;
pub mod balance;
mod cluster;
mod controllers;
pub mod generate;
pub mod model;
mod reconcile;
pub mod scheduler;
pub mod simulator;
mod util;
pub mod verify;
mod views;
pub mod whatif;

// The paths before the modules were grouped by subject: public ones that the
// CLI, the page, the manifest reader and the tests name, and two crate paths
// the scheduler names until its own `use` lines move.
pub use cluster::events;
pub use controllers::deployment::rollout;
pub use generate as workload;
pub(crate) use model::affinity;
pub use model::scalar::Scalars;
pub use model::{namespace, priority, quantity, scalar};
pub(crate) use util::error;
pub use util::{chunked, limits};

/// The sweep size of the engine's randomized unit tests: `SHEPHERD_FUZZ_OPS`
/// when set (and the standard library is there to read it), else `default`.
#[cfg(test)]
pub(crate) fn fuzz_ops(default: u64) -> u64 {
    #[cfg(feature = "std")]
    {
        std::env::var("SHEPHERD_FUZZ_OPS")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(default)
    }
    #[cfg(not(feature = "std"))]
    {
        default
    }
}

pub use balance::{Balance, Fragmentation, ResourceBalance};
pub use cluster::{
    ApiRecord, Cluster, ControllerId, FixedPoint, NodeId, OwnerId, PodPhase, ReconcileReport,
    ScorePolicy, WorkloadKind, DEFAULT_HEARTBEAT_TIMEOUT, PASS_BUDGET,
};
pub use controllers::adopt::{ReplicaSetSpec, RunningPod, RunningPods};
pub use controllers::bare_pod::BarePodSpec;
pub use controllers::daemonset::{
    daemon_tolerations, DaemonSetSpec, DaemonSetStatus, DaemonSetUpdateStrategyType,
    MAX_DAEMONSETS, MAX_DAEMONSET_MIN_READY_SECONDS,
};
pub use controllers::disruption::PdbStatus;
pub use controllers::tainteviction::{
    DEFAULT_TOLERATION_SECONDS, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE,
};
pub use error::Error;
pub use events::{EventCursor, EventLog, EventRecord, EventType, Reason, RenderedEvent, Source};
pub use model::{
    labels, AffinityTerm, Budget, DeploymentSpec, IntOrPercent, LabelSelectorRequirement, Labels,
    NodeAffinity, NodeInclusionPolicy, NodeSelectorOperator, NodeSelectorRequirement,
    NodeSelectorTerm, NodeSpec, PdbSpec, PodTemplate, PreferredSchedulingTerm, Resources,
    RollingUpdate, Selector, SelectorOperator, ServiceSpec, Taint, TaintEffect, Toleration,
    TolerationOperator, TopologySpreadConstraint, WeightedAffinityTerm, WhenUnsatisfiable,
};
pub use namespace::NamespaceSpec;
pub use priority::{PreemptionPolicy, PriorityClass};
pub use reconcile::{Reconciling, BIND_COST};
pub use rollout::{
    ConditionStatus, DeploymentCondition, DeploymentConditionType, DeploymentStatus, RolloutStatus,
};
pub use scheduler::plugins;
pub use scheduler::{
    Code, CycleRecord, Explanation, FastPaths, NodeVerdict, OnBind, Plugin, PluginScore, Profile,
    Resource, ScoringStrategy, ScoringStrategyType, TieBreak, Unfit, UtilizationShapePoint,
};
pub use views::{AppStatus, NodeView, PodView, ReplicaSetView, ServiceSummary};
