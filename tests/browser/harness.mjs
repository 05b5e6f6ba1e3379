// Shared helpers for the browser tests (node --test tests/browser/).
//
//   const app = await openApp();          // serve the page, launch Chromium, open it
//   await app.page.waitForSelector(...);
//   app.assertNoConsoleErrors();
//   await app.screenshot('name');        // tests/artifacts/name.png
//   await app.close();
//
// The page is served from SHEPHERD_WEB_ROOT (default: dist/ when it holds a build,
// else the repository root), on a free loopback port. Chromium is Debian's
// (/usr/bin/chromium, or CHROMIUM=path), driven by playwright-core, with a fresh profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../scripts/static-server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function webRoot() {
  if (process.env.SHEPHERD_WEB_ROOT) return path.resolve(process.env.SHEPHERD_WEB_ROOT);
  const dist = path.join(ROOT, 'dist');
  return fs.existsSync(path.join(dist, 'pkg', 'shepherd_web_bg.wasm')) ? dist : ROOT;
}

export async function startServer(root = webRoot()) {
  if (!fs.existsSync(path.join(root, 'pkg', 'shepherd_web_bg.wasm'))) {
    throw new Error(`${root}/pkg has no wasm build: run scripts/test.sh or scripts/dist.sh first`);
  }
  return startStaticServer({ root, host: '127.0.0.1', port: 0 });
}

// A browser context with its own fresh user-data-dir; close() removes the profile.
export async function launchBrowser({ viewport = { width: 1280, height: 800 } } = {}) {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'shepherd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Everything the page says that a person or a developer would call a problem.
export function watchPage(page) {
  const problems = [];
  const messages = [];
  page.on('console', (msg) => {
    messages.push(`${msg.type()}: ${msg.text()}`);
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return { problems, messages };
}

// Serve the page, open it in a fresh Chromium, and return handles plus checks.
export async function openApp({ path: urlPath = '', viewport } = {}) {
  const server = await startServer();
  let browser;
  try {
    browser = await launchBrowser({ viewport });
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    const watch = watchPage(page);
    await page.goto(server.url + urlPath, { waitUntil: 'load' });
    return {
      page,
      server,
      url: server.url,
      ...watch,
      assertNoConsoleErrors() {
        assert.deepEqual(watch.problems, [], `the page reported problems:\n${watch.problems.join('\n')}`);
      },
      async screenshot(name, { fullPage = true } = {}) {
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        const file = path.join(ARTIFACTS, `${name}.png`);
        // From the top, so that the sticky bar is drawn where it belongs.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: file, fullPage });
        return file;
      },
      async close() {
        await browser.close();
        await server.close();
      },
    };
  } catch (err) {
    if (browser) await browser.close();
    await server.close();
    throw err;
  }
}

// Wait until www/app.js reports the engine as loaded (or failed).
export async function waitForEngine(page, timeout = 20_000) {
  await page.waitForFunction(() => document.body.dataset.engine !== 'loading', null, { timeout });
  return page.evaluate(() => document.body.dataset.engine);
}

// ----- driving the Shepherd page as a person would ---------------------------

// The tick the page shows.
export async function shownTick(page) {
  return Number(await page.textContent('#tick'));
}

// Clicks Step `n` times; returns the tick shown after.
export async function step(page, n = 1) {
  for (let i = 0; i < n; i++) await page.click('#btn-step');
  return shownTick(page);
}

// The address once the page has written it for the tick shown: the page
// writes `#t=..&s=..` when it is quiet, not inside the tick.
export async function settledHash(page) {
  await page.waitForFunction(() => location.hash.startsWith(`#t=${document.body.dataset.tick}&s=`));
  return page.evaluate(() => location.hash);
}

// Clicks Skip: the quiet ticks run up to the next one in which something happens.
export async function skip(page) {
  const before = await shownTick(page);
  await page.click('#btn-skip');
  await page.waitForFunction((t) => Number(document.body.dataset.tick) > t, before);
  return shownTick(page);
}

// Clicks Step until `check()` is true (at most `max` times); returns the ticks taken.
export async function stepUntil(page, check, max = 30) {
  for (let i = 0; i <= max; i++) {
    if (await check()) return i;
    if (i < max) await page.click('#btn-step');
  }
  throw new Error(`still not true after ${max} steps (tick ${await shownTick(page)})`);
}

// What a node's card shows: { status, pods, cordoned, draining, chips: [pod names] }.
export async function nodeCard(page, name) {
  return page.$eval(`#nodes article[data-node="${name}"]`, (el) => ({
    status: el.dataset.status,
    pods: Number(el.dataset.pods),
    cordoned: el.dataset.cordoned === 'true',
    draining: el.dataset.draining === 'true',
    chips: [...el.querySelectorAll('.pods .pod')].map((b) => b.dataset.pod),
    text: el.textContent,
    // The status badges' titles (kubectl drain's last line is the Draining one's).
    titles: [...el.querySelectorAll('.badge')].map((b) => b.title),
  }));
}

// A pod's own name (`<replicaset>-<5 chars>`, `<daemonset>-<5 chars>`, as
// Kubernetes names them; a bare Pod's is its own) from the short form
// `<owner>-<ordinal>` (`web-0`, `shop/web-1`) that the engine's lookups also
// take: tests name a pod by the order its owner created it, the page shows
// its name. Asked of the engine in the page, as its explain dialog does.
export async function podName(page, short) {
  return page.evaluate((s) => window.shepherdPage.sim.explain(s).pod, short);
}

export async function podNames(page, shorts) {
  const names = [];
  for (const s of shorts) names.push(await podName(page, s));
  return names;
}

// A Deployment's row in the Deployments table (#apps, www/tables.js):
// { desired, ready, updated, available, pending, version, rollout, rolloutStatus }.
export async function appRow(page, name) {
  return page.$eval(`#apps tr[data-app="${name}"]`, (tr) => {
    const cell = (col) => tr.querySelector(`[data-col="${col}"]`);
    const text = (col) => cell(col).textContent.trim();
    // The Rollout cell: its state, then kubectl's rollout status line under it.
    const line = cell('rollout').querySelector('.rollout-status');
    const status = line ? line.textContent.trim() : '';
    const all = text('rollout');
    const rollout = line ? all.slice(0, all.length - line.textContent.length).trim() : all;
    const ready = text('ready');
    return {
      desired: Number(ready.split('/')[1]), ready, updated: Number(text('updated')), available: Number(text('available')),
      pending: Number(text('pending')), version: text('template'), rollout, rolloutStatus: status,
    };
  });
}

// The event log as text lines, newest first.
export async function eventLines(page) {
  return page.$$eval('#events li.event', (els) => els.map((e) => e.textContent));
}

// The toast's text and kind ('info' or 'error') after an action.
export async function toast(page) {
  return page.$eval('#toast', (t) => ({ text: t.textContent, kind: t.dataset.kind, hidden: t.hidden }));
}

// Opens a tab of the Actions panel by its visible name.
export async function openTab(page, name) {
  await page.getByRole('tab', { name, exact: true }).click();
}

// Opens a menu of the top bar ('scheduler' or 'scenario') as a person
// would: the menu's button on a desktop, the Menu button on a phone (its
// sheet holds both). Does nothing when it is open already.
export async function openMenu(page, name) {
  const phone = await page.isVisible('#menu-btn');
  const btn = phone ? '#menu-btn' : `#menu-${name}-btn`;
  if ((await page.getAttribute(btn, 'aria-expanded')) !== 'true') await page.click(btn);
}

// Starts over with an empty cluster at tick 0 (seed from the Seed field).
export async function resetEmpty(page, seed = 7) {
  await openMenu(page, 'scenario');
  await page.fill('#seed', String(seed));
  await page.click('#btn-reset');
  await page.waitForFunction(() => document.body.dataset.tick === '0' && !document.querySelector('#nodes article'));
}

// The problem the page shows after a refused action: next to a field (the
// field is aria-invalid, described by the message, and has focus), on the
// form's own line, or in a message box next to the control that caused it
// (www/problems.js: at the top of its panel or dialog, or under the top
// bar). Null when none. `banner: true` reads the message boxes only (a form
// may still show an older error): { where: 'message', near, text, focused },
// `near` the id of the panel or dialog it is in ('top bar' under the bar).
export async function problem(page, { banner = false } = {}) {
  return page.evaluate((bannerOnly) => {
    const active = document.activeElement;
    const box = () => {
      const alert = document.getElementById('alert');
      // An open dialog's own message line (the Import dialog's refusal).
      const said = [...document.querySelectorAll('dialog[open] [role=alert]')].find((el) => !el.hidden && el.offsetParent !== null && !el.classList.contains('problem'));
      if (said) return { where: 'message', near: said.closest('dialog').id, text: said.textContent, focused: said.contains(active) };
      const boxes = [...document.querySelectorAll('.problem')].filter((b) => !b.hidden && b.offsetParent !== null);
      if (boxes.length) {
        const b = boxes[0];
        const near = b.closest('dialog, .panel');
        return { where: 'message', near: near ? near.id : null, text: b.querySelector('.problem-text').textContent, focused: b.contains(active) };
      }
      return alert.hidden ? null : { where: 'message', near: 'top bar', text: document.getElementById('alert-text').textContent, focused: alert.contains(active) };
    };
    if (bannerOnly) return box();
    const bad = [...document.querySelectorAll('[aria-invalid="true"]')].filter((el) => el.offsetParent !== null);
    if (bad.length) {
      const el = bad[0];
      const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
      const text = ids.map((id) => document.getElementById(id)?.textContent || '').join(' ').trim();
      return { where: 'field', field: el.name || el.id, form: el.form ? el.form.id : null, text, focused: active === el };
    }
    const line = [...document.querySelectorAll('.form-error')].find((p) => !p.hidden && p.offsetParent !== null);
    if (line) return { where: 'form', form: line.closest('form').id, text: line.textContent, focused: active === line };
    return box();
  }, banner);
}

// axe-core (node_modules/axe-core, pinned in package-lock.json) on the page
// as it is now, WCAG 2.x A and AA rules plus best practices. Returns the
// violations as readable lines ("rule (impact): target — summary").
export async function axeViolations(page, { include = null } = {}) {
  const loaded = await page.evaluate(() => typeof window.axe !== 'undefined');
  if (!loaded) await page.addScriptTag({ path: path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
  const result = await page.evaluate(async (include) => {
    const r = await window.axe.run(include ? { include: [include] } : document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
    }));
  }, include);
  return result.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target} — ${n.summary.replace(/\s+/g, ' ')}`));
}
