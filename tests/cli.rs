//! The command line as a boundary: random arguments, seeded and sized by
//! `SHEPHERD_FUZZ_OPS` (default 200, divided by 10: each case starts a
//! process). Nothing panics, bad arguments exit 2 with the usage, output stays
//! bounded whatever was typed. A failing case prints its seed:
//! `SHEPHERD_CLI_SEED=N cargo test --test cli`.

use std::process::Command;

use shepherd::simulator::Prng;

fn cases() -> Vec<u64> {
    if let Ok(v) = std::env::var("SHEPHERD_CLI_SEED") {
        return vec![v.trim().parse().expect("SHEPHERD_CLI_SEED is a number")];
    }
    let ops: u64 = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(200);
    (0..(ops / 10).max(5)).collect()
}

fn run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args(args)
        .output()
        .expect("the shepherd binary should start");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Arguments from a vocabulary that keeps every accepted run small.
fn args(rng: &mut Prng) -> Vec<String> {
    const WORDS: &[&str] = &[
        "converge",
        "demo",
        "bench",
        "help",
        "--seed",
        "--nodes",
        "--apps",
        "--policy",
        "--roll",
        "--pods",
        "--converge-only",
        "rollout",
        "status",
        "--deployment",
        "--at",
        "--timeout",
        "binpack",
        "leastloaded",
        "0",
        "1",
        "3",
        "7",
        "-1",
        "1e3",
        "18446744073709551616",
        "",
        " ",
        "extra",
        "--",
        "--nodes=3",
        "é",
        "\u{7}",
    ];
    let mut a: Vec<String> = Vec::new();
    for _ in 0..rng.range(0, 6) {
        a.push(WORDS[rng.below(WORDS.len() as u64) as usize].to_string());
    }
    if rng.chance(5) {
        a.push("x".repeat(100_000));
    }
    // Keep accepted runs cheap: bench only with a bad option, converge small.
    if a.first().map(String::as_str) == Some("bench") {
        a.push("--nodes".into());
        a.push("0".into());
    }
    a
}

#[test]
fn random_arguments_never_panic_and_bad_ones_exit_2_with_the_usage() {
    let mut failed = Vec::new();
    for seed in cases() {
        let mut rng = Prng::new(seed);
        let a = args(&mut rng);
        let (code, out, err) = run(&a);
        let shown: Vec<String> = a.iter().map(|s| s.chars().take(20).collect()).collect();
        let why = if err.contains("panicked") {
            Some(format!("panicked: {err}"))
        } else if !matches!(code, 0..=2) {
            Some(format!("exit status {code}"))
        } else if code == 2 && !err.contains("usage:") {
            Some(format!("exit 2 without the usage: {err}"))
        } else if err.len() > 4096 {
            Some(format!("{} bytes on stderr", err.len()))
        } else if code == 0 && out.is_empty() {
            Some("success with no output".into())
        } else {
            None
        };
        if let Some(why) = why {
            eprintln!("[cli] seed {seed} {shown:?}: {why}\n[cli] reproduce: SHEPHERD_CLI_SEED={seed} cargo test --test cli");
            failed.push(seed);
        }
    }
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
}

#[test]
fn argument_mistakes_are_named() {
    for (args, want) in [
        (
            vec!["converge", "--nodes", "5", "--nodes", "7"],
            "--nodes is given twice",
        ),
        (vec!["demo", "extra"], "this command takes no options"),
        (vec!["bench", "--nodes", "100000"], "from 1 to 10000"),
        (vec!["converge", "--apps", "x"], "--apps \"x\" is not valid"),
    ] {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (code, _, err) = run(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

fn rollout_status(extra: &[&str]) -> (i32, String, String) {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/manifests/rollout.yaml"
    );
    let mut a = vec!["rollout".to_string(), "status".into(), file.into()];
    a.extend(extra.iter().map(|s| s.to_string()));
    run(&a)
}

#[test]
fn rollout_status_prints_kubectls_lines_tick_by_tick() {
    // web: 3 pods bound at tick 1, Ready at 2, available after minReadySeconds 10.
    let (code, out, err) = rollout_status(&["--deployment", "web"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Waiting for deployment \"web\" rollout to finish: 0 of 3 updated replicas are available...\n\
         deployment \"web\" successfully rolled out\n"
    );
    let (code, out, _) = rollout_status(&["--deployment", "web", "--at", "11"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Waiting for deployment \"web\" rollout to finish: 0 of 3 updated replicas are available...\n"
    );
    let (_, out, _) = rollout_status(&["--deployment", "web", "--at", "12"]);
    assert_eq!(out, "deployment \"web\" successfully rolled out\n");

    // stuck: its pods fit no node; progress was last made at tick 1 (its
    // pods created), so the 120 s deadline passes at tick 121.
    let (code, out, err) = rollout_status(&["--deployment", "stuck"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "Waiting for deployment \"stuck\" rollout to finish: 0 of 2 updated replicas are available...\n"
    );
    assert_eq!(
        err,
        "error: deployment \"stuck\" exceeded its progress deadline\n"
    );
    let (code, out, _) = rollout_status(&["--deployment", "stuck", "--at", "120"]);
    assert_eq!((code, out.contains("0 of 2 updated replicas")), (0, true));
    let (code, _, err) = rollout_status(&["--deployment", "stuck", "--at", "121"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: deployment \"stuck\" exceeded its progress deadline\n"
    );
    let (code, _, err) = rollout_status(&["--deployment", "stuck", "--timeout", "50"]);
    assert_eq!(code, 1);
    assert_eq!(err, "error: timed out waiting for the condition\n");

    // Mistakes: usage (exit 2) for arguments, kubectl's error for a missing name.
    let (code, _, err) = rollout_status(&[]);
    assert_eq!(code, 2);
    assert!(err.contains("rollout status needs --deployment NAME") && err.contains("usage:"));
    let (code, _, err) = rollout_status(&["--deployment", "web", "--at", "soon"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--at \"soon\" is not valid; expected a whole number of ticks"),
        "{err}"
    );
    let (code, _, err) = rollout_status(&["--deployment", "api"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "deployments.apps \"api\" not found in namespace \"default\" of the input; expected one of: web, stuck"
        ),
        "{err}"
    );
}

/// Namespaces on the command line as kubectl takes them: `rollout status
/// -n NS`, `explain --pod NAMESPACE/NAME`, `simulate` listing every
/// namespace with a NAMESPACE column, and `--namespace` as a filter.
#[test]
fn namespaces_are_named_as_kubectl_names_them() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/manifests/namespaces.yaml"
    );
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    // shop/web and blog/web: two Deployments named web.
    for ns in ["shop", "blog"] {
        let (code, out, err) = run(&s(&[
            "rollout",
            "status",
            file,
            "--deployment",
            "web",
            "-n",
            ns,
        ]));
        assert_eq!(code, 0, "{err}");
        assert!(
            out.ends_with("deployment \"web\" successfully rolled out\n"),
            "{out}"
        );
    }
    let (code, _, err) = run(&s(&["rollout", "status", file, "--deployment", "web"]));
    assert_eq!(code, 1);
    assert!(err.contains("not found in namespace \"default\""), "{err}");
    // explain: NAMESPACE/NAME; blog/cache-0 is kept off node-a by shop's web pods.
    let (code, out, err) = run(&s(&["explain", file, "--pod", "blog/cache-0"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("pod blog/cache-rlxhbn2q-5j4wc (Running)"),
        "{out}"
    );
    assert!(
        out.contains("node-a") && out.contains("anti-affinity"),
        "{out}"
    );
    let (code, _, err) = run(&s(&["explain", file, "--pod", "cache-0"]));
    assert_eq!(code, 1, "a bare NAME is in the namespace default: {err}");
    // simulate: every namespace, with kubectl's NAMESPACE column.
    let (code, out, err) = run(&s(&["simulate", file]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("NAMESPACE   NAME"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("shop ") && l.contains("web-rp59bsrt-cvflh")),
        "{out}"
    );
    // --namespace (-n) takes one namespace; the rest is skipped and said so.
    let (code, out, err) = run(&s(&["simulate", file, "-n", "shop"]));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("blog/"), "{out}");
    assert!(
        out.contains("this import takes namespace \"shop\" alone"),
        "{out}"
    );
    let (code, _, err) = run(&s(&["simulate", file, "-n", "Shop"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("namespace name \"Shop\" is not valid"),
        "{err}"
    );
}

/// `--then` applies a second file to the converged cluster: a high-priority
/// Deployment arriving in a full cluster preempts, and `explain` says which
/// node was chosen, the victims and the figures of every candidate.
#[test]
fn explain_then_shows_the_preemption_and_its_figures() {
    let dir = format!("{}/../tests/manifests", env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = [
        "explain",
        &format!("{dir}/priority-full-cluster.yaml"),
        "--then",
        &format!("{dir}/priority-high-job.yaml"),
        "--pod",
        "default/web-0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    // Both nodes free 2 CPUs by deleting two batch pods (priority 50): every
    // figure ties, so the first node wins; its two latest-bound pods go.
    assert!(out.contains("preemption (DefaultPreemption"), "{out}");
    assert!(
        out.contains("node-1 chosen by first in node order"),
        "{out}"
    );
    assert!(
        out.contains("node-1               0                50     4294967396        2"),
        "{out}"
    );
    // Explained as of the cycle that bound it: the nominated node, taken
    // without scoring the others.
    assert!(
        out.contains("web-55dj4nws-d2g7x was bound to node-1, its nominated node"),
        "{out}"
    );
    // --now: the same pod scored against the cluster as it is now.
    let mut now_args = args.clone();
    now_args.push("--now".into());
    let (code, now, err) = run(&now_args);
    assert_eq!(code, 0, "{err}");
    assert!(
        now.contains(
            "web-55dj4nws-d2g7x is bound to node-1; the scores below are as if it were placed again now"
        ),
        "{now}"
    );
    // kubectl describe pod answers as of the decision too, with its tick.
    let (code, described, err) = run(&[
        "kubectl".into(),
        format!("{dir}/priority-full-cluster.yaml"),
        "--then".into(),
        format!("{dir}/priority-high-job.yaml"),
        "--".into(),
        "describe".into(),
        "pod".into(),
        "web-0".into(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        described.contains("Explain (default-scheduler, as of the scheduling cycle that bound it, tick 2):\n  web-55dj4nws-d2g7x was bound to node-1, its nominated node"),
        "{described}"
    );
    let mut json_args = args.clone();
    json_args.extend(["--output".to_string(), "json".to_string()]);
    let (code, out, err) = run(&json_args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("explain --output json is JSON");
    assert_eq!(v["asOf"], "decision");
    assert_eq!(v["priority"], 1000);
    assert_eq!(v["preemption"]["node"], "node-1");
    assert_eq!(
        v["preemption"]["candidates"][0]["victims"]
            .as_array()
            .map(|a| a.len()),
        Some(2)
    );
    assert_eq!(v["preemption"]["candidates"][1]["node"], "node-2");
    // A second file that does not exist is named.
    let (code, _, err) = run(&[
        "simulate".into(),
        format!("{dir}/priority-full-cluster.yaml"),
        "--then".into(),
        "/nonexistent/x.yaml".into(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--then /nonexistent/x.yaml"), "{err}");
}

/// A DaemonSet at system-node-critical arriving in the full cluster: its pod
/// on each node preempts one batch pod there (the only candidate node is
/// the one it is pinned to), `explain` shows the decision, and `simulate`
/// lists the evicted pods' replacements as Pending.
#[test]
fn a_daemonset_pod_preempts_on_its_node_and_explain_shows_it() {
    let dir = format!("{}/../tests/manifests", env!("CARGO_MANIFEST_DIR"));
    let then = |cmd: &str| -> Vec<String> {
        vec![
            cmd.to_string(),
            format!("{dir}/priority-full-cluster.yaml"),
            "--then".to_string(),
            format!("{dir}/priority-node-agent.yaml"),
        ]
    };
    let mut args = then("explain");
    args.extend(["--pod".to_string(), "kube-system/node-agent-0".to_string()]);
    args.extend(["--output".to_string(), "json".to_string()]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("explain --output json is JSON");
    assert_eq!(v["priority"], 2000001000);
    let pre = &v["preemption"];
    assert_eq!(pre["node"], "node-1", "{out}");
    assert_eq!(
        pre["candidates"].as_array().map(|a| a.len()),
        Some(1),
        "{out}"
    );
    let victims = pre["candidates"][0]["victims"].as_array().expect("victims");
    assert_eq!(victims.len(), 1, "{out}");
    assert!(
        victims[0].as_str().is_some_and(|n| n.starts_with("batch-")),
        "{out}"
    );
    let (code, out, err) = run(&then("simulate"));
    assert_eq!(code, 0, "{err}");
    // Two replacements (priority 50, preemptionPolicy Never) wait.
    assert!(out.contains("pending (2):"), "{out}");
    assert!(
        out.contains("node-agent-b7zcf") && out.contains("node-agent-xtpgs"),
        "{out}"
    );
}

/// A reader that closes the pipe early (`shepherd converge | head -1`) ends
/// the command quietly: no panic on the next print.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args(["converge", "--nodes", "3000", "--apps", "300"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the shepherd binary should start");
    // Read the first bytes, then close our end while it still prints.
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_exact(&mut first)
        .expect("it prints");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr is piped")
        .read_to_string(&mut err)
        .expect("stderr reads");
    child.wait().expect("it ends");
    assert!(!err.contains("panicked"), "{err}");
}

/// A file past the import's size limit (64 MiB) is refused from its size,
/// alone or in a folder, before it is read: the files here are sparse, so
/// reading one whole would take 80 MB of memory to find it too large.
#[test]
fn an_input_past_the_size_limit_is_refused_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("shepherd-cli-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let small = dir.join("a-node.yaml");
    std::fs::write(
        &small,
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n",
    )
    .expect("a small manifest");
    let large = dir.join("b-large.yaml");
    std::fs::File::create(&large)
        .and_then(|f| f.set_len(80 << 20))
        .expect("a sparse 80 MiB file");
    let (code, out, err) = run(&["simulate".into(), dir.display().to_string()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("holds more than 67108864 bytes of manifests")
            && err.contains("b-large.yaml alone is 83886080 bytes"),
        "{err}"
    );
    let (code, out, err) = run(&["simulate".into(), large.display().to_string()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("is 83886080 bytes; expected at most 67108864"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Writes `text` to a file of its own for one test and returns its path.
fn temp_file(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("shepherd-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("the temporary file should be writable");
    p.to_string_lossy().into_owned()
}

const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: NAME}\nstatus:\n  allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}\n  conditions: [{type: Ready, status: \"READY\"}]\n";

fn node_doc(name: &str, ready: bool) -> String {
    NODE.replace("NAME", name)
        .replace("READY", if ready { "True" } else { "False" })
}

fn pod_doc(name: &str, node: Option<&str>, cpu: &str, extra_meta: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{extra_meta}spec:\n{}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: {cpu}}}}}}}]\n",
        node.map_or(String::new(), |n| format!("  nodeName: {n}\n"))
    )
}

/// Issue 42, row 8: every pod of the input is in `simulate`'s output with
/// the status Kubernetes shows, or named with the reason it is not there.
/// Before, each of these vanished without a word.
#[test]
fn simulate_names_every_pod_of_the_input() {
    let owned = "  ownerReferences: [{apiVersion: v1, kind: Pod, name: parent, uid: \"1\", controller: true}]\n";
    let docs = [
        node_doc("node-1", true),
        node_doc("node-down", false),
        pod_doc("ghost", Some("node-9"), "100m", ""),
        pod_doc("huge", Some("node-1"), "\"3\"", ""),
        pod_doc("down", Some("node-down"), "100m", ""),
        pod_doc("parent", None, "100m", ""),
        pod_doc("child", None, "100m", owned),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      priorityClassName: missing-class\n      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n".to_string(),
    ];
    let file = temp_file("row8.yaml", &docs.join("---\n"));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let (code, out, err) = run(&s(&["simulate", &file]));
    assert_eq!(code, 0, "{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // NAME READY STATUS RESTARTS AGE IP NODE ...
    assert_eq!((row("ghost")[2], row("ghost")[6]), ("Pending", "node-9"));
    assert_eq!((row("huge")[2], row("huge")[6]), ("OutOfcpu", "node-1"));
    assert_eq!(
        (row("down")[1], row("down")[2], row("down")[6]),
        ("0/1", "Pending", "node-down")
    );
    assert_eq!(row("child")[2], "Running");
    assert!(
        out.contains("ghost: spec.nodeName node-9: no node has this name"),
        "{out}"
    );
    assert!(
        out.contains("pod huge: OutOfcpu: Pod was rejected: Node didn't have enough resource: cpu, requested: 3000"),
        "{out}"
    );
    assert!(
        out.contains("deployment web (0 of 2 pods): FailedCreate: Error creating: pods \"web-")
            && out.contains("is forbidden: no PriorityClass with name missing-class was found"),
        "{out}"
    );
    assert!(
        out.contains("owned by Pod \"parent\", which is not a controller Shepherd runs"),
        "{out}"
    );
    // explain answers for each, in kubelet's terms where the scheduler had no part.
    let (code, out, err) = run(&s(&["explain", &file, "--pod", "huge"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("huge is Failed (OutOfcpu)"), "{out}");
    let (code, out, err) = run(&s(&["explain", &file, "--pod", "down"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("whose kubelet is silent (NotReady)"), "{out}");
    let _ = std::fs::remove_file(&file);
}

/// Issue 42, row 9: a bare Pod bound to a node with an untolerated
/// NoExecute taint is deleted by the taint-eviction controller, and
/// `simulate` and `explain` say so.
#[test]
fn a_pod_the_taint_eviction_controller_deletes_is_named_with_the_reason() {
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nspec:\n  taints: [{key: maintenance, effect: NoExecute}]\nstatus:\n  allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}\n";
    let file = temp_file(
        "row9.yaml",
        &[
            node.to_string(),
            pod_doc("pinned", Some("node-1"), "100m", ""),
        ]
        .join("---\n"),
    );
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let (code, out, err) = run(&s(&["simulate", &file]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("deleted while converging (1):\n  pod pinned: TaintManagerEviction: Marking for deletion Pod default/pinned"),
        "{out}"
    );
    let (code, _, err) = run(&s(&["explain", &file, "--pod", "pinned"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("pod default/pinned was deleted while converging: TaintManagerEviction"),
        "{err}"
    );
    let _ = std::fs::remove_file(&file);
}

/// Issue 42, row 12: `--then` is `kubectl apply`: a file that changes an
/// existing Deployment updates it (the changed template rolls to a new
/// ReplicaSet, the new replicas scale) instead of refusing "app web already
/// exists"; an immutable field changed (the selector, a Pod's spec) is
/// refused as the API server refuses it, with nothing applied.
#[test]
fn then_applies_a_changed_deployment_as_kubectl_apply_does() {
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n";
    let web = |replicas: u32, version: &str, selector: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{{selector}}}}}\n  template:\n    metadata: {{labels: {{app: web, version: {version}}}}}\n    spec:\n      containers: [{{name: c, image: x, resources: {{requests: {{cpu: 100m}}}}}}]\n")
    };
    let base = temp_file(
        "base.yaml",
        &[
            node.to_string(),
            web(3, "v1", "app: web"),
            pod_doc("debug", None, "100m", ""),
        ]
        .join("---\n"),
    );
    let roll = temp_file("roll.yaml", &web(5, "v2", "app: web"));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let (code, out, err) = run(&s(&[
        "simulate", &base, "--then", &roll, "--output", "json",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let web_pods: Vec<&serde_json::Value> = v["pods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["app"] == "web")
        .collect();
    assert_eq!(web_pods.len(), 5, "{out}");
    assert!(web_pods
        .iter()
        .all(|p| p["ready"] == true && p["status"] == "Running"));
    // The roll replaced the three v1 pods: the five are new ones.
    assert!(web_pods
        .iter()
        .all(|p| p["name"] != "web-0" && p["name"] != "web-1" && p["name"] != "web-2"));
    let (code, out, err) = run(&s(&["explain", &base, "--then", &roll, "--pod", "web-3"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("pod default/web-vjnkbqdk-r7mwz (Running)"),
        "{out}"
    );
    // Refusals, as the API server words them; nothing applied.
    let moved = temp_file("selector.yaml", &web(3, "v1", "app: web, version: v1"));
    let (code, _, err) = run(&s(&["simulate", &base, "--then", &moved]));
    assert_eq!(code, 1);
    assert!(
        err.contains("Deployment.apps \"web\" is invalid: spec.selector: Invalid value: app=web,version=v1: field is immutable"),
        "{err}"
    );
    let pod = temp_file("pod.yaml", &pod_doc("debug", None, "200m", ""));
    let (code, _, err) = run(&s(&["simulate", &base, "--then", &pod]));
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "Pod \"debug\" is invalid: spec: Forbidden: pod updates may not change fields"
        ),
        "{err}"
    );
    // The same Pod again is no change.
    let same = temp_file("same.yaml", &pod_doc("debug", None, "100m", ""));
    let (code, _, err) = run(&s(&["simulate", &base, "--then", &same]));
    assert_eq!(code, 0, "{err}");
    for f in [base, roll, moved, pod, same] {
        let _ = std::fs::remove_file(f);
    }
}

/// Issue 42, row 11: what is not a regular file is never read past the
/// limit, and a folder's FIFO is never opened. `/dev/zero` is read as
/// standard input is (up to the limit, then refused); in a folder, a FIFO
/// and a symbolic link to a device refuse the folder before anything is
/// opened. The FIFO run is watched: a reader that opened it would wait for
/// a writer forever, and is killed and reported after a minute.
#[test]
fn non_regular_files_are_bounded_and_a_folders_fifo_is_never_opened() {
    let (code, out, err) = run(&["simulate".into(), "/dev/zero".into()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("/dev/zero holds more than 67108864 bytes; expected at most 67108864"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("shepherd-cli-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    std::fs::write(
        dir.join("a-node.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n",
    )
    .expect("a small manifest");
    let made = Command::new("mkfifo")
        .arg(dir.join("b-fifo.yaml"))
        .status()
        .expect("mkfifo should run");
    assert!(made.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args(["simulate", &dir.display().to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the shepherd binary should start");
    let mut waited = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("a child to wait on") {
            break s;
        }
        if waited >= 600 {
            child.kill().ok();
            panic!("simulate opened the folder's FIFO and waits for a writer");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    let out = child.wait_with_output().expect("the output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("b-fifo.yaml in the folder")
            && err.contains("is a FIFO (named pipe); expected regular files"),
        "{err}"
    );
    std::fs::remove_file(dir.join("b-fifo.yaml")).ok();

    std::os::unix::fs::symlink("/dev/zero", dir.join("c-zero.yaml")).expect("a symbolic link");
    let (code, out, err) = run(&["simulate".into(), dir.display().to_string()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("c-zero.yaml in the folder") && err.contains("is a character device"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 42's smaller messages: `explain` for a pod that is not there says
/// "expected" once, and names some pods, or says there are none.
#[test]
fn explain_names_a_missing_pod_once_and_what_there_is() {
    let dir = format!("{}/../tests/manifests", env!("CARGO_MANIFEST_DIR"));
    let args = |file: &str| -> Vec<String> {
        ["explain", &format!("{dir}/{file}"), "--pod", "nope"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let (code, out, err) = run(&args("priority-full-cluster.yaml"));
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.starts_with("shepherd: pod \"default/nope\" not found; expected one of the simulated pods, e.g. default/"),
        "{err}"
    );
    assert_eq!(err.matches("expected").count(), 1, "{err}");

    let tmp = std::env::temp_dir().join(format!("shepherd-cli-nopods-{}.yaml", std::process::id()));
    std::fs::write(
        &tmp,
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n",
    )
    .expect("a manifest");
    let (code, out, err) = run(&[
        "explain".into(),
        tmp.display().to_string(),
        "--pod".into(),
        "nope".into(),
    ]);
    std::fs::remove_file(&tmp).ok();
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        err.trim_end(),
        "shepherd: pod \"default/nope\" not found: the simulation holds no pods; expected manifests with pods to explain"
    );
}

fn kubectl(words: &str, stdin: Option<&str>) -> (i32, String, String) {
    use std::io::Write;
    let mut args = vec![
        "kubectl".to_string(),
        "../tests/manifests/workloads.yaml".to_string(),
    ];
    args.extend(words.split(' ').map(String::from));
    let mut child = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the shepherd binary should start");
    let mut input = child.stdin.take().expect("stdin is piped");
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn kubectl_get_pods_wide_lists_the_converged_placement() {
    let (code, out, err) = kubectl("-- get pods -o wide", None);
    assert_eq!(code, 0, "{err}");
    let head: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        head,
        [
            "NAME",
            "READY",
            "STATUS",
            "RESTARTS",
            "AGE",
            "IP",
            "NODE",
            "NOMINATED",
            "NODE",
            "READINESS",
            "GATES"
        ]
    );
    // The kubelet's refusal of load-test shows as kubectl shows status.reason.
    assert!(
        out.lines()
            .any(|l| l.starts_with("load-test") && l.contains("OutOfcpu")),
        "{out}"
    );
    // The same placement as simulate's table.
    let (_, sim, _) = run(&[
        "simulate".into(),
        "../tests/manifests/workloads.yaml".into(),
    ]);
    for l in out.lines().skip(1) {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert!(
            sim.lines()
                .any(|s| s.split_whitespace().next() == Some(w[0]) && s.contains(w[6])),
            "{} on {} not in simulate's output:\n{sim}",
            w[0],
            w[6]
        );
    }
}

#[test]
fn kubectl_commands_run_in_turn_and_errors_exit_1_in_kubectls_words() {
    let (code, out, err) = kubectl(
        "-- cordon ip-10-0-2-44.ec2.internal -- scale deploy/api --replicas 3 -- get nodes -- get deploy",
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("node/ip-10-0-2-44.ec2.internal cordoned\n"),
        "{out}"
    );
    assert!(out.contains("deployment.apps/api scaled\n"), "{out}");
    assert!(
        out.contains("ip-10-0-2-44.ec2.internal   Ready,SchedulingDisabled"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("api ") && l.contains("3/3")),
        "{out}"
    );
    let (code, _, err) = kubectl("-- get pods nope", None);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "Error from server (NotFound): pods \"nope\" not found\n"
    );
    let (code, _, err) = kubectl("-- get foo", None);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "error: the server doesn't have a resource type \"foo\"\n"
        )
    );
}

#[test]
fn kubectl_apply_reads_standard_input() {
    let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: cache}\n  template:\n    metadata:\n      labels: {app: cache}\n    spec:\n      containers:\n      - name: c\n        image: redis\n        resources:\n          requests: {cpu: 100m, memory: 64Mi}\n";
    let (code, out, err) = kubectl("-- apply -f - -- get deploy cache", Some(yaml));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("deployment.apps/cache created\n"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("cache ") && l.contains("2/2")),
        "{out}"
    );
}

/// `simulate` shows the extended resources a cluster has: per resource,
/// what is requested of what the nodes offer, then node by node; the JSON
/// output gives each node's scalars.
#[test]
fn simulate_shows_the_extended_resources_a_cluster_has() {
    let dir = std::env::temp_dir().join(format!("shepherd-cli-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("gpus.yaml");
    let node = |name: &str, gpus: &str| {
        format!("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nstatus:\n  allocatable:\n    cpu: \"8\"\n    memory: 32Gi\n    ephemeral-storage: 100Gi\n{gpus}")
    };
    let text = node("gpu-a", "    nvidia.com/gpu: \"4\"\n")
        + &node("gpu-b", "    nvidia.com/gpu: \"2\"\n")
        + &node("plain", "")
        + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: train\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: train}\n  template:\n    metadata:\n      labels: {app: train}\n    spec:\n      containers:\n      - name: c\n        resources:\n          requests: {cpu: 100m, ephemeral-storage: 1Gi}\n          limits: {nvidia.com/gpu: 1}\n";
    std::fs::write(&file, text).expect("the manifest");
    let path = file.display().to_string();
    let (code, out, err) = run(&["simulate".into(), path.clone()]);
    assert_eq!(code, 0, "{out}{err}");
    let section = out
        .split("extended resources (requests of allocatable):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no extended resources section:\n{out}"));
    let lines: Vec<&str> = section.lines().take(7).map(str::trim).collect();
    // ephemeral-storage: 3Gi of 300Gi on 3 nodes; nvidia.com/gpu 3 of 6 on 2.
    assert!(
        lines[0].starts_with("ephemeral-storage")
            && lines[0].ends_with("3Gi/300Gi (1%) on 3 nodes"),
        "{section}"
    );
    let gpu = lines
        .iter()
        .position(|l| l.starts_with("nvidia.com/gpu"))
        .expect("a GPU line");
    assert!(lines[gpu].ends_with("3/6 (50%) on 2 nodes"), "{section}");
    let per_node: Vec<&str> = lines[gpu + 1..gpu + 3].to_vec();
    assert!(
        per_node
            .iter()
            .all(|l| l.starts_with("gpu-a: ") || l.starts_with("gpu-b: ")),
        "{section}"
    );
    let (code, out, err) = run(&["simulate".into(), path, "--output".into(), "json".into()]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let nodes = v["nodes"].as_array().expect("nodes");
    let a = nodes.iter().find(|n| n["name"] == "gpu-a").expect("gpu-a");
    assert_eq!(a["scalars"]["nvidia.com/gpu"]["allocatable"], 4);
    let used: u64 = nodes
        .iter()
        .map(|n| {
            n["scalars"]["nvidia.com/gpu"]["requested"]
                .as_u64()
                .unwrap_or(0)
        })
        .sum();
    assert_eq!(used, 3);
    std::fs::remove_dir_all(&dir).ok();
}
