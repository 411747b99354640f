//! Tokenizer for the text IR. Every token carries its 1-based line and column.

use super::error::{ParseError, SourcePos};

/// A token kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Bare identifier or keyword (`module`, `onnx.Conv`, `f32`, `seq`).
    Ident(String),
    /// `%name` or `%"quoted name"`.
    ValueRef(String),
    /// `@name` or `@"quoted name"`.
    SymRef(String),
    /// Integer literal (decimal or `0x` hex), as written.
    Int(i128),
    /// Float literal as written (including `inf`, `-inf`, `nan`); parsed at the
    /// precision of its use so printed f32 values round-trip exactly.
    Float(String),
    /// Double-quoted string with escapes resolved.
    Str(String),
    /// Punctuation: `( ) { } [ ] < > , : = * ?` or `->`.
    Punct(&'static str),
    /// End of input.
    Eof,
}

impl Tok {
    /// Human description for error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::ValueRef(s) => format!("value `%{s}`"),
            Tok::SymRef(s) => format!("symbol `@{s}`"),
            Tok::Int(i) => format!("integer {i}"),
            Tok::Float(x) => format!("float {x}"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token with its position.
#[derive(Clone, Debug)]
pub struct Token {
    /// Kind and payload.
    pub tok: Tok,
    /// Where it starts.
    pub pos: SourcePos,
}

const PUNCT: [&str; 13] = ["->", "(", ")", "{", "}", "[", "]", "<", ">", ",", ":", "=", "*"];

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
    file: &'a str,
}

impl Lexer<'_> {
    fn pos(&self) -> SourcePos {
        SourcePos { line: self.line, col: self.col }
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    fn err(&self, pos: SourcePos, msg: impl Into<String>) -> ParseError {
        ParseError { file: self.file.to_owned(), pos, message: msg.into() }
    }
    fn skip_trivia(&mut self) {
        loop {
            match self.chars.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') => {
                    let mut look = self.chars.clone();
                    look.next();
                    if look.peek() == Some(&'/') {
                        while let Some(c) = self.chars.peek() {
                            if *c == '\n' {
                                break;
                            }
                            self.bump();
                        }
                    } else {
                        return;
                    }
                }
                _ => return,
            }
        }
    }
    fn ident(&mut self) -> String {
        let mut s = String::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                s.push(c);
                self.bump();
            } else {
                break;
            }
        }
        s
    }
    fn string(&mut self, start: SourcePos) -> Result<String, ParseError> {
        self.bump(); // opening quote
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(self.err(start, "unterminated string")),
                Some('"') => return Ok(s),
                Some('\\') => {
                    let p = self.pos();
                    match self.bump() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some('"') => s.push('"'),
                        Some('\\') => s.push('\\'),
                        Some('u') => s.push(self.unicode_escape(p)?),
                        _ => return Err(self.err(p, "invalid escape sequence")),
                    }
                }
                Some(c) => s.push(c),
            }
        }
    }
    fn unicode_escape(&mut self, p: SourcePos) -> Result<char, ParseError> {
        if self.bump() != Some('{') {
            return Err(self.err(p, "expected `{` after \\u"));
        }
        let mut hex = String::new();
        loop {
            match self.bump() {
                Some('}') => break,
                Some(c) if c.is_ascii_hexdigit() && hex.len() < 6 => hex.push(c),
                _ => return Err(self.err(p, "invalid \\u{...} escape")),
            }
        }
        u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).ok_or_else(|| self.err(p, "invalid unicode scalar"))
    }
    fn name_after_sigil(&mut self, start: SourcePos) -> Result<String, ParseError> {
        self.bump();
        match self.chars.peek() {
            Some('"') => {
                let p = self.pos();
                self.string(p)
            }
            Some(c) if c.is_ascii_alphanumeric() || *c == '_' => Ok(self.ident()),
            _ => Err(self.err(start, "expected a name after `%` or `@`")),
        }
    }
    fn number(&mut self, start: SourcePos) -> Result<Tok, ParseError> {
        let mut s = String::new();
        if self.chars.peek() == Some(&'-') {
            s.push('-');
            self.bump();
            if self.chars.peek() == Some(&'i') {
                let id = self.ident();
                return if id == "inf" {
                    Ok(Tok::Float("-inf".into()))
                } else {
                    Err(self.err(start, "invalid number"))
                };
            }
        }
        while let Some(&c) = self.chars.peek() {
            let exp_sign = (c == '-' || c == '+') && s.ends_with(['e', 'E']) && !s.contains('x');
            if c.is_ascii_alphanumeric() || c == '.' || exp_sign {
                s.push(c);
                self.bump();
            } else {
                break;
            }
        }
        let body = s.trim_start_matches('-');
        if let Some(hex) = body.strip_prefix("0x") {
            let v = i128::from_str_radix(hex, 16).map_err(|_| self.err(start, format!("invalid hex literal `{s}`")))?;
            return Ok(Tok::Int(if s.starts_with('-') { -v } else { v }));
        }
        if s.contains(['.', 'e', 'E']) {
            return s
                .parse::<f64>()
                .map(|_| Tok::Float(s.clone()))
                .map_err(|_| self.err(start, format!("invalid float literal `{s}`")));
        }
        s.parse::<i128>().map(Tok::Int).map_err(|_| self.err(start, format!("invalid integer literal `{s}`")))
    }
    fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_trivia();
        let pos = self.pos();
        let Some(&c) = self.chars.peek() else {
            return Ok(Token { tok: Tok::Eof, pos });
        };
        let tok = match c {
            '%' => Tok::ValueRef(self.name_after_sigil(pos)?),
            '@' => Tok::SymRef(self.name_after_sigil(pos)?),
            '"' => Tok::Str(self.string(pos)?),
            '?' => {
                self.bump();
                Tok::Punct("?")
            }
            c if c.is_ascii_digit() => self.number(pos)?,
            '-' => {
                let mut look = self.chars.clone();
                look.next();
                match look.peek() {
                    Some('>') => {
                        self.bump();
                        self.bump();
                        Tok::Punct("->")
                    }
                    Some(d) if d.is_ascii_digit() || *d == 'i' => self.number(pos)?,
                    _ => return Err(self.err(pos, "unexpected `-`")),
                }
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let id = self.ident();
                if id == "inf" || id == "nan" {
                    Tok::Float(id)
                } else {
                    Tok::Ident(id)
                }
            }
            _ => {
                let s = c.to_string();
                let Some(p) = PUNCT.iter().find(|p| **p == s) else {
                    return Err(self.err(pos, format!("unexpected character {c:?}")));
                };
                self.bump();
                Tok::Punct(p)
            }
        };
        Ok(Token { tok, pos })
    }
}

/// Split `src` into tokens, ending with [`Tok::Eof`].
pub fn tokenize(src: &str, file: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer { chars: src.chars().peekable(), line: 1, col: 1, file };
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            return Ok(out);
        }
    }
}

/// Parse a float token's text at f32 precision.
pub fn float_f32(s: &str) -> f32 {
    match s {
        "nan" => f32::NAN,
        "inf" => f32::INFINITY,
        "-inf" => f32::NEG_INFINITY,
        _ => s.parse().unwrap_or(f32::NAN),
    }
}

/// Parse a float token's text at f64 precision.
pub fn float_f64(s: &str) -> f64 {
    match s {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or(f64::NAN),
    }
}
