//! The page's what-if (issue 45 item 3): the actions `shepherd whatif`
//! takes (drain, fail a zone or a node, scale, cordon, delete a node), run
//! by the engine ([`shepherd::whatif::what_if`]) on a copy of the run's
//! cluster as it is at the tick shown, answered in the shape `shepherd
//! whatif --output json` prints ([`shepherd_k8s::whatif::to_json`]). The
//! run itself is not changed: the answer is a Before/After of a copy.

use serde::Deserialize;
use shepherd::whatif::{what_if, Action};

use crate::session::Session;

/// One action as the page's form gives it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Step {
    /// `kubectl drain NODE --ignore-daemonsets --force`.
    Drain { node: String },
    /// Every node of a `topology.kubernetes.io/zone` stops heart-beating.
    FailZone { zone: String },
    /// The node's kubelet stops heart-beating.
    FailNode { node: String },
    /// `kubectl scale deployment`: `NAME` in default, else `NS/NAME`.
    Scale { deployment: String, replicas: u32 },
    /// `kubectl cordon NODE`.
    Cordon { node: String },
    /// `kubectl delete node NODE`.
    DeleteNode { node: String },
}

impl Step {
    fn action(&self) -> Result<Action, String> {
        Ok(match self {
            Step::Drain { node } => Action::Drain(node.clone()),
            Step::FailZone { zone } => Action::FailZone(zone.clone()),
            Step::FailNode { node } => Action::FailNode(node.clone()),
            Step::Scale {
                deployment,
                replicas,
            } => {
                let max = shepherd::model::MAX_REPLICAS;
                if *replicas > max {
                    return Err(format!(
                        "scale {deployment}={replicas}: the replica count is above {max}; expected a whole number from 0 to {max}"
                    ));
                }
                Action::Scale {
                    deployment: deployment.clone(),
                    replicas: *replicas,
                }
            }
            Step::Cordon { node } => Action::Cordon(node.clone()),
            Step::DeleteNode { node } => Action::DeleteNode(node.clone()),
        })
    }
}

/// At most this many actions in one what-if (the engine's bound).
pub const MAX_STEPS: usize = shepherd::whatif::MAX_ACTIONS;

impl Session {
    /// `steps` in order on a copy of the cluster at this tick, run until it
    /// settles: the Before/After as `shepherd whatif --output json` gives
    /// it, its `input` naming this run's tick. The run is not changed.
    pub fn what_if(&self, steps: &[Step]) -> Result<serde_json::Value, String> {
        if steps.is_empty() {
            return Err("a what-if needs at least one action; expected drain, fail a zone, fail a node, scale, cordon or delete a node".into());
        }
        if steps.len() > MAX_STEPS {
            return Err(format!(
                "{} actions; expected at most {MAX_STEPS}",
                steps.len()
            ));
        }
        let actions = steps
            .iter()
            .map(Step::action)
            .collect::<Result<Vec<_>, _>>()?;
        let sim = self.simulator();
        let w = what_if(sim.cluster(), sim.profile(), &actions).map_err(|e| e.to_string())?;
        let input = format!("this run at tick {}", sim.tick());
        Ok(shepherd_k8s::whatif::to_json(&w, &input, sim.profile()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = include_str!("../../www/examples/mid-sized-cluster.yaml");

    #[test]
    fn a_zone_failure_on_the_example_moves_its_pods_and_leaves_the_run_as_it_was() {
        let (s, _) = crate::manifests::import_session(TEXT, 7).unwrap();
        let before = crate::compare::placements(&s);
        let zones = s.label_values(shepherd::whatif::ZONE_LABEL);
        assert!(zones.len() >= 3, "{zones:?}");
        let zone = zones[0].clone();
        let v = s.what_if(&[Step::FailZone { zone: zone.clone() }]).unwrap();
        assert_eq!(v["actions"][0]["action"], format!("fail-zone {zone}"));
        assert_eq!(v["settled"], true);
        // Every node of the zone is NotReady after; its pods were deleted
        // by the taint-eviction controller and replaced elsewhere or Pending.
        let nodes = v["nodes"].as_array().unwrap();
        let in_zone: Vec<&str> = nodes
            .iter()
            .filter(|n| n["zone"] == zone.as_str())
            .map(|n| n["name"].as_str().unwrap())
            .collect();
        assert!(!in_zone.is_empty());
        for n in nodes.iter().filter(|n| n["zone"] == zone.as_str()) {
            assert_eq!(n["status"]["after"], "NotReady", "{n}");
        }
        let deleted = v["deleted"].as_array().unwrap();
        assert!(!deleted.is_empty());
        for d in deleted {
            assert!(in_zone.contains(&d["node"].as_str().unwrap()), "{d}");
        }
        for m in v["moves"].as_array().unwrap() {
            assert!(in_zone.contains(&m["from"].as_str().unwrap()), "{m}");
            if let Some(to) = m["to"].as_str() {
                assert!(!in_zone.contains(&to), "{m}");
            }
        }
        // The run itself is as it was.
        assert_eq!(crate::compare::placements(&s), before);
        // Same cluster, same actions: the same answer.
        assert_eq!(s.what_if(&[Step::FailZone { zone }]).unwrap(), v);
    }

    #[test]
    fn mistakes_are_refused_with_what_was_expected() {
        let (s, _) = crate::manifests::import_session(TEXT, 7).unwrap();
        let e = s.what_if(&[]).unwrap_err();
        assert!(e.contains("at least one action"), "{e}");
        let e = s
            .what_if(&[Step::Drain {
                node: "nope".into(),
            }])
            .unwrap_err();
        assert!(e.contains("nope"), "{e}");
        let e = s
            .what_if(&[Step::Scale {
                deployment: "web".into(),
                replicas: u32::MAX,
            }])
            .unwrap_err();
        assert!(e.contains("expected a whole number"), "{e}");
    }
}
