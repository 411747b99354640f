//! Every built-in rule has a filetest in which it actually fires: each
//! `testsuite/filetests/rules/*.eir` file is run through its own pipeline and
//! the rules that fired are collected; a rule that fires in none is a defect.

use passes::rules::RuleSet;
use passes::{parse_pipeline_with, PassManager, PassOptions};
use std::collections::BTreeSet;
use std::path::Path;

/// The rules that fired when running the `opt` directive of one filetest.
fn fired_in(path: &Path) -> Result<BTreeSet<String>, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let header = src.lines().next().unwrap_or("");
    let Some(rest) = header.strip_prefix("// test: opt ") else { return Ok(BTreeSet::new()) };
    let (passes, opts) = testsuite::filetest::opt_options(rest)?;
    let mut m = ir::text::parse_module(&src, &path.display().to_string(), None).map_err(|e| e.to_string())?.module;
    let pipeline = parse_pipeline_with(&passes, &opts).map_err(|e| e.to_string())?;
    let report = PassManager::new(pipeline, PassOptions::default())
        .run(&mut m, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    Ok(report.cx.egraphs().flat_map(|(_, r)| r.rules.fired.keys().cloned()).collect())
}

#[test]
fn every_rule_fires_in_a_filetest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests/rules");
    let mut fired = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("rules filetests").flatten().map(|e| e.path()).collect();
    files.sort();
    for p in files.iter().filter(|p| p.extension().is_some_and(|x| x == "eir")) {
        fired.extend(fired_in(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())));
    }
    let rules = RuleSet::builtin().expect("built-in rules load");
    let missing: Vec<String> =
        rules.rules.iter().filter(|r| !fired.contains(&r.name)).map(|r| format!("{} ({})", r.name, r.origin)).collect();
    assert!(missing.is_empty(), "rules that fire in no filetest under {}:\n  {}", dir.display(), missing.join("\n  "));
}
