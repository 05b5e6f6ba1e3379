// The compare view and the Ready per Deployment chart: the second run stays
// at the page's tick through Step, Back, a click on a chart and an action;
// the pods it lists as landed differently, and the Pending pods only one run
// has, equal a diff computed here from both runs' placements; a click on the
// Ready chart goes to that tick; zero axe-core violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, step, axeViolations, openMenu, ARTIFACTS } from './harness.mjs';

// The diff, computed here from the two runs' placements ([pod, node|null]).
function directDiff(a, b) {
  const mb = new Map(b);
  const ma = new Map(a);
  const moved = [];
  for (const [pod, x] of a) {
    const y = mb.get(pod);
    if (x !== null && y !== undefined && y !== null && x !== y) moved.push({ pod, a: x, b: y });
  }
  const only = (p, q) => p.filter(([pod, n]) => n === null && q.get(pod) !== null).map(([pod]) => pod);
  // q.get(pod) is undefined when the other run has no such pod: it counts.
  const boundOnly = (p, q) => p.filter(([pod, n]) => n !== null && !q.has(pod));
  return { moved, onlyA: only(a, mb), onlyB: only(b, ma), boundA: boundOnly(a, mb), boundB: boundOnly(b, ma) };
}

async function checkAgainstPlacements(page) {
  const got = await page.evaluate(() => {
    const { sim, compare } = window.shepherdPage;
    return {
      placements: compare.cmp.placements(sim),
      view: compare.cmp.view(sim, 100000),
      rows: [...document.querySelectorAll('#compare-moved tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      movedH: document.getElementById('compare-moved-h').textContent,
      pa: [...document.querySelectorAll('#compare-pa li')].map((li) => li.textContent),
      pb: [...document.querySelectorAll('#compare-pb li')].map((li) => li.textContent),
      ba: [...document.querySelectorAll('#compare-ba li')].map((li) => li.textContent),
    };
  });
  const want = directDiff(got.placements.a, got.placements.b);
  // The engine lists in pod name order; so does a sort of the direct diff.
  const byPod = (x, y) => (x.pod < y.pod ? -1 : x.pod > y.pod ? 1 : 0);
  assert.deepEqual(got.view.landedDifferently, want.moved.sort(byPod));
  assert.deepEqual(got.view.pendingOnlyInA, want.onlyA.sort());
  assert.deepEqual(got.view.pendingOnlyInB, want.onlyB.sort());
  assert.deepEqual(got.view.boundOnlyInA, want.boundA.sort());
  assert.deepEqual(got.view.boundOnlyInB, want.boundB.sort());
  assert.deepEqual(got.ba, want.boundA.slice(0, 50).map(([p, node]) => `${p} on ${node}`));
  // What the panel shows is the start of those lists, with whole counts.
  assert.equal(got.movedH, `Pods on a different node (${want.moved.length})`);
  assert.deepEqual(got.rows, want.moved.slice(0, 50).map((m) => [m.pod, m.a, m.b]));
  assert.deepEqual(got.pa, want.onlyA.slice(0, 50));
  assert.deepEqual(got.pb, want.onlyB.slice(0, 50));
  return want;
}

async function inStep(page) {
  const tick = await shownTick(page);
  await page.waitForFunction((t) => {
    const p = document.getElementById('compare-panel');
    return p.dataset.tick === String(t) && p.dataset.otherTick === String(t);
  }, tick);
  return tick;
}

test('the compare view runs the tour under a second profile in step, and lists a direct diff', async () => {
  const app = await openApp({ viewport: { width: 1280, height: 900 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 12);
    // The profile list is the page's own; the tour runs binpack.
    const options = await page.$$eval('#compare-profile option', (os) => os.map((o) => o.value));
    assert.deepEqual(options, ['default-scheduler', 'binpack', 'leastloaded']);
    assert.equal(await page.isVisible('#compare-body'), false);
    // The top bar's Compare… leads to the panel with its profile list focused.
    await openMenu(page, 'scheduler');
    await page.click('#btn-compare-open');
    await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'compare-profile');
    await page.selectOption('#compare-profile', 'default-scheduler');
    await page.click('#btn-compare');
    assert.equal(await page.getAttribute('#btn-compare', 'aria-pressed'), 'true');
    assert.equal(await inStep(page), 12);
    assert.match(await page.textContent('#compare-status'), /Tick 12: this run \(binpack\) and the same scenario under default-scheduler/);
    assert.match(await page.textContent('#compare-col-b'), /default-scheduler/);
    // The figures are each run's balance.
    const nodesRow = await page.$$eval('#compare-table tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
    const both = await page.evaluate(() => {
      const v = window.shepherdPage.compare.view;
      return [v.a.balance, v.b.balance].map((b) => `${b.nodesWithPods} of ${b.readyNodes}`);
    });
    assert.deepEqual(nodesRow, both);
    let moved = (await checkAgainstPlacements(page)).moved.length;

    // Step on, then Back: both runs move together.
    await step(page, 10);
    assert.equal(await inStep(page), 22);
    moved += (await checkAgainstPlacements(page)).moved.length;
    await page.click('#btn-back');
    assert.equal(await inStep(page), 21);
    moved += (await checkAgainstPlacements(page)).moved.length;

    // A click on a chart point goes back in both runs.
    await page.locator('#chart-pending').scrollIntoViewIfNeeded();
    const box = await page.locator('#chart-pending').boundingBox();
    const len = Number(await page.getAttribute('#charts-panel', 'data-points'));
    const span = Math.max(20, len - 1);
    await page.mouse.click(box.x + 38 + ((box.width - 46) * 6) / span, box.y + box.height / 2);
    await page.waitForFunction(() => document.body.dataset.tick === '6');
    assert.equal(await inStep(page), 6);
    moved += (await checkAgainstPlacements(page)).moved.length;

    // An action on the page is taken by the second run too.
    await page.evaluate(() => window.shepherdPage.sim.scale('web', 9));
    await step(page, 4);
    assert.equal(await inStep(page), 10);
    moved += (await checkAgainstPlacements(page)).moved.length;
    const webs = await page.evaluate(() => window.shepherdPage.compare.cmp.placements(window.shepherdPage.sim).b.filter(([p]) => p.startsWith('web-')).length);
    assert.ok(webs >= 9, `the second run scaled web too (${webs} web pods)`);

    // Another profile: a new second run at the same tick.
    await page.selectOption('#compare-profile', 'leastloaded');
    assert.equal(await inStep(page), 10);
    assert.match(await page.textContent('#compare-col-b'), /leastloaded/);
    moved += (await checkAgainstPlacements(page)).moved.length;

    await page.locator('#compare-panel').scrollIntoViewIfNeeded();
    assert.deepEqual(await axeViolations(page), [], 'the compare view');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#compare-panel').screenshot({ path: path.join(ARTIFACTS, 'compare.png') });

    // Stop: the panel folds and stops following.
    await page.click('#btn-compare');
    assert.equal(await page.isVisible('#compare-body'), false);
    assert.equal(await page.getAttribute('#compare-panel', 'data-active'), 'false');
    await step(page, 1);
    assert.ok(moved > 0, 'binpack and default-scheduler placed some pod differently in the tour');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the Ready per Deployment chart follows the Deployments, and a click on it goes to that tick', async () => {
  const app = await openApp({ viewport: { width: 1280, height: 900 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 16);
    // The legend names the tour's Deployments with their Ready pods now.
    const legend = await page.$$eval('#chart-ready-legend li[data-app]', (lis) => lis.map((li) => [li.dataset.app, li.textContent]));
    const apps = await page.evaluate(() => window.shepherdPage.sim.snapshot(false).apps.map((a) => [a.name, a.ready]));
    assert.ok(legend.length > 0);
    for (const [name, text] of legend) {
      const a = apps.find(([n]) => n === name);
      assert.ok(a, `${name} is a Deployment`);
      assert.equal(text, `${name} ${a[1]}`);
    }
    assert.match(await page.textContent('#chart-ready-value'), /^tick 16: .* Ready$/);

    await page.locator('#chart-ready').scrollIntoViewIfNeeded();
    const box = await page.locator('#chart-ready').boundingBox();
    const len = Number(await page.getAttribute('#charts-panel', 'data-points'));
    const span = Math.max(20, len - 1);
    await page.mouse.click(box.x + 38 + ((box.width - 46) * 4) / span, box.y + box.height / 2);
    await page.waitForFunction(() => document.body.dataset.tick === '4');
    // The readout at tick 4 is the engine's Ready count per Deployment then.
    const then = await page.evaluate(() => window.shepherdPage.sim.snapshot(false).apps);
    const text = await page.textContent('#chart-ready-value');
    for (const a of then) if (text.includes(`${a.name} `)) assert.ok(text.includes(`${a.name} ${a.ready}`), `${text} / ${a.name} ${a.ready}`);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the compare view fits a phone and has zero axe-core violations there', async () => {
  const app = await openApp({ viewport: { width: 390, height: 844 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 30);
    await openMenu(page, 'scheduler');
    await page.click('#btn-compare-open');
    await page.selectOption('#compare-profile', 'leastloaded');
    await page.click('#btn-compare');
    assert.equal(await inStep(page), 30);
    await page.locator('#compare-panel').scrollIntoViewIfNeeded();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `page is ${wide}px wide at 390px`);
    assert.deepEqual(await axeViolations(page), [], 'the compare view on a phone');
    await page.locator('#compare-panel').screenshot({ path: path.join(ARTIFACTS, 'compare-phone.png') });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
