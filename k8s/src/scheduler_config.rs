//! `kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration` to a
//! [`Profile`].
//!
//! kube-scheduler builds a profile's plugins in two steps, and so does this
//! module:
//!
//! 1. **Defaulting** (`mergePluginSet` in the v1 defaults): every default
//!    plugin sits in `multiPoint` with its weight; per extension point the
//!    user's `disabled` names (or `*`) remove defaults, an `enabled` entry
//!    with a default's name replaces it in place (a new weight keeps the
//!    order), and other enabled entries are appended.
//! 2. **Expansion** (the framework's `expandMultiPointPlugins`): each
//!    multiPoint plugin joins every extension point it implements, unless
//!    that point disables it (or disables `*`); a plugin also enabled at the
//!    point itself keeps the point's settings. The order is: plugins enabled
//!    at the point that override a multiPoint one, then the multiPoint ones,
//!    then the point's other plugins. A score weight comes from the score
//!    point if given there, else from multiPoint; 0 means 1.
//!
//! Shepherd runs the plugins of its registry (see [`Plugin`]); any other
//! plugin a configuration enables, and any argument Shepherd does not use,
//! gives a warning. Default plugins Shepherd does not run (PrioritySort,
//! NodeName, the volume plugins, ImageLocality, DefaultPreemption,
//! DefaultBinder, SchedulingGates) are the same in every profile here and
//! are not warned about.

use std::collections::HashSet;

use shepherd::{
    Plugin, Profile, Resource, ScoringStrategy, ScoringStrategyType, UtilizationShapePoint,
};

use crate::context::{child, index, looked_up, Ctx, R};
use crate::value::Value;

type Map = [(String, Value)];

/// The plugins Shepherd runs, from the engine's registry: "A, B and C".
fn simulated_plugins() -> String {
    match Plugin::NAMES.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => Plugin::NAMES.join(""),
    }
}

/// kube-scheduler's default multiPoint plugins (v1 `getDefaultPlugins`),
/// with their score weights where they score.
const DEFAULT_MULTI_POINT: &[(&str, i64)] = &[
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
];

/// The extension points a profile's `plugins` names.
const POINTS: &[&str] = &[
    "multiPoint",
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
];

/// Fields that change nothing a simulation places.
const INERT_TOP: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "healthzBindAddress",
    "metricsBindAddress",
    "enableProfiling",
    "enableContentionProfiling",
    "delayCacheUntilActive",
];

#[derive(Clone, Debug)]
struct Entry {
    name: String,
    weight: i64,
}

#[derive(Clone, Debug, Default)]
struct PluginSet {
    enabled: Vec<Entry>,
    disabled: Vec<String>,
}

impl PluginSet {
    fn disables(&self, name: &str) -> bool {
        self.disabled.iter().any(|d| d == "*" || d == name)
    }
}

/// v1 defaulting: the user's set merged onto the defaults of one point.
fn merge(defaults: &[Entry], custom: &PluginSet) -> PluginSet {
    let mut enabled = Vec::new();
    let mut replaced = vec![false; custom.enabled.len()];
    if !custom.disabled.iter().any(|d| d == "*") {
        for d in defaults {
            if custom.disabled.contains(&d.name) {
                continue;
            }
            match custom.enabled.iter().position(|c| c.name == d.name) {
                Some(i) => {
                    replaced[i] = true;
                    enabled.push(custom.enabled[i].clone());
                }
                None => enabled.push(d.clone()),
            }
        }
    }
    for (i, c) in custom.enabled.iter().enumerate() {
        if !replaced[i] {
            enabled.push(c.clone());
        }
    }
    PluginSet {
        enabled,
        disabled: custom.disabled.clone(),
    }
}

/// The framework's expansion for one extension point: the plugin names in
/// order, each with the entry that configures it.
fn expand(multi: &PluginSet, point: &PluginSet, implements: impl Fn(&str) -> bool) -> Vec<Entry> {
    let specific: Vec<&Entry> = point
        .enabled
        .iter()
        .filter(|e| implements(&e.name))
        .collect();
    if point.disabled.iter().any(|d| d == "*") {
        return specific.into_iter().cloned().collect();
    }
    let mut overrides = Vec::new();
    let mut from_multi = Vec::new();
    for e in &multi.enabled {
        if !implements(&e.name) || point.disables(&e.name) {
            continue;
        }
        if specific.iter().any(|s| s.name == e.name) {
            overrides.push(e.name.clone());
        } else if !from_multi.iter().any(|m: &Entry| m.name == e.name) {
            from_multi.push(e.clone());
        }
    }
    let mut out: Vec<Entry> = specific
        .iter()
        .filter(|s| overrides.contains(&s.name))
        .map(|e| (*e).clone())
        .collect();
    out.extend(from_multi);
    out.extend(
        specific
            .iter()
            .filter(|s| !overrides.contains(&s.name))
            .map(|e| (*e).clone()),
    );
    out
}

fn implements_filter(name: &str) -> bool {
    Plugin::parse(name).is_ok_and(|p| p.filters())
}

fn implements_score(name: &str) -> bool {
    Plugin::parse(name).is_ok_and(|p| p.scores())
}

fn plugin_set(cx: &mut Ctx, v: &Value, path: &str) -> R<PluginSet> {
    let mut set = PluginSet::default();
    // Names enabled so far, for the duplicate check in one lookup each.
    let mut enabled: HashSet<String> = HashSet::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "enabled" | "disabled" => {
                for (i, e) in cx.seq(val, &p)?.iter().enumerate() {
                    let ep = index(&p, i);
                    let mut name = None;
                    let mut weight = 0i64;
                    for (ek, ev) in cx.map(e, &ep)? {
                        let q = child(&ep, ek);
                        match ek.as_str() {
                            "name" => name = Some(cx.string(ev, &q)?.to_string()),
                            "weight" if k == "enabled" => weight = cx.count(ev, &q, 100)? as i64,
                            _ => cx.unknown(&q),
                        }
                    }
                    let name = name.filter(|n| !n.is_empty()).ok_or_else(|| {
                        cx.err(
                            &child(&ep, "name"),
                            "missing; expected a plugin name such as NodeResourcesFit",
                        )
                    })?;
                    if k == "enabled" {
                        looked_up();
                        if !enabled.insert(name.clone()) {
                            return Err(cx.err(
                                &child(&ep, "name"),
                                format!("{name} is enabled twice; expected each plugin once"),
                            ));
                        }
                        set.enabled.push(Entry { name, weight });
                    } else {
                        set.disabled.push(name);
                    }
                }
            }
            _ => cx.unknown(&p),
        }
    }
    Ok(set)
}

fn percentage(cx: &Ctx, v: &Value, path: &str) -> R<u32> {
    match v {
        Value::Null => Ok(0),
        _ => Ok(cx.count(v, path, 100)? as u32),
    }
}

/// Reads a KubeSchedulerConfiguration into the profile Shepherd runs: the
/// profile named `default-scheduler`, else the first.
pub(crate) fn profile(cx: &mut Ctx, top: &Map) -> R<Profile> {
    let mut pct = 0u32;
    let mut profiles: &[Value] = &[];
    for (k, v) in top {
        let p = child("", k);
        match k.as_str() {
            "percentageOfNodesToScore" => pct = percentage(cx, v, &p)?,
            "profiles" => profiles = cx.seq(v, &p)?,
            "podInitialBackoffSeconds" | "podMaxBackoffSeconds" => cx.warn(
                &p,
                "not simulated: a Pending pod is retried at every reconcile pass",
            ),
            "extenders" => {
                if !cx.seq(v, &p)?.is_empty() {
                    cx.warn(&p, "scheduler extenders are not simulated");
                }
            }
            k if INERT_TOP.contains(&k) => {}
            _ => cx.unknown(&p),
        }
    }
    let name_of = |v: &Value| {
        v.get("schedulerName")
            .and_then(Value::as_str)
            .unwrap_or("default-scheduler")
            .to_string()
    };
    let chosen = profiles
        .iter()
        .position(|v| name_of(v) == "default-scheduler")
        .unwrap_or(0);
    for (i, v) in profiles.iter().enumerate() {
        if i != chosen {
            cx.warn(
                &index("profiles", i),
                format!(
                    "profile {:?} is not simulated: Shepherd runs one profile ({:?}) for every pod",
                    name_of(v),
                    profiles.get(chosen).map(name_of).unwrap_or_default()
                ),
            );
        }
    }
    let mut out = Profile::kube_scheduler();
    out.percentage_of_nodes_to_score = pct;
    if let Some(v) = profiles.get(chosen) {
        one_profile(cx, v, &index("profiles", chosen), &mut out)?;
    }
    out.validate().map_err(|e| {
        let at = if profiles.is_empty() {
            String::new()
        } else {
            index("profiles", chosen)
        };
        cx.err(&at, format!("the engine refused the profile: {e}"))
    })?;
    Ok(out)
}

fn one_profile(cx: &mut Ctx, v: &Value, path: &str, out: &mut Profile) -> R<()> {
    let mut sets: Vec<(&str, PluginSet, String)> = Vec::new();
    let mut args: Vec<(String, &Value, String)> = Vec::new();
    // The plugins given arguments so far: one lookup per entry (a scan of
    // the list per entry took 34 s for 60,000 entries).
    let mut args_for: HashSet<String> = HashSet::new();
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "schedulerName" => out.scheduler_name = cx.string(val, &p)?.to_string(),
            "percentageOfNodesToScore" => {
                if !matches!(val, Value::Null) {
                    out.percentage_of_nodes_to_score = percentage(cx, val, &p)?;
                }
            }
            "plugins" => {
                for (pk, pv) in cx.map(val, &p)? {
                    let pp = child(&p, pk);
                    match POINTS.iter().find(|x| **x == pk.as_str()) {
                        Some(point) => {
                            let set = plugin_set(cx, pv, &pp)?;
                            sets.push((point, set, pp));
                        }
                        None => cx.unknown(&pp),
                    }
                }
            }
            "pluginConfig" => {
                for (i, c) in cx.seq(val, &p)?.iter().enumerate() {
                    let cp = index(&p, i);
                    let mut name = None;
                    let mut a = &Value::Null;
                    for (ck, cv) in cx.map(c, &cp)? {
                        let q = child(&cp, ck);
                        match ck.as_str() {
                            "name" => name = Some(cx.string(cv, &q)?.to_string()),
                            "args" => a = cv,
                            _ => cx.unknown(&q),
                        }
                    }
                    let name = name.ok_or_else(|| {
                        cx.err(
                            &child(&cp, "name"),
                            "missing; expected the plugin the arguments are for",
                        )
                    })?;
                    looked_up();
                    if !args_for.insert(name.clone()) {
                        return Err(cx.err(
                            &child(&cp, "name"),
                            format!("arguments for {name} are given twice; expected once"),
                        ));
                    }
                    args.push((name, a, child(&cp, "args")));
                }
            }
            _ => cx.unknown(&p),
        }
    }
    let get = |point: &str| {
        sets.iter()
            .find(|(p, _, _)| *p == point)
            .map(|(_, s, _)| s.clone())
            .unwrap_or_default()
    };
    let defaults: Vec<Entry> = DEFAULT_MULTI_POINT
        .iter()
        .map(|&(n, w)| Entry {
            name: n.to_string(),
            weight: w,
        })
        .collect();
    let multi = merge(&defaults, &get("multiPoint"));
    let filter = merge(&[], &get("filter"));
    let score = merge(&[], &get("score"));
    out.filters = expand(&multi, &filter, implements_filter)
        .iter()
        .filter_map(|e| Plugin::parse(&e.name).ok())
        .collect();
    // Weights: the score point's own entry first, then multiPoint's; 0 is 1.
    out.scores = expand(&multi, &score, implements_score)
        .iter()
        .filter_map(|e| {
            let p = Plugin::parse(&e.name).ok()?;
            let w = score
                .enabled
                .iter()
                .chain(multi.enabled.iter())
                .find(|x| x.name == e.name)
                .map_or(1, |x| x.weight);
            Some((p, if w == 0 { 1 } else { w }))
        })
        .collect();
    // What Shepherd does not run, or runs as one unit.
    let is_default = |n: &str| DEFAULT_MULTI_POINT.iter().any(|(d, _)| *d == n);
    for (point, set, pp) in &sets {
        for (i, e) in set.enabled.iter().enumerate() {
            let shepherd_runs = Plugin::parse(&e.name).is_ok();
            let q = child(&index(&child(pp, "enabled"), i), "name");
            // A default plugin enabled at multiPoint is the default profile's own.
            let default_multi_point = is_default(&e.name) && *point == "multiPoint";
            if !shepherd_runs && !default_multi_point {
                cx.warn(
                    &q,
                    format!(
                        "the plugin {} is not simulated (Shepherd runs {})",
                        e.name,
                        simulated_plugins()
                    ),
                );
            } else if shepherd_runs
                && !matches!(
                    *point,
                    "multiPoint" | "filter" | "score" | "preFilter" | "preScore"
                )
            {
                cx.warn(
                    &q,
                    format!(
                        "{} has no {point} extension point in Shepherd; ignored",
                        e.name
                    ),
                );
            }
        }
        if matches!(*point, "preFilter" | "preScore") && !set.disabled.is_empty() {
            cx.warn(
                &child(pp, "disabled"),
                format!("not simulated: Shepherd runs each plugin's {point} together with its {}; disable the plugin there instead", if *point == "preFilter" { "filter" } else { "score" }),
            );
        }
    }
    for (name, a, ap) in args {
        plugin_args(cx, &name, a, &ap, out)?;
    }
    Ok(())
}

fn plugin_args(cx: &mut Ctx, name: &str, v: &Value, path: &str, out: &mut Profile) -> R<()> {
    let inert = |k: &str| matches!(k, "apiVersion" | "kind");
    match name {
        "NodeResourcesFit" => {
            for (k, val) in cx.map(v, path)? {
                let p = child(path, k);
                match k.as_str() {
                    "scoringStrategy" => out.fit = scoring_strategy(cx, val, &p)?,
                    // ValidateNodeResourcesFitArgs: each a label name
                    // (qualified name); a group without '/'.
                    "ignoredResources" | "ignoredResourceGroups" => {
                        let group = k == "ignoredResourceGroups";
                        let mut names = Vec::new();
                        for (i, x) in cx.seq(val, &p)?.iter().enumerate() {
                            let q = index(&p, i);
                            let n = cx.string(x, &q)?.to_string();
                            if group && n.contains('/') {
                                return Err(cx.err(&q, format!("{n:?} contains '/'; expected a resource group name such as nvidia.com (Kubernetes: resource group name can't contain '/')")));
                            }
                            shepherd::model::validate_label_key(&n, "resource name")
                                .map_err(|e| cx.err(&q, e.to_string()))?;
                            names.push(n);
                        }
                        if group {
                            out.ignored_resource_groups = names;
                        } else {
                            out.ignored_resources = names;
                        }
                    }
                    k if inert(k) => {}
                    _ => cx.unknown(&p),
                }
            }
        }
        "InterPodAffinity" => {
            for (k, val) in cx.map(v, path)? {
                let p = child(path, k);
                match k.as_str() {
                    "hardPodAffinityWeight" => {
                        out.hard_pod_affinity_weight = cx.count(val, &p, 100)? as i64
                    }
                    "ignorePreferredTermsOfExistingPods" => {
                        if cx.boolean(val, &p)? {
                            cx.warn(
                                &p,
                                "not simulated: existing pods' preferred terms are scored",
                            );
                        }
                    }
                    k if inert(k) => {}
                    _ => cx.unknown(&p),
                }
            }
        }
        "PodTopologySpread" => {
            let mut kind = "System".to_string();
            let mut constraints = 0usize;
            let mut cpath = String::new();
            for (k, val) in cx.map(v, path)? {
                let p = child(path, k);
                match k.as_str() {
                    "defaultingType" => kind = cx.string(val, &p)?.to_string(),
                    "defaultConstraints" => {
                        constraints = cx.seq(val, &p)?.len();
                        cpath = p;
                    }
                    k if inert(k) => {}
                    _ => cx.unknown(&p),
                }
            }
            match kind.as_str() {
                "System" if constraints > 0 => {
                    return Err(cx.err(&cpath, "is set with defaultingType System; expected defaultConstraints only with defaultingType List, as kube-scheduler requires"))
                }
                "System" => out.system_default_spreading = true,
                "List" => {
                    out.system_default_spreading = false;
                    if constraints > 0 {
                        cx.warn(&cpath, "custom default constraints are not simulated; pods without constraints of their own are not spread by default");
                    }
                }
                _ => return Err(cx.err(&child(path, "defaultingType"), format!("found {kind:?}; expected System or List"))),
            }
        }
        "NodeResourcesBalancedAllocation" => {
            for (k, val) in cx.map(v, path)? {
                let p = child(path, k);
                match k.as_str() {
                    "resources" => {
                        let (rs, given) = resources(cx, val, &p)?;
                        // ValidateNodeResourcesBalancedAllocationArgs:
                        // every weight 1 (0 defaults to 1), each name once.
                        for (i, (r, w)) in rs.iter().enumerate() {
                            if *w != 1 {
                                return Err(cx.err(
                                    &child(&index(&p, i), "weight"),
                                    format!("is {w}; expected 1 (Kubernetes: must be 1)"),
                                ));
                            }
                            if rs[..i].iter().any(|(o, _)| o == r) {
                                return Err(cx.err(
                                    &child(&index(&p, i), "name"),
                                    format!("{} is listed twice; expected each resource once (Kubernetes: Duplicate value)", r.name()),
                                ));
                            }
                        }
                        if given && !rs.is_empty() {
                            out.balanced_resources = rs.into_iter().map(|(r, _)| r).collect();
                        }
                    }
                    k if inert(k) => {}
                    _ => cx.unknown(&p),
                }
            }
        }
        _ => {
            if !matches!(v, Value::Null) {
                cx.warn(path, format!("the arguments of {name} are not simulated"));
            }
        }
    }
    Ok(())
}

/// `resources` of a scoring strategy or of BalancedAllocation's args:
/// names with weights (0 reads as 1, as v1 defaulting does). A name no
/// node can offer (`pods`, a name in the kubernetes.io domain, a word that
/// is no resource) is warned about and left out: Kubernetes scores such a
/// resource as one the node has none of, which leaves it out too.
fn resources(cx: &mut Ctx, v: &Value, path: &str) -> R<(Vec<(Resource, i64)>, bool)> {
    let mut out = Vec::new();
    let mut given = false;
    for (i, r) in cx.seq(v, path)?.iter().enumerate() {
        given = true;
        let rp = index(path, i);
        let mut name = None;
        let mut weight = 1i64;
        for (k, val) in cx.map(r, &rp)? {
            let p = child(&rp, k);
            match k.as_str() {
                "name" => name = Some(cx.string(val, &p)?.to_string()),
                "weight" => weight = (cx.count(val, &p, 100)? as i64).max(1),
                _ => cx.unknown(&p),
            }
        }
        let name = name.ok_or_else(|| {
            cx.err(
                &child(&rp, "name"),
                "missing; expected a resource name such as cpu, memory or nvidia.com/gpu",
            )
        })?;
        match Resource::parse(&name) {
            Ok(res) => out.push((res, weight)),
            Err(_) => cx.warn(
                &child(&rp, "name"),
                format!("{name} is no resource a node offers to pods, so it scores nothing (Kubernetes leaves a resource with no allocatable out of the score); left out"),
            ),
        }
    }
    Ok((out, given))
}

fn scoring_strategy(cx: &mut Ctx, v: &Value, path: &str) -> R<ScoringStrategy> {
    let mut s = ScoringStrategy::least_allocated();
    let mut shape_given = None;
    for (k, val) in cx.map(v, path)? {
        let p = child(path, k);
        match k.as_str() {
            "type" => {
                s.kind = ScoringStrategyType::parse(cx.string(val, &p)?).map_err(|_| {
                    cx.wrong(
                        &p,
                        val,
                        "LeastAllocated, MostAllocated or RequestedToCapacityRatio",
                    )
                })?
            }
            "resources" => {
                let (rs, given) = resources(cx, val, &p)?;
                if given {
                    if rs.is_empty() {
                        return Err(cx.err(
                            &p,
                            "names no resource a node offers; expected cpu, memory or a resource such as nvidia.com/gpu among them",
                        ));
                    }
                    s.resources = rs;
                }
            }
            "requestedToCapacityRatio" => {
                for (rk, rv) in cx.map(val, &p)? {
                    let rp = child(&p, rk);
                    match rk.as_str() {
                        "shape" => {
                            let mut shape = Vec::new();
                            for (i, pt) in cx.seq(rv, &rp)?.iter().enumerate() {
                                let pp = index(&rp, i);
                                let mut u = 0i64;
                                let mut sc = 0i64;
                                for (pk, pv) in cx.map(pt, &pp)? {
                                    let q = child(&pp, pk);
                                    match pk.as_str() {
                                        "utilization" => u = cx.count(pv, &q, 100)? as i64,
                                        "score" => sc = cx.count(pv, &q, 10)? as i64,
                                        _ => cx.unknown(&q),
                                    }
                                }
                                shape.push(UtilizationShapePoint {
                                    utilization: u,
                                    score: sc,
                                });
                            }
                            shape_given = Some((shape, rp));
                        }
                        _ => cx.unknown(&rp),
                    }
                }
            }
            _ => cx.unknown(&p),
        }
    }
    match (s.kind, shape_given) {
        (ScoringStrategyType::RequestedToCapacityRatio, Some((shape, _))) => s.shape = shape,
        (ScoringStrategyType::RequestedToCapacityRatio, None) => {
            return Err(cx.err(
                &child(path, "requestedToCapacityRatio"),
                "missing; expected a shape for RequestedToCapacityRatio",
            ))
        }
        (_, Some((_, rp))) => cx.warn(
            &rp,
            "a shape is used only with RequestedToCapacityRatio; ignored",
        ),
        _ => {}
    }
    s.validate().map_err(|e| cx.err(path, e.to_string()))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default multiPoint list and the engine's registry agree on
    /// every plugin Shepherd runs: it is there, with the registry's weight.
    #[test]
    fn the_default_plugins_agree_with_the_engines_registry() {
        for p in Plugin::ALL {
            let listed = DEFAULT_MULTI_POINT.iter().find(|(n, _)| *n == p.name());
            let (_, w) = listed.unwrap_or_else(|| panic!("{} is a default plugin", p.name()));
            assert_eq!(p.default_weight().unwrap_or(0), *w, "{}", p.name());
        }
        assert_eq!(
            simulated_plugins(),
            "NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit, \
             NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity and NodePorts"
        );
    }
}
