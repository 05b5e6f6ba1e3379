//! PodTopologySpread's per-batch state (its PreFilter and PreScore, shared
//! by the identical pods of one batch): the constraints with the system
//! defaults, the nodes that count under the inclusion policies, each
//! topology's domains and the pods matching per domain; and its update when
//! one of the batch's pods binds (`spread_bound`).

use crate::scheduler::*;

/// Which pods a spread constraint counts.
#[derive(Clone, Debug)]
pub(in crate::scheduler) enum SpreadSelector {
    /// The system default constraints of a Deployment's pod when its
    /// ReplicaSet's selector (the Deployment's plus pod-template-hash),
    /// narrowed by the Services that select the pod, selects the pods of
    /// its own revision alone (`default_spread_selector`).
    SameRevision,
    /// The same when it selects pods of other revisions too (a Deployment
    /// with the same labels and template, or a pod that carries its
    /// pod-template-hash): their pods, revision by revision (the batch's
    /// own among them).
    Revisions(Vec<(ControllerId, u32)>),
    /// An explicit labelSelector, or the Services' selectors for a pod no
    /// ReplicaSet owns, counted node by node through an interned term
    /// (`cluster::per_node_term`).
    Term(u32),
}

/// A spread constraint as `init_spread` gathers it, before its counts.
pub(in crate::scheduler) struct SpreadEntry {
    pub(in crate::scheduler) max_skew: i64,
    pub(in crate::scheduler) key: String,
    pub(in crate::scheduler) sel: SpreadSelector,
    pub(in crate::scheduler) self_match: bool,
    pub(in crate::scheduler) min_domains: u32,
    pub(in crate::scheduler) inclusion: Option<cache::InclusionKey>,
}

/// One topology spread constraint of a batch, with its counts.
#[derive(Clone, Debug)]
pub(in crate::scheduler) struct Spread {
    pub(in crate::scheduler) max_skew: i64,
    pub(in crate::scheduler) min_domains: u32,
    /// The topology index, `None` for the hostname key (a node is its own domain).
    pub(in crate::scheduler) topo: Option<u32>,
    /// Which of the batch's inclusion vectors (`Batch::inclusions`) says
    /// which nodes count for it; `None`: every live node.
    pub(in crate::scheduler) inclusion: Option<u8>,
    pub(in crate::scheduler) self_match: bool,
    /// Matching pods on each node, by node id (empty for the system
    /// defaults' zone constraint: only its domains' counts are read).
    pub(in crate::scheduler) per_node: Vec<u32>,
    /// Matching pods per domain over the eligible nodes, by domain.
    pub(in crate::scheduler) per_domain: Vec<i64>,
    /// Eligible nodes per domain (a domain exists while this is above 0).
    pub(in crate::scheduler) domain_nodes: Vec<u32>,
    /// Domains with at least one eligible node.
    pub(in crate::scheduler) domains: u32,
    /// Count of present domains at each matching count: its first key is the
    /// global minimum (filter side only).
    pub(in crate::scheduler) counts: BTreeMap<i64, u32>,
}

impl Spread {
    /// The global minimum a hard constraint's skew is measured from: 0
    /// while fewer domains than minDomains exist (PodTopologySpread).
    pub(in crate::scheduler) fn min_match(&self) -> i64 {
        if self.domains < self.min_domains {
            0
        } else {
            self.counts.keys().next().copied().unwrap_or(0)
        }
    }
}

impl Cluster {
    /// kube-scheduler's DefaultSelector (helper/spread.go), which the system
    /// default constraints count pods by (`buildDefaultConstraints` in
    /// podtopologyspread/common.go): the union of the selectors of the
    /// Services that select the pod, narrowed by the selector of the
    /// ReplicaSet, StatefulSet or ReplicationController that owns it.
    /// `None` when it is empty: then PreScore returns Skip and the plugin
    /// scores nothing. Here a Deployment's pod is owned by its revision's
    /// ReplicaSet, whose selector is the Deployment's (its template's
    /// labels) plus pod-template-hash, so pods of its other revisions are
    /// not counted; a DaemonSet's pod (owned by the DaemonSet, which the
    /// rule does not read) and a bare pod are selected through Services
    /// only. (Shepherd simulates StatefulSets and ReplicaSets as
    /// Deployments, and has no ReplicationControllers.) A Service selector
    /// asking for pod-template-hash itself is matched against the template's
    /// labels, which do not carry it.
    pub(in crate::scheduler) fn default_spread_selector(
        &mut self,
        c: ControllerId,
        rev_no: u32,
    ) -> Option<SpreadSelector> {
        let ctl = &self.controllers[c.0 as usize];
        let rev = &ctl.revisions[rev_no as usize - 1];
        let labels = &rev.template.labels;
        let services = || {
            (self.services.values())
                .map(|s| &s.spec.selector)
                .filter(|s| s.matches(labels))
        };
        if ctl.workload.kind() != crate::cluster::WorkloadKind::Deployment {
            services().next()?;
            let sel = crate::cluster::conjunction(services());
            return Some(SpreadSelector::Term(
                self.term_id(&crate::cluster::per_node_term(sel)),
            ));
        }
        // No two Deployment revisions share a hash and no pod carries one of
        // its own: the ReplicaSet selects its revision's pods alone.
        if self.hash_collisions == 0 && self.hash_labelled == 0 {
            return Some(SpreadSelector::SameRevision);
        }
        // Pods of other revisions the ReplicaSet's selector takes: a
        // revision of any owner whose labels hold this template's, with the
        // same pod-template-hash (a Deployment's revision) or carrying it as
        // a label (any other pod), and that every Service selecting this
        // pod selects too. Only revisions with pods can count any; they are
        // found among the revisions sharing this template's rarest label.
        let hash = &rev.hash;
        let pair = labels
            .iter()
            .filter(|(k, _)| !crate::namespace::is_reserved(k))
            .map(|(k, v)| crate::cluster::label_hash(k, v))
            .min_by_key(|p| self.revisions_by_label.get(p).map_or(0, Vec::len));
        let candidates = match &pair {
            Some(p) => self
                .revisions_by_label
                .get(p)
                .map_or(&[][..], Vec::as_slice),
            None => &self.all_revisions[..],
        };
        let mut others = Vec::new();
        for &(qc, qr) in candidates {
            let (q_ctl, q_no) = (&self.controllers[qc as usize], qr + 1);
            if (qc, q_no) == (c.0, rev_no) || q_ctl.count(q_no).pods == 0 {
                continue;
            }
            let q = &q_ctl.revisions[qr as usize].template.labels;
            let same_hash = if q_ctl.workload.kind() == crate::cluster::WorkloadKind::Deployment {
                &q_ctl.revisions[qr as usize].hash == hash
            } else {
                q.get(crate::model::POD_TEMPLATE_HASH) == Some(hash)
            };
            if same_hash
                && labels.iter().all(|(k, v)| q.get(k) == Some(v))
                && services().all(|s| s.matches(q))
            {
                others.push((ControllerId(qc), q_no));
            }
        }
        if others.is_empty() {
            return Some(SpreadSelector::SameRevision);
        }
        others.push((c, rev_no));
        Some(SpreadSelector::Revisions(others))
    }

    /// A spread constraint's inclusion: under `affinity` (nodeAffinityPolicy)
    /// Honor the template's nodeSelector and required node affinity, if it
    /// has any, decide; under `taints` (nodeTaintsPolicy) Honor the pod's
    /// tolerations do; `None` when every live node counts.
    pub(in crate::scheduler) fn inclusion_key(
        &self,
        rev: &Revision,
        affinity: NodeInclusionPolicy,
        taints: NodeInclusionPolicy,
    ) -> Option<cache::InclusionKey> {
        let tpl = &rev.template;
        let plain = tpl.node_selector.is_empty() && tpl.node_affinity.required.is_none();
        let key = cache::InclusionKey {
            affinity: (affinity == Honor && !plain).then(|| {
                (
                    tpl.node_selector.clone(),
                    tpl.node_affinity.required.clone(),
                )
            }),
            taints: (taints == Honor).then(|| {
                let mut all = tpl.tolerations.clone();
                all.extend(rev.added_tolerations.iter().cloned());
                all
            }),
        };
        (key.affinity.is_some() || key.taints.is_some()).then_some(key)
    }

    /// Whether live node `i` counts for a spread constraint with inclusion
    /// `key` (`matchNodeInclusionPolicies`): it matches the nodeSelector and
    /// required terms, and the pod tolerates every NoSchedule and NoExecute
    /// taint it has (helper.DoNotScheduleTaintsFilterFunc): its own, and
    /// those the node lifecycle controller keeps on a cordoned node
    /// (`node.kubernetes.io/unschedulable`) and on a node that is not Ready
    /// (`Cluster::condition_taints`).
    pub(in crate::scheduler) fn node_included(&self, i: usize, key: &cache::InclusionKey) -> bool {
        let node = &self.nodes[i];
        let s = &node.spec;
        if let Some((selector, required)) = &key.affinity {
            let admits = selector.iter().all(|(k, v)| s.labels.get(k) == Some(v))
                && required
                    .as_ref()
                    .is_none_or(|terms| terms.iter().any(|t| t.matches(&s.name, &s.labels)));
            if !admits {
                return false;
            }
        }
        if let Some(tolerations) = &key.taints {
            let untolerated = |t: &crate::model::Taint| {
                t.effect != crate::model::TaintEffect::PreferNoSchedule
                    && !tolerations.iter().any(|x| x.tolerates(t))
            };
            if s.taints.iter().any(untolerated) {
                return false;
            }
            if node.cordoned
                && untolerated(&crate::model::Taint::new(
                    node_unschedulable::UNSCHEDULABLE_TAINT_KEY,
                    "",
                    crate::model::TaintEffect::NoSchedule,
                ))
            {
                return false;
            }
            if self
                .condition_taints(NodeId(i as u32))
                .iter()
                .any(untolerated)
            {
                return false;
            }
        }
        true
    }

    /// Per node, whether it counts under inclusion `key` (0 for removed
    /// nodes). Kept between batches with the same key, per node spec stamp
    /// (a node's labels, taints, cordon and readiness change it, a bind
    /// does not), and whole per node epoch.
    pub(in crate::scheduler) fn inclusion_of(&mut self, key: &cache::InclusionKey) -> Vec<u8> {
        let n = self.nodes.len();
        let mut kept = self.caches.lend_inclusion(key);
        // The vector kept whole at this node epoch is this batch's: no node
        // was added, removed or changed since it was built.
        let whole = kept.epoch == Some(self.node_epoch) && kept.whole.len() == n;
        let out = if whole {
            let v = kept.whole.clone();
            debug_assert!(
                (0..n).all(|i| v[i] == (!self.hot[i].removed && self.node_included(i, key)) as u8),
                "an inclusion kept whole must equal a fresh one"
            );
            v
        } else {
            // With no node removed, no node's record is read to ask; the
            // stamps are read from their packed array (eight to a cache line).
            let none_removed = self.live_nodes as usize == self.nodes.len();
            let v: Vec<u8> = (0..n)
                .map(|i| {
                    if !none_removed && self.hot[i].removed {
                        return 0;
                    }
                    let stamp = self.spec_stamps[i];
                    if let Some(v) = kept.slots.get(i, stamp) {
                        debug_assert_eq!(
                            v,
                            self.node_included(i, key) as u8,
                            "a cached inclusion must equal a fresh one"
                        );
                        return v;
                    }
                    let v = self.node_included(i, key) as u8;
                    kept.slots.set(i, stamp, v);
                    v
                })
                .collect();
            kept.whole.clone_from(&v);
            kept.epoch = Some(self.node_epoch);
            v
        };
        self.caches.keep_inclusion(key.clone(), kept);
        out
    }

    /// Whether the batch's soft hostname constraint is the system
    /// defaults' and no live node carries the hostname label (nodes
    /// written by hand, without the kubelet's label). Kubernetes' Score
    /// adds a constraint's term only on a node that has its key, and with
    /// the system defaults it does not ignore nodes lacking one, so every
    /// node scores the zone term alone: the fast cycle's shape with a
    /// hostname term of 0.
    pub(in crate::scheduler) fn hostname_absent(&self, b: &Batch) -> bool {
        b.hostname_labels.is_some()
            && !b.soft_require_all
            && self.hostnames.missing == self.live_nodes
    }

    /// `Batch::hostname_labels` for soft constraints `soft`.
    pub(in crate::scheduler) fn hostname_labels(&mut self, soft: &[Spread]) -> Option<u32> {
        (self.hostnames.missing > 0 && soft.iter().any(|s| s.topo.is_none()))
            .then(|| self.topology_id(HOSTNAME_KEY))
    }

    pub(in crate::scheduler) fn init_spread(
        &mut self,
        b: &mut Batch,
        profile: &Profile,
        defaults: Option<SpreadSelector>,
    ) {
        let tpl = &b.rev.template;
        let hard_on = profile.filter_enabled(Plugin::PodTopologySpread);
        let soft_on = profile.weight(Plugin::PodTopologySpread).is_some();
        let mut hard = Vec::new();
        let mut soft = Vec::new();
        if tpl.topology_spread.is_empty() {
            // The system defaults (ScheduleAnyway only: they never filter),
            // for a pod a Service, ReplicaSet, StatefulSet or
            // ReplicationController selects (`default_spread_selector`).
            // Their inclusion policies are Kubernetes' defaults.
            if let Some(sel) = defaults {
                debug_assert!(soft_on && profile.system_default_spreading);
                let inclusion = self.inclusion_key(&b.rev, Honor, Ignore);
                for c in &spread::SYSTEM_DEFAULT_CONSTRAINTS {
                    soft.push(SpreadEntry {
                        max_skew: c.max_skew,
                        key: c.topology_key.to_string(),
                        sel: sel.clone(),
                        self_match: true,
                        min_domains: 0,
                        inclusion: inclusion.clone(),
                    });
                }
            }
        } else {
            for (c, &t) in tpl.topology_spread.iter().zip(&b.rev.spread_ids) {
                debug_assert_eq!(
                    Some(&t),
                    self.find_term(&crate::cluster::per_node_term(c.selector.clone()))
                        .as_ref(),
                    "a revision's spread terms are its constraints' selectors"
                );
                let self_match = c.selector.matches(&tpl.labels);
                let entry = SpreadEntry {
                    max_skew: c.max_skew as i64,
                    key: c.topology_key.clone(),
                    sel: SpreadSelector::Term(t),
                    self_match,
                    min_domains: c.min_domains.unwrap_or(0),
                    inclusion: self.inclusion_key(
                        &b.rev,
                        c.node_affinity_policy,
                        c.node_taints_policy,
                    ),
                };
                match c.when_unsatisfiable {
                    WhenUnsatisfiable::DoNotSchedule if hard_on => hard.push(entry),
                    WhenUnsatisfiable::ScheduleAnyway if soft_on => soft.push(entry),
                    _ => {}
                }
            }
        }
        if hard.is_empty() && soft.is_empty() {
            return;
        }
        let n = self.nodes.len();
        // The system defaults over a plain template (the common case): every
        // live node counts (nodeAffinityPolicy Honor admits all of them,
        // nodeTaintsPolicy Ignore) and the counts come from the revision's
        // own pods, so the batch costs O(its pods), not O(nodes), beyond
        // `per_node`.
        if hard.is_empty()
            && soft
                .iter()
                .all(|e| matches!(e.sel, SpreadSelector::SameRevision) && e.inclusion.is_none())
        {
            b.include_all = true;
            let topos: Vec<Option<u32>> = soft
                .iter()
                .map(|e| (e.key != HOSTNAME_KEY).then(|| self.topology_id(&e.key)))
                .collect();
            // Zeroed by the batch before (at the nodes it counted), not
            // allocated and zeroed over every node.
            let mut per_node = core::mem::take(&mut b.counts);
            if per_node.len() != n {
                per_node.clear();
                per_node.resize(n, 0);
            }
            debug_assert!(per_node.iter().all(|&c| c == 0));
            // The nodes holding the revision's pods, once per pod (room for
            // all of the controller's: growing it by doubling copied it
            // over and over at a Deployment of 15,000 pods).
            let mut holding = Vec::with_capacity(self.controllers[b.c.0 as usize].pods.len());
            for node in self.revision_nodes(b.c, b.rev_no) {
                per_node[node as usize] += 1;
                holding.push(node);
            }
            // Only hostname constraints read `per_node` (a zone constraint's
            // count is `per_domain`): the last one takes it, others copy.
            let mut hostnames = topos.iter().filter(|t| t.is_none()).count();
            for (e, topo) in soft.into_iter().zip(topos) {
                let (max_skew, self_match, min_domains) = (e.max_skew, e.self_match, e.min_domains);
                if topo.is_none() && hostnames == 1 {
                    b.recycled = Some(b.soft.len());
                }
                // Soft constraints read the zone's count and the node's own:
                // the hostname domain's count is `per_node`.
                let mut per_domain = Vec::new();
                if let Some(t) = topo {
                    per_domain = vec![0i64; self.topologies[t as usize].domains.len()];
                    for &i in &holding {
                        if !self.hot[i as usize].removed {
                            if let Some(d) = self.domain(t, NodeId(i)) {
                                per_domain[d as usize] += 1;
                            }
                        }
                    }
                }
                b.soft.push(Spread {
                    max_skew,
                    min_domains,
                    topo,
                    inclusion: None,
                    self_match,
                    per_node: match topo {
                        Some(_) => Vec::new(),
                        None => {
                            hostnames -= 1;
                            if hostnames == 0 {
                                core::mem::take(&mut per_node)
                            } else {
                                per_node.clone()
                            }
                        }
                    },
                    per_domain,
                    domain_nodes: Vec::new(),
                    domains: 0,
                    counts: BTreeMap::new(),
                });
            }
            debug_assert!(b.soft.first().is_some_and(|s| s.topo.is_none()));
            b.holding = Some(holding);
            b.hostname_labels = self.hostname_labels(&b.soft);
            return;
        }
        // Each distinct inclusion policy's vector: which nodes count.
        let mut keys: Vec<cache::InclusionKey> = Vec::new();
        for e in hard.iter().chain(&soft) {
            if let Some(k) = &e.inclusion {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        b.include_all = keys.is_empty();
        b.inclusions = keys.iter().map(|k| self.inclusion_of(k)).collect();
        let index_of = |e: &SpreadEntry| {
            (e.inclusion.as_ref()).map(|k| keys.iter().position(|x| x == k).unwrap_or(0) as u8)
        };
        let hard: Vec<(SpreadEntry, Option<u8>)> = hard
            .into_iter()
            .map(|e| (index_of(&e), e))
            .map(|(i, e)| (e, i))
            .collect();
        let soft: Vec<(SpreadEntry, Option<u8>)> = soft
            .into_iter()
            .map(|e| (index_of(&e), e))
            .map(|(i, e)| (e, i))
            .collect();
        // A hostname constraint's domain is the node (`topo` None) for the
        // score always (kube-scheduler counts a hostname constraint's pods
        // on the node itself), and for the filter while every node has a
        // hostname of its own; else the filter's domains are the label's
        // values, as any key's.
        let by_node = self.hostname_is_node();
        let build = |this: &mut Cluster, list: Vec<(SpreadEntry, Option<u8>)>, hard: bool| {
            let mut out = Vec::new();
            let topos: Vec<Option<u32>> = list
                .iter()
                .map(|(e, _)| {
                    (e.key != HOSTNAME_KEY || (hard && !by_node)).then(|| this.topology_id(&e.key))
                })
                .collect();
            for ((e, inclusion), topo) in list.into_iter().zip(topos) {
                let mut per_node = vec![0u32; n];
                match e.sel {
                    SpreadSelector::SameRevision => {
                        for node in this.revision_nodes(b.c, b.rev_no) {
                            per_node[node as usize] += 1;
                        }
                    }
                    SpreadSelector::Revisions(list) => {
                        for (c, r) in list {
                            for node in this.revision_nodes(c, r) {
                                per_node[node as usize] += 1;
                            }
                        }
                    }
                    SpreadSelector::Term(t) => {
                        // The term's own per-node counts (`matching_in`),
                        // its counted pages copied; the rest count 0.
                        this.terms[t as usize].matching.copy_into(&mut per_node);
                    }
                }
                out.push(Spread {
                    max_skew: e.max_skew,
                    min_domains: e.min_domains,
                    topo,
                    inclusion,
                    self_match: e.self_match,
                    per_node,
                    per_domain: Vec::new(),
                    domain_nodes: Vec::new(),
                    domains: 0,
                    counts: BTreeMap::new(),
                });
            }
            out
        };
        b.hard = build(self, hard, true);
        b.soft = build(self, soft, false);
        b.hostname_labels = self.hostname_labels(&b.soft);
        // Domain counts over the eligible nodes: those the policy includes
        // and that carry every key of their list. A soft hostname
        // constraint reads `per_node` alone (its domain is the node), so
        // it needs none. Which nodes are eligible, and their domains, read
        // only the nodes' labels and presence: kept between batches until a
        // node changes (`node_epoch`), so a batch reads only the nodes
        // holding its matching pods.
        let require_all_soft = b.soft_require_all;
        let epoch = self.node_epoch;
        for (hard, require_all) in [(true, true), (false, require_all_soft)] {
            let list = if hard { &mut b.hard } else { &mut b.soft };
            if list.is_empty() || (!hard && list.iter().all(|s| s.topo.is_none())) {
                continue;
            }
            let lkey = cache::LayoutKey {
                hostname_labels: if hard { None } else { b.hostname_labels },
                inclusion: list
                    .iter()
                    .map(|s| s.inclusion.map(|i| keys[i as usize].clone()))
                    .collect(),
                topos: list.iter().map(|s| s.topo).collect(),
                require_all,
                hard,
            };
            let vectors: Vec<Option<&[u8]>> = list
                .iter()
                .map(|s| s.inclusion.map(|i| b.inclusions[i as usize].as_slice()))
                .collect();
            let layout = match self.caches.lend_layout(&lkey, epoch) {
                Some(l) => {
                    debug_assert_eq!(
                        l,
                        self.domain_layout(&lkey, &vectors),
                        "a kept domain layout must equal a fresh one"
                    );
                    l
                }
                None => self.domain_layout(&lkey, &vectors),
            };
            for (j, s) in list.iter_mut().enumerate() {
                let dom = &layout.domain_of[j];
                if dom.is_empty() {
                    continue;
                }
                s.domain_nodes = layout.domain_nodes[j].clone();
                s.per_domain = vec![0i64; s.domain_nodes.len()];
                for (&c, &d) in s.per_node.iter().zip(dom) {
                    if c != 0 && d != cache::NOT_COUNTED {
                        s.per_domain[d as usize] += c as i64;
                    }
                }
            }
            self.caches.keep_layout(lkey, layout);
        }
        for s in b.hard.iter_mut().chain(b.soft.iter_mut()) {
            s.domains = s.domain_nodes.iter().filter(|&&c| c > 0).count() as u32;
        }
        for s in b.hard.iter_mut() {
            for (d, &nodes) in s.domain_nodes.iter().enumerate() {
                if nodes > 0 {
                    *s.counts.entry(s.per_domain[d]).or_default() += 1;
                }
            }
        }
    }

    /// Which nodes count for a list of spread constraints and their
    /// domains (`init_spread`'s eligible nodes): those `inclusion` admits
    /// (every live node without one) that carry every key of the list when
    /// it requires all, each in its domain per constraint (a hostname
    /// constraint's domain is the node; a soft one is not counted).
    pub(in crate::scheduler) fn domain_layout(
        &self,
        key: &cache::LayoutKey,
        inclusion: &[Option<&[u8]>],
    ) -> cache::DomainLayout {
        let n = self.nodes.len();
        let counted = |topo: &Option<u32>| key.hard || topo.is_some();
        let mut domain_of: Vec<Vec<u32>> = key
            .topos
            .iter()
            .map(|t| {
                if counted(t) {
                    vec![cache::NOT_COUNTED; n]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut domain_nodes: Vec<Vec<u32>> = alloc::vec![Vec::new(); key.topos.len()];
        for i in 0..n {
            if self.hot[i].removed {
                continue;
            }
            let node = NodeId(i as u32);
            // (A hostname constraint counted per node asks for the label
            // through `hostname_labels`.)
            if key.require_all
                && key.topos.iter().any(|t| {
                    t.or(key.hostname_labels)
                        .is_some_and(|t| self.domain(t, node).is_none())
                })
            {
                continue;
            }
            for (j, topo) in key.topos.iter().enumerate() {
                if !counted(topo) || inclusion[j].is_some_and(|v| v[i] != 1) {
                    continue;
                }
                let d = match topo {
                    None => Some(i as u32),
                    Some(t) => self.domain(*t, node),
                };
                if let Some(d) = d {
                    let nodes = &mut domain_nodes[j];
                    if nodes.len() <= d as usize {
                        nodes.resize(d as usize + 1, 0);
                    }
                    nodes[d as usize] += 1;
                    domain_of[j][i] = d;
                }
            }
        }
        cache::DomainLayout {
            epoch: self.node_epoch,
            domain_of,
            domain_nodes,
        }
    }

    /// The node of each bound pod of controller `c`'s revision `rev`, once
    /// per pod, from the packed places (not the pods' records).
    pub(in crate::scheduler) fn revision_nodes(
        &self,
        c: ControllerId,
        rev: u32,
    ) -> impl Iterator<Item = u32> + '_ {
        self.controllers[c.0 as usize]
            .pods
            .values()
            .filter_map(move |&k| match self.place(k) {
                (r, Some(node)) if r == rev => Some(node.0),
                _ => None,
            })
    }

    /// Updates a batch's spread counts after one of its pods bound to `n`.
    pub(in crate::scheduler) fn spread_bound(&self, b: &mut Batch, n: NodeId) {
        let i = n.0 as usize;
        let require_all_soft = b.soft_require_all;
        // The recycled count buffer notes the nodes it counts from 0.
        if let Some(j) = b.recycled {
            if b.soft[j].per_node.get(i) == Some(&0) {
                b.counted.push(i as u32);
            }
        }
        let inclusions = &b.inclusions;
        for (list, require_all, hard) in [
            (&mut b.hard, true, true),
            (&mut b.soft, require_all_soft, false),
        ] {
            let labels = if hard { None } else { b.hostname_labels };
            let has_keys = !self.hot[i].removed
                && (!require_all
                    || list.iter().all(|s| {
                        s.topo
                            .or(labels)
                            .is_none_or(|t| self.domain(t, n).is_some())
                    }));
            for s in list.iter_mut() {
                if !s.self_match {
                    continue;
                }
                // (Empty for a system default zone constraint, which reads
                // its domain's count alone.)
                if let Some(c) = s.per_node.get_mut(i) {
                    *c += 1;
                }
                let included = s
                    .inclusion
                    .is_none_or(|v| inclusions[v as usize].get(i).copied().unwrap_or(0) == 1);
                if !(has_keys && included) {
                    continue;
                }
                let d = match s.topo {
                    None => Some(n.0),
                    Some(t) => self.domain(t, n),
                };
                if let Some(d) = d {
                    // Soft hostname constraints read `per_node` alone.
                    if !hard && s.topo.is_none() {
                        continue;
                    }
                    let d = d as usize;
                    if s.per_domain.len() <= d {
                        s.per_domain.resize(d + 1, 0);
                    }
                    let old = s.per_domain[d];
                    s.per_domain[d] += 1;
                    if hard {
                        if let Some(c) = s.counts.get_mut(&old) {
                            *c -= 1;
                            if *c == 0 {
                                s.counts.remove(&old);
                            }
                        }
                        *s.counts.entry(old + 1).or_default() += 1;
                    }
                }
            }
        }
    }
}
