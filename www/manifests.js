// Kubernetes manifests in and out of the page: "Import manifests" (paste,
// file picker, an example, or a file dropped anywhere on the page) and
// "Export manifests". The engine does the reading (importManifests): all or
// nothing, so a refused file leaves the current run exactly as it was, and
// the refusal names the document, the object and the field.
//
// An imported cluster is one action in the scenario (its canonical manifests
// at tick 1), so the link, Export, Back and undo keep working as for any run.
import { $, h, setText } from './dom.js';

// Example manifest sets shipped with the page (www/examples/).
export const EXAMPLES = [
  { file: 'three-zones.yaml', title: 'Three zones: a web tier spread by zone, a cache, a budget' },
  { file: 'scheduler-profile.yaml', title: 'A KubeSchedulerConfiguration that bin-packs, with node affinity' },
  { file: 'kubectl-get-list.yaml', title: 'kubectl get … -o yaml output, with a cluster\'s noise' },
];

// Inputs larger than this take a moment to read: the page says so first.
const SLOW_BYTES = 512 * 1024;

function dialog() {
  const d = h('dialog', { id: 'manifests-dialog', class: 'dialog manifests', 'aria-labelledby': 'manifests-h' },
    h('form', { method: 'dialog', id: 'manifests-form' },
      h('h2', { id: 'manifests-h' }, 'Import Kubernetes manifests'),
      h('p', { class: 'summary' },
        'A YAML stream, JSON, or a kind: List, as kubectl get nodes,deployments,pdb,services -A -o yaml prints it. ',
        'Nodes, Deployments, ReplicaSets, StatefulSets, PodDisruptionBudgets, Services and a KubeSchedulerConfiguration are simulated; ',
        'everything else is listed below as a warning. The import replaces the current run (you can undo).'),
      h('div', { class: 'row' },
        h('label', { class: 'inline' }, 'Example ',
          h('select', { id: 'manifests-example' },
            h('option', { value: '' }, 'Choose an example…'),
            ...EXAMPLES.map((x) => h('option', { value: x.file }, x.title)))),
        h('button', { type: 'button', id: 'manifests-pick' }, 'Choose a file…'),
        h('input', { type: 'file', id: 'manifests-file', accept: '.yaml,.yml,.json,text/yaml,application/json', hidden: '', 'aria-label': 'Manifest file to import' })),
      h('label', { for: 'manifests-text', class: 'block' }, 'Manifests'),
      h('textarea', { id: 'manifests-text', rows: '14', spellcheck: 'false', autocomplete: 'off', placeholder: 'apiVersion: v1\nkind: Node\n…' }),
      h('p', { id: 'manifests-error', class: 'error', role: 'alert', hidden: '' }),
      h('div', { id: 'manifests-result', hidden: '' },
        h('p', { id: 'manifests-summary', class: 'summary', role: 'status' }),
        h('h3', { id: 'manifests-warnings-h' }, 'Warnings'),
        h('ul', { id: 'manifests-warnings', class: 'warnings', 'aria-labelledby': 'manifests-warnings-h' })),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: 'manifests-import', class: 'primary' }, 'Import'),
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
// hideProblem(), setPlaying(on), download(name, text) } from app.js.
export function wireManifests(ctx) {
  const d = dialog();
  const text = $('manifests-text');
  const error = $('manifests-error');

  // Reads `source` into a new session; the current one is untouched on refusal.
  async function importText(source, name) {
    error.hidden = true;
    if (source.length > SLOW_BYTES) {
      ctx.toast(`Reading ${name} (${(source.length / 1048576).toFixed(1)} MB)…`);
      await new Promise((r) => setTimeout(r, 30)); // let the note paint first
    }
    const next = new ctx.Shepherd(ctx.sim().seed, 'default-scheduler');
    let report;
    try {
      report = next.importManifests(source);
    } catch (err) {
      next.free();
      const why = err && err.message ? err.message : String(err);
      setText(error, `Could not import ${name}; nothing changed. ${why}`);
      error.hidden = false;
      $('manifests-result').hidden = true;
      if (!d.open) ctx.showProblem(`Could not import ${name}; nothing changed. ${why}`);
      return false;
    }
    ctx.setPlaying(false);
    ctx.replace(next, { what: `Import of ${name}` });
    ctx.hideProblem();
    showWarnings(report);
    ctx.toast(`Imported ${name}: ${report.nodes} nodes, ${report.deployments} Deployments${report.daemonsets ? `, ${report.daemonsets} DaemonSets` : ''}${report.pods ? `, ${report.pods} Pods` : ''}, ${report.warnings.length} warnings`);
    document.body.dataset.manifests = 'imported';
    return true;
  }

  $('btn-manifests').addEventListener('click', () => {
    error.hidden = true;
    d.showModal();
    text.focus();
  });
  $('manifests-pick').addEventListener('click', () => $('manifests-file').click());
  $('manifests-file').addEventListener('change', async (e) => {
    const file = e.target.files && e.target.files[0];
    e.target.value = '';
    if (!file) return;
    text.value = await file.text();
    await importText(text.value, file.name);
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
  $('manifests-import').addEventListener('click', async () => {
    if (!text.value.trim()) {
      setText(error, 'Nothing to import: paste manifests, choose a file or an example.');
      error.hidden = false;
      text.focus();
      return;
    }
    await importText(text.value, 'the pasted manifests');
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
    text.value = await file.text();
    if (await importText(text.value, file.name) && !d.open) d.showModal();
  });

  $('btn-export-manifests').addEventListener('click', () => {
    const sim = ctx.sim();
    let out;
    try {
      out = sim.exportManifests();
    } catch (err) {
      ctx.showProblem(`Could not export manifests: ${err && err.message ? err.message : err}`);
      return;
    }
    ctx.download(`shepherd-seed${sim.seed}-tick${sim.tick}.yaml`, out.manifests);
    ctx.download(`kube-scheduler-config.yaml`, out.schedulerConfig);
    ctx.toast('Manifests exported: the cluster for kubectl apply -f, and the scheduler profile for kube-scheduler --config');
  });
}
