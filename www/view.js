// The page's copy of what the engine reports, kept up to date by frames
// (Shepherd.frame: only what changed since the last frame crosses the wasm
// boundary; web/src/delta.rs). `snap` has the shape of Shepherd.snapshot(),
// with `nodes` (cards) only while cards are drawn; `grid` the shape of
// Shepherd.nodeGrid(). apply() says what changed, so the page redraws only that.
// Nothing here decides anything about the cluster.

// Rows that changed in a list: replaces them by position and returns their positions.
function applyRows(list, delta) {
  list.length = Math.min(list.length, delta.len);
  const at = [];
  for (const [i, row] of delta.rows) {
    list[i] = row;
    at.push(i);
  }
  return at;
}

export class PageView {
  constructor(stride) {
    this.stride = stride;
    this.clear();
  }

  // Forget everything: the next frame must be whole (frame(withNodes, true)).
  clear() {
    this.snap = null;
    this.grid = new Uint32Array(0);
  }

  // Applies one frame. Returns what changed: `full` (everything), `grid`
  // (indices of changed cells, or null when the grid changed size: redraw
  // all), and per list the positions of changed rows (`apps`, `services`,
  // `nodes`), or true for lists sent whole (`pending`, `pdbs`, `upcoming`),
  // or absent when unchanged.
  apply(f) {
    const changes = { full: f.full };
    if (f.full || !this.snap) {
      this.snap = { nodes: null, apps: [], pending: [], pdbs: [], services: [], upcoming: [] };
    }
    const s = this.snap;
    Object.assign(s, f.header);
    if (f.apps) changes.apps = applyRows(s.apps, f.apps);
    if (f.services) changes.services = applyRows(s.services, f.services);
    for (const k of ['pending', 'pdbs', 'upcoming']) {
      if (f[k]) {
        s[k] = f[k];
        changes[k] = true;
      }
    }
    if (!f.cards) {
      if (s.nodes) changes.nodes = true;
      s.nodes = null;
    } else if (f.nodes) {
      if (!s.nodes) s.nodes = [];
      changes.nodes = applyRows(s.nodes, f.nodes);
    }
    const st = this.stride;
    if (f.full || f.gridLen * st !== this.grid.length) {
      const g = new Uint32Array(f.gridLen * st);
      if (!f.full) g.set(this.grid.subarray(0, Math.min(g.length, this.grid.length)));
      this.grid = g;
      changes.grid = null;
    } else {
      changes.grid = f.gridChanged;
    }
    const vals = f.gridValues;
    f.gridChanged.forEach((i, k) => this.grid.set(vals.subarray(k * st, k * st + st), i * st));
    return changes;
  }
}
