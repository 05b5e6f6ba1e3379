//! Pods a controller already runs: a cluster imported as it is.
//!
//! A running cluster's Deployments, DaemonSets (and the ReplicaSets and
//! StatefulSets simulated as Deployments) come with their pods, each bound
//! to its node under the name the cluster gave it. [`Cluster::adopt_running`]
//! gives a freshly created owner those pods, as Kubernetes' controllers
//! find them on their next sync (the ReplicaSet controller's
//! `claimPods`, pkg/controller/controller_ref_manager.go): the pods
//! stay where they run, and the controller creates only what is missing,
//! under generated names (`util/podname.rs`).
//!
//! A Deployment brings its ReplicaSets: each is a revision with its own
//! template and its pod-template-hash (so `<deployment>-<hash>` names the
//! ReplicaSet as the cluster does), oldest first as
//! `deployment.kubernetes.io/revision` orders them; the one whose template
//! is the Deployment's is its current revision. With pods of older ones
//! the Deployment is mid-rollout, and its controller continues the rollout
//! from there under its strategy (`controllers/deployment/mod.rs`), as
//! Kubernetes' rolloutRolling does with the ReplicaSets it finds.
//!
//! A pod with a node is bound there without the scheduler and without
//! its kubelet's admission: it runs there now, even where its node is
//! overcommitted (a node resized under its pods); the importer reports
//! that, nothing moves it. It is Ready when its node is, unless its own
//! Ready condition says False: then it stays not Ready. A pod without a node is Pending and goes
//! through the scheduler like any other. Its name is kept in a table of
//! the imported names (`Owner::imported_names`, `Cluster::imported_pods`);
//! generated names stay computed.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{hash_word, Cluster, NodeId, OwnerId, PodPhase, Workload};
use crate::model::{validate_name_as, DeploymentSpec, NameRule, PodTemplate};
use crate::util::error::Error;

/// One ReplicaSet of an imported Deployment: a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSetSpec {
    /// Its `pod-template-hash` (the ReplicaSet is `<deployment>-<hash>`).
    pub hash: String,
    /// Its pod template, without the `pod-template-hash` label.
    pub template: PodTemplate,
}

/// One pod as the imported cluster runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunningPod {
    /// `metadata.name`, as a key (`NAMESPACE/NAME` outside `default`).
    pub name: String,
    /// `spec.nodeName`: bound there. `None`: Pending, for the scheduler.
    pub node: Option<String>,
    /// A Deployment's pod: its ReplicaSet, by index in
    /// [`RunningPods::replica_sets`]; `None`: of the owner's current template.
    pub replica_set: Option<u32>,
    /// Its Ready condition: `false` when the cluster reports it False (a
    /// readiness probe failing). Such a pod stays not Ready (out of its
    /// Services' endpoints, not healthy for its budgets, not available
    /// for its rollout): the simulation cannot know when its probe passes.
    pub ready: bool,
}

/// The pods one owner runs when its cluster is imported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunningPods {
    /// The owner's key: a Deployment (or a ReplicaSet or StatefulSet
    /// simulated as one) or a DaemonSet, created just before.
    pub owner: String,
    /// A Deployment's ReplicaSets, oldest revision first.
    pub replica_sets: Vec<ReplicaSetSpec>,
    /// Which of them is the Deployment's new ReplicaSet (its template is
    /// the Deployment's: Kubernetes' FindNewReplicaSet), by index; `None`
    /// when none is yet (the controller makes it, as a new revision).
    pub current: Option<u32>,
    pub pods: Vec<RunningPod>,
    /// A StatefulSet (simulated as a Deployment): the pods its controller
    /// makes are named by index, `<statefulset>-<index>`
    /// ([`Cluster::name_stateful_pod`]).
    pub stateful: bool,
}

impl RunningPods {
    pub fn validate(&self) -> Result<(), Error> {
        let what = |m: String| Error::Invalid(format!("running pods of {}: {m}", self.owner));
        for rs in &self.replica_sets {
            if rs.hash.is_empty() {
                return Err(what(
                    "a ReplicaSet without a pod-template-hash; expected one".into(),
                ));
            }
            crate::model::validate_label_value(&rs.hash, "pod-template-hash")?;
            rs.template.validate(&self.owner)?;
        }
        if let Some(i) = self.current {
            if i as usize >= self.replica_sets.len() {
                return Err(what(format!(
                    "the new ReplicaSet is number {i} of {}; expected one of them",
                    self.replica_sets.len()
                )));
            }
        }
        for p in &self.pods {
            crate::model::namespace::validate_key(&p.name, "Pod", NameRule::Dns1123Subdomain)?;
            if let Some(n) = &p.node {
                validate_name_as(n, "spec.nodeName: node", NameRule::Dns1123Subdomain)?;
            }
            if let Some(i) = p.replica_set {
                if i as usize >= self.replica_sets.len() {
                    return Err(what(format!(
                        "pod {} names ReplicaSet {i} of {}; expected one of them",
                        p.name,
                        self.replica_sets.len()
                    )));
                }
            }
        }
        Ok(())
    }
}

impl Cluster {
    /// Creates Deployment `spec` with the pods its cluster runs (see the
    /// module doc): [`Cluster::deploy`] without the scaling of its
    /// ReplicaSet (nothing was scaled: its pods run already), then
    /// [`Cluster::adopt_running`]. All or nothing.
    pub fn deploy_running(
        &mut self,
        spec: DeploymentSpec,
        running: RunningPods,
    ) -> Result<OwnerId, Error> {
        if crate::model::namespace::canonical(&running.owner)
            != crate::model::namespace::canonical(&spec.name)
        {
            return Err(Error::Invalid(format!(
                "running pods of {} given with Deployment {}; expected the Deployment's own",
                running.owner, spec.name
            )));
        }
        let nodes = self.check_running(&running, false)?;
        let id = self.deploy_quietly(spec, false)?;
        self.adopt(id, running, nodes);
        Ok(id)
    }

    /// Gives owner `spec.owner` (a DaemonSet, or a Deployment created by
    /// [`Cluster::deploy`], or a bare Pod that runs on its node already),
    /// created just now and without pods yet, the pods its cluster runs
    /// (see the module doc). All or nothing: every
    /// pod and node is checked before any pod is made.
    pub fn adopt_running(&mut self, spec: RunningPods) -> Result<(), Error> {
        let key = crate::model::namespace::canonical(&spec.owner);
        let id = *self
            .controller_by_name
            .get(key)
            .ok_or_else(|| Error::not_found("Deployment or DaemonSet", &spec.owner))?;
        let daemon = match self.controllers[id.0 as usize].workload {
            Workload::Deployment => false,
            Workload::DaemonSet(_) => true,
            Workload::Pod(_) => return self.adopt_running_bare_pod(id, spec),
        };
        if self.controllers[id.0 as usize].next_ordinal != 0 {
            return Err(Error::Invalid(format!(
                "running pods of {}: it has made pods already; expected its running pods as it is created",
                spec.owner
            )));
        }
        let nodes = self.check_running(&spec, daemon)?;
        self.adopt(id, spec, nodes);
        Ok(())
    }

    /// A bare Pod that runs on its node already (a running cluster's Pod
    /// with `spec.nodeName` and a status): its kubelet admitted it long
    /// ago, so it is bound there as it is, without the kubelet's
    /// admission again, even where its node is overcommitted (the importer
    /// reports that), Ready when its node is. `spec.pods` is the Pod
    /// itself, on its node. Created just now, its pod not made yet.
    fn adopt_running_bare_pod(&mut self, id: OwnerId, spec: RunningPods) -> Result<(), Error> {
        spec.validate()?;
        let what = |m: &str| Error::Invalid(format!("running pod {}: {m}", spec.owner));
        let [p] = spec.pods.as_slice() else {
            return Err(what("a bare Pod is one pod; expected it alone"));
        };
        if crate::model::namespace::canonical(&p.name)
            != crate::model::namespace::canonical(&spec.owner)
        {
            return Err(what("expected the Pod itself"));
        }
        if !spec.replica_sets.is_empty() || p.replica_set.is_some() {
            return Err(what("ReplicaSets; expected none (a bare Pod has none)"));
        }
        let Some(node) = &p.node else {
            return Err(what("no node; expected the node it runs on"));
        };
        let n = self.node_id(node)?;
        let c = &mut self.controllers[id.0 as usize];
        let cur = c.current;
        match &mut c.workload {
            Workload::Pod(b) if !b.created && b.node_name.as_deref() == Some(node.as_str()) => {
                b.created = true
            }
            _ => {
                return Err(what(
                    "expected a Pod just created, bound by spec.nodeName to that node",
                ))
            }
        }
        let k = self.create_adopted_pod(id, cur);
        if !p.ready {
            let uid = self.pod(k).uid;
            self.held_unready.insert(uid);
        }
        self.bind_by_node_name(k, n);
        if self.nodes[n.0 as usize].ready && p.ready {
            self.set_ready(k);
            self.set_available(k);
        }
        self.disruption_epoch += 1;
        Ok(())
    }

    /// Running pods of an owner (see the module doc): given to it now
    /// ([`Cluster::adopt_running`]) when it exists and has made no pod
    /// yet, else kept for the Deployment of that name, whose
    /// [`Cluster::deploy`] takes them (so its ReplicaSet is never scaled
    /// from 0: its pods run already).
    pub fn stage_running(&mut self, spec: RunningPods) -> Result<(), Error> {
        spec.validate()?;
        let key = crate::model::namespace::canonical(&spec.owner);
        if self.controller_by_name.contains_key(key) {
            return self.adopt_running(spec);
        }
        self.staged_running.insert(String::from(key), spec);
        Ok(())
    }

    /// Checks running pods against the cluster (free names, existing
    /// nodes); returns each pod's node.
    fn check_running(
        &self,
        spec: &RunningPods,
        daemon: bool,
    ) -> Result<Vec<Option<NodeId>>, Error> {
        spec.validate()?;
        if daemon && !spec.replica_sets.is_empty() {
            return Err(Error::Invalid(format!(
                "running pods of DaemonSet {}: ReplicaSets; expected none (a DaemonSet has none)",
                spec.owner
            )));
        }
        let mut nodes = Vec::with_capacity(spec.pods.len());
        let mut seen = alloc::collections::BTreeSet::new();
        for p in &spec.pods {
            let name = crate::model::namespace::canonical(&p.name);
            if self.imported_pods.contains_key(name) || !seen.insert(name) {
                return Err(Error::AlreadyExists {
                    kind: "pod",
                    name: p.name.clone(),
                });
            }
            nodes.push(match &p.node {
                Some(n) => Some(self.node_id(n)?),
                None if daemon => {
                    return Err(Error::Invalid(format!(
                        "running pods of DaemonSet {}: pod {} has no node; expected every DaemonSet pod bound (its controller makes the missing ones)",
                        spec.owner, p.name
                    )))
                }
                None => None,
            });
        }
        Ok(nodes)
    }

    fn adopt(&mut self, id: OwnerId, spec: RunningPods, nodes: Vec<Option<NodeId>>) {
        let daemon = matches!(
            self.controllers[id.0 as usize].workload,
            Workload::DaemonSet(_)
        );
        // The ReplicaSets as revisions: the new one is the Deployment's own
        // revision (made as it was created), under the ReplicaSet's hash;
        // each other is a revision of its own, though its template may
        // differ from another only in what the engine does not simulate
        // (an image): it is another ReplicaSet all the same.
        let cur = self.controllers[id.0 as usize].current;
        let mut revs = Vec::with_capacity(spec.replica_sets.len());
        for (i, rs) in spec.replica_sets.iter().enumerate() {
            let r = if spec.current == Some(i as u32) {
                cur
            } else {
                let admitted = self.admit(id, &rs.template);
                self.push_admitted_revision(id, admitted)
            };
            self.set_revision_hash(id, r, &rs.hash);
            revs.push(r);
        }
        if !daemon && !revs.is_empty() {
            // `kubectl rollout undo` walks back through them, oldest first.
            let c = &mut self.controllers[id.0 as usize];
            c.history = revs.iter().copied().filter(|&r| r != cur).collect();
            c.history.dedup();
            c.history.push(cur);
        }
        // The pods, revision by revision (a run of ordinals each).
        let rev_of = |p: &RunningPod| p.replica_set.map_or(cur, |i| revs[i as usize]);
        let mut order: Vec<usize> = (0..spec.pods.len()).collect();
        if !daemon {
            order.sort_by_key(|&i| rev_of(&spec.pods[i]));
        }
        let mut old = false;
        for i in order {
            let p = &spec.pods[i];
            let rev = match (daemon, nodes[i]) {
                (true, Some(n)) => self.daemon_revision(id, n),
                _ => rev_of(p),
            };
            old |= !daemon && rev != cur;
            let k = self.create_adopted_pod(id, rev);
            if !p.ready {
                let uid = self.pod(k).uid;
                self.held_unready.insert(uid);
            }
            let ordinal = self.pod(k).ordinal;
            let name: Rc<str> = Rc::from(crate::model::namespace::canonical(&p.name));
            self.controllers[id.0 as usize]
                .imported_names
                .insert(ordinal, name.clone());
            self.imported_pods.insert(name, (id, ordinal));
            if let Some(n) = nodes[i] {
                self.bind_by_node_name(k, n);
                // Running before the import: Ready and available since long
                // ago (whatever its template's readiness delay), unless its
                // node is NotReady (its kubelet is silent).
                if self.nodes[n.0 as usize].ready && p.ready {
                    self.set_ready(k);
                    self.set_available(k);
                }
                debug_assert_eq!(self.pod(k).phase, PodPhase::Running);
            }
        }
        let c = &mut self.controllers[id.0 as usize];
        c.stateful = spec.stateful && !daemon;
        if old {
            c.rolling = true;
        }
        c.rollout.observed.updated = c.count(c.current).pods;
        c.blocked = None;
        self.disruption_epoch += 1;
    }

    /// Names the pod `ordinal` that StatefulSet `id` (imported as it is)
    /// creates now: `<statefulset>-<index>` for the lowest index none of
    /// its live pods holds, as the StatefulSet controller makes the pod
    /// of each missing ordinal in [0, replicas) under
    /// `getPodName`'s `<set>-<ordinal>` (pkg/controller/statefulset:
    /// stateful_set_control.go, stateful_set_utils.go), not a generated
    /// name. The name is kept as an imported one, so it is found by name.
    pub(crate) fn name_stateful_pod(&mut self, id: OwnerId, ordinal: u32) {
        let c = &self.controllers[id.0 as usize];
        let base = c.name.as_str();
        let mut used = alloc::collections::BTreeSet::new();
        for (o, _) in c.pods.iter() {
            let index = c
                .imported_names
                .get(&o)
                .and_then(|n| n.strip_prefix(base))
                .and_then(|n| n.strip_prefix('-'))
                .and_then(|i| i.parse::<u32>().ok());
            if let Some(i) = index {
                used.insert(i);
            }
        }
        let mut i = 0u32;
        while used.contains(&i) {
            i += 1;
        }
        let name: Rc<str> = Rc::from(format!("{base}-{i}").as_str());
        self.controllers[id.0 as usize]
            .imported_names
            .insert(ordinal, name.clone());
        self.imported_pods.insert(name, (id, ordinal));
    }

    /// Renames revision `r` of Deployment `id` to the ReplicaSet hash the
    /// imported cluster gave it, keeping the book of shared hashes.
    fn set_revision_hash(&mut self, id: OwnerId, r: u32, hash: &str) {
        let c = &mut self.controllers[id.0 as usize];
        let rev = &mut c.revisions[r as usize - 1];
        if rev.hash == hash {
            return;
        }
        let old = hash_word(&rev.hash);
        Rc::make_mut(rev).hash = String::from(hash);
        if let Some(n) = self.deployment_hashes.get_mut(&old) {
            if *n == 2 {
                self.hash_collisions -= 1;
            }
            *n -= 1;
            if *n == 0 {
                self.deployment_hashes.remove(&old);
            }
        }
        let n = self.deployment_hashes.entry(hash_word(hash)).or_insert(0);
        *n += 1;
        if *n == 2 {
            self.hash_collisions += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeSpec, Resources};
    use crate::util::podname::generated;
    use alloc::string::ToString;
    use alloc::vec;

    fn cluster() -> Cluster {
        let mut c = Cluster::new();
        c.add_node(NodeSpec::new("n1", 4000, 8 << 30)).unwrap();
        c
    }

    /// A generated name an imported pod holds is skipped (the API server
    /// refuses a generated name that exists; the controller tries again):
    /// the pod made for the missing replica gets another.
    #[test]
    fn a_new_pod_never_takes_an_imported_pods_name() {
        let mut c = cluster();
        let d = DeploymentSpec::new("web", 2, Resources::new(100, 1 << 20));
        // The name ordinal 1 of ReplicaSet web-abc12345 would be given.
        let taken = generated("web-abc12345", 1);
        c.deploy_running(
            d.clone(),
            RunningPods {
                owner: "web".to_string(),
                replica_sets: vec![ReplicaSetSpec {
                    hash: "abc12345".to_string(),
                    template: d.template.clone(),
                }],
                current: Some(0),
                pods: vec![RunningPod {
                    name: taken.clone(),
                    node: Some("n1".to_string()),
                    replica_set: Some(0),
                    ready: true,
                }],
                stateful: false,
            },
        )
        .unwrap();
        assert!(
            c.reconcile_to_fixed_point(crate::scheduler::Profile::kube_scheduler())
                .converged
        );
        let names: Vec<String> = c.pods().map(|p| p.name()).collect();
        assert_eq!(names.len(), 2);
        assert_eq!(names[0], taken);
        assert_ne!(names[1], taken);
        assert!(names[1].starts_with("web-abc12345-"));
        for n in &names {
            assert_eq!(c.pod_by_name(n).unwrap().name(), *n);
        }
    }

    /// All or nothing: a pod bound to a node that does not exist refuses
    /// the whole Deployment, which is not created.
    #[test]
    fn a_missing_node_refuses_everything() {
        let mut c = cluster();
        let d = DeploymentSpec::new("web", 1, Resources::new(100, 1 << 20));
        let e = c
            .deploy_running(
                d,
                RunningPods {
                    owner: "web".to_string(),
                    pods: vec![RunningPod {
                        name: "web-x".to_string(),
                        node: Some("n9".to_string()),
                        replica_set: None,
                        ready: true,
                    }],
                    ..Default::default()
                },
            )
            .unwrap_err();
        assert!(e.to_string().contains("n9"), "{e}");
        assert!(c.app("web").is_err());
        assert_eq!(c.pods().count(), 0);
    }
}
