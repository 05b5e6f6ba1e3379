// The page keeps its own copy of the engine's view, brought up to date each
// tick by frames that carry only what changed (Shepherd.frame, www/view.js),
// and redraws only the grid cells and table rows that changed. Speed must not
// buy a wrong picture: after every random action (add, stop, start and remove
// nodes, deploy, scale, cordon, step, Back, a change of view between cards
// and grid; DaemonSets, some preempting, and bare Pods created, changed and
// deleted) the copy must equal a full snapshot of the same state, the grid
// canvas must equal a full redraw pixel for pixel, the Deployments table
// must equal one drawn from scratch, and the event log must show the
// engine's newest events as eventsSince gives them.
//
//   SHEPHERD_SEED=n  replays one run; SHEPHERD_FUZZ_OPS=n sets its length (default 60).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, waitForEngine, resetEmpty } from './harness.mjs';

const OPS = Number(process.env.SHEPHERD_FUZZ_OPS || 60);
const SEED = Number(process.env.SHEPHERD_SEED || Math.floor(Math.random() * 2 ** 31));

// mulberry32: a small seeded PRNG, so a failing run can be replayed.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Compares, inside the page, the frame-kept copy with a full snapshot, and
// the drawing with a drawing from scratch. Returns the differences in words.
async function differences(page) {
  return page.evaluate(async () => {
    const p = window.shepherdPage;
    const out = [];
    // Keys sorted, so that the order fields arrived in does not matter.
    const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
    const cards = !p.grid;
    const full = p.sim.snapshot(cards);
    const mine = p.view.snap;
    for (const k of Object.keys(full)) {
      if (canon(full[k]) !== canon(mine[k])) out.push(`${k}: the page holds ${canon(mine[k]).slice(0, 300)}, a snapshot says ${canon(full[k]).slice(0, 300)}`);
    }
    const grid = Array.from(p.sim.nodeGrid());
    if (canon(grid) !== canon(Array.from(p.view.grid))) out.push(`grid: the page holds ${p.view.grid.length / 7} cells, the engine ${grid.length / 7}, or their figures differ`);
    if (p.grid && full.nodeCount > 0) {
      const canvas = document.getElementById('grid');
      const ctx = canvas.getContext('2d');
      const kept = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      const g = p.gridView();
      g.draw(g.data);
      const fresh = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let bad = 0;
      for (let i = 0; i < fresh.length; i++) if (fresh[i] !== kept[i]) bad++;
      if (bad) out.push(`grid canvas: ${bad} channel values differ from a full redraw`);
    }
    // Each kind's table (www/tables.js), its first page.
    const { drawRows, KINDS, PAGE_ROWS } = await import('./www/tables.js');
    for (const { kind, id } of KINDS) {
      const scratch = document.createElement('tbody');
      drawRows(scratch, kind, full.apps.filter((a) => a.kind === kind).slice(0, PAGE_ROWS));
      const shown = document.querySelector(`#${id} tbody`);
      if (scratch.innerHTML !== shown.innerHTML) out.push(`${kind} table: differs from one drawn from scratch:\n${shown.innerHTML.slice(0, 400)}\nvs\n${scratch.innerHTML.slice(0, 400)}`);
    }
    // The event log (rows built from the packed events, Shepherd.eventsPacked):
    // the rows above the first "earlier events not shown" line are the
    // engine's newest events, newest first, each as eventsSince gives it.
    // The rows pushed out are removed after the frame (render.js, trimEvents): as they are then.
    const { EVENTS_KEPT, trimEvents } = await import('./www/render.js');
    trimEvents(document.getElementById('events'));
    const rows = [...document.querySelectorAll('#events li.event')];
    const cut = rows.findIndex((li) => li.classList.contains('skipped'));
    const logged = cut < 0 ? rows : rows.slice(0, cut);
    if (cut < 0 && logged.length !== Math.min(EVENTS_KEPT, full.eventCount)) out.push(`event log: ${logged.length} rows, expected ${Math.min(EVENTS_KEPT, full.eventCount)} of ${full.eventCount} events`);
    const newest = p.sim.eventsSince(0, logged.length).events.reverse();
    const rowOf = (li) => ({
      cls: li.className, reason: li.dataset.reason,
      cells: [...li.children].map((c) => `${c.className}:${c.textContent}`).join(' | '),
    });
    const rowFor = (e) => ({
      cls: e.type === 'Warning' ? 'event warning' : 'event normal', reason: e.reason,
      cells: [`ev-tick:t=${e.tick}`, `ev-type${e.type === 'Warning' ? ' warning' : ''}:${e.type}`, `ev-reason:${e.reason}`, `ev-source:${e.source}`, `ev-object:${e.object}`, `ev-message:${e.message}`]
        .concat(e.count > 1 ? [`ev-count:×${e.count}, last at t=${e.lastTick}`] : []).join(' | '),
    });
    for (let i = 0; i < logged.length; i++) {
      const a = rowOf(logged[i]);
      const b = newest[i] ? rowFor(newest[i]) : null;
      if (canon(a) !== canon(b)) {
        out.push(`event log row ${i}: the page shows ${canon(a)}, the engine says ${canon(b)}`);
        break;
      }
    }
    return out;
  });
}

test('the frame-kept view equals a full snapshot after random actions', async () => {
  console.log(`deltas: seed ${SEED} (SHEPHERD_SEED=${SEED} replays it), ${OPS} actions (SHEPHERD_FUZZ_OPS)`);
  const rnd = prng(SEED);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const app = await openApp({ viewport: { width: 1280, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, SEED % 1000);
    let nodes = 0;
    let apps = 0;
    const log = [];
    let gridChecks = 0;
    let workloads = 0;
    for (let op = 0; op < OPS; op++) {
      const r = rnd();
      let what;
      if (r < 0.12 || op === 0) {
        const n = 1 + Math.floor(rnd() * (rnd() < 0.3 || op === 0 ? 60 : 4));
        const first = nodes + 1;
        nodes += n;
        what = `add ${n} nodes from n${first}`;
        await page.evaluate(({ first: f, n: k, cpu }) => {
          const sim = window.shepherdPage.sim;
          for (let i = f; i < f + k; i++) sim.addNode({ name: `n${i}`, cpu, memory: '8Gi', labels: `topology.kubernetes.io/zone=z${i % 3}` });
          window.shepherdPage.stepAndDraw();
        }, { first, n, cpu: pick([2000, 4000, 8000]) });
      } else if (r < 0.22) {
        apps += 1;
        what = `deploy a${apps}`;
        await page.evaluate(({ name, replicas, cpu }) => {
          window.shepherdPage.sim.deploy({ name, replicas, cpu, memory: '256Mi' });
          window.shepherdPage.stepAndDraw();
        }, { name: `a${apps}`, replicas: Math.floor(rnd() * 40), cpu: pick([100, 250, 500, 1000]) });
      } else if (r < 0.5 && nodes + apps > 0) {
        const kind = pick(['failNode', 'recoverNode', 'cordon', 'uncordon', 'drain', 'removeNode', 'scale', 'scale', 'rollback']);
        const node = `n${1 + Math.floor(rnd() * Math.max(1, nodes))}`;
        const target = kind === 'scale' || kind === 'rollback' ? `a${1 + Math.floor(rnd() * Math.max(1, apps))}` : node;
        const replicas = Math.floor(rnd() * 60);
        what = `${kind} ${target}${kind === 'scale' ? ` to ${replicas}` : ''}`;
        await page.evaluate(({ kind: k, target: t, replicas: n }) => {
          const sim = window.shepherdPage.sim;
          try {
            if (k === 'scale') sim.scale(t, n);
            else sim[k](t);
          } catch { /* refused: nothing changed, still a tick to check */ }
          window.shepherdPage.stepAndDraw();
        }, { kind, target, replicas });
      } else if (r < 0.58) {
        // DaemonSets and bare Pods, as the "DaemonSet & Pod" forms make them.
        const kind = pick(['createDaemonSet', 'createDaemonSet', 'createDaemonSet', 'updateDaemonSet', 'updateDaemonSet', 'deleteDaemonSet', 'createPod', 'createPod', 'createPod', 'deletePod']);
        const target = kind.endsWith('DaemonSet') ? pick(['agent', 'cni']) : `p${1 + Math.floor(rnd() * 5)}`;
        const args = {
          kind,
          target,
          cpu: pick(['100m', '500m', '2']),
          node: rnd() < 0.5 ? `n${1 + Math.floor(rnd() * Math.max(1, nodes))}` : '',
          surge: rnd() < 0.3,
          version: `v${1 + Math.floor(rnd() * 3)}`,
          critical: rnd() < 0.5,
        };
        what = `${kind} ${target}${args.node && kind === 'createPod' ? ` on ${args.node}` : ''}`;
        const taken = await page.evaluate((a) => {
          const sim = window.shepherdPage.sim;
          let ok = true;
          try {
            if (a.kind === 'createDaemonSet') {
              sim.createDaemonSet({
                name: a.target, cpu: a.cpu, memory: '64Mi', hostNetwork: a.target === 'cni',
                priorityClassName: a.critical ? 'system-node-critical' : '',
                maxSurge: a.surge ? '1' : '0', maxUnavailable: a.surge ? '0' : '1',
              });
            } else if (a.kind === 'updateDaemonSet') sim.updateDaemonSet(a.target, { version: a.version, cpu: a.cpu });
            else if (a.kind === 'deleteDaemonSet') sim.deleteDaemonSet(a.target);
            else if (a.kind === 'createPod') sim.createPod({ name: a.target, cpu: a.cpu, memory: '64Mi', nodeName: a.node, priorityClassName: a.critical ? 'system-cluster-critical' : '' });
            else sim.deletePod(a.target);
          } catch { ok = false; /* refused (a name taken or missing): nothing changed */ }
          window.shepherdPage.stepAndDraw();
          return ok;
        }, args);
        if (taken) workloads += 1;
      } else if (r < 0.62) {
        what = 'back';
        await page.evaluate(() => document.getElementById('btn-back').click());
      } else if (r < 0.7) {
        const v = pick(['auto', 'cards', 'grid', 'grid']);
        what = `view ${v}`;
        await page.selectOption('#view', v);
      } else {
        const n = 1 + Math.floor(rnd() * 4);
        what = `step ${n}`;
        await page.evaluate((k) => { for (let i = 0; i < k; i++) window.shepherdPage.stepAndDraw(); }, n);
      }
      log.push(what);
      if (await page.evaluate(() => window.shepherdPage.grid && window.shepherdPage.view.snap.nodeCount > 0)) gridChecks++;
      const diff = await differences(page);
      assert.deepEqual(diff, [], `seed ${SEED}, after action ${op + 1} (${what}); the actions were: ${log.join('; ')}`);
    }
    console.log(`deltas: ${gridChecks} of ${OPS} checks drew the grid; ${nodes} nodes and ${apps} Deployments created; ${workloads} DaemonSet and Pod actions taken`);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
