//! What the randomized tests (`fastpaths.rs`, `reference.rs`) draw alike:
//! the profiles and the node-affinity terms of their random templates. Each
//! helper makes the same PRNG draws, in the same order, as the code it
//! replaced, so the tests check the same cases for the same seeds.

// Each test crate includes this module and may not use every helper.
#![allow(dead_code)]
// `*rng.pick(..)` picks the type `pick` returns (without it, `str`).
#![allow(clippy::explicit_auto_deref)]

use shepherd::model::{
    NodeAffinity, NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm,
    PreferredSchedulingTerm,
};
use shepherd::simulator::Prng;
use shepherd::{Profile, TieBreak};

pub const ZONE: &str = "topology.kubernetes.io/zone";

/// One of the three named profiles, or kube-scheduler's with ties to the
/// lowest node id or every node scored.
pub fn random_profile(rng: &mut Prng) -> Profile {
    match rng.below(6) {
        0 => Profile::bin_pack(),
        1 => Profile::least_loaded(),
        2 => Profile {
            tie_break: TieBreak::LowestNodeId,
            ..Profile::kube_scheduler()
        },
        3 => Profile {
            percentage_of_nodes_to_score: 100,
            ..Profile::kube_scheduler()
        },
        _ => Profile::kube_scheduler(),
    }
}

/// Node affinity: with probability `required_pct` percent a required zone
/// term (z1 or z2, or z3), then 0 to 2 preferred terms on the zone or the
/// disk label.
pub fn random_node_affinity(rng: &mut Prng, required_pct: u64) -> NodeAffinity {
    let mut na = NodeAffinity::default();
    if rng.chance(required_pct) {
        na.required = Some(vec![NodeSelectorTerm {
            match_expressions: vec![NodeSelectorRequirement::new(
                ZONE,
                NodeSelectorOperator::In,
                &[*rng.pick(&["z1", "z2"]), "z3"],
            )],
            match_fields: vec![],
        }]);
    }
    for _ in 0..rng.below(3) {
        na.preferred.push(PreferredSchedulingTerm {
            weight: rng.range(1, 100) as i32,
            preference: NodeSelectorTerm {
                match_expressions: vec![NodeSelectorRequirement::new(
                    *rng.pick(&[ZONE, "disk"]),
                    *rng.pick(&[NodeSelectorOperator::In, NodeSelectorOperator::NotIn]),
                    &[*rng.pick(&["z1", "z2", "ssd"])],
                )],
                match_fields: vec![],
            },
        });
    }
    na
}
