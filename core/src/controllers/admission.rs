//! Admission of new pods: the Priority admission plugin
//! (plugin/pkg/admission/priority) that resolves a pod's priority from its
//! PriorityClass once, when the pod is created, and the PriorityClass API.
//! The classes themselves are `model/priority.rs`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::events::{EventType, Reason};
use crate::cluster::{Cluster, OwnerId};
use crate::model::priority::{Admitted, PreemptionPolicy, PriorityClass};
use crate::util::error::Error;
use crate::util::limits::quoted;

impl Cluster {
    /// Creates a PriorityClass. Refused when the name exists (AlreadyExists),
    /// when it is invalid (see [`PriorityClass::validate`]), or when it is a
    /// globalDefault and another class already is.
    pub fn add_priority_class(&mut self, pc: PriorityClass) -> Result<(), Error> {
        self.check_priority_class(&pc)?;
        // Creating it is an API call: no Event.
        self.priority_classes.insert(pc.name.clone(), pc);
        self.priority_epoch += 1;
        // A Deployment waiting for its class may create its pods now.
        self.disruption_epoch += 1;
        Ok(())
    }

    /// What [`Cluster::add_priority_class`] checks, changing nothing.
    pub fn check_priority_class(&self, pc: &PriorityClass) -> Result<(), Error> {
        if self.priority_classes.contains_key(&pc.name) {
            return Err(Error::AlreadyExists {
                kind: "PriorityClass",
                name: pc.name.clone(),
            });
        }
        pc.validate()?;
        if pc.global_default {
            if let Some(d) = self.default_priority_class() {
                return Err(Error::Invalid(format!(
                    "PriorityClass {}: PriorityClass {} is already marked as the globalDefault, and only one default can exist; expected globalDefault false, or delete {} first",
                    quoted(&pc.name),
                    quoted(&d.name),
                    quoted(&d.name)
                )));
            }
        }
        Ok(())
    }

    /// Deletes a PriorityClass. Pods keep the priority they were created
    /// with; the system classes cannot be deleted.
    pub fn delete_priority_class(&mut self, name: &str) -> Result<(), Error> {
        self.check_delete_priority_class(name)?;
        self.priority_classes.remove(name);
        self.priority_epoch += 1;
        Ok(())
    }

    /// What [`Cluster::delete_priority_class`] checks, changing nothing.
    pub fn check_delete_priority_class(&self, name: &str) -> Result<(), Error> {
        if !self.priority_classes.contains_key(name) {
            return Err(Error::not_found("PriorityClass", name));
        }
        if PriorityClass::system().iter().any(|s| s.name == name) {
            return Err(Error::Invalid(format!(
                "PriorityClass {}: a system priority class cannot be deleted; expected the name of a class a user created",
                quoted(name)
            )));
        }
        Ok(())
    }

    /// Every PriorityClass, the system ones included, by name.
    pub fn priority_classes(&self) -> Vec<PriorityClass> {
        self.priority_classes.values().cloned().collect()
    }

    /// The class marked globalDefault, if one is.
    pub fn default_priority_class(&self) -> Option<&PriorityClass> {
        self.priority_classes.values().find(|c| c.global_default)
    }

    /// The Priority admission plugin for a pod of this Deployment's current
    /// template: its priority and policy, or the reason the pod is forbidden.
    pub(crate) fn admit_priority(&self, id: OwnerId) -> Result<Admitted, String> {
        let tpl = self.controllers[id.0 as usize].template();
        let class = match &tpl.priority_class_name {
            Some(name) => match self.priority_classes.get(name) {
                Some(c) => Some(c),
                None => return Err(format!("no PriorityClass with name {name} was found")),
            },
            None => self.default_priority_class(),
        };
        Ok(match class {
            Some(c) => Admitted {
                priority: c.value,
                preempt_never: c.preemption_policy == PreemptionPolicy::Never,
            },
            None => Admitted {
                priority: 0,
                preempt_never: false,
            },
        })
    }

    /// Whether the Deployment may create pods now; when its template names
    /// a class that does not exist, logs FailedCreate once per distinct
    /// refusal (as the ReplicaSet controller reports a forbidden pod) and
    /// says no.
    pub(crate) fn priority_admits(&mut self, id: OwnerId) -> bool {
        let c = &self.controllers[id.0 as usize];
        let now = (self.priority_epoch, c.current);
        if c.admitted == Some(now) {
            debug_assert!(self.admit_priority(id).is_ok() && c.create_refused.is_none());
            return true;
        }
        match self.admit_priority(id) {
            Ok(_) => {
                let c = &mut self.controllers[id.0 as usize];
                c.create_refused = None;
                c.admitted = Some(now);
                true
            }
            Err(why) => {
                self.controllers[id.0 as usize].admitted = None;
                let c = &self.controllers[id.0 as usize];
                let wants = c.total() < c.replicas || c.count(c.current).pods < c.replicas;
                if wants && c.create_refused.as_deref() != Some(why.as_str()) {
                    let msg = format!(
                        "Error creating: pods \"{}-{}-\" is forbidden: {why}",
                        c.name,
                        c.revisions[c.current as usize - 1].hash
                    );
                    self.controllers[id.0 as usize].create_refused = Some(why);
                    // controller_utils.go, CreatePods: on the ReplicaSet
                    // (or the DaemonSet) whose create was refused.
                    let cur = self.controllers[id.0 as usize].current;
                    if let Some(obj) = self.pod_owner_object(id, cur) {
                        self.note(EventType::Warning, Reason::FailedCreate, obj, msg);
                    }
                }
                false
            }
        }
    }

    /// A pod's priority as admission resolved it (`None` for an unknown pod).
    pub fn pod_priority(&self, pod: &str) -> Option<i32> {
        let k = self.pod_key(pod).ok()?;
        Some(self.pod(k).priority)
    }

    /// The node a pod was nominated to by preemption, while it waits to be
    /// scheduled there (Kubernetes' status.nominatedNodeName).
    pub fn nominated_node(&self, pod: &str) -> Option<String> {
        let k = self.pod_key(pod).ok()?;
        self.pod(k)
            .nominated()
            .map(|n| self.nodes[n.0 as usize].spec.name.clone())
    }
}
