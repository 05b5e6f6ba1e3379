//! PodTopologySpread's Score (podtopologyspread/scoring.go): the raw
//! scores of the feasible nodes, from the batch's counts.

use crate::scheduler::*;

impl Cluster {
    /// PodTopologySpread's raw scores for the feasible nodes into
    /// `b.spread_raw` (`None`: ignored, lacks a required key).
    pub(in crate::scheduler) fn spread_raw(&self, b: &mut Batch, feasible: &[u32]) {
        b.spread_raw.clear();
        if b.soft.is_empty() {
            b.spread_raw.resize(feasible.len(), Some(0));
            return;
        }
        let node_domains: Vec<Option<&[Option<u32>]>> = b
            .soft
            .iter()
            .map(|s| {
                s.topo
                    .map(|t| self.topologies[t as usize].node_domain.as_slice())
            })
            .collect();
        // Whether a node carries the hostname label, when some node does not.
        let labelled: Option<&[Option<u32>]> = b
            .hostname_labels
            .map(|t| self.topologies[t as usize].node_domain.as_slice());
        let has_label = |i: usize| labelled.is_none_or(|d| d[i].is_some());
        let has_all = |i: usize| {
            node_domains
                .iter()
                .all(|d| d.map_or_else(|| has_label(i), |d| d[i].is_some()))
        };
        // Domains among the scored nodes give each constraint its weight,
        // ln(domains + 2); nodes lacking a required key are not scored.
        let mut ignored = 0usize;
        if b.soft_require_all {
            ignored = feasible.iter().filter(|&&i| !has_all(i as usize)).count();
        }
        let mut weights = Vec::with_capacity(b.soft.len());
        for dom in &node_domains {
            let size = match dom {
                None => feasible.len() - ignored,
                Some(dom) => {
                    b.stamp_now = b.stamp_now.wrapping_add(1);
                    let mut size = 0usize;
                    let mut saw_missing = false;
                    for &i in feasible {
                        let i = i as usize;
                        if b.soft_require_all && !has_all(i) {
                            continue;
                        }
                        match dom[i] {
                            Some(d) => {
                                let d = d as usize;
                                if b.stamp.len() <= d {
                                    b.stamp.resize(d + 1, 0);
                                }
                                if b.stamp[d] != b.stamp_now {
                                    b.stamp[d] = b.stamp_now;
                                    size += 1;
                                }
                            }
                            // A node without the key counts as one more domain
                            // (the empty value), as kube-scheduler's pre-score
                            // does when system-defaulted.
                            None => saw_missing = true,
                        }
                    }
                    size + saw_missing as usize
                }
            };
            weights.push(spread::normalizing_weight(size));
        }
        for &i in feasible {
            let i = i as usize;
            if b.soft_require_all && !has_all(i) {
                b.spread_raw.push(None);
                continue;
            }
            let mut score = 0.0;
            for ((s, &w), dom) in b.soft.iter().zip(&weights).zip(&node_domains) {
                let cnt = match dom {
                    None if !has_label(i) => continue,
                    None => s.per_node[i] as i64,
                    Some(dom) => match dom[i] {
                        Some(d) => s.per_domain.get(d as usize).copied().unwrap_or(0),
                        None => continue,
                    },
                };
                score += spread::score_for_count(cnt, s.max_skew, w);
            }
            b.spread_raw.push(Some(plugins::round_half_away(score)));
        }
    }
}

impl Cluster {
    /// Score and NormalizeScore over the feasible nodes: the normalised
    /// scores onto `norm` (0 on every node without a ScheduleAnyway
    /// constraint), the raw ones onto `raw` when asked (an ignored node's
    /// as 0).
    pub(in crate::scheduler) fn spread_score(
        &self,
        b: &mut Batch,
        feasible: &[u32],
        norm: &mut Vec<i64>,
        raw: Option<&mut Vec<i64>>,
    ) {
        self.spread_raw(b, feasible);
        if let Some(raw) = raw {
            raw.extend(b.spread_raw.iter().map(|s| s.unwrap_or(0)));
        }
        if b.soft.is_empty() {
            norm.resize(norm.len() + feasible.len(), 0);
        } else {
            norm.extend(spread::normalize(&mut b.spread_raw));
        }
    }

    /// Without a ScheduleAnyway constraint (the pod's or the system
    /// defaults') every node scores 0.
    #[inline]
    pub(in crate::scheduler) fn spread_uniform(
        &self,
        b: &Batch,
        _soft_taints: bool,
    ) -> Option<i64> {
        b.soft.is_empty().then_some(0)
    }

    /// PreScore's Skip: no ScheduleAnyway constraint of the pod's own nor
    /// a system default one (scoring.go).
    pub(in crate::scheduler) fn spread_prescore_skips(
        &self,
        b: &Batch,
        _profile: &Profile,
    ) -> bool {
        b.soft.is_empty()
    }
}
