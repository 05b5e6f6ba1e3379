// A tick that places many pods (the first tick of an imported or generated
// cluster: 150,000 pods at 5,000 nodes) runs in slices, so the page keeps
// painting and answering while it runs. The engine's stepSlice runs the tick
// on until a budget of work was done (a pod created counts 1, a pod bound
// 3, a Deployment declared 16), stopping only
// between two controllers, and the finished tick is exactly the one step()
// makes (tests/sliced.rs). Between slices the page yields to the browser.
//
// stepInSlices() drives the slices; progressDialog() is a modal progress
// bar for the callers that have none of their own (Generate). While a tick
// runs in slices the simulator refuses actions; the callers run it on a run
// that is not yet the page's, behind a modal dialog, so the page itself
// stays as it was until the tick is done (or cancelled).
import { $, h, setText } from './dom.js';

// Milliseconds of engine work per slice: the page paints between slices, so
// this is about how long the page may go without answering.
// (A test may set window.shepherdSliceMs to make slices shorter.)
export const SLICE_MS = 30;
const sliceMs = () => globalThis.shepherdSliceMs || SLICE_MS;
const FIRST_BUDGET = 2000;
const MIN_BUDGET = 100;
const MAX_BUDGET = 100000;

// Resolves in a new task: the browser handles input and paints in between.
function yieldToPage() {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(null);
  });
}

// Runs one tick of `sim` in slices. `onProgress(bound, total)` after each
// slice that leaves work (total: the engine's estimate of the pods the tick
// places, at least bound plus the pods Pending now);
// `cancelled()` is asked between slices. Resolves to { refused, engineMs,
// slices, longestMs } (refused: what step() returns), or null when
// cancelled: the run is then in the middle of its tick, and only good to free.
export async function stepInSlices(sim, { onProgress = () => {}, cancelled = () => false } = {}) {
  let budget = globalThis.shepherdSliceMs ? MIN_BUDGET : FIRST_BUDGET;
  let engineMs = 0;
  let longestMs = 0;
  let slices = 0;
  for (;;) {
    const t = performance.now();
    const refused = sim.stepSlice(budget);
    const ms = performance.now() - t;
    engineMs += ms;
    longestMs = Math.max(longestMs, ms);
    slices += 1;
    if (refused !== undefined) return { refused, engineMs, slices, longestMs };
    const [bound, , expected] = sim.stepProgress;
    onProgress(bound, expected);
    // The next slice's budget from this one's pace, at most doubled: the
    // work per pod differs between the tick's steps (events, pods created,
    // pods bound), and a quick slice must not make the next one long.
    const paced = Math.min(2 * budget, budget * sliceMs() / Math.max(ms, 1));
    budget = Math.round(Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, paced)));
    await yieldToPage();
    // A test may hold the slices here (a Promise), to act in between.
    if (globalThis.shepherdSliceHold) await globalThis.shepherdSliceHold;
    if (cancelled()) return null;
  }
}

const fmt = (n) => n.toLocaleString('en');

export function placedWords(bound, total) {
  if (total === 0) return 'Registering the nodes and workloads…';
  return `Placing pods: ${fmt(bound)} of ${fmt(total)} placed`;
}

let dialogEl = null;
function dialog() {
  if (dialogEl) return dialogEl;
  dialogEl = h('dialog', { id: 'slices-dialog', class: 'dialog', 'aria-labelledby': 'slices-h' },
    h('h2', { id: 'slices-h' }, 'Placing pods'),
    h('p', { class: 'summary' }, 'The first tick places every pod; the page shows the new cluster when it is done. Cancel keeps your run as it is.'),
    h('div', { class: 'progress', role: 'status' },
      h('progress', { id: 'slices-bar', max: '100', 'aria-labelledby': 'slices-text' }),
      h('span', { id: 'slices-text' })),
    h('div', { class: 'buttons' },
      h('button', { type: 'button', id: 'slices-cancel' }, 'Cancel')));
  document.body.append(dialogEl);
  return dialogEl;
}

// Runs `sim`'s next tick in slices with a modal progress bar, shown only if
// the tick takes more than one slice. `title` heads the dialog. Resolves as
// stepInSlices does (null: the person pressed Cancel or Escape).
export async function placeWithProgress(sim, title) {
  const d = dialog();
  let stop = false;
  const cancel = () => { stop = true; };
  const onCancel = (e) => { e.preventDefault(); cancel(); };
  $('slices-cancel').onclick = cancel;
  d.addEventListener('cancel', onCancel);
  document.body.dataset.slicing = 'running';
  try {
    return await stepInSlices(sim, {
      onProgress: (bound, total) => {
        if (!d.open) {
          setText($('slices-h'), title);
          d.showModal();
          $('slices-cancel').focus();
        }
        $('slices-bar').value = total > 0 ? Math.round((bound / total) * 100) : 0;
        setText($('slices-text'), placedWords(bound, total));
      },
      cancelled: () => stop,
    });
  } finally {
    d.removeEventListener('cancel', onCancel);
    if (d.open) d.close();
    delete document.body.dataset.slicing;
  }
}
