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
/// record keeps a record at 16 bytes in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextId(pub u32);

/// The part of a message that would cost an allocation on the hot path is kept
/// as ids; everything else is text written when the event happens. A
/// message names only what its event's object does not: the pod's owner
/// (and the pod) come from the object, so a record takes 16 bytes in the
/// log.
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

/// The event log: 16 bytes an event (the tick is kept once for each run of
/// events at one tick, not in every record), in chunks, so the 300,000
/// events of a large first tick are never copied to make room (see
/// `chunked`). Read as [`EventRecord`]s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog {
    records: crate::chunked::Chunked<Packed>,
    /// (tick, index of its first event), one for each run of events at one
    /// tick, in log order.
    runs: alloc::vec::Vec<(u64, usize)>,
}

/// An event without its tick: the kinds of its object and message, then
/// their ids (`a`, `b`: the object's; `m`: the message's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    type_: EventType,
    reason: Reason,
    object: u8,
    message: u8,
    a: u32,
    b: u32,
    m: u32,
}

const _: () = assert!(core::mem::size_of::<Packed>() == 16);

impl Packed {
    fn of(e: &EventRecord) -> Packed {
        let (object, a, b) = match e.object {
            ObjectRef::Node(n) => (0, n.0, 0),
            ObjectRef::Pod(c, o) => (1, c.0, o),
            ObjectRef::Deployment(c) => (2, c.0, 0),
            ObjectRef::Named(t) => (3, t.0, 0),
        };
        let (message, m) = match e.message {
            Message::CreatedPod(o) => (0, o),
            Message::DeletedPod(o) => (1, o),
            Message::Assigned(n) => (2, n.0),
            Message::NodeIsNotReady => (3, 0),
            Message::TolerationExpired(n) => (4, n.0),
            Message::Text(t) => (5, t.0),
        };
        Packed {
            type_: e.type_,
            reason: e.reason,
            object,
            message,
            a,
            b,
            m,
        }
    }

    fn record(&self, tick: u64) -> EventRecord {
        let object = match self.object {
            0 => ObjectRef::Node(NodeId(self.a)),
            1 => ObjectRef::Pod(ControllerId(self.a), self.b),
            2 => ObjectRef::Deployment(ControllerId(self.a)),
            _ => ObjectRef::Named(TextId(self.a)),
        };
        let message = match self.message {
            0 => Message::CreatedPod(self.m),
            1 => Message::DeletedPod(self.m),
            2 => Message::Assigned(NodeId(self.m)),
            3 => Message::NodeIsNotReady,
            4 => Message::TolerationExpired(NodeId(self.m)),
            _ => Message::Text(TextId(self.m)),
        };
        EventRecord {
            tick,
            type_: self.type_,
            reason: self.reason,
            object,
            message,
        }
    }
}

impl EventLog {
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub(crate) fn push(&mut self, e: EventRecord) {
        if self.runs.last().is_none_or(|r| r.0 != e.tick) {
            self.runs.push((e.tick, self.records.len()));
        }
        self.records.push(Packed::of(&e));
    }

    /// The run event `i` is in (`i` below `len`).
    fn run_of(&self, i: usize) -> usize {
        self.runs.partition_point(|r| r.1 <= i) - 1
    }

    pub fn get(&self, i: usize) -> Option<EventRecord> {
        let p = self.records.get(i)?;
        Some(p.record(self.runs[self.run_of(i)].0))
    }

    pub fn last(&self) -> Option<EventRecord> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The events in order.
    pub fn iter(&self) -> Events<'_> {
        self.iter_from(0)
    }

    /// The events from `from` on (none when `from` is past the end).
    pub fn iter_from(&self, from: usize) -> Events<'_> {
        let at = from.min(self.len());
        Events {
            run: if at < self.len() { self.run_of(at) } else { 0 },
            log: self,
            at,
        }
    }
}

/// The events of an [`EventLog`] from one on, in order.
pub struct Events<'a> {
    log: &'a EventLog,
    at: usize,
    run: usize,
}

impl Iterator for Events<'_> {
    type Item = EventRecord;

    fn next(&mut self) -> Option<EventRecord> {
        let p = self.log.records.get(self.at)?;
        let runs = &self.log.runs;
        while runs.get(self.run + 1).is_some_and(|r| r.1 <= self.at) {
            self.run += 1;
        }
        self.at += 1;
        Some(p.record(runs[self.run].0))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.log.len() - self.at;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Events<'_> {}

/// An event as read from the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventRecord {
    pub tick: u64,
    pub type_: EventType,
    pub reason: Reason,
    pub object: ObjectRef,
    pub message: Message,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Every kind of object and message, at ticks that repeat, jump and
    /// (as a log could hold) go back, across chunk edges: what the log
    /// gives back by index, from any index on and last is what went in.
    #[test]
    fn the_log_gives_back_what_was_pushed() {
        let mut log = EventLog::default();
        let mut want: Vec<EventRecord> = Vec::new();
        let mut tick = 0u64;
        let mut x = 0x9e37_79b9_u32;
        for i in 0..9_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            tick = match x % 7 {
                0 => tick + 1 + (x >> 20) as u64 % 5,
                1 if tick > 0 => tick - 1,
                _ => tick,
            };
            let object = match x % 4 {
                0 => ObjectRef::Node(NodeId(i)),
                1 => ObjectRef::Pod(ControllerId(x >> 8), i),
                2 => ObjectRef::Deployment(ControllerId(i)),
                _ => ObjectRef::Named(TextId(u32::MAX - i)),
            };
            let message = match (x >> 3) % 6 {
                0 => Message::CreatedPod(i),
                1 => Message::DeletedPod(x),
                2 => Message::Assigned(NodeId(u32::MAX)),
                3 => Message::NodeIsNotReady,
                4 => Message::TolerationExpired(NodeId(i)),
                _ => Message::Text(TextId(x)),
            };
            let e = EventRecord {
                tick,
                type_: if x.is_multiple_of(3) {
                    EventType::Warning
                } else {
                    EventType::Normal
                },
                reason: if x.is_multiple_of(2) {
                    Reason::Scheduled
                } else {
                    Reason::FailedCreate
                },
                object,
                message,
            };
            log.push(e);
            want.push(e);
        }
        assert_eq!(log.len(), want.len());
        assert!(log.iter().eq(want.iter().copied()));
        assert_eq!(log.last(), want.last().copied());
        for i in (0..want.len()).step_by(97).chain([want.len() - 1]) {
            assert_eq!(log.get(i), Some(want[i]), "event {i}");
        }
        assert_eq!(log.get(want.len()), None);
        for from in [
            0,
            1,
            4095,
            4096,
            4097,
            8191,
            want.len() - 1,
            want.len(),
            want.len() + 3,
        ] {
            assert!(
                log.iter_from(from).eq(want.iter().skip(from).copied()),
                "from {from}"
            );
            assert_eq!(log.iter_from(from).len(), want.len().saturating_sub(from));
        }
        let empty = EventLog::default();
        assert!(empty.is_empty() && empty.last().is_none() && empty.iter_from(2).next().is_none());
    }
}
