//! `shepherd rollout status`: what `kubectl rollout status deployment/NAME`
//! prints while Kubernetes manifests roll out, tick by tick (one tick is one
//! second of cluster time).

use shepherd::limits::{quoted, MAX_TICK};
use shepherd::simulator::Simulator;
use shepherd::{Profile, RolloutStatus};
use shepherd_k8s::{import_with, Options};

use crate::manifests::read_input;

struct Args {
    input: String,
    deployment: String,
    at: Option<u64>,
    timeout: u64,
    /// `--namespace NS` / `-n NS`: the Deployment's namespace (default
    /// `default`), as kubectl reads it.
    namespace: String,
    profile: Option<Profile>,
}

const OPTIONS: &[&str] = &[
    "--deployment",
    "--at",
    "--timeout",
    "--namespace",
    "--profile",
];

fn parse(args: &[String]) -> Result<Args, String> {
    match args.first().map(String::as_str) {
        Some("status") => {}
        Some(other) => {
            return Err(format!(
                "unknown rollout command {}; expected status",
                quoted(other)
            ))
        }
        None => return Err("rollout needs a command; expected status".into()),
    }
    let mut input = None;
    let mut seen: Vec<&str> = Vec::new();
    let mut a = Args {
        input: String::new(),
        deployment: String::new(),
        at: None,
        timeout: MAX_TICK,
        namespace: "default".into(),
        profile: None,
    };
    let mut i = 1;
    while i < args.len() {
        // kubectl's short form of --namespace.
        let k = match args[i].as_str() {
            "-n" => "--namespace",
            k => k,
        };
        if !k.starts_with("--") || k == "-" {
            if input.replace(k.to_string()).is_some() {
                return Err(format!(
                    "a second input {}; expected one FILE, DIR or -",
                    quoted(k)
                ));
            }
            i += 1;
            continue;
        }
        let Some(&name) = OPTIONS.iter().find(|o| **o == k) else {
            return Err(format!(
                "unknown option {}; expected one of {}",
                quoted(k),
                OPTIONS.join(", ")
            ));
        };
        if seen.contains(&name) {
            return Err(format!("{name} is given twice; expected it once"));
        }
        seen.push(name);
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("{name} needs a value"))?;
        let ticks = |v: &str, min: u64| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|n| (min..=MAX_TICK).contains(n))
                .ok_or_else(|| {
                    format!(
                        "{name} {} is not valid; expected a whole number of ticks from {min} to {MAX_TICK}",
                        quoted(v)
                    )
                })
        };
        match name {
            "--deployment" => a.deployment = v.clone(),
            "--at" => a.at = Some(ticks(v, 0)?),
            "--timeout" => a.timeout = ticks(v, 1)?,
            "--namespace" => {
                shepherd::namespace::validate_namespace(v)
                    .map_err(|e| format!("--namespace: {e}"))?;
                a.namespace = v.clone()
            }
            "--profile" => a.profile = Some(Profile::named(v).map_err(|e| e.to_string())?),
            _ => unreachable!("every option in OPTIONS is matched"),
        }
        i += 2;
    }
    a.input = input.ok_or("rollout status needs FILE, DIR or - (standard input)")?;
    if a.deployment.is_empty() {
        return Err("rollout status needs --deployment NAME".into());
    }
    Ok(a)
}

/// Prints kubectl's error line and exits with status 1, as kubectl does.
fn kubectl_error(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1)
}

/// `shepherd rollout status FILE|DIR|- --deployment NAME [--at TICK]
/// [--timeout TICKS] [--namespace NS] [--profile NAME]`
///
/// Imports the manifests (every object exists at tick 0), then steps the
/// cluster one tick at a time. Without `--at` it watches as kubectl does:
/// it prints each new status line, ends with `deployment "NAME"
/// successfully rolled out` (status 0) or kubectl's error `deployment
/// "NAME" exceeded its progress deadline` (status 1), or gives up after
/// `--timeout` ticks with kubectl's `timed out waiting for the condition`.
/// With `--at TICK` it prints the one line kubectl would print at that tick
/// (`--watch=false`).
pub fn rollout(args: &[String]) -> Result<(), String> {
    let a = parse(args)?;
    // Every namespace is imported (a namespaceSelector may reach any);
    // the Deployment is looked up in its own, as kubectl does.
    let opts = Options::default();
    let key = shepherd::namespace::qualify(&a.namespace, &a.deployment);
    let text = read_input(&a.input, opts.limits.max_bytes).unwrap_or_else(|e| kubectl_error(&e));
    let imported = import_with(&text, &opts).unwrap_or_else(|e| kubectl_error(&e.to_string()));
    let sc = &imported.scenario;
    if !sc.deployments.iter().any(|d| d.name == key) {
        let names: Vec<&str> = sc
            .deployments
            .iter()
            .filter(|d| shepherd::namespace::split(&d.name).0 == a.namespace)
            .map(|d| shepherd::namespace::split(&d.name).1)
            .collect();
        kubectl_error(&format!(
            "deployments.apps {} not found in namespace {} of the input; expected one of: {}",
            quoted(&a.deployment),
            quoted(&a.namespace),
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
    let profile = a.profile.clone().unwrap_or_else(|| sc.profile_or_default());
    let mut sim = Simulator::new(1, profile);
    sc.apply(sim.cluster_mut())
        .unwrap_or_else(|e| kubectl_error(&e.to_string()));
    let start = sim.tick();
    let status = |sim: &Simulator| -> RolloutStatus {
        sim.cluster()
            .rollout_status(&key)
            .unwrap_or_else(|e| kubectl_error(&e.to_string()))
    };
    if let Some(at) = a.at {
        if at < start {
            return Err(format!(
                "--at {at} is before the scenario's first tick {start} (NotReady nodes are declared after the heartbeat timeout); expected a tick from {start} to {MAX_TICK}"
            ));
        }
        while sim.tick() < at {
            sim.step();
        }
        return match status(&sim) {
            RolloutStatus::DeadlineExceeded(m) => kubectl_error(&m),
            s => {
                println!("{}", s.message());
                Ok(())
            }
        };
    }
    let end = start.saturating_add(a.timeout).min(MAX_TICK);
    let mut last = String::new();
    while sim.tick() < end {
        sim.step();
        match status(&sim) {
            RolloutStatus::DeadlineExceeded(m) => kubectl_error(&m),
            RolloutStatus::RolledOut(m) => {
                println!("{m}");
                return Ok(());
            }
            RolloutStatus::Waiting(m) => {
                if m != last {
                    println!("{m}");
                    last = m;
                }
            }
        }
    }
    kubectl_error("timed out waiting for the condition")
}
