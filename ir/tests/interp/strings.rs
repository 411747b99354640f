//! StringConcat, StringSplit and StringNormalizer (the ONNX node tests).

use crate::common::shape::*;

#[test]
fn string_concat_cases() {
    let r = run1(Opcode::StringConcat, vec![strt(&[2], &["abc", "def"]), strt(&[2], &["abc", "def"])], &[]);
    assert_eq!(r, strt(&[2], &["abcabc", "defdef"]));
    let r = run1(Opcode::StringConcat, vec![strt(&[3], &["a", "b", "c"]), strt(&[1], &["!"])], &[]);
    assert_eq!(r, strt(&[3], &["a!", "b!", "c!"]));
    let r = run1(Opcode::StringConcat, vec![strt(&[], &["é"]), strt(&[], &["ü"])], &[]);
    assert_eq!(r, strt(&[], &["éü"]));
    let r = run1(Opcode::StringConcat, vec![strt(&[2], &["", "x"]), strt(&[2], &["", ""])], &[]);
    assert_eq!(r, strt(&[2], &["", "x"]));
    fails(Opcode::StringConcat, vec![Some(strt(&[2], &["a", "b"])), Some(strt(&[3], &["a", "b", "c"]))], &[], 1);
    fails(Opcode::StringConcat, vec![Some(strt(&[1], &["a"])), Some(i32t(&[1], &[1]))], &[], 1);
}

fn split(x: Tensor, at: &[(&str, ir::Attr)]) -> (Tensor, Tensor) {
    let mut r = run(Opcode::StringSplit, vec![Some(x)], at, 2).unwrap_or_else(|e| panic!("{e}"));
    let z = r.pop().unwrap();
    (r.pop().unwrap(), z)
}

#[test]
fn string_split_node_tests() {
    let (y, z) = split(strt(&[2], &["abc.com", "def.net"]), &[("delimiter", s("."))]);
    assert_eq!(y, strt(&[2, 2], &["abc", "com", "def", "net"]));
    eq_i64(&z, &[2], &[2, 2]);
    let x = strt(&[2, 2], &["hello world", "def.net", "o n n x", "the quick brown fox"]);
    let (y, z) = split(x, &[("maxsplit", int(2))]);
    let want = ["hello", "world", "", "def.net", "", "", "o", "n", "n x", "the", "quick", "brown fox"];
    assert_eq!(y, strt(&[2, 2, 3], &want));
    eq_i64(&z, &[2, 2], &[2, 1, 3, 3]);
    let (y, z) = split(strt(&[2], &["o-n-n--x-", "o-n----nx"]), &[("delimiter", s("-"))]);
    assert_eq!(y, strt(&[2, 6], &["o", "n", "n", "", "x", "", "o", "n", "", "", "", "nx"]));
    eq_i64(&z, &[2], &[6, 6]);
    for at in [vec![("delimiter", s(""))], vec![]] {
        let (y, z) = split(strt(&[3], &["hello world !", "  hello   world !", " hello world   ! "]), &at);
        assert_eq!(y, strt(&[3, 3], &["hello", "world", "!"].repeat(3)));
        eq_i64(&z, &[3], &[3, 3, 3]);
    }
    let (y, z) = split(strt(&[0], &[]), &[]);
    assert_eq!((y.shape, z.shape), (vec![0, 0], vec![0]));
    let (y, z) = split(strt(&[2], &["", "  "]), &[]);
    assert_eq!((y.shape, z), (vec![2, 0], ints(&[0, 0])));
}

#[test]
fn string_normalizer_node_tests() {
    let days = || strt(&[4], &["monday", "tuesday", "wednesday", "thursday"]);
    let stop = ("stopwords", ir::Attr::Strs(vec!["monday".into()]));
    let norm = |x: Tensor, at: &[(&str, ir::Attr)]| run1(Opcode::StringNormalizer, vec![x], at);
    assert_eq!(norm(strt(&[2], &["monday", "tuesday"]), &[]), strt(&[2], &["monday", "tuesday"]));
    assert_eq!(norm(days(), std::slice::from_ref(&stop)), strt(&[3], &["tuesday", "wednesday", "thursday"]));
    let r = norm(days(), &[stop.clone(), ("case_change_action", s("UPPER"))]);
    assert_eq!(r, strt(&[3], &["TUESDAY", "WEDNESDAY", "THURSDAY"]));
    let r = norm(strt(&[2], &["monday", "monday"]), &[stop.clone(), ("case_change_action", s("LOWER"))]);
    assert_eq!(r, strt(&[1], &[""]));
    let x = strt(&[1, 6], &["Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"]);
    let r = norm(x.clone(), &[stop.clone(), ("case_change_action", s("LOWER"))]);
    assert_eq!(r, strt(&[1, 4], &["tuesday", "wednesday", "tuesday", "wednesday"]));
    let r = norm(x, &[stop, ("is_case_sensitive", int(1))]);
    assert_eq!(r.shape, vec![1, 6]);
    let r = norm(strt(&[1, 1], &["MONDAY"]), &[("stopwords", ir::Attr::Strs(vec!["monday".into()]))]);
    assert_eq!(r, strt(&[1, 1], &[""]));
    fails(Opcode::StringNormalizer, vec![Some(strt(&[2, 2], &["a"; 4]))], &[], 1);
}
