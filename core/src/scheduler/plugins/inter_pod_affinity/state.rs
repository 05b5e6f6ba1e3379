//! InterPodAffinity's per-batch facts: whether its filter's verdicts move
//! node by node while the batch runs, and whether the template's own terms
//! match its own pods.

use crate::scheduler::*;

impl Cluster {
    /// Whether InterPodAffinity's filter for `rev` gives each node a
    /// verdict that only the node's own binds move while its batch runs.
    /// Only the batch's pods bind then, and they change the counts of the
    /// terms they match and of the anti-affinity terms they carry: every
    /// other count the filter reads stays put. So the anti-affinity terms
    /// the batch's pods both carry and match must be keyed by hostname (a
    /// domain per node: a bind moves its own node's verdict alone), and its
    /// required affinity terms must not match its own pods (the first pod
    /// of a group passes anywhere, and its bind closes every other domain).
    pub(in crate::scheduler) fn inter_pod_node_local(&self, rev: &Revision) -> bool {
        let own = |t: &u32| rev.matching_terms.contains(t);
        // A hostname domain is one node only while every node has a
        // hostname of its own.
        let by_hostname = |t: u32| {
            self.hostname_is_node()
                && self.topologies[self.terms[t as usize].topo as usize].key == HOSTNAME_KEY
        };
        !rev.affinity_ids.iter().any(own)
            && rev
                .anti_ids
                .iter()
                .filter(|t| own(t))
                .all(|&t| by_hostname(t))
    }

    /// Whether the template's own terms match its labels, so that binding
    /// its pods changes the InterPodAffinity scores of the next ones.
    /// (Required anti-affinity filters but is not scored, so it does not count.)
    pub(in crate::scheduler) fn template_carries_self_terms(&self, rev: &Revision) -> bool {
        rev.carries_terms()
            && rev.matching_terms.iter().any(|t| {
                rev.affinity_ids.contains(t)
                    || rev.preferred_ids.iter().any(|(p, _)| p == t)
                    || rev.preferred_anti_ids.iter().any(|(p, _)| p == t)
            })
    }
}
