// What if: the actions `shepherd whatif` takes (drain nodes, fail a zone or a
// node, scale a Deployment, cordon, delete a node), run by the engine on a
// copy of this run's cluster at the tick shown (Shepherd.whatIf,
// web/src/whatif.rs), then a Before/After view: which pods were deleted and
// what replaced them where (from → to), which are Pending and why, which
// evictions a PodDisruptionBudget refused, which rollouts stalled, and the
// requests per zone and per node before and after. The run itself does not
// change. Nothing is decided here: every figure is the engine's.
import { $, h, fill, setText, num, cpuText } from './dom.js';

const ZONE_KEY = 'topology.kubernetes.io/zone';
// Rows a list shows; the counts are always whole.
const LISTED = 50;

const KINDS = [
  { type: 'failZone', label: 'Fail a zone', target: 'zone', said: (s) => `fail zone ${s.zone}` },
  { type: 'drain', label: 'Drain a node', target: 'node', said: (s) => `kubectl drain ${s.node} --ignore-daemonsets --force` },
  { type: 'failNode', label: 'Fail a node', target: 'node', said: (s) => `fail node ${s.node} (its kubelet stops)` },
  { type: 'cordon', label: 'Cordon a node', target: 'node', said: (s) => `kubectl cordon ${s.node}` },
  { type: 'deleteNode', label: 'Delete a node', target: 'node', said: (s) => `kubectl delete node ${s.node}` },
  { type: 'scale', label: 'Scale a Deployment', target: 'deployment', said: (s) => `kubectl scale deployment ${s.deployment} --replicas=${s.replicas}` },
];
const kindOf = (type) => KINDS.find((k) => k.type === type);

const pct = (used, cap) => (cap > 0 ? `${Math.round((100 * used) / cap)}%` : '–');
const arrow = (a, b) => (a === b ? String(a) : `${a} → ${b}`);

function dialog() {
  const d = h('dialog', { id: 'whatif', class: 'dialog whatif', 'aria-labelledby': 'whatif-h' },
    h('div', { class: 'dialog-head' },
      h('h2', { id: 'whatif-h' }, 'What if…'),
      h('button', { type: 'button', id: 'whatif-close', class: 'close', 'aria-label': 'Close' }, '✕')),
    h('div', { class: 'whatif-body' },
      h('p', { class: 'summary', id: 'whatif-intro' }),
      h('form', { id: 'form-whatif', class: 'form', novalidate: '' },
        h('div', { class: 'row' },
          h('label', {}, 'Action ', h('select', { name: 'type' }, KINDS.map((k) => h('option', { value: k.type }, k.label)))),
          h('label', { class: 'whatif-target' }, h('span', { id: 'whatif-target-label' }, 'Zone'), ' ',
            h('input', { name: 'target', list: 'whatif-targets', autocomplete: 'off', spellcheck: 'false', required: '' })),
          h('label', { class: 'whatif-replicas', hidden: '' }, 'Replicas ',
            h('input', { name: 'replicas', inputmode: 'numeric', autocomplete: 'off', value: '3' })),
          h('div', { class: 'end' }, h('button', { type: 'submit', id: 'whatif-add' }, 'Add'))),
        h('datalist', { id: 'whatif-targets' }),
        h('p', { class: 'form-error', id: 'whatif-error', role: 'alert', hidden: '' })),
      h('h3', { id: 'whatif-steps-h' }, 'Actions, one second apart, in this order'),
      h('ol', { id: 'whatif-steps', 'aria-labelledby': 'whatif-steps-h' }),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: 'whatif-run', class: 'primary', disabled: '' }, 'Run what-if'),
        h('button', { type: 'button', id: 'whatif-clear', disabled: '' }, 'Clear')),
      h('div', { id: 'whatif-result', role: 'region', 'aria-labelledby': 'whatif-result-h', tabindex: '-1', hidden: '' },
        h('h3', { id: 'whatif-result-h' }, 'Before → After'),
        h('p', { id: 'whatif-status', class: 'summary', role: 'status' }),
        h('div', { id: 'whatif-sections' }))));
  document.body.append(d);
  return d;
}

// A titled section with a table (or a line saying there is nothing), at
// most LISTED rows, "… and N more" under it.
function section(id, title, head, rows, empty, counted = true) {
  const more = rows.length > LISTED ? h('p', { class: 'summary' }, `… and ${num(rows.length - LISTED)} more`) : null;
  // The table's scrolling box is the region (reachable from the keyboard),
  // named by the heading; the section itself is no landmark.
  return h('div', { id: `whatif-${id}`, class: 'whatif-section' },
    h('h4', { id: `whatif-${id}-h` }, counted ? `${title} (${num(rows.length)})` : title),
    rows.length
      ? h('div', { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-labelledby': `whatif-${id}-h` },
        h('table', { class: 'small-table' },
          h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, rows.slice(0, LISTED).map((r) => h('tr', { dataset: r.data || {} }, r.cells.map((c) => h('td', {}, c)))))))
      : h('p', { class: 'summary' }, empty),
    more);
}

// Free memory at a glance (the engine's bytes, in GiB).
const gib = (b) => (b === 0 ? '0' : `${(b / 2 ** 30).toFixed(b < 10 * 2 ** 30 ? 1 : 0)} GiB`);

// CPU and memory requested of allocatable, with what is free; `pods`: the
// pods running (before, after).
function usageCells(before, after, pods = [before.pods.requested, after.pods.requested]) {
  const cpu = (u) => `${pct(u.cpuMillis.requested, u.cpuMillis.allocatable)} (${cpuText(u.cpuMillis.free)} free)`;
  const mem = (u) => `${pct(u.memoryBytes.requested, u.memoryBytes.allocatable)} (${gib(u.memoryBytes.free)} free)`;
  return [arrow(cpu(before), cpu(after)), arrow(mem(before), mem(after)), arrow(pods[0], pods[1])];
}

// The engine's answer, drawn.
function draw(w) {
  const last = w.actions.length ? w.actions[w.actions.length - 1].tick : w.start;
  const refused = w.actions.filter((a) => a.refused.length);
  setText($('whatif-status'),
    `From tick ${w.start}: ${w.actions.map((a) => `t=${a.tick} ${a.action}`).join(', ')}; then ran to t=${w.end} (${w.end - last} s after the last action): `
    + (w.settled ? 'settled, nothing left to happen.' : 'stopped at the limit with something still to happen.')
    + (refused.length ? ` Refused: ${refused.map((a) => `${a.action}: ${a.refused.join('; ')}`).join(' · ')}.` : ''));

  // A replacement a later action deleted in its turn (it has its own row):
  // where it ran until then, not Pending.
  const movedTo = (m) => {
    const gone = m.replacementDeletedAt ?? null;
    if (gone === null) return m.to || 'Pending';
    return m.to ? `${m.to}, deleted t=${gone}` : `deleted t=${gone} while Pending`;
  };
  const zones = [...w.zones, { ...w.total, zone: 'whole cluster' }];
  const moved = w.moves.map((m) => ({
    data: { pod: m.deleted },
    cells: [m.owner, m.deleted, m.from || '–', `t=${m.deletedAt}`, m.replacement, movedTo(m)],
  }));
  const deleted = w.deleted.map((d) => ({ data: { pod: d.pod }, cells: [d.pod, d.node || '–', `t=${d.tick}`, d.by] }));
  const pending = w.pending.map((p) => ({ data: { pod: p.pod }, cells: [p.pod, p.wasPending ? 'before too' : 'new', p.message] }));
  const blocked = w.blockedEvictions.map((b) => ({
    data: { pod: b.pod },
    cells: [b.pod, b.node, b.podDisruptionBudget, `t=${b.from}`, b.until === null ? `still refused at t=${w.end}` : `t=${b.until}`, num(b.refusals)],
  }));
  const deployments = w.deployments.map((d) => ({
    data: { deployment: d.name, stalled: String(d.stalled) },
    cells: [
      d.name,
      arrow(d.desired.before, d.desired.after),
      arrow(d.available.before, d.available.after),
      `${d.available.lowest} (t=${d.available.lowestAt})`,
      `${num(d.unavailableSeconds)} s`,
      d.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`).join(', '),
      d.stalled ? h('span', { class: 'badge bad' }, 'STALLED') : h('span', { class: 'badge ok' }, 'ok'),
    ],
  }));
  const changed = w.nodes.filter((n) => n.status.before !== n.status.after
    || JSON.stringify(n.before) !== JSON.stringify(n.after));
  const nodes = changed.map((n) => ({
    data: { node: n.name },
    cells: [n.name, n.zone || '–', arrow(n.status.before, n.status.after), ...usageCells(n.before, n.after)],
  }));
  const drains = w.drains.map((d) => ({
    data: { node: d.node },
    cells: [d.node, `t=${d.started}`, d.finished === null ? `still waiting at t=${w.end}` : `t=${d.finished}`, num(d.listed), d.status],
  }));
  fill($('whatif-sections'),
    section('zones', 'Capacity per zone: requests over the Ready, schedulable nodes', ['Zone', 'Schedulable nodes', 'CPU requested', 'Memory requested', 'Pods running (any node)'],
      zones.map((z) => ({
        data: { zone: z.zone },
        cells: [z.zone || '(no zone)', arrow(z.schedulableNodes.before, z.schedulableNodes.after),
          ...usageCells(z.before, z.after, [z.allNodes.before.pods.requested, z.allNodes.after.pods.requested])],
      })),
      'No nodes.', false),
    section('moved', 'Pods moved: deleted, and replaced by a new pod of the same owner', ['Owner', 'Deleted pod', 'From', 'Deleted', 'Replacement', 'To'], moved,
      'No pod was replaced.'),
    section('deleted', 'Pods deleted', ['Pod', 'Node', 'When', 'By'], deleted, 'No pod was deleted.'),
    section('pending', 'Pending at the end, and why', ['Pod', 'Pending', 'Why (the scheduler\'s FailedScheduling)'], pending, 'No pod is Pending.'),
    section('blocked', 'Evictions a PodDisruptionBudget refused', ['Pod', 'Node', 'PodDisruptionBudget', 'From', 'Until', 'Refusals'], blocked,
      'No eviction was refused.'),
    section('drains', 'Drains', ['Node', 'Started', 'Finished', 'Pods listed', 'kubectl said'], drains, 'No drain.'),
    section('deployments', 'Deployments touched', ['Deployment', 'Desired', 'Available', 'Lowest (when)', 'Below desired for', 'Conditions after', 'At the end'], deployments,
      'No Deployment lost a pod.'),
    section('nodes', 'Nodes that changed', ['Node', 'Zone', 'Status', 'CPU requested', 'Memory requested', 'Pods'], nodes, 'No node changed.'));
}

// `ctx`: { sim() (the page's Shepherd), deployments() (names for the list) }.
export function wireWhatIf(ctx) {
  let d = null;
  const steps = [];

  function targets(type) {
    const sim = ctx.sim();
    const k = kindOf(type);
    if (k.target === 'zone') return sim.labelValues(ZONE_KEY);
    // kubectl's completion of a node name: every node.
    if (k.target === 'node') return sim.kubectlComplete('cordon ');
    return ctx.deployments();
  }

  function drawForm() {
    const f = $('form-whatif').elements;
    const k = kindOf(f.type.value);
    setText($('whatif-target-label'), k.target === 'zone' ? 'Zone' : k.target === 'node' ? 'Node' : 'Deployment');
    d.querySelector('.whatif-replicas').hidden = k.target !== 'deployment';
    const list = targets(k.type);
    fill($('whatif-targets'), list.map((v) => h('option', { value: v })));
    f.target.placeholder = list[0] || '';
  }

  function drawSteps() {
    fill($('whatif-steps'), steps.length
      ? steps.map((s, i) => h('li', { dataset: { type: s.type } },
        h('code', {}, kindOf(s.type).said(s)), ' ',
        h('button', { type: 'button', class: 'small', 'aria-label': `Remove action ${i + 1}: ${kindOf(s.type).said(s)}`, onclick: () => { steps.splice(i, 1); drawSteps(); } }, 'Remove')))
      : h('li', { class: 'muted' }, 'None yet: add one above.'));
    $('whatif-run').disabled = steps.length === 0;
    $('whatif-clear').disabled = steps.length === 0;
  }

  function problem(text) {
    const e = $('whatif-error');
    setText(e, text);
    e.hidden = !text;
  }

  function open() {
    if (!d) {
      d = dialog();
      $('whatif-close').addEventListener('click', () => d.close());
      $('form-whatif').elements.type.addEventListener('change', () => { problem(''); drawForm(); });
      $('form-whatif').addEventListener('submit', (e) => {
        e.preventDefault();
        const f = e.target.elements;
        const k = kindOf(f.type.value);
        const target = f.target.value.trim();
        if (!target) {
          problem(`${k.label}: which ${k.target}? Expected one of ${targets(k.type).slice(0, 5).join(', ') || '(none)'}.`);
          f.target.focus();
          return;
        }
        const s = { type: k.type, [k.target]: target };
        if (k.target === 'deployment') {
          const n = Number(f.replicas.value.trim());
          if (f.replicas.value.trim() === '' || !Number.isInteger(n) || n < 0) {
            problem(`Replicas "${f.replicas.value}" is not valid; expected a whole number, 0 or more.`);
            f.replicas.focus();
            return;
          }
          s.replicas = n;
        }
        problem('');
        steps.push(s);
        f.target.value = '';
        drawSteps();
      });
      $('whatif-clear').addEventListener('click', () => { steps.length = 0; drawSteps(); $('whatif-result').hidden = true; });
      $('whatif-run').addEventListener('click', run);
    }
    const sim = ctx.sim();
    setText($('whatif-intro'),
      `The actions below run on a copy of this run's cluster as it is at tick ${sim.tick}, one second apart, then the copy runs on with Kubernetes' timing `
      + '(a failed node is NotReady after 50 s, its pods are evicted 300 s later and replaced) until nothing is left to happen. '
      + 'This run does not change. The same as shepherd whatif on the command line.');
    drawForm();
    drawSteps();
    if (!d.open) d.showModal();
    $('form-whatif').elements.type.focus();
  }

  function run() {
    problem('');
    let w;
    const t0 = performance.now();
    try {
      w = ctx.sim().whatIf(steps);
    } catch (err) {
      problem(err && err.message ? err.message : String(err));
      return;
    }
    draw(w);
    d.dataset.ms = String(Math.round(performance.now() - t0));
    const r = $('whatif-result');
    r.hidden = false;
    r.focus();
    document.body.dataset.whatif = 'done';
  }

  $('btn-whatif').addEventListener('click', open);
  return { open };
}
