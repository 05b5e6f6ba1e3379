//! What the page charts: the cluster's balance now ([`BalanceView`], from the
//! engine's `Cluster::balance`) and a few figures per tick ([`Series`]),
//! recorded by the session as ticks run so a chart never re-runs the past.

use serde::Serialize;
use shepherd::simulator::Simulator;
use shepherd::{Balance, Cluster, ResourceBalance};

/// One resource's balance, as the page receives it (see
/// `shepherd::ResourceBalance` for each figure's definition; utilisations are
/// fractions from 0 to 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    pub nodes: u32,
    /// Millicores, bytes or pods; totals past 2^53 go as the nearest
    /// JavaScript number (see `view::Usage`).
    #[serde(serialize_with = "crate::view::as_number")]
    pub requested: u64,
    #[serde(serialize_with = "crate::view::as_number")]
    pub allocatable: u64,
    /// `requested / allocatable` over the counted nodes.
    pub overall: f64,
    /// Ten buckets of utilisation: 0-10%, 10-20%, ... 90-100% (inclusive).
    pub histogram: [u32; 10],
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub std_dev: f64,
    pub in_use: u32,
    pub empty: u32,
}

impl From<&ResourceBalance> for ResourceView {
    fn from(r: &ResourceBalance) -> Self {
        ResourceView {
            nodes: r.nodes,
            requested: r.requested,
            allocatable: r.allocatable,
            overall: r.overall(),
            histogram: r.histogram,
            min: r.min,
            max: r.max,
            mean: r.mean,
            std_dev: r.std_dev,
            in_use: r.in_use,
            empty: r.empty,
        }
    }
}

/// Fragmentation measured with the largest Pending pod (see
/// `shepherd::Fragmentation`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FragmentationView {
    pub app: String,
    pub cpu_millis: u64,
    pub memory_bytes: u64,
    pub fit_on_nodes: u64,
    pub fit_pooled: u64,
    /// `fitPooled - fitOnNodes`: how many more would fit if the free space
    /// were not split across nodes.
    pub stranded: u64,
}

/// The cluster's balance as a plain object for the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceView {
    pub tick: u64,
    pub cpu: ResourceView,
    pub memory: ResourceView,
    pub pods: ResourceView,
    pub ready_nodes: u32,
    pub not_ready_nodes: u32,
    pub nodes_with_pods: u32,
    pub pending: u32,
    /// `null` when no pod is Pending.
    pub fragmentation: Option<FragmentationView>,
}

impl BalanceView {
    pub fn new(tick: u64, b: &Balance) -> BalanceView {
        BalanceView {
            tick,
            cpu: (&b.cpu).into(),
            memory: (&b.memory).into(),
            pods: (&b.pods).into(),
            ready_nodes: b.ready_nodes,
            not_ready_nodes: b.not_ready_nodes,
            nodes_with_pods: b.nodes_with_pods,
            pending: b.pending,
            fragmentation: b.fragmentation.as_ref().map(|f| FragmentationView {
                app: f.app.clone(),
                cpu_millis: f.requests.cpu_millis,
                memory_bytes: f.requests.memory_bytes,
                fit_on_nodes: f.fit_on_nodes,
                fit_pooled: f.fit_pooled,
                stranded: f.stranded(),
            }),
        }
    }
}

/// A few figures per tick, index = tick (index 0: before the first step).
///
/// Invariant: every column has `tick + 1` entries for the session's current
/// tick, and entry `t` is the cluster at the end of tick `t`. Bounded by the
/// engine's `MAX_TICK` (100,000 ticks): at most 100,001 entries of 40 bytes,
/// about 4 MB.
///
/// cpu and memory are summed over the Ready nodes, as `Cluster::balance`
/// counts them (`cpu.requested`, `cpu.allocatable`, ...): millicores and bytes,
/// held as `f64` (exact to 2^53) so the page gets a `Float64Array`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub cpu_requested: Vec<f64>,
    pub cpu_allocatable: Vec<f64>,
    pub memory_requested: Vec<f64>,
    pub memory_allocatable: Vec<f64>,
    /// Pods not bound to a node.
    pub pending: Vec<u32>,
    /// Registered nodes that are not Ready.
    pub not_ready: Vec<u32>,
    /// Registered nodes.
    pub nodes: Vec<u32>,
    /// The cluster's cost per hour in dollars: the priced nodes of
    /// Cluster Autoscaler's node groups (0 without node groups; see
    /// `crate::autoscale::nodes_and_cost`).
    pub cost_per_hour: Vec<f64>,
    /// Ready pods per Deployment, as changes (see [`ReadySeries`]).
    pub ready: ReadySeries,
}

/// One tick's figures: `(cpu requested, cpu allocatable, memory requested,
/// memory allocatable, pending, not ready)`.
pub type Point = (f64, f64, f64, f64, u32, u32);

impl Series {
    /// The figures of the cluster now: one pass over the nodes, no pod read.
    pub fn point(c: &Cluster) -> Point {
        let (mut cr, mut ca, mut mr, mut ma, mut not_ready) = (0u64, 0u64, 0u64, 0u64, 0u32);
        for n in c.nodes() {
            if n.ready {
                cr = cr.saturating_add(n.allocated.cpu_millis);
                ca = ca.saturating_add(n.spec.capacity.cpu_millis);
                mr = mr.saturating_add(n.allocated.memory_bytes);
                ma = ma.saturating_add(n.spec.capacity.memory_bytes);
            } else {
                not_ready += 1;
            }
        }
        (
            cr as f64,
            ca as f64,
            mr as f64,
            ma as f64,
            c.pending_count(),
            not_ready,
        )
    }

    /// Appends the simulator's figures as the next tick's.
    pub fn record(&mut self, sim: &Simulator) {
        let c = sim.cluster();
        let (nodes, cost) = crate::autoscale::nodes_and_cost(sim);
        self.nodes.push(nodes);
        self.cost_per_hour.push(cost);
        self.ready.record(self.len() as u32, c);
        let p = Series::point(c);
        self.cpu_requested.push(p.0);
        self.cpu_allocatable.push(p.1);
        self.memory_requested.push(p.2);
        self.memory_allocatable.push(p.3);
        self.pending.push(p.4);
        self.not_ready.push(p.5);
    }

    /// Keeps ticks `0..len`.
    pub fn truncate(&mut self, len: usize) {
        self.cpu_requested.truncate(len);
        self.cpu_allocatable.truncate(len);
        self.memory_requested.truncate(len);
        self.memory_allocatable.truncate(len);
        self.pending.truncate(len);
        self.not_ready.truncate(len);
        self.nodes.truncate(len);
        self.cost_per_hour.truncate(len);
        self.ready.truncate(len as u32);
    }

    /// Ticks recorded (the current tick + 1).
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Tick `t`'s figures, if recorded.
    pub fn at(&self, t: usize) -> Option<Point> {
        Some((
            *self.cpu_requested.get(t)?,
            *self.cpu_allocatable.get(t)?,
            *self.memory_requested.get(t)?,
            *self.memory_allocatable.get(t)?,
            *self.pending.get(t)?,
            *self.not_ready.get(t)?,
        ))
    }
}

/// A Deployment's value in [`ReadySeries`] from a tick on when it was deleted.
pub const GONE: u32 = u32::MAX;

/// Ready pods per Deployment over time, kept as changes: a Deployment's
/// ready count is recorded at the tick it first appears and at every tick it
/// differs from the tick before ([`GONE`] when the Deployment is deleted).
///
/// Recording a tick reads the controllers' books
/// (`Cluster::ready_per_deployment`), never the pods: O(Deployments). Ready
/// counts change at few ticks, so the record stays small where a column per
/// Deployment per tick would not (10,000 Deployments x 100,000 ticks).
///
/// Invariant: `ticks` is sorted; `last[s]` is slot `s`'s value after the
/// last recorded tick; slots are in the order first seen, so `first` is
/// sorted too.
#[derive(Clone, Debug, Default)]
pub struct ReadySeries {
    /// One slot per Deployment seen, in the order first seen: its name.
    pub names: Vec<String>,
    /// The tick each slot was first seen at.
    first: Vec<u32>,
    /// Each slot's value after the last recorded tick.
    last: Vec<u32>,
    /// The slot of a controller id, `u32::MAX` when not seen.
    slot_of: Vec<u32>,
    /// The controller id of each slot.
    id_of: Vec<u32>,
    /// Scratch for [`ReadySeries::record`]: which slots the tick saw.
    seen: Vec<bool>,
    /// The changes, in tick order: `(tick, slot, ready or GONE)` in three columns.
    pub ticks: Vec<u32>,
    pub slots: Vec<u32>,
    pub values: Vec<u32>,
}

/// Two records are equal when they say the same: the same Deployments and
/// the same changes (bookkeeping and scratch aside).
impl PartialEq for ReadySeries {
    fn eq(&self, o: &Self) -> bool {
        (&self.names, &self.ticks, &self.slots, &self.values)
            == (&o.names, &o.ticks, &o.slots, &o.values)
    }
}

impl ReadySeries {
    /// Records tick `tick` (the next one: ticks are recorded in order).
    pub fn record(&mut self, tick: u32, c: &Cluster) {
        self.seen.clear();
        self.seen.resize(self.names.len(), false);
        for (id, name, ready) in c.ready_per_deployment() {
            let i = id.0 as usize;
            if self.slot_of.len() <= i {
                self.slot_of.resize(i + 1, u32::MAX);
            }
            let slot = match self.slot_of[i] {
                u32::MAX => {
                    let s = self.names.len() as u32;
                    self.names.push(name.into());
                    self.first.push(tick);
                    self.last.push(GONE);
                    self.id_of.push(id.0);
                    self.seen.push(false);
                    self.slot_of[i] = s;
                    s
                }
                s => s,
            } as usize;
            self.seen[slot] = true;
            if self.last[slot] != ready {
                self.push(tick, slot, ready);
            }
        }
        // Deployments deleted since the last tick: their line ends.
        for slot in 0..self.last.len() {
            if self.last[slot] != GONE && !self.seen[slot] {
                self.push(tick, slot, GONE);
            }
        }
    }

    fn push(&mut self, tick: u32, slot: usize, value: u32) {
        self.ticks.push(tick);
        self.slots.push(slot as u32);
        self.values.push(value);
        self.last[slot] = value;
    }

    /// Keeps ticks `0..len`: the changes before it and the Deployments seen before it.
    pub fn truncate(&mut self, len: u32) {
        let keep = self.ticks.partition_point(|&t| t < len);
        let slots = self.first.partition_point(|&f| f < len);
        if keep == self.ticks.len() && slots == self.first.len() {
            return;
        }
        self.ticks.truncate(keep);
        self.slots.truncate(keep);
        self.values.truncate(keep);
        for &id in &self.id_of[slots..] {
            self.slot_of[id as usize] = u32::MAX;
        }
        self.names.truncate(slots);
        self.first.truncate(slots);
        self.id_of.truncate(slots);
        self.last.clear();
        self.last.resize(slots, GONE);
        for i in 0..keep {
            let s = self.slots[i] as usize;
            self.last[s] = self.values[i];
        }
    }

    /// The index of the first change at or after tick `from`.
    pub fn changes_from(&self, from: u32) -> usize {
        self.ticks.partition_point(|&t| t < from)
    }

    /// Slot `s`'s ready count at tick `t` (`None`: not there then).
    pub fn at(&self, slot: usize, t: u32) -> Option<u32> {
        let end = self.ticks.partition_point(|&x| x <= t);
        (0..end)
            .rev()
            .find(|&i| self.slots[i] as usize == slot)
            .map(|i| self.values[i])
            .filter(|&v| v != GONE)
    }
}
