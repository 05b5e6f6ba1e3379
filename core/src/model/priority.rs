//! PriorityClasses (scheduling.k8s.io/v1) and the Priority admission plugin.
//!
//! A PriorityClass maps a name to an integer priority. A pod template names
//! one in `priorityClassName`; when a pod is created its priority is
//! resolved once, as Kubernetes' Priority admission plugin
//! (plugin/pkg/admission/priority) does: the named class's value and
//! preemptionPolicy, or, for a template that names none, the globalDefault
//! class's, or priority 0 with PreemptLowerPriority. A name that no class
//! carries is refused (the pod is forbidden, so the Deployment reports
//! FailedCreate). A pod keeps the priority it was created with: changing or
//! deleting a class later does not change running pods, as in Kubernetes.
//!
//! The two system classes exist from the start and cannot be deleted:
//! `system-cluster-critical` (2000000000) and `system-node-critical`
//! (2000001000). A user class has a value of at most 1000000000
//! (HighestUserDefinablePriority), its name may not start with `system-`,
//! and at most one class is the globalDefault.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, ControllerId};
use crate::error::Error;
use crate::events::{EventType, Reason};
use crate::limits::quoted;

/// The highest value a user-defined PriorityClass may have (Kubernetes'
/// HighestUserDefinablePriority).
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;
/// `system-cluster-critical`'s value (SystemCriticalPriority).
pub const SYSTEM_CLUSTER_CRITICAL: i32 = 2_000_000_000;
/// `system-node-critical`'s value (SystemCriticalPriority + 1000).
pub const SYSTEM_NODE_CRITICAL: i32 = 2_000_001_000;

/// Whether pods of a class may preempt lower-priority pods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PreemptionPolicy {
    /// The default: DefaultPreemption may evict lower-priority pods.
    #[default]
    PreemptLowerPriority,
    /// The pod waits in the queue ahead of lower priorities but never preempts.
    Never,
}

impl PreemptionPolicy {
    pub fn as_str(&self) -> &'static str {
        match self {
            PreemptionPolicy::PreemptLowerPriority => "PreemptLowerPriority",
            PreemptionPolicy::Never => "Never",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "PreemptLowerPriority" => Ok(PreemptionPolicy::PreemptLowerPriority),
            "Never" => Ok(PreemptionPolicy::Never),
            _ => Err(Error::invalid(
                "preemptionPolicy",
                s,
                "PreemptLowerPriority or Never",
            )),
        }
    }
}

/// A PriorityClass as scheduling.k8s.io/v1 declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PriorityClass {
    pub name: String,
    pub value: i32,
    /// Pods whose template names no class get this class's value.
    pub global_default: bool,
    pub preemption_policy: PreemptionPolicy,
}

impl PriorityClass {
    pub fn new(name: &str, value: i32) -> Self {
        PriorityClass {
            name: name.to_string(),
            value,
            global_default: false,
            preemption_policy: PreemptionPolicy::PreemptLowerPriority,
        }
    }

    pub fn with_global_default(mut self, on: bool) -> Self {
        self.global_default = on;
        self
    }

    pub fn with_preemption_policy(mut self, p: PreemptionPolicy) -> Self {
        self.preemption_policy = p;
        self
    }

    /// The two classes every cluster has.
    pub fn system() -> [PriorityClass; 2] {
        [
            PriorityClass::new("system-cluster-critical", SYSTEM_CLUSTER_CRITICAL),
            PriorityClass::new("system-node-critical", SYSTEM_NODE_CRITICAL),
        ]
    }

    /// Kubernetes' ValidatePriorityClass for a class a user creates: a valid
    /// name without the reserved `system-` prefix, a value of at most
    /// 1000000000.
    pub fn validate(&self) -> Result<(), Error> {
        crate::model::validate_name(&self.name, "PriorityClass")?;
        if self.name.starts_with("system-") {
            return Err(Error::Invalid(format!(
                "PriorityClass {}: names with the prefix \"system-\" are reserved for the system classes (system-cluster-critical, system-node-critical); expected another name",
                quoted(&self.name)
            )));
        }
        if self.value > HIGHEST_USER_DEFINABLE_PRIORITY {
            return Err(Error::Invalid(format!(
                "PriorityClass {}: value {} is above the highest a user-defined class may have; expected at most {HIGHEST_USER_DEFINABLE_PRIORITY} (values above it are reserved for the system classes)",
                quoted(&self.name),
                self.value
            )));
        }
        Ok(())
    }
}

/// What the Priority admission plugin gives a new pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Admitted {
    pub priority: i32,
    pub preempt_never: bool,
}

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
    pub(crate) fn admit_priority(&self, id: ControllerId) -> Result<Admitted, String> {
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
    pub(crate) fn priority_admits(&mut self, id: ControllerId) -> bool {
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
