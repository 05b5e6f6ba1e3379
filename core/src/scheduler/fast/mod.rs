//! The fast paths: each chooses what the plain cycle (`Cluster::cycle`
//! with every path off) chooses, only sooner (the class cycle and the
//! index order random ties their own way: see [`FastPaths::classes`]).
//!
//! Each is taken by one selector from what the batch and the profile
//! declare, and each can be switched off ([`FastPaths`]); a batch no path
//! applies to runs the plain cycle, so a plugin that declares nothing is
//! correct at once and merely slow. `tests/fastpaths.rs` runs the plain
//! cycle alone against every path, one at a time and all together, on
//! randomized clusters and requires the same binds.
//!
//! | path | selector | the shape it needs |
//! |------|----------|--------------------|
//! | `pinned` ([`pinned`]) | `pinned_node` | one required term naming one node, no hard spread |
//! | `batch_caches` ([`caches`]) | always, when on | none: values keyed by what they read |
//! | `cross_batch` ([`cache`]) | always, when on | none: values stamped per node |
//! | `heap` ([`heap`]) | `heap_path` | every score node-local, every node scored, lowest-id ties |
//! | `classes` ([`classes`]) | `bound_classes` and `fast_cycle_applies`, at a batch's first cycle | the default plugins' scores, spread absent or the system defaults' shape, classes under `MAX_CLASSES` |
//! | `index` ([`index`], [`sample_index`]) | at a class cycle's first call, or `index_instead_of_heap` | the class shape, 256 nodes or more, no PreferNoSchedule taint under TaintToleration, and a refile that costs less than the scans it saves |
//!
//! The selectors read what the plugins declare in the registry
//! (`scheduler/plugins/mod.rs`): `heap_path` and the cached scorer
//! (`score_fast`) ask each score plugin's shape (`Cluster::score_shape`:
//! node-local, the same on every node, or varying), and
//! `fast_cycle_applies` its `classes` flag. A new score plugin that
//! declares `classes: false` and a `uniform` that answers `None` keeps
//! the class path, the index, the heap and the cached scorer off for
//! the profiles that run it: its batches run the plain cycle meanwhile.

use crate::scheduler::*;

pub(crate) mod cache;
mod caches;
mod classes;
mod heap;
mod index;
pub(crate) mod pinned;
pub(crate) mod sample_index;

/// Which fast paths the scheduler may take (all by default). Switching
/// one off never changes a decision, only the time it takes; the plain
/// cycle is [`FastPaths::NONE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FastPaths {
    /// A pod pinned to one node by name (NodeAffinity's PreFilter result,
    /// a DaemonSet's pods): its node's verdict alone, and the other nodes'
    /// FailedScheduling reasons counted once per generation
    /// (`scheduler/pinned.rs`). Off, the plain cycle filters that node
    /// through every filter.
    pub pinned: bool,
    /// Per-batch caches of the verdicts and scores that read only the node
    /// and the template (static filters, node-local scores, NodeAffinity's
    /// preferred terms), and the packed node record's shortcuts. Off, each
    /// cycle runs every filter and every score plugin on every node it
    /// visits.
    pub batch_caches: bool,
    /// Those caches kept from one batch to the next (`scheduler/cache.rs`),
    /// and the kept sample indexes. Off, every batch starts empty.
    pub cross_batch: bool,
    /// Batches whose scores all read their node alone, under a profile
    /// that scores every node with lowest-id ties: one scan into a heap,
    /// each bind re-scoring its own node.
    pub heap: bool,
    /// Nodes grouped into classes that score alike (`cycle_fast`): a
    /// cycle scores each class once. Under random ties it draws among the
    /// tied nodes in (class, visiting order) where the plain cycle draws in
    /// visiting order (kube-scheduler's selectHost): the same nodes tie,
    /// each as likely, but one seed's draw may take another of them. So
    /// it chooses what the plain cycle chooses under lowest-id ties, and
    /// under random ties a node the plain cycle ranks best.
    pub classes: bool,
    /// The sample index (`scheduler/sample_index.rs`): cycles that read
    /// blocks of node summaries instead of visiting nodes. Needs `classes`.
    pub index: bool,
}

impl FastPaths {
    /// Every fast path (the default).
    pub const ALL: FastPaths = FastPaths {
        pinned: true,
        batch_caches: true,
        cross_batch: true,
        heap: true,
        classes: true,
        index: true,
    };

    /// None: the plain cycle alone.
    pub const NONE: FastPaths = FastPaths {
        pinned: false,
        batch_caches: false,
        cross_batch: false,
        heap: false,
        classes: false,
        index: false,
    };

    /// The paths by name, for tests and tools that switch them one by one.
    pub const NAMES: [&'static str; 6] = [
        "pinned",
        "batch_caches",
        "cross_batch",
        "heap",
        "classes",
        "index",
    ];

    /// [`FastPaths::NONE`] with the path `name` on (`None` for an unknown name).
    pub fn only(name: &str) -> Option<FastPaths> {
        let mut f = FastPaths::NONE;
        *f.switch(name)? = true;
        Some(f)
    }

    /// The switch of the path `name`.
    pub fn switch(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "pinned" => &mut self.pinned,
            "batch_caches" => &mut self.batch_caches,
            "cross_batch" => &mut self.cross_batch,
            "heap" => &mut self.heap,
            "classes" => &mut self.classes,
            "index" => &mut self.index,
            _ => return None,
        })
    }
}

impl Default for FastPaths {
    fn default() -> Self {
        FastPaths::ALL
    }
}

impl Cluster {
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
    pub(in crate::scheduler) fn index_allowed(&self) -> bool {
        self.fast_paths.index && self.fast_paths.classes && self.index_use != IndexUse::Never
    }
}
