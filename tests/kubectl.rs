//! kubectl's words over the engine (shepherd_k8s::kubectl): what each verb
//! prints for a known cluster, in kubectl's columns and errors, and what
//! each change does once its events are applied.

use shepherd::quantity::MIB;
use shepherd::simulator::Simulator;
use shepherd::{
    BarePodSpec, Budget, DaemonSetSpec, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec,
    PodTemplate, Profile, Resources, Selector, ServiceSpec,
};
use shepherd_k8s::kubectl::{run_line, Page, Reply};

/// Three nodes, a Deployment `web` of 4, a DaemonSet `agent`, a bare Pod
/// `debug` on node-1, a budget and a Service, converged.
fn cluster() -> Simulator {
    let mut sim = Simulator::new(7, Profile::default());
    let c = sim.cluster_mut();
    for (i, zone) in ["a", "b", "c"].iter().enumerate() {
        c.add_node(
            NodeSpec::new(&format!("node-{}", i + 1), 4000, 8192 * MIB).with_label("zone", zone),
        )
        .unwrap();
    }
    c.deploy(DeploymentSpec::new(
        "web",
        4,
        Resources::new(500, 512 * MIB),
    ))
    .unwrap();
    c.create_daemonset(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(100, 64 * MIB)).with_label("app", "agent"),
    ))
    .unwrap();
    c.create_bare_pod(BarePodSpec {
        name: "debug".into(),
        template: PodTemplate::new(Resources::new(100, 64 * MIB)).with_label("run", "debug"),
        node_name: Some("node-1".into()),
    })
    .unwrap();
    c.add_pdb(PdbSpec {
        name: "web-pdb".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MinAvailable(IntOrPercent::Int(3)),
    })
    .unwrap();
    c.add_service(ServiceSpec {
        name: "web".into(),
        selector: Selector::new(&[("app", "web")]),
    })
    .unwrap();
    settle(&mut sim);
    sim
}

fn settle(sim: &mut Simulator) {
    for _ in 0..5 {
        sim.step();
    }
}

fn text(sim: &Simulator, line: &str) -> String {
    match run_line(sim.cluster(), sim.profile(), line, None, Page::ALL) {
        Ok(Reply::Text { text, .. }) => text,
        other => panic!("{line}: expected text, got {other:?}"),
    }
}

fn err(sim: &Simulator, line: &str) -> String {
    match run_line(sim.cluster(), sim.profile(), line, None, Page::ALL) {
        Err(e) => e,
        other => panic!("{line}: expected an error, got {other:?}"),
    }
}

/// Runs a change and applies its events; returns what kubectl printed.
fn change(sim: &mut Simulator, line: &str) -> String {
    match run_line(sim.cluster(), sim.profile(), line, None, Page::ALL) {
        Ok(Reply::Change {
            events,
            message,
            error,
            ..
        }) => {
            for e in &events {
                sim.apply(e)
                    .unwrap_or_else(|x| panic!("{line}: {e:?} refused: {x}"));
            }
            settle(sim);
            match error {
                Some(e) => format!("{message}\n{e}"),
                None => message,
            }
        }
        other => panic!("{line}: expected a change, got {other:?}"),
    }
}

fn column(table: &str, name: &str) -> Vec<String> {
    let mut lines = table.lines();
    let head = lines.next().unwrap();
    let at = head
        .find(name)
        .unwrap_or_else(|| panic!("no column {name} in {head}"));
    lines
        .map(|l| {
            l.get(at..)
                .unwrap_or("")
                .split("   ")
                .next()
                .unwrap()
                .trim()
                .to_string()
        })
        .collect()
}

#[test]
fn get_pods_prints_kubectls_columns_sorted_by_name() {
    let sim = cluster();
    let t = text(&sim, "get pods");
    let head = t.lines().next().unwrap();
    assert_eq!(
        head.split_whitespace().collect::<Vec<_>>(),
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    );
    let names = column(&t, "NAME");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "the API server lists by name");
    assert_eq!(names.len(), 4 + 3 + 1);
    assert!(column(&t, "STATUS").iter().all(|s| s == "Running"), "{t}");
    let wide = text(&sim, "get pods -o wide");
    assert!(
        wide.lines()
            .next()
            .unwrap()
            .contains("IP       NODE     NOMINATED NODE   READINESS GATES"),
        "{wide}"
    );
    // Each pod's NODE is where the engine bound it.
    for (name, node) in column(&wide, "NAME").iter().zip(column(&wide, "NODE")) {
        let p = sim.cluster().pod_by_name(name).unwrap();
        assert_eq!(
            sim.cluster().node_by_id(p.node.unwrap()).unwrap().name(),
            node
        );
    }
}

#[test]
fn age_counts_from_creation_pending_pods_too() {
    // kubectl's AGE is translateTimestampSince(pod.CreationTimestamp)
    // (pkg/printers/internalversion/printers.go, printPod), for every pod:
    // a Pending pod has one too.
    let mut sim = cluster();
    sim.cluster_mut()
        .deploy(DeploymentSpec::new(
            "huge",
            2,
            Resources::new(64_000, 512 * MIB),
        ))
        .unwrap();
    sim.step();
    let created = sim.tick();
    let pending: Vec<String> = sim
        .cluster()
        .pods()
        .filter(|p| p.app == "huge")
        .map(|p| {
            assert!(p.node.is_none());
            assert_eq!(p.created_at, created, "{}", p.name());
            p.name()
        })
        .collect();
    assert_eq!(pending.len(), 2);
    for _ in 0..40 {
        sim.step();
    }
    let t = text(&sim, "get pods");
    for (name, (status, age)) in column(&t, "NAME")
        .iter()
        .zip(column(&t, "STATUS").into_iter().zip(column(&t, "AGE")))
    {
        if pending.contains(name) {
            assert_eq!((status.as_str(), age.as_str()), ("Pending", "40s"), "{t}");
        } else {
            // The rest were created in the first ticks and bound at once.
            let p = sim.cluster().pod_by_name(name).unwrap();
            assert_eq!(age, format!("{}s", sim.tick() - p.created_at), "{t}");
            assert_eq!(p.created_at, p.bound_at, "{name}");
        }
    }
}

#[test]
fn selectors_and_field_selectors_filter_as_the_api_server_does() {
    let sim = cluster();
    let web = column(&text(&sim, "get pods -l app=web"), "NAME");
    assert_eq!(web.len(), 4);
    assert!(web.iter().all(|n| n.starts_with("web-")));
    let set = column(&text(&sim, "get po -l 'app in (web,agent)'"), "NAME");
    assert_eq!(set.len(), 7);
    let not = column(&text(&sim, "get po -l 'app notin (web,agent)'"), "NAME");
    assert_eq!(not, ["debug"]);
    let on1 = column(
        &text(&sim, "get pods --field-selector spec.nodeName=node-1"),
        "NAME",
    );
    let want = sim
        .cluster()
        .pods_on(sim.cluster().node("node-1").unwrap().id)
        .count();
    assert_eq!(on1.len(), want);
    assert!(on1.contains(&"debug".to_string()));
    let t = text(&sim, "get pods --field-selector status.phase=Pending");
    assert_eq!(t, "No resources found in default namespace.\n");
    let e = err(&sim, "get pods --field-selector spec.bogus=1");
    assert!(
        e.starts_with("Error from server (BadRequest)")
            && e.ends_with("field label not supported: spec.bogus"),
        "{e}"
    );
}

#[test]
fn errors_are_kubectls() {
    let sim = cluster();
    assert_eq!(
        err(&sim, "get pods nope"),
        "Error from server (NotFound): pods \"nope\" not found"
    );
    assert_eq!(
        err(&sim, "get deploy nope"),
        "Error from server (NotFound): deployments.apps \"nope\" not found"
    );
    assert_eq!(
        err(&sim, "describe node nope"),
        "Error from server (NotFound): nodes \"nope\" not found"
    );
    assert_eq!(
        err(&sim, "get foo"),
        "error: the server doesn't have a resource type \"foo\""
    );
    assert_eq!(
        text(&sim, "get sts"),
        "No resources found in default namespace.\n"
    );
    assert_eq!(
        text(&sim, "get pods -n other"),
        "No resources found in other namespace.\n"
    );
}

#[test]
fn other_kinds_have_their_printers_columns() {
    let sim = cluster();
    let d = text(&sim, "get deploy -o wide");
    assert_eq!(
        d.lines()
            .next()
            .unwrap()
            .split("  ")
            .filter(|s| !s.is_empty())
            .map(str::trim)
            .collect::<Vec<_>>(),
        [
            "NAME",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert_eq!(column(&d, "READY"), ["4/4"]);
    let rs = text(&sim, "get rs");
    assert_eq!(column(&rs, "DESIRED"), ["4"]);
    assert!(column(&rs, "NAME")[0].starts_with("web-"));
    let ds = text(&sim, "get ds");
    assert_eq!(column(&ds, "DESIRED"), ["3"]);
    assert_eq!(column(&ds, "NODE SELECTOR"), ["<none>"]);
    let pdb = text(&sim, "get pdb");
    assert_eq!(column(&pdb, "MIN AVAILABLE"), ["3"]);
    assert_eq!(column(&pdb, "MAX UNAVAILABLE"), ["N/A"]);
    assert_eq!(column(&pdb, "ALLOWED DISRUPTIONS"), ["1"]);
    let n = text(&sim, "get no");
    assert_eq!(column(&n, "STATUS"), ["Ready", "Ready", "Ready"]);
    assert_eq!(text(&sim, "get deploy -o name"), "deployment.apps/web\n");
    assert!(text(&sim, "get svc -o wide").contains("app=web"));
    let ev = text(&sim, "get events");
    assert!(ev.starts_with("LAST SEEN"), "{ev}");
    assert!(ev.contains("Scheduled"), "{ev}");
}

#[test]
fn describe_and_top_read_the_nodes_books() {
    let sim = cluster();
    let d = text(&sim, "describe node node-1");
    let n = sim.cluster().node("node-1").unwrap();
    for want in [
        "Name:               node-1".to_string(),
        "Taints:             <none>".to_string(),
        format!("Non-terminated Pods:          ({} in total)", n.pod_count),
        "Allocated resources:".to_string(),
        format!(
            "cpu       {}m ({}%)",
            n.allocated.cpu_millis,
            n.allocated.cpu_millis * 100 / 4000
        ),
    ] {
        assert!(d.contains(&want), "{want:?} not in\n{d}");
    }
    let top = text(&sim, "top nodes");
    assert_eq!(
        column(&top, "CPU(cores)")[0],
        format!("{}m", n.allocated.cpu_millis)
    );
    let p = text(&sim, "describe pod web-0");
    assert!(p.contains("Controlled By:      ReplicaSet/web-"), "{p}");
    // Looked up by its short form, the pod is described by its own name,
    // with the events filed under it (Scheduled, from default-scheduler).
    let own = sim.cluster().pod_by_name("web-0").unwrap().name();
    assert_ne!(own, "web-0");
    assert!(
        p.starts_with(&format!("Name:               {own}\n")),
        "{p}"
    );
    assert!(
        p.contains(&format!("Successfully assigned default/{own} to ")),
        "{p}"
    );
    assert_eq!(p, text(&sim, &format!("describe pod {own}")));
    assert!(
        p.contains("Explain (default-scheduler, as if it were scheduled now):"),
        "{p}"
    );
}

#[test]
fn changes_are_the_engines_events() {
    let mut sim = cluster();
    assert_eq!(
        change(&mut sim, "scale deploy/web --replicas=6"),
        "deployment.apps/web scaled"
    );
    assert_eq!(sim.cluster().app("web").unwrap().desired, 6);
    assert_eq!(change(&mut sim, "cordon node-3"), "node/node-3 cordoned");
    assert!(text(&sim, "get nodes node-3").contains("Ready,SchedulingDisabled"));
    assert_eq!(
        change(&mut sim, "cordon node-3"),
        "node/node-3 already cordoned"
    );
    assert_eq!(
        change(&mut sim, "uncordon node-3"),
        "node/node-3 uncordoned"
    );
    assert_eq!(
        change(&mut sim, "taint nodes node-2 gpu=true:NoSchedule"),
        "node/node-2 tainted"
    );
    assert!(text(&sim, "describe node node-2").contains("Taints:             gpu=true:NoSchedule"));
    assert!(err(&sim, "taint nodes node-2 gpu=false:NoSchedule").contains("--overwrite is false"));
    assert_eq!(
        change(&mut sim, "taint nodes node-2 gpu:NoSchedule-"),
        "node/node-2 untainted"
    );
    assert_eq!(
        change(&mut sim, "label nodes node-2 disk=ssd"),
        "node/node-2 labeled"
    );
    assert_eq!(
        sim.cluster().node("node-2").unwrap().spec.labels["disk"],
        "ssd"
    );
    assert!(err(&sim, "label nodes node-2 disk=hdd")
        .contains("already has a value (ssd), and --overwrite is false"));
    assert_eq!(
        change(&mut sim, "set image deployment/web app=nginx:1.27"),
        "deployment.apps/web image updated"
    );
    assert_eq!(sim.cluster().template("web").unwrap().version, "nginx:1.27");
    assert!(text(&sim, "rollout status deployment/web").contains("successfully rolled out"));
    assert_eq!(
        change(&mut sim, "rollout undo deploy/web"),
        "deployment.apps/web rolled back"
    );
    assert_ne!(sim.cluster().template("web").unwrap().version, "nginx:1.27");
    let before = sim.cluster().replica_sets("web").unwrap().len();
    assert_eq!(
        change(&mut sim, "rollout restart deployment/web"),
        "deployment.apps/web restarted"
    );
    assert_eq!(sim.cluster().replica_sets("web").unwrap().len(), before + 1);
    assert_eq!(
        change(&mut sim, "create deployment api --image=api:2 --replicas=2"),
        "deployment.apps/api created"
    );
    assert_eq!(sim.cluster().app("api").unwrap().current, 2);
    assert_eq!(
        change(&mut sim, "delete deploy api"),
        "deployment.apps \"api\" deleted"
    );
    assert!(sim.cluster().app("api").is_err());
    assert_eq!(
        change(&mut sim, "delete pod debug"),
        "pod \"debug\" deleted"
    );
    let web = sim
        .cluster()
        .pods()
        .find(|p| p.app == "web")
        .unwrap()
        .name();
    assert!(err(&sim, &format!("delete pod {web}")).contains("is not simulated"));
}

#[test]
fn drain_asks_for_kubectls_flags_and_refuses_disable_eviction() {
    let mut sim = cluster();
    let out = change(&mut sim, "drain node-1");
    assert!(
        out.starts_with("node/node-1 cordoned\nerror: unable to drain node \"node-1\""),
        "{out}"
    );
    assert!(out.contains("(use --ignore-daemonsets to ignore)"), "{out}");
    assert!(
        out.contains("(use --force to override): default/debug"),
        "{out}"
    );
    assert!(
        sim.cluster().node("node-1").unwrap().cordoned,
        "kubectl cordons before it refuses"
    );
    let e = err(&sim, "drain node-1 --ignore-daemonsets --disable-eviction");
    assert!(e.contains("refused here as unsafe"), "{e}");
    let out = change(
        &mut sim,
        "drain node-1 --ignore-daemonsets --force --delete-emptydir-data",
    );
    assert!(
        out.contains("Warning: ignoring DaemonSet-managed Pods: default/agent-"),
        "{out}"
    );
    assert!(out.contains("evicting pod default/debug"), "{out}");
    for _ in 0..30 {
        sim.step();
    }
    // Only the DaemonSet's pod stays; the budget let the web pods go one by one.
    let left: Vec<_> = sim
        .cluster()
        .pods_on(sim.cluster().node("node-1").unwrap().id)
        .map(|p| p.name())
        .collect();
    assert!(left.iter().all(|n| n.starts_with("agent-")), "{left:?}");
}

#[test]
fn pages_list_the_rows_in_turn() {
    let sim = cluster();
    let all = text(&sim, "get pods -A");
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let Ok(Reply::Text {
            text, rows, total, ..
        }) = run_line(
            sim.cluster(),
            sim.profile(),
            "get pods -A",
            None,
            Page { offset, limit: 3 },
        )
        else {
            panic!("get pods -A: not text");
        };
        assert_eq!(total, 8);
        seen.extend(column(&text, "NAME"));
        offset += rows;
        if offset >= total {
            break;
        }
    }
    assert_eq!(seen, column(&all, "NAME"));
}

#[test]
fn yaml_and_json_are_the_api_objects() {
    let sim = cluster();
    let j = text(&sim, "get pod web-0 -o json");
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v["kind"], "Pod");
    // Looked up by the short form, named as Kubernetes names it.
    let name = sim.cluster().pod_by_name("web-0").unwrap().name();
    assert_eq!(
        sim.cluster().short_pod_name(&name).as_deref(),
        Some("web-0"),
        "{name}"
    );
    assert_eq!(v["metadata"]["name"], name.as_str());
    assert_eq!(v["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
    assert!(
        j.contains("\n    \"apiVersion\""),
        "four-space indent as kubectl's"
    );
    let y = text(&sim, "get nodes -o yaml");
    assert!(y.contains("kind: List") && y.contains("kind: Node"), "{y}");
}

#[test]
fn completion_offers_verbs_kinds_and_names() {
    let sim = cluster();
    let c = sim.cluster();
    assert_eq!(shepherd_k8s::kubectl::complete(c, "cor"), ["cordon"]);
    assert!(shepherd_k8s::kubectl::complete(c, "get ").contains(&"pods".to_string()));
    assert_eq!(
        shepherd_k8s::kubectl::complete(c, "drain node-"),
        ["node-1", "node-2", "node-3"]
    );
    assert_eq!(
        shepherd_k8s::kubectl::complete(c, "rollout status dep"),
        ["deployment/web"]
    );
    assert_eq!(
        shepherd_k8s::kubectl::complete(c, "get pods -o w"),
        ["wide"]
    );
}

/// Random lines from kubectl's vocabulary (and some noise) never panic: each
/// is a read, a change whose events the engine checks, or an error in
/// kubectl's form. `SHEPHERD_FUZZ_OPS` sets the count; a failure prints the
/// seed (`SHEPHERD_KUBECTL_SEED=N`).
#[test]
fn random_lines_never_panic_and_changes_apply_or_are_refused() {
    const WORDS: &[&str] = &[
        "get",
        "describe",
        "top",
        "scale",
        "cordon",
        "uncordon",
        "drain",
        "taint",
        "label",
        "delete",
        "rollout",
        "set",
        "create",
        "apply",
        "status",
        "undo",
        "restart",
        "image",
        "deployment",
        "nodes",
        "pods",
        "po",
        "no",
        "deploy",
        "rs",
        "sts",
        "ds",
        "pdb",
        "svc",
        "ev",
        "ns",
        "pc",
        "web",
        "agent",
        "debug",
        "node-1",
        "node-2",
        "nope",
        "web-0",
        "deploy/web",
        "node/node-1",
        "-n",
        "kube-system",
        "-A",
        "-l",
        "app=web",
        "app in (web)",
        "!app",
        "-o",
        "wide",
        "yaml",
        "json",
        "name",
        "--field-selector",
        "spec.nodeName=node-1",
        "status.phase!=Running",
        "--replicas",
        "3",
        "--replicas=0",
        "--ignore-daemonsets",
        "--force",
        "--disable-eviction",
        "--delete-emptydir-data",
        "gpu=true:NoSchedule",
        "gpu-",
        "k=v",
        "k-",
        "--overwrite",
        "app=nginx:2",
        "--image=x",
        "-f",
        "-",
        "--",
        "'",
        "\"",
        "é",
        "-xyz",
        "--bogus",
        "=",
        ",",
        "()",
        "--show-labels",
    ];
    let ops: u64 = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(300);
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_KUBECTL_SEED") {
        Ok(s) => vec![s.trim().parse().expect("SHEPHERD_KUBECTL_SEED is a number")],
        Err(_) => (0..(ops / 30).max(3)).collect(),
    };
    for seed in seeds {
        let mut rng = shepherd::simulator::Prng::new(seed);
        let mut sim = cluster();
        for _ in 0..30 {
            let n = rng.range(0, 7) as usize;
            let line: Vec<&str> = (0..n).map(|_| *rng.pick(WORDS)).collect();
            let line = line.join(" ");
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_line(
                    sim.cluster(),
                    sim.profile(),
                    &line,
                    Some("kind: Node\nmetadata: {name: x}\n"),
                    Page {
                        offset: 0,
                        limit: 20,
                    },
                )
            }));
            let r = outcome.unwrap_or_else(|_| {
                panic!("seed {seed}: {line:?} panicked (SHEPHERD_KUBECTL_SEED={seed})")
            });
            match r {
                Ok(Reply::Change { events, .. }) => {
                    for e in events {
                        // The engine may refuse what kubectl's checks let by; it must not panic.
                        let _ = sim.apply(&e);
                    }
                    sim.step();
                }
                Ok(Reply::Text { text, .. }) => {
                    assert!(!text.is_empty(), "seed {seed}: {line:?} printed nothing")
                }
                Err(e) => assert!(
                    e.starts_with("error: ") || e.starts_with("Error from server"),
                    "seed {seed}: {line:?}: {e}"
                ),
            }
        }
    }
}

#[test]
fn namespaces_scope_lists_as_n_and_a_do() {
    let mut sim = cluster();
    sim.cluster_mut()
        .add_namespace(shepherd::NamespaceSpec::new("shop"))
        .unwrap();
    sim.cluster_mut()
        .deploy(DeploymentSpec::new(
            "shop/cart",
            2,
            Resources::new(100, 64 * MIB),
        ))
        .unwrap();
    settle(&mut sim);
    let shop = text(&sim, "get pods -n shop");
    let names: Vec<String> = column(&shop, "NAME")
        .iter()
        .map(|n| sim.cluster().short_pod_names(&format!("shop/{n}")))
        .collect();
    assert_eq!(names, ["shop/cart-0", "shop/cart-1"]);
    assert!(!column(&text(&sim, "get pods"), "NAME")
        .iter()
        .any(|n| n.starts_with("cart")));
    let all = text(&sim, "get pods -A");
    assert!(all.starts_with("NAMESPACE "), "{all}");
    let ns = column(&all, "NAMESPACE");
    assert_eq!(ns.iter().filter(|n| *n == "shop").count(), 2);
    // Listed by namespace, then name.
    let mut sorted: Vec<(String, String)> = ns.iter().cloned().zip(column(&all, "NAME")).collect();
    let listed = sorted.clone();
    sorted.sort();
    assert_eq!(listed, sorted);
    assert_eq!(
        text(&sim, "get deploy -n shop -o name"),
        "deployment.apps/cart\n"
    );
    assert_eq!(
        change(&mut sim, "scale deploy cart -n shop --replicas=3"),
        "deployment.apps/cart scaled"
    );
    assert_eq!(sim.cluster().app("shop/cart").unwrap().desired, 3);
    assert_eq!(
        err(&sim, "scale deploy cart --replicas=3"),
        "Error from server (NotFound): deployments.apps \"cart\" not found"
    );
    assert!(text(&sim, "describe pod cart-0 -n shop").contains("Namespace:          shop"));
}

#[test]
fn objects_are_paged_as_rows_are() {
    let sim = cluster();
    let Ok(Reply::Text {
        text: json,
        rows,
        total,
        ..
    }) = run_line(
        sim.cluster(),
        sim.profile(),
        "get pods -o json",
        None,
        Page {
            offset: 2,
            limit: 3,
        },
    )
    else {
        panic!("get pods -o json: not text");
    };
    assert_eq!((rows, total), (3, 8));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kind"], "List");
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    let all = column(&text(&sim, "get pods"), "NAME");
    assert_eq!(
        names,
        all[2..5].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let Ok(Reply::Text { rows, total, .. }) = run_line(
        sim.cluster(),
        sim.profile(),
        "get nodes -o yaml",
        None,
        Page {
            offset: 0,
            limit: 2,
        },
    ) else {
        panic!("get nodes -o yaml: not text");
    };
    assert_eq!((rows, total), (2, 3));
}
