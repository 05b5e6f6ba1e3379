//! `shepherd simulate` and `shepherd export`: Kubernetes manifests in and out.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use shepherd::simulator::Prng;
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{Cluster, ScorePolicy};
use shepherd_k8s::{
    export, import_with, pods_wide, pods_wide_json, ImportedNode, Options, Scenario, Warning,
};

/// Reads FILE, every `.yaml`/`.yml`/`.json` file in DIR (sorted by name,
/// joined as one stream), or standard input for `-`.
fn read_input(arg: &str, max_bytes: usize) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .take(max_bytes as u64 + 1)
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}; expected UTF-8 text"))?;
        return Ok(s);
    }
    let p = Path::new(arg);
    if p.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(p)
            .map_err(|e| format!("cannot read the folder {arg}: {e}"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| {
                matches!(
                    f.extension().and_then(|x| x.to_str()),
                    Some("yaml" | "yml" | "json")
                )
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!(
                "the folder {arg} holds no .yaml, .yml or .json file; expected manifests"
            ));
        }
        let mut s = String::new();
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| {
                format!(
                    "cannot read {}: {e}; expected a UTF-8 text file",
                    f.display()
                )
            })?;
            // JSON files join a YAML stream as flow documents (JSON is YAML).
            s.push_str("---\n");
            s.push_str(&text);
            if !text.ends_with('\n') {
                s.push('\n');
            }
            if s.len() > max_bytes {
                break;
            }
        }
        return Ok(s);
    }
    let meta = std::fs::metadata(p)
        .map_err(|e| format!("cannot read {arg}: {e}; expected a file, a folder or -"))?;
    if meta.len() > max_bytes as u64 {
        return Err(format!(
            "{arg} is {} bytes; expected at most {max_bytes}",
            meta.len()
        ));
    }
    std::fs::read_to_string(p)
        .map_err(|e| format!("cannot read {arg}: {e}; expected a UTF-8 text file"))
}

struct Args {
    input: Option<String>,
    json: bool,
    policy: ScorePolicy,
    namespace: String,
    seed: u64,
    nodes: u32,
    apps: u32,
}

fn parse(args: &[String], valued: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        input: None,
        json: false,
        policy: ScorePolicy::BinPack,
        namespace: "default".to_string(),
        seed: 7,
        nodes: 6,
        apps: 4,
    };
    let mut i = 0;
    while i < args.len() {
        let k = args[i].as_str();
        let v = || {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("{k} needs a value"))
        };
        let num = |v: String, max: u64| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| {
                    format!("{k} {v:?} is not valid; expected a whole number from 1 to {max}")
                })
        };
        if !k.starts_with("--") || k == "-" {
            if a.input.replace(k.to_string()).is_some() {
                return Err(format!("a second input {k:?}; expected one FILE, DIR or -"));
            }
            i += 1;
            continue;
        }
        if !valued.contains(&k) {
            return Err(format!(
                "unknown option {k:?}; expected one of {}",
                valued.join(", ")
            ));
        }
        match k {
            "--output" => match v()?.as_str() {
                "json" => a.json = true,
                "text" | "wide" => a.json = false,
                other => {
                    return Err(format!(
                        "--output {other:?} is not valid; expected json or text"
                    ))
                }
            },
            "--policy" => a.policy = ScorePolicy::parse(&v()?).map_err(|e| e.to_string())?,
            "--namespace" => a.namespace = v()?,
            "--seed" => a.seed = num(v()?, u64::MAX)?,
            "--nodes" => a.nodes = num(v()?, 5000)? as u32,
            "--apps" => a.apps = num(v()?, 5000)? as u32,
            _ => unreachable!("every valued option is matched above"),
        }
        i += 2;
    }
    Ok(a)
}

/// Warnings grouped by (field path, message): the first object and how many more.
fn print_warnings(w: &[Warning]) {
    if w.is_empty() {
        return;
    }
    let mut groups: BTreeMap<(String, String), (usize, &Warning)> = BTreeMap::new();
    let mut order = Vec::new();
    for x in w {
        let key = (x.path.clone(), x.message.clone());
        let e = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, x)
        });
        e.0 += 1;
    }
    println!("\nwarnings ({}):", w.len());
    for key in order {
        let (n, first) = groups[&key];
        if n == 1 {
            println!("  {first}");
        } else {
            println!("  {first} (and {} more objects)", n - 1);
        }
    }
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("shepherd: {msg}\nnothing was imported.");
    std::process::exit(1)
}

/// `shepherd simulate FILE|DIR|- [--output json] [--policy P] [--namespace NS]`
pub fn simulate(args: &[String]) -> Result<(), String> {
    let a = parse(args, &["--output", "--policy", "--namespace"])?;
    let input = a
        .input
        .clone()
        .ok_or("simulate needs FILE, DIR or - (standard input)")?;
    let opts = Options {
        namespace: a.namespace.clone(),
        ..Options::default()
    };
    let text = read_input(&input, opts.limits.max_bytes).unwrap_or_else(|e| fail(e));
    let t = Instant::now();
    let imported = import_with(&text, &opts).unwrap_or_else(|e| fail(e));
    let import_time = t.elapsed();
    let mut cluster = imported.scenario.to_cluster().unwrap_or_else(|e| fail(e));
    let t = Instant::now();
    let mut fp = cluster.reconcile_to_fixed_point(a.policy);
    // Then let every readiness delay pass, so bound pods show Ready as they
    // would once their probes pass.
    let delay = imported
        .scenario
        .deployments
        .iter()
        .map(|d| d.template.ready_after as u64)
        .max()
        .unwrap_or(0);
    if delay > 0 {
        cluster.set_now(cluster.now() + delay);
        let more = cluster.reconcile_to_fixed_point(a.policy);
        fp.passes += more.passes;
        fp.converged = more.converged;
    }
    let converge_time = t.elapsed();
    if a.json {
        let nodes: Vec<_> = cluster
            .nodes()
            .map(|n| {
                serde_json::json!({
                    "name": n.name(),
                    "ready": n.ready,
                    "unschedulable": n.cordoned,
                    "allocatable": {"cpuMillis": n.spec.capacity.cpu_millis, "memoryMiB": n.spec.capacity.memory_mib},
                    "requested": {"cpuMillis": n.allocated.cpu_millis, "memoryMiB": n.allocated.memory_mib},
                    "pods": n.pod_count,
                })
            })
            .collect();
        let warnings: Vec<_> = imported
            .warnings
            .iter()
            .map(|w| {
                serde_json::json!({
                    "document": w.loc.document, "item": w.loc.item, "kind": w.loc.kind,
                    "name": w.loc.name, "path": w.path, "message": w.message,
                })
            })
            .collect();
        let out = serde_json::json!({
            "summary": imported.summary.to_string(),
            "converged": fp.converged,
            "passes": fp.passes,
            "nodes": nodes,
            "pods": pods_wide_json(&cluster),
            "warnings": warnings,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!("{}", imported.summary);
    println!(
        "imported in {import_time:.2?}; converged: {} after {} passes in {converge_time:.2?} (policy {})",
        fp.converged,
        fp.passes,
        a.policy.as_str()
    );
    print_nodes(&cluster);
    println!("\npods:");
    print!("{}", pods_wide(&cluster));
    let pending: Vec<_> = cluster.pending_pods().map(|p| p.name()).collect();
    if !pending.is_empty() {
        println!("\npending ({}):", pending.len());
        for p in pending {
            let why = cluster
                .pending_reason(&p)
                .ok()
                .flatten()
                .unwrap_or_else(|| "not yet scheduled".into());
            println!("  {p}: FailedScheduling: {why}");
        }
    }
    print_warnings(&imported.warnings);
    Ok(())
}

fn print_nodes(c: &Cluster) {
    println!("\nnodes:");
    let w = c.nodes().map(|n| n.name().len()).max().unwrap_or(4).max(4);
    println!(
        "  {:<w$}  {:<26}  {:>22}  {:>22}  PODS",
        "NAME", "STATUS", "CPU REQUESTS", "MEMORY REQUESTS"
    );
    for n in c.nodes() {
        let pct = |a: u64, b: u64| if b == 0 { 0 } else { a * 100 / b };
        let status = match (n.ready, n.cordoned) {
            (true, false) => "Ready",
            (true, true) => "Ready,SchedulingDisabled",
            (false, false) => "NotReady",
            (false, true) => "NotReady,SchedulingDisabled",
        };
        println!(
            "  {:<w$}  {:<26}  {:>22}  {:>22}  {}",
            n.name(),
            status,
            format!(
                "{}m/{}m ({}%)",
                n.allocated.cpu_millis,
                n.spec.capacity.cpu_millis,
                pct(n.allocated.cpu_millis, n.spec.capacity.cpu_millis)
            ),
            format!(
                "{}Mi/{}Mi ({}%)",
                n.allocated.memory_mib,
                n.spec.capacity.memory_mib,
                pct(n.allocated.memory_mib, n.spec.capacity.memory_mib)
            ),
            n.pod_count
        );
    }
}

/// `shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N]`:
/// an input's scenario, or a random workload, as manifests.
pub fn export_cmd(args: &[String]) -> Result<(), String> {
    let a = parse(args, &["--namespace", "--seed", "--nodes", "--apps"])?;
    let scenario = match &a.input {
        Some(input) => {
            let opts = Options {
                namespace: a.namespace.clone(),
                ..Options::default()
            };
            let text = read_input(input, opts.limits.max_bytes).unwrap_or_else(|e| fail(e));
            let imported = import_with(&text, &opts).unwrap_or_else(|e| fail(e));
            for w in &imported.warnings {
                eprintln!("warning: {w}");
            }
            imported.scenario
        }
        None => {
            let mut rng = Prng::new(a.seed);
            let w = generate(&mut rng, &WorkloadConfig::small(a.nodes, a.apps));
            Scenario {
                nodes: w
                    .nodes
                    .into_iter()
                    .map(|spec| ImportedNode {
                        spec,
                        unschedulable: false,
                        ready: true,
                    })
                    .collect(),
                deployments: w.apps,
                ..Scenario::default()
            }
        }
    };
    print!("{}", export(&scenario, &a.namespace));
    Ok(())
}
