//! LinearAttention and FlexAttention (expected values from the ONNX reference
//! implementation, onnx 1.22).

use crate::common::qlinear::*;

const Q: [f32; 12] = [0.25, 0.79, 0.55, -0.55, -0.4, 0.75, -0.99, 0.64, 0.59, -0.06, -0.39, -0.44];

const K: [f32; 12] = [-0.49, -0.11, 0.01, 0.11, 0.99, 0.59, 0.24, 0.98, -0.57, -0.68, 0.23, -0.91];

const V: [f32; 12] = [-0.93, 0.03, -0.07, 0.83, 0.26, 0.03, -0.01, -0.5, -0.98, -0.62, 0.38, -0.6];

/// LinearAttention with B = 1, T = 3, two heads of d_k = d_v = 2.
fn la(rule: &str, decay: Option<&[f32]>, beta: Option<&[f32]>) -> Vec<Tensor> {
    let a = [("q_num_heads", Attr::Int(2)), ("kv_num_heads", Attr::Int(2)), ("update_rule", Attr::Str(rule.into()))];
    let g = |v: Option<&[f32]>| v.map(|v| f32t(&[1, 3, 2], v));
    let ins =
        [Some(f32t(&[1, 3, 4], &Q)), Some(f32t(&[1, 3, 4], &K)), Some(f32t(&[1, 3, 4], &V)), None, g(decay), g(beta)];
    run(Opcode::LinearAttention, &ins, &a, 2)
}

fn check_la(out: &[Tensor], o: &[f32], s: &[f32]) {
    check(&out[0], &f32t(&[1, 3, 4], o));
    check(&out[1], &f32t(&[1, 2, 2, 2], s));
}

#[test]
fn linear_attention_linear() {
    let out = la("linear", None, None);
    let o = [
        0.13770339,
        -0.0044420445,
        0.0027223611,
        -0.032279424,
        -0.066089757,
        0.0033941127,
        -0.0057494845,
        -0.10223702,
        0.49142295,
        0.13519597,
        0.08978489,
        0.023031157,
    ];
    check_la(&out, &o, &[1.2717, 0.3684, 0.9221, 0.436, 0.0843, -0.2497, -0.3633, 0.1473]);
}

#[test]
fn linear_attention_gated() {
    let out = la("gated", Some(&[-0.32, -0.5, -0.08, -0.42, -0.37, -0.06]), None);
    let o = [
        0.13770339,
        -0.0044420445,
        0.0027223611,
        -0.032279424,
        -0.060351253,
        0.0032090002,
        -0.0047224788,
        -0.11441439,
        0.39290553,
        0.13376781,
        0.08858192,
        0.023927247,
    ];
    let s = [1.0269622, 0.36454168, 0.83758807, 0.43172184, 0.08470661, -0.24587587, -0.35979393, 0.14103034];
    check_la(&out, &o, &s);
}

#[test]
fn linear_attention_delta() {
    let out = la("delta", None, Some(&[0.51, 0.85, 0.64, 0.74, 0.09, 0.54]));
    let o = [
        0.070228733,
        -0.0022654429,
        0.0023140071,
        -0.027437512,
        -0.038083922,
        0.0020363121,
        -0.0032473239,
        -0.087599039,
        0.10981134,
        0.017797563,
        0.047284719,
        0.027132384,
    ];
    let s = [0.27354455, 0.047708943, 0.10157657, 0.049645342, 0.045002036, -0.20592621, -0.191867, 0.095318705];
    check_la(&out, &o, &s);
}

#[test]
fn linear_attention_gated_delta() {
    let decay = [-0.25, -0.06, -0.32, -0.2, -0.47, -0.31];
    let out = la("gated_delta", Some(&decay), Some(&[0.32, 0.15, 0.82, 0.38, 0.98, 0.59]));
    let o = [
        0.044065084,
        -0.0014214544,
        0.00040835422,
        -0.004841914,
        -0.013538094,
        0.0014717041,
        -0.0013154482,
        -0.049158156,
        0.2316267,
        0.12970315,
        0.050072227,
        -0.042166617,
    ];
    let s = [0.61949372, 0.35287356, 0.63219422, 0.41279078, 0.050527297, -0.13005266, -0.20572379, 0.25080258];
    check_la(&out, &o, &s);
}

/// GQA (4 query heads on 2 KV heads), per-key-dim decay, a shared beta `[B, T, 1]`,
/// a past state and an explicit scale.
#[test]
fn linear_attention_gqa_with_past() {
    let q = [
        0.94, -0.57, 0.34, -0.4, 0.75, 0.32, -0.74, 0.69, 0.89, 0.81, 0.14, -0.71, -0.62, 0.86, 0.1, -0.64, 0.77, 0.28,
        0.14, -0.25, -0.18, -0.52, -0.92, 0.75,
    ];
    let past = [0.21, 0.28, 0.35, -0.7, -0.12, -0.52, -0.2, -0.81];
    let decay = [-0.27, -0.23, -0.34, -0.12, -0.49, -0.31, -0.48, -0.44, -0.02, -0.17, -0.29, -0.24];
    let ins = [
        Some(f32t(&[1, 3, 8], &q)),
        Some(f32t(&[1, 3, 4], &K)),
        Some(f32t(&[1, 3, 4], &V)),
        Some(f32t(&[1, 2, 2, 2], &past)),
        Some(f32t(&[1, 3, 4], &decay)),
        Some(f32t(&[1, 3, 1], &[0.87, 0.34, 0.59])),
    ];
    let a = [("q_num_heads", Attr::Int(4)), ("kv_num_heads", Attr::Int(2)), ("scale", Attr::Float(0.5))];
    let out = run(Opcode::LinearAttention, &ins, &a, 2);
    let o = [
        0.13817039,
        0.24623853,
        0.015412509,
        0.14364873,
        -0.061333038,
        -0.23678666,
        -0.031073865,
        -0.083708361,
        0.19795851,
        -0.079895966,
        -0.061268356,
        0.14669536,
        -0.02008586,
        -0.11094134,
        0.022810565,
        0.12376385,
        0.25126243,
        0.15628348,
        -0.025613628,
        0.031719826,
        0.061138958,
        -0.0082003735,
        -0.095516771,
        0.18154159,
    ];
    check(&out[0], &f32t(&[1, 3, 8], &o));
    let s = [0.48030895, 0.4139182, 0.47388205, -0.021964431, 0.012437236, -0.28774485, -0.23945504, 0.1311439];
    check(&out[1], &f32t(&[1, 2, 2, 2], &s));
}

/// With f16 activations and no past state, present_state is f16 too.
#[test]
fn linear_attention_f16_state_type() {
    let a =
        [("q_num_heads", Attr::Int(2)), ("kv_num_heads", Attr::Int(2)), ("update_rule", Attr::Str("linear".into()))];
    let ins = [Some(f16t(&[1, 3, 4], &Q)), Some(f16t(&[1, 3, 4], &K)), Some(f16t(&[1, 3, 4], &V))];
    let out = run(Opcode::LinearAttention, &ins, &a, 2);
    assert_eq!((out[0].dtype(), out[1].dtype()), (DType::F16, DType::F16));
    assert_eq!(out[1].shape, vec![1, 2, 2, 2]);
}

#[test]
fn linear_attention_errors() {
    let ins = || [Some(f32t(&[1, 3, 4], &Q)), Some(f32t(&[1, 3, 4], &K)), Some(f32t(&[1, 3, 4], &V))];
    let heads = |q: i64, kv: i64| vec![("q_num_heads", Attr::Int(q)), ("kv_num_heads", Attr::Int(kv))];
    // the default rule (gated_delta) needs decay and beta
    run_err(Opcode::LinearAttention, &ins(), &heads(2, 2), 2, "requires the `decay` operand");
    let mut a = heads(2, 2);
    a.push(("update_rule", Attr::Str("linear".into())));
    let mut with_beta = ins().to_vec();
    with_beta.extend([None, None, Some(f32t(&[1, 3, 2], &[0.5; 6]))]);
    run_err(Opcode::LinearAttention, &with_beta, &a, 2, "does not take the `beta` operand");
    let mut a = heads(3, 2);
    a.push(("update_rule", Attr::Str("linear".into())));
    run_err(Opcode::LinearAttention, &ins(), &a, 2, "multiple of kv_num_heads");
}

const FQ: [f32; 12] = [-0.31, 0.9, 0.15, -0.32, -0.46, 0.9, -0.11, 0.96, 0.03, 0.04, 0.79, 0.49];

const FK: [f32; 9] = [0.16, -0.15, 0.76, -0.18, 0.85, -0.86, -0.14, 0.04, 0.9];

const FV: [f32; 6] = [-0.5, 0.61, 0.35, 0.43, 0.26, 0.94];

/// FlexAttention with Q `[1, 2, 2, 3]` sharing one KV head `[1, 1, 3, 3]` / `[1, 1, 3, 2]`.
fn flex(mk: fn(&[usize], &[f32]) -> Tensor, list: &[(&str, Attr)]) -> Tensor {
    let ins = [Some(mk(&[1, 2, 2, 3], &FQ)), Some(mk(&[1, 1, 3, 3], &FK)), Some(mk(&[1, 1, 3, 2], &FV))];
    run(Opcode::FlexAttention, &ins, list, 1).remove(0)
}

#[test]
fn flex_attention_gqa_default_scale() {
    let want = [0.093799412, 0.63933873, -0.039397441, 0.7305814, 0.10361863, 0.62638223, 0.044744212, 0.67212456];
    check(&flex(f32t, &[]), &f32t(&[1, 2, 2, 2], &want));
}

#[test]
fn flex_attention_explicit_scale() {
    let want = [0.066687904, 0.64980513, -0.0098715462, 0.70113683, 0.071512356, 0.64332026, 0.040804274, 0.66624755];
    check(&flex(f32t, &[("scale", Attr::Float(0.3))]), &f32t(&[1, 2, 2, 2], &want));
}

#[test]
fn flex_attention_f16_and_f64() {
    let want = [0.09387207, 0.63916016, -0.039337158, 0.73046875, 0.10369873, 0.62646484, 0.044799805, 0.671875];
    check(&flex(f16t, &[]), &f16t(&[1, 2, 2, 2], &want));
    let want = [
        0.0937994254855624,
        0.6393387691914406,
        -0.03939744627324129,
        0.7305814067754063,
        0.10361861368502297,
        0.6263822147984391,
        0.04474422125803287,
        0.672124560962135,
    ];
    let got = flex(f64t_of_f32, &[]);
    check(&got, &t(&[1, 2, 2, 2], Data::F64(want.to_vec())));
}

#[test]
fn flex_attention_errors() {
    let ins = [Some(f32t(&[1, 2, 2, 3], &FQ)), Some(f32t(&[1, 1, 3, 3], &FK)), Some(f32t(&[1, 1, 2, 3], &FV))];
    run_err(Opcode::FlexAttention, &ins, &[], 1, "disagree");
    let ins = [Some(f32t(&[1, 2, 2, 3], &FQ)), Some(f32t(&[1, 1, 3, 3], &FK)), Some(f32t(&[1, 1, 3, 2], &FV))];
    run_err(Opcode::FlexAttention, &ins, &[("softmax_precision", Attr::Int(7))], 1, "softmax_precision");
}
