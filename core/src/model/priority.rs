//! PriorityClasses (scheduling.k8s.io/v1); the Priority admission plugin
//! that resolves them is `controllers/admission.rs`.
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

use crate::util::error::Error;
use crate::util::limits::quoted;

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
