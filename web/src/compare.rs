//! The page's compare view: the same scenario run a second time under
//! another scheduler profile, kept at the page's tick, and what differs.
//!
//! The second run replays the first run's script (same seed, same actions)
//! from tick 0 under the chosen profile. Actions that change the profile
//! (`setPolicy`, `setProfile`) are left out of it, so the whole second run is
//! scheduled by the chosen profile. [`Comparison::follow`] keeps it in step
//! with the first: forward by stepping, backward by the same replay as Back,
//! a new action by submitting it too, anything else (a discard, an import) by
//! replaying the script from the seed.

use serde::Serialize;
use shepherd::balance::{diff_placements, PlacementDiff};
use shepherd::Profile;

use crate::charts::BalanceView;
use crate::scenario::{self, Action, Entry};
use crate::session::Session;

/// The second run of a comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The profile's name, as the page's profile list names it.
    policy: String,
    profile: Profile,
    other: Session,
}

/// One run's side of the view.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideView {
    /// The scheduler profile's name (the first run's profile now).
    pub profile: String,
    pub balance: BalanceView,
}

/// A pod bound in both runs, to different nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MovedPod {
    pub pod: String,
    /// Its node in the first run (the page's own).
    pub a: String,
    /// Its node in the second run.
    pub b: String,
}

/// Both runs at one tick, side by side, and what differs, pod by pod.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareView {
    pub tick: u64,
    pub a: SideView,
    pub b: SideView,
    /// All the pods that landed differently, however many are listed.
    pub landed_differently_count: u32,
    /// The first `limit` of them, in pod name order.
    pub landed_differently: Vec<MovedPod>,
    pub pending_only_in_a_count: u32,
    pub pending_only_in_a: Vec<String>,
    pub pending_only_in_b_count: u32,
    pub pending_only_in_b: Vec<String>,
    /// Pods bound in one run that the other does not have at all (a rolling
    /// update or a replacement made different pods): `[pod, node]`.
    pub bound_only_in_a_count: u32,
    pub bound_only_in_a: Vec<(String, String)>,
    pub bound_only_in_b_count: u32,
    pub bound_only_in_b: Vec<(String, String)>,
}

/// The entries of `want` that `have` lacks, when `have` is `want` with some
/// entries left out (in order); `None` otherwise.
fn added(have: &[Entry], want: &[Entry]) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    let mut i = 0;
    for e in want {
        if i < have.len() && have[i] == *e {
            i += 1;
        } else {
            out.push(e.clone());
        }
    }
    (i == have.len()).then_some(out)
}

/// The actions the second run replays: all but profile changes.
fn script_of(a: &Session) -> Vec<Entry> {
    a.log()
        .iter()
        .filter(|e| {
            !matches!(
                e.action,
                Action::SetPolicy { .. } | Action::SetProfile { .. }
            )
        })
        .cloned()
        .collect()
}

impl Comparison {
    /// A second run of `a`'s scenario under the named profile
    /// (`default-scheduler`, `binpack` or `leastloaded`), at `a`'s tick.
    pub fn new(a: &Session, policy: &str) -> Result<Comparison, String> {
        let profile = scenario::parse_policy(policy)?;
        let other = Session::replayed(a.seed(), profile.clone(), script_of(a), a.tick())?;
        Ok(Comparison {
            policy: policy.into(),
            profile,
            other,
        })
    }

    /// The chosen profile's name.
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// The second run.
    pub fn other(&self) -> &Session {
        &self.other
    }

    /// Brings the second run to `a`'s tick and script. Returns true when it
    /// had to replay from the seed (a discard, an import, an action it could
    /// not take at its own tick).
    pub fn follow(&mut self, a: &Session) -> Result<bool, String> {
        let want = script_of(a);
        if let Some(added) = added(self.other.log(), &want) {
            // New actions are queued for the tick after the one they were
            // taken at: the second run takes them at that same tick (they
            // all share it, as the page takes actions at its own tick).
            let at = added.first().map(|e| e.tick.saturating_sub(1));
            let same_tick = added.iter().all(|e| Some(e.tick.saturating_sub(1)) == at);
            let target = at.unwrap_or(a.tick());
            if same_tick
                && target <= a.tick()
                && self.step_to(target).is_ok()
                && self.take(&added)
                && self.other.log() == want.as_slice()
            {
                self.step_to(a.tick())?;
                return Ok(false);
            }
        }
        self.other = Session::replayed(a.seed(), self.profile.clone(), want, a.tick())?;
        Ok(true)
    }

    fn step_to(&mut self, tick: u64) -> Result<(), String> {
        let now = self.other.tick();
        if tick > now {
            self.other.run(tick - now);
        } else if tick < now {
            self.other.replay_to(tick)?;
        }
        Ok(())
    }

    /// Submits `added` at the second run's tick, all or nothing.
    fn take(&mut self, added: &[Entry]) -> bool {
        if added.is_empty() {
            return true;
        }
        let before = self.other.clone();
        for e in added {
            if e.tick != self.other.tick() + 1 || self.other.submit(e.action.clone()).is_err() {
                self.other = before;
                return false;
            }
        }
        true
    }

    /// Both runs now and what differs; at most `limit` names per list (the
    /// counts are always whole).
    pub fn view(&self, a: &Session, limit: usize) -> CompareView {
        let PlacementDiff {
            landed_differently,
            pending_only_in_a,
            pending_only_in_b,
            bound_only_in_a,
            bound_only_in_b,
        } = diff_placements(a.simulator().cluster(), self.other.simulator().cluster());
        let count = |v: usize| v.min(u32::MAX as usize) as u32;
        CompareView {
            tick: a.tick(),
            a: SideView {
                profile: a.simulator().profile().scheduler_name.clone(),
                balance: a.balance(),
            },
            b: SideView {
                profile: self.policy.clone(),
                balance: self.other.balance(),
            },
            landed_differently_count: count(landed_differently.len()),
            pending_only_in_a_count: count(pending_only_in_a.len()),
            pending_only_in_b_count: count(pending_only_in_b.len()),
            bound_only_in_a_count: count(bound_only_in_a.len()),
            bound_only_in_b_count: count(bound_only_in_b.len()),
            bound_only_in_a: bound_only_in_a.into_iter().take(limit).collect(),
            bound_only_in_b: bound_only_in_b.into_iter().take(limit).collect(),
            landed_differently: landed_differently
                .into_iter()
                .take(limit)
                .map(|(pod, a, b)| MovedPod { pod, a, b })
                .collect(),
            pending_only_in_a: pending_only_in_a.into_iter().take(limit).collect(),
            pending_only_in_b: pending_only_in_b.into_iter().take(limit).collect(),
        }
    }
}

/// Every pod and where it is, `[pod, node or null]` in pod name order: what a
/// test needs to diff two runs by itself.
pub fn placements(s: &Session) -> Vec<(String, Option<String>)> {
    let c = s.simulator().cluster();
    let mut v: Vec<(String, Option<String>)> = c
        .pods()
        .map(|p| {
            (
                p.name(),
                p.node
                    .and_then(|id| c.node_by_id(id))
                    .map(|n| n.name().to_string()),
            )
        })
        .collect();
    v.sort();
    v
}

// ----- at the boundary ---------------------------------------------------------

use wasm_bindgen::prelude::*;

use crate::{err, to_js, Shepherd};

/// Pod names listed per list at most, whatever the page asks.
const MAX_LISTED: usize = 100_000;

/// The compare view's second run, as the page holds it: `new
/// Comparison(sim, "binpack")`, then `follow(sim)` after every change of the
/// page's tick or script and `view(sim, limit)` to draw.
#[wasm_bindgen(js_name = Comparison)]
pub struct ComparisonJs {
    inner: Comparison,
}

#[wasm_bindgen(js_class = Comparison)]
impl ComparisonJs {
    /// The run `sim` holds, replayed under the named profile
    /// (`default-scheduler`, `binpack` or `leastloaded`) to `sim`'s tick.
    #[wasm_bindgen(constructor)]
    pub fn new(sim: &Shepherd, policy: &str) -> Result<ComparisonJs, JsError> {
        Ok(ComparisonJs {
            inner: Comparison::new(&sim.session, policy).map_err(err)?,
        })
    }

    /// The second run's profile name.
    #[wasm_bindgen(getter)]
    pub fn policy(&self) -> String {
        self.inner.policy().into()
    }

    /// The second run's tick.
    #[wasm_bindgen(getter)]
    pub fn tick(&self) -> f64 {
        self.inner.other().tick() as f64
    }

    /// Brings the second run to `sim`'s tick and actions; true when it
    /// replayed from the seed.
    pub fn follow(&mut self, sim: &Shepherd) -> Result<bool, JsError> {
        self.inner.follow(&sim.session).map_err(err)
    }

    /// `{tick, a, b, landedDifferently, landedDifferentlyCount,
    /// pendingOnlyInA, pendingOnlyInACount, pendingOnlyInB,
    /// pendingOnlyInBCount, boundOnlyInA, boundOnlyInACount, boundOnlyInB,
    /// boundOnlyInBCount}` (a bound-only pod is `[pod, node]`): `a` is `sim`'s run, `b` the second, each
    /// `{profile, balance}` (as `Shepherd.balance()`); a moved pod is `{pod,
    /// a, b}` (its node in each run); at most `limit` entries per list.
    pub fn view(&self, sim: &Shepherd, limit: u32) -> Result<JsValue, JsError> {
        let limit = (limit as usize).min(MAX_LISTED);
        to_js(&self.inner.view(&sim.session, limit))
    }

    /// Every pod of both runs and its node (`null`: Pending), `{a: [[pod,
    /// node]], b: [[pod, node]]}` in pod name order.
    pub fn placements(&self, sim: &Shepherd) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Both {
            a: Vec<(String, Option<String>)>,
            b: Vec<(String, Option<String>)>,
        }
        to_js(&Both {
            a: placements(&sim.session),
            b: placements(self.inner.other()),
        })
    }
}
