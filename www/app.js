// Loads the engine (WebAssembly built from web/ by wasm-pack into pkg/) and shows what it reports.
// Paths are relative, so the same files work from the repository root and from dist/.
import init, * as shepherd from '../pkg/shepherd_web.js';

const $ = (id) => document.getElementById(id);

function kib(bytes) {
  return bytes > 0 ? `${(bytes / 1024).toFixed(1)} KiB` : 'size unknown';
}

async function start() {
  const t0 = performance.now();
  await init(); // fetches ../pkg/shepherd_web_bg.wasm relative to the module's own URL
  const ms = performance.now() - t0;

  const version = shepherd.engine_version();
  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
  const exports = Object.keys(shepherd).filter((k) => k !== 'default' && !k.startsWith('init') && typeof shepherd[k] === 'function');

  $('status').textContent = `Shepherd engine ${version} is running in this page.`;
  $('engine-version').textContent = version;
  $('engine-module').textContent = `WebAssembly, ${kib(wasm ? (wasm.decodedBodySize || wasm.encodedBodySize) : 0)}`;
  $('engine-startup').textContent = `${ms.toFixed(1)} ms to fetch, compile and instantiate`;
  $('engine-exports').textContent = exports.sort().join(', ');
  $('facts').hidden = false;

  // A smoke run of the engine: where it placed the pods of a small Deployment.
  const CAPACITY_MILLIS = 4000; // the demo's nodes have 4 CPUs each
  const list = $('nodes');
  list.replaceChildren(...shepherd.demo_placement().map((n) => {
    const li = document.createElement('li');
    li.className = 'node';
    li.dataset.node = n.node;
    li.dataset.pods = String(n.pods);
    const pct = Math.min(100, (100 * n.cpu_millis) / CAPACITY_MILLIS);
    li.innerHTML = `<span class="name"></span><span class="bar"><span style="width:${pct}%"></span></span><span class="count"></span>`;
    li.querySelector('.name').textContent = n.node;
    li.querySelector('.count').textContent =
      `${n.pods} pod${n.pods === 1 ? '' : 's'} · ${n.cpu_millis / 1000} CPU · ${n.memory_mib} MiB`;
    return li;
  }));
  document.body.dataset.engine = 'ready';
  document.body.dataset.engineVersion = version;
}

start().catch((err) => {
  const hint = location.protocol === 'file:'
    ? ' Browsers do not load WebAssembly from file:// pages: serve this folder over HTTP (scripts/serve.sh).'
    : '';
  $('status').textContent = `The engine failed to load: ${err && err.message ? err.message : err}.${hint}`;
  $('status').classList.add('error');
  document.body.dataset.engine = 'error';
  console.error(err);
});
