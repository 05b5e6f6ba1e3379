// Time per tick in headless Chromium: the engine's step plus the page's drawing,
// at 40 nodes (the most drawn as cards), 100, 1,000 and 5,000 nodes (drawn as a
// grid), with 30 pods per node, as the page's "Big cluster" form generates them.
//
//   node tests/browser/perf.mjs [--nodes 40,100,1000,5000,10000] [--pods 30] [--ticks 60]
//                               [--profile default-scheduler,binpack] [--failures 9] [--parts] [--cold]
//
// The page readies the engine's optimised code in its idle time after it
// loads (www/warmup.js); each size waits for that, then a second, as a
// person filling in the form would. --cold generates at once instead.
//
// Serves dist/ (or SHEPHERD_WEB_ROOT) like the browser tests. Prints one row per
// size: the first tick (every pod created, scheduled and bound: in slices, as
// "Big cluster" runs it, the engine's time summed over them), a quiet tick
// (median and 95th percentile of --ticks ticks), and the ticks on which a killed
// node's pods are evicted (300 s after it is NotReady) and replaced (--failures
// nodes fail on successive ticks: the median and the slowest of those ticks,
// and the main thread's CPU time per such tick with the frame that shows it). "engine" is
// Shepherd.step(); "draw" is the snapshot, the grid or cards, the tables and the
// event log, up to the browser's own paint. Then 3 s of Play at 60 ticks/s:
// the ticks per second reached and the frame intervals the browser showed.
// Back one tick is measured at tick 200 (between the quiet ticks and the
// failures) and again at the end (tick ~615): as a person presses it after
// the page's idle work, and at once after that (see back()); then the
// page's memory: the JavaScript heap in use (performance.memory) plus the
// WebAssembly memory (the engine's whole state lives there).
import { openApp, waitForEngine, openMenu } from './harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const SIZES = arg('nodes', '40,100,1000,5000').split(',').map(Number);
const PODS = Number(arg('pods', '30'));
const TICKS = Number(arg('ticks', '60'));
const PROFILES = arg('profile', 'default-scheduler').split(',');
const FAILURES = Number(arg('failures', '9'));
const COLD = process.argv.includes('--cold');

// The page's warm-up (www/warmup.js): waited for, then a second more for
// the optimising compiler's background work; its main-thread time.
async function warmed(page) {
  if (COLD) return 'cold';
  await page.waitForFunction(() => ['done', 'failed'].includes(document.body.dataset.warm), null, { timeout: 60_000 });
  await page.waitForTimeout(1000);
  const { warm, warmMs } = await page.evaluate(() => ({ ...document.body.dataset }));
  return warm === 'done' ? warmMs : warm;
}

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

export async function measure(page, nodes, pods = PODS, ticks = TICKS, profile = null, failures = FAILURES) {
  if (profile) {
    await openMenu(page, 'scheduler');
    await page.selectOption('#policy', profile);
  }
  await page.getByRole('tab', { name: 'Big cluster' }).click();
  await page.fill('#form-generate input[name=nodes]', String(nodes));
  await page.fill('#form-generate input[name=podsPerNode]', String(pods));
  await page.click('#form-generate button[type=submit]');
  await page.waitForFunction(() => !document.body.dataset.slicing && document.body.dataset.tick === '1', null, { timeout: 120_000 });
  const r = await page.evaluate(async ({ ticks, failures }) => {
    const p = window.shepherdPage;
    const first = { ...p.lastTimings };
    // Quiet ticks: what one tick costs in JavaScript, engine and drawing.
    const engine = [], draw = [], parts = [];
    for (let i = 0; i < ticks; i++) {
      const t = p.stepAndDraw();
      engine.push(t.engine);
      draw.push(t.draw);
      parts.push({ tick: p.sim.tick, ...t.parts });
    }
    return { first, engine, draw, parts };
  }, { ticks, failures });
  // Back one tick at tick 200, as the issue states it (the run then goes on
  // from tick 198).
  await page.evaluate(() => {
    const p = window.shepherdPage;
    p.sim.run(Math.max(0, 199 - p.sim.tick));
    p.stepAndDraw();
  });
  r.back200 = await back(page);
  Object.assign(r, await page.evaluate(async (failures) => {
    const p = window.shepherdPage;
    // Node failures: each fires at the next tick, the node is NotReady 51 s
    // later (the 50 s grace period), and its pods are evicted and replaced
    // 300 s after that (DefaultTolerationSeconds). FAILURES nodes fail on
    // successive ticks, so as many successive ticks each evict one node's
    // pods: those ticks are measured (one figure alone is at the mercy of
    // whatever else the machine does).
    for (let k = 1; k <= failures; k++) {
      p.sim.failNode(`node-${k}`);
      p.sim.run(1);
    }
    p.sim.run(51 - failures);
    p.stepAndDraw();
    p.sim.run(299);
    return {};
  }, failures));
  // The eviction ticks, each followed by the frame that shows it. Besides
  // each tick's own time, the main thread's CPU time over all of them
  // (Chromium's ThreadTime: the ticks, style, layout and paint of their
  // frames): a figure that other processes on the machine barely move.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const threadTime = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
  const cpu0 = await threadTime();
  Object.assign(r, await page.evaluate(async (failures) => {
    const p = window.shepherdPage;
    const heals = [];
    for (let k = 0; k < failures; k++) {
      heals.push(p.stepAndDraw());
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    }
    const snap = p.sim.snapshot(false);
    return { heals, grid: p.grid, nodes: snap.nodeCount, pods: snap.boundPods, notReady: snap.nodeCount - snap.readyNodes };
  }, failures));
  r.healCpu = (1000 * ((await threadTime()) - cpu0)) / failures;
  await cdp.detach();
  const median = (xs) => q(xs, 0.5);
  r.heal = {
    engine: median(r.heals.map((x) => x.engine)),
    total: median(r.heals.map((x) => x.engine + x.draw)),
    max: Math.max(...r.heals.map((x) => x.engine + x.draw)),
    parts: Object.fromEntries(Object.keys(r.heals[0].parts || {}).map((k) => [k, Number(median(r.heals.map((x) => x.parts[k])).toFixed(1))])),
  };
  // Playing at 60 ticks/s for 3 s, as a person would watch it: frames as the browser shows them.
  await page.selectOption('#speed', '60');
  const t0 = Number(await page.textContent('#tick'));
  await page.click('#btn-play');
  const frames = await page.evaluate(() => new Promise((resolve) => {
    const xs = [];
    let last = performance.now();
    const end = last + 3000;
    const f = (now) => {
      xs.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(f);
      else resolve(xs);
    };
    requestAnimationFrame(f);
  }));
  await page.click('#btn-play');
  r.playTicksPerSecond = (Number(await page.textContent('#tick')) - t0) / 3;
  r.frames = frames.slice(1);
  // Back again, after the evictions and Play (tick ~615).
  r.back = await back(page);
  r.memory = await page.evaluate(() => ({
    heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
    wasm: window.shepherdPage.wasmBytes,
  }));
  return r;
}

// Back one tick as a person presses it: paused, after the page's idle work
// (which readies the simulator Back takes: Shepherd.idle), the Back button
// (engine and redraw; "engine" is Shepherd.stepBack). Then Back again at
// once, with no idle time between: a copy of the newest kept simulator and
// a replay from it ("at once").
async function back(page) {
  return page.evaluate(async () => {
    const p = window.shepherdPage;
    const waited = performance.now();
    const ready = () => p.sim.spareTick() === p.sim.tick - 1;
    while (!ready() && performance.now() - waited < 20_000) await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 200 }));
    const prepared = ready();
    const tick = p.sim.tick;
    const checkpoints = Array.from(p.sim.checkpointTicks());
    const t0 = performance.now();
    document.getElementById('btn-back').click();
    const total = performance.now() - t0;
    const { engine } = p.lastBack;
    const t1 = performance.now();
    document.getElementById('btn-back').click();
    const atOnce = performance.now() - t1;
    return { tick, total, engine, prepared, atOnce, atOnceEngine: p.lastBack.engine, checkpoints };
  });
}

async function main() {
  const rows = [];
  const parts = {};
  const MB = (b) => (b / 2 ** 20).toFixed(0);
  for (const profile of PROFILES) for (const n of SIZES) {
    const app = await openApp({ viewport: { width: 1440, height: 900 } });
    try {
      await waitForEngine(app.page);
      const warmup = await warmed(app.page);
      const r = await measure(app.page, n, PODS, TICKS, profile);
      const tick = r.engine.map((e, i) => e + r.draw[i]);
      rows.push({
        profile,
        nodes: r.nodes,
        pods: r.pods,
        view: r.grid ? 'grid' : 'cards',
        'first tick (ms)': (r.first.engine + r.first.draw).toFixed(0),
        'of which engine': r.first.engine.toFixed(0),
        // The first tick runs in slices (www/slices.js): how many, the longest.
        'first tick slices (longest ms)': r.first.slices ? `${r.first.slices} (${r.first.longestSlice.toFixed(0)})` : '1',
        'quiet median (ms)': q(tick, 0.5).toFixed(2),
        'quiet p95 (ms)': q(tick, 0.95).toFixed(2),
        'engine median / p95': `${q(r.engine, 0.5).toFixed(2)} / ${q(r.engine, 0.95).toFixed(2)}`,
        'play: ticks/s': r.playTicksPerSecond.toFixed(0),
        'play: frame p50/p95': `${q(r.frames, 0.5).toFixed(1)} / ${q(r.frames, 0.95).toFixed(1)}`,
        'node-failure tick median, max (engine)': `${r.heal.total.toFixed(1)}, ${r.heal.max.toFixed(1)} (${r.heal.engine.toFixed(1)})`,
        'node-failure CPU, tick + frame': r.healCpu.toFixed(1),
        'Back (engine) at tick 200; at once': `${r.back200.total.toFixed(0)} (${r.back200.engine.toFixed(0)})${r.back200.prepared ? '' : ' unprepared'}; ${r.back200.atOnce.toFixed(0)} (${r.back200.atOnceEngine.toFixed(0)})`,
        'Back (engine) at tick; at once': `${r.back.total.toFixed(0)} (${r.back.engine.toFixed(0)}) at ${r.back.tick}${r.back.prepared ? '' : ' unprepared'}; ${r.back.atOnce.toFixed(0)} (${r.back.atOnceEngine.toFixed(0)})`,
        'memory MB: heap + wasm': `${MB(r.memory.heap)} + ${MB(r.memory.wasm)}`,
        'warm-up ms (longest slice)': warmup,
      });
      // The quiet ticks at or above the 95th percentile: where their time went.
      const p95 = q(tick, 0.95);
      const slow = r.parts
        .map((x, i) => ({ ...x, engine: Number(r.engine[i].toFixed(2)), total: Number(tick[i].toFixed(2)) }))
        .filter((x) => x.total >= p95)
        .map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typeof v === 'number' && k !== 'tick' ? Number(v.toFixed(2)) : v])));
      parts[`${profile} ${n}`] = { first: r.first.parts, failure: r.heal.parts, slowQuiet: slow, checkpoints: { 200: r.back200.checkpoints, [r.back.tick]: r.back.checkpoints } };
      if (r.notReady !== FAILURES) throw new Error(`expected ${FAILURES} NotReady nodes after the failures, got ${r.notReady}`);
    } finally {
      await app.close();
    }
  }
  console.log(`Shepherd page, headless Chromium (${process.env.CHROMIUM || '/usr/bin/chromium'}), ${PODS} pods per node, ${TICKS} quiet ticks`);
  console.table(rows);
  if (process.argv.includes('--parts')) console.log(JSON.stringify(parts, null, 1));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
