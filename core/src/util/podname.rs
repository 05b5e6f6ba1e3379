//! Generated pod names: the five characters a controller appends to its
//! pod names, as Kubernetes writes them, and back.
//!
//! The ReplicaSet and DaemonSet controllers create pods with
//! `metadata.generateName` (`<replicaset>-`, `<daemonset>-`), and the API
//! server appends five characters from the alphabet of
//! k8s.io/apimachinery/pkg/util/rand (`String`, used by
//! `names.SimpleNameGenerator`): no vowels, no `0`, `1`, `3`, so no words
//! and no look-alikes. Kubernetes draws them at random; here they are a
//! keyed bijection of the pod's ordinal, keyed by the name they extend:
//! the same script gives the same names, different owners give unrelated
//! suffixes, and a name maps back to its pod with no table (a pod keeps its
//! 64 bytes and no name is stored). The bijection is a four-round Feistel
//! network on 24 bits with cycle walking down to 27^5 values.
//!
//! An ordinal beyond 27^5 (14,348,907 pods created by one owner) takes two
//! more characters, so names never repeat.

use alloc::string::String;

/// k8s.io/apimachinery/pkg/util/rand's alphabet for generated names.
pub const ALPHABET: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";

/// The characters a generated name gets (`names.randomLength`).
pub const SUFFIX_LEN: usize = 5;

/// 27^5: the values five characters hold.
const SPACE: u32 = 14_348_907;

fn key_of(prefix: &str) -> u64 {
    // FNV-1a, then a finaliser so short prefixes spread.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in prefix.as_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

fn round(key: u64, i: u32, half: u32) -> u32 {
    let mut x = key ^ ((i as u64) << 56) ^ half as u64;
    x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    ((x >> 32) as u32) & 0xfff
}

fn feistel(key: u64, v: u32) -> u32 {
    let (mut l, mut r) = (v >> 12, v & 0xfff);
    for i in 0..4 {
        let t = l ^ round(key, i, r);
        l = r;
        r = t;
    }
    (l << 12) | r
}

fn feistel_inv(key: u64, v: u32) -> u32 {
    let (mut l, mut r) = (v >> 12, v & 0xfff);
    for i in (0..4).rev() {
        let t = r ^ round(key, i, l);
        r = l;
        l = t;
    }
    (l << 12) | r
}

/// A permutation of `0..SPACE` (cycle walking: the 24-bit permutation is
/// applied again while the value lands outside).
fn permute(key: u64, mut v: u32) -> u32 {
    loop {
        v = feistel(key, v);
        if v < SPACE {
            return v;
        }
    }
}

fn unpermute(key: u64, mut v: u32) -> u32 {
    loop {
        v = feistel_inv(key, v);
        if v < SPACE {
            return v;
        }
    }
}

fn push_base27(out: &mut String, mut v: u32, digits: usize) {
    let mut buf = [0u8; SUFFIX_LEN];
    for d in buf[..digits].iter_mut().rev() {
        *d = ALPHABET[(v % 27) as usize];
        v /= 27;
    }
    for &d in &buf[..digits] {
        out.push(d as char);
    }
}

fn digit(c: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == c).map(|i| i as u32)
}

/// Appends `-<suffix>` of `ordinal` under `prefix` to `out` (which holds
/// `prefix`, or anything: the key is `prefix`).
pub fn push_generated(out: &mut String, prefix: &str, ordinal: u32) {
    let key = key_of(prefix);
    out.push('-');
    push_base27(out, permute(key, ordinal % SPACE), SUFFIX_LEN);
    if ordinal >= SPACE {
        push_base27(out, ordinal / SPACE, 2);
    }
}

/// `<prefix>-<suffix>`.
pub fn generated(prefix: &str, ordinal: u32) -> String {
    let mut s = String::with_capacity(prefix.len() + 1 + SUFFIX_LEN);
    s.push_str(prefix);
    push_generated(&mut s, prefix, ordinal);
    s
}

/// The ordinal whose suffix under `prefix` is `suffix`, if `suffix` is one
/// that [`generated`] writes.
pub fn ordinal_of(prefix: &str, suffix: &str) -> Option<u32> {
    let b = suffix.as_bytes();
    if b.len() != SUFFIX_LEN && b.len() != SUFFIX_LEN + 2 {
        return None;
    }
    let mut v = 0u32;
    for &c in &b[..SUFFIX_LEN] {
        v = v * 27 + digit(c)?;
    }
    let low = unpermute(key_of(prefix), v);
    if b.len() == SUFFIX_LEN {
        return Some(low);
    }
    let hi = digit(b[5])? * 27 + digit(b[6])?;
    // Two more characters only for ordinals past the five's space.
    if hi == 0 {
        return None;
    }
    hi.checked_mul(SPACE)?.checked_add(low)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn round_trips_and_is_a_bijection_on_a_sample() {
        let seed = 0x5eed_u64 ^ crate::fuzz_ops(2000);
        std::println!("podname sweep seed {seed:#x}");
        let mut seen = std::collections::BTreeSet::new();
        for o in
            (0..crate::fuzz_ops(20_000) as u32).chain([SPACE - 1, SPACE, SPACE * 3 + 7, u32::MAX])
        {
            let n = generated("web-5d4c8f7b9", o);
            let (p, s) = n.rsplit_once('-').unwrap();
            assert_eq!(p, "web-5d4c8f7b9");
            assert!(s.bytes().all(|c| ALPHABET.contains(&c)), "{n}");
            assert_eq!(ordinal_of(p, s), Some(o), "{n}");
            assert!(seen.insert(n));
        }
        // Different owners: unrelated suffixes.
        assert_ne!(generated("a", 0)[2..], generated("b", 0)[2..]);
        assert_eq!(ordinal_of("web", "aaaaa"), None);
        assert_eq!(ordinal_of("web", "bcd"), None);
    }

    #[test]
    fn the_whole_space_is_a_permutation() {
        // Every 24-bit value comes back through the inverse.
        let key = key_of("x");
        for v in (0..SPACE).step_by(9973) {
            assert_eq!(unpermute(key, permute(key, v)), v);
        }
    }
}
