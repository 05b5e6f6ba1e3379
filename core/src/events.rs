//! The event log, in Kubernetes' form: tick, type, reason, object, message.
//!
//! Records are compact (ids, not strings) because a 150,000-pod convergence
//! writes 300,000 of them; [`crate::Cluster::render_event`] turns one into text.

use alloc::string::String;

use crate::cluster::{ControllerId, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    pub fn as_str(&self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// Reasons, named as Kubernetes names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    RegisteredNode,
    RemovingNode,
    NodeReady,
    NodeNotReady,
    NodeNotSchedulable,
    NodeSchedulable,
    Scheduled,
    FailedScheduling,
    SuccessfulCreate,
    SuccessfulDelete,
    ScalingReplicaSet,
    /// A pod on a NotReady node, or one that does not tolerate a NoExecute taint.
    TaintManagerEviction,
    /// The kubelet refused a pod after its node re-registered smaller.
    OutOfcpu,
    OutOfmemory,
    /// The kubelet refused a pod bound by nodeName to a node whose pods
    /// capacity is used up.
    OutOfpods,
    /// The kubelet refused a pod whose nodeSelector no longer matches, or
    /// that no longer tolerates a NoSchedule taint.
    NodeAffinity,
    Started,
    Ready,
    Evicted,
    FailedEviction,
    Drain,
    DrainComplete,
    RollingUpdate,
    RolloutComplete,
    /// A rollout made no progress for progressDeadlineSeconds (Kubernetes
    /// records it as the Progressing condition only; Shepherd also logs it).
    ProgressDeadlineExceeded,
    EndpointsUpdated,
    Created,
    Deleted,
    FailedEvent,
    /// A victim of DefaultPreemption, on the victim: "Preempted by pod ... on node ...".
    Preempted,
    /// The kubelet stopping a deleted pod's container.
    Killing,
    /// The ReplicaSet controller could not create a pod (admission refused it).
    FailedCreate,
}

impl Reason {
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::RegisteredNode => "RegisteredNode",
            Reason::RemovingNode => "RemovingNode",
            Reason::NodeReady => "NodeReady",
            Reason::NodeNotReady => "NodeNotReady",
            Reason::NodeNotSchedulable => "NodeNotSchedulable",
            Reason::NodeSchedulable => "NodeSchedulable",
            Reason::Scheduled => "Scheduled",
            Reason::FailedScheduling => "FailedScheduling",
            Reason::SuccessfulCreate => "SuccessfulCreate",
            Reason::SuccessfulDelete => "SuccessfulDelete",
            Reason::ScalingReplicaSet => "ScalingReplicaSet",
            Reason::TaintManagerEviction => "TaintManagerEviction",
            Reason::OutOfcpu => "OutOfcpu",
            Reason::OutOfmemory => "OutOfmemory",
            Reason::OutOfpods => "OutOfpods",
            Reason::NodeAffinity => "NodeAffinity",
            Reason::Started => "Started",
            Reason::Ready => "Ready",
            Reason::Evicted => "Evicted",
            Reason::FailedEviction => "FailedEviction",
            Reason::Drain => "Drain",
            Reason::DrainComplete => "DrainComplete",
            Reason::RollingUpdate => "RollingUpdate",
            Reason::RolloutComplete => "RolloutComplete",
            Reason::ProgressDeadlineExceeded => "ProgressDeadlineExceeded",
            Reason::EndpointsUpdated => "EndpointsUpdated",
            Reason::Created => "Created",
            Reason::Deleted => "Deleted",
            Reason::FailedEvent => "FailedEvent",
            Reason::Preempted => "Preempted",
            Reason::Killing => "Killing",
            Reason::FailedCreate => "FailedCreate",
        }
    }
}

/// What an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectRef {
    Node(NodeId),
    /// A pod by owner and ordinal: `web-3`.
    Pod(ControllerId, u32),
    Deployment(ControllerId),
    /// Anything else, as `kind/name` text kept in the cluster's text table.
    Named(TextId),
}

/// An index into the cluster's table of event texts. Keeping text out of the
/// record keeps a record at 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextId(pub u32);

/// The part of a message that would cost an allocation on the hot path is kept
/// as ids; everything else is text written when the event happens. A
/// message names only what its event's object does not: the pod's owner
/// (and the pod) come from the object, so a record takes 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// "Created pod: web-3": the ordinal, of the object's controller.
    CreatedPod(u32),
    /// "Deleted pod: web-3": the ordinal, of the object's controller (the
    /// object is the pod or its controller).
    DeletedPod(u32),
    /// "Successfully assigned default/web-3 to node-2": the node; the pod
    /// is the object.
    Assigned(NodeId),
    /// "Node is not ready" (the node lifecycle controller's MarkPodsNotReady)
    NodeIsNotReady,
    /// "Marking for deletion Pod web-3: node node-2 has a NoExecute taint and
    /// its tolerationSeconds have passed" (the taint-eviction controller):
    /// the node; the pod is the object.
    TolerationExpired(NodeId),
    Text(TextId),
}

impl ObjectRef {
    /// The controller a pod or controller object is of.
    pub(crate) fn owner(&self) -> Option<ControllerId> {
        match *self {
            ObjectRef::Pod(c, _) | ObjectRef::Deployment(c) => Some(c),
            ObjectRef::Node(_) | ObjectRef::Named(_) => None,
        }
    }
}

/// The event log: grows by chunks, so the 300,000 events of a large first
/// tick are never copied to make room (see `chunked`).
pub type EventLog = crate::chunked::Chunked<EventRecord>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventRecord {
    pub tick: u64,
    pub type_: EventType,
    pub reason: Reason,
    pub object: ObjectRef,
    pub message: Message,
}

const _: () = assert!(core::mem::size_of::<EventRecord>() == 32);

/// An event as text, for people and for comparing logs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RenderedEvent {
    pub tick: u64,
    pub type_: &'static str,
    pub reason: &'static str,
    /// `kind/name`, e.g. `pod/web-3` or `node/node-2`.
    pub object: String,
    pub message: String,
}

impl core::fmt::Display for RenderedEvent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "t={:<4} {:<7} {:<20} {:<22} {}",
            self.tick, self.type_, self.reason, self.object, self.message
        )
    }
}
