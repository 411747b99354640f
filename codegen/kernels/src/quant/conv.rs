//! ConvInteger and QLinearConv: N-D grouped convolution of 8-bit integers
//! in i32, direct loops, bit-exact with the reference interpreter.
//!
//! Invariants: `x [n, c, in..]`, `w [m, c / group, k..]`, `y [n, m, out..]`;
//! the zero points are subtracted before multiplying (`x_zero_point` one
//! value, `w_zero_point` one value or one per output channel); the
//! accumulation wraps in i32. QLinearConv adds the i32 bias, multiplies by
//! `x_scale · w_scale[m] / y_scale` (computed in f32, applied in f64), adds
//! `y_zero_point`, rounds half to even and saturates to the output type.

use crate::conv::window::Window;

/// An 8-bit quantized element.
pub trait Q8: Copy {
    /// The value.
    fn to_i32(self) -> i32;
    /// `x` rounded half to even and saturated.
    fn saturate(x: f64) -> Self;
}

macro_rules! q8 {
    ($($t:ty),*) => {$(
        impl Q8 for $t {
            #[inline]
            fn to_i32(self) -> i32 {
                self as i32
            }
            #[inline]
            fn saturate(x: f64) -> $t {
                x.round_ties_even() as $t
            }
        }
    )*};
}
q8!(u8, i8);

/// The channel geometry of an integer convolution.
#[derive(Copy, Clone, Debug)]
pub struct ConvInt<'a> {
    /// Batch.
    pub n: usize,
    /// Input channels.
    pub c: usize,
    /// Output channels.
    pub m: usize,
    /// Groups (`c` and `m` divisible by it).
    pub group: usize,
    /// The spatial window.
    pub win: Window<'a>,
}

/// `w_zero_point` of output channel `mi` (one value, or one per channel).
#[inline]
fn zp_at<W: Q8>(zp: &[W], mi: usize) -> i32 {
    match zp.len() {
        0 => 0,
        1 => zp[0].to_i32(),
        _ => zp[mi].to_i32(),
    }
}

/// The wrapping i32 convolution of the centered operands, one output at a
/// time through `emit(flat output index, output channel, accumulator)`.
pub(crate) fn conv_i32<X: Q8, W: Q8>(
    p: &ConvInt<'_>,
    x: &[X],
    xzp: i32,
    w: &[W],
    wzp: &[W],
    mut emit: impl FnMut(usize, usize, i32),
) {
    let win = &p.win;
    win.check();
    let (is, ks, os) = (win.in_size(), win.taps(), win.out_size());
    assert!(
        p.group >= 1 && p.c.is_multiple_of(p.group) && p.m.is_multiple_of(p.group),
        "ConvInteger: channels do not match groups"
    );
    let (cg, mg) = (p.c / p.group, p.m / p.group);
    assert_eq!(x.len(), p.n * p.c * is, "ConvInteger: x holds {} values", x.len());
    assert_eq!(w.len(), p.m * cg * ks, "ConvInteger: w holds {} values", w.len());
    assert!(wzp.len() <= 1 || wzp.len() == p.m, "ConvInteger: w_zero_point holds {} values", wzp.len());
    for b in 0..p.n {
        for mi in 0..p.m {
            let c0 = (mi / mg) * cg;
            let wz = zp_at(wzp, mi);
            for o in 0..os {
                let mut acc = 0i32;
                for ci in 0..cg {
                    let (xb, wb) = ((b * p.c + c0 + ci) * is, (mi * cg + ci) * ks);
                    for k in 0..ks {
                        if let Some(off) = win.offset(o, k) {
                            let xv = x[xb + off].to_i32() - xzp;
                            let wv = w[wb + k].to_i32() - wz;
                            acc = acc.wrapping_add(xv.wrapping_mul(wv));
                        }
                    }
                }
                emit((b * p.m + mi) * os + o, mi, acc);
            }
        }
    }
}

/// `ConvInteger`: `y = conv(x − x_zero_point, w − w_zero_point)` in i32.
/// An empty zero point slice means 0.
pub fn conv_integer<X: Q8, W: Q8>(p: &ConvInt<'_>, x: &[X], xzp: &[X], w: &[W], wzp: &[W], y: &mut [i32]) {
    assert_eq!(y.len(), p.n * p.m * p.win.out_size(), "ConvInteger: y holds {} values", y.len());
    let xz = xzp.first().map_or(0, |z| z.to_i32());
    conv_i32(p, x, xz, w, wzp, |i, _, acc| y[i] = acc);
}

/// The quantization parameters of a QLinearConv (read when the model runs).
#[derive(Copy, Clone, Debug)]
pub struct QParams<'a, X, W, Y> {
    /// `x_scale` (one value).
    pub x_scale: f32,
    /// `x_zero_point` (one value).
    pub x_zero: X,
    /// `w_scale`: one value or one per output channel.
    pub w_scale: &'a [f32],
    /// `w_zero_point`: one value or one per output channel.
    pub w_zero: &'a [W],
    /// `y_scale` (one value).
    pub y_scale: f32,
    /// `y_zero_point` (one value).
    pub y_zero: Y,
}

/// `QLinearConv`: the integer convolution plus `bias`, requantized per
/// output channel into `y`.
pub fn qlinear_conv<X: Q8, W: Q8, Y: Q8>(
    p: &ConvInt<'_>,
    q: &QParams<'_, X, W, Y>,
    x: &[X],
    w: &[W],
    bias: Option<&[i32]>,
    y: &mut [Y],
) {
    assert_eq!(y.len(), p.n * p.m * p.win.out_size(), "QLinearConv: y holds {} values", y.len());
    assert!(q.w_scale.len() == 1 || q.w_scale.len() == p.m, "QLinearConv: w_scale holds {} values", q.w_scale.len());
    assert!(bias.is_none_or(|b| b.len() == p.m), "QLinearConv: the bias does not have one value per output channel");
    let zp = q.y_zero.to_i32() as f64;
    let mult = |mi: usize| {
        let s = if q.w_scale.len() == 1 { q.w_scale[0] } else { q.w_scale[mi] };
        ((q.x_scale * s) / q.y_scale) as f64
    };
    conv_i32(p, x, q.x_zero.to_i32(), w, q.w_zero, |i, mi, acc| {
        let a = acc.wrapping_add(bias.map_or(0, |b| b[mi]));
        y[i] = Y::saturate(a as f64 * mult(mi) + zp);
    });
}
