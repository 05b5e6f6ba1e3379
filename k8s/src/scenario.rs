//! The engine declarations an import produces, and how they enter a cluster.

use shepherd::simulator::Event;
use shepherd::{
    BarePodSpec, Cluster, DaemonSetSpec, DeploymentSpec, Error, NamespaceSpec, NodeSpec, PdbSpec,
    PriorityClass, Profile, RunningPods, ServiceSpec,
};

/// The pod-template annotation that carries the engine's template version.
pub const ANNOTATION_VERSION: &str = "shepherd/version";
/// The pod-template annotation that carries the ticks from binding to Ready.
pub const ANNOTATION_READY_AFTER: &str = "shepherd/ready-after-ticks";

/// A node with the state its manifest gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedNode {
    pub spec: NodeSpec,
    /// `spec.unschedulable`: cordoned.
    pub unschedulable: bool,
    /// The `Ready` condition: a node whose Ready condition is not `True`
    /// starts NotReady.
    pub ready: bool,
}

/// Everything an import declares, in input order within each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scenario {
    /// Namespaces with their labels (`v1 Namespace`), created before every
    /// namespaced object. An import also lists here, with no labels, each
    /// namespace an object is in that the input has no Namespace for.
    pub namespaces: Vec<NamespaceSpec>,
    pub nodes: Vec<ImportedNode>,
    /// Deployments, and the ReplicaSets and StatefulSets simulated as replica owners.
    pub deployments: Vec<DeploymentSpec>,
    /// DaemonSets: a pod on every node each selects and tolerates.
    pub daemonsets: Vec<DaemonSetSpec>,
    /// Pods without a controller (bound by nodeName, else scheduled).
    pub pods: Vec<BarePodSpec>,
    /// The pods the Deployments and DaemonSets above run already (an
    /// imported cluster as it is): bound where they run under their own
    /// names, with a Deployment's ReplicaSets as its revisions
    /// (`shepherd::RunningPods`). In the order of their owners. A bare Pod
    /// above that runs on its node already (its status says its kubelet
    /// took it) has an entry of its own, holding itself: bound there as
    /// it is, not through its kubelet's admission again.
    pub running: Vec<RunningPods>,
    /// `spec.replicas` of the ReplicaSets in `running` (by key,
    /// `NAMESPACE/DEPLOYMENT-HASH`) as a simulation left them
    /// ([`Scenario::take_running`]); one not here is written as imported.
    pub replica_set_replicas: std::collections::BTreeMap<String, u32>,
    pub pdbs: Vec<PdbSpec>,
    pub services: Vec<ServiceSpec>,
    /// PriorityClasses (scheduling.k8s.io/v1), created before the Deployments
    /// whose pods name them.
    pub priority_classes: Vec<PriorityClass>,
    /// The profile a `KubeSchedulerConfiguration` in the input describes;
    /// `None` when there was none (kube-scheduler's default profile applies).
    pub profile: Option<Profile>,
    /// The documents the objects above were imported from (empty for a
    /// scenario built otherwise): an export writes each from its document.
    /// Ignored by equality.
    pub kept: crate::kept::Kept,
    /// Cluster Autoscaler's node groups, from the kwok provider's
    /// ConfigMaps (`kwok-provider-config`, `kwok-provider-templates`); `None`
    /// when the input has none (see `autoscaling.rs`).
    pub autoscaler: Option<shepherd::autoscaler::AutoscalerConfig>,
    /// Karpenter's NodePools (`karpenter.sh/v1`) with their instance types,
    /// for the preview (`shepherd autoscale --karpenter`); not exported.
    pub node_pools: Vec<shepherd::autoscaler::karpenter::NodePool>,
}

impl Scenario {
    /// The profile to schedule with: the imported one, else kube-scheduler's default.
    pub fn profile_or_default(&self) -> Profile {
        self.profile.clone().unwrap_or_else(Profile::kube_scheduler)
    }

    /// The namespaces to create before the objects: those with labels. A
    /// namespace without labels is exactly what the engine makes when an
    /// object is created in it (and one with no objects holds no pods for
    /// any term to count), so declaring it changes nothing; leaving it out
    /// lets a later file (`--then`, a page action) name a namespace that
    /// exists with labels without redeclaring it.
    fn labelled_namespaces(&self) -> impl Iterator<Item = &NamespaceSpec> + '_ {
        self.namespaces.iter().filter(|n| !n.labels.is_empty())
    }

    /// A fresh cluster holding the scenario, nodes first. NotReady nodes are
    /// declared NotReady before any pod exists (their kubelet is stopped and the
    /// heartbeat timeout has passed), so nothing is ever placed on them.
    pub fn to_cluster(&self) -> Result<Cluster, Error> {
        let mut c = Cluster::new();
        self.apply(&mut c)?;
        Ok(c)
    }

    /// Adds the scenario to `cluster`: namespaces, nodes (cordoned, NotReady as declared),
    /// then bare Pods (a running cluster's pods are where they are), DaemonSets
    /// (their pods already run on every node), Deployments, budgets and Services.
    pub fn apply(&self, c: &mut Cluster) -> Result<(), Error> {
        for n in self.labelled_namespaces() {
            c.add_namespace(n.clone())?;
        }
        let mut any_down = false;
        for n in &self.nodes {
            c.add_node(n.spec.clone())?;
            if n.unschedulable {
                c.cordon(&n.spec.name)?;
            }
            if !n.ready {
                c.fail_node(&n.spec.name)?;
                any_down = true;
            }
        }
        if any_down {
            let later = c.now() + c.heartbeat_timeout() + 1;
            c.set_now(later);
            c.detect_failures();
        }
        for pc in &self.priority_classes {
            c.add_priority_class(pc.clone())?;
        }
        let running = self.running_by_owner();
        for p in &self.pods {
            c.create_bare_pod(p.clone())?;
            // One that runs on its node already: bound there as it is.
            if let Some(r) = running.get(p.name.as_str()) {
                c.adopt_running((*r).clone())?;
            }
        }
        for d in &self.daemonsets {
            c.create_daemonset(d.clone())?;
            if let Some(r) = running.get(d.name.as_str()) {
                c.adopt_running((*r).clone())?;
            }
        }
        for d in &self.deployments {
            match running.get(d.name.as_str()) {
                Some(r) => c.deploy_running(d.clone(), (*r).clone())?,
                None => c.deploy(d.clone())?,
            };
        }
        for p in &self.pdbs {
            c.add_pdb(p.clone())?;
        }
        for s in &self.services {
            c.add_service(s.clone())?;
        }
        Ok(())
    }

    /// The running pods by owner.
    fn running_by_owner(&self) -> std::collections::HashMap<&str, &RunningPods> {
        self.running.iter().map(|r| (r.owner.as_str(), r)).collect()
    }

    /// `kubectl apply -f` of the scenario onto a running cluster: what is
    /// new is created, what exists is updated as the API server updates it
    /// (a changed Deployment template rolls, replicas scale, a DaemonSet
    /// rolls per its strategy, a node takes its new labels, taints and
    /// allocatable, budgets and Services are replaced; an immutable field
    /// changed, such as a Deployment's selector or a Pod's spec, is refused
    /// with the API server's words). Every object is checked before any is
    /// applied, so a refusal of one changes nothing (the cluster-wide pod
    /// limit aside, checked as each Deployment is applied); the checks of an object
    /// that depends on another of the same file (a Deployment naming a
    /// PriorityClass created here) are as the cluster is now.
    pub fn apply_onto(&self, c: &mut Cluster) -> Result<(), Error> {
        for pc in &self.priority_classes {
            c.check_apply(&Event::ApplyPriorityClass(pc.clone()))?;
        }
        for p in &self.pods {
            c.check_apply(&Event::ApplyPod(p.clone()))?;
        }
        for d in &self.daemonsets {
            c.check_apply(&Event::ApplyDaemonSet(d.clone()))?;
        }
        for d in &self.deployments {
            c.check_apply(&Event::ApplyDeployment(d.clone()))?;
        }
        for n in self.labelled_namespaces() {
            c.add_namespace(n.clone())?;
        }
        for n in &self.nodes {
            c.apply_node(n.spec.clone())?;
            if n.unschedulable {
                c.cordon(&n.spec.name)?;
            }
        }
        for pc in &self.priority_classes {
            c.apply_priority_class(pc.clone())?;
        }
        for p in &self.pods {
            c.apply_pod(p.clone())?;
        }
        for d in &self.daemonsets {
            c.apply_daemonset(d.clone())?;
        }
        for d in &self.deployments {
            c.apply_deployment(d.clone())?;
        }
        for p in &self.pdbs {
            c.add_pdb(p.clone())?;
        }
        for s in &self.services {
            c.add_service(s.clone())?;
        }
        Ok(())
    }

    /// [`Scenario::apply_onto`] as a script's events (the page's apply of
    /// manifests onto a running scenario): each object created or updated
    /// when its event fires. A node's Ready condition is status, which
    /// `kubectl apply` does not change: only its cordon is applied.
    pub fn apply_events(&self) -> Vec<Event> {
        let mut out: Vec<Event> = self
            .labelled_namespaces()
            .cloned()
            .map(Event::AddNamespace)
            .collect();
        for n in &self.nodes {
            out.push(Event::ApplyNode(n.spec.clone()));
            if n.unschedulable {
                out.push(Event::Cordon(n.spec.name.clone()));
            }
        }
        out.extend(
            self.priority_classes
                .iter()
                .cloned()
                .map(Event::ApplyPriorityClass),
        );
        out.extend(self.pods.iter().cloned().map(Event::ApplyPod));
        out.extend(self.daemonsets.iter().cloned().map(Event::ApplyDaemonSet));
        out.extend(self.deployments.iter().cloned().map(Event::ApplyDeployment));
        out.extend(self.pdbs.iter().cloned().map(Event::AddPdb));
        out.extend(self.services.iter().cloned().map(Event::AddService));
        out
    }

    /// The scenario as a script for [`shepherd::simulator::Simulator`], all at
    /// tick 0: a NotReady node's kubelet is stopped at once, so it goes
    /// NotReady after the heartbeat timeout, as a silent node does.
    pub fn events(&self) -> Vec<Event> {
        let mut out: Vec<Event> = self
            .labelled_namespaces()
            .cloned()
            .map(Event::AddNamespace)
            .collect();
        for n in &self.nodes {
            out.push(Event::AddNode(n.spec.clone()));
            if n.unschedulable {
                out.push(Event::Cordon(n.spec.name.clone()));
            }
            if !n.ready {
                out.push(Event::FailNode(n.spec.name.clone()));
            }
        }
        out.extend(
            self.priority_classes
                .iter()
                .cloned()
                .map(Event::AddPriorityClass),
        );
        // A DaemonSet (or a bare Pod that runs on its node already) takes
        // its running pods once created; a Deployment finds them staged as
        // it is created (`Cluster::stage_running`).
        let running = self.running_by_owner();
        for p in &self.pods {
            out.push(Event::CreatePod(p.clone()));
            if let Some(r) = running.get(p.name.as_str()) {
                out.push(Event::Running((*r).clone()));
            }
        }
        for d in &self.daemonsets {
            out.push(Event::CreateDaemonSet(d.clone()));
            if let Some(r) = running.get(d.name.as_str()) {
                out.push(Event::Running((*r).clone()));
            }
        }
        for d in &self.deployments {
            if let Some(r) = running.get(d.name.as_str()) {
                out.push(Event::Running((*r).clone()));
            }
            out.push(Event::Deploy(d.clone()));
        }
        out.extend(self.pdbs.iter().cloned().map(Event::AddPdb));
        out.extend(self.services.iter().cloned().map(Event::AddService));
        out
    }
}
