//! Kubernetes manifests in and out of a session, through `shepherd-k8s`.
//!
//! **In**: [`import_session`] reads manifests (YAML stream, JSON, `kind:
//! List`) all or nothing. It builds a new session whose script is one
//! ordinary action, [`Action::Manifests`], at tick 1, holding the *canonical
//! export* of what was imported (`shepherd_k8s::export`, plus the
//! KubeSchedulerConfiguration when there was one), not the pasted text: what
//! the API server sets (status, managedFields, uids ...) is gone, so the
//! share link stays smaller, while every field the user gave (images, env,
//! volumes ...) is kept, so the export is lossless (issue 45; see
//! `shepherd_k8s::kept`), and `import(export(s)) == s` (tested in
//! tests/manifests.rs) makes the replay the same cluster. Later actions
//! (scale, drain, fail a node ...) follow it in the script as usual.
//!
//! **Out**: [`export_session`] folds the script's events up to the current
//! tick into declarations (nodes with their cordon and Ready state,
//! Deployments at their current template and replicas, budgets, Services,
//! the profile) and writes them as manifests for `kubectl apply`: each
//! imported object from its document, changed only where the simulation
//! changed it (with KWOK's marks for [`export_session_kwok`]).

use std::collections::BTreeMap;

use serde::Serialize;
use shepherd::simulator::Event;
use shepherd::{PodTemplate, Profile};
use shepherd_k8s::{
    export, export_kwok, export_scheduler_config, import, import_with_progress, ImportedNode,
    Options, Scenario as K8sScenario,
};

use crate::scenario::{self, Action, Entry, Scenario};
use crate::session::Session;

pub use crate::manifest_text::{apply_events, daemonset_update, events, one_object};

/// One warning, as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WarningDoc {
    pub document: usize,
    pub item: Option<usize>,
    pub kind: String,
    pub name: String,
    pub path: String,
    pub message: String,
    /// The whole warning in one line.
    pub text: String,
}

/// What an import did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// e.g. "11 objects: imported 3 Deployment, 6 Node; skipped nothing".
    pub summary: String,
    pub nodes: usize,
    pub deployments: usize,
    pub daemonsets: usize,
    /// Bare Pods (pods without a controller).
    pub pods: usize,
    /// The scheduler profile the session runs.
    pub profile: String,
    pub warnings: Vec<WarningDoc>,
}

/// A new session holding the manifests' cluster, replayed to tick 1 (when
/// the declarations fire and the first pods bind), with the same seed as
/// `seed`. Refused: the error names the document, the object and the field,
/// and nothing is built.
pub fn import_session(text: &str, seed: u64) -> Result<(Session, ImportReport), String> {
    let (canonical, report) = read(text, &mut |_| {})?;
    Ok((canonical_session(&canonical, seed)?, report))
}

/// `kubectl apply -f` of manifests onto the running session: one
/// [`Action::Apply`] holding their canonical export, queued for the next
/// tick as any action is (objects created or updated when it fires; an
/// immutable field changed is refused, and nothing is queued). Returns the
/// engine's words for the action and the import's report.
pub fn apply_to_session(
    session: &mut Session,
    text: &str,
) -> Result<(String, ImportReport), String> {
    let (canonical, report) = read(text, &mut |_| {})?;
    let said = session.submit(Action::Apply {
        manifests: canonical,
    })?;
    Ok((said, report))
}

/// The reading half of [`import_session`]: the manifests' canonical export
/// (what the script's `manifests` action holds) and the report. The page runs
/// it in a Web Worker for large inputs (www/import-worker.js), telling
/// `progress` the bytes read so far, and builds the session from the
/// canonical text with [`canonical_session`] on the page.
pub fn read(text: &str, progress: &mut dyn FnMut(usize)) -> Result<(String, ImportReport), String> {
    let im =
        import_with_progress(text, &Options::default(), progress).map_err(|e| e.to_string())?;
    let mut canonical = export(&im.scenario);
    if let Some(p) = &im.scenario.profile {
        canonical.push_str(&export_scheduler_config(p));
    }
    let profile = im.scenario.profile_or_default();
    let report = ImportReport {
        summary: im.summary.to_string(),
        nodes: im.scenario.nodes.len(),
        deployments: im.scenario.deployments.len(),
        daemonsets: im.scenario.daemonsets.len(),
        pods: im.scenario.pods.len(),
        profile: profile.scheduler_name,
        warnings: im
            .warnings
            .iter()
            .map(|w| WarningDoc {
                document: w.loc.document,
                item: w.loc.item,
                kind: w.loc.kind.clone(),
                name: w.loc.name.clone(),
                path: w.path.clone(),
                message: w.message.clone(),
                text: w.to_string(),
            })
            .collect(),
    };
    Ok((canonical, report))
}

/// The session whose script is the one `manifests` action holding
/// `canonical` at tick 1, replayed to tick 1. The replay imports the text
/// again, so any text is checked: a refusal builds nothing.
pub fn canonical_session(canonical: &str, seed: u64) -> Result<Session, String> {
    canonical_session_at(canonical, seed, 1)
}

/// [`canonical_session`] replayed to `tick`: 0 leaves the import queued for
/// tick 1, for the page to place its pods in slices (`Session::step_slice`).
pub fn canonical_session_at(canonical: &str, seed: u64, tick: u64) -> Result<Session, String> {
    let doc = Scenario {
        tick: Some(tick),
        actions: vec![Entry {
            tick: 1,
            action: Action::Manifests {
                manifests: canonical.to_string(),
            },
        }],
        ..scenario::empty(seed, &Profile::kube_scheduler())
    };
    Session::from_scenario(&doc)
}

/// The declarations the session's script has made up to its current tick.
pub fn declarations(session: &Session) -> Result<K8sScenario, String> {
    let now = session.tick();
    let seed = session.seed();
    let mut sc = K8sScenario::default();
    // Every template an app has had, for Rollback.
    let mut history: BTreeMap<String, Vec<PodTemplate>> = BTreeMap::new();
    let node = |sc: &mut K8sScenario, name: &str| sc.nodes.iter().position(|n| n.spec.name == name);
    let app = |sc: &mut K8sScenario, name: &str| sc.deployments.iter().position(|d| d.name == name);
    for e in session.log().iter().filter(|e| e.tick <= now) {
        // The documents the objects came from, so the export writes them
        // back as given (a later apply's win, as kubectl apply's do).
        if let Action::Manifests { manifests } | Action::Apply { manifests } = &e.action {
            if let Ok(im) = import(manifests) {
                sc.kept.merge(im.scenario.kept);
            }
        }
        for ev in e.action.to_events(seed)? {
            match ev {
                Event::AddNode(spec) => sc.nodes.push(ImportedNode {
                    spec,
                    unschedulable: false,
                    ready: true,
                }),
                // Kubelet re-registration: the node keeps its state, with a new body.
                Event::ReregisterNode(spec) => {
                    if let Some(i) = node(&mut sc, &spec.name) {
                        sc.nodes[i].spec = spec;
                    }
                }
                // `kubectl taint`: the Node object carries its taints.
                Event::TaintNode { node: n, taint } => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i].spec.taints.push(taint);
                    }
                }
                Event::UntaintNode {
                    node: n,
                    key,
                    effect,
                } => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i]
                            .spec
                            .taints
                            .retain(|t| !(t.key == key && effect.is_none_or(|e| e == t.effect)));
                    }
                }
                // Every node of the zone stops: as NotReady nodes.
                Event::FailZone { key, value } => {
                    for n in sc.nodes.iter_mut() {
                        if n.spec.labels.get(&key) == Some(&value) {
                            n.ready = false;
                        }
                    }
                }
                Event::FailNode(n) => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i].ready = false;
                    }
                }
                Event::RecoverNode(n) => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i].ready = true;
                    }
                }
                Event::RemoveNode(n) => sc.nodes.retain(|x| x.spec.name != n),
                // A drain cordons the node first.
                Event::Cordon(n) | Event::Drain(n) => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i].unschedulable = true;
                    }
                }
                Event::Uncordon(n) => {
                    if let Some(i) = node(&mut sc, &n) {
                        sc.nodes[i].unschedulable = false;
                    }
                }
                Event::Deploy(d) => {
                    history.insert(d.name.clone(), vec![d.template.clone()]);
                    sc.deployments.push(d);
                }
                Event::Scale { app: a, replicas } => {
                    if let Some(i) = app(&mut sc, &a) {
                        sc.deployments[i].replicas = replicas;
                    }
                }
                Event::Roll { app: a, template } => {
                    if let Some(i) = app(&mut sc, &a) {
                        history.entry(a).or_default().push(template.clone());
                        sc.deployments[i].template = template;
                    }
                }
                Event::Rollback(a) => {
                    let h = history.entry(a.clone()).or_default();
                    if h.len() >= 2 {
                        h.pop();
                        if let (Some(t), Some(i)) = (h.last().cloned(), app(&mut sc, &a)) {
                            sc.deployments[i].template = t;
                        }
                    }
                }
                Event::SetStrategy { app: a, strategy } => {
                    if let Some(i) = app(&mut sc, &a) {
                        sc.deployments[i].strategy = strategy;
                    }
                }
                Event::DeleteApp(a) => sc.deployments.retain(|d| d.name != a),
                Event::AddPdb(p) => sc.pdbs.push(p),
                Event::DeletePdb(n) => sc.pdbs.retain(|p| p.name != n),
                Event::AddService(s) => sc.services.push(s),
                Event::DeleteService(n) => sc.services.retain(|s| s.name != n),
                Event::Evict(_) => {}
                Event::SetPolicy(p) => sc.profile = Some(p.profile()),
                Event::SetProfile(p) => sc.profile = Some(p),
                Event::AddPriorityClass(pc) => sc.priority_classes.push(pc),
                Event::AddNamespace(n) => sc.namespaces.push(n),
                Event::DeletePriorityClass(n) => sc.priority_classes.retain(|pc| pc.name != n),
                Event::CreateDaemonSet(d) => sc.daemonsets.push(d),
                Event::UpdateDaemonSet(d) => {
                    if let Some(x) = sc.daemonsets.iter_mut().find(|x| x.name == d.name) {
                        *x = d;
                    }
                }
                Event::DeleteDaemonSet(n) => sc.daemonsets.retain(|d| d.name != n),
                Event::CreatePod(p) => sc.pods.push(p),
                Event::Running(r) => sc.running.push(r),
                Event::DeletePod(n) => sc.pods.retain(|p| p.name != n),
                // kubectl apply: created, or in place of the object of its name.
                Event::ApplyDeployment(d) => match app(&mut sc, &d.name) {
                    Some(i) => {
                        if sc.deployments[i].template != d.template {
                            history
                                .entry(d.name.clone())
                                .or_default()
                                .push(d.template.clone());
                        }
                        sc.deployments[i] = d;
                    }
                    None => {
                        history.insert(d.name.clone(), vec![d.template.clone()]);
                        sc.deployments.push(d);
                    }
                },
                Event::ApplyDaemonSet(d) => {
                    match sc.daemonsets.iter_mut().find(|x| x.name == d.name) {
                        Some(x) => *x = d,
                        None => sc.daemonsets.push(d),
                    }
                }
                Event::ApplyPod(p) => {
                    if !sc.pods.iter().any(|x| x.name == p.name) {
                        sc.pods.push(p);
                    }
                }
                Event::ApplyNode(spec) => match node(&mut sc, &spec.name) {
                    Some(i) => sc.nodes[i].spec = spec,
                    None => sc.nodes.push(ImportedNode {
                        spec,
                        unschedulable: false,
                        ready: true,
                    }),
                },
                Event::ApplyPriorityClass(pc) => {
                    match sc.priority_classes.iter_mut().find(|x| x.name == pc.name) {
                        Some(x) => *x = pc,
                        None => sc.priority_classes.push(pc),
                    }
                }
                Event::SetAutoscaler(a) => sc.autoscaler = Some(*a),
            }
        }
    }
    // A bare Pod that is gone (evicted, rejected by its kubelet, lost with
    // its node) is not recreated: only those that still exist are exported.
    let cluster = session.simulator().cluster();
    sc.pods.retain(|p| cluster.bare_pod_exists(&p.name));
    // The pods the imported controllers run, as they are now (the ones
    // the simulation deleted gone, the ones the controllers created since
    // written from their owner's kept template, each ReplicaSet with the
    // replicas the simulation left it): see `Scenario::take_running`.
    sc.take_running(cluster);
    Ok(sc)
}

/// The session at its current tick as manifests for `kubectl apply`, and its
/// scheduler profile as the KubeSchedulerConfiguration for kube-scheduler's
/// `--config` (a file of its own: it is not an API object).
pub fn export_session(session: &Session) -> Result<(String, String), String> {
    let sc = declarations(session)?;
    let profile = sc
        .profile
        .clone()
        .unwrap_or_else(|| session.simulator().profile().clone());
    Ok((export(&sc), export_scheduler_config(&profile)))
}

/// [`export_session`] for a KWOK cluster (`shepherd_k8s::export_kwok`):
/// fake nodes, every pod tolerating their taint, bound pods with their node.
pub fn export_session_kwok(session: &Session) -> Result<String, String> {
    Ok(export_kwok(&declarations(session)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shepherd::PodPhase;
    use shepherd_k8s::import;

    const TEXT: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    topology.kubernetes.io/zone: a\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n    pods: \"20\"\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: topology.kubernetes.io/zone\n        whenUnsatisfiable: DoNotSchedule\n        labelSelector:\n          matchLabels:\n            app: web\n      containers:\n      - name: c\n        image: nginx\n        resources:\n          requests:\n            cpu: 500m\n            memory: 256Mi\n";

    #[test]
    fn an_import_places_its_pods_at_tick_1_and_its_link_replays_the_same_cluster() {
        let (s, report) = import_session(TEXT, 7).unwrap();
        assert_eq!((report.nodes, report.deployments), (1, 1));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(s.tick(), 1);
        assert_eq!(
            s.simulator()
                .cluster()
                .pods()
                .filter(|p| p.node.is_some())
                .count(),
            3
        );
        assert_eq!(
            s.simulator().cluster().node("n1").unwrap().spec.max_pods,
            20
        );
        // The share link: the scenario document replays to the same placement.
        let again = Session::from_scenario(&s.scenario()).unwrap();
        let place = |s: &Session| {
            s.simulator()
                .cluster()
                .pods()
                .map(|p| (p.name(), p.node))
                .collect::<Vec<_>>()
        };
        assert_eq!(place(&again), place(&s));
        // Out and in again: the same declarations.
        let (yaml, config) = export_session(&s).unwrap();
        let back = import(&format!("{yaml}{config}")).unwrap().scenario;
        let mut want = declarations(&s).unwrap();
        want.profile = Some(Profile::kube_scheduler());
        assert_eq!(back, want); // Lossless (issue 45): the container as given, not the pause one.
        assert!(yaml.contains("image: nginx"), "{yaml}");
        assert!(!yaml.contains("pause"), "{yaml}");
        // Scaled in the page: replicas follow, the rest stays.
        let mut s = s;
        s.submit(Action::Scale {
            app: "web".into(),
            replicas: 5,
        })
        .unwrap();
        s.step();
        let (yaml, _) = export_session(&s).unwrap();
        assert!(
            yaml.contains("replicas: 5") && yaml.contains("image: nginx"),
            "{yaml}"
        );
        let kwok = export_session_kwok(&s).unwrap();
        assert!(
            kwok.contains("kwok.x-k8s.io/node: fake") && kwok.contains("image: nginx"),
            "{kwok}"
        );
    }

    /// An imported cluster with two running pods of `web`, one on each node,
    /// as `kubectl get -o yaml` lists them.
    fn running_dump() -> String {
        let node = |name: &str| {
            format!("- apiVersion: v1\n  kind: Node\n  metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n  status:\n    allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n    conditions: [{{type: Ready, status: \"True\"}}]\n")
        };
        let pod = |name: &str, node: &str| {
            format!("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {name}\n    labels: {{app: web, pod-template-hash: 5d4c8f7b9}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4c8f7b9, uid: u1, controller: true}}]\n  spec:\n    nodeName: {node}\n    containers: [{{name: web, image: nginx, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}]\n  status: {{phase: Running}}\n")
        };
        let spec = "    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 1Gi}}}]\n";
        [
            "apiVersion: v1\nkind: List\nitems:\n".to_string(),
            node("node-a"),
            node("node-b"),
            format!("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: web, annotations: {{deployment.kubernetes.io/revision: \"1\"}}}}\n  spec:\n    replicas: 2\n    selector: {{matchLabels: {{app: web}}}}\n{spec}"),
            format!("- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: web-5d4c8f7b9\n    labels: {{app: web, pod-template-hash: 5d4c8f7b9}}\n    annotations: {{deployment.kubernetes.io/revision: \"1\"}}\n    ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: u0, controller: true}}]\n  spec:\n    replicas: 2\n    selector: {{matchLabels: {{app: web, pod-template-hash: 5d4c8f7b9}}}}\n{}", spec.replace("{app: web}", "{app: web, pod-template-hash: 5d4c8f7b9}")),
            pod("web-5d4c8f7b9-x2x7q", "node-a"),
            pod("web-5d4c8f7b9-b4kzn", "node-b"),
        ]
        .concat()
    }

    /// Issue 45: the export after the script drained a node of an imported
    /// cluster. Kubernetes never moves a pod: the evicted one is gone and
    /// is not written; the pod left stays under its name on its node, and
    /// the replacement its controller made is written where it runs, from
    /// the user's template.
    #[test]
    fn the_export_after_a_drain_writes_the_pods_as_they_are_not_as_imported() {
        let (mut s, report) = import_session(&running_dump(), 7).unwrap();
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let before = export_session(&s).unwrap().0;
        assert!(before.contains("name: web-5d4c8f7b9-x2x7q"), "{before}");
        s.submit(Action::Drain {
            node: "node-a".into(),
        })
        .unwrap();
        s.run(30);
        let c = s.simulator().cluster();
        let live: Vec<(String, Option<String>)> = c
            .pods()
            .filter(|p| matches!(p.phase, PodPhase::Pending | PodPhase::Running))
            .map(|p| {
                (
                    p.name(),
                    p.node
                        .and_then(|id| c.node_by_id(id))
                        .map(|n| n.name().to_string()),
                )
            })
            .collect();
        assert_eq!(live.len(), 2, "{live:?}");
        assert!(
            !live.iter().any(|(n, _)| n == "web-5d4c8f7b9-x2x7q"),
            "{live:?}"
        );
        let (new, on) = live
            .iter()
            .find(|(n, _)| n != "web-5d4c8f7b9-b4kzn")
            .cloned()
            .unwrap();
        assert_eq!(on.as_deref(), Some("node-b"), "{live:?}");
        assert!(new.starts_with("web-5d4c8f7b9-"), "{new}");
        let (yaml, config) = export_session(&s).unwrap();
        assert!(
            !yaml.contains("web-5d4c8f7b9-x2x7q"),
            "the evicted pod is written:\n{yaml}"
        );
        assert!(yaml.contains("name: web-5d4c8f7b9-b4kzn"), "{yaml}");
        // The replacement too, where the simulation bound it, made from
        // the ReplicaSet's template as the user gave it (image nginx, not
        // the pause image).
        assert!(yaml.contains(&format!("name: {new}")), "{yaml}");
        assert!(!yaml.contains("pause"), "{yaml}");
        assert!(
            yaml.contains("unschedulable: true"),
            "node-a is cordoned:\n{yaml}"
        );
        // Read back: both pods on node-b under their names, the
        // Deployment's two replicas.
        let back = import(&format!("{yaml}{config}")).unwrap().scenario;
        let mut got: Vec<(String, Option<String>)> = back.running[0]
            .pods
            .iter()
            .map(|p| (p.name.clone(), p.node.clone()))
            .collect();
        got.sort();
        let mut want = live.clone();
        want.sort();
        assert_eq!(got, want, "{yaml}");
        assert_eq!(back.deployments[0].replicas, 2);
        let c2 = back.to_cluster().unwrap();
        for (name, node) in &want {
            let p = c2.pod_by_name(name).unwrap();
            let on = p
                .node
                .and_then(|id| c2.node_by_id(id))
                .map(|n| n.name().to_string());
            assert_eq!(&on, node, "{name}");
        }
        let kwok = export_session_kwok(&s).unwrap();
        assert!(!kwok.contains("web-5d4c8f7b9-x2x7q"), "{kwok}");
        assert!(kwok.contains("name: web-5d4c8f7b9-b4kzn"), "{kwok}");
        assert!(kwok.contains(&format!("name: {new}")), "{kwok}");
        assert!(
            !kwok.contains("pause") && !kwok.contains("uid: u1"),
            "{kwok}"
        );
    }

    #[test]
    fn a_refused_import_names_the_document_and_builds_nothing() {
        let bad = TEXT.replace("replicas: 3", "replicas: three");
        let e = import_session(&bad, 7).unwrap_err();
        assert!(
            e.contains("document 2 (Deployment web): spec.replicas"),
            "{e}"
        );
    }

    #[test]
    fn daemonsets_and_bare_pods_follow_the_script_and_its_link() {
        let ds = "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels:\n      app: agent\n  template:\n    metadata:\n      labels:\n        app: agent\n    spec:\n      containers:\n      - name: a\n        resources:\n          requests:\n            cpu: 100m\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: debug\nspec:\n  nodeName: n1\n  containers:\n  - name: sh\n";
        let (mut s, report) = import_session(&format!("{TEXT}{ds}"), 7).unwrap();
        assert_eq!((report.daemonsets, report.pods), (1, 1));
        let names = crate::compare::placements;
        let c = s.simulator().cluster();
        let placed: Vec<(String, Option<String>)> = names(&s)
            .into_iter()
            .map(|(p, n)| (c.short_pod_names(&p), n))
            .collect();
        assert!(
            placed.contains(&("agent-0".to_string(), Some("n1".to_string()))),
            "{placed:?}"
        );
        assert!(
            placed.contains(&("debug".to_string(), Some("n1".to_string()))),
            "{placed:?}"
        );
        // The link replays the same placement.
        let linked = Session::from_scenario(&s.scenario()).unwrap();
        let lc = linked.simulator().cluster();
        assert_eq!(
            names(&linked)
                .into_iter()
                .map(|(p, n)| (lc.short_pod_names(&p), n))
                .collect::<Vec<_>>(),
            placed
        );
        // A changed DaemonSet rolls; deleting the Pod and the DaemonSet empties them out.
        let v2 = one_object(|sc| {
            let mut d = declarations(&s).unwrap().daemonsets[0].clone();
            d.template.version = "v2".into();
            sc.daemonsets.push(d);
        });
        s.submit(Action::UpdateDaemonSet { manifests: v2 }).unwrap();
        s.run(3);
        assert_eq!(
            declarations(&s).unwrap().daemonsets[0].template.version,
            "v2"
        );
        s.submit(Action::DeletePod {
            name: "debug".into(),
        })
        .unwrap();
        s.submit(Action::DeleteDaemonSet {
            name: "agent".into(),
        })
        .unwrap();
        s.run(1);
        let d = declarations(&s).unwrap();
        assert!(d.daemonsets.is_empty() && d.pods.is_empty());
        assert!(s.simulator().cluster().pods().all(|p| p.app == "web"));
        // Refused: an update holding something else than one DaemonSet.
        assert!(s
            .submit(Action::UpdateDaemonSet {
                manifests: TEXT.into()
            })
            .is_err());
    }

    #[test]
    fn export_follows_the_script_to_the_current_tick() {
        let (mut s, _) = import_session(TEXT, 7).unwrap();
        s.submit(Action::Scale {
            app: "web".into(),
            replicas: 5,
        })
        .unwrap();
        s.submit(Action::Cordon { node: "n1".into() }).unwrap();
        s.run(1);
        let d = declarations(&s).unwrap();
        assert_eq!(d.deployments[0].replicas, 5);
        assert!(d.nodes[0].unschedulable);
    }
}
