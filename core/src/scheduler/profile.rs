//! A scheduler profile as data, the way a KubeSchedulerConfiguration profile
//! is: which filter and score plugins are enabled, each score plugin's weight,
//! and the plugins' arguments. kube-scheduler's default profile is
//! [`Profile::kube_scheduler`]; the two teaching profiles are
//! [`Profile::bin_pack`] and [`Profile::least_loaded`].

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::error::Error;

pub use super::plugins::Plugin;

/// A resource the scoring strategies weigh (a `ResourceSpec`'s name):
/// cpu, memory, or one of the scalar resources NodeResourcesFit counts
/// (`ephemeral-storage`, `hugepages-<size>`, an extended resource such as
/// `nvidia.com/gpu`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Cpu,
    Memory,
    /// A scalar resource by its name, as [`crate::model::scalar::classify`]
    /// accepts it.
    Scalar(String),
}

/// The most resources one scoring list may name (Kubernetes has no such
/// bound; a node offers at most [`crate::model::scalar::MAX_SCALARS`]
/// scalar resources, and the scorers keep their lists on the stack).
pub const MAX_SCORED_RESOURCES: usize = 16;

impl Resource {
    pub fn name(&self) -> &str {
        match self {
            Resource::Cpu => "cpu",
            Resource::Memory => "memory",
            Resource::Scalar(s) => s,
        }
    }

    pub fn parse(s: &str) -> Result<Resource, Error> {
        match s {
            "cpu" => Ok(Resource::Cpu),
            "memory" => Ok(Resource::Memory),
            _ => match crate::model::scalar::classify(s) {
                Ok(_) => Ok(Resource::Scalar(s.to_string())),
                Err(_) => Err(Error::invalid(
                    "resource",
                    s,
                    "cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource such as nvidia.com/gpu",
                )),
            },
        }
    }

    /// Whether the scorers leave the resource out for a pod that requests
    /// none of it: every scalar resource but ephemeral-storage
    /// (resource_allocation.go, `calculateNodeAllocatableRequest`: "If it's
    /// an extended resource, and the pod doesn't request it", by
    /// `schedutil.IsScalarResourceName`, which extended resources and huge
    /// pages satisfy and ephemeral-storage does not).
    pub fn skipped_unrequested(&self) -> bool {
        match self {
            Resource::Cpu | Resource::Memory => false,
            Resource::Scalar(s) => s != crate::model::scalar::EPHEMERAL_STORAGE,
        }
    }

    /// What a pod of template `t` requests of it, as the scorers count it
    /// without the non-zero defaults.
    pub fn requested_by(&self, t: &crate::model::PodTemplate) -> u64 {
        match self {
            Resource::Cpu => t.requests.cpu_millis,
            Resource::Memory => t.requests.memory_bytes,
            Resource::Scalar(s) => t.scalar_requests.get(s),
        }
    }

    /// Whether the resource takes no part in scoring a pod of template `t`
    /// on any node ([`Resource::skipped_unrequested`] and not requested).
    pub fn inert_for(&self, t: &crate::model::PodTemplate) -> bool {
        self.skipped_unrequested() && self.requested_by(t) == 0
    }
}

// NodeResourcesFit's arguments live in its folder.
pub use super::plugins::node_resources_fit::{
    ScoringStrategy, ScoringStrategyType, UtilizationShapePoint,
};

// NodeResourcesBalancedAllocation's arguments live in its folder.
pub use super::plugins::node_resources_balanced_allocation::default_balanced_resources;

// InterPodAffinity's arguments live in its folder.
pub use super::plugins::inter_pod_affinity::{
    DEFAULT_HARD_POD_AFFINITY_WEIGHT, MAX_HARD_POD_AFFINITY_WEIGHT,
};

// PodTopologySpread's arguments live in its folder.
pub use super::plugins::pod_topology_spread::{
    SystemDefaultConstraint, SYSTEM_DEFAULT_CONSTRAINTS,
};

/// How equal best totals are settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// kube-scheduler's way: uniformly at random among the best (here from
    /// the cluster's seeded PRNG, so a run still replays exactly).
    Random,
    /// The lowest node id (registration order): easier to follow when teaching.
    LowestNodeId,
}

/// A scheduler profile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// `schedulerName`: `default-scheduler` for kube-scheduler's own profile.
    pub scheduler_name: String,
    /// Enabled filter plugins, in the order they run.
    pub filters: Vec<Plugin>,
    /// Enabled score plugins and their weights (1 to 100).
    pub scores: Vec<(Plugin, i64)>,
    /// NodeResourcesFitArgs.scoringStrategy.
    pub fit: ScoringStrategy,
    /// InterPodAffinityArgs.hardPodAffinityWeight (0 to
    /// [`MAX_HARD_POD_AFFINITY_WEIGHT`], default
    /// [`DEFAULT_HARD_POD_AFFINITY_WEIGHT`]).
    pub hard_pod_affinity_weight: i64,
    /// PodTopologySpreadArgs.defaultingType System: pods without constraints
    /// of their own get [`SYSTEM_DEFAULT_CONSTRAINTS`] (hostname maxSkew 3
    /// and zone maxSkew 5, ScheduleAnyway); List: none.
    pub system_default_spreading: bool,
    /// percentageOfNodesToScore: 0 is kube-scheduler's adaptive default
    /// (50% minus 1% per 125 nodes, at least 5%, at least 100 nodes); 100
    /// scores every feasible node.
    pub percentage_of_nodes_to_score: u32,
    pub tie_break: TieBreak,
    /// NodeResourcesBalancedAllocationArgs.resources (each weight 1, as
    /// Kubernetes validates): the resources whose fractions are balanced;
    /// cpu and memory by default.
    pub balanced_resources: Vec<Resource>,
    /// NodeResourcesFitArgs `ignoredResources`: extended resources the
    /// Filter does not check (left to an extender, as in Kubernetes).
    pub ignored_resources: Vec<String>,
    /// NodeResourcesFitArgs `ignoredResourceGroups`: domains (the part of
    /// an extended resource's name before '/') the Filter does not check.
    pub ignored_resource_groups: Vec<String>,
}

impl Profile {
    /// kube-scheduler's default profile: the default plugins with their
    /// weights (TaintToleration 3, NodeAffinity 2, PodTopologySpread 2,
    /// InterPodAffinity 2, NodeResourcesFit 1 with LeastAllocated,
    /// NodeResourcesBalancedAllocation 1), system default spreading,
    /// adaptive percentageOfNodesToScore, random tie-break.
    pub fn kube_scheduler() -> Profile {
        Profile {
            scheduler_name: "default-scheduler".to_string(),
            filters: Plugin::default_filters(),
            scores: Plugin::default_scores(),
            fit: ScoringStrategy::least_allocated(),
            hard_pod_affinity_weight: DEFAULT_HARD_POD_AFFINITY_WEIGHT,
            system_default_spreading: true,
            percentage_of_nodes_to_score: 0,
            tie_break: TieBreak::Random,
            balanced_resources: default_balanced_resources(),
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
        }
    }

    /// Bin packing for teaching: NodeResourcesFit with MostAllocated alone,
    /// every node scored, ties to the lowest node id.
    pub fn bin_pack() -> Profile {
        Profile {
            scheduler_name: "binpack".to_string(),
            filters: Plugin::default_filters(),
            scores: vec![(Plugin::NodeResourcesFit, 1)],
            fit: ScoringStrategy::most_allocated(),
            hard_pod_affinity_weight: DEFAULT_HARD_POD_AFFINITY_WEIGHT,
            system_default_spreading: false,
            percentage_of_nodes_to_score: 100,
            tie_break: TieBreak::LowestNodeId,
            balanced_resources: default_balanced_resources(),
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
        }
    }

    /// Spreading by load for teaching: NodeResourcesFit with LeastAllocated
    /// alone, every node scored, ties to the lowest node id.
    pub fn least_loaded() -> Profile {
        Profile {
            scheduler_name: "leastloaded".to_string(),
            fit: ScoringStrategy::least_allocated(),
            ..Profile::bin_pack()
        }
    }

    /// The profile a name stands for: `default-scheduler` (or `kube-scheduler`,
    /// `default`), `binpack`, `leastloaded`.
    pub fn named(name: &str) -> Result<Profile, Error> {
        match name {
            "default-scheduler" | "kube-scheduler" | "default" => Ok(Profile::kube_scheduler()),
            "binpack" | "BinPack" => Ok(Profile::bin_pack()),
            "leastloaded" | "LeastLoaded" => Ok(Profile::least_loaded()),
            _ => Err(Error::invalid(
                "scheduler profile",
                name,
                "default-scheduler, binpack or leastloaded",
            )),
        }
    }

    /// The weight of an enabled score plugin.
    pub fn weight(&self, p: Plugin) -> Option<i64> {
        self.scores.iter().find(|(q, _)| *q == p).map(|&(_, w)| w)
    }

    /// Whether NodeResourcesFit's Filter skips the extended resource
    /// `name` (fitsRequest: `ignoredExtendedResources` or the domain in
    /// `ignoredResourceGroups`).
    pub fn ignores_resource(&self, name: &str) -> bool {
        let group = name.split('/').next().unwrap_or("");
        self.ignored_resources.iter().any(|r| r == name)
            || self.ignored_resource_groups.iter().any(|g| g == group)
    }

    /// The scalar requests of template `t` that this profile's scores read
    /// (the scoring strategy's resources and BalancedAllocation's): what,
    /// beside cpu and memory, a node-local score of its pods depends on.
    pub fn scored_scalars(&self, t: &crate::model::PodTemplate) -> crate::model::scalar::Scalars {
        let mut out = crate::model::scalar::Scalars::new();
        if t.scalar_requests.is_empty() {
            return out;
        }
        let named = self
            .fit
            .resources
            .iter()
            .map(|(r, _)| r)
            .chain(&self.balanced_resources);
        for r in named {
            if let Resource::Scalar(s) = r {
                out.set(s, t.scalar_requests.get(s));
            }
        }
        out
    }

    pub fn filter_enabled(&self, p: Plugin) -> bool {
        self.filters.contains(&p)
    }

    /// As KubeSchedulerConfiguration validation refuses: unknown or misplaced
    /// plugins, a plugin listed twice, weights outside 1..=100, a strategy
    /// without its arguments, percentages outside 0..=100.
    pub fn validate(&self) -> Result<(), Error> {
        crate::model::validate_name(&self.scheduler_name, "scheduler profile")?;
        // kubelet admission refuses a pod that does not fit, so a profile
        // that skipped the resource filter would bind pods no node runs.
        if !self.filters.contains(&Plugin::NodeResourcesFit) {
            return Err(Error::Invalid(format!(
                "profile {}: the NodeResourcesFit filter is disabled; expected it enabled (the kubelet would refuse pods that do not fit)",
                self.scheduler_name
            )));
        }
        for (i, p) in self.filters.iter().enumerate() {
            if !p.filters() {
                return Err(Error::Invalid(format!(
                    "profile {}: {} has no filter extension point; expected it under score only",
                    self.scheduler_name,
                    p.name()
                )));
            }
            if self.filters[..i].contains(p) {
                return Err(Error::Invalid(format!(
                    "profile {}: filter plugin {} is enabled twice; expected each plugin once",
                    self.scheduler_name,
                    p.name()
                )));
            }
        }
        for (i, (p, w)) in self.scores.iter().enumerate() {
            if !p.scores() {
                return Err(Error::Invalid(format!(
                    "profile {}: {} has no score extension point; expected it under filter only",
                    self.scheduler_name,
                    p.name()
                )));
            }
            if !(1..=100).contains(w) {
                return Err(Error::Invalid(format!(
                    "profile {}: score plugin {} weight {w} is out of range; expected 1 to 100",
                    self.scheduler_name,
                    p.name()
                )));
            }
            if self.scores[..i].iter().any(|(q, _)| q == p) {
                return Err(Error::Invalid(format!(
                    "profile {}: score plugin {} is enabled twice; expected each plugin once",
                    self.scheduler_name,
                    p.name()
                )));
            }
        }
        self.fit.validate()?;
        super::plugins::node_resources_balanced_allocation::validate_balanced_resources(
            &self.scheduler_name,
            &self.balanced_resources,
        )?;
        super::plugins::inter_pod_affinity::validate_hard_pod_affinity_weight(
            &self.scheduler_name,
            self.hard_pod_affinity_weight,
        )?;
        if self.percentage_of_nodes_to_score > 100 {
            return Err(Error::Invalid(format!(
                "profile {}: percentageOfNodesToScore {} is out of range; expected 0 (adaptive) to 100",
                self.scheduler_name, self.percentage_of_nodes_to_score
            )));
        }
        Ok(())
    }

    /// How many feasible nodes a cycle looks for before it stops filtering:
    /// kube-scheduler's numFeasibleNodesToFind.
    pub fn feasible_nodes_to_find(&self, all_nodes: u32) -> u32 {
        const MIN_FEASIBLE_NODES_TO_FIND: u32 = 100;
        const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: u32 = 5;
        if all_nodes < MIN_FEASIBLE_NODES_TO_FIND || self.percentage_of_nodes_to_score >= 100 {
            return all_nodes;
        }
        let mut pct = self.percentage_of_nodes_to_score;
        if pct == 0 {
            pct = 50u32.saturating_sub(all_nodes / 125);
            if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND {
                pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
            }
        }
        let n = (all_nodes as u64 * pct as u64 / 100) as u32;
        n.max(MIN_FEASIBLE_NODES_TO_FIND)
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::kube_scheduler()
    }
}

impl From<crate::cluster::ScorePolicy> for Profile {
    fn from(p: crate::cluster::ScorePolicy) -> Profile {
        p.profile()
    }
}

impl<'a> From<crate::cluster::ScorePolicy> for Cow<'a, Profile> {
    fn from(p: crate::cluster::ScorePolicy) -> Cow<'a, Profile> {
        Cow::Owned(p.profile())
    }
}

impl<'a> From<&'a Profile> for Cow<'a, Profile> {
    fn from(p: &'a Profile) -> Cow<'a, Profile> {
        Cow::Borrowed(p)
    }
}

impl<'a> From<Profile> for Cow<'a, Profile> {
    fn from(p: Profile) -> Cow<'a, Profile> {
        Cow::Owned(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_percentage_follows_kube_scheduler() {
        let p = Profile::kube_scheduler();
        assert_eq!(p.feasible_nodes_to_find(50), 50); // under 100: every node
        assert_eq!(p.feasible_nodes_to_find(100), 100); // 50% of 100 = 50, at least 100
        assert_eq!(p.feasible_nodes_to_find(1000), 420); // 50 - 8 = 42%
        assert_eq!(p.feasible_nodes_to_find(5000), 500); // 50 - 40 = 10%
        assert_eq!(p.feasible_nodes_to_find(6000), 300); // 50 - 48 = 2% -> 5%
        let mut all = p.clone();
        all.percentage_of_nodes_to_score = 100;
        assert_eq!(all.feasible_nodes_to_find(5000), 5000);
    }

    #[test]
    fn validation_refuses_what_kubernetes_refuses() {
        assert!(Profile::kube_scheduler().validate().is_ok());
        let mut p = Profile::kube_scheduler();
        p.scores[0].1 = 0;
        assert!(p.validate().unwrap_err().to_string().contains("1 to 100"));
        let mut p = Profile::kube_scheduler();
        p.fit = ScoringStrategy {
            kind: ScoringStrategyType::RequestedToCapacityRatio,
            ..ScoringStrategy::least_allocated()
        };
        assert!(p.validate().unwrap_err().to_string().contains("shape"));
        assert!(Plugin::parse("ImageLocality").is_err());
        let mut p = Profile::bin_pack();
        p.scores.push((Plugin::NodeUnschedulable, 1));
        assert!(p.validate().is_err());
    }
}
