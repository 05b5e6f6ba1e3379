//! InterPodAffinity's PreScore skip and Score (interpodaffinity/scoring.go).

use crate::scheduler::*;

impl Cluster {
    /// Whether InterPodAffinity's PreScore skips for a pod of `rev`: no
    /// bound pod on a node carrying the term's topology key (i) matches a
    /// preferred (anti-)affinity term of the pod, or (ii) carries, as
    /// required affinity (with hardPodAffinityWeight above 0) or as a
    /// preference, a term the pod matches (`processExistingPod`: the
    /// topology score map stays empty). Read from the terms' counts, which
    /// count only pods on nodes with the key; preferences are summed
    /// weights there, which can cancel, so when they are all 0 but pods
    /// carry such a term the bound pods are read one by one.
    pub(in crate::scheduler) fn ipa_skips(&self, rev: &Revision, profile: &Profile) -> bool {
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
    pub(in crate::scheduler) fn ipa_raw(&self, n: NodeId, b: &Batch, profile: &Profile) -> i64 {
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
}

impl Cluster {
    /// The raw score on node `i` as the framework asks for it: 0 for a
    /// batch with nothing to score (`Batch::ipa_score`).
    #[inline]
    pub(in crate::scheduler) fn inter_pod_affinity_raw(
        &self,
        i: u32,
        b: &mut Batch,
        profile: &Profile,
        _cached: bool,
    ) -> i64 {
        if b.ipa_score {
            self.ipa_raw(NodeId(i), b, profile)
        } else {
            0
        }
    }

    /// With nothing to score every raw score is 0, normalised to 0.
    #[inline]
    pub(in crate::scheduler) fn inter_pod_affinity_uniform(
        &self,
        b: &Batch,
        _soft_taints: bool,
    ) -> Option<i64> {
        (!b.ipa_score).then_some(0)
    }

    /// PreScore's Skip (`ipa_skips`).
    pub(in crate::scheduler) fn inter_pod_affinity_prescore_skips(
        &self,
        b: &Batch,
        profile: &Profile,
    ) -> bool {
        self.ipa_skips(&b.rev, profile)
    }
}
