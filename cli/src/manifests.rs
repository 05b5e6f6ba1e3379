//! `shepherd simulate`, `shepherd explain` and `shepherd export`: Kubernetes
//! manifests in and out.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use shepherd::quantity::format_memory_bytes;
use shepherd::simulator::Prng;
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{Cluster, Explanation, Profile};
use shepherd_k8s::{
    export, export_kwok, export_scheduler_config, import, import_checked, import_with,
    kubectl_node_script, pods_wide, pods_wide_json, Imported, ImportedNode, Options, Scenario,
    Warning,
};

/// Reads FILE, every `.yaml`/`.yml`/`.json` file in DIR (sorted by name,
/// joined as one stream), or standard input for `-`, never more than
/// `max_bytes` + 1 bytes of any: a regular file past the limit is refused
/// from its size, unread; anything else named on the command line (a pipe,
/// `<(kubectl get ...)`, a device such as /dev/zero) is read as standard
/// input is, up to the limit. A folder's entries must be regular files
/// (symbolic links are followed): a FIFO in a folder is never opened (it
/// would wait for a writer), a device never read.
pub(crate) fn read_input(arg: &str, max_bytes: usize) -> Result<String, String> {
    if arg == "-" {
        return read_bounded(std::io::stdin(), "standard input", max_bytes);
    }
    let p = Path::new(arg);
    let meta = std::fs::metadata(p)
        .map_err(|e| format!("cannot read {arg}: {e}; expected a file, a folder or -"))?;
    if meta.is_dir() {
        return read_folder(arg, p, max_bytes);
    }
    if meta.is_file() && meta.len() > max_bytes as u64 {
        return Err(format!(
            "{arg} is {} bytes; expected at most {max_bytes}",
            meta.len()
        ));
    }
    let f = std::fs::File::open(p)
        .map_err(|e| format!("cannot read {arg}: {e}; expected a file, a folder or -"))?;
    read_bounded(f, arg, max_bytes)
}

/// At most `max_bytes` of `r` as UTF-8 text; more is refused once the byte
/// past the limit is read, so an endless source costs the limit and no more.
fn read_bounded(r: impl Read, what: &str, max_bytes: usize) -> Result<String, String> {
    let mut buf = Vec::new();
    r.take(max_bytes as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    if buf.len() > max_bytes {
        return Err(format!(
            "{what} holds more than {max_bytes} bytes; expected at most {max_bytes}"
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        format!(
            "{what} is not UTF-8 text (byte {} is not); expected UTF-8 text",
            e.utf8_error().valid_up_to()
        )
    })
}

/// What a non-regular file is, in words.
fn file_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

fn read_folder(arg: &str, p: &Path, max_bytes: usize) -> Result<String, String> {
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
    // Every entry is looked at (its metadata, links followed) before any
    // is opened: a FIFO or a device refuses the folder without being touched.
    let mut sizes = Vec::with_capacity(files.len());
    for f in &files {
        let meta = std::fs::metadata(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "{} in the folder {arg} is {}; expected regular files of manifests",
                f.display(),
                file_kind(meta.file_type())
            ));
        }
        sizes.push(meta.len());
    }
    let mut s = String::new();
    for (f, len) in files.iter().zip(sizes) {
        // A file past what is left of the limit is refused before it is
        // read: a large file is never held whole to find it too large.
        let left = max_bytes.saturating_sub(s.len());
        if len > left as u64 {
            return Err(format!(
                "the folder {arg} holds more than {max_bytes} bytes of manifests ({} alone is {len} bytes); expected at most {max_bytes} in all",
                f.display()
            ));
        }
        let file = std::fs::File::open(f).map_err(|e| {
            format!(
                "cannot read {}: {e}; expected a UTF-8 text file",
                f.display()
            )
        })?;
        let text = read_bounded(file, &f.display().to_string(), left)?;
        // JSON files join a YAML stream as flow documents (JSON is YAML).
        s.push_str("---\n");
        s.push_str(&text);
        if !text.ends_with('\n') {
            s.push('\n');
        }
    }
    Ok(s)
}

struct Args {
    input: Option<String>,
    json: bool,
    /// `--profile NAME` (or `--policy`): overrides the input's profile.
    profile: Option<Profile>,
    pod: Option<String>,
    scheduler_config: bool,
    /// `--kwok`: Nodes as KWOK fake nodes.
    kwok: bool,
    /// `--kubectl-script`: the nodes' labels and taints as kubectl commands.
    kubectl_script: bool,
    /// `--now` (explain): score a bound pod against the cluster as it is
    /// now, not as its scheduling cycle saw it.
    now: bool,
    /// `--namespace NS` (or `-n NS`): import that namespace alone, as
    /// kubectl's `-n`; none: every namespace.
    namespace: Option<String>,
    seed: u64,
    nodes: u32,
    apps: u32,
    /// `--then FILE`: objects applied to the converged cluster afterwards.
    then: Option<String>,
}

fn parse(args: &[String], valued: &[&str]) -> Result<Args, String> {
    let mut a = Args {
        input: None,
        json: false,
        profile: None,
        pod: None,
        scheduler_config: false,
        kwok: false,
        now: false,
        kubectl_script: false,
        namespace: None,
        seed: 7,
        nodes: 6,
        apps: 4,
        then: None,
    };
    let mut i = 0;
    while i < args.len() {
        // kubectl's short form of --namespace.
        let k = match args[i].as_str() {
            "-n" if valued.contains(&"--namespace") => "--namespace",
            k => k,
        };
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
        if k == "--scheduler-config" && valued.contains(&k) {
            a.scheduler_config = true;
            i += 1;
            continue;
        }
        if k == "--kwok" && valued.contains(&k) {
            a.kwok = true;
            i += 1;
            continue;
        }
        if k == "--kubectl-script" && valued.contains(&k) {
            a.kubectl_script = true;
            i += 1;
            continue;
        }
        if k == "--now" && valued.contains(&k) {
            a.now = true;
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
            "--policy" | "--profile" => {
                a.profile = Some(Profile::named(&v()?).map_err(|e| e.to_string())?)
            }
            "--pod" => a.pod = Some(v()?),
            "--then" => a.then = Some(v()?),
            "--namespace" => {
                let ns = v()?;
                shepherd::namespace::validate_namespace(&ns)
                    .map_err(|e| format!("--namespace: {e}"))?;
                a.namespace = Some(ns)
            }
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

/// Imports the input and converges it under the chosen profile (`--profile`,
/// else the input's KubeSchedulerConfiguration, else kube-scheduler's
/// default), then lets every readiness delay pass.
struct Run {
    imported: Imported,
    cluster: Cluster,
    profile: Profile,
    converged: bool,
    passes: u32,
    import_time: std::time::Duration,
    converge_time: std::time::Duration,
    /// The scheduling cycle of the watched pod's last bind, as of that
    /// bind, and the tick it ran in.
    decision: Option<Decision>,
}

/// Converges the cluster after `sc` was applied to it, then lets the
/// readiness delay of `sc`'s templates pass and converges again while bound
/// pods wait to be Ready (a roll's steps), so they show Ready as they would
/// once their probes pass.
pub(crate) fn converge_until_ready(
    cluster: &mut Cluster,
    sc: &Scenario,
    profile: &Profile,
) -> shepherd::FixedPoint {
    converge_watching(cluster, sc, profile, None).0
}

/// The scheduling cycle that bound a pod, as of that bind, and its tick.
type Decision = Result<(u64, Explanation), shepherd::Error>;

/// [`converge_until_ready`], watching the binds of the pod `watch`: also
/// returns the cycle of its last bind, as of that bind.
fn converge_watching(
    cluster: &mut Cluster,
    sc: &Scenario,
    profile: &Profile,
    watch: Option<&str>,
) -> (shepherd::FixedPoint, Option<Decision>) {
    let mut decision = None;
    let mut reconcile = |cluster: &mut Cluster| match watch {
        None => cluster.reconcile_to_fixed_point(profile),
        Some(pod) => {
            let now = cluster.now();
            let (fp, d) = cluster.reconcile_to_fixed_point_deciding(profile, pod);
            if let Some(d) = d {
                decision = Some(d.map(|e| (now, e)));
            }
            fp
        }
    };
    let mut fp = reconcile(cluster);
    let delay = sc
        .deployments
        .iter()
        .map(|d| &d.template)
        .chain(sc.daemonsets.iter().map(|d| &d.template))
        .chain(sc.pods.iter().map(|p| &p.template))
        .map(|t| t.ready_after as u64)
        .max()
        .unwrap_or(0);
    // A roll replaces pods a step at a time, each step once the last one's
    // pods are Ready: the delay passes again while a bound pod on a Ready
    // node waits for it (a bounded number of times).
    let waiting = |c: &Cluster| {
        c.pods().any(|p| {
            !p.ready
                && p.node
                    .and_then(|n| c.node_by_id(n))
                    .is_some_and(|n| n.ready)
        })
    };
    for _ in 0..64 {
        if !waiting(cluster) {
            break;
        }
        cluster.set_now(cluster.now() + delay.max(1));
        let more = reconcile(cluster);
        fp.passes += more.passes;
        fp.converged = more.converged;
    }
    (fp, decision)
}

fn run(a: &Args, command: &str) -> Run {
    run_watching(a, command, None)
}

/// [`run`], watching the binds of the pod `watch` (see [`converge_watching`]).
fn run_watching(a: &Args, command: &str, watch: Option<&str>) -> Run {
    let Some(input) = a.input.clone() else {
        eprintln!("shepherd: {command} needs FILE, DIR or - (standard input)");
        std::process::exit(2)
    };
    let opts = Options {
        namespace: a.namespace.clone(),
        ..Options::default()
    };
    let text = read_input(&input, opts.limits.max_bytes).unwrap_or_else(|e| fail(e));
    let t = Instant::now();
    // The cluster the import's check built is the run's: built once.
    let (imported, mut cluster) =
        import_checked(&text, &opts, &mut |_| {}).unwrap_or_else(|e| fail(e));
    let import_time = t.elapsed();
    let profile = a
        .profile
        .clone()
        .unwrap_or_else(|| imported.scenario.profile_or_default());
    let t = Instant::now();
    let (mut fp, mut decision) =
        converge_watching(&mut cluster, &imported.scenario, &profile, watch);
    let mut imported = imported;
    if let Some(then) = &a.then {
        // `kubectl apply -f` of a second file into the running cluster: what
        // is there already stays, and the new objects go through the same
        // queue (a high-priority Deployment may preempt what runs).
        let text = read_input(then, opts.limits.max_bytes)
            .unwrap_or_else(|e| fail(format!("--then {then}: {e}")));
        let more =
            import_with(&text, &opts).unwrap_or_else(|e| fail(format!("--then {then}: {e}")));
        if more.scenario.profile.is_some() {
            fail(format!("--then {then}: a KubeSchedulerConfiguration; expected it in the first input (the scheduler reads one --config when it starts)"));
        }
        // kubectl apply: what exists is updated (a changed template rolls,
        // replicas scale), what is new is created; an immutable field
        // changed is refused with nothing applied.
        cluster.set_now(cluster.now() + 1);
        more.scenario
            .apply_onto(&mut cluster)
            .unwrap_or_else(|e| fail(format!("--then {then}: the engine refused it: {e}")));
        let (r, d) = converge_watching(&mut cluster, &more.scenario, &profile, watch);
        if d.is_some() {
            decision = d;
        }
        fp.passes += r.passes;
        fp.converged = r.converged;
        imported.warnings.extend(more.warnings);
        // The declarations now: each object of the second file in place of
        // the first's of its name.
        fn merge<T: Clone>(into: &mut Vec<T>, from: Vec<T>, key: impl Fn(&T) -> String) {
            for x in from {
                match into.iter().position(|y| key(y) == key(&x)) {
                    Some(i) => into[i] = x,
                    None => into.push(x),
                }
            }
        }
        let (sc, more) = (&mut imported.scenario, more.scenario);
        merge(&mut sc.priority_classes, more.priority_classes, |p| {
            p.name.clone()
        });
        merge(&mut sc.nodes, more.nodes, |n| n.spec.name.clone());
        merge(&mut sc.deployments, more.deployments, |d| d.name.clone());
        merge(&mut sc.daemonsets, more.daemonsets, |d| d.name.clone());
        merge(&mut sc.pods, more.pods, |p| p.name.clone());
        merge(&mut sc.pdbs, more.pdbs, |p| p.name.clone());
        merge(&mut sc.services, more.services, |s| s.name.clone());
    }
    Run {
        imported,
        cluster,
        profile,
        converged: fp.converged,
        passes: fp.passes as u32,
        import_time,
        converge_time: t.elapsed(),
        decision,
    }
}

/// `shepherd simulate FILE|DIR|- [--output json] [--profile NAME] [--namespace NS]`
pub fn simulate(args: &[String]) -> Result<(), String> {
    let a = parse(
        args,
        &["--output", "--policy", "--profile", "--namespace", "--then"],
    )?;
    let Run {
        imported,
        cluster,
        profile,
        converged,
        passes,
        import_time,
        converge_time,
        ..
    } = run(&a, "simulate");
    let fp = (converged, passes);
    let (failed, gone) = not_running(&cluster, &imported.scenario);
    if a.json {
        let nodes: Vec<_> = cluster
            .nodes()
            .map(|n| {
                serde_json::json!({
                    "name": n.name(),
                    "ready": n.ready,
                    "unschedulable": n.cordoned,
                    "allocatable": {"cpuMillis": n.spec.capacity.cpu_millis, "memoryBytes": n.spec.capacity.memory_bytes},
                    "requested": {"cpuMillis": n.allocated.cpu_millis, "memoryBytes": n.allocated.memory_bytes},
                    "pods": n.pod_count,
                    // Extended resources, ephemeral-storage, hugepages-*:
                    // name -> {allocatable, requested} in their own units.
                    "scalars": scalar_rows(&cluster, &n).into_iter().map(|(k, a, r)| {
                        (k, serde_json::json!({"allocatable": a, "requested": r}))
                    }).collect::<serde_json::Map<_, _>>(),
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
            "profile": profile.scheduler_name,
            "converged": fp.0,
            "passes": fp.1,
            "nodes": nodes,
            "pods": pods_wide_json(&cluster),
            "notRunning": failed.iter().map(|(what, reason, message)| serde_json::json!({
                "object": what, "reason": reason, "message": message,
            })).collect::<Vec<_>>(),
            "deleted": gone.iter().map(|(pod, reason, message)| serde_json::json!({
                "pod": pod, "reason": reason, "message": message,
            })).collect::<Vec<_>>(),
            "warnings": warnings,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        leave((imported, cluster));
        return Ok(());
    }
    println!("{}", imported.summary);
    println!(
        "imported in {import_time:.2?}; converged: {} after {} passes in {converge_time:.2?} (scheduler profile {}{})",
        fp.0,
        fp.1,
        profile.scheduler_name,
        if a.profile.is_some() {
            ", from --profile"
        } else if imported.scenario.profile.is_some() {
            ", from the KubeSchedulerConfiguration"
        } else {
            ", kube-scheduler's default"
        }
    );
    print_nodes(&cluster);
    println!();
    crate::print_utilisation(&cluster);
    println!("\npods:");
    print!("{}", pods_wide(&cluster));
    let pending: Vec<_> = cluster
        .pending_pods()
        .map(|p| (p.name(), p.by_node_name))
        .collect();
    if !pending.is_empty() {
        println!("\npending ({}):", pending.len());
        for (p, by_node_name) in pending {
            let why = cluster
                .pending_reason(&p)
                .ok()
                .flatten()
                .unwrap_or_else(|| "not yet scheduled".into());
            // A pod with spec.nodeName is not the scheduler's.
            if by_node_name {
                println!("  {p}: {why}");
            } else {
                println!("  {p}: FailedScheduling: {why}");
            }
        }
    }
    if !failed.is_empty() {
        println!("\nnot running ({}):", failed.len());
        for (what, reason, message) in &failed {
            println!("  {what}: {reason}: {message}");
        }
    }
    if !gone.is_empty() {
        println!("\ndeleted while converging ({}):", gone.len());
        for (pod, reason, message) in &gone {
            println!("  pod {pod}: {reason}: {message}");
        }
    }
    print_warnings(&imported.warnings);
    leave((imported, cluster));
    Ok(())
}

/// Leaves `x` to the process's exit rather than freeing it: the command is
/// done with it and the operating system takes the memory back at once, where
/// freeing 150,000 pods' documents one by one took a quarter of the wall clock
/// (docs/performance.md). The CLI only; the library frees as usual.
fn leave<T>(x: T) {
    std::mem::forget(x);
}

/// (what, reason, message).
type Said = (String, &'static str, String);

/// What of the input does not run, and why, so that no pod of the input
/// vanishes without a word: (owner, reason, message) for each owner with
/// fewer pods than it wants for a reason no scheduler can help (a
/// Deployment whose pods admission forbids: FailedCreate; a bare Pod its
/// kubelet refused: OutOfcpu...), and (pod, reason, message) for each bare
/// Pod of the input deleted while converging (by the taint-eviction
/// controller or the pod garbage collector), from its last event.
fn not_running(c: &Cluster, sc: &Scenario) -> (Vec<Said>, Vec<Said>) {
    let failed = c
        .apps()
        .filter_map(|a| {
            let (reason, message) = a.failure.clone()?;
            let kind = a.kind.as_str();
            let what = if kind == "Pod" {
                format!("pod {}", a.name)
            } else {
                format!(
                    "{} {} ({} of {} pods)",
                    kind.to_lowercase(),
                    a.name,
                    a.current,
                    a.desired
                )
            };
            Some((what, reason, message))
        })
        .collect();
    let live: std::collections::BTreeSet<String> = c.apps().map(|a| a.name).collect();
    let mut gone = Vec::new();
    let events = c.rendered_events();
    for p in sc.pods.iter().filter(|p| !live.contains(&p.name)) {
        let object = format!("pod/{}", p.name);
        // Why it went: the last event about it that is not its kubelet
        // stopping it (Killing follows whatever deleted it).
        if let Some(e) = (events.iter().rev()).find(|e| e.object == object && e.reason != "Killing")
        {
            gone.push((p.name.clone(), e.reason, e.message.clone()));
        }
    }
    (failed, gone)
}

fn print_nodes(c: &Cluster) {
    println!("\nnodes:");
    let w = c.nodes().map(|n| n.name().len()).max().unwrap_or(4).max(4);
    println!(
        "  {:<w$}  {:<26}  {:>14} {:>22}  {:>14} {:>22}  PODS",
        "NAME", "STATUS", "", "CPU REQUESTS", "", "MEMORY REQUESTS"
    );
    for n in c.nodes() {
        let pct = |a: u64, b: u64| (a * 100).checked_div(b).unwrap_or(0);
        let status = match (n.ready, n.cordoned) {
            (true, false) => "Ready",
            (true, true) => "Ready,SchedulingDisabled",
            (false, false) => "NotReady",
            (false, true) => "NotReady,SchedulingDisabled",
        };
        println!(
            "  {:<w$}  {:<26}  {:>14} {:>22}  {:>14} {:>22}  {}",
            n.name(),
            status,
            crate::bar(n.allocated.cpu_millis, n.spec.capacity.cpu_millis),
            format!(
                "{}m/{}m ({}%)",
                n.allocated.cpu_millis,
                n.spec.capacity.cpu_millis,
                pct(n.allocated.cpu_millis, n.spec.capacity.cpu_millis)
            ),
            crate::bar(n.allocated.memory_bytes, n.spec.capacity.memory_bytes),
            format!(
                "{}/{} ({}%)",
                format_memory_bytes(n.allocated.memory_bytes),
                format_memory_bytes(n.spec.capacity.memory_bytes),
                pct(n.allocated.memory_bytes, n.spec.capacity.memory_bytes)
            ),
            n.pod_count
        );
    }
    print_scalars(c);
}

/// Node `n`'s scalar resources (every one it offers or its pods request),
/// by name: (name, allocatable, requested).
fn scalar_rows(c: &Cluster, n: &shepherd::NodeView) -> Vec<(String, u64, u64)> {
    let used = c.scalars_requested(n.id);
    let mut names: Vec<&str> = n.spec.scalars.iter().map(|(k, _)| k).collect();
    names.extend(used.iter().map(|(k, _)| k));
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|k| (k.to_string(), n.spec.scalars.get(k), used.get(k)))
        .collect()
}

/// The extended resources the cluster has (nvidia.com/gpu, ...,
/// ephemeral-storage, hugepages-*): per resource, what is requested of
/// what is allocatable over the nodes that offer it, then each such node.
/// Nothing for a cluster without any.
fn print_scalars(c: &Cluster) {
    use shepherd::model::scalar::format_amount;
    let mut by: std::collections::BTreeMap<String, Vec<(String, u64, u64)>> = Default::default();
    for n in c.nodes() {
        for (k, a, r) in scalar_rows(c, &n) {
            by.entry(k).or_default().push((n.name().to_string(), a, r));
        }
    }
    if by.is_empty() {
        return;
    }
    let pct = |a: u64, b: u64| a.saturating_mul(100).checked_div(b).unwrap_or(0);
    println!(
        "
extended resources (requests of allocatable):"
    );
    let w = by.keys().map(String::len).max().unwrap_or(0);
    for (k, nodes) in &by {
        let (a, r) = nodes.iter().fold((0u64, 0u64), |(a, r), x| {
            (a.saturating_add(x.1), r.saturating_add(x.2))
        });
        let offering = nodes.iter().filter(|x| x.1 > 0).count();
        println!(
            "  {k:<w$}  {} {}/{} ({}%) on {offering} node{}",
            crate::bar(r, a),
            format_amount(k, r),
            format_amount(k, a),
            pct(r, a),
            if offering == 1 { "" } else { "s" }
        );
        for (name, a, r) in nodes {
            println!(
                "  {:<w$}    {name}: {}/{} ({}%)",
                "",
                format_amount(k, *r),
                format_amount(k, *a),
                pct(*r, *a)
            );
        }
    }
}

/// `shepherd export [FILE|DIR|-] [--namespace NS] [--seed N --nodes N --apps N]
/// [--scheduler-config | --kwok | --kubectl-script]`: an input's scenario, or
/// a random workload, as manifests (for KWOK's fake nodes with `--kwok`), or
/// the nodes' labels and taints as a kubectl script.
pub fn export_cmd(args: &[String]) -> Result<(), String> {
    let a = parse(
        args,
        &[
            "--namespace",
            "--seed",
            "--nodes",
            "--apps",
            "--scheduler-config",
            "--kwok",
            "--kubectl-script",
        ],
    )?;
    if [a.scheduler_config, a.kwok, a.kubectl_script]
        .iter()
        .filter(|x| **x)
        .count()
        > 1
    {
        return Err("--scheduler-config, --kwok and --kubectl-script each write a different file; expected at most one of them".into());
    }
    let scenario = match &a.input {
        Some(input) => {
            let opts = Options {
                namespace: a.namespace.clone(),
                ..Options::default()
            };
            let text = read_input(input, opts.limits.max_bytes).unwrap_or_else(|e| fail(e));
            // The check's cluster is not needed: left to the exit, as the
            // scenario below, rather than freed.
            let (imported, cluster) =
                import_checked(&text, &opts, &mut |_| {}).unwrap_or_else(|e| fail(e));
            leave(cluster);
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
    if a.scheduler_config {
        print!(
            "{}",
            export_scheduler_config(&scenario.profile_or_default())
        );
    } else if a.kwok {
        print!("{}", export_kwok(&scenario));
    } else if a.kubectl_script {
        print!("{}", kubectl_node_script(&scenario));
    } else {
        print!("{}", export(&scenario));
    }
    leave(scenario);
    Ok(())
}

/// `shepherd explain FILE|DIR|- --pod NAMESPACE/NAME [--output json] [--profile NAME]`:
/// after converging, why the pod is where it is (or Pending), node by node.
pub fn explain(args: &[String]) -> Result<(), String> {
    let a = parse(
        args,
        &[
            "--output",
            "--policy",
            "--profile",
            "--namespace",
            "--pod",
            "--then",
            "--now",
        ],
    )?;
    let pod_arg = a
        .pod
        .clone()
        .ok_or("explain needs --pod NAMESPACE/NAME (or NAME, in the namespace given by --namespace, else default)")?;
    // NAMESPACE/NAME, or NAME in --namespace (else default), as kubectl reads it.
    let (ns, pod) = match pod_arg.split_once('/') {
        Some((ns, p)) => (ns.to_string(), p.to_string()),
        None => (
            a.namespace.clone().unwrap_or_else(|| "default".into()),
            pod_arg.clone(),
        ),
    };
    shepherd::namespace::validate_namespace(&ns).map_err(|e| format!("--pod {pod_arg:?}: {e}"))?;
    if let Some(only) = a.namespace.as_ref().filter(|only| **only != ns) {
        return Err(format!(
            "--pod {pod_arg:?} is in namespace {ns:?}, but --namespace imports {only:?} alone; expected the pod's namespace, or no --namespace"
        ));
    }
    let mut key = shepherd::namespace::qualify(&ns, &pod);
    let mut r = run_watching(&a, "explain", (!a.now).then_some(key.as_str()));
    // The short form (`web-0`) names a pod only once it exists: the run
    // watched a name no pod had when it was bound. Watch its own name, on a
    // second run (standard input cannot be read twice).
    let rereadable = a.input.as_deref() != Some("-") && a.then.as_deref() != Some("-");
    if !a.now && rereadable {
        if let Ok(own) = r.cluster.pod_by_name(&key).map(|p| p.name()) {
            if own != key {
                key = own;
                r = run_watching(&a, "explain", Some(key.as_str()));
            }
        }
    }
    // A bound pod is explained by the cycle that bound it, as that cycle saw
    // the cluster (unless --now asks for a cycle run now); a Pending pod, or
    // one the scheduler never placed (spec.nodeName), by a cycle run now.
    let running_on = r
        .cluster
        .pods()
        .find(|p| p.name() == key)
        .and_then(|p| p.node)
        .and_then(|n| r.cluster.node_by_id(n))
        .map(|n| n.name().to_string());
    let at_decision = match r.decision {
        Some(Ok((_, e))) if running_on.is_some() && e.bound_to == running_on => Some(e),
        _ => None,
    };
    let as_of = if at_decision.is_some() {
        "decision"
    } else {
        "now"
    };
    let found = match at_decision {
        Some(e) => Ok(e),
        None => r.cluster.explain(&key, &r.profile),
    };
    let e = found.unwrap_or_else(|err| {
        // A pod of the input deleted while converging: say by whom and why.
        let (_, gone) = not_running(&r.cluster, &r.imported.scenario);
        if let Some((_, reason, message)) = gone.iter().find(|(p, _, _)| *p == key) {
            eprintln!("shepherd: pod {ns}/{pod} was deleted while converging: {reason}: {message}");
            std::process::exit(1)
        }
        eprintln!("shepherd: {}", not_explained(&err, &r.cluster));
        std::process::exit(1)
    });
    if a.json {
        let mut v = explanation_json(&ns, &e);
        v["asOf"] = as_of.into();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|x| x.to_string())?
        );
        return Ok(());
    }
    // The summary says which: "was bound to" (the cycle that bound it) or
    // "as if it were placed again now".
    print_explanation(&ns, &e);
    Ok(())
}

/// Why `explain` has nothing to show, in one sentence with one "expected":
/// a pod not found names a few of the simulated pods, or says there are none.
fn not_explained(err: &shepherd::Error, cluster: &Cluster) -> String {
    let shepherd::Error::NotFound { kind, name } = err else {
        return err.to_string();
    };
    let names: Vec<String> = cluster
        .pods()
        .map(|p| shepherd::namespace::full_name(&p.name()))
        .take(8)
        .collect();
    let what = shepherd::limits::quoted(&shepherd::namespace::full_name(name));
    if names.is_empty() {
        format!("{kind} {what} not found: the simulation holds no pods; expected manifests with pods to explain")
    } else {
        format!(
            "{kind} {what} not found; expected one of the simulated pods, e.g. {}",
            names.join(", ")
        )
    }
}

fn explanation_json(ns: &str, e: &Explanation) -> serde_json::Value {
    let nodes: Vec<_> = e
        .nodes
        .iter()
        .map(|v| {
            serde_json::json!({
                "node": v.node,
                "feasible": v.feasible,
                "filter": v.plugin,
                "code": v.code.as_str(),
                "reasons": v.reasons,
                "detail": v.detail,
                "scores": v.scores.iter().map(|s| serde_json::json!({
                    "plugin": s.plugin, "raw": s.raw, "normalized": s.normalized,
                    "weight": s.weight, "weighted": s.weighted,
                })).collect::<Vec<_>>(),
                "total": v.total,
                "position": v.position,
            })
        })
        .collect();
    serde_json::json!({
        "pod": format!("{ns}/{}", shepherd::namespace::split(&e.pod).1),
        "phase": e.phase,
        "boundTo": e.bound_to,
        "requests": {"cpuMillis": e.requests.cpu_millis, "memoryBytes": e.requests.memory_bytes},
        "profile": e.profile,
        "summary": e.summary,
        "decidedBy": e.decided_by.as_ref().map(|(p, by)| serde_json::json!({"plugin": p, "margin": by})),
        "skipped": e.skipped,
        "nodes": nodes,
        "priority": e.priority,
        "preemption": e.preemption.as_ref().map(|p| serde_json::json!({
            "tick": p.tick,
            "carriedOut": p.recorded,
            "node": p.node,
            "decidedBy": p.decided_by,
            "potentialNodes": p.potential,
            "dryRunNodes": p.evaluated,
            "offset": p.offset,
            "candidatesFound": p.found,
            "candidates": p.candidates.iter().map(|c| serde_json::json!({
                "node": c.node,
                "victims": c.victims,
                "victimCount": c.victim_count,
                "pdbViolations": c.pdb_violations,
                "highestPriority": c.highest_priority,
                "prioritySum": c.priority_sum,
                "earliestStart": c.earliest_start,
            })).collect::<Vec<_>>(),
        })),
    })
}

fn print_explanation(ns: &str, e: &Explanation) {
    println!(
        "pod {ns}/{} ({}), requests {}, scheduler profile {}",
        shepherd::namespace::split(&e.pod).1,
        e.phase,
        e.requests,
        e.profile
    );
    println!("{}", e.summary);
    if let Some((p, by)) = &e.decided_by {
        println!("decided by {p}: {by} weighted points between the best node and the runner-up");
    }
    let w = e
        .nodes
        .iter()
        .map(|v| v.node.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!("\nfilters:");
    for v in &e.nodes {
        match v.plugin {
            None => println!("  {:<w$}  feasible", v.node),
            Some(p) => println!(
                "  {:<w$}  rejected by {p} ({}): {}{}",
                v.node,
                v.code.as_str(),
                v.reasons.join(", "),
                v.detail
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
        }
    }
    if let Some(p) = &e.preemption {
        print_preemption(e.priority, p);
    }
    let mut feasible: Vec<_> = e.nodes.iter().filter(|v| v.feasible).collect();
    if feasible.is_empty() {
        return;
    }
    feasible.sort_by_key(|v| (v.position, v.node.clone()));
    println!("\nscores (weighted = normalized x weight; the highest total wins):");
    if !e.skipped.is_empty() {
        println!(
            "  skipped at PreScore (nothing to score for this pod): {}",
            e.skipped.join(", ")
        );
    }
    for v in feasible {
        println!(
            "  {}. {:<w$}  total {}",
            v.position.unwrap_or(0),
            v.node,
            v.total.unwrap_or(0)
        );
        for s in &v.scores {
            println!(
                "       {:<32} raw {:>6}  normalized {:>3}  x {:>3} = {:>5}",
                s.plugin, s.raw, s.normalized, s.weight, s.weighted
            );
        }
    }
}

/// A candidate's victims as far as the decision names them.
fn named_victims(c: &shepherd::scheduler::PreemptionCandidate) -> String {
    let more = c.victim_count as usize - c.victims.len().min(c.victim_count as usize);
    if more == 0 {
        c.victims.join(", ")
    } else {
        format!("{} and {more} more", c.victims.join(", "))
    }
}

/// DefaultPreemption's candidates, in the order pickOneNodeForPreemption
/// ranks them (the chosen node first), with the figures it compares: the
/// best of those its dry run found.
fn print_preemption(priority: i32, p: &shepherd::scheduler::Preemption) {
    let done = if p.recorded {
        "deleted"
    } else {
        "would delete"
    };
    println!(
        "\npreemption (DefaultPreemption, tick {}): priority {priority}; {} chosen by {}; {done} {}",
        p.tick,
        p.node,
        p.decided_by,
        p.candidates[0].victims.join(", ")
    );
    println!(
        "  dry run: {} of {} potential node(s) from offset {}, {} candidate(s) found{}",
        p.evaluated,
        p.potential,
        p.offset,
        p.found,
        if p.candidates.len() < p.found as usize {
            format!(", the best {} shown", p.candidates.len())
        } else {
            String::new()
        }
    );
    println!(
        "  rules in order: {}, then the first node",
        shepherd::scheduler::PICK_RULES.join(", ")
    );
    let w = p
        .candidates
        .iter()
        .map(|c| c.node.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "  {:<w$}  {:>14}  {:>16}  {:>13}  {:>7}  {:>14}  victims",
        "node", "PDB violations", "highest priority", "priority sum", "victims", "earliest start"
    );
    for c in &p.candidates {
        println!(
            "  {:<w$}  {:>14}  {:>16}  {:>13}  {:>7}  {:>14}  {}",
            c.node,
            c.pdb_violations,
            c.highest_priority,
            c.priority_sum,
            c.victim_count,
            c.earliest_start,
            named_victims(c)
        );
    }
}

/// `shepherd kubectl FILE|DIR [--profile NAME] [--namespace NS] -- COMMAND [-- COMMAND ...]`:
/// imports and converges the input as `simulate` does, then runs each
/// kubectl command over it in turn (shepherd_k8s::kubectl). A command that
/// changes the cluster is applied one tick after the one before it and the
/// cluster converges again before the next; `apply -f -` reads standard
/// input. Exits 1 after the first command kubectl would fail, with its
/// error on standard error.
pub fn kubectl(args: &[String]) -> Result<(), String> {
    use shepherd_k8s::kubectl::{parse as kparse, run_deciding, Page, Reply};
    let cut = args.iter().position(|a| a == "--").ok_or(
        "kubectl needs the command after --, e.g. shepherd kubectl FILE -- get pods -o wide",
    )?;
    let a = parse(
        &args[..cut],
        &["--policy", "--profile", "--namespace", "--then"],
    )?;
    let commands: Vec<&[String]> = args[cut + 1..].split(|w| w == "--").collect();
    if commands.iter().any(|c| c.is_empty()) {
        return Err("an empty command between --; expected a kubectl command after each --".into());
    }
    // Every command is read before the input is: a mistake costs no import,
    // and is kubectl's (its words on standard error, exit 1).
    let parsed: Vec<shepherd_k8s::kubectl::Command> = commands
        .iter()
        .map(|w| kparse(w))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
    let mut stdin: Option<String> = None;
    let r = run(&a, "kubectl");
    let profile = r.profile.clone();
    let mut sim = shepherd::simulator::Simulator::new(7, profile.clone());
    *sim.cluster_mut() = r.cluster;
    // The changes applied so far, in order (tick, events, manifests), so
    // that `describe pod` can replay the run to a pod's bind.
    let mut applied: Vec<(u64, Vec<shepherd::simulator::Event>, Option<Scenario>)> = Vec::new();
    for cmd in parsed {
        if matches!(cmd, shepherd_k8s::kubectl::Command::Apply { .. }) && stdin.is_none() {
            if a.input.as_deref() == Some("-") {
                return Err("apply -f - reads standard input, which the input - took already; expected the cluster from a FILE or DIR".into());
            }
            stdin = Some(read_bounded(
                std::io::stdin(),
                "standard input",
                Options::default().limits.max_bytes,
            )?);
        }
        // describe pod explains a bound pod as of the cycle that bound it:
        // the input imported and converged again, then the changes before
        // this command, watching that pod's binds. Standard input cannot
        // be read twice: with the input -, it is explained as of now.
        let replayable = a.input.as_deref() != Some("-");
        let decide = |pod: &str| -> Option<(u64, Explanation)> {
            if !replayable {
                return None;
            }
            // Watched by its own name: the short form (`web-0`) names a pod
            // only once it exists.
            let own = sim
                .cluster()
                .pod_by_name(pod)
                .map(|p| p.name())
                .unwrap_or_else(|_| pod.to_string());
            let pod = own.as_str();
            let mut r = run_watching(&a, "kubectl", Some(pod));
            let mut last = r.decision.take();
            let mut replay = shepherd::simulator::Simulator::new(7, profile.clone());
            *replay.cluster_mut() = r.cluster;
            for (now, events, manifests) in &applied {
                replay.cluster_mut().set_now(*now);
                for e in events {
                    replay.apply(e).ok()?;
                }
                if let Some(sc) = manifests {
                    sc.apply_onto(replay.cluster_mut()).ok()?;
                }
                let (_, d) = converge_watching(
                    replay.cluster_mut(),
                    &Scenario::default(),
                    &profile,
                    Some(pod),
                );
                if d.is_some() {
                    last = d;
                }
            }
            last?.ok()
        };
        match run_deciding(
            sim.cluster(),
            &profile,
            Some(&decide),
            &cmd,
            stdin.as_deref(),
            Page::ALL,
        ) {
            Ok(Reply::Text { text, .. }) => print!("{text}"),
            Ok(Reply::Change {
                events,
                manifests,
                message,
                error,
            }) => {
                let now = sim.cluster().now() + 1;
                sim.cluster_mut().set_now(now);
                for e in &events {
                    sim.apply(e)
                        .map_err(|e| format!("Error from server: {e}"))?;
                }
                let mut scenario = None;
                if let Some(text) = manifests {
                    let im = import(&text).map_err(|e| format!("error: {e}"))?;
                    im.scenario
                        .apply_onto(sim.cluster_mut())
                        .map_err(|e| format!("Error from server: {e}"))?;
                    scenario = Some(im.scenario);
                }
                applied.push((now, events, scenario));
                if !message.is_empty() {
                    println!("{message}");
                }
                converge_until_ready(sim.cluster_mut(), &Scenario::default(), &profile);
                if let Some(e) = error {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the bytes it hands out.
    struct Counted<R> {
        inner: R,
        bytes: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.bytes.set(self.bytes.get() + n);
            Ok(n)
        }
    }

    #[test]
    fn an_endless_source_is_read_to_the_limit_and_one_byte_more() {
        let bytes = std::rc::Rc::new(std::cell::Cell::new(0));
        let endless = Counted {
            inner: std::io::repeat(b'a'),
            bytes: bytes.clone(),
        };
        let e = read_bounded(endless, "/dev/zero", 1 << 20).unwrap_err();
        assert_eq!(
            e,
            "/dev/zero holds more than 1048576 bytes; expected at most 1048576"
        );
        assert_eq!(bytes.get(), (1 << 20) + 1);
        let e = read_bounded(&b"a: \xff\n"[..], "x.yaml", 100).unwrap_err();
        assert!(
            e.contains("x.yaml is not UTF-8 text (byte 3 is not)"),
            "{e}"
        );
        assert_eq!(read_bounded(&b"a: 1\n"[..], "x", 5).unwrap(), "a: 1\n");
    }
}
