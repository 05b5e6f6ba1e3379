// Cluster Autoscaler on the page (issue 46): the autoscaling example
// imports from the dialog's list; the node groups show under the node list
// with min / current / max, each node card says its group; at the first
// loop (tick 10) Cluster Autoscaler asks for nodes for the Pending api pods
// (TriggeredScaleUp in the event log, the pod's explain says which group and
// why), they register after the 30 s provisioning delay and the pods bind
// there; the nodes and cost charts follow; the report pod, whose instance
// type no group offers, says why per group. Zero axe-core violations in each state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, openMenu, eventLines, axeViolations, ARTIFACTS } from './harness.mjs';

// The node groups table as { group: {min, registered, target, max, price} }.
async function groups(page) {
  return page.$$eval('#node-groups tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
    const c = [...tr.children].map((td) => td.textContent.trim());
    return [tr.dataset.group, { min: Number(c[2]), registered: c[3], target: c[4], max: Number(c[5]), price: c[6] }];
  })));
}

async function stepTo(page, tick) {
  while ((await shownTick(page)) < tick) await page.click('#btn-step');
  return shownTick(page);
}

test('the autoscaling example scales up after the provisioning delay, with its cost and its reasons', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 1000 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    // Without node groups nothing of the autoscaler shows.
    assert.ok(await page.isHidden('#node-groups'));
    assert.ok(await page.isHidden('[data-chart="cost"]'));

    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.waitForSelector('#manifests-dialog[open]');
    await page.selectOption('#manifests-example', 'autoscaling.yaml');
    await page.waitForSelector('#manifests-result:not([hidden])');
    await page.click('#manifests-close');
    await page.waitForSelector('#node-groups:not([hidden])');
    // The import's toast sits over the Actions panel's buttons (as
    // layout.test.mjs does, it is put away before axe-core looks).
    await page.evaluate(() => { document.getElementById('toast').hidden = true; });

    // Tick 1: two m5.large nodes, the groups as the templates declare them.
    let g = await groups(page);
    assert.deepEqual(Object.keys(g), ['c5.xlarge', 'm5.large', 'r5.large']);
    assert.deepEqual(g['m5.large'], { min: 1, registered: '2', target: '2', max: 6, price: '$0.096/h' });
    assert.deepEqual(g['c5.xlarge'], { min: 0, registered: '0', target: '0', max: 4, price: '$0.17/h' });
    assert.match(await page.textContent('#node-groups-summary'), /expander least-waste/);
    assert.match(await page.textContent('#node-groups-cost'), /Cost now \$0\.192\/h/);
    const first = '#nodes article[data-node="ip-10-0-1-17.eu-west-1.compute.internal"]';
    assert.match(await page.textContent(`${first} .node-group`), /^group m5\.large$/);
    assert.ok(await page.isVisible('[data-chart="nodes"]'));
    assert.ok(await page.isVisible('[data-chart="cost"]'));
    const apiPending = await page.$$eval('#pending .pod[data-pod^="api-"]', (b) => b.map((x) => x.dataset.pod));
    assert.equal(apiPending.length, 4, 'two api pods fit the two nodes, four wait');

    // Before the first loop the explain says so.
    await page.click(`#pending .pod[data-pod="${apiPending[0]}"]`);
    await page.waitForSelector('#explain[open]');
    assert.match(await page.textContent('#explain-autoscale'), /no scale-up for it yet: Cluster Autoscaler looks at Pending pods every 10 s/);
    await page.keyboard.press('Escape');

    // Tick 10: the first loop asks for two c5.xlarge for the four pods (by
    // hand: 3,850m and 8Gi - 64Mi left on one hold two pods of 1 cpu and
    // 3Gi, so 2 nodes, 50% idle cpu and 25% idle memory of their capacity;
    // m5.large needs 4 nodes, 63% idle memory; r5.large 81%).
    await stepTo(page, 10);
    g = await groups(page);
    const group = 'c5.xlarge';
    const asked = 2;
    assert.deepEqual(g[group], { min: 0, registered: '0', target: '2 (+2)', max: 4, price: '$0.17/h' });
    assert.equal(g['m5.large'].target, '2');
    assert.equal(g['r5.large'].target, '0');
    const lines = await eventLines(page);
    assert.ok(lines.some((l) => l.includes('TriggeredScaleUp') && l.includes(`pod triggered scale-up: [{${group} `)), 'TriggeredScaleUp in the event log');
    assert.ok(lines.some((l) => l.includes('NotTriggerScaleUp') && l.includes('report-')), 'NotTriggerScaleUp for the report pod');
    assert.match(await page.textContent('#node-groups .scale-log'), new RegExp(`t=10 scale-up of ${group.replace('.', '\\.')} 0 → ${asked}`));

    const pod = apiPending[0];
    await page.click(`#pending .pod[data-pod="${pod}"]`);
    await page.waitForSelector('#explain[open]');
    const said = await page.textContent('#explain-autoscale');
    assert.match(said, new RegExp(`triggered scale-up of ${group.replace('.', '\\.')} by ${asked} at tick 10 \\(0 -> ${asked}\\); the nodes register at tick 40`));
    assert.match(said, /Expander: least-waste: c5\.xlarge 50% idle cpu, 25% idle memory against m5\.large 50% idle cpu, 63% idle memory; r5\.large 50% idle cpu, 81% idle memory\./);
    assert.deepEqual(await axeViolations(page), [], 'explain of a pod waiting for its scale-up');
    await app.screenshot('autoscale-explain-scale-up', { fullPage: false });
    await page.keyboard.press('Escape');

    // Tick 40: the nodes register, the pods bind on them.
    await stepTo(page, 39);
    assert.equal(await page.$$eval(`#nodes article[data-node^="${group}-"]`, (a) => a.length), 0, 'not before the delay');
    await stepTo(page, 40);
    await page.waitForFunction((gr) => document.querySelectorAll(`#nodes article[data-node^="${gr}-"]`).length > 0, group);
    const newNodes = await page.$$eval(`#nodes article[data-node^="${group}-"]`, (a) => a.map((x) => x.dataset.node));
    assert.equal(newNodes.length, asked);
    for (const n of newNodes) {
      assert.match(await page.textContent(`#nodes article[data-node="${n}"] .node-group`), new RegExp(`group ${group.replace('.', '\\.')}`));
    }
    assert.equal(await page.$$eval('#pending .pod[data-pod^="api-"]', (b) => b.length), 0, 'every api pod bound');
    g = await groups(page);
    assert.equal(g[group].registered, String(asked));
    assert.equal(g[group].target, String(asked));
    // The charts: nodes 2 -> 2 + asked, and the cost per hour with them.
    assert.match(await page.textContent('#chart-nodes-value'), new RegExp(`tick 40: ${2 + asked} nodes`));
    const cost = (0.192 + asked * 0.17).toFixed(3);
    assert.match(await page.textContent('#chart-cost-value'), new RegExp(`tick 40: \\$${cost.replace('.', '\\.')}/h`));
    assert.match(await page.textContent('#node-groups-cost'), new RegExp(`Cost now \\$${Number(cost)}/h`));
    await page.locator('#charts-panel').scrollIntoViewIfNeeded();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#charts-panel').screenshot({ path: path.join(ARTIFACTS, 'autoscale-charts.png') });
    // From the top, as the other tests run axe-core: scrolled, the sticky
    // bar covers the Actions panel's buttons and axe counts them obscured.
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(await axeViolations(page), [], 'after the scale-up');

    // The report pod asks for a g5.xlarge: no group offers one.
    await page.click('#pending .pod[data-pod^="report-"]');
    await page.waitForSelector('#explain[open]');
    const why = await page.textContent('#explain-autoscale');
    assert.match(why, /no node group helps/);
    const reasons = await page.$$eval('#explain-autoscale tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.deepEqual(reasons, ['c5.xlarge', 'm5.large', 'r5.large'].map((g) => `${g}node(s) didn't match Pod's node affinity/selector`));
    assert.deepEqual(await axeViolations(page), [], 'explain of a pod no group helps');
    await app.screenshot('autoscale-explain-no-group', { fullPage: false });
    await page.keyboard.press('Escape');
    await page.locator('#cluster-panel').scrollIntoViewIfNeeded();
    await app.screenshot('autoscale-nodes', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
