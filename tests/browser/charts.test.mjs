// Charts over time, the balance strip, and the node dialog's taint and zone
// tools: the charts gain a point per tick, a click on a point replays to that
// tick, a NoExecute taint moves a node's pods elsewhere, a failed zone's nodes
// turn NotReady (and the NotReady chart says so), with zero axe-core violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, step, nodeCard, axeViolations, ROOT } from './harness.mjs';

const EXAMPLE = fs.readFileSync(path.join(ROOT, 'www', 'examples', 'three-zones.yaml'), 'utf8');

async function dropFile(page, name, text) {
  await page.evaluate(([name, text]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name, { type: 'text/yaml' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.querySelector('main, body').dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, [name, text]);
}

async function loadZones(page) {
  assert.equal(await waitForEngine(page), 'ready');
  await dropFile(page, 'three-zones.yaml', EXAMPLE);
  await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
  await page.click('#manifests-close');
}

// The page x (viewport) of tick `t` on a chart, as www/charts.js lays it out:
// 38 px of labels on the left, 8 px on the right, at least 20 ticks wide.
async function pointOf(page, chart, t) {
  await page.locator(`#chart-${chart}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#chart-${chart}`).boundingBox();
  const len = Number(await page.getAttribute('#charts-panel', 'data-points'));
  const span = Math.max(20, len - 1);
  return { x: box.x + 38 + ((box.width - 46) * t) / span, y: box.y + box.height / 2 };
}

// Steps (engine and drawing, as Step does) until `check` holds in the page.
async function stepUntilIn(page, check, arg, max = 200) {
  for (let i = 0; i <= max; i += 1) {
    if (await page.evaluate(check, arg)) return i;
    await page.evaluate(() => window.shepherdPage.stepAndDraw());
  }
  throw new Error(`still not true after ${max} steps (tick ${await shownTick(page)})`);
}

test('the charts gain a point per tick, and a click on a point goes to that tick', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await loadZones(page);
    const start = await shownTick(page);
    await step(page, 8);
    const now = start + 8;
    assert.equal(await shownTick(page), now);
    assert.equal(await page.getAttribute('#charts-panel', 'data-points'), String(now + 1));
    // The cpu readout is the engine's balance now (requested over allocatable, Ready nodes).
    const overall = await page.evaluate(() => window.shepherdPage.sim.balance().cpu.overall);
    assert.equal(await page.textContent('#chart-cpu-value'), `tick ${now}: ${(100 * overall).toFixed(1)}% of allocatable`);
    assert.match(await page.textContent('#balance tbody tr[data-resource="cpu"]'), new RegExp(`${(100 * overall).toFixed(0)}%`));

    // Click tick 3: the page replays to it; the ticks after it stay drawn (ahead).
    let p = await pointOf(page, 'cpu', 3);
    await page.mouse.click(p.x, p.y);
    await page.waitForFunction(() => document.body.dataset.tick === '3');
    assert.equal(await page.getAttribute('#charts-panel', 'data-known'), '4');
    assert.equal(await page.getAttribute('#charts-panel', 'data-points'), String(now + 1));
    const then = await page.evaluate(() => window.shepherdPage.sim.balance().cpu.overall);
    assert.equal(await page.textContent('#chart-cpu-value'), `tick 3: ${(100 * then).toFixed(1)}% of allocatable`);

    // Forward again by clicking a later point on another chart.
    p = await pointOf(page, 'pending', 7);
    await page.mouse.click(p.x, p.y);
    await page.waitForFunction(() => document.body.dataset.tick === '7');

    // Keyboard: focus a chart, Left twice, Enter.
    await page.focus('#chart-memory');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.match(await page.textContent('#chart-memory-value'), /pointing at tick 5: .*Enter goes there/);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.body.dataset.tick === '5');

    // An action drops what was drawn ahead: it may no longer happen.
    await page.click('#nodes article[data-node="a-1"] button[aria-label="Cordon node a-1"]');
    await page.waitForFunction(() => document.body.dataset.tick === '6');
    assert.equal(await page.getAttribute('#charts-panel', 'data-points'), '7');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a NoExecute taint moves the node\'s pods; a failed zone turns its nodes NotReady', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await loadZones(page);
    const before = await nodeCard(page, 'a-1');
    assert.ok(Number(before.pods) > 0, JSON.stringify(before));

    // The card's button opens the node's dialog with the tools.
    await page.click('#nodes article[data-node="a-1"] button[aria-label="Taints and zone of a-1"]');
    assert.ok(await page.isVisible('#node-dialog'));
    assert.match(await page.textContent('#node-taints'), /a-1 has no taints/);

    // A bad key is refused next to the field, and nothing changes.
    const tick0 = await shownTick(page);
    await page.fill('#form-taint input[name="key"]', 'bad key!');
    await page.selectOption('#form-taint select[name="effect"]', 'NoExecute');
    await page.click('#form-taint button[type="submit"]');
    await page.waitForSelector('#form-taint [aria-invalid="true"]');
    const invalid = await page.$eval('#form-taint [aria-invalid="true"]', (el) => ({
      name: el.name, said: document.getElementById(el.getAttribute('aria-describedby').split(' ')[0]).textContent,
    }));
    assert.equal(invalid.name, 'key', JSON.stringify(invalid));
    assert.match(invalid.said, /bad key!/);
    assert.equal(await shownTick(page), tick0);

    await page.fill('#form-taint input[name="key"]', 'maintenance');
    await page.fill('#form-taint input[name="value"]', 'now');
    await page.click('#form-taint button[type="submit"]');
    await page.waitForSelector('#node-taints button[data-taint="maintenance=now:NoExecute"]');
    assert.equal(await page.$('#form-taint [aria-invalid="true"]'), null);
    // Its pods are evicted and replaced elsewhere.
    await stepUntilIn(page, () => {
      const sim = window.shepherdPage.sim;
      const snap = sim.snapshot(true);
      const a1 = snap.nodes.find((n) => n.name === 'a-1');
      return a1.podCount === 0 && snap.pendingPods === 0;
    }, null, 30);
    const after = await page.evaluate(() => window.shepherdPage.sim.snapshot(true));
    const placed = after.nodes.reduce((s, n) => s + n.podCount, 0);
    // Ten Deployment pods and the log-agent DaemonSet's pod on each of the
    // other five nodes (its automatic tolerations do not cover maintenance).
    assert.equal(placed, 15, 'every pod of the example is bound, none on a-1');
    assert.equal(after.pendingPods, 0);
    await page.waitForFunction(() => document.querySelector('#node-dialog-body article').dataset.pods === '0');

    // Remove the taint with its button.
    await page.click('#node-taints button[data-taint="maintenance=now:NoExecute"]');
    await page.waitForFunction(() => /a-1 has no taints/.test(document.getElementById('node-taints').textContent));

    // Fail zone-b from the same dialog: b-1 and b-2 turn NotReady.
    const zonesListed = await page.$$eval('#form-fail-zone select option', (os) => os.map((o) => o.value));
    assert.deepEqual(zonesListed, ['zone-a', 'zone-b', 'zone-c']);
    assert.equal(await page.inputValue('#form-fail-zone select'), 'zone-a', 'the node\'s own zone is chosen');
    await page.selectOption('#form-fail-zone select', 'zone-b');
    await page.click('#form-fail-zone button[type="submit"]');
    await page.click('#node-dialog button.close');
    await stepUntilIn(page, () => {
      const snap = window.shepherdPage.sim.snapshot(true);
      return ['b-1', 'b-2'].every((n) => snap.nodes.find((x) => x.name === n).status === 'NotReady');
    }, null, 300);
    const ready = await page.evaluate(() => window.shepherdPage.sim.snapshot(true).nodes.filter((n) => n.status === 'Ready').map((n) => n.name));
    assert.deepEqual(ready.sort(), ['a-1', 'a-2', 'c-1', 'c-2']);
    assert.match(await page.textContent('#chart-notready-value'), /: 2 NotReady$/);
    assert.equal((await nodeCard(page, 'b-1')).status, 'NotReady');
    await app.screenshot('charts-zone-failed', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the charts and the node tools have zero axe-core violations, wide and on a phone', async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const app = await openApp({ viewport });
    try {
      const { page } = app;
      await loadZones(page);
      await step(page, 5);
      await page.locator('#charts-panel').scrollIntoViewIfNeeded();
      assert.ok(await page.isVisible('#chart-cpu'));
      assert.deepEqual(await axeViolations(page), [], `charts visible at ${viewport.width}px`);
      // Nothing overflows the phone's width.
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= viewport.width, `page is ${wide}px wide at ${viewport.width}px`);
      await page.click('#nodes article[data-node="c-1"] button[aria-label="Taints and zone of c-1"]');
      await page.click('#form-taint button[type="submit"]'); // empty key: refused inline
      await page.waitForSelector('#form-taint [aria-invalid="true"]');
      assert.deepEqual(await axeViolations(page), [], `node dialog with a refusal at ${viewport.width}px`);
      if (viewport.width === 1440) {
        await page.click('#node-dialog button.close');
        await page.locator('#charts-panel').scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(ROOT, 'tests', 'artifacts', 'charts-1440.png') });
      }
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  }
});
