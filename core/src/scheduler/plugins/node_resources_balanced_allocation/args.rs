//! NodeResourcesBalancedAllocationArgs (pkg/scheduler/apis/config/
//! types_pluginargs.go): the resources whose fractions are balanced, with
//! their validation (validation_pluginargs.go,
//! `ValidateNodeResourcesBalancedAllocationArgs`). Kubernetes validates
//! each weight to be 1, so only the names are kept.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use crate::error::Error;
use crate::scheduler::profile::{Resource, MAX_SCORED_RESOURCES};

/// The default resources: cpu and memory.
pub fn default_balanced_resources() -> Vec<Resource> {
    vec![Resource::Cpu, Resource::Memory]
}

/// The resources of profile `profile` are 1 to [`MAX_SCORED_RESOURCES`],
/// each named once.
pub fn validate_balanced_resources(profile: &str, resources: &[Resource]) -> Result<(), Error> {
    if resources.is_empty() || resources.len() > MAX_SCORED_RESOURCES {
        return Err(Error::Invalid(format!(
            "profile {profile}: NodeResourcesBalancedAllocation resources names {} resources; expected 1 to {MAX_SCORED_RESOURCES}",
            resources.len()
        )));
    }
    for (i, r) in resources.iter().enumerate() {
        if resources[..i].contains(r) {
            return Err(Error::Invalid(format!(
                "profile {profile}: NodeResourcesBalancedAllocation resources[{i}]: {} is listed twice; expected each resource once",
                r.name()
            )));
        }
    }
    Ok(())
}
