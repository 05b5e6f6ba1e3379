// Kubernetes manifests in the page: a file dropped on the page is imported
// and its pods placed, the warnings listed, and the share link replays the
// imported cluster; a bad file is refused with the document, object and field
// it is about, and the run on the page stays as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApp, waitForEngine, shownTick, step, stepUntil, appRow, settledHash, openMenu, ROOT } from './harness.mjs';
import { bigStream } from './bigstream.mjs';

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

// Waits for the engine, steps the run `ticks` ticks and records its state:
// what a refused or cancelled import must leave as it was.
async function steppedRun(page, ticks) {
  assert.equal(await waitForEngine(page), 'ready');
  await step(page, ticks);
  return runState(page);
}

// The tick shown, every pod's node and the run's link are as `before`.
async function assertRunAsBefore(page, before) {
  assert.equal(await shownTick(page), before.tick);
  assert.deepEqual(await placement(page), before.placed);
  assert.equal(await page.evaluate(() => location.hash), before.hash);
}

// Pod chips per node card, as the page draws them.
// What a refused or cancelled import must leave as it was: the tick shown,
// where every pod is, and the run's link.
async function runState(page) {
  return { tick: await shownTick(page), placed: await placement(page), hash: await settledHash(page) };
}

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

// Issue 45: a node offering nvidia.com/gpu gets a GPU bar on its card
// (requested of allocatable, whole devices); a node without one gets none.
test('a GPU node\'s card has a GPU bar with what its pods request', async () => {
  const gpus = [
    'apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\nstatus:\n  allocatable: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "4"}\n',
    'apiVersion: v1\nkind: Node\nmetadata:\n  name: plain\nstatus:\n  allocatable: {cpu: "8", memory: 32Gi}\n',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: train\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: train}\n  template:\n    metadata:\n      labels: {app: train}\n    spec:\n      containers:\n      - name: c\n        resources:\n          requests: {cpu: 500m, memory: 1Gi}\n          limits: {nvidia.com/gpu: 1}\n',
  ].join('---\n');
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await dropFile(page, 'gpus.yaml', gpus);
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    await page.click('#manifests-close');
    const meter = page.locator('#nodes article.node[data-node="gpu-a"] [role="meter"][aria-label="nvidia.com/gpu requested on gpu-a"]');
    assert.equal(await meter.getAttribute('aria-valuenow'), '3');
    assert.equal(await meter.getAttribute('aria-valuemax'), '4');
    const row = page.locator('#nodes article.node[data-node="gpu-a"] .bar-row', { hasText: 'GPU' });
    assert.match(await row.textContent(), /GPU.*3 \/ 4/);
    assert.equal(await page.locator('#nodes article.node[data-node="plain"] .bar-row').count(), 2, 'CPU and Memory only');
    await app.screenshot('gpu-card', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

// Issue 42, row 12: "Apply to this run" is kubectl apply -f onto the running
// cluster: a changed Deployment rolls and scales (it was refused as "already
// exists"), and a changed selector is refused in the API server's words.
test('manifests applied to the running cluster update what exists, as kubectl apply does', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await dropFile(page, 'three-zones.yaml', EXAMPLE);
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    const web = EXAMPLE.slice(EXAMPLE.indexOf('kind: Deployment\nmetadata:\n  name: web'));
    const changed = `apiVersion: apps/v1\n${web.slice(0, web.indexOf('\n---'))}`
      .replace('replicas: 6', 'replicas: 7')
      .replace('        tier: frontend\n', '        tier: frontend\n        version: v2\n');
    assert.ok(changed.includes('version: v2'), changed);
    await page.fill('#manifests-text', changed);
    await page.click('#manifests-apply');
    await page.waitForFunction(() => document.body.dataset.manifests === 'applied');
    assert.equal(await page.isHidden('#manifests-error'), true);
    await page.click('#manifests-close');
    await stepUntil(page, async () => {
      const r = await appRow(page, 'web');
      return r.ready === '7/7' && r.updated === 7;
    }, 60);
    // A changed selector: refused, named, and the run stays.
    const before = await shownTick(page);
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.fill('#manifests-text', changed.replace('matchLabels:\n      app: web', 'matchLabels:\n      app: web\n      version: v2'));
    await page.click('#manifests-apply');
    assert.match(await page.textContent('#manifests-error'), /spec\.selector: Invalid value: .*field is immutable/);
    assert.equal(await shownTick(page), before);
    await page.click('#manifests-close');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a bad manifest file is refused with its document and field, and the run stays', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 4);

    // Dropped: the Import dialog opens and says what and where.
    const bad = EXAMPLE.replace('replicas: 6', 'replicas: six');
    await dropFile(page, 'broken.yaml', bad);
    await page.waitForSelector('#manifests-error:not([hidden])');
    const text = await page.textContent('#manifests-error');
    assert.match(text, /Could not import broken\.yaml; nothing changed/);
    assert.match(text, /document 7 \(Deployment web\): spec\.replicas: found a string \("six"\); expected a whole number/);
    assert.equal(await shownTick(page), before.tick);
    assert.deepEqual(await placement(page), before.placed);
    await app.screenshot('manifests-refused');
    await page.click('#manifests-close');

    // Pasted into the dialog: the error shows in the dialog, and again nothing changes.
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
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

// Issue 42, rows 1-3 in the page: aliases that repeat one long scalar
// (721 KB, read in the worker), 2 MB of `[[[[` (the worker) and 200 KB of it
// (on the page), and a template with 65 preferred anti-affinity terms (on the
// page) are refused with their document, path and figure, and the run stays.
test('inputs that once took the tab\'s memory or minutes are refused at once, and the run stays', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 2);
    const term = '          - weight: 1\n            podAffinityTerm:\n              topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app: web\n';
    const cases = [
      ['aliases.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: &a ${'x'.repeat(1000)}\n  l: [${Array(240000).fill('*a').join(',')}]\n`,
        /document 1: data\.l\[65026\]: its aliases expand the values read past 67108864 bytes; expected at most 67108864/],
      ['deep.yaml', `a: ${'['.repeat(1000000)}${']'.repeat(1000000)}\n`,
        /document 1: collections nest deeper than 128 levels at line 1, column 131; expected at most 128/],
      ['deep-small.yaml', `a: ${'['.repeat(100000)}${']'.repeat(100000)}\n`,
        /document 1: collections nest deeper than 128 levels at line 1, column 131/],
      ['terms.yaml',
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3000\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n      affinity:\n        podAntiAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n${term.repeat(65)}`,
        /document 1 \(Deployment web\): spec\.template\.spec\.affinity\.podAntiAffinity\.preferredDuringSchedulingIgnoredDuringExecution: 65 entries; expected at most 64/],
    ];
    for (const [name, text, why] of cases) {
      await dropFile(page, name, text);
      // Every input answers in the Import dialog (large ones read in the worker).
      await page.waitForFunction((name) => [document.getElementById('manifests-error'), document.getElementById('alert-text')]
        .some((el) => el && el.offsetParent !== null && el.textContent.includes(`Could not import ${name}`)), name, { timeout: 60_000 });
      const shown = await page.evaluate(() => [document.getElementById('manifests-error'), document.getElementById('alert-text')]
        .filter((el) => el && el.offsetParent !== null).map((el) => el.textContent).join(' | '));
      assert.match(shown, why, name);
      if (await page.evaluate(() => document.getElementById('manifests-dialog')?.open)) await page.click('#manifests-close');
      await assertRunAsBefore(page, before);
    }
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

// Records, while body[data-importing] is `phase` ('reading': the worker reads;
// 'placing': the page places the pods in slices), the timer ticks and frames
// the page still runs and what the progress shows at each change: the bar's
// value while reading, the text's lines while placing. Kept as window[name].
async function heartbeat(page, phase, name) {
  await page.evaluate(([phase, name]) => {
    const beat = { ticks: 0, frames: 0, maxGap: 0, seen: [] };
    window[name] = beat;
    const now = () => document.body.dataset.importing === phase;
    let last = performance.now();
    setInterval(() => {
      const t = performance.now();
      if (now()) {
        beat.ticks++;
        beat.maxGap = Math.max(beat.maxGap, t - last);
      }
      last = t;
    }, 20);
    const frame = () => {
      if (now()) beat.frames++;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const bar = document.getElementById('manifests-progress-bar');
    const text = document.getElementById('manifests-progress-text');
    if (phase === 'reading') {
      new MutationObserver(() => {
        if (now() && bar.hasAttribute('value')) beat.seen.push(bar.value);
      }).observe(bar, { attributes: true });
    } else {
      new MutationObserver(() => {
        if (now()) beat.seen.push(text.textContent);
      }).observe(text, { childList: true, characterData: true, subtree: true });
    }
  }, [phase, name]);
}

test('a large stream is read in a worker with progress while the page answers, then its pods are placed', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    const text = bigStream(2000, 2000);
    assert.ok(text.length > 5e6, `${text.length} bytes`);
    await heartbeat(page, 'reading', 'beat');
    await dropFile(page, 'cluster.yaml', text);
    // Over 4 MB: the progress shows at once, in the dialog that opens.
    await page.waitForSelector('#manifests-progress:not([hidden])');
    assert.ok(await page.isVisible('#manifests-dialog'));
    assert.match(await page.textContent('#manifests-progress-text'), /cluster\.yaml/);
    // The bar moves as the worker reads (the picture once it has).
    await page.waitForFunction(() => document.getElementById('manifests-progress-bar').value >= 10 || document.body.dataset.importing !== 'reading');
    await app.screenshot('manifests-progress', { fullPage: false });
    // The page answers while the worker reads: typing reaches the text box.
    await page.fill('#manifests-text', 'typed while the import runs');
    assert.equal(await page.inputValue('#manifests-text'), 'typed while the import runs');
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported', null, { timeout: 180_000 });
    const beat = await page.evaluate(() => window.beat);
    const times = JSON.parse(await page.evaluate(() => document.body.dataset.importTimes));
    console.log(`${(text.length / 1e6).toFixed(1)} MB, 2,000 Nodes + 2,000 Deployments: worker ready in ${times.workerLoadMs} ms, read in ${times.readMs} ms, run built and pods placed in ${times.placeMs} ms, ${times.totalMs} ms in all; while reading: ${beat.ticks} timer ticks (longest gap ${beat.maxGap.toFixed(0)} ms), ${beat.frames} frames, ${beat.seen.length} progress updates`);
    // Timers and frames kept coming while the worker read, and the bar moved.
    assert.ok(beat.ticks >= 3 && beat.frames >= 2, JSON.stringify(beat));
    assert.ok(beat.maxGap < 1000, `the page stalled ${beat.maxGap.toFixed(0)} ms while the worker read`);
    assert.ok(new Set(beat.seen).size >= 3, `progress values ${JSON.stringify(beat.seen)}`);
    assert.ok(await page.isHidden('#manifests-progress'));
    assert.match(await page.textContent('#manifests-summary'), /4000 objects: imported 2000 Deployment, 2000 Node/);
    assert.match(await page.textContent('#cluster-summary'), /2,000 nodes \(2,000 Ready\) · 6,000 pods bound · 0 Pending/);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a large stream with an error at its end is refused from the worker, and the run stays', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 2);
    const text = `${bigStream(300, 300)}---\napiVersion: v1\nkind: Node\nmetadata:\n  name: last\nstatus:\n  allocatable:\n    cpu: lots\n`;
    assert.ok(text.length > 256 * 1024, 'large enough for the worker');
    await dropFile(page, 'big-broken.yaml', text);
    await page.waitForSelector('#manifests-error:not([hidden])');
    assert.match(await page.textContent('#manifests-error'),
      /Could not import big-broken\.yaml; nothing changed\. document 601 \(Node last\): status\.allocatable\.cpu: cpu "lots" is not a quantity/);
    assert.ok(await page.isHidden('#manifests-progress'));
    await page.click('#manifests-close');
    await assertRunAsBefore(page, before);
    assert.equal(await page.evaluate(() => document.body.dataset.manifests), undefined);
  } finally {
    await app.close();
  }
});

test('a large import cancelled while the worker reads changes nothing', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 2);
    await dropFile(page, 'cluster.yaml', bigStream(2000, 2000));
    await page.waitForSelector('#manifests-progress:not([hidden])');
    await page.click('#manifests-cancel');
    await page.waitForSelector('#manifests-progress', { state: 'hidden' });
    assert.match(await page.textContent('#toast'), /Import of cluster\.yaml cancelled; nothing changed/);
    assert.equal(await page.evaluate(() => document.body.dataset.importing), undefined);
    await page.click('#manifests-close');
    await assertRunAsBefore(page, before);
    assert.equal(await page.evaluate(() => document.body.dataset.manifests), undefined);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a big import places its pods in slices with progress while the page answers, and ends where the whole tick does', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    // Short slices, so that a cluster a test can afford takes many.
    await page.evaluate(() => { window.shepherdSliceMs = 1; });
    await heartbeat(page, 'placing', 'placingBeat');
    await dropFile(page, 'cluster.yaml', bigStream(2000, 4000, 4));
    await page.waitForFunction(() => document.body.dataset.importing === 'placing'
      && /Placing pods: [\d,]+ of [\d,]+ placed/.test(document.getElementById('manifests-progress-text').textContent), null, { timeout: 180_000, polling: 10 });
    // A click lands between two slices: the text box takes focus. (The
    // test holds the slices there, so that the click cannot come after the
    // last one on a fast machine; the beat above counts what ran while they
    // ran.)
    await page.evaluate(() => { window.shepherdSliceHold = new Promise((r) => { window.releaseSlices = r; }); });
    const box = await page.locator('#manifests-text').boundingBox();
    await page.mouse.click(box.x + 20, box.y + 10);
    const during = await page.evaluate(() => ({ focus: document.activeElement.id, importing: document.body.dataset.importing }));
    assert.deepEqual(during, { focus: 'manifests-text', importing: 'placing' });
    await app.screenshot('manifests-placing', { fullPage: false });
    await page.evaluate(() => { window.shepherdSliceHold = null; window.releaseSlices(); });
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported', null, { timeout: 180_000 });
    const beat = await page.evaluate(() => window.placingBeat);
    const times = JSON.parse(await page.evaluate(() => document.body.dataset.importTimes));
    console.log(`2,000 Nodes + 4,000 Deployments (16,000 pods): run built in ${times.loadMs} ms, pods placed in ${times.slices} slices, ${times.placeMs} ms of engine time (longest slice ${times.longestSliceMs} ms), ${times.placeWallMs} ms wall; while placing: ${beat.ticks} timer ticks (longest gap ${beat.maxGap.toFixed(0)} ms), ${beat.frames} frames, ${beat.seen.length} progress lines`);
    assert.ok(times.slices >= 5, `${times.slices} slices`);
    // Timers and frames ran between the slices, and the count went up.
    assert.ok(beat.ticks >= 3 && beat.frames >= 2, JSON.stringify({ ...beat, seen: beat.seen.length }));
    const counts = beat.seen.map((l) => l.match(/Placing pods: ([\d,]+) of ([\d,]+) placed/)).filter(Boolean)
      .map((m) => [Number(m[1].replace(/,/g, '')), Number(m[2].replace(/,/g, ''))]);
    assert.ok(counts.length >= 3, JSON.stringify(beat.seen.slice(0, 5)));
    assert.ok(counts.every((c, i) => i === 0 || c[0] >= counts[i - 1][0]), 'the placed count only grows');
    assert.ok(counts.every(([done, total]) => done <= total && total <= 16000), JSON.stringify(counts.slice(-3)));
    assert.match(await page.textContent('#cluster-summary'), /2,000 nodes \(2,000 Ready\) · 16,000 pods bound · 0 Pending/);
    // The same scenario replayed whole (fromScenario steps the tick in one
    // call): the same placement, events and view.
    const same = await page.evaluate(() => {
      const sim = window.shepherdPage.sim;
      const whole = sim.constructor.fromScenario(sim.exportScenario());
      try {
        const events = (s) => JSON.stringify(s.eventsSince(0, 1e6).events);
        const snap = (s) => JSON.stringify(s.snapshot(false));
        return {
          tick: [sim.tick, whole.tick],
          grid: JSON.stringify(Array.from(sim.nodeGrid())) === JSON.stringify(Array.from(whole.nodeGrid())),
          events: events(sim) === events(whole),
          eventCount: sim.eventsSince(0, 1e6).events.length,
          snapshot: snap(sim) === snap(whole),
        };
      } finally {
        whole.free();
      }
    });
    assert.deepEqual(same.tick, [1, 1]);
    assert.ok(same.eventCount > 16000, `${same.eventCount} events`);
    assert.deepEqual({ grid: same.grid, events: same.events, snapshot: same.snapshot }, { grid: true, events: true, snapshot: true });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('a big import cancelled while its pods are placed changes nothing', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 2);
    // Held between two slices (see the test above) while Cancel is pressed.
    await page.evaluate(() => {
      window.shepherdSliceMs = 1;
      window.shepherdSliceHold = new Promise((r) => { window.releaseSlices = r; });
    });
    await dropFile(page, 'cluster.yaml', bigStream(1500, 3000, 4));
    // Held after the first slice, which fires the first of the scripted
    // events (the nodes are registered before any pod is placed).
    await page.waitForFunction(() => document.body.dataset.importing === 'placing'
      && /Registering the nodes and workloads|Placing pods/.test(document.getElementById('manifests-progress-text').textContent), null, { timeout: 180_000, polling: 10 });
    await page.click('#manifests-cancel');
    await page.evaluate(() => { window.shepherdSliceHold = null; window.releaseSlices(); });
    await page.waitForSelector('#manifests-progress', { state: 'hidden' });
    assert.match(await page.textContent('#toast'), /Import of cluster\.yaml cancelled; nothing changed/);
    assert.equal(await page.evaluate(() => document.body.dataset.importing), undefined);
    await page.click('#manifests-close');
    await assertRunAsBefore(page, before);
    assert.equal(await page.evaluate(() => document.body.dataset.manifests), undefined);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

// A file past the import's limit is refused from its size, before the page
// reads it (reading 80 MB into the tab to find it too large was the cost
// before); a scenario file past its own limit likewise. The files are sparse:
// nothing is written but their length.
test('files past the size limits are refused from their size, and the run stays', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shepherd-large-inputs-'));
  const app = await openApp();
  try {
    const { page } = app;
    const before = await steppedRun(page, 2);
    const manifests = path.join(dir, 'huge.yaml');
    fs.closeSync(fs.openSync(manifests, 'w'));
    fs.truncateSync(manifests, 80 << 20);
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.setInputFiles('#import-file', manifests);
    await page.waitForSelector('#manifests-error:not([hidden])');
    assert.match(await page.textContent('#manifests-error'),
      /Could not import huge\.yaml; nothing changed\. the input is 83886080 bytes; expected at most 67108864 \(Limits::max_bytes\)/);
    await app.screenshot('manifests-too-large', { fullPage: false });
    await page.click('#manifests-close');

    // A scenario (its first key says so) past its own, smaller limit.
    const scenario = path.join(dir, 'huge.json');
    fs.writeFileSync(scenario, '{"version": 1, "seed": 1, "policy": "binpack", "actions": [');
    fs.truncateSync(scenario, 9 << 20);
    await page.setInputFiles('#import-file', scenario);
    await page.waitForFunction(() => /huge\.json/.test(document.getElementById('manifests-error').textContent));
    assert.match(await page.textContent('#manifests-error'),
      /Could not import huge\.json; nothing changed\. the scenario is 9437184 bytes, more than the limit of 8388608 \(MAX_DOCUMENT_BYTES\)/);
    await assertRunAsBefore(page, before);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Issue 45: the realistic example imports from the dialog's list, and both
// exports write each imported object as it was given (images, selectors),
// the KWOK one with KWOK's marks on the nodes.
test('the mid-sized cluster example imports, and its exports keep what was given', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.waitForSelector('#manifests-dialog[open]');
    await page.selectOption('#manifests-example', 'mid-sized-cluster.yaml');
    await page.waitForSelector('#manifests-result:not([hidden])');
    assert.match(await page.textContent('#manifests-summary'), /imported 3 DaemonSet, 5 Deployment, 15 Node, 4 PodDisruptionBudget, 1 PriorityClass, 6 Service, 1 StatefulSet/);
    await page.click('#manifests-close');
    const read = async (button) => {
      await openMenu(page, 'scenario');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
      return fs.readFileSync(await download.path(), 'utf8');
    };
    const kwok = await read('#btn-export-kwok');
    assert.match(kwok, /ghcr\.io\/acme\/checkout:1\.9\.0/);
    assert.doesNotMatch(kwok, /pause:3\.9/);
    assert.equal(kwok.match(/kwok\.x-k8s\.io\/node: fake/g).length, 15, 'every node is a KWOK node');
    assert.doesNotMatch(kwok, /managedFields|resourceVersion|uid:/);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
