//! The control loops, named and laid out as kube-controller-manager names
//! them (`pkg/controller/<name>`): each works from the cluster's incremental
//! books and none scans every pod. [`crate::Cluster::reconcile_once`] runs
//! them in a fixed order (`reconcile.rs`).

pub(crate) mod admission;
pub mod adopt;
pub(crate) mod bare_pod;
pub(crate) mod daemonset;
pub mod deployment;
pub(crate) mod disruption;
pub(crate) mod endpoints;
pub(crate) mod nodelifecycle;
pub(crate) mod podgc;
pub(crate) mod tainteviction;
