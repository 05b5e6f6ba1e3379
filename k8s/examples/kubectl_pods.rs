//! How long `kubectl get pods -A -o wide` takes to give its first screen
//! (and a page deep in the list, and the count alone) at Kubernetes'
//! envelope: 5,000 nodes and 150,000 pods in 500 Deployments (and in 5,000).
//!
//! `cargo run --release -p shepherd-k8s --example kubectl_pods [APPS]`

use std::time::Instant;

use shepherd::quantity::MIB;
use shepherd::{Cluster, DeploymentSpec, NodeSpec, Profile, Resources};
use shepherd_k8s::kubectl::{parse, run, tokenize, Page, Reply};

fn main() {
    let apps: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500);
    let (nodes, pods) = (5000u32, 150_000u32);
    let mut c = Cluster::new();
    for i in 0..nodes {
        c.add_node(
            NodeSpec::new(&format!("node-{}", i + 1), 16000, 65536 * MIB).with_label(
                "topology.kubernetes.io/zone",
                ["a", "b", "c"][i as usize % 3],
            ),
        )
        .expect("a valid node");
    }
    for i in 0..apps {
        let ns = if i % 2 == 0 { "default" } else { "shop" };
        if i == 1 {
            c.add_namespace(shepherd::NamespaceSpec::new("shop"))
                .expect("a valid namespace");
        }
        let name = shepherd::namespace::qualify(ns, &format!("app-{}", i + 1));
        c.deploy(DeploymentSpec::new(
            &name,
            pods / apps,
            Resources::new(100, 128 * MIB),
        ))
        .expect("a valid Deployment");
    }
    let t = Instant::now();
    let fp = c.reconcile_to_fixed_point(Profile::default());
    println!(
        "cluster: {nodes} nodes, {} pods in {apps} Deployments, converged={} in {:.0} ms",
        c.pods().count(),
        fp.converged,
        t.elapsed().as_secs_f64() * 1e3
    );
    let profile = Profile::default();
    let cmd = parse(&tokenize("get pods -A -o wide").expect("words")).expect("a command");
    for (what, page) in [
        (
            "first screen (50 rows)",
            Page {
                offset: 0,
                limit: 50,
            },
        ),
        (
            "a page at row 100,000",
            Page {
                offset: 100_000,
                limit: 50,
            },
        ),
        (
            "the last page",
            Page {
                offset: 149_950,
                limit: 50,
            },
        ),
    ] {
        let mut best = f64::MAX;
        let mut shown = (0, 0);
        for _ in 0..5 {
            let t = Instant::now();
            let r = run(&c, &profile, &cmd, None, page).expect("get pods answers");
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            if let Reply::Text { rows, total, .. } = r {
                shown = (rows, total);
            }
        }
        println!(
            "get pods -A -o wide, {what}: {best:.2} ms (best of 5), {} rows of {}",
            shown.0, shown.1
        );
    }
    let sel =
        parse(&tokenize("get pods -A -l app=app-7 -o wide").expect("words")).expect("a command");
    let t = Instant::now();
    let r = run(
        &c,
        &profile,
        &sel,
        None,
        Page {
            offset: 0,
            limit: 50,
        },
    )
    .expect("answers");
    if let Reply::Text { total, .. } = r {
        println!(
            "get pods -A -l app=app-7 -o wide, first screen: {:.2} ms, {total} matching",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
