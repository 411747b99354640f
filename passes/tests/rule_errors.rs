//! Every kind of rule-file error is rejected at load time with `file:line:col`
//! and a clear message; several errors in one file are all reported.

use passes::rules::RuleSet;

fn errors(src: &str) -> Vec<String> {
    let mut rs = RuleSet::default();
    match rs.add_source("user.rules", src) {
        Ok(()) => panic!("expected errors for:\n{src}"),
        Err(e) => {
            assert!(rs.rules.is_empty(), "a file with errors must add no rules");
            e.0.iter().map(|e| e.to_string()).collect()
        }
    }
}

fn one_error(src: &str, at: &str, needle: &str) {
    let errs = errors(src);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    assert!(errs[0].starts_with(&format!("user.rules:{at}: ")), "wrong position: {}", errs[0]);
    assert!(errs[0].contains(needle), "message `{}` lacks `{needle}`", errs[0]);
}

#[test]
fn valid_file_loads() {
    let mut rs = RuleSet::default();
    rs.add_source("user.rules", "# Identity(x) = x\nrule id: (onnx.Identity ?x) => ?x;\n").expect("loads");
    assert_eq!(rs.rules.len(), 1);
    assert_eq!(rs.rules[0].origin, "user.rules:2");
    assert_eq!(rs.rules[0].doc, "Identity(x) = x");
}

#[test]
fn builtin_rules_load() {
    let rs = RuleSet::builtin().unwrap_or_else(|e| panic!("{e}"));
    assert!(!rs.rules.is_empty());
    assert!(rs.rules.iter().all(|r| !r.doc.is_empty()));
}

#[test]
fn unknown_op() {
    one_error("# doc\nrule r: (onnx.Relu (onnx.Frobnicate ?x)) => ?x;\n", "2:21", "unknown op `onnx.Frobnicate`");
}

#[test]
fn unbound_variable_on_rhs() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?y;\n", "2:27", "variable `?y` is not bound");
}

#[test]
fn unbound_variable_in_condition() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?x if is_const(?k);\n", "2:42", "`?k` is not bound");
}

#[test]
fn unknown_condition() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?x if is_purple(?x);\n", "2:33", "unknown condition `is_purple`");
}

#[test]
fn unknown_applier() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => @make_it_fast(?x);\n", "2:27", "unknown applier `@make_it_fast`");
}

#[test]
fn condition_arity() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?x if is_const(?x, ?x);\n", "2:33", "takes 1 argument(s), found 2");
}

#[test]
fn op_arity() {
    one_error("# doc\nrule r: (onnx.Add ?x) => ?x;\n", "2:10", "missing required operand `B`");
    one_error("# doc\nrule r: (onnx.Relu ?x ?y) => ?x;\n", "2:10", "too many operands");
}

#[test]
fn unknown_attribute() {
    one_error(
        "# doc\nrule r: (onnx.Relu ?x) => (onnx.LeakyRelu ?x {beta = 0.1});\n",
        "2:47",
        "has no attribute `beta`",
    );
}

#[test]
fn attribute_kind() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => (onnx.LeakyRelu ?x {alpha = \"big\"});\n", "2:47", "expected float");
}

#[test]
fn attrs_variable_used_as_operand() {
    one_error("# doc\nrule r: (onnx.LeakyRelu ?x {?a}) => ?a;\n", "2:37", "bound to attributes but used as an operand");
}

#[test]
fn wildcard_on_rhs() {
    one_error("# doc\nrule r: (onnx.Relu ?x) => (onnx.Relu _);\n", "2:38", "`_` cannot appear on the right-hand side");
}

#[test]
fn missing_comment() {
    one_error("rule r: (onnx.Relu ?x) => ?x;\n", "1:1", "needs a comment line");
}

#[test]
fn lhs_must_be_an_op() {
    one_error("# doc\nrule r: ?x => ?x;\n", "2:1", "left-hand side must be an op pattern");
}

#[test]
fn duplicate_names() {
    let src = "# a\nrule r: (onnx.Relu ?x) => ?x;\n# b\nrule r: (onnx.Identity ?x) => ?x;\n";
    one_error(src, "4:1", "duplicate rule name `r` (first defined at user.rules:2)");
}

#[test]
fn duplicate_of_builtin() {
    let mut rs = RuleSet::builtin().expect("builtin");
    let name = rs.rules[0].name.clone();
    let err = rs.add_source("user.rules", &format!("# doc\nrule {name}: (onnx.Relu ?x) => ?x;\n")).unwrap_err();
    assert!(err.to_string().contains("duplicate rule name"), "{err}");
    assert!(err.to_string().contains("passes/rules/"), "{err}");
}

#[test]
fn syntax_errors() {
    one_error("# doc\nrule r: (onnx.Relu ?x) ?x;\n", "2:24", "expected `=>`");
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?x\n", "2:27", "missing `;`");
    one_error("# doc\nrule r: (onnx.Relu ?x) => ?x $;\n", "2:30", "unexpected character `$`");
    one_error("# doc\nrule r: (onnx.Relu ?x) => (onnx.LeakyRelu ?x {alpha = \"x});\n", "2:55", "unterminated string");
}

#[test]
fn all_errors_in_a_file_are_reported() {
    let src = "# a\nrule a: (onnx.Nope ?x) => ?x;\n# b\nrule b: (onnx.Relu ?x) => ?y;\n# c\nrule c: (onnx.Relu ?x) => ?x if nope(?x);\n";
    let errs = errors(src);
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs[0].starts_with("user.rules:2:"));
    assert!(errs[1].starts_with("user.rules:4:"));
    assert!(errs[2].starts_with("user.rules:6:"));
}

#[test]
fn missing_file_names_the_path() {
    let err = RuleSet::default().add_file(std::path::Path::new("/nonexistent/x.rules")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.rules"), "{err}");
}

#[test]
fn approximate_rules_are_off_until_named() {
    let mut rs = RuleSet::default();
    let src = "# Identity(x) = x\nrule id: (onnx.Identity ?x) => ?x;\n\
               # Erf(x) ~= Tanh(x) (not exact)\napproximate rule erf-tanh: (onnx.Erf ?x) => (onnx.Tanh ?x);\n";
    rs.add_source("user.rules", src).expect("loads");
    assert!(!rs.rules[0].approximate && rs.rules[1].approximate);
    let names = |rs: &RuleSet, exact_only| rs.runnable(exact_only).map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&rs, false), ["id"]);
    let err = rs.enable_approximations(&["id".into(), "nope".into()]).expect_err("exact and unknown names");
    assert!(err.contains("`id` (user.rules:2) is exact") && err.contains("no approximate rule `nope`"), "{err}");
    rs.enable_approximations(&["erf-tanh".into()]).expect("an approximate rule");
    assert_eq!(names(&rs, false), ["id", "erf-tanh"]);
    assert_eq!(names(&rs, true), ["id"], "reference functions stay exact");
}

#[test]
fn approximate_must_precede_rule() {
    one_error("# Erf(x) ~= x\napproximate erf: (onnx.Erf ?x) => ?x;\n", "2:13", "expected `rule`");
}
