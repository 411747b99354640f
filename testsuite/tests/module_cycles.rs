//! Repository test: no cycles among sibling modules (issue 14).
//!
//! For every directory of sibling modules in every crate's `src/` tree (the
//! files `x.rs` and the directories `x/`, all children of one parent module),
//! this builds the graph "sibling A refers to sibling B" from the text of A
//! and of A's own child files, and fails listing every strongly connected
//! component with more than one member.
//!
//! A reference is a path that resolves to `<parent>::B::...`: `super::B`,
//! `crate::<path to parent>::B`, `self::super::B`, or a `use` tree such as
//! `use super::{B, C}`. A parent and its own child modules may refer to each
//! other, so references to items of the parent module itself (`super::f`
//! where `f` is not a sibling module) are not edges. Comments, string and char
//! literals and `#[cfg(test)] mod tests` modules are ignored.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The `src/` trees that are walked, relative to the workspace root.
const SRC_ROOTS: &[&str] =
    &["ir/src", "passes/src", "codegen/src", "codegen/kernels/src", "compiler/src", "testsuite/src", "examples/src"];

/// TEMPORARY allow-list: directories whose sibling cycles are known and are
/// being untangled in another branch (the codegen Rust backend rewrite).
/// Their cycles are printed but do not fail the test. Remove entries as the
/// rewrite lands; do not add new ones.
const PENDING: &[&str] = &["codegen/src/rust/ops", "codegen/src/rust"];

// ---------------------------------------------------------------------------
// Tokenizer: identifiers, `::` and single punctuation characters, with line
// numbers; comments, string/char literals, lifetimes and numbers are dropped.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Skips a (possibly raw) string literal starting at `i` (the opening quote
/// or the `#`s of a raw string); returns the index after it and counts lines.
fn skip_string(s: &[char], mut i: usize, raw: bool, line: &mut usize) -> usize {
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

fn tokenize(src: &str) -> Vec<(Tok, usize)> {
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
struct FileRefs {
    /// Absolute paths referred to, with the line of each reference.
    refs: Vec<(Vec<String>, usize)>,
    /// Absolute module paths declared as `#[cfg(test)] mod tests;` (out of line).
    test_mods: Vec<Vec<String>>,
}

fn ident(toks: &[(Tok, usize)], i: usize) -> Option<&str> {
    match toks.get(i) {
        Some((Tok::Ident(w), _)) => Some(w.as_str()),
        _ => None,
    }
}

fn punct(toks: &[(Tok, usize)], i: usize, c: char) -> bool {
    matches!(toks.get(i), Some((Tok::Punct(p), _)) if *p == c)
}

fn path_sep(toks: &[(Tok, usize)], i: usize) -> bool {
    matches!(toks.get(i), Some((Tok::PathSep, _)))
}

/// Index just after the bracket group that opens at `i` (`{`, `[` or `(`).
fn skip_group(toks: &[(Tok, usize)], mut i: usize) -> usize {
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
fn resolve(module: &[String], path: &[String]) -> Option<Vec<String>> {
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
fn use_tree(toks: &[(Tok, usize)], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
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
fn is_cfg_test(toks: &[(Tok, usize)], i: usize) -> bool {
    punct(toks, i, '#')
        && punct(toks, i + 1, '[')
        && ident(toks, i + 2) == Some("cfg")
        && punct(toks, i + 3, '(')
        && ident(toks, i + 4) == Some("test")
        && punct(toks, i + 5, ')')
        && punct(toks, i + 6, ']')
}

/// Collects the references of one file whose module path is `module`.
fn file_refs(src: &str, module: &[String]) -> FileRefs {
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

// ---------------------------------------------------------------------------
// Sibling graphs and their strongly connected components.

/// One source file: its path relative to its crate's `src/` and its text.
struct SrcFile {
    rel: Vec<String>,
    text: String,
}

/// A strongly connected component of one directory's sibling graph.
#[derive(Debug)]
struct Cycle {
    /// The directory, e.g. `passes/src/rules`.
    dir: String,
    /// One cycle through the component, e.g. `[a, b, a]`.
    walk: Vec<String>,
    /// All members of the component.
    members: Vec<String>,
    /// Every edge inside the component with one example `file:line`.
    edges: Vec<(String, String, String)>,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}: {}", self.dir, self.walk.join(" -> "))?;
        if self.members.len() > 2 {
            writeln!(f, "  component: {}", self.members.join(", "))?;
        }
        for (a, b, at) in &self.edges {
            writeln!(f, "  {a} -> {b}  ({at})")?;
        }
        Ok(())
    }
}

/// Module path of a file from its path under `src/` (`None` for crate roots
/// other than `lib.rs`/`main.rs`, i.e. `src/bin/*`).
fn module_of(rel: &[String]) -> Option<Vec<String>> {
    if rel.first().map(String::as_str) == Some("bin") {
        return None;
    }
    let mut m: Vec<String> = rel.to_vec();
    let last = m.pop()?;
    let stem = last.strip_suffix(".rs")?;
    let is_root = m.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !is_root {
        m.push(stem.to_string());
    }
    Some(m)
}

/// Tarjan's strongly connected components (members sorted).
fn sccs(nodes: &[String], edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct St<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on: BTreeSet<String>,
        out: Vec<Vec<String>>,
    }
    fn visit(st: &mut St, v: &str) {
        let n = st.index.len();
        st.index.insert(v.to_string(), n);
        st.low.insert(v.to_string(), n);
        st.stack.push(v.to_string());
        st.on.insert(v.to_string());
        let succ: Vec<String> = st.edges.get(v).map(|s| s.iter().cloned().collect()).unwrap_or_default();
        for w in succ {
            if !st.index.contains_key(&w) {
                visit(st, &w);
                let lw = st.low[&w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if st.on.contains(&w) {
                let iw = st.index[&w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on.remove(&w);
                let done = w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            comp.sort();
            st.out.push(comp);
        }
    }
    let mut st = St {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !st.index.contains_key(v) {
            visit(&mut st, v);
        }
    }
    st.out
}

/// A shortest cycle from `start` back to itself inside `comp` (breadth-first).
fn walk_from(start: &str, comp: &BTreeSet<String>, edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.to_string()]);
    while let Some(v) = queue.pop_front() {
        for w in edges.get(&v).into_iter().flatten().filter(|w| comp.contains(*w)) {
            if w == start {
                let mut walk = vec![start.to_string(), v.clone()];
                let mut cur = v.clone();
                while let Some(p) = prev.get(&cur) {
                    walk.push(p.clone());
                    cur = p.clone();
                }
                walk.reverse();
                if walk.len() >= 2 && walk[0] == walk[1] {
                    walk.remove(0); // start -> start was pushed twice when v == start
                }
                return walk;
            }
            if !prev.contains_key(w) && w != start {
                prev.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    vec![start.to_string()]
}

/// All sibling cycles among `files` of the crate whose `src/` is `label`.
fn find_cycles(label: &str, files: &[SrcFile]) -> Vec<Cycle> {
    // References of every file, and the out-of-line test modules.
    let mut parsed = Vec::new();
    let mut test_mods: BTreeSet<Vec<String>> = BTreeSet::new();
    for f in files {
        if let Some(m) = module_of(&f.rel) {
            let r = file_refs(&f.text, &m);
            test_mods.extend(r.test_mods.iter().cloned());
            parsed.push((f, m, r));
        }
    }
    let is_test = |m: &[String]| (1..=m.len()).any(|k| test_mods.contains(&m[..k]));
    parsed.retain(|(_, m, _)| !is_test(m));

    // Directories of siblings: every directory holding a file, plus the root.
    let dirs: BTreeSet<Vec<String>> =
        parsed.iter().flat_map(|(f, _, _)| (0..f.rel.len()).map(|k| f.rel[..k].to_vec())).collect();
    let mut cycles = Vec::new();
    for dir in dirs {
        if dir.first().map(String::as_str) == Some("bin") {
            continue;
        }
        // Sibling name of each file in this directory's subtree.
        let sibling = |rel: &[String]| -> Option<String> {
            if rel.len() <= dir.len() || rel[..dir.len()] != dir[..] {
                return None;
            }
            let name = &rel[dir.len()];
            let name = name.strip_suffix(".rs").unwrap_or(name);
            let is_parent = name == "mod" || (dir.is_empty() && matches!(name, "lib" | "main" | "bin"));
            (!is_parent).then(|| name.to_string())
        };
        let nodes: BTreeSet<String> = parsed.iter().filter_map(|(f, _, _)| sibling(&f.rel)).collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut at: BTreeMap<(String, String), String> = BTreeMap::new();
        for (f, _, r) in &parsed {
            let Some(a) = sibling(&f.rel) else { continue };
            for (abs, line) in &r.refs {
                if abs.len() <= dir.len() || abs[..dir.len()] != dir[..] {
                    continue;
                }
                let b = &abs[dir.len()];
                if *b == a || !nodes.contains(b) {
                    continue;
                }
                edges.entry(a.clone()).or_default().insert(b.clone());
                at.entry((a.clone(), b.clone())).or_insert_with(|| format!("{label}/{}:{line}", f.rel.join("/")));
            }
        }
        let nodes: Vec<String> = nodes.into_iter().collect();
        for comp in sccs(&nodes, &edges).into_iter().filter(|c| c.len() > 1) {
            let set: BTreeSet<String> = comp.iter().cloned().collect();
            let comp_edges = at
                .iter()
                .filter(|((a, b), _)| set.contains(a) && set.contains(b))
                .map(|((a, b), l)| (a.clone(), b.clone(), l.clone()))
                .collect();
            let dir_name = if dir.is_empty() { label.to_string() } else { format!("{label}/{}", dir.join("/")) };
            cycles.push(Cycle {
                dir: dir_name,
                walk: walk_from(&comp[0], &set, &edges),
                members: comp,
                edges: comp_edges,
            });
        }
    }
    cycles
}

fn read_tree(root: &Path, dir: &Path, out: &mut Vec<SrcFile>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_tree(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).unwrap().iter().map(|c| c.to_string_lossy().into_owned()).collect();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push(SrcFile { rel, text });
        }
    }
}

#[test]
fn no_cycles_among_sibling_modules() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut failing = Vec::new();
    let mut pending = Vec::new();
    for label in SRC_ROOTS {
        let root = workspace.join(label);
        if !root.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        read_tree(&root, &root, &mut files);
        assert!(!files.is_empty(), "{label}: no .rs files");
        for c in find_cycles(label, &files) {
            if PENDING.contains(&c.dir.as_str()) {
                pending.push(c);
            } else {
                failing.push(c);
            }
        }
    }
    if !PENDING.is_empty() {
        println!("PENDING (temporarily allowed, being untangled elsewhere): {PENDING:?}");
        for c in &pending {
            print!("{c}");
        }
    }
    let report: String = failing.iter().map(ToString::to_string).collect();
    assert!(failing.is_empty(), "{} cycle(s) among sibling modules; move what both sides need into the lower module or a new sibling:\n{report}", failing.len());
}

// ---------------------------------------------------------------------------
// Unit cases for the helpers, so this test can fail.

fn tree(files: &[(&str, &str)]) -> Vec<SrcFile> {
    files.iter().map(|(p, t)| SrcFile { rel: p.split('/').map(String::from).collect(), text: t.to_string() }).collect()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn detects_a_cycle_with_locations() {
    let files = tree(&[
        ("lib.rs", "mod m;"),
        ("m/mod.rs", "mod a; mod b; mod c;"),
        ("m/a.rs", "use super::b::helper;\n"),
        ("m/b.rs", "fn f() {}\n\nfn g() { crate::m::a::x(); }"),
        ("m/c.rs", "use super::{a, b};"),
    ]);
    let cycles = find_cycles("k/src", &files);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let c = &cycles[0];
    assert_eq!(c.dir, "k/src/m");
    assert_eq!(c.walk, strs(&["a", "b", "a"]));
    assert_eq!(c.members, strs(&["a", "b"]));
    let shown = c.to_string();
    assert!(shown.contains("a -> b  (k/src/m/a.rs:1)"), "{shown}");
    assert!(shown.contains("b -> a  (k/src/m/b.rs:3)"), "{shown}");
}

#[test]
fn child_files_and_groups_belong_to_their_sibling() {
    let files = tree(&[
        ("a.rs", "mod inner;"),
        ("a/inner.rs", "use crate::{x, b::{self, Thing}};"),
        ("b/mod.rs", "mod deep;"),
        ("b/deep.rs", "fn f() { super::super::a::g() }"),
    ]);
    let cycles = find_cycles("k/src", &files);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert_eq!(cycles[0].dir, "k/src");
    assert_eq!(cycles[0].members, strs(&["a", "b"]));
}

#[test]
fn parent_and_child_may_refer_to_each_other() {
    let files = tree(&[
        ("m.rs", "mod a; mod b; pub fn shared() {} use self::a::A; use b::B;"),
        ("m/a.rs", "use super::shared; pub struct A;"),
        ("m/b.rs", "use super::{shared, A}; pub struct B; fn f() { super::shared() }"),
        ("m/c.rs", "use super::a::A;"),
    ]);
    assert!(find_cycles("k/src", &files).is_empty());
}

#[test]
fn comments_strings_and_tests_are_ignored() {
    let files = tree(&[
        ("a.rs", "// use super::b;\n/// see super::b::X\n/* crate::b /* nested */ super::b */ fn f() {}"),
        ("b.rs", "use crate::a::f;"),
        ("c.rs", "const S: &str = \"super::d::x\"; const R: &str = r#\"crate::d \"q\" \"#; fn f<'a>(x: &'a u8) -> char { 'd' }"),
        ("d.rs", "use super::c;\n#[cfg(test)]\nmod tests { use super::super::c; }"),
        ("e.rs", "#[cfg(test)]\nmod tests;"),
        ("e/tests.rs", "use crate::f;"),
        ("f.rs", "pub use super::e::X;"),
    ]);
    let cycles = find_cycles("k/src", &files);
    assert!(cycles.is_empty(), "{cycles:?}");
}

#[test]
fn three_member_component_lists_every_edge() {
    let files = tree(&[("a.rs", "use super::b;"), ("b.rs", "use super::c;"), ("c.rs", "use super::a; use super::b;")]);
    let cycles = find_cycles("k/src", &files);
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].walk, strs(&["a", "b", "c", "a"]));
    assert_eq!(cycles[0].edges.len(), 4);
}

#[test]
fn tokenizer_keeps_lines_and_drops_literals() {
    let toks = tokenize("a::b\n\"x\ny\" r##\"z\"#\"## b'q' '\\'' c");
    let kept: Vec<(String, usize)> = toks
        .iter()
        .filter_map(|(t, l)| match t {
            Tok::Ident(w) => Some((w.clone(), *l)),
            _ => None,
        })
        .collect();
    assert_eq!(kept, vec![("a".into(), 1), ("b".into(), 1), ("c".into(), 3)]);
    assert_eq!(resolve(&strs(&["x", "y"]), &strs(&["super", "super", "z"])), Some(strs(&["z"])));
    assert_eq!(resolve(&strs(&["x"]), &strs(&["other", "z"])), None);
}
