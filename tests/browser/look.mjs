// Takes screenshots of the page in a few states, for a person to look at:
//   node tests/browser/look.mjs [outdir]
// (Not a test: the browser tests take their own screenshots under tests/artifacts/.)
import path from 'node:path';
import fs from 'node:fs';
import { openApp, waitForEngine, ARTIFACTS } from './harness.mjs';

const out = process.argv[2] || path.join(ARTIFACTS, 'look');
fs.mkdirSync(out, { recursive: true });
const app = await openApp({ viewport: { width: 1440, height: 900 } });
try {
  const { page } = app;
  if ((await waitForEngine(page)) !== 'ready') throw new Error(await page.textContent('#status'));
  const shot = async (name, full = false) => {
    const file = path.join(out, `${name}.png`);
    await page.screenshot({ path: file, fullPage: full });
    console.log(file);
  };
  await shot('00-start');
  for (let i = 0; i < 4; i++) await page.click('#btn-step');
  await shot('01-tick4');
  await shot('01-tick4-full', true);
  await page.click('#pending .pod');
  await page.waitForSelector('#explain[open]');
  await shot('02-explain');
  await page.keyboard.press('Escape');
  // Skip: the quiet ticks pass up to the next event (tick 6, then 57).
  const skipTo = async (t) => {
    while (Number(await page.evaluate(() => document.body.dataset.tick)) < t) await page.click('#btn-skip');
  };
  await skipTo(57);
  await shot('03-tick57-notready');
  for (let i = 0; i < 10; i++) await page.click('#btn-step');
  await shot('04-tick67-countdown');
  await page.locator('#nodes article[data-node="node-1"]').screenshot({ path: path.join(out, '04-tick67-node-1.png') });
  await skipTo(357);
  await shot('05-tick357-evicted');
  await skipTo(366);
  await shot('06-tick366-rolling');
  // The "DaemonSet & Pod" forms: a system-node-critical DaemonSet on the
  // host network (it preempts where a node is full) and a bare Pod.
  await page.click('#tab-workloads');
  await page.fill('#form-daemonset input[name=priorityClassName]', 'system-node-critical');
  await page.check('#form-daemonset input[name=hostNetwork]');
  await page.click('#form-daemonset button[type=submit]');
  await page.click('#form-pod button[type=submit]');
  for (let i = 0; i < 3; i++) await page.click('#btn-step');
  await shot('07-daemonset-pod');
  await page.locator('#pane-workloads').screenshot({ path: path.join(out, '07-daemonset-pod-forms.png') });
  await page.click('#tab-big');
  await page.fill('#form-generate input[name=nodes]', '1000');
  await page.click('#form-generate button[type=submit]');
  await page.waitForFunction(() => !document.body.dataset.slicing && document.body.dataset.tick === '1');
  await page.waitForTimeout(300);
  await shot('08-grid1000');
  app.assertNoConsoleErrors();
} finally {
  await app.close();
}
