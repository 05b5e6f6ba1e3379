//! A node as the cluster keeps it (`NodeState`) and as the scheduler reads
//! it (`NodeInfo`, kube-scheduler's name for the same snapshot).

use alloc::string::String;

use crate::model::*;

#[derive(Clone, Debug)]
pub(crate) struct NodeState {
    pub spec: NodeSpec,
    /// The NodeReady condition.
    pub ready: bool,
    /// Whether its kubelet is alive and heart-beating (the simulation's switch).
    pub beating: bool,
    /// The tick of the last heartbeat, meaningful while `!beating`.
    pub last_heartbeat: u64,
    pub cordoned: bool,
    /// A drain in progress (`controllers/disruption.rs`): the pods it listed when it
    /// started and when each is tried next.
    pub drain: Option<alloc::boxed::Box<crate::controllers::disruption::Drain>>,
    /// What `kubectl drain` last printed about this node (a retry, `node/NAME
    /// drained`, an error), kept until the node is uncordoned.
    pub drain_status: Option<String>,
    /// The cluster's bind count when this node last re-registered with new
    /// labels or taints: pods bound at or before it were admitted under the
    /// old body (what the constraint checker forgives, as Kubernetes'
    /// IgnoredDuringExecution does).
    pub changed_at_bind: u64,
    pub removed: bool,
}

/// kube-scheduler's `NodeInfo` (pkg/scheduler/framework/types.go) for what
/// Shepherd simulates: `nonzero` is its NonZeroRequested, `allocated` its
/// Requested, `capacity` its Allocatable and `stamp` its Generation. (It
/// was called `HotNode`; the old name is kept as an alias.)
///
/// What the scheduler's scan reads for every node, packed so a scan of 5,000
/// nodes stays in cache: 64 bytes, aligned to a cache line, so a node's
/// record is one line. A mirror of `NodeState`, refreshed by
/// `Cluster::refresh_hot` wherever a node's state changes, and the only
/// home of the node's request sums (`allocated`, `nonzero`): a bind reads
/// and writes them here alone, never the node's larger record, which at
/// 5,000 nodes is rarely in cache when a bind comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(align(64))]
pub(crate) struct NodeInfo {
    /// Requests counted with Kubernetes' non-zero defaults for a request of
    /// zero (100m cpu, 200Mi memory): what the resource scores read.
    pub nonzero: Resources,
    /// Sum of the requests of the pods bound here. Always `fits_in(capacity)`.
    pub allocated: Resources,
    pub capacity: Resources,
    /// How many more pods the node admits (allocatable pods minus bound pods).
    pub pods_free: u32,
    /// Ready, not cordoned, not removed.
    pub schedulable: bool,
    /// Has a NoSchedule or NoExecute taint.
    pub hard_taints: bool,
    /// Has a PreferNoSchedule taint.
    pub soft_taints: bool,
    pub removed: bool,
    /// Changes whenever anything about the node changes (a value no node
    /// had before): what the scheduler's caches check their values against.
    pub stamp: u64,
}

const _: () = assert!(core::mem::size_of::<NodeInfo>() == 64);

impl NodeInfo {
    /// Whether requests `req` fit what the node has left (NodeResourcesFit's
    /// Filter for cpu and memory).
    #[inline]
    pub fn fits(&self, req: &Resources) -> bool {
        req.fits_in(&self.capacity.saturating_sub(&self.allocated))
    }

    /// The mirror of node `n`, which holds `pods` pods requesting
    /// `allocated` (`nonzero` with the non-zero defaults).
    pub(crate) fn of(
        n: &NodeState,
        pods: usize,
        allocated: Resources,
        nonzero: Resources,
    ) -> NodeInfo {
        NodeInfo {
            nonzero,
            allocated,
            capacity: n.spec.capacity,
            pods_free: n.spec.max_pods.saturating_sub(pods as u32),
            removed: n.removed,
            stamp: 0,
            schedulable: n.ready && !n.cordoned && !n.removed,
            hard_taints: n
                .spec
                .taints
                .iter()
                .any(|t| t.effect != TaintEffect::PreferNoSchedule),
            soft_taints: n
                .spec
                .taints
                .iter()
                .any(|t| t.effect == TaintEffect::PreferNoSchedule),
        }
    }
}

impl NodeInfo {
    /// What the node has left.
    pub fn free(&self) -> Resources {
        self.capacity.saturating_sub(&self.allocated)
    }
}
