//! PodTopologySpread's Filter (podtopologyspread/filtering.go): each
//! DoNotSchedule constraint's skew on the node's domain.

use crate::scheduler::*;

impl Cluster {
    /// For a batch with a hard spread constraint over a zone-like key (not
    /// the hostname): the constraint's topology, with `gate[d]` true when a
    /// node of domain `d` passes it now (PodTopologySpread's Filter, the
    /// same test `spread_filter` makes node by node). A node without the
    /// key fails it.
    pub(in crate::scheduler) fn domain_gate(&self, b: &Batch, gate: &mut Vec<bool>) -> Option<u32> {
        let s = b.hard.iter().find(|s| s.topo.is_some())?;
        let t = s.topo?;
        let min = s.min_match();
        gate.clear();
        gate.extend((0..self.topologies[t as usize].domains.len()).map(|d| {
            let matching = s.per_domain.get(d).copied().unwrap_or(0);
            spread::skew_ok(matching, s.self_match, min, s.max_skew)
        }));
        Some(t)
    }
}

impl Cluster {
    /// The Filter as the framework runs it (the registry's `runs`).
    #[inline]
    pub(in crate::scheduler) fn pod_topology_spread_filter(
        &self,
        n: NodeId,
        b: &Batch,
        _profile: &Profile,
    ) -> Result<(), Unfit> {
        self.spread_filter(n, b)
    }

    pub(in crate::scheduler) fn spread_filter(&self, n: NodeId, b: &Batch) -> Result<(), Unfit> {
        for s in &b.hard {
            let d = match s.topo {
                None => n.0,
                Some(t) => self
                    .domain(t, n)
                    .ok_or(Unfit::PodTopologySpread(super::Unsatisfied::MissingLabel))?,
            };
            let min = s.min_match();
            let matching = s.per_domain.get(d as usize).copied().unwrap_or(0);
            if !spread::skew_ok(matching, s.self_match, min, s.max_skew) {
                return Err(Unfit::PodTopologySpread(super::Unsatisfied::Skew));
            }
        }
        Ok(())
    }
}
