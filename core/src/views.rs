//! Read-only views of the cluster, for the CLI, the page and the verifiers.
//! They borrow; nothing here copies the cluster.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{Cluster, NodeId, OwnerId, PodPhase, Workload, WorkloadKind};
use crate::model::{NodeSpec, PodTemplate, Resources, RollingUpdate};
use crate::util::error::Error;

/// A Service as a list shows it ([`Cluster::service_summaries`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceSummary {
    pub name: String,
    /// The selector as `kubectl get services -o wide` prints it.
    pub selector: String,
    /// Its endpoints now: the Ready pods it selects.
    pub endpoint_count: u32,
    /// The first of them by name, owners in creation order, ordinals
    /// ascending (as `Cluster::service_endpoints` lists them all).
    pub endpoints: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
pub struct NodeView<'a> {
    pub id: NodeId,
    pub spec: &'a NodeSpec,
    /// The scheduler's books: the sum of requests bound here.
    pub allocated: Resources,
    pub ready: bool,
    /// Whether the kubelet is heart-beating.
    pub beating: bool,
    pub cordoned: bool,
    pub draining: bool,
    pub pod_count: u32,
    /// What `kubectl drain` last printed about this node: why it waits (the
    /// eviction's refusal and the retry), `node/NAME drained`, or its error.
    pub drain_status: Option<&'a str>,
    /// The tick of the last heartbeat while the kubelet is silent: the node
    /// goes NotReady once `now - last_heartbeat` exceeds the heartbeat timeout.
    pub silent_since: Option<u64>,
    /// The cluster's bind count when the node last re-registered with new
    /// labels or taints (0: never). A pod with `bind_serial` at or below it
    /// was admitted under the node's old body.
    pub changed_at_bind: u64,
}

impl NodeView<'_> {
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

#[derive(Clone, Copy, Debug)]
pub struct PodView<'a> {
    pub controller: OwnerId,
    /// Its owner's kind: a Deployment's, a DaemonSet's, or a bare Pod.
    pub kind: WorkloadKind,
    /// A bare Pod bound by `spec.nodeName`: the kubelet admitted it, the
    /// scheduler never saw it (so NoSchedule taints and cordons did not apply).
    pub by_node_name: bool,
    /// Its `spec.nodeName`, for a bare Pod that has one: where a Failed pod
    /// was refused, or the name an orphan waits for (no node has it).
    pub node_name: Option<&'a str>,
    /// Why its kubelet refused it, for a Failed pod: status.reason
    /// (`OutOfcpu`...) and status.message, as `kubectl get pods` and
    /// `describe` show them.
    pub failure: Option<(&'static str, &'a str)>,
    /// Of an older template than its owner's current one (for a DaemonSet,
    /// whose every node has a revision of its own: an older generation).
    pub outdated: bool,
    pub app: &'a str,
    pub ordinal: u32,
    pub revision: u32,
    pub template: &'a PodTemplate,
    /// The `pod-template-hash` label of a Deployment's pod (its
    /// ReplicaSet's, which its selector adds to the Deployment's); `None`
    /// for other pods. The template's labels do not carry it.
    pub template_hash: Option<&'a str>,
    pub node: Option<NodeId>,
    pub phase: PodPhase,
    pub ready: bool,
    /// Ready for at least its Deployment's minReadySeconds.
    pub available: bool,
    pub bound_at: u64,
    /// The tick it was created in: its metadata.creationTimestamp, what
    /// `kubectl get pods` counts AGE from (Pending pods too).
    pub created_at: u64,
    /// The cluster's bind count right after this pod was bound (0: never bound).
    pub bind_serial: u64,
    /// spec.priority, resolved from its PriorityClass when it was created.
    pub priority: i32,
    /// status.nominatedNodeName: where preemption made room for it.
    pub nominated: Option<NodeId>,
    /// The tick at which the taint-eviction controller deletes it, while it
    /// waits out the tolerationSeconds of a NoExecute taint on its node.
    pub eviction_at: Option<u64>,
    /// The pod's serial number, unique for the cluster's life (a pod created
    /// in place of a deleted one gets a new one); `uid()` writes it as
    /// Kubernetes writes metadata.uid.
    pub uid_serial: u64,
    /// The name its cluster gave it, for a pod that ran when the cluster
    /// was imported as it is (`controllers/adopt.rs`); `None` for a pod
    /// named as its controller names it.
    pub imported_name: Option<&'a str>,
}

impl PodView<'_> {
    pub fn name(&self) -> String {
        if let Some(n) = self.imported_name {
            return String::from(n);
        }
        match (self.kind, self.template_hash) {
            (WorkloadKind::Pod, _) => String::from(self.app),
            (WorkloadKind::Deployment, Some(hash)) => {
                let rs = format!("{}-{}", self.app, hash);
                crate::util::podname::generated(&rs, self.ordinal)
            }
            _ => crate::util::podname::generated(self.app, self.ordinal),
        }
    }

    /// metadata.uid, in the form of Kubernetes' UIDs (an RFC 4122 UUID):
    /// the serial number in the last 64 bits, so the same seed and script
    /// give the same UIDs.
    pub fn uid(&self) -> String {
        uid_text(self.uid_serial)
    }
}

/// Kept here for the paths that name it here.
pub(crate) use crate::cluster::uid_text;

/// One ReplicaSet of a Deployment ([`Cluster::replica_sets`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSetView {
    /// The Deployment's key.
    pub deployment: String,
    /// `NAME-HASH` (with the Deployment's namespace, as a key).
    pub name: String,
    pub revision: u32,
    pub desired: u32,
    pub current: u32,
    pub ready: u32,
    pub available: u32,
}

/// A Deployment's status, in Kubernetes' words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppStatus {
    pub id: OwnerId,
    /// A Deployment, a DaemonSet (desired: its eligible nodes) or a bare Pod.
    pub kind: WorkloadKind,
    pub name: String,
    /// spec.replicas
    pub desired: u32,
    /// All pods, of every revision, bound or not.
    pub current: u32,
    pub ready: u32,
    /// Pods of the current revision.
    pub updated: u32,
    /// Pods Ready for at least the Deployment's minReadySeconds.
    pub available: u32,
    pub bound: u32,
    pub pending: u32,
    pub revision: u32,
    pub version: String,
    pub requests: Resources,
    pub rolling: bool,
    pub strategy: RollingUpdate,
    /// maxSurge and maxUnavailable resolved against `desired`.
    pub max_surge: u32,
    pub max_unavailable: u32,
    /// The FailedScheduling message of its pending pods, if any.
    pub pending_reason: Option<String>,
    /// Why it has fewer pods than it wants, when no scheduler can help: a
    /// Deployment's pod creation refused by admission (`FailedCreate` and the
    /// ReplicaSet controller's message), or a bare Pod refused by its
    /// kubelet (`OutOfcpu`... and status.message).
    pub failure: Option<(&'static str, String)>,
}

impl Cluster {
    pub fn node_count(&self) -> usize {
        self.nodes.iter().filter(|n| !n.removed).count()
    }

    fn node_view(&self, i: usize) -> NodeView<'_> {
        let n = &self.nodes[i];
        NodeView {
            id: NodeId(i as u32),
            spec: &n.spec,
            allocated: self.hot[i].allocated,
            ready: n.ready,
            beating: n.beating,
            cordoned: n.cordoned,
            draining: n.drain.is_some(),
            pod_count: self.node_pods[i].len() as u32,
            drain_status: n.drain_status.as_deref(),
            silent_since: if n.beating {
                None
            } else {
                Some(n.last_heartbeat)
            },
            changed_at_bind: n.changed_at_bind,
        }
    }

    /// Registered nodes, by id.
    pub fn nodes(&self) -> impl Iterator<Item = NodeView<'_>> + '_ {
        (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].removed)
            .map(|i| self.node_view(i))
    }

    pub fn node(&self, name: &str) -> Result<NodeView<'_>, Error> {
        let id = self.node_id(name)?;
        Ok(self.node_view(id.0 as usize))
    }

    pub fn node_by_id(&self, id: NodeId) -> Option<NodeView<'_>> {
        match self.nodes.get(id.0 as usize) {
            Some(n) if !n.removed => Some(self.node_view(id.0 as usize)),
            _ => None,
        }
    }

    fn pod_view(&self, k: u32) -> PodView<'_> {
        let p = self.pod(k);
        let c = &self.controllers[p.controller.0 as usize];
        PodView {
            controller: p.controller,
            kind: c.workload.kind(),
            by_node_name: matches!(&c.workload, Workload::Pod(b) if b.node_name.is_some()),
            node_name: match &c.workload {
                Workload::Pod(b) => b.node_name.as_deref(),
                _ => None,
            },
            failure: match &c.workload {
                Workload::Pod(b) => b.failed.as_ref().map(|(r, m)| (r.as_str(), m.as_str())),
                _ => None,
            },
            outdated: match &c.workload {
                Workload::DaemonSet(d) => d.rev_info[p.revision as usize - 1].0 != d.generation,
                _ => p.revision != c.current,
            },
            app: &c.name,
            ordinal: p.ordinal,
            revision: p.revision,
            template: &c.revisions[p.revision as usize - 1].template,
            template_hash: (c.workload.kind() == WorkloadKind::Deployment)
                .then(|| c.revisions[p.revision as usize - 1].hash.as_str()),
            node: p.node(),
            phase: p.phase,
            ready: p.ready,
            available: p.available,
            bound_at: p.bound_at(),
            created_at: c.created_run(p.ordinal).map_or(0, |r| r.at as u64),
            bind_serial: p.bind_serial,
            priority: p.priority,
            nominated: p.nominated(),
            eviction_at: p.taint_deadline(),
            uid_serial: p.uid,
            imported_name: c.imported_names.get(&p.ordinal).map(|n| &**n),
        }
    }

    /// Every pod, Deployment by Deployment, lowest ordinal first.
    pub fn pods(&self) -> impl Iterator<Item = PodView<'_>> + '_ {
        self.controllers
            .iter()
            .flat_map(move |c| c.pods.values().map(move |&k| self.pod_view(k)))
    }

    /// Pods not yet bound, Deployment by Deployment, lowest ordinal first;
    /// costs the pending pods, not every pod.
    pub fn pending_pods(&self) -> impl Iterator<Item = PodView<'_>> + '_ {
        self.controllers
            .iter()
            .flat_map(move |c| c.pending.iter().map(move |o| self.pod_view(c.pods[&o])))
    }

    /// The pods bound to a node.
    pub fn pods_on(&self, id: NodeId) -> impl Iterator<Item = PodView<'_>> + '_ {
        self.nodes
            .get(id.0 as usize)
            .into_iter()
            .flat_map(move |_| {
                self.node_pods[id.0 as usize]
                    .iter()
                    .map(move |&k| self.pod_view(k))
            })
    }

    pub(crate) fn pod_key(&self, name: &str) -> Result<u32, Error> {
        let missing = || Error::not_found("pod", name);
        let name = crate::model::namespace::canonical(name);
        if let Some(&(c, ordinal)) = self.imported_pods.get(name) {
            return self.controllers[c.0 as usize]
                .pods
                .get(ordinal)
                .ok_or_else(missing);
        }
        if let Some(c) = self.controller_by_name.get(name) {
            let ctl = &self.controllers[c.0 as usize];
            if ctl.workload.kind() == WorkloadKind::Pod {
                return ctl.pods.values().next().copied().ok_or_else(missing);
            }
        }
        // `<daemonset>-<suffix>` or `<deployment>-<hash>-<suffix>`
        // (`util/podname.rs`): the suffix maps back to the ordinal.
        let (prefix, suffix) = name.rsplit_once('-').ok_or_else(missing)?;
        if let Some(k) = self.generated_pod_key(prefix, suffix) {
            return Ok(k);
        }
        // The short form `<owner>-<ordinal>` (Shepherd's names before they
        // were Kubernetes'), still accepted where a pod is looked up, never
        // written.
        let ordinal: u32 = suffix.parse().map_err(|_| missing())?;
        let c = self.controller_by_name.get(prefix).ok_or_else(missing)?;
        let ctl = &self.controllers[c.0 as usize];
        if ctl.workload.kind() == WorkloadKind::Pod {
            return Err(missing());
        }
        ctl.pods.get(ordinal).ok_or_else(missing)
    }

    fn generated_pod_key(&self, prefix: &str, suffix: &str) -> Option<u32> {
        let ordinal = crate::util::podname::ordinal_of(prefix, suffix)?;
        if let Some(c) = self.controller_by_name.get(prefix) {
            let ctl = &self.controllers[c.0 as usize];
            if ctl.workload.kind() == WorkloadKind::DaemonSet {
                if let Some(k) = ctl.pods.get(ordinal) {
                    return Some(k);
                }
            }
        }
        let (app, hash) = prefix.rsplit_once('-')?;
        let c = self.controller_by_name.get(app)?;
        let ctl = &self.controllers[c.0 as usize];
        if ctl.workload.kind() != WorkloadKind::Deployment {
            return None;
        }
        let k = ctl.pods.get(ordinal)?;
        let r = self.pod(k).revision;
        match ctl.revisions.get(r as usize - 1) {
            Some(rev) if rev.hash == hash => Some(k),
            _ => None,
        }
    }

    /// The short form `<owner>-<ordinal>` of a generated pod name
    /// (`<replicaset>-<5 chars>`, `<daemonset>-<5 chars>`), alive or gone,
    /// or `None` when `name` is not one this cluster generated. Lookups
    /// take either form; tests that count pods by ordinal compare this one.
    pub fn short_pod_name(&self, name: &str) -> Option<String> {
        let (prefix, suffix) = name.rsplit_once('-')?;
        let key = crate::model::namespace::canonical(prefix);
        let ordinal = crate::util::podname::ordinal_of(key, suffix)?;
        // The owner by name, deleted ones too (an event outlives its pod's owner).
        let owner = |name: &str| {
            let name = crate::model::namespace::canonical(name);
            match self.controller_by_name.get(name) {
                Some(c) => Some(&self.controllers[c.0 as usize]),
                None => self.controllers.iter().rev().find(|c| c.name == name),
            }
        };
        if let Some(ctl) = owner(key) {
            if ctl.workload.kind() == WorkloadKind::DaemonSet {
                return Some(format!("{prefix}-{ordinal}"));
            }
        }
        let (app, hash) = prefix.rsplit_once('-')?;
        let ctl = owner(app)?;
        (ctl.workload.kind() == WorkloadKind::Deployment
            && ctl.revisions.iter().any(|r| r.hash == hash))
        .then(|| format!("{app}-{ordinal}"))
    }

    /// `text` with every generated pod name in it in its short form
    /// ([`Cluster::short_pod_name`]), after `kind/` or `namespace/` too.
    pub fn short_pod_names(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
        let mut rest = text;
        while let Some(i) = rest.find(word) {
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            let end = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
            let w = &rest[..end];
            // A namespaced key is `ns/name`: try the word with the one before it.
            let ns = out
                .rsplit_once(|c: char| !(word(c) || c == '/'))
                .map_or(out.as_str(), |(_, t)| t)
                .rsplit_once('/')
                .map(|(a, _)| a.rsplit_once('/').map_or(a, |(_, b)| b));
            let with_ns = ns
                .filter(|n| !n.is_empty() && out.ends_with('/'))
                .map(|n| format!("{n}/{w}"));
            match with_ns
                .as_deref()
                .and_then(|k| self.short_pod_name(k))
                .map(|s| String::from(s.rsplit_once('/').map_or(s.as_str(), |(_, b)| b)))
                .or_else(|| self.short_pod_name(w))
            {
                Some(s) => out.push_str(&s),
                None => out.push_str(w),
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    pub fn pod_by_name(&self, name: &str) -> Result<PodView<'_>, Error> {
        Ok(self.pod_view(self.pod_key(name)?))
    }

    /// Live pod owners (Deployments, DaemonSets, bare Pods: `kind` says
    /// which), in creation order.
    pub fn apps(&self) -> impl Iterator<Item = AppStatus> + '_ {
        (0..self.controllers.len())
            .filter(|&i| !self.controllers[i].deleted)
            .map(|i| self.app_status_of(OwnerId(i as u32)))
    }

    pub fn app(&self, name: &str) -> Result<AppStatus, Error> {
        Ok(self.app_status_of(self.controller_id(name)?))
    }

    fn app_status_of(&self, id: OwnerId) -> AppStatus {
        let c = &self.controllers[id.0 as usize];
        let cur = c.count(c.current);
        let bound: u32 = c.counts.values().map(|x| x.bound).sum();
        let (mut max_surge, mut max_unavailable) = c.strategy.resolve(c.replicas);
        let mut strategy = c.strategy;
        let mut updated = cur.pods;
        let mut rolling = c.rolling;
        let mut desired = c.replicas;
        match &c.workload {
            Workload::Deployment => {}
            Workload::DaemonSet(d) => {
                // Desired: the nodes that should run the pod
                // (desiredNumberScheduled; `c.replicas` also counts the
                // nodes that only keep theirs). Its updateStrategy, both
                // numbers rounded up against those nodes (see controllers/daemonset.rs);
                // up to date: the current generation. Under OnDelete
                // nothing rolls by itself.
                desired = d.should_run.len() as u32;
                strategy = RollingUpdate {
                    max_surge: d.spec.max_surge,
                    max_unavailable: d.spec.max_unavailable,
                };
                let on_delete = d.spec.strategy
                    == crate::controllers::daemonset::DaemonSetUpdateStrategyType::OnDelete;
                max_surge = d.spec.max_surge.scaled(desired, true);
                max_unavailable = d.spec.max_unavailable.scaled(desired, true);
                if on_delete {
                    (max_surge, max_unavailable) = (0, 0);
                } else if max_surge == 0 && max_unavailable == 0 && desired > 0 {
                    max_unavailable = 1;
                }
                updated = c
                    .pods
                    .values()
                    .filter(|&&k| d.rev_info[self.pod(k).revision as usize - 1].0 == d.generation)
                    .count() as u32;
                rolling = !on_delete && updated < c.total();
            }
            Workload::Pod(_) => {
                (max_surge, max_unavailable) = (0, 0);
                updated = c.total();
            }
        }
        let pending_reason = if c.pending.is_empty() {
            None
        } else {
            c.pending.iter().find_map(|o| {
                let rev = self.pod(c.pods[&o]).revision;
                c.failure.get(&rev).map(|(_, m, _)| m.clone())
            })
        };
        let failure = match &c.workload {
            Workload::Pod(b) => b.failed.as_ref().map(|(r, m)| (r.as_str(), m.clone())),
            _ => c.create_refused.as_ref().map(|why| {
                (
                    crate::cluster::events::Reason::FailedCreate.as_str(),
                    format!(
                        "Error creating: pods \"{}-{}-\" is forbidden: {why}",
                        c.name,
                        c.revisions[c.current as usize - 1].hash
                    ),
                )
            }),
        };
        AppStatus {
            id,
            failure,
            kind: c.workload.kind(),
            name: c.name.clone(),
            desired,
            current: c.total(),
            ready: c.ready(),
            updated,
            available: c.available(),
            bound,
            pending: c.pending.len() as u32,
            revision: c.current,
            version: c.template().version.clone(),
            requests: c.template().requests,
            rolling,
            strategy,
            max_surge,
            max_unavailable,
            pending_reason,
        }
    }

    /// The current pod template of a Deployment, as declared.
    pub fn template(&self, app: &str) -> Result<PodTemplate, Error> {
        let c = &self.controllers[self.controller_id(app)?.0 as usize];
        Ok(c.revisions[c.current as usize - 1].declared())
    }

    /// The FailedScheduling message for a pending pod, if the scheduler has
    /// tried and failed.
    pub fn pending_reason(&self, pod: &str) -> Result<Option<String>, Error> {
        let k = self.pod_key(pod)?;
        let p = self.pod(k);
        if p.node().is_some() {
            return Ok(None);
        }
        Ok(self.controllers[p.controller.0 as usize]
            .failure
            .get(&p.revision)
            .map(|(_, m, _)| m.clone()))
    }

    /// Live pod owners as (id, key, kind), in creation order: cheaper than
    /// [`Cluster::apps`], which works out each one's status.
    pub fn owners(&self) -> impl Iterator<Item = (OwnerId, &str, WorkloadKind)> + '_ {
        self.controllers
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.deleted)
            .map(|(i, c)| (OwnerId(i as u32), c.name.as_str(), c.workload.kind()))
    }

    /// The pods of one owner, lowest ordinal first (none for an unknown id).
    pub fn pods_of(&self, id: OwnerId) -> impl Iterator<Item = PodView<'_>> + '_ {
        self.controllers
            .get(id.0 as usize)
            .into_iter()
            .flat_map(move |c| c.pods.values().map(move |&k| self.pod_view(k)))
    }

    /// How many pods one owner has (0 for an unknown id).
    pub fn pod_count_of(&self, id: OwnerId) -> usize {
        self.controllers
            .get(id.0 as usize)
            .map_or(0, |c| c.pods.len())
    }

    /// A Deployment's ReplicaSets, one per revision, oldest first, as
    /// `kubectl get replicasets` lists them: `NAME-HASH`, the pods of the
    /// revision (`status.replicas`), its Ready ones, and `spec.replicas`:
    /// the Deployment's replicas for the current revision once its roll is
    /// over, else the revision's pods (the deployment controller scales the
    /// old ones down as the new one's pods become available).
    pub fn replica_sets(&self, deployment: &str) -> Result<Vec<ReplicaSetView>, Error> {
        let id = self.controller_id(deployment)?;
        let c = &self.controllers[id.0 as usize];
        if c.workload.kind() != WorkloadKind::Deployment {
            return Err(Error::not_found("deployment", deployment));
        }
        Ok(c.revisions
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let rev = i as u32 + 1;
                let n = c.count(rev);
                let desired = if rev == c.current && !c.rolling {
                    c.replicas
                } else {
                    n.pods
                };
                ReplicaSetView {
                    deployment: c.name.clone(),
                    name: format!("{}-{}", c.name, r.hash),
                    revision: rev,
                    desired,
                    current: n.pods,
                    ready: n.ready,
                    available: n.available,
                }
            })
            .collect())
    }

    /// A PodDisruptionBudget as declared.
    pub fn pdb_spec(&self, name: &str) -> Result<&crate::model::PdbSpec, Error> {
        self.pdbs
            .get(crate::model::namespace::canonical(name))
            .ok_or_else(|| Error::not_found("PodDisruptionBudget", name))
    }

    /// Every Service as declared, by key.
    pub fn service_specs(&self) -> impl Iterator<Item = &crate::model::ServiceSpec> + '_ {
        self.services.values().map(|s| &s.spec)
    }

    /// Services by name, each with its endpoint count (from its owners'
    /// counts) and its first `listed` endpoints (in `service_endpoints`'
    /// order), as `kubectl get endpoints` shows the first three and counts
    /// the rest (kubernetes pkg/printers/internalversion/printers.go,
    /// `formatEndpoints`). Costs what it returns, not what the Services
    /// select: per Service, the revisions its selector reaches, and the
    /// pods of its owners read in order until `listed` Ready ones are found
    /// (usually `listed` pods; at most its owners' pods, when the Ready
    /// ones it selects come last). (The list once named every endpoint:
    /// 3 billion names for 10,000 Services over 300,000 pods.)
    pub fn service_summaries(&self, listed: usize) -> Vec<ServiceSummary> {
        self.services
            .iter()
            .map(|(n, s)| {
                let (endpoint_count, first) = self.first_endpoints(&s.spec.selector, listed);
                ServiceSummary {
                    name: n.clone(),
                    selector: format!("{}", s.spec.selector),
                    endpoint_count,
                    endpoints: first
                        .into_iter()
                        .map(|(c, o)| self.pod_name(c, o))
                        .collect(),
                }
            })
            .collect()
    }

    pub fn service_endpoints(&self, name: &str) -> Result<Vec<String>, Error> {
        let s = self
            .services
            .get(crate::model::namespace::canonical(name))
            .ok_or_else(|| Error::not_found("Service", name))?;
        Ok(self
            .endpoints_of(&s.spec.selector)
            .into_iter()
            .map(|(c, o)| self.pod_name(c, o))
            .collect())
    }
}
