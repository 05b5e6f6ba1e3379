// The kubectl prompt: a line typed as one would type it to kubectl, answered
// by the engine (Shepherd.kubectl, shepherd_k8s::kubectl) in kubectl's
// columns and errors. A read prints a page of rows (Next page for the rest);
// a change queues the script's actions, as a form does, through the page's
// act() (the page steps once so it fires, Back and the link keep it). Up and
// Down recall earlier lines; Tab completes verbs, resource types, flags and
// names (Shepherd.kubectlComplete), and moves focus on when there is nothing
// to complete, so the keyboard is never trapped.
import { $, h, setText } from './dom.js';

// Rows of a list printed at a time: a first screen, fast at any size.
export const PAGE_ROWS = 50;
// The output keeps about this many characters, oldest dropped first.
const KEEP_CHARS = 200_000;

export function wireKubectl({ sim, act }) {
  const form = $('kubectl-form');
  const input = $('kubectl-input');
  const out = $('kubectl-output');
  const more = $('kubectl-more');
  const pageNote = $('kubectl-page');
  const hint = $('kubectl-hint');
  const stdin = $('kubectl-stdin');
  const history = [];
  let recall = -1; // index into history while recalling; -1: a new line
  let draft = '';
  let next = null; // {line, offset} of the next page

  function print(text, cls = null) {
    if (!text) return;
    const body = text.endsWith('\n') ? text : `${text}\n`;
    out.appendChild(cls ? h('span', { class: cls }, body) : document.createTextNode(body));
    while (out.textContent.length > KEEP_CHARS && out.firstChild) out.removeChild(out.firstChild);
    out.scrollTop = out.scrollHeight;
  }

  function showPage(line, r) {
    const end = r.offset + r.rows;
    if (r.total > end) {
      next = { line, offset: end };
      more.hidden = false;
      setText(pageNote, `rows ${r.offset + 1}\u2013${end} of ${r.total}`);
    } else {
      next = null;
      more.hidden = true;
      setText(pageNote, r.offset > 0 ? `rows ${r.offset + 1}\u2013${end} of ${r.total}` : '');
    }
  }

  function run(line, offset = 0) {
    const text = line.trim();
    if (!text) return;
    if (offset === 0) print(`$ kubectl ${text.replace(/^kubectl\s+/, '')}`, 'k-cmd');
    let r;
    try {
      r = sim().kubectl(text, stdin.value || null, offset, PAGE_ROWS);
    } catch (err) {
      const said = err && err.message ? err.message : String(err);
      print(said, 'k-err');
      setText(hint, said);
      showPage(text, { offset: 0, rows: 0, total: 0 });
      return;
    }
    print(r.text);
    if (r.error) print(r.error, 'k-err');
    // What a screen reader hears: one line, not the table (the output is
    // there to read with the arrow keys).
    const first = (r.error || r.text || '').split('\n').find((l) => l.trim()) || '';
    const lines = r.text.split('\n').filter((l) => l.trim()).length;
    setText(hint, r.changed || r.error || lines <= 1 ? first
      : r.total > r.rows ? `rows ${r.offset + 1}\u2013${r.offset + r.rows} of ${r.total} printed`
        : `${lines} lines printed`);
    if (r.changed) {
      showPage(text, { offset: 0, rows: 0, total: 0 });
      print(r.queued.join('\n'), 'k-note');
      // The page's bookkeeping for an action (step, draw, Back's copies).
      act(() => `kubectl ${text}: ${r.queued.join('; ')}`);
    } else {
      showPage(text, r);
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const line = input.value;
    if (!line.trim()) return;
    if (history[history.length - 1] !== line) history.push(line);
    recall = -1;
    draft = '';
    input.value = '';
    run(line);
  });

  more.addEventListener('click', () => {
    if (next) run(next.line, next.offset);
  });

  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowUp') {
      if (!history.length) return;
      e.preventDefault();
      if (recall === -1) {
        draft = input.value;
        recall = history.length - 1;
      } else if (recall > 0) {
        recall -= 1;
      }
      input.value = history[recall];
    } else if (e.key === 'ArrowDown') {
      if (recall === -1) return;
      e.preventDefault();
      recall += 1;
      if (recall >= history.length) {
        recall = -1;
        input.value = draft;
      } else {
        input.value = history[recall];
      }
    } else if (e.key === 'Tab' && !e.shiftKey && input.value.trim()) {
      const done = complete();
      if (done) e.preventDefault();
    }
  });

  // Completes the last word: the one candidate, or what all candidates
  // share (and lists them). Returns whether it did anything.
  function complete() {
    const line = input.value;
    let options;
    try {
      options = sim().kubectlComplete(line);
    } catch (err) {
      return false;
    }
    if (!options.length) return false;
    const open = /\s$/.test(line);
    const head = open ? line : line.replace(/\S+$/, '');
    const typed = open ? '' : line.slice(head.length);
    if (options.length === 1) {
      input.value = `${head}${options[0]} `;
      setText(hint, '');
      return true;
    }
    let common = options[0];
    for (const o of options) {
      let i = 0;
      while (i < common.length && i < o.length && common[i] === o[i]) i += 1;
      common = common.slice(0, i);
    }
    const shown = options.slice(0, 20).join('  ') + (options.length > 20 ? `  \u2026 ${options.length - 20} more` : '');
    setText(hint, shown);
    if (common.length > typed.length) {
      input.value = `${head}${common}`;
    }
    return true;
  }
}
