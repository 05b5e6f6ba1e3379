// A big cluster is drawn as a grid, one cell per node, and stays quick:
// generate 1,000 nodes with 30 pods each, open a node from its cell, kill it,
// and see its cell turn NotReady. Prints the time per tick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, waitForEngine, shownTick } from './harness.mjs';
import { measure } from './perf.mjs';

// The colour of the canvas at the centre of a node's cell.
async function cellPixel(page, index) {
  return page.evaluate((i) => {
    const c = document.getElementById('grid');
    const g = window.shepherdPage;
    const { cols, cell, gap } = g.gridLayout;
    const dpr = window.devicePixelRatio || 1;
    const x = ((i % cols) * (cell + gap) + 1) * dpr;
    const y = (Math.floor(i / cols) * (cell + gap) + cell / 2) * dpr;
    const [r, gg, b] = c.getContext('2d').getImageData(x, y, 1, 1).data;
    return [r, gg, b];
  }, index);
}

test('1,000 nodes draw as a grid; a cell opens its node; a killed node turns grey', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    const r = await measure(page, 1000, 30, 30, null, 1);
    const tick = r.engine.map((e, i) => e + r.draw[i]).sort((a, b) => a - b);
    const median = tick[Math.floor(tick.length / 2)];
    console.log(`1,000 nodes, 30,000 pods: first tick ${(r.first.engine + r.first.draw).toFixed(0)} ms; quiet tick median ${median.toFixed(2)} ms (engine ${r.engine.sort((a, b) => a - b)[15].toFixed(2)} ms); node-failure tick ${r.heal.total.toFixed(1)} ms`);
    assert.equal(r.grid, true);
    assert.equal(r.pods, 30000);
    // Generous for a loaded CI machine; the figure itself is printed above.
    assert.ok(median < 50, `a quiet tick takes ${median.toFixed(1)} ms at 1,000 nodes`);

    assert.equal(await page.isVisible('#grid'), true);
    assert.equal(await page.isVisible('#nodes'), false);
    assert.match(await page.textContent('#cluster-summary'), /1,000 nodes \(999 Ready\) · 30,000 pods bound · 0 Pending/);

    // node-1 (the first cell) died in measure(); it is drawn grey.
    const [rr, gg, bb] = await cellPixel(page, 0);
    assert.ok(Math.abs(rr - gg) < 12 && Math.abs(gg - bb) < 16 && rr > 90 && rr < 150, `node-1's cell is ${rr},${gg},${bb}, expected grey`);
    const [r2, g2, b2] = await cellPixel(page, 1);
    assert.ok(b2 > r2 + 30, `node-2's cell is ${r2},${g2},${b2}, expected blue (Ready, in use)`);

    // Click node-2's cell: its details, with its pods and actions.
    // To the top: the grid is the first thing under the sticky bar, and a
    // grid already partly in view is not scrolled by scrollIntoViewIfNeeded
    // (its first row can sit under the bar, depending on where the Actions
    // panel's Generate button left the page).
    await page.evaluate(() => window.scrollTo(0, 0));
    const box = await page.locator('#grid').boundingBox();
    const { cell, gap } = await page.evaluate(() => window.shepherdPage.gridLayout);
    await page.mouse.click(box.x + cell + gap + cell / 2, box.y + cell / 2);
    await page.waitForSelector('#node-dialog[open]');
    assert.equal(await page.textContent('#node-dialog-title'), 'Node node-2');
    assert.ok(await page.locator('#node-dialog .pod').count() > 0);
    await app.screenshot('bigcluster-node-dialog', { fullPage: false });
    // Cordon it from the dialog: the dialog follows the engine.
    const t = await shownTick(page);
    await page.getByRole('button', { name: 'Cordon node node-2' }).click();
    assert.equal(await shownTick(page), t + 1);
    assert.match(await page.textContent('#node-dialog'), /SchedulingDisabled/);
    await page.keyboard.press('Escape');

    // The keyboard reaches the grid too: the focus starts at the clicked cell;
    // two to the right and Enter opens node-4.
    await page.focus('#grid');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#node-dialog[open]');
    assert.equal(await page.textContent('#node-dialog-title'), 'Node node-4');
    await page.keyboard.press('Escape');
    // And a node can be found by name.
    await page.fill('#find-node-name', 'node-777');
    await page.click('#find-node button[type=submit]');
    assert.equal(await page.textContent('#node-dialog-title'), 'Node node-777');
    await page.keyboard.press('Escape');
    await app.screenshot('bigcluster-grid', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
