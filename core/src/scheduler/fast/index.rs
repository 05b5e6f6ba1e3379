//! The sample index's use by batches: lending, refiling and keeping it,
//! and the indexed cycle (`cycle_indexed`), which reads blocks of node
//! summaries and chooses what the plain cycle's scan chooses
//! (`sample_index.rs` holds the structure).

use crate::scheduler::*;

impl Cluster {
    /// Lends the batch the sample index kept for its key, caught up with
    /// the nodes changed since and with the nodes holding the batch's own
    /// pods, or builds one, when that costs less than the scans it saves
    /// (in `IndexUse::Auto`). Not with a PreferNoSchedule taint on a live
    /// node under TaintToleration (the general scorer's case).
    pub(in crate::scheduler) fn lend_index(&mut self, b: &mut Batch, profile: &Profile) {
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
    /// (docs/speed-history.md has the Zipf mix's figure). Borrowed, the wider
    /// index is refiled as the batches of the wider template keep it, and the
    /// batch's view holds what its own index would: the nodes its static
    /// filters pass, in the classes `class << na_bits | terms matched`.
    pub(in crate::scheduler) fn lend_masked(&mut self, b: &mut Batch, profile: &Profile) {
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
    pub(in crate::scheduler) fn end_masked(&mut self, b: &mut Batch) {
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
    pub(in crate::scheduler) fn index_key(
        &self,
        b: &Batch,
        statics: cache::StaticKey,
        na_bits: u32,
    ) -> cache::IndexKey {
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
            local: b.local_key.clone(),
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
    pub(in crate::scheduler) fn lend_index_keyed(&mut self, b: &mut Batch, profile: &Profile) {
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
    pub(in crate::scheduler) fn refresh_block(
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
    pub(in crate::scheduler) fn common_shape(b: &Batch, l: LocalPlan) -> bool {
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
    pub(in crate::scheduler) fn load_block(
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
    pub(in crate::scheduler) fn load_ordinary_slots<const COMMON: bool>(
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
    pub(in crate::scheduler) fn refresh_ahead(
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
    pub(in crate::scheduler) fn load_index(
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
    pub(in crate::scheduler) fn load_plan(&self, b: &Batch) -> Option<LocalPlan> {
        b.local_plan
            .filter(|_| !b.inter_pod_filter && (b.hard.is_empty() || b.hard_zone.is_some()))
    }

    /// The plan of `plain_slot` when batch `b`'s template selects no nodes,
    /// has no preferred terms in its class and no inter-pod filter
    /// (`slot_entry`'s shortcut, which runs neither).
    pub(in crate::scheduler) fn plain_plan(&self, b: &Batch) -> Option<LocalPlan> {
        b.local_plan
            .filter(|_| b.plain_template && b.na_bits == 0 && !b.inter_pod_filter)
    }

    /// Whether node `i` is schedulable, without hard taints and not
    /// removed: where a plain template's slot is `plain_slot`'s.
    #[inline(always)]
    pub(in crate::scheduler) fn ordinary_node(&self, i: usize) -> bool {
        let h = &self.hot[i];
        h.schedulable && !h.hard_taints && !h.removed
    }

    /// `slot_entry` for the loops that load many slots: with `plain` (from
    /// `plain_plan`), an ordinary node's slot is computed inline, without
    /// the call and the batch's checks per slot.
    #[inline(always)]
    pub(in crate::scheduler) fn slot_loaded(
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
    pub(in crate::scheduler) fn slot_entry(
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
    pub(in crate::scheduler) fn plain_slot(
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
    pub(in crate::scheduler) fn index_bound(
        &mut self,
        b: &mut Batch,
        x: NodeId,
        profile: &Profile,
    ) {
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
    pub(in crate::scheduler) fn cycle_indexed(
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

    /// The chosen node of a sample whose classes and their bests
    /// `cycle_indexed` gathered into `x` (`present`, `best`).
    pub(in crate::scheduler) fn pick_indexed(
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
    pub(in crate::scheduler) fn record_indexed(
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
}
