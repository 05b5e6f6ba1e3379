//! InterPodAffinity's Filter (interpodaffinity/filtering.go): required
//! affinity, required anti-affinity, and existing pods' anti-affinity.

use crate::scheduler::*;

impl Cluster {
    /// The Filter as the framework runs it (the registry's `runs`): nothing
    /// when the batch's PreFilter found no term that can refuse a node
    /// (`Batch::inter_pod_filter`).
    #[inline]
    pub(in crate::scheduler) fn inter_pod_affinity_filter(
        &self,
        n: NodeId,
        b: &Batch,
        _profile: &Profile,
    ) -> Result<(), Unfit> {
        if !b.inter_pod_filter {
            return Ok(());
        }
        self.inter_pod_filter(n, &b.rev)
    }

    pub(in crate::scheduler) fn inter_pod_filter(
        &self,
        n: NodeId,
        rev: &Revision,
    ) -> Result<(), Unfit> {
        if !rev.affinity_ids.is_empty() {
            // Every term's domain must hold a pod matching all terms...
            let mut exist = true;
            for &t in &rev.affinity_ids {
                let ts = &self.terms[t as usize];
                match self.domain(ts.topo, n) {
                    Some(d) => exist &= ts.matching_in(d) > 0,
                    None => return Err(Unfit::InterPodAffinity(super::Unsatisfied::Affinity)),
                }
            }
            // ...unless no such pod sits in any domain yet and the pod
            // matches its own terms: the first of its group.
            if !exist {
                let none_anywhere = rev
                    .affinity_ids
                    .iter()
                    .all(|&t| self.terms[t as usize].matching_total == 0);
                let first = none_anywhere
                    && rev.affinity_ids.first().is_some_and(|&t| {
                        self.terms[t as usize]
                            .selector
                            .matches(&rev.template.labels)
                    });
                if !first {
                    return Err(Unfit::InterPodAffinity(super::Unsatisfied::Affinity));
                }
            }
        }
        for &t in &rev.anti_ids {
            let ts = &self.terms[t as usize];
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.matching_in(d) > 0 {
                    return Err(Unfit::InterPodAffinity(super::Unsatisfied::AntiAffinity));
                }
            }
        }
        for &t in &rev.matching_terms {
            let ts = &self.terms[t as usize];
            if ts.owners.is_empty() {
                continue;
            }
            if let Some(d) = self.domain(ts.topo, n) {
                if ts.owners_in(d) > 0 {
                    return Err(Unfit::InterPodAffinity(
                        super::Unsatisfied::ExistingAntiAffinity,
                    ));
                }
            }
        }
        Ok(())
    }
}
