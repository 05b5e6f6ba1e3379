//! Rollout status as Kubernetes' Deployment controller keeps it:
//! availability after `minReadySeconds`, the `Available` and `Progressing`
//! conditions with `progressDeadlineSeconds`, and the lines
//! `kubectl rollout status` prints.
//!
//! The rules follow kubernetes/kubernetes:
//!
//! - a pod is *available* once it has been Ready for the Deployment's
//!   minReadySeconds (podutil.IsPodAvailable); availableReplicas, the rolling
//!   update's maxUnavailable arithmetic and the Available condition count
//!   available pods. Disruption budgets count Ready pods (the disruption
//!   controller's countHealthyPods uses IsPodReady) and Services list Ready
//!   pods, so neither waits for minReadySeconds;
//! - `Available` is True (MinimumReplicasAvailable) while availableReplicas
//!   is at least replicas - maxUnavailable, else False
//!   (MinimumReplicasUnavailable) (calculateStatus in
//!   pkg/controller/deployment/sync.go);
//! - `Progressing` (pkg/controller/deployment/progress.go, syncRolloutStatus,
//!   and util/deployment_util.go): True with NewReplicaSetCreated when a new
//!   ReplicaSet is created; True with ReplicaSetUpdated, its lastUpdateTime
//!   moved to now, whenever a sync sees progress against the status it last
//!   recorded (more updated, fewer old, more ready or more available
//!   replicas: DeploymentProgressing); True with NewReplicaSetAvailable when
//!   the rollout is complete (DeploymentComplete); False with
//!   ProgressDeadlineExceeded once lastUpdateTime + progressDeadlineSeconds
//!   has passed without progress (DeploymentTimedOut). A complete rollout is
//!   not judged again until a new one starts (so scaling a complete
//!   Deployment never times out), and a condition already
//!   NewReplicaSetAvailable never times out. Kubernetes' FoundNewReplicaSet
//!   appears only when a Deployment had no Progressing condition when its new
//!   ReplicaSet was found; here every Deployment has one from its creation, so
//!   it never appears. Paused Deployments are not simulated (the importer
//!   warns), so neither are the DeploymentPaused/DeploymentResumed reasons.
//!
//! Time: one tick is one second. Kubernetes compares `lastTransitionTime +
//! minReadySeconds` and `lastUpdateTime + progressDeadlineSeconds` with now,
//! and both times are kept to the second; a pod Ready during tick `t` is
//! available from tick `t + minReadySeconds`, and a rollout whose last
//! progress was at tick `t` times out at tick `t + progressDeadlineSeconds`.
//!
//! Kubernetes records the conditions in the Deployment's status and emits no
//! event for them; Shepherd adds a Warning event ProgressDeadlineExceeded
//! when a rollout times out, so the event log shows it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::cluster::{Cluster, OwnerId};
use crate::model::NO_PROGRESS_DEADLINE;
use crate::util::error::Error;

/// The two condition types a Deployment reports here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeploymentConditionType {
    Available,
    Progressing,
}

impl DeploymentConditionType {
    pub fn as_str(&self) -> &'static str {
        match self {
            DeploymentConditionType::Available => "Available",
            DeploymentConditionType::Progressing => "Progressing",
        }
    }
}

/// A condition's status, as Kubernetes writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionStatus {
    True,
    False,
}

impl ConditionStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
        }
    }
}

/// Kubernetes' condition reasons (util/deployment_util.go).
pub mod reasons {
    /// Available: availableReplicas >= replicas - maxUnavailable.
    pub const MINIMUM_REPLICAS_AVAILABLE: &str = "MinimumReplicasAvailable";
    /// Available is False: fewer available than replicas - maxUnavailable.
    pub const MINIMUM_REPLICAS_UNAVAILABLE: &str = "MinimumReplicasUnavailable";
    /// Progressing: a new ReplicaSet was created.
    pub const NEW_REPLICA_SET_CREATED: &str = "NewReplicaSetCreated";
    /// Progressing: a sync saw progress.
    pub const REPLICA_SET_UPDATED: &str = "ReplicaSetUpdated";
    /// Progressing: the rollout is complete.
    pub const NEW_REPLICA_SET_AVAILABLE: &str = "NewReplicaSetAvailable";
    /// Progressing is False: no progress for progressDeadlineSeconds.
    pub const PROGRESS_DEADLINE_EXCEEDED: &str = "ProgressDeadlineExceeded";
}

/// One entry of a Deployment's `status.conditions`; times are ticks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentCondition {
    pub type_: DeploymentConditionType,
    pub status: ConditionStatus,
    pub reason: &'static str,
    pub message: String,
    pub last_update_time: u64,
    pub last_transition_time: u64,
}

/// A Deployment's `status`, as `kubectl get deployment -o yaml` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentStatus {
    pub name: String,
    /// spec.replicas
    pub spec_replicas: u32,
    pub min_ready_seconds: u32,
    pub progress_deadline_seconds: u32,
    /// Pods of every revision (status.replicas).
    pub replicas: u32,
    /// Pods of the current revision (status.updatedReplicas).
    pub updated_replicas: u32,
    pub ready_replicas: u32,
    /// Ready for at least minReadySeconds (status.availableReplicas).
    pub available_replicas: u32,
    /// replicas - availableReplicas, never below zero.
    pub unavailable_replicas: u32,
    /// Available first, then Progressing (absent with no deadline).
    pub conditions: Vec<DeploymentCondition>,
}

impl DeploymentStatus {
    pub fn condition(&self, t: DeploymentConditionType) -> Option<&DeploymentCondition> {
        self.conditions.iter().find(|c| c.type_ == t)
    }
}

/// What `kubectl rollout status deployment/NAME` says about a Deployment
/// (kubectl's DeploymentStatusViewer, polymorphichelpers/rollout_status.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RolloutStatus {
    /// A "Waiting for deployment ... rollout to finish: ..." line.
    Waiting(String),
    /// `deployment "NAME" successfully rolled out`
    RolledOut(String),
    /// `deployment "NAME" exceeded its progress deadline` (kubectl prints it
    /// as an error and exits with status 1).
    DeadlineExceeded(String),
}

impl RolloutStatus {
    pub fn message(&self) -> &str {
        match self {
            RolloutStatus::Waiting(m)
            | RolloutStatus::RolledOut(m)
            | RolloutStatus::DeadlineExceeded(m) => m,
        }
    }

    /// Whether `kubectl rollout status` would stop watching: rolled out or failed.
    pub fn is_final(&self) -> bool {
        !matches!(self, RolloutStatus::Waiting(_))
    }
}

impl fmt::Display for RolloutStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RolloutStatus::DeadlineExceeded(m) => write!(f, "error: {m}"),
            other => f.write_str(other.message()),
        }
    }
}

/// The counts a sync last recorded (Kubernetes' stored deployment.Status):
/// progress is measured against them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Observed {
    pub replicas: u32,
    pub updated: u32,
    pub ready: u32,
    pub available: u32,
}

/// The inputs of a Deployment's sync that can change nothing
/// ([`Cluster::quiet_key`]). Its pods are all of revision `current`, so
/// its counts are that one revision's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QuietKey {
    priority_epoch: u64,
    counts: crate::cluster::Counts,
    current: u32,
    replicas: u32,
    progress_deadline_seconds: u32,
    strategy: crate::model::RollingUpdate,
    /// Each condition's status and reason (by address: the reasons are
    /// `&'static str` constants, and the same address is the same text; a
    /// copy at another address only makes the key differ, which costs a
    /// sync), `None` for no condition.
    available: Option<(ConditionStatus, *const u8)>,
    progressing: Option<(ConditionStatus, *const u8)>,
}

fn cond_key(c: &Option<DeploymentCondition>) -> Option<(ConditionStatus, *const u8)> {
    c.as_ref().map(|c| (c.status, c.reason.as_ptr()))
}

/// A Deployment's recorded status and conditions.
#[derive(Clone, Debug, Default)]
pub(crate) struct RolloutState {
    pub observed: Observed,
    pub available: Option<DeploymentCondition>,
    pub progressing: Option<DeploymentCondition>,
}

/// Kubernetes' SetDeploymentCondition: nothing changes when status and reason
/// are the same; lastTransitionTime is kept when only the reason changes.
/// Returns whether the condition changed.
fn set_condition(slot: &mut Option<DeploymentCondition>, mut c: DeploymentCondition) -> bool {
    if let Some(cur) = slot {
        if cur.status == c.status && cur.reason == c.reason {
            return false;
        }
        if cur.status == c.status {
            c.last_transition_time = cur.last_transition_time;
        }
    }
    *slot = Some(c);
    true
}

/// Whether setting (status, reason) would change the condition.
fn differs(slot: &Option<DeploymentCondition>, status: ConditionStatus, reason: &str) -> bool {
    slot.as_ref()
        .is_none_or(|c| c.status != status || c.reason != reason)
}

fn condition(
    type_: DeploymentConditionType,
    status: ConditionStatus,
    reason: &'static str,
    message: String,
    now: u64,
) -> DeploymentCondition {
    DeploymentCondition {
        type_,
        status,
        reason,
        message,
        last_update_time: now,
        last_transition_time: now,
    }
}

impl Cluster {
    /// Marks a Ready pod available and counts it.
    pub(crate) fn set_available(&mut self, k: u32) {
        let (c, rev) = {
            let p = self.pod_mut(k);
            if p.available || !p.ready {
                return;
            }
            p.available = true;
            (p.controller, p.revision)
        };
        // A DaemonSet's roll waits on availability (maxUnavailable, the end
        // of a surge): it looks again.
        if let crate::cluster::Workload::DaemonSet(d) = &mut self.controllers[c.0 as usize].workload
        {
            d.seen = None;
        }
        self.controllers[c.0 as usize]
            .counts
            .entry_or_default(rev)
            .available += 1;
    }

    /// Marks available the pods whose minReadySeconds have passed. Costs only
    /// the pods that become available.
    pub(crate) fn promote_available(&mut self) -> u32 {
        let mut n = 0;
        while let Some((&tick, _)) = self.available_queue.first_key_value() {
            if tick > self.now {
                break;
            }
            let due = self
                .available_queue
                .pop_first()
                .map(|(_, v)| v)
                .unwrap_or_default();
            for (k, uid) in due {
                // The pod may have been deleted (and its key reused) since,
                // or lost its Ready condition and regained it later (then a
                // later entry counts minReadySeconds from the new time).
                let now = self.now;
                let live = matches!(&self.pods.get(k as usize), Some(Some(p))
                    if p.uid == uid && p.ready && !p.available
                        && p.ready_at().saturating_add(
                            self.controllers[p.controller.0 as usize].min_ready_seconds as u64,
                        ) <= now);
                if live {
                    self.set_available(k);
                    n += 1;
                }
            }
        }
        n
    }

    /// `id`'s current revision just changed (a roll, or a rollback to an
    /// existing ReplicaSet). Kubernetes' first sync after the change records
    /// updatedReplicas as the new ReplicaSet's pods before it scales (0 for a
    /// new one): progress is measured from there. A new ReplicaSet also sets
    /// Progressing to NewReplicaSetCreated, as getNewReplicaSet does.
    pub(crate) fn revision_switched(&mut self, id: OwnerId, created: bool) {
        let now = self.now;
        let c = &mut self.controllers[id.0 as usize];
        c.rollout.observed.updated = c.count(c.current).pods;
        if !created || c.progress_deadline_seconds == NO_PROGRESS_DEADLINE {
            return;
        }
        let rs = format!("{}-{}", c.name, c.revisions[c.current as usize - 1].hash);
        set_condition(
            &mut c.rollout.progressing,
            condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::True,
                reasons::NEW_REPLICA_SET_CREATED,
                format!("Created new replica set \"{rs}\""),
                now,
            ),
        );
    }

    /// What a Deployment's sync (`sync_deployment`, then
    /// [`Cluster::sync_rollout_status`]) reads, when that sync can change
    /// nothing: every pod of the current revision, as many pods as
    /// replicas, no roll under way, and a rollout status that waits for no
    /// deadline (no progressDeadlineSeconds, or Progressing already
    /// NewReplicaSetAvailable). `None` otherwise. A sync of such a
    /// Deployment creates and deletes nothing, emits nothing, and writes
    /// back the status and conditions it finds; so while its inputs are
    /// those of the key recorded after its last sync
    /// ([`Cluster::still_quiet`]), the next sync would be that same no-op,
    /// and the pass leaves it out (`reconcile.rs`). Every input of that
    /// sync is in the key: the priority epoch and revision its admission
    /// was decided for, replicas, strategy, deadline, the counts (which
    /// the recorded status must equal), and both conditions' status and
    /// reason.
    pub(crate) fn quiet_key(&self, id: OwnerId) -> Option<QuietKey> {
        let c = &self.controllers[id.0 as usize];
        if c.deleted || c.rolling || !matches!(c.workload, crate::cluster::Workload::Deployment) {
            return None;
        }
        let (rev, counts) = c.counts.only()?;
        if rev != c.current || counts.pods != c.replicas || c.total() != c.replicas {
            return None;
        }
        if c.progress_deadline_seconds != NO_PROGRESS_DEADLINE
            && c.rollout
                .progressing
                .as_ref()
                .is_none_or(|p| p.reason != reasons::NEW_REPLICA_SET_AVAILABLE)
        {
            return None;
        }
        let k = QuietKey {
            priority_epoch: self.priority_epoch,
            counts: *counts,
            current: c.current,
            replicas: c.replicas,
            progress_deadline_seconds: c.progress_deadline_seconds,
            strategy: c.strategy,
            available: cond_key(&c.rollout.available),
            progressing: cond_key(&c.rollout.progressing),
        };
        self.still_quiet(id, &k).then_some(k)
    }

    /// Whether Deployment `id`'s sync reads what key `k` holds (see
    /// [`Cluster::quiet_key`]): then it would change nothing. Called for
    /// every quiet Deployment in every pass, so it compares in place.
    #[inline]
    pub(crate) fn still_quiet(&self, id: OwnerId, k: &QuietKey) -> bool {
        let c = &self.controllers[id.0 as usize];
        let Some((rev, counts)) = c.counts.only() else {
            return false;
        };
        let recorded = Observed {
            replicas: k.counts.pods,
            updated: k.counts.pods,
            ready: k.counts.ready,
            available: k.counts.available,
        };
        rev == k.current
            && *counts == k.counts
            && c.current == k.current
            && c.replicas == k.replicas
            && c.total() == k.counts.pods
            && self.priority_epoch == k.priority_epoch
            && !c.deleted
            && !c.rolling
            && c.progress_deadline_seconds == k.progress_deadline_seconds
            && c.strategy == k.strategy
            && c.rollout.observed == recorded
            && cond_key(&c.rollout.available) == k.available
            && cond_key(&c.rollout.progressing) == k.progressing
            && matches!(c.workload, crate::cluster::Workload::Deployment)
    }

    /// Kubernetes' syncRolloutStatus for one Deployment: computes the status
    /// from the counts, updates the Available and Progressing conditions
    /// against the status recorded last time, and records the new one.
    /// Returns true when the rollout timed out at this call.
    pub(crate) fn sync_rollout_status(&mut self, id: OwnerId) -> bool {
        let now = self.now;
        let c = &mut self.controllers[id.0 as usize];
        if c.deleted {
            return false;
        }
        let new = Observed {
            replicas: c.total(),
            updated: c.count(c.current).pods,
            ready: c.ready(),
            available: c.available(),
        };
        let old = c.rollout.observed;
        let replicas = c.replicas;
        // Text is built only when a condition changes: this runs for every
        // Deployment in every pass.
        let rs = || format!("{}-{}", c.name, c.revisions[c.current as usize - 1].hash);

        // calculateStatus: the Available condition.
        let max_unavailable = if replicas == 0 {
            0
        } else {
            c.strategy.resolve(replicas).1.min(replicas)
        };
        let (status, reason, message) = if new.available >= replicas - max_unavailable {
            (
                ConditionStatus::True,
                reasons::MINIMUM_REPLICAS_AVAILABLE,
                "Deployment has minimum availability.",
            )
        } else {
            (
                ConditionStatus::False,
                reasons::MINIMUM_REPLICAS_UNAVAILABLE,
                "Deployment does not have minimum availability.",
            )
        };
        if differs(&c.rollout.available, status, reason) {
            set_condition(
                &mut c.rollout.available,
                condition(
                    DeploymentConditionType::Available,
                    status,
                    reason,
                    message.to_string(),
                    now,
                ),
            );
        }

        let has_deadline = c.progress_deadline_seconds != NO_PROGRESS_DEADLINE;
        if !has_deadline {
            c.rollout.progressing = None;
        }
        let reason = c.rollout.progressing.as_ref().map(|p| p.reason);
        let is_complete_deployment =
            new.replicas == new.updated && reason == Some(reasons::NEW_REPLICA_SET_AVAILABLE);
        if has_deadline && !is_complete_deployment {
            let complete =
                new.updated == replicas && new.replicas == replicas && new.available == replicas;
            let progressed = new.updated > old.updated
                || new.replicas.saturating_sub(new.updated)
                    < old.replicas.saturating_sub(old.updated)
                || new.ready > old.ready
                || new.available > old.available;
            if complete {
                let rs = rs();
                set_condition(
                    &mut c.rollout.progressing,
                    condition(
                        DeploymentConditionType::Progressing,
                        ConditionStatus::True,
                        reasons::NEW_REPLICA_SET_AVAILABLE,
                        format!("ReplicaSet \"{rs}\" has successfully progressed."),
                        now,
                    ),
                );
            } else if progressed {
                let rs = rs();
                // Progress moves lastUpdateTime even with an unchanged reason;
                // lastTransitionTime stays while the status stays True.
                let mut cond = condition(
                    DeploymentConditionType::Progressing,
                    ConditionStatus::True,
                    reasons::REPLICA_SET_UPDATED,
                    format!("ReplicaSet \"{rs}\" is progressing."),
                    now,
                );
                if let Some(cur) = &c.rollout.progressing {
                    if cur.status == ConditionStatus::True {
                        cond.last_transition_time = cur.last_transition_time;
                    }
                }
                c.rollout.progressing = Some(cond);
            } else if let Some(cur) = &c.rollout.progressing {
                // DeploymentTimedOut: never from NewReplicaSetAvailable; once
                // timed out it stays so until progress or a new rollout.
                let due = cur
                    .last_update_time
                    .saturating_add(c.progress_deadline_seconds as u64);
                if cur.reason != reasons::NEW_REPLICA_SET_AVAILABLE
                    && cur.reason != reasons::PROGRESS_DEADLINE_EXCEEDED
                    && now >= due
                {
                    let msg = format!("ReplicaSet \"{}\" has timed out progressing.", rs());
                    set_condition(
                        &mut c.rollout.progressing,
                        condition(
                            DeploymentConditionType::Progressing,
                            ConditionStatus::False,
                            reasons::PROGRESS_DEADLINE_EXCEEDED,
                            msg.clone(),
                            now,
                        ),
                    );
                    c.rollout.observed = new;
                    // The condition is the record: Kubernetes' Deployment
                    // controller emits no Event for it.
                    return true;
                }
            }
        }
        c.rollout.observed = new;
        false
    }

    /// A Deployment's status: the counts now and the conditions the last
    /// sync recorded.
    pub fn deployment_status(&self, name: &str) -> Result<DeploymentStatus, Error> {
        let id = self.controller_id(name)?;
        let c = &self.controllers[id.0 as usize];
        let replicas = c.total();
        let available = c.available();
        let conditions = [&c.rollout.available, &c.rollout.progressing]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        Ok(DeploymentStatus {
            name: c.name.clone(),
            spec_replicas: c.replicas,
            min_ready_seconds: c.min_ready_seconds,
            progress_deadline_seconds: c.progress_deadline_seconds,
            replicas,
            updated_replicas: c.count(c.current).pods,
            ready_replicas: c.ready(),
            available_replicas: available,
            unavailable_replicas: replicas.saturating_sub(available),
            conditions,
        })
    }

    /// What `kubectl rollout status deployment/NAME` prints now, case by
    /// case as kubectl's DeploymentStatusViewer decides it: the progress
    /// deadline first, then updated < replicas, then old replicas left, then
    /// updated replicas not yet available, else rolled out. (kubectl first
    /// waits for the spec to be observed; here every change is observed by
    /// the pass that follows it, within the same tick.)
    pub fn rollout_status(&self, name: &str) -> Result<RolloutStatus, Error> {
        let s = self.deployment_status(name)?;
        // kubectl names the Deployment without its namespace.
        let n = crate::model::namespace::split(&s.name).1;
        let timed_out = s
            .condition(DeploymentConditionType::Progressing)
            .is_some_and(|c| c.reason == reasons::PROGRESS_DEADLINE_EXCEEDED);
        Ok(if timed_out {
            RolloutStatus::DeadlineExceeded(format!(
                "deployment \"{n}\" exceeded its progress deadline"
            ))
        } else if s.updated_replicas < s.spec_replicas {
            RolloutStatus::Waiting(format!(
                "Waiting for deployment \"{n}\" rollout to finish: {} out of {} new replicas have been updated...",
                s.updated_replicas, s.spec_replicas
            ))
        } else if s.replicas > s.updated_replicas {
            RolloutStatus::Waiting(format!(
                "Waiting for deployment \"{n}\" rollout to finish: {} old replicas are pending termination...",
                s.replicas - s.updated_replicas
            ))
        } else if s.available_replicas < s.updated_replicas {
            RolloutStatus::Waiting(format!(
                "Waiting for deployment \"{n}\" rollout to finish: {} of {} updated replicas are available...",
                s.available_replicas, s.updated_replicas
            ))
        } else {
            RolloutStatus::RolledOut(format!("deployment \"{n}\" successfully rolled out"))
        })
    }
}
