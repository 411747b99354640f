//! Parser from tokens to [`RuleAst`]s. Errors are collected per rule: after a
//! syntax error the parser skips to the next `;` and goes on, so one run
//! reports every broken rule in a file.

use super::syntax::{lex, Arg, AttrPat, Call, Lit, Pat, Pos, Rhs, RuleAst, Tok};

/// Parse a whole file; returns the rules that parsed and every error found.
pub fn parse_file(src: &str) -> (Vec<RuleAst>, Vec<(Pos, String)>) {
    let toks = match lex(src) {
        Ok(t) => t,
        Err(e) => return (vec![], vec![e]),
    };
    let mut p = Parser { toks, i: 0, end: Pos::default() };
    p.end = p.toks.last().map(|(pos, _)| *pos).unwrap_or_default();
    let (mut rules, mut errors) = (vec![], vec![]);
    // The documentation of a rule is the block of comment lines directly above
    // it (no blank line in between); section comments further up are not.
    let mut doc: Vec<(u32, String)> = vec![];
    while let Some((pos, t)) = p.peek() {
        match t {
            Tok::Comment(c) => {
                if doc.last().is_some_and(|(l, _)| *l + 1 != pos.line) {
                    doc.clear();
                }
                doc.push((pos.line, c.clone()));
                p.i += 1;
            }
            _ => {
                let adjacent = doc.last().is_some_and(|(l, _)| *l + 1 == pos.line);
                let d = if adjacent {
                    doc.iter().map(|(_, c)| c.as_str()).collect::<Vec<_>>().join(" ")
                } else {
                    String::new()
                };
                doc.clear();
                match p.rule(d) {
                    Ok(r) => rules.push(r),
                    Err(e) => {
                        errors.push(e);
                        p.skip_past_semicolon();
                    }
                }
            }
        }
    }
    (rules, errors)
}

struct Parser {
    toks: Vec<(Pos, Tok)>,
    i: usize,
    end: Pos,
}

type PResult<T> = Result<T, (Pos, String)>;

impl Parser {
    /// The next non-comment token (comments inside a rule are skipped).
    fn peek(&self) -> Option<&(Pos, Tok)> {
        self.toks.get(self.i)
    }
    fn skip_comments(&mut self) {
        while matches!(self.peek(), Some((_, Tok::Comment(_)))) {
            self.i += 1;
        }
    }
    fn next(&mut self) -> PResult<(Pos, Tok)> {
        self.skip_comments();
        let t = self.toks.get(self.i).cloned().ok_or((self.end, "unexpected end of file (missing `;`?)".to_owned()))?;
        self.i += 1;
        Ok(t)
    }
    fn look(&mut self) -> Option<&Tok> {
        self.skip_comments();
        self.toks.get(self.i).map(|(_, t)| t)
    }
    fn expect(&mut self, p: &'static str) -> PResult<Pos> {
        let (pos, t) = self.next()?;
        if t == Tok::Punct(p) {
            Ok(pos)
        } else {
            Err((pos, format!("expected `{p}`, found {t}")))
        }
    }
    fn eat(&mut self, p: &'static str) -> bool {
        if self.look() == Some(&Tok::Punct(p)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn skip_past_semicolon(&mut self) {
        while let Some((_, t)) = self.toks.get(self.i) {
            self.i += 1;
            if *t == Tok::Punct(";") {
                return;
            }
        }
    }

    fn rule(&mut self, doc: String) -> PResult<RuleAst> {
        let (mut pos, mut t) = self.next()?;
        let approximate = t == Tok::Word("approximate".into());
        if approximate {
            (pos, t) = self.next()?;
        }
        if t != Tok::Word("rule".into()) {
            return Err((pos, format!("expected `rule`, found {t}")));
        }
        let name = match self.next()? {
            (_, Tok::Word(w)) => w,
            (p, t) => return Err((p, format!("expected a rule name, found {t}"))),
        };
        self.expect(":")?;
        let lhs = self.pattern()?;
        self.expect("=>")?;
        let rhs = match self.look() {
            Some(Tok::Applier(_)) => Rhs::Applier(self.call(false)?),
            _ => Rhs::Pat(self.pattern()?),
        };
        let mut conds = vec![];
        if self.look() == Some(&Tok::Word("if".into())) {
            self.i += 1;
            loop {
                let negated = self.eat("!");
                conds.push(self.call(negated)?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(";")?;
        Ok(RuleAst { pos, name, doc, lhs, rhs, conds, approximate })
    }

    fn pattern(&mut self) -> PResult<Pat> {
        match self.next()? {
            (p, Tok::Var(v)) => Ok(Pat::Var(p, v)),
            (p, Tok::Word(w)) if w == "_" => Ok(Pat::Wild(p)),
            (p, Tok::Word(w)) if w == "none" => Ok(Pat::Absent(p)),
            (_, Tok::Punct("(")) => {
                let (pos, op) = match self.next()? {
                    (p, Tok::Word(w)) => (p, w),
                    (p, t) => return Err((p, format!("expected an op name after `(`, found {t}"))),
                };
                let mut args = vec![];
                let mut attrs = AttrPat::Omitted;
                loop {
                    match self.look() {
                        Some(Tok::Punct(")")) => {
                            self.i += 1;
                            return Ok(Pat::Op { pos, op, args, attrs });
                        }
                        Some(Tok::Punct("{")) => attrs = self.attrs()?,
                        _ => args.push(self.pattern()?),
                    }
                }
            }
            (p, t) => Err((p, format!("expected a pattern (`?var`, `_`, `none` or `(op ...)`), found {t}"))),
        }
    }

    fn attrs(&mut self) -> PResult<AttrPat> {
        self.expect("{")?;
        if let Some(Tok::Var(_)) = self.look() {
            let (p, t) = self.next()?;
            let Tok::Var(v) = t else { unreachable!() };
            self.expect("}")?;
            return Ok(AttrPat::Var(p, v));
        }
        let mut lits = vec![];
        while !self.eat("}") {
            let (p, key) = match self.next()? {
                (p, Tok::Word(w)) => (p, w),
                (p, t) => return Err((p, format!("expected an attribute name, found {t}"))),
            };
            self.expect("=")?;
            lits.push((p, key, self.literal()?));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(AttrPat::Lits(lits))
    }

    fn literal(&mut self) -> PResult<Lit> {
        match self.next()? {
            (_, Tok::Int(i)) => Ok(Lit::Int(i)),
            (_, Tok::Float(x)) => Ok(Lit::Float(x)),
            (_, Tok::Str(s)) => Ok(Lit::Str(s)),
            (_, Tok::Punct("[")) => {
                let mut v = vec![];
                while !self.eat("]") {
                    v.push(self.literal()?);
                    if !self.eat(",") {
                        self.expect("]")?;
                        break;
                    }
                }
                Ok(Lit::List(v))
            }
            (p, t) => Err((p, format!("expected a literal, found {t}"))),
        }
    }

    fn call(&mut self, negated: bool) -> PResult<Call> {
        let (pos, name) = match self.next()? {
            (p, Tok::Word(w)) | (p, Tok::Applier(w)) => (p, w),
            (p, t) => return Err((p, format!("expected a condition name, found {t}"))),
        };
        self.expect("(")?;
        let mut args = vec![];
        while !self.eat(")") {
            let arg = match self.look() {
                Some(Tok::Var(_)) | Some(Tok::Word(_)) => match self.next()? {
                    (p, Tok::Var(v)) => Arg::Var(p, v),
                    (p, Tok::Word(w)) => Arg::Word(p, w),
                    _ => unreachable!(),
                },
                _ => {
                    let p = self.toks.get(self.i).map(|(p, _)| *p).unwrap_or(self.end);
                    Arg::Lit(p, self.literal()?)
                }
            };
            args.push(arg);
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok(Call { pos, name, args, negated })
    }
}
