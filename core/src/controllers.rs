//! Controllers: Deployments (replicas and rolling updates), disruption
//! (PodDisruptionBudgets, the eviction call, drains) and endpoints.
//!
//! Each works from the cluster's incremental counts; none scans every pod.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, ControllerId, NodeId, Pod, PodPhase, ServiceState};
use crate::error::Error;
use crate::events::{EventType, ObjectRef, Reason};
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
        let (surge, unavailable) = ctl.strategy.resolve(replicas);
        let min_available = replicas.saturating_sub(unavailable);
        let (name, hash) = (
            ctl.name.clone(),
            ctl.revisions[cur as usize - 1].hash.clone(),
        );
        if new.pods < replicas {
            // maxSurge may be any whole number: saturate rather than wrap.
            let room = replicas.saturating_add(surge).saturating_sub(total);
            let up = room.min(replicas - new.pods);
            self.create_pods(id, up);
            if up > 0 {
                created += up;
                self.note(
                    EventType::Normal,
                    Reason::ScalingReplicaSet,
                    ObjectRef::Deployment(id),
                    format!(
                        "Scaled up replica set {name}-{hash} to {} from {}",
                        new.pods + up,
                        new.pods
                    ),
                );
            }
        } else if new.pods > replicas {
            deleted += self.delete_surplus(id, new.pods - replicas, move |r| r == cur);
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
        let down = unhealthy.len() as u32 + healthy.len() as u32;
        for k in unhealthy.into_iter().chain(healthy) {
            self.delete_pod(k, Some(Reason::SuccessfulDelete));
        }
        if down > 0 {
            deleted += down;
            let old_left = self.controllers[id.0 as usize].total()
                - self.controllers[id.0 as usize].count(cur).pods;
            self.note(
                EventType::Normal,
                Reason::ScalingReplicaSet,
                ObjectRef::Deployment(id),
                format!(
                    "Scaled down old replica sets of {name} to {old_left} pods (from {})",
                    old_left + down
                ),
            );
        }
        self.check_rollout_complete(id);
        (created, deleted)
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
        if ctl.total() == cur.pods && cur.pods == ctl.replicas && cur.available == ctl.replicas {
            let (name, rev) = (ctl.name.clone(), ctl.current);
            self.controllers[id.0 as usize].rolling = false;
            self.note(
                EventType::Normal,
                Reason::RolloutComplete,
                ObjectRef::Deployment(id),
                format!("Deployment {name} successfully rolled out revision {rev}"),
            );
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
        let what = match spec.budget {
            Budget::MinAvailable(v) => format!("minAvailable {v}"),
            Budget::MaxUnavailable(v) => format!("maxUnavailable {v}"),
        };
        let obj = self.named("poddisruptionbudget", &name);
        self.disruption_epoch += 1;
        self.note(
            EventType::Normal,
            Reason::Created,
            obj,
            format!(
                "PodDisruptionBudget {name} for {} with {what}",
                spec.selector
            ),
        );
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
        let p = self.pod(k);
        let (c, o) = (p.controller, p.ordinal);
        let on = p.node().map(|n| self.nodes[n.0 as usize].spec.name.clone());
        self.delete_pod(k, None);
        let msg = match on {
            Some(n) => format!("Evicted pod {pod} from node {n} (voluntary disruption)"),
            None => format!("Evicted pod {pod} (voluntary disruption)"),
        };
        self.note(
            EventType::Normal,
            Reason::Evicted,
            ObjectRef::Pod(c, o),
            msg,
        );
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
    pub fn add_service(&mut self, mut spec: ServiceSpec) -> Result<(), Error> {
        spec.validate()?;
        // A Service selects the pods of its own namespace (namespace.rs).
        self.use_namespace(&spec.name);
        spec.selector =
            crate::namespace::own_namespace(&spec.selector, crate::namespace::split(&spec.name).0);
        let name = spec.name.clone();
        let obj = self.named("service", &name);
        self.note(
            EventType::Normal,
            Reason::Created,
            obj,
            format!("Service {name} selects {}", spec.selector),
        );
        self.services.insert(
            name,
            ServiceState {
                spec,
                endpoints: Vec::new(),
                dirty: true,
            },
        );
        Ok(())
    }

    pub fn delete_service(&mut self, name: &str) -> Result<(), Error> {
        self.services
            .remove(crate::namespace::canonical(name))
            .map(|_| ())
            .ok_or_else(|| Error::not_found("Service", name))
    }

    /// Recomputes the endpoints of the services whose pods changed readiness.
    pub(crate) fn sync_endpoints(&mut self) -> u32 {
        let mut changed = 0;
        let names: Vec<String> = self
            .services
            .iter()
            .filter(|(_, s)| s.dirty)
            .map(|(n, _)| n.clone())
            .collect();
        for name in names {
            let sel = self.services[&name].spec.selector.clone();
            let mut eps: Vec<(ControllerId, u32)> = Vec::new();
            for (ci, ctl) in self.controllers.iter().enumerate() {
                if ctl.deleted
                    || !ctl
                        .revisions
                        .iter()
                        .any(|r| sel.matches(&r.template.labels))
                {
                    continue;
                }
                for (o, k) in ctl.pods.iter() {
                    let p = self.pod(k);
                    if p.ready && sel.matches(&self.revision_of(p).template.labels) {
                        eps.push((ControllerId(ci as u32), o));
                    }
                }
            }
            let s = self
                .services
                .get_mut(&name)
                .expect("a service named by the dirty list should exist");
            s.dirty = false;
            if s.endpoints != eps {
                let old = core::mem::replace(&mut s.endpoints, eps.clone());
                // Both lists are sorted by (Deployment, ordinal).
                let added: Vec<(ControllerId, u32)> = eps
                    .iter()
                    .copied()
                    .filter(|e| old.binary_search(e).is_err())
                    .collect();
                let removed: Vec<(ControllerId, u32)> = old
                    .iter()
                    .copied()
                    .filter(|e| eps.binary_search(e).is_err())
                    .collect();
                let mut msg = format!("Endpoints of {name}: {} ready", eps.len());
                if !added.is_empty() {
                    msg.push_str(&format!("; added {}", self.summarize(&added)));
                }
                if !removed.is_empty() {
                    msg.push_str(&format!("; removed {}", self.summarize(&removed)));
                }
                let obj = self.named("service", &name);
                self.note(EventType::Normal, Reason::EndpointsUpdated, obj, msg);
                changed += 1;
            }
        }
        changed
    }
}

impl Cluster {
    /// "web-1, web-2" or "web-1, ..., web-5 and 7 more": names only for what is shown.
    fn summarize(&self, pods: &[(ControllerId, u32)]) -> String {
        const SHOWN: usize = 5;
        let mut s = pods
            .iter()
            .take(SHOWN)
            .map(|&(c, o)| self.pod_name(c, o))
            .collect::<Vec<_>>()
            .join(", ");
        if pods.len() > SHOWN {
            s.push_str(&format!(" and {} more", pods.len() - SHOWN));
        }
        s
    }
}
