// The scheduler profile in the page (issue 9): new runs start with
// kube-scheduler's default profile, the explain dialog has a column per score
// plugin and is sortable, switching or editing the profile changes where pods
// land, a bad profile is refused at the field it is about, and the dialogs
// pass axe-core on a desktop and on a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openApp, waitForEngine, step, nodeCard, toast, openTab, resetEmpty, problem, axeViolations, openMenu, podName,
} from './harness.mjs';

const DEFAULT_SCORES = ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation'];

async function addNode(page, name, cpu = '4', memory = '8Gi', labels = '') {
  await openTab(page, 'Node');
  await page.fill('#form-add-node input[name=name]', name);
  await page.fill('#form-add-node input[name=cpu]', cpu);
  await page.fill('#form-add-node input[name=memory]', memory);
  await page.fill('#form-add-node input[name=labels]', labels);
  await page.click('#form-add-node button[type=submit]');
}

async function deploy(page, name, replicas, cpu, memory = '256Mi') {
  await openTab(page, 'Deploy');
  await page.fill('#form-deploy input[name=name]', name);
  await page.fill('#form-deploy input[name=replicas]', String(replicas));
  await page.fill('#form-deploy input[name=cpu]', cpu);
  await page.fill('#form-deploy input[name=memory]', memory);
  await page.click('#form-deploy button[type=submit]');
}

// Three nodes in three zones, and `web` with four small pods.
async function smallCluster(page) {
  for (const [n, z] of [['node-1', 'zone-a'], ['node-2', 'zone-b'], ['node-3', 'zone-c']]) {
    await addNode(page, n, '4', '8Gi', `topology.kubernetes.io/zone=${z}`);
  }
  await deploy(page, 'web', 4, '500m', '512Mi');
}

async function pods(page, nodes) {
  const out = {};
  for (const n of nodes) out[n] = (await nodeCard(page, n)).pods;
  return out;
}

// The explain table as data: headers (by data-key) and, per row, its cells.
async function explainTable(page) {
  return page.evaluate(() => {
    const t = document.getElementById('explain-table');
    const keys = [...t.tHead.rows[0].cells].map((th) => th.dataset.key);
    const sort = [...t.tHead.rows[0].cells].filter((th) => th.hasAttribute('aria-sort')).map((th) => [th.dataset.key, th.getAttribute('aria-sort')]);
    const rows = [...t.tBodies[0].rows].map((tr) => ({
      node: tr.dataset.node,
      chosen: tr.classList.contains('chosen'),
      rejected: tr.classList.contains('rejected'),
      cells: [...tr.cells].map((c) => c.firstChild ? c.firstChild.textContent : ''),
      titles: [...tr.cells].map((c) => c.title),
      text: tr.textContent,
    }));
    return { keys, sort, rows };
  });
}

async function openExplain(page, selector) {
  await page.click(selector);
  await page.waitForSelector('#explain[open]');
  return explainTable(page);
}

test('new runs start with default-scheduler; the tour keeps binpack', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // The tour's captions describe bin packing: it runs binpack.
    assert.equal(await page.$eval('#policy', (s) => s.value), 'binpack');
    await resetEmpty(page, 7);
    assert.equal(await page.$eval('#policy', (s) => s.value), 'default-scheduler');
    assert.match((await toast(page)).text, /scheduler profile default-scheduler/);
    const doc = await page.evaluate(() => window.shepherdPage.sim.profile);
    assert.deepEqual(doc.plugins.score.map((s) => [s.name, s.weight]),
      [['TaintToleration', 3], ['NodeAffinity', 2], ['NodeResourcesFit', 1], ['PodTopologySpread', 2], ['InterPodAffinity', 2], ['NodeResourcesBalancedAllocation', 1]]);
    assert.equal(JSON.parse(await page.evaluate(() => window.shepherdPage.sim.exportScenario())).policy, 'default-scheduler');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('explain: a column per score plugin for a bound pod and a pending one, sortable, the winner marked', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, 7);
    await smallCluster(page);
    // default-scheduler spreads the four pods: 2, 1, 1 in some order.
    assert.deepEqual(Object.values(await pods(page, ['node-1', 'node-2', 'node-3'])).sort(), [1, 1, 2]);

    // A bound pod: every node passes; six plugin columns, the total and the position.
    // web-0: the first pod web's ReplicaSet created, named <replicaset>-<5 chars>.
    const web0 = await podName(page, 'web-0');
    assert.match(web0, /^web-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const chip = await page.$eval(`#nodes .pod[data-pod="${web0}"]`, (b) => b.closest('article').dataset.node);
    let t = await openExplain(page, `#nodes .pod[data-pod="${web0}"]`);
    assert.match(await page.textContent('#explain-title'), new RegExp(`Why is ${web0} on ${chip}\\?`));
    assert.deepEqual(t.keys, ['position', 'node', ...DEFAULT_SCORES, 'total']);
    assert.equal(t.rows.length, 3);
    for (const r of t.rows) {
      // Each plugin cell's title gives raw, normalized, weight and weighted;
      // the total is the sum of the weighted scores.
      const parts = r.titles.slice(2, 2 + DEFAULT_SCORES.length).map((title, i) => {
        // web-0 has no preferred node affinity and no pod (anti-)affinity:
        // NodeAffinity's and InterPodAffinity's PreScore skip, as in Kubernetes.
        const skip = /^(\w+) on ([\w-]+): skipped at PreScore/.exec(title);
        if (skip) {
          assert.ok(['NodeAffinity', 'InterPodAffinity'].includes(skip[1]), `skipped ${skip[1]}`);
          assert.equal(skip[1], DEFAULT_SCORES[i]);
          assert.equal(r.cells[2 + i], '–');
          return 0;
        }
        const m = /^(\w+) on ([\w-]+): raw score (-?\d+), normalized (\d+), × weight (\d+) = (\d+)$/.exec(title);
        assert.ok(m, `cell title "${title}"`);
        assert.equal(m[1], DEFAULT_SCORES[i]);
        assert.equal(m[2], r.node);
        assert.equal(Number(m[4]), Number(r.cells[2 + i]), 'the cell shows the normalized score');
        assert.ok(Number(m[4]) >= 0 && Number(m[4]) <= 100);
        assert.equal(Number(m[4]) * Number(m[5]), Number(m[6]));
        return Number(m[6]);
      });
      assert.equal(parts.reduce((a, b) => a + b, 0), Number(r.cells.at(-1).replace(/,/g, '')), `total of ${r.node}`);
    }
    assert.ok(t.rows[0].chosen, 'the best total is highlighted');
    assert.equal(t.rows[0].cells[0], '#1');
    assert.ok(t.rows.some((r) => r.node === chip && /bound here/.test(r.text)));
    // Which plugin decided, and by how much; the weights are in the headers.
    const decided = await page.textContent('#explain-decided');
    assert.match(decided, /^(Decided by (\w+): it gives [\w-]+ \d+ more weighted points than the runner-up [\w-]+; the totals differ by \d+|\d+ nodes share the best total)/);
    // It opens on the cycle that bound it; a switch shows a cycle run now.
    assert.equal(await page.isVisible('#explain-when'), true);
    assert.match(await page.textContent('#explain-then'), /^At the decision \(tick \d+\)$/);
    assert.equal(await page.getAttribute('#explain-then', 'aria-pressed'), 'true');
    assert.match(await page.textContent('#explain-meta'), /^As the scheduling cycle at tick \d+ saw the cluster, just before the bind\./);
    assert.match(await page.textContent('#explain-summary'), new RegExp(`^${web0} was bound to ${chip}`));
    await page.click('#explain-now');
    assert.equal(await page.getAttribute('#explain-now', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('#explain-then', 'aria-pressed'), 'false');
    assert.match(await page.textContent('#explain-summary'), /as if it were placed again now/);
    assert.match(await page.textContent('#explain-meta'), /^At tick \d+\./);
    await page.click('#explain-then');
    assert.match(await page.textContent('#explain-summary'), new RegExp(`^${web0} was bound to ${chip}`));
    assert.match(await page.textContent('#explain-table thead'), /×3.*×2/);

    // Sort by Total (best first), then by node name, then by a plugin.
    await page.click('#explain-table button.sort[data-key="total"]');
    t = await explainTable(page);
    assert.deepEqual(t.sort, [['total', 'descending']]);
    const totals = t.rows.map((r) => Number(r.cells.at(-1)));
    assert.deepEqual(totals, [...totals].sort((a, b) => b - a));
    await page.click('#explain-table button.sort[data-key="total"]');
    t = await explainTable(page);
    assert.deepEqual(t.sort, [['total', 'ascending']]);
    assert.deepEqual(t.rows.map((r) => Number(r.cells.at(-1))), [...totals].sort((a, b) => a - b));
    await page.click('#explain-table button.sort[data-key="node"]');
    assert.deepEqual((await explainTable(page)).rows.map((r) => r.node), ['node-1', 'node-2', 'node-3']);
    await page.click('#explain-table button.sort[data-key="NodeResourcesFit"]');
    t = await explainTable(page);
    const fit = t.rows.map((r) => Number(r.cells[2 + DEFAULT_SCORES.indexOf('NodeResourcesFit')]));
    assert.deepEqual(fit, [...fit].sort((a, b) => b - a));
    // Raw scores and weights in the cells, on request.
    assert.equal(await page.isVisible('#explain-table td.score .detail'), false);
    await page.check('#explain-detail');
    assert.match(await page.textContent('#explain-table tbody tr:first-child'), /raw -?\d+ · ×\d+ = \d+/);
    assert.equal(await page.isVisible('#explain-table td.score .detail >> nth=0'), true);
    await app.screenshot('profile-explain-bound-1440', { fullPage: false });
    await page.uncheck('#explain-detail');
    await page.click('#explain-table button.sort[data-key="position"]');
    await page.keyboard.press('Escape');

    // A pending pod: no node has 3.6 CPU left; every node rejected by
    // NodeResourcesFit, the columns still named.
    await deploy(page, 'big', 1, '3600m', '1Gi');
    const pending = await page.$eval('#pending button.pod', (b) => b.textContent);
    assert.match(pending, /big-/);
    t = await openExplain(page, '#pending button.pod');
    assert.match(await page.textContent('#explain-title'), /Pending\?/);
    assert.deepEqual(t.keys, ['position', 'node', ...DEFAULT_SCORES, 'total']);
    assert.ok(t.rows.every((r) => r.rejected && /NodeResourcesFit: Insufficient cpu/.test(r.text)), t.rows.map((r) => r.text).join('\n'));
    assert.equal(await page.textContent('#explain-decided'), 'No node passes every filter, so no score plugin ran.');
    assert.match(await page.textContent('#explain-summary'), /0\/3 nodes are available: 3 Insufficient cpu/);
    await page.keyboard.press('Escape');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('switching the profile changes where pods land, and Reset keeps the choice', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    const run = async () => {
      await addNode(page, 'node-1');
      await addNode(page, 'node-2');
      await deploy(page, 'web', 2, '500m');
      return pods(page, ['node-1', 'node-2']);
    };
    await resetEmpty(page, 3);
    // kube-scheduler's default spreads: one pod per node.
    assert.deepEqual(await run(), { 'node-1': 1, 'node-2': 1 });

    // binpack: the fullest node that fits, ties to the lowest id: both on node-1.
    await openMenu(page, 'scheduler');
    await page.selectOption('#policy', 'binpack');
    assert.match((await toast(page)).text, /Scheduler profile binpack/);
    await resetEmpty(page, 3);
    assert.equal(await page.$eval('#policy', (s) => s.value), 'binpack');
    assert.match((await toast(page)).text, /scheduler profile binpack/);
    assert.deepEqual(await run(), { 'node-1': 2, 'node-2': 0 });
    // The explain dialog follows: a single NodeResourcesFit column.
    const t = await openExplain(page, `#nodes .pod[data-pod="${await podName(page, 'web-0')}"]`);
    assert.deepEqual(t.keys, ['position', 'node', 'NodeResourcesFit', 'total']);
    // The cycle that bound web-0 saw two empty nodes: a tie, to the lowest
    // id. Placed again now, web-1 makes node-1 the fuller: NodeResourcesFit decides.
    assert.match(await page.textContent('#explain-decided'), /^2 nodes share the best total.*lowest node id wins/);
    await page.click('#explain-now');
    assert.match(await page.textContent('#explain-decided'), /Decided by NodeResourcesFit/);
    await page.keyboard.press('Escape');

    // Switching mid-run applies from the next tick: new pods spread again.
    await openMenu(page, 'scheduler');
    await page.selectOption('#policy', 'leastloaded');
    await deploy(page, 'api', 2, '500m');
    const api = await page.$$eval('#nodes .pod[data-pod^="api-"]', (bs) => bs.map((b) => b.closest('article').dataset.node));
    assert.deepEqual(api.sort(), ['node-2', 'node-2'], 'LeastAllocated puts both on the emptier node-2');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('the profile editor: a bad weight is refused at its field; an edited profile applies', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, 3);
    await openMenu(page, 'scheduler');
    await page.click('#btn-profile');
    await page.waitForSelector('#profile-dialog[open]');
    assert.equal(await page.inputValue('#form-profile input[name=schedulerName]'), 'default-scheduler');
    assert.equal(await page.inputValue('#form-profile input[name="weight-TaintToleration"]'), '3');
    assert.deepEqual(await axeViolations(page), [], 'the profile editor');
    await app.screenshot('profile-editor-1440', { fullPage: false });

    // Weight 0: the engine refuses it, as KubeSchedulerConfiguration validation does.
    await page.fill('#form-profile input[name="weight-TaintToleration"]', '0');
    await page.click('#form-profile button[type=submit]');
    let p = await problem(page);
    assert.equal(p.where, 'field');
    assert.equal(p.field, 'weight-TaintToleration');
    assert.ok(p.focused);
    assert.match(p.text, /score plugin TaintToleration weight 0 is out of range; expected 1 to 100/);
    assert.equal(await page.isVisible('#profile-dialog[open]'), true, 'the editor stays open');
    assert.deepEqual(await axeViolations(page), [], 'the profile editor with an inline error');
    await app.screenshot('profile-editor-error-1440', { fullPage: false });
    // Not a number at all: said before the engine is asked.
    await page.fill('#form-profile input[name="weight-TaintToleration"]', 'lots');
    await page.click('#form-profile button[type=submit]');
    p = await problem(page);
    assert.equal(p.field, 'weight-TaintToleration');
    assert.match(p.text, /"lots" is not a whole number; expected 1 to 100/);
    // RequestedToCapacityRatio without its shape.
    await page.fill('#form-profile input[name="weight-TaintToleration"]', '3');
    await page.selectOption('#form-profile select[name=strategy]', 'RequestedToCapacityRatio');
    await page.fill('#form-profile input[name=shape]', '');
    await page.click('#form-profile button[type=submit]');
    p = await problem(page);
    assert.equal(p.field, 'shape');
    assert.match(p.text, /needs a shape/);
    // Nothing changed in the run.
    assert.equal(await page.evaluate(() => window.shepherdPage.sim.tick), 0);
    assert.equal(await page.$eval('#policy', (s) => s.value), 'default-scheduler');

    // A valid edit: NodeResourcesFit alone with MostAllocated, under a name of its own.
    await page.fill('#form-profile input[name=schedulerName]', 'packer');
    await page.selectOption('#form-profile select[name=strategy]', 'MostAllocated');
    for (const s of DEFAULT_SCORES) {
      if (s !== 'NodeResourcesFit') await page.uncheck(`#form-profile input[name="score-${s}"]`);
    }
    await page.fill('#form-profile input[name="weight-NodeResourcesFit"]', '5');
    await page.selectOption('#form-profile select[name=tieBreak]', 'LowestNodeId');
    await page.fill('#form-profile input[name=percentageOfNodesToScore]', '100');
    await page.click('#form-profile button[type=submit]');
    await page.waitForFunction(() => !document.getElementById('profile-dialog').open);
    assert.match((await toast(page)).text, /Scheduler profile packer \(custom\)/);
    assert.equal(await page.$eval('#policy', (s) => s.selectedOptions[0].textContent), 'packer (custom)');
    const doc = await page.evaluate(() => window.shepherdPage.sim.profile);
    assert.deepEqual(doc.plugins.score, [{ name: 'NodeResourcesFit', weight: 5 }]);
    assert.equal(doc.scoringStrategy.type, 'MostAllocated');
    await addNode(page, 'node-1');
    await addNode(page, 'node-2');
    await deploy(page, 'web', 3, '500m');
    assert.deepEqual(await pods(page, ['node-1', 'node-2']), { 'node-1': 3, 'node-2': 0 });
    const t = await openExplain(page, `#nodes .pod[data-pod="${await podName(page, 'web-0')}"]`);
    assert.deepEqual(t.keys, ['position', 'node', 'NodeResourcesFit', 'total']);
    assert.match(await page.textContent('#explain-table thead'), /×5/);
    await page.keyboard.press('Escape');

    // Reset keeps the edited profile: it is the new run's first action.
    await resetEmpty(page, 3);
    assert.match((await toast(page)).text, /scheduler profile packer \(custom\)/);
    await step(page);
    assert.equal(await page.$eval('#policy', (s) => s.selectedOptions[0].textContent), 'packer (custom)');
    // Editing default-scheduler under its own name shows as edited.
    await openMenu(page, 'scheduler');
    await page.click('#btn-profile');
    await page.selectOption('#form-profile select[name=base]', 'default-scheduler');
    await page.click('#profile-load');
    await page.fill('#form-profile input[name="weight-NodeAffinity"]', '7');
    await page.click('#form-profile button[type=submit]');
    await page.waitForFunction(() => !document.getElementById('profile-dialog').open);
    assert.equal(await page.$eval('#policy', (s) => s.selectedOptions[0].textContent), 'default-scheduler (edited)');
    // Choosing a named profile again takes it as it is.
    await openMenu(page, 'scheduler');
    await page.selectOption('#policy', 'default-scheduler');
    assert.equal(await page.$eval('#policy', (s) => s.selectedOptions[0].textContent), 'default-scheduler');
    assert.equal((await page.evaluate(() => window.shepherdPage.sim.profile)).plugins.score[1].weight, 2);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('axe-core with the explain dialog open, and a phone at 390x844', async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const app = await openApp({ viewport });
    try {
      const { page } = app;
      await waitForEngine(page);
      await resetEmpty(page, 7);
      await smallCluster(page);
      await deploy(page, 'big', 1, '3600m', '1Gi');
      await openExplain(page, `#nodes .pod[data-pod="${await podName(page, 'web-1')}"]`);
      assert.deepEqual(await axeViolations(page), [], `the explain dialog at ${viewport.width}px`);
      if (viewport.width === 390) {
        const box = await page.$eval('#explain', (d) => { const r = d.getBoundingClientRect(); return { left: r.left, right: r.right }; });
        assert.ok(box.left >= 0 && box.right <= 390, JSON.stringify(box));
        const table = await page.$eval('#explain-table', (el) => el.getBoundingClientRect().right);
        assert.ok(table <= 390.5, `the explain table runs to ${table}px`);
      }
      await app.screenshot(`profile-explain-${viewport.width}`, { fullPage: false });
      await page.keyboard.press('Escape');
      await openExplain(page, '#pending button.pod');
      assert.deepEqual(await axeViolations(page), [], `the explain dialog of a pending pod at ${viewport.width}px`);
      await page.keyboard.press('Escape');
      await openMenu(page, 'scheduler');
    await page.click('#btn-profile');
      await page.waitForSelector('#profile-dialog[open]');
      await page.fill('#form-profile input[name="weight-NodeAffinity"]', '101');
      await page.click('#form-profile button[type=submit]');
      assert.equal((await problem(page)).field, 'weight-NodeAffinity');
      assert.deepEqual(await axeViolations(page), [], `the profile editor at ${viewport.width}px`);
      if (viewport.width === 390) {
        const right = await page.$eval('#profile-dialog', (d) => d.getBoundingClientRect().right);
        assert.ok(right <= 390.5, `the profile editor runs to ${right}px`);
        const wide = await page.evaluate(() => [...document.querySelectorAll('#form-profile input, #form-profile select')].filter((el) => el.getBoundingClientRect().right > 390.5).map((el) => el.name));
        assert.deepEqual(wide, []);
      }
      await app.screenshot(`profile-editor-${viewport.width}`, { fullPage: false });
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  }
});

test('explain at 5,000 nodes: one page of rows at a time, a filter, pages', async () => {
  const app = await openApp({ viewport: { width: 1440, height: 900 } });
  try {
    const { page } = app;
    await waitForEngine(page);
    await resetEmpty(page, 5);
    await openTab(page, 'Big cluster');
    await page.fill('#form-generate input[name=nodes]', '5000');
    await page.fill('#form-generate input[name=podsPerNode]', '2');
    await page.click('#form-generate button[type=submit]');
    await page.waitForFunction(() => !document.body.dataset.slicing && document.body.dataset.tick === '1', null, { timeout: 60_000 });
    const t0 = Date.now();
    // As a person would: find a node, open it, click one of its pods.
    await page.fill('#find-node-name', 'node-1');
    await page.click('#find-node button[type=submit]');
    await page.waitForSelector('#node-dialog[open]');
    await page.click('#node-dialog .pod >> nth=0');
    await page.waitForSelector('#explain[open]');
    console.log(`# explain at 5,000 nodes opened in ${Date.now() - t0} ms (with the node dialog)`);
    let t = await explainTable(page);
    assert.equal(t.rows.length, 50, 'one page of 50 rows');
    // The cycle that bound it scored a sample (percentageOfNodesToScore's
    // adaptive 10% at 5,000 nodes); the other nodes that pass say so.
    assert.match(await page.textContent('#explain-meta'), /pass every filter; the cycle scored 500 of them\./);
    assert.match(await page.textContent('#explain-summary'), /it scored 500 of the feasible nodes/);
    assert.match(await page.textContent('#explain-rows'), /^Rows 1–50 of 5,000$/);
    await page.click('#explain-next');
    assert.match(await page.textContent('#explain-rows'), /^Rows 51–100 of 5,000$/);
    await page.click('#explain-table button.sort[data-key="node"]');
    t = await explainTable(page);
    assert.equal(t.rows[0].node, 'node-1');
    await page.fill('#explain-find', 'node-499');
    t = await explainTable(page);
    assert.deepEqual(t.rows.map((r) => r.node), ['node-499', 'node-4990', 'node-4991', 'node-4992', 'node-4993', 'node-4994', 'node-4995', 'node-4996', 'node-4997', 'node-4998', 'node-4999']);
    assert.match(await page.textContent('#explain-rows'), /^Rows 1–11 of 11 \(of 5,000 nodes\)$/);
    assert.equal(await page.isVisible('#explain-next'), false);
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
