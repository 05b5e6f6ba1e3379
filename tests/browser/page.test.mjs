// The page loads the wasm engine, shows what the engine reports, and logs no errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, waitForEngine, ROOT } from './harness.mjs';

// The version the engine reports, read from core/Cargo.toml (the engine's version() returns it).
const coreVersion = fs
  .readFileSync(path.join(ROOT, 'core', 'Cargo.toml'), 'utf8')
  .match(/^version\s*=\s*"([^"]+)"/m)[1];

test('the page loads the wasm engine and shows its version, with a clean console', async () => {
  const app = await openApp();
  try {
    const state = await waitForEngine(app.page);
    const status = await app.page.textContent('#status');
    assert.equal(state, 'ready', `engine did not start; the page says: ${status}`);

    // Shown on the page, drawn from the engine (not from the HTML).
    const version = await app.page.textContent('#engine-version');
    assert.equal(version, coreVersion);
    assert.match(status, new RegExp(`Shepherd engine ${version.replace(/\./g, '\\.')} is running`));
    assert.equal(await app.page.evaluate(() => document.body.dataset.engineVersion), version);

    // The wasm really came over HTTP as application/wasm.
    const wasm = await app.page.evaluate(async () => {
      const r = await fetch(new URL('pkg/shepherd_web_bg.wasm', document.baseURI));
      return { type: r.headers.get('content-type'), size: (await r.arrayBuffer()).byteLength };
    });
    assert.equal(wasm.type, 'application/wasm');
    assert.ok(wasm.size > 1000, `wasm is only ${wasm.size} bytes`);
    assert.match(await app.page.textContent('#engine-module'), /WebAssembly, \d+\.\d KiB/);
    assert.match(await app.page.textContent('#engine-exports'), /engine_version/);

    // The engine ran in the page: bin-packing puts four 1-CPU pods on node-1, the fifth on node-2.
    const nodes = await app.page.$$eval('#nodes .node', (els) => els.map((e) => [e.dataset.node, Number(e.dataset.pods)]));
    assert.deepEqual(nodes, [['node-1', 4], ['node-2', 1]]);

    await app.screenshot('page-loaded');
    app.assertNoConsoleErrors();
  } finally {
    await app.close();
  }
});
