use wasm_bindgen::prelude::*;
#[wasm_bindgen]
pub fn engine_version() -> String { shepherd::version().into() }
