//! WebAssembly facade over the `shepherd` engine: what the page (www/) calls.
//!
//! One opaque handle, [`Shepherd`], owns a simulator and the script of what the
//! person did ([`session::Session`]); only small results cross into JavaScript.
//! No logic lives here: every answer comes from the engine.
//!
//! - Actions (`addNode`, `deploy`, `scale`, `roll`, `failNode`, `drain`,
//!   `addPdb`, ...) go through `Simulator::submit`: checked now, fired at the
//!   next tick. A refused action throws an `Error` with the engine's message
//!   and changes nothing.
//! - Reads: `snapshot(withNodes)` for what the page draws (plain objects),
//!   `nodeGrid()` for large clusters (one `Uint32Array`), `eventsSince(cursor,
//!   limit)` for the event log (`eventsPacked`: the same rows as one string,
//!   what the page draws from; only what Kubernetes' components record, each
//!   with its `source`), `refusedActions(limit)` for scripted actions refused
//!   when they fired (no Event in Kubernetes), `explain(pod)` for every
//!   node's verdict.
//! - Manifests: `importManifests(text)` builds a new session from Kubernetes
//!   manifests (all or nothing, with warnings), `exportManifests()` writes the
//!   cluster back as manifests ([`manifests`]).
//! - Scenarios: `exportScenario()` writes `{version, seed, policy, tick,
//!   actions: [{tick, action}]}`; `Shepherd.fromScenario(json)` replays it;
//!   `stepBack()` replays to the tick before, from the newest kept copy of the
//!   simulator at or before it, else from the seed (`session.rs`).
//!
//! The module layout: [`scenario`] (the document and its conversion to engine
//! events, the tour, the cluster generator), [`input`] (the forms' fields and
//! their checks), [`view`] (what is drawn), [`session`] (the simulator and its
//! script). All of it is plain Rust, tested natively; this file only converts
//! at the boundary.

pub mod autoscale;
pub mod charts;
pub mod check;
pub mod compare;
pub mod delta;
mod import_worker;
pub mod input;
pub mod kubectl;
pub mod manifest_text;
pub mod manifests;
pub mod profile;
pub mod scenario;
pub mod session;
pub mod view;
pub mod whatif;
pub mod workloads;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::input::{
    DeployInput, Field, NodeInput, PdbInput, PriorityClassInput, RollInput, ServiceInput,
};
use crate::scenario::{Action, Scenario};
use crate::session::Session;

/// The most quiet ticks one `skipQuiet` runs: an hour of cluster time.
pub const SKIP_AT_MOST: u64 = 3600;

/// The engine's version (`shepherd::VERSION`).
#[wasm_bindgen]
pub fn engine_version() -> String {
    shepherd::VERSION.into()
}

/// The simulated control plane, as the page holds it.
#[wasm_bindgen]
pub struct Shepherd {
    session: Session,
    /// What `frame` has sent the page (see [`delta`]).
    sent: delta::Sent,
}

fn err(msg: impl AsRef<str>) -> JsError {
    JsError::new(msg.as_ref())
}

fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| err(format!("could not convert the engine's answer: {e}")))
}

/// Reads a form's object; says which form and what it expects when it cannot.
fn from_js<T: DeserializeOwned>(what: &str, v: JsValue, expected: &str) -> Result<T, JsError> {
    if !v.is_object() {
        return Err(err(format!("{what}: expected an object {expected}")));
    }
    serde_wasm_bindgen::from_value(v)
        .map_err(|e| err(format!("{what}: {e}; expected an object {expected}")))
}

/// The event log's update cursor as the page passes it back (a number it
/// was given; anything else reads as 0, which only resends counts).
fn update_cursor(v: Option<f64>) -> u64 {
    match v {
        Some(x) if x.is_finite() && x >= 0.0 => x.min(u64::MAX as f64) as u64,
        _ => 0,
    }
}

fn policy(s: &str) -> Result<shepherd::Profile, JsError> {
    scenario::parse_policy(s).map_err(err)
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen]
impl Shepherd {
    /// An empty cluster at tick 0. `policy`: a named profile,
    /// `default-scheduler`, `binpack` or `leastloaded`.
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64, policy_name: &str) -> Result<Shepherd, JsError> {
        let seed = input::check_seed(seed).map_err(err)?;
        Ok(Shepherd::from_session(Session::new(
            seed,
            policy(policy_name)?,
        )))
    }

    /// The guided tour (the page's `shepherd demo`) at tick 0, its script queued.
    pub fn tour() -> Shepherd {
        Shepherd::from_session(Session::tour())
    }

    /// The largest scenario document `fromScenario` takes, in bytes
    /// (`MAX_DOCUMENT_BYTES`): a link is refused by it before it is
    /// inflated past it.
    #[wasm_bindgen(js_name = maxDocumentBytes)]
    pub fn max_document_bytes() -> usize {
        scenario::MAX_DOCUMENT_BYTES
    }

    /// The largest manifest input `importManifests` reads, in bytes
    /// (`shepherd_k8s::Limits::max_bytes`): a chosen or dropped file past it
    /// is refused from its size, before it is read.
    #[wasm_bindgen(js_name = maxManifestBytes)]
    pub fn max_manifest_bytes() -> usize {
        shepherd_k8s::Limits::default().max_bytes
    }

    /// Replays a scenario document (JSON text) to its tick. Every action is
    /// checked as the forms' actions are (the engine's submit, its limits
    /// included); the first refusal refuses the whole document and names the
    /// action, its tick, the field when it is one, and what was expected.
    #[wasm_bindgen(js_name = fromScenario)]
    pub fn from_scenario(json: &str) -> Result<Shepherd, JsError> {
        if json.len() > scenario::MAX_DOCUMENT_BYTES {
            return Err(err(format!(
                "the scenario is {} bytes, more than the limit of {} (MAX_DOCUMENT_BYTES); expected a smaller document",
                json.len(),
                scenario::MAX_DOCUMENT_BYTES
            )));
        }
        let value = js_sys::JSON::parse(json).map_err(|e| {
            let why = js_sys::Error::from(e).message();
            err(format!(
                "the scenario is not valid JSON ({why}); expected a document exported by this page"
            ))
        })?;
        let s = scenario_from_js(value)?;
        Ok(Shepherd::from_session(
            Session::from_scenario(&s).map_err(err)?,
        ))
    }

    /// Replaces the session with the cluster that Kubernetes manifests
    /// declare (a YAML stream, JSON, or `kind: List`), same seed, at tick 1.
    /// Returns `{summary, nodes, deployments, profile, warnings: [{document,
    /// item, kind, name, path, message, text}]}`. All or nothing: a refusal
    /// throws an Error naming the document, the object and the field path,
    /// and the session is unchanged.
    #[wasm_bindgen(js_name = importManifests)]
    pub fn import_manifests(&mut self, text: &str) -> Result<JsValue, JsError> {
        let (session, report) =
            manifests::import_session(text, self.session.seed()).map_err(err)?;
        let out = to_js(&report)?;
        self.session = session;
        Ok(out)
    }

    /// `kubectl apply -f` of manifests onto the running cluster: queued for
    /// the next tick as an action (`apply`), each object created when its
    /// name is new, else updated (a changed Deployment template rolls,
    /// replicas scale; an immutable field changed is refused). Returns the
    /// import's report as `importManifests` does; a refusal throws and
    /// queues nothing.
    #[wasm_bindgen(js_name = applyManifests)]
    pub fn apply_manifests(&mut self, text: &str) -> Result<JsValue, JsError> {
        let (_, report) = manifests::apply_to_session(&mut self.session, text).map_err(err)?;
        to_js(&report)
    }

    /// The cluster as declared at the current tick, as manifests: `{manifests,
    /// schedulerConfig}` (a YAML stream for `kubectl apply -f`, and the
    /// profile as a KubeSchedulerConfiguration for kube-scheduler's --config).
    #[wasm_bindgen(js_name = exportManifests)]
    pub fn export_manifests(&self) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Out {
            manifests: String,
            scheduler_config: String,
        }
        let (manifests, scheduler_config) =
            manifests::export_session(&self.session).map_err(err)?;
        to_js(&Out {
            manifests,
            scheduler_config,
        })
    }

    /// The cluster as declared at the current tick, as manifests for a KWOK
    /// cluster (`kwokctl create cluster`, then `kubectl apply -f`): fake
    /// nodes KWOK keeps Ready, every pod tolerating their taint, bound pods
    /// on their nodes.
    #[wasm_bindgen(js_name = exportManifestsKwok)]
    pub fn export_manifests_kwok(&self) -> Result<String, JsError> {
        manifests::export_session_kwok(&self.session).map_err(err)
    }

    /// The run so far as a scenario document (JSON text), at the current tick.
    #[wasm_bindgen(js_name = exportScenario)]
    pub fn export_scenario(&self) -> Result<String, JsError> {
        let v = to_js(&self.session.scenario())?;
        js_sys::JSON::stringify(&v)
            .map(String::from)
            .map_err(|_| err("could not write the scenario as JSON"))
    }

    #[wasm_bindgen(getter)]
    pub fn tick(&self) -> f64 {
        self.session.tick() as f64
    }

    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> f64 {
        self.session.seed() as f64
    }

    /// The scheduler profile's name now (`default-scheduler`, `binpack`,
    /// `leastloaded`, or a custom profile's schedulerName).
    #[wasm_bindgen(getter)]
    pub fn policy(&self) -> String {
        self.session.simulator().profile().scheduler_name.clone()
    }

    /// Registered nodes now (the page picks cards or the grid before asking for a frame).
    #[wasm_bindgen(getter, js_name = nodeCount)]
    pub fn node_count(&self) -> u32 {
        self.session.simulator().cluster().node_count() as u32
    }

    /// Actions in the script, fired and still to come.
    #[wasm_bindgen(getter, js_name = actionCount)]
    pub fn action_count(&self) -> u32 {
        self.session.log().len() as u32
    }

    /// What the last accepted action dropped from the script (later queued
    /// actions it made wrong), in words, or `undefined`.
    #[wasm_bindgen(getter, js_name = droppedNote)]
    pub fn dropped_note(&self) -> Option<String> {
        self.session.dropped_note().map(str::to_string)
    }

    /// One tick. Returns the messages of scripted actions that were refused
    /// when they fired (also kept in `refusedActions`; a refused API call
    /// is no Kubernetes Event, so the event log does not hold them).
    pub fn step(&mut self) -> Vec<String> {
        self.session.step()
    }

    /// One tick in slices, so the page can paint between them while a tick
    /// places many pods (an import's or a generated cluster's first tick):
    /// each call runs the tick on until about `budget` units of work (at
    /// least 1: a pod created or deleted counts 1, a pod bound 3, a
    /// Deployment or DaemonSet declared 16, another scripted event 1) were
    /// done, stopping only between two controllers. Returns `undefined` while work remains, else what `step`
    /// returns. The finished tick is exactly the one `step` makes (same
    /// placement, events and random draws). Until it is finished actions
    /// are refused; `step` or `run` finish it at once.
    #[wasm_bindgen(js_name = stepSlice)]
    pub fn step_slice(&mut self, budget: f64) -> Result<Option<Vec<String>>, JsError> {
        let budget = input::whole("budget", budget, 1, u32::MAX as u64).map_err(err)? as u32;
        Ok(self.session.step_slice(budget))
    }

    /// During a tick run in slices: `[bound, pending, expected]`, the pods
    /// it has bound so far, the pods Pending now, and an estimate of the
    /// pods it places in all (at least `bound + pending`; while pods are
    /// still being created, the replicas the Deployments desire less the
    /// pods bound before the tick); `undefined` when no tick is under way.
    #[wasm_bindgen(getter, js_name = stepProgress)]
    pub fn step_progress(&self) -> Option<Vec<u32>> {
        self.session.step_progress().map(|(b, p, e)| vec![b, p, e])
    }

    /// `n` ticks; returns the tick reached.
    pub fn run(&mut self, n: f64) -> Result<f64, JsError> {
        let n = input::whole("ticks", n, 0, scenario::MAX_TICK).map_err(err)?;
        self.session.run(n);
        Ok(self.tick())
    }

    /// Runs the quiet ticks up to the next one in which something happens
    /// (an event, a scripted action), at most [`SKIP_AT_MOST`] of them.
    /// Returns the tick reached.
    #[wasm_bindgen(js_name = skipQuiet)]
    pub fn skip_quiet(&mut self) -> f64 {
        self.session.skip_quiet(SKIP_AT_MOST);
        self.tick()
    }

    /// Back one tick, by replaying the script from the newest kept copy at or
    /// before it (else from the seed). Returns the tick.
    #[wasm_bindgen(js_name = stepBack)]
    pub fn step_back(&mut self) -> Result<f64, JsError> {
        self.session.step_back().map(|t| t as f64).map_err(err)
    }

    /// Work for idle time, a bounded amount per call: frees what Back
    /// replaced, takes the copy of the simulator for Back that a big tick
    /// made due (otherwise the next tick takes it first), and with
    /// `prepareBack` readies the simulator Back will take (see
    /// `session::Checkpoints`). Returns whether work remains.
    pub fn idle(&mut self, prepare_back: bool) -> bool {
        self.session.idle(prepare_back)
    }

    /// The tick of the simulator readied for Back, or `undefined`.
    #[wasm_bindgen(js_name = spareTick)]
    pub fn spare_tick(&self) -> Option<f64> {
        self.session.spare_tick().map(|t| t as f64)
    }

    /// The ticks of the copies of the simulator kept for Back (at most
    /// `session::MAX_CHECKPOINTS`; Back replays from the newest one at or
    /// before the tick it goes to, else from the seed).
    #[wasm_bindgen(js_name = checkpointTicks)]
    pub fn checkpoint_ticks(&self) -> Vec<f64> {
        self.session
            .checkpoint_ticks()
            .into_iter()
            .map(|t| t as f64)
            .collect()
    }

    /// Replays from the seed to `tick` (back or forward).
    #[wasm_bindgen(js_name = seek)]
    pub fn seek(&mut self, tick: f64) -> Result<f64, JsError> {
        let t = input::whole("tick", tick, 0, scenario::MAX_TICK).map_err(err)?;
        if t >= self.session.tick() {
            self.session.run(t - self.session.tick());
        } else {
            self.session.replay_to(t).map_err(err)?;
        }
        Ok(self.tick())
    }

    /// An empty cluster at tick 0 with this seed and policy; the script is dropped.
    pub fn reset(&mut self, seed: f64, policy_name: &str) -> Result<(), JsError> {
        let seed = input::check_seed(seed).map_err(err)?;
        let p = policy(policy_name)?;
        self.session.reset(seed, p);
        Ok(())
    }

    /// Drops the scripted actions that have not fired yet; returns how many.
    #[wasm_bindgen(js_name = discardUpcoming)]
    pub fn discard_upcoming(&mut self) -> Result<u32, JsError> {
        self.session
            .discard_upcoming()
            .map(|n| n as u32)
            .map_err(err)
    }

    // ----- actions: each is checked now and fires at the next tick ----------

    /// Any action in the scenario's form, e.g. `{type: "scale", app: "web", replicas: 3}`.
    pub fn submit(&mut self, action: JsValue) -> Result<String, JsError> {
        let a: Action = from_js(
            "action",
            action,
            "with a type such as addNode, deploy, scale or drain",
        )?;
        self.act(a)
    }

    /// `{name, cpu, memory, labels?, taints?}`: cpu in millicores (or `"500m"`),
    /// memory in bytes (or `"2Gi"`), labels `"k=v,k2=v2"`, taints `"key=value:NoSchedule"`.
    /// A name that is registered is refused (AlreadyExists), as kubectl
    /// refuses it; a new body for it is `reregisterNode`.
    #[wasm_bindgen(js_name = addNode)]
    pub fn add_node(&mut self, spec: JsValue) -> Result<String, JsError> {
        let n: NodeInput = from_js("add node", spec, "{name, cpu, memory, labels?, taints?}")?;
        self.act(n.action().map_err(err)?)
    }

    /// The kubelet of a registered node registers again with a new body, in
    /// `addNode`'s form. The node keeps its state; pods it no longer admits
    /// (nodeSelector no longer matching, an untolerated NoExecute taint, no
    /// room) are released and replaced. NoSchedule taints keep running pods.
    #[wasm_bindgen(js_name = reregisterNode)]
    pub fn reregister_node(&mut self, spec: JsValue) -> Result<String, JsError> {
        let n: NodeInput = from_js(
            "re-register node",
            spec,
            "{name, cpu, memory, labels?, taints?}",
        )?;
        self.act(n.reregistration().map_err(err)?)
    }

    /// `{namespace?, name, replicas, cpu, memory, version?, labels?, nodeSelector?,
    /// toleration?, antiAffinity? ("hostname" | "zone"), maxSurge?, maxUnavailable?}`;
    /// namespace absent or empty: `default` (other actions then name the
    /// Deployment `NAMESPACE/NAME`).
    pub fn deploy(&mut self, spec: JsValue) -> Result<String, JsError> {
        let d: DeployInput = from_js(
            "deploy",
            spec,
            "{namespace?, name, replicas, cpu, memory, version?, labels?, nodeSelector?, toleration?, antiAffinity?, maxSurge?, maxUnavailable?}",
        )?;
        self.act(d.action().map_err(err)?)
    }

    /// Sets spec.replicas: a whole number from 0 to 1,000,000.
    pub fn scale(&mut self, app: &str, replicas: f64) -> Result<String, JsError> {
        let replicas = input::replicas(replicas).map_err(err)?;
        self.act(Action::Scale {
            app: app.into(),
            replicas,
        })
    }

    /// A rolling update to a new template: `{version?, cpu?, memory?}` changed
    /// from the current one.
    pub fn roll(&mut self, app: &str, change: JsValue) -> Result<String, JsError> {
        let r: RollInput = from_js("roll", change, "{version?, cpu?, memory?}")?;
        let current = self.session.template(app).map_err(err)?;
        let template = r.template(app, &current).map_err(err)?;
        self.act(Action::Roll {
            app: app.into(),
            template,
        })
    }

    /// Rolls back to the previous revision.
    pub fn rollback(&mut self, app: &str) -> Result<String, JsError> {
        self.act(Action::Rollback { app: app.into() })
    }

    /// Changes maxSurge and maxUnavailable (numbers, or text such as `"25%"`).
    #[wasm_bindgen(js_name = setStrategy)]
    pub fn set_strategy(
        &mut self,
        app: &str,
        max_surge: JsValue,
        max_unavailable: JsValue,
    ) -> Result<String, JsError> {
        let field = |what: &str, v: JsValue| -> Result<scenario::IntOrString, JsError> {
            let f: Field = serde_wasm_bindgen::from_value(v).map_err(|_| {
                err(format!(
                    "{what}: expected a number such as 1 or a percentage such as \"25%\""
                ))
            })?;
            let ios = match f {
                Field::Num(n) => scenario::IntOrString::Int(
                    input::whole(what, n, 0, u32::MAX as u64).map_err(err)? as u32,
                ),
                Field::Text(s) => scenario::IntOrString::Str(s.trim().into()),
            };
            ios.to_engine().map_err(|e| err(format!("{what}: {e}")))?;
            Ok(ios)
        };
        self.act(Action::SetStrategy {
            app: app.into(),
            max_surge: field("maxSurge", max_surge)?,
            max_unavailable: field("maxUnavailable", max_unavailable)?,
        })
    }

    /// Deletes a Deployment and its pods.
    #[wasm_bindgen(js_name = deleteApp)]
    pub fn delete_app(&mut self, app: &str) -> Result<String, JsError> {
        self.act(Action::DeleteApp { app: app.into() })
    }

    /// Stops a node's kubelet: NotReady after the heartbeat timeout (50 s); its pods are evicted and replaced 300 s later.
    #[wasm_bindgen(js_name = failNode)]
    pub fn fail_node(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::FailNode { node: node.into() })
    }

    /// Restarts a node's kubelet: Ready again at its next heartbeat.
    #[wasm_bindgen(js_name = recoverNode)]
    pub fn recover_node(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::RecoverNode { node: node.into() })
    }

    /// Deregisters a node; its pods are replaced elsewhere.
    #[wasm_bindgen(js_name = removeNode)]
    pub fn remove_node(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::RemoveNode { node: node.into() })
    }

    /// kubectl cordon: no new pods; running pods stay.
    pub fn cordon(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::Cordon { node: node.into() })
    }

    /// kubectl uncordon: schedulable again (also ends a drain).
    pub fn uncordon(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::Uncordon { node: node.into() })
    }

    /// `kubectl drain --ignore-daemonsets --force`: cordon, then evict the
    /// pods on the node now as disruption budgets allow (retried after 5 s).
    pub fn drain(&mut self, node: &str) -> Result<String, JsError> {
        self.act(Action::Drain { node: node.into() })
    }

    /// `{namespace?, name, app? | selector?, minAvailable? | maxUnavailable?}`: a number or a
    /// percentage; it selects the pods of its namespace only.
    #[wasm_bindgen(js_name = addPdb)]
    pub fn add_pdb(&mut self, spec: JsValue) -> Result<String, JsError> {
        let p: PdbInput = from_js(
            "PodDisruptionBudget",
            spec,
            "{namespace?, name, app or selector, minAvailable or maxUnavailable}",
        )?;
        self.act(p.action().map_err(err)?)
    }

    /// `{name, value, globalDefault?, preemptionPolicy?}`: a PriorityClass
    /// (scheduling.k8s.io/v1) that Deployments name in priorityClassName.
    #[wasm_bindgen(js_name = addPriorityClass)]
    pub fn add_priority_class(&mut self, spec: JsValue) -> Result<String, JsError> {
        let p: PriorityClassInput = from_js(
            "PriorityClass",
            spec,
            "{name, value, globalDefault, preemptionPolicy}",
        )?;
        self.act(p.action().map_err(err)?)
    }

    /// Every PriorityClass (the system ones included): `[{name, value,
    /// globalDefault, preemptionPolicy}]`, by name.
    #[wasm_bindgen(js_name = priorityClasses)]
    pub fn priority_classes(&self) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Row {
            name: String,
            value: i32,
            global_default: bool,
            preemption_policy: &'static str,
        }
        let rows: Vec<Row> = self
            .session
            .simulator()
            .cluster()
            .priority_classes()
            .into_iter()
            .map(|c| Row {
                preemption_policy: c.preemption_policy.as_str(),
                name: c.name,
                value: c.value,
                global_default: c.global_default,
            })
            .collect();
        to_js(&rows)
    }

    #[wasm_bindgen(js_name = deletePriorityClass)]
    pub fn delete_priority_class(&mut self, name: &str) -> Result<String, JsError> {
        self.act(Action::DeletePriorityClass { name: name.into() })
    }

    #[wasm_bindgen(js_name = deletePdb)]
    pub fn delete_pdb(&mut self, name: &str) -> Result<String, JsError> {
        self.act(Action::DeletePdb { name: name.into() })
    }

    /// `{namespace?, name, app? | selector?}`: endpoints follow the Ready pods it
    /// selects in its namespace.
    #[wasm_bindgen(js_name = addService)]
    pub fn add_service(&mut self, spec: JsValue) -> Result<String, JsError> {
        let s: ServiceInput = from_js("Service", spec, "{namespace?, name, app or selector}")?;
        self.act(s.action().map_err(err)?)
    }

    #[wasm_bindgen(js_name = deleteService)]
    pub fn delete_service(&mut self, name: &str) -> Result<String, JsError> {
        self.act(Action::DeleteService { name: name.into() })
    }

    /// Creates a DaemonSet from the page's form (`workloads::DaemonSetInput`):
    /// recorded as the scenario's `manifests` action.
    #[wasm_bindgen(js_name = createDaemonSet)]
    pub fn create_daemonset(&mut self, spec: JsValue) -> Result<String, JsError> {
        let d: workloads::DaemonSetInput = from_js(
            "DaemonSet",
            spec,
            "{name, cpu, memory, version?, labels?, nodeSelector?, toleration?, priorityClassName?, hostNetwork?, strategy?, maxUnavailable?, maxSurge?, minReadySeconds?}",
        )?;
        self.act(d.action().map_err(err)?)
    }

    /// Changes a DaemonSet's template or update strategy: `{version?, cpu?,
    /// memory?, strategy?, maxUnavailable?, maxSurge?, minReadySeconds?}`
    /// (the scenario's `updateDaemonSet`).
    #[wasm_bindgen(js_name = updateDaemonSet)]
    pub fn update_daemonset(&mut self, name: &str, change: JsValue) -> Result<String, JsError> {
        let c: workloads::DaemonSetChange = from_js(
            "DaemonSet change",
            change,
            "{version?, cpu?, memory?, strategy?, maxUnavailable?, maxSurge?, minReadySeconds?}",
        )?;
        let current = self
            .session
            .simulator()
            .cluster()
            .daemonset_spec(name)
            .map_err(|e| err(e.to_string()))?
            .clone();
        self.act(c.action(&current).map_err(err)?)
    }

    #[wasm_bindgen(js_name = deleteDaemonSet)]
    pub fn delete_daemonset(&mut self, name: &str) -> Result<String, JsError> {
        self.act(Action::DeleteDaemonSet { name: name.into() })
    }

    /// Creates a bare Pod from the page's form (`workloads::PodInput`):
    /// recorded as the scenario's `manifests` action.
    #[wasm_bindgen(js_name = createPod)]
    pub fn create_pod(&mut self, spec: JsValue) -> Result<String, JsError> {
        let p: workloads::PodInput = from_js(
            "Pod",
            spec,
            "{name, cpu, memory, labels?, nodeName?, priorityClassName?}",
        )?;
        self.act(p.action().map_err(err)?)
    }

    #[wasm_bindgen(js_name = deletePod)]
    pub fn delete_pod(&mut self, name: &str) -> Result<String, JsError> {
        self.act(Action::DeletePod { name: name.into() })
    }

    /// The eviction call for one pod (refused when a budget allows no disruption).
    pub fn evict(&mut self, pod: &str) -> Result<String, JsError> {
        self.act(Action::Evict { pod: pod.into() })
    }

    /// A named profile (`default-scheduler`, `binpack`, `leastloaded`), from the next tick.
    #[wasm_bindgen(js_name = setPolicy)]
    pub fn set_policy(&mut self, policy_name: &str) -> Result<String, JsError> {
        policy(policy_name)?;
        self.act(Action::SetPolicy {
            policy: policy_name.into(),
        })
    }

    /// The scheduler profile now, as a KubeSchedulerConfiguration-shaped
    /// object (what `setProfile` takes).
    #[wasm_bindgen(getter)]
    pub fn profile(&self) -> Result<JsValue, JsError> {
        to_js(&profile::ProfileDoc::from_engine(
            self.session.simulator().profile(),
        ))
    }

    /// Switches to a profile given in full, from the next tick. Refused with
    /// the field that is wrong (an unknown plugin, a weight outside 1 to 100,
    /// a strategy without its shape).
    #[wasm_bindgen(js_name = setProfile)]
    pub fn set_profile(&mut self, doc: JsValue) -> Result<String, JsError> {
        let doc: profile::ProfileDoc = from_js(
            "profile",
            doc,
            "{schedulerName, plugins: {filter, score: [{name, weight}]}, scoringStrategy: {type, resources}}",
        )?;
        doc.to_engine().map_err(err)?;
        self.act(Action::SetProfile { profile: doc })
    }

    /// Queues a generated cluster: `nodes` nodes and ten Deployments with
    /// `nodes * podsPerNode` pods (see `scenario::generate`).
    pub fn generate(&mut self, nodes: f64, pods_per_node: f64) -> Result<String, JsError> {
        let nodes = input::whole("nodes", nodes, 1, scenario::MAX_GENERATED_NODES as u64)
            .map_err(err)? as u32;
        let pods_per_node = input::whole(
            "pods per node",
            pods_per_node,
            0,
            scenario::MAX_PODS_PER_NODE as u64,
        )
        .map_err(err)? as u32;
        self.act(Action::Generate {
            nodes,
            pods_per_node,
        })
    }

    // ----- reads -------------------------------------------------------------

    /// What the page draws. With `withNodes`, every node with its pods (for
    /// cards); without, only the totals (draw the grid from `nodeGrid`).
    pub fn snapshot(&self, with_nodes: bool) -> Result<JsValue, JsError> {
        to_js(&self.session.snapshot(with_nodes))
    }

    /// What changed since the last frame (see `delta.rs`): `{full, header,
    /// nodes?, apps?, pending?, pdbs?, services?, upcoming?, gridLen,
    /// gridChanged, gridValues}`. `header` holds `snapshot`'s scalar fields;
    /// a list is present only when it changed (`apps`, `services` and
    /// `nodes` as `{len, rows: [[index, row]]}`, the others whole); the grid
    /// as the indices of the changed cells (`Uint32Array`) and their
    /// `gridStride` numbers each. With `withNodes`, node cards too. With
    /// `full` (or on the first call) everything, as if nothing had been sent.
    /// The page must apply every frame it asks for.
    pub fn frame(&mut self, with_nodes: bool, full: bool) -> Result<js_sys::Object, JsError> {
        if full {
            self.sent.restart();
        }
        let snap = self.session.snapshot(false);
        let f = self.sent.frame(self.session.simulator(), snap, with_nodes);
        let o: js_sys::Object = to_js(&f)?.into();
        let set = |k: &str, v: &JsValue| {
            js_sys::Reflect::set(&o, &JsValue::from_str(k), v)
                .map(|_| ())
                .map_err(|_| err("could not build the frame object"))
        };
        set("gridLen", &JsValue::from_f64(f.grid_len as f64))?;
        set(
            "gridChanged",
            &js_sys::Uint32Array::from(&f.grid_changed[..]).into(),
        )?;
        set(
            "gridValues",
            &js_sys::Uint32Array::from(&f.grid_values[..]).into(),
        )?;
        Ok(o)
    }

    /// Every node as `gridStride` numbers: `[id, cpuUsed, cpuCapacity,
    /// memoryUsed, memoryCapacity, pods, flags]`; flags: 1 Ready, 2 kubelet
    /// beating, 4 cordoned, 8 draining, 16 tainted.
    #[wasm_bindgen(js_name = nodeGrid)]
    pub fn node_grid(&self) -> Vec<u32> {
        self.session.grid()
    }

    #[wasm_bindgen(js_name = gridStride)]
    pub fn grid_stride() -> u32 {
        view::GRID_STRIDE as u32
    }

    /// One node with its pods, by id (from `nodeGrid`).
    pub fn node(&self, id: u32) -> Result<JsValue, JsError> {
        to_js(&self.session.node(id).map_err(err)?)
    }

    /// A node's id, by name.
    #[wasm_bindgen(js_name = nodeId)]
    pub fn node_id(&self, name: &str) -> Result<u32, JsError> {
        self.session.node_id(name).map_err(err)
    }

    /// The scripted actions refused when they fired in this run so far
    /// (a replay's included), oldest first, at most `limit`: `[{tick,
    /// message}]`, the message "what: why".
    #[wasm_bindgen(js_name = refusedActions)]
    pub fn refused_actions(&self, limit: u32) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Refused<'a> {
            tick: u64,
            message: &'a str,
        }
        let list: Vec<Refused> = (self.session.simulator().refused().iter())
            .take(limit as usize)
            .map(|(tick, message)| Refused {
                tick: *tick,
                message,
            })
            .collect();
        to_js(&list)
    }

    /// Events after `cursor` (0: from the start), at most `limit`, oldest
    /// first, after the earlier ones whose count moved since `updates`
    /// (0 when not given): `{cursor, updates, skipped, updated, events:
    /// [{index, tick, type, reason, object, message, count, lastTick, source}]}`.
    #[wasm_bindgen(js_name = eventsSince)]
    pub fn events_since(
        &self,
        cursor: u32,
        limit: u32,
        updates: Option<f64>,
    ) -> Result<JsValue, JsError> {
        to_js(
            &self
                .session
                .events_since(cursor, update_cursor(updates), limit),
        )
    }

    /// The same events as `eventsSince`, packed into one string for the
    /// event log (see `delta.rs`, `PackedEvents`): `{cursor, updates,
    /// skipped, updated, count, text}`, rows oldest first separated by
    /// U+001E, each row's `index`, `tick`, `type`, `reason`, `object`,
    /// `message`, `count`, `lastTick` and `source` separated by U+001F.
    #[wasm_bindgen(js_name = eventsPacked)]
    pub fn events_packed(
        &self,
        cursor: u32,
        limit: u32,
        updates: Option<f64>,
    ) -> Result<JsValue, JsError> {
        to_js(&delta::events_packed(
            self.session.simulator().cluster(),
            cursor,
            update_cursor(updates),
            limit,
        ))
    }

    /// One kubectl command typed into the prompt (shepherd_k8s::kubectl):
    /// a read gives `{text, offset, rows, total}` for rows `offset..` (at
    /// most `limit`); a change queues the script's actions, as the forms
    /// do, and gives `{text, error, changed: true, queued}`. `stdin` is
    /// what `apply -f -` reads. Throws kubectl's error text.
    pub fn kubectl(
        &mut self,
        line: &str,
        stdin: Option<String>,
        offset: f64,
        limit: f64,
    ) -> Result<JsValue, JsError> {
        let page = shepherd_k8s::kubectl::Page {
            offset: update_cursor(Some(offset)).min(usize::MAX as u64) as usize,
            limit: update_cursor(Some(limit)).clamp(1, 100_000) as usize,
        };
        let a = kubectl::run_line(&mut self.session, line, stdin.as_deref(), page).map_err(err)?;
        to_js(&a)
    }

    /// Completions of the typed line's last word: verbs, resource types,
    /// flags, and the names of objects of the type given.
    #[wasm_bindgen(js_name = kubectlComplete)]
    pub fn kubectl_complete(&self, line: &str) -> Vec<String> {
        shepherd_k8s::kubectl::complete(self.session.simulator().cluster(), line)
    }

    /// Why a pod is where it is, or why it is not anywhere: every node's
    /// filter verdict (plugin, status `code` and reason), the score plugins
    /// whose PreScore skipped (`skipped`) and the score of each feasible one.
    pub fn explain(&self, pod: &str) -> Result<JsValue, JsError> {
        to_js(&self.session.explain(pod).map_err(err)?)
    }

    /// Whether Cluster Autoscaler runs over node groups (the page shows
    /// them, and the nodes and cost charts, only then).
    #[wasm_bindgen(getter, js_name = hasNodeGroups)]
    pub fn has_node_groups(&self) -> bool {
        self.session.simulator().autoscaler().is_some()
    }

    /// Cluster Autoscaler now (docs/autoscaling.md), or null without node
    /// groups: `{groups: [{name, min, max, current, upcoming, ready,
    /// template, pricePerHour}], expander, scanInterval,
    /// provisioningDelay, costPerHour, unpricedNodes, loops, scaleUps,
    /// scaleDowns (newest first, at most 20), scaleUpCount,
    /// scaleDownCount}`.
    pub fn autoscale(&self) -> Result<JsValue, JsError> {
        match autoscale::view(self.session.simulator()) {
            Some(v) => to_js(&v),
            None => Ok(JsValue::NULL),
        }
    }

    /// What Cluster Autoscaler did about one pod, for its explain dialog:
    /// `{summary, scaleUp (null, or the scale-up made for it), noScaleUp:
    /// [{group, reason}]}`, or null without node groups.
    /// The node groups and Cluster Autoscaler's options as the form edits
    /// them (`autoscale::AutoscalerDoc`): the autoscaler running now, or
    /// none and CA's defaults.
    #[wasm_bindgen(getter, js_name = autoscalerDoc)]
    pub fn autoscaler_doc(&self) -> Result<JsValue, JsError> {
        to_js(&autoscale::doc(self.session.simulator()))
    }

    /// Restarts Cluster Autoscaler over the form's node groups and options
    /// at the next tick. Refused with the field that is wrong ("node group
    /// 2 (c5.xlarge): max ..."), nothing changed.
    #[wasm_bindgen(js_name = setAutoscaler)]
    pub fn set_autoscaler(&mut self, doc: JsValue) -> Result<String, JsError> {
        let doc: autoscale::AutoscalerDoc = from_js(
            "node groups",
            doc,
            "{groups: [{name, cpu, memory, min, max, ...}], options: {expander, scanInterval, ...}}",
        )?;
        // The script keeps the form as the engine reads it back.
        let cfg = doc.to_engine().map_err(err)?;
        let n = cfg.groups.len();
        let doc = autoscale::AutoscalerDoc::from_engine(&cfg, cfg.members.clone());
        self.act(Action::SetAutoscaler {
            autoscaler: Box::new(doc),
        })?;
        Ok(format!(
            "Cluster Autoscaler restarts over {n} node group{} from this tick",
            if n == 1 { "" } else { "s" }
        ))
    }

    #[wasm_bindgen(js_name = autoscaleFor)]
    pub fn autoscale_for(&self, pod: &str) -> Result<JsValue, JsError> {
        match autoscale::for_pod(self.session.simulator(), pod) {
            Some(v) => to_js(&v),
            None => Ok(JsValue::NULL),
        }
    }

    /// The scheduling cycle that bound a pod, as of its bind: `{tick,
    /// explain}` (`explain` shaped as [`Sim::explain`]'s answer), or null
    /// for a pod that is not bound or that its kubelet took by
    /// spec.nodeName.
    #[wasm_bindgen(js_name = explainDecision)]
    pub fn explain_decision(&self, pod: &str) -> Result<JsValue, JsError> {
        #[derive(serde::Serialize)]
        struct Decision {
            tick: u64,
            explain: view::ExplainView,
        }
        match self.session.explain_decision(pod).map_err(err)? {
            Some((tick, explain)) => to_js(&Decision { tick, explain }),
            None => Ok(JsValue::NULL),
        }
    }

    /// The cluster's balance now, as a plain object: per resource (`cpu`,
    /// `memory`, `pods`) `{nodes, requested, allocatable, overall, histogram
    /// (10 buckets), min, max, mean, stdDev, inUse, empty}` over the Ready
    /// nodes, plus `readyNodes`, `notReadyNodes`, `nodesWithPods`, `pending`
    /// and `fragmentation` (`null`, or `{app, cpuMillis, memoryBytes,
    /// fitOnNodes, fitPooled, stranded}` for the largest Pending pod). The
    /// README defines each figure.
    pub fn balance(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.balance())
    }

    /// The per-tick figures from tick `from` to the current tick, as typed
    /// arrays (index 0 is tick `from`): `{from, cpuRequested, cpuAllocatable,
    /// memoryRequested, memoryAllocatable}` (`Float64Array`s: millicores and
    /// bytes over the Ready nodes), `{pending, notReady, nodes}`
    /// (`Uint32Array`s) and `costPerHour` (`Float64Array`, dollars: the
    /// priced nodes of the node groups, 0 without).
    /// Recorded as ticks run, so asking costs only the ticks asked for: a
    /// chart keeps what it has and asks from the tick after it.
    pub fn series(&self, from: f64) -> Result<js_sys::Object, JsError> {
        let s = self.session.series();
        let from = input::whole("from", from, 0, scenario::MAX_TICK).map_err(err)? as usize;
        let from = from.min(s.len());
        let o = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            js_sys::Reflect::set(&o, &JsValue::from_str(k), v)
                .map(|_| ())
                .map_err(|_| err("could not build the series object"))
        };
        set("from", &JsValue::from_f64(from as f64))?;
        for (k, v) in [
            ("cpuRequested", &s.cpu_requested),
            ("cpuAllocatable", &s.cpu_allocatable),
            ("memoryRequested", &s.memory_requested),
            ("memoryAllocatable", &s.memory_allocatable),
        ] {
            set(k, &js_sys::Float64Array::from(&v[from..]).into())?;
        }
        set(
            "pending",
            &js_sys::Uint32Array::from(&s.pending[from..]).into(),
        )?;
        set(
            "notReady",
            &js_sys::Uint32Array::from(&s.not_ready[from..]).into(),
        )?;
        set("nodes", &js_sys::Uint32Array::from(&s.nodes[from..]).into())?;
        set(
            "costPerHour",
            &js_sys::Float64Array::from(&s.cost_per_hour[from..]).into(),
        )?;
        Ok(o)
    }

    /// Ready pods per Deployment, as the changes recorded from tick `from`
    /// on: `{from, namesFrom, names, tick, slot, ready}`. Slots number the
    /// Deployments in the order first seen; `names` holds the names of slots
    /// `namesFrom` on (a page that holds the first names asks for the rest).
    /// The three `Uint32Array`s list, in tick order, each tick a
    /// Deployment's ready count differed from the tick before (or it first
    /// appeared), with 4294967295 from the tick it was deleted. Slots first
    /// seen after a step back's tick are forgotten, as those ticks are.
    #[wasm_bindgen(js_name = readySeries)]
    pub fn ready_series(&self, from: f64, names_from: u32) -> Result<js_sys::Object, JsError> {
        let r = &self.session.series().ready;
        let from = input::whole("from", from, 0, scenario::MAX_TICK).map_err(err)?;
        let i = r.changes_from(from as u32);
        let o = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            js_sys::Reflect::set(&o, &JsValue::from_str(k), v)
                .map(|_| ())
                .map_err(|_| err("could not build the series object"))
        };
        set("from", &JsValue::from_f64(from as f64))?;
        let names_from = (names_from as usize).min(r.names.len());
        set("namesFrom", &JsValue::from_f64(names_from as f64))?;
        let names = js_sys::Array::new();
        for n in &r.names[names_from..] {
            names.push(&JsValue::from_str(n));
        }
        set("names", &names.into())?;
        set("tick", &js_sys::Uint32Array::from(&r.ticks[i..]).into())?;
        set("slot", &js_sys::Uint32Array::from(&r.slots[i..]).into())?;
        set("ready", &js_sys::Uint32Array::from(&r.values[i..]).into())?;
        Ok(o)
    }

    /// The distinct values of node label `key` over the registered nodes,
    /// sorted (for the page's zone select: `labelValues(
    /// "topology.kubernetes.io/zone")`). One pass over the nodes, no pod read.
    #[wasm_bindgen(js_name = labelValues)]
    pub fn label_values(&self, key: &str) -> Vec<String> {
        self.session.label_values(key)
    }

    /// An app's current pod template, in the scenario's form.
    pub fn template(&self, app: &str) -> Result<JsValue, JsError> {
        let t = self.session.template(app).map_err(err)?;
        to_js(&scenario::TemplateDoc::from_engine(&t))
    }

    /// kubectl taint nodes NODE key=value:Effect (`NoSchedule`,
    /// `PreferNoSchedule` or `NoExecute`). A NoExecute taint evicts the pods
    /// that do not tolerate it at once, and those that tolerate it with
    /// tolerationSeconds after that many ticks.
    #[wasm_bindgen(js_name = taintNode)]
    pub fn taint_node(
        &mut self,
        node: &str,
        key: &str,
        value: &str,
        effect: &str,
    ) -> Result<String, JsError> {
        self.act(Action::TaintNode {
            node: node.into(),
            taint: scenario::TaintDoc {
                key: key.into(),
                value: value.into(),
                effect: effect.into(),
            },
        })
    }

    /// kubectl taint nodes NODE key:Effect- (every effect of the key when
    /// `effect` is absent or empty).
    #[wasm_bindgen(js_name = untaintNode)]
    pub fn untaint_node(
        &mut self,
        node: &str,
        key: &str,
        effect: Option<String>,
    ) -> Result<String, JsError> {
        self.act(Action::UntaintNode {
            node: node.into(),
            key: key.into(),
            effect: effect.filter(|e| !e.is_empty()),
        })
    }

    /// A zone failure: every node whose label `key` (default
    /// `topology.kubernetes.io/zone`) has `value` stops heart-beating.
    /// What if: `[{type: 'drain' | 'failZone' | 'failNode' | 'scale' |
    /// 'cordon' | 'deleteNode', node?, zone?, deployment?, replicas?}]` in
    /// order on a copy of the cluster at this tick, run until it settles;
    /// the Before/After as `shepherd whatif --output json` gives it
    /// ([`whatif`]). The run is not changed.
    #[wasm_bindgen(js_name = whatIf)]
    pub fn what_if(&self, steps: JsValue) -> Result<JsValue, JsError> {
        const EXPECTED: &str = "an array of actions [{type: drain|failZone|failNode|scale|cordon|deleteNode, with node, zone, or deployment and replicas}]";
        if !js_sys::Array::is_array(&steps) {
            return Err(err(format!("what-if: expected {EXPECTED}")));
        }
        let steps: Vec<whatif::Step> = serde_wasm_bindgen::from_value(steps)
            .map_err(|e| err(format!("what-if: {e}; expected {EXPECTED}")))?;
        to_js(&self.session.what_if(&steps).map_err(err)?)
    }

    #[wasm_bindgen(js_name = failZone)]
    pub fn fail_zone(&mut self, value: &str, key: Option<String>) -> Result<String, JsError> {
        self.act(Action::FailZone {
            key: key
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| "topology.kubernetes.io/zone".into()),
            value: value.into(),
        })
    }
}

/// A cpu or memory field as typed, read as Kubernetes reads a quantity:
/// `{value, exact, said}` with value in millicores (cpu) or bytes (memory), e.g.
/// `readQuantity("cpu", "1.5")` is `{value: 1500, exact: true, said: "1.5 CPU (1500m)"}`.
/// Throws the message the form would show.
#[wasm_bindgen(js_name = readQuantity)]
pub fn read_quantity(resource: &str, text: &str) -> Result<JsValue, JsError> {
    to_js(&input::read_quantity(resource, text).map_err(err)?)
}

/// Rust-only helpers (and what the tests use).
impl Shepherd {
    pub fn from_session(session: Session) -> Shepherd {
        Shepherd {
            session,
            sent: delta::Sent::default(),
        }
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    fn act(&mut self, a: Action) -> Result<String, JsError> {
        self.session.submit(a).map_err(err)
    }
}

/// Reads a parsed scenario; on a bad field, says which action, which field,
/// what it held and what was expected.
fn scenario_from_js(value: JsValue) -> Result<Scenario, JsError> {
    if !value.is_object() || js_sys::Array::is_array(&value) {
        return Err(err("the scenario is not an object; expected {version, seed, policy, tick, actions: [{tick, action}]}"));
    }
    upgrade_v1(&value);
    let de = serde_wasm_bindgen::Deserializer::from(value.clone());
    serde_path_to_error::deserialize::<_, Scenario>(de).map_err(|e| {
        let path = e.path().to_string();
        // What can be read of the action the path names, for the message.
        let (tick, kind, fields) = action_head(&value, &path);
        err(scenario::import_error(
            &path,
            &e.inner().to_string(),
            tick,
            kind.as_deref(),
            &fields,
        ))
    })
}

/// Upgrades a version-1 scenario (as `JSON.parse` gave it, so ours to
/// change) to version 2 in place: each action's `memory` and
/// `template.memory`, whole MiB in version 1, become `memoryBytes` (times
/// 2^20, exact in a JavaScript number up to 2^33 MiB, far past the engine's
/// 1Pi). A value that is not a whole number from 0 moves as it is, so the
/// refusal names `memoryBytes` and what was written. Anything else is left
/// for the reader.
fn upgrade_v1(doc: &JsValue) {
    use js_sys::Reflect;
    let get = |o: &JsValue, k: &str| Reflect::get(o, &JsValue::from_str(k)).ok();
    if get(doc, "version").and_then(|v| v.as_f64()) != Some(1.0) {
        return;
    }
    let set = |o: &JsValue, k: &str, v: &JsValue| {
        let _ = Reflect::set(o, &JsValue::from_str(k), v);
    };
    set(doc, "version", &JsValue::from(scenario::SCENARIO_VERSION));
    let mib_to_bytes = |o: &JsValue| {
        if !o.is_object() || !Reflect::has(o, &JsValue::from_str("memory")).unwrap_or(false) {
            return;
        }
        let Some(v) = get(o, "memory") else { return };
        let bytes = match v.as_f64() {
            Some(mib) if mib >= 0.0 && mib.fract() == 0.0 => {
                JsValue::from_f64(mib * shepherd::quantity::MIB as f64)
            }
            _ => v,
        };
        let _ = Reflect::delete_property(
            &js_sys::Object::from(o.clone()),
            &JsValue::from_str("memory"),
        );
        set(o, "memoryBytes", &bytes);
    };
    let Some(actions) = get(doc, "actions").filter(js_sys::Array::is_array) else {
        return;
    };
    for e in js_sys::Array::from(&actions).iter() {
        let Some(a) = get(&e, "action").filter(JsValue::is_object) else {
            continue;
        };
        mib_to_bytes(&a);
        if let Some(t) = get(&a, "template") {
            mib_to_bytes(&t);
        }
    }
}

type RawFields = Vec<(String, scenario::RawValue)>;

/// The scalar fields of a JavaScript object, two levels deep (`cpu`,
/// `template.cpu`), for finding the field an error is about.
fn raw_fields(v: &JsValue, prefix: &str, depth: u32, out: &mut RawFields) {
    if depth > 2 || !v.is_object() || js_sys::Array::is_array(v) {
        return;
    }
    let obj = js_sys::Object::from(v.clone());
    for key in js_sys::Object::keys(&obj).iter() {
        let Some(k) = key.as_string() else { continue };
        let Ok(x) = js_sys::Reflect::get(v, &key) else {
            continue;
        };
        let path = format!("{prefix}{k}");
        if let Some(t) = x.as_string() {
            out.push((path, scenario::RawValue::Text(t)));
        } else if let Some(n) = x.as_f64() {
            out.push((path, scenario::RawValue::Number(n)));
        } else {
            raw_fields(&x, &format!("{path}."), depth + 1, out);
        }
    }
}

/// The tick, the type and the scalar fields of the action a path such as
/// `actions[2].action.cpu` names.
fn action_head(doc: &JsValue, path: &str) -> (Option<u64>, Option<String>, RawFields) {
    let Some(i) = path
        .strip_prefix("actions[")
        .and_then(|r| r.split_once(']'))
        .and_then(|(i, _)| i.parse::<u32>().ok())
    else {
        return (None, None, Vec::new());
    };
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).ok();
    let entry = get(doc, "actions")
        .filter(js_sys::Array::is_array)
        .map(|a| js_sys::Array::from(&a).get(i));
    let Some(entry) = entry.filter(|e| e.is_object()) else {
        return (None, None, Vec::new());
    };
    let tick = get(&entry, "tick")
        .and_then(|t| t.as_f64())
        .filter(|t| t.fract() == 0.0 && *t >= 0.0 && *t <= u64::MAX as f64)
        .map(|t| t as u64);
    let action = get(&entry, "action").filter(|a| a.is_object());
    let kind = action
        .as_ref()
        .and_then(|a| get(a, "type"))
        .and_then(|t| t.as_string());
    let mut fields = Vec::new();
    if let Some(a) = &action {
        raw_fields(a, "", 1, &mut fields);
    }
    (tick, kind, fields)
}
