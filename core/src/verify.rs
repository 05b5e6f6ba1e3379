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
use crate::model::{AffinityTerm, NodeSpec, PodTemplate, Resources, TaintEffect, HOSTNAME_KEY};
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
            u.memory_mib += p.template.requests.memory_mib;
        }
    }
    used
}

/// The sum of requests bound to every node is within its capacity, and the
/// scheduler's own books agree with that sum.
pub fn verify_capacity(c: &Cluster) -> Result<(), Violation> {
    let used = used_by_node(c);
    for (id, u) in &used {
        let n = c
            .node_by_id(*id)
            .ok_or_else(|| format!("pods are bound to node id {} which is not registered", id.0))?;
        if u.cpu_millis > n.spec.capacity.cpu_millis || u.memory_mib > n.spec.capacity.memory_mib {
            return Err(format!(
                "node {} is overcommitted: pods request {} but capacity is {}",
                n.name(),
                u,
                n.spec.capacity
            ));
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

fn topology_value<'a>(n: &'a NodeSpec, key: &str) -> Option<&'a str> {
    if key == HOSTNAME_KEY {
        return Some(n.name.as_str());
    }
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

/// The node-level rules for a pod on a node: Ready, nodeSelector, taints.
fn check_node_rules(p: &PodView<'_>, n: &NodeView<'_>) -> Result<(), Violation> {
    let t: &PodTemplate = p.template;
    if !n.ready {
        return Err(format!(
            "pod {} is bound to node {} which is NotReady",
            p.name(),
            n.name()
        ));
    }
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
    for taint in &n.spec.taints {
        if taint.effect != TaintEffect::PreferNoSchedule
            && !t.tolerations.iter().any(|tol| tol.tolerates(taint))
        {
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

/// Anti-affinity, both ways: no pod shares a domain with a pod its own terms
/// exclude, nor with a pod whose terms exclude it.
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

/// Every bound pod is on a Ready node that matches its nodeSelector, whose
/// NoSchedule and NoExecute taints it tolerates, and no two bound pods break
/// an anti-affinity rule. (Affinity is required at scheduling time and
/// ignored during execution, as in Kubernetes: see [`verify_bind`].)
pub fn verify_constraints(c: &Cluster) -> Result<(), Violation> {
    for p in c.pods() {
        if p.node.is_none() {
            continue;
        }
        let n = node_of(c, &p)?;
        check_node_rules(&p, &n)?;
        check_anti_affinity(c, &p, &n)?;
    }
    Ok(())
}

/// Everything a single bind must respect, checked right after it: capacity
/// of every node, the pod's node rules, affinity (some matching pod, perhaps
/// itself, in its domain) and anti-affinity both ways.
pub fn verify_bind(c: &Cluster, pod: &str) -> Result<(), Violation> {
    verify_capacity(c)?;
    let p = c.pod_by_name(pod).map_err(|e| format!("{e}"))?;
    let n = node_of(c, &p)?;
    check_node_rules(&p, &n)?;
    for term in &p.template.affinity {
        let ok = !matching_in_domain(c, n.spec, term, &p.name()).is_empty()
            || (term.selector.matches(&p.template.labels)
                && topology_value(n.spec, &term.topology_key).is_some()
                && {
                    // The first of a self-matching group: no other matching pod anywhere.
                    let name = p.name();
                    !c.pods().any(|q| {
                        q.node.is_some()
                            && q.name() != name
                            && term.selector.matches(&q.template.labels)
                    })
                });
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

/// Whether `p` could be bound to `n` now, judged from scratch.
fn feasible(
    c: &Cluster,
    used: &BTreeMap<NodeId, Resources>,
    p: &PodView<'_>,
    n: &NodeView<'_>,
) -> bool {
    if !n.ready || n.cordoned {
        return false;
    }
    let u = used.get(&n.id).copied().unwrap_or_default();
    let req = p.template.requests;
    if u.cpu_millis + req.cpu_millis > n.spec.capacity.cpu_millis
        || u.memory_mib + req.memory_mib > n.spec.capacity.memory_mib
    {
        return false;
    }
    if check_node_rules(p, n).is_err() {
        return false;
    }
    let name = p.name();
    for term in &p.template.affinity {
        let here = !matching_in_domain(c, n.spec, term, &name).is_empty();
        let first = term.selector.matches(&p.template.labels)
            && topology_value(n.spec, &term.topology_key).is_some()
            && !c
                .pods()
                .any(|q| q.node.is_some() && term.selector.matches(&q.template.labels));
        if !here && !first {
            return false;
        }
    }
    for term in &p.template.anti_affinity {
        if !matching_in_domain(c, n.spec, term, &name).is_empty() {
            return false;
        }
    }
    for q in c.pods().filter(|q| q.node.is_some()) {
        let qn = match c.node_by_id(q.node.unwrap()) {
            Some(x) => x,
            None => continue,
        };
        for term in &q.template.anti_affinity {
            if term.selector.matches(&p.template.labels) {
                let (a, b) = (
                    topology_value(n.spec, &term.topology_key),
                    topology_value(qn.spec, &term.topology_key),
                );
                if a.is_some() && a == b {
                    return false;
                }
            }
        }
    }
    true
}

/// At a fixed point: every Deployment has its desired number of pods, and
/// each pod still Pending has no feasible node, judged from scratch.
pub fn verify_settled(c: &Cluster) -> Result<(), Violation> {
    let used = used_by_node(c);
    for a in c.apps() {
        let count = c
            .pods()
            .filter(|p| p.controller == a.id && p.phase != PodPhase::Lost)
            .count() as u32;
        if count != a.desired && !a.rolling {
            return Err(format!(
                "app {} wants {} pods but has {}",
                a.name, a.desired, count
            ));
        }
    }
    for p in c.pods().filter(|p| p.node.is_none()) {
        if p.phase == PodPhase::Lost {
            return Err(format!(
                "pod {} is Lost at a fixed point; it should have been replaced",
                p.name()
            ));
        }
        if let Some(n) = c.nodes().find(|n| feasible(c, &used, &p, n)) {
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
