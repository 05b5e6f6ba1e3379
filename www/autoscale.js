// Cluster Autoscaler on the page (docs/autoscaling.md): the node groups
// under the node list (min / registered / target / max per group, as
// cluster-autoscaler-status counts them, the price and the cost per hour), the scale-ups and scale-downs so far, and, in a pod's
// explain dialog, the scale-up it triggered or why no node group helps. The
// engine decides everything (Shepherd.autoscale, Shepherd.autoscaleFor);
// this file only draws what it says. Nothing shows without node groups.
import { h, fill, num, $ } from './dom.js';
import { showError, clearErrors } from './forms.js';

const dollars = (s) => `$${s}/h`;

// The expander's reasoning; none when one group alone helped (nothing to choose).
const expanderWords = (u) => (u.reasoning.length ? u.reasoning.join('; ') : 'the only node group that helps');

// The node groups panel. Asks the engine once per tick and redraws only
// when what it says changed.
export class NodeGroupsView {
  // `onEdit()` opens the node groups form.
  constructor(root, { onEdit = null } = {}) {
    this.root = root;
    this.onEdit = onEdit;
    this.key = null;
    this.sig = null;
  }

  update(sim) {
    const key = `${sim.tick}|${sim.actionCount}`;
    if (this.key === key && this.simRef === sim) return;
    this.key = key;
    this.simRef = sim;
    const a = sim.autoscale();
    const sig = JSON.stringify(a);
    if (sig === this.sig) return;
    this.sig = sig;
    this.root.hidden = !a;
    if (!a) {
      this.root.replaceChildren();
      return;
    }
    this.draw(a);
  }

  draw(a) {
    const rows = a.groups.map((g) => h('tr', { dataset: { group: g.name } },
      h('th', { scope: 'row' }, h('code', {}, g.name)),
      h('td', {}, g.template),
      h('td', { class: 'num' }, String(g.min)),
      h('td', { class: 'num', dataset: { current: String(g.current) } },
        String(g.current),
        g.ready < g.current ? h('span', { class: 'muted' }, ` (${g.ready} Ready)`) : null),
      h('td', { class: 'num', title: g.upcoming ? `${g.upcoming} asked for, registering after the provisioning delay` : null },
        String(g.current + g.upcoming), g.upcoming ? h('span', { class: 'muted' }, ` (+${g.upcoming})`) : null),
      h('td', { class: 'num' }, String(g.max)),
      h('td', { class: 'num' }, g.pricePerHour ? dollars(g.pricePerHour) : '–')));
    // Scale-ups and scale-downs together, newest first (a scale-up before
    // a scale-down of the same tick: CA's loop scales up first).
    const entries = [
      ...a.scaleUps.slice(0, 5).map((u) => ({ tick: u.tick, order: 0, li: h('li', { class: 'scale-up' },
        h('span', { class: 'tick-chip' }, `t=${u.tick}`), ' ',
        `scale-up of ${u.group} ${u.from} → ${u.to} for ${u.pods.length} pod${u.pods.length === 1 ? '' : 's'}`,
        h('span', { class: 'muted' }, ` — ${expanderWords(u)}; ${u.nodes.length === 1 ? 'the node registers' : 'the nodes register'} at t=${u.joinsAt}`)) })),
      ...a.scaleDowns.slice(0, 5).map((d) => ({ tick: d.tick, order: 1, li: h('li', { class: 'scale-down' },
        h('span', { class: 'tick-chip' }, `t=${d.tick}`), ' ',
        `scale-down: removed ${d.node} of ${d.group}`,
        h('span', { class: 'muted' }, d.empty ? ' (empty)' : ` (evicted ${d.evicted.length} pod${d.evicted.length === 1 ? '' : 's'})`)) })),
    ];
    entries.sort((x, y) => y.tick - x.tick || y.order - x.order);
    const lines = entries.slice(0, 8).map((e) => e.li);
    fill(this.root,
      h('div', { class: 'node-groups-head' },
        h('div', { class: 'node-groups-title' },
          h('h3', { id: 'node-groups-h' }, 'Node groups'),
          this.onEdit ? h('button', { type: 'button', class: 'small', id: 'btn-node-groups-edit', title: "Edit the node groups (template node, min, max, price) and Cluster Autoscaler's flags", onclick: () => this.onEdit() }, 'Edit…') : null),
        h('p', { class: 'summary', id: 'node-groups-summary' },
          `Cluster Autoscaler (kwok provider), expander ${a.expander}, a loop every ${a.scanInterval} s, nodes register ${a.provisioningDelay} s after they are asked for. `,
          h('strong', { id: 'node-groups-cost' }, `Cost now ${dollars(a.costPerHour)}`),
          a.unpricedNodes ? ` (+${num(a.unpricedNodes)} node${a.unpricedNodes === 1 ? '' : 's'} without a price)` : '',
          '.')),
      // Scrolls sideways on a phone: focusable, so the keyboard can too.
      h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Node groups table' },
        h('table', { class: 'small-table node-groups-table', 'aria-labelledby': 'node-groups-h' },
          h('thead', {}, h('tr', {},
            h('th', { scope: 'col' }, 'Group'),
            h('th', { scope: 'col' }, 'Template node'),
            h('th', { scope: 'col', class: 'num' }, 'Min'),
            h('th', { scope: 'col', class: 'num', title: 'Nodes of the group registered now' }, 'Registered'),
            h('th', { scope: 'col', class: 'num', title: 'Registered plus asked for (cloudProviderTarget in cluster-autoscaler-status)' }, 'Target'),
            h('th', { scope: 'col', class: 'num' }, 'Max'),
            h('th', { scope: 'col', class: 'num' }, 'Price'))),
          h('tbody', {}, rows))),
      lines.length
        ? h('ul', { class: 'scale-log', 'aria-label': 'Scale-ups and scale-downs, newest first' }, lines)
        : h('p', { class: 'summary' }, 'No scale-up or scale-down yet.'));
  }
}

// The autoscaler's word on one pod, in the explain dialog (`el` is emptied
// and hidden without node groups).
export function showPodAutoscale(el, sim, pod) {
  let a = null;
  try {
    a = sim.autoscaleFor(pod);
  } catch {
    a = null;
  }
  el.hidden = !a;
  if (!a) {
    el.replaceChildren();
    return;
  }
  const parts = [h('h3', {}, 'Cluster Autoscaler'), h('p', { class: 'explain-autoscale-summary' }, a.summary)];
  if (a.scaleUp) {
    const u = a.scaleUp;
    parts.push(h('p', { class: 'summary' },
      `Expander: ${expanderWords(u)}. New nodes: ${u.nodes.join(', ')}; for ${u.pods.length} pod${u.pods.length === 1 ? '' : 's'}.`));
  }
  if (a.noScaleUp.length) {
    parts.push(h('table', { class: 'small-table', 'aria-label': 'Why each node group does not help' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Node group'), h('th', { scope: 'col' }, 'Why its template node does not help'))),
      h('tbody', {}, a.noScaleUp.map((g) => h('tr', {}, h('td', {}, h('code', {}, g.group)), h('td', {}, g.reason))))));
  }
  fill(el, parts);
}

// ----- the form: node groups and Cluster Autoscaler's options ----------------
//
// The engine's document (Shepherd.autoscalerDoc, web/src/autoscale.rs
// AutoscalerDoc) drawn as fields and read back as typed; the engine reads
// every field and refuses with the one that is wrong ("node group 2
// (c5.xlarge): max ..."), which is shown next to it. Applied through
// Shepherd.setAutoscaler: an action of the script (Back, the link, replay).

// The group fields: [key, label, placeholder, hint].
const GROUP_FIELDS = [
  ['name', 'Name', 'm5.large', null],
  ['instanceType', 'Instance type', '(the name)', 'label node.kubernetes.io/instance-type'],
  ['cpu', 'CPU', '4', null],
  ['memory', 'Memory', '16Gi', null],
  ['pods', 'Pods', '110', null],
  ['extended', 'Extended resources', 'e.g. nvidia.com/gpu=1', 'name=amount, separated by commas'],
  ['labels', 'Labels', 'e.g. topology.kubernetes.io/zone=eu-west-1a', 'key=value, separated by commas'],
  ['taints', 'Taints', 'e.g. dedicated=gpu:NoSchedule', 'key=value:Effect, separated by commas'],
  ['min', 'Min', '0', 'min-count'],
  ['max', 'Max', '10', 'max-count'],
  ['pricePerHour', 'Price $/h', '0.096', 'empty: no price'],
];
const ROWS = [['name', 'instanceType'], ['min', 'max', 'pricePerHour'], ['cpu', 'memory', 'pods'], ['labels'], ['extended', 'taints']];

// CA's flags the form shows: [doc key, label, hint]; a key's field is
// named opt-<flag>.
const OPTION_FIELDS = [
  ['expander', '--expander', 'random, most-pods, least-waste, price, priority; a chain: priority,least-waste'],
  ['scanInterval', '--scan-interval', 'e.g. 10s'],
  ['provisioningDelay', 'Provisioning delay', "asked for to registered (Shepherd's; not a CA flag)"],
  ['maxNodesTotal', '--max-nodes-total', '0: no limit'],
  ['coresTotal', '--cores-total', 'min:max cores'],
  ['memoryTotal', '--memory-total', 'min:max GiB'],
  ['maxNodesPerScaleup', '--max-nodes-per-scaleup', null],
  ['scaleDownUtilizationThreshold', '--scale-down-utilization-threshold', 'requests / allocatable, 0 to 1'],
  ['scaleDownUnneededTime', '--scale-down-unneeded-time', 'e.g. 10m'],
  ['scaleDownDelayAfterAdd', '--scale-down-delay-after-add', 'e.g. 10m'],
];
const flagOf = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const form = {
  ctx: null, // { sim(), act(fn, opts) } from app.js
  doc: null, // the document the form was filled from (what it does not show is kept)
  groups: [], // the groups as last read, each with `orig`: its name when the form opened
};

function textInput(name, label, { value = '', placeholder = '', hint = null, id = null } = {}) {
  const hintId = hint ? `${name}-hint` : null;
  return h('label', {}, label,
    h('input', { name, id, value, placeholder, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hintId }),
    hint ? h('span', { class: 'hint', id: hintId }, hint) : null);
}

function groupFieldset(g, i) {
  const field = (key) => {
    const [, label, shown, hint] = GROUP_FIELDS.find((f) => f[0] === key);
    // Grouped by the instance type label, the name is that label's value.
    const byType = (form.doc.provider?.fromNodeLabelKey ?? 'node.kubernetes.io/instance-type') === 'node.kubernetes.io/instance-type';
    const placeholder = key === 'instanceType' && !byType ? 'm5.large' : shown;
    return textInput(`g${i}-${key}`, label, { value: g[key] ?? '', placeholder, hint });
  };
  return h('fieldset', { class: 'node-group-fields', dataset: { index: String(i) } },
    h('legend', {}, `Node group ${i + 1}${g.orig ? `: ${g.orig}` : ''}`),
    ROWS.map((r) => h('div', { class: 'row' }, r.map(field))),
    h('div', { class: 'buttons' },
      h('button', { type: 'button', class: 'small danger', dataset: { remove: String(i) }, 'aria-label': `Remove group ${i + 1}${g.name ? ` (${g.name})` : ''}` }, 'Remove group')));
}

function draw(f) {
  const o = form.doc.options;
  fill(f,
    h('h3', {}, 'Node groups ', h('span', { class: 'muted' }, '(kwok-provider-templates: one template Node each)')),
    h('p', { class: 'hint' }, groupingWords(form.doc.provider)),
    form.groups.length ? null : h('p', { class: 'summary' }, 'No node groups: Cluster Autoscaler adds no node until you add one.'),
    form.groups.map(groupFieldset),
    h('div', { class: 'buttons' }, h('button', { type: 'button', id: 'autoscaler-add-group' }, '+ Add a node group')),
    h('fieldset', { class: 'ca-options' },
      h('legend', {}, "Cluster Autoscaler's flags"),
      h('div', { class: 'row' }, OPTION_FIELDS.map(([key, label, hint]) => textInput(`opt-${flagOf(key)}`, label, { value: o[key], hint }))),
      h('label', { class: 'inline check' }, h('input', { type: 'checkbox', name: 'opt-scale-down-enabled', checked: o.scaleDownEnabled }), '--scale-down-enabled')),
    h('div', { class: 'buttons sticky-buttons' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply'),
      h('button', { type: 'button', id: 'autoscaler-cancel' }, 'Cancel')),
    h('p', { class: 'form-error', id: 'form-autoscaler-error', hidden: true }));
}

// How the kwok provider tells a node's group (kwok-provider-config).
function groupingWords(p) {
  if (p?.fromNodeAnnotation) return `Nodes are grouped by their annotation ${p.fromNodeAnnotation} (nodegroups.fromNodeAnnotation): a group's name is its value.`;
  const key = p?.fromNodeLabelKey ?? 'node.kubernetes.io/instance-type';
  return `Nodes are grouped by their label ${key} (nodegroups.fromNodeLabelKey): a group's name is that label's value on its nodes.`;
}

// The form's fields into form.groups (keeping each group's fields the form
// does not show).
function readGroups(f) {
  form.groups = form.groups.map((g, i) => {
    const out = { ...g };
    for (const [key] of GROUP_FIELDS) {
      const el = f.elements.namedItem(`g${i}-${key}`);
      if (el) out[key] = el.value;
    }
    return out;
  });
}

// The document to apply: the groups as typed, the options, and the
// members of a renamed group under its new name.
function readDoc(f) {
  readGroups(f);
  const options = { ...form.doc.options };
  for (const [key] of OPTION_FIELDS) options[key] = f.elements.namedItem(`opt-${flagOf(key)}`).value;
  options.scaleDownEnabled = f.elements.namedItem('opt-scale-down-enabled').checked;
  const renamed = new Map(form.groups.filter((g) => g.orig && g.orig !== g.name.trim()).map((g) => [g.orig, g.name.trim()]));
  const members = {};
  for (const [node, group] of Object.entries(form.doc.members || {})) members[node] = renamed.get(group) ?? group;
  const groups = form.groups.map(({ orig, ...g }) => g);
  return { ...form.doc, groups, options, members };
}

// The field an engine refusal is about, from its words: "node group 2
// (c5.xlarge): max ...", "--scan-interval ...", "provisioning delay ...".
export function fieldForRefusal(f, msg) {
  const el = (name) => f.elements.namedItem(name);
  const g = /^node group (\d+)(?: \([^)]*\))?: (.*)$/s.exec(msg);
  if (g) {
    const i = Number(g[1]) - 1;
    const rest = g[2];
    const rules = [
      [/^name\b|^node group\b|DNS|subdomain/i, 'name'], [/^instance type/, 'instanceType'], [/^cpu\b/, 'cpu'], [/^memory\b/, 'memory'],
      [/^pods\b/, 'pods'], [/^extended resource/, 'extended'], [/^label\b|label/, 'labels'], [/taint/i, 'taints'],
      [/^min\b/, 'min'], [/^max\b/, 'max'], [/^price/, 'pricePerHour'], [/cpu/, 'cpu'], [/memory/, 'memory'],
    ];
    for (const [re, key] of rules) if (re.test(rest)) return el(`g${i}-${key}`);
    return el(`g${i}-name`);
  }
  const flag = /^--([a-z-]+)/.exec(msg);
  if (flag && el(`opt-${flag[1]}`)) return el(`opt-${flag[1]}`);
  if (/^provisioning delay/.test(msg)) return el('opt-provisioning-delay');
  return null;
}

function open() {
  const f = $('form-autoscaler');
  form.doc = form.ctx.sim().autoscalerDoc;
  form.groups = form.doc.groups.map((g) => ({ ...g, orig: g.name }));
  draw(f);
  clearErrors(f);
  $('autoscaler-dialog').showModal();
}

function close() {
  const d = $('autoscaler-dialog');
  if (d.open) d.close();
}

function apply(f) {
  const doc = readDoc(f);
  const ok = form.ctx.act((sim) => sim.setAutoscaler(doc), { form: f, fieldOf: (m) => fieldForRefusal(f, m) });
  if (ok) close();
}

function dialog() {
  return h('dialog', { id: 'autoscaler-dialog', 'aria-labelledby': 'autoscaler-title', 'aria-describedby': 'autoscaler-about' },
    h('div', { class: 'dialog-head' },
      h('h2', { id: 'autoscaler-title' }, 'Node groups and Cluster Autoscaler'),
      h('button', { type: 'button', id: 'autoscaler-close', class: 'close', 'aria-label': 'Close' }, '✕')),
    h('p', { class: 'summary', id: 'autoscaler-about' },
      "The kwok provider's node groups (a template Node each, with its min-count, max-count and Shepherd's price per hour) and Cluster Autoscaler's flags. Applied at the next tick, Cluster Autoscaler restarts with them, as a new CA pod would: registered nodes stay in their groups; nodes asked for and not registered yet, and how long nodes have been unneeded, are forgotten. Export manifests writes the groups back in the ConfigMaps."),
    h('form', { id: 'form-autoscaler', class: 'form autoscaler-form', novalidate: true }));
}

// `ctx`: { sim: () => the current Shepherd, act: app.js's act }. Returns
// the function that opens the form.
export function wireAutoscalerForm(ctx) {
  form.ctx = ctx;
  document.body.append(dialog());
  const f = $('form-autoscaler');
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    apply(f);
  });
  f.addEventListener('click', (e) => {
    const t = e.target.closest('button');
    if (!t) return;
    if (t.id === 'autoscaler-cancel') close();
    else if (t.id === 'autoscaler-add-group') {
      readGroups(f);
      const o = form.doc.options;
      form.groups.push({ name: '', instanceType: '', cpu: '', memory: '', pods: '110', extended: '', labels: '', taints: '', min: '0', max: '10', pricePerHour: '' });
      readDocOptionsInto(f, o);
      draw(f);
      f.elements.namedItem(`g${form.groups.length - 1}-name`).focus();
    } else if (t.dataset.remove !== undefined) {
      readGroups(f);
      readDocOptionsInto(f, form.doc.options);
      form.groups.splice(Number(t.dataset.remove), 1);
      draw(f);
      ($('autoscaler-add-group')).focus();
    }
  });
  $('autoscaler-close').addEventListener('click', close);
  return open;
}

// Keeps the options as typed across a redraw (adding or removing a group).
function readDocOptionsInto(f, o) {
  for (const [key] of OPTION_FIELDS) {
    const el = f.elements.namedItem(`opt-${flagOf(key)}`);
    if (el) o[key] = el.value;
  }
  const c = f.elements.namedItem('opt-scale-down-enabled');
  if (c) o.scaleDownEnabled = c.checked;
}
