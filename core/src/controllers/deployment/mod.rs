//! The Deployment controller (`pkg/controller/deployment`): replicas,
//! rolling updates over revisions (each revision is a ReplicaSet) and the
//! rollout status.

pub mod rollout;

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::cluster::events::Reason;
use crate::cluster::{Cluster, OwnerId, Pod, PodPhase};

impl Cluster {
    /// Moves one Deployment toward its spec: creates missing pods, deletes
    /// surplus ones and, during a roll, replaces old pods within maxSurge and
    /// maxUnavailable. Returns (created, deleted).
    pub(crate) fn sync_deployment(&mut self, id: OwnerId) -> (u32, u32) {
        if self.controllers[id.0 as usize].deleted {
            return (0, 0);
        }
        // The ReplicaSet controller's pod creations pass the Priority
        // admission plugin; its deletions pass none.
        let admitted = self.priority_admits(id);
        let ctl = &self.controllers[id.0 as usize];
        let replicas = ctl.replicas;
        let cur = ctl.current;
        let total = ctl.total();
        let new = ctl.count(cur);
        let old_pods = total - new.pods;
        let (mut created, mut deleted) = (0, 0);
        if old_pods == 0 {
            if total < replicas && admitted {
                self.create_pods(id, replicas - total);
                created = replicas - total;
            } else if total > replicas {
                deleted = self.delete_surplus(id, total - replicas, |_| true);
            }
            self.check_rollout_complete(id);
            return (created, deleted);
        }
        // A roll whose new pods are refused waits, old pods kept: in
        // Kubernetes the new ReplicaSet is scaled up by maxSurge and its
        // missing pods count as unavailable, so reconcileOldReplicaSets
        // scales the old ones down no further (with maxSurge 0 it first
        // takes maxUnavailable of them, which this does not).
        if !admitted {
            return (0, 0);
        }

        // A roll: Kubernetes' reconcileNewReplicaSet, then reconcileOldReplicaSets.
        // Each ReplicaSet's size is taken as its pods' count, and each
        // change of it is the Deployment controller's ScalingReplicaSet
        // (sync.go, scaleReplicaSet).
        let (surge, unavailable) = ctl.strategy.resolve(replicas);
        let min_available = replicas.saturating_sub(unavailable);
        if new.pods < replicas {
            // maxSurge may be any whole number: saturate rather than wrap.
            let room = replicas.saturating_add(surge).saturating_sub(total);
            let up = room.min(replicas - new.pods);
            if up > 0 {
                // The Deployment controller scales the ReplicaSet up, then
                // the ReplicaSet controller creates the pods.
                self.note_scaling_of(id, cur, new.pods, new.pods + up);
                self.create_pods(id, up);
                created += up;
            }
        } else if new.pods > replicas {
            let victims = self.victims(id, new.pods - replicas, |p| {
                p.revision == cur && p.phase != PodPhase::Lost
            });
            deleted += self.scale_down_rs(id, victims);
        }

        let ctl = &self.controllers[id.0 as usize];
        let total = ctl.total();
        let new = ctl.count(cur);
        // Availability, not readiness: a pod counts once it has been Ready
        // for minReadySeconds (reconcileOldReplicaSets counts
        // AvailableReplicas).
        let available = ctl.available();
        let new_unavailable = new.pods - new.available;
        // Old pods that are not available cost no availability: they go first.
        let max_scaled_down = total
            .saturating_sub(min_available)
            .saturating_sub(new_unavailable);
        let unhealthy = self.pick_old(id, max_scaled_down, false);
        // Then available old pods, as long as availability stays at the minimum.
        let healthy_budget = available
            .saturating_sub(min_available)
            .min(max_scaled_down - unhealthy.len() as u32);
        let healthy = self.pick_old(id, healthy_budget, true);
        // cleanupUnhealthyReplicas, then scaleDownOldReplicaSetsForRollingUpdate:
        // each scales the old ReplicaSets it takes pods from, oldest first,
        // one event for each.
        for batch in [unhealthy, healthy] {
            deleted += self.scale_down_rs(id, batch);
        }
        self.check_rollout_complete(id);
        (created, deleted)
    }

    /// Deletes pods `keys`, ReplicaSet by ReplicaSet (the oldest
    /// revision first), each ReplicaSet's ScalingReplicaSet before
    /// its pods' deletions, as the Deployment controller scales it down
    /// and then its ReplicaSet controller deletes them. Returns how many.
    fn scale_down_rs(&mut self, id: OwnerId, keys: Vec<u32>) -> u32 {
        let mut by_rev: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for k in keys {
            by_rev.entry(self.pod(k).revision).or_default().push(k);
        }
        let mut n = 0;
        for (rev, ks) in by_rev {
            let had = self.controllers[id.0 as usize].count(rev).pods;
            let d = ks.len() as u32;
            self.note_scaling_of(id, rev, had, had - d);
            for k in ks {
                self.delete_pod(k, Some(Reason::SuccessfulDelete));
            }
            n += d;
        }
        n
    }

    /// Up to `n` pods that `accept` takes, in Kubernetes' deletion order:
    /// Pending first, then bound but not Ready, then Ready but not yet
    /// available (Ready for a shorter time), then available; within each,
    /// the highest ordinal (the newest) first.
    fn victims(&self, id: OwnerId, n: u32, accept: impl Fn(&Pod) -> bool) -> Vec<u32> {
        if n == 0 {
            return Vec::new();
        }
        let ctl = &self.controllers[id.0 as usize];
        let n = n as usize;
        let mut out: Vec<u32> = ctl
            .pending
            .iter()
            .rev()
            .map(|o| ctl.pods[&o])
            .filter(|&k| accept(self.pod(k)))
            .take(n)
            .collect();
        for (ready, available) in [(false, false), (true, false), (true, true)] {
            if out.len() >= n {
                break;
            }
            let more: Vec<u32> = ctl
                .pods
                .values()
                .rev()
                .copied()
                .filter(|&k| {
                    let p = self.pod(k);
                    p.node().is_some() && p.ready == ready && p.available == available && accept(p)
                })
                .take(n - out.len())
                .collect();
            out.extend(more);
        }
        out
    }

    /// Up to `n` old-revision pods, available (`available`) or not, in deletion order.
    fn pick_old(&self, id: OwnerId, n: u32, available: bool) -> Vec<u32> {
        let cur = self.controllers[id.0 as usize].current;
        self.victims(id, n, |p| {
            p.revision != cur && p.available == available && p.phase != PodPhase::Lost
        })
    }

    /// Deletes `n` pods of revisions that `rev_ok` accepts, in deletion order.
    fn delete_surplus(&mut self, id: OwnerId, n: u32, rev_ok: impl Fn(u32) -> bool) -> u32 {
        let victims = self.victims(id, n, |p| rev_ok(p.revision) && p.phase != PodPhase::Lost);
        let d = victims.len() as u32;
        for k in victims {
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
        }
        d
    }

    fn check_rollout_complete(&mut self, id: OwnerId) {
        let ctl = &self.controllers[id.0 as usize];
        if !ctl.rolling {
            return;
        }
        let cur = ctl.count(ctl.current);
        // DeploymentComplete: every replica updated and available.
        // Kubernetes records it as the Progressing condition
        // (NewReplicaSetAvailable), not as an Event.
        if ctl.total() == cur.pods && cur.pods == ctl.replicas && cur.available == ctl.replicas {
            self.controllers[id.0 as usize].rolling = false;
        }
    }
}
