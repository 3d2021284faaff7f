//! A small JSON parser that remembers the line of every value, so that
//! readers can name the line of a semantically invalid ranking (serde_json's
//! `Value` keeps no positions). Nesting is capped to keep arbitrary input
//! from exhausting the stack.

/// Maximum nesting depth accepted.
pub const MAX_DEPTH: usize = 64;

/// A JSON value with the 1-based line where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    /// Line of the value's first character.
    pub line: usize,
    /// The value.
    pub value: JValue,
}

/// JSON value tree.
#[derive(Debug, Clone, PartialEq)]
pub enum JValue {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// Any number, with its source text (to tell integers apart).
    Number(f64, String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Spanned>),
    /// An object (key order kept).
    Object(Vec<(String, Spanned)>),
}

impl JValue {
    /// Short name of the value's type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            JValue::Null => "null",
            JValue::Bool(_) => "a boolean",
            JValue::Number(..) => "a number",
            JValue::String(_) => "a string",
            JValue::Array(_) => "an array",
            JValue::Object(_) => "an object",
        }
    }
}

/// Parse error: line and message.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

/// Parse a whole document.
pub fn parse(text: &str) -> Result<Spanned, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    p.ws();
    if p.pos >= p.s.len() {
        return Err(p.err("empty JSON document"));
    }
    let v = p.value(0)?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(p.err("unexpected trailing characters after the JSON value"));
    }
    strict_check(text)?;
    Ok(v)
}

/// RFC 8259 conformance by `serde_json` (leading zeros as in `[01]`, `1.`,
/// `1.e3`, control characters in strings, lone surrogates are refused
/// with line and column), plus a refusal of duplicate object keys, which
/// JSON leaves undefined and a reader would otherwise resolve silently.
/// The positional parser above keeps the line of every value for the
/// readers' semantic messages; this pass decides what is JSON.
fn strict_check(text: &str) -> Result<(), ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let r = serde::Deserialize::deserialize(&mut de).and_then(|Strict| de.end());
    r.map_err(|e| {
        let full = e.to_string();
        // serde_json appends " at line L column C"; keep the column.
        let msg = match full.rfind(" at line ") {
            Some(i) => format!("invalid JSON: {} (column {})", &full[..i], e.column()),
            None => format!("invalid JSON: {full}"),
        };
        ParseError {
            line: e.line().max(1),
            msg,
        }
    })
}

/// Any JSON value, refusing duplicate keys in objects.
struct Strict;

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        while seq.next_element::<Strict>()?.is_some() {}
        Ok(Strict)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !seen.insert(k.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key {k:?} in an object"
                )));
            }
            map.next_value::<Strict>()?;
        }
        Ok(Strict)
    }
}

impl Parser<'_> {
    fn err(&self, msg: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            msg: msg.into(),
        }
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                _ => break,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Spanned, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err(format!("JSON nested deeper than {MAX_DEPTH} levels")));
        }
        let line = self.line;
        let value = match self.peek() {
            None => return Err(self.err("unexpected end of JSON")),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or ']' in array")),
                        }
                    }
                }
                JValue::Array(items)
            }
            Some(b'{') => {
                self.pos += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek() != Some(b'"') {
                            return Err(self.err("expected a string key in object"));
                        }
                        let k = self.string()?;
                        if fields.iter().any(|(f, _): &(String, Spanned)| *f == k) {
                            return Err(self.err(format!("duplicate key {k:?} in object")));
                        }
                        self.ws();
                        if self.peek() != Some(b':') {
                            return Err(self.err("expected ':' after object key"));
                        }
                        self.pos += 1;
                        self.ws();
                        let v = self.value(depth + 1)?;
                        fields.push((k, v));
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or '}' in object")),
                        }
                    }
                }
                JValue::Object(fields)
            }
            Some(b'"') => JValue::String(self.string()?),
            Some(b't') => self.keyword("true", JValue::Bool(true))?,
            Some(b'f') => self.keyword("false", JValue::Bool(false))?,
            Some(b'n') => self.keyword("null", JValue::Null)?,
            Some(c) if c == b'-' || c.is_ascii_digit() => self.number()?,
            Some(c) => {
                return Err(self.err(format!("unexpected character {:?} in JSON", char::from(c))));
            }
        };
        Ok(Spanned { line, value })
    }

    fn keyword(&mut self, word: &str, v: JValue) -> Result<JValue, ParseError> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal in JSON"))
        }
    }

    fn number(&mut self) -> Result<JValue, ParseError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        if !is_json_number(text) {
            return Err(self.err(format!(
                "invalid number {text:?} (JSON numbers have no leading zeros and need digits after '.' and 'e')"
            )));
        }
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(JValue::Number(x, text.to_string())),
            _ => Err(self.err(format!("invalid number {text:?}"))),
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => return Err(self.err("newline inside a string")),
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("unterminated escape"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let cp = self.hex4()?;
                            let ch = if (0xD800..0xDC00).contains(&cp) {
                                if self.s[self.pos..].starts_with(b"\\u") {
                                    self.pos += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err(self.err("invalid surrogate pair"));
                                    }
                                    char::from_u32(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00))
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(cp)
                            };
                            let Some(ch) = ch else {
                                return Err(self.err("invalid \\u escape"));
                            };
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(self.err("invalid escape in string")),
                    }
                }
                c if c < 0x20 => return Err(self.err("control character inside a string")),
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err("string is not valid UTF-8"))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        if self.pos + 4 > self.s.len() {
            return Err(self.err("truncated \\u escape"));
        }
        let h = std::str::from_utf8(&self.s[self.pos..self.pos + 4]).unwrap_or("zzzz");
        let v = u32::from_str_radix(h, 16).map_err(|_| self.err("invalid \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }
}

/// The JSON number grammar (RFC 8259 §6):
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_with_lines() {
        let v = parse("[\n [1, [2,3]],\n {\"a\": \"x\\u00e9\"}\n]").unwrap();
        let JValue::Array(a) = v.value else { panic!() };
        assert_eq!(a[0].line, 2);
        assert_eq!(a[1].line, 3);
        let JValue::Object(o) = &a[1].value else {
            panic!()
        };
        assert_eq!(o[0].1.value, JValue::String("xé".into()));
    }

    #[test]
    fn rejects_bad() {
        for s in [
            "",
            "[",
            "[1,]",
            "{\"a\" 1}",
            "[1 2]",
            "\"abc",
            "[1e999]",
            "nul",
            "[01x]",
            "[01]",
            "[1.]",
            "[1.e3]",
            "[.5]",
            "[-]",
            "[1e]",
            "[+1]",
            "{\"a\": 1, \"a\": 2}",
        ] {
            assert!(parse(s).is_err(), "{s}");
        }
        for s in [
            "[0]",
            "[-0.5]",
            "[1e3]",
            "[1E-3]",
            "[2.50e+2]",
            "{\"a\": 1, \"b\": 2}",
        ] {
            assert!(parse(s).is_ok(), "{s}");
        }
        let deep = "[".repeat(1000);
        assert!(parse(&deep).is_err());
    }
}

#[cfg(test)]
mod strict_tests {
    use super::*;

    #[test]
    fn invalid_json_is_refused_with_its_line() {
        for (text, line, frag) in [
            ("[01]", 1, "number"),
            ("[\n[1.]]", 2, "number"),
            ("[1.e3]", 1, "number"),
            ("[\"a\u{1}\"]", 1, "control"),
            ("{\"a\": 1,\n \"a\": 2}", 2, "duplicate key \"a\""),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e:?}");
            assert!(e.msg.contains(frag), "{text}: {e:?}");
        }
        assert!(parse("[1.5e3, -0, 0.25, {\"a\": [1], \"b\": null}]").is_ok());
    }
}
