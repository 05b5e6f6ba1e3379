// DaemonSets and bare Pods from the page's own forms, by real clicks: a
// DaemonSet with maxSurge 1 lands on every node it tolerates, a Pod bound by
// nodeName lands on the tainted node the DaemonSet skips; a roll to v2 runs
// the new pod beside the old one on one node at a time; the Pod is deleted;
// an invalid strategy is shown at its field and changes nothing; the share
// link reproduces the page. axe finds nothing on the tab, with an error
// showing and after the actions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, step, stepUntil, nodeCard, openTab, resetEmpty, problem,
  axeViolations, shownTick, launchBrowser, watchPage, eventLines, appRow, podNames,
} from './harness.mjs';

async function addNode(page, name, taints = '') {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', '2');
  await page.fill('#form-add-node input[name=memory]', '4Gi');
  await page.fill('#form-add-node input[name=taints]', taints);
  await page.click('#form-add-node button[value=add]');
}

const NODES = ['node-1', 'node-2', 'node-3'];

async function chips(page) {
  const out = {};
  for (const n of NODES) out[n] = (await nodeCard(page, n)).chips;
  return out;
}

const agentsOn = (list) => list.filter((c) => c.startsWith('log-agent-')).length;

test('DaemonSet and Pod forms: create, roll with surge, delete, refuse, and the link replays it', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await resetEmpty(page, 7);
    await addNode(page, 'node-1');
    await addNode(page, 'node-2');
    // The DaemonSet does not tolerate node-3's taint.
    await addNode(page, 'node-3', 'dedicated=db:NoSchedule');

    await openTab(page, 'DaemonSet & Pod');
    assert.deepEqual(await axeViolations(page, { include: '#actions' }), []);
    const ds = '#form-daemonset';
    // Kubernetes refuses maxSurge beside a non-zero maxUnavailable: shown at
    // maxSurge, and nothing is queued.
    const tick = await shownTick(page);
    await page.fill(`${ds} input[name=maxSurge]`, '1');
    await page.click(`${ds} button[type=submit]`);
    const p = await problem(page);
    assert.equal(p.where, 'field', JSON.stringify(p));
    assert.equal(p.field, 'maxSurge');
    assert.ok(p.focused);
    assert.match(p.text, /maxSurge 1 of DaemonSet log-agent is set while maxUnavailable is 1; expected maxUnavailable 0/);
    assert.equal(await shownTick(page), tick, 'a refusal does not step');
    assert.equal(await page.$('#daemonsets tr[data-app="log-agent"]'), null);
    assert.deepEqual(await axeViolations(page, { include: '#actions' }), [], 'with the error showing');

    await page.fill(`${ds} input[name=maxUnavailable]`, '0');
    await page.click(`${ds} button[type=submit]`);
    assert.equal(await problem(page), null);
    await stepUntil(page, async () => {
      const c = await chips(page);
      return agentsOn(c['node-1']) === 1 && agentsOn(c['node-2']) === 1;
    });
    assert.equal(agentsOn((await chips(page))['node-3']), 0, 'node-3 is tainted');
    // In the DaemonSets table, not the Deployments'.
    assert.equal(await page.$('#apps tr[data-app="log-agent"]'), null);
    const row = await page.$eval('#daemonsets tr[data-app="log-agent"]', (tr) => tr.textContent);
    assert.match(row, /1 \/ 0/, 'maxSurge / maxUnavailable');

    // A bare Pod bound by nodeName: the kubelet admits it on node-3 despite the taint.
    await page.fill('#form-pod input[name=name]', 'debug');
    await page.fill('#form-pod input[name=node]', 'node-3');
    await page.click('#form-pod button[type=submit]');
    assert.equal(await problem(page), null);
    await stepUntil(page, async () => (await chips(page))['node-3'].includes('debug'));

    // Roll to v2: with maxSurge 1, one node at a time holds the old pod and the new one.
    await page.click('#daemonsets tr[data-app="log-agent"] button.app-name');
    assert.equal(await page.$eval('#daemonset-select', (s) => s.value), 'log-agent');
    await page.fill('#form-daemonset-ops input[name=version]', 'v2');
    await page.getByRole('button', { name: 'Update DaemonSet', exact: true }).click();
    assert.equal(await problem(page), null);
    let most = 0;
    await stepUntil(page, async () => {
      const c = await chips(page);
      const doubled = NODES.filter((n) => agentsOn(c[n]) === 2).length;
      most = Math.max(most, doubled);
      const r = await page.$eval('#daemonsets tr[data-app="log-agent"]', (tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.col, td.textContent.trim()])));
      return r.template.startsWith('v2') && r.updated === '2' && r.ready === '2' && r.desired === '2' && doubled === 0;
    }, 20);
    assert.equal(most, 1, 'maxSurge 1: one node at a time runs two pods');
    // The row says what kubectl rollout status says for a daemon set.
    assert.equal(await page.textContent('#daemonsets tr[data-app="log-agent"] .rollout-status'), 'daemon set "log-agent" successfully rolled out');

    // Delete the Pod: nobody recreates it.
    // A bare Pod is in its own table (kubectl get pods), not the Deployments'.
    assert.equal(await page.$('#apps tr[data-app="debug"]'), null);
    assert.equal(await page.textContent('#bare-pods tr[data-app="debug"] [data-col="status"]'), 'Running');
    await page.click('#bare-pods tr[data-app="debug"] button.app-name');
    assert.equal(await page.$eval('#pod-select', (s) => s.value), 'debug');
    await page.getByRole('button', { name: 'Delete Pod', exact: true }).click();
    await stepUntil(page, async () => !(await chips(page))['node-3'].includes('debug'));
    await step(page, 3);
    assert.equal(await page.$('#bare-pods tr[data-app="debug"]'), null);
    assert.deepEqual(await axeViolations(page, { include: '#actions' }), []);
    await app.screenshot('workloads');

    // The link holds every form's action: a fresh page at it shows the same nodes.
    await page.waitForFunction(() => location.hash.startsWith(`#t=${document.body.dataset.tick}&s=`));
    const want = await chips(page);
    const url = page.url();
    const other = await launchBrowser();
    try {
      const p2 = other.context.pages()[0] ?? (await other.context.newPage());
      const watch = watchPage(p2);
      await p2.goto(url, { waitUntil: 'load' });
      assert.equal(await waitForEngine(p2), 'ready');
      await p2.waitForFunction((t) => document.body.dataset.tick === String(t), await shownTick(page));
      assert.deepEqual(await chips(p2), want);
      assert.deepEqual(watch.problems, []);
    } finally {
      await other.close();
    }
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

// A DaemonSet with a PriorityClass preempts on the node it must run on, as
// kube-scheduler's DefaultPreemption does for DaemonSet pods: node-1 is
// full of priority-0 pods, so the system-node-critical agent evicts one of
// them there (Preempted and Killing in the event log) and the evicted pod's
// replacement waits; hostNetwork lets the agent onto node-2, whose pod
// network is not up (the controller adds the network-unavailable toleration).
test('DaemonSet form: priorityClassName preempts on a full node, hostNetwork tolerates network-unavailable', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await resetEmpty(page, 7);
    await addNode(page, 'node-1');
    await addNode(page, 'node-2', 'node.kubernetes.io/network-unavailable:NoSchedule');
    // Two 1-CPU pods fill node-1 (node-2's taint keeps them off it).
    await openTab(page, 'Deploy');
    await page.fill('#form-deploy input[name=name]', 'batch');
    await page.fill('#form-deploy input[name=replicas]', '2');
    await page.fill('#form-deploy input[name=cpu]', '1');
    await page.fill('#form-deploy input[name=memory]', '256Mi');
    await page.click('#form-deploy button[type=submit]');
    await stepUntil(page, async () => (await nodeCard(page, 'node-1')).pods === 2);
    // Their names, while they exist (<replicaset>-<5 chars>).
    const batch = await podNames(page, ['batch-0', 'batch-1']);

    await openTab(page, 'DaemonSet & Pod');
    const ds = '#form-daemonset';
    await page.fill(`${ds} input[name=name]`, 'cni');
    await page.fill(`${ds} input[name=cpu]`, '500m');
    await page.fill(`${ds} input[name=priorityClassName]`, 'system-node-critical');
    await page.check(`${ds} input[name=hostNetwork]`);
    await page.click(`${ds} button[type=submit]`);
    assert.equal(await problem(page), null);
    const on = (chips, prefix) => chips.filter((c) => c.startsWith(prefix)).length;
    await stepUntil(page, async () => {
      const [a, b] = [await nodeCard(page, 'node-1'), await nodeCard(page, 'node-2')];
      return on(a.chips, 'cni-') === 1 && on(b.chips, 'cni-') === 1;
    });
    const n1 = await nodeCard(page, 'node-1');
    assert.equal(on(n1.chips, 'batch-'), 1, JSON.stringify(n1.chips));
    const lines = await eventLines(page);
    // kube-scheduler names the preemptor by its UID.
    const preempted = lines.filter((l) => /Preempted by pod [0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12} on node node-1/.test(l));
    assert.equal(preempted.length, 1, lines.slice(0, 20).join('\n'));
    // The victim is one of the two first batch pods, by its name.
    assert.ok(batch.some((b) => preempted[0].includes(`pod/${b}`)), `${preempted[0]} names none of ${batch}`);
    assert.equal(lines.filter((l) => /Killing/.test(l) && /Stopping container batch/.test(l)).length, 1);
    // The replacement (priority 0) cannot preempt the agent: it waits.
    const row = await appRow(page, 'batch');
    assert.equal(row.pending, 1);
    assert.deepEqual(await axeViolations(page, { include: '#actions' }), []);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
