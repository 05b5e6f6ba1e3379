// A big manifest import in headless Chromium, as issue 10 states it: 5,000
// Nodes and 10,000 Deployments (15 replicas each: 150,000 pods) as kubectl
// prints them, about 21 MB of YAML, dropped on the page.
//
//   node tests/browser/import-perf.mjs [--nodes 5000] [--deployments 10000] [--replicas 15] [--runs 1]
//
// Serves dist/ (or SHEPHERD_WEB_ROOT) like the browser tests. Prints per run:
// the time from the drop to the imported cluster drawn, the parts the page
// records (body[data-import-times]: the worker's start and read, the run
// built from the canonical manifests, the pods placed: engine time, slices,
// the longest slice), and the main thread's long tasks (over 50 ms, from
// Chromium's longtask entries) during the import: how many, the longest,
// and their total. The machine's load average is printed before and after.
import os from 'node:os';
import { openApp, waitForEngine } from './harness.mjs';
import { bigStream } from './bigstream.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const NODES = arg('nodes', 5000);
const DEPLOYMENTS = arg('deployments', 10000);
const REPLICAS = arg('replicas', 15);
const RUNS = arg('runs', 1);

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function run(text) {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, ms: e.duration });
      }).observe({ type: 'longtask' });
      new MutationObserver(() => {
        if (document.body.dataset.manifests === 'imported' && !window.importedAt) {
          // After the task that drew the imported cluster.
          setTimeout(() => { window.importedAt = performance.now(); }, 0);
        }
      }).observe(document.body, { attributes: true });
    });
    await page.evaluate(([text]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'cluster.yaml', { type: 'text/yaml' }));
      window.droppedAt = performance.now();
      for (const type of ['dragenter', 'dragover', 'drop']) {
        document.querySelector('main, body').dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    }, [text]);
    await page.waitForFunction(() => window.importedAt, null, { timeout: 600_000, polling: 200 });
    return await page.evaluate(() => {
      const tasks = window.longTasks.filter((t) => t.start >= window.droppedAt - 1 && t.start <= window.importedAt);
      return {
        totalMs: window.importedAt - window.droppedAt,
        times: JSON.parse(document.body.dataset.importTimes || '{}'),
        longTasks: tasks.length,
        longestMs: Math.max(0, ...tasks.map((t) => t.ms)),
        longTotalMs: tasks.reduce((a, t) => a + t.ms, 0),
        over500: tasks.filter((t) => t.ms > 500).length,
        // Each long task: when it began after the drop, and how long it took.
        list: tasks.map((t) => `${Math.round(t.start - window.droppedAt)}+${Math.round(t.ms)}`).join(' '),
        summary: document.getElementById('cluster-summary').textContent,
      };
    });
  } finally {
    await app.close();
  }
}

const text = bigStream(NODES, DEPLOYMENTS, REPLICAS);
console.log(`${NODES} Nodes + ${DEPLOYMENTS} Deployments x ${REPLICAS} replicas: ${(text.length / 1e6).toFixed(1)} MB of YAML; load average ${load()}`);
for (let i = 0; i < RUNS; i++) {
  const r = await run(text);
  const t = r.times;
  console.log(`run ${i + 1}: drop to drawn ${r.totalMs.toFixed(0)} ms; worker ready ${t.workerLoadMs} ms, read ${t.readMs} ms, run built ${t.loadMs ?? '-'} ms, pods placed ${t.placeMs} ms engine` +
    `${t.slices ? ` in ${t.slices} slices (longest ${t.longestSliceMs} ms, ${t.placeWallMs} ms wall)` : ' (one task, run built included)'}; ` +
    `long tasks: ${r.longTasks}, longest ${r.longestMs.toFixed(0)} ms, ${r.over500} over 500 ms, ${r.longTotalMs.toFixed(0)} ms in all (start+ms: ${r.list}); ${r.summary}`);
}
console.log(`load average after: ${load()}`);
