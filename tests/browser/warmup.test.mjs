// The engine's warm-up (www/warmup.js): it finishes on its own in the
// page's idle time, reports its cost, logs nothing, and leaves the page's
// own run as it was (it schedules a separate instance).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, waitForEngine, shownTick } from './harness.mjs';

test('the warm-up finishes in idle time and leaves the page as it was', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // The page's run as the engine holds it, and what the page shows.
    const state = () => page.evaluate(() => ({
      tick: window.shepherdPage.sim.tick,
      snapshot: JSON.stringify(window.shepherdPage.sim.snapshot(true)),
      cards: document.querySelectorAll('#nodes article').length,
    }));
    const before = await state();
    await page.waitForFunction(() => document.body.dataset.warm !== 'running', null, { timeout: 60_000 });
    const { warm, warmMs } = await page.evaluate(() => ({ ...document.body.dataset }));
    assert.equal(warm, 'done', `the warm-up ended "${warm}"`);
    assert.match(warmMs, /^\d+ \(longest slice \d+\)$/);
    assert.deepEqual(await state(), before, 'the page run is untouched');
    assert.equal(await shownTick(page), before.tick);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
