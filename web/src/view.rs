//! What the page draws, as plain serde structs built from the engine's views.
//! Nothing here decides anything: it copies what the engine reports.
//!
//! Two shapes for two sizes. A small cluster is drawn as cards, so
//! [`Snapshot::nodes`] carries every node with its pods. A large one is drawn
//! as a grid of cells, one per node, from [`grid`]: a flat `u32` array that
//! crosses into JavaScript as one `Uint32Array` copy.

use std::collections::BTreeMap;

use serde::Serialize;
use shepherd::quantity::MIB;
use shepherd::simulator::Simulator;
use shepherd::{Cluster, Explanation, Labels, NodeId, NodeView, RenderedEvent};

/// At most this many pending pods are listed (the count is always exact).
pub const PENDING_LISTED: usize = 50;
/// At most this many upcoming script entries are listed.
pub const UPCOMING_LISTED: usize = 12;
/// At most this many endpoints of a Service are named (the count is always
/// exact): kubectl's three (`formatEndpoints` in kubernetes
/// pkg/printers/internalversion/printers.go), the rest counted as it does.
pub const ENDPOINTS_LISTED: usize = 3;

/// Requested and allocatable: millicores, or bytes. Sent as JavaScript
/// numbers: a node's bytes are exact (at most 1Pi, 2^50), and the cluster's
/// totals past 2^53 bytes (8Pi) are the nearest number, which a share
/// computed from them does not notice (an integer past 2^53 could not cross
/// at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Usage {
    #[serde(serialize_with = "as_number")]
    pub used: u64,
    #[serde(serialize_with = "as_number")]
    pub capacity: u64,
}

pub(crate) fn as_number<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    if *v <= (1 << 53) {
        s.serialize_u64(*v)
    } else {
        s.serialize_f64(*v as f64)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodChip {
    pub name: String,
    pub app: String,
    pub ready: bool,
    /// `Running` or `Lost` (a pod on a node that went NotReady).
    pub phase: &'static str,
    pub version: String,
    /// True when the pod belongs to a revision older than its app's current one.
    pub outdated: bool,
    /// Seconds (ticks) left before the taint-eviction controller deletes it,
    /// while it waits out the tolerationSeconds of a NoExecute taint.
    pub evict_in: Option<u64>,
}

/// One extended resource of a node: its name and what is requested of
/// what is allocatable, in whole units (devices).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExtendedUsage {
    pub name: String,
    #[serde(serialize_with = "as_number")]
    pub used: u64,
    #[serde(serialize_with = "as_number")]
    pub capacity: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeCard {
    pub id: u32,
    pub name: String,
    /// `Ready` or `NotReady`, as `kubectl get nodes` says it.
    pub status: &'static str,
    /// Whether the kubelet is heart-beating (a failed node stops; NotReady follows).
    pub beating: bool,
    pub cordoned: bool,
    pub draining: bool,
    /// What `kubectl drain` last printed about the node: why it waits (a
    /// budget's refusal, retried after 5 s), `node/NAME drained`, or its error.
    pub drain_status: Option<String>,
    pub cpu: Usage,
    pub memory: Usage,
    /// The extended resources the node offers (nvidia.com/gpu, ...), by
    /// name: what its pods request of each (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extended: Vec<ExtendedUsage>,
    pub pod_count: u32,
    pub labels: Labels,
    /// `key=value:Effect` (`key:Effect` without a value).
    pub taints: Vec<String>,
    /// The node lifecycle controller's taints for the Ready condition
    /// (`node.kubernetes.io/unreachable` while NotReady): state, not spec.
    pub condition_taints: Vec<String>,
    /// Sorted by app, then by name.
    pub pods: Vec<PodChip>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppRow {
    pub name: String,
    /// Deployment, DaemonSet or Pod (a bare Pod).
    pub kind: &'static str,
    pub desired: u32,
    pub current: u32,
    pub ready: u32,
    pub updated: u32,
    pub available: u32,
    pub pending: u32,
    pub revision: u32,
    pub version: String,
    pub cpu: u64,
    pub memory: u64,
    pub rolling: bool,
    pub max_surge: String,
    pub max_unavailable: String,
    /// A DaemonSet's updateStrategy as its row shows it (`OnDelete`, or
    /// `maxSurge / maxUnavailable`).
    pub strategy: Option<String>,
    /// The FailedScheduling message of its pending pods, if any.
    pub pending_reason: Option<String>,
    /// Why it has fewer pods than it wants when no scheduler can help:
    /// `FailedCreate: ...` (admission forbade its pods) or, for a bare Pod
    /// its kubelet refused, `OutOfcpu: Pod was rejected: ...`.
    pub failure: Option<String>,
    /// What `kubectl rollout status` prints now (`Cluster::rollout_status`),
    /// with kubectl's `error: ` before a progress-deadline failure.
    pub rollout_status: String,
    /// The Progressing condition is False: ProgressDeadlineExceeded.
    pub deadline_exceeded: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingPod {
    pub name: String,
    pub app: String,
    /// The scheduler's FailedScheduling message; None until it has tried.
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbRow {
    pub name: String,
    pub selector: String,
    pub expected_pods: u32,
    pub current_healthy: u32,
    pub desired_healthy: u32,
    pub disruptions_allowed: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRow {
    pub name: String,
    pub selector: String,
    /// Its endpoints now.
    pub endpoint_count: u32,
    /// The first [`ENDPOINTS_LISTED`] of them.
    pub endpoints: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Upcoming {
    pub tick: u64,
    pub what: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub tick: u64,
    pub seed: u64,
    pub policy: String,
    pub node_count: u32,
    pub ready_nodes: u32,
    pub bound_pods: u32,
    pub pending_pods: u32,
    /// Records in the event log.
    pub event_count: u32,
    /// Events counted into an earlier record so far (the event correlator):
    /// with `event_count`, the cursor of a reader that has seen everything.
    pub event_updates: u64,
    pub cpu: Usage,
    pub memory: Usage,
    /// Every node with its pods, or None when the caller asked for the grid.
    pub nodes: Option<Vec<NodeCard>>,
    pub apps: Vec<AppRow>,
    /// The first [`PENDING_LISTED`] pending pods.
    pub pending: Vec<PendingPod>,
    pub pdbs: Vec<PdbRow>,
    pub services: Vec<ServiceRow>,
    /// What the script does next (the first [`UPCOMING_LISTED`] entries).
    pub upcoming: Vec<Upcoming>,
    pub upcoming_count: u32,
    /// The caption for this tick, if the scenario has one.
    pub note: Option<String>,
}

/// Each live app's current revision, to mark pods of older ones.
pub type Revisions = BTreeMap<String, u32>;

pub fn revisions(c: &Cluster) -> Revisions {
    c.apps().map(|a| (a.name, a.revision)).collect()
}

pub fn node_card(c: &Cluster, revs: &Revisions, n: &NodeView<'_>) -> NodeCard {
    let mut pods: Vec<PodChip> = c
        .pods_on(n.id)
        .map(|p| {
            let current = revs.get(p.app).copied().unwrap_or(p.revision);
            PodChip {
                name: p.name(),
                app: p.app.to_string(),
                ready: p.ready,
                phase: p.phase.as_str(),
                version: p.template.version.clone(),
                // A DaemonSet pod's revision is per node: the engine says.
                outdated: match p.kind {
                    shepherd::WorkloadKind::Deployment => p.revision != current,
                    _ => p.outdated,
                },
                evict_in: p.eviction_at.map(|at| at.saturating_sub(c.now())),
            }
        })
        .collect();
    pods.sort_by(|a, b| {
        a.app
            .cmp(&b.app)
            .then_with(|| a.name.len().cmp(&b.name.len()))
            .then_with(|| a.name.cmp(&b.name))
    });
    NodeCard {
        id: n.id.0,
        name: n.name().to_string(),
        status: if n.ready { "Ready" } else { "NotReady" },
        beating: n.beating,
        cordoned: n.cordoned,
        draining: n.draining,
        drain_status: n.drain_status.map(str::to_string),
        cpu: Usage {
            used: n.allocated.cpu_millis,
            capacity: n.spec.capacity.cpu_millis,
        },
        memory: Usage {
            used: n.allocated.memory_bytes,
            capacity: n.spec.capacity.memory_bytes,
        },
        extended: {
            use shepherd::model::scalar::{classify, ScalarKind};
            let used = c.scalars_requested(n.id);
            n.spec
                .scalars
                .iter()
                .filter(|(k, _)| classify(k) == Ok(ScalarKind::Extended))
                .map(|(k, v)| ExtendedUsage {
                    name: k.to_string(),
                    used: used.get(k),
                    capacity: v,
                })
                .collect()
        },
        pod_count: n.pod_count,
        labels: n.spec.labels.clone(),
        taints: n.spec.taints.iter().map(|t| t.to_string()).collect(),
        condition_taints: c
            .condition_taints(n.id)
            .iter()
            .map(|t| t.to_string())
            .collect(),
        pods,
    }
}

/// One node by its id, with its pods: what a click on a grid cell shows.
pub fn node_by_id(c: &Cluster, id: u32) -> Option<NodeCard> {
    c.node_by_id(NodeId(id))
        .map(|n| node_card(c, &revisions(c), &n))
}

/// Values per node in [`grid`].
pub const GRID_STRIDE: usize = 7;
/// Bits of a grid cell's flags.
pub const FLAG_READY: u32 = 1;
pub const FLAG_BEATING: u32 = 2;
pub const FLAG_CORDONED: u32 = 4;
pub const FLAG_DRAINING: u32 = 8;
pub const FLAG_TAINTED: u32 = 16;

/// Every node as [`GRID_STRIDE`] numbers, by id:
/// `[id, cpuUsed, cpuCapacity, memoryUsed, memoryCapacity, pods, flags]`,
/// cpu in millicores and memory in whole MiB (rounded up: the engine counts
/// bytes, and 1Pi of them would not fit), so that every value fits in `u32`
/// (the engine's bounds: 1,000,000 cores, 1Pi).
pub fn grid(c: &Cluster) -> Vec<u32> {
    let mut out = Vec::with_capacity(c.node_count() * GRID_STRIDE);
    for n in c.nodes() {
        let bit = |on: bool, flag: u32| if on { flag } else { 0 };
        let flags = bit(n.ready, FLAG_READY)
            | bit(n.beating, FLAG_BEATING)
            | bit(n.cordoned, FLAG_CORDONED)
            | bit(n.draining, FLAG_DRAINING)
            | bit(!n.spec.taints.is_empty(), FLAG_TAINTED);
        out.extend_from_slice(&[
            n.id.0,
            clamp(n.allocated.cpu_millis),
            clamp(n.spec.capacity.cpu_millis),
            clamp(n.allocated.memory_bytes.div_ceil(MIB)),
            clamp(n.spec.capacity.memory_bytes.div_ceil(MIB)),
            n.pod_count,
            flags,
        ]);
    }
    out
}

fn clamp(v: u64) -> u32 {
    v.min(u32::MAX as u64) as u32
}

pub fn snapshot(sim: &Simulator, with_nodes: bool, note: Option<String>) -> Snapshot {
    let c = sim.cluster();
    let mut cpu = Usage {
        used: 0,
        capacity: 0,
    };
    let mut memory = cpu;
    let mut node_count = 0;
    let mut ready_nodes = 0;
    for n in c.nodes() {
        node_count += 1;
        ready_nodes += n.ready as u32;
        cpu.used += n.allocated.cpu_millis;
        cpu.capacity += n.spec.capacity.cpu_millis;
        memory.used += n.allocated.memory_bytes;
        memory.capacity += n.spec.capacity.memory_bytes;
    }
    let nodes = with_nodes.then(|| {
        let revs = revisions(c);
        c.nodes().map(|n| node_card(c, &revs, &n)).collect()
    });
    // Per DaemonSet: its strategy cell and kubectl's rollout status line.
    let daemonsets = daemonset_lines(c);
    let apps = c
        .apps()
        .map(|a| {
            let status = c.rollout_status(&a.name);
            (a, status)
        })
        .map(|(a, status)| AppRow {
            deadline_exceeded: matches!(status, Ok(shepherd::RolloutStatus::DeadlineExceeded(_))),
            // A DaemonSet's line is kubectl's for daemon sets.
            rollout_status: match daemonsets.get(&a.name) {
                Some((_, line)) => line.clone(),
                None => status.map(|s| s.to_string()).unwrap_or_default(),
            },
            max_surge: a.strategy.max_surge.to_string(),
            max_unavailable: a.strategy.max_unavailable.to_string(),
            // A DaemonSet's cell says its own updateStrategy.
            strategy: daemonsets.get(&a.name).map(|(s, _)| s.clone()),
            kind: a.kind.as_str(),
            name: a.name,
            desired: a.desired,
            current: a.current,
            ready: a.ready,
            updated: a.updated,
            available: a.available,
            pending: a.pending,
            revision: a.revision,
            version: a.version,
            cpu: a.requests.cpu_millis,
            memory: a.requests.memory_bytes,
            rolling: a.rolling,
            pending_reason: a.pending_reason,
            failure: a.failure.map(|(r, m)| format!("{r}: {m}")),
        })
        .collect();
    // Reads the listed pending pods only (the pods in creation order per
    // owner, as a scan of every pod for the Pending ones lists them).
    let pending_pods = c.pending_count();
    let pending = if pending_pods == 0 {
        Vec::new()
    } else {
        c.pending_pods()
            .take(PENDING_LISTED)
            .map(|p| {
                let name = p.name();
                PendingPod {
                    reason: c.pending_reason(&name).ok().flatten(),
                    app: p.app.to_string(),
                    name,
                }
            })
            .collect()
    };
    let pdbs = c
        .pdb_names()
        .iter()
        .filter_map(|n| c.pdb_status(n).ok())
        .map(|s| PdbRow {
            name: s.name,
            selector: s.selector,
            expected_pods: s.expected_pods,
            current_healthy: s.current_healthy,
            desired_healthy: s.desired_healthy,
            disruptions_allowed: s.disruptions_allowed,
        })
        .collect();
    let services = c
        .service_summaries(ENDPOINTS_LISTED)
        .into_iter()
        .map(|s| ServiceRow {
            name: s.name,
            selector: s.selector,
            endpoint_count: s.endpoint_count,
            endpoints: s.endpoints,
        })
        .collect();
    let script = sim.pending_script();
    Snapshot {
        tick: sim.tick(),
        seed: sim.seed(),
        policy: sim.profile().scheduler_name.clone(),
        node_count,
        ready_nodes,
        bound_pods: c.bound_count(),
        pending_pods,
        event_count: c.events().len() as u32,
        event_updates: c.events().updates(),
        cpu,
        memory,
        nodes,
        apps,
        pending,
        pdbs,
        services,
        upcoming: script
            .iter()
            .take(UPCOMING_LISTED)
            .map(|(tick, e)| Upcoming {
                tick: *tick,
                what: e.describe(),
            })
            .collect(),
        upcoming_count: script.len() as u32,
        note,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventRow {
    /// Its place in the log: a later page may update it (its count).
    pub index: u32,
    /// When it was first seen.
    pub tick: u64,
    #[serde(rename = "type")]
    pub type_: &'static str,
    pub reason: &'static str,
    pub object: String,
    pub message: String,
    /// How many times it was seen, and when last (Kubernetes' count and
    /// lastTimestamp).
    pub count: u32,
    #[serde(rename = "lastTick")]
    pub last_tick: u64,
    /// The component that emitted it, with its node for a kubelet
    /// (kubectl's SOURCE: `kubelet, node-1`, `replicaset-controller`).
    pub source: String,
}

impl EventRow {
    fn of(index: usize, e: RenderedEvent) -> Self {
        let source = e.source_column();
        EventRow {
            index: index as u32,
            tick: e.tick,
            type_: e.type_,
            reason: e.reason,
            object: e.object,
            message: e.message,
            count: e.count,
            last_tick: e.last_tick,
            source,
        }
    }
}

/// Events after a cursor, oldest first, at most `limit` of them (the newest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventsPage {
    /// Pass this back to get the events after these.
    pub cursor: u32,
    /// Pass this back too: the updates (counts moved) seen.
    pub updates: u64,
    /// Events after the old cursor that were left out to keep within the limit.
    pub skipped: u32,
    /// The first `updated` rows are earlier records whose count moved (the
    /// page updates their rows if it still shows them); the rest are new.
    pub updated: u32,
    pub events: Vec<EventRow>,
}

/// The events a reader at (`cursor`, `updates`) has not seen: the records
/// added since (at most `limit`, the newest), after the earlier records
/// whose count moved since (at most `limit`, the latest moved).
pub fn events_since(c: &Cluster, cursor: u32, updates: u64, limit: u32) -> EventsPage {
    let all = c.events();
    let from = (cursor as usize).min(all.len());
    let start = from.max(all.len().saturating_sub(limit as usize));
    let moved: Vec<(usize, shepherd::EventRecord)> = all
        .since(shepherd::events::EventCursor { len: from, updates })
        .take_while(|(i, _)| *i < from)
        .collect();
    let mut events: Vec<EventRow> = moved[moved.len().saturating_sub(limit as usize)..]
        .iter()
        .map(|&(i, e)| EventRow::of(i, c.render_event(&e)))
        .collect();
    let updated = events.len() as u32;
    events.extend(
        all.iter_from(start)
            .enumerate()
            .map(|(j, e)| EventRow::of(start + j, c.render_event(&e))),
    );
    EventsPage {
        cursor: all.len() as u32,
        updates: all.updates(),
        skipped: (start - from) as u32,
        updated,
        events,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictRow {
    pub node: String,
    pub feasible: bool,
    /// The filter plugin that rejected the node (NodeResourcesFit, TaintToleration, ...).
    pub plugin: Option<&'static str>,
    /// Kubernetes' status code: Success, Unschedulable (preemption may
    /// help) or UnschedulableAndUnresolvable (it cannot).
    pub code: &'static str,
    pub reasons: Vec<String>,
    /// What the reasons leave out: the untolerated taint, `key=value:Effect`.
    pub detail: Option<String>,
    /// The weighted sum of the score plugins; the highest wins.
    pub total: Option<i64>,
    /// 1 for the best total (equal totals share a position).
    pub position: Option<u32>,
    /// Each score plugin's raw, normalised, weight and weighted score.
    pub scores: Vec<PluginScoreRow>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginScoreRow {
    pub plugin: &'static str,
    pub raw: i64,
    pub normalized: i64,
    pub weight: i64,
    pub weighted: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainView {
    pub pod: String,
    pub phase: &'static str,
    pub bound_to: Option<String>,
    pub cpu: u64,
    pub memory: u64,
    /// The scheduler profile's name (`default-scheduler`, `binpack`, ...).
    pub policy: String,
    pub summary: String,
    /// The plugin whose weighted score separates the best node from the
    /// runner-up, and by how much.
    pub decided_by: Option<(String, i64)>,
    /// Score plugins whose PreScore skipped for this pod: no column.
    pub skipped: Vec<&'static str>,
    pub feasible: u32,
    /// Feasible nodes in the scheduler's order, then the rejected ones by node id.
    pub nodes: Vec<VerdictRow>,
}

impl From<Explanation> for ExplainView {
    fn from(x: Explanation) -> Self {
        let mut nodes: Vec<VerdictRow> = x
            .nodes
            .into_iter()
            .map(|v| VerdictRow {
                node: v.node,
                feasible: v.feasible,
                plugin: v.plugin,
                code: v.code.as_str(),
                reasons: v.reasons,
                detail: v.detail,
                total: v.total,
                position: v.position,
                scores: v
                    .scores
                    .into_iter()
                    .map(|s| PluginScoreRow {
                        plugin: s.plugin,
                        raw: s.raw,
                        normalized: s.normalized,
                        weight: s.weight,
                        weighted: s.weighted,
                    })
                    .collect(),
            })
            .collect();
        // Stable: the scored nodes by position, then those that passed
        // but were not scored (outside a cycle's sample), then the
        // rejected ones, each in id order.
        nodes.sort_by_key(|v| (v.position.unwrap_or(u32::MAX), !v.feasible));
        ExplainView {
            pod: x.pod,
            phase: x.phase,
            bound_to: x.bound_to,
            cpu: x.requests.cpu_millis,
            memory: x.requests.memory_bytes,
            policy: x.profile,
            summary: x.summary,
            decided_by: x.decided_by,
            skipped: x.skipped,
            feasible: nodes.iter().filter(|v| v.feasible).count() as u32,
            nodes,
        }
    }
}

/// What the maxSurge / maxUnavailable cell of a DaemonSet row says.
pub fn strategy_text(d: &shepherd::DaemonSetSpec) -> String {
    use shepherd::{DaemonSetUpdateStrategyType, IntOrPercent};
    let show = |v: IntOrPercent| match v {
        IntOrPercent::Int(n) => n.to_string(),
        IntOrPercent::Percent(p) => format!("{p}%"),
    };
    match d.strategy {
        DaemonSetUpdateStrategyType::OnDelete => "OnDelete".into(),
        DaemonSetUpdateStrategyType::RollingUpdate => {
            format!("{} / {}", show(d.max_surge), show(d.max_unavailable))
        }
    }
}

/// Per live DaemonSet, by name: its strategy as its row shows it and what
/// `kubectl rollout status` prints for it. One pass over the DaemonSets' pods.
pub fn daemonset_lines(
    c: &shepherd::Cluster,
) -> std::collections::BTreeMap<String, (String, String)> {
    c.daemonset_specs()
        .zip(c.daemonsets())
        .map(|(spec, st)| {
            debug_assert_eq!(spec.name, st.name, "both in creation order");
            (
                st.name.clone(),
                (strategy_text(spec), st.rollout_status(spec.strategy)),
            )
        })
        .collect()
}
