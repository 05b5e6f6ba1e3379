// The README's screenshot: the guided tour at a telling tick, in headless Chromium.
//   node tests/browser/screenshot.mjs [tick] [out.png]
// Defaults: tick 67 (node-1 NotReady for 10 s, its pods counting down their
// 300 s of tolerationSeconds, a pod Pending), docs/screenshot.png.
import path from 'node:path';
import fs from 'node:fs';
import { openApp, waitForEngine, ROOT, step } from './harness.mjs';

const tick = Number(process.argv[2] || 67);
const out = path.resolve(process.argv[3] || path.join(ROOT, 'docs', 'screenshot.png'));
const app = await openApp({ viewport: { width: 1440, height: 1000 } });
try {
  const { page } = app;
  if ((await waitForEngine(page)) !== 'ready') throw new Error(await page.textContent('#status'));
  await step(page, tick);
  await page.evaluate(() => { document.getElementById('toast').hidden = true; window.scrollTo(0, 0); });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  app.assertNoConsoleErrors();
  console.log(out);
} finally {
  await app.close();
}
