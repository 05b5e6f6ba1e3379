// The kubectl prompt, typed as a person types it: reads answer in kubectl's
// columns (checked against the node cards the page draws), errors in
// kubectl's words, Tab completes, Up recalls, a change is an action of the
// script (the tick advances, Back undoes it, the link replays it), a long
// list pages, apply -f - reads the pasted manifests; zero axe violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  openApp, waitForEngine, shownTick, step, settledHash, resetEmpty, axeViolations, openTab, ROOT,
} from './harness.mjs';

const EXAMPLE = fs.readFileSync(path.join(ROOT, 'www', 'examples', 'three-zones.yaml'), 'utf8');

// Types a line into the prompt key by key and presses Enter; returns what the
// command added to the output.
async function kubectl(page, line) {
  const before = (await page.textContent('#kubectl-output')).length;
  await page.click('#kubectl-input');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => document.getElementById('kubectl-output').textContent.length > n, before);
  const all = await page.textContent('#kubectl-output');
  return all.slice(before);
}

// Pod names per node, as the node cards show them.
async function placement(page) {
  return page.$$eval('#nodes article.node', (els) => Object.fromEntries(
    els.map((el) => [el.dataset.node, [...el.querySelectorAll('.pods .pod')].map((b) => b.dataset.pod).sort()]),
  ));
}

// The rows of a table kubectl printed: an object per row, keyed by the header's columns.
function rows(text) {
  const lines = text.split('\n').filter((l) => l && !l.startsWith('$ kubectl'));
  const head = lines[0];
  const cols = [...head.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.slice(1).map((l) => Object.fromEntries(cols.map((c, i) => [
    c.name, l.slice(c.at, i + 1 < cols.length ? cols[i + 1].at : undefined).trim(),
  ])));
}

test('kubectl typed into the prompt over the tour: reads, errors, completion, history, a change Back and the link keep', async () => {
  const app = await openApp();
  let again = null;
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 12);

    // get nodes: every node card, in kubectl's columns.
    const nodesOut = await kubectl(page, 'get nodes');
    assert.match(nodesOut, /^\$ kubectl get nodes\nNAME +STATUS +ROLES +AGE +VERSION\n/);
    const nodes = rows(nodesOut);
    const placed = await placement(page);
    assert.deepEqual(nodes.map((n) => n.NAME).sort(), Object.keys(placed).sort());

    // get pods -o wide: each pod's NODE is the card it is drawn on.
    const wide = rows(await kubectl(page, 'get po -o wide'));
    assert.ok(wide.length > 0);
    assert.deepEqual(Object.keys(wide[0]), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    for (const r of wide) {
      if (r.NODE === '<none>') continue;
      assert.ok(placed[r.NODE].includes(r.NAME), `${r.NAME} on ${r.NODE}: ${JSON.stringify(placed[r.NODE])}`);
    }
    const names = wide.map((r) => r.NAME);
    assert.deepEqual(names, [...names].sort(), 'listed by name, as the API server lists');

    // Errors in kubectl's words.
    assert.match(await kubectl(page, 'get pods nope'), /Error from server \(NotFound\): pods "nope" not found/);
    assert.match(await kubectl(page, 'get foo'), /error: the server doesn't have a resource type "foo"/);

    // Tab completes the verb, then lists the nodes.
    const node = nodes[0].NAME;
    await page.click('#kubectl-input');
    await page.keyboard.type('cord');
    await page.keyboard.press('Tab');
    assert.equal(await page.inputValue('#kubectl-input'), 'cordon ');
    await page.keyboard.type(node.slice(0, -1));
    await page.keyboard.press('Tab');
    const completed = await page.inputValue('#kubectl-input');
    assert.ok(completed.startsWith(`cordon ${node.slice(0, -1)}`), completed);
    await page.fill('#kubectl-input', '');

    // A change: one action, queued for the next tick, which the page steps to.
    const tick = await shownTick(page);
    const said = await kubectl(page, `cordon ${node}`);
    assert.match(said, new RegExp(`node/${node} cordoned`));
    await page.waitForFunction((t) => Number(document.body.dataset.tick) === t + 1, tick);
    assert.equal(rows(await kubectl(page, `get nodes ${node}`))[0].STATUS, 'Ready,SchedulingDisabled');
    assert.match(await kubectl(page, `cordon ${node}`), new RegExp(`node/${node} already cordoned`));

    // Up recalls the lines typed, newest first.
    await page.click('#kubectl-input');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.inputValue('#kubectl-input'), `cordon ${node}`);
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.inputValue('#kubectl-input'), `get nodes ${node}`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue('#kubectl-input'), '');

    // The link replays the typed cordon.
    const hash = await settledHash(page);
    again = await openApp({ path: hash });
    assert.equal(await waitForEngine(again.page), 'ready');
    assert.equal(await shownTick(again.page), tick + 1);
    assert.equal(rows(await kubectl(again.page, `get nodes ${node}`))[0].STATUS, 'Ready,SchedulingDisabled');

    // Back to before it fired: the node is schedulable again.
    await page.click('#btn-back');
    await page.waitForFunction((t) => Number(document.body.dataset.tick) === t, tick);
    assert.equal(rows(await kubectl(page, `get nodes ${node}`))[0].STATUS, 'Ready');

    assert.deepEqual(await axeViolations(page, { include: '#kubectl-panel' }), []);
    await app.screenshot('kubectl-prompt', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    if (again) await again.close();
    await app.close();
  }
});

test('kubectl create, scale with paging, apply -f - from the pasted text, and drain as kubectl refuses it', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await resetEmpty(page, 7);
    await openTab(page, 'Node');
    for (const name of ['node-1', 'node-2']) {
      await page.fill('#form-add-node input[name=name]', name);
      await page.fill('#form-add-node input[name=cpu]', '8');
      await page.fill('#form-add-node input[name=memory]', '16Gi');
      await page.click('#form-add-node button[type=submit]');
    }
    assert.match(await kubectl(page, 'create deployment big --image=nginx:1.27 --replicas=60'), /deployment\.apps\/big created/);
    await step(page, 2);
    const first = rows(await kubectl(page, 'get pods -l app=big'));
    assert.equal(first.length, 50, 'a first screen of 50 rows');
    assert.match(await page.textContent('#kubectl-page'), /rows 1–50 of 60/);
    await page.click('#kubectl-more');
    await page.waitForFunction(() => /rows 51–60 of 60/.test(document.getElementById('kubectl-page').textContent));
    const out = await page.textContent('#kubectl-output');
    const second = rows(out.slice(out.lastIndexOf('NAME ')));
    assert.equal(second.length, 10);
    assert.equal(new Set([...first, ...second].map((r) => r.NAME)).size, 60);

    // apply -f - reads the pasted manifests.
    await page.click('#kubectl-stdin-box summary');
    await page.fill('#kubectl-stdin', [
      'apiVersion: policy/v1', 'kind: PodDisruptionBudget', 'metadata:', '  name: big-pdb',
      'spec:', '  minAvailable: 60', '  selector:', '    matchLabels:', '      app: big', '',
    ].join('\n'));
    assert.match(await kubectl(page, 'apply -f -'), /poddisruptionbudget\.policy\/big-pdb created/);
    await step(page);
    const pdb = rows(await kubectl(page, 'get pdb'));
    assert.deepEqual(pdb.map((r) => [r.NAME, r['MIN AVAILABLE'], r['ALLOWED DISRUPTIONS']]), [['big-pdb', '60', '0']]);

    // drain: --disable-eviction is refused; a drain the budget holds back waits.
    assert.match(await kubectl(page, 'drain node-1 --disable-eviction'), /refused here as unsafe/);
    const drained = await kubectl(page, 'drain node-1 --ignore-daemonsets');
    assert.match(drained, /node\/node-1 cordoned\n/);
    assert.match(drained, /evicting pod default\/big-/);
    await step(page, 3);
    const described = await kubectl(page, 'describe node node-1');
    assert.match(described, /Unschedulable: {6}true/);
    assert.match(described, /Cannot evict pod \S+ as it would violate the pod's disruption budget/);
    assert.match(await kubectl(page, 'top nodes'), /NAME +CPU\(cores\) +CPU\(%\) +MEMORY\(bytes\) +MEMORY\(%\)/);
    assert.match(await kubectl(page, 'uncordon node-1'), /node\/node-1 uncordoned/);
    assert.match(await kubectl(page, 'delete pdb big-pdb'), /poddisruptionbudget\.policy "big-pdb" deleted/);
    await step(page);
    assert.match(await kubectl(page, 'get pdb'), /No resources found in default namespace\./);

    // Taints and labels on a node, each an action.
    assert.match(await kubectl(page, 'taint nodes node-2 gpu=true:NoSchedule'), /node\/node-2 tainted/);
    assert.match(await kubectl(page, 'taint nodes node-2 gpu=false:NoSchedule'), /already has gpu taint\(s\) with same effect\(s\) and --overwrite is false/);
    assert.match(await kubectl(page, 'label nodes node-2 disk=ssd'), /node\/node-2 labeled/);
    await step(page);
    const n2 = await kubectl(page, 'describe node node-2');
    assert.match(n2, /Taints: {13}gpu=true:NoSchedule/);
    assert.match(n2, /disk=ssd/);
    assert.deepEqual(rows(await kubectl(page, 'get nodes -l disk=ssd')).map((r) => r.NAME), ['node-2']);
    assert.match(await kubectl(page, 'taint nodes node-2 gpu-'), /node\/node-2 untainted/);

    // A rollout: set image, status, undo, restart, scale.
    assert.match(await kubectl(page, 'set image deployment/big app=nginx:1.28'), /deployment\.apps\/big image updated/);
    await step(page, 3);
    assert.match(rows(await kubectl(page, 'get deploy big -o wide'))[0].IMAGES, /^nginx:1\.28$/);
    assert.match(await kubectl(page, 'rollout status deployment/big'), /deployment "big" successfully rolled out|Waiting for deployment "big" rollout to finish/);
    assert.match(await kubectl(page, 'rollout undo deployment/big'), /deployment\.apps\/big rolled back/);
    await step(page, 3);
    assert.equal(rows(await kubectl(page, 'get deploy big -o wide'))[0].IMAGES, 'nginx:1.27');
    assert.match(await kubectl(page, 'rollout restart deploy/big'), /deployment\.apps\/big restarted/);
    assert.match(await kubectl(page, 'scale deploy/big --replicas=10'), /deployment\.apps\/big scaled/);
    await step(page, 5);
    assert.equal(rows(await kubectl(page, 'get deploy big'))[0]['UP-TO-DATE'], '10');
    assert.ok(rows(await kubectl(page, 'get rs')).length >= 3, 'a ReplicaSet per template');

    assert.deepEqual(await axeViolations(page, { include: '#kubectl-panel' }), []);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('kubectl over an imported dump: the pods where the page drew them, the DaemonSet, describe and events', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'three-zones.yaml', { type: 'text/yaml' }));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        document.querySelector('main, body').dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    }, EXAMPLE);
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    await page.click('#manifests-close');
    const placed = await placement(page);
    const pods = rows(await kubectl(page, 'get pods -A -o wide'));
    assert.equal(pods.length, Object.values(placed).flat().length);
    assert.equal(Object.keys(pods[0])[0], 'NAMESPACE');
    for (const r of pods) assert.ok(placed[r.NODE].includes(r.NAME), `${r.NAME} on ${r.NODE}`);
    const ds = rows(await kubectl(page, 'get ds'));
    assert.deepEqual(ds.map((r) => [r.NAME, r.DESIRED, r.CURRENT]), [['log-agent', '6', '6']]);
    const deploys = rows(await kubectl(page, 'get deployments'));
    assert.deepEqual(deploys.map((r) => r.NAME), ['cache', 'web']);
    const d = await kubectl(page, 'describe node a-1');
    assert.match(d, /topology\.kubernetes\.io\/zone=zone-a/);
    assert.match(d, new RegExp(`Non-terminated Pods: {10}\\(${placed['a-1'].length} in total\\)`));
    const web = pods.find((r) => r.NAME.startsWith('web-')).NAME;
    const p = await kubectl(page, `describe pod ${web}`);
    assert.match(p, /Controlled By: {6}ReplicaSet\/web-/);
    assert.match(p, /Scheduled +\S+ +default-scheduler +Successfully assigned default\//);
    // Explained as of the cycle that bound it (the session replays its run).
    assert.match(p, /Explain \(default-scheduler, as of the scheduling cycle that bound it, tick \d+\):\n {2}\S+ was bound to /);
    assert.match(await kubectl(page, 'get events'), /^\$ kubectl get events\nLAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n/);
    assert.match(await kubectl(page, 'get svc -o wide'), /NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE +SELECTOR/);
    assert.match(await kubectl(page, 'get pods -o yaml'), /kind: List/);
    assert.deepEqual(await axeViolations(page, { include: '#kubectl-panel' }), []);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
