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
  for (let i = 0; i < 6; i++) await page.click('#btn-step');
  await shot('03-tick10');
  for (let i = 0; i < 8; i++) await page.click('#btn-step');
  await shot('04-tick18');
  for (let i = 0; i < 9; i++) await page.click('#btn-step');
  await shot('05-tick27');
  await page.click('#tab-big');
  await page.fill('#form-generate input[name=nodes]', '1000');
  await page.click('#form-generate button[type=submit]');
  await page.waitForFunction(() => document.body.dataset.tick === '1');
  await page.waitForTimeout(300);
  await shot('06-grid1000');
  app.assertNoConsoleErrors();
} finally {
  await app.close();
}
