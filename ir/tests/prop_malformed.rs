//! Property tests: malformed text never panics the parser, verifier or printer.
//!
//! Inputs are random bytes, random strings over the IR's alphabet, random token
//! soups, truncations and small mutations of valid modules, and corrupted
//! weights sidecars. A panic anywhere fails the test by itself; in addition,
//! every parse error must carry a position inside the input and render as
//! `file:line:col: error: message`, and every verifier diagnostic of a module
//! that parses must have a message.

use ir::text::{parse_module, print_module, ParseError, PrintOptions, Printer, WeightsMode};
use ir::verify::verify;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;

const FILE: &str = "bad.eir";
const SIDECAR: &str = "w.bin";

/// Hand-written valid modules (canonical: they print back identically).
const VALID: &[&str] = &[
    r#"module @m attributes {phase = "onnx", onnx.opset = 17} {
  const @w : f32[2, 2] = dense<[1.0, -0.5, 3.25, 0.1]>
  const @shape : i64[2] = dense<[1, -1]>

  func @main(%x: f32[batch, 2], %input.1: f32[2]) -> (f32[batch, 2]) {
    %0 = core.const {value = @w} : f32[2, 2]
    %1 = onnx.Mul %x, %0 : f32[batch, 2] loc("mm" op "Mul")
    %2 = onnx.Add %1, %input.1 : f32[batch, 2] loc(fused["a" op "Add", "b" op "Relu"])
    return %2
  }
}
"#,
    r#"module @"my model" attributes {phase = "onnx", names = ["a", "b\"c"], "odd key" = [1.5, -0.0, inf], producer = "edgec\ttest", ratio = nan, to = f16} {
  const @"w 1" : f16[3] = dense<[1.0, -0.0, 65504.0]>
  const @flags : bool[2, 1] = dense<[true, false]>
  const @labels : string[2] = dense<["cat", "dög\n\u{1}"]>
  const @lo : f32[] = dense<[-1e-7]>
  const @empty : i8[0, 3] = dense<[]>

  func @"f 2"(%"odd name": f32["odd name", ?, 3], %c: bool[*]) -> (f32["odd name", ?, 3], f32["odd name", ?, 3], bool[*]) {
    %0 = core.const {value = @lo} : f32[]
    %1 = onnx.Clip %"odd name", %0, none : f32["odd name", ?, 3] loc("clip\\0" op "Clip")
    %2, %3 = onnx.Dropout %1 {seed = -3} : f32["odd name", ?, 3], bool["odd name", ?, 3]
    %4 = onnx.Not %c : bool[*] loc(fused[])
    %5 = onnx.Cast %2 {saturate = 1, to = f32} : f32["odd name", ?, 3]
    return %1, %5, %4
  }
}
"#,
    r#"module @two attributes {phase = "onnx"} {
  const @k : i64[3] = dense<[-9223372036854775808, 0, 9223372036854775807]>
  const @u : u64[1] = dense<[18446744073709551615]>
  const @d : f64[2] = dense<[5e-324, -1.7976931348623157e308]>

  func @empty() -> () {
    return
  }

  func @helper(%a: i64[seq], %b: i64[1]) -> (bool[seq], i64[seq]) {
    %0 = core.const {value = @k} : i64[3]
    %1 = onnx.Less %a, %b : bool[seq] loc("n\u{7f}" op "Less")
    %2 = onnx.Where %1, %a, %b : i64[seq]
    %3 = onnx.Max %2, %a, %b : i64[seq] loc(fused["x" op "Max", fused["y" op "Min"]])
    return %1, %3
  }
}
"#,
];

/// A module whose large constants go to the sidecar when printed.
const WITH_WEIGHTS: &str = r#"module @w attributes {phase = "onnx"} {
  const @big : f32[2, 4] = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>
  const @ints : i32[6] = dense<[-1, 0, 1, 2, 3, 4]>
  const @small : f32[2] = dense<[0.5, -0.5]>

  func @main(%x: f32[2, 4]) -> (f32[2, 4]) {
    %0 = core.const {value = @big} : f32[2, 4]
    %1 = onnx.Add %x, %0 : f32[2, 4]
    return %1
  }
}
"#;

/// Tokens and fragments of the text format, for token soups and insertions.
const TOKENS: &[&str] = &[
    "module",
    "func",
    "const",
    "return",
    "yield",
    "region",
    "loc",
    "fused",
    "op",
    "unknown",
    "none",
    "attributes",
    "phase",
    "weights",
    "dense",
    "external",
    "elided",
    "offset",
    "size",
    "hash",
    "onnx.Add",
    "onnx.Relu",
    "onnx.Dropout",
    "core.const",
    "onnx.Clip",
    "onnx.Concat",
    "f32",
    "i64",
    "bool",
    "string",
    "f16",
    "@m",
    "@w",
    "@\"q q\"",
    "%x",
    "%0",
    "%1",
    "%\"odd name\"",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "-",
    "?",
    "*",
    "\"",
    "\"str\"",
    "\"\\u{41}\"",
    "\"\\q\"",
    "1",
    "0",
    "-1",
    "2.5",
    "1e3",
    "1e",
    "0x1f",
    "0x",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "batch",
    "value",
    "\"onnx\"",
    "99999999999999999999999999999999999999999",
    "18446744073709551616",
    " ",
    " ",
    " ",
    "\n",
    "\t",
    "//",
    "\\",
    "#",
    "é",
];

/// Characters of the text format, for single-character replacements and insertions.
const ALPHABET: &str = "%@{}[]()<>,:=-?*\"._ \n\tabcdefghijklmnopqrstuvwxyzABCXYZ0123456789\\é";

fn config(cases: u32) -> Config {
    let base = Config::default();
    Config { cases: base.cases.max(cases), failure_persistence: None, ..base }
}

/// Sidecar-mode text and sidecar bytes of [`WITH_WEIGHTS`].
fn sidecar_module() -> (String, Vec<u8>) {
    let m = parse_module(WITH_WEIGHTS, "w.eir", None).unwrap_or_else(|e| panic!("{e}")).module;
    let opts = PrintOptions { weights: WeightsMode::Sidecar { file: SIDECAR.into(), inline_limit: 4 }, locs: true };
    let p = Printer::new(opts).print(&m);
    (p.text, p.sidecar.expect("sidecar mode produces a sidecar"))
}

/// All valid texts, including the sidecar-mode one.
fn valid_texts() -> Vec<String> {
    let mut v: Vec<String> = VALID.iter().map(|s| s.to_string()).collect();
    v.push(sidecar_module().0);
    v
}

fn check_error(src: &str, e: &ParseError) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = src.split('\n').collect();
    prop_assert!(e.pos.line >= 1 && e.pos.col >= 1, "position {:?} is not 1-based: {e}", e.pos);
    prop_assert!(
        e.pos.line as usize <= src.lines().count() + 1 && e.pos.line as usize <= lines.len(),
        "line {} is past the end of a {}-line input: {e}",
        e.pos.line,
        lines.len()
    );
    let line_len = lines[e.pos.line as usize - 1].chars().count();
    prop_assert!(
        e.pos.col as usize <= line_len + 1,
        "column {} is past the end of its line ({line_len}): {e}",
        e.pos.col
    );
    prop_assert_eq!(&e.file, FILE);
    prop_assert!(!e.message.is_empty(), "empty parse error message at {:?}", e.pos);
    let shown = e.to_string();
    let prefix = format!("{FILE}:{}:{}: error: ", e.pos.line, e.pos.col);
    prop_assert!(shown.starts_with(&prefix), "{shown:?} does not start with {prefix:?}");
    Ok(())
}

/// Parse `src`; on success verify and render, on failure check the error's shape.
/// A panic anywhere fails the calling test.
fn check_input(src: &str, with_loader: bool) -> Result<(), TestCaseError> {
    let (_, sidecar) = sidecar_module();
    let loader = move |name: &str| if name == SIDECAR { Ok(sidecar.clone()) } else { Err("no such file".to_string()) };
    let parsed = parse_module(src, FILE, if with_loader { Some(&loader) } else { None });
    match parsed {
        Err(e) => check_error(src, &e),
        Ok(p) => {
            if let Err(errs) = verify(&p.module) {
                for d in &errs.0 {
                    prop_assert!(!d.message.is_empty(), "verifier diagnostic without a message: {d:?}");
                }
                let rendered = errs.render(&p.module);
                prop_assert!(rendered.contains("verifier error(s)"));
                let _ = errs.with_spans(FILE, &p.spans);
            }
            // Whatever parses prints, and the printed form is a fixed point.
            let t1 = print_module(&p.module);
            let again = parse_module(&t1, FILE, None)
                .map_err(|e| TestCaseError::fail(format!("reprinted module does not parse: {e}\n{t1}")))?;
            prop_assert_eq!(&t1, &print_module(&again.module), "reprinting a parsed module is not stable");
            Ok(())
        }
    }
}

fn truncate_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// One edit of a text, with positions chosen relative to the text's length.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(Index, usize),
    Duplicate(Index, usize),
    Replace(Index, Index),
    Insert(Index, &'static str),
    SwapTokens(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 1..40usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), 1..40usize).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, c)| Mutation::Replace(i, c)),
        (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapTokens(a, b)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut c: Vec<char> = text.chars().collect();
    if c.is_empty() {
        return String::new();
    }
    match m {
        Mutation::Delete(i, n) => {
            let s = i.index(c.len());
            c.drain(s..(s + n).min(c.len()));
        }
        Mutation::Duplicate(i, n) => {
            let s = i.index(c.len());
            let dup: Vec<char> = c[s..(s + n).min(c.len())].to_vec();
            c.splice(s..s, dup);
        }
        Mutation::Replace(i, ch) => {
            let alphabet: Vec<char> = ALPHABET.chars().collect();
            let s = i.index(c.len());
            c[s] = alphabet[ch.index(alphabet.len())];
        }
        Mutation::Insert(i, tok) => {
            let s = i.index(c.len() + 1);
            c.splice(s..s, tok.chars());
        }
        Mutation::SwapTokens(a, b) => {
            // Tokens here are maximal runs of non-whitespace characters.
            let mut spans = Vec::new();
            let mut start = None;
            for (k, ch) in c.iter().chain(std::iter::once(&' ')).enumerate() {
                match (ch.is_whitespace(), start) {
                    (false, None) => start = Some(k),
                    (true, Some(s)) => {
                        spans.push(s..k);
                        start = None;
                    }
                    _ => {}
                }
            }
            if spans.len() >= 2 {
                let (x, y) = (a.index(spans.len()), b.index(spans.len()));
                let (x, y) = (spans[x.min(y)].clone(), spans[x.max(y)].clone());
                if x != y {
                    let mut out: Vec<char> = c[..x.start].to_vec();
                    out.extend(&c[y.clone()]);
                    out.extend(&c[x.end..y.start]);
                    out.extend(&c[x.clone()]);
                    out.extend(&c[y.end..]);
                    c = out;
                }
            }
        }
    }
    c.into_iter().collect()
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), loader in any::<bool>()) {
        check_input(&String::from_utf8_lossy(&bytes), loader)?;
    }

    #[test]
    fn random_alphabet_strings_never_panic(s in "[%@{}\\[\\]()<>,:=?*\"a-z0-9_. \n\t-]{0,300}") {
        check_input(&s, false)?;
    }

    #[test]
    fn random_token_soups_never_panic(toks in prop::collection::vec(prop::sample::select(TOKENS), 0..120)) {
        check_input(&toks.concat(), true)?;
    }
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn truncated_valid_modules_never_panic(which in any::<Index>(), at in any::<Index>()) {
        let texts = valid_texts();
        let text = &texts[which.index(texts.len())];
        let n = at.index(text.chars().count() + 1);
        check_input(truncate_chars(text, n), true)?;
    }

    #[test]
    fn mutated_valid_modules_never_panic(
        which in any::<Index>(),
        edits in prop::collection::vec(mutation(), 1..4),
        loader in any::<bool>(),
    ) {
        let texts = valid_texts();
        let mut text = texts[which.index(texts.len())].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        check_input(&text, loader)?;
    }

    #[test]
    fn corrupted_sidecars_are_parse_errors(
        truncate_to in any::<Index>(),
        flip in any::<Index>(),
        mask in 1..=255u8,
        kind in 0..3u8,
    ) {
        let (text, good) = sidecar_module();
        let mut bad = good.clone();
        match kind {
            0 => bad.truncate(truncate_to.index(good.len())),
            1 => bad[flip.index(good.len())] ^= mask,
            _ => bad.extend(std::iter::repeat_n(mask, truncate_to.index(100) + 1)),
        }
        let loader = move |name: &str| if name == SIDECAR { Ok(bad.clone()) } else { Err("no such file".to_string()) };
        match parse_module(&text, FILE, Some(&loader)) {
            Err(e) => {
                check_error(&text, &e)?;
                prop_assert!(e.message.contains(SIDECAR), "error does not name the weights file: {e}");
            }
            // Changes to padding or past the last blob are harmless; the contents must be intact.
            Ok(p) => {
                let orig = parse_module(WITH_WEIGHTS, "w.eir", None).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(print_module(&p.module), print_module(&orig.module));
            }
        }
    }
}

#[test]
fn valid_texts_are_canonical_and_verify() {
    for (i, text) in VALID.iter().chain([&WITH_WEIGHTS]).enumerate() {
        let p = parse_module(text, "valid.eir", None).unwrap_or_else(|e| panic!("valid text #{i}: {e}"));
        assert_eq!(&print_module(&p.module), text, "valid text #{i} is not canonical");
        if let Err(e) = verify(&p.module) {
            panic!("valid text #{i} does not verify:\n{}", e.render(&p.module));
        }
    }
    let (text, sidecar) = sidecar_module();
    assert!(text.contains("external<"), "{text}");
    let loader = move |name: &str| if name == SIDECAR { Ok(sidecar.clone()) } else { Err("no such file".to_string()) };
    parse_module(&text, "valid.eir", Some(&loader)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_truncation_of_valid_modules_is_handled() {
    for text in valid_texts() {
        let n = text.chars().count();
        for k in 0..n {
            check_input(truncate_chars(&text, k), true).unwrap_or_else(|e| panic!("truncation at {k}: {e}"));
        }
    }
}

fn sidecar_error(bytes: Option<Vec<u8>>) -> ParseError {
    let (text, _) = sidecar_module();
    let loader = move |name: &str| match (&bytes, name) {
        (Some(b), SIDECAR) => Ok(b.clone()),
        _ => Err("no such file".to_string()),
    };
    match parse_module(&text, FILE, Some(&loader)) {
        Ok(_) => panic!("corrupted sidecar was accepted"),
        Err(e) => e,
    }
}

#[test]
fn bad_sidecars_are_reported_with_the_file_name() {
    let (text, good) = sidecar_module();
    assert!(good.len() > 72, "expected at least one blob after the 64-byte aligned header");
    let mut wrong_magic = good.clone();
    wrong_magic[0] ^= 0xff;
    let mut flipped = good.clone();
    flipped[64] ^= 0x01; // first byte of the first blob
    let mut last_flipped = good.clone();
    *last_flipped.last_mut().unwrap() ^= 0x80;
    let cases = [
        ("wrong magic", Some(wrong_magic), "bad magic"),
        ("empty file", Some(Vec::new()), "bad magic"),
        ("magic only", Some(good[..8].to_vec()), "outside the weights sidecar"),
        ("truncated by one byte", Some(good[..good.len() - 1].to_vec()), "outside the weights sidecar"),
        ("flipped byte", Some(flipped), "hash mismatch"),
        ("flipped last byte", Some(last_flipped), "hash mismatch"),
        ("missing file", None, "cannot read weights file"),
    ];
    for (what, bytes, expect) in cases {
        let e = sidecar_error(bytes);
        let shown = e.to_string();
        assert!(shown.starts_with(&format!("{FILE}:{}:{}: error: ", e.pos.line, e.pos.col)), "{what}: {shown}");
        assert!(e.message.contains(SIDECAR), "{what}: error does not name the weights file: {shown}");
        assert!(e.message.contains(expect), "{what}: expected {expect:?} in {shown}");
    }
    let e = parse_module(&text, FILE, None).expect_err("no loader");
    assert!(e.message.contains(SIDECAR), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let header = "module @m attributes {phase = \"onnx\"} {\n  func @f(%x: f32[1]) -> () {\n";
    let loc = format!("{header}    %0 = onnx.Relu %x : f32[1] loc({}\n", "fused[".repeat(depth));
    let region: String = std::iter::once(header.to_string())
        .chain((0..depth).map(|i| format!("    %v{i} = onnx.Relu %x : f32[1] region() {{\n")))
        .collect();
    for src in [loc, region] {
        let e = parse_module(&src, FILE, None).expect_err("unterminated nesting");
        check_error(&src, &e).unwrap_or_else(|err| panic!("{err}"));
        assert!(e.message.contains("nest deeper"), "{e}");
    }
}

#[test]
fn nesting_within_the_limit_round_trips() {
    let depth = 50;
    let loc = format!("{}\"n\" op \"Relu\"{}", "fused[".repeat(depth), "]".repeat(depth));
    let mut region = String::new();
    for i in 0..depth {
        region += &format!("{:w$}%v{i} = onnx.Relu %x : f32[1] region() {{\n", "", w = 4 + 2 * i);
    }
    for i in (0..depth).rev() {
        region += &format!("{:w$}yield\n{:v$}}}\n", "", "", w = 6 + 2 * i, v = 4 + 2 * i);
    }
    let src = format!(
        "module @m attributes {{phase = \"onnx\"}} {{\n  func @f(%x: f32[1]) -> () {{\n    %0 = onnx.Relu %x : f32[1] loc({loc})\n{region}    return\n  }}\n}}\n"
    );
    let p = parse_module(&src, FILE, None).unwrap_or_else(|e| panic!("{e}"));
    let t1 = print_module(&p.module);
    assert!(t1.contains(&loc), "{t1}");
    let again = parse_module(&t1, FILE, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t1, print_module(&again.module));
    // No op has regions today, so the verifier reports them, recursing through all levels.
    if let Err(e) = verify(&p.module) {
        let _ = e.render(&p.module);
    }
}

#[test]
fn huge_constant_shapes_are_errors() {
    let bodies = [
        "const @a : f32[1000000000000] = dense<[]>",
        "const @a : f32[1000000000000] = dense<[1.0]>",
        "const @a : string[1000000000000] = dense<[\"x\"]>",
        "const @a : f32[4294967296, 4294967296, 16] = dense<[]>",
        "const @a : u8[18446744073709551615, 2] = dense<[1]>",
        "const @a : f64[2305843009213693952] = external<offset = 64, size = 0, hash = 0>",
        "const @a : f32[4294967296, 4294967296] = external<offset = 64, size = 0, hash = 0>",
    ];
    for body in bodies {
        let src = format!("module @m attributes {{phase = \"onnx\"}} {{\n  {body}\n}}\n");
        check_input(&src, true).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert!(parse_module(&src, FILE, None).is_err(), "{body} was accepted");
    }
}
