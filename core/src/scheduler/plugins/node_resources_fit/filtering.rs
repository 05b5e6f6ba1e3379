//! NodeResourcesFit's Filter on a node (noderesources/fit.go), from the
//! node's packed record.

use super::{insufficient, unresolvable};
use crate::scheduler::*;

impl Cluster {
    /// The pod's cpu and memory against what the node has left, and one
    /// more pod against its free pod slots.
    #[inline]
    pub(in crate::scheduler) fn fit_filter(
        &self,
        n: NodeId,
        b: &Batch,
        profile: &Profile,
    ) -> Result<(), Unfit> {
        let h = &self.hot[n.0 as usize];
        // The pods verdict from the packed record: a node
        // without room for one more pod has none free (its
        // list may wait to be filed, see `Cluster::unfiled`).
        let (cpu, memory, _) = insufficient(
            (b.req.cpu_millis, b.req.memory_bytes),
            (h.allocated.cpu_millis, h.allocated.memory_bytes),
            (h.capacity.cpu_millis, h.capacity.memory_bytes),
            0,
            1,
        );
        let pods = h.pods_free == 0;
        let (scalars, beyond) = if b.scalars {
            self.scalar_shortage(n, &b.rev.template.scalar_requests, profile)
        } else {
            (Vec::new(), false)
        };
        if cpu || memory || pods || !scalars.is_empty() {
            return Err(Unfit::NodeResourcesFit(super::Insufficient {
                cpu,
                memory,
                pods,
                scalars,
                unresolvable: beyond
                    || unresolvable(
                        (b.req.cpu_millis, b.req.memory_bytes),
                        (h.capacity.cpu_millis, h.capacity.memory_bytes),
                    ),
            }));
        }
        Ok(())
    }

    /// fitsRequest's loop over the pod's scalar resources on node `n`: the
    /// names short (ephemeral-storage first, then by name), and whether one
    /// asks for more than the node's allocatable at all. Extended resources
    /// the profile's `ignoredResources` or `ignoredResourceGroups` name are
    /// not checked (ephemeral-storage and huge pages always are).
    pub(in crate::scheduler) fn scalar_shortage(
        &self,
        n: NodeId,
        req: &crate::model::scalar::Scalars,
        profile: &Profile,
    ) -> (Vec<String>, bool) {
        use crate::model::scalar::{classify, ScalarKind, EPHEMERAL_STORAGE};
        let i = n.0 as usize;
        let (used, alloc) = (&self.scalar_used[i], &self.nodes[i].spec.scalars);
        let mut short: Vec<String> = Vec::new();
        let mut beyond = false;
        for (k, v) in req.iter() {
            if classify(k) == Ok(ScalarKind::Extended) && profile.ignores_resource(k) {
                continue;
            }
            if used.get(k).saturating_add(v) > alloc.get(k) {
                beyond |= v > alloc.get(k);
                if k == EPHEMERAL_STORAGE {
                    short.insert(0, k.to_string());
                } else {
                    short.push(k.to_string());
                }
            }
        }
        (short, beyond)
    }
}
