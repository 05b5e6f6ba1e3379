// Reads Kubernetes manifests off the page's thread (www/manifests.js sends
// inputs above WORKER_BYTES here), so a 20 MB paste or drop does not freeze
// the page. The worker loads its own copy of the engine's WebAssembly module
// (the browser's cache serves the file; the compile is the worker's time, not
// the page's), reads and maps the text with readManifests, reports progress
// per percent of the YAML read, and returns the canonical manifests and the
// report. The page builds the run from those (loadImported): the engine's
// session lives on the page.
import init, { readManifests } from '../pkg/shepherd_web.js';

const loading = performance.now();
const ready = init();

self.onmessage = async (e) => {
  const { text } = e.data;
  try {
    await ready;
    const loaded = performance.now();
    const out = readManifests(text, (done, total) => self.postMessage({ type: 'progress', done, total }));
    self.postMessage({
      type: 'done',
      manifests: out.manifests,
      report: out.report,
      loadMs: loaded - loading,
      readMs: performance.now() - loaded,
    });
  } catch (err) {
    self.postMessage({ type: 'error', message: err && err.message ? err.message : String(err) });
  }
};
