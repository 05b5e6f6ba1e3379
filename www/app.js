// The page: loads the engine (WebAssembly built from web/ into pkg/), draws what
// it reports, and forwards what the person does. No scheduling logic lives here.
// Paths are relative, so the same files work from the repository root and from dist/.
import init, { Shepherd, engine_version, readQuantity } from '../pkg/shepherd_web.js';
import { $, h, fill, setText, num, memText } from './dom.js';
import {
  CardView, GridView, drawPending, drawPdbs, drawServices, drawUpcoming, drawLegend,
  prependEvents, setSummary, cellColor, FLAG_BEATING, FLAG_READY,
} from './render.js';
import { appColor } from './colors.js';
import { showExplain, showNode, nodeDialogOpen } from './dialogs.js';
import {
  encodeScenario, encodeScenarioNow, decodeScenario, readHash, writeHash, linkHash, withTick, noteHashForReload, takeReloadHash,
} from './link.js';
import { showError, clearErrors, updateReading } from './forms.js';
import { wireProfile, drawProfile, newSim, chosenName } from './profile.js';
import { wireManifests } from './manifests.js';
import { wireKubectl } from './kubectl.js';
import { wireWhatIf } from './whatif.js';
import { placeWithProgress } from './slices.js';
import { wireWorkloads, updateWorkloadNames, selectWorkload } from './workloads.js';
import { ChartsView, drawBalance } from './charts.js';
import { NodeGroupsView, showPodAutoscale, wireAutoscalerForm } from './autoscale.js';
import { PageView } from './view.js';
import { WorkloadTables } from './tables.js';
import { CompareView } from './compare.js';
import { warmEngine } from './warmup.js';
import { wireMenus, closeMenus, openMenuOf } from './menus.js';
import { showProblem, hideProblems } from './problems.js';

// Past this many nodes the page draws one canvas cell per node instead of cards.
const CARDS_UP_TO = 40;
// Cards are never drawn past this many nodes, whatever the view setting.
const CARDS_AT_MOST = 200;
const EVENTS_PER_STEP = 200;

const page = {
  sim: null,
  cursor: 0, // the event log's records shown so far
  eventUpdates: 0, // and the updates (counts moved) seen
  playing: false,
  lastFrame: 0,
  owed: 0,
  scenarioKey: null, // the encoded scenario (without its tick) for the URL
  scenarioDirty: true,
  linkTimer: 0,
  linkIdle: false, // an idle callback that writes the hash is pending
  snap: null,
  grid: false,
  timings: { engine: 0, draw: 0 },
  // The guided tour's last scripted tick: Play stops there. Null when not touring.
  tourEnd: null,
  // After Discard the tour's captions are gone from the page and from exports.
  captionsOff: false,
  // What Undo brings back: the scenario that Reset, the tour, Import or
  // Generate replaced, as exported JSON.
  undo: null,
};

let cards, grid, charts, view, compare, workloads, nodeGroups;

// ----- engine calls ------------------------------------------------------------

function message(err) {
  return err && err.message ? err.message : String(err);
}

// Success only: a short note that fades. Problems go to showProblem (next
// to the control that caused them, www/problems.js) or next to the field
// they are about, and stay until dealt with.
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 5000);
}

function hideProblem() {
  hideProblems();
}

// Runs one action through the engine. On success the page steps once so the
// action fires and shows at once; on refusal the engine's message is shown
// next to the form field it is about (or next to the control pressed:
// www/problems.js) and nothing changed.
// `said(result)` words the success toast when the engine's words are not the
// page's; `fieldOf(message)` picks the field a refusal is about when the
// form's own words do not (forms.js fieldFor).
function act(fn, { form = null, said = null, fieldOf = null } = {}) {
  let result;
  // The control pressed: a refusal, or a note on what the action dropped, is shown beside it.
  const near = document.activeElement;
  try {
    result = fn(page.sim);
  } catch (err) {
    if (form) showError(form, message(err), fieldOf ? fieldOf(message(err)) : undefined);
    else showProblem(message(err), near);
    return false;
  }
  if (form) clearErrors(form);
  hideProblem();
  page.scenarioDirty = true;
  // What the charts recorded past now may no longer happen.
  charts.dropAhead();
  toast(said ? said(result) : result || 'done');
  // Later queued actions (a script's rest, or what was done before Back)
  // that this action made wrong were dropped: say which, until dismissed.
  const dropped = page.sim.droppedNote;
  stepAndDraw(form ? form.querySelector('button') : near);
  if (dropped) showProblem(`Your action changed what comes next: ${dropped}.`, form ? form.querySelector('button') : near);
  return true;
}

// What the node buttons do, in one set of words for buttons, tooltips and toasts.
const NODE_OPS = {
  failNode: (n) => `Stopping the kubelet of ${n}: NotReady after the 50 s grace period, its pods evicted 300 s later`,
  recoverNode: (n) => `Starting the kubelet of ${n}: Ready at its next heartbeat`,
  cordon: (n) => `kubectl cordon ${n}: no new pods; running pods stay`,
  uncordon: (n) => `kubectl uncordon ${n}: schedulable again`,
  drain: (n) => `kubectl drain ${n} --ignore-daemonsets --force: cordoned; evicting the pods on it now as budgets allow, each refused one again after 5 s`,
  removeNode: (n) => `kubectl delete node ${n}: its pods are replaced elsewhere`,
};

function nodeAct(op, name, form = null) {
  return act((sim) => sim[op](name), { form, said: () => (NODE_OPS[op] ? NODE_OPS[op](name) : undefined) });
}

// Asks before something that cannot be stepped back over easily. Resolves to
// true when the person confirmed.
function confirmAction(title, text, ok) {
  const d = $('confirm');
  setText($('confirm-title'), title);
  setText($('confirm-text'), text);
  setText($('confirm-ok'), ok);
  d.returnValue = '';
  const back = document.activeElement;
  d.showModal();
  return new Promise((resolve) => {
    d.addEventListener('close', () => {
      if (back && back.isConnected) back.focus();
      resolve(d.returnValue === 'ok');
    }, { once: true });
  });
}

// The scenario as JSON text, without the tour's captions once they were discarded.
function scenarioJson(sim = page.sim) {
  const json = sim.exportScenario();
  if (!page.captionsOff) return json;
  const doc = JSON.parse(json);
  delete doc.notes;
  return JSON.stringify(doc);
}

function lastScriptTick(sim) {
  const doc = JSON.parse(sim.exportScenario());
  return doc.actions.reduce((m, a) => Math.max(m, a.tick), 0);
}

// Replaces the simulation (tour, reset, import, link, generate).
// `what` names what replaced the run ("The guided tour"): when the old run had
// work in it, the page offers to undo.
function replace(sim, { what = null, tour = false } = {}) {
  const old = page.sim;
  let undo = null;
  if (old && what && (old.tick > 0 || (page.tourEnd === null && old.actionCount > 0))) {
    undo = { json: scenarioJson(old), tick: old.tick, actions: old.actionCount, captionsOff: page.captionsOff, tourEnd: page.tourEnd };
  }
  if (old) old.free();
  page.sim = sim;
  page.tourEnd = tour ? lastScriptTick(sim) : null;
  page.captionsOff = false;
  page.undo = undo;
  if (undo) {
    setText($('undo-text'), `${what} replaced your run (tick ${undo.tick}, ${plural(undo.actions, 'action')}).`);
    $('undo').hidden = false;
  } else {
    $('undo').hidden = true;
  }
  page.cursor = 0;
  page.eventUpdates = 0;
  page.scenarioDirty = true;
  $('events').replaceChildren();
  cards.clear();
  view.clear();
  $('seed').value = String(sim.seed);
  draw();
}

// ----- one tick ----------------------------------------------------------------

function useGrid(nodeCount) {
  const v = $('view').value;
  if (nodeCount > CARDS_AT_MOST) return true;
  if (v === 'grid') return true;
  if (v === 'cards') return false;
  return nodeCount > CARDS_UP_TO;
}

// Steps the engine once and draws; returns { engine, draw } in milliseconds.
// An action refused when it fired is said next to `near` (the control that
// queued it), else under the top bar, by Step.
function stepAndDraw(near = null) {
  const t0 = performance.now();
  const refused = page.sim.step();
  const t1 = performance.now();
  draw();
  const t2 = performance.now();
  page.timings = { engine: t1 - t0, draw: t2 - t1, parts: page.parts };
  if (refused.length) showProblem(`Refused when it fired: ${refused.join(' · ')}`, near || $('btn-step'));
  askIdle();
  if (page.playing && page.tourEnd !== null && page.sim.tick === page.tourEnd) {
    setPlaying(false);
    toast('That is the end of the tour: Play stopped. The cluster is yours now.');
  }
  return page.timings;
}

// The engine's idle work, in the browser's idle time rather than inside a
// tick: the copy of the simulator for Back that a big tick made due, and,
// while paused, the simulator Back will take (the tick before now), so that
// Back does not copy and replay while the person waits. Bounded work per
// call; asked again while some remains.
function askIdle() {
  if (page.idleAsked || !window.requestIdleCallback) return;
  page.idleAsked = true;
  // With a time limit: a browser can go a long while without an idle
  // period (headless Chromium sometimes stops having them at all).
  requestIdleCallback(() => {
    page.idleAsked = false;
    if (page.sim && page.sim.idle(!page.playing)) askIdle();
  }, { timeout: 1000 });
}

// Writes `hidden` only when it changes: a tick should touch only what changed.
function show(el, visible) {
  if (el.hidden === visible) el.hidden = !visible;
}

// Redraws a section only when what it shows changed.
const drawn = new WeakMap();
function once(el, data, paint) {
  const sig = JSON.stringify(data);
  if (drawn.get(el) === sig) return;
  drawn.set(el, sig);
  paint();
}

function draw() {
  const sim = page.sim;
  const t0 = performance.now();
  // Cards or the grid, from the node count now (cards for thousands of
  // nodes would cost seconds); a change of mode redraws everything.
  // Only what changed since the last frame crosses from the engine (view.js).
  const gridMode = useGrid(sim.nodeCount);
  const changes = view.apply(sim.frame(!gridMode, view.snap === null));
  const all = changes.full || gridMode !== page.grid;
  const snap = view.snap;
  page.snap = snap;
  page.grid = gridMode;
  const t1 = performance.now();
  // Colours are handed out in the engine's order of Deployments (creation order).
  for (const a of snap.apps) appColor(a.name);
  // The charts before any element changes: their text drawn on canvases
  // would otherwise make the browser bring the page's style up to date in
  // the middle of the tick (charts.js, paint).
  charts.update(sim);
  const tch0 = performance.now();

  setText($('tick'), snap.tick);
  document.body.dataset.tick = String(snap.tick);
  if ($('btn-back').disabled !== (snap.tick === 0)) $('btn-back').disabled = snap.tick === 0;
  drawProfile(sim);
  setSummary($('cluster-summary'), snap);

  const note = $('note');
  const caption = page.captionsOff ? null : snap.note;
  show(note, !!caption);
  if (caption) setText(note, caption);
  const seedHint = $('seed-hint');
  const typedSeed = $('seed').value.trim();
  const seedDiffers = typedSeed !== '' && typedSeed !== String(snap.seed ?? sim.seed);
  show(seedHint, seedDiffers);
  if (seedDiffers) setText(seedHint, `This run uses seed ${sim.seed}; Reset starts over with seed ${typedSeed}.`);

  show($('empty-hint'), snap.nodeCount === 0);
  if (snap.nodeCount === 0) {
    const hint = page.tourEnd !== null && snap.upcomingCount > 0 ? 'tour' : snap.upcomingCount > 0 ? 'script' : 'empty';
    once($('empty-hint'), hint, () => drawEmptyHint($('empty-hint'), hint));
  }
  show($('nodes'), !gridMode && snap.nodeCount > 0);
  show($('grid-wrap'), gridMode && snap.nodeCount > 0);
  const t2 = performance.now();
  if (gridMode) {
    if (cards.cards.size) cards.clear();
    grid.draw(view.grid, all ? null : changes.grid);
  } else if (all || changes.nodes) {
    cards.draw(snap.nodes);
    updateNodeNames(snap.nodes);
  }
  const t3 = performance.now();
  once($('legend'), [snap.apps.map((a) => a.name), gridMode], () => drawLegend($('legend'), snap.apps, gridMode));
  nodeGroups.update(sim);

  if (all || changes.apps) {
    workloads.update(snap.apps, all ? null : changes.apps);
    updateAppNames(snap.apps);
  }
  show($('apps-empty'), snap.apps.length === 0);
  updatePriorityClassNames();

  if (all || changes.pending || snap.pendingPods !== page.drawnPending) once($('pending'), [snap.pending, snap.pendingPods], () => drawPending($('pending'), snap, { onPod: explain }));
  show($('pending-empty'), snap.pendingPods === 0);
  setText($('pending-h'), snap.pendingPods ? `Pending pods (${num(snap.pendingPods)})` : 'Pending pods');

  if (all || changes.pdbs) once($('pdbs'), snap.pdbs, () => drawPdbs($('pdbs').tBodies[0], snap.pdbs, { onDelete: (n) => act((sim) => sim.deletePdb(n), { said: () => `Deleting PodDisruptionBudget ${n}` }) }));
  show($('pdbs-empty'), snap.pdbs.length === 0);
  if (all || changes.services) once($('services'), snap.services, () => drawServices($('services').tBodies[0], snap.services, { onDelete: (n) => act((sim) => sim.deleteService(n), { said: () => `Deleting Service ${n}` }) }));
  show($('services-empty'), snap.services.length === 0);

  if (all || changes.upcoming || snap.upcomingCount !== page.drawnUpcoming) once($('upcoming'), [snap.upcoming, snap.upcomingCount], () => drawUpcoming($('upcoming'), snap));
  show($('upcoming-empty'), snap.upcomingCount === 0);
  show($('btn-discard'), snap.upcomingCount > 0);

  const tc = performance.now();
  // The balance follows the nodes' figures, the Pending pods and the
  // Deployments' templates: asked for only when one of them changed.
  if (all || changes.grid === null || changes.grid.length || changes.apps || changes.pending || snap.pendingPods !== page.drawnPending) {
    const bal = sim.balance();
    once($('balance'), bal, () => drawBalance($('balance'), bal));
  }
  page.drawnPending = snap.pendingPods;
  page.drawnUpcoming = snap.upcomingCount;
  const tb = performance.now();
  compare.update(sim);
  const t4 = performance.now();
  // At most EVENTS_PER_STEP events a tick cross, and none when none were written.
  let te = t4;
  if (snap.eventCount !== page.cursor || snap.eventUpdates !== page.eventUpdates) {
    const events = sim.eventsPacked(page.cursor, EVENTS_PER_STEP, page.eventUpdates);
    te = performance.now();
    prependEvents($('events'), events);
  }
  page.cursor = snap.eventCount;
  page.eventUpdates = snap.eventUpdates;

  refreshNodeDialog();
  updateZones(all);
  if (!gridMode && changes.nodes) zoneReading();
  scheduleLink();
  const t5 = performance.now();
  // Where the drawing time went, for tests/browser/perf.mjs.
  page.parts = {
    frame: t1 - t0, header: t2 - tch0, nodes: t3 - t2, tables: tc - t3, charts: tch0 - t1, balance: tb - tc,
    compare: t4 - tb, eventsFetch: te - t4, events: t5 - te,
  };
}

// What the Nodes panel says while there are none: the tour (or a script)
// adds them at the next ticks; otherwise, where nodes come from.
function drawEmptyHint(el, hint) {
  if (hint === 'tour') {
    fill(el, 'No nodes yet: the guided tour adds them at tick 1. Press ', h('strong', {}, 'Step ▶'), ' or ', h('strong', {}, 'Play'), ' and read its captions above the nodes.');
  } else if (hint === 'script') {
    fill(el, 'No nodes yet: the actions under ', h('em', {}, 'Coming up'), ' add them. Press ', h('strong', {}, 'Step ▶'), ' or ', h('strong', {}, 'Play'), '.');
  } else {
    fill(el, 'No nodes yet. Add one under ', h('em', {}, 'Actions → Node'), ', generate a big cluster under ', h('em', {}, 'Actions → Big cluster'),
      ', or import manifests or start the ', h('strong', {}, 'Guided tour'), ' from the ', h('em', {}, 'Scenario'), ' menu.');
  }
}

// ----- selects and datalists fed from the snapshot -----------------------------

function sameList(el, names) {
  const cur = el.dataset.names || '';
  const next = names.join('\n');
  if (cur === next) return true;
  el.dataset.names = next;
  return false;
}

function updateNodeNames(nodes) {
  const dl = $('node-names');
  const names = nodes.map((n) => n.name);
  if (sameList(dl, names)) return;
  fill(dl, names.map((n) => h('option', { value: n })));
}

function updateAppNames(apps) {
  updateWorkloadNames(apps);
  const names = apps.filter((a) => a.kind === 'Deployment').map((a) => a.name);
  const sel = $('app-select');
  if (!sameList(sel, names)) {
    const keep = sel.value;
    fill(sel, names.length ? names.map((n) => h('option', { value: n }, n)) : h('option', { value: '' }, '(no Deployments yet)'));
    if (names.includes(keep)) sel.value = keep;
  }
  // Deployments and DaemonSets label their pods app=<name> by default (as
  // suggestions, the first thousand: an import can hold 10,000).
  const selectable = apps.filter((a) => a.kind !== 'Pod').slice(0, 1000).map((a) => a.name);
  const dl = $('selector-names');
  if (!sameList(dl, selectable)) fill(dl, selectable.map((n) => h('option', { value: `app=${n}` })));
}

function updatePriorityClassNames() {
  const dl = $('priority-class-names');
  const names = page.sim.priorityClasses().map((c) => c.name);
  if (!sameList(dl, names)) fill(dl, names.map((n) => h('option', { value: n })));
}

function selectApp(name, kind = 'Deployment') {
  if (kind !== 'Deployment') {
    selectWorkload(name, kind, showTab);
    return;
  }
  showTab('tab-app');
  $('app-select').value = name;
  $('form-app').elements.replicas.focus();
}

// ----- explain and node details ------------------------------------------------

// A pod the scheduler bound opens on the cycle that bound it (replayed
// from the nearest kept copy), with a switch to a cycle run now.
function explain(pod) {
  try {
    const decided = page.sim.explainDecision(pod);
    const show = (mode) => {
      const when = decided && { mode, decided: decided.tick, now: page.sim.tick, onSwitch: show };
      if (decided && mode === 'then') {
        showExplain(decided.explain, decided.tick, page.sim.profile, when);
      } else {
        showExplain(page.sim.explain(pod), page.sim.tick, page.sim.profile, when);
      }
    };
    show('then');
    showPodAutoscale($('explain-autoscale'), page.sim, pod);
  } catch (err) {
    showProblem(message(err));
  }
}

// In the node dialog the card has no "Taints and zone" button: the dialog is where it leads.
const dialogHandlers = { onPod: explain, act: nodeAct };
const cardHandlers = { ...dialogHandlers, onDetails: (name) => openNodeById(page.sim.nodeId(name)) };

function openNodeById(id) {
  try {
    const card = page.sim.node(id);
    const opening = nodeDialogOpen() !== card.name;
    showNode(card, dialogHandlers);
    drawNodeTools(card, opening);
  } catch (err) {
    showProblem(message(err));
  }
}

function refreshNodeDialog() {
  const name = nodeDialogOpen();
  if (!name) return;
  try {
    const card = page.sim.node(page.sim.nodeId(name));
    showNode(card, dialogHandlers);
    drawNodeTools(card, false);
  } catch {
    $('node-dialog').close();
  }
}

// ----- taints and zones (the node dialog's tools) --------------------------------

const ZONE_KEY = 'topology.kubernetes.io/zone';

// A taint as the node card gives it ("key=value:Effect") split into its parts.
function parseTaint(text) {
  const colon = text.lastIndexOf(':');
  const kv = colon < 0 ? text : text.slice(0, colon);
  const eq = kv.indexOf('=');
  return {
    key: eq < 0 ? kv : kv.slice(0, eq),
    value: eq < 0 ? '' : kv.slice(eq + 1),
    effect: colon < 0 ? '' : text.slice(colon + 1),
  };
}

// The zones the nodes carry (one pass over the nodes in the engine).
function zoneList() {
  return page.sim.labelValues(ZONE_KEY);
}

// The dialog's taint list (a remove button per taint) and zone select; the
// forms themselves stay as typed while the page plays.
function drawNodeTools(card, opening) {
  const box = $('node-taints');
  once(box, [card.name, card.taints], () => {
    if (!card.taints.length) {
      box.replaceChildren(h('p', { class: 'summary' }, `${card.name} has no taints.`));
      return;
    }
    box.replaceChildren(h('ul', { 'aria-label': `Taints of ${card.name}` }, card.taints.map((t) => {
      const { key, effect } = parseTaint(t);
      const shown = t.replace(/=:/, ':');
      return h('li', {},
        h('code', {}, shown),
        h('button', {
          type: 'button', class: 'small', dataset: { taint: shown },
          'aria-label': `Remove taint ${shown} from ${card.name}`,
          onclick: () => act((sim) => sim.untaintNode(card.name, key, effect), {
            form: $('form-taint'),
            said: () => `kubectl taint nodes ${card.name} ${key}:${effect}-`,
          }),
        }, 'Remove'));
    })));
  });
  const sel = $('form-fail-zone').elements.zone;
  const list = zoneList();
  if (!sameList(sel, list)) {
    fill(sel, list.length ? list.map((z) => h('option', { value: z }, z)) : h('option', { value: '' }, `(no node has the ${ZONE_KEY} label)`));
  }
  const mine = card.labels[ZONE_KEY];
  if (opening && mine !== undefined) sel.value = mine;
  $('form-fail-zone').querySelector('button').disabled = list.length === 0;
  if (opening) {
    clearErrors($('form-taint'));
    clearErrors($('form-fail-zone'));
  }
}

// Which field a taint refusal is about.
function taintField(msg) {
  const f = $('form-taint').elements;
  if (/effect/i.test(msg)) return f.effect;
  if (/value/i.test(msg)) return f.value;
  if (/key/i.test(msg)) return f.key;
  return undefined;
}

// ----- zones (Actions → Node) ---------------------------------------------------

// The zone select under Actions → Node, filled when the node count changes
// (and when it is focused: a re-registration can change a node's zone).
function updateZones(force = false) {
  const count = page.sim.nodeCount;
  if (!force && page.zonesFor === count) return;
  page.zonesFor = count;
  const sel = $('zone-select');
  const list = zoneList();
  if (!sameList(sel, list)) {
    const keep = sel.value;
    fill(sel, list.length ? list.map((z) => h('option', { value: z }, z)) : h('option', { value: '' }, `(no node has the ${ZONE_KEY} label)`));
    if (list.includes(keep)) sel.value = keep;
  }
  for (const b of $('form-zone').querySelectorAll('button')) b.disabled = list.length === 0;
  zoneReading();
}

// The nodes of `zone`: [{ name, ready, beating }]. Cards carry their labels;
// on the grid a node's labels are read one node at a time, so only the
// nodes that match `only` (grid flags) are read.
function zoneNodes(zone, only = () => true) {
  const out = [];
  const snap = page.snap;
  if (snap && snap.nodes) {
    for (const n of snap.nodes) {
      const node = { name: n.name, ready: n.status === 'Ready', beating: n.beating };
      if (n.labels[ZONE_KEY] === zone && only(node)) out.push(node);
    }
    return out;
  }
  const g = view.grid;
  const stride = Shepherd.gridStride();
  for (let o = 0; o < g.length; o += stride) {
    const flags = g[o + 6];
    const node = { id: g[o], ready: (flags & FLAG_READY) !== 0, beating: (flags & FLAG_BEATING) !== 0 };
    if (!only(node)) continue;
    const n = page.sim.node(node.id);
    if (n.labels[ZONE_KEY] === zone) out.push({ ...node, name: n.name });
  }
  return out;
}

// What the chosen zone holds now, under the select (cards only: on the
// grid, reading every node's labels for a line of text costs too much).
function zoneReading() {
  const zone = $('zone-select').value;
  const out = $('zone-reading');
  if (!zone || !(page.snap && page.snap.nodes)) {
    setText(out, '');
    return;
  }
  const nodes = zoneNodes(zone);
  const notReady = nodes.filter((n) => !n.ready).length;
  const stopped = nodes.filter((n) => !n.beating).length;
  setText(out, `${plural(nodes.length, 'node')}: ${num(nodes.length - notReady)} Ready, ${num(notReady)} NotReady; ${plural(stopped, 'kubelet')} stopped`);
}

function wireZones() {
  const form = $('form-zone');
  const sel = $('zone-select');
  sel.addEventListener('focus', () => updateZones(true));
  sel.addEventListener('change', zoneReading);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const op = e.submitter && e.submitter.value;
    const zone = sel.value;
    if (!zone) {
      showError(form, `No node has the ${ZONE_KEY} label: add one under Add a node (Labels) first.`, sel);
      return;
    }
    if (op === 'fail') {
      act((sim) => sim.failZone(zone), {
        form,
        fieldOf: () => sel,
        said: () => `Zone ${zone} fails: its nodes stop heart-beating and turn NotReady after the 50 s grace period`,
      });
      return;
    }
    // Recovery: the kubelet of every node of the zone that is stopped
    // starts again (one recoverNode each, so the script and the link keep them).
    const stopped = zoneNodes(zone, (n) => !n.beating);
    if (!stopped.length) {
      showError(form, `No node of zone ${zone} has its kubelet stopped; expected a zone that failed (or a node stopped with Stop kubelet)`, sel);
      return;
    }
    act((sim) => {
      for (const n of stopped) sim.recoverNode(n.name);
    }, {
      form,
      fieldOf: () => sel,
      said: () => `Zone ${zone}: starting the kubelets of ${plural(stopped.length, 'node')}; each is Ready at its next heartbeat`,
    });
  });
}

function wireNodeTools() {
  wireZones();
  $('form-taint').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const node = nodeDialogOpen();
    if (!node) return;
    const v = formValues(form);
    const key = v.key.trim();
    const value = v.value.trim();
    act((sim) => sim.taintNode(node, key, value, v.effect), {
      form,
      fieldOf: taintField,
      said: () => `kubectl taint nodes ${node} ${key}${value ? `=${value}` : ''}:${v.effect}`,
    });
  });
  $('form-fail-zone').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const zone = form.elements.zone.value;
    act((sim) => sim.failZone(zone), {
      form,
      fieldOf: () => form.elements.zone,
      said: () => `Zone ${zone} fails: its nodes stop heart-beating and turn NotReady after the timeout`,
    });
  });
}

// Moves to a tick by replaying the script from the seed (as Back does).
function seekTo(tick) {
  setPlaying(false);
  const before = page.sim.tick;
  if (tick === before) return;
  try {
    page.sim.seek(tick);
  } catch (err) {
    showProblem(message(err));
    return;
  }
  if (tick < before) {
    page.cursor = 0;
    page.eventUpdates = 0;
    $('events').replaceChildren();
  }
  draw();
  askIdle();
}

// ----- play / pause ------------------------------------------------------------

function setPlaying(on) {
  page.playing = on;
  const b = $('btn-play');
  b.textContent = on ? 'Pause' : 'Play';
  b.setAttribute('aria-pressed', String(on));
  document.body.dataset.playing = String(on);
  if (on) {
    page.lastFrame = performance.now();
    page.owed = 0;
    requestAnimationFrame(frame);
  } else {
    scheduleLink(true);
    askIdle();
  }
}

function frame(now) {
  if (!page.playing) return;
  const speed = Number($('speed').value);
  page.owed += ((now - page.lastFrame) / 1000) * speed;
  page.lastFrame = now;
  // At most a few ticks per frame: a slow machine falls behind instead of freezing.
  let n = Math.min(4, Math.floor(page.owed));
  // The tour's Play stops at its last scripted tick, not past it.
  if (page.tourEnd !== null && page.sim.tick < page.tourEnd) n = Math.min(n, page.tourEnd - page.sim.tick);
  if (n > 0) {
    page.owed -= n;
    if (n > 1) page.sim.run(n - 1);
    stepAndDraw();
  }
  requestAnimationFrame(frame);
}

// ----- the scenario in the URL -------------------------------------------------

// Updates `#t=..&s=..`, off the ticks' path: `history.replaceState` costs
// Chromium 2-65 ms (more on a busy machine), as much as a whole eviction
// tick at 5,000 nodes. Paused, the hash is written once the page has been
// quiet for LINK_QUIET_MS (a run of steps writes it once, after the last);
// playing, at most once a second; either way in the browser's idle time,
// not in the task after a tick. Copy link writes it at once, and a reload
// right after a tick finds the newest tick (the pagehide handler in start()).
const LINK_QUIET_MS = 250;

function scheduleLink(now = false) {
  // `data-link` says whether the address holds the page as it is now
  // ("written") or a write is due ("pending"): what a test waits for.
  if (document.body.dataset.link !== 'pending') document.body.dataset.link = 'pending';
  if (now || !page.playing) {
    clearTimeout(page.linkTimer);
    page.linkTimer = setTimeout(linkWhenIdle, now ? 0 : LINK_QUIET_MS);
  } else if (!page.linkTimer) {
    page.linkTimer = setTimeout(linkWhenIdle, 1000);
  }
}

function linkWhenIdle() {
  page.linkTimer = 0;
  if (!window.requestIdleCallback) {
    updateLink();
    return;
  }
  if (page.linkIdle) return;
  page.linkIdle = true;
  requestIdleCallback(() => {
    page.linkIdle = false;
    updateLink();
  }, { timeout: 1000 });
}

// The hash for the page as it is now, without waiting: the encoded scenario
// when it is up to date, else the scenario uncompressed.
function linkNow() {
  const sim = page.sim;
  const key = page.scenarioDirty || page.scenarioKey === null ? encodeScenarioNow(withTick(scenarioJson(sim), null)) : page.scenarioKey;
  return linkHash(sim.tick, key);
}

async function updateLink() {
  page.linkTimer = 0;
  const sim = page.sim;
  try {
    if (page.scenarioDirty || page.scenarioKey === null) {
      page.scenarioDirty = false;
      page.scenarioKey = await encodeScenario(withTick(scenarioJson(sim), null));
    }
    if (sim === page.sim) writeHash(sim.tick, page.scenarioKey);
  } catch (err) {
    console.warn('could not write the scenario into the URL:', err);
  }
  // Written, unless another write was scheduled while this one encoded.
  if (!page.linkTimer && !page.linkIdle && sim === page.sim) document.body.dataset.link = 'written';
}

async function fromLink() {
  const { tick, scenario } = readHash();
  if (!scenario) return null;
  const json = await decodeScenario(scenario, Shepherd.maxDocumentBytes());
  return Shepherd.fromScenario(tick === null ? json : withTick(json, tick));
}

// ----- controls ----------------------------------------------------------------

function formValues(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.type === 'submit') continue;
    out[el.name] = el.value;
  }
  return out;
}

function plural(n, word) {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}

// Quantity fields first: the engine reads them as Kubernetes does, and a bad
// one is marked before anything is submitted. Returns false when one was bad.
function quantitiesOk(form) {
  const bad = updateReading(form, readQuantity);
  if (!bad) return true;
  showError(form, bad.message, bad.field);
  return false;
}

function wireReadings() {
  for (const form of document.querySelectorAll('form')) {
    if (!form.querySelector('[data-quantity]')) continue;
    const update = () => updateReading(form, readQuantity);
    form.addEventListener('input', (e) => { if (e.target.dataset.quantity !== undefined) update(); });
    update();
  }
}

function nodeExists(name) {
  try {
    page.sim.nodeId(name);
    return true;
  } catch {
    return false;
  }
}

// Numbers go to the engine as typed text: it checks them and says what is wrong.
function wireForms() {
  $('form-add-node').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const v = formValues(form);
    const name = v.name.trim();
    if (!quantitiesOk(form)) return;
    const body = { name: v.name, cpu: v.cpu, memory: v.memory, labels: v.labels, taints: v.taints };
    // Re-registration is its own action: the kubelet of a registered node
    // comes back with a new body.
    if (e.submitter && e.submitter.value === 'reregister') {
      if (!nodeExists(name)) {
        showError(form, `nodes "${name}" not found; expected the name of a registered node to re-register (Add node registers a new one)`, form.elements.name);
        return;
      }
      act((sim) => sim.reregisterNode(body), { form });
      return;
    }
    // kubectl create refuses a name that exists (AlreadyExists); replacing a
    // node's registration is what Re-register node does.
    if (name && nodeExists(name)) {
      showError(form, `nodes "${name}" already exists; expected a new name (or Re-register node to give it this body)`, form.elements.name);
      return;
    }
    if (act((sim) => sim.addNode(body), { form })) {
      // Suggest the next free name: node-1 -> node-2.
      const m = /^(.*?)(\d+)$/.exec(name);
      if (m) {
        let i = Number(m[2]) + 1;
        while (nodeExists(`${m[1]}${i}`)) i += 1;
        form.elements.name.value = `${m[1]}${i}`;
      }
    }
  });
  $('form-node-ops').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const op = e.submitter && e.submitter.value;
    const node = form.elements.node.value.trim();
    if (!op) return;
    if (op === 'removeNode' && nodeExists(node)) {
      const card = page.sim.node(page.sim.nodeId(node));
      const ok = await confirmAction(`Delete node ${node}?`,
        `Node ${node} is deregistered at the next tick and its ${plural(card.podCount, 'pod')} are replaced elsewhere. Its labels, taints and capacity go with it.`,
        'Delete node');
      if (!ok) return;
    }
    nodeAct(op, node, form);
  });
  $('form-deploy').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    if (!quantitiesOk(form)) return;
    const v = formValues(form);
    act((sim) => sim.deploy({
      namespace: v.namespace, name: v.name, replicas: v.replicas, cpu: v.cpu, memory: v.memory, version: v.version,
      labels: v.labels, nodeSelector: v.nodeSelector, toleration: v.toleration,
      antiAffinity: v.antiAffinity, maxSurge: v.maxSurge, maxUnavailable: v.maxUnavailable,
      minReadySeconds: v.minReadySeconds, progressDeadlineSeconds: v.progressDeadlineSeconds,
      priorityClassName: v.priorityClassName,
    }), { form });
  });
  $('form-priority-class').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const v = formValues(form);
    act((sim) => sim.addPriorityClass({
      name: v.name, value: v.value, preemptionPolicy: v.preemptionPolicy,
      globalDefault: form.elements.globalDefault.checked,
    }), { form, fieldOf: (m) => (/^value /.test(m) ? form.elements.value : form.elements.name) });
  });
  $('form-app').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const op = e.submitter && e.submitter.value;
    const v = formValues(form);
    const app = v.app;
    if (!app) {
      showError(form, 'There is no Deployment yet: create one under Deploy first.', form.elements.app);
      return;
    }
    if (op === 'scale') {
      const n = v.replicas.trim() === '' ? NaN : Number(v.replicas);
      if (!Number.isFinite(n)) {
        showError(form, `replicas "${v.replicas}" is not valid; expected a whole number from 0 (the cluster holds at most 300,000 desired replicas across all Deployments)`, form.elements.replicas);
        return;
      }
      act((sim) => sim.scale(app, n), { form, said: () => `kubectl scale deployment ${app} --replicas=${n}` });
    } else if (op === 'roll') {
      if (!quantitiesOk(form)) return;
      act((sim) => sim.roll(app, { version: v.version, cpu: v.cpu, memory: v.memory }), { form });
    } else if (op === 'rollback') {
      act((sim) => sim.rollback(app), { form, said: () => `kubectl rollout undo deployment ${app}` });
    } else if (op === 'deleteApp') {
      const row = (page.snap.apps || []).find((a) => a.name === app);
      const pods = row ? row.desired : 0;
      const ok = await confirmAction(`Delete Deployment ${app}?`,
        `Deployment ${app} and its ${plural(pods, 'pod')} are deleted at the next tick. To bring it back you would deploy it again.`,
        'Delete Deployment');
      if (!ok) return;
      act((sim) => sim.deleteApp(app), { form, said: () => `kubectl delete deployment ${app}` });
    } else if (op === 'setStrategy') {
      act((sim) => sim.setStrategy(app, v.maxSurge || '25%', v.maxUnavailable || '25%'), { form });
    }
  });
  $('form-pdb').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(e.target);
    act((sim) => sim.addPdb({ namespace: v.namespace, name: v.name, selector: v.selector, [v.kind]: v.value }), { form: e.target });
  });
  $('form-service').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(e.target);
    act((sim) => sim.addService({ namespace: v.namespace, name: v.name, selector: v.selector }), { form: e.target });
  });
  $('form-evict').addEventListener('submit', (e) => {
    e.preventDefault();
    act((sim) => sim.evict(e.target.elements.pod.value.trim()), { form: e.target });
  });
  $('form-generate').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const v = formValues(form);
    const nodes = v.nodes.trim() === '' ? NaN : Number(v.nodes);
    const per = v.podsPerNode.trim() === '' ? NaN : Number(v.podsPerNode);
    let fresh;
    try {
      fresh = newSim(page.sim.seed);
      fresh.generate(nodes, per);
    } catch (err) {
      if (fresh) fresh.free();
      showError(form, message(err));
      return;
    }
    clearErrors(form);
    setPlaying(false);
    toast(`Generating ${plural(nodes, 'node')} and ${plural(nodes * per, 'pod')}…`);
    // The first tick places every pod: in slices on the new run, with a
    // progress bar when it takes more than one (www/slices.js); the page
    // shows the old run until it is done, and Cancel keeps it.
    const started = performance.now();
    placeWithProgress(fresh, `Placing ${plural(nodes * per, 'pod')} on ${plural(nodes, 'node')}`).then((r) => {
      if (!r) {
        fresh.free();
        toast('Generate cancelled; nothing changed');
        return;
      }
      const t0 = performance.now();
      replace(fresh, { what: 'Generate' });
      page.timings = { engine: r.engineMs, draw: performance.now() - t0, parts: page.parts, slices: r.slices, longestSlice: r.longestMs, wallMs: performance.now() - started };
      if (r.refused.length) showProblem(`Refused when it fired: ${r.refused.join(' · ')}`, form.querySelector('button'));
      askIdle();
      toast(`Generated ${plural(nodes, 'node')} and ${plural(nodes * per, 'pod')}; the first tick placed them in ${r.engineMs.toFixed(0)} ms${r.slices > 1 ? ` of engine time, in ${r.slices} slices` : ''}`);
    }, (err) => {
      fresh.free();
      showError(form, message(err));
    });
  });
  wireWorkloads({ act, confirmAction, quantitiesOk, plural, snapshot: () => page.snap || {} });
  wireReadings();
}

function showTab(id) {
  for (const tab of document.querySelectorAll('.tabs [role=tab]')) {
    const on = tab.id === id;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(tab.getAttribute('aria-controls')).hidden = !on;
  }
}

function wireTabs() {
  const tabs = [...document.querySelectorAll('.tabs [role=tab]')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => showTab(tab.id));
    tab.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(tab);
      let j = null;
      if (e.key === 'ArrowRight') j = (i + 1) % tabs.length;
      else if (e.key === 'ArrowLeft') j = (i - 1 + tabs.length) % tabs.length;
      else if (e.key === 'Home') j = 0;
      else if (e.key === 'End') j = tabs.length - 1;
      if (j !== null) {
        e.preventDefault();
        showTab(tabs[j].id);
        tabs[j].focus();
      }
    });
  }
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Scripted actions that were refused when they fired during a replay,
// [{tick, message}] (a refused API call is no Kubernetes Event: the engine
// keeps them apart from the event log).
function refusedDuringReplay(sim) {
  return sim.refusedActions(20000);
}

// The seed typed beside Reset, or null once its problem is shown next to
// it (the Scenario menu open again, focus on the field).
function seedField() {
  const el = $('seed');
  const form = $('form-reset');
  const text = el.value.trim();
  const seed = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(seed)) {
    openMenuOf(el);
    showError(form, `Seed "${text}" is not valid; expected a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`, el);
    return null;
  }
  clearErrors(form);
  return seed;
}

function wireControls() {
  $('btn-step').addEventListener('click', () => stepAndDraw());
  $('btn-play').addEventListener('click', () => setPlaying(!page.playing));
  $('btn-skip').addEventListener('click', () => {
    setPlaying(false);
    const from = page.sim.tick;
    page.sim.skipQuiet();
    draw();
    const ran = page.sim.tick - from;
    toast(ran > 1 ? `Skipped ${ran - 1} quiet ${ran === 2 ? 'second' : 'seconds'} to tick ${page.sim.tick}` : `Tick ${page.sim.tick}`);
  });
  $('btn-back').addEventListener('click', () => {
    setPlaying(false);
    const t0 = performance.now();
    try {
      page.sim.stepBack();
    } catch (err) {
      showProblem(message(err), $('btn-back'));
      return;
    }
    const t1 = performance.now();
    page.cursor = 0;
    page.eventUpdates = 0;
    $('events').replaceChildren();
    draw();
    page.backTimings = { engine: t1 - t0, draw: performance.now() - t1 };
    askIdle();
  });
  $('form-reset').addEventListener('submit', (e) => {
    e.preventDefault();
    setPlaying(false);
    const seed = seedField();
    if (seed === null) return;
    closeMenus($('btn-reset'));
    try {
      replace(newSim(seed), { what: 'Reset' });
      hideProblem();
      toast(`An empty cluster at tick 0, seed ${seed}, scheduler profile ${chosenName()}`);
    } catch (err) {
      showProblem(message(err), $('menu-scenario-btn'));
    }
  });
  $('btn-tour').addEventListener('click', () => {
    setPlaying(false);
    replace(Shepherd.tour(), { what: 'The guided tour', tour: true });
    hideProblem();
    toast('The guided tour: press Step or Play');
  });
  $('btn-undo').addEventListener('click', () => {
    const u = page.undo;
    if (!u) return;
    let sim;
    try {
      sim = Shepherd.fromScenario(u.json);
    } catch (err) {
      showProblem(`Could not undo: ${message(err)}`);
      return;
    }
    setPlaying(false);
    replace(sim);
    page.tourEnd = u.tourEnd;
    page.captionsOff = u.captionsOff;
    draw();
    toast(`Back to your run at tick ${u.tick}`);
    $('btn-step').focus();
  });
  $('btn-undo-close').addEventListener('click', () => {
    $('undo').hidden = true;
    page.undo = null;
    $('btn-step').focus();
  });
  $('btn-alert-close').addEventListener('click', () => {
    hideProblem();
    $('btn-step').focus();
  });
  $('seed').addEventListener('input', () => draw());
  // Skip links move focus without touching the URL, which holds the scenario.
  for (const link of document.querySelectorAll('a.skip')) {
    link.addEventListener('click', (e) => {
      e.preventDefault();
      const target = document.querySelector(link.getAttribute('href'));
      if (target) target.focus();
    });
  }
  $('btn-discard').addEventListener('click', () => {
    try {
      const n = page.sim.discardUpcoming();
      page.scenarioDirty = true;
      charts.dropAhead();
      // The tour's story no longer happens: its caption goes, and Play no
      // longer stops at its end.
      page.captionsOff = true;
      page.tourEnd = null;
      toast(`Dropped ${plural(n, 'scripted action')}: from here on, only what you do happens`);
      draw();
      // The button is gone now: keep focus in the panel it was in.
      $('upcoming-empty').focus();
    } catch (err) {
      showProblem(message(err));
    }
  });
  $('view').addEventListener('change', () => draw());
  $('warnings-only').addEventListener('change', (e) => $('events').classList.toggle('warnings-only', e.target.checked));

  $('btn-export').addEventListener('click', () => {
    const sim = page.sim;
    download(`shepherd-seed${sim.seed}-tick${sim.tick}.json`, scenarioJson(sim));
    toast('Scenario exported');
  });
  $('btn-link').addEventListener('click', async () => {
    await updateLink();
    let copied = false;
    try {
      await navigator.clipboard.writeText(location.href);
      copied = true;
    } catch {
      copied = false;
    }
    toast(copied
      ? 'Link copied: it reproduces this page at this tick'
      : 'The browser did not allow copying: the link is in the address bar, and it reproduces this page at this tick');
  });

  // Keyboard: space plays/pauses, right arrow steps, left arrow steps back,
  // unless typing in a field.
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || (t && (t.closest('input, select, textarea, button, canvas, dialog')))) return;
    if (e.key === ' ') { e.preventDefault(); setPlaying(!page.playing); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); stepAndDraw(); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); $('btn-back').click(); }
  });
}

function wireGrid() {
  const canvas = $('grid');
  const info = h('p', { class: 'grid-info summary', id: 'grid-info', 'aria-live': 'polite' });
  canvas.parentElement.insertBefore(info, canvas.nextSibling);
  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    return grid.indexAt(e.clientX - r.left, e.clientY - r.top);
  };
  const describe = (i) => {
    const id = grid.idAt(i);
    if (id < 0) return;
    try {
      const n = page.sim.node(id);
      setText(info, `${n.name} · ${n.status}${n.cordoned ? ' · SchedulingDisabled' : ''} · ${plural(n.podCount, 'pod')} · CPU ${n.cpu.used}/${n.cpu.capacity}m · memory ${memText(n.memory.used)}/${memText(n.memory.capacity)} — click or press Enter for details`);
    } catch { /* the node went away */ }
  };
  canvas.addEventListener('mousemove', (e) => describe(at(e)));
  canvas.addEventListener('click', (e) => {
    const i = at(e);
    if (i >= 0) {
      grid.focus = i;
      openNodeById(grid.idAt(i));
    }
  });
  canvas.addEventListener('focus', () => { describe(grid.focus); grid.draw(grid.data); });
  canvas.addEventListener('blur', () => grid.draw(grid.data));
  canvas.addEventListener('keydown', (e) => {
    const { cols, n } = grid.layout;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols };
    if (e.key in moves) {
      e.preventDefault();
      grid.focus = Math.max(0, Math.min(n - 1, grid.focus + moves[e.key]));
      grid.draw(grid.data);
      describe(grid.focus);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openNodeById(grid.idAt(grid.focus));
    }
  });
  $('find-node').addEventListener('submit', (e) => {
    e.preventDefault();
    try {
      openNodeById(page.sim.nodeId($('find-node-name').value.trim()));
      clearErrors($('find-node'));
    } catch (err) {
      showError($('find-node'), message(err), $('find-node-name'));
    }
  });
  grid.onResize = () => { if (page.grid) grid.draw(view.grid); };
}

// ----- start -------------------------------------------------------------------

function kib(bytes) {
  return bytes > 0 ? `${(bytes / 1024).toFixed(0)} KiB` : 'size unknown';
}

async function start() {
  const t0 = performance.now();
  const engine = await init(); // fetches ../pkg/shepherd_web_bg.wasm relative to the module's own URL
  const ms = performance.now() - t0;
  const version = engine_version();

  cards = new CardView($('nodes'), cardHandlers);
  grid = new GridView($('grid'), Shepherd.gridStride());
  view = new PageView(Shepherd.gridStride());
  workloads = new WorkloadTables($('workloads'), { onApp: (name, kind) => selectApp(name, kind) });
  wireMenus();
  wireTabs();
  wireForms();
  wireControls();
  wireGrid();
  wireNodeTools();
  const openNodeGroups = wireAutoscalerForm({ sim: () => page.sim, act });
  $('btn-node-groups').addEventListener('click', openNodeGroups);
  nodeGroups = new NodeGroupsView($('node-groups'), { onEdit: openNodeGroups });
  charts = new ChartsView($('charts-panel'), { onSeek: seekTo });
  compare = new CompareView($('compare-panel'), { onPod: explain });
  wireProfile({ sim: () => page.sim, act, toast });
  wireKubectl({ sim: () => page.sim, act });
  wireWhatIf({
    sim: () => page.sim,
    deployments: () => (view.snap ? view.snap.apps.filter((a) => a.kind === 'Deployment').map((a) => a.name) : []),
  });
  wireManifests({ Shepherd, sim: () => page.sim, replace, toast, showProblem, hideProblem, setPlaying, download, refusedDuringReplay, plural, act });

  // A reload right after a tick, before the hash was written: the tick the
  // page was at (link.js, takeReloadHash).
  takeReloadHash();
  window.addEventListener('pagehide', () => {
    try {
      if (page.sim) noteHashForReload(linkNow());
    } catch (err) {
      // Leaving the page: the address keeps the tick last written.
      console.warn('could not note the address for a reload:', err);
    }
  });
  let sim = null;
  try {
    sim = await fromLink();
  } catch (err) {
    showProblem(`The link's scenario could not be loaded: ${message(err)}. Starting the guided tour instead.`);
  }
  const fromUrl = sim !== null;
  if (sim) replace(sim);
  else replace(Shepherd.tour(), { tour: true });

  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
  setText($('status'), `Shepherd engine ${version} is running in this page`);
  setText($('engine-facts'), ` · WebAssembly, ${kib(wasm ? (wasm.decodedBodySize || wasm.encodedBodySize) : 0)}, started in ${ms.toFixed(0)} ms · nothing leaves the page`);
  document.body.dataset.engine = 'ready';
  document.body.dataset.engineVersion = version;
  // The optimised code for a big cluster, ready before anyone asks for one.
  warmEngine(Shepherd);
  document.body.dataset.from = fromUrl ? 'link' : 'tour';

  // For the browser tests and for measuring: one tick, engine and drawing timed apart.
  window.shepherdPage = {
    get sim() { return page.sim; },
    stepAndDraw,
    draw,
    get grid() { return page.grid; },
    // The page's copy of the engine's view, kept by frames (view.js).
    get view() { return view; },
    gridView: () => grid,
    // The WebAssembly memory in bytes: the engine's whole state.
    get wasmBytes() { return engine.memory.buffer.byteLength; },
    get lastTimings() { return page.timings; },
    // The last Back: the engine's part (Shepherd.stepBack) and the redraw.
    get lastBack() { return page.backTimings; },
    get gridLayout() { return grid.layout; },
    seekTo,
    get charts() { return charts; },
    get compare() { return compare; },
    cellColor,
  };
}

start().catch((err) => {
  const hint = location.protocol === 'file:'
    ? ' Browsers do not load WebAssembly from file:// pages: serve this folder over HTTP (scripts/serve.sh).'
    : '';
  const s = $('status');
  s.textContent = `The engine failed to load: ${message(err)}.${hint}`;
  s.classList.add('error');
  document.body.dataset.engine = 'error';
  console.error(err);
});
