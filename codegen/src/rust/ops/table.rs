//! The Rust backend's op table: one row per opcode the backend compiles,
//! holding every fact the backend keeps about it (how it lowers, what memory
//! its result may share, whether it may run once at construction, whether
//! it is computed in f32 for 16-bit floats, and its cost on the `cpu`
//! target). An opcode without a row is not supported; the `cpu` target's
//! support and costs are read from here (see `codegen::backend`).
//!
//! Adding an op: one row. A one-input float op with a `k::elementwise::Unary` kernel
//! needs nothing else; any other op is a `fam` row, lowered by the `lower`
//! of its family (the family its op-table row names, `Opcode::family()`,
//! whose module [`lowering`] picks), which gains a match arm.

use super::{attention, conv, elementwise, generate, index, layout, linalg, loss, norm, pool, quant, reduce};
use super::{f32_attr, resample, rnn, select, signal};
use super::{Cost, Kernel, Lower, LowerFn, Mem, Row};
use ir::Opcode::{self, *};
use ir::{Family, OpData};

/// The lowering of a family's ops: the `lower` of its module (named
/// [`Family::name`]); `None` for the families without one (control flow is
/// lowered by the function emitter, strings are not compiled).
pub fn lowering(family: Family) -> Option<LowerFn> {
    Some(match family {
        Family::Elementwise => elementwise::lower,
        Family::Quant => quant::lower,
        Family::Linalg => linalg::lower,
        Family::Conv => conv::lower,
        Family::Pool => pool::lower,
        Family::Norm => norm::lower,
        Family::Attention => attention::lower,
        Family::Rnn => rnn::lower,
        Family::Resample => resample::lower,
        Family::Layout => layout::lower,
        Family::Index => index::lower,
        Family::Select => select::lower,
        Family::Reduce => reduce::lower,
        Family::Generate => generate::lower,
        Family::Signal => signal::lower,
        Family::Loss => loss::lower,
        Family::Control | Family::Strings => return None,
    })
}

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
/// An op lowered by its family's `lower` (see [`lowering`]).
const fn fam(opcode: Opcode) -> Row {
    row(opcode, Lower::Family)
}

/// Every opcode the Rust backend compiles.
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
    fam(Dropout).mem(Mem::ViewWithoutMask),
    // --- Elementwise (`elementwise`): one-input float math (k::elementwise::Unary) ---
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
    // --- Elementwise (`elementwise`): broadcasting arithmetic (k::elementwise::Binary) ---
    b(Add, "Add").cost(0.03, 0.3, 50.0),
    b(Sub, "Sub").cost(0.03, 0.3, 50.0),
    b(Mul, "Mul").cost(0.03, 0.3, 50.0),
    b(Div, "Div").cost(0.03, 0.5, 50.0),
    b(Pow, "Pow").cost(0.03, 4.0, 50.0),
    row(Mod, Lower::Binary(Kernel::Attrs(|op| format!("Mod {{ fmod: {} }}", op.attrs.int("fmod").unwrap_or(0) != 0)))),
    b(PRelu, "PRelu"),
    // Max and Min of two operands are binary (in place); of more, variadic.
    fam(Max).mem(Mem::InPlace).hoist(),
    fam(Min).mem(Mem::InPlace).hoist(),
    // --- Elementwise (`elementwise`): the rest ---
    fam(Clip).hoist().cost(0.03, 0.2, 50.0),
    fam(Sum).hoist(),
    fam(Mean).hoist(),
    fam(Equal).hoist(),
    fam(Less).hoist(),
    fam(LessOrEqual).hoist(),
    fam(Greater).hoist(),
    fam(GreaterOrEqual).hoist(),
    fam(And).hoist(),
    fam(Or).hoist(),
    fam(Xor).hoist(),
    fam(Not).hoist(),
    fam(BitwiseAnd),
    fam(BitwiseOr),
    fam(BitwiseXor),
    fam(BitwiseNot),
    fam(BitShift),
    fam(IsNaN),
    fam(IsInf),
    fam(Where).hoist(),
    fam(Cast).hoist(),
    fam(CastLike),
    fam(BitCast),
    // --- Quantization (`quant`) ---
    fam(ConvInteger),
    fam(QLinearConv),
    // Integer MACs: a quarter of f32's on VNNI (4 per lane), half with AVX2's vpmaddwd.
    fam(QuantConv).cost(0.008, 0.3, 50.0),
    // One pass over bytes, against dequantize + the f32 op + quantize over f32.
    fam(QuantAdd).cost(0.0, 0.2, 50.0),
    fam(QuantMul).cost(0.0, 0.2, 50.0),
    fam(QuantSub).cost(0.0, 0.2, 50.0),
    fam(QuantGlobalAvgPool).cost(0.0, 0.1, 50.0),
    fam(QuantLut).cost(0.0, 0.05, 50.0),
    fam(QuantizeLinear),
    fam(DequantizeLinear),
    fam(DynamicQuantizeLinear),
    fam(MatMulInteger),
    fam(QLinearMatMul),
    // --- Matrix products (`linalg`) ---
    fam(MatMul).widen().cost(0.02, 0.1, 50.0),
    fam(Gemm).widen().cost(0.02, 0.2, 50.0),
    fam(CoreLinear).widen().cost(0.02, 0.2, 50.0),
    fam(Det),
    fam(Einsum),
    // --- Convolution (`conv`) ---
    fam(CoreConv).widen().cost(0.025, 0.3, 50.0),
    fam(CoreConvTranspose).widen().cost(0.03, 0.3, 50.0),
    fam(DeformConv),
    fam(Col2Im),
    // --- Pooling (`pool`) ---
    fam(MaxPool).widen().cost(0.03, 0.5, 50.0),
    fam(AveragePool).widen().cost(0.03, 0.5, 50.0),
    fam(GlobalAveragePool).widen().cost(0.03, 0.25, 50.0),
    fam(GlobalMaxPool).cost(0.03, 0.25, 50.0),
    fam(LpPool),
    fam(MaxUnpool),
    // --- Normalization and softmax (`norm`) ---
    fam(Softmax).hoist().cost(0.03, 2.0, 50.0),
    fam(LogSoftmax).hoist(),
    fam(Hardmax),
    fam(BatchNormalization).cost(0.03, 0.4, 50.0),
    fam(InstanceNormalization),
    fam(LRN),
    fam(LayerNormalization).cost(0.03, 1.0, 50.0),
    fam(RMSNormalization),
    fam(GroupNormalization),
    fam(MeanVarianceNormalization),
    fam(LpNormalization),
    // --- Attention (`attention`) ---
    fam(CoreAttention).widen().cost(0.025, 2.0, 50.0),
    fam(CoreAttentionBlocked).widen().cost(0.03, 2.0, 50.0),
    fam(CoreWindowAttention).cost(0.025, 2.0, 45.0),
    fam(Attention).widen().cost(0.025, 2.0, 50.0),
    fam(FlexAttention).widen(),
    fam(LinearAttention).widen(),
    fam(RotaryEmbedding),
    fam(CausalConvWithState).widen(),
    fam(CoreWindowPartition).cost(0.03, 0.6, 45.0),
    fam(CoreWindowMerge).cost(0.03, 0.6, 45.0),
    // --- Recurrent (`rnn`) ---
    fam(LSTM),
    fam(GRU),
    fam(RNN),
    // --- Resampling (`resample`) ---
    fam(Resize).cost(0.03, 1.5, 50.0),
    fam(Upsample),
    fam(GridSample),
    fam(RoiAlign),
    fam(AffineGrid),
    // --- Data movement (`layout`; the views are above) ---
    fam(Transpose).hoist().cost(0.03, 0.6, 50.0),
    fam(Concat).hoist().cost(0.03, 0.25, 50.0),
    fam(Split),
    fam(Slice).hoist().cost(0.03, 0.25, 50.0),
    fam(CoreSlice).hoist().cost(0.03, 0.25, 45.0),
    fam(Pad).hoist().cost(0.03, 0.3, 50.0),
    fam(Expand).hoist(),
    fam(CoreExpand).hoist().cost(0.03, 0.3, 45.0),
    fam(Tile).hoist(),
    fam(DepthToSpace).hoist(),
    fam(SpaceToDepth).hoist(),
    fam(Shape).hoist(),
    fam(Size).hoist(),
    fam(CenterCropPad),
    fam(ReverseSequence),
    // --- Indexing (`index`) ---
    fam(Gather).hoist().cost(0.03, 0.5, 50.0),
    fam(GatherElements).hoist(),
    fam(ScatterElements),
    fam(ScatterND),
    fam(GatherND),
    fam(OneHot),
    fam(TensorScatter),
    // --- Selection, data-sized results (`select`) ---
    fam(NonZero),
    fam(Compress),
    fam(Unique),
    fam(NonMaxSuppression),
    fam(TopK),
    // --- Reductions and scans (`reduce`) ---
    fam(CoreReduce).hoist().cost(0.03, 0.3, 45.0),
    fam(ReduceSum).hoist(),
    fam(ReduceMean).hoist().cost(0.03, 0.3, 50.0),
    fam(ReduceMax).hoist(),
    fam(ReduceMin).hoist(),
    fam(ReduceProd).hoist(),
    fam(ReduceL1),
    fam(ReduceL2),
    fam(ReduceSumSquare),
    fam(ReduceLogSumExp),
    fam(ReduceLogSum),
    fam(ArgMax),
    fam(ArgMin),
    fam(CumSum),
    fam(CumProd),
    // --- Generators (`generate`) ---
    fam(ConstantOfShape).hoist(),
    fam(Range),
    fam(Trilu),
    fam(EyeLike),
    // --- Signal (`signal`) ---
    fam(DFT),
    fam(HannWindow),
    fam(HammingWindow),
    fam(BlackmanWindow),
    fam(MelWeightMatrix),
    fam(STFT),
    // --- Losses (`loss`) ---
    fam(NegativeLogLikelihoodLoss),
    fam(SoftmaxCrossEntropyLoss),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_row_has_its_familys_lowering() {
        for r in TABLE {
            if let Lower::Family = r.lower {
                let family = r.opcode.family();
                assert!(lowering(family).is_some(), "{} (family {})", r.opcode.name(), family.name());
            }
        }
    }
}
