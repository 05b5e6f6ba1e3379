// Cluster Autoscaler's scale-down on the page (issue 46): the autoscaling
// example scales up two c5.xlarge for the api pods (tick 10, registered at
// 40); `kubectl scale deployment api --replicas=0` lets the pods go; played
// at 60 ticks/s past CA's --scale-down-unneeded-time (10m) and
// --scale-down-delay-after-add (10m after the scale-up at tick 10), the
// two emptied nodes are removed together at tick 650 (ScaleDownEmpty), and
// at the next loop an m5.large above its group's min goes too, its web pod
// evicted (ScaleDown); the node cards go, the panel lists the scale-downs,
// and the nodes and cost charts step down with them. axe-core: 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, waitForEngine, shownTick, openMenu, axeViolations, eventLines, ARTIFACTS } from './harness.mjs';
import path from 'node:path';

async function kubectl(page, line) {
  const before = (await page.textContent('#kubectl-output')).length;
  await page.click('#kubectl-input');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => document.getElementById('kubectl-output').textContent.length > n, before);
  return (await page.textContent('#kubectl-output')).slice(before);
}

test('scale-down: the api pods go, and after --scale-down-unneeded-time their nodes are removed and the cost goes down', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 1000 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.waitForSelector('#manifests-dialog[open]');
    await page.selectOption('#manifests-example', 'autoscaling.yaml');
    await page.waitForSelector('#manifests-result:not([hidden])');
    await page.click('#manifests-close');
    await page.waitForSelector('#node-groups:not([hidden])');
    await page.evaluate(() => { document.getElementById('toast').hidden = true; });

    // The scale-up of autoscale.test.mjs: two c5.xlarge registered at tick 40.
    while ((await shownTick(page)) < 41) await page.click('#btn-step');
    const added = await page.$$eval('#nodes article[data-node^="c5.xlarge-"]', (a) => a.map((x) => x.dataset.node));
    assert.equal(added.length, 2);
    assert.match(await page.textContent('#chart-cost-value'), /tick 41: \$0\.532\/h/);

    // The api pods go.
    const out = await kubectl(page, 'scale deployment api --replicas=0');
    assert.match(out, /deployment.apps\/api scaled/);
    await page.waitForFunction(() => document.querySelectorAll('#nodes .pod[data-pod^="api-"]').length === 0);

    // Play at 60 ticks/s until the second scale-down (tick 660), then pause.
    await page.selectOption('#speed', '60');
    await page.click('#btn-play');
    await page.waitForFunction(() => document.querySelectorAll('#node-groups .scale-log li.scale-down').length >= 3, null, { timeout: 90_000 });
    await page.click('#btn-play');
    await page.waitForFunction(() => document.getElementById('btn-play').getAttribute('aria-pressed') === 'false');
    const now = await shownTick(page);
    assert.ok(now >= 660, `tick ${now}`);

    const downs = await page.$$eval('#node-groups .scale-log li.scale-down', (li) => li.map((x) => x.textContent));
    for (const n of added) {
      assert.ok(downs.some((d) => d === `t=650 scale-down: removed ${n} of c5.xlarge (empty)`), `${n}: ${downs.join(' | ')}`);
      assert.equal(await page.$$eval(`#nodes article[data-node="${n}"]`, (a) => a.length), 0, `${n} is gone`);
    }
    assert.ok(downs.some((d) => /^t=660 scale-down: removed ip-10-0-\S+ of m5\.large \(evicted 1 pod\)$/.test(d)), downs.join(' | '));
    const g = await page.$$eval('#node-groups tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.group, tr.children[3].textContent.trim()])));
    assert.deepEqual(g, { 'c5.xlarge': '0', 'm5.large': '1', 'r5.large': '0' }, 'm5.large keeps its min of 1');

    // CA's events in the event log (newest first).
    const ev = (await eventLines(page)).filter((l) => /ScaleDown/.test(l));
    for (const n of added) assert.ok(ev.some((l) => l.includes('ScaleDownEmpty') && l.includes(`node/${n}`) && l.includes(`removing empty node "${n}"`)), `ScaleDownEmpty for ${n}:\n${ev.join('\n')}`);
    assert.ok(ev.some((l) => l.startsWith('t=660') && !l.includes('ScaleDownEmpty') && /node\/ip-10-0-/.test(l) && l.includes('marked the node as toBeDeleted/unschedulable')), ev.join('\n'));
    assert.ok(ev.some((l) => /pod\/web-/.test(l) && l.includes('deleting pod for node scale down')), ev.join('\n'));

    // The charts: 4 nodes and $0.532/h until 649, 2 and $0.192 at 650, 1 and
    // $0.096 at 660 (the figures the charts draw, and their readout now).
    const at = await page.evaluate(() => {
      const s = window.shepherdPage.sim.series(0);
      return [649, 650, 660].map((t) => [s.nodes[t], Math.round(s.costPerHour[t] * 1000) / 1000]);
    });
    assert.deepEqual(at, [[4, 0.532], [2, 0.192], [1, 0.096]]);
    assert.match(await page.textContent('#chart-nodes-value'), new RegExp(`tick ${now}: 1 node\\b`));
    assert.match(await page.textContent('#chart-cost-value'), new RegExp(`tick ${now}: \\$0\\.096/h`));
    assert.match(await page.textContent('#node-groups-cost'), /Cost now \$0\.096\/h/);
    await page.locator('#charts-panel').scrollIntoViewIfNeeded();
    await page.locator('#charts-panel').screenshot({ path: path.join(ARTIFACTS, 'autoscale-scaledown-charts.png') });
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(await axeViolations(page), [], 'after the scale-down');
    await page.locator('#cluster-panel').scrollIntoViewIfNeeded();
    await app.screenshot('autoscale-scaledown', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
