//! Runs in real headless Chromium: `wasm-pack test --headless --chrome web/`
//! (scripts/test.sh does this with the environment from scripts/lib.sh).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).expect("a property")
}

#[wasm_bindgen_test]
fn engine_version_crosses_the_boundary() {
    let v = shepherd_web::engine_version();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    assert!(v.split('.').count() == 3, "version {v:?} does not look like x.y.z");
}

#[wasm_bindgen_test]
fn the_engine_places_pods_in_the_browser() {
    let placement = Array::from(&shepherd_web::demo_placement().expect("the demo runs"));
    assert_eq!(placement.length(), 2);
    let pods: Vec<f64> = placement.iter().map(|n| get(&n, "pods").as_f64().unwrap()).collect();
    // Bin-packing fills node-1 first: 4 pods of 1 CPU on a 4-CPU node, the fifth on node-2.
    assert_eq!(pods, vec![4.0, 1.0]);
    assert_eq!(get(&placement.get(0), "node").as_string().as_deref(), Some("node-1"));
    assert_eq!(get(&placement.get(0), "cpu_millis").as_f64(), Some(4000.0));
}

#[wasm_bindgen_test]
fn runs_in_a_browser_window() {
    let global = js_sys::global();
    let has = |name: &str| Reflect::has(&global, &name.into()).unwrap_or(false);
    assert!(has("window") && has("document"), "expected a browser page, not node or a worker");
}
