//! DaemonSets: one pod on every node the template selects and tolerates.
//!
//! As Kubernetes' DaemonSet controller does since 1.12, the controller does
//! not place pods itself: it creates one pod per eligible node whose required
//! node affinity is replaced by a single term `matchFields metadata.name In
//! [node]` (`ReplaceDaemonSetPodNodeNameNodeAffinity`), and the default
//! scheduler binds it, so a DaemonSet pod passes every filter (resources,
//! pods capacity, taints) and shows in explain like any other pod.
//!
//! Which nodes get a pod is Kubernetes' `NodeShouldRunDaemonPod`: the node
//! matches the template's nodeSelector and required node affinity, and every
//! NoSchedule and NoExecute taint is tolerated. A node that stops qualifying
//! keeps its pod only while the pod still matches and tolerates the node's
//! NoExecute taints ("should continue running"); otherwise the pod is
//! deleted. The controller adds the tolerations Kubernetes adds to every
//! DaemonSet pod (`AddOrUpdateDaemonPodTolerations`; the "Taints and
//! tolerations" section of the DaemonSet documentation):
//! node.kubernetes.io/not-ready and unreachable NoExecute without
//! tolerationSeconds; disk-pressure, memory-pressure, pid-pressure and
//! unschedulable NoSchedule (network-unavailable is added for hostNetwork
//! pods only, which the engine does not model). So a cordoned node keeps and
//! gets its DaemonSet pod.
//!
//! A NotReady node gets no new pod (Kubernetes' node lifecycle controller
//! taints it not-ready:NoSchedule, which the automatic NoExecute toleration
//! does not cover); what happens to a running pod there is the node
//! failure's business.
//!
//! A template change rolls node by node (RollingUpdate with maxSurge 0):
//! an old pod that is not Ready is replaced at once, a Ready one only while
//! fewer than maxUnavailable (default 1) eligible nodes lack a Ready pod.
//! Each (template, node) pair is one revision of the controller, so the
//! scheduler's per-revision batches, the affinity index and explain work
//! unchanged.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::affinity::{NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm};
use crate::cluster::{Cluster, Controller, ControllerId, NodeId, PodPhase, Workload};
use crate::error::Error;
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::{
    IntOrPercent, NameRule, PodTemplate, TaintEffect, Toleration, TolerationOperator,
};

/// The most DaemonSets a cluster may hold: each may run a pod on every node
/// (10,000), so this bounds their pods at 320,000. Real clusters run a few
/// to a few dozen.
pub const MAX_DAEMONSETS: usize = 32;

/// An `apps/v1 DaemonSet`: a pod of `template` on every eligible node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonSetSpec {
    pub name: String,
    pub template: PodTemplate,
    /// `spec.updateStrategy.rollingUpdate.maxUnavailable` (default 1).
    pub max_unavailable: IntOrPercent,
}

impl DaemonSetSpec {
    /// A DaemonSet whose pods carry the label `app=<name>`.
    pub fn new(name: &str, template: PodTemplate) -> Self {
        DaemonSetSpec {
            name: name.to_string(),
            template,
            max_unavailable: IntOrPercent::Int(1),
        }
    }

    pub fn validate(&self) -> Result<(), Error> {
        crate::namespace::validate_key(&self.name, "DaemonSet", NameRule::Dns1123Subdomain)?;
        self.template.validate(&self.name)?;
        // Kubernetes' ValidateRollingUpdateDaemonSet: maxUnavailable may not
        // be 0 while maxSurge is 0 (the engine rolls with maxSurge 0).
        match self.max_unavailable {
            IntOrPercent::Int(0) | IntOrPercent::Percent(0) => Err(Error::Invalid(format!(
                "DaemonSet {}: maxUnavailable is 0; expected at least 1 or 1% (with maxSurge 0, a roll could never start)",
                self.name
            ))),
            IntOrPercent::Percent(p) if p > 100 => Err(Error::invalid(
                "maxUnavailable",
                &format!("{p}%"),
                "0% to 100%",
            )),
            _ => Ok(()),
        }
    }
}

/// The tolerations the DaemonSet controller adds to every DaemonSet pod,
/// unless the template already has one with the same key and effect.
pub fn daemon_tolerations(template: &PodTemplate) -> PodTemplate {
    let mut t = template.clone();
    let auto = [
        ("node.kubernetes.io/not-ready", TaintEffect::NoExecute),
        ("node.kubernetes.io/unreachable", TaintEffect::NoExecute),
        ("node.kubernetes.io/disk-pressure", TaintEffect::NoSchedule),
        (
            "node.kubernetes.io/memory-pressure",
            TaintEffect::NoSchedule,
        ),
        ("node.kubernetes.io/pid-pressure", TaintEffect::NoSchedule),
        ("node.kubernetes.io/unschedulable", TaintEffect::NoSchedule),
    ];
    for (key, effect) in auto {
        let present = t
            .tolerations
            .iter()
            .any(|x| x.key == key && x.effect == Some(effect));
        if !present {
            t.tolerations.push(Toleration {
                key: key.to_string(),
                operator: TolerationOperator::Exists,
                value: String::new(),
                effect: Some(effect),
                toleration_seconds: None,
            });
        }
    }
    t
}

/// A DaemonSet's state beside its controller slot.
#[derive(Clone, Debug)]
pub(crate) struct DaemonState {
    /// The template as declared (without the automatic tolerations).
    pub spec: DaemonSetSpec,
    /// Bumped by every template change; a pod of an older generation is old.
    pub generation: u32,
    /// The revision of (generation, node).
    pub rev_of: BTreeMap<(u32, u32), u32>,
    /// Per revision (index revision - 1): its generation and node; the
    /// generation's base revision (no node) has `None`.
    pub rev_info: Vec<(u32, Option<NodeId>)>,
    /// The cluster's epochs at the last sync: nothing to do until one moves.
    pub seen: Option<(u64, u64, u64, u32)>,
}

/// A DaemonSet's status, as `kubectl get daemonsets` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonSetStatus {
    pub name: String,
    /// Eligible nodes (`desiredNumberScheduled`).
    pub desired: u32,
    /// Pods bound to a node (`currentNumberScheduled`).
    pub current: u32,
    pub ready: u32,
    /// Pods of the current template (`updatedNumberScheduled`).
    pub updated: u32,
    /// Pods waiting for the scheduler.
    pub pending: u32,
}

impl Cluster {
    /// Creates a DaemonSet; its pods are created by the next pass.
    pub fn create_daemonset(&mut self, spec: DaemonSetSpec) -> Result<ControllerId, Error> {
        spec.validate()?;
        self.use_namespace(&spec.name);
        if self.controller_by_name.contains_key(&spec.name) {
            return Err(Error::AlreadyExists {
                kind: "workload",
                name: spec.name,
            });
        }
        let live = self
            .controllers
            .iter()
            .filter(|c| !c.deleted && matches!(c.workload, Workload::DaemonSet(_)))
            .count();
        if live >= MAX_DAEMONSETS {
            return Err(Error::Invalid(format!(
                "DaemonSet {}: the cluster already has {live} DaemonSets, the limit (MAX_DAEMONSETS); expected one deleted first",
                spec.name
            )));
        }
        self.disruption_epoch += 1;
        let id = ControllerId(self.controllers.len() as u32);
        let base = daemon_tolerations(&spec.template);
        self.controllers.push(Controller::new(
            &spec.name,
            0,
            Workload::DaemonSet(Box::new(DaemonState {
                spec: spec.clone(),
                generation: 1,
                rev_of: BTreeMap::new(),
                rev_info: Vec::new(),
                seen: None,
            })),
        ));
        self.controller_by_name.insert(spec.name.clone(), id);
        self.push_base_revision(id, base, 1);
        self.mark_services_for(id);
        self.note(
            EventType::Normal,
            Reason::Created,
            ObjectRef::Deployment(id),
            format!("DaemonSet {} created", spec.name),
        );
        Ok(id)
    }

    fn push_base_revision(&mut self, id: ControllerId, template: PodTemplate, generation: u32) {
        let r = self.push_revision(id, template);
        let c = &mut self.controllers[id.0 as usize];
        c.current = r;
        if let Workload::DaemonSet(d) = &mut c.workload {
            d.rev_info.push((generation, None));
            d.seen = None;
        }
    }

    fn daemonset_id(&self, name: &str) -> Result<ControllerId, Error> {
        self.controller_by_name
            .get(crate::namespace::canonical(name))
            .copied()
            .filter(|c| {
                matches!(
                    self.controllers[c.0 as usize].workload,
                    Workload::DaemonSet(_)
                )
            })
            .ok_or_else(|| Error::not_found("DaemonSet", name))
    }

    /// The DaemonSet's spec as declared now.
    pub fn daemonset_spec(&self, name: &str) -> Result<&DaemonSetSpec, Error> {
        let id = self.daemonset_id(name)?;
        match &self.controllers[id.0 as usize].workload {
            Workload::DaemonSet(d) => Ok(&d.spec),
            _ => Err(Error::not_found("DaemonSet", name)),
        }
    }

    /// Live DaemonSets' specs, in creation order.
    pub fn daemonset_specs(&self) -> impl Iterator<Item = &DaemonSetSpec> + '_ {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::DaemonSet(d) => Some(&d.spec),
                _ => None,
            })
    }

    /// Applies a new template or maxUnavailable (kubectl apply of a changed
    /// DaemonSet). A new template rolls node by node.
    pub fn update_daemonset(&mut self, spec: DaemonSetSpec) -> Result<(), Error> {
        spec.validate()?;
        let id = self.daemonset_id(&spec.name)?;
        let (changed, generation) = match &mut self.controllers[id.0 as usize].workload {
            Workload::DaemonSet(d) => {
                let changed = d.spec.template != spec.template;
                d.spec = spec.clone();
                if changed {
                    d.generation += 1;
                }
                d.seen = None;
                (changed, d.generation)
            }
            _ => return Err(Error::not_found("DaemonSet", &spec.name)),
        };
        if changed {
            self.push_base_revision(id, daemon_tolerations(&spec.template), generation);
            self.disruption_epoch += 1;
            self.note(
                EventType::Normal,
                Reason::RollingUpdate,
                ObjectRef::Deployment(id),
                format!(
                    "Rolling DaemonSet {} to template generation {generation} (version {})",
                    spec.name, spec.template.version
                ),
            );
        }
        Ok(())
    }

    /// Deletes a DaemonSet and, cascading, its pods.
    pub fn delete_daemonset(&mut self, name: &str) -> Result<(), Error> {
        let id = self.daemonset_id(name)?;
        self.delete_owner(id, name, "DaemonSet");
        Ok(())
    }

    /// The status of every live DaemonSet, in creation order.
    pub fn daemonsets(&self) -> Vec<DaemonSetStatus> {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::DaemonSet(d) => {
                    let mut st = DaemonSetStatus {
                        name: c.name.clone(),
                        desired: c.replicas,
                        current: 0,
                        ready: 0,
                        updated: 0,
                        pending: c.pending.len() as u32,
                    };
                    for &k in c.pods.values() {
                        let p = self.pod(k);
                        if p.node.is_some() {
                            st.current += 1;
                        }
                        if p.ready {
                            st.ready += 1;
                        }
                        let gen = d.rev_info[p.revision as usize - 1].0;
                        if gen == d.generation {
                            st.updated += 1;
                        }
                    }
                    Some(st)
                }
                _ => None,
            })
            .collect()
    }

    /// Whether the pod is a DaemonSet's (kubectl drain leaves those).
    pub(crate) fn is_daemon_pod(&self, k: u32) -> bool {
        matches!(
            self.controllers[self.pod(k).controller.0 as usize].workload,
            Workload::DaemonSet(_)
        )
    }

    /// `NodeShouldRunDaemonPod`: (should run, should continue running).
    fn daemon_should_run(&self, n: NodeId, tpl: &PodTemplate) -> (bool, bool) {
        let node = &self.nodes[n.0 as usize];
        if node.removed {
            return (false, false);
        }
        let s = &node.spec;
        if !s.labels_match(&tpl.node_selector)
            || !tpl.node_affinity.required_matches(&s.name, &s.labels)
        {
            return (false, false);
        }
        let untolerated = |effects: &[TaintEffect]| {
            s.taints
                .iter()
                .any(|t| effects.contains(&t.effect) && !tpl.tolerates(t))
        };
        if untolerated(&[TaintEffect::NoSchedule, TaintEffect::NoExecute]) || !node.ready {
            // Scheduled pods continue running while they tolerate the NoExecute taints.
            return (false, !untolerated(&[TaintEffect::NoExecute]));
        }
        (true, true)
    }

    /// The revision of the current generation pinned to node `n`.
    fn daemon_revision(&mut self, id: ControllerId, n: NodeId) -> u32 {
        let (generation, base) = match &self.controllers[id.0 as usize].workload {
            Workload::DaemonSet(d) => (d.generation, self.controllers[id.0 as usize].current),
            _ => unreachable!("daemon_revision is called for DaemonSets only"),
        };
        if let Workload::DaemonSet(d) = &self.controllers[id.0 as usize].workload {
            if let Some(&r) = d.rev_of.get(&(generation, n.0)) {
                return r;
            }
        }
        let mut tpl = self.controllers[id.0 as usize].revisions[base as usize - 1]
            .template
            .clone();
        tpl.node_affinity.required = Some(vec![NodeSelectorTerm {
            match_expressions: Vec::new(),
            match_fields: vec![NodeSelectorRequirement {
                key: "metadata.name".to_string(),
                operator: NodeSelectorOperator::In,
                values: vec![self.nodes[n.0 as usize].spec.name.clone()],
            }],
        }]);
        let r = self.push_revision(id, tpl);
        if let Workload::DaemonSet(d) = &mut self.controllers[id.0 as usize].workload {
            d.rev_info.push((generation, Some(n)));
            d.rev_of.insert((generation, n.0), r);
        }
        r
    }

    /// One DaemonSet toward its spec. Returns (created, deleted).
    pub(crate) fn sync_daemonset(&mut self, id: ControllerId) -> (u32, u32) {
        let key = (
            self.capacity_epoch,
            self.disruption_epoch,
            self.nodes.len() as u64,
            self.live_nodes,
        );
        let (generation, max_unavailable) = {
            let c = &self.controllers[id.0 as usize];
            match &c.workload {
                Workload::DaemonSet(d) if !c.deleted => {
                    if d.seen == Some(key) {
                        return (0, 0);
                    }
                    (d.generation, d.spec.max_unavailable)
                }
                _ => return (0, 0),
            }
        };
        let base = {
            let c = &self.controllers[id.0 as usize];
            c.revisions[c.current as usize - 1].template.clone()
        };
        // The pods per node: (key, generation, ready, pending).
        let mut by_node: BTreeMap<u32, Vec<(u32, u32, bool)>> = BTreeMap::new();
        {
            let c = &self.controllers[id.0 as usize];
            let Workload::DaemonSet(d) = &c.workload else {
                return (0, 0);
            };
            for &k in c.pods.values() {
                let p = self.pod(k);
                if p.phase == PodPhase::Lost {
                    continue; // deleted by collect_lost
                }
                let (g, n) = d.rev_info[p.revision as usize - 1];
                if let Some(n) = n {
                    by_node.entry(n.0).or_default().push((k, g, p.ready));
                }
            }
        }
        let (mut created, mut deleted) = (0u32, 0u32);
        let mut eligible = 0u32;
        // Nodes that no longer qualify but whose pod continues running.
        let mut kept = 0u32;
        let mut want: Vec<NodeId> = Vec::new();
        let mut old_ready: Vec<u32> = Vec::new();
        let mut unavailable = 0u32;
        let mut doomed: Vec<u32> = Vec::new();
        for i in 0..self.nodes.len() {
            let n = NodeId(i as u32);
            let (run, keep) = self.daemon_should_run(n, &base);
            let pods = by_node.remove(&(i as u32)).unwrap_or_default();
            if run {
                eligible += 1;
            }
            if !run && !keep {
                doomed.extend(pods.iter().map(|p| p.0));
                continue;
            }
            // Keep the newest pod; surplus ones (more than one) go.
            let mut pods = pods;
            pods.sort_by_key(|p| (p.1, p.2));
            while pods.len() > 1 {
                doomed.push(pods.remove(0).0);
            }
            if !run && !pods.is_empty() {
                kept += 1;
            }
            match pods.first() {
                None => {
                    if run {
                        want.push(n);
                        unavailable += 1;
                    }
                }
                Some(&(k, g, ready)) => {
                    if !ready {
                        unavailable += 1;
                    }
                    if g != generation && run {
                        if ready {
                            old_ready.push(k);
                        } else {
                            // An old pod that is not available costs nothing to replace.
                            doomed.push(k);
                        }
                    }
                }
            }
        }
        // Pods whose revision names no node (never created) or a node gone.
        for (_, pods) in by_node {
            doomed.extend(pods.iter().map(|p| p.0));
        }
        for k in doomed {
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
            deleted += 1;
        }
        // RollingUpdate: replace Ready old pods while fewer than maxUnavailable
        // eligible nodes lack an available pod.
        let max_unavailable = max_unavailable.scaled(eligible, true).max(1);
        for k in old_ready {
            if unavailable >= max_unavailable {
                break;
            }
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
            deleted += 1;
            unavailable += 1;
        }
        for n in want {
            let r = self.daemon_revision(id, n);
            self.create_pod_of_revision(id, r);
            created += 1;
        }
        // The pods it keeps: desiredNumberScheduled (the eligible nodes) and
        // the pods that continue running; what the cluster's pod total counts.
        let c = &mut self.controllers[id.0 as usize];
        self.desired_total = self.desired_total - c.replicas as u64 + (eligible + kept) as u64;
        c.replicas = eligible + kept;
        let key = (
            self.capacity_epoch,
            self.disruption_epoch,
            self.nodes.len() as u64,
            self.live_nodes,
        );
        if let Workload::DaemonSet(d) = &mut self.controllers[id.0 as usize].workload {
            // A sync that acted looks again next pass (a node whose old pod
            // it deleted wants its new one); a quiet one waits for a change.
            d.seen = if created + deleted == 0 {
                Some(key)
            } else {
                None
            };
        }
        (created, deleted)
    }

    /// Whether every live DaemonSet has exactly one pod of its current
    /// template bound on every eligible node and none elsewhere.
    pub(crate) fn daemonset_satisfied(&self, c: &Controller) -> bool {
        let Workload::DaemonSet(d) = &c.workload else {
            return true;
        };
        if !c.pending.is_empty() {
            return false;
        }
        let mut per_node: BTreeMap<u32, u32> = BTreeMap::new();
        for &k in c.pods.values() {
            let p = self.pod(k);
            let (g, n) = d.rev_info[p.revision as usize - 1];
            if g != d.generation || p.node != n {
                return false;
            }
            *per_node
                .entry(p.node.map(|n| n.0).unwrap_or(u32::MAX))
                .or_default() += 1;
        }
        let base = c.template();
        (0..self.nodes.len()).all(|i| {
            let (run, _) = self.daemon_should_run(NodeId(i as u32), base);
            let have = per_node.get(&(i as u32)).copied().unwrap_or(0);
            if run {
                have == 1
            } else {
                have <= 1
            }
        })
    }
}
