//! Independent verifiers. Each recomputes its property from the pods and
//! nodes as they are, never from the scheduler's books (allocated sums, domain
//! counts, per-owner counts), so a bug in the books cannot hide itself.
//!
//! Every function returns `Err` with a sentence naming the object and the
//! numbers when the property does not hold.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{Cluster, NodeId, PodPhase};
use crate::model::{AffinityTerm, NodeSpec, PodTemplate, Resources, TaintEffect};
use crate::views::{NodeView, PodView};

/// A property that does not hold, in words.
pub type Violation = String;

/// Requests of the bound pods of each node, summed from the pods themselves.
fn used_by_node(c: &Cluster) -> BTreeMap<NodeId, Resources> {
    let mut used: BTreeMap<NodeId, Resources> = BTreeMap::new();
    for p in c.pods() {
        if let Some(n) = p.node {
            let u = used.entry(n).or_default();
            u.cpu_millis += p.template.requests.cpu_millis;
            u.memory_bytes += p.template.requests.memory_bytes;
        }
    }
    used
}

/// The sum of requests bound to every node is within its capacity, and the
/// scheduler's own books agree with that sum (and its packed pod places with
/// the pods).
pub fn verify_capacity(c: &Cluster) -> Result<(), Violation> {
    let used = used_by_node(c);
    for (id, u) in &used {
        let n = c
            .node_by_id(*id)
            .ok_or_else(|| format!("pods are bound to node id {} which is not registered", id.0))?;
        if u.cpu_millis > n.spec.capacity.cpu_millis
            || u.memory_bytes > n.spec.capacity.memory_bytes
        {
            return Err(format!(
                "node {} is overcommitted: pods request {} but capacity is {}",
                n.name(),
                u,
                n.spec.capacity
            ));
        }
    }
    // Every scalar resource (extended, ephemeral-storage, hugepages-*),
    // summed from the pods, within the node's allocatable, and the books'
    // sums the same.
    let mut scalars: BTreeMap<NodeId, crate::model::scalar::Scalars> = BTreeMap::new();
    for p in c.pods() {
        if let (Some(n), false) = (p.node, p.template.scalar_requests.is_empty()) {
            scalars
                .entry(n)
                .or_default()
                .add(&p.template.scalar_requests);
        }
    }
    for (i, n) in c.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        let empty = crate::model::scalar::Scalars::new();
        let u = scalars.get(&id).unwrap_or(&empty);
        if let Some(over) = u.insufficient(&empty, &n.spec.scalars).next() {
            return Err(format!(
                "node {} is overcommitted: pods request {over} {} but allocatable is {}",
                n.spec.name,
                u.get(over),
                n.spec.scalars.get(over)
            ));
        }
        if c.scalars_requested(id) != u {
            return Err(format!(
                "node {}: the books count {:?} of scalar resources, the pods request {:?}",
                n.spec.name,
                c.scalars_requested(id),
                u
            ));
        }
    }
    // The packed places a batch counts its revision's pods from.
    for (k, p) in c.pods.iter().enumerate() {
        if let Some(p) = p {
            let want = crate::cluster::pack_place(p.revision, p.node());
            if c.places[k] != want {
                return Err(format!(
                    "pod key {k}: the scheduler's packed place is {:#x}, the pod's revision and node give {want:#x}",
                    c.places[k]
                ));
            }
        }
    }
    for n in c.nodes() {
        let u = used.get(&n.id).copied().unwrap_or_default();
        if u != n.allocated {
            return Err(format!(
                "node {}: the scheduler's books say {} allocated, the pods request {}",
                n.name(),
                n.allocated,
                u
            ));
        }
    }
    Ok(())
}

/// NodePorts, from the pods: no two pods on a node take conflicting host
/// ports (the same protocol and port, on the same address or either on
/// `0.0.0.0`), and the scheduler's book of each node's used ports holds
/// exactly what its pods take. O(pods with host ports, squared per node).
pub fn verify_host_ports(c: &Cluster) -> Result<(), Violation> {
    use crate::model::ports::HostPort;
    let mut on: BTreeMap<NodeId, Vec<(String, &HostPort)>> = BTreeMap::new();
    for p in c.pods() {
        if let (Some(n), false) = (p.node, p.template.host_ports.is_empty()) {
            let name = p.name();
            let list = on.entry(n).or_default();
            for h in &p.template.host_ports {
                list.push((name.clone(), h));
            }
        }
    }
    for (i, n) in c.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        let list = on.get(&id).map(Vec::as_slice).unwrap_or(&[]);
        for (j, (a, pa)) in list.iter().enumerate() {
            for (b, pb) in &list[..j] {
                let clash = pa.protocol == pb.protocol
                    && pa.port == pb.port
                    && (pa.host_ip == pb.host_ip
                        || pa.host_ip == crate::model::ports::BIND_ALL_HOST_IP
                        || pb.host_ip == crate::model::ports::BIND_ALL_HOST_IP);
                if a != b && clash {
                    return Err(format!(
                        "node {}: pods {b} and {a} both take host port {pb} / {pa}; expected each host port taken by one pod",
                        n.spec.name
                    ));
                }
            }
        }
        let mut want: Vec<(&HostPort, u32)> = Vec::new();
        for (_, h) in list {
            match want.iter_mut().find(|(q, _)| q == h) {
                Some((_, k)) => *k += 1,
                None => want.push((h, 1)),
            }
        }
        let mut have: Vec<(&HostPort, u32)> = c.used_ports(id).iter().collect();
        want.sort();
        have.sort();
        if want != have {
            return Err(format!(
                "node {}: the scheduler's books count host ports {have:?}, its pods take {want:?}",
                n.spec.name
            ));
        }
    }
    Ok(())
}

/// A node's domain for a topology key: its label's value (the hostname
/// key's too; a node without the label is in no domain).
fn topology_value<'a>(n: &'a NodeSpec, key: &str) -> Option<&'a str> {
    n.labels.get(key).map(|v| v.as_str())
}

fn node_of<'a>(c: &'a Cluster, p: &PodView<'_>) -> Result<NodeView<'a>, Violation> {
    let id = p
        .node
        .ok_or_else(|| format!("pod {} is not bound", p.name()))?;
    c.node_by_id(id).ok_or_else(|| {
        format!(
            "pod {} is bound to node id {} which is not registered",
            p.name(),
            id.0
        )
    })
}

/// The pods bound in the same topology domain as `node` for `term`, other
/// than `except`, whose labels match the term's selector.
fn matching_in_domain<'a>(
    c: &'a Cluster,
    node: &NodeSpec,
    term: &AffinityTerm,
    except: &str,
) -> Vec<PodView<'a>> {
    let Some(dom) = topology_value(node, &term.topology_key) else {
        return Vec::new();
    };
    c.pods()
        .filter(|q| {
            q.node.is_some()
                && q.name() != except
                && term.selector.matches(&q.template.labels)
                && c.node_by_id(q.node.unwrap())
                    .and_then(|n| topology_value(n.spec, &term.topology_key).map(|v| v == dom))
                    .unwrap_or(false)
        })
        .collect()
}

/// Whether `p` was bound to `n` before the node last re-registered with new
/// labels or taints: it was admitted under the old body, and rules of the
/// IgnoredDuringExecution kind (NoSchedule taints, pod anti-affinity) do not
/// apply to it retroactively.
fn admitted_under_old_body(p: &PodView<'_>, n: &NodeView<'_>) -> bool {
    p.bind_serial <= n.changed_at_bind
}

/// The node-level rules for a pod on a node: Ready, nodeSelector, taints.
/// With `at_bind`, every NoSchedule taint counts (the pod is being bound
/// now); otherwise a NoSchedule taint the node gained after the pod was bound
/// is allowed: only NoExecute evicts running pods, as in Kubernetes.
fn check_node_rules(p: &PodView<'_>, n: &NodeView<'_>, at_bind: bool) -> Result<(), Violation> {
    let t: &PodTemplate = p.template;
    if !n.ready {
        // A pod is never bound to a NotReady node. One bound before its node
        // went NotReady stays (not Ready) while it tolerates the node's
        // `unreachable:NoExecute` taint, with DefaultTolerationSeconds'
        // additions; one that does not was evicted at once.
        if at_bind {
            return Err(format!(
                "pod {} is bound to node {} which is NotReady",
                p.name(),
                n.name()
            ));
        }
        if p.ready {
            return Err(format!(
                "pod {} is Ready on node {} which is NotReady",
                p.name(),
                n.name()
            ));
        }
        let taint = crate::model::Taint::new(
            crate::controllers::tainteviction::TAINT_NODE_UNREACHABLE,
            "",
            TaintEffect::NoExecute,
        );
        let added = crate::controllers::tainteviction::default_tolerations(&t.tolerations);
        if !t
            .tolerations
            .iter()
            .chain(&added)
            .any(|tol| tol.tolerates(&taint))
        {
            return Err(format!(
                "pod {} stays on NotReady node {} without tolerating taint {}",
                p.name(),
                n.name(),
                taint
            ));
        }
    }
    let grandfathered = !at_bind && admitted_under_old_body(p, n);
    for (k, v) in &t.node_selector {
        if n.spec.labels.get(k) != Some(v) {
            return Err(format!(
                "pod {} on node {} breaks its nodeSelector {}={}",
                p.name(),
                n.name(),
                k,
                v
            ));
        }
    }
    // Required node affinity: any one term, every requirement of it.
    if !grandfathered
        && !t
            .node_affinity
            .required_matches(&n.spec.name, &n.spec.labels)
    {
        return Err(format!(
            "pod {} on node {} breaks its required node affinity",
            p.name(),
            n.name()
        ));
    }
    for taint in &n.spec.taints {
        let binding = match taint.effect {
            TaintEffect::NoExecute => true,
            // The kubelet admits a pod bound by nodeName whatever its
            // NoSchedule taints: only the scheduler reads them.
            TaintEffect::NoSchedule => !grandfathered && !p.by_node_name,
            TaintEffect::PreferNoSchedule => false,
        };
        if binding && !t.tolerations.iter().any(|tol| tol.tolerates(taint)) {
            return Err(format!(
                "pod {} on node {} does not tolerate taint {}",
                p.name(),
                n.name(),
                taint
            ));
        }
    }
    Ok(())
}

/// Anti-affinity, both ways, for one pod about to be (or just) bound: no
/// pod shares a domain with a pod its own terms exclude, nor with a pod
/// whose terms exclude it. Costs every pod; used per bind only.
fn check_anti_affinity(c: &Cluster, p: &PodView<'_>, n: &NodeView<'_>) -> Result<(), Violation> {
    let name = p.name();
    for term in &p.template.anti_affinity {
        if let Some(q) = matching_in_domain(c, n.spec, term, &name).first() {
            return Err(format!(
                "pod {} on node {} shares {} with {} which its anti-affinity excludes",
                name,
                n.name(),
                term.topology_key,
                q.name()
            ));
        }
    }
    for q in c.pods().filter(|q| q.node.is_some() && q.name() != name) {
        let qn = node_of(c, &q)?;
        for term in &q.template.anti_affinity {
            if !term.selector.matches(&p.template.labels) {
                continue;
            }
            let (a, b) = (
                topology_value(n.spec, &term.topology_key),
                topology_value(qn.spec, &term.topology_key),
            );
            if a.is_some() && a == b {
                return Err(format!(
                    "pod {} on node {} shares {} with {} whose anti-affinity excludes it",
                    name,
                    n.name(),
                    term.topology_key,
                    q.name()
                ));
            }
        }
    }
    Ok(())
}

/// One bound pod, as the whole-cluster checks see it.
struct Bound<'a> {
    pod: PodView<'a>,
    node: NodeView<'a>,
}

/// The bound pods, with their nodes, and for every distinct affinity or
/// anti-affinity term of any template: which templates (controller,
/// revision) its selector matches. Computed once per check, from the pods.
struct Index<'a> {
    bound: Vec<Bound<'a>>,
    terms: Vec<&'a AffinityTerm>,
    term_index: BTreeMap<&'a AffinityTerm, usize>,
    /// (controller, revision) -> the indexes of the terms matching its labels.
    matching: BTreeMap<(u32, u32), Vec<usize>>,
}

impl<'a> Index<'a> {
    fn of(c: &'a Cluster) -> Result<Index<'a>, Violation> {
        let mut bound = Vec::new();
        let mut templates: BTreeMap<(u32, u32), &'a PodTemplate> = BTreeMap::new();
        for p in c.pods() {
            templates.insert((p.controller.0, p.revision), p.template);
            if p.node.is_some() {
                let node = node_of(c, &p)?;
                bound.push(Bound { pod: p, node });
            }
        }
        let mut terms: Vec<&'a AffinityTerm> = Vec::new();
        let mut seen: BTreeMap<&'a AffinityTerm, usize> = BTreeMap::new();
        for t in templates.values() {
            for term in t.affinity.iter().chain(t.anti_affinity.iter()) {
                seen.entry(term).or_insert_with(|| {
                    terms.push(term);
                    terms.len() - 1
                });
            }
        }
        let matching = templates
            .iter()
            .map(|(&k, t)| {
                let m = (0..terms.len())
                    .filter(|&i| terms[i].selector.matches(&t.labels))
                    .collect();
                (k, m)
            })
            .collect();
        Ok(Index {
            bound,
            terms,
            term_index: seen,
            matching,
        })
    }

    fn term(&self, t: &AffinityTerm) -> Option<usize> {
        self.term_index.get(t).copied()
    }

    fn matches(&self, p: &PodView<'_>, term: usize) -> bool {
        self.matching
            .get(&(p.controller.0, p.revision))
            .is_some_and(|m| m.contains(&term))
    }

    /// Bound pods matching each term, per topology domain (indexes into `bound`).
    fn by_domain(&self) -> BTreeMap<(usize, &'a str), Vec<usize>> {
        let mut out: BTreeMap<(usize, &'a str), Vec<usize>> = BTreeMap::new();
        for (i, b) in self.bound.iter().enumerate() {
            let Some(m) = self.matching.get(&(b.pod.controller.0, b.pod.revision)) else {
                continue;
            };
            for &t in m {
                if let Some(d) = topology_value(b.node.spec, &self.terms[t].topology_key) {
                    out.entry((t, d)).or_default().push(i);
                }
            }
        }
        out
    }
}

/// Every bound pod is on a Ready node that matches its nodeSelector, whose
/// NoExecute taints it tolerates, and whose NoSchedule taints it tolerates
/// unless the node gained them after the pod was bound; and no two bound
/// pods break an anti-affinity rule, unless the node of one of them
/// re-registered with new labels or taints after both were bound (the
/// engine keeps such pods, as Kubernetes' IgnoredDuringExecution does; each
/// bind itself is checked by [`verify_bind`]). Affinity is required at
/// scheduling time and ignored during execution, as in Kubernetes.
///
/// Costs O(pods x terms), counting matching pods by domain (plus, after
/// re-registrations, the forgiven pairs it walks past).
pub fn verify_constraints(c: &Cluster) -> Result<(), Violation> {
    verify_namespaces(c)?;
    verify_host_ports(c)?;
    let ix = Index::of(c)?;
    for b in &ix.bound {
        check_node_rules(&b.pod, &b.node, false)?;
    }
    let domains = ix.by_domain();
    for b in &ix.bound {
        for term in &b.pod.template.anti_affinity {
            let Some(t) = ix.term(term) else { continue };
            let Some(d) = topology_value(b.node.spec, &term.topology_key) else {
                continue;
            };
            let Some(others) = domains.get(&(t, d)) else {
                continue;
            };
            for &j in others {
                let q = &ix.bound[j];
                if q.pod.controller == b.pod.controller && q.pod.ordinal == b.pod.ordinal {
                    continue;
                }
                let later = b.pod.bind_serial.max(q.pod.bind_serial);
                if b.node.changed_at_bind >= later || q.node.changed_at_bind >= later {
                    continue;
                }
                return Err(format!(
                    "pod {} on node {} shares {} with {} which its anti-affinity excludes",
                    b.pod.name(),
                    b.node.name(),
                    term.topology_key,
                    q.pod.name()
                ));
            }
        }
    }
    Ok(())
}

/// The namespace scoping every matcher relies on (`model/namespace.rs`), checked
/// from the pods: each pod carries its owner's namespace as the reserved
/// name label, and each of its terms reaches the namespaces Kubernetes'
/// PodAffinityTerm rule says: with neither `namespaces` nor
/// `namespaceSelector`, the pod's own; with a list alone, that list; with
/// `namespaceSelector: {}`, every namespace (no namespace requirement);
/// with a list and a labelled namespaceSelector, the list and every
/// Namespace that exists now whose labels the selector matches.
pub fn verify_namespaces(c: &Cluster) -> Result<(), Violation> {
    let name_key = format!(
        "{}{}",
        crate::model::namespace::RESERVED_PREFIX,
        crate::model::namespace::NAMESPACE_NAME_LABEL
    );
    // Each Namespace's labels as a namespaceSelector sees them.
    let namespaces: Vec<(String, crate::model::Labels)> = c
        .namespaces()
        .into_iter()
        .map(|n| (n.name.clone(), n.effective_labels()))
        .collect();
    for p in c.pods() {
        let ns = crate::model::namespace::split(p.app).0;
        let t = p.template;
        if t.labels.get(&name_key).map(String::as_str) != Some(ns) {
            return Err(format!(
                "pod {} of namespace {ns} carries the namespace label {:?}",
                p.name(),
                t.labels.get(&name_key)
            ));
        }
        let terms = t
            .affinity
            .iter()
            .chain(t.anti_affinity.iter())
            .chain(t.preferred_affinity.iter().map(|w| &w.term))
            .chain(t.preferred_anti_affinity.iter().map(|w| &w.term));
        for term in terms {
            let own = term.selector.match_labels.get(&name_key);
            let listed = term
                .selector
                .match_expressions
                .iter()
                .find(|r| r.key == name_key);
            let ok = match (&term.namespace_selector, term.namespaces.is_empty()) {
                (None, true) => own.map(String::as_str) == Some(ns) && listed.is_none(),
                (None, false) => {
                    own.is_none()
                        && listed.is_some_and(|r| {
                            r.operator == crate::model::SelectorOperator::In
                                && r.values == term.namespaces
                        })
                }
                (Some(sel), _) if sel.is_empty() => {
                    own.is_none()
                        && !term
                            .selector
                            .match_expressions
                            .iter()
                            .any(|r| crate::model::namespace::is_reserved(&r.key))
                }
                // A list and a labelled namespaceSelector: the union, over
                // the Namespaces that exist now.
                (Some(sel), false) => {
                    let mut want: Vec<String> = term.namespaces.clone();
                    want.extend(
                        namespaces
                            .iter()
                            .filter(|(_, l)| sel.matches(l))
                            .map(|(n, _)| n.clone()),
                    );
                    want.sort();
                    want.dedup();
                    own.is_none()
                        && listed.is_some_and(|r| {
                            r.operator == crate::model::SelectorOperator::In && r.values == want
                        })
                }
                // A namespaceSelector with labels alone: its requirements on
                // the Namespace's labels (checked by the pinned tests).
                (Some(_), true) => true,
            };
            if !ok {
                return Err(format!(
                    "pod {} of namespace {ns}: a term over {} (namespaces {:?}, namespaceSelector {:?}) reaches other namespaces than Kubernetes' rule gives",
                    p.name(),
                    term.selector,
                    term.namespaces,
                    term.namespace_selector
                ));
            }
        }
    }
    Ok(())
}

/// Everything a single bind must respect, checked right after it: capacity
/// of every node, the pod's node rules, affinity (some matching pod, perhaps
/// itself, in its domain) and anti-affinity both ways.
pub fn verify_bind(c: &Cluster, pod: &str) -> Result<(), Violation> {
    verify_capacity(c)?;
    verify_host_ports(c)?;
    let p = c.pod_by_name(pod).map_err(|e| format!("{e}"))?;
    let n = node_of(c, &p)?;
    check_node_rules(&p, &n, true)?;
    // Kubernetes counts an existing pod toward required affinity only when it
    // matches every term's selector, and only on nodes that carry the key.
    let terms = &p.template.affinity;
    let matches_all =
        |labels: &crate::model::Labels| terms.iter().all(|t| t.selector.matches(labels));
    let name = p.name();
    let first_of_group = matches_all(&p.template.labels)
        && !c.pods().any(|q| {
            q.node.is_some()
                && q.name() != name
                && matches_all(&q.template.labels)
                && q.node.and_then(|id| c.node_by_id(id)).is_some_and(|qn| {
                    terms
                        .iter()
                        .any(|t| topology_value(qn.spec, &t.topology_key).is_some())
                })
        });
    for term in terms {
        let here = matching_in_domain(c, n.spec, term, &name)
            .iter()
            .any(|q| matches_all(&q.template.labels));
        let ok = topology_value(n.spec, &term.topology_key).is_some() && (here || first_of_group);
        if !ok {
            return Err(format!(
                "pod {} on node {} breaks its affinity: no pod matching {} in its {}",
                p.name(),
                n.name(),
                term.selector,
                term.topology_key
            ));
        }
    }
    check_anti_affinity(c, &p, &n)
}

/// Whether a pod of template `t` could be bound to `n` now, judged from
/// the pods: resources, node rules, affinity (a matching pod in the domain,
/// or the first of a self-matching group when no matching pod is bound
/// anywhere) and anti-affinity both ways, from per-domain counts.
struct Feasibility<'a> {
    ix: Index<'a>,
    used: BTreeMap<NodeId, Resources>,
    /// Scalar requests (extended, ephemeral-storage, hugepages-*) bound
    /// per node, summed from the pods.
    scalars: BTreeMap<NodeId, crate::model::scalar::Scalars>,
    /// Bound pods matching each term, per domain, and anywhere.
    matching: BTreeMap<(usize, &'a str), u32>,
    matching_total: Vec<u32>,
    /// Bound pods per node, counted from the pods.
    pods_on: BTreeMap<NodeId, u32>,
    /// Bound pods carrying each term as anti-affinity, per domain.
    owners: BTreeMap<(usize, &'a str), u32>,
}

impl<'a> Feasibility<'a> {
    fn of(c: &'a Cluster) -> Result<Feasibility<'a>, Violation> {
        let ix = Index::of(c)?;
        let mut matching = BTreeMap::new();
        let mut matching_total = alloc::vec![0u32; ix.terms.len()];
        let mut owners = BTreeMap::new();
        for ((t, d), pods) in ix.by_domain() {
            *matching.entry((t, d)).or_insert(0) += pods.len() as u32;
        }
        for b in &ix.bound {
            if let Some(m) = ix.matching.get(&(b.pod.controller.0, b.pod.revision)) {
                for &t in m {
                    // Only pods on nodes that carry the key count.
                    if topology_value(b.node.spec, &ix.terms[t].topology_key).is_some() {
                        matching_total[t] += 1;
                    }
                }
            }
            for term in &b.pod.template.anti_affinity {
                let Some(t) = ix.term(term) else { continue };
                if let Some(d) = topology_value(b.node.spec, &term.topology_key) {
                    *owners.entry((t, d)).or_insert(0) += 1;
                }
            }
        }
        let mut pods_on = BTreeMap::new();
        let mut scalars: BTreeMap<NodeId, crate::model::scalar::Scalars> = BTreeMap::new();
        for p in c.pods() {
            if let Some(n) = p.node {
                *pods_on.entry(n).or_insert(0u32) += 1;
                if !p.template.scalar_requests.is_empty() {
                    scalars
                        .entry(n)
                        .or_default()
                        .add(&p.template.scalar_requests);
                }
            }
        }
        Ok(Feasibility {
            ix,
            pods_on,
            scalars,
            used: used_by_node(c),
            matching,
            matching_total,
            owners,
        })
    }

    fn feasible(&self, c: &Cluster, p: &PodView<'_>, n: &NodeView<'_>) -> bool {
        let unschedulable = crate::model::Taint::new(
            crate::scheduler::plugins::node_unschedulable::UNSCHEDULABLE_TAINT_KEY,
            "",
            TaintEffect::NoSchedule,
        );
        if !n.ready || (n.cordoned && !p.template.tolerates(&unschedulable)) {
            return false;
        }
        if self.pods_on.get(&n.id).copied().unwrap_or(0) >= n.spec.max_pods {
            return false;
        }
        if !spread_allows(c, p, n) {
            return false;
        }
        if p.template.affinity.len() > 1 {
            // A conjunction of terms: judged the slow way, pod by pod.
            return self.feasible_without_affinity(p, n) && affinity_allows(c, p, n);
        }
        self.feasible_without_affinity(p, n) && self.single_affinity_allows(p, n)
    }

    fn single_affinity_allows(&self, p: &PodView<'_>, n: &NodeView<'_>) -> bool {
        let count = |map: &BTreeMap<(usize, &str), u32>, t: usize, key: &str| {
            topology_value(n.spec, key)
                .and_then(|d| map.get(&(t, d)).copied())
                .unwrap_or(0)
        };
        for term in &p.template.affinity {
            let Some(t) = self.ix.term(term) else {
                return false;
            };
            let here = count(&self.matching, t, &term.topology_key) > 0;
            let first = self.ix.matches(p, t)
                && topology_value(n.spec, &term.topology_key).is_some()
                && self.matching_total[t] == 0;
            if !here && !first {
                return false;
            }
        }
        true
    }

    fn feasible_without_affinity(&self, p: &PodView<'_>, n: &NodeView<'_>) -> bool {
        let u = self.used.get(&n.id).copied().unwrap_or_default();
        let req = p.template.requests;
        if u.cpu_millis.saturating_add(req.cpu_millis) > n.spec.capacity.cpu_millis
            || u.memory_bytes.saturating_add(req.memory_bytes) > n.spec.capacity.memory_bytes
        {
            return false;
        }
        if !p.template.scalar_requests.is_empty() {
            let none = crate::model::scalar::Scalars::new();
            let used = self.scalars.get(&n.id).unwrap_or(&none);
            if !p.template.scalar_requests.fits(used, &n.spec.scalars) {
                return false;
            }
        }
        if check_node_rules(p, n, true).is_err() {
            return false;
        }
        let count = |map: &BTreeMap<(usize, &str), u32>, t: usize, key: &str| {
            topology_value(n.spec, key)
                .and_then(|d| map.get(&(t, d)).copied())
                .unwrap_or(0)
        };
        for term in &p.template.anti_affinity {
            if let Some(t) = self.ix.term(term) {
                if count(&self.matching, t, &term.topology_key) > 0 {
                    return false;
                }
            }
        }
        // Terms of bound pods that exclude this pod.
        if let Some(m) = self.ix.matching.get(&(p.controller.0, p.revision)) {
            for &t in m {
                if count(&self.owners, t, &self.ix.terms[t].topology_key) > 0 {
                    return false;
                }
            }
        }
        true
    }
}

/// Required affinity with several terms, from the pods: a pod counts only if
/// it matches every term, and only on nodes that carry the term's key.
fn affinity_allows(c: &Cluster, p: &PodView<'_>, n: &NodeView<'_>) -> bool {
    let terms = &p.template.affinity;
    let all = |l: &crate::model::Labels| terms.iter().all(|t| t.selector.matches(l));
    let name = p.name();
    let bound: Vec<(PodView<'_>, NodeView<'_>)> = c
        .pods()
        .filter(|q| q.name() != name && all(&q.template.labels))
        .filter_map(|q| {
            let node = c.node_by_id(q.node?)?;
            Some((q, node))
        })
        .collect();
    let first = all(&p.template.labels)
        && !bound.iter().any(|(_, qn)| {
            terms
                .iter()
                .any(|t| topology_value(qn.spec, &t.topology_key).is_some())
        });
    terms
        .iter()
        .all(|t| match topology_value(n.spec, &t.topology_key) {
            None => false,
            Some(d) => {
                first
                    || bound
                        .iter()
                        .any(|(_, qn)| topology_value(qn.spec, &t.topology_key) == Some(d))
            }
        })
}

/// PodTopologySpread's DoNotSchedule constraints, from the pods: matching
/// pods per domain over the nodes that carry every such key and that the
/// constraint's inclusion policies admit (nodeAffinityPolicy Honor: the
/// pod's nodeSelector and node affinity; nodeTaintsPolicy Honor: its
/// tolerations, against the node's NoSchedule and NoExecute taints, a
/// cordoned node's unschedulable taint and a not Ready node's unreachable
/// one); the node's domain count, plus one if the pod matches itself, minus
/// the smallest domain count (0 below minDomains) may not exceed maxSkew.
fn spread_allows(c: &Cluster, p: &PodView<'_>, n: &NodeView<'_>) -> bool {
    let hard: Vec<_> = p
        .template
        .topology_spread
        .iter()
        .filter(|s| s.when_unsatisfiable == crate::model::WhenUnsatisfiable::DoNotSchedule)
        .collect();
    if hard.is_empty() {
        return true;
    }
    let t = p.template;
    let has_keys = |m: &NodeView<'_>| {
        hard.iter()
            .all(|s| topology_value(m.spec, &s.topology_key).is_some())
    };
    let admitted = |m: &NodeView<'_>, s: &crate::model::TopologySpreadConstraint| {
        use crate::model::{NodeInclusionPolicy::Honor, Taint};
        let affinity = s.node_affinity_policy != Honor
            || (t
                .node_selector
                .iter()
                .all(|(k, v)| m.spec.labels.get(k) == Some(v))
                && t.node_affinity
                    .required_matches(&m.spec.name, &m.spec.labels));
        let mut taints: Vec<Taint> = m.spec.taints.clone();
        if m.cordoned {
            taints.push(Taint::new(
                crate::scheduler::plugins::node_unschedulable::UNSCHEDULABLE_TAINT_KEY,
                "",
                TaintEffect::NoSchedule,
            ));
        }
        taints.extend(c.condition_taints(m.id));
        let tolerated = |x: &Taint| {
            x.effect == TaintEffect::PreferNoSchedule
                || t.tolerations.iter().any(|tol| tol.tolerates(x))
                || crate::controllers::tainteviction::default_tolerations(&t.tolerations)
                    .iter()
                    .any(|tol| tol.tolerates(x))
        };
        affinity && (s.node_taints_policy != Honor || taints.iter().all(tolerated))
    };
    for s in &hard {
        let eligible = |m: &NodeView<'_>| has_keys(m) && admitted(m, s);
        let Some(mine) = topology_value(n.spec, &s.topology_key) else {
            return false;
        };
        let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
        for m in c.nodes().filter(|m| eligible(m)) {
            if let Some(d) = topology_value(m.spec, &s.topology_key) {
                counts.entry(d).or_insert(0);
            }
        }
        for q in c.pods() {
            let Some(qn) = q.node.and_then(|id| c.node_by_id(id)) else {
                continue;
            };
            if !eligible(&qn) || !s.selector.matches(&q.template.labels) {
                continue;
            }
            if let Some(d) = topology_value(qn.spec, &s.topology_key) {
                *counts.entry(d).or_insert(0) += 1;
            }
        }
        let min = if (counts.len() as u32) < s.min_domains.unwrap_or(0) {
            0
        } else {
            counts.values().copied().min().unwrap_or(0)
        };
        let here = counts.get(mine).copied().unwrap_or(0);
        let self_match = s.selector.matches(&t.labels) as i64;
        if here + self_match - min > s.max_skew as i64 {
            return false;
        }
    }
    true
}

/// At a fixed point: every Deployment has its desired number of pods, and
/// each pod still Pending has no feasible node, judged from scratch. Pods of
/// one template share a verdict, so the cost is templates x nodes x terms,
/// not pods x nodes x pods.
pub fn verify_settled(c: &Cluster) -> Result<(), Violation> {
    let mut count: BTreeMap<u32, u32> = BTreeMap::new();
    for p in c.pods() {
        if p.phase != PodPhase::Lost {
            *count.entry(p.controller.0).or_insert(0) += 1;
        }
    }
    let daemonsets: BTreeMap<String, crate::DaemonSetStatus> = c
        .daemonsets()
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect();
    for a in c.apps() {
        let n = count.get(&a.id.0).copied().unwrap_or(0);
        // A DaemonSet wants a pod on each node that should run it and keeps
        // one on each node that only may keep it (misscheduled).
        let wants = match daemonsets.get(&a.name) {
            Some(d) if a.kind == crate::WorkloadKind::DaemonSet => d.desired + d.misscheduled,
            _ => a.desired,
        };
        // Admission forbidding its pods (FailedCreate) is a stated wait.
        if n != wants && !a.rolling && a.failure.is_none() {
            return Err(format!("app {} wants {} pods but has {}", a.name, wants, n));
        }
    }
    let f = Feasibility::of(c)?;
    let mut judged: BTreeMap<(u32, u32), ()> = BTreeMap::new();
    // A pod bound by nodeName is its kubelet's, never the scheduler's: a
    // Failed one stays, an orphan waits for its node or podgc.
    for p in c.pods().filter(|p| p.node.is_none() && !p.by_node_name) {
        if p.phase == PodPhase::Lost {
            return Err(format!(
                "pod {} is Lost at a fixed point; it should have been replaced",
                p.name()
            ));
        }
        if judged.insert((p.controller.0, p.revision), ()).is_some() {
            continue;
        }
        if let Some(n) = c.nodes().find(|n| f.feasible(c, &p, n)) {
            return Err(format!(
                "pod {} is Pending but node {} could take it",
                p.name(),
                n.name()
            ));
        }
    }
    Ok(())
}

/// A full picture of placement, for comparing two runs or two moments.
pub fn placement(c: &Cluster) -> Vec<(String, Option<String>, bool)> {
    c.pods()
        .map(|p| {
            (
                p.name(),
                p.node
                    .and_then(|n| c.node_by_id(n))
                    .map(|n| String::from(n.name())),
                p.ready,
            )
        })
        .collect()
}
