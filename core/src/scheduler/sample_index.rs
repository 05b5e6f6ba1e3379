//! Indexes that let a cycle answer over its sample without visiting it.
//!
//! kube-scheduler's sample is the first `numFeasibleNodesToFind` feasible
//! nodes from where the previous cycle stopped, in node order: a contiguous
//! range of node slots (wrapping once). Within one batch of identical pods a
//! node's feasibility and its node-local score change only when one of the
//! batch's own pods binds to it, so both can be kept in trees over the slots:
//! - [`Counts`], a Fenwick tree of feasible nodes, finds where the sample ends;
//! - [`MaxTree`], one per spread class (a node's pods of the batch and its
//!   domain), gives the best node-local score in a range, how many nodes
//!   share it, how many class members the range holds, and the k-th node
//!   with that score.
//!
//! Each query costs O(log nodes), so a cycle costs O(classes x log nodes)
//! instead of O(sample).

use alloc::vec;
use alloc::vec::Vec;

/// A Fenwick tree of 0/1 flags over node slots.
#[derive(Clone, Debug)]
pub(crate) struct Counts {
    tree: Vec<u32>,
    flags: Vec<bool>,
}

impl Counts {
    pub fn new(n: usize) -> Counts {
        Counts {
            tree: vec![0; n + 1],
            flags: vec![false; n],
        }
    }

    pub fn set(&mut self, i: usize, on: bool) {
        if self.flags[i] == on {
            return;
        }
        self.flags[i] = on;
        let mut j = i + 1;
        while j < self.tree.len() {
            if on {
                self.tree[j] += 1;
            } else {
                self.tree[j] -= 1;
            }
            j += j & j.wrapping_neg();
        }
    }

    pub fn get(&self, i: usize) -> bool {
        self.flags[i]
    }

    /// Flags set in `0..i`.
    pub fn prefix(&self, i: usize) -> u32 {
        let (mut s, mut j) = (0, i);
        while j > 0 {
            s += self.tree[j];
            j -= j & j.wrapping_neg();
        }
        s
    }

    /// Flags set in `a..b`.
    pub fn range(&self, a: usize, b: usize) -> u32 {
        self.prefix(b) - self.prefix(a)
    }

    /// The slot of the `k`-th set flag (1-based) counting from slot 0.
    /// The caller knows at least `k` flags are set.
    pub fn kth(&self, k: u32) -> usize {
        let n = self.tree.len() - 1;
        let mut pos = 0usize;
        let mut rem = k;
        let mut step = 1usize;
        while step * 2 <= n {
            step *= 2;
        }
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] < rem {
                pos = next;
                rem -= self.tree[next];
            }
            step /= 2;
        }
        pos // 0-based slot
    }
}

/// A node of [`MaxTree`]: the best score below it, how many leaves have it,
/// and how many leaves are members at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Best {
    pub max: i64,
    pub at_max: u32,
    pub members: u32,
}

pub(crate) const NONE: Best = Best {
    max: i64::MIN,
    at_max: 0,
    members: 0,
};

pub(crate) fn join(a: Best, b: Best) -> Best {
    let max = a.max.max(b.max);
    Best {
        max,
        at_max: if a.max == max { a.at_max } else { 0 } + if b.max == max { b.at_max } else { 0 },
        members: a.members + b.members,
    }
}

/// A segment tree over node slots of the members' scores.
#[derive(Clone, Debug)]
pub(crate) struct MaxTree {
    size: usize,
    t: Vec<Best>,
}

impl MaxTree {
    #[cfg(test)]
    pub fn new(n: usize) -> MaxTree {
        MaxTree::reusing(Vec::new(), n)
    }

    /// An empty tree over `n` slots in `buf`'s memory (a tree's memory
    /// comes back with [`MaxTree::into_buffer`]): big trees are not
    /// allocated and freed batch after batch.
    pub fn reusing(mut buf: Vec<Best>, n: usize) -> MaxTree {
        let size = n.next_power_of_two().max(1);
        buf.clear();
        buf.resize(2 * size, NONE);
        MaxTree { size, t: buf }
    }

    /// How many slots are members.
    pub fn members(&self) -> u32 {
        self.t[1].members
    }

    pub fn into_buffer(self) -> Vec<Best> {
        self.t
    }

    /// A tree over `n` slots whose members are `leaves` (slot, score), built
    /// bottom-up in O(n).
    #[cfg(test)]
    pub fn from_leaves(n: usize, leaves: &[(usize, i64)]) -> MaxTree {
        MaxTree::from_leaves_in(Vec::new(), n, leaves.iter().copied())
    }

    /// `from_leaves` in `buf`'s memory.
    pub fn from_leaves_in(
        buf: Vec<Best>,
        n: usize,
        leaves: impl Iterator<Item = (usize, i64)>,
    ) -> MaxTree {
        let mut t = MaxTree::reusing(buf, n);
        for (i, score) in leaves {
            t.t[t.size + i] = Best {
                max: score,
                at_max: 1,
                members: 1,
            };
        }
        for j in (1..t.size).rev() {
            t.t[j] = join(t.t[2 * j], t.t[2 * j + 1]);
        }
        t
    }

    /// Makes slot `i` a member with `score`, or (`None`) not a member.
    pub fn set(&mut self, i: usize, score: Option<i64>) {
        let mut j = i + self.size;
        self.t[j] = match score {
            Some(s) => Best {
                max: s,
                at_max: 1,
                members: 1,
            },
            None => NONE,
        };
        while j > 1 {
            j /= 2;
            self.t[j] = join(self.t[2 * j], self.t[2 * j + 1]);
        }
    }

    /// The best member score in `a..b`, how many share it, and the members.
    pub fn query(&self, a: usize, b: usize) -> Best {
        let (mut l, mut r) = (a + self.size, b + self.size);
        let (mut left, mut right) = (NONE, NONE);
        while l < r {
            if l & 1 == 1 {
                left = join(left, self.t[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                right = join(self.t[r], right);
            }
            l /= 2;
            r /= 2;
        }
        join(left, right)
    }

    /// The slot of the `k`-th (0-based) member in `a..b` whose score is
    /// `score`, in slot order.
    pub fn kth_at(&self, a: usize, b: usize, score: i64, k: u32) -> Option<usize> {
        let mut k = k;
        self.descend(1, 0, self.size, a, b, score, &mut k)
    }

    #[allow(clippy::too_many_arguments)]
    fn descend(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        a: usize,
        b: usize,
        score: i64,
        k: &mut u32,
    ) -> Option<usize> {
        if hi <= a || b <= lo || self.t[node].max < score {
            return None;
        }
        if a <= lo && hi <= b {
            let here = if self.t[node].max == score {
                self.t[node].at_max
            } else {
                0
            };
            if *k >= here {
                *k -= here;
                return None;
            }
            if hi - lo == 1 {
                return Some(lo);
            }
        }
        let mid = (lo + hi) / 2;
        self.descend(2 * node, lo, mid, a, b, score, k)
            .or_else(|| self.descend(2 * node + 1, mid, hi, a, b, score, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulator::Prng;

    #[test]
    fn trees_agree_with_a_plain_scan() {
        let mut rng = Prng::new(7);
        for n in [1usize, 2, 3, 7, 64, 100, 333] {
            let mut counts = Counts::new(n);
            let mut tree = MaxTree::new(n);
            let mut plain: Vec<Option<i64>> = vec![None; n];
            for _ in 0..400 {
                let i = rng.below(n as u64) as usize;
                let v = if rng.chance(30) {
                    None
                } else {
                    Some(rng.below(5) as i64)
                };
                plain[i] = v;
                tree.set(i, v);
                counts.set(i, v.is_some());
                let a = rng.below(n as u64) as usize;
                let b = a + rng.below((n - a) as u64 + 1) as usize;
                let members: Vec<(usize, i64)> =
                    (a..b).filter_map(|j| plain[j].map(|s| (j, s))).collect();
                let best = tree.query(a, b);
                assert_eq!(best.members as usize, members.len());
                assert_eq!(counts.range(a, b) as usize, members.len());
                if let Some(max) = members.iter().map(|m| m.1).max() {
                    let at: Vec<usize> =
                        members.iter().filter(|m| m.1 == max).map(|m| m.0).collect();
                    assert_eq!((best.max, best.at_max as usize), (max, at.len()));
                    for (k, &slot) in at.iter().enumerate() {
                        assert_eq!(tree.kth_at(a, b, max, k as u32), Some(slot));
                    }
                    assert_eq!(tree.kth_at(a, b, max, at.len() as u32), None);
                }
                let leaves: Vec<(usize, i64)> =
                    (0..n).filter_map(|j| plain[j].map(|s| (j, s))).collect();
                let bulk = MaxTree::from_leaves(n, &leaves);
                assert_eq!(bulk.query(0, n), tree.query(0, n));
                assert_eq!(bulk.query(a, b), best);
                let total = counts.prefix(n);
                for k in 1..=total {
                    let slot = counts.kth(k);
                    assert!(counts.get(slot));
                    assert_eq!(counts.prefix(slot + 1), k);
                }
            }
        }
    }
}
