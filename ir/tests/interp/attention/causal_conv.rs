//! CausalConvWithState (expected values from the ONNX reference implementation).

use crate::common::qlinear::*;

const X: [f32; 8] = [0.37, -0.29, 0.04, 0.53, 0.82, -0.7, 0.87, -0.99];

const W: [f32; 6] = [0.51, 0.62, -0.73, -0.16, 0.63, -0.97];

const PAST: [f32; 4] = [0.03, 0.45, -0.55, -0.6];

/// The last two positions of `concat(past or zeros, X)` per channel.
const STATE: [f32; 4] = [0.04, 0.53, 0.87, -0.99];

fn cc(inputs: &[Option<Tensor>], act: &str) -> Vec<Tensor> {
    run(Opcode::CausalConvWithState, inputs, &[("activation", Attr::Str(act.into()))], 2)
}

#[test]
fn causal_conv_zero_state() {
    let out = cc(&[Some(f32t(&[1, 2, 4], &X)), Some(f32t(&[2, 1, 3], &W))], "none");
    let want = [-0.2701, 0.4411, -0.020299984, -0.51, -0.7954, 1.1956, -1.4161, 1.6204];
    check(&out[0], &f32t(&[1, 2, 4], &want));
    check(&out[1], &f32t(&[1, 2, 2], &STATE));
}

#[test]
fn causal_conv_bias_past_and_silu() {
    let ins = [
        Some(f32t(&[1, 2, 4], &X)),
        Some(f32t(&[2, 1, 3], &W)),
        Some(f32t(&[2], &[0.26, 0.59])),
        Some(f32t(&[1, 2, 2], &PAST)),
    ];
    let out = cc(&ins, "silu");
    let want = [0.16215758, 0.6674235, 0.13414563, -0.10945586, -0.18756951, 1.6328427, -0.25152296, 1.9919673];
    check(&out[0], &f32t(&[1, 2, 4], &want));
    check(&out[1], &f32t(&[1, 2, 2], &STATE));
    // `swish` is an alias of `silu`
    check(&cc(&ins, "swish")[0], &out[0]);
}

/// One decode step: the state shifts by one position.
#[test]
fn causal_conv_decode_step() {
    let ins =
        [Some(f32t(&[1, 2, 1], &[-0.27, -0.64])), Some(f32t(&[2, 1, 3], &W)), None, Some(f32t(&[1, 2, 2], &PAST))];
    let out = cc(&ins, "none");
    check(&out[0], &f32t(&[1, 2, 1], &[0.4914, 0.3308]));
    check(&out[1], &f32t(&[1, 2, 2], &[0.45, -0.27, -0.6, -0.64]));
}

/// Kernel size 1: a per-channel scale and an empty state.
#[test]
fn causal_conv_kernel_size_one_f16() {
    let out = cc(&[Some(f16t(&[1, 2, 2], &[1.0, 2.0, 3.0, 4.0])), Some(f16t(&[2, 1, 1], &[0.5, -1.0]))], "none");
    check(&out[0], &f16t(&[1, 2, 2], &[0.5, 1.0, -3.0, -4.0]));
    check(&out[1], &f16t(&[1, 2, 0], &[]));
}

/// An input shorter than the kernel: the state keeps part of the zero padding.
#[test]
fn causal_conv_short_input() {
    let out = cc(&[Some(f32t(&[1, 1, 1], &[2.0])), Some(f32t(&[1, 1, 3], &[1.0, 1.0, 1.0]))], "none");
    check(&out[0], &f32t(&[1, 1, 1], &[2.0]));
    check(&out[1], &f32t(&[1, 1, 2], &[0.0, 2.0]));
}

#[test]
fn causal_conv_errors() {
    let x = || Some(f32t(&[1, 2, 4], &X));
    run_err(Opcode::CausalConvWithState, &[x(), Some(f32t(&[2, 2, 3], &[0.0; 12]))], &[], 2, "weight");
    let bad_past = Some(f32t(&[1, 2, 3], &[0.0; 6]));
    run_err(Opcode::CausalConvWithState, &[x(), Some(f32t(&[2, 1, 3], &W)), None, bad_past], &[], 2, "past_state");
}
