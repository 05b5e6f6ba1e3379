//! One reconciliation pass, and the loop that runs passes to a fixed point.

use alloc::borrow::Cow;

use crate::cluster::{Cluster, FixedPoint, OwnerId, ReconcileReport, Workload, PASS_BUDGET};
use crate::scheduler::{Explanation, OnBind, Profile};
use crate::Error;
use alloc::string::String;

impl Cluster {
    /// One pass, in this order:
    /// 1. pods whose readiness delay has passed become Ready, and Ready pods
    ///    whose minReadySeconds have passed become available;
    /// 2. pods lost with their node are deleted;
    /// 3. drains evict what the disruption budgets allow;
    /// 4. each Deployment, in creation order, creates missing pods and deletes
    ///    surplus ones (rolling within maxSurge and maxUnavailable), then
    ///    records its status and conditions (`controllers/deployment/rollout.rs`);
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
        let mut r = self.pass_start();
        let all = self.controllers.len();
        self.sync_controllers(&mut r, 0, all, u32::MAX);
        r.bound = self.schedule_pending(profile, on_bind);
        self.pass_end(&mut r);
        r
    }

    /// Steps 1-3 of a pass.
    fn pass_start(&mut self) -> ReconcileReport {
        let mut r = ReconcileReport {
            became_ready: self.promote_ready(),
            became_available: self.promote_available(),
            collected: self.collect_lost(),
            ..Default::default()
        };
        r.evicted = self.progress_drains();
        r
    }

    /// Step 4 for controllers `from..to`, in creation order, stopping before
    /// the next controller once `budget` pods were created or deleted: the
    /// controller to resume at, or `None` when all were synced.
    fn sync_controllers(
        &mut self,
        r: &mut ReconcileReport,
        from: usize,
        to: usize,
        budget: u32,
    ) -> Option<usize> {
        let mut spent = 0u32;
        for c in from..to {
            if spent >= budget {
                return Some(c);
            }
            let id = OwnerId(c as u32);
            // A Deployment whose last sync changed nothing, and whose
            // inputs have not changed since: this sync would be the same
            // no-op (`Cluster::quiet_key`).
            if let Some(k) = &self.controllers[c].quiet {
                if self.still_quiet(id, k) {
                    continue;
                }
            }
            let (created, deleted) = match self.controllers[c].workload {
                Workload::Deployment => self.sync_deployment(id),
                Workload::DaemonSet(_) => self.sync_daemonset(id),
                Workload::Pod(_) => self.sync_bare_pod(id),
            };
            r.created += created;
            r.deleted += deleted;
            spent = spent.saturating_add(created).saturating_add(deleted);
            r.timed_out += self.sync_rollout_status(OwnerId(c as u32)) as u32;
            let quiet = if created == 0 && deleted == 0 {
                self.quiet_key(id)
            } else {
                None
            };
            self.controllers[c].quiet = quiet;
        }
        None
    }

    /// What a pass does after the scheduler: preemption's count, step 6,
    /// and the pods left Pending.
    fn pass_end(&mut self, r: &mut ReconcileReport) {
        r.preempted = core::mem::take(&mut self.preempted);
        r.endpoints_changed = self.sync_endpoints();
        r.pending = self.pending_total;
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

    /// [`Cluster::reconcile_to_fixed_point`], watching the scheduler for the
    /// binds of `pod` (`namespace/name`, or a name in `default`): also
    /// returns the cycle of its last bind in this call, as of that bind
    /// ([`Cluster::explain_decision`]: the cluster as the cycle saw it, the
    /// nodes it scored, the node it chose), or `None` if nothing bound it.
    /// The placements are those `reconcile_to_fixed_point` makes.
    pub fn reconcile_to_fixed_point_deciding(
        &mut self,
        profile: &Profile,
        pod: &str,
    ) -> (FixedPoint, Option<Result<Explanation, Error>>) {
        let pod = crate::model::namespace::canonical(pod);
        let mut decision = None;
        self.record_for = Some(String::from(pod));
        let mut watch = |c: &Cluster, name: &str, n: crate::NodeId| {
            if name == pod {
                debug_assert_eq!(
                    c.last_cycle().chosen,
                    Some(n),
                    "every bind records its cycle"
                );
                decision = Some(c.explain_decision(name, profile, c.last_cycle()));
            }
        };
        let fp = self.fixed_point(profile, Some(&mut watch));
        self.record_for = None;
        (fp, decision)
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

    /// [`Cluster::reconcile_to_fixed_point`] in slices: runs the reconcile
    /// that `state` holds on until about `budget` units of work were done,
    /// a pod created or deleted counting one and a pod bound
    /// [`BIND_COST`] (at least one controller is synced or scheduled per
    /// call, so every call makes progress), and returns whether the fixed
    /// point (or [`PASS_BUDGET`]) was reached; `state.fixed_point()` is then
    /// what the whole call returns.
    ///
    /// A slice stops only between two controllers, in the controllers'
    /// step or in the scheduler's (`schedule_pending`), and the next slice
    /// resumes exactly there. So, as long as nothing else changes the
    /// cluster between slices (no event, no other reconcile), the slices
    /// make exactly the binds, events and PRNG draws of the whole call, in
    /// the same order (tests/sliced.rs).
    pub fn reconcile_slice(
        &mut self,
        profile: &Profile,
        state: &mut Reconciling,
        budget: u32,
    ) -> bool {
        let budget = budget.max(1);
        let mut spent = 0u32;
        loop {
            if state.done {
                return true;
            }
            let (mut r, stage) = match state.pass.take() {
                Some(p) => p,
                None => {
                    let all = self.controllers.len();
                    (self.pass_start(), Stage::Controllers { next: 0, all })
                }
            };
            if let Stage::Controllers { next, all } = stage {
                let before = r.created.saturating_add(r.deleted);
                let stop = self.sync_controllers(&mut r, next, all, budget - spent);
                spent = spent.saturating_add(r.created.saturating_add(r.deleted) - before);
                if let Some(next) = stop {
                    state.pass = Some((r, Stage::Controllers { next, all }));
                    return false;
                }
                if spent >= budget {
                    state.pass = Some((r, Stage::Schedule));
                    return false;
                }
            }
            // The scheduler resumes where it stopped (`self.slice.resume`),
            // or starts afresh when the last slice stopped before it.
            self.slice.budget = ((budget - spent) / BIND_COST).max(1);
            let bound = self.schedule_pending(profile, None);
            self.slice.budget = u32::MAX;
            r.bound += bound;
            spent = spent.saturating_add(bound.saturating_mul(BIND_COST));
            if self.slice.resume.is_some() {
                state.pass = Some((r, Stage::Schedule));
                return false;
            }
            self.pass_end(&mut r);
            let fp = &mut state.fp;
            fp.passes += 1;
            let changed = r.changed();
            fp.total.add(&r);
            if !changed {
                fp.converged = true;
            }
            if !changed || fp.passes >= PASS_BUDGET {
                state.done = true;
                return true;
            }
            if spent >= budget {
                return false;
            }
        }
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

/// What binding a pod counts against a slice's budget, where creating or
/// deleting one counts 1: the ratio of their times, so that a budget is
/// about the same time whichever step a slice is in (docs/speed-history.md, "Comments' measurements").
pub const BIND_COST: u32 = 3;

/// A reconcile to a fixed point run in slices ([`Cluster::reconcile_slice`]):
/// the passes done so far and where the pass under way stopped.
#[derive(Clone, Debug, Default)]
pub struct Reconciling {
    fp: FixedPoint,
    /// The pass under way when the last slice stopped inside it: its report
    /// so far and the step it stopped in.
    pass: Option<(ReconcileReport, Stage)>,
    done: bool,
}

impl Reconciling {
    /// What the passes did so far; the whole reconcile's result once done.
    pub fn fixed_point(&self) -> &FixedPoint {
        &self.fp
    }

    /// Pods bound so far, the pass under way included.
    pub fn bound(&self) -> u32 {
        self.fp.total.bound + self.pass.as_ref().map_or(0, |(r, _)| r.bound)
    }

    /// Whether the fixed point (or the pass budget) was reached.
    pub fn done(&self) -> bool {
        self.done
    }
}

/// Where a pass stopped between slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// In step 4: the controller to sync next, of the `all` there were when
    /// the pass began.
    Controllers { next: usize, all: usize },
    /// In the scheduler (or just before it).
    Schedule,
}

/// The scheduler's side of a reconcile run in slices (`Cluster::slice`).
#[derive(Clone, Debug)]
pub(crate) struct SliceState {
    /// Binds `schedule_pending` may make before it stops between two
    /// controllers; `u32::MAX` outside a slice.
    pub(crate) budget: u32,
    /// Where it stopped: its scheduling queue and the queue position to
    /// resume at. Taken by the next call.
    pub(crate) resume: Option<(Option<alloc::vec::Vec<u32>>, usize)>,
}

impl Default for SliceState {
    fn default() -> Self {
        SliceState {
            budget: u32::MAX,
            resume: None,
        }
    }
}
