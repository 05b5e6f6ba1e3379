//! The batch caches: verdicts and scores that read only the node and the
//! template, kept per node with the node's stamp (`cache.rs` keeps them
//! across batches), the packed node record's shortcuts, and the node-local
//! scores' planned kernels (debug builds compare each with the general one).

use crate::scheduler::*;

impl Cluster {
    /// The verdict of every filter without its reason, for scans: the
    /// packed mirror refuses most nodes without reading them.
    #[inline(always)]
    pub(in crate::scheduler) fn feasible_fast(
        &mut self,
        i: usize,
        b: &mut Batch,
        profile: &Profile,
    ) -> bool {
        if !self.feasible_but_spread(i, b, profile) {
            return false;
        }
        if !b.hard.is_empty() && self.spread_filter(NodeId(i as u32), b).is_err() {
            return false;
        }
        // NodePorts: a batch with host ports scans through `filter_node`
        // (see `Cluster::cycle`), and takes no other fast path.
        debug_assert!(
            !b.host_ports,
            "the scans' fast filter does not book host ports"
        );
        self.inter_pod_passes(i, b)
    }

    /// InterPodAffinity's verdict on node `i` for batch `b`, when it filters.
    #[inline(always)]
    pub(in crate::scheduler) fn inter_pod_passes(&self, i: usize, b: &Batch) -> bool {
        !(b.inter_pod_filter && self.inter_pod_filter(NodeId(i as u32), &b.rev).is_err())
    }

    /// Every filter but PodTopologySpread's and InterPodAffinity's (those
    /// that read other nodes' pods): the node's own state and the template.
    pub(in crate::scheduler) fn feasible_but_spread(
        &mut self,
        i: usize,
        b: &mut Batch,
        profile: &Profile,
    ) -> bool {
        let h = &self.hot[i];
        let fits = h.fits(&b.req) && h.pods_free > 0;
        // A pod with scalar requests: its plain cycle asks the filter.
        if b.scalars
            && profile.filter_enabled(Plugin::NodeResourcesFit)
            && self.fit_filter(NodeId(i as u32), b, profile).is_err()
        {
            return false;
        }
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
    pub(in crate::scheduler) fn static_ok_cached(
        &self,
        i: usize,
        b: &mut Batch,
        profile: &Profile,
    ) -> bool {
        let stamp = self.spec_stamps[i];
        let cached = b.static_ok.get(i, stamp);
        let affinity = !b.filing_base;
        debug_assert!(
            cached.is_none()
                || (cached == Some(1))
                    == self
                        .static_filter_with(
                            NodeId(i as u32),
                            cache::StaticInputs::of(&b.rev),
                            profile,
                            affinity,
                        )
                        .is_ok(),
            "a cached static verdict must equal a fresh one"
        );
        match cached {
            Some(v) => v == 1,
            None => {
                let ok = self
                    .static_filter_with(
                        NodeId(i as u32),
                        cache::StaticInputs::of(&b.rev),
                        profile,
                        affinity,
                    )
                    .is_ok();
                b.static_ok.set(i, stamp, if ok { 1 } else { 2 });
                ok
            }
        }
    }

    /// NodeAffinity's raw score (the weights of the preferred terms the
    /// node matches), cached per batch until the node's spec changes.
    pub(in crate::scheduler) fn na_raw_cached(&self, i: usize, b: &mut Batch) -> i64 {
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
    pub(in crate::scheduler) fn na_mask_cached(&self, i: usize, b: &mut Batch) -> u32 {
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
    pub(in crate::scheduler) fn local_cached(
        &self,
        i: usize,
        b: &mut Batch,
        profile: &Profile,
    ) -> i64 {
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

    /// The node-local part of a node's total: NodeResourcesFit and
    /// NodeResourcesBalancedAllocation, weighted.
    pub(in crate::scheduler) fn local_total(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
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
    pub(in crate::scheduler) fn local_planned(&self, n: NodeId, b: &Batch, l: LocalPlan) -> i64 {
        Self::local_planned_of(&self.hot[n.0 as usize], b, l)
    }

    /// `local_planned_of` for a plan of LeastAllocated over cpu and memory
    /// weighed alike beside BalancedAllocation, for a pod with requests.
    #[inline(always)]
    pub(in crate::scheduler) fn local_common_of(h: &HotNode, b: &Batch, l: LocalPlan) -> i64 {
        debug_assert!(l.w_fit > 0 && !l.most && l.w_cpu == l.w_mem && l.w_bal > 0);
        if (h.capacity.cpu_millis == 0) | (h.capacity.memory_bytes == 0) {
            return Self::local_zero_capacity_of(h, b, l);
        }
        let (cpu, mem) = Self::fit_pair(h, b, fit::least_requested_score);
        let total = l.w_fit * fit::mean_of_two_alike(cpu, mem) + l.w_bal * Self::balanced_of(h, b);
        debug_assert_eq!(total, Self::local_planned_of(h, b, l));
        total
    }

    /// NodeResourcesFit's score `per` resource (requested with the non-zero
    /// defaults, allocatable) for cpu and memory on node record `h`.
    #[inline(always)]
    pub(in crate::scheduler) fn fit_pair(
        h: &HotNode,
        b: &Batch,
        per: impl Fn(i64, i64) -> i64,
    ) -> (i64, i64) {
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
    pub(in crate::scheduler) fn balanced_of(h: &HotNode, b: &Batch) -> i64 {
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
        let balance = |i: usize| balanced::balance_of_two(fc[i], fm[i]);
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
    pub(in crate::scheduler) fn local_zero_capacity_of(
        h: &HotNode,
        b: &Batch,
        l: LocalPlan,
    ) -> i64 {
        let caps = [h.capacity.cpu_millis as i64, h.capacity.memory_bytes as i64];
        let mut total = 0i64;
        if l.w_fit > 0 {
            let req = [
                (h.nonzero.cpu_millis + b.nonzero.cpu_millis) as i64,
                (h.nonzero.memory_bytes + b.nonzero.memory_bytes) as i64,
            ];
            let weights = [l.w_cpu, l.w_mem].into_iter();
            total += l.w_fit * fit::allocated_score(l.most, &req, &caps, weights);
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
    pub(in crate::scheduler) fn local_planned_of(h: &HotNode, b: &Batch, l: LocalPlan) -> i64 {
        if (h.capacity.cpu_millis == 0) | (h.capacity.memory_bytes == 0) {
            return Self::local_zero_capacity_of(h, b, l);
        }
        let mut total = 0i64;
        if l.w_fit > 0 {
            let (cpu, mem) = Self::fit_pair(h, b, |r, c| {
                if c == 0 {
                    0
                } else {
                    fit::resource_score(l.most, r, c)
                }
            });
            let mean = fit::mean_of_two(cpu, mem, l.w_cpu, l.w_mem);
            total += l.w_fit * mean;
        }
        if l.w_bal > 0 && !b.best_effort {
            total += l.w_bal * Self::balanced_of(h, b);
        }
        total
    }

    /// The common shape, scored without per-plugin buffers: node-local
    /// scores from the batch's cache, the plugins whose scores are the same
    /// on every node (TaintToleration without PreferNoSchedule taints in the
    /// sample, NodeAffinity and InterPodAffinity with nothing to score)
    /// added as such, PodTopologySpread from the batch's counts. Returns
    /// false when the batch needs the general scorer.
    pub(in crate::scheduler) fn score_fast(
        &mut self,
        b: &mut Batch,
        feasible: &[u32],
        profile: &Profile,
        soft_taints: bool,
    ) -> bool {
        // The shapes the plugins declare (the registry's `scoring`): a
        // score the same on every node is added as such; one that may
        // differ is computed by the plugin when it scores the feasible
        // nodes itself (PodTopologySpread), else the general scorer runs.
        let mut base = 0i64;
        let mut own = false;
        for &(p, w) in &profile.scores {
            match self.score_shape(p, b, soft_taints) {
                ScoreShape::Nothing | ScoreShape::NodeLocal => {}
                ScoreShape::Same(v) => base += w * v,
                ScoreShape::Varies if p.scores_itself() => own = true,
                ScoreShape::Varies => return false,
            }
        }
        let m = feasible.len();
        b.totals.clear();
        b.totals.resize(m, base);
        for (j, &i) in feasible.iter().enumerate() {
            b.totals[j] += self.local_cached(i as usize, b, profile);
        }
        if own {
            let mut norm = core::mem::take(&mut b.norm);
            for &(p, w) in &profile.scores {
                if self.score_shape(p, b, soft_taints) != ScoreShape::Varies {
                    continue;
                }
                norm.clear();
                self.run_own_score(p, b, feasible, &mut norm);
                for (t, &v) in b.totals.iter_mut().zip(&norm) {
                    *t += w * v;
                }
            }
            b.norm = norm;
        }
        true
    }
}
