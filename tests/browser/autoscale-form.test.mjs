// The node groups form (issue 46, www/autoscale.js wireAutoscalerForm), with
// real clicks over the autoscaling example: the panel's Edit… opens it
// filled from the engine; a max that is not a number, and a min above the
// max, are refused next to their field with the engine's words and nothing
// changes; min/max/price edited and applied change the group panel at the
// next tick; a new g5.xlarge group (with a GPU) helps the report pod no
// group helped, at CA's next loop; a group removed goes; Back, the link and
// the manifests export keep the edit. Long pod names end in an ellipsis
// inside their card, whole in the title (1280 and 390 px). axe-core: 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openApp, waitForEngine, shownTick, openMenu, eventLines, axeViolations, step, stepUntil, ARTIFACTS } from './harness.mjs';
import path from 'node:path';

async function groups(page) {
  return page.$$eval('#node-groups tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
    const c = [...tr.children].map((td) => td.textContent.trim());
    return [tr.dataset.group, { min: Number(c[2]), registered: c[3], target: c[4], max: Number(c[5]), price: c[6] }];
  })));
}

async function importExample(page) {
  await openMenu(page, 'scenario');
  await page.click('#btn-import');
  await page.waitForSelector('#manifests-dialog[open]');
  await page.selectOption('#manifests-example', 'autoscaling.yaml');
  await page.waitForSelector('#manifests-result:not([hidden])');
  await page.click('#manifests-close');
  await page.waitForSelector('#node-groups:not([hidden])');
  await page.evaluate(() => { document.getElementById('toast').hidden = true; });
}

const value = (page, name) => page.$eval(`#form-autoscaler [name="${name}"]`, (el) => el.value);

async function type(page, name, text) {
  await page.fill(`#form-autoscaler [name="${name}"]`, text);
}

async function openForm(page) {
  await page.click('#btn-node-groups-edit');
  await page.waitForSelector('#autoscaler-dialog[open]');
}

test('the node groups form edits min, max and price, adds and removes a group; refusals name the field and change nothing', async () => {
  const app = await openApp({ viewport: { width: 1280, height: 900 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await importExample(page);
    await step(page, 2);

    // Opened from the panel, filled from the engine: groups in name order.
    await openForm(page);
    assert.deepEqual(await page.$$eval('#form-autoscaler fieldset.node-group-fields legend', (l) => l.map((x) => x.textContent)), ['Node group 1: c5.xlarge', 'Node group 2: m5.large', 'Node group 3: r5.large']);
    assert.equal(await value(page, 'g1-name'), 'm5.large');
    assert.deepEqual([await value(page, 'g1-cpu'), await value(page, 'g1-memory'), await value(page, 'g1-pods')], ['2', '8Gi', '29']);
    assert.deepEqual([await value(page, 'g1-min'), await value(page, 'g1-max'), await value(page, 'g1-pricePerHour')], ['1', '6', '0.096']);
    assert.equal(await value(page, 'g1-labels'), 'topology.kubernetes.io/zone=eu-west-1a');
    assert.equal(await value(page, 'opt-expander'), 'least-waste');
    assert.equal(await value(page, 'opt-scale-down-unneeded-time'), '10m');
    assert.equal(await value(page, 'opt-provisioning-delay'), '30s');
    assert.deepEqual(await axeViolations(page), [], 'the form open');
    await app.screenshot('autoscale-form', { fullPage: false });

    // A max that is not a number: refused beside the field, nothing queued.
    const before = await page.evaluate(() => window.shepherdPage.sim.actionCount);
    const tick = await shownTick(page);
    await type(page, 'g1-max', 'lots');
    await page.click('#form-autoscaler button[type=submit]');
    const err = await page.textContent('#form-autoscaler-g1-max-error');
    assert.equal(err, 'node group 2 (m5.large): max "lots" is not valid; expected a whole number of nodes from 0 to 10000');
    assert.equal(await page.getAttribute('#form-autoscaler [name="g1-max"]', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.name), 'g1-max');
    assert.ok(await page.isVisible('#autoscaler-dialog[open]'));
    assert.deepEqual(await axeViolations(page), [], 'the form with a refusal');
    await page.locator('#form-autoscaler-g1-max-error').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'autoscale-form-error.png') });
    // A min above the max, and a scan interval of nothing: each at its field.
    await type(page, 'g1-max', '6');
    await type(page, 'g1-min', '9');
    await page.click('#form-autoscaler button[type=submit]');
    assert.equal(await page.textContent('#form-autoscaler-g1-min-error'), 'node group 2 (m5.large): min 9 is greater than max 6; expected min <= max');
    await type(page, 'g1-min', '1');
    await type(page, 'opt-scan-interval', '0s');
    await page.click('#form-autoscaler button[type=submit]');
    assert.match(await page.textContent('#form-autoscaler-opt-scan-interval-error'), /^--scan-interval "0s" is not valid; expected a duration of whole seconds from 1s to 24h/);
    assert.equal(await page.evaluate(() => window.shepherdPage.sim.actionCount), before, 'nothing queued');
    assert.equal(await shownTick(page), tick, 'no step');
    // Cancel leaves everything as it was.
    await page.click('#autoscaler-cancel');
    assert.deepEqual((await groups(page))['m5.large'], { min: 1, registered: '2', target: '2', max: 6, price: '$0.096/h' });

    // Min, max and price of m5.large, max of c5.xlarge: applied at the next tick.
    await openForm(page);
    assert.equal(await value(page, 'opt-scan-interval'), '10s', 'the form opens from the engine again');
    await type(page, 'g1-min', '2');
    await type(page, 'g1-max', '8');
    await type(page, 'g1-pricePerHour', '0.1');
    await type(page, 'g0-max', '5');
    await page.click('#form-autoscaler button[type=submit]');
    await page.waitForSelector('#autoscaler-dialog', { state: 'hidden' });
    assert.equal(await shownTick(page), tick + 1);
    let g = await groups(page);
    assert.deepEqual(g['m5.large'], { min: 2, registered: '2', target: '2', max: 8, price: '$0.1/h' });
    assert.equal(g['c5.xlarge'].max, 5);
    assert.match(await page.textContent('#node-groups-cost'), /Cost now \$0\.2\/h/, 'two m5.large at $0.1');
    const edited = tick + 1;

    // A GPU group for the report pod (it asks for a g5.xlarge), and r5.large removed.
    await openForm(page);
    await page.click('#autoscaler-add-group');
    assert.equal(await page.evaluate(() => document.activeElement.name), 'g3-name');
    await type(page, 'g3-name', 'g5.xlarge');
    await type(page, 'g3-cpu', '4');
    await type(page, 'g3-memory', '16Gi');
    await type(page, 'g3-extended', 'nvidia.com/gpu=1');
    await type(page, 'g3-labels', 'topology.kubernetes.io/zone=eu-west-1a');
    await type(page, 'g3-max', '2');
    await type(page, 'g3-pricePerHour', '1.006');
    await page.click('button[aria-label="Remove group 3 (r5.large)"]');
    assert.equal(await value(page, 'g2-name'), 'g5.xlarge', 'what was typed stays through the removal');
    await page.click('#form-autoscaler button[type=submit]');
    await page.waitForSelector('#autoscaler-dialog', { state: 'hidden' });
    g = await groups(page);
    assert.deepEqual(Object.keys(g), ['c5.xlarge', 'g5.xlarge', 'm5.large']);
    assert.deepEqual(g['g5.xlarge'], { min: 0, registered: '0', target: '0', max: 2, price: '$1.006/h' });
    assert.match(await page.textContent('#node-groups tr[data-group="g5.xlarge"]'), /nvidia\.com\/gpu 1/);
    // CA's loops (every 10 s) ask for the api pods' nodes first (tick 10,
    // least-waste's choice; one group grows per loop), then for one
    // g5.xlarge for the report pod (tick 20).
    const g5 = () => page.evaluate(() => /scale-up of g5\.xlarge 0 → 1/.test(document.querySelector('#node-groups .scale-log')?.textContent || ''));
    await stepUntil(page, g5, 25);
    assert.equal(await shownTick(page), 20);
    const lines = await eventLines(page);
    assert.ok(lines.some((l) => l.includes('TriggeredScaleUp') && l.includes('report-') && l.includes('{g5.xlarge 0->1 (max: 2)}')), 'TriggeredScaleUp for the report pod');
    const at = await shownTick(page);
    await app.screenshot('autoscale-form-applied', { fullPage: false });

    // The export writes the edited groups in the kwok provider's ConfigMaps.
    await openMenu(page, 'scenario');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-export-manifests')]);
    const yaml = fs.readFileSync(await download.path(), 'utf8');
    assert.match(yaml, /name: kwok-provider-templates/);
    assert.match(yaml, /cluster-autoscaler.kwok.nodegroup\/max-count: \\"8\\"/);
    assert.match(yaml, /cluster-autoscaler.kwok.nodegroup\/min-count: \\"2\\"/);
    assert.match(yaml, /shepherd.dev\/price-per-hour: \\"1.006\\"/);
    assert.match(yaml, /nvidia.com\/gpu: \\"1\\"/);
    assert.doesNotMatch(yaml, /name: r5.large/);

    // The link reproduces it; Back before the edit shows the groups as imported.
    await page.waitForFunction(() => document.body.dataset.link === 'written' && location.hash.startsWith(`#t=${document.body.dataset.tick}&s=`));
    const tab = await page.context().newPage();
    await tab.goto(page.url());
    await waitForEngine(tab);
    await tab.waitForSelector('#node-groups:not([hidden])');
    assert.equal(await shownTick(tab), at);
    assert.deepEqual(await groups(tab), await groups(page));
    await tab.close();
    while ((await shownTick(page)) >= edited) await page.click('#btn-back');
    await page.waitForFunction((t) => Number(document.body.dataset.tick) === t - 1, edited);
    g = await groups(page);
    assert.deepEqual(Object.keys(g), ['c5.xlarge', 'm5.large', 'r5.large']);
    assert.deepEqual(g['m5.large'], { min: 1, registered: '2', target: '2', max: 6, price: '$0.096/h' });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('long pod names end in an ellipsis inside their node card, whole in the title, at 1280 and 390 px', async () => {
  for (const width of [1280, 390]) {
    const app = await openApp({ viewport: { width, height: 900 } });
    try {
      const { page } = app;
      assert.equal(await waitForEngine(page), 'ready');
      await importExample(page);
      const chip = '#nodes .pod[data-pod^="kube-system/cluster-autoscaler-"]';
      await page.waitForSelector(chip);
      const m = await page.$eval(chip, (b) => {
        const card = b.closest('article').getBoundingClientRect();
        const r = b.getBoundingClientRect();
        const name = b.querySelector('.pod-name');
        return {
          inside: r.left >= card.left - 0.5 && r.right <= card.right + 0.5,
          cut: name.scrollWidth > name.clientWidth,
          title: b.title,
          label: b.getAttribute('aria-label'),
          pod: b.dataset.pod,
          overflow: getComputedStyle(name).textOverflow,
        };
      });
      assert.ok(m.inside, `the chip stays inside its card at ${width} px`);
      assert.equal(m.overflow, 'ellipsis');
      assert.ok(m.title.startsWith(`${m.pod}: `), m.title);
      assert.ok(m.label.startsWith(`pod ${m.pod}`), m.label);
      // No card is wider than its column: nothing sticks out sideways.
      const wide = await page.$$eval('#nodes article.node', (els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.dataset.node));
      assert.deepEqual(wide, []);
      if (width === 390) assert.ok(m.cut, 'at 390 px the name is cut');
      await page.locator(chip).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, `autoscale-long-names-${width}.png`) });
      assert.deepEqual(await axeViolations(page), [], `node cards at ${width} px`);
      // The form from the Scenario menu fits the width too.
      await openMenu(page, 'scenario');
      await page.click('#btn-node-groups');
      await page.waitForSelector('#autoscaler-dialog[open]');
      const fits = await page.$eval('#autoscaler-dialog', (d) => d.scrollWidth <= d.clientWidth + 1 && d.getBoundingClientRect().right <= window.innerWidth + 0.5);
      assert.ok(fits, `the form fits ${width} px`);
      assert.deepEqual(await axeViolations(page), [], `the form at ${width} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, `autoscale-form-${width}.png`) });
      await page.keyboard.press('Escape');
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  }
});
