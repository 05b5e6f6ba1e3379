//! # shepherd-k8s: Kubernetes manifests in and out of the Shepherd engine
//!
//! [`import`] reads what `kubectl get ... -o yaml` prints (a multi-document
//! YAML stream, JSON, or a `kind: List`), or a folder of hand-written
//! manifests, and maps the objects the engine simulates onto its declarations:
//!
//! | Kubernetes | engine |
//! | --- | --- |
//! | `v1 Node` (status.allocatable, else capacity: cpu, memory, pods; labels; spec.taints; spec.unschedulable; the Ready condition) | [`shepherd::NodeSpec`], cordoned, NotReady |
//! | `apps/v1 Deployment` (replicas, strategy, template: requests, nodeSelector, tolerations, node affinity, pod (anti-)affinity required and preferred, topologySpreadConstraints; selectors with matchLabels and matchExpressions) | [`shepherd::DeploymentSpec`] |
//! | `apps/v1 ReplicaSet` not owned by a Deployment, `apps/v1 StatefulSet` | [`shepherd::DeploymentSpec`] (a replica owner; with a warning) |
//! | `apps/v1 DaemonSet` (selector, template, updateStrategy: RollingUpdate maxUnavailable and maxSurge, OnDelete; minReadySeconds; the template's hostNetwork) | [`shepherd::DaemonSetSpec`] in [`Scenario::daemonsets`] |
//! | `v1 Pod` without an owner (spec.nodeName, the pod spec; finished pods skipped) | [`shepherd::BarePodSpec`] in [`Scenario::pods`] |
//! | `v1 Namespace` (labels, for namespaceSelectors) | [`shepherd::NamespaceSpec`] in [`Scenario::namespaces`] |
//! | `policy/v1 PodDisruptionBudget` | [`shepherd::PdbSpec`] |
//! | `v1 Service` with a selector | [`shepherd::ServiceSpec`] |
//! | `kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration` (the profile named default-scheduler, else the first) | [`shepherd::Profile`] in [`Scenario::profile`] |
//! | `v1 ConfigMap` `kwok-provider-config`, `kwok-provider-templates`, `cluster-autoscaler-priority-expander` (Cluster Autoscaler's kwok provider; see docs/autoscaling.md) | [`shepherd::autoscaler::AutoscalerConfig`] in [`Scenario::autoscaler`] |
//!
//! Every field is either read, known to change nothing the engine simulates
//! (status, managedFields, images, probes ...), or reported as a [`Warning`]
//! with its document, object and field path. A value that is wrong gives an
//! [`ImportError`] naming the document, the object, the field path, what was
//! found and what was expected; an import with an error imports nothing.
//!
//! [`export`] writes a [`Scenario`] back as manifests that `kubectl apply`
//! takes ([`export_kwok`] with KWOK's fake nodes, [`kubectl_node_script`] the
//! nodes' labels and taints as kubectl commands), and [`pods_wide`] prints a converged cluster's placement as
//! `kubectl get pods -o wide` does. `import(export(s))` gives `s` back
//! (for a scenario that declares every namespace its objects are in, as an
//! import does: the export writes a Namespace for each).
//!
//! Quantities are read by the engine's own [`shepherd::quantity`], so the
//! page's forms, the scenario format and manifests share one grammar.

mod autoscaling;
mod context;
mod export;
mod import;
mod json_fast;
pub mod kept;
#[cfg(test)]
mod kept_tests;
pub mod kubectl;
mod read;
mod scenario;
mod scheduler_config;
mod value;
pub mod whatif;
mod yaml_fast;
mod yaml_scan;

use std::fmt;

/// A Go duration as CA's flags take one (`10s`, `10m`, `1h30m`), in whole seconds.
pub use autoscaling::duration as go_duration;
pub use export::{
    export, export_kwok, export_scheduler_config, kubectl_node_script, pods_wide, pods_wide_json,
    ANNOTATION_READY_AFTER, ANNOTATION_VERSION, KWOK_KEY,
};
pub use import::{import, import_checked, import_with, import_with_progress};
pub use scenario::{ImportedNode, Scenario};
pub use value::Value;

/// Where an object came from: its document (1-based, counting `---`
/// separators or JSON values), its index inside a `kind: List` (0-based),
/// and its kind and name when it has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub document: usize,
    pub item: Option<usize>,
    pub kind: String,
    pub name: String,
}

impl Location {
    pub(crate) fn of(document: usize, item: Option<usize>, v: &Value) -> Location {
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = v
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        // Up to 80 bytes are up to 80 characters: copied whole.
        let cut = |s: &str| {
            if s.len() <= 80 {
                s.to_string()
            } else {
                s.chars().take(80).collect::<String>()
            }
        };
        Location {
            document,
            item,
            kind: cut(kind),
            name: cut(name),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "document {}", self.document)?;
        if let Some(i) = self.item {
            write!(f, ", item {i}")?;
        }
        match (self.kind.is_empty(), self.name.is_empty()) {
            (true, true) => Ok(()),
            (false, true) => write!(f, " ({})", self.kind),
            (true, false) => write!(f, " ({:?})", self.name),
            (false, false) => write!(f, " ({} {})", self.kind, self.name),
        }
    }
}

/// Something in the input that the simulation does not represent. The
/// import went ahead without it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub loc: Location,
    /// The field path inside the object, e.g. `spec.template.spec.volumes`;
    /// empty when the warning is about the whole object.
    pub path: String,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.loc, self.message)
        } else {
            write!(f, "{}: {}: {}", self.loc, self.path, self.message)
        }
    }
}

/// Why an import was refused. Nothing was imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub loc: Location,
    /// The field path inside the object; empty when the whole document is at fault.
    pub path: String,
    /// What was found and what was expected.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.loc, self.message)
        } else {
            write!(f, "{}: {}: {}", self.loc, self.path, self.message)
        }
    }
}

impl std::error::Error for ImportError {}

/// Input size limits: an input beyond any of them is refused with a message
/// instead of taking the time and memory it asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Total input size in bytes (default 64 MiB: 5,000 Nodes and 10,000
    /// Deployments as kubectl prints them are about 28 MB). YAML aliases are
    /// expanded within it too: the values a stream with aliases reads may
    /// take this many bytes, each value counting 32 and its text.
    pub max_bytes: usize,
    /// YAML documents or JSON values (default 100,000).
    pub max_documents: usize,
    /// Objects after `kind: List`s are flattened (default 200,000: Kubernetes'
    /// envelope is 5,000 nodes and 150,000 pods).
    pub max_objects: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 << 20,
            max_documents: 100_000,
            max_objects: 200_000,
        }
    }
}

/// How to import.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Options {
    pub limits: Limits,
    /// Only this namespace (kubectl's `-n`): objects in any other, and
    /// other Namespace objects, are skipped with a warning. `None` (the
    /// default) takes every namespace, as `kubectl get -A` lists them. An
    /// object without `metadata.namespace` is in `default`.
    pub namespace: Option<String>,
}

/// What an import produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub scenario: Scenario,
    pub warnings: Vec<Warning>,
    pub summary: Summary,
}

/// Counts, by kind, of what was imported and what was not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Objects read from the input, after `kind: List`s are flattened.
    pub objects: usize,
    /// (kind, count) of objects that became engine declarations.
    pub imported: Vec<(String, usize)>,
    /// (kind, count) of objects that did not, each with a warning saying why.
    pub skipped: Vec<(String, usize)>,
    /// Pods (and ReplicaSets) owned by an imported controller: the
    /// controller's own pods, not second copies, so not imported on their own.
    pub owned: usize,
    /// Of those pods, the ones kept as they run (bound to their nodes, or
    /// Pending for the scheduler) under their own names.
    pub running: usize,
    /// Pods skipped because they are terminating (`metadata.deletionTimestamp`)
    /// or have finished (Succeeded, Failed): they take no room.
    pub terminating: usize,
    pub finished: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[(String, usize)]| {
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.iter()
                    .map(|(k, n)| format!("{n} {k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        write!(
            f,
            "{} objects: imported {}; skipped {}",
            self.objects,
            list(&self.imported),
            list(&self.skipped)
        )?;
        if self.owned > 0 {
            write!(f, "; {} owned by an imported controller", self.owned)?;
        }
        if self.running > 0 {
            write!(f, " ({} pods kept as they run)", self.running)?;
        }
        if self.terminating + self.finished > 0 {
            write!(
                f,
                "; {} pods terminating and {} finished take no room",
                self.terminating, self.finished
            )?;
        }
        Ok(())
    }
}
