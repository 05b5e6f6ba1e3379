//! A scheduler profile in a scenario document, shaped as a profile of
//! kube-scheduler's KubeSchedulerConfiguration (`kubescheduler.config.k8s.io/v1`):
//! `schedulerName`, `plugins.filter` / `plugins.score` with weights, and the
//! plugins' arguments in `pluginConfig` terms, flattened to what Shepherd runs.
//!
//! ```json
//! { "schedulerName": "my-scheduler",
//!   "plugins": { "filter": ["NodeUnschedulable", "TaintToleration", "NodeAffinity",
//!                           "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"],
//!                "score": [{"name": "NodeResourcesFit", "weight": 2}] },
//!   "scoringStrategy": { "type": "MostAllocated",
//!                        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}] },
//!   "hardPodAffinityWeight": 1, "defaultingType": "System",
//!   "percentageOfNodesToScore": 0, "tieBreak": "Random" }
//! ```

use serde::{Deserialize, Serialize};
use shepherd::{
    Plugin, Profile, Resource, ScoringStrategy, ScoringStrategyType, TieBreak,
    UtilizationShapePoint,
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileDoc {
    pub scheduler_name: String,
    pub plugins: PluginsDoc,
    pub scoring_strategy: ScoringStrategyDoc,
    #[serde(default = "one")]
    pub hard_pod_affinity_weight: i64,
    /// `System` (kube-scheduler's default spreading for pods without
    /// constraints) or `List` (none).
    #[serde(default = "system")]
    pub defaulting_type: String,
    /// 0: kube-scheduler's adaptive default; 100: every node.
    #[serde(default)]
    pub percentage_of_nodes_to_score: u32,
    /// `Random` (kube-scheduler) or `LowestNodeId`.
    #[serde(default = "random")]
    pub tie_break: String,
    /// NodeResourcesBalancedAllocationArgs.resources by name (empty: cpu
    /// and memory, Kubernetes' default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub balanced_resources: Vec<String>,
    /// NodeResourcesFitArgs.ignoredResources and ignoredResourceGroups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_resources: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_resource_groups: Vec<String>,
}

fn one() -> i64 {
    1
}
fn system() -> String {
    "System".into()
}
fn random() -> String {
    "Random".into()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginsDoc {
    pub filter: Vec<String>,
    pub score: Vec<WeightedDoc>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightedDoc {
    pub name: String,
    pub weight: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeDoc {
    pub utilization: i64,
    pub score: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringStrategyDoc {
    #[serde(rename = "type")]
    pub kind: String,
    pub resources: Vec<WeightedDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<ShapeDoc>,
}

impl ProfileDoc {
    pub fn from_engine(p: &Profile) -> ProfileDoc {
        ProfileDoc {
            scheduler_name: p.scheduler_name.clone(),
            plugins: PluginsDoc {
                filter: p.filters.iter().map(|f| f.name().to_string()).collect(),
                score: p
                    .scores
                    .iter()
                    .map(|(s, w)| WeightedDoc {
                        name: s.name().to_string(),
                        weight: *w,
                    })
                    .collect(),
            },
            scoring_strategy: ScoringStrategyDoc {
                kind: p.fit.kind.name().to_string(),
                resources: p
                    .fit
                    .resources
                    .iter()
                    .map(|(r, w)| WeightedDoc {
                        name: r.name().to_string(),
                        weight: *w,
                    })
                    .collect(),
                shape: p
                    .fit
                    .shape
                    .iter()
                    .map(|s| ShapeDoc {
                        utilization: s.utilization,
                        score: s.score,
                    })
                    .collect(),
            },
            hard_pod_affinity_weight: p.hard_pod_affinity_weight,
            defaulting_type: if p.system_default_spreading {
                "System"
            } else {
                "List"
            }
            .into(),
            percentage_of_nodes_to_score: p.percentage_of_nodes_to_score,
            tie_break: match p.tie_break {
                TieBreak::Random => "Random",
                TieBreak::LowestNodeId => "LowestNodeId",
            }
            .into(),
            balanced_resources: if p.balanced_resources
                == shepherd::scheduler::profile::default_balanced_resources()
            {
                Vec::new()
            } else {
                p.balanced_resources
                    .iter()
                    .map(|r| r.name().to_string())
                    .collect()
            },
            ignored_resources: p.ignored_resources.clone(),
            ignored_resource_groups: p.ignored_resource_groups.clone(),
        }
    }

    /// The engine's profile, validated as KubeSchedulerConfiguration
    /// validation would; errors name the field.
    pub fn to_engine(&self) -> Result<Profile, String> {
        let e = |what: &str, err: shepherd::Error| {
            format!("profile {}: {what}: {err}", self.scheduler_name)
        };
        let filters = self
            .plugins
            .filter
            .iter()
            .enumerate()
            .map(|(i, n)| Plugin::parse(n).map_err(|x| e(&format!("plugins.filter[{i}]"), x)))
            .collect::<Result<Vec<_>, _>>()?;
        let scores = self
            .plugins
            .score
            .iter()
            .enumerate()
            .map(|(i, w)| {
                Plugin::parse(&w.name)
                    .map(|p| (p, w.weight))
                    .map_err(|x| e(&format!("plugins.score[{i}].name"), x))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let kind = ScoringStrategyType::parse(&self.scoring_strategy.kind)
            .map_err(|x| e("scoringStrategy.type", x))?;
        let resources = self
            .scoring_strategy
            .resources
            .iter()
            .enumerate()
            .map(|(i, w)| {
                Resource::parse(&w.name)
                    .map(|r| (r, w.weight))
                    .map_err(|x| e(&format!("scoringStrategy.resources[{i}].name"), x))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let balanced_resources = if self.balanced_resources.is_empty() {
            shepherd::scheduler::profile::default_balanced_resources()
        } else {
            self.balanced_resources
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    Resource::parse(n).map_err(|x| e(&format!("balancedResources[{i}]"), x))
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let system_default_spreading = match self.defaulting_type.as_str() {
            "System" => true,
            "List" => false,
            other => {
                return Err(format!(
                    "profile {}: defaultingType {other:?} is not valid; expected System or List",
                    self.scheduler_name
                ))
            }
        };
        let tie_break = match self.tie_break.as_str() {
            "Random" => TieBreak::Random,
            "LowestNodeId" => TieBreak::LowestNodeId,
            other => {
                return Err(format!(
                    "profile {}: tieBreak {other:?} is not valid; expected Random or LowestNodeId",
                    self.scheduler_name
                ))
            }
        };
        let p = Profile {
            scheduler_name: self.scheduler_name.clone(),
            filters,
            scores,
            fit: ScoringStrategy {
                kind,
                resources,
                shape: self
                    .scoring_strategy
                    .shape
                    .iter()
                    .map(|s| UtilizationShapePoint {
                        utilization: s.utilization,
                        score: s.score,
                    })
                    .collect(),
            },
            hard_pod_affinity_weight: self.hard_pod_affinity_weight,
            system_default_spreading,
            percentage_of_nodes_to_score: self.percentage_of_nodes_to_score,
            tie_break,
            balanced_resources,
            ignored_resources: self.ignored_resources.clone(),
            ignored_resource_groups: self.ignored_resource_groups.clone(),
        };
        p.validate().map_err(|x| x.to_string())?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_profiles_round_trip() {
        for p in [
            Profile::kube_scheduler(),
            Profile::bin_pack(),
            Profile::least_loaded(),
        ] {
            let doc = ProfileDoc::from_engine(&p);
            assert_eq!(doc.to_engine().unwrap(), p);
        }
    }

    /// Scored extended resources, BalancedAllocation's resources and the
    /// ignored resources survive the page's document both ways.
    #[test]
    fn extended_resource_settings_round_trip() {
        let gpu = Resource::Scalar("nvidia.com/gpu".into());
        let mut p = Profile::kube_scheduler();
        p.fit.resources.push((gpu.clone(), 5));
        p.balanced_resources.push(gpu);
        p.ignored_resources = vec!["example.com/x".into()];
        p.ignored_resource_groups = vec!["example.org".into()];
        let doc = ProfileDoc::from_engine(&p);
        assert_eq!(doc.balanced_resources, ["cpu", "memory", "nvidia.com/gpu"]);
        let json = serde_json::to_string(&doc).unwrap();
        let back: ProfileDoc = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_engine().unwrap(), p);
        // The default list is left out of the document.
        let plain =
            serde_json::to_value(ProfileDoc::from_engine(&Profile::kube_scheduler())).unwrap();
        assert!(plain.get("balancedResources").is_none());
    }

    #[test]
    fn bad_profiles_name_the_field() {
        let mut doc = ProfileDoc::from_engine(&Profile::kube_scheduler());
        doc.plugins.score[0].name = "ImageLocalityy".into();
        let err = doc.to_engine().unwrap_err();
        assert!(err.contains("plugins.score[0].name"), "{err}");
        let mut doc = ProfileDoc::from_engine(&Profile::kube_scheduler());
        doc.plugins.score[1].weight = 0;
        assert!(doc.to_engine().unwrap_err().contains("1 to 100"));
        let mut doc = ProfileDoc::from_engine(&Profile::kube_scheduler());
        doc.scoring_strategy.kind = "RequestedToCapacityRatio".into();
        assert!(doc.to_engine().unwrap_err().contains("shape"));
    }
}
