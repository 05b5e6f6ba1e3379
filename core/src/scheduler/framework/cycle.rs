//! One scheduling cycle, top to bottom as kube-scheduler's
//! `schedule_one.go` runs it: PreFilter's node set (`b.prefiltered`),
//! Filter from where the last cycle stopped until enough feasible nodes
//! are found, a single feasible node taken unscored, PreScore's skips,
//! Score and NormalizeScore per plugin, weights, and selectHost. The
//! plugins' filters and scores read the batch's state (`state.rs`).

use crate::scheduler::*;

impl Cluster {
    /// The filters that depend only on the node and the template, in the
    /// profile's order.
    pub(in crate::scheduler) fn static_filter(
        &self,
        n: NodeId,
        rev: &Revision,
        profile: &Profile,
    ) -> Result<(), Unfit> {
        self.static_filter_with(n, cache::StaticInputs::of(rev), profile, true)
    }

    /// `static_filter`, with NodeAffinity (the template's nodeSelector and
    /// required node affinity) or without it: a batch filing the kept
    /// index of a wider template (see `Masked`) files that template's
    /// verdicts, whose key has neither.
    pub(in crate::scheduler) fn static_filter_with(
        &self,
        n: NodeId,
        pod: cache::StaticInputs<'_>,
        profile: &Profile,
        affinity: bool,
    ) -> Result<(), Unfit> {
        for &p in &profile.filters {
            if p == Plugin::NodeAffinity && !affinity {
                continue;
            }
            self.run_static_filter(p, n, pod)?;
        }
        Ok(())
    }

    /// The filters that change as pods come and go (resources, host ports,
    /// topology spread and inter-pod (anti-)affinity), in the profile's
    /// order, through the registry's dispatch.
    pub(in crate::scheduler) fn dynamic_filter(
        &self,
        n: NodeId,
        b: &Batch,
        profile: &Profile,
    ) -> Result<(), Unfit> {
        for &p in &profile.filters {
            self.run_dynamic_filter(p, n, b, profile)?;
        }
        Ok(())
    }

    /// Every filter, for one node.
    pub(in crate::scheduler) fn filter_node(
        &mut self,
        n: NodeId,
        b: &mut Batch,
        profile: &Profile,
    ) -> Result<(), Unfit> {
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

    pub(in crate::scheduler) fn local_total_general(
        &self,
        n: NodeId,
        b: &Batch,
        profile: &Profile,
    ) -> i64 {
        let mut total = 0;
        for &(p, w) in &profile.scores {
            total += w * self.run_local_score(p, n, b, profile);
        }
        total
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

    /// One scheduling cycle for one pod of the batch: the chosen node.
    pub(in crate::scheduler) fn cycle(
        &mut self,
        b: &mut Batch,
        x: &mut IxScratch,
        profile: &Profile,
    ) -> Option<NodeId> {
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
        // The batch caches' filter serves every batch but one with host
        // ports (NodePorts reads the node's book: `filter_node` runs it).
        let scan_fast = self.fast_paths.batch_caches && !b.host_ports;
        for (step, i) in (start..slots).chain(0..start).enumerate() {
            visited = step as u32 + 1;
            if self.hot[i as usize].removed {
                continue;
            }
            let feasible_here = if scan_fast {
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
    pub(in crate::scheduler) fn record_cycle(
        &mut self,
        b: &Batch,
        start: u32,
        chosen: Option<NodeId>,
        scored: &[u32],
    ) {
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

    /// selectHost: the highest total; ties by the profile's rule.
    pub(in crate::scheduler) fn select(
        &mut self,
        totals: &[i64],
        ids: &[u32],
        profile: &Profile,
    ) -> usize {
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
    pub(in crate::scheduler) fn score_feasible(
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
        let mut norm = core::mem::take(&mut b.norm);
        for &(p, w) in &profile.scores {
            raw.clear();
            norm.clear();
            // The plugin's Score and NormalizeScore, through the registry's
            // dispatch (node-local ones are in the totals already when
            // `cached_local`).
            if !self.run_score(p, b, feasible, profile, cached_local, &mut raw, &mut norm) {
                continue;
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
        b.norm = norm;
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
    pub(in crate::scheduler) fn prescore_skips(&self, b: &Batch, profile: &Profile) -> Vec<Plugin> {
        profile
            .scores
            .iter()
            .map(|&(p, _)| p)
            .filter(|&p| self.prescore_skip(p, b, profile))
            .collect()
    }
}
