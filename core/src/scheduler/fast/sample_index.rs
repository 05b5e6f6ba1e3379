//! An index that lets a cycle answer over its sample without visiting it.
//!
//! kube-scheduler's sample is the first `numFeasibleNodesToFind` feasible
//! nodes from where the previous cycle stopped, in node order: a contiguous
//! range of node slots (wrapping once). Within one batch of identical pods a
//! node's feasibility, its spread class (its pods of the batch and its
//! domain) and its node-local score change only when one of the batch's own
//! pods binds to it.
//!
//! [`Blocks`] keeps, per slot, the class and the score of a feasible node,
//! and cuts the slots into blocks of [`BLOCK`]. Each block has a summary: its
//! feasible count and, per class present in it, the best score, how many
//! nodes share it and how many members the class has there; and per entry
//! two bit masks over the block's slots, its members and its ties. Groups
//! of [`GROUP`] blocks have the same summary over their slots. A cycle
//! reads the groups and blocks its sample covers whole from their
//! summaries, and the two blocks where it starts and ends through their
//! entries' masks; a bind updates one block entry and one group entry. At
//! 5,000 nodes and a sample of 500 that is one or two group summaries, a
//! few block summaries and two partial blocks a cycle, in a few flat arrays
//! (about 170 KB), where a tree per class cost O(classes x log nodes) and
//! 2 x nodes entries a class.
//!
//! A batch whose template narrows another's (its nodeSelector, required
//! node affinity or preferred terms aside, the same key) may read that
//! template's index through a [`Masked`] view: per block, the slots its
//! filters admit, split by the preferred terms each node matches. Its
//! sample is the first `k` feasible slots the view admits, and its classes
//! are the index's with the terms' bits appended, so it gathers, scores and
//! draws ties as over an index of its own; it reads blocks, not groups.

use alloc::vec::Vec;

/// A bit per slot of a block.
pub(crate) type Mask = u64;

/// Slots per block: a [`Mask`]'s bits.
pub(crate) const BLOCK: usize = Mask::BITS as usize;

/// A slot's score as the index holds it: a node-local score, at most the
/// sum of two weights (NodeResourcesFit's and BalancedAllocation's, each 1
/// to 100 as profile validation allows) times 100, so 16 bits hold it and
/// the arrays a cycle and a refile touch take half the cache lines 32 bits
/// did (the kept indexes of a convergence outgrow the L2 cache).
pub(crate) type Score = i16;

const _: () = assert!(2 * 100 * crate::scheduler::plugins::MAX_NODE_SCORE <= Score::MAX as i64);

/// `v` as a [`Score`] (node-local scores are far inside its range).
#[inline]
pub(crate) fn score_of(v: i64) -> Score {
    debug_assert!(
        Score::try_from(v).is_ok(),
        "a node-local score fits a Score"
    );
    v.clamp(Score::MIN as i64, Score::MAX as i64) as Score
}

/// The class of a slot whose node is not feasible.
pub(crate) const NONE: u32 = u32::MAX;

/// [`NONE`] as a slot holds it.
const NARROW_NONE: u16 = u16::MAX;

/// A slot's class as [`Blocks`] holds it, widened.
#[inline]
fn wide(c: u16) -> u32 {
    if c == NARROW_NONE {
        NONE
    } else {
        c as u32
    }
}

/// One class's best over a set of slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Best {
    pub class: u32,
    pub max: Score,
    /// Slots holding `max`.
    pub at_max: u32,
    /// Slots of the class.
    pub members: u32,
}

#[cfg(test)]
impl Best {
    pub const EMPTY: Best = Best {
        class: NONE,
        max: Score::MIN,
        at_max: 0,
        members: 0,
    };

    /// Adds `o` (of the same class) to `self`.
    #[inline]
    pub fn join(&mut self, o: &Best) {
        if o.max > self.max {
            self.max = o.max;
            self.at_max = o.at_max;
        } else if o.max == self.max {
            self.at_max += o.at_max;
        }
        self.members += o.members;
    }
}

/// A block's summary of one class, packed into 6 bytes so a block's
/// summaries take under half the cache lines a [`Best`] would: classes stay
/// under 2^16 (the scheduler bounds a batch's classes so) and a block has
/// at most [`BLOCK`] slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    max: Score,
    class: u16,
    /// Slots holding `max`.
    at_max: u8,
    /// Slots of the class.
    members: u8,
}

const _: () = assert!(BLOCK <= u8::MAX as usize);

impl Entry {
    const EMPTY: Entry = Entry {
        max: Score::MIN,
        class: u16::MAX,
        at_max: 0,
        members: 0,
    };

    /// One slot of `class` holding `max`.
    #[inline]
    fn one(class: u32, max: Score) -> Entry {
        debug_assert!(class <= u16::MAX as u32, "a class fits 16 bits");
        Entry {
            max,
            class: class as u16,
            at_max: 1,
            members: 1,
        }
    }

    /// Adds one slot holding `v` to this class's entry.
    #[inline]
    fn take_one(&mut self, v: Score) {
        // Without branches, as `Gathered::add`.
        let (gt, eq) = (v > self.max, v == self.max);
        self.at_max = core::hint::select_unpredictable(gt, 1, self.at_max + eq as u8);
        self.max = self.max.max(v);
        self.members += 1;
    }

    #[inline]
    fn class(&self) -> u32 {
        self.class as u32
    }
}

/// Blocks per group: a group's summary (its classes' bests over
/// `GROUP * BLOCK` slots) answers for four blocks a sample covers whole.
pub(crate) const GROUP: usize = 4;
const GROUP_SLOTS: usize = GROUP * BLOCK;

/// A group's summary of one class: as [`Entry`], with counts up to
/// `GROUP_SLOTS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GroupEntry {
    max: Score,
    class: u16,
    at_max: u16,
    members: u16,
}

const _: () = assert!(GROUP_SLOTS <= u16::MAX as usize);

impl GroupEntry {
    const EMPTY: GroupEntry = GroupEntry {
        max: Score::MIN,
        class: u16::MAX,
        at_max: 0,
        members: 0,
    };

    /// A block's entry as the first of its class in a group.
    #[inline]
    fn of(e: &Entry) -> GroupEntry {
        GroupEntry {
            max: e.max,
            class: e.class,
            at_max: e.at_max as u16,
            members: e.members as u16,
        }
    }

    /// Merges a block's entry of the same class.
    #[inline]
    fn join(&mut self, e: &Entry) {
        let (gt, eq) = (e.max > self.max, e.max == self.max);
        self.at_max = core::hint::select_unpredictable(gt, 0, self.at_max)
            + core::hint::select_unpredictable(gt | eq, e.at_max as u16, 0);
        self.max = self.max.max(e.max);
        self.members += e.members as u16;
    }

    #[inline]
    fn class(&self) -> u32 {
        self.class as u32
    }
}

/// A class's best score over some slots and how many hold it (`at_max` 0:
/// the class is absent), as [`Blocks::gather`] accumulates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Top {
    pub max: Score,
    pub at_max: u32,
}

impl Top {
    pub const ABSENT: Top = Top {
        max: Score::MIN,
        at_max: 0,
    };
}

/// Per class, its best over a sample as [`Blocks::sample_gather`] finds it:
/// a [`Top`] indexed by class and, when there are many classes, a bit per
/// class found (with few, reading every class's entry costs less than
/// setting a bit per entry gathered, which the same word serialises).
#[derive(Clone, Debug, Default)]
pub(crate) struct Gathered {
    top: Vec<Top>,
    seen: Vec<u64>,
    /// Whether `seen` is kept (more than `SCAN_CLASSES` classes).
    bits: bool,
}

/// Up to this many classes, [`Gathered::drain`] reads every class's entry.
const SCAN_CLASSES: usize = 256;

impl Gathered {
    /// Room for classes up to `top_class`.
    #[inline]
    fn fit(&mut self, top_class: u32) {
        let want = top_class as usize + 1;
        if self.top.len() < want {
            self.top.resize(want, Top::ABSENT);
            self.seen.resize(want.div_ceil(64), 0);
            self.bits = want > SCAN_CLASSES;
        }
    }

    /// Merges `at_max` slots of `class` holding `max`.
    #[inline(always)]
    fn add(&mut self, class: u32, max: Score, at_max: u32) {
        let c = class as usize;
        if self.bits {
            self.seen[c / 64] |= 1 << (c % 64);
        }
        // Without branches: whether a score beats, ties or trails the best
        // so far follows no pattern, and a mispredicted branch per slot cost
        // more than the few arithmetic instructions.
        let t = &mut self.top[c];
        let (gt, eq) = (max > t.max, max == t.max);
        let kept = core::hint::select_unpredictable(gt, 0, t.at_max);
        t.at_max = kept + core::hint::select_unpredictable(gt | eq, at_max, 0);
        t.max = t.max.max(max);
    }

    /// Appends each class found and its best to `present` and `best`
    /// (`members` 0: a sample's summary counts no members), in ascending
    /// order, and forgets them (ready for the next sample).
    #[inline]
    pub fn drain(&mut self, present: &mut Vec<u32>, best: &mut Vec<Best>) {
        if !self.bits {
            // Every class's entry is written and kept only when found: no
            // branch on which classes a sample holds.
            let (p0, b0, n) = (present.len(), best.len(), self.top.len());
            present.resize(p0 + n, 0);
            best.resize(
                b0 + n,
                Best {
                    class: NONE,
                    max: Score::MIN,
                    at_max: 0,
                    members: 0,
                },
            );
            let mut j = 0;
            for (c, t) in self.top.iter_mut().enumerate() {
                present[p0 + j] = c as u32;
                best[b0 + j] = Best {
                    class: c as u32,
                    max: t.max,
                    at_max: t.at_max,
                    members: 0,
                };
                j += (t.at_max > 0) as usize;
                *t = Top::ABSENT;
            }
            present.truncate(p0 + j);
            best.truncate(b0 + j);
            return;
        }
        for w in 0..self.seen.len() {
            let mut bits = self.seen[w];
            if bits == 0 {
                continue;
            }
            self.seen[w] = 0;
            while bits != 0 {
                let c = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let t = self.top[c];
                present.push(c as u32);
                best.push(Best {
                    class: c as u32,
                    max: t.max,
                    at_max: t.at_max,
                    members: 0,
                });
                self.top[c] = Top::ABSENT;
            }
        }
    }
}

/// `ties` (the slots of a class at its best, `max`) after a slot `bit` of
/// the class holding `v` joins it: `bit` alone when `v` beats the best,
/// added when it ties, unchanged when it trails (without branches, as
/// `Entry::take_one`).
#[inline(always)]
fn joined_ties(max: Score, ties: Mask, v: Score, bit: Mask) -> Mask {
    let (gt, eq) = (v > max, v == max);
    core::hint::select_unpredictable(gt, 0, ties)
        | core::hint::select_unpredictable(gt | eq, bit, 0)
}

/// A part of a block of at most this many slots per class in the block is
/// read slot by slot; a longer one through the entries' masks.
const PART_SCAN: usize = 4;

/// Bits `lo..hi` of a block's mask (`hi` at most [`BLOCK`]).
#[inline(always)]
fn span_mask(lo: usize, hi: usize) -> Mask {
    debug_assert!(lo <= hi && hi <= BLOCK);
    let upto = if hi == BLOCK {
        Mask::MAX
    } else {
        ((1 as Mask) << hi) - 1
    };
    upto & !(((1 as Mask) << lo) - 1)
}

/// The position of the `n`-th (from 0) set bit of `x`, which has more
/// than `n`: halvings, each keeping the half that holds it.
#[inline]
fn nth_set_bit(mut x: Mask, mut n: u32) -> u32 {
    debug_assert!(x.count_ones() > n);
    let mut pos = 0;
    let mut w = Mask::BITS / 2;
    while w > 0 {
        let low = (x & (((1 as Mask) << w) - 1)).count_ones();
        let up = n >= low;
        n -= if up { low } else { 0 };
        x = if up { x >> w } else { x };
        pos += if up { w } else { 0 };
        w /= 2;
    }
    pos
}

/// A view of an index through a template's node filters and preferred
/// terms, for a batch that borrows the index of a wider template (the same
/// requests and spread classes, without its nodeSelector, required node
/// affinity and preferred terms): per block, the slots whose node the
/// template admits, split by which of its preferred terms the node
/// matches (the pattern, `na` bits). The view's classes are the index's
/// with the pattern appended, `class << na | pattern`: the classes the
/// template's own index would hold, so a cycle through the view gathers,
/// scores and breaks ties as one over that index does.
#[derive(Clone, Debug, Default)]
pub(crate) struct Masked {
    pub na: u32,
    /// `1 << na` masks per block, one per pattern.
    masks: Vec<Mask>,
    /// Per block, the union of its patterns' masks.
    admitted: Vec<Mask>,
    count: u32,
    slots: usize,
}

impl Masked {
    /// A view over `n` slots admitting none, with `na` pattern bits.
    pub fn new(n: usize, na: u32) -> Masked {
        let blocks = n.div_ceil(BLOCK);
        Masked {
            na,
            masks: alloc::vec![0; blocks << na],
            admitted: alloc::vec![0; blocks],
            count: 0,
            slots: n,
        }
    }

    /// How many slots it admits.
    pub fn admitted_count(&self) -> u32 {
        self.count
    }

    /// The slots it covers (admitted or not).
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Admits slot `i` with pattern `p`.
    pub fn admit(&mut self, i: usize, p: u32) {
        let (b, bit) = (i / BLOCK, (1 as Mask) << (i % BLOCK));
        debug_assert!(self.admitted[b] & bit == 0, "a slot is admitted once");
        self.masks[(b << self.na) + p as usize] |= bit;
        self.admitted[b] |= bit;
        self.count += 1;
    }

    /// Whether the view admits slot `i`.
    pub fn admits(&self, i: usize) -> bool {
        self.admitted[i / BLOCK] & (1 << (i % BLOCK)) != 0
    }

    #[inline]
    fn admitted(&self, b: usize) -> Mask {
        self.admitted[b]
    }

    /// Per block, the slots it admits.
    pub fn admitted_masks(&self) -> &[Mask] {
        &self.admitted
    }

    #[inline]
    fn patterns(&self, b: usize) -> &[Mask] {
        &self.masks[b << self.na..(b + 1) << self.na]
    }
}

/// Where a sample that still needs `left` slots ends in the part `part` of
/// the block at slot `at`, whose admitted slots are `admitted`: when the
/// part holds that many, at the `left`-th of them (the part cut after it,
/// `left` 0, and the slot after it returned); else nowhere (`left` less
/// what the part holds).
#[inline(always)]
fn cut_part(admitted: Mask, part: &mut Mask, left: &mut u32, at: usize) -> Option<usize> {
    let found = admitted.count_ones();
    if found >= *left {
        let last = nth_set_bit(admitted, *left - 1);
        *part &= span_mask(0, last as usize + 1);
        *left = 0;
        Some(at + last as usize + 1)
    } else {
        *left -= found;
        None
    }
}

/// Feasible slots with their class and score, summarised by block.
#[derive(Clone, Debug, Default)]
pub(crate) struct Blocks {
    /// Each slot's class in 16 bits ([`NONE`] as `u16::MAX`, a value no
    /// class takes: the scheduler keeps a batch's classes below it), so
    /// the slot arrays of the kept indexes take half the cache they would.
    class: Vec<u16>,
    score: Vec<Score>,
    /// Feasible slots per block.
    feasible: Vec<u32>,
    total: u32,
    /// `BLOCK` entries per block, the first `len[block]` in use.
    entries: Vec<Entry>,
    /// Beside each entry, its ties: bit `t` is set when slot `t` of the
    /// block holds the class at its best score. A cycle's chosen node is
    /// then a set bit, not found by reading the block's slots.
    ties: Vec<Mask>,
    /// Beside each entry, its members: bit `t` is set when slot `t` of the
    /// block is of the class. A sample that covers part of a block reads
    /// these masks, not the slots.
    members: Vec<Mask>,
    len: Vec<u8>,
    /// The highest class any slot has held since the reset.
    top_class: u32,
    /// Per class, its entry's place in the block `summarise` is building
    /// (`u8::MAX`: none yet), back to `u8::MAX` after each block.
    entry_of: Vec<u8>,
    /// `GROUP_SLOTS` entries per group of `GROUP` blocks, the first
    /// `group_len[group]` in use: each class's best over the group, the
    /// join of its blocks' entries.
    group_entries: Vec<GroupEntry>,
    group_len: Vec<u16>,
    /// Feasible slots per group.
    group_feasible: Vec<u32>,
    /// As `entry_of`, for the group `group_rebuild` is building.
    group_of: Vec<u16>,
    /// Groups whose blocks were summarised since their own summary was
    /// built (a refile summarises a group's blocks one by one): rebuilt
    /// once, by [`Blocks::settle`], before a sample reads them.
    group_stale: Vec<bool>,
    stale_groups: Vec<u32>,
    /// Samples gathered lately, kept while their slots stay as they were
    /// (see [`Window`]): a batch's samples come round to the same starts,
    /// a round later, with one slot changed by its own bind.
    windows: Vec<Window>,
    /// Which of `windows` are kept, a bit each: none after slots change
    /// without `set` (a reset, a bulk load).
    live: u16,
    /// Where the next window is kept when none is free.
    next_window: usize,
    /// Per block, the windows whose samples cover any of its slots, a bit
    /// each (of the kept ones or not: read with `live`).
    window_blocks: Vec<u16>,
    /// `summarise_block`'s working record per class of a block.
    gather: Vec<Gather>,
}

/// One class of a block as `summarise_block` gathers it: its best score,
/// the slots holding it and the slots of the class.
#[derive(Clone, Copy, Debug, Default)]
struct Gather {
    max: Score,
    class: u32,
    ties: Mask,
    members: Mask,
}

/// How many gathered samples a [`Blocks`] keeps. At 5,000 nodes the
/// default sample (10%) goes round in ten cycles.
const WINDOWS: usize = 16;
const _: () = assert!(WINDOWS <= u16::BITS as usize);

/// A sample [`Blocks::sample_gather`] gathered without a filter and did not
/// wrap: its start, its end, how many feasible slots it had to take, and
/// each class's best in it (in class order). Kept true through `set`: a
/// slot inside that changes class or score updates it when that is one
/// step (the best leaves only while others hold it, or the value does not
/// beat it), and drops it otherwise, as when the slot's feasibility
/// changes (the sample would end elsewhere).
#[derive(Clone, Debug, Default)]
struct Window {
    start: u32,
    end: u32,
    k: u32,
    best: Vec<Best>,
}

impl Window {
    /// Takes a slot of `class` holding `v` out of the bests: false when
    /// that cannot be done without reading the slots again (it held its
    /// class's only best).
    fn leave(&mut self, class: u32, v: Score) -> bool {
        let Ok(j) = self.best.binary_search_by_key(&class, |b| b.class) else {
            return false;
        };
        let b = &mut self.best[j];
        if v < b.max {
            true
        } else if v == b.max && b.at_max > 1 {
            b.at_max -= 1;
            true
        } else {
            false
        }
    }

    /// Puts a slot of `class` holding `v` into the bests.
    fn join(&mut self, class: u32, v: Score) {
        match self.best.binary_search_by_key(&class, |b| b.class) {
            Ok(j) => {
                let b = &mut self.best[j];
                if v > b.max {
                    b.max = v;
                    b.at_max = 1;
                } else if v == b.max {
                    b.at_max += 1;
                }
            }
            Err(j) => self.best.insert(
                j,
                Best {
                    class,
                    max: v,
                    at_max: 1,
                    members: 0,
                },
            ),
        }
    }
}

/// What a [`Blocks`] takes per node slot: its class and score, a block
/// entry with its ties and members masks, and a group entry.
pub(crate) const SLOT_BYTES: usize = core::mem::size_of::<u16>()
    + core::mem::size_of::<Score>()
    + core::mem::size_of::<Entry>()
    + 2 * core::mem::size_of::<Mask>()
    + core::mem::size_of::<GroupEntry>();

impl Blocks {
    /// An empty index over `n` slots (no node feasible), in `self`'s memory.
    pub fn reset(&mut self, n: usize) {
        let blocks = n.div_ceil(BLOCK);
        self.class.clear();
        self.class.resize(n, NARROW_NONE);
        self.score.clear();
        self.score.resize(n, 0);
        self.feasible.clear();
        self.feasible.resize(blocks, 0);
        self.total = 0;
        self.entries.clear();
        self.entries.resize(blocks * BLOCK, Entry::EMPTY);
        self.ties.clear();
        self.ties.resize(blocks * BLOCK, 0);
        self.members.clear();
        self.members.resize(blocks * BLOCK, 0);
        self.len.clear();
        self.len.resize(blocks, 0);
        self.top_class = 0;
        let groups = blocks.div_ceil(GROUP);
        self.group_entries.clear();
        self.group_entries
            .resize(groups * GROUP_SLOTS, GroupEntry::EMPTY);
        self.group_len.clear();
        self.group_len.resize(groups, 0);
        self.group_feasible.clear();
        self.group_feasible.resize(groups, 0);
        self.group_stale.clear();
        self.group_stale.resize(groups, false);
        self.stale_groups.clear();
        self.live = 0;
        self.window_blocks.clear();
        self.window_blocks.resize(blocks, 0);
        for w in &mut self.windows {
            (w.start, w.end) = (0, 0);
        }
    }

    /// Feasible slots in all.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// The slot's class and score (`NONE` when its node is not feasible).
    #[cfg(debug_assertions)]
    pub fn get(&self, i: usize) -> (u32, Score) {
        (wide(self.class[i]), self.score[i])
    }

    /// The slot's class, `NONE` when its node is not feasible.
    #[inline]
    pub fn class(&self, i: usize) -> u32 {
        wide(self.class[i])
    }

    /// Sets a slot without summarising its block: for bulk loads, which end
    /// with [`Blocks::summarise_all`].
    #[inline]
    pub fn load(&mut self, i: usize, class: u32, score: Score) {
        self.live = 0;
        self.put(i, class, score);
    }

    #[inline]
    fn put(&mut self, i: usize, class: u32, score: Score) {
        if class != NONE {
            self.top_class = self.top_class.max(class);
        }
        debug_assert!(
            class == NONE || class < NARROW_NONE as u32,
            "a class fits 16 bits"
        );
        self.class[i] = class as u16;
        self.score[i] = score;
    }

    pub fn summarise_all(&mut self) {
        for b in 0..self.len.len() {
            self.summarise_block(b);
        }
        for g in 0..self.group_len.len() {
            self.group_rebuild(g);
            self.group_stale[g] = false;
        }
        self.stale_groups.clear();
    }

    /// Sets a slot (`NONE`: not feasible) and keeps its block's summary
    /// true: the old value leaves its class's entry (which is rebuilt from
    /// the block's slots only when it held the class's only best score),
    /// the new one joins its class's entry.
    pub fn set(&mut self, i: usize, class: u32, score: Score) {
        let (old_c, old_s) = (wide(self.class[i]), self.score[i]);
        // A slot refiled to what it held (a bind elsewhere moved the
        // node's stamp, not its integer score): every summary and kept
        // sample is already true.
        if old_c == class && old_s == score {
            return;
        }
        let b = i / BLOCK;
        let bit = (1 as Mask) << (i % BLOCK);
        self.class[i] = NARROW_NONE;
        let at = b * BLOCK;
        if old_c != NONE {
            let len = self.len[b] as usize;
            let j = (0..len)
                .find(|&j| self.entries[at + j].class() == old_c)
                .expect("a feasible slot's class has an entry in its block");
            let e = &mut self.entries[at + j];
            e.members -= 1;
            self.members[at + j] &= !bit;
            if e.members == 0 {
                self.entries[at + j] = self.entries[at + len - 1];
                self.entries[at + len - 1] = Entry::EMPTY;
                self.ties[at + j] = self.ties[at + len - 1];
                self.ties[at + len - 1] = 0;
                self.members[at + j] = self.members[at + len - 1];
                self.members[at + len - 1] = 0;
                self.len[b] -= 1;
            } else if e.max == old_s {
                e.at_max -= 1;
                self.ties[at + j] &= !bit;
                if e.at_max == 0 {
                    self.rebest(b, j);
                }
            }
            self.feasible[b] -= 1;
            self.total -= 1;
            if !self.group_stale[b / GROUP] {
                self.group_leave(b / GROUP, old_c, old_s);
            }
        }
        self.put(i, class, score);
        self.keep_windows(i, (old_c, old_s), (class, score));
        if class != NONE {
            let len = self.len[b] as usize;
            match (0..len).find(|&j| self.entries[at + j].class() == class) {
                Some(j) => {
                    self.ties[at + j] =
                        joined_ties(self.entries[at + j].max, self.ties[at + j], score, bit);
                    self.entries[at + j].take_one(score);
                    self.members[at + j] |= bit;
                }
                None => {
                    self.entries[at + len] = Entry::one(class, score);
                    self.ties[at + len] = bit;
                    self.members[at + len] = bit;
                    self.len[b] += 1;
                }
            }
            self.feasible[b] += 1;
            self.total += 1;
            if !self.group_stale[b / GROUP] {
                self.group_join(b / GROUP, class, score);
            }
        }
    }

    /// Keeps the windows that hold slot `i` true after it went from `old`
    /// to `new` (class, score), or drops them.
    #[inline]
    fn keep_windows(&mut self, i: usize, old: (u32, Score), new: (u32, Score)) {
        let mut left = self.live & self.window_blocks[i / BLOCK];
        let i = i as u32;
        while left != 0 {
            let j = left.trailing_zeros() as usize;
            left &= left - 1;
            let w = &mut self.windows[j];
            if i < w.start || i >= w.end {
                continue;
            }
            let kept = old.0 != NONE && new.0 != NONE && w.leave(old.0, old.1);
            if kept {
                w.join(new.0, new.1);
            } else {
                self.live &= !(1 << j);
            }
        }
    }

    /// The sample from `start` taking `k` feasible slots, when it was
    /// gathered since and its slots are as they were: its end and each
    /// class's best. Only while more than `k` slots are feasible (else a
    /// sample takes them all).
    pub fn cached_sample(&self, start: usize, k: u32) -> Option<(usize, &[Best])> {
        if self.total <= k {
            return None;
        }
        let mut left = self.live;
        while left != 0 {
            let w = &self.windows[left.trailing_zeros() as usize];
            left &= left - 1;
            if w.start as usize == start && w.k == k {
                return Some((w.end as usize, &w.best[..]));
            }
        }
        None
    }

    /// Keeps the sample `start..end` that took `k` feasible slots and whose
    /// classes' bests are `best` (in class order, as `Gathered::drain`
    /// gives them), for [`Blocks::cached_sample`].
    pub fn keep_sample(&mut self, start: usize, end: usize, k: u32, best: &[Best]) {
        debug_assert!(best.windows(2).all(|p| p[0].class < p[1].class));
        if self.windows.len() < WINDOWS {
            self.windows.resize(WINDOWS, Window::default());
        }
        // A free place, else the next in turn.
        let at = match (!self.live).trailing_zeros() as usize {
            at if at < WINDOWS => at,
            _ => {
                self.next_window = (self.next_window + 1) % WINDOWS;
                self.next_window
            }
        };
        self.live |= 1 << at;
        let w = &mut self.windows[at];
        let bit = 1u16 << at;
        for b in &mut self.window_blocks[Self::blocks_of(w.start as usize, w.end as usize)] {
            *b &= !bit;
        }
        for b in &mut self.window_blocks[Self::blocks_of(start, end)] {
            *b |= bit;
        }
        w.start = start as u32;
        w.end = end as u32;
        w.k = k;
        w.best.clear();
        w.best.extend_from_slice(best);
    }

    /// The blocks holding slots `start..end`.
    fn blocks_of(start: usize, end: usize) -> core::ops::Range<usize> {
        if start < end {
            start / BLOCK..(end - 1) / BLOCK + 1
        } else {
            0..0
        }
    }

    /// The best score of entry `j` of block `b` and how many slots hold it,
    /// from the block's slots.
    fn rebest(&mut self, b: usize, j: usize) {
        let a = b * BLOCK;
        let (max, ties) = self.best_of(a, self.members[a + j]);
        let at_max = ties.count_ones() as u8;
        let e = &mut self.entries[b * BLOCK + j];
        e.max = max;
        e.at_max = at_max;
        self.ties[b * BLOCK + j] = ties;
    }

    /// Rebuilds block `b`'s summary from its slots (after [`Blocks::load`]);
    /// its group's waits for [`Blocks::settle`].
    pub fn summarise(&mut self, b: usize) {
        self.summarise_block(b);
        let g = b / GROUP;
        if !self.group_stale[g] {
            self.group_stale[g] = true;
            self.stale_groups.push(g as u32);
        }
    }

    /// Rebuilds the summaries of the groups whose blocks were summarised
    /// since: before a sample reads the groups.
    pub fn settle(&mut self) {
        while let Some(g) = self.stale_groups.pop() {
            self.group_rebuild(g as usize);
            self.group_stale[g as usize] = false;
        }
    }

    /// Rebuilds group `g`'s summary from its blocks' entries.
    fn group_rebuild(&mut self, g: usize) {
        let classes = self.top_class as usize + 1;
        if self.group_of.len() < classes {
            self.group_of.resize(classes, u16::MAX);
        }
        let blocks = g * GROUP..((g + 1) * GROUP).min(self.len.len());
        let ge = &mut self.group_entries[g * GROUP_SLOTS..(g + 1) * GROUP_SLOTS];
        let mut len = 0usize;
        let mut feasible = 0;
        for b in blocks {
            feasible += self.feasible[b];
            for e in &self.entries[b * BLOCK..b * BLOCK + self.len[b] as usize] {
                let j = self.group_of[e.class() as usize];
                if j == u16::MAX {
                    self.group_of[e.class() as usize] = len as u16;
                    ge[len] = GroupEntry::of(e);
                    len += 1;
                } else {
                    ge[j as usize].join(e);
                }
            }
        }
        for x in &ge[..len] {
            self.group_of[x.class() as usize] = u16::MAX;
        }
        self.group_len[g] = len as u16;
        self.group_feasible[g] = feasible;
    }

    /// Group `g`'s entry `j` after its best slot left: its best and tie
    /// count again from the group's blocks' entries of the class.
    fn group_rebest(&mut self, g: usize, j: usize) {
        let c = self.group_entries[g * GROUP_SLOTS + j].class();
        let mut best = GroupEntry::EMPTY;
        for b in g * GROUP..((g + 1) * GROUP).min(self.len.len()) {
            let es = &self.entries[b * BLOCK..b * BLOCK + self.len[b] as usize];
            if let Some(e) = es.iter().find(|e| e.class() == c) {
                best.join(e);
            }
        }
        let e = &mut self.group_entries[g * GROUP_SLOTS + j];
        e.max = best.max;
        e.at_max = best.at_max;
    }

    /// Takes a slot of class `old` holding `old_s` out of group `g`'s
    /// summary, its block's entries already without it (a group entry's
    /// best is found again from them).
    fn group_leave(&mut self, g: usize, old: u32, old_s: Score) {
        let at = g * GROUP_SLOTS;
        let len = self.group_len[g] as usize;
        let j = (0..len)
            .find(|&j| self.group_entries[at + j].class() == old)
            .expect("a feasible slot's class has an entry in its group");
        let e = &mut self.group_entries[at + j];
        e.members -= 1;
        if e.members == 0 {
            self.group_entries[at + j] = self.group_entries[at + len - 1];
            self.group_entries[at + len - 1] = GroupEntry::EMPTY;
            self.group_len[g] -= 1;
        } else if e.max == old_s {
            e.at_max -= 1;
            if e.at_max == 0 {
                self.group_rebest(g, j);
            }
        }
        self.group_feasible[g] -= 1;
    }

    /// Adds a slot of `class` holding `score` to group `g`'s summary.
    fn group_join(&mut self, g: usize, class: u32, score: Score) {
        let at = g * GROUP_SLOTS;
        let len = self.group_len[g] as usize;
        let one = Entry::one(class, score);
        match (0..len).find(|&j| self.group_entries[at + j].class() == class) {
            Some(j) => self.group_entries[at + j].join(&one),
            None => {
                self.group_entries[at + len] = GroupEntry::of(&one);
                self.group_len[g] += 1;
            }
        }
        self.group_feasible[g] += 1;
    }

    /// The feasible slots of group `g` whose class `allow` admits (all of
    /// them when `F` is false).
    #[inline]
    fn group_admitted<const F: bool>(&self, g: usize, allow: &impl Fn(u32) -> bool) -> u32 {
        if !F {
            return self.group_feasible[g];
        }
        self.group_entries[g * GROUP_SLOTS..g * GROUP_SLOTS + self.group_len[g] as usize]
            .iter()
            .filter(|e| allow(e.class()))
            .map(|e| e.members as u32)
            .sum()
    }

    /// Rebuilds block `b`'s summary from its slots, not its group's.
    fn summarise_block(&mut self, b: usize) {
        let (a, z) = (b * BLOCK, ((b + 1) * BLOCK).min(self.class.len()));
        // A class finds its entry through `entry_of`, not by searching the
        // block's entries (a search whose length follows no pattern).
        let classes = self.top_class as usize + 1;
        if self.entry_of.len() < classes {
            self.entry_of.resize(classes, u8::MAX);
        }
        if self.gather.len() < BLOCK {
            self.gather.resize(BLOCK, Gather::default());
        }
        let at = &mut self.entry_of;
        // Each class's best, ties and members, gathered in one record (the
        // counts are the masks' afterwards); an entry's place is below
        // BLOCK, so it needs no bounds check.
        let acc: &mut [Gather; BLOCK] = (&mut self.gather[..BLOCK]).try_into().unwrap();
        let mut len = 0usize;
        for (t, (&c, &v)) in self.class[a..z].iter().zip(&self.score[a..z]).enumerate() {
            if c == NARROW_NONE {
                continue;
            }
            let c = c as u32;
            let bit = (1 as Mask) << t;
            let j = at[c as usize] as usize;
            if j == u8::MAX as usize {
                at[c as usize] = len as u8;
                acc[len % BLOCK] = Gather {
                    max: v,
                    class: c,
                    ties: bit,
                    members: bit,
                };
                len += 1;
            } else {
                let g = &mut acc[j % BLOCK];
                g.ties = joined_ties(g.max, g.ties, v, bit);
                g.max = g.max.max(v);
                g.members |= bit;
            }
        }
        let mut count = 0;
        for (j, g) in acc[..len].iter().enumerate() {
            debug_assert!(g.class <= u16::MAX as u32, "a class fits 16 bits");
            at[g.class as usize] = u8::MAX;
            let members = g.members.count_ones();
            count += members;
            self.entries[a + j] = Entry {
                max: g.max,
                class: g.class as u16,
                at_max: g.ties.count_ones() as u8,
                members: members as u8,
            };
            self.ties[a + j] = g.ties;
            self.members[a + j] = g.members;
        }
        self.len[b] = len as u8;
        self.total = self.total - self.feasible[b] + count;
        self.feasible[b] = count;
    }

    /// The feasible slots of block `b` whose class `allow` admits (all of
    /// them when `F` is false: no filter).
    #[inline]
    fn admitted<const F: bool>(&self, b: usize, allow: &impl Fn(u32) -> bool) -> u32 {
        if !F {
            return self.feasible[b];
        }
        self.entries[b * BLOCK..b * BLOCK + self.len[b] as usize]
            .iter()
            .filter(|e| allow(e.class()))
            .map(|e| e.members as u32)
            .sum()
    }

    /// The feasible slots of block `b` whose class `allow` admits (all of
    /// them when `filtered` is false).
    pub fn admitted_in(&self, b: usize, filtered: bool, allow: &impl Fn(u32) -> bool) -> u32 {
        if filtered {
            self.admitted::<true>(b, allow)
        } else {
            self.admitted::<false>(b, allow)
        }
    }

    /// The feasible slots whose class `allow` admits.
    pub fn total_where(&self, allow: &impl Fn(u32) -> bool) -> u32 {
        (0..self.len.len())
            .map(|b| self.admitted::<true>(b, allow))
            .sum()
    }

    /// Calls `f` with per-class bests that together cover the feasible slots
    /// of `ranges`: a block's summary where a range covers the block, one
    /// slot at a time elsewhere.
    #[cfg(test)]
    pub fn fold(&self, ranges: &[(usize, usize)], f: impl FnMut(&Best)) {
        self.fold_in::<false>(ranges, &|_| true, f)
    }

    /// `fold` over the classes `allow` admits.
    #[inline]
    #[cfg(test)]
    pub fn fold_where(
        &self,
        ranges: &[(usize, usize)],
        allow: &impl Fn(u32) -> bool,
        f: impl FnMut(&Best),
    ) {
        self.fold_in::<true>(ranges, allow, f)
    }

    #[inline]
    #[cfg(test)]
    fn fold_in<const F: bool>(
        &self,
        ranges: &[(usize, usize)],
        allow: &impl Fn(u32) -> bool,
        mut f: impl FnMut(&Best),
    ) {
        self.walk::<F>(ranges, allow, |class, max, at_max, members| {
            f(&Best {
                class,
                max,
                at_max,
                members,
            })
        })
    }

    /// Calls `f(class, best score, slots holding it, members)` for per-class
    /// bests that together cover the feasible slots of `ranges` that `allow`
    /// admits (all when `F` is false): a block's summary where a range
    /// covers the block, one slot at a time elsewhere.
    #[inline]
    #[cfg(test)]
    fn walk<const F: bool>(
        &self,
        ranges: &[(usize, usize)],
        allow: &impl Fn(u32) -> bool,
        mut f: impl FnMut(u32, Score, u32, u32),
    ) {
        for &(a, z) in ranges {
            let mut i = a;
            while i < z {
                let b = i / BLOCK;
                let block_end = ((b + 1) * BLOCK).min(self.class.len());
                if i == b * BLOCK && block_end <= z {
                    for e in &self.entries[b * BLOCK..b * BLOCK + self.len[b] as usize] {
                        if !F || allow(e.class()) {
                            f(e.class(), e.max, e.at_max as u32, e.members as u32);
                        }
                    }
                    i = block_end;
                    continue;
                }
                let stop = block_end.min(z);
                let (cs, vs) = (&self.class[i..stop], &self.score[i..stop]);
                for (&c, &v) in cs.iter().zip(vs) {
                    let c = wide(c);
                    if c != NONE && (!F || allow(c)) {
                        f(c, v, 1, 1);
                    }
                }
                i = stop;
            }
        }
    }

    /// The sample (the first `k` feasible slots from `start`, wrapping once)
    /// and, per class in it, the best score and how many slots hold it, in
    /// one walk. `F` false: no filter, `total` is `self.total()`; else only
    /// the classes `allow` admits count (a filter that passes or fails
    /// whole classes), `total` is `total_where`'s. Each class's best is
    /// merged into `acc`, which the caller drains (`Gathered::drain`).
    /// Returns the ranges the sample spans (the second may be empty) and
    /// how many slots it visits: up to the `k`-th feasible slot, as the scans
    /// stop there (exactly `k` feasible included), or all of them when fewer
    /// than `k` are feasible (processedNodes then counts every node).
    pub fn sample_gather<const F: bool>(
        &self,
        start: usize,
        k: u32,
        total: u32,
        allow: &impl Fn(u32) -> bool,
        acc: &mut Gathered,
    ) -> ([(usize, usize); 2], usize) {
        debug_assert!(k > 0, "a sample takes at least one node");
        debug_assert!(self.stale_groups.is_empty(), "groups settled");
        let n = self.class.len();
        acc.fit(self.top_class);
        if total < k {
            let mut all = u32::MAX;
            self.take::<F>(start, n, &mut all, allow, acc);
            self.take::<F>(0, start, &mut all, allow, acc);
            return ([(start, n), (0, start)], n);
        }
        let mut need = k;
        if let Some(end) = self.take::<F>(start, n, &mut need, allow, acc) {
            return ([(start, end), (0, 0)], end - start);
        }
        let end = self
            .take::<F>(0, start, &mut need, allow, acc)
            .expect("k feasible slots or more hold k from any start");
        ([(start, n), (0, end)], n - start + end)
    }

    /// Walks `a..z` to the slot after the `need`-th feasible one, gathering
    /// what it passes into `acc`; `None` (with `need` reduced by the range's
    /// feasible slots) when the range has fewer.
    #[inline]
    fn take<const F: bool>(
        &self,
        a: usize,
        z: usize,
        need: &mut u32,
        allow: &impl Fn(u32) -> bool,
        acc: &mut Gathered,
    ) -> Option<usize> {
        // `need` is counted in a register and written back once.
        let mut left = *need;
        let mut i = a;
        while i < z {
            // A group the range covers and the sample passes whole: its
            // summary.
            let g_at = i / GROUP_SLOTS * GROUP_SLOTS;
            let g_end = (g_at + GROUP_SLOTS).min(self.class.len());
            if i == g_at && g_end <= z {
                let g = i / GROUP_SLOTS;
                let here = self.group_admitted::<F>(g, allow);
                if here < left {
                    left -= here;
                    let at = g * GROUP_SLOTS;
                    for e in &self.group_entries[at..at + self.group_len[g] as usize] {
                        if !F || allow(e.class()) {
                            acc.add(e.class(), e.max, e.at_max as u32);
                        }
                    }
                    i = g_end;
                    continue;
                }
            }
            let b = i / BLOCK;
            let at = b * BLOCK;
            let block_end = (at + BLOCK).min(self.class.len());
            let stop = block_end.min(z);
            if i == at && stop == block_end {
                let here = self.admitted::<F>(b, allow);
                if here < left {
                    left -= here;
                    for e in &self.entries[at..at + self.len[b] as usize] {
                        if !F || allow(e.class()) {
                            acc.add(e.class(), e.max, e.at_max as u32);
                        }
                    }
                    i = block_end;
                    continue;
                }
            }
            let len = self.len[b] as usize;
            if stop - i <= PART_SCAN * len {
                // A short part, or many classes: slot by slot.
                let (cs, vs) = (&self.class[i..stop], &self.score[i..stop]);
                for (s, (&c, &v)) in cs.iter().zip(vs).enumerate() {
                    let c = wide(c);
                    if c != NONE && (!F || allow(c)) {
                        acc.add(c, v, 1);
                        left -= 1;
                        if left == 0 {
                            *need = 0;
                            return Some(i + s + 1);
                        }
                    }
                }
                i = stop;
                continue;
            }
            // Part of the block: its entries' masks cut to the part, and
            // the slots read only for a class whose best in the block lies
            // outside it.
            let (entries, ties, members) = (
                &self.entries[at..at + len],
                &self.ties[at..at + len],
                &self.members[at..at + len],
            );
            let (mut admitted, mut open) = (0 as Mask, 0 as Mask);
            for (j, (e, &m)) in entries.iter().zip(members).enumerate() {
                if !F || allow(e.class()) {
                    admitted |= m;
                    open |= 1 << j;
                }
            }
            let mut part = span_mask(i - at, stop - at);
            let end = cut_part(admitted & part, &mut part, &mut left, at);
            while open != 0 {
                let j = open.trailing_zeros() as usize;
                open &= open - 1;
                let m = members[j] & part;
                if m == 0 {
                    continue;
                }
                let e = &entries[j];
                let t = ties[j] & part;
                if t != 0 {
                    acc.add(e.class(), e.max, t.count_ones());
                } else {
                    let (max, t) = self.best_of(at, m);
                    acc.add(e.class(), max, t.count_ones());
                }
            }
            if end.is_some() {
                *need = 0;
                return end;
            }
            i = stop;
        }
        *need = left;
        None
    }

    /// The slots of block `b` that hold a feasible node (any class).
    #[inline]
    fn feasible_mask(&self, b: usize) -> Mask {
        let at = b * BLOCK;
        self.members[at..at + self.len[b] as usize]
            .iter()
            .fold(0, |m, &x| m | x)
    }

    /// The feasible slots of block `b` among `admitted` (a view's mask).
    pub fn feasible_in(&self, b: usize, admitted: Mask) -> u32 {
        (self.feasible_mask(b) & admitted).count_ones()
    }

    /// The feasible slots a [`Masked`] view admits.
    pub fn masked_total(&self, view: &Masked) -> u32 {
        (0..self.len.len())
            .map(|b| self.feasible_in(b, view.admitted(b)))
            .sum()
    }

    /// [`Blocks::sample_gather`] through a [`Masked`] view: the sample is
    /// the first `k` feasible slots the view admits from `start` (wrapping
    /// once), and each entry's slots are split by the view's patterns into
    /// the classes `class << na | pattern`. `total` is `masked_total`'s.
    pub fn sample_gather_masked(
        &self,
        start: usize,
        k: u32,
        total: u32,
        view: &Masked,
        acc: &mut Gathered,
    ) -> ([(usize, usize); 2], usize) {
        debug_assert!(k > 0, "a sample takes at least one node");
        let n = self.class.len();
        acc.fit(((self.top_class + 1) << view.na) - 1);
        if total < k {
            let mut all = u32::MAX;
            self.take_masked(start, n, &mut all, view, acc);
            self.take_masked(0, start, &mut all, view, acc);
            return ([(start, n), (0, start)], n);
        }
        let mut need = k;
        if let Some(end) = self.take_masked(start, n, &mut need, view, acc) {
            return ([(start, end), (0, 0)], end - start);
        }
        let end = self
            .take_masked(0, start, &mut need, view, acc)
            .expect("k admitted slots or more hold k from any start");
        ([(start, n), (0, end)], n - start + end)
    }

    /// [`Blocks::take`] through a view: block by block (a group's summary
    /// does not tell the view's slots apart), each entry's members cut to
    /// the part and to each pattern's slots, its ties read where they fall
    /// in the cut and the slots otherwise.
    fn take_masked(
        &self,
        a: usize,
        z: usize,
        need: &mut u32,
        view: &Masked,
        acc: &mut Gathered,
    ) -> Option<usize> {
        let mut left = *need;
        let mut i = a;
        while i < z {
            let b = i / BLOCK;
            let at = b * BLOCK;
            let block_end = (at + BLOCK).min(self.class.len());
            let stop = block_end.min(z);
            let len = self.len[b] as usize;
            let mut part = span_mask(i - at, stop - at) & view.admitted(b);
            let admitted = self.feasible_mask(b) & part;
            let end = cut_part(admitted, &mut part, &mut left, at);
            if part != 0 {
                let pats = view.patterns(b);
                for j in 0..len {
                    let m = self.members[at + j] & part;
                    if m == 0 {
                        continue;
                    }
                    let e = &self.entries[at + j];
                    for (p, &pm) in pats.iter().enumerate() {
                        let m = m & pm;
                        if m == 0 {
                            continue;
                        }
                        let class = e.class() << view.na | p as u32;
                        let t = self.ties[at + j] & m;
                        if t != 0 {
                            acc.add(class, e.max, t.count_ones());
                        } else {
                            let (max, t) = self.best_of(at, m);
                            acc.add(class, max, t.count_ones());
                        }
                    }
                }
            }
            if end.is_some() {
                *need = 0;
                return end;
            }
            i = stop;
        }
        *need = left;
        None
    }

    /// [`Blocks::nth_at`] through a view: the `r`-th slot (in `ranges`'
    /// order) of the view's class `class` (`class << na | pattern`)
    /// holding `score`.
    pub fn nth_at_masked(
        &self,
        ranges: &[(usize, usize)],
        class: u32,
        score: Score,
        mut r: u32,
        view: &Masked,
    ) -> Option<usize> {
        let (own, p) = (class >> view.na, (class & ((1 << view.na) - 1)) as usize);
        for &(a, z) in ranges {
            let mut i = a;
            while i < z {
                let b = i / BLOCK;
                let at = b * BLOCK;
                let stop = ((b + 1) * BLOCK).min(self.class.len()).min(z);
                let span = span_mask(i - at, stop - at);
                i = stop;
                let Some(j) = self.entries[at..at + self.len[b] as usize]
                    .iter()
                    .position(|e| e.class() == own)
                else {
                    continue;
                };
                let max = self.entries[at + j].max;
                if max < score {
                    continue;
                }
                let m = self.members[at + j] & span & view.patterns(b)[p];
                let tied = if max == score {
                    self.ties[at + j] & m
                } else {
                    let mut t = 0 as Mask;
                    let mut left = m;
                    while left != 0 {
                        let s = left.trailing_zeros() as usize;
                        left &= left - 1;
                        t |= ((self.score[at + s] == score) as Mask) << s;
                    }
                    t
                };
                let here = tied.count_ones();
                if r < here {
                    return Some(at + nth_set_bit(tied, r) as usize);
                }
                r -= here;
            }
        }
        None
    }

    /// Slot `i`'s class through a view (`class << na | pattern`), `NONE`
    /// when its node is not feasible or the view does not admit it.
    pub fn masked_class(&self, i: usize, view: &Masked) -> u32 {
        let c = wide(self.class[i]);
        if c == NONE {
            return NONE;
        }
        let bit = (1 as Mask) << (i % BLOCK);
        view.patterns(i / BLOCK)
            .iter()
            .position(|&m| m & bit != 0)
            .map_or(NONE, |p| c << view.na | p as u32)
    }

    /// The best score among the slots `mask` names in the block starting at
    /// slot `at`, and the mask of those holding it.
    #[inline]
    fn best_of(&self, at: usize, mask: Mask) -> (Score, Mask) {
        let (mut max, mut ties) = (Score::MIN, 0 as Mask);
        let mut m = mask;
        while m != 0 {
            let t = m.trailing_zeros() as usize;
            let bit = m & m.wrapping_neg();
            m &= m - 1;
            let v = self.score[at + t];
            ties = joined_ties(max, ties, v, bit);
            max = max.max(v);
        }
        (max, ties)
    }

    /// Checks every group's summary against a join of its blocks' entries.
    #[cfg(test)]
    fn check_groups(&self) {
        for g in 0..self.group_len.len() {
            let blocks = g * GROUP..((g + 1) * GROUP).min(self.len.len());
            let mut want: alloc::collections::BTreeMap<u16, GroupEntry> = Default::default();
            let mut feasible = 0;
            for b in blocks {
                feasible += self.feasible[b];
                for e in &self.entries[b * BLOCK..b * BLOCK + self.len[b] as usize] {
                    want.entry(e.class)
                        .or_insert(GroupEntry {
                            class: e.class,
                            ..GroupEntry::EMPTY
                        })
                        .join(e);
                }
            }
            let at = g * GROUP_SLOTS;
            let mut got: alloc::vec::Vec<GroupEntry> =
                self.group_entries[at..at + self.group_len[g] as usize].to_vec();
            got.sort_by_key(|e| e.class);
            let want: alloc::vec::Vec<GroupEntry> = want.into_values().collect();
            assert_eq!(got, want, "group {g}");
            assert_eq!(self.group_feasible[g], feasible, "group {g}");
        }
    }

    /// Checks every entry's ties against its block's slots.
    #[cfg(test)]
    fn check_ties(&self) {
        for b in 0..self.len.len() {
            let (a, z) = (b * BLOCK, ((b + 1) * BLOCK).min(self.class.len()));
            for j in 0..self.len[b] as usize {
                let e = self.entries[a + j];
                let want = (a..z)
                    .filter(|&s| wide(self.class[s]) == e.class() && self.score[s] == e.max)
                    .fold(0 as Mask, |m, s| m | 1 << (s - a));
                assert_eq!(self.ties[a + j], want, "block {b} class {}", e.class());
                assert_eq!(want.count_ones(), e.at_max as u32);
                let members = (a..z)
                    .filter(|&s| wide(self.class[s]) == e.class())
                    .fold(0 as Mask, |m, s| m | 1 << (s - a));
                assert_eq!(
                    self.members[a + j],
                    members,
                    "block {b} class {}",
                    e.class()
                );
                assert_eq!(members.count_ones(), e.members as u32);
            }
        }
    }

    /// The `r`-th slot (from 0), in the ranges' order, of class `class` with
    /// score `score`.
    pub fn nth_at(
        &self,
        ranges: &[(usize, usize)],
        class: u32,
        score: Score,
        mut r: u32,
    ) -> Option<usize> {
        for &(a, z) in ranges {
            let mut i = a;
            while i < z {
                // A whole group without the class at `score`, or with
                // fewer such slots than `r`, is passed by its summary.
                let g_at = i / GROUP_SLOTS * GROUP_SLOTS;
                let g_end = (g_at + GROUP_SLOTS).min(self.class.len());
                if i == g_at && g_end <= z {
                    let g = i / GROUP_SLOTS;
                    let ge = &self.group_entries[g_at..g_at + self.group_len[g] as usize];
                    match ge.iter().find(|e| e.class() == class) {
                        None => {
                            i = g_end;
                            continue;
                        }
                        Some(e) if e.max < score => {
                            i = g_end;
                            continue;
                        }
                        Some(e) if e.max == score && r >= e.at_max as u32 => {
                            r -= e.at_max as u32;
                            i = g_end;
                            continue;
                        }
                        _ => {}
                    }
                }
                let b = i / BLOCK;
                let block_end = ((b + 1) * BLOCK).min(self.class.len());
                let stop = block_end.min(z);
                let at = b * BLOCK;
                let Some(j) = self.entries[at..at + self.len[b] as usize]
                    .iter()
                    .position(|e| e.class() == class)
                else {
                    i = stop;
                    continue;
                };
                let max = self.entries[at + j].max;
                if max < score {
                    i = stop;
                    continue;
                }
                // Where the class's best in the block is `score`, its ties
                // there are the entry's bits (those of the range).
                if max == score {
                    // A whole block's count is the entry's (read with it:
                    // the mask is another cache line, read only here).
                    let span = stop - i;
                    let mut tied;
                    if span == BLOCK {
                        let here = self.entries[at + j].at_max as u32;
                        if r >= here {
                            r -= here;
                            i = stop;
                            continue;
                        }
                        tied = self.ties[at + j];
                    } else {
                        tied = self.ties[at + j] & span_mask(i - at, stop - at);
                        let here = tied.count_ones();
                        if r >= here {
                            r -= here;
                            i = stop;
                            continue;
                        }
                    }
                    for _ in 0..r {
                        tied &= tied - 1;
                    }
                    return Some(at + tied.trailing_zeros() as usize);
                }
                // The class's best in the block is above `score`: its slots
                // in the range at `score` are found among its members, one
                // by one (only in a partial block: a sample covering the
                // block has the block's best).
                let mut m = self.members[at + j] & span_mask(i - at, stop - at);
                while m != 0 {
                    let s = at + m.trailing_zeros() as usize;
                    m &= m - 1;
                    if self.score[s] == score {
                        if r == 0 {
                            return Some(s);
                        }
                        r -= 1;
                    }
                }
                i = stop;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulator::Prng;
    use alloc::vec;

    /// The plain sample: from `start`, wrapping once, the first `k` slots
    /// `ok` admits, and how many slots the visit took (all of them when
    /// fewer than `k` are admitted, as kube-scheduler's processedNodes; up to
    /// the `k`-th when exactly `k` are, as the scans stop there).
    fn plain_sample(
        n: usize,
        start: usize,
        k: u32,
        ok: impl Fn(usize) -> bool,
    ) -> (Vec<usize>, usize) {
        let mut taken = Vec::new();
        let mut seen = 0;
        for j in (start..n).chain(0..start) {
            if taken.len() == k as usize {
                break;
            }
            seen += 1;
            if ok(j) {
                taken.push(j);
            }
        }
        if (0..n).filter(|&j| ok(j)).count() < k as usize {
            seen = n;
        }
        (taken, seen)
    }

    /// The slots of `ranges` that `ok` admits, in order.
    fn in_ranges(ranges: &[(usize, usize)], ok: impl Fn(usize) -> bool) -> Vec<usize> {
        ranges
            .iter()
            .flat_map(|&(a, z)| a..z)
            .filter(|&j| ok(j))
            .collect()
    }

    /// The classes `sample_gather` gathered into `acc` for `ranges`: each
    /// class's best and tie count as a fold of the same slots gives them,
    /// each class once and in ascending order; `acc` is empty after.
    fn gathered_as_folded(
        ix: &Blocks,
        ranges: &[(usize, usize)],
        admit: &impl Fn(u32) -> bool,
        acc: &mut Gathered,
    ) {
        let mut folded: Vec<Best> = Vec::new();
        ix.fold_where(ranges, admit, |e| {
            match folded.iter_mut().find(|b| b.class == e.class) {
                Some(b) => b.join(e),
                None => folded.push(*e),
            }
        });
        folded.sort_unstable_by_key(|b| b.class);
        let (mut classes, mut tops) = (Vec::new(), Vec::new());
        acc.drain(&mut classes, &mut tops);
        assert!(classes.iter().eq(tops.iter().map(|t| &t.class)));
        let got: Vec<(u32, Score, u32)> = tops.iter().map(|t| (t.class, t.max, t.at_max)).collect();
        let want: Vec<(u32, Score, u32)> =
            folded.iter().map(|b| (b.class, b.max, b.at_max)).collect();
        assert_eq!(got, want, "the classes gathered");
        let (mut again, mut tops) = (Vec::new(), Vec::new());
        acc.drain(&mut again, &mut tops);
        assert!(again.is_empty(), "drained");
        assert!(acc.top.iter().all(|t| *t == Top::ABSENT), "reset");
    }

    /// `Gathered` gives each class added its best and tie count, in
    /// ascending order, with few classes (read whole) and with many (a bit
    /// per class), and is empty after.
    #[test]
    fn gathered_merges_and_drains_in_class_order() {
        let mut rng = Prng::new(11);
        for classes in [1u32, 5, 64, 200, 300, 2000] {
            let mut g = Gathered::default();
            g.fit(classes - 1);
            for _ in 0..5 {
                let mut want: alloc::collections::BTreeMap<u32, Top> = Default::default();
                for _ in 0..rng.below(100) {
                    let c = rng.below(classes as u64) as u32;
                    let (max, at) = (rng.below(4) as Score, 1 + rng.below(3) as u32);
                    g.add(c, max, at);
                    let t = want.entry(c).or_insert(Top::ABSENT);
                    if max > t.max {
                        *t = Top { max, at_max: at };
                    } else if max == t.max {
                        t.at_max += at;
                    }
                }
                let (mut found, mut tops) = (Vec::new(), Vec::new());
                g.drain(&mut found, &mut tops);
                assert!(found.iter().eq(tops.iter().map(|t| &t.class)));
                let got: Vec<(u32, Top)> = tops
                    .iter()
                    .map(|t| {
                        (
                            t.class,
                            Top {
                                max: t.max,
                                at_max: t.at_max,
                            },
                        )
                    })
                    .collect();
                let want: Vec<(u32, Top)> = want.into_iter().collect();
                assert_eq!(got, want, "{classes} classes");
                assert!(g.top.iter().all(|t| *t == Top::ABSENT));
                assert!(g.seen.iter().all(|&w| w == 0));
            }
        }
    }

    /// The blocks answer what a plain scan of the slots answers: the sample's
    /// end, each class's best and tie count, and the r-th tied slot.
    #[test]
    fn blocks_agree_with_a_plain_scan() {
        let mut rng = Prng::new(7);
        for n in [
            1usize, 2, 3, 7, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 333, 700, 1100,
        ] {
            let mut ix = Blocks::default();
            ix.reset(n);
            let mut plain: Vec<Option<(u32, Score)>> = vec![None; n];
            for step in 0..400 {
                let i = rng.below(n as u64) as usize;
                let v = if rng.chance(30) {
                    None
                } else {
                    Some((rng.below(3) as u32, rng.below(5) as Score))
                };
                plain[i] = v;
                if step % 50 == 0 {
                    // A bulk load gives the same summaries.
                    ix.reset(n);
                    for (j, p) in plain.iter().enumerate() {
                        if let Some((c, s)) = p {
                            ix.load(j, *c, *s);
                        }
                    }
                    ix.summarise_all();
                } else if step % 5 == 2 {
                    // A refile of one block in bulk (its group stale until
                    // settled), then a slot set anywhere, maybe in it.
                    let (c, s) = v.unwrap_or((NONE, 0));
                    ix.load(i, c, s);
                    ix.summarise(i / BLOCK);
                    let j = rng.below(n as u64) as usize;
                    let w = if rng.chance(30) {
                        None
                    } else {
                        Some((rng.below(3) as u32, rng.below(5) as Score))
                    };
                    plain[j] = w;
                    let (c, s) = w.unwrap_or((NONE, 0));
                    ix.set(j, c, s);
                } else {
                    let (c, s) = v.unwrap_or((NONE, 0));
                    ix.set(i, c, s);
                }
                let feasible: Vec<usize> = (0..n).filter(|&j| plain[j].is_some()).collect();
                assert_eq!(ix.total() as usize, feasible.len());
                ix.settle();
                ix.check_ties();
                ix.check_groups();
                let start = rng.below(n as u64) as usize;
                let k = 1 + rng.below(n as u64 + 1) as u32;
                let mut acc = Gathered::default();
                let (pair, visited) =
                    ix.sample_gather::<false>(start, k, ix.total(), &|_| true, &mut acc);
                let (taken, seen) = plain_sample(n, start, k, |j| plain[j].is_some());
                assert_eq!(visited, seen, "n {n} start {start} k {k}");
                assert_eq!(in_ranges(&pair, |j| plain[j].is_some()), taken);
                for class in 0..3u32 {
                    let mut best = Best::EMPTY;
                    ix.fold(&pair, |e| {
                        if e.class == class {
                            best.join(e)
                        }
                    });
                    let members: Vec<(usize, Score)> = taken
                        .iter()
                        .filter_map(|&j| plain[j].filter(|p| p.0 == class).map(|p| (j, p.1)))
                        .collect();
                    assert_eq!(best.members as usize, members.len());
                    if let Some(max) = members.iter().map(|m| m.1).max() {
                        let at: Vec<usize> =
                            members.iter().filter(|m| m.1 == max).map(|m| m.0).collect();
                        assert_eq!((best.max, best.at_max as usize), (max, at.len()));
                        for (r, &slot) in at.iter().enumerate() {
                            assert_eq!(ix.nth_at(&pair, class, max, r as u32), Some(slot));
                        }
                        assert_eq!(ix.nth_at(&pair, class, max, at.len() as u32), None);
                    }
                }
                gathered_as_folded(&ix, &pair, &|_| true, &mut acc);
                // Filtered by class: a random set of admitted classes.
                let admitted = rng.below(8) as u32;
                let allow = |c: u32| admitted & (1 << c) != 0;
                let ok = |j: usize| plain[j].is_some_and(|p| allow(p.0));
                let total = ix.total_where(&allow);
                assert_eq!(total as usize, (0..n).filter(|&j| ok(j)).count());
                let (pair, visited) = ix.sample_gather::<true>(start, k, total, &allow, &mut acc);
                let (taken, seen) = plain_sample(n, start, k, ok);
                assert_eq!(visited, seen, "filtered: n {n} start {start} k {k}");
                assert_eq!(in_ranges(&pair, ok), taken, "filtered");
                let mut folded = 0;
                ix.fold_where(&pair, &allow, |e| {
                    assert!(allow(e.class));
                    folded += e.members as usize;
                });
                assert_eq!(folded, taken.len());
                gathered_as_folded(&ix, &pair, &allow, &mut acc);
                // Through a random view: the slots it admits, each with a
                // pattern of `na` bits, the classes `class << na | pattern`.
                let na = rng.below(3) as u32;
                let mut view = Masked::new(n, na);
                let mut pattern: Vec<Option<u32>> = vec![None; n];
                for (j, p) in pattern.iter_mut().enumerate() {
                    if rng.chance(70) {
                        let q = rng.below(1 << na) as u32;
                        view.admit(j, q);
                        *p = Some(q);
                    }
                }
                let vclass = |j: usize| match (plain[j], pattern[j]) {
                    (Some((c, _)), Some(q)) => Some(c << na | q),
                    _ => None,
                };
                let ok = |j: usize| vclass(j).is_some();
                for j in 0..n {
                    assert_eq!(ix.masked_class(j, &view), vclass(j).unwrap_or(NONE));
                }
                let total = ix.masked_total(&view);
                assert_eq!(total as usize, (0..n).filter(|&j| ok(j)).count());
                let (pair, visited) = ix.sample_gather_masked(start, k, total, &view, &mut acc);
                let (taken, seen) = plain_sample(n, start, k, ok);
                assert_eq!(visited, seen, "viewed: n {n} start {start} k {k} na {na}");
                assert_eq!(in_ranges(&pair, ok), taken, "viewed");
                let (mut classes, mut tops) = (Vec::new(), Vec::new());
                acc.drain(&mut classes, &mut tops);
                let mut want: alloc::collections::BTreeMap<u32, (Score, Vec<usize>)> =
                    Default::default();
                for &j in &taken {
                    let (c, v) = (vclass(j).unwrap(), plain[j].unwrap().1);
                    let e = want.entry(c).or_insert((v, Vec::new()));
                    if v > e.0 {
                        *e = (v, Vec::new());
                    }
                    if v == e.0 {
                        e.1.push(j);
                    }
                }
                let got: Vec<(u32, Score, u32)> =
                    tops.iter().map(|t| (t.class, t.max, t.at_max)).collect();
                let wanted: Vec<(u32, Score, u32)> = want
                    .iter()
                    .map(|(&c, (v, at))| (c, *v, at.len() as u32))
                    .collect();
                assert_eq!(
                    got, wanted,
                    "viewed classes: n {n} start {start} k {k} na {na}"
                );
                for (&c, (v, at)) in &want {
                    for (r, &slot) in at.iter().enumerate() {
                        assert_eq!(ix.nth_at_masked(&pair, c, *v, r as u32, &view), Some(slot));
                    }
                    assert_eq!(ix.nth_at_masked(&pair, c, *v, at.len() as u32, &view), None);
                }
            }
        }
    }

    /// A kept sample, after any mix of sets (its slots changing class,
    /// score or feasibility, inside or outside it), loads and resets, is
    /// either dropped or exactly what a fresh walk gathers from its start:
    /// the same end and the same bests. Most sets leave it kept.
    #[test]
    fn kept_samples_match_a_fresh_walk() {
        let ops = crate::fuzz_ops(200);
        let (mut hits, mut lookups) = (0u64, 0u64);
        for seed in 0..ops {
            let mut rng = Prng::new(seed);
            let n = 1 + rng.below(900) as usize;
            let classes = 1 + rng.below(6) as u32;
            let scores = 1 + rng.below(6) as Score;
            let mut ix = Blocks::default();
            ix.reset(n);
            for i in 0..n {
                if !rng.chance(10) {
                    ix.load(
                        i,
                        rng.below(classes as u64) as u32,
                        rng.below(scores as u64) as Score,
                    );
                }
            }
            ix.summarise_all();
            let k = 1 + rng.below(n as u64) as u32;
            // A few starts, come back to again and again, as a batch's
            // samples come round.
            let starts: Vec<usize> = (0..4).map(|_| rng.below(n as u64) as usize).collect();
            let mut acc = Gathered::default();
            for step in 0..300 {
                let i = rng.below(n as u64) as usize;
                if rng.chance(2) {
                    ix.load(i, rng.below(classes as u64) as u32, 0);
                    ix.summarise(i / BLOCK);
                } else if rng.chance(10) {
                    ix.set(i, NONE, 0);
                } else {
                    let c = rng.below(classes as u64) as u32;
                    ix.set(i, c, rng.below(scores as u64) as Score);
                }
                ix.settle();
                let start = starts[step % starts.len()];
                let (pair, visited) =
                    ix.sample_gather::<false>(start, k, ix.total(), &|_| true, &mut acc);
                let (mut present, mut best) = (Vec::new(), Vec::new());
                acc.drain(&mut present, &mut best);
                lookups += 1;
                if let Some((end, kept)) = ix.cached_sample(start, k) {
                    hits += 1;
                    assert_eq!(
                        (pair, visited),
                        ([(start, end), (0, 0)], end - start),
                        "seed {seed} step {step}: a kept sample ends where a walk does"
                    );
                    assert_eq!(kept, &best[..], "seed {seed} step {step}: the same bests");
                } else if ix.total() > k && pair[1].0 == pair[1].1 {
                    ix.keep_sample(start, pair[0].1, k, &best);
                }
            }
        }
        // Sets inside a kept sample mostly keep it (else the cache would
        // never be read and the test would check nothing).
        assert!(
            lookups == 0 || hits * 4 > lookups,
            "{hits} hits of {lookups} lookups"
        );
    }
}
