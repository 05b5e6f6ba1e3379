// Namespaces in the page: manifests with two namespaces (a Deployment named
// web in each) are imported and placed, the rows and pods show NAMESPACE/NAME
// where the namespace is not default, the link replays it; the Deploy form
// takes a namespace and refuses a wrong one next to its field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, openTab, problem, appRow, nodeCard, resetEmpty, openMenu, podNames, ROOT } from './harness.mjs';

const TEXT = fs.readFileSync(path.join(ROOT, 'tests', 'manifests', 'namespaces.yaml'), 'utf8');

test('manifests in two namespaces are placed and named NAMESPACE/NAME, and the link replays them', async () => {
  const app = await openApp();
  let again = null;
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.fill('#manifests-text', TEXT);
    await page.click('#manifests-import');
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    assert.match(await page.textContent('#manifests-summary'), /imported 3 Deployment, 2 Namespace, 2 Node, 2 PodDisruptionBudget, 2 Service/);
    await page.click('#manifests-close');
    // shop/web on node-a, blog/web and blog/cache (kept off shop's web pods) on node-b.
    const a = await nodeCard(page, 'node-a');
    const b = await nodeCard(page, 'node-b');
    // Named as Kubernetes names them: NAMESPACE/<replicaset>-<5 chars>.
    assert.ok([...a.chips, ...b.chips].every((c) => /^(shop|blog)\/(web|cache)-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(c)), [...a.chips, ...b.chips].join(' '));
    assert.deepEqual(a.chips.sort(), (await podNames(page, ['shop/web-0', 'shop/web-1'])).sort());
    assert.deepEqual(b.chips.sort(), (await podNames(page, ['blog/cache-0', 'blog/cache-1', 'blog/web-0', 'blog/web-1', 'blog/web-2'])).sort());
    assert.equal((await appRow(page, 'shop/web')).desired, 2);
    assert.equal((await appRow(page, 'blog/web')).desired, 3);
    await app.screenshot('namespaces-imported');
    await page.waitForFunction(() => location.hash.startsWith('#t=1&s='));
    again = await openApp({ path: new URL(page.url()).hash });
    assert.equal(await waitForEngine(again.page), 'ready');
    assert.equal(await shownTick(again.page), 1);
    assert.deepEqual((await nodeCard(again.page, 'node-a')).chips.sort(), a.chips);
    app.assertNoConsoleErrors();
  } finally {
    if (again) await again.close();
    await app.close();
  }
});

test('the Deploy form takes a namespace and refuses a wrong one at its field', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await resetEmpty(page);
    await openTab(page, 'Deploy');
    await page.fill('#form-deploy input[name=namespace]', 'Team_1');
    await page.fill('#form-deploy input[name=name]', 'api');
    await page.click('#form-deploy button[type=submit]');
    const p = await problem(page);
    assert.equal(p.where, 'field');
    assert.equal(p.field, 'namespace');
    assert.match(p.text, /namespace name "Team_1" is not valid/);
    await page.fill('#form-deploy input[name=namespace]', 'team');
    await page.click('#form-deploy button[type=submit]');
    await page.waitForSelector('#apps tr[data-app="team/api"]');
    // Empty is the namespace default: the name alone.
    await page.fill('#form-deploy input[name=namespace]', '');
    await page.click('#form-deploy button[type=submit]');
    await page.waitForSelector('#apps tr[data-app="api"]');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
