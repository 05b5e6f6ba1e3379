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

// The `s` parameter -> scenario JSON text. Throws with a reason a person can read.
export async function decodeScenario(param) {
  let bytes;
  try {
    bytes = fromBase64Url(param.slice(1));
  } catch {
    throw new Error('the link is damaged: its scenario is not base64url');
  }
  if (param[0] === 'z') {
    try {
      bytes = await pipe(bytes, new DecompressionStream('deflate-raw'));
    } catch {
      throw new Error('the link is damaged: its scenario does not decompress');
    }
  } else if (param[0] !== 'j') {
    throw new Error('the link is damaged: unknown scenario encoding');
  }
  return new TextDecoder().decode(bytes);
}

// Reads `#t=..&s=..`; returns { tick, scenario } (either may be null).
export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const t = p.get('t');
  return { tick: t !== null && /^\d+$/.test(t) ? Number(t) : null, scenario: p.get('s') };
}

export function writeHash(tick, encoded) {
  const hash = `#t=${tick}&s=${encoded}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

// The exported JSON with its tick replaced (or removed when tick is null).
export function withTick(json, tick) {
  const doc = JSON.parse(json);
  if (tick === null) delete doc.tick;
  else doc.tick = tick;
  return JSON.stringify(doc);
}
