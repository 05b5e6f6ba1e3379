//! DaemonSets: one pod on every node the template selects and tolerates.
//!
//! As Kubernetes' DaemonSet controller does since 1.12, the controller does
//! not place pods itself: it creates one pod per eligible node whose required
//! node affinity is replaced by a single term `matchFields metadata.name In
//! [node]` (`ReplaceDaemonSetPodNodeNameNodeAffinity`), and the default
//! scheduler binds it, so a DaemonSet pod passes every filter (resources,
//! pods capacity, taints), shows in explain like any other pod, and, with a
//! PriorityClass above the pods of a full node, preempts them there like
//! any other pod (`scheduler/preemption.rs`: its node is its only
//! candidate).
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
//! unschedulable NoSchedule; and network-unavailable NoSchedule when the
//! template has `hostNetwork: true` (a pod on the host's network does not
//! wait for the node's pod network). So a cordoned node keeps and gets its
//! DaemonSet pod.
//!
//! A NotReady node gets no new pod (Kubernetes' node lifecycle controller
//! taints it not-ready:NoSchedule, which the automatic NoExecute toleration
//! does not cover); what happens to a running pod there is the node
//! failure's business.
//!
//! A template change follows `spec.updateStrategy`, as Kubernetes'
//! `rollingUpdate` (pkg/controller/daemon/update.go) does:
//!
//! - RollingUpdate without surge (maxSurge 0, maxUnavailable default 1): an
//!   old pod that is not available is replaced at once; an available one is
//!   deleted only while fewer than maxUnavailable eligible nodes lack an
//!   available pod (a node with no pod, or whose new pod is not yet
//!   available, counts), and the node gets its new pod at the next pass.
//!   An old pod on a node that no longer should run the pod but keeps it
//!   (an untolerated NoSchedule taint) is replaced the same way, by no pod:
//!   Kubernetes' rollingUpdate walks every node that has a daemon pod.
//! - RollingUpdate with surge (maxSurge above 0, maxUnavailable 0): the new
//!   pod is created beside the old one, on at most maxSurge nodes at a time,
//!   and the old pod is deleted once the new one is available (Ready for
//!   minReadySeconds); an old pod that is not available gets its new pod at
//!   once, outside the surge limit.
//! - OnDelete: a template change replaces nothing; a node whose pod is
//!   deleted or evicted gets a pod of the current template.
//!
//! Both maxSurge and maxUnavailable are whole numbers or percentages of the
//! nodes that should run the pod (desiredNumberScheduled), and both
//! percentages round up (`SurgeCount` and `UnavailableCount` in
//! pkg/controller/daemon/util/daemonset_util.go scale with rounding up; the
//! Deployment controller rounds maxUnavailable down, the DaemonSet
//! controller does not). Validation (`ValidateRollingUpdateDaemonSet`)
//! requires exactly one of them to be non-zero, each at most 100%.
//! Each (template, node) pair is one revision of the controller, so the
//! scheduler's per-revision batches, the affinity index and explain work
//! unchanged.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::cluster::events::Reason;
use crate::cluster::{Cluster, NodeId, Owner, OwnerId, PodPhase, Workload};
use crate::model::affinity::{NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm};
use crate::model::{
    IntOrPercent, NameRule, PodTemplate, TaintEffect, Toleration, TolerationOperator,
};
use crate::util::error::Error;

/// The most DaemonSets a cluster may hold: each may run a pod on every node
/// (10,000), so this bounds their pods at 320,000. Real clusters run a few
/// to a few dozen.
pub const MAX_DAEMONSETS: usize = 32;

/// `spec.updateStrategy.type` of a DaemonSet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DaemonSetUpdateStrategyType {
    /// Kubernetes' default: the controller replaces old pods itself, within
    /// maxUnavailable or maxSurge.
    #[default]
    RollingUpdate,
    /// Old pods stay until they are deleted; their replacements are new.
    OnDelete,
}

impl DaemonSetUpdateStrategyType {
    pub fn as_str(self) -> &'static str {
        match self {
            DaemonSetUpdateStrategyType::RollingUpdate => "RollingUpdate",
            DaemonSetUpdateStrategyType::OnDelete => "OnDelete",
        }
    }

    /// Reads Kubernetes' spelling.
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "RollingUpdate" => Ok(DaemonSetUpdateStrategyType::RollingUpdate),
            "OnDelete" => Ok(DaemonSetUpdateStrategyType::OnDelete),
            other => Err(Error::invalid(
                "updateStrategy type",
                other,
                "RollingUpdate or OnDelete",
            )),
        }
    }
}

/// The most minReadySeconds a DaemonSet may ask for (Kubernetes' int32).
pub const MAX_DAEMONSET_MIN_READY_SECONDS: u32 = i32::MAX as u32;

/// An `apps/v1 DaemonSet`: a pod of `template` on every eligible node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonSetSpec {
    pub name: String,
    pub template: PodTemplate,
    /// `spec.updateStrategy.rollingUpdate.maxUnavailable` (default 1).
    pub max_unavailable: IntOrPercent,
    /// `spec.updateStrategy.rollingUpdate.maxSurge` (default 0).
    pub max_surge: IntOrPercent,
    /// `spec.updateStrategy.type` (default RollingUpdate); with OnDelete the
    /// two numbers above are not read.
    pub strategy: DaemonSetUpdateStrategyType,
    /// `spec.minReadySeconds`: a pod counts as available once Ready this
    /// long (default 0), for maxUnavailable and for ending a surge.
    pub min_ready_seconds: u32,
    /// `spec.template.spec.hostNetwork`: part of the template (a change
    /// rolls the pods). Its one effect simulated is the toleration the
    /// controller adds for it (see [`daemon_tolerations`]); host ports are
    /// not simulated.
    pub host_network: bool,
}

impl DaemonSetSpec {
    /// A DaemonSet whose pods carry the label `app=<name>`.
    pub fn new(name: &str, template: PodTemplate) -> Self {
        DaemonSetSpec {
            name: name.to_string(),
            template,
            max_unavailable: IntOrPercent::Int(1),
            max_surge: IntOrPercent::Int(0),
            strategy: DaemonSetUpdateStrategyType::RollingUpdate,
            min_ready_seconds: 0,
            host_network: false,
        }
    }

    /// `spec.template.spec.hostNetwork: true`.
    pub fn with_host_network(mut self) -> Self {
        self.host_network = true;
        self
    }

    /// RollingUpdate with surge: `max_surge` nodes at a time get their new
    /// pod beside the old one (maxUnavailable 0, as Kubernetes requires).
    pub fn with_surge(mut self, max_surge: IntOrPercent) -> Self {
        self.strategy = DaemonSetUpdateStrategyType::RollingUpdate;
        self.max_surge = max_surge;
        self.max_unavailable = IntOrPercent::Int(0);
        self
    }

    /// `spec.updateStrategy.type: OnDelete`.
    pub fn on_delete(mut self) -> Self {
        self.strategy = DaemonSetUpdateStrategyType::OnDelete;
        self
    }

    pub fn validate(&self) -> Result<(), Error> {
        crate::model::namespace::validate_key(&self.name, "DaemonSet", NameRule::Dns1123Subdomain)?;
        self.template.validate(&self.name)?;
        if self.min_ready_seconds > MAX_DAEMONSET_MIN_READY_SECONDS {
            return Err(Error::Invalid(format!(
                "minReadySeconds {} of DaemonSet {} is out of range; expected 0 to {MAX_DAEMONSET_MIN_READY_SECONDS}",
                self.min_ready_seconds, self.name
            )));
        }
        if self.strategy == DaemonSetUpdateStrategyType::OnDelete {
            return Ok(());
        }
        // Kubernetes' ValidateRollingUpdateDaemonSet: each at most 100%, and
        // exactly one of the two non-zero.
        for (what, v) in [
            ("maxUnavailable", self.max_unavailable),
            ("maxSurge", self.max_surge),
        ] {
            if let IntOrPercent::Percent(p) = v {
                if p > 100 {
                    return Err(Error::Invalid(format!(
                        "{what} {p}% of DaemonSet {} is out of range; expected 0% to 100%",
                        self.name
                    )));
                }
            }
        }
        let zero = |v: IntOrPercent| matches!(v, IntOrPercent::Int(0) | IntOrPercent::Percent(0));
        match (zero(self.max_unavailable), zero(self.max_surge)) {
            (true, true) => Err(Error::Invalid(format!(
                "maxUnavailable of DaemonSet {} is 0 while maxSurge is 0; expected one of them above 0 (a roll could never start)",
                self.name
            ))),
            (false, false) => Err(Error::Invalid(format!(
                "maxSurge {} of DaemonSet {} is set while maxUnavailable is {}; expected maxUnavailable 0 with a maxSurge, as Kubernetes allows only one of them above 0",
                show(self.max_surge),
                self.name,
                show(self.max_unavailable)
            ))),
            _ => Ok(()),
        }
    }
}

fn show(v: IntOrPercent) -> String {
    match v {
        IntOrPercent::Int(n) => format!("{n}"),
        IntOrPercent::Percent(p) => format!("{p}%"),
    }
}

/// The tolerations the DaemonSet controller adds to every DaemonSet pod
/// (Kubernetes' `AddOrUpdateDaemonPodTolerations` in
/// pkg/controller/daemon/util/daemonset_util.go): not-ready and unreachable
/// NoExecute without tolerationSeconds; disk-, memory-, pid-pressure and
/// unschedulable NoSchedule; network-unavailable NoSchedule for a pod with
/// `hostNetwork: true`. Each is added as `AddOrUpdateTolerationInPodSpec`
/// adds it: a toleration of the template with the same key, operator,
/// value and effect (`MatchToleration`) is replaced in place (so a
/// tolerationSeconds given there is dropped), otherwise it is appended.
pub fn daemon_tolerations(template: &PodTemplate, host_network: bool) -> PodTemplate {
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
    let network = (
        "node.kubernetes.io/network-unavailable",
        TaintEffect::NoSchedule,
    );
    let extra = if host_network { Some(network) } else { None };
    for (key, effect) in auto.into_iter().chain(extra) {
        let add = Toleration {
            key: key.to_string(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: Some(effect),
            toleration_seconds: None,
        };
        let mut replaced = false;
        for x in t.tolerations.iter_mut() {
            if x.key == add.key
                && x.operator == add.operator
                && x.value == add.value
                && x.effect == add.effect
            {
                *x = add.clone();
                replaced = true;
            }
        }
        if !replaced {
            t.tolerations.push(add);
        }
    }
    t
}

/// A DaemonSet pod as the sync sees it.
#[derive(Clone, Copy, Debug)]
struct DaemonPod {
    key: u32,
    /// Of the current template generation.
    new: bool,
    ready: bool,
    available: bool,
    /// Creation order: the oldest pod of a kind stays.
    ordinal: u32,
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
    /// The cluster's epochs at the last sync (capacity, disruption, node
    /// changes: `Cluster::node_epoch` moves with every label, taint,
    /// readiness and node add or removal), and its live nodes: nothing to do
    /// until one moves.
    pub seen: Option<(u64, u64, u64, u32)>,
    /// The node slots that should run the pod at the last sync
    /// (NodeShouldRunDaemonPod's shouldRun), ascending: what the status
    /// counts, as Kubernetes' updateDaemonSetStatus counts by node.
    pub should_run: Vec<u32>,
}

/// A DaemonSet's status, as `kubectl get daemonsets` prints it.
///
/// Counted node by node as Kubernetes' updateDaemonSetStatus counts: only
/// the nodes that should run the pod (NodeShouldRunDaemonPod's shouldRun)
/// are desired, and each of them by the first of its pods (bound before
/// unbound, then the oldest); a node that merely keeps its pod (should
/// continue running, not should run) is misscheduled, not desired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonSetStatus {
    pub name: String,
    /// Nodes that should run the pod (`desiredNumberScheduled`).
    pub desired: u32,
    /// Of those, nodes with a pod meant for them, bound or still Pending
    /// (`currentNumberScheduled`: Kubernetes finds a Pending pod's node in
    /// its `metadata.name` node affinity).
    pub current: u32,
    /// Of those, nodes whose first pod is Ready (`numberReady`).
    pub ready: u32,
    /// Pods of the current template, bound or not, on any node.
    pub updated: u32,
    /// Of the desired nodes, those whose first pod is of the current
    /// template (`updatedNumberScheduled`, kubectl's UP-TO-DATE).
    pub updated_scheduled: u32,
    /// Of the desired nodes, those whose first pod has been Ready for
    /// minReadySeconds (`numberAvailable`).
    pub available: u32,
    /// Nodes that should not run the pod but have one (`numberMisscheduled`).
    pub misscheduled: u32,
    /// Pods waiting for the scheduler.
    pub pending: u32,
}

impl DaemonSetStatus {
    /// What `kubectl rollout status daemonset/NAME` prints (kubectl's
    /// DaemonSetStatusViewer): only RollingUpdate has a rollout to wait for.
    pub fn rollout_status(&self, strategy: DaemonSetUpdateStrategyType) -> String {
        let n = &self.name;
        if strategy != DaemonSetUpdateStrategyType::RollingUpdate {
            "error: rollout status is only available for RollingUpdate strategy type".into()
        } else if self.updated_scheduled < self.desired {
            format!(
                "Waiting for daemon set \"{n}\" rollout to finish: {} out of {} new pods have been updated...",
                self.updated_scheduled, self.desired
            )
        } else if self.available < self.desired {
            format!(
                "Waiting for daemon set \"{n}\" rollout to finish: {} of {} updated pods are available...",
                self.available, self.desired
            )
        } else {
            format!("daemon set \"{n}\" successfully rolled out")
        }
    }
}

impl Cluster {
    /// Creates a DaemonSet; its pods are created by the next pass.
    pub fn create_daemonset(&mut self, spec: DaemonSetSpec) -> Result<OwnerId, Error> {
        spec.validate()?;
        self.owner_name_free(&spec.name, "workload")?;
        self.check_topology_keys(&spec.name, &spec.template)?;
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
        let base = daemon_tolerations(&spec.template, spec.host_network);
        let mut ctl = Owner::new(
            &spec.name,
            0,
            Workload::DaemonSet(Box::new(DaemonState {
                spec: spec.clone(),
                generation: 1,
                rev_of: BTreeMap::new(),
                rev_info: Vec::new(),
                seen: None,
                should_run: Vec::new(),
            })),
        );
        ctl.min_ready_seconds = spec.min_ready_seconds;
        let id = self.add_owner(ctl);
        // Creating it is an API call: no Event.
        self.push_base_revision(id, base, 1);
        Ok(id)
    }

    fn push_base_revision(&mut self, id: OwnerId, template: PodTemplate, generation: u32) {
        let r = self.push_revision(id, template);
        let c = &mut self.controllers[id.0 as usize];
        c.current = r;
        if let Workload::DaemonSet(d) = &mut c.workload {
            d.rev_info.push((generation, None));
            d.seen = None;
        }
    }

    fn daemonset_id(&self, name: &str) -> Result<OwnerId, Error> {
        self.controller_by_name
            .get(crate::model::namespace::canonical(name))
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

    /// Applies a new template, update strategy or minReadySeconds (kubectl
    /// apply of a changed DaemonSet). A new template rolls as the strategy
    /// says; under OnDelete it waits for pods to be deleted.
    pub fn update_daemonset(&mut self, spec: DaemonSetSpec) -> Result<(), Error> {
        spec.validate()?;
        let id = self.daemonset_id(&spec.name)?;
        self.check_topology_keys(&spec.name, &spec.template)?;
        let (changed, generation) = match &mut self.controllers[id.0 as usize].workload {
            Workload::DaemonSet(d) => {
                let changed =
                    d.spec.template != spec.template || d.spec.host_network != spec.host_network;
                d.spec = spec.clone();
                if changed {
                    d.generation += 1;
                }
                d.seen = None;
                (changed, d.generation)
            }
            _ => return Err(Error::not_found("DaemonSet", &spec.name)),
        };
        self.controllers[id.0 as usize].min_ready_seconds = spec.min_ready_seconds;
        if changed {
            self.push_base_revision(
                id,
                daemon_tolerations(&spec.template, spec.host_network),
                generation,
            );
            // An API update: the DaemonSet controller's own events
            // (SuccessfulCreate, SuccessfulDelete) follow as it rolls.
            self.disruption_epoch += 1;
        }
        Ok(())
    }

    /// Deletes a DaemonSet and, cascading, its pods.
    pub fn delete_daemonset(&mut self, name: &str) -> Result<(), Error> {
        let id = self.daemonset_id(name)?;
        self.delete_owner(id, name);
        Ok(())
    }

    /// The status of every live DaemonSet, in creation order, as its
    /// controller's last sync saw the nodes (see `DaemonSetStatus`).
    pub fn daemonsets(&self) -> Vec<DaemonSetStatus> {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::DaemonSet(d) => Some(self.daemonset_status(c, d)),
                _ => None,
            })
            .collect()
    }

    fn daemonset_status(&self, c: &Owner, d: &DaemonState) -> DaemonSetStatus {
        let mut st = DaemonSetStatus {
            name: c.name.clone(),
            desired: d.should_run.len() as u32,
            current: 0,
            ready: 0,
            updated: 0,
            updated_scheduled: 0,
            available: 0,
            misscheduled: 0,
            pending: c.pending.len() as u32,
        };
        // Per node its first pod (podByCreationTimestampAndPhase: bound
        // before unbound, then the oldest; ordinals follow creation).
        let mut first: BTreeMap<u32, (bool, u32, u32)> = BTreeMap::new();
        for &k in c.pods.values() {
            let p = self.pod(k);
            let (gen, target) = d.rev_info[p.revision as usize - 1];
            if gen == d.generation {
                st.updated += 1;
            }
            if p.phase == PodPhase::Lost {
                continue; // deleted by collect_lost
            }
            let Some(n) = target else { continue };
            let rank = (p.node().is_none(), p.ordinal, k);
            first
                .entry(n.0)
                .and_modify(|r| *r = (*r).min(rank))
                .or_insert(rank);
        }
        for (n, (_, _, k)) in first {
            if d.should_run.binary_search(&n).is_err() {
                st.misscheduled += 1;
                continue;
            }
            st.current += 1;
            let p = self.pod(k);
            if p.ready {
                st.ready += 1;
                if p.available {
                    st.available += 1;
                }
            }
            if d.rev_info[p.revision as usize - 1].0 == d.generation {
                st.updated_scheduled += 1;
            }
        }
        st
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
    pub(crate) fn daemon_revision(&mut self, id: OwnerId, n: NodeId) -> u32 {
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
    ///
    /// First the manage loop (`podsShouldBeOnNode`): pods on nodes that may
    /// not keep them go, surplus pods go (one pod per node; under surge one
    /// old beside one new), nodes without a pod get one of the current
    /// template. Then the update strategy (see the module doc).
    pub(crate) fn sync_daemonset(&mut self, id: OwnerId) -> (u32, u32) {
        let key = (
            self.capacity_epoch,
            self.disruption_epoch,
            self.node_epoch,
            self.live_nodes,
        );
        let (generation, spec) = {
            let c = &self.controllers[id.0 as usize];
            match &c.workload {
                Workload::DaemonSet(d) if !c.deleted => {
                    if d.seen == Some(key) {
                        return (0, 0);
                    }
                    (
                        d.generation,
                        (d.spec.strategy, d.spec.max_surge, d.spec.max_unavailable),
                    )
                }
                _ => return (0, 0),
            }
        };
        let (strategy, max_surge, max_unavailable) = spec;
        let rolling = strategy == DaemonSetUpdateStrategyType::RollingUpdate;
        // Kubernetes' AllowsSurge: a maxSurge that is not zero.
        let surge =
            rolling && !matches!(max_surge, IntOrPercent::Int(0) | IntOrPercent::Percent(0));
        let base = {
            let c = &self.controllers[id.0 as usize];
            c.revisions[c.current as usize - 1].template.clone()
        };
        let mut by_node: BTreeMap<u32, Vec<DaemonPod>> = BTreeMap::new();
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
                    by_node.entry(n.0).or_default().push(DaemonPod {
                        key: k,
                        new: g == generation,
                        ready: p.ready,
                        available: p.available,
                        ordinal: p.ordinal,
                    });
                }
            }
        }
        let (mut created, mut deleted) = (0u32, 0u32);
        let mut eligible = 0u32;
        let mut should_run: Vec<u32> = Vec::new();
        // Nodes that no longer qualify but whose pod continues running.
        let mut kept = 0u32;
        let mut want: Vec<NodeId> = Vec::new();
        let mut doomed: Vec<u32> = Vec::new();
        // Nodes with their (new, old) pod after the manage loop, and whether
        // the node should run the pod: every eligible node, and each node
        // whose pod only continues running (Kubernetes' rollingUpdate walks
        // every node that has a daemon pod, getNodesToDaemonPods).
        let mut rows: Vec<(NodeId, Option<DaemonPod>, Option<DaemonPod>, bool)> = Vec::new();
        for i in 0..self.nodes.len() {
            let n = NodeId(i as u32);
            let (run, keep) = self.daemon_should_run(n, &base);
            let pods = by_node.remove(&(i as u32)).unwrap_or_default();
            if run {
                eligible += 1;
                should_run.push(i as u32);
            }
            if !run && !keep {
                doomed.extend(pods.iter().map(|p| p.key));
                continue;
            }
            // The oldest pod of each kind stays; others are surplus.
            let (mut new, mut old): (Option<DaemonPod>, Option<DaemonPod>) = (None, None);
            let mut pods = pods;
            pods.sort_by_key(|p| p.ordinal);
            for p in pods {
                let slot = if p.new { &mut new } else { &mut old };
                if slot.is_none() {
                    *slot = Some(p);
                } else {
                    doomed.push(p.key);
                }
            }
            if let (Some(_), Some(o)) = (new, old) {
                // Two pods stay together only under surge, and only while
                // the old one is Ready (Kubernetes' manage loop); otherwise
                // the new one stays.
                if !run || !surge || !o.ready {
                    doomed.push(o.key);
                    old = None;
                }
            }
            if !run {
                if new.is_some() || old.is_some() {
                    kept += 1;
                    rows.push((n, new.take(), old.take(), false));
                }
                continue;
            }
            if new.is_none() && old.is_none() {
                want.push(n);
            }
            rows.push((n, new.take(), old.take(), true));
        }
        // Pods whose revision names no node (never created) or a node gone.
        for (_, pods) in by_node {
            doomed.extend(pods.iter().map(|p| p.key));
        }
        // The strategy. Both numbers scale against desiredNumberScheduled and
        // round up (SurgeCount, UnavailableCount); if both come to 0 with
        // nodes to run on, maxUnavailable is 1 (updatedDesiredNodeCounts).
        let (max_surge, mut max_unavailable) = if rolling {
            (
                max_surge.scaled(eligible, true),
                max_unavailable.scaled(eligible, true),
            )
        } else {
            (0, 0)
        };
        if rolling && eligible > 0 && max_surge == 0 && max_unavailable == 0 {
            max_unavailable = 1;
        }
        if rolling && !surge {
            // Delete just enough old pods to stay within maxUnavailable; the
            // next pass gives their nodes a new pod (a node that should not
            // run the pod, whose old pod only continued running, gets none).
            let mut unavailable = 0u32;
            let mut candidates: Vec<u32> = Vec::new();
            for &(_, new, old, _) in &rows {
                match (new, old) {
                    (None, None) => unavailable += 1,
                    (Some(p), _) => {
                        if !p.available {
                            unavailable += 1;
                        }
                    }
                    (None, Some(o)) if !o.available => {
                        // An old pod that is not available costs nothing to replace.
                        doomed.push(o.key);
                        unavailable += 1;
                    }
                    (None, Some(o)) => {
                        if unavailable < max_unavailable {
                            candidates.push(o.key);
                        }
                    }
                }
            }
            let room = max_unavailable.saturating_sub(unavailable) as usize;
            doomed.extend(candidates.into_iter().take(room));
        } else if surge {
            // Create new pods beside old ones on at most maxSurge nodes; an
            // old pod goes once the new one beside it is available.
            let mut surging = 0u32;
            let mut allowed: Vec<NodeId> = Vec::new();
            let mut candidates: Vec<NodeId> = Vec::new();
            for &(n, new, old, run) in &rows {
                match (new, old) {
                    (_, None) => {}
                    // An old pod that is not available on a node that should
                    // not run the pod is deleted without a replacement; an
                    // available one stays (Kubernetes would surge a new pod
                    // there, which the node's taint keeps Pending).
                    (None, Some(o)) if !run => {
                        if !o.available {
                            doomed.push(o.key);
                        }
                    }
                    (None, Some(o)) if !o.available => allowed.push(n),
                    (None, Some(_)) => {
                        if surging < max_surge {
                            candidates.push(n);
                        }
                    }
                    (Some(p), Some(o)) => {
                        if p.available {
                            doomed.push(o.key);
                        } else {
                            surging += 1;
                        }
                    }
                }
            }
            let room = max_surge.saturating_sub(surging) as usize;
            want.extend(allowed);
            want.extend(candidates.into_iter().take(room));
        }
        for k in doomed {
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
            deleted += 1;
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
            self.node_epoch,
            self.live_nodes,
        );
        if let Workload::DaemonSet(d) = &mut self.controllers[id.0 as usize].workload {
            // A sync that acted looks again next pass (a node whose old pod
            // it deleted wants its new one); a quiet one waits for a change
            // (or for a pod to become available, see `set_available`).
            d.seen = if created + deleted == 0 {
                Some(key)
            } else {
                None
            };
            d.should_run = should_run;
        }
        (created, deleted)
    }

    /// Whether every live DaemonSet has one pod bound on every eligible
    /// node and none elsewhere: of its current template, except that
    /// OnDelete keeps old pods until they are deleted.
    pub(crate) fn daemonset_satisfied(&self, c: &Owner) -> bool {
        let Workload::DaemonSet(d) = &c.workload else {
            return true;
        };
        if !c.pending.is_empty() {
            return false;
        }
        let on_delete = d.spec.strategy == DaemonSetUpdateStrategyType::OnDelete;
        let mut per_node: BTreeMap<u32, u32> = BTreeMap::new();
        for &k in c.pods.values() {
            let p = self.pod(k);
            let (g, n) = d.rev_info[p.revision as usize - 1];
            if (g != d.generation && !on_delete) || p.node() != n {
                return false;
            }
            *per_node
                .entry(p.node().map(|n| n.0).unwrap_or(u32::MAX))
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
