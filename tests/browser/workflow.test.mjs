// A person builds a cluster with the forms, deploys, scales, kills a node and
// watches it heal, rolls out a new version, drains a node under a
// PodDisruptionBudget, and asks why a pod is where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, shownTick, step, stepUntil, skip, nodeCard, appRow, eventLines, toast, openTab, resetEmpty, openMenu, podName,
} from './harness.mjs';

async function addNode(page, name, cpu = '4', memory = '8Gi', labels = '') {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', cpu);
  await page.fill('#form-add-node input[name=memory]', memory);
  await page.fill('#form-add-node input[name=labels]', labels);
  await page.click('#form-add-node button[type=submit]');
}

test('deploy, scale, kill a node, and watch the cluster heal', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // This story is told with bin packing: choose binpack for new runs
    // (they start with default-scheduler otherwise), then start over.
    await resetEmpty(page, 7);
    await openMenu(page, 'scheduler');
    await page.selectOption('#policy', 'binpack');
    await resetEmpty(page, 7);
    for (const [n, z] of [['node-1', 'zone-a'], ['node-2', 'zone-b'], ['node-3', 'zone-c']]) {
      await addNode(page, n, '4', '8Gi', `topology.kubernetes.io/zone=${z}`);
    }
    assert.equal(await shownTick(page), 3, 'each action fired at the next tick, at once');
    assert.equal(await page.locator('#nodes article.node').count(), 3);
    assert.match((await toast(page)).text, /add node node-3/);

    await openTab(page, 'Deploy');
    await page.fill('#form-deploy input[name=name]', 'web');
    await page.fill('#form-deploy input[name=replicas]', '4');
    await page.fill('#form-deploy input[name=cpu]', '1');
    await page.fill('#form-deploy input[name=memory]', '1Gi');
    await page.click('#form-deploy button[type=submit]');
    assert.equal((await nodeCard(page, 'node-1')).pods, 4, 'bin-packed onto node-1');
    await step(page);
    assert.equal((await appRow(page, 'web')).ready, '4/4');

    // Scale from the Deployments table: the name selects it in the form.
    await page.click('#apps tr[data-app="web"] button.app-name');
    assert.equal(await page.isVisible('#form-app'), true);
    await page.fill('#form-app input[name=replicas]', '6');
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    assert.equal((await nodeCard(page, 'node-2')).pods, 2, 'node-1 is full, the rest go to node-2');
    await step(page);
    assert.equal((await appRow(page, 'web')).ready, '6/6');

    // Stop node-1's kubelet from its card: silent, NotReady after the timeout.
    await page.getByRole('button', { name: 'Stop kubelet of node-1' }).click();
    assert.equal((await nodeCard(page, 'node-1')).status, 'Ready', 'not before the heartbeat timeout');
    assert.match((await nodeCard(page, 'node-1')).text, /kubelet silent/);
    // One tick is one second: the node monitor grace period is 50 s. Skip
    // jumps over the quiet seconds to the tick that declares it NotReady.
    const silentAt = await shownTick(page);
    const notReadyAt = await skip(page);
    assert.equal((await nodeCard(page, 'node-1')).status, 'NotReady');
    assert.equal(notReadyAt - silentAt, 51, 'NotReady after 50 s of silence, not before');
    assert.equal(await page.$eval('#nodes article[data-node="node-1"]', (el) => el.classList.contains('notready')), true, 'dimmed');
    assert.equal((await nodeCard(page, 'node-1')).pods, 4, 'its pods are marked not Ready, not deleted');
    assert.match((await nodeCard(page, 'node-1')).text, /unreachable:NoExecute/);
    // Each counts down its 300 s of tolerationSeconds.
    const countdowns = await page.$$eval('#nodes article[data-node="node-1"] .pod .countdown', (els) => els.map((e) => e.textContent));
    assert.equal(countdowns.length, 4);
    assert.ok(countdowns.every((c) => c === '300s'), countdowns.join(' '));
    assert.equal((await appRow(page, 'web')).ready, '2/6', 'the Service and the Deployment count them not Ready');
    assert.ok((await eventLines(page)).some((e) => /Warning\s*NodeNotReady/.test(e)));
    await app.screenshot('workflow-node-killed');
    await step(page, 10);
    assert.equal(await page.textContent('#nodes article[data-node="node-1"] .pod .countdown'), '290s');
    // Skip to the eviction, 300 s after NotReady.
    assert.equal(await skip(page), notReadyAt + 300);
    assert.equal((await nodeCard(page, 'node-1')).pods, 0);
    assert.ok((await eventLines(page)).some((e) => /TaintManagerEviction/.test(e)));
    await stepUntil(page, async () => (await appRow(page, 'web')).ready === '6/6', 4);
    const elsewhere = (await nodeCard(page, 'node-2')).pods + (await nodeCard(page, 'node-3')).pods;
    assert.equal(elsewhere, 6, 'the Deployment replaced the evicted pods on the other nodes');

    // Start it again: Ready at its next heartbeat.
    await page.getByRole('button', { name: 'Start kubelet of node-1' }).click();
    await stepUntil(page, async () => (await nodeCard(page, 'node-1')).status === 'Ready', 3);
    assert.ok((await eventLines(page)).some((e) => /NodeReady/.test(e)));
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('roll out a new version, drain a node under a budget, and explain pods', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // The tour builds the cluster: at tick 5 web has 8 Ready pods on node-1 and node-3.
    await step(page, 5);
    assert.equal((await appRow(page, 'web')).ready, '8/8');

    // A pending pod: why is cache-2 nowhere? Every node's filter verdict.
    await page.click('#pending button.pod');
    await page.waitForSelector('#explain[open]');
    assert.equal(await page.textContent('#explain-title'), `Why is ${await podName(page, 'cache-2')} Pending?`);
    const rows = await page.$$eval('#explain-table tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.equal(rows.length, 5, 'one verdict per node');
    assert.ok(rows.some((r) => /gpu-1.*TaintToleration.*untolerated taint\(s\).*dedicated=gpu:NoSchedule/.test(r)), rows.join('\n'));
    assert.ok(rows.some((r) => /InterPodAffinity.*anti-affinity/.test(r)), rows.join('\n'));
    await app.screenshot('workflow-explain-pending');
    await page.keyboard.press('Escape');

    // A bound pod: why is web-0 on node-1? Ranked, with scores.
    const web0 = await podName(page, 'web-0');
    await page.click(`#nodes article[data-node="node-1"] .pod[data-pod="${web0}"]`);
    await page.waitForSelector('#explain[open]');
    assert.equal(await page.textContent('#explain-title'), `Why is ${web0} on node-1?`);
    assert.match(await page.textContent('#explain-table tbody tr:first-child'), /#1/);
    await page.click('#explain .close');

    // Drop the rest of the tour's script: from here on, only what this test does happens.
    await page.click('#btn-discard');
    assert.equal(await page.isVisible('#upcoming-empty'), true);

    // Roll web to v2 from the Change app form.
    await page.click('#apps tr[data-app="web"] button.app-name');
    await page.fill('#form-app input[name=version]', 'v2');
    await page.getByRole('button', { name: 'Roll out' }).click();
    const during = await appRow(page, 'web');
    assert.match(during.rollout, /Rolling to v2/);
    assert.match(during.rolloutStatus, /^Waiting for deployment "web" rollout to finish: /);
    assert.ok(await page.locator('#nodes .pod.outdated').count() > 0, 'old-revision pods are marked');
    await app.screenshot('workflow-rolling');
    await stepUntil(page, async () => (await appRow(page, 'web')).rollout === 'Complete', 20);
    const done = await appRow(page, 'web');
    assert.equal(done.updated, 8);
    assert.equal(done.rolloutStatus, 'deployment "web" successfully rolled out');
    assert.match(done.version, /^v2/);
    assert.equal(await page.locator('#nodes .pod.outdated').count(), 0);

    // A budget: at most one web pod unavailable. Then drain node-3 from its card.
    await openTab(page, 'Budget & Service');
    await page.fill('#form-pdb input[name=name]', 'web-pdb');
    await page.fill('#form-pdb input[name=selector]', 'app=web');
    await page.selectOption('#form-pdb select[name=kind]', 'maxUnavailable');
    await page.fill('#form-pdb input[name=value]', '1');
    await page.click('#form-pdb button[type=submit]');
    assert.match(await page.textContent('#pdbs'), /web-pdb/);
    const before = (await nodeCard(page, 'node-3')).pods;
    assert.ok(before > 1, `node-3 runs ${before} pods`);
    await page.getByRole('button', { name: 'Drain node node-3' }).click();
    const drained = await nodeCard(page, 'node-3');
    assert.equal(drained.cordoned, true);
    assert.equal(drained.draining, true);
    assert.match(drained.text, /Draining/);
    assert.ok(drained.pods < before && drained.pods > 0, 'evicted only as fast as the budget allows');
    // kubectl drain's words on the badge: the budget's refusal, retried after 5 s.
    assert.ok(drained.titles.some((t) => /will retry after 5s/.test(t) && /disruption budget/.test(t)), `the budget held the drain back: ${drained.titles}`);
    await stepUntil(page, async () => (await nodeCard(page, 'node-3')).pods === 0, 40);
    const drainedNow = await nodeCard(page, 'node-3');
    assert.match(drainedNow.text, /SchedulingDisabled/);
    assert.ok(drainedNow.titles.some((t) => /node\/node-3 drained/.test(t)), `${drainedNow.titles}`);
    await stepUntil(page, async () => (await appRow(page, 'web')).ready === '8/8', 3);

    // The budget goes; a new strategy for web.
    await page.getByRole('button', { name: 'Delete PodDisruptionBudget web-pdb' }).click();
    assert.equal(await page.isVisible('#pdbs-empty'), true);
    await page.click('#apps tr[data-app="web"] button.app-name');
    await page.fill('#form-app input[name=maxSurge]', '50%');
    await page.fill('#form-app input[name=maxUnavailable]', '0');
    await page.getByRole('button', { name: 'Set strategy' }).click();
    assert.match(await page.textContent('#apps tr[data-app="web"]'), /50% \/ 0/);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
