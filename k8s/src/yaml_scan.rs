//! A linear pass over a YAML stream before the full parser sees it: how deep
//! its collections nest, and whether it holds an alias.
//!
//! Why: libyaml (the full parser's scanner, through serde_yaml_ng) keeps one
//! "possible simple key" per open flow collection and walks all of them for
//! every token it fetches (`yaml_parser_fetch_more_tokens`), so nesting `n`
//! deep costs `n` squared: 2 MB of `[[[[...` took 106 s to reach the
//! deserializer's recursion limit, and a line of 1,000,000 `- ` took 4 s and
//! 320 MB of events. This pass refuses such an input in one linear walk.
//!
//! It follows libyaml's tokenizer (`yaml_parser_fetch_next_token`) closely
//! enough to count what libyaml would open: flow collections (`[`, `{`) at
//! any token start, and block collections where libyaml rolls its
//! indentation (`yaml_parser_roll_indent`: a `- ` or `? ` entry, or a simple
//! key followed by `: `, at a column deeper than the current one), skipping
//! comments, quoted scalars, plain scalars (with their continuation lines)
//! and block scalars as libyaml does. Where it cannot tell, it counts less
//! than libyaml, never more: a depth it reports is a depth the parsed tree
//! has (the differential tests in `yaml_fast_tests.rs` check that on
//! generated streams), so a refusal never turns away a stream the parser
//! would read.

/// The deepest nesting the full YAML parser reads: serde_yaml_ng's own
/// recursion limit (128 nested collections; JSON is left to serde_json,
/// which stops at 127 by itself, at once).
pub(crate) const MAX_DEPTH: usize = 128;

/// What the pass found in a stream it did not refuse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// An alias (`*name`) at a token start: the parser will expand it.
    pub aliases: bool,
    /// The deepest nesting seen (a lower bound of the parsed tree's).
    pub depth: usize,
}

/// Where the nesting passed the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooDeep {
    /// 1-based, counting documents as the full parser does.
    pub document: usize,
    /// 1-based line and column of the collection that went one too deep.
    pub line: usize,
    pub column: usize,
}

/// Scans `text`, refusing nesting deeper than `max`.
pub(crate) fn scan(text: &str, max: usize) -> Result<Scanned, TooDeep> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
        line: 1,
        col: 0,
        flow: 0,
        indents: Vec::new(),
        key_col: None,
        docs: 0,
        open: false,
        max,
        out: Scanned::default(),
    };
    s.run()?;
    Ok(s.out)
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    /// 1-based line and 0-based column (in characters) of `i`.
    line: usize,
    col: usize,
    /// Open flow collections.
    flow: usize,
    /// The columns of the open block collections, innermost last (libyaml's
    /// indentation stack; `None` below it is its indent -1).
    indents: Vec<usize>,
    /// The column of the first node on this line since the last block
    /// indicator: where a simple key would start if `: ` follows.
    key_col: Option<usize>,
    /// Documents begun, and whether one is open.
    docs: usize,
    open: bool,
    max: usize,
    out: Scanned,
}

impl Scanner<'_> {
    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn end(&self) -> bool {
        self.i >= self.b.len()
    }

    /// The length of a line break at `i + k` (libyaml's IS_BREAK: LF, CR,
    /// CR LF, NEL, LS, PS), 0 if none.
    fn break_len(&self, k: usize) -> usize {
        match self.at(k) {
            b'\n' => 1,
            b'\r' => {
                if self.at(k + 1) == b'\n' {
                    2
                } else {
                    1
                }
            }
            0xc2 if self.at(k + 1) == 0x85 => 2,
            0xe2 if self.at(k + 1) == 0x80 && matches!(self.at(k + 2), 0xa8 | 0xa9) => 3,
            _ => 0,
        }
    }

    fn blank(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t')
    }

    /// A blank, a break or the end at `i + k`.
    fn blankz(&self, k: usize) -> bool {
        self.i + k >= self.b.len() || self.blank(k) || self.break_len(k) > 0
    }

    /// Past one character (a break counts as a new line, where no simple
    /// key goes on: libyaml's simple keys are one line).
    fn bump(&mut self) {
        let n = self.break_len(0);
        if n > 0 {
            self.i += n;
            self.line += 1;
            self.col = 0;
            self.key_col = None;
            return;
        }
        self.i += 1;
        // Continuation bytes of UTF-8 do not move the column.
        while self.i < self.b.len() && self.b[self.i] & 0xc0 == 0x80 {
            self.i += 1;
        }
        self.col += 1;
    }

    fn depth_check(&mut self, col: usize) -> Result<(), TooDeep> {
        let d = self.flow + self.indents.len();
        self.out.depth = self.out.depth.max(d);
        if d > self.max {
            return Err(TooDeep {
                document: self.docs.max(1),
                line: self.line,
                column: col + 1,
            });
        }
        Ok(())
    }

    /// libyaml's roll_indent: a block collection opens at `col` when it is
    /// deeper than the current one.
    fn roll(&mut self, col: usize) -> Result<(), TooDeep> {
        if self.flow == 0 && self.indents.last().is_none_or(|&t| col > t) {
            self.indents.push(col);
            self.depth_check(col)?;
        }
        Ok(())
    }

    /// libyaml's unroll_indent: block collections deeper than `col` close.
    fn unroll(&mut self, col: usize) {
        while self.indents.last().is_some_and(|&t| t > col) {
            self.indents.pop();
        }
    }

    /// A `---` or `...` line start.
    fn document_indicator(&self) -> Option<u8> {
        if self.col != 0 {
            return None;
        }
        let c = self.at(0);
        if (c == b'-' || c == b'.') && self.at(1) == c && self.at(2) == c && self.blankz(3) {
            Some(c)
        } else {
            None
        }
    }

    /// A node begins here: a document is open, and a simple key may start.
    fn node(&mut self) {
        if !self.open {
            self.docs += 1;
            self.open = true;
        }
        if self.key_col.is_none() {
            self.key_col = Some(self.col);
        }
    }

    fn run(&mut self) -> Result<(), TooDeep> {
        loop {
            // libyaml's scan_to_next_token: blanks, a comment, line breaks.
            loop {
                if self.col == 0 && self.b[self.i..].starts_with("\u{feff}".as_bytes()) {
                    self.i += 3;
                }
                while self.blank(0) {
                    self.bump();
                }
                if self.at(0) == b'#' {
                    while !self.end() && self.break_len(0) == 0 {
                        self.bump();
                    }
                }
                if self.end() || self.break_len(0) == 0 {
                    break;
                }
                self.bump();
            }
            if self.end() {
                return Ok(());
            }
            if self.flow == 0 {
                self.unroll(self.col);
            }
            if self.col == 0 && self.at(0) == b'%' {
                // A directive: its line.
                while !self.end() && self.break_len(0) == 0 {
                    self.bump();
                }
                self.indents.clear();
                continue;
            }
            if let Some(c) = self.document_indicator() {
                // libyaml unrolls every block collection here; a flow
                // collection left open is the parser's error, so counting
                // it no further only counts less.
                self.indents.clear();
                self.flow = 0;
                self.key_col = None;
                if c == b'-' {
                    self.docs += 1;
                    self.open = true;
                } else {
                    self.open = false;
                }
                for _ in 0..3 {
                    self.bump();
                }
                continue;
            }
            let col = self.col;
            let from = self.i;
            match self.at(0) {
                b'[' | b'{' => {
                    if self.flow == 0 {
                        self.node();
                    }
                    self.flow += 1;
                    self.depth_check(col)?;
                    self.bump();
                }
                b']' | b'}' => {
                    self.flow = self.flow.saturating_sub(1);
                    self.bump();
                }
                b',' => self.bump(),
                b'-' if self.blankz(1) => {
                    self.open_document();
                    self.roll(col)?;
                    self.key_col = None;
                    self.bump();
                }
                b'?' if self.flow > 0 || self.blankz(1) => {
                    self.open_document();
                    self.roll(col)?;
                    self.key_col = None;
                    self.bump();
                }
                b':' if self.flow > 0 || self.blankz(1) => {
                    self.open_document();
                    let k = self.key_col.take().unwrap_or(col);
                    self.roll(k)?;
                    self.bump();
                }
                b'*' | b'&' => {
                    if self.at(0) == b'*' {
                        self.out.aliases = true;
                    }
                    self.node();
                    self.bump();
                    // libyaml's anchor characters.
                    while self.at(0).is_ascii_alphanumeric() || matches!(self.at(0), b'_' | b'-') {
                        self.bump();
                    }
                }
                b'!' => {
                    self.node();
                    while !self.blankz(0) {
                        self.bump();
                    }
                }
                b'|' | b'>' if self.flow == 0 => {
                    self.node();
                    self.block_scalar();
                }
                b'\'' => {
                    self.node();
                    self.single_quoted();
                }
                b'"' => {
                    self.node();
                    self.double_quoted();
                }
                _ => {
                    self.node();
                    self.plain();
                }
            }
            // Every token moves on (a character no branch takes is passed).
            if self.i == from {
                self.bump();
            }
        }
    }

    fn open_document(&mut self) {
        if !self.open {
            self.docs += 1;
            self.open = true;
        }
    }

    /// A block scalar: its header line, then every line libyaml could take
    /// as its content (blank, or indented deeper than the enclosing block
    /// collection; libyaml takes at least as deep as that, so this skips
    /// no less than it does).
    fn block_scalar(&mut self) {
        while !self.end() && self.break_len(0) == 0 {
            self.bump();
        }
        let floor = self.indents.last().copied();
        while !self.end() {
            // At the break ending a line the scalar holds.
            self.bump();
            if self.document_indicator().is_some() {
                return;
            }
            let mut spaces = 0;
            while self.at(0) == b' ' {
                self.bump();
                spaces += 1;
            }
            let blank_line = {
                let mut k = 0;
                while self.blank(k) {
                    k += 1;
                }
                self.i + k >= self.b.len() || self.break_len(k) > 0
            };
            let content = blank_line || floor.is_none_or(|f| spaces > f);
            if !content {
                return;
            }
            while !self.end() && self.break_len(0) == 0 {
                self.bump();
            }
        }
    }

    /// A quoted scalar may span lines; a document indicator ends it (libyaml
    /// refuses it there).
    fn single_quoted(&mut self) {
        self.bump();
        while !self.end() {
            if self.at(0) == b'\'' {
                self.bump();
                if self.at(0) == b'\'' {
                    self.bump();
                    continue;
                }
                return;
            }
            self.bump();
            if self.col == 0 && self.document_indicator().is_some() {
                return;
            }
        }
    }

    fn double_quoted(&mut self) {
        self.bump();
        while !self.end() {
            match self.at(0) {
                b'"' => {
                    self.bump();
                    return;
                }
                b'\\' => {
                    self.bump();
                    if !self.end() {
                        self.bump();
                    }
                }
                _ => self.bump(),
            }
            if self.col == 0 && self.document_indicator().is_some() {
                return;
            }
        }
    }

    /// libyaml's scan_plain_scalar: runs of non-blanks, ended by `: `, by a
    /// flow indicator inside a flow collection, by ` #`, or by a line that
    /// is not indented deeper than the enclosing block collection.
    fn plain(&mut self) {
        let floor = self.indents.last().copied();
        loop {
            if self.document_indicator().is_some() || self.at(0) == b'#' {
                return;
            }
            while !self.blankz(0) {
                let c = self.at(0);
                if c == b':' {
                    let n = self.at(1);
                    if self.blankz(1)
                        || (self.flow > 0 && matches!(n, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                    {
                        return;
                    }
                }
                if self.flow > 0 && matches!(c, b',' | b'[' | b']' | b'{' | b'}') {
                    return;
                }
                self.bump();
            }
            if self.end() {
                return;
            }
            while !self.end() && (self.blank(0) || self.break_len(0) > 0) {
                self.bump();
            }
            if self.flow == 0 && floor.is_some_and(|f| self.col <= f) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(s: &str) -> usize {
        scan(s, usize::MAX).unwrap().depth
    }

    #[test]
    fn flow_and_block_nesting_are_counted() {
        assert_eq!(depth("a: [[1], {b: [2]}]\n"), 4);
        assert_eq!(depth("- - - x\n"), 3);
        assert_eq!(depth("a:\n  b:\n    c: 1\n"), 3);
        // kubectl's sequences at their key's indentation open nothing more.
        assert_eq!(depth("a:\n- b: 1\n"), 2);
        assert_eq!(depth("[[[\n]]]\n"), 3);
    }

    #[test]
    fn brackets_in_scalars_and_comments_are_not_nesting() {
        for s in [
            "a: b[[[[\n",
            "a: \"[[[[\"\n",
            "a: '[[[['\n",
            "a: 1 # [[[[\n",
            "a: |\n  [[[[\n  {{{{\n",
            "a: >-\n  [[[[\n",
            // A plain scalar continued on a less indented line that is still
            // deeper than its mapping.
            "a:\n   b\n  [[[[\n",
            "abc\n[[[[\n",
        ] {
            assert!(depth(s) <= 2, "{s:?}: {}", depth(s));
        }
        // Inside a flow collection a quote mid-scalar is text, and the
        // bracket after it opens a collection, as libyaml reads it.
        assert_eq!(depth("[a \"[]]\n"), 2);
    }

    #[test]
    fn too_deep_names_document_line_and_column() {
        let deep = format!("a: 1\n---\nb:\n  c: {}\n", "[".repeat(200));
        let e = scan(&deep, MAX_DEPTH).unwrap_err();
        // b and c open two block mappings; the 127th bracket is the 129th level.
        assert_eq!(
            e,
            TooDeep {
                document: 2,
                line: 4,
                column: 6 + 126
            }
        );
        let dashes = "- ".repeat(1_000_000);
        assert_eq!(scan(&dashes, MAX_DEPTH).unwrap_err().column, 257);
    }

    #[test]
    fn aliases_are_seen_at_token_starts_only() {
        assert!(scan("a: &x 1\nb: *x\n", 9).unwrap().aliases);
        assert!(scan("a: [*x]\n", 9).unwrap().aliases);
        assert!(!scan("a: b*x\nc: '*x'\nd: \"*x\"\n", 9).unwrap().aliases);
    }
}
