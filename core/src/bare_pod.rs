//! Bare Pods: a `v1 Pod` without a controller. It is its own owner (a
//! controller slot of kind Pod holding one pod named as the Pod is), and
//! nobody recreates it: once it is deleted, evicted or lost with its node,
//! it is gone, as in Kubernetes.
//!
//! A Pod with `spec.nodeName` skips the scheduler: the kubelet of that node
//! admits it or rejects it. Admission runs the kubelet's general predicates
//! in their order: the pods capacity, cpu and memory (NodeResourcesFit:
//! `OutOfpods`, `OutOfcpu`, `OutOfmemory`, with the kubelet's message "Node
//! didn't have enough resource: ..."), then the nodeSelector and required
//! node affinity (`NodeAffinity`). A rejected pod fails and is not retried.
//! A nodeName that names no node leaves an orphan that the pod garbage
//! collector deletes; a NotReady node's pod is marked for deletion as the
//! node's other pods are. NoExecute taints it does not tolerate evict it
//! after binding (the taint-eviction controller), NoSchedule taints and a
//! cordon do not concern the kubelet. A Pod without nodeName is scheduled
//! like any other pod.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, Controller, ControllerId, Workload};
use crate::error::Error;
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::{validate_name_as, NameRule, PodTemplate};

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
        crate::namespace::validate_key(&self.name, "Pod", NameRule::Dns1123Subdomain)?;
        if let Some(n) = &self.node_name {
            validate_name_as(n, "spec.nodeName: node", NameRule::Dns1123Subdomain)?;
        }
        self.template.validate(&self.name)
    }
}

/// A bare Pod's state beside its controller slot.
#[derive(Clone, Debug)]
pub(crate) struct BareState {
    pub spec: BarePodSpec,
    /// Its one pod has been created (it is never created again).
    pub created: bool,
}

impl Cluster {
    /// Creates a bare Pod; the next pass creates it and binds it to its
    /// nodeName (kubelet admission) or leaves it to the scheduler.
    pub fn create_bare_pod(&mut self, spec: BarePodSpec) -> Result<ControllerId, Error> {
        spec.validate()?;
        self.owner_name_free(&spec.name, "workload")?;
        let total = self.desired_total + 1;
        if total > crate::limits::MAX_PODS {
            return Err(Error::Invalid(format!(
                "Pod {}: the cluster would hold {total} pods, more than the limit of {} (MAX_PODS); expected fewer",
                spec.name,
                crate::limits::MAX_PODS
            )));
        }
        self.desired_total = total;
        self.disruption_epoch += 1;
        let id = self.add_owner(Controller::new(
            &spec.name,
            1,
            Workload::Pod(alloc::boxed::Box::new(BareState {
                spec: spec.clone(),
                created: false,
            })),
        ));
        self.current_revision_for(id, spec.template);
        Ok(id)
    }

    fn bare_pod_id(&self, name: &str) -> Result<ControllerId, Error> {
        self.controller_by_name
            .get(crate::namespace::canonical(name))
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
        for k in keys {
            self.delete_pod(k, None);
        }
        self.retire_bare_pod(id);
        self.note(
            EventType::Normal,
            Reason::Deleted,
            ObjectRef::Deployment(id),
            format!("Pod {name} deleted"),
        );
        Ok(())
    }

    /// Live bare Pods' specs (those whose pod still exists or is about to be
    /// created), in creation order.
    pub fn bare_pod_specs(&self) -> impl Iterator<Item = &BarePodSpec> + '_ {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .filter_map(|c| match &c.workload {
                Workload::Pod(b) => Some(&b.spec),
                _ => None,
            })
    }

    fn retire_bare_pod(&mut self, id: ControllerId) {
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
    pub(crate) fn sync_bare_pod(&mut self, id: ControllerId) -> (u32, u32) {
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
            }
            return (0, 0);
        }
        let node_name = b.spec.node_name.clone();
        let name = c.name.clone();
        let cur = c.current;
        if let Workload::Pod(b) = &mut self.controllers[id.0 as usize].workload {
            b.created = true;
        }
        let k = self.create_pod_of_revision(id, cur);
        let Some(node_name) = node_name else {
            return (1, 0);
        };
        match self.kubelet_admits(id, &node_name) {
            Ok(n) => {
                self.bind(k, n);
                (1, 0)
            }
            Err((type_, reason, why)) => {
                self.note(
                    type_,
                    reason,
                    ObjectRef::Deployment(id),
                    format!("Pod {name}: {why}"),
                );
                self.delete_pod(k, None);
                self.retire_bare_pod(id);
                (1, 1)
            }
        }
    }

    /// The kubelet's admission of a pod bound by nodeName.
    fn kubelet_admits(
        &self,
        id: ControllerId,
        node_name: &str,
    ) -> Result<crate::cluster::NodeId, (EventType, Reason, String)> {
        let Ok(n) = self.node_id(node_name) else {
            return Err((
                EventType::Normal,
                Reason::Deleted,
                format!(
                    "deleted by the pod garbage collector: its node {node_name} does not exist"
                ),
            ));
        };
        let node = &self.nodes[n.0 as usize];
        if !node.ready {
            return Err((
                EventType::Warning,
                Reason::TaintManagerEviction,
                format!("marked for deletion: node {node_name} is NotReady"),
            ));
        }
        let c = &self.controllers[id.0 as usize];
        let tpl = c.template();
        let req = tpl.requests;
        let (used, cap) = (self.hot[n.0 as usize].allocated, node.spec.capacity);
        let short = |res: &str, requested: String, used: String, capacity: String| {
            format!("rejected by the kubelet on node {node_name}: Node didn't have enough resource: {res}, requested: {requested}, used: {used}, capacity: {capacity}")
        };
        let on_node = self.node_pods[n.0 as usize].len();
        if on_node as u32 + 1 > node.spec.max_pods {
            return Err((
                EventType::Warning,
                Reason::OutOfpods,
                short(
                    "pods",
                    "1".to_string(),
                    on_node.to_string(),
                    node.spec.max_pods.to_string(),
                ),
            ));
        }
        if used.cpu_millis.saturating_add(req.cpu_millis) > cap.cpu_millis {
            return Err((
                EventType::Warning,
                Reason::OutOfcpu,
                short(
                    "cpu",
                    format!("{}m", req.cpu_millis),
                    format!("{}m", used.cpu_millis),
                    format!("{}m", cap.cpu_millis),
                ),
            ));
        }
        if used.memory_mib.saturating_add(req.memory_mib) > cap.memory_mib {
            return Err((
                EventType::Warning,
                Reason::OutOfmemory,
                short(
                    "memory",
                    format!("{}Mi", req.memory_mib),
                    format!("{}Mi", used.memory_mib),
                    format!("{}Mi", cap.memory_mib),
                ),
            ));
        }
        let s = &node.spec;
        if !s.labels_match(&tpl.node_selector)
            || !tpl.node_affinity.required_matches(&s.name, &s.labels)
        {
            return Err((
                EventType::Warning,
                Reason::NodeAffinity,
                format!("rejected by the kubelet on node {node_name}: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"),
            ));
        }
        Ok(n)
    }
}
