//! The expanders: how Cluster Autoscaler chooses one option among the node
//! groups that would help (cluster-autoscaler/expander/). Each expander of
//! a chain keeps the best options and hands them on; what is left after
//! the last is decided by `random`, as CA's chain falls back to it
//! (expander/factory/chain.go).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::nodegroup::{Expander, NodeGroup};
use crate::error::Error;
use crate::util::prng::Prng;

/// One way to scale up: a group, how many nodes, the pods they would take
/// (CA's `expander.Option`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleUpOption {
    /// Index into the config's groups.
    pub group: usize,
    pub nodes: u32,
    /// Indexes into the scan's list of pending pods.
    pub pods: Vec<usize>,
    /// The pods' requests summed (cpu millis, memory bytes).
    pub requested: (u64, u64),
    /// The new nodes' capacity summed (what least-waste compares with, as
    /// CA's resourcesForNode reads the template's status.capacity).
    pub allocatable: (u64, u64),
}

/// least-waste's score in millionths: wasted cpu fraction plus wasted
/// memory fraction (expander/waste/waste.go: `(available - requested) /
/// available` per resource, summed).
pub fn waste_micros(o: &ScaleUpOption) -> u64 {
    let frac = |req: u64, avail: u64| -> u64 {
        if avail == 0 {
            return 1_000_000;
        }
        (avail.saturating_sub(req) as u128 * 1_000_000 / avail as u128) as u64
    };
    frac(o.requested.0, o.allocatable.0) + frac(o.requested.1, o.allocatable.1)
}

/// The price expander's figure in millionths per hour per pod: the nodes'
/// price over the pods they take. (CA's price expander weighs node price
/// against a pod price model of its cloud; the kwok provider has no
/// pricing, so the simulation compares the price per pod placed.) `None`
/// for a group without a price.
pub fn price_per_pod(o: &ScaleUpOption, g: &NodeGroup) -> Option<u64> {
    let p = g.price_micros?;
    Some(p.saturating_mul(o.nodes as u64) / (o.pods.len().max(1) as u64))
}

/// Why the chain chose what it chose, for the event and the CLI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Index into the options given.
    pub option: usize,
    /// One line per expander of the chain, e.g. "least-waste: 6% idle
    /// against 25% for m-small".
    pub reasoning: Vec<String>,
}

/// Runs the chain over `options` (not empty).
pub fn choose(
    chain: &[Expander],
    options: &[ScaleUpOption],
    groups: &[NodeGroup],
    priorities: &[(i32, Vec<String>)],
    rng: &mut Prng,
) -> Choice {
    debug_assert!(!options.is_empty());
    let mut left: Vec<usize> = (0..options.len()).collect();
    let mut reasoning = Vec::new();
    let name = |i: usize| groups[options[i].group].name.as_str();
    for e in chain {
        if left.len() <= 1 {
            break;
        }
        let before = left.clone();
        match e {
            Expander::Random => {
                let i = left[rng.below(left.len() as u64) as usize];
                reasoning.push(format!("random: picked {} of {}", name(i), left.len()));
                left = alloc::vec![i];
            }
            Expander::MostPods => {
                let best = left
                    .iter()
                    .map(|&i| options[i].pods.len())
                    .max()
                    .unwrap_or(0);
                left.retain(|&i| options[i].pods.len() == best);
                reasoning.push(format!("most-pods: {best} pods"));
            }
            Expander::LeastWaste => {
                let best = left
                    .iter()
                    .map(|&i| waste_micros(&options[i]))
                    .min()
                    .unwrap_or(0);
                let idle = |i: usize| {
                    let o = &options[i];
                    let f = |r: u64, a: u64| {
                        if a == 0 {
                            100
                        } else {
                            (a.saturating_sub(r) * 100 + a / 2) / a
                        }
                    };
                    format!(
                        "{} {}% idle cpu, {}% idle memory",
                        name(i),
                        f(o.requested.0, o.allocatable.0),
                        f(o.requested.1, o.allocatable.1)
                    )
                };
                let worse: Vec<String> = before
                    .iter()
                    .filter(|&&i| waste_micros(&options[i]) != best)
                    .map(|&i| idle(i))
                    .collect();
                left.retain(|&i| waste_micros(&options[i]) == best);
                let mut line = format!("least-waste: {}", idle(left[0]));
                if !worse.is_empty() {
                    line.push_str(&format!(" against {}", worse.join("; ")));
                }
                reasoning.push(line);
            }
            Expander::Price => {
                let prices: Vec<(usize, Option<u64>)> = left
                    .iter()
                    .map(|&i| (i, price_per_pod(&options[i], &groups[options[i].group])))
                    .collect();
                if let Some(best) = prices.iter().filter_map(|p| p.1).min() {
                    left = prices
                        .iter()
                        .filter(|p| p.1 == Some(best))
                        .map(|p| p.0)
                        .collect();
                    reasoning.push(format!(
                        "price: {} per pod per hour",
                        super::nodegroup::format_price_micros(best)
                    ));
                } else {
                    reasoning.push("price: no group has a price".to_string());
                }
            }
            Expander::Priority => {
                let tier = priorities
                    .iter()
                    .find(|(_, res)| left.iter().any(|&i| matches_any(res, name(i))));
                match tier {
                    Some((p, res)) => {
                        left.retain(|&i| matches_any(res, name(i)));
                        reasoning.push(format!("priority: tier {p}"));
                    }
                    None => reasoning.push("priority: no tier matches; all kept".to_string()),
                }
            }
        }
    }
    if left.len() > 1 {
        let i = left[rng.below(left.len() as u64) as usize];
        reasoning.push(format!("random among {} tied options", left.len()));
        left = alloc::vec![i];
    }
    Choice {
        option: left[0],
        reasoning,
    }
}

fn matches_any(res: &[String], name: &str) -> bool {
    res.iter()
        .any(|r| Regex::parse(r).map(|re| re.is_match(name)).unwrap_or(false))
}

/// The part of Go's regexp the priority expander's examples use, matched
/// as Go's `MatchString` does (anywhere in the text unless anchored):
/// literals, `.`, `\` escapes, `*`, `+`, `?`, `^`, `$`, and `|` at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regex {
    alternatives: Vec<Vec<Atom>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Atom {
    Start,
    End,
    Char(char, Rep),
    Any(Rep),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rep {
    One,
    Star,
    Plus,
    Opt,
}

impl Regex {
    pub fn parse(s: &str) -> Result<Regex, Error> {
        let mut alternatives = Vec::new();
        let mut cur: Vec<Atom> = Vec::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            let base = match c {
                '|' => {
                    alternatives.push(core::mem::take(&mut cur));
                    continue;
                }
                '^' => {
                    cur.push(Atom::Start);
                    continue;
                }
                '$' => {
                    cur.push(Atom::End);
                    continue;
                }
                '.' => Atom::Any(Rep::One),
                '\\' => match chars.next() {
                    Some(e) if !e.is_ascii_alphanumeric() => Atom::Char(e, Rep::One),
                    _ => return Err(unsupported(s)),
                },
                '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' => return Err(unsupported(s)),
                c => Atom::Char(c, Rep::One),
            };
            let rep = match chars.peek() {
                Some('*') => Rep::Star,
                Some('+') => Rep::Plus,
                Some('?') => Rep::Opt,
                _ => Rep::One,
            };
            if rep != Rep::One {
                chars.next();
            }
            cur.push(match base {
                Atom::Any(_) => Atom::Any(rep),
                Atom::Char(c, _) => Atom::Char(c, rep),
                a => a,
            });
        }
        alternatives.push(cur);
        Ok(Regex { alternatives })
    }

    pub fn is_match(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        self.alternatives
            .iter()
            .any(|alt| (0..=t.len()).any(|start| match_here(alt, &t, start, start == 0)))
    }
}

fn unsupported(s: &str) -> Error {
    Error::Invalid(format!(
        "priority expander regex {s:?}: uses a construct the simulation does not read; expected literals, '.', '\\' escapes, '*', '+', '?', '^', '$' and '|'"
    ))
}

fn match_here(p: &[Atom], t: &[char], i: usize, at_start: bool) -> bool {
    let Some((first, rest)) = p.split_first() else {
        return true;
    };
    let one = |a: &Atom, c: char| match a {
        Atom::Any(_) => true,
        Atom::Char(x, _) => *x == c,
        _ => false,
    };
    match first {
        Atom::Start => at_start && i == 0 && match_here(rest, t, i, at_start),
        Atom::End => i == t.len() && match_here(rest, t, i, at_start),
        Atom::Char(_, rep) | Atom::Any(rep) => {
            let (lo, hi) = match rep {
                Rep::One => (1, 1),
                Rep::Opt => (0, 1),
                Rep::Star => (0, usize::MAX),
                Rep::Plus => (1, usize::MAX),
            };
            let mut n = 0;
            while n < hi && i + n < t.len() && one(first, t[i + n]) {
                n += 1;
            }
            if n < lo {
                return false;
            }
            (lo..=n).rev().any(|k| match_here(rest, t, i + k, at_start))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_subset_matches_as_go_matchstring() {
        let r = |p: &str, t: &str| Regex::parse(p).unwrap().is_match(t);
        assert!(r(".*t2\\.large.*", "ng-t2.large-a"));
        assert!(!r(".*t2\\.large.*", "ng-t2xlarge"));
        assert!(r("large", "m-large"));
        assert!(!r("^large", "m-large"));
        assert!(r("^m-.*$", "m-large"));
        assert!(r("small|large", "x-large"));
        assert!(r("a+b?c", "aac"));
        assert!(Regex::parse("[a-z]").is_err());
    }
}
