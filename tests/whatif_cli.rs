//! `shepherd whatif` on tests/manifests/whatif-zones.yaml: three nodes
//! a-1, b-1, c-1 (2 CPUs each, one a zone), `web` (3 x 500m, one pod a
//! zone: maxSkew 1 DoNotSchedule) under `web-pdb` (maxUnavailable 1), `db`
//! (1 x 1 CPU, zone a only). So before: a-1 holds db-0 and one web pod,
//! b-1 and c-1 one web pod each. Each expected diff below is worked out
//! from that by Kubernetes' rules (said in the comments).

use std::process::Command;

use serde_json::Value;

const ZONES: &str = "../tests/manifests/whatif-zones.yaml";

fn shepherd(args: &[&str]) -> (i32, String, String) {
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

fn json(args: &[&str]) -> Value {
    let mut a = vec!["whatif", ZONES];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--output", "json"]);
    let (code, out, err) = shepherd(&a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("whatif --output json should print JSON")
}

fn rows<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} should be a list"))
}

fn the_web_pod_on_a1(v: &Value) -> String {
    // The pods of a-1 before are db-0 and a web pod: the one deleted with it.
    rows(v, "deleted")
        .iter()
        .find(|d| d["owner"] == "web" && d["node"] == "a-1")
        .map(|d| d["pod"].as_str().unwrap().to_string())
        .expect("a web pod ran on a-1")
}

#[test]
fn a_zone_failure_evicts_its_pods_after_350_s_and_their_replacements_stay_pending() {
    let v = json(&["--fail-zone", "a"]);
    let t = v["start"].as_u64().unwrap() + 1;
    assert_eq!(v["actions"][0]["tick"], t);
    assert_eq!(v["settled"], true);
    // NotReady after 50 s without a heartbeat (at t + 51), then 300 s of
    // the default toleration: both a-1 pods deleted at t + 351.
    let gone = rows(&v, "deleted");
    assert_eq!(gone.len(), 2);
    for d in gone {
        assert_eq!(d["node"], "a-1");
        assert_eq!(d["tick"], t + 351);
        assert_eq!(d["cause"], "taint-eviction");
    }
    let web = the_web_pod_on_a1(&v);
    assert!(gone
        .iter()
        .any(|d| d["owner"] == "db" && d["pod"].as_str().is_some_and(|p| p.starts_with("db-"))));
    // db fits zone a only, where a-1 is tainted; web's zone a still counts
    // (nodeTaintsPolicy Ignore) with 0 pods: b or c would make the skew 2.
    let pending = rows(&v, "pending");
    assert_eq!(pending.len(), 2);
    let msg = |owner: &str| {
        pending.iter().find(|p| p["owner"] == owner).unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        msg("db").contains("1 node(s) had untolerated taint"),
        "{}",
        msg("db")
    );
    assert!(msg("db").contains("2 node(s) didn't match Pod's node affinity/selector"));
    assert!(msg("web").contains("2 node(s) didn't match pod topology spread constraints"));
    // Replacements created at once, bound nowhere.
    let moves = rows(&v, "moves");
    assert_eq!(moves.len(), 2);
    let m = moves.iter().find(|m| m["deleted"] == web.as_str()).unwrap();
    assert_eq!((m["from"].as_str(), m["to"].as_str()), (Some("a-1"), None));
    // web 2 of 3 available from t + 51 (a-1's pods not Ready) to the end.
    let d = rows(&v, "deployments")
        .iter()
        .find(|d| d["name"] == "web")
        .unwrap();
    assert_eq!(d["available"]["after"], 2);
    assert_eq!(d["available"]["lowestAt"], t + 51);
    assert_eq!(d["stalled"], true);
    // Zone a: 1 schedulable node, then none; the cluster 6000m -> 4000m.
    let a = rows(&v, "zones").iter().find(|z| z["zone"] == "a").unwrap();
    assert_eq!(
        (
            a["schedulableNodes"]["before"].as_u64(),
            a["schedulableNodes"]["after"].as_u64()
        ),
        (Some(1), Some(0))
    );
    assert_eq!(v["total"]["before"]["cpuMillis"]["allocatable"], 6000);
    assert_eq!(v["total"]["after"]["cpuMillis"]["allocatable"], 4000);
    // Requests: 2500m before (db 1000m, web 3 x 500m); 1000m after.
    assert_eq!(v["total"]["before"]["cpuMillis"]["requested"], 2500);
    assert_eq!(v["total"]["after"]["cpuMillis"]["requested"], 1000);
}

#[test]
fn a_second_drain_is_refused_by_the_budget_until_the_end() {
    // Drain a-1 (t): db-0 has no budget, the web pod on a-1 is allowed
    // (3 healthy, 2 needed); both go, their replacements Pending (a-1 is
    // cordoned: the only node in zone a). Drain b-1 (t + 1): its web pod is
    // refused (2 healthy, 2 needed) at every 5 s retry to the end.
    let v = json(&["--drain", "a-1", "--drain", "b-1"]);
    let t = v["start"].as_u64().unwrap() + 1;
    let gone = rows(&v, "deleted");
    assert_eq!(gone.len(), 2, "{gone:?}");
    assert!(gone
        .iter()
        .all(|d| d["node"] == "a-1" && d["tick"] == t && d["cause"] == "eviction"));
    let blocked = rows(&v, "blockedEvictions");
    assert_eq!(blocked.len(), 1);
    let b = &blocked[0];
    assert_eq!(
        (b["node"].as_str(), b["podDisruptionBudget"].as_str()),
        (Some("b-1"), Some("web-pdb"))
    );
    assert_eq!(b["from"], t + 1);
    assert_eq!(b["until"], Value::Null);
    let end = v["end"].as_u64().unwrap();
    assert_eq!(b["refusals"], (end - (t + 1)) / 5 + 1);
    assert!(b["message"]
        .as_str()
        .unwrap()
        .contains("2 healthy pods, 2 needed, 0 disruptions allowed"));
    let drains = rows(&v, "drains");
    assert_eq!(drains[0]["finished"], t);
    assert_eq!(drains[0]["status"], "node/a-1 drained");
    assert_eq!(drains[1]["finished"], Value::Null);
    assert_eq!(rows(&v, "pending").len(), 2);
    // The text says the same at a glance.
    let (code, out, _) = shepherd(&["whatif", ZONES, "--drain", "a-1", "--drain", "b-1"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("evictions refused by PodDisruptionBudgets (1):"),
        "{out}"
    );
    assert!(out.contains("web-pdb refused it"), "{out}");
    assert!(out.contains("Kubernetes never moves a pod"), "{out}");
    assert!(out.contains("b-1 (started t="), "{out}");
    assert!(out.contains("still waiting at t="), "{out}");
}

#[test]
fn a_scale_up_past_the_spread_leaves_one_pod_pending() {
    // web to 9: zone a has room for one more 500m pod (db takes 1 CPU),
    // b and c for three each; with maxSkew 1 the pods go a:2, b:3, c:3 and
    // the ninth would make b or c 4 against a's 2.
    let v = json(&["--scale", "default/web=9"]);
    assert_eq!(rows(&v, "created").len(), 6);
    let pending = rows(&v, "pending");
    assert_eq!(pending.len(), 1);
    let m = pending[0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("0/3 nodes are available: 1 Insufficient cpu"),
        "{m}"
    );
    assert!(
        m.contains("2 node(s) didn't match pod topology spread constraints"),
        "{m}"
    );
    let d = &rows(&v, "deployments")[0];
    assert_eq!(
        (
            d["desired"]["before"].as_u64(),
            d["desired"]["after"].as_u64()
        ),
        (Some(3), Some(9))
    );
    assert_eq!(d["available"]["after"], 8);
    let a1 = rows(&v, "nodes")
        .iter()
        .find(|n| n["name"] == "a-1")
        .unwrap();
    assert_eq!(a1["after"]["cpuMillis"]["free"], 0);
}

#[test]
fn an_apply_lands_where_there_is_room_in_order_with_the_other_actions() {
    // batch: 2 x 1500m. Free: a-1 500m, b-1 and c-1 1500m each: one pod on
    // each of b-1 and c-1. Cordoning c-1 first leaves room for one only.
    let v = json(&["--apply", "../tests/manifests/whatif-apply.yaml"]);
    let mut nodes: Vec<&str> = rows(&v, "created")
        .iter()
        .map(|c| c["node"].as_str().unwrap())
        .collect();
    nodes.sort();
    assert_eq!(nodes, ["b-1", "c-1"]);
    let v = json(&[
        "--cordon",
        "c-1",
        "--apply",
        "../tests/manifests/whatif-apply.yaml",
    ]);
    let created = rows(&v, "created");
    assert_eq!(created.iter().filter(|c| c["node"] == "b-1").count(), 1);
    assert_eq!(rows(&v, "pending").len(), 1);
    assert_eq!(
        v["actions"][1]["action"],
        "apply ../tests/manifests/whatif-apply.yaml (1 objects)"
    );
}

#[test]
fn mistakes_exit_2_and_name_the_flag_and_what_exists() {
    let bad = |args: &[&str], want: &[&str]| {
        let mut a = vec!["whatif", ZONES];
        a.extend_from_slice(args);
        let (code, _, err) = shepherd(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        for w in want {
            assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
        }
    };
    bad(
        &["--drain", "z-9"],
        &["--drain z-9: no node \"z-9\"", "a-1, b-1, c-1"],
    );
    bad(
        &["--fail-zone", "q"],
        &["--fail-zone q", "expected one of the zones: a, b, c"],
    );
    bad(
        &["--scale", "api=3"],
        &["no Deployment \"api\"", "db", "web"],
    );
    bad(
        &["--scale", "web"],
        &["--scale \"web\" is not valid (no '=')", "NS/NAME=N"],
    );
    bad(
        &["--scale", "web=-1"],
        &["--scale \"web=-1\" is not valid", "whole number"],
    );
    bad(&["--scale", "Bad_NS/web=1"], &["--scale", "namespace"]);
    bad(&["--drain"], &["--drain needs a value", "a node name"]);
    bad(
        &["--output", "yaml"],
        &["--output \"yaml\" is not valid; expected json or text"],
    );
    bad(
        &["--evict", "x"],
        &["unknown option \"--evict\"", "--drain"],
    );
    bad(&[], &["at least one action"]);
    let (code, _, err) = shepherd(&["whatif", "--drain", "a-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("whatif needs FILE, DIR or -"), "{err}");
}

/// Issue 45 item 1: the what-if on the mid-sized dump as it is (every pod
/// where it runs, under its own name). Worked out by hand from the dump
/// (tests/manifests/mid-sized-cluster.yaml): us-east-1a holds five nodes
/// and, besides 11 DaemonSet pods (which tolerate the unreachable taint
/// without a deadline and stay), data/postgres-0, shop/cart-…-46vtd,
/// shop/frontend-…-bwkkp and -k6ntm and shop/checkout-gsdj2zwwnp-99vxd
/// (the old checkout pod bwwvp there is gone before: the rollout scales
/// its ReplicaSet to 0 as the import converges). The zone fails at t=2:
/// NotReady 51 s later (t=53), evicted 300 s after that (t=353), and
/// replaced: postgres' replacement has nowhere to go (required zone
/// anti-affinity: b and c hold postgres-1 and -2), nor have frontend's
/// two (zone spread, maxSkew 1: zone a still counts as a domain, with 0
/// pods against 2 in b and c), so postgres and frontend stall; cart and
/// checkout recover in zones b and c.
#[test]
fn a_zone_failure_on_the_mid_sized_dump_as_it_is() {
    let (code, out, err) = shepherd(&[
        "whatif",
        "../tests/manifests/mid-sized-cluster.yaml",
        "--fail-zone",
        "us-east-1a",
        "--output",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let zone_a = [
        "ip-10-0-0-79.ec2.internal",
        "ip-10-0-1-227.ec2.internal",
        "ip-10-0-2-234.ec2.internal",
        "ip-10-0-3-85.ec2.internal",
        "ip-10-0-8-146.ec2.internal",
    ];
    let mut deleted: Vec<String> = rows(&v, "deleted")
        .iter()
        .map(|d| {
            assert_eq!(d["tick"], 353, "{d}");
            assert!(zone_a.contains(&d["node"].as_str().unwrap()), "{d}");
            d["pod"].as_str().unwrap().to_string()
        })
        .collect();
    deleted.sort();
    // The five the dump runs there, by the names kubectl printed, and
    // any checkout pod the rollout made there as the import converged.
    let mut from_dump: Vec<&String> = deleted
        .iter()
        .filter(|p| !p.starts_with("shop/checkout-gsdj2zwwnp-") || p.ends_with("99vxd"))
        .collect();
    from_dump.sort();
    assert_eq!(
        from_dump,
        [
            "data/postgres-0",
            "shop/cart-mr8q9z6tfv-46vtd",
            "shop/checkout-gsdj2zwwnp-99vxd",
            "shop/frontend-xps8r4p5gx-bwkkp",
            "shop/frontend-xps8r4p5gx-k6ntm"
        ]
    );
    assert!(deleted.len() <= 6, "{deleted:?}");
    let mut pending: Vec<(String, String)> = rows(&v, "pending")
        .iter()
        .map(|p| {
            (
                p["owner"].as_str().unwrap().to_string(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    pending.sort();
    assert_eq!(pending.len(), 3, "{pending:?}");
    assert_eq!(pending[0].0, "data/postgres");
    assert!(pending[0]
        .1
        .contains("8 node(s) didn't match pod anti-affinity rules"));
    for p in &pending[1..] {
        assert_eq!(p.0, "shop/frontend");
        assert!(
            p.1.contains("8 node(s) didn't match pod topology spread constraints"),
            "{}",
            p.1
        );
    }
    let available = |name: &str| {
        rows(&v, "deployments")
            .iter()
            .find(|d| d["name"] == name)
            .map(|d| d["available"]["after"].as_u64().unwrap())
    };
    assert_eq!(available("data/postgres"), Some(2));
    assert_eq!(available("shop/frontend"), Some(4));
    assert_eq!(available("shop/cart"), Some(3));
    assert_eq!(available("shop/checkout"), Some(4));
}

/// `explain --pod` and `kubectl get pods` take and print the names the
/// dump gave the pods.
#[test]
fn explain_and_kubectl_know_the_dumps_pod_names() {
    let (code, out, err) = shepherd(&[
        "explain",
        "../tests/manifests/mid-sized-cluster.yaml",
        "--pod",
        "shop/frontend-xps8r4p5gx-j4rv8",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ip-10-0-34-202.ec2.internal"), "{out}");
    let (code, out, err) = shepherd(&[
        "kubectl",
        "../tests/manifests/mid-sized-cluster.yaml",
        "--",
        "get",
        "pods",
        "-n",
        "data",
        "-o",
        "wide",
    ]);
    assert_eq!(code, 0, "{err}");
    for (pod, node) in [
        ("postgres-0", "ip-10-0-1-227.ec2.internal"),
        ("postgres-1", "ip-10-0-18-176.ec2.internal"),
        ("postgres-2", "ip-10-0-33-78.ec2.internal"),
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(pod) && l.contains(node)),
            "{pod} on {node}:\n{out}"
        );
    }
}

/// `--namespace NS` (`-n NS`), as `kubectl -n` shows one namespace: the
/// same run as without it (the zone fails for every namespace), the pods
/// and Deployments of NS alone in the report, the nodes and zones whole.
#[test]
fn a_report_for_one_namespace_of_the_mid_sized_dump() {
    const MID: &str = "../tests/manifests/mid-sized-cluster.yaml";
    let run = |extra: &[&str]| {
        let mut a = vec!["whatif", MID, "--fail-zone", "us-east-1a"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--output", "json"]);
        let (code, out, err) = shepherd(&a);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let whole = run(&[]);
    let shop = run(&["--namespace", "shop"]);
    assert_eq!(shop["namespace"], "shop");
    assert_eq!(whole["namespace"], Value::Null);
    let in_ns = |v: &Value, key: &str, field: &str, ns: &str| -> Vec<String> {
        rows(v, key)
            .iter()
            .map(|r| r[field].as_str().unwrap().to_string())
            .filter(|p| p.starts_with(&format!("{ns}/")))
            .collect()
    };
    // Every row of shop's report is shop's, and every shop row of the
    // whole report is there.
    for (key, field) in [
        ("deleted", "pod"),
        ("moves", "deleted"),
        ("created", "pod"),
        ("pending", "pod"),
        ("deployments", "name"),
    ] {
        let got: Vec<String> = rows(&shop, key)
            .iter()
            .map(|r| r[field].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, in_ns(&whole, key, field, "shop"), "{key}");
    }
    // The zone's shop pods (cart, checkout, two frontend) and no other.
    assert!(rows(&shop, "deleted").len() >= 4);
    assert!(rows(&whole, "deleted").len() > rows(&shop, "deleted").len());
    // Pending: the two frontend pods; postgres (data) is left out.
    assert_eq!(rows(&shop, "pending").len(), 2);
    // Nodes, zones and the whole cluster: as without --namespace.
    for key in ["nodes", "zones", "total", "drains", "end", "settled"] {
        assert_eq!(shop[key], whole[key], "{key}");
    }
    // -n is the same flag; data holds postgres.
    let data = run(&["-n", "data"]);
    assert_eq!(in_ns(&data, "deleted", "pod", "data"), ["data/postgres-0"]);
    assert_eq!(rows(&data, "deleted").len(), 1);
    assert_eq!(
        rows(&data, "pending")[0]["owner"].as_str(),
        Some("data/postgres")
    );
    // The text says which namespace the report is about.
    let (code, out, err) = shepherd(&["whatif", MID, "--fail-zone", "us-east-1a", "-n", "shop"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("namespace shop: the pods and Deployments of shop alone"),
        "{out}"
    );
    // A NAME alone in --scale is in that namespace (kubectl -n shop scale).
    let v = run(&["-n", "shop", "--scale", "cart=4"]);
    assert_eq!(rows(&v, "actions")[1]["action"], "scale shop/cart=4");
    // Mistakes: exit 2, with what was expected.
    let (code, _, err) = shepherd(&["whatif", MID, "--drain", "x", "--namespace", "Not_A_Label"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--namespace") && err.contains("DNS-1123"),
        "{err}"
    );
    let (code, _, err) = shepherd(&["whatif", MID, "--drain", "x", "-n", "shop", "-n", "data"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected one namespace"), "{err}");
}
