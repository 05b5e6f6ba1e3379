//! Counts per topology domain (pods matching an affinity term, pods
//! carrying it, preference weights), kept in pages of 64 domains that are
//! allocated on first use and freed when they fall back to zero. While one
//! domain at most is counted, its count is kept in place, without pages:
//! a bare Pod's own terms are counted in the one domain of its node, so
//! they need no page and directory each.
//!
//! A term keyed by hostname has a domain per node, and most terms are a
//! small Deployment's, so a term costs the pages its pods reached, not a
//! vector as long as the nodes (docs/speed-history.md, "Comments'
//! measurements"). A page is 256 bytes of `u32`, and reading a count is two
//! loads, as the scans that read one per node need.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ops::{Add, Sub};

/// Domains per page.
const PAGE: usize = 64;

/// What a count is: `u32` for pods, `i64` for summed weights.
pub(crate) trait Count:
    Copy + Default + PartialEq + Add<Output = Self> + Sub<Output = Self>
{
}
impl Count for u32 {}
impl Count for i64 {}

/// No `PartialEq`: two equal sets of counts may hold different runs of
/// freed pages; compare `iter()`.
#[derive(Clone, Debug)]
pub(crate) struct DomainCounts<T> {
    /// Empty while at most one domain is counted (in `single`); once a
    /// second one is, every count is in the pages, until all are zero again.
    pages: Vec<Option<Box<[T; PAGE]>>>,
    /// Without pages, the one counted domain and its count; its count is
    /// zero whenever `nonzero` is 0 or there are pages.
    single: (u32, T),
    /// Domains whose count is not zero.
    nonzero: u32,
}

impl<T: Default> Default for DomainCounts<T> {
    fn default() -> Self {
        DomainCounts {
            pages: Vec::new(),
            single: (0, T::default()),
            nonzero: 0,
        }
    }
}

impl<T: Count> DomainCounts<T> {
    /// The count of domain `d` (zero for a domain never counted).
    #[inline]
    pub fn get(&self, d: u32) -> T {
        let d = d as usize;
        match self.pages.get(d / PAGE) {
            Some(Some(p)) => p[d % PAGE],
            // Zero unless this is the one domain counted without pages.
            _ if self.single.0 as usize == d => self.single.1,
            _ => T::default(),
        }
    }

    /// Whether every domain's count is zero.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nonzero == 0
    }

    /// Adds `by` to domain `d`'s count.
    pub fn add(&mut self, d: u32, by: T) {
        let v = self.get(d);
        self.set(d, v + by);
    }

    /// Takes `by` from domain `d`'s count (which holds it: a pod leaves a
    /// domain it was counted in).
    pub fn sub(&mut self, d: u32, by: T) {
        let v = self.get(d);
        self.set(d, v - by);
    }

    /// One more (`add`) or one fewer pod in domain `d`.
    #[inline]
    pub fn step(&mut self, d: u32, add: bool)
    where
        T: From<u8>,
    {
        if add {
            self.add(d, T::from(1));
        } else {
            self.sub(d, T::from(1));
        }
    }

    fn set(&mut self, d: u32, v: T) {
        let zero = T::default();
        if self.pages.is_empty() {
            if self.nonzero == 0 || self.single.0 == d {
                self.single = (d, v);
                self.nonzero = (v != zero) as u32;
                return;
            }
            if v == zero {
                return;
            }
            // A second domain: the first one's count moves into the pages.
            let (s, c) = core::mem::replace(&mut self.single, (0, zero));
            self.nonzero = 0;
            self.set_paged(s, c);
        }
        self.set_paged(d, v);
        if self.nonzero == 0 {
            // All back to zero: the directory goes too.
            self.pages = Vec::new();
        }
    }

    fn set_paged(&mut self, d: u32, v: T) {
        let zero = T::default();
        let (at, i) = (d as usize / PAGE, d as usize % PAGE);
        if self.pages.len() <= at {
            if v == zero {
                return;
            }
            self.pages.resize_with(at + 1, || None);
        }
        let slot = &mut self.pages[at];
        let page = match slot {
            Some(p) => p,
            None if v == zero => return,
            None => slot.insert(Box::new([zero; PAGE])),
        };
        let was = page[i];
        page[i] = v;
        match (was == zero, v == zero) {
            (true, false) => self.nonzero += 1,
            (false, true) => {
                self.nonzero -= 1;
                if page.iter().all(|&c| c == zero) {
                    *slot = None;
                }
            }
            _ => {}
        }
    }

    /// Writes each counted domain's count into `out` (indexed by domain,
    /// zero where nothing was counted; domains past its end are left out).
    pub fn copy_into(&self, out: &mut [T]) {
        if let Some(c) = out.get_mut(self.single.0 as usize) {
            if self.pages.is_empty() && self.nonzero == 1 {
                *c = self.single.1;
            }
        }
        for (at, page) in self.pages.iter().enumerate() {
            let Some(page) = page else { continue };
            let start = at * PAGE;
            if start >= out.len() {
                break;
            }
            let end = (start + PAGE).min(out.len());
            out[start..end].copy_from_slice(&page[..end - start]);
        }
    }

    /// The domains whose count is not zero, with their counts, by domain.
    pub fn iter(&self) -> impl Iterator<Item = (u32, T)> + '_ {
        let single = (self.pages.is_empty() && self.nonzero == 1).then_some(self.single);
        single.into_iter().chain(
            self.pages
                .iter()
                .enumerate()
                .filter_map(|(at, p)| p.as_ref().map(|p| (at, p)))
                .flat_map(|(at, p)| {
                    p.iter()
                        .enumerate()
                        .filter(|(_, c)| **c != T::default())
                        .map(move |(i, &c)| ((at * PAGE + i) as u32, c))
                }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::prng::Prng;

    /// Random adds and takes against a dense vector: every count, the
    /// emptiness, the copy and the listing agree, and a page that falls
    /// back to zero is freed.
    #[test]
    fn pages_agree_with_a_dense_vector() {
        let runs = crate::fuzz_ops(200);
        for seed in 0..runs {
            let mut rng = Prng::new(seed);
            // Every other run counts in at most three domains: the counts
            // move between the one kept in place and the pages.
            let domains = 1 + rng.below(if seed % 2 == 0 { 3 } else { 400 }) as u32;
            let mut dense = alloc::vec![0u32; domains as usize];
            let mut c = DomainCounts::<u32>::default();
            let mut w = DomainCounts::<i64>::default();
            let mut wd = alloc::vec![0i64; domains as usize];
            for _ in 0..300 {
                let d = rng.below(domains as u64) as u32;
                if rng.below(2) == 0 || dense[d as usize] == 0 {
                    c.step(d, true);
                    dense[d as usize] += 1;
                } else {
                    c.step(d, false);
                    dense[d as usize] -= 1;
                }
                let by = rng.below(200) as i64 - 100;
                w.add(d, by);
                wd[d as usize] += by;
            }
            for d in 0..domains + 70 {
                let want = dense.get(d as usize).copied().unwrap_or(0);
                assert_eq!(c.get(d), want, "seed {seed}: domain {d}");
                let want = wd.get(d as usize).copied().unwrap_or(0);
                assert_eq!(w.get(d), want, "seed {seed}: weight of domain {d}");
            }
            assert_eq!(c.is_empty(), dense.iter().all(|&v| v == 0), "seed {seed}");
            let mut out = alloc::vec![0u32; domains as usize];
            c.copy_into(&mut out);
            assert_eq!(out, dense, "seed {seed}: copy");
            let listed: Vec<(u32, u32)> = c.iter().collect();
            let want: Vec<(u32, u32)> = dense
                .iter()
                .enumerate()
                .filter(|e| *e.1 > 0)
                .map(|(d, &v)| (d as u32, v))
                .collect();
            assert_eq!(listed, want, "seed {seed}: listing");
            for (at, p) in c.pages.iter().enumerate() {
                if let Some(p) = p {
                    assert!(p.iter().any(|&v| v > 0), "seed {seed}: page {at} all zero");
                }
            }
            // Everything taken back: nothing left allocated.
            for d in 0..domains {
                for _ in 0..dense[d as usize] {
                    c.step(d, false);
                }
            }
            assert!(c.is_empty(), "seed {seed}");
            assert!(
                c.pages.iter().all(|p| p.is_none()),
                "seed {seed}: pages left"
            );
        }
    }

    /// One counted domain takes no page; a second one moves both into
    /// pages, which stay until every count is zero again.
    #[test]
    fn one_domain_is_counted_in_place() {
        let mut c = DomainCounts::<i64>::default();
        c.add(9_999, 5);
        assert!(c.pages.is_empty());
        assert_eq!((c.get(9_999), c.get(0), c.get(9_998)), (5, 0, 0));
        assert_eq!(c.iter().collect::<Vec<_>>(), [(9_999, 5)]);
        c.add(3, -2);
        assert_eq!(c.pages.iter().flatten().count(), 2);
        assert_eq!(c.iter().collect::<Vec<_>>(), [(3, -2), (9_999, 5)]);
        c.sub(9_999, 5);
        assert_eq!((c.get(9_999), c.get(3)), (0, -2));
        assert_eq!(c.pages.iter().flatten().count(), 1);
        c.add(3, 2);
        assert!(c.is_empty() && c.pages.is_empty());
        assert_eq!(c.iter().count(), 0);
    }

    #[test]
    fn a_short_copy_takes_the_domains_it_has_room_for() {
        let mut c = DomainCounts::<u32>::default();
        c.step(3, true);
        c.step(70, true);
        c.step(200, true);
        let mut out = alloc::vec![0u32; 100];
        c.copy_into(&mut out);
        assert_eq!(out[3], 1);
        assert_eq!(out[70], 1);
        assert_eq!(out.iter().sum::<u32>(), 2);
        assert_eq!(c.get(200), 1);
        assert_eq!(c.get(10_000), 0);
    }
}
