// The scheduler profile: the control at the top (a named profile, or the
// edited one this run uses) and the editor dialog. A profile is a
// KubeSchedulerConfiguration profile in the shape web/src/profile.rs reads;
// the engine validates it as Kubernetes does (weights 1 to 100, a strategy
// with its arguments, ...) and this file only shows its refusal at the field
// it is about.
import { Shepherd } from '../pkg/shepherd_web.js';
import { h, $, fill } from './dom.js';
import { showError, clearErrors } from './forms.js';
import { breakable } from './dialogs.js';

// The named profiles `new Shepherd(seed, name)` and `setPolicy(name)` take.
export const NAMED = ['default-scheduler', 'binpack', 'leastloaded'];
// What a new run starts with unless the person chose another profile:
// kube-scheduler's own (issue 9: "the default for new scenarios").
export const DEFAULT_PROFILE = 'default-scheduler';

const WORDS = {
  'default-scheduler': "kube-scheduler's defaults: six score plugins, LeastAllocated, random ties",
  binpack: 'NodeResourcesFit with MostAllocated alone: the fullest node that fits wins',
  leastloaded: 'NodeResourcesFit with LeastAllocated alone: the emptiest node wins',
};

// The plugins the engine runs, in kube-scheduler's order (default_plugins.go):
// its default profile's, which its plugin registry lists (core/src/scheduler/plugins).
const FILTERS = () => namedDoc(DEFAULT_PROFILE).plugins.filter;
const SCORES = () => namedDoc(DEFAULT_PROFILE).plugins.score.map((s) => s.name);
const STRATEGIES = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];
const RESOURCES = ['cpu', 'memory'];

const state = {
  // What Reset and Generate start with: a profile name, or a profile document
  // the person applied in the editor. Null: DEFAULT_PROFILE.
  chosen: null,
  named: new Map(), // name -> the named profile's document, as JSON text
  ctx: null, // { sim(), act(fn, opts), toast(text) } from app.js
};

function namedDoc(name) {
  if (!state.named.has(name)) {
    const sim = new Shepherd(1, name);
    try {
      state.named.set(name, JSON.stringify(sim.profile));
    } finally {
      sim.free();
    }
  }
  return JSON.parse(state.named.get(name));
}

// How the page names a profile document: its schedulerName, and "(edited)"
// when it carries a named profile's name but not that profile's settings.
export function profileLabel(doc) {
  const name = doc.schedulerName;
  if (!NAMED.includes(name)) return { name, named: false, text: `${name} (custom)` };
  namedDoc(name);
  const same = state.named.get(name) === JSON.stringify(doc);
  return { name, named: same, text: same ? name : `${name} (edited)` };
}

// A new simulation at tick 0 with the chosen profile. A chosen document is
// queued as the run's first action (it fires at tick 1, before anything the
// person does next).
export function newSim(seed) {
  const c = state.chosen;
  if (c === null || typeof c === 'string') return new Shepherd(seed, c || DEFAULT_PROFILE);
  const sim = new Shepherd(seed, DEFAULT_PROFILE);
  try {
    sim.setProfile(c);
  } catch (err) {
    sim.free();
    throw err;
  }
  return sim;
}

// The words for a toast: which profile a new run starts with.
export function chosenName() {
  const c = state.chosen;
  if (c === null) return DEFAULT_PROFILE;
  return typeof c === 'string' ? c : profileLabel(c).text;
}

// ----- the control at the top ---------------------------------------------------

let lastDrawn = '';

// Called on every draw: the select shows the profile this run uses now.
export function drawProfile(sim) {
  const doc = sim.profile;
  const key = JSON.stringify(doc);
  if (key === lastDrawn) return;
  lastDrawn = key;
  const label = profileLabel(doc);
  const select = $('policy');
  const custom = $('policy-custom');
  if (label.named) {
    custom.hidden = true;
    select.value = label.name;
  } else {
    custom.textContent = label.text;
    custom.value = label.name;
    custom.hidden = false;
    select.selectedIndex = [...select.options].indexOf(custom);
  }
  select.title = label.named ? `${label.name}: ${WORDS[label.name]}` : `${label.text}: a profile applied in the editor`;
  // The Scheduler menu's button names the profile this run uses.
  $('menu-profile-name').textContent = label.text;
  document.body.dataset.profile = label.text;
}

// ----- the editor ---------------------------------------------------------------

function checkbox(name, text, extra = {}) {
  return h('label', { class: 'inline check' }, h('input', { type: 'checkbox', name, ...extra }), text);
}

function numberField(name, text, hint) {
  return h('label', {}, text,
    h('input', { name, inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hint ? `${name}-hint` : null }),
    hint ? h('span', { class: 'hint', id: `${name}-hint` }, hint) : null);
}

function select(name, text, options) {
  return h('label', {}, text, h('select', { name }, options.map(([v, t]) => h('option', { value: v }, t))));
}

function buildForm(form) {
  fill(form,
    h('div', { class: 'row' },
      select('base', 'Start from', NAMED.map((n) => [n, n])),
      h('div', { class: 'end' }, h('button', { type: 'button', id: 'profile-load', title: 'Fill the form with this named profile (nothing changes until you apply)' }, 'Load'))),
    h('label', {}, 'schedulerName', h('input', { name: 'schedulerName', autocomplete: 'off', spellcheck: 'false', required: true })),
    h('fieldset', {},
      h('legend', {}, 'Filter plugins (a node must pass every one)'),
      h('div', { class: 'checks' }, FILTERS().map((p) => checkbox(`filter-${p}`, breakable(p))))),
    h('fieldset', {},
      h('legend', {}, 'Score plugins and their weights (1 to 100)'),
      h('div', { class: 'score-rows' }, SCORES().map((p) => h('div', { class: 'score-row' },
        checkbox(`score-${p}`, breakable(p), { 'aria-controls': `profile-weight-${p}` }),
        h('label', { class: 'inline small' }, 'weight',
          h('input', { name: `weight-${p}`, id: `profile-weight-${p}`, inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', class: 'weight' })))))),
    h('fieldset', {},
      h('legend', {}, 'NodeResourcesFit scoring strategy'),
      select('strategy', 'scoringStrategy.type', STRATEGIES.map((s) => [s, s])),
      h('div', { class: 'row' }, RESOURCES.map((r) => numberField(`resource-${r}`, `${r} weight`, null))),
      h('p', { class: 'hint' }, 'Leave a resource weight empty to leave that resource out of the score.'),
      h('label', {}, 'shape (RequestedToCapacityRatio): utilization:score points',
        h('input', { name: 'shape', autocomplete: 'off', spellcheck: 'false', placeholder: '0:10, 100:0', 'aria-describedby': 'shape-hint' }),
        h('span', { class: 'hint', id: 'shape-hint' }, 'utilization 0 to 100, strictly increasing; score 0 to 10. 0:10, 100:0 favours empty nodes; 0:0, 100:10 full ones.'))),
    h('fieldset', {},
      h('legend', {}, 'Scheduling cycle'),
      h('div', { class: 'row' },
        numberField('percentageOfNodesToScore', 'percentageOfNodesToScore', '0: adaptive, as kube-scheduler; 100: every node'),
        select('tieBreak', 'Equal best totals', [['Random', 'Random (kube-scheduler)'], ['LowestNodeId', 'LowestNodeId (for teaching)']])),
      h('div', { class: 'row' },
        numberField('hardPodAffinityWeight', 'hardPodAffinityWeight', '0 to 100: what an existing pod\'s required affinity adds'),
        select('defaultingType', 'PodTopologySpread defaultingType', [['System', 'System (default spreading)'], ['List', 'List (none)']]))),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply'),
      h('button', { type: 'button', id: 'profile-cancel' }, 'Cancel')),
    h('p', { class: 'form-error', id: 'form-profile-error', hidden: true }));
}

const field = (form, name) => form.elements.namedItem(name);

// Enables each weight with its plugin, and the shape with its strategy.
function syncEnabled(form) {
  for (const p of SCORES()) field(form, `weight-${p}`).disabled = !field(form, `score-${p}`).checked;
  field(form, 'shape').disabled = field(form, 'strategy').value !== 'RequestedToCapacityRatio';
}

function writeForm(form, doc) {
  clearErrors(form);
  field(form, 'schedulerName').value = doc.schedulerName;
  for (const p of FILTERS()) field(form, `filter-${p}`).checked = doc.plugins.filter.includes(p);
  for (const p of SCORES()) {
    const s = doc.plugins.score.find((w) => w.name === p);
    field(form, `score-${p}`).checked = !!s;
    // A disabled plugin keeps a weight to start from if it is enabled again.
    field(form, `weight-${p}`).value = String(s ? s.weight : 1);
  }
  const st = doc.scoringStrategy;
  field(form, 'strategy').value = st.type;
  for (const r of RESOURCES) {
    const w = st.resources.find((x) => x.name === r);
    field(form, `resource-${r}`).value = w ? String(w.weight) : '';
  }
  field(form, 'shape').value = (st.shape || []).map((p) => `${p.utilization}:${p.score}`).join(', ');
  field(form, 'percentageOfNodesToScore').value = String(doc.percentageOfNodesToScore);
  field(form, 'tieBreak').value = doc.tieBreak;
  field(form, 'hardPodAffinityWeight').value = String(doc.hardPodAffinityWeight);
  field(form, 'defaultingType').value = doc.defaultingType;
  // What the form does not show is kept as the profile has it: scored
  // resources beyond cpu and memory (nvidia.com/gpu...), BalancedAllocation's
  // resources, NodeResourcesFit's ignored resources.
  form.dataset.kept = JSON.stringify({
    resources: st.resources.filter((x) => !RESOURCES.includes(x.name)),
    balancedResources: doc.balancedResources,
    ignoredResources: doc.ignoredResources,
    ignoredResourceGroups: doc.ignoredResourceGroups,
  });
  syncEnabled(form);
}

class FieldError extends Error {
  constructor(message, el) {
    super(message);
    this.field = el;
  }
}

// A whole number as typed; the engine checks the range and says it.
function whole(form, name, what, expected) {
  const el = field(form, name);
  const text = el.value.trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new FieldError(`${what} "${text}" is not a whole number; expected ${expected}`, el);
  }
  return n;
}

function readShape(form) {
  const el = field(form, 'shape');
  const text = el.value.trim();
  if (text === '') return [];
  return text.split(',').map((part, i) => {
    const m = /^\s*([+-]?\d+)\s*:\s*([+-]?\d+)\s*$/.exec(part);
    if (!m || !Number.isSafeInteger(Number(m[1])) || !Number.isSafeInteger(Number(m[2]))) {
      throw new FieldError(`shape point ${i + 1} "${part.trim()}" is not valid; expected utilization:score such as 50:5, points separated by commas`, el);
    }
    return { utilization: Number(m[1]), score: Number(m[2]) };
  });
}

// The form as a profile document, or a FieldError for a field that is not
// even a number. Everything else is the engine's to judge.
function readForm(form) {
  const score = [];
  for (const p of SCORES()) {
    if (!field(form, `score-${p}`).checked) continue;
    score.push({ name: p, weight: whole(form, `weight-${p}`, `score plugin ${p} weight`, '1 to 100') });
  }
  const resources = [];
  for (const r of RESOURCES) {
    if (field(form, `resource-${r}`).value.trim() === '') continue;
    resources.push({ name: r, weight: whole(form, `resource-${r}`, `NodeResourcesFit ${r} weight`, '1 to 100, or empty to leave it out') });
  }
  const type = field(form, 'strategy').value;
  const pct = whole(form, 'percentageOfNodesToScore', 'percentageOfNodesToScore', '0 (adaptive) to 100');
  // The engine holds it unsigned: say what a negative or huge number is here.
  if (pct < 0 || pct > 100) {
    throw new FieldError(`percentageOfNodesToScore ${pct} is out of range; expected 0 (adaptive) to 100`, field(form, 'percentageOfNodesToScore'));
  }
  const doc = {
    schedulerName: field(form, 'schedulerName').value.trim(),
    plugins: { filter: FILTERS().filter((p) => field(form, `filter-${p}`).checked), score },
    scoringStrategy: { type, resources },
    hardPodAffinityWeight: whole(form, 'hardPodAffinityWeight', 'hardPodAffinityWeight', '0 to 100'),
    defaultingType: field(form, 'defaultingType').value,
    percentageOfNodesToScore: pct,
    tieBreak: field(form, 'tieBreak').value,
  };
  if (type === 'RequestedToCapacityRatio') doc.scoringStrategy.shape = readShape(form);
  const kept = JSON.parse(form.dataset.kept || '{}');
  resources.push(...(kept.resources || []));
  for (const k of ['balancedResources', 'ignoredResources', 'ignoredResourceGroups']) {
    if (kept[k]) doc[k] = kept[k];
  }
  return doc;
}

// The field an engine refusal is about (its words name it), or null for the
// form's own line.
function fieldForRefusal(form, msg) {
  const rules = [
    [/score plugin (\w+) weight/, (m) => `weight-${m[1]}`],
    [/score plugin (\w+) is enabled twice/, (m) => `score-${m[1]}`],
    [/NodeResourcesFit filter is disabled/, () => 'filter-NodeResourcesFit'],
    [/filter plugin (\w+)/, (m) => `filter-${m[1]}`],
    [/scoringStrategy\.resources\[\d+\] \((\w+)\)|scoringStrategy\.resources\[\d+\]: (\w+)/, (m) => `resource-${m[1] || m[2]}`],
    [/scoringStrategy\.resources is empty/, () => 'resource-cpu'],
    [/RequestedToCapacityRatio|shape/, () => 'shape'],
    [/scoringStrategy/, () => 'strategy'],
    [/hardPodAffinityWeight/, () => 'hardPodAffinityWeight'],
    [/percentageOfNodesToScore/, () => 'percentageOfNodesToScore'],
    [/tieBreak/, () => 'tieBreak'],
    [/defaultingType/, () => 'defaultingType'],
    [/scheduler profile name/, () => 'schedulerName'],
  ];
  for (const [re, name] of rules) {
    const m = re.exec(msg);
    if (m) {
      const el = field(form, name(m));
      if (el && !el.disabled) return el;
    }
  }
  return null;
}

function openEditor() {
  const form = $('form-profile');
  writeForm(form, state.ctx.sim().profile);
  field(form, 'base').value = NAMED.includes(state.ctx.sim().policy) ? state.ctx.sim().policy : DEFAULT_PROFILE;
  $('profile-dialog').showModal();
}

function closeEditor() {
  const d = $('profile-dialog');
  if (d.open) d.close();
}

function apply(form) {
  let doc;
  try {
    doc = readForm(form);
  } catch (err) {
    if (err instanceof FieldError) {
      showError(form, err.message, err.field);
      return;
    }
    throw err;
  }
  const label = profileLabel(doc);
  const ok = state.ctx.act((sim) => sim.setProfile(doc), {
    form,
    fieldOf: (msg) => fieldForRefusal(form, msg),
    said: () => `Scheduler profile ${label.text}: from this tick on, and for Reset and Generate`,
  });
  if (!ok) return;
  // A named profile's exact settings are remembered by name.
  state.chosen = label.named ? label.name : doc;
  closeEditor();
}

// `ctx`: { sim: () => the current Shepherd, act: app.js's act, toast }.
export function wireProfile(ctx) {
  state.ctx = ctx;
  const form = $('form-profile');
  buildForm(form);
  form.addEventListener('change', () => syncEnabled(form));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    apply(form);
  });
  $('profile-load').addEventListener('click', () => {
    const name = field(form, 'base').value;
    writeForm(form, namedDoc(name));
    ctx.toast(`The form holds ${name} now: Apply to use it`);
  });
  $('profile-cancel').addEventListener('click', closeEditor);
  $('profile-close').addEventListener('click', closeEditor);
  $('btn-profile').addEventListener('click', openEditor);

  $('policy').addEventListener('change', (e) => {
    const want = e.target.value;
    if (!NAMED.includes(want)) return;
    const ok = ctx.act((sim) => sim.setPolicy(want), {
      said: () => `Scheduler profile ${want} (${WORDS[want]}): from this tick on, and for Reset and Generate`,
    });
    if (ok) {
      state.chosen = want;
    } else {
      lastDrawn = ''; // the select goes back to the run's profile
      drawProfile(ctx.sim());
    }
  });
}
