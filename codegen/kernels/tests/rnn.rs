//! LSTM, GRU and RNN kernels against the reference interpreter (`onnx.LSTM`,
//! `onnx.GRU`, `onnx.RNN`) over random sizes, every direction, both layouts,
//! optional B / sequence_lens / initial states / P, clip, the op flags and
//! every activation function (explicit parameters, defaults, and a name list
//! repeated for both directions); raw and pre-packed weights, for every
//! micro-kernel family this CPU runs.

mod common;

use common::*;
use edgec_kernels::gemm;
use edgec_kernels::rnn::{self, Activation, Direction, Gru, Layout, Lstm, PackedWeights, Rnn, Shape, Weights};
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// Which op a case runs.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Op {
    Lstm,
    Gru,
    Rnn,
}

impl Op {
    fn gates(self) -> usize {
        match self {
            Op::Lstm => 4,
            Op::Gru => 3,
            Op::Rnn => 1,
        }
    }
    /// Activations per direction.
    fn nacts(self) -> usize {
        match self {
            Op::Lstm => 3,
            Op::Gru => 2,
            Op::Rnn => 1,
        }
    }
    /// Results of the op.
    fn results(self) -> usize {
        if self == Op::Lstm {
            3
        } else {
            2
        }
    }
    fn opcode(self) -> Opcode {
        match self {
            Op::Lstm => Opcode::LSTM,
            Op::Gru => Opcode::GRU,
            Op::Rnn => Opcode::RNN,
        }
    }
}

/// How the `activations` attribute is given.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Acts {
    /// Absent: the op's defaults.
    Default,
    /// `N · dirs` names with explicit alpha/beta values.
    Explicit,
    /// `N · dirs` names without alpha/beta (every parameter its default).
    Defaults,
    /// `N` names for both directions with parameters for the first copy
    /// only (the second copy's parameters are defaults).
    Repeated,
}

#[derive(Clone, Debug)]
struct Case {
    op: Op,
    shape: Shape,
    bias: bool,
    lens: Option<Vec<i64>>,
    h0: bool,
    c0: bool,
    peep: bool,
    clip: Option<f32>,
    /// GRU `linear_before_reset` / LSTM `input_forget`.
    flag: bool,
    acts_mode: Acts,
    /// `2 · N` activations (direction 0, then 1), before mode adjustments.
    acts: Vec<Activation>,
    /// Which of Y, Y_h, Y_c the kernel computes.
    outs: [bool; 3],
    hidden_attr: bool,
    seed: u64,
}

/// A small dyadic parameter in [-1, 1].
fn param() -> impl Strategy<Value = f32> {
    (-8i32..=8).prop_map(|v| v as f32 * 0.125)
}

fn activation() -> impl Strategy<Value = Activation> {
    prop_oneof![
        Just(Activation::Relu),
        Just(Activation::Tanh),
        Just(Activation::Sigmoid),
        (param(), param()).prop_map(|(alpha, beta)| Activation::Affine { alpha, beta }),
        param().prop_map(|alpha| Activation::LeakyRelu { alpha }),
        param().prop_map(|alpha| Activation::ThresholdedRelu { alpha }),
        (param(), param()).prop_map(|(alpha, beta)| Activation::ScaledTanh { alpha, beta }),
        (param(), param()).prop_map(|(alpha, beta)| Activation::HardSigmoid { alpha, beta }),
        param().prop_map(|alpha| Activation::Elu { alpha }),
        Just(Activation::Softsign),
        Just(Activation::Softplus),
    ]
}

/// `a` with the ONNX default parameters.
fn with_defaults(a: Activation) -> Activation {
    match a {
        Activation::Affine { .. } => Activation::Affine { alpha: 1.0, beta: 0.0 },
        Activation::LeakyRelu { .. } => Activation::LeakyRelu { alpha: 0.01 },
        Activation::ThresholdedRelu { .. } => Activation::ThresholdedRelu { alpha: 1.0 },
        Activation::ScaledTanh { .. } => Activation::ScaledTanh { alpha: 1.0, beta: 1.0 },
        Activation::HardSigmoid { .. } => Activation::HardSigmoid { alpha: 0.2, beta: 0.5 },
        Activation::Elu { .. } => Activation::Elu { alpha: 1.0 },
        a => a,
    }
}

/// The ONNX name of `a` and its (alpha, beta) parameters, if it has them.
fn onnx_name(a: Activation) -> (&'static str, Option<f32>, Option<f32>) {
    match a {
        Activation::Relu => ("Relu", None, None),
        Activation::Tanh => ("Tanh", None, None),
        Activation::Sigmoid => ("Sigmoid", None, None),
        Activation::Affine { alpha, beta } => ("Affine", Some(alpha), Some(beta)),
        Activation::LeakyRelu { alpha } => ("LeakyRelu", Some(alpha), None),
        Activation::ThresholdedRelu { alpha } => ("ThresholdedRelu", Some(alpha), None),
        Activation::ScaledTanh { alpha, beta } => ("ScaledTanh", Some(alpha), Some(beta)),
        Activation::HardSigmoid { alpha, beta } => ("HardSigmoid", Some(alpha), Some(beta)),
        Activation::Elu { alpha } => ("Elu", Some(alpha), None),
        Activation::Softsign => ("Softsign", None, None),
        Activation::Softplus => ("Softplus", None, None),
    }
}

fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::Forward), Just(Direction::Reverse), Just(Direction::Bidirectional)]
}

fn acts_mode() -> impl Strategy<Value = Acts> {
    prop_oneof![Just(Acts::Default), Just(Acts::Explicit), Just(Acts::Defaults), Just(Acts::Repeated)]
}

fn case(op: Op) -> impl Strategy<Value = Case> {
    let sizes = (0usize..=5, 0usize..=3, 0usize..=4, 1usize..=5, direction(), any::<bool>());
    let opts = (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>());
    let clip = prop::option::of(prop_oneof![Just(0.5f32), Just(1.0), Just(2.5)]);
    let acts = (acts_mode(), prop::collection::vec(activation(), 2 * op.nacts()));
    let misc = (clip, [any::<bool>(), any::<bool>(), any::<bool>()], any::<bool>(), any::<u64>());
    (sizes, opts, acts, misc).prop_flat_map(move |((seq, batch, input, hidden, dir, l1), o, acts, misc)| {
        let layout = if l1 { Layout::BatchFirst } else { Layout::SeqFirst };
        let shape = Shape { seq, batch, input, hidden, direction: dir, layout };
        let lens = prop::option::of(prop::collection::vec(0i64..=seq as i64, batch));
        (Just((shape, o, acts.clone(), misc)), lens).prop_map(move |((shape, o, (acts_mode, acts), misc), lens)| {
            let (clip, outs, hidden_attr, seed) = misc;
            let (bias, h0, c0, peep, flag, use_lens) = o;
            let lens = lens.filter(|_| use_lens);
            Case { op, shape, bias, lens, h0, c0, peep, clip, flag, acts_mode, acts, outs, hidden_attr, seed }
        })
    })
}

/// `activations`, `activation_alpha` and `activation_beta`.
type ActAttrs = (Vec<String>, Vec<f32>, Vec<f32>);

/// The activations the kernel gets (`[direction 0, direction 1]`, `N` each),
/// and the `activations`, `activation_alpha`, `activation_beta` attributes.
fn activations(c: &Case) -> (Vec<Activation>, Option<ActAttrs>) {
    let (n, dirs) = (c.op.nacts(), c.shape.direction.count());
    let mut acts: Vec<Activation> = c.acts.clone();
    let emitted = match c.acts_mode {
        Acts::Default => {
            let d: Vec<Activation> = match c.op {
                Op::Lstm => Lstm::DEFAULT_ACTS.to_vec(),
                Op::Gru => Gru::DEFAULT_ACTS.to_vec(),
                Op::Rnn => vec![Rnn::DEFAULT_ACT],
            };
            return ([d.clone(), d].concat(), None);
        }
        Acts::Explicit => n * dirs,
        Acts::Defaults => {
            acts.iter_mut().for_each(|a| *a = with_defaults(*a));
            n * dirs
        }
        Acts::Repeated => {
            for i in 0..n {
                acts[n + i] = with_defaults(acts[i]);
            }
            n
        }
    };
    if dirs == 1 {
        acts.truncate(n);
        acts.extend_from_within(..n);
    }
    let (mut names, mut alphas, mut betas) = (vec![], vec![], vec![]);
    for (i, &a) in acts.iter().enumerate().take(n * dirs) {
        let (name, alpha, beta) = onnx_name(a);
        if i < emitted {
            names.push(name.to_string());
        }
        if c.acts_mode != Acts::Defaults && i < emitted {
            alphas.extend(alpha);
            betas.extend(beta);
        }
    }
    (acts, Some((names, alphas, betas)))
}

fn attrs(c: &Case, acts: Option<ActAttrs>) -> Attrs {
    let dir = match c.shape.direction {
        Direction::Forward => "forward",
        Direction::Reverse => "reverse",
        Direction::Bidirectional => "bidirectional",
    };
    let mut a = Attrs::new().with("direction", Attr::Str(dir.into()));
    a.set("layout", Attr::Int((c.shape.layout == Layout::BatchFirst) as i64));
    if c.hidden_attr {
        a.set("hidden_size", Attr::Int(c.shape.hidden as i64));
    }
    if let Some(clip) = c.clip {
        a.set("clip", Attr::Float(clip));
    }
    match c.op {
        Op::Lstm => a.set("input_forget", Attr::Int(c.flag as i64)),
        Op::Gru => a.set("linear_before_reset", Attr::Int(c.flag as i64)),
        Op::Rnn => {}
    }
    if let Some((names, alphas, betas)) = acts {
        a.set("activations", Attr::Strs(names));
        if !alphas.is_empty() {
            a.set("activation_alpha", Attr::Floats(alphas));
        }
        if !betas.is_empty() {
            a.set("activation_beta", Attr::Floats(betas));
        }
    }
    a
}

/// The operand values: X, W, R, B, initial_h, initial_c, P (absent ones empty).
struct Operands {
    x: Vec<f32>,
    w: Vec<f32>,
    r: Vec<f32>,
    b: Option<Vec<f32>>,
    h0: Option<Vec<f32>>,
    c0: Option<Vec<f32>>,
    p: Option<Vec<f32>>,
}

/// `values` scaled by `k` (still dyadic).
fn scaled(n: usize, seed: u64, k: f32) -> Vec<f32> {
    values(n, seed).into_iter().map(|v| v * k).collect()
}

fn operands(c: &Case) -> Operands {
    let s = &c.shape;
    let (gh, dirs, st) = (c.op.gates() * s.hidden, s.dirs(), s.state_len());
    let lstm = c.op == Op::Lstm;
    Operands {
        x: values(s.x_len(), c.seed),
        w: scaled(dirs * gh * s.input, c.seed + 1, 0.25),
        r: scaled(dirs * gh * s.hidden, c.seed + 2, 0.25),
        b: c.bias.then(|| scaled(dirs * 2 * gh, c.seed + 3, 0.25)),
        h0: c.h0.then(|| scaled(st, c.seed + 4, 0.5)),
        c0: (lstm && c.c0).then(|| scaled(st, c.seed + 5, 0.5)),
        p: (lstm && c.peep).then(|| scaled(dirs * 3 * s.hidden, c.seed + 6, 0.25)),
    }
}

/// The interpreter's Y, Y_h (and Y_c) for `c`.
fn oracle_outputs(c: &Case, v: &Operands, attrs: Attrs) -> Vec<Vec<f32>> {
    let s = &c.shape;
    let (gh, dirs) = (c.op.gates() * s.hidden, s.dirs());
    let x_shape = match s.layout {
        Layout::SeqFirst => [s.seq, s.batch, s.input],
        Layout::BatchFirst => [s.batch, s.seq, s.input],
    };
    let st_shape = match s.layout {
        Layout::SeqFirst => [dirs, s.batch, s.hidden],
        Layout::BatchFirst => [s.batch, dirs, s.hidden],
    };
    let lens = c.lens.as_ref().map(|l| Tensor::new(vec![s.batch], Data::I32(l.iter().map(|&v| v as i32).collect())));
    let opt = |o: &Option<Vec<f32>>, shape: &[usize]| o.as_ref().and_then(|v| t(shape, v.clone()));
    let mut ins = vec![
        t(&x_shape, v.x.clone()),
        t(&[dirs, gh, s.input], v.w.clone()),
        t(&[dirs, gh, s.hidden], v.r.clone()),
        opt(&v.b, &[dirs, 2 * gh]),
        lens,
        opt(&v.h0, &st_shape),
    ];
    if c.op == Op::Lstm {
        ins.push(opt(&v.c0, &st_shape));
        ins.push(opt(&v.p, &[dirs, 3 * s.hidden]));
    }
    let out = eval_op(c.op.opcode(), &ins, attrs, c.op.results())
        .unwrap_or_else(|e| panic!("interpreter rejected {c:?}: {e}"));
    out.into_iter()
        .map(|t| match t.data {
            Data::F32(v) => v,
            d => panic!("expected f32, got {:?}", d.dtype()),
        })
        .collect()
}

/// Run the kernel of `c` (packed weights if `packed`); `None` for outputs it
/// was not asked for.
fn kernel_outputs(c: &Case, v: &Operands, acts: &[Activation], packed: bool) -> [Option<Vec<f32>>; 3] {
    let s = c.shape;
    let mut outs: [Option<Vec<f32>>; 3] = [0, 1, 2].map(|i| {
        let len = if i == 0 { s.y_len() } else { s.state_len() };
        (c.outs[i] && i < c.op.results()).then(|| vec![f32::NAN; len])
    });
    let [y, yh, yc] = &mut outs;
    let (y, yh, yc) = (y.as_deref_mut(), yh.as_deref_mut(), yc.as_deref_mut());
    let (b, h0, lens) = (v.b.as_deref(), v.h0.as_deref(), c.lens.as_deref());
    let raw = Weights::Raw { w: &v.w, r: &v.r };
    match c.op {
        Op::Lstm => {
            let p = Lstm {
                shape: s,
                acts: [[acts[0], acts[1], acts[2]], [acts[3], acts[4], acts[5]]],
                clip: c.clip,
                input_forget: c.flag,
            };
            let pw = packed.then(|| PackedWeights::lstm(&p, &v.w, &v.r));
            let w = pw.as_ref().map_or(raw, Weights::Packed);
            let mut scratch = vec![f32::NAN; rnn::lstm_scratch_len(&p)];
            rnn::lstm(&p, &v.x, w, b, lens, h0, v.c0.as_deref(), v.p.as_deref(), y, yh, yc, &mut scratch);
        }
        Op::Gru => {
            let p = Gru {
                shape: s,
                acts: [[acts[0], acts[1]], [acts[2], acts[3]]],
                clip: c.clip,
                linear_before_reset: c.flag,
            };
            let pw = packed.then(|| PackedWeights::gru(&p, &v.w, &v.r));
            let w = pw.as_ref().map_or(raw, Weights::Packed);
            let mut scratch = vec![f32::NAN; rnn::gru_scratch_len(&p)];
            rnn::gru(&p, &v.x, w, b, lens, h0, y, yh, &mut scratch);
        }
        Op::Rnn => {
            let p = Rnn { shape: s, acts: [acts[0], acts[1]], clip: c.clip };
            let pw = packed.then(|| PackedWeights::rnn(&p, &v.w, &v.r));
            let w = pw.as_ref().map_or(raw, Weights::Packed);
            let mut scratch = vec![f32::NAN; rnn::rnn_scratch_len(&p)];
            rnn::rnn(&p, &v.x, w, b, lens, h0, y, yh, &mut scratch);
        }
    }
    outs
}

/// Largest magnitude of an interpreter result the comparison accepts.
/// Unbounded activations in gate positions (Softplus, Affine, Relu, … as
/// `f`) can make the state grow geometrically; past this size rounding
/// differences are amplified without bound (up to overflow to ±∞ and NaN
/// on one side only), so such runs say nothing about the semantics.
const SANE: f32 = 1e4;

/// True if every result is finite and at most [`SANE`] in magnitude.
fn sane(outs: &[Vec<f32>]) -> bool {
    outs.iter().flatten().all(|v| v.abs() <= SANE)
}

/// Compare every requested output of the kernel with the interpreter, for
/// every GEMM family and both weight forms. Returns false (comparing
/// nothing) if the interpreter's results are not [`sane`].
fn check(c: &Case) -> bool {
    let (acts, act_attrs) = activations(c);
    let v = operands(c);
    let want = oracle_outputs(c, &v, attrs(c, act_attrs));
    if !sane(&want) {
        return false;
    }
    for isa in isas() {
        for packed in [false, true] {
            let got = gemm::with_isa(isa, || kernel_outputs(c, &v, &acts, packed));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                if let Some(g) = g {
                    assert_close(g, w, &format!("output {i} of {c:?} [{isa:?}, packed {packed}]"));
                }
            }
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn lstm_matches_interpreter(c in case(Op::Lstm)) {
        prop_assume!(check(&c), "the state grew too large to compare");
    }

    #[test]
    fn gru_matches_interpreter(c in case(Op::Gru)) {
        prop_assume!(check(&c), "the state grew too large to compare");
    }

    #[test]
    fn rnn_matches_interpreter(c in case(Op::Rnn)) {
        prop_assume!(check(&c), "the state grew too large to compare");
    }
}

/// A longer, wider bidirectional LSTM (several GEMM tiles per product) with
/// uneven sequence lengths, against the interpreter.
#[test]
fn long_bidirectional_lstm() {
    let shape = Shape {
        seq: 23,
        batch: 5,
        input: 19,
        hidden: 37,
        direction: Direction::Bidirectional,
        layout: Layout::SeqFirst,
    };
    let c = Case {
        op: Op::Lstm,
        shape,
        bias: true,
        lens: Some(vec![23, 0, 7, 22, 1]),
        h0: true,
        c0: true,
        peep: true,
        clip: None,
        flag: false,
        acts_mode: Acts::Default,
        acts: vec![],
        outs: [true; 3],
        hidden_attr: true,
        seed: 11,
    };
    assert!(check(&c));
}

/// The same for GRU with `linear_before_reset` and batch-first layout.
#[test]
fn long_gru_batch_first() {
    let shape =
        Shape { seq: 17, batch: 4, input: 33, hidden: 29, direction: Direction::Reverse, layout: Layout::BatchFirst };
    let mut c = Case {
        op: Op::Gru,
        shape,
        bias: true,
        lens: Some(vec![17, 3, 0, 16]),
        h0: true,
        c0: false,
        peep: false,
        clip: Some(2.5),
        flag: true,
        acts_mode: Acts::Default,
        acts: vec![],
        outs: [true; 3],
        hidden_attr: false,
        seed: 12,
    };
    assert!(check(&c));
    c.flag = false;
    assert!(check(&c));
}
