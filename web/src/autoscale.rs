//! What the page shows of the simulated Cluster Autoscaler
//! (`shepherd::autoscaler`, docs/autoscaling.md): the node groups with
//! their min/current/max, the scale-ups and scale-downs so far, and, for
//! one Pending pod, the scale-up it triggered or why no group helps. Read
//! from the simulator as it is; nothing here decides anything.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shepherd::autoscaler::nodegroup::{
    format_price_micros, kwok_provider_taint, parse_price_micros, AutoscalerOptions, Expander,
    GroupBy, KwokProviderConfig, NodeGroup, ReadNodesFrom, DEFAULT_MAX_SIZE, DEFAULT_MIN_SIZE,
    NG_MAX_ANNOTATION, NG_MIN_ANNOTATION, NG_NAME_ANNOTATION, PRICE_ANNOTATION,
};
use shepherd::autoscaler::{Autoscaler, AutoscalerConfig};
use shepherd::simulator::Simulator;

/// One node group as the node list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupRow {
    pub name: String,
    pub min: u32,
    pub max: u32,
    /// Registered nodes of the group now.
    pub current: u32,
    /// Nodes asked for that have not registered yet.
    pub upcoming: u32,
    /// Registered nodes of the group that are Ready.
    pub ready: u32,
    /// The template node's allocatable, e.g. "cpu 4, memory 16Gi" (and
    /// its extended resources: ", nvidia.com/gpu 1").
    pub template: String,
    /// The price of one node per hour (`shepherd.dev/price-per-hour`), as
    /// a decimal string; `None` without one.
    pub price_per_hour: Option<String>,
}

/// One scale-up, as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleUpRow {
    pub tick: u64,
    pub group: String,
    pub from: u32,
    pub to: u32,
    /// The tick the new nodes register (the provisioning delay later).
    pub joins_at: u64,
    pub nodes: Vec<String>,
    pub pods: Vec<String>,
    /// The expander chain's reasoning, one line per expander.
    pub reasoning: Vec<String>,
}

/// One node removed by scale-down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDownRow {
    pub tick: u64,
    pub node: String,
    pub group: String,
    pub empty: bool,
    pub evicted: Vec<String>,
}

/// The autoscaler now: `None` from [`view`] when no node groups are
/// configured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscaleView {
    pub groups: Vec<GroupRow>,
    /// The expander chain, e.g. "priority,least-waste".
    pub expander: String,
    pub scan_interval: u64,
    pub provisioning_delay: u64,
    /// The registered nodes' cost per hour (priced ones), as a decimal.
    pub cost_per_hour: String,
    /// Registered nodes without a price.
    pub unpriced_nodes: u32,
    pub loops: u64,
    /// The newest first, at most [`SHOWN`].
    pub scale_ups: Vec<ScaleUpRow>,
    pub scale_downs: Vec<ScaleDownRow>,
    pub scale_up_count: u32,
    pub scale_down_count: u32,
}

/// Scale-ups and scale-downs listed, newest first.
pub const SHOWN: usize = 20;

fn scale_up_row(a: &Autoscaler, u: &shepherd::autoscaler::ScaleUp) -> ScaleUpRow {
    ScaleUpRow {
        tick: u.tick,
        group: u.group.clone(),
        from: u.from,
        to: u.to,
        joins_at: u.tick + a.config().options.provisioning_delay,
        nodes: u.nodes.clone(),
        pods: u.pods.clone(),
        reasoning: u.reasoning.clone(),
    }
}

/// The autoscaler of `sim` as the page shows it, `None` without one.
pub fn view(sim: &Simulator) -> Option<AutoscaleView> {
    let a = sim.autoscaler()?;
    let c = sim.cluster();
    let cfg = a.config();
    let mut current = vec![0u32; cfg.groups.len()];
    let mut ready = vec![0u32; cfg.groups.len()];
    for n in c.nodes() {
        if let Some(g) = a.group_of(n.spec) {
            current[g] += 1;
            ready[g] += n.ready as u32;
        }
    }
    let mut upcoming = vec![0u32; cfg.groups.len()];
    for (_, g, _) in a.upcoming() {
        if let Some(i) = cfg.groups.iter().position(|x| x.name == g) {
            upcoming[i] += 1;
        }
    }
    let groups = cfg
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| GroupRow {
            name: g.name.clone(),
            min: g.min_size,
            max: g.max_size,
            current: current[i],
            upcoming: upcoming[i],
            ready: ready[i],
            template: if g.template.scalars.is_empty() {
                g.template.capacity.to_string()
            } else {
                format!("{}, {}", g.template.capacity, g.template.scalars)
            },
            price_per_hour: g.price_micros.map(format_price_micros),
        })
        .collect();
    let (cost, unpriced) = a.cost_per_hour_micros(c);
    Some(AutoscaleView {
        groups,
        expander: cfg
            .options
            .expanders
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(","),
        scan_interval: cfg.options.scan_interval,
        provisioning_delay: cfg.options.provisioning_delay,
        cost_per_hour: format_price_micros(cost),
        unpriced_nodes: unpriced,
        loops: a.loops(),
        scale_ups: a
            .scale_ups()
            .iter()
            .rev()
            .take(SHOWN)
            .map(|u| scale_up_row(a, u))
            .collect(),
        scale_downs: a
            .scale_downs()
            .iter()
            .rev()
            .take(SHOWN)
            .map(|d| ScaleDownRow {
                tick: d.tick,
                node: d.node.clone(),
                group: d.group.clone(),
                empty: d.empty,
                evicted: d.evicted.clone(),
            })
            .collect(),
        scale_up_count: a.scale_ups().len() as u32,
        scale_down_count: a.scale_downs().len() as u32,
    })
}

/// One group's answer for a Pending pod that triggered no scale-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupReason {
    pub group: String,
    pub reason: String,
}

/// What the autoscaler did about one pod, for the explain dialog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodAutoscale {
    /// One line: "triggered scale-up of m-large by 2 at tick 10 (nodes
    /// register at tick 40)", "no node group helps", or "not considered
    /// yet".
    pub summary: String,
    /// The newest scale-up made for the pod, when there is one.
    pub scale_up: Option<ScaleUpRow>,
    /// At the last loop, per group, why it does not help (empty when the
    /// pod triggered a scale-up or was not considered).
    pub no_scale_up: Vec<GroupReason>,
}

/// The autoscaler's word on `pod`: `None` without node groups.
pub fn for_pod(sim: &Simulator, pod: &str) -> Option<PodAutoscale> {
    let a = sim.autoscaler()?;
    let up = a
        .scale_ups()
        .iter()
        .rev()
        .find(|u| u.pods.iter().any(|p| p == pod))
        .map(|u| scale_up_row(a, u));
    let none: Vec<GroupReason> = a
        .no_scale_up()
        .iter()
        .find(|n| n.pod == pod)
        .map(|n| {
            n.groups
                .iter()
                .map(|(g, r)| GroupReason {
                    group: g.clone(),
                    reason: r.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let now = sim.cluster().now();
    let summary = match (&up, none.is_empty()) {
        (_, false) => format!(
            "no node group helps: at its last loop no template node of Cluster Autoscaler's {} node group(s) takes the pod (NotTriggerScaleUp)",
            none.len()
        ),
        (Some(u), true) => {
            let joins = if u.joins_at > now {
                format!("the nodes register at tick {}", u.joins_at)
            } else {
                format!("the nodes registered at tick {}", u.joins_at)
            };
            format!(
                "triggered scale-up of {} by {} at tick {} ({} -> {}); {joins}",
                u.group,
                u.to - u.from,
                u.tick,
                u.from,
                u.to
            )
        }
        (None, true) => format!(
            "no scale-up for it yet: Cluster Autoscaler looks at Pending pods every {} s",
            a.config().options.scan_interval
        ),
    };
    Some(PodAutoscale {
        summary,
        scale_up: up,
        no_scale_up: none,
    })
}

/// The registered nodes and the cluster's cost per hour in dollars (priced
/// nodes; 0 without node groups), for the charts.
pub fn nodes_and_cost(sim: &Simulator) -> (u32, f64) {
    let c = sim.cluster();
    let cost = sim.autoscaler().map_or(0, |a| a.cost_per_hour_micros(c).0);
    (c.node_count() as u32, cost as f64 / 1_000_000.0)
}

// ----- the form: node groups and Cluster Autoscaler's options, edited -----

/// Node groups a form may declare: the engine's list bound
/// (`shepherd::limits::MAX_LIST`).
pub const MAX_GROUPS: usize = shepherd::limits::MAX_LIST;
/// The longest scan interval, provisioning delay or scale-down time the
/// form takes: a day of cluster time (a run stops at tick 100,000).
pub const MAX_DURATION: u64 = 86_400;
/// The highest price per hour of one node: $1,000,000 (in millionths), so
/// that the cost of the largest cluster stays a whole u64.
pub const MAX_PRICE_MICROS: u64 = 1_000_000 * 1_000_000;
/// The instance type label (kubelet's well-known label).
pub const INSTANCE_TYPE_KEY: &str = "node.kubernetes.io/instance-type";

/// The kwok provider's config as the form keeps it (not shown: the
/// export writes it back; see [`KwokProviderConfig`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderDoc {
    pub api_version: String,
    /// `configmap` or `cluster`.
    pub read_nodes_from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_node_label_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_node_annotation: Option<String>,
    #[serde(default)]
    pub skip_taint: bool,
    pub templates_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templates_key: Option<String>,
}

/// One node group as the form shows it: its template node and its
/// bounds, every field as text the way a manifest writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupDoc {
    pub name: String,
    /// The template Node's own name in the templates ConfigMap (absent:
    /// the group's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_name: Option<String>,
    /// `node.kubernetes.io/instance-type`; empty: none (or, grouping by
    /// that label, the group's name).
    #[serde(default)]
    pub instance_type: String,
    /// Allocatable cpu as a quantity (`4`, `3500m`).
    pub cpu: String,
    /// Allocatable memory as a quantity (`16Gi`).
    pub memory: String,
    /// Allocatable pods; empty: the kubelet's 110.
    #[serde(default)]
    pub pods: String,
    /// Extended resources and other scalars, `nvidia.com/gpu=1,ephemeral-storage=100Gi`.
    #[serde(default)]
    pub extended: String,
    /// The template's other labels, `k=v,k2=v2`.
    #[serde(default)]
    pub labels: String,
    /// `key=value:Effect,...` (the provider's own `kwok-provider` taint is
    /// added unless `nodes.skipTaint`, and not shown).
    #[serde(default)]
    pub taints: String,
    /// `cluster-autoscaler.kwok.nodegroup/min-count`.
    pub min: String,
    /// `cluster-autoscaler.kwok.nodegroup/max-count`.
    pub max: String,
    /// `shepherd.dev/price-per-hour`, a decimal; empty: no price.
    #[serde(default)]
    pub price_per_hour: String,
    /// The template's other annotations, kept for the export.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// Cluster Autoscaler's flags as the form shows them (Go durations,
/// `MIN:MAX` ranges, a fraction), plus Shepherd's provisioning delay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OptionsDoc {
    pub expander: String,
    pub scan_interval: String,
    pub provisioning_delay: String,
    pub max_nodes_total: String,
    pub cores_total: String,
    pub memory_total: String,
    pub max_nodes_per_scaleup: String,
    pub scale_down_enabled: bool,
    pub scale_down_utilization_threshold: String,
    pub scale_down_unneeded_time: String,
    pub scale_down_delay_after_add: String,
    pub max_empty_bulk_delete: String,
    pub expendable_pods_priority_cutoff: String,
    pub skip_nodes_with_local_storage: bool,
    pub skip_nodes_with_system_pods: bool,
}

impl Default for OptionsDoc {
    fn default() -> Self {
        OptionsDoc::from_engine(&AutoscalerOptions::default())
    }
}

/// One tier of the priority expander's ConfigMap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriorityDoc {
    pub priority: i32,
    pub patterns: Vec<String>,
}

/// Everything the simulated Cluster Autoscaler reads, as the page's form
/// edits it and the script (`setAutoscaler`) carries it. What the form
/// does not show (the provider's config, the priority tiers, the pods'
/// safe-to-evict and local-storage owners, which nodes are in which
/// group) passes through unchanged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutoscalerDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderDoc>,
    #[serde(default)]
    pub groups: Vec<GroupDoc>,
    #[serde(default)]
    pub options: OptionsDoc,
    /// Registered nodes of a group: node name to group name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub members: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priorities: Vec<PriorityDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_safe_to_evict: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safe_to_evict: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_storage: Vec<String>,
}

/// A duration as CA's flags write one: `10m`, `1h30m`, `45s`, `0s`.
pub fn format_duration(s: u64) -> String {
    if s == 0 {
        return "0s".into();
    }
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if sec > 0 {
        out.push_str(&format!("{sec}s"));
    }
    out
}

/// Thousandths as a fraction: 500 is `0.5`.
fn format_permille(p: u32) -> String {
    format_price_micros(p as u64 * 1000)
}

fn join_labels(l: &shepherd::Labels) -> String {
    l.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

impl OptionsDoc {
    pub fn from_engine(o: &AutoscalerOptions) -> Self {
        OptionsDoc {
            expander: o
                .expanders
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(","),
            scan_interval: format_duration(o.scan_interval),
            provisioning_delay: format_duration(o.provisioning_delay),
            max_nodes_total: o.max_nodes_total.to_string(),
            cores_total: format!("{}:{}", o.cores_total.0, o.cores_total.1),
            memory_total: format!("{}:{}", o.memory_total_gib.0, o.memory_total_gib.1),
            max_nodes_per_scaleup: o.max_nodes_per_scaleup.to_string(),
            scale_down_enabled: o.scale_down_enabled,
            scale_down_utilization_threshold: format_permille(
                o.scale_down_utilization_threshold_permille,
            ),
            scale_down_unneeded_time: format_duration(o.scale_down_unneeded_time),
            scale_down_delay_after_add: format_duration(o.scale_down_delay_after_add),
            max_empty_bulk_delete: o.max_empty_bulk_delete.to_string(),
            expendable_pods_priority_cutoff: o.expendable_pods_priority_cutoff.to_string(),
            skip_nodes_with_local_storage: o.skip_nodes_with_local_storage,
            skip_nodes_with_system_pods: o.skip_nodes_with_system_pods,
        }
    }

    /// The options, or the first field that is not one (named by its flag).
    pub fn to_engine(&self) -> Result<AutoscalerOptions, String> {
        let bad = |flag: &str, v: &str, expected: &str| {
            format!(
                "{flag} {} is not valid; expected {expected}",
                shepherd::limits::quoted(v.trim())
            )
        };
        let count = |flag: &str, v: &str, min: u64, max: u64| -> Result<u64, String> {
            match v.trim().parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(bad(flag, v, &format!("a whole number from {min} to {max}"))),
            }
        };
        let time = |flag: &str, v: &str, min: u64| -> Result<u64, String> {
            match shepherd_k8s::go_duration(v.trim()) {
                Some(n) if (min..=MAX_DURATION).contains(&n) => Ok(n),
                _ => Err(bad(
                    flag,
                    v,
                    &format!(
                        "a duration of whole seconds from {} to 24h, e.g. 30s, 10m or 1h30m",
                        format_duration(min)
                    ),
                )),
            }
        };
        let range = |flag: &str, v: &str, unit: &str| -> Result<(u64, u64), String> {
            let expected =
                format!("MIN:MAX in {unit}, whole numbers with MIN <= MAX, e.g. 0:320000");
            let (a, b) = v
                .trim()
                .split_once(':')
                .ok_or_else(|| bad(flag, v, &expected))?;
            match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                (Ok(a), Ok(b)) if a <= b && b <= 1_000_000_000_000 => Ok((a, b)),
                _ => Err(bad(flag, v, &expected)),
            }
        };
        let expanders = Expander::parse_list(self.expander.trim()).map_err(|e| e.to_string())?;
        if expanders.len() > 5 {
            return Err(bad(
                "--expander",
                &self.expander,
                "at most 5 expanders in the chain",
            ));
        }
        let threshold = {
            let t = self.scale_down_utilization_threshold.trim();
            let f: f64 = t.parse().unwrap_or(f64::NAN);
            if !(0.0..=1.0).contains(&f) {
                return Err(bad(
                    "--scale-down-utilization-threshold",
                    t,
                    "a fraction from 0 to 1, e.g. 0.5",
                ));
            }
            (f * 1000.0).round() as u32
        };
        let cutoff = {
            let t = self.expendable_pods_priority_cutoff.trim();
            t.parse::<i32>().map_err(|_| {
                bad(
                    "--expendable-pods-priority-cutoff",
                    t,
                    "a whole number (a pod priority), e.g. -10",
                )
            })?
        };
        let max_nodes = shepherd::limits::MAX_NODES as u64;
        Ok(AutoscalerOptions {
            scan_interval: time("--scan-interval", &self.scan_interval, 1)?,
            max_nodes_total: count("--max-nodes-total", &self.max_nodes_total, 0, max_nodes)?
                as u32,
            cores_total: range("--cores-total", &self.cores_total, "cores")?,
            memory_total_gib: range("--memory-total", &self.memory_total, "GiB")?,
            max_nodes_per_scaleup: count(
                "--max-nodes-per-scaleup",
                &self.max_nodes_per_scaleup,
                1,
                max_nodes,
            )? as u32,
            expanders,
            provisioning_delay: time("provisioning delay", &self.provisioning_delay, 0)?,
            scale_down_enabled: self.scale_down_enabled,
            scale_down_utilization_threshold_permille: threshold,
            scale_down_unneeded_time: time(
                "--scale-down-unneeded-time",
                &self.scale_down_unneeded_time,
                0,
            )?,
            scale_down_delay_after_add: time(
                "--scale-down-delay-after-add",
                &self.scale_down_delay_after_add,
                0,
            )?,
            max_empty_bulk_delete: count(
                "--max-empty-bulk-delete",
                &self.max_empty_bulk_delete,
                1,
                max_nodes,
            )? as u32,
            expendable_pods_priority_cutoff: cutoff,
            skip_nodes_with_local_storage: self.skip_nodes_with_local_storage,
            skip_nodes_with_system_pods: self.skip_nodes_with_system_pods,
        })
    }
}

impl ProviderDoc {
    fn from_engine(p: &KwokProviderConfig) -> Self {
        let (label, annotation) = match &p.group_by {
            GroupBy::Label(k) => (Some(k.clone()), None),
            GroupBy::Annotation(k) => (None, Some(k.clone())),
        };
        ProviderDoc {
            api_version: p.api_version.clone(),
            read_nodes_from: p.read_nodes_from.as_str().into(),
            from_node_label_key: label,
            from_node_annotation: annotation,
            skip_taint: p.skip_taint,
            templates_name: p.templates_name.clone(),
            templates_key: p.templates_key.clone(),
        }
    }

    fn to_engine(&self) -> Result<KwokProviderConfig, String> {
        let read_nodes_from = match self.read_nodes_from.as_str() {
            "configmap" => ReadNodesFrom::ConfigMap,
            "cluster" => ReadNodesFrom::Cluster,
            other => {
                return Err(format!(
                    "provider readNodesFrom {}: expected configmap or cluster",
                    shepherd::limits::quoted(other)
                ))
            }
        };
        let group_by = match (&self.from_node_label_key, &self.from_node_annotation) {
            (Some(k), None) if !k.is_empty() => GroupBy::Label(k.clone()),
            (None, Some(k)) if !k.is_empty() => GroupBy::Annotation(k.clone()),
            _ => {
                return Err(
                    "provider nodegroups: expected exactly one of fromNodeLabelKey and fromNodeAnnotation"
                        .into(),
                )
            }
        };
        Ok(KwokProviderConfig {
            api_version: self.api_version.clone(),
            read_nodes_from,
            group_by,
            skip_taint: self.skip_taint,
            templates_name: self.templates_name.clone(),
            templates_key: self.templates_key.clone(),
        })
    }
}

impl GroupDoc {
    fn from_engine(g: &NodeGroup, provider: &KwokProviderConfig) -> Self {
        let t = &g.template;
        let mut labels = t.labels.clone();
        let implied = match &provider.group_by {
            GroupBy::Label(k) if !g.annotations.contains_key(NG_NAME_ANNOTATION) => {
                Some(k.as_str())
            }
            _ => None,
        };
        if let Some(k) = implied {
            if labels.get(k) == Some(&g.name) {
                labels.remove(k);
            }
        }
        let instance_type = labels.remove(INSTANCE_TYPE_KEY).unwrap_or_default();
        let mut taints = t.taints.clone();
        if !provider.skip_taint {
            let kt = kwok_provider_taint();
            if let Some(i) = taints.iter().rposition(|x| *x == kt) {
                taints.remove(i);
            }
        }
        let tname = t.name.strip_prefix("kwok-fake-").unwrap_or(&t.name);
        GroupDoc {
            name: g.name.clone(),
            template_name: (tname != g.name).then(|| tname.to_string()),
            instance_type,
            cpu: shepherd::quantity::format_cpu_millis(t.capacity.cpu_millis),
            memory: shepherd::quantity::format_memory_bytes(t.capacity.memory_bytes),
            pods: t.max_pods.to_string(),
            extended: t
                .scalars
                .iter()
                .map(|(k, v)| format!("{k}={}", shepherd::scalar::format_amount(k, v)))
                .collect::<Vec<_>>()
                .join(","),
            labels: join_labels(&labels),
            taints: taints
                .iter()
                .map(|x| {
                    if x.value.is_empty() {
                        format!("{}:{}", x.key, x.effect.as_str())
                    } else {
                        format!("{}={}:{}", x.key, x.value, x.effect.as_str())
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
            min: g.min_size.to_string(),
            max: g.max_size.to_string(),
            price_per_hour: g.price_micros.map(format_price_micros).unwrap_or_default(),
            annotations: g.annotations.clone(),
        }
    }

    /// The group, or what is wrong with a field, in the words "node group
    /// 2 (c5.xlarge): max ...".
    fn to_engine(&self, i: usize, provider: &KwokProviderConfig) -> Result<NodeGroup, String> {
        let name = self.name.trim();
        let at = |m: String| {
            if name.is_empty() {
                format!("node group {}: {m}", i + 1)
            } else {
                format!(
                    "node group {} ({}): {m}",
                    i + 1,
                    shepherd::limits::shown(name)
                )
            }
        };
        let bad = |what: &str, v: &str, expected: &str| {
            at(format!(
                "{what} {} is not valid; expected {expected}",
                shepherd::limits::quoted(v.trim())
            ))
        };
        if name.is_empty() {
            return Err(at(
                "name is empty; expected a name such as m5.large (a DNS subdomain)".into(),
            ));
        }
        let max_nodes = shepherd::limits::MAX_NODES as u64;
        let count = |what: &str, v: &str, default: Option<u64>| -> Result<u64, String> {
            let t = v.trim();
            if t.is_empty() {
                if let Some(d) = default {
                    return Ok(d);
                }
            }
            match t.parse::<u64>() {
                Ok(n) if n <= max_nodes => Ok(n),
                _ => Err(bad(
                    what,
                    v,
                    &format!("a whole number of nodes from 0 to {max_nodes}"),
                )),
            }
        };
        let min = count("min", &self.min, Some(DEFAULT_MIN_SIZE as u64))? as u32;
        let max = count("max", &self.max, Some(DEFAULT_MAX_SIZE as u64))? as u32;
        if min > max {
            return Err(at(format!(
                "min {min} is greater than max {max}; expected min <= max"
            )));
        }
        let cpu = crate::input::cpu_text(&self.cpu).map_err(&at)?.value;
        let memory = crate::input::memory_text(&self.memory).map_err(&at)?.value;
        if cpu == 0 || memory == 0 {
            return Err(at(format!(
                "{} is 0; expected a template node with some cpu and memory",
                if cpu == 0 { "cpu" } else { "memory" }
            )));
        }
        let pods = match self.pods.trim() {
            "" => shepherd::model::DEFAULT_MAX_PODS,
            t => match t.parse::<u32>() {
                Ok(n) if n <= 1_000_000 => n,
                _ => {
                    return Err(bad(
                        "pods",
                        t,
                        "a number of pods from 0 to 1000000 (the kubelet's default is 110)",
                    ))
                }
            },
        };
        let mut scalars = shepherd::scalar::Scalars::new();
        for part in self
            .extended
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                bad(
                    "extended resource",
                    part,
                    "name=amount pairs separated by commas, e.g. nvidia.com/gpu=1",
                )
            })?;
            let k = k.trim();
            shepherd::scalar::classify(k).map_err(|e| at(format!("extended resource {e}")))?;
            if scalars.len() >= shepherd::scalar::MAX_SCALARS {
                return Err(at(format!(
                    "extended resources: more than {}; expected at most that many",
                    shepherd::scalar::MAX_SCALARS
                )));
            }
            let n = shepherd::quantity::memory_bytes(v.trim())
                .map_err(|e| at(format!("extended resource {k}: {e}")))?
                .value;
            if n > shepherd::model::MAX_MEMORY_BYTES {
                return Err(bad(
                    &format!("extended resource {k}"),
                    v,
                    "at most 1Pi (or that many devices)",
                ));
            }
            scalars.set(k, n);
        }
        let mut labels = crate::scenario::parse_labels(&self.labels, "label").map_err(&at)?;
        let it = self.instance_type.trim();
        let mut annotations = self.annotations.clone();
        for k in [NG_MIN_ANNOTATION, NG_MAX_ANNOTATION, PRICE_ANNOTATION] {
            annotations.remove(k);
        }
        match (
            &provider.group_by,
            annotations.contains_key(NG_NAME_ANNOTATION),
        ) {
            (_, true) => {
                annotations.insert(NG_NAME_ANNOTATION.into(), name.into());
            }
            (GroupBy::Label(k), false) => {
                let given = if k == INSTANCE_TYPE_KEY && !it.is_empty() {
                    Some(it)
                } else {
                    labels.get(k).map(String::as_str)
                };
                if let Some(v) = given.filter(|v| *v != name) {
                    let what = if k == INSTANCE_TYPE_KEY {
                        "instance type".to_string()
                    } else {
                        format!("label {k}")
                    };
                    return Err(at(format!(
                        "{what} {} differs from the name; the kwok provider groups nodes by label {k} (nodegroups.fromNodeLabelKey), so expected {}",
                        shepherd::limits::quoted(v),
                        shepherd::limits::quoted(name)
                    )));
                }
                labels.insert(k.clone(), name.into());
            }
            (GroupBy::Annotation(k), false) => {
                annotations.insert(k.clone(), name.into());
            }
        }
        if !it.is_empty() {
            labels.insert(INSTANCE_TYPE_KEY.into(), it.into());
        }
        let price = match self.price_per_hour.trim().trim_start_matches('$') {
            "" => None,
            t => match parse_price_micros(t) {
                Some(p) if p <= MAX_PRICE_MICROS => Some(p),
                _ => {
                    return Err(bad(
                        "price per hour",
                        &self.price_per_hour,
                        "dollars an hour as a decimal with at most 6 places, from 0 to 1000000, e.g. 0.096 (or empty: no price)",
                    ))
                }
            },
        };
        let tname = self
            .template_name
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(name);
        let mut t = shepherd::NodeSpec::new(&format!("kwok-fake-{tname}"), cpu, memory);
        t.labels = labels;
        t.max_pods = pods;
        t.scalars = scalars;
        for d in crate::input::parse_taints(&self.taints).map_err(&at)? {
            let effect = shepherd::TaintEffect::parse(&d.effect).map_err(|e| at(e.to_string()))?;
            t.taints
                .push(shepherd::Taint::new(&d.key, &d.value, effect));
        }
        if !provider.skip_taint {
            t.taints.push(kwok_provider_taint());
        }
        let mut g = NodeGroup::new(name, t, min, max);
        g.price_micros = price;
        g.annotations = annotations;
        g.validate().map_err(|e| at(e.to_string()))?;
        Ok(g)
    }
}

impl AutoscalerDoc {
    /// The configuration as the form shows it; `members` as given (the
    /// page passes the nodes each group has now: [`doc`]).
    pub fn from_engine(c: &AutoscalerConfig, members: BTreeMap<String, String>) -> Self {
        let provider = c.provider.clone().unwrap_or_default();
        AutoscalerDoc {
            provider: c.provider.as_ref().map(ProviderDoc::from_engine),
            groups: c
                .groups
                .iter()
                .map(|g| GroupDoc::from_engine(g, &provider))
                .collect(),
            options: OptionsDoc::from_engine(&c.options),
            members,
            priorities: c
                .priorities
                .iter()
                .map(|(p, r)| PriorityDoc {
                    priority: *p,
                    patterns: r.clone(),
                })
                .collect(),
            not_safe_to_evict: c.not_safe_to_evict.iter().cloned().collect(),
            safe_to_evict: c.safe_to_evict.iter().cloned().collect(),
            local_storage: c.local_storage.iter().cloned().collect(),
        }
    }

    /// The engine's configuration, or the first field that is wrong, named
    /// ("node group 2 (c5.xlarge): max ...", "--scan-interval ..."). The
    /// engine's own check (`AutoscalerConfig::validate`) runs last, as it
    /// does for an import. Nodes of a group no longer declared leave the
    /// autoscaler's hands.
    pub fn to_engine(&self) -> Result<AutoscalerConfig, String> {
        if self.groups.len() > MAX_GROUPS {
            return Err(format!(
                "{} node groups; expected at most {MAX_GROUPS}",
                self.groups.len()
            ));
        }
        let provider = match &self.provider {
            Some(p) => Some(p.to_engine()?),
            None => None,
        };
        let p = provider.clone().unwrap_or_default();
        let mut groups = Vec::with_capacity(self.groups.len());
        for (i, g) in self.groups.iter().enumerate() {
            let g = g.to_engine(i, &p)?;
            if let Some(j) = groups.iter().position(|x: &NodeGroup| x.name == g.name) {
                return Err(format!(
                    "node group {} ({}): name is the name of node group {} too; expected each group once",
                    i + 1,
                    g.name,
                    j + 1
                ));
            }
            groups.push(g);
        }
        groups.sort_by(|a, b| a.name.cmp(&b.name));
        let members = self
            .members
            .iter()
            .filter(|(_, g)| groups.iter().any(|x| &x.name == *g))
            .map(|(n, g)| (n.clone(), g.clone()))
            .collect();
        let cfg = AutoscalerConfig {
            provider,
            groups,
            members,
            options: self.options.to_engine()?,
            priorities: self
                .priorities
                .iter()
                .map(|t| (t.priority, t.patterns.clone()))
                .collect(),
            not_safe_to_evict: self.not_safe_to_evict.iter().cloned().collect(),
            safe_to_evict: self.safe_to_evict.iter().cloned().collect(),
            local_storage: self.local_storage.iter().cloned().collect(),
        };
        cfg.validate().map_err(|e| e.to_string())?;
        Ok(cfg)
    }
}

/// What the form starts from: the autoscaler running now, with every
/// registered node of a group as a member (so that a restart keeps the
/// nodes it made, whatever their labels say); without one, no groups and
/// CA's defaults, grouping by the instance type label.
pub fn doc(sim: &Simulator) -> AutoscalerDoc {
    match sim.autoscaler() {
        Some(a) => {
            let cfg = a.config();
            let members = sim
                .cluster()
                .nodes()
                .filter_map(|n| {
                    a.group_of(n.spec)
                        .map(|g| (n.spec.name.clone(), cfg.groups[g].name.clone()))
                })
                .collect();
            AutoscalerDoc::from_engine(cfg, members)
        }
        None => {
            let provider = KwokProviderConfig {
                group_by: GroupBy::Label(INSTANCE_TYPE_KEY.into()),
                skip_taint: true,
                ..Default::default()
            };
            AutoscalerDoc::from_engine(
                &AutoscalerConfig {
                    provider: Some(provider),
                    ..Default::default()
                },
                BTreeMap::new(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifests::{export_session, import_session};

    const EXAMPLE: &str = include_str!("../../www/examples/autoscaling.yaml");

    fn pending(s: &crate::session::Session, prefix: &str) -> Vec<String> {
        s.simulator()
            .cluster()
            .pending_pods()
            .map(|p| p.name())
            .filter(|n| n.starts_with(prefix))
            .collect()
    }

    #[test]
    fn the_example_scales_up_in_the_session_and_the_page_sees_it() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        let v = view(s.simulator()).expect("node groups");
        let names: Vec<&str> = v.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["c5.xlarge", "m5.large", "r5.large"]);
        assert_eq!(
            (v.groups[1].min, v.groups[1].current, v.groups[1].max),
            (1, 2, 6)
        );
        assert_eq!(v.expander, "least-waste");
        assert_eq!(v.cost_per_hour, "0.192");
        // The two fixed nodes hold one api pod each (1 cpu of 2, with the
        // web pod, node-exporter and cluster-autoscaler); four wait.
        let api = pending(&s, "api-");
        assert_eq!(api.len(), 4);
        let before = for_pod(s.simulator(), &api[0]).unwrap();
        assert!(
            before.summary.starts_with("no scale-up for it yet"),
            "{}",
            before.summary
        );

        // Tick 10: the first loop asks for nodes of one group for them.
        s.run(10 - s.tick());
        let v = view(s.simulator()).unwrap();
        assert_eq!(v.scale_up_count, 1);
        let up = &v.scale_ups[0];
        // By hand: a c5.xlarge (4 cpu, 8Gi) less kube-proxy's 100m and
        // node-exporter's 50m/64Mi holds two api pods (1 cpu, 3Gi) by
        // memory: 2 nodes, 50% idle cpu and 25% idle memory; m5.large takes
        // one pod a node (4 nodes, 63% idle memory), r5.large too (81%).
        assert_eq!((up.group.as_str(), up.from, up.to), ("c5.xlarge", 0, 2));
        assert_eq!(
            up.reasoning,
            ["least-waste: c5.xlarge 50% idle cpu, 25% idle memory against m5.large 50% idle cpu, 63% idle memory; r5.large 50% idle cpu, 81% idle memory"]
        );
        // By hand: a c5.xlarge (4 cpu, 8Gi) less kube-proxy's 100m and
        // node-exporter's 50m/64Mi holds two api pods (1 cpu, 3Gi) by
        // memory: 2 nodes, 50% idle cpu and 25% idle memory; m5.large takes
        // one pod a node (4 nodes, 63% idle memory), r5.large too (81%).
        assert_eq!((up.group.as_str(), up.from, up.to), ("c5.xlarge", 0, 2));
        assert_eq!(
            up.reasoning,
            ["least-waste: c5.xlarge 50% idle cpu, 25% idle memory against m5.large 50% idle cpu, 63% idle memory; r5.large 50% idle cpu, 81% idle memory"]
        );
        assert_eq!((up.tick, up.joins_at), (10, 40));
        let mut pods = up.pods.clone();
        pods.sort();
        let mut want = api.clone();
        want.sort();
        assert_eq!(pods, want);
        let g = v.groups.iter().find(|g| g.name == up.group).unwrap();
        assert_eq!((g.current, g.upcoming), (0, up.to - up.from));
        let said = for_pod(s.simulator(), &api[0]).unwrap();
        assert!(
            said.summary.starts_with(&format!(
                "triggered scale-up of {} by {} at tick 10",
                up.group,
                up.to - up.from
            )),
            "{}",
            said.summary
        );
        // The report pod asks for an instance type no group offers.
        let report = pending(&s, "report-");
        let no = for_pod(s.simulator(), &report[0]).unwrap();
        assert!(
            no.summary.starts_with("no node group helps"),
            "{}",
            no.summary
        );
        assert_eq!(no.no_scale_up.len(), 3);
        assert!(no
            .no_scale_up
            .iter()
            .all(|r| r.reason == "node(s) didn't match Pod's node affinity/selector"));

        // Tick 40: the nodes register and the api pods bind on them.
        s.run(39 - s.tick());
        assert_eq!(s.simulator().cluster().node_count(), 2);
        s.run(1);
        let added = (up.to - up.from) as usize;
        assert_eq!(s.simulator().cluster().node_count(), 2 + added);
        assert!(pending(&s, "api-").is_empty());
        let price: f64 = g.price_per_hour.as_deref().unwrap().parse().unwrap();
        let series = s.series();
        assert_eq!(series.nodes[39], 2);
        assert_eq!(series.nodes[40] as usize, 2 + added);
        assert!((series.cost_per_hour[39] - 0.192).abs() < 1e-9);
        assert!((series.cost_per_hour[40] - (0.192 + added as f64 * price)).abs() < 1e-9);
        // The node cards name each node's group.
        let snap = s.snapshot(true);
        let cards = snap.nodes.unwrap();
        assert!(cards
            .iter()
            .filter(|c| c.name.starts_with(&format!("{}-", up.group)))
            .all(|c| c.node_group.as_deref() == Some(up.group.as_str())));
        assert_eq!(
            cards
                .iter()
                .filter(|c| c.node_group.as_deref() == Some("m5.large"))
                .count(),
            2
        );

        // Back replays the same: the autoscaler starts again from the script.
        let at_40 = view(s.simulator()).unwrap();
        s.replay_to(5).unwrap();
        assert_eq!(view(s.simulator()).unwrap().scale_up_count, 0);
        s.replay_to(40).unwrap();
        assert_eq!(view(s.simulator()).unwrap(), at_40);
    }

    #[test]
    fn export_writes_the_kwok_configmaps_back_as_imported() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        s.run(45);
        let (out, _) = export_session(&s).unwrap();
        let im = shepherd_k8s::import(&out).unwrap();
        let first = shepherd_k8s::import(EXAMPLE).unwrap();
        assert_eq!(im.scenario.autoscaler, first.scenario.autoscaler);
        // And again, the same text: nothing drifts through the session
        // (the walk of www/examples/ in k8s/src/kept_tests.rs checks the
        // export of the import equals the input object by object).
        let (s2, _) = import_session(&out, 7).unwrap();
        assert_eq!(
            export_session(&s2)
                .unwrap()
                .0
                .matches("kind: ConfigMap")
                .count(),
            2
        );
    }

    fn set(s: &mut crate::session::Session, doc: AutoscalerDoc) -> Result<String, String> {
        s.submit(crate::scenario::Action::SetAutoscaler {
            autoscaler: Box::new(doc),
        })
    }

    #[test]
    fn the_form_reads_back_what_it_shows_and_the_engine_holds() {
        let (s, _) = import_session(EXAMPLE, 7).unwrap();
        let cfg = s.simulator().autoscaler().unwrap().config().clone();
        let d = doc(s.simulator());
        let g = &d.groups[0];
        assert_eq!(
            (
                g.name.as_str(),
                g.instance_type.as_str(),
                g.cpu.as_str(),
                g.memory.as_str()
            ),
            ("c5.xlarge", "", "4", "8Gi")
        );
        assert_eq!(
            (g.min.as_str(), g.max.as_str(), g.price_per_hour.as_str()),
            ("0", "4", "0.17")
        );
        assert_eq!(g.labels, "topology.kubernetes.io/zone=eu-west-1a");
        assert_eq!(d.options.expander, "least-waste");
        assert_eq!(d.options.scale_down_unneeded_time, "10m");
        assert_eq!(d.options.provisioning_delay, "30s");
        // The two registered m5.large nodes are the members.
        assert_eq!(d.members.len(), 2);
        let back = d.to_engine().unwrap();
        assert_eq!(back.groups, cfg.groups);
        assert_eq!(back.options, cfg.options);
        assert_eq!(back.provider, cfg.provider);
        // The JSON the script and the link carry reads back the same.
        let json = serde_json::to_string(&d).unwrap();
        let again: AutoscalerDoc = serde_json::from_str(&json).unwrap();
        assert_eq!(again, d);
    }

    #[test]
    fn an_edit_goes_through_the_script_back_replay_and_the_export() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        // After the first scale-up's c5.xlarge nodes registered (tick 40).
        s.run(41 - s.tick());
        let mut d = doc(s.simulator());
        let c5 = d.groups.iter_mut().find(|g| g.name == "c5.xlarge").unwrap();
        c5.min = "1".into();
        c5.max = "7".into();
        c5.price_per_hour = "0.2".into();
        c5.taints = "dedicated=batch:PreferNoSchedule".into();
        d.groups.retain(|g| g.name != "r5.large");
        d.groups.push(GroupDoc {
            name: "g5.xlarge".into(),
            instance_type: "g5.xlarge".into(),
            cpu: "4".into(),
            memory: "16Gi".into(),
            extended: "nvidia.com/gpu=1".into(),
            labels: "topology.kubernetes.io/zone=eu-west-1a".into(),
            min: "0".into(),
            max: "2".into(),
            price_per_hour: "1.006".into(),
            ..Default::default()
        });
        d.options.provisioning_delay = "45s".into();
        d.options.scale_down_unneeded_time = "2m".into();
        d.options.expander = "price,least-waste".into();
        set(&mut s, d).unwrap();
        s.run(1);
        let v = view(s.simulator()).unwrap();
        let names: Vec<&str> = v.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["c5.xlarge", "g5.xlarge", "m5.large"]);
        let c5 = &v.groups[0];
        assert_eq!(
            (c5.min, c5.max, c5.price_per_hour.as_deref()),
            (1, 7, Some("0.2"))
        );
        // The restarted autoscaler keeps the nodes it made.
        assert_eq!(c5.current, 2);
        assert_eq!(
            (v.provisioning_delay, v.expander.as_str()),
            (45, "price,least-waste")
        );
        let g5 = s
            .simulator()
            .autoscaler()
            .unwrap()
            .config()
            .group("g5.xlarge")
            .unwrap()
            .clone();
        assert_eq!(g5.template.scalars.get("nvidia.com/gpu"), 1);
        assert_eq!(
            g5.template
                .labels
                .get(INSTANCE_TYPE_KEY)
                .map(String::as_str),
            Some("g5.xlarge")
        );
        let c5t = &s.simulator().autoscaler().unwrap().config().groups[0].template;
        assert_eq!(c5t.taints.len(), 1, "skipTaint: only the form's taint");
        // The report pod asks for a g5.xlarge: the new group helps it at
        // the next loop (tick 50).
        s.run(50 - s.tick());
        let ups = &view(s.simulator()).unwrap().scale_ups;
        assert!(ups.iter().any(|u| u.group == "g5.xlarge"), "{ups:?}");
        let at = view(s.simulator()).unwrap();
        // Back and forward: the same.
        s.replay_to(41).unwrap();
        assert!(view(s.simulator())
            .unwrap()
            .groups
            .iter()
            .any(|g| g.name == "r5.large"));
        s.replay_to(50).unwrap();
        assert_eq!(view(s.simulator()).unwrap(), at);
        // The link: the scenario's JSON rebuilds the same run.
        let json = serde_json::to_string(&s.scenario()).unwrap();
        let sc: crate::scenario::Scenario = serde_json::from_str(&json).unwrap();
        let s2 = crate::session::Session::from_scenario(&sc).unwrap();
        assert_eq!(view(s2.simulator()).unwrap(), at);
        // The export writes the edited groups in the kwok ConfigMaps.
        let (out, _) = export_session(&s).unwrap();
        // (The templates ConfigMap holds the Nodes as one YAML string.)
        assert!(
            out.contains(r#"cluster-autoscaler.kwok.nodegroup/max-count: \"7\""#),
            "{out}"
        );
        assert!(
            out.contains(r#"shepherd.dev/price-per-hour: \"0.2\""#),
            "{out}"
        );
        assert!(out.contains(r#"nvidia.com/gpu: \"1\""#), "{out}");
        let im = shepherd_k8s::import(&out).unwrap();
        let a = im.scenario.autoscaler.unwrap();
        let cfg = s.simulator().autoscaler().unwrap().config();
        assert_eq!(a.groups, cfg.groups);
        let c5 = a.group("c5.xlarge").unwrap();
        assert_eq!(
            (c5.min_size, c5.max_size, c5.price_micros),
            (1, 7, Some(200_000))
        );
    }

    #[test]
    fn a_wrong_field_is_named_and_nothing_changes() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        let base = doc(s.simulator());
        let before = s.scenario();
        type Edit = Box<dyn Fn(&mut AutoscalerDoc)>;
        let cases: Vec<(Edit, &str)> = vec![
            (Box::new(|d| d.groups[1].max = "10001".into()), "node group 2 (m5.large): max \"10001\" is not valid; expected a whole number of nodes from 0 to 10000"),
            (Box::new(|d| d.groups[1].max = "-1".into()), "node group 2 (m5.large): max \"-1\" is not valid"),
            (Box::new(|d| d.groups[1].min = "9".into()), "node group 2 (m5.large): min 9 is greater than max 6; expected min <= max"),
            (Box::new(|d| d.groups[0].price_per_hour = "cheap".into()), "node group 1 (c5.xlarge): price per hour \"cheap\" is not valid"),
            (Box::new(|d| d.groups[0].cpu = "4x".into()), "node group 1 (c5.xlarge): cpu"),
            (Box::new(|d| d.groups[0].memory = "0".into()), "node group 1 (c5.xlarge): memory is 0"),
            (Box::new(|d| d.groups[0].extended = "nvidia.com/gpu=lots".into()), "node group 1 (c5.xlarge): extended resource nvidia.com/gpu"),
            (Box::new(|d| d.groups[0].extended = "gpu=1".into()), "node group 1 (c5.xlarge): extended resource \"gpu\""),
            (Box::new(|d| d.groups[0].labels = "zone".into()), "node group 1 (c5.xlarge): label \"zone\" is not valid"),
            (Box::new(|d| d.groups[0].taints = "a=b:Sometimes".into()), "node group 1 (c5.xlarge):"),
            (Box::new(|d| d.groups[0].instance_type = "c5.2xlarge".into()), "node group 1 (c5.xlarge): instance type \"c5.2xlarge\" differs from the name"),
            (Box::new(|d| d.groups[0].name = "".into()), "node group 1: name is empty"),
            (Box::new(|d| d.groups[0].name = "C5 XL".into()), "node group 1 (C5 XL):"),
            (Box::new(|d| d.groups[2].name = "m5.large".into()), "node group 3 (m5.large): name is the name of node group 2 too"),
            (Box::new(|d| d.options.scan_interval = "0s".into()), "--scan-interval \"0s\" is not valid; expected a duration of whole seconds from 1s to 24h"),
            (Box::new(|d| d.options.scale_down_unneeded_time = "10 minutes".into()), "--scale-down-unneeded-time \"10 minutes\" is not valid"),
            (Box::new(|d| d.options.provisioning_delay = "25h".into()), "provisioning delay \"25h\" is not valid"),
            (Box::new(|d| d.options.expander = "cheapest".into()), "--expander: \"cheapest\" is not an expander"),
            (Box::new(|d| d.options.max_nodes_total = "1e9".into()), "--max-nodes-total \"1e9\" is not valid"),
            (Box::new(|d| d.options.cores_total = "64:0".into()), "--cores-total \"64:0\" is not valid"),
            (Box::new(|d| d.options.scale_down_utilization_threshold = "NaN".into()), "--scale-down-utilization-threshold \"NaN\" is not valid"),
            (Box::new(|d| {
                let g = d.groups[0].clone();
                d.groups = (0..65).map(|i| GroupDoc { name: format!("g{i}"), ..g.clone() }).collect();
            }), "65 node groups; expected at most 64"),
        ];
        for (edit, want) in cases {
            let mut d = base.clone();
            edit(&mut d);
            let e = set(&mut s, d).unwrap_err();
            assert!(
                e.starts_with(want),
                "{e}\n  expected it to start with: {want}"
            );
        }
        assert_eq!(s.scenario(), before, "nothing queued");
    }

    #[test]
    fn without_an_autoscaler_the_form_starts_one() {
        let mut s = crate::session::Session::new(3, shepherd::Profile::default());
        let mut d = doc(s.simulator());
        assert!(d.groups.is_empty());
        assert_eq!(d.options.expander, "random");
        d.groups.push(GroupDoc {
            name: "m5.large".into(),
            cpu: "2".into(),
            memory: "8Gi".into(),
            min: "0".into(),
            max: "3".into(),
            ..Default::default()
        });
        set(&mut s, d).unwrap();
        s.run(1);
        let v = view(s.simulator()).unwrap();
        assert_eq!(v.groups[0].template, "cpu 2, memory 8Gi");
        let g = s.simulator().autoscaler().unwrap().config().groups[0].clone();
        assert_eq!(
            g.template.labels.get(INSTANCE_TYPE_KEY).map(String::as_str),
            Some("m5.large")
        );
    }

    #[test]
    fn durations_are_written_as_cas_flags_write_them() {
        for (s, t) in [
            (0, "0s"),
            (10, "10s"),
            (600, "10m"),
            (5400, "1h30m"),
            (3661, "1h1m1s"),
        ] {
            assert_eq!(format_duration(s), t);
            assert_eq!(shepherd_k8s::go_duration(t), Some(s));
        }
    }

    #[test]
    fn scale_down_after_the_pods_go_shows_in_the_view_and_the_series() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        s.run(45 - s.tick());
        s.submit(crate::scenario::Action::Scale {
            app: "api".into(),
            replicas: 0,
        })
        .unwrap();
        s.run(700 - s.tick());
        let v = view(s.simulator()).unwrap();
        // By hand: the scale-up at tick 10 holds scale-down off until 610
        // (--scale-down-delay-after-add 10m); the c5.xlarge nodes are
        // unneeded from the first loop after the api pods went (tick 50),
        // ripe 10m later (650) and both empty: removed in one go. At the
        // next loop one m5.large (above the group's min of 1) goes, its web
        // pod evicted.
        let mut downs: Vec<(u64, &str, bool)> = v
            .scale_downs
            .iter()
            .map(|d| (d.tick, d.group.as_str(), d.empty))
            .collect();
        downs.sort();
        assert_eq!(
            downs,
            [
                (650, "c5.xlarge", true),
                (650, "c5.xlarge", true),
                (660, "m5.large", false)
            ]
        );
        let series = s.series();
        let at = |t: usize| {
            (
                series.nodes[t],
                (series.cost_per_hour[t] * 1000.0).round() / 1000.0,
            )
        };
        assert_eq!(at(649), (4, 0.532));
        assert_eq!(at(650), (2, 0.192));
        assert_eq!(at(660), (1, 0.096));
    }
}
