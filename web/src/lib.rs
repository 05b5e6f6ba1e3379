//! WebAssembly facade over the `shepherd` engine: what the page (www/app.js) calls.
//! No logic lives here; every answer comes from the engine.
use serde::Serialize;
use shepherd::{Cluster, DeploymentSpec, NodeSpec, Resources, ScorePolicy};
use wasm_bindgen::prelude::*;

/// The engine's version. The workspace gives `shepherd` and `shepherd-web` one version;
/// this reads the facade's until the engine exports a constant of its own.
#[wasm_bindgen]
pub fn engine_version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

#[derive(Serialize)]
struct Placement {
    node: String,
    pods: u32,
    cpu_millis: u64,
    memory_mib: u64,
}

/// A smoke run of the engine inside the page: two 4-CPU nodes, a Deployment `web` of five
/// 1-CPU pods, reconciled to a fixed point with bin-packing. Returns
/// `[{ node, pods, cpu_millis, memory_mib }]`, one entry per node, by node id.
#[wasm_bindgen]
pub fn demo_placement() -> Result<JsValue, JsError> {
    let err = |e: shepherd::Error| JsError::new(&format!("{e:?}"));
    let mut cluster = Cluster::new();
    cluster.add_node(NodeSpec::new("node-1", 4000, 8192)).map_err(err)?;
    cluster.add_node(NodeSpec::new("node-2", 4000, 8192)).map_err(err)?;
    cluster
        .deploy(DeploymentSpec::new("web", 5, Resources::new(1000, 1024)))
        .map_err(err)?;
    let fp = cluster.reconcile_to_fixed_point(ScorePolicy::BinPack);
    if !fp.converged {
        return Err(JsError::new("the demo did not reach a fixed point"));
    }
    let placement: Vec<Placement> = cluster
        .nodes()
        .map(|n| Placement {
            node: n.name().into(),
            pods: n.pod_count,
            cpu_millis: n.allocated.cpu_millis,
            memory_mib: n.allocated.memory_mib,
        })
        .collect();
    Ok(serde_wasm_bindgen::to_value(&placement)?)
}
