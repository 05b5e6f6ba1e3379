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

mod fast;
mod framework;
pub mod plugins;
mod preemption;
pub mod profile;

pub(crate) use fast::{cache, pinned, sample_index};

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
pub use fast::FastPaths;
pub use plugins::Unfit;
use plugins::{
    node_affinity, node_resources_balanced_allocation as balanced, node_resources_fit as fit,
    node_unschedulable, pod_topology_spread as spread, taint_toleration, ScoreShape,
};
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
use spread::Spread;

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
    /// The template requests scalar resources (extended, ephemeral-storage,
    /// hugepages-*): the batch takes the plain cycle (`cycle`'s scan with
    /// every filter), never the heap, the index or the class cycle, whose
    /// summaries count cpu and memory only.
    scalars: bool,
    /// The template takes host ports (NodePorts' PreFilter does not skip
    /// it): the batch takes the plain cycle, like `scalars`, since the
    /// heap, the index and the class cycle do not book ports.
    host_ports: bool,
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
    norm: Vec<i64>,
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
    norm: Vec<i64>,
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
        self.norm.clear();
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
    /// The fit strategy's weights of cpu and memory, above 0 (profile
    /// validation refuses weights of 0).
    w_cpu: i64,
    w_mem: i64,
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
/// few pods scanned where a kept index was the cheaper way (the figures
/// for one to four: docs/speed-history.md, "Figures from the scheduler's
/// comments").
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
    /// taint, `key=value:Effect`, or the host port taken.
    pub detail: Option<String>,
    /// Each score plugin's raw, normalised and weighted score (feasible nodes).
    pub scores: Vec<PluginScore>,
    /// The weighted sum; the highest wins.
    pub total: Option<i64>,
    /// 1 for the best total; equal totals share a position.
    pub position: Option<u32>,
}

impl NodeVerdict {
    /// The verdict of the filters alone on `node` (no scores yet).
    pub(crate) fn filtered(node: String, r: &Result<(), Unfit>) -> Self {
        let (feasible, plugin, code, reasons, detail) = match r {
            Ok(()) => (true, None, Code::Success, Vec::new(), None),
            Err(u) => (false, Some(u.plugin()), u.code(), u.reasons(), u.detail()),
        };
        NodeVerdict {
            node,
            feasible,
            plugin,
            code,
            reasons,
            detail,
            scores: Vec::new(),
            total: None,
            position: None,
        }
    }
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

    /// The record of the last scheduling cycle.
    pub fn last_cycle(&self) -> &CycleRecord {
        &self.last_cycle
    }
}

fn p_requests(c: &Cluster, p: &crate::cluster::Pod) -> Resources {
    c.revision_of(p).template.requests
}

/// The plan for `local_planned`, when NodeResourcesFit scores LeastAllocated
/// or MostAllocated over cpu and memory (in either order) and
/// BalancedAllocation balances cpu and memory, for pods of template `tpl`:
/// resources the pod takes no part in (a scalar resource it does not
/// request, `Resource::inert_for`) are left out first, as the scorers leave
/// them out, so a profile that also scores `nvidia.com/gpu` plans the pods
/// that request no GPU.
fn local_plan(profile: &Profile, tpl: &crate::model::PodTemplate) -> Option<LocalPlan> {
    // The plan's kernels know these two node-local scores alone.
    let known = |p: Plugin| {
        !p.node_local()
            || matches!(
                p,
                Plugin::NodeResourcesFit | Plugin::NodeResourcesBalancedAllocation
            )
    };
    if !profile.scores.iter().all(|&(p, _)| known(p)) {
        return None;
    }
    let fit = &profile.fit;
    let most = match fit.kind {
        ScoringStrategyType::LeastAllocated => false,
        ScoringStrategyType::MostAllocated => true,
        ScoringStrategyType::RequestedToCapacityRatio => return None,
    };
    let live = || fit.resources.iter().filter(|(r, _)| !r.inert_for(tpl));
    let w = |r: Resource| live().find(|(x, _)| *x == r).map(|&(_, w)| w);
    let (Some(w_cpu), Some(w_mem)) = (w(Resource::Cpu), w(Resource::Memory)) else {
        return None;
    };
    if live().count() != 2 {
        return None;
    }
    let w_bal = profile
        .weight(Plugin::NodeResourcesBalancedAllocation)
        .unwrap_or(0);
    if w_bal > 0 {
        let bal = || {
            profile
                .balanced_resources
                .iter()
                .filter(|r| !r.inert_for(tpl))
        };
        if bal().count() != 2
            || !bal().any(|r| *r == Resource::Cpu)
            || !bal().any(|r| *r == Resource::Memory)
        {
            return None;
        }
    }
    Some(LocalPlan {
        w_fit: profile.weight(Plugin::NodeResourcesFit).unwrap_or(0),
        most,
        w_cpu,
        w_mem,
        w_bal,
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
