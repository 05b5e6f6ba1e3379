// The two dialogs: "why is this pod here (or nowhere)?" and one node's details.
import { h, $, fill, memText } from './dom.js';
import { nodeCard } from './render.js';

// The explain dialog shows one page of rows at a time: 5,000 nodes stay quick
// to sort, filter and read.
const PAGE_ROWS = 50;

// Column words for narrow screens (the full name is always there for screen
// readers and on wider screens).
const SHORT = {
  TaintToleration: 'Taint',
  NodeAffinity: 'NAff',
  NodeResourcesFit: 'Fit',
  PodTopologySpread: 'Sprd',
  InterPodAffinity: 'PAff',
  NodeResourcesBalancedAllocation: 'Bal',
};
const FILTER_ORDER = ['NodeUnschedulable', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity'];

// What the explain dialog shows now; sort and detail last across openings.
const ex = {
  x: null,
  rows: [], // { v, idx, by: Map(plugin -> score row) }
  cols: [], // score plugins, in the profile's order, with their weights
  skipped: new Set(), // score plugins whose PreScore skipped for this pod
  sort: { key: 'position', dir: 1 },
  sorted: null,
  page: 0,
  wired: false,
};

function open(dialog) {
  if (!dialog.open) dialog.showModal();
}

// Camel-case names may break between words in narrow columns.
export function breakable(name) {
  return name.split(/(?<=[a-z])(?=[A-Z])/).flatMap((p, i) => (i ? [h('wbr'), p] : [p]));
}

const num = (n) => n.toLocaleString('en');
const nodes = (n) => `${num(n)} ${n === 1 ? 'node' : 'nodes'}`;
const byName = new Intl.Collator('en', { numeric: true }).compare;

function decidedLine(x, profile) {
  // The nodes the cycle scored (a decision's sample leaves some out).
  const feasible = x.nodes.filter((v) => v.feasible && v.total != null);
  if (feasible.length === 0) return 'No node passes every filter, so no score plugin ran.';
  const [w, r] = feasible;
  if (!r) return `Only ${w.node} passes every filter: no plugin had to choose.`;
  if (w.total === r.total) {
    const tied = feasible.filter((v) => v.total === w.total).length;
    const how = profile && profile.tieBreak === 'LowestNodeId'
      ? 'the lowest node id wins (tieBreak LowestNodeId)'
      : 'the scheduler picks one of them at random (tieBreak Random, from the seeded generator)';
    return `${tied} nodes share the best total, ${num(w.total)}: no plugin separates ${w.node} from ${r.node}, and ${how}.`;
  }
  const lead = w.total - r.total;
  if (!x.decidedBy) return `${w.node} leads the runner-up ${r.node} by ${num(lead)} (${num(w.total)} to ${num(r.total)}).`;
  const [plugin, margin] = x.decidedBy;
  return `Decided by ${plugin}: it gives ${w.node} ${num(margin)} more weighted points than the runner-up ${r.node}; ` +
    `the totals differ by ${num(lead)} (${num(w.total)} to ${num(r.total)}).`;
}

function compareRows(key, dir) {
  const rejectedLast = (a, b) => {
    const fa = FILTER_ORDER.indexOf(a.v.plugin);
    const fb = FILTER_ORDER.indexOf(b.v.plugin);
    return fa - fb || a.idx - b.idx;
  };
  if (key === 'node') return (a, b) => dir * byName(a.v.node, b.v.node);
  const value = key === 'position' ? (r) => r.v.position
    : key === 'total' ? (r) => r.v.total
      : (r) => (r.by.get(key) ? r.by.get(key).normalized : 0);
  return (a, b) => {
    if (a.v.feasible !== b.v.feasible) return a.v.feasible ? -1 : 1;
    if (!a.v.feasible) return rejectedLast(a, b);
    const sa = a.v.total != null;
    if (sa !== (b.v.total != null)) return sa ? -1 : 1;
    if (!sa) return a.idx - b.idx;
    return dir * (value(a) - value(b)) || a.v.position - b.v.position || a.idx - b.idx;
  };
}

function scoreCell(v, s, plugin) {
  if (!s && ex.skipped.has(plugin)) {
    return h('td', { class: 'num muted skipped', title: `${plugin} on ${v.node}: skipped at PreScore, nothing to score for this pod` }, '–');
  }
  if (!s) return h('td', { class: 'num muted' }, '–');
  const title = `${s.plugin} on ${v.node}: raw score ${s.raw}, normalized ${s.normalized}, × weight ${s.weight} = ${s.weighted}`;
  return h('td', { class: 'num score', title },
    String(s.normalized),
    h('span', { class: 'detail' }, `raw ${s.raw} · ×${s.weight} = ${s.weighted}`));
}

function rowFor(r) {
  const { v } = r;
  const x = ex.x;
  const here = x.boundTo === v.node;
  if (!v.feasible) {
    // Kubernetes' status code: whether preemption could make room here.
    const code = h('span', {
      class: 'muted code',
      title: v.code === 'Unschedulable'
        ? 'Unschedulable: removing pods could make room (preemption looks here)'
        : 'UnschedulableAndUnresolvable: removing pods cannot help (preemption passes this node by)',
    }, ` · ${v.code}`);
    return h('tr', { class: 'verdict rejected', dataset: { node: v.node, code: v.code } },
      h('td', { class: 'num bad-text', title: `rejected by ${v.plugin} (${v.code})` }, '✗'),
      h('th', { scope: 'row' }, v.node, here ? h('span', { class: 'badge ok' }, 'bound here') : null),
      h('td', { colspan: ex.cols.length + 1, class: 'reason' },
        h('span', { class: 'bad-text' }, breakable(v.plugin)), ': ', v.reasons.join('; '),
        v.detail ? h('span', { class: 'muted' }, ` (${v.detail})`) : null, code));
  }
  if (v.total == null) {
    // Passed every filter, but the cycle stopped looking before it.
    return h('tr', { class: 'verdict ok unscored', dataset: { node: v.node } },
      h('td', { class: 'num muted', title: 'passed every filter; not scored by this cycle' }, '–'),
      h('th', { scope: 'row' }, v.node, here ? h('span', { class: 'badge ok' }, 'bound here') : null),
      h('td', { colspan: ex.cols.length + 1, class: 'muted' },
        'passes every filter; outside the nodes this cycle scored (percentageOfNodesToScore)'));
  }
  const best = v.position === 1;
  return h('tr', { class: `verdict ok${best ? ' chosen' : ''}${here ? ' here' : ''}`, dataset: { node: v.node, position: v.position } },
    h('td', { class: 'num' }, `#${v.position}`),
    h('th', { scope: 'row' }, v.node,
      here ? h('span', { class: 'badge ok' }, 'bound here') : best ? h('span', { class: 'visually-hidden' }, ' (best total)') : null),
    ex.cols.map((c) => scoreCell(v, r.by.get(c.plugin), c.plugin)),
    h('td', { class: 'num total' }, num(v.total)));
}

function header() {
  const sortable = (key, label, extra = null) => h('th', { scope: 'col', dataset: { key }, class: key === 'position' || key === 'node' ? '' : 'num' },
    h('button', { type: 'button', class: 'sort', dataset: { key } }, label, extra, h('span', { class: 'arrow', 'aria-hidden': 'true' })));
  const plugin = (c) => sortable(c.plugin,
    [h('span', { class: 'long' }, breakable(c.plugin)), h('span', { class: 'short', 'aria-hidden': 'true' }, SHORT[c.plugin] || c.plugin)],
    h('span', { class: 'weight' }, ` ×${c.weight}`));
  fill($('explain-table').tHead.rows[0],
    sortable('position', '#'),
    sortable('node', 'Node'),
    ex.cols.map(plugin),
    sortable('total', 'Total'));
}

function render() {
  const { key, dir } = ex.sort;
  for (const th of $('explain-table').tHead.rows[0].cells) {
    const on = th.dataset.key === key;
    if (on) th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
    th.querySelector('.arrow').textContent = on ? (dir > 0 ? ' ▲' : ' ▼') : '';
  }
  if (!ex.sorted) ex.sorted = [...ex.rows].sort(compareRows(key, dir));
  const show = $('explain-show').value;
  const find = $('explain-find').value.trim().toLowerCase();
  const rows = ex.sorted.filter((r) => (show === 'all' || (show === 'feasible') === r.v.feasible)
    && (!find || r.v.node.toLowerCase().includes(find)));
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
  ex.page = Math.min(ex.page, pages - 1);
  const from = ex.page * PAGE_ROWS;
  const shown = rows.slice(from, from + PAGE_ROWS);
  const body = shown.map(rowFor);
  if (!shown.length) body.push(h('tr', {}, h('td', { colspan: ex.cols.length + 3, class: 'muted' }, 'No node matches.')));
  fill($('explain-table').tBodies[0], body);
  $('explain-table').classList.toggle('with-detail', $('explain-detail').checked);
  $('explain-rows').textContent = rows.length
    ? `Rows ${num(from + 1)}–${num(from + shown.length)} of ${num(rows.length)}${rows.length < ex.rows.length ? ` (of ${nodes(ex.rows.length)})` : ''}`
    : `0 of ${nodes(ex.rows.length)}`;
  $('explain-prev').disabled = ex.page === 0;
  $('explain-next').disabled = ex.page >= pages - 1;
  for (const b of [$('explain-prev'), $('explain-next')]) b.hidden = pages === 1;
}

function wire() {
  if (ex.wired) return;
  ex.wired = true;
  $('explain-table').tHead.addEventListener('click', (e) => {
    const b = e.target.closest('button.sort');
    if (!b) return;
    const key = b.dataset.key;
    // Scores and totals read best-first on the first click; names and positions from the top.
    const first = key === 'node' || key === 'position' ? 1 : -1;
    ex.sort = ex.sort.key === key ? { key, dir: -ex.sort.dir } : { key, dir: first };
    ex.sorted = null;
    ex.page = 0;
    render();
  });
  const again = () => { ex.page = 0; render(); };
  $('explain-show').addEventListener('change', again);
  $('explain-find').addEventListener('input', again);
  $('explain-detail').addEventListener('change', render);
  $('explain-prev').addEventListener('click', () => { ex.page -= 1; render(); });
  $('explain-next').addEventListener('click', () => { ex.page += 1; render(); });
}

// `x` is what the engine's explain call returned for one pod; `profile` the
// profile document it was scored under.
// `when`, for a bound pod the scheduler placed: {mode: 'then' | 'now',
// decided: the tick of the cycle that bound it, now: the current tick,
// onSwitch(mode)}; null hides the switch.
export function showExplain(x, tick, profile = null, when = null) {
  wire();
  const title = x.boundTo
    ? `Why is ${x.pod} on ${x.boundTo}?`
    : `Why is ${x.pod} ${x.phase}?`;
  $('explain-title').textContent = title;
  const sw = $('explain-when');
  sw.hidden = !when;
  if (when) {
    const then = $('explain-then');
    const now = $('explain-now');
    then.textContent = `At the decision (tick ${num(when.decided)})`;
    now.textContent = `If it were scheduled now (tick ${num(when.now)})`;
    then.setAttribute('aria-pressed', String(when.mode === 'then'));
    now.setAttribute('aria-pressed', String(when.mode === 'now'));
    then.onclick = () => { if (when.mode !== 'then') when.onSwitch('then'); };
    now.onclick = () => { if (when.mode !== 'now') when.onSwitch('now'); };
  }
  $('explain-summary').textContent = x.summary;
  $('explain-decided').textContent = decidedLine(x, profile);

  const feasible = x.nodes.filter((v) => v.feasible);
  const rejected = x.nodes.filter((v) => !v.feasible);
  const unscored = feasible.filter((v) => v.total == null).length;
  // The columns: every score plugin of the profile, weights included; a
  // plugin whose PreScore skipped has a column of dashes.
  const first = feasible[0];
  ex.skipped = new Set(x.skipped || []);
  const scored = first ? first.scores.map((s) => ({ plugin: s.plugin, weight: s.weight })) : [];
  const all = profile ? profile.plugins.score.map((s) => ({ plugin: s.name, weight: s.weight })) : null;
  ex.cols = !all ? scored
    : !first ? all
      : all.filter((c) => ex.skipped.has(c.plugin) || scored.some((d) => d.plugin === c.plugin));
  ex.x = x;
  ex.rows = x.nodes.map((v, idx) => ({ v, idx, by: new Map(v.scores.map((s) => [s.plugin, s])) }));
  if (ex.sort.key !== 'position' && ex.sort.key !== 'node' && ex.sort.key !== 'total' && !ex.cols.some((c) => c.plugin === ex.sort.key)) {
    ex.sort = { key: 'position', dir: 1 };
  }
  ex.sorted = null;
  ex.page = 0;
  $('explain-show').value = 'all';
  $('explain-find').value = '';

  $('explain-meta').textContent =
    (when && when.mode === 'then'
      ? `As the scheduling cycle at tick ${num(tick)} saw the cluster, just before the bind. `
      : `At tick ${num(tick)}. `) +
    `Requests: cpu ${x.cpu}m, memory ${memText(x.memory)}. Scheduler profile ${x.policy}. ` +
    (x.nodes.length === 1
      ? `The one node ${feasible.length ? 'passes every filter' : 'fails a filter'}. `
      : `${num(feasible.length)} of ${nodes(x.nodes.length)} ${feasible.length === 1 ? 'passes' : 'pass'} every filter` +
        (unscored ? `; the cycle scored ${num(feasible.length - unscored)} of them. ` : '. ')) +
    (ex.cols.length
      ? 'A column per score plugin: its normalized score (0 to 100), its weight in the heading; Total is the sum of normalized × weight.'
      : 'This profile has no score plugins.');
  if (x.skipped && x.skipped.length) {
    $('explain-meta').append(` Skipped at PreScore (nothing to score for this pod, no column): ${x.skipped.join(', ')}.`);
  }
  if (ex.cols.length) {
    $('explain-meta').append(h('span', { class: 'short' },
      ` Columns: ${ex.cols.map((c) => `${SHORT[c.plugin] || c.plugin} = ${c.plugin}`).join(', ')}.`));
  }
  header();
  render();

  // The rejections by reason, as FailedScheduling counts them.
  let more = '';
  if (rejected.length > 1) {
    const counts = new Map();
    for (const v of rejected) {
      const key = `${v.plugin} (${v.code}): ${v.reasons.join('; ')}`;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    more = `The ${num(rejected.length)} rejected nodes by reason: ` +
      [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${num(n)} × ${k}`).join(' · ');
  }
  $('explain-more').textContent = more;
  $('explain').dataset.pod = x.pod;
  open($('explain'));
}

export function showNode(card, handlers) {
  $('node-dialog-title').textContent = `Node ${card.name}`;
  fill($('node-dialog-body'), nodeCard(card, handlers));
  $('node-dialog').dataset.node = card.name;
  open($('node-dialog'));
}

export function closeNode() {
  const d = $('node-dialog');
  if (d.open) d.close();
}

export function nodeDialogOpen() {
  const d = $('node-dialog');
  return d.open ? d.dataset.node : null;
}
