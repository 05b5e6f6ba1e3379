//! What one scenario may ask of the engine, in total. Each limit keeps the
//! work of a tick, a replay and the memory of a run bounded whatever a person
//! (or a shared link) submits; each is checked before anything changes, and a
//! refusal names the limit.
//!
//! | limit | value | why this value |
//! | --- | --- | --- |
//! | [`MAX_NODES`] | 10,000 live nodes | twice Kubernetes' supported 5,000 |
//! | [`MAX_PODS`] | 300,000 desired replicas across all Deployments | twice Kubernetes' supported 150,000 pods |
//! | [`MAX_SERVICES`] | 10,000 Services | Kubernetes' scalability threshold (sig-scalability thresholds.md: 10,000 Services a cluster) |
//! | [`MAX_SCRIPT_EVENTS`] | 50,000 scripted events in one run | a generated 10,000-node cluster is 10,010 |
//! | [`MAX_TICK`] | tick 100,000 | a replay of every tick stays in seconds |
//! | names | 253 characters (DNS-1123 subdomains: nodes, Deployments, DaemonSets, Pods, budgets), 63 (Services: DNS-1035 labels) | Kubernetes' own rules per kind |
//! | label keys / values | a qualified name (an optional DNS-1123 subdomain prefix of 253 and `/`, then 63) / 63 characters | Kubernetes' own rules (apimachinery `IsQualifiedName`, `IsValidLabelValue`) |
//! | [`MAX_LIST`] | 64 entries in any one list of a declaration | Kubernetes has no such limit; ours bounds the work of every filter per node |
//! | [`MAX_VALUES`] | 256 values in one selector requirement | ours, as above, room for long `In` lists of zones or instance types |
//! | [`MAX_TEMPLATE_ENTRIES`] | 1,024 list entries in one pod template, all lists together | ours: a pod's cost grows with every term, selector and value it carries |
//! | [`MAX_TOPOLOGY_KEYS`] | 256 topology keys named by all pod templates together | ours: each key the scheduler counts by holds a domain per node |
//! | [`MAX_ANNOTATION_BYTES`] | 256 KiB of annotations (keys and values) on one object | Kubernetes' own (apimachinery `TotalAnnotationSizeLimitB`); checked on import |
//! | [`MAX_MEMORY_BYTES`] | 2^50 bytes (1Pi, 1,125,899,906,842,624) of memory on one node or in one pod's request | Kubernetes allows 2^63 - 1 bytes, but its scores multiply bytes by 100 in int64 (`(capacity - requested) * MaxNodeScore`), which wraps above 2^63 / 100 (about 80Pi); below 1Pi every product and sum the engine's scores take is exact in an i64 and equals Kubernetes' own integer result |
//! | [`MAX_CPU_MILLIS`] | 10^9 millicores (1,000,000 cores) on one node or in one pod's request | ours, far above any machine, for the same reason |
//!
//! And what the engine keeps within them, in heap bytes (checked by
//! `tests/memory.rs` at the limits): a pod at most [`POD_BYTES`], a bare
//! Pod at most [`BARE_POD_BYTES`] and [`TEMPLATE_ENTRY_BYTES`] an entry of
//! its template, a Service at most [`SERVICE_BYTES`] whatever it selects, a
//! preemptor's record at most `scheduler::record_bytes_bound` of its
//! victims.

use alloc::format;
use alloc::string::String;

/// The most CPU a node may have or a pod request, in millicores (1,000,000
/// cores): keeps every sum and score of requests inside a u64.
pub const MAX_CPU_MILLIS: u64 = 1_000_000_000;

/// The most memory a node may have or a pod request, in bytes: 2^50 (1 PiB,
/// `1Pi`). Kubernetes itself allows up to 2^63 - 1 bytes, but its scores
/// multiply bytes by 100 in int64 (noderesources' leastRequestedScore:
/// `(capacity - requested) * MaxNodeScore`), which wraps above about 2^56
/// (80 PiB); below this bound every product and sum the scores take stays
/// exact in an i64, so Shepherd's integer results are Kubernetes' (see
/// below).
pub const MAX_MEMORY_BYTES: u64 = 1 << 50;

/// The most live nodes a cluster may have: twice Kubernetes' supported 5,000.
pub const MAX_NODES: u32 = 10_000;

/// The most replicas all live Deployments may desire together: twice
/// Kubernetes' supported 150,000 pods. A rolling update may run up to
/// maxSurge more for a while.
pub const MAX_PODS: u64 = 300_000;

/// The most Services a cluster may have: Kubernetes' scalability threshold
/// of 10,000 Services a cluster (kubernetes/community,
/// sig-scalability/configs-and-limits/thresholds.md). A Service costs its
/// spec and a few entries whatever it selects (`controllers/endpoints.rs`), so this
/// bounds the Services a pod's readiness change can touch.
pub const MAX_SERVICES: usize = 10_000;

/// The most heap a pod may cost in a converged cluster, its creation and
/// bind events included (`tests/memory.rs` checks it at [`MAX_PODS`]; the
/// bench's figure is under 200 bytes).
pub const POD_BYTES: usize = 1024;

/// The most heap a bare Pod (a `v1 Pod` of its own, `BarePodSpec`) with
/// a template of no list entries may cost, converged: its owner's slot,
/// its revision and its admitted template, its pod and their events
/// (`tests/memory.rs`; about 2.7 KB). Its template's entries cost
/// [`TEMPLATE_ENTRY_BYTES`] each on top.
pub const BARE_POD_BYTES: usize = 4096;

/// The most heap one list entry of a pod template (see
/// [`MAX_TEMPLATE_ENTRIES`]) may cost, every string in it at its longest
/// (a label key of 317 bytes, a value of 63): the template is kept once,
/// as admitted, in its revision, and each distinct term once more in the
/// scheduler's books with its counts in the domains of the pods that carry
/// it. A revision serves every pod of a Deployment (its pods cost
/// [`POD_BYTES`] each whatever their template), while each bare Pod and
/// each DaemonSet pod has its own. What a term selects costs besides, as
/// Kubernetes' matching costs time: 4 bytes a revision it selects and, per
/// 64 domains where pods it selects run, a page of counts. Checked by
/// `tests/memory.rs` at [`MAX_TEMPLATE_ENTRIES`] entries of the costliest
/// kinds (most cost 0.4 to 1.1 KB).
pub const TEMPLATE_ENTRY_BYTES: usize = 1536;

/// The most heap a Service with a short name and selector may cost, its
/// events of two endpoint changes included, whatever it selects
/// (`tests/memory.rs` checks it at [`MAX_SERVICES`] Services each selecting
/// [`MAX_PODS`] Ready pods).
pub const SERVICE_BYTES: usize = 1024;

/// The most scripted events one simulator holds, fired and pending.
pub const MAX_SCRIPT_EVENTS: usize = 50_000;

/// The latest tick a script may name. A live simulator steps on past it;
/// a pod's record keeps its ticks (bound, Ready since, an eviction's
/// deadline) in 32 bits, which a tick a second fills after 136 years: a
/// later tick reads as the last one 32 bits hold.
pub const MAX_TICK: u64 = 100_000;

/// The most entries one list in a declaration may hold: labels, a
/// nodeSelector, taints, tolerations, every kind of affinity term (required
/// and preferred, pod and node), topology spread constraints, node selector
/// terms, matchExpressions, matchFields and a term's namespaces. Far above
/// real use; Kubernetes sets no count, so the bound is ours: it keeps the
/// work of every filter and score per node bounded.
pub const MAX_LIST: usize = 64;

/// The most values one selector requirement (`In`, `NotIn`) may list:
/// room for the zones or instance types a real `In` names.
pub const MAX_VALUES: usize = 256;

/// The most list entries one pod template may carry, all its lists together
/// (labels, nodeSelector, tolerations, every term, each selector's labels,
/// requirements and values, namespaces; see `PodTemplate::list_entries`).
/// Each list alone within [`MAX_LIST`] still multiplies out to millions of
/// entries (64 terms of 64 requirements of 64 values), and a pod's work in
/// the scheduler grows with them (docs/speed-history.md, "Comments'
/// measurements").
pub const MAX_TEMPLATE_ENTRIES: usize = 1024;

/// The most distinct topology keys the cluster's pod templates may name,
/// all together: inter-pod (anti-)affinity terms' and topology spread
/// constraints' `topologyKey` (the scheduler's default spreading may read
/// the zone and hostname keys besides). Each key the scheduler counts by
/// holds a domain for every node (8 bytes a node, 80 KB at [`MAX_NODES`]),
/// so a new key costs what the nodes do, not what the term naming it
/// declares, and registering a key reads every node. Kubernetes sets no
/// count; real clusters use a handful (hostname, zone, region, a rack).
pub const MAX_TOPOLOGY_KEYS: usize = 256;

/// The most bytes of annotations (keys and values together) one object may
/// carry: Kubernetes' own limit, apimachinery's `TotalAnnotationSizeLimitB`
/// (`ValidateAnnotationsSize`, 256 KiB). The engine keeps no annotations;
/// the manifest importer checks it.
pub const MAX_ANNOTATION_BYTES: usize = 256 * 1024;

/// The longest piece of a person's text an error message repeats.
pub const ECHO_CHARS: usize = 64;

/// `s` as a message may quote it: in quotes, and cut to [`ECHO_CHARS`]
/// characters with its length said, so a refusal never grows with its input.
pub fn quoted(s: &str) -> String {
    match s.char_indices().nth(ECHO_CHARS) {
        None => format!("{s:?}"),
        Some((cut, _)) => format!("{:?}... ({} characters)", &s[..cut], s.chars().count()),
    }
}

/// `s` unquoted, cut as [`quoted`] cuts it.
pub fn shown(s: &str) -> String {
    match s.char_indices().nth(ECHO_CHARS) {
        None => String::from(s),
        Some((cut, _)) => format!("{}... ({} characters)", &s[..cut], s.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_text_is_cut_and_says_its_length() {
        assert_eq!(quoted("web"), "\"web\"");
        let long = "a".repeat(10_000_000);
        let q = quoted(&long);
        assert!(q.len() < 120, "{q}");
        assert!(q.ends_with("(10000000 characters)"), "{q}");
        assert!(shown(&"é".repeat(100)).ends_with("(100 characters)"));
    }
}
