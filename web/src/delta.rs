//! What changed since the page's last frame: the page keeps its own copy of
//! the view ([`Snapshot`] plus the node grid) and applies these frames to it,
//! so a tick at 5,000 nodes carries a few changed cells and rows across the
//! wasm boundary instead of the whole state.
//!
//! [`Sent`] remembers what the page was sent. Each frame is computed by
//! building the small parts of the view (header, Deployment rows, Pending
//! list, budgets, Services, upcoming script) and the grid's numbers, and
//! comparing them with what was sent: a comparison costs a pass over the
//! nodes (7 numbers each, no allocation per node) and the rows, far less
//! than converting them all to JavaScript objects. The frames are correct by
//! construction as long as the page applies every one of them: the page's
//! copy equals [`view::snapshot`] after each (tests/browser/deltas.test.mjs
//! checks this after random actions).

use serde::Serialize;
use shepherd::simulator::Simulator;
use shepherd::Cluster;

use crate::view::{self, AppRow, NodeCard, PdbRow, PendingPod, ServiceRow, Snapshot, Upcoming};

/// What the page holds, as last sent.
#[derive(Clone, Debug, Default)]
pub struct Sent {
    /// Nothing sent yet (or the page asked to start over): the next frame is whole.
    started: bool,
    grid: Vec<u32>,
    /// The cards as sent, in node order; empty when the page draws the grid.
    cards: Option<Vec<NodeCard>>,
    apps: Vec<AppRow>,
    pending: Vec<PendingPod>,
    pdbs: Vec<PdbRow>,
    services: Vec<ServiceRow>,
    upcoming: Vec<Upcoming>,
}

/// The scalar part of the view, sent whole every frame (a few numbers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub tick: u64,
    pub seed: u64,
    pub policy: String,
    pub node_count: u32,
    pub ready_nodes: u32,
    pub bound_pods: u32,
    pub pending_pods: u32,
    pub event_count: u32,
    pub event_updates: u64,
    pub cpu: view::Usage,
    pub memory: view::Usage,
    pub upcoming_count: u32,
    pub note: Option<String>,
}

/// Rows of a list that changed: the list's new length and, for each row
/// that differs from what was sent (or is new), its position and contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rows<T> {
    pub len: u32,
    pub rows: Vec<(u32, T)>,
}

/// One frame: the header, every list that changed, and the grid's changed cells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// True when the page must drop what it holds and take this frame as the whole view.
    pub full: bool,
    pub header: Header,
    /// Whether the page holds node cards now (false: it draws the grid only).
    pub cards: bool,
    /// The cards that changed, while `cards`.
    pub nodes: Option<Rows<NodeCard>>,
    pub apps: Option<Rows<AppRow>>,
    /// Pending lists and the rest are short (at most 50 and 12 rows): sent whole when changed.
    pub pending: Option<Vec<PendingPod>>,
    pub pdbs: Option<Vec<PdbRow>>,
    pub services: Option<Rows<ServiceRow>>,
    pub upcoming: Option<Vec<Upcoming>>,
    /// Nodes in the grid now.
    #[serde(skip)]
    pub grid_len: u32,
    /// Indices (into the grid, in node order) of the cells that changed.
    #[serde(skip)]
    pub grid_changed: Vec<u32>,
    /// [`view::GRID_STRIDE`] numbers per changed cell, in the order of `grid_changed`.
    #[serde(skip)]
    pub grid_values: Vec<u32>,
}

/// The rows of `now` that differ from `sent`, by position.
fn diff_rows<T: Clone + PartialEq>(sent: &[T], now: &[T]) -> Vec<(u32, T)> {
    now.iter()
        .enumerate()
        .filter(|(i, r)| sent.get(*i) != Some(r))
        .map(|(i, r)| (i as u32, r.clone()))
        .collect()
}

fn rows<T: Clone + PartialEq>(sent: &[T], now: &[T], full: bool) -> Option<Rows<T>> {
    if !full && sent == now {
        return None;
    }
    Some(Rows {
        len: now.len() as u32,
        rows: if full {
            now.iter()
                .cloned()
                .enumerate()
                .map(|(i, r)| (i as u32, r))
                .collect()
        } else {
            diff_rows(sent, now)
        },
    })
}

fn changed<T: Clone + PartialEq>(sent: &[T], now: &[T], full: bool) -> Option<Vec<T>> {
    (full || sent != now).then(|| now.to_vec())
}

impl Sent {
    /// Forgets what was sent: the next frame is whole.
    pub fn restart(&mut self) {
        *self = Sent::default();
    }

    /// The frame that brings the page's copy from what was sent to `snap`
    /// (built without nodes) and the cluster's grid now; with `with_cards`,
    /// node cards too (the page draws cards). Records `snap` as sent.
    pub fn frame(&mut self, sim: &Simulator, snap: Snapshot, with_cards: bool) -> Frame {
        let c = sim.cluster();
        let full = !self.started;
        self.started = true;
        // The grid, compared cell by cell with what was sent.
        let grid = view::grid(c);
        let s = view::GRID_STRIDE;
        let (mut grid_changed, mut grid_values) = (Vec::new(), Vec::new());
        for (i, cell) in grid.chunks_exact(s).enumerate() {
            let old = self.grid.get(i * s..i * s + s);
            if full || old != Some(cell) {
                grid_changed.push(i as u32);
                grid_values.extend_from_slice(cell);
            }
        }
        let grid_len = (grid.len() / s) as u32;
        self.grid = grid;
        // Cards: only while the page draws them, and only those that changed.
        let nodes = if with_cards {
            let now: Vec<NodeCard> = {
                let revs = view::revisions(c);
                c.nodes()
                    .map(|n| view::node_card(c, &revs, &n, sim.autoscaler()))
                    .collect()
            };
            let out = match &self.cards {
                Some(sent) => rows(sent, &now, full),
                None => rows(&[], &now, true),
            };
            self.cards = Some(now);
            out
        } else {
            self.cards = None;
            None
        };
        let Snapshot {
            tick,
            seed,
            policy,
            node_count,
            ready_nodes,
            bound_pods,
            pending_pods,
            event_count,
            event_updates,
            cpu,
            memory,
            nodes: _,
            apps,
            pending,
            pdbs,
            services,
            upcoming,
            upcoming_count,
            note,
        } = snap;
        let frame = Frame {
            full,
            header: Header {
                tick,
                seed,
                policy,
                node_count,
                ready_nodes,
                bound_pods,
                pending_pods,
                event_count,
                event_updates,
                cpu,
                memory,
                upcoming_count,
                note,
            },
            cards: with_cards,
            nodes,
            apps: rows(&self.apps, &apps, full),
            pending: changed(&self.pending, &pending, full),
            pdbs: changed(&self.pdbs, &pdbs, full),
            services: rows(&self.services, &services, full),
            upcoming: changed(&self.upcoming, &upcoming, full),
            grid_len,
            grid_changed,
            grid_values,
        };
        self.apps = apps;
        self.pending = pending;
        self.pdbs = pdbs;
        self.services = services;
        self.upcoming = upcoming;
        frame
    }
}

/// Separates two event rows in [`PackedEvents::text`] (ASCII record separator).
pub const ROW_SEP: char = '\u{1e}';
/// Separates the fields of one row (ASCII unit separator).
pub const FIELD_SEP: char = '\u{1f}';

/// The events after a cursor as one string: a node's eviction writes one to
/// two hundred events in a tick, and as objects each row crossed the wasm
/// boundary as five strings and an object (a thousand crossings a tick);
/// packed, the page gets one string and splits it.
///
/// `text` holds the rows oldest first, separated by [`ROW_SEP`]; each row is
/// `index`, `tick`, `type`, `reason`, `object`, `message`, `count`,
/// `lastTick`, separated by [`FIELD_SEP`]. The two separators are control
/// characters that no name or message needs; any that a field holds is
/// written as U+FFFD, so the split always gives `count` rows of eight
/// fields. The first `updated` rows are earlier records whose count moved;
/// the rest are new. The same rows as [`view::events_since`]
/// (tests/browser/deltas.test.mjs compares the event log the page shows
/// with them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PackedEvents {
    /// Pass this back to get the events after these.
    pub cursor: u32,
    /// Pass this back too: the updates seen.
    pub updates: u64,
    /// Events after the old cursor that were left out to keep within the limit.
    pub skipped: u32,
    /// Leading rows that update earlier records.
    pub updated: u32,
    /// Rows in `text`.
    pub count: u32,
    pub text: String,
}

fn push_field(out: &mut String, field: &str) {
    if field.contains([ROW_SEP, FIELD_SEP]) {
        out.extend(field.chars().map(|ch| {
            if ch == ROW_SEP || ch == FIELD_SEP {
                char::REPLACEMENT_CHARACTER
            } else {
                ch
            }
        }));
    } else {
        out.push_str(field);
    }
}

/// [`view::events_since`], packed into one string (see [`PackedEvents`]).
pub fn events_packed(c: &Cluster, cursor: u32, updates: u64, limit: u32) -> PackedEvents {
    let page = view::events_since(c, cursor, updates, limit);
    let mut text = String::with_capacity(page.events.len() * 120);
    for (i, e) in page.events.iter().enumerate() {
        if i > 0 {
            text.push(ROW_SEP);
        }
        use std::fmt::Write;
        // Writing into a String cannot fail.
        let _ = write!(text, "{}{FIELD_SEP}{}", e.index, e.tick);
        text.push(FIELD_SEP);
        push_field(&mut text, e.type_);
        text.push(FIELD_SEP);
        push_field(&mut text, e.reason);
        text.push(FIELD_SEP);
        push_field(&mut text, &e.object);
        text.push(FIELD_SEP);
        push_field(&mut text, &e.message);
        let _ = write!(text, "{FIELD_SEP}{}{FIELD_SEP}{}", e.count, e.last_tick);
        text.push(FIELD_SEP);
        push_field(&mut text, &e.source);
    }
    PackedEvents {
        cursor: page.cursor,
        updates: page.updates,
        skipped: page.skipped,
        updated: page.updated,
        count: page.events.len() as u32,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Action;
    use crate::session::Session;
    use shepherd::Profile;

    /// The page's copy, kept as the page keeps it: rows replaced by position.
    #[derive(Default)]
    struct Copy {
        snap: Option<Snapshot>,
        cards: Option<Vec<NodeCard>>,
        grid: Vec<u32>,
    }

    fn apply<T: Clone>(list: &mut Vec<T>, r: &Rows<T>) {
        list.truncate(r.len as usize);
        for (i, row) in &r.rows {
            let i = *i as usize;
            if i < list.len() {
                list[i] = row.clone();
            } else {
                assert_eq!(i, list.len(), "rows past the end arrive in order");
                list.push(row.clone());
            }
        }
    }

    impl Copy {
        fn apply(&mut self, f: &Frame) {
            let h = &f.header;
            let s = self.snap.get_or_insert_with(|| {
                assert!(f.full, "the first frame is whole");
                Snapshot {
                    tick: 0,
                    seed: 0,
                    policy: String::new(),
                    node_count: 0,
                    ready_nodes: 0,
                    bound_pods: 0,
                    pending_pods: 0,
                    event_count: 0,
                    event_updates: 0,
                    cpu: view::Usage {
                        used: 0,
                        capacity: 0,
                    },
                    memory: view::Usage {
                        used: 0,
                        capacity: 0,
                    },
                    nodes: None,
                    apps: Vec::new(),
                    pending: Vec::new(),
                    pdbs: Vec::new(),
                    services: Vec::new(),
                    upcoming: Vec::new(),
                    upcoming_count: 0,
                    note: None,
                }
            });
            s.tick = h.tick;
            s.seed = h.seed;
            s.policy = h.policy.clone();
            s.node_count = h.node_count;
            s.ready_nodes = h.ready_nodes;
            s.bound_pods = h.bound_pods;
            s.pending_pods = h.pending_pods;
            s.event_count = h.event_count;
            s.event_updates = h.event_updates;
            s.cpu = h.cpu;
            s.memory = h.memory;
            s.upcoming_count = h.upcoming_count;
            s.note = h.note.clone();
            if let Some(r) = &f.apps {
                apply(&mut s.apps, r);
            }
            if let Some(r) = &f.services {
                apply(&mut s.services, r);
            }
            if let Some(p) = &f.pending {
                s.pending = p.clone();
            }
            if let Some(p) = &f.pdbs {
                s.pdbs = p.clone();
            }
            if let Some(u) = &f.upcoming {
                s.upcoming = u.clone();
            }
            if !f.cards {
                self.cards = None;
            } else if let Some(r) = &f.nodes {
                apply(self.cards.get_or_insert_with(Vec::new), r);
            }
            let st = view::GRID_STRIDE;
            self.grid.resize(f.grid_len as usize * st, 0);
            for (k, &i) in f.grid_changed.iter().enumerate() {
                let i = i as usize;
                self.grid[i * st..i * st + st].copy_from_slice(&f.grid_values[k * st..k * st + st]);
            }
        }
    }

    fn check(sent: &mut Sent, copy: &mut Copy, s: &Session, cards: bool, what: &str) {
        let f = sent.frame(s.simulator(), s.snapshot(false), cards);
        copy.apply(&f);
        let mut want = s.snapshot(cards);
        let cards_now = want.nodes.take();
        assert_eq!(copy.snap.as_ref(), Some(&want), "{what}: the view differs");
        assert_eq!(copy.cards, cards_now, "{what}: the cards differ");
        assert_eq!(copy.grid, s.grid(), "{what}: the grid differs");
    }

    #[test]
    fn frames_keep_the_copy_equal_to_a_snapshot() {
        let mut s = Session::new(7, Profile::bin_pack());
        let (mut sent, mut copy) = (Sent::default(), Copy::default());
        check(&mut sent, &mut copy, &s, false, "at tick 0");
        s.submit(Action::Generate {
            nodes: 60,
            pods_per_node: 5,
        })
        .unwrap();
        for t in 0..6 {
            s.step();
            check(
                &mut sent,
                &mut copy,
                &s,
                t % 2 == 0,
                &format!("tick {}", s.tick()),
            );
        }
        s.submit(Action::FailNode {
            node: "node-3".into(),
        })
        .unwrap();
        s.submit(Action::Scale {
            app: s.snapshot(false).apps[0].name.clone(),
            replicas: 1,
        })
        .unwrap();
        for _ in 0..6 {
            s.step();
            check(
                &mut sent,
                &mut copy,
                &s,
                true,
                &format!("tick {}", s.tick()),
            );
        }
        s.step_back().unwrap();
        check(&mut sent, &mut copy, &s, false, "after Back");
        s.reset(3, Profile::bin_pack());
        check(&mut sent, &mut copy, &s, true, "after Reset");
    }

    #[test]
    fn a_quiet_tick_sends_only_the_header() {
        let mut s = Session::new(1, Profile::bin_pack());
        s.submit(Action::Generate {
            nodes: 100,
            pods_per_node: 10,
        })
        .unwrap();
        let mut sent = Sent::default();
        s.run(5);
        let first = sent.frame(s.simulator(), s.snapshot(false), false);
        assert!(first.full);
        assert_eq!(first.grid_changed.len(), 100);
        s.step();
        let f = sent.frame(s.simulator(), s.snapshot(false), false);
        assert!(!f.full);
        assert_eq!(f.grid_changed, Vec::<u32>::new());
        assert_eq!((f.apps, f.pending, f.nodes), (None, None, None));
        assert!(!f.cards);
        assert_eq!(f.header.tick, 6);
    }

    /// The packed rows split back into fields.
    fn unpack(p: &PackedEvents) -> Vec<Vec<String>> {
        if p.text.is_empty() {
            return Vec::new();
        }
        p.text
            .split(ROW_SEP)
            .map(|r| r.split(FIELD_SEP).map(String::from).collect())
            .collect()
    }

    #[test]
    fn packed_events_are_the_rows_of_events_since() {
        let mut s = Session::new(5, Profile::bin_pack());
        s.submit(Action::Generate {
            nodes: 20,
            pods_per_node: 8,
        })
        .unwrap();
        s.run(3);
        s.submit(Action::FailNode {
            node: "node-2".into(),
        })
        .unwrap();
        s.run(360);
        let c = s.simulator().cluster();
        let total = c.events().len() as u32;
        assert!(total > 200, "the run writes enough events to page: {total}");
        for (cursor, limit) in [
            (0, u32::MAX),
            (0, 50),
            (total - 30, 100),
            (total, 10),
            (total + 5, 10),
        ] {
            let want = view::events_since(c, cursor, 0, limit);
            let got = events_packed(c, cursor, 0, limit);
            assert_eq!(
                (got.cursor, got.skipped),
                (want.cursor, want.skipped),
                "cursor {cursor}, limit {limit}"
            );
            assert_eq!(
                got.count as usize,
                want.events.len(),
                "cursor {cursor}, limit {limit}"
            );
            let rows: Vec<Vec<String>> = want
                .events
                .iter()
                .map(|e| {
                    vec![
                        e.index.to_string(),
                        e.tick.to_string(),
                        e.type_.into(),
                        e.reason.into(),
                        e.object.clone(),
                        e.message.clone(),
                        e.count.to_string(),
                        e.last_tick.to_string(),
                        e.source.clone(),
                    ]
                })
                .collect();
            assert_eq!(unpack(&got), rows, "cursor {cursor}, limit {limit}");
        }
    }

    /// A Service's row names its first ENDPOINTS_LISTED endpoints and
    /// counts them all, as the engine lists them: the page shows no more
    /// (a snapshot named every endpoint of every Service, 3 billion names
    /// for 10,000 Services over 300,000 pods).
    #[test]
    fn a_service_row_counts_its_endpoints_and_names_the_first() {
        let mut s = Session::new(5, Profile::bin_pack());
        s.submit(Action::Generate {
            nodes: 20,
            pods_per_node: 8,
        })
        .unwrap();
        s.run(1);
        let app = s.snapshot(false).apps[0].name.clone();
        for (name, value) in [("all", app.as_str()), ("none", "nothing")] {
            s.submit(Action::AddService {
                namespace: None,
                name: name.into(),
                selector: shepherd::labels(&[("app", value)]),
            })
            .unwrap();
        }
        s.run(3);
        let rows = s.snapshot(false).services;
        assert_eq!(rows.len(), 2);
        for row in rows {
            let all = s
                .simulator()
                .cluster()
                .service_endpoints(&row.name)
                .unwrap();
            assert_eq!(row.endpoint_count as usize, all.len(), "{}", row.name);
            let listed = all.len().min(view::ENDPOINTS_LISTED);
            assert_eq!(row.endpoints, all[..listed], "{}", row.name);
            if row.name == "all" {
                assert!(
                    all.len() > view::ENDPOINTS_LISTED,
                    "{} endpoints",
                    all.len()
                );
            }
        }
    }

    #[test]
    fn a_separator_inside_a_field_cannot_split_it() {
        let mut out = String::new();
        push_field(&mut out, "a\u{1e}b\u{1f}c");
        assert_eq!(out, "a\u{fffd}b\u{fffd}c");
        push_field(&mut out, "plain");
        assert_eq!(out, "a\u{fffd}b\u{fffd}cplain");
    }
}
