//! The event log, in Kubernetes' form: tick, type, reason, object, message.
//!
//! Records are compact (ids, not strings) because a 150,000-pod convergence
//! writes 300,000 of them; [`crate::Cluster::render_event`] turns one into text.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{NodeId, OwnerId};

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

/// Reasons, named as Kubernetes names them: each is one a Kubernetes
/// component emits (its [`Source`]), with that component's type, involved
/// object and message. Actions a user takes through the API (creating a
/// Deployment, a Service, a PodDisruptionBudget or a PriorityClass,
/// deleting one) write no Event in Kubernetes, and write none here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// node-controller, on the node (node_lifecycle_controller.go,
    /// monitorNodeHealth: "Registered Node X in Controller").
    RegisteredNode,
    /// node-controller, on the node ("Removing Node X from Controller").
    RemovingNode,
    /// kubelet, on its node (kubelet_node_status.go, recordNodeStatusEvent).
    NodeReady,
    /// node-controller: on the node (RecordNodeStatusChange, Normal) and on
    /// each of its pods (MarkPodsNotReady, Warning "Node is not ready").
    NodeNotReady,
    /// kubelet, on its node (recordNodeSchedulableEvent).
    NodeNotSchedulable,
    NodeSchedulable,
    /// kubelet, on its node: "Starting kubelet." (kubelet.go, Run's
    /// StartingKubelet), when a kubelet registers again after a restart.
    Starting,
    /// default-scheduler, on the pod (schedule_one.go, handleBindingCycleError
    /// / the binding cycle: "Successfully assigned NS/POD to NODE").
    Scheduled,
    /// default-scheduler, on the pod (schedule_one.go, handleSchedulingFailure).
    FailedScheduling,
    /// replicaset-controller on a ReplicaSet, daemonset-controller on a
    /// DaemonSet (controller_utils.go, CreatePods: "Created pod: NAME").
    SuccessfulCreate,
    /// The same controllers (DeletePod: "Deleted pod: NAME").
    SuccessfulDelete,
    /// deployment-controller, on the Deployment (sync.go, getNewReplicaSet
    /// and scaleReplicaSet: "Scaled up replica set NAME from A to B").
    ScalingReplicaSet,
    /// taint-eviction-controller, on the pod (taint_eviction.go,
    /// emitPodDeletionEvent / emitCancelPodDeletionEvent).
    TaintManagerEviction,
    /// kubelet admission refused a pod (lifecycle/predicate.go, rejectPod):
    /// OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, TaintToleration.
    OutOfcpu,
    OutOfmemory,
    OutOfpods,
    NodeAffinity,
    /// The kubelet's admission found an untolerated NoExecute taint.
    TaintToleration,
    /// default-scheduler, on a victim of DefaultPreemption (preemption
    /// executor.go: "Preempted by pod UID on node NODE").
    Preempted,
    /// kubelet, on a pod it stops (kuberuntime_container.go, killContainer:
    /// "Stopping container NAME").
    Killing,
    /// replicaset-controller or daemonset-controller: a pod create was
    /// refused by admission ("Error creating: ...").
    FailedCreate,
    /// cluster-autoscaler, on a pod a scale-up is for
    /// (core/scaleup/orchestrator: "pod triggered scale-up: [...]").
    TriggeredScaleUp,
    /// cluster-autoscaler, on a pod no node group helps ("pod didn't
    /// trigger scale-up: ...").
    NotTriggerScaleUp,
    /// cluster-autoscaler, on a node it removes and on the pods it evicts
    /// from it (core/scaledown/actuation).
    ScaleDown,
    /// cluster-autoscaler, on an empty node it removes.
    ScaleDownEmpty,
    // Kept last: an event's group hashes its reason's number (Correlator),
    // so the numbers of the reasons above stay what they were.
    /// kubelet admission refused for a scalar resource: "OutOf" and the
    /// resource's name (predicate.go: `fmt.Sprintf("OutOf%s", r.ResourceName)`),
    /// for the names clusters commonly have (see [`Reason::out_of`]); any
    /// other reads `OutOfExtendedResource` (events pack a reason in a byte).
    OutOfEphemeralStorage,
    OutOfHugepages2Mi,
    OutOfHugepages1Gi,
    OutOfNvidiaGpu,
    OutOfAmdGpu,
    OutOfIntelGpu,
    OutOfExtendedResource,
    /// kubelet admission: a host port of the pod's is taken on the node
    /// (GeneralPredicates' NodePorts, "Predicate NodePorts failed: ...").
    NodePorts,
}

impl Reason {
    /// The kubelet's OutOf reason for the scalar resource `name`.
    pub fn out_of(name: &str) -> Reason {
        [
            Reason::OutOfEphemeralStorage,
            Reason::OutOfHugepages2Mi,
            Reason::OutOfHugepages1Gi,
            Reason::OutOfNvidiaGpu,
            Reason::OutOfAmdGpu,
            Reason::OutOfIntelGpu,
        ]
        .into_iter()
        .find(|r| &r.as_str()[5..] == name)
        .unwrap_or(Reason::OutOfExtendedResource)
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::RegisteredNode => "RegisteredNode",
            Reason::RemovingNode => "RemovingNode",
            Reason::NodeReady => "NodeReady",
            Reason::NodeNotReady => "NodeNotReady",
            Reason::NodeNotSchedulable => "NodeNotSchedulable",
            Reason::NodeSchedulable => "NodeSchedulable",
            Reason::Starting => "Starting",
            Reason::Scheduled => "Scheduled",
            Reason::FailedScheduling => "FailedScheduling",
            Reason::SuccessfulCreate => "SuccessfulCreate",
            Reason::SuccessfulDelete => "SuccessfulDelete",
            Reason::ScalingReplicaSet => "ScalingReplicaSet",
            Reason::TaintManagerEviction => "TaintManagerEviction",
            Reason::OutOfcpu => "OutOfcpu",
            Reason::OutOfmemory => "OutOfmemory",
            Reason::OutOfpods => "OutOfpods",
            Reason::OutOfEphemeralStorage => "OutOfephemeral-storage",
            Reason::OutOfHugepages2Mi => "OutOfhugepages-2Mi",
            Reason::OutOfHugepages1Gi => "OutOfhugepages-1Gi",
            Reason::OutOfNvidiaGpu => "OutOfnvidia.com/gpu",
            Reason::OutOfAmdGpu => "OutOfamd.com/gpu",
            Reason::OutOfIntelGpu => "OutOfgpu.intel.com/i915",
            Reason::OutOfExtendedResource => "OutOfExtendedResource",
            Reason::NodeAffinity => "NodeAffinity",
            Reason::NodePorts => "NodePorts",
            Reason::TaintToleration => "TaintToleration",
            Reason::Preempted => "Preempted",
            Reason::Killing => "Killing",
            Reason::FailedCreate => "FailedCreate",
            Reason::TriggeredScaleUp => "TriggeredScaleUp",
            Reason::NotTriggerScaleUp => "NotTriggerScaleUp",
            Reason::ScaleDown => "ScaleDown",
            Reason::ScaleDownEmpty => "ScaleDownEmpty",
        }
    }

    /// The component that emits this reason about `object`: Kubernetes'
    /// EventSource.Component, as each component names its recorder.
    pub fn source(&self, object: &ObjectRef) -> Source {
        match self {
            Reason::RegisteredNode | Reason::RemovingNode | Reason::NodeNotReady => {
                Source::NodeController
            }
            Reason::NodeReady
            | Reason::NodeNotSchedulable
            | Reason::NodeSchedulable
            | Reason::Starting
            | Reason::OutOfcpu
            | Reason::OutOfmemory
            | Reason::OutOfpods
            | Reason::OutOfEphemeralStorage
            | Reason::OutOfHugepages2Mi
            | Reason::OutOfHugepages1Gi
            | Reason::OutOfNvidiaGpu
            | Reason::OutOfAmdGpu
            | Reason::OutOfIntelGpu
            | Reason::OutOfExtendedResource
            | Reason::NodeAffinity
            | Reason::NodePorts
            | Reason::TaintToleration
            | Reason::Killing => Source::Kubelet,
            Reason::Scheduled | Reason::FailedScheduling | Reason::Preempted => {
                Source::DefaultScheduler
            }
            // A Deployment's pods are its ReplicaSets'; the only other
            // owner that creates pods is a DaemonSet (a bare Pod is
            // created by its user, with no event).
            Reason::SuccessfulCreate | Reason::SuccessfulDelete | Reason::FailedCreate => {
                match object {
                    ObjectRef::ReplicaSet(..) => Source::ReplicaSetController,
                    _ => Source::DaemonSetController,
                }
            }
            Reason::ScalingReplicaSet => Source::DeploymentController,
            Reason::TaintManagerEviction => Source::TaintEvictionController,
            Reason::TriggeredScaleUp
            | Reason::NotTriggerScaleUp
            | Reason::ScaleDown
            | Reason::ScaleDownEmpty => Source::ClusterAutoscaler,
        }
    }
}

/// The component that emitted an event (Kubernetes' `source.component`),
/// named as each names its event recorder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// pkg/controller/deployment/deployment_controller.go, NewDeploymentController.
    DeploymentController,
    /// pkg/controller/replicaset/replica_set.go, NewReplicaSetController.
    ReplicaSetController,
    /// pkg/controller/daemon/daemon_controller.go, NewDaemonSetsController.
    DaemonSetController,
    /// kube-scheduler's default profile (its schedulerName).
    DefaultScheduler,
    /// pkg/controller/nodelifecycle/node_lifecycle_controller.go, NewNodeLifecycleController.
    NodeController,
    /// cmd/kube-controller-manager/names: TaintEvictionController.
    TaintEvictionController,
    /// The node's kubelet (its events also carry the node as source.host).
    Kubelet,
    /// Cluster Autoscaler (its recorder's component, "cluster-autoscaler").
    ClusterAutoscaler,
}

impl Source {
    pub fn as_str(&self) -> &'static str {
        match self {
            Source::DeploymentController => "deployment-controller",
            Source::ReplicaSetController => "replicaset-controller",
            Source::DaemonSetController => "daemonset-controller",
            Source::DefaultScheduler => "default-scheduler",
            Source::NodeController => "node-controller",
            Source::TaintEvictionController => "taint-eviction-controller",
            Source::Kubelet => "kubelet",
            Source::ClusterAutoscaler => "cluster-autoscaler",
        }
    }
}

/// What an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectRef {
    Node(NodeId),
    /// A pod by owner and ordinal: `web-3`.
    Pod(OwnerId, u32),
    /// A Deployment, or a DaemonSet or bare Pod (by its owner's kind).
    Deployment(OwnerId),
    /// Anything else, as `kind/name` text kept in the cluster's text table.
    Named(TextId),
    /// A Deployment's ReplicaSet, by its revision: `replicaset/web-5d4c8f7b`
    /// (`<deployment>-<pod-template-hash>`).
    ReplicaSet(OwnerId, u32),
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
    /// "Marking for deletion Pod default/web-3" (the taint-eviction
    /// controller's emitPodDeletionEvent): the node whose NoExecute taint
    /// evicts it (not in the text, as Kubernetes' has none); the pod is
    /// the object.
    TolerationExpired(NodeId),
    Text(TextId),
    /// "Stopping container web" (the kubelet's killContainer): the node
    /// whose kubelet stops it (the event's source.host); the pod is the
    /// object, its container named as its owner.
    StoppingContainer(NodeId),
}

impl ObjectRef {
    /// The controller a pod or controller object is of.
    pub(crate) fn owner(&self) -> Option<OwnerId> {
        match *self {
            ObjectRef::Pod(c, _) | ObjectRef::Deployment(c) | ObjectRef::ReplicaSet(c, _) => {
                Some(c)
            }
            ObjectRef::Node(_) | ObjectRef::Named(_) => None,
        }
    }
}

/// The event log: 16 bytes an event (the tick is kept once for each run of
/// events at one tick, not in every record), in chunks, so the 300,000
/// events of a large first tick are never copied to make room (see
/// `chunked`). Read as [`EventRecord`]s.
///
/// Events pass Kubernetes' event correlator on their way in ([`Correlator`],
/// client-go's tools/record/events_cache.go): an event equal to a recent one
/// (same type, reason, object and message) adds one to that record's count
/// and moves its last tick, and the eleventh event within 600 s that
/// differs from recent ones of its type, reason and object by its message
/// alone is written once as "(combined from similar events): MESSAGE",
/// whose count and message the later ones update. So the log grows with
/// what changes, not with how often it is said. A reader keeps an
/// [`EventCursor`] and asks for what it has not seen ([`EventLog::since`]):
/// the records added and those whose count moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog {
    records: crate::util::chunked::Chunked<Packed>,
    /// (tick, index of its first event), one for each run of events at one
    /// tick, in log order.
    runs: alloc::vec::Vec<(u64, usize)>,
    /// The records seen more than once (most are seen once and take no
    /// entry): their count and last tick, in the order they first repeated.
    repeats: Vec<Repeat>,
    /// The same by record index, for readers.
    repeat_of: BTreeMap<usize, u32>,
    /// (update number, slot in `repeats`) for each update, in order; an
    /// entry of a record updated again since is stale, and the stale ones
    /// are dropped once they are half the journal: what a reader that has
    /// seen the updates up to a number has not seen, in bounded memory.
    journal: Vec<(u64, u32)>,
    /// Updates so far (an event counted into an earlier record).
    updates: u64,
    correlator: Correlator,
}

/// A record's count beyond one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Repeat {
    index: usize,
    count: u32,
    last: u64,
    /// The update that last touched it.
    update: u64,
}

/// Where a reader of the log stands: the records it has read and the
/// updates it has seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EventCursor {
    pub len: usize,
    pub updates: u64,
}

/// An event without its tick: the kinds of its object and message, then
/// their ids (`a`, `b`: the object's; `m`: the message's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packed {
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
    #[cfg(test)]
    fn of(e: &EventRecord) -> Packed {
        let mut p = Packed::new(e.type_, e.reason, e.object, e.message);
        if e.combined {
            p.message |= COMBINED;
        }
        p
    }

    #[inline]
    pub(crate) fn new(
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        message: Message,
    ) -> Packed {
        let (object, a, b) = match object {
            ObjectRef::Node(n) => (0, n.0, 0),
            ObjectRef::Pod(c, o) => (1, c.0, o),
            ObjectRef::Deployment(c) => (2, c.0, 0),
            ObjectRef::Named(t) => (3, t.0, 0),
            ObjectRef::ReplicaSet(c, r) => (4, c.0, r),
        };
        let (message, m) = match message {
            Message::CreatedPod(o) => (0, o),
            Message::DeletedPod(o) => (1, o),
            Message::Assigned(n) => (2, n.0),
            Message::NodeIsNotReady => (3, 0),
            Message::TolerationExpired(n) => (4, n.0),
            Message::Text(t) => (5, t.0),
            Message::StoppingContainer(n) => (6, n.0),
        };
        Packed {
            type_,
            reason,
            object,
            message,
            a,
            b,
            m,
        }
    }

    /// The record as it was first written (count 1, last tick `tick`).
    fn record(&self, tick: u64) -> EventRecord {
        let object = match self.object {
            0 => ObjectRef::Node(NodeId(self.a)),
            1 => ObjectRef::Pod(OwnerId(self.a), self.b),
            2 => ObjectRef::Deployment(OwnerId(self.a)),
            4 => ObjectRef::ReplicaSet(OwnerId(self.a), self.b),
            _ => ObjectRef::Named(TextId(self.a)),
        };
        let message = match self.message & !COMBINED {
            0 => Message::CreatedPod(self.m),
            1 => Message::DeletedPod(self.m),
            2 => Message::Assigned(NodeId(self.m)),
            3 => Message::NodeIsNotReady,
            4 => Message::TolerationExpired(NodeId(self.m)),
            6 => Message::StoppingContainer(NodeId(self.m)),
            _ => Message::Text(TextId(self.m)),
        };
        EventRecord {
            tick,
            type_: self.type_,
            reason: self.reason,
            source: self.reason.source(&object),
            object,
            message,
            combined: self.message & COMBINED != 0,
            count: 1,
            last_tick: tick,
        }
    }
}

/// The bit of `Packed::message` that marks a combined record.
const COMBINED: u8 = 0x80;

impl EventLog {
    /// The records in the log (an event counted into an earlier record adds none).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The updates so far: events counted into an earlier record.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Everything written so far: records and updates. What the log's cost
    /// grows with.
    pub fn writes(&self) -> u64 {
        self.records.len() as u64 + self.updates
    }

    /// Where a reader that has read everything stands.
    pub fn cursor(&self) -> EventCursor {
        EventCursor {
            len: self.records.len(),
            updates: self.updates,
        }
    }

    /// Appends a record as it is (tests; the cluster's events go through
    /// [`EventLog::observe`]).
    #[cfg(test)]
    pub(crate) fn push(&mut self, e: EventRecord) {
        self.push_packed(Packed::of(&e), e.tick);
    }

    /// The run event `i` is in (`i` below `len`).
    fn run_of(&self, i: usize) -> usize {
        self.runs.partition_point(|r| r.1 <= i) - 1
    }

    fn with_repeat(&self, mut e: EventRecord, i: usize) -> EventRecord {
        if let Some(r) = self.repeat_of.get(&i).map(|&r| self.repeats[r as usize]) {
            e.count = r.count;
            e.last_tick = r.last;
        }
        e
    }

    pub fn get(&self, i: usize) -> Option<EventRecord> {
        let p = self.records.get(i)?;
        Some(self.with_repeat(p.record(self.runs[self.run_of(i)].0), i))
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

    /// What a reader at `c` has not seen, as (index, record): the earlier
    /// records whose count moved since, in the order they last moved, then
    /// the records added since, in order (each with its count now).
    pub fn since(&self, c: EventCursor) -> impl Iterator<Item = (usize, EventRecord)> + '_ {
        let from = c.len.min(self.len());
        self.moved_since(c.updates)
            .filter(move |&i| i < from)
            .filter_map(move |i| Some((i, self.get(i)?)))
            .chain((from..).zip(self.iter_from(from)))
    }

    /// The records updated after update number `u`, once each, in the
    /// order of their last update.
    fn moved_since(&self, u: u64) -> impl Iterator<Item = usize> + '_ {
        let at = self.journal.partition_point(|&(n, _)| n <= u);
        self.journal[at..].iter().filter_map(|&(n, r)| {
            let rep = &self.repeats[r as usize];
            (rep.update == n).then_some(rep.index)
        })
    }

    /// The records a reader at `c` would be given by [`EventLog::since`]:
    /// how many, without reading them.
    pub fn count_since(&self, c: EventCursor) -> usize {
        let from = c.len.min(self.len());
        self.moved_since(c.updates).filter(|&i| i < from).count() + (self.len() - from)
    }

    /// Counts an event seen at `tick` into record `i`, whose slot in
    /// `repeats` is `slot` (0: none yet, else the slot + 1); returns the
    /// slot + 1.
    fn count_into(&mut self, i: usize, slot: u32, tick: u64) -> u32 {
        self.updates += 1;
        let slot = if slot == 0 {
            self.repeats.push(Repeat {
                index: i,
                count: 1,
                last: tick,
                update: 0,
            });
            let r = self.repeats.len() as u32 - 1;
            self.repeat_of.insert(i, r);
            r
        } else {
            slot - 1
        };
        let r = &mut self.repeats[slot as usize];
        r.count = r.count.saturating_add(1);
        r.last = r.last.max(tick);
        r.update = self.updates;
        // A record counted again right after its last count (a streak, as
        // a ReplicaSet's combined SuccessfulCreate is) moves its entry.
        match self.journal.last_mut() {
            Some(last) if last.1 == slot => last.0 = self.updates,
            _ => self.journal.push((self.updates, slot)),
        }
        if self.journal.len() >= 2 * self.repeats.len() + 64 {
            let repeats = &self.repeats;
            self.journal
                .retain(|&(n, r)| repeats[r as usize].update == n);
        }
        slot + 1
    }

    /// Records `e` through the event correlator: a new record, or a count
    /// added to an earlier one (see [`EventLog`]). `texts` holds the texts
    /// of Named objects and Text messages. A Named object's text is made
    /// for its event, and so is a Text message's when `owns_text` (a message
    /// text may also be shared by many events, as FailedScheduling's is):
    /// counted into an earlier record, the event gives back the texts it
    /// made, so a repeated event costs no memory.
    pub(crate) fn observe(
        &mut self,
        mut p: Packed,
        tick: u64,
        texts: &mut Vec<String>,
        owns_text: bool,
        fresh: bool,
    ) {
        let (key, combined) = self.correlator.aggregate(&p, tick, texts, fresh);
        if combined {
            p.message |= COMBINED;
        } else if fresh {
            // A message never seen is no earlier record's: the logger's
            // key for it could match nothing, now or later.
            self.push_packed(p, tick);
            return;
        }
        if let Some((i, slot)) = self.correlator.lookup(key) {
            if let Some(old) = self.records.get(i).copied() {
                if same_event(&old, &p, texts) {
                    let mut keep_text = !owns_text;
                    // A combined record shows the latest message (Kubernetes
                    // patches the message along with the count).
                    if combined {
                        if owns_text && old.message == COMBINED | 5 && p.message == old.message {
                            // The new text takes the old one's place.
                            texts.swap(old.m as usize, p.m as usize);
                        } else if let Some(r) = self.records.get_mut(i) {
                            keep_text |= p.message & !COMBINED == 5;
                            r.message = p.message;
                            r.m = p.m;
                        }
                    }
                    give_back(texts, &p, !keep_text);
                    let slot = self.count_into(i, slot, tick);
                    self.correlator.set_repeat(key, slot);
                    return;
                }
            }
        }
        self.correlator.remember(key, self.records.len());
        self.push_packed(p, tick);
    }

    /// Records `e` as a new record without consulting the correlator: for
    /// an event whose object has had no event of its kind before and will
    /// have none again (a pod's Scheduled: a pod is bound once), which the
    /// correlator could only file under keys nothing will ask for.
    pub(crate) fn observe_fresh(&mut self, p: Packed, tick: u64) {
        self.push_packed(p, tick);
    }

    fn push_packed(&mut self, p: Packed, tick: u64) {
        if self.runs.last().is_none_or(|r| r.0 != tick) {
            self.runs.push((tick, self.records.len()));
        }
        self.records.push(p);
    }
}

/// Whether `new` is the event of record `old` again: the same type, reason
/// and object, and the same message (or, both combined, any message).
fn same_event(old: &Packed, new: &Packed, texts: &[String]) -> bool {
    let text = |t: u32| texts.get(t as usize).map(String::as_str);
    if old.type_ != new.type_ || old.reason != new.reason || old.object != new.object {
        return false;
    }
    let same_object = if new.object == 3 {
        text(old.a) == text(new.a)
    } else {
        old.a == new.a && old.b == new.b
    };
    let same_message = old.message == new.message
        && (new.message & COMBINED != 0
            || if new.message == 5 {
                text(old.m) == text(new.m)
            } else {
                old.m == new.m
            });
    same_object && same_message
}

/// Gives back the texts event `p` made (it was counted into an earlier
/// record): its message's (when `message`), then its object's, each if it
/// is the last text.
fn give_back(texts: &mut Vec<String>, p: &Packed, message: bool) {
    if message && p.message & !COMBINED == 5 && p.m as usize + 1 == texts.len() {
        texts.pop();
    }
    if p.object == 3 && p.a as usize + 1 == texts.len() {
        texts.pop();
    }
}

/// Kubernetes' event correlator (client-go tools/record/events_cache.go,
/// NewEventCorrelator's defaults), in bounded memory:
///
/// - the EventAggregator groups events by (type, reason, object) and
///   remembers the distinct messages of each group seen within 600 s
///   (defaultAggregateIntervalInSeconds); once a group holds 10
///   (defaultAggregateMaxEvents), the event is recorded as "(combined from
///   similar events): MESSAGE" under the group's key, and one message is
///   forgotten so the set stays under ten;
/// - the eventLogger maps an event's key (the group and its message, or the
///   group alone when combined) to the record it wrote, so an equal event
///   adds to that record's count.
///
/// Kubernetes keeps each in an LRU cache of 4,096 entries per component
/// (maxLruCacheEntries); here each is a table of 4,096 slots chosen by the
/// key's hash, a newer key taking its slot: as bounded, as deterministic,
/// and, like the LRU, best effort (a key pushed out is written anew). The
/// spam filter (25 events an object, then one every 5 minutes) drops
/// events, and is not applied: nothing is dropped.
#[derive(Clone, Default, PartialEq, Eq)]
struct Correlator {
    /// The aggregator's groups, empty until the first event.
    groups: Vec<Group>,
    /// The logger's keys: (key, record index + 1 (0: empty), its slot in
    /// the log's repeats + 1 (0: none yet)).
    keys: Vec<(u64, u32, u32)>,
}

impl core::fmt::Debug for Correlator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let used = self.keys.iter().filter(|k| k.1 != 0).count();
        write!(f, "Correlator {{ {used} keys of {SLOTS} }}")
    }
}

/// Slots in each of the correlator's tables (maxLruCacheEntries).
const SLOTS: usize = 4096;
/// Distinct messages of a group before its events are combined
/// (defaultAggregateMaxEvents).
const AGGREGATE_MAX_EVENTS: usize = 10;
/// Seconds (ticks) after which a group's messages are forgotten
/// (defaultAggregateIntervalInSeconds).
const AGGREGATE_INTERVAL: u64 = 600;

/// An aggregator group: its key, when it was last seen, and the hashes of
/// its distinct messages (odd numbers; 0 is an empty place), `n` of them,
/// the oldest at `head`. Nine places: the tenth distinct message combines
/// and the oldest is forgotten (client-go pops one to stay under ten).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Group {
    key: u64,
    last: u64,
    n: u8,
    head: u8,
    messages: [u32; AGGREGATE_MAX_EVENTS - 1],
}

impl Correlator {
    /// EventAggregate: records event `p`'s message in its group and returns
    /// the key the logger files it under, and whether it is combined.
    /// A `fresh` message is one no earlier event had (a pod's name on its
    /// creation or deletion): it is not looked for in the group.
    fn aggregate(&mut self, p: &Packed, tick: u64, texts: &[String], fresh: bool) -> (u64, bool) {
        if self.groups.is_empty() {
            self.groups = alloc::vec![Group::default(); SLOTS];
            self.keys = alloc::vec![(0, 0, 0); SLOTS];
        }
        let text = |t: u32| texts.get(t as usize).map_or(&[][..], |s| s.as_bytes());
        let head = (p.type_ as u64) << 62 | (p.reason as u64) << 54 | (p.object as u64) << 52;
        let group = if p.object == 3 {
            spread(hash_bytes(head, text(p.a)))
        } else {
            spread(head ^ (p.a as u64) << 32 ^ p.b as u64)
        };
        let message = if p.message == 5 {
            spread(hash_bytes(0, text(p.m)))
        } else {
            spread((p.message as u64) << 32 ^ p.m as u64 ^ 0x6d65_7373_6167_6500)
        };
        let g = &mut self.groups[group as usize % SLOTS];
        if g.key != group || tick.saturating_sub(g.last) > AGGREGATE_INTERVAL {
            *g = Group {
                key: group,
                ..Group::default()
            };
        }
        g.last = tick;
        let m = message as u32 | 1;
        if !fresh && g.messages.contains(&m) {
            return (group ^ message, false);
        }
        let places = g.messages.len() as u8;
        if g.n < places {
            // Below nine, nothing was forgotten: the head is 0.
            g.messages[g.n as usize] = m;
            g.n += 1;
            return (group ^ message, false);
        }
        // The tenth: combined, and the oldest message forgotten.
        g.messages[g.head as usize] = m;
        g.head = if g.head + 1 == places { 0 } else { g.head + 1 };
        (group ^ 0x636f_6d62_696e_6564, true)
    }

    /// The record the logger filed under `key`, if it still holds it, and
    /// its repeat slot (+ 1; 0: none yet).
    fn lookup(&self, key: u64) -> Option<(usize, u32)> {
        let (k, i, r) = *self.keys.get(slot_of(key))?;
        (k == key && i != 0).then(|| (i as usize - 1, r))
    }

    fn remember(&mut self, key: u64, index: usize) {
        if let Some(slot) = self.keys.get_mut(slot_of(key)) {
            *slot = (key, u32::try_from(index + 1).unwrap_or(0), 0);
        }
    }

    fn set_repeat(&mut self, key: u64, repeat: u32) {
        if let Some(slot) = self.keys.get_mut(slot_of(key)) {
            slot.2 = repeat;
        }
    }
}

/// The logger's slot of a key (its high bits: the low ones chose the group).
fn slot_of(key: u64) -> usize {
    (key >> 40) as usize % SLOTS
}

/// A 64-bit hash of bytes (FNV-1a).
fn hash_bytes(h: u64, bytes: &[u8]) -> u64 {
    let mut h = h ^ 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Spreads a key's bits over the high half (a multiply by the golden
/// ratio, folded): the slots are taken from there.
fn spread(z: u64) -> u64 {
    let z = (z ^ (z >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^ (z >> 32)
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
        let i = self.at;
        self.at += 1;
        Some(self.log.with_repeat(p.record(runs[self.run].0), i))
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
    /// When it was first seen (Kubernetes' firstTimestamp).
    pub tick: u64,
    pub type_: EventType,
    pub reason: Reason,
    /// The component that emitted it (derived from its reason and object:
    /// each reason here has one emitter for each kind of object).
    pub source: Source,
    pub object: ObjectRef,
    /// For a combined record, the latest of the similar messages.
    pub message: Message,
    /// "(combined from similar events)": it stands for events of its type,
    /// reason and object whose messages differed.
    pub combined: bool,
    /// How many times it was seen (Kubernetes' count).
    pub count: u32,
    /// When it was last seen (lastTimestamp).
    pub last_tick: u64,
}

impl EventRecord {
    /// An event seen once, now.
    pub(crate) fn new(
        tick: u64,
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        message: Message,
    ) -> EventRecord {
        EventRecord {
            tick,
            type_,
            reason,
            source: reason.source(&object),
            object,
            message,
            combined: false,
            count: 1,
            last_tick: tick,
        }
    }
}

/// An event as text, for people and for comparing logs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RenderedEvent {
    /// When it was first seen.
    pub tick: u64,
    pub type_: &'static str,
    pub reason: &'static str,
    /// `kind/name`, e.g. `pod/web-3`, `replicaset/web-5d4c8f7b` or `node/node-2`.
    pub object: String,
    pub message: String,
    /// How many times it was seen.
    pub count: u32,
    /// When it was last seen.
    pub last_tick: u64,
    /// The component that emitted it (`source.component`:
    /// `replicaset-controller`, `default-scheduler`, `kubelet`...).
    pub source: &'static str,
    /// The kubelet's node for a kubelet's event (`source.host`), else empty.
    pub host: String,
}

impl RenderedEvent {
    /// kubectl's SOURCE column (`get events -o wide`, formatEventSource):
    /// the component, then ", HOST" when there is one.
    pub fn source_column(&self) -> String {
        if self.host.is_empty() {
            String::from(self.source)
        } else {
            alloc::format!("{}, {}", self.source, self.host)
        }
    }
}

impl core::fmt::Display for RenderedEvent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "t={:<4} {:<7} {:<20} {:<28} {:<26} {}",
            self.tick,
            self.type_,
            self.reason,
            self.object,
            self.source_column(),
            self.message
        )?;
        if self.count > 1 {
            write!(f, " (x{}, last at t={})", self.count, self.last_tick)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl EventLog {
        fn observe_record(
            &mut self,
            e: EventRecord,
            texts: &mut Vec<String>,
            owns: bool,
            fresh: bool,
        ) {
            self.observe(Packed::of(&e), e.tick, texts, owns, fresh)
        }
    }
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
            let object = match x % 5 {
                0 => ObjectRef::Node(NodeId(i)),
                1 => ObjectRef::Pod(OwnerId(x >> 8), i),
                2 => ObjectRef::Deployment(OwnerId(i)),
                3 => ObjectRef::ReplicaSet(OwnerId(i), x >> 9),
                _ => ObjectRef::Named(TextId(u32::MAX - i)),
            };
            let message = match (x >> 3) % 7 {
                0 => Message::CreatedPod(i),
                1 => Message::DeletedPod(x),
                2 => Message::Assigned(NodeId(u32::MAX)),
                3 => Message::NodeIsNotReady,
                4 => Message::TolerationExpired(NodeId(i)),
                5 => Message::StoppingContainer(NodeId(x)),
                _ => Message::Text(TextId(x)),
            };
            let e = EventRecord::new(
                tick,
                if x.is_multiple_of(3) {
                    EventType::Warning
                } else {
                    EventType::Normal
                },
                if x.is_multiple_of(2) {
                    Reason::Scheduled
                } else {
                    Reason::FailedCreate
                },
                object,
                message,
            );
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
    fn text(texts: &mut Vec<String>, s: &str) -> TextId {
        texts.push(s.into());
        TextId(texts.len() as u32 - 1)
    }

    fn rendered(log: &EventLog, texts: &[String]) -> Vec<(u64, u64, u32, bool, String)> {
        log.iter()
            .map(|e| {
                let m = match e.message {
                    Message::Text(t) => texts[t.0 as usize].clone(),
                    Message::CreatedPod(o) => alloc::format!("Created pod: web-{o}"),
                    other => alloc::format!("{other:?}"),
                };
                (e.tick, e.last_tick, e.count, e.combined, m)
            })
            .collect()
    }

    /// client-go's eventLogger: the same type, reason, object and message
    /// again adds to the first record's count and moves its last tick; the
    /// texts the repeat brought are given back.
    #[test]
    fn an_equal_event_is_counted_into_the_first_record() {
        let mut log = EventLog::default();
        let mut texts = Vec::new();
        for tick in [3, 4, 9] {
            let o = text(&mut texts, "node/node-1");
            let m = text(&mut texts, "0/3 nodes are available");
            log.observe_record(
                EventRecord::new(
                    tick,
                    EventType::Warning,
                    Reason::FailedScheduling,
                    ObjectRef::Named(o),
                    Message::Text(m),
                ),
                &mut texts,
                true,
                false,
            );
        }
        assert_eq!(
            rendered(&log, &texts),
            [(3, 9, 3, false, "0/3 nodes are available".into())]
        );
        assert_eq!(texts.len(), 2, "the repeats' texts were given back");
        assert_eq!((log.len(), log.updates(), log.writes()), (1, 2, 3));
        // Another message, another reason or another object is another record.
        log.observe_record(
            EventRecord::new(
                10,
                EventType::Normal,
                Reason::Scheduled,
                ObjectRef::Node(NodeId(1)),
                Message::NodeIsNotReady,
            ),
            &mut texts,
            true,
            false,
        );
        log.observe_record(
            EventRecord::new(
                10,
                EventType::Normal,
                Reason::Scheduled,
                ObjectRef::Node(NodeId(2)),
                Message::NodeIsNotReady,
            ),
            &mut texts,
            true,
            false,
        );
        assert_eq!(log.len(), 3);
    }

    /// client-go's EventAggregator: ten events of one type, reason and
    /// object with different messages within 600 s: from the tenth on they
    /// are one record, "(combined from similar events)", whose count and
    /// message (the latest) move; after 600 s quiet the group starts over.
    #[test]
    fn similar_events_are_combined_from_the_tenth() {
        // The same, whether the caller knows its messages are fresh or not.
        for fresh in [false, true] {
            let mut log = EventLog::default();
            let mut texts = Vec::new();
            let created = |log: &mut EventLog, texts: &mut Vec<String>, tick: u64, o: u32| {
                log.observe_record(
                    EventRecord::new(
                        tick,
                        EventType::Normal,
                        Reason::SuccessfulCreate,
                        ObjectRef::ReplicaSet(OwnerId(0), 1),
                        Message::CreatedPod(o),
                    ),
                    texts,
                    false,
                    fresh,
                )
            };
            for o in 0..25 {
                created(&mut log, &mut texts, 1 + o as u64, o);
            }
            let r = rendered(&log, &texts);
            assert_eq!(r.len(), 10, "nine single records and one combined: {r:?}");
            assert!(r[..9].iter().all(|x| x.2 == 1 && !x.3));
            assert_eq!(r[9], (10, 25, 16, true, "Created pod: web-24".into()));
            // 601 ticks later the group is forgotten: a record of its own again.
            created(&mut log, &mut texts, 25 + 601, 99);
            assert_eq!(log.len(), 11);
            assert!(!log.last().unwrap().combined);
        }
    }

    /// A reader's cursor: the records added since, after the earlier
    /// records whose count moved since (once each, with the count now).
    #[test]
    fn a_reader_gets_what_moved_and_what_was_added() {
        let mut log = EventLog::default();
        let mut texts = Vec::new();
        let ev = |tick: u64, n: u32| {
            EventRecord::new(
                tick,
                EventType::Normal,
                Reason::NodeReady,
                ObjectRef::Node(NodeId(n)),
                Message::NodeIsNotReady,
            )
        };
        log.observe_record(ev(1, 0), &mut texts, true, false);
        log.observe_record(ev(1, 1), &mut texts, true, false);
        let c = log.cursor();
        assert_eq!(log.since(c).count(), 0);
        log.observe_record(ev(2, 0), &mut texts, true, false);
        log.observe_record(ev(3, 0), &mut texts, true, false);
        log.observe_record(ev(3, 2), &mut texts, true, false);
        let got: Vec<(usize, u32, u64)> = log
            .since(c)
            .map(|(i, e)| (i, e.count, e.last_tick))
            .collect();
        assert_eq!(got, [(0, 3, 3), (2, 1, 3)]);
        assert_eq!(log.count_since(c), 2);
        assert_eq!(log.since(log.cursor()).count(), 0);
    }

    /// However many events, the correlator's memory is its two tables.
    #[test]
    fn the_correlators_tables_stay_bounded() {
        let mut log = EventLog::default();
        let mut texts = Vec::new();
        for i in 0..20_000u32 {
            log.observe_record(
                EventRecord::new(
                    i as u64,
                    EventType::Normal,
                    Reason::Scheduled,
                    ObjectRef::Pod(OwnerId(0), i),
                    Message::Assigned(NodeId(0)),
                ),
                &mut texts,
                true,
                false,
            );
        }
        assert_eq!(log.len(), 20_000);
        assert_eq!(log.correlator.groups.len(), SLOTS);
        assert_eq!(log.correlator.keys.len(), SLOTS);
    }
}
