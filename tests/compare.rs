//! `shepherd compare`: its "landed differently" and "Pending only in one
//! run" lists equal a direct diff of the two placements, computed here by
//! converging the same workload in-process and comparing every pod's node.
//! Seeded, sized by `SHEPHERD_FUZZ_OPS` (default 200, divided by 20: each
//! case starts a process); a failing case prints its seed:
//! `SHEPHERD_COMPARE_SEED=N cargo test -p shepherd-cli --test compare`.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;
use shepherd::simulator::{Prng, Simulator};
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::Profile;

fn cases() -> Vec<u64> {
    if let Ok(v) = std::env::var("SHEPHERD_COMPARE_SEED") {
        return vec![v.trim().parse().expect("SHEPHERD_COMPARE_SEED is a number")];
    }
    let ops: u64 = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(200);
    (0..(ops / 20).max(4)).collect()
}

fn shepherd(args: &[String]) -> (i32, String, String) {
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

/// Pod name -> node name (None: Pending) after converging the workload of
/// `seed` under `profile` with scheduler seed `run_seed`.
fn placement(
    seed: u64,
    nodes: u32,
    apps: u32,
    profile: &str,
    run_seed: u64,
) -> BTreeMap<String, Option<String>> {
    let w = generate(&mut Prng::new(seed), &WorkloadConfig::small(nodes, apps));
    let profile = Profile::named(profile).expect("a known profile");
    let mut sim = Simulator::new(run_seed, profile.clone());
    let c = sim.cluster_mut();
    for n in w.nodes {
        c.add_node(n).expect("generated nodes are valid");
    }
    for a in w.apps {
        c.deploy(a).expect("generated apps are valid");
    }
    c.reconcile_to_fixed_point(&profile);
    let c = sim.cluster();
    c.pods()
        .map(|p| {
            (
                p.name(),
                p.node.map(|id| {
                    c.node_by_id(id)
                        .expect("bound to a live node")
                        .name()
                        .to_string()
                }),
            )
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a name").to_string())
        .collect()
}

/// One seed; returns how many pods landed differently, over its differences.
fn check(seed: u64) -> Result<usize, String> {
    let mut rng = Prng::new(seed);
    let nodes = rng.range(1, 25) as u32;
    let apps = rng.range(0, 12) as u32;
    let all = ["default-scheduler", "binpack", "leastloaded"];
    // Either profiles under one seed, or one profile under two seeds.
    let (profiles, seeds): (Vec<&str>, Vec<u64>) = if rng.chance(70) {
        let k = rng.range(2, 3) as usize;
        let start = rng.below(3) as usize;
        ((0..k).map(|i| all[(start + i) % 3]).collect(), vec![seed])
    } else {
        (vec![*rng.pick(&all)], vec![seed, seed + 1000])
    };
    let args: Vec<String> = [
        "compare".to_string(),
        "--output".into(),
        "json".into(),
        "--seed".into(),
        seed.to_string(),
        "--nodes".into(),
        nodes.to_string(),
        "--apps".into(),
        apps.to_string(),
        "--profiles".into(),
        profiles.join(","),
        "--seeds".into(),
        seeds
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(","),
    ]
    .to_vec();
    let (code, out, err) = shepherd(&args);
    if code != 0 {
        return Err(format!("{args:?} exited {code}: {err}"));
    }
    let doc: Value = serde_json::from_str(&out).map_err(|e| format!("not JSON ({e}): {out}"))?;
    let mut runs = Vec::new();
    for s in &seeds {
        for p in &profiles {
            runs.push(placement(seed, nodes, apps, p, *s));
        }
    }
    let json_runs = doc["runs"].as_array().ok_or("no runs")?;
    if json_runs.len() != runs.len() {
        return Err(format!("{} runs, expected {}", json_runs.len(), runs.len()));
    }
    for (r, want) in json_runs.iter().zip(&runs) {
        let pending = want.values().filter(|n| n.is_none()).count() as u64;
        let used = want
            .values()
            .flatten()
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64;
        if r["pending"].as_u64() != Some(pending) || r["nodesUsed"].as_u64() != Some(used) {
            return Err(format!(
                "run {}: pending/nodesUsed {} {} expected {pending} {used}",
                r["label"], r["pending"], r["nodesUsed"]
            ));
        }
    }
    let diffs = doc["differences"].as_array().ok_or("no differences")?;
    if diffs.len() != runs.len() - 1 {
        return Err(format!(
            "{} differences, expected {}",
            diffs.len(),
            runs.len() - 1
        ));
    }
    let first = &runs[0];
    let mut total_moved = 0;
    for (d, other) in diffs.iter().zip(&runs[1..]) {
        // The direct diff: every pod of either run, by name.
        let mut moved = Vec::new();
        let mut only_first = Vec::new();
        let mut only_other = Vec::new();
        let names: std::collections::BTreeSet<&String> = first.keys().chain(other.keys()).collect();
        for name in names {
            let a = first.get(name);
            let b = other.get(name);
            if let (Some(Some(x)), Some(Some(y))) = (a, b) {
                if x != y {
                    moved.push(serde_json::json!({"pod": name, "from": x, "to": y}));
                }
            }
            if matches!(a, Some(None)) && !matches!(b, Some(None)) {
                only_first.push(name.clone());
            }
            if matches!(b, Some(None)) && !matches!(a, Some(None)) {
                only_other.push(name.clone());
            }
        }
        total_moved += moved.len();
        if d["landedDifferently"].as_array() != Some(&moved) {
            return Err(format!(
                "landedDifferently {} expected {:?}",
                d["landedDifferently"], moved
            ));
        }
        if strings(&d["pendingOnlyInFrom"]) != only_first
            || strings(&d["pendingOnlyInTo"]) != only_other
        {
            return Err(format!(
                "pending-only lists {} / {} expected {only_first:?} / {only_other:?}",
                d["pendingOnlyInFrom"], d["pendingOnlyInTo"]
            ));
        }
    }
    Ok(total_moved)
}

#[test]
fn landed_differently_equals_a_direct_diff_of_the_placements() {
    let mut failed = Vec::new();
    let mut moved = 0;
    for seed in cases() {
        match check(seed) {
            Ok(n) => moved += n,
            Err(e) => {
                eprintln!("[compare] seed {seed}: {e}\n[compare] reproduce: SHEPHERD_COMPARE_SEED={seed} cargo test -p shepherd-cli --test compare");
                failed.push(seed);
            }
        }
    }
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
    // The profiles do place pods differently: the lists were not all empty.
    assert!(moved > 0, "no case had a pod that landed differently");
}

#[test]
fn compare_mistakes_are_named_and_change_nothing() {
    for (args, want) in [
        (
            vec!["compare", "--profiles", "binpack"],
            "compare needs at least two runs",
        ),
        (
            vec!["compare", "--profiles", "binpack,,leastloaded"],
            "item 2 is empty",
        ),
        (
            vec!["compare", "--profiles", "binpack,spread"],
            "\"spread\" is not valid",
        ),
        (
            vec!["compare", "--seeds", "1,x"],
            "--seeds: \"x\" is not valid",
        ),
        (
            vec!["compare", "--seeds", "1,2,3,4,5,6,7,8,9"],
            "expected at most 8",
        ),
        (vec!["compare", "--seeds", "3,3"], "lists \"3\" twice"),
        (vec!["compare", "--output", "yaml"], "expected json or text"),
        (vec!["compare", "--nodes", "0"], "from 1 to 5000"),
    ] {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (code, out, err) = shepherd(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
    }
}

/// Pod name -> node (None: Pending) as `shepherd simulate FILE --profile P
/// --output json` places the manifests: an independent run of the same input.
fn simulated(input: &str, profile: &str) -> BTreeMap<String, Option<String>> {
    let args: Vec<String> = ["simulate", input, "--output", "json", "--profile", profile]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (code, out, err) = shepherd(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let doc: Value = serde_json::from_str(&out).expect("simulate prints JSON");
    doc["pods"]
        .as_array()
        .expect("a pod list")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().expect("a name").to_string(),
                p["node"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn compare_over_manifests_equals_a_direct_diff_of_what_simulate_places() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/manifests");
    let profiles = ["default-scheduler", "binpack", "leastloaded"];
    let mut inputs: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/manifests is a folder")
        .map(|e| e.expect("a folder entry").path().display().to_string())
        .collect();
    inputs.sort();
    // A folder too, read as one stream (FILE|DIR|- as simulate takes).
    let folder = std::env::temp_dir().join(format!("shepherd-compare-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    std::fs::copy(
        format!("{dir}/scheduling-features.yaml"),
        folder.join("a.yaml"),
    )
    .expect("a copy");
    inputs.push(folder.display().to_string());
    let mut moved = 0;
    for input in &inputs {
        let args: Vec<String> = [
            "compare",
            input,
            "--output",
            "json",
            "--profiles",
            &profiles.join(","),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (code, out, err) = shepherd(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let doc: Value = serde_json::from_str(&out).expect("compare prints JSON");
        let runs: Vec<_> = profiles.iter().map(|p| simulated(input, p)).collect();
        assert_eq!(
            doc["workload"]["pods"].as_u64(),
            Some(runs[0].len() as u64),
            "{input}"
        );
        for (r, (want, p)) in doc["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .zip(runs.iter().zip(profiles))
        {
            assert_eq!(r["profile"], p, "{input}");
            let pending = want.values().filter(|n| n.is_none()).count() as u64;
            assert_eq!(r["pending"].as_u64(), Some(pending), "{input} under {p}");
        }
        for (d, other) in doc["differences"]
            .as_array()
            .expect("differences")
            .iter()
            .zip(&runs[1..])
        {
            let first = &runs[0];
            let mut want = Vec::new();
            for (pod, a) in first {
                if let (Some(x), Some(Some(y))) = (a, other.get(pod)) {
                    if x != y {
                        want.push(serde_json::json!({"pod": pod, "from": x, "to": y}));
                    }
                }
            }
            let only = |a: &BTreeMap<String, Option<String>>,
                        b: &BTreeMap<String, Option<String>>|
             -> Vec<String> {
                a.iter()
                    .filter(|(pod, n)| n.is_none() && !matches!(b.get(*pod), Some(None)))
                    .map(|(pod, _)| pod.clone())
                    .collect()
            };
            moved += want.len();
            assert_eq!(
                d["landedDifferently"].as_array(),
                Some(&want),
                "{input}: {} -> {}",
                d["from"],
                d["to"]
            );
            assert_eq!(
                strings(&d["pendingOnlyInFrom"]),
                only(first, other),
                "{input}"
            );
            assert_eq!(
                strings(&d["pendingOnlyInTo"]),
                only(other, first),
                "{input}"
            );
        }
    }
    std::fs::remove_dir_all(&folder).ok();
    assert!(
        moved > 0,
        "the profiles placed every pod of every input alike"
    );
}

#[test]
fn compare_over_manifests_refuses_random_workload_options_and_bad_input() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/manifests/three-zones-list.yaml"
    );
    for (args, code, want) in [
        (
            vec!["compare", file, "--nodes", "3"],
            2,
            "--nodes builds a random workload",
        ),
        (
            vec!["compare", "--namespace", "x"],
            2,
            "--namespace applies to manifests",
        ),
        (
            vec!["compare", "/nonexistent/shepherd.yaml"],
            1,
            "cannot read",
        ),
    ] {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (c, out, err) = shepherd(&a);
        assert_eq!(c, code, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
    }
}
