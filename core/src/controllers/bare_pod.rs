//! Bare Pods: a `v1 Pod` without a controller. It is its own owner (a
//! controller slot of kind Pod holding one pod named as the Pod is), and
//! nobody recreates it: once it is deleted, evicted or lost with its node,
//! it is gone, as in Kubernetes.
//!
//! A Pod with `spec.nodeName` skips the scheduler: the kubelet of that node
//! admits it or rejects it. Admission runs the kubelet's general predicates
//! in their order: the pods capacity, cpu and memory (NodeResourcesFit:
//! `OutOfpods`, `OutOfcpu`, `OutOfmemory`, with the kubelet's message "Pod
//! was rejected: Node didn't have enough resource: ..."), then the
//! nodeSelector and required node affinity (`NodeAffinity`). A rejected pod
//! is Failed with that reason and message and stays so (it takes no
//! capacity; nobody retries it) until it is deleted, as Kubernetes keeps it.
//! A pod bound to a NotReady node is bound there, not Ready (its kubelet is
//! silent), and the taint-eviction controller deletes it when its
//! tolerationSeconds for the `unreachable` taint have passed (300 s by
//! default). NoExecute taints it does not tolerate evict it at once (the
//! taint-eviction controller), NoSchedule taints and a cordon do not concern
//! the kubelet. A nodeName that names no node leaves the pod Pending, bound
//! to that name, until the pod garbage collector deletes it as an orphan
//! 40 s later (podgc's quarantine); a node of that name registering before
//! then takes it. A Pod without nodeName is scheduled like any other pod.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::events::{EventType, ObjectRef, Reason};
use crate::cluster::{Cluster, Owner, OwnerId, Workload};
use crate::model::{validate_name_as, NameRule, PodTemplate};
use crate::util::error::Error;

/// A `v1 Pod` of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarePodSpec {
    pub name: String,
    pub template: PodTemplate,
    /// `spec.nodeName`: bound there by the kubelet's admission, not scheduled.
    pub node_name: Option<String>,
}

impl BarePodSpec {
    pub fn validate(&self) -> Result<(), Error> {
        crate::model::namespace::validate_key(&self.name, "Pod", NameRule::Dns1123Subdomain)?;
        if let Some(n) = &self.node_name {
            validate_name_as(n, "spec.nodeName: node", NameRule::Dns1123Subdomain)?;
        }
        self.template.validate(&self.name)
    }
}

/// A bare Pod's state beside its controller slot: its name is the slot's
/// and its template the slot's one revision (`Revision::declared`), so a
/// Pod keeps its template once, as admitted, not a second declared copy
/// beside it (a template of 64 preferred terms is about 50 KB).
#[derive(Clone, Debug)]
pub(crate) struct BareState {
    /// `spec.nodeName`.
    pub node_name: Option<String>,
    /// Its one pod has been created (it is never created again).
    pub created: bool,
    /// While its nodeName names no node: the tick the pod garbage collector
    /// deletes it at (its creation plus podgc's quarantine).
    pub orphan_until: Option<u64>,
    /// The kubelet's refusal (reason and message) of a Failed pod.
    pub failed: Option<(Reason, String)>,
}

/// How long the pod garbage collector waits before it deletes a pod bound
/// to a node that does not exist (pkg/controller/podgc: quarantineTime, 40 s).
pub const PODGC_QUARANTINE: u64 = 40;

impl Cluster {
    /// Creates a bare Pod; the next pass creates it and binds it to its
    /// nodeName (kubelet admission) or leaves it to the scheduler.
    pub fn create_bare_pod(&mut self, spec: BarePodSpec) -> Result<OwnerId, Error> {
        spec.validate()?;
        self.owner_name_free(&spec.name, "workload")?;
        self.check_topology_keys(&spec.name, &spec.template)?;
        let total = self.desired_total + 1;
        if total > crate::util::limits::MAX_PODS {
            return Err(Error::Invalid(format!(
                "Pod {}: the cluster would hold {total} pods, more than the limit of {} (MAX_PODS); expected fewer",
                spec.name,
                crate::util::limits::MAX_PODS
            )));
        }
        self.desired_total = total;
        self.disruption_epoch += 1;
        let id = self.add_owner(Owner::new(
            &spec.name,
            1,
            Workload::Pod(alloc::boxed::Box::new(BareState {
                node_name: spec.node_name,
                created: false,
                orphan_until: None,
                failed: None,
            })),
        ));
        self.current_revision_for(id, spec.template);
        Ok(id)
    }

    fn bare_pod_id(&self, name: &str) -> Result<OwnerId, Error> {
        self.controller_by_name
            .get(crate::model::namespace::canonical(name))
            .copied()
            .filter(|c| matches!(self.controllers[c.0 as usize].workload, Workload::Pod(_)))
            .ok_or_else(|| Error::not_found("Pod", name))
    }

    /// Deletes a bare Pod (kubectl delete pod); nobody recreates it.
    pub fn delete_bare_pod(&mut self, name: &str) -> Result<(), Error> {
        let id = self.bare_pod_id(name)?;
        let keys: Vec<u32> = self.controllers[id.0 as usize]
            .pods
            .values()
            .copied()
            .collect();
        // An API call (no Event); the kubelet logs Killing as it stops
        // the pod if it was running.
        for k in keys {
            self.delete_pod(k, None);
        }
        self.retire_bare_pod(id);
        Ok(())
    }

    /// Live bare Pods' specs (those whose pod still exists or is about to be
    /// created), in creation order; each template is made from the Pod's
    /// revision as asked (`bare_pod_exists` answers for a name alone).
    pub fn bare_pod_specs(&self) -> impl Iterator<Item = BarePodSpec> + '_ {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::Pod(b) => Some(BarePodSpec {
                    name: c.name.clone(),
                    template: c.revisions[c.current as usize - 1].declared(),
                    node_name: b.node_name.clone(),
                }),
                _ => None,
            })
    }

    /// Whether bare Pod `name` is live: its pod exists or is about to be
    /// created.
    pub fn bare_pod_exists(&self, name: &str) -> bool {
        self.bare_pod_id(name).is_ok()
    }

    fn retire_bare_pod(&mut self, id: OwnerId) {
        let c = &mut self.controllers[id.0 as usize];
        if c.deleted {
            return;
        }
        c.deleted = true;
        self.desired_total -= c.replicas as u64;
        c.replicas = 0;
        self.disruption_epoch += 1;
        let name = c.name.clone();
        self.controller_by_name.remove(&name);
    }

    /// Creates the pod once and admits it to its nodeName; retires the Pod
    /// once its pod is gone. Returns (created, deleted).
    pub(crate) fn sync_bare_pod(&mut self, id: OwnerId) -> (u32, u32) {
        let c = &self.controllers[id.0 as usize];
        if c.deleted {
            return (0, 0);
        }
        let Workload::Pod(b) = &c.workload else {
            return (0, 0);
        };
        if b.created {
            if c.pods.is_empty() {
                // Deleted, evicted or lost: nobody makes another.
                self.retire_bare_pod(id);
                return (0, 0);
            }
            let (Some(node_name), Some(&k)) = (b.node_name.clone(), c.pods.values().next()) else {
                return (0, 0);
            };
            let (orphan_until, failed) = (b.orphan_until, b.failed.is_some());
            let node_exists = self.node_id(&node_name).is_ok();
            match orphan_until {
                // Pending for a node that has come: its kubelet admits it.
                Some(_) if node_exists && !failed => {
                    self.set_orphan(id, None);
                    return (0, self.admit_to(id, k, &node_name));
                }
                Some(until) if !node_exists && self.now >= until => {
                    // podgc's gcOrphaned (it records no Event).
                    self.delete_pod(k, None);
                    self.retire_bare_pod(id);
                    return (0, 1);
                }
                // A Failed pod's node went away: an orphan too.
                None if failed && !node_exists => {
                    let until = self.now.saturating_add(PODGC_QUARANTINE);
                    if let Workload::Pod(b) = &mut self.controllers[id.0 as usize].workload {
                        b.orphan_until = Some(until);
                    }
                }
                _ => {}
            }
            return (0, 0);
        }
        let node_name = b.node_name.clone();
        let cur = c.current;
        if let Workload::Pod(b) = &mut self.controllers[id.0 as usize].workload {
            b.created = true;
        }
        let k = self.create_pod_of_revision(id, cur);
        let Some(node_name) = node_name else {
            return (1, 0);
        };
        if self.node_id(&node_name).is_err() {
            // Pending, bound to a name no node has: never scheduled.
            let until = self.now.saturating_add(PODGC_QUARANTINE);
            self.set_orphan(id, Some(until));
            return (1, 0);
        }
        (1, self.admit_to(id, k, &node_name))
    }

    /// An orphan's deadline (None: no longer an orphan), and the reason its
    /// pod is Pending, as the pending-pod views show it.
    fn set_orphan(&mut self, id: OwnerId, until: Option<u64>) {
        let c = &mut self.controllers[id.0 as usize];
        let cur = c.current;
        if let Workload::Pod(b) = &mut c.workload {
            b.orphan_until = until;
        }
        match until {
            Some(t) => {
                let node = match &c.workload {
                    Workload::Pod(b) => b.node_name.clone().unwrap_or_default(),
                    _ => String::new(),
                };
                let msg = format!("spec.nodeName {node}: no node has this name; the pod stays Pending, never scheduled, until the pod garbage collector deletes it at tick {t} (40 s after it was created) or a node of that name registers");
                self.failure_serial += 1;
                let serial = self.failure_serial;
                let text = self.text(msg.clone());
                self.controllers[id.0 as usize]
                    .failure
                    .insert(cur, (serial, msg, text));
            }
            None => {
                c.failure.remove(&cur);
            }
        }
    }

    /// The kubelet of `node_name` (which exists) admits pod `k` or refuses
    /// it; an admitted pod is bound (the taint-eviction controller then
    /// deletes it at once if it does not tolerate a NoExecute taint there),
    /// a refused one is Failed. Returns the pods deleted.
    fn admit_to(&mut self, id: OwnerId, k: u32, node_name: &str) -> u32 {
        match self.kubelet_admits(id, node_name) {
            Ok(n) => {
                self.bind_by_node_name(k, n);
                self.evict_if_untolerated(k, n) as u32
            }
            Err((reason, why)) => {
                // The kubelet's rejectPod: an event with its reason and
                // message, and the pod Failed with "Pod was rejected: ...".
                self.note(
                    EventType::Warning,
                    reason,
                    ObjectRef::Pod(id, self.pod(k).ordinal),
                    why.clone(),
                );
                // Failed: out of the pending books, kept in the pod list.
                let ord = self.pod(k).ordinal;
                let c = &mut self.controllers[id.0 as usize];
                if c.pending.remove(&ord) {
                    self.pending_total -= 1;
                }
                self.pod_mut(k).phase = crate::cluster::PodPhase::Failed;
                if let Workload::Pod(b) = &mut self.controllers[id.0 as usize].workload {
                    b.failed = Some((reason, format!("Pod was rejected: {why}")));
                }
                self.disruption_epoch += 1;
                0
            }
        }
    }

    /// The kubelet's admission of a pod bound by nodeName to an existing
    /// node (pkg/kubelet/lifecycle/predicate.go, generalFilter): its reason
    /// and message when it refuses. A NotReady node's kubelet admits when it
    /// is back; Shepherd decides at once, by the same rules.
    fn kubelet_admits(
        &self,
        id: OwnerId,
        node_name: &str,
    ) -> Result<crate::cluster::NodeId, (Reason, String)> {
        let n = self
            .node_id(node_name)
            .map_err(|e| (Reason::FailedCreate, e.to_string()))?;
        let node = &self.nodes[n.0 as usize];
        let c = &self.controllers[id.0 as usize];
        let tpl = c.template();
        let req = tpl.requests;
        let (used, cap) = (self.hot[n.0 as usize].allocated, node.spec.capacity);
        // The kubelet's words (lifecycle.InsufficientResourceError): "Node
        // didn't have enough resource: cpu, requested: 2000, used: 500,
        // capacity: 1000", cpu in millicores and memory in bytes, as the
        // kubelet counts them.
        let short = |res: &str, requested: u64, used: u64, capacity: u64| {
            format!("Node didn't have enough resource: {res}, requested: {requested}, used: {used}, capacity: {capacity}")
        };
        let on_node = self.node_pods[n.0 as usize].len() as u64;
        if on_node + 1 > node.spec.max_pods as u64 {
            return Err((
                Reason::OutOfpods,
                short("pods", 1, on_node, node.spec.max_pods as u64),
            ));
        }
        if used.cpu_millis.saturating_add(req.cpu_millis) > cap.cpu_millis {
            return Err((
                Reason::OutOfcpu,
                short("cpu", req.cpu_millis, used.cpu_millis, cap.cpu_millis),
            ));
        }
        if used.memory_bytes.saturating_add(req.memory_bytes) > cap.memory_bytes {
            // Already in bytes, as the kubelet prints them.
            return Err((
                Reason::OutOfmemory,
                short(
                    "memory",
                    req.memory_bytes,
                    used.memory_bytes,
                    cap.memory_bytes,
                ),
            ));
        }
        let used_s = self.scalars_requested(n);
        if let Some(r) = tpl
            .scalar_requests
            .insufficient(used_s, &node.spec.scalars)
            .next()
        {
            return Err((
                Reason::out_of(r),
                short(
                    r,
                    tpl.scalar_requests.get(r),
                    used_s.get(r),
                    node.spec.scalars.get(r),
                ),
            ));
        }
        let s = &node.spec;
        if !s.labels_match(&tpl.node_selector)
            || !tpl.node_affinity.required_matches(&s.name, &s.labels)
        {
            return Err((
                Reason::NodeAffinity,
                "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
                    .to_string(),
            ));
        }
        Ok(n)
    }

    /// The pods Failed by their kubelet's admission: (pod, node name,
    /// reason, message), in creation order.
    pub fn failed_pods(&self) -> impl Iterator<Item = (&str, &str, &'static str, &str)> + '_ {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::Pod(b) => b.failed.as_ref().map(|(r, m)| {
                    (
                        c.name.as_str(),
                        b.node_name.as_deref().unwrap_or(""),
                        r.as_str(),
                        m.as_str(),
                    )
                }),
                _ => None,
            })
    }
}
