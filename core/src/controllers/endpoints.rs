//! The endpoints controller (`pkg/controller/endpoint`): each Service's
//! endpoints follow the Ready pods its selector matches, from a journal of
//! moves rather than a scan of every pod.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cluster::{Cluster, OwnerId, ServiceState};
use crate::model::ServiceSpec;
use crate::util::error::Error;

impl Cluster {
    pub fn add_service(&mut self, mut spec: ServiceSpec) -> Result<(), Error> {
        spec.validate()?;
        let max = crate::util::limits::MAX_SERVICES;
        let key = crate::model::namespace::canonical(&spec.name);
        if self.services.len() >= max && !self.services.contains_key(key) {
            return Err(Error::Invalid(format!(
                "Service {}: the cluster already has {} Services, the limit (MAX_SERVICES, Kubernetes' scalability threshold of 10,000 Services a cluster); expected a Service deleted first",
                crate::util::limits::shown(&spec.name),
                self.services.len()
            )));
        }
        // A Service selects the pods of its own namespace (model/namespace.rs).
        self.use_namespace(&spec.name);
        spec.selector = crate::model::namespace::own_namespace(
            &spec.selector,
            crate::model::namespace::split(&spec.name).0,
        );
        let name = spec.name.clone();
        if let Some(old) = self.services.remove(&name) {
            self.service_books.unfile(&name, &old.spec);
        }
        self.service_books.file(&name, &spec);
        self.services.insert(name, ServiceState { spec, ready: 0 });
        Ok(())
    }

    pub fn delete_service(&mut self, name: &str) -> Result<(), Error> {
        let key = crate::model::namespace::canonical(name);
        let old = self
            .services
            .remove(key)
            .ok_or_else(|| Error::not_found("Service", name))?;
        self.service_books.unfile(key, &old.spec);
        Ok(())
    }

    /// Pod `k`'s Ready condition became `ready`: a change the next sync
    /// reads (only while a Service exists; a Service added later reads the
    /// pods as they are then).
    pub(crate) fn endpoint_moved(&mut self, k: u32, ready: bool) {
        if self.services.is_empty() {
            return;
        }
        let p = self.pod(k);
        let m = Move {
            owner: p.controller,
            ordinal: p.ordinal,
            revision: p.revision,
            ready,
        };
        self.service_books.journal.push(m);
    }

    /// The (owner, revision) pairs `sel` selects, owners in creation order:
    /// the revisions carrying the selector's first matchLabels pair, each
    /// matched whole. Deleted owners select nothing.
    fn selected_revisions(&self, sel: &crate::model::Selector) -> Vec<(u32, u32)> {
        let first = sel.match_labels.iter().next();
        let candidates: &[(u32, u32)] = match first {
            Some((k, v)) => self
                .revisions_by_label
                .get(&crate::cluster::label_hash(k, v))
                .map_or(&[], |v| v.as_slice()),
            None => &self.all_revisions,
        };
        let mut out: Vec<(u32, u32)> = candidates
            .iter()
            .filter(|&&(c, r)| {
                let ctl = &self.controllers[c as usize];
                !ctl.deleted && sel.matches(&ctl.revisions[r as usize].template.labels)
            })
            .map(|&(c, r)| (c, r + 1))
            .collect();
        out.sort_unstable();
        out
    }

    /// The endpoints of a Service with selector `sel` now: the Ready pods it
    /// selects, as (owner, ordinal), owners in creation order, ordinals
    /// ascending.
    pub(crate) fn endpoints_of(&self, sel: &crate::model::Selector) -> Vec<(OwnerId, u32)> {
        let revs = self.selected_revisions(sel);
        let mut out = Vec::new();
        for group in revs.chunk_by(|a, b| a.0 == b.0) {
            let c = group[0].0;
            let ctl = &self.controllers[c as usize];
            if group.iter().all(|&(_, r)| ctl.count(r).ready == 0) {
                continue;
            }
            for (o, k) in ctl.pods.iter() {
                let p = self.pod(k);
                if p.ready && group.iter().any(|&(_, r)| r == p.revision) {
                    out.push((OwnerId(c), o));
                }
            }
        }
        out
    }

    /// How many endpoints a Service with selector `sel` has now, from the
    /// owners' counts.
    fn endpoint_count(&self, sel: &crate::model::Selector) -> u32 {
        self.selected_revisions(sel)
            .iter()
            .map(|&(c, r)| self.controllers[c as usize].count(r).ready)
            .sum()
    }

    /// The endpoints controller's step at the end of a pass: each Service
    /// whose endpoints changed since the last sync is counted and, for a
    /// test that watches the API, told with its count and what was added
    /// and removed (Kubernetes records no Event for it).
    /// The pods' readiness changes are read once, grouped by owner and by
    /// (revision before, revision after): a Service costs the groups of
    /// the owners it selects, not their pods; a Service added since the
    /// last sync is read whole (its endpoints were none). Returns how many
    /// Services changed.
    pub(crate) fn sync_endpoints(&mut self) -> u32 {
        let mut journal = core::mem::take(&mut self.service_books.journal);
        let fresh = core::mem::take(&mut self.service_books.fresh);
        if self.services.is_empty() || (journal.is_empty() && fresh.is_empty()) {
            journal.clear();
            self.service_books.journal = journal;
            return 0;
        }
        let mut deltas: BTreeMap<String, Delta> = BTreeMap::new();
        // Each pod's change since the last sync: Ready (with its revision)
        // at the first move's start and at the last move's end. The
        // journal is in time order; a stable sort keeps it within a pod.
        journal.sort_by_key(|m| (m.owner.0, m.ordinal));
        let mut changes: Vec<(u32, u32, Option<u32>, Option<u32>)> = Vec::new();
        for pod in journal.chunk_by(|a, b| (a.owner, a.ordinal) == (b.owner, b.ordinal)) {
            let (first, last) = (pod[0], pod[pod.len() - 1]);
            let before = (!first.ready).then_some(first.revision);
            let after = last.ready.then_some(last.revision);
            if before != after {
                changes.push((first.owner.0, first.ordinal, before, after));
            }
        }
        journal.clear();
        self.service_books.journal = journal;
        for owner in changes.chunk_by(|a, b| a.0 == b.0) {
            let c = owner[0].0;
            // (before, after) classes, each with its count and its first
            // ordinals.
            let mut classes: Vec<Class> = Vec::new();
            for &(_, o, before, after) in owner {
                let i = match classes
                    .iter()
                    .position(|k| (k.before, k.after) == (before, after))
                {
                    Some(i) => i,
                    None => {
                        classes.push(Class {
                            before,
                            after,
                            count: 0,
                            first: Vec::new(),
                        });
                        classes.len() - 1
                    }
                };
                let k = &mut classes[i];
                k.count += 1;
                if k.first.len() < SHOWN {
                    k.first.push(o);
                }
            }
            let ctl = &self.controllers[c as usize];
            let mut revs: Vec<u32> = classes
                .iter()
                .flat_map(|k| k.before.into_iter().chain(k.after))
                .collect();
            revs.sort_unstable();
            revs.dedup();
            // The Services filed under a pair one of these templates carries.
            let mut names: Vec<&String> = Vec::new();
            for &r in &revs {
                for pair in ctl.revisions[r as usize - 1].template.labels.iter() {
                    let key = (pair.0.clone(), pair.1.clone());
                    if let Some(filed) = self.service_books.by_label.get(&key) {
                        names.extend(filed.iter());
                    }
                }
            }
            names.sort_unstable();
            names.dedup();
            for name in names {
                if fresh.binary_search(name).is_ok() {
                    continue;
                }
                let sel = &self.services[name].spec.selector;
                let picks = |r: Option<u32>| {
                    r.is_some_and(|r| sel.matches(&ctl.revisions[r as usize - 1].template.labels))
                };
                let mut added: Vec<u32> = Vec::new();
                let mut removed: Vec<u32> = Vec::new();
                let (mut n_added, mut n_removed) = (0, 0);
                for k in &classes {
                    match (picks(k.before), picks(k.after)) {
                        (false, true) => {
                            n_added += k.count;
                            added.extend(&k.first);
                        }
                        (true, false) => {
                            n_removed += k.count;
                            removed.extend(&k.first);
                        }
                        _ => {}
                    }
                }
                if n_added + n_removed == 0 {
                    continue;
                }
                let d = deltas.entry(name.clone()).or_default();
                d.add(OwnerId(c), n_added, added, n_removed, removed);
            }
        }
        // A Service added since the last sync: every endpoint it has now
        // is new.
        for name in &fresh {
            let Some(s) = self.services.get(name) else {
                continue;
            };
            let (n, eps) = self.first_endpoints(&s.spec.selector, SHOWN);
            let d = deltas.entry(name.clone()).or_default();
            *d = Delta::default();
            d.fresh = true;
            d.added = n;
            d.added_first = eps;
        }
        let mut changed = 0;
        for (name, d) in deltas {
            let s = self
                .services
                .get_mut(&name)
                .expect("a Service with a delta exists");
            let before = if d.fresh { 0 } else { s.ready };
            s.ready = before + d.added - d.removed;
            let ready = s.ready;
            debug_assert_eq!(
                ready,
                self.endpoint_count(&self.services[&name].spec.selector),
                "Service {name}: the count kept is the count of its Ready pods"
            );
            if d.added + d.removed == 0 {
                continue;
            }
            changed += 1;
            // The endpoints controller records no Event on success: the
            // change is told only to a test that watches the API.
            if !self.api_watched() {
                continue;
            }
            let mut msg = format!("Endpoints of {name}: {ready} ready");
            if d.added > 0 {
                msg.push_str(&format!(
                    "; added {}",
                    self.summarize(&d.added_first, d.added)
                ));
            }
            if d.removed > 0 {
                msg.push_str(&format!(
                    "; removed {}",
                    self.summarize(&d.removed_first, d.removed)
                ));
            }
            let tick = self.now;
            self.api_record(crate::cluster::ApiRecord::EndpointsChanged { tick, message: msg });
        }
        changed
    }

    /// How many endpoints a Service with selector `sel` has now (from the
    /// owners' counts), and the first `listed` of them in `endpoints_of`'
    /// order: each selected owner's pods are read only until its Ready
    /// ones are found or `listed` are, so the work is about `listed` pods,
    /// at most the selected owners' pods (when their Ready ones come last).
    pub(crate) fn first_endpoints(
        &self,
        sel: &crate::model::Selector,
        listed: usize,
    ) -> (u32, Vec<(OwnerId, u32)>) {
        let revs = self.selected_revisions(sel);
        let mut count = 0;
        let mut out = Vec::with_capacity(listed.min(16));
        for group in revs.chunk_by(|a, b| a.0 == b.0) {
            let c = group[0].0;
            let ctl = &self.controllers[c as usize];
            let ready: u32 = group.iter().map(|&(_, r)| ctl.count(r).ready).sum();
            count += ready;
            let mut left = ready;
            for (o, k) in ctl.pods.iter() {
                if left == 0 || out.len() >= listed {
                    break;
                }
                let p = self.pod(k);
                if p.ready && group.iter().any(|&(_, r)| r == p.revision) {
                    out.push((OwnerId(c), o));
                    left -= 1;
                }
            }
        }
        (count, out)
    }
}

/// How many pod names an endpoint change's message shows of those added,
/// and of those removed.
const SHOWN: usize = 5;

/// One readiness change, as the endpoints controller reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    owner: OwnerId,
    ordinal: u32,
    revision: u32,
    /// Ready after the change.
    ready: bool,
}

/// The endpoints controller's books beside the Services themselves
/// (`Cluster::services`, each with its count as of the last sync). A
/// Service's endpoints are not kept: they are the Ready pods its selector
/// matches, read from the owners' records when asked (`endpoints_of`). So
/// a Service costs its spec and two entries here, whatever it selects, and
/// a pod's readiness change costs one `Move` until the pass ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServiceBooks {
    /// Services by the first pair of their selector's matchLabels (which a
    /// template must carry to match; a Service's selector always has one,
    /// its namespace's, see `namespace::own_namespace`).
    by_label: BTreeMap<(String, String), Vec<String>>,
    /// Services added or replaced since the last sync, sorted.
    fresh: Vec<String>,
    /// Readiness changes since the last sync, while any Service exists,
    /// in order.
    journal: Vec<Move>,
}

impl ServiceBooks {
    fn file(&mut self, name: &str, spec: &ServiceSpec) {
        if let Some((k, v)) = spec.selector.match_labels.iter().next() {
            self.by_label
                .entry((k.clone(), v.clone()))
                .or_default()
                .push(String::from(name));
        }
        if let Err(i) = self.fresh.binary_search_by(|f| f.as_str().cmp(name)) {
            self.fresh.insert(i, String::from(name));
        }
    }

    fn unfile(&mut self, name: &str, spec: &ServiceSpec) {
        if let Some((k, v)) = spec.selector.match_labels.iter().next() {
            let key = (k.clone(), v.clone());
            if let Some(names) = self.by_label.get_mut(&key) {
                names.retain(|n| n != name);
                if names.is_empty() {
                    self.by_label.remove(&key);
                }
            }
        }
        if let Ok(i) = self.fresh.binary_search_by(|f| f.as_str().cmp(name)) {
            self.fresh.remove(i);
        }
    }
}

/// The pods of one owner whose change since the last sync was alike: Ready
/// with revision `before` then, Ready with `after` now (`None`: not Ready).
struct Class {
    before: Option<u32>,
    after: Option<u32>,
    count: u32,
    /// The first [`SHOWN`] ordinals, ascending.
    first: Vec<u32>,
}

/// What one sync changed for one Service.
#[derive(Default)]
struct Delta {
    /// Added since the last sync (every endpoint counts as added).
    fresh: bool,
    added: u32,
    removed: u32,
    /// The first [`SHOWN`] added and removed, owners in creation order,
    /// ordinals ascending.
    added_first: Vec<(OwnerId, u32)>,
    removed_first: Vec<(OwnerId, u32)>,
}

impl Delta {
    /// Adds one owner's changes (owners come in creation order).
    fn add(&mut self, c: OwnerId, added: u32, mut a: Vec<u32>, removed: u32, mut r: Vec<u32>) {
        self.added += added;
        self.removed += removed;
        for (list, got) in [
            (&mut self.added_first, &mut a),
            (&mut self.removed_first, &mut r),
        ] {
            got.sort_unstable();
            let room = SHOWN - list.len().min(SHOWN);
            list.extend(got.iter().take(room).map(|&o| (c, o)));
        }
    }
}

impl Cluster {
    /// "web-1, web-2" or "web-1, ..., web-5 and 7 more": the names of
    /// `shown` (the first of `total`).
    fn summarize(&self, shown: &[(OwnerId, u32)], total: u32) -> String {
        let mut s = shown
            .iter()
            .map(|&(c, o)| self.pod_name(c, o))
            .collect::<Vec<_>>()
            .join(", ");
        if total as usize > shown.len() {
            s.push_str(&format!(" and {} more", total as usize - shown.len()));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::MIB;
    use crate::model::{DeploymentSpec, NodeSpec, Resources, Selector};
    use crate::util::prng::Prng;
    use crate::ScorePolicy;
    use alloc::string::ToString;

    /// The endpoints as the controller computed them before it read the
    /// journal: every Ready pod of every live owner, matched from scratch.
    fn from_scratch(c: &Cluster, sel: &Selector) -> Vec<(OwnerId, u32)> {
        let mut eps = Vec::new();
        for (ci, ctl) in c.controllers.iter().enumerate() {
            if ctl.deleted {
                continue;
            }
            for (o, k) in ctl.pods.iter() {
                let p = c.pod(k);
                if p.ready && sel.matches(&c.revision_of(p).template.labels) {
                    eps.push((OwnerId(ci as u32), o));
                }
            }
        }
        eps
    }

    /// The message a sync logs for a Service whose endpoints went from
    /// `old` to `new` (both in owner and ordinal order), read from the two
    /// lists.
    fn message(c: &Cluster, name: &str, old: &[(OwnerId, u32)], new: &[(OwnerId, u32)]) -> String {
        let added: Vec<_> = new
            .iter()
            .copied()
            .filter(|e| old.binary_search(e).is_err())
            .collect();
        let removed: Vec<_> = old
            .iter()
            .copied()
            .filter(|e| new.binary_search(e).is_err())
            .collect();
        let list = |v: &[(OwnerId, u32)]| {
            let mut s = v
                .iter()
                .take(SHOWN)
                .map(|&(o, i)| c.pod_name(o, i))
                .collect::<Vec<_>>()
                .join(", ");
            if v.len() > SHOWN {
                s.push_str(&format!(" and {} more", v.len() - SHOWN));
            }
            s
        };
        let mut m = format!("Endpoints of {name}: {} ready", new.len());
        if !added.is_empty() {
            m.push_str(&format!("; added {}", list(&added)));
        }
        if !removed.is_empty() {
            m.push_str(&format!("; removed {}", list(&removed)));
        }
        m
    }

    fn random_selector(rng: &mut Prng) -> Selector {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if rng.chance(80) {
            pairs.push(("app", ["a", "b", "c"][rng.below(3) as usize]));
        }
        if pairs.is_empty() || rng.chance(40) {
            pairs.push(("tier", ["x", "y"][rng.below(2) as usize]));
        }
        Selector::new(&pairs)
    }

    /// Random Deployments (scaled, rolled between labels, deleted), nodes
    /// that fail and recover, and Services added, replaced and deleted:
    /// after every pass each Service's endpoints are the Ready pods its
    /// selector matches, and the pass told exactly the endpoint changes
    /// the lists before and after say (count, first five added and
    /// removed), in name order. SHEPHERD_FUZZ_OPS sets the operations; a
    /// failure names its seed.
    #[test]
    fn endpoints_follow_readiness_and_log_what_changed() {
        let ops = crate::fuzz_ops(300);
        let mut logged_in_all = 0;
        for seed in 0..(ops / 100).max(1) {
            let mut rng = Prng::new(seed ^ 0x5e41_1ce5);
            let mut c = Cluster::new();
            // Every event as emitted, before the correlator counts a repeat
            // into an earlier record.
            c.watch_api();
            c.set_heartbeat_timeout(3).unwrap();
            for i in 0..4 {
                c.add_node(NodeSpec::new(&format!("n{i}"), 8000, 16384 * MIB))
                    .unwrap();
            }
            let mut seen: BTreeMap<String, Vec<(OwnerId, u32)>> = BTreeMap::new();
            let mut apps = 0;
            for tick in 1..=100u64 {
                let template = |rng: &mut Prng, t: crate::model::PodTemplate| {
                    t.with_label("app", ["a", "b", "c"][rng.below(3) as usize])
                        .with_label("tier", ["x", "y"][rng.below(2) as usize])
                        .with_ready_after(rng.below(3) as u32)
                };
                match rng.below(9) {
                    0 | 1 => {
                        let name = format!("d{apps}");
                        apps += 1;
                        let t = template(
                            &mut rng,
                            crate::model::PodTemplate::new(Resources::new(500, 256 * MIB)),
                        );
                        let spec = DeploymentSpec::new(
                            &name,
                            rng.range(1, 6) as u32,
                            Resources::new(500, 256 * MIB),
                        )
                        .with_template(|_| t);
                        c.deploy(spec).unwrap();
                    }
                    2 if apps > 0 => {
                        let name = format!("d{}", rng.below(apps));
                        c.scale(&name, rng.below(6) as u32).ok();
                    }
                    3 if apps > 0 => {
                        let name = format!("d{}", rng.below(apps));
                        let t = template(
                            &mut rng,
                            crate::model::PodTemplate::new(Resources::new(500, 256 * MIB)),
                        );
                        c.roll(&name, t).ok();
                    }
                    4 if apps > 0 => {
                        c.delete_app(&format!("d{}", rng.below(apps))).ok();
                    }
                    5 => {
                        let name = format!("s{}", rng.below(4));
                        c.add_service(ServiceSpec {
                            name: name.clone(),
                            selector: random_selector(&mut rng),
                        })
                        .unwrap();
                        // Replaced or new: its endpoints were none.
                        seen.insert(name, Vec::new());
                    }
                    6 => {
                        let name = format!("s{}", rng.below(4));
                        if c.delete_service(&name).is_ok() {
                            seen.remove(&name);
                        }
                    }
                    7 => {
                        c.fail_node(&format!("n{}", rng.below(4))).unwrap();
                    }
                    _ => {
                        c.recover_node(&format!("n{}", rng.below(4))).unwrap();
                    }
                }
                c.set_now(tick);
                c.heartbeats();
                c.detect_failures();
                c.take_api_log();
                c.reconcile_once(ScorePolicy::BinPack);
                let got: Vec<String> = c
                    .take_api_log()
                    .into_iter()
                    .filter_map(|r| match r {
                        crate::cluster::ApiRecord::EndpointsChanged { message, .. } => {
                            Some(message)
                        }
                        _ => None,
                    })
                    .collect();
                let mut want = Vec::new();
                for (name, old) in seen.iter_mut() {
                    let sel = c.services[name].spec.selector.clone();
                    let now = from_scratch(&c, &sel);
                    let names: Vec<String> = now.iter().map(|&(o, i)| c.pod_name(o, i)).collect();
                    assert_eq!(
                        c.service_endpoints(name).unwrap(),
                        names,
                        "seed {seed} tick {tick}: {name}"
                    );
                    // The list's form: the count and the first three.
                    let listed = c.service_summaries(3);
                    let s = listed.iter().find(|s| s.name == *name).unwrap();
                    assert_eq!(
                        s.endpoint_count as usize,
                        names.len(),
                        "seed {seed} tick {tick}: {name}"
                    );
                    assert_eq!(
                        s.endpoints,
                        names[..names.len().min(3)],
                        "seed {seed} tick {tick}: {name}"
                    );
                    assert_eq!(
                        c.services[name].ready as usize,
                        now.len(),
                        "seed {seed} tick {tick}: {name}"
                    );
                    if now != *old {
                        want.push(message(&c, name, old, &now));
                        *old = now;
                    }
                }
                assert_eq!(got, want, "seed {seed} tick {tick}");
                logged_in_all += got.len();
            }
        }
        // The sweep saw Services change, not only stay empty.
        assert!(logged_in_all > 20, "{logged_in_all} endpoint changes");
    }

    /// A Service past the limit is refused with the limit named, and
    /// nothing changes; replacing an existing one is still allowed.
    #[test]
    fn services_stop_at_the_scalability_threshold() {
        let mut c = Cluster::new();
        let sel = Selector::new(&[("app", "web")]);
        for i in 0..crate::util::limits::MAX_SERVICES {
            c.add_service(ServiceSpec {
                name: format!("s{i}"),
                selector: sel.clone(),
            })
            .unwrap();
        }
        let events = c.events.len();
        let err = c
            .add_service(ServiceSpec {
                name: "one-more".into(),
                selector: sel.clone(),
            })
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("MAX_SERVICES") && err.contains("10,000"),
            "{err}"
        );
        assert_eq!(c.services.len(), crate::util::limits::MAX_SERVICES);
        assert_eq!(c.events.len(), events);
        c.add_service(ServiceSpec {
            name: "s7".into(),
            selector: Selector::new(&[("app", "api")]),
        })
        .unwrap();
    }
}
