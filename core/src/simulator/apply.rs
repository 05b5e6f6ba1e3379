//! `kubectl apply` of an object that may already exist: created when its
//! name is new, else updated as the API server updates it.
//!
//! - A Deployment: a changed pod template rolls (a new ReplicaSet, within
//!   maxSurge and maxUnavailable), a changed `replicas` scales, the strategy,
//!   minReadySeconds and progressDeadlineSeconds are replaced. Its
//!   `spec.selector` is immutable in apps/v1: a changed one is refused
//!   ("field is immutable"), as is a template whose labels it does not
//!   select.
//! - A DaemonSet: [`Cluster::update_daemonset`] (a new template rolls per its
//!   updateStrategy).
//! - A Pod: its spec may not change (the API server allows little more than
//!   an image, which is not simulated): the same spec is no change, another
//!   is refused.
//! - A Node: new labels, taints or allocatable re-register it
//!   ([`Cluster::reregister_node`]).
//! - A PriorityClass: `value` and `preemptionPolicy` are immutable;
//!   `globalDefault` may change.
//!
//! Every check runs before anything changes: a refused apply changes
//! nothing.

use alloc::format;

use crate::cluster::{Cluster, OwnerId, Workload};
use crate::controllers::bare_pod::BarePodSpec;
use crate::controllers::daemonset::DaemonSetSpec;
use crate::model::priority::PriorityClass;
use crate::model::{DeploymentSpec, NodeSpec, Selector};
use crate::util::error::Error;

impl Cluster {
    /// What applying `e` (one of the `Apply...` events) would refuse, as
    /// the cluster is now, changing nothing; other events are not checked.
    pub fn check_apply(&self, e: &crate::simulator::Event) -> Result<(), Error> {
        use crate::simulator::Event;
        match e {
            Event::ApplyDeployment(d) => self.check_apply_deployment(d),
            Event::ApplyDaemonSet(d) => self.check_apply_daemonset(d),
            Event::ApplyPod(p) => self.check_apply_pod(p),
            Event::ApplyNode(n) => n.validate(),
            Event::ApplyPriorityClass(pc) => self.check_apply_priority_class(pc),
            _ => Ok(()),
        }
    }

    /// The live owner (Deployment, DaemonSet or bare Pod) of this name.
    fn owner_named(&self, name: &str) -> Option<OwnerId> {
        self.controller_by_name
            .get(crate::model::namespace::canonical(name))
            .copied()
            .filter(|c| !self.controllers[c.0 as usize].deleted)
    }

    /// The Deployment of this name, if there is one (`Err`: the name is a
    /// DaemonSet's or a bare Pod's).
    fn existing_deployment(&self, name: &str) -> Result<Option<OwnerId>, Error> {
        match self.owner_named(name).ok_or(()) {
            Ok(id) => match self.controllers[id.0 as usize].workload {
                Workload::Deployment => Ok(Some(id)),
                _ => Err(Error::AlreadyExists {
                    kind: "workload",
                    name: name.into(),
                }),
            },
            Err(_) => Ok(None),
        }
    }

    /// A Deployment's selector: the one it was created with, else its first
    /// template's labels (as declared).
    fn deployment_selector(&self, id: OwnerId) -> Selector {
        let c = &self.controllers[id.0 as usize];
        match &c.selector {
            Some(s) => (**s).clone(),
            None => Selector {
                match_labels: c.revisions[0].declared().labels,
                ..Selector::default()
            },
        }
    }

    /// A Deployment's `spec.selector`, as declared (namespace requirements
    /// left out, as everything shown leaves them).
    pub fn deployment_selector_of(&self, name: &str) -> Result<Selector, Error> {
        match self.existing_deployment(name) {
            Ok(Some(id)) => Ok(crate::model::namespace::strip_selector(
                &self.deployment_selector(id),
            )),
            _ => Err(Error::not_found("deployment", name)),
        }
    }

    /// What [`Cluster::apply_deployment`] would refuse, changing nothing.
    pub(crate) fn check_apply_deployment(&self, spec: &DeploymentSpec) -> Result<(), Error> {
        spec.validate()?;
        let Some(id) = self.existing_deployment(&spec.name)? else {
            return Ok(());
        };
        let (old, new) = (self.deployment_selector(id), spec.effective_selector());
        if old != new {
            let (ns, name) = crate::model::namespace::split(&spec.name);
            return Err(Error::Invalid(format!(
                "Deployment.apps {} is invalid: spec.selector: Invalid value: {new}: field is immutable (namespace {ns}; it was {old}); expected the selector it was created with",
                crate::util::limits::quoted(name)
            )));
        }
        if !old.matches(&spec.template.labels) {
            return Err(Error::Invalid(format!(
                "Deployment.apps {} is invalid: spec.template.metadata.labels: Invalid value: `selector` does not match template `labels` ({old}); expected labels the selector selects",
                crate::util::limits::quoted(crate::model::namespace::split(&spec.name).1)
            )));
        }
        let from = self.controllers[id.0 as usize].replicas as u64;
        crate::cluster::check_pod_limit(
            &spec.name,
            self.desired_total - from + spec.replicas as u64,
        )
    }

    /// `kubectl apply` of a Deployment (see the module doc).
    pub fn apply_deployment(&mut self, spec: DeploymentSpec) -> Result<(), Error> {
        self.check_apply_deployment(&spec)?;
        let Some(id) = self.existing_deployment(&spec.name)? else {
            return self.deploy(spec).map(|_| ());
        };
        let name = spec.name.clone();
        self.roll(&name, spec.template)?;
        self.scale(&name, spec.replicas)?;
        self.set_strategy(&name, spec.strategy)?;
        let c = &mut self.controllers[id.0 as usize];
        if c.min_ready_seconds != spec.min_ready_seconds
            || c.progress_deadline_seconds != spec.progress_deadline_seconds
        {
            c.min_ready_seconds = spec.min_ready_seconds;
            c.progress_deadline_seconds = spec.progress_deadline_seconds;
            self.disruption_epoch += 1;
        }
        Ok(())
    }

    /// What [`Cluster::apply_daemonset`] would refuse, changing nothing.
    pub(crate) fn check_apply_daemonset(&self, spec: &DaemonSetSpec) -> Result<(), Error> {
        spec.validate()?;
        match self.controller_id(&spec.name) {
            Ok(id)
                if !matches!(
                    self.controllers[id.0 as usize].workload,
                    Workload::DaemonSet(_)
                ) =>
            {
                Err(Error::AlreadyExists {
                    kind: "workload",
                    name: spec.name.clone(),
                })
            }
            _ => Ok(()),
        }
    }

    /// `kubectl apply` of a DaemonSet: created, or updated (a new template
    /// rolls per its updateStrategy).
    pub fn apply_daemonset(&mut self, spec: DaemonSetSpec) -> Result<(), Error> {
        self.check_apply_daemonset(&spec)?;
        if self.daemonset_spec(&spec.name).is_ok() {
            self.update_daemonset(spec)
        } else {
            self.create_daemonset(spec).map(|_| ())
        }
    }

    /// What [`Cluster::apply_pod`] would refuse, changing nothing.
    pub(crate) fn check_apply_pod(&self, spec: &BarePodSpec) -> Result<(), Error> {
        spec.validate()?;
        match self.owner_named(&spec.name) {
            None => Ok(()),
            Some(id) => match &self.controllers[id.0 as usize].workload {
                // The Pod as created: its nodeName, and its template as
                // declared (kept only in its one revision).
                Workload::Pod(b)
                    if b.node_name == spec.node_name && {
                        let c = &self.controllers[id.0 as usize];
                        c.revisions[c.current as usize - 1].declared() == spec.template
                    } =>
                {
                    Ok(())
                }
                Workload::Pod(_) => Err(Error::Invalid(format!(
                    "Pod {} is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations), `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative); expected the spec it was created with (delete it and create it again to change it)",
                    crate::util::limits::quoted(crate::model::namespace::split(&spec.name).1)
                ))),
                _ => Err(Error::AlreadyExists {
                    kind: "workload",
                    name: spec.name.clone(),
                }),
            },
        }
    }

    /// `kubectl apply` of a bare Pod: created, or unchanged when its spec
    /// is the same (any other change is refused, see the module doc).
    pub fn apply_pod(&mut self, spec: BarePodSpec) -> Result<(), Error> {
        self.check_apply_pod(&spec)?;
        if self.owner_named(&spec.name).is_some() {
            return Ok(());
        }
        self.create_bare_pod(spec).map(|_| ())
    }

    /// `kubectl apply` of a Node: registered, or re-registered when its
    /// labels, taints or allocatable changed.
    pub fn apply_node(&mut self, spec: NodeSpec) -> Result<(), Error> {
        spec.validate()?;
        match self.node(&spec.name) {
            Ok(n) if *n.spec == spec => Ok(()),
            Ok(_) => self.reregister_node(spec).map(|_| ()),
            Err(_) => self.add_node(spec).map(|_| ()),
        }
    }

    /// What [`Cluster::apply_priority_class`] would refuse, changing nothing.
    pub(crate) fn check_apply_priority_class(&self, pc: &PriorityClass) -> Result<(), Error> {
        let Some(old) = self.priority_classes.get(&pc.name) else {
            return self.check_priority_class(pc);
        };
        let forbidden = |field: &str| {
            Err(Error::Invalid(format!(
                "PriorityClass.scheduling.k8s.io {} is invalid: {field}: Forbidden: may not be changed in an update; expected the {field} it was created with",
                crate::util::limits::quoted(&pc.name)
            )))
        };
        if old.value != pc.value {
            return forbidden("value");
        }
        if old.preemption_policy != pc.preemption_policy {
            return forbidden("preemptionPolicy");
        }
        pc.validate()?;
        if pc.global_default && !old.global_default {
            if let Some(d) = self.default_priority_class() {
                return Err(Error::Invalid(format!(
                    "PriorityClass {}: PriorityClass {} is already marked as the globalDefault, and only one default can exist; expected globalDefault false",
                    crate::util::limits::quoted(&pc.name),
                    crate::util::limits::quoted(&d.name)
                )));
            }
        }
        Ok(())
    }

    /// `kubectl apply` of a PriorityClass: created, or its globalDefault
    /// changed (value and preemptionPolicy are immutable). Pods keep the
    /// priority they were admitted with.
    pub fn apply_priority_class(&mut self, pc: PriorityClass) -> Result<(), Error> {
        self.check_apply_priority_class(&pc)?;
        match self.priority_classes.get(&pc.name) {
            None => self.add_priority_class(pc),
            Some(old) if *old == pc => Ok(()),
            Some(_) => {
                self.priority_classes.insert(pc.name.clone(), pc);
                self.priority_epoch += 1;
                Ok(())
            }
        }
    }
}
