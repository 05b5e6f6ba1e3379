// The scenario in the URL: `#t=<tick>&s=<scenario>`, where the scenario is the
// exported JSON (without its tick), deflated and written in base64url ("z"
// prefix), or plain base64url JSON ("j" prefix) where the browser has no
// CompressionStream. A link therefore reproduces the page exactly: the same
// seed, policy and actions, replayed to the same tick.

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const s = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(s).arrayBuffer());
}

// Scenario JSON text -> the `s` parameter.
export async function encodeScenario(json) {
  const bytes = new TextEncoder().encode(json);
  if (typeof CompressionStream === 'function') {
    return 'z' + toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')));
  }
  return 'j' + toBase64Url(bytes);
}

// The same, at once and uncompressed ("j"): for when the page is being left
// and cannot wait for the compression stream.
export function encodeScenarioNow(json) {
  return 'j' + toBase64Url(new TextEncoder().encode(json));
}

// More than `maxBytes` of scenario: the engine's refusal, said before the
// text is built (a deflated link of a few hundred kilobytes inflates to
// gigabytes: the tab would run out of memory before the engine could refuse).
function tooLarge(maxBytes) {
  return new Error(`the scenario is more than the limit of ${maxBytes} bytes (MAX_DOCUMENT_BYTES) once decompressed; expected a smaller document`);
}

// `bytes` inflated, reading no more than `maxBytes` of output.
async function inflateAtMost(bytes, maxBytes) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let length = 0;
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      throw new Error('the link is damaged: its scenario does not decompress');
    }
    if (chunk.done) break;
    length += chunk.value.length;
    if (length > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    parts.push(chunk.value);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// The `s` parameter -> scenario JSON text, of at most `maxBytes` bytes (the
// engine's MAX_DOCUMENT_BYTES). Throws with a reason a person can read.
export async function decodeScenario(param, maxBytes) {
  let bytes;
  try {
    bytes = fromBase64Url(param.slice(1));
  } catch {
    throw new Error('the link is damaged: its scenario is not base64url');
  }
  if (param[0] === 'z') {
    bytes = await inflateAtMost(bytes, maxBytes);
  } else if (param[0] !== 'j') {
    throw new Error('the link is damaged: unknown scenario encoding');
  }
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return new TextDecoder().decode(bytes);
}

// Reads `#t=..&s=..`; returns { tick, scenario } (either may be null).
export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const t = p.get('t');
  return { tick: t !== null && /^\d+$/.test(t) ? Number(t) : null, scenario: p.get('s') };
}

export function linkHash(tick, encoded) {
  return `#t=${tick}&s=${encoded}`;
}

export function writeHash(tick, encoded) {
  const hash = linkHash(tick, encoded);
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

// The hash is written when the page is quiet (app.js, scheduleLink), so a
// reload right after a tick would find the address one or more ticks
// behind; a hash written while the page is being left does not reach the
// reload (the browser has already taken the address). So on leaving, the
// page notes the up-to-date hash for the address it leaves (pagehide), and
// a reload of that same address takes it back (takeReloadHash).
const RELOAD_NOTE = 'shepherd.reload-hash';

export function noteHashForReload(hash) {
  try {
    if (location.hash === hash) sessionStorage.removeItem(RELOAD_NOTE);
    else sessionStorage.setItem(RELOAD_NOTE, JSON.stringify({ from: location.href, hash }));
  } catch {
    // Storage refused (private mode, quota): the reload shows the address's tick.
  }
}

// On start: when this load is a reload of the address a page left with a
// newer hash noted, that hash replaces the address's. Any other load (a
// link, a new tab, a typed address) is taken as it is.
export function takeReloadHash() {
  let note = null;
  try {
    note = JSON.parse(sessionStorage.getItem(RELOAD_NOTE));
    sessionStorage.removeItem(RELOAD_NOTE);
  } catch {
    return;
  }
  const nav = performance.getEntriesByType('navigation')[0];
  if (note && typeof note.hash === 'string' && note.from === location.href && nav && nav.type === 'reload') {
    history.replaceState(null, '', note.hash);
  }
}

// The exported JSON with its tick replaced (or removed when tick is null).
export function withTick(json, tick) {
  const doc = JSON.parse(json);
  if (tick === null) delete doc.tick;
  else doc.tick = tick;
  return JSON.stringify(doc);
}
