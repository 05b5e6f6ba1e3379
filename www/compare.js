// The compare view: the run on the page replayed a second time under another
// scheduler profile (a second engine instance, `Comparison`, web/src/compare.rs),
// kept at the page's tick, with both runs' balance side by side and the pods
// that differ. Stepping, Play, Back and the charts move both runs together:
// the page calls update() after every tick it draws. Nothing is decided here.
import { Comparison } from '../pkg/shepherd_web.js';
import { $, h, setText, num } from './dom.js';
import { NAMED } from './profile.js';

// Names listed per list; the counts are always whole.
const LISTED = 50;

const pc = (f) => `${(100 * f).toFixed(0)}%`;
const n = num;

// The figures compared, each read from a `Shepherd.balance()` object.
// `better`: which way is better when the two differ, for the arrow ('' when
// neither is: it depends on what the person wants).
const ROWS = [
  { label: 'Nodes with pods', title: 'Ready nodes with at least one pod, of the Ready nodes',
    text: (b) => `${n(b.nodesWithPods)} of ${n(b.readyNodes)}`, value: (b) => b.nodesWithPods },
  { label: 'Pending pods', title: 'Pods not bound to a node',
    text: (b) => n(b.pending), value: (b) => b.pending },
  { label: 'CPU requested, least / mean / most used node', title: 'Utilisation of the Ready nodes: requested over allocatable',
    text: (b) => `${pc(b.cpu.min)} / ${pc(b.cpu.mean)} / ${pc(b.cpu.max)}`, value: (b) => b.cpu.max - b.cpu.min },
  { label: 'CPU std dev', title: 'Standard deviation of the nodes\' CPU utilisation: 0 is perfectly even',
    text: (b) => pc(b.cpu.stdDev), value: (b) => b.cpu.stdDev },
  { label: 'Memory requested, least / mean / most used node', title: 'Utilisation of the Ready nodes: requested over allocatable',
    text: (b) => `${pc(b.memory.min)} / ${pc(b.memory.mean)} / ${pc(b.memory.max)}`, value: (b) => b.memory.max - b.memory.min },
  { label: 'Memory std dev', title: 'Standard deviation of the nodes\' memory utilisation: 0 is perfectly even',
    text: (b) => pc(b.memory.stdDev), value: (b) => b.memory.stdDev },
  { label: 'Stranded by fragmentation', title: 'How many more of the largest Pending pod would fit if the free space were one pool (— when nothing is Pending)',
    text: (b) => (b.fragmentation ? n(b.fragmentation.stranded) : '—'), value: (b) => (b.fragmentation ? b.fragmentation.stranded : 0) },
];

export class CompareView {
  // `root`: the compare panel. `onPod(name)` explains a pod of the page's run.
  constructor(root, { onPod }) {
    this.root = root;
    this.onPod = onPod;
    this.cmp = null;
    this.sim = null;
    this.policy = null;
    this.error = null;
    const select = $('compare-profile');
    select.replaceChildren(...NAMED.map((p) => h('option', { value: p }, p)));
    select.value = 'binpack';
    $('btn-compare').addEventListener('click', () => {
      if (this.cmp || this.error) this.stop();
      else this.start(select.value);
    });
    // The top bar's "Compare…": to the panel, its profile list in hand.
    $('btn-compare-open').addEventListener('click', () => {
      root.scrollIntoView({ behavior: 'smooth', block: 'start' });
      select.focus({ preventScroll: true });
    });
    select.addEventListener('change', () => {
      if (this.cmp) this.start(select.value);
    });
  }

  get active() {
    return this.cmp !== null;
  }

  start(policy) {
    this.stop();
    this.policy = policy;
    this.root.dataset.active = 'true';
    setText($('btn-compare'), 'Stop comparing');
    $('btn-compare').setAttribute('aria-pressed', 'true');
    if (this.lastSim) this.update(this.lastSim);
  }

  stop() {
    clearTimeout(this.timer);
    if (this.cmp) this.cmp.free();
    this.cmp = null;
    this.sim = null;
    this.policy = null;
    this.error = null;
    this.root.dataset.active = 'false';
    setText($('btn-compare'), 'Compare');
    $('btn-compare').setAttribute('aria-pressed', 'false');
    $('compare-body').hidden = true;
  }

  // After every drawn tick: brings the second run to the page's tick and
  // script, then draws both. A new run on the page starts a new comparison.
  update(sim) {
    this.lastSim = sim;
    if (!this.policy) return;
    const t0 = performance.now();
    try {
      if (this.sim !== sim || !this.cmp) {
        if (this.cmp) this.cmp.free();
        this.cmp = null;
        this.cmp = new Comparison(sim, this.policy);
        this.sim = sim;
        this.replays = (this.replays || 0) + 1;
      } else if (this.cmp.follow(sim)) {
        this.replays = (this.replays || 0) + 1;
      }
      this.error = null;
    } catch (err) {
      this.error = err && err.message ? err.message : String(err);
      $('compare-body').hidden = true;
      setText($('compare-status'), `The second run could not be built: ${this.error}`);
      return;
    }
    this.followMs = performance.now() - t0;
    // The view diffs every pod (170 ms at 150,000 pods when most differ):
    // during Play it is drawn at most a fifth of the time, and always once
    // the ticks stop.
    const now = performance.now();
    const due = (this.viewAt || 0) + 4 * (this.viewMs || 0);
    clearTimeout(this.timer);
    if (now < due) {
      this.timer = setTimeout(() => this.refresh(), due - now);
      return;
    }
    this.refresh();
  }

  refresh() {
    if (!this.cmp || !this.sim) return;
    const t0 = performance.now();
    const v = this.cmp.view(this.sim, LISTED);
    this.view = v;
    this.draw(v);
    this.root.dataset.tick = String(v.tick);
    this.root.dataset.otherTick = String(this.cmp.tick);
    this.viewAt = performance.now();
    this.viewMs = this.viewAt - t0;
  }

  draw(v) {
    $('compare-body').hidden = false;
    const a = v.a.profile;
    const b = v.b.profile;
    const same = a === b;
    setText($('compare-status'), `Tick ${n(v.tick)}: this run (${a}) and the same scenario under ${b}, in step.` +
      (same ? ' Both runs use the same profile: pick another to see a difference.' : ''));
    setText($('compare-col-a'), `This run: ${a}`);
    setText($('compare-col-b'), `Second run: ${b}`);
    const rows = ROWS.map((r) => {
      const va = r.value(v.a.balance);
      const vb = r.value(v.b.balance);
      return h('tr', { class: va !== vb ? 'differs' : '' },
        h('th', { scope: 'row', title: r.title }, r.label),
        h('td', { class: 'num' }, r.text(v.a.balance)),
        h('td', { class: 'num' }, r.text(v.b.balance)));
    });
    $('compare-table').tBodies[0].replaceChildren(...rows);

    const moved = $('compare-moved');
    setText($('compare-moved-h'), `Pods on a different node (${n(v.landedDifferentlyCount)})`);
    moved.tBodies[0].replaceChildren(...v.landedDifferently.map((m) => h('tr', { dataset: { pod: m.pod } },
      h('th', { scope: 'row' }, h('button', { type: 'button', class: 'link', title: `Why is ${m.pod} on ${m.a} in this run?`, onclick: () => this.onPod(m.pod) }, m.pod)),
      h('td', {}, m.a),
      h('td', {}, m.b))));
    moved.hidden = v.landedDifferently.length === 0;
    setText($('compare-moved-more'), v.landedDifferentlyCount > v.landedDifferently.length
      ? `… and ${n(v.landedDifferentlyCount - v.landedDifferently.length)} more.`
      : (v.landedDifferentlyCount === 0 ? 'Every pod bound in both runs is on the same node.' : ''));

    const list = (id, names, count, none) => {
      const el = $(id);
      el.replaceChildren(...names.map((p) => h('li', { dataset: { pod: p } }, p)));
      setText($(`${id}-more`), count > names.length ? `… and ${n(count - names.length)} more.` : (count === 0 ? none : ''));
    };
    setText($('compare-pa-h'), `Pending only in this run (${n(v.pendingOnlyInACount)})`);
    setText($('compare-pb-h'), `Pending only in the second run (${n(v.pendingOnlyInBCount)})`);
    list('compare-pa', v.pendingOnlyInA, v.pendingOnlyInACount, 'None.');
    list('compare-pb', v.pendingOnlyInB, v.pendingOnlyInBCount, 'None.');
    setText($('compare-ba-h'), `Bound only in this run (${n(v.boundOnlyInACount)})`);
    setText($('compare-bb-h'), `Bound only in the second run (${n(v.boundOnlyInBCount)})`);
    list('compare-ba', v.boundOnlyInA.map(([p, node]) => `${p} on ${node}`), v.boundOnlyInACount, 'None.');
    list('compare-bb', v.boundOnlyInB.map(([p, node]) => `${p} on ${node}`), v.boundOnlyInBCount, 'None.');
  }
}
