//! Activation epilogues fused into conv/linear kernels, and the same
//! functions as standalone elementwise ops. The enum and its per-value f32
//! formula are the numeric core's (`edgec_numeric::act`); this module adds
//! the vectorized slice loops.
//! Shared infrastructure: conv, the GEMM epilogue (linalg, attention,
//! rnn) and the elementwise ops apply these.

pub use edgec_numeric::act::{sigmoid, Activation as Act};
pub use edgec_numeric::special::erf_cody as erf_f64;

/// Slice application of an [`Act`] (the kernels' loops over its formula).
pub trait ActSlice {
    /// Apply in place to every element. The variant is matched once, outside
    /// the loop, so each loop is a straight-line map the compiler vectorizes
    /// (sigmoid-based variants use the branch-free [`crate::math::exp`]).
    fn apply_slice(self, v: &mut [f32]);
}

impl ActSlice for Act {
    fn apply_slice(self, v: &mut [f32]) {
        if self != Act::None {
            act_slice(self, v);
        }
    }
}

/// [`ActSlice::apply_slice`] inlined into the caller (its kernels'
/// instruction set): for a fused epilogue on a few registers.
#[inline(always)]
pub(crate) fn apply_slice_inline(act: Act, v: &mut [f32]) {
    use crate::math::sigmoid as fast_sigmoid;
    match act {
        Act::None => {}
        Act::Relu => v.iter_mut().for_each(|x| *x = if *x < 0.0 { 0.0 } else { *x }),
        Act::Clip { min, max } => v.iter_mut().for_each(|x| *x = x.max(min).min(max)),
        Act::Sigmoid => v.iter_mut().for_each(|x| *x = fast_sigmoid(*x)),
        Act::HardSigmoid { alpha, beta } => v.iter_mut().for_each(|x| *x = (alpha * *x + beta).clamp(0.0, 1.0)),
        Act::HardSwish => v.iter_mut().for_each(|x| *x *= (*x / 6.0 + 0.5).clamp(0.0, 1.0)),
        Act::LeakyRelu { alpha } => v.iter_mut().for_each(|x| *x = if *x < 0.0 { alpha * *x } else { *x }),
        Act::Silu => v.iter_mut().for_each(|x| *x *= fast_sigmoid(*x)),
        Act::Tanh => v.iter_mut().for_each(|x| *x = 2.0 * fast_sigmoid(2.0 * *x) - 1.0),
        Act::GeluTanh => {
            let k = (2.0 / std::f32::consts::PI).sqrt();
            v.iter_mut().for_each(|x| *x *= fast_sigmoid(2.0 * k * (*x + 0.044715 * *x * *x * *x)))
        }
        Act::Gelu => v.iter_mut().for_each(|x| *x = act.apply(*x)),
    }
}

crate::multiversion! {
    /// [`ActSlice::apply_slice`], compiled per instruction set.
    fn act_slice(act: Act, v: &mut [f32]) {
        apply_slice_inline(act, v)
    }
}

/// The error function (f64 Abramowitz–Stegun 7.1.26 is too coarse; this is
/// the W. J. Cody rational approximation evaluated in f64, accurate to f32).
pub fn erf(x: f32) -> f32 {
    erf_f64(x as f64) as f32
}
