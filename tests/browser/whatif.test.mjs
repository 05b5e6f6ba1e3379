// What if, in the page (issue 45 item 3): the mid-sized example imported,
// a zone failed on a copy of it, and the Before/After view read as a person
// reads it: the zone's nodes gone from the schedulable capacity, its pods
// deleted by the taint-eviction controller and replaced elsewhere or
// Pending (with the scheduler's reason), the Deployments that stalled. The
// run itself does not change; a mistake is refused next to the form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, waitForEngine, step, shownTick, openMenu, axeViolations } from './harness.mjs';

const ZONE = 'us-east-1a';

async function placement(page) {
  return page.$$eval('#nodes article.node', (els) => Object.fromEntries(
    els.map((el) => [el.dataset.node, [...el.querySelectorAll('.pods .pod')].map((b) => b.dataset.pod).sort()]),
  ));
}

// A section of the result: its heading and its rows' cells.
async function section(page, id) {
  return page.$eval(`#whatif-${id}`, (s) => ({
    title: s.querySelector('h4').textContent,
    rows: [...s.querySelectorAll('tbody tr')].map((tr) => ({
      data: { ...tr.dataset },
      cells: [...tr.cells].map((c) => c.textContent),
    })),
    text: s.textContent,
  }));
}

test('what if a zone fails: the imported example, Before and After', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 1000 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.waitForSelector('#manifests-dialog[open]');
    await page.selectOption('#manifests-example', 'mid-sized-cluster.yaml');
    await page.waitForSelector('#manifests-result:not([hidden])');
    await page.click('#manifests-close');
    await step(page, 3);
    const tick = await shownTick(page);
    const before = await placement(page);
    const zoneNodes = await page.$$eval('#nodes article.node', (els, z) => els
      .filter((el) => el.querySelector(`.label[title="label topology.kubernetes.io/zone=${z}"]`)).map((el) => el.dataset.node), ZONE);
    assert.equal(zoneNodes.length, 5, `the nodes of ${ZONE}: ${zoneNodes}`);
    const inZone = new Set(zoneNodes.flatMap((n) => before[n]));

    // Scenario → What if…: fail the zone, picked from the zones the cluster has.
    await openMenu(page, 'scenario');
    await page.click('#btn-whatif');
    await page.waitForSelector('#whatif[open]');
    assert.match(await page.textContent('#whatif-intro'), new RegExp(`at tick ${tick}`));
    await page.selectOption('#form-whatif select[name=type]', 'failZone');
    const zones = await page.$$eval('#whatif-targets option', (os) => os.map((o) => o.value));
    assert.deepEqual(zones, ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    await page.fill('#form-whatif input[name=target]', ZONE);
    await page.click('#whatif-add');
    assert.deepEqual(await page.$$eval('#whatif-steps li', (ls) => ls.map((l) => l.querySelector('code').textContent)), [`fail zone ${ZONE}`]);
    const t0 = Date.now();
    await page.click('#whatif-run');
    await page.waitForFunction(() => document.body.dataset.whatif === 'done');
    console.log(`# what-if (fail a zone of 15 nodes, 53 pods) answered in ${await page.getAttribute('#whatif', 'data-ms')} ms in the engine, ${Date.now() - t0} ms with the drawing`);
    assert.match(await page.textContent('#whatif-status'), new RegExp(`t=${tick + 1} fail-zone ${ZONE}; then ran to t=\\d+ \\(\\d+ s after the last action\\): settled`));

    // Capacity: the zone's five nodes leave the schedulable pool.
    const cap = await section(page, 'zones');
    const zoneRow = cap.rows.find((r) => r.data.zone === ZONE);
    assert.equal(zoneRow.cells[1], '5 → 0');
    assert.match(zoneRow.cells[2], /^\d+% \(.+ free\) → – \(0 free\)$/);
    for (const z of ['us-east-1b', 'us-east-1c']) assert.equal(cap.rows.find((r) => r.data.zone === z).cells[1], '5');
    assert.equal(cap.rows.find((r) => r.data.zone === 'whole cluster').cells[1], '15 → 10');

    // Pods: every deleted one ran in the zone, by the taint-eviction
    // controller 300 s after NotReady; each moved from the zone to another
    // zone's node, or Pending.
    const deleted = await section(page, 'deleted');
    assert.ok(deleted.rows.length > 0);
    for (const r of deleted.rows) {
      assert.ok(inZone.has(r.data.pod), `${r.data.pod} was drawn on a node of ${ZONE}`);
      assert.ok(zoneNodes.includes(r.cells[1]), r.cells.join(' | '));
      assert.match(r.cells[3], /taint-eviction-controller \(NoExecute taint\)/);
    }
    const moved = await section(page, 'moved');
    assert.equal(moved.rows.length, deleted.rows.length, 'each deleted pod was replaced');
    for (const r of moved.rows) {
      const [, pod, from, , replacement, to] = r.cells;
      assert.ok(zoneNodes.includes(from), r.cells.join(' | '));
      assert.ok(!zoneNodes.includes(to), `${replacement} went to ${to}, in the failed zone`);
      if (pod.startsWith('data/postgres-')) {
        // A StatefulSet's replacement takes the missing ordinal's name, as
        // the StatefulSet controller names it (getPodName).
        assert.equal(replacement, pod);
      } else {
        assert.notEqual(replacement, pod);
        assert.match(replacement, /-[bcdfghjklmnpqrstvwxz2456789]{5}$/, 'a new pod, named as Kubernetes names it');
      }
    }
    // Those that found no room are Pending, with the scheduler's reason.
    const pending = await section(page, 'pending');
    const stuck = moved.rows.filter((r) => r.cells[5] === 'Pending').map((r) => r.cells[4]);
    assert.ok(stuck.length > 0, 'some replacement found no room');
    assert.deepEqual(pending.rows.map((r) => r.cells[0]).sort(), [...stuck].sort());
    for (const r of pending.rows) {
      assert.equal(r.cells[1], 'new');
      assert.match(r.cells[2], /^0\/15 nodes are available: .*untolerated taint/);
    }
    // Deployments: those left with fewer available than desired stalled.
    const deps = await section(page, 'deployments');
    assert.ok(deps.rows.length > 0);
    for (const r of deps.rows) {
      const [avBefore, avAfter = avBefore] = r.cells[2].split(' → ').map(Number);
      const desired = Number(r.cells[1].split(' → ').at(-1));
      assert.equal(r.data.stalled === 'true', avAfter < desired, r.cells.join(' | '));
      assert.ok(avBefore >= avAfter, r.cells.join(' | '));
    }
    assert.ok(deps.rows.some((r) => r.data.stalled === 'true'), 'a Deployment stalled');
    const nodes = await section(page, 'nodes');
    for (const n of zoneNodes) {
      const row = nodes.rows.find((r) => r.data.node === n);
      assert.equal(row.cells[2], 'Ready → NotReady', n);
    }
    assert.match((await section(page, 'blocked')).text, /No eviction was refused/);

    await page.locator('#whatif-result').scrollIntoViewIfNeeded();
    await app.screenshot('whatif-fail-zone', { fullPage: false });
    assert.deepEqual(await axeViolations(page, { include: '#whatif' }), [], 'the what-if dialog');

    // A mistake: refused next to the form, the last answer kept.
    await page.selectOption('#form-whatif select[name=type]', 'drain');
    await page.fill('#form-whatif input[name=target]', 'nope');
    await page.click('#whatif-add');
    await page.click('#whatif-run');
    assert.match(await page.textContent('#whatif-error'), /nope/);
    await page.click('#whatif-close');

    // The run is as it was.
    assert.equal(await shownTick(page), tick);
    assert.deepEqual(await placement(page), before);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('what if on a phone: the dialog fits 390x844, with zero axe-core violations', async () => {
  const app = await openApp({ viewport: { width: 390, height: 844 } });
  try {
    const { page } = app;
    assert.equal(await waitForEngine(page), 'ready');
    // The tour's cluster at tick 5: a node's kubelet stopped, what follows.
    await step(page, 5);
    await openMenu(page, 'scenario');
    await page.click('#btn-whatif');
    await page.waitForSelector('#whatif[open]');
    await page.selectOption('#form-whatif select[name=type]', 'failNode');
    const nodes = await page.$$eval('#whatif-targets option', (os) => os.map((o) => o.value));
    assert.ok(nodes.includes('node-1'), nodes.join(' '));
    await page.fill('#form-whatif input[name=target]', 'node-1');
    await page.click('#whatif-add');
    await page.selectOption('#form-whatif select[name=type]', 'scale');
    await page.fill('#form-whatif input[name=target]', 'web');
    await page.fill('#form-whatif input[name=replicas]', '12');
    await page.click('#whatif-add');
    await page.click('#whatif-run');
    await page.waitForFunction(() => document.body.dataset.whatif === 'done');
    assert.match(await page.textContent('#whatif-status'), /fail-node node-1, t=\d+ scale web=12/);
    const right = await page.$eval('#whatif', (d) => d.getBoundingClientRect().right);
    assert.ok(right <= 390.5, `the dialog runs to ${right}px`);
    assert.deepEqual(await axeViolations(page, { include: '#whatif' }), [], 'the what-if dialog on a phone');
    await app.screenshot('whatif-390', { fullPage: false });
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
