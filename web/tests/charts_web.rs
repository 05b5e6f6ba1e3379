//! `balance()` and `series(from)` as the page receives them, in real headless
//! Chromium (`wasm-pack test --headless --chrome web`): plain objects with
//! the README's field names, and typed arrays of one entry per tick.
#![cfg(target_arch = "wasm32")]

use js_sys::{Float64Array, Object, Reflect, Uint32Array};
use shepherd_web::Shepherd;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).expect("a property")
}

fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).expect("settable");
    }
    o.into()
}

fn cluster() -> Shepherd {
    let mut s = Shepherd::new(3.0, "binpack").expect("a valid seed and policy");
    for name in ["node-1", "node-2"] {
        s.add_node(obj(&[
            ("name", name.into()),
            ("cpu", 4000.into()),
            ("memory", "8Gi".into()),
        ]))
        .expect("a valid node");
    }
    // Three 2.5-core pods: two fit (one per node) and one stays Pending,
    // though the 1.5 cores left on each node would hold it if pooled.
    s.deploy(obj(&[
        ("name", "big".into()),
        ("replicas", 3.into()),
        ("cpu", "2500m".into()),
        ("memory", "512Mi".into()),
    ]))
    .expect("a valid deployment");
    s
}

#[wasm_bindgen_test]
fn balance_is_a_plain_object_with_the_documented_figures() {
    let mut s = cluster();
    s.run(2.0).expect("two ticks");
    let b = s.balance().expect("a balance");
    let cpu = get(&b, "cpu");
    assert_eq!(get(&cpu, "requested").as_f64(), Some(5000.0));
    assert_eq!(get(&cpu, "allocatable").as_f64(), Some(8000.0));
    assert_eq!(get(&cpu, "min").as_f64(), Some(0.625));
    assert_eq!(get(&cpu, "stdDev").as_f64(), Some(0.0));
    let hist = js_sys::Array::from(&get(&cpu, "histogram"));
    assert_eq!(hist.length(), 10);
    assert_eq!(hist.get(6).as_f64(), Some(2.0));
    assert_eq!(get(&b, "pending").as_f64(), Some(1.0));
    let f = get(&b, "fragmentation");
    assert_eq!(get(&f, "app").as_string().as_deref(), Some("big"));
    assert_eq!(get(&f, "memoryBytes").as_f64(), Some(512.0 * 1048576.0));
    assert_eq!(get(&f, "fitOnNodes").as_f64(), Some(0.0));
    assert_eq!(get(&f, "fitPooled").as_f64(), Some(1.0));
    assert_eq!(get(&f, "stranded").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
fn series_are_typed_arrays_of_one_entry_per_tick() {
    let mut s = cluster();
    s.run(3.0).expect("three ticks");
    let all = s.series(0.0).expect("a series");
    let cpu: Float64Array = get(&all, "cpuRequested")
        .dyn_into()
        .expect("a Float64Array");
    let pending: Uint32Array = get(&all, "pending").dyn_into().expect("a Uint32Array");
    let not_ready: Uint32Array = get(&all, "notReady").dyn_into().expect("a Uint32Array");
    assert_eq!(cpu.length(), 4, "ticks 0 to 3");
    assert_eq!(cpu.to_vec(), vec![0.0, 5000.0, 5000.0, 5000.0]);
    assert_eq!(pending.to_vec(), vec![0, 1, 1, 1]);
    assert_eq!(not_ready.to_vec(), vec![0, 0, 0, 0]);
    // Only what is new since a tick; after Back, the series ends at the tick.
    let tail = s.series(3.0).expect("a series");
    assert_eq!(get(&tail, "from").as_f64(), Some(3.0));
    let mem: Float64Array = get(&tail, "memoryRequested")
        .dyn_into()
        .expect("a Float64Array");
    assert_eq!(
        mem.to_vec(),
        vec![1024.0 * 1048576.0],
        "two 512Mi pods, in bytes"
    );
    s.step_back().expect("back one tick");
    let cpu: Float64Array = get(&s.series(0.0).expect("a series"), "cpuRequested")
        .dyn_into()
        .expect("a Float64Array");
    assert_eq!(cpu.length(), 3);
    assert!(s.series(-1.0).is_err(), "a negative tick is refused");
}
