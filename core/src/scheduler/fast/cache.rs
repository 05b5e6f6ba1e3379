//! Per-node verdicts and scores kept from one batch to the next.
//!
//! A batch (the pending pods of one Deployment revision) needs, per node, the
//! verdict of the filters that read only the node and the template
//! (NodeUnschedulable, TaintToleration with a node's condition taints,
//! NodeAffinity) and the
//! node-local scores (NodeResourcesFit, NodeResourcesBalancedAllocation),
//! which read only the node's books and the pod's requests. Many batches share
//! these inputs: Deployments with the same requests, or the same nodeSelector
//! and tolerations. Computing them per batch costs O(nodes) for every
//! Deployment, which dominates when there are many small ones.
//!
//! So they are kept here, keyed by what they depend on, and each value carries
//! the stamp its node had when it was computed. Every change to a node goes
//! through `Cluster::refresh_hot` (or, for a bind or an unbind,
//! `refresh_hot_resources`), which gives the node a stamp never used before;
//! a value whose stamp differs from its node's is stale and is recomputed on
//! use. Values that read only the node's spec and conditions (the static
//! verdicts, inclusion, NodeAffinity's terms) are checked against the node's
//! spec stamp, which binds leave alone; the node-local scores against the
//! stamp every change moves. A cache therefore never changes a decision: it
//! only saves recomputing a value whose inputs are the same (debug builds
//! compare every cached value with a fresh one).
//!
//! Bounds: at most [`MAX_ENTRIES`] keys per kind, least recently used dropped
//! first; each entry holds two words per node slot. A profile change clears
//! everything (the values depend on its plugins, weights and arguments).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::affinity::{NodeSelectorTerm, PreferredSchedulingTerm};
use crate::model::{Labels, Resources, Toleration};

use crate::scheduler::profile::Profile;

/// Keys kept per kind of value.
pub(crate) const MAX_ENTRIES: usize = 24;

/// A value not computed yet (stamps start at 1).
const NEVER: u64 = 0;

/// Which nodes a key's nodeSelector and required node affinity admit: per
/// node with its spec stamp, and the whole vector as it was at one
/// `Cluster::node_epoch` (which every change to a node's labels or
/// presence moves, binds not), read whole by a batch at that epoch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Inclusion {
    pub slots: Slots<u8>,
    pub whole: Vec<u8>,
    pub epoch: Option<u64>,
}

/// Per-node values with the node stamp each was computed at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slots<T: Copy + Default> {
    values: Vec<T>,
    stamps: Vec<u64>,
}

impl<T: Copy + Default> Slots<T> {
    /// The value of slot `i` if it was computed at `stamp`.
    #[inline(always)]
    pub fn get(&self, i: usize, stamp: u64) -> Option<T> {
        match self.stamps.get(i) {
            Some(&s) if s == stamp => Some(self.values[i]),
            _ => None,
        }
    }

    #[inline]
    pub fn set(&mut self, i: usize, stamp: u64, v: T) {
        if self.stamps.len() <= i {
            self.stamps.resize(i + 1, NEVER);
            self.values.resize(i + 1, T::default());
        }
        self.stamps[i] = stamp;
        self.values[i] = v;
    }
}

/// What the static filters (NodeUnschedulable, TaintToleration,
/// NodeAffinity's filter: those that read only the node and the pod) read
/// of the pod. They are given this and nothing else of the template
/// (`Cluster::static_filter_with`), so a filter that needs another field
/// adds it here, and [`StaticKey`], the cache's key for their verdicts, is
/// made from it: the key cannot miss a field a static filter reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StaticInputs<'a> {
    pub node_selector: &'a Labels,
    /// The required node affinity terms (the preferred terms only score).
    pub required: Option<&'a [NodeSelectorTerm]>,
    pub tolerations: &'a [Toleration],
    /// The tolerations DefaultTolerationSeconds added: made from
    /// `tolerations` alone, so the key leaves them out.
    pub added_tolerations: &'a [Toleration],
}

impl<'a> StaticInputs<'a> {
    /// A revision's inputs, borrowed (no allocation).
    pub fn of(rev: &'a crate::cluster::Revision) -> Self {
        let tpl = &rev.template;
        StaticInputs {
            node_selector: &tpl.node_selector,
            required: tpl.node_affinity.required.as_deref(),
            tolerations: &tpl.tolerations,
            added_tolerations: &rev.added_tolerations,
        }
    }

    /// The owned key: every input but those made from the others.
    pub fn key(&self) -> StaticKey {
        let StaticInputs {
            node_selector,
            required,
            tolerations,
            added_tolerations: _,
        } = *self;
        StaticKey {
            node_selector: node_selector.clone(),
            required: required.map(<[NodeSelectorTerm]>::to_vec),
            tolerations: tolerations.to_vec(),
        }
    }
}

/// What the static filters' verdict depends on, besides the node: the
/// owned copy of [`StaticInputs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StaticKey {
    pub node_selector: Labels,
    pub required: Option<Vec<NodeSelectorTerm>>,
    pub tolerations: Vec<Toleration>,
}

/// What the node-local scores depend on, besides the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalKey {
    pub req: Resources,
    pub nonzero: Resources,
    /// The pod's requests of the scalar resources the profile scores
    /// (`Profile::scored_scalars`; empty, without allocation, for most).
    pub scalars: crate::model::scalar::Scalars,
}

/// Which nodes count for a spread constraint under its inclusion policies
/// (podtopologyspread/common.go, `matchNodeInclusionPolicies`); a
/// constraint under which every live node counts has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InclusionKey {
    /// nodeAffinityPolicy Honor, for a template with a nodeSelector or
    /// required terms: those.
    pub affinity: Option<(Labels, Option<Vec<NodeSelectorTerm>>)>,
    /// nodeTaintsPolicy Honor: the pod's tolerations (with those
    /// DefaultTolerationSeconds added), against the node's NoSchedule and
    /// NoExecute taints.
    pub taints: Option<Vec<Toleration>>,
}

/// What decides which nodes count for a list of spread constraints and
/// their domains (PodTopologySpread's eligible nodes): each constraint's
/// inclusion (`None`: every live node counts), each constraint's topology
/// (`None`: hostname), whether a node must carry every key of the list, and
/// whether the list is the filter's (a hostname constraint counts per node
/// only there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LayoutKey {
    /// For a soft list whose nodes must carry every key while some node
    /// lacks the hostname label: the hostname topology, which says whether
    /// a node carries it (`Batch::hostname_labels`).
    pub hostname_labels: Option<u32>,
    pub inclusion: Vec<Option<InclusionKey>>,
    pub topos: Vec<Option<u32>>,
    pub require_all: bool,
    pub hard: bool,
}

/// A node that does not count for a constraint in [`DomainLayout::domain_of`].
pub(crate) const NOT_COUNTED: u32 = u32::MAX;

/// The eligible nodes of a [`LayoutKey`] and their domains, as they were at
/// one `Cluster::node_epoch` (which every change to a node's labels, taints,
/// schedulability or presence moves; binds leave it alone): a batch's
/// domain counts then read only the nodes holding matching pods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DomainLayout {
    pub epoch: u64,
    /// Per constraint of the list, each node's domain, or [`NOT_COUNTED`]
    /// (empty for a constraint whose domains are not counted).
    pub domain_of: Vec<Vec<u32>>,
    /// Per constraint, how many eligible nodes each domain has.
    pub domain_nodes: Vec<Vec<u32>>,
}

/// What a batch's sample index holds besides the nodes' own state: which
/// nodes are feasible (the static filters and the requests), their spread
/// class (the zone-like topology of the system default constraints) and
/// their node-local score (the requests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IndexKey {
    pub statics: StaticKey,
    pub local: LocalKey,
    /// The topology of the zone constraint and the class stride (domains
    /// + 1), `None` without spread classes.
    pub zones: Option<(u32, usize)>,
    /// The topology and class stride of a hard zone constraint's domains.
    pub hard_zones: Option<(u32, usize)>,
    /// The preferred node affinity terms whose matches a class holds, in
    /// the template's order, without their weights (empty without).
    pub preferred: Vec<NodeSelectorTerm>,
    pub slots: usize,
}

/// A sample index kept between batches with the same [`IndexKey`]: a slot is
/// true while its node keeps the stamp it was filed at and holds no pod of
/// the batch's revision (such slots are marked to refile when a batch ends).
///
/// Node stamps come from one clock that only goes forward, and every slot
/// is filed at its node's stamp by the lend and the binds of the batch that
/// holds the index; so a slot outside `pending` and `lazy` is true exactly
/// while its node's stamp is at most `synced`, and the index keeps no stamp
/// of its own per slot.
#[derive(Clone, Debug)]
pub(crate) struct KeptIndex {
    pub key: IndexKey,
    pub blocks: crate::scheduler::sample_index::Blocks,
    /// Every slot whose node was stamped up to this clock is filed at its
    /// stamp, except the slots in `pending` and `lazy` (the journal names
    /// the nodes stamped since).
    pub synced: u64,
    /// Slots marked to refile (a slot may be named twice).
    pub pending: Vec<u32>,
    /// Slots a lend left to refile when a cycle first reaches their block
    /// (a bit per slot, a word per block): a batch whose samples will not
    /// go round the nodes refiles only the blocks they read. A block with
    /// a bit set is stale: no cycle reads it before it is refiled.
    pub lazy: Vec<crate::scheduler::sample_index::Mask>,
    /// Blocks with a bit set in `lazy`.
    pub lazy_blocks: u32,
    used: u64,
}

impl KeptIndex {
    pub fn new(key: IndexKey) -> Box<KeptIndex> {
        let n = key.slots;
        let mut blocks = crate::scheduler::sample_index::Blocks::default();
        blocks.reset(n);
        Box::new(KeptIndex {
            key,
            blocks,
            synced: 0,
            pending: Vec::new(),
            lazy: alloc::vec![0; n.div_ceil(crate::scheduler::sample_index::BLOCK)],
            lazy_blocks: 0,
            used: 0,
        })
    }

    /// Marks slot `i` to be filed again by the next batch that lends it.
    pub fn stale(&mut self, i: usize) {
        self.pending.push(i as u32);
    }
}

/// What kept sample indexes may take together (`SLOT_BYTES`, 34, a node
/// slot each; 170 KB at 5,000 nodes, so 123 of them there).
pub(crate) const MAX_INDEX_BYTES: usize = 20 << 20;
/// Sample indexes kept at least, however many nodes.
pub(crate) const MIN_INDEXES: usize = 8;

/// How many sample indexes of `slots` node slots are kept.
pub(crate) fn max_indexes(slots: usize) -> usize {
    (MAX_INDEX_BYTES / (crate::scheduler::sample_index::SLOT_BYTES * slots.max(1))).max(MIN_INDEXES)
}

/// A kept value, its key, and when it was last given back.
#[derive(Clone, Debug)]
struct Entry<K, V> {
    key: K,
    value: V,
    used: u64,
}

/// The caches of one cluster.
#[derive(Clone, Debug, Default)]
pub(crate) struct Caches {
    /// The profile the values were computed under.
    profile: Option<Profile>,
    statics: Vec<Entry<StaticKey, Slots<u8>>>,
    locals: Vec<Entry<LocalKey, Slots<i64>>>,
    clock: u64,
    /// Per node, whether it counts for spreading under a constraint's
    /// inclusion policies (nodeAffinityPolicy, nodeTaintsPolicy).
    inclusions: Vec<Entry<InclusionKey, Inclusion>>,
    /// Per node, NodeAffinity's raw score and which preferred terms it
    /// matches (a bit per term), by the template's preferred terms: many
    /// Deployments prefer the same nodes, and matching every node's labels
    /// for each of their batches was a large share of the Zipf mix
    /// (docs/speed-history.md).
    affinity_raw: Vec<Entry<Vec<PreferredSchedulingTerm>, Slots<i64>>>,
    affinity_mask: Vec<Entry<Vec<PreferredSchedulingTerm>, Slots<u32>>>,
    /// Spread constraints' eligible nodes and domains, by what they
    /// depend on (each valid at one node epoch).
    layouts: Vec<Entry<LayoutKey, DomainLayout>>,
    /// Sample indexes kept between batches, by what they depend on. Boxed:
    /// a batch takes one out and gives it back, and a box moves as one
    /// word where the index's record (its arrays' headers) is hundreds of
    /// bytes.
    #[allow(clippy::vec_box)]
    indexes: Vec<Box<KeptIndex>>,
    /// Views of a wider template's index (`sample_index::Masked`), by the
    /// static key and preferred terms of the template they serve, each
    /// with the node epoch it was built at (binds leave it).
    views: Vec<Entry<ViewKey, (u64, crate::scheduler::sample_index::Masked)>>,
    /// Per key without a kept index: the node visits its batches' scans
    /// were expected to cost since (see [`Caches::scan_work`]).
    work: Vec<(IndexKey, u64)>,
    /// The node slot each stamp after `journal_base` went to, in order:
    /// what changed since an index was last filed, without reading every
    /// node's stamp. At most [`JOURNAL_MAX`] entries (the oldest half is
    /// dropped; an index older than what is left reads every stamp).
    journal: Vec<u32>,
    journal_base: u64,
    /// The last batch's buffers, for the next (see [`crate::scheduler::Spare`]).
    spare: crate::scheduler::Spare,
    /// How many batches built an index of their own (tests read it).
    #[cfg(test)]
    pub own_indexes: u32,
    /// How many batches the heap path could serve took a kept index instead.
    #[cfg(test)]
    pub heap_indexes: u32,
    /// How many batches borrowed a wider template's index through a view.
    #[cfg(test)]
    pub masked_lends: u32,
}

/// What a view (`sample_index::Masked`) depends on besides the nodes: the
/// template's static filters and its preferred terms.
pub(crate) type ViewKey = (StaticKey, Vec<PreferredSchedulingTerm>);

/// The journal's bound: 256 KB.
const JOURNAL_MAX: usize = 1 << 16;

fn take<K: PartialEq, V: Default>(list: &mut [Entry<K, V>], key: &K) -> Option<V> {
    let at = list.iter().position(|e| &e.key == key)?;
    Some(core::mem::take(&mut list[at].value))
}

fn give<K: PartialEq, V>(list: &mut Vec<Entry<K, V>>, key: K, value: V, used: u64) {
    if let Some(e) = list.iter_mut().find(|e| e.key == key) {
        e.value = value;
        e.used = used;
        return;
    }
    if list.len() >= MAX_ENTRIES {
        if let Some(oldest) = (0..list.len()).min_by_key(|&i| list[i].used) {
            list.swap_remove(oldest);
        }
    }
    list.push(Entry { key, value, used });
}

impl Caches {
    /// Lends a batch its slots (empty ones for a new key). They go back with
    /// [`Caches::give_back`] when the batch ends.
    pub fn lend(
        &mut self,
        profile: &Profile,
        s: &StaticKey,
        l: &LocalKey,
    ) -> (Slots<u8>, Slots<i64>) {
        if self.profile.as_ref() != Some(profile) {
            self.statics.clear();
            self.locals.clear();
            self.indexes.clear();
            self.views.clear();
            self.work.clear();
            self.inclusions.clear();
            self.layouts.clear();
            self.affinity_raw.clear();
            self.affinity_mask.clear();
            self.profile = Some(profile.clone());
        }
        (
            self.lend_static(s),
            take(&mut self.locals, l).unwrap_or_default(),
        )
    }

    /// The inclusion verdicts kept for `key`,
    /// empty ones for a new key; they go back with [`Caches::keep_inclusion`].
    pub fn lend_inclusion(&mut self, key: &InclusionKey) -> Inclusion {
        take(&mut self.inclusions, key).unwrap_or_default()
    }

    pub fn keep_inclusion(&mut self, key: InclusionKey, slots: Inclusion) {
        self.clock += 1;
        give(&mut self.inclusions, key, slots, self.clock);
    }

    /// NodeAffinity's per-node raw scores and term masks kept for these
    /// preferred terms, empty ones for new terms; they go back with
    /// [`Caches::keep_affinity`]. Their values carry the nodes' spec stamps.
    pub fn lend_affinity(
        &mut self,
        key: &Vec<PreferredSchedulingTerm>,
    ) -> (Slots<i64>, Slots<u32>) {
        (
            take(&mut self.affinity_raw, key).unwrap_or_default(),
            take(&mut self.affinity_mask, key).unwrap_or_default(),
        )
    }

    pub fn keep_affinity(
        &mut self,
        key: Vec<PreferredSchedulingTerm>,
        raw: Slots<i64>,
        mask: Slots<u32>,
    ) {
        self.clock += 1;
        give(&mut self.affinity_raw, key.clone(), raw, self.clock);
        give(&mut self.affinity_mask, key, mask, self.clock);
    }

    /// The domain layout kept for `key` if it was counted at node epoch
    /// `epoch` (a node added moves it too); it goes back with
    /// [`Caches::keep_layout`].
    pub fn lend_layout(&mut self, key: &LayoutKey, epoch: u64) -> Option<DomainLayout> {
        take(&mut self.layouts, key).filter(|l| l.epoch == epoch)
    }

    pub fn keep_layout(&mut self, key: LayoutKey, layout: DomainLayout) {
        self.clock += 1;
        give(&mut self.layouts, key, layout, self.clock);
    }

    /// The view kept for `key` if it was built at node epoch `epoch`; back
    /// with [`Caches::keep_view`].
    pub fn lend_view(
        &mut self,
        key: &ViewKey,
        epoch: u64,
    ) -> Option<crate::scheduler::sample_index::Masked> {
        take(&mut self.views, key)
            .filter(|v| v.0 == epoch)
            .map(|v| v.1)
    }

    pub fn keep_view(
        &mut self,
        key: ViewKey,
        epoch: u64,
        view: crate::scheduler::sample_index::Masked,
    ) {
        self.clock += 1;
        give(&mut self.views, key, (epoch, view), self.clock);
    }

    /// For an index kept for `key`, about how many of its slots a lend
    /// would refile: those stamped since it was filed (a node stamped twice
    /// counts twice; every slot when the journal no longer reaches back)
    /// and those marked. `None` without one.
    pub fn stale_slots(&self, key: &IndexKey) -> Option<u64> {
        let ix = self.indexes.iter().find(|e| &e.key == key)?;
        let stamped = self
            .stamped_since(ix.synced)
            .map_or(key.slots, |log| log.len().min(key.slots));
        Some((stamped + ix.pending.len()).min(key.slots) as u64)
    }

    /// The static verdicts kept for `key` alone (a batch filing a wider
    /// template's index lends them beside its own); back with
    /// [`Caches::give_static`].
    pub fn lend_static(&mut self, key: &StaticKey) -> Slots<u8> {
        take(&mut self.statics, key).unwrap_or_default()
    }

    pub fn give_static(&mut self, key: StaticKey, slots: Slots<u8>) {
        self.clock += 1;
        give(&mut self.statics, key, slots, self.clock);
    }

    /// The kept index for `key`, taken out until [`Caches::keep_index`].
    pub fn take_index(&mut self, key: &IndexKey) -> Option<Box<KeptIndex>> {
        let at = self.indexes.iter().position(|e| &e.key == key)?;
        Some(self.indexes.swap_remove(at))
    }

    pub fn keep_index(&mut self, mut ix: Box<KeptIndex>) {
        self.clock += 1;
        ix.used = self.clock;
        if self.indexes.len() >= max_indexes(ix.key.slots) {
            if let Some(oldest) = (0..self.indexes.len()).min_by_key(|&i| self.indexes[i].used) {
                self.indexes.swap_remove(oldest);
            }
        }
        self.work.retain(|(k, _)| k != &ix.key);
        self.indexes.push(ix);
    }

    /// Notes that node slot `node` was given `stamp` (the cluster's clock
    /// moves by one per change, so the journal is indexed by stamp).
    pub fn stamped(&mut self, node: u32, stamp: u64) {
        if stamp != self.journal_base + self.journal.len() as u64 + 1 {
            // A clock that jumped (never expected): start again from here.
            self.journal.clear();
            self.journal_base = stamp - 1;
        } else if self.journal.len() >= JOURNAL_MAX {
            self.journal.drain(..JOURNAL_MAX / 2);
            self.journal_base += (JOURNAL_MAX / 2) as u64;
        }
        self.journal.push(node);
    }

    /// The node slots stamped after clock `since`, one entry per stamp (a
    /// slot can appear more than once); `None` when the journal no longer
    /// reaches back that far.
    pub fn stamped_since(&self, since: u64) -> Option<&[u32]> {
        let from = since.checked_sub(self.journal_base)?;
        self.journal.get(from as usize..)
    }

    /// Adds `visits` to what scans under `key` were expected to cost since
    /// its index was last built, and returns the sum: an index is built
    /// once that sum reaches what building costs (the ski-rental rule, never
    /// more than twice the cheaper of always and never building).
    pub fn scan_work(&mut self, key: &IndexKey, visits: u64) -> u64 {
        if let Some(e) = self.work.iter_mut().find(|(k, _)| k == key) {
            e.1 = e.1.saturating_add(visits);
            return e.1;
        }
        if self.work.len() >= MAX_ENTRIES * 4 {
            self.work.remove(0);
        }
        self.work.push((key.clone(), visits));
        visits
    }

    /// The buffers the last batch left, emptied (see [`crate::scheduler::Spare`]).
    pub fn take_spare(&mut self) -> crate::scheduler::Spare {
        core::mem::take(&mut self.spare).emptied()
    }

    /// Keeps a batch's buffers for the next one.
    pub fn keep_spare(&mut self, spare: crate::scheduler::Spare) {
        self.spare = spare;
    }

    pub fn give_back(&mut self, s: StaticKey, st: Slots<u8>, l: LocalKey, lo: Slots<i64>) {
        self.give_static(s, st);
        give(&mut self.locals, l, lo, self.clock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_only_at_the_stamp_it_was_computed_at() {
        let mut s: Slots<i64> = Slots::default();
        assert_eq!(s.get(3, 1), None);
        s.set(3, 7, 42);
        assert_eq!(s.get(3, 7), Some(42));
        assert_eq!(s.get(3, 8), None, "the node changed since");
        assert_eq!(
            s.get(2, 1),
            None,
            "an unset slot holds NEVER, no node's stamp"
        );
        assert_eq!(s.get(9, 7), None);
    }

    #[test]
    fn the_least_recently_used_key_goes_first() {
        let mut list: Vec<Entry<u32, Slots<u8>>> = Vec::new();
        for k in 0..MAX_ENTRIES as u32 {
            give(&mut list, k, Slots::default(), k as u64 + 10);
        }
        give(&mut list, 0, Slots::default(), 100);
        give(&mut list, 999, Slots::default(), 101);
        assert_eq!(list.len(), MAX_ENTRIES);
        assert!(list.iter().any(|e| e.key == 0), "0 was used lately");
        assert!(!list.iter().any(|e| e.key == 1), "1 was the oldest");
    }
}
