//! Controllers: Deployments (replicas and rolling updates), disruption
//! (PodDisruptionBudgets, the eviction call, drains) and endpoints.
//!
//! Each works from the cluster's incremental counts; none scans every pod.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, ControllerId, NodeId, Pod, PodPhase, ServiceState};
use crate::error::Error;
use crate::events::Reason;
use crate::model::{Budget, IntOrPercent, PdbSpec, ServiceSpec};

/// How long `kubectl drain` waits before it tries again an eviction a budget
/// refused (429): 5 s (k8s.io/kubectl/pkg/drain, evictPods), in ticks.
pub const DRAIN_RETRY_TICKS: u64 = 5;

/// A drain in progress: what `kubectl drain` listed and still waits for.
#[derive(Clone, Debug, Default)]
pub(crate) struct Drain {
    /// The pods listed, in name order, each until it is gone.
    pods: Vec<Listed>,
    /// Evictions refused other than by a budget's 429 (a pod two budgets
    /// select: 500): kubectl does not retry them, and the drain ends in error.
    errors: Vec<String>,
    /// The cluster's `disruption_epoch` when every pod tried last was
    /// refused (0: not so): until it moves, a retry would be refused alike,
    /// so the retry is scheduled without asking the budgets again.
    refused_epoch: u64,
}

/// A pod a drain listed: its key and uid (the key may be reused once it is
/// gone), its order, and the tick of its next eviction attempt.
#[derive(Clone, Copy, Debug)]
struct Listed {
    key: u32,
    uid: u64,
    order: (ControllerId, u32),
    at: u64,
}

/// "a, b, c" or "a, b, c and 4 more": at most five names.
fn summary(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// A PodDisruptionBudget's status, as Kubernetes reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdbStatus {
    pub name: String,
    pub selector: String,
    /// Pods the owning Deployments want (the sum of their replicas).
    pub expected_pods: u32,
    pub current_healthy: u32,
    pub desired_healthy: u32,
    pub disruptions_allowed: u32,
}

impl Cluster {
    // ----- Deployments -----------------------------------------------------

    /// Deletes the pods that were lost with their node.
    pub(crate) fn collect_lost(&mut self) -> u32 {
        // Every Lost pod is collected below, so none is left until another
        // node's pods are marked (`lose_pods`).
        if !core::mem::take(&mut self.lost_marked) {
            debug_assert!((0..self.controllers.len()).all(|c| self.lost_of(c).is_empty()));
            return 0;
        }
        let mut n = 0;
        for c in 0..self.controllers.len() {
            for k in self.lost_of(c) {
                self.delete_pod(k, None);
                n += 1;
            }
        }
        n
    }

    /// Controller `c`'s Lost pods.
    fn lost_of(&self, c: usize) -> Vec<u32> {
        // Lost pods are unbound and not pending: pods - bound - pending.
        let ctl = &self.controllers[c];
        let unbound: u32 = ctl.counts.values().map(|x| x.pods - x.bound).sum();
        if unbound == ctl.pending.len() as u32 {
            return Vec::new();
        }
        ctl.pods
            .values()
            .copied()
            .filter(|&k| self.pod(k).phase == PodPhase::Lost)
            .collect()
    }

    /// Moves one Deployment toward its spec: creates missing pods, deletes
    /// surplus ones and, during a roll, replaces old pods within maxSurge and
    /// maxUnavailable. Returns (created, deleted).
    pub(crate) fn sync_deployment(&mut self, id: ControllerId) -> (u32, u32) {
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
    fn scale_down_rs(&mut self, id: ControllerId, keys: Vec<u32>) -> u32 {
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
    fn victims(&self, id: ControllerId, n: u32, accept: impl Fn(&Pod) -> bool) -> Vec<u32> {
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
    fn pick_old(&self, id: ControllerId, n: u32, available: bool) -> Vec<u32> {
        let cur = self.controllers[id.0 as usize].current;
        self.victims(id, n, |p| {
            p.revision != cur && p.available == available && p.phase != PodPhase::Lost
        })
    }

    /// Deletes `n` pods of revisions that `rev_ok` accepts, in deletion order.
    fn delete_surplus(&mut self, id: ControllerId, n: u32, rev_ok: impl Fn(u32) -> bool) -> u32 {
        let victims = self.victims(id, n, |p| rev_ok(p.revision) && p.phase != PodPhase::Lost);
        let d = victims.len() as u32;
        for k in victims {
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
        }
        d
    }

    fn check_rollout_complete(&mut self, id: ControllerId) {
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

    // ----- PodDisruptionBudgets and eviction ---------------------------------

    /// Adds (or replaces) a PodDisruptionBudget.
    pub fn add_pdb(&mut self, mut spec: PdbSpec) -> Result<(), Error> {
        spec.validate()?;
        // A budget selects the pods of its own namespace (namespace.rs).
        self.use_namespace(&spec.name);
        spec.selector =
            crate::namespace::own_namespace(&spec.selector, crate::namespace::split(&spec.name).0);
        let name = spec.name.clone();
        // Creating it is an API call: no Event.
        self.disruption_epoch += 1;
        self.pdbs.insert(name, spec);
        Ok(())
    }

    pub fn delete_pdb(&mut self, name: &str) -> Result<(), Error> {
        self.disruption_epoch += 1;
        self.pdbs
            .remove(crate::namespace::canonical(name))
            .map(|_| ())
            .ok_or_else(|| Error::not_found("PodDisruptionBudget", name))
    }

    /// A budget's status, computed from the Deployments' counts, as
    /// Kubernetes' disruption controller computes it (getExpectedPodCount in
    /// pkg/controller/disruption/disruption.go): healthy pods are Ready pods
    /// matching the selector. For an integer minAvailable the expected count
    /// is the number of pods the selector matches (Pending ones included) and
    /// desiredHealthy is the integer itself. For a percentage minAvailable and
    /// for maxUnavailable it is the scale of the controllers of the matching
    /// pods: the replicas of every Deployment that has a pod matching the
    /// selector now, or whose current template matches it (a Deployment whose
    /// pods were all rolled away from the selector no longer counts, while
    /// one whose last pod was just evicted still does: its replacement is
    /// created at once); percentages round up, as Kubernetes does for budgets.
    pub fn pdb_status(&self, name: &str) -> Result<PdbStatus, Error> {
        let spec = self
            .pdbs
            .get(crate::namespace::canonical(name))
            .ok_or_else(|| Error::not_found("PodDisruptionBudget", name))?;
        let mut expected = 0u32;
        let mut matching = 0u32;
        let mut healthy = 0u32;
        for ctl in self.controllers.iter().filter(|c| !c.deleted) {
            let mut owns = false;
            for (i, r) in ctl.revisions.iter().enumerate() {
                let rev = i as u32 + 1;
                let n = ctl.count(rev);
                if !spec.selector.matches(&r.template.labels) {
                    continue;
                }
                healthy = healthy.saturating_add(n.ready);
                matching = matching.saturating_add(n.pods);
                // The current template's pods are (or are about to be)
                // there: a pod evicted a moment ago is replaced from it.
                if n.pods > 0 || rev == ctl.current {
                    owns = true;
                }
            }
            if owns {
                expected = expected.saturating_add(ctl.replicas);
            }
        }
        let desired = match spec.budget {
            Budget::MinAvailable(IntOrPercent::Int(v)) => {
                expected = matching;
                v
            }
            Budget::MinAvailable(v) => v.scaled(expected, true),
            Budget::MaxUnavailable(v) => expected.saturating_sub(v.scaled(expected, true)),
        };
        Ok(PdbStatus {
            name: name.to_string(),
            selector: format!("{}", spec.selector),
            expected_pods: expected,
            current_healthy: healthy,
            desired_healthy: desired,
            disruptions_allowed: healthy.saturating_sub(desired),
        })
    }

    pub fn pdb_names(&self) -> Vec<String> {
        self.pdbs.keys().cloned().collect()
    }

    /// The eviction call: a voluntary disruption that every matching budget must
    /// allow. A Ready pod needs disruptionsAllowed >= 1; a pod that is not Ready
    /// costs no availability and may go while the budget is met (Kubernetes'
    /// IfHealthyBudget). Refused with the budget's reason otherwise, changing
    /// nothing.
    pub fn evict(&mut self, pod: &str) -> Result<(), Error> {
        let k = self.pod_key(pod)?;
        self.evict_key(k, pod)
    }

    /// [`Cluster::evict`] of the pod at key `k`, named `pod`.
    fn evict_key(&mut self, k: u32, pod: &str) -> Result<(), Error> {
        self.check_eviction(k, pod)?;
        // The eviction subresource deletes the pod and records no Event
        // (pkg/registry/core/pod/storage/eviction.go); the kubelet logs
        // Killing as it stops it. Who was evicted is the simulator's
        // record (`Cluster::watch_api`), not the event log's.
        if self.api_watched() {
            let (tick, at) = (self.now, self.watched.as_ref().map_or(0, Vec::len));
            self.api_record(crate::cluster::ApiRecord::Evicted {
                tick,
                pod: String::from(pod),
                at,
            });
        }
        self.delete_pod(k, None);
        Ok(())
    }

    /// Kubernetes' eviction subresource (pkg/registry/core/pod/storage/
    /// eviction.go): a Pending pod is deleted without consulting budgets; a
    /// pod that more than one budget selects is refused whatever they allow;
    /// otherwise its one budget decides. A pod that is not Ready may go while
    /// the budget is met and wants at least one healthy pod (IfHealthyBudget);
    /// else, Ready or not, it needs disruptionsAllowed >= 1.
    fn check_eviction(&self, k: u32, pod: &str) -> Result<(), Error> {
        if self.pdbs.is_empty() {
            return Ok(());
        }
        let p = self.pod(k);
        if p.node().is_none() {
            return Ok(());
        }
        let labels = &self.revision_of(p).template.labels;
        let mut covering = self
            .pdbs
            .iter()
            .filter(|(_, spec)| spec.selector.matches(labels))
            .map(|(name, _)| name);
        let Some(name) = covering.next() else {
            return Ok(());
        };
        if let Some(second) = covering.next() {
            let mut pdbs = alloc::vec![name.clone(), second.clone()];
            pdbs.extend(covering.cloned());
            return Err(Error::MultipleDisruptionBudgets {
                pod: pod.to_string(),
                pdbs,
            });
        }
        let st = self.pdb_status(name)?;
        let unready_may_go =
            !p.ready && st.desired_healthy > 0 && st.current_healthy >= st.desired_healthy;
        if unready_may_go || st.disruptions_allowed > 0 {
            return Ok(());
        }
        Err(Error::DisruptionBudget {
            pod: pod.to_string(),
            pdb: name.clone(),
            message: format!(
                "{} healthy pods, {} needed, {} disruptions allowed",
                st.current_healthy, st.desired_healthy, st.disruptions_allowed
            ),
        })
    }

    /// `kubectl drain NODE --ignore-daemonsets --force`
    /// (k8s.io/kubectl/pkg/drain): cordons the node, then lists the pods
    /// bound to it once (GetPodsForDeletion: DaemonSet pods are left, with
    /// kubectl's warning; pods without a controller are evicted, as `--force`
    /// allows), and from the next pass on evicts those pods through the
    /// eviction call. A refusal by a budget (429) is retried 5 s later; any
    /// other refusal ends that pod's part with an error. The drain ends when
    /// every listed pod is gone: kubectl prints `node/NAME drained` (no
    /// event: Kubernetes emits none). A pod created after the listing is not
    /// evicted, even on this node (one that tolerates the unschedulable
    /// taint may land here again). Drained again, the node's pods are listed
    /// again, as a second `kubectl drain` would list them.
    pub fn drain(&mut self, name: &str) -> Result<(), Error> {
        let id = self.node_id(name)?;
        self.cordon(name)?;
        let i = id.0 as usize;
        let mut listed: Vec<Listed> = Vec::new();
        let (mut daemons, mut bare) = (Vec::new(), Vec::new());
        for &k in &self.node_pods[i] {
            let p = self.pod(k);
            let full = || crate::namespace::full_name(&self.pod_name(p.controller, p.ordinal));
            match self.controllers[p.controller.0 as usize].workload {
                crate::cluster::Workload::DaemonSet(_) => {
                    daemons.push(full());
                    continue;
                }
                crate::cluster::Workload::Pod(_) => bare.push(full()),
                crate::cluster::Workload::Deployment => {}
            }
            listed.push(Listed {
                key: k,
                uid: p.uid,
                order: (p.controller, p.ordinal),
                at: self.now,
            });
        }
        // Lowest pod name first, for a deterministic order.
        listed.sort_by_key(|l| l.order);
        let mut d = self.nodes[i].drain.take().unwrap_or_default();
        for l in listed {
            if !d.pods.iter().any(|x| x.uid == l.uid) {
                d.pods.push(l);
            }
        }
        // kubectl's WARNING line (PodDeleteList.Warnings).
        let mut warn = Vec::new();
        if !daemons.is_empty() {
            warn.push(format!(
                "ignoring DaemonSet-managed Pods: {}",
                summary(&daemons)
            ));
        }
        if !bare.is_empty() {
            warn.push(format!(
                "deleting Pods that declare no controller: {}",
                summary(&bare)
            ));
        }
        self.nodes[i].drain_status = Some(if warn.is_empty() {
            format!("node/{name} cordoned")
        } else {
            format!("node/{name} cordoned; WARNING: {}", warn.join("; "))
        });
        self.nodes[i].drain = Some(d);
        self.drains.entry(self.now).or_default().insert(id);
        Ok(())
    }

    /// The drains whose next attempt is due: each evicts its listed pods
    /// that are due, as the budgets allow. Returns the pods evicted.
    ///
    /// A drain costs its listed pods at their attempts, not every pass: a
    /// refused pod is tried again 5 ticks later (kubectl's retry interval),
    /// and within one round a budget that refused a pod refuses the next pod
    /// it covers without being recomputed (an eviction only lowers its
    /// healthy count, so a refusal stands for the rest of the round).
    pub(crate) fn progress_drains(&mut self) -> u32 {
        let now = self.now;
        if self.drains.first_key_value().is_none_or(|(t, _)| *t > now) {
            return 0;
        }
        let mut due: alloc::collections::BTreeSet<NodeId> = Default::default();
        while let Some(e) = self.drains.first_entry() {
            if *e.key() > now {
                break;
            }
            due.extend(e.remove());
        }
        let mut evicted = 0;
        // (budget, whether the refused pod was Ready, the budget's reason)
        let mut refused: Vec<(String, bool, String)> = Vec::new();
        for id in due {
            let i = id.0 as usize;
            if self.nodes[i].removed {
                self.nodes[i].drain = None;
                continue;
            }
            // Ended by an uncordon, or already visited (due twice).
            let Some(mut d) = self.nodes[i].drain.take() else {
                continue;
            };
            // Nothing that could let an eviction through has happened since
            // every pod was refused: each due retry is refused again (and
            // changes nothing), so it only moves on by the retry interval.
            if d.refused_epoch == self.disruption_epoch {
                for l in d.pods.iter_mut().filter(|l| l.at <= now) {
                    l.at = now + DRAIN_RETRY_TICKS;
                }
                let next = d.pods.iter().map(|l| l.at).min().unwrap_or(now);
                self.nodes[i].drain = Some(d);
                self.drains.entry(next).or_default().insert(id);
                continue;
            }
            let mut left = Vec::with_capacity(d.pods.len());
            let mut waiting = None;
            let (mut tried, mut went) = (0u32, 0u32);
            for mut l in core::mem::take(&mut d.pods) {
                if l.at > now {
                    left.push(l);
                    continue;
                }
                // NotFound: deleted, evicted or lost since (its key may hold
                // another pod now): done, as kubectl's wait for it is.
                if self.pods[l.key as usize]
                    .as_ref()
                    .is_none_or(|p| p.uid != l.uid)
                {
                    continue;
                }
                let p = self.pod(l.key);
                let name = self.pod_name(p.controller, p.ordinal);
                let known = if p.node().is_some() && !refused.is_empty() {
                    let labels = &self.revision_of(p).template.labels;
                    refused.iter().find(|(pdb, ready, _)| {
                        *ready == p.ready
                            && self
                                .pdbs
                                .get(pdb)
                                .is_some_and(|s| s.selector.matches(labels))
                    })
                } else {
                    None
                };
                let result = match known {
                    Some((pdb, _, message)) => Err(Error::DisruptionBudget {
                        pod: name.clone(),
                        pdb: pdb.clone(),
                        message: message.clone(),
                    }),
                    None => {
                        let ready = p.ready;
                        let r = self.evict_key(l.key, &name);
                        if let Err(Error::DisruptionBudget { pdb, message, .. }) = &r {
                            refused.push((pdb.clone(), ready, message.clone()));
                        }
                        r
                    }
                };
                let (ns, short) = crate::namespace::split(&name);
                tried += 1;
                match result {
                    Ok(()) => {
                        evicted += 1;
                        went += 1;
                    }
                    // 429: kubectl sleeps 5 s and tries again.
                    Err(e @ Error::DisruptionBudget { .. }) => {
                        waiting.get_or_insert_with(|| {
                            format!(
                                "error when evicting pods/\"{short}\" -n \"{ns}\" (will retry after {DRAIN_RETRY_TICKS}s): {e}"
                            )
                        });
                        l.at = now + DRAIN_RETRY_TICKS;
                        left.push(l);
                    }
                    // Anything else ends this pod's part with an error.
                    Err(e) => d.errors.push(format!(
                        "error when evicting pods/\"{short}\" -n \"{ns}\": {e}"
                    )),
                }
            }
            let node_name = self.nodes[i].spec.name.clone();
            if left.is_empty() {
                self.nodes[i].drain_status = Some(if d.errors.is_empty() {
                    format!("node/{node_name} drained")
                } else {
                    format!(
                        "error: unable to drain node \"{node_name}\": {}",
                        d.errors.join("; ")
                    )
                });
                continue;
            }
            if let Some(w) = waiting {
                self.nodes[i].drain_status = Some(w);
            }
            d.refused_epoch = if tried > 0 && went == 0 && d.errors.is_empty() {
                self.disruption_epoch
            } else {
                0
            };
            let next = left.iter().map(|l| l.at).min().unwrap_or(now);
            d.pods = left;
            self.nodes[i].drain = Some(d);
            self.drains.entry(next).or_default().insert(id);
        }
        evicted
    }

    // ----- Services --------------------------------------------------------

    /// Adds (or replaces) a Service; its endpoints follow at the next pass.
    /// At most [`crate::limits::MAX_SERVICES`] Services exist at once.
    pub fn add_service(&mut self, mut spec: ServiceSpec) -> Result<(), Error> {
        spec.validate()?;
        let max = crate::limits::MAX_SERVICES;
        let key = crate::namespace::canonical(&spec.name);
        if self.services.len() >= max && !self.services.contains_key(key) {
            return Err(Error::Invalid(format!(
                "Service {}: the cluster already has {} Services, the limit (MAX_SERVICES, Kubernetes' scalability threshold of 10,000 Services a cluster); expected a Service deleted first",
                crate::limits::shown(&spec.name),
                self.services.len()
            )));
        }
        // A Service selects the pods of its own namespace (namespace.rs).
        self.use_namespace(&spec.name);
        spec.selector =
            crate::namespace::own_namespace(&spec.selector, crate::namespace::split(&spec.name).0);
        let name = spec.name.clone();
        if let Some(old) = self.services.remove(&name) {
            self.service_books.unfile(&name, &old.spec);
        }
        self.service_books.file(&name, &spec);
        self.services.insert(name, ServiceState { spec, ready: 0 });
        Ok(())
    }

    pub fn delete_service(&mut self, name: &str) -> Result<(), Error> {
        let key = crate::namespace::canonical(name);
        let old = self
            .services
            .remove(key)
            .ok_or_else(|| Error::not_found("Service", name))?;
        self.service_books.unfile(key, &old.spec);
        Ok(())
    }

    /// Pod `k`'s Ready condition became `ready`: a change the next sync
    /// reads (only while a Service exists; a Service added later reads the
    /// pods as they are then).
    pub(crate) fn endpoint_moved(&mut self, k: u32, ready: bool) {
        if self.services.is_empty() {
            return;
        }
        let p = self.pod(k);
        let m = Move {
            owner: p.controller,
            ordinal: p.ordinal,
            revision: p.revision,
            ready,
        };
        self.service_books.journal.push(m);
    }

    /// The (owner, revision) pairs `sel` selects, owners in creation order:
    /// the revisions carrying the selector's first matchLabels pair, each
    /// matched whole. Deleted owners select nothing.
    fn selected_revisions(&self, sel: &crate::model::Selector) -> Vec<(u32, u32)> {
        let first = sel.match_labels.iter().next();
        let candidates: &[(u32, u32)] = match first {
            Some((k, v)) => self
                .revisions_by_label
                .get(&crate::cluster::label_hash(k, v))
                .map_or(&[], |v| v.as_slice()),
            None => &self.all_revisions,
        };
        let mut out: Vec<(u32, u32)> = candidates
            .iter()
            .filter(|&&(c, r)| {
                let ctl = &self.controllers[c as usize];
                !ctl.deleted && sel.matches(&ctl.revisions[r as usize].template.labels)
            })
            .map(|&(c, r)| (c, r + 1))
            .collect();
        out.sort_unstable();
        out
    }

    /// The endpoints of a Service with selector `sel` now: the Ready pods it
    /// selects, as (owner, ordinal), owners in creation order, ordinals
    /// ascending.
    pub(crate) fn endpoints_of(&self, sel: &crate::model::Selector) -> Vec<(ControllerId, u32)> {
        let revs = self.selected_revisions(sel);
        let mut out = Vec::new();
        for group in revs.chunk_by(|a, b| a.0 == b.0) {
            let c = group[0].0;
            let ctl = &self.controllers[c as usize];
            if group.iter().all(|&(_, r)| ctl.count(r).ready == 0) {
                continue;
            }
            for (o, k) in ctl.pods.iter() {
                let p = self.pod(k);
                if p.ready && group.iter().any(|&(_, r)| r == p.revision) {
                    out.push((ControllerId(c), o));
                }
            }
        }
        out
    }

    /// How many endpoints a Service with selector `sel` has now, from the
    /// owners' counts.
    fn endpoint_count(&self, sel: &crate::model::Selector) -> u32 {
        self.selected_revisions(sel)
            .iter()
            .map(|&(c, r)| self.controllers[c as usize].count(r).ready)
            .sum()
    }

    /// The endpoints controller's step at the end of a pass: each Service
    /// whose endpoints changed since the last sync is counted and, for a
    /// test that watches the API, told with its count and what was added
    /// and removed (Kubernetes records no Event for it).
    /// The pods' readiness changes are read once, grouped by owner and by
    /// (revision before, revision after): a Service costs the groups of
    /// the owners it selects, not their pods; a Service added since the
    /// last sync is read whole (its endpoints were none). Returns how many
    /// Services changed.
    pub(crate) fn sync_endpoints(&mut self) -> u32 {
        let mut journal = core::mem::take(&mut self.service_books.journal);
        let fresh = core::mem::take(&mut self.service_books.fresh);
        if self.services.is_empty() || (journal.is_empty() && fresh.is_empty()) {
            journal.clear();
            self.service_books.journal = journal;
            return 0;
        }
        let mut deltas: BTreeMap<String, Delta> = BTreeMap::new();
        // Each pod's change since the last sync: Ready (with its revision)
        // at the first move's start and at the last move's end. The
        // journal is in time order; a stable sort keeps it within a pod.
        journal.sort_by_key(|m| (m.owner.0, m.ordinal));
        let mut changes: Vec<(u32, u32, Option<u32>, Option<u32>)> = Vec::new();
        for pod in journal.chunk_by(|a, b| (a.owner, a.ordinal) == (b.owner, b.ordinal)) {
            let (first, last) = (pod[0], pod[pod.len() - 1]);
            let before = (!first.ready).then_some(first.revision);
            let after = last.ready.then_some(last.revision);
            if before != after {
                changes.push((first.owner.0, first.ordinal, before, after));
            }
        }
        journal.clear();
        self.service_books.journal = journal;
        for owner in changes.chunk_by(|a, b| a.0 == b.0) {
            let c = owner[0].0;
            // (before, after) classes, each with its count and its first
            // ordinals.
            let mut classes: Vec<Class> = Vec::new();
            for &(_, o, before, after) in owner {
                let i = match classes
                    .iter()
                    .position(|k| (k.before, k.after) == (before, after))
                {
                    Some(i) => i,
                    None => {
                        classes.push(Class {
                            before,
                            after,
                            count: 0,
                            first: Vec::new(),
                        });
                        classes.len() - 1
                    }
                };
                let k = &mut classes[i];
                k.count += 1;
                if k.first.len() < SHOWN {
                    k.first.push(o);
                }
            }
            let ctl = &self.controllers[c as usize];
            let mut revs: Vec<u32> = classes
                .iter()
                .flat_map(|k| k.before.into_iter().chain(k.after))
                .collect();
            revs.sort_unstable();
            revs.dedup();
            // The Services filed under a pair one of these templates carries.
            let mut names: Vec<&String> = Vec::new();
            for &r in &revs {
                for pair in ctl.revisions[r as usize - 1].template.labels.iter() {
                    let key = (pair.0.clone(), pair.1.clone());
                    if let Some(filed) = self.service_books.by_label.get(&key) {
                        names.extend(filed.iter());
                    }
                }
            }
            names.sort_unstable();
            names.dedup();
            for name in names {
                if fresh.binary_search(name).is_ok() {
                    continue;
                }
                let sel = &self.services[name].spec.selector;
                let picks = |r: Option<u32>| {
                    r.is_some_and(|r| sel.matches(&ctl.revisions[r as usize - 1].template.labels))
                };
                let mut added: Vec<u32> = Vec::new();
                let mut removed: Vec<u32> = Vec::new();
                let (mut n_added, mut n_removed) = (0, 0);
                for k in &classes {
                    match (picks(k.before), picks(k.after)) {
                        (false, true) => {
                            n_added += k.count;
                            added.extend(&k.first);
                        }
                        (true, false) => {
                            n_removed += k.count;
                            removed.extend(&k.first);
                        }
                        _ => {}
                    }
                }
                if n_added + n_removed == 0 {
                    continue;
                }
                let d = deltas.entry(name.clone()).or_default();
                d.add(ControllerId(c), n_added, added, n_removed, removed);
            }
        }
        // A Service added since the last sync: every endpoint it has now
        // is new.
        for name in &fresh {
            let Some(s) = self.services.get(name) else {
                continue;
            };
            let (n, eps) = self.first_endpoints(&s.spec.selector, SHOWN);
            let d = deltas.entry(name.clone()).or_default();
            *d = Delta::default();
            d.fresh = true;
            d.added = n;
            d.added_first = eps;
        }
        let mut changed = 0;
        for (name, d) in deltas {
            let s = self
                .services
                .get_mut(&name)
                .expect("a Service with a delta exists");
            let before = if d.fresh { 0 } else { s.ready };
            s.ready = before + d.added - d.removed;
            let ready = s.ready;
            debug_assert_eq!(
                ready,
                self.endpoint_count(&self.services[&name].spec.selector),
                "Service {name}: the count kept is the count of its Ready pods"
            );
            if d.added + d.removed == 0 {
                continue;
            }
            changed += 1;
            // The endpoints controller records no Event on success: the
            // change is told only to a test that watches the API.
            if !self.api_watched() {
                continue;
            }
            let mut msg = format!("Endpoints of {name}: {ready} ready");
            if d.added > 0 {
                msg.push_str(&format!(
                    "; added {}",
                    self.summarize(&d.added_first, d.added)
                ));
            }
            if d.removed > 0 {
                msg.push_str(&format!(
                    "; removed {}",
                    self.summarize(&d.removed_first, d.removed)
                ));
            }
            let tick = self.now;
            self.api_record(crate::cluster::ApiRecord::EndpointsChanged { tick, message: msg });
        }
        changed
    }

    /// How many endpoints a Service with selector `sel` has now (from the
    /// owners' counts), and the first `listed` of them in `endpoints_of`'
    /// order: each selected owner's pods are read only until its Ready
    /// ones are found or `listed` are, so the work is about `listed` pods,
    /// at most the selected owners' pods (when their Ready ones come last).
    pub(crate) fn first_endpoints(
        &self,
        sel: &crate::model::Selector,
        listed: usize,
    ) -> (u32, Vec<(ControllerId, u32)>) {
        let revs = self.selected_revisions(sel);
        let mut count = 0;
        let mut out = Vec::with_capacity(listed.min(16));
        for group in revs.chunk_by(|a, b| a.0 == b.0) {
            let c = group[0].0;
            let ctl = &self.controllers[c as usize];
            let ready: u32 = group.iter().map(|&(_, r)| ctl.count(r).ready).sum();
            count += ready;
            let mut left = ready;
            for (o, k) in ctl.pods.iter() {
                if left == 0 || out.len() >= listed {
                    break;
                }
                let p = self.pod(k);
                if p.ready && group.iter().any(|&(_, r)| r == p.revision) {
                    out.push((ControllerId(c), o));
                    left -= 1;
                }
            }
        }
        (count, out)
    }
}

/// How many pod names an endpoint change's message shows of those added,
/// and of those removed.
const SHOWN: usize = 5;

/// One readiness change, as the endpoints controller reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    owner: ControllerId,
    ordinal: u32,
    revision: u32,
    /// Ready after the change.
    ready: bool,
}

/// The endpoints controller's books beside the Services themselves
/// (`Cluster::services`, each with its count as of the last sync). A
/// Service's endpoints are not kept: they are the Ready pods its selector
/// matches, read from the owners' records when asked (`endpoints_of`). So
/// a Service costs its spec and two entries here, whatever it selects, and
/// a pod's readiness change costs one `Move` until the pass ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServiceBooks {
    /// Services by the first pair of their selector's matchLabels (which a
    /// template must carry to match; a Service's selector always has one,
    /// its namespace's, see `namespace::own_namespace`).
    by_label: BTreeMap<(String, String), Vec<String>>,
    /// Services added or replaced since the last sync, sorted.
    fresh: Vec<String>,
    /// Readiness changes since the last sync, while any Service exists,
    /// in order.
    journal: Vec<Move>,
}

impl ServiceBooks {
    fn file(&mut self, name: &str, spec: &ServiceSpec) {
        if let Some((k, v)) = spec.selector.match_labels.iter().next() {
            self.by_label
                .entry((k.clone(), v.clone()))
                .or_default()
                .push(String::from(name));
        }
        if let Err(i) = self.fresh.binary_search_by(|f| f.as_str().cmp(name)) {
            self.fresh.insert(i, String::from(name));
        }
    }

    fn unfile(&mut self, name: &str, spec: &ServiceSpec) {
        if let Some((k, v)) = spec.selector.match_labels.iter().next() {
            let key = (k.clone(), v.clone());
            if let Some(names) = self.by_label.get_mut(&key) {
                names.retain(|n| n != name);
                if names.is_empty() {
                    self.by_label.remove(&key);
                }
            }
        }
        if let Ok(i) = self.fresh.binary_search_by(|f| f.as_str().cmp(name)) {
            self.fresh.remove(i);
        }
    }
}

/// The pods of one owner whose change since the last sync was alike: Ready
/// with revision `before` then, Ready with `after` now (`None`: not Ready).
struct Class {
    before: Option<u32>,
    after: Option<u32>,
    count: u32,
    /// The first [`SHOWN`] ordinals, ascending.
    first: Vec<u32>,
}

/// What one sync changed for one Service.
#[derive(Default)]
struct Delta {
    /// Added since the last sync (every endpoint counts as added).
    fresh: bool,
    added: u32,
    removed: u32,
    /// The first [`SHOWN`] added and removed, owners in creation order,
    /// ordinals ascending.
    added_first: Vec<(ControllerId, u32)>,
    removed_first: Vec<(ControllerId, u32)>,
}

impl Delta {
    /// Adds one owner's changes (owners come in creation order).
    fn add(&mut self, c: ControllerId, added: u32, mut a: Vec<u32>, removed: u32, mut r: Vec<u32>) {
        self.added += added;
        self.removed += removed;
        for (list, got) in [
            (&mut self.added_first, &mut a),
            (&mut self.removed_first, &mut r),
        ] {
            got.sort_unstable();
            let room = SHOWN - list.len().min(SHOWN);
            list.extend(got.iter().take(room).map(|&o| (c, o)));
        }
    }
}

impl Cluster {
    /// "web-1, web-2" or "web-1, ..., web-5 and 7 more": the names of
    /// `shown` (the first of `total`).
    fn summarize(&self, shown: &[(ControllerId, u32)], total: u32) -> String {
        let mut s = shown
            .iter()
            .map(|&(c, o)| self.pod_name(c, o))
            .collect::<Vec<_>>()
            .join(", ");
        if total as usize > shown.len() {
            s.push_str(&format!(" and {} more", total as usize - shown.len()));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DeploymentSpec, NodeSpec, Resources, Selector};
    use crate::quantity::MIB;
    use crate::simulator::Prng;
    use crate::ScorePolicy;

    /// The endpoints as the controller computed them before it read the
    /// journal: every Ready pod of every live owner, matched from scratch.
    fn from_scratch(c: &Cluster, sel: &Selector) -> Vec<(ControllerId, u32)> {
        let mut eps = Vec::new();
        for (ci, ctl) in c.controllers.iter().enumerate() {
            if ctl.deleted {
                continue;
            }
            for (o, k) in ctl.pods.iter() {
                let p = c.pod(k);
                if p.ready && sel.matches(&c.revision_of(p).template.labels) {
                    eps.push((ControllerId(ci as u32), o));
                }
            }
        }
        eps
    }

    /// The message a sync logs for a Service whose endpoints went from
    /// `old` to `new` (both in owner and ordinal order), read from the two
    /// lists.
    fn message(
        c: &Cluster,
        name: &str,
        old: &[(ControllerId, u32)],
        new: &[(ControllerId, u32)],
    ) -> String {
        let added: Vec<_> = new
            .iter()
            .copied()
            .filter(|e| old.binary_search(e).is_err())
            .collect();
        let removed: Vec<_> = old
            .iter()
            .copied()
            .filter(|e| new.binary_search(e).is_err())
            .collect();
        let list = |v: &[(ControllerId, u32)]| {
            let mut s = v
                .iter()
                .take(SHOWN)
                .map(|&(o, i)| c.pod_name(o, i))
                .collect::<Vec<_>>()
                .join(", ");
            if v.len() > SHOWN {
                s.push_str(&format!(" and {} more", v.len() - SHOWN));
            }
            s
        };
        let mut m = format!("Endpoints of {name}: {} ready", new.len());
        if !added.is_empty() {
            m.push_str(&format!("; added {}", list(&added)));
        }
        if !removed.is_empty() {
            m.push_str(&format!("; removed {}", list(&removed)));
        }
        m
    }

    fn random_selector(rng: &mut Prng) -> Selector {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if rng.chance(80) {
            pairs.push(("app", ["a", "b", "c"][rng.below(3) as usize]));
        }
        if pairs.is_empty() || rng.chance(40) {
            pairs.push(("tier", ["x", "y"][rng.below(2) as usize]));
        }
        Selector::new(&pairs)
    }

    /// Random Deployments (scaled, rolled between labels, deleted), nodes
    /// that fail and recover, and Services added, replaced and deleted:
    /// after every pass each Service's endpoints are the Ready pods its
    /// selector matches, and the pass told exactly the endpoint changes
    /// the lists before and after say (count, first five added and
    /// removed), in name order. SHEPHERD_FUZZ_OPS sets the operations; a
    /// failure names its seed.
    #[test]
    fn endpoints_follow_readiness_and_log_what_changed() {
        let ops = crate::fuzz_ops(300);
        let mut logged_in_all = 0;
        for seed in 0..(ops / 100).max(1) {
            let mut rng = Prng::new(seed ^ 0x5e41_1ce5);
            let mut c = Cluster::new();
            // Every event as emitted, before the correlator counts a repeat
            // into an earlier record.
            c.watch_api();
            c.set_heartbeat_timeout(3).unwrap();
            for i in 0..4 {
                c.add_node(NodeSpec::new(&format!("n{i}"), 8000, 16384 * MIB))
                    .unwrap();
            }
            let mut seen: BTreeMap<String, Vec<(ControllerId, u32)>> = BTreeMap::new();
            let mut apps = 0;
            for tick in 1..=100u64 {
                let template = |rng: &mut Prng, t: crate::model::PodTemplate| {
                    t.with_label("app", ["a", "b", "c"][rng.below(3) as usize])
                        .with_label("tier", ["x", "y"][rng.below(2) as usize])
                        .with_ready_after(rng.below(3) as u32)
                };
                match rng.below(9) {
                    0 | 1 => {
                        let name = format!("d{apps}");
                        apps += 1;
                        let t = template(
                            &mut rng,
                            crate::model::PodTemplate::new(Resources::new(500, 256 * MIB)),
                        );
                        let spec = DeploymentSpec::new(
                            &name,
                            rng.range(1, 6) as u32,
                            Resources::new(500, 256 * MIB),
                        )
                        .with_template(|_| t);
                        c.deploy(spec).unwrap();
                    }
                    2 if apps > 0 => {
                        let name = format!("d{}", rng.below(apps));
                        c.scale(&name, rng.below(6) as u32).ok();
                    }
                    3 if apps > 0 => {
                        let name = format!("d{}", rng.below(apps));
                        let t = template(
                            &mut rng,
                            crate::model::PodTemplate::new(Resources::new(500, 256 * MIB)),
                        );
                        c.roll(&name, t).ok();
                    }
                    4 if apps > 0 => {
                        c.delete_app(&format!("d{}", rng.below(apps))).ok();
                    }
                    5 => {
                        let name = format!("s{}", rng.below(4));
                        c.add_service(ServiceSpec {
                            name: name.clone(),
                            selector: random_selector(&mut rng),
                        })
                        .unwrap();
                        // Replaced or new: its endpoints were none.
                        seen.insert(name, Vec::new());
                    }
                    6 => {
                        let name = format!("s{}", rng.below(4));
                        if c.delete_service(&name).is_ok() {
                            seen.remove(&name);
                        }
                    }
                    7 => {
                        c.fail_node(&format!("n{}", rng.below(4))).unwrap();
                    }
                    _ => {
                        c.recover_node(&format!("n{}", rng.below(4))).unwrap();
                    }
                }
                c.set_now(tick);
                c.heartbeats();
                c.detect_failures();
                c.take_api_log();
                c.reconcile_once(ScorePolicy::BinPack);
                let got: Vec<String> = c
                    .take_api_log()
                    .into_iter()
                    .filter_map(|r| match r {
                        crate::cluster::ApiRecord::EndpointsChanged { message, .. } => {
                            Some(message)
                        }
                        _ => None,
                    })
                    .collect();
                let mut want = Vec::new();
                for (name, old) in seen.iter_mut() {
                    let sel = c.services[name].spec.selector.clone();
                    let now = from_scratch(&c, &sel);
                    let names: Vec<String> = now.iter().map(|&(o, i)| c.pod_name(o, i)).collect();
                    assert_eq!(
                        c.service_endpoints(name).unwrap(),
                        names,
                        "seed {seed} tick {tick}: {name}"
                    );
                    // The list's form: the count and the first three.
                    let listed = c.service_summaries(3);
                    let s = listed.iter().find(|s| s.name == *name).unwrap();
                    assert_eq!(
                        s.endpoint_count as usize,
                        names.len(),
                        "seed {seed} tick {tick}: {name}"
                    );
                    assert_eq!(
                        s.endpoints,
                        names[..names.len().min(3)],
                        "seed {seed} tick {tick}: {name}"
                    );
                    assert_eq!(
                        c.services[name].ready as usize,
                        now.len(),
                        "seed {seed} tick {tick}: {name}"
                    );
                    if now != *old {
                        want.push(message(&c, name, old, &now));
                        *old = now;
                    }
                }
                assert_eq!(got, want, "seed {seed} tick {tick}");
                logged_in_all += got.len();
            }
        }
        // The sweep saw Services change, not only stay empty.
        assert!(logged_in_all > 20, "{logged_in_all} endpoint changes");
    }

    /// A Service past the limit is refused with the limit named, and
    /// nothing changes; replacing an existing one is still allowed.
    #[test]
    fn services_stop_at_the_scalability_threshold() {
        let mut c = Cluster::new();
        let sel = Selector::new(&[("app", "web")]);
        for i in 0..crate::limits::MAX_SERVICES {
            c.add_service(ServiceSpec {
                name: format!("s{i}"),
                selector: sel.clone(),
            })
            .unwrap();
        }
        let events = c.events.len();
        let err = c
            .add_service(ServiceSpec {
                name: "one-more".into(),
                selector: sel.clone(),
            })
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("MAX_SERVICES") && err.contains("10,000"),
            "{err}"
        );
        assert_eq!(c.services.len(), crate::limits::MAX_SERVICES);
        assert_eq!(c.events.len(), events);
        c.add_service(ServiceSpec {
            name: "s7".into(),
            selector: Selector::new(&[("app", "api")]),
        })
        .unwrap();
    }
}
