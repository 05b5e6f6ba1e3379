//! One reconciliation pass, and the loop that runs passes to a fixed point.

use alloc::borrow::Cow;

use crate::cluster::{Cluster, ControllerId, FixedPoint, ReconcileReport, Workload, PASS_BUDGET};
use crate::scheduler::{OnBind, Profile};

impl Cluster {
    /// One pass, in this order:
    /// 1. pods whose readiness delay has passed become Ready, and Ready pods
    ///    whose minReadySeconds have passed become available;
    /// 2. pods lost with their node are deleted;
    /// 3. drains evict what the disruption budgets allow;
    /// 4. each Deployment, in creation order, creates missing pods and deletes
    ///    surplus ones (rolling within maxSurge and maxUnavailable), then
    ///    records its status and conditions (`rollout.rs`);
    /// 5. the scheduler binds pending pods under `profile`;
    /// 6. services whose pods changed readiness recompute their endpoints.
    ///
    /// Idempotent at a fixed point: a pass that finds nothing to do changes
    /// nothing, not even the event log.
    pub fn reconcile_once<'p>(&mut self, profile: impl Into<Cow<'p, Profile>>) -> ReconcileReport {
        self.pass(&profile.into(), None)
    }

    /// [`Cluster::reconcile_once`], calling `on_bind` after every single bind.
    pub fn reconcile_once_observed<'p>(
        &mut self,
        profile: impl Into<Cow<'p, Profile>>,
        on_bind: &mut OnBind<'_>,
    ) -> ReconcileReport {
        self.pass(&profile.into(), Some(on_bind))
    }

    fn pass(&mut self, profile: &Profile, on_bind: Option<&mut OnBind<'_>>) -> ReconcileReport {
        let mut r = ReconcileReport {
            became_ready: self.promote_ready(),
            became_available: self.promote_available(),
            collected: self.collect_lost(),
            ..Default::default()
        };
        r.evicted = self.progress_drains();
        for c in 0..self.controllers.len() {
            let id = ControllerId(c as u32);
            let (created, deleted) = match self.controllers[c].workload {
                Workload::Deployment => self.sync_deployment(id),
                Workload::DaemonSet(_) => self.sync_daemonset(id),
                Workload::Pod(_) => self.sync_bare_pod(id),
            };
            r.created += created;
            r.deleted += deleted;
            r.timed_out += self.sync_rollout_status(ControllerId(c as u32)) as u32;
        }
        r.bound = self.schedule_pending(profile, on_bind);
        r.preempted = core::mem::take(&mut self.preempted);
        r.endpoints_changed = self.sync_endpoints();
        r.pending = self.pending_total;
        r
    }

    /// Runs passes until one changes nothing, or until [`PASS_BUDGET`] passes
    /// have run; `converged` says which.
    pub fn reconcile_to_fixed_point<'p>(
        &mut self,
        profile: impl Into<Cow<'p, Profile>>,
    ) -> FixedPoint {
        self.fixed_point(&profile.into(), None)
    }

    /// [`Cluster::reconcile_to_fixed_point`], calling `on_bind` after every bind.
    pub fn reconcile_to_fixed_point_observed<'p>(
        &mut self,
        profile: impl Into<Cow<'p, Profile>>,
        on_bind: &mut OnBind<'_>,
    ) -> FixedPoint {
        self.fixed_point(&profile.into(), Some(on_bind))
    }

    fn fixed_point(
        &mut self,
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> FixedPoint {
        let mut fp = FixedPoint::default();
        while fp.passes < PASS_BUDGET {
            let r = self.pass(profile, on_bind.as_deref_mut());
            fp.passes += 1;
            let changed = r.changed();
            fp.total.add(&r);
            if !changed {
                fp.converged = true;
                break;
            }
        }
        fp
    }

    /// Every live Deployment has exactly its desired number of pods, all bound
    /// to nodes and all of the current revision; every DaemonSet one current
    /// pod bound on each eligible node; every bare Pod bound.
    pub fn fully_satisfied(&self) -> bool {
        self.controllers
            .iter()
            .filter(|c| !c.deleted)
            .all(|c| match c.workload {
                Workload::Deployment => {
                    let cur = c.count(c.current);
                    c.total() == c.replicas && cur.pods == c.replicas && cur.bound == c.replicas
                }
                Workload::DaemonSet(_) => self.daemonset_satisfied(c),
                Workload::Pod(_) => c.pending.is_empty(),
            })
    }

    /// Pods not yet bound to a node.
    pub fn pending_count(&self) -> u32 {
        self.pending_total
    }

    /// Pods bound to a node.
    pub fn bound_count(&self) -> u32 {
        self.bound_total
    }
}
