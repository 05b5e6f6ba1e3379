//! Why a pod went where it went: every node's filter verdict and each
//! score plugin's raw, normalised and weighted score, as the plain cycle
//! computes them (no fast path involved).

use crate::scheduler::*;

impl Cluster {
    /// For one pod, every node's filter verdict with its plugin and reason,
    /// and for feasible nodes each score plugin's raw, normalised and
    /// weighted score, the total and the position, as the profile's cycle
    /// would compute them now over every node. A bound pod is explained as if
    /// it were being placed again, its own requests and counts taken off its
    /// node. Costs nothing unless called.
    pub fn explain<'p>(
        &self,
        pod: &str,
        profile: impl Into<Cow<'p, Profile>>,
    ) -> Result<Explanation, crate::Error> {
        self.explain_among(pod, profile.into().as_ref(), None)
    }

    /// The cycle that is binding `pod` as of that bind: called by an
    /// observer right after the bind ([`Cluster::reconcile_to_fixed_point_observed`]),
    /// so the cluster is as the cycle saw it but for this pod, which is
    /// taken off its node again. The filters run over every node; the
    /// scores over the nodes the cycle scored (`cycle`, its sample under
    /// percentageOfNodesToScore: normalisation is over that set, as in
    /// kube-scheduler), or over every feasible node when the cycle kept no
    /// list (a profile whose ties go to the lowest node id, or a pod
    /// pinned to one node).
    pub fn explain_decision(
        &self,
        pod: &str,
        profile: &Profile,
        cycle: &CycleRecord,
    ) -> Result<Explanation, crate::Error> {
        // A nominated node is the only one the cycle scored (none, in
        // fact: it is taken once it passes).
        let chosen_only = cycle.chosen.map(|n| [n]);
        let scored = match (&chosen_only, cycle.nominated) {
            (Some(one), true) => Some(&one[..]),
            _ => (!cycle.scored.is_empty()).then_some(cycle.scored.as_slice()),
        };
        let mut e = self.explain_among(pod, profile, scored)?;
        let chosen = cycle
            .chosen
            .map(|n| self.nodes[n.0 as usize].spec.name.clone())
            .unwrap_or_default();
        let best: Vec<&str> = e
            .nodes
            .iter()
            .filter(|v| v.position == Some(1))
            .map(|v| v.node.as_str())
            .collect();
        let sample = match scored {
            Some(s) if s.len() < e.nodes.iter().filter(|v| v.feasible).count() => format!(
                "; it scored {} of the feasible nodes (percentageOfNodesToScore), starting at {}",
                s.len(),
                self.nodes
                    .get(cycle.start as usize)
                    .map_or("the first node", |n| n.spec.name.as_str())
            ),
            _ => String::new(),
        };
        let feasible = e.nodes.iter().filter(|v| v.feasible).count();
        e.summary = match best.len() {
            _ if cycle.nominated => format!(
                "{pod} was bound to {chosen}, its nominated node (status.nominatedNodeName, where preemption made room for it): the scheduler tries that node first and takes it when it passes every filter, without scoring the others"
            ),
            _ if feasible == 1 => format!(
                "{pod} was bound to {chosen}, the only node that passed every filter (kube-scheduler takes a lone feasible node without scoring)"
            ),
            0 => format!("{pod} was bound to {chosen} by this cycle{sample}"),
            1 => format!("{pod} was bound to {chosen}, which had the best total{sample}"),
            n => match profile.tie_break {
                TieBreak::Random => format!(
                    "{pod} was bound to {chosen}: {n} nodes shared the best total ({}), and the scheduler picked one at random{sample}",
                    best.join(", ")
                ),
                TieBreak::LowestNodeId => format!(
                    "{pod} was bound to {chosen}: {n} nodes shared the best total, and the profile gives ties to the lowest node id{sample}"
                ),
            },
        };
        if let Some(pre) = &e.preemption {
            e.summary.push_str(&pre.summary(false));
        }
        e.bound_to = Some(chosen);
        Ok(e)
    }

    /// `explain`, scoring only the feasible nodes among `scored` when it
    /// is given.
    pub(in crate::scheduler) fn explain_among(
        &self,
        pod: &str,
        profile: &Profile,
        scored: Option<&[NodeId]>,
    ) -> Result<Explanation, crate::Error> {
        let k = self.pod_key(pod)?;
        let mut work = self.clone();
        let p = work.pod(k).clone();
        // Named by its own name, also when looked up by its short form
        // (`web-0`), as the decision of its bind names it.
        let own = self.pod_name(p.controller, p.ordinal);
        let pod = own.as_str();
        if p.node().is_some() {
            work.unbind(k);
        }
        let mut b = work.new_batch(p.controller, p.revision, profile);
        let mut verdicts = Vec::new();
        let mut feasible = Vec::new();
        for i in 0..work.nodes.len() {
            if work.nodes[i].removed {
                continue;
            }
            let n = NodeId(i as u32);
            let r = work.filter_node(n, &mut b, profile);
            if r.is_ok() {
                feasible.push(i as u32);
            }
            verdicts.push(NodeVerdict::filtered(work.nodes[i].spec.name.clone(), &r));
        }
        if let Some(set) = scored {
            // By node slot: a sample of hundreds over thousands of nodes.
            let mut in_set = alloc::vec![false; work.nodes.len()];
            for n in set {
                in_set[n.0 as usize] = true;
            }
            feasible.retain(|&i| in_set[i as usize]);
        }
        let mut detail = Vec::new();
        work.score_feasible(&mut b, &feasible, profile, Some(&mut detail));
        let skipped: Vec<&'static str> = if feasible.is_empty() {
            Vec::new()
        } else {
            (work.prescore_skips(&b, profile).iter())
                .map(|p| p.name())
                .collect()
        };
        // verdicts are in node order over live nodes; map feasible ids to rows.
        let row_of: BTreeMap<u32, usize> = work
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.removed)
            .enumerate()
            .map(|(row, (i, _))| (i as u32, row))
            .collect();
        for (j, &i) in feasible.iter().enumerate() {
            let v = &mut verdicts[row_of[&i]];
            v.scores = core::mem::take(&mut detail[j]);
            v.total = Some(b.totals[j]);
        }
        let mut order: Vec<usize> = (0..verdicts.len())
            .filter(|&r| verdicts[r].total.is_some())
            .collect();
        order.sort_by(|&x, &y| verdicts[y].total.cmp(&verdicts[x].total).then(x.cmp(&y)));
        let mut pos = 0;
        let mut last = None;
        for (rank, &r) in order.iter().enumerate() {
            if verdicts[r].total != last {
                pos = rank as u32 + 1;
                last = verdicts[r].total;
            }
            verdicts[r].position = Some(pos);
        }
        let decided_by = match (order.first(), order.get(1)) {
            (Some(&w), Some(&r)) => {
                let (a, z) = (&verdicts[w].scores, &verdicts[r].scores);
                a.iter()
                    .zip(z)
                    .map(|(x, y)| (x.plugin, x.weighted - y.weighted))
                    .filter(|(_, d)| *d > 0)
                    .max_by_key(|&(_, d)| d)
                    .map(|(p, d)| (p.to_string(), d))
            }
            _ => None,
        };
        let best = order.first().map(|&r| verdicts[r].node.clone());
        let ties = order
            .iter()
            .filter(|&&r| verdicts[r].position == Some(1))
            .count();
        let sampling = profile.feasible_nodes_to_find(b.live_nodes) < b.live_nodes;
        let mut summary = match (p.node(), &best) {
            (Some(n), _) => format!(
                "{pod} is bound to {}; the scores below are as if it were placed again now",
                self.nodes[n.0 as usize].spec.name
            ),
            (None, Some(best)) if ties > 1 => match profile.tie_break {
                TieBreak::Random => format!(
                    "{pod} is Pending; {ties} nodes share the best total ({best} first), and the scheduler picks one of them at random"
                ),
                TieBreak::LowestNodeId => format!(
                    "{pod} is Pending; {ties} nodes share the best total, and the profile gives ties to the lowest node id: {best}"
                ),
            },
            (None, Some(best)) => format!("{pod} is Pending; {best} has the best total"),
            (None, None) => work.failure_message_for(&mut b, profile),
        };
        if sampling && best.is_some() {
            summary.push_str(&format!(
                " (every node is scored here; with percentageOfNodesToScore the scheduler scores the first {} feasible nodes from where its last cycle stopped)",
                profile.feasible_nodes_to_find(b.live_nodes)
            ));
        }
        // A bare Pod with spec.nodeName is its kubelet's: say what became of
        // it (and preemption, the scheduler's, is not for it).
        let mut by_node_name = false;
        if let crate::cluster::Workload::Pod(bare) =
            &self.controllers[p.controller.0 as usize].workload
        {
            if let Some(node) = &bare.node_name {
                by_node_name = true;
                summary = match (&bare.failed, p.node()) {
                    (Some((reason, message)), _) => format!(
                        "{pod} is Failed ({}): spec.nodeName {node}, whose kubelet refused it: {message}; the scheduler never considers it (the verdicts below are the scheduler's, for comparison)",
                        reason.as_str()
                    ),
                    (None, Some(n)) if !self.nodes[n.0 as usize].ready => format!(
                        "{pod} is bound to {node} by spec.nodeName, whose kubelet is silent (NotReady): nothing started it{}",
                        match p.taint_deadline() {
                            Some(t) => format!(", and the taint-eviction controller deletes it at tick {t}, when its tolerationSeconds for the unreachable taint have passed"),
                            None => String::new(),
                        }
                    ),
                    (None, Some(_)) => format!(
                        "{pod} is bound to {node} by spec.nodeName: its kubelet admitted it without the scheduler (the scores below are as if the scheduler placed it now)"
                    ),
                    (None, None) => format!(
                        "{pod} is Pending: {}",
                        self.controllers[p.controller.0 as usize]
                            .failure
                            .get(&p.revision)
                            .map_or_else(|| format!("spec.nodeName {node} names no node"), |(_, m, _)| m.clone())
                    ),
                };
            }
        }
        let preemption = if by_node_name {
            None
        } else {
            self.explain_preemption(pod, &p, best.is_none(), profile)
        };
        if let Some(pre) = &preemption {
            summary.push_str(&pre.summary(p.node().is_none()));
        }
        Ok(Explanation {
            pod: pod.to_string(),
            phase: p.phase.as_str(),
            bound_to: p.node().map(|n| self.nodes[n.0 as usize].spec.name.clone()),
            requests: p_requests(self, &p),
            profile: profile.scheduler_name.clone(),
            summary,
            decided_by,
            skipped,
            nodes: verdicts,
            priority: p.priority,
            preemption,
        })
    }
}

impl Cluster {
    /// Every filter of `profile` for the pending pod `pod` on each of
    /// `nodes`, as a cycle runs them: the batch's PreFilter state over the
    /// whole cluster (spread counts, inter-pod terms, host ports), then
    /// Filter on each node. One verdict per node, nothing scored. Cluster
    /// Autoscaler's template-node check (`CheckPredicates` of the sample
    /// pod on a snapshot holding the template node,
    /// core/scaleup/orchestrator/orchestrator.go, `SchedulablePodGroups`)
    /// calls it on a copy of the cluster that holds the template node.
    pub fn filter_verdicts(
        &mut self,
        pod: &str,
        nodes: &[NodeId],
        profile: &Profile,
    ) -> Result<Vec<NodeVerdict>, crate::Error> {
        let k = self.pod_key(pod)?;
        let p = self.pod(k).clone();
        if p.node().is_some() {
            return Err(crate::Error::Invalid(format!(
                "pod {pod} is bound; expected a Pending pod to filter"
            )));
        }
        let mut b = self.new_batch(p.controller, p.revision, profile);
        let mut out = Vec::with_capacity(nodes.len());
        for &n in nodes {
            let Some(node) = self.nodes.get(n.0 as usize).filter(|s| !s.removed) else {
                continue;
            };
            let name = node.spec.name.clone();
            let r = self.filter_node(n, &mut b, profile);
            out.push(NodeVerdict::filtered(name, &r));
        }
        self.end_batch(b);
        Ok(out)
    }
}
