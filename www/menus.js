// The toolbar's menus. On a desktop two buttons (Scheduler, Scenario) each
// show a panel of controls under them; on a phone one Menu button shows a
// sheet with the speed and both panels. Each button is a disclosure
// (aria-expanded, aria-controls): the panels hold a select and a form, which
// an ARIA menu could not. What is shown follows aria-expanded (style.css).
//
// A panel closes when one of its buttons is pressed (before the button's own
// handler runs, so that a dialog it opens gives focus back to the menu
// button), when a select in it changes, on Escape (focus back to its
// button), on a press outside it, and when focus moves out of it.
import { $ } from './dom.js';

const PHONE = window.matchMedia('(max-width: 600px)');

const BUTTONS = ['menu-scheduler-btn', 'menu-scenario-btn', 'menu-btn'];

function buttonOf(el) {
  if (PHONE.matches) return $('menu-btn');
  const menu = el.closest('.menu');
  return menu ? menu.querySelector('.menu-btn') : $('menu-btn');
}

function setOpen(btn, open) {
  if (btn.getAttribute('aria-expanded') !== String(open)) btn.setAttribute('aria-expanded', String(open));
}

// Closes every menu; `focusFrom` (an element in a panel) gives focus to the
// button that showed it.
export function closeMenus(focusFrom = null) {
  const back = focusFrom ? buttonOf(focusFrom) : null;
  for (const id of BUTTONS) setOpen($(id), false);
  if (back) back.focus();
}

// Shows the menu that holds `el` (a control in a panel), as its button would.
export function openMenuOf(el) {
  closeMenus();
  // On a phone the Menu's sheet shows every panel.
  setOpen(buttonOf(el), true);
}

export function wireMenus() {
  for (const id of BUTTONS) {
    const btn = $(id);
    btn.addEventListener('click', () => {
      const open = btn.getAttribute('aria-expanded') !== 'true';
      closeMenus();
      setOpen(btn, open);
      if (open) {
        // To the panel's first control, as a menu does.
        const panel = $(btn.getAttribute('aria-controls'));
        const first = panel.querySelector('select, button:not(.menu-btn), input');
        if (first && id !== 'menu-btn') first.focus();
      }
    });
  }
  for (const panel of document.querySelectorAll('.menu-panel, #menus-sheet')) {
    // Capture: closed (and focus on the menu button) before the button's handler runs.
    panel.addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b || b.classList.contains('menu-btn') || b.type === 'submit') return;
      closeMenus(b);
    }, true);
  }
  // A select's choice is made: the menu's work is done. (The speed select
  // sits in the toolbar on a desktop, in the phone's sheet otherwise.)
  for (const sel of document.querySelectorAll('#menus-sheet select')) {
    sel.addEventListener('change', () => {
      if (sel.closest('.menu-panel') || PHONE.matches) closeMenus(sel);
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    const open = BUTTONS.map($).find((b) => b.getAttribute('aria-expanded') === 'true');
    if (!open) return;
    const panel = $(open.getAttribute('aria-controls'));
    if (panel.contains(document.activeElement) || open === document.activeElement) {
      e.preventDefault();
      closeMenus();
      open.focus();
    }
  });
  document.addEventListener('pointerdown', (e) => {
    const open = BUTTONS.map($).find((b) => b.getAttribute('aria-expanded') === 'true');
    if (!open) return;
    const panel = $(open.getAttribute('aria-controls'));
    if (!panel.contains(e.target) && !open.contains(e.target)) closeMenus();
  });
  // Tabbing out of a menu closes it (focus going nowhere, as when the
  // window loses it, does not).
  for (const el of document.querySelectorAll('.menu, .menus')) {
    el.addEventListener('focusout', (e) => {
      const to = e.relatedTarget;
      if (!to || el.contains(to)) return;
      if (el.classList.contains('menus') ? PHONE.matches : !PHONE.matches) {
        const btn = el.classList.contains('menus') ? $('menu-btn') : el.querySelector('.menu-btn');
        setOpen(btn, false);
      }
    });
  }
  // From phone to desktop or back: nothing stays open across.
  PHONE.addEventListener('change', () => closeMenus());
}
