//! A session: one simulator plus the script of what the person did, so that
//! the run can be exported, replayed from its seed, and stepped back.
//!
//! Every action goes through [`Simulator::submit`]: checked against the
//! cluster now and fired at the next tick. A refused action changes nothing,
//! not even the script.

use shepherd::simulator::{Event, Simulator, StepReport};
use shepherd::Profile;

use crate::charts::{BalanceView, Series};
use crate::scenario::{self, Action, Entry, Note, Scenario, MAX_ACTIONS, MAX_TICK};
use crate::view::{self, EventsPage, ExplainView, NodeCard, Snapshot};

#[derive(Clone, Debug)]
pub struct Session {
    sim: Simulator,
    /// The scheduler profile at tick 0; `setPolicy` actions change the simulator's.
    profile: Profile,
    /// Every accepted action with the tick it fires at, in tick order (and in
    /// submission order within a tick, as the engine's script keeps them).
    /// With the seed and the policy, all it takes to replay this run.
    log: Vec<Entry>,
    notes: Vec<Note>,
    /// A few figures per tick for the page's charts: `tick + 1` entries,
    /// entry `t` the cluster at the end of tick `t` (see [`Series`]).
    series: Series,
    /// Copies of the simulator at earlier ticks, so Back replays from the
    /// nearest one instead of from the seed (see [`Checkpoints`]).
    checkpoints: Checkpoints,
    /// Counts the changes to `log`: a simulator given the script at one
    /// version need not be given it again while the version stays.
    script_version: u64,
    /// What the last accepted action dropped from the script, in words.
    dropped_note: Option<String>,
    /// While actions are queued for the next tick: the simulator at that
    /// tick's start with them fired (`Simulator::next_tick_start`), and the
    /// `script_version` it holds, so that a further action for the same
    /// tick is checked after them (see [`Session::submit`]). Dropped when
    /// the run moves.
    same_tick: Option<(u64, Simulator)>,
}

/// At most this many copies of the simulator are kept for Back: the memory
/// they take is at most this many times the cluster's (README, "Back").
pub const MAX_CHECKPOINTS: usize = 2;

/// Copies of the simulator, oldest first, each taken right after a tick.
///
/// A copy is taken when the work done since the last one (events written,
/// plus a share per node per tick for the ticks' own passes) reaches the
/// work it takes to copy the cluster (its pods, nodes and events), so the
/// copies cost no more than the replays they save, and Back replays at most
/// about one copy's worth of work. Ticks are a function of the seed and the
/// script, so a copy is the state a replay from the seed would reach; a copy
/// made before the script changed at or before its tick is dropped.
///
/// Besides the kept copies, one spare: a simulator at the tick before now,
/// made ready in idle time ([`Session::idle`] with `prepare_back`) from the
/// newest copy before it, so that Back takes it as it is instead of copying
/// and replaying while the person waits (the copy alone is tens of
/// milliseconds at 5,000 nodes). Back leaves the simulator it replaced
/// for idle time to free, after which the spare for the next Back is made:
/// the memory holds the live simulator, the kept copies and one more.
#[derive(Debug, Default)]
pub struct Checkpoints {
    kept: Vec<(u64, Simulator)>,
    /// A simulator at some tick before now (`spare.0`), ready to become the
    /// live one; only while no action changed the script at or before it.
    spare: Option<(u64, Simulator)>,
    /// The version of the script ([`Session`]'s `script_version`) the spare
    /// was last given; `None` when it has not been given one since it was
    /// copied. Building the script from the log is thousands of events for
    /// a generated cluster: it is done only when the script changed.
    spare_script: Option<u64>,
    /// The simulator that Back replaced, freed in idle time.
    retired: Option<Simulator>,
    /// The work since the last copy reached a copy's cost: the next copy is
    /// taken before the next tick or when the page is idle ([`Session::idle`]),
    /// so the tick that did the work does not also pay for the copy.
    due: bool,
    /// Work since the last copy (or since tick 0): events written and pods
    /// created, bound, made Ready or removed, plus a share per tick.
    work: u64,
    events_seen: u64,
}

/// A copy of a session keeps the copies, not the spare (made again when
/// needed) nor the simulator waiting to be freed.
impl Clone for Checkpoints {
    fn clone(&self) -> Self {
        Checkpoints {
            kept: self.kept.clone(),
            spare: None,
            spare_script: None,
            retired: None,
            due: self.due,
            work: self.work,
            events_seen: self.events_seen,
        }
    }
}

/// The most ticks one call of [`Session::idle`] replays on the spare: a
/// bounded amount of work per idle callback.
pub const SPARE_TICKS_PER_IDLE: u64 = 64;

impl Checkpoints {
    /// What copying this simulator costs, in the same units as `work`.
    fn copy_cost(sim: &Simulator) -> u64 {
        let c = sim.cluster();
        (c.pending_count() as u64 + c.bound_count() as u64) / 2
            + c.events().len() as u64 / 4
            + c.node_count() as u64
            + 1_000
    }

    /// Called after every tick, with what the tick did.
    fn after_tick(&mut self, sim: &Simulator, report: &StepReport) {
        let c = sim.cluster();
        let events = c.events().writes();
        let r = &report.reconcile.total;
        let pods = r.created as u64
            + r.deleted as u64
            + r.bound as u64
            + r.collected as u64
            + r.evicted as u64
            + r.became_ready as u64
            + r.endpoints_changed as u64;
        self.work +=
            events.saturating_sub(self.events_seen) + pods + 1 + c.node_count() as u64 / 256;
        self.events_seen = events;
        if self.work >= Self::copy_cost(sim) {
            self.due = true;
        }
    }

    /// Takes the copy that is due, if one is (never in the middle of a
    /// tick run in slices: a copy is the state at the end of a tick).
    fn take_due(&mut self, sim: &Simulator) {
        if !self.due || sim.in_step() {
            return;
        }
        if self.kept.len() >= MAX_CHECKPOINTS {
            // Keep the oldest (it spans the most) and the newest.
            self.kept.remove(1.min(self.kept.len() - 1));
        }
        // The copy leaves the scheduler's caches behind: they are rebuilt on
        // use after a restore and never change a decision, and each is
        // megabytes at 5,000 nodes (README, "Back from copies").
        let mut copy = sim.clone();
        copy.drop_caches();
        self.kept.push((sim.tick(), copy));
        self.work = 0;
        self.due = false;
    }

    /// The script changed at `tick`: copies from that tick on no longer hold.
    fn invalidate_from(&mut self, tick: u64) {
        self.kept.retain(|(t, _)| *t < tick);
        if self.spare.as_ref().is_some_and(|(t, _)| *t >= tick) {
            self.spare = None;
            self.spare_script = None;
        }
    }

    /// Whether a restore to `tick` takes the spare: it is at or before
    /// `tick`, and no kept copy is nearer.
    fn spare_serves(&self, tick: u64) -> bool {
        match &self.spare {
            Some((s, _)) if *s <= tick => !self.kept.iter().any(|(k, _)| *k <= tick && *k > *s),
            _ => false,
        }
    }

    /// The newest copy at or before `tick`, as a fresh simulator: the spare
    /// itself when it serves ([`Checkpoints::spare_serves`]), else a copy of
    /// the newest kept one.
    fn restore(&mut self, tick: u64) -> Option<Simulator> {
        if self.spare_serves(tick) {
            self.spare_script = None;
            return self.spare.take().map(|(_, sim)| sim);
        }
        self.kept
            .iter()
            .rev()
            .find(|(t, _)| *t <= tick)
            .map(|(_, sim)| sim.clone())
    }

    /// After a restore or replay to `tick`: the work is counted from there.
    fn moved_to(&mut self, sim: &Simulator) {
        self.events_seen = sim.cluster().events().writes();
        self.work = 0;
        self.due = false;
    }

    pub fn ticks(&self) -> Vec<u64> {
        self.kept.iter().map(|(t, _)| *t).collect()
    }
}

impl Session {
    pub fn new(seed: u64, profile: impl Into<Profile>) -> Session {
        let profile = profile.into();
        let sim = Simulator::new(seed, profile.clone());
        let mut series = Series::default();
        series.record(&sim);
        Session {
            sim,
            profile,
            log: Vec::new(),
            notes: Vec::new(),
            series,
            checkpoints: Checkpoints::default(),
            script_version: 0,
            dropped_note: None,
            same_tick: None,
        }
    }

    /// `n` ticks, each recorded in the series.
    fn advance(&mut self, n: u64) {
        if n > 0 {
            self.same_tick = None;
        }
        for _ in 0..n {
            self.checkpoints.take_due(&self.sim);
            let report = self.sim.step();
            self.series.record(&self.sim);
            self.checkpoints.after_tick(&self.sim, &report);
        }
    }

    /// Rebuilds a run from a scenario and replays it to its tick (or to its
    /// last action's tick when it names none).
    ///
    /// Every action is checked exactly as the forms' actions are: the run
    /// plays to the tick before the action fires and the action goes through
    /// [`Session::submit`] (the engine's `Simulator::submit`, its limits
    /// included). The first refusal refuses the whole document, naming the
    /// action, its tick and the reason; nothing is half-imported.
    pub fn from_scenario(s: &Scenario) -> Result<Session, String> {
        scenario::check(s)?;
        let policy = scenario::parse_policy(&s.policy)?;
        let tick = s
            .tick
            .unwrap_or_else(|| s.actions.last().map_or(0, |e| e.tick));
        let mut me = Session::new(s.seed, policy);
        me.notes = s.notes.clone();
        for (i, e) in s.actions.iter().enumerate() {
            // check() put the actions in tick order, from tick 1.
            me.advance(e.tick - 1 - me.sim.tick());
            me.submit(e.action.clone()).map_err(|m| {
                let place = scenario::action_place(i, Some(e.tick), Some(e.action.kind()));
                format!("the scenario's {place} is refused: {m}")
            })?;
        }
        if tick >= me.sim.tick() {
            me.advance(tick - me.sim.tick());
        } else {
            // Checked to its last action; the document stops earlier.
            me.replay_to(tick)?;
        }
        Ok(me)
    }

    /// A run of `log` from `seed` under `profile`, replayed to `tick` with
    /// the actions unchecked, as [`Session::replay_to`] replays them (what
    /// the compare view's second run is).
    pub fn replayed(
        seed: u64,
        profile: Profile,
        log: Vec<Entry>,
        tick: u64,
    ) -> Result<Session, String> {
        let mut me = Session::new(seed, profile);
        me.log = log;
        me.script_version += 1;
        me.replay_to(tick)?;
        Ok(me)
    }

    /// The scripted tour, at tick 0.
    pub fn tour() -> Session {
        // The tour is built in this crate and checked by its tests: it cannot fail.
        Session::from_scenario(&scenario::tour())
            .unwrap_or_else(|_| Session::new(1, Profile::bin_pack()))
    }

    /// Replays from the seed to `tick`: the same script gives the same cluster.
    /// Actions are inserted unchecked, as they were checked when first submitted,
    /// and the engine fires them exactly as it did then.
    pub fn replay_to(&mut self, tick: u64) -> Result<(), String> {
        if tick > MAX_TICK {
            return Err(format!(
                "tick {tick} is out of range; expected 0 to {MAX_TICK}"
            ));
        }
        let seed = self.sim.seed();
        // The spare was given the script as it is: no need to build it.
        let spare_has_script = self.checkpoints.spare_serves(tick)
            && self.checkpoints.spare_script == Some(self.script_version);
        let script = if spare_has_script {
            Vec::new()
        } else {
            self.script()?
        };
        // From the newest copy at or before `tick` when there is one, with
        // the script as it is now; else from the seed. Nothing below can
        // fail. When the spare serves, the live simulator is set aside for
        // idle time to free (the memory already held it and the spare);
        // otherwise it goes first: the page's memory (which never shrinks)
        // then holds the live state and the kept copies, not one more copy
        // while Back restores.
        self.same_tick = None;
        let live = std::mem::replace(&mut self.sim, Simulator::new(seed, self.profile.clone()));
        if self.checkpoints.spare_serves(tick) {
            // One simulator waits to be freed at most: an older one goes now.
            self.checkpoints.retired = Some(live);
        } else {
            drop(live);
        }
        let mut sim = match self.checkpoints.restore(tick) {
            Some(mut copy) => {
                if !spare_has_script {
                    copy.reschedule(&script);
                }
                copy
            }
            None => Simulator::with_script(seed, self.profile.clone(), script),
        };
        // The series up to the current tick stays true: every action fires
        // after the tick it was submitted at, and a session only submits at
        // its current tick, so ticks up to it replay exactly as recorded.
        // Past what was recorded, the replay records as it goes.
        let recorded = (self.series.len() as u64).saturating_sub(1).min(tick);
        sim.run(recorded.saturating_sub(sim.tick()));
        self.sim = sim;
        self.checkpoints.moved_to(&self.sim);
        // A restored copy may be past what was recorded (a replay after
        // the series was dropped): the series then follows from the copy.
        let recorded = recorded.max(self.sim.tick());
        self.series.truncate(recorded as usize + 1);
        self.advance(tick - recorded);
        Ok(())
    }

    pub fn tick(&self) -> u64 {
        self.sim.tick()
    }

    pub fn seed(&self) -> u64 {
        self.sim.seed()
    }

    pub fn simulator(&self) -> &Simulator {
        &self.sim
    }

    /// The script as engine events, from the log: what a replay fires.
    fn script(&self) -> Result<Vec<(u64, Event)>, String> {
        let seed = self.sim.seed();
        let mut script: Vec<(u64, Event)> = Vec::new();
        for e in &self.log {
            for ev in e.action.to_events(seed)? {
                script.push((e.tick, ev));
            }
        }
        Ok(script)
    }

    /// Work for idle time, a bounded amount per call: frees the simulator
    /// Back replaced, takes the copy for Back that is due (otherwise the
    /// next tick takes it first), and with `prepare_back` brings the spare
    /// (see [`Checkpoints`]) to the tick before now: a copy of the newest
    /// kept copy before that tick, then at most [`SPARE_TICKS_PER_IDLE`]
    /// ticks of replay per call. Returns whether work remains (call again
    /// when idle).
    pub fn idle(&mut self, prepare_back: bool) -> bool {
        if self.sim.in_step() {
            // The tick under way finishes first (`step_slice`).
            return false;
        }
        if self.checkpoints.retired.take().is_some() {
            return true;
        }
        self.checkpoints.take_due(&self.sim);
        let now = self.sim.tick();
        if !prepare_back || now == 0 {
            return false;
        }
        let target = now - 1;
        let cp = &mut self.checkpoints;
        let usable = cp.spare.as_ref().is_some_and(|(t, _)| *t <= target);
        // A kept copy nearer than the spare: start the spare from it instead.
        let nearer = cp
            .kept
            .iter()
            .rev()
            .find(|(t, _)| *t <= target)
            .filter(|(t, _)| !usable || cp.spare.as_ref().is_some_and(|(s, _)| *s < *t))
            .map(|(t, sim)| (*t, sim));
        if let Some((t, sim)) = nearer {
            // The old spare goes before the copy is made: one more
            // simulator in memory at most.
            cp.spare = None;
            cp.spare_script = None;
            let copy = sim.clone();
            cp.spare = Some((t, copy));
            return t < target;
        }
        if !usable {
            // No copy before now to start from: Back replays from the seed.
            cp.spare = None;
            cp.spare_script = None;
            return false;
        }
        let behind = self
            .checkpoints
            .spare
            .as_ref()
            .is_some_and(|(t, _)| *t < target);
        if behind && self.checkpoints.spare_script != Some(self.script_version) {
            let Ok(script) = self.script() else {
                self.checkpoints.spare = None;
                self.checkpoints.spare_script = None;
                return false;
            };
            if let Some((_, spare)) = self.checkpoints.spare.as_mut() {
                spare.reschedule(&script);
                self.checkpoints.spare_script = Some(self.script_version);
            }
        }
        let Some((t, spare)) = self.checkpoints.spare.as_mut() else {
            return false;
        };
        if *t < target {
            let n = (target - *t).min(SPARE_TICKS_PER_IDLE);
            spare.run(n);
            *t = spare.tick();
        }
        *t < target
    }

    /// The tick of the spare simulator for Back, if one is kept (see [`Checkpoints`]).
    pub fn spare_tick(&self) -> Option<u64> {
        self.checkpoints.spare.as_ref().map(|(t, _)| *t)
    }

    /// The ticks of the copies kept for Back.
    pub fn checkpoint_ticks(&self) -> Vec<u64> {
        self.checkpoints.ticks()
    }

    pub fn log(&self) -> &[Entry] {
        &self.log
    }

    /// One tick. Returns the refusals of scripted actions that failed when they fired.
    pub fn step(&mut self) -> Vec<String> {
        // A tick under way in slices is finished (the simulator's `step`).
        if self.sim.tick() >= MAX_TICK && !self.sim.in_step() {
            return vec![format!("the simulation stops at tick {MAX_TICK}")];
        }
        self.same_tick = None;
        self.checkpoints.take_due(&self.sim);
        let report = self.sim.step();
        self.series.record(&self.sim);
        self.checkpoints.after_tick(&self.sim, &report);
        report.errors
    }

    /// One tick in slices (`Simulator::step_slice`), for the page to paint
    /// between them when a tick places many pods: each call runs the tick
    /// on until about `budget` units of work were done (a pod created
    /// counts 1, a pod bound `shepherd::BIND_COST`; see
    /// `Simulator::step_slice`), and
    /// returns what [`Session::step`] returns once the tick is finished,
    /// `None` while work remains. The finished tick is exactly the one
    /// `step` makes. Until then no action is taken ([`Session::submit`]
    /// refuses) and idle work waits; `step` or `run` finish it at once.
    pub fn step_slice(&mut self, budget: u32) -> Option<Vec<String>> {
        if !self.sim.in_step() {
            if self.sim.tick() >= MAX_TICK {
                return Some(vec![format!("the simulation stops at tick {MAX_TICK}")]);
            }
            self.checkpoints.take_due(&self.sim);
            self.same_tick = None;
        }
        let report = self.sim.step_slice(budget)?;
        self.series.record(&self.sim);
        self.checkpoints.after_tick(&self.sim, &report);
        Some(report.errors)
    }

    /// During a tick run in slices: the pods it bound so far, the pods
    /// Pending now, and an estimate of the pods it places in all
    /// (`Simulator::step_progress`); `None` when no tick is under way.
    pub fn step_progress(&self) -> Option<(u32, u32, u32)> {
        self.sim.step_progress()
    }

    /// Runs quiet ticks until one in which something happens (an event is
    /// logged, a scripted action fires, or a pod turns Ready or not, which
    /// Kubernetes records no Event for: `Cluster::change_epoch`), that one
    /// included, or `max`
    /// ticks have run (never past [`MAX_TICK`]): how a person skips the
    /// seconds of cluster time in which nothing changes, such as a node
    /// monitor grace period or a pod's tolerationSeconds. Returns the ticks run.
    pub fn skip_quiet(&mut self, max: u64) -> u64 {
        let mut ran = 0;
        self.same_tick = None;
        while ran < max && self.sim.tick() < MAX_TICK {
            // Anything written counts, a repeat counted into an earlier event too.
            let seen = |c: &shepherd::Cluster| (c.events().writes(), c.change_epoch());
            let before = seen(self.sim.cluster());
            let fired = self.sim.step().fired;
            self.series.record(&self.sim);
            ran += 1;
            if fired > 0 || seen(self.sim.cluster()) != before {
                break;
            }
        }
        ran
    }

    /// `n` ticks (at most up to [`MAX_TICK`]).
    pub fn run(&mut self, n: u64) {
        let n = n.min(MAX_TICK - self.sim.tick().min(MAX_TICK));
        self.advance(n);
    }

    /// The distinct values of node label `key` over the registered nodes, sorted.
    pub fn label_values(&self, key: &str) -> Vec<String> {
        let mut seen = std::collections::BTreeSet::new();
        for n in self.sim.cluster().nodes() {
            if let Some(v) = n.spec.labels.get(key) {
                seen.insert(v.clone());
            }
        }
        seen.into_iter().collect()
    }

    /// The per-tick figures from tick 0 to now.
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// The cluster's balance now (`Cluster::balance`).
    pub fn balance(&self) -> BalanceView {
        BalanceView::new(self.sim.tick(), &self.sim.cluster().balance())
    }

    /// Back one tick, by replaying from the newest kept copy (else from the
    /// seed). The script is kept: actions
    /// after the new tick fire again as the clock moves forward. A new
    /// action taken after Back keeps those of them that still apply (see
    /// [`Session::submit`]); Discard drops them all.
    pub fn step_back(&mut self) -> Result<u64, String> {
        let t = self.sim.tick();
        if t == 0 {
            return Err("already at tick 0; there is nothing before it".into());
        }
        self.replay_to(t - 1)?;
        Ok(t - 1)
    }

    /// Drops the actions that have not fired yet (a tour's remaining script,
    /// or actions replayed after a step back). Returns how many were dropped.
    pub fn discard_upcoming(&mut self) -> Result<usize, String> {
        let now = self.sim.tick();
        let before = self.log.len();
        self.log.retain(|e| e.tick <= now);
        self.checkpoints.invalidate_from(now + 1);
        // The captions told the story of the script; past this tick it no longer happens.
        self.notes.retain(|n| n.tick <= now);
        let dropped = before - self.log.len();
        if dropped > 0 {
            self.script_version += 1;
            self.replay_to(now)?;
        }
        Ok(dropped)
    }

    /// Starts again from tick 0 with a new seed, and drops the script.
    pub fn reset(&mut self, seed: u64, profile: impl Into<Profile>) {
        *self = Session::new(seed, profile);
    }

    /// Checks an action against the cluster now and queues it for the next
    /// tick. Returns what it will do, in words (and which later queued
    /// actions it made wrong and dropped, see
    /// [`Session::keep_what_still_applies`]). Refused: nothing changes.
    pub fn submit(&mut self, action: Action) -> Result<String, String> {
        if self.sim.in_step() {
            return Err(format!(
                "tick {} is still being computed (its pods are placed in slices); expected the action once it is finished",
                self.sim.tick()
            ));
        }
        if self.log.len() >= MAX_ACTIONS {
            return Err(format!(
                "this scenario already has {MAX_ACTIONS} actions; expected fewer (export it and start a new one)"
            ));
        }
        if self.sim.tick() >= MAX_TICK {
            return Err(format!("the simulation stops at tick {MAX_TICK}"));
        }
        let events = action.to_events(self.sim.seed())?;
        // Names, duplicates, rollbacks, sizes and limits are the engine's to
        // check (submit).
        let what = describe(&action, &events);
        let tick = self.sim.tick() + 1;
        // Later actions queued (after Back, or a tour's or a link's script):
        // the action is checked twice. First with the whole script queued,
        // as the engine checks it (its refusals then name a later action,
        // as in "does not exist yet: the scripted action that creates it
        // fires at tick 16"); then as an import checks it, with the script
        // up to its own tick only (a node queued later must not make a pod
        // fit now). The later actions are then checked after it.
        let later = self.log.last().is_some_and(|e| e.tick > tick);
        let again = if later { Some(events.clone()) } else { None };
        // Actions already queued for the same tick fire before this one
        // (after Back, or in a script): it must still apply once they have,
        // so it is checked on the simulator at that tick's start with them
        // fired, kept for the next action of the tick.
        let first = self.log.partition_point(|e| e.tick < tick);
        let same_tick: Vec<usize> = (first..self.log.len())
            .take_while(|&i| self.log[i].tick == tick)
            .collect();
        if !same_tick.is_empty() {
            let fresh = self
                .same_tick
                .as_ref()
                .is_some_and(|(v, s)| *v == self.script_version && s.tick() == tick);
            if !fresh {
                self.same_tick = Some((self.script_version, self.sim.next_tick_start()));
            }
        }
        let trial_events = if same_tick.is_empty() {
            Vec::new()
        } else {
            events.clone()
        };
        submit_all(&mut self.sim, events)?;
        if let Some(events) = again {
            let upto = self.script_through(tick);
            self.sim.reschedule(&upto);
            if let Err(e) = submit_all(&mut self.sim, events) {
                let all = self.script_through(MAX_TICK);
                self.sim.reschedule(&all);
                return Err(e);
            }
        }
        if let Some((_, trial)) = self.same_tick.as_mut().filter(|_| !trial_events.is_empty()) {
            for e in &trial_events {
                let refused = trial
                    .validate(e)
                    .err()
                    .map(|e| e.to_string())
                    .or_else(|| trial.apply(e).err().map(|e| e.to_string()));
                if let Some(why) = refused {
                    // The copy may hold part of the action: made again next time.
                    self.same_tick = None;
                    let all = self.script_through(MAX_TICK);
                    self.sim.reschedule(&all);
                    let seed = self.sim.seed();
                    let before: Vec<String> = same_tick
                        .iter()
                        .take(3)
                        .map(|&i| {
                            let a = &self.log[i].action;
                            a.to_events(seed)
                                .map(|ev| describe(a, &ev))
                                .unwrap_or_else(|_| a.kind().to_string())
                        })
                        .collect();
                    let n = same_tick.len();
                    let more = if n > before.len() {
                        format!(" and {} more", n - before.len())
                    } else {
                        String::new()
                    };
                    let (actions, have) = if n == 1 {
                        ("action", "has")
                    } else {
                        ("actions", "have")
                    };
                    return Err(format!(
                        "{what}: once the {n} {actions} queued before it for tick {tick} {have} fired ({}{more}): {why}",
                        before.join("; ")
                    ));
                }
            }
        }
        self.checkpoints.invalidate_from(tick);
        // In tick order, after every entry of the same tick: the order the engine fires them.
        let at = self.log.partition_point(|e| e.tick <= tick);
        self.log.insert(at, Entry { tick, action });
        self.script_version += 1;
        // The copy holds this action now (or there was none to check).
        match self.same_tick.as_mut() {
            Some((v, _)) if !trial_events.is_empty() => *v = self.script_version,
            _ => self.same_tick = None,
        }
        let dropped = self.keep_what_still_applies(at);
        self.dropped_note = None;
        self.captions_after_drop(&dropped);
        if !dropped.is_empty() {
            let seed = self.sim.seed();
            let names: Vec<String> = dropped
                .iter()
                .take(3)
                .map(|(e, why)| {
                    let what = e
                        .action
                        .to_events(seed)
                        .map(|ev| describe(&e.action, &ev))
                        .unwrap_or_else(|_| e.action.kind().to_string());
                    format!("{what} at tick {} ({why})", e.tick)
                })
                .collect();
            let more = dropped.len().saturating_sub(names.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let n = dropped.len();
            let s = if n == 1 { "" } else { "s" };
            self.dropped_note = Some(format!(
                "{n} later action{s} no longer {} and {} dropped: {}{more}",
                if n == 1 { "applies" } else { "apply" },
                if n == 1 { "was" } else { "were" },
                names.join("; ")
            ));
        }
        Ok(format!("{what} (queued for tick {tick})"))
    }

    /// The captions of a script (the tour's) that told what dropped
    /// actions did no longer hold: the caption at a dropped action's tick
    /// now says that it was dropped and why, and the captions after it
    /// that tell only its consequences (at ticks with no action of their
    /// own, up to the next caption that has one, such as "node-1 is
    /// NotReady" after a dropped kubelet stop) go.
    fn captions_after_drop(&mut self, dropped: &[(Entry, String)]) {
        if dropped.is_empty() || self.notes.is_empty() {
            return;
        }
        let seed = self.sim.seed();
        let acts = |log: &[Entry], t: u64| log.iter().any(|e| e.tick == t);
        let mut gone: Vec<u64> = Vec::new();
        for (e, why) in dropped {
            let Some(i) = self.notes.iter().position(|n| n.tick == e.tick) else {
                continue;
            };
            let what = e
                .action
                .to_events(seed)
                .map(|ev| describe(&e.action, &ev))
                .unwrap_or_else(|_| e.action.kind().to_string());
            let still = if acts(&self.log, e.tick) {
                " The rest of this step still happens."
            } else {
                ""
            };
            self.notes[i].text = format!(
                "Dropped from the script: {what} no longer applies ({why}), so the step told here does not happen.{still}"
            );
            self.notes[i].text = self.notes[i]
                .text
                .chars()
                .take(scenario::MAX_NOTE_CHARS)
                .collect();
            let mut after: Vec<u64> = self
                .notes
                .iter()
                .map(|n| n.tick)
                .filter(|&t| t > e.tick)
                .collect();
            after.sort_unstable();
            for t in after {
                if acts(&self.log, t) || dropped.iter().any(|(d, _)| d.tick == t) {
                    break;
                }
                gone.push(t);
            }
        }
        self.notes.retain(|n| !gone.contains(&n.tick));
    }

    /// What the last accepted action dropped from the script, in words
    /// (see [`Session::keep_what_still_applies`]); `None` when it dropped nothing.
    pub fn dropped_note(&self) -> Option<&str> {
        self.dropped_note.as_deref()
    }

    /// After an action is taken at log entry `at` (fired at the next tick)
    /// while later actions are queued (the rest of a tour's or a link's
    /// script, or the actions a person made before going Back): each later
    /// action is checked again, in order, exactly as an import checks it
    /// ([`Session::from_scenario`]: the run plays to the tick before it
    /// fires and the action goes through the engine's submit), and one that
    /// the new action made wrong (an eviction of a pod that no longer
    /// exists, a node name now taken) is dropped from the script. The script
    /// then holds only what applies, so the run's export and link always
    /// load and replay to what the page shows. The check plays a copy of
    /// the simulator up to the last later action (nothing to do when there
    /// is none). Returns the dropped entries with the engine's reasons.
    fn keep_what_still_applies(&mut self, at: usize) -> Vec<(Entry, String)> {
        if at + 1 >= self.log.len() {
            return Vec::new();
        }
        let seed = self.sim.seed();
        // The live simulator is at the new action's tick - 1 and its script
        // holds the actions up to the new one (submit), as an import has
        // them when it reaches the first later one.
        let mut trial = self.sim.clone();
        let later = self.log.split_off(at + 1);
        let mut dropped = Vec::new();
        for e in later {
            // check() and submit keep every entry from tick 1 and the later
            // ones after the new action's tick: e.tick - 1 >= trial.tick().
            trial.run(e.tick.saturating_sub(1).saturating_sub(trial.tick()));
            let taken = e
                .action
                .to_events(seed)
                .and_then(|events| submit_all(&mut trial, events));
            match taken {
                Ok(()) => self.log.push(e),
                Err(why) => dropped.push((e, why)),
            }
        }
        // The live run keeps its state; its script is what the log holds now.
        let all = self.script_through(MAX_TICK);
        self.sim.reschedule(&all);
        dropped
    }

    /// The script as engine events, from the log entries up to `tick`.
    fn script_through(&self, tick: u64) -> Vec<(u64, Event)> {
        let seed = self.sim.seed();
        let mut script: Vec<(u64, Event)> = Vec::new();
        for e in self.log.iter().take_while(|e| e.tick <= tick) {
            // Every logged action made its events when it was taken.
            for ev in e.action.to_events(seed).unwrap_or_default() {
                script.push((e.tick, ev));
            }
        }
        script
    }

    /// The run so far as a scenario document, at the current tick.
    pub fn scenario(&self) -> Scenario {
        let mut s = scenario::empty(self.sim.seed(), &self.profile);
        s.tick = Some(self.sim.tick());
        s.actions = self.log.clone();
        s.notes = self.notes.clone();
        s
    }

    /// The latest caption at or before this tick.
    pub fn note(&self) -> Option<String> {
        let t = self.sim.tick();
        self.notes
            .iter()
            .filter(|n| n.tick <= t)
            .max_by_key(|n| n.tick)
            .map(|n| n.text.clone())
    }

    pub fn snapshot(&self, with_nodes: bool) -> Snapshot {
        view::snapshot(&self.sim, with_nodes, self.note())
    }

    pub fn grid(&self) -> Vec<u32> {
        view::grid(self.sim.cluster())
    }

    pub fn node(&self, id: u32) -> Result<NodeCard, String> {
        view::node_by_id(&self.sim, id)
            .ok_or_else(|| format!("node id {id} not found; expected the id of a registered node"))
    }

    pub fn node_id(&self, name: &str) -> Result<u32, String> {
        self.sim
            .cluster()
            .node(name)
            .map(|n| n.id.0)
            .map_err(|e| e.to_string())
    }

    pub fn events_since(&self, cursor: u32, updates: u64, limit: u32) -> EventsPage {
        view::events_since(self.sim.cluster(), cursor, updates, limit)
    }

    /// Why a pod is where it is, or why it is nowhere: every node's verdict.
    pub fn explain(&self, pod: &str) -> Result<ExplainView, String> {
        self.sim
            .cluster()
            .explain(pod, self.sim.profile())
            .map(ExplainView::from)
            .map_err(|e| e.to_string())
    }

    /// The cycle that bound `pod`, as of its bind, and the tick it ran in
    /// (issue 47: explain as of the decision): a copy of the run replayed
    /// to the tick before the bind (from the newest kept copy before it,
    /// else from the seed), then that tick stepped watching the scheduler
    /// (`Simulator::step_deciding`). `None` for a pod that is not bound,
    /// or that its kubelet took by spec.nodeName (no scheduler decided).
    /// Costs a replay of at most the distance between kept copies, and a
    /// copy of one simulator while it runs.
    pub fn explain_decision(&self, pod: &str) -> Result<Option<(u64, ExplainView)>, String> {
        Ok(self
            .decision(pod)?
            .map(|(at, e)| (at, ExplainView::from(e))))
    }

    /// [`Session::explain_decision`]'s cycle as the engine gives it (for
    /// `kubectl describe pod`).
    pub fn decision(&self, pod: &str) -> Result<Option<(u64, shepherd::Explanation)>, String> {
        let v = self
            .sim
            .cluster()
            .pod_by_name(pod)
            .map_err(|e| e.to_string())?;
        if v.node.is_none() || v.by_node_name || v.bound_at == 0 {
            return Ok(None);
        }
        let at = v.bound_at;
        let script = self.script()?;
        let mut sim = match self.checkpoints.kept.iter().rev().find(|(t, _)| *t < at) {
            Some((_, copy)) => {
                let mut copy = copy.clone();
                copy.reschedule(&script);
                copy
            }
            None => Simulator::with_script(self.sim.seed(), self.profile.clone(), script),
        };
        // Watched by its own name (the short form `web-3` names it only
        // once it exists).
        let pod = v.name();
        sim.run((at - 1).saturating_sub(sim.tick()));
        match sim.step_deciding(&pod).1 {
            Some(Ok(e)) => Ok(Some((at, e))),
            Some(Err(e)) => Err(e.to_string()),
            None => Ok(None),
        }
    }

    /// The current pod template of an app (the roll form starts from it).
    pub fn template(&self, app: &str) -> Result<shepherd::PodTemplate, String> {
        self.sim.cluster().template(app).map_err(|e| e.to_string())
    }
}

/// Submits an action's events to `sim`: all of them, or none (the simulator
/// is then as it was) with the first refusal's message.
fn submit_all(sim: &mut Simulator, events: Vec<Event>) -> Result<(), String> {
    if let [e] = events.as_slice() {
        return sim.submit(e.clone()).map_err(|e| e.to_string());
    }
    let before = sim.clone();
    for e in events {
        if let Err(err) = sim.submit(e) {
            *sim = before;
            return Err(err.to_string());
        }
    }
    Ok(())
}

fn describe(action: &Action, events: &[Event]) -> String {
    match action {
        Action::Generate {
            nodes,
            pods_per_node,
        } => format!(
            "generate {} and 10 Deployments with {}",
            crate::manifest_text::counted(*nodes as usize, "node", "nodes"),
            crate::manifest_text::counted(*nodes as usize * *pods_per_node as usize, "pod", "pods")
        ),
        _ => events
            .iter()
            .map(|e| e.describe())
            .collect::<Vec<_>>()
            .join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shepherd::Profile;

    /// Everything the page can see of a session, to compare two of them.
    fn seen(s: &Session) -> (Snapshot, Vec<u32>, EventsPage, usize) {
        (
            s.snapshot(true),
            s.grid(),
            s.events_since(0, 0, u32::MAX),
            s.series().len(),
        )
    }

    /// A fresh replay from the seed to the session's tick.
    fn from_seed(s: &Session) -> Session {
        let mut doc = s.scenario();
        doc.tick = Some(s.tick());
        let mut fresh = Session::from_scenario(&doc).unwrap();
        fresh.checkpoints = Checkpoints::default();
        fresh.replay_to(s.tick()).unwrap();
        fresh
    }

    #[test]
    fn back_from_a_checkpoint_is_the_replay_from_the_seed() {
        // The copies are kept without the scheduler's caches: under both
        // profiles a restored copy must tick exactly as the replay does.
        for profile in [Profile::bin_pack(), Profile::kube_scheduler()] {
            back_from_a_checkpoint_under(profile);
        }
    }

    fn back_from_a_checkpoint_under(profile: Profile) {
        let mut s = Session::new(11, profile);
        s.submit(Action::Generate {
            nodes: 200,
            pods_per_node: 20,
        })
        .unwrap();
        s.run(3);
        assert!(
            !s.checkpoint_ticks().is_empty(),
            "the big first tick is worth a copy"
        );
        s.submit(Action::FailNode {
            node: "node-7".into(),
        })
        .unwrap();
        s.run(12);
        for _ in 0..5 {
            s.step_back().unwrap();
            assert_eq!(seen(&s), seen(&from_seed(&s)), "Back to tick {}", s.tick());
        }
        // A new action at an earlier tick drops the copies after it.
        s.submit(Action::Scale {
            app: s.snapshot(false).apps[0].name.clone(),
            replicas: 3,
        })
        .unwrap();
        assert!(s.checkpoint_ticks().iter().all(|&t| t <= s.tick()));
        s.run(4);
        for _ in 0..6 {
            s.step_back().unwrap();
            assert_eq!(seen(&s), seen(&from_seed(&s)), "Back to tick {}", s.tick());
        }
        assert!(s.checkpoint_ticks().len() <= MAX_CHECKPOINTS);
        // Dropping the script after a Back: the copies past now go.
        s.step_back().unwrap();
        s.discard_upcoming().unwrap();
        assert!(s.checkpoint_ticks().iter().all(|&t| t <= s.tick()));
        s.run(3);
        s.step_back().unwrap();
        assert_eq!(seen(&s), seen(&from_seed(&s)));
    }

    #[test]
    fn a_bound_pod_is_explained_as_of_its_bind_from_a_copy_or_the_seed() {
        let mut s = Session::new(5, Profile::kube_scheduler());
        s.submit(Action::Generate {
            nodes: 200,
            pods_per_node: 20,
        })
        .unwrap();
        s.run(3);
        let app = s.snapshot(false).apps[0].name.clone();
        let before = s.sim.cluster().app(&app).unwrap().desired;
        s.submit(Action::Scale {
            app: app.clone(),
            replicas: before + 5,
        })
        .unwrap();
        s.run(3);
        assert!(!s.checkpoint_ticks().is_empty());
        let late = format!("{app}-{}", before + 4);
        let c = s.sim.cluster();
        for pod in [format!("{app}-0"), late] {
            let v = c.pod_by_name(&pod).unwrap();
            let node = c.node_by_id(v.node.unwrap()).unwrap().name().to_string();
            let (at, e) = s
                .explain_decision(&pod)
                .unwrap()
                .unwrap_or_else(|| panic!("{pod} was bound by the scheduler"));
            assert_eq!(at, v.bound_at, "{pod}");
            assert_eq!(
                e.bound_to.as_deref(),
                Some(node.as_str()),
                "{pod}: {}",
                e.summary
            );
            assert!(
                // The summary names the pod as it is named: its generated name.
                e.summary
                    .starts_with(&format!("{} was bound to {node}", v.name())),
                "{}",
                e.summary
            );
            // From the seed alone (no copies), the same decision.
            let fresh =
                Session::replayed(5, Profile::kube_scheduler(), s.log.clone(), s.tick()).unwrap();
            assert_eq!(
                fresh.explain_decision(&pod).unwrap(),
                Some((at, e)),
                "{pod}"
            );
        }
        // A Pending pod, or one that does not exist.
        assert!(s.explain_decision("nobody-0").is_err());
    }

    fn add_node(name: &str) -> Action {
        Action::AddNode {
            name: name.into(),
            cpu: 4000,
            memory_bytes: 8192 << 20,
            labels: Default::default(),
            taints: Vec::new(),
        }
    }

    #[test]
    fn an_action_after_back_drops_the_later_actions_it_makes_wrong() {
        let mut s = Session::new(5, Profile::bin_pack());
        s.submit(add_node("node-a")).unwrap(); // tick 1
        s.submit(add_node("node-b")).unwrap(); // tick 1
        s.run(2);
        s.submit(Action::Cordon {
            node: "node-a".into(),
        })
        .unwrap(); // tick 3
        s.run(1);
        s.submit(Action::Cordon {
            node: "node-b".into(),
        })
        .unwrap(); // tick 4
        s.run(2);
        // Back to tick 1: both cordons are queued again.
        for _ in 0..4 {
            s.step_back().unwrap();
        }
        assert_eq!(s.tick(), 1);
        assert_eq!(s.log().len(), 4);
        // Removing node-a at tick 2 makes its cordon at tick 3 wrong; node-b's stays.
        let said = s
            .submit(Action::RemoveNode {
                node: "node-a".into(),
            })
            .unwrap();
        assert!(said.contains("queued for tick 2"), "{said}");
        let note = s.dropped_note().unwrap_or_default();
        assert!(
            note.starts_with("1 later action no longer applies and was dropped"),
            "{note}"
        );
        assert!(note.contains("node-a at tick 3"), "{note}");
        assert!(note.contains("not found"), "the engine's reason: {note}");
        let kinds: Vec<(u64, &str)> = s.log().iter().map(|e| (e.tick, e.action.kind())).collect();
        assert_eq!(
            kinds,
            [
                (1, "addNode"),
                (1, "addNode"),
                (2, "removeNode"),
                (4, "cordon")
            ]
        );
        // The export loads, and both runs go on alike past the kept cordon.
        let mut back = Session::from_scenario(&s.scenario()).unwrap();
        assert_eq!(seen(&back), seen(&s));
        s.run(4);
        back.run(4);
        assert_eq!(seen(&back), seen(&s));
        assert!(s
            .snapshot(true)
            .nodes
            .iter()
            .flatten()
            .any(|n| n.name == "node-b" && n.cordoned));
        // With nothing queued later, an action drops nothing.
        s.submit(add_node("node-c")).unwrap();
        assert_eq!(s.dropped_note(), None);
    }

    #[test]
    fn an_action_is_checked_after_the_actions_queued_for_its_tick() {
        let mut s = Session::new(3, Profile::bin_pack());
        s.submit(Action::Generate {
            nodes: 4,
            pods_per_node: 3,
        })
        .unwrap();
        s.run(3);
        s.step_back().unwrap();
        // Two actions for tick 3: a deletion, then a scale of what it deleted.
        s.submit(Action::DeleteApp { app: "web".into() }).unwrap();
        let e = s
            .submit(Action::Scale {
                app: "web".into(),
                replicas: 5,
            })
            .unwrap_err();
        assert!(e.starts_with("scale web to 5"), "names the action: {e}");
        assert!(e.contains("not found"), "the engine's reason: {e}");
        assert!(
            e.contains(
                "once the 1 action queued before it for tick 3 has fired (delete app web): "
            ),
            "{e}"
        );
        // Refused: nothing changed; the run goes on with the deletion alone.
        assert_eq!(s.log().len(), 2);
        let a = s.snapshot(false);
        assert!(
            a.apps.iter().any(|x| x.name == "web"),
            "the Deployment goes at tick 3 only"
        );
        // An action that still applies after them is taken, and the next
        // one is checked after both (the copy follows the script).
        s.submit(Action::Scale {
            app: "api".into(),
            replicas: 1,
        })
        .unwrap();
        s.submit(Action::DeleteApp { app: "api".into() }).unwrap();
        let e = s
            .submit(Action::Scale {
                app: "api".into(),
                replicas: 4,
            })
            .unwrap_err();
        assert!(
            e.contains("3 actions queued before it for tick 3 have fired"),
            "{e}"
        );
        s.step();
        let errors: Vec<String> = (s.simulator().refused().iter())
            .map(|(t, m)| format!("t={t} {m}"))
            .collect();
        assert!(
            errors.is_empty(),
            "nothing queued fails when it fires: {errors:?}"
        );
        // An import checks its actions the same way: the document is refused.
        let mut doc = s.scenario();
        doc.actions.push(Entry {
            tick: 3,
            action: Action::Scale {
                app: "web".into(),
                replicas: 2,
            },
        });
        let e = Session::from_scenario(&doc).unwrap_err();
        assert!(e.contains("is refused: scale web to 2"), "{e}");
        assert!(e.contains("queued before it for tick 3"), "{e}");
    }

    #[test]
    fn a_dropped_tour_action_takes_its_captions_along() {
        // The tour brings node-1's kubelet back at tick 360 (its caption
        // tells it) and zone-a's (node-1 and node-2) at 745. Deleting
        // node-1 at tick 6 makes both recoveries of node-1 wrong.
        let mut s = Session::tour();
        s.run(5);
        s.submit(Action::RemoveNode {
            node: "node-1".into(),
        })
        .unwrap();
        let note = s.dropped_note().unwrap_or_default().to_string();
        assert!(note.contains("node-1 at tick 360"), "{note}");
        assert!(note.contains("node-1 at tick 745"), "{note}");
        s.run(360 - s.tick());
        let at360 = s.note().unwrap_or_default();
        assert!(
            at360.starts_with("Dropped from the script: recover node node-1 no longer applies"),
            "{at360}"
        );
        assert!(at360.contains("not found"), "the reason: {at360}");
        assert!(
            !at360.contains("kubelet is back"),
            "the old caption went: {at360}"
        );
        // At 745 node-2 still comes back: the caption says the rest happens.
        s.run(745 - s.tick());
        let at745 = s.note().unwrap_or_default();
        assert!(
            at745.starts_with("Dropped from the script: recover node node-1"),
            "{at745}"
        );
        assert!(
            at745.ends_with("The rest of this step still happens."),
            "{at745}"
        );
        // The export keeps the new captions and loads to the same page.
        let back = Session::from_scenario(&s.scenario()).unwrap();
        assert_eq!(back.note(), s.note());
    }

    #[test]
    fn the_captions_of_a_dropped_actions_consequences_go() {
        // A script with captions at a kubelet stop (tick 3), at its
        // consequence (tick 10, no action of its own) and at a later action.
        let mut doc = scenario::empty(4, &Profile::bin_pack());
        let add = |name: &str| Entry {
            tick: 1,
            action: Action::AddNode {
                name: name.into(),
                cpu: 4000,
                memory_bytes: 4096 << 20,
                labels: Default::default(),
                taints: Vec::new(),
            },
        };
        doc.actions = vec![
            add("a"),
            add("b"),
            Entry {
                tick: 3,
                action: Action::FailNode { node: "a".into() },
            },
            Entry {
                tick: 12,
                action: Action::Cordon { node: "b".into() },
            },
        ];
        let note = |tick: u64, text: &str| Note {
            tick,
            text: text.into(),
        };
        doc.notes = vec![
            note(1, "two nodes"),
            note(3, "a stops"),
            note(10, "a is NotReady"),
            note(12, "b is cordoned"),
        ];
        doc.tick = Some(0);
        let mut s = Session::from_scenario(&doc).unwrap();
        s.run(1);
        s.submit(Action::RemoveNode { node: "a".into() }).unwrap();
        assert!(s.dropped_note().unwrap_or_default().contains("at tick 3"));
        let notes: Vec<(u64, String)> = s
            .scenario()
            .notes
            .into_iter()
            .map(|n| (n.tick, n.text))
            .collect();
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert_eq!(notes[0], (1, "two nodes".to_string()));
        assert_eq!(notes[1].0, 3);
        assert!(
            notes[1]
                .1
                .starts_with("Dropped from the script: fail node a no longer applies"),
            "{notes:?}"
        );
        assert_eq!(notes[2], (12, "b is cordoned".to_string()));
    }

    /// Idle time until the session has no more idle work.
    fn settle(s: &mut Session) {
        let mut calls = 0;
        while s.idle(true) {
            calls += 1;
            assert!(calls < 10_000, "idle work ends");
        }
    }

    #[test]
    fn back_from_the_spare_is_the_replay_from_the_seed() {
        for profile in [Profile::bin_pack(), Profile::kube_scheduler()] {
            let mut s = Session::new(13, profile);
            s.submit(Action::Generate {
                nodes: 120,
                pods_per_node: 15,
            })
            .unwrap();
            s.run(2);
            s.submit(Action::FailNode {
                node: "node-4".into(),
            })
            .unwrap();
            // Past the spare's bounded replay per idle call.
            s.run(SPARE_TICKS_PER_IDLE + 40);
            settle(&mut s);
            assert_eq!(
                s.spare_tick(),
                Some(s.tick() - 1),
                "the spare waits at the tick before now"
            );
            for round in 0..4 {
                s.step_back().unwrap();
                assert_eq!(s.spare_tick(), None, "Back took the spare");
                assert_eq!(
                    seen(&s),
                    seen(&from_seed(&s)),
                    "Back {round} to tick {}",
                    s.tick()
                );
                settle(&mut s);
                assert_eq!(s.spare_tick(), Some(s.tick() - 1));
            }
            // Steps forward: the spare follows, a tick behind.
            s.run(3);
            settle(&mut s);
            assert_eq!(s.spare_tick(), Some(s.tick() - 1));
            // An action queued for the next tick leaves the spare (before now)
            // valid; Back then replays the action's tick from it.
            s.submit(Action::Scale {
                app: s.snapshot(false).apps[0].name.clone(),
                replicas: 2,
            })
            .unwrap();
            s.run(2);
            s.step_back().unwrap();
            assert_eq!(
                seen(&s),
                seen(&from_seed(&s)),
                "Back over the action, tick {}",
                s.tick()
            );
            settle(&mut s);
            s.step_back().unwrap();
            assert_eq!(
                seen(&s),
                seen(&from_seed(&s)),
                "Back to the action's tick {}",
                s.tick()
            );
            // Without prepare_back (the page plays), no spare is made.
            let mut t = Session::new(2, Profile::bin_pack());
            t.submit(Action::Generate {
                nodes: 50,
                pods_per_node: 10,
            })
            .unwrap();
            t.run(5);
            while t.idle(false) {}
            assert_eq!(t.spare_tick(), None);
        }
    }
}
