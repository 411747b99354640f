//! The rule-file syntax: tokens and the untyped syntax tree, with positions.
//!
//! ```text
//! file    := rule*
//! rule    := comment+ 'approximate'? 'rule' NAME ':' pattern '=>' rhs ('if' cond (',' cond)*)? ';'
//! pattern := '?'var | '_' | 'none' | '(' OP pattern* attrs? ')'
//! attrs   := '{' '?'var '}' | '{' (KEY '=' literal (',' KEY '=' literal)*)? '}'
//! rhs     := pattern | '@'APPLIER '(' args? ')'
//! cond    := '!'? NAME '(' args? ')'
//! arg     := '?'var | literal | WORD
//! literal := INT | FLOAT | STRING | '[' literal (',' literal)* ']'
//! ```
//! `#` starts a comment that runs to the end of the line; the comment lines
//! directly above `rule` are the rule's documentation.

use std::fmt;

/// A position in a rule file (1-based).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line.
    pub line: u32,
    /// Column.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `?name`.
    Var(String),
    /// `@name`.
    Applier(String),
    /// A bare word: rule/op/condition names, keywords.
    Word(String),
    /// Integer literal.
    Int(i64),
    /// Float literal.
    Float(f64),
    /// String literal.
    Str(String),
    /// A comment line's text (without `#`).
    Comment(String),
    /// Punctuation: `( ) { } [ ] , : ; = !` or `=>`.
    Punct(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Var(v) => write!(f, "`?{v}`"),
            Tok::Applier(v) => write!(f, "`@{v}`"),
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Int(i) => write!(f, "`{i}`"),
            Tok::Float(x) => write!(f, "`{x}`"),
            Tok::Str(s) => write!(f, "\"{s}\""),
            Tok::Comment(_) => f.write_str("a comment"),
            Tok::Punct(p) => write!(f, "`{p}`"),
        }
    }
}

/// Split a rule file into positioned tokens.
pub fn lex(src: &str) -> Result<Vec<(Pos, Tok)>, (Pos, String)> {
    let mut out = Vec::new();
    for (li, line) in src.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let pos = Pos { line: li as u32 + 1, col: i as u32 + 1 };
            let c = chars[i];
            let word_end = |from: usize| {
                let mut j = from;
                while j < chars.len() && (chars[j].is_alphanumeric() || "_.-".contains(chars[j])) {
                    j += 1;
                }
                j
            };
            if c.is_whitespace() {
                i += 1;
            } else if c == '#' {
                out.push((pos, Tok::Comment(chars[i + 1..].iter().collect::<String>().trim().to_owned())));
                break;
            } else if c == '=' && chars.get(i + 1) == Some(&'>') {
                out.push((pos, Tok::Punct("=>")));
                i += 2;
            } else if let Some(p) =
                ["(", ")", "{", "}", "[", "]", ",", ":", ";", "=", "!"].iter().find(|p| p.starts_with(c))
            {
                out.push((pos, Tok::Punct(p)));
                i += 1;
            } else if c == '?' || c == '@' {
                let j = word_end(i + 1);
                if j == i + 1 {
                    return Err((pos, format!("`{c}` must be followed by a name")));
                }
                let name: String = chars[i + 1..j].iter().collect();
                out.push((pos, if c == '?' { Tok::Var(name) } else { Tok::Applier(name) }));
                i = j;
            } else if c == '"' {
                let end =
                    chars[i + 1..].iter().position(|&x| x == '"').ok_or((pos, "unterminated string".to_owned()))?;
                out.push((pos, Tok::Str(chars[i + 1..i + 1 + end].iter().collect())));
                i += end + 2;
            } else if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
                let mut j = i + 1;
                while j < chars.len() && (chars[j].is_ascii_alphanumeric() || ".+-".contains(chars[j])) {
                    if "+-".contains(chars[j]) && !"eE".contains(chars[j - 1]) {
                        break;
                    }
                    j += 1;
                }
                let text: String = chars[i..j].iter().collect();
                let tok = if let Ok(v) = text.parse::<i64>() {
                    Tok::Int(v)
                } else if let Ok(v) = text.parse::<f64>() {
                    Tok::Float(v)
                } else {
                    return Err((pos, format!("malformed number `{text}`")));
                };
                out.push((pos, tok));
                i = j;
            } else if c.is_alphabetic() || c == '_' {
                let j = word_end(i);
                out.push((pos, Tok::Word(chars[i..j].iter().collect())));
                i = j;
            } else {
                return Err((pos, format!("unexpected character `{c}`")));
            }
        }
    }
    Ok(out)
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// String.
    Str(String),
    /// List.
    List(Vec<Lit>),
}

/// A pattern (both sides of a rule).
#[derive(Clone, Debug)]
pub enum Pat {
    /// `?x`.
    Var(Pos, String),
    /// `_`.
    Wild(Pos),
    /// `none`: an omitted optional operand.
    Absent(Pos),
    /// `(op args {attrs})`.
    Op {
        /// Position of the op name.
        pos: Pos,
        /// Op name.
        op: String,
        /// Operand patterns.
        args: Vec<Pat>,
        /// Attributes.
        attrs: AttrPat,
    },
}

/// The attributes of an op pattern.
#[derive(Clone, Debug)]
pub enum AttrPat {
    /// Not written: any attributes on the left, none on the right.
    Omitted,
    /// `{?a}`: bound to (or copied from) a variable.
    Var(Pos, String),
    /// `{k = v, ...}`: exactly these attributes.
    Lits(Vec<(Pos, String, Lit)>),
}

/// An argument of a condition or applier.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A pattern variable.
    Var(Pos, String),
    /// A literal.
    Lit(Pos, Lit),
    /// A bare word (an op name, an activation...).
    Word(Pos, String),
}

/// A call of a named Rust function: condition (possibly negated) or applier.
#[derive(Clone, Debug)]
pub struct Call {
    /// Position of the name.
    pub pos: Pos,
    /// Name.
    pub name: String,
    /// Arguments.
    pub args: Vec<Arg>,
    /// `!cond(...)`.
    pub negated: bool,
}

/// The right-hand side.
#[derive(Clone, Debug)]
pub enum Rhs {
    /// A pattern to instantiate.
    Pat(Pat),
    /// A named Rust applier.
    Applier(Call),
}

/// One parsed rule.
#[derive(Clone, Debug)]
pub struct RuleAst {
    /// Position of `rule`.
    pub pos: Pos,
    /// Name.
    pub name: String,
    /// Documentation (the comment block above).
    pub doc: String,
    /// Left-hand side.
    pub lhs: Pat,
    /// Right-hand side.
    pub rhs: Rhs,
    /// Conditions, all of which must hold.
    pub conds: Vec<Call>,
    /// Marked `approximate`: the right side is not exactly equal to the left.
    pub approximate: bool,
}
