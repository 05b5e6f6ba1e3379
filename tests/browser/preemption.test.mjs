// Priority and preemption in the page: a full cluster of low-priority pods,
// a PriorityClass added from its form, then a high-priority Deployment: its
// pods preempt victims (Preempted and Killing in the event log), land on the
// freed nodes, and explain says which node was chosen and why. A refused
// PriorityClass is shown at its field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, step, stepUntil, nodeCard, eventLines, openTab, resetEmpty, problem, podName,
} from './harness.mjs';

async function addNode(page, name) {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', '4');
  await page.fill('#form-add-node input[name=memory]', '8Gi');
  await page.click('#form-add-node button[value=add]');
}

async function deploy(page, { name, replicas, cpu, priorityClassName = '' }) {
  await openTab(page, 'Deploy');
  const f = '#form-deploy';
  await page.fill(`${f} input[name=name]`, name);
  await page.fill(`${f} input[name=replicas]`, String(replicas));
  await page.fill(`${f} input[name=cpu]`, cpu);
  await page.fill(`${f} input[name=memory]`, '256Mi');
  await page.fill(`${f} input[name=priorityClassName]`, priorityClassName);
  await page.click(`${f} button[type=submit]`);
}

async function addClass(page, name, value) {
  await openTab(page, 'Deploy');
  await page.fill('#form-priority-class input[name=name]', name);
  await page.fill('#form-priority-class input[name=value]', String(value));
  await page.click('#form-priority-class button[type=submit]');
}

test('a high-priority Deployment preempts lower-priority pods in a full cluster', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await resetEmpty(page, 7);
    for (const n of ['node-1', 'node-2', 'node-3']) await addNode(page, n);
    // Twelve 1-CPU batch pods fill the three 4-CPU nodes.
    await deploy(page, { name: 'batch', replicas: 12, cpu: '1' });
    await stepUntil(page, async () => {
      const cards = await Promise.all(['node-1', 'node-2', 'node-3'].map((n) => nodeCard(page, n)));
      return cards.every((c) => c.pods === 4);
    });

    // A bad value is refused at its field and changes nothing.
    await addClass(page, 'too-high', 2000000000);
    const p = await problem(page);
    assert.ok(p && /1000000000/.test(p.text), JSON.stringify(p));
    await addClass(page, 'high', 1000);
    await step(page);

    // web: two pods of 2 CPUs at priority 1000; batch (priority 0) makes room.
    await deploy(page, { name: 'web', replicas: 2, cpu: '2', priorityClassName: 'high' });
    await stepUntil(page, async () => {
      const cards = await Promise.all(['node-1', 'node-2', 'node-3'].map((n) => nodeCard(page, n)));
      return cards.flatMap((c) => c.chips).filter((c) => c.startsWith('web-')).length === 2;
    });
    const lines = await eventLines(page);
    // kube-scheduler names the preemptor by its UID.
    const preempted = lines.filter((l) => /Preempted by pod [0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12} on node node-/.test(l));
    const killing = lines.filter((l) => /Killing/.test(l));
    assert.equal(preempted.length, 4, lines.slice(0, 30).join('\n'));
    assert.equal(killing.length, 4);
    // Each web pod took the room of two batch pods: every node is full, with
    // 2 x 2 CPUs of web and eight batch pods left running. (Every figure ties
    // between the nodes, so each preemptor takes the first node that can
    // make room: web-1 counts web-0's nominated room, as kube-scheduler
    // counts nominated pods, and frees the rest of the same node.)
    const cards = await Promise.all(['node-1', 'node-2', 'node-3'].map((n) => nodeCard(page, n)));
    const chips = cards.flatMap((c) => c.chips);
    assert.equal(chips.filter((x) => x.startsWith('batch-')).length, 8, JSON.stringify(cards.map((c) => c.chips)));
    for (const c of cards) {
      const cpu = c.chips.reduce((sum, x) => sum + (x.startsWith('web-') ? 2 : 1), 0);
      assert.equal(cpu, 4, JSON.stringify(c.chips));
    }

    // Explain says which node was chosen, the victims and the figures.
    await page.click(`#nodes .pods .pod[data-pod="${await podName(page, 'web-0')}"]`);
    await page.waitForSelector('#explain[open]');
    const summary = await page.textContent('#explain-summary');
    // The victims by their names: <replicaset>-<5 chars>.
    assert.match(summary, /preemption deleted 2 lower-priority pod\(s\) on node-\d \(batch-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}, batch-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}\)/);
    assert.match(summary, /highest victim priority 0/);
    await app.screenshot('preemption-explain', { fullPage: false });
    await page.keyboard.press('Escape');
    await app.screenshot('preemption');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
