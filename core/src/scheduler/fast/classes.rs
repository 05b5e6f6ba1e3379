//! The class cycle (`cycle_fast`): nodes that score alike (same spread
//! count class, zone, preferred terms matched) are scored once per class,
//! in two tight passes over the same sample the plain cycle visits.

use crate::scheduler::*;

impl Cluster {
    /// Keeps the batch's classes (see `class_with`) under [`MAX_CLASSES`]:
    /// the fast cycle's per-class buffers are indexed by class. Past it,
    /// the preferred terms and the hard zone domain leave the class (the
    /// scan scores and filters them node by node); false when even the
    /// spread classes alone would pass it (the general cycle then runs).
    pub(in crate::scheduler) fn bound_classes(&self, b: &mut Batch) -> bool {
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
    pub(in crate::scheduler) fn most_pods_a_node_may_hold(&self) -> u64 {
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
    pub(in crate::scheduler) fn fast_cycle_applies(&self, b: &Batch, profile: &Profile) -> bool {
        if b.scalars || b.host_ports {
            return false;
        }
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
        spread_ok && profile.scores.iter().all(|(p, _)| p.class_scored())
    }

    /// kube-scheduler's cycle for the common shape in two tight passes over
    /// the sample: the same sample, totals and choice as `cycle` computes
    /// through the general scorer (the reference test checks every bind).
    /// `None`: a node in the sample needs the general scorer (an untolerated
    /// PreferNoSchedule taint under TaintToleration); nothing was changed.
    pub(in crate::scheduler) fn cycle_fast(
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
    pub(in crate::scheduler) fn class_with(
        &self,
        b: &Batch,
        i: usize,
        stride: usize,
        mask: u32,
    ) -> u32 {
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
    pub(in crate::scheduler) fn na_mask(&self, b: &Batch, i: usize) -> u32 {
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
    pub(in crate::scheduler) fn class_zone(&self, b: &Batch, profile: &Profile) -> Option<u32> {
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

    pub(in crate::scheduler) fn spread_stride(&self, b: &Batch) -> usize {
        if b.soft.is_empty() {
            return 1;
        }
        b.class_zone
            .map_or(1, |t| self.topologies[t as usize].domains.len() + 1)
    }

    /// Each class's normalised spread score for a sample, from the classes
    /// present in it (what `spread_raw` and `spread::normalize` give node by
    /// node for the system defaults' shape).
    pub(in crate::scheduler) fn class_spread_scores(
        &self,
        b: &Batch,
        present: &[u32],
        m: usize,
    ) -> Vec<(u32, i64)> {
        let mut x = IxScratch::default();
        self.class_spread_scores_into(b, present, m, &mut x);
        x.scores
    }

    /// `class_spread_scores` into `x.scores`, with `x`'s buffers.
    pub(in crate::scheduler) fn class_spread_scores_into(
        &self,
        b: &Batch,
        present: &[u32],
        m: usize,
        x: &mut IxScratch,
    ) {
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
}
