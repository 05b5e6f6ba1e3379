//! Cluster Autoscaler's node groups in and out, as its kwok cloud provider
//! reads them (kubernetes/autoscaler cluster-autoscaler/cloudprovider/kwok/):
//!
//! - the `kwok-provider-config` ConfigMap, data key `config`: a YAML
//!   document with `apiVersion`, `readNodesFrom` (`configmap` or
//!   `cluster`), `nodegroups.fromNodeLabelKey` or
//!   `nodegroups.fromNodeAnnotation` (exactly one), `nodes.skipTaint`
//!   (false: the provider taints template nodes `kwok-provider=true:NoSchedule`),
//!   and `configmap.name` (the templates ConfigMap, required with
//!   `readNodesFrom: configmap`);
//! - the templates ConfigMap (`kwok-provider-templates`), data key
//!   `templates`: template Nodes (a YAML stream or a `kind: List`) whose
//!   annotations `cluster-autoscaler.kwok.nodegroup/min-count` (default 0)
//!   and `max-count` (default 200) bound each group, and ours,
//!   `shepherd.dev/price-per-hour`, prices a node;
//! - the priority expander's `cluster-autoscaler-priority-expander`
//!   ConfigMap, data key `priorities`: a map from priority to a list of
//!   regexes over group names;
//! - on pod templates, `cluster-autoscaler.kubernetes.io/safe-to-evict`
//!   and local storage volumes (`emptyDir` not in memory, `hostPath`), which
//!   scale-down reads.
//!
//! The first node of a group is its template, as the provider takes it.

use std::collections::BTreeMap;

use shepherd::autoscaler::nodegroup::{
    kwok_provider_taint, parse_price_micros, DEFAULT_MAX_SIZE, DEFAULT_MIN_SIZE,
    NG_DESIRED_ANNOTATION, NG_MAX_ANNOTATION, NG_MIN_ANNOTATION, NG_NAME_ANNOTATION,
    PRICE_ANNOTATION, PRIORITY_EXPANDER_CONFIGMAP, PROVIDER_CONFIGMAP, TEMPLATES_CONFIGMAP,
};
use shepherd::autoscaler::{
    AutoscalerConfig, GroupBy, KwokProviderConfig, NodeGroup, ReadNodesFrom,
};
use shepherd::NodeSpec;

use crate::read::RawObject;
use crate::value::Value;
use crate::{ImportError, Limits, Location, Scenario, Warning};

/// The names of the ConfigMaps this module reads (an import takes them
/// instead of skipping them).
pub(crate) fn is_autoscaler_configmap(name: &str) -> bool {
    name == PROVIDER_CONFIGMAP
        || name == TEMPLATES_CONFIGMAP
        || name == PRIORITY_EXPANDER_CONFIGMAP
        || name == INSTANCE_TYPES_CONFIGMAP
}

/// The import of a ConfigMap's embedded Nodes, given by `import.rs` (this
/// module sits below it and does not name it).
pub(crate) type NodesReader<'a> = &'a dyn Fn(&str) -> Result<crate::Imported, ImportError>;

/// A value as YAML text, given by `export.rs`.
pub(crate) type YamlWriter<'a> = &'a dyn Fn(&Value) -> String;

fn err(loc: &Location, path: &str, message: String) -> ImportError {
    ImportError {
        loc: loc.clone(),
        path: path.to_string(),
        message,
    }
}

fn name_of(v: &Value) -> &str {
    v.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn annotations_of(v: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(Value::Map(m)) = v.get("metadata").and_then(|m| m.get("annotations")) {
        for (k, val) in m {
            if let Some(s) = val.as_str() {
                out.insert(k.clone(), s.to_string());
            }
        }
    }
    out
}

/// A ConfigMap's `data.<key>` string.
fn data<'a>(o: &'a RawObject, key: &str) -> Result<Option<&'a str>, ImportError> {
    match o.value.get("data").and_then(|d| d.get(key)) {
        None => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s)),
        Some(other) => Err(err(
            &o.loc,
            &format!("data.{key}"),
            format!(
                "found {}; expected a string (a YAML document)",
                other.brief()
            ),
        )),
    }
}

fn one_document(
    o: &RawObject,
    key: &str,
    text: &str,
    limits: &Limits,
) -> Result<Value, ImportError> {
    let docs = crate::read::documents(text, limits, &mut |_| {}).map_err(|e| {
        err(
            &o.loc,
            &format!("data.{key}"),
            format!("cannot be read: {}", e.message),
        )
    })?;
    docs.into_iter()
        .find(|d| !matches!(d, Value::Null))
        .ok_or_else(|| {
            err(
                &o.loc,
                &format!("data.{key}"),
                "empty; expected a YAML document".into(),
            )
        })
}

fn find<'a>(objs: &'a [RawObject], name: &str) -> Option<&'a RawObject> {
    objs.iter().find(|o| {
        o.value.get("kind").and_then(Value::as_str) == Some("ConfigMap")
            && name_of(&o.value) == name
    })
}

/// Reads the provider's ConfigMaps (and the priority expander's, and the
/// pod templates' scale-down annotations) from the input's objects. `None`
/// when there is no `kwok-provider-config`.
pub(crate) fn read(
    objs: &[RawObject],
    sc: &Scenario,
    limits: &Limits,
    warnings: &mut Vec<Warning>,
    nodes_of: NodesReader,
) -> Result<Option<AutoscalerConfig>, ImportError> {
    let Some(cm) = find(objs, PROVIDER_CONFIGMAP) else {
        for n in [TEMPLATES_CONFIGMAP, PRIORITY_EXPANDER_CONFIGMAP] {
            if let Some(o) = find(objs, n) {
                warnings.push(Warning {
                    loc: o.loc.clone(),
                    path: String::new(),
                    message: format!("without a {PROVIDER_CONFIGMAP} ConfigMap no node groups are configured; this ConfigMap is not read"),
                });
            }
        }
        return Ok(None);
    };
    let text = data(cm, "config")?.ok_or_else(|| {
        err(
            &cm.loc,
            "data.config",
            "missing; expected the kwok provider's config (readNodesFrom, nodegroups ...)".into(),
        )
    })?;
    let doc = one_document(cm, "config", text, limits)?;
    let provider = provider_config(cm, &doc, warnings)?;
    let mut cfg = AutoscalerConfig {
        provider: Some(provider.clone()),
        ..Default::default()
    };
    // The template nodes, each with its annotations and where it came from.
    let mut templates: Vec<(NodeSpec, BTreeMap<String, String>, Location)> = Vec::new();
    match provider.read_nodes_from {
        ReadNodesFrom::ConfigMap => {
            let t = find(objs, &provider.templates_name).ok_or_else(|| {
                err(&cm.loc, "data.config: configmap.name", format!(
                    "names ConfigMap {:?}, which is not in the input; expected a ConfigMap with the template nodes under data.templates",
                    provider.templates_name
                ))
            })?;
            let text = data(t, "templates")?.ok_or_else(|| {
                err(&t.loc, "data.templates", format!(
                    "missing: configmap {:?} doesn't have 'templates' key (the provider reads that key); expected template Nodes",
                    provider.templates_name
                ))
            })?;
            let inner = nodes_of(text).map_err(|e| {
                err(
                    &t.loc,
                    &format!(
                        "data.templates: {}{}",
                        e.loc,
                        if e.path.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", e.path)
                        }
                    ),
                    e.message,
                )
            })?;
            let raw = crate::read::objects(text, limits, &mut |_| {})
                .map_err(|e| err(&t.loc, "data.templates", e.message))?;
            if inner.scenario.nodes.len() != raw.len() {
                return Err(err(&t.loc, "data.templates", "holds objects other than Nodes; expected template Nodes only (the provider refuses anything else)".into()));
            }
            for (n, r) in inner.scenario.nodes.iter().zip(&raw) {
                templates.push((n.spec.clone(), annotations_of(&r.value), r.loc.clone()));
            }
        }
        ReadNodesFrom::Cluster => {
            let mut by_name: BTreeMap<&str, &RawObject> = BTreeMap::new();
            for o in objs {
                if o.value.get("kind").and_then(Value::as_str) == Some("Node") {
                    by_name.insert(name_of(&o.value), o);
                }
            }
            for n in &sc.nodes {
                let (ann, loc) = by_name
                    .get(n.spec.name.as_str())
                    .map(|o| (annotations_of(&o.value), o.loc.clone()))
                    .unwrap_or_else(|| (BTreeMap::new(), cm.loc.clone()));
                templates.push((n.spec.clone(), ann, loc));
            }
        }
    }
    let group_value = |spec: &NodeSpec, ann: &BTreeMap<String, String>| -> Option<String> {
        let v = match &provider.group_by {
            GroupBy::Label(k) => spec.labels.get(k).cloned(),
            GroupBy::Annotation(k) => ann.get(k).cloned(),
        }?;
        if v.is_empty() {
            return None;
        }
        Some(ann.get(NG_NAME_ANNOTATION).cloned().unwrap_or(v))
    };
    for (spec, ann, loc) in &templates {
        let Some(name) = group_value(spec, ann) else {
            continue;
        };
        if cfg.groups.iter().any(|g| g.name == name) {
            continue;
        }
        let count = |key: &str, default: u32| -> Result<u32, ImportError> {
            match ann.get(key) {
                None => Ok(default),
                Some(s) if s.is_empty() => Ok(default),
                Some(s) => s.trim().parse::<u32>().map_err(|_| {
                    err(
                        loc,
                        &format!("metadata.annotations.{key}"),
                        format!("found {s:?}; expected a whole number of nodes (0 or more)"),
                    )
                }),
            }
        };
        let min = count(NG_MIN_ANNOTATION, DEFAULT_MIN_SIZE)?;
        let max = count(NG_MAX_ANNOTATION, DEFAULT_MAX_SIZE)?;
        if max < min {
            return Err(err(
                loc,
                &format!("metadata.annotations.{NG_MAX_ANNOTATION}"),
                format!(
                    "max-count {max} is less than min-count {min}; expected min-count <= max-count"
                ),
            ));
        }
        let desired = count(NG_DESIRED_ANNOTATION, min)?;
        if desired < min || desired > max {
            return Err(err(loc, &format!("metadata.annotations.{NG_DESIRED_ANNOTATION}"), format!(
                "desired-count {desired} is outside min-count {min} and max-count {max}; expected min <= desired <= max"
            )));
        }
        let price = match ann.get(PRICE_ANNOTATION) {
            None => None,
            Some(s) => Some(parse_price_micros(s).ok_or_else(|| {
                err(loc, &format!("metadata.annotations.{PRICE_ANNOTATION}"), format!(
                    "found {s:?}; expected a price per hour as a decimal with at most 6 places, e.g. \"0.096\""
                ))
            })?),
        };
        let mut t = spec.clone();
        t.name = format!("kwok-fake-{}", spec.name);
        if !provider.skip_taint {
            t.taints.push(kwok_provider_taint());
        }
        let mut g = NodeGroup::new(&name, t, min, max);
        g.price_micros = price;
        // The fields hold these; the rest pass through to the export.
        g.annotations = ann
            .iter()
            .filter(|(k, _)| {
                ![NG_MIN_ANNOTATION, NG_MAX_ANNOTATION, PRICE_ANNOTATION].contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        g.validate()
            .map_err(|e| err(loc, "", format!("node group {name}: {e}")))?;
        cfg.groups.push(g);
    }
    cfg.groups.sort_by(|a, b| a.name.cmp(&b.name));
    // The cluster's nodes that belong to a group.
    let mut node_ann: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for o in objs {
        if o.value.get("kind").and_then(Value::as_str) == Some("Node") {
            node_ann.insert(name_of(&o.value), annotations_of(&o.value));
        }
    }
    for n in &sc.nodes {
        let ann = node_ann
            .get(n.spec.name.as_str())
            .cloned()
            .unwrap_or_default();
        if let Some(g) = group_value(&n.spec, &ann) {
            if cfg.group(&g).is_some() {
                cfg.members.insert(n.spec.name.clone(), g);
            }
        }
    }
    if let Some(p) = find(objs, PRIORITY_EXPANDER_CONFIGMAP) {
        cfg.priorities = priorities(p, limits)?;
    }
    pod_flags(objs, &mut cfg);
    autoscaler_flags(objs, &mut cfg.options, warnings)?;
    cfg.validate()
        .map_err(|e| err(&cm.loc, "", format!("the autoscaler's configuration: {e}")))?;
    Ok(Some(cfg))
}

/// Cluster Autoscaler's own Deployment, when the input holds it: a
/// Deployment with a container whose image is a cluster-autoscaler image or
/// whose command or args say `--cloud-provider=kwok`. Its flags (in
/// `command` then `args`, `--flag=value` or `--flag value`) set the
/// options the simulation reads (see [`shepherd::autoscaler::AutoscalerOptions`]);
/// flags it does not simulate are passed over. Times are Go durations
/// (`10s`, `10m`, `1h30m`), as CA's flags take them.
fn autoscaler_flags(
    objs: &[RawObject],
    o: &mut shepherd::autoscaler::AutoscalerOptions,
    warnings: &mut Vec<Warning>,
) -> Result<(), ImportError> {
    for obj in objs {
        if obj.value.get("kind").and_then(Value::as_str) != Some("Deployment") {
            continue;
        }
        let Some(Value::Seq(containers)) = obj
            .value
            .get("spec")
            .and_then(|s| s.get("template"))
            .and_then(|t| t.get("spec"))
            .and_then(|s| s.get("containers"))
        else {
            continue;
        };
        for (ci, c) in containers.iter().enumerate() {
            let words = |k: &str| -> Vec<(String, String)> {
                match c.get(k) {
                    Some(Value::Seq(xs)) => xs
                        .iter()
                        .enumerate()
                        .filter_map(|(j, x)| {
                            x.as_str().map(|w| {
                                (
                                    format!("spec.template.spec.containers[{ci}].{k}[{j}]"),
                                    w.to_string(),
                                )
                            })
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            };
            let mut all = words("command");
            all.extend(words("args"));
            let image = c.get("image").and_then(Value::as_str).unwrap_or("");
            let is_ca = image.contains("cluster-autoscaler")
                || all.iter().any(|(_, w)| w == "--cloud-provider=kwok");
            if !is_ca {
                continue;
            }
            let mut i = 0;
            while i < all.len() {
                let (path, w) = &all[i];
                i += 1;
                let Some(flag) = w.strip_prefix("--") else {
                    continue;
                };
                let (name, value, path) = match flag.split_once('=') {
                    Some((n, v)) => (n, v.to_string(), path),
                    None => {
                        // `--flag value`, or a bare boolean flag.
                        let next = all.get(i).map(|(_, v)| v.as_str()).unwrap_or("");
                        if !next.is_empty()
                            && !next.starts_with("--")
                            && !BOOL_FLAGS.contains(&flag)
                        {
                            i += 1;
                            (flag, next.to_string(), &all[i - 1].0)
                        } else {
                            (flag, "true".to_string(), path)
                        }
                    }
                };
                let bad = |what: &str| {
                    err(
                        &obj.loc,
                        path,
                        format!("--{name}: found {value:?}; expected {what}"),
                    )
                };
                let whole = |v: &str| v.parse::<u64>().map_err(|_| bad("a whole number"));
                let boolean = |v: &str| match v {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(bad("true or false")),
                };
                let range = |v: &str| -> Result<(u64, u64), ImportError> {
                    let (a, b) = v
                        .split_once(':')
                        .ok_or_else(|| bad("min:max, e.g. 0:320000"))?;
                    Ok((whole(a)?, whole(b)?))
                };
                match name {
                    "expander" => {
                        o.expanders = shepherd::autoscaler::Expander::parse_list(&value)
                            .map_err(|e| err(&obj.loc, path, e.to_string()))?
                    }
                    "scan-interval" => o.scan_interval = duration(&value).ok_or_else(|| bad("a duration of whole seconds, e.g. 10s"))?.max(1),
                    "max-nodes-total" => o.max_nodes_total = whole(&value)?.min(u32::MAX as u64) as u32,
                    "cores-total" => o.cores_total = range(&value)?,
                    "memory-total" => o.memory_total_gib = range(&value)?,
                    "max-nodes-per-scaleup" => o.max_nodes_per_scaleup = whole(&value)?.min(u32::MAX as u64) as u32,
                    "scale-down-enabled" => o.scale_down_enabled = boolean(&value)?,
                    "scale-down-utilization-threshold" => {
                        let f: f64 = value.parse().map_err(|_| bad("a fraction, e.g. 0.5"))?;
                        if !(0.0..=1.0).contains(&f) {
                            return Err(bad("a fraction from 0 to 1"));
                        }
                        o.scale_down_utilization_threshold_permille = (f * 1000.0).round() as u32;
                    }
                    "scale-down-unneeded-time" => o.scale_down_unneeded_time = duration(&value).ok_or_else(|| bad("a duration, e.g. 10m"))?,
                    "scale-down-delay-after-add" => o.scale_down_delay_after_add = duration(&value).ok_or_else(|| bad("a duration, e.g. 10m"))?,
                    "max-empty-bulk-delete" => o.max_empty_bulk_delete = whole(&value)?.min(u32::MAX as u64) as u32,
                    "expendable-pods-priority-cutoff" => {
                        o.expendable_pods_priority_cutoff = value.parse().map_err(|_| bad("a whole number"))?
                    }
                    "skip-nodes-with-local-storage" => o.skip_nodes_with_local_storage = boolean(&value)?,
                    "skip-nodes-with-system-pods" => o.skip_nodes_with_system_pods = boolean(&value)?,
                    "balance-similar-node-groups" if value == "true" => warnings.push(Warning {
                        loc: obj.loc.clone(),
                        path: path.clone(),
                        message: "--balance-similar-node-groups is not simulated: one group grows per loop".into(),
                    }),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// CA's boolean flags, which `--flag` alone sets (the next word is not
/// their value).
const BOOL_FLAGS: &[&str] = &[
    "scale-down-enabled",
    "skip-nodes-with-local-storage",
    "skip-nodes-with-system-pods",
    "balance-similar-node-groups",
    "v",
];

/// A Go duration (`10s`, `10m`, `1h30m`, `0`) in whole seconds; `None`
/// when it is not one or has a fraction of a second.
pub fn duration(s: &str) -> Option<u64> {
    if s == "0" {
        return Some(0);
    }
    let mut total = 0u64;
    let mut num = String::new();
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let c = rest.chars().next()?;
        if c.is_ascii_digit() {
            num.push(c);
            rest = &rest[1..];
            continue;
        }
        let (unit, len) = if rest.starts_with("ms") {
            (0, 2)
        } else {
            match c {
                'h' => (3600, 1),
                'm' => (60, 1),
                's' => (1, 1),
                _ => return None,
            }
        };
        let n: u64 = num.parse().ok()?;
        num.clear();
        if unit == 0 {
            if n % 1000 != 0 {
                return None;
            }
            total = total.checked_add(n / 1000)?;
        } else {
            total = total.checked_add(n.checked_mul(unit)?)?;
        }
        rest = &rest[len..];
    }
    if !num.is_empty() {
        return None;
    }
    Some(total)
}

fn provider_config(
    cm: &RawObject,
    doc: &Value,
    warnings: &mut Vec<Warning>,
) -> Result<KwokProviderConfig, ImportError> {
    let p = |k: &str| format!("data.config: {k}");
    let Value::Map(top) = doc else {
        return Err(err(
            &cm.loc,
            "data.config",
            format!(
                "found {}; expected a mapping (readNodesFrom, nodegroups ...)",
                doc.brief()
            ),
        ));
    };
    let mut c = KwokProviderConfig::default();
    let mut read_from = None;
    let mut by = None;
    let mut templates_name = None;
    let str_of = |v: &Value, path: &str| -> Result<String, ImportError> {
        v.as_str().map(str::to_string).ok_or_else(|| {
            err(
                &cm.loc,
                path,
                format!("found {}; expected a string", v.brief()),
            )
        })
    };
    for (k, v) in top {
        match k.as_str() {
            "apiVersion" => c.api_version = str_of(v, &p(k))?,
            "readNodesFrom" => {
                read_from = Some(match str_of(v, &p(k))?.as_str() {
                    "configmap" => ReadNodesFrom::ConfigMap,
                    "cluster" => ReadNodesFrom::Cluster,
                    other => {
                        return Err(err(
                            &cm.loc,
                            &p(k),
                            format!("found {other:?}; expected \"configmap\" or \"cluster\""),
                        ))
                    }
                })
            }
            "nodegroups" => {
                let Value::Map(m) = v else {
                    return Err(err(&cm.loc, &p(k), format!("found {}; expected a mapping with fromNodeLabelKey or fromNodeAnnotation", v.brief())));
                };
                let mut label = None;
                let mut ann = None;
                for (nk, nv) in m {
                    let path = p(&format!("nodegroups.{nk}"));
                    match nk.as_str() {
                        "fromNodeLabelKey" => {
                            label = Some(str_of(nv, &path)?).filter(|s| !s.trim().is_empty())
                        }
                        "fromNodeAnnotation" | "fromNodeAnnotationKey" => {
                            ann = Some(str_of(nv, &path)?).filter(|s| !s.trim().is_empty())
                        }
                        _ => warnings.push(Warning {
                            loc: cm.loc.clone(),
                            path,
                            message: "not a key the kwok provider reads; ignored".into(),
                        }),
                    }
                }
                by = Some(match (label, ann) {
                    (Some(l), None) => GroupBy::Label(l),
                    (None, Some(a)) => GroupBy::Annotation(a),
                    (Some(_), Some(_)) => return Err(err(&cm.loc, &p(k), "both fromNodeLabelKey and fromNodeAnnotation; expected either one (the provider refuses both)".into())),
                    (None, None) => return Err(err(&cm.loc, &p(k), "neither fromNodeLabelKey nor fromNodeAnnotation; expected either one".into())),
                });
            }
            "nodes" => {
                if let Value::Map(m) = v {
                    for (nk, nv) in m {
                        let path = p(&format!("nodes.{nk}"));
                        match (nk.as_str(), nv) {
                            ("skipTaint", Value::Bool(b)) => c.skip_taint = *b,
                            ("skipTaint", other) => {
                                return Err(err(
                                    &cm.loc,
                                    &path,
                                    format!("found {}; expected true or false", other.brief()),
                                ))
                            }
                            ("gpuConfig", _) => warnings.push(Warning {
                                loc: cm.loc.clone(),
                                path,
                                message: "GPUs are not simulated; ignored".into(),
                            }),
                            _ => warnings.push(Warning {
                                loc: cm.loc.clone(),
                                path,
                                message: "not a key the kwok provider reads; ignored".into(),
                            }),
                        }
                    }
                } else if !matches!(v, Value::Null) {
                    return Err(err(
                        &cm.loc,
                        &p(k),
                        format!("found {}; expected a mapping (skipTaint)", v.brief()),
                    ));
                }
            }
            "configmap" => {
                if let Value::Map(m) = v {
                    for (nk, nv) in m {
                        let path = p(&format!("configmap.{nk}"));
                        match nk.as_str() {
                            "name" => templates_name = Some(str_of(nv, &path)?),
                            "key" => c.templates_key = Some(str_of(nv, &path)?),
                            _ => warnings.push(Warning {
                                loc: cm.loc.clone(),
                                path,
                                message: "not a key the kwok provider reads; ignored".into(),
                            }),
                        }
                    }
                } else if !matches!(v, Value::Null) {
                    return Err(err(
                        &cm.loc,
                        &p(k),
                        format!("found {}; expected a mapping (name, key)", v.brief()),
                    ));
                }
            }
            "kwok" => {}
            _ => warnings.push(Warning {
                loc: cm.loc.clone(),
                path: p(k),
                message: "not a key the kwok provider reads; ignored".into(),
            }),
        }
    }
    c.read_nodes_from = read_from.ok_or_else(|| {
        err(
            &cm.loc,
            &p("readNodesFrom"),
            "missing; expected \"configmap\" or \"cluster\"".into(),
        )
    })?;
    c.group_by = by.ok_or_else(|| {
        err(
            &cm.loc,
            &p("nodegroups"),
            "missing; expected nodegroups.fromNodeLabelKey or nodegroups.fromNodeAnnotation".into(),
        )
    })?;
    match (c.read_nodes_from, templates_name) {
        (ReadNodesFrom::ConfigMap, None) => {
            return Err(err(&cm.loc, &p("configmap.name"), "missing; expected the name of the ConfigMap with the template nodes (readNodesFrom: configmap)".into()))
        }
        (ReadNodesFrom::ConfigMap, Some(n)) if n.trim().is_empty() => {
            return Err(err(&cm.loc, &p("configmap.name"), "empty; expected the name of the ConfigMap with the template nodes".into()))
        }
        (_, Some(n)) => c.templates_name = n,
        (_, None) => {}
    }
    Ok(c)
}

/// `priorities`: `PRIORITY: [REGEX, ...]`, highest first.
fn priorities(o: &RawObject, limits: &Limits) -> Result<Vec<(i32, Vec<String>)>, ImportError> {
    let Some(text) = data(o, "priorities")? else {
        return Err(err(
            &o.loc,
            "data.priorities",
            "missing; expected a map from priority to a list of node group regexes".into(),
        ));
    };
    let doc = one_document(o, "priorities", text, limits)?;
    let Value::Map(m) = doc else {
        return Err(err(
            &o.loc,
            "data.priorities",
            format!(
                "found {}; expected a map from priority to a list of regexes",
                doc.brief()
            ),
        ));
    };
    let mut out = Vec::new();
    for (k, v) in m {
        let path = format!("data.priorities: {k}");
        let p: i32 = k.trim().parse().map_err(|_| {
            err(
                &o.loc,
                &path,
                format!("key {k:?}; expected an integer priority"),
            )
        })?;
        let Value::Seq(items) = v else {
            return Err(err(
                &o.loc,
                &path,
                format!("found {}; expected a list of regexes", v.brief()),
            ));
        };
        let mut res = Vec::new();
        for it in items {
            let s = it.as_str().ok_or_else(|| {
                err(
                    &o.loc,
                    &path,
                    format!("found {}; expected a regex string", it.brief()),
                )
            })?;
            shepherd::autoscaler::expander::Regex::parse(s)
                .map_err(|e| err(&o.loc, &path, e.to_string()))?;
            res.push(s.to_string());
        }
        out.push((p, res));
    }
    out.sort_by(|a, b| b.0.cmp(&a.0));
    Ok(out)
}

/// The pod templates' `safe-to-evict` annotation and local storage.
fn pod_flags(objs: &[RawObject], cfg: &mut AutoscalerConfig) {
    for o in objs {
        let v = &o.value;
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let pod = match kind {
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => {
                v.get("spec").and_then(|s| s.get("template"))
            }
            "Pod" => Some(v),
            _ => None,
        };
        let Some(pod) = pod else { continue };
        let ns = v
            .get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or("default");
        let key = shepherd::namespace::qualify(ns, name_of(v));
        match annotations_of(pod)
            .get("cluster-autoscaler.kubernetes.io/safe-to-evict")
            .map(String::as_str)
        {
            Some("false") => {
                cfg.not_safe_to_evict.insert(key.clone());
            }
            Some("true") => {
                cfg.safe_to_evict.insert(key.clone());
            }
            _ => {}
        }
        if let Some(Value::Seq(vols)) = pod.get("spec").and_then(|s| s.get("volumes")) {
            let local = vols.iter().any(|vol| {
                vol.get("hostPath").is_some()
                    || vol
                        .get("emptyDir")
                        .is_some_and(|e| e.get("medium").and_then(Value::as_str) != Some("Memory"))
            });
            if local {
                cfg.local_storage.insert(key);
            }
        }
    }
}

/// The ConfigMaps that describe `cfg`, for the export: the provider's
/// config, the templates (with readNodesFrom: configmap) and the priority
/// expander's, each as a `v1 ConfigMap` object.
pub(crate) fn configmaps(
    cfg: &AutoscalerConfig,
    node: impl Fn(&NodeSpec) -> Value,
    yaml_text: YamlWriter,
) -> Vec<Value> {
    let s = |x: &str| Value::Str(x.to_string());
    let map = |pairs: Vec<(&str, Value)>| {
        Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let provider = cfg.provider.clone().unwrap_or_default();
    let cm = |name: &str, key: &str, text: String| {
        map(vec![
            ("apiVersion", s("v1")),
            ("kind", s("ConfigMap")),
            (
                "metadata",
                map(vec![("name", s(name)), ("namespace", s("kube-system"))]),
            ),
            ("data", map(vec![(key, Value::Str(text))])),
        ])
    };
    let mut config = vec![
        ("apiVersion", s(&provider.api_version)),
        ("readNodesFrom", s(provider.read_nodes_from.as_str())),
        (
            "nodegroups",
            match &provider.group_by {
                GroupBy::Label(k) => map(vec![("fromNodeLabelKey", s(k))]),
                GroupBy::Annotation(k) => map(vec![("fromNodeAnnotation", s(k))]),
            },
        ),
        (
            "nodes",
            map(vec![("skipTaint", Value::Bool(provider.skip_taint))]),
        ),
    ];
    if provider.read_nodes_from == ReadNodesFrom::ConfigMap {
        let mut c = vec![("name", s(&provider.templates_name))];
        if let Some(k) = &provider.templates_key {
            c.push(("key", s(k)));
        }
        config.push(("configmap", map(c)));
    }
    let mut out = vec![cm(PROVIDER_CONFIGMAP, "config", yaml_text(&map(config)))];
    if provider.read_nodes_from == ReadNodesFrom::ConfigMap {
        let mut text = String::new();
        for g in &cfg.groups {
            let mut t = g.template.clone();
            t.name = t
                .name
                .strip_prefix("kwok-fake-")
                .unwrap_or(&t.name)
                .to_string();
            if !provider.skip_taint {
                let kt = kwok_provider_taint();
                if let Some(i) = t.taints.iter().rposition(|x| *x == kt) {
                    t.taints.remove(i);
                }
            }
            let mut ann = g.annotations.clone();
            ann.insert(NG_MIN_ANNOTATION.into(), g.min_size.to_string());
            ann.insert(NG_MAX_ANNOTATION.into(), g.max_size.to_string());
            match g.price_micros {
                Some(p) => {
                    ann.insert(
                        PRICE_ANNOTATION.into(),
                        shepherd::autoscaler::nodegroup::format_price_micros(p),
                    );
                }
                None => {
                    ann.remove(PRICE_ANNOTATION);
                }
            }
            if let GroupBy::Annotation(k) = &provider.group_by {
                ann.entry(k.clone()).or_insert_with(|| g.name.clone());
            }
            let mut v = node(&t);
            if let Value::Map(top) = &mut v {
                if let Some((_, Value::Map(meta))) = top.iter_mut().find(|(k, _)| k == "metadata") {
                    meta.retain(|(k, _)| k != "annotations");
                    meta.insert(
                        1,
                        (
                            "annotations".into(),
                            Value::Map(ann.into_iter().map(|(k, v)| (k, Value::Str(v))).collect()),
                        ),
                    );
                }
            }
            text.push_str("---\n");
            text.push_str(&yaml_text(&v));
        }
        out.push(cm(&provider.templates_name, "templates", text));
    }
    if !cfg.priorities.is_empty() {
        let pr = Value::Map(
            cfg.priorities
                .iter()
                .map(|(p, res)| {
                    (
                        p.to_string(),
                        Value::Seq(res.iter().map(|r| s(r)).collect()),
                    )
                })
                .collect(),
        );
        out.push(cm(
            PRIORITY_EXPANDER_CONFIGMAP,
            "priorities",
            yaml_text(&pr),
        ));
    }
    out
}

/// `node`'s written object with `annotations` in its metadata (after the
/// name), replacing any it had.
fn with_annotations(mut v: Value, ann: BTreeMap<String, String>) -> Value {
    if let Value::Map(top) = &mut v {
        if let Some((_, Value::Map(meta))) = top.iter_mut().find(|(k, _)| k == "metadata") {
            meta.retain(|(k, _)| k != "annotations");
            if !ann.is_empty() {
                meta.insert(
                    1.min(meta.len()),
                    (
                        "annotations".into(),
                        Value::Map(ann.into_iter().map(|(k, v)| (k, Value::Str(v))).collect()),
                    ),
                );
            }
        }
    }
    v
}

/// Karpenter's NodePools written from the model (`karpenter.sh/v1`:
/// `spec.template.spec.requirements`, `spec.limits.cpu`), and, when
/// `with_types`, the [`INSTANCE_TYPES_CONFIGMAP`] ConfigMap of their
/// instance types (each once, in the order first met) as priced template
/// Nodes: what [`read_karpenter`] reads back to the same pools.
pub(crate) fn node_pool_objects(
    pools: &[shepherd::autoscaler::karpenter::NodePool],
    with_types: bool,
    node: impl Fn(&NodeSpec) -> Value,
    yaml_text: YamlWriter,
) -> Vec<Value> {
    let s = |x: &str| Value::Str(x.to_string());
    let map = |pairs: Vec<(&str, Value)>| {
        Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let mut out = Vec::new();
    if with_types {
        let mut seen: Vec<&str> = Vec::new();
        let mut text = String::new();
        for t in pools.iter().flat_map(|p| &p.instance_types) {
            if seen.contains(&t.name.as_str()) {
                continue;
            }
            seen.push(&t.name);
            let mut ann = BTreeMap::new();
            ann.insert(
                PRICE_ANNOTATION.to_string(),
                shepherd::autoscaler::nodegroup::format_price_micros(t.price_micros),
            );
            text.push_str("---\n");
            text.push_str(&yaml_text(&with_annotations(node(&t.node), ann)));
        }
        out.push(map(vec![
            ("apiVersion", s("v1")),
            ("kind", s("ConfigMap")),
            (
                "metadata",
                map(vec![
                    ("name", s(INSTANCE_TYPES_CONFIGMAP)),
                    ("namespace", s("kube-system")),
                ]),
            ),
            ("data", map(vec![("instanceTypes", Value::Str(text))])),
        ]));
    }
    for p in pools {
        let reqs: Vec<Value> = p
            .requirements
            .iter()
            .map(|r| {
                let mut m = vec![("key", s(&r.key)), ("operator", s(r.operator.as_str()))];
                if !r.values.is_empty() {
                    m.push((
                        "values",
                        Value::Seq(r.values.iter().map(|v| s(v)).collect()),
                    ));
                }
                map(m)
            })
            .collect();
        let mut spec = vec![(
            "template",
            map(vec![(
                "spec",
                map(vec![("requirements", Value::Seq(reqs))]),
            )]),
        )];
        if let Some(cpu) = p.limit_cpu_millis {
            spec.push((
                "limits",
                map(vec![(
                    "cpu",
                    s(&shepherd::quantity::format_cpu_millis(cpu)),
                )]),
            ));
        }
        out.push(map(vec![
            ("apiVersion", s("karpenter.sh/v1")),
            ("kind", s("NodePool")),
            ("metadata", map(vec![("name", s(&p.name))])),
            ("spec", map(spec)),
        ]));
    }
    out
}

/// The ConfigMap (ours) whose data key `instanceTypes` lists Karpenter's
/// instance types as template Nodes: the type is the node's
/// `node.kubernetes.io/instance-type` label (else its name), the price its
/// `shepherd.dev/price-per-hour` annotation.
pub const INSTANCE_TYPES_CONFIGMAP: &str = "karpenter-instance-types";

/// Karpenter's NodePools (`karpenter.sh/v1`), with the instance types of
/// [`INSTANCE_TYPES_CONFIGMAP`], or else of the kwok templates.
pub(crate) fn read_karpenter(
    objs: &[RawObject],
    limits: &Limits,
    nodes_of: NodesReader,
) -> Result<Vec<shepherd::autoscaler::karpenter::NodePool>, ImportError> {
    use shepherd::autoscaler::karpenter::{InstanceType, NodePool, INSTANCE_TYPE_LABEL};
    let pools: Vec<&RawObject> = objs
        .iter()
        .filter(|o| o.value.get("kind").and_then(Value::as_str) == Some("NodePool"))
        .collect();
    if pools.is_empty() {
        return Ok(Vec::new());
    }
    let source = find(objs, INSTANCE_TYPES_CONFIGMAP)
        .map(|o| (o, "instanceTypes"))
        .or_else(|| find(objs, TEMPLATES_CONFIGMAP).map(|o| (o, "templates")));
    let Some((cm, key)) = source else {
        return Err(err(&pools[0].loc, "", format!(
            "a NodePool needs instance types; expected a ConfigMap {INSTANCE_TYPES_CONFIGMAP} with template Nodes under data.instanceTypes (or the kwok provider's {TEMPLATES_CONFIGMAP})"
        )));
    };
    let text = data(cm, key)?.ok_or_else(|| {
        err(
            &cm.loc,
            &format!("data.{key}"),
            "missing; expected template Nodes".into(),
        )
    })?;
    let inner =
        nodes_of(text).map_err(|e| err(&cm.loc, &format!("data.{key}: {}", e.loc), e.message))?;
    let raw = crate::read::objects(text, limits, &mut |_| {})
        .map_err(|e| err(&cm.loc, &format!("data.{key}"), e.message))?;
    let mut types = Vec::new();
    for (n, r) in inner.scenario.nodes.iter().zip(&raw) {
        let ann = annotations_of(&r.value);
        let price = match ann.get(PRICE_ANNOTATION) {
            Some(p) => parse_price_micros(p).ok_or_else(|| {
                err(
                    &r.loc,
                    &format!("metadata.annotations.{PRICE_ANNOTATION}"),
                    format!("found {p:?}; expected a price per hour, e.g. \"0.096\""),
                )
            })?,
            None => return Err(err(
                &r.loc,
                &format!("metadata.annotations.{PRICE_ANNOTATION}"),
                "missing; expected the instance type's price per hour (Karpenter chooses by price)"
                    .into(),
            )),
        };
        let name = n
            .spec
            .labels
            .get(INSTANCE_TYPE_LABEL)
            .cloned()
            .unwrap_or_else(|| n.spec.name.clone());
        let mut node = n.spec.clone();
        node.labels
            .entry(INSTANCE_TYPE_LABEL.to_string())
            .or_insert_with(|| name.clone());
        types.push(InstanceType {
            name,
            node,
            price_micros: price,
        });
    }
    let mut out = Vec::new();
    for o in pools {
        let v = &o.value;
        if v.get("apiVersion").and_then(Value::as_str) != Some("karpenter.sh/v1") {
            return Err(err(
                &o.loc,
                "apiVersion",
                "expected \"karpenter.sh/v1\" for a NodePool".into(),
            ));
        }
        let name = name_of(v).to_string();
        let spec = v.get("spec");
        let mut requirements = Vec::new();
        if let Some(Value::Seq(reqs)) = spec
            .and_then(|s| s.get("template"))
            .and_then(|t| t.get("spec"))
            .and_then(|s| s.get("requirements"))
        {
            for (i, r) in reqs.iter().enumerate() {
                let path = format!("spec.template.spec.requirements[{i}]");
                let key = r.get("key").and_then(Value::as_str).ok_or_else(|| {
                    err(
                        &o.loc,
                        &format!("{path}.key"),
                        "missing; expected a label key".into(),
                    )
                })?;
                let op_s = r.get("operator").and_then(Value::as_str).unwrap_or("");
                let op = shepherd::NodeSelectorOperator::parse(op_s)
                    .map_err(|e| err(&o.loc, &format!("{path}.operator"), e.to_string()))?;
                let values: Vec<&str> = match r.get("values") {
                    Some(Value::Seq(vs)) => vs.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                requirements.push(shepherd::NodeSelectorRequirement::new(key, op, &values));
            }
        }
        let limit_cpu_millis = match spec
            .and_then(|s| s.get("limits"))
            .and_then(|l| l.get("cpu"))
        {
            None => None,
            Some(q) => {
                let text = match q {
                    Value::Str(s) => s.clone(),
                    Value::Int(i) => i.to_string(),
                    Value::UInt(u) => u.to_string(),
                    other => {
                        return Err(err(
                            &o.loc,
                            "spec.limits.cpu",
                            format!("found {}; expected a quantity", other.brief()),
                        ))
                    }
                };
                Some(shepherd::quantity::parse_cpu_millis(&text).map_err(|e| {
                    err(
                        &o.loc,
                        "spec.limits.cpu",
                        format!("{e}; expected a cpu quantity such as 1000 or 500m"),
                    )
                })?)
            }
        };
        out.push(NodePool {
            name,
            requirements,
            instance_types: types.clone(),
            limit_cpu_millis,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    const SAMPLE: &str = include_str!("../../tests/manifests/autoscaler.yaml");

    #[test]
    fn reads_the_kwok_providers_configmaps() {
        let imp = crate::import(SAMPLE).unwrap();
        let a = imp.scenario.autoscaler.as_ref().expect("node groups");
        let names: Vec<&str> = a.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["m-large", "m-small"]);
        let large = a.group("m-large").unwrap();
        assert_eq!((large.min_size, large.max_size), (0, 5));
        assert_eq!(large.price_micros, Some(300_000));
        assert_eq!(large.template.name, "kwok-fake-m-large");
        assert!(large.template.taints.is_empty(), "skipTaint: true");
        assert_eq!(large.template.capacity.cpu_millis, 8000);
        assert!(
            imp.warnings
                .iter()
                .all(|w| !w.loc.kind.contains("ConfigMap")),
            "{:?}",
            imp.warnings
        );
    }

    #[test]
    fn export_writes_both_configmaps_back() {
        let imp = crate::import(SAMPLE).unwrap();
        let out = crate::export(&imp.scenario);
        assert!(out.contains("kwok-provider-config") && out.contains("kwok-provider-templates"));
        let again = crate::import(&out).unwrap();
        assert_eq!(again.scenario.autoscaler, imp.scenario.autoscaler);
    }

    const KARPENTER: &str = include_str!("../../tests/manifests/karpenter.yaml");

    #[test]
    fn export_writes_the_configmaps_from_the_model_when_no_document_is_kept() {
        let mut sc = crate::import(SAMPLE).unwrap().scenario;
        sc.kept = Default::default();
        let out = crate::export(&sc);
        let again = crate::import(&out).unwrap();
        assert_eq!(again.scenario.autoscaler, sc.autoscaler);
        // And the export of that import writes the same text again.
        assert_eq!(crate::export(&again.scenario), out);
    }

    #[test]
    fn export_writes_node_pools_back_as_given_or_from_the_model() {
        let imp = crate::import(KARPENTER).unwrap();
        assert!(!imp.scenario.node_pools.is_empty());
        // Imported: each NodePool once, as given.
        let out = crate::export(&imp.scenario);
        assert_eq!(
            out.matches("kind: NodePool").count(),
            imp.scenario.node_pools.len()
        );
        assert_eq!(
            crate::import(&out).unwrap().scenario.node_pools,
            imp.scenario.node_pools
        );
        // Without their documents: written from the model, with their
        // instance types, and read back to the same pools.
        let mut sc = imp.scenario.clone();
        sc.kept = Default::default();
        let out = crate::export(&sc);
        assert_eq!(out.matches("kind: NodePool").count(), sc.node_pools.len());
        assert!(out.contains("name: karpenter-instance-types"), "{out}");
        let again = crate::import(&out).unwrap();
        assert_eq!(again.scenario.node_pools, sc.node_pools, "{out}");
        assert_eq!(crate::export(&again.scenario), out);
    }

    #[test]
    fn reads_cluster_autoscalers_flags_from_its_deployment() {
        let ca = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-autoscaler\n  namespace: kube-system\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ca}}\n  template:\n    metadata:\n      labels: {app: ca}\n    spec:\n      containers:\n      - name: cluster-autoscaler\n        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0\n        command: [./cluster-autoscaler, --cloud-provider=kwok, \"--expander=priority,least-waste\", --scan-interval, 20s, --scale-down-unneeded-time=5m, --scale-down-utilization-threshold=0.6, --max-nodes-total=12, --cores-total=0:64, --scale-down-enabled]\n";
        let imp = crate::import(&format!("{SAMPLE}{ca}")).unwrap();
        let o = &imp.scenario.autoscaler.as_ref().unwrap().options;
        use shepherd::autoscaler::Expander;
        assert_eq!(o.expanders, [Expander::Priority, Expander::LeastWaste]);
        assert_eq!((o.scan_interval, o.scale_down_unneeded_time), (20, 300));
        assert_eq!(o.scale_down_utilization_threshold_permille, 600);
        assert_eq!((o.max_nodes_total, o.cores_total), (12, (0, 64)));
        assert!(o.scale_down_enabled);
        // Unchanged: CA's defaults.
        assert_eq!(o.scale_down_delay_after_add, 600);
        // A bad value names the word and what was expected.
        let e = crate::import(&format!("{SAMPLE}{}", ca.replace("20s", "twenty"))).unwrap_err();
        assert_eq!(e.path, "spec.template.spec.containers[0].command[4]");
        assert!(
            e.message
                .contains("--scan-interval: found \"twenty\"; expected a duration"),
            "{e}"
        );
        assert_eq!(super::duration("1h30m"), Some(5400));
        assert_eq!(super::duration("1500ms"), None);
        assert_eq!(super::duration("10"), None);
    }

    fn with_config(cfg: &str) -> String {
        let indented: String = cfg.lines().map(|l| format!("    {l}\n")).collect();
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kwok-provider-config\ndata:\n  config: |\n{indented}"
        )
    }

    #[test]
    fn errors_name_the_field_and_what_was_expected() {
        let e = crate::import(&with_config(
            "readNodesFrom: disk\nnodegroups:\n  fromNodeLabelKey: x\n",
        ))
        .unwrap_err();
        assert_eq!(e.path, "data.config: readNodesFrom");
        assert!(
            e.message.contains("expected \"configmap\" or \"cluster\""),
            "{e}"
        );
        let e = crate::import(&with_config(
            "readNodesFrom: cluster\nnodegroups:\n  fromNodeLabelKey: x\n  fromNodeAnnotation: y\n",
        ))
        .unwrap_err();
        assert!(e.message.contains("either one"), "{e}");
        let e = crate::import(&with_config(
            "readNodesFrom: configmap\nnodegroups:\n  fromNodeLabelKey: x\n",
        ))
        .unwrap_err();
        assert_eq!(e.path, "data.config: configmap.name");
        let bad = SAMPLE.replace("max-count: \"5\"", "max-count: \"five\"");
        let e = crate::import(&bad).unwrap_err();
        assert!(
            e.path.contains("max-count") && e.message.contains("expected a whole number"),
            "{e}"
        );
    }

    #[test]
    fn cluster_mode_groups_the_clusters_nodes() {
        let text = format!(
            "{}---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a-1\n  labels: {{pool: a}}\n  annotations:\n    cluster-autoscaler.kwok.nodegroup/max-count: \"3\"\nstatus:\n  allocatable: {{cpu: '1', memory: 1Gi}}\n",
            with_config("readNodesFrom: cluster\nnodegroups:\n  fromNodeLabelKey: pool\n")
        );
        let imp = crate::import(&text).unwrap();
        let a = imp.scenario.autoscaler.unwrap();
        assert_eq!(a.groups[0].name, "a");
        assert_eq!(a.groups[0].max_size, 3);
        assert_eq!(
            a.groups[0].template.taints.len(),
            1,
            "the provider's taint without skipTaint"
        );
        assert_eq!(a.members.get("a-1").map(String::as_str), Some("a"));
    }

    #[test]
    fn reads_priorities_and_the_pod_annotations_scale_down_reads() {
        let text = format!(
            "{SAMPLE}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-autoscaler-priority-expander\n  namespace: kube-system\ndata:\n  priorities: |\n    10:\n      - .*\n    50:\n      - ^m-large$\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache\n  namespace: shop\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: cache}}}}\n  template:\n    metadata:\n      labels: {{app: cache}}\n      annotations:\n        cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"\n    spec:\n      containers: [{{name: c, image: redis}}]\n      volumes: [{{name: scratch, emptyDir: {{}}}}]\n"
        );
        let imp = crate::import(&text).unwrap();
        let a = imp.scenario.autoscaler.unwrap();
        assert_eq!(
            a.priorities,
            vec![
                (50, vec!["^m-large$".to_string()]),
                (10, vec![".*".to_string()])
            ]
        );
        assert!(a.not_safe_to_evict.contains("shop/cache"));
        assert!(a.local_storage.contains("shop/cache"));
        let bad = text.replace("^m-large$", "[ab]");
        let e = crate::import(&bad).unwrap_err();
        assert!(e.path.starts_with("data.priorities"), "{e}");
    }
}
