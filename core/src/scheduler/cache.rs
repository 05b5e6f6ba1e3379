//! Per-node verdicts and scores kept from one batch to the next.
//!
//! A batch (the pending pods of one Deployment revision) needs, per node, the
//! verdict of the filters that read only the node and the template
//! (NodeReady, NodeUnschedulable, TaintToleration, NodeAffinity) and the
//! node-local scores (NodeResourcesFit, NodeResourcesBalancedAllocation),
//! which read only the node's books and the pod's requests. Many batches share
//! these inputs: Deployments with the same requests, or the same nodeSelector
//! and tolerations. Computing them per batch costs O(nodes) for every
//! Deployment, which dominates when there are many small ones.
//!
//! So they are kept here, keyed by what they depend on, and each value carries
//! the stamp its node had when it was computed. Every change to a node goes
//! through `Cluster::refresh_hot`, which gives the node a stamp never used
//! before; a value whose stamp differs from its node's is stale and is
//! recomputed on use. A cache therefore never changes a decision: it only
//! saves recomputing a value whose inputs are the same.
//!
//! Bounds: at most [`MAX_ENTRIES`] keys per kind, least recently used dropped
//! first; each entry holds two words per node slot. A profile change clears
//! everything (the values depend on its plugins, weights and arguments).

use alloc::vec::Vec;

use crate::affinity::NodeSelectorTerm;
use crate::model::{Labels, Resources, Toleration};

use super::profile::Profile;

/// Keys kept per kind of value.
pub(crate) const MAX_ENTRIES: usize = 24;

/// A value not computed yet (stamps start at 1).
const NEVER: u64 = 0;

/// Per-node values with the node stamp each was computed at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slots<T: Copy + Default> {
    values: Vec<T>,
    stamps: Vec<u64>,
}

impl<T: Copy + Default> Slots<T> {
    /// The value of slot `i` if it was computed at `stamp`.
    #[inline(always)]
    pub fn get(&self, i: usize, stamp: u64) -> Option<T> {
        match self.stamps.get(i) {
            Some(&s) if s == stamp => Some(self.values[i]),
            _ => None,
        }
    }

    #[inline]
    pub fn set(&mut self, i: usize, stamp: u64, v: T) {
        if self.stamps.len() <= i {
            self.stamps.resize(i + 1, NEVER);
            self.values.resize(i + 1, T::default());
        }
        self.stamps[i] = stamp;
        self.values[i] = v;
    }
}

/// What the static filters' verdict depends on, besides the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StaticKey {
    pub node_selector: Labels,
    /// The template's required node affinity (the preferred terms only score).
    pub required: Option<Vec<NodeSelectorTerm>>,
    pub tolerations: Vec<Toleration>,
}

/// What the node-local scores depend on, besides the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LocalKey {
    pub req: Resources,
    pub nonzero: Resources,
}

#[derive(Clone, Debug)]
struct Entry<K, T: Copy + Default> {
    key: K,
    slots: Slots<T>,
    used: u64,
}

/// The caches of one cluster.
#[derive(Clone, Debug, Default)]
pub(crate) struct Caches {
    /// The profile the values were computed under.
    profile: Option<Profile>,
    statics: Vec<Entry<StaticKey, u8>>,
    locals: Vec<Entry<LocalKey, i64>>,
    clock: u64,
    /// Memory of the sample index, between batches.
    pub blocks: super::sample_index::Blocks,
}

fn take<K: PartialEq, T: Copy + Default>(list: &mut Vec<Entry<K, T>>, key: &K) -> Option<Slots<T>> {
    let at = list.iter().position(|e| &e.key == key)?;
    Some(core::mem::take(&mut list[at].slots))
}

fn give<K: PartialEq, T: Copy + Default>(
    list: &mut Vec<Entry<K, T>>,
    key: K,
    slots: Slots<T>,
    used: u64,
) {
    if let Some(e) = list.iter_mut().find(|e| e.key == key) {
        e.slots = slots;
        e.used = used;
        return;
    }
    if list.len() >= MAX_ENTRIES {
        if let Some(oldest) = (0..list.len()).min_by_key(|&i| list[i].used) {
            list.swap_remove(oldest);
        }
    }
    list.push(Entry { key, slots, used });
}

impl Caches {
    /// Lends a batch its slots (empty ones for a new key). They go back with
    /// [`Caches::give_back`] when the batch ends.
    pub fn lend(
        &mut self,
        profile: &Profile,
        s: &StaticKey,
        l: &LocalKey,
    ) -> (Slots<u8>, Slots<i64>) {
        if self.profile.as_ref() != Some(profile) {
            self.statics.clear();
            self.locals.clear();
            self.profile = Some(profile.clone());
        }
        (
            take(&mut self.statics, s).unwrap_or_default(),
            take(&mut self.locals, l).unwrap_or_default(),
        )
    }

    pub fn give_back(&mut self, s: StaticKey, st: Slots<u8>, l: LocalKey, lo: Slots<i64>) {
        self.clock += 1;
        give(&mut self.statics, s, st, self.clock);
        give(&mut self.locals, l, lo, self.clock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_only_at_the_stamp_it_was_computed_at() {
        let mut s: Slots<i64> = Slots::default();
        assert_eq!(s.get(3, 1), None);
        s.set(3, 7, 42);
        assert_eq!(s.get(3, 7), Some(42));
        assert_eq!(s.get(3, 8), None, "the node changed since");
        assert_eq!(
            s.get(2, 1),
            None,
            "an unset slot holds NEVER, no node's stamp"
        );
        assert_eq!(s.get(9, 7), None);
    }

    #[test]
    fn the_least_recently_used_key_goes_first() {
        let mut list: Vec<Entry<u32, u8>> = Vec::new();
        for k in 0..MAX_ENTRIES as u32 {
            give(&mut list, k, Slots::default(), k as u64 + 10);
        }
        give(&mut list, 0, Slots::default(), 100);
        give(&mut list, 999, Slots::default(), 101);
        assert_eq!(list.len(), MAX_ENTRIES);
        assert!(list.iter().any(|e| e.key == 0), "0 was used lately");
        assert!(!list.iter().any(|e| e.key == 1), "1 was the oldest");
    }
}
