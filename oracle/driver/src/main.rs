//! shepherd-oracle: the differential check of Shepherd against Kubernetes'
//! own code (the oracle program in oracle/, built from k8s.io/kubernetes).
//!
//! ```text
//! shepherd-oracle --oracle PATH [--avoid CLASSES] [cases|funcs|autoscale|exports FILE...]
//! ```
//!
//! `cases` (the default) draws SHEPHERD_FUZZ_OPS scheduling cases from
//! SHEPHERD_ORACLE_SEED on and compares every verdict, score, total, best
//! node set, sample size and preemption; `funcs` compares the pure functions
//! (quantities, names, label selectors, tolerations, requests, rollout
//! arithmetic, disruption budgets); `autoscale` draws SHEPHERD_ORACLE_AUTOSCALE
//! cases (default: a quarter of SHEPHERD_FUZZ_OPS) and compares Cluster
//! Autoscaler's template-node verdict (fits, or the filter and reasons
//! that reject it) with the scheduler's on the same snapshot; `exports` sends every object of the
//! given manifests to the API server's validation. Each mismatch is printed
//! with its seed and a minimal manifest; the last line is `N passed, N
//! failed`. docs/oracle.md says what is compared and what is not.

use std::collections::BTreeMap;
use std::time::Instant;

use shepherd_oracle::autoscale as ca;
use shepherd_oracle::gen::{self, Avoid, Case};
use shepherd_oracle::oracle::Oracle;
use shepherd_oracle::sched::{self, Diff};
use shepherd_oracle::{env_u64, funcs};

const DEFAULT_CASES: u64 = 2000;
/// Cases sent ahead of the one being compared.
const PIPELINE: usize = 32;
/// Mismatches that get shrunk and printed in full; the rest by seed.
const SHRINK_LIMIT: usize = 12;

struct Args {
    oracle: String,
    avoid: Avoid,
    command: String,
    files: Vec<String>,
    verbose: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        oracle: std::env::var("SHEPHERD_ORACLE").unwrap_or_default(),
        avoid: Avoid::parse(&std::env::var("SHEPHERD_ORACLE_AVOID").unwrap_or_default())?,
        command: "cases".into(),
        files: Vec::new(),
        verbose: false,
    };
    let mut it = std::env::args().skip(1);
    let mut command_set = false;
    while let Some(x) = it.next() {
        match x.as_str() {
            "--oracle" => a.oracle = it.next().ok_or("--oracle needs a path")?,
            "--avoid" => a.avoid = Avoid::parse(&it.next().ok_or("--avoid needs a list")?)?,
            "--verbose" => a.verbose = true,
            "cases" | "funcs" | "autoscale" | "exports" if !command_set => {
                a.command = x;
                command_set = true;
            }
            _ if command_set && a.command == "exports" => a.files.push(x),
            _ => return Err(format!("unknown argument {x:?}; expected --oracle PATH, --avoid CLASSES, --verbose, and cases, funcs, autoscale or exports FILE...")),
        }
    }
    if a.oracle.is_empty() {
        return Err("no oracle given; expected --oracle PATH or SHEPHERD_ORACLE (scripts/oracle.sh builds it)".into());
    }
    Ok(a)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("shepherd-oracle: {e}");
            std::process::exit(2);
        }
    };
    let mut o = match Oracle::start(&a.oracle) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("shepherd-oracle: {e}");
            std::process::exit(2);
        }
    };
    let r = match a.command.as_str() {
        "funcs" => funcs::run(&mut o, &a.avoid),
        "exports" => funcs::exports(&mut o, &a.files),
        "autoscale" => autoscale(&mut o, &a),
        _ => cases(&mut o, &a),
    };
    match r {
        Ok((pass, fail)) => {
            println!("{pass} passed, {fail} failed");
            std::process::exit(if fail == 0 { 0 } else { 1 });
        }
        Err(e) => {
            eprintln!("shepherd-oracle: {e}");
            println!("0 passed, 1 failed");
            std::process::exit(1);
        }
    }
}

/// Both sides of one case; the differences.
fn check(o: &mut Oracle, c: &Case) -> Result<Vec<Diff>, String> {
    let k = sched::oracle_side(&o.ask(&sched::oracle_request(c))?)?;
    Ok(match sched::shepherd_side(c) {
        Ok(s) => sched::compare(&k, &s),
        Err(d) => vec![d],
    })
}

fn cases(o: &mut Oracle, a: &Args) -> Result<(u64, u64), String> {
    let n = env_u64("SHEPHERD_FUZZ_OPS", DEFAULT_CASES)?;
    let start = env_u64("SHEPHERD_ORACLE_SEED", 1)?;
    let t0 = Instant::now();
    let (mut pass, mut fail) = (0u64, 0u64);
    let mut by_class: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut printed = 0usize;
    let mut queue: std::collections::VecDeque<Case> = std::collections::VecDeque::new();
    let mut next = start;
    let end = start.saturating_add(n);
    let mut infeasible = 0u64;
    let mut preempting = 0u64;
    while next < end || !queue.is_empty() {
        while queue.len() < PIPELINE && next < end {
            let c = gen::generate(next, &a.avoid);
            o.send(&sched::oracle_request(&c));
            queue.push_back(c);
            next += 1;
        }
        let c = queue.pop_front().expect("a queued case");
        // Shepherd's side runs while the oracle works on the queue.
        let s = sched::shepherd_side(&c);
        let kv = o.recv().map_err(|e| format!("seed {}: {e}", c.seed))?;
        if a.verbose {
            eprintln!(
                "seed {}\nREQUEST {}\nANSWER {kv}",
                c.seed,
                sched::oracle_request(&c)
            );
        }
        let k = sched::oracle_side(&kv).map_err(|e| format!("seed {}: {e}", c.seed))?;
        if !k.nodes.values().any(|v| v.feasible) {
            infeasible += 1;
            if k.preemption.is_some() {
                preempting += 1;
            }
        }
        let diffs = match s {
            Ok(s) => sched::compare(&k, &s),
            Err(d) => vec![d],
        };
        if diffs.is_empty() {
            pass += 1;
            continue;
        }
        fail += 1;
        let mut classes: Vec<&str> = diffs.iter().map(|d| d.class.as_str()).collect();
        classes.sort();
        classes.dedup();
        for cl in &classes {
            let e = by_class.entry(cl.to_string()).or_insert((0, c.seed));
            e.0 += 1;
        }
        if printed < SHRINK_LIMIT {
            printed += 1;
            // The queued requests' answers come first: drain them before
            // shrinking with new requests, then refill.
            let mut pending = Vec::new();
            while o.in_flight > 0 {
                pending.push(o.recv()?);
            }
            let (small, small_diffs) = shrink(o, &c, &diffs[0].class)?;
            print_mismatch(&c, &small, &small_diffs, &diffs);
            // Re-send the drained requests' cases (answers were discarded).
            let requeue: Vec<Case> = queue.drain(..).collect();
            for q in requeue {
                o.send(&sched::oracle_request(&q));
                queue.push_back(q);
            }
        } else {
            println!(
                "MISMATCH seed {} ({}): {}",
                c.seed,
                classes.join(", "),
                diffs[0].text
            );
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "{} cases from seed {start} in {secs:.1} s ({:.0} placements/s); {infeasible} fit nowhere, {preempting} of them with preemption candidates",
        pass + fail,
        (pass + fail) as f64 / secs.max(1e-9)
    );
    if !by_class.is_empty() {
        eprintln!("mismatches by class (cases, first seed):");
        for (cl, (count, seed)) in &by_class {
            eprintln!("  {cl}: {count} (seed {seed})");
        }
    }
    Ok((pass, fail))
}

fn print_mismatch(orig: &Case, small: &Case, diffs: &[Diff], orig_diffs: &[Diff]) {
    println!(
        "MISMATCH seed {} (SHEPHERD_ORACLE_SEED={} SHEPHERD_FUZZ_OPS=1)",
        orig.seed, orig.seed
    );
    for d in orig_diffs.iter().take(6) {
        println!("  [{}] {}", d.class, d.text);
    }
    if orig_diffs.len() > 6 {
        println!("  ... {} more", orig_diffs.len() - 6);
    }
    println!(
        "  shrunk to {} node(s), {} bound pod(s); it still shows:",
        small.nodes.len(),
        small.pods.len()
    );
    for d in diffs.iter().take(4) {
        println!("  [{}] {}", d.class, d.text);
    }
    println!("  manifest (shepherd explain FILE --pod default/incoming):");
    for line in sched::repro_manifest(small).lines() {
        println!("    {line}");
    }
}

/// Greedy shrinking: drop objects and fields of the incoming pod while the
/// case still shows a difference of `class`.
fn shrink(o: &mut Oracle, c: &Case, class: &str) -> Result<(Case, Vec<Diff>), String> {
    let mut best = c.clone();
    let mut best_diffs = check(o, &best)?;
    let still = |o: &mut Oracle, x: &Case| -> Result<Option<Vec<Diff>>, String> {
        let ds = check(o, x)?;
        Ok(ds.iter().any(|d| d.class == class).then_some(ds))
    };
    let mut budget = 300;
    loop {
        let mut changed = false;
        let mut tries: Vec<Case> = Vec::new();
        for i in 0..best.pods.len() {
            let mut x = best.clone();
            x.pods.remove(i);
            tries.push(x);
        }
        for i in 0..best.nodes.len() {
            if best.nodes.len() == 1 {
                break;
            }
            let mut x = best.clone();
            let name = x.nodes[i]["metadata"]["name"].clone();
            x.nodes.remove(i);
            x.pods.retain(|p| p["spec"]["nodeName"] != name);
            tries.push(x);
        }
        for i in 0..best.pdbs.len() {
            let mut x = best.clone();
            x.pdbs.remove(i);
            tries.push(x);
        }
        for i in 0..best.services.len() {
            let mut x = best.clone();
            x.services.remove(i);
            tries.push(x);
        }
        // The avoidance of default spreading lives in the configuration.
        if best.config.is_some() {
            let mut x = best.clone();
            x.config = None;
            tries.push(x);
        }
        for key in [
            "affinity",
            "tolerations",
            "nodeSelector",
            "topologySpreadConstraints",
            "priorityClassName",
        ] {
            if best.incoming["spec"].get(key).is_some() {
                let mut x = best.clone();
                x.incoming["spec"].as_object_mut().map(|m| m.remove(key));
                tries.push(x);
            }
        }
        for i in 0..best.pods.len() {
            for key in ["affinity", "tolerations", "priorityClassName"] {
                if best.pods[i]["spec"].get(key).is_some() && key != "tolerations" {
                    let mut x = best.clone();
                    x.pods[i]["spec"].as_object_mut().map(|m| m.remove(key));
                    tries.push(x);
                }
            }
        }
        for x in tries {
            if budget == 0 {
                return Ok((best, best_diffs));
            }
            budget -= 1;
            if let Some(ds) = still(o, &x)? {
                best = x;
                best_diffs = ds;
                changed = true;
                break;
            }
        }
        if !changed {
            return Ok((best, best_diffs));
        }
    }
}

/// Cluster Autoscaler's template-node check against the scheduler's
/// filters (oracle/driver/src/autoscale.rs), pipelined as `cases` is.
fn autoscale(o: &mut Oracle, a: &Args) -> Result<(u64, u64), String> {
    let n = env_u64(
        "SHEPHERD_ORACLE_AUTOSCALE",
        env_u64("SHEPHERD_FUZZ_OPS", DEFAULT_CASES)? / 4,
    )?;
    let start = env_u64("SHEPHERD_ORACLE_SEED", 1)?;
    let t0 = Instant::now();
    let (mut pass, mut fail) = (0u64, 0u64);
    let (mut fits, mut with_ds) = (0u64, 0u64);
    let mut rejected: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_class: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut printed = 0usize;
    type Queued = (
        ca::AutoscaleCase,
        Result<(ca::Verdict, Vec<usize>), sched::Diff>,
    );
    let mut queue: std::collections::VecDeque<Queued> = std::collections::VecDeque::new();
    let mut next = start;
    let end = start.saturating_add(n);
    while next < end || !queue.is_empty() {
        while queue.len() < PIPELINE && next < end {
            let c = ca::generate(next, &a.avoid);
            let s = ca::shepherd_side(&c);
            let on = s.as_ref().map(|(_, on)| on.clone()).unwrap_or_default();
            o.send(&ca::oracle_request(&c, &on));
            queue.push_back((c, s));
            next += 1;
        }
        let (c, s) = queue.pop_front().expect("a queued case");
        let seed = c.case.seed;
        let kv = o.recv().map_err(|e| format!("seed {seed}: {e}"))?;
        if a.verbose {
            let on = s.as_ref().map(|(_, on)| on.clone()).unwrap_or_default();
            eprintln!(
                "seed {seed}\nREQUEST {}\nANSWER {kv}",
                ca::oracle_request(&c, &on)
            );
        }
        let k = ca::oracle_side(&kv).map_err(|e| format!("seed {seed}: {e}"))?;
        if k.fits {
            fits += 1;
        } else {
            *rejected
                .entry(k.plugin.clone().unwrap_or_default())
                .or_insert(0) += 1;
        }
        let diffs = match &s {
            Ok((v, on)) => {
                if !on.is_empty() {
                    with_ds += 1;
                }
                ca::compare(&k, v)
            }
            Err(d) => vec![d.clone()],
        };
        if diffs.is_empty() {
            pass += 1;
            continue;
        }
        fail += 1;
        let e = by_class.entry(diffs[0].class.clone()).or_insert((0, seed));
        e.0 += 1;
        if printed < SHRINK_LIMIT {
            printed += 1;
            println!(
                "MISMATCH seed {seed} (SHEPHERD_ORACLE_SEED={seed} SHEPHERD_ORACLE_AUTOSCALE=1 SHEPHERD_ORACLE_ONLY=autoscale)"
            );
            for d in &diffs {
                println!("  [{}] {}", d.class, d.text);
            }
            println!("  manifest (the Pending pod is default/incoming):");
            for line in ca::repro_manifest(&c).lines() {
                println!("    {line}");
            }
        } else {
            println!(
                "MISMATCH seed {seed} ({}): {}",
                diffs[0].class, diffs[0].text
            );
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "{} template-node checks from seed {start} in {secs:.1} s: {fits} fit, rejected by {rejected:?}; {with_ds} with DaemonSet pods on the template node",
        pass + fail
    );
    if !by_class.is_empty() {
        eprintln!("mismatches by class (cases, first seed):");
        for (cl, (count, seed)) in &by_class {
            eprintln!("  {cl}: {count} (seed {seed})");
        }
    }
    Ok((pass, fail))
}
