//! NodeResourcesFitArgs (pkg/scheduler/apis/config/types_pluginargs.go):
//! the scoring strategy, its resources and weights, and
//! RequestedToCapacityRatio's shape, with their validation
//! (validation_pluginargs.go).

use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use crate::error::Error;
use crate::scheduler::profile::{Resource, MAX_SCORED_RESOURCES};

/// `scoringStrategy.type` of NodeResourcesFitArgs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoringStrategyType {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio,
}

impl ScoringStrategyType {
    pub fn name(&self) -> &'static str {
        match self {
            ScoringStrategyType::LeastAllocated => "LeastAllocated",
            ScoringStrategyType::MostAllocated => "MostAllocated",
            ScoringStrategyType::RequestedToCapacityRatio => "RequestedToCapacityRatio",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "LeastAllocated" => Ok(ScoringStrategyType::LeastAllocated),
            "MostAllocated" => Ok(ScoringStrategyType::MostAllocated),
            "RequestedToCapacityRatio" => Ok(ScoringStrategyType::RequestedToCapacityRatio),
            _ => Err(Error::invalid(
                "scoringStrategy type",
                s,
                "LeastAllocated, MostAllocated or RequestedToCapacityRatio",
            )),
        }
    }
}

/// A point of RequestedToCapacityRatio's shape: utilization 0..=100 maps to
/// score 0..=10 (scaled to 0..=100 when scoring, as kube-scheduler does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UtilizationShapePoint {
    pub utilization: i64,
    pub score: i64,
}

/// NodeResourcesFitArgs' `scoringStrategy`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScoringStrategy {
    pub kind: ScoringStrategyType,
    /// The resources scored and their weights (1 to 100).
    pub resources: Vec<(Resource, i64)>,
    /// Only for RequestedToCapacityRatio: utilization strictly increasing.
    pub shape: Vec<UtilizationShapePoint>,
}

impl ScoringStrategy {
    /// kube-scheduler's default: LeastAllocated over cpu and memory, weight 1 each.
    pub fn least_allocated() -> Self {
        ScoringStrategy {
            kind: ScoringStrategyType::LeastAllocated,
            resources: vec![(Resource::Cpu, 1), (Resource::Memory, 1)],
            shape: Vec::new(),
        }
    }

    pub fn most_allocated() -> Self {
        ScoringStrategy {
            kind: ScoringStrategyType::MostAllocated,
            ..ScoringStrategy::least_allocated()
        }
    }

    pub fn requested_to_capacity_ratio(shape: &[(i64, i64)]) -> Self {
        ScoringStrategy {
            kind: ScoringStrategyType::RequestedToCapacityRatio,
            resources: vec![(Resource::Cpu, 1), (Resource::Memory, 1)],
            shape: shape
                .iter()
                .map(|&(utilization, score)| UtilizationShapePoint { utilization, score })
                .collect(),
        }
    }

    pub fn validate(&self) -> Result<(), Error> {
        if self.resources.is_empty() {
            return Err(Error::Invalid(
                "NodeResourcesFit scoringStrategy.resources is empty; expected at least one resource (cpu, memory, an extended resource) with a weight".to_string(),
            ));
        }
        if self.resources.len() > MAX_SCORED_RESOURCES {
            return Err(Error::Invalid(format!(
                "NodeResourcesFit scoringStrategy.resources names {} resources; expected at most {MAX_SCORED_RESOURCES}",
                self.resources.len()
            )));
        }
        for (i, (r, w)) in self.resources.iter().enumerate() {
            if !(1..=100).contains(w) {
                return Err(Error::Invalid(format!(
                    "NodeResourcesFit scoringStrategy.resources[{i}] ({}) weight {w} is out of range; expected 1 to 100",
                    r.name()
                )));
            }
            if self.resources[..i].iter().any(|(o, _)| o == r) {
                return Err(Error::Invalid(format!(
                    "NodeResourcesFit scoringStrategy.resources[{i}]: {} is listed twice; expected each resource once",
                    r.name()
                )));
            }
        }
        match self.kind {
            ScoringStrategyType::RequestedToCapacityRatio => {
                if self.shape.is_empty() {
                    return Err(Error::Invalid(
                        "RequestedToCapacityRatio needs a shape; expected at least one point {utilization 0-100, score 0-10}".to_string(),
                    ));
                }
                for (i, p) in self.shape.iter().enumerate() {
                    if !(0..=100).contains(&p.utilization) || !(0..=10).contains(&p.score) {
                        return Err(Error::Invalid(format!(
                            "RequestedToCapacityRatio shape[{i}] = (utilization {}, score {}) is out of range; expected utilization 0 to 100 and score 0 to 10",
                            p.utilization, p.score
                        )));
                    }
                    if i > 0 && p.utilization <= self.shape[i - 1].utilization {
                        return Err(Error::Invalid(format!(
                            "RequestedToCapacityRatio shape[{i}]: utilization {} does not increase; expected strictly increasing utilization values",
                            p.utilization
                        )));
                    }
                }
            }
            _ if !self.shape.is_empty() => {
                return Err(Error::Invalid(format!(
                    "scoringStrategy {} takes no shape; expected a shape only with RequestedToCapacityRatio",
                    self.kind.name()
                )));
            }
            _ => {}
        }
        Ok(())
    }
}
