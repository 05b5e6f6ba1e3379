//! Taints on running nodes (`kubectl taint`) and Kubernetes' taint-based
//! eviction (the taint-eviction controller, formerly the NoExecute taint
//! manager), and zone failures.
//!
//! Time: one tick is one second of cluster time, so a toleration's
//! `tolerationSeconds` counts ticks. A NoExecute taint evicts, at once, every
//! pod on the node that does not tolerate it; a pod that tolerates every
//! NoExecute taint there is evicted after the smallest tolerationSeconds
//! among the tolerations that match them (the first matching toleration of
//! each taint, as Kubernetes' getMinTolerationTime takes them), counted from
//! when the timer started; a pod whose matching tolerations give no
//! tolerationSeconds stays for good. A timer, once started, keeps its start
//! when more taints arrive; it is cancelled when the node loses its NoExecute
//! taints or the pod comes to tolerate them for good. NoSchedule and
//! PreferNoSchedule only affect scheduling.
//!
//! Node conditions: the node lifecycle controller taints a node whose Ready
//! condition is Unknown (no heartbeat for the node monitor grace period)
//! with `node.kubernetes.io/unreachable`, NoSchedule and NoExecute, and one
//! whose Ready condition is False with `node.kubernetes.io/not-ready`.
//! Shepherd's nodes leave Ready only by a silent kubelet (FailNode,
//! FailZone, an imported node whose Ready condition is not True), so the
//! taint they get is `unreachable`. These taints are the node's state, not
//! entries of its spec (as cordoning is): [`Cluster::condition_taints`]
//! lists them, the TaintToleration filter reads them after the node's own
//! taints (their NoSchedule half keeps new pods away unless they tolerate
//! it, as in Kubernetes), and the taint-eviction controller below reads their NoExecute half
//! next to the node's own taints. Every pod carries DefaultTolerationSeconds'
//! two tolerations ([`default_tolerations`]) unless it already tolerates the
//! taints, so its pods stay 300 s, not Ready, before they are evicted and
//! replaced; pods that tolerate the taint with no tolerationSeconds stay.
//!
//! Cost: adding or removing a taint visits the node's pods, nothing else; a
//! timer is one entry in a queue keyed by its tick, checked once per tick.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::events::{EventType, ObjectRef, Reason};
use crate::cluster::{Cluster, NodeId};
use crate::model::{validate_label_key, Taint, TaintEffect, Toleration, TolerationOperator};
use crate::util::error::Error;

/// The taint key of a node whose Ready condition is False (Kubernetes'
/// `v1.TaintNodeNotReady`).
pub const TAINT_NODE_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// The taint key of a node whose Ready condition is Unknown: the node
/// controller has not heard from its kubelet for the node monitor grace
/// period (Kubernetes' `v1.TaintNodeUnreachable`).
pub const TAINT_NODE_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// The DefaultTolerationSeconds admission plugin's
/// `--default-not-ready-toleration-seconds` and
/// `--default-unreachable-toleration-seconds` (both 300 s).
pub const DEFAULT_TOLERATION_SECONDS: u64 = 300;

/// The tolerations Kubernetes' DefaultTolerationSeconds admission plugin
/// adds to a pod created with `tolerations`: `not-ready` and `unreachable`,
/// operator Exists, effect NoExecute, tolerationSeconds 300, each unless the
/// pod already has a toleration for it. As the plugin judges it, a
/// toleration is "for" the taint when its key is the taint's or empty and its
/// effect is NoExecute or empty (operator and value are not looked at). The
/// additions go after the pod's own tolerations.
pub(crate) fn default_tolerations(tolerations: &[Toleration]) -> Vec<Toleration> {
    let covers = |key: &str| {
        tolerations.iter().any(|t| {
            (t.key == key || t.key.is_empty())
                && t.effect.is_none_or(|e| e == TaintEffect::NoExecute)
        })
    };
    [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE]
        .into_iter()
        .filter(|k| !covers(k))
        .map(|k| Toleration {
            key: String::from(k),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: Some(TaintEffect::NoExecute),
            toleration_seconds: Some(DEFAULT_TOLERATION_SECONDS),
        })
        .collect()
}

/// What the taint-eviction controller does with one pod on a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// The node has no NoExecute taint, or the pod tolerates them for good.
    Stay,
    /// A NoExecute taint the pod does not tolerate (index into the node's
    /// taints; one past them: the node's condition taint).
    EvictNow(usize),
    /// Tolerated for this many seconds (ticks).
    EvictAfter(u64),
}

/// The verdict for a pod whose tolerations are `tolerations` followed by
/// the admission plugin's `added` ones, on a node with `taints` and the
/// NoExecute condition taint `condition` (if it is not Ready).
fn verdict(
    taints: &[Taint],
    condition: Option<&Taint>,
    tolerations: &[Toleration],
    added: &[Toleration],
) -> Verdict {
    let mut min: Option<u64> = None;
    for (i, t) in taints.iter().chain(condition).enumerate() {
        if t.effect != TaintEffect::NoExecute {
            continue;
        }
        // Kubernetes takes, per taint, the first toleration that matches it.
        let Some(tol) = tolerations.iter().chain(added).find(|tol| tol.tolerates(t)) else {
            return Verdict::EvictNow(i);
        };
        if let Some(s) = tol.toleration_seconds {
            min = Some(min.map_or(s, |m| m.min(s)));
        }
    }
    match min {
        None => Verdict::Stay,
        Some(s) => Verdict::EvictAfter(s),
    }
}

impl Cluster {
    /// `kubectl taint nodes NODE key=value:Effect`: adds a taint to a
    /// registered node. Refused, changing nothing, if the taint is malformed,
    /// if the node already has a taint with the same key and effect (kubectl
    /// asks for `--overwrite` then), or if the node would carry more taints
    /// than a node may. A NoExecute taint evicts at once the pods that do not
    /// tolerate it and starts the timers of those that tolerate it for a while.
    pub fn taint_node(&mut self, name: &str, taint: Taint) -> Result<(), Error> {
        let id = self.node_id(name)?;
        self.check_taint(id, &taint)?;
        let n = &mut self.nodes[id.0 as usize];
        n.spec.taints.push(taint.clone());
        // Pods bound before now were admitted without this taint: a NoSchedule
        // taint does not apply to them (see verify's admitted_under_old_body).
        n.changed_at_bind = self.bind_epoch;
        self.refresh_hot(id);
        if taint.effect == TaintEffect::NoExecute {
            self.disruption_epoch += 1;
            self.apply_no_execute(id);
        }
        Ok(())
    }

    /// Whether `taint` could be added to node `id` now: the checks of
    /// [`Cluster::taint_node`], changing nothing.
    pub(crate) fn check_taint(&self, id: NodeId, taint: &Taint) -> Result<(), Error> {
        let spec = &self.nodes[id.0 as usize].spec;
        validate_label_key(&taint.key, "taint key")?;
        if taint.key == TAINT_NODE_NOT_READY || taint.key == TAINT_NODE_UNREACHABLE {
            return Err(Error::Invalid(format!(
                "node {}: taint key {} is the node lifecycle controller's, set from the node's Ready condition; expected another key (stop the node's kubelet to make it unreachable)",
                spec.name, taint.key
            )));
        }
        if let Some(t) = spec
            .taints
            .iter()
            .find(|t| t.key == taint.key && t.effect == taint.effect)
        {
            return Err(Error::Invalid(format!(
                "node {} already has taint {t} with key {} and effect {}; expected a key and effect it does not carry (remove the old taint first)",
                spec.name,
                crate::util::limits::quoted(&taint.key),
                taint.effect.as_str()
            )));
        }
        let mut after = spec.clone();
        after.taints.push(taint.clone());
        after.validate()
    }

    /// `kubectl taint nodes NODE key:Effect-` (or `key-` for every effect):
    /// removes the node's taints with that key and effect. Refused, changing
    /// nothing, if there is none. Removing the last NoExecute taint cancels
    /// the pods' eviction timers; pending pods may now fit.
    pub fn untaint_node(
        &mut self,
        name: &str,
        key: &str,
        effect: Option<TaintEffect>,
    ) -> Result<(), Error> {
        let id = self.node_id(name)?;
        self.check_untaint(id, key, effect)?;
        let n = &mut self.nodes[id.0 as usize];
        let had_no_execute = n.spec.taints.iter().any(|t| {
            t.key == key
                && t.effect == TaintEffect::NoExecute
                && effect.is_none_or(|e| e == t.effect)
        });
        n.spec
            .taints
            .retain(|t| !(t.key == key && effect.is_none_or(|e| e == t.effect)));
        n.changed_at_bind = self.bind_epoch;
        self.refresh_hot(id);
        self.capacity_epoch += 1;
        if had_no_execute {
            self.apply_no_execute(id);
        }
        Ok(())
    }

    /// Whether node `id` carries a taint that `untaint_node` would remove.
    pub(crate) fn check_untaint(
        &self,
        id: NodeId,
        key: &str,
        effect: Option<TaintEffect>,
    ) -> Result<(), Error> {
        let spec = &self.nodes[id.0 as usize].spec;
        if spec
            .taints
            .iter()
            .any(|t| t.key == key && effect.is_none_or(|e| e == t.effect))
        {
            return Ok(());
        }
        let what = match effect {
            Some(e) => format!("{key}:{}", e.as_str()),
            None => String::from(key),
        };
        Err(Error::Invalid(format!(
            "node {} has no taint {}; expected one of its taints: {}",
            spec.name,
            crate::util::limits::quoted(&what),
            if spec.taints.is_empty() {
                String::from("(none)")
            } else {
                spec.taints
                    .iter()
                    .map(|t| format!("{t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )))
    }

    /// The taints the node lifecycle controller keeps on node `id` for its
    /// Ready condition: none while it is Ready (or removed); once it is not,
    /// `node.kubernetes.io/unreachable` with effects NoSchedule and
    /// NoExecute (see the module doc for why never `not-ready` here).
    pub fn condition_taints(&self, id: NodeId) -> Vec<Taint> {
        match self.condition_no_execute(id) {
            Some(t) => alloc::vec![
                Taint::new(TAINT_NODE_UNREACHABLE, "", TaintEffect::NoSchedule),
                t
            ],
            None => Vec::new(),
        }
    }

    /// What DefaultTolerationSeconds adds to the pods of a template with
    /// `tolerations` ([`default_tolerations`]), one shared list for each of
    /// the four outcomes.
    pub(crate) fn added_tolerations(
        &mut self,
        tolerations: &[Toleration],
    ) -> alloc::rc::Rc<[Toleration]> {
        let added = default_tolerations(tolerations);
        let which = added.iter().fold(0, |m, t| {
            m | if t.key == TAINT_NODE_NOT_READY { 1 } else { 2 }
        });
        self.default_added[which]
            .get_or_insert_with(|| added.into())
            .clone()
    }

    /// The NoExecute half of the condition taints of node `id`.
    pub(crate) fn condition_no_execute(&self, id: NodeId) -> Option<Taint> {
        let n = &self.nodes[id.0 as usize];
        (!n.ready && !n.removed)
            .then(|| Taint::new(TAINT_NODE_UNREACHABLE, "", TaintEffect::NoExecute))
    }

    /// The controller's verdict for pod `k` on node `id`, whose condition
    /// taint is `cond`: the pod's tolerations are its template's plus what
    /// DefaultTolerationSeconds added.
    fn pod_verdict(&self, k: u32, id: NodeId, cond: Option<&Taint>) -> Verdict {
        let r = self.revision_of(self.pod(k));
        verdict(
            &self.nodes[id.0 as usize].spec.taints,
            cond,
            &r.template.tolerations,
            &r.added_tolerations,
        )
    }

    /// The taint-eviction controller over every pod of node `id`.
    pub(crate) fn apply_no_execute(&mut self, id: NodeId) {
        let keys = self.node_pods[id.0 as usize].clone();
        let cond = self.condition_no_execute(id);
        for k in keys {
            self.apply_no_execute_to(k, id, cond.as_ref());
        }
    }

    /// The taint-eviction controller for one pod bound to node `id` (whose
    /// condition taint is `cond`): evict now, start a timer, keep a running
    /// one, or cancel it.
    pub(crate) fn apply_no_execute_to(&mut self, k: u32, id: NodeId, cond: Option<&Taint>) {
        let v = self.pod_verdict(k, id, cond);
        let (c, o, uid, deadline) = {
            let p = self.pod(k);
            (p.controller, p.ordinal, p.uid, p.taint_deadline())
        };
        match v {
            Verdict::EvictNow(_) => self.taint_evict(k, id),
            Verdict::EvictAfter(secs) => {
                if deadline.is_none() {
                    self.set_taint_timer(k, uid, secs);
                }
            }
            Verdict::Stay => {
                if deadline.is_some() {
                    self.pod_mut(k).set_taint_deadline(None);
                    // emitCancelPodDeletionEvent: the pod's namespace/name.
                    let pod = crate::model::namespace::full_name(&self.pod_name(c, o));
                    self.note(
                        EventType::Normal,
                        Reason::TaintManagerEviction,
                        ObjectRef::Pod(c, o),
                        format!("Cancelling deletion of Pod {pod}"),
                    );
                }
            }
        }
    }

    fn set_taint_timer(&mut self, k: u32, uid: u64, secs: u64) {
        let at = self.now.saturating_add(secs);
        let p = self.pod_mut(k);
        p.set_taint_deadline(Some(at));
        self.taint_queue.entry(at).or_default().push((k, uid));
    }

    /// A pod just bound to a node with NoExecute taints: the controller
    /// sees it as it sees any pod there. The scheduler only binds pods that
    /// tolerate the node's NoExecute taints (unless a profile leaves
    /// TaintToleration out); a pod that does not is evicted by a timer of 0,
    /// at the next tick, so a bind never deletes a pod under the scheduler.
    pub(crate) fn start_taint_timer(&mut self, k: u32, id: NodeId) {
        let cond = self.condition_no_execute(id);
        let v = self.pod_verdict(k, id, cond.as_ref());
        let uid = self.pod(k).uid;
        match v {
            Verdict::Stay => {}
            Verdict::EvictNow(_) => self.set_taint_timer(k, uid, 0),
            Verdict::EvictAfter(secs) => self.set_taint_timer(k, uid, secs),
        }
    }

    /// The taint-eviction controller at a bind it did not make (a bare Pod
    /// bound by nodeName: the kubelet does not read taints for it):
    /// deletes the pod at once if it does not tolerate a NoExecute taint of
    /// node `id`; a timer is already set otherwise. Returns whether it did.
    pub(crate) fn evict_if_untolerated(&mut self, k: u32, id: NodeId) -> bool {
        let cond = self.condition_no_execute(id);
        match self.pod_verdict(k, id, cond.as_ref()) {
            Verdict::EvictNow(_) => {
                self.taint_evict(k, id);
                true
            }
            _ => false,
        }
    }

    fn taint_evict(&mut self, k: u32, id: NodeId) {
        let (c, o) = {
            let p = self.pod(k);
            (p.controller, p.ordinal)
        };
        // emitPodDeletionEvent: "Marking for deletion Pod NS/NAME", the
        // same whether the pod tolerated the taint for a while or not at all.
        self.record(
            EventType::Normal,
            Reason::TaintManagerEviction,
            ObjectRef::Pod(c, o),
            crate::cluster::events::Message::TolerationExpired(id),
        );
        self.delete_pod(k, None);
    }

    /// Fires the eviction timers due by now: each pod still on its node with
    /// the same timer is deleted (its controller replaces it). Costs the
    /// timers due, not the pods. Returns how many pods it evicted.
    pub fn taint_evictions(&mut self) -> u32 {
        let mut n = 0;
        // The condition taint of the last node seen: timers come in bind
        // order, so a zone's pods share a few nodes in a row.
        let mut last: Option<(NodeId, Option<Taint>)> = None;
        while let Some((&at, _)) = self.taint_queue.first_key_value() {
            if at > self.now {
                break;
            }
            let due = self.taint_queue.remove(&at).unwrap_or_default();
            for (k, uid) in due {
                let live = self
                    .pods
                    .get(k as usize)
                    .and_then(|p| p.as_ref())
                    .filter(|p| p.uid == uid && p.taint_deadline() == Some(at));
                let Some(id) = live.and_then(|p| p.node()) else {
                    continue;
                };
                if last.as_ref().is_none_or(|(l, _)| *l != id) {
                    last = Some((id, self.condition_no_execute(id)));
                }
                let cond = last.as_ref().and_then(|(_, t)| t.as_ref());
                let v = self.pod_verdict(k, id, cond);
                match v {
                    Verdict::Stay => {
                        self.pod_mut(k).set_taint_deadline(None);
                        continue;
                    }
                    // A zone's worth of pods at once: a structured event,
                    // rendered when read.
                    Verdict::EvictNow(_) | Verdict::EvictAfter(_) => self.taint_evict(k, id),
                }
                n += 1;
            }
        }
        n
    }

    /// Every registered node whose label `key` has the value `value`, in
    /// registration order.
    pub fn nodes_labelled(&self, key: &str, value: &str) -> Vec<String> {
        self.nodes
            .iter()
            .filter(|n| !n.removed && n.spec.labels.get(key).is_some_and(|v| v == value))
            .map(|n| n.spec.name.clone())
            .collect()
    }

    /// A zone failure: stops the kubelet of every registered node whose label
    /// `key` (`topology.kubernetes.io/zone` by default on the page) has the
    /// value `value`, as [`Cluster::fail_node`] does each. Refused, changing
    /// nothing, if no node carries it. Returns the nodes failed.
    pub fn fail_zone(&mut self, key: &str, value: &str) -> Result<Vec<String>, Error> {
        let names = self.nodes_labelled(key, value);
        if names.is_empty() {
            return Err(Error::Invalid(format!(
                "no registered node has label {}={}; expected a label value some node carries",
                crate::util::limits::quoted(key),
                crate::util::limits::quoted(value)
            )));
        }
        for n in &names {
            self.fail_node(n)?;
        }
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_takes_the_first_matching_toleration_of_each_taint() {
        let ne = |k: &str| Taint::new(k, "", TaintEffect::NoExecute);
        let tol = |k: &str, s: Option<u64>| {
            let t = Toleration::exists(k, Some(TaintEffect::NoExecute));
            match s {
                Some(s) => t.for_seconds(s),
                None => t,
            }
        };
        let v = |taints: &[Taint], tols: &[Toleration]| verdict(taints, None, tols, &[]);
        assert_eq!(v(&[], &[]), Verdict::Stay);
        assert_eq!(v(&[ne("a")], &[]), Verdict::EvictNow(0));
        assert_eq!(v(&[ne("a")], &[tol("a", None)]), Verdict::Stay);
        assert_eq!(
            v(
                &[ne("a"), ne("b")],
                &[tol("a", Some(300)), tol("b", Some(60))]
            ),
            Verdict::EvictAfter(60)
        );
        // The first toleration matching `a` gives no seconds: `a` is tolerated
        // for good, `b` for 30.
        assert_eq!(
            v(&[ne("a"), ne("b")], &[tol("a", None), tol("", Some(30))]),
            Verdict::EvictAfter(30)
        );
        assert_eq!(v(&[ne("a")], &[tol("a", Some(0))]), Verdict::EvictAfter(0));
        // NoSchedule taints never evict.
        let ns = Taint::new("a", "", TaintEffect::NoSchedule);
        assert_eq!(v(&[ns], &[]), Verdict::Stay);
    }

    #[test]
    fn default_toleration_seconds_adds_what_the_pod_does_not_tolerate() {
        // No tolerations: both, Exists, NoExecute, 300 s.
        let added = default_tolerations(&[]);
        assert_eq!(added.len(), 2);
        assert_eq!(added[0].key, TAINT_NODE_NOT_READY);
        assert_eq!(added[1].key, TAINT_NODE_UNREACHABLE);
        for t in &added {
            assert_eq!(t.operator, TolerationOperator::Exists);
            assert_eq!(t.effect, Some(TaintEffect::NoExecute));
            assert_eq!(t.toleration_seconds, Some(300));
        }
        // A pod's own unreachable toleration (any seconds, or none) is kept:
        // only not-ready is added.
        let own = Toleration::exists(TAINT_NODE_UNREACHABLE, Some(TaintEffect::NoExecute));
        let added = default_tolerations(&[own.clone().for_seconds(6000)]);
        assert_eq!(added.len(), 1);
        assert_eq!(added[0].key, TAINT_NODE_NOT_READY);
        // An empty effect counts as NoExecute, an empty key as every key.
        assert!(
            default_tolerations(&[Toleration::exists(TAINT_NODE_NOT_READY, None), own]).is_empty()
        );
        assert!(default_tolerations(&[Toleration::exists("", None)]).is_empty());
        // A NoSchedule toleration for the key does not count.
        assert_eq!(
            default_tolerations(&[Toleration::exists(
                TAINT_NODE_UNREACHABLE,
                Some(TaintEffect::NoSchedule)
            )])
            .len(),
            2
        );
        // With the additions, an unreachable node evicts after 300 s; a pod
        // tolerating it for good stays.
        let cond = Taint::new(TAINT_NODE_UNREACHABLE, "", TaintEffect::NoExecute);
        assert_eq!(
            verdict(&[], Some(&cond), &[], &default_tolerations(&[])),
            Verdict::EvictAfter(300)
        );
        let forever = [Toleration::exists(
            TAINT_NODE_UNREACHABLE,
            Some(TaintEffect::NoExecute),
        )];
        assert_eq!(
            verdict(&[], Some(&cond), &forever, &default_tolerations(&forever)),
            Verdict::Stay
        );
        // Without them (no admission), the condition taint evicts at once;
        // its index is one past the node's own taints.
        assert_eq!(verdict(&[], Some(&cond), &[], &[]), Verdict::EvictNow(0));
    }
}
