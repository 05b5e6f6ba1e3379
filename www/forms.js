// Forms: an error goes next to the field it is about (aria-invalid,
// aria-describedby, focus), and a quantity field says what it was read as
// while the person types. The engine reads and checks everything; this file
// only decides where its words are shown.
import { h, $ } from './dom.js';

// Which field an engine message is about, from the words it starts with.
const FIELD_WORDS = [
  [/^cpu\b/i, 'cpu'],
  [/^memory\b/i, 'memory'],
  [/^taint/i, 'taints'],
  [/^(node )?label/i, 'labels'],
  [/^nodeSelector/i, 'nodeSelector'],
  [/^toleration|^taint effect/i, 'toleration'],
  [/^anti-affinity/i, 'antiAffinity'],
  [/^maxSurge/i, 'maxSurge'],
  [/^maxUnavailable/i, 'maxUnavailable'],
  [/^(app \S+: )?progressDeadlineSeconds/, 'progressDeadlineSeconds'],
  [/^(app \S+: )?minReadySeconds/, 'minReadySeconds'],
  [/^minAvailable/i, 'value'],
  [/^replicas/i, 'replicas'],
  [/^namespace\b/i, 'namespace'],
  [/^selector/i, 'selector'],
  [/^nodes\b(?! ")/i, 'nodes'],
  [/^pods per node/i, 'podsPerNode'],
  [/^pod\b/i, 'pod'],
  [/^roll\b.*version/i, 'version'],
];

function fieldNamed(form, name) {
  const el = form.elements.namedItem(name);
  return el && el.tagName ? el : null;
}

// The field a message is about: by its first words, else the name field when
// the message is about a name (or a duplicate), else none (the form's own line).
export function fieldFor(form, msg) {
  for (const [re, name] of FIELD_WORDS) {
    if (re.test(msg)) {
      const el = fieldNamed(form, name);
      if (el) return el;
    }
  }
  // "add node node-1: nodes "node-1" already exists", "app "x": name ..."
  if (/already exists|\bname\b/i.test(msg)) {
    const el = fieldNamed(form, 'name');
    if (el) return el;
  }
  if (/maxUnavailable|minAvailable/.test(msg)) return fieldNamed(form, 'value');
  return null;
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll('[aria-invalid="true"]')) {
    el.removeAttribute('aria-invalid');
    const keep = el.dataset.describedBy;
    if (keep) el.setAttribute('aria-describedby', keep);
    else el.removeAttribute('aria-describedby');
    delete el.dataset.describedBy;
  }
  for (const p of form.querySelectorAll('.field-error')) p.remove();
  const line = $(`${form.id}-error`);
  if (line && !line.hidden) {
    line.hidden = true;
    line.textContent = '';
  }
}

// Shows `msg` next to `field` (or the field the message names), marks it
// invalid and moves focus to it. Without a field, the form's error line says
// it and takes focus.
export function showError(form, msg, field = fieldFor(form, msg)) {
  clearErrors(form);
  if (field) {
    const id = `${form.id}-${field.name}-error`;
    const p = h('p', { class: 'field-error', id }, msg);
    (field.closest('label') || field).after(p);
    field.setAttribute('aria-invalid', 'true');
    const before = field.getAttribute('aria-describedby');
    if (before) field.dataset.describedBy = before;
    field.setAttribute('aria-describedby', before ? `${id} ${before}` : id);
    // The message is now next to the field: the reading line need not repeat it.
    const reading = form.querySelector('.reading.bad');
    if (reading && reading.textContent === msg) reading.textContent = '';
    field.focus();
    return field;
  }
  const line = $(`${form.id}-error`);
  line.textContent = msg;
  line.hidden = false;
  line.tabIndex = -1;
  line.focus();
  return line;
}

// The quantity fields of a form, read as Kubernetes reads them:
// "= 4 CPU, 8 GiB", or the first field's problem. `read(resource, text)` is
// the engine's readQuantity. Returns the first bad field, if any.
export function updateReading(form, read) {
  const out = form.querySelector('.reading');
  const parts = [];
  let bad = null;
  let badField = null;
  for (const el of form.querySelectorAll('[data-quantity]')) {
    const text = el.value.trim();
    if (text === '') continue;
    try {
      parts.push(read(el.dataset.quantity, text).said);
    } catch (err) {
      if (!bad) {
        bad = err && err.message ? err.message : String(err);
        badField = el;
      }
    }
  }
  if (out) {
    out.textContent = bad || (parts.length ? `= ${parts.join(', ')}` : '');
    out.classList.toggle('bad', !!bad);
  }
  return badField ? { field: badField, message: bad } : null;
}
