//! A fast reader for JSON, giving exactly the tree serde_json gives through
//! [`Value`]'s `Deserialize`, or nothing.
//!
//! Profiled on the 5,000-node / 150,000-pod dump (63 MB of compact JSON):
//! reading it through serde_json's visitor was a fifth of the import, most of
//! it the allocator: every mapping and list grew its vector by doubling,
//! copying its entries each time. This reader gathers a collection's entries
//! on one scratch stack per kind and moves them into a vector of the exact
//! length when the collection closes, and copies a string without escapes
//! straight from the input.
//!
//! It reads a stream of objects and arrays (what kubectl prints: one object,
//! a `kind: List`, or several values in a row) and gives up on anything else:
//! a scalar at the top, nesting past [`MAX_DEPTH`], a duplicate key, a string
//! with a control character or an escape it does not decode alike, a number
//! other than a plain non-negative integer that serde_json itself refuses, a
//! syntax error, more than `max_documents` values. On giving up the caller
//! reads the whole text with serde_json, so every error keeps its wording,
//! line and column. Numbers other than plain non-negative integers are read
//! by serde_json from their own text (floats keep its rounding, integers past
//! 64 bits become floats as it makes them). The tests below hold it to
//! serde_json on hand-picked and on generated texts.

use std::collections::HashSet;

use crate::value::Value;

/// Deeper than this, serde_json decides (its own limit is 128).
const MAX_DEPTH: usize = 100;

/// The bytes that end a run of a string's plain characters: the quote, the
/// backslash and the control characters (which serde_json refuses).
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The values of a JSON text (whitespace between them), or `None` when
/// serde_json must read it (see the module's notes).
pub(crate) fn documents(text: &str, max_documents: usize) -> Option<Vec<Value>> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
        entries: Vec::new(),
        items: Vec::new(),
    };
    let mut docs = Vec::new();
    loop {
        r.space();
        match r.peek() {
            None => return Some(docs),
            Some(b'{' | b'[') => {}
            Some(_) => return None,
        }
        if docs.len() >= max_documents {
            return None;
        }
        docs.push(r.value()?);
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth: usize,
    /// The entries of the mappings being read, innermost last.
    entries: Vec<(String, Value)>,
    /// The items of the lists being read, innermost last.
    items: Vec<Value>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// JSON's whitespace, as serde_json skips it.
    fn space(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Option<Value> {
        match self.peek()? {
            b'{' => self.map(),
            b'[' => self.seq(),
            b'"' => self.string().map(Value::Str),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn word(&mut self, w: &str, v: Value) -> Option<Value> {
        if self.bytes[self.at..].starts_with(w.as_bytes()) {
            self.at += w.len();
            Some(v)
        } else {
            None
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.peek() {
            self.at += 1;
        }
        let t = &self.text[start..self.at];
        let b = t.as_bytes();
        // Up to 19 digits always fit in 64 bits; serde_json gives a
        // non-negative integer as a u64.
        if b.len() <= 19 && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1) {
            return t.parse().ok().map(Value::UInt);
        }
        // The rest as serde_json reads that text (it is followed by a
        // delimiter here, as the caller checks).
        serde_json::from_str::<Value>(t).ok()
    }

    /// How far from `self.at` the next quote, backslash or control
    /// character is (one table look-up a byte).
    fn plain_run(&self) -> Option<usize> {
        self.bytes[self.at..].iter().position(|&b| STOP[b as usize])
    }

    fn string(&mut self) -> Option<String> {
        self.at += 1; // the opening quote
        let start = self.at;
        self.at += self.plain_run()?;
        match self.bytes[self.at] {
            b'"' => {
                let s = self.text[start..self.at].to_owned();
                self.at += 1;
                return Some(s);
            }
            b'\\' => {}
            _ => return None,
        }
        // Escapes: decoded into a copy.
        let mut s = String::with_capacity(self.at - start + 16);
        s.push_str(&self.text[start..self.at]);
        loop {
            let run = self.at;
            self.at += self.plain_run()?;
            if self.bytes[self.at] < 0x20 {
                return None;
            }
            s.push_str(&self.text[run..self.at]);
            if self.bytes[self.at] == b'"' {
                self.at += 1;
                return Some(s);
            }
            self.at += 1; // the backslash
            let c = match *self.bytes.get(self.at)? {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = self.hex4(self.at + 1)?;
                    self.at += 4;
                    match hi {
                        0xD800..=0xDBFF => {
                            // A surrogate pair, else serde_json's error.
                            if self.bytes.get(self.at + 1..self.at + 3) != Some(b"\\u") {
                                return None;
                            }
                            let lo = self.hex4(self.at + 3)?;
                            if !(0xDC00..=0xDFFF).contains(&lo) {
                                return None;
                            }
                            self.at += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                        }
                        0xDC00..=0xDFFF => return None,
                        _ => char::from_u32(hi)?,
                    }
                }
                _ => return None,
            };
            s.push(c);
            self.at += 1;
        }
    }

    /// The four hex digits at `i`.
    fn hex4(&self, i: usize) -> Option<u32> {
        let h = self.bytes.get(i..i + 4)?;
        let mut n = 0u32;
        for &c in h {
            n = n * 16 + (c as char).to_digit(16)?;
        }
        Some(n)
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        self.at += 1; // `{` or `[`
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn map(&mut self) -> Option<Value> {
        self.enter()?;
        let start = self.entries.len();
        // Keys seen, once the mapping has more than 16 (as value.rs).
        let mut seen: Option<HashSet<String>> = None;
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
        } else {
            loop {
                self.space();
                if self.peek() != Some(b'"') {
                    return None;
                }
                let k = self.string()?;
                let dup = match &mut seen {
                    Some(set) => !set.insert(k.clone()),
                    None => {
                        let mine = &self.entries[start..];
                        let d = mine.iter().any(|(s, _)| *s == k);
                        if mine.len() >= 16 {
                            let mut set: HashSet<String> =
                                mine.iter().map(|(s, _)| s.clone()).collect();
                            set.insert(k.clone());
                            seen = Some(set);
                        }
                        d
                    }
                };
                if dup {
                    return None;
                }
                self.space();
                if self.peek() != Some(b':') {
                    return None;
                }
                self.at += 1;
                self.space();
                let v = self.value()?;
                self.entries.push((k, v));
                self.space();
                match self.peek()? {
                    b',' => self.at += 1,
                    b'}' => {
                        self.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(Value::Map(self.entries.drain(start..).collect()))
    }

    fn seq(&mut self) -> Option<Value> {
        self.enter()?;
        let start = self.items.len();
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
        } else {
            loop {
                self.space();
                let v = self.value()?;
                self.items.push(v);
                self.space();
                match self.peek()? {
                    b',' => self.at += 1,
                    b']' => {
                        self.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(Value::Seq(self.items.drain(start..).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json makes of `text` as read.rs reads it, values or error.
    fn serde(text: &str) -> Result<Vec<Value>, String> {
        serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .map(|v| v.map_err(|e| e.to_string()))
            .collect()
    }

    /// The fast reader agrees with serde_json whenever it answers.
    fn agrees(text: &str) -> bool {
        match documents(text, usize::MAX) {
            Some(v) => {
                assert_eq!(Ok(v), serde(text), "{text:?}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn it_reads_what_serde_json_reads() {
        for t in [
            "{}",
            "[]",
            " {\"a\":1}\n",
            "{\"a\": {\"b\": [1, 2, {\"c\": null}]}, \"d\": true, \"e\": false}",
            "{\"a\":1}{\"b\":2}",
            "{\"a\":1} [2]\r\n\t{}",
            "[0, 7, 1234567890123456789, 18446744073709551615, 18446744073709551616]",
            "[-0, -1, -9223372036854775808, -9223372036854775809, 1.5, 1e3, 1E-2, 2.5e+10, 0.1]",
            "{\"s\": \"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"}",
            "{\"u\": \"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\\u0000x\"}",
            "{\"unicode\": \"héllo wörld ✓ 😀\"}",
            "{\"a\": [[], {}, [[]], {\"x\": {}}]}",
            "[\"\", \"\\\"\"]",
        ] {
            assert!(agrees(t), "the fast reader gave up on {t:?}");
        }
    }

    #[test]
    fn it_gives_up_where_serde_json_decides() {
        assert!(agrees("") && agrees(" \n"));
        for t in [
            "[1e400]",
            "1",
            "\"a\"",
            "null",
            "{\"a\":1,\"a\":2}",
            "{\"a\":1,}",
            "[1,]",
            "{\"a\" 1}",
            "{a:1}",
            "[01]",
            "[1.]",
            "[+1]",
            "[1-2]",
            "[tru]",
            "[\"\\ud800\"]",
            "[\"\\udc00\"]",
            "[\"\\ud800\\u0041\"]",
            "[\"\\x\"]",
            "[\"a\u{1}b\"]",
            "[\"abc",
            "{\"a\":1}x",
            "{\"a\":1} 2",
            "[1 2]",
            "[",
        ] {
            assert_eq!(documents(t, usize::MAX), None, "{t:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(documents(&deep, usize::MAX), None);
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(agrees(&ok));
        // More values than allowed: serde_json's path reports it.
        assert_eq!(documents("{}{}{}", 2), None);
        assert_eq!(documents("{}{}", 2).map(|d| d.len()), Some(2));
        // A mapping past 16 keys checks duplicates through a set.
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        assert!(agrees(&format!("{{{}}}", keys.join(","))));
        let dup = format!("{{{},\"k3\":0}}", keys.join(","));
        assert_eq!(documents(&dup, usize::MAX), None);
    }

    /// Generated texts and their mutations: wherever the fast reader answers,
    /// it answers as serde_json does; where serde_json reads a plain text
    /// (no top-level scalar, shallow), the fast reader reads it too.
    #[test]
    fn generated_texts_read_as_serde_json_reads_them() {
        let seed = std::env::var("SHEPHERD_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_45u64);
        let n: usize = std::env::var("SHEPHERD_FUZZ_OPS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2000);
        println!("json_fast generated: seed {seed}, {n} texts (SHEPHERD_SEED, SHEPHERD_FUZZ_OPS)");
        let mut rng = shepherd::simulator::Prng::new(seed);
        let mut answered = 0;
        for _ in 0..n {
            let mut t = String::new();
            for _ in 0..1 + rng.below(3) {
                gen(&mut rng, &mut t, 0, true);
                t.push_str([" ", "\n", "", "\t"][rng.below(4) as usize]);
            }
            assert!(agrees(&t), "gave up on a generated text {t:?}");
            answered += 1;
            // A mutation: one byte replaced, removed or repeated.
            let mut b = t.clone().into_bytes();
            let i = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => {
                    const BYTES: &[u8] = b"{}[]\",:\\ 0-e.tnu\x01";
                    b[i] = BYTES[rng.below(BYTES.len() as u64) as usize]
                }
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b[i]),
            }
            if let Ok(m) = String::from_utf8(b) {
                agrees(&m);
            }
        }
        assert_eq!(answered, n);
    }

    fn gen(rng: &mut shepherd::simulator::Prng, out: &mut String, depth: usize, top: bool) {
        let pick = if top {
            rng.below(2)
        } else if depth > 5 {
            2 + rng.below(6)
        } else {
            rng.below(8)
        };
        match pick {
            0 => {
                out.push('{');
                let n = rng.below(5);
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    // Distinct keys: the index is part of each.
                    out.push_str(&format!("\"k{i}{}\"", word(rng)));
                    out.push_str([":", " : ", ":\n"][rng.below(3) as usize]);
                    gen(rng, out, depth + 1, false);
                }
                out.push('}');
            }
            1 => {
                out.push('[');
                let n = rng.below(5);
                for i in 0..n {
                    if i > 0 {
                        out.push_str([",", ", ", " ,\r\n"][rng.below(3) as usize]);
                    }
                    gen(rng, out, depth + 1, false);
                }
                out.push(']');
            }
            2 | 3 => out.push_str(&format!("\"{}\"", word(rng))),
            4 => out.push_str(
                [
                    "0",
                    "12",
                    "-3",
                    "4.25",
                    "1e2",
                    "-0.5E-3",
                    "18446744073709551615",
                    "99999999999999999999",
                    "-9223372036854775809",
                    "1e300",
                    "0.1",
                ][rng.below(11) as usize],
            ),
            5 => out.push_str(&rng.below(u64::MAX).to_string()),
            6 => out.push_str(["true", "false", "null"][rng.below(3) as usize]),
            _ => out.push_str(&format!("\"{}\\n{}\"", word(rng), word(rng))),
        }
    }

    fn word(rng: &mut shepherd::simulator::Prng) -> String {
        const PARTS: &[&str] = &[
            "a",
            "name",
            "app-0",
            "é",
            "✓",
            "😀",
            "\\\"",
            "\\\\",
            "\\/",
            "\\t",
            "\\u0041",
            "\\u00e9",
            "\\ud83d\\ude00",
            "100m",
            "128Mi",
            " ",
            "",
        ];
        (0..rng.below(4))
            .map(|_| PARTS[rng.below(PARTS.len() as u64) as usize])
            .collect()
    }
}
