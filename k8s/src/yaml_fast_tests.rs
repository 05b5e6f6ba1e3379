//! The fast reader against the full parser: the same documents, the same
//! errors, on the corpus, on hand-picked edge cases, on generated documents in
//! every block style the fast reader knows (and some it must give up on), and
//! on mutations of all of these. Sizes come from SHEPHERD_FUZZ_OPS; a failing
//! seed prints itself.

use std::panic::{catch_unwind, AssertUnwindSafe};

use shepherd::simulator::Prng;

use crate::read::{documents, documents_full, looks_like_json};
use crate::value::Value;
use crate::yaml_scan::scan;
use crate::Limits;

fn fuzz_ops(default: u64) -> u64 {
    std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Both readers on `text`; panics (with the text) if they differ.
/// Returns whether the fast reader read the stream without the full parser.
fn same(text: &str) -> bool {
    let limits = Limits::default();
    if looks_like_json(text) {
        // Read as JSON, not YAML: neither YAML reader is asked.
        return false;
    }
    let full = format!("{:?}", documents_full(text, &limits));
    let fast = format!("{:?}", documents(text, &limits, &mut |_| {}));
    assert_eq!(fast, full, "the readers differ on:\n{text}");
    let budget = crate::value::Budget::new(limits.max_bytes);
    super::documents(text, usize::MAX, &budget, &mut |_| {}).is_some_and(|r| r.is_ok())
}

fn sweep(test: &str, default: u64, f: impl Fn(u64)) {
    let seeds: Vec<u64> = match std::env::var("SHEPHERD_YAML_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(s) => vec![s],
        None => (0..fuzz_ops(default)).collect(),
    };
    for seed in seeds {
        if catch_unwind(AssertUnwindSafe(|| f(seed))).is_err() {
            panic!("seed {seed} failed; reproduce with SHEPHERD_YAML_SEED={seed} cargo test -p shepherd-k8s --lib {test}");
        }
    }
}

fn corpus() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/manifests");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("the corpus folder") {
        let p = e.expect("an entry").path();
        if p.extension().is_some_and(|x| x == "yaml") {
            let text = std::fs::read_to_string(&p).expect("a corpus file");
            out.push((p.display().to_string(), text));
        }
    }
    out.sort();
    assert!(out.len() >= 5, "the corpus is there");
    out
}

#[test]
fn corpus_reads_the_same_and_fast() {
    for (name, text) in corpus() {
        assert!(same(&text), "{name}: the fast reader gave up");
    }
}

#[test]
fn edge_cases_read_the_same() {
    let cases = [
        "",
        "\n",
        "# only a comment\n",
        "---\n",
        "---\n---\n",
        "a: 1\n---\n",
        "# c\n---\na: 1\n",
        "a: 1\n...\n",
        "%YAML 1.2\n---\na: 1\n",
        "--- # c\na: 1\n",
        "--- a\n",
        "--- {a: 1}\n",
        "a: 1\n---\n\n---\nb: 2\n",
        "a:\n- 1\n- 2\nb: 3\n",
        "a:\n  - 1\n  -  2\n",
        "a:\n- b: 1\n  c: 2\n-   d: 3\n    e: 4\n",
        "- a\n- - b\n",
        "-\n- a\n",
        "a: b\n  c\n",
        "a: b\nc\n",
        "a: 1\n- b\n",
        "a: 1\na: 2\n",
        "true: 1\nTrue: 2\n",
        "0x10: a\n16: b\n",
        "007: a\n7: b\n",
        "1.5: a\n",
        "null: a\n",
        "~: a\n",
        "? a\n: b\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: [1, 2]\n",
        "a: {b: 1}\n",
        "a: {}\nb: []\nc: { }\n",
        "a: \"x\\ty\\u00e9\\x41\\\"\\\\\" # c\n",
        "a: \"x\\qy\"\n",
        "a: \"open\n  continued\"\n",
        "a: 'it''s' \n",
        "a: 'x'y\n",
        "a: \"x\"y\n",
        "a: \"x\"#c\n",
        "a: |\n  line 1\n\n  line 3\n\nb: 1\n",
        "a: |-\n  x\n   y\n",
        "a: |+\n  x\n\n",
        "a: >\n  folded\n  text\n",
        "a: |2\n   x\n",
        "a: |\n\n  x\n",
        "a: |\n      \n  x\n",
        "a: |\n  x\n      \n  y\n",
        "a: |\nb: 1\n",
        "a: |\n  # not a comment\n",
        "- |\n  x\n- y\n",
        "a:\n- |\n  x\n",
        "a: b # c\nd: e#f\n",
        "a: b: c\n",
        "a: b:\n",
        "a:b\n",
        "a: -\n",
        "a: - b\n",
        "a: -1\nb: +1\nc: -0x1f\nd: 0o17\ne: 0b101\nf: 1_000\ng: 0x\n",
        "a: .inf\nb: -.Inf\nc: .NaN\nd: +.5\ne: 1e3\nf: 1e400\ng: ++1\nh: +-1\n",
        "a: 18446744073709551615\nb: 18446744073709551616\nc: -9223372036854775808\nd: -9223372036854775809\n",
        "a: 00\nb: -007\nc: 0\nd: -0\ne: 0.0\nf: -0.0\n",
        "a: yes\nb: no\nc: on\nd: Off\ne: y\n",
        "a: null\nb: Null\nc: NULL\nd: ~\ne:\nf: nULL\n",
        "a:\tb\n",
        "a: b\r\n",
        "\u{feff}a: b\n",
        "a: b\u{85}c\n",
        "a: é ü — 雪\n",
        "  a: 1\n  b: 2\n",
        "  a: 1\n b: 2\n",
        "a:\n  b:\n    c: 1\n  d: 2\n",
        "a:\n    b: 1\n   c: 2\n",
        "plain scalar\n",
        "- 1\n- 2\n",
        "- a: 1\n  - b\n",
        "k:{\"name\":\"main\"}:\n  .: {}\n",
        "\"quoted key\": 1\n'single key': 2\n\"a\": 3\n",
        "\"k\"  : v\n",
        "\"k\":v\n",
        "@a: b\n",
        "a: `b`\n",
        "a: %b\n",
        "----\n",
        "---a: 1\n",
        "a: |\n  x\n---\nb: |-\n  y\n",
    ];
    let mut fast = 0;
    for c in cases {
        if same(c) {
            fast += 1;
        }
    }
    assert!(fast >= 30, "the fast reader read only {fast} of the cases");
    // Deep nesting: within the full parser's limit and beyond it.
    for depth in [50, 99, 101, 127, 128, 129, 300] {
        let deep: String = (0..depth)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        same(&deep);
        let seq: String = (0..depth)
            .map(|i| format!("{}- \n", " ".repeat(2 * i)))
            .collect();
        same(&seq);
    }
    // A key of 1,000 bytes and one beyond libyaml's simple-key length.
    for n in [999, 1000, 1024, 1030] {
        same(&format!("{}: 1\n", "k".repeat(n)));
    }
}

const KEYS: &[&str] = &[
    "name",
    "app",
    "f:spec",
    "k:{\"name\":\"main\"}",
    ".",
    "true",
    "True",
    "0x1F",
    "007",
    "12",
    "-a",
    "a b",
    "null",
    "~",
    "1.5",
    "kubernetes.io/hostname",
    "x#y",
    "é",
    "+3",
    "a #b",
    "a: b",
    "-",
    "'",
    "\"",
    "[x]",
    "?q",
    "",
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "yes",
    "no",
    "on",
    "1",
    "-1",
    "+1",
    "0",
    "00",
    "007",
    "0x1f",
    "0o17",
    "0b11",
    "-0x1f",
    "1.5",
    "-.5",
    ".inf",
    "-.Inf",
    ".nan",
    "1e3",
    "1_000",
    "12:30",
    "null",
    "Null",
    "~",
    "true",
    "FALSE",
    "a: b",
    "a #b",
    "a#b",
    "#x",
    "- x",
    "-x",
    "[a]",
    "{a: 1}",
    "a, b",
    "'q'",
    "\"dq\"",
    "back\\slash",
    "é ü",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999999",
    "1e400",
    " lead",
    "trail ",
    "multi\nline",
    "two\n\nbreaks\n",
    "tab\there",
    "@x",
    "`x",
    "%x",
    "&a",
    "*a",
    "!x",
    "|",
    ">",
    "?x",
    ":x",
    "x:",
    "...",
    "---",
    "unix:///run/containerd/containerd.sock",
    "registry.example/app:1.0",
    "2024-05-01T10:00:00Z",
    "100m",
    "512Mi",
    "25%",
    "{}",
    "[]",
    "a'b",
    "ctl\u{1}x",
    "nel\u{85}x",
];

enum Gen {
    Scalar(String),
    Null,
    Bool(bool),
    Int(i64),
    Map(Vec<(String, Gen)>),
    Seq(Vec<Gen>),
}

fn pick<'a>(rng: &mut Prng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len() as u64) as usize]
}

fn gen(rng: &mut Prng, depth: u32) -> Gen {
    let r = rng.below(100);
    if depth >= 4 || r < 45 {
        return match rng.below(10) {
            0 => Gen::Null,
            1 => Gen::Bool(rng.chance(50)),
            2 => Gen::Int(rng.next_u64() as i64 >> rng.below(64)),
            _ => Gen::Scalar(if rng.chance(70) {
                pick(rng, STRINGS).to_string()
            } else {
                format!("v{}", rng.below(1000))
            }),
        };
    }
    if r < 80 {
        let n = rng.below(6);
        let mut keys: Vec<String> = Vec::new();
        let mut m = Vec::new();
        for _ in 0..n {
            let k = if rng.chance(25) {
                pick(rng, KEYS).to_string()
            } else {
                format!("key{}", rng.below(40))
            };
            // Mostly distinct keys; sometimes a duplicate on purpose.
            if keys.contains(&k) && !rng.chance(10) {
                continue;
            }
            keys.push(k.clone());
            m.push((k, gen(rng, depth + 1)));
        }
        Gen::Map(m)
    } else {
        Gen::Seq((0..rng.below(5)).map(|_| gen(rng, depth + 1)).collect())
    }
}

fn dq(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{85}' => o.push_str(&format!("\\x{:02x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn key(rng: &mut Prng, k: &str) -> String {
    match rng.below(10) {
        0 => dq(k),
        1 => format!("'{}'", k.replace('\'', "''")),
        _ => k.to_string(),
    }
}

fn comment(rng: &mut Prng) -> &'static str {
    if rng.chance(8) {
        " # note"
    } else {
        ""
    }
}

/// An inline rendering of a scalar, or `None` for a literal block.
fn scalar(rng: &mut Prng, g: &Gen) -> String {
    match g {
        Gen::Null => pick(rng, &["", "null", "~", "Null"]).to_string(),
        Gen::Bool(b) => b.to_string(),
        Gen::Int(i) => i.to_string(),
        Gen::Scalar(s) => match rng.below(10) {
            0..=2 => dq(s),
            3 => format!("'{}'", s.replace('\'', "''")),
            _ => s.clone(),
        },
        Gen::Map(_) => "{}".into(),
        Gen::Seq(_) => "[]".into(),
    }
}

fn literal(rng: &mut Prng, s: &str, indent: usize, out: &mut String) {
    let strip = rng.chance(50);
    out.push_str(if strip { "|-" } else { "|" });
    out.push_str(comment(rng));
    out.push('\n');
    for line in s.split('\n') {
        if !line.is_empty() {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// `g` after `key:` or `- ` at indentation `n` (the collection's); `out`
/// ends right after the indicator.
fn render_value(rng: &mut Prng, g: &Gen, n: usize, in_map: bool, out: &mut String) {
    let step = 1 + rng.below(4) as usize;
    match g {
        Gen::Map(m) if !m.is_empty() => {
            out.push_str(comment(rng));
            out.push('\n');
            render_map(rng, m, n + step, out);
        }
        Gen::Seq(v) if !v.is_empty() => {
            out.push_str(comment(rng));
            out.push('\n');
            let at = if in_map && rng.chance(60) {
                n
            } else {
                n + step
            };
            render_seq(rng, v, at, out);
        }
        Gen::Scalar(s) if s.contains('\n') || rng.chance(5) => {
            out.push(' ');
            literal(rng, s, n + step, out);
        }
        _ => {
            let s = scalar(rng, g);
            if !s.is_empty() {
                out.push(' ');
            }
            out.push_str(&s);
            out.push_str(comment(rng));
            out.push('\n');
        }
    }
    if rng.chance(5) {
        out.push('\n');
    }
}

fn render_map(rng: &mut Prng, m: &[(String, Gen)], n: usize, out: &mut String) {
    for (k, v) in m {
        if rng.chance(4) {
            out.push_str(&" ".repeat(rng.below(6) as usize));
            out.push_str("# a comment line\n");
        }
        out.push_str(&" ".repeat(n));
        out.push_str(&key(rng, k));
        out.push(':');
        render_value(rng, v, n, true, out);
    }
}

fn render_seq(rng: &mut Prng, v: &[Gen], n: usize, out: &mut String) {
    for g in v {
        out.push_str(&" ".repeat(n));
        out.push('-');
        match g {
            Gen::Map(m) if !m.is_empty() && rng.chance(70) => {
                // `- key: value`, the other keys under the first.
                let spaces = 1 + rng.below(3) as usize;
                out.push_str(&" ".repeat(spaces));
                let mut first = String::new();
                render_map(rng, &m[..1], n + 1 + spaces, &mut first);
                out.push_str(first.trim_start_matches(' '));
                render_map(rng, &m[1..], n + 1 + spaces, out);
            }
            _ => render_value(rng, g, n, false, out),
        }
    }
}

fn render_doc(rng: &mut Prng, g: &Gen) -> String {
    let mut out = String::new();
    let n = if rng.chance(5) { 2 } else { 0 };
    match g {
        Gen::Map(m) if !m.is_empty() => render_map(rng, m, n, &mut out),
        Gen::Seq(v) if !v.is_empty() => render_seq(rng, v, n, &mut out),
        other => {
            out.push_str(&scalar(rng, other));
            out.push('\n');
        }
    }
    out
}

fn random_stream(rng: &mut Prng) -> String {
    let docs = 1 + rng.below(4);
    let mut s = String::new();
    if rng.chance(30) {
        s.push_str("---\n");
    }
    for i in 0..docs {
        if i > 0 {
            s.push_str(pick(rng, &["---\n", "--- # next\n", "---\n\n", "---  \n"]));
        }
        let g = if rng.chance(85) {
            Gen::Map(match gen(rng, 0) {
                Gen::Map(m) => m,
                other => vec![("kind".into(), other)],
            })
        } else {
            gen(rng, 1)
        };
        s.push_str(&render_doc(rng, &g));
    }
    s
}

#[test]
fn generated_documents_read_the_same() {
    let fast = std::sync::atomic::AtomicU64::new(0);
    let total = fuzz_ops(300);
    sweep("generated_documents_read_the_same", 300, |seed| {
        let mut rng = Prng::new(seed);
        let text = random_stream(&mut rng);
        if same(&text) {
            fast.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let fast = fast.into_inner();
    // Not vacuous: most generated streams are ones the fast reader reads.
    assert!(
        total < 20 || fast * 4 >= total,
        "the fast reader read only {fast} of {total} streams"
    );
}

fn char_at(s: &str, rng: &mut Prng) -> usize {
    let mut p = rng.below(s.len() as u64 + 1) as usize;
    while !s.is_char_boundary(p) {
        p -= 1;
    }
    p
}

fn mutate(rng: &mut Prng, s: &str) -> String {
    let mut s = s.to_string();
    for _ in 0..1 + rng.below(3) {
        let a = char_at(&s, rng);
        let b = char_at(&s, rng).max(a);
        match rng.below(7) {
            0 => {
                // Up to 8 bytes, cut back to a character boundary.
                let mut end = b.min(a + 8);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(a..end, "")
            }
            1 => s.insert_str(
                a,
                pick(
                    rng,
                    &[
                        ":", " ", "  ", "-", "- ", "#", " #", "\n", "\n---\n", "'", "\"", "|", "{",
                        "[", "&a ", "*a", "!x ", "\t", "\r", "? ", "\\", "...", "%", "\u{feff}",
                    ],
                ),
            ),
            2 => s.truncate(a),
            3 => {
                // Duplicate a line.
                let line_start = s[..a].rfind('\n').map_or(0, |p| p + 1);
                let line_end = s[a..].find('\n').map_or(s.len(), |p| a + p);
                let line = format!("{}\n", &s[line_start..line_end]);
                s.insert_str(line_start, &line);
            }
            4 => {
                // Indent or dedent a line.
                let line_start = s[..a].rfind('\n').map_or(0, |p| p + 1);
                if rng.chance(50) {
                    s.insert(line_start, ' ');
                } else if s[line_start..].starts_with(' ') {
                    s.remove(line_start);
                }
            }
            5 => s.insert_str(a, &format!("{}", rng.next_u64())),
            _ => {
                let t = s[a..b].to_string();
                s.insert_str(b, &t);
            }
        }
    }
    s
}

#[test]
fn mutated_documents_read_the_same() {
    let corpus: Vec<String> = corpus().into_iter().map(|(_, t)| t).collect();
    sweep("mutated_documents_read_the_same", 300, |seed| {
        let mut rng = Prng::new(seed);
        let base = if rng.chance(50) {
            corpus[rng.below(corpus.len() as u64) as usize].clone()
        } else {
            random_stream(&mut rng)
        };
        let text = mutate(&mut rng, &base);
        same(&text);
    });
}

// ----- the scan before the full parser (yaml_scan.rs) ----------------------------

/// The full parser alone, without the scan: the reference the scan is held to.
fn parse_unscanned(text: &str) -> Option<Vec<Value>> {
    use serde::Deserialize;
    let mut docs = Vec::new();
    for d in serde_yaml_ng::Deserializer::from_str(text) {
        docs.push(Value::deserialize(d).ok()?);
    }
    Some(docs)
}

/// Nested collections around the deepest value (a scalar is 0).
fn tree_depth(v: &Value) -> usize {
    match v {
        Value::Seq(s) => 1 + s.iter().map(tree_depth).max().unwrap_or(0),
        Value::Map(m) => 1 + m.iter().map(|(_, v)| tree_depth(v)).max().unwrap_or(0),
        _ => 0,
    }
}

fn values(v: &Value) -> usize {
    match v {
        Value::Seq(s) => 1 + s.iter().map(values).sum::<usize>(),
        Value::Map(m) => 1 + m.iter().map(|(_, v)| values(v)).sum::<usize>(),
        _ => 1,
    }
}

/// The scan never counts deeper than the parser nests, and a stream it
/// finds no alias in holds no more values than bytes (nothing was
/// repeated). Returns the depth the scan saw, if the parser reads `text`.
fn scan_agrees(text: &str) -> Option<usize> {
    let s = scan(text, usize::MAX).expect("no limit");
    let docs = parse_unscanned(text)?;
    {
        let deepest = docs.iter().map(tree_depth).max().unwrap_or(0);
        assert!(
            s.depth <= deepest,
            "the scan counts {} levels, the parser {deepest}, in:\n{text}",
            s.depth
        );
        let n: usize = docs.iter().map(values).sum();
        assert!(
            s.aliases || n <= text.len() + docs.len() + 1,
            "{n} values from {} bytes without an alias the scan saw, in:\n{text}",
            text.len()
        );
    }
    Some(s.depth)
}

/// Scalars that hold what the scan must not take for structure.
const TRICKY: &[&str] = &[
    "[[", "]]", "{[", "a[b", "x: [y", "# [", "'[", "\"[", "*a", "&a [", "- [", "? {", "a\"b[", "|",
    "a #[",
];

/// A flow rendering of `g`, with tricky scalars, spaces and line breaks.
fn flow(rng: &mut Prng, g: &Gen, out: &mut String) {
    let gap = |rng: &mut Prng| pick(rng, &["", " ", "  ", "\n ", " # [[ {\n  ", "\n"]).to_string();
    match g {
        Gen::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&gap(rng));
                out.push_str(&dq(k));
                out.push_str(": ");
                flow(rng, v, out);
                out.push_str(&gap(rng));
            }
            out.push('}');
        }
        Gen::Seq(v) => {
            out.push('[');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&gap(rng));
                flow(rng, x, out);
            }
            out.push(']');
        }
        _ => {
            let t = pick(rng, TRICKY);
            match rng.below(4) {
                0 => out.push_str(&dq(t)),
                1 => out.push_str(&format!("'{}'", t.replace('\'', "''"))),
                // Plain in flow: text with a quote or a colon inside.
                2 => out.push_str(pick(rng, &["a\"b", "x'y", "a:b", "-x", "a#b", "a b"])),
                _ => out.push_str(&scalar(rng, g).replace(['[', ']', '{', '}', ','], "")),
            }
        }
    }
}

/// A stream of the shapes that reach the full parser: flow collections
/// after a key, a dash or at the top, compact nesting, anchors and aliases,
/// block scalars, multi-line plain and quoted scalars, all holding brackets.
fn tricky_stream(rng: &mut Prng) -> String {
    let mut s = String::new();
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            s.push_str("---\n");
        }
        let g = gen(rng, 1);
        let mut f = String::new();
        flow(rng, &g, &mut f);
        let t = pick(rng, TRICKY);
        match rng.below(9) {
            0 => s.push_str(&format!("a: {f}\n")),
            1 => {
                let k = 1 + rng.below(4) as usize;
                s.push_str(&format!("{}{f}\n", "- ".repeat(k)));
            }
            2 => s.push_str(&format!("{f}\n")),
            3 => s.push_str(&format!("a: &x {f}\nb: *x\nc: [*x, *x]\n")),
            4 => s.push_str(&format!("a: |\n  {t}\n    {t}\n\n  {t}\nb: {f}\n")),
            5 => s.push_str(&format!("a: word {t}\n  {t}\n   {t}\nb: {f}\n")),
            6 => s.push_str(&format!("a: \"x {t}\n  {}\"\nb: {f}\n", t.replace('"', ""))),
            7 => s.push_str(&format!("word\n{t}\n")),
            _ => {
                s.push_str(&render_doc(rng, &g));
                s.push_str(&format!("z: {f}\n"));
            }
        }
    }
    if rng.chance(40) {
        s = mutate(rng, &s);
    }
    s
}

/// The YAML differential of the scan (and, on the same streams, of the two
/// readers): block, flow, alias and mutated streams, sized by
/// SHEPHERD_FUZZ_OPS like the others.
#[test]
fn scanned_depth_is_never_deeper_than_parsed() {
    let corpus: Vec<String> = corpus().into_iter().map(|(_, t)| t).collect();
    let deep = std::sync::atomic::AtomicUsize::new(0);
    let read = std::sync::atomic::AtomicU64::new(0);
    sweep("scanned_depth_is_never_deeper_than_parsed", 300, |seed| {
        let mut rng = Prng::new(seed);
        let text = match rng.below(4) {
            0 => random_stream(&mut rng),
            1 => {
                let base = corpus[rng.below(corpus.len() as u64) as usize].clone();
                mutate(&mut rng, &base)
            }
            _ => tricky_stream(&mut rng),
        };
        // The fast reader and the full parser agree on these too.
        same(&text);
        if let Some(d) = scan_agrees(&text) {
            deep.fetch_max(d, std::sync::atomic::Ordering::Relaxed);
            read.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    // Not vacuous: many streams read, and they nest.
    let (total, read) = (fuzz_ops(300), read.into_inner());
    assert!(total < 20 || (read * 3 >= total && deep.into_inner() >= 4));
}

#[test]
fn edge_cases_scan_no_deeper_than_parsed() {
    // Some of these the parser refuses (a key that is not a string, an
    // unknown tag, a flow collection cut by a document): the scan must
    // still end, and agree on the others.
    let mut read = 0;
    for c in [
        "a: [[1], {b: [2]}]\n",
        "- - - x\n",
        "a:\n- b: 1\n",
        "[a \"[]]\n",
        "[a, # ]]]\n  [b]]\n",
        "a: &x [1, [2]]\nb: *x\n",
        "? [a]\n: [b]\n",
        "[a]: b\n",
        "a: |2\n   [[\n  b\n",
        "a:\n   b\n  [[\nc: 1\n",
        "abc\n[[[x\n",
        "- a\n - [b\n",
        "{a: [b, {c: d}], e: f}\n",
        "a: 'x [[\n  y'\n",
        "a: \"x \\\" [[\"\n",
        "--- [a,\n--- [b]\n",
        "%YAML 1.1\n--- [a]\n",
        "a: !!seq [b]\nc: !t {d: e}\n",
        "a: b\r\nc: [d]\r\n",
        "a: b\u{85}[c]\n",
    ] {
        if scan_agrees(c).is_some() {
            read += 1;
        }
    }
    assert!(read >= 14, "the parser read only {read} of the cases");
    // At the limit and one past it, nested every way the scan counts.
    for (open, close) in [("[", "]"), ("{a: ", "}"), ("- ", "")] {
        for depth in [127, 128, 129] {
            let text = format!("{}x{}\n", open.repeat(depth), close.repeat(depth));
            let refused = scan(&text, crate::yaml_scan::MAX_DEPTH).is_err();
            assert_eq!(refused, depth > 128, "{open} x {depth}");
            // The full parser agrees with the limit.
            let parsed = parse_unscanned(&text);
            assert_eq!(parsed.is_none(), depth > 128, "{open} x {depth}");
        }
    }
}
