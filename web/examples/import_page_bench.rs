//! What the page does with a large import, natively: read the manifests
//! (`manifests::read`, the worker's half) and build the run from the
//! canonical manifests (`manifests::canonical_session`, the page's half).
//!
//! `cargo run --release -p shepherd-web --example import_page_bench [NODES DEPLOYMENTS]`

use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (n, d) = (
        args.first().copied().unwrap_or(2000),
        args.get(1).copied().unwrap_or(2000),
    );
    let mut docs = Vec::new();
    for i in 1..=n {
        docs.push(format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels:\n    topology.kubernetes.io/zone: zone-{}\nstatus:\n  allocatable:\n    cpu: \"16\"\n    memory: 65776800Ki\n    pods: \"110\"\n",
            i % 3
        ));
    }
    for i in 1..=d {
        docs.push(format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: main\n        resources:\n          requests:\n            cpu: 100m\n            memory: 128Mi\n"
        ));
    }
    let text = docs.join("---\n");
    let t = Instant::now();
    let (canonical, report) = shepherd_web::manifests::read(&text, &mut |_| {}).expect("reads");
    println!(
        "{n} nodes, {d} Deployments: read {:.1} MB in {:.2?} ({})",
        text.len() as f64 / 1e6,
        t.elapsed(),
        report.summary
    );
    let t = Instant::now();
    let s = shepherd_web::manifests::canonical_session(&canonical, 1).expect("builds");
    println!(
        "built the run from {:.1} MB of canonical manifests in {:.2?}",
        canonical.len() as f64 / 1e6,
        t.elapsed()
    );
    drop(s);
}
