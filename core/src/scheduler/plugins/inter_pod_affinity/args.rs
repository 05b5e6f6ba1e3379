//! InterPodAffinityArgs (pkg/scheduler/apis/config/types_pluginargs.go):
//! `hardPodAffinityWeight`, the weight an existing pod's required affinity
//! toward the incoming pod adds to the Score, with its validation
//! (validation_pluginargs.go, `ValidateInterPodAffinityArgs` and
//! `validateHardPodAffinityWeight`: 0 to 100).
//! `ignorePreferredTermsOfExistingPods` is not modelled: it is always
//! false, Kubernetes' default.

use alloc::format;

use crate::error::Error;

/// `hardPodAffinityWeight`'s default (v1 defaults.go).
pub const DEFAULT_HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// The largest `hardPodAffinityWeight` Kubernetes accepts.
pub const MAX_HARD_POD_AFFINITY_WEIGHT: i64 = 100;

/// `weight` of profile `profile` is 0 to [`MAX_HARD_POD_AFFINITY_WEIGHT`].
pub fn validate_hard_pod_affinity_weight(profile: &str, weight: i64) -> Result<(), Error> {
    if !(0..=MAX_HARD_POD_AFFINITY_WEIGHT).contains(&weight) {
        return Err(Error::Invalid(format!(
            "profile {profile}: hardPodAffinityWeight {weight} is out of range; expected 0 to {MAX_HARD_POD_AFFINITY_WEIGHT}"
        )));
    }
    Ok(())
}
