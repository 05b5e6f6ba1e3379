// The page loads the engine, opens on the guided tour, and its controls are
// real, named, keyboard-reachable controls. A clean console throughout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, ROOT, shownTick, step, nodeCard, appRow, openMenu, podNames } from './harness.mjs';

// The version the engine reports, read from core/Cargo.toml (the facade shares the workspace version).
const coreVersion = fs
  .readFileSync(path.join(ROOT, 'core', 'Cargo.toml'), 'utf8')
  .match(/^version\s*=\s*"([^"]+)"/m)[1];

test('the page loads the engine and opens on the guided tour, with a clean console', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const state = await waitForEngine(page);
    assert.equal(state, 'ready', `engine did not start; the page says: ${await page.textContent('#status')}`);
    assert.equal(await page.evaluate(() => document.body.dataset.engineVersion), coreVersion);
    assert.match(await page.textContent('#status'), new RegExp(`Shepherd engine ${coreVersion.replace(/\./g, '\\.')} is running`));

    // The wasm came over HTTP as application/wasm.
    const wasm = await page.evaluate(async () => {
      const r = await fetch(new URL('pkg/shepherd_web_bg.wasm', document.baseURI));
      return { type: r.headers.get('content-type'), size: (await r.arrayBuffer()).byteLength };
    });
    assert.equal(wasm.type, 'application/wasm');
    assert.ok(wasm.size > 1000, `wasm is only ${wasm.size} bytes`);

    // The tour: tick 0, a caption, and the script of what comes next.
    assert.equal(await shownTick(page), 0);
    assert.match(await page.textContent('#note'), /guided tour/i);
    const upcoming = await page.$$eval('#upcoming li', (els) => els.map((e) => e.textContent));
    assert.ok(upcoming.some((u) => /t=6\s*fail node node-1/.test(u)), upcoming.join('\n'));

    // Two steps: five nodes registered, web bin-packed onto node-1.
    assert.equal(await step(page, 2), 2);
    assert.equal(await page.locator('#nodes article.node').count(), 5);
    const n1 = await nodeCard(page, 'node-1');
    assert.equal(n1.status, 'Ready');
    // Named as Kubernetes names them (<replicaset>-<5 chars>), in the order created.
    const web = await podNames(page, ['web-0', 'web-1', 'web-2', 'web-3']);
    assert.ok(web.every((w) => /^web-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(w)), web.join(' '));
    assert.deepEqual(n1.chips.filter((c) => c.startsWith('web-')).sort(), [...web].sort());
    assert.match((await nodeCard(page, 'gpu-1')).text, /dedicated=gpu:NoSchedule/);
    assert.equal((await appRow(page, 'web')).ready, '0/4', 'Ready one tick after binding');
    assert.match(await page.textContent('#services'), /0: <none>/, 'no endpoint before a pod is Ready');
    await step(page);
    assert.equal((await appRow(page, 'web')).ready, '4/4');
    assert.ok((await page.textContent('#services')).includes(`4: ${web[0]}, ${web[1]}, ${web[2]} + 1 more...`), await page.textContent('#services'));
    // The legend names both apps with their colours, and chips carry the same colour.
    const legend = await page.$$eval('#legend .legend-item', (els) => els.map((e) => e.textContent));
    assert.ok(legend.includes('web') && legend.includes('cache'), legend.join(', '));
    const colours = await page.$$eval('#nodes .pod', (els) =>
      Object.fromEntries(els.map((e) => [e.dataset.app, getComputedStyle(e).getPropertyValue('--c').trim()])));
    assert.ok(colours.web && colours.cache && colours.web !== colours.cache, JSON.stringify(colours));

    await app.screenshot('page-tour-tick3');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});

test('every control has an accessible name and the page works from the keyboard', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await waitForEngine(page);
    // Every button, input and select is named (by its text, a label, or aria-label).
    const unnamed = await page.evaluate(() => {
      const out = [];
      for (const el of document.querySelectorAll('button, input, select, canvas[tabindex]')) {
        if (el.type === 'file' && el.hidden) continue;
        const named = (el.textContent && el.textContent.trim()) || el.getAttribute('aria-label') ||
          el.getAttribute('aria-labelledby') || (el.labels && el.labels.length) || el.title;
        if (!named) out.push(el.outerHTML.slice(0, 80));
      }
      return out;
    });
    assert.deepEqual(unnamed, []);
    // Buttons found by role and name, as a screen reader would.
    for (const name of ['Step ▶', 'Play', '◀ Back', 'Skip ▶▶']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, `button ${name}`);
    }
    // The rest, in the Scenario menu once it is open.
    await openMenu(page, 'scenario');
    for (const name of ['Reset to an empty cluster', 'Guided tour', 'Export scenario (JSON)', 'Import scenario or manifests…', 'Copy link']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, `button ${name}`);
    }
    await page.keyboard.press('Escape');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'menu-scenario-btn', 'Escape gives focus back to the menu button');
    assert.equal(await page.isVisible('#btn-tour'), false);
    // Keyboard: Tab reaches Step, Enter presses it; the arrow key on the page steps too.
    await page.focus('#btn-step');
    await page.keyboard.press('Enter');
    assert.equal(await shownTick(page), 1);
    await page.focus('body');
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('ArrowRight');
    assert.equal(await shownTick(page), 2);
    // The Actions tabs follow the tab pattern: arrow keys move between them.
    await page.focus('#tab-node');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-deploy');
    assert.equal(await page.isVisible('#form-deploy'), true);
    // Play and Pause.
    await page.click('#btn-play');
    assert.equal(await page.getAttribute('#btn-play', 'aria-pressed'), 'true');
    await page.waitForFunction(() => Number(document.body.dataset.tick) >= 4, null, { timeout: 5000 });
    await page.click('#btn-play');
    assert.equal(await page.getAttribute('#btn-play', 'aria-pressed'), 'false');
    // The URL followed the clock: a link now reproduces this tick.
    await page.waitForFunction(() => location.hash.startsWith(`#t=${document.body.dataset.tick}&s=`));
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
