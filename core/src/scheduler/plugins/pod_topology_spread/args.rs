//! PodTopologySpreadArgs (pkg/scheduler/apis/config/types_pluginargs.go):
//! `defaultingType` System, the profile's `system_default_spreading`, gives
//! a pod without constraints of its own the system default constraints
//! below (podtopologyspread/plugin.go, `systemDefaultConstraints`);
//! `defaultingType` List gives none: custom `defaultConstraints` are not
//! modelled (the manifest reader warns and leaves them out).

use crate::model::HOSTNAME_KEY;

use super::ZONE_KEY;

/// A system default constraint: ScheduleAnyway (it only scores, never
/// filters) on `topology_key` with `max_skew`, selecting the pods of the
/// same Service, ReplicaSet, StatefulSet or ReplicationController.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemDefaultConstraint {
    pub topology_key: &'static str,
    pub max_skew: i64,
}

/// kube-scheduler's system default constraints, in its order: hostname
/// maxSkew 3, then zone maxSkew 5.
pub const SYSTEM_DEFAULT_CONSTRAINTS: [SystemDefaultConstraint; 2] = [
    SystemDefaultConstraint {
        topology_key: HOSTNAME_KEY,
        max_skew: 3,
    },
    SystemDefaultConstraint {
        topology_key: ZONE_KEY,
        max_skew: 5,
    },
];
