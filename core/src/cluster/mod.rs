//! Observed state and the indexes that keep it cheap.
//!
//! The cluster owns nodes, Deployments, pods, budgets, services and the event
//! log. It keeps its books incrementally (allocated resources per node, pods per
//! node and per owner, counts per revision, inter-pod affinity counts per
//! topology domain) so a bind, an unbind or a quiet pass costs what changed, not
//! what exists. `verify` never reads these books: it recomputes from the pods.

pub(crate) mod domain_counts;
mod namespaces;
mod node_info;

/// kube-scheduler's `NodeInfo` under the name it had before.
pub(crate) use node_info::NodeInfo as HotNode;
pub(crate) use node_info::{NodeInfo, NodeState};
pub mod events;

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::domain_counts::DomainCounts;
use crate::cluster::events::{
    EventRecord, EventType, Message, ObjectRef, Reason, RenderedEvent, TextId,
};
use crate::model::*;
use crate::util::error::Error;

/// A node's slot; dense, assigned at first registration, reused when the same
/// name registers again. Ties in scoring go to the lowest id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// An owner's slot (the object behind a pod's ownerReferences: a
/// Deployment, a DaemonSet or a bare Pod); never reused, so an id in an old
/// event stays meaningful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OwnerId(pub u32);

/// [`OwnerId`] under the name it had before: it names the owner object, not a
/// control loop (those are `controllers/`).
pub use OwnerId as ControllerId;

/// How the scheduler ranks feasible nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ScorePolicy {
    /// The tightest fit: least room left after placing (Kubernetes' MostAllocated).
    #[default]
    BinPack,
    /// The least loaded: most room left after placing (Kubernetes' LeastAllocated).
    LeastLoaded,
}

impl ScorePolicy {
    pub fn as_str(&self) -> &'static str {
        match self {
            ScorePolicy::BinPack => "binpack",
            ScorePolicy::LeastLoaded => "leastloaded",
        }
    }
    /// The named profile this policy stands for.
    pub fn profile(self) -> crate::scheduler::Profile {
        match self {
            ScorePolicy::BinPack => crate::scheduler::Profile::bin_pack(),
            ScorePolicy::LeastLoaded => crate::scheduler::Profile::least_loaded(),
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "binpack" | "BinPack" => Ok(ScorePolicy::BinPack),
            "leastloaded" | "LeastLoaded" => Ok(ScorePolicy::LeastLoaded),
            _ => Err(Error::invalid("policy", s, "binpack or leastloaded")),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PodPhase {
    /// Created, not yet bound to a node.
    Pending,
    /// Bound to a node (Ready once its readiness delay has passed).
    Running,
    /// Its node went NotReady or was removed; it will be deleted and replaced.
    Lost,
    /// The kubelet refused it (a bare Pod bound by `spec.nodeName` that its
    /// node cannot admit: `OutOfcpu`...): it stays, takes no capacity, and
    /// nobody restarts it, as Kubernetes keeps a Failed pod.
    Failed,
}

impl PodPhase {
    pub fn as_str(&self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Lost => "Lost",
            PodPhase::Failed => "Failed",
        }
    }
}

/// A pod's serial number written as a UUID (`00000000-0000-0000-0000-00000000002a`
/// for 42), as every message that names a pod by UID writes it.
pub(crate) fn uid_text(serial: u64) -> String {
    format!(
        "00000000-0000-0000-{:04x}-{:012x}",
        serial >> 48,
        serial & 0xffff_ffff_ffff
    )
}

/// What few pods carry, behind one pointer so that the common pod's record
/// is one cache line: a nomination and the preemption decision behind it
/// (preemption), and the serial of the last FailedScheduling message it was
/// told (pods that stay Pending).
#[derive(Clone, Debug, Default)]
pub(crate) struct PodExtra {
    /// Where preemption made room for it (status.nominatedNodeName), until
    /// it is bound or deleted.
    pub nominated: Option<NodeId>,
    /// The DefaultPreemption decision this pod caused, for `explain`.
    pub preemption: Option<crate::scheduler::PreemptionRecord>,
    /// The serial of the last FailedScheduling message this pod was told.
    pub reported: u32,
}

/// A tick as a pod's record keeps it: 32 bits. Scripts stop at
/// `MAX_TICK` (100,000) and a live simulator reaches 2^32 ticks after
/// 136 years of one tick a second; a later tick reads as `TICK32_MAX`.
const TICK32_MAX: u32 = u32::MAX - 1;
const NO_TICK: u32 = u32::MAX;

#[inline]
fn tick32(t: u64) -> u32 {
    t.min(TICK32_MAX as u64) as u32
}

/// A pod's node in four bytes (`Option<NodeId>` takes eight): its id plus
/// one, none when zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PodNode(Option<core::num::NonZeroU32>);

impl PodNode {
    #[inline]
    fn of(n: Option<NodeId>) -> PodNode {
        debug_assert!(
            n.is_none_or(|n| n.0 < u32::MAX),
            "node ids are below 2^32 - 1"
        );
        PodNode(n.and_then(|n| core::num::NonZeroU32::new(n.0.wrapping_add(1))))
    }

    #[inline]
    fn get(self) -> Option<NodeId> {
        self.0.map(|v| NodeId(v.get() - 1))
    }
}

/// The room a node's list of pods gets with its first pod: what a node
/// commonly holds (Kubernetes allows 110 by default; clusters run about 30
/// a node), so a filling node's list is not moved four times on the way
/// (4, 8, 16, 32), each move a copy and a free among thousands of lists.
const FIRST_NODE_LIST: usize = 32;

/// Appends pod `k` to a node's list of pods: its place there.
#[inline]
fn list_pod(on: &mut Vec<u32>, k: u32) -> u32 {
    if on.capacity() == 0 {
        on.reserve_exact(FIRST_NODE_LIST);
    }
    on.push(k);
    on.len() as u32 - 1
}

/// A pod's record: 64 bytes, one cache line (150,000 of them are written
/// at creation, read at the bind and written there), the rarer fields in
/// [`PodExtra`].
#[derive(Clone, Debug)]
#[repr(align(64))]
pub(crate) struct Pod {
    /// Unique for the life of the cluster (slab keys are reused; uids are not).
    pub uid: u64,
    /// The cluster's bind count right after this pod was bound.
    pub bind_serial: u64,
    extra: Option<alloc::boxed::Box<PodExtra>>,
    pub controller: OwnerId,
    pub ordinal: u32,
    pub revision: u32,
    /// Set through `Cluster::set_pod_node`, with the packed place.
    node: PodNode,
    /// Position in `node_pods[node]`; meaningful while bound.
    pub node_slot: u32,
    /// Resolved at creation by the Priority admission plugin (`controllers/admission.rs`).
    pub priority: i32,
    bound_at: u32,
    /// The tick its Ready condition last turned True (availability counts
    /// minReadySeconds from there).
    ready_at: u32,
    /// When a NoExecute taint it tolerates for a while evicts it (see
    /// `controllers/tainteviction.rs`), `NO_TICK` for never; cleared when it leaves the node.
    taint_deadline: u32,
    pub phase: PodPhase,
    pub ready: bool,
    /// Ready for the Deployment's minReadySeconds (see `controllers/deployment/rollout.rs`).
    pub available: bool,
    /// The pod's preemptionPolicy is Never.
    pub preempt_never: bool,
}

const _: () = assert!(core::mem::size_of::<Option<Pod>>() == 64);

impl Pod {
    /// A new pod, Pending, of `revision` of `controller`.
    fn pending(
        uid: u64,
        controller: OwnerId,
        ordinal: u32,
        revision: u32,
        admitted: crate::model::priority::Admitted,
    ) -> Pod {
        Pod {
            uid,
            bind_serial: 0,
            extra: None,
            controller,
            ordinal,
            revision,
            node: PodNode::default(),
            node_slot: 0,
            priority: admitted.priority,
            bound_at: 0,
            ready_at: 0,
            taint_deadline: NO_TICK,
            phase: PodPhase::Pending,
            ready: false,
            available: false,
            preempt_never: admitted.preempt_never,
        }
    }

    /// The node it is bound to.
    #[inline]
    pub fn node(&self) -> Option<NodeId> {
        self.node.get()
    }

    /// The tick it was bound at.
    #[inline]
    pub fn bound_at(&self) -> u64 {
        self.bound_at as u64
    }

    #[inline]
    pub fn set_bound_at(&mut self, t: u64) {
        self.bound_at = tick32(t);
    }

    /// The tick its Ready condition last turned True.
    #[inline]
    pub fn ready_at(&self) -> u64 {
        self.ready_at as u64
    }

    #[inline]
    pub fn set_ready_at(&mut self, t: u64) {
        self.ready_at = tick32(t);
    }

    /// When a NoExecute taint it tolerates for a while evicts it.
    #[inline]
    pub fn taint_deadline(&self) -> Option<u64> {
        (self.taint_deadline != NO_TICK).then_some(self.taint_deadline as u64)
    }

    #[inline]
    pub fn set_taint_deadline(&mut self, t: Option<u64>) {
        self.taint_deadline = t.map_or(NO_TICK, tick32);
    }

    /// Where preemption made room for it (status.nominatedNodeName).
    #[inline]
    pub fn nominated(&self) -> Option<NodeId> {
        self.extra.as_ref().and_then(|e| e.nominated)
    }

    /// Sets its nomination; returns the one it had.
    pub fn set_nominated(&mut self, n: Option<NodeId>) -> Option<NodeId> {
        if n.is_none() && self.extra.is_none() {
            return None;
        }
        let e = self.extra.get_or_insert_with(Default::default);
        core::mem::replace(&mut e.nominated, n)
    }

    /// The DefaultPreemption decision this pod caused.
    #[inline]
    pub(crate) fn preemption(&self) -> Option<&crate::scheduler::PreemptionRecord> {
        self.extra.as_ref().and_then(|e| e.preemption.as_ref())
    }

    pub(crate) fn set_preemption(&mut self, p: crate::scheduler::PreemptionRecord) {
        self.extra.get_or_insert_with(Default::default).preemption = Some(p);
    }

    /// The serial of the last FailedScheduling message it was told (0: none).
    #[inline]
    pub fn reported(&self) -> u32 {
        self.extra.as_ref().map_or(0, |e| e.reported)
    }

    pub fn set_reported(&mut self, serial: u32) {
        if serial != 0 || self.extra.is_some() {
            self.extra.get_or_insert_with(Default::default).reported = serial;
        }
    }
}

/// One revision of a Deployment's template, with what the affinity index
/// precomputed for it.
#[derive(Clone, Debug)]
pub(crate) struct Revision {
    /// The template as admitted: with the reserved namespace labels and
    /// selector requirements (`model/namespace.rs`) that every matcher reads.
    pub template: PodTemplate,
    /// Kubernetes' pod-template-hash: names the ReplicaSet `app-hash`, and
    /// the label (`POD_TEMPLATE_HASH`) that a Deployment's pods carry and
    /// its ReplicaSet's selector adds to the Deployment's.
    pub hash: String,
    /// Terms (by index) whose selector matches this template's labels.
    pub matching_terms: Vec<u32>,
    /// Required affinity: one term per template term, each over the
    /// conjunction of every term's selector (Kubernetes counts a pod only if
    /// it matches all of them).
    pub affinity_ids: Vec<u32>,
    pub anti_ids: Vec<u32>,
    /// Preferred affinity and anti-affinity terms with their weights.
    pub preferred_ids: Vec<(u32, i32)>,
    pub preferred_anti_ids: Vec<(u32, i32)>,
    /// Per topology spread constraint of the template, in order, the term
    /// over its selector, counted node by node (`NODE_KEY`: `init_spread`
    /// counts by the constraint's own key). Registered with the revision, so a batch
    /// holding the revision does not register it (which would copy the
    /// revision to record that it matches the new term).
    pub spread_ids: Vec<u32>,
    /// What the DefaultTolerationSeconds admission plugin adds to the pods
    /// of this revision after the template's own tolerations
    /// (`taints::default_tolerations`).
    /// Shared: there are four possible lists, and every revision held a
    /// copy of one (`Cluster::added_tolerations`).
    pub added_tolerations: Rc<[crate::model::Toleration]>,
}

impl Revision {
    /// The template as declared (what `Cluster::template` shows): the
    /// admitted one without the reserved labels and selector requirements
    /// that namespaces added (worked out when asked for, not kept: it was
    /// a second template, about a kilobyte, in every revision).
    pub fn declared(&self) -> PodTemplate {
        crate::model::namespace::strip_template(&self.template)
    }

    /// Whether pods of this revision carry any inter-pod term, required or preferred.
    pub fn carries_terms(&self) -> bool {
        !self.affinity_ids.is_empty()
            || !self.anti_ids.is_empty()
            || !self.preferred_ids.is_empty()
            || !self.preferred_anti_ids.is_empty()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub pods: u32,
    pub bound: u32,
    pub ready: u32,
    /// Ready for at least minReadySeconds; at most `ready`.
    pub available: u32,
}

/// The object that owns pods (a Deployment, a DaemonSet or a bare Pod), with
/// its books. It was called `Controller`, a name that belongs to the
/// control loops (`controllers/`).
#[derive(Clone, Debug)]
pub(crate) struct Owner {
    pub name: String,
    pub replicas: u32,
    pub strategy: RollingUpdate,
    /// Revision `r` is `revisions[r - 1]`; shared with the scheduler's
    /// batch of its pods, which holds it while binds change the cluster.
    pub revisions: Vec<Rc<Revision>>,
    pub current: u32,
    /// Pod keys by ordinal.
    pub pods: crate::util::ordinals::OrdinalMap,
    pub pending: crate::util::ordinals::OrdinalSet,
    pub next_ordinal: u32,
    /// The revision and the creation tick of each ordinal ever created,
    /// run by run, ordinals ascending (a run ends where either changes).
    /// A Deployment's pod is named after its ReplicaSet
    /// (`util/podname.rs`), and an event may name a pod long gone; `kubectl
    /// get pods` counts AGE from metadata.creationTimestamp, Pending pods
    /// included. An owner creates its pods a run of one revision in one
    /// tick at a time, so this holds a few entries per rollout or scale,
    /// not one per pod, and a pod keeps its 64 bytes.
    pub created_runs: Vec<CreatedRun>,
    pub counts: crate::util::ordinals::RevisionMap<Counts>,
    pub deleted: bool,
    /// Epochs at which scheduling last left pods pending; no retry until
    /// something that could help has happened.
    pub blocked: Option<(u64, u64)>,
    /// Per revision: the last FailedScheduling message and its serial.
    pub failure: BTreeMap<u32, (u32, String, TextId)>,
    pub rolling: bool,
    /// Revisions in the order they were last applied, current last: what
    /// `rollback` (kubectl rollout undo) walks back through.
    pub history: Vec<u32>,
    /// minReadySeconds and progressDeadlineSeconds, and the status and
    /// conditions the rollout-status sync last recorded (`controllers/deployment/rollout.rs`).
    pub min_ready_seconds: u32,
    pub progress_deadline_seconds: u32,
    pub rollout: crate::controllers::deployment::rollout::RolloutState,
    /// The Priority admission plugin's last refusal of its pods (an unknown
    /// priorityClassName), to log FailedCreate once.
    pub create_refused: Option<String>,
    /// The Priority admission plugin's last admission of its pods: the
    /// cluster's `priority_epoch` then and the revision admitted. Until
    /// either changes the answer stands, so a quiet pass need not read each
    /// owner's revision list and template again.
    pub admitted: Option<(u64, u32)>,
    /// A Deployment's spec.selector when it was not its first template's
    /// labels (immutable: see `simulator/apply.rs`).
    pub selector: Option<alloc::boxed::Box<Selector>>,
    /// What kind of owner this is: a Deployment, a DaemonSet or a bare Pod.
    pub workload: Workload,
    /// The names of the pods it ran when its cluster was imported as it is
    /// (`controllers/adopt.rs`), by ordinal: those pods keep the names the
    /// user's cluster gave them; every pod it creates afterwards is named
    /// as its controller names it (`util/podname.rs`), and no name is
    /// stored for it. Empty for a cluster built by actions.
    pub imported_names: BTreeMap<u32, Rc<str>>,
    /// A Deployment whose last sync could change nothing: what that sync
    /// read (`Cluster::quiet_key`); while it is unchanged, a pass leaves
    /// the Deployment out (`reconcile.rs`).
    pub quiet: Option<crate::controllers::deployment::rollout::QuietKey>,
    /// A StatefulSet imported as it is (simulated as a Deployment): each
    /// pod it creates is named `<statefulset>-<index>` for the lowest
    /// index none of its pods holds (`controllers/adopt.rs`), and that
    /// name is kept in `imported_names`.
    pub stateful: bool,
}

/// A run of an owner's pods created in one tick, of one revision: from
/// ordinal `first` to the next run's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CreatedRun {
    pub first: u32,
    pub revision: u32,
    /// The tick they were created in (`tick32`).
    pub at: u32,
}

impl Owner {
    /// The run that created `ordinal`, if it was created.
    pub(crate) fn created_run(&self, ordinal: u32) -> Option<&CreatedRun> {
        if ordinal >= self.next_ordinal {
            return None;
        }
        let i = self.created_runs.partition_point(|r| r.first <= ordinal);
        i.checked_sub(1).map(|i| &self.created_runs[i])
    }
}

/// The owner behind a controller slot. Deployments keep `replicas` pods;
/// a DaemonSet one pod per eligible node (`controllers/daemonset.rs`); a bare Pod is
/// its own owner, and nobody recreates it (`controllers/bare_pod.rs`). The rarer two
/// are boxed: a bare Pod's spec is 360 bytes, which every Deployment's
/// controller carried while the variant held it in place.
#[derive(Clone, Debug)]
pub(crate) enum Workload {
    Deployment,
    DaemonSet(alloc::boxed::Box<crate::controllers::daemonset::DaemonState>),
    Pod(alloc::boxed::Box<crate::controllers::bare_pod::BareState>),
}

const _: () = assert!(core::mem::size_of::<Workload>() <= 16);

impl Owner {
    /// An owner with no revisions and no pods yet. Only Deployments report
    /// rollout conditions: others get no progress deadline (their callers
    /// set a Deployment's strategy and durations).
    pub(crate) fn new(name: &str, replicas: u32, workload: Workload) -> Owner {
        Owner {
            name: name.into(),
            replicas,
            strategy: Default::default(),
            revisions: Vec::new(),
            current: 0,
            pods: Default::default(),
            pending: crate::util::ordinals::OrdinalSet::new(),
            next_ordinal: 0,
            created_runs: Vec::new(),
            counts: crate::util::ordinals::RevisionMap::new(),
            deleted: false,
            blocked: None,
            failure: BTreeMap::new(),
            rolling: false,
            history: Vec::new(),
            min_ready_seconds: 0,
            progress_deadline_seconds: crate::model::NO_PROGRESS_DEADLINE,
            rollout: Default::default(),
            create_refused: None,
            admitted: None,
            selector: None,
            workload,
            imported_names: BTreeMap::new(),
            quiet: None,
            stateful: false,
        }
    }
}

impl Workload {
    pub fn kind(&self) -> WorkloadKind {
        match self {
            Workload::Deployment => WorkloadKind::Deployment,
            Workload::DaemonSet(_) => WorkloadKind::DaemonSet,
            Workload::Pod(_) => WorkloadKind::Pod,
        }
    }
}

/// The kind of a pod owner, as Kubernetes names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    Deployment,
    DaemonSet,
    /// A bare Pod: its own owner.
    Pod,
}

impl WorkloadKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::Pod => "Pod",
        }
    }
}

impl Owner {
    pub fn total(&self) -> u32 {
        self.pods.len() as u32
    }
    pub fn count(&self, rev: u32) -> Counts {
        self.counts.get(&rev).copied().unwrap_or_default()
    }
    pub fn ready(&self) -> u32 {
        self.counts.values().map(|c| c.ready).sum()
    }
    pub fn available(&self) -> u32 {
        self.counts.values().map(|c| c.available).sum()
    }
    pub fn template(&self) -> &PodTemplate {
        &self.revisions[self.current as usize - 1].template
    }
}

/// The domains of one topology key: which domain each node is in. Shared by
/// every term with that key. A domain is a value of the key's node label,
/// as in Kubernetes (the hostname key's too: a node without the
/// `kubernetes.io/hostname` label is in no hostname domain, and two nodes
/// with one value are one domain). While every live node carries the
/// hostname label with a value of its own (`Cluster::hostname_is_node`),
/// the hostname key's domain is the node's id instead: the same partition,
/// numbered without reading or interning a label.
#[derive(Clone, Debug)]
pub(crate) struct Topology {
    pub key: String,
    /// Indexed by node id; `None` for a node without the key's label.
    pub node_domain: Vec<Option<u32>>,
    /// The interned values (empty for the hostname key while its domains
    /// are node ids).
    pub domains: BTreeMap<String, u32>,
}

/// The topology key of the terms that count a spread constraint's pods
/// node by node (`Revision::spread_ids`): every live node is its own
/// domain, whatever its labels. No label key can hold `~`.
pub(crate) const NODE_KEY: &str = "~node";

/// The term that counts the pods `selector` selects, node by node.
pub(crate) fn per_node_term(selector: Selector) -> AffinityTerm {
    AffinityTerm {
        selector,
        topology_key: NODE_KEY.to_string(),
        namespaces: Vec::new(),
        namespace_selector: None,
    }
}

impl Topology {
    /// Node `id`'s domain; `hostname_is_node`: the cluster's fast path for
    /// the hostname key holds.
    fn domain_for(&mut self, id: NodeId, spec: &NodeSpec, hostname_is_node: bool) -> Option<u32> {
        if self.key == NODE_KEY || (hostname_is_node && self.key == HOSTNAME_KEY) {
            return Some(id.0);
        }
        let v = spec.labels.get(&self.key)?;
        let next = self.domains.len() as u32;
        Some(*self.domains.entry(v.clone()).or_insert(next))
    }
}

/// A term's selector as the books keep it: matchLabels as a sorted slice
/// (a one-label selector's map is a 544-byte B-tree node) and
/// matchExpressions as they are. Shared by the terms of a template's
/// required affinity, which all count over the conjunction of its
/// selectors, so the conjunction is kept once, not once a term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TermSelector {
    labels: alloc::boxed::Box<[(String, String)]>,
    expressions: alloc::boxed::Box<[LabelSelectorRequirement]>,
}

impl TermSelector {
    fn of(s: &Selector) -> Self {
        TermSelector {
            labels: s
                .match_labels
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            expressions: s.match_expressions.as_slice().into(),
        }
    }

    /// `Selector::matches`, on the slice.
    pub fn matches(&self, l: &Labels) -> bool {
        self.labels.iter().all(|(k, v)| l.get(k) == Some(v))
            && self.expressions.iter().all(|r| r.matches(l))
    }

    /// Whether it is `s`.
    fn is(&self, s: &Selector) -> bool {
        self.labels.len() == s.match_labels.len()
            && (self.labels.iter())
                .zip(&s.match_labels)
                .all(|((a, b), (c, d))| a == c && b == d)
            && *self.expressions == *s.match_expressions
    }
}

/// What identifies a term besides its selector and topology key (both
/// kept in `TermState`): its `namespaces` and `namespaceSelector` as
/// admitted, which its selector already applies; `None` when it has
/// neither, as most terms (and every required affinity term's) have.
type TermScope = Option<alloc::boxed::Box<(Vec<String>, Option<Selector>)>>;

fn scope_of(namespaces: &[String], namespace_selector: Option<&Selector>) -> TermScope {
    (!namespaces.is_empty() || namespace_selector.is_some())
        .then(|| alloc::boxed::Box::new((namespaces.to_vec(), namespace_selector.cloned())))
}

/// The live nodes' `kubernetes.io/hostname` labels, kept as nodes come, go
/// and re-register: whether each live node carries one of its own, which
/// lets the scheduler take a node as its own hostname domain.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hostnames {
    /// Live nodes per value of the label, by a 64-bit hash of the value (a
    /// word a node instead of a second copy of its name): two values that
    /// hash alike count as one shared value, which can only send the
    /// scheduler to its general path, right for any labels.
    values: BTreeMap<u64, u32>,
    /// Live nodes without the label.
    pub missing: u32,
    /// Values two or more live nodes share.
    shared: u32,
}

impl Hostnames {
    /// FNV-1a over the value.
    fn word(v: &str) -> u64 {
        v.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    fn add(&mut self, spec: &NodeSpec) {
        match spec.labels.get(HOSTNAME_KEY) {
            None => self.missing += 1,
            Some(v) => {
                let n = self.values.entry(Self::word(v)).or_insert(0);
                *n += 1;
                if *n == 2 {
                    self.shared += 1;
                }
            }
        }
    }

    fn remove(&mut self, spec: &NodeSpec) {
        match spec.labels.get(HOSTNAME_KEY) {
            None => self.missing -= 1,
            Some(v) => {
                let w = Self::word(v);
                let n = self
                    .values
                    .get_mut(&w)
                    .expect("a live node's hostname is counted");
                *n -= 1;
                if *n == 1 {
                    self.shared -= 1;
                }
                if *n == 0 {
                    self.values.remove(&w);
                }
            }
        }
    }

    /// Every live node carries the label, each with a value of its own
    /// (false, too, in the unlikely case of two values hashing alike).
    pub fn each_node_its_own(&self) -> bool {
        self.missing == 0 && self.shared == 0
    }
}

/// An inter-pod (anti-)affinity term and its counts per topology domain.
#[derive(Clone, Debug)]
pub(crate) struct TermState {
    /// The term's selector, as admitted.
    pub selector: Rc<TermSelector>,
    pub scope: TermScope,
    /// Index into the cluster's topologies: the term's topology key.
    pub topo: u32,
    /// Bound pods matching the selector, per domain.
    pub matching: DomainCounts<u32>,
    /// Bound pods matching the selector on nodes that have the topology key.
    pub matching_total: u32,
    /// Bound pods that carry this term as required anti-affinity, per domain.
    pub owners: DomainCounts<u32>,
    /// The sum of `owners`: bound pods carrying it as required
    /// anti-affinity on nodes that have the topology key.
    pub owners_total: u32,
    /// Bound pods that carry this term as required affinity, per domain.
    pub affinity_owners: DomainCounts<u32>,
    /// Per domain, the weights of bound pods that carry this term as a
    /// preference: + for preferred affinity, - for preferred anti-affinity.
    pub preferred: DomainCounts<i64>,
    /// Bound pods that carry this term in any of the four ways, anywhere.
    pub carriers: u32,
    /// Bound pods that carry it in a way the InterPodAffinity score counts
    /// (required affinity, preferred affinity or anti-affinity), anywhere.
    pub score_carriers: u32,
}

impl TermState {
    pub fn matching_in(&self, d: u32) -> u32 {
        self.matching.get(d)
    }
    pub fn owners_in(&self, d: u32) -> u32 {
        self.owners.get(d)
    }
    pub fn affinity_owners_in(&self, d: u32) -> u32 {
        self.affinity_owners.get(d)
    }
    pub fn preferred_in(&self, d: u32) -> i64 {
        self.preferred.get(d)
    }
}

/// A Service as the endpoints controller keeps it (`controllers/endpoints.rs`): its
/// endpoints are not copied here but read from the pods when asked.
#[derive(Clone, Debug)]
pub(crate) struct ServiceState {
    pub spec: ServiceSpec,
    /// How many endpoints it had at the last sync.
    pub ready: u32,
}

/// What one pass changed, and what is still pending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    pub created: u32,
    pub deleted: u32,
    pub bound: u32,
    pub collected: u32,
    pub evicted: u32,
    pub became_ready: u32,
    /// Pods that have now been Ready for their Deployment's minReadySeconds.
    pub became_available: u32,
    /// Rollouts whose Progressing condition turned False this pass
    /// (ProgressDeadlineExceeded).
    pub timed_out: u32,
    pub endpoints_changed: u32,
    /// Pods still Pending when the pass ended.
    pub pending: u32,
    /// Pods deleted by preemption (DefaultPreemption) to make room.
    pub preempted: u32,
}

impl ReconcileReport {
    pub fn changed(&self) -> bool {
        self.created
            + self.deleted
            + self.bound
            + self.collected
            + self.evicted
            + self.became_ready
            + self.became_available
            + self.timed_out
            + self.endpoints_changed
            + self.preempted
            > 0
    }
    pub(crate) fn add(&mut self, o: &ReconcileReport) {
        self.created += o.created;
        self.deleted += o.deleted;
        self.bound += o.bound;
        self.collected += o.collected;
        self.evicted += o.evicted;
        self.became_ready += o.became_ready;
        self.became_available += o.became_available;
        self.timed_out += o.timed_out;
        self.endpoints_changed += o.endpoints_changed;
        self.preempted += o.preempted;
        self.pending = o.pending;
    }
}

/// The result of [`Cluster::reconcile_to_fixed_point`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixedPoint {
    /// True when the last pass changed nothing.
    pub converged: bool,
    /// Passes taken, including the final one that changed nothing.
    pub passes: u32,
    /// The sum of what every pass did.
    pub total: ReconcileReport,
}

/// The most passes `reconcile_to_fixed_point` takes before it gives up.
pub const PASS_BUDGET: u32 = 64;

/// The cluster: nodes, Deployments, pods, budgets, services and the event log.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub(crate) now: u64,
    /// The lists DefaultTolerationSeconds adds to a revision's pods, by
    /// which of the two it adds (`added_tolerations`), made once.
    pub(crate) default_added: [Option<Rc<[Toleration]>>; 4],
    pub(crate) nodes: Vec<NodeState>,
    /// Per node, the keys of the pods bound there; each pod records its
    /// position (`node_slot`). Apart from the node's record, as the node's
    /// request sums are (in `hot`), so that a bind never touches the
    /// record, which at 5,000 nodes falls out of cache between two binds to
    /// a node.
    pub(crate) node_pods: Vec<Vec<u32>>,
    /// Binds of the batch being scheduled not yet in `node_pods`: (node,
    /// pod key), in bind order. The scheduler's cycles read a node's pods
    /// count from `hot` only, so a batch files its pods into the lists when
    /// its cycles end (`file_pods`), in one loop whose stores to the lists,
    /// each likely a cache miss, overlap, instead of one such store a bind
    /// holding up the cycle after it. Empty outside a batch's cycles.
    pub(crate) unfiled: Vec<(u32, u32)>,
    /// The scheduler's packed mirror of `nodes`, same indexes.
    pub(crate) hot: Vec<NodeInfo>,
    /// Per node, the scalar resources (extended, ephemeral-storage,
    /// hugepages-*) its bound pods request: NodeInfo's
    /// `Requested.ScalarResources`. Empty on almost every node; touched
    /// only by binds and unbinds of pods that request some.
    pub(crate) scalar_used: Vec<crate::model::scalar::Scalars>,
    /// Per node, the host ports its bound pods take (NodeInfo's
    /// `UsedPorts`, the NodePorts plugin's book: `scheduler/plugins/
    /// node_ports/`). Empty on almost every node; touched only by binds
    /// and unbinds of pods with host ports.
    pub(crate) used_ports: Vec<crate::model::ports::UsedPorts>,
    /// Each node's `hot[i].stamp` again, packed: what the sample indexes
    /// compare their slots against, eight nodes to a cache line.
    pub(crate) stamps: Vec<u64>,
    /// Per node, the stamp of its last change other than a bind or an
    /// unbind (`refresh_hot`, not `refresh_hot_resources`): what values
    /// that read only the node's spec and conditions (the static filters'
    /// verdict, NodeAffinity's terms) are checked against, so they outlive
    /// the binds that restamp the node.
    pub(crate) spec_stamps: Vec<u64>,
    /// Nodes of `hot` with a PreferNoSchedule taint and not removed: kept
    /// so a batch asks it without reading every node's record.
    pub(crate) soft_tainted: u32,
    pub(crate) node_by_name: BTreeMap<String, NodeId>,
    pub(crate) controllers: Vec<Owner>,
    pub(crate) controller_by_name: BTreeMap<String, OwnerId>,
    /// The pods of an imported cluster by the names it gave them (keys:
    /// `NAMESPACE/NAME` outside `default`), to their owner and ordinal,
    /// alive or gone (an event outlives its pod): what `explain --pod`,
    /// `kubectl` and the what-ifs look a user's pod name up in. Generated
    /// names are not here (`util/podname.rs` maps them back).
    pub(crate) imported_pods: BTreeMap<Rc<str>, (OwnerId, u32)>,
    /// Imported pods whose Ready condition was False (a readiness probe
    /// failing: the simulation cannot know when it passes), by uid: never
    /// marked Ready (`controllers/adopt.rs`). Empty for most clusters.
    pub(crate) held_unready: alloc::collections::BTreeSet<u64>,
    /// Running pods whose Deployment is not created yet
    /// (`Cluster::stage_running`), by the Deployment's key.
    pub(crate) staged_running: BTreeMap<String, crate::controllers::adopt::RunningPods>,
    /// The pod slab, by key (`None`: a free key, in `free_keys`).
    pub(crate) pods: crate::util::chunked::Chunked<Option<Pod>>,
    /// Per pod key, its revision and node packed (`pack_place`), kept with
    /// the slab: a batch's spreading state counts a revision's pods per
    /// node from these 8 bytes a pod, not from every pod's record.
    pub(crate) places: crate::util::chunked::Chunked<u64>,
    pub(crate) free_keys: Vec<u32>,
    pub(crate) next_uid: u64,
    pub(crate) topologies: Vec<Topology>,
    /// Every topology key an admitted template names (terms' and spread
    /// constraints'), at most [`crate::util::limits::MAX_TOPOLOGY_KEYS`]: the
    /// keys `topologies` may be made for, besides the scheduler's defaults.
    pub(crate) named_keys: BTreeSet<String>,
    /// The live nodes' hostname labels (see `hostname_is_node`).
    pub(crate) hostnames: Hostnames,
    /// Deployment revisions per pod-template-hash (its 8 characters as one
    /// word), and how many hashes two or more of them share: while none is
    /// shared and no pod carries a `pod-template-hash` label of its own
    /// (`hash_labelled`), a ReplicaSet's selector selects its own revision's
    /// pods alone (`default_spread_selector`) without a look.
    pub(crate) deployment_hashes: BTreeMap<u64, u32>,
    pub(crate) hash_collisions: u32,
    /// Revisions of any owner whose template carries a `pod-template-hash` label.
    pub(crate) hash_labelled: u32,
    pub(crate) terms: Vec<TermState>,
    /// The terms by a hash of their value and their index (`find_term`):
    /// each term is kept once, in `terms`. A map keyed by the term kept a
    /// second copy of every term (its selector's label map alone is a
    /// 544-byte B-tree node), which for a template of distinct terms was
    /// as much again as the template.
    pub(crate) term_index: BTreeSet<(u64, u32)>,
    /// Terms by the first pair of their selector's matchLabels (a template
    /// can match only terms whose first pair it carries), and the terms
    /// without matchLabels: so a new template is tested against the terms
    /// that could match it, not against every term. Keyed by the pair's
    /// hash (`label_hash`; every candidate is matched whole), not a copy
    /// of it: a label can be 380 bytes.
    pub(crate) terms_by_label: BTreeMap<u64, Vec<u32>>,
    pub(crate) terms_without_labels: Vec<u32>,
    /// Revisions (controller, index) by each of their template's labels
    /// (by `label_hash`, as `terms_by_label`), and all of them: so a new
    /// term is tested against the templates that could match it.
    pub(crate) revisions_by_label: BTreeMap<u64, Vec<(u32, u32)>>,
    pub(crate) all_revisions: Vec<(u32, u32)>,
    /// Term lookups, selector tests and pod visits made registering
    /// revisions and terms (`term_index_work`).
    pub(crate) term_work: u64,
    pub(crate) pdbs: BTreeMap<String, PdbSpec>,
    pub(crate) services: BTreeMap<String, ServiceState>,
    pub(crate) service_books: crate::controllers::endpoints::ServiceBooks,
    /// Namespaces by name with their labels (without the automatic
    /// `kubernetes.io/metadata.name`): declared ones, and those an object
    /// was created in (with no labels). A namespace's labels are fixed when
    /// it is created (`model/namespace.rs`).
    pub(crate) namespaces: BTreeMap<String, Labels>,
    pub(crate) events: crate::cluster::events::EventLog,
    pub(crate) texts: Vec<String>,
    /// Pods to mark Ready, bucketed by tick: (key, uid) in bind order (in
    /// chunks: a tick that binds 150,000 pods fills one bucket without
    /// copying it as it grows).
    pub(crate) ready_queue: BTreeMap<u64, crate::util::chunked::Chunked<(u32, u64)>>,
    /// Ready pods to mark available once their minReadySeconds have
    /// passed, bucketed by that tick: (key, uid).
    pub(crate) available_queue: BTreeMap<u64, Vec<(u32, u64)>>,
    /// NoExecute eviction timers, bucketed by the tick they fire: (key, uid).
    pub(crate) taint_queue: BTreeMap<u64, Vec<(u32, u64)>>,
    /// Nodes whose kubelet is silent; only these are checked for NotReady.
    pub(crate) silent: BTreeSet<NodeId>,
    /// Drains by the tick of their next eviction attempt (kubectl retries a
    /// refused eviction after 5 s): a pass visits the drains due, not every
    /// drain.
    pub(crate) drains: BTreeMap<u64, BTreeSet<NodeId>>,
    /// Bumped by anything that can make a pending pod schedulable: capacity
    /// freed, a node added, relabelled, Ready or uncordoned.
    pub(crate) capacity_epoch: u64,
    /// Bumped by every bind (pod affinity can only be helped by a bind).
    pub(crate) bind_epoch: u64,
    /// Bumped by anything that can let a refused eviction through: a pod
    /// Ready, deleted or unbound, a Deployment scaled, rolled, created or
    /// deleted, a budget added or deleted, a node re-registered. A
    /// DaemonSet's sync is skipped while it and the other epochs stand.
    pub(crate) disruption_epoch: u64,
    /// Replicas desired by all live Deployments together; at most
    /// [`crate::util::limits::MAX_PODS`].
    pub(crate) desired_total: u64,
    /// Registered nodes that are not removed; at most [`crate::util::limits::MAX_NODES`].
    pub(crate) live_nodes: u32,
    pub(crate) failure_serial: u32,
    pub(crate) heartbeat_timeout: u64,
    pub(crate) pending_total: u32,
    pub(crate) bound_total: u32,
    /// Where the next scheduling cycle starts looking for feasible nodes
    /// (kube-scheduler's nextStartNodeIndex), as a node slot.
    pub(crate) next_start_node: u32,
    /// Settles equal scores when the profile breaks ties at random.
    pub(crate) rng: crate::util::prng::Prng,
    pub(crate) last_cycle: crate::scheduler::CycleRecord,
    /// While an observer watches for one pod's bind
    /// (`Simulator::step_deciding`): its name. The cycles of other pods
    /// then record no more than unobserved ones do (a full record costs a
    /// pass over the nodes per pod).
    pub(crate) record_for: Option<String>,
    /// When batches use a sample index (tests compare it with the scan).
    pub(crate) index_use: crate::scheduler::IndexUse,
    /// Which fast paths the scheduler may take (`scheduler/fast`).
    pub(crate) fast_paths: crate::scheduler::FastPaths,
    /// The last stamp given to a node (see `NodeInfo::stamp`).
    pub(crate) stamp_clock: u64,
    /// Moves whenever a node is added, removed, re-registered, tainted,
    /// untainted, cordoned, uncordoned or changes readiness: everything the
    /// static filters read (binds and unbinds leave it). What
    /// `pinned_messages` checks its values against.
    pub(crate) node_epoch: u64,
    /// FailedScheduling messages of pinned pods, per DaemonSet generation
    /// (`scheduler/pinned.rs`).
    pub(crate) pinned_messages: crate::scheduler::pinned::PinnedMessages,
    /// Pods nominated to each node by preemption (by node slot): a superset
    /// of the pods whose nominatedNodeName is that node, so that clearing a
    /// node's lower-priority nominations reads its nominees only.
    pub(crate) nominees: BTreeMap<u32, BTreeSet<u32>>,
    /// The scheduler's per-node values kept across batches.
    pub(crate) caches: crate::scheduler::cache::Caches,
    /// PriorityClasses by name, the system ones included (`model/priority.rs`).
    pub(crate) priority_classes: BTreeMap<String, crate::model::priority::PriorityClass>,
    /// Counts the changes to `priority_classes` (see `Owner::admitted`).
    pub(crate) priority_epoch: u64,
    /// Whether a pod was marked Lost since the last pass collected them
    /// (`collect_lost`, which otherwise has nothing to find).
    pub(crate) lost_marked: bool,
    /// Set once a pod with a priority other than 0 is created: until then
    /// the scheduling queue keeps creation order without looking.
    pub(crate) priorities_in_use: bool,
    /// Pods deleted by preemption since the last pass report.
    pub(crate) preempted: u32,
    /// When tests ask for it: the state before each preemption attempt.
    pub(crate) preemption_trace: Option<Vec<crate::scheduler::PreemptionTrace>>,
    /// A reconcile run in slices: where the scheduler stopped (`reconcile.rs`).
    pub(crate) slice: crate::reconcile::SliceState,
    /// Events as emitted, before correlation, while a test watches
    /// (`watch_events`).
    pub(crate) watched: Option<Vec<RenderedEvent>>,
    /// What the API did that Kubernetes records no Event for (evictions,
    /// endpoint changes), while a test watches (`watch_api`).
    pub(crate) api_log: Option<Vec<ApiRecord>>,
}

/// Something the API server or a controller did that Kubernetes records
/// no Event for, kept for tests that follow it ([`Cluster::watch_api`]):
/// the event log holds only what Kubernetes' components emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiRecord {
    /// The eviction subresource deleted `pod` (eviction.go: no Event).
    /// `at`: how many events a watcher ([`Cluster::watch_events`]) had been
    /// given since its last take when it happened, so a test can place it
    /// among them.
    Evicted { tick: u64, pod: String, at: usize },
    /// A Service's endpoints changed (the endpoints controller records no
    /// Event on success): "Endpoints of NAME: N ready; added ...; removed ...".
    EndpointsChanged { tick: u64, message: String },
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster::new()
    }
}

/// The seed of the scheduler's tie-break PRNG for a cluster built without one.
pub const DEFAULT_SCHEDULER_SEED: u64 = 0x5eed_5c4e_d01e;

/// The default number of silent ticks (seconds of cluster time) after which
/// a node is NotReady: kube-controller-manager's `--node-monitor-grace-period`,
/// 50 s since Kubernetes 1.32 (kubernetes/kubernetes#126287; 40 s before).
pub const DEFAULT_HEARTBEAT_TIMEOUT: u64 = 50;

impl Cluster {
    pub fn new() -> Self {
        Cluster {
            now: 0,
            default_added: Default::default(),
            nodes: Vec::new(),
            node_pods: Vec::new(),
            unfiled: Vec::new(),
            hot: Vec::new(),
            scalar_used: Vec::new(),
            used_ports: Vec::new(),
            stamps: Vec::new(),
            spec_stamps: Vec::new(),
            soft_tainted: 0,
            node_by_name: BTreeMap::new(),
            controllers: Vec::new(),
            controller_by_name: BTreeMap::new(),
            imported_pods: BTreeMap::new(),
            held_unready: alloc::collections::BTreeSet::new(),
            staged_running: BTreeMap::new(),
            pods: Default::default(),
            places: Default::default(),
            free_keys: Vec::new(),
            next_uid: 1,
            topologies: Vec::new(),
            named_keys: BTreeSet::new(),
            hostnames: Hostnames::default(),
            deployment_hashes: BTreeMap::new(),
            hash_collisions: 0,
            hash_labelled: 0,
            terms: Vec::new(),
            term_index: BTreeSet::new(),
            terms_by_label: BTreeMap::new(),
            terms_without_labels: Vec::new(),
            revisions_by_label: BTreeMap::new(),
            all_revisions: Vec::new(),
            term_work: 0,
            pdbs: BTreeMap::new(),
            services: BTreeMap::new(),
            service_books: Default::default(),
            namespaces: BTreeMap::new(),
            events: Default::default(),
            texts: Vec::new(),
            ready_queue: BTreeMap::new(),
            available_queue: BTreeMap::new(),
            taint_queue: BTreeMap::new(),
            silent: BTreeSet::new(),
            drains: BTreeMap::new(),
            capacity_epoch: 1,
            bind_epoch: 1,
            disruption_epoch: 1,
            desired_total: 0,
            live_nodes: 0,
            failure_serial: 0,
            heartbeat_timeout: DEFAULT_HEARTBEAT_TIMEOUT,
            pending_total: 0,
            bound_total: 0,
            next_start_node: 0,
            rng: crate::util::prng::Prng::new(DEFAULT_SCHEDULER_SEED),
            last_cycle: Default::default(),
            record_for: None,
            index_use: crate::scheduler::IndexUse::Auto,
            fast_paths: crate::scheduler::FastPaths::ALL,
            stamp_clock: 0,
            node_epoch: 0,
            pinned_messages: Default::default(),
            nominees: BTreeMap::new(),
            caches: Default::default(),
            priority_classes: crate::model::priority::PriorityClass::system()
                .into_iter()
                .map(|c| (c.name.clone(), c))
                .collect(),
            priority_epoch: 0,
            lost_marked: false,
            priorities_in_use: false,
            preempted: 0,
            preemption_trace: None,
            slice: Default::default(),
            watched: None,
            api_log: None,
        }
    }

    // ----- time and events -------------------------------------------------

    /// The cluster's clock, in ticks. Only the caller moves it.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Moves the clock forward (never back); pods whose readiness delay has
    /// passed become Ready at the next pass.
    pub fn set_now(&mut self, tick: u64) {
        self.now = self.now.max(tick);
    }

    /// Seeds the PRNG that settles equal scores (profiles with random ties).
    pub fn set_scheduler_seed(&mut self, seed: u64) {
        self.rng = crate::util::prng::Prng::new(seed);
    }

    pub fn heartbeat_timeout(&self) -> u64 {
        self.heartbeat_timeout
    }

    /// Silent ticks after which a node is declared NotReady (at least 1).
    pub fn set_heartbeat_timeout(&mut self, ticks: u64) -> Result<(), Error> {
        if ticks == 0 || ticks > 1_000_000 {
            return Err(Error::invalid(
                "heartbeat timeout",
                &format!("{ticks}"),
                "1 to 1000000 ticks",
            ));
        }
        self.heartbeat_timeout = ticks;
        Ok(())
    }

    /// Records an event through the event correlator; a Text message's text
    /// is shared with other events (it is not given back on a repeat).
    pub(crate) fn record(
        &mut self,
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        message: Message,
    ) {
        self.record_owned(type_, reason, object, message, false, false);
    }

    /// Records an event whose message no earlier event had: a pod's name as
    /// it is created (ordinals are never reused) or deleted (once).
    pub(crate) fn record_fresh_message(
        &mut self,
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        message: Message,
    ) {
        self.record_owned(type_, reason, object, message, false, true);
    }

    fn record_owned(
        &mut self,
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        message: Message,
        owns_text: bool,
        fresh: bool,
    ) {
        debug_assert!(
            match message {
                Message::CreatedPod(_) | Message::DeletedPod(_) => object.owner().is_some(),
                Message::Assigned(_) | Message::TolerationExpired(_) => {
                    matches!(object, ObjectRef::Pod(..))
                }
                Message::StoppingContainer(_) => matches!(object, ObjectRef::Pod(..)),
                Message::NodeIsNotReady | Message::Text(_) => true,
            },
            "a message's pod is its object's"
        );
        if self.watched.is_some() {
            let r = self.render_event(&EventRecord::new(self.now, type_, reason, object, message));
            if let Some(w) = &mut self.watched {
                w.push(r);
            }
        }
        let p = crate::cluster::events::Packed::new(type_, reason, object, message);
        self.events
            .observe(p, self.now, &mut self.texts, owns_text, fresh);
    }

    /// Starts keeping every event as it is emitted, before the event
    /// correlator counts or combines it: what a watcher of client-go's
    /// broadcaster sees (StartEventWatcher), where the log is what the
    /// sink records. For tests that follow each event; see
    /// [`Cluster::take_watched_events`].
    pub fn watch_events(&mut self) {
        self.watched.get_or_insert_with(Vec::new);
    }

    /// Starts keeping what the API did that records no Event (evictions,
    /// endpoint changes): see [`Cluster::take_api_log`].
    pub fn watch_api(&mut self) {
        self.api_log.get_or_insert_with(Vec::new);
    }

    /// The records kept since the last call (or since [`Cluster::watch_api`]).
    pub fn take_api_log(&mut self) -> Vec<ApiRecord> {
        self.api_log
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// A number that moves whenever a pod turns Ready or not Ready, is
    /// created, deleted or unbound, or a workload or budget changes (the
    /// epoch that lets a refused eviction be tried again): with the event
    /// log's writes, what tells a reader that something happened, since a
    /// pod turning Ready records no Event.
    pub fn change_epoch(&self) -> u64 {
        self.disruption_epoch
    }

    /// The records kept since the last take, without taking them.
    pub fn api_log(&self) -> &[ApiRecord] {
        self.api_log.as_deref().unwrap_or(&[])
    }

    /// Whether a test keeps the API log (what costs work only then is skipped otherwise).
    pub(crate) fn api_watched(&self) -> bool {
        self.api_log.is_some()
    }

    pub(crate) fn api_record(&mut self, r: ApiRecord) {
        if let Some(l) = &mut self.api_log {
            l.push(r);
        }
    }

    /// The events emitted since the last call (or since
    /// [`Cluster::watch_events`]), uncorrelated, in order.
    pub fn take_watched_events(&mut self) -> Vec<RenderedEvent> {
        self.watched
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    pub(crate) fn note(
        &mut self,
        type_: EventType,
        reason: Reason,
        object: ObjectRef,
        text: String,
    ) {
        let t = self.text(text);
        self.record_owned(type_, reason, object, Message::Text(t), true, false);
    }

    pub(crate) fn text(&mut self, s: String) -> TextId {
        self.texts.push(s);
        TextId(self.texts.len() as u32 - 1)
    }

    /// Every event so far, oldest first.
    pub fn events(&self) -> &crate::cluster::events::EventLog {
        &self.events
    }

    pub fn render_event(&self, e: &EventRecord) -> RenderedEvent {
        let object = match &e.object {
            ObjectRef::Node(n) => format!("node/{}", self.nodes[n.0 as usize].spec.name),
            ObjectRef::Pod(c, o) => format!("pod/{}", self.pod_name(*c, *o)),
            ObjectRef::Deployment(c) => {
                let ctl = &self.controllers[c.0 as usize];
                let kind = match ctl.workload {
                    Workload::Deployment => "deployment",
                    Workload::DaemonSet(_) => "daemonset",
                    Workload::Pod(_) => "pod",
                };
                format!("{kind}/{}", ctl.name)
            }
            ObjectRef::Named(t) => self.texts[t.0 as usize].clone(),
            ObjectRef::ReplicaSet(c, r) => format!("replicaset/{}", self.replica_set_name(*c, *r)),
        };
        // A message's pod is of the object's controller (`record` checks).
        let pod = |o: u32| (e.object.owner()).map_or_else(String::new, |c| self.pod_name(c, o));
        let object_pod = || match e.object {
            ObjectRef::Pod(_, o) => pod(o),
            _ => String::new(),
        };
        let message = match &e.message {
            Message::CreatedPod(o) => format!("Created pod: {}", pod(*o)),
            Message::DeletedPod(o) => format!("Deleted pod: {}", pod(*o)),
            Message::Assigned(n) => {
                format!(
                    "Successfully assigned {} to {}",
                    crate::model::namespace::full_name(&object_pod()),
                    self.nodes[n.0 as usize].spec.name
                )
            }
            Message::NodeIsNotReady => String::from("Node is not ready"),
            // taint_eviction.go, emitPodDeletionEvent: the pod's
            // namespace/name and nothing else.
            Message::TolerationExpired(_) => format!(
                "Marking for deletion Pod {}",
                crate::model::namespace::full_name(&object_pod())
            ),
            Message::Text(t) => self.texts[t.0 as usize].clone(),
            // The container is named as its owner (Shepherd's pods run one).
            Message::StoppingContainer(_) => format!(
                "Stopping container {}",
                e.object
                    .owner()
                    .map_or("", |c| crate::model::namespace::split(
                        &self.controllers[c.0 as usize].name
                    )
                    .1)
            ),
        };
        let source = e.reason.source(&e.object);
        // A kubelet's events name its node as source.host.
        let host = match (source, e.object, e.message) {
            (_, _, Message::StoppingContainer(n)) => self.nodes[n.0 as usize].spec.name.clone(),
            (crate::cluster::events::Source::Kubelet, ObjectRef::Node(n), _) => {
                self.nodes[n.0 as usize].spec.name.clone()
            }
            _ => String::new(),
        };
        // client-go's EventAggregatorByReasonMessageFunc.
        let message = if e.combined {
            format!("(combined from similar events): {message}")
        } else {
            message
        };
        RenderedEvent {
            tick: e.tick,
            type_: e.type_.as_str(),
            reason: e.reason.as_str(),
            object,
            message,
            count: e.count,
            last_tick: e.last_tick,
            source: source.as_str(),
            host,
        }
    }

    /// A Deployment's ReplicaSet name for revision `r`:
    /// `<deployment>-<pod-template-hash>`, as the Deployment controller
    /// names it (sync.go, getNewReplicaSet).
    pub fn replica_set_name(&self, c: OwnerId, r: u32) -> String {
        let ctl = &self.controllers[c.0 as usize];
        match ctl.revisions.get((r as usize).wrapping_sub(1)) {
            Some(rev) => format!("{}-{}", ctl.name, rev.hash),
            None => ctl.name.clone(),
        }
    }

    /// The whole log as text; what determinism tests compare.
    pub fn rendered_events(&self) -> Vec<RenderedEvent> {
        self.events.iter().map(|e| self.render_event(&e)).collect()
    }

    /// The tick `c`'s pod `ordinal` was created in (its
    /// metadata.creationTimestamp), alive or gone; 0 for an ordinal never
    /// created.
    pub fn pod_created_at(&self, c: OwnerId, ordinal: u32) -> u64 {
        self.controllers[c.0 as usize]
            .created_run(ordinal)
            .map_or(0, |r| r.at as u64)
    }

    /// The name of `c`'s pod `ordinal`, alive or gone: a bare Pod's own, a
    /// DaemonSet's `<daemonset>-<5 chars>`, a Deployment's
    /// `<replicaset>-<5 chars>` (`util/podname.rs`).
    pub fn pod_name(&self, c: OwnerId, ordinal: u32) -> String {
        let ctl = &self.controllers[c.0 as usize];
        if let Some(n) = ctl.imported_names.get(&ordinal) {
            return String::from(&**n);
        }
        match ctl.workload {
            // A bare Pod's name is its own.
            Workload::Pod(_) => ctl.name.clone(),
            Workload::DaemonSet(_) => crate::util::podname::generated(&ctl.name, ordinal),
            Workload::Deployment => {
                let r = ctl.created_run(ordinal).map_or(ctl.current, |r| r.revision);
                crate::util::podname::generated(&self.replica_set_name(c, r), ordinal)
            }
        }
    }

    // ----- nodes -----------------------------------------------------------

    /// Registers a new node (a removed name may register again, as a fresh
    /// node in its old slot). A name that is registered now is refused with
    /// `AlreadyExists`, as the API server refuses a second Node of one name;
    /// a new body for a registered node is [`Cluster::reregister_node`].
    pub fn add_node(&mut self, spec: NodeSpec) -> Result<NodeId, Error> {
        spec.validate()?;
        let existing = self.node_by_name.get(&spec.name).copied();
        if let Some(id) = existing {
            if !self.nodes[id.0 as usize].removed {
                return Err(Error::AlreadyExists {
                    kind: "node",
                    name: spec.name,
                });
            }
        }
        if self.live_nodes >= crate::util::limits::MAX_NODES {
            return Err(Error::Invalid(format!(
                "node {}: the cluster already has {} nodes, the limit (MAX_NODES, twice Kubernetes' supported 5,000); expected a node removed first",
                spec.name,
                self.live_nodes
            )));
        }
        self.live_nodes += 1;
        let was = self.hostname_is_node();
        self.hostnames.add(&spec);
        if let Some(id) = existing {
            // A removed node coming back: a fresh node in its old slot.
            self.nodes[id.0 as usize] = fresh_node(spec.clone());
            debug_assert!(self.node_pods[id.0 as usize].is_empty());
            self.node_pods[id.0 as usize].clear();
            let h = &mut self.hot[id.0 as usize];
            (h.allocated, h.nonzero) = (Resources::ZERO, Resources::ZERO);
            self.scalar_used[id.0 as usize] = Default::default();
            self.used_ports[id.0 as usize] = Default::default();
            self.refresh_hot(id);
            self.refresh_domains(id, was);
            self.capacity_epoch += 1;
            self.note(
                EventType::Normal,
                Reason::RegisteredNode,
                ObjectRef::Node(id),
                format!(
                    "Node {} event: Registered Node {} in Controller",
                    spec.name, spec.name
                ),
            );
            return Ok(id);
        }
        let id = NodeId(self.nodes.len() as u32);
        let name = spec.name.clone();
        self.node_by_name.insert(name.clone(), id);
        self.nodes.push(fresh_node(spec));
        self.node_pods.push(Vec::new());
        self.hot.push(NodeInfo::default());
        self.scalar_used.push(Default::default());
        self.used_ports.push(Default::default());
        self.stamps.push(0);
        self.spec_stamps.push(0);
        self.refresh_hot(id);
        for t in self.topologies.iter_mut() {
            t.node_domain.push(None);
        }
        self.refresh_domains(id, was);
        self.capacity_epoch += 1;
        self.note(
            EventType::Normal,
            Reason::RegisteredNode,
            ObjectRef::Node(id),
            format!("Node {name} event: Registered Node {name} in Controller"),
        );
        Ok(id)
    }

    /// The kubelet of a registered node registers again with a new body
    /// (capacity, labels, taints), as after a restart with new settings. The
    /// node keeps its slot and state; the kubelet admits again what it runs
    /// and releases what it would now refuse: a pod whose nodeSelector no
    /// longer matches, one that does not tolerate a NoExecute taint, or one
    /// that no longer fits (in bind order). NoSchedule and PreferNoSchedule
    /// taints never release a running pod: kubelet admission checks NoExecute
    /// taints only, and NoSchedule only keeps new pods away. The same body
    /// again changes nothing.
    pub fn reregister_node(&mut self, spec: NodeSpec) -> Result<NodeId, Error> {
        spec.validate()?;
        let id = self.node_id(&spec.name)?;
        if self.nodes[id.0 as usize].spec != spec {
            self.reregister(id, spec);
        }
        Ok(id)
    }

    fn reregister(&mut self, id: NodeId, spec: NodeSpec) {
        {
            let n = &mut self.nodes[id.0 as usize];
            if n.spec.labels != spec.labels || n.spec.taints != spec.taints {
                n.changed_at_bind = self.bind_epoch;
            }
        }
        self.disruption_epoch += 1;
        // Take the node's pods out of the affinity counts while its labels change.
        let keys = self.node_pods[id.0 as usize].clone();
        for &k in &keys {
            self.affinity_count(k, id, false);
        }
        let was = self.hostname_is_node();
        self.hostnames.remove(&self.nodes[id.0 as usize].spec);
        self.hostnames.add(&spec);
        self.nodes[id.0 as usize].spec = spec;
        self.refresh_hot(id);
        self.refresh_domains(id, was);
        for &k in &keys {
            self.affinity_count(k, id, true);
        }
        // The kubelet admits again what it runs; whatever it would refuse is released.
        let mut used = Resources::ZERO;
        let mut used_scalars = crate::model::scalar::Scalars::new();
        for &k in &keys {
            let (c, o, rev) = {
                let p = self.pod(k);
                (p.controller, p.ordinal, p.revision)
            };
            let tpl = &self.controllers[c.0 as usize].revisions[rev as usize - 1].template;
            let node = &self.nodes[id.0 as usize].spec;
            let after = used.saturating_add(&tpl.requests);
            // The kubelet's admission (lifecycle/predicate.go,
            // generalFilter), in its words: rejectPod's event carries the
            // reason and message the predicate failed with.
            let short = |res: &str, requested: u64, used: u64, capacity: u64| {
                format!("Node didn't have enough resource: {res}, requested: {requested}, used: {used}, capacity: {capacity}")
            };
            let short_scalar: Option<String> = tpl
                .scalar_requests
                .insufficient(&used_scalars, &node.scalars)
                .next()
                .map(String::from);
            let verdict = if !node.labels_match(&tpl.node_selector) {
                Some((
                    Reason::NodeAffinity,
                    "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
                        .to_string(),
                ))
            } else if node
                .taints
                .iter()
                .any(|t| t.effect == TaintEffect::NoExecute && !tpl.tolerates(t))
            {
                Some((
                    Reason::TaintToleration,
                    "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
                        .to_string(),
                ))
            } else if after.cpu_millis > node.capacity.cpu_millis {
                Some((
                    Reason::OutOfcpu,
                    short(
                        "cpu",
                        tpl.requests.cpu_millis,
                        used.cpu_millis,
                        node.capacity.cpu_millis,
                    ),
                ))
            } else if after.memory_bytes > node.capacity.memory_bytes {
                Some((
                    Reason::OutOfmemory,
                    short(
                        "memory",
                        tpl.requests.memory_bytes,
                        used.memory_bytes,
                        node.capacity.memory_bytes,
                    ),
                ))
            } else if let Some(r) = short_scalar.as_deref() {
                Some((
                    Reason::out_of(r),
                    short(
                        r,
                        tpl.scalar_requests.get(r),
                        used_scalars.get(r),
                        node.scalars.get(r),
                    ),
                ))
            } else {
                used = after;
                used_scalars.add(&tpl.scalar_requests);
                None
            };
            if let Some((reason, why)) = verdict {
                self.note(EventType::Warning, reason, ObjectRef::Pod(c, o), why);
                self.delete_rejected_pod(k);
            }
        }
        self.capacity_epoch += 1;
        self.refresh_hot(id);
        // The taint-eviction controller sees the new taints: timers start
        // for pods that tolerate a NoExecute taint for a while, and stop
        // when the node no longer has one.
        self.apply_no_execute(id);
        // A kubelet restarted with new settings: its "Starting kubelet."
        // (kubelet.go, Run). The node controller already knows the node:
        // no RegisteredNode.
        self.note(
            EventType::Normal,
            Reason::Starting,
            ObjectRef::Node(id),
            String::from("Starting kubelet."),
        );
    }

    pub(crate) fn node_id(&self, name: &str) -> Result<NodeId, Error> {
        match self.node_by_name.get(name) {
            Some(&id) if !self.nodes[id.0 as usize].removed => Ok(id),
            _ => Err(Error::not_found("node", name)),
        }
    }

    /// Removes a node; its pods are lost and replaced elsewhere.
    pub fn remove_node(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        self.lose_pods(id);
        self.live_nodes -= 1;
        let was = self.hostname_is_node();
        self.hostnames.remove(&self.nodes[id.0 as usize].spec);
        let n = &mut self.nodes[id.0 as usize];
        n.removed = true;
        n.ready = false;
        self.refresh_hot(id);
        if self.hostname_is_node() != was {
            self.renumber_hostnames(None);
        }
        self.silent.remove(&id);
        self.note(
            EventType::Normal,
            Reason::RemovingNode,
            ObjectRef::Node(id),
            format!("Node {name} event: Removing Node {name} from Controller"),
        );
        Ok(())
    }

    /// Stops the node's kubelet: no more heartbeats. After the heartbeat
    /// timeout the node is declared NotReady and its pods are lost.
    pub fn fail_node(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        let now = self.now;
        let n = &mut self.nodes[id.0 as usize];
        if n.beating {
            n.beating = false;
            n.last_heartbeat = now;
            self.silent.insert(id);
        }
        Ok(())
    }

    /// Restarts the node's kubelet; the node is Ready again at its next heartbeat.
    pub fn recover_node(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        self.nodes[id.0 as usize].beating = true;
        Ok(())
    }

    /// Marks the node unschedulable (kubectl cordon). Running pods stay.
    pub fn cordon(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        if !self.nodes[id.0 as usize].cordoned {
            self.nodes[id.0 as usize].cordoned = true;
            self.refresh_hot(id);
            self.note(
                EventType::Normal,
                Reason::NodeNotSchedulable,
                ObjectRef::Node(id),
                format!("Node {name} status is now: NodeNotSchedulable"),
            );
        }
        Ok(())
    }

    /// Makes the node schedulable again (kubectl uncordon); also ends a drain.
    pub fn uncordon(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        let n = &mut self.nodes[id.0 as usize];
        // Ends a drain as stopping `kubectl drain` would; its status goes.
        n.drain = None;
        n.drain_status = None;
        if n.cordoned {
            n.cordoned = false;
            self.refresh_hot(id);
            self.capacity_epoch += 1;
            self.note(
                EventType::Normal,
                Reason::NodeSchedulable,
                ObjectRef::Node(id),
                format!("Node {name} status is now: NodeSchedulable"),
            );
        }
        Ok(())
    }

    // ----- Deployments -----------------------------------------------------

    /// A live Deployment by name (DaemonSets and bare Pods have their own calls).
    pub(crate) fn controller_id(&self, name: &str) -> Result<OwnerId, Error> {
        self.controller_by_name
            .get(crate::model::namespace::canonical(name))
            .copied()
            .filter(|c| {
                matches!(
                    self.controllers[c.0 as usize].workload,
                    Workload::Deployment
                )
            })
            .ok_or_else(|| Error::not_found("app", name))
    }

    /// Refuses `name` for a new owner (Deployment, DaemonSet or bare Pod)
    /// while an owner of any kind holds it.
    pub(crate) fn owner_name_free(&self, name: &str, kind: &'static str) -> Result<(), Error> {
        if self.controller_by_name.contains_key(name) {
            return Err(Error::AlreadyExists {
                kind,
                name: name.to_string(),
            });
        }
        Ok(())
    }

    /// Registers a new owner that passed every check: its namespace exists
    /// from now on, and its name leads to it.
    pub(crate) fn add_owner(&mut self, ctl: Owner) -> OwnerId {
        self.use_namespace(&ctl.name);
        let id = OwnerId(self.controllers.len() as u32);
        self.controller_by_name.insert(ctl.name.clone(), id);
        self.controllers.push(ctl);
        id
    }

    /// Creates a Deployment. Its pods are created by the next pass.
    /// Running pods staged for it (`Cluster::stage_running`) are its from
    /// the start ([`Cluster::deploy_running`]).
    pub fn deploy(&mut self, spec: DeploymentSpec) -> Result<OwnerId, Error> {
        let key = crate::model::namespace::canonical(&spec.name);
        if let Some(running) = self.staged_running.remove(key) {
            let key = String::from(key);
            return self.deploy_running(spec, running.clone()).inspect_err(|_| {
                self.staged_running.insert(key, running);
            });
        }
        self.deploy_quietly(spec, true)
    }

    /// [`Cluster::deploy`]; `scaled`: its first ReplicaSet is scaled up
    /// now (false for one that runs already, `controllers/adopt.rs`).
    pub(crate) fn deploy_quietly(
        &mut self,
        spec: DeploymentSpec,
        scaled: bool,
    ) -> Result<OwnerId, Error> {
        spec.validate()?;
        self.owner_name_free(&spec.name, "app")?;
        check_pod_limit(&spec.name, self.desired_total + spec.replicas as u64)?;
        self.check_topology_keys(&spec.name, &spec.template)?;
        self.desired_total += spec.replicas as u64;
        self.disruption_epoch += 1;
        let mut ctl = Owner::new(&spec.name, spec.replicas, Workload::Deployment);
        ctl.strategy = spec.strategy;
        ctl.min_ready_seconds = spec.min_ready_seconds;
        ctl.progress_deadline_seconds = spec.progress_deadline_seconds;
        ctl.selector = spec.selector.clone().map(alloc::boxed::Box::new);
        let id = self.add_owner(ctl);
        self.current_revision_for(id, spec.template);
        // The Deployment controller creates its first ReplicaSet at the
        // size it wants (sync.go, getNewReplicaSet: "Scaled up replica set
        // NAME from 0 to N", only when N > 0). Creating the Deployment
        // itself is an API call, which records no Event.
        if scaled && spec.replicas > 0 {
            self.note_scaling(id, 0, spec.replicas);
        }
        Ok(id)
    }

    /// The Deployment controller's ScalingReplicaSet event for its current
    /// ReplicaSet going from `from` to `to` replicas (sync.go,
    /// scaleReplicaSet: "Scaled up replica set NAME from A to B").
    pub(crate) fn note_scaling(&mut self, id: OwnerId, from: u32, to: u32) {
        let cur = self.controllers[id.0 as usize].current;
        self.note_scaling_of(id, cur, from, to);
    }

    /// [`Cluster::note_scaling`] for the ReplicaSet of revision `rev`.
    pub(crate) fn note_scaling_of(&mut self, id: OwnerId, rev: u32, from: u32, to: u32) {
        if from == to {
            return;
        }
        let way = if to > from { "up" } else { "down" };
        let rs = self.replica_set_name(id, rev);
        self.note(
            EventType::Normal,
            Reason::ScalingReplicaSet,
            ObjectRef::Deployment(id),
            format!("Scaled {way} replica set {rs} from {from} to {to}"),
        );
    }

    /// Sets the desired replica count.
    pub fn scale(&mut self, name: &str, replicas: u32) -> Result<(), Error> {
        let id = self.controller_id(name)?;
        validate_replicas(name, replicas)?;
        let from = self.controllers[id.0 as usize].replicas;
        let total = self.desired_total - from as u64 + replicas as u64;
        if replicas > from {
            check_pod_limit(name, total)?;
        }
        self.desired_total = total;
        if from != replicas {
            self.disruption_epoch += 1;
            let c = &mut self.controllers[id.0 as usize];
            c.replicas = replicas;
            // With one ReplicaSet holding pods, the Deployment controller
            // scales it (sync.go, scale, "Scaled up replica set NAME from A
            // to B"). During a roll its proportional scaling is not
            // modelled: the roll's own steps (sync_deployment) log the
            // ReplicaSets' sizes as they move.
            if c.total() == c.count(c.current).pods {
                self.note_scaling(id, from, replicas);
            }
        }
        Ok(())
    }

    /// Applies a new pod template: a roll to a new revision (or back to an
    /// old one whose template is identical, as Kubernetes reuses its ReplicaSet).
    pub fn roll(&mut self, name: &str, template: PodTemplate) -> Result<(), Error> {
        let id = self.controller_id(name)?;
        template.validate(name)?;
        self.check_topology_keys(name, &template)?;
        let template = self.admit(id, &template);
        if *self.controllers[id.0 as usize].template() == template {
            return Ok(());
        }
        let prev = self.controllers[id.0 as usize].current;
        self.current_revision_for(id, template);
        let _ = prev;
        // The new template is an API update (no Event); the Deployment
        // controller's ScalingReplicaSet events follow as it rolls.
        self.controllers[id.0 as usize].rolling = true;
        Ok(())
    }

    /// Rolls back to the template before the current one.
    pub fn rollback(&mut self, name: &str) -> Result<(), Error> {
        let id = self.controller_id(name)?;
        let c = &self.controllers[id.0 as usize];
        // The revision applied before the current one (not the highest
        // number: a reused template keeps its old number).
        let prev = c.history.len().checked_sub(2).map(|i| c.history[i]);
        match prev {
            Some(r) => {
                let t = c.revisions[r as usize - 1].declared();
                self.roll(name, t)
            }
            None => Err(Error::Invalid(format!("app {name} has no previous revision to roll back to; expected an app that has been rolled at least once"))),
        }
    }

    /// Whether `rollback` has a template to go back to (false for an unknown app).
    pub fn has_previous_revision(&self, name: &str) -> bool {
        self.controller_id(name)
            .map(|id| self.controllers[id.0 as usize].history.len() >= 2)
            .unwrap_or(false)
    }

    /// Changes the rolling-update strategy.
    pub fn set_strategy(&mut self, name: &str, strategy: RollingUpdate) -> Result<(), Error> {
        let id = self.controller_id(name)?;
        strategy.validate(name)?;
        self.controllers[id.0 as usize].strategy = strategy;
        Ok(())
    }

    /// Deletes a Deployment and, cascading, its pods.
    pub fn delete_app(&mut self, name: &str) -> Result<(), Error> {
        let id = self.controller_id(name)?;
        self.delete_owner(id, name);
        Ok(())
    }

    /// Deletes a Deployment or DaemonSet and, cascading, its pods. The
    /// deletion is an API call and the garbage collector deletes the
    /// dependents, neither recording an Event; each running pod's kubelet
    /// logs Killing as it stops it.
    pub(crate) fn delete_owner(&mut self, id: OwnerId, name: &str) {
        let keys: Vec<u32> = self.controllers[id.0 as usize]
            .pods
            .values()
            .copied()
            .collect();
        for k in keys {
            self.delete_pod(k, None);
        }
        let c = &mut self.controllers[id.0 as usize];
        c.deleted = true;
        self.desired_total -= c.replicas as u64;
        c.replicas = 0;
        self.disruption_epoch += 1;
        self.controller_by_name
            .remove(crate::model::namespace::canonical(name));
    }

    /// Finds or appends the revision for `template` and makes it current.
    pub(crate) fn current_revision_for(&mut self, id: OwnerId, template: PodTemplate) {
        let template = self.admit(id, &template);
        let existing = self.controllers[id.0 as usize]
            .revisions
            .iter()
            .position(|r| r.template == template);
        let rev = match existing {
            Some(i) => i as u32 + 1,
            None => self.push_admitted_revision(id, template),
        };
        let c = &mut self.controllers[id.0 as usize];
        c.current = rev;
        c.history.retain(|&r| r != rev);
        c.history.push(rev);
        c.blocked = None;
        self.disruption_epoch += 1;
        self.revision_switched(id, existing.is_none());
    }

    /// Appends a revision for `template` (with what the affinity index
    /// needs) and returns its number; the current revision is unchanged.
    pub(crate) fn push_revision(&mut self, id: OwnerId, template: PodTemplate) -> u32 {
        let admitted = self.admit(id, &template);
        self.push_admitted_revision(id, admitted)
    }

    /// `push_revision` of a template admitted already (`Cluster::admit`).
    pub(crate) fn push_admitted_revision(&mut self, id: OwnerId, template: PodTemplate) -> u32 {
        debug_assert!(
            self.admit(id, &template) == template,
            "an admitted template"
        );
        {
            {
                for k in topology_keys(&template) {
                    if !self.named_keys.contains(k) {
                        self.named_keys.insert(k.into());
                    }
                }
                // The declared template is the admitted one without what
                // admission added, so a revision keeps only the admitted
                // one (`Revision::declared`).
                let declared = crate::model::namespace::strip_template(&template);
                // The hash of the declared template: namespaces do not
                // rename a ReplicaSet.
                let hash = template_hash(&declared);
                let (affinity_ids, anti_ids, preferred_ids, preferred_anti_ids) =
                    self.carried_term_ids(&template);
                let spread_ids = (template.topology_spread.iter())
                    .map(|c| self.term_id(&per_node_term(c.selector.clone())))
                    .collect();
                let mut candidates: Vec<u32> = self.terms_without_labels.clone();
                for (k, v) in &template.labels {
                    if let Some(ts) = self.terms_by_label.get(&label_hash(k, v)) {
                        candidates.extend_from_slice(ts);
                    }
                }
                candidates.sort_unstable();
                candidates.dedup();
                self.term_work += candidates.len() as u64;
                let matching_terms: Vec<u32> = candidates
                    .into_iter()
                    .filter(|&t| self.terms[t as usize].selector.matches(&template.labels))
                    .collect();
                let labels: Vec<u64> = (template.labels.iter())
                    .map(|(k, v)| label_hash(k, v))
                    .collect();
                let added_tolerations = self.added_tolerations(&template.tolerations);
                if self.controllers[id.0 as usize].workload.kind() == WorkloadKind::Deployment {
                    let n = self.deployment_hashes.entry(hash_word(&hash)).or_insert(0);
                    *n += 1;
                    if *n == 2 {
                        self.hash_collisions += 1;
                    }
                }
                if template.labels.contains_key(POD_TEMPLATE_HASH) {
                    self.hash_labelled += 1;
                }
                let c = &mut self.controllers[id.0 as usize];
                // A Deployment holds a revision or a few (one per template
                // it ran, up to its history); a revision is about 800
                // bytes, so the vector grows by one, not by a doubling that
                // would reserve four at the first push.
                c.revisions.reserve_exact(1);
                c.revisions.push(Rc::new(Revision {
                    added_tolerations,
                    template,
                    hash,
                    matching_terms,
                    affinity_ids,
                    anti_ids,
                    preferred_ids,
                    preferred_anti_ids,
                    spread_ids,
                }));
                let r = c.revisions.len() as u32;
                let at = (id.0, r - 1);
                for h in labels {
                    let revisions = self.revisions_by_label.entry(h).or_default();
                    // Two of its labels with one hash: listed once.
                    if revisions.last() != Some(&at) {
                        revisions.push(at);
                    }
                }
                self.all_revisions.push(at);
                r
            }
        }
    }

    /// The terms an admitted template carries, by index (created as
    /// needed): required affinity, required anti-affinity, preferred
    /// affinity and preferred anti-affinity with their weights.
    #[allow(clippy::type_complexity)]
    pub(crate) fn carried_term_ids(
        &mut self,
        template: &PodTemplate,
    ) -> (Vec<u32>, Vec<u32>, Vec<(u32, i32)>, Vec<(u32, i32)>) {
        let mut affinity_ids = Vec::new();
        let mut anti_ids = Vec::new();
        // Kubernetes counts an existing pod toward required affinity
        // only when it matches every term's selector. The admitted
        // selectors carry each term's namespaces, so the terms made of the
        // conjunction have no scope of their own; they share its selector.
        if !template.affinity.is_empty() {
            let all = conjunction(template.affinity.iter().map(|t| &t.selector));
            let mut shared = None;
            for t in &template.affinity {
                affinity_ids.push(self.term_id_of(&all, &t.topology_key, &[], None, &mut shared));
            }
        }
        for t in &template.anti_affinity {
            anti_ids.push(self.term_id(t));
        }
        let mut preferred_ids = Vec::new();
        for w in &template.preferred_affinity {
            preferred_ids.push((self.term_id(&w.term), w.weight));
        }
        let mut preferred_anti_ids = Vec::new();
        for w in &template.preferred_anti_affinity {
            preferred_anti_ids.push((self.term_id(&w.term), w.weight));
        }
        (affinity_ids, anti_ids, preferred_ids, preferred_anti_ids)
    }

    /// The index of a term, creating it (and counting the pods that match it
    /// already) the first time it is seen.
    pub(crate) fn term_id(&mut self, term: &AffinityTerm) -> u32 {
        let t = term;
        let ns_sel = t.namespace_selector.as_ref();
        self.term_id_of(
            &t.selector,
            &t.topology_key,
            &t.namespaces,
            ns_sel,
            &mut None,
        )
    }

    /// `term_id` of the term with these parts; a term it creates takes its
    /// selector from `shared` (made there if `None`).
    fn term_id_of(
        &mut self,
        selector: &Selector,
        topology_key: &str,
        namespaces: &[String],
        namespace_selector: Option<&Selector>,
        shared: &mut Option<Rc<TermSelector>>,
    ) -> u32 {
        self.term_work += 1;
        let hash = term_hash(selector, topology_key, namespaces, namespace_selector);
        let found =
            self.find_term_hashed(selector, topology_key, namespaces, namespace_selector, hash);
        if let Some(i) = found {
            return i;
        }
        let topo = self.topology_id(topology_key);
        let i = self.terms.len() as u32;
        let selector_kept = shared
            .get_or_insert_with(|| Rc::new(TermSelector::of(selector)))
            .clone();
        self.terms.push(TermState {
            selector: selector_kept,
            scope: scope_of(namespaces, namespace_selector),
            topo,
            matching: DomainCounts::default(),
            matching_total: 0,
            owners: DomainCounts::default(),
            owners_total: 0,
            affinity_owners: DomainCounts::default(),
            preferred: DomainCounts::default(),
            carriers: 0,
            score_carriers: 0,
        });
        self.term_index.insert((hash, i));
        let first = (selector.match_labels.iter().next()).map(|(k, v)| label_hash(k, v));
        match first {
            Some(h) => self.terms_by_label.entry(h).or_default().push(i),
            None => self.terms_without_labels.push(i),
        }
        // Existing templates that the selector matches, and their bound pods.
        let candidates: Vec<(u32, u32)> = match first {
            Some(h) => self.revisions_by_label.get(&h).cloned().unwrap_or_default(),
            None => self.all_revisions.clone(),
        };
        self.term_work += candidates.len() as u64;
        for (c, r) in candidates {
            let (c, r) = (c as usize, r as usize);
            {
                if !selector.matches(&self.controllers[c].revisions[r].template.labels) {
                    continue;
                }
                self.term_work += self.controllers[c].pods.len() as u64;
                Rc::make_mut(&mut self.controllers[c].revisions[r])
                    .matching_terms
                    .push(i);
                let bound: Vec<NodeId> = self.controllers[c]
                    .pods
                    .values()
                    .map(|&k| self.pod(k))
                    .filter(|p| p.revision as usize == r + 1)
                    .filter_map(|p| p.node())
                    .collect();
                for n in bound {
                    let d = self.domain(topo, n);
                    let ts = &mut self.terms[i as usize];
                    if let Some(d) = d {
                        ts.matching_total += 1;
                        ts.matching.step(d, true);
                    }
                }
            }
        }
        i
    }

    /// The affinity index's work so far, registering templates and terms:
    /// a lookup for each term a template carries, a new revision's test of
    /// each term its labels could match (those whose selector's first
    /// matchLabels pair it carries, or that have none), and a new term's
    /// test of each revision its first pair reaches (without one, every
    /// revision) with a visit of the pods of those it selects. So a
    /// template costs a lookup a term plus what its terms select, as
    /// Kubernetes' InterPodAffinity matches each pod's terms against the
    /// pods. `tests/memory.rs` counts it (no timed tests).
    pub fn term_index_work(&self) -> u64 {
        self.term_work
    }

    /// The index of a term already seen.
    pub(crate) fn find_term(&self, term: &AffinityTerm) -> Option<u32> {
        let (sel, key, ns) = (&term.selector, &term.topology_key, &term.namespaces);
        let ns_sel = term.namespace_selector.as_ref();
        self.find_term_hashed(sel, key, ns, ns_sel, term_hash(sel, key, ns, ns_sel))
    }

    fn find_term_hashed(
        &self,
        selector: &Selector,
        topology_key: &str,
        namespaces: &[String],
        namespace_selector: Option<&Selector>,
        hash: u64,
    ) -> Option<u32> {
        (self.term_index.range((hash, 0)..=(hash, u32::MAX)))
            .map(|&(_, i)| i)
            .find(|&i| {
                let ts = &self.terms[i as usize];
                self.topologies[ts.topo as usize].key == topology_key
                    && ts.selector.is(selector)
                    && match &ts.scope {
                        None => namespaces.is_empty() && namespace_selector.is_none(),
                        Some(b) => b.0 == namespaces && b.1.as_ref() == namespace_selector,
                    }
            })
    }

    /// Refuses a template that would take the topology keys the cluster's
    /// templates name past [`crate::util::limits::MAX_TOPOLOGY_KEYS`]: before
    /// anything changes, so a refused template leaves nothing behind.
    pub(crate) fn check_topology_keys(&self, app: &str, t: &PodTemplate) -> Result<(), Error> {
        let mut new: Vec<&str> = topology_keys(t)
            .filter(|k| !self.named_keys.contains(*k))
            .collect();
        new.sort_unstable();
        new.dedup();
        let total = self.named_keys.len() + new.len();
        let max = crate::util::limits::MAX_TOPOLOGY_KEYS;
        match new.first() {
            Some(k) if total > max => Err(Error::Invalid(format!(
                "app {app}: the pod template names {} new topology key(s), {} among them, and the cluster's templates would name {total}, more than the limit of {max} (MAX_TOPOLOGY_KEYS: each key holds a domain per node); expected keys the cluster's templates already name",
                new.len(),
                crate::util::limits::quoted(k)
            ))),
            _ => Ok(()),
        }
    }

    pub(crate) fn topology_id(&mut self, key: &str) -> u32 {
        if let Some(i) = self.topologies.iter().position(|t| t.key == key) {
            return i as u32;
        }
        let mut t = Topology {
            key: key.to_string(),
            node_domain: Vec::with_capacity(self.nodes.len()),
            domains: BTreeMap::new(),
        };
        let by_node = self.hostname_is_node();
        for (i, n) in self.nodes.iter().enumerate() {
            let d = if n.removed {
                None
            } else {
                t.domain_for(NodeId(i as u32), &n.spec, by_node)
            };
            t.node_domain.push(d);
        }
        self.topologies.push(t);
        self.topologies.len() as u32 - 1
    }

    /// The domain of node `n` in topology `topo`.
    pub(crate) fn domain(&self, topo: u32, n: NodeId) -> Option<u32> {
        self.topologies[topo as usize].node_domain[n.0 as usize]
    }

    pub(crate) fn refresh_hot(&mut self, id: NodeId) {
        self.node_epoch += 1;
        let stamp = self.restamp(id);
        let i = id.0 as usize;
        let old = self.hot[i];
        let mut h = NodeInfo::of(
            &self.nodes[i],
            self.node_pods[i].len(),
            old.allocated,
            old.nonzero,
        );
        h.stamp = stamp;
        let soft = |h: &NodeInfo| (h.soft_taints && !h.removed) as u32;
        self.soft_tainted = self.soft_tainted - soft(&self.hot[id.0 as usize]) + soft(&h);
        self.hot[id.0 as usize] = h;
        self.spec_stamps[id.0 as usize] = stamp;
    }

    /// Adds (a bind) or takes back (an unbind) pod `k`'s scalar requests
    /// on node `i`; nothing for the common pod that has none.
    #[inline]
    fn book_scalars(&mut self, k: u32, i: usize, add: bool) {
        let t = &self.revision_of(self.pod(k)).template;
        if t.scalar_requests.is_empty() {
            return;
        }
        // No overcommit check here: a profile's ignoredResources leaves a
        // resource unchecked (as in Kubernetes), and `verify` reports it.
        let s = t.scalar_requests.clone();
        if add {
            self.scalar_used[i].add(&s);
        } else {
            self.scalar_used[i].sub(&s);
        }
    }

    /// The scalar resources (extended, ephemeral-storage, hugepages-*) the
    /// pods bound to node `n` request.
    pub fn scalars_requested(&self, n: NodeId) -> &crate::model::scalar::Scalars {
        &self.scalar_used[n.0 as usize]
    }

    /// Node `id`'s packed mirror after a bind or an unbind: its request
    /// sums become `allocated` and `nonzero`, its pods count is read again,
    /// and it gets a new stamp. What the static filters read is unchanged,
    /// so the node's record is not read (outside debug checks).
    fn rebook(&mut self, id: NodeId, allocated: Resources, nonzero: Resources, pods_free: u32) {
        let stamp = self.restamp(id);
        let i = id.0 as usize;
        let h = &mut self.hot[i];
        h.allocated = allocated;
        h.nonzero = nonzero;
        h.pods_free = pods_free;
        h.stamp = stamp;
        debug_assert_eq!(
            self.hot[i],
            NodeInfo {
                stamp,
                ..NodeInfo::of(
                    &self.nodes[i],
                    self.node_pods[i].len()
                        + self.unfiled.iter().filter(|u| u.0 as usize == i).count(),
                    allocated,
                    nonzero
                )
            },
            "a bind or an unbind changes only a node's resource fields"
        );
    }

    /// A stamp no node had before, given to node `id` in its packed copy
    /// (`stamps`) and the caches' journal; the caller sets `hot[id].stamp`.
    fn restamp(&mut self, id: NodeId) -> u64 {
        self.stamp_clock += 1;
        self.stamps[id.0 as usize] = self.stamp_clock;
        self.caches.stamped(id.0, self.stamp_clock);
        self.stamp_clock
    }

    /// Node `id`'s domains after it was added or re-registered, with
    /// `was` what `hostname_is_node` said before: when that changes, every
    /// node's hostname domain is renumbered (`renumber_hostnames`).
    fn refresh_domains(&mut self, id: NodeId, was: bool) {
        let by_node = self.hostname_is_node();
        let spec = &self.nodes[id.0 as usize].spec;
        for t in self.topologies.iter_mut() {
            let d = t.domain_for(id, spec, by_node);
            t.node_domain[id.0 as usize] = d;
        }
        if by_node != was {
            // A re-registering node's pods are out of the counts meanwhile.
            self.renumber_hostnames(Some(id));
        }
    }

    /// Whether every live node carries the `kubernetes.io/hostname` label
    /// with a value of its own: then each node is its own hostname domain,
    /// numbered by its id, and the scheduler's hostname fast paths (a
    /// domain's count is the node's, a bind moves its own node's verdicts
    /// alone) hold. Otherwise the hostname key is a topology like any other.
    pub(crate) fn hostname_is_node(&self) -> bool {
        self.hostnames.each_node_its_own()
    }

    /// Renumbers the hostname topology's domains after `hostname_is_node`
    /// changed (by node id, or by interned label value): every bound pod
    /// leaves the inter-pod counts, the domains are worked out again, and
    /// the pods are counted back. Rare (a node without the label, or with a
    /// second node's value, joins a cluster whose nodes all had their own,
    /// or the last such node leaves), so it may cost every bound pod. The
    /// scheduler's caches, some of which hold hostname domains, are dropped.
    ///
    /// `outside`: a node whose pods are out of the counts now (a node being
    /// added has none; a re-registering one's are taken out meanwhile).
    fn renumber_hostnames(&mut self, outside: Option<NodeId>) {
        self.caches = Default::default();
        let Some(t) = self.topologies.iter().position(|t| t.key == HOSTNAME_KEY) else {
            return;
        };
        let bound: Vec<(u32, NodeId)> = (0..self.nodes.len())
            .filter(|&i| outside != Some(NodeId(i as u32)))
            .flat_map(|i| {
                self.node_pods[i]
                    .iter()
                    .map(move |&k| (k, NodeId(i as u32)))
            })
            .collect();
        for &(k, n) in &bound {
            self.affinity_count(k, n, false);
        }
        let by_node = self.hostname_is_node();
        let topo = &mut self.topologies[t];
        topo.domains.clear();
        for (i, n) in self.nodes.iter().enumerate() {
            topo.node_domain[i] = if n.removed {
                None
            } else {
                topo.domain_for(NodeId(i as u32), &n.spec, by_node)
            };
        }
        for &(k, n) in &bound {
            self.affinity_count(k, n, true);
        }
    }

    // ----- pods ------------------------------------------------------------

    /// Pod `k`'s revision and node (`places`).
    #[inline]
    pub(crate) fn place(&self, k: u32) -> (u32, Option<NodeId>) {
        let v = self.places[k as usize];
        let node = v as u32;
        let place = ((v >> 32) as u32, node.checked_sub(1).map(NodeId));
        debug_assert_eq!(
            place,
            (self.pod(k).revision, self.pod(k).node()),
            "a pod's packed place is its record's"
        );
        place
    }

    pub(crate) fn pod(&self, k: u32) -> &Pod {
        self.pods[k as usize]
            .as_ref()
            .expect("a pod key in an index should name a live pod")
    }

    /// Sets pod `k`'s node and its packed place together (the only writer
    /// of a pod's node after its creation).
    fn set_pod_node(&mut self, k: u32, node: Option<NodeId>) {
        let p = self.pod_mut(k);
        p.node = PodNode::of(node);
        let place = pack_place(p.revision, node);
        self.places[k as usize] = place;
    }

    pub(crate) fn pod_mut(&mut self, k: u32) -> &mut Pod {
        self.pods[k as usize]
            .as_mut()
            .expect("a pod key in an index should name a live pod")
    }

    pub(crate) fn revision_of(&self, p: &Pod) -> &Revision {
        &self.controllers[p.controller.0 as usize].revisions[p.revision as usize - 1]
    }

    /// Creates `n` Pending pods of the controller's current revision.
    pub(crate) fn create_pods(&mut self, id: OwnerId, n: u32) {
        let revision = self.controllers[id.0 as usize].current;
        // One template, one admission for all of them.
        let admitted = self.admitted(id);
        for _ in 0..n {
            self.create_admitted_pod(id, revision, admitted, false);
        }
    }

    /// What the Priority admission plugin gives the controller's new pods.
    /// The caller checked admission (`priority_admits`) before creating.
    fn admitted(&self, id: OwnerId) -> crate::model::priority::Admitted {
        self.admit_priority(id)
            .unwrap_or(crate::model::priority::Admitted {
                priority: 0,
                preempt_never: false,
            })
    }

    /// Creates a Pending pod of one of the controller's revisions; returns its key.
    pub(crate) fn create_pod_of_revision(&mut self, id: OwnerId, revision: u32) -> u32 {
        let admitted = self.admitted(id);
        self.create_admitted_pod(id, revision, admitted, false)
    }

    /// Creates a Pending pod of `revision` that an imported cluster already
    /// runs (`controllers/adopt.rs`): its controller did not create it now,
    /// so no SuccessfulCreate.
    pub(crate) fn create_adopted_pod(&mut self, id: OwnerId, revision: u32) -> u32 {
        let admitted = self.admitted(id);
        self.create_admitted_pod(id, revision, admitted, true)
    }

    fn create_admitted_pod(
        &mut self,
        id: OwnerId,
        revision: u32,
        admitted: crate::model::priority::Admitted,
        adopted: bool,
    ) -> u32 {
        let uid = self.next_uid;
        self.next_uid += 1;
        let c = &mut self.controllers[id.0 as usize];
        let mut ordinal = c.next_ordinal;
        // Past an imported cluster's pods, a generated name that one of
        // them holds is skipped, as the API server refuses a generated
        // name that exists (AlreadyExists) and the controller tries again.
        if !adopted && !c.imported_names.is_empty() {
            while self.imported_name_taken(id, revision, ordinal) {
                ordinal += 1;
            }
        }
        let c = &mut self.controllers[id.0 as usize];
        c.next_ordinal = ordinal + 1;
        let at = tick32(self.now);
        if c.created_runs
            .last()
            .is_none_or(|r| r.revision != revision || r.at != at)
        {
            c.created_runs.push(CreatedRun {
                first: ordinal,
                revision,
                at,
            });
        }
        self.priorities_in_use |= admitted.priority != 0;
        let pod = Pod::pending(uid, id, ordinal, revision, admitted);
        let key = match self.free_keys.pop() {
            Some(k) => {
                self.pods[k as usize] = Some(pod);
                self.places[k as usize] = pack_place(revision, None);
                k
            }
            None => {
                self.pods.push(Some(pod));
                self.places.push(pack_place(revision, None));
                self.pods.len() as u32 - 1
            }
        };
        if !adopted && self.controllers[id.0 as usize].stateful {
            self.name_stateful_pod(id, ordinal);
        }
        let c = &mut self.controllers[id.0 as usize];
        c.pods.insert(ordinal, key);
        c.pending.insert(ordinal);
        c.counts.entry_or_default(revision).pods += 1;
        c.blocked = None;
        self.pending_total += 1;
        // controller_utils.go, CreatePods: the ReplicaSet controller's
        // event on the ReplicaSet, the DaemonSet controller's on the
        // DaemonSet. A bare Pod is its user's API call: no Event; nor
        // is an imported pod, which its controller created long ago.
        if let Some(obj) = self.pod_owner_object(id, revision).filter(|_| !adopted) {
            self.record_fresh_message(
                EventType::Normal,
                Reason::SuccessfulCreate,
                obj,
                Message::CreatedPod(ordinal),
            );
        }
        key
    }

    /// Whether the name `id` would generate for `ordinal` of `revision` is
    /// an imported pod's (`imported_pods`).
    fn imported_name_taken(&self, id: OwnerId, revision: u32, ordinal: u32) -> bool {
        let ctl = &self.controllers[id.0 as usize];
        let prefix = match ctl.workload {
            Workload::Deployment => self.replica_set_name(id, revision),
            Workload::DaemonSet(_) => ctl.name.clone(),
            Workload::Pod(_) => return false,
        };
        let name = crate::util::podname::generated(&prefix, ordinal);
        self.imported_pods.contains_key(name.as_str())
    }

    /// The object a controller's pod events are about: a Deployment's
    /// pod's ReplicaSet (by revision), a DaemonSet; none for a bare Pod.
    pub(crate) fn pod_owner_object(&self, id: OwnerId, revision: u32) -> Option<ObjectRef> {
        match self.controllers[id.0 as usize].workload {
            Workload::Deployment => Some(ObjectRef::ReplicaSet(id, revision)),
            Workload::DaemonSet(_) => Some(ObjectRef::Deployment(id)),
            Workload::Pod(_) => None,
        }
    }

    /// Deletes a pod; logs SuccessfulDelete on its owner when `reason` is
    /// given (its controller deleted it), then, if it was running on a
    /// node whose kubelet is up, the kubelet's Killing as it stops it.
    pub(crate) fn delete_pod(&mut self, k: u32, reason: Option<Reason>) {
        let mut killed_on = None;
        if let Some(n) = self.pod(k).node() {
            let node = &self.nodes[n.0 as usize];
            if node.beating && !node.removed {
                killed_on = Some(n);
            }
            self.unbind(k);
        }
        self.delete_pod_unbound(k, reason, killed_on);
    }

    /// Deletes a pod its kubelet refused (it never ran, or the kubelet
    /// released it): no Killing.
    pub(crate) fn delete_rejected_pod(&mut self, k: u32) {
        if self.pod(k).node().is_some() {
            self.unbind(k);
        }
        self.delete_pod_unbound(k, None, None);
    }

    fn delete_pod_unbound(&mut self, k: u32, reason: Option<Reason>, killed_on: Option<NodeId>) {
        let p = self.pods[k as usize]
            .take()
            .expect("a pod key to delete should name a live pod");
        self.free_keys.push(k);
        self.disruption_epoch += 1;
        if let Some(m) = p.nominated() {
            if let Some(set) = self.nominees.get_mut(&m.0) {
                set.remove(&k);
            }
        }
        let c = &mut self.controllers[p.controller.0 as usize];
        c.pods.remove(p.ordinal);
        if c.pending.remove(&p.ordinal) {
            self.pending_total -= 1;
        }
        if let Some(cnt) = c.counts.get_mut(&p.revision) {
            cnt.pods -= 1;
            if cnt.pods == 0 {
                c.counts.remove(&p.revision);
            }
        }
        if let Some(r) = reason {
            let obj = match self.pod_owner_object(p.controller, p.revision) {
                Some(o) if r == Reason::SuccessfulDelete => o,
                _ => ObjectRef::Pod(p.controller, p.ordinal),
            };
            // A pod is deleted once: its name is a fresh message.
            self.record_fresh_message(EventType::Normal, r, obj, Message::DeletedPod(p.ordinal));
        }
        if let Some(n) = killed_on {
            // kuberuntime_container.go, killContainer: "Stopping container
            // NAME", once per pod (a pod is deleted once).
            self.record_fresh_message(
                EventType::Normal,
                Reason::Killing,
                ObjectRef::Pod(p.controller, p.ordinal),
                Message::StoppingContainer(n),
            );
        }
    }

    /// Binds a pending pod. The caller (the scheduler) has checked every filter.
    pub(crate) fn bind(&mut self, k: u32, n: NodeId) {
        self.bind_to(k, n, false, true);
    }

    /// Binds a pod created with spec.nodeName, which no scheduler binds
    /// (its kubelet admitted it): no Scheduled event.
    pub(crate) fn bind_by_node_name(&mut self, k: u32, n: NodeId) {
        self.bind_to(k, n, false, false);
    }

    /// `bind`, leaving the pod out of its node's list until `file_pods`
    /// (see `unfiled`): for the scheduler's cycles, which read no list.
    pub(crate) fn bind_unfiled(&mut self, k: u32, n: NodeId) {
        self.bind_to(k, n, true, true);
    }

    /// Puts the pods bound by `bind_unfiled` into their nodes' lists, in
    /// bind order (each list as `bind` would have left it).
    pub(crate) fn file_pods(&mut self) {
        let mut unfiled = core::mem::take(&mut self.unfiled);
        for &(i, k) in &unfiled {
            let slot = list_pod(&mut self.node_pods[i as usize], k);
            self.pod_mut(k).node_slot = slot;
        }
        unfiled.clear();
        self.unfiled = unfiled;
    }

    fn bind_to(&mut self, k: u32, n: NodeId, unfiled: bool, scheduled: bool) {
        let now = self.now;
        let (c, o, rev, req, non_zero, ready_after, scalars, ports) = {
            let p = self.pod(k);
            let r = self.revision_of(p);
            (
                p.controller,
                p.ordinal,
                p.revision,
                r.template.requests,
                r.template.non_zero(),
                r.template.ready_after,
                !r.template.scalar_requests.is_empty(),
                !r.template.host_ports.is_empty(),
            )
        };
        // The node's record is not touched (see `NodeInfo`).
        let i = n.0 as usize;
        let h = self.hot[i];
        let allocated = h.allocated.saturating_add(&req);
        // A pod bound by nodeName was admitted by its kubelet, or ran there
        // when its cluster was imported (which may overcommit a node that
        // shrank: kept and reported, never moved).
        debug_assert!(
            !scheduled || allocated.fits_in(&h.capacity),
            "a bind must never overcommit a node"
        );
        // A pod's place in its node's list (set when it is filed).
        let mut slot = u32::MAX;
        if unfiled {
            self.unfiled.push((i as u32, k));
        } else {
            debug_assert!(self.unfiled.is_empty(), "a list is filed in bind order");
            slot = list_pod(&mut self.node_pods[i], k);
        }
        self.rebook(
            n,
            allocated,
            h.nonzero.saturating_add(&non_zero),
            h.pods_free.saturating_sub(1),
        );
        if scalars {
            self.book_scalars(k, i, true);
        }
        if ports {
            self.book_host_ports(k, i, true);
        }
        let uid = {
            self.set_pod_node(k, Some(n));
            let p = self.pod_mut(k);
            p.node_slot = slot;
            p.phase = PodPhase::Running;
            p.set_bound_at(now);
            let nominated = p.set_nominated(None);
            let uid = p.uid;
            if let Some(m) = nominated {
                if let Some(set) = self.nominees.get_mut(&m.0) {
                    set.remove(&k);
                }
            }
            uid
        };
        self.affinity_count(k, n, true);
        let ctl = &mut self.controllers[c.0 as usize];
        ctl.pending.remove(&o);
        ctl.counts.entry_or_default(rev).bound += 1;
        self.pending_total -= 1;
        self.bound_total += 1;
        self.bind_epoch += 1;
        self.pod_mut(k).bind_serial = self.bind_epoch;
        // A pod is bound once (a working copy's unbind aside): its Scheduled
        // event is its first and last, which no correlator key can match.
        let (t, r, o, m) = (
            EventType::Normal,
            Reason::Scheduled,
            ObjectRef::Pod(c, o),
            Message::Assigned(n),
        );
        if scheduled {
            if self.watched.is_some() {
                let e = self.render_event(&EventRecord::new(self.now, t, r, o, m));
                if let Some(w) = &mut self.watched {
                    w.push(e);
                }
            }
            self.events
                .observe_fresh(crate::cluster::events::Packed::new(t, r, o, m), self.now);
        }
        // A schedulable node is Ready; only a bare Pod bound by nodeName
        // lands on a NotReady one, whose kubelet never reports it Ready.
        if ready_after == 0 && (self.hot[i].schedulable || self.nodes[i].ready) {
            self.set_ready(k);
        } else {
            self.ready_queue
                .entry(now.saturating_add(ready_after as u64))
                .or_default()
                .push((k, uid));
        }
        // A node without NoSchedule or NoExecute taints (the packed record
        // says so) has no NoExecute one: its taints are not read.
        // A schedulable node is ready: its record is read only otherwise.
        let h = &self.hot[i];
        if (!h.schedulable && !self.nodes[i].ready)
            || (h.hard_taints
                && self.nodes[i]
                    .spec
                    .taints
                    .iter()
                    .any(|t| t.effect == TaintEffect::NoExecute))
        {
            self.start_taint_timer(k, n);
        }
    }

    /// Takes a bound pod off its node, freeing its requests. The pod stays,
    /// unbound and not ready; the caller decides its fate.
    pub(crate) fn unbind(&mut self, k: u32) {
        let (n, slot, c, rev, ready, available) = {
            let p = self.pod(k);
            (
                p.node().expect("unbind needs a bound pod"),
                p.node_slot,
                p.controller,
                p.revision,
                p.ready,
                p.available,
            )
        };
        let (req, non_zero, scalars, ports) = {
            let t = &self.revision_of(self.pod(k)).template;
            (
                t.requests,
                t.non_zero(),
                !t.scalar_requests.is_empty(),
                !t.host_ports.is_empty(),
            )
        };
        self.affinity_count(k, n, false);
        let on = &mut self.node_pods[n.0 as usize];
        let last = on.len() as u32 - 1;
        on.swap_remove(slot as usize);
        if slot != last {
            let moved = on[slot as usize];
            self.pod_mut(moved).node_slot = slot;
        }
        let h = self.hot[n.0 as usize];
        let pods_free = self.nodes[n.0 as usize]
            .spec
            .max_pods
            .saturating_sub(self.node_pods[n.0 as usize].len() as u32);
        self.rebook(
            n,
            h.allocated.saturating_sub(&req),
            h.nonzero.saturating_sub(&non_zero),
            pods_free,
        );
        if scalars {
            self.book_scalars(k, n.0 as usize, false);
        }
        if ports {
            self.book_host_ports(k, n.0 as usize, false);
        }
        self.set_pod_node(k, None);
        let p = self.pod_mut(k);
        p.ready = false;
        p.available = false;
        p.set_taint_deadline(None);
        let ctl = &mut self.controllers[c.0 as usize];
        if let Some(cnt) = ctl.counts.get_mut(&rev) {
            cnt.bound -= 1;
            if ready {
                cnt.ready -= 1;
            }
            if available {
                cnt.available -= 1;
            }
        }
        if ready {
            self.endpoint_moved(k, false);
        }
        self.bound_total -= 1;
        self.capacity_epoch += 1;
        self.disruption_epoch += 1;
    }

    /// The pod's Ready condition turns False while it stays bound (its node
    /// went NotReady).
    pub(crate) fn set_not_ready(&mut self, k: u32) {
        let (c, rev, was_available) = {
            let p = self.pod_mut(k);
            if !p.ready {
                return;
            }
            p.ready = false;
            // Available means Ready for minReadySeconds: no longer either.
            let was_available = core::mem::replace(&mut p.available, false);
            (p.controller, p.revision, was_available)
        };
        if let Some(cnt) = self.controllers[c.0 as usize].counts.get_mut(&rev) {
            cnt.ready -= 1;
            if was_available {
                cnt.available -= 1;
            }
        }
        self.disruption_epoch += 1;
        self.endpoint_moved(k, false);
    }

    pub(crate) fn set_ready(&mut self, k: u32) {
        let now = self.now;
        if !self.held_unready.is_empty() && self.held_unready.contains(&self.pod(k).uid) {
            return;
        }
        let (c, rev, uid) = {
            let p = self.pod_mut(k);
            if p.ready || p.node().is_none() {
                return;
            }
            p.ready = true;
            p.set_ready_at(now);
            (p.controller, p.revision, p.uid)
        };
        let ctl = &mut self.controllers[c.0 as usize];
        ctl.counts.entry_or_default(rev).ready += 1;
        let min_ready = ctl.min_ready_seconds;
        self.disruption_epoch += 1;
        self.endpoint_moved(k, true);
        if min_ready == 0 {
            self.set_available(k);
        } else {
            self.available_queue
                .entry(now.saturating_add(min_ready as u64))
                .or_default()
                .push((k, uid));
        }
    }

    /// Adds or removes a bound pod from the inter-pod affinity counts.
    pub(crate) fn affinity_count(&mut self, k: u32, n: NodeId, add: bool) {
        let (c, rev) = {
            let p = self.pod(k);
            (p.controller, p.revision)
        };
        // The revision's term lists are read in place while the terms'
        // counts change (other fields of the cluster), not copied per bind.
        let r = &self.controllers[c.0 as usize].revisions[rev as usize - 1];
        if r.matching_terms.is_empty() && !r.carries_terms() {
            return;
        }
        let (terms, topologies) = (&mut self.terms, &self.topologies);
        let domain = |topo: u32| topologies[topo as usize].node_domain[n.0 as usize];
        let step = |v: &mut u32| {
            if add {
                *v += 1;
            } else {
                *v -= 1;
            }
        };
        for &t in &r.matching_terms {
            let ts = &mut terms[t as usize];
            if let Some(d) = domain(ts.topo) {
                step(&mut ts.matching_total);
                ts.matching.step(d, add);
            }
        }
        let preferred = r
            .preferred_ids
            .iter()
            .map(|&(t, w)| (t, w as i64))
            .chain(r.preferred_anti_ids.iter().map(|&(t, w)| (t, -(w as i64))));
        for &t in r.anti_ids.iter().chain(&r.affinity_ids) {
            step(&mut terms[t as usize].carriers);
        }
        for (t, _) in preferred.clone() {
            step(&mut terms[t as usize].carriers);
        }
        for t in r
            .affinity_ids
            .iter()
            .copied()
            .chain(preferred.clone().map(|(t, _)| t))
        {
            step(&mut terms[t as usize].score_carriers);
        }
        for &t in &r.anti_ids {
            let ts = &mut terms[t as usize];
            if let Some(d) = domain(ts.topo) {
                step(&mut ts.owners_total);
                ts.owners.step(d, add);
            }
        }
        for &t in &r.affinity_ids {
            let ts = &mut terms[t as usize];
            if let Some(d) = domain(ts.topo) {
                ts.affinity_owners.step(d, add);
            }
        }
        for (t, w) in preferred {
            let ts = &mut terms[t as usize];
            if let Some(d) = domain(ts.topo) {
                ts.preferred.add(d, if add { w } else { -w });
            }
        }
    }

    /// Promotes the pods whose readiness delay has passed. Costs only the
    /// pods that become Ready.
    pub(crate) fn promote_ready(&mut self) -> u32 {
        let mut n = 0;
        while let Some((&tick, _)) = self.ready_queue.first_key_value() {
            if tick > self.now {
                break;
            }
            let due = self
                .ready_queue
                .pop_first()
                .map(|(_, v)| v)
                .unwrap_or_default();
            for &(k, uid) in due.iter() {
                // The pod may have been deleted (and its key reused) since.
                // A pod on a NotReady node is not Ready: the kubelet cannot say
                // it is; the node's recovery queues it again.
                let live = matches!(&self.pods.get(k as usize), Some(Some(p)) if p.uid == uid
                    && p.node().is_some_and(|n| self.nodes[n.0 as usize].ready));
                if live && !self.pod(k).ready {
                    self.set_ready(k);
                    n += 1;
                }
            }
        }
        n
    }
}

fn fresh_node(spec: NodeSpec) -> NodeState {
    NodeState {
        spec,
        ready: true,
        beating: true,
        last_heartbeat: 0,
        cordoned: false,
        drain: None,
        drain_status: None,
        changed_at_bind: 0,
        removed: false,
    }
}

/// Refuses a total of desired replicas beyond [`crate::util::limits::MAX_PODS`].
pub(crate) fn check_pod_limit(app: &str, total: u64) -> Result<(), Error> {
    let max = crate::util::limits::MAX_PODS;
    if total > max {
        return Err(Error::Invalid(format!(
            "app {app}: the Deployments would desire {total} pods in all, more than the limit of {max} (MAX_PODS, twice Kubernetes' supported 150,000); expected fewer replicas"
        )));
    }
    Ok(())
}

/// The topology keys a template names: its inter-pod terms' and its
/// spread constraints'.
fn topology_keys(t: &PodTemplate) -> impl Iterator<Item = &str> {
    let terms = (t.affinity.iter().chain(&t.anti_affinity))
        .chain(t.preferred_affinity.iter().map(|w| &w.term))
        .chain(t.preferred_anti_affinity.iter().map(|w| &w.term));
    terms
        .map(|t| t.topology_key.as_str())
        .chain(t.topology_spread.iter().map(|c| c.topology_key.as_str()))
}

/// FNV-1a over what `Hash` writes: no key, so the same on every run. Only
/// lookups read it (`Cluster::term_index`, the label indexes), never an order or a name, so
/// that it differs between 32- and 64-bit targets (`usize` lengths)
/// changes nothing that is shown.
struct Fnv(u64);

impl core::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The hash of a label pair (`Cluster::terms_by_label`).
pub(crate) fn label_hash(key: &str, value: &str) -> u64 {
    use core::hash::{Hash, Hasher};
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    key.hash(&mut h);
    value.hash(&mut h);
    h.finish()
}

/// The hash of a term's parts (`Cluster::term_index`).
fn term_hash(
    selector: &Selector,
    topology_key: &str,
    namespaces: &[String],
    namespace_selector: Option<&Selector>,
) -> u64 {
    use core::hash::{Hash, Hasher};
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    selector.hash(&mut h);
    topology_key.hash(&mut h);
    namespaces.hash(&mut h);
    namespace_selector.hash(&mut h);
    h.finish()
}

/// A pod-template-hash as one word: equal hashes, equal words. The
/// engine's hashes are 8 characters, taken as they are; an imported one
/// (Kubernetes' are up to 10) is folded by FNV-1a, where two unequal
/// hashes sharing a word only count as a collision (the slower, exact path).
pub(crate) fn hash_word(hash: &str) -> u64 {
    if hash.len() == 8 {
        let mut w = [0u8; 8];
        for (d, s) in w.iter_mut().zip(hash.bytes()) {
            *d = s;
        }
        return u64::from_le_bytes(w);
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in hash.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A stable short hash of a template (FNV-1a over its debug form), as
/// Kubernetes names ReplicaSets `deployment-<pod-template-hash>`.
fn template_hash(t: &PodTemplate) -> String {
    // A template without a priorityClassName or scored requests of its own
    // hashes as it did before those fields existed (they are the last
    // fields, in that order), so ReplicaSet names stay put.
    // Likewise a template without scalar requests, and one without host
    // ports (the last field).
    const SUFFIX: &[u8] =
        b", priority_class_name: None, non_zero_requests: None, scalar_requests: {} }";
    const HOST: &[u8] = b", host_ports: [] }";
    /// The tail kept back: the longest suffix cut.
    const KEPT: usize = SUFFIX.len() + HOST.len();
    const SCORED: &[u8] = b", non_zero_requests: None, scalar_requests: {} }";
    const SCALAR: &[u8] = b", scalar_requests: {} }";
    /// FNV-1a over the text written, but its last `SUFFIX.len()` bytes
    /// (kept in `tail`): the debug form is hashed as it is written, not
    /// made into a string first (a template of 1,024 entries writes 100 KB).
    struct Writer {
        h: u64,
        tail: Vec<u8>,
    }
    fn fnv(h: &mut u64, bytes: &[u8]) {
        for &b in bytes {
            *h ^= b as u64;
            *h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    impl core::fmt::Write for Writer {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.tail.extend_from_slice(s.as_bytes());
            if self.tail.len() >= 4 * KEPT {
                let cut = self.tail.len() - KEPT;
                fnv(&mut self.h, &self.tail[..cut]);
                self.tail.drain(..cut);
            }
            Ok(())
        }
    }
    let mut w = Writer {
        h: 0xcbf2_9ce4_8422_2325,
        tail: Vec::with_capacity(8 * KEPT),
    };
    // Writing to a Writer cannot fail. (Spread constraints at the default
    // inclusion policies write none: see `TopologySpreadConstraint`'s Debug.)
    let _ = core::fmt::write(&mut w, format_args!("{t:?}"));
    if let Some(cut) = w.tail.strip_suffix(HOST) {
        let end = cut.len();
        w.tail.truncate(end);
        w.tail.extend_from_slice(b" }");
    }
    let cut = w
        .tail
        .strip_suffix(SUFFIX)
        .or_else(|| w.tail.strip_suffix(SCORED))
        .or_else(|| w.tail.strip_suffix(SCALAR));
    match cut {
        Some(cut) => {
            fnv(&mut w.h, cut);
            fnv(&mut w.h, b" }");
        }
        None => fnv(&mut w.h, &w.tail),
    }
    let mut h = w.h;
    // Kubernetes' safe alphabet: no vowels, no look-alikes.
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut s = String::new();
    for _ in 0..8 {
        s.push(ALPHABET[(h % ALPHABET.len() as u64) as usize] as char);
        h /= ALPHABET.len() as u64;
    }
    s
}

impl NodeSpec {
    pub(crate) fn labels_match(&self, selector: &Labels) -> bool {
        selector.iter().all(|(k, v)| self.labels.get(k) == Some(v))
    }
}

/// One selector that matches exactly what every given selector matches:
/// matchLabels merged (a key asked for two values matches nothing, kept as
/// an In requirement on an empty set is not allowed, so as two In
/// requirements that cannot both hold) and matchExpressions concatenated.
pub(crate) fn conjunction<'a>(selectors: impl Iterator<Item = &'a Selector>) -> Selector {
    let mut out = Selector::default();
    for sel in selectors {
        for (k, v) in &sel.match_labels {
            match out.match_labels.get(k) {
                Some(old) if old != v => out.match_expressions.push(LabelSelectorRequirement {
                    key: k.clone(),
                    operator: SelectorOperator::In,
                    values: alloc::vec![v.clone()],
                }),
                _ => {
                    out.match_labels.insert(k.clone(), v.clone());
                }
            }
        }
        out.match_expressions
            .extend(sel.match_expressions.iter().cloned());
    }
    out
}

/// A pod's revision and node in 8 bytes (`Cluster::places`): the revision
/// high, the node's id plus one low (0: not bound).
#[inline]
pub(crate) fn pack_place(revision: u32, node: Option<NodeId>) -> u64 {
    (revision as u64) << 32 | node.map_or(0, |n| n.0 as u64 + 1)
}

#[cfg(test)]
mod template_hash_tests {
    use super::*;
    use crate::model::quantity::MIB;

    /// The hash as it was made: of the debug form as a string.
    fn hash_of_text(t: &PodTemplate) -> String {
        let mut text = format!("{:?}", t);
        if let Some(cut) = text.strip_suffix(", host_ports: [] }") {
            text = format!("{cut} }}");
        }
        if let Some(cut) = text.strip_suffix(", scalar_requests: {} }") {
            text = format!("{cut} }}");
        }
        if let Some(cut) = text.strip_suffix(", non_zero_requests: None }") {
            text = format!("{cut} }}");
        }
        if let Some(cut) = text.strip_suffix(", priority_class_name: None }") {
            text = format!("{cut} }}");
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..8)
            .map(|_| {
                let c = ALPHABET[(h % ALPHABET.len() as u64) as usize] as char;
                h /= ALPHABET.len() as u64;
                c
            })
            .collect()
    }

    /// Hashed as it is written, a template names its ReplicaSet as its
    /// debug form did: small and large, with and without a priority class
    /// and scored requests of its own.
    #[test]
    fn the_streamed_hash_is_the_hash_of_the_text() {
        let mut t = PodTemplate::new(Resources::new(100, 128 * MIB));
        for i in 0..40 {
            assert_eq!(template_hash(&t), hash_of_text(&t), "{i} labels");
            let named = t.clone().with_priority_class("high");
            assert_eq!(template_hash(&named), hash_of_text(&named), "{i} labels");
            let scored = named
                .clone()
                .with_scored_requests(named.requests, Resources::new(300, 128 * MIB));
            assert!(scored.non_zero_requests.is_some());
            assert_eq!(template_hash(&scored), hash_of_text(&scored), "{i} labels");
            assert_ne!(template_hash(&scored), template_hash(&named));
            let gpu = scored.clone().with_scalar("nvidia.com/gpu", 1);
            assert_eq!(template_hash(&gpu), hash_of_text(&gpu), "{i} labels");
            assert_ne!(template_hash(&gpu), template_hash(&scored));
            t = t.with_label(&format!("k{i}"), &"v".repeat(i));
        }
    }
}

#[cfg(test)]
mod pod_record_tests {
    use super::*;
    use crate::model::quantity::MIB;

    fn pod() -> Pod {
        let admitted = crate::model::priority::Admitted {
            priority: 0,
            preempt_never: false,
        };
        Pod::pending(1, OwnerId(0), 0, 1, admitted)
    }

    #[test]
    fn a_pods_compact_fields_read_back_what_was_set() {
        for n in [None, Some(NodeId(0)), Some(NodeId(1)), Some(NodeId(9_999))] {
            assert_eq!(PodNode::of(n).get(), n);
        }
        let mut p = pod();
        assert_eq!(
            (p.node(), p.taint_deadline(), p.nominated(), p.reported()),
            (None, None, None, 0)
        );
        // Ticks: every tick a script reaches, and a tick past 32 bits
        // read as the last one kept.
        for t in [
            0,
            1,
            crate::util::limits::MAX_TICK,
            2 * crate::util::limits::MAX_TICK,
        ] {
            p.set_bound_at(t);
            p.set_ready_at(t + 1);
            p.set_taint_deadline(Some(t));
            assert_eq!(
                (p.bound_at(), p.ready_at(), p.taint_deadline()),
                (t, t + 1, Some(t))
            );
        }
        p.set_bound_at(u64::MAX);
        p.set_taint_deadline(Some(u64::MAX));
        assert_eq!(p.bound_at(), TICK32_MAX as u64);
        assert_eq!(p.taint_deadline(), Some(TICK32_MAX as u64));
        p.set_taint_deadline(None);
        assert_eq!(p.taint_deadline(), None);
        // The rare fields: no allocation until one is set; a nomination
        // replaced returns the one before.
        p.set_reported(0);
        assert!(p.extra.is_none());
        assert_eq!(p.set_nominated(None), None);
        assert!(p.extra.is_none());
        assert_eq!(p.set_nominated(Some(NodeId(3))), None);
        assert_eq!(p.set_nominated(Some(NodeId(4))), Some(NodeId(3)));
        assert_eq!(p.nominated(), Some(NodeId(4)));
        p.set_reported(7);
        assert_eq!((p.reported(), p.nominated()), (7, Some(NodeId(4))));
        assert_eq!(p.set_nominated(None), Some(NodeId(4)));
        assert_eq!(
            (p.reported(), p.nominated(), p.preemption()),
            (7, None, None)
        );
    }

    /// `hostname_is_node` follows nodes added, removed and re-registered
    /// with labels of their own, shared or missing; the hostname topology's
    /// domains are then the nodes, or the label's values; the inter-pod
    /// counts over it follow every renumbering (checked against a recount
    /// from the pods), and binds in either numbering count the same pods.
    #[test]
    fn hostname_domains_follow_the_labels_as_nodes_come_and_go() {
        use crate::model::{AffinityTerm, DeploymentSpec, Selector};
        let ops = crate::fuzz_ops(300);
        let mut rng = crate::util::prng::Prng::new(43);
        let mut c = Cluster::new();
        // A term over the hostname key, so its topology exists and counts.
        c.deploy(
            DeploymentSpec::new("web", 6, Resources::new(10, 10 * MIB)).with_template(|t| {
                t.with_preferred_anti_affinity(
                    1,
                    AffinityTerm::new(Selector::new(&[("app", "web")]), None),
                )
            }),
        )
        .unwrap();
        let names = ["a", "b", "c", "d", "e"];
        for step in 0..ops {
            let name = names[rng.below(names.len() as u64) as usize];
            let mut spec = NodeSpec::new(name, 1000, 1000 * MIB);
            match rng.below(4) {
                0 => {
                    spec.labels.remove(HOSTNAME_KEY);
                }
                1 => {
                    spec.labels.insert(HOSTNAME_KEY.into(), "shared".into());
                }
                _ => {}
            }
            let live = c.node_id(name).is_ok();
            match (live, rng.below(3)) {
                (false, _) => {
                    c.add_node(spec).unwrap();
                }
                (true, 0) => c.remove_node(name).unwrap(),
                (true, _) => {
                    c.reregister_node(spec).unwrap();
                }
            }
            c.reconcile_to_fixed_point(crate::scheduler::Profile::kube_scheduler());
            // The flag, from scratch.
            let live: Vec<&NodeState> = c.nodes.iter().filter(|n| !n.removed).collect();
            let values: Vec<Option<&String>> = live
                .iter()
                .map(|n| n.spec.labels.get(HOSTNAME_KEY))
                .collect();
            let mut distinct = values.iter().flatten().collect::<Vec<_>>();
            distinct.sort();
            distinct.dedup();
            let own = values.iter().all(|v| v.is_some()) && distinct.len() == values.len();
            assert_eq!(c.hostname_is_node(), own, "step {step}: {values:?}");
            // Domains: same value, same domain; no label, none.
            let t = c
                .topologies
                .iter()
                .position(|t| t.key == HOSTNAME_KEY)
                .unwrap();
            let ids: Vec<usize> = (0..c.nodes.len())
                .filter(|&i| !c.nodes[i].removed)
                .collect();
            for &i in &ids {
                for &j in &ids {
                    let (di, dj) = (
                        c.domain(t as u32, NodeId(i as u32)),
                        c.domain(t as u32, NodeId(j as u32)),
                    );
                    let (li, lj) = (
                        c.nodes[i].spec.labels.get(HOSTNAME_KEY),
                        c.nodes[j].spec.labels.get(HOSTNAME_KEY),
                    );
                    assert_eq!(di.is_some(), li.is_some(), "step {step}");
                    if di.is_some() && dj.is_some() {
                        assert_eq!(di == dj, li == lj, "step {step}");
                    }
                }
            }
            // The term's counts, from the pods.
            let term = c
                .terms
                .iter()
                .find(|ts| c.topologies[ts.topo as usize].key == HOSTNAME_KEY)
                .unwrap();
            let mut want: BTreeMap<u32, u32> = BTreeMap::new();
            for &i in &ids {
                if let Some(d) = c.domain(t as u32, NodeId(i as u32)) {
                    *want.entry(d).or_default() += c.node_pods[i].len() as u32;
                }
            }
            for (d, n) in want {
                assert_eq!(term.matching_in(d), n, "step {step}: domain {d}");
            }
        }
    }

    /// ReplicaSet names of templates with spread constraints under the
    /// default inclusion policies are what they were before the policies
    /// were simulated (the hashes as the engine gave them then).
    #[test]
    fn spread_policies_at_their_defaults_keep_the_template_hash() {
        use crate::model::{PodTemplate, Selector, TopologySpreadConstraint, WhenUnsatisfiable};
        let t = PodTemplate::new(Resources::new(100, 128 * MIB))
            .with_label("app", "web")
            .with_topology_spread(TopologySpreadConstraint::new(
                1,
                "topology.kubernetes.io/zone",
                WhenUnsatisfiable::DoNotSchedule,
                Selector::new(&[("app", "web")]),
            ));
        assert_eq!(template_hash(&t), "k8g7v9wx");
        let t2 = PodTemplate::new(Resources::new(100, 128 * MIB))
            .with_label("app", "web")
            .with_topology_spread(TopologySpreadConstraint::new(
                2,
                HOSTNAME_KEY,
                WhenUnsatisfiable::ScheduleAnyway,
                Selector::new(&[("app", "web")]),
            ));
        assert_eq!(template_hash(&t2), "f5vlkspv");
        // Another policy is another template.
        let mut t3 = t.clone();
        t3.topology_spread[0].node_taints_policy = crate::model::NodeInclusionPolicy::Honor;
        assert_ne!(template_hash(&t3), template_hash(&t));
    }
}
