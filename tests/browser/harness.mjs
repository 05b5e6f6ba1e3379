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
      async screenshot(name) {
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        const file = path.join(ARTIFACTS, `${name}.png`);
        await page.screenshot({ path: file, fullPage: true });
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
