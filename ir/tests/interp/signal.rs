//! Signal ops (DFT, STFT, the cosine-sum windows, MelWeightMatrix): reference
//! kernels run through `ir::interp::eval_op` (so inference, verification and the
//! runtime type check are exercised too), plus inference with unknown operands.
//! Expected values were computed with the ONNX reference implementation
//! (onnx 1.22, `onnx.reference`) and hard-coded, so no Python is needed here.

use half::{bf16, f16};
use ir::interp::{eval_op, Data, Tensor};
use ir::ops::InferCtx;
use ir::{Attr, Attrs, DType, Dim, Opcode, Shape, Symbol, TensorType};

fn t(shape: &[usize], data: Data) -> Tensor {
    Tensor::new(shape.to_vec(), data)
}

fn f32t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F32(v.to_vec()))
}

fn f64t(shape: &[usize], v: &[f64]) -> Tensor {
    t(shape, Data::F64(v.to_vec()))
}

fn i64s(v: i64) -> Tensor {
    t(&[], Data::I64(vec![v]))
}

fn i32s(v: i32) -> Tensor {
    t(&[], Data::I32(vec![v]))
}

/// Whitespace-separated numbers.
fn nums(s: &str) -> Vec<f64> {
    s.split_whitespace().map(|v| v.parse().unwrap_or_else(|_| panic!("bad number {v}"))).collect()
}

fn f32n(shape: &[usize], s: &str) -> Tensor {
    f32t(shape, &nums(s).iter().map(|&x| x as f32).collect::<Vec<_>>())
}

fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (k, v)| a.with(*k, v.clone()))
}

fn int(name: &str, v: i64) -> (&str, Attr) {
    (name, Attr::Int(v))
}

fn run(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)]) -> Tensor {
    eval_op(op, inputs, attrs(list), 1).unwrap_or_else(|e| panic!("{}: {e}", op.name())).remove(0)
}

fn run_err(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)], needle: &str) {
    match eval_op(op, inputs, attrs(list), 1) {
        Ok(v) => panic!("{} unexpectedly succeeded: {v:?}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}

/// Compare type, shape and values within `tol * (1 + |want|)`; NaN matches NaN.
fn check_tol(got: &Tensor, want: &Tensor, tol: f64) {
    assert_eq!(got.dtype(), want.dtype(), "element type");
    assert_eq!(got.shape, want.shape, "shape");
    let (g, w) = (got.to_f64s(), want.to_f64s());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * (1.0 + b.abs());
        assert!(ok, "element {i}: got {a}, want {b}\n got: {g:?}\nwant: {w:?}");
    }
}

fn check(got: &Tensor, want: &Tensor) {
    check_tol(got, want, if got.dtype() == DType::F64 { 1e-12 } else { 2e-6 });
}

// ---------------------------------------------------------------- DFT

#[test]
fn dft_real_forward_default_axis() {
    let y = run(Opcode::DFT, &[Some(f32t(&[4, 1], &[1.0, 2.0, 3.0, 4.0]))], &[]);
    check(&y, &f32n(&[4, 2], "10 0 -2 2 -2 0 -2 -2"));
}

const C5: [f32; 10] = [1.0, 2.0, 3.0, -1.0, 0.0, 0.5, -2.0, 1.0, 4.0, 0.0];

#[test]
fn dft_complex_inverse() {
    let y = run(Opcode::DFT, &[Some(f32t(&[5, 2], &C5))], &[int("inverse", 1)]);
    let want = "1.2000000476837158 0.5 1.2052204608917236 0.14039430022239685 -1.0337791442871094 \
        0.15652886033058167 -1.0786819458007812 1.152488112449646 0.7072408199310303 0.05058871582150459";
    check(&y, &f32n(&[5, 2], want));
}

#[test]
fn dft_length_truncates_and_pads() {
    let x = || Some(f32t(&[5, 2], &C5));
    let y = run(Opcode::DFT, &[x(), Some(i64s(3))], &[]);
    let want = "4 1.5 -1.799038052558899 -0.3480762243270874 0.7990381121635437 4.848076343536377";
    check(&y, &f32n(&[3, 2], want));
    let y = run(Opcode::DFT, &[x(), Some(i32s(7))], &[]);
    let want = "6.0 2.5 1.208047866821289 0.6220888495445251 -0.3942844569683075 -5.220246315002441 \
        -1.9978200197219849 7.538109302520752 -2.298076868057251 -1.5577234029769897 3.5531179904937744 \
        10.011299133300781 0.9290154576301575 0.10647287964820862";
    check(&y, &f32n(&[7, 2], want));
}

#[test]
fn dft_rfft() {
    let x = || Some(f32t(&[1, 6, 1], &[0.5, 1.0, -2.0, 3.0, 1.5, -1.0]));
    let y = run(Opcode::DFT, &[x()], &[int("onesided", 1)]);
    check(&y, &f32n(&[1, 4, 2], "3 0 -2.25 1.299038052558899 3.75 -4.763139724731445 -3 0"));
    let y = run(Opcode::DFT, &[x(), Some(i64s(5))], &[int("onesided", 1)]);
    let want = "4 0 0.4635255038738251 3.414454460144043 -1.2135255336761475 -4.461390018463135";
    check(&y, &f32n(&[1, 3, 2], want));
}

#[test]
fn dft_irfft() {
    let spec = || Some(f32t(&[1, 4, 2], &[3.0, 0.0, 1.0, -2.0, 0.5, 1.0, -1.0, 4.0]));
    let inv = [int("inverse", 1), int("onesided", 1)];
    let y = run(Opcode::DFT, &[spec()], &inv);
    let want = "0.8333333730697632 1.0386751890182495 0.9493587017059326 0.5 -0.7826920747756958 0.46132487058639526";
    check(&y, &f32n(&[1, 6, 1], want));
    let y = run(Opcode::DFT, &[spec(), Some(i64s(5))], &inv);
    let want = "1.2000000476837158 1.0875345468521118 1.1888474225997925 -0.5124542117118835 0.0360722541809082";
    check(&y, &f32n(&[1, 5, 1], want));
}

#[test]
fn dft_rfft_then_irfft_round_trips() {
    let x: Vec<f64> = (0..14).map(|i| (i as f64 * 0.9).sin() + 0.25 * i as f64).collect();
    let spec = run(Opcode::DFT, &[Some(f64t(&[2, 7, 1], &x))], &[int("onesided", 1)]);
    assert_eq!(spec.shape, [2, 4, 2]);
    let back = run(Opcode::DFT, &[Some(spec), Some(i64s(7))], &[int("inverse", 1), int("onesided", 1)]);
    check(&back, &f64t(&[2, 7, 1], &x));
}

#[test]
fn dft_axis_operand_f64() {
    let x: Vec<f64> = (0..12).map(|i| i as f64 * 0.5 - 1.0).collect();
    let x = || Some(f64t(&[2, 3, 2, 1], &x));
    let y = run(Opcode::DFT, &[x(), None, Some(i64s(0))], &[]);
    let want = "1 0 2 0 3 0 4 0 5 0 6 0 -3 0 -3 0 -3 0 -3 0 -3 0 -3 0";
    check(&y, &f64t(&[2, 3, 2, 2], &nums(want)));
    let h = 0.8660254037844386;
    let want = [
        0.0, 0.0, 1.5, 0.0, -1.5, h, -1.5, h, -1.5, -h, -1.5, -h, 9.0, 0.0, 10.5, 0.0, -1.5, h, -1.5, h, -1.5, -h,
        -1.5, -h,
    ];
    let y = run(Opcode::DFT, &[x(), None, Some(i64s(-3))], &[]);
    check(&y, &f64t(&[2, 3, 2, 2], &want));
}

#[test]
fn dft_opset19_axis_attribute_matches_operand() {
    let x: Vec<f32> = (0..24).map(|i| (i * i % 7) as f32 - 2.0).collect();
    let x = || Some(f32t(&[2, 3, 4, 1], &x));
    for axis in [0, 1, 2, -2, -4] {
        let a = run(Opcode::DFT, &[x()], &[int("axis", axis)]);
        let b = run(Opcode::DFT, &[x(), None, Some(i64s(axis))], &[]);
        check(&a, &b);
    }
    run_err(Opcode::DFT, &[x(), None, Some(i64s(1))], &[int("axis", 1)], "both as an operand and as an attribute");
}

#[test]
fn dft_half_precision_types() {
    let x = [1.0f32, 2.0, 3.0, 4.0];
    let h = run(Opcode::DFT, &[Some(t(&[4, 1], Data::F16(x.iter().map(|&v| f16::from_f32(v)).collect())))], &[]);
    assert_eq!(h.dtype(), DType::F16);
    check_tol(
        &h,
        &t(&[4, 2], Data::F16(nums("10 0 -2 2 -2 0 -2 -2").iter().map(|&v| f16::from_f64(v)).collect())),
        0.0,
    );
    let b = run(Opcode::DFT, &[Some(t(&[4, 1], Data::BF16(x.iter().map(|&v| bf16::from_f32(v)).collect())))], &[]);
    assert_eq!(b.dtype(), DType::BF16);
    check_tol(
        &b,
        &t(&[4, 2], Data::BF16(nums("10 0 -2 2 -2 0 -2 -2").iter().map(|&v| bf16::from_f64(v)).collect())),
        1e-6,
    );
}

#[test]
fn dft_errors() {
    let x = |last: usize| Some(Tensor::zeros(DType::F32, vec![2, 4, last]));
    run_err(Opcode::DFT, &[x(3)], &[], "last dim must be 1 (real) or 2 (complex)");
    run_err(Opcode::DFT, &[x(2)], &[int("onesided", 1)], "requires real input");
    run_err(Opcode::DFT, &[x(1)], &[int("onesided", 1), int("inverse", 1)], "requires complex input");
    run_err(Opcode::DFT, &[x(1), None, Some(i64s(-1))], &[], "invalid for rank 3");
    run_err(Opcode::DFT, &[x(1), None, Some(i64s(2))], &[], "invalid for rank 3");
    run_err(Opcode::DFT, &[x(1), Some(i64s(0))], &[], "must be ≥ 1");
    run_err(Opcode::DFT, &[x(1), None, Some(i32s(0))], &[], "`axis` has element type i32");
    run_err(Opcode::DFT, &[x(1), Some(Tensor::from_i64s(vec![4]))], &[], "must be a scalar");
    run_err(Opcode::DFT, &[x(1)], &[int("inverse", 2)], "must be 0 or 1");
    run_err(Opcode::DFT, &[Some(Tensor::zeros(DType::I32, vec![4, 1]))], &[], "expected a float type");
    run_err(Opcode::DFT, &[Some(Tensor::zeros(DType::F32, vec![4]))], &[], "rank ≥ 2");
    run_err(Opcode::DFT, &[x(1), Some(i64s(1 << 40))], &[], "too large");
    let one_bin = Some(Tensor::zeros(DType::F32, vec![1, 2]));
    run_err(Opcode::DFT, &[one_bin], &[int("onesided", 1), int("inverse", 1)], "DFT length is 0");
}

// ---------------------------------------------------------------- STFT

const SIG: &str = "0.0 1.9326530694961548 2.9563491344451904 2.589627981185913 1.0049644708633423 \
    -1.0523496866226196 -2.614727258682251 -2.9473578929901123 -1.893799901008606 0.05044170096516609";

#[test]
fn stft_with_window_onesided_default() {
    let w = f32t(&[4], &[0.5, 1.0, 1.0, 0.5]);
    let y = run(Opcode::STFT, &[Some(f32n(&[1, 10, 1], SIG)), Some(i64s(3)), Some(w)], &[]);
    let want = "6.183815956115723 0.0 -2.9563491344451904 -0.6378390789031982 -0.2711179256439209 0.0 \
        -0.05993485450744629 0.0 2.347163677215576 -2.3123281002044678 0.5448634624481201 0.0 \
        -6.123300552368164 0.0 0.5864362716674805 2.972578763961792 -0.27902647852897644 0.0";
    check(&y, &f32n(&[1, 3, 3, 2], want));
}

#[test]
fn stft_complex_two_sided_with_frame_length() {
    let sig = "0.0 1.0 1.9326530694961548 0.9553365111351013 2.9563491344451904 0.8253356218338013 \
        2.589627981185913 0.6216099858283997 1.0049644708633423 0.3623577654361725 -1.0523496866226196 \
        0.07073719799518585 -2.614727258682251 -0.22720208764076233 -2.9473578929901123 -0.5048460960388184 \
        -1.893799901008606 -0.7373937368392944 0.05044170096516609 -0.9040721654891968 0.025220850482583046 \
        -0.4520360827445984 -0.946899950504303 -0.3686968684196472 -1.4736789464950562 -0.2524230480194092 \
        -1.3073636293411255 -0.11360104382038116 -0.5261748433113098 0.035368598997592926 0.5024822354316711 \
        0.18117888271808624 1.2948139905929565 0.31080499291419983 1.4781745672225952 0.41266781091690063 \
        0.9663265347480774 0.47766825556755066 0.0 0.5";
    let inputs = [Some(f32n(&[2, 10, 2], sig)), Some(i32s(4)), None, Some(i32s(5))];
    let y = run(Opcode::STFT, &inputs, &[int("onesided", 0)]);
    let want = "8.48359489440918 3.7646398544311523 -2.895312786102295 -0.8612512350082397 -0.5079917907714844 \
        0.1845845878124237 -0.8175709247589111 0.5776028633117676 -4.26271915435791 1.3344238996505737 \
        -7.503270149230957 -1.0363469123840332 5.526148796081543 -0.2471930980682373 1.8806229829788208 \
        0.4972374141216278 1.4587184190750122 0.8537204265594482 3.662602424621582 1.7443710565567017 \
        -4.228896617889404 -1.15138840675354 1.3540397882461548 0.2389705777168274 0.25209781527519226 \
        -0.2063547670841217 0.46305012702941895 -0.3845962584018707 2.285813093185425 -0.7568114995956421 \
        3.7156224250793457 1.4176884889602661 -2.65753436088562 0.2025805562734604 -0.9349603056907654 \
        -0.17582997679710388 -0.780170738697052 -0.3723390996456146 -1.9738311767578125 -0.8952569961547852";
    check(&y, &f32n(&[2, 2, 5, 2], want));
}

#[test]
fn stft_without_window_or_length_uses_whole_signal() {
    let sig = || Some(f32n(&[1, 10, 1], SIG));
    let y = run(Opcode::STFT, &[sig(), Some(i64s(1))], &[]);
    let d = run(Opcode::DFT, &[sig()], &[int("onesided", 1)]);
    assert_eq!(y.shape, [1, 1, 6, 2]);
    check(&Tensor::new(vec![1, 6, 2], y.data.clone()), &d);
}

#[test]
fn stft_errors() {
    let sig = || Some(f32n(&[1, 10, 1], SIG));
    let w3 = || Some(f32t(&[3], &[1.0; 3]));
    run_err(Opcode::STFT, &[sig(), Some(i64s(2)), w3(), Some(i64s(4))], &[], "does not match the window length 3");
    run_err(Opcode::STFT, &[sig(), Some(i64s(0)), w3()], &[], "frame_step is 0");
    run_err(Opcode::STFT, &[sig(), Some(i64s(1)), None, Some(i64s(11))], &[], "shorter than the frame length");
    run_err(Opcode::STFT, &[sig(), Some(i64s(1)), None, Some(i64s(0))], &[], "must be ≥ 1");
    let w64 = Some(f64t(&[3], &[1.0; 3]));
    run_err(Opcode::STFT, &[sig(), Some(i64s(1)), w64], &[], "window has element type f64");
    let flat = Some(f32t(&[10], &[0.0; 10]));
    run_err(Opcode::STFT, &[flat, Some(i64s(1))], &[], "must have rank 3");
}

// ---------------------------------------------------------------- windows

fn window(op: Opcode, size: Tensor, list: &[(&str, Attr)]) -> Tensor {
    run(op, &[Some(size)], list)
}

#[test]
fn windows_match_node_tests() {
    let cases = [
        (Opcode::HannWindow, 1, "0 0.0954915 0.3454915 0.6545085 0.9045085 1 0.9045085 0.6545085 0.3454915 0.0954915"),
        (Opcode::HannWindow, 0, "0 0.11697778 0.41317591 0.75 0.96984631 0.96984631 0.75 0.41317591 0.11697778 0"),
        (
            Opcode::HammingWindow,
            1,
            "0.08695652 0.17414442 0.40240529 0.68455124 0.91281211 1 0.91281211 0.68455124 0.40240529 0.17414442",
        ),
        (
            Opcode::HammingWindow,
            0,
            "0.08695652 0.19376233 0.46420410 0.77173913 0.97246837 0.97246837 0.77173913 0.46420410 0.19376233 0.08695652",
        ),
        (Opcode::BlackmanWindow, 1, "0 0.04021286 0.20077014 0.50978714 0.84922987 1 0.84922987 0.50978714 0.20077014 0.04021286"),
        (Opcode::BlackmanWindow, 0, "0 0.05086963 0.25800049 0.63 0.95112985 0.95112985 0.63 0.25800049 0.05086963 0"),
    ];
    for (op, periodic, want) in cases {
        let y = window(op, i32s(10), &[int("periodic", periodic)]);
        check_tol(&y, &f32n(&[10], want), 1e-6);
    }
}

#[test]
fn windows_f64_and_integer_outputs() {
    let f64_ty = ("output_datatype", Attr::Type(DType::F64));
    let i32_ty = ("output_datatype", Attr::Type(DType::I32));
    let cases = [
        (Opcode::HannWindow, [0.0, 0.5, 1.0, 0.5, 0.0]),
        (Opcode::HammingWindow, [2.0 / 23.0, 25.0 / 46.0, 1.0, 25.0 / 46.0, 2.0 / 23.0]),
        (Opcode::BlackmanWindow, [0.0, 0.34, 1.0, 0.34, 0.0]),
    ];
    for (op, want) in cases {
        let y = window(op, i64s(5), &[int("periodic", 0), f64_ty.clone()]);
        check_tol(&y, &f64t(&[5], &want), 1e-12);
        let y = window(op, i64s(5), &[int("periodic", 0), i32_ty.clone()]);
        assert_eq!(y, t(&[5], Data::I32(vec![0, 0, 1, 0, 0])), "{}", op.name());
    }
    let y = window(Opcode::BlackmanWindow, i32s(4), &[("output_datatype", Attr::Type(DType::F16))]);
    check_tol(&y, &t(&[4], Data::F16([0.0, 0.34, 1.0, 0.34].map(f16::from_f64).to_vec())), 1e-3);
}

#[test]
fn window_edge_cases() {
    let y = window(Opcode::HannWindow, i64s(1), &[int("periodic", 0)]);
    assert!(y.to_f64s()[0].is_nan(), "symmetric size-1 window is 0/0 as in ONNX");
    let y = window(Opcode::HammingWindow, i64s(1), &[]);
    check_tol(&y, &f32t(&[1], &[2.0 / 23.0]), 1e-7);
    run_err(Opcode::HannWindow, &[Some(i64s(0))], &[], "must be ≥ 1");
    run_err(Opcode::HannWindow, &[Some(i64s(1 << 40))], &[], "too large");
    run_err(Opcode::HannWindow, &[Some(i64s(4))], &[int("periodic", 3)], "must be 0 or 1");
    run_err(Opcode::HannWindow, &[Some(f32t(&[], &[4.0]))], &[], "`size` has element type f32");
    let bool_ty = [("output_datatype", Attr::Type(DType::Bool))];
    run_err(Opcode::BlackmanWindow, &[Some(i64s(4))], &bool_ty, "not a numeric type");
}

// ---------------------------------------------------------------- MelWeightMatrix

fn mel(bins: Tensor, len: Tensor, rate: Tensor, lo: Tensor, hi: Tensor, list: &[(&str, Attr)]) -> Tensor {
    run(Opcode::MelWeightMatrix, &[Some(bins), Some(len), Some(rate), Some(lo), Some(hi)], list)
}

#[test]
fn mel_node_test() {
    let y = mel(i32s(8), i32s(16), i32s(8192), f32t(&[], &[0.0]), f32t(&[], &[4096.0]), &[]);
    let mut want = vec![0.0f32; 72];
    for (r, c) in [(0, 0), (0, 1), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7)] {
        want[r * 8 + c] = 1.0;
    }
    check(&y, &f32t(&[9, 8], &want));
}

#[test]
fn mel_fractional_triangles() {
    let args = || (i32s(4), i32s(64), i32s(8000), f32t(&[], &[0.0]), f32t(&[], &[4000.0]));
    let (a, b, c, d, e) = args();
    let y = mel(a, b, c, d, e, &[]);
    let mut want = vec![0.0f64; 33 * 4];
    let cols: [&[(usize, f64)]; 4] = [
        &[(1, 0.5), (2, 1.0), (3, 2.0 / 3.0), (4, 1.0 / 3.0)],
        &[(3, 1.0 / 3.0), (4, 2.0 / 3.0), (5, 1.0), (6, 0.75), (7, 0.5), (8, 0.25)],
        &[(6, 0.25), (7, 0.5), (8, 0.75), (9, 1.0), (10, 0.8), (11, 0.6), (12, 0.4), (13, 0.2)],
        &[(10, 0.2), (11, 0.4), (12, 0.6), (13, 0.8), (14, 1.0), (15, 0.875), (16, 0.75), (17, 0.625)],
    ];
    for (ci, col) in cols.iter().enumerate() {
        for &(r, v) in col.iter() {
            want[r * 4 + ci] = v;
        }
    }
    for (r, v) in [(18, 0.5), (19, 0.375), (20, 0.25), (21, 0.125)] {
        want[r * 4 + 3] = v;
    }
    check(&y, &f32t(&[33, 4], &want.iter().map(|&v| v as f32).collect::<Vec<_>>()));
    let (a, b, c, d, e) = args();
    let y = mel(a, b, c, d, e, &[("output_datatype", Attr::Type(DType::I32))]);
    let ones: Vec<i32> = want.iter().map(|&v| v as i32).collect();
    assert_eq!(y, t(&[33, 4], Data::I32(ones)));
}

#[test]
fn mel_f64_hertz_and_output() {
    let f64_ty = [("output_datatype", Attr::Type(DType::F64))];
    let y = mel(i64s(5), i64s(32), i64s(16000), f64t(&[], &[100.0]), f64t(&[], &[7000.0]), &f64_ty);
    let mut want = vec![0.0; 17 * 5];
    let entries = [(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0), (3, 2, 0.5), (3, 3, 0.5), (4, 3, 1.0), (5, 3, 0.5)];
    for (r, c, v) in entries {
        want[r * 5 + c] = v;
    }
    for (r, v) in [(5, 0.5), (6, 1.0), (7, 0.75), (8, 0.5), (9, 0.25)] {
        want[r * 5 + 4] = v;
    }
    check(&y, &f64t(&[17, 5], &want));
}

#[test]
fn mel_errors() {
    let f = |v: f32| Some(f32t(&[], &[v]));
    let op = Opcode::MelWeightMatrix;
    run_err(op, &[Some(i64s(-1)), Some(i64s(16)), Some(i64s(8000)), f(0.0), f(4000.0)], &[], "num_mel_bins is -1");
    run_err(op, &[Some(i64s(4)), Some(i64s(0)), Some(i64s(8000)), f(0.0), f(4000.0)], &[], "dft_length is 0");
    run_err(op, &[Some(i64s(4)), Some(i64s(16)), Some(i64s(0)), f(0.0), f(4000.0)], &[], "sample_rate is 0");
    run_err(op, &[Some(i64s(4)), Some(i64s(16)), Some(i64s(8000)), f(0.0), f(40000.0)], &[], "outside [0, 9)");
    let hi64 = Some(f64t(&[], &[4000.0]));
    run_err(op, &[Some(i64s(4)), Some(i64s(16)), Some(i64s(8000)), f(0.0), hi64], &[], "differ in type");
}

// ---------------------------------------------------------------- inference

fn ty(dt: DType, dims: &[Dim]) -> TensorType {
    TensorType::new(dt, Shape::from_dims(dims.iter().copied()))
}

fn infer(op: Opcode, operands: &[Option<TensorType>], list: &[(&str, Attr)]) -> Result<TensorType, String> {
    let refs: Vec<Option<&TensorType>> = operands.iter().map(Option::as_ref).collect();
    let a = attrs(list);
    let ctx = InferCtx { operands: &refs, consts: &[], attrs: &a, num_results: 1, attr_const: None };
    (op.def().infer)(&ctx).map(|mut v| v.remove(0))
}

#[test]
fn inference_with_unknown_operands() {
    use Dim::{Static as S, Unknown as U};
    let n = Dim::Sym(Symbol::new("n"));
    let scalar = |dt| Some(TensorType::scalar(dt));
    let x = Some(ty(DType::F32, &[S(2), n, S(1)]));
    // Default axis -2 keeps the symbolic length; the last dim becomes 2.
    assert_eq!(infer(Opcode::DFT, std::slice::from_ref(&x), &[]), Ok(ty(DType::F32, &[S(2), n, S(2)])));
    // A non-constant axis with onesided: only the rank and the last dim are known.
    let got = infer(Opcode::DFT, &[x.clone(), None, scalar(DType::I64)], &[int("onesided", 1)]);
    assert_eq!(got, Ok(ty(DType::F32, &[U, U, S(2)])));
    // A non-constant axis without onesided or dft_length keeps the shape.
    assert_eq!(infer(Opcode::DFT, &[x.clone(), None, scalar(DType::I64)], &[]), Ok(ty(DType::F32, &[S(2), n, S(2)])));
    // A non-constant dft_length makes the axis unknown.
    let got = infer(Opcode::DFT, &[x.clone(), scalar(DType::I32)], &[int("axis", 0)]);
    assert_eq!(got, Ok(ty(DType::F32, &[U, n, S(2)])));
    let irfft = [int("inverse", 1), int("onesided", 1)];
    let spec = Some(ty(DType::F64, &[S(6), S(2)]));
    assert_eq!(infer(Opcode::DFT, &[spec], &irfft), Ok(ty(DType::F64, &[S(10), S(1)])));
    assert!(infer(Opcode::DFT, &[x, None, scalar(DType::I64)], &[int("axis", 0)]).is_err());
    // STFT with a static window but an unknown frame_step.
    let sig = Some(ty(DType::F32, &[S(1), S(128), S(1)]));
    let w = Some(ty(DType::F32, &[S(16)]));
    let got = infer(Opcode::STFT, &[sig, scalar(DType::I64), w], &[]);
    assert_eq!(got, Ok(ty(DType::F32, &[S(1), U, S(9), S(2)])));
    // Windows and MelWeightMatrix with unknown sizes.
    let got = infer(Opcode::HannWindow, &[scalar(DType::I32)], &[("output_datatype", Attr::Type(DType::U8))]);
    assert_eq!(got, Ok(ty(DType::U8, &[U])));
    let ops = [scalar(DType::I64), scalar(DType::I64), scalar(DType::I64), scalar(DType::F32), scalar(DType::F32)];
    assert_eq!(infer(Opcode::MelWeightMatrix, &ops, &[]), Ok(ty(DType::F32, &[U, U])));
}
