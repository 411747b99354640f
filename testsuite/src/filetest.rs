//! Filetests: IR text in, a directive header naming what to run, expected
//! output kept in the same file as `//>` lines, re-blessed with `BLESS=1`.
//!
//! Directives (first `// test:` line of the file):
//! - `// test: parse` — print(parse(src)); also checks print∘parse is idempotent.
//! - `// test: opt PASS,PASS,...` — the input must verify; runs the pipeline
//!   with the verifier after every pass and prints the result.
//! - `// test: verify` — the input must fail verification; the output is the
//!   module with every error printed under its op. Each error must also be
//!   expected by an `// error: <substring>` annotation on the offending line
//!   (or on comment lines right below it), and each annotation must match.
//! - `// test: parse-error` — parsing must fail; output is the error; the
//!   offending line carries an `// error: <substring>` annotation.
//! - `// test: emit rust` and `// test: run backends=interp,rust` — the Rust
//!   backend's code and run results (see [`backend`]).

mod backend;

use ir::text::{parse_module, print_module, ParsedModule};
use ir::verify::{verify, Anchor};
use passes::{parse_pipeline_with, Pass, PassManager, PassOptions, PipelineOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// Prefix of expected-output lines.
pub const EXPECT_PREFIX: &str = "//>";

/// The outcome of one filetest.
#[derive(Debug)]
pub enum Outcome {
    /// Output matched (or was blessed).
    Pass,
    /// Mismatch or failure, with a human-readable explanation.
    Fail(String),
}

/// Run one filetest file; with `bless`, rewrite its `//>` block instead of comparing.
pub fn run_file(path: &Path, bless: bool) -> Outcome {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Fail(format!("cannot read: {e}")),
    };
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let (src, expected) = split_expected(&text);
    let actual = match run_directive(&src, &name) {
        Ok(out) => out,
        Err(e) => return Outcome::Fail(e),
    };
    if actual == expected {
        return Outcome::Pass;
    }
    if bless {
        let mut new = src.trim_end().to_string();
        new.push_str("\n\n");
        for line in actual.lines() {
            new.push_str(EXPECT_PREFIX);
            if !line.is_empty() {
                new.push(' ');
                new.push_str(line);
            }
            new.push('\n');
        }
        return match std::fs::write(path, new) {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail(format!("cannot bless: {e}")),
        };
    }
    let diff =
        similar::TextDiff::from_lines(&expected, &actual).unified_diff().header("expected", "actual").to_string();
    Outcome::Fail(format!("output differs (re-bless with BLESS=1 if the change is intended):\n{diff}"))
}

/// Split a file into its source (expected lines removed) and expected output.
fn split_expected(text: &str) -> (String, String) {
    let mut src = String::new();
    let mut expected = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(EXPECT_PREFIX) {
            expected.push_str(rest.strip_prefix(' ').unwrap_or(rest));
            expected.push('\n');
        } else {
            src.push_str(line);
            src.push('\n');
        }
    }
    (src, expected)
}

fn directive(src: &str) -> Result<(String, String), String> {
    let line = src.lines().find_map(|l| l.trim().strip_prefix("// test:")).ok_or("missing `// test:` directive")?;
    let line = line.trim();
    let (kind, arg) = line.split_once(' ').unwrap_or((line, ""));
    Ok((kind.to_string(), arg.trim().to_string()))
}

/// `PASSES [target=NAME] [bucket=DIM:SIZE,SIZE...]... [pad=INPUT:VALUE]... [window=W] [approximate=RULE]...`:
/// the pipeline of an `opt` directive, with the e-graph passes extracting for
/// the named target profile if one is given, and the `bucket` pass's spec.
fn opt_pipeline(arg: &str) -> Result<Vec<Box<dyn Pass>>, String> {
    let (passes, opts) = opt_options(arg)?;
    parse_pipeline_with(&passes, &opts).map_err(|e| e.to_string())
}

/// The pass list and the options of an `opt` directive's argument (see
/// [`opt_pipeline`]); a `target=` ending in `.toml` is a profile path
/// relative to the testsuite crate.
pub fn opt_options(arg: &str) -> Result<(String, PipelineOptions), String> {
    let mut words = arg.split_whitespace();
    let passes = words.next().unwrap_or("").to_string();
    let mut opts = PipelineOptions::default();
    for w in words {
        match w.split_once('=') {
            Some(("target", t)) => {
                let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
                let t = if t.ends_with(".toml") { manifest.join(t).display().to_string() } else { t.to_owned() };
                let profile = codegen::targets::load(&t).map_err(|e| e.to_string())?;
                opts.target = Some(std::sync::Arc::new(profile));
            }
            Some(("bucket", b)) => {
                let d = passes::bucket::BucketSpec::parse_dim(&b.replacen(':', "=", 1))?;
                opts.bucket.get_or_insert_with(Default::default).dims.push(d);
            }
            Some(("approximate", a)) => opts.rules.enable_approximations(&[a.to_string()])?,
            Some(("window", w)) => {
                opts.attention_window = Some(w.parse().map_err(|_| format!("window={w}: not a size"))?);
            }
            Some(("pad", p)) => {
                let (name, v) = passes::bucket::BucketSpec::parse_pad(&p.replacen(':', "=", 1))?;
                opts.bucket.get_or_insert_with(Default::default).pads.insert(name, v);
            }
            _ => {
                return Err(format!(
                "unknown opt option `{w}` (expected `target=NAME`, `bucket=DIM:SIZES`, `pad=INPUT:VALUE`, `window=W`, `approximate=RULE`)"
            ))
            }
        }
    }
    Ok((passes, opts))
}

fn run_directive(src: &str, name: &str) -> Result<String, String> {
    let (kind, arg) = directive(src)?;
    match kind.as_str() {
        "parse" => {
            let m = parse(src, name)?.module;
            let once = print_module(&m);
            let twice = print_module(&parse(&once, name)?.module);
            if once != twice {
                return Err(format!("print is not idempotent:\n--- first\n{once}--- second\n{twice}"));
            }
            Ok(once)
        }
        "opt" => {
            let mut m = parse(src, name)?.module;
            verify(&m).map_err(|e| format!("input does not verify:\n{}", e.render(&m)))?;
            let pipeline = opt_pipeline(&arg)?;
            let opts = PassOptions { verify_each: true, ..Default::default() };
            PassManager::new(pipeline, opts).run(&mut m, &mut std::io::sink()).map_err(|e| e.to_string())?;
            Ok(print_module(&m))
        }
        "verify" => {
            let p = parse(src, name)?;
            let errs = match verify(&p.module) {
                Ok(()) => return Err("expected verifier errors, but the module verifies".into()),
                Err(e) => e,
            };
            let found: Vec<(u32, String)> = errs.0.iter().map(|d| (line_of(&p, d.anchor), d.to_string())).collect();
            check_annotations(src, &found)?;
            Ok(errs.render(&p.module))
        }
        "parse-error" => match parse_module(src, name, None) {
            Ok(_) => Err("expected a parse error, but the file parses".into()),
            Err(e) => {
                check_annotations(src, &[(e.pos.line, e.message.clone())])?;
                Ok(format!("{e}\n"))
            }
        },
        "emit" | "run" => {
            let m = parse(src, name)?.module;
            verify(&m).map_err(|e| format!("input does not verify:\n{}", e.render(&m)))?;
            match (kind.as_str(), arg.trim()) {
                ("emit", "rust") => backend::emit_rust(&m, name),
                ("emit", other) => Err(format!("`emit` takes a backend name (`rust`), not `{other}`")),
                _ => backend::run(&m, name, &arg),
            }
        }
        other => Err(format!("unknown directive `{other}` (expected parse, opt, verify, parse-error, emit or run)")),
    }
}

fn parse(src: &str, name: &str) -> Result<ParsedModule, String> {
    parse_module(src, name, None).map_err(|e| e.to_string())
}

fn line_of(p: &ParsedModule, a: Anchor) -> u32 {
    p.spans.get(&a).map_or(0, |pos| pos.line)
}

/// `// error: text` annotations by the line they refer to.
fn annotations(src: &str) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut last_code_line = 0;
    for (i, line) in src.lines().enumerate() {
        let lineno = i as u32 + 1;
        let trimmed = line.trim_start();
        let comment_only = trimmed.starts_with("//");
        if let Some(idx) = line.find("// error:") {
            let target = if comment_only { last_code_line } else { lineno };
            out.entry(target).or_default().push(line[idx + "// error:".len()..].trim().to_string());
        }
        if !comment_only && !trimmed.is_empty() {
            last_code_line = lineno;
        }
    }
    out
}

/// Every error must be annotated on its line, every annotation must match an error.
fn check_annotations(src: &str, found: &[(u32, String)]) -> Result<(), String> {
    let expected = annotations(src);
    let mut problems = Vec::new();
    for (line, msg) in found {
        let ok = expected.get(line).is_some_and(|v| v.iter().any(|want| msg.contains(want.as_str())));
        if !ok {
            problems.push(format!("line {line}: unexpected error: {msg}"));
        }
    }
    for (line, wants) in &expected {
        for want in wants {
            if !found.iter().any(|(l, msg)| l == line && msg.contains(want.as_str())) {
                problems.push(format!("line {line}: expected error containing {want:?} was not reported"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Every `.eir` file under `dir`, sorted.
pub fn collect(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "eir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
