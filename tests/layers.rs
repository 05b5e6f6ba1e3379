//! The layering of the crates' modules: which module may import which.
//!
//! Each crate's modules sit in layers, lowest first; a module may name
//! (`use crate::...` or a `crate::...` path anywhere in its code) a module of
//! its own layer or of a lower one, never of a higher one, and the modules may
//! not import each other in a circle. The few exceptions are listed below,
//! each with its reason; the test fails on a new upward import, on a new
//! circle, and on an exception that is no longer needed (so the lists only
//! shrink).
//!
//! The source is read as text (no dependencies): comment lines and
//! `#[cfg(test)]` modules are left out (a test may use anything), a path is
//! resolved through the module files and the crate root's `use` lines (the
//! old public paths kept as re-exports), and the module it lands in is the
//! deepest file or folder the path names.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A crate's rules.
struct Rules {
    /// The crate's `src`, from this crate's manifest directory.
    src: &'static str,
    /// Module path prefixes (as files: `cluster/events`) and their layer,
    /// lowest layer first; the longest prefix decides.
    layers: &'static [(&'static str, &'static [&'static str])],
    /// Modules that form one unit for the circle check (a folder whose
    /// inside is its own business), by prefix.
    units: &'static [&'static str],
    /// Allowed imports against the layering or closing a circle:
    /// (from module, to module, why). Exact module paths.
    exceptions: &'static [(&'static str, &'static str, &'static str)],
}

const CORE: Rules = Rules {
    src: "src",
    layers: &[
        ("util", &["util"]),
        ("model", &["model"]),
        ("cluster", &["cluster"]),
        ("scheduler", &["scheduler"]),
        ("controllers", &["controllers"]),
        ("reconcile", &["reconcile"]),
        ("readers", &["views", "balance", "verify"]),
        // The autoscaler reads the cluster through the views and is run
        // by the simulator's step, beside it.
        ("simulator", &["simulator", "generate", "autoscaler"]),
        // What-if runs a simulator over a copy of a cluster and reads the rest.
        ("whatif", &["whatif"]),
    ],
    units: &["scheduler"],
    exceptions: &[
        // The Cluster struct holds each subsystem's state by type, as
        // smoltcp's Interface holds its protocols': the scheduler's (its
        // caches, cycle record, pinned messages, preemption records, the
        // path switch) and the controllers' (drains, services, rollout
        // conditions, DaemonSet and bare Pod state, the pass slice). The
        // subsystems `impl Cluster` in their own files. Splitting the
        // state by owner (`Cluster { store, books, sched, ctl, .. }`) is
        // the follow-up that removes these.
        (
            "cluster",
            "scheduler",
            "Cluster and the pod record hold the scheduler's state",
        ),
        (
            "cluster/node_info",
            "controllers/disruption",
            "a node's drain in progress",
        ),
        ("cluster", "controllers/endpoints", "the Services' books"),
        (
            "cluster",
            "controllers/deployment/rollout",
            "an owner's rollout conditions",
        ),
        (
            "cluster",
            "controllers/daemonset",
            "a DaemonSet owner's state",
        ),
        (
            "cluster",
            "controllers/bare_pod",
            "a bare Pod owner's state",
        ),
        ("cluster", "reconcile", "the state of a sliced pass"),
        (
            "cluster",
            "controllers/adopt",
            "an imported cluster's running pods, staged for adoption",
        ),
        // Until the scheduler's own `use` lines move (it is being split in
        // parallel): paths that name a module above it for a leaf helper.
        (
            "scheduler/preemption",
            "views",
            "uid_text, the pod uid as text, for preemption's messages",
        ),
    ],
};

const K8S: Rules = Rules {
    src: "../k8s/src",
    layers: &[
        // YAML and JSON text to values, and where a read stands.
        (
            "text",
            &[
                "yaml_scan",
                "value",
                "yaml_fast",
                "yaml_fast_tests",
                "json_fast",
                "read",
                "context",
            ],
        ),
        // Values to engine declarations, and kubectl's grammar over them.
        (
            "objects",
            &[
                "scenario",
                "kept",
                "scheduler_config",
                "autoscaling",
                "import",
                "kubectl",
            ],
        ),
        // kept_tests: the round trip, import and export together.
        ("out", &["export", "kept_tests"]),
    ],
    units: &["kubectl"],
    exceptions: &[],
};

const WEB: Rules = Rules {
    src: "../web/src",
    layers: &[
        // What the page draws and the checks and texts everything shares.
        (
            "leaves",
            &[
                "profile",
                "view",
                "charts",
                "check",
                "manifest_text",
                "autoscale",
            ],
        ),
        // The scenario document and the forms that make its actions.
        ("documents", &["scenario", "input"]),
        ("session", &["session"]),
        // The doors onto a session: manifests in and out, the compare run,
        // the frame deltas, kubectl, the DaemonSet and Pod forms.
        (
            "doors",
            &[
                "manifests",
                "compare",
                "delta",
                "kubectl",
                "workloads",
                "import_worker",
                "whatif",
            ],
        ),
    ],
    units: &[],
    exceptions: &[],
};

#[test]
fn core_modules_import_only_down() {
    check(&CORE);
}

#[test]
fn k8s_modules_import_only_down() {
    check(&K8S);
}

#[test]
fn web_modules_import_only_down() {
    check(&WEB);
}

fn check(rules: &Rules) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(rules.src);
    let graph = Graph::read(&src);
    let layer_of = |m: &str| -> usize {
        let mut best: Option<(usize, usize)> = None;
        for (i, (_, prefixes)) in rules.layers.iter().enumerate() {
            for p in prefixes.iter() {
                if m == *p || m.starts_with(&format!("{p}/")) {
                    if best.is_none_or(|(len, _)| p.len() > len) {
                        best = Some((p.len(), i));
                    }
                }
            }
        }
        match best {
            Some((_, i)) => i,
            None => panic!(
                "{}: module {m} is in no layer; expected it added to the layers in tests/layers.rs",
                rules.src
            ),
        }
    };
    let allowed: BTreeSet<(&str, &str)> =
        rules.exceptions.iter().map(|&(f, t, _)| (f, t)).collect();
    let mut used = BTreeSet::new();
    let mut problems = Vec::new();

    // No upward import.
    for (from, tos) in &graph.edges {
        for (to, file) in tos {
            let (lf, lt) = (layer_of(from), layer_of(to));
            if lt > lf {
                if allowed.contains(&(from.as_str(), to.as_str())) {
                    used.insert((from.clone(), to.clone()));
                } else {
                    problems.push(format!(
                        "{file}: module {from} (layer {}) imports {to} (layer {}): an upward import; expected it to import only its own layer or lower ones",
                        rules.layers[lf].0, rules.layers[lt].0
                    ));
                }
            }
        }
    }

    // No circle among the units, leaving out the listed exceptions.
    let unit = |m: &str| -> String {
        for u in rules.units {
            if m == *u || m.starts_with(&format!("{u}/")) {
                return u.to_string();
            }
        }
        m.to_string()
    };
    let mut units: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in &graph.edges {
        units.entry(unit(from)).or_default();
        for (to, _) in tos {
            if allowed.contains(&(from.as_str(), to.as_str())) {
                used.insert((from.clone(), to.clone()));
                continue;
            }
            let (a, b) = (unit(from), unit(to));
            if a != b {
                units.entry(a).or_default().insert(b);
            }
        }
    }
    for scc in strongly_connected(&units) {
        if scc.len() > 1 {
            problems.push(format!(
                "modules import each other in a circle: {}; expected the imports to go one way (a helper moved down to the lower module)",
                scc.join(" <-> ")
            ));
        }
    }

    for &(f, t, why) in rules.exceptions {
        if !used.contains(&(f.to_string(), t.to_string())) {
            problems.push(format!(
                "the exception {f} -> {t} ({why}) is no longer needed; expected it removed from tests/layers.rs"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}:\n{}",
        rules.src,
        problems.join("\n")
    );
}

/// Module -> modules it names, each with the first file that does.
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let mut files = Vec::new();
        walk(src, &mut files);
        files.sort();
        let root_uses = uses_of_root(&fs::read_to_string(src.join("lib.rs")).unwrap());
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for f in files {
            let rel = f
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let module = module_of(&rel);
            if module.is_empty() {
                continue; // the crate root: the facade, re-exporting everything
            }
            let code = code_of(&fs::read_to_string(&f).unwrap());
            let entry = edges.entry(module.clone()).or_default();
            for path in crate_paths(&code) {
                if let Some(to) = resolve(src, &path, &root_uses, 0) {
                    if !to.is_empty() && to != module && !module.starts_with(&format!("{to}/")) {
                        entry.entry(to).or_insert_with(|| rel.clone());
                    }
                }
            }
        }
        Graph { edges }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `cluster/mod.rs` -> `cluster`, `cluster/events.rs` -> `cluster/events`,
/// `lib.rs` -> ``.
fn module_of(rel: &str) -> String {
    let m = rel.trim_end_matches(".rs");
    let m = m.strip_suffix("/mod").unwrap_or(m);
    if m == "lib" {
        String::new()
    } else {
        m.to_string()
    }
}

/// The code without comment lines and without `#[cfg(test)]` modules.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines.get(i + 1).is_some_and(|n| {
                let n = n.trim_start();
                n.starts_with("mod ")
                    || n.starts_with("pub mod ")
                    || n.starts_with("pub(crate) mod ")
            })
        {
            // Skip the module: to the line that closes its brace (a module
            // in its own file, `mod tests;`, is that file, read apart).
            if lines[i + 1].trim_end().ends_with(';') {
                i += 2;
                continue;
            }
            let indent = lines[i].len() - t.len();
            i += 2;
            while i < lines.len()
                && !(lines[i].len() - lines[i].trim_start().len() == indent
                    && lines[i].trim_start().starts_with('}'))
            {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !t.starts_with("//") {
            out.push_str(lines[i]);
            out.push('\n');
        }
        i += 1;
    }
    out
}

/// Every path after `crate::`, use trees expanded (`crate::{a::B, c}` gives
/// `a::B` and `c`).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(i) = code[at..].find("crate::") {
        let start = at + i;
        at = start + "crate::".len();
        // `$crate::` and `some_crate::` are not this crate.
        if start > 0
            && (bytes[start - 1] == b'$'
                || bytes[start - 1] == b'_'
                || bytes[start - 1].is_ascii_alphanumeric())
        {
            continue;
        }
        let mut toks = Tokens {
            s: &code[at..],
            pos: 0,
        };
        tree(&mut toks, &mut Vec::new(), &mut out);
    }
    out
}

struct Tokens<'a> {
    s: &'a str,
    pos: usize,
}

impl Tokens<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s.as_bytes()[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.skip_ws();
        if self.s[self.pos..].starts_with(t) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        let b = self.s.as_bytes();
        let start = self.pos;
        while self.pos < b.len() && (b[self.pos] == b'_' || b[self.pos].is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.s[start..self.pos].to_string())
    }
}

/// A use tree after `prefix::`: `a::b`, `a::{b, c::d}`, `*`, `a as b`.
fn tree(t: &mut Tokens, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if t.eat("{") {
        loop {
            if t.eat("}") {
                break;
            }
            let n = prefix.len();
            tree(t, prefix, out);
            prefix.truncate(n);
            if !t.eat(",") {
                t.eat("}");
                break;
            }
        }
        return;
    }
    if t.eat("*") {
        out.push(prefix.clone());
        return;
    }
    match t.ident() {
        Some(id) => {
            if id != "self" {
                prefix.push(id);
            }
            if t.eat("::") {
                tree(t, prefix, out);
            } else {
                out.push(prefix.clone());
            }
        }
        None => out.push(prefix.clone()),
    }
}

/// The crate root's `use` lines: each name it brings in (or renames) and the
/// path it stands for.
fn uses_of_root(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    let code = code_of(lib);
    for stmt in code.split(';') {
        let s = stmt.trim();
        let body = ["pub use ", "pub(crate) use ", "use "]
            .iter()
            .find_map(|p| s.strip_prefix(p));
        let Some(body) = body else { continue };
        let body = body
            .trim_start_matches("self::")
            .trim_start_matches("crate::");
        // Expand with renames: `a::b as c` and groups.
        let mut toks = Tokens { s: body, pos: 0 };
        let mut renamed = Vec::new();
        tree_renames(&mut toks, &mut Vec::new(), &mut renamed);
        for (path, name) in renamed {
            map.insert(name, path);
        }
    }
    map
}

fn tree_renames(t: &mut Tokens, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    if t.eat("{") {
        loop {
            if t.eat("}") {
                break;
            }
            let n = prefix.len();
            tree_renames(t, prefix, out);
            prefix.truncate(n);
            if !t.eat(",") {
                t.eat("}");
                break;
            }
        }
        return;
    }
    if let Some(id) = t.ident() {
        prefix.push(id.clone());
        if t.eat("::") {
            tree_renames(t, prefix, out);
        } else if t.eat("as ") {
            let name = t.ident().unwrap_or(id);
            out.push((prefix.clone(), name));
        } else {
            out.push((prefix.clone(), id));
        }
    }
}

/// The module a path from the crate root lands in: the deepest module file
/// it names, through the root's re-exports.
fn resolve(
    src: &Path,
    path: &[String],
    root: &BTreeMap<String, Vec<String>>,
    depth: u32,
) -> Option<String> {
    let first = path.first()?;
    let is_module =
        |m: &str| src.join(format!("{m}.rs")).exists() || src.join(m).join("mod.rs").exists();
    let mut module = if is_module(first) {
        first.clone()
    } else if let Some(target) = root.get(first) {
        if depth > 8 {
            return None;
        }
        let mut full = target.clone();
        full.extend(path[1..].iter().cloned());
        return resolve(src, &full, root, depth + 1);
    } else {
        return Some(String::new()); // an item of the root (`crate::fuzz_ops`)
    };
    for seg in &path[1..] {
        let deeper = format!("{module}/{seg}");
        if is_module(&deeper) {
            module = deeper;
        } else {
            break;
        }
    }
    Some(module)
}

/// Tarjan's strongly connected components, in a fixed order.
fn strongly_connected(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct St<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.g.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let l = s.low[w].min(s.low[v]);
                    s.low.insert(v, l);
                } else if s.on.contains(w) {
                    let l = s.index[w].min(s.low[v]);
                    s.low.insert(v, l);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut c = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                c.push(w.to_string());
                if w == v {
                    break;
                }
            }
            c.sort();
            s.out.push(c);
        }
    }
    let mut s = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v.as_str());
        }
    }
    s.out
}
