// A stable colour per app. An app's colour is chosen the first time the page
// sees it and never changes afterwards: its preferred slot comes from a hash of
// its name, and when another app already holds that slot it takes the next
// free one, so that the apps on screen stay apart. Apps arrive in the engine's
// (deterministic) order, so a scenario always gets the same colours.
const PALETTE = [
  '#6ea8fe', // blue
  '#f4a259', // orange
  '#8bd17c', // green
  '#e88bb4', // pink
  '#b49cf0', // violet
  '#5fd0c5', // teal
  '#f2d45c', // yellow
  '#f28b82', // red
  '#c9a27e', // tan
  '#9ad0ec', // sky
  '#d6a2e8', // lilac
  '#a9c77a', // olive
];

// FNV-1a, 32-bit: a well-spread hash of the name.
function hash(s) {
  let x = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

const byApp = new Map(); // app -> palette index
const taken = new Map(); // palette index -> how many apps hold it

export function appColor(app) {
  let i = byApp.get(app);
  if (i === undefined) {
    const want = hash(app) % PALETTE.length;
    // The least-used slot, searching from the preferred one: apart while there is room.
    const least = Math.min(...PALETTE.map((_, k) => taken.get(k) || 0));
    i = want;
    for (let k = 0; k < PALETTE.length; k++) {
      const j = (want + k) % PALETTE.length;
      if ((taken.get(j) || 0) === least) { i = j; break; }
    }
    byApp.set(app, i);
    taken.set(i, (taken.get(i) || 0) + 1);
  }
  return PALETTE[i];
}
