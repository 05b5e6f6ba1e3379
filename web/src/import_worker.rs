//! The two halves of a manifest import for a page that reads large inputs in
//! a Web Worker (www/import-worker.js): `readManifests` reads and maps the
//! text in the worker, telling it its progress, and `loadImported` builds the
//! run from the canonical manifests it returns, on the page. Together they do
//! what `importManifests` does in one call.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::manifests::{self, ImportReport};
use crate::{err, to_js, Shepherd};

/// Reads Kubernetes manifests (a YAML stream, JSON, or `kind: List`) without
/// building a run: `{manifests, report}`, the canonical manifests the run's
/// script will hold and the report `importManifests` returns. `progress`,
/// when given, is called as `progress(bytesRead, bytesTotal)` each time
/// another percent of a YAML stream has been read. A refusal throws the
/// same Error `importManifests` throws.
#[wasm_bindgen(js_name = readManifests)]
pub fn read_manifests(text: &str, progress: Option<js_sys::Function>) -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    struct Out {
        manifests: String,
        report: ImportReport,
    }
    let total = text.len().max(1);
    let mut last = 0;
    let mut tell = |done: usize| {
        let pct = done.saturating_mul(100) / total;
        if pct > last {
            last = pct;
            if let Some(f) = &progress {
                // A failing callback only loses a progress report.
                let _ = f.call2(
                    &JsValue::NULL,
                    &JsValue::from_f64(done as f64),
                    &JsValue::from_f64(total as f64),
                );
            }
        }
    };
    let (manifests, report) = manifests::read(text, &mut tell).map_err(err)?;
    to_js(&Out { manifests, report })
}

#[wasm_bindgen]
impl Shepherd {
    /// Replaces the session with the run whose script is the canonical
    /// manifests `readManifests` returned, same seed, at tick 1. All or
    /// nothing: the text is imported again on the way, and a refusal throws
    /// and leaves the session unchanged. With `placeLater`, the session
    /// stays at tick 0 with the import queued for tick 1: the page then
    /// places the pods in slices (`stepSlice`), painting between them.
    #[wasm_bindgen(js_name = loadImported)]
    pub fn load_imported(
        &mut self,
        canonical: &str,
        place_later: Option<bool>,
    ) -> Result<(), JsError> {
        let tick = if place_later.unwrap_or(false) { 0 } else { 1 };
        let session =
            manifests::canonical_session_at(canonical, self.session.seed(), tick).map_err(err)?;
        self.session = session;
        Ok(())
    }
}
