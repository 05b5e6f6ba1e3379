// The README's pictures, in headless Chromium, into docs/ (committed):
//   node tests/browser/screenshot.mjs [tick] [out.png]
// - the guided tour at a telling tick (default 67: node-1 NotReady for 10 s,
//   its pods counting down their 300 s of tolerationSeconds, a pod Pending),
//   as a 1280x800 window shows it -> out.png (default docs/screenshot.png),
//   and as a 390x844 phone shows it -> docs/screenshot-phone.png;
//   failure, recovery and rolling update (tick LATER) -> docs/charts.png;
// - the compare view: the tour (binpack) against default-scheduler at the
//   same tick -> docs/compare.png;
// - the kubectl panel at that tick, after `get pods -o wide`
//   and `top nodes` typed into its prompt -> docs/kubectl.png.
// The panels are captured as elements, narrow, so each PNG stays small
// (under 150 KB); the script says each file's size.
import path from 'node:path';
import fs from 'node:fs';
import { openApp, waitForEngine, ROOT, step } from './harness.mjs';

const tick = Number(process.argv[2] || 67);
const out = path.resolve(process.argv[3] || path.join(ROOT, 'docs', 'screenshot.png'));
const docs = path.join(ROOT, 'docs');
// The tour's tick for the charts and the compare view: after node-1 failed
// (NotReady at tick 57) and recovered (tick 360) and web rolled to v2 (from
// tick 364), before node-2 is drained (tick 372).
const LATER = 371;

function said(file) {
  console.log(`${file} (${Math.round(fs.statSync(file).size / 1024)} KB)`);
}

async function quiet(page) {
  await page.evaluate(() => { document.getElementById('toast').hidden = true; });
}

for (const [viewport, file] of [[{ width: 1280, height: 800 }, out], [{ width: 390, height: 844 }, path.join(docs, 'screenshot-phone.png')]]) {
  const app = await openApp({ viewport });
  try {
    const { page } = app;
    if ((await waitForEngine(page)) !== 'ready') throw new Error(await page.textContent('#status'));
    // Quietly to the tick before, then one Step as a person would click it.
    await page.evaluate((t) => window.shepherdPage.sim.run(t), tick - 1);
    await step(page, 1);
    await page.evaluate(() => { document.getElementById('toast').hidden = true; window.scrollTo(0, 0); });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    said(file);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
}

// The panels, at a narrower width: what a README shows at its own width.
const narrow = await openApp({ viewport: { width: 900, height: 1000 } });
try {
  const { page } = narrow;
  if ((await waitForEngine(page)) !== 'ready') throw new Error(await page.textContent('#status'));
  // Quietly to the tick before, then one Step as a person would click it.
  await page.evaluate((t) => window.shepherdPage.sim.run(t), LATER - 1);
  await step(page, 1);
  await quiet(page);
  fs.mkdirSync(docs, { recursive: true });
  const charts = path.join(docs, 'charts.png');
  await page.locator('#charts-panel').screenshot({ path: charts });
  said(charts);

  await page.selectOption('#compare-profile', 'default-scheduler');
  await page.click('#btn-compare');
  await page.waitForFunction(() => document.getElementById('compare-panel').dataset.tick !== undefined
    && !document.getElementById('compare-body').hidden);
  await quiet(page);
  const compare = path.join(docs, 'compare.png');
  await page.locator('#compare-panel').screenshot({ path: compare });
  said(compare);

  // The prompt, typed into as a person would: each line, then Enter.
  for (const line of ['get pods -o wide', 'top nodes']) {
    const before = (await page.textContent('#kubectl-output')).length;
    await page.click('#kubectl-input');
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.getElementById('kubectl-output').textContent.length > n, before);
  }
  await quiet(page);
  const kubectl = path.join(docs, 'kubectl.png');
  await page.locator('#kubectl-panel').screenshot({ path: kubectl });
  said(kubectl);
  narrow.assertNoConsoleErrors();
} finally {
  await narrow.close();
}
