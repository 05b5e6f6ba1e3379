//! A straightforward reference implementation of the scheduling profiles
//! (kube-scheduler's default, BinPack, LeastLoaded), written from
//! kube-scheduler's formulas with no incremental books: every call filters
//! and scores from the cluster's public views alone (nodes with their specs
//! and conditions, pods with their templates and nodes). The property runs
//! random workloads through the engine and, after every single bind,
//! recomputes that cycle from scratch.
//!
//! What is checked, bind by bind (the bound pod taken out of the state, so
//! the state is the one its cycle saw):
//! - the bound node passes every filter of the reference;
//! - the engine's scored sample (`Cluster::last_cycle`) holds only feasible
//!   nodes, and every feasible node when every node is to be scored;
//! - the engine's totals equal the reference's, node by node, normalised
//!   over that same sample; the chosen node has the best total (random
//!   ties: any of the best; lowest-id ties: the lowest id);
//! - when the engine took its single-scan path (no sample recorded), the
//!   chosen node is the reference's best over every feasible node.
//!
//! At the fixed point every pod left Pending is infeasible on every node.
//!
//! `SHEPHERD_FUZZ_OPS` sets the number of random cases (default 40);
//! `SHEPHERD_REFERENCE_SEED=n` runs one. A failure prints its seed and the
//! command that reproduces it.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use shepherd::model::{
    LabelSelectorRequirement, NodeInclusionPolicy, SelectorOperator, TopologySpreadConstraint,
    WhenUnsatisfiable, HOSTNAME_KEY,
};
use shepherd::quantity::MIB;
use shepherd::simulator::Prng;
use shepherd::{
    AffinityTerm, Cluster, DeploymentSpec, NodeId, NodeSpec, NodeView, Plugin, PodTemplate,
    PodView, Profile, Resource, Resources, ScoringStrategyType, Selector, Taint, TaintEffect,
    TieBreak, Toleration, UtilizationShapePoint,
};

mod common;

use common::{random_profile, ZONE};

const DEFAULT_CASES: u64 = 40;

/// What the property checked, for its closing line (binds, sampled cycles
/// whose totals were compared, single-scan binds, pending pods).
static BINDS: AtomicU64 = AtomicU64::new(0);
static COMPARED: AtomicU64 = AtomicU64::new(0);
static SINGLE_SCAN: AtomicU64 = AtomicU64::new(0);
static PENDING: AtomicU64 = AtomicU64::new(0);

// ===== the reference =========================================================

/// A snapshot: live nodes by id, and the bound pods on each.
struct World<'a> {
    nodes: Vec<NodeView<'a>>,
    on: BTreeMap<NodeId, Vec<PodView<'a>>>,
}

impl<'a> World<'a> {
    /// The cluster as the cycle of `skip` saw it: every bound pod but it.
    fn new(c: &'a Cluster, skip: Option<&str>) -> World<'a> {
        let nodes: Vec<NodeView> = c.nodes().collect();
        let mut on: BTreeMap<NodeId, Vec<PodView>> = BTreeMap::new();
        for n in &nodes {
            on.insert(n.id, Vec::new());
        }
        for p in c.pods() {
            if let Some(n) = p.node {
                if skip.is_some_and(|s| s == p.name()) {
                    continue;
                }
                on.get_mut(&n).expect("a pod's node is live").push(p);
            }
        }
        World { nodes, on }
    }

    fn node(&self, id: NodeId) -> &NodeView<'a> {
        self.nodes.iter().find(|n| n.id == id).expect("a live node")
    }

    fn pods(&self) -> impl Iterator<Item = (&NodeView<'a>, &PodView<'a>)> {
        self.nodes
            .iter()
            .flat_map(move |n| self.on[&n.id].iter().map(move |p| (n, p)))
    }
}

/// The value of a topology key on a node: its label's (the hostname key's
/// too: a node without the label has no hostname domain, and two nodes with
/// one value share it).
fn value(n: &NodeView, key: &str) -> Option<String> {
    n.spec.labels.get(key).cloned()
}

/// The pod being scheduled: its template, its pod-template-hash (a
/// Deployment's pod), and the Services of the cluster (for the system
/// default constraints' selector).
struct Incoming<'a> {
    tpl: &'a PodTemplate,
    hash: Option<&'a str>,
    services: &'a [Selector],
}

/// A pod's labels as the API server holds them: the template's, plus
/// `pod-template-hash` on a Deployment's pod.
fn pod_labels(p: &PodView) -> shepherd::Labels {
    let mut l = p.template.labels.clone();
    if let Some(h) = p.template_hash {
        l.insert("pod-template-hash".to_string(), h.to_string());
    }
    l
}

/// kube-scheduler's DefaultSelector (helper/spread.go) as a predicate on
/// pods: the Services selecting the pod, and the selector of its owning
/// ReplicaSet (a Deployment's pod: the template's labels and its
/// pod-template-hash); `None` when that selects nothing (no Service, no
/// ReplicaSet), and the system default constraints are then not applied.
fn default_selector<'a>(inc: &'a Incoming<'a>) -> Option<impl Fn(&PodView) -> bool + 'a> {
    let svc: Vec<&Selector> = inc
        .services
        .iter()
        .filter(|s| s.matches(&inc.tpl.labels))
        .collect();
    if inc.hash.is_none() && svc.is_empty() {
        return None;
    }
    Some(move |p: &PodView| {
        let l = pod_labels(p);
        let owner = match inc.hash {
            Some(h) => {
                inc.tpl.labels.iter().all(|(k, v)| l.get(k) == Some(v))
                    && l.get("pod-template-hash").map(String::as_str) == Some(h)
            }
            None => true,
        };
        owner && svc.iter().all(|s| s.matches(&l))
    })
}

fn node_affinity_ok(n: &NodeView, tpl: &PodTemplate) -> bool {
    tpl.node_selector
        .iter()
        .all(|(k, v)| n.spec.labels.get(k) == Some(v))
        && tpl
            .node_affinity
            .required_matches(&n.spec.name, &n.spec.labels)
}

fn tolerated(tpl: &PodTemplate, t: &Taint) -> bool {
    tpl.tolerations.iter().any(|tol| tol.tolerates(t))
}

/// Whether node `m` counts for spread constraint `c`
/// (podtopologyspread/common.go, `matchNodeInclusionPolicies`):
/// nodeAffinityPolicy Honor asks the pod's nodeSelector and required node
/// affinity; nodeTaintsPolicy Honor asks that the pod tolerate the node's
/// NoSchedule and NoExecute taints, those of its spec and those the node
/// lifecycle controller puts on a cordoned node (unschedulable) and on a
/// node that is not Ready (unreachable; the NoExecute half is always
/// tolerated, by the pod or by what DefaultTolerationSeconds adds).
fn included(m: &NodeView, tpl: &PodTemplate, c: &TopologySpreadConstraint) -> bool {
    use shepherd::model::NodeInclusionPolicy::Honor;
    if c.node_affinity_policy == Honor && !node_affinity_ok(m, tpl) {
        return false;
    }
    if c.node_taints_policy == Honor {
        let mut taints: Vec<Taint> = m
            .spec
            .taints
            .iter()
            .filter(|t| t.effect != TaintEffect::PreferNoSchedule)
            .cloned()
            .collect();
        if m.cordoned {
            taints.push(Taint::new(
                "node.kubernetes.io/unschedulable",
                "",
                TaintEffect::NoSchedule,
            ));
        }
        if !m.ready {
            taints.push(Taint::new(
                "node.kubernetes.io/unreachable",
                "",
                TaintEffect::NoSchedule,
            ));
        }
        if taints.iter().any(|t| !tolerated(tpl, t)) {
            return false;
        }
    }
    true
}

/// Every filter of the default plugin set, from scratch. `Err` names the plugin.
fn filter(w: &World, n: &NodeView, inc: &Incoming, profile: &Profile) -> Result<(), &'static str> {
    let tpl = inc.tpl;
    let on = |p: Plugin| profile.filters.contains(&p);
    if on(Plugin::NodeUnschedulable) && n.cordoned {
        let t = Taint::new(
            "node.kubernetes.io/unschedulable",
            "",
            TaintEffect::NoSchedule,
        );
        if !tolerated(tpl, &t) {
            return Err("NodeUnschedulable");
        }
    }
    // A node that is not Ready carries the unreachable taints (the
    // NoExecute half tolerated, as in `included`).
    let unreachable = Taint::new(
        "node.kubernetes.io/unreachable",
        "",
        TaintEffect::NoSchedule,
    );
    if on(Plugin::TaintToleration)
        && (n
            .spec
            .taints
            .iter()
            .any(|t| t.effect != TaintEffect::PreferNoSchedule && !tolerated(tpl, t))
            || !n.ready && !tolerated(tpl, &unreachable))
    {
        return Err("TaintToleration");
    }
    if on(Plugin::NodeAffinity) && !node_affinity_ok(n, tpl) {
        return Err("NodeAffinity");
    }
    // NodePorts: the same protocol and port on the same address, or on
    // 0.0.0.0 on either side (HostPortInfo.CheckConflict).
    if on(Plugin::NodePorts) {
        let taken = w.on[&n.id].iter().flat_map(|p| &p.template.host_ports);
        let clash = |a: &shepherd::HostPort, b: &shepherd::HostPort| {
            a.protocol == b.protocol
                && a.port == b.port
                && (a.host_ip == b.host_ip || a.host_ip == "0.0.0.0" || b.host_ip == "0.0.0.0")
        };
        if taken
            .into_iter()
            .any(|u| tpl.host_ports.iter().any(|h| clash(h, u)))
        {
            return Err("NodePorts");
        }
    }
    // NodeResourcesFit is always on (validation requires it).
    let pods = &w.on[&n.id];
    let used = pods.iter().fold(Resources::ZERO, |a, p| {
        a.saturating_add(&p.template.requests)
    });
    let cap = n.spec.capacity;
    if used.cpu_millis + tpl.requests.cpu_millis > cap.cpu_millis
        || used.memory_bytes + tpl.requests.memory_bytes > cap.memory_bytes
        || pods.len() as u32 + 1 > n.spec.max_pods
    {
        return Err("NodeResourcesFit");
    }
    // fitsRequest's scalar resources: an extended resource the profile
    // ignores is not checked.
    for (k, v) in tpl.scalar_requests.iter() {
        let extended = k.contains('/');
        if extended && profile.ignores_resource(k) {
            continue;
        }
        let on: u64 = pods.iter().map(|p| p.template.scalar_requests.get(k)).sum();
        if on + v > n.spec.scalars.get(k) {
            return Err("NodeResourcesFit");
        }
    }
    if on(Plugin::PodTopologySpread) {
        spread_filter(w, n, tpl)?;
    }
    if on(Plugin::InterPodAffinity) {
        inter_pod_filter(w, n, tpl)?;
    }
    Ok(())
}

fn spread_filter(w: &World, n: &NodeView, tpl: &PodTemplate) -> Result<(), &'static str> {
    let hard: Vec<&TopologySpreadConstraint> = tpl
        .topology_spread
        .iter()
        .filter(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
        .collect();
    if hard.is_empty() {
        return Ok(());
    }
    // Eligible nodes: carrying every key of the hard constraints, and each
    // constraint's own inclusion policies.
    let eligible: Vec<&NodeView> = w
        .nodes
        .iter()
        .filter(|m| hard.iter().all(|c| value(m, &c.topology_key).is_some()))
        .collect();
    for c in &hard {
        let Some(mine) = value(n, &c.topology_key) else {
            return Err("PodTopologySpread");
        };
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for m in eligible.iter().filter(|m| included(m, tpl, c)) {
            let k = value(m, &c.topology_key).expect("eligible nodes carry the key");
            let matching = w.on[&m.id]
                .iter()
                .filter(|p| c.selector.matches(&p.template.labels))
                .count() as i64;
            *counts.entry(k).or_default() += matching;
        }
        let min = if (counts.len() as u32) < c.min_domains.unwrap_or(1) {
            0
        } else {
            counts.values().copied().min().unwrap_or(0)
        };
        let here = counts.get(&mine).copied().unwrap_or(0);
        let self_match = c.selector.matches(&tpl.labels) as i64;
        if here + self_match - min > c.max_skew as i64 {
            return Err("PodTopologySpread");
        }
    }
    Ok(())
}

fn inter_pod_filter(w: &World, n: &NodeView, tpl: &PodTemplate) -> Result<(), &'static str> {
    // Required affinity: a pod matching every term in each term's domain, or
    // no such pod anywhere and the pod matches its own terms.
    if !tpl.affinity.is_empty() {
        let matches_all =
            |labels: &shepherd::Labels| tpl.affinity.iter().all(|t| t.selector.matches(labels));
        let mut counts: BTreeMap<(String, String), u32> = BTreeMap::new();
        for (m, p) in w.pods() {
            if matches_all(&p.template.labels) {
                for t in &tpl.affinity {
                    if let Some(v) = value(m, &t.topology_key) {
                        *counts.entry((t.topology_key.clone(), v)).or_default() += 1;
                    }
                }
            }
        }
        let mut exist = true;
        for t in &tpl.affinity {
            match value(n, &t.topology_key) {
                None => return Err("InterPodAffinity"),
                Some(v) => {
                    exist &= counts
                        .get(&(t.topology_key.clone(), v))
                        .copied()
                        .unwrap_or(0)
                        > 0
                }
            }
        }
        // Kubernetes' rule for required affinity: with no pod matching
        // anywhere, a pod that matches its own terms may go (the first pod
        // of a group).
        let first_of_group = counts.is_empty() && matches_all(&tpl.labels);
        if !exist && !first_of_group {
            return Err("InterPodAffinity");
        }
    }
    // Required anti-affinity of the pod.
    for t in &tpl.anti_affinity {
        if let Some(v) = value(n, &t.topology_key) {
            let hit = w.pods().any(|(m, p)| {
                value(m, &t.topology_key).as_ref() == Some(&v)
                    && t.selector.matches(&p.template.labels)
            });
            if hit {
                return Err("InterPodAffinity");
            }
        }
    }
    // Existing pods' required anti-affinity toward the pod.
    for (m, p) in w.pods() {
        for t in &p.template.anti_affinity {
            if !t.selector.matches(&tpl.labels) {
                continue;
            }
            if let (Some(a), Some(b)) = (value(m, &t.topology_key), value(n, &t.topology_key)) {
                if a == b {
                    return Err("InterPodAffinity");
                }
            }
        }
    }
    Ok(())
}

/// The requests NodeResourcesFit's score counts: as the template states
/// them, else those of one container that sets the nonzero requests and
/// misses the others (100m, 200Mi for a missing one).
fn non_zero(t: &PodTemplate) -> Resources {
    let r = t.requests;
    t.non_zero_requests.unwrap_or(Resources::new(
        if r.cpu_millis == 0 { 100 } else { r.cpu_millis },
        if r.memory_bytes == 0 {
            200 * MIB
        } else {
            r.memory_bytes
        },
    ))
}

/// One resource of a score on node `n`, as resource_allocation.go reads
/// it: (allocatable, the node's pods' requests, the pod's request); cpu
/// and memory with the non-zero defaults when `nonzero`. `None` leaves it
/// out: a scalar resource the pod does not request (ephemeral-storage
/// aside), or one the node has none of.
fn books(
    w: &World,
    n: &NodeView,
    inc: &Incoming,
    r: &Resource,
    nonzero: bool,
) -> Option<(i64, i64, i64)> {
    let pick = |t: &PodTemplate| if nonzero { non_zero(t) } else { t.requests };
    let on = w.on[&n.id]
        .iter()
        .fold(Resources::ZERO, |a, p| a.saturating_add(&pick(p.template)));
    let pod = pick(inc.tpl);
    let (cap, on, pod) = match r {
        Resource::Cpu => (n.spec.capacity.cpu_millis, on.cpu_millis, pod.cpu_millis),
        Resource::Memory => (
            n.spec.capacity.memory_bytes,
            on.memory_bytes,
            pod.memory_bytes,
        ),
        Resource::Scalar(name) => {
            let want = inc.tpl.scalar_requests.get(name);
            if want == 0 && name != "ephemeral-storage" {
                return None;
            }
            let on: u64 = w.on[&n.id]
                .iter()
                .map(|p| p.template.scalar_requests.get(name))
                .sum();
            (n.spec.scalars.get(name), on, want)
        }
    };
    (cap > 0).then_some((cap as i64, on as i64, pod as i64))
}

fn fit_score(w: &World, n: &NodeView, inc: &Incoming, profile: &Profile) -> i64 {
    let (mut sum, mut weights) = (0i64, 0i64);
    // RequestedToCapacityRatio's shape, scores scaled 0..=10 -> 0..=100,
    // as a piecewise-linear function of utilization, flat at both ends.
    let shape: Vec<(i64, i64)> = profile
        .fit
        .shape
        .iter()
        .map(|p| (p.utilization, p.score * 10))
        .collect();
    let linear = |u: i64| -> i64 {
        if u <= shape[0].0 {
            return shape[0].1;
        }
        for k in 1..shape.len() {
            let ((u0, s0), (u1, s1)) = (shape[k - 1], shape[k]);
            if u <= u1 {
                return s0 + (s1 - s0) * (u - u0) / (u1 - u0);
            }
        }
        shape[shape.len() - 1].1
    };
    for (r, wt) in &profile.fit.resources {
        let Some((cap, on, pod)) = books(w, n, inc, r, true) else {
            continue;
        };
        let req = on + pod;
        let s = match profile.fit.kind {
            ScoringStrategyType::LeastAllocated => {
                if req > cap {
                    0
                } else {
                    (cap - req) * 100 / cap
                }
            }
            ScoringStrategyType::MostAllocated => req.min(cap) * 100 / cap,
            ScoringStrategyType::RequestedToCapacityRatio => {
                let s = linear(if req > cap { 100 } else { req * 100 / cap });
                // Only positive resource scores count, weights included.
                if s <= 0 {
                    continue;
                }
                s
            }
        };
        sum += s * wt;
        weights += wt;
    }
    if weights == 0 {
        0
    } else if profile.fit.kind == ScoringStrategyType::RequestedToCapacityRatio {
        round(sum as f64 / weights as f64)
    } else {
        sum / weights
    }
}

/// v1.37's balancedResourceScorer over the profile's balanced resources:
/// the balance with the pod against the node's own, 50 + (50 + with -
/// without) / 2; 0 for a pod that requests none of them (PreScore skips).
fn balanced_score(w: &World, n: &NodeView, inc: &Incoming, profile: &Profile) -> i64 {
    let rs = &profile.balanced_resources;
    let requested = |r: &Resource| match r {
        Resource::Cpu => inc.tpl.requests.cpu_millis,
        Resource::Memory => inc.tpl.requests.memory_bytes,
        Resource::Scalar(name) => inc.tpl.scalar_requests.get(name),
    };
    if rs.iter().all(|r| requested(r) == 0) {
        return 0;
    }
    let parts: Vec<(i64, i64, i64)> = rs
        .iter()
        .filter_map(|r| books(w, n, inc, r, false))
        .collect();
    let balance = |with_pod: bool| {
        let f: Vec<f64> = parts
            .iter()
            .map(|&(cap, on, pod)| {
                let used = if with_pod { on + pod } else { on };
                (used as f64 / cap as f64).min(1.0)
            })
            .collect();
        let std = match f.len() {
            2 => ((f[0] - f[1]) / 2.0).abs(),
            k if k > 2 => {
                let mean = f.iter().sum::<f64>() / k as f64;
                (f.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / k as f64).sqrt()
            }
            _ => 0.0,
        };
        ((1.0 - std) * 100.0) as i64
    };
    50 + (50 + balance(true) - balance(false)) / 2
}

/// Go's math.Round.
fn round(x: f64) -> i64 {
    x.round() as i64
}

/// PodTopologySpread's normalised scores over `scored`.
fn spread_scores(w: &World, scored: &[&NodeView], inc: &Incoming, profile: &Profile) -> Vec<i64> {
    let tpl = inc.tpl;
    // (maxSkew, key, selector: None = DefaultSelector, the constraint for
    // its inclusion policies)
    let mut cons: Vec<(i64, String, Option<&Selector>, TopologySpreadConstraint)> = Vec::new();
    let defaults = default_selector(inc);
    let require_all = if tpl.topology_spread.is_empty() {
        if profile.system_default_spreading && defaults.is_some() {
            // Kubernetes' default policies: node affinity honoured, taints not.
            let c = |skew: u32, key: &str| {
                TopologySpreadConstraint::new(
                    skew,
                    key,
                    WhenUnsatisfiable::ScheduleAnyway,
                    Selector::default(),
                )
            };
            cons.push((3, HOSTNAME_KEY.to_string(), None, c(3, HOSTNAME_KEY)));
            cons.push((5, ZONE.to_string(), None, c(5, ZONE)));
        }
        false
    } else {
        for c in &tpl.topology_spread {
            if c.when_unsatisfiable == WhenUnsatisfiable::ScheduleAnyway {
                cons.push((
                    c.max_skew as i64,
                    c.topology_key.clone(),
                    Some(&c.selector),
                    c.clone(),
                ));
            }
        }
        true
    };
    if cons.is_empty() {
        return vec![0; scored.len()];
    }
    let matches = |p: &PodView, sel: Option<&Selector>| match sel {
        Some(s) => s.matches(&p.template.labels),
        None => defaults.as_ref().is_some_and(|d| d(p)),
    };
    let has_all = |n: &NodeView| cons.iter().all(|(_, k, _, _)| value(n, k).is_some());
    let ignored: Vec<bool> = scored.iter().map(|n| require_all && !has_all(n)).collect();
    let kept = ignored.iter().filter(|&&i| !i).count();
    // Domains among the scored nodes ("" for a missing key when defaulted),
    // counted over every node the pod's node affinity admits.
    let mut weights = Vec::new();
    let mut counts: Vec<BTreeMap<String, i64>> = Vec::new();
    for (_, key, sel, c) in &cons {
        let mut doms: BTreeMap<String, i64> = BTreeMap::new();
        if key != HOSTNAME_KEY {
            for (n, ig) in scored.iter().zip(&ignored) {
                if !ig {
                    doms.insert(value(n, key).unwrap_or_default(), 0);
                }
            }
            for m in &w.nodes {
                if !included(m, tpl, c) || (require_all && !has_all(m)) {
                    continue;
                }
                let v = value(m, key).unwrap_or_default();
                if let Some(c) = doms.get_mut(&v) {
                    *c += w.on[&m.id].iter().filter(|p| matches(p, *sel)).count() as i64;
                }
            }
            weights.push(((doms.len() + 2) as f64).ln());
        } else {
            weights.push(((kept + 2) as f64).ln());
        }
        counts.push(doms);
    }
    let raw: Vec<Option<i64>> = scored
        .iter()
        .zip(&ignored)
        .map(|(n, ig)| {
            if *ig {
                return None;
            }
            let mut s = 0.0;
            for (i, (skew, key, sel, _)) in cons.iter().enumerate() {
                let Some(v) = value(n, key) else { continue };
                let cnt = if key == HOSTNAME_KEY {
                    w.on[&n.id].iter().filter(|p| matches(p, *sel)).count() as i64
                } else {
                    counts[i][&v]
                };
                s += cnt as f64 * weights[i] + (*skew - 1) as f64;
            }
            Some(round(s))
        })
        .collect();
    let vals: Vec<i64> = raw.iter().flatten().copied().collect();
    let (min, max) = (
        vals.iter().copied().min().unwrap_or(0),
        vals.iter().copied().max().unwrap_or(0).max(0),
    );
    raw.iter()
        .map(|r| match r {
            None => 0,
            Some(_) if max == 0 => 100,
            Some(v) => 100 * (max + min - v) / max,
        })
        .collect()
}

/// InterPodAffinity's raw score for a node.
fn ipa_raw(w: &World, n: &NodeView, inc: &Incoming, profile: &Profile) -> i64 {
    let tpl = inc.tpl;
    let same = |m: &NodeView, t: &AffinityTerm| match (
        value(m, &t.topology_key),
        value(n, &t.topology_key),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    let mut s = 0i64;
    for (m, p) in w.pods() {
        for wt in &tpl.preferred_affinity {
            if same(m, &wt.term) && wt.term.selector.matches(&p.template.labels) {
                s += wt.weight as i64;
            }
        }
        for wt in &tpl.preferred_anti_affinity {
            if same(m, &wt.term) && wt.term.selector.matches(&p.template.labels) {
                s -= wt.weight as i64;
            }
        }
        for t in &p.template.affinity {
            if same(m, t) && t.selector.matches(&tpl.labels) {
                s += profile.hard_pod_affinity_weight;
            }
        }
        for wt in &p.template.preferred_affinity {
            if same(m, &wt.term) && wt.term.selector.matches(&tpl.labels) {
                s += wt.weight as i64;
            }
        }
        for wt in &p.template.preferred_anti_affinity {
            if same(m, &wt.term) && wt.term.selector.matches(&tpl.labels) {
                s -= wt.weight as i64;
            }
        }
    }
    s
}

fn default_normalize(v: &mut [i64], reverse: bool) {
    let max = v.iter().copied().max().unwrap_or(0).max(0);
    for s in v.iter_mut() {
        *s = if max == 0 {
            if reverse {
                100
            } else {
                0
            }
        } else if reverse {
            100 - 100 * *s / max
        } else {
            100 * *s / max
        };
    }
}

/// The weighted totals of `scored`, each plugin normalised over them.
fn totals(w: &World, scored: &[&NodeView], inc: &Incoming, profile: &Profile) -> Vec<i64> {
    let tpl = inc.tpl;
    let mut total = vec![0i64; scored.len()];
    for &(p, wt) in &profile.scores {
        let norm: Vec<i64> = match p {
            Plugin::NodeResourcesFit => scored
                .iter()
                .map(|n| fit_score(w, n, inc, profile))
                .collect(),
            Plugin::NodeResourcesBalancedAllocation => scored
                .iter()
                .map(|n| balanced_score(w, n, inc, profile))
                .collect(),
            Plugin::TaintToleration => {
                let mut v: Vec<i64> = scored
                    .iter()
                    .map(|n| {
                        n.spec
                            .taints
                            .iter()
                            .filter(|t| t.effect == TaintEffect::PreferNoSchedule)
                            .filter(|t| {
                                !tpl.tolerations.iter().any(|tol| {
                                    (tol.effect.is_none()
                                        || tol.effect == Some(TaintEffect::PreferNoSchedule))
                                        && tol.tolerates(t)
                                })
                            })
                            .count() as i64
                    })
                    .collect();
                default_normalize(&mut v, true);
                v
            }
            Plugin::NodeAffinity => {
                let mut v: Vec<i64> = scored
                    .iter()
                    .map(|n| {
                        tpl.node_affinity
                            .preferred
                            .iter()
                            .filter(|t| t.preference.matches(&n.spec.name, &n.spec.labels))
                            .map(|t| t.weight as i64)
                            .sum()
                    })
                    .collect();
                default_normalize(&mut v, false);
                v
            }
            Plugin::PodTopologySpread => spread_scores(w, scored, inc, profile),
            Plugin::InterPodAffinity => {
                let raw: Vec<i64> = scored.iter().map(|n| ipa_raw(w, n, inc, profile)).collect();
                let (min, max) = (
                    raw.iter().copied().min().unwrap_or(0),
                    raw.iter().copied().max().unwrap_or(0),
                );
                raw.iter()
                    .map(|&s| {
                        if max > min {
                            (100.0 * ((s - min) as f64 / (max - min) as f64)) as i64
                        } else {
                            0
                        }
                    })
                    .collect()
            }
            Plugin::NodeUnschedulable | Plugin::NodePorts => continue,
        };
        for (t, s) in total.iter_mut().zip(norm) {
            *t += wt * s;
        }
    }
    total
}

// ===== the property ==========================================================

/// Checks one bind against the reference; `Err` says what differs.
/// `strict_lowest_id`: with lowest-id ties, demand the lowest id among the
/// best (see `lowest_id_ties_pick_the_lowest_id_when_sampling`); otherwise
/// any of the best is accepted.
fn check_bind(
    c: &Cluster,
    pod: &str,
    bound: NodeId,
    profile: &Profile,
    services: &[Selector],
    strict_lowest_id: bool,
) -> Result<(), String> {
    let w = World::new(c, Some(pod));
    let pv = c.pod_by_name(pod).map_err(|e| e.to_string())?;
    let inc = Incoming {
        tpl: pv.template,
        hash: pv.template_hash,
        services,
    };
    let feasible: Vec<&NodeView> = w
        .nodes
        .iter()
        .filter(|n| filter(&w, n, &inc, profile).is_ok())
        .collect();
    if let Err(p) = filter(&w, w.node(bound), &inc, profile) {
        return Err(format!(
            "{pod} bound to {} which fails {p}",
            w.node(bound).spec.name
        ));
    }
    BINDS.fetch_add(1, Relaxed);
    let lc = c.last_cycle();
    if lc.chosen != Some(bound) {
        return Err(format!(
            "last_cycle chose {:?}, the bind went to {bound:?}",
            lc.chosen
        ));
    }
    let feasible_ids: BTreeSet<NodeId> = feasible.iter().map(|n| n.id).collect();
    if lc.scored.is_empty() {
        // The single-scan path: the best over every feasible node, lowest id first.
        SINGLE_SCAN.fetch_add(1, Relaxed);
        let t = totals(&w, &feasible, &inc, profile);
        let best = t.iter().copied().max().expect("the bound node is feasible");
        let want = feasible[t.iter().position(|&x| x == best).unwrap()].id;
        if profile.tie_break != TieBreak::LowestNodeId || want != bound {
            return Err(format!(
                "{pod}: single-scan bind to {bound:?}, the reference's best is {want:?} (total {best}); totals {:?}",
                feasible.iter().map(|n| n.id.0).zip(&t).collect::<Vec<_>>()
            ));
        }
        return Ok(());
    }
    for id in &lc.scored {
        if !feasible_ids.contains(id) {
            return Err(format!(
                "{pod}: scored node {id:?} is infeasible in the reference"
            ));
        }
    }
    let all = profile.feasible_nodes_to_find(w.nodes.len() as u32) as usize >= w.nodes.len();
    if all && lc.scored.iter().copied().collect::<BTreeSet<_>>() != feasible_ids {
        return Err(format!(
            "{pod}: every node is scored, yet the sample {:?} is not the feasible set {feasible_ids:?}",
            lc.scored
        ));
    }
    if lc.scored.len() == 1 {
        return Ok(());
    }
    let scored: Vec<&NodeView> = lc.scored.iter().map(|&id| w.node(id)).collect();
    let t = totals(&w, &scored, &inc, profile);
    COMPARED.fetch_add(1, Relaxed);
    if t != lc.totals {
        return Err(format!(
            "{pod}: totals differ over the sample {:?}: engine {:?}, reference {t:?}",
            lc.scored, lc.totals
        ));
    }
    let best = *t.iter().max().unwrap();
    let winners: Vec<NodeId> = scored
        .iter()
        .zip(&t)
        .filter(|(_, &x)| x == best)
        .map(|(n, _)| n.id)
        .collect();
    match profile.tie_break {
        TieBreak::Random if !winners.contains(&bound) => Err(format!(
            "{pod}: bound to {bound:?}, not among the best {winners:?} (total {best})"
        )),
        _ if !winners.contains(&bound) => Err(format!(
            "{pod}: bound to {bound:?}, not among the best {winners:?} (total {best})"
        )),
        TieBreak::LowestNodeId if strict_lowest_id && winners.iter().min() != Some(&bound) => {
            Err(format!(
                "{pod}: lowest-id ties should pick {:?} of {winners:?}, the bind went to {bound:?}",
                winners.iter().min()
            ))
        }
        _ => Ok(()),
    }
}

fn random_node(rng: &mut Prng, i: usize) -> NodeSpec {
    let mut n = NodeSpec::new(
        &format!("n{i}"),
        rng.range(2, 16) * 500,
        (rng.range(2, 32) * 512) * MIB,
    );
    if !rng.chance(10) {
        n = n.with_label(ZONE, *rng.pick(&["z1", "z2", "z3"]));
    }
    n = n.with_label("disk", *rng.pick(&["ssd", "hdd"]));
    if rng.chance(15) {
        n = n.with_taint(Taint::new("dedicated", "x", TaintEffect::NoSchedule));
    }
    if rng.chance(20) {
        n = n.with_taint(Taint::new("soft", "y", TaintEffect::PreferNoSchedule));
    }
    if rng.chance(15) {
        n = n.with_max_pods(rng.range(2, 8) as u32);
    }
    n
}

/// nodeAffinityPolicy and nodeTaintsPolicy for a constraint: Kubernetes'
/// defaults (Honor, Ignore) most of the time.
fn random_policies(extra: &mut Prng) -> (NodeInclusionPolicy, NodeInclusionPolicy) {
    use NodeInclusionPolicy::{Honor, Ignore};
    if extra.chance(60) {
        return (Honor, Ignore);
    }
    (*extra.pick(&[Honor, Ignore]), *extra.pick(&[Honor, Ignore]))
}

/// How a case labels its nodes' hostnames.
#[derive(Clone, Copy, PartialEq)]
enum Hosts {
    /// As the kubelet registers a node: the label holds its name.
    Kubelet,
    /// Now and then without the label or with another node's value.
    Odd,
    /// No node has the label (nodes written by hand): the fast cycle
    /// scores the system defaults' hostname term as absent on every node.
    None,
}

/// A node labelled as `kind` says.
fn relabel_hostname(hosts: &mut Prng, kind: Hosts, mut n: NodeSpec) -> NodeSpec {
    match kind {
        Hosts::Kubelet => {}
        Hosts::None => {
            n.labels.remove(HOSTNAME_KEY);
        }
        Hosts::Odd => {
            if hosts.chance(30) {
                if hosts.chance(50) {
                    n.labels.remove(HOSTNAME_KEY);
                } else {
                    n.labels
                        .insert(HOSTNAME_KEY.to_string(), format!("n{}", hosts.below(3)));
                }
            }
        }
    }
    n
}

fn random_app(rng: &mut Prng, extra: &mut Prng, i: usize, others: usize) -> DeploymentSpec {
    let name = format!("app{i}");
    let cpu = if rng.chance(10) {
        0
    } else {
        rng.range(1, 15) * 100
    };
    let mem = if cpu > 0 && rng.chance(10) {
        0
    } else {
        rng.range(1, 16) * 128
    };
    let mut d = DeploymentSpec::new(
        &name,
        rng.range(1, 10) as u32,
        Resources::new(cpu, mem * MIB),
    );
    let mut t = d
        .template
        .clone()
        .with_label("tier", *rng.pick(&["a", "b"]));
    if extra.chance(25) {
        // The scored requests a manifest's containers can give: a zero set
        // explicitly (counted 0), more containers missing a request (the
        // default each), or the one-container default.
        let req = Resources::new(cpu, mem * MIB);
        let n = Resources::new(
            match extra.below(3) {
                0 => cpu,
                1 => cpu + 100 * extra.range(1, 3),
                _ => req.non_zero().cpu_millis,
            },
            match extra.below(3) {
                0 => mem * MIB,
                1 => (mem + 200 * extra.range(1, 3)) * MIB,
                _ => req.non_zero().memory_bytes,
            },
        );
        t = t.with_scored_requests(req, n);
    }
    if rng.chance(15) {
        t = t.with_node_selector("disk", "ssd");
    }
    t = t.with_node_affinity(common::random_node_affinity(rng, 15));
    if rng.chance(30) {
        t = t.with_toleration(Toleration::exists("dedicated", None));
    }
    if rng.chance(30) {
        t = t.with_toleration(Toleration::exists(
            "soft",
            Some(TaintEffect::PreferNoSchedule),
        ));
    }
    let own = Selector::new(&[("app", &name)]);
    if rng.chance(35) {
        let key = *rng.pick(&[HOSTNAME_KEY, ZONE]);
        let when = *rng.pick(&[
            WhenUnsatisfiable::DoNotSchedule,
            WhenUnsatisfiable::ScheduleAnyway,
        ]);
        let mut c = TopologySpreadConstraint::new(rng.range(1, 3) as u32, key, when, own.clone());
        if when == WhenUnsatisfiable::DoNotSchedule && rng.chance(30) {
            c.min_domains = Some(rng.range(1, 4) as u32);
        }
        let (aff, taints) = random_policies(extra);
        c = c.with_policies(aff, taints);
        t = t.with_topology_spread(c);
        if rng.chance(30) {
            let tier = Selector::new(&[]).with_expression(LabelSelectorRequirement::new(
                "tier",
                SelectorOperator::In,
                &["a"],
            ));
            let (a, p) = random_policies(extra);
            t = t.with_topology_spread(
                TopologySpreadConstraint::new(
                    2,
                    HOSTNAME_KEY,
                    WhenUnsatisfiable::ScheduleAnyway,
                    tier,
                )
                .with_policies(a, p),
            );
        }
    }
    if others > 0 && rng.chance(10) {
        let target = format!("app{}", rng.below(others as u64));
        t = t.with_affinity(AffinityTerm::new(
            Selector::new(&[("app", &target)]),
            Some(ZONE),
        ));
    }
    if rng.chance(15) {
        t = t.with_anti_affinity(AffinityTerm::new(own.clone(), None));
    }
    if rng.chance(25) {
        let sel = Selector::new(&[("tier", *rng.pick(&["a", "b"]))]);
        let key = *rng.pick(&[HOSTNAME_KEY, ZONE]);
        t = if rng.chance(50) {
            t.with_preferred_affinity(rng.range(1, 100) as i32, AffinityTerm::new(sel, Some(key)))
        } else {
            t.with_preferred_anti_affinity(
                rng.range(1, 100) as i32,
                AffinityTerm::new(sel, Some(key)),
            )
        };
    }
    // Host ports (NodePorts): a few apps take one, some on one address.
    if extra.chance(12) {
        let protocol = *extra.pick(&[shepherd::Protocol::Tcp, shepherd::Protocol::Udp]);
        let mut p = shepherd::HostPort::new(protocol, 8080 + extra.below(3) as u16);
        if extra.chance(30) {
            p = p.on(*extra.pick(&["10.0.0.1", "10.0.0.2"]));
        }
        t = t.with_host_port(p);
    }
    d.template = t;
    d
}

/// In a third of the cases, scalar resources (issue 45): some nodes offer
/// GPUs and ephemeral storage, some apps request them, and the profile may
/// score them (NodeResourcesFit's strategy, BalancedAllocation's list), or
/// score by RequestedToCapacityRatio. From a stream of its own, so the rest
/// of a seed's case stays.
struct ScalarCase {
    rng: Prng,
    on: bool,
}

const GPU: &str = "nvidia.com/gpu";
const EPHEMERAL: &str = "ephemeral-storage";

impl ScalarCase {
    fn new(seed: u64) -> ScalarCase {
        let mut rng = Prng::new(seed ^ 0x5ca1_a125);
        let on = rng.chance(33);
        ScalarCase { rng, on }
    }

    fn node(&mut self, mut n: NodeSpec) -> NodeSpec {
        if self.on && self.rng.chance(45) {
            n = n.with_scalar(GPU, *self.rng.pick(&[1, 2, 4, 8]));
        }
        if self.on && self.rng.chance(50) {
            n = n.with_scalar(EPHEMERAL, self.rng.range(20, 100) << 30);
        }
        n
    }

    fn app(&mut self, mut d: DeploymentSpec) -> DeploymentSpec {
        if self.on && self.rng.chance(35) {
            d.template = d.template.with_scalar(GPU, self.rng.range(1, 3));
        }
        if self.on && self.rng.chance(25) {
            d.template = d
                .template
                .with_scalar(EPHEMERAL, self.rng.range(1, 12) << 30);
        }
        d
    }

    fn profile(&mut self, mut p: Profile) -> Profile {
        if !self.on {
            return p;
        }
        if self.rng.chance(50) {
            p.fit.resources.push((
                Resource::Scalar(GPU.to_string()),
                self.rng.range(1, 6) as i64,
            ));
        }
        if self.rng.chance(25) {
            p.fit
                .resources
                .push((Resource::Scalar(EPHEMERAL.to_string()), 1));
        }
        if self.rng.chance(20) {
            p.fit.kind = ScoringStrategyType::RequestedToCapacityRatio;
            p.fit.shape = if self.rng.chance(50) {
                vec![
                    UtilizationShapePoint {
                        utilization: 0,
                        score: 0,
                    },
                    UtilizationShapePoint {
                        utilization: 100,
                        score: 10,
                    },
                ]
            } else {
                vec![
                    UtilizationShapePoint {
                        utilization: 0,
                        score: 10,
                    },
                    UtilizationShapePoint {
                        utilization: 40,
                        score: 3,
                    },
                    UtilizationShapePoint {
                        utilization: 100,
                        score: 0,
                    },
                ]
            };
        }
        if self.rng.chance(50) {
            p.balanced_resources.push(Resource::Scalar(GPU.to_string()));
        }
        if self.rng.chance(20) {
            p.balanced_resources
                .push(Resource::Scalar(EPHEMERAL.to_string()));
        }
        p.validate().expect("a valid profile");
        p
    }
}

fn run_case(seed: u64, strict_lowest_id: bool) -> Result<(), String> {
    let mut rng = Prng::new(seed ^ 0x5eed_4ef0);
    let mut scalars = ScalarCase::new(seed);
    let profile = scalars.profile(random_profile(&mut rng));
    let mut app_scalars = ScalarCase {
        rng: Prng::new(seed ^ 0xa995_ca1a),
        on: scalars.on,
    };
    let big = rng.chance(10);
    let nodes = if big {
        rng.range(105, 130)
    } else {
        rng.range(2, 12)
    } as usize;
    let mut c = Cluster::new();
    c.set_scheduler_seed(seed);
    // In a fifth of the cases some nodes have no hostname label, or share
    // one, and in a third of those no node has it (a stream of its own, so
    // the rest of a seed's case stays).
    let mut hosts = Prng::new(seed ^ 0x4057_1abe);
    let kind = if !hosts.chance(20) {
        Hosts::Kubelet
    } else if hosts.chance(33) {
        Hosts::None
    } else {
        Hosts::Odd
    };
    let mut hostname = |n: NodeSpec| scalars.node(relabel_hostname(&mut hosts, kind, n));
    for i in 0..nodes {
        c.add_node(hostname(random_node(&mut rng, i)))
            .map_err(|e| e.to_string())?;
    }
    let apps = if big {
        rng.range(3, 6)
    } else {
        rng.range(1, 6)
    } as usize;
    let mut failure: Option<String> = None;
    let mut made = 0;
    // Services and bare pods come from a stream of their own, so the
    // Deployments and nodes of a seed stay what they were before them.
    let mut extra = Prng::new(seed ^ 0x5e41_1ce5);
    let mut policies = Prng::new(seed ^ 0x9011_c1e5);
    let mut services: Vec<Selector> = Vec::new();
    let mut bare = 0;
    for wave in 0..2 {
        for _ in 0..apps {
            let mut d = app_scalars.app(random_app(&mut rng, &mut policies, made, made));
            if big {
                d.replicas *= 3;
            }
            c.deploy(d).map_err(|e| e.to_string())?;
            made += 1;
        }
        // A Service over a tier or an app: the system default constraints'
        // selector for the pods it selects (a Deployment's pods have one
        // anyway: their ReplicaSet's).
        if extra.chance(50) {
            let sel = if extra.chance(50) {
                Selector::new(&[("tier", *extra.pick(&["a", "b"]))])
            } else {
                Selector::new(&[("app", &format!("app{}", extra.below(made as u64)))])
            };
            let name = format!("svc{}", services.len());
            c.add_service(shepherd::ServiceSpec {
                name,
                selector: sel.clone(),
            })
            .map_err(|e| e.to_string())?;
            services.push(sel);
        }
        // Bare pods: spread by default only when a Service selects them.
        for _ in 0..extra.below(3) {
            let tpl = PodTemplate::new(Resources::new(extra.range(1, 8) * 100, 256 * MIB))
                .with_label("tier", *extra.pick(&["a", "b", "c"]));
            c.create_bare_pod(shepherd::BarePodSpec {
                name: format!("bare{bare}"),
                template: tpl,
                node_name: None,
            })
            .map_err(|e| e.to_string())?;
            bare += 1;
        }
        if wave == 1 && nodes > 2 && rng.chance(30) {
            c.cordon(&format!("n{}", rng.below(nodes as u64)))
                .map_err(|e| e.to_string())?;
        }
        // A node registered again with new labels (its zone and disk may
        // change), or removed: what the scheduler keeps between batches
        // (inclusions, spread domains, indexes) must follow.
        if wave == 1 && rng.chance(30) {
            let i = rng.below(nodes as u64) as usize;
            c.reregister_node(hostname(random_node(&mut rng, i)))
                .map_err(|e| e.to_string())?;
        }
        if wave == 1 && nodes > 3 && rng.chance(15) {
            c.remove_node(&format!("n{}", rng.below(nodes as u64)))
                .map_err(|e| e.to_string())?;
        }
        let p = profile.clone();
        let fp = c.reconcile_to_fixed_point_observed(&profile, &mut |c, pod, n| {
            if failure.is_none() {
                if let Err(e) = check_bind(c, pod, n, &p, &services, strict_lowest_id) {
                    failure = Some(e);
                }
            }
        });
        if let Some(f) = failure.take() {
            return Err(format!("profile {}: {f}", profile.scheduler_name));
        }
        if !fp.converged {
            return Err("no fixed point".to_string());
        }
    }
    // Pods left Pending are infeasible on every node.
    let w = World::new(&c, None);
    for p in c.pending_pods() {
        PENDING.fetch_add(1, Relaxed);
        let inc = Incoming {
            tpl: p.template,
            hash: p.template_hash,
            services: &services,
        };
        if let Some(n) = w
            .nodes
            .iter()
            .find(|n| filter(&w, n, &inc, &profile).is_ok())
        {
            return Err(format!(
                "profile {}: {} is Pending at the fixed point, yet fits {}",
                profile.scheduler_name,
                p.name(),
                n.spec.name
            ));
        }
    }
    Ok(())
}

#[test]
fn prop_every_bind_is_the_references_best() {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_REFERENCE_SEED") {
        Ok(s) => vec![s
            .trim()
            .parse()
            .expect("SHEPHERD_REFERENCE_SEED should be a number")],
        Err(_) => {
            let n = std::env::var("SHEPHERD_FUZZ_OPS")
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(DEFAULT_CASES);
            (0..n.max(1)).collect()
        }
    };
    let mut failures = Vec::new();
    for seed in seeds {
        let r = catch_unwind(AssertUnwindSafe(|| run_case(seed, false))).unwrap_or_else(|p| {
            Err(format!(
                "panicked: {:?}",
                p.downcast_ref::<String>()
                    .map(String::as_str)
                    .or(p.downcast_ref::<&str>().copied())
            ))
        });
        if let Err(e) = r {
            failures.push(format!(
                "seed {seed}: {e}\n  reproduce: SHEPHERD_REFERENCE_SEED={seed} cargo test -p shepherd --test reference"
            ));
            if failures.len() >= 5 {
                break;
            }
        }
    }
    eprintln!(
        "reference: {} binds checked, {} sampled cycles' totals compared, {} single-scan binds, {} pending pods confirmed infeasible",
        BINDS.load(Relaxed),
        COMPARED.load(Relaxed),
        SINGLE_SCAN.load(Relaxed),
        PENDING.load(Relaxed)
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// kube-scheduler has no lowest-id rule; Shepherd's `TieBreak::LowestNodeId`
/// means "the lowest node id (registration order)" even when a cycle's
/// sample starts where the previous one stopped and wraps around the node
/// list (more than 100 nodes, adaptive percentageOfNodesToScore). These
/// seeds (found by `SHEPHERD_FUZZ_OPS=2000`) once bound to the first best in
/// visiting order instead.
#[test]
fn lowest_id_ties_pick_the_lowest_id_when_sampling() {
    for seed in [102, 315, 322, 346, 380] {
        if let Err(e) = run_case(seed, true) {
            panic!("seed {seed}: {e}");
        }
    }
}
