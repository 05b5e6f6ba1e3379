//! A batch: the per-batch state the plugins' PreFilter and PreScore build
//! for a revision's pods (kube-scheduler's CycleState, shared by the pods of
//! one batch because they are identical). Each plugin's own part and its
//! update when a pod binds live in its folder (`plugins/pod_topology_spread/
//! state.rs`, `plugins/inter_pod_affinity/state.rs`); this gathers them.

use crate::scheduler::*;

impl Cluster {
    pub(in crate::scheduler) fn new_batch(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        profile: &Profile,
    ) -> Batch {
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
        let static_key = cache::StaticInputs::of(&rev).key();
        let nonzero = tpl.non_zero();
        let local_key = cache::LocalKey {
            req,
            nonzero,
            scalars: profile.scored_scalars(tpl),
        };
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
            best_effort: Cluster::balanced_best_effort(profile, tpl),
            live_nodes,
            plain_template: tpl.node_selector.is_empty() && tpl.node_affinity.required.is_none(),
            scalars: !tpl.scalar_requests.is_empty(),
            host_ports: !tpl.host_ports.is_empty() && profile.filter_enabled(Plugin::NodePorts),
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
            local_plan: local_plan(profile, tpl),
            feasible: spare.feasible,
            feasible_slots: spare.feasible_slots,
            raw: spare.raw,
            norm: spare.norm,
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
}
