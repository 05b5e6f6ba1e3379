// Rollout conditions in the page: minReadySeconds from the deploy form makes
// Available lag Ready, the Deployments table shows kubectl's rollout status
// line, and a progress deadline that is not above minReadySeconds is refused
// next to its field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, shownTick, step, stepUntil, appRow, openTab, resetEmpty, problem,
} from './harness.mjs';

test('minReadySeconds holds Available back and the row shows kubectl rollout status', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, 7);
    await openTab(page, 'Node');
    await page.fill('#form-add-node input[name=name]', 'node-1');
    await page.fill('#form-add-node input[name=cpu]', '4');
    await page.fill('#form-add-node input[name=memory]', '8Gi');
    await page.click('#form-add-node button[type=submit]');

    await openTab(page, 'Deploy');
    const deploy = async (minReady, deadline) => {
      await page.fill('#form-deploy input[name=name]', 'web');
      await page.fill('#form-deploy input[name=replicas]', '2');
      await page.fill('#form-deploy input[name=cpu]', '500m');
      await page.fill('#form-deploy input[name=memory]', '256Mi');
      await page.fill('#form-deploy input[name=minReadySeconds]', minReady);
      await page.fill('#form-deploy input[name=progressDeadlineSeconds]', deadline);
      await page.click('#form-deploy button[type=submit]');
    };
    // Kubernetes requires progressDeadlineSeconds > minReadySeconds.
    const before = await shownTick(page);
    await deploy('5', '5');
    const p = await problem(page);
    assert.equal(p.where, 'field');
    assert.equal(p.field, 'progressDeadlineSeconds');
    assert.match(p.text, /progressDeadlineSeconds 5 must be greater than minReadySeconds 5/);
    assert.equal(await shownTick(page), before, 'nothing was submitted');

    await deploy('5', '600');
    assert.equal(await problem(page), null);
    // Bound at the deploy's tick, Ready one tick later, available 5 ticks after that.
    await step(page);
    let row = await appRow(page, 'web');
    assert.equal(row.ready, '2/2');
    assert.equal(row.available, 0);
    assert.equal(row.rollout, 'Progressing', 'Ready is not yet available');
    assert.equal(row.rolloutStatus, 'Waiting for deployment "web" rollout to finish: 0 of 2 updated replicas are available...');
    await app.screenshot('rollout-min-ready-waiting');
    const waited = await stepUntil(page, async () => (await appRow(page, 'web')).available === 2, 8);
    assert.equal(waited, 5, 'available minReadySeconds (5) ticks after Ready');
    row = await appRow(page, 'web');
    assert.equal(row.rolloutStatus, 'deployment "web" successfully rolled out');
    assert.equal(row.rollout, 'Complete');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
