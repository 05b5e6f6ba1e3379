// Pods named as Kubernetes names them (<replicaset>-<5 chars>, <daemonset>-<5
// chars>; a bare Pod by its own name), everywhere the page names a pod: the
// node cards, the Pending list, kubectl (get, describe by the short form
// web-0 or the name, Tab completion, AGE of a Pending pod), the explain
// dialog as of the decision, the compare view, and the link's replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, step, shownTick, openMenu, openTab, problem, podName, podNames,
} from './harness.mjs';

// k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no 0, 1, 3.
const GENERATED = /^(?:[a-z0-9-]+\/)?[a-z0-9-]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

async function kubectl(page, line) {
  const before = (await page.textContent('#kubectl-output')).length;
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction((n) => document.getElementById('kubectl-output').textContent.length > n, before);
  return (await page.textContent('#kubectl-output')).slice(before);
}

function rows(text) {
  const lines = text.split('\n').filter((l) => l && !l.startsWith('$ kubectl'));
  const cols = [...lines[0].matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.slice(1).map((l) => Object.fromEntries(cols.map((c, i) => [
    c.name, l.slice(c.at, i + 1 < cols.length ? cols[i + 1].at : undefined).trim(),
  ])));
}

async function placement(page) {
  return page.$$eval('#nodes article.node', (els) => Object.fromEntries(
    els.map((el) => [el.dataset.node, [...el.querySelectorAll('.pods .pod')].map((b) => b.dataset.pod).sort()]),
  ));
}

test('pods carry Kubernetes names in the cards, kubectl, explain, compare and the link', async () => {
  const app = await openApp({ viewport: { width: 1280, height: 900 } });
  let again = null;
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    // The tour at tick 5: web's 8 pods bound, cache-2 Pending (anti-affinity).
    await step(page, 5);
    const placed = await placement(page);
    const chips = Object.values(placed).flat();
    assert.ok(chips.length > 8);
    for (const c of chips) assert.match(c, GENERATED, `chip ${c}`);
    assert.equal(new Set(chips).size, chips.length, 'no two pods share a name');
    const web = await podNames(page, ['web-0', 'web-1', 'web-7']);
    for (const w of web) assert.ok(chips.includes(w), `${w} is drawn`);
    const rs = web[0].replace(/-[^-]+$/, '');
    assert.ok(web.every((w) => w.startsWith(`${rs}-`)), `one ReplicaSet: ${web}`);
    const cache2 = await podName(page, 'cache-2');
    assert.match(cache2, GENERATED);
    assert.deepEqual(await page.$$eval('#pending button.pod', (bs) => bs.map((b) => b.dataset.pod)), [cache2]);

    // kubectl get pods: the same names, where the cards draw them; the
    // Pending pod has an AGE since its creation, as kubectl prints it.
    const wide = rows(await kubectl(page, 'get pods -o wide'));
    for (const r of wide) {
      if (r.NODE === '<none>') continue;
      assert.ok(placed[r.NODE].includes(r.NAME), `${r.NAME} on ${r.NODE}`);
    }
    const pending = wide.find((r) => r.NAME === cache2);
    assert.equal(pending.STATUS, 'Pending');
    assert.match(pending.AGE, /^\d+s$/, `AGE of ${cache2}`);
    assert.ok(wide.every((r) => r.AGE !== '<unknown>'), 'every pod has an AGE');

    // describe pod by the short form or by the name: the pod's own name,
    // its events, and the decision that bound it.
    const byShort = await kubectl(page, 'describe pod web-0');
    assert.match(byShort, new RegExp(`^Name: +${web[0]}$`, 'm'));
    assert.match(byShort, new RegExp(`Successfully assigned default/${web[0]} to node-`));
    assert.match(byShort, /Explain \(binpack, as of the scheduling cycle that bound it, tick \d+\)/);
    const byName = await kubectl(page, `describe pod ${web[0]}`);
    assert.equal(byName.replace(/^.*\n/, ''), byShort.replace(/^.*\n/, ''));

    // Tab completes a pod's name: the ReplicaSet's part, then the one pod.
    await page.fill('#kubectl-input', 'describe pod web-');
    await page.press('#kubectl-input', 'Tab');
    assert.equal(await page.inputValue('#kubectl-input'), `describe pod ${rs}-`);
    await page.fill('#kubectl-input', `describe pod ${web[1].slice(0, -1)}`);
    await page.press('#kubectl-input', 'Tab');
    assert.equal(await page.inputValue('#kubectl-input'), `describe pod ${web[1]} `);
    await page.fill('#kubectl-input', '');

    // The explain dialog, from a chip: named by its name, as of its decision.
    const node = Object.keys(placed).find((n) => placed[n].includes(web[0]));
    await page.click(`#nodes article[data-node="${node}"] .pod[data-pod="${web[0]}"]`);
    await page.waitForSelector('#explain[open]');
    assert.equal(await page.textContent('#explain-title'), `Why is ${web[0]} on ${node}?`);
    assert.match(await page.textContent('#explain-summary'), new RegExp(`^${web[0]} was bound to ${node}`));
    await page.keyboard.press('Escape');
    // From the Pending list: the Pending pod by its name.
    await page.click(`#pending button.pod[data-pod="${cache2}"]`);
    await page.waitForSelector('#explain[open]');
    assert.equal(await page.textContent('#explain-title'), `Why is ${cache2} Pending?`);
    await page.keyboard.press('Escape');

    // The compare view pairs the two runs' pods by name: the same names.
    await openMenu(page, 'scheduler');
    await page.click('#btn-compare-open');
    await page.selectOption('#compare-profile', 'default-scheduler');
    await page.click('#btn-compare');
    const tick = await shownTick(page);
    await page.waitForFunction((t) => {
      const p = document.getElementById('compare-panel');
      return p.dataset.tick === String(t) && p.dataset.otherTick === String(t);
    }, tick);
    const both = await page.evaluate(() => {
      const { sim, compare } = window.shepherdPage;
      const p = compare.cmp.placements(sim);
      return { a: p.a.map(([pod]) => pod).sort(), b: p.b.map(([pod]) => pod).sort() };
    });
    assert.deepEqual(both.a, both.b, 'the same pods in both runs, by name');
    assert.ok(both.a.includes(web[0]) && both.a.includes(cache2));
    const moved = await page.$$eval('#compare-moved tbody tr', (trs) => trs.map((tr) => tr.children[0].textContent));
    for (const m of moved) assert.ok(chips.includes(m), `compare lists ${m}, a pod of this run`);
    await page.click('#btn-compare');

    // The link replays the run: the same pods, by the same names, on the same nodes.
    await page.waitForFunction(() => location.hash.startsWith('#t=5&'));
    again = await openApp({ path: new URL(page.url()).hash });
    assert.equal(await waitForEngine(again.page), 'ready');
    assert.equal(await shownTick(again.page), 5);
    assert.deepEqual(await placement(again.page), placed);
    app.assertNoConsoleErrors();
    again.assertNoConsoleErrors();
  } finally {
    if (again) await again.close();
    await app.close();
  }
});

test('an evicted pod is replaced by a pod of a new name, and the link replays the eviction', async () => {
  const app = await openApp();
  let again = null;
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 5);
    const web0 = await podName(page, 'web-0');
    const before = Object.values(await placement(page)).flat();
    // Evicted from the form by its name, as kubectl prints it: an action of the run.
    await openTab(page, 'Budget & Service');
    await page.fill('#form-evict input[name=pod]', web0);
    await page.click('#form-evict button[type=submit]');
    assert.equal(await problem(page), null);
    await step(page, 2);
    const after = Object.values(await placement(page)).flat();
    assert.ok(!after.includes(web0), `${web0} is gone`);
    const fresh = after.filter((p) => !before.includes(p) && p.startsWith('web-'));
    assert.equal(fresh.length, 1, `one replacement: ${fresh}`);
    assert.match(fresh[0], GENERATED);
    assert.equal(fresh[0], await podName(page, 'web-8'), 'the ReplicaSet\'s ninth pod');
    await page.waitForFunction((t) => location.hash.startsWith(`#t=${t}&`), await shownTick(page));
    again = await openApp({ path: new URL(page.url()).hash });
    assert.equal(await waitForEngine(again.page), 'ready');
    assert.deepEqual(await placement(again.page), await placement(page));
    app.assertNoConsoleErrors();
  } finally {
    if (again) await again.close();
    await app.close();
  }
});
