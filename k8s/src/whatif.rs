//! A what-if's answer ([`shepherd::whatif::WhatIf`]) as JSON: what
//! `shepherd whatif --output json` prints and what the page's What-if view
//! reads (one shape for both).

use shepherd::whatif::{Usage, WhatIf, ZoneUse};
use shepherd::Profile;

/// Requested, allocatable and free, for cpu, memory and pods.
fn usage_json(u: &Usage) -> serde_json::Value {
    let (fc, fm, fp) = u.free();
    serde_json::json!({
        "cpuMillis": {"requested": u.cpu_requested, "allocatable": u.cpu_allocatable, "free": fc},
        "memoryBytes": {"requested": u.memory_requested, "allocatable": u.memory_allocatable, "free": fm},
        "pods": {"requested": u.pods, "allocatable": u.pods_allocatable, "free": fp},
    })
}

/// A zone (or the whole cluster) before and after.
fn zone_json(z: &ZoneUse) -> serde_json::Value {
    serde_json::json!({
        "zone": z.zone,
        "nodes": {"before": z.nodes_before, "after": z.nodes_after},
        "schedulableNodes": {"before": z.schedulable_before, "after": z.schedulable_after},
        "before": usage_json(&z.before),
        "after": usage_json(&z.after),
        "allNodes": {"before": usage_json(&z.all_before), "after": usage_json(&z.all_after)},
    })
}

/// The whole answer; `input` names the cluster (a file, or the page's run).
pub fn to_json(w: &WhatIf, input: &str, profile: &Profile) -> serde_json::Value {
    use serde_json::json;
    json!({
        "input": input,
        "profile": profile.scheduler_name,
        "namespace": w.namespace,
        "start": w.start,
        "end": w.end,
        "settled": w.settled,
        "actions": w.actions.iter().map(|a| json!({
            "action": a.action, "tick": a.tick, "refused": a.refused,
        })).collect::<Vec<_>>(),
        "deleted": w.deleted.iter().map(|d| json!({
            "pod": d.pod, "owner": d.owner, "kind": d.kind.as_str(), "node": d.node,
            "tick": d.tick, "cause": d.cause.as_str(), "by": d.cause.who(),
            "message": d.message, "existedBefore": d.existed_before,
        })).collect::<Vec<_>>(),
        "moves": w.moves.iter().map(|m| json!({
            "owner": m.owner, "deleted": m.deleted, "from": m.from, "deletedAt": m.deleted_at,
            "replacement": m.replacement, "createdAt": m.created_at, "to": m.to, "boundAt": m.bound_at,
            "replacementDeletedAt": m.replacement_deleted_at,
        })).collect::<Vec<_>>(),
        "created": w.created.iter().map(|c| json!({
            "pod": c.pod, "owner": c.owner, "kind": c.kind.as_str(), "createdAt": c.created_at,
            "node": c.node, "boundAt": c.bound_at, "deletedAgain": c.deleted,
        })).collect::<Vec<_>>(),
        "pending": w.pending.iter().map(|p| json!({
            "pod": p.pod, "owner": p.owner, "wasPending": p.was_pending,
            "reason": "FailedScheduling", "message": p.message,
        })).collect::<Vec<_>>(),
        "blockedEvictions": w.blocked.iter().map(|b| json!({
            "pod": b.pod, "node": b.node, "podDisruptionBudget": b.pdb, "from": b.from,
            "until": b.until, "seconds": b.until.unwrap_or(w.end) - b.from,
            "refusals": b.refusals, "message": b.message,
        })).collect::<Vec<_>>(),
        "drains": w.drains.iter().map(|d| json!({
            "node": d.node, "started": d.started, "finished": d.finished,
            "status": d.status, "listed": d.listed,
        })).collect::<Vec<_>>(),
        "deployments": w.deployments.iter().map(|d| json!({
            "name": d.name,
            "desired": {"before": d.desired_before, "after": d.desired_after},
            "available": {"before": d.available_before, "after": d.available_after, "lowest": d.min_available, "lowestAt": d.min_at},
            "readyAfter": d.ready_after, "updatedAfter": d.updated_after,
            "unavailableSeconds": d.unavailable_ticks,
            "lostAvailability": d.lost_availability, "stalled": d.stalled,
            "conditions": d.conditions_after.iter().map(|c| json!({
                "type": c.type_.as_str(), "status": c.status.as_str(), "reason": c.reason,
                "message": c.message, "lastUpdateTime": c.last_update_time,
                "lastTransitionTime": c.last_transition_time,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "nodes": w.nodes.iter().map(|n| json!({
            "name": n.name, "zone": n.zone,
            "status": {"before": n.state_before.as_str(), "after": n.state_after.as_str()},
            "before": usage_json(&n.before), "after": usage_json(&n.after),
        })).collect::<Vec<_>>(),
        "zones": w.zones.iter().map(zone_json).collect::<Vec<_>>(),
        "total": zone_json(&w.total),
    })
}
