//! A vector that grows by whole chunks, so a push never moves what it holds.
//!
//! A `Vec` that doubles copies everything it holds at each doubling, into
//! memory no one has touched yet, and keeps up to half its capacity unused.
//! Natively the system allocator remaps a large block instead of copying
//! it; in WebAssembly nothing can, so the large slabs (the pods) grow by
//! chunks instead (docs/speed-history.md, "Comments' measurements").

use alloc::vec::Vec;

/// Elements per chunk, as a power of two.
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
const MASK: usize = CHUNK - 1;

/// Elements `0..len`, element `i` at `chunks[i >> CHUNK_BITS][i & MASK]`.
/// Every chunk but the last is full. The first chunk grows as a `Vec` does
/// (a small cluster keeps a small slab); each later one is allocated whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }

    /// The elements from `from` on (none when `from` is past the end).
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        let from = from.min(self.len);
        let first = from >> CHUNK_BITS;
        self.chunks[first.min(self.chunks.len())..]
            .iter()
            .enumerate()
            .flat_map(move |(j, c)| &c[if j == 0 { from & MASK } else { 0 }..])
    }

    pub fn last(&self) -> Option<&T> {
        self.chunks.last()?.last()
    }

    pub(crate) fn push(&mut self, v: T) {
        if self.len == self.chunks.len() << CHUNK_BITS {
            self.chunks.push(if self.chunks.is_empty() {
                Vec::new()
            } else {
                Vec::with_capacity(CHUNK)
            });
        }
        self.chunks[self.len >> CHUNK_BITS].push(v);
        self.len += 1;
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i >> CHUNK_BITS)?.get(i & MASK)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks.get_mut(i >> CHUNK_BITS)?.get_mut(i & MASK)
    }
}

impl<T> core::ops::Index<usize> for Chunked<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & MASK]
    }
}

impl<T> core::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> CHUNK_BITS][i & MASK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes, reads and writes agree with a `Vec` across chunk edges, and
    /// a clone (whose chunks hold no spare capacity) keeps growing right.
    #[test]
    fn agrees_with_a_vec() {
        let mut c = Chunked::default();
        let mut v = Vec::new();
        for i in 0..3 * CHUNK + 5 {
            c.push(i as u64);
            v.push(i as u64);
        }
        for i in (0..v.len()).step_by(7) {
            c[i] += 1;
            v[i] += 1;
        }
        let mut d = c.clone();
        for i in 0..CHUNK + 1 {
            d.push(i as u64);
            v.push(i as u64);
        }
        assert_eq!(d.len(), v.len());
        assert!((0..v.len()).all(|i| d[i] == v[i] && d.get(i) == Some(&v[i])));
        assert_eq!(d.get(v.len()), None);
        assert_eq!(d.get(v.len() + CHUNK), None);
        assert_eq!(c.len(), 3 * CHUNK + 5);
        assert!(d.iter().eq(v.iter()));
        assert_eq!(d.last(), v.last());
        for from in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            4 * CHUNK,
            v.len(),
            v.len() + 9,
        ] {
            assert!(d.iter_from(from).eq(v.iter().skip(from)), "from {from}");
        }
        let e: Chunked<u8> = Chunked::default();
        assert!(e.is_empty() && e.last().is_none() && e.iter_from(3).next().is_none());
    }
}
