// Charts over time and the cluster's balance now. The engine records a few
// figures per tick as ticks run (Shepherd.series); this file keeps what it was
// given and asks only for the ticks after it, then draws small canvas line
// charts. Nothing here decides anything about the cluster.
import { $, h, setText, num, memText } from './dom.js';
import { appColor } from './colors.js';

// The charts, in the order they are shown; `col` names the store's column.
const CHARTS = [
  { id: 'cpu', title: 'CPU requested', unit: '%', fixedMax: 100,
    col: 'cpu', said: (v) => `${v.toFixed(1)}% of allocatable` },
  { id: 'memory', title: 'Memory requested', unit: '%', fixedMax: 100,
    col: 'memory', said: (v) => `${v.toFixed(1)}% of allocatable` },
  { id: 'pending', title: 'Pending pods', unit: '', fixedMax: 0,
    col: 'pending', said: (v) => `${num(v)} Pending` },
  { id: 'notready', title: 'NotReady nodes', unit: '', fixedMax: 0,
    col: 'notReady', said: (v) => `${num(v)} NotReady` },
  // Shown only with Cluster Autoscaler's node groups (www/autoscale.js).
  { id: 'nodes', title: 'Nodes', unit: '', fixedMax: 0, autoscale: true,
    col: 'nodes', said: (v) => `${num(v)} node${v === 1 ? '' : 's'}` },
  { id: 'cost', title: 'Cost per hour', unit: '', fixedMax: 0, autoscale: true, money: true,
    col: 'cost', said: (v) => `$${v.toFixed(3)}/h` },
];

const HEIGHT = 84;
const PAD = { left: 38, right: 8, top: 8, bottom: 16 };

// requested / allocatable as a percentage (0 when nothing is allocatable).
function percent(req, alloc) {
  return alloc > 0 ? (100 * req) / alloc : 0;
}

// The figures per tick the page holds. `known` ticks (0 .. known-1) are the
// engine's record up to its current tick; ticks from `known` to `len` were
// recorded before a step back or a click into the past and are drawn as
// "ahead": replaying the same script gives them again, so they stay until an
// action changes what happens next (dropAhead).
class Store {
  constructor() {
    this.sim = null;
    this.cap = 0;
    this.len = 0;
    this.known = 0;
    this.grow(256);
  }

  grow(need) {
    if (need <= this.cap) return;
    let cap = Math.max(256, this.cap);
    while (cap < need) cap *= 2;
    const copy = (Type, old) => {
      const a = new Type(cap);
      if (old) a.set(old.subarray(0, this.len));
      return a;
    };
    this.cpu = copy(Float64Array, this.cpu);
    this.memory = copy(Float64Array, this.memory);
    this.pending = copy(Uint32Array, this.pending);
    this.notReady = copy(Uint32Array, this.notReady);
    this.nodes = copy(Uint32Array, this.nodes);
    this.cost = copy(Float64Array, this.cost);
    this.cap = cap;
  }

  // Brings the store up to the engine's current tick: asks only for ticks not
  // held yet. Returns true when anything changed.
  sync(sim) {
    if (this.sim !== sim) {
      this.sim = sim;
      this.len = 0;
      this.known = 0;
    }
    const want = sim.tick + 1;
    if (want === this.known) return false;
    if (want < this.known) {
      // Back in time: the engine forgot the later ticks; they stay as "ahead".
      this.known = want;
      return true;
    }
    const s = sim.series(this.known);
    const n = s.pending.length;
    const from = s.from;
    this.grow(from + n);
    for (let i = 0; i < n; i += 1) {
      const t = from + i;
      this.cpu[t] = percent(s.cpuRequested[i], s.cpuAllocatable[i]);
      this.memory[t] = percent(s.memoryRequested[i], s.memoryAllocatable[i]);
      this.pending[t] = s.pending[i];
      this.notReady[t] = s.notReady[i];
      this.nodes[t] = s.nodes[i];
      this.cost[t] = s.costPerHour[i];
    }
    this.known = from + n;
    this.len = Math.max(this.len, this.known);
    return true;
  }

  // An action was taken: what was recorded past now may no longer happen.
  dropAhead() {
    if (this.len === this.known) return false;
    this.len = this.known;
    return true;
  }
}

// One small line chart on a canvas.
class Chart {
  constructor(spec, canvas, readout) {
    this.spec = spec;
    this.canvas = canvas;
    this.readout = readout;
    this.ctx = canvas.getContext('2d');
    this.width = 0;
    this.sig = '';
    // The tick under the keyboard cursor (arrow keys), or null.
    this.cursor = null;
    this.hover = null;
  }

  // The x axis spans at least 20 ticks so the first few points do not fill it.
  span(store) {
    return Math.max(20, store.len - 1);
  }

  xOf(t, span) {
    return PAD.left + ((this.width - PAD.left - PAD.right) * t) / span;
  }

  tickAt(x, store) {
    if (store.len === 0) return null;
    const span = this.span(store);
    const t = Math.round(((x - PAD.left) * span) / Math.max(1, this.width - PAD.left - PAD.right));
    return Math.max(0, Math.min(store.len - 1, t));
  }

  yMax(store) {
    if (this.spec.fixedMax) return this.spec.fixedMax;
    let m = 0;
    const col = store[this.spec.col];
    for (let t = 0; t < store.len; t += 1) if (col[t] > m) m = col[t];
    if (m <= 4 && !this.spec.money) return 4;
    if (m <= 0) return 1;
    // 1, 2 or 5 times a power of ten, at or above the largest value.
    const p = 10 ** Math.floor(Math.log10(m));
    for (const k of [1, 2, 5, 10]) if (k * p >= m) return Number((k * p).toPrecision(3));
    return 10 * p;
  }

  draw(store, tick, colors, force = false) {
    const width = this.width;
    if (width <= 0) return;
    const sig = `${store.len}|${store.known}|${tick}|${width}|${this.cursor}|${this.hover}|${colors.fg}`;
    if (!force && sig === this.sig) return;
    this.sig = sig;
    this.frame(store, colors);
    if (store.len === 0) return;
    this.line(store, tick, colors);
  }

  // The canvas sized and cleared, the axes and their labels.
  frame(store, colors) {
    const width = this.width;
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(HEIGHT * dpr);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${HEIGHT}px`;
      // Resizing the canvas reset its context's state, the font included.
      this.fontSet = false;
    }
    const ctx = this.ctx;
    // Setting a context's font makes Chromium bring the page's style up to
    // date at once (a few milliseconds after a tick changed the tables), so
    // it is set once per context, not per paint; and the text direction is
    // stated, so that drawing text need not read the canvas's style either.
    if (!this.fontSet) {
      ctx.font = '12px system-ui, sans-serif';
      ctx.direction = 'ltr';
      this.fontSet = true;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, HEIGHT);
    const span = this.span(store);
    const max = this.yMax(store);
    const plotH = HEIGHT - PAD.top - PAD.bottom;

    // Axes: the top and bottom of the scale, the first and last tick.
    ctx.fillStyle = colors.muted;
    ctx.strokeStyle = colors.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(PAD.left, PAD.top + 0.5);
    ctx.lineTo(width - PAD.right, PAD.top + 0.5);
    ctx.moveTo(PAD.left, PAD.top + plotH + 0.5);
    ctx.lineTo(width - PAD.right, PAD.top + plotH + 0.5);
    ctx.stroke();
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText(`${this.spec.money ? '$' : ''}${max}${this.spec.unit}`, PAD.left - 4, PAD.top);
    ctx.fillText('0', PAD.left - 4, PAD.top + plotH);
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
    ctx.fillText('tick 0', PAD.left, HEIGHT - 3);
    ctx.textAlign = 'right';
    ctx.fillText(`tick ${span}`, width - PAD.right, HEIGHT - 3);
  }

  line(store, tick, colors) {
    const width = this.width;
    const ctx = this.ctx;
    const span = this.span(store);
    const max = this.yMax(store);
    const plotH = HEIGHT - PAD.top - PAD.bottom;
    const yOf = (v) => PAD.top + plotH - (plotH * Math.min(v, max)) / max;

    // The line: one point per tick, or, when there are more ticks than
    // pixels, each pixel column's lowest and highest value (so a one-tick
    // spike still shows) — the cost stays bounded by the width.
    const col = store[this.spec.col];
    const plotW = width - PAD.left - PAD.right;
    const path = (from, to) => {
      if (to <= from) return;
      ctx.beginPath();
      if (span <= plotW) {
        for (let t = from; t < to; t += 1) {
          const x = PAD.left + (plotW * t) / span;
          const y = yOf(col[t]);
          if (t === from) ctx.moveTo(x, y); else ctx.lineTo(x, y);
        }
      } else {
        let t = from;
        let first = true;
        while (t < to) {
          const px = Math.floor((plotW * t) / span);
          const x = PAD.left + px;
          let lo = col[t], hi = lo, last = lo;
          t += 1;
          while (t < to && Math.floor((plotW * t) / span) === px) {
            const v = col[t];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            last = v;
            t += 1;
          }
          if (first) { ctx.moveTo(x, yOf(lo)); first = false; } else ctx.lineTo(x, yOf(lo));
          if (hi !== lo) ctx.lineTo(x, yOf(hi));
          if (last !== hi) ctx.lineTo(x, yOf(last));
        }
      }
      ctx.stroke();
    };
    ctx.lineWidth = 1.5;
    // Ahead of now (after a step back): fainter and dashed.
    if (store.len > store.known) {
      ctx.strokeStyle = colors.muted;
      ctx.setLineDash([3, 3]);
      path(Math.max(0, store.known - 1), store.len);
      ctx.setLineDash([]);
    }
    ctx.strokeStyle = colors[this.spec.id] || colors.accent;
    path(0, store.known);

    // Now: a vertical line and a dot on the value.
    const mark = (t, color, radius) => {
      const x = this.xOf(t, span);
      const y = yOf(col[t]);
      ctx.strokeStyle = color;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(Math.round(x) + 0.5, PAD.top);
      ctx.lineTo(Math.round(x) + 0.5, PAD.top + plotH);
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(x, y, radius, 0, 2 * Math.PI);
      ctx.fill();
    };
    const now = Math.min(tick, store.len - 1);
    mark(now, colors.fg, 3.5);
    const pointed = this.cursor ?? this.hover;
    if (pointed !== null && pointed !== now && pointed < store.len) mark(pointed, colors.muted, 3);
  }
}

// Ready pods per Deployment: the engine sends the ticks at which a
// Deployment's ready count changed (Shepherd.readySeries), and this keeps, per
// Deployment ("slot"), its changes as [tick, value] pairs. Ticks from `known`
// on are "ahead" after a step back, as in Store.
const GONE = 4294967295;
// Deployments drawn at most: the ones with the most Ready pods at any tick.
const READY_SHOWN = 6;

class ReadyStore {
  constructor() {
    this.reset(null);
  }

  reset(sim) {
    this.sim = sim;
    this.names = [];
    this.changes = [];
    this.known = 0;
    this.topMemo = null;
  }

  // Drops the changes at or after tick t, and the Deployments first seen then.
  cut(t) {
    this.topMemo = null;
    let slots = 0;
    for (let s = 0; s < this.changes.length; s += 1) {
      const c = this.changes[s];
      let k = c.length;
      while (k > 0 && c[k - 1][0] >= t) k -= 1;
      c.length = k;
      if (k > 0) slots = s + 1;
    }
    this.names.length = slots;
    this.changes.length = slots;
  }

  sync(sim) {
    if (this.sim !== sim) this.reset(sim);
    const want = sim.tick + 1;
    if (want === this.known) return false;
    if (want < this.known) {
      this.known = want;
      return true;
    }
    // The engine forgot Deployments first seen at ticks it forgot: ask for
    // the names from the first slot not held before `known`.
    let namesFrom = 0;
    for (let s = 0; s < this.changes.length; s += 1) {
      const c = this.changes[s];
      if (c.length && c[0][0] < this.known) namesFrom = s + 1;
    }
    const r = sim.readySeries(this.known, namesFrom);
    this.cut(this.known);
    this.names.length = Math.min(this.names.length, r.namesFrom);
    for (const name of r.names) this.names.push(name);
    while (this.changes.length < this.names.length) this.changes.push([]);
    for (let i = 0; i < r.tick.length; i += 1) this.changes[r.slot[i]].push([r.tick[i], r.ready[i]]);
    this.topMemo = null;
    this.known = want;
    return true;
  }

  dropAhead() {
    this.cut(this.known);
  }

  // The value of slot s at tick t (null: not there).
  at(s, t) {
    const c = this.changes[s];
    let v = null;
    for (let i = 0; i < c.length && c[i][0] <= t; i += 1) v = c[i][1];
    return v === GONE ? null : v;
  }

  // The slots to draw: the READY_SHOWN with the most Ready pods at any tick.
  // Kept until the changes change (a paint asks for it three times).
  top() {
    if (!this.topMemo) this.topMemo = this.computeTop();
    return this.topMemo;
  }

  computeTop() {
    const most = this.changes.map((c, s) => [s, c.reduce((m, [, v]) => (v !== GONE && v > m ? v : m), -1)]);
    return most.filter(([, m]) => m >= 0)
      .sort((a, b) => b[1] - a[1] || this.names[a[0]].localeCompare(this.names[b[0]]))
      .slice(0, READY_SHOWN);
  }
}

// The Ready per Deployment chart: a step line per Deployment, in the
// Deployment's colour (the same as its pods on the node cards).
class ReadyChart extends Chart {
  constructor(spec, canvas, readout, ready, legend) {
    super(spec, canvas, readout);
    this.ready = ready;
    this.legend = legend;
  }

  yMax() {
    let m = 0;
    for (const [, most] of this.ready.top()) if (most > m) m = most;
    if (m <= 4) return 4;
    const p = 10 ** Math.floor(Math.log10(m));
    for (const k of [1, 2, 5, 10]) if (k * p >= m) return k * p;
    return 10 * p;
  }

  draw(store, tick, colors, force = false) {
    const width = this.width;
    if (width <= 0) return;
    const top = this.ready.top();
    const sig = `${store.len}|${store.known}|${tick}|${width}|${this.cursor}|${this.hover}|${colors.fg}|${top.join(';')}|${this.ready.known}`;
    if (!force && sig === this.sig) return;
    this.sig = sig;
    this.frame(store, colors);
    const ctx = this.ctx;
    const span = this.span(store);
    const max = this.yMax();
    const plotH = HEIGHT - PAD.top - PAD.bottom;
    const yOf = (v) => PAD.top + plotH - (plotH * Math.min(v, max)) / max;
    const last = store.len - 1;
    if (last < 0) return;
    ctx.lineWidth = 1.5;
    // Each Deployment's line is two paths, its solid and its dashed
    // segments, each stroked once (a stroke per change cost a few
    // milliseconds a tick once evictions had made hundreds of changes).
    for (const [s] of top) {
      const c = this.ready.changes[s];
      ctx.strokeStyle = appColor(this.ready.names[s]);
      let anySolid = false;
      let anyDashed = false;
      const paths = [new Path2D(), new Path2D()];
      // Each change holds until the next one (or the end of what is held).
      for (let i = 0; i < c.length; i += 1) {
        const [t, v] = c[i];
        if (v === GONE) continue;
        const end = i + 1 < c.length ? c[i + 1][0] : last;
        const solidEnd = Math.min(end, store.known - 1);
        const seg = (from, to, isDashed) => {
          if (to < from) return;
          const p = paths[isDashed ? 1 : 0];
          if (isDashed) anyDashed = true; else anySolid = true;
          if (i > 0 && from === t && c[i - 1][1] !== GONE) p.moveTo(this.xOf(t, span), yOf(c[i - 1][1]));
          else p.moveTo(this.xOf(from, span), yOf(v));
          p.lineTo(this.xOf(from, span), yOf(v));
          p.lineTo(this.xOf(to, span), yOf(v));
        };
        if (t <= solidEnd) {
          seg(t, solidEnd, false);
          if (end > solidEnd) seg(solidEnd, end, true);
        } else {
          seg(t, end, true);
        }
      }
      if (anySolid) {
        ctx.setLineDash([]);
        ctx.stroke(paths[0]);
      }
      if (anyDashed) {
        ctx.setLineDash([3, 3]);
        ctx.stroke(paths[1]);
      }
    }
    ctx.setLineDash([]);
    const now = Math.min(tick, last);
    const markAt = (t, color) => {
      const x = Math.round(this.xOf(t, span)) + 0.5;
      ctx.strokeStyle = color;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, PAD.top);
      ctx.lineTo(x, PAD.top + plotH);
      ctx.stroke();
    };
    markAt(now, colors.fg);
    const pointed = this.cursor ?? this.hover;
    if (pointed !== null && pointed !== now && pointed < store.len) markAt(pointed, colors.muted);
    this.drawLegend(top, now);
    this.yMaxNow = max;
  }

  drawLegend(top, now) {
    const key = `${top.map(([s]) => s).join(',')}|${top.map(([s]) => this.ready.at(s, now)).join(',')}|${this.ready.names.length}`;
    if (key === this.legendKey) return;
    this.legendKey = key;
    const items = top.map(([s]) => {
      const v = this.ready.at(s, now);
      return h('li', { dataset: { app: this.ready.names[s] } },
        h('span', { class: 'swatch', style: { background: appColor(this.ready.names[s]) }, 'aria-hidden': 'true' }),
        `${this.ready.names[s]} ${v === null ? '—' : v}`);
    });
    const alive = this.ready.names.length;
    if (alive > top.length) items.push(h('li', { class: 'muted' }, `+${alive - top.length} more ${alive - top.length === 1 ? 'workload' : 'workloads'} (the ${top.length} with the most Ready pods are drawn)`));
    this.legend.replaceChildren(...items);
  }

  describe(t) {
    const top = this.ready.top();
    if (!top.length) return `tick ${t}: no Deployment yet`;
    return `tick ${t}: ${top.map(([s]) => `${this.ready.names[s]} ${this.ready.at(s, t) ?? '—'}`).join(', ')} Ready`;
  }
}

function readColors(el) {
  const cs = getComputedStyle(el);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#1b2230'),
    muted: v('--muted', '#5d6879'),
    line: v('--line', '#dfe4ec'),
    accent: v('--accent', '#326ce5'),
    cpu: v('--accent', '#326ce5'),
    memory: v('--chart-memory', '#7048e8'),
    pending: v('--bar-hot', '#e8590c'),
    notready: v('--bad', '#b02525'),
  };
}

// The charts panel. `onSeek(tick)` moves the page to a tick (the replay Back uses).
export class ChartsView {
  constructor(root, { onSeek }) {
    this.root = root;
    this.onSeek = onSeek;
    this.store = new Store();
    this.tick = 0;
    this.charts = [];
    this.colors = readColors(root);
    const wrap = $('charts');
    for (const spec of CHARTS) {
      const readout = h('span', { class: 'chart-value', id: `chart-${spec.id}-value` });
      const canvas = h('canvas', {
        id: `chart-${spec.id}`,
        class: 'chart',
        tabindex: 0,
        role: 'img',
        'aria-label': `${spec.title} per tick; click a point, or use the arrow keys and Enter, to go to that tick`,
        'aria-describedby': `chart-${spec.id}-value`,
        height: HEIGHT,
      });
      const fig = h('figure', { class: 'chart-fig', dataset: { chart: spec.id }, hidden: !!spec.autoscale },
        h('figcaption', {}, h('span', { class: 'chart-title' }, spec.title), ' ', readout),
        canvas);
      wrap.appendChild(fig);
      const c = new Chart(spec, canvas, readout);
      this.charts.push(c);
      this.wire(c);
    }
    // Ready pods per Deployment: a wider chart with a legend.
    this.ready = new ReadyStore();
    {
      const spec = { id: 'ready', title: 'Ready pods per workload', unit: '' };
      const readout = h('span', { class: 'chart-value', id: 'chart-ready-value' });
      const legend = h('ul', { class: 'chart-legend', id: 'chart-ready-legend', 'aria-label': 'Deployments drawn, with their Ready pods now' });
      const canvas = h('canvas', {
        id: 'chart-ready',
        class: 'chart',
        tabindex: 0,
        role: 'img',
        'aria-label': 'Ready pods per workload (Deployment, DaemonSet or bare Pod) per tick, one line per workload in its colour; click a point, or use the arrow keys and Enter, to go to that tick',
        'aria-describedby': 'chart-ready-value',
        height: HEIGHT,
      });
      const fig = h('figure', { class: 'chart-fig chart-wide', dataset: { chart: 'ready' } },
        h('figcaption', {}, h('span', { class: 'chart-title' }, spec.title), ' ', readout),
        canvas, legend);
      wrap.appendChild(fig);
      const c = new ReadyChart(spec, canvas, readout, this.ready, legend);
      this.charts.push(c);
      this.wire(c);
    }
    new ResizeObserver(() => this.resize()).observe(wrap);
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      this.colors = readColors(root);
      this.paint(true);
    });
  }

  resize() {
    for (const c of this.charts) {
      const w = Math.round(c.canvas.parentElement.getBoundingClientRect().width);
      if (w > 0) c.width = w;
    }
    this.paint(true);
  }

  wire(c) {
    const at = (e) => c.tickAt(e.clientX - c.canvas.getBoundingClientRect().left, this.store);
    c.canvas.addEventListener('click', (e) => {
      const t = at(e);
      if (t !== null) this.onSeek(t);
    });
    c.canvas.addEventListener('mousemove', (e) => {
      c.hover = at(e);
      this.paint();
    });
    c.canvas.addEventListener('mouseleave', () => {
      c.hover = null;
      this.paint();
    });
    c.canvas.addEventListener('blur', () => {
      c.cursor = null;
      this.paint();
    });
    c.canvas.addEventListener('keydown', (e) => {
      const last = this.store.len - 1;
      if (last < 0) return;
      const at0 = c.cursor ?? Math.min(this.tick, last);
      const step = e.shiftKey ? 10 : 1;
      let next = null;
      if (e.key === 'ArrowLeft') next = Math.max(0, at0 - step);
      else if (e.key === 'ArrowRight') next = Math.min(last, at0 + step);
      else if (e.key === 'Home') next = 0;
      else if (e.key === 'End') next = last;
      else if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        const t = c.cursor;
        c.cursor = null;
        if (t !== null) this.onSeek(t);
        return;
      }
      if (next === null) return;
      e.preventDefault();
      c.cursor = next;
      this.paint();
    });
  }

  // Figures of tick t, in words.
  said(c, t) {
    if (c.describe) return c.describe(t);
    return `tick ${t}: ${c.spec.said(this.store[c.spec.col][t])}`;
  }

  // Called once per drawn tick: fetches only the ticks not held yet.
  update(sim) {
    // The nodes and cost charts show only with node groups.
    const groups = sim.hasNodeGroups;
    if (groups !== this.groups) {
      this.groups = groups;
      for (const c of this.charts) if (c.spec.autoscale) c.canvas.parentElement.hidden = !groups;
      this.resize();
    }
    this.store.sync(sim);
    this.ready.sync(sim);
    this.tick = sim.tick;
    this.paint();
  }

  // An action was taken at the current tick: what was recorded past it may change.
  dropAhead() {
    this.ready.dropAhead();
    if (this.store.dropAhead()) this.paint();
  }

  // The canvases first, then the text around them: drawing text on a
  // canvas brings the page's style up to date first (Chromium), which costs
  // nothing while no element changed since the last frame and milliseconds
  // after (app.js draws the charts before the tables and the event log).
  paint(force = false) {
    const s = this.store;
    for (const c of this.charts) c.draw(s, this.tick, this.colors, force);
    this.root.dataset.points = String(s.len);
    this.root.dataset.known = String(s.known);
    for (const c of this.charts) {
      if (s.len === 0) continue;
      const now = Math.min(this.tick, s.len - 1);
      const pointed = c.cursor ?? c.hover;
      setText(c.readout, pointed !== null && pointed !== now && pointed < s.len
        ? `${this.said(c, now)} · pointing at ${this.said(c, pointed)}${c.cursor !== null ? ' (Enter goes there)' : ''}`
        : this.said(c, now));
    }
  }
}

// ----- the balance strip -------------------------------------------------------

const pc = (f) => `${(100 * f).toFixed(0)}%`;
const n = num;

function histogram(r, label) {
  const most = Math.max(1, ...r.histogram);
  return h('span', {
    class: 'hist',
    role: 'img',
    'aria-label': `${label} utilisation of the Ready nodes in ten steps of 10%: ${r.histogram.map((c, i) => `${i * 10}-${i * 10 + 10}%: ${c}`).join(', ')}`,
  }, r.histogram.map((c) => h('span', { style: { height: `${c ? Math.max(12, (100 * c) / most) : 0}%` } })));
}

// Draws the cluster's balance (Shepherd.balance) into the strip's table rows.
export function drawBalance(el, b) {
  const row = (label, r) => h('tr', { dataset: { resource: label.toLowerCase() } },
    h('th', { scope: 'row' }, label),
    h('td', { class: 'num' }, pc(r.overall)),
    h('td', { class: 'num' }, pc(r.min)),
    h('td', { class: 'num' }, pc(r.mean)),
    h('td', { class: 'num' }, pc(r.max)),
    h('td', { class: 'num' }, pc(r.stdDev)),
    h('td', { class: 'num' }, `${n(r.inUse)} / ${n(r.empty)}`),
    h('td', {}, histogram(r, label)));
  el.tBodies[0].replaceChildren(row('CPU', b.cpu), row('Memory', b.memory));
  const f = b.fragmentation;
  const line = $('balance-frag');
  if (!f) {
    setText(line, `${n(b.readyNodes)} Ready ${b.readyNodes === 1 ? 'node' : 'nodes'}, ${n(b.notReadyNodes)} NotReady. No pod is Pending, so no free space is stranded.`);
  } else {
    setText(line, `${n(b.readyNodes)} Ready ${b.readyNodes === 1 ? 'node' : 'nodes'}, ${n(b.notReadyNodes)} NotReady. Largest Pending pod (${f.app}: ${f.cpuMillis}m CPU, ${memText(f.memoryBytes)} memory), counting requests alone: ` +
      `${n(f.fitOnNodes)} more fit on the nodes as they are, ${n(f.fitPooled)} if the free space were pooled: ${n(f.stranded)} stranded by fragmentation.`);
  }
}
