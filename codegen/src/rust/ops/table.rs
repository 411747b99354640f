//! The Rust backend's op table: one row per opcode the backend compiles,
//! holding every fact the backend keeps about it (how it lowers, what memory
//! its result may share, whether it may run once at construction, whether
//! it is computed in f32 for 16-bit floats, and its cost on the `cpu`
//! target). An opcode without a row is not supported; the `cpu` target's
//! support and costs are read from here (see `codegen::backend`).
//!
//! Adding an op: one row. A one-input float op with a `k::ew::Unary` kernel
//! needs nothing else; any other op names the family whose lowering handles
//! it (and that family's `lower` gains a match arm).

use super::{attn_norm, conv, elementwise, f32_attr, layout, linalg, misc, norm, quant, rnn, scan, select, seqmix};
use super::{signal, vision, wide};
use super::{Cost, Kernel, Lower, Mem, Row};
use ir::OpData;
use ir::Opcode::{self, *};

const fn row(opcode: Opcode, lower: Lower) -> Row {
    let mem = match lower {
        Lower::View => Mem::View,
        Lower::Unary(_) | Lower::Binary(_) => Mem::InPlace,
        _ => Mem::Fresh,
    };
    let hoist = matches!(lower, Lower::Unary(_) | Lower::Binary(_));
    Row { opcode, lower, mem, hoist, widen: false, cost: None }
}

impl Row {
    const fn hoist(self) -> Row {
        Row { hoist: true, ..self }
    }
    const fn widen(self) -> Row {
        Row { widen: true, ..self }
    }
    const fn mem(self, mem: Mem) -> Row {
        Row { mem, ..self }
    }
    /// `ns_per_mac`, `ns_per_elem`, `ns_fixed` on the `cpu` target.
    const fn cost(self, mac: f64, elem: f64, fixed: f64) -> Row {
        Row { cost: Some(Cost { ns_per_mac: mac, ns_per_elem: elem, ns_fixed: fixed }), ..self }
    }
}

const fn u(opcode: Opcode, k: &'static str) -> Row {
    row(opcode, Lower::Unary(Kernel::Plain(k)))
}
const fn ua(opcode: Opcode, k: fn(&OpData) -> String) -> Row {
    row(opcode, Lower::Unary(Kernel::Attrs(k)))
}
const fn b(opcode: Opcode, k: &'static str) -> Row {
    row(opcode, Lower::Binary(Kernel::Plain(k)))
}
const fn fam(opcode: Opcode, families: &'static [super::Family]) -> Row {
    row(opcode, Lower::Family(families))
}

const EW: &[super::Family] = &[elementwise::lower];
const LAYOUT: &[super::Family] = &[layout::lower];
const NORM: &[super::Family] = &[norm::lower];
const LINALG: &[super::Family] = &[linalg::lower];
const CONV: &[super::Family] = &[conv::lower];
const POOL: &[super::Family] = &[conv::pool];
const ATTENTION: &[super::Family] = &[conv::attention];
const ATTN_NORM: &[super::Family] = &[attn_norm::lower];
const MISC: &[super::Family] = &[misc::lower];
const SCAN: &[super::Family] = &[scan::lower];
const SELECT: &[super::Family] = &[select::lower];
const SIGNAL: &[super::Family] = &[signal::lower];
const VISION: &[super::Family] = &[vision::lower];
const QUANT: &[super::Family] = &[quant::lower];
const RECURRENT: &[super::Family] = &[rnn::lower];
const SEQMIX: &[super::Family] = &[seqmix::lower];

/// Every opcode the Rust backend compiles. Family lists are tried in order:
/// the first family that lowers the op (by its element types) wins.
pub static TABLE: &[Row] = &[
    // --- Structure: lowered by the function emitter itself ---
    row(CoreConst, Lower::Structural),
    row(If, Lower::Structural),
    row(Loop, Lower::Structural),
    row(Scan, Lower::Structural),
    row(CoreBucketDispatch, Lower::Structural),
    // --- Views: the result is operand 0's elements (no code) ---
    row(Reshape, Lower::View).cost(0.03, 0.0, 10.0),
    row(Squeeze, Lower::View).cost(0.03, 0.0, 10.0),
    row(Unsqueeze, Lower::View).cost(0.03, 0.0, 10.0),
    row(Flatten, Lower::View).cost(0.03, 0.0, 10.0),
    row(Identity, Lower::View).hoist().cost(0.03, 0.0, 10.0),
    row(CoreReshape, Lower::View).cost(0.03, 0.0, 9.0),
    row(CoreSqueeze, Lower::View).cost(0.03, 0.0, 9.0),
    row(CoreUnsqueeze, Lower::View).cost(0.03, 0.0, 9.0),
    // A Dropout without its mask result is a view; with it, elementwise.
    fam(Dropout, EW).mem(Mem::ViewWithoutMask),
    // --- Elementwise: one-input float math (k::ew::Unary) ---
    u(Abs, "Abs"),
    u(Neg, "Neg"),
    u(Exp, "Exp").cost(0.03, 1.5, 50.0),
    u(Log, "Log"),
    u(Sqrt, "Sqrt").cost(0.03, 0.6, 50.0),
    u(Reciprocal, "Reciprocal"),
    u(Floor, "Floor"),
    u(Ceil, "Ceil"),
    u(Round, "Round"),
    u(Sin, "Sin"),
    u(Cos, "Cos"),
    u(Tan, "Tan"),
    u(Asin, "Asin"),
    u(Acos, "Acos"),
    u(Atan, "Atan"),
    u(Sinh, "Sinh"),
    u(Cosh, "Cosh"),
    u(Asinh, "Asinh"),
    u(Acosh, "Acosh"),
    u(Atanh, "Atanh"),
    u(Tanh, "Tanh").cost(0.03, 2.0, 50.0),
    u(Sigmoid, "Sigmoid").cost(0.03, 2.0, 50.0),
    u(Relu, "Relu").cost(0.03, 0.2, 50.0),
    u(Erf, "Erf").cost(0.03, 2.5, 50.0),
    u(Sign, "Sign"),
    u(Softplus, "Softplus"),
    u(Softsign, "Softsign"),
    ua(Elu, |op| format!("Elu {{ alpha: {} }}", f32_attr(op, "alpha", 1.0))),
    ua(Selu, |op| {
        let (a, g) = (f32_attr(op, "alpha", 1.673_263_2), f32_attr(op, "gamma", 1.050_701));
        format!("Selu {{ alpha: {a}, gamma: {g} }}")
    }),
    ua(Celu, |op| format!("Celu {{ alpha: {} }}", f32_attr(op, "alpha", 1.0))),
    ua(LeakyRelu, |op| format!("LeakyRelu {{ alpha: {} }}", f32_attr(op, "alpha", 0.01))).cost(0.03, 0.25, 50.0),
    ua(HardSigmoid, |op| {
        let (a, b) = (f32_attr(op, "alpha", 0.2), f32_attr(op, "beta", 0.5));
        format!("HardSigmoid {{ alpha: {a}, beta: {b} }}")
    })
    .cost(0.03, 0.3, 50.0),
    u(HardSwish, "HardSwish").cost(0.03, 0.3, 50.0),
    ua(Gelu, |op| if op.attrs.str("approximate") == Some("tanh") { "GeluTanh" } else { "Gelu" }.into())
        .cost(0.03, 3.0, 50.0),
    u(Mish, "Mish"),
    ua(ThresholdedRelu, |op| format!("ThresholdedRelu {{ alpha: {} }}", f32_attr(op, "alpha", 1.0))),
    ua(Swish, |op| format!("Swish {{ alpha: {} }}", f32_attr(op, "alpha", 1.0))),
    ua(Shrink, |op| {
        let (l, b) = (f32_attr(op, "lambd", 0.5), f32_attr(op, "bias", 0.0));
        format!("Shrink {{ lambd: {l}, bias: {b} }}")
    }),
    ua(ScaledTanh, |op| {
        let (a, b) = (f32_attr(op, "alpha", 1.0), f32_attr(op, "beta", 1.0));
        format!("ScaledTanh {{ alpha: {a}, beta: {b} }}")
    }),
    u(CoreSilu, "Silu").cost(0.03, 2.2, 50.0),
    // --- Elementwise: broadcasting arithmetic (k::ew::Binary) ---
    b(Add, "Add").cost(0.03, 0.3, 50.0),
    b(Sub, "Sub").cost(0.03, 0.3, 50.0),
    b(Mul, "Mul").cost(0.03, 0.3, 50.0),
    b(Div, "Div").cost(0.03, 0.5, 50.0),
    b(Pow, "Pow").cost(0.03, 4.0, 50.0),
    row(Mod, Lower::Binary(Kernel::Attrs(|op| format!("Mod {{ fmod: {} }}", op.attrs.int("fmod").unwrap_or(0) != 0)))),
    b(PRelu, "PRelu"),
    // Max and Min of two operands are binary (in place); of more, variadic.
    fam(Max, EW).mem(Mem::InPlace).hoist(),
    fam(Min, EW).mem(Mem::InPlace).hoist(),
    // --- Elementwise: the rest ---
    fam(Clip, EW).hoist().cost(0.03, 0.2, 50.0),
    fam(Sum, EW).hoist(),
    fam(Mean, EW).hoist(),
    fam(Equal, EW).hoist(),
    fam(Less, EW).hoist(),
    fam(LessOrEqual, EW).hoist(),
    fam(Greater, EW).hoist(),
    fam(GreaterOrEqual, EW).hoist(),
    fam(And, EW).hoist(),
    fam(Or, EW).hoist(),
    fam(Xor, EW).hoist(),
    fam(Not, EW).hoist(),
    fam(BitwiseAnd, EW),
    fam(BitwiseOr, EW),
    fam(BitwiseXor, EW),
    fam(BitwiseNot, EW),
    fam(BitShift, EW),
    fam(IsNaN, EW),
    fam(IsInf, EW),
    fam(Where, EW).hoist(),
    fam(Cast, EW).hoist(),
    fam(CastLike, EW),
    // --- Matrix products and convolution (computed in f32 for f16/bf16) ---
    fam(MatMul, &[wide::lower, linalg::lower]).widen().cost(0.02, 0.1, 50.0),
    fam(Gemm, LINALG).widen().cost(0.02, 0.2, 50.0),
    fam(CoreLinear, LINALG).widen().cost(0.02, 0.2, 50.0),
    fam(CoreConv, CONV).widen().cost(0.025, 0.3, 50.0),
    fam(CoreConvTranspose, CONV).widen().cost(0.03, 0.3, 50.0),
    fam(ConvInteger, VISION),
    fam(QLinearConv, VISION),
    fam(DeformConv, VISION),
    // --- Pooling ---
    fam(MaxPool, &[vision::lower, conv::pool]).widen().cost(0.03, 0.5, 50.0),
    fam(AveragePool, POOL).widen().cost(0.03, 0.5, 50.0),
    fam(GlobalAveragePool, POOL).widen().cost(0.03, 0.25, 50.0),
    fam(GlobalMaxPool, POOL).cost(0.03, 0.25, 50.0),
    fam(LpPool, ATTN_NORM),
    // --- Attention ---
    fam(CoreAttention, ATTENTION).widen().cost(0.025, 2.0, 50.0),
    fam(CoreAttentionBlocked, ATTENTION).widen().cost(0.03, 2.0, 50.0),
    fam(CoreWindowAttention, ATTENTION).cost(0.025, 2.0, 45.0),
    fam(Attention, ATTN_NORM).widen().cost(0.025, 2.0, 50.0),
    fam(FlexAttention, &[wide::lower, attn_norm::lower]).widen(),
    fam(LinearAttention, ATTN_NORM).widen(),
    fam(RotaryEmbedding, ATTN_NORM),
    fam(CausalConvWithState, SEQMIX).widen(),
    // --- Normalization, softmax, reductions ---
    fam(Softmax, &[wide::lower, norm::lower]).hoist().cost(0.03, 2.0, 50.0),
    fam(LogSoftmax, &[wide::lower, norm::lower]).hoist(),
    fam(Hardmax, NORM),
    fam(BatchNormalization, NORM).cost(0.03, 0.4, 50.0),
    fam(InstanceNormalization, NORM),
    fam(LRN, NORM),
    fam(LayerNormalization, ATTN_NORM).cost(0.03, 1.0, 50.0),
    fam(RMSNormalization, ATTN_NORM),
    fam(GroupNormalization, ATTN_NORM),
    fam(MeanVarianceNormalization, ATTN_NORM),
    fam(LpNormalization, ATTN_NORM),
    fam(CoreReduce, NORM).hoist().cost(0.03, 0.3, 45.0),
    fam(ReduceSum, NORM).hoist(),
    fam(ReduceMean, NORM).hoist().cost(0.03, 0.3, 50.0),
    fam(ReduceMax, NORM).hoist(),
    fam(ReduceMin, NORM).hoist(),
    fam(ReduceProd, NORM).hoist(),
    fam(ReduceL1, NORM),
    fam(ReduceL2, NORM),
    fam(ReduceSumSquare, NORM),
    fam(ReduceLogSumExp, NORM),
    fam(ReduceLogSum, NORM),
    fam(ArgMax, NORM),
    fam(ArgMin, NORM),
    fam(Resize, NORM).cost(0.03, 1.5, 50.0),
    fam(Upsample, NORM),
    // --- Data movement ---
    fam(Transpose, LAYOUT).hoist().cost(0.03, 0.6, 50.0),
    fam(Concat, LAYOUT).hoist().cost(0.03, 0.25, 50.0),
    fam(Split, LAYOUT),
    fam(Slice, LAYOUT).hoist().cost(0.03, 0.25, 50.0),
    fam(CoreSlice, LAYOUT).hoist().cost(0.03, 0.25, 45.0),
    fam(Gather, LAYOUT).hoist().cost(0.03, 0.5, 50.0),
    fam(GatherElements, LAYOUT).hoist(),
    fam(Pad, LAYOUT).hoist().cost(0.03, 0.3, 50.0),
    fam(Expand, LAYOUT).hoist(),
    fam(CoreExpand, LAYOUT).hoist().cost(0.03, 0.3, 45.0),
    fam(Tile, LAYOUT).hoist(),
    fam(DepthToSpace, LAYOUT).hoist(),
    fam(SpaceToDepth, LAYOUT).hoist(),
    fam(CoreWindowPartition, LAYOUT).cost(0.03, 0.6, 45.0),
    fam(CoreWindowMerge, LAYOUT).cost(0.03, 0.6, 45.0),
    fam(Shape, LAYOUT).hoist(),
    fam(Size, LAYOUT).hoist(),
    fam(ConstantOfShape, LAYOUT).hoist(),
    // A Range with run-time bounds is sized by its data; with constant ones, known.
    fam(Range, &[select::lower, layout::lower]),
    // --- Data-sized results ---
    fam(NonZero, SELECT),
    fam(Compress, SELECT),
    fam(Unique, SELECT),
    fam(NonMaxSuppression, SELECT),
    // --- Indexing, losses, generators ---
    fam(ScatterElements, MISC),
    fam(ScatterND, MISC),
    fam(GatherND, MISC),
    fam(TopK, MISC),
    fam(Trilu, MISC),
    fam(EyeLike, MISC),
    fam(OneHot, MISC),
    fam(CenterCropPad, MISC),
    fam(ReverseSequence, MISC),
    fam(Col2Im, MISC),
    fam(GridSample, MISC),
    fam(DFT, MISC),
    fam(NegativeLogLikelihoodLoss, MISC),
    fam(SoftmaxCrossEntropyLoss, MISC),
    fam(RoiAlign, VISION),
    // --- Scans and the rest ---
    fam(CumSum, SCAN),
    fam(CumProd, SCAN),
    fam(BitCast, SCAN),
    fam(Det, SCAN),
    fam(Einsum, SCAN),
    fam(MaxUnpool, SCAN),
    fam(TensorScatter, SCAN),
    fam(AffineGrid, SCAN),
    // --- Signal ---
    fam(HannWindow, SIGNAL),
    fam(HammingWindow, SIGNAL),
    fam(BlackmanWindow, SIGNAL),
    fam(MelWeightMatrix, SIGNAL),
    fam(STFT, SIGNAL),
    // --- Recurrent ---
    fam(LSTM, RECURRENT),
    fam(GRU, RECURRENT),
    fam(RNN, RECURRENT),
    // --- Quantization ---
    fam(QuantizeLinear, QUANT),
    fam(DequantizeLinear, QUANT),
    fam(DynamicQuantizeLinear, QUANT),
    fam(MatMulInteger, QUANT),
    fam(QLinearMatMul, QUANT),
];
