//! The scheduling queue's order and the loop over it (kube-scheduler's
//! `ScheduleOne`, called pod after pod): controllers in queue order,
//! revisions current first, pods of one revision as a batch that shares its
//! plugins' pre-filter and pre-score state; the path each batch takes is
//! chosen here (`fast/` for the paths, `cycle.rs` for the plain cycle).

use crate::scheduler::*;

impl Cluster {
    /// Schedules every pending pod, Deployment by Deployment in creation
    /// order (by highest pending priority first once pods have priorities),
    /// revision by revision (the current one first), lowest ordinal first;
    /// pods left Pending may preempt (`preemption.rs`). Returns the binds.
    pub(crate) fn schedule_pending(
        &mut self,
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> u32 {
        // A reconcile run in slices (`reconcile.rs`) resumes where the last
        // slice stopped, and stops between controllers once the slice's
        // binds are spent.
        let resume = self.slice.resume.take();
        if self.pending_total == 0 {
            return 0;
        }
        let mut bound = 0;
        // PrioritySort (see `preemption.rs`); creation order while no pod
        // has a priority.
        let (queue, start) = resume.unwrap_or_else(|| (self.scheduling_queue(), 0));
        let len = queue.as_ref().map_or(self.controllers.len(), |q| q.len());
        for qi in start..len {
            if bound >= self.slice.budget {
                self.slice.resume = Some((queue, qi));
                return bound;
            }
            let c = queue.as_ref().map_or(qi, |q| q[qi] as usize);
            let ctl = &self.controllers[c];
            if ctl.pending.is_empty() || ctl.deleted {
                continue;
            }
            // A bare Pod with spec.nodeName is its kubelet's, never the
            // scheduler's (Pending only while that node does not exist).
            if matches!(&ctl.workload, crate::cluster::Workload::Pod(b) if b.node_name.is_some()) {
                continue;
            }
            if let Some((cap, bind)) = ctl.blocked {
                let helped = cap != self.capacity_epoch
                    || (bind != self.bind_epoch
                        && (self.controller_depends_on_binds(c) || self.may_preempt(c)));
                if !helped {
                    continue;
                }
            }
            let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for o in &ctl.pending {
                let k = ctl.pods[&o];
                groups.entry(self.pod(k).revision).or_default().push(k);
            }
            let cur = ctl.current;
            let mut order: Vec<u32> = groups.keys().copied().filter(|&r| r != cur).collect();
            if groups.contains_key(&cur) {
                order.insert(0, cur);
            }
            let mut left_pending = false;
            let mut preempted = false;
            for r in order {
                let mut keys = groups.remove(&r).unwrap_or_default();
                self.queue_order(&mut keys);
                bound += self.bind_nominated(&mut keys, profile, on_bind.as_deref_mut());
                if keys.is_empty() {
                    continue;
                }
                let (b, left) = self.schedule_batch(
                    ControllerId(c as u32),
                    r,
                    &keys,
                    profile,
                    on_bind.as_deref_mut(),
                );
                bound += b;
                left_pending |= left;
                // PostFilter: DefaultPreemption for the pods left Pending.
                if left && self.priorities_in_use {
                    preempted |= self.preempt_for(&keys[b as usize..], profile);
                }
            }
            self.controllers[c].blocked = if left_pending && !preempted {
                Some((self.capacity_epoch, self.bind_epoch))
            } else {
                None
            };
            // The room made is the preemptors': the rest of the queue
            // (lower or equal priority) waits for the next pass.
            if preempted {
                break;
            }
        }
        bound
    }

    /// Whether a bind elsewhere can make this controller's blocked pods
    /// schedulable: required pod affinity (a group's pods arrive) and hard
    /// spread constraints (the global minimum rises).
    pub(in crate::scheduler) fn controller_depends_on_binds(&self, c: usize) -> bool {
        self.controllers[c].revisions.iter().any(|r| {
            !r.affinity_ids.is_empty()
                || r.template
                    .topology_spread
                    .iter()
                    .any(|s| s.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
        })
    }

    pub(in crate::scheduler) fn schedule_batch(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        keys: &[u32],
        profile: &Profile,
        on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, bool) {
        // NodeAffinity's PreFilter: a pod pinned to one node by name (a
        // DaemonSet's) is filtered on that node only (scheduler/pinned.rs).
        let pinned =
            self.pinned_node(&self.controllers[c.0 as usize].revisions[rev_no as usize - 1]);
        if let Some(n) = pinned.filter(|_| self.fast_paths.pinned) {
            return self.schedule_pinned(c, rev_no, n, keys, profile, on_bind);
        }
        if !self.fast_paths.cross_batch {
            self.caches = Default::default();
        }
        let mut b = self.new_batch(c, rev_no, profile);
        b.prefiltered = pinned;
        let heap = self.fast_paths.heap && pinned.is_none() && self.heap_path(&b, profile);
        if heap {
            self.index_instead_of_heap(&mut b, keys.len(), profile);
        }
        let (bound, done) = if heap && b.index.is_none() {
            self.schedule_batch_heap(&mut b, keys, profile, on_bind)
        } else {
            self.schedule_batch_cycles(&mut b, keys, profile, on_bind)
        };
        self.file_pods();
        let left = done < keys.len();
        if left {
            self.report_unschedulable(&mut b, &keys[done..], profile);
        }
        self.end_batch(b);
        (bound, left)
    }

    /// Returns the batch's per-node values to the cluster's caches.
    pub(in crate::scheduler) fn end_batch(&mut self, mut b: Batch) {
        self.end_masked(&mut b);
        // An index holding this revision's inter-pod verdicts is the batch's
        // own (`lend_index`): not kept.
        if let Some(mut ix) = b.index.filter(|_| !b.inter_pod_local) {
            for &i in &b.index_dirty {
                ix.stale(i as usize);
            }
            // The batch filed the nodes it bound to at their stamps: the
            // index is true up to now but for its marked and lazy slots.
            // Nothing else stamps a node while a batch holds an index (the
            // next lend checks every fresh slot in debug builds).
            ix.synced = self.stamp_clock;
            self.caches.keep_index(ix);
        }
        let preferred = &b.rev.template.node_affinity.preferred;
        if !preferred.is_empty() {
            self.caches
                .keep_affinity(preferred.clone(), b.na_raw, b.na_mask);
        }
        self.caches
            .give_back(b.static_key, b.static_ok, b.local_key, b.local);
        // The recycled count buffer back, zeroed where it counted (or as
        // the batch got it, when its spreading did not take it).
        let counts = match b.recycled {
            Some(j) => {
                let mut counts = core::mem::take(&mut b.soft[j].per_node);
                for &i in b.holding.iter().flatten().chain(&b.counted) {
                    counts[i as usize] = 0;
                }
                counts
            }
            None => b.counts,
        };
        self.caches.keep_spare(Spare {
            counts,
            counted: b.counted,
            feasible: b.feasible,
            feasible_slots: b.feasible_slots,
            raw: b.raw,
            norm: b.norm,
            totals: b.totals,
            spread_raw: b.spread_raw,
            index_dirty: b.index_dirty,
            ix: b.ix,
        });
    }

    /// Whether pod `k` is named `name` (as `Cluster::pod_name` writes it);
    /// its name is written only when its owner's name starts `name`.
    pub(in crate::scheduler) fn pod_has_name(&self, k: u32, name: &str) -> bool {
        let p = self.pod(k);
        let ctl = &self.controllers[p.controller.0 as usize];
        match ctl.workload {
            crate::cluster::Workload::Pod(_) => ctl.name == name,
            // A generated name (`util/podname.rs`): the owner's name is its
            // prefix; only then is the name built to compare.
            _ => {
                name.strip_prefix(ctl.name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
                    && self.pod_name(p.controller, p.ordinal) == name
            }
        }
    }

    pub(in crate::scheduler) fn bind_observed(
        &mut self,
        k: u32,
        n: NodeId,
        on_bind: &mut Option<&mut OnBind<'_>>,
    ) {
        self.bind(k, n);
        if let Some(f) = on_bind.as_deref_mut() {
            let p = self.pod(k);
            f(self, &self.pod_name(p.controller, p.ordinal), n);
        }
    }

    /// kube-scheduler's cycle, pod by pod.
    pub(in crate::scheduler) fn schedule_batch_cycles(
        &mut self,
        b: &mut Batch,
        keys: &[u32],
        profile: &Profile,
        mut on_bind: Option<&mut OnBind<'_>>,
    ) -> (u32, usize) {
        let mut bound = 0;
        // The cycles' scratch, out of the batch while they run (moving it
        // in and out each cycle copied it).
        let mut x = core::mem::take(&mut b.ix);
        for (i, &k) in keys.iter().enumerate() {
            b.record = on_bind.is_some()
                && self
                    .record_for
                    .as_deref()
                    .is_none_or(|name| self.pod_has_name(k, name));
            b.pods_left = keys.len() - i;
            match self.cycle(b, &mut x, profile) {
                Some(n) => {
                    // Unobserved, a bind leaves its node's list to the
                    // batch's end (see `Cluster::unfiled`).
                    if on_bind.is_some() {
                        self.bind_observed(k, n, &mut on_bind);
                    } else {
                        self.bind_unfiled(k, n);
                    }
                    self.spread_bound(b, n);
                    self.index_bound(b, n, profile);
                    bound += 1;
                }
                None => {
                    b.ix = x;
                    return (bound, i);
                }
            }
        }
        b.ix = x;
        (bound, keys.len())
    }
}
