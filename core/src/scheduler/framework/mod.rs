//! The plain scheduling framework, readable top to bottom as
//! kube-scheduler's `pkg/scheduler/schedule_one.go`:
//!
//! 1. [`queue`]: the scheduling queue's order (PrioritySort, then creation
//!    order), each revision's pending pods taken as a batch, and the path
//!    each batch takes (the plain cycle, or a fast path from `fast/`).
//! 2. [`state`]: what the plugins' PreFilter and PreScore compute once per
//!    batch (each plugin's part, and its update when a pod binds, in its
//!    folder under `plugins/`).
//! 3. [`cycle`]: one cycle: PreFilter's node set, Filter, PreScore, Score,
//!    NormalizeScore, weights, selectHost.
//! 4. [`failure`]: the FailedScheduling message of a pod no node takes
//!    (PostFilter, DefaultPreemption, is `preemption.rs`).
//! 5. [`explain`]: the cycle's decision for one pod, node by node.
//!
//! With [`FastPaths::NONE`](super::FastPaths::NONE) every batch goes through
//! [`cycle`] alone; the fast paths choose what it chooses.

mod cycle;
mod explain;
mod failure;
mod queue;
mod state;
