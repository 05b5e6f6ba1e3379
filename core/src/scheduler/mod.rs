//! The scheduling framework, shaped as kube-scheduler's: for each pending pod
//! a cycle runs filter → score → normalise → weigh → select → bind under a
//! [`Profile`] (which plugins, which weights, which arguments).
//!
//! The cycle follows kube-scheduler step by step:
//! - **Filter**, in the profile's plugin order (a node that is not Ready
//!   is rejected by TaintToleration for its `unreachable` taints, as the
//!   node lifecycle controller taints it), over the nodes starting where the
//!   previous cycle stopped, until `numFeasibleNodesToFind` feasible nodes are
//!   found (percentageOfNodesToScore) or every node was visited.
//! - A single feasible node is chosen without scoring, as kube-scheduler does.
//! - **Score**: each enabled score plugin gives every feasible node a raw
//!   score, **normalises** it (each plugin its own way), and the framework
//!   **weighs** it (score x weight) and sums.
//! - **Select**: the highest total; equal totals are settled uniformly at
//!   random from the cluster's seeded PRNG (reservoir sampling, as
//!   kube-scheduler's selectHost), or by the lowest node id.
//!
//! The speed lives here, never in the plugins: pods of one Deployment
//! revision are identical, so a batch shares its pre-filter and pre-score
//! state (spread counts, static verdicts) and keeps it up to date bind by
//! bind. When every score of a batch depends on its node alone and the
//! profile scores every node with lowest-id ties (the teaching profiles),
//! the batch is scheduled from one scan into a heap and each bind re-scores
//! only its node, which chooses exactly what the cycle would.

pub(crate) mod cache;
pub mod fast;
pub(crate) mod pinned;
pub mod plugins;
mod preemption;
pub mod profile;
mod sample_index;

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BinaryHeap};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::cluster::{Cluster, ControllerId, HotNode, NodeId, Revision};
use crate::events::{EventType, Message, ObjectRef, Reason};
use crate::model::NodeInclusionPolicy::{self, Honor, Ignore};
use crate::model::{Resources, WhenUnsatisfiable, HOSTNAME_KEY};
use plugins::{
    inter_pod_affinity as ipa, node_affinity, node_resources_balanced_allocation as balanced,
    node_resources_fit as fit, node_unschedulable, pod_topology_spread as spread, taint_toleration,
};
pub use fast::FastPaths;
pub(crate) use preemption::PreemptionRecord;
pub use preemption::{
    candidates_wanted, record_bytes_bound, Preemption, PreemptionCandidate, PreemptionTrace,
    KEPT_CANDIDATES, KEPT_VICTIMS, MIN_CANDIDATE_NODES_ABSOLUTE, MIN_CANDIDATE_NODES_PERCENTAGE,
    PICK_RULES,
};
pub use profile::{
    Plugin, Profile, Resource, ScoringStrategy, ScoringStrategyType, TieBreak,
    UtilizationShapePoint,
};

/// Called after every single bind with the cluster, the pod and its node:
/// how the gate checks invariants bind by bind.
pub type OnBind<'a> = dyn FnMut(&Cluster, &str, NodeId) + 'a;

/// A plugin's status code, as kube-scheduler's framework names them
/// (`framework/interface.go`: Success, Error, Unschedulable,
/// UnschedulableAndUnresolvable, Wait, Skip, Pending); the engine's plugins
/// return these four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Success,
    /// The node may take the pod once pods leave it: DefaultPreemption
    /// considers it.
    Unschedulable,
    /// Removing pods cannot help (a label, a taint, a size the node does not
    /// have): DefaultPreemption passes the node by.
    UnschedulableAndUnresolvable,
    /// A PreScore that has nothing to score for this pod: the framework
    /// leaves the plugin out of Score, NormalizeScore and the totals.
    Skip,
}

impl Code {
    /// The name kube-scheduler prints (`Code.String()`).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Skip => "Skip",
        }
    }
}

/// Why a filter rejected a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfit {
    Unschedulable,
    NodeAffinity,
    /// An untolerated NoSchedule or NoExecute taint (the first, in the
    /// node's order). Kubernetes' reason does not name it; [`Unfit::detail`]
    /// does.
    Taint(crate::model::Taint),
    Insufficient {
        cpu: bool,
        memory: bool,
        pods: bool,
        /// The pod asks for more cpu or memory than the node has allocatable
        /// at all (NodeResourcesFit's `InsufficientResource.Unresolvable`).
        unresolvable: bool,
    },
    SpreadMissingLabel,
    SpreadSkew,
    PodAffinity,
    PodAntiAffinity,
    ExistingAntiAffinity,
}

impl Unfit {
    /// The reasons as Kubernetes words them in a FailedScheduling message.
    pub fn reasons(&self) -> Vec<String> {
        let one = |s: &str| vec![s.to_string()];
        match self {
            Unfit::Unschedulable => one(node_unschedulable::REASON),
            Unfit::NodeAffinity => one(node_affinity::REASON),
            Unfit::Taint(_) => one(taint_toleration::REASON),
            Unfit::Insufficient {
                cpu, memory, pods, ..
            } => {
                let mut v = Vec::new();
                if *pods {
                    v.push(fit::TOO_MANY_PODS.to_string());
                }
                if *cpu {
                    v.push("Insufficient cpu".to_string());
                }
                if *memory {
                    v.push("Insufficient memory".to_string());
                }
                v
            }
            Unfit::SpreadMissingLabel => one(spread::REASON_MISSING_LABEL),
            Unfit::SpreadSkew => one(spread::REASON_SKEW),
            Unfit::PodAffinity => one(ipa::REASON_AFFINITY),
            Unfit::PodAntiAffinity => one(ipa::REASON_ANTI_AFFINITY),
            Unfit::ExistingAntiAffinity => one(ipa::REASON_EXISTING_ANTI_AFFINITY),
        }
    }

    /// The status code the rejecting plugin's Filter returns with this
    /// reason, as in Kubernetes v1.37: TaintToleration (the unreachable
    /// taint of a node that is not Ready included), NodeUnschedulable and NodeAffinity say
    /// UnschedulableAndUnresolvable; NodeResourcesFit says Unschedulable
    /// unless a request exceeds the node's allocatable (`fitsRequest`);
    /// PodTopologySpread says UnschedulableAndUnresolvable for a missing
    /// topology label and Unschedulable for the skew (`Filter` in
    /// podtopologyspread/filtering.go); InterPodAffinity says
    /// UnschedulableAndUnresolvable for required affinity and Unschedulable
    /// for anti-affinity, the pod's or the existing pods'
    /// (interpodaffinity/filtering.go).
    pub fn code(&self) -> Code {
        match self {
            Unfit::Unschedulable
            | Unfit::NodeAffinity
            | Unfit::Taint(_)
            | Unfit::SpreadMissingLabel
            | Unfit::PodAffinity => Code::UnschedulableAndUnresolvable,
            Unfit::Insufficient { unresolvable, .. } => {
                if *unresolvable {
                    Code::UnschedulableAndUnresolvable
                } else {
                    Code::Unschedulable
                }
            }
            Unfit::SpreadSkew | Unfit::PodAntiAffinity | Unfit::ExistingAntiAffinity => {
                Code::Unschedulable
            }
        }
    }

    /// What the reasons leave out, for a person reading explain: the
    /// untolerated taint as `key=value:Effect` (Kubernetes logs it at -v=4
    /// and keeps it out of the status). Not part of FailedScheduling.
    pub fn detail(&self) -> Option<String> {
        match self {
            Unfit::Taint(t) => Some(format!("{t}")),
            _ => None,
        }
    }

    /// The filter plugin that rejected, by its Kubernetes name.
    pub fn plugin(&self) -> &'static str {
        match self {
            Unfit::Unschedulable => Plugin::NodeUnschedulable.name(),
            Unfit::NodeAffinity => Plugin::NodeAffinity.name(),
            Unfit::Taint(_) => Plugin::TaintToleration.name(),
            Unfit::Insufficient { .. } => Plugin::NodeResourcesFit.name(),
            Unfit::SpreadMissingLabel | Unfit::SpreadSkew => Plugin::PodTopologySpread.name(),
            Unfit::PodAffinity | Unfit::PodAntiAffinity | Unfit::ExistingAntiAffinity => {
                Plugin::InterPodAffinity.name()
            }
        }
    }
}

/// Which pods a spread constraint counts.
#[derive(Clone, Debug)]
enum SpreadSelector {
    /// The system default constraints of a Deployment's pod when its
    /// ReplicaSet's selector (the Deployment's plus pod-template-hash),
    /// narrowed by the Services that select the pod, selects the pods of
    /// its own revision alone (`default_spread_selector`).
    SameRevision,
    /// The same when it selects pods of other revisions too (a Deployment
    /// with the same labels and template, or a pod that carries its
    /// pod-template-hash): their pods, revision by revision (the batch's
    /// own among them).
    Revisions(Vec<(ControllerId, u32)>),
    /// An explicit labelSelector, or the Services' selectors for a pod no
    /// ReplicaSet owns, counted node by node through an interned term
    /// (`cluster::per_node_term`).
    Term(u32),
}

/// A spread constraint as `init_spread` gathers it, before its counts.
struct SpreadEntry {
    max_skew: i64,
    key: String,
    sel: SpreadSelector,
    self_match: bool,
    min_domains: u32,
    inclusion: Option<cache::InclusionKey>,
}

/// One topology spread constraint of a batch, with its counts.
#[derive(Clone, Debug)]
struct Spread {
    max_skew: i64,
    min_domains: u32,
    /// The topology index, `None` for the hostname key (a node is its own domain).
    topo: Option<u32>,
    /// Which of the batch's inclusion vectors (`Batch::inclusions`) says
    /// which nodes count for it; `None`: every live node.
    inclusion: Option<u8>,
    self_match: bool,
    /// Matching pods on each node, by node id (empty for the system
    /// defaults' zone constraint: only its domains' counts are read).
    per_node: Vec<u32>,
    /// Matching pods per domain over the eligible nodes, by domain.
    per_domain: Vec<i64>,
    /// Eligible nodes per domain (a domain exists while this is above 0).
    domain_nodes: Vec<u32>,
    /// Domains with at least one eligible node.
    domains: u32,
    /// Count of present domains at each matching count: its first key is the
    /// global minimum (filter side only).
    counts: BTreeMap<i64, u32>,
}

impl Spread {
    /// The global minimum a hard constraint's skew is measured from: 0
    /// while fewer domains than minDomains exist (PodTopologySpread).
    fn min_match(&self) -> i64 {
        if self.domains < self.min_domains {
            0
        } else {
            self.counts.keys().next().copied().unwrap_or(0)
        }
    }
}

/// What a batch of identical pods shares: the revision, its pre-filter and
/// pre-score state, and scratch buffers.
struct Batch {
    /// NodeAffinity's PreFilter result when it names one node (a pod
    /// pinned by name) and the pinned fast path is off: the plain cycle
    /// filters that node alone.
    prefiltered: Option<NodeId>,
    c: ControllerId,
    rev_no: u32,
    /// The revision, shared with its controller (binds change the cluster
    /// while the batch reads it; it was copied, templates and all, per batch).
    rev: alloc::rc::Rc<Revision>,
    req: Resources,
    nonzero: Resources,
    /// Per node: 1 passes the static filters, 2 fails them (lent by the
    /// cluster's caches: shared by every batch with the same `static_key`).
    static_ok: cache::Slots<u8>,
    static_key: cache::StaticKey,
    /// Per inclusion policy of the batch's spread constraints, per node:
    /// whether it counts for them (`Spread::inclusion` names one).
    inclusions: Vec<Vec<u8>>,
    /// Every live node counts for every spread constraint (no inclusion
    /// vector is built).
    include_all: bool,
    hard: Vec<Spread>,
    soft: Vec<Spread>,
    /// Soft constraints ignore nodes lacking a key unless system-defaulted.
    soft_require_all: bool,
    /// The hostname topology, when a soft hostname constraint (counted per
    /// node, `topo` None) must ask whether a node carries the label: some
    /// live node lacks it (`Hostnames::missing`). Such a node is scored
    /// without the constraint, or not at all when every key is required.
    hostname_labels: Option<u32>,
    inter_pod_filter: bool,
    /// A node's InterPodAffinity verdict moves only with the batch's binds
    /// to that node (see `inter_pod_node_local`), so a sample index of the
    /// batch's own can hold it.
    inter_pod_local: bool,
    ipa_score: bool,
    node_affinity_score: bool,
    /// With preferred node affinity of at most [`NA_CLASS_TERMS`] terms:
    /// their count. A node's class then also holds which terms it matches
    /// (the low `na_bits` bits), so the sample index serves such batches.
    na_bits: u32,
    /// With one hard spread constraint over a zone-like key and no other:
    /// its topology and the class stride (domains + 1). A node's class then
    /// ends with its domain there, and the constraint, which passes or
    /// fails whole domains, filters classes (see `domain_gate`).
    hard_zone: Option<(u32, usize)>,
    /// Per node, the preferred terms it matches (with `na_bits`).
    na_mask: cache::Slots<u32>,
    /// When the batch borrows the kept index of a wider template through
    /// a view (see `Cluster::lend_masked`).
    masked: Option<alloc::boxed::Box<MaskedLend>>,
    /// While filing such an index's slots (`swap_filing`): the static
    /// verdicts are the wider template's, without NodeAffinity.
    filing_base: bool,
    /// Per node, NodeAffinity's raw score (the preferred terms' weights).
    na_raw: cache::Slots<i64>,
    best_effort: bool,
    live_nodes: u32,
    /// The template has neither nodeSelector nor required node affinity.
    plain_template: bool,
    /// Per node, NodeResourcesFit's and BalancedAllocation's weighted sum for
    /// this batch's pods (lent by the caches, shared by equal `local_key`s).
    local: cache::Slots<i64>,
    local_key: cache::LocalKey,
    /// Record every scored node in `last_cycle` (an observer is watching).
    record: bool,
    /// Whether `cycle_fast` applies to this batch (decided at its first cycle).
    fast: Option<bool>,
    /// Pods of the batch still to place (decides whether an index pays).
    pods_left: usize,
    /// Set when the profile's node-local scores take the common shape.
    local_plan: Option<LocalPlan>,
    /// For batches of the common shape whose scans would cost more than
    /// keeping it: the sample answered from block summaries.
    index: Option<alloc::boxed::Box<cache::KeptIndex>>,
    /// Whether the batch asked for an index (it does once, at its first cycle).
    index_tried: bool,
    /// For a batch the heap path could serve (`heap_path`): what that costs,
    /// in the index's cost units, which an index must beat.
    heap_cost: Option<u64>,
    /// Slots filed with a class of this batch's own pods (stale for the next).
    index_dirty: Vec<u32>,
    /// The nodes holding the revision's pods when the batch began, once per
    /// pod, when its spreading state was built from them (the system
    /// defaults over a plain template): the only nodes where the first soft
    /// constraint, the hostname one, counts above 0 before the first bind
    /// (`None`: read them from that constraint's counts).
    holding: Option<Vec<u32>>,
    /// Which soft constraint's `per_node` is the recycled count buffer
    /// (`Spare::counts`), given back zeroed at the batch's end: zeroed at
    /// the nodes of `holding` and of `counted`, not over every node.
    recycled: Option<usize>,
    /// The nodes whose count in the recycled buffer a bind moved up from 0.
    counted: Vec<u32>,
    /// The recycled count buffer until the batch's spreading takes it.
    counts: Vec<u32>,
    /// The topology whose domain is a digit of a node's spread class (see
    /// `class_with`): the zone constraint's, or for a batch spread by
    /// hostname alone the system defaults' zone topology, whose digit then
    /// scores nothing (see `class_zone`).
    class_zone: Option<u32>,
    // Scratch, reused pod after pod.
    feasible: Vec<u32>,
    feasible_slots: Vec<u32>,
    raw: Vec<i64>,
    totals: Vec<i64>,
    spread_raw: Vec<Option<i64>>,
    stamp: Vec<u32>,
    stamp_now: u32,
    ix: IxScratch,
}

/// The indexed cycle's buffers, reused pod after pod (a cycle allocates nothing).
#[derive(Clone, Debug, Default)]
struct IxScratch {
    /// The classes present in the sample, ascending.
    present: Vec<u32>,
    /// Per present class: its best over the whole sample.
    best: Vec<sample_index::Best>,
    /// Per class: its best over the sample while it is gathered (empty
    /// between cycles).
    acc: sample_index::Gathered,
    /// Per present class: its normalised spread score.
    scores: Vec<(u32, i64)>,
    zones: Vec<usize>,
    /// Per present class: its count of the batch's pods and domain slot.
    parts: Vec<(u32, u32)>,
    /// Per class: its count and domain slot (`parts`), worked out once for
    /// the class layout `decoded_as` names (`u32::MAX`: not yet).
    decoded: Vec<(u32, u32)>,
    decoded_as: (u32, u32, u32),
    /// Per present class: its nodes' total at the class's best.
    cand: Vec<i64>,
    /// PodTopologySpread's normalizing weight, ln(size + 2), indexed by
    /// size (NaN: not worked out yet). The sample's size and its zones'
    /// count come back cycle after cycle.
    ln: Vec<f64>,
    /// Per node of the sample, NodeAffinity's raw score.
    na: Vec<i64>,
    /// The scan's per-class spread score and tie count, indexed by class
    /// (i64::MIN and 0 between cycles).
    norm: Vec<i64>,
    tied: Vec<u32>,
    /// Per domain of a hard spread constraint's topology: whether its
    /// nodes pass that constraint this cycle (see `domain_gate`).
    gate: Vec<bool>,
}

/// A batch's loan of a wider template's kept index (see
/// `Cluster::lend_masked`): its view of the slots, how many feasible ones
/// the view admits, and what `swap_filing` exchanges with the batch while
/// the index's slots are filed: the wider template's preferred-term bits
/// (none), that it selects no nodes, and its static verdicts (lent by the
/// caches under `base_key`; `None` when they are the batch's own).
#[derive(Debug)]
struct MaskedLend {
    view: sample_index::Masked,
    /// Where the view goes back (`Caches::keep_view`), with the node epoch
    /// it holds for.
    view_key: cache::ViewKey,
    epoch: u64,
    total: u32,
    swap_na: u32,
    swap_plain: bool,
    base_static: Option<cache::Slots<u8>>,
    base_key: cache::StaticKey,
}

/// The buffers a batch hands to the next at its end, emptied but with their
/// capacity (grown from empty batch after batch, they were most of the Zipf
/// mix's reallocations). The indexed cycle's scratch keeps its contents:
/// what it caches depends only on a size (`ln`) or a class layout
/// (`decoded`), and the rest is empty or neutral between cycles. Held
/// between batches, they are what the largest batch grew: the per-class
/// buffers at most about 1.3 MB (classes stay under 65,536), the per-node
/// ones a few bytes a node. Copies for Back leave them with the caches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spare {
    feasible: Vec<u32>,
    feasible_slots: Vec<u32>,
    raw: Vec<i64>,
    totals: Vec<i64>,
    spread_raw: Vec<Option<i64>>,
    index_dirty: Vec<u32>,
    ix: IxScratch,
    /// A per-node count buffer, every count 0 (see `Batch::recycled`).
    counts: Vec<u32>,
    counted: Vec<u32>,
}

impl Spare {
    /// Empties the batch's own buffers (the scratch stays as between cycles).
    fn emptied(mut self) -> Spare {
        self.feasible.clear();
        self.feasible_slots.clear();
        self.raw.clear();
        self.totals.clear();
        self.spread_raw.clear();
        self.index_dirty.clear();
        self.counted.clear();
        debug_assert!(self.counts.iter().all(|&c| c == 0));
        debug_assert!(
            self.ix.norm.iter().all(|&v| v == i64::MIN) && self.ix.tied.iter().all(|&t| t == 0),
            "the scan's per-class buffers are neutral between cycles"
        );
        self
    }
}

impl IxScratch {
    #[inline]
    fn normalizing_weight(&mut self, size: usize) -> f64 {
        match self.ln.get(size) {
            Some(&w) if !w.is_nan() => w,
            _ => self.work_out_weight(size),
        }
    }

    #[cold]
    fn work_out_weight(&mut self, size: usize) -> f64 {
        if self.ln.len() <= size {
            self.ln.resize(size + 1, f64::NAN);
        }
        self.ln[size] = spread::normalizing_weight(size);
        self.ln[size]
    }
}

/// The node-local scores of the common profiles, precomputed for a batch.
#[derive(Clone, Copy, Debug)]
struct LocalPlan {
    w_fit: i64,
    most: bool,
    w_cpu: i64,
    w_mem: i64,
    /// `w_cpu + w_mem`, above 0 (profile validation refuses weights of 0).
    w_sum: i64,
    w_bal: i64,
}

/// A batch's sample index (see `sample_index`): each feasible slot's
/// spread class and node-local score, summarised by block.
type Index = sample_index::Blocks;

/// Preferred node affinity terms a class can hold (a bit per term).
const NA_CLASS_TERMS: usize = 4;

/// The most classes a batch's fast cycle tells apart (its per-class
/// buffers: about 2.5 MB at this size).
const MAX_CLASSES: u64 = (1 << 16) - 1;

/// A batch spread by hostname alone takes the zone digit into its classes
/// (`Cluster::class_zone`) while the zone key has fewer values than this.
const INERT_ZONE_DOMAINS: usize = 64;

/// Clusters of at least this many nodes may schedule through a sample index.
const INDEX_MIN_NODES: usize = 256;

/// What one node visit of the scan path costs in the units of the index's
/// costs below (filing, loading, checking, cycling). At one, batches of a
/// few pods scanned where a kept index was the cheaper way; at two
/// (measured in interleaved rounds against one) the Zipf mix takes 0.963
/// of the time (faster in 12 of 12 rounds; three: 0.964, four: 0.974),
/// `--apps 10000` 0.977, and the plain run the same (its batches of 300
/// pods use an index either way).
const SCAN_VISIT: u64 = 2;
/// What filing a node in an index costs, in cost units (its filters,
/// class and node-local score, and the block update).
const FILE_VISITS: u64 = 2;
/// Slots per word of a bit set over slots: one block of the sample index.
const BLOCK_WORD: usize = sample_index::BLOCK;
/// A kept index reads the journal (which repeats nodes) while it is
/// shorter than this fraction of the nodes, else compares every stamp.
const JOURNAL_PER_STAMP: usize = 2;
/// Kept slots whose stamp is checked for one cost unit.
const CHECKS_PER_VISIT: u64 = 8;
/// What loading one slot without its block's summary costs, in cost units.
const LOAD_VISITS: u64 = 1;
/// Slots a block summary reads for one cost unit (a bulk
/// refile summarises each block it touched, reading all its slots).
const SUMMARIES_PER_VISIT: u64 = 8;
/// What one indexed cycle costs, in cost units (the blocks' summaries,
/// the two end blocks' slots, the classes' scores and the tie draw).
const CYCLE_VISITS: u64 = 32;
/// What a cycle through a view (`sample_index::Masked`) adds per block it
/// reads, in cost units (its entries cut by the view's masks).
const MASKED_BLOCK_VISITS: u64 = 4;
/// Preferred node affinity terms a view splits classes by (a mask per
/// pattern and block: 2^bits).
const MASKED_NA_BITS: u32 = 2;

/// What refiling `slots` stale slots over `blocks` blocks of an index
/// costs, in cost units, and whether loading them and summarising each
/// block once after (bulk) is the cheaper way; else each filing keeps its
/// block's summary.
fn refile_cost(slots: u64, blocks: u64) -> (u64, bool) {
    let one_by_one = FILE_VISITS * slots;
    let bulk = LOAD_VISITS * slots + blocks * BLOCK_WORD as u64 / SUMMARIES_PER_VISIT;
    if one_by_one > bulk {
        (bulk, true)
    } else {
        (one_by_one, false)
    }
}

/// When batches use a sample index (tests force one way to compare them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum IndexUse {
    /// When the scans it saves cost more than building or catching up.
    Auto,
    Always,
    Never,
}

/// The record of the last scheduling cycle, for tests and explanations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleRecord {
    /// The node slot the filter started from.
    pub start: u32,
    /// The feasible nodes that were scored, in visiting order.
    pub scored: Vec<NodeId>,
    /// Their weighted totals, in the same order (empty when one node was feasible).
    pub totals: Vec<i64>,
    pub chosen: Option<NodeId>,
    /// The pod went to its nominated node (status.nominatedNodeName, where
    /// preemption made room): kube-scheduler tries that node first and
    /// takes it when it passes every filter, scoring no other.
    pub nominated: bool,
}

/// One score plugin's part in a node's total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginScore {
    pub plugin: &'static str,
    /// The plugin's Score, before normalisation.
    pub raw: i64,
    /// After NormalizeScore, 0..=100.
    pub normalized: i64,
    pub weight: i64,
    /// normalized x weight: what the total adds.
    pub weighted: i64,
}

/// One node's verdict for one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    pub node: String,
    pub feasible: bool,
    /// The filter plugin that rejected the node, if one did.
    pub plugin: Option<&'static str>,
    /// Success for a feasible node, else the rejecting Filter's code:
    /// DefaultPreemption looks only at nodes marked Unschedulable.
    pub code: Code,
    pub reasons: Vec<String>,
    /// What the reasons do not say ([`Unfit::detail`]): the untolerated
    /// taint, `key=value:Effect`.
    pub detail: Option<String>,
    /// Each score plugin's raw, normalised and weighted score (feasible nodes).
    pub scores: Vec<PluginScore>,
    /// The weighted sum; the highest wins.
    pub total: Option<i64>,
    /// 1 for the best total; equal totals share a position.
    pub position: Option<u32>,
}

/// Why a pod is where it is, or why it is not anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub pod: String,
    pub phase: &'static str,
    pub bound_to: Option<String>,
    pub requests: Resources,
    pub profile: String,
    pub summary: String,
    /// Between the best node and the runner-up: the plugin whose weighted
    /// score separates them most, and by how much.
    pub decided_by: Option<(String, i64)>,
    /// The score plugins whose PreScore returned Skip for this pod (in the
    /// profile's order): the framework runs neither their Score nor their
    /// NormalizeScore, so they have no row in any node's `scores` and add
    /// nothing to a total. Empty when no node passes the filters.
    pub skipped: Vec<&'static str>,
    pub nodes: Vec<NodeVerdict>,
    /// The pod's priority, as admission resolved it.
    pub priority: i32,
    /// For a pod that preempted: the decision (node, victims, the figures of
    /// every candidate); for a Pending pod that fits nowhere: what
    /// DefaultPreemption would do now.
    pub preemption: Option<Preemption>,
}

impl Cluster {
    /// When batches use a sample index (tests compare the indexed cycle
    /// with the scan).
    #[cfg(test)]
    pub(crate) fn set_index_use(&mut self, u: IndexUse) {
        self.index_use = u;
    }

    /// Which fast paths the scheduler may take ([`FastPaths::ALL`] unless
    /// set). None of them changes a decision; [`FastPaths::NONE`] runs the
    /// plain cycle alone (`tests/fastpaths.rs` compares them).
    pub fn set_fast_paths(&mut self, f: FastPaths) {
        self.fast_paths = f;
    }

    /// The fast paths the scheduler may take.
    pub fn fast_paths(&self) -> FastPaths {
        self.fast_paths
    }

    /// Whether batches may use a sample index: the index path on (it runs
    /// inside the class cycle) and not kept off by tests.
    fn index_allowed(&self) -> bool {
        self.fast_paths.index && self.fast_paths.classes && self.index_use != IndexUse::Never
    }

    /// The record of the last scheduling cycle.
    pub fn last_cycle(&self) -> &CycleRecord {
        &self.last_cycle
    }

    fn new_batch(&mut self, c: ControllerId, rev_no: u32, profile: &Profile) -> Batch {
        // The system defaults' selector, worked out (and its term interned)
        // before the batch holds the revision.
        let defaults = {
            let tpl = &self.controllers[c.0 as usize].revisions[rev_no as usize - 1].template;
            (tpl.topology_spread.is_empty()
                && profile.system_default_spreading
                && profile.weight(Plugin::PodTopologySpread).is_some())
            .then(|| self.default_spread_selector(c, rev_no))
            .flatten()
        };
        let rev =
            alloc::rc::Rc::clone(&self.controllers[c.0 as usize].revisions[rev_no as usize - 1]);
        let tpl = &rev.template;
        let req = tpl.requests;
        let live_nodes = self.live_nodes;
        let static_key = cache::StaticKey {
            node_selector: tpl.node_selector.clone(),
            required: tpl.node_affinity.required.clone(),
            tolerations: tpl.tolerations.clone(),
        };
        let nonzero = tpl.non_zero();
        let local_key = cache::LocalKey { req, nonzero };
        let (static_ok, local) = self.caches.lend(profile, &static_key, &local_key);
        let (na_raw, na_mask) = if tpl.node_affinity.preferred.is_empty() {
            Default::default()
        } else {
            self.caches.lend_affinity(&tpl.node_affinity.preferred)
        };
        let spare = self.caches.take_spare();
        let mut b = Batch {
            prefiltered: None,
            c,
            rev_no,
            req,
            nonzero,
            static_ok,
            static_key,
            inclusions: Vec::new(),
            include_all: false,
            hard: Vec::new(),
            soft: Vec::new(),
            soft_require_all: !tpl.topology_spread.is_empty(),
            hostname_labels: None,
            // A term the pods match turns the filter on only while bound
            // pods carry it as required anti-affinity: while the batch runs
            // only its own pods bind, and they carry none (or `anti_ids`
            // turns it on), so no node can refuse them for such a term (a
            // term that only a spread constraint or a preference uses, say).
            inter_pod_filter: profile.filter_enabled(Plugin::InterPodAffinity)
                && (!rev.affinity_ids.is_empty()
                    || !rev.anti_ids.is_empty()
                    || (rev.matching_terms.iter())
                        .any(|&t| self.terms[t as usize].owners_total > 0)),
            inter_pod_local: false,
            ipa_score: false,
            node_affinity_score: !tpl.node_affinity.preferred.is_empty()
                && profile.weight(Plugin::NodeAffinity).is_some(),
            na_raw,
            na_bits: 0,
            hard_zone: None,
            na_mask,
            masked: None,
            filing_base: false,
            best_effort: req.is_zero(),
            live_nodes,
            plain_template: tpl.node_selector.is_empty() && tpl.node_affinity.required.is_none(),
            local,
            local_key,
            record: false,
            fast: None,
            pods_left: 0,
            index: None,
            index_tried: false,
            heap_cost: None,
            index_dirty: spare.index_dirty,
            holding: None,
            recycled: None,
            counted: spare.counted,
            counts: spare.counts,
            class_zone: None,
            local_plan: local_plan(profile),
            feasible: spare.feasible,
            feasible_slots: spare.feasible_slots,
            raw: spare.raw,
            totals: spare.totals,
            spread_raw: spare.spread_raw,
            stamp: Vec::new(),
            stamp_now: 0,
            ix: spare.ix,
            rev,
        };
        debug_assert!(b.rev.matching_terms.iter().all(|&t| {
            let ts = &self.terms[t as usize];
            ts.owners_total == ts.owners.iter().map(|(_, c)| c).sum::<u32>()
        }));
        b.ipa_score = profile.weight(Plugin::InterPodAffinity).is_some()
            && (!b.rev.preferred_ids.is_empty()
                || !b.rev.preferred_anti_ids.is_empty()
                || b.rev
                    .matching_terms
                    .iter()
                    .any(|&t| self.terms[t as usize].score_carriers > 0)
                || self.template_carries_self_terms(&b.rev));
        b.inter_pod_local = b.inter_pod_filter && self.inter_pod_node_local(&b.rev);
        if b.node_affinity_score && tpl_preferred_len(&b.rev) <= NA_CLASS_TERMS {
            b.na_bits = tpl_preferred_len(&b.rev) as u32;
        }
        self.init_spread(&mut b, profile, defaults);
        if let [h] = &b.hard[..] {
            if let Some(t) = h.topo {
                b.hard_zone = Some((t, self.topologies[t as usize].domains.len() + 1));
            }
        }
        b.class_zone = self.class_zone(&b, profile);
        b
    }

    /// Whether InterPodAffinity's filter for `rev` gives each node a
    /// verdict that only the node's own binds move while its batch runs.
    /// Only the batch's pods bind then, and they change the counts of the
    /// terms they match and of the anti-affinity terms they carry: every
    /// other count the filter reads stays put. So the anti-affinity terms
    /// the batch's pods both carry and match must be keyed by hostname (a
    /// domain per node: a bind moves its own node's verdict alone), and its
    /// required affinity terms must not match its own pods (the first pod
    /// of a group passes anywhere, and its bind closes every other domain).
    fn inter_pod_node_local(&self, rev: &Revision) -> bool {
        let own = |t: &u32| rev.matching_terms.contains(t);
        // A hostname domain is one node only while every node has a
        // hostname of its own.
        let by_hostname = |t: u32| {
            self.hostname_is_node()
                && self.topologies[self.terms[t as usize].topo as usize].key == HOSTNAME_KEY
        };
        !rev.affinity_ids.iter().any(own)
            && rev
                .anti_ids
                .iter()
                .filter(|t| own(t))
                .all(|&t| by_hostname(t))
    }

    /// Whether the template's own terms match its labels, so that binding
    /// its pods changes the InterPodAffinity scores of the next ones.
    /// (Required anti-affinity filters but is not scored, so it does not count.)
    fn template_carries_self_terms(&self, rev: &Revision) -> bool {
        rev.carries_terms()
            && rev.matching_terms.iter().any(|t| {
                rev.affinity_ids.contains(t)
                    || rev.preferred_ids.iter().any(|(p, _)| p == t)
                    || rev.preferred_anti_ids.iter().any(|(p, _)| p == t)
            })
    }

    /// kube-scheduler's DefaultSelector (helper/spread.go), which the system
    /// default constraints count pods by (`buildDefaultConstraints` in
    /// podtopologyspread/common.go): the union of the selectors of the
    /// Services that select the pod, narrowed by the selector of the
    /// ReplicaSet, StatefulSet or ReplicationController that owns it.
    /// `None` when it is empty: then PreScore returns Skip and the plugin
    /// scores nothing. Here a Deployment's pod is owned by its revision's
    /// ReplicaSet, whose selector is the Deployment's (its template's
    /// labels) plus pod-template-hash, so pods of its other revisions are
    /// not counted; a DaemonSet's pod (owned by the DaemonSet, which the
    /// rule does not read) and a bare pod are selected through Services
    /// only. (Shepherd simulates StatefulSets and ReplicaSets as
    /// Deployments, and has no ReplicationControllers.) A Service selector
    /// asking for pod-template-hash itself is matched against the template's
    /// labels, which do not carry it.
    fn default_spread_selector(&mut self, c: ControllerId, rev_no: u32) -> Option<SpreadSelector> {
        let ctl = &self.controllers[c.0 as usize];
        let rev = &ctl.revisions[rev_no as usize - 1];
        let labels = &rev.template.labels;
        let services = || {
            (self.services.values())
                .map(|s| &s.spec.selector)
                .filter(|s| s.matches(labels))
        };
        if ctl.workload.kind() != crate::cluster::WorkloadKind::Deployment {
            services().next()?;
            let sel = crate::cluster::conjunction(services());
            return Some(SpreadSelector::Term(
                self.term_id(&crate::cluster::per_node_term(sel)),
            ));
        }
        // No two Deployment revisions share a hash and no pod carries one of
        // its own: the ReplicaSet selects its revision's pods alone.
        if self.hash_collisions == 0 && self.hash_labelled == 0 {
            return Some(SpreadSelector::SameRevision);
        }
        // Pods of other revisions the ReplicaSet's selector takes: a
        // revision of any owner whose labels hold this template's, with the
        // same pod-template-hash (a Deployment's revision) or carrying it as
        // a label (any other pod), and that every Service selecting this
        // pod selects too. Only revisions with pods can count any; they are
        // found among the revisions sharing this template's rarest label.
        let hash = &rev.hash;
        let pair = labels
            .iter()
            .filter(|(k, _)| !crate::namespace::is_reserved(k))
            .map(|(k, v)| crate::cluster::label_hash(k, v))
            .min_by_key(|p| self.revisions_by_label.get(p).map_or(0, Vec::len));
        let candidates = match &pair {
            Some(p) => self
                .revisions_by_label
                .get(p)
                .map_or(&[][..], Vec::as_slice),
            None => &self.all_revisions[..],
        };
        let mut others = Vec::new();
        for &(qc, qr) in candidates {
            let (q_ctl, q_no) = (&self.controllers[qc as usize], qr + 1);
            if (qc, q_no) == (c.0, rev_no) || q_ctl.count(q_no).pods == 0 {
                continue;
            }
            let q = &q_ctl.revisions[qr as usize].template.labels;
            let same_hash = if q_ctl.workload.kind() == crate::cluster::WorkloadKind::Deployment {
                &q_ctl.revisions[qr as usize].hash == hash
            } else {
                q.get(crate::model::POD_TEMPLATE_HASH) == Some(hash)
            };
            if same_hash
                && labels.iter().all(|(k, v)| q.get(k) == Some(v))
                && services().all(|s| s.matches(q))
            {
                others.push((ControllerId(qc), q_no));
            }
        }
        if others.is_empty() {
            return Some(SpreadSelector::SameRevision);
        }
        others.push((c, rev_no));
        Some(SpreadSelector::Revisions(others))
    }

    /// A spread constraint's inclusion: under `affinity` (nodeAffinityPolicy)
    /// Honor the template's nodeSelector and required node affinity, if it
    /// has any, decide; under `taints` (nodeTaintsPolicy) Honor the pod's
    /// tolerations do; `None` when every live node counts.
    fn inclusion_key(
        &self,
        rev: &Revision,
        affinity: NodeInclusionPolicy,
        taints: NodeInclusionPolicy,
    ) -> Option<cache::InclusionKey> {
        let tpl = &rev.template;
        let plain = tpl.node_selector.is_empty() && tpl.node_affinity.required.is_none();
        let key = cache::InclusionKey {
            affinity: (affinity == Honor && !plain).then(|| {
                (
                    tpl.node_selector.clone(),
                    tpl.node_affinity.required.clone(),
                )
            }),
            taints: (taints == Honor).then(|| {
                let mut all = tpl.tolerations.clone();
                all.extend(rev.added_tolerations.iter().cloned());
                all
            }),
        };
        (key.affinity.is_some() || key.taints.is_some()).then_some(key)
    }

    /// Whether live node `i` counts for a spread constraint with inclusion
    /// `key` (`matchNodeInclusionPolicies`): it matches the nodeSelector and
    /// required terms, and the pod tolerates every NoSchedule and NoExecute
    /// taint it has (helper.DoNotScheduleTaintsFilterFunc): its own, and
    /// those the node lifecycle controller keeps on a cordoned node
    /// (`node.kubernetes.io/unschedulable`) and on a node that is not Ready
    /// (`Cluster::condition_taints`).
    fn node_included(&self, i: usize, key: &cache::InclusionKey) -> bool {
        let node = &self.nodes[i];
        let s = &node.spec;
        if let Some((selector, required)) = &key.affinity {
            let admits = selector.iter().all(|(k, v)| s.labels.get(k) == Some(v))
                && required
                    .as_ref()
                    .is_none_or(|terms| terms.iter().any(|t| t.matches(&s.name, &s.labels)));
            if !admits {
                return false;
            }
        }
        if let Some(tolerations) = &key.taints {
            let untolerated = |t: &crate::model::Taint| {
                t.effect != crate::model::TaintEffect::PreferNoSchedule
                    && !tolerations.iter().any(|x| x.tolerates(t))
            };
            if s.taints.iter().any(untolerated) {
                return false;
            }
            if node.cordoned
                && untolerated(&crate::model::Taint::new(
                    node_unschedulable::UNSCHEDULABLE_TAINT_KEY,
                    "",
                    crate::model::TaintEffect::NoSchedule,
                ))
            {
                return false;
            }
            if self
                .condition_taints(NodeId(i as u32))
                .iter()
                .any(untolerated)
            {
                return false;
            }
        }
        true
    }

    /// Per node, whether it counts under inclusion `key` (0 for removed
    /// nodes). Kept between batches with the same key, per node spec stamp
    /// (a node's labels, taints, cordon and readiness change it, a bind
    /// does not), and whole per node epoch.
    fn inclusion_of(&mut self, key: &cache::InclusionKey) -> Vec<u8> {
        let n = self.nodes.len();
        let mut kept = self.caches.lend_inclusion(key);
        // The vector kept whole at this node epoch is this batch's: no node
        // was added, removed or changed since it was built.
        let whole = kept.epoch == Some(self.node_epoch) && kept.whole.len() == n;
        let out = if whole {
            let v = kept.whole.clone();
            debug_assert!(
                (0..n).all(|i| v[i] == (!self.hot[i].removed && self.node_included(i, key)) as u8),
                "an inclusion kept whole must equal a fresh one"
            );
            v
        } else {
            // With no node removed, no node's record is read to ask; the
            // stamps are read from their packed array (eight to a cache line).
            let none_removed = self.live_nodes as usize == self.nodes.len();
            let v: Vec<u8> = (0..n)
                .map(|i| {
                    if !none_removed && self.hot[i].removed {
                        return 0;
                    }
                    let stamp = self.spec_stamps[i];
                    if let Some(v) = kept.slots.get(i, stamp) {
                        debug_assert_eq!(
                            v,
                            self.node_included(i, key) as u8,
                            "a cached inclusion must equal a fresh one"
                        );
                        return v;
                    }
                    let v = self.node_included(i, key) as u8;
                    kept.slots.set(i, stamp, v);
                    v
                })
                .collect();
            kept.whole.clone_from(&v);
            kept.epoch = Some(self.node_epoch);
            v
        };
        self.caches.keep_inclusion(key.clone(), kept);
        out
    }

    /// Whether the batch's soft hostname constraint is the system
    /// defaults' and no live node carries the hostname label (nodes
    /// written by hand, without the kubelet's label). Kubernetes' Score
    /// adds a constraint's term only on a node that has its key, and with
    /// the system defaults it does not ignore nodes lacking one, so every
    /// node scores the zone term alone: the fast cycle's shape with a
    /// hostname term of 0.
    fn hostname_absent(&self, b: &Batch) -> bool {
        b.hostname_labels.is_some()
            && !b.soft_require_all
            && self.hostnames.missing == self.live_nodes
    }

    /// `Batch::hostname_labels` for soft constraints `soft`.
    fn hostname_labels(&mut self, soft: &[Spread]) -> Option<u32> {
        (self.hostnames.missing > 0 && soft.iter().any(|s| s.topo.is_none()))
            .then(|| self.topology_id(HOSTNAME_KEY))
    }

    fn init_spread(&mut self, b: &mut Batch, profile: &Profile, defaults: Option<SpreadSelector>) {
        let tpl = &b.rev.template;
        let hard_on = profile.filter_enabled(Plugin::PodTopologySpread);
        let soft_on = profile.weight(Plugin::PodTopologySpread).is_some();
        let mut hard = Vec::new();
        let mut soft = Vec::new();
        if tpl.topology_spread.is_empty() {
            // The system defaults (ScheduleAnyway only: they never filter),
            // for a pod a Service, ReplicaSet, StatefulSet or
            // ReplicationController selects (`default_spread_selector`).
            // Their inclusion policies are Kubernetes' defaults.
            if let Some(sel) = defaults {
                debug_assert!(soft_on && profile.system_default_spreading);
                let inclusion = self.inclusion_key(&b.rev, Honor, Ignore);
                soft.push(SpreadEntry {
                    max_skew: 3,
                    key: HOSTNAME_KEY.to_string(),
                    sel: sel.clone(),
                    self_match: true,
                    min_domains: 0,
                    inclusion: inclusion.clone(),
                });
                soft.push(SpreadEntry {
                    max_skew: 5,
                    key: spread::ZONE_KEY.to_string(),
                    sel,
                    self_match: true,
                    min_domains: 0,
                    inclusion,
                });
            }
        } else {
            for (c, &t) in tpl.topology_spread.iter().zip(&b.rev.spread_ids) {
                debug_assert_eq!(
                    Some(&t),
                    self.find_term(&crate::cluster::per_node_term(c.selector.clone()))
                        .as_ref(),
                    "a revision's spread terms are its constraints' selectors"
                );
                let self_match = c.selector.matches(&tpl.labels);
                let entry = SpreadEntry {
                    max_skew: c.max_skew as i64,
                    key: c.topology_key.clone(),
                    sel: SpreadSelector::Term(t),
                    self_match,
                    min_domains: c.min_domains.unwrap_or(0),
                    inclusion: self.inclusion_key(
                        &b.rev,
                        c.node_affinity_policy,
                        c.node_taints_policy,
                    ),
                };
                match c.when_unsatisfiable {
                    WhenUnsatisfiable::DoNotSchedule if hard_on => hard.push(entry),
                    WhenUnsatisfiable::ScheduleAnyway if soft_on => soft.push(entry),
                    _ => {}
                }
            }
        }
        if hard.is_empty() && soft.is_empty() {
            return;
        }
        let n = self.nodes.len();
        // The system defaults over a plain template (the common case): every
        // live node counts (nodeAffinityPolicy Honor admits all of them,
        // nodeTaintsPolicy Ignore) and the counts come from the revision's
        // own pods, so the batch costs O(its pods), not O(nodes), beyond
        // `per_node`.
        if hard.is_empty()
            && soft
                .iter()
                .all(|e| matches!(e.sel, SpreadSelector::SameRevision) && e.inclusion.is_none())
        {
            b.include_all = true;
            let topos: Vec<Option<u32>> = soft
                .iter()
                .map(|e| (e.key != HOSTNAME_KEY).then(|| self.topology_id(&e.key)))
                .collect();
            // Zeroed by the batch before (at the nodes it counted), not
            // allocated and zeroed over every node.
            let mut per_node = core::mem::take(&mut b.counts);
            if per_node.len() != n {
                per_node.clear();
                per_node.resize(n, 0);
            }
            debug_assert!(per_node.iter().all(|&c| c == 0));
            // The nodes holding the revision's pods, once per pod (room for
            // all of the controller's: growing it by doubling copied it
            // over and over at a Deployment of 15,000 pods).
            let mut holding = Vec::with_capacity(self.controllers[b.c.0 as usize].pods.len());
            for node in self.revision_nodes(b.c, b.rev_no) {
                per_node[node as usize] += 1;
                holding.push(node);
            }
            // Only hostname constraints read `per_node` (a zone constraint's
            // count is `per_domain`): the last one takes it, others copy.
            let mut hostnames = topos.iter().filter(|t| t.is_none()).count();
            for (e, topo) in soft.into_iter().zip(topos) {
                let (max_skew, self_match, min_domains) = (e.max_skew, e.self_match, e.min_domains);
                if topo.is_none() && hostnames == 1 {
                    b.recycled = Some(b.soft.len());
                }
                // Soft constraints read the zone's count and the node's own:
                // the hostname domain's count is `per_node`.
                let mut per_domain = Vec::new();
                if let Some(t) = topo {
                    per_domain = vec![0i64; self.topologies[t as usize].domains.len()];
                    for &i in &holding {
                        if !self.hot[i as usize].removed {
                            if let Some(d) = self.domain(t, NodeId(i)) {
                                per_domain[d as usize] += 1;
                            }
                        }
                    }
                }
                b.soft.push(Spread {
                    max_skew,
                    min_domains,
                    topo,
                    inclusion: None,
                    self_match,
                    per_node: match topo {
                        Some(_) => Vec::new(),
                        None => {
                            hostnames -= 1;
                            if hostnames == 0 {
                                core::mem::take(&mut per_node)
                            } else {
                                per_node.clone()
                            }
                        }
                    },
                    per_domain,
                    domain_nodes: Vec::new(),
                    domains: 0,
                    counts: BTreeMap::new(),
                });
            }
            debug_assert!(b.soft.first().is_some_and(|s| s.topo.is_none()));
            b.holding = Some(holding);
            b.hostname_labels = self.hostname_labels(&b.soft);
            return;
        }
        // Each distinct inclusion policy's vector: which nodes count.
        let mut keys: Vec<cache::InclusionKey> = Vec::new();
        for e in hard.iter().chain(&soft) {
            if let Some(k) = &e.inclusion {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        b.include_all = keys.is_empty();
        b.inclusions = keys.iter().map(|k| self.inclusion_of(k)).collect();
        let index_of = |e: &SpreadEntry| {
            (e.inclusion.as_ref()).map(|k| keys.iter().position(|x| x == k).unwrap_or(0) as u8)
        };
        let hard: Vec<(SpreadEntry, Option<u8>)> = hard
            .into_iter()
            .map(|e| (index_of(&e), e))
            .map(|(i, e)| (e, i))
            .collect();
        let soft: Vec<(SpreadEntry, Option<u8>)> = soft
            .into_iter()
            .map(|e| (index_of(&e), e))
            .map(|(i, e)| (e, i))
            .collect();
        // A hostname constraint's domain is the node (`topo` None) for the
        // score always (kube-scheduler counts a hostname constraint's pods
        // on the node itself), and for the filter while every node has a
        // hostname of its own; else the filter's domains are the label's
        // values, as any key's.
        let by_node = self.hostname_is_node();
        let build = |this: &mut Cluster, list: Vec<(SpreadEntry, Option<u8>)>, hard: bool| {
            let mut out = Vec::new();
            let topos: Vec<Option<u32>> = list
                .iter()
                .map(|(e, _)| {
                    (e.key != HOSTNAME_KEY || (hard && !by_node)).then(|| this.topology_id(&e.key))
                })
                .collect();
            for ((e, inclusion), topo) in list.into_iter().zip(topos) {
                let mut per_node = vec![0u32; n];
                match e.sel {
                    SpreadSelector::SameRevision => {
                        for node in this.revision_nodes(b.c, b.rev_no) {
                            per_node[node as usize] += 1;
                        }
                    }
                    SpreadSelector::Revisions(list) => {
                        for (c, r) in list {
                            for node in this.revision_nodes(c, r) {
                                per_node[node as usize] += 1;
                            }
                        }
                    }
                    SpreadSelector::Term(t) => {
                        // The term's own per-node counts (`matching_in`),
                        // its counted pages copied; the rest count 0.
                        this.terms[t as usize].matching.copy_into(&mut per_node);
                    }
                }
                out.push(Spread {
                    max_skew: e.max_skew,
                    min_domains: e.min_domains,
                    topo,
                    inclusion,
                    self_match: e.self_match,
                    per_node,
                    per_domain: Vec::new(),
                    domain_nodes: Vec::new(),
                    domains: 0,
                    counts: BTreeMap::new(),
                });
            }
            out
        };
        b.hard = build(self, hard, true);
        b.soft = build(self, soft, false);
        b.hostname_labels = self.hostname_labels(&b.soft);
        // Domain counts over the eligible nodes: those the policy includes
        // and that carry every key of their list. A soft hostname
        // constraint reads `per_node` alone (its domain is the node), so
        // it needs none. Which nodes are eligible, and their domains, read
        // only the nodes' labels and presence: kept between batches until a
        // node changes (`node_epoch`), so a batch reads only the nodes
        // holding its matching pods.
        let require_all_soft = b.soft_require_all;
        let epoch = self.node_epoch;
        for (hard, require_all) in [(true, true), (false, require_all_soft)] {
            let list = if hard { &mut b.hard } else { &mut b.soft };
            if list.is_empty() || (!hard && list.iter().all(|s| s.topo.is_none())) {
                continue;
            }
            let lkey = cache::LayoutKey {
                hostname_labels: if hard { None } else { b.hostname_labels },
                inclusion: list
                    .iter()
                    .map(|s| s.inclusion.map(|i| keys[i as usize].clone()))
                    .collect(),
                topos: list.iter().map(|s| s.topo).collect(),
                require_all,
                hard,
            };
            let vectors: Vec<Option<&[u8]>> = list
                .iter()
                .map(|s| s.inclusion.map(|i| b.inclusions[i as usize].as_slice()))
                .collect();
            let layout = match self.caches.lend_layout(&lkey, epoch) {
                Some(l) => {
                    debug_assert_eq!(
                        l,
                        self.domain_layout(&lkey, &vectors),
                        "a kept domain layout must equal a fresh one"
                    );
                    l
                }
                None => self.domain_layout(&lkey, &vectors),
            };
            for (j, s) in list.iter_mut().enumerate() {
                let dom = &layout.domain_of[j];
                if dom.is_empty() {
                    continue;
                }
                s.domain_nodes = layout.domain_nodes[j].clone();
                s.per_domain = vec![0i64; s.domain_nodes.len()];
                for (&c, &d) in s.per_node.iter().zip(dom) {
                    if c != 0 && d != cache::NOT_COUNTED {
                        s.per_domain[d as usize] += c as i64;
                    }
                }
            }
            self.caches.keep_layout(lkey, layout);
        }
        for s in b.hard.iter_mut().chain(b.soft.iter_mut()) {
            s.domains = s.domain_nodes.iter().filter(|&&c| c > 0).count() as u32;
        }
        for s in b.hard.iter_mut() {
            for (d, &nodes) in s.domain_nodes.iter().enumerate() {
                if nodes > 0 {
                    *s.counts.entry(s.per_domain[d]).or_default() += 1;
                }
            }
        }
    }

    /// Which nodes count for a list of spread constraints and their
    /// domains (`init_spread`'s eligible nodes): those `inclusion` admits
    /// (every live node without one) that carry every key of the list when
    /// it requires all, each in its domain per constraint (a hostname
    /// constraint's domain is the node; a soft one is not counted).
    fn domain_layout(
        &self,
        key: &cache::LayoutKey,
        inclusion: &[Option<&[u8]>],
    ) -> cache::DomainLayout {
        let n = self.nodes.len();
        let counted = |topo: &Option<u32>| key.hard || topo.is_some();
        let mut domain_of: Vec<Vec<u32>> = key
            .topos
            .iter()
            .map(|t| {
                if counted(t) {
                    vec![cache::NOT_COUNTED; n]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut domain_nodes: Vec<Vec<u32>> = alloc::vec![Vec::new(); key.topos.len()];
        for i in 0..n {
            if self.hot[i].removed {
                continue;
            }
            let node = NodeId(i as u32);
            // (A hostname constraint counted per node asks for the label
            // through `hostname_labels`.)
            if key.require_all
                && key.topos.iter().any(|t| {
                    t.or(key.hostname_labels)
                        .is_some_and(|t| self.domain(t, node).is_none())
                })
            {
                continue;
            }
            for (j, topo) in key.topos.iter().enumerate() {
                if !counted(topo) || inclusion[j].is_some_and(|v| v[i] != 1) {
                    continue;
                }
                let d = match topo {
                    None => Some(i as u32),
                    Some(t) => self.domain(*t, node),
                };
                if let Some(d) = d {
                    let nodes = &mut domain_nodes[j];
                    if nodes.len() <= d as usize {
                        nodes.resize(d as usize + 1, 0);
                    }
                    nodes[d as usize] += 1;
                    domain_of[j][i] = d;
                }
            }
        }
        cache::DomainLayout {
            epoch: self.node_epoch,
            domain_of,
            domain_nodes,
        }
    }

    /// The node of each bound pod of controller `c`'s revision `rev`, once
    /// per pod, from the packed places (not the pods' records).
    fn revision_nodes(&self, c: ControllerId, rev: u32) -> impl Iterator<Item = u32> + '_ {
        self.controllers[c.0 as usize]
            .pods
            .values()
            .filter_map(move |&k| match self.place(k) {
                (r, Some(node)) if r == rev => Some(node.0),
                _ => None,
            })
    }

    /// For a batch with a hard spread constraint over a zone-like key (not
    /// the hostname): the constraint's topology, with `gate[d]` true when a
    /// node of domain `d` passes it now (PodTopologySpread's Filter, the
    /// same test `spread_filter` makes node by node). A node without the
    /// key fails it.
    fn domain_gate(&self, b: &Batch, gate: &mut Vec<bool>) -> Option<u32> {
        let s = b.hard.iter().find(|s| s.topo.is_some())?;
        let t = s.topo?;
        let min = s.min_match();
        gate.clear();
        gate.extend((0..self.topologies[t as usize].domains.len()).map(|d| {
            let matching = s.per_domain.get(d).copied().unwrap_or(0);
            spread::skew_ok(matching, s.self_match, min, s.max_skew)
        }));
        Some(t)
    }

    /// Updates a batch's spread counts after one of its pods bound to `n`.
    fn spread_bound(&self, b: &mut Batch, n: NodeId) {
        let i = n.0 as usize;
        let require_all_soft = b.soft_require_all;
        // The recycled count buffer notes the nodes it counts from 0.
        if let Some(j) = b.recycled {
            if b.soft[j].per_node.get(i) == Some(&0) {
                b.counted.push(i as u32);
            }
        }
        let inclusions = &b.inclusions;
        for (list, require_all, hard) in [
            (&mut b.hard, true, true),
            (&mut b.soft, require_all_soft, false),
        ] {
            let labels = if hard { None } else { b.hostname_labels };
            let has_keys = !self.hot[i].removed
                && (!require_all
                    || list.iter().all(|s| {
                        s.topo
                            .or(labels)
                            .is_none_or(|t| self.domain(t, n).is_some())
                    }));
            for s in list.iter_mut() {
                if !s.self_match {
                    continue;
                }
                // (Empty for a system default zone constraint, which reads
                // its domain's count alone.)
                if let Some(c) = s.per_node.get_mut(i) {
                    *c += 1;
                }
                let included = s
                    .inclusion
                    .is_none_or(|v| inclusions[v as usize].get(i).copied().unwrap_or(0) == 1);
                if !(has_keys && included) {
                    continue;
                }
                let d = match s.topo {
                    None => Some(n.0),
                    Some(t) => self.domain(t, n),
                };
                if let Some(d) = d {
                    // Soft hostname constraints read `per_node` alone.
                    if !hard && s.topo.is_none() {
                        continue;
                    }
                    let d = d as usize;
                    if s.per_domain.len() <= d {
                        s.per_domain.resize(d + 1, 0);
                    }
                    let old = s.per_domain[d];
                    s.per_domain[d] += 1;
                    if hard {
                        if let Some(c) = s.counts.get_mut(&old) {
                            *c -= 1;
                            if *c == 0 {
                                s.counts.remove(&old);
                            }
                        }
                        *s.counts.entry(old + 1).or_default() += 1;
                    }
                }
            }
        }
    }

    /// The filters that depend only on the node and the template, in the
    /// profile's order.
    fn static_filter(&self, n: NodeId, rev: &Revision, profile: &Profile) -> Result<(), Unfit> {
        self.static_filter_with(n, rev, profile, true)
    }

    /// `static_filter`, with NodeAffinity (the template's nodeSelector and
    /// required node affinity) or without it: a batch filing the kept
    /// index of a wider template (see `Masked`) files that template's
    /// verdicts, whose key has neither.
    fn static_filter_with(
        &self,
        n: NodeId,
        rev: &Revision,
        profile: &Profile,
        affinity: bool,
    ) -> Result<(), Unfit> {
        let node = &self.nodes[n.0 as usize];
        let tpl = &rev.template;
        for p in &profile.filters {
            match p {
                Plugin::NodeUnschedulable
                    if !node_unschedulable::filter(node.cordoned, &tpl.tolerations) =>
                {
                    return Err(Unfit::Unschedulable);
                }
                Plugin::TaintToleration => {
                    if let Some(t) =
                        taint_toleration::first_untolerated(&node.spec.taints, &tpl.tolerations)
                    {
                        return Err(Unfit::Taint(t.clone()));
                    }
                    // A node that is not Ready carries the node lifecycle
                    // controller's `unreachable` taints after its own
                    // (`Cluster::condition_taints`); the NoExecute one is
                    // also tolerated by what DefaultTolerationSeconds added.
                    if !node.ready {
                        let tolerated = |t: &crate::model::Taint| {
                            tpl.tolerations
                                .iter()
                                .chain(rev.added_tolerations.iter())
                                .any(|tol| tol.tolerates(t))
                        };
                        if let Some(t) =
                            self.condition_taints(n).into_iter().find(|t| !tolerated(t))
                        {
                            return Err(Unfit::Taint(t));
                        }
                    }
                }
                Plugin::NodeAffinity if affinity => {
                    let s = &node.spec;
                    if !node_affinity::filter(
                        &s.name,
                        &s.labels,
                        &tpl.node_selector,
                        &tpl.node_affinity,
                    ) {
                        return Err(Unfit::NodeAffinity);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The filters that change as pods come and go: resources, topology
    /// spread and inter-pod (anti-)affinity.
    fn dynamic_filter(&self, n: NodeId, b: &Batch, profile: &Profile) -> Result<(), Unfit> {
        let i = n.0 as usize;
        let h = &self.hot[i];
        for p in &profile.filters {
            match p {
                Plugin::NodeResourcesFit => {
                    // The pods verdict from the packed record: a node
                    // without room for one more pod has none free (its
                    // list may wait to be filed, see `Cluster::unfiled`).
                    let (cpu, memory, _) = fit::insufficient(
                        (b.req.cpu_millis, b.req.memory_bytes),
                        (h.allocated.cpu_millis, h.allocated.memory_bytes),
                        (h.capacity.cpu_millis, h.capacity.memory_bytes),
                        0,
                        1,
                    );
                    let pods = h.pods_free == 0;
                    if cpu || memory || pods {
                        return Err(Unfit::Insufficient {
                            cpu,
                            memory,
                            pods,
                            unresolvable: fit::unresolvable(
                                (b.req.cpu_millis, b.req.memory_bytes),
                                (h.capacity.cpu_millis, h.capacity.memory_bytes),
                            ),
                        });
                    }
                }
                Plugin::PodTopologySpread => self.spread_filter(n, b)?,
                Plugin::InterPodAffinity if b.inter_pod_filter => {
                    self.inter_pod_filter(n, &b.rev)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn spread_filter(&self, n: NodeId, b: &Batch) -> Result<(), Unfit> {
        for s in &b.hard {
            let d = match s.topo {
                None => n.0,
                Some(t) => self.domain(t, n).ok_or(Unfit::SpreadMissingLabel)?,
            };
            let min = s.min_match();
            let matching = s.per_domain.get(d as usize).copied().unwrap_or(0);
            if !spread::skew_ok(matching, s.self_match, min, s.max_skew) {
                return Err(Unfit::SpreadSkew);
            }
        }
        Ok(())
    }

    fn inter_pod_filter(&self, n: NodeId, rev: &Revision) -> Result<(), Unfit> {
        if !rev.affinity_ids.is_empty() {
            // Every term's domain must hold a pod matching all terms...
            let mut exist = true;
            for &t in &rev.affinity_ids {
                let ts = &self.terms[t as usize];
                match self.domain(ts.topo, n) {
                    Some(d) => exist &= ts.matching_in(d) > 0,
                    None => return Err(Unfit::PodAffinity),
                }
            }
            // ...unless no such pod sits in any domain yet and the pod
            // matches its own terms: the first of its group.
            if !exist {
                let none_anywhere = rev
                    .affinity_ids
                    .iter()
                    .all(|&t| self.terms[t as usize].matching_total == 0);
                let first = none_anywhere
                    && rev.affinity_ids.first().is_some_and(|&t| {
                        self.terms[t as usize]
                            .selector
                            .matches(&rev.template.labels)
                    });
                if !first {
                    return Err(Unfit::PodAffinity);
                }
            }
        }
        for &t in &rev.anti_ids {
            let ts = &self.terms[t as usize];
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.matching_in(d) > 0 {
                    return Err(Unfit::PodAntiAffinity);
                }
            }
        }
        for &t in &rev.matching_terms {
            let ts = &self.terms[t as usize];
            if ts.owners.is_empty() {
                continue;
            }
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.owners_in(d) > 0 {
                    return Err(Unfit::ExistingAntiAffinity);
                }
            }
        }
        Ok(())
    }

    /// The verdict of every filter without its reason, for scans: the
    /// packed mirror refuses most nodes without reading them.
    #[inline(always)]
    fn feasible_fast(&mut self, i: usize, b: &mut Batch, profile: &Profile) -> bool {
        if !self.feasible_but_spread(i, b, profile) {
            return false;
        }
        if !b.hard.is_empty() && self.spread_filter(NodeId(i as u32), b).is_err() {
            return false;
        }
        self.inter_pod_passes(i, b)
    }

    /// InterPodAffinity's verdict on node `i` for batch `b`, when it filters.
    #[inline(always)]
    fn inter_pod_passes(&self, i: usize, b: &Batch) -> bool {
        !(b.inter_pod_filter && self.inter_pod_filter(NodeId(i as u32), &b.rev).is_err())
    }

    /// Every filter but PodTopologySpread's and InterPodAffinity's (those
    /// that read other nodes' pods): the node's own state and the template.
    fn feasible_but_spread(&mut self, i: usize, b: &mut Batch, profile: &Profile) -> bool {
        let h = &self.hot[i];
        let fits = h.fits(&b.req) && h.pods_free > 0;
        if h.schedulable && !fits {
            return false;
        }
        if !(h.schedulable && !h.hard_taints && b.plain_template) {
            return self.static_ok_cached(i, b, profile) && fits;
        }
        true
    }

    /// The static filters' verdict on node `i` for batch `b`, from the
    /// batch's cache (it reads the node's spec and conditions only, so the
    /// spec stamp keeps it), computed and kept on a miss. While the batch
    /// files a wider template's index (`filing_base`), that template's
    /// verdict: without NodeAffinity.
    fn static_ok_cached(&self, i: usize, b: &mut Batch, profile: &Profile) -> bool {
        let stamp = self.spec_stamps[i];
        let cached = b.static_ok.get(i, stamp);
        let affinity = !b.filing_base;
        debug_assert!(
            cached.is_none()
                || (cached == Some(1))
                    == self
                        .static_filter_with(NodeId(i as u32), &b.rev, profile, affinity)
                        .is_ok(),
            "a cached static verdict must equal a fresh one"
        );
        match cached {
            Some(v) => v == 1,
            None => {
                let ok = self
                    .static_filter_with(NodeId(i as u32), &b.rev, profile, affinity)
                    .is_ok();
                b.static_ok.set(i, stamp, if ok { 1 } else { 2 });
                ok
            }
        }
    }

    /// NodeAffinity's raw score (the weights of the preferred terms the
    /// node matches), cached per batch until the node's spec changes.
    fn na_raw_cached(&self, i: usize, b: &mut Batch) -> i64 {
        // The terms read the node's name and labels only.
        let stamp = self.spec_stamps[i];
        let fresh = || {
            let s = &self.nodes[i].spec;
            node_affinity::score(&s.name, &s.labels, &b.rev.template.node_affinity)
        };
        if let Some(v) = b.na_raw.get(i, stamp) {
            debug_assert_eq!(
                v,
                fresh(),
                "a cached NodeAffinity score must equal a fresh one"
            );
            return v;
        }
        let v = fresh();
        b.na_raw.set(i, stamp, v);
        v
    }

    /// Which of the batch's preferred node affinity terms node `i` matches
    /// (a bit per term, as `class_with` holds them), cached per batch until
    /// the node's spec changes.
    fn na_mask_cached(&self, i: usize, b: &mut Batch) -> u32 {
        let stamp = self.spec_stamps[i];
        if let Some(v) = b.na_mask.get(i, stamp) {
            debug_assert_eq!(
                v,
                self.na_mask(b, i),
                "a cached term mask must equal a fresh one"
            );
            return v;
        }
        let mask = self.na_mask(b, i);
        b.na_mask.set(i, stamp, mask);
        mask
    }

    /// NodeResourcesFit's and BalancedAllocation's weighted sum, cached per
    /// batch until the node's allocation changes.
    #[inline]
    fn local_cached(&self, i: usize, b: &mut Batch, profile: &Profile) -> i64 {
        let stamp = self.stamps[i];
        if let Some(v) = b.local.get(i, stamp) {
            debug_assert_eq!(
                v,
                self.local_total(NodeId(i as u32), b, profile),
                "a cached node-local score must equal a fresh one"
            );
            return v;
        }
        let v = self.local_total(NodeId(i as u32), b, profile);
        b.local.set(i, stamp, v);
        v
    }

    /// Every filter, for one node.
    fn filter_node(&mut self, n: NodeId, b: &mut Batch, profile: &Profile) -> Result<(), Unfit> {
        if !self.fast_paths.batch_caches {
            self.static_filter(n, &b.rev, profile)?;
            return self.dynamic_filter(n, b, profile);
        }
        let i = n.0 as usize;
        let h = self.hot[i];
        // The packed mirror decides most nodes without reading the node.
        let plain = h.schedulable
            && !h.hard_taints
            && b.rev.template.node_selector.is_empty()
            && b.rev.template.node_affinity.required.is_none();
        if !plain {
            let stamp = self.spec_stamps[i];
            let cached = b.static_ok.get(i, stamp);
            debug_assert!(
                cached.is_none()
                    || (cached == Some(1)) == self.static_filter(n, &b.rev, profile).is_ok(),
                "a cached static verdict must equal a fresh one"
            );
            match cached {
                Some(1) => {}
                Some(_) => return self.static_filter(n, &b.rev, profile),
                None => {
                    let r = self.static_filter(n, &b.rev, profile);
                    b.static_ok.set(i, stamp, if r.is_ok() { 1 } else { 2 });
                    r?;
                }
            }
        }
        self.dynamic_filter(n, b, profile)
    }

    /// Schedules every pending pod, Deployment by Deployment in creation
    /// order (by highest pending priority first once pods have priorities),
    /// revision by revision (the current one first), lowest ordinal first;
    /// pods left Pending may preempt (`preemption.rs`). Returns the binds.
    pub(crate) fn schedule_pending(
        &mut self,
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> u32 {
        // A reconcile run in slices (`reconcile.rs`) resumes where the last
        // slice stopped, and stops between controllers once the slice's
        // binds are spent.
        let resume = self.slice.resume.take();
        if self.pending_total == 0 {
            return 0;
        }
        let mut bound = 0;
        // PrioritySort (see `preemption.rs`); creation order while no pod
        // has a priority.
        let (queue, start) = resume.unwrap_or_else(|| (self.scheduling_queue(), 0));
        let len = queue.as_ref().map_or(self.controllers.len(), |q| q.len());
        for qi in start..len {
            if bound >= self.slice.budget {
                self.slice.resume = Some((queue, qi));
                return bound;
            }
            let c = queue.as_ref().map_or(qi, |q| q[qi] as usize);
            let ctl = &self.controllers[c];
            if ctl.pending.is_empty() || ctl.deleted {
                continue;
            }
            // A bare Pod with spec.nodeName is its kubelet's, never the
            // scheduler's (Pending only while that node does not exist).
            if matches!(&ctl.workload, crate::cluster::Workload::Pod(b) if b.node_name.is_some()) {
                continue;
            }
            if let Some((cap, bind)) = ctl.blocked {
                let helped = cap != self.capacity_epoch
                    || (bind != self.bind_epoch
                        && (self.controller_depends_on_binds(c) || self.may_preempt(c)));
                if !helped {
                    continue;
                }
            }
            let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for o in &ctl.pending {
                let k = ctl.pods[&o];
                groups.entry(self.pod(k).revision).or_default().push(k);
            }
            let cur = ctl.current;
            let mut order: Vec<u32> = groups.keys().copied().filter(|&r| r != cur).collect();
            if groups.contains_key(&cur) {
                order.insert(0, cur);
            }
            let mut left_pending = false;
            let mut preempted = false;
            for r in order {
                let mut keys = groups.remove(&r).unwrap_or_default();
                self.queue_order(&mut keys);
                bound += self.bind_nominated(&mut keys, profile, on_bind.as_deref_mut());
                if keys.is_empty() {
                    continue;
                }
                let (b, left) = self.schedule_batch(
                    ControllerId(c as u32),
                    r,
                    &keys,
                    profile,
                    on_bind.as_deref_mut(),
                );
                bound += b;
                left_pending |= left;
                // PostFilter: DefaultPreemption for the pods left Pending.
                if left && self.priorities_in_use {
                    preempted |= self.preempt_for(&keys[b as usize..], profile);
                }
            }
            self.controllers[c].blocked = if left_pending && !preempted {
                Some((self.capacity_epoch, self.bind_epoch))
            } else {
                None
            };
            // The room made is the preemptors': the rest of the queue
            // (lower or equal priority) waits for the next pass.
            if preempted {
                break;
            }
        }
        bound
    }

    /// Whether a bind elsewhere can make this controller's blocked pods
    /// schedulable: required pod affinity (a group's pods arrive) and hard
    /// spread constraints (the global minimum rises).
    fn controller_depends_on_binds(&self, c: usize) -> bool {
        self.controllers[c].revisions.iter().any(|r| {
            !r.affinity_ids.is_empty()
                || r.template
                    .topology_spread
                    .iter()
                    .any(|s| s.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
        })
    }

    /// A batch the heap path could serve (every node scored, lowest-id
    /// ties) lends a kept sample index instead when refiling what changed
    /// since its last batch costs less than the heap's pass over every
    /// node: then its cycles read the index (`cycle_indexed`, which breaks
    /// ties by lowest id as well), as a small Deployment among thousands
    /// would otherwise visit all 5,000 nodes for a pod or two.
    fn index_instead_of_heap(&mut self, b: &mut Batch, pods: usize, profile: &Profile) {
        let n = self.nodes.len();
        // Only for a batch whose cycles cost well under the heap's pass
        // (the heap pops a pod's node in a few steps; an indexed cycle
        // reads every group's summary when every node is scored): in
        // interleaved rounds a batch of 300 pods at 5,000 nodes took the
        // index in 15% more time than the heap.
        let heap = n as u64 * SCAN_VISIT;
        if b.inter_pod_filter
            || (pods as u64).saturating_mul(CYCLE_VISITS) * 4 > heap
            || !self.index_allowed()
            || n < INDEX_MIN_NODES
            || !(self.bound_classes(b) && self.fast_cycle_applies(b, profile))
        {
            return;
        }
        // What `cycle` would work out at its first call.
        b.fast = Some(true);
        b.heap_cost = Some(heap);
        b.pods_left = pods;
        b.index_tried = true;
        self.lend_index(b, profile);
        #[cfg(test)]
        {
            self.caches.heap_indexes += b.index.is_some() as u32;
        }
    }

    /// Whether every enabled score of this batch depends on its node alone
    /// (or is the same for every node), and the profile scores every node
    /// with lowest-id ties: then a heap of nodes chooses what the cycle would.
    fn heap_path(&self, b: &Batch, profile: &Profile) -> bool {
        if profile.tie_break != TieBreak::LowestNodeId
            || profile.feasible_nodes_to_find(b.live_nodes) < b.live_nodes
            || !b.hard.is_empty()
            || !b.soft.is_empty()
            || b.ipa_score
            || b.node_affinity_score
        {
            return false;
        }
        profile.scores.iter().all(|(p, _)| match p {
            Plugin::NodeResourcesFit | Plugin::NodeResourcesBalancedAllocation => true,
            Plugin::NodeAffinity | Plugin::InterPodAffinity | Plugin::PodTopologySpread => true,
            Plugin::TaintToleration => false,
            Plugin::NodeUnschedulable => true,
        })
    }

    /// The node-local part of a node's total: NodeResourcesFit and
    /// NodeResourcesBalancedAllocation, weighted.
    fn local_total(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        if let Some(l) = b.local_plan {
            let v = self.local_planned(n, b, l);
            debug_assert_eq!(
                v,
                self.local_total_general(n, b, profile),
                "the planned local score must equal the general one"
            );
            return v;
        }
        self.local_total_general(n, b, profile)
    }

    /// NodeResourcesFit (LeastAllocated or MostAllocated over cpu and
    /// memory) and BalancedAllocation, weighted, without the general
    /// plumbing: the same integer and float steps as the plugins' functions.
    #[inline(always)]
    fn local_planned(&self, n: NodeId, b: &Batch, l: LocalPlan) -> i64 {
        Self::local_planned_of(&self.hot[n.0 as usize], b, l)
    }

    /// `local_planned_of` for a plan of LeastAllocated over cpu and memory
    /// weighed alike beside BalancedAllocation, for a pod with requests.
    #[inline(always)]
    fn local_common_of(h: &HotNode, b: &Batch, l: LocalPlan) -> i64 {
        debug_assert!(l.w_fit > 0 && !l.most && l.w_cpu == l.w_mem && l.w_bal > 0);
        if (h.capacity.cpu_millis == 0) | (h.capacity.memory_bytes == 0) {
            return Self::local_zero_capacity_of(h, b, l);
        }
        let (cpu, mem) = Self::fit_pair(h, b, fit::least_requested_score);
        let total = l.w_fit * ((cpu + mem) >> 1) + l.w_bal * Self::balanced_of(h, b);
        debug_assert_eq!(total, Self::local_planned_of(h, b, l));
        total
    }

    /// NodeResourcesFit's score `per` resource (requested with the non-zero
    /// defaults, allocatable) for cpu and memory on node record `h`.
    #[inline(always)]
    fn fit_pair(h: &HotNode, b: &Batch, per: impl Fn(i64, i64) -> i64) -> (i64, i64) {
        (
            per(
                (h.nonzero.cpu_millis + b.nonzero.cpu_millis) as i64,
                h.capacity.cpu_millis as i64,
            ),
            per(
                (h.nonzero.memory_bytes + b.nonzero.memory_bytes) as i64,
                h.capacity.memory_bytes as i64,
            ),
        )
    }

    /// BalancedAllocation's score for cpu and memory on node record `h`
    /// (`balanced_score`'s, inline for the refile loops): the balance with
    /// the pod's requests against the node's own, both with both
    /// capacities nonzero.
    #[inline(always)]
    fn balanced_of(h: &HotNode, b: &Batch) -> i64 {
        // Through i64: one conversion instruction where u64 takes
        // several, and the same value (a node's requests stay below its
        // allocatable plus the pod's, at most 2 x MAX_MEMORY_BYTES = 2^51
        // bytes and far fewer millicores). Each resource's two
        // fractions, with the pod and without, side by side over the same
        // allocatable, so the two divisions can go as one two-lane one.
        let f = |x: u64| x as i64 as f64;
        let (ac, am) = (h.allocated.cpu_millis, h.allocated.memory_bytes);
        let (cpu, mem) = (f(h.capacity.cpu_millis), f(h.capacity.memory_bytes));
        let fc = [f(ac + b.req.cpu_millis) / cpu, f(ac) / cpu];
        let fm = [f(am + b.req.memory_bytes) / mem, f(am) / mem];
        let capped = |x: f64| if x > 1.0 { 1.0 } else { x };
        let balance = |i: usize| {
            let std = plugins::abs((capped(fc[i]) - capped(fm[i])) / 2.0);
            ((1.0 - std) * plugins::MAX_NODE_SCORE as f64) as i64
        };
        balanced::change(balance(0), balance(1))
    }

    /// `local_planned_of` for a node with no allocatable cpu or memory:
    /// kube-scheduler's scorers leave out a resource whose allocatable is 0
    /// (noderesources: leastResourceScorer, mostResourceScorer and
    /// balancedResourceScorer skip it), so the fit score is the other
    /// resource's alone (0 with neither) and each balance is over one
    /// resource (a deviation of 0: 100 with the pod and without, so the
    /// change scores 75). Only pods that request none of the
    /// missing resource fit there.
    #[cold]
    #[inline(never)]
    fn local_zero_capacity_of(h: &HotNode, b: &Batch, l: LocalPlan) -> i64 {
        let caps = [h.capacity.cpu_millis as i64, h.capacity.memory_bytes as i64];
        let mut total = 0i64;
        if l.w_fit > 0 {
            let req = [
                (h.nonzero.cpu_millis + b.nonzero.cpu_millis) as i64,
                (h.nonzero.memory_bytes + b.nonzero.memory_bytes) as i64,
            ];
            let (mut sum, mut weights) = (0i64, 0i64);
            for ((&r, &c), w) in req.iter().zip(&caps).zip([l.w_cpu, l.w_mem]) {
                if c == 0 {
                    continue;
                }
                sum += w * if l.most {
                    fit::most_requested_score(r, c)
                } else {
                    fit::least_requested_score(r, c)
                };
                weights += w;
            }
            if weights > 0 {
                total += l.w_fit * (sum / weights);
            }
        }
        if l.w_bal > 0 && !b.best_effort {
            let req = [
                (h.allocated.cpu_millis + b.req.cpu_millis) as i64,
                (h.allocated.memory_bytes + b.req.memory_bytes) as i64,
            ];
            let on = [
                h.allocated.cpu_millis as i64,
                h.allocated.memory_bytes as i64,
            ];
            total += l.w_bal * balanced::score(&req, &on, &caps);
        }
        total
    }

    /// `local_planned` for the node record `h`.
    #[inline(always)]
    fn local_planned_of(h: &HotNode, b: &Batch, l: LocalPlan) -> i64 {
        if (h.capacity.cpu_millis == 0) | (h.capacity.memory_bytes == 0) {
            return Self::local_zero_capacity_of(h, b, l);
        }
        let mut total = 0i64;
        if l.w_fit > 0 {
            let (cpu, mem) = Self::fit_pair(h, b, |r, c| {
                if c == 0 {
                    0
                } else if l.most {
                    fit::most_requested_score(r, c)
                } else {
                    fit::least_requested_score(r, c)
                }
            });
            // Both scores are 0..=100, so with equal weights the weighted
            // mean is their sum halved (the default profile's case), without
            // a division.
            let mean = if l.w_cpu == l.w_mem {
                (cpu + mem) >> 1
            } else {
                (cpu * l.w_cpu + mem * l.w_mem) / l.w_sum
            };
            debug_assert_eq!(mean, (cpu * l.w_cpu + mem * l.w_mem) / l.w_sum);
            total += l.w_fit * mean;
        }
        if l.w_bal > 0 && !b.best_effort {
            total += l.w_bal * Self::balanced_of(h, b);
        }
        total
    }

    fn local_total_general(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        let mut total = 0;
        for &(p, w) in &profile.scores {
            match p {
                Plugin::NodeResourcesFit => total += w * self.fit_score(n, b, profile),
                Plugin::NodeResourcesBalancedAllocation => total += w * self.balanced_score(n, b),
                _ => {}
            }
        }
        total
    }

    fn fit_score(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        let h = &self.hot[n.0 as usize];
        let mut req = [0i64; 2];
        let mut alloc = [0i64; 2];
        for (i, (r, _)) in profile.fit.resources.iter().enumerate().take(2) {
            let (have, add, cap) = match r {
                Resource::Cpu => (
                    h.nonzero.cpu_millis,
                    b.nonzero.cpu_millis,
                    h.capacity.cpu_millis,
                ),
                Resource::Memory => (
                    h.nonzero.memory_bytes,
                    b.nonzero.memory_bytes,
                    h.capacity.memory_bytes,
                ),
            };
            req[i] = (have + add) as i64;
            alloc[i] = cap as i64;
        }
        let k = profile.fit.resources.len().min(2);
        fit::score(&profile.fit, &req[..k], &alloc[..k])
    }

    fn balanced_score(&self, n: NodeId, b: &Batch) -> i64 {
        if b.best_effort {
            return 0;
        }
        let h = &self.hot[n.0 as usize];
        balanced::score(
            &[
                (h.allocated.cpu_millis + b.req.cpu_millis) as i64,
                (h.allocated.memory_bytes + b.req.memory_bytes) as i64,
            ],
            &[
                h.allocated.cpu_millis as i64,
                h.allocated.memory_bytes as i64,
            ],
            &[h.capacity.cpu_millis as i64, h.capacity.memory_bytes as i64],
        )
    }

    fn schedule_batch(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        keys: &[u32],
        profile: &Profile,
        on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, bool) {
        // NodeAffinity's PreFilter: a pod pinned to one node by name (a
        // DaemonSet's) is filtered on that node only (scheduler/pinned.rs).
        let pinned =
            self.pinned_node(&self.controllers[c.0 as usize].revisions[rev_no as usize - 1]);
        if let Some(n) = pinned.filter(|_| self.fast_paths.pinned) {
            return self.schedule_pinned(c, rev_no, n, keys, profile, on_bind);
        }
        if !self.fast_paths.cross_batch {
            self.caches = Default::default();
        }
        let mut b = self.new_batch(c, rev_no, profile);
        b.prefiltered = pinned;
        let heap = self.fast_paths.heap && pinned.is_none() && self.heap_path(&b, profile);
        if heap {
            self.index_instead_of_heap(&mut b, keys.len(), profile);
        }
        let (bound, done) = if heap && b.index.is_none() {
            self.schedule_batch_heap(&mut b, keys, profile, on_bind)
        } else {
            self.schedule_batch_cycles(&mut b, keys, profile, on_bind)
        };
        self.file_pods();
        let left = done < keys.len();
        if left {
            self.report_unschedulable(&mut b, &keys[done..], profile);
        }
        self.end_batch(b);
        (bound, left)
    }

    /// Returns the batch's per-node values to the cluster's caches.
    fn end_batch(&mut self, mut b: Batch) {
        self.end_masked(&mut b);
        // An index holding this revision's inter-pod verdicts is the batch's
        // own (`lend_index`): not kept.
        if let Some(mut ix) = b.index.filter(|_| !b.inter_pod_local) {
            for &i in &b.index_dirty {
                ix.stale(i as usize);
            }
            // The batch filed the nodes it bound to at their stamps: the
            // index is true up to now but for its marked and lazy slots.
            // Nothing else stamps a node while a batch holds an index (the
            // next lend checks every fresh slot in debug builds).
            ix.synced = self.stamp_clock;
            self.caches.keep_index(ix);
        }
        let preferred = &b.rev.template.node_affinity.preferred;
        if !preferred.is_empty() {
            self.caches
                .keep_affinity(preferred.clone(), b.na_raw, b.na_mask);
        }
        self.caches
            .give_back(b.static_key, b.static_ok, b.local_key, b.local);
        // The recycled count buffer back, zeroed where it counted (or as
        // the batch got it, when its spreading did not take it).
        let counts = match b.recycled {
            Some(j) => {
                let mut counts = core::mem::take(&mut b.soft[j].per_node);
                for &i in b.holding.iter().flatten().chain(&b.counted) {
                    counts[i as usize] = 0;
                }
                counts
            }
            None => b.counts,
        };
        self.caches.keep_spare(Spare {
            counts,
            counted: b.counted,
            feasible: b.feasible,
            feasible_slots: b.feasible_slots,
            raw: b.raw,
            totals: b.totals,
            spread_raw: b.spread_raw,
            index_dirty: b.index_dirty,
            ix: b.ix,
        });
    }

    /// Writes `last_cycle` for a bind that looked at node `n` alone: a
    /// pod pinned to it (NodeAffinity's PreFilter result), or its nominated
    /// node; or, from the heap of a profile whose ties go to the lowest
    /// id, a node taken without a list (nothing scored recorded).
    pub(crate) fn record_one(&mut self, n: NodeId, nominated: bool) {
        let rec = &mut self.last_cycle;
        rec.start = n.0;
        rec.scored.clear();
        rec.totals.clear();
        rec.chosen = Some(n);
        rec.nominated = nominated;
    }

    /// Whether pod `k` is named `name` (as `Cluster::pod_name` writes it),
    /// without writing its name.
    fn pod_has_name(&self, k: u32, name: &str) -> bool {
        let p = self.pod(k);
        let ctl = &self.controllers[p.controller.0 as usize];
        match ctl.workload {
            crate::cluster::Workload::Pod(_) => ctl.name == name,
            _ => name
                .strip_prefix(ctl.name.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|ord| ord.parse::<u32>() == Ok(p.ordinal)),
        }
    }

    fn bind_observed(&mut self, k: u32, n: NodeId, on_bind: &mut Option<&mut OnBind<'_>>) {
        self.bind(k, n);
        if let Some(f) = on_bind.as_deref_mut() {
            let p = self.pod(k);
            f(self, &self.pod_name(p.controller, p.ordinal), n);
        }
    }

    /// The teaching profiles' path: one scan into a heap, then each bind
    /// re-scores only its node (the only one whose score changed).
    fn schedule_batch_heap(
        &mut self,
        b: &mut Batch,
        keys: &[u32],
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, usize) {
        const TOP: i64 = 1 << 30;
        let key_of = |total: i64, n: NodeId| ((TOP - total) as u64) << 32 | n.0 as u64;
        let mut heap_keys: Vec<u64> = Vec::with_capacity(self.nodes.len());
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            if !self.feasible_fast(i, b, profile) {
                continue;
            }
            let n = NodeId(i as u32);
            heap_keys.push(key_of(self.local_cached(i, b, profile), n));
        }
        // Without inter-pod terms only the bound node's score changes, so the
        // k pods of the batch land within the k best nodes: keep just those.
        if !b.inter_pod_filter && heap_keys.len() > keys.len() {
            heap_keys.select_nth_unstable(keys.len() - 1);
            heap_keys.truncate(keys.len());
        }
        let mut heap: BinaryHeap<Reverse<u64>> = heap_keys.into_iter().map(Reverse).collect();
        let (mut bound, mut i) = (0, 0);
        while i < keys.len() {
            let Some(Reverse(key)) = heap.pop() else {
                break;
            };
            let n = NodeId(key as u32);
            // Only this batch's own binds can have changed feasibility since
            // the node was pushed (inter-pod terms, pods count); check again.
            if self.dynamic_filter(n, b, profile).is_err() {
                continue;
            }
            self.record_one(n, false);
            self.bind_observed(keys[i], n, &mut on_bind);
            bound += 1;
            i += 1;
            if self.dynamic_filter(n, b, profile).is_ok() {
                heap.push(Reverse(key_of(
                    self.local_cached(n.0 as usize, b, profile),
                    n,
                )));
            }
        }
        (bound, i)
    }

    /// kube-scheduler's cycle, pod by pod.
    fn schedule_batch_cycles(
        &mut self,
        b: &mut Batch,
        keys: &[u32],
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, usize) {
        let mut bound = 0;
        // The cycles' scratch, out of the batch while they run (moving it
        // in and out each cycle copied it).
        let mut x = core::mem::take(&mut b.ix);
        for (i, &k) in keys.iter().enumerate() {
            b.record = on_bind.is_some()
                && self
                    .record_for
                    .as_deref()
                    .is_none_or(|name| self.pod_has_name(k, name));
            b.pods_left = keys.len() - i;
            match self.cycle(b, &mut x, profile) {
                Some(n) => {
                    // Unobserved, a bind leaves its node's list to the
                    // batch's end (see `Cluster::unfiled`).
                    if on_bind.is_some() {
                        self.bind_observed(k, n, &mut on_bind);
                    } else {
                        self.bind_unfiled(k, n);
                    }
                    self.spread_bound(b, n);
                    self.index_bound(b, n, profile);
                    bound += 1;
                }
                None => {
                    b.ix = x;
                    return (bound, i);
                }
            }
        }
        b.ix = x;
        (bound, keys.len())
    }

    /// One scheduling cycle for one pod of the batch: the chosen node.
    fn cycle(&mut self, b: &mut Batch, x: &mut IxScratch, profile: &Profile) -> Option<NodeId> {
        let slots = self.nodes.len() as u32;
        if slots == 0 {
            return None;
        }
        // NodeAffinity's PreFilter named one node: that node's verdict
        // alone, as the pinned path gives it (`pinned.rs`; nothing scored,
        // and the next cycle starts where it would have).
        if let Some(n) = b.prefiltered {
            let chosen = self.filter_node(n, b, profile).is_ok().then_some(n);
            if let Some(n) = chosen {
                self.record_one(n, false);
            }
            return chosen;
        }
        if self.fast_paths.classes && (b.fast == Some(true) || b.fast.is_none()) {
            if b.fast.is_none() {
                let classes_fit = self.bound_classes(b);
                b.fast = Some(classes_fit && self.fast_cycle_applies(b, profile));
            }
            if b.fast == Some(true) {
                if let Some(chosen) = self.cycle_fast(b, x, profile) {
                    return chosen;
                }
            }
        }
        let to_find = profile.feasible_nodes_to_find(b.live_nodes) as usize;
        let start = self.next_start_node % slots;
        let mut feasible = core::mem::take(&mut b.feasible);
        feasible.clear();
        let mut visited = 0;
        let mut soft_taints = false;
        for (step, i) in (start..slots).chain(0..start).enumerate() {
            visited = step as u32 + 1;
            if self.hot[i as usize].removed {
                continue;
            }
            let feasible_here = if self.fast_paths.batch_caches {
                self.feasible_fast(i as usize, b, profile)
            } else {
                self.filter_node(NodeId(i), b, profile).is_ok()
            };
            if feasible_here {
                soft_taints |= self.hot[i as usize].soft_taints;
                feasible.push(i);
                if feasible.len() == to_find {
                    break;
                }
            }
        }
        self.next_start_node = (start + visited) % slots;
        let chosen = match feasible.len() {
            0 => None,
            1 => Some(NodeId(feasible[0])),
            _ => {
                if !(self.fast_paths.batch_caches
                    && self.score_fast(b, &feasible, profile, soft_taints))
                {
                    self.score_feasible(b, &feasible, profile, None);
                }
                Some(NodeId(feasible[self.select(&b.totals, &feasible, profile)]))
            }
        };
        self.record_cycle(b, start, chosen, &feasible);
        b.feasible = feasible;
        chosen
    }

    /// Writes `last_cycle`: always where it started and what it chose; the
    /// scored nodes and their totals (`b.totals`) only while an observer
    /// watches, so an unobserved cycle copies nothing.
    fn record_cycle(&mut self, b: &Batch, start: u32, chosen: Option<NodeId>, scored: &[u32]) {
        let rec = &mut self.last_cycle;
        rec.start = start;
        rec.chosen = chosen;
        rec.nominated = false;
        rec.scored.clear();
        rec.totals.clear();
        if b.record {
            rec.scored.extend(scored.iter().map(|&i| NodeId(i)));
            if scored.len() > 1 {
                rec.totals.extend_from_slice(&b.totals);
            }
        }
    }

    /// Keeps the batch's classes (see `class_with`) under [`MAX_CLASSES`]:
    /// the fast cycle's per-class buffers are indexed by class. Past it,
    /// the preferred terms and the hard zone domain leave the class (the
    /// scan scores and filters them node by node); false when even the
    /// spread classes alone would pass it (the general cycle then runs).
    fn bound_classes(&self, b: &mut Batch) -> bool {
        let spread = match b.soft.first() {
            None => 1u64,
            Some(s) => {
                let most = match &b.holding {
                    Some(h) => h.iter().map(|&i| s.per_node[i as usize]).max().unwrap_or(0),
                    None => s.per_node.iter().copied().max().unwrap_or(0),
                };
                debug_assert_eq!(most, s.per_node.iter().copied().max().unwrap_or(0));
                let stride = self.spread_stride(b) as u64;
                // A node's count of the batch's pods reaches at most its
                // count now plus the pods left, and never more pods than
                // it holds: its allocatable pods (or more, when that was
                // lowered under pods it already had). The second bound is
                // read only when the first would pass MAX_CLASSES (a batch
                // of 30,000 pods at 10,000 nodes).
                let mut reach = most as u64 + b.pods_left as u64;
                if (reach + 1) * stride > MAX_CLASSES {
                    reach = reach.min(self.most_pods_a_node_may_hold());
                }
                (reach + 1) * stride
            }
        };
        let with_na = spread << b.na_bits;
        let all = with_na.saturating_mul(b.hard_zone.map_or(1, |(_, hs)| hs as u64));
        if all <= MAX_CLASSES {
            return true;
        }
        b.na_bits = 0;
        b.hard_zone = None;
        spread <= MAX_CLASSES
    }

    /// The most pods any live node holds or may hold: the largest of its
    /// allocatable pods and its pods now, over the live nodes.
    fn most_pods_a_node_may_hold(&self) -> u64 {
        self.nodes
            .iter()
            .zip(&self.node_pods)
            .filter(|(n, _)| !n.removed)
            .map(|(n, on)| (n.spec.max_pods as u64).max(on.len() as u64))
            .max()
            .unwrap_or(0)
    }

    /// Whether the batch has the shape `cycle_fast` scores: no inter-pod
    /// scoring terms, soft spreading absent or the system defaults' shape,
    /// and no score plugin beyond kube-scheduler's default ones (preferred
    /// node affinity is scored node by node; any filter is fine).
    fn fast_cycle_applies(&self, b: &Batch, profile: &Profile) -> bool {
        // Filters of any kind are fine (the scan runs them all); the scores
        // must be the common shape.
        if b.ipa_score {
            return false;
        }
        // The system defaults (hostname, then zone), or one hostname
        // constraint of the pod's own (every node has its hostname, so
        // requiring every key ignores none).
        // A node without a hostname label scores without the hostname
        // constraint: the general scorer's case, unless no node has the
        // label (then no node scores that term, see `hostname_absent`).
        let spread_ok = b.soft.is_empty()
            || (b.hostname_labels.is_none() || self.hostname_absent(b))
                && (b.soft.len() == 2
                    && !b.soft_require_all
                    && b.soft[0].topo.is_none()
                    && b.soft[1].topo.is_some()
                    || b.soft.len() == 1 && b.soft[0].topo.is_none());
        spread_ok
            && profile.scores.iter().all(|(p, _)| {
                matches!(
                    p,
                    Plugin::NodeResourcesFit
                        | Plugin::NodeResourcesBalancedAllocation
                        | Plugin::TaintToleration
                        | Plugin::NodeAffinity
                        | Plugin::InterPodAffinity
                        | Plugin::PodTopologySpread
                )
            })
    }

    /// kube-scheduler's cycle for the common shape in two tight passes over
    /// the sample: the same sample, totals and choice as `cycle` computes
    /// through the general scorer (the reference test checks every bind).
    /// `None`: a node in the sample needs the general scorer (an untolerated
    /// PreferNoSchedule taint under TaintToleration); nothing was changed.
    fn cycle_fast(
        &mut self,
        b: &mut Batch,
        x: &mut IxScratch,
        profile: &Profile,
    ) -> Option<Option<NodeId>> {
        // The index keeps feasibility per node, right while only the bound
        // node's feasibility can change: not with hard spread terms (but a
        // zone one, filtered per class), where one bind changes whole
        // domains, nor inter-pod terms unless their verdicts move node by
        // node (`inter_pod_node_local`; such an index is the batch's own).
        // Preferred node affinity takes its terms into the class (when
        // there are few); with more, the score is not the same within a class.
        if !b.index_tried
            && (b.hard.is_empty() || b.hard_zone.is_some())
            && (!b.inter_pod_filter || b.inter_pod_local)
            && (!b.node_affinity_score || b.na_bits > 0)
            && self.index_allowed()
            && self.nodes.len() >= INDEX_MIN_NODES
        {
            b.index_tried = true;
            self.lend_index(b, profile);
        }
        if b.index.is_some() {
            return Some(self.cycle_indexed(b, x, profile));
        }
        let slots = self.nodes.len() as u32;
        let to_find = profile.feasible_nodes_to_find(b.live_nodes) as usize;
        let start = self.next_start_node % slots;
        let tt = profile.weight(Plugin::TaintToleration);
        let w_spread = profile.weight(Plugin::PodTopologySpread).unwrap_or(0);
        let spread = w_spread > 0 && !b.soft.is_empty();
        let zone_topo = if spread { b.class_zone } else { None };
        let stride = zone_topo.map_or(1, |t| self.topologies[t as usize].domains.len() + 1);
        // Nodes are told apart by class (as the index does) when spreading
        // or preferred node affinity's terms give them different scores.
        let classed = spread || b.na_bits > 0 || b.hard_zone.is_some();
        let mut feasible = core::mem::take(&mut b.feasible);
        let mut classes = core::mem::take(&mut b.feasible_slots);
        feasible.clear();
        classes.clear();
        // kube-scheduler moves the next start past every node it processed:
        // all of them when the sample does not fill (processedNodes).
        let mut visited = slots;
        // A hard spread constraint over a zone-like key passes or fails a
        // whole domain: decided once per cycle, its failing domains' nodes
        // are skipped without running the filters (which would fail them).
        let mut gate = core::mem::take(&mut x.gate);
        let gate_topo = self.domain_gate(b, &mut gate);
        // Pass 1: the sample, and each node's spread class (its pods of the
        // batch, its domain).
        for (step, i) in (start..slots).chain(0..start).enumerate() {
            let iu = i as usize;
            let h = &self.hot[iu];
            if h.removed {
                continue;
            }
            if let Some(t) = gate_topo {
                match self.topologies[t as usize].node_domain[iu] {
                    Some(d) if gate[d as usize] => {}
                    _ => continue,
                }
            }
            let simple = h.schedulable
                && !h.hard_taints
                && b.plain_template
                && b.hard.is_empty()
                && !b.inter_pod_filter;
            if simple {
                if !(h.fits(&b.req) && h.pods_free > 0) {
                    continue;
                }
            } else if !self.feasible_fast(iu, b, profile) {
                continue;
            }
            let h = &self.hot[iu];
            if h.soft_taints && tt.is_some() {
                b.feasible = feasible;
                b.feasible_slots = classes;
                x.gate = gate;
                return None;
            }
            feasible.push(i);
            if classed {
                let mask = if b.na_bits > 0 {
                    self.na_mask_cached(iu, b)
                } else {
                    0
                };
                classes.push(self.class_with(b, iu, stride, mask));
            }
            if feasible.len() == to_find {
                visited = step as u32 + 1;
                break;
            }
        }
        x.gate = gate;
        self.next_start_node = (start + visited) % slots;
        let m = feasible.len();
        let chosen = match m {
            0 => None,
            1 => Some(NodeId(feasible[0])),
            _ => {
                let base = tt.map_or(0, |w| w * plugins::MAX_NODE_SCORE);
                // The spread score per class, normalised over the classes
                // present (`x.norm` is indexed by class, i64::MIN between cycles).
                x.present.clear();
                if classed {
                    let top_class = classes.iter().copied().max().unwrap_or(0) as usize;
                    if x.norm.len() <= top_class {
                        x.norm.resize(top_class + 1, i64::MIN);
                        x.tied.resize(top_class + 1, 0);
                    }
                    for &c in classes.iter() {
                        if x.norm[c as usize] == i64::MIN {
                            x.norm[c as usize] = 0;
                            x.present.push(c);
                        }
                    }
                    if spread {
                        let present = core::mem::take(&mut x.present);
                        self.class_spread_scores_into(b, &present, m, x);
                        x.present = present;
                        for &(c, v) in &x.scores {
                            x.norm[c as usize] = v;
                        }
                    }
                }
                // NodeAffinity's preferred terms: DefaultNormalizeScore, the
                // highest raw score in the sample is 100.
                let w_na = if b.node_affinity_score {
                    profile.weight(Plugin::NodeAffinity).unwrap_or(0)
                } else {
                    0
                };
                let mut na_max = 0i64;
                if w_na > 0 {
                    x.na.clear();
                    for &i in feasible.iter() {
                        let v = self.na_raw_cached(i as usize, b);
                        na_max = na_max.max(v);
                        x.na.push(v);
                    }
                }
                // Pass 2: totals, the best, and how many share it.
                b.totals.clear();
                let mut best = i64::MIN;
                let mut ties = 0u64;
                for j in 0..m {
                    let i = feasible[j] as usize;
                    let mut t = base + self.local_cached(i, b, profile);
                    if spread {
                        t += w_spread * x.norm[classes[j] as usize];
                    }
                    if na_max > 0 {
                        t += w_na * (plugins::MAX_NODE_SCORE * x.na[j] / na_max);
                    }
                    b.totals.push(t);
                    if t > best {
                        best = t;
                        ties = 1;
                    } else if t == best {
                        ties += 1;
                    }
                }
                let pick = match profile.tie_break {
                    TieBreak::Random if ties > 1 => self.rng.below(ties) as usize,
                    _ => 0,
                };
                let chosen = match profile.tie_break {
                    // The tied nodes in (class, visiting order): the
                    // order the indexed cycle draws from too.
                    TieBreak::Random if classed => {
                        for (&t, &c) in b.totals[..m].iter().zip(&classes[..m]) {
                            if t == best {
                                x.tied[c as usize] += 1;
                            }
                        }
                        x.present.sort_unstable();
                        let mut r = pick as u32;
                        let mut class = u32::MAX;
                        for &c in &x.present {
                            let here = x.tied[c as usize];
                            if class == u32::MAX && r < here {
                                class = c;
                            } else if class == u32::MAX {
                                r -= here;
                            }
                        }
                        let mut chosen = 0;
                        for (j, (&t, &c)) in b.totals[..m].iter().zip(&classes[..m]).enumerate() {
                            if t == best && c == class {
                                if r == 0 {
                                    chosen = j;
                                    break;
                                }
                                r -= 1;
                            }
                        }
                        chosen
                    }
                    TieBreak::Random => (0..m)
                        .filter(|&j| b.totals[j] == best)
                        .nth(pick)
                        .unwrap_or(0),
                    TieBreak::LowestNodeId => (0..m)
                        .filter(|&j| b.totals[j] == best)
                        .min_by_key(|&j| feasible[j])
                        .unwrap_or(0),
                };
                for &c in &x.present {
                    x.norm[c as usize] = i64::MIN;
                    x.tied[c as usize] = 0;
                }
                Some(NodeId(feasible[chosen]))
            }
        };
        self.record_cycle(b, start, chosen, &feasible);
        b.feasible = feasible;
        b.feasible_slots = classes;
        Some(chosen)
    }

    /// The class of a slot: its spread class (its pods of the batch, its
    /// domain slot), then the preferred node affinity terms it matches
    /// (`mask`, in the `na_bits` low bits), then a hard zone constraint's
    /// domain. Nodes of one class in a sample get the same
    /// PodTopologySpread and NodeAffinity scores.
    #[inline(always)]
    fn class_with(&self, b: &Batch, i: usize, stride: usize, mask: u32) -> u32 {
        let spread = if b.soft.is_empty() {
            0
        } else {
            let d = b
                .class_zone
                .and_then(|t| self.topologies[t as usize].node_domain[i])
                .map_or(stride - 1, |d| d as usize);
            (b.soft[0].per_node[i] as usize * stride + d) as u32
        };
        let c = if b.na_bits == 0 {
            spread
        } else {
            spread << b.na_bits | mask
        };
        match b.hard_zone {
            None => c,
            Some((t, hs)) => {
                let d = self.topologies[t as usize].node_domain[i].map_or(hs - 1, |d| d as usize);
                (c as usize * hs + d) as u32
            }
        }
    }

    /// Which of the batch's preferred node affinity terms node `i` matches,
    /// a bit per term.
    fn na_mask(&self, b: &Batch, i: usize) -> u32 {
        let s = &self.nodes[i].spec;
        let mut mask = 0u32;
        for (j, p) in b.rev.template.node_affinity.preferred.iter().enumerate() {
            if p.preference.matches(&s.name, &s.labels) {
                mask |= 1 << j;
            }
        }
        mask
    }

    /// The topology of the zone digit of `b`'s spread classes: the second
    /// soft constraint's (the system defaults' zone constraint; the fast
    /// cycle's classes read no other). A batch spread by hostname alone
    /// (one ScheduleAnyway constraint, no hard zone or preferred terms)
    /// under a profile with the system defaults takes their zone topology
    /// as a digit too, when the cluster has it: the digit scores nothing
    /// (`class_spread_scores_into` reads the zone constraint, which the
    /// batch lacks), but every node holding none of the batch's pods then
    /// has the class the Deployments under the system defaults give it,
    /// its zone, so both share one kept index (`lend_index`).
    fn class_zone(&self, b: &Batch, profile: &Profile) -> Option<u32> {
        if let Some(t) = b.soft.get(1).and_then(|z| z.topo) {
            return Some(t);
        }
        let hostname_alone = matches!(&b.soft[..], [s] if s.topo.is_none());
        if !(hostname_alone
            && b.hard_zone.is_none()
            && b.na_bits == 0
            && profile.system_default_spreading)
        {
            return None;
        }
        // The digit multiplies the batch's classes by the zone key's values:
        // not for a key with a value per node or so (the classes would
        // outgrow what a fast cycle tells apart).
        self.topologies
            .iter()
            .position(|t| t.key == spread::ZONE_KEY && t.domains.len() < INERT_ZONE_DOMAINS)
            .map(|t| t as u32)
    }

    fn spread_stride(&self, b: &Batch) -> usize {
        if b.soft.is_empty() {
            return 1;
        }
        b.class_zone
            .map_or(1, |t| self.topologies[t as usize].domains.len() + 1)
    }

    /// Lends the batch the sample index kept for its key, caught up with
    /// the nodes changed since and with the nodes holding the batch's own
    /// pods, or builds one, when that costs less than the scans it saves
    /// (in `IndexUse::Auto`). Not with a PreferNoSchedule taint on a live
    /// node under TaintToleration (the general scorer's case).
    fn lend_index(&mut self, b: &mut Batch, profile: &Profile) {
        debug_assert_eq!(
            self.soft_tainted as usize,
            self.hot
                .iter()
                .filter(|h| h.soft_taints && !h.removed)
                .count()
        );
        if profile.weight(Plugin::TaintToleration).is_some() && self.soft_tainted > 0 {
            return;
        }
        self.lend_masked(b, profile);
        if b.masked.is_none() {
            self.lend_index_keyed(b, profile);
            return;
        }
        swap_filing(b);
        self.lend_index_keyed(b, profile);
        swap_filing(b);
        match (&mut b.masked, &b.index) {
            (Some(m), Some(ix)) => {
                m.total = ix.blocks.masked_total(&m.view);
                #[cfg(test)]
                {
                    self.caches.masked_lends += 1;
                }
            }
            _ => self.end_masked(b),
        }
    }

    /// Prepares batch `b` to borrow the kept index of a wider template
    /// through a view (`sample_index::Masked`), when one is kept: the same
    /// requests, tolerations and spread classes, without the batch's
    /// nodeSelector, required node affinity and preferred terms. Many
    /// Deployments that select or prefer some nodes run beside many that do
    /// not; each kept an index of its own, which every bind elsewhere made
    /// stale and which few batches lent, so each lend refiled most nodes
    /// (in the Zipf mix, the eighth of its Deployments that select or
    /// prefer `disktype: ssd` refiled 45% of the slots). Borrowed, the wider
    /// index is refiled as the batches of the wider template keep it, and the
    /// batch's view holds what its own index would: the nodes its static
    /// filters pass, in the classes `class << na_bits | terms matched`.
    fn lend_masked(&mut self, b: &mut Batch, profile: &Profile) {
        if b.inter_pod_filter
            || b.inter_pod_local
            || !b.hard.is_empty()
            || b.hard_zone.is_some()
            || (b.plain_template && b.na_bits == 0)
            || b.na_bits > MASKED_NA_BITS
            || !self.index_allowed()
        {
            return;
        }
        let base_key = cache::StaticKey {
            node_selector: Default::default(),
            required: None,
            tolerations: b.static_key.tolerations.clone(),
        };
        let key = self.index_key(b, base_key.clone(), 0);
        let Some(base_stale) = self.caches.stale_slots(&key) else {
            return;
        };
        // The view reads the nodes' specs, conditions and presence: kept
        // between batches of the template while the node epoch stays.
        let na = b.na_bits;
        let view_key = (
            b.static_key.clone(),
            b.rev.template.node_affinity.preferred.clone(),
        );
        let epoch = self.node_epoch;
        let view = match self.caches.lend_view(&view_key, epoch) {
            Some(v) if v.na == na && v.slots() == self.nodes.len() => v,
            _ => {
                let mut view = sample_index::Masked::new(self.nodes.len(), na);
                for i in 0..self.nodes.len() {
                    if self.hot[i].removed
                        || !(b.plain_template || self.static_ok_cached(i, b, profile))
                    {
                        continue;
                    }
                    let p = if na > 0 { self.na_mask_cached(i, b) } else { 0 };
                    view.admit(i, p);
                }
                view
            }
        };
        // Against the batch's own index: a cycle through the view reads the
        // blocks its sample spans (about k over the admitted share of the
        // nodes), where one over its own index reads a few groups' summaries
        // or a sample it kept. The own index pays when it is lent often
        // enough to stay fresh, or for a batch of many pods; the view saves
        // refiling a rarely lent index (every node, at worst) or building it.
        let n = self.nodes.len() as u64;
        let k = profile.feasible_nodes_to_find(b.live_nodes) as u64;
        let per_cycle = (k.saturating_mul(n) / (view.admitted_count() as u64).max(1)).min(n);
        let through_view = (b.pods_left as u64)
            .saturating_mul(per_cycle / BLOCK_WORD as u64 * MASKED_BLOCK_VISITS)
            .saturating_add(base_stale * LOAD_VISITS);
        let own_key = self.index_key(b, b.static_key.clone(), b.na_bits);
        let own = match self.caches.stale_slots(&own_key) {
            Some(stale) => stale * LOAD_VISITS,
            None => FILE_VISITS * n,
        };
        if through_view >= own {
            self.caches.keep_view(view_key, epoch, view);
            return;
        }
        // A template without nodeSelector or required terms has the wider
        // template's static key: its verdicts are the batch's own.
        let base_static = (!b.plain_template).then(|| self.caches.lend_static(&base_key));
        b.masked = Some(alloc::boxed::Box::new(MaskedLend {
            view,
            view_key,
            epoch,
            total: 0,
            swap_na: 0,
            swap_plain: true,
            base_static,
            base_key,
        }));
    }

    /// Ends batch `b`'s loan of a wider index's view: the wider template's
    /// static verdicts go back to the caches.
    fn end_masked(&mut self, b: &mut Batch) {
        debug_assert!(!b.filing_base, "not while filing");
        if let Some(m) = b.masked.take() {
            let m = *m;
            if let Some(s) = m.base_static {
                self.caches.give_static(m.base_key, s);
            }
            self.caches.keep_view(m.view_key, m.epoch, m.view);
        }
    }

    /// The key of batch `b`'s kept index with static filters `statics` and
    /// the first `na_bits` of its preferred terms in the classes (its own
    /// key, or with none of them a wider template's: see `lend_masked`).
    fn index_key(&self, b: &Batch, statics: cache::StaticKey, na_bits: u32) -> cache::IndexKey {
        let stride = self.spread_stride(b);
        // A hard zone constraint alone (no soft constraints, no preferred
        // terms) gives every node the class the system defaults' zone
        // constraint over the same topology gives a node holding none of
        // the batch's pods: its domain (`class_with`, the own-pod digit 0).
        // A node holding the batch's pods is filed for the batch at the lend
        // and stale after it. So the two keys are one, and such batches
        // share the index of the Deployments with the system defaults.
        let (zones, hard_zones) = match (b.class_zone.map(|t| (t, stride)), b.hard_zone) {
            (None, Some(h)) if b.soft.is_empty() && na_bits == 0 => (Some(h), None),
            z => z,
        };
        cache::IndexKey {
            statics,
            local: b.local_key,
            zones,
            hard_zones,
            // The terms, not their weights: a class holds which terms a node
            // matches, and the weights score each class per cycle.
            preferred: if na_bits > 0 {
                (b.rev.template.node_affinity.preferred.iter())
                    .map(|p| p.preference.clone())
                    .collect()
            } else {
                Vec::new()
            },
            slots: self.nodes.len(),
        }
    }

    /// `lend_index` for the batch's key, or for the wider template's key
    /// while the batch files a borrowed index (`swap_filing`).
    fn lend_index_keyed(&mut self, b: &mut Batch, profile: &Profile) {
        let n = self.nodes.len();
        let stride = self.spread_stride(b);
        let key = self.index_key(
            b,
            match &b.masked {
                Some(m) => m.base_key.clone(),
                None => b.static_key.clone(),
            },
            b.na_bits,
        );
        let k = profile.feasible_nodes_to_find(b.live_nodes) as u64;
        // The scans' cost: a cycle's visits per pod (or the heap path's
        // one pass, when it would serve the batch). A cycle reads nodes
        // until k are feasible (numFeasibleNodesToFind counts feasible
        // nodes): k visits, or more where a kept index shows how many of
        // the nodes its template's filters pass (below).
        let pods = b.pods_left as u64;
        let heap_cost = b.heap_cost.unwrap_or(u64::MAX);
        let scans_of = |visits: u64| {
            pods.saturating_mul(visits)
                .saturating_mul(SCAN_VISIT)
                .min(heap_cost)
        };
        let scans = scans_of(k.min(n as u64));
        let auto = self.index_use == IndexUse::Auto;
        if b.inter_pod_local {
            // Its slots hold this revision's inter-pod verdicts: an index
            // of the batch's own, built when the scans would cost more
            // than filing every node, and not kept after it (so nothing
            // is marked stale for a later batch).
            if auto && scans < FILE_VISITS * n as u64 {
                return;
            }
            let mut ix = cache::KeptIndex::new(key);
            self.load_index(b, &mut ix, stride, profile);
            b.index = Some(ix);
            #[cfg(test)]
            {
                self.caches.own_indexes += 1;
            }
            return;
        }
        // The slots holding this batch's own pods: their class is the
        // batch's, so they are filed for it and marked stale after.
        b.index_dirty.clear();
        if let Some(h) = &b.holding {
            // The same nodes, without reading every node's count (a new
            // Deployment has none).
            b.index_dirty.extend_from_slice(h);
        } else if let Some(s) = b.soft.first() {
            b.index_dirty.extend(
                s.per_node
                    .iter()
                    .enumerate()
                    .filter(|e| *e.1 > 0)
                    .map(|e| e.0 as u32),
            );
        }
        let clock = self.stamp_clock;
        let kept = self.caches.take_index(&key);
        let ix = match kept {
            Some(mut ix) => {
                // The slots to refile: those stamped since it was synced
                // (named by the journal, else read from every stamp) and
                // those marked.
                let journal = self.caches.stamped_since(ix.synced);
                let named = journal.map_or(0, |log| log.len() + ix.pending.len());
                // The slots to file again, a bit per slot (a block's slots
                // are one word): those stamped since it was filed (from the
                // journal, else from every stamp), those marked, and those
                // holding the batch's own pods (their class is the batch's).
                let mut marks: Vec<sample_index::Mask> = alloc::vec![0; n.div_ceil(BLOCK_WORD)];
                debug_assert!((0..n).all(|i| self.stamps[i] == self.hot[i].stamp));
                let stamps = &self.stamps;
                // A journal longer than a fraction of the nodes (it repeats
                // nodes) costs more than comparing every packed stamp.
                let checks = if let Some(log) = journal.filter(|_| named < n / JOURNAL_PER_STAMP) {
                    for &i in log {
                        marks[i as usize / BLOCK_WORD] |= 1 << (i as usize % BLOCK_WORD);
                    }
                    0
                } else {
                    let synced = ix.synced;
                    for (w, now) in stamps.chunks(BLOCK_WORD).enumerate() {
                        let mut bits: sample_index::Mask = 0;
                        for (t, &s) in now.iter().enumerate() {
                            bits |= ((s > synced) as sample_index::Mask) << t;
                        }
                        marks[w] = bits;
                    }
                    n as u64 / CHECKS_PER_VISIT
                };
                for &i in &ix.pending {
                    marks[i as usize / BLOCK_WORD] |= 1 << (i as usize % BLOCK_WORD);
                }
                let mut mark = |i: usize| marks[i / BLOCK_WORD] |= 1 << (i % BLOCK_WORD);
                for &i in &b.index_dirty {
                    mark(i as usize);
                }
                // And those an earlier lend left for its cycles to refile.
                for (m, &l) in marks.iter_mut().zip(&ix.lazy) {
                    *m |= l;
                }
                let mut changed: u64 = marks.iter().map(|w| w.count_ones() as u64).sum();
                let stale_blocks = marks.iter().filter(|&&w| w != 0).count() as u32;
                let mut blocks = stale_blocks as u64;
                // The slots the batch's samples will reach: a cycle visits
                // about k feasible nodes' worth from where the last one
                // stopped. Short of every slot, the lend refiles nothing
                // and each cycle refiles the stale blocks it is about to
                // read (`refresh_ahead`): a batch of a few pods refiles a
                // few blocks, not every node stamped since.
                // Through a view, the feasible slots it admits (about the
                // index's feasible share of the nodes it admits); its cycles
                // read blocks, not groups.
                let feasible = match &b.masked {
                    Some(m) => ix.blocks.total() as u64 * m.view.admitted_count() as u64 / n as u64,
                    None => ix.blocks.total() as u64,
                }
                .max(1);
                let per_cycle = (k.saturating_mul(n as u64) / feasible).min(n as u64);
                let reach = pods
                    .saturating_mul(per_cycle)
                    .saturating_add(2 * BLOCK_WORD as u64);
                let lazy = reach < n as u64;
                if lazy {
                    changed = changed * reach / n as u64;
                    blocks = blocks * reach / n as u64;
                }
                let cycle = match &b.masked {
                    Some(_) => CYCLE_VISITS + per_cycle / BLOCK_WORD as u64 * MASKED_BLOCK_VISITS,
                    None => CYCLE_VISITS,
                };
                let cost = checks + pods.saturating_mul(cycle) + refile_cost(changed, blocks).0;
                // A template whose filters pass half the nodes reads twice
                // k a cycle.
                if auto && scans_of(per_cycle) < cost {
                    self.caches.keep_index(ix);
                    b.index_dirty.clear();
                    return;
                }
                ix.lazy_blocks = stale_blocks;
                ix.lazy = marks;
                if !lazy {
                    // In slot order: the nodes' records and the index's
                    // arrays are read front to back, each line once.
                    for w in 0..ix.lazy.len() {
                        if ix.lazy[w] != 0 {
                            self.refresh_block(b, &mut ix, w, stride, profile);
                        }
                    }
                }
                ix.pending.clear();
                ix.synced = clock;
                ix
            }
            None => {
                let work = self.caches.scan_work(&key, scans);
                // A batch the heap would serve builds one only once its key's
                // batches have paid the build four times over: one heap pass
                // costs about what filing every node does, and a key a few
                // batches use (the replacements for a failed node's pods)
                // would pay for an index it hardly reads.
                let build = FILE_VISITS * n as u64 * if b.heap_cost.is_some() { 4 } else { 1 };
                if auto && work < build {
                    b.index_dirty.clear();
                    return;
                }
                let mut ix = cache::KeptIndex::new(key);
                self.load_index(b, &mut ix, stride, profile);
                ix.synced = clock;
                ix
            }
        };
        #[cfg(debug_assertions)]
        for i in 0..n {
            if ix.lazy[i / BLOCK_WORD] != 0 {
                continue;
            }
            let want = self.slot_entry(b, i, stride, profile);
            let got = ix.blocks.get(i);
            assert!(
                got.0 == want.0 && (want.0 == sample_index::NONE || got.1 == want.1),
                "a lent index's slot must equal a fresh one"
            );
        }
        b.index = Some(ix);
    }

    /// Refiles the slots of block `w` that `ix.lazy` marks, for batch `b`:
    /// loaded and the block summarised once when there are many, else
    /// filed one at a time (each keeping the summary).
    fn refresh_block(
        &mut self,
        b: &mut Batch,
        ix: &mut cache::KeptIndex,
        w: usize,
        stride: usize,
        profile: &Profile,
    ) {
        let bits = core::mem::take(&mut ix.lazy[w]);
        debug_assert!(bits != 0, "only a stale block is refreshed");
        ix.lazy_blocks -= 1;
        let (_, bulk) = refile_cost(bits.count_ones() as u64, 1);
        if let (true, Some(l)) = (bulk, self.load_plan(b)) {
            self.load_block(b, ix, w, bits, stride, l, profile);
            ix.blocks.summarise(w);
            return;
        }
        let plain = self.plain_plan(b);
        let mut left = bits;
        while left != 0 {
            let i = w * BLOCK_WORD + left.trailing_zeros() as usize;
            left &= left - 1;
            // An ordinary node's slot inline (`slot_loaded`) either way.
            let (c, l) = self.slot_loaded(b, i, stride, profile, plain);
            if bulk {
                ix.blocks.load(i, c, l);
            } else {
                ix.blocks.set(i, c, l);
            }
        }
        if bulk {
            ix.blocks.summarise(w);
        }
    }

    /// Whether batch `b` (`load_plan` `l`) has the common shape: a template
    /// that selects no nodes and has no preferred terms in its class, no
    /// hard constraint, LeastAllocated over cpu and memory weighed alike
    /// beside BalancedAllocation, a pod with requests.
    fn common_shape(b: &Batch, l: LocalPlan) -> bool {
        b.plain_template
            && b.na_bits == 0
            && b.hard_zone.is_none()
            && l.w_fit > 0
            && !l.most
            && l.w_cpu == l.w_mem
            && l.w_bal > 0
            && !b.best_effort
    }

    /// Loads the slots of block `w` that `bits` names for batch `b`
    /// (`load_plan` is `l`), without summarising: ordinary nodes through
    /// `load_ordinary_slots`, the others through `slot_entry`.
    // The batch's filing plan passed in parts, worked out once a lend, not
    // once a block.
    #[allow(clippy::too_many_arguments)]
    fn load_block(
        &mut self,
        b: &mut Batch,
        ix: &mut cache::KeptIndex,
        w: usize,
        bits: sample_index::Mask,
        stride: usize,
        l: LocalPlan,
        profile: &Profile,
    ) {
        let mut others = if Self::common_shape(b, l) {
            self.load_ordinary_slots::<true>(b, ix, w, bits, stride, l)
        } else {
            self.load_ordinary_slots::<false>(b, ix, w, bits, stride, l)
        };
        while others != 0 {
            let i = w * BLOCK_WORD + others.trailing_zeros() as usize;
            others &= others - 1;
            let (c, l) = self.slot_entry(b, i, stride, profile);
            ix.blocks.load(i, c, l);
        }
    }

    /// Loads the slots of block `w` that `bits` names for batch `b`
    /// (`load_plan` is `l`) without summarising: the slots of ordinary nodes
    /// as `slot_entry` gives them, in one loop over the block's records with
    /// the batch's columns cut to the block. A template that selects nodes
    /// reads its static verdict, and one with preferred terms in its class
    /// their bits, from the batch's caches (a node's spec stamp keeps them:
    /// a bind does not move it); a node whose verdict or bits are not
    /// cached yet is left, with the other nodes, to `slot_entry`: returns
    /// them.
    ///
    /// `COMMON` (see `common_shape`) compiles a loop of its own for the
    /// common shape, its plan's branches out.
    #[inline(always)]
    fn load_ordinary_slots<const COMMON: bool>(
        &self,
        b: &Batch,
        ix: &mut cache::KeptIndex,
        w: usize,
        bits: sample_index::Mask,
        stride: usize,
        l: LocalPlan,
    ) -> sample_index::Mask {
        let at = w * BLOCK_WORD;
        let end = (at + BLOCK_WORD).min(self.nodes.len());
        let hot = &self.hot[at..end];
        let own = b.soft.first().map(|s| &s.per_node[at..end]);
        let zone = b
            .class_zone
            .map(|t| &self.topologies[t as usize].node_domain[at..end]);
        let hard = b
            .hard_zone
            .map(|(t, hs)| (&self.topologies[t as usize].node_domain[at..end], hs));
        let spec = &self.spec_stamps[at..end];
        let mut others = 0 as sample_index::Mask;
        let mut left = bits;
        while left != 0 {
            let t = left.trailing_zeros() as usize;
            left &= left - 1;
            let h = &hot[t];
            if !(h.schedulable && !h.hard_taints && !h.removed) {
                others |= 1 << t;
                continue;
            }
            if !(h.fits(&b.req) && h.pods_free > 0) {
                ix.blocks.load(at + t, sample_index::NONE, 0);
                continue;
            }
            if !COMMON && !b.plain_template {
                match b.static_ok.get(at + t, spec[t]) {
                    Some(1) => {}
                    Some(_) => {
                        ix.blocks.load(at + t, sample_index::NONE, 0);
                        continue;
                    }
                    None => {
                        others |= 1 << t;
                        continue;
                    }
                }
            }
            let mask = if COMMON || b.na_bits == 0 {
                0
            } else {
                match b.na_mask.get(at + t, spec[t]) {
                    Some(m) => m as usize,
                    None => {
                        others |= 1 << t;
                        continue;
                    }
                }
            };
            let mut class = 0usize;
            if let Some(own) = own {
                let d = match zone.and_then(|z| z[t]) {
                    Some(d) => d as usize,
                    None => stride - 1,
                };
                class = own[t] as usize * stride + d;
            }
            if !COMMON && b.na_bits > 0 {
                class = class << b.na_bits | mask;
            }
            if let Some((dom, hs)) = hard.filter(|_| !COMMON) {
                class = class * hs
                    + match dom[t] {
                        Some(d) => d as usize,
                        None => hs - 1,
                    };
            }
            let e = (
                class as u32,
                sample_index::score_of(if COMMON {
                    Self::local_common_of(h, b, l)
                } else {
                    Self::local_planned_of(h, b, l)
                }),
            );
            debug_assert!(
                !(b.plain_template && b.na_bits == 0) || e == self.plain_slot(b, at + t, stride, l)
            );
            debug_assert_eq!(e.0, self.class_with(b, at + t, stride, mask as u32));
            ix.blocks.load(at + t, e.0, e.1);
        }
        others
    }

    /// Refiles the stale blocks a cycle from slot `start` may read: the
    /// start block, then the blocks after it until they hold more than `k`
    /// slots the cycle admits (its sample then ends inside them, and the
    /// index holds more than `k` in all), or every block.
    // What the cycle admits comes in its three parts (a class filter, its
    // switch, a view's masks), as `cycle_indexed` holds them.
    #[allow(clippy::too_many_arguments)]
    fn refresh_ahead(
        &mut self,
        b: &mut Batch,
        ix: &mut cache::KeptIndex,
        start: usize,
        k: u32,
        filtered: bool,
        allow: &impl Fn(u32) -> bool,
        view: Option<&[sample_index::Mask]>,
        profile: &Profile,
    ) {
        let blocks = ix.lazy.len();
        let first = start / BLOCK_WORD;
        let stride = self.spread_stride(b);
        let mut held = 0u64;
        for step in 0..blocks {
            if ix.lazy_blocks == 0 {
                return;
            }
            let w = (first + step) % blocks;
            if ix.lazy[w] != 0 {
                self.refresh_block(b, ix, w, stride, profile);
            }
            if step > 0 {
                held += match view {
                    Some(admitted) => ix.blocks.feasible_in(w, admitted[w]),
                    None => ix.blocks.admitted_in(w, filtered, allow),
                } as u64;
                if held > k as u64 {
                    return;
                }
            }
        }
    }

    /// Loads every slot of `ix` (emptied) for batch `b`, then summarises.
    fn load_index(
        &mut self,
        b: &mut Batch,
        ix: &mut cache::KeptIndex,
        stride: usize,
        profile: &Profile,
    ) {
        let n = self.nodes.len();
        match self.load_plan(b) {
            Some(l) => {
                for w in 0..n.div_ceil(BLOCK_WORD) {
                    let here = (n - w * BLOCK_WORD).min(BLOCK_WORD);
                    let all = sample_index::Mask::MAX >> (BLOCK_WORD - here);
                    self.load_block(b, ix, w, all, stride, l, profile);
                }
            }
            None => {
                for i in 0..n {
                    let (c, l) = self.slot_entry(b, i, stride, profile);
                    ix.blocks.load(i, c, l);
                }
            }
        }
        ix.blocks.summarise_all();
        ix.pending.clear();
    }

    /// The plan of `load_ordinary_slots`: batch `b`'s node-local plan when
    /// an ordinary node's slot needs no filter that reads other nodes' pods
    /// (no inter-pod terms; no hard spread constraint but a zone one, which
    /// its class carries), as in every batch a sample index serves.
    fn load_plan(&self, b: &Batch) -> Option<LocalPlan> {
        b.local_plan
            .filter(|_| !b.inter_pod_filter && (b.hard.is_empty() || b.hard_zone.is_some()))
    }

    /// The plan of `plain_slot` when batch `b`'s template selects no nodes,
    /// has no preferred terms in its class and no inter-pod filter
    /// (`slot_entry`'s shortcut, which runs neither).
    fn plain_plan(&self, b: &Batch) -> Option<LocalPlan> {
        b.local_plan
            .filter(|_| b.plain_template && b.na_bits == 0 && !b.inter_pod_filter)
    }

    /// Whether node `i` is schedulable, without hard taints and not
    /// removed: where a plain template's slot is `plain_slot`'s.
    #[inline(always)]
    fn ordinary_node(&self, i: usize) -> bool {
        let h = &self.hot[i];
        h.schedulable && !h.hard_taints && !h.removed
    }

    /// `slot_entry` for the loops that load many slots: with `plain` (from
    /// `plain_plan`), an ordinary node's slot is computed inline, without
    /// the call and the batch's checks per slot.
    #[inline(always)]
    fn slot_loaded(
        &mut self,
        b: &mut Batch,
        i: usize,
        stride: usize,
        profile: &Profile,
        plain: Option<LocalPlan>,
    ) -> (u32, sample_index::Score) {
        match plain {
            Some(l) if self.ordinary_node(i) => {
                let e = self.plain_slot(b, i, stride, l);
                debug_assert_eq!(e, self.slot_entry(b, i, stride, profile));
                e
            }
            _ => self.slot_entry(b, i, stride, profile),
        }
    }

    /// What slot `i` holds in batch `b`'s index: the node's spread class
    /// and node-local score, or `NONE` when the node is not feasible.
    fn slot_entry(
        &mut self,
        b: &mut Batch,
        i: usize,
        stride: usize,
        profile: &Profile,
    ) -> (u32, sample_index::Score) {
        // A template that selects no nodes on an ordinary node: only the
        // requests and the node's pod capacity decide (`feasible_but_spread`'s
        // shortcut, without its per-batch cache), and the node-local score
        // is computed directly (an index holds it: nothing reads it twice).
        if let (Some(l), true) = (self.plain_plan(b), self.ordinary_node(i)) {
            let e = self.plain_slot(b, i, stride, l);
            debug_assert!(
                e.0 == sample_index::NONE
                    || e.1 as i64 == self.local_total_general(NodeId(i as u32), b, profile)
            );
            return e;
        }
        // With a hard zone constraint, its verdict is the class's, per cycle;
        // an inter-pod one stays the node's (a batch with an index of its own).
        let feasible = !self.hot[i].removed
            && if b.hard_zone.is_some() {
                self.feasible_but_spread(i, b, profile) && self.inter_pod_passes(i, b)
            } else {
                self.feasible_fast(i, b, profile)
            };
        if feasible {
            // The preferred terms' bits from the batch's cache (kept
            // between batches with the same terms): matching them is most
            // of a refile's cost for such a template.
            let mask = if b.na_bits == 0 {
                0
            } else {
                self.na_mask_cached(i, b)
            };
            (
                self.class_with(b, i, stride, mask),
                sample_index::score_of(self.local_cached(i, b, profile)),
            )
        } else {
            (sample_index::NONE, 0)
        }
    }

    /// `slot_entry` for a template that selects no nodes, without
    /// preferred-term bits, on a schedulable node without hard taints: only
    /// the requests and the pod capacity decide feasibility (as in
    /// `feasible_but_spread`), the class is `class_with`'s and the score
    /// `local_planned`'s, written out for the index's bulk loads.
    #[inline(always)]
    fn plain_slot(
        &self,
        b: &Batch,
        i: usize,
        stride: usize,
        l: LocalPlan,
    ) -> (u32, sample_index::Score) {
        let h = &self.hot[i];
        if !(h.fits(&b.req) && h.pods_free > 0) {
            return (sample_index::NONE, 0);
        }
        let mut class = 0usize;
        if let Some(s) = b.soft.first() {
            let d = match b.class_zone {
                Some(t) => match self.topologies[t as usize].node_domain[i] {
                    Some(d) => d as usize,
                    None => stride - 1,
                },
                None => stride - 1,
            };
            class = s.per_node[i] as usize * stride + d;
        }
        if let Some((t, hs)) = b.hard_zone {
            let d = match self.topologies[t as usize].node_domain[i] {
                Some(d) => d as usize,
                None => hs - 1,
            };
            class = class * hs + d;
        }
        debug_assert_eq!(class as u32, self.class_with(b, i, stride, 0));
        (
            class as u32,
            sample_index::score_of(self.local_planned(NodeId(i as u32), b, l)),
        )
    }

    /// Keeps the index true after a pod of the batch bound to `x`: its
    /// feasibility, its class and its node-local score may have changed.
    fn index_bound(&mut self, b: &mut Batch, x: NodeId, profile: &Profile) {
        let Some(mut ix) = b.index.take() else {
            return;
        };
        let i = x.0 as usize;
        debug_assert_eq!(
            ix.lazy[i / BLOCK_WORD],
            0,
            "the chosen node's block is fresh"
        );
        let stride = self.spread_stride(b);
        // An ordinary node's slot inline, as a refile computes it (a
        // borrowed index's slot as its own template files it).
        swap_filing(b);
        let plain = self.plain_plan(b);
        let (c, l) = self.slot_loaded(b, i, stride, profile, plain);
        swap_filing(b);
        if let Some(m) = b.masked.as_deref_mut() {
            if m.view.admits(i) {
                let was = ix.blocks.class(i) != sample_index::NONE;
                let is = c != sample_index::NONE;
                m.total = m.total + is as u32 - was as u32;
            }
        }
        ix.blocks.set(i, c, l);
        if !b.soft.is_empty() && !b.inter_pod_local {
            b.index_dirty.push(i as u32);
        }
        b.index = Some(ix);
    }

    /// `cycle_fast` answered from the index: the same sample (the first
    /// feasible nodes from the start slot), the same totals and the same
    /// choice, reading whole blocks from their summaries.
    fn cycle_indexed(
        &mut self,
        b: &mut Batch,
        x: &mut IxScratch,
        profile: &Profile,
    ) -> Option<NodeId> {
        let n = self.nodes.len();
        let start = (self.next_start_node % n as u32) as usize;
        let k = profile.feasible_nodes_to_find(b.live_nodes);
        let mut kept = b
            .index
            .take()
            .expect("cycle_indexed needs the batch's index");
        // A hard zone constraint admits the classes of the domains that
        // pass it this cycle (the last part of a class is its domain).
        let mut gate = core::mem::take(&mut x.gate);
        let hz = b.hard_zone.map(|(_, hs)| {
            self.domain_gate(b, &mut gate);
            hs
        });
        let allow = |c: u32| match hz {
            Some(hs) => gate.get(c as usize % hs).copied().unwrap_or(false),
            None => true,
        };
        if kept.lazy_blocks > 0 {
            // Through a view, the blocks ahead hold what it admits, and
            // they are filed as the wider template's (`swap_filing`); its
            // total then counts the refiled blocks afresh (the stale ones
            // keep their old counts: the fresh ones ahead hold more than k).
            // (The view is read beside the batch, which the filing borrows.)
            let view = (b.masked.as_deref_mut()).map(|m| core::mem::take(&mut m.view));
            swap_filing(b);
            self.refresh_ahead(
                b,
                &mut kept,
                start,
                k,
                hz.is_some(),
                &allow,
                view.as_ref().map(|v| v.admitted_masks()),
                profile,
            );
            swap_filing(b);
            if let (Some(m), Some(view)) = (b.masked.as_deref_mut(), view) {
                m.total = kept.blocks.masked_total(&view);
                m.view = view;
            }
        }
        kept.blocks.settle();
        // The sample, and each class's best in it, in one walk; or, when
        // this start's sample was gathered since and its slots stayed as
        // they were (or changed by steps the index followed), as then.
        // With blocks still stale, the fresh ones ahead hold more than k:
        // the total is more than k whatever the stale blocks count, as it
        // truly is.
        x.present.clear();
        x.best.clear();
        debug_assert!(b.masked.is_none() || hz.is_none());
        let cached = match hz {
            Some(_) => None,
            None if b.masked.is_some() => None,
            None => kept.blocks.cached_sample(start, k).map(|(end, best)| {
                x.best.extend_from_slice(best);
                x.present.extend(best.iter().map(|b| b.class));
                ([(start, end), (0, 0)], end - start)
            }),
        };
        let ix = &kept.blocks;
        let (total, (pair, visited)) = match (hz, cached, &b.masked) {
            (_, _, Some(m)) => {
                debug_assert_eq!(m.total, ix.masked_total(&m.view));
                (
                    m.total,
                    ix.sample_gather_masked(start, k, m.total, &m.view, &mut x.acc),
                )
            }
            (_, Some(c), None) => (ix.total(), c),
            (Some(_), None, None) => {
                let t = ix.total_where(&allow);
                (t, ix.sample_gather::<true>(start, k, t, &allow, &mut x.acc))
            }
            (None, None, None) => (
                ix.total(),
                ix.sample_gather::<false>(start, k, ix.total(), &|_| true, &mut x.acc),
            ),
        };
        debug_assert!(kept.lazy_blocks == 0 || total > k);
        #[cfg(debug_assertions)]
        for &(a, z) in &pair {
            for w in a / BLOCK_WORD..z.div_ceil(BLOCK_WORD) {
                assert_eq!(kept.lazy[w], 0, "a cycle reads no stale block");
            }
        }
        if cached.is_some() {
            #[cfg(debug_assertions)]
            {
                let (mut present, mut best) = (Vec::new(), Vec::new());
                let again = ix.sample_gather::<false>(start, k, total, &|_| true, &mut x.acc);
                x.acc.drain(&mut present, &mut best);
                assert_eq!(
                    again,
                    (pair, visited),
                    "a kept sample ends where a walk does"
                );
                assert_eq!(best, x.best, "a kept sample's bests are a walk's");
                assert_eq!(present, x.present);
            }
        } else {
            x.acc.drain(&mut x.present, &mut x.best);
            if hz.is_none() && b.masked.is_none() && total > k && pair[1].0 == pair[1].1 {
                kept.blocks.keep_sample(start, pair[0].1, k, &x.best);
            }
        }
        let ix = &kept.blocks;
        let ranges: &[(usize, usize)] = if pair[1].0 < pair[1].1 {
            &pair
        } else {
            &pair[..1]
        };
        self.next_start_node = ((start + visited) % n) as u32;
        let m = total.min(k);
        let chosen = if m == 0 {
            None
        } else {
            Some(self.pick_indexed(b, x, ix, ranges, m, profile))
        };
        if b.record {
            self.record_indexed(b, ix, ranges, profile, start as u32, chosen, &allow);
        } else {
            self.record_cycle(b, start as u32, chosen, &[]);
        }
        x.gate = gate;
        b.index = Some(kept);
        chosen
    }

    /// Each class's normalised spread score for a sample, from the classes
    /// present in it (what `spread_raw` and `spread::normalize` give node by
    /// node for the system defaults' shape).
    fn class_spread_scores(&self, b: &Batch, present: &[u32], m: usize) -> Vec<(u32, i64)> {
        let mut x = IxScratch::default();
        self.class_spread_scores_into(b, present, m, &mut x);
        x.scores
    }

    /// `class_spread_scores` into `x.scores`, with `x`'s buffers.
    fn class_spread_scores_into(&self, b: &Batch, present: &[u32], m: usize, x: &mut IxScratch) {
        x.scores.clear();
        if b.soft.is_empty() {
            x.scores.extend(present.iter().map(|&c| (c, 0)));
            return;
        }
        let stride = self.spread_stride(b) as u32;
        let na = b.na_bits;
        // Each present class's count and domain slot: two divisions the
        // first time a class of this layout is seen, a read after.
        let layout = (stride, na, b.hard_zone.map_or(0, |(_, hs)| hs as u32));
        if x.decoded_as != layout {
            x.decoded.clear();
            x.decoded_as = layout;
        }
        // Each class decoded, and the domains present (the slot without
        // the key counts as one) a bit each while they fit a word.
        let mut bits = 0u64;
        let decoded = &mut x.decoded;
        x.parts.clear();
        x.parts.extend(present.iter().map(|&c| {
            if c as usize >= decoded.len() {
                decoded.resize(c as usize + 1, (u32::MAX, 0));
            }
            let e = &mut decoded[c as usize];
            if e.0 == u32::MAX {
                let sc = scoring_class(b, c) >> na;
                *e = (sc / stride, sc % stride);
            }
            bits |= 1u64.wrapping_shl(e.1);
            *e
        }));
        // Else a sorted list.
        let zones = if stride <= 64 {
            bits.count_ones() as usize
        } else {
            x.zones.clear();
            x.zones.extend(x.parts.iter().map(|&(_, d)| d as usize));
            x.zones.sort_unstable();
            x.zones.dedup();
            x.zones.len()
        };
        let (h, z) = (&b.soft[0], b.soft.get(1));
        let no_hostnames = self.hostname_absent(b);
        let w_h = x.normalizing_weight(m);
        let w_z = x.normalizing_weight(zones);
        // Raw scores in `x.scores` first, then normalised in place. The
        // classes come in ascending order, so by count: the hostname term
        // is computed once per count.
        let (mut min, mut max) = (i64::MAX, 0i64);
        let mut last = (u32::MAX, 0.0);
        x.scores
            .extend(present.iter().zip(&x.parts).map(|(&c, &(cnt, d))| {
                if last.0 != cnt {
                    let term = if no_hostnames {
                        0.0
                    } else {
                        spread::score_for_count(cnt as i64, h.max_skew, w_h)
                    };
                    last = (cnt, term);
                }
                let mut score = last.1;
                if let (Some(z), true) = (z, d != stride - 1) {
                    let zc = z.per_domain.get(d as usize).copied().unwrap_or(0);
                    score += spread::score_for_count(zc, z.max_skew, w_z);
                }
                let v = plugins::round_half_away(score);
                min = min.min(v);
                max = max.max(v);
                (c, v)
            }));
        if x.scores.is_empty() {
            min = 0;
        }
        for e in x.scores.iter_mut() {
            e.1 = if max == 0 {
                plugins::MAX_NODE_SCORE
            } else {
                // Through f64: every class is divided, every cycle.
                fit::quotient(plugins::MAX_NODE_SCORE * (max + min - e.1), max)
            };
        }
    }

    /// The chosen node of a sample whose classes and their bests
    /// `cycle_indexed` gathered into `x` (`present`, `best`).
    fn pick_indexed(
        &mut self,
        b: &mut Batch,
        x: &mut IxScratch,
        ix: &Index,
        ranges: &[(usize, usize)],
        m: u32,
        profile: &Profile,
    ) -> NodeId {
        let base = profile
            .weight(Plugin::TaintToleration)
            .map_or(0, |w| w * plugins::MAX_NODE_SCORE);
        let w_spread = profile.weight(Plugin::PodTopologySpread).unwrap_or(0);
        let spread_on = w_spread > 0 && !b.soft.is_empty();
        let present = core::mem::take(&mut x.present);
        self.class_spread_scores_into(b, &present, m as usize, x);
        x.present = present;
        // NodeAffinity's per-class scores only when its terms are in the
        // classes (else they are all 0, and are not written out per cycle).
        let na_on = na_scored(b, profile);
        if na_on {
            class_na_scores(b, profile, &x.present, &mut x.na);
        }
        let mut top = i64::MIN;
        let mut ties = 0u64;
        x.cand.clear();
        let (scores, na) = (&x.scores, &x.na);
        x.cand.extend(x.best.iter().enumerate().map(|(j, best)| {
            let t = base
                + best.max as i64
                + if spread_on { w_spread * scores[j].1 } else { 0 }
                + if na_on { na[j] } else { 0 };
            // The best total and how many slots share it, without a branch
            // on how this class's total compares (it follows no pattern).
            let at = best.at_max as u64;
            let kept = core::hint::select_unpredictable(t == top, ties + at, ties);
            ties = core::hint::select_unpredictable(t > top, at, kept);
            top = top.max(t);
            t
        }));
        let chosen = match profile.tie_break {
            // The tied nodes in (spread class, visiting order).
            TieBreak::Random => {
                let mut r = if ties > 1 {
                    self.rng.below(ties) as u32
                } else {
                    0
                };
                let mut found = None;
                for j in 0..x.best.len() {
                    if x.cand[j] != top {
                        continue;
                    }
                    let best = x.best[j];
                    if r >= best.at_max {
                        r -= best.at_max;
                        continue;
                    }
                    found = nth_tied(b, ix, ranges, best.class, best.max, r);
                    break;
                }
                found.expect("the tie count covers every tied node")
            }
            TieBreak::LowestNodeId => {
                let mut lowest = usize::MAX;
                for j in 0..x.best.len() {
                    if x.cand[j] != top {
                        continue;
                    }
                    let best = x.best[j];
                    for &range in ranges {
                        if let Some(slot) = nth_tied(b, ix, &[range], best.class, best.max, 0) {
                            lowest = lowest.min(slot);
                        }
                    }
                }
                lowest
            }
        };
        NodeId(chosen as u32)
    }

    /// For observers: the sample and every total, as the scan computes them.
    // The cycle's sample, outcome and class filter, as `cycle_indexed`
    // holds them.
    #[allow(clippy::too_many_arguments)]
    fn record_indexed(
        &mut self,
        b: &mut Batch,
        ix: &Index,
        ranges: &[(usize, usize)],
        profile: &Profile,
        start: u32,
        chosen: Option<NodeId>,
        allow: &impl Fn(u32) -> bool,
    ) {
        let base = profile
            .weight(Plugin::TaintToleration)
            .map_or(0, |w| w * plugins::MAX_NODE_SCORE);
        let w_spread = profile.weight(Plugin::PodTopologySpread).unwrap_or(0);
        let k = profile.feasible_nodes_to_find(b.live_nodes) as usize;
        let mut scored = Vec::new();
        // Through a view, its classes (`class << na_bits | terms`).
        let masked = b.masked.take();
        let class = |i: usize| match masked.as_deref() {
            Some(m) => ix.masked_class(i, &m.view),
            None => ix.class(i),
        };
        for &(a, z) in ranges {
            for i in a..z {
                let c = class(i);
                if scored.len() < k && c != sample_index::NONE && allow(c) {
                    scored.push(i);
                }
            }
        }
        let mut present: Vec<u32> = scored.iter().map(|&i| class(i)).collect();
        present.sort_unstable();
        present.dedup();
        let scores: BTreeMap<u32, i64> = self
            .class_spread_scores(b, &present, scored.len())
            .into_iter()
            .collect();
        let mut na = Vec::new();
        class_na_scores(b, profile, &present, &mut na);
        let na: BTreeMap<u32, i64> = present.iter().copied().zip(na).collect();
        let spread_on = w_spread > 0 && !b.soft.is_empty();
        let totals: Vec<i64> = scored
            .iter()
            .map(|&i| {
                let c = class(i);
                base + self.local_cached(i, b, profile)
                    + if spread_on { w_spread * scores[&c] } else { 0 }
                    + na[&c]
            })
            .collect();
        b.totals = totals;
        b.masked = masked;
        let scored: Vec<u32> = scored.iter().map(|&i| i as u32).collect();
        self.record_cycle(b, start, chosen, &scored);
    }

    /// The common shape, scored without per-plugin buffers: node-local
    /// scores from the batch's cache, TaintToleration, NodeAffinity and
    /// InterPodAffinity the same on every node (their normalised value is
    /// added as such), PodTopologySpread from the batch's counts. Returns
    /// false when the batch needs the general scorer.
    fn score_fast(
        &mut self,
        b: &mut Batch,
        feasible: &[u32],
        profile: &Profile,
        soft_taints: bool,
    ) -> bool {
        let mut base = 0i64;
        let mut w_spread = 0i64;
        for &(p, w) in &profile.scores {
            match p {
                Plugin::NodeResourcesFit | Plugin::NodeResourcesBalancedAllocation => {}
                // Every raw score 0: reverse-normalised to 100 everywhere.
                Plugin::TaintToleration if !soft_taints => base += w * plugins::MAX_NODE_SCORE,
                Plugin::NodeAffinity if !b.node_affinity_score => {}
                Plugin::InterPodAffinity if !b.ipa_score => {}
                Plugin::PodTopologySpread => w_spread = w,
                _ => return false,
            }
        }
        let m = feasible.len();
        b.totals.clear();
        b.totals.resize(m, base);
        for (j, &i) in feasible.iter().enumerate() {
            b.totals[j] += self.local_cached(i as usize, b, profile);
        }
        if w_spread > 0 && !b.soft.is_empty() {
            self.spread_raw(b, feasible);
            let mut raw = core::mem::take(&mut b.spread_raw);
            for (j, v) in spread::normalize(&mut raw).enumerate() {
                b.totals[j] += w_spread * v;
            }
            b.spread_raw = raw;
        }
        true
    }

    /// selectHost: the highest total; ties by the profile's rule.
    fn select(&mut self, totals: &[i64], ids: &[u32], profile: &Profile) -> usize {
        // One pass for the best total and how many nodes share it; then,
        // for random ties, one draw picks which of them (uniform, like
        // kube-scheduler's reservoir, with one PRNG call per cycle).
        let Some(&max) = totals.iter().max() else {
            return 0;
        };
        let ties = totals.iter().filter(|&&t| t == max).count() as u64;
        let best = totals.iter().enumerate().filter(|&(_, &t)| t == max);
        match profile.tie_break {
            TieBreak::Random => {
                let pick = if ties > 1 {
                    self.rng.below(ties) as usize
                } else {
                    0
                };
                best.map(|(j, _)| j).nth(pick).unwrap_or(0)
            }
            // The sample wraps around the node list, so the lowest id is not
            // always the first visited.
            TieBreak::LowestNodeId => best.map(|(j, _)| j).min_by_key(|&j| ids[j]).unwrap_or(0),
        }
    }

    /// Scores the feasible nodes into `b.totals`; with `detail`, also each
    /// plugin's raw and normalised scores per node.
    fn score_feasible(
        &mut self,
        b: &mut Batch,
        feasible: &[u32],
        profile: &Profile,
        mut detail: Option<&mut Vec<Vec<PluginScore>>>,
    ) {
        let m = feasible.len();
        b.totals.clear();
        b.totals.resize(m, 0);
        if let Some(d) = detail.as_deref_mut() {
            d.clear();
            d.resize(m, Vec::new());
        }
        // Without detail, the node-local plugins' weighted sum comes from
        // the batch's cache (the same sum the two arms below add).
        let cached_local = detail.is_none() && self.fast_paths.batch_caches;
        if cached_local {
            for (j, &i) in feasible.iter().enumerate() {
                b.totals[j] = self.local_cached(i as usize, b, profile);
            }
        }
        // Explained cycles leave out the plugins whose PreScore skips; a
        // skipped plugin's scores are 0 on every node here, so the totals
        // are the same either way (checked below in debug builds).
        let skipped = match detail {
            Some(_) => self.prescore_skips(b, profile),
            None => Vec::new(),
        };
        let mut raw = core::mem::take(&mut b.raw);
        for &(p, w) in &profile.scores {
            raw.clear();
            let mut norm: Vec<i64>;
            match p {
                Plugin::NodeResourcesFit | Plugin::NodeResourcesBalancedAllocation
                    if cached_local =>
                {
                    continue
                }
                Plugin::NodeResourcesFit => {
                    raw.extend(
                        feasible
                            .iter()
                            .map(|&i| self.fit_score(NodeId(i), b, profile)),
                    );
                    norm = raw.clone();
                }
                Plugin::NodeResourcesBalancedAllocation => {
                    raw.extend(feasible.iter().map(|&i| self.balanced_score(NodeId(i), b)));
                    norm = raw.clone();
                }
                Plugin::TaintToleration => {
                    raw.extend(feasible.iter().map(|&i| {
                        if self.hot[i as usize].soft_taints {
                            taint_toleration::count_intolerable_prefer_no_schedule(
                                &self.nodes[i as usize].spec.taints,
                                &b.rev.template.tolerations,
                            )
                        } else {
                            0
                        }
                    }));
                    norm = raw.clone();
                    taint_toleration::normalize(&mut norm);
                }
                Plugin::NodeAffinity => {
                    if b.node_affinity_score && !cached_local {
                        for &i in feasible {
                            let s = &self.nodes[i as usize].spec;
                            let tpl = &b.rev.template;
                            raw.push(node_affinity::score(&s.name, &s.labels, &tpl.node_affinity));
                        }
                    } else if b.node_affinity_score {
                        for &i in feasible {
                            raw.push(self.na_raw_cached(i as usize, b));
                        }
                    } else {
                        raw.resize(m, 0);
                    }
                    norm = raw.clone();
                    node_affinity::normalize(&mut norm);
                }
                Plugin::InterPodAffinity => {
                    if b.ipa_score {
                        raw.extend(
                            feasible
                                .iter()
                                .map(|&i| self.ipa_raw(NodeId(i), b, profile)),
                        );
                    } else {
                        raw.resize(m, 0);
                    }
                    norm = raw.clone();
                    ipa::normalize(&mut norm);
                }
                Plugin::PodTopologySpread => {
                    self.spread_raw(b, feasible);
                    raw.extend(b.spread_raw.iter().map(|s| s.unwrap_or(0)));
                    norm = if b.soft.is_empty() {
                        vec![0; m]
                    } else {
                        spread::normalize(&mut b.spread_raw).collect()
                    };
                }
                Plugin::NodeUnschedulable => continue,
            }
            debug_assert_eq!(norm.len(), m);
            if skipped.contains(&p) {
                debug_assert!(
                    norm.iter().all(|&v| v == 0),
                    "{} skips at PreScore yet scores {norm:?}",
                    p.name()
                );
                continue;
            }
            for (t, &v) in b.totals[..m].iter_mut().zip(&norm) {
                *t += w * v;
            }
            if let Some(d) = detail.as_deref_mut() {
                for j in 0..m {
                    d[j].push(PluginScore {
                        plugin: p.name(),
                        raw: raw[j],
                        normalized: norm[j],
                        weight: w,
                        weighted: w * norm[j],
                    });
                }
            }
        }
        b.raw = raw;
    }

    /// The enabled score plugins whose PreScore returns Skip for the
    /// batch's pods, in the profile's order (Kubernetes v1.37):
    /// PodTopologySpread with no ScheduleAnyway constraint of the pod's own
    /// nor a system default one (scoring.go); NodeAffinity with no preferred
    /// term (node_affinity.go); NodeResourcesBalancedAllocation for a pod
    /// that requests nothing (balanced_allocation.go, `isBestEffortPod`);
    /// InterPodAffinity when no bound pod gives any topology domain a score
    /// (`ipa_skips`). TaintToleration and NodeResourcesFit never skip.
    fn prescore_skips(&self, b: &Batch, profile: &Profile) -> Vec<Plugin> {
        profile
            .scores
            .iter()
            .map(|&(p, _)| p)
            .filter(|p| match p {
                Plugin::PodTopologySpread => b.soft.is_empty(),
                Plugin::NodeAffinity => b.rev.template.node_affinity.preferred.is_empty(),
                Plugin::NodeResourcesBalancedAllocation => b.best_effort,
                Plugin::InterPodAffinity => self.ipa_skips(&b.rev, profile),
                Plugin::TaintToleration | Plugin::NodeResourcesFit | Plugin::NodeUnschedulable => {
                    false
                }
            })
            .collect()
    }

    /// Whether InterPodAffinity's PreScore skips for a pod of `rev`: no
    /// bound pod on a node carrying the term's topology key (i) matches a
    /// preferred (anti-)affinity term of the pod, or (ii) carries, as
    /// required affinity (with hardPodAffinityWeight above 0) or as a
    /// preference, a term the pod matches (`processExistingPod`: the
    /// topology score map stays empty). Read from the terms' counts, which
    /// count only pods on nodes with the key; preferences are summed
    /// weights there, which can cancel, so when they are all 0 but pods
    /// carry such a term the bound pods are read one by one.
    fn ipa_skips(&self, rev: &Revision, profile: &Profile) -> bool {
        let terms = &self.terms;
        if (rev.preferred_ids.iter())
            .chain(&rev.preferred_anti_ids)
            .any(|&(t, _)| terms[t as usize].matching_total > 0)
        {
            return false;
        }
        let hard = profile.hard_pod_affinity_weight > 0;
        let mut carried = false;
        for &t in &rev.matching_terms {
            let ts = &terms[t as usize];
            if (hard && !ts.affinity_owners.is_empty()) || !ts.preferred.is_empty() {
                return false;
            }
            carried |= ts.score_carriers > 0;
        }
        if !carried {
            return true;
        }
        // Preferences that cancel in every domain: any carrier on a node
        // with the key is enough.
        let own = |t: &u32| rev.matching_terms.binary_search(t).is_ok();
        for (i, on) in self.node_pods.iter().enumerate() {
            for &k in on {
                let p = self.pod(k);
                let r = self.revision_of(p);
                let carries = (r.preferred_ids.iter())
                    .chain(&r.preferred_anti_ids)
                    .map(|(t, _)| t)
                    .chain(r.affinity_ids.iter().filter(|_| hard))
                    .filter(|t| own(t))
                    .any(|&t| {
                        self.domain(terms[t as usize].topo, NodeId(i as u32))
                            .is_some()
                    });
                if carries {
                    return false;
                }
            }
        }
        true
    }

    /// InterPodAffinity's raw score for a node: the sum, over the topology
    /// domains the node is in, of the weights described in the plugin's file.
    fn ipa_raw(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
        let mut s = 0i64;
        let dom = |t: u32| self.domain(self.terms[t as usize].topo, n);
        for &(t, w) in &b.rev.preferred_ids {
            if let Some(d) = dom(t) {
                s += w as i64 * self.terms[t as usize].matching_in(d) as i64;
            }
        }
        for &(t, w) in &b.rev.preferred_anti_ids {
            if let Some(d) = dom(t) {
                s -= w as i64 * self.terms[t as usize].matching_in(d) as i64;
            }
        }
        for &t in &b.rev.matching_terms {
            let ts = &self.terms[t as usize];
            if ts.carriers == 0 {
                continue;
            }
            if let Some(d) = dom(t) {
                s += profile.hard_pod_affinity_weight * ts.affinity_owners_in(d) as i64
                    + ts.preferred_in(d);
            }
        }
        s
    }

    /// PodTopologySpread's raw scores for the feasible nodes into
    /// `b.spread_raw` (`None`: ignored, lacks a required key).
    fn spread_raw(&self, b: &mut Batch, feasible: &[u32]) {
        b.spread_raw.clear();
        if b.soft.is_empty() {
            b.spread_raw.resize(feasible.len(), Some(0));
            return;
        }
        let node_domains: Vec<Option<&[Option<u32>]>> = b
            .soft
            .iter()
            .map(|s| {
                s.topo
                    .map(|t| self.topologies[t as usize].node_domain.as_slice())
            })
            .collect();
        // Whether a node carries the hostname label, when some node does not.
        let labelled: Option<&[Option<u32>]> = b
            .hostname_labels
            .map(|t| self.topologies[t as usize].node_domain.as_slice());
        let has_label = |i: usize| labelled.is_none_or(|d| d[i].is_some());
        let has_all = |i: usize| {
            node_domains
                .iter()
                .all(|d| d.map_or_else(|| has_label(i), |d| d[i].is_some()))
        };
        // Domains among the scored nodes give each constraint its weight,
        // ln(domains + 2); nodes lacking a required key are not scored.
        let mut ignored = 0usize;
        if b.soft_require_all {
            ignored = feasible.iter().filter(|&&i| !has_all(i as usize)).count();
        }
        let mut weights = Vec::with_capacity(b.soft.len());
        for dom in &node_domains {
            let size = match dom {
                None => feasible.len() - ignored,
                Some(dom) => {
                    b.stamp_now = b.stamp_now.wrapping_add(1);
                    let mut size = 0usize;
                    let mut saw_missing = false;
                    for &i in feasible {
                        let i = i as usize;
                        if b.soft_require_all && !has_all(i) {
                            continue;
                        }
                        match dom[i] {
                            Some(d) => {
                                let d = d as usize;
                                if b.stamp.len() <= d {
                                    b.stamp.resize(d + 1, 0);
                                }
                                if b.stamp[d] != b.stamp_now {
                                    b.stamp[d] = b.stamp_now;
                                    size += 1;
                                }
                            }
                            // A node without the key counts as one more domain
                            // (the empty value), as kube-scheduler's pre-score
                            // does when system-defaulted.
                            None => saw_missing = true,
                        }
                    }
                    size + saw_missing as usize
                }
            };
            weights.push(spread::normalizing_weight(size));
        }
        for &i in feasible {
            let i = i as usize;
            if b.soft_require_all && !has_all(i) {
                b.spread_raw.push(None);
                continue;
            }
            let mut score = 0.0;
            for ((s, &w), dom) in b.soft.iter().zip(&weights).zip(&node_domains) {
                let cnt = match dom {
                    None if !has_label(i) => continue,
                    None => s.per_node[i] as i64,
                    Some(dom) => match dom[i] {
                        Some(d) => s.per_domain.get(d as usize).copied().unwrap_or(0),
                        None => continue,
                    },
                };
                score += spread::score_for_count(cnt, s.max_skew, w);
            }
            b.spread_raw.push(Some(plugins::round_half_away(score)));
        }
    }

    /// Logs FailedScheduling for pods left pending, once per pod per distinct
    /// message. Every such event shares one copy of the message's text.
    fn report_unschedulable(&mut self, b: &mut Batch, keys: &[u32], profile: &Profile) {
        let message = self.failure_message_for(b, profile);
        self.record_failure(b.c, b.rev_no, keys, message);
    }

    /// Records a FailedScheduling message for a revision's pods, once per
    /// change of message (a pod told the same thing is not told again).
    pub(crate) fn record_failure(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        keys: &[u32],
        message: String,
    ) {
        let (serial, text) = match self.controllers[c.0 as usize].failure.get(&rev_no) {
            Some((s, m, t)) if *m == message => (*s, *t),
            _ => {
                self.failure_serial += 1;
                let s = self.failure_serial;
                let t = self.text(message.clone());
                self.controllers[c.0 as usize]
                    .failure
                    .insert(rev_no, (s, message, t));
                (s, t)
            }
        };
        for &k in keys {
            let p = self.pod_mut(k);
            if p.reported() != serial {
                p.set_reported(serial);
                let (ctl, o) = (p.controller, p.ordinal);
                self.record(
                    EventType::Warning,
                    Reason::FailedScheduling,
                    ObjectRef::Pod(ctl, o),
                    Message::Text(text),
                );
            }
        }
    }

    /// "0/6 nodes are available: 1 node(s) had untolerated taint(s), 3
    /// Insufficient cpu." Reasons counted over every node and sorted as
    /// kube-scheduler sorts them (as strings "N reason", framework/types.go
    /// FitError.Error).
    fn failure_message_for(&mut self, b: &mut Batch, profile: &Profile) -> String {
        let mut hist: BTreeMap<String, u32> = BTreeMap::new();
        let mut total = 0;
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            total += 1;
            if let Err(u) = self.filter_node(NodeId(i as u32), b, profile) {
                for r in u.reasons() {
                    *hist.entry(r).or_default() += 1;
                }
            }
        }
        if total == 0 {
            return "0/0 nodes are available: no nodes registered.".to_string();
        }
        let mut parts: Vec<String> = hist.into_iter().map(|(r, n)| format!("{n} {r}")).collect();
        parts.sort();
        format!("0/{total} nodes are available: {}.", parts.join(", "))
    }

    /// For one pod, every node's filter verdict with its plugin and reason,
    /// and for feasible nodes each score plugin's raw, normalised and
    /// weighted score, the total and the position, as the profile's cycle
    /// would compute them now over every node. A bound pod is explained as if
    /// it were being placed again, its own requests and counts taken off its
    /// node. Costs nothing unless called.
    pub fn explain<'p>(
        &self,
        pod: &str,
        profile: impl Into<Cow<'p, Profile>>,
    ) -> Result<Explanation, crate::Error> {
        self.explain_among(pod, profile.into().as_ref(), None)
    }

    /// The cycle that is binding `pod` as of that bind: called by an
    /// observer right after the bind ([`Cluster::reconcile_to_fixed_point_observed`]),
    /// so the cluster is as the cycle saw it but for this pod, which is
    /// taken off its node again. The filters run over every node; the
    /// scores over the nodes the cycle scored (`cycle`, its sample under
    /// percentageOfNodesToScore: normalisation is over that set, as in
    /// kube-scheduler), or over every feasible node when the cycle kept no
    /// list (a profile whose ties go to the lowest node id, or a pod
    /// pinned to one node).
    pub fn explain_decision(
        &self,
        pod: &str,
        profile: &Profile,
        cycle: &CycleRecord,
    ) -> Result<Explanation, crate::Error> {
        // A nominated node is the only one the cycle scored (none, in
        // fact: it is taken once it passes).
        let chosen_only = cycle.chosen.map(|n| [n]);
        let scored = match (&chosen_only, cycle.nominated) {
            (Some(one), true) => Some(&one[..]),
            _ => (!cycle.scored.is_empty()).then_some(cycle.scored.as_slice()),
        };
        let mut e = self.explain_among(pod, profile, scored)?;
        let chosen = cycle
            .chosen
            .map(|n| self.nodes[n.0 as usize].spec.name.clone())
            .unwrap_or_default();
        let best: Vec<&str> = e
            .nodes
            .iter()
            .filter(|v| v.position == Some(1))
            .map(|v| v.node.as_str())
            .collect();
        let sample = match scored {
            Some(s) if s.len() < e.nodes.iter().filter(|v| v.feasible).count() => format!(
                "; it scored {} of the feasible nodes (percentageOfNodesToScore), starting at {}",
                s.len(),
                self.nodes
                    .get(cycle.start as usize)
                    .map_or("the first node", |n| n.spec.name.as_str())
            ),
            _ => String::new(),
        };
        let feasible = e.nodes.iter().filter(|v| v.feasible).count();
        e.summary = match best.len() {
            _ if cycle.nominated => format!(
                "{pod} was bound to {chosen}, its nominated node (status.nominatedNodeName, where preemption made room for it): the scheduler tries that node first and takes it when it passes every filter, without scoring the others"
            ),
            _ if feasible == 1 => format!(
                "{pod} was bound to {chosen}, the only node that passed every filter (kube-scheduler takes a lone feasible node without scoring)"
            ),
            0 => format!("{pod} was bound to {chosen} by this cycle{sample}"),
            1 => format!("{pod} was bound to {chosen}, which had the best total{sample}"),
            n => match profile.tie_break {
                TieBreak::Random => format!(
                    "{pod} was bound to {chosen}: {n} nodes shared the best total ({}), and the scheduler picked one at random{sample}",
                    best.join(", ")
                ),
                TieBreak::LowestNodeId => format!(
                    "{pod} was bound to {chosen}: {n} nodes shared the best total, and the profile gives ties to the lowest node id{sample}"
                ),
            },
        };
        if let Some(pre) = &e.preemption {
            e.summary.push_str(&pre.summary(false));
        }
        e.bound_to = Some(chosen);
        Ok(e)
    }

    /// `explain`, scoring only the feasible nodes among `scored` when it
    /// is given.
    fn explain_among(
        &self,
        pod: &str,
        profile: &Profile,
        scored: Option<&[NodeId]>,
    ) -> Result<Explanation, crate::Error> {
        let k = self.pod_key(pod)?;
        let mut work = self.clone();
        let p = work.pod(k).clone();
        if p.node().is_some() {
            work.unbind(k);
        }
        let mut b = work.new_batch(p.controller, p.revision, profile);
        let mut verdicts = Vec::new();
        let mut feasible = Vec::new();
        for i in 0..work.nodes.len() {
            if work.nodes[i].removed {
                continue;
            }
            let n = NodeId(i as u32);
            let r = work.filter_node(n, &mut b, profile);
            let (ok, plugin, code, reasons, detail) = match &r {
                Ok(()) => (true, None, Code::Success, Vec::new(), None),
                Err(u) => (false, Some(u.plugin()), u.code(), u.reasons(), u.detail()),
            };
            if ok {
                feasible.push(i as u32);
            }
            verdicts.push(NodeVerdict {
                node: work.nodes[i].spec.name.clone(),
                feasible: ok,
                plugin,
                code,
                reasons,
                detail,
                scores: Vec::new(),
                total: None,
                position: None,
            });
        }
        if let Some(set) = scored {
            // By node slot: a sample of hundreds over thousands of nodes.
            let mut in_set = alloc::vec![false; work.nodes.len()];
            for n in set {
                in_set[n.0 as usize] = true;
            }
            feasible.retain(|&i| in_set[i as usize]);
        }
        let mut detail = Vec::new();
        work.score_feasible(&mut b, &feasible, profile, Some(&mut detail));
        let skipped: Vec<&'static str> = if feasible.is_empty() {
            Vec::new()
        } else {
            (work.prescore_skips(&b, profile).iter())
                .map(|p| p.name())
                .collect()
        };
        // verdicts are in node order over live nodes; map feasible ids to rows.
        let row_of: BTreeMap<u32, usize> = work
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.removed)
            .enumerate()
            .map(|(row, (i, _))| (i as u32, row))
            .collect();
        for (j, &i) in feasible.iter().enumerate() {
            let v = &mut verdicts[row_of[&i]];
            v.scores = core::mem::take(&mut detail[j]);
            v.total = Some(b.totals[j]);
        }
        let mut order: Vec<usize> = (0..verdicts.len())
            .filter(|&r| verdicts[r].total.is_some())
            .collect();
        order.sort_by(|&x, &y| verdicts[y].total.cmp(&verdicts[x].total).then(x.cmp(&y)));
        let mut pos = 0;
        let mut last = None;
        for (rank, &r) in order.iter().enumerate() {
            if verdicts[r].total != last {
                pos = rank as u32 + 1;
                last = verdicts[r].total;
            }
            verdicts[r].position = Some(pos);
        }
        let decided_by = match (order.first(), order.get(1)) {
            (Some(&w), Some(&r)) => {
                let (a, z) = (&verdicts[w].scores, &verdicts[r].scores);
                a.iter()
                    .zip(z)
                    .map(|(x, y)| (x.plugin, x.weighted - y.weighted))
                    .filter(|(_, d)| *d > 0)
                    .max_by_key(|&(_, d)| d)
                    .map(|(p, d)| (p.to_string(), d))
            }
            _ => None,
        };
        let best = order.first().map(|&r| verdicts[r].node.clone());
        let ties = order
            .iter()
            .filter(|&&r| verdicts[r].position == Some(1))
            .count();
        let sampling = profile.feasible_nodes_to_find(b.live_nodes) < b.live_nodes;
        let mut summary = match (p.node(), &best) {
            (Some(n), _) => format!(
                "{pod} is bound to {}; the scores below are as if it were placed again now",
                self.nodes[n.0 as usize].spec.name
            ),
            (None, Some(best)) if ties > 1 => match profile.tie_break {
                TieBreak::Random => format!(
                    "{pod} is Pending; {ties} nodes share the best total ({best} first), and the scheduler picks one of them at random"
                ),
                TieBreak::LowestNodeId => format!(
                    "{pod} is Pending; {ties} nodes share the best total, and the profile gives ties to the lowest node id: {best}"
                ),
            },
            (None, Some(best)) => format!("{pod} is Pending; {best} has the best total"),
            (None, None) => work.failure_message_for(&mut b, profile),
        };
        if sampling && best.is_some() {
            summary.push_str(&format!(
                " (every node is scored here; with percentageOfNodesToScore the scheduler scores the first {} feasible nodes from where its last cycle stopped)",
                profile.feasible_nodes_to_find(b.live_nodes)
            ));
        }
        // A bare Pod with spec.nodeName is its kubelet's: say what became of
        // it (and preemption, the scheduler's, is not for it).
        let mut by_node_name = false;
        if let crate::cluster::Workload::Pod(bare) =
            &self.controllers[p.controller.0 as usize].workload
        {
            if let Some(node) = &bare.node_name {
                by_node_name = true;
                summary = match (&bare.failed, p.node()) {
                    (Some((reason, message)), _) => format!(
                        "{pod} is Failed ({}): spec.nodeName {node}, whose kubelet refused it: {message}; the scheduler never considers it (the verdicts below are the scheduler's, for comparison)",
                        reason.as_str()
                    ),
                    (None, Some(n)) if !self.nodes[n.0 as usize].ready => format!(
                        "{pod} is bound to {node} by spec.nodeName, whose kubelet is silent (NotReady): nothing started it{}",
                        match p.taint_deadline() {
                            Some(t) => format!(", and the taint-eviction controller deletes it at tick {t}, when its tolerationSeconds for the unreachable taint have passed"),
                            None => String::new(),
                        }
                    ),
                    (None, Some(_)) => format!(
                        "{pod} is bound to {node} by spec.nodeName: its kubelet admitted it without the scheduler (the scores below are as if the scheduler placed it now)"
                    ),
                    (None, None) => format!(
                        "{pod} is Pending: {}",
                        self.controllers[p.controller.0 as usize]
                            .failure
                            .get(&p.revision)
                            .map_or_else(|| format!("spec.nodeName {node} names no node"), |(_, m, _)| m.clone())
                    ),
                };
            }
        }
        let preemption = if by_node_name {
            None
        } else {
            self.explain_preemption(pod, &p, best.is_none(), profile)
        };
        if let Some(pre) = &preemption {
            summary.push_str(&pre.summary(p.node().is_none()));
        }
        Ok(Explanation {
            pod: pod.to_string(),
            phase: p.phase.as_str(),
            bound_to: p.node().map(|n| self.nodes[n.0 as usize].spec.name.clone()),
            requests: p_requests(self, &p),
            profile: profile.scheduler_name.clone(),
            summary,
            decided_by,
            skipped,
            nodes: verdicts,
            priority: p.priority,
            preemption,
        })
    }
}

fn p_requests(c: &Cluster, p: &crate::cluster::Pod) -> Resources {
    c.revision_of(p).template.requests
}

/// The plan for `local_planned`, when NodeResourcesFit scores LeastAllocated
/// or MostAllocated over cpu and memory (in either order) and nothing else
/// node-local is unusual.
fn local_plan(profile: &Profile) -> Option<LocalPlan> {
    let fit = &profile.fit;
    let most = match fit.kind {
        ScoringStrategyType::LeastAllocated => false,
        ScoringStrategyType::MostAllocated => true,
        ScoringStrategyType::RequestedToCapacityRatio => return None,
    };
    let w = |r: Resource| fit.resources.iter().find(|(x, _)| *x == r).map(|&(_, w)| w);
    let (Some(w_cpu), Some(w_mem)) = (w(Resource::Cpu), w(Resource::Memory)) else {
        return None;
    };
    if fit.resources.len() != 2 {
        return None;
    }
    Some(LocalPlan {
        w_fit: profile.weight(Plugin::NodeResourcesFit).unwrap_or(0),
        most,
        w_cpu,
        w_mem,
        w_sum: w_cpu + w_mem,
        w_bal: profile
            .weight(Plugin::NodeResourcesBalancedAllocation)
            .unwrap_or(0),
    })
}

/// The `r`-th slot of `class` holding `score` in `ranges` (visiting
/// order), through the batch's view when it borrows the index.
#[inline]
fn nth_tied(
    b: &Batch,
    ix: &Index,
    ranges: &[(usize, usize)],
    class: u32,
    score: sample_index::Score,
    r: u32,
) -> Option<usize> {
    match &b.masked {
        Some(m) => ix.nth_at_masked(ranges, class, score, r, &m.view),
        None => ix.nth_at(ranges, class, score, r),
    }
}

/// Exchanges what filing a borrowed wider index reads with the batch's own
/// (see `MaskedLend`): called in pairs around every filing of such an
/// index's slots. Nothing without a loan.
#[inline]
fn swap_filing(b: &mut Batch) {
    let Some(m) = b.masked.as_deref_mut() else {
        return;
    };
    core::mem::swap(&mut b.na_bits, &mut m.swap_na);
    core::mem::swap(&mut b.plain_template, &mut m.swap_plain);
    if let Some(s) = &mut m.base_static {
        core::mem::swap(&mut b.static_ok, s);
    }
    b.filing_base = !b.filing_base;
}

fn tpl_preferred_len(rev: &Revision) -> usize {
    rev.template.node_affinity.preferred.len()
}

/// A class without its hard spread domain (see `Batch::hard_zone`).
fn scoring_class(b: &Batch, c: u32) -> u32 {
    match b.hard_zone {
        Some((_, hs)) => c / hs as u32,
        None => c,
    }
}

/// NodeAffinity's raw score of a class (the weights of the terms its low
/// `na_bits` bits name).
fn na_raw_of_class(b: &Batch, c: u32) -> i64 {
    let c = scoring_class(b, c);
    let mut raw = 0;
    for (j, p) in b.rev.template.node_affinity.preferred.iter().enumerate() {
        if j < b.na_bits as usize && c & (1 << j) != 0 {
            raw += p.weight as i64;
        }
    }
    raw
}

/// Whether NodeAffinity scores a batch's classes: its preferred terms are
/// in the classes and the plugin has a weight (else every class scores 0).
fn na_scored(b: &Batch, profile: &Profile) -> bool {
    b.na_bits > 0 && profile.weight(Plugin::NodeAffinity).is_some_and(|w| w > 0)
}

/// Per class present in a sample, NodeAffinity's weighted normalised score
/// (DefaultNormalizeScore: the highest raw score present is 100); zeros
/// when the batch's classes hold no preferred terms.
fn class_na_scores(b: &Batch, profile: &Profile, present: &[u32], out: &mut Vec<i64>) {
    out.clear();
    if !na_scored(b, profile) {
        out.resize(present.len(), 0);
        return;
    }
    let w = profile.weight(Plugin::NodeAffinity).unwrap_or(0);
    let max = present
        .iter()
        .map(|&c| na_raw_of_class(b, c))
        .max()
        .unwrap_or(0);
    out.extend(present.iter().map(|&c| {
        if max > 0 {
            w * (plugins::MAX_NODE_SCORE * na_raw_of_class(b, c) / max)
        } else {
            0
        }
    }));
}

#[cfg(test)]
mod tests {
    use crate::quantity::MIB;
    use alloc::vec::Vec;

    use crate::affinity::{NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm};
    use crate::model::{
        AffinityTerm, DeploymentSpec, NodeAffinity, NodeSpec, PreferredSchedulingTerm, Resources,
        Selector, TopologySpreadConstraint, WhenUnsatisfiable,
    };
    use crate::{Cluster, Profile};

    fn big(
        seed: u64,
        index: super::IndexUse,
        profile: &Profile,
    ) -> (Vec<(alloc::string::String, Option<crate::NodeId>)>, u32) {
        let mut c = Cluster::new();
        c.set_scheduler_seed(seed);
        c.set_index_use(index);
        let zones = ["a", "b", "c"];
        for i in 0..700u64 {
            let cpu = 4000 + 2000 * (i % 3);
            let mut n = NodeSpec::new(&alloc::format!("n-{i}"), cpu, (8192 + 1024 * (i % 5)) * MIB);
            if i % 7 != 0 {
                n = n.with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize]);
            }
            if i % 4 == 0 {
                n = n.with_label("disktype", "ssd");
            }
            c.add_node(n).unwrap();
        }
        for a in 0..4u64 {
            let name = alloc::format!("app-{a}");
            let mut d = DeploymentSpec::new(
                &name,
                400 + 300 * a as u32,
                Resources::new(100 + 150 * a, (128 + 256 * a) * MIB),
            );
            // One pod a node (InterPodAffinity's filter, node by node).
            if a == 0 {
                d.template = d
                    .template
                    .with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", &name)]), None));
            }
            c.deploy(d).unwrap();
        }
        c.reconcile_to_fixed_point(profile);
        // Many small Deployments (kept indexes serve batches of one pod),
        // nodes changed between batches (an index catches up with them),
        // and scale-ups whose revision already holds nodes.
        for a in 0..60u64 {
            let name = alloc::format!("small-{a}");
            let mut d = DeploymentSpec::new(
                &name,
                1 + (a % 12) as u32,
                Resources::new(50 + 50 * (a % 3), (64 + 64 * (a % 4)) * MIB),
            );
            // Some spread by hostname on their own, some prefer a zone.
            if a % 4 == 1 {
                d.template = d
                    .template
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1,
                        "kubernetes.io/hostname",
                        WhenUnsatisfiable::ScheduleAnyway,
                        Selector::new(&[("app", &name)]),
                    ));
            }
            // Some keep one pod a node, or a zone (whose verdict moves with
            // binds elsewhere in the zone: those batches scan); some keep
            // away from app-0's pods, which its scale-up below then avoids.
            // (and some of those that must spread over zones, below, keep
            // one pod a node too: an index of their own, with zone classes).
            if a % 4 == 0 || a % 12 == 3 {
                let key = (a % 8 == 4).then_some("topology.kubernetes.io/zone");
                d.template = d
                    .template
                    .with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", &name)]), key));
            }
            if a % 12 == 5 {
                let key = (a % 24 == 17).then_some("topology.kubernetes.io/zone");
                d.template = d
                    .template
                    .with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", "app-0")]), key));
            }
            // Some must spread over zones (nodes without a zone never fit).
            if a % 4 == 3 {
                d.template = d
                    .template
                    .with_topology_spread(TopologySpreadConstraint::new(
                        1 + (a % 2) as u32,
                        "topology.kubernetes.io/zone",
                        WhenUnsatisfiable::DoNotSchedule,
                        Selector::new(&[("app", &name)]),
                    ));
            }
            // Some select SSDs, or require zones a and c (they borrow the
            // index of the templates without, through a view: see
            // `lend_masked`); some also prefer a zone.
            if a % 6 == 1 {
                d.template = d.template.with_node_selector("disktype", "ssd");
            }
            if (a % 10 == 7 || a % 10 == 9) && a % 12 != 5 {
                d.template = d.template.with_node_affinity(NodeAffinity {
                    required: Some(alloc::vec![NodeSelectorTerm {
                        match_expressions: alloc::vec![NodeSelectorRequirement::new(
                            "topology.kubernetes.io/zone",
                            NodeSelectorOperator::In,
                            &["a", "c"],
                        )],
                        match_fields: Vec::new(),
                    }]),
                    preferred: Vec::new(),
                });
            }
            // Some prefer a zone; some also SSDs, or five things (more
            // terms than a class holds: those batches scan).
            if a % 4 == 2 {
                let term = |key: &str, value: &str, weight: i32| PreferredSchedulingTerm {
                    weight,
                    preference: NodeSelectorTerm {
                        match_expressions: alloc::vec![NodeSelectorRequirement::new(
                            key,
                            NodeSelectorOperator::In,
                            &[value],
                        )],
                        match_fields: Vec::new(),
                    },
                };
                let mut preferred = alloc::vec![term(
                    "topology.kubernetes.io/zone",
                    "b",
                    1 + (a % 50) as i32
                )];
                if a % 8 == 6 {
                    preferred.push(term("disktype", "ssd", 30));
                }
                if a % 20 == 10 {
                    for (v, w) in [("a", 5), ("c", 7), ("d", 9)] {
                        preferred.push(term("topology.kubernetes.io/zone", v, w));
                    }
                }
                let required = d.template.node_affinity.required.clone();
                d.template = d.template.with_node_affinity(NodeAffinity {
                    required,
                    preferred,
                });
            }
            c.deploy(d).unwrap();
            if a % 9 == 4 {
                c.cordon(&alloc::format!("n-{}", a * 7)).unwrap();
            }
            if a % 11 == 3 {
                c.uncordon(&alloc::format!("n-{}", (a - 3) * 7 + 28)).ok();
                c.remove_node(&alloc::format!("n-{}", a * 5 + 1)).unwrap();
            }
            if a % 5 == 0 {
                c.scale(&alloc::format!("small-{}", a / 2), 6 + (a % 7) as u32)
                    .unwrap();
            }
            if a % 3 == 0 {
                c.reconcile_to_fixed_point(profile);
            }
        }
        c.scale("app-1", 520).unwrap();
        c.scale("app-0", 450).unwrap();
        c.reconcile_to_fixed_point(profile);
        let placed = c.pods().map(|p| (p.name(), p.node)).collect();
        (placed, c.caches.masked_lends)
    }

    /// The indexed cycle chooses exactly what the scan chooses: the same
    /// sample, totals, tie order and PRNG draws.
    /// A zone key with a value per node and many pods a node: more spread
    /// classes than the fast cycle's buffers hold. The batch falls back to
    /// the general cycle, and scan and index still agree.
    #[test]
    fn too_many_classes_fall_back_to_the_general_cycle() {
        let run = |index: super::IndexUse| {
            let mut c = Cluster::new();
            c.set_index_use(index);
            for i in 0..300u64 {
                let n = NodeSpec::new(&alloc::format!("n-{i}"), 64_000, 262_144 * MIB)
                    .with_label("topology.kubernetes.io/zone", &alloc::format!("z-{i}"));
                c.add_node(n).unwrap();
            }
            c.deploy(DeploymentSpec::new(
                "web",
                600,
                Resources::new(10, 16 * MIB),
            ))
            .unwrap();
            let mut d = DeploymentSpec::new("prefers", 300, Resources::new(10, 16 * MIB));
            d.template = d.template.with_node_affinity(NodeAffinity {
                required: None,
                preferred: alloc::vec![PreferredSchedulingTerm {
                    weight: 10,
                    preference: NodeSelectorTerm {
                        match_expressions: alloc::vec![NodeSelectorRequirement::new(
                            "topology.kubernetes.io/zone",
                            NodeSelectorOperator::In,
                            &["z-1", "z-2"],
                        )],
                        match_fields: Vec::new(),
                    },
                }],
            });
            c.deploy(d).unwrap();
            c.reconcile_to_fixed_point(Profile::kube_scheduler());
            c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>()
        };
        let scan = run(super::IndexUse::Never);
        assert!(scan.iter().all(|p| p.1.is_some()));
        assert_eq!(scan, run(super::IndexUse::Always));
    }

    /// A batch of more pods than the spread classes could count if any
    /// node took them all (17,000 pods in three zones: 68,004 classes by
    /// the pods left) keeps the fast cycle when no node can hold more than
    /// 60 pods: its classes are bounded by what a node may hold, and the
    /// index places every pod as the scan does.
    #[test]
    fn pods_kept_one_a_node_are_placed_from_an_index_of_their_own() {
        // Required anti-affinity by hostname to their own pods, a Deployment
        // kept off another's nodes, one drawn to another's nodes: each
        // node's InterPodAffinity verdict moves only with that node's binds
        // of the batch, so an index of the batch's own holds it. Anti-affinity
        // to its own pods by zone, or affinity to its own pods, moves whole
        // zones: those batches scan.
        let run = |index: super::IndexUse| {
            let mut c = Cluster::new();
            c.set_index_use(index);
            let zones = ["a", "b", "c"];
            for i in 0..400u64 {
                let mut n = NodeSpec::new(
                    &alloc::format!("n-{i}"),
                    8_000 + 1000 * (i % 4),
                    32_768 * MIB,
                );
                if i % 200 != 7 {
                    n = n.with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize]);
                }
                c.add_node(n).unwrap();
            }
            let apart = |name: &str, of: &str, replicas: u32| {
                let mut d = DeploymentSpec::new(name, replicas, Resources::new(500, 1024 * MIB));
                d.template = d
                    .template
                    .with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", of)]), None));
                d
            };
            c.deploy(apart("web", "web", 250)).unwrap();
            // One pod a zone: a bind closes its whole zone, so this batch
            // scans. One in each of three zones, the others on the two
            // nodes without one.
            let mut zonal = DeploymentSpec::new("zonal", 6, Resources::new(500, 1024 * MIB));
            zonal.template = zonal.template.with_anti_affinity(AffinityTerm::new(
                Selector::new(&[("app", "zonal")]),
                Some("topology.kubernetes.io/zone"),
            ));
            c.deploy(zonal).unwrap();
            // All in the zone of their first pod.
            let mut group = DeploymentSpec::new("group", 30, Resources::new(200, 256 * MIB));
            group.template = group.template.with_affinity(AffinityTerm::new(
                Selector::new(&[("app", "group")]),
                Some("topology.kubernetes.io/zone"),
            ));
            c.deploy(group).unwrap();
            c.reconcile_to_fixed_point(Profile::kube_scheduler());
            // Only on nodes holding a web pod (required affinity by
            // hostname to another Deployment's pods).
            let mut near = DeploymentSpec::new("near", 60, Resources::new(100, 128 * MIB));
            near.template = near
                .template
                .with_affinity(AffinityTerm::new(Selector::new(&[("app", "web")]), None));
            c.deploy(near).unwrap();
            c.deploy(apart("cache", "web", 120)).unwrap();
            // Web's new pods avoid cache's nodes too (cache's pods carry the
            // term and web's pods match it): 280 nodes, 140 pods Pending.
            c.scale("web", 420).unwrap();
            c.reconcile_to_fixed_point(Profile::kube_scheduler());
            let placed = c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>();
            (placed, c.caches.own_indexes)
        };
        let (scan, none) = run(super::IndexUse::Never);
        assert_eq!(none, 0);
        assert_eq!(scan.iter().filter(|p| p.1.is_none()).count(), 140);
        for knob in [super::IndexUse::Auto, super::IndexUse::Always] {
            let (indexed, own) = run(knob);
            // web's two batches, cache's and near's; not zonal's nor group's.
            assert_eq!(own, 4, "{knob:?}: batches with an index of their own");
            assert_eq!(scan, indexed, "{knob:?}");
        }
    }

    /// The generated workloads with constraints (nodeSelectors, taints,
    /// anti-affinity by hostname and by zone), without PreferNoSchedule
    /// taints (under which no batch takes an index): the index, where it
    /// pays and for every batch, places every pod as the scan does.
    #[test]
    fn generated_workloads_with_anti_affinity_place_as_the_scan_does() {
        use super::IndexUse;
        use crate::workload::{generate, WorkloadConfig};
        let cfg = WorkloadConfig {
            nodes: 300,
            apps: 40,
            min_replicas: 20,
            max_replicas: 160,
            constraints: true,
        };
        for seed in 1..=crate::fuzz_ops(4) {
            let run = |index: IndexUse| {
                let mut w = generate(&mut crate::simulator::Prng::new(seed), &cfg);
                let mut c = Cluster::new();
                c.set_scheduler_seed(seed);
                c.set_index_use(index);
                for mut n in w.nodes.drain(..) {
                    n.taints
                        .retain(|t| t.effect != crate::model::TaintEffect::PreferNoSchedule);
                    c.add_node(n).unwrap();
                }
                for d in w.apps.drain(..) {
                    c.deploy(d).unwrap();
                }
                c.reconcile_to_fixed_point(Profile::kube_scheduler());
                let placed = c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>();
                (placed, c.caches.own_indexes)
            };
            let (scan, _) = run(IndexUse::Never);
            let (always, own) = run(IndexUse::Always);
            assert!(own > 0, "seed {seed}: no batch had an index of its own");
            assert_eq!(scan, always, "seed {seed}: every batch indexed");
            assert_eq!(
                scan,
                run(IndexUse::Auto).0,
                "seed {seed}: indexed where it pays"
            );
        }
    }

    /// Templates that select, require or prefer nodes borrow the index of
    /// the templates without (`lend_masked`, through a view): random ones
    /// beside plain Deployments of the same few requests, with nodes
    /// relabelled, cordoned, tainted and removed between waves (the views
    /// are kept by node epoch), place as the scan does under each tie rule.
    #[test]
    fn templates_that_select_nodes_place_through_a_view_as_the_scan_does() {
        use super::IndexUse;
        use crate::simulator::Prng;
        let term = |key: &str, op: NodeSelectorOperator, values: &[&str]| NodeSelectorTerm {
            match_expressions: alloc::vec![NodeSelectorRequirement::new(key, op, values)],
            match_fields: Vec::new(),
        };
        let mut lowest = Profile::kube_scheduler();
        lowest.tie_break = crate::TieBreak::LowestNodeId;
        // Another shape: every feasible node scored, no system default
        // spreading (no classes but the terms'), NodeAffinity weighed 7 and
        // not filtering (a nodeSelector then narrows nothing).
        let mut other = Profile::kube_scheduler();
        other.percentage_of_nodes_to_score = 100;
        other.system_default_spreading = false;
        other.filters.retain(|p| *p != crate::Plugin::NodeAffinity);
        for s in &mut other.scores {
            if s.0 == crate::Plugin::NodeAffinity {
                s.1 = 7;
            }
        }
        let mut other_masked = 0;
        for seed in 1..=crate::fuzz_ops(4) {
            // With `observe`, every cycle's record (its sample, totals and
            // choice) is kept too.
            let run = |index: IndexUse, profile: &Profile, observe: bool| {
                let mut rng = Prng::new(seed);
                let mut c = Cluster::new();
                c.set_scheduler_seed(seed);
                c.set_index_use(index);
                let mut records: Vec<super::CycleRecord> = Vec::new();
                let mut converge = |c: &mut Cluster| {
                    if observe {
                        c.reconcile_to_fixed_point_observed(
                            profile,
                            &mut |c: &Cluster, _: &str, _| records.push(c.last_cycle().clone()),
                        );
                    } else {
                        c.reconcile_to_fixed_point(profile);
                    }
                };
                let zones = ["a", "b", "c"];
                let node = |rng: &mut Prng, i: u64| {
                    let mut n = NodeSpec::new(
                        &alloc::format!("n-{i}"),
                        4000 + 2000 * rng.below(3),
                        (8192 + 4096 * rng.below(3)) * MIB,
                    );
                    if !rng.chance(10) {
                        n = n.with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize]);
                    }
                    if rng.chance(40) {
                        n = n.with_label("disktype", "ssd");
                    }
                    n
                };
                let nodes = 300 + rng.below(200);
                for i in 0..nodes {
                    c.add_node(node(&mut rng, i)).unwrap();
                }
                for wave in 0..3 {
                    for a in 0..14 {
                        let req = Resources::new(
                            100 + 100 * rng.below(2),
                            (256 + 256 * rng.below(2)) * MIB,
                        );
                        let replicas = 1 + rng.below(60) as u32;
                        let mut d =
                            DeploymentSpec::new(&alloc::format!("w{wave}-{a}"), replicas, req);
                        let ssd = || term("disktype", NodeSelectorOperator::In, &["ssd"]);
                        let preferred = |w: i32| PreferredSchedulingTerm {
                            weight: w,
                            preference: ssd(),
                        };
                        match rng.below(7) {
                            0 => d.template = d.template.with_node_selector("disktype", "ssd"),
                            1 => {
                                d.template = d.template.with_node_affinity(NodeAffinity {
                                    required: Some(alloc::vec![term(
                                        "topology.kubernetes.io/zone",
                                        NodeSelectorOperator::In,
                                        &["a", "b"],
                                    )]),
                                    preferred: Vec::new(),
                                })
                            }
                            2 => {
                                d.template = d.template.with_node_affinity(NodeAffinity {
                                    required: None,
                                    preferred: alloc::vec![preferred(1 + rng.below(100) as i32)],
                                })
                            }
                            3 => {
                                d.template = d.template.with_node_affinity(NodeAffinity {
                                    required: Some(alloc::vec![term(
                                        "topology.kubernetes.io/zone",
                                        NodeSelectorOperator::NotIn,
                                        &["c"],
                                    )]),
                                    preferred: alloc::vec![
                                        preferred(20),
                                        PreferredSchedulingTerm {
                                            weight: 5,
                                            preference: term(
                                                "topology.kubernetes.io/zone",
                                                NodeSelectorOperator::In,
                                                &["b"],
                                            ),
                                        }
                                    ],
                                })
                            }
                            _ => {}
                        }
                        c.deploy(d).unwrap();
                    }
                    converge(&mut c);
                    // Nodes change between waves: a view built before is
                    // not read after (the node epoch moved).
                    let pick = |rng: &mut Prng| alloc::format!("n-{}", rng.below(nodes));
                    for _ in 0..4 {
                        c.cordon(&pick(&mut rng)).ok();
                        c.taint_node(
                            &pick(&mut rng),
                            crate::Taint::new("dedicated", "x", crate::TaintEffect::NoSchedule),
                        )
                        .ok();
                        let i = rng.below(nodes);
                        let mut relabelled = node(&mut rng, i);
                        relabelled = relabelled.with_label("disktype", "ssd");
                        c.reregister_node(relabelled).ok();
                    }
                    c.remove_node(&pick(&mut rng)).ok();
                    converge(&mut c);
                }
                let placed = c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>();
                (placed, c.caches.masked_lends, records)
            };
            for profile in [Profile::kube_scheduler(), lowest.clone(), other.clone()] {
                let (scan, _, _) = run(IndexUse::Never, &profile, false);
                let (always, masked, _) = run(IndexUse::Always, &profile, false);
                if profile.percentage_of_nodes_to_score == 0 {
                    assert!(masked > 0, "seed {seed}: no batch borrowed through a view");
                } else {
                    other_masked += masked;
                }
                assert_eq!(
                    scan, always,
                    "seed {seed}, {:?}: every batch indexed",
                    profile.tie_break
                );
                let (auto, _, _) = run(IndexUse::Auto, &profile, false);
                assert_eq!(
                    scan, auto,
                    "seed {seed}, {:?}: indexed where it pays",
                    profile.tie_break
                );
            }
            // Watched, each cycle through a view records what the scan does.
            let profile = Profile::kube_scheduler();
            let (_, _, scanned) = run(IndexUse::Never, &profile, true);
            let (_, masked, indexed) = run(IndexUse::Always, &profile, true);
            assert!(
                masked > 0,
                "seed {seed}: no watched batch borrowed through a view"
            );
            assert_eq!(scanned, indexed, "seed {seed}: the cycles' records");
        }
        assert!(
            other_masked > 0,
            "no batch of the other shape borrowed through a view"
        );
    }

    #[test]
    fn small_batches_of_the_teaching_profiles_place_from_an_index_as_the_heap_does() {
        use super::IndexUse;
        use crate::simulator::Prng;
        for profile in [Profile::bin_pack(), Profile::least_loaded()] {
            for seed in 1..=crate::fuzz_ops(3) {
                let run = |index: IndexUse| {
                    let mut rng = Prng::new(seed);
                    let mut c = Cluster::new();
                    c.set_scheduler_seed(seed);
                    c.set_index_use(index);
                    let zones = ["a", "b", "c"];
                    for i in 0..300u64 {
                        let big = rng.below(4) == 0;
                        let mut n = NodeSpec::new(
                            &alloc::format!("n-{i}"),
                            if big { 32_000 } else { 8_000 },
                            (if big { 65_536 } else { 16_384 }) * MIB,
                        )
                        .with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize]);
                        if rng.below(3) == 0 {
                            n = n.with_label("disk", "ssd");
                        }
                        c.add_node(n).unwrap();
                    }
                    // Waves of small Deployments (1 to 12 pods, four
                    // request sizes, a third selecting ssd nodes), each
                    // wave converged: later batches lend indexes that the
                    // waves before left stale (a key's index is built once
                    // its batches have paid for it: the sizes repeat).
                    let mut placed = Vec::new();
                    for wave in 0..3 {
                        for a in 0..60 {
                            let size = rng.range(1, 13) as u32;
                            let req = Resources::new(
                                rng.range(1, 3) * 250,
                                (rng.range(1, 3) * 512) * MIB,
                            );
                            let mut d =
                                DeploymentSpec::new(&alloc::format!("w{wave}-{a}"), size, req);
                            if rng.below(3) == 0 {
                                d.template = d.template.with_node_selector("disk", "ssd");
                            }
                            c.deploy(d).unwrap();
                        }
                        c.reconcile_to_fixed_point(&profile);
                        placed.extend(c.pods().map(|p| (p.name(), p.node)));
                    }
                    (placed, c.caches.heap_indexes)
                };
                let name = &profile.scheduler_name;
                let (heap, none) = run(IndexUse::Never);
                assert_eq!(none, 0);
                for index in [IndexUse::Always, IndexUse::Auto] {
                    let (indexed, used) = run(index);
                    assert!(
                        used > 0,
                        "{name} seed {seed} {index:?}: no batch took an index"
                    );
                    assert_eq!(heap, indexed, "{name} seed {seed} {index:?}");
                }
            }
        }
    }

    #[test]
    fn a_batch_bounded_by_node_capacity_keeps_the_index() {
        let run = |index: super::IndexUse| {
            let mut c = Cluster::new();
            c.set_index_use(index);
            let zones = ["a", "b", "c"];
            for i in 0..300u64 {
                let n = NodeSpec::new(&alloc::format!("n-{i}"), 64_000, 262_144 * MIB)
                    .with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize])
                    .with_max_pods(60);
                c.add_node(n).unwrap();
            }
            c.deploy(DeploymentSpec::new(
                "web",
                17_000,
                Resources::new(10, 16 * MIB),
            ))
            .unwrap();
            c.reconcile_to_fixed_point(Profile::kube_scheduler());
            c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>()
        };
        let scan = run(super::IndexUse::Never);
        assert!(scan.iter().all(|p| p.1.is_some()));
        assert_eq!(scan, run(super::IndexUse::Always));
    }

    /// A small batch lends an index without refiling it (its cycles
    /// refile the blocks they reach): after other requests filled most
    /// nodes, the stale blocks still count them feasible, and after the
    /// filler leaves they count them full. Every cycle still sees what the
    /// scan sees, including when fewer nodes than a sample are left.
    #[test]
    fn a_lazily_refiled_index_places_as_the_scan_does() {
        use super::IndexUse;
        let run = |index: IndexUse, profile: &Profile| {
            let mut c = Cluster::new();
            c.set_index_use(index);
            let zones = ["a", "b", "c"];
            for i in 0..1000u64 {
                let mut n = NodeSpec::new(&alloc::format!("n-{i}"), 4000, 16_384 * MIB)
                    .with_label("topology.kubernetes.io/zone", zones[(i % 3) as usize]);
                if i % 4 == 1 {
                    n = n.with_label("disktype", "ssd");
                }
                c.add_node(n).unwrap();
            }
            let small = |c: &mut Cluster, name: &str, replicas: u32| {
                c.deploy(DeploymentSpec::new(
                    name,
                    replicas,
                    Resources::new(100, 256 * MIB),
                ))
                .unwrap();
                c.reconcile_to_fixed_point(profile);
            };
            // One spread constraint of the pod's own, the same requests: a
            // hard zone constraint (`zoned`) shares the small Deployments'
            // index (`lend_index`), and so does a soft hostname constraint
            // (`hosted`), its classes carrying the zone digit.
            let spread =
                |c: &mut Cluster, name: &str, replicas: u32, key: &str, when: WhenUnsatisfiable| {
                    let mut d = DeploymentSpec::new(name, replicas, Resources::new(100, 256 * MIB));
                    d.template = d
                        .template
                        .with_topology_spread(TopologySpreadConstraint::new(
                            1,
                            key,
                            when,
                            Selector::new(&[("app", name)]),
                        ));
                    c.deploy(d).unwrap();
                    c.reconcile_to_fixed_point(profile);
                };
            let zoned = |c: &mut Cluster, name: &str, replicas: u32| {
                let zone = "topology.kubernetes.io/zone";
                spread(c, name, replicas, zone, WhenUnsatisfiable::DoNotSchedule)
            };
            let hosted = |c: &mut Cluster, name: &str, replicas: u32| {
                let host = "kubernetes.io/hostname";
                spread(c, name, replicas, host, WhenUnsatisfiable::ScheduleAnyway)
            };
            // Required SSDs (a filter of their index's key) and preferred
            // SSDs (a bit of their classes), the same requests: indexes of
            // their own beside the small request's.
            let ssd = || NodeSelectorTerm {
                match_expressions: alloc::vec![NodeSelectorRequirement::new(
                    "disktype",
                    NodeSelectorOperator::In,
                    &["ssd"],
                )],
                match_fields: Vec::new(),
            };
            let on_ssd = |c: &mut Cluster, name: &str, replicas: u32, required: bool| {
                let mut d = DeploymentSpec::new(name, replicas, Resources::new(100, 256 * MIB));
                d.template = d.template.with_node_affinity(if required {
                    NodeAffinity {
                        required: Some(alloc::vec![ssd()]),
                        preferred: Vec::new(),
                    }
                } else {
                    NodeAffinity {
                        required: None,
                        preferred: alloc::vec![PreferredSchedulingTerm {
                            weight: 20 + (replicas % 50) as i32,
                            preference: ssd(),
                        }],
                    }
                });
                c.deploy(d).unwrap();
                c.reconcile_to_fixed_point(profile);
            };
            // The index of the small request, filed over every node.
            small(&mut c, "wide", 1000);
            on_ssd(&mut c, "ssd-wide", 200, true);
            on_ssd(&mut c, "ssd-liked", 100, false);
            zoned(&mut c, "zoned-0", 6);
            // Another request fills 980 nodes (a node with a pod of each
            // has 50m left): stale in that index, and too few nodes left
            // for a sample.
            c.deploy(DeploymentSpec::new(
                "filler",
                980,
                Resources::new(3850, 1024 * MIB),
            ))
            .unwrap();
            c.reconcile_to_fixed_point(profile);
            for (j, r) in [1u32, 2, 1, 3, 1].into_iter().enumerate() {
                small(&mut c, &alloc::format!("late-{j}"), r);
                zoned(&mut c, &alloc::format!("zoned-late-{j}"), r);
                hosted(&mut c, &alloc::format!("hosted-late-{j}"), r + 1);
                on_ssd(&mut c, &alloc::format!("ssd-late-{j}"), r, j % 2 == 0);
                on_ssd(
                    &mut c,
                    &alloc::format!("ssd-liked-late-{j}"),
                    r + 2,
                    j % 2 == 1,
                );
            }
            // The filler goes: the nodes come back, stale the other way.
            c.scale("filler", 0).unwrap();
            c.reconcile_to_fixed_point(profile);
            for (j, r) in [1u32, 2, 1, 7].into_iter().enumerate() {
                small(&mut c, &alloc::format!("again-{j}"), r);
                zoned(&mut c, &alloc::format!("zoned-again-{j}"), r);
                hosted(&mut c, &alloc::format!("hosted-again-{j}"), 2 * r);
                on_ssd(&mut c, &alloc::format!("ssd-again-{j}"), 3 * r, true);
            }
            c.cordon("n-5").unwrap();
            c.remove_node("n-77").unwrap();
            small(&mut c, "last", 3);
            c.pods().map(|p| (p.name(), p.node)).collect::<Vec<_>>()
        };
        let mut lowest = Profile::kube_scheduler();
        lowest.tie_break = crate::TieBreak::LowestNodeId;
        for profile in [Profile::kube_scheduler(), lowest] {
            let scan = run(IndexUse::Never, &profile);
            assert!(scan.iter().all(|p| p.1.is_some()));
            for knob in [IndexUse::Auto, IndexUse::Always] {
                assert_eq!(scan, run(knob, &profile), "index {knob:?}");
            }
        }
    }

    #[test]
    fn the_sample_index_places_every_pod_as_the_scan_does() {
        use super::IndexUse;
        let mut lowest = Profile::kube_scheduler();
        lowest.tie_break = crate::TieBreak::LowestNodeId;
        for profile in [Profile::kube_scheduler(), lowest] {
            for seed in [1u64, 2, 3] {
                let (scan, _) = big(seed, IndexUse::Never, &profile);
                assert!(
                    scan.iter().all(|p| p.1.is_some()),
                    "{:?}",
                    scan.iter()
                        .filter(|p| p.1.is_none())
                        .map(|p| &p.0)
                        .collect::<Vec<_>>()
                );
                // The index where it pays, and the index for every batch.
                for knob in [IndexUse::Auto, IndexUse::Always] {
                    let (indexed, _) = big(seed, knob, &profile);
                    assert_eq!(
                        scan, indexed,
                        "seed {seed}, ties {:?}, index {knob:?}",
                        profile.tie_break
                    );
                }
            }
        }
    }

    /// Issue 42, row 10: nodes with no allocatable cpu, memory or pods
    /// among 300 (enough for the sample index): pods that request none of
    /// what a node lacks go there, scored as kube-scheduler scores them (a
    /// resource with allocatable 0 left out), and the index places every
    /// pod as the scan does (debug builds also compare each planned score
    /// with the general one).
    #[test]
    fn nodes_with_zero_allocatable_place_alike_through_the_index_and_the_scan() {
        use super::IndexUse;
        let run = |index: IndexUse| {
            let mut c = Cluster::new();
            c.set_index_use(index);
            for i in 0..300u64 {
                let (cpu, mem) = match i % 5 {
                    0 => (0, 8192),
                    1 => (4000, 0),
                    _ => (4000, 8192),
                };
                let mut n = NodeSpec::new(&alloc::format!("n-{i}"), cpu, mem * MIB);
                if i % 11 == 0 {
                    n = n.with_max_pods(0);
                }
                c.add_node(n).unwrap();
            }
            for (name, req, replicas) in [
                ("best-effort", Resources::new(0, 0), 500),
                ("memory-only", Resources::new(0, 256 * MIB), 400),
                ("cpu-only", Resources::new(250, 0), 400),
                ("both", Resources::new(250, 256 * MIB), 300),
            ] {
                c.deploy(DeploymentSpec::new(name, replicas, req)).unwrap();
            }
            assert!(
                c.reconcile_to_fixed_point(Profile::kube_scheduler())
                    .converged
            );
            crate::verify::verify_capacity(&c).unwrap();
            c.pods()
                .map(|p| (p.name(), p.node))
                .collect::<alloc::vec::Vec<_>>()
        };
        let scan = run(IndexUse::Never);
        assert!(
            scan.iter().all(|p| p.1.is_some()),
            "every pod fits somewhere"
        );
        assert_eq!(scan, run(IndexUse::Always));
        assert_eq!(scan, run(IndexUse::Auto));
    }
}
