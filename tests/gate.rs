//! The property gate: eight randomized properties of the engine, each judged
//! from scratch, and a set of small deterministic tests that pin exact
//! semantics (scoring, messages, affinity, `explain`, refusals, node failure).
//!
//! # Running
//!
//! - `cargo test --test gate` runs everything with the default budget of
//!   [`DEFAULT_FUZZ_OPS`] randomized cases, shared equally by the eight
//!   properties (`prop_*`).
//! - `SHEPHERD_FUZZ_OPS=5000 cargo test --release --test gate` runs 5,000.
//! - `SHEPHERD_GATE_SEED=1234 cargo test --test gate prop_convergence` runs a
//!   single seed of a single property. Every failing case prints its seed and
//!   this line, ready to paste.
//!
//! # Independence
//!
//! Every property is checked twice: by `shepherd::verify` (written apart from
//! the scheduler) and by the `scratch` module below, which reads only pods,
//! node specs and node conditions. Neither trusts the scheduler's books
//! (`NodeView::allocated`, `pod_count`, `bound_count`...) except to compare
//! them with a recomputation.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::model::{MAX_CPU_MILLIS, MAX_REPLICAS};
use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::verify::{
    placement, verify_bind, verify_capacity, verify_constraints, verify_settled,
};
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{
    AffinityTerm, Cluster, DeploymentSpec, Error, Labels, NodeId, NodeSpec, PodPhase, PodTemplate,
    Profile, RenderedEvent, Resources, ScorePolicy, Selector, Taint, TaintEffect, Toleration,
    TolerationOperator, PASS_BUDGET,
};

/// Fails the enclosing case with a formatted sentence unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            return Err(format!($($why)+));
        }
    };
}

// ===== the harness ===========================================================

/// Randomized cases across the whole gate when `SHEPHERD_FUZZ_OPS` is unset.
const DEFAULT_FUZZ_OPS: u64 = 200;
/// The properties that share the budget.
const PROPERTIES: u64 = 8;

fn cases_per_property() -> u64 {
    let total = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_FUZZ_OPS);
    (total / PROPERTIES).max(1)
}

/// The seeds to run: the one in `SHEPHERD_GATE_SEED`, or `0..cases`.
fn seeds() -> Vec<u64> {
    match std::env::var("SHEPHERD_GATE_SEED") {
        Ok(v) => vec![v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("SHEPHERD_GATE_SEED should be a whole number, got {v:?}"))],
        Err(_) => (0..cases_per_property()).collect(),
    }
}

/// Runs `case` for every seed; a failing seed (an `Err` or a panic) prints
/// its reason and the command that reproduces it, and fails the test.
fn gate(property: &str, case: impl Fn(u64) -> Result<(), String>) {
    let seeds = seeds();
    let mut failed = Vec::new();
    for &seed in &seeds {
        let why = match catch_unwind(AssertUnwindSafe(|| case(seed))) {
            Ok(Ok(())) => continue,
            Ok(Err(why)) => why,
            Err(panic) => format!("panicked: {}", panic_text(panic.as_ref())),
        };
        eprintln!(
            "\n[gate] {property} FAILED for seed {seed}: {why}\n\
             [gate] reproduce: SHEPHERD_GATE_SEED={seed} cargo test --test gate {property}\n"
        );
        failed.push(seed);
    }
    assert!(
        failed.is_empty(),
        "{property}: {} of {} seeds failed (first: {:?}); each is printed above with its reproduction command",
        failed.len(),
        seeds.len(),
        &failed[..failed.len().min(20)]
    );
}

fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Each property draws from its own stream, so seed 7 of one property and
/// seed 7 of another explore different clusters.
fn rng_for(seed: u64, property: u64) -> Prng {
    Prng::new(
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ property.wrapping_mul(0xd1b5_4a32_d192_ed03),
    )
}

fn pick<T: Clone>(rng: &mut Prng, items: &[T]) -> T {
    rng.pick(items).clone()
}

fn other_policy(p: ScorePolicy) -> ScorePolicy {
    match p {
        ScorePolicy::BinPack => ScorePolicy::LeastLoaded,
        ScorePolicy::LeastLoaded => ScorePolicy::BinPack,
    }
}

fn refused(what: &str, e: Error) -> String {
    format!("the engine refused a valid call ({what}): {e}")
}

// ===== from-scratch checkers =================================================

/// Checkers written from Kubernetes' rules, reading only pods, node specs and
/// node conditions. Each returns a sentence naming the objects when it fails.
mod scratch {
    use super::*;

    /// The value of a topology key on a node: its label's, the hostname
    /// key's too (Kubernetes reads `kubernetes.io/hostname` as any label: a
    /// node without it is in no hostname domain, two nodes with one value
    /// are one).
    pub fn domain<'a>(n: &'a NodeSpec, key: &str) -> Option<&'a str> {
        n.labels.get(key).map(|v| v.as_str())
    }

    /// matchLabels: every pair present with the same value.
    pub fn selects(selector: &Labels, labels: &Labels) -> bool {
        selector
            .iter()
            .all(|(k, v)| labels.get(k).map(|x| x == v).unwrap_or(false))
    }

    /// Kubernetes' toleration rule: the effect agrees (or is unset), and the
    /// operator is Exists on the key (every key when empty) or Equal on key
    /// and value.
    pub fn tolerated(tolerations: &[Toleration], taint: &Taint) -> bool {
        tolerations.iter().any(|t| {
            let effect = t.effect.map(|e| e == taint.effect).unwrap_or(true);
            let key = match t.operator {
                TolerationOperator::Exists => t.key.is_empty() || t.key == taint.key,
                TolerationOperator::Equal => t.key == taint.key && t.value == taint.value,
            };
            effect && key
        })
    }

    pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
    const NOT_READY: &str = "node.kubernetes.io/not-ready";

    /// How long a pod with these tolerations stays on an unreachable node,
    /// from Kubernetes' rules: the DefaultTolerationSeconds admission adds
    /// `not-ready` and `unreachable` (Exists, NoExecute, 300 s) unless a
    /// toleration with that key or an empty key, and effect NoExecute or
    /// none, is there; the taint-eviction controller then takes the first
    /// toleration that matches `unreachable:NoExecute`. `None`: evicted at
    /// once; `Some(None)`: stays for good; `Some(Some(s))`: s seconds.
    pub fn unreachable_stay(tolerations: &[Toleration]) -> Option<Option<u64>> {
        let mut all = tolerations.to_vec();
        for key in [NOT_READY, UNREACHABLE] {
            let has = tolerations.iter().any(|t| {
                (t.key == key || t.key.is_empty())
                    && t.effect.is_none_or(|e| e == TaintEffect::NoExecute)
            });
            if !has {
                all.push(Toleration::exists(key, Some(TaintEffect::NoExecute)).for_seconds(300));
            }
        }
        let taint = Taint::new(UNREACHABLE, "", TaintEffect::NoExecute);
        all.iter()
            .find(|t| tolerated(std::slice::from_ref(*t), &taint))
            .map(|t| t.toleration_seconds)
    }

    /// Watches a run tick by tick for taint-based eviction, from scratch:
    /// when each node went NotReady (read from the nodes' conditions), which
    /// pods sat on it with which tolerations, and the TaintManagerEviction
    /// events. `observe` after every step checks that no pod was evicted
    /// from an unreachable node before its tolerationSeconds, none that
    /// tolerates it for good was evicted, and every pod whose time is up is
    /// gone. Nodes that also carry NoExecute taints of their own are left
    /// out (their pods' timers may have started earlier).
    #[derive(Default)]
    pub struct EvictionWatch {
        since: BTreeMap<String, u64>,
        tolerations: BTreeMap<String, Vec<Toleration>>,
        /// Each bound pod's node at the last look: Kubernetes' message
        /// names the pod alone ("Marking for deletion Pod NS/NAME").
        nodes: BTreeMap<String, String>,
        seen: usize,
        pub judged: u64,
    }

    impl EvictionWatch {
        pub fn observe(&mut self, c: &Cluster) -> Result<(), String> {
            let now = c.now();
            let live: BTreeSet<String> = c.nodes().map(|n| n.name().to_string()).collect();
            self.since.retain(|n, _| live.contains(n));
            let mut own_no_execute: BTreeSet<String> = BTreeSet::new();
            for n in c.nodes() {
                if n.ready {
                    self.since.remove(n.name());
                } else {
                    self.since.entry(n.name().to_string()).or_insert(now);
                }
                if n.spec
                    .taints
                    .iter()
                    .any(|t| t.effect == TaintEffect::NoExecute)
                {
                    own_no_execute.insert(n.name().to_string());
                }
            }
            let events = c.rendered_events();
            for e in &events[self.seen.min(events.len())..] {
                let Some(rest) = e.message.strip_prefix("Marking for deletion Pod ") else {
                    continue;
                };
                if e.reason != "TaintManagerEviction" {
                    continue;
                }
                // taint_eviction.go: the pod's namespace/name, nothing else.
                let pod = rest.strip_prefix("default/").unwrap_or(rest);
                let Some(node) = self.nodes.get(pod).map(String::as_str) else {
                    continue;
                };
                let Some(&since) = self.since.get(node) else {
                    continue;
                };
                if own_no_execute.contains(node) {
                    continue;
                }
                let Some(tols) = self.tolerations.get(pod) else {
                    continue;
                };
                self.judged += 1;
                match unreachable_stay(tols) {
                    None => {}
                    Some(None) => {
                        return Err(format!(
                            "tick {}: pod {pod} was evicted from unreachable node {node} though it tolerates the taint for good",
                            e.tick
                        ))
                    }
                    Some(Some(s)) => ensure!(
                        e.tick >= since + s,
                        "tick {}: pod {pod} was evicted from node {node} (NotReady since tick {since}) before its tolerationSeconds {s}",
                        e.tick
                    ),
                }
            }
            self.seen = events.len();
            self.tolerations.clear();
            self.nodes.clear();
            for p in c.pods() {
                let Some(n) = p.node.and_then(|id| c.node_by_id(id)) else {
                    continue;
                };
                self.tolerations
                    .insert(p.name(), p.template.tolerations.clone());
                self.nodes.insert(p.name(), n.name().to_string());
                let Some(&since) = self.since.get(n.name()) else {
                    continue;
                };
                if own_no_execute.contains(n.name()) {
                    continue;
                }
                match unreachable_stay(&p.template.tolerations) {
                    None => {
                        return Err(format!(
                            "tick {now}: pod {} stays on unreachable node {} though it does not tolerate the taint",
                            p.name(),
                            n.name()
                        ))
                    }
                    Some(None) => {}
                    Some(Some(s)) => ensure!(
                        now < since + s,
                        "tick {now}: pod {} is still on node {} (NotReady since tick {since}) after its tolerationSeconds {s}",
                        p.name(),
                        n.name()
                    ),
                }
            }
            Ok(())
        }
    }

    /// What a kubelet admits: the nodeSelector matches and every NoSchedule
    /// and NoExecute taint is tolerated.
    pub fn node_admits(t: &PodTemplate, n: &NodeSpec) -> Result<(), String> {
        node_keeps(t, n, true)
    }

    /// What a node keeps running: the nodeSelector matches and every
    /// NoExecute taint is tolerated; NoSchedule taints count only for a pod
    /// bound after the node gained them (`admitted_before_change` false):
    /// NoSchedule never evicts, only NoExecute does.
    pub fn node_keeps(t: &PodTemplate, n: &NodeSpec, after_change: bool) -> Result<(), String> {
        if !selects(&t.node_selector, &n.labels) {
            return Err(format!(
                "nodeSelector {:?} does not match the labels {:?}",
                t.node_selector, n.labels
            ));
        }
        for taint in &n.taints {
            let binding = match taint.effect {
                TaintEffect::NoExecute => true,
                TaintEffect::NoSchedule => after_change,
                TaintEffect::PreferNoSchedule => false,
            };
            if binding && !tolerated(&t.tolerations, taint) {
                return Err(format!("taint {taint} is not tolerated"));
            }
        }
        Ok(())
    }

    pub fn tolerates_unschedulable(t: &PodTemplate) -> bool {
        t.tolerates(&Taint::new(
            "node.kubernetes.io/unschedulable",
            "",
            TaintEffect::NoSchedule,
        ))
    }

    /// A bound pod with the node it is bound to.
    pub struct Bound<'a> {
        pub name: String,
        pub template: &'a PodTemplate,
        pub node: &'a NodeSpec,
        pub id: NodeId,
        pub ready: bool,
        pub cordoned: bool,
        /// The cluster's bind count when the pod was bound, and when its node
        /// last re-registered with new labels or taints.
        pub bind_serial: u64,
        pub node_changed: u64,
    }

    /// Every bound pod; a pod bound to a node that is not registered is a ghost.
    pub fn bound_pods(c: &Cluster) -> Result<Vec<Bound<'_>>, String> {
        let mut out = Vec::new();
        for p in c.pods() {
            let Some(id) = p.node else { continue };
            let n = c.node_by_id(id).ok_or_else(|| {
                format!(
                    "ghost binding: pod {} is bound to node id {} which is not registered",
                    p.name(),
                    id.0
                )
            })?;
            out.push(Bound {
                name: p.name(),
                template: p.template,
                node: n.spec,
                id,
                ready: n.ready,
                cordoned: n.cordoned,
                bind_serial: p.bind_serial,
                node_changed: n.changed_at_bind,
            });
        }
        Ok(out)
    }

    /// Requests bound to each node, summed from the pods.
    pub fn used(bound: &[Bound<'_>]) -> BTreeMap<NodeId, (u64, u64, u32)> {
        let mut used: BTreeMap<NodeId, (u64, u64, u32)> = BTreeMap::new();
        for b in bound {
            let u = used.entry(b.id).or_default();
            u.0 += b.template.requests.cpu_millis;
            u.1 += b.template.requests.memory_bytes;
            u.2 += 1;
        }
        used
    }

    /// Scalar requests (nvidia.com/gpu...) bound to node `id`, summed from the pods.
    pub fn scalars_on(bound: &[Bound<'_>], id: NodeId) -> shepherd::Scalars {
        let mut s = shepherd::Scalars::new();
        for b in bound.iter().filter(|b| b.id == id) {
            s.add(&b.template.scalar_requests);
        }
        s
    }

    /// No ghosts (pods on removed or NotReady nodes), no overcommit, and the
    /// scheduler's books (allocated, pod counts, bound and pending totals)
    /// agree with the pods.
    pub fn capacity(c: &Cluster) -> Result<(), String> {
        let bound = bound_pods(c)?;
        for p in c.pods() {
            let Some(n) = p.node.and_then(|id| c.node_by_id(id)) else {
                continue;
            };
            if n.ready {
                continue;
            }
            // Bound before its node went NotReady: it stays, not Ready, while
            // it tolerates the unreachable taint.
            ensure!(
                !p.ready,
                "pod {} is Ready on node {} which is NotReady",
                p.name(),
                n.name()
            );
            ensure!(
                unreachable_stay(&p.template.tolerations).is_some(),
                "pod {} stays on NotReady node {} though it does not tolerate {UNREACHABLE}:NoExecute",
                p.name(),
                n.name()
            );
        }
        let mut pending = 0u32;
        for p in c.pods() {
            match (p.node, p.phase) {
                (Some(_), PodPhase::Running) | (None, PodPhase::Lost) => {}
                (None, PodPhase::Pending) => pending += 1,
                (n, phase) => {
                    return Err(format!(
                        "pod {} is {:?} with node {:?}",
                        p.name(),
                        phase,
                        n.map(|x| x.0)
                    ))
                }
            }
        }
        let used = used(&bound);
        for n in c.nodes() {
            let (cpu, mem, count) = used.get(&n.id).copied().unwrap_or_default();
            let cap = n.spec.capacity;
            if cpu > cap.cpu_millis || mem > cap.memory_bytes {
                return Err(format!(
                    "node {} is overcommitted: its pods request {cpu}m cpu and {mem} bytes of memory, capacity is {cap}",
                    n.name()
                ));
            }
            // Every scalar resource too, and the books' per-node sums.
            let s = scalars_on(&bound, n.id);
            for (k, v) in s.iter() {
                ensure!(
                    v <= n.spec.scalars.get(k),
                    "node {} is overcommitted: its pods request {v} {k}, allocatable is {}",
                    n.name(),
                    n.spec.scalars.get(k)
                );
            }
            ensure!(
                c.scalars_requested(n.id) == &s,
                "node {}: the books say {:?} of scalar resources, the pods say {:?}",
                n.name(),
                c.scalars_requested(n.id),
                s
            );
            if n.allocated != Resources::new(cpu, mem) || n.pod_count != count {
                return Err(format!(
                    "node {}: the books say {} in {} pods, the pods say {cpu}m, {mem} bytes in {count}",
                    n.name(),
                    n.allocated,
                    n.pod_count
                ));
            }
        }
        ensure!(
            c.bound_count() as usize == bound.len(),
            "bound_count() says {}, {} pods are bound",
            c.bound_count(),
            bound.len()
        );
        ensure!(
            c.pending_count() == pending,
            "pending_count() says {}, {} pods are Pending",
            c.pending_count(),
            pending
        );
        Ok(())
    }

    /// Two bound pods share a topology domain that an anti-affinity term of
    /// the first excludes the second from.
    fn anti_affinity_breach(a: &Bound<'_>, q: &Bound<'_>) -> Option<String> {
        for term in &a.template.anti_affinity {
            let d = domain(a.node, &term.topology_key);
            if d.is_some()
                && d == domain(q.node, &term.topology_key)
                && selects(&term.selector.match_labels, &q.template.labels)
            {
                return Some(format!(
                    "pods {} (node {}) and {} (node {}) share {}={} against {}'s anti-affinity",
                    a.name,
                    a.node.name,
                    q.name,
                    q.node.name,
                    term.topology_key,
                    d.unwrap_or_default(),
                    a.name
                ));
            }
        }
        None
    }

    /// Every bound pod is kept by its node (nodeSelector, NoExecute taints,
    /// NoSchedule taints it had when the pod was bound), and no pair of bound
    /// pods breaks an anti-affinity term either way, unless one of their
    /// nodes re-registered with new labels or taints after both were bound
    /// (IgnoredDuringExecution: the engine keeps such pods, as Kubernetes does).
    pub fn constraints(c: &Cluster) -> Result<(), String> {
        let bound = bound_pods(c)?;
        for b in &bound {
            node_keeps(b.template, b.node, b.bind_serial > b.node_changed)
                .map_err(|e| format!("pod {} on node {}: {e}", b.name, b.node.name))?;
        }
        for a in &bound {
            for q in &bound {
                let later = a.bind_serial.max(q.bind_serial);
                let forgiven = a.node_changed >= later || q.node_changed >= later;
                if a.name != q.name && !forgiven {
                    if let Some(why) = anti_affinity_breach(a, q) {
                        return Err(why);
                    }
                }
            }
        }
        Ok(())
    }

    /// What the bind of `pod` had to respect at the moment it happened: a
    /// Ready, schedulable node that admits it, its required affinity (a
    /// matching pod in its domain, or it is the first of a self-matching
    /// group), and anti-affinity both ways.
    pub fn bind_rules(c: &Cluster, pod: &str) -> Result<(), String> {
        let bound = bound_pods(c)?;
        let me = bound
            .iter()
            .find(|b| b.name == pod)
            .ok_or_else(|| format!("pod {pod} was reported bound but is not"))?;
        // A cordoned node takes only pods that tolerate the
        // node.kubernetes.io/unschedulable taint (kube-scheduler's
        // NodeUnschedulable plugin).
        ensure!(
            me.ready && (!me.cordoned || tolerates_unschedulable(me.template)),
            "pod {pod} was bound to node {} which is NotReady or cordoned",
            me.node.name
        );
        node_admits(me.template, me.node)
            .map_err(|e| format!("pod {pod} bound to node {}: {e}", me.node.name))?;
        for term in &me.template.affinity {
            let key = &term.topology_key;
            let sel = &term.selector.match_labels;
            let d = domain(me.node, key);
            // (Only pods on nodes with the key count, for the first of a
            // group too: kube-scheduler's affinity counts skip the others.)
            let others = bound.iter().filter(|q| {
                q.name != me.name
                    && selects(sel, &q.template.labels)
                    && domain(q.node, key).is_some()
            });
            let here = d.is_some() && others.clone().any(|q| domain(q.node, key) == d);
            let first =
                d.is_some() && selects(sel, &me.template.labels) && others.clone().next().is_none();
            ensure!(
                here || first,
                "pod {pod} bound to node {} breaks its affinity {:?} in {key}",
                me.node.name,
                sel
            );
        }
        for q in &bound {
            if q.name != me.name {
                if let Some(why) =
                    anti_affinity_breach(me, q).or_else(|| anti_affinity_breach(q, me))
                {
                    return Err(format!("right after binding {pod}: {why}"));
                }
            }
        }
        Ok(())
    }

    /// Why `t` could not be bound to `n` now, or `Ok` if it could.
    pub fn could_place(
        bound: &[Bound<'_>],
        used: &BTreeMap<NodeId, (u64, u64, u32)>,
        t: &PodTemplate,
        n: &shepherd::NodeView<'_>,
    ) -> Result<(), &'static str> {
        if !n.ready {
            return Err("NotReady");
        }
        if n.cordoned && !tolerates_unschedulable(t) {
            return Err("cordoned");
        }
        node_admits(t, n.spec).map_err(|_| "nodeSelector or taint")?;
        let (cpu, mem, _) = used.get(&n.id).copied().unwrap_or_default();
        if cpu + t.requests.cpu_millis > n.spec.capacity.cpu_millis
            || mem + t.requests.memory_bytes > n.spec.capacity.memory_bytes
        {
            return Err("resources");
        }
        if !t.scalar_requests.is_empty()
            && !t
                .scalar_requests
                .fits(&scalars_on(bound, n.id), &n.spec.scalars)
        {
            return Err("resources");
        }
        for term in &t.affinity {
            let key = &term.topology_key;
            let sel = &term.selector.match_labels;
            let d = domain(n.spec, key);
            let mut matching = bound
                .iter()
                .filter(|q| selects(sel, &q.template.labels) && domain(q.node, key).is_some());
            let here = d.is_some() && matching.clone().any(|q| domain(q.node, key) == d);
            let first = d.is_some() && selects(sel, &t.labels) && matching.next().is_none();
            if !here && !first {
                return Err("affinity");
            }
        }
        for term in &t.anti_affinity {
            let d = domain(n.spec, &term.topology_key);
            if d.is_some()
                && bound.iter().any(|q| {
                    selects(&term.selector.match_labels, &q.template.labels)
                        && domain(q.node, &term.topology_key) == d
                })
            {
                return Err("anti-affinity");
            }
        }
        for q in bound {
            for term in &q.template.anti_affinity {
                let d = domain(n.spec, &term.topology_key);
                if d.is_some()
                    && d == domain(q.node, &term.topology_key)
                    && selects(&term.selector.match_labels, &t.labels)
                {
                    return Err("existing anti-affinity");
                }
            }
        }
        Ok(())
    }

    /// At a fixed point: every Deployment has its desired number of live
    /// pods, none is Lost, and no Pending pod has a feasible node.
    pub fn settled(c: &Cluster) -> Result<(), String> {
        let mut live: BTreeMap<String, u32> = BTreeMap::new();
        for p in c.pods() {
            ensure!(
                p.phase != PodPhase::Lost,
                "pod {} is still Lost at a fixed point",
                p.name()
            );
            *live.entry(p.app.to_string()).or_default() += 1;
        }
        for a in c.apps() {
            let have = live.get(&a.name).copied().unwrap_or(0);
            ensure!(
                have == a.desired,
                "app {} wants {} pods and has {have}",
                a.name,
                a.desired
            );
        }
        let bound = bound_pods(c)?;
        let used = used(&bound);
        for p in c.pods().filter(|p| p.node.is_none()) {
            for n in c.nodes() {
                if could_place(&bound, &used, p.template, &n).is_ok() {
                    return Err(format!(
                        "pod {} is Pending at a fixed point but node {} could take it",
                        p.name(),
                        n.name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every Pending pod carries a FailedScheduling reason in Kubernetes'
    /// form, and `fully_satisfied` agrees with the pods.
    pub fn pending_explained(c: &Cluster) -> Result<(), String> {
        for p in c.pods().filter(|p| p.phase == PodPhase::Pending) {
            let name = p.name();
            let reason = c
                .pending_reason(&name)
                .map_err(|e| format!("pending_reason({name}): {e}"))?;
            match reason {
                Some(r) if r.starts_with("0/") && r.contains(" nodes are available: ") => {}
                other => {
                    return Err(format!(
                        "pod {name} is Pending without a FailedScheduling reason: {other:?}"
                    ))
                }
            }
        }
        let mut all = true;
        for a in c.apps() {
            let pods: Vec<_> = c.pods().filter(|p| p.app == a.name).collect();
            all &= pods.len() as u32 == a.desired
                && pods
                    .iter()
                    .all(|p| p.node.is_some() && p.revision == a.revision);
        }
        ensure!(
            c.fully_satisfied() == all,
            "fully_satisfied() says {}, the pods say {all}",
            c.fully_satisfied()
        );
        Ok(())
    }
}

/// Everything that must hold at any fixed point, by both checkers.
fn settled_checks(c: &Cluster) -> Result<(), String> {
    verify_capacity(c).map_err(|e| format!("verify_capacity: {e}"))?;
    scratch::capacity(c).map_err(|e| format!("scratch capacity: {e}"))?;
    verify_constraints(c).map_err(|e| format!("verify_constraints: {e}"))?;
    scratch::constraints(c).map_err(|e| format!("scratch constraints: {e}"))?;
    verify_settled(c).map_err(|e| format!("verify_settled: {e}"))?;
    scratch::settled(c).map_err(|e| format!("scratch settled: {e}"))?;
    scratch::pending_explained(c)
}

/// What must hold at every instant, fixed point or not.
fn safety_checks(c: &Cluster) -> Result<(), String> {
    verify_capacity(c).map_err(|e| format!("verify_capacity: {e}"))?;
    scratch::capacity(c).map_err(|e| format!("scratch capacity: {e}"))?;
    verify_constraints(c).map_err(|e| format!("verify_constraints: {e}"))?;
    scratch::constraints(c).map_err(|e| format!("scratch constraints: {e}"))
}

/// Right after one bind: the pod is where the scheduler said, and both
/// checkers accept the bind and every node's capacity.
fn check_bind(c: &Cluster, pod: &str, n: NodeId) -> Result<(), String> {
    let p = c
        .pod_by_name(pod)
        .map_err(|e| format!("the pod just bound cannot be found: {e}"))?;
    ensure!(
        p.node == Some(n),
        "on_bind said {pod} went to node id {} but the pod says {:?}",
        n.0,
        p.node.map(|x| x.0)
    );
    verify_bind(c, pod).map_err(|e| format!("verify_bind: {e}"))?;
    scratch::capacity(c).map_err(|e| format!("scratch capacity: {e}"))?;
    scratch::bind_rules(c, pod).map_err(|e| format!("scratch bind rules: {e}"))
}

/// The node a pod was just bound to is the one `explain` ranks first: the
/// batch scheduler (heap, top-k cut, lazy re-checks) picks exactly what
/// filtering and scoring every node one by one would pick.
fn check_best_choice(c: &Cluster, pod: &str, n: NodeId, policy: ScorePolicy) -> Result<(), String> {
    let ex = c
        .explain(pod, policy)
        .map_err(|e| format!("explain failed: {e}"))?;
    let bound = c
        .node_by_id(n)
        .map(|v| v.name().to_string())
        .unwrap_or_default();
    let first = ex
        .nodes
        .iter()
        .find(|v| v.position == Some(1))
        .map(|v| v.node.clone());
    ensure!(
        first.as_deref() == Some(bound.as_str()),
        "{pod} went to {bound} but filtering and scoring every node ranks {first:?} first under {policy:?}"
    );
    Ok(())
}

/// Reconciles to a fixed point and checks it.
fn settle(c: &mut Cluster, policy: ScorePolicy, ctx: &str) -> Result<(), String> {
    let fp = c.reconcile_to_fixed_point(policy);
    ensure!(
        fp.converged,
        "after {ctx}: no fixed point within {} passes",
        fp.passes
    );
    settled_checks(c).map_err(|e| format!("after {ctx}: {e}"))
}

/// Reconciles to a fixed point with a check after every single bind, either
/// through `reconcile_to_fixed_point_observed` or pass by pass through
/// `reconcile_once_observed`.
fn observed_settle(
    c: &mut Cluster,
    policy: ScorePolicy,
    pass_by_pass: bool,
    ctx: &str,
) -> Result<(), String> {
    let mut binds = 0u32;
    let mut first_error: Option<String> = None;
    let mut on_bind = |cl: &Cluster, pod: &str, n: NodeId| {
        binds += 1;
        if first_error.is_none() {
            if let Err(e) =
                check_bind(cl, pod, n).and_then(|_| check_best_choice(cl, pod, n, policy))
            {
                first_error = Some(format!("bind #{binds} ({pod} to node id {}): {e}", n.0));
            }
        }
    };
    let (converged, passes, reported) = if pass_by_pass {
        let (mut converged, mut passes, mut reported) = (false, 0, 0);
        while passes < PASS_BUDGET {
            let r = c.reconcile_once_observed(policy, &mut on_bind);
            passes += 1;
            reported += r.bound;
            if !r.changed() {
                converged = true;
                break;
            }
        }
        (converged, passes, reported)
    } else {
        let fp = c.reconcile_to_fixed_point_observed(policy, &mut on_bind);
        (fp.converged, fp.passes, fp.total.bound)
    };
    if let Some(e) = first_error {
        return Err(format!("during {ctx}: {e}"));
    }
    ensure!(
        converged,
        "after {ctx}: no fixed point within {passes} passes"
    );
    ensure!(
        binds == reported,
        "after {ctx}: on_bind ran {binds} times but the reports count {reported} binds"
    );
    settled_checks(c).map_err(|e| format!("after {ctx}: {e}"))
}

// ===== random clusters =======================================================

const ZONE: &str = "topology.kubernetes.io/zone";
const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];
const APP_NAMES: [&str; 8] = [
    "web", "api", "cache", "worker", "db", "queue", "search", "auth",
];

/// How a random cluster is drawn.
#[derive(Clone, Copy, Debug)]
struct Mix {
    nodes: (u64, u64),
    apps: (u64, u64),
    max_replicas: u64,
    /// Percent chance of each constraint feature (taints, selectors,
    /// tolerations, affinity, cordons).
    constraints: u64,
    /// Small nodes, so capacity runs out.
    tight: bool,
}

impl Mix {
    const DEFAULT: Mix = Mix {
        nodes: (1, 8),
        apps: (1, 6),
        max_replicas: 8,
        constraints: 30,
        tight: false,
    };
}

fn app_name(i: usize) -> String {
    if i < APP_NAMES.len() {
        APP_NAMES[i].to_string()
    } else {
        format!("{}-{}", APP_NAMES[i % APP_NAMES.len()], i / APP_NAMES.len())
    }
}

fn random_policy(rng: &mut Prng) -> ScorePolicy {
    if rng.chance(50) {
        ScorePolicy::BinPack
    } else {
        ScorePolicy::LeastLoaded
    }
}

fn with_random_taint(rng: &mut Prng, n: NodeSpec) -> NodeSpec {
    match rng.below(4) {
        0 => n
            .with_taint(Taint::new("dedicated", "gpu", TaintEffect::NoSchedule))
            .with_label("accelerator", "gpu"),
        1 => n.with_taint(Taint::new("dedicated", "infra", TaintEffect::NoSchedule)),
        2 => n.with_taint(Taint::new("spot", "true", TaintEffect::PreferNoSchedule)),
        _ => n.with_taint(Taint::new("maintenance", "true", TaintEffect::NoExecute)),
    }
}

/// A node; `zone` fixes its zone label (a re-registration keeps it), `None`
/// draws one.
fn random_node(rng: &mut Prng, name: &str, mix: &Mix, zone: Option<Option<String>>) -> NodeSpec {
    let (cpu, mem) = if mix.tight {
        (rng.range(1, 8) * 250, rng.range(1, 16) * 256)
    } else {
        (rng.range(2, 32) * 250, rng.range(2, 64) * 256)
    };
    let mut n = NodeSpec::new(name, cpu, mem * MIB);
    let zone = match zone {
        Some(z) => z,
        None => rng.chance(90).then(|| pick(rng, &ZONES).to_string()),
    };
    if let Some(z) = zone {
        n = n.with_label(ZONE, &z);
    }
    if rng.chance(40) {
        n = n.with_label("disktype", "ssd");
    }
    if rng.chance(30) {
        n = n.with_label("pool", "batch");
    }
    if rng.chance(20) {
        n = n.with_scalar("nvidia.com/gpu", rng.range(1, 4));
    }
    if rng.chance(5) {
        // Shared by several nodes: one hostname domain, as Kubernetes
        // counts it; or no hostname label at all: no hostname domain.
        if rng.chance(50) {
            n = n.with_label("kubernetes.io/hostname", "shared-host");
        } else {
            n.labels.remove("kubernetes.io/hostname");
        }
    }
    if rng.chance(mix.constraints) {
        for _ in 0..rng.range(1, 2) {
            n = with_random_taint(rng, n);
        }
    }
    n
}

fn random_toleration(rng: &mut Prng) -> Toleration {
    use TaintEffect::*;
    match rng.below(8) {
        0 => Toleration::equal("dedicated", "gpu", Some(NoSchedule)),
        1 => Toleration::equal("dedicated", "gpu", None),
        // The right key with the wrong effect tolerates nothing here.
        2 => Toleration::equal("dedicated", "infra", Some(NoExecute)),
        3 => Toleration::exists("dedicated", None),
        4 => Toleration::exists("maintenance", Some(NoExecute)),
        5 => Toleration::equal("maintenance", "true", Some(NoSchedule)),
        6 => Toleration::exists("spot", Some(PreferNoSchedule)),
        // An empty key with Exists tolerates every taint.
        _ => Toleration::exists("", None),
    }
}

fn random_term(rng: &mut Prng, own: &str, peers: &[String]) -> AffinityTerm {
    let selector = match rng.below(4) {
        0 | 1 => Selector::new(&[("app", own)]),
        2 if !peers.is_empty() => {
            let peer = pick(rng, peers);
            Selector::new(&[("app", peer.as_str())])
        }
        _ => Selector::new(&[("tier", pick(rng, &["frontend", "backend"]))]),
    };
    let key = if rng.chance(50) { None } else { Some(ZONE) };
    AffinityTerm::new(selector, key)
}

fn random_app(rng: &mut Prng, name: &str, peers: &[String], mix: &Mix) -> DeploymentSpec {
    let replicas = if rng.chance(5) {
        0
    } else {
        rng.range(1, mix.max_replicas) as u32
    };
    // Tight mixes ask for up to 2 cores and 4 GiB, the others for a fraction
    // of that, so some clusters fill up and others have room to spare.
    let (cpu, mem) = if mix.tight {
        (rng.range(1, 40) * 50, rng.range(1, 64) * 64)
    } else {
        (rng.range(1, 12) * 50, rng.range(1, 16) * 64)
    };
    let requests = match rng.below(12) {
        0 => Resources::new(cpu, 0),
        1 => Resources::new(0, mem * MIB),
        _ => Resources::new(cpu, mem * MIB),
    };
    let mut d = DeploymentSpec::new(name, replicas, requests);
    let mut t = d.template.with_ready_after(rng.range(0, 2) as u32);
    if rng.chance(30) {
        t = t.with_label("tier", pick(rng, &["frontend", "backend"]));
    }
    if rng.chance(mix.constraints) {
        t = match rng.below(4) {
            0 | 1 => t.with_node_selector("disktype", "ssd"),
            2 => t.with_node_selector("pool", "batch"),
            _ => t
                .with_node_selector("accelerator", "gpu")
                .with_toleration(Toleration::equal(
                    "dedicated",
                    "gpu",
                    Some(TaintEffect::NoSchedule),
                )),
        };
    }
    if rng.chance(mix.constraints) {
        for _ in 0..rng.range(1, 2) {
            t = t.with_toleration(random_toleration(rng));
        }
    }
    if rng.chance(mix.constraints / 2) {
        t = t.with_affinity(random_term(rng, name, peers));
    }
    if rng.chance(mix.constraints) {
        t = t.with_anti_affinity(random_term(rng, name, peers));
    }
    // Some apps want GPUs (extended resources: only GPU nodes fit them,
    // and the gate's capacity check covers every resource).
    if rng.chance(10) {
        t = t.with_scalar("nvidia.com/gpu", rng.range(1, 2));
    }
    d.template = t;
    d
}

/// A cluster to build: nodes, which of them are cordoned, Deployments.
#[derive(Clone, Debug)]
struct Scenario {
    policy: ScorePolicy,
    nodes: Vec<NodeSpec>,
    cordoned: Vec<String>,
    apps: Vec<DeploymentSpec>,
}

impl Scenario {
    fn random(rng: &mut Prng, mix: &Mix) -> Scenario {
        let policy = random_policy(rng);
        let n = rng.range(mix.nodes.0, mix.nodes.1);
        let nodes: Vec<NodeSpec> = (1..=n)
            .map(|i| random_node(rng, &format!("node-{i}"), mix, None))
            .collect();
        let cordoned = nodes
            .iter()
            .filter(|_| rng.chance(mix.constraints / 4))
            .map(|n| n.name.clone())
            .collect();
        let names: Vec<String> = (0..rng.range(mix.apps.0, mix.apps.1) as usize)
            .map(app_name)
            .collect();
        let apps = names
            .iter()
            .map(|name| random_app(rng, name, &names, mix))
            .collect();
        Scenario {
            policy,
            nodes,
            cordoned,
            apps,
        }
    }

    /// A cluster from the engine's own generator (`workload::generate`).
    fn from_workload(rng: &mut Prng) -> Scenario {
        let policy = random_policy(rng);
        let cfg = WorkloadConfig {
            nodes: rng.range(1, 10) as u32,
            apps: rng.range(1, 10) as u32,
            min_replicas: 0,
            max_replicas: rng.range(1, 12) as u32,
            constraints: rng.chance(70),
        };
        let w = generate(rng, &cfg);
        Scenario {
            policy,
            nodes: w.nodes,
            cordoned: Vec::new(),
            apps: w.apps,
        }
    }

    fn build(&self) -> Result<Cluster, String> {
        let mut c = Cluster::new();
        for n in &self.nodes {
            c.add_node(n.clone())
                .map_err(|e| refused(&format!("add node {}", n.name), e))?;
        }
        for n in &self.cordoned {
            c.cordon(n)
                .map_err(|e| refused(&format!("cordon {n}"), e))?;
        }
        for a in &self.apps {
            c.deploy(a.clone())
                .map_err(|e| refused(&format!("deploy {}", a.name), e))?;
        }
        Ok(c)
    }

    /// The declarations, one line each, for a failure report.
    fn describe(&self) -> String {
        let mut s = format!("  policy {}\n", self.policy.as_str());
        for n in &self.nodes {
            let taints: Vec<String> = n.taints.iter().map(|t| t.to_string()).collect();
            s += &format!(
                "  node {} {}m/{}B labels{:?} taints{:?}{}\n",
                n.name,
                n.capacity.cpu_millis,
                n.capacity.memory_bytes,
                n.labels,
                taints,
                if self.cordoned.contains(&n.name) {
                    " cordoned"
                } else {
                    ""
                }
            );
        }
        for a in &self.apps {
            s += &format!("  app {}\n", describe_app(a));
        }
        s
    }
}

fn describe_app(a: &DeploymentSpec) -> String {
    let t = &a.template;
    let terms = |v: &[AffinityTerm]| -> Vec<String> {
        v.iter()
            .map(|x| format!("{}@{}", x.selector, x.topology_key))
            .collect()
    };
    let tols: Vec<String> = t
        .tolerations
        .iter()
        .map(|x| {
            format!(
                "{}:{:?}:{}:{}",
                x.key,
                x.operator,
                x.value,
                x.effect.map(|e| e.as_str()).unwrap_or("*")
            )
        })
        .collect();
    format!(
        "{} x{} {}m/{}B labels{:?} nodeSelector{:?} tolerations{:?} affinity{:?} anti{:?}",
        a.name,
        a.replicas,
        t.requests.cpu_millis,
        t.requests.memory_bytes,
        t.labels,
        t.node_selector,
        tols,
        terms(&t.affinity),
        terms(&t.anti_affinity)
    )
}

/// Runs `f`; a failure carries the scenario's declarations.
fn in_scenario(sc: &Scenario, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    f().map_err(|e| format!("{e}\nscenario:\n{}", sc.describe()))
}

/// A new body for an existing node: usually smaller, with new labels and
/// taints, but the same zone (the engine, like Kubernetes, does not re-check
/// anti-affinity when a node is relabelled).
fn reregistration(rng: &mut Prng, c: &Cluster, name: &str, mix: &Mix) -> Option<NodeSpec> {
    let old = c.node(name).ok()?.spec.clone();
    let zone = old.labels.get(ZONE).cloned();
    let mut n = random_node(rng, name, mix, Some(zone));
    if rng.chance(70) {
        let shrink = |v: u64, pct: u64| (v * pct / 100).max(1);
        n.capacity = Resources::new(
            shrink(old.capacity.cpu_millis, rng.range(20, 100)),
            shrink(old.capacity.memory_bytes, rng.range(20, 100)),
        );
    }
    Some(n)
}

/// One random change to a running cluster; returns what it did.
fn mutate(rng: &mut Prng, c: &mut Cluster, mix: &Mix, serial: &mut u32) -> Result<String, String> {
    *serial += 1;
    let nodes: Vec<String> = c.nodes().map(|n| n.name().to_string()).collect();
    let apps: Vec<String> = c.apps().map(|a| a.name).collect();
    let what = match rng.below(9) {
        0 if !apps.is_empty() => {
            let a = pick(rng, &apps);
            let r = rng.range(0, mix.max_replicas + 2) as u32;
            c.scale(&a, r).map_err(|e| refused("scale", e))?;
            format!("scale {a} to {r}")
        }
        1 => {
            let n = random_node(rng, &format!("node-x{serial}"), mix, None);
            let what = format!("add node {} ({})", n.name, n.capacity);
            c.add_node(n).map_err(|e| refused(&what, e))?;
            what
        }
        2 if nodes.len() > 1 => {
            let n = pick(rng, &nodes);
            c.remove_node(&n).map_err(|e| refused("remove node", e))?;
            format!("remove node {n}")
        }
        3 if !nodes.is_empty() => {
            let n = pick(rng, &nodes);
            c.cordon(&n).map_err(|e| refused("cordon", e))?;
            format!("cordon {n}")
        }
        4 if !nodes.is_empty() => {
            let n = pick(rng, &nodes);
            c.uncordon(&n).map_err(|e| refused("uncordon", e))?;
            format!("uncordon {n}")
        }
        5 if !apps.is_empty() => {
            let a = pick(rng, &apps);
            c.delete_app(&a).map_err(|e| refused("delete app", e))?;
            format!("delete app {a}")
        }
        6 => {
            let d = random_app(rng, &format!("extra-{serial}"), &apps, mix);
            let what = format!("deploy {}", describe_app(&d));
            c.deploy(d).map_err(|e| refused(&what, e))?;
            what
        }
        7 | 8 if !nodes.is_empty() => {
            let name = pick(rng, &nodes);
            let n = reregistration(rng, c, &name, mix).expect("a listed node should exist");
            let what = format!(
                "re-register {name} with {} labels{:?} taints{:?}",
                n.capacity,
                n.labels,
                n.taints.iter().map(|t| t.to_string()).collect::<Vec<_>>()
            );
            c.reregister_node(n).map_err(|e| refused(&what, e))?;
            what
        }
        _ => "nothing".to_string(),
    };
    Ok(what)
}

// ===== the eight properties ==================================================

/// 1. Reconciliation reaches a fixed point, and there every controller is
///    satisfied or every pending pod has no feasible node; again after random
///    changes.
#[test]
fn prop_convergence() {
    gate("prop_convergence", |seed| {
        let mut rng = rng_for(seed, 1);
        let mix = Mix::DEFAULT;
        let sc = if rng.chance(25) {
            Scenario::from_workload(&mut rng)
        } else {
            Scenario::random(&mut rng, &mix)
        };
        in_scenario(&sc, || {
            let mut c = sc.build()?;
            settle(&mut c, sc.policy, "the initial declarations")?;
            let mut serial = 0;
            for _ in 0..rng.range(1, 4) {
                let what = mutate(&mut rng, &mut c, &mix, &mut serial)?;
                settle(&mut c, sc.policy, &what)?;
            }
            Ok(())
        })
    });
}

/// 2. The sum of requests on every node stays within its capacity after
///    every single bind, on small nodes where capacity runs out.
#[test]
fn prop_capacity_after_every_bind() {
    gate("prop_capacity_after_every_bind", |seed| {
        let mut rng = rng_for(seed, 2);
        let mix = Mix {
            tight: true,
            max_replicas: 14,
            constraints: 20,
            ..Mix::DEFAULT
        };
        let sc = Scenario::random(&mut rng, &mix);
        in_scenario(&sc, || {
            let mut c = sc.build()?;
            let pass_by_pass = rng.chance(50);
            observed_settle(&mut c, sc.policy, pass_by_pass, "the initial declarations")?;
            let mut serial = 0;
            for _ in 0..rng.range(1, 5) {
                let what = mutate(&mut rng, &mut c, &mix, &mut serial)?;
                observed_settle(&mut c, sc.policy, pass_by_pass, &what)?;
            }
            Ok(())
        })
    });
}

/// A cluster of identical nodes and identically sized pods without
/// constraints, where the nodes other than any one can hold every pod.
fn uniform_scenario(rng: &mut Prng) -> Scenario {
    let n = rng.range(2, 6);
    let (cpu, mem) = pick(
        rng,
        &[
            (250, 512),
            (500, 1024),
            (1000, 1024),
            (1000, 2048),
            (2000, 4096),
        ],
    );
    let per_node = (4000 / cpu).min(8192 / mem);
    let mut left = rng.range(1, (n - 1) * per_node);
    let apps_n = rng.range(1, 3) as usize;
    let mut apps = Vec::new();
    for i in 0..apps_n {
        let r = if i + 1 == apps_n {
            left
        } else {
            rng.range(0, left)
        };
        left -= r;
        apps.push(DeploymentSpec::new(
            &app_name(i),
            r as u32,
            Resources::new(cpu, mem * MIB),
        ));
    }
    Scenario {
        policy: random_policy(rng),
        nodes: (1..=n)
            .map(|i| {
                NodeSpec::new(&format!("node-{i}"), 4000, 8192 * MIB)
                    .with_label(ZONE, ZONES[(i as usize - 1) % 3])
            })
            .collect(),
        cordoned: Vec::new(),
        apps,
    }
}

/// What a run of the failure script ends with, to compare two runs.
#[derive(Debug, PartialEq)]
struct Trace {
    placement: Vec<(String, Option<String>, bool)>,
    events: Vec<RenderedEvent>,
}

/// Declares a cluster at tick 1, kills one node, steps past the heartbeat
/// timeout, then plays random follow-up events; checks every tick.
fn failure_run(seed: u64) -> Result<Trace, String> {
    let mut rng = rng_for(seed, 3);
    let uniform = rng.chance(50);
    let sc = if uniform {
        uniform_scenario(&mut rng)
    } else {
        Scenario::random(
            &mut rng,
            &Mix {
                nodes: (2, 8),
                ..Mix::DEFAULT
            },
        )
    };
    let names: Vec<String> = sc.nodes.iter().map(|n| n.name.clone()).collect();
    let victim = pick(&mut rng, &names);
    let timeout = rng.range(1, 4);
    let fail_at = rng.range(2, 4);
    let detect = fail_at + timeout + 1;
    // DefaultTolerationSeconds: the victim's pods go 300 s after it is
    // NotReady. Follow-up events come either while they wait (a recovery
    // then cancels their timers) or once they are gone.
    let evicted = detect + shepherd::DEFAULT_TOLERATION_SECONDS;
    let end = evicted + rng.range(3, 10);
    let late = rng.chance(50);
    let window = if late {
        evicted + 1..=end
    } else {
        detect + 1..=detect + 10
    };

    let mut script: Vec<(u64, Event)> = Vec::new();
    script.extend(sc.nodes.iter().map(|n| (1, Event::AddNode(n.clone()))));
    script.extend(sc.cordoned.iter().map(|n| (1, Event::Cordon(n.clone()))));
    script.extend(sc.apps.iter().map(|a| (1, Event::Deploy(a.clone()))));
    script.push((fail_at, Event::FailNode(victim.clone())));
    for t in window {
        if !rng.chance(40) {
            continue;
        }
        let e = match rng.below(5) {
            0 => Event::RecoverNode(victim.clone()),
            1 => Event::FailNode(pick(&mut rng, &names)),
            2 if !sc.apps.is_empty() => Event::Scale {
                app: pick(&mut rng, &sc.apps).name,
                replicas: rng.range(0, 8) as u32,
            },
            3 => Event::Cordon(pick(&mut rng, &names)),
            _ => Event::Uncordon(pick(&mut rng, &names)),
        };
        script.push((t, e));
    }
    let described = format!(
        "victim {victim}, heartbeat timeout {timeout}, fails at tick {fail_at}\nscript: {:?}\nscenario:\n{}",
        script
            .iter()
            .filter(|(t, _)| *t > 1)
            .map(|(t, e)| format!("t{t} {}", e.describe()))
            .collect::<Vec<_>>(),
        sc.describe()
    );
    let fail = |e: String| format!("{e}\n{described}");

    let mut sim = Simulator::with_script(seed, sc.policy, script);
    sim.cluster_mut()
        .set_heartbeat_timeout(timeout)
        .map_err(|e| refused("set_heartbeat_timeout", e))?;
    let mut watch = scratch::EvictionWatch::default();
    let mut on_victim_before: Vec<String> = Vec::new();
    for tick in 1..=end {
        let rep = sim.step();
        ensure!(
            rep.reconcile.converged,
            "{}",
            fail(format!("tick {tick}: no fixed point"))
        );
        let c = sim.cluster();
        settled_checks(c).map_err(|e| fail(format!("tick {tick}: {e}")))?;
        watch.observe(c).map_err(&fail)?;
        let v = c
            .node(&victim)
            .map_err(|e| fail(format!("tick {tick}: the victim is gone: {e}")))?;
        let on_victim: Vec<String> = c
            .pods()
            .filter(|p| p.node == Some(v.id))
            .map(|p| p.name())
            .collect();
        if tick < detect {
            ensure!(
                v.ready,
                "{}",
                fail(format!(
                    "tick {tick}: {victim} is NotReady before its timeout"
                ))
            );
            on_victim_before = on_victim;
        } else if tick == detect {
            ensure!(
                !v.ready,
                "{}",
                fail(format!(
                    "tick {tick}: {victim} is still Ready {} ticks after its kubelet stopped",
                    tick - fail_at
                ))
            );
            // Marked not Ready, not deleted: every pod that tolerates the
            // unreachable taint (with the admission's 300 s) is still there.
            let kept: Vec<String> = c
                .pods()
                .filter(|p| on_victim_before.contains(&p.name()))
                .filter(|p| scratch::unreachable_stay(&p.template.tolerations).is_some())
                .map(|p| p.name())
                .collect();
            ensure!(
                kept.iter().all(|p| on_victim.contains(p)),
                "{}",
                fail(format!(
                    "tick {tick}: pods left the NotReady node {victim} before their tolerationSeconds: had {on_victim_before:?}, has {on_victim:?}"
                ))
            );
            ensure!(
                c.pods().filter(|p| p.node == Some(v.id)).all(|p| !p.ready),
                "{}",
                fail(format!(
                    "tick {tick}: a pod on NotReady {victim} is still Ready"
                ))
            );
            let object = format!("node/{victim}");
            let announced = c.rendered_events().iter().any(|e| {
                e.tick == tick
                    && e.reason == "NodeNotReady"
                    && e.object == object
                    && e.type_ == "Normal"
                    && e.source == "node-controller"
                    && e.message == format!("Node {victim} status is now: NodeNotReady")
            });
            ensure!(
                announced,
                "{}",
                fail(format!("tick {tick}: no NodeNotReady event for {victim}"))
            );
        } else if tick == evicted && late {
            // Nothing happened in between: every pod that did not tolerate
            // the taint for good is gone and replaced.
            let stays: Vec<String> = c
                .pods()
                .filter(|p| p.node == Some(v.id))
                .filter(|p| scratch::unreachable_stay(&p.template.tolerations) != Some(None))
                .map(|p| p.name())
                .collect();
            ensure!(
                !v.ready && stays.is_empty(),
                "{}",
                fail(format!(
                    "tick {tick}: 300 s after {victim} went NotReady its pods {stays:?} are still there"
                ))
            );
            if uniform {
                ensure!(
                    c.fully_satisfied(),
                    "{}",
                    fail(format!(
                        "tick {tick}: the survivors have room for every pod, yet: {:?}",
                        c.apps()
                            .map(|a| (a.name, a.desired, a.bound, a.pending_reason))
                            .collect::<Vec<_>>()
                    ))
                );
            }
        }
    }
    Ok(Trace {
        placement: placement(sim.cluster()),
        events: sim.cluster().rendered_events(),
    })
}

fn first_difference(a: &[RenderedEvent], b: &[RenderedEvent]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("event #{i}: {} vs {}", a[i], b[i]),
        None => format!("logs of {} and {} events", a.len(), b.len()),
    }
}

/// 3. A killed node is declared NotReady after the heartbeat timeout; its
///    pods turn not Ready and stay for their tolerationSeconds (300 s by
///    default, never for a pod tolerating the taint for good), not a tick
///    less, then are replaced where the survivors have room (the scratch
///    `EvictionWatch` judges every eviction); and the same seed and script
///    give the same placement and log.
#[test]
fn prop_failure_recovery_and_determinism() {
    gate("prop_failure_recovery_and_determinism", |seed| {
        let first = failure_run(seed)?;
        let second = failure_run(seed)?;
        ensure!(
            first.placement == second.placement,
            "the same seed and script placed pods differently:\n{:?}\n{:?}",
            first.placement,
            second.placement
        );
        ensure!(
            first.events == second.events,
            "the same seed and script wrote different event logs: {}",
            first_difference(&first.events, &second.events)
        );
        Ok(())
    });
}

/// 4. No binding violates a taint, a nodeSelector, affinity or
///    anti-affinity: checked after every bind and at every fixed point, on
///    clusters dense with constraints.
#[test]
fn prop_constraints() {
    gate("prop_constraints", |seed| {
        let mut rng = rng_for(seed, 4);
        let mix = Mix {
            constraints: 75,
            apps: (2, 7),
            ..Mix::DEFAULT
        };
        let sc = if rng.chance(20) {
            Scenario::from_workload(&mut rng)
        } else {
            Scenario::random(&mut rng, &mix)
        };
        in_scenario(&sc, || {
            let mut c = sc.build()?;
            observed_settle(&mut c, sc.policy, false, "the initial declarations")?;
            let mut serial = 0;
            for _ in 0..rng.range(1, 4) {
                let what = mutate(&mut rng, &mut c, &mix, &mut serial)?;
                observed_settle(&mut c, sc.policy, rng.chance(50), &what)?;
            }
            Ok(())
        })
    });
}

/// The adversarial shapes of property 5.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Edge {
    ZeroReplicas,
    HugeCpu,
    HugeMemory,
    SelectorNamesNothing,
    AffinityNamesNothing,
    AffinityUnknownTopology,
    AntiAffinityNamesNothing,
    AntiAffinityUnknownTopology,
    ToleratesNothing,
}

/// How an adversarial app must end.
enum Expect {
    NoPods,
    AllPlaced,
    /// Every replica Pending, with this text in its FailedScheduling reason.
    AllPending(&'static str),
}

impl Edge {
    const ALL: [Edge; 9] = [
        Edge::ZeroReplicas,
        Edge::HugeCpu,
        Edge::HugeMemory,
        Edge::SelectorNamesNothing,
        Edge::AffinityNamesNothing,
        Edge::AffinityUnknownTopology,
        Edge::AntiAffinityNamesNothing,
        Edge::AntiAffinityUnknownTopology,
        Edge::ToleratesNothing,
    ];

    fn expect(self) -> Expect {
        match self {
            Edge::ZeroReplicas => Expect::NoPods,
            Edge::HugeCpu => Expect::AllPending("Insufficient cpu"),
            Edge::HugeMemory => Expect::AllPending("Insufficient memory"),
            Edge::SelectorNamesNothing => {
                Expect::AllPending("node(s) didn't match Pod's node affinity/selector")
            }
            Edge::AffinityNamesNothing | Edge::AffinityUnknownTopology => {
                Expect::AllPending("node(s) didn't match pod affinity rules")
            }
            Edge::AntiAffinityNamesNothing
            | Edge::AntiAffinityUnknownTopology
            | Edge::ToleratesNothing => Expect::AllPlaced,
        }
    }

    /// An app of this shape; `biggest` is the largest node's capacity.
    fn app(self, rng: &mut Prng, name: &str, biggest: Resources) -> DeploymentSpec {
        let small = Resources::new(rng.range(1, 10) * 50, (rng.range(1, 8) * 64) * MIB);
        let replicas = rng.range(1, 3) as u32;
        let nothing = Selector::new(&[("gate.example/nothing", "here")]);
        let rack = Some("gate.example/rack");
        let zone_or_host = if rng.chance(50) { Some(ZONE) } else { None };
        let d = DeploymentSpec::new(name, replicas, small);
        match self {
            Edge::ZeroReplicas => DeploymentSpec::new(
                name,
                0,
                Resources::new(biggest.cpu_millis * 2, biggest.memory_bytes * 2),
            ),
            Edge::HugeCpu => DeploymentSpec::new(
                name,
                replicas,
                Resources::new(biggest.cpu_millis + rng.range(1, 1000), small.memory_bytes),
            ),
            Edge::HugeMemory => DeploymentSpec::new(
                name,
                replicas,
                Resources::new(small.cpu_millis, biggest.memory_bytes + rng.range(1, 4096)),
            ),
            Edge::SelectorNamesNothing => {
                d.with_template(|t| t.with_node_selector("gate.example/nothing", "here"))
            }
            Edge::AffinityNamesNothing => d.with_template(|t| {
                t.with_affinity(AffinityTerm::new(nothing.clone(), zone_or_host))
            }),
            Edge::AffinityUnknownTopology => d.with_template(|t| {
                t.with_affinity(AffinityTerm::new(Selector::new(&[("app", name)]), rack))
            }),
            Edge::AntiAffinityNamesNothing => d.with_template(|t| {
                t.with_anti_affinity(AffinityTerm::new(nothing.clone(), zone_or_host))
            }),
            Edge::AntiAffinityUnknownTopology => d.with_template(|t| {
                t.with_anti_affinity(AffinityTerm::new(Selector::new(&[("app", name)]), rack))
            }),
            Edge::ToleratesNothing => d.with_template(|t| {
                t.with_toleration(Toleration::equal(
                    "gate.example/nothing",
                    "x",
                    Some(TaintEffect::NoSchedule),
                ))
            }),
        }
    }
}

/// 5. Zero replicas, pods bigger than every node, selectors and affinity
///    naming nothing: they settle, and do not block their neighbours, which
///    are fully placed because one plain node (`haven`) has room for every
///    pod that can be placed at all.
#[test]
fn prop_adversarial_edges() {
    gate("prop_adversarial_edges", |seed| {
        let mut rng = rng_for(seed, 5);
        let mix = Mix {
            constraints: 40,
            ..Mix::DEFAULT
        };
        let mut nodes: Vec<NodeSpec> = (1..=rng.range(0, 5))
            .map(|i| random_node(&mut rng, &format!("node-{i}"), &mix, None))
            .collect();
        let haven = NodeSpec::new("haven", 16000, 65536 * MIB).with_label(ZONE, "zone-a");
        let at = rng.range(0, nodes.len() as u64) as usize;
        nodes.insert(at, haven);
        let biggest = Resources::new(
            nodes
                .iter()
                .map(|n| n.capacity.cpu_millis)
                .max()
                .unwrap_or(1),
            nodes
                .iter()
                .map(|n| n.capacity.memory_bytes)
                .max()
                .unwrap_or(1),
        );
        let cordoned: Vec<String> = nodes
            .iter()
            .filter(|n| n.name != "haven" && rng.chance(20))
            .map(|n| n.name.clone())
            .collect();
        // At most 3 x 5 plain pods and 5 x 3 placeable edge pods, each at
        // most 500m and 512Mi: 15,000m and 15,360Mi, within the haven.
        let mut apps: Vec<(DeploymentSpec, Option<Edge>)> = Vec::new();
        for i in 0..rng.range(1, 3) as usize {
            let d = DeploymentSpec::new(
                &app_name(i),
                rng.range(1, 5) as u32,
                Resources::new(rng.range(1, 10) * 50, (rng.range(1, 8) * 64) * MIB),
            );
            apps.push((d, None));
        }
        for i in 0..rng.range(2, 5) {
            let edge = pick(&mut rng, &Edge::ALL);
            apps.push((
                edge.app(&mut rng, &format!("edge-{i}"), biggest),
                Some(edge),
            ));
        }
        for i in (1..apps.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            apps.swap(i, j);
        }
        let sc = Scenario {
            policy: random_policy(&mut rng),
            nodes,
            cordoned,
            apps: apps.iter().map(|(d, _)| d.clone()).collect(),
        };
        in_scenario(&sc, || {
            let mut c = sc.build()?;
            settle(&mut c, sc.policy, "the initial declarations")?;
            check_edges(&c, &apps)?;
            // Neighbours still place after a change: one more plain pod.
            if let Some((d, _)) = apps.iter().find(|(_, e)| e.is_none()) {
                let r = c.app(&d.name).map_err(|e| e.to_string())?.desired + 1;
                c.scale(&d.name, r).map_err(|e| refused("scale", e))?;
                let mut apps = apps.clone();
                for (a, _) in apps.iter_mut() {
                    if a.name == d.name {
                        a.replicas = r;
                    }
                }
                settle(&mut c, sc.policy, "scaling a plain app up by one")?;
                check_edges(&c, &apps)?;
            }
            Ok(())
        })
    });
}

fn check_edges(c: &Cluster, apps: &[(DeploymentSpec, Option<Edge>)]) -> Result<(), String> {
    for (d, edge) in apps {
        let a = c.app(&d.name).map_err(|e| e.to_string())?;
        ensure!(
            a.desired == d.replicas,
            "app {} wants {} replicas, declared {}",
            a.name,
            a.desired,
            d.replicas
        );
        match edge.map(|e| e.expect()).unwrap_or(Expect::AllPlaced) {
            Expect::NoPods => ensure!(
                a.current == 0,
                "app {} asks for zero replicas but has {} pods",
                a.name,
                a.current
            ),
            Expect::AllPlaced => ensure!(
                a.bound == d.replicas && a.pending == 0,
                "app {} ({edge:?}) has {}/{} bound although the haven has room: {:?}",
                a.name,
                a.bound,
                d.replicas,
                a.pending_reason
            ),
            Expect::AllPending(why) => {
                ensure!(
                    a.bound == 0 && a.pending == d.replicas,
                    "app {} ({edge:?}) should place nothing, has {} bound and {} pending",
                    a.name,
                    a.bound,
                    a.pending
                );
                let reason = a.pending_reason.clone().unwrap_or_default();
                ensure!(
                    reason.contains(why),
                    "app {} ({edge:?}): FailedScheduling {reason:?} does not mention {why:?}",
                    a.name
                );
                for p in c.pods().filter(|p| p.app == a.name) {
                    let own = c.pending_reason(&p.name()).map_err(|e| e.to_string())?;
                    ensure!(
                        own.as_deref() == Some(reason.as_str()),
                        "pod {}: pending_reason {own:?} differs from its app's {reason:?}",
                        p.name()
                    );
                }
            }
        }
    }
    Ok(())
}

/// 6. Nodes fail, recover, are removed, come back, and re-register under the
///    same name with a new body (smaller, relabelled, newly tainted), by
///    `Event::ReregisterNode` and by `Cluster::reregister_node`: never a ghost binding,
///    never a pod its node's new body refuses, never an overcommit.
#[test]
fn prop_node_rejoin_and_reregistration() {
    gate("prop_node_rejoin_and_reregistration", |seed| {
        let mut rng = rng_for(seed, 6);
        let mix = Mix {
            nodes: (2, 6),
            constraints: 40,
            ..Mix::DEFAULT
        };
        let sc = Scenario::random(&mut rng, &mix);
        let mut history: Vec<String> = Vec::new();
        let result = rejoin_run(seed, &mut rng, &sc, &mix, &mut history);
        result.map_err(|e| {
            format!(
                "{e}\nhistory:\n  {}\nscenario:\n{}",
                history.join("\n  "),
                sc.describe()
            )
        })
    });
}

fn rejoin_run(
    seed: u64,
    rng: &mut Prng,
    sc: &Scenario,
    mix: &Mix,
    history: &mut Vec<String>,
) -> Result<(), String> {
    let timeout = rng.range(1, 3);
    let mut sim = Simulator::new(seed, sc.policy);
    sim.cluster_mut()
        .set_heartbeat_timeout(timeout)
        .map_err(|e| refused("set_heartbeat_timeout", e))?;
    let mut first = Vec::new();
    first.extend(sc.nodes.iter().map(|n| Event::AddNode(n.clone())));
    first.extend(sc.cordoned.iter().map(|n| Event::Cordon(n.clone())));
    first.extend(sc.apps.iter().map(|a| Event::Deploy(a.clone())));
    for e in first {
        sim.submit(e).map_err(|e| refused("submit", e))?;
    }
    let mut names: BTreeSet<String> = sc.nodes.iter().map(|n| n.name.clone()).collect();
    let mut removed: BTreeSet<String> = BTreeSet::new();
    let apps: Vec<String> = sc.apps.iter().map(|a| a.name.clone()).collect();

    let watch = std::cell::RefCell::new(scratch::EvictionWatch::default());
    let step = |sim: &mut Simulator, history: &mut Vec<String>| -> Result<(), String> {
        let rep = sim.step();
        history.push(format!("tick {} done", rep.tick));
        ensure!(rep.reconcile.converged, "tick {}: no fixed point", rep.tick);
        settled_checks(sim.cluster()).map_err(|e| format!("tick {}: {e}", rep.tick))?;
        watch.borrow_mut().observe(sim.cluster())
    };

    for _ in 0..rng.range(12, 30) {
        step(&mut sim, history)?;
        for _ in 0..rng.range(0, 3) {
            let live: Vec<String> = names.difference(&removed).cloned().collect();
            let n = pick(rng, &live);
            let e = match rng.below(11) {
                0 | 1 => Event::FailNode(n),
                2 | 3 => Event::RecoverNode(n),
                4 | 5 => match reregistration(rng, sim.cluster(), &n, mix) {
                    Some(body) => Event::ReregisterNode(body),
                    None => continue,
                },
                6 => {
                    // Straight into the cluster, checked before any pass runs.
                    let Some(body) = reregistration(rng, sim.cluster(), &n, mix) else {
                        continue;
                    };
                    let what = format!(
                        "reregister_node {n} now with {} labels{:?} taints{:?}",
                        body.capacity,
                        body.labels,
                        body.taints
                            .iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                    );
                    history.push(what.clone());
                    sim.cluster_mut()
                        .reregister_node(body)
                        .map_err(|e| refused(&what, e))?;
                    safety_checks(sim.cluster()).map_err(|e| format!("right after {what}: {e}"))?;
                    continue;
                }
                7 if live.len() > 1 => {
                    removed.insert(n.clone());
                    Event::RemoveNode(n)
                }
                8 if !removed.is_empty() => {
                    // A removed node comes back as a fresh node: any zone will do.
                    let back: Vec<String> = removed.iter().cloned().collect();
                    let b = pick(rng, &back);
                    removed.remove(&b);
                    Event::AddNode(random_node(rng, &b, mix, None))
                }
                9 if rng.chance(30) => {
                    let fresh = format!("node-r{}", names.len() + 1);
                    names.insert(fresh.clone());
                    Event::AddNode(random_node(rng, &fresh, mix, None))
                }
                9 => Event::Cordon(n),
                10 => Event::Uncordon(n),
                _ if !apps.is_empty() => Event::Scale {
                    app: pick(rng, &apps),
                    replicas: rng.range(0, mix.max_replicas) as u32,
                },
                _ => continue,
            };
            history.push(format!("next tick: {}", e.describe()));
            sim.submit(e).map_err(|e| refused("submit", e))?;
        }
    }
    // Heal: every kubelet back, every node schedulable; the cluster settles.
    for n in names.difference(&removed) {
        sim.submit(Event::RecoverNode(n.clone()))
            .map_err(|e| refused("submit", e))?;
        sim.submit(Event::Uncordon(n.clone()))
            .map_err(|e| refused("submit", e))?;
    }
    history.push("next tick: recover and uncordon every node".to_string());
    for _ in 0..timeout + 3 {
        step(&mut sim, history)?;
    }
    for n in sim.cluster().nodes() {
        ensure!(
            n.ready && !n.cordoned,
            "node {} is not Ready and schedulable after healing",
            n.name()
        );
    }
    Ok(())
}

/// "0/N nodes are available: ..." for a pod pinned to one node by a
/// nodeSelector, that does not fit there: Kubernetes' histogram, its
/// "N reason" entries sorted as strings (FitError.Error does).
fn expected_boundary_message(nodes: usize, cpu: bool, memory: bool) -> String {
    let mut rows: Vec<(u32, &str)> = Vec::new();
    if cpu {
        rows.push((1, "Insufficient cpu"));
    }
    if memory {
        rows.push((1, "Insufficient memory"));
    }
    if nodes > 1 {
        rows.push((
            nodes as u32 - 1,
            "node(s) didn't match Pod's node affinity/selector",
        ));
    }
    let mut parts: Vec<String> = rows.iter().map(|(n, r)| format!("{n} {r}")).collect();
    parts.sort();
    format!("0/{nodes} nodes are available: {}.", parts.join(", "))
}

/// How property 7 tests one node's boundary.
#[derive(Clone, Copy, Debug)]
enum Boundary {
    /// k pods fill the node exactly; one more millicore does not fit.
    OneMoreCpu,
    /// k pods fill the node exactly; one more MiB does not fit.
    OneMoreMemory,
    /// k pods fill the node exactly; a (k+1)th does not fit.
    OneMorePod,
    /// A single pod one millicore or one MiB bigger than an empty node.
    BiggerThanEmptyNode { cpu: bool },
}

/// 7. Requests that fill a node exactly fit; one unit more (1 millicore or
///    1 MiB) does not, and stays Pending with the exact FailedScheduling
///    message. Freeing room (or re-registering bigger) then places it.
#[test]
fn prop_capacity_boundary() {
    gate("prop_capacity_boundary", |seed| {
        let mut rng = rng_for(seed, 7);
        let policy = random_policy(&mut rng);
        let mut c = Cluster::new();
        let mut plan = Vec::new();
        let count = rng.range(1, 4) as usize;
        for i in 1..=count {
            let k = rng.range(1, 6);
            let per = Resources::new(rng.range(1, 4000), rng.range(1, 16384) * MIB);
            let mode = match rng.below(4) {
                0 => Boundary::OneMoreCpu,
                1 => Boundary::OneMoreMemory,
                2 => Boundary::OneMorePod,
                _ => Boundary::BiggerThanEmptyNode {
                    cpu: rng.chance(50),
                },
            };
            let cap = Resources::new(per.cpu_millis * k, per.memory_bytes * k);
            let node = NodeSpec::new(&format!("node-{i}"), cap.cpu_millis, cap.memory_bytes)
                .with_label("gate.example/slot", &format!("s{i}"))
                .with_label(ZONE, ZONES[i % 3]);
            c.add_node(node).map_err(|e| refused("add node", e))?;
            plan.push((i, k, per, cap, mode));
        }
        let pinned = |name: &str, i: usize, replicas: u64, r: Resources| {
            DeploymentSpec::new(name, replicas as u32, r)
                .with_template(|t| t.with_node_selector("gate.example/slot", &format!("s{i}")))
        };
        let ctx = format!("policy {} plan {plan:?}", policy.as_str());
        let mut run = || -> Result<(), String> {
            // Fill every node exactly.
            for &(i, k, per, _, mode) in &plan {
                if !matches!(mode, Boundary::BiggerThanEmptyNode { .. }) {
                    c.deploy(pinned(&format!("fill-{i}"), i, k, per))
                        .map_err(|e| refused("deploy", e))?;
                }
            }
            observed_settle(&mut c, policy, false, "filling")?;
            for &(i, _, _, cap, mode) in &plan {
                let n = c.node(&format!("node-{i}")).map_err(|e| e.to_string())?;
                let used: Resources = c.pods_on(n.id).fold(Resources::ZERO, |acc, p| {
                    acc.saturating_add(&p.template.requests)
                });
                let want = match mode {
                    Boundary::BiggerThanEmptyNode { .. } => Resources::ZERO,
                    _ => cap,
                };
                ensure!(
                    used == want,
                    "node-{i}: requests that fill it exactly should all fit; bound {used}, want {want}"
                );
            }
            // One unit more, everywhere.
            let mut over: Vec<(usize, String, bool, bool)> = Vec::new();
            for &(i, k, _, cap, mode) in &plan {
                let (app, r) = match mode {
                    Boundary::OneMoreCpu => (format!("more-{i}"), Resources::new(1, 0)),
                    Boundary::OneMoreMemory => (format!("more-{i}"), Resources::new(0, MIB)),
                    Boundary::OneMorePod => {
                        c.scale(&format!("fill-{i}"), k as u32 + 1)
                            .map_err(|e| refused("scale", e))?;
                        over.push((i, format!("fill-{i}-{k}"), true, true));
                        continue;
                    }
                    Boundary::BiggerThanEmptyNode { cpu } => (
                        format!("more-{i}"),
                        Resources::new(cap.cpu_millis + cpu as u64, cap.memory_bytes + !cpu as u64),
                    ),
                };
                c.deploy(pinned(&app, i, 1, r))
                    .map_err(|e| refused("deploy", e))?;
                let (cpu, mem) = match mode {
                    Boundary::OneMoreCpu => (true, false),
                    Boundary::OneMoreMemory => (false, true),
                    Boundary::BiggerThanEmptyNode { cpu } => (cpu, !cpu),
                    Boundary::OneMorePod => unreachable!("handled above"),
                };
                over.push((i, format!("{app}-0"), cpu, mem));
            }
            observed_settle(&mut c, policy, true, "one unit more")?;
            for (i, pod, cpu, mem) in &over {
                let want = expected_boundary_message(count, *cpu, *mem);
                let p = c.pod_by_name(pod).map_err(|e| e.to_string())?;
                ensure!(
                    p.node.is_none(),
                    "{pod} is one unit over node-{i}'s capacity yet bound"
                );
                let got = c.pending_reason(pod).map_err(|e| e.to_string())?;
                ensure!(
                    got.as_deref() == Some(want.as_str()),
                    "{pod}: FailedScheduling {got:?}, expected {want:?}"
                );
                let app = c.app(p.app).map_err(|e| e.to_string())?;
                ensure!(
                    app.pending_reason.as_deref() == Some(want.as_str()),
                    "app {}: pending_reason {:?}, expected {want:?}",
                    p.app,
                    app.pending_reason
                );
                let object = format!("pod/{pod}");
                ensure!(
                    c.rendered_events()
                        .iter()
                        .any(|e| e.reason == "FailedScheduling"
                            && e.type_ == "Warning"
                            && c.short_pod_names(&e.object) == object
                            && e.message == want),
                    "{pod}: no FailedScheduling event saying {want:?}"
                );
            }
            // Make room: one fill pod fewer, or a bigger body for the empty node.
            for &(i, k, _, cap, mode) in &plan {
                match mode {
                    Boundary::BiggerThanEmptyNode { .. } => {
                        let bigger = NodeSpec::new(
                            &format!("node-{i}"),
                            cap.cpu_millis + 1,
                            cap.memory_bytes + 1,
                        )
                        .with_label("gate.example/slot", &format!("s{i}"))
                        .with_label(ZONE, ZONES[i % 3]);
                        c.reregister_node(bigger)
                            .map_err(|e| refused("re-register", e))?;
                    }
                    _ => c
                        .scale(&format!("fill-{i}"), k as u32 - 1)
                        .map_err(|e| refused("scale", e))?,
                }
            }
            observed_settle(&mut c, policy, false, "making room")?;
            for (i, pod, _, _) in &over {
                if let Ok(p) = c.pod_by_name(pod) {
                    ensure!(
                        p.node.is_some(),
                        "{pod} still Pending after node-{i} made room"
                    );
                }
            }
            ensure!(
                c.pending_count() == 0,
                "{} pods Pending after every node made room",
                c.pending_count()
            );
            Ok(())
        };
        run().map_err(|e| format!("{e}\n{ctx}"))
    });
}

/// One pass at the fixed point, under either policy, changes nothing: the
/// report, the placement and the event log.
fn idempotent(c: &mut Cluster, policy: ScorePolicy, ctx: &str) -> Result<(), String> {
    let places = placement(c);
    let log = c.rendered_events();
    for p in [policy, other_policy(policy)] {
        let r = c.reconcile_once(p);
        ensure!(
            !r.changed(),
            "after {ctx}: a {} pass at the fixed point changed something: {r:?}",
            p.as_str()
        );
        ensure!(
            placement(c) == places,
            "after {ctx}: a pass at the fixed point moved pods"
        );
        ensure!(
            c.events().len() == log.len(),
            "after {ctx}: a pass at the fixed point grew the log: {:?}",
            c.rendered_events()[log.len().min(c.events().len())..]
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
        );
    }
    let mut binds = 0;
    let r = c.reconcile_once_observed(policy, &mut |_: &Cluster, _: &str, _: NodeId| binds += 1);
    ensure!(
        !r.changed() && binds == 0,
        "after {ctx}: an observed pass at the fixed point bound {binds}: {r:?}"
    );
    let fp = c.reconcile_to_fixed_point(policy);
    ensure!(
        fp.converged && fp.passes == 1 && !fp.total.changed(),
        "after {ctx}: reconcile_to_fixed_point at the fixed point: {fp:?}"
    );
    ensure!(
        placement(c) == places && c.rendered_events() == log,
        "after {ctx}: the placement or the log changed at the fixed point"
    );
    Ok(())
}

/// Plays a random script, waits until everything that was due has happened,
/// and checks that one more tick changes nothing.
fn quiet_tick(seed: u64, rng: &mut Prng) -> Result<(), String> {
    let sc = Scenario::random(rng, &Mix::DEFAULT);
    let names: Vec<String> = sc.nodes.iter().map(|n| n.name.clone()).collect();
    let mut script: Vec<(u64, Event)> = Vec::new();
    script.extend(sc.nodes.iter().map(|n| (1, Event::AddNode(n.clone()))));
    script.extend(sc.apps.iter().map(|a| (1, Event::Deploy(a.clone()))));
    let end = rng.range(2, 10);
    for t in 2..=end {
        let e = match rng.below(5) {
            0 => Event::FailNode(pick(rng, &names)),
            1 => Event::RecoverNode(pick(rng, &names)),
            2 => Event::Cordon(pick(rng, &names)),
            3 => Event::Uncordon(pick(rng, &names)),
            _ => continue,
        };
        script.push((t, e));
    }
    let mut sim = Simulator::with_script(seed, sc.policy, script);
    let quiet = end + sim.cluster().heartbeat_timeout() + 4;
    sim.run(quiet);
    let places = placement(sim.cluster());
    let log = sim.cluster().rendered_events();
    let rep = sim.step();
    ensure!(
        !rep.reconcile.total.changed() && rep.reconcile.passes == 1,
        "a quiet tick reconciled something: {:?}\nscenario:\n{}",
        rep.reconcile,
        sc.describe()
    );
    ensure!(
        placement(sim.cluster()) == places && sim.cluster().rendered_events() == log,
        "a quiet tick changed the placement or the log\nscenario:\n{}",
        sc.describe()
    );
    Ok(())
}

/// 8. At a fixed point one more pass changes nothing: `changed() == false`,
///    the same placement, no new event; also after time passes and after
///    random changes, and for a quiet simulator tick.
#[test]
fn prop_idempotence() {
    gate("prop_idempotence", |seed| {
        let mut rng = rng_for(seed, 8);
        let mix = Mix::DEFAULT;
        let sc = if rng.chance(25) {
            Scenario::from_workload(&mut rng)
        } else {
            Scenario::random(&mut rng, &mix)
        };
        in_scenario(&sc, || {
            let mut c = sc.build()?;
            settle(&mut c, sc.policy, "the initial declarations")?;
            idempotent(&mut c, sc.policy, "the initial declarations")?;
            let mut serial = 0;
            for _ in 0..rng.range(1, 3) {
                let what = if rng.chance(50) {
                    let t = c.now() + rng.range(1, 3);
                    c.set_now(t);
                    format!("the clock moving to {t}")
                } else {
                    mutate(&mut rng, &mut c, &mix, &mut serial)?
                };
                settle(&mut c, sc.policy, &what)?;
                idempotent(&mut c, sc.policy, &what)?;
            }
            Ok(())
        })?;
        quiet_tick(seed, &mut rng)
    });
}

// ===== pinned semantics ======================================================

fn node(name: &str, cpu: u64, mem: u64) -> NodeSpec {
    NodeSpec::new(name, cpu, mem * MIB)
}

fn cluster_of(nodes: &[NodeSpec]) -> Cluster {
    let mut c = Cluster::new();
    for n in nodes {
        c.add_node(n.clone()).expect("a test node should register");
    }
    c
}

fn deploy(c: &mut Cluster, d: DeploymentSpec) {
    c.deploy(d).expect("a test app should deploy");
}

/// Reconciles and checks the fixed point with both checkers.
fn converge(c: &mut Cluster, policy: ScorePolicy) {
    if let Err(e) = settle(c, policy, "reconciling") {
        panic!("{e}");
    }
}

fn host(c: &Cluster, pod: &str) -> Option<String> {
    let p = c.pod_by_name(pod).expect("the pod should exist");
    p.node
        .and_then(|n| c.node_by_id(n))
        .map(|n| n.name().to_string())
}

fn pods_on(c: &Cluster, node: &str) -> u32 {
    c.node(node).expect("the node should exist").pod_count
}

#[test]
fn binpack_fills_the_tightest_node() {
    // The smaller node is the tighter fit even though the bigger one has the lower id.
    let mut c = cluster_of(&[
        node("node-big", 8000, 16384),
        node("node-small", 4000, 8192),
    ]);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(host(&c, "web-0").as_deref(), Some("node-small"));

    // Among equal nodes, the one already loaded is the tighter fit, until it is full.
    let mut c = cluster_of(&[node("node-1", 4000, 8192), node("node-2", 4000, 8192)]);
    deploy(
        &mut c,
        DeploymentSpec::new("base", 1, Resources::new(1000, 2048 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 4, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(
        pods_on(&c, "node-1"),
        4,
        "base plus three web pods fill node-1"
    );
    assert_eq!(pods_on(&c, "node-2"), 1);
    assert_eq!(
        c.node("node-1").unwrap().allocated,
        Resources::new(4000, 5120 * MIB)
    );
}

#[test]
fn least_loaded_spreads() {
    let nodes = [
        node("node-1", 4000, 8192),
        node("node-2", 4000, 8192),
        node("node-3", 4000, 8192),
    ];
    let mut c = cluster_of(&nodes);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 6, Resources::new(500, 512 * MIB)),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    for n in ["node-1", "node-2", "node-3"] {
        assert_eq!(pods_on(&c, n), 2, "{n} should hold two of six pods");
    }
    // The same app bin-packed lands on one node.
    let mut c = cluster_of(&nodes);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 6, Resources::new(500, 512 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(pods_on(&c, "node-1"), 6);

    // LeastLoaded prefers the bigger node where BinPack prefers the smaller.
    let mut c = cluster_of(&[
        node("node-small", 4000, 8192),
        node("node-big", 8000, 16384),
    ]);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    assert_eq!(host(&c, "web-0").as_deref(), Some("node-big"));
}

#[test]
fn ties_go_to_the_lowest_node_id() {
    for policy in [ScorePolicy::BinPack, ScorePolicy::LeastLoaded] {
        // Ids follow registration order, not names: node-c registered first.
        let mut c = cluster_of(&[
            node("node-c", 4000, 8192),
            node("node-a", 4000, 8192),
            node("node-b", 4000, 8192),
        ]);
        deploy(
            &mut c,
            DeploymentSpec::new("web", 1, Resources::new(1000, 1024 * MIB)),
        );
        converge(&mut c, policy);
        assert_eq!(host(&c, "web-0").as_deref(), Some("node-c"), "{policy:?}");
        // Placed again, web-0 sees three equal empty nodes: one total, one
        // position, and the teaching profiles give it to the lowest id.
        let ex = c.explain("web-0", policy).unwrap();
        let totals: Vec<_> = ex.nodes.iter().map(|v| v.total).collect();
        assert!(
            totals[0].is_some() && totals.iter().all(|t| *t == totals[0]),
            "{totals:?}"
        );
        assert_eq!(
            ex.nodes.iter().map(|v| v.position).collect::<Vec<_>>(),
            vec![Some(1), Some(1), Some(1)],
            "{policy:?}: equal totals share the first position"
        );
    }
}

#[test]
fn untolerated_prefer_no_schedule_loses_to_an_untainted_node() {
    let spot = Taint::new("spot", "true", TaintEffect::PreferNoSchedule);
    let mut c = cluster_of(&[
        node("node-1", 4000, 8192).with_taint(spot.clone()),
        node("node-2", 8000, 16384),
    ]);
    // Under kube-scheduler's profile TaintToleration (weight 3) gives node-1
    // 0 (one untolerated PreferNoSchedule taint, reverse-normalised) and
    // node-2 100.
    let profile = Profile::kube_scheduler();
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(1000, 1024 * MIB)),
    );
    c.reconcile_to_fixed_point(&profile);
    assert_eq!(host(&c, "web-0").as_deref(), Some("node-2"));
    let ex = c.explain("web-0", &profile).unwrap();
    let tt = ex.nodes[0]
        .scores
        .iter()
        .find(|s| s.plugin == "TaintToleration")
        .unwrap();
    assert_eq!((tt.raw, tt.normalized, tt.weighted), (1, 0, 0));
    assert_eq!(ex.nodes[0].position, Some(2));
    assert_eq!(
        ex.decided_by.as_ref().map(|d| d.0.as_str()),
        Some("TaintToleration")
    );

    // A pod that tolerates it is scored on resources alone.
    deploy(
        &mut c,
        DeploymentSpec::new("batch", 1, Resources::new(1000, 1024 * MIB)).with_template(|t| {
            t.with_toleration(Toleration::exists(
                "spot",
                Some(TaintEffect::PreferNoSchedule),
            ))
        }),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(host(&c, "batch-0").as_deref(), Some("node-1"));

    // A preference, not a filter: with no other node, the tainted one is used.
    c.cordon("node-2").unwrap();
    deploy(
        &mut c,
        DeploymentSpec::new("late", 1, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(host(&c, "late-0").as_deref(), Some("node-1"));
}

#[test]
fn failed_scheduling_message_sorts_reasons_as_kube_scheduler_does() {
    let mut c = cluster_of(&[
        node("node-1", 1000, 8192),
        node("node-2", 1000, 8192),
        node("node-3", 8000, 16384).with_taint(Taint::new(
            "dedicated",
            "gpu",
            TaintEffect::NoSchedule,
        )),
    ]);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(2000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    // kube-scheduler sorts the "N reason" strings themselves.
    let first = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.";
    assert_eq!(c.pending_reason("web-0").unwrap().as_deref(), Some(first));
    assert_eq!(c.app("web").unwrap().pending_reason.as_deref(), Some(first));

    // A new node means a new attempt, and a new message.
    c.add_node(node("node-4", 8000, 16384)).unwrap();
    c.cordon("node-4").unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    let second = "0/4 nodes are available: 1 node(s) had untolerated taint(s), \
                  1 node(s) were unschedulable, 2 Insufficient cpu.";
    assert_eq!(c.pending_reason("web-0").unwrap().as_deref(), Some(second));

    // Each distinct message is logged once for the pod, as a Warning.
    let failures: Vec<String> = c
        .rendered_events()
        .into_iter()
        .filter(|e| e.reason == "FailedScheduling")
        .map(|e| {
            let object = c.short_pod_names(&e.object);
            assert_eq!((e.type_, object.as_str()), ("Warning", "pod/web-0"));
            e.message
        })
        .collect();
    assert_eq!(failures, vec![first.to_string(), second.to_string()]);

    // A retry that ends with the same message logs nothing new: capacity
    // freed elsewhere makes the scheduler try again, and fail the same way.
    deploy(
        &mut c,
        DeploymentSpec::new("tiny", 1, Resources::new(100, 128 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    c.scale("tiny", 0).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    let failures = c
        .rendered_events()
        .iter()
        .filter(|e| e.reason == "FailedScheduling")
        .count();
    assert_eq!(
        failures, 2,
        "the same message is not logged twice for a pod"
    );

    // Both resources short, and no nodes at all.
    let mut c = cluster_of(&[node("node-1", 1000, 1000)]);
    deploy(
        &mut c,
        DeploymentSpec::new("big", 1, Resources::new(2000, 2000 * MIB)),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    assert_eq!(
        c.pending_reason("big-0").unwrap().as_deref(),
        Some("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.")
    );
    let mut c = Cluster::new();
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(
        c.pending_reason("web-0").unwrap().as_deref(),
        Some("0/0 nodes are available: no nodes registered.")
    );
}

fn zoned(names_zones: &[(&str, &str)]) -> Cluster {
    let nodes: Vec<NodeSpec> = names_zones
        .iter()
        .map(|(n, z)| node(n, 4000, 8192).with_label(ZONE, z))
        .collect();
    cluster_of(&nodes)
}

#[test]
fn self_affinity_lets_the_first_pod_go_anywhere_and_the_rest_follow() {
    let mut c = zoned(&[
        ("node-1", "zone-a"),
        ("node-2", "zone-a"),
        ("node-3", "zone-b"),
        ("node-4", "zone-b"),
    ]);
    // LeastLoaded would spread; hostname self-affinity keeps the group together.
    deploy(
        &mut c,
        DeploymentSpec::new("cache", 3, Resources::new(1000, 1024 * MIB)).with_template(|t| {
            t.with_affinity(AffinityTerm::new(Selector::new(&[("app", "cache")]), None))
        }),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    assert_eq!(
        pods_on(&c, "node-1"),
        3,
        "the whole group on the first pod's node"
    );

    // Zone self-affinity: one zone, any nodes in it.
    deploy(
        &mut c,
        DeploymentSpec::new("web", 4, Resources::new(500, 512 * MIB)).with_template(|t| {
            t.with_affinity(AffinityTerm::new(
                Selector::new(&[("app", "web")]),
                Some(ZONE),
            ))
        }),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    let zones: BTreeSet<String> = c
        .pods()
        .filter(|p| p.app == "web")
        .map(|p| c.node_by_id(p.node.unwrap()).unwrap().spec.labels[ZONE].clone())
        .collect();
    assert_eq!(zones.len(), 1, "web pods in one zone: {zones:?}");

    // Affinity to a group that does not run yet waits for it; the first-pod
    // rule does not apply, since the selector does not match the pod itself.
    deploy(
        &mut c,
        DeploymentSpec::new("client", 2, Resources::new(100, 128 * MIB)).with_template(|t| {
            t.with_affinity(AffinityTerm::new(Selector::new(&[("app", "db")]), None))
        }),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    assert_eq!(
        c.pending_reason("client-0").unwrap().as_deref(),
        Some("0/4 nodes are available: 4 node(s) didn't match pod affinity rules.")
    );
    deploy(
        &mut c,
        DeploymentSpec::new("db", 1, Resources::new(500, 512 * MIB)),
    );
    converge(&mut c, ScorePolicy::LeastLoaded);
    let db = host(&c, "db-0");
    assert!(db.is_some());
    assert_eq!(host(&c, "client-0"), db);
    assert_eq!(host(&c, "client-1"), db);
}

#[test]
fn zone_anti_affinity_allows_at_most_one_pod_per_zone() {
    let mut c = zoned(&[
        ("node-1", "zone-a"),
        ("node-2", "zone-b"),
        ("node-3", "zone-c"),
        ("node-4", "zone-a"),
        ("node-5", "zone-b"),
        ("node-6", "zone-c"),
    ]);
    let anti_web = AffinityTerm::new(Selector::new(&[("app", "web")]), Some(ZONE));
    deploy(
        &mut c,
        DeploymentSpec::new("web", 5, Resources::new(500, 512 * MIB))
            .with_template(|t| t.with_anti_affinity(anti_web.clone())),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(host(&c, "web-0").as_deref(), Some("node-1"));
    assert_eq!(host(&c, "web-1").as_deref(), Some("node-2"));
    assert_eq!(host(&c, "web-2").as_deref(), Some("node-3"));
    let full = "0/6 nodes are available: 6 node(s) didn't match pod anti-affinity rules.";
    for pod in ["web-3", "web-4"] {
        assert_eq!(host(&c, pod), None);
        assert_eq!(c.pending_reason(pod).unwrap().as_deref(), Some(full));
    }
    // A pod that web's term selects is kept out of every zone web occupies.
    deploy(
        &mut c,
        DeploymentSpec::new("imposter", 1, Resources::new(100, 128 * MIB))
            .with_template(|t| t.with_label("app", "web")),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(
        c.pending_reason("imposter-0").unwrap().as_deref(),
        Some(
            "0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules."
        )
    );
    // Scaling web down frees a zone; the fixed point places what now fits.
    c.scale("web", 2).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(c.app("web").unwrap().bound, 2);
    assert!(host(&c, "imposter-0").is_some());
}

#[test]
fn explain_shows_every_node_for_a_pending_and_a_bound_pod() {
    let mut c = cluster_of(&[
        node("node-1", 2000, 4096),
        node("node-2", 4000, 8192),
        node("node-3", 4000, 8192).with_taint(Taint::new(
            "dedicated",
            "gpu",
            TaintEffect::NoSchedule,
        )),
    ]);
    c.cordon("node-2").unwrap();
    deploy(
        &mut c,
        DeploymentSpec::new("web", 1, Resources::new(1000, 1024 * MIB)),
    );
    deploy(
        &mut c,
        DeploymentSpec::new("big", 1, Resources::new(3000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);

    let why = "0/3 nodes are available: 1 Insufficient cpu, \
               1 node(s) had untolerated taint(s), 1 node(s) were unschedulable.";
    let ex = c.explain("big-0", ScorePolicy::BinPack).unwrap();
    // Looked up by its short form, named by its own (`<replicaset>-<5 chars>`).
    let big0 = c.pod_by_name("big-0").unwrap().name();
    assert_eq!(
        (ex.pod.as_str(), ex.phase, ex.bound_to.clone()),
        (big0.as_str(), "Pending", None)
    );
    assert_eq!(ex.requests, Resources::new(3000, 1024 * MIB));
    assert_eq!(ex.summary, why);
    let verdicts: Vec<_> = ex
        .nodes
        .iter()
        .map(|v| {
            (
                v.node.as_str(),
                v.feasible,
                v.plugin,
                v.reasons.clone(),
                v.position,
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        vec![
            (
                "node-1",
                false,
                Some("NodeResourcesFit"),
                vec!["Insufficient cpu".to_string()],
                None
            ),
            (
                "node-2",
                false,
                Some("NodeUnschedulable"),
                vec!["node(s) were unschedulable".to_string()],
                None
            ),
            (
                "node-3",
                false,
                Some("TaintToleration"),
                vec!["node(s) had untolerated taint(s)".to_string()],
                None
            ),
        ]
    );
    // Kubernetes' reason does not name the taint; explain's detail does.
    let details: Vec<_> = ex.nodes.iter().map(|v| v.detail.as_deref()).collect();
    assert_eq!(details, [None, None, Some("dedicated=gpu:NoSchedule")]);

    // A bound pod is explained as if placed again, its own requests freed:
    // MostAllocated = (1000*100/2000 + 1024*100/4096) / 2 = (50 + 25) / 2 = 37.
    let ex = c.explain("web-0", ScorePolicy::BinPack).unwrap();
    assert_eq!(
        (ex.phase, ex.bound_to.as_deref()),
        ("Running", Some("node-1"))
    );
    let web0 = c.pod_by_name("web-0").unwrap().name();
    assert_eq!(
        ex.summary,
        format!("{web0} is bound to node-1; the scores below are as if it were placed again now")
    );
    let n1 = &ex.nodes[0];
    assert!(n1.feasible && n1.plugin.is_none() && n1.reasons.is_empty());
    assert_eq!(n1.scores.len(), 1);
    assert_eq!(
        (n1.scores[0].plugin, n1.scores[0].raw, n1.scores[0].weighted),
        ("NodeResourcesFit", 37, 37)
    );
    assert_eq!((n1.total, n1.position), (Some(37), Some(1)));
    assert!(!ex.nodes[1].feasible && !ex.nodes[2].feasible);

    // Uncordoning makes node-2 the choice for the pending pod.
    c.uncordon("node-2").unwrap();
    let ex = c.explain("big-0", ScorePolicy::BinPack).unwrap();
    assert_eq!(
        ex.summary,
        format!("{big0} is Pending; node-2 has the best total")
    );
    assert_eq!(ex.nodes[1].position, Some(1));
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(host(&c, "big-0").as_deref(), Some("node-2"));

    assert!(matches!(
        c.explain("nope-0", ScorePolicy::BinPack),
        Err(Error::NotFound { .. })
    ));
}

/// Everything observable about a cluster, to show a refusal changed nothing.
#[allow(clippy::type_complexity)]
fn fingerprint(
    c: &Cluster,
) -> (
    Vec<(String, NodeSpec, Resources, bool, bool, u32)>,
    Vec<shepherd::AppStatus>,
    Vec<(String, Option<String>, bool)>,
    Vec<RenderedEvent>,
) {
    (
        c.nodes()
            .map(|n| {
                (
                    n.name().to_string(),
                    n.spec.clone(),
                    n.allocated,
                    n.ready,
                    n.cordoned,
                    n.pod_count,
                )
            })
            .collect(),
        c.apps().collect(),
        placement(c),
        c.rendered_events(),
    )
}

#[test]
fn invalid_declarations_are_refused_and_change_nothing() {
    let mut c = cluster_of(&[node("node-1", 4000, 8192).with_label(ZONE, "zone-a")]);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 2, Resources::new(500, 512 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    let before = fingerprint(&c);
    let small = Resources::new(100, 128 * MIB);
    let bad_exists = Toleration {
        key: "spot".to_string(),
        operator: TolerationOperator::Exists,
        value: "true".to_string(),
        effect: None,
        toleration_seconds: None,
    };
    // DNS-1123 subdomains: at most 253 characters, dot-separated parts.
    let long = "n".repeat(254);
    type Attempt<'a> = (&'a str, Box<dyn Fn(&mut Cluster) -> Result<(), Error>>);
    let attempts: Vec<Attempt> = vec![
        // Zero allocatable is a node Kubernetes takes (issue 42, row 10);
        // past the supported range is not.
        (
            "a node with more cpu than a million cores",
            Box::new(|c| c.add_node(node("node-2", 1_000_000_001, 1024)).map(drop)),
        ),
        (
            "a node that admits more than a million pods",
            Box::new(|c| {
                c.add_node(node("node-2", 1000, 1024).with_max_pods(1_000_001))
                    .map(drop)
            }),
        ),
        (
            "re-registering a node beyond the supported capacity",
            Box::new(|c| {
                c.reregister_node(node("node-1", 1_000_000_001, 0))
                    .map(drop)
            }),
        ),
        (
            "adding a node whose name is registered (kubectl: AlreadyExists)",
            Box::new(|c| c.add_node(node("node-1", 1000, 1024)).map(drop)),
        ),
        (
            "re-registering a node that is not registered",
            Box::new(|c| c.reregister_node(node("node-9", 1000, 1024)).map(drop)),
        ),
        (
            "an empty node name",
            Box::new(|c| c.add_node(node("", 1000, 1024)).map(drop)),
        ),
        (
            "an uppercase node name",
            Box::new(|c| c.add_node(node("Node-2", 1000, 1024)).map(drop)),
        ),
        (
            "a node name with '_'",
            Box::new(|c| c.add_node(node("node_2", 1000, 1024)).map(drop)),
        ),
        (
            "a node name starting with '-'",
            Box::new(|c| c.add_node(node("-node", 1000, 1024)).map(drop)),
        ),
        (
            "a 254-character node name",
            Box::new(move |c| c.add_node(node(&long, 1000, 1024)).map(drop)),
        ),
        (
            "a node name with an empty dot-separated part",
            Box::new(|c| {
                c.add_node(node("ip-10.ec2..internal", 1000, 1024))
                    .map(drop)
            }),
        ),
        (
            "a node label key with a space",
            Box::new(|c| {
                c.add_node(node("node-2", 1000, 1024).with_label("bad key", "x"))
                    .map(drop)
            }),
        ),
        (
            "a taint key with a space",
            Box::new(|c| {
                c.add_node(node("node-2", 1000, 1024).with_taint(Taint::new(
                    "bad key",
                    "x",
                    TaintEffect::NoSchedule,
                )))
                .map(drop)
            }),
        ),
        (
            "an empty app name",
            Box::new(move |c| c.deploy(DeploymentSpec::new("", 1, small)).map(drop)),
        ),
        (
            "an uppercase app name",
            Box::new(move |c| c.deploy(DeploymentSpec::new("Web", 1, small)).map(drop)),
        ),
        (
            "a duplicate app",
            Box::new(move |c| c.deploy(DeploymentSpec::new("web", 1, small)).map(drop)),
        ),
        (
            "replicas above MAX_REPLICAS",
            Box::new(move |c| {
                c.deploy(DeploymentSpec::new("api", MAX_REPLICAS + 1, small))
                    .map(drop)
            }),
        ),
        (
            "scaling above MAX_REPLICAS",
            Box::new(|c| c.scale("web", MAX_REPLICAS + 1)),
        ),
        ("scaling an unknown app", Box::new(|c| c.scale("nope", 1))),
        (
            "an Equal toleration without a key",
            Box::new(move |c| {
                c.deploy(
                    DeploymentSpec::new("api", 1, small)
                        .with_template(|t| t.with_toleration(Toleration::equal("", "x", None))),
                )
                .map(drop)
            }),
        ),
        (
            "an Exists toleration with a value",
            Box::new(move |c| {
                let tol = bad_exists.clone();
                c.deploy(
                    DeploymentSpec::new("api", 1, small).with_template(|t| t.with_toleration(tol)),
                )
                .map(drop)
            }),
        ),
        (
            "cordoning an unknown node",
            Box::new(|c| c.cordon("node-9")),
        ),
        (
            "failing an unknown node",
            Box::new(|c| c.fail_node("node-9")),
        ),
        (
            "a zero heartbeat timeout",
            Box::new(|c| c.set_heartbeat_timeout(0)),
        ),
    ];
    for (what, attempt) in &attempts {
        let r = attempt(&mut c);
        let e = match r {
            Err(e) => e,
            Ok(()) => panic!("{what} should be refused"),
        };
        assert!(
            !e.to_string().is_empty(),
            "{what}: the error should say why"
        );
        match *what {
            "a duplicate app" => assert!(matches!(e, Error::AlreadyExists { .. }), "{what}: {e:?}"),
            w if w.contains("AlreadyExists") => {
                assert!(matches!(e, Error::AlreadyExists { .. }), "{what}: {e:?}")
            }
            w if w.contains("unknown") || w.contains("not registered") => {
                assert!(matches!(e, Error::NotFound { .. }), "{what}: {e:?}")
            }
            _ => assert!(matches!(e, Error::Invalid(_)), "{what}: {e:?}"),
        }
        assert!(
            fingerprint(&c) == before,
            "{what} was refused but changed the cluster"
        );
    }
    // The simulator refuses the same declarations without queueing them.
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    assert!(sim
        .submit(Event::Deploy(DeploymentSpec::new(
            "api",
            1,
            Resources::new(MAX_CPU_MILLIS + 1, MIB)
        )))
        .is_err());
    assert!(sim
        .submit(Event::AddNode(
            node("node-1", 1, 1).with_max_pods(1_000_001)
        ))
        .is_err());
    assert!(sim.pending_script().is_empty());
}

/// Kubernetes' numbers: node-monitor-grace-period 50 s, DefaultTolerationSeconds
/// 300 s. The kubelet stops at tick 3; the node is NotReady at tick 54
/// (silent for 51 s > 50 s), its pods are not Ready but stay; at tick 354
/// they are evicted (TaintManagerEviction) and replaced on the other node.
#[test]
fn a_failed_node_goes_not_ready_after_the_timeout_and_its_pods_are_replaced() {
    let n = |name: &str, zone: &str| node(name, 4000, 8192).with_label(ZONE, zone);
    let script = vec![
        (1, Event::AddNode(n("node-1", "zone-a"))),
        (1, Event::AddNode(n("node-2", "zone-b"))),
        (
            1,
            Event::Deploy(DeploymentSpec::new(
                "web",
                4,
                Resources::new(1000, 1024 * MIB),
            )),
        ),
        (3, Event::FailNode("node-1".to_string())),
        (360, Event::RecoverNode("node-1".to_string())),
        (
            362,
            Event::Scale {
                app: "web".to_string(),
                replicas: 6,
            },
        ),
    ];
    let mut sim = Simulator::with_script(42, ScorePolicy::LeastLoaded, script);
    assert_eq!(sim.cluster().heartbeat_timeout(), 50);
    sim.run(1);
    assert_eq!(pods_on(sim.cluster(), "node-1"), 2);
    assert_eq!(pods_on(sim.cluster(), "node-2"), 2);

    // Silent from tick 3: still Ready while silent for 50 s or fewer.
    sim.run(52);
    assert_eq!(sim.tick(), 53);
    assert!(sim.cluster().node("node-1").unwrap().ready);
    assert_eq!(pods_on(sim.cluster(), "node-1"), 2);

    sim.step();
    let c = sim.cluster();
    assert!(!c.node("node-1").unwrap().ready);
    assert_eq!(pods_on(c, "node-1"), 2, "marked not Ready, not deleted");
    assert_eq!(c.app("web").unwrap().ready, 2);
    let at54: Vec<(String, String, String)> = c
        .rendered_events()
        .into_iter()
        .filter(|e| e.tick == 54)
        .map(|e| (e.reason.to_string(), e.object, e.message))
        .collect();
    assert_eq!(
        at54[0],
        (
            "NodeNotReady".to_string(),
            "node/node-1".to_string(),
            "Node node-1 status is now: NodeNotReady".to_string()
        )
    );
    assert_eq!(at54.len(), 3, "{at54:?}");
    settled_checks(c).unwrap();

    sim.run(299);
    assert_eq!(pods_on(sim.cluster(), "node-1"), 2);
    sim.step();
    assert_eq!(sim.tick(), 354);
    let c = sim.cluster();
    assert_eq!(pods_on(c, "node-1"), 0);
    assert_eq!(pods_on(c, "node-2"), 4);
    assert!(c.fully_satisfied());
    let at354: Vec<(String, String, String)> = c
        .rendered_events()
        .into_iter()
        .filter(|e| e.tick == 354)
        .map(|e| (e.reason.to_string(), e.object, e.message))
        .collect();
    let count = |reason: &str| at354.iter().filter(|e| e.0 == reason).count();
    assert_eq!(count("TaintManagerEviction"), 2);
    assert_eq!(count("SuccessfulCreate"), 2);
    assert_eq!(count("Scheduled"), 2);
    let places = placement(c);
    assert_eq!(
        places
            .iter()
            .map(|p| c.short_pod_names(&p.0))
            .collect::<Vec<_>>(),
        vec!["web-1", "web-3", "web-4", "web-5"],
        "web-0 and web-2 were evicted from node-1 and replaced"
    );
    assert!(places.iter().all(|p| p.1.as_deref() == Some("node-2")));
    settled_checks(c).unwrap();

    // Recovered at tick 360: Ready at its next heartbeat, tick 361.
    sim.run(7);
    let c = sim.cluster();
    assert!(c.node("node-1").unwrap().ready);
    let ready: Vec<u64> = c
        .rendered_events()
        .iter()
        .filter(|e| e.reason == "NodeReady" && e.object == "node/node-1")
        .map(|e| e.tick)
        .collect();
    assert_eq!(ready, vec![361]);
    assert_eq!(
        pods_on(c, "node-1"),
        0,
        "pods do not move back on their own"
    );

    // The recovered node takes new pods.
    sim.step();
    assert_eq!(pods_on(sim.cluster(), "node-1"), 2);
    settled_checks(sim.cluster()).unwrap();
}

#[test]
fn reregistration_releases_what_the_new_body_refuses() {
    let mut c = cluster_of(&[node("node-1", 4000, 8192).with_label("disktype", "ssd")]);
    deploy(
        &mut c,
        DeploymentSpec::new("ssd", 2, Resources::new(1000, 1024 * MIB))
            .with_template(|t| t.with_node_selector("disktype", "ssd")),
    );
    deploy(
        &mut c,
        DeploymentSpec::new("web", 2, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(pods_on(&c, "node-1"), 4);
    // Smaller, relabelled, tainted NoExecute: ssd pods no longer match, web
    // pods do not tolerate the taint.
    c.reregister_node(node("node-1", 1500, 8192).with_taint(Taint::new(
        "maintenance",
        "true",
        TaintEffect::NoExecute,
    )))
    .unwrap();
    safety_checks(&c).unwrap();
    assert_eq!(pods_on(&c, "node-1"), 0);
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(c.bound_count(), 0);
    // Only the capacity shrinks: pods that fit stay (in order), the rest go.
    c.reregister_node(node("node-1", 1500, 8192)).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(c.app("web").unwrap().bound, 1);
    c.reregister_node(node("node-1", 1000, 8192)).unwrap();
    safety_checks(&c).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(
        c.node("node-1").unwrap().allocated,
        Resources::new(1000, 1024 * MIB)
    );
}

#[test]
fn a_noschedule_taint_at_reregistration_keeps_running_pods() {
    let mut c = cluster_of(&[node("node-1", 4000, 8192), node("node-2", 4000, 8192)]);
    deploy(
        &mut c,
        DeploymentSpec::new("web", 3, Resources::new(1000, 1024 * MIB)),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(pods_on(&c, "node-1"), 3);
    // NoSchedule keeps new pods away; only NoExecute evicts (kubelet
    // admission checks NoExecute taints alone).
    c.reregister_node(node("node-1", 4000, 8192).with_taint(Taint::new(
        "dedicated",
        "gpu",
        TaintEffect::NoSchedule,
    )))
    .unwrap();
    assert_eq!(pods_on(&c, "node-1"), 3, "NoSchedule released no pod");
    converge(&mut c, ScorePolicy::BinPack);
    safety_checks(&c).unwrap();
    c.scale("web", 5).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(
        pods_on(&c, "node-1"),
        3,
        "no new pod lands on the tainted node"
    );
    assert_eq!(pods_on(&c, "node-2"), 2);
    // A new pod on the tainted node would be a violation: the checker still sees it.
    c.reregister_node(node("node-1", 4000, 8192).with_taint(Taint::new(
        "dedicated",
        "gpu",
        TaintEffect::NoExecute,
    )))
    .unwrap();
    assert_eq!(pods_on(&c, "node-1"), 0, "NoExecute releases them");
}

#[test]
fn pods_kept_after_a_zone_relabel_satisfy_the_checker_and_block_new_pods() {
    let zone = "topology.kubernetes.io/zone";
    let mut c = cluster_of(&[
        node("node-1", 4000, 8192).with_label(zone, "zone-a"),
        node("node-2", 4000, 8192).with_label(zone, "zone-b"),
    ]);
    deploy(
        &mut c,
        DeploymentSpec::new("cache", 2, Resources::new(500, 512 * MIB)).with_template(|t| {
            t.with_anti_affinity(AffinityTerm::new(
                Selector::new(&[("app", "cache")]),
                Some(zone),
            ))
        }),
    );
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!((pods_on(&c, "node-1"), pods_on(&c, "node-2")), (1, 1));
    // node-2 re-registers into zone-a: both pods stay (IgnoredDuringExecution),
    // and the checkers agree with the engine that this is allowed.
    c.reregister_node(node("node-2", 4000, 8192).with_label(zone, "zone-a"))
        .unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!((pods_on(&c, "node-1"), pods_on(&c, "node-2")), (1, 1));
    verify_constraints(&c).unwrap();
    safety_checks(&c).unwrap();
    // A third replica has no zone left.
    c.scale("cache", 3).unwrap();
    converge(&mut c, ScorePolicy::BinPack);
    assert_eq!(c.app("cache").unwrap().pending, 1);
    verify_settled(&c).unwrap();
}

#[test]
fn a_registered_name_is_refused_and_reregistration_is_its_own_event() {
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    sim.submit(Event::AddNode(node("node-1", 1000, 1024)))
        .unwrap();
    // Queued already: a second AddNode of the name is AlreadyExists.
    let e = sim
        .submit(Event::AddNode(node("node-1", 2000, 2048)))
        .unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e:?}");
    // A re-registration of a node that does not exist (yet) is NotFound.
    let e = sim
        .submit(Event::ReregisterNode(node("node-2", 1000, 1024)))
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    sim.submit(Event::ReregisterNode(node("node-1", 2000, 2048)))
        .unwrap();
    sim.step();
    assert_eq!(
        sim.cluster()
            .node("node-1")
            .unwrap()
            .spec
            .capacity
            .cpu_millis,
        2000
    );
    // Removed, then added again in one tick: the name is free when the add fires.
    sim.submit(Event::RemoveNode("node-1".into())).unwrap();
    sim.submit(Event::AddNode(node("node-1", 500, 512)))
        .unwrap();
    let r = sim.step();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        sim.cluster()
            .node("node-1")
            .unwrap()
            .spec
            .capacity
            .cpu_millis,
        500
    );
    let e = sim
        .cluster_mut()
        .add_node(node("node-1", 500, 512))
        .unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
}

#[test]
fn node_and_pod_limits_are_refused_with_the_limit_named() {
    use shepherd::limits::{MAX_NODES, MAX_PODS};
    let mut c = Cluster::new();
    for i in 0..MAX_NODES {
        c.add_node(node(&format!("n-{i}"), 1000, 1024)).unwrap();
    }
    let e = c.add_node(node("one-more", 1000, 1024)).unwrap_err();
    assert!(e.to_string().contains("MAX_NODES"), "{e}");
    c.remove_node("n-0").unwrap();
    c.add_node(node("one-more", 1000, 1024)).unwrap();
    let half = (MAX_PODS / 2) as u32;
    c.deploy(DeploymentSpec::new("a", half, Resources::new(1, MIB)))
        .unwrap();
    c.deploy(DeploymentSpec::new("b", half, Resources::new(1, MIB)))
        .unwrap();
    let e = c.scale("a", half + 1).unwrap_err();
    assert!(e.to_string().contains("MAX_PODS"), "{e}");
    let e = c
        .deploy(DeploymentSpec::new("c", 1, Resources::new(1, MIB)))
        .unwrap_err();
    assert!(e.to_string().contains("MAX_PODS"), "{e}");
    c.scale("a", 0).unwrap();
    c.deploy(DeploymentSpec::new("c", 1, Resources::new(1, MIB)))
        .unwrap();
}
