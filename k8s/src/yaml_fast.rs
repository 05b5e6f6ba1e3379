//! A fast reader for the block-style YAML that kubectl and Helm print, giving
//! exactly the tree the full parser (serde_yaml_ng) gives, or nothing.
//!
//! Profiled on the import benchmark (callgrind, 250 Nodes + 500 Deployments):
//! libyaml's scanner and the event loader were about three quarters of a YAML
//! import, building the value tree through serde most of the rest; the
//! importer's walk was a few percent. This reader skips the event stream: it
//! splits the stream into documents at `---` lines and builds each document's
//! [`Value`] straight from its lines.
//!
//! It understands block mappings and sequences (kubectl's sequences at their
//! key's indentation included), plain scalars on one line, single- and
//! double-quoted scalars on one line, `{}` and `[]`, literal block scalars
//! (`|`, `|-`) and comments. Anything else (anchors, aliases, tags, flow
//! collections with content, folded or kept block scalars, multi-line plain or
//! quoted scalars, complex keys, directives, tabs, CR, unusual characters,
//! duplicate keys, a key that is not a string) makes it give up: a document it
//! does not fully understand is read by the full parser alone, and a stream with
//! an error, a directive or a `...` is read by the full parser from the start,
//! so errors keep their wording, document and line. Plain scalars resolve as the
//! full parser resolves them (YAML 1.2 core schema: `null`, `~`, booleans,
//! integers in decimal, `0x`, `0o`, `0b`, floats, `.inf`, `.nan`; a leading
//! zero keeps digits a string). The differential tests in `yaml_fast_tests.rs`
//! hold it to that on the corpus, on generated documents and on mutated ones.

use std::collections::HashSet;

use crate::value::{Budget, Value};
use crate::yaml_scan::scan;

/// Deeper than this, the full parser decides (its own limit is 128).
const MAX_DEPTH: usize = 100;
/// libyaml refuses simple keys longer than 1024 characters; leave those to it.
const MAX_KEY: usize = 1000;

/// Why the fast reader stopped a stream that the full parser must not read
/// again.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Document `i` (1-based) is one more than `max_documents`.
    TooManyDocuments(usize),
    /// Document `i` passed the budget (its aliases expanded); the budget
    /// says where.
    OverBudget(usize),
}

/// The documents of a YAML stream, or `None` when the stream must be read by
/// the full parser from the start (an error somewhere, a directive, `...`,
/// characters this reader leaves alone). `progress` is called after each
/// document with the bytes read so far. `max_documents` is checked before a
/// document is read. A document this reader gives up on is read by the full
/// parser alone, first scanned (`yaml_scan`): too deep, it goes to the full
/// parser's stream read, which refuses it; with aliases, it is read within
/// `budget`.
pub(crate) fn documents(
    text: &str,
    max_documents: usize,
    budget: &Budget,
    progress: &mut dyn FnMut(usize),
) -> Option<Result<Vec<Value>, Stop>> {
    if !plain_characters(text.as_bytes()) {
        return None;
    }
    let chunks = split(text)?;
    let mut docs = Vec::with_capacity(chunks.len());
    for c in &chunks {
        let body = &text[c.start..c.end];
        let v = match Doc::new(body).parse() {
            Parsed::Value(v) => v,
            Parsed::Empty => {
                if !c.explicit {
                    continue;
                }
                Value::Null
            }
            Parsed::GiveUp => match full_one(body, budget) {
                Full::Value(v) => v,
                Full::GiveUp => return None,
                Full::OverBudget => return Some(Err(Stop::OverBudget(docs.len() + 1))),
            },
        };
        if docs.len() >= max_documents {
            return Some(Err(Stop::TooManyDocuments(docs.len() + 1)));
        }
        docs.push(v);
        progress(c.end);
    }
    // The full parser reads a stream without a document as one empty document.
    if docs.is_empty() {
        if max_documents == 0 {
            return Some(Err(Stop::TooManyDocuments(1)));
        }
        docs.push(Value::Null);
    }
    Some(Ok(docs))
}

enum Full {
    Value(Value),
    /// Not exactly one document that reads: the whole stream goes to the
    /// full parser, which reports the error at the right line.
    GiveUp,
    OverBudget,
}

/// One document read by the full parser alone.
fn full_one(body: &str, budget: &Budget) -> Full {
    use serde::Deserialize;
    let Ok(scanned) = scan(body, crate::yaml_scan::MAX_DEPTH) else {
        return Full::GiveUp;
    };
    let mut it = serde_yaml_ng::Deserializer::from_str(body);
    let Some(d) = it.next() else {
        return Full::GiveUp;
    };
    let v = if scanned.aliases {
        budget.read(d)
    } else {
        Value::deserialize(d)
    };
    let v = match v {
        Ok(v) => v,
        Err(_) if budget.exceeded() => return Full::OverBudget,
        Err(_) => return Full::GiveUp,
    };
    if it.next().is_some() {
        return Full::GiveUp;
    }
    Full::Value(v)
}

/// No byte the fast reader would have to treat specially: tabs, CR, control
/// characters, DEL, C1 controls (NEL among them), the byte order mark, the
/// Unicode line and paragraph separators, U+FFFE and U+FFFF.
fn plain_characters(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x80 {
            if (c < 0x20 && c != b'\n') || c == 0x7f {
                return false;
            }
            i += 1;
            continue;
        }
        match c {
            0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return false,
            0xe2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => {
                return false
            }
            0xef if b.get(i + 1) == Some(&0xbb) && b.get(i + 2) == Some(&0xbf) => return false,
            0xef if b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)) => {
                return false
            }
            _ => {}
        }
        i += 1;
    }
    true
}

struct Chunk {
    start: usize,
    end: usize,
    /// Started by a `---` line (an empty one is a null document); the text
    /// before the first `---` is a document only if it has content.
    explicit: bool,
}

/// Splits at `---` lines (alone or with a comment). A `---` followed by
/// content, a `...` line or a directive sends the stream to the full parser.
fn split(text: &str) -> Option<Vec<Chunk>> {
    let b = text.as_bytes();
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut explicit = false;
    let mut pos = 0;
    while pos < b.len() {
        let end = memchr_nl(b, pos);
        let line = &b[pos..end];
        let marker = |m: &[u8]| line.starts_with(m) && (line.len() == 3 || line[3] == b' ');
        if line.first() == Some(&b'%') || marker(b"...") {
            return None;
        }
        if marker(b"---") {
            let rest = trim_spaces(&line[3..]);
            if !rest.is_empty() && rest[0] != b'#' {
                return None;
            }
            chunks.push(Chunk {
                start,
                end: pos,
                explicit,
            });
            explicit = true;
            start = (end + 1).min(b.len());
        }
        pos = end + 1;
    }
    chunks.push(Chunk {
        start: start.min(b.len()),
        end: b.len(),
        explicit,
    });
    Some(chunks)
}

fn memchr_nl(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&c| c != b' ').unwrap_or(s.len());
    let z = s.iter().rposition(|&c| c != b' ').map_or(a, |p| p + 1);
    &s[a..z]
}

#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    /// After the indentation, trailing spaces kept.
    text: &'a str,
}

impl Line<'_> {
    /// Not blank, not a comment (`text` starts after every leading space).
    fn content(&self) -> bool {
        !self.text.is_empty() && !self.text.starts_with('#')
    }
    fn seq_item(&self) -> bool {
        let t = self.text.as_bytes();
        t.first() == Some(&b'-') && (t.len() == 1 || t[1] == b' ')
    }
}

enum Parsed {
    Value(Value),
    /// Only comments and blank lines.
    Empty,
    GiveUp,
}

/// A document read line by line, in place: no list of its lines is built
/// (at 24 bytes a line, 64 MiB of empty lines would have taken 1.5 GB).
struct Doc<'a> {
    body: &'a str,
    /// Where the line after the current one starts; past the end (`len + 1`)
    /// when the current line is the last.
    next: usize,
    /// The current line (as `seq` may rewrite it), `None` past the last.
    cur: Option<Line<'a>>,
    depth: usize,
}

impl<'a> Doc<'a> {
    fn new(body: &'a str) -> Doc<'a> {
        let mut d = Doc {
            body,
            next: 0,
            cur: None,
            depth: 0,
        };
        d.advance();
        d
    }

    /// On to the next line (lines are split at '\n', the text after the
    /// last one a line too, as `str::split` gives them).
    fn advance(&mut self) {
        let b = self.body.as_bytes();
        if self.next > b.len() {
            self.cur = None;
            return;
        }
        let start = self.next;
        let end = memchr_nl(b, start);
        let l = &self.body[start..end];
        let indent = l.bytes().take_while(|&c| c == b' ').count();
        self.cur = Some(Line {
            indent,
            text: &l[indent..],
        });
        self.next = end + 1;
    }

    /// Whether the current line ends with a line break (it is not the last).
    fn ends_with_break(&self) -> bool {
        self.next <= self.body.len()
    }

    fn parse(mut self) -> Parsed {
        self.skip();
        let Some(first) = self.cur else {
            return Parsed::Empty;
        };
        let Some(v) = self.node(first.indent) else {
            return Parsed::GiveUp;
        };
        self.skip();
        if self.cur.is_some() {
            return Parsed::GiveUp;
        }
        Parsed::Value(v)
    }

    /// Past blank and comment lines.
    fn skip(&mut self) {
        while self.cur.is_some_and(|l| !l.content()) {
            self.advance();
        }
    }

    /// A block collection starting at the current (content) line, indented `n`.
    fn node(&mut self, n: usize) -> Option<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let line = self.cur?;
        let v = if line.seq_item() {
            self.seq(n)
        } else {
            self.map(n)
        };
        self.depth -= 1;
        v
    }

    fn map(&mut self, n: usize) -> Option<Value> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        let mut index: Option<HashSet<String>> = None;
        loop {
            self.skip();
            let Some(line) = self.cur else {
                break;
            };
            if line.indent < n {
                break;
            }
            if line.indent > n || line.seq_item() {
                return None;
            }
            let (key, rest) = split_key(line.text)?;
            self.advance();
            // The same rule as the full parser's tree (value.rs): a key given
            // twice is refused, so leave it to the full parser to say so.
            let dup = match &mut index {
                Some(set) => !set.insert(key.clone()),
                None => {
                    let d = entries.iter().any(|(k, _)| *k == key);
                    if entries.len() >= 16 {
                        let mut set: HashSet<String> =
                            entries.iter().map(|(k, _)| k.clone()).collect();
                        set.insert(key.clone());
                        index = Some(set);
                    }
                    d
                }
            };
            if dup {
                return None;
            }
            let v = self.value(rest, n, true)?;
            entries.push((key, v));
        }
        Some(Value::Map(entries))
    }

    fn seq(&mut self, n: usize) -> Option<Value> {
        let mut items = Vec::new();
        loop {
            self.skip();
            let Some(line) = self.cur else {
                break;
            };
            if line.indent < n || (line.indent == n && !line.seq_item()) {
                break;
            }
            if line.indent > n {
                return None;
            }
            let after = &line.text[1..];
            let spaces = after.bytes().take_while(|&c| c == b' ').count();
            let rest = &after[spaces..];
            if rest.is_empty() || rest.starts_with('#') {
                self.advance();
                items.push(self.value("", n, false)?);
                continue;
            }
            if rest.starts_with('-') && (rest.len() == 1 || rest.as_bytes()[1] == b' ') {
                return None;
            }
            if split_key(rest).is_some() {
                // `- key: value`: a mapping whose keys stand where `key` does.
                let m = n + 1 + spaces;
                self.cur = Some(Line {
                    indent: m,
                    text: rest,
                });
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return None;
                }
                let v = self.map(m)?;
                self.depth -= 1;
                items.push(v);
                continue;
            }
            self.advance();
            items.push(self.value(rest, n, false)?);
        }
        Some(Value::Seq(items))
    }

    /// The value after `key:` or `- `, `rest` being what follows on the line;
    /// `n` the indentation of the collection it belongs to.
    fn value(&mut self, rest: &'a str, n: usize, in_map: bool) -> Option<Value> {
        let r = rest.trim_start_matches(' ');
        if r.is_empty() || r.starts_with('#') {
            self.skip();
            if let Some(l) = self.cur {
                if l.indent > n {
                    return self.node(l.indent);
                }
                if in_map && l.indent == n && l.seq_item() {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return None;
                    }
                    let v = self.seq(n);
                    self.depth -= 1;
                    return v;
                }
            }
            return Some(Value::Null);
        }
        let v = match r.as_bytes()[0] {
            b'|' => return self.literal(r, n),
            b'"' => {
                let (s, after) = double_quoted(r)?;
                end_of_line(after)?;
                Value::Str(s)
            }
            b'\'' => {
                let (s, after) = single_quoted(r)?;
                end_of_line(after)?;
                Value::Str(s)
            }
            b'{' | b'[' => {
                let empty = if r.starts_with('{') { "{}" } else { "[]" };
                let after = r.strip_prefix(empty)?;
                end_of_line(after)?;
                if empty == "{}" {
                    Value::Map(Vec::new())
                } else {
                    Value::Seq(Vec::new())
                }
            }
            _ => resolve_plain(plain(r)?),
        };
        // A more indented line after a scalar would continue it (or be an error).
        self.skip();
        if self.cur.is_some_and(|l| l.indent > n) {
            return None;
        }
        Some(v)
    }

    /// A literal block scalar, `|` or `|-`, its content indentation detected
    /// from its first line; `n` the indentation of the collection it is in.
    fn literal(&mut self, header: &str, n: usize) -> Option<Value> {
        let strip = match header.as_bytes().get(1) {
            None | Some(b' ') => false,
            Some(b'-') => true,
            _ => return None,
        };
        let after = &header[if strip { 2 } else { 1 }..];
        if !after.is_empty() {
            end_of_line(after)?;
        }
        // The first line must hold content (leading empty lines change the
        // detected indentation; leave them to the full parser).
        let first = self.cur?;
        if first.text.is_empty() || first.indent <= n {
            return None;
        }
        let ci = first.indent;
        let mut s = String::new();
        let mut pending = 0usize;
        let mut any = false;
        // Whether the last content line ended with a break.
        let mut broken = false;
        while let Some(l) = self.cur {
            if l.text.is_empty() {
                // Only spaces: empty if no deeper than the indentation, else
                // its spaces beyond it are content.
                if l.indent <= ci {
                    pending += 1;
                    self.advance();
                    continue;
                }
            } else if l.indent < ci {
                break;
            }
            if any {
                s.push('\n');
            }
            for _ in 0..pending {
                s.push('\n');
            }
            pending = 0;
            any = true;
            // `l.text` follows all the leading spaces; those beyond `ci` are content.
            for _ in ci..l.indent {
                s.push(' ');
            }
            s.push_str(l.text);
            broken = self.ends_with_break();
            self.advance();
        }
        // Clip keeps the last content line's break, if it has one (the
        // last line of the input may not).
        if !strip && broken {
            s.push('\n');
        }
        // The lines that ended it must not be more indented than the collection.
        self.skip();
        if self.cur.is_some_and(|l| l.indent > n) {
            return None;
        }
        Some(Value::Str(s))
    }
}

/// After a quoted scalar or `{}`: nothing, or spaces and a comment.
fn end_of_line(after: &str) -> Option<()> {
    if after.is_empty() {
        return Some(());
    }
    let t = after.trim_start_matches(' ');
    if t.is_empty() || (t.starts_with('#') && t.len() < after.len()) {
        Some(())
    } else {
        None
    }
}

/// Characters that cannot start a plain scalar (YAML's indicators); `-`
/// followed by something other than a space can.
fn starts_plain(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        None => false,
        Some(b'-') => b.len() > 1 && b[1] != b' ',
        Some(
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`',
        ) => false,
        Some(_) => true,
    }
}

/// A plain scalar that ends the line: cut at ` #`, trailing spaces trimmed;
/// `None` if it holds `: ` or ends with `:` (a mapping where none may start).
fn plain(r: &str) -> Option<&str> {
    if !starts_plain(r) {
        return None;
    }
    // One pass: stop at ` #`; give up at `: `.
    let b = r.as_bytes();
    let mut cut = b.len();
    for p in 1..b.len() {
        if b[p - 1] == b' ' && b[p] == b'#' {
            cut = p - 1;
            break;
        }
        if b[p - 1] == b':' && b[p] == b' ' {
            return None;
        }
    }
    let s = r[..cut].trim_end_matches(' ');
    if s.ends_with(':') {
        return None;
    }
    Some(s)
}

/// `key: rest` or `key:` on a line; the key as the full parser's tree holds
/// it (value.rs turns integer and boolean keys into their text).
fn split_key(t: &str) -> Option<(String, &str)> {
    let b = t.as_bytes();
    let (key, after) = match b.first()? {
        b'"' | b'\'' => {
            let (k, after) = if b[0] == b'"' {
                double_quoted(t)?
            } else {
                single_quoted(t)?
            };
            let after = after.trim_start_matches(' ');
            (k, after.strip_prefix(':')?)
        }
        _ => {
            if !starts_plain(t) {
                return None;
            }
            let mut colon = None;
            for (p, &c) in b.iter().enumerate() {
                if c == b':' && (p + 1 == b.len() || b[p + 1] == b' ') {
                    colon = Some(p);
                    break;
                }
            }
            let p = colon?;
            let k = t[..p].trim_end_matches(' ');
            if k.is_empty() || k.contains(" #") {
                return None;
            }
            let key = match resolve_plain(k) {
                Value::Str(s) => s,
                Value::Bool(v) => v.to_string(),
                Value::Int(v) => v.to_string(),
                Value::UInt(v) => v.to_string(),
                _ => return None,
            };
            (key, &t[p + 1..])
        }
    };
    if !(after.is_empty() || after.starts_with(' ')) || t.len() - after.len() > MAX_KEY {
        return None;
    }
    Some((key, after))
}

/// A double-quoted scalar closed on its line: (value, what follows).
fn double_quoted(t: &str) -> Option<(String, &str)> {
    let mut s = String::new();
    let mut chars = t[1..].char_indices();
    while let Some((p, c)) = chars.next() {
        match c {
            '"' => return Some((s, &t[1 + p + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                let hex = |chars: &mut std::str::CharIndices, n: usize| -> Option<char> {
                    let mut v = 0u32;
                    for _ in 0..n {
                        v = v * 16 + chars.next()?.1.to_digit(16)?;
                    }
                    char::from_u32(v)
                };
                s.push(match e {
                    '0' => '\0',
                    'a' => '\x07',
                    'b' => '\x08',
                    't' => '\t',
                    'n' => '\n',
                    'v' => '\x0b',
                    'f' => '\x0c',
                    'r' => '\r',
                    'e' => '\x1b',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' => hex(&mut chars, 2)?,
                    'u' => hex(&mut chars, 4)?,
                    'U' => hex(&mut chars, 8)?,
                    _ => return None,
                });
            }
            _ => s.push(c),
        }
    }
    None
}

/// A single-quoted scalar closed on its line (`''` is one quote).
fn single_quoted(t: &str) -> Option<(String, &str)> {
    let b = t.as_bytes();
    let mut s = String::new();
    let mut from = 1;
    let mut p = 1;
    while p < b.len() {
        if b[p] == b'\'' {
            s.push_str(&t[from..p]);
            if b.get(p + 1) == Some(&b'\'') {
                s.push('\'');
                p += 2;
                from = p;
                continue;
            }
            return Some((s, &t[p + 1..]));
        }
        p += 1;
    }
    None
}

/// A plain scalar's value, resolved in the order the full parser resolves it:
/// null, boolean, integer (unsigned, then negative, then the 128-bit ones,
/// which the tree keeps as numbers), float, else a string.
pub(crate) fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    // Only these can start a number.
    if !matches!(s.as_bytes()[0], b'0'..=b'9' | b'+' | b'-' | b'.') {
        return Value::Str(s.to_owned());
    }
    if let Some(v) = unsigned(s, u64::from_str_radix) {
        return Value::UInt(v);
    }
    if let Some(v) = negative(s, i64::from_str_radix) {
        return Value::Int(v);
    }
    if let Some(v) = unsigned(s, u128::from_str_radix) {
        return Value::Float(v as f64);
    }
    if let Some(v) = negative(s, i128::from_str_radix) {
        return Value::Float(v as f64);
    }
    if !leading_zero_digits(s) {
        if let Some(f) = float(s) {
            return Value::Float(f);
        }
    }
    Value::Str(s.to_owned())
}

type Radix<T> = fn(&str, u32) -> Result<T, std::num::ParseIntError>;

fn no_sign(s: &str) -> bool {
    !s.starts_with(['+', '-'])
}

/// `+`? then `0x`/`0o`/`0b` digits, or decimal digits (not `0` followed by digits).
fn unsigned<T>(s: &str, parse: Radix<T>) -> Option<T> {
    let u = s.strip_prefix('+').unwrap_or(s);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = u.strip_prefix(prefix) {
            if !no_sign(rest) {
                return None;
            }
            if let Ok(v) = parse(rest, radix) {
                return Some(v);
            }
        }
    }
    if !no_sign(u) || leading_zero_digits(s) {
        return None;
    }
    parse(u, 10).ok()
}

/// `-0x`/`-0o`/`-0b` digits, or a negative decimal.
fn negative<T>(s: &str, parse: Radix<T>) -> Option<T> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = s.strip_prefix(prefix) {
            if let Ok(v) = parse(&format!("-{rest}"), radix) {
                return Some(v);
            }
        }
    }
    if leading_zero_digits(s) {
        return None;
    }
    parse(s, 10).ok()
}

/// YAML 1.2: a zero followed by more digits (after an optional sign) is a string.
fn leading_zero_digits(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    d.len() > 1 && d.starts_with('0') && d[1..].bytes().all(|b| b.is_ascii_digit())
}

fn float(s: &str) -> Option<f64> {
    let u = match s.strip_prefix('+') {
        Some(u) if !no_sign(u) => return None,
        Some(u) => u,
        None => s,
    };
    match u {
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        _ => {}
    }
    match s {
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN.copysign(1.0)),
        _ => {}
    }
    u.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[cfg(test)]
#[path = "yaml_fast_tests.rs"]
mod tests;
