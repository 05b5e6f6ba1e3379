// Kubernetes manifests in the page: a file dropped on the page is imported
// and its pods placed, the warnings listed, and the share link replays the
// imported cluster; a bad file is refused with the document, object and field
// it is about, and the run on the page stays as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, step, ROOT } from './harness.mjs';

const EXAMPLE = fs.readFileSync(path.join(ROOT, 'www', 'examples', 'three-zones.yaml'), 'utf8');

// Drops a file onto the page as a person dragging it from their desktop would.
async function dropFile(page, name, text) {
  await page.evaluate(([name, text]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name, { type: 'text/yaml' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.querySelector('main, body').dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, [name, text]);
}

// Pod chips per node card, as the page draws them.
async function placement(page) {
  return page.$$eval('#nodes article.node', (els) => Object.fromEntries(
    els.map((el) => [el.dataset.node, [...el.querySelectorAll('.pods .pod')].map((b) => b.dataset.pod).sort()]),
  ));
}

test('a manifest file dropped on the page is imported, its pods placed, its link replays it', async () => {
  const app = await openApp();
  let again = null;
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await dropFile(page, 'three-zones.yaml', EXAMPLE);
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    assert.equal(await shownTick(page), 1);
    const placed = await placement(page);
    assert.deepEqual(Object.keys(placed).sort(), ['a-1', 'a-2', 'b-1', 'b-2', 'c-1', 'c-2']);
    const pods = Object.values(placed).flat();
    assert.equal(pods.length, 16, JSON.stringify(placed));
    // The DaemonSet's agent runs on every node, beside the other pods.
    for (const [node, chips] of Object.entries(placed)) {
      assert.equal(chips.filter((p) => p.startsWith('log-agent-')).length, 1, `${node}: ${JSON.stringify(chips)}`);
    }
    // web spreads two per zone (maxSkew 1 over three zones); cache one per node at most.
    for (const zone of ['a', 'b', 'c']) {
      const web = [1, 2].flatMap((i) => placed[`${zone}-${i}`]).filter((p) => p.startsWith('web-'));
      assert.equal(web.length, 2, `zone ${zone}: ${JSON.stringify(placed)}`);
    }
    for (const chips of Object.values(placed)) assert.ok(chips.filter((p) => p.startsWith('cache-')).length <= 1);
    assert.equal(await page.isHidden('#pending-empty'), false, 'no pod is Pending');
    // The dialog lists the summary and the warnings (none for this file).
    assert.ok(await page.isVisible('#manifests-dialog'));
    const summary = await page.textContent('#manifests-summary');
    assert.match(summary, /11 objects: imported 1 DaemonSet, 2 Deployment, 6 Node, 1 PodDisruptionBudget, 1 Service/);
    assert.match(await page.textContent('#manifests-warnings'), /None/);
    await app.screenshot('manifests-imported-dialog', { fullPage: false });
    await page.click('#manifests-close');
    await app.screenshot('manifests-imported');

    // The link carries the imported cluster: a fresh page from it shows the same placement.
    await page.waitForFunction(() => location.hash.startsWith('#t=1&s='));
    again = await openApp({ path: new URL(page.url()).hash });
    assert.equal(await waitForEngine(again.page), 'ready');
    assert.equal(await shownTick(again.page), 1);
    assert.deepEqual(await placement(again.page), placed);
    app.assertNoConsoleErrors();
  } finally {
    if (again) await again.close();
    await app.close();
  }
});

test('a bad manifest file is refused with its document and field, and the run stays', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await step(page, 4);
    const before = { tick: await shownTick(page), placed: await placement(page), hash: await page.evaluate(() => location.hash) };

    // Dropped: the banner says what and where.
    const bad = EXAMPLE.replace('replicas: 6', 'replicas: six');
    await dropFile(page, 'broken.yaml', bad);
    await page.waitForSelector('#alert:not([hidden])');
    const text = await page.textContent('#alert-text');
    assert.match(text, /Could not import broken\.yaml; nothing changed/);
    assert.match(text, /document 7 \(Deployment web\): spec\.replicas: found a string \("six"\); expected a whole number/);
    assert.equal(await shownTick(page), before.tick);
    assert.deepEqual(await placement(page), before.placed);
    await app.screenshot('manifests-refused');

    // Pasted into the dialog: the error shows in the dialog, and again nothing changes.
    await page.click('#btn-manifests');
    await page.fill('#manifests-text', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: lots\n    memory: 8Gi\n');
    await page.click('#manifests-import');
    await page.waitForSelector('#manifests-error:not([hidden])');
    const err = await page.textContent('#manifests-error');
    assert.match(err, /document 1 \(Node n1\): status\.allocatable\.cpu: cpu "lots" is not a quantity/);
    await app.screenshot('manifests-refused-dialog', { fullPage: false });
    await page.click('#manifests-close');
    assert.equal(await shownTick(page), before.tick);
    assert.deepEqual(await placement(page), before.placed);
    assert.equal(await page.evaluate(() => document.body.dataset.manifests), undefined);
  } finally {
    await app.close();
  }
});
