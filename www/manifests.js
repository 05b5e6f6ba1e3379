// What comes into the page and what goes out of it as files: one Import
// (paste, file picker, an example, or a file dropped anywhere on the page)
// that takes a scenario exported from this page or Kubernetes manifests and
// routes each to its reader (routeOf), and "Export manifests". The engine
// does the reading (fromScenario, importManifests): all or nothing, so a
// refused file leaves the current run exactly as it was, and the refusal
// names the document, the object and the field. Every refusal is shown in
// the Import dialog, next to its controls (the dialog opens for a dropped
// file); the element ids say "manifests" for history's sake.
//
// An imported cluster is one action in the scenario (its canonical manifests
// at tick 1), so the link, Export, Back and undo keep working as for any run.
import { $, h, setText, num } from './dom.js';
import { stepInSlices, placedWords } from './slices.js';

// Example manifest sets shipped with the page (www/examples/).
export const EXAMPLES = [
  { file: 'three-zones.yaml', title: 'Three zones: a web tier spread by zone, a cache, a budget' },
  { file: 'scheduler-profile.yaml', title: 'A KubeSchedulerConfiguration that bin-packs, with node affinity' },
  { file: 'kubectl-get-list.yaml', title: 'kubectl get … -o yaml output, with a cluster\'s noise' },
  { file: 'autoscaling.yaml', title: 'Cluster Autoscaler on KWOK: three node groups, a Deployment that does not fit, the cost per hour' },
  { file: 'mid-sized-cluster.yaml', title: 'A running cluster as kubectl prints it: 15 nodes in three zones, a GPU pool, a rollout halfway, a StatefulSet' },
];

// Inputs larger than this are read in a Web Worker (www/import-worker.js), so
// the page keeps answering; smaller ones read in a few milliseconds here.
const WORKER_BYTES = 256 * 1024;
// The progress shows when an import has taken this long, or at once for
// inputs large enough to take longer than that.
const PROGRESS_AFTER_MS = 500;
const PROGRESS_AT_ONCE_BYTES = 4 * 1024 * 1024;

const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

// A scenario document's top-level keys (web/src/scenario.rs, Scenario).
const SCENARIO_KEYS = ['version', 'seed', 'policy', 'tick', 'actions', 'notes'];

// Which reader a text is for: 'scenario' for a JSON object that is this
// page's export (its keys are a scenario's, with no apiVersion or kind),
// else 'manifests' (YAML, a JSON object or a kind: List). Only the first
// key is read from texts too large to be a scenario, or that are not valid
// JSON: an export starts with "version".
// The last answer: a dropped file is routed twice (its warnings open with
// a cluster), and JSON.parse of megabytes is not free.
let lastRoute = { text: null, max: 0, route: null };

export function routeOf(text, maxScenarioBytes) {
  if (lastRoute.text === text && lastRoute.max === maxScenarioBytes) return lastRoute.route;
  const route = routeOfText(text, maxScenarioBytes);
  // Only texts that were parsed are kept (a larger one is routed by its first key alone).
  lastRoute = text.length <= maxScenarioBytes ? { text, max: maxScenarioBytes, route } : { text: null, max: 0, route: null };
  return route;
}

function routeOfText(text, maxScenarioBytes) {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /^\s*\{\s*"([^"\\]{1,32})"\s*:/.exec(t.slice(0, 4096));
  if (!first) return 'manifests';
  if (t.length <= maxScenarioBytes) {
    let doc;
    try {
      doc = JSON.parse(t);
    } catch {
      doc = null;
    }
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
      const keys = Object.keys(doc);
      if (keys.includes('apiVersion') || keys.includes('kind')) return 'manifests';
      return keys.some((k) => SCENARIO_KEYS.includes(k)) ? 'scenario' : 'manifests';
    }
  }
  return SCENARIO_KEYS.includes(first[1]) ? 'scenario' : 'manifests';
}

// Reads `source` in a fresh worker: resolves to {manifests, report, loadMs,
// readMs}, rejects with the engine's refusal. `onProgress(fraction)` as the
// YAML is read. The worker ends with the import (its memory goes with it);
// `cancel.now()` ends it early.
function readInWorker(source, onProgress, cancel) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./import-worker.js', import.meta.url), { type: 'module' });
    const end = () => { w.terminate(); cancel.now = () => {}; };
    cancel.now = () => { end(); reject(Object.assign(new Error('cancelled'), { cancelled: true })); };
    w.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'progress') { onProgress(m.done / m.total); return; }
      end();
      if (m.type === 'done') resolve(m);
      else reject(new Error(m.message));
    };
    w.onerror = (e) => {
      end();
      reject(new Error(`the import worker stopped: ${e.message || 'it could not start'}`));
    };
    w.postMessage({ text: source });
  });
}

// Two frames: what was just written to the page is on screen.
const painted = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

function dialog() {
  const d = h('dialog', { id: 'manifests-dialog', class: 'dialog manifests', 'aria-labelledby': 'manifests-h' },
    h('form', { method: 'dialog', id: 'manifests-form', class: 'dialog-frame' },
      h('div', { class: 'dialog-head' }, h('h2', { id: 'manifests-h' }, 'Import a scenario or Kubernetes manifests')),
      h('div', { class: 'dialog-body' },
        h('p', { class: 'summary' },
          'A scenario exported from this page (JSON), or manifests: a YAML stream, JSON, or a kind: List as kubectl get nodes,deployments,pdb,services -A -o yaml prints it. ',
          'Nodes, Deployments, ReplicaSets, StatefulSets, PodDisruptionBudgets, Services and a KubeSchedulerConfiguration are simulated; ',
          'everything else is listed below as a warning. The import replaces the current run (you can undo).'),
        h('div', { class: 'row' },
          h('label', { class: 'inline' }, 'Example ',
            h('select', { id: 'manifests-example' },
              h('option', { value: '' }, 'Choose an example…'),
              ...EXAMPLES.map((x) => h('option', { value: x.file }, x.title)))),
          h('button', { type: 'button', id: 'manifests-pick' }, 'Choose a file…'),
          h('input', { type: 'file', id: 'import-file', accept: '.json,.yaml,.yml,application/json,text/yaml', hidden: '', 'aria-label': 'Scenario or manifest file to import' })),
        h('label', { for: 'manifests-text', class: 'block' }, 'Scenario JSON or manifests'),
        h('textarea', { id: 'manifests-text', rows: '10', spellcheck: 'false', autocomplete: 'off', placeholder: 'apiVersion: v1\nkind: Node\n…' }),
        h('div', { id: 'manifests-progress', class: 'progress', role: 'status', hidden: '' },
          h('progress', { id: 'manifests-progress-bar', max: '100', 'aria-labelledby': 'manifests-progress-text' }),
          h('span', { id: 'manifests-progress-text' }),
          h('button', { type: 'button', id: 'manifests-cancel' }, 'Cancel')),
        h('p', { id: 'manifests-error', class: 'error', role: 'alert', tabindex: '-1', hidden: '' }),
        h('div', { id: 'manifests-result', hidden: '' },
          h('p', { id: 'manifests-summary', class: 'summary', role: 'status', tabindex: '-1' }),
          h('h3', { id: 'manifests-warnings-h' }, 'Warnings'),
          // A list that scrolls on its own: reachable from the keyboard (axe: scrollable-region-focusable).
          h('div', { class: 'warnings', role: 'region', tabindex: '0', 'aria-labelledby': 'manifests-warnings-h' },
            h('ul', { id: 'manifests-warnings', 'aria-labelledby': 'manifests-warnings-h' })))),
      h('div', { class: 'buttons dialog-foot' },
        h('button', { type: 'button', id: 'manifests-import', class: 'primary' }, 'Import'),
        h('button', { type: 'button', id: 'manifests-apply', title: 'kubectl apply -f onto the running cluster: new objects are created, existing ones updated (a changed Deployment template rolls, replicas scale)' }, 'Apply to this run'),
        h('button', { type: 'submit', value: 'close', id: 'manifests-close' }, 'Close'))));
  document.body.append(d);
  return d;
}

function showWarnings(report) {
  setText($('manifests-summary'), `${report.summary}. Scheduler profile: ${report.profile}.`);
  const list = $('manifests-warnings');
  list.replaceChildren(...report.warnings.map((w) => h('li', {}, w.text)));
  if (!report.warnings.length) list.append(h('li', {}, 'None: every field was simulated or changes nothing here.'));
  setText($('manifests-warnings-h'), `Warnings (${report.warnings.length})`);
  $('manifests-result').hidden = false;
}

// `ctx`: { Shepherd, sim(), replace(sim, opts), toast(text), showProblem(text),
// hideProblem(), setPlaying(on), download(name, text), refusedDuringReplay(sim),
// plural(n, word) } from app.js.
export function wireManifests(ctx) {
  const d = dialog();
  const text = $('manifests-text');
  const error = $('manifests-error');
  const { plural } = ctx;

  // Opens the dialog (if a dropped file or the file input bypassed it) and
  // moves focus to `el`.
  function inDialog(el) {
    if (!d.open) d.showModal();
    el.focus();
  }

  function refused(name, why) {
    setText(error, `Could not import ${name}; nothing changed. ${why}`);
    error.hidden = false;
    $('manifests-result').hidden = true;
    inDialog(error);
    return false;
  }

  function imported(next, report, name) {
    ctx.setPlaying(false);
    ctx.replace(next, { what: `Import of ${name}` });
    ctx.hideProblem();
    showWarnings(report);
    const kinds = [plural(report.nodes, 'node'), plural(report.deployments, 'Deployment')];
    if (report.daemonsets) kinds.push(plural(report.daemonsets, 'DaemonSet'));
    if (report.pods) kinds.push(plural(report.pods, 'Pod'));
    ctx.toast(`Imported ${name}: ${kinds.join(', ')}, ${plural(report.warnings.length, 'warning')}`);
    document.body.dataset.manifests = 'imported';
    return true;
  }

  // A scenario exported from this page: replayed to its tick. Actions that
  // were refused when they fired (the cluster had changed by then) replay
  // the same way: the dialog lists them, never a plain success.
  function importScenario(source, name) {
    error.hidden = true;
    let sim;
    try {
      if (source.length > ctx.Shepherd.maxDocumentBytes()) {
        throw new Error(`the scenario is more than ${ctx.Shepherd.maxDocumentBytes()} bytes (MAX_DOCUMENT_BYTES); expected a smaller document`);
      }
      sim = ctx.Shepherd.fromScenario(source);
    } catch (err) {
      return refused(name, err && err.message ? err.message : String(err));
    }
    const late = ctx.refusedDuringReplay(sim);
    ctx.setPlaying(false);
    ctx.replace(sim, { what: `Import of ${name}` });
    ctx.hideProblem();
    document.body.dataset.imported = 'scenario';
    if (!late.length) {
      if (d.open) d.close();
      ctx.toast(`Imported ${name}: tick ${sim.tick}, ${plural(sim.actionCount, 'action')}`);
      return true;
    }
    const first = late[0];
    setText($('manifests-summary'), `Imported ${name} to tick ${sim.tick}, but ${num(late.length)} of its actions ${late.length === 1 ? 'was' : 'were'} refused when ${late.length === 1 ? 'it' : 'they'} fired, the first at tick ${first.tick}: ${first.message}`);
    $('manifests-warnings').replaceChildren(...late.slice(0, 200).map((e) => h('li', {}, `tick ${e.tick}: ${e.message}`)));
    setText($('manifests-warnings-h'), `Refused when they fired (${num(late.length)})`);
    $('manifests-result').hidden = false;
    inDialog($('manifests-summary'));
    return true;
  }

  // A file past every import's limit is refused from its size (nothing
  // read): `file.text()` of a gigabyte would take the tab's memory first.
  // A scenario (its first bytes say so) past its own, smaller limit, too.
  async function shown(file) {
    const max = ctx.Shepherd.maxManifestBytes();
    if (file.size > max) {
      throw new Error(`the input is ${file.size} bytes; expected at most ${max} (Limits::max_bytes)`);
    }
    const maxScenario = ctx.Shepherd.maxDocumentBytes();
    if (file.size > maxScenario && routeOf(await file.slice(0, 4096).text(), 0) === 'scenario') {
      throw new Error(`the scenario is ${file.size} bytes, more than the limit of ${maxScenario} (MAX_DOCUMENT_BYTES); expected a smaller document`);
    }
    const source = await file.text();
    text.value = source.length > WORKER_BYTES ? '' : source;
    text.placeholder = source.length > WORKER_BYTES ? `${file.name} (${mb(source.length)}) is not shown here` : 'apiVersion: v1\nkind: Node\n…';
    return source;
  }

  // `shown`, or null once the file is refused (the dialog says why).
  async function readChosen(file) {
    try {
      return await shown(file);
    } catch (err) {
      refused(file.name, err.message);
      return null;
    }
  }

  const progress = $('manifests-progress');
  const cancel = { now: () => {} };
  let busy = false;
  $('manifests-cancel').addEventListener('click', () => cancel.now());
  function setProgress(fraction, words) {
    if (fraction === null) $('manifests-progress-bar').removeAttribute('value');
    else $('manifests-progress-bar').value = Math.round(fraction * 100);
    setText($('manifests-progress-text'), words);
  }

  // Reads `source` (a scenario or manifests, routeOf) into a new session;
  // the current one is untouched on refusal.
  async function importText(source, name) {
    if (busy) return false;
    error.hidden = true;
    if (routeOf(source, ctx.Shepherd.maxDocumentBytes()) === 'scenario') return importScenario(source, name);
    // A text longer than the limit in UTF-16 units is longer still in UTF-8
    // bytes: refused here, before it is copied into the engine or a worker.
    // Within it, the engine bounds the rest (nesting, aliases, every list)
    // in the worker as on the page.
    const max = ctx.Shepherd.maxManifestBytes();
    if (source.length > max) {
      return refused(name, `the input is more than ${max} bytes; expected at most ${max} (Limits::max_bytes)`);
    }
    if (source.length <= WORKER_BYTES) {
      const next = new ctx.Shepherd(ctx.sim().seed, 'default-scheduler');
      let report;
      try {
        report = next.importManifests(source);
      } catch (err) {
        next.free();
        return refused(name, err && err.message ? err.message : String(err));
      }
      return imported(next, report, name);
    }
    // Large: read in a worker while the page stays live, with progress.
    busy = true;
    $('manifests-import').disabled = true;
    $('manifests-result').hidden = true;
    if (!d.open) d.showModal();
    const phase = (p) => { document.body.dataset.importing = p; };
    phase('reading');
    setProgress(0, `Reading ${name} (${mb(source.length)})…`);
    const show = () => { progress.hidden = false; };
    const timer = setTimeout(show, PROGRESS_AFTER_MS);
    if (source.length >= PROGRESS_AT_ONCE_BYTES) show();
    const done = () => {
      clearTimeout(timer);
      progress.hidden = true;
      busy = false;
      $('manifests-import').disabled = false;
      delete document.body.dataset.importing;
    };
    const started = performance.now();
    let read;
    try {
      read = await readInWorker(source, (f) => setProgress(f, `Reading ${name}: ${Math.round(f * 100)}% of ${mb(source.length)}`), cancel);
    } catch (err) {
      done();
      if (err.cancelled) {
        ctx.toast(`Import of ${name} cancelled; nothing changed`);
        return false;
      }
      return refused(name, err.message);
    }
    // The run is built here, where the engine's session lives, and its
    // first tick (every pod placed) runs in slices with the page painting
    // between them (www/slices.js): the bar counts the pods placed, and
    // Cancel still works.
    phase('placing');
    const r = read.report;
    setProgress(null, `Checking the ${plural(r.nodes, 'node')} and ${plural(r.deployments, 'Deployment')}…`);
    if (!progress.hidden || performance.now() - started > PROGRESS_AFTER_MS / 2) {
      show();
      await painted();
    }
    let stop = false;
    cancel.now = () => { stop = true; };
    const next = new ctx.Shepherd(ctx.sim().seed, 'default-scheduler');
    const t = performance.now();
    let placed;
    try {
      next.loadImported(read.manifests, true);
      const loadMs = performance.now() - t;
      placed = await stepInSlices(next, {
        onProgress: (bound, total) => {
          if (performance.now() - started > PROGRESS_AFTER_MS) show();
          setProgress(total > 0 ? bound / total : 0, placedWords(bound, total));
        },
        cancelled: () => stop,
      });
      if (placed) placed.loadMs = loadMs;
    } catch (err) {
      next.free();
      cancel.now = () => {};
      done();
      return refused(name, err && err.message ? err.message : String(err));
    }
    cancel.now = () => {};
    if (!placed) {
      next.free();
      done();
      ctx.toast(`Import of ${name} cancelled; nothing changed`);
      return false;
    }
    // For the browser tests and the README's figures: where the time went.
    document.body.dataset.importTimes = JSON.stringify({
      workerLoadMs: Math.round(read.loadMs), readMs: Math.round(read.readMs),
      loadMs: Math.round(placed.loadMs), placeMs: Math.round(placed.engineMs),
      slices: placed.slices, longestSliceMs: Math.round(placed.longestMs),
      placeWallMs: Math.round(performance.now() - t), totalMs: Math.round(performance.now() - started),
    });
    done();
    return imported(next, r, name);
  }

  $('btn-import').addEventListener('click', () => {
    error.hidden = true;
    d.showModal();
    text.focus();
  });
  $('manifests-pick').addEventListener('click', () => $('import-file').click());
  $('import-file').addEventListener('change', async (e) => {
    const file = e.target.files && e.target.files[0];
    e.target.value = '';
    if (!file) return;
    const source = await readChosen(file);
    if (source !== null) await importText(source, file.name);
  });
  $('manifests-example').addEventListener('change', async (e) => {
    const file = e.target.value;
    if (!file) return;
    try {
      const r = await fetch(`www/examples/${file}`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      text.value = await r.text();
    } catch (err) {
      setText(error, `Could not load the example ${file}: ${err.message}`);
      error.hidden = false;
      return;
    }
    await importText(text.value, file);
  });
  // kubectl apply -f onto the running cluster: one action, queued for the
  // next tick like any other (Back, the link and undo keep it).
  $('manifests-apply').addEventListener('click', () => {
    if (!text.value.trim()) {
      setText(error, 'Nothing to apply: paste manifests, choose a file or an example.');
      error.hidden = false;
      text.focus();
      return;
    }
    if (text.value.length > WORKER_BYTES) {
      setText(error, `The manifests are ${mb(text.value.length)}; expected at most ${mb(WORKER_BYTES)} to apply onto a running cluster (Import reads larger inputs as a new run).`);
      error.hidden = false;
      return;
    }
    error.hidden = true;
    let report = null;
    let why = '';
    const ok = ctx.act((sim) => {
      try {
        report = sim.applyManifests(text.value);
      } catch (err) {
        why = err && err.message ? err.message : String(err);
        throw err;
      }
      return `kubectl apply: ${report.summary}`;
    });
    if (!ok) {
      setText(error, `Could not apply the manifests; nothing changed. ${why}`);
      error.hidden = false;
      return;
    }
    showWarnings(report);
    document.body.dataset.manifests = 'applied';
  });
  $('manifests-import').addEventListener('click', async () => {
    if (!text.value.trim()) {
      setText(error, 'Nothing to import: paste a scenario or manifests, choose a file or an example.');
      error.hidden = false;
      text.focus();
      return;
    }
    await importText(text.value, routeOf(text.value, ctx.Shepherd.maxDocumentBytes()) === 'scenario' ? 'the pasted scenario' : 'the pasted manifests');
  });

  // A file dropped anywhere on the page imports at once; the warnings open.
  document.addEventListener('dragover', (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) {
      e.preventDefault();
      document.body.classList.add('dropping');
    }
  });
  document.addEventListener('dragleave', (e) => {
    if (e.target === document.documentElement || e.target === document.body) document.body.classList.remove('dropping');
  });
  document.addEventListener('drop', async (e) => {
    const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    document.body.classList.remove('dropping');
    if (!file) return;
    e.preventDefault();
    const source = await readChosen(file);
    if (source === null) return;
    // A cluster's warnings open with it; a scenario says only its toast.
    const manifests = routeOf(source, ctx.Shepherd.maxDocumentBytes()) === 'manifests';
    if (await importText(source, file.name) && manifests && !d.open) d.showModal();
  });

  $('btn-export-manifests').addEventListener('click', () => {
    const sim = ctx.sim();
    let out;
    try {
      out = sim.exportManifests();
    } catch (err) {
      ctx.showProblem(`Could not export manifests: ${err && err.message ? err.message : err}`, $('menu-scenario-btn'));
      return;
    }
    ctx.download(`shepherd-seed${sim.seed}-tick${sim.tick}.yaml`, out.manifests);
    ctx.download(`kube-scheduler-config.yaml`, out.schedulerConfig);
    ctx.toast('Manifests exported: the cluster for kubectl apply -f, and the scheduler profile for kube-scheduler --config');
  });

  $('btn-export-kwok').addEventListener('click', () => {
    const sim = ctx.sim();
    let out;
    try {
      out = sim.exportManifestsKwok();
    } catch (err) {
      ctx.showProblem(`Could not export for KWOK: ${err && err.message ? err.message : err}`, $('menu-scenario-btn'));
      return;
    }
    ctx.download(`shepherd-seed${sim.seed}-tick${sim.tick}-kwok.yaml`, out);
    ctx.toast('Exported for KWOK: kwokctl create cluster, then kubectl apply -f the file');
  });
}
