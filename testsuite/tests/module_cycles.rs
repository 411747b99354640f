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

#[path = "module_cycles/scan.rs"]
mod scan;

use scan::{file_refs, resolve, tokenize, Tok};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Crates whose `src/` trees must be walked (every workspace member with a
/// `src/` is walked; these must be among them).
const EXPECTED_ROOTS: &[&str] =
    &["ir/src", "passes/src", "codegen/src", "codegen/kernels/src", "compiler/src", "testsuite/src", "examples/src"];

/// The `src/` trees of the workspace members listed in the root `Cargo.toml`.
fn src_roots(workspace: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).expect("workspace Cargo.toml");
    let start = manifest.find("members").expect("workspace members");
    let list = &manifest[start..];
    let list = &list[list.find('[').expect("members list")..list.find(']').expect("members list end")];
    let members = list.split('"').skip(1).step_by(2);
    members.map(|m| format!("{m}/src")).filter(|r| workspace.join(r).is_dir()).collect()
}

/// Directories allowed a cycle (none: keep it so; the test fails if an
/// entry here has no cycle left).
const PENDING: &[&str] = &[];

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
    let roots = src_roots(workspace);
    for expected in EXPECTED_ROOTS {
        assert!(roots.iter().any(|r| r == expected), "{expected} is not walked (roots: {roots:?})");
    }
    for label in &roots {
        let root = workspace.join(label);
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
        println!("PENDING (known, not untangled yet): {PENDING:?}");
        for c in &pending {
            print!("{c}");
        }
    }
    let stale: Vec<&&str> = PENDING.iter().filter(|d| !pending.iter().any(|c| c.dir == **d)).collect();
    assert!(stale.is_empty(), "no cycle left in {stale:?}: remove it from PENDING");
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

#[test]
fn inline_modules_and_macro_crate_paths_resolve() {
    let files = tree(&[
        ("a.rs", "mod inner { fn f() { super::super::b::g() } }\nmod other { use super::c; }"),
        ("b.rs", "macro_rules! m { () => { $crate::a::f() }; }"),
        ("c.rs", "fn f() {}"),
    ]);
    let cycles = find_cycles("k/src", &files);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert_eq!(cycles[0].members, strs(&["a", "b"]));
    assert_eq!(cycles[0].edges.len(), 2, "super::c inside a's inline module is a's own child, not sibling c");
}
