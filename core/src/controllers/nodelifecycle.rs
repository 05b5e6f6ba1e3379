//! The node lifecycle controller (`pkg/controller/nodelifecycle`): kubelet
//! heartbeats, NotReady after the heartbeat timeout with its condition
//! taints, and the pods lost with a node.

use alloc::format;
use alloc::vec::Vec;

use crate::cluster::events::{EventType, Message, ObjectRef, Reason};
use crate::cluster::{Cluster, NodeId, PodPhase};

impl Cluster {
    /// Heartbeats at the current tick: a silent node whose kubelet is back
    /// beats again and, if it was NotReady, is Ready: its condition taints go
    /// (pending NoExecute timers are cancelled) and the kubelet reports its
    /// pods Ready again. A beating node's heartbeat is implicit, so this
    /// costs the silent nodes, not every node.
    pub fn heartbeats(&mut self) {
        let back: Vec<NodeId> = self
            .silent
            .iter()
            .copied()
            .filter(|id| self.nodes[id.0 as usize].beating)
            .collect();
        for id in back {
            self.silent.remove(&id);
            if !self.nodes[id.0 as usize].ready {
                self.nodes[id.0 as usize].ready = true;
                self.refresh_hot(id);
                self.capacity_epoch += 1;
                let name = self.nodes[id.0 as usize].spec.name.clone();
                self.note(
                    EventType::Normal,
                    Reason::NodeReady,
                    ObjectRef::Node(id),
                    format!("Node {name} status is now: NodeReady"),
                );
                self.apply_no_execute(id);
                let now = self.now;
                for k in self.node_pods[id.0 as usize].clone() {
                    let p = self.pod(k);
                    if p.ready {
                        continue;
                    }
                    let due = p
                        .bound_at()
                        .saturating_add(self.revision_of(p).template.ready_after as u64)
                        .max(now);
                    let uid = p.uid;
                    self.ready_queue.entry(due).or_default().push((k, uid));
                }
            }
        }
    }

    /// Node lifecycle at the current tick: a node silent for longer than the
    /// heartbeat timeout (node-monitor-grace-period) goes NotReady (Ready
    /// Unknown), as Kubernetes' node lifecycle controller does: its pods are
    /// marked not Ready (Services drop them) but stay bound, and the node
    /// gets the `node.kubernetes.io/unreachable` taints, whose NoExecute half
    /// evicts each pod after its tolerationSeconds (300 by default, see
    /// `tainteviction.rs`).
    pub fn detect_failures(&mut self) {
        let now = self.now;
        let timeout = self.heartbeat_timeout;
        let due: Vec<NodeId> = self
            .silent
            .iter()
            .copied()
            .filter(|id| {
                let n = &self.nodes[id.0 as usize];
                !n.beating && n.ready && now.saturating_sub(n.last_heartbeat) > timeout
            })
            .collect();
        for id in due {
            self.nodes[id.0 as usize].ready = false;
            self.refresh_hot(id);
            let n = &self.nodes[id.0 as usize];
            let name = n.spec.name.clone();
            // RecordNodeStatusChange (controller_utils.go): Normal, once,
            // when Ready turns from True.
            self.note(
                EventType::Normal,
                Reason::NodeNotReady,
                ObjectRef::Node(id),
                format!("Node {name} status is now: NodeNotReady"),
            );
            // MarkPodsNotReady: the pods' Ready condition turns False.
            for k in self.node_pods[id.0 as usize].clone() {
                let (c, o) = {
                    let p = self.pod(k);
                    (p.controller, p.ordinal)
                };
                self.set_not_ready(k);
                self.record(
                    EventType::Warning,
                    Reason::NodeNotReady,
                    ObjectRef::Pod(c, o),
                    Message::NodeIsNotReady,
                );
            }
            self.disruption_epoch += 1;
            self.apply_no_execute(id);
        }
    }

    /// Every pod on the node becomes Lost and its capacity is freed at once;
    /// the next pass deletes them and their controllers replace them. With
    /// its Node object gone, Kubernetes' pod garbage collector deletes the
    /// pods bound to it (podgc's gcOrphaned), which records no Event.
    pub(crate) fn lose_pods(&mut self, id: NodeId) {
        let keys = self.node_pods[id.0 as usize].clone();
        for k in keys {
            self.unbind(k);
            self.pod_mut(k).phase = PodPhase::Lost;
            self.lost_marked = true;
        }
    }
}
