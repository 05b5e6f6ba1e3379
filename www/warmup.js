// Readies the engine's compiled code for a big cluster, in the browser's
// idle time after the page loads.
//
// V8 runs a WebAssembly function in its baseline tier (Liftoff) until the
// function has run enough to be worth its optimising tier (TurboFan), which
// then compiles it on a background thread. A page asked for 5,000 nodes and
// 150,000 pods right after it loaded spent that first tick mostly in
// baseline code, while about 0.6 s of optimising compilation competed with
// it for the machine's cores (Chromium's tracing, wasm.TopTierCompilation,
// on this project's 2-core machine): the engine's part of the tick was
// 450-550 ms, against 260-280 ms once the code was optimised.
//
// So the page schedules a smaller cluster of its own, which nobody sees,
// in slices of about 8 ms in idle callbacks: 2,000 nodes and 60,000 pods
// under the default profile, the code paths a big cluster runs (the sample
// index, the spread classes, binds). With it, the optimising compilation
// left inside the 5,000-node tick fell from 450-600 ms to about 55 ms (with
// 1,000 nodes it left 110 ms). It is a separate Shepherd instance, freed when
// done: the page's run, its determinism and its link are untouched. When
// it is done, document.body.dataset.warm is "done" (perf.mjs waits for it).
import { DEFAULT_PROFILE } from './profile.js';

const NODES = 2000;
const PODS_PER_NODE = 30;
// Milliseconds of work per slice, and the first slice's budget (a pod
// created counts 1, a pod bound 3; see slices.js): each next budget is
// paced from the last slice's time, at most doubled.
const SLICE_MS = 8;
const FIRST_BUDGET = 500;
const MIN_BUDGET = 100;
const MAX_BUDGET = 50000;

export function warmEngine(Shepherd) {
  const later = window.requestIdleCallback
    ? (f) => requestIdleCallback(f, { timeout: 1000 })
    : (f) => setTimeout(() => f(null), 50);
  let sim = null;
  let budget = FIRST_BUDGET;
  let spent = 0;
  let longest = 0;
  const finish = (state) => {
    if (sim) sim.free();
    sim = null;
    document.body.dataset.warm = state;
    document.body.dataset.warmMs = `${spent.toFixed(0)} (longest slice ${longest.toFixed(0)})`;
  };
  const slices = (deadline) => {
    try {
      if (!sim) {
        sim = new Shepherd(1, DEFAULT_PROFILE);
        sim.generate(NODES, PODS_PER_NODE);
      }
      // As many slices as the idle period holds (one without a deadline).
      do {
        const t = performance.now();
        const refused = sim.stepSlice(budget);
        const ms = performance.now() - t;
        spent += ms;
        longest = Math.max(longest, ms);
        if (refused !== undefined) {
          finish('done');
          return;
        }
        const paced = Math.min(MAX_BUDGET, 2 * budget, budget * SLICE_MS / Math.max(ms, 0.5));
        budget = Math.max(MIN_BUDGET, Math.round(paced));
      } while (deadline && deadline.timeRemaining() > SLICE_MS);
    } catch (err) {
      // Only the warm-up is lost: the page works as before, its first big
      // tick slower.
      console.warn('the engine warm-up stopped:', err);
      finish('failed');
      return;
    }
    later(slices);
  };
  document.body.dataset.warm = 'running';
  later(slices);
}
