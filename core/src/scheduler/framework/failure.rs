//! FailedScheduling: the "0/N nodes are available: ..." message counted
//! over every node, and its event, written once per change of message.

use crate::scheduler::*;

impl Cluster {
    /// Logs FailedScheduling for pods left pending, once per pod per distinct
    /// message. Every such event shares one copy of the message's text.
    pub(in crate::scheduler) fn report_unschedulable(
        &mut self,
        b: &mut Batch,
        keys: &[u32],
        profile: &Profile,
    ) {
        let message = self.failure_message_for(b, profile);
        self.record_failure(b.c, b.rev_no, keys, message);
    }

    /// Records a FailedScheduling message for a revision's pods, once per
    /// change of message (a pod told the same thing is not told again).
    pub(crate) fn record_failure(
        &mut self,
        c: ControllerId,
        rev_no: u32,
        keys: &[u32],
        message: String,
    ) {
        let (serial, text) = match self.controllers[c.0 as usize].failure.get(&rev_no) {
            Some((s, m, t)) if *m == message => (*s, *t),
            _ => {
                self.failure_serial += 1;
                let s = self.failure_serial;
                let t = self.text(message.clone());
                self.controllers[c.0 as usize]
                    .failure
                    .insert(rev_no, (s, message, t));
                (s, t)
            }
        };
        for &k in keys {
            let p = self.pod_mut(k);
            if p.reported() != serial {
                p.set_reported(serial);
                let (ctl, o) = (p.controller, p.ordinal);
                self.record(
                    EventType::Warning,
                    Reason::FailedScheduling,
                    ObjectRef::Pod(ctl, o),
                    Message::Text(text),
                );
            }
        }
    }

    /// "0/6 nodes are available: 1 node(s) had untolerated taint(s), 3
    /// Insufficient cpu." Reasons counted over every node and sorted as
    /// kube-scheduler sorts them (as strings "N reason", framework/types.go
    /// FitError.Error).
    pub(in crate::scheduler) fn failure_message_for(
        &mut self,
        b: &mut Batch,
        profile: &Profile,
    ) -> String {
        let mut hist: BTreeMap<String, u32> = BTreeMap::new();
        let mut total = 0;
        for i in 0..self.nodes.len() {
            if self.nodes[i].removed {
                continue;
            }
            total += 1;
            if let Err(u) = self.filter_node(NodeId(i as u32), b, profile) {
                for r in u.reasons() {
                    *hist.entry(r).or_default() += 1;
                }
            }
        }
        if total == 0 {
            return "0/0 nodes are available: no nodes registered.".to_string();
        }
        let mut parts: Vec<String> = hist.into_iter().map(|(r, n)| format!("{n} {r}")).collect();
        parts.sort();
        format!("0/{total} nodes are available: {}.", parts.join(", "))
    }
}
