// The page's layout for a Kubernetes engineer (issue 47, items 4 and 5), at
// 1280x800 and on a 390x844 phone, with real clicks: the top bar's height
// (one row on a desktop, at most 120 px on a phone, the rest in menus), no
// text under 12 px, every dialog's buttons in view, problems shown next to
// the control that caused them with focus there, one Import for scenarios
// and manifests, zone failure and recovery under Actions, the empty-state
// hint of the tour, a table per kind that stays readable at 10,000
// Deployments, counts in the right number, and axe-core at 0 violations in
// every state these tests reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  openApp, waitForEngine, shownTick, step, stepUntil, openTab, openMenu, problem, toast, axeViolations, ARTIFACTS,
} from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SIZES = [DESKTOP, PHONE];
const tag = (vp) => `${vp.width}x${vp.height}`;

// The top bar's height, the smallest font of any visible text, the texts
// under 12 px, and how wide the page is.
async function measure(page) {
  return page.evaluate(() => {
    const small = [];
    let min = Infinity;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.textContent.trim()) continue;
      const el = t.parentElement;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      // Text a screen reader reads but no one sees (clipped to a pixel).
      if (el.closest('.visually-hidden')) continue;
      const style = getComputedStyle(el);
      const size = parseFloat(style.fontSize);
      // A font size of 0 draws no text at all (a dense node's pod squares).
      if (size === 0) continue;
      min = Math.min(min, size);
      if (size < 12) small.push(`${el.tagName.toLowerCase()}.${el.className} "${t.textContent.trim().slice(0, 30)}" ${size}px`);
    }
    return {
      header: document.querySelector('header.topbar').getBoundingClientRect().height,
      min,
      small: small.slice(0, 10),
      wide: document.documentElement.scrollWidth,
    };
  });
}

// What the window shows now (not scrolled to the top), into tests/artifacts/.
async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

// What every state must satisfy: the top bar one row on a desktop (64 px
// at most) and at most 120 px on a phone, text of 12 px or more, no
// sideways scroll of the page, and no axe-core violation.
async function checkState(page, vp, state) {
  const m = await measure(page);
  const most = vp.width <= 600 ? 120 : 64;
  assert.ok(m.header <= most, `${tag(vp)} ${state}: the top bar is ${m.header}px tall`);
  assert.deepEqual(m.small, [], `${tag(vp)} ${state}: text under 12 px`);
  assert.ok(m.min >= 12, `${tag(vp)} ${state}: smallest text ${m.min}px`);
  assert.ok(m.wide <= vp.width, `${tag(vp)} ${state}: the page is ${m.wide}px wide`);
  // axe-core's target-size counts what the sticky top bar covers where the
  // page happens to be scrolled (a click scrolls its target into view): the
  // page is judged from its top, as a person arrives at it, then put back.
  const y = await page.evaluate(() => { const at = scrollY; scrollTo(0, 0); return at; });
  assert.deepEqual(await axeViolations(page), [], `${tag(vp)} ${state}: axe-core`);
  await page.evaluate((at) => scrollTo(0, at), y);
  return m;
}

// The buttons of an open dialog: `fixed` ones (its heading's and its foot's)
// are in view without any scrolling; every other visible button can be
// scrolled to and is then fully in the window and not covered (by the
// dialog's own sticky heading or foot, or cut off by its edge).
async function dialogButtonsInView(page, dialog, fixed, vp, state) {
  const bad = await page.evaluate(({ dialog, fixed }) => {
    const out = [];
    const d = document.querySelector(dialog);
    const seen = (b) => {
      const r = b.getBoundingClientRect();
      if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit !== null && (hit === b || b.contains(hit));
    };
    const label = (b) => `${b.id ? `#${b.id}` : ''} "${b.textContent.trim().slice(0, 30)}"`;
    for (const sel of fixed) {
      const list = [...d.querySelectorAll(sel)].filter((b) => b.checkVisibility());
      if (!list.length) out.push(`${sel}: none shown`);
      for (const b of list) if (!seen(b)) out.push(`${label(b)} is not in view before any scrolling`);
    }
    for (const b of d.querySelectorAll('button')) {
      if (!b.checkVisibility()) continue;
      b.scrollIntoView({ block: 'center', inline: 'nearest' });
      if (!seen(b)) out.push(`${label(b)} cannot be brought into view`);
    }
    return out;
  }, { dialog, fixed });
  assert.deepEqual(bad, [], `${tag(vp)} ${state}`);
}

// A small cluster as kubectl get -o yaml would give it, counted in ones.
const ONE_OF_EACH = `apiVersion: v1
kind: Node
metadata:
  name: only-node
  labels:
    topology.kubernetes.io/zone: zone-x
status:
  allocatable:
    cpu: "8"
    memory: 16Gi
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: api:1
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: agent:1
        resources:
          requests:
            cpu: 50m
            memory: 32Mi
`;

// 10,000 one-replica Deployments in seven namespaces on 100 nodes, as plain manifests.
function manyDeployments(nodes, deployments) {
  const docs = [];
  for (let i = 1; i <= nodes; i++) {
    docs.push(`apiVersion: v1\nkind: Node\nmetadata:\n  name: node-${i}\n  labels:\n    topology.kubernetes.io/zone: zone-${'abc'[i % 3]}\nstatus:\n  allocatable:\n    cpu: "64"\n    memory: 256Gi\n    pods: "110"`);
  }
  for (let i = 1; i <= deployments; i++) {
    docs.push(`apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-${i}\n  namespace: team-${i % 7}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: app-${i}\n  template:\n    metadata:\n      labels:\n        app: app-${i}\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.27\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi`);
  }
  return `${docs.join('\n---\n')}\n`;
}

async function dropFile(page, name, text) {
  await page.evaluate(([name, text]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name, { type: 'text/yaml' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, [name, text]);
}

const hideToast = (page) => page.evaluate(() => { document.getElementById('toast').hidden = true; });

for (const vp of SIZES) {
  const phone = vp === PHONE;

  test(`${tag(vp)}: the top bar, the menus and the tour's first tick`, async () => {
    const app = await openApp({ viewport: vp });
    try {
      const { page } = app;
      await waitForEngine(page);
      // Tick 0 of the tour: the hint says the tour adds the nodes, not "start the tour".
      const hint = await page.textContent('#empty-hint');
      assert.match(hint, /the guided tour adds them at tick 1/);
      assert.doesNotMatch(hint, /start the/i);
      const m = await checkState(page, vp, 'tour at tick 0');
      if (phone) assert.ok(m.header <= 120, `the phone's header is ${m.header}px tall`);
      else assert.ok(m.header <= 64, `the desktop's top bar is ${m.header}px tall`);
      // Playback and the tick are in the bar, in view, without opening anything.
      for (const id of ['btn-back', 'btn-step', 'btn-play', 'btn-skip', 'tick']) {
        assert.ok(await page.isVisible(`#${id}`), `#${id} is shown`);
      }
      if (!phone) {
        // One row: playback and the tick on the left, the menus on the right.
        const box = async (sel) => page.locator(sel).boundingBox();
        const [step1, tick, sched, scen] = await Promise.all(['#btn-step', '#tick', '#menu-scheduler-btn', '#menu-scenario-btn'].map(box));
        assert.ok(tick.x < step1.x && step1.x < sched.x && sched.x < scen.x, 'tick, playback, then the menus');
        assert.ok(Math.abs(step1.y - sched.y) < 20, 'in one row');
        assert.match(await page.textContent('#menu-scheduler-btn'), /binpack/, 'the menu button names the profile');
      }
      await app.screenshot(`layout-${tag(vp)}-tick0`, { fullPage: false });

      // The menus: the file operations, the tour and the profile are in them.
      for (const menu of phone ? ['scenario'] : ['scheduler', 'scenario']) {
        await openMenu(page, menu);
        const inMenu = menu === 'scheduler' ? ['#policy', '#btn-profile', '#btn-compare-open'] : ['#btn-tour', '#btn-reset', '#btn-import', '#btn-export', '#btn-export-manifests', '#btn-link'];
        for (const sel of inMenu) {
          assert.ok(await page.isVisible(sel), `${sel} in the ${menu} menu`);
          const b = await page.locator(sel).boundingBox();
          assert.ok(b.x >= 0 && b.x + b.width <= vp.width && b.y + b.height <= vp.height, `${sel} is in the window: ${JSON.stringify(b)}`);
        }
        if (phone) assert.ok(await page.isVisible('#policy'), 'the phone menu holds the profile too');
        await checkState(page, vp, `${menu} menu open`);
        await app.screenshot(`layout-${tag(vp)}-menu-${menu}`, { fullPage: false });
        // Escape closes it and gives focus back to its button.
        await page.keyboard.press('Escape');
        assert.equal(await page.isVisible('#btn-import'), false);
        assert.equal(await page.evaluate(() => document.activeElement.id), phone ? 'menu-btn' : `menu-${menu}-btn`);
      }
      // A press outside closes a menu.
      await openMenu(page, 'scenario');
      await page.click('#tick');
      assert.equal(await page.isVisible('#btn-tour'), false);

      // A bad seed is refused next to its field, in the menu, with focus there.
      await openMenu(page, 'scenario');
      await page.fill('#seed', 'abc');
      await page.click('#btn-reset');
      const p = await problem(page);
      assert.equal(p.where, 'field', JSON.stringify(p));
      assert.equal(p.field, 'seed');
      assert.ok(p.focused);
      assert.match(p.text, /Seed "abc" is not valid/);
      assert.ok(await page.isVisible('#seed'), 'the menu stays open at the problem');
      await checkState(page, vp, 'a bad seed');
      await page.fill('#seed', '3');
      await page.click('#btn-reset');
      assert.equal(await page.isVisible('#btn-tour'), false, 'Reset closes the menu');
      assert.match(await page.textContent('#empty-hint'), /No nodes yet\. Add one under Actions → Node/);
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  });

  test(`${tag(vp)}: the tour at tick 67, each Actions tab, and every dialog`, async () => {
    const app = await openApp({ viewport: vp });
    try {
      const { page } = app;
      await waitForEngine(page);
      // The explain dialog from a Pending pod at tick 4.
      await step(page, 4);
      await page.click('#pending .pod');
      await page.waitForSelector('#explain[open]');
      await dialogButtonsInView(page, '#explain', ['.dialog-head button'], vp, 'explain');
      await checkState(page, vp, 'explain dialog');
      await app.screenshot(`layout-${tag(vp)}-explain`, { fullPage: false });
      await page.keyboard.press('Escape');

      await page.evaluate(() => window.shepherdPage.sim.run(62));
      assert.equal(await step(page, 1), 67);
      await hideToast(page);
      const m = await checkState(page, vp, 'tour at tick 67');
      if (phone) assert.ok(m.header <= 120);
      else assert.ok(m.header <= 64);
      await app.screenshot(`layout-${tag(vp)}-tick67`, { fullPage: false });

      for (const tab of ['Node', 'Deploy', 'Change Deployment', 'DaemonSet & Pod', 'Budget & Service', 'Big cluster']) {
        await openTab(page, tab);
        await checkState(page, vp, `Actions → ${tab}`);
      }

      // A node's dialog (taints and its zone).
      await page.click('#nodes article[data-node="node-1"] button:has-text("Taints and zone")');
      await page.waitForSelector('#node-dialog[open]');
      await dialogButtonsInView(page, '#node-dialog', ['.dialog-head button'], vp, 'node dialog');
      await checkState(page, vp, 'node dialog');
      await page.keyboard.press('Escape');

      // The profile editor.
      await openMenu(page, 'scheduler');
      await page.click('#btn-profile');
      await page.waitForSelector('#profile-dialog[open]');
      await dialogButtonsInView(page, '#profile-dialog', ['.dialog-head button', '#form-profile > .buttons button'], vp, 'profile editor');
      await checkState(page, vp, 'profile editor');
      await app.screenshot(`layout-${tag(vp)}-profile`, { fullPage: false });
      await page.click('#profile-cancel');

      // A confirmation.
      await openTab(page, 'Node');
      await page.fill('#form-node-ops input[name=node]', 'node-2');
      await page.click('#form-node-ops button[value=removeNode]');
      await page.waitForSelector('#confirm[open]');
      await dialogButtonsInView(page, '#confirm', ['#confirm-cancel', '#confirm-ok'], vp, 'confirmation');
      await checkState(page, vp, 'confirmation');
      await page.click('#confirm-cancel');

      // The Import dialog: empty, with a refusal, and with warnings.
      await openMenu(page, 'scenario');
      await page.click('#btn-import');
      await page.waitForSelector('#manifests-dialog[open]');
      await dialogButtonsInView(page, '#manifests-dialog', ['#manifests-import', '#manifests-close'], vp, 'import dialog');
      await checkState(page, vp, 'import dialog');
      await page.fill('#manifests-text', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: lots\n');
      await page.click('#manifests-import');
      await page.waitForSelector('#manifests-error:not([hidden])');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'manifests-error', 'focus on the refusal');
      await dialogButtonsInView(page, '#manifests-dialog', ['#manifests-import', '#manifests-close'], vp, 'import dialog with a refusal');
      await checkState(page, vp, 'import dialog with a refusal');
      await page.selectOption('#manifests-example', 'kubectl-get-list.yaml');
      await page.waitForSelector('#manifests-result:not([hidden])');
      assert.ok(await page.locator('#manifests-warnings li').count() > 1, 'the example has warnings');
      await dialogButtonsInView(page, '#manifests-dialog', ['#manifests-import', '#manifests-close'], vp, 'import dialog with warnings');
      // The warnings scroll on their own and are reachable from the keyboard.
      assert.equal(await page.getAttribute('#manifests-warnings-h + .warnings', 'tabindex'), '0');
      await checkState(page, vp, 'import dialog with warnings');
      await app.screenshot(`layout-${tag(vp)}-import-warnings`, { fullPage: false });
      await page.click('#manifests-close');
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  });
}

test('problems show next to the control that caused them, with focus there', async () => {
  for (const vp of SIZES) {
    const app = await openApp({ viewport: vp });
    try {
      const { page } = app;
      await waitForEngine(page);
      // The tour's budget web-pdb exists from tick 372. Delete it, step
      // back (the deletion is queued again), and delete it again: refused,
      // next to the budgets table, not at the top of the page.
      await page.evaluate(() => window.shepherdPage.sim.run(372));
      await step(page, 1);
      await page.click('#pdbs tr[data-pdb="web-pdb"] button');
      await page.click('#btn-back');
      await page.click('#pdbs tr[data-pdb="web-pdb"] button');
      const p = await problem(page, { banner: true });
      assert.ok(p, 'a problem is shown');
      assert.equal(p.near, 'budgets-panel', JSON.stringify(p));
      assert.ok(p.focused, 'focus moved to it');
      assert.match(p.text, /PodDisruptionBudget "web-pdb" not found/);
      assert.equal(await page.isVisible('#alert'), false, 'not in the box under the top bar');
      const box = await page.locator('#budgets-panel .problem').boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= vp.height, `in the window: ${JSON.stringify(box)}`);
      await hideToast(page);
      await checkState(page, vp, 'a refusal beside the budgets');
      await shot(page, `layout-${tag(vp)}-problem`);
      // The next action that succeeds takes it away.
      await page.click('#btn-step');
      await openTab(page, 'Node');
      await page.fill('#form-node-ops input[name=node]', 'node-3');
      await page.click('#form-node-ops button[value=cordon]');
      assert.equal(await page.isVisible('#budgets-panel .problem'), false);
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  }
});

test('zones fail and recover from Actions → Node, picked from the zones the cluster has', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 2);
    // Only what this test does happens from here (the tour stops node-1 at tick 6).
    await page.click('#btn-discard');
    await openTab(page, 'Node');
    const zones = await page.$$eval('#zone-select option', (os) => os.map((o) => o.value));
    assert.deepEqual(zones, ['zone-a', 'zone-b']);
    await page.selectOption('#zone-select', 'zone-b');
    assert.match(await page.textContent('#zone-reading'), /^3 nodes: 3 Ready, 0 NotReady; 0 kubelets stopped$/);
    // Nothing to recover yet: said next to the select.
    await page.click('#form-zone button[value=recover]');
    let p = await problem(page);
    assert.equal(p.field, 'zone', JSON.stringify(p));
    assert.match(p.text, /No node of zone zone-b has its kubelet stopped/);
    const zoneB = ['node-3', 'node-4', 'gpu-1'];
    await page.click('#form-zone button[value=fail]');
    assert.equal(await problem(page), null);
    for (const n of zoneB) assert.equal(await page.locator(`#nodes article[data-node="${n}"].silent`).count(), 1, `${n}'s kubelet stopped`);
    assert.equal(await page.locator('#nodes article.silent').count(), 3, 'zone-a keeps running');
    assert.match(await page.textContent('#zone-reading'), /3 kubelets stopped/);
    // NotReady after the 50 s grace period.
    await page.evaluate(() => window.shepherdPage.sim.run(50));
    await step(page, 1);
    await stepUntil(page, async () => (await page.locator('#nodes article.notready').count()) === 3, 5);
    await page.click('#form-zone button[value=recover]');
    assert.equal(await problem(page), null);
    assert.match((await toast(page)).text, /Zone zone-b: starting the kubelets of 3 nodes/);
    await stepUntil(page, async () => (await page.locator('#nodes article.notready, #nodes article.silent').count()) === 0, 15);
    // Each start is its own action in the script: the link and Back keep them.
    const doc = JSON.parse(await page.evaluate(() => window.shepherdPage.sim.exportScenario()));
    const starts = doc.actions.filter((a) => a.action.type === 'recoverNode' && zoneB.includes(a.action.node)).map((a) => a.action.node);
    assert.deepEqual(starts.sort(), [...zoneB].sort());
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('one Import takes a scenario or manifests, and counts in the right number', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    await step(page, 5);
    const scenario = await page.evaluate(() => window.shepherdPage.sim.exportScenario());
    // Manifests, pasted: one of each kind, counted in ones.
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.fill('#manifests-text', ONE_OF_EACH);
    await page.click('#manifests-import');
    await page.waitForFunction(() => document.body.dataset.manifests === 'imported');
    const said = (await toast(page)).text;
    assert.match(said, /^Imported the pasted manifests: 1 node, 1 Deployment, 1 DaemonSet, /);
    assert.doesNotMatch(said, /\b1 [A-Za-z]+s\b/, said);
    await page.click('#manifests-close');
    await stepUntil(page, async () => (await page.locator('#daemonsets tr[data-app="agent"]').count()) === 1, 3);
    // A table per kind: the DaemonSet is not in the Deployments table.
    assert.equal(await page.locator('#apps tr').count(), 2, 'the heading and api');
    assert.equal(await page.textContent('#apps-title .kind-count'), '(1)');
    assert.match(await page.textContent('#cluster-summary'), /^1 node \(1 Ready\)/);
    // The scenario, pasted into the same box: routed to the scenario reader.
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.fill('#manifests-text', scenario);
    await page.click('#manifests-import');
    await page.waitForFunction(() => document.body.dataset.imported === 'scenario');
    assert.match((await toast(page)).text, /^Imported the pasted scenario: tick 5, /);
    assert.equal(await shownTick(page), 5);
    assert.equal(await page.isVisible('#manifests-dialog'), false, 'a scenario closes the dialog');
    // A YAML stream is never read as a scenario ("not valid JSON").
    await openMenu(page, 'scenario');
    await page.click('#btn-import');
    await page.fill('#manifests-text', 'kind: Node\nmetadata: {name: x}\nspec: [');
    await page.click('#manifests-import');
    await page.waitForSelector('#manifests-error:not([hidden])');
    assert.doesNotMatch(await page.textContent('#manifests-error'), /not valid JSON/);
    await page.click('#manifests-close');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('10,000 Deployments: a page at a time, a name filter, and a Rollout column that wraps in words', async () => {
  const text = manyDeployments(100, 10000);
  for (const vp of SIZES) {
    const app = await openApp({ viewport: vp });
    try {
      const { page } = app;
      await waitForEngine(page);
      await dropFile(page, 'cluster.yaml', text);
      await page.waitForFunction(() => document.body.dataset.manifests === 'imported', null, { timeout: 300_000 });
      await page.click('#manifests-close');
      await hideToast(page);
      assert.equal(await page.locator('#apps tbody tr').count(), 50);
      assert.equal(await page.textContent('#apps-title .kind-count'), '(10,000)');
      const pager = page.locator('#workloads .workload[data-kind="Deployment"] .pager');
      assert.match(await pager.textContent(), /Rows 1–50 of 10,000/);
      await pager.getByRole('button', { name: 'Next ▶' }).click();
      assert.match(await pager.textContent(), /Rows 51–100 of 10,000/);
      assert.equal(await page.locator('#apps tbody tr').first().getAttribute('data-app'), 'team-2/app-51');
      // The Rollout column is wide enough to read, and its kubectl line breaks between words.
      const rollout = await page.evaluate(() => {
        const td = document.querySelector('#apps tbody tr td[data-col="rollout"]');
        const line = td.querySelector('.rollout-status');
        const s = getComputedStyle(line);
        const words = line.textContent.split(/\s+/).filter(Boolean);
        // Each word on one line: a word's range has one box.
        const range = document.createRange();
        let split = 0;
        let at = 0;
        const node = line.firstChild;
        for (const w of words) {
          const i = node.textContent.indexOf(w, at);
          range.setStart(node, i);
          range.setEnd(node, i + w.length);
          if (range.getClientRects().length > 1) split += 1;
          at = i + w.length;
        }
        return { width: td.getBoundingClientRect().width, wrap: s.overflowWrap, split, text: line.textContent };
      });
      assert.ok(rollout.width >= 200, `the Rollout column is ${rollout.width}px wide`);
      if (vp === DESKTOP) {
        // On a desktop the table fits its column: no sideways scroll.
        const fit = await page.$eval('#apps', (t) => ({ table: t.scrollWidth, wrap: t.parentElement.clientWidth }));
        assert.ok(fit.table <= fit.wrap, `the Deployments table is ${fit.table}px wide in ${fit.wrap}px`);
      }
      assert.equal(rollout.split, 0, `no word of "${rollout.text}" is split across lines`);
      await page.locator('#workloads .workload[data-kind="Deployment"] input[type=search]').fill('app-9999');
      await page.waitForFunction(() => document.querySelectorAll('#apps tbody tr').length === 1);
      assert.equal(await page.locator('#apps tbody tr').first().getAttribute('data-app'), 'team-3/app-9999');
      assert.match(await pager.textContent(), /Rows 1–1 of 1 \(of 10,000\)/);
      await page.locator('#workloads .workload[data-kind="Deployment"] input[type=search]').fill('');
      await page.locator('#workloads-panel').scrollIntoViewIfNeeded();
      await checkState(page, vp, '10,000 Deployments');
      await shot(page, `layout-${tag(vp)}-10k-deployments`);
      // Playing on: the shown page follows the engine.
      await step(page, 2);
      assert.equal(await page.locator('#apps tbody tr').count(), 50);
      app.assertNoConsoleErrors();
    } finally {
      await app.close();
    }
  }
});
