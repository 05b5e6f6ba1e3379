// What a newcomer meets (issue 14): no work lost to one click, Kubernetes
// quantities in every resource field, errors next to the field they are
// about, the tour gone when discarded, a phone that fits, the keyboard, and
// zero axe-core violations in the states a person sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, shownTick, step, stepUntil, skip, nodeCard, appRow, toast, openTab, resetEmpty, problem, axeViolations, openMenu,
} from './harness.mjs';

// Skips quiet ticks until the page shows `tick` or later.
async function skipTo(page, tick) {
  while ((await shownTick(page)) < tick) await skip(page);
}

async function addNode(page, name, cpu, memory) {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', cpu);
  await page.fill('#form-add-node input[name=memory]', memory);
  await page.click('#form-add-node button[type=submit]');
}

async function addNodeForm(page, name, cpu, memory) {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', cpu);
  await page.fill('#form-add-node input[name=memory]', memory);
}

async function nodeCapacity(page, name) {
  return page.$eval(`#nodes article[data-node="${name}"]`, (el) =>
    [...el.querySelectorAll('[role=meter]')].map((m) => m.getAttribute('aria-valuemax')));
}

test('resource fields take Kubernetes quantities and say what they read', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, 7);
    await openTab(page, 'Node');
    // As you type: what the engine reads.
    await page.fill('#form-add-node input[name=cpu]', '4');
    await page.fill('#form-add-node input[name=memory]', '8Gi');
    assert.equal(await page.textContent('#add-node-reading'), '= 4 CPU, 8 GiB');
    await page.fill('#form-add-node input[name=cpu]', '1.5');
    await page.fill('#form-add-node input[name=memory]', '512Mi');
    assert.equal(await page.textContent('#add-node-reading'), '= 1.5 CPU (1500m), 512 MiB');
    await page.fill('#form-add-node input[name=memory]', '1G');
    assert.match(await page.textContent('#add-node-reading'), /953\.674 MiB \(1G\)/);
    await page.fill('#form-add-node input[name=memory]', '100Ki');
    assert.match(await page.textContent('#add-node-reading'), /100 KiB/);

    // `4` is four cores (4000m), not 4 millicores; memory is counted in
    // bytes, as Kubernetes counts it: 8Gi is 8589934592.
    await addNode(page, 'node-1', '4', '8Gi');
    assert.deepEqual(await nodeCapacity(page, 'node-1'), ['4000', '8589934592']);
    await addNode(page, 'node-2', '1.5', '512Mi');
    assert.deepEqual(await nodeCapacity(page, 'node-2'), ['1500', '536870912']);

    // A request of 500m and 256Mi, as in a pod spec.
    await openTab(page, 'Deploy');
    await page.fill('#form-deploy input[name=name]', 'api');
    await page.fill('#form-deploy input[name=replicas]', '2');
    await page.fill('#form-deploy input[name=cpu]', '500m');
    await page.fill('#form-deploy input[name=memory]', '256Mi');
    assert.equal(await page.textContent('#deploy-reading'), '= 500m CPU, 256 MiB');
    await page.click('#form-deploy button[type=submit]');
    assert.match(await page.textContent('#apps tr[data-app="api"] td.template'), /500m · 256Mi/);

    // A bad quantity is refused next to its field, quoting what was typed; focus goes there.
    await page.fill('#form-deploy input[name=name]', 'other');
    await page.fill('#form-deploy input[name=cpu]', 'abc');
    assert.match(await page.textContent('#deploy-reading'), /cpu "abc" is not a quantity/);
    const ticks = await shownTick(page);
    await page.click('#form-deploy button[type=submit]');
    let p = await problem(page);
    assert.equal(p.where, 'field');
    assert.equal(p.field, 'cpu');
    assert.ok(p.focused, 'focus is on the wrong field');
    assert.match(p.text, /cpu "abc" is not a quantity: it does not start with a number; expected cores such as 2, 1\.5 or 500m/);
    assert.equal(await shownTick(page), ticks, 'nothing was submitted');
    await app.screenshot('newcomer-quantity-error', { fullPage: false });
    await page.fill('#form-deploy input[name=cpu]', '-5');
    await page.click('#form-deploy button[type=submit]');
    assert.match((await problem(page)).text, /cpu "-5" is negative; expected 0 or more/);
    // Fixed: the mark goes away when the action is taken.
    await page.fill('#form-deploy input[name=cpu]', '100m');
    await page.click('#form-deploy button[type=submit]');
    assert.equal(await problem(page), null);
    assert.equal(await page.getAttribute('#form-deploy input[name=cpu]', 'aria-invalid'), null);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a node name that exists is refused next to the field, and nothing is replaced', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 3);
    const before = await nodeCard(page, 'gpu-1');
    const tick = await shownTick(page);
    await addNode(page, 'gpu-1', '2', '4Gi');
    const p = await problem(page);
    assert.equal(p.field, 'name');
    assert.ok(p.focused);
    assert.match(p.text, /nodes "gpu-1" already exists/);
    assert.equal(await shownTick(page), tick, 'nothing was queued');
    assert.deepEqual(await nodeCard(page, 'gpu-1'), before, 'gpu-1 keeps its labels, taint, capacity and pods');
    assert.match(before.text, /dedicated=gpu:NoSchedule/);

    // Re-registration is its own action: gpu-1's kubelet comes back with a
    // new body (2 CPU, 4Gi, no taint), from the next tick.
    await page.fill('#form-add-node input[name=labels]', '');
    await page.fill('#form-add-node input[name=taints]', '');
    await page.click('#form-add-node button[value=reregister]');
    assert.equal(await problem(page), null);
    await stepUntil(page, async () => (await shownTick(page)) > tick);
    const after = await nodeCard(page, 'gpu-1');
    assert.doesNotMatch(after.text, /dedicated=gpu:NoSchedule/, 'the new body has no taint');
    assert.deepEqual(await nodeCapacity(page, 'gpu-1'), ['2000', String(4 * 2 ** 30)]);

    // Re-registering a name that is not registered is refused at the field.
    await addNodeForm(page, 'node-99', '2', '4Gi');
    await page.click('#form-add-node button[value=reregister]');
    const q = await problem(page);
    assert.equal(q.field, 'name');
    assert.match(q.text, /nodes "node-99" not found/);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('Reset and the tour can be undone, and deletes ask first', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 12);
    const want = await page.textContent('#nodes');
    // Reset replaces the run: the page offers to undo, and Undo brings it back at its tick.
    await resetEmpty(page, 5);
    assert.equal(await page.isVisible('#undo'), true);
    assert.match(await page.textContent('#undo-text'), /Reset replaced your run \(tick 12, \d+ actions\)/);
    await page.click('#btn-undo');
    assert.equal(await shownTick(page), 12);
    assert.equal(await page.textContent('#nodes'), want);
    assert.equal(await page.isVisible('#undo'), false);
    // The tour button, too.
    await openMenu(page, 'scenario');
    await page.click('#btn-tour');
    assert.equal(await shownTick(page), 0);
    assert.match(await page.textContent('#undo-text'), /The guided tour replaced your run \(tick 12/);
    await page.click('#btn-undo');
    assert.equal(await shownTick(page), 12);
    assert.equal(await page.textContent('#nodes'), want);

    // Delete Deployment asks, naming what goes; Cancel keeps it.
    await page.click('#apps tr[data-app="web"] button.app-name');
    await page.getByRole('button', { name: 'Delete Deployment' }).click();
    await page.waitForSelector('#confirm[open]');
    assert.match(await page.textContent('#confirm-text'), /Deployment web and its 8 pods are deleted/);
    await app.screenshot('newcomer-confirm-delete', { fullPage: false });
    assert.deepEqual(await axeViolations(page), [], 'the confirmation dialog');
    await page.click('#confirm-cancel');
    assert.equal(await shownTick(page), 12, 'nothing happened');
    assert.equal(await page.locator('#apps tr[data-app="web"]').count(), 1);
    await page.getByRole('button', { name: 'Delete Deployment' }).click();
    await page.click('#confirm-ok');
    // The dialog's close event, which runs the deletion, comes after the click returns.
    await page.waitForFunction(() => document.body.dataset.tick === '13');
    assert.equal(await shownTick(page), 13);
    assert.equal(await page.locator('#apps tr[data-app="web"]').count(), 0);
    // Delete node asks too.
    await openTab(page, 'Node');
    await page.fill('#form-node-ops input[name=node]', 'node-2');
    await page.getByRole('button', { name: 'Delete node' }).click();
    await page.waitForSelector('#confirm[open]');
    assert.match(await page.textContent('#confirm-title'), /Delete node node-2\?/);
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#nodes article[data-node="node-2"]').count(), 1);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the tour: Play stops at its end, and Discard takes its caption away', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await page.selectOption('#speed', '60');
    await page.click('#btn-play');
    await page.waitForFunction(() => document.body.dataset.playing === 'false', null, { timeout: 90_000 });
    assert.equal(await shownTick(page), 745, 'stopped at the last scripted tick');
    assert.match((await toast(page)).text, /end of the tour/);
    // Play again: the cluster goes on.
    await page.click('#btn-play');
    await page.waitForFunction(() => Number(document.body.dataset.tick) >= 747);
    await page.click('#btn-play');

    // Discard mid-tour: the caption goes and stays gone, and the export has no notes.
    await openMenu(page, 'scenario');
    await page.click('#btn-tour');
    await step(page, 5);
    assert.equal(await page.isVisible('#note'), true);
    await page.click('#btn-discard');
    assert.equal(await page.isVisible('#note'), false);
    assert.notEqual(await page.evaluate(() => document.activeElement.tagName), 'BODY', 'focus stays in the panel');
    await step(page, 3);
    assert.equal(await page.isVisible('#note'), false);
    const doc = JSON.parse(await page.evaluate(() => {
      const s = window.shepherdPage.sim.exportScenario();
      return s;
    }));
    assert.ok(doc.actions.every((a) => a.tick <= 5), 'the rest of the script is gone');
    const [download] = await Promise.all([page.waitForEvent('download'), (async () => { await openMenu(page, 'scenario'); await page.click('#btn-export'); })()]);
    const text = await (await download.createReadStream()).toArray();
    const exported = JSON.parse(Buffer.concat(text).toString('utf8'));
    assert.equal(exported.notes, undefined, 'no tour captions in the file');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('import: a bad file is refused where it can be read, naming the action, and nothing changes', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 3);
    const nodes = await page.textContent('#nodes');
    const doc = {
      version: 1, seed: 1, policy: 'binpack', tick: 3,
      actions: [
        { tick: 1, action: { type: 'addNode', name: 'n1', cpu: 4000, memory: 8192 } },
        { tick: 2, action: { type: 'scale', app: 'web', replicas: -5 } },
      ],
    };
    await page.setInputFiles('#import-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    // In the Import dialog, next to its file chooser and Import button, with focus on it.
    await page.waitForSelector('#manifests-error:not([hidden])');
    const p = await problem(page);
    assert.equal(p.where, 'message');
    assert.equal(p.near, 'manifests-dialog');
    assert.ok(p.focused, 'focus is on the refusal');
    assert.match(p.text, /Could not import bad\.json; nothing changed\./);
    assert.match(p.text, /action/);
    assert.doesNotMatch((await toast(page)).text, /Imported/);
    assert.equal(await page.textContent('#nodes'), nodes);
    // It stays until dismissed (not a four-second toast).
    await page.waitForTimeout(5500);
    assert.equal(await page.isVisible('#manifests-error'), true);
    await page.click('#manifests-close');
    assert.equal(await page.isVisible('#manifests-error'), false);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the keyboard: a skip link to the actions, and a focusable event list', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to Actions');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.closest('#actions') !== null), true, 'the next Tab is inside Actions');
    await page.focus('#events');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'events');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('axe-core finds no violations in the states a person sees', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    const check = async (state) => {
      const v = await axeViolations(page);
      assert.deepEqual(v, [], `${state}:\n${v.join('\n')}`);
    };
    await check('tick 0');
    await step(page, 5);
    await check('tour tick 5');
    // Tick 6 stops node-1's kubelet; Skip jumps the 50 s grace period.
    assert.equal(await skip(page), 6);
    assert.equal(await skip(page), 57);
    assert.equal((await nodeCard(page, 'node-1')).status, 'NotReady');
    await check('tour tick 57, node-1 NotReady, its pods counting down');
    await app.screenshot('newcomer-desktop-tick57', { fullPage: false });
    await page.click('#pending button.pod');
    await page.waitForSelector('#explain[open]');
    await check('the explain dialog');
    await page.keyboard.press('Escape');
    await skipTo(page, 373);
    assert.equal((await nodeCard(page, 'node-2')).draining, true);
    await check('tour tick 373, node-2 draining');
    for (const tab of ['Node', 'Deploy', 'Change Deployment', 'Budget & Service', 'Big cluster']) {
      await openTab(page, tab);
      await check(`the ${tab} tab`);
    }
    // A refused form shows its error inline: still no violations.
    await openTab(page, 'Node');
    await page.fill('#form-add-node input[name=cpu]', '4 cores');
    await page.click('#form-add-node button[type=submit]');
    await check('an inline error');
    await page.selectOption('#view', 'grid');
    await page.waitForSelector('#grid-wrap:not([hidden])');
    await check('the grid view');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a 390x844 phone: no horizontal scroll, the tables and the explain dialog fit', async () => {
  const app = await openApp({ viewport: { width: 390, height: 844 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await skipTo(page, 373);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.equal(await overflow(), 0, 'the page is wider than the phone');
    // Every table cell's content is inside the page (a table may scroll inside its card).
    const cut = await page.evaluate(() => [...document.querySelectorAll('.panel')].filter((p) => p.getBoundingClientRect().right > window.innerWidth + 0.5).map((p) => p.id || p.className));
    assert.deepEqual(cut, []);
    // The actions come right after the nodes.
    const order = await page.evaluate(() => {
      const y = (id) => document.getElementById(id).getBoundingClientRect().top;
      return { nodes: y('cluster-panel'), actions: y('actions'), apps: y('apps') };
    });
    assert.ok(order.nodes < order.actions && order.actions < order.apps, JSON.stringify(order));
    await app.screenshot('newcomer-phone-tick373');
    await page.click('#pending button.pod').catch(() => {});
    if (await page.isVisible('#explain[open]')) {
      const box = await page.$eval('#explain', (d) => { const r = d.getBoundingClientRect(); return { left: r.left, right: r.right }; });
      assert.ok(box.left >= 0 && box.right <= 390, JSON.stringify(box));
      const table = await page.$eval('#explain-table', (t) => t.getBoundingClientRect().right);
      assert.ok(table <= 390.5, `the explain table runs to ${table}px`);
      await app.screenshot('newcomer-phone-explain', { fullPage: false });
      await page.keyboard.press('Escape');
    }
    assert.deepEqual(await axeViolations(page), [], 'phone at tick 373');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
