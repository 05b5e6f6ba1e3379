//! `shepherd whatif`: actions on the cluster a manifest describes, answered
//! as a before/after diff (the engine's `shepherd::whatif`).

use std::time::Instant;

use shepherd::quantity::format_memory_bytes;
use shepherd::whatif::{what_if, Action, NodeState, WhatIf, ZoneUse};
use shepherd::Profile;
use shepherd_k8s::{import_checked, import_with, Options};

use crate::manifests::{converge_until_ready, read_input};

/// Rows a text section shows before "... and N more".
const ROWS: usize = 40;

const FLAGS: &str = "--drain, --fail-zone, --fail-node, --scale, --apply, --cordon, --delete-node, --namespace, --output, --profile";

/// What the command line says.
struct Parsed {
    input: Option<String>,
    /// The actions as (flag, value), in order.
    steps: Vec<(String, String)>,
    json: bool,
    profile: Option<Profile>,
    /// `--namespace NS` (`-n NS`): the report's namespace.
    namespace: Option<String>,
}

fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut input = None;
    let mut steps = Vec::new();
    let mut json = false;
    let mut profile = None;
    let mut namespace: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if !a.starts_with('-') || a == "-" {
            if let Some(first) = input.replace(a.to_string()) {
                return Err(format!(
                    "a second input {} after {}; expected one FILE, DIR or - (an action's value follows its flag: --drain NODE)",
                    shepherd::limits::quoted(a),
                    shepherd::limits::quoted(&first)
                ));
            }
            i += 1;
            continue;
        }
        let Some(v) = args.get(i + 1) else {
            return Err(format!("{a} needs a value; expected {}", expected(a)));
        };
        match a {
            "--drain" | "--fail-zone" | "--fail-node" | "--scale" | "--apply" | "--cordon"
            | "--delete-node" => {
                if v.is_empty() || v.starts_with("--") {
                    return Err(format!(
                        "{a} {} is not valid; expected {}",
                        shepherd::limits::quoted(v),
                        expected(a)
                    ));
                }
                steps.push((a.to_string(), v.clone()));
            }
            "--output" | "-o" => match v.as_str() {
                "json" => json = true,
                "text" => json = false,
                other => {
                    return Err(format!(
                        "--output {} is not valid; expected json or text",
                        shepherd::limits::quoted(other)
                    ))
                }
            },
            "--profile" | "--policy" => {
                profile = Some(Profile::named(v).map_err(|e| format!("{a}: {e}"))?)
            }
            "--namespace" | "-n" => {
                shepherd::namespace::validate_namespace(v).map_err(|e| {
                    format!(
                        "{a} {}: {e}; expected {}",
                        shepherd::limits::quoted(v),
                        expected(a)
                    )
                })?;
                if let Some(first) = namespace.replace(v.clone()) {
                    if &first != v {
                        return Err(format!(
                            "{a} {} after --namespace {}; expected one namespace",
                            shepherd::limits::quoted(v),
                            shepherd::limits::quoted(&first)
                        ));
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown option {}; expected one of {FLAGS}",
                    shepherd::limits::quoted(other)
                ))
            }
        }
        i += 2;
    }
    Ok(Parsed {
        input,
        steps,
        json,
        profile,
        namespace,
    })
}

fn expected(flag: &str) -> &'static str {
    match flag {
        "--drain" | "--fail-node" | "--cordon" | "--delete-node" => "a node name",
        "--fail-zone" => "a value of the label topology.kubernetes.io/zone",
        "--scale" => "NS/NAME=N: a Deployment (NAME alone: in --namespace, else in default) and its new replica count, e.g. default/web=6",
        "--apply" => "a file or folder of manifests, or - (standard input)",
        "--output" => "json or text",
        "--profile" => "default-scheduler, binpack or leastloaded",
        "--namespace" | "-n" => "a namespace (a DNS-1123 label), e.g. kube-system",
        _ => "a value",
    }
}

/// `NS/NAME=N` → (the engine's key: NAME in default, else NS/NAME; N). A
/// NAME alone is in `namespace` (`--namespace`, as `kubectl -n NS scale`),
/// else in default.
fn scale_value(v: &str, namespace: Option<&str>) -> Result<(String, u32), String> {
    let bad = |why: &str| {
        format!(
            "--scale {} is not valid ({why}); expected {}",
            shepherd::limits::quoted(v),
            expected("--scale")
        )
    };
    let (name, n) = v.rsplit_once('=').ok_or_else(|| bad("no '='"))?;
    let max = shepherd::model::MAX_REPLICAS;
    let n: u32 = n.parse().ok().filter(|n| *n <= max).ok_or_else(|| {
        bad(&format!(
            "the replica count is not a whole number from 0 to {max}"
        ))
    })?;
    let key = match name.split_once('/') {
        Some((ns, rest)) => {
            shepherd::namespace::validate_namespace(ns)
                .map_err(|e| bad(&format!("the namespace: {e}")))?;
            if rest.is_empty() || rest.contains('/') {
                return Err(bad("the name after the namespace is empty or has a '/'"));
            }
            shepherd::namespace::qualify(ns, rest)
        }
        None if name.is_empty() => return Err(bad("no Deployment name")),
        None => shepherd::namespace::qualify(namespace.unwrap_or(""), name),
    };
    Ok((key, n))
}

/// `shepherd whatif FILE|DIR|- [--drain NODE]... [--fail-zone ZONE] [--fail-node NODE]...
/// [--scale NS/NAME=N]... [--apply FILE]... [--cordon NODE]... [--delete-node NODE]...
/// [--namespace NS] [--output json] [--profile NAME]`
pub fn whatif(args: &[String]) -> Result<(), crate::Failure> {
    let Parsed {
        input,
        steps,
        json,
        profile,
        namespace,
    } = parse(args)?;
    let Some(input) = input else {
        return Err("whatif needs FILE, DIR or - (standard input): the cluster, as kubectl get -A -o yaml prints it".to_string().into());
    };
    if steps.is_empty() {
        return Err("whatif needs at least one action; expected one or more of --drain NODE, --fail-zone ZONE, --fail-node NODE, --scale NS/NAME=N, --apply FILE, --cordon NODE, --delete-node NODE"
            .to_string()
            .into());
    }
    if steps
        .iter()
        .filter(|(f, v)| f == "--apply" && v == "-")
        .count()
        + usize::from(input == "-")
        > 1
    {
        return Err("standard input (-) is named twice; expected it at most once (the input or one --apply)".to_string().into());
    }
    // Values first (exit 2 before anything is read).
    let mut scales = Vec::new();
    for (f, v) in &steps {
        if f == "--scale" {
            scales.push(scale_value(v, namespace.as_deref())?);
        }
    }
    let opts = Options::default();
    let text = read_input(&input, opts.limits.max_bytes).map_err(crate::run_failed)?;
    let t = Instant::now();
    // The cluster the import's check built is the run's: built once. Every
    // namespace is imported (the actions act on the whole cluster);
    // --namespace restricts the report only.
    let (imported, mut cluster) = import_checked(&text, &opts, &mut |_| {})
        .map_err(|e| crate::run_failed(format!("{input}: {e}")))?;
    drop(text);
    let profile = profile.unwrap_or_else(|| imported.scenario.profile_or_default());
    converge_until_ready(&mut cluster, &imported.scenario, &profile);
    let converge_time = t.elapsed();

    let mut actions = Vec::with_capacity(steps.len());
    let mut scales = scales.into_iter();
    for (f, v) in &steps {
        actions.push(match f.as_str() {
            "--drain" => Action::Drain(v.clone()),
            "--fail-zone" => Action::FailZone(v.clone()),
            "--fail-node" => Action::FailNode(v.clone()),
            "--cordon" => Action::Cordon(v.clone()),
            "--delete-node" => Action::DeleteNode(v.clone()),
            "--scale" => {
                let (deployment, replicas) = scales.next().expect("one parsed value per --scale");
                Action::Scale {
                    deployment,
                    replicas,
                }
            }
            "--apply" => {
                let text = read_input(v, opts.limits.max_bytes).map_err(|e| format!("--apply {v}: {e}"))?;
                let more = import_with(&text, &opts).map_err(|e| format!("--apply {v}: {e}"))?;
                if more.scenario.profile.is_some() {
                    return Err(format!("--apply {v}: a KubeSchedulerConfiguration; expected it in the input (the scheduler reads one --config when it starts)").into());
                }
                Action::Apply {
                    what: v.clone(),
                    events: more.scenario.apply_events(),
                }
            }
            _ => unreachable!("every action flag is matched"),
        });
    }
    let t = Instant::now();
    let mut w = what_if(&cluster, &profile, &actions).map_err(|e| format!("--{e}"))?;
    let whatif_time = t.elapsed();
    if let Some(ns) = &namespace {
        w.restrict_to_namespace(ns);
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&shepherd_k8s::whatif::to_json(&w, &input, &profile))
                .map_err(crate::run_failed)?
        );
        return Ok(());
    }
    print_text(&w, &input, &profile, &cluster, converge_time, whatif_time);
    Ok(())
}

fn pct(a: u64, b: u64) -> String {
    match (a * 100).checked_div(b) {
        Some(p) => format!("{p}%"),
        None => "-".to_string(),
    }
}

fn cpu(m: u64) -> String {
    format!("{m}m")
}

/// "N more" after `ROWS` rows.
fn more(n: usize) {
    if n > ROWS {
        println!("  ... and {} more (--output json lists all)", n - ROWS);
    }
}

fn print_text(
    w: &WhatIf,
    input: &str,
    profile: &Profile,
    before: &shepherd::Cluster,
    converge_time: std::time::Duration,
    whatif_time: std::time::Duration,
) {
    println!(
        "what-if on {input}: {} nodes, {} pods, converged at t={} (scheduler profile {}; {converge_time:.2?})",
        before.node_count(),
        before.pods().count(),
        w.start,
        profile.scheduler_name
    );
    if let Some(ns) = &w.namespace {
        println!(
            "namespace {ns}: the pods and Deployments of {ns} alone (the actions act on the whole cluster; drains, nodes and zones are cluster-wide)"
        );
    }
    println!("actions, one a second in the order given:");
    for a in &w.actions {
        println!("  t={:<5} {}", a.tick, a.action);
        for r in &a.refused {
            println!("          refused: {r}");
        }
    }
    println!(
        "then ran to t={} ({} s after the last action; {whatif_time:.2?}): {}",
        w.end,
        w.end - w.actions.last().map_or(w.start, |a| a.tick),
        if w.settled {
            "settled, nothing left to happen".to_string()
        } else {
            format!(
                "stopped at the limit of {} s with a timer still pending",
                shepherd::whatif::SETTLE_LIMIT
            )
        }
    );

    // Every pod deleted, those that ran before the actions and those the
    // run created and deleted again (a replacement bound to a node that a
    // later drain reached): each deletion has its line, as each has its
    // line under "replaced".
    let gone: Vec<_> = w.deleted.iter().collect();
    let before_n = gone.iter().filter(|d| d.existed_before).count();
    if before_n == gone.len() {
        println!("\npods deleted ({}):", gone.len());
    } else {
        println!(
            "\npods deleted ({}: {before_n} that ran before the actions, {} created during the run and deleted again):",
            gone.len(),
            gone.len() - before_n
        );
    }
    if !gone.is_empty() {
        let wp = gone.iter().map(|d| d.pod.len()).max().unwrap_or(3).max(3);
        let wn = gone
            .iter()
            .map(|d| d.node.as_deref().unwrap_or("-").len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!("  {:<7} {:<wp$}  {:<wn$}  BY", "TIME", "POD", "NODE");
        for d in gone.iter().take(ROWS) {
            println!(
                "  t={:<5} {:<wp$}  {:<wn$}  {}{}",
                d.tick,
                d.pod,
                d.node.as_deref().unwrap_or("-"),
                d.cause.who(),
                if d.existed_before {
                    ""
                } else {
                    " (a pod created during the run)"
                }
            );
        }
        more(gone.len());
    }

    println!(
        "\nreplaced ({}): Kubernetes never moves a pod; each line is a pod deleted on one node and the new pod its owner created in its place:",
        w.moves.len()
    );
    for m in w.moves.iter().take(ROWS) {
        let to = match (&m.to, m.bound_at, m.replacement_deleted_at) {
            (Some(n), Some(t), None) => format!("on {n} (bound t={t})"),
            (Some(n), None, None) => format!("on {n}"),
            (Some(n), Some(t), Some(d)) => {
                format!("on {n} (bound t={t}), deleted in its turn t={d}")
            }
            (Some(n), None, Some(d)) => format!("on {n}, deleted in its turn t={d}"),
            (None, _, Some(d)) => format!("deleted t={d} while Pending"),
            (None, _, None) => "Pending".to_string(),
        };
        println!(
            "  {}: {} on {} (deleted t={}) -> {} {to}",
            m.owner,
            m.deleted,
            m.from.as_deref().unwrap_or("-"),
            m.deleted_at,
            m.replacement
        );
    }
    more(w.moves.len());
    let replacing: std::collections::BTreeSet<&str> =
        w.moves.iter().map(|m| m.replacement.as_str()).collect();
    let fresh: Vec<_> = w
        .created
        .iter()
        .filter(|c| !replacing.contains(c.pod.as_str()))
        .collect();
    if !fresh.is_empty() {
        println!("\nnew pods ({}):", fresh.len());
        for c in fresh.iter().take(ROWS) {
            let at = match (&c.node, c.deleted) {
                (_, true) => "deleted again".to_string(),
                (Some(n), _) => format!("on {n}"),
                (None, _) => "Pending".to_string(),
            };
            println!(
                "  {} ({}, created t={}): {at}",
                c.pod, c.owner, c.created_at
            );
        }
        more(fresh.len());
    }

    let new_pending: Vec<_> = w.pending.iter().filter(|p| !p.was_pending).collect();
    println!(
        "\nPending at the end ({}, {} of them new):",
        w.pending.len(),
        new_pending.len()
    );
    for p in w.pending.iter().take(ROWS) {
        println!(
            "  {}{}: FailedScheduling: {}",
            p.pod,
            if p.was_pending {
                " (already Pending)"
            } else {
                ""
            },
            p.message
        );
    }
    more(w.pending.len());

    if !w.drains.is_empty() {
        println!("\ndrains:");
        for d in &w.drains {
            let end = match d.finished {
                Some(t) => format!("done at t={t} ({} s)", t - d.started),
                None => format!("still waiting at t={}", w.end),
            };
            println!(
                "  {} (started t={}, pods listed: {}): {end}; kubectl: {}",
                d.node, d.started, d.listed, d.status
            );
        }
        println!(
            "\nevictions refused by PodDisruptionBudgets ({}):",
            w.blocked.len()
        );
        for b in w.blocked.iter().take(ROWS) {
            let until = match b.until {
                Some(t) => format!("evicted at t={t}, {} s later", t - b.from),
                None => format!("still refused at t={}", w.end),
            };
            println!(
                "  {} on {}: {} refused it {} time{} from t={}; {until}",
                b.pod,
                b.node,
                b.pdb,
                b.refusals,
                if b.refusals == 1 { "" } else { "s" },
                b.from
            );
            println!("      {}", b.message);
        }
        more(w.blocked.len());
    }

    println!("\nDeployments touched ({}):", w.deployments.len());
    if !w.deployments.is_empty() {
        let wn = w
            .deployments
            .iter()
            .map(|d| d.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!(
            "  {:<wn$}  {:>9}  {:>11}  {:>13}  {:>11}  CONDITIONS AFTER",
            "NAME", "DESIRED", "AVAILABLE", "LOWEST (AT)", "BELOW FOR S"
        );
        for d in w.deployments.iter().take(ROWS) {
            let conds: Vec<String> = d
                .conditions_after
                .iter()
                .map(|c| format!("{}={} {}", c.type_.as_str(), c.status.as_str(), c.reason))
                .collect();
            let flag = match (d.stalled, d.lost_availability) {
                (true, _) => "  STALLED",
                (false, true) => "  lost availability, recovered",
                _ => "",
            };
            println!(
                "  {:<wn$}  {:>9}  {:>11}  {:>13}  {:>11}  {}{flag}",
                d.name,
                format!("{}->{}", d.desired_before, d.desired_after),
                format!("{}->{}", d.available_before, d.available_after),
                format!("{} (t={})", d.min_available, d.min_at),
                d.unavailable_ticks,
                conds.join(", ")
            );
        }
        more(w.deployments.len());
    }

    println!("\ncapacity: requests / allocatable over the Ready, schedulable nodes (PODS: running on any node), before -> after:");
    let wz = w
        .zones
        .iter()
        .map(|z| z.zone.len())
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "  {:<wz$}  {:>7}  {:<34}  {:<40}  PODS",
        "ZONE", "NODES", "CPU", "MEMORY"
    );
    let row = |z: &ZoneUse, name: &str| {
        let (b, a) = (&z.before, &z.after);
        println!(
            "  {:<wz$}  {:>7}  {:<34}  {:<40}  {}",
            name,
            format!("{}->{}", z.schedulable_before, z.schedulable_after),
            format!(
                "{} {} -> {} {}",
                pct(b.cpu_requested, b.cpu_allocatable),
                cpu(b.cpu_allocatable - b.cpu_requested.min(b.cpu_allocatable)) + " free",
                pct(a.cpu_requested, a.cpu_allocatable),
                cpu(a.free().0) + " free"
            ),
            format!(
                "{} {} free -> {} {} free",
                pct(b.memory_requested, b.memory_allocatable),
                format_memory_bytes(b.free().1),
                pct(a.memory_requested, a.memory_allocatable),
                format_memory_bytes(a.free().1)
            ),
            format!("{} -> {}", z.all_before.pods, z.all_after.pods)
        );
    };
    for z in &w.zones {
        row(z, if z.zone.is_empty() { "(none)" } else { &z.zone });
    }
    row(&w.total, "(all)");

    let changed: Vec<_> = w
        .nodes
        .iter()
        .filter(|n| n.before != n.after || n.state_before != n.state_after)
        .collect();
    println!(
        "\nnodes that changed ({} of {}):",
        changed.len(),
        w.nodes.len()
    );
    if !changed.is_empty() {
        let wn = changed
            .iter()
            .map(|n| n.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!(
            "  {:<wn$}  {:<44}  {:<26}  {:<26}  PODS",
            "NAME", "STATUS", "CPU REQUESTS", "MEMORY REQUESTS"
        );
        for n in changed.iter().take(ROWS) {
            let status = if n.state_before == n.state_after {
                n.state_after.as_str().to_string()
            } else {
                format!("{} -> {}", n.state_before.as_str(), n.state_after.as_str())
            };
            let gone = n.state_after == NodeState::Absent;
            println!(
                "  {:<wn$}  {:<44}  {:<26}  {:<26}  {}",
                n.name,
                status,
                if gone {
                    format!(
                        "{} -> -",
                        pct(n.before.cpu_requested, n.before.cpu_allocatable)
                    )
                } else {
                    format!(
                        "{} -> {} of {}",
                        pct(n.before.cpu_requested, n.before.cpu_allocatable),
                        pct(n.after.cpu_requested, n.after.cpu_allocatable),
                        cpu(n.after.cpu_allocatable)
                    )
                },
                if gone {
                    format!(
                        "{} -> -",
                        pct(n.before.memory_requested, n.before.memory_allocatable)
                    )
                } else {
                    format!(
                        "{} -> {} of {}",
                        pct(n.before.memory_requested, n.before.memory_allocatable),
                        pct(n.after.memory_requested, n.after.memory_allocatable),
                        format_memory_bytes(n.after.memory_allocatable)
                    )
                },
                format!("{} -> {}", n.before.pods, n.after.pods)
            );
        }
        more(changed.len());
    }
}
