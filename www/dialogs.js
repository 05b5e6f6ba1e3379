// The two dialogs: "why is this pod here (or nowhere)?" and one node's details.
import { h, $, fill } from './dom.js';
import { nodeCard } from './render.js';

// Rows shown in full; past these, rejected nodes are summarised by reason.
const FEASIBLE_SHOWN = 25;
const REJECTED_SHOWN = 40;

function open(dialog) {
  if (!dialog.open) dialog.showModal();
}

// `x` is what the engine's explain call returned for one pod.
export function showExplain(x, tick) {
  const title = x.boundTo
    ? `Why is ${x.pod} on ${x.boundTo}?`
    : `Why is ${x.pod} ${x.phase}?`;
  $('explain-title').textContent = title;
  $('explain-summary').textContent = x.summary;
  $('explain-meta').textContent =
    `At tick ${tick}. Requests: cpu ${x.cpu}m, memory ${x.memory}Mi. Scoring: ${x.policy === 'binpack' ? 'BinPack (MostAllocated: the tightest fit wins)' : 'Spread (LeastAllocated: the emptiest node wins)'}. ` +
    `${x.feasible} of ${x.nodes.length} nodes pass every filter.`;

  const feasible = x.nodes.filter((v) => v.feasible);
  const rejected = x.nodes.filter((v) => !v.feasible);
  const rows = [];
  for (const v of feasible.slice(0, FEASIBLE_SHOWN)) {
    const chosen = v.position === 1;
    rows.push(h('tr', { class: `verdict ok${chosen ? ' chosen' : ''}${x.boundTo === v.node ? ' here' : ''}`, dataset: { node: v.node } },
      h('td', { class: 'num' }, `#${v.position}`),
      h('th', { scope: 'row' }, v.node, x.boundTo === v.node ? h('span', { class: 'badge ok' }, 'bound here') : null),
      h('td', { class: 'ok-text' }, '✓ passes'),
      h('td', { class: 'muted' }, v.untoleratedPreferNoSchedule ? `${v.untoleratedPreferNoSchedule} untolerated PreferNoSchedule taint(s)` : chosen ? (x.boundTo ? 'the best-ranked node now' : 'would be chosen next') : ''),
      h('td', { class: 'num' }, v.score === null ? '–' : String(v.score))));
  }
  if (feasible.length > FEASIBLE_SHOWN) {
    rows.push(h('tr', {}, h('td', { colspan: 5, class: 'muted' }, `… and ${feasible.length - FEASIBLE_SHOWN} more nodes that fit, ranked lower`)));
  }
  for (const v of rejected.slice(0, REJECTED_SHOWN)) {
    rows.push(h('tr', { class: 'verdict rejected', dataset: { node: v.node } },
      h('td', { class: 'num muted' }, '–'),
      h('th', { scope: 'row' }, v.node),
      h('td', { class: 'bad-text' }, `✗ ${v.plugin}`),
      h('td', {}, v.reasons.join('; ')),
      h('td', { class: 'num muted' }, '–')));
  }
  fill($('explain-table').tBodies[0], rows);

  // Past the rows shown, the rejections by reason, as FailedScheduling counts them.
  let more = '';
  if (rejected.length > REJECTED_SHOWN) {
    const counts = new Map();
    for (const v of rejected) {
      const key = `${v.plugin}: ${v.reasons.join('; ')}`;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    more = `All ${rejected.length} rejected nodes by reason: ` +
      [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} × ${k}`).join(' · ');
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
