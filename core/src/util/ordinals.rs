//! A controller's books without trees: its Pending pods by ordinal
//! (`OrdinalSet`), its pod keys by ordinal (`OrdinalMap`) and its counts by
//! revision (`RevisionMap`).
//!
//! A controller numbers its pods in creation order, so the ordinals it
//! holds Pending are close together: a bit per ordinal over the span from
//! the lowest to the highest costs far less than a tree, and adding or
//! removing one is a bit set or cleared (a bind removes one, 150,000 times
//! when a big cluster starts). The span is what the bits cost: an ordinal
//! long Pending while the controller creates and deletes many pods after
//! it keeps a bit for each of them (an eighth of a byte per pod created),
//! and the span shrinks back when that pod leaves.

use alloc::vec::Vec;

/// Equal sets are equal values: the words are trimmed at both ends and
/// `base` is the first word's.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct OrdinalSet {
    /// The ordinal of `words[0]`'s lowest bit, a multiple of 64.
    base: u32,
    /// A bit per ordinal from `base`; the first and the last word are not
    /// zero unless the set is empty (then there are no words).
    words: Vec<u64>,
    len: u32,
}

impl OrdinalSet {
    pub fn new() -> OrdinalSet {
        OrdinalSet::default()
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(test)]
    pub fn contains(&self, o: &u32) -> bool {
        match self.place(*o) {
            Some((w, bit)) => self.words[w] & bit != 0,
            None => false,
        }
    }

    /// The word and bit of ordinal `o`, when the words cover it.
    #[inline]
    fn place(&self, o: u32) -> Option<(usize, u64)> {
        let w = (o.checked_sub(self.base)? / 64) as usize;
        (w < self.words.len()).then(|| (w, 1u64 << (o % 64)))
    }

    /// Adds `o`; false when it was there.
    pub fn insert(&mut self, o: u32) -> bool {
        let first = o - o % 64;
        if self.words.is_empty() {
            self.base = first;
        } else if first < self.base {
            // Below the span (a pod Pending again after ordinals after it
            // were added): the words move up.
            let shift = ((self.base - first) / 64) as usize;
            self.words.splice(0..0, core::iter::repeat_n(0, shift));
            self.base = first;
        }
        let w = ((o - self.base) / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let bit = 1u64 << (o % 64);
        let fresh = self.words[w] & bit == 0;
        self.words[w] |= bit;
        self.len += fresh as u32;
        fresh
    }

    /// Removes `o`; false when it was not there.
    pub fn remove(&mut self, o: &u32) -> bool {
        let Some((w, bit)) = self.place(*o) else {
            return false;
        };
        if self.words[w] & bit == 0 {
            return false;
        }
        self.words[w] &= !bit;
        self.len -= 1;
        if self.len == 0 {
            self.words.clear();
        } else if self.words[w] == 0 {
            // Keep the first and last words non-zero: the span follows the
            // ordinals held.
            if w + 1 == self.words.len() {
                while self.words.last() == Some(&0) {
                    self.words.pop();
                }
            } else if w == 0 {
                let lead = self.words.iter().take_while(|&&x| x == 0).count();
                self.words.drain(..lead);
                self.base += lead as u32 * 64;
            }
        }
        true
    }

    /// The ordinals, ascending (and from either end).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            words: &self.words,
            base: self.base,
            front: (0, self.words.first().copied().unwrap_or(0)),
            back: (
                self.words.len().saturating_sub(1),
                if self.words.len() > 1 {
                    *self.words.last().unwrap_or(&0)
                } else {
                    0
                },
            ),
            left: self.len,
        }
    }
}

/// Printed as the set it is, `{3, 4, 9}`.
impl core::fmt::Debug for OrdinalSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// [`OrdinalSet::iter`]: the bits left in the front word and in the back
/// word (the same word is held once, by the front).
pub(crate) struct Iter<'a> {
    words: &'a [u64],
    base: u32,
    front: (usize, u64),
    back: (usize, u64),
    left: u32,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        loop {
            let (w, bits) = &mut self.front;
            if *bits != 0 {
                let t = bits.trailing_zeros();
                *bits &= *bits - 1;
                self.left -= 1;
                return Some(self.base + *w as u32 * 64 + t);
            }
            *w += 1;
            *bits = if *w == self.back.0 {
                core::mem::take(&mut self.back.1)
            } else {
                self.words[*w]
            };
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        loop {
            if self.back.0 == self.front.0 {
                // One word left, held by the front: take its highest bit.
                let bits = &mut self.front.1;
                let t = 63 - bits.leading_zeros();
                *bits &= !(1u64 << t);
                self.left -= 1;
                return Some(self.base + self.front.0 as u32 * 64 + t);
            }
            let (w, bits) = &mut self.back;
            if *bits != 0 {
                let t = 63 - bits.leading_zeros();
                *bits &= !(1u64 << t);
                self.left -= 1;
                return Some(self.base + *w as u32 * 64 + t);
            }
            *w -= 1;
            *bits = if *w == self.front.0 {
                0
            } else {
                self.words[*w]
            };
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a OrdinalSet {
    type Item = u32;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::prng::Prng;
    use alloc::collections::BTreeSet;

    /// Random inserts and removes agree with a BTreeSet, from the front,
    /// from the back and from both ends at once; the span stays trimmed.
    #[test]
    fn agrees_with_a_btree_set() {
        let ops = crate::fuzz_ops(200);
        for seed in 0..ops {
            let mut rng = Prng::new(seed);
            let mut s = OrdinalSet::new();
            let mut want = BTreeSet::new();
            let span = 1 + rng.below(700) as u32;
            for step in 0..300 {
                let o = rng.below(span as u64) as u32 + (step / 3);
                if rng.below(3) == 0 {
                    assert_eq!(s.remove(&o), want.remove(&o), "seed {seed}");
                } else {
                    assert_eq!(s.insert(o), want.insert(o), "seed {seed}");
                }
                assert_eq!(s.len(), want.len(), "seed {seed}");
                assert_eq!(s.contains(&o), want.contains(&o), "seed {seed}");
                assert!(
                    s.words.first().is_none_or(|&w| w != 0)
                        && s.words.last().is_none_or(|&w| w != 0),
                    "seed {seed}: the span is trimmed"
                );
            }
            assert!(s.iter().eq(want.iter().copied()), "seed {seed}");
            assert!(s.iter().rev().eq(want.iter().rev().copied()), "seed {seed}");
            // Both ends at once.
            let (mut it, mut w) = (s.iter(), want.iter().copied());
            loop {
                let flip = rng.below(2) == 0;
                let (a, b) = if flip {
                    (it.next(), w.next())
                } else {
                    (it.next_back(), w.next_back())
                };
                assert_eq!(a, b, "seed {seed}");
                if a.is_none() {
                    break;
                }
            }
        }
    }
}

/// A small map from revision number to `T`, sorted by revision: a
/// controller's pods belong to one or a few revisions, so a sorted vector
/// answers in a comparison or two where a B-tree walked its nodes (a
/// controller's counts are touched four times in each pod's life: created,
/// bound, Ready, available).
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct RevisionMap<T> {
    entries: Vec<(u32, T)>,
}

impl<T> RevisionMap<T> {
    pub fn new() -> RevisionMap<T> {
        RevisionMap {
            entries: Vec::new(),
        }
    }

    #[inline]
    fn find(&self, rev: u32) -> Result<usize, usize> {
        // The revision asked is most often the newest (the last entry).
        match self.entries.last() {
            Some(&(r, _)) if r == rev => Ok(self.entries.len() - 1),
            _ => self.entries.binary_search_by_key(&rev, |e| e.0),
        }
    }

    pub fn get(&self, rev: &u32) -> Option<&T> {
        self.find(*rev).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, rev: &u32) -> Option<&mut T> {
        self.find(*rev).ok().map(move |i| &mut self.entries[i].1)
    }

    /// The value for `rev`, a default one added when there is none. Inline
    /// to its callers (each pod's creation, bind, readiness): the common
    /// case is one comparison with the last entry.
    #[inline]
    pub fn entry_or_default(&mut self, rev: u32) -> &mut T
    where
        T: Default,
    {
        let last = self.entries.len().wrapping_sub(1);
        if self.entries.get(last).is_some_and(|e| e.0 == rev) {
            return &mut self.entries[last].1;
        }
        self.entry_or_default_slow(rev)
    }

    #[inline(never)]
    fn entry_or_default_slow(&mut self, rev: u32) -> &mut T
    where
        T: Default,
    {
        let i = match self.entries.binary_search_by_key(&rev, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (rev, T::default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    pub fn remove(&mut self, rev: &u32) -> Option<T> {
        self.find(*rev).ok().map(|i| self.entries.remove(i).1)
    }

    /// The one revision and its value, when there is exactly one.
    #[inline]
    pub fn only(&self) -> Option<(u32, &T)> {
        match self.entries.as_slice() {
            [(r, v)] => Some((*r, v)),
            _ => None,
        }
    }

    /// The revisions and their values, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (&u32, &T)> {
        self.entries.iter().map(|(r, v)| (r, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|e| &e.1)
    }
}

/// Printed as the map it is, `{1: ..., 2: ...}`.
impl<T: core::fmt::Debug> core::fmt::Debug for RevisionMap<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod revision_map_tests {
    use super::*;
    use crate::util::prng::Prng;
    use alloc::collections::BTreeMap;

    /// Random adds, changes and removes agree with a BTreeMap.
    #[test]
    fn agrees_with_a_btree_map() {
        for seed in 0..200u64 {
            let mut rng = Prng::new(seed);
            let mut m: RevisionMap<u32> = RevisionMap::new();
            let mut want: BTreeMap<u32, u32> = BTreeMap::new();
            for _ in 0..200 {
                let rev = 1 + rng.below(8) as u32;
                match rng.below(4) {
                    0 => assert_eq!(m.remove(&rev), want.remove(&rev), "seed {seed}"),
                    1 => {
                        if let (Some(a), Some(b)) = (m.get_mut(&rev), want.get_mut(&rev)) {
                            *a += 1;
                            *b += 1;
                        }
                    }
                    _ => {
                        *m.entry_or_default(rev) += 1;
                        *want.entry(rev).or_default() += 1;
                    }
                }
                assert_eq!(m.get(&rev), want.get(&rev), "seed {seed}");
                assert!(m.iter().eq(want.iter()), "seed {seed}");
            }
        }
    }
}

/// A controller's pod keys by ordinal, as `OrdinalSet` holds its Pending
/// ordinals: one key per ordinal over the span from the lowest ordinal held
/// to the highest (4 bytes an ordinal, where a tree took a node allocation
/// and a search of unpredictable branches per lookup). A lookup is an index;
/// the span shrinks back at either end when the ordinal there leaves, so an
/// old pod outliving many created and deleted after it keeps 4 bytes for
/// each of them until it goes.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct OrdinalMap {
    /// The ordinal of `keys[0]`.
    base: u32,
    /// A key per ordinal from `base` ([`HOLE`]: none); the first and the
    /// last are not holes (no keys when the map is empty).
    keys: Vec<u32>,
    len: u32,
}

/// No pod at this ordinal.
const HOLE: u32 = u32::MAX;

impl OrdinalMap {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The key at ordinal `o`.
    #[inline]
    pub fn get(&self, o: u32) -> Option<u32> {
        let i = o.checked_sub(self.base)? as usize;
        self.keys.get(i).copied().filter(|&k| k != HOLE)
    }

    /// Puts key `k` (not [`HOLE`]) at ordinal `o`; the key it replaces.
    pub fn insert(&mut self, o: u32, k: u32) -> Option<u32> {
        debug_assert_ne!(k, HOLE, "a pod key is below u32::MAX");
        if self.keys.is_empty() {
            self.base = o;
        } else if o < self.base {
            let shift = (self.base - o) as usize;
            self.keys.splice(0..0, core::iter::repeat_n(HOLE, shift));
            self.base = o;
        }
        let i = (o - self.base) as usize;
        if i >= self.keys.len() {
            self.keys.resize(i + 1, HOLE);
        }
        let old = core::mem::replace(&mut self.keys[i], k);
        if old == HOLE {
            self.len += 1;
            None
        } else {
            Some(old)
        }
    }

    /// Takes the key at ordinal `o` out.
    pub fn remove(&mut self, o: u32) -> Option<u32> {
        let i = o.checked_sub(self.base)? as usize;
        let old = core::mem::replace(self.keys.get_mut(i)?, HOLE);
        if old == HOLE {
            return None;
        }
        self.len -= 1;
        if self.len == 0 {
            self.keys.clear();
        } else if i + 1 == self.keys.len() {
            while self.keys.last() == Some(&HOLE) {
                self.keys.pop();
            }
        } else if i == 0 {
            let lead = self.keys.iter().take_while(|&&k| k == HOLE).count();
            self.keys.drain(..lead);
            self.base += lead as u32;
        }
        Some(old)
    }

    /// `(ordinal, key)` pairs, by ordinal.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u32, u32)> + '_ {
        let base = self.base;
        self.keys
            .iter()
            .enumerate()
            .filter(|e| *e.1 != HOLE)
            .map(move |(i, &k)| (base + i as u32, k))
    }

    /// The keys, by ordinal.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &u32> + '_ {
        self.keys.iter().filter(|&&k| k != HOLE)
    }
}

/// The key at an ordinal the map holds (a missing one is a bug: panics).
impl core::ops::Index<&u32> for OrdinalMap {
    type Output = u32;

    #[inline]
    fn index(&self, o: &u32) -> &u32 {
        let k = &self.keys[(*o - self.base) as usize];
        assert_ne!(*k, HOLE, "ordinal {o} holds no pod");
        k
    }
}

/// Printed as the map it is, `{3: 17, 4: 2}`.
impl core::fmt::Debug for OrdinalMap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod map_tests {
    use super::*;
    use crate::util::prng::Prng;
    use alloc::collections::BTreeMap;

    /// Random inserts and removes, clustered as a controller's ordinals
    /// are, agree with a BTreeMap; equal maps are equal values.
    #[test]
    fn agrees_with_a_btreemap() {
        let mut rng = Prng::new(5);
        for round in 0..200 {
            let (mut m, mut want) = (OrdinalMap::default(), BTreeMap::new());
            let span = 1 + rng.below(300) as u32;
            for _ in 0..rng.below(400) {
                let o = 1000 + rng.below(span as u64) as u32;
                if rng.chance(60) {
                    let k = rng.below(1 << 20) as u32;
                    assert_eq!(m.insert(o, k), want.insert(o, k), "round {round}");
                } else {
                    assert_eq!(m.remove(o), want.remove(&o), "round {round}");
                }
                assert_eq!(m.len(), want.len());
                assert_eq!(m.get(o), want.get(&o).copied());
            }
            assert!(m.iter().eq(want.iter().map(|(&o, &k)| (o, k))));
            assert!(m.iter().rev().eq(want.iter().rev().map(|(&o, &k)| (o, k))));
            assert!(m.values().eq(want.values()));
            for (&o, &k) in &want {
                assert_eq!(m[&o], k);
            }
            // Built again in another order, it is the same value.
            let mut again = OrdinalMap::default();
            for (&o, &k) in want.iter().rev() {
                again.insert(o, k);
            }
            assert_eq!(again, m, "round {round}");
            assert_eq!(m.is_empty(), want.is_empty());
            assert_eq!(alloc::format!("{m:?}"), alloc::format!("{want:?}"));
        }
    }
}
