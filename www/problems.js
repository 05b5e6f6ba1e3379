// Where the page says that something was refused or went wrong: next to the
// control that caused it, with focus moved there, never only in a fading
// toast. The toast is for success alone.
//
// - in a form: the form's own error line (forms.js showError);
// - in an open dialog: a line under the dialog's heading;
// - in a panel of the page (a card's button, a table's row, a list): a box
//   at the top of that panel;
// - from the top bar, a keyboard shortcut or the page itself (a link that
//   could not be read): the box under the top bar (#alert).
// Each box stays until dismissed or until the next action succeeds.
import { $, h, setText } from './dom.js';
import { showError } from './forms.js';

// The element a problem belongs to when the caller names none: the control
// just used (a pressed button keeps focus), else the page.
function origin(near) {
  if (near && near.isConnected) return near;
  const a = document.activeElement;
  return a && a !== document.body ? a : null;
}

function boxIn(container, before) {
  let box = [...container.children].find((c) => c.classList && c.classList.contains('problem'));
  if (!box) {
    const text = h('p', { class: 'problem-text' });
    box = h('div', { class: 'banner alert problem', role: 'alert', tabindex: '-1' },
      text,
      h('button', { type: 'button', class: 'small', 'aria-label': 'Dismiss this message', onclick: () => { box.hidden = true; } }, 'Dismiss'));
    container.insertBefore(box, before);
  }
  return box;
}

// Shows `text` next to `near` (default: the focused control); returns the
// element that shows it.
export function showProblem(text, near = null) {
  const at = origin(near);
  const form = at && at.closest('form[id]');
  // A form says it on its own line; a form in a menu closes with the menu,
  // so its problems go under the top bar (app.js opens the menu again for
  // a field's own problem).
  if (form && !form.closest('.menu-panel') && $(`${form.id}-error`)) return showError(form, text, null);
  const dialog = at && at.closest('dialog[open]');
  if (dialog) {
    const head = dialog.querySelector('.dialog-head');
    const box = boxIn(head ? head.parentElement : dialog, head ? head.nextSibling : dialog.firstChild);
    return reveal(box, text);
  }
  const panel = at && !at.closest('.topbar') && at.closest('.panel');
  if (panel) {
    const head = [...panel.children].find((c) => c.classList.contains('panel-head'));
    const box = boxIn(panel, head ? head.nextSibling : panel.firstChild);
    return reveal(box, text);
  }
  const alert = $('alert');
  setText($('alert-text'), text);
  alert.hidden = false;
  $('toast').hidden = true;
  $('alert-text').focus({ preventScroll: true });
  return alert;
}

function reveal(box, text) {
  setText(box.querySelector('.problem-text'), text);
  box.hidden = false;
  $('toast').hidden = true;
  box.focus();
  return box;
}

// Every problem box goes (an action succeeded).
export function hideProblems() {
  $('alert').hidden = true;
  for (const box of document.querySelectorAll('.problem')) box.hidden = true;
}
