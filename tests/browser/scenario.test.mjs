// The scenario is the page's memory: exported to a file and imported back, kept
// in the URL so a link (or a reload) reproduces the page at the same tick, and
// replayed from the seed to step back. Bad input is refused with the engine's
// message and changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  openApp, waitForEngine, shownTick, step, skip, nodeCard, appRow, eventLines, toast, openTab, resetEmpty, problem, openMenu,
} from './harness.mjs';

// Everything the page shows about the cluster, as text, to compare two pages.
async function picture(page) {
  return page.evaluate(() => ({
    tick: document.querySelector('#tick').textContent,
    summary: document.querySelector('#cluster-summary').textContent,
    nodes: [...document.querySelectorAll('#nodes article.node')].map((n) => n.textContent),
    apps: document.querySelector('#apps tbody').textContent,
    pending: document.querySelector('#pending').textContent,
    upcoming: document.querySelector('#upcoming').textContent,
  }));
}

async function firstEvents(page, n) {
  return (await eventLines(page)).slice(0, n);
}

async function hashAtTick(page) {
  // The page writes the address once it is quiet: wait for that write (an
  // earlier one can name the same tick with the scenario before the last
  // action, as when Back passes through the tick a new action then reaches).
  await page.waitForFunction(
    () => document.body.dataset.link === 'written' && location.hash.startsWith(`#t=${document.body.dataset.tick}&s=`),
  );
  return page.url();
}

test('export, import, a link and a reload all reproduce the page at its tick', async () => {
  const app = await openApp();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shepherd-scenario-'));
  try {
    const { page } = app;
    await waitForEngine(page);
    // The tour to tick 12 (node-1's kubelet silent since tick 6), plus an action of our own.
    await step(page, 11);
    await page.click('#apps tr[data-app="cache"] button.app-name');
    await page.fill('#form-app input[name=replicas]', '2');
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    assert.equal(await shownTick(page), 12);
    const want = await picture(page);
    const wantEvents = await firstEvents(page, 40);

    // Export: a JSON file with the seed, the policy, the tick and every action.
    const [download] = await Promise.all([page.waitForEvent('download'), (async () => { await openMenu(page, 'scenario'); await page.click('#btn-export'); })()]);
    const file = path.join(tmp, download.suggestedFilename());
    await download.saveAs(file);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    // Version 2: memory in bytes (a version-1 file, memory in MiB, still loads).
    assert.equal(doc.version, 2);
    const node = doc.actions.find((a) => a.action.type === 'addNode').action;
    assert.equal(node.memoryBytes, 8 * 2 ** 30, 'the tour\'s 8Gi nodes, in bytes');
    assert.equal(node.memory, undefined);
    assert.equal(doc.seed, 1);
    assert.equal(doc.policy, 'binpack');
    assert.equal(doc.tick, 12);
    assert.ok(doc.actions.every((a, i) => i === 0 || doc.actions[i - 1].tick <= a.tick), 'in tick order');
    assert.deepEqual(doc.actions.find((a) => a.tick === 12), { tick: 12, action: { type: 'scale', app: 'cache', replicas: 2 } });
    assert.ok(doc.actions.some((a) => a.action.type === 'failNode' && a.tick === 6));

    // The link: the same page in a fresh tab, and after a reload.
    const url = await hashAtTick(page);
    const tab = await app.page.context().newPage();
    await tab.goto(url);
    await waitForEngine(tab);
    assert.equal(await tab.evaluate(() => document.body.dataset.from), 'link');
    assert.deepEqual(await picture(tab), want);
    assert.deepEqual(await firstEvents(tab, 40), wantEvents);
    await tab.reload();
    await waitForEngine(tab);
    assert.deepEqual(await picture(tab), want, 'a reload restores the same tick');
    await tab.close();

    // Start over, then import the file: back to the same picture.
    await resetEmpty(page, 3);
    assert.notDeepEqual(await picture(page), want);
    await page.setInputFiles('#import-file', file);
    await page.waitForFunction(() => document.body.dataset.tick === '12');
    assert.deepEqual(await picture(page), want);
    assert.match((await toast(page)).text, /Imported .*tick 12/);
    await app.screenshot('scenario-imported', { fullPage: false });
    // And it plays on from there: node-1 is NotReady at tick 57 as scripted (the 50 s grace period).
    assert.equal(await skip(page), 57);
    assert.equal((await nodeCard(page, 'node-1')).status, 'NotReady');
    app.assertNoConsoleErrors();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await app.close();
  }
});

test('an action after Back keeps the later actions that still apply, and the link reproduces the page', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page);
    await openTab(page, 'Node');
    // node-1 at tick 1, node-2 at 2, then cordon node-1 (tick 3) and node-2 (tick 4).
    for (const name of ['node-1', 'node-2']) {
      await page.fill('#form-add-node input[name=name]', name);
      await page.click('#form-add-node button[value=add]');
    }
    for (const name of ['node-1', 'node-2']) {
      await page.fill('#form-node-ops input[name=node]', name);
      await page.click('#form-node-ops button[value=cordon]');
    }
    assert.equal(await shownTick(page), 4);
    // Back to tick 1: node-2 and both cordons are queued again.
    for (let i = 0; i < 3; i++) await page.click('#btn-back');
    assert.equal(await shownTick(page), 1);
    assert.match(await page.textContent('#upcoming'), /node-2/);
    // Deleting node-1 (at tick 2) makes its cordon at tick 3 wrong: it is
    // dropped and the page says so; node-2's cordon stays queued.
    await page.fill('#form-node-ops input[name=node]', 'node-1');
    await page.click('#form-node-ops button[value=removeNode]');
    await page.click('#confirm-ok');
    await page.waitForFunction(() => document.body.dataset.tick === '2');
    // Next to the form that did it.
    const said = await problem(page);
    assert.ok(said, 'the page says what was dropped');
    assert.equal(said.form, 'form-node-ops', JSON.stringify(said));
    assert.match(said.text, /1 later action no longer applies and was dropped: .*node-1 at tick 3/);
    const upcoming = await page.textContent('#upcoming');
    assert.match(upcoming, /node-2/);
    assert.doesNotMatch(upcoming, /node-1/);
    const want = await picture(page);
    // The link (the exported scenario) loads and shows the same page, and
    // both play on alike: node-2 cordoned at tick 4, nothing refused.
    const url = await hashAtTick(page);
    const tab = await app.page.context().newPage();
    await tab.goto(url);
    await waitForEngine(tab);
    assert.equal(await tab.evaluate(() => document.body.dataset.from), 'link');
    assert.equal(await problem(tab, { banner: true }), null, 'the link loads');
    assert.deepEqual(await picture(tab), want);
    await step(page, 3);
    await step(tab, 3);
    assert.deepEqual(await picture(tab), await picture(page));
    assert.equal((await nodeCard(tab, 'node-2')).cordoned, true);
    assert.equal(await tab.locator('#nodes article[data-node="node-1"]').count(), 0);
    await tab.close();
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a tour action dropped by a new action takes its caption along', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // The tour, at tick 5: node-1's kubelet stops at 6 and comes back at 360
    // (its caption tells it), zone-a's nodes come back at 745.
    await step(page, 5);
    await openTab(page, 'Node');
    await page.fill('#form-node-ops input[name=node]', 'node-1');
    await page.click('#form-node-ops button[value=removeNode]');
    await page.click('#confirm-ok');
    await page.waitForFunction(() => document.body.dataset.tick === '6');
    const said = await problem(page);
    assert.match(said.text, /2 later actions no longer apply and were dropped: recover node node-1 at tick 360 .*; recover node node-1 at tick 745/);
    // At 360 the caption says that its step was dropped, and why, instead
    // of telling a recovery that no longer happens.
    await page.evaluate(() => window.shepherdPage.seekTo(360));
    assert.equal(await shownTick(page), 360);
    const at360 = await page.textContent('#note');
    assert.match(at360, /Dropped from the script: recover node node-1 no longer applies \(node "node-1" not found/);
    assert.doesNotMatch(at360, /kubelet is back/);
    // At 745 node-2 still comes back: the rest of that step happens.
    await page.evaluate(() => window.shepherdPage.seekTo(745));
    assert.match(await page.textContent('#note'), /Dropped from the script: recover node node-1 .*The rest of this step still happens\./);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('after Back, an action that no longer applies once the actions queued for its tick fire is refused at once', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // The tour at tick 3: web exists. Delete it (it goes at tick 4), then
    // Back: the deletion is queued for tick 4 again.
    await step(page, 3);
    await openTab(page, 'Change Deployment');
    await page.selectOption('#app-select', 'web');
    await page.click('#form-app button[value=deleteApp]');
    await page.click('#confirm-ok');
    await page.waitForFunction(() => document.body.dataset.tick === '4');
    await page.click('#btn-back');
    assert.equal(await shownTick(page), 3);
    assert.match(await page.textContent('#upcoming'), /delete app web/);
    // Scaling web would fire at tick 4 after the deletion: refused now,
    // saying why, and nothing changes.
    await page.selectOption('#app-select', 'web');
    await page.fill('#form-app input[name=replicas]', '5');
    await page.click('#form-app button[value=scale]');
    const shown = await page.textContent('#form-app');
    assert.match(shown, /scale web to 5: once the 3 actions queued before it for tick 4 have fired \(scale web to 8; scale cache to 3; delete app web\): app "web" not found/);
    assert.equal(await shownTick(page), 3);
    assert.doesNotMatch(await page.textContent('#upcoming'), /scale web to 5/);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('step back replays from the seed to the tick before', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // Skip to tick 6 (node-1's kubelet stops), then step to 56.
    while ((await shownTick(page)) < 6) await skip(page);
    await step(page, 50);
    assert.equal(await shownTick(page), 56);
    const at56 = await picture(page);
    const events56 = await firstEvents(page, 20);
    await step(page); // tick 57: node-1 NotReady, its pods not Ready
    assert.equal((await nodeCard(page, 'node-1')).status, 'NotReady');
    await page.click('#btn-back');
    assert.equal(await shownTick(page), 56);
    assert.deepEqual(await picture(page), at56);
    assert.deepEqual(await firstEvents(page, 20), events56);
    // Forward again: the same tick 57 as before (deterministic).
    await step(page);
    assert.equal((await nodeCard(page, 'node-1')).status, 'NotReady');
    // Back to 0 and no further.
    for (let i = 0; i < 60 && (await shownTick(page)) > 0; i++) await page.click('#btn-back');
    assert.equal(await shownTick(page), 0);
    assert.equal(await page.isDisabled('#btn-back'), true);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('bad input shows the engine\'s message, never as markup, and changes nothing', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 3);
    const before = await picture(page);
    const url = await hashAtTick(page);

    // Each refusal is shown where the eye is (next to the field, focused, or
    // next to the control that caused it), never only in a fading toast, and
    // changes nothing.
    const refused = async (what, want, where = null) => {
      const p = await problem(page, { banner: where === 'message' });
      assert.ok(p, `${what}: expected the page to show a problem`);
      assert.match(p.text, want, what);
      if (where) assert.equal(p.field || p.where, where, `${what}: shown at ${JSON.stringify(p)}`);
      if (p.where === 'field') assert.ok(p.focused, `${what}: the wrong field has focus`);
      assert.deepEqual(await picture(page), before, `${what} changed the page`);
    };

    await page.click('#apps tr[data-app="web"] button.app-name');
    await page.fill('#form-app input[name=replicas]', '-1');
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    await refused('negative replicas', /replicas -1 is not valid; expected a whole number from 0/, 'replicas');
    await page.fill('#form-app input[name=replicas]', '2.5');
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    await refused('fractional replicas', /replicas 2\.5 is not valid/);
    await page.getByRole('button', { name: 'Roll back' }).click();
    await refused('rollback with no history', /no previous revision/);

    await openTab(page, 'Node');
    await page.fill('#form-node-ops input[name=node]', 'node-99');
    await page.getByRole('button', { name: 'Stop kubelet', exact: true }).click();
    await refused('unknown node', /node "node-99" not found/);

    const evil = '<img src=x onerror="window.__owned=1">';
    await page.fill('#form-add-node input[name=name]', evil);
    await page.click('#form-add-node button[type=submit]');
    await refused('markup in a name', /node name .* is not valid/, 'name');
    assert.match((await problem(page)).text, /<img src=x/, 'shown as text');
    assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
    assert.equal(await page.evaluate(() => window.__owned), undefined);
    await app.screenshot('scenario-refused-markup', { fullPage: false });
    await page.fill('#form-add-node input[name=name]', '');
    await page.evaluate(() => { document.querySelector('#form-add-node input[name=name]').required = false; });
    await page.click('#form-add-node button[type=submit]');
    await refused('empty name', /node name is empty/);

    await openTab(page, 'Deploy');
    await page.fill('#form-deploy input[name=name]', 'huge');
    await page.fill('#form-deploy input[name=cpu]', '64');
    await page.click('#form-deploy button[type=submit]');
    await refused('a pod bigger than every node', /fits on no node/);
    await page.fill('#form-deploy input[name=name]', 'web');
    await page.fill('#form-deploy input[name=cpu]', '100m');
    await page.click('#form-deploy button[type=submit]');
    await refused('a taken name', /app "web" already exists/, 'name');

    await page.setInputFiles('#import-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"version": 1, "seed": ') });
    // The file is read asynchronously: its refusal comes after the change
    // event, later on a busy machine. It is routed as a scenario (its first
    // key is "version") and refused in the Import dialog.
    await page.waitForSelector('#manifests-error:not([hidden])');
    await refused('a malformed file', /Could not import broken\.json; nothing changed\. the scenario is not valid JSON/, 'message');
    assert.equal((await problem(page, { banner: true })).near, 'manifests-dialog');
    await page.click('#manifests-close');

    assert.equal(await hashAtTick(page), url, 'the scenario in the URL is unchanged');
    assert.equal((await appRow(page, 'web')).ready, '4/4');

    // A damaged link falls back to the tour and says why.
    const tab = await page.context().newPage();
    await tab.goto(url.replace(/&s=z.{8}/, '&s=z!!!!!!!!'));
    await waitForEngine(tab);
    assert.equal(await tab.evaluate(() => document.body.dataset.from), 'tour');
    assert.match((await problem(tab)).text, /link's scenario could not be loaded/);
    await tab.close();

    // A link of a few hundred kilobytes that inflates to a gigabyte (it
    // crashed the tab while the page inflated it whole) is refused once
    // its text passes the engine's limit, and the tour starts.
    const bomb = await new Promise((resolve, reject) => {
      const z = zlib.createDeflateRaw({ level: 9 });
      const out = [];
      z.on('data', (c) => out.push(c));
      z.on('end', () => resolve(Buffer.concat(out)));
      z.on('error', reject);
      const mb = Buffer.alloc(1 << 20, 'x');
      z.write('{"version":1,"pad":"');
      for (let i = 0; i < 1024; i++) z.write(mb);
      z.end('"}');
    });
    const huge = await page.context().newPage();
    await huge.goto(url.replace(/&s=.*/, '&s=z' + bomb.toString('base64url')));
    await waitForEngine(huge);
    assert.equal(await huge.evaluate(() => document.body.dataset.from), 'tour');
    assert.match(
      (await problem(huge)).text,
      /link's scenario could not be loaded: the scenario is more than the limit of \d+ bytes \(MAX_DOCUMENT_BYTES\) once decompressed/,
    );
    await huge.close();
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the address follows the page when it is quiet, and a reload or Copy link right after a step has the newest tick', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await app.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await waitForEngine(page);
    // Several steps in a row: the address is written once the page is quiet.
    const tick = await step(page, 4);
    const url = await hashAtTick(page);
    assert.match(url, new RegExp(`#t=${tick}&s=`));
    // A reload at once after a step, before the page wrote the address.
    await page.click('#btn-step');
    const want = await picture(page);
    await page.reload();
    await waitForEngine(page);
    assert.equal(await page.evaluate(() => document.body.dataset.from), 'link');
    assert.deepEqual(await picture(page), want, 'a reload right after a step restores the newest tick');
    assert.equal(await shownTick(page), tick + 1);
    // Copy link at once after a step: the copied link holds the newest tick.
    await page.click('#btn-step');
    await openMenu(page, 'scenario');
    await page.click('#btn-link');
    await page.waitForFunction(() => /Link copied/.test(document.getElementById('toast').textContent));
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, new RegExp(`#t=${tick + 2}&s=`));
    const tab = await app.page.context().newPage();
    await tab.goto(copied);
    await waitForEngine(tab);
    assert.deepEqual(await picture(tab), await picture(page));
    await tab.close();
    // A fresh load of an older link is taken as it is (only a reload takes the newer tick).
    await page.goto('about:blank');
    await page.goto(url);
    await waitForEngine(page);
    assert.equal(await shownTick(page), tick);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
