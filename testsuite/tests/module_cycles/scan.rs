//! The reference scanner of `module_cycles`: a small Rust tokenizer (comments,
//! string and char literals dropped) and the module paths a file names through
//! `crate::`, `super::`, `self::` and `use` trees.

// ---------------------------------------------------------------------------
// Tokenizer: identifiers, `::` and single punctuation characters, with line
// numbers; comments, string/char literals, lifetimes and numbers are dropped.

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier or keyword (`r#name` without its prefix).
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
}

/// Whether `c` starts an identifier.
pub fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` continues an identifier.
pub fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Skips a (possibly raw) string literal starting at `i` (the opening quote
/// or the `#`s of a raw string); returns the index after it and counts lines.
pub fn skip_string(s: &[char], mut i: usize, raw: bool, line: &mut usize) -> usize {
    let mut hashes = 0;
    if raw {
        while i < s.len() && s[i] == '#' {
            hashes += 1;
            i += 1;
        }
    }
    i += 1; // opening quote
    while i < s.len() {
        match s[i] {
            '\n' => *line += 1,
            '\\' if !raw => {
                if s.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 1;
            }
            '"' => {
                let closes = (1..=hashes).all(|k| s.get(i + k) == Some(&'#'));
                if closes {
                    return i + 1 + hashes;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Tokens of `src` with their 1-based lines.
pub fn tokenize(src: &str) -> Vec<(Tok, usize)> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&s, i, false, &mut line);
        } else if c == '\'' {
            // Char literal ('a', '\n', '\u{1F}') or lifetime / label ('a).
            if next == Some('\\') {
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let at = s.get(i).copied();
            let mut after_hashes = i;
            while s.get(after_hashes) == Some(&'#') {
                after_hashes += 1;
            }
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && s.get(after_hashes) == Some(&'"') {
                i = skip_string(&s, i, true, &mut line);
            } else if word == "r" && at == Some('#') && s.get(i + 1).is_some_and(|&c| is_ident_start(c)) {
                // Raw identifier r#name.
                let start = i + 1;
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
                out.push((Tok::Ident(s[start..i].iter().collect()), line));
            } else if matches!(word.as_str(), "b" | "c") && at == Some('"') {
                i = skip_string(&s, i, false, &mut line);
            } else if word == "b" && at == Some('\'') {
                // Byte char b'x': the char literal branch skips the rest.
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else if c == ':' && next == Some(':') {
            out.push((Tok::PathSep, line));
            i += 2;
        } else if c == '$' && s[i + 1..].starts_with(&['c', 'r', 'a', 't', 'e']) {
            // `$crate` in macro bodies means this crate.
            i += 1;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// References: every absolute module path (relative to the crate root) that a
// file names through `crate::`, `super::` or `self::`, with its line.

/// What one file says about modules.
#[derive(Debug, Default)]
pub struct FileRefs {
    /// Absolute paths referred to, with the line of each reference.
    pub refs: Vec<(Vec<String>, usize)>,
    /// Absolute module paths declared as `#[cfg(test)] mod tests;` (out of line).
    pub test_mods: Vec<Vec<String>>,
}

/// The identifier at `i`, if any.
pub fn ident(toks: &[(Tok, usize)], i: usize) -> Option<&str> {
    match toks.get(i) {
        Some((Tok::Ident(w), _)) => Some(w.as_str()),
        _ => None,
    }
}

/// Whether the token at `i` is the punctuation `c`.
pub fn punct(toks: &[(Tok, usize)], i: usize, c: char) -> bool {
    matches!(toks.get(i), Some((Tok::Punct(p), _)) if *p == c)
}

/// Whether the token at `i` is `::`.
pub fn path_sep(toks: &[(Tok, usize)], i: usize) -> bool {
    matches!(toks.get(i), Some((Tok::PathSep, _)))
}

/// Index just after the bracket group that opens at `i` (`{`, `[` or `(`).
pub fn skip_group(toks: &[(Tok, usize)], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        if let Tok::Punct(c) = toks[i].0 {
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    i
}

/// Resolves a path written in module `module` to an absolute path, if it
/// starts with `crate`, `super` or `self` (other paths are relative to the
/// current module or name other crates, and cannot reach a sibling).
pub fn resolve(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut base, rest) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "super" | "self" => (module.to_vec(), path),
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    while let Some(seg) = rest.peek() {
        match seg.as_str() {
            "super" => {
                base.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest.next();
    }
    base.extend(rest.cloned());
    Some(base)
}

/// Expands a `use` tree starting at `i` under `prefix` into full paths;
/// returns the index after the tree.
pub fn use_tree(toks: &[(Tok, usize)], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    if path_sep(toks, i) {
        i += 1;
    }
    loop {
        if punct(toks, i, '{') {
            i += 1;
            while i < toks.len() && !punct(toks, i, '}') {
                i = use_tree(toks, i, path.clone(), out);
                if punct(toks, i, ',') {
                    i += 1;
                } else if !punct(toks, i, '}') {
                    break; // malformed; give up on this group
                }
            }
            return i + 1;
        }
        if punct(toks, i, '*') {
            out.push(path);
            return i + 1;
        }
        match ident(toks, i) {
            Some(w) => {
                path.push(w.to_string());
                i += 1;
            }
            None => {
                out.push(path);
                return i;
            }
        }
        if path_sep(toks, i) {
            i += 1;
            continue;
        }
        if ident(toks, i) == Some("as") {
            i += 2;
        }
        out.push(path);
        return i;
    }
}

/// Whether the attribute `#[...]` starting at `i` is exactly `#[cfg(test)]`.
pub fn is_cfg_test(toks: &[(Tok, usize)], i: usize) -> bool {
    punct(toks, i, '#')
        && punct(toks, i + 1, '[')
        && ident(toks, i + 2) == Some("cfg")
        && punct(toks, i + 3, '(')
        && ident(toks, i + 4) == Some("test")
        && punct(toks, i + 5, ')')
        && punct(toks, i + 6, ']')
}

/// Collects the references of one file whose module path is `module`.
pub fn file_refs(src: &str, module: &[String]) -> FileRefs {
    let toks = tokenize(src);
    let mut out = FileRefs::default();
    // Inline `mod name { ... }` blocks: (brace depth at which it closes).
    let mut module = module.to_vec();
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        if is_cfg_test(&toks, i) {
            // `#[cfg(test)] [other attributes] [pub] mod tests ...`
            let mut j = i + 7;
            while punct(&toks, j, '#') {
                j = skip_group(&toks, j + 1);
            }
            if ident(&toks, j) == Some("pub") {
                j += 1;
                if punct(&toks, j, '(') {
                    j = skip_group(&toks, j);
                }
            }
            if ident(&toks, j) == Some("mod") && ident(&toks, j + 1) == Some("tests") {
                if punct(&toks, j + 2, '{') {
                    i = skip_group(&toks, j + 2);
                    continue;
                }
                let mut path = module.clone();
                path.push("tests".to_string());
                out.test_mods.push(path);
                i = j + 2;
                continue;
            }
        }
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last() == Some(&depth) {
                    inline.pop();
                    module.pop();
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(name), true) = (ident(&toks, i + 1), punct(&toks, i + 2, '{')) {
                    module.push(name.to_string());
                    inline.push(depth);
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" => {
                let line = toks[i].1;
                let mut paths = Vec::new();
                i = use_tree(&toks, i + 1, Vec::new(), &mut paths);
                for p in paths {
                    if let Some(abs) = resolve(&module, &p) {
                        out.refs.push((abs, line));
                    }
                }
                continue;
            }
            Tok::Ident(w) if matches!(w.as_str(), "crate" | "super" | "self") && path_sep(&toks, i + 1) => {
                let preceded = i > 0 && path_sep(&toks, i - 1);
                if !preceded {
                    let line = toks[i].1;
                    let mut path = vec![w.clone()];
                    let mut j = i + 1;
                    while path_sep(&toks, j) {
                        match ident(&toks, j + 1) {
                            Some(seg) => path.push(seg.to_string()),
                            None => break,
                        }
                        j += 2;
                    }
                    if let Some(abs) = resolve(&module, &path) {
                        out.refs.push((abs, line));
                    }
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}
