//! Recurrent ops with the semantics of ONNX `LSTM`, `GRU` and `RNN` (and of
//! edgec's reference interpreter): every direction, both layouts, activation
//! lists with parameters, `clip`, `sequence_lens`, initial states, LSTM
//! peepholes and `input_forget`, GRU `linear_before_reset`.
//!
//! Operands are the ONNX tensors, contiguous row-major:
//! - X `[seq, batch, input]` (layout 0) or `[batch, seq, input]` (layout 1);
//! - W `[dirs, G·hidden, input]`, R `[dirs, G·hidden, hidden]` with `G` gates
//!   (LSTM 4: i, o, f, c; GRU 3: z, r, h; RNN 1), or both pre-packed
//!   ([`PackedWeights`]);
//! - B `[dirs, 2·G·hidden]` (`Wb` then `Rb`), P `[dirs, 3·hidden]` (Pi, Po, Pf);
//! - initial states and Y_h/Y_c `[dirs, batch, hidden]` (layout 1:
//!   `[batch, dirs, hidden]`); Y `[seq, dirs, batch, hidden]` (layout 1:
//!   `[batch, seq, dirs, hidden]`).
//!
//! Sequence `b` runs `len_b` steps (`sequence_lens`, default `seq`); the
//! reverse direction visits times `len_b − 1, …, 0`. Y is zero at times
//! `≥ len_b`; Y_h/Y_c are the states after the last step (the initial state
//! if `len_b = 0`). Missing B, P and initial states are zeros.
//!
//! Computation: per direction, one GEMM projects every time step of X
//! (`X·Wᵀ + Wb`), then each step is one GEMM over the batch (`H·Rᵀ + Rb`;
//! GRU two, for its reset gate) followed by the elementwise cell update, all
//! in f32. `clip` bounds the gates' pre-activations to `[−clip, clip]`.

mod activation;
mod elman;
mod gru;
mod lstm;
mod seq;
mod weights;

pub use activation::{resolve_activations, Activation};
pub use elman::{rnn, rnn_scratch_len};
pub use gru::{gru, gru_scratch_len};
pub use lstm::{lstm, lstm_scratch_len};
pub use weights::{PackedWeights, Weights};

/// Which way(s) the sequence is processed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Times `0, 1, …` (one direction).
    #[default]
    Forward,
    /// Times `len − 1, …, 0` (one direction).
    Reverse,
    /// Forward (direction 0) and reverse (direction 1).
    Bidirectional,
}

impl Direction {
    /// The number of directions (1 or 2).
    pub fn count(self) -> usize {
        if self == Direction::Bidirectional {
            2
        } else {
            1
        }
    }

    /// True if direction index `d` runs backwards in time.
    pub fn is_reverse(self, d: usize) -> bool {
        self == Direction::Reverse || d == 1
    }
}

/// Where the batch axis sits (the ONNX `layout` attribute).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// `layout = 0`: time first (X `[seq, batch, input]`).
    #[default]
    SeqFirst,
    /// `layout = 1`: batch first (X `[batch, seq, input]`).
    BatchFirst,
}

/// The sizes of a recurrent op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Sequence length (time steps of X).
    pub seq: usize,
    /// Batch size.
    pub batch: usize,
    /// Input features.
    pub input: usize,
    /// Hidden size.
    pub hidden: usize,
    /// Direction(s).
    pub direction: Direction,
    /// Axis order of X, Y and the states.
    pub layout: Layout,
}

impl Shape {
    /// Number of directions.
    pub fn dirs(&self) -> usize {
        self.direction.count()
    }
    /// Elements of X.
    pub fn x_len(&self) -> usize {
        self.seq * self.batch * self.input
    }
    /// Elements of Y.
    pub fn y_len(&self) -> usize {
        self.seq * self.dirs() * self.batch * self.hidden
    }
    /// Elements of a state (initial_h/c, Y_h, Y_c).
    pub fn state_len(&self) -> usize {
        self.dirs() * self.batch * self.hidden
    }
}

/// `onnx.LSTM`. `acts[d]` are direction `d`'s `[f, g, h]` (the gate, cell
/// and output functions; a reverse-only op uses `acts[0]`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Lstm {
    /// Sizes.
    pub shape: Shape,
    /// Activations per direction.
    pub acts: [[Activation; 3]; 2],
    /// Pre-activation bound (non-negative), if any.
    pub clip: Option<f32>,
    /// Couple the forget gate to the input gate (`f = 1 − i`).
    pub input_forget: bool,
}

impl Lstm {
    /// The ONNX default activations `[Sigmoid, Tanh, Tanh]`.
    pub const DEFAULT_ACTS: [Activation; 3] = [Activation::Sigmoid, Activation::Tanh, Activation::Tanh];
    /// Default activations, no clip, no `input_forget`.
    pub fn new(shape: Shape) -> Lstm {
        Lstm { shape, acts: [Self::DEFAULT_ACTS; 2], clip: None, input_forget: false }
    }
}

/// `onnx.GRU`. `acts[d]` are direction `d`'s `[f, g]` (gate and candidate
/// functions; a reverse-only op uses `acts[0]`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Gru {
    /// Sizes.
    pub shape: Shape,
    /// Activations per direction.
    pub acts: [[Activation; 2]; 2],
    /// Pre-activation bound (non-negative), if any.
    pub clip: Option<f32>,
    /// Apply the reset gate after the recurrent product (`r ⊙ (H·Rhᵀ + Rbh)`).
    pub linear_before_reset: bool,
}

impl Gru {
    /// The ONNX default activations `[Sigmoid, Tanh]`.
    pub const DEFAULT_ACTS: [Activation; 2] = [Activation::Sigmoid, Activation::Tanh];
    /// Default activations, no clip, reset before the product.
    pub fn new(shape: Shape) -> Gru {
        Gru { shape, acts: [Self::DEFAULT_ACTS; 2], clip: None, linear_before_reset: false }
    }
}

/// `onnx.RNN`. `acts[d]` is direction `d`'s function (a reverse-only op
/// uses `acts[0]`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rnn {
    /// Sizes.
    pub shape: Shape,
    /// Activation per direction.
    pub acts: [Activation; 2],
    /// Pre-activation bound (non-negative), if any.
    pub clip: Option<f32>,
}

impl Rnn {
    /// The ONNX default activation.
    pub const DEFAULT_ACT: Activation = Activation::Tanh;
    /// Default activation, no clip.
    pub fn new(shape: Shape) -> Rnn {
        Rnn { shape, acts: [Self::DEFAULT_ACT; 2], clip: None }
    }
}

/// The cell kinds, for weight geometry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cell {
    Rnn,
    Gru,
    Lstm,
}

impl Cell {
    /// Gates (row blocks of W and R).
    pub fn gates(self) -> usize {
        match self {
            Cell::Rnn => 1,
            Cell::Gru => 3,
            Cell::Lstm => 4,
        }
    }
    /// How R's gate rows are split into separate products (GRU multiplies
    /// its candidate rows by the reset state): gate counts per part.
    pub fn r_parts(self) -> &'static [usize] {
        match self {
            Cell::Rnn => &[1],
            Cell::Gru => &[2, 1],
            Cell::Lstm => &[4],
        }
    }
}

/// `v` bounded to `[−c, c]` if clipping (NaN stays NaN; never panics,
/// whatever `c`).
#[inline]
pub(crate) fn clip(v: f32, c: Option<f32>) -> f32 {
    match c {
        Some(c) if v > c => c,
        Some(c) if v < -c => -c,
        _ => v,
    }
}
