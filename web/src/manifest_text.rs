//! Manifests as the script carries them: the engine events a `manifests`,
//! `apply` or `updateDaemonSet` action declares, and one object written as
//! a manifest. Text in, events out, through `shepherd-k8s`; no session.
//! The session-level half (import, export, apply to a session) is
//! `manifests.rs`.

use shepherd::simulator::Event;
use shepherd_k8s::{export, import, Scenario as K8sScenario};

/// The engine events an [`Action::Manifests`] declares: the profile first
/// (when the manifests carry a KubeSchedulerConfiguration), then nodes
/// (cordoned, NotReady), Deployments, budgets and Services.
pub fn events(text: &str) -> Result<Vec<Event>, String> {
    let im = import(text).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    if let Some(p) = &im.scenario.profile {
        out.push(Event::SetProfile(p.clone()));
    }
    // Cluster Autoscaler over the kwok provider's node groups, when the
    // manifests configure it (docs/autoscaling.md).
    if let Some(a) = &im.scenario.autoscaler {
        out.push(Event::SetAutoscaler(Box::new(a.clone())));
    }
    out.extend(im.scenario.events());
    Ok(out)
}

/// The engine events an [`Action::Apply`] makes: `kubectl apply -f` of the
/// manifests onto the running cluster (each object created or updated when
/// its event fires; see `shepherd_k8s::Scenario::apply_events`). A
/// KubeSchedulerConfiguration is refused: the scheduler reads one when it
/// starts.
pub fn apply_events(text: &str) -> Result<Vec<Event>, String> {
    let im = import(text).map_err(|e| e.to_string())?;
    if im.scenario.profile.is_some() {
        return Err("apply: a KubeSchedulerConfiguration; expected it in an import (the scheduler reads one --config when it starts), not applied to a running cluster".into());
    }
    let mut out = im.scenario.apply_events();
    // A kwok provider ConfigMap applied restarts the autoscaler over it.
    if let Some(a) = &im.scenario.autoscaler {
        out.push(Event::SetAutoscaler(Box::new(a.clone())));
    }
    Ok(out)
}

/// A scenario holding the one object `add` puts in, as manifests: how the
/// script carries a DaemonSet or a bare Pod created after the import.
pub fn one_object(add: impl FnOnce(&mut K8sScenario)) -> String {
    let mut sc = K8sScenario::default();
    add(&mut sc);
    // Without the Namespace the export writes for it: the object's
    // namespace exists already, with the labels it was declared with.
    export(&sc)
        .split_inclusive("---\n")
        .filter(|d| !d.contains("\nkind: Namespace\n"))
        .collect()
}

/// `n` and the word for one or for several: "1 DaemonSet", "2 DaemonSets".
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one DaemonSet an `updateDaemonSet` action's manifests hold.
pub fn daemonset_update(text: &str) -> Result<shepherd::DaemonSetSpec, String> {
    let im = import(text).map_err(|e| e.to_string())?;
    let sc = im.scenario;
    let others =
        sc.nodes.len() + sc.deployments.len() + sc.pods.len() + sc.pdbs.len() + sc.services.len();
    match (sc.daemonsets.len(), others) {
        (1, 0) => Ok(sc.daemonsets.into_iter().next().expect("one DaemonSet")),
        (n, m) => Err(format!(
            "updateDaemonSet: the manifests hold {} and {}; expected exactly one DaemonSet",
            counted(n, "DaemonSet", "DaemonSets"),
            counted(m, "other object", "other objects")
        )),
    }
}
