// Tiny DOM helpers. Text always goes in as text (textContent or text nodes),
// never as HTML: names typed by a person can never become markup.

// h('div', { class: 'x', dataset: { node: 'n1' }, onclick: fn, 'aria-label': 'x' }, 'text', child, ...)
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') {
      // Custom properties (--c) need setProperty; plain ones can be assigned.
      for (const [p, val] of Object.entries(v)) {
        if (p.startsWith('--')) el.style.setProperty(p, val);
        else el.style[p] = val;
      }
    }
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export const $ = (id) => document.getElementById(id);

// Replaces an element's children in one go.
export function fill(el, ...children) {
  const frag = document.createDocumentFragment();
  append(frag, children);
  el.replaceChildren(frag);
}

// Sets text only when it changed (cheap to call on every tick).
export function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

export function cpuText(m) {
  if (m === 0) return '0';
  if (m >= 1000 && m % 1000 === 0) return `${m / 1000} CPU`;
  if (m >= 1000) return `${(m / 1000).toFixed(1)} CPU`;
  return `${m}m`;
}

// Bytes as kubectl prints a quantity of that value (the engine's
// format_memory_bytes, core/src/quantity.rs): a multiple of 1024 with the
// largest binary suffix that keeps a whole number (512Mi, 1536Mi, 100Ki),
// any other value with the largest decimal one (1G, 1500k, 1536), 0 as "0".
const BINARY = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
export function memText(bytes) {
  if (!(bytes > 0)) return '0';
  const binary = bytes % 1024 === 0;
  const [base, units] = binary ? [1024, BINARY] : [1000, DECIMAL];
  let n = bytes;
  let i = 0;
  while (n % base === 0 && i + 1 < units.length) { n /= base; i += 1; }
  return `${n}${units[i]}`;
}

// A whole number with thousands separators ("150,000"). One formatter for
// the page: Number.prototype.toLocaleString builds a new one on every call,
// which a tick that writes hundreds of figures paid for.
const NUMBER = new Intl.NumberFormat('en');
export const num = (v) => NUMBER.format(v);

export function pct(used, cap) {
  return cap > 0 ? Math.min(100, (100 * used) / cap) : 0;
}
