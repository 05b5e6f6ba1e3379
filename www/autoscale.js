// Cluster Autoscaler on the page (docs/autoscaling.md): the node groups
// under the node list (min / registered / target / max per group, as
// cluster-autoscaler-status counts them, the price and the cost per hour), the scale-ups and scale-downs so far, and, in a pod's
// explain dialog, the scale-up it triggered or why no node group helps. The
// engine decides everything (Shepherd.autoscale, Shepherd.autoscaleFor);
// this file only draws what it says. Nothing shows without node groups.
import { h, fill, num } from './dom.js';

const dollars = (s) => `$${s}/h`;

// The node groups panel. Asks the engine once per tick and redraws only
// when what it says changed.
export class NodeGroupsView {
  constructor(root) {
    this.root = root;
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
    const lines = [];
    for (const u of a.scaleUps.slice(0, 5)) {
      lines.push(h('li', { class: 'scale-up' },
        h('span', { class: 'tick-chip' }, `t=${u.tick}`), ' ',
        `scale-up of ${u.group} ${u.from} → ${u.to} for ${u.pods.length} pod${u.pods.length === 1 ? '' : 's'}`,
        h('span', { class: 'muted' }, ` — ${u.reasoning.join('; ')}; ${u.nodes.length === 1 ? 'the node registers' : 'the nodes register'} at t=${u.joinsAt}`)));
    }
    for (const d of a.scaleDowns.slice(0, 5)) {
      lines.push(h('li', { class: 'scale-down' },
        h('span', { class: 'tick-chip' }, `t=${d.tick}`), ' ',
        `scale-down: removed ${d.node} of ${d.group}`,
        h('span', { class: 'muted' }, d.empty ? ' (empty)' : ` (evicted ${d.evicted.length} pod${d.evicted.length === 1 ? '' : 's'})`)));
    }
    fill(this.root,
      h('div', { class: 'node-groups-head' },
        h('h3', { id: 'node-groups-h' }, 'Node groups'),
        h('p', { class: 'summary', id: 'node-groups-summary' },
          `Cluster Autoscaler (kwok provider), expander ${a.expander}, a loop every ${a.scanInterval} s, nodes register ${a.provisioningDelay} s after they are asked for. `,
          h('strong', { id: 'node-groups-cost' }, `Cost now ${dollars(a.costPerHour)}`),
          a.unpricedNodes ? ` (+${num(a.unpricedNodes)} node${a.unpricedNodes === 1 ? '' : 's'} without a price)` : '',
          '.')),
      h('div', { class: 'table-wrap' },
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
      `Expander: ${u.reasoning.join('; ')}. New nodes: ${u.nodes.join(', ')}; for ${u.pods.length} pod${u.pods.length === 1 ? '' : 's'}.`));
  }
  if (a.noScaleUp.length) {
    parts.push(h('table', { class: 'small-table', 'aria-label': 'Why each node group does not help' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Node group'), h('th', { scope: 'col' }, 'Why its template node does not help'))),
      h('tbody', {}, a.noScaleUp.map((g) => h('tr', {}, h('td', {}, h('code', {}, g.group)), h('td', {}, g.reason))))));
  }
  fill(el, parts);
}
