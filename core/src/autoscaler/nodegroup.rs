//! Node groups as Cluster Autoscaler's kwok cloud provider reads them
//! (kubernetes/autoscaler `cluster-autoscaler/cloudprovider/kwok/`), and
//! the autoscaler's options with CA's defaults.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::Error;
use crate::model::{NodeSpec, Taint, TaintEffect};

/// `cluster-autoscaler.kwok.nodegroup/name` (kwok_constants.go `NGNameAnnotation`).
pub const NG_NAME_ANNOTATION: &str = "cluster-autoscaler.kwok.nodegroup/name";
/// `cluster-autoscaler.kwok.nodegroup/min-count`: the group's min size (default 0).
pub const NG_MIN_ANNOTATION: &str = "cluster-autoscaler.kwok.nodegroup/min-count";
/// `cluster-autoscaler.kwok.nodegroup/max-count`: the group's max size (default 200).
pub const NG_MAX_ANNOTATION: &str = "cluster-autoscaler.kwok.nodegroup/max-count";
/// `cluster-autoscaler.kwok.nodegroup/desired-count` (default: the min).
pub const NG_DESIRED_ANNOTATION: &str = "cluster-autoscaler.kwok.nodegroup/desired-count";
/// Ours, not the provider's (it has no prices): the price of one node of
/// the group per hour, a decimal such as `"0.096"`, for the `price` expander
/// and the cost figures.
pub const PRICE_ANNOTATION: &str = "shepherd.dev/price-per-hour";
/// kwok_helpers.go `parseAnnotations`: a group without a min-count annotation.
pub const DEFAULT_MIN_SIZE: u32 = 0;
/// kwok_helpers.go `parseAnnotations`: a group without a max-count annotation.
pub const DEFAULT_MAX_SIZE: u32 = 200;
/// The taint the provider adds to every template node unless
/// `nodes.skipTaint` is true (kwok_provider.go `kwokProviderTaint`).
pub const KWOK_PROVIDER_TAINT_KEY: &str = "kwok-provider";
/// CPU the provider's template counts for kube-proxy on every new node
/// (cloudprovider `BuildKubeProxy`, `KubeProxyCpuRequestMillis`).
pub const KUBE_PROXY_CPU_MILLIS: u64 = 100;
/// Default name of the provider's config ConfigMap (kwok_config.go).
pub const PROVIDER_CONFIGMAP: &str = "kwok-provider-config";
/// Default name of the templates ConfigMap (kwok_helpers.go).
pub const TEMPLATES_CONFIGMAP: &str = "kwok-provider-templates";
/// The priority expander's ConfigMap (in kube-system; data key `priorities`).
pub const PRIORITY_EXPANDER_CONFIGMAP: &str = "cluster-autoscaler-priority-expander";

/// `readNodesFrom` in the provider's config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadNodesFrom {
    /// Template nodes from the templates ConfigMap.
    ConfigMap,
    /// Template nodes are the cluster's nodes: the first node of each group.
    Cluster,
}

impl ReadNodesFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadNodesFrom::ConfigMap => "configmap",
            ReadNodesFrom::Cluster => "cluster",
        }
    }
}

/// How nodes are grouped: `nodegroups.fromNodeLabelKey` or
/// `nodegroups.fromNodeAnnotation` (exactly one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    Label(String),
    Annotation(String),
}

/// The `kwok-provider-config` ConfigMap's `config`, as far as it decides
/// anything simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KwokProviderConfig {
    pub api_version: String,
    pub read_nodes_from: ReadNodesFrom,
    pub group_by: GroupBy,
    /// `nodes.skipTaint` (default false: the template nodes get the
    /// `kwok-provider=true:NoSchedule` taint).
    pub skip_taint: bool,
    /// `configmap.name` (required with readNodesFrom: configmap).
    pub templates_name: String,
    /// `configmap.key`: kept for the export; the provider reads `templates`.
    pub templates_key: Option<String>,
}

impl Default for KwokProviderConfig {
    fn default() -> Self {
        KwokProviderConfig {
            api_version: "v1alpha1".to_string(),
            read_nodes_from: ReadNodesFrom::ConfigMap,
            group_by: GroupBy::Label("kwok-nodegroup".to_string()),
            skip_taint: false,
            templates_name: TEMPLATES_CONFIGMAP.to_string(),
            templates_key: None,
        }
    }
}

/// One node group: its template node and its size bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeGroup {
    /// The group's id (the label or annotation value, or the
    /// `cluster-autoscaler.kwok.nodegroup/name` annotation). The provider
    /// appends a timestamp to it; the simulation does not (determinism).
    pub name: String,
    /// The template node as the provider prepares it: named
    /// `kwok-fake-<name>`, with the provider's taint unless skipTaint.
    pub template: NodeSpec,
    pub min_size: u32,
    pub max_size: u32,
    /// Price of one node per hour in millionths ([`PRICE_ANNOTATION`]).
    pub price_micros: Option<u64>,
    /// The template node's other annotations (min, max and price are the
    /// fields above), written back by the export.
    pub annotations: BTreeMap<String, String>,
}

impl NodeGroup {
    /// A group of nodes like `template` (its name becomes the template's
    /// name), between `min_size` and `max_size` nodes.
    pub fn new(name: &str, template: NodeSpec, min_size: u32, max_size: u32) -> Self {
        NodeGroup {
            name: name.to_string(),
            template,
            min_size,
            max_size,
            price_micros: None,
            annotations: BTreeMap::new(),
        }
    }

    pub fn with_price_micros(mut self, p: u64) -> Self {
        self.price_micros = Some(p);
        self
    }

    pub fn validate(&self) -> Result<(), Error> {
        crate::model::validate_name_as(
            &self.name,
            "node group",
            crate::model::NameRule::Dns1123Subdomain,
        )?;
        if self.min_size > self.max_size {
            return Err(Error::Invalid(format!(
                "node group {}: min-count {} is greater than max-count {}; expected min <= max",
                self.name, self.min_size, self.max_size
            )));
        }
        self.template.validate()
    }
}

/// The provider's taint on a template node.
pub fn kwok_provider_taint() -> Taint {
    Taint::new(KWOK_PROVIDER_TAINT_KEY, "true", TaintEffect::NoSchedule)
}

/// An expander: how CA chooses among the groups that would help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expander {
    Random,
    MostPods,
    LeastWaste,
    Price,
    Priority,
}

impl Expander {
    pub fn as_str(self) -> &'static str {
        match self {
            Expander::Random => "random",
            Expander::MostPods => "most-pods",
            Expander::LeastWaste => "least-waste",
            Expander::Price => "price",
            Expander::Priority => "priority",
        }
    }

    /// `--expander`: a comma-separated chain, e.g. `priority,least-waste`.
    pub fn parse_list(s: &str) -> Result<Vec<Expander>, Error> {
        let mut out = Vec::new();
        for part in s.split(',') {
            let e = match part.trim() {
                "random" => Expander::Random,
                "most-pods" => Expander::MostPods,
                "least-waste" => Expander::LeastWaste,
                "price" => Expander::Price,
                "priority" => Expander::Priority,
                other => {
                    return Err(Error::Invalid(format!(
                        "--expander: {other:?} is not an expander; expected a comma-separated list of random, most-pods, least-waste, price, priority"
                    )))
                }
            };
            out.push(e);
        }
        Ok(out)
    }
}

/// Cluster Autoscaler's flags that the simulation reads, with CA's
/// defaults (cluster-autoscaler/main.go, FAQ "What are the parameters to CA?").
/// Times are in ticks (seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoscalerOptions {
    /// `--scan-interval` (10 s).
    pub scan_interval: u64,
    /// `--max-nodes-total` (0: no limit).
    pub max_nodes_total: u32,
    /// `--cores-total` min:max in cores (0:320000).
    pub cores_total: (u64, u64),
    /// `--memory-total` min:max in GiB (0:6400000).
    pub memory_total_gib: (u64, u64),
    /// `--max-nodes-per-scaleup` (1000).
    pub max_nodes_per_scaleup: u32,
    /// `--expander` (default `random`), a chain.
    pub expanders: Vec<Expander>,
    /// Ours: ticks between a scale-up and its nodes registering Ready.
    pub provisioning_delay: u64,
    /// `--scale-down-enabled` (true).
    pub scale_down_enabled: bool,
    /// `--scale-down-utilization-threshold` (0.5), in thousandths.
    pub scale_down_utilization_threshold_permille: u32,
    /// `--scale-down-unneeded-time` (10 min).
    pub scale_down_unneeded_time: u64,
    /// `--scale-down-delay-after-add` (10 min).
    pub scale_down_delay_after_add: u64,
    /// `--max-empty-bulk-delete` (10).
    pub max_empty_bulk_delete: u32,
    /// `--expendable-pods-priority-cutoff` (-10): pods below it never
    /// trigger a scale-up and do not keep a node.
    pub expendable_pods_priority_cutoff: i32,
    /// `--skip-nodes-with-local-storage` (true).
    pub skip_nodes_with_local_storage: bool,
    /// `--skip-nodes-with-system-pods` (true).
    pub skip_nodes_with_system_pods: bool,
    /// `--balance-similar-node-groups` (false): a scale-up is spread over
    /// the groups similar to the chosen one ([`super::balance`]).
    pub balance_similar_node_groups: bool,
    /// `--balancing-ignore-label` (repeatable): labels, besides CA's basic
    /// ones, that do not make two groups different.
    pub balancing_ignore_labels: Vec<String>,
}

impl Default for AutoscalerOptions {
    fn default() -> Self {
        AutoscalerOptions {
            scan_interval: 10,
            max_nodes_total: 0,
            cores_total: (0, 320_000),
            memory_total_gib: (0, 6_400_000),
            max_nodes_per_scaleup: 1000,
            expanders: alloc::vec![Expander::Random],
            provisioning_delay: 30,
            scale_down_enabled: true,
            scale_down_utilization_threshold_permille: 500,
            scale_down_unneeded_time: 600,
            scale_down_delay_after_add: 600,
            max_empty_bulk_delete: 10,
            expendable_pods_priority_cutoff: -10,
            skip_nodes_with_local_storage: true,
            skip_nodes_with_system_pods: true,
            balance_similar_node_groups: false,
            balancing_ignore_labels: Vec::new(),
        }
    }
}

/// Everything the simulated Cluster Autoscaler reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoscalerConfig {
    /// The provider's config, when it came from a `kwok-provider-config`.
    pub provider: Option<KwokProviderConfig>,
    /// The groups, in name order.
    pub groups: Vec<NodeGroup>,
    /// Registered nodes that belong to a group: node name to group name.
    pub members: BTreeMap<String, String>,
    pub options: AutoscalerOptions,
    /// The priority expander's tiers: (priority, regexes), highest first.
    pub priorities: Vec<(i32, Vec<String>)>,
    /// Pod owners (`NAMESPACE/NAME` keys, or names in default) whose pods
    /// carry `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`.
    pub not_safe_to_evict: BTreeSet<String>,
    /// ... `"true"`: movable whatever else they are.
    pub safe_to_evict: BTreeSet<String>,
    /// ... whose pods mount local storage (emptyDir, hostPath).
    pub local_storage: BTreeSet<String>,
}

impl AutoscalerConfig {
    pub fn group(&self, name: &str) -> Option<&NodeGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    pub fn validate(&self) -> Result<(), Error> {
        let mut seen = BTreeSet::new();
        for g in &self.groups {
            g.validate()?;
            if !seen.insert(g.name.as_str()) {
                return Err(Error::Invalid(format!(
                    "node group {} is declared twice; expected each group once",
                    g.name
                )));
            }
        }
        let o = &self.options;
        if o.scan_interval == 0 {
            return Err(Error::Invalid(
                "--scan-interval: 0; expected at least 1 second".to_string(),
            ));
        }
        if o.expanders.is_empty() {
            return Err(Error::Invalid(
                "--expander: empty; expected at least one expander".to_string(),
            ));
        }
        if o.cores_total.0 > o.cores_total.1 || o.memory_total_gib.0 > o.memory_total_gib.1 {
            return Err(Error::Invalid(
                "--cores-total / --memory-total: min greater than max; expected MIN:MAX with MIN <= MAX".to_string(),
            ));
        }
        for (_, res) in &self.priorities {
            for r in res {
                super::expander::Regex::parse(r)?;
            }
        }
        Ok(())
    }
}

/// Parses a price such as `"0.096"` into millionths.
pub fn parse_price_micros(s: &str) -> Option<u64> {
    let s = s.trim();
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() || frac.len() > 6 {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut f: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..6 {
        f *= 10;
    }
    i.checked_mul(1_000_000)?.checked_add(f)
}

/// Writes millionths back as a decimal (`96000` is `"0.096"`).
pub fn format_price_micros(p: u64) -> String {
    let frac = p % 1_000_000;
    if frac == 0 {
        return format!("{}", p / 1_000_000);
    }
    let s = format!("{}.{:06}", p / 1_000_000, frac);
    s.trim_end_matches('0').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_round_trip() {
        assert_eq!(parse_price_micros("0.096"), Some(96_000));
        assert_eq!(parse_price_micros("2"), Some(2_000_000));
        assert_eq!(parse_price_micros(".5"), Some(500_000));
        assert_eq!(parse_price_micros("1.0000001"), None);
        assert_eq!(parse_price_micros("-1"), None);
        assert_eq!(format_price_micros(96_000), "0.096");
        assert_eq!(format_price_micros(2_000_000), "2");
    }

    #[test]
    fn expander_chains_parse() {
        assert_eq!(
            Expander::parse_list("priority,least-waste").unwrap(),
            alloc::vec![Expander::Priority, Expander::LeastWaste]
        );
        assert!(Expander::parse_list("cheapest").is_err());
    }
}
