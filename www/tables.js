// The workloads, a table per kind as `kubectl get deployments`,
// `kubectl get daemonsets` and `kubectl get pods` show them (bare Pods
// only: a Deployment's or a DaemonSet's pods are counted in its row), plus
// what the simulation adds (Pending, the template, the rollout). Each table
// shows one page of rows (PAGE_ROWS), with a name filter and a pager once a
// kind has more, so 10,000 Deployments stay as quick and readable as ten.
// Nothing here decides anything about the cluster.
import { h, fill, setText, cpuText, memText, num } from './dom.js';
import { appColor } from './colors.js';

// The most rows a table draws at once: a page.
export const PAGE_ROWS = 50;

// The kinds, in the order their tables appear; `id` is the table's id.
// A kind the engine reports that is not listed here gets a table of its
// own with the Deployment's columns (KINDS_OTHER).
export const KINDS = [
  { kind: 'Deployment', id: 'apps', title: 'Deployments', command: 'kubectl get deployments', where: 'Change Deployment' },
  { kind: 'DaemonSet', id: 'daemonsets', title: 'DaemonSets', command: 'kubectl get daemonsets', where: 'DaemonSet & Pod' },
  { kind: 'Pod', id: 'bare-pods', title: 'Pods that no controller owns', command: 'kubectl get pods', where: 'DaemonSet & Pod' },
];

// ----- cells -------------------------------------------------------------------

// NAMESPACE/NAME may break after the slash in a narrow column.
function nameText(name) {
  const slash = name.indexOf('/');
  return slash < 0 ? [name] : [name.slice(0, slash + 1), h('wbr'), name.slice(slash + 1)];
}

function nameCell(a, onApp, where) {
  return h('th', { scope: 'row', dataset: { col: 'name' } },
    h('button', { type: 'button', class: 'link app-name', style: { '--c': appColor(a.name) }, title: `Select in Actions → ${where}`, onclick: () => onApp(a.name, a.kind) },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }), h('span', {}, nameText(a.name))));
}

// A short cell (a count, a word): its text and class, which a row patches
// in place. `numeric`: right-aligned, heading too.
function count(col, text, cls, numeric = true) {
  return {
    col,
    numeric,
    key: (a) => `${cls(a)}\u001f${text(a)}`,
    build: (a) => h('td', { class: cls(a), dataset: { col } }, text(a)),
    patch: (td, a) => {
      const c = cls(a);
      if (td.className !== c) td.className = c;
      td.textContent = text(a);
    },
  };
}

const plainNum = () => 'num';
const warnIf = (bad) => (a) => `num${bad(a) ? ' warn-text' : ''}`;

const TEMPLATE = {
  col: 'template',
  key: (a) => `${a.version}\u001f${a.revision}\u001f${a.cpu}\u001f${a.memory}`,
  build: (a) => h('td', { class: 'template', dataset: { col: 'template' } }, h('strong', {}, a.version), h('span', { class: 'muted' }, ` rev ${a.revision}`), h('br'), h('span', { class: 'muted' }, `${cpuText(a.cpu)} · ${memText(a.memory)}`)),
};

function rolloutState(a) {
  const progress = a.desired > 0 ? Math.min(100, (100 * a.updated) / a.desired) : 100;
  if (a.deadlineExceeded) {
    return h('span', { class: 'warn-text', title: 'Progressing=False: no progress for progressDeadlineSeconds' }, 'ProgressDeadlineExceeded');
  }
  if (a.rolling) {
    return h('div', { class: 'rollout' },
      h('div', { class: 'bar small', role: 'progressbar', 'aria-label': `rollout of ${a.name}`, 'aria-valuemin': 0, 'aria-valuemax': a.desired, 'aria-valuenow': a.updated },
        h('span', { style: { width: `${progress}%` } })),
      h('span', {}, `Rolling to ${a.version}: ${a.updated}/${a.desired} updated`));
  }
  if (a.strategy === 'OnDelete' && a.updated < a.current) {
    // OnDelete: old pods stay until someone deletes them.
    return h('span', { class: 'muted', title: 'updateStrategy OnDelete: a pod is replaced when it is deleted or evicted' }, `${a.current - a.updated} on the old template`);
  }
  // Admission forbade its pods (FailedCreate): the reason shows, the
  // message is the title.
  if (a.failure) return h('span', { class: 'warn-text', title: a.failure }, a.failure.slice(0, a.failure.indexOf(':')));
  if (a.pending > 0) return h('span', { class: 'warn-text', title: a.pendingReason || '' }, `${a.pending} Pending`);
  if (a.available === a.desired) return h('span', { class: 'ok-text' }, 'Complete');
  return h('span', { class: 'muted' }, 'Progressing');
}

// The rollout's state, and under it what `kubectl rollout status` prints.
const ROLLOUT = {
  col: 'rollout',
  key: (a) => [a.deadlineExceeded, a.rolling, a.version, a.updated, a.desired, a.strategy, a.current, a.pending, a.pendingReason, a.available, a.failure, a.rolloutStatus].join('\u001f'),
  build: (a) => h('td', { class: 'rollout-cell', dataset: { col: 'rollout' } }, rolloutState(a),
    h('div', { class: `rollout-status ${a.deadlineExceeded ? 'warn-text' : 'muted'}` }, a.rolloutStatus)),
};

// A bare Pod's STATUS, as kubectl get pods words it for what the simulation knows.
function podStatus(a) {
  // Its kubelet refused it (OutOfcpu...): kubectl shows the reason.
  if (a.failure) return a.failure.slice(0, a.failure.indexOf(':'));
  if (a.pending > 0) return 'Pending';
  return a.current > 0 ? 'Running' : 'Pending';
}

// Each kind's columns: heading, its title (what the figure is), and the cell.
// "Up‑to‑date" is written with non-breaking hyphens: kubectl's UP-TO-DATE
// is one word, not three lines.
const COLUMNS = {
  Deployment: [
    ['Ready', 'Ready pods / spec.replicas', count('ready', (a) => `${a.ready}/${a.desired}`, warnIf((a) => a.ready < a.desired))],
    ['Up‑to‑date', 'Pods of the current revision', count('updated', (a) => String(a.updated), plainNum)],
    ['Available', 'Pods Ready for at least the Deployment\'s minReadySeconds', count('available', (a) => String(a.available), plainNum)],
    ['Pending', 'Pods the scheduler could not place yet', count('pending', (a) => String(a.pending), warnIf((a) => a.pending > 0))],
    ['Template', 'The current pod template: version, revision, and requests per pod', TEMPLATE],
    ['Strategy', 'RollingUpdate: maxSurge / maxUnavailable', { col: 'strategy', key: (a) => `${a.maxSurge}\u001f${a.maxUnavailable}`, build: (a) => h('td', { class: 'muted nowrap', dataset: { col: 'strategy' } }, `${a.maxSurge} / ${a.maxUnavailable}`) }],
    ['Rollout', 'The rollout, and what kubectl rollout status prints', ROLLOUT],
  ],
  DaemonSet: [
    ['Desired', 'status.desiredNumberScheduled: the nodes that should run its pod', count('desired', (a) => String(a.desired), plainNum)],
    ['Current', 'status.currentNumberScheduled: the nodes that run its pod', count('current', (a) => String(a.current), plainNum)],
    ['Ready', 'status.numberReady', count('ready', (a) => String(a.ready), warnIf((a) => a.ready < a.desired))],
    ['Up‑to‑date', 'status.updatedNumberScheduled: pods of the current template', count('updated', (a) => String(a.updated), plainNum)],
    ['Available', 'status.numberAvailable: Ready for at least minReadySeconds', count('available', (a) => String(a.available), plainNum)],
    ['Pending', 'Pods the scheduler could not place yet', count('pending', (a) => String(a.pending), warnIf((a) => a.pending > 0))],
    ['Template', 'The current pod template: version, revision, and requests per pod', TEMPLATE],
    ['Strategy', 'updateStrategy: OnDelete, or RollingUpdate\'s maxSurge / maxUnavailable', { col: 'strategy', key: (a) => a.strategy || '', build: (a) => h('td', { class: 'muted nowrap', dataset: { col: 'strategy' } }, a.strategy || `${a.maxSurge} / ${a.maxUnavailable}`) }],
    ['Rollout', 'The rollout, and what kubectl rollout status prints', ROLLOUT],
  ],
  Pod: [
    ['Ready', 'Ready containers / containers', count('ready', (a) => `${a.ready}/${a.desired}`, warnIf((a) => a.ready < a.desired))],
    ['Status', 'Pending until a node runs it, then Running', count('status', podStatus, (a) => (podStatus(a) !== 'Running' ? 'warn-text' : ''), false)],
    ['Requests', 'CPU and memory requested', { col: 'requests', key: (a) => `${a.cpu}\u001f${a.memory}`, build: (a) => h('td', { class: 'nowrap', dataset: { col: 'requests' } }, `${cpuText(a.cpu)} · ${memText(a.memory)}`) }],
    ['Scheduling', 'The scheduler\'s FailedScheduling message while it is Pending', { col: 'reason', key: (a) => (a.pending ? a.pendingReason || '' : ''), build: (a) => h('td', { class: 'muted', dataset: { col: 'reason' } }, a.pending ? a.pendingReason || 'waiting for the scheduler' : '—') }],
  ],
};

function columnsOf(kind) {
  return COLUMNS[kind] || COLUMNS.Deployment;
}

// ----- rows --------------------------------------------------------------------

const rowKeys = new WeakMap();

function rowKeysOf(a, cols) {
  return [`${a.name}\u001f${a.kind}`, ...cols.map(([, , c]) => c.key(a))];
}

function row(a, cols, onApp, where) {
  const tr = h('tr', { dataset: { app: a.name, kind: a.kind } }, nameCell(a, onApp, where), cols.map(([, , c]) => c.build(a)));
  rowKeys.set(tr, rowKeysOf(a, cols));
  return tr;
}

// Builds a kind's rows from scratch (the tests compare a table kept by
// patches with this).
export function drawRows(tbody, kind, apps, onApp = () => {}) {
  const spec = KINDS.find((k) => k.kind === kind);
  const cols = columnsOf(kind);
  fill(tbody, apps.map((a) => row(a, cols, onApp, spec ? spec.where : 'Change Deployment')));
}

// Brings a drawn row up to `a`: only the cells whose content changed are
// touched (an eviction changes every row's counts, rarely its template).
function patchRow(tr, a, cols, onApp, where) {
  const was = rowKeys.get(tr);
  const keys = rowKeysOf(a, cols);
  if (!was || was[0] !== keys[0]) {
    tr.replaceWith(row(a, cols, onApp, where));
    return;
  }
  for (let j = 0; j < cols.length; j++) {
    if (was[j + 1] === keys[j + 1]) continue;
    const c = cols[j][2];
    const td = tr.cells[j + 1];
    if (c.patch) c.patch(td, a);
    else td.replaceWith(c.build(a));
  }
  rowKeys.set(tr, keys);
}

// ----- the tables ----------------------------------------------------------------

class KindTable {
  constructor(root, spec, onApp) {
    this.spec = spec;
    this.onApp = onApp;
    this.cols = columnsOf(spec.kind);
    this.page = 0;
    this.filter = '';
    this.positions = []; // positions in the engine's list of this kind's rows (after the filter)
    this.total = 0;
    this.shown = []; // the positions drawn, in order
    const titleId = `${spec.id}-title`;
    this.heading = h('h3', { id: titleId, class: 'kind-h' }, spec.title);
    this.count = h('span', { class: 'kind-count muted' });
    this.heading.append(' ', this.count);
    this.table = h('table', { id: spec.id, class: 'apps', 'aria-labelledby': titleId, dataset: { kind: spec.kind } },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Name'),
        this.cols.map(([label, title, c]) => h('th', { scope: 'col', title, class: c.numeric ? 'num' : null }, label)))),
      h('tbody'));
    this.find = h('input', { type: 'search', autocomplete: 'off', spellcheck: 'false', placeholder: 'web', 'aria-controls': spec.id });
    this.prev = h('button', { type: 'button', class: 'small', 'aria-controls': spec.id, onclick: () => this.turn(-1) }, '◀ Previous');
    this.next = h('button', { type: 'button', class: 'small', 'aria-controls': spec.id, onclick: () => this.turn(1) }, 'Next ▶');
    this.rows = h('span', { class: 'summary', 'aria-live': 'polite' });
    this.pager = h('div', { class: 'pager', hidden: '' },
      h('label', { class: 'inline small' }, 'Name has ', this.find), this.prev, this.rows, this.next);
    this.find.addEventListener('input', () => {
      this.filter = this.find.value.trim().toLowerCase();
      this.page = 0;
      this.dirty = true;
      if (this.redraw) this.redraw();
    });
    this.el = h('div', { class: 'workload', dataset: { kind: spec.kind }, hidden: '' },
      this.heading,
      h('p', { class: 'summary' }, 'As ', h('code', {}, spec.command), spec.kind === 'Pod' ? ' lists them: Pods created on their own, that nobody recreates.' : ' lists them, with what the simulation adds.'),
      this.pager,
      h('div', { class: 'table-wrap' }, this.table));
    root.append(this.el);
    this.dirty = true;
  }

  turn(d) {
    this.page += d;
    this.dirty = true;
    if (this.redraw) this.redraw();
  }

  // `all`: the engine's list; `mine`: the positions of this kind's rows in
  // it; `changed`: the positions that changed since the last frame (null:
  // every one); `indexChanged`: `mine` is new.
  update(all, mine, changed, indexChanged) {
    if (indexChanged || this.dirty) {
      const f = this.filter;
      this.positions = f ? mine.filter((i) => all[i].name.toLowerCase().includes(f)) : mine;
      this.total = mine.length;
    }
    const pages = Math.max(1, Math.ceil(this.positions.length / PAGE_ROWS));
    if (this.page > pages - 1) {
      this.page = pages - 1;
      this.dirty = true;
    }
    const from = this.page * PAGE_ROWS;
    const next = this.positions.slice(from, from + PAGE_ROWS);
    const tbody = this.table.tBodies[0];
    const same = !this.dirty && !indexChanged && changed !== null && next.length === this.shown.length && next.every((p, k) => p === this.shown[k]);
    this.dirty = false;
    if (!same) {
      this.shown = next;
      fill(tbody, next.map((i) => row(all[i], this.cols, this.onApp, this.spec.where)));
    } else if (changed.length) {
      // Only the visible rows that changed.
      const at = new Map(next.map((p, k) => [p, k]));
      for (const i of changed) {
        const k = at.get(i);
        if (k !== undefined) patchRow(tbody.rows[k], all[i], this.cols, this.onApp, this.spec.where);
      }
    }
    this.el.hidden = this.total === 0;
    setText(this.count, `(${num(this.total)})`);
    const paged = this.total > PAGE_ROWS;
    if (this.pager.hidden === paged) this.pager.hidden = !paged;
    if (paged) {
      const n = this.positions.length;
      setText(this.rows, n
        ? `Rows ${num(from + 1)}–${num(from + next.length)} of ${num(n)}${n < this.total ? ` (of ${num(this.total)})` : ''}`
        : `No name has "${this.filter}"`);
      this.prev.disabled = this.page === 0;
      this.next.disabled = this.page >= pages - 1;
    }
  }
}

// Every kind's table, in one panel. `onApp(name, kind)`: a name was clicked.
export class WorkloadTables {
  constructor(root, { onApp }) {
    this.root = root;
    this.onApp = onApp;
    this.tables = new Map(KINDS.map((k) => [k.kind, new KindTable(root, k, onApp)]));
    this.kinds = []; // the kind and name drawn at each position
    this.names = [];
    this.last = null;
    for (const t of this.tables.values()) t.redraw = () => this.redraw(t);
  }

  // One table again (its page or filter changed), from the last list.
  redraw(t) {
    if (!this.last) return;
    t.update(this.last, this.byKind.get(t.spec.kind) || [], null, false);
  }

  // `apps`: the engine's list (every kind, creation order); `changed`: the
  // positions that changed, or null when the whole list is new.
  update(apps, changed) {
    this.last = apps;
    let indexChanged = changed === null || apps.length !== this.kinds.length;
    if (!indexChanged) {
      for (const i of changed) {
        if (this.kinds[i] !== apps[i].kind || this.names[i] !== apps[i].name) {
          indexChanged = true;
          break;
        }
      }
    }
    if (indexChanged) {
      this.kinds = apps.map((a) => a.kind);
      this.names = apps.map((a) => a.name);
      this.byKind = new Map();
      apps.forEach((a, i) => {
        if (!this.byKind.has(a.kind)) this.byKind.set(a.kind, []);
        this.byKind.get(a.kind).push(i);
      });
      for (const kind of this.byKind.keys()) {
        if (!this.tables.has(kind)) {
          const t = new KindTable(this.root, { kind, id: `kind-${kind.toLowerCase()}`, title: `${kind}s`, command: `kubectl get ${kind.toLowerCase()}s`, where: 'Change Deployment' }, this.onApp);
          t.redraw = () => this.redraw(t);
          this.tables.set(kind, t);
        }
      }
    }
    for (const [kind, t] of this.tables) t.update(apps, this.byKind.get(kind) || [], changed, indexChanged);
  }
}
