//! The GEMM epilogue `C = act(alpha · (A·B) + beta · bias)`, applied to each
//! C tile right after its last depth block (while it is in L1).

use crate::act::{Act, ActSlice};

/// The additive term of the epilogue, broadcast to `m × n`.
#[derive(Copy, Clone, Debug, Default)]
pub enum Bias<'a> {
    /// No bias.
    #[default]
    None,
    /// One value for every element.
    Scalar(f32),
    /// One value per column (length `n`): a linear layer's bias.
    PerCol(&'a [f32]),
    /// One value per row (length `m`): a convolution's per-channel bias.
    PerRow(&'a [f32]),
    /// A full `m × n` row-major matrix (onnx.Gemm's C).
    Full(&'a [f32]),
}

/// What happens to the product: `C = act(alpha · (A·B) + beta · bias)`.
/// The bias term is skipped when `beta == 0` (as onnx.Gemm ignores C then,
/// even if it holds NaN). `Default` is the plain product.
#[derive(Copy, Clone, Debug)]
pub struct Epilogue<'a> {
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of the bias.
    pub beta: f32,
    /// The bias.
    pub bias: Bias<'a>,
    /// Activation applied last.
    pub act: Act,
}

impl Default for Epilogue<'_> {
    fn default() -> Self {
        Epilogue { alpha: 1.0, beta: 1.0, bias: Bias::None, act: Act::None }
    }
}

impl<'a> Epilogue<'a> {
    /// `act(product + bias)` with a per-row bias (a convolution's epilogue).
    pub fn per_row(bias: Option<&'a [f32]>, act: Act) -> Epilogue<'a> {
        Epilogue { bias: bias.map_or(Bias::None, Bias::PerRow), act, ..Epilogue::default() }
    }

    /// True if the epilogue leaves the product unchanged.
    pub fn is_identity(&self) -> bool {
        self.alpha == 1.0 && self.act == Act::None && (self.beta == 0.0 || matches!(self.bias, Bias::None))
    }

    /// Assert that the bias fits an `m × n` result.
    pub fn check(&self, m: usize, n: usize) {
        let (len, want) = match self.bias {
            Bias::None | Bias::Scalar(_) => return,
            Bias::PerCol(b) => (b.len(), n),
            Bias::PerRow(b) => (b.len(), m),
            Bias::Full(b) => (b.len(), m * n),
        };
        assert_eq!(len, want, "bias has {len} elements, the {m}×{n} result needs {want}");
    }

    /// Apply to rows `i0..i0 + rows`, columns `j0..j0 + cols` of C (row
    /// stride `ldc`) of an `_ × n` product.
    pub(crate) fn apply(&self, c: &mut [f32], ldc: usize, n: usize, rows: (usize, usize), cols: (usize, usize)) {
        self.apply_block(&mut c[rows.0 * ldc + cols.0..], ldc, n, rows, cols);
    }

    /// [`Epilogue::apply`] with `c` starting at element `(i0, j0)` of C:
    /// one tile as the driver hands it out.
    pub(crate) fn apply_block(
        &self,
        c: &mut [f32],
        ldc: usize,
        n: usize,
        (i0, rows): (usize, usize),
        (j0, cols): (usize, usize),
    ) {
        if !self.is_identity() && rows > 0 {
            apply_block(self, c, ldc, n, (i0, rows), (j0, cols));
        }
    }
}

crate::multiversion! {
    /// The epilogue over one block of C (`c` starts at its first element)
    /// in a single pass per row: the activation is chosen once, outside the
    /// loops, and fused with the bias.
    fn apply_block(ep: &Epilogue<'_>, c: &mut [f32], ldc: usize, n: usize, rows: (usize, usize), cols: (usize, usize)) {
        use crate::math::sigmoid;
        let b = Blk { ep, ldc, n, rows, cols };
        match ep.act {
            Act::None => b.run(c, |x| x),
            Act::Relu => b.run(c, |x| if x < 0.0 { 0.0 } else { x }),
            Act::Clip { min, max } => b.run(c, |x| x.max(min).min(max)),
            Act::Sigmoid => b.run(c, sigmoid),
            Act::HardSigmoid { alpha, beta } => b.run(c, |x| (alpha * x + beta).clamp(0.0, 1.0)),
            Act::HardSwish => b.run(c, |x| x * (x / 6.0 + 0.5).clamp(0.0, 1.0)),
            Act::LeakyRelu { alpha } => b.run(c, |x| if x < 0.0 { alpha * x } else { x }),
            Act::Silu => b.run(c, |x| x * sigmoid(x)),
            other => {
                b.run(c, |x| x);
                for r in 0..rows.1 {
                    other.apply_slice(&mut c[r * ldc..r * ldc + cols.1]);
                }
            }
        }
    }
}

/// One block of C and the epilogue's scale and bias.
struct Blk<'e, 'a> {
    ep: &'e Epilogue<'a>,
    ldc: usize,
    n: usize,
    rows: (usize, usize),
    cols: (usize, usize),
}

impl Blk<'_, '_> {
    /// `x = act(alpha · x + beta · bias)` over the block.
    #[inline(always)]
    fn run(&self, c: &mut [f32], act: impl Fn(f32) -> f32) {
        let (alpha, beta) = (self.ep.alpha, self.ep.beta);
        let bias = if beta == 0.0 { Bias::None } else { self.ep.bias };
        let ((i0, rows), (j0, cols)) = (self.rows, self.cols);
        for i in i0..i0 + rows {
            let at = (i - i0) * self.ldc;
            let row = &mut c[at..at + cols];
            match bias {
                Bias::None => row.iter_mut().for_each(|x| *x = act(alpha * *x)),
                Bias::Scalar(b) => row.iter_mut().for_each(|x| *x = act(alpha * *x + beta * b)),
                Bias::PerRow(b) => {
                    let bi = beta * b[i];
                    row.iter_mut().for_each(|x| *x = act(alpha * *x + bi))
                }
                Bias::PerCol(b) => {
                    row.iter_mut().zip(&b[j0..j0 + cols]).for_each(|(x, &b)| *x = act(alpha * *x + beta * b))
                }
                Bias::Full(b) => row
                    .iter_mut()
                    .zip(&b[i * self.n + j0..i * self.n + j0 + cols])
                    .for_each(|(x, &b)| *x = act(alpha * *x + beta * b)),
            }
        }
    }
}
