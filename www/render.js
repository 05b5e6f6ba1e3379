// Drawing: turns what the engine reports into DOM and canvas pixels.
// Nothing here decides anything about the cluster.
import { h, fill, setText, cpuText, memText, pct, num } from './dom.js';
import { appColor } from './colors.js';

// ----- node cards (small clusters) -------------------------------------------

function badge(text, kind, title) {
  return h('span', { class: `badge ${kind}`, title }, text);
}

function bar(label, node, used, cap, fmt, resource = label) {
  const p = pct(used, cap);
  return h('div', { class: 'bar-row' },
    h('span', { class: 'k', title: resource === label ? null : resource }, label),
    h('div', {
      class: `bar${p >= 90 ? ' hot' : ''}`,
      role: 'meter',
      'aria-label': `${resource} requested on ${node}`,
      'aria-valuemin': 0,
      'aria-valuemax': cap,
      'aria-valuenow': used,
      'aria-valuetext': `${fmt(used)} of ${fmt(cap)}`,
    }, h('span', { style: { width: `${p}%` } })),
    h('span', { class: 'v' }, `${fmt(used)} / ${fmt(cap)}`));
}

export function podChip(p, onPod) {
  const evicting = p.evictIn !== null && p.evictIn !== undefined;
  const state = p.phase === 'Lost' ? 'lost' : p.ready ? 'ready' : 'starting';
  const words = p.phase === 'Lost' ? 'Lost'
    : evicting ? `not Ready, evicted in ${p.evictIn} s (NoExecute taint, tolerationSeconds)`
      : p.ready ? 'Ready' : 'starting (not Ready yet)';
  return h('button', {
    type: 'button',
    class: `pod ${state}${p.outdated ? ' outdated' : ''}${evicting ? ' evicting' : ''}`,
    style: { '--c': appColor(p.app) },
    dataset: { pod: p.name, app: p.app },
    title: `${p.name}: ${words}, version ${p.version}${p.outdated ? ' (old revision)' : ''}. Click: why here?`,
    // The accessible name starts with the visible text (name and seconds left).
    'aria-label': `pod ${p.name}${evicting ? ` ${p.evictIn}s` : ''}, ${words}, version ${p.version}${p.outdated ? ', old revision' : ''}`,
    onclick: () => onPod(p.name),
  }, h('span', { class: 'pod-name' }, p.name), evicting ? ' ' : null, evicting ? h('span', { class: 'countdown' }, `${p.evictIn}s`) : null);
}

// A node's card. `act(op, node)` runs a node action.
export function nodeCard(n, { onPod, act, onDetails = null }) {
  const status = [];
  if (n.status === 'NotReady') status.push(badge('NotReady', 'bad', 'No heartbeat for longer than the node monitor grace period: tainted unreachable; its pods are not Ready and are evicted after their tolerationSeconds (300 s by default)'));
  else status.push(badge('Ready', 'ok', 'The kubelet is heart-beating'));
  if (!n.beating && n.status === 'Ready') status.push(badge('kubelet silent', 'warn', 'The kubelet stopped; the node turns NotReady when the node monitor grace period (50 s) passes'));
  // kubectl drain's last line about the node (a retry the budget forced,
  // node/NAME drained, or its error) is the badge's title.
  if (n.draining) status.push(badge('Draining', 'warn', n.drainStatus || 'Evicting the pods it listed as PodDisruptionBudgets allow'));
  else if (n.cordoned) status.push(badge('SchedulingDisabled', 'warn', n.drainStatus ? `Cordoned: no new pods; ${n.drainStatus}` : 'Cordoned: no new pods'));

  const meta = [];
  // Cluster Autoscaler's node group (www/autoscale.js lists the groups).
  if (n.nodeGroup) meta.push(h('span', { class: 'label node-group', title: `node group ${n.nodeGroup} (Cluster Autoscaler)` }, `group ${n.nodeGroup}`));
  for (const [k, v] of Object.entries(n.labels)) {
    // The kubelet's own hostname label (the node's name) says nothing new.
    if (k === 'kubernetes.io/hostname' && v === n.name) continue;
    const short = k.replace(/^topology\.kubernetes\.io\//, '').replace(/^kubernetes\.io\//, '');
    meta.push(h('span', { class: 'label', title: `label ${k}=${v}` }, `${short}=${v}`));
  }
  for (const t of n.taints) {
    // kubectl writes a taint without a value as key:Effect.
    const shown = t.replace(/=:/, ':');
    meta.push(h('span', { class: 'taint', title: `taint ${shown}` }, `⚠ ${shown}`));
  }
  for (const t of n.conditionTaints || []) {
    meta.push(h('span', { class: 'taint', title: `taint ${t}, set by the node lifecycle controller while the node is not Ready` }, `⚠ ${t.replace(/^node\.kubernetes\.io\//, '')}`));
  }

  const buttons = [
    n.beating
      ? h('button', { type: 'button', class: 'small', 'aria-label': `Stop kubelet of ${n.name}`, title: 'Stop the node\'s kubelet: NotReady after the heartbeat timeout', onclick: () => act('failNode', n.name) }, 'Stop kubelet')
      : h('button', { type: 'button', class: 'small', 'aria-label': `Start kubelet of ${n.name}`, title: 'Start the node\'s kubelet again: Ready at its next heartbeat', onclick: () => act('recoverNode', n.name) }, 'Start kubelet'),
    n.cordoned
      ? h('button', { type: 'button', class: 'small', 'aria-label': `Uncordon node ${n.name}`, onclick: () => act('uncordon', n.name) }, 'Uncordon')
      : h('button', { type: 'button', class: 'small', 'aria-label': `Cordon node ${n.name}`, onclick: () => act('cordon', n.name) }, 'Cordon'),
    n.draining ? null : h('button', { type: 'button', class: 'small', 'aria-label': `Drain node ${n.name}`, onclick: () => act('drain', n.name) }, 'Drain'),
    // On a card (not in the node's own dialog): the dialog with taints and zone failure.
    onDetails ? h('button', { type: 'button', class: 'small', 'aria-label': `Taints and zone of ${n.name}`, title: 'Taint or untaint this node, or fail its zone', onclick: () => onDetails(n.name) }, 'Taints and zone') : null,
  ];

  const dense = n.pods.length > 40;
  return h('article', {
    class: `node${n.status === 'NotReady' ? ' notready' : ''}${n.cordoned ? ' cordoned' : ''}${n.draining ? ' draining' : ''}${!n.beating ? ' silent' : ''}`,
    dataset: { node: n.name, status: n.status, pods: n.podCount, cordoned: n.cordoned, draining: n.draining },
    'aria-label': `node ${n.name}`,
  },
    h('header', { class: 'node-head' }, h('h3', { class: 'node-name' }, n.name), ...status),
    meta.length ? h('div', { class: 'node-meta' }, meta) : null,
    bar('CPU', n.name, n.cpu.used, n.cpu.capacity, cpuText),
    bar('Memory', n.name, n.memory.used, n.memory.capacity, memText),
    // An extended resource the node offers (nvidia.com/gpu: "GPU"), whole devices.
    ...(n.extended || []).map((x) => {
      const short = x.name.slice(x.name.indexOf('/') + 1);
      return bar(short === 'gpu' ? 'GPU' : short, n.name, x.used, x.capacity, String, x.name);
    }),
    h('div', { class: `pods${dense ? ' dense' : ''}`, role: 'group', 'aria-label': `${n.podCount} pod${n.podCount === 1 ? '' : 's'} on ${n.name}` },
      n.pods.length ? n.pods.map((p) => podChip(p, onPod)) : h('span', { class: 'no-pods' }, 'no pods')),
    h('div', { class: 'node-actions' }, buttons));
}

// Cards, updated in place: a card is rebuilt only when what it shows changed.
export class CardView {
  constructor(el, handlers) {
    this.el = el;
    this.handlers = handlers;
    this.cards = new Map(); // name -> { sig, el }
  }

  draw(nodes) {
    const seen = new Set();
    let prev = null;
    for (const n of nodes) {
      seen.add(n.name);
      const sig = JSON.stringify(n);
      let c = this.cards.get(n.name);
      if (!c || c.sig !== sig) {
        const el = nodeCard(n, this.handlers);
        if (c) c.el.replaceWith(el);
        c = { sig, el };
        this.cards.set(n.name, c);
      }
      const want = prev ? prev.nextSibling : this.el.firstChild;
      if (want !== c.el) this.el.insertBefore(c.el, want);
      prev = c.el;
    }
    for (const [name, c] of this.cards) {
      if (!seen.has(name)) {
        c.el.remove();
        this.cards.delete(name);
      }
    }
  }

  clear() {
    this.cards.clear();
    this.el.replaceChildren();
  }
}

// ----- the grid (large clusters) ---------------------------------------------

export const FLAG_READY = 1, FLAG_BEATING = 2, FLAG_CORDONED = 4, FLAG_DRAINING = 8, FLAG_TAINTED = 16;

// Empty nodes are pale, full ones deep blue: 41 shades, built once (a colour
// string per cell per tick would cost more than drawing the cell).
const SHADES = Array.from({ length: 41 }, (_, i) => (i === 0 ? 'hsl(217 25% 93%)' : `hsl(217 72% ${Math.round(93 - 58 * (i / 40))}%)`));

export function cellColor(cpuUsed, cpuCap, flags) {
  if (!(flags & FLAG_READY)) return '#7d838c';
  const f = cpuCap > 0 ? Math.min(1, cpuUsed / cpuCap) : 0;
  return SHADES[f === 0 ? 0 : Math.max(1, Math.round(f * 40))];
}

export class GridView {
  constructor(canvas, stride) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.stride = stride;
    this.data = new Uint32Array(0);
    this.layout = { cols: 1, cell: 10, gap: 2, n: 0, width: 0 };
    this.focus = 0;
    // Read the page's layout and colours only when they change, never while
    // drawing a tick: a read after the tick's DOM writes would force a layout.
    this.width = 0;
    this.background = '#ffffff';
    this.onResize = null;
    new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (w > 0 && w !== this.width) {
        this.width = w;
        if (this.onResize) this.onResize();
      }
    }).observe(canvas.parentElement);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const readBackground = () => {
      this.background = getComputedStyle(canvas).getPropertyValue('--grid-bg').trim() || '#ffffff';
    };
    readBackground();
    scheme.addEventListener('change', () => { readBackground(); if (this.onResize) this.onResize(); });
  }

  // Picks a cell size so that every node fits in about 560 px of height.
  relayout(n) {
    const width = Math.max(200, this.width || 800);
    const gap = n > 2000 ? 1 : 2;
    let cell = 28;
    while (cell > 3) {
      const cols = Math.max(1, Math.floor((width + gap) / (cell + gap)));
      if (Math.ceil(n / cols) * (cell + gap) <= 560) break;
      cell -= 1;
    }
    const cols = Math.max(1, Math.floor((width + gap) / (cell + gap)));
    const rows = Math.max(1, Math.ceil(n / cols));
    const height = rows * (cell + gap);
    const dpr = window.devicePixelRatio || 1;
    if (this.layout.width !== width || this.layout.n !== n || this.canvas.height !== Math.round(height * dpr)) {
      this.resized = true;
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    this.layout = { cols, cell, gap, n, width, height };
  }

  // Draws the grid. With `dirty` (indices of the cells that changed since
  // the last draw), only those cells are painted again, unless the layout
  // changed or the focus ring is shown: then every cell is.
  draw(data, dirty = null) {
    this.data = data;
    const s = this.stride;
    const n = data.length / s;
    const before = this.layout;
    this.resized = false;
    this.relayout(n);
    const { width, height } = this.layout;
    const ctx = this.ctx;
    const focused = document.activeElement === this.canvas && this.focus < n;
    const same = before.cols === this.layout.cols && before.cell === this.layout.cell && before.n === n && before.width === width;
    if (dirty && same && !this.resized && !focused && !this.focusDrawn) {
      this.lastColor = null;
      for (let k = 0; k < dirty.length; k++) this.paintCell(dirty[k], true);
      return;
    }
    ctx.fillStyle = this.background;
    ctx.fillRect(0, 0, width, height);
    this.lastColor = null;
    for (let i = 0; i < n; i++) this.paintCell(i, false);
    this.focusDrawn = focused;
    if (focused) {
      const { cols, cell, gap } = this.layout;
      const x = (this.focus % cols) * (cell + gap);
      const y = Math.floor(this.focus / cols) * (cell + gap);
      ctx.strokeStyle = '#111';
      ctx.lineWidth = 2;
      ctx.strokeRect(x - 1, y - 1, cell + 2, cell + 2);
    }
  }

  // One node's cell; `clear` paints the background under it first (every
  // mark stays inside the cell, so a cell drawn alone looks as in a full draw).
  paintCell(i, clear) {
    const data = this.data;
    const o = i * this.stride;
    const { cols, cell, gap } = this.layout;
    const ctx = this.ctx;
    const flags = data[o + 6];
    const x = (i % cols) * (cell + gap);
    const y = Math.floor(i / cols) * (cell + gap);
    if (clear) {
      ctx.fillStyle = this.background;
      ctx.fillRect(x, y, cell, cell);
      this.lastColor = null;
    }
    const color = cellColor(data[o + 1], data[o + 2], flags);
    if (color !== this.lastColor) { ctx.fillStyle = color; this.lastColor = color; }
    ctx.fillRect(x, y, cell, cell);
    if (cell >= 5) {
      if (flags & (FLAG_CORDONED | FLAG_DRAINING)) {
        ctx.fillStyle = flags & FLAG_DRAINING ? '#e8590c' : '#f59f00';
        ctx.beginPath();
        ctx.moveTo(x, y);
        ctx.lineTo(x + cell * 0.6, y);
        ctx.lineTo(x, y + cell * 0.6);
        ctx.fill();
        this.lastColor = null;
      }
      if (!(flags & FLAG_BEATING) && flags & FLAG_READY) {
        ctx.strokeStyle = '#f59f00';
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, y + 1, cell - 2, cell - 2);
      }
      if (!(flags & FLAG_READY)) {
        ctx.strokeStyle = '#e03131';
        ctx.lineWidth = Math.max(1, cell / 8);
        ctx.beginPath();
        ctx.moveTo(x + 2, y + 2);
        ctx.lineTo(x + cell - 2, y + cell - 2);
        ctx.moveTo(x + cell - 2, y + 2);
        ctx.lineTo(x + 2, y + cell - 2);
        ctx.stroke();
      }
    }
  }

  // The cell index under a point in CSS pixels, or -1.
  indexAt(px, py) {
    const { cols, cell, gap, n } = this.layout;
    const col = Math.floor(px / (cell + gap));
    const row = Math.floor(py / (cell + gap));
    if (col < 0 || col >= cols || row < 0) return -1;
    const i = row * cols + col;
    return i < n ? i : -1;
  }

  idAt(i) {
    return i >= 0 && i < this.layout.n ? this.data[i * this.stride] : -1;
  }
}

// ----- tables and lists ------------------------------------------------------

export function drawPending(ul, snap, { onPod }) {
  fill(ul, snap.pending.map((p) => h('li', { class: 'pending-pod' },
    h('button', { type: 'button', class: 'pod starting', style: { '--c': appColor(p.app) }, dataset: { pod: p.name }, title: `${p.name}: Pending. Click: why?`, 'aria-label': `pending pod ${p.name}: why?`, onclick: () => onPod(p.name) }, h('span', { class: 'pod-name' }, p.name)),
    h('span', { class: 'reason' }, p.reason ? ['FailedScheduling: ', p.reason] : 'waiting for the scheduler'))),
    snap.pendingPods > snap.pending.length
      ? h('li', { class: 'muted' }, `… and ${snap.pendingPods - snap.pending.length} more`)
      : null);
}

export function drawPdbs(tbody, pdbs, { onDelete }) {
  fill(tbody, pdbs.map((p) => h('tr', { dataset: { pdb: p.name } },
    h('th', { scope: 'row' }, p.name),
    h('td', {}, p.selector),
    h('td', { class: 'num' }, `${p.currentHealthy} / ${p.desiredHealthy}`),
    h('td', { class: `num${p.disruptionsAllowed === 0 ? ' warn-text' : ''}` }, String(p.disruptionsAllowed)),
    h('td', {}, h('button', { type: 'button', class: 'small', 'aria-label': `Delete PodDisruptionBudget ${p.name}`, onclick: () => onDelete(p.name) }, 'Delete')))));
}

// A Service's endpoints as kubectl get endpoints prints them: the first
// three (all the engine names, view.rs ENDPOINTS_LISTED), then "+ N more...",
// or <none> (kubernetes pkg/printers/internalversion/printers.go,
// formatEndpoints).
function endpointList(s) {
  if (s.endpointCount === 0) return '<none>';
  const more = s.endpointCount - s.endpoints.length;
  // "+ N more..." on one line; a name may break (a namespaced one is long).
  return [s.endpoints.join(', '),
    more > 0 ? [' ', h('span', { style: { whiteSpace: 'nowrap' } }, `+ ${more} more...`)] : null];
}

export function drawServices(tbody, services, { onDelete }) {
  fill(tbody, services.map((s) => h('tr', { dataset: { service: s.name } },
    h('th', { scope: 'row' }, s.name),
    h('td', {}, s.selector),
    h('td', {}, `${s.endpointCount}: `, h('span', { class: 'muted' }, endpointList(s))),
    h('td', {}, h('button', { type: 'button', class: 'small', 'aria-label': `Delete Service ${s.name}`, onclick: () => onDelete(s.name) }, 'Delete')))));
}

export function drawUpcoming(ol, snap) {
  fill(ol, snap.upcoming.map((u) => h('li', {}, h('span', { class: 'tick-chip' }, `t=${u.tick}`), ' ', u.what)),
    snap.upcomingCount > snap.upcoming.length ? h('li', { class: 'muted' }, `… and ${snap.upcomingCount - snap.upcoming.length} more`) : null);
}

// The most apps the legend names (an imported cluster can hold 10,000).
const LEGEND_APPS_AT_MOST = 60;

// The legend: the apps' colours (on node cards; the grid draws none), and
// what the marks mean.
export function drawLegend(el, apps, grid) {
  const named = grid ? [] : apps.slice(0, LEGEND_APPS_AT_MOST);
  const items = named.map((a) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: { '--c': appColor(a.name) }, 'aria-hidden': 'true' }), a.name));
  if (named.length < apps.length && !grid) items.push(h('span', { class: 'legend-item muted' }, `and ${(apps.length - named.length).toLocaleString('en')} more`));
  const marks = grid
    ? [
      h('span', { class: 'legend-item' }, h('span', { class: 'ramp', 'aria-hidden': 'true' }), 'CPU requested: empty → full'),
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch notready-swatch', 'aria-hidden': 'true' }), 'NotReady'),
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch cordon-swatch', 'aria-hidden': 'true' }), 'cordoned / draining'),
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch silent-swatch', 'aria-hidden': 'true' }), 'kubelet silent'),
    ]
    : [
      h('span', { class: 'legend-item' }, h('span', { class: 'pod-mark ready', 'aria-hidden': 'true' }), 'Ready'),
      h('span', { class: 'legend-item' }, h('span', { class: 'pod-mark starting', 'aria-hidden': 'true' }), 'starting'),
      h('span', { class: 'legend-item' }, h('span', { class: 'pod-mark ready outdated', 'aria-hidden': 'true' }), 'old revision'),
      h('span', { class: 'legend-item' }, h('span', { class: 'legend-countdown' }, '290s'), 'to eviction (NotReady node)'),
    ];
  fill(el, grid ? null : items, items.length && !grid ? h('span', { class: 'legend-sep', 'aria-hidden': 'true' }) : null, marks);
}

// ----- events ----------------------------------------------------------------

export const EVENTS_KEPT = 400;

// Event rows arrive packed in one string (Shepherd.eventsPacked): rows
// oldest first, separated by U+001E, each row's index, tick, type, reason,
// object, message, count, last tick and source separated by U+001F. An eviction
// writes one to two hundred events in a tick; the rows are built as one HTML
// string and parsed by the browser in one call, several times cheaper than
// building them node by node (and one string crosses from the engine
// instead of a thousand). An event seen again (Kubernetes' event correlator
// counts it into the first) shows its count and when it was last seen.
const ROW_SEP = '\u001e';
const FIELD_SEP = '\u001f';
const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

function eventRowHtml(row) {
  const [index, tick, type, reason, object, message, count, last, source] = row.split(FIELD_SEP);
  const warning = type === 'Warning';
  const seen = Number(count) > 1 ? `<span class="ev-count">×${count}, last at t=${last}</span>` : '';
  return `<li class="event ${warning ? 'warning' : 'normal'}" data-reason="${reason}" data-i="${index}"><span class="ev-tick">t=${tick}</span><span class="ev-type${warning ? ' warning' : ''}">${type}</span><span class="ev-reason">${reason}</span><span class="ev-source" title="source: the component that emitted it">${source}</span><span class="ev-object">${object}</span><span class="ev-message">${message}</span>${seen}</li>`;
}

// The rows of a packed page as HTML, newest first. Escaped once as a whole:
// the separators are not touched by escaping.
export function eventRowsHtml(text) {
  if (!text) return '';
  const rows = escapeHtml(text).split(ROW_SEP);
  let html = '';
  for (let i = rows.length - 1; i >= 0; i--) html += eventRowHtml(rows[i]);
  return html;
}

// Removes the rows past the newest EVENTS_KEPT, in one Range deletion.
export function trimEvents(ol) {
  if (ol.childElementCount <= EVENTS_KEPT) return;
  const range = document.createRange();
  range.setStartAfter(ol.children[EVENTS_KEPT - 1]);
  range.setEndAfter(ol.lastChild);
  range.deleteContents();
}

// The trim of the rows pushed out, asked for after a prepend: it runs when
// the browser is idle (or within half a second), after the frame that shows
// the new rows, instead of inside the tick.
const trimAsked = new WeakSet();
function askTrim(ol) {
  if (trimAsked.has(ol)) return;
  trimAsked.add(ol);
  const run = () => {
    trimAsked.delete(ol);
    trimEvents(ol);
  };
  if (window.requestIdleCallback) requestIdleCallback(run, { timeout: 500 });
  else setTimeout(run, 50);
}

// Prepends a packed page of events ({skipped, count, text}; oldest first in
// the page) so the newest is on top. The rows pushed out at the bottom are
// removed after the frame (askTrim): a node's eviction writes a few hundred
// events in a tick, and removing as many old rows cost nearly as much as
// building the new ones (1.5-2 ms at 200 rows, one Range deletion, which
// was already the cheapest way found: row by row, or with the list taken
// out of the document, cost more). If the last trim has not run yet (no
// idle moment came, as while playing), the rows beyond the ones kept go
// first, at once, so the list never holds more than EVENTS_KEPT plus one
// tick's rows.
export function prependEvents(ol, page) {
  if (!page.count && !page.skipped) return;
  let text = page.text;
  let count = page.count;
  // The first `updated` rows are earlier events whose count moved: their
  // rows, where the list still has them, are redrawn in place.
  if (page.updated) {
    const rows = escapeHtml(text).split(ROW_SEP);
    for (const row of rows.slice(0, page.updated)) {
      const index = row.slice(0, row.indexOf(FIELD_SEP));
      const li = ol.querySelector(`li[data-i="${index}"]`);
      if (li) li.outerHTML = eventRowHtml(row);
    }
    count -= page.updated;
    text = page.text.split(ROW_SEP).slice(page.updated).join(ROW_SEP);
    if (!count && !page.skipped) return;
  }
  const added = count + (page.skipped ? 1 : 0);
  const keep = Math.max(0, EVENTS_KEPT - added);
  if (ol.childElementCount > EVENTS_KEPT) {
    const range = document.createRange();
    if (keep === 0) range.selectNodeContents(ol);
    else {
      range.setStartAfter(ol.children[keep - 1]);
      range.setEndAfter(ol.lastChild);
    }
    range.deleteContents();
  }
  let html = eventRowsHtml(text);
  if (page.skipped) html += `<li class="event skipped">… ${num(page.skipped)} earlier ${page.skipped === 1 ? 'event' : 'events'} of this step not shown</li>`;
  ol.insertAdjacentHTML('afterbegin', html);
  if (ol.childElementCount > EVENTS_KEPT) askTrim(ol);
}

export function setSummary(el, snap) {
  const cpu = pct(snap.cpu.used, snap.cpu.capacity).toFixed(0);
  const mem = pct(snap.memory.used, snap.memory.capacity).toFixed(0);
  const count = (n, word) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;
  setText(el, `${count(snap.nodeCount, 'node')} (${num(snap.readyNodes)} Ready) · ${count(snap.boundPods, 'pod')} bound · ${num(snap.pendingPods)} Pending · CPU ${cpu}% and memory ${mem}% requested`);
}
