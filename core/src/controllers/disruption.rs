//! The disruption controller (`pkg/controller/disruption`) and what it
//! guards: PodDisruptionBudgets with their status, the eviction call and
//! `kubectl drain`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::cluster::{Cluster, NodeId, OwnerId};
use crate::model::{Budget, IntOrPercent, PdbSpec};
use crate::util::error::Error;

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
    order: (OwnerId, u32),
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
    pub fn add_pdb(&mut self, mut spec: PdbSpec) -> Result<(), Error> {
        spec.validate()?;
        // A budget selects the pods of its own namespace (model/namespace.rs).
        self.use_namespace(&spec.name);
        spec.selector = crate::model::namespace::own_namespace(
            &spec.selector,
            crate::model::namespace::split(&spec.name).0,
        );
        let name = spec.name.clone();
        // Creating it is an API call: no Event.
        self.disruption_epoch += 1;
        self.pdbs.insert(name, spec);
        Ok(())
    }

    pub fn delete_pdb(&mut self, name: &str) -> Result<(), Error> {
        self.disruption_epoch += 1;
        self.pdbs
            .remove(crate::model::namespace::canonical(name))
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
            .get(crate::model::namespace::canonical(name))
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
            let full =
                || crate::model::namespace::full_name(&self.pod_name(p.controller, p.ordinal));
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
                let (ns, short) = crate::model::namespace::split(&name);
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
}
