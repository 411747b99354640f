//! THE op table. One entry per op; everything else derives from it.

use super::Family::*;
use super::{
    a, a_req, attention, control, conv, elementwise, flags::*, generate, index, layout, linalg, loss, norm, opt, pool,
    quant, reduce, req, resample, rnn, select, signal, strings, var, OpDef,
};
use crate::attr::AttrKind::{self, *};

macro_rules! define_ops {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $name:literal { $($field:ident : $val:expr),* $(,)? } )*) => {
        /// Every op known to edgec. `OP_TABLE[op as usize]` is its definition.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[doc = $doc])+ $variant, )*
        }
        impl Opcode {
            /// All opcodes in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];
        }
        /// The op definitions, indexed by [`Opcode`].
        #[allow(clippy::needless_update)] // entries that set every field still end in `..DEFAULT`
        pub static OP_TABLE: &[OpDef] = &[
            $( OpDef { name: $name, doc: concat!($($doc),+), $($field: $val,)* ..DEFAULT } ),*
        ];
    };
}

const DEFAULT: OpDef = OpDef {
    name: "",
    doc: "",
    operands: &[],
    results: &[req("Y")],
    attrs: &[],
    flags: PURE,
    regions: 0,
    infer: elementwise::unary_same,
    infer_regions: None,
    family: Elementwise,
};

const X: &[super::SlotSpec] = &[req("X")];
const AB: &[super::SlotSpec] = &[req("A"), req("B")];
const AUTO_PAD: AttrKind = Enum(&["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]);
const CONV_ATTRS: &[super::AttrSpec] = &[
    a("auto_pad", AUTO_PAD),
    a("dilations", Ints),
    a("group", Int),
    a("kernel_shape", Ints),
    a("pads", Ints),
    a("strides", Ints),
];
/// Schema kind of the fused ops' `act` attribute.
const ACT: AttrKind = elementwise::ACT_KIND;
const CORE_CONV_ATTRS: &[super::AttrSpec] = &[
    a("act", ACT),
    a("act_alpha", Float),
    a("act_beta", Float),
    a("auto_pad", AUTO_PAD),
    a("dilations", Ints),
    a("group", Int),
    a("kernel_shape", Ints),
    a("pads", Ints),
    a("strides", Ints),
];
/// quant.conv: onnx.Conv's window attributes, the zero points, the clamp range of the result
/// and how the fixed-point multiplier rounds (`edgec_numeric::fixed::Rounding`; absent: single).
const QUANT_CONV_ATTRS: &[super::AttrSpec] = &[
    a("act", ACT),
    a("act_alpha", Float),
    a("act_beta", Float),
    a("auto_pad", AUTO_PAD),
    a("dilations", Ints),
    a("group", Int),
    a("kernel_shape", Ints),
    a("pads", Ints),
    a_req("qmax", Int),
    a_req("qmin", Int),
    a("rounding", Enum(&["single", "gemmlowp", "ruy"])),
    a("strides", Ints),
    a_req("x_zero_point", Int),
    a_req("y_zero_point", Int),
    a("y_scale", Float),
];
/// quant.add / quant.sub / quant.mul: the per-tensor grids of both operands and the result, the
/// optional raised lower clamp (a fused Relu's), and the op's `extra` attributes.
macro_rules! quant_binary_attrs {
    ($($extra:expr),*) => {
        &[
            a_req("a_scale", Float),
            a_req("a_zero_point", Int),
            a_req("b_scale", Float),
            a_req("b_zero_point", Int),
            a_req("y_scale", Float),
            a_req("y_zero_point", Int),
            a("qmin", Int),
            $($extra),*
        ]
    };
}
const QUANT_BINARY_ATTRS: &[super::AttrSpec] = quant_binary_attrs!();
/// quant.mul: quant.add's, and how the integer product is rescaled: absent or `single` as QDQ's
/// float steps, `gemmlowp` as TFLite's MUL (`edgec_numeric::fixed::mul_gemmlowp`).
const QUANT_MUL_ATTRS: &[super::AttrSpec] = quant_binary_attrs!(a("rounding", Enum(&["single", "gemmlowp"])));
const CORE_CONV_TRANSPOSE_ATTRS: &[super::AttrSpec] = &[
    a("act", ACT),
    a("act_alpha", Float),
    a("act_beta", Float),
    a("auto_pad", AUTO_PAD),
    a("dilations", Ints),
    a("group", Int),
    a("kernel_shape", Ints),
    a("output_padding", Ints),
    a("output_shape", Ints),
    a("pads", Ints),
    a("strides", Ints),
];
const REDUCE_ATTRS: &[super::AttrSpec] = &[a("keepdims", Int), a("noop_with_empty_axes", Int)];
const REDUCE_OPERANDS: &[super::SlotSpec] = &[req("data"), opt("axes")];
const ALPHA: &[super::AttrSpec] = &[a("alpha", Float)];
const EW: u32 = PURE | ELEMENTWISE;
const EWC: u32 = PURE | ELEMENTWISE | COMMUTATIVE;

define_ops! {
    /// A named constant from the module pool.
    CoreConst = "core.const" { family: Generate, operands: &[], attrs: &[a_req("value", Sym)], infer: generate::core_const }

    /// Runs region 0 (`then`) if the scalar bool `cond` is true, else region 1 (`else`).
    If = "onnx.If" { family: Control, operands: &[req("cond")], results: &[var("outputs", 1)], regions: 2, flags: 0,
        infer: control::needs_regions, infer_regions: Some(control::if_) }
    /// Loop: region params (iteration, cond, carried...), yields (cond, carried..., scan outputs...).
    Loop = "onnx.Loop" { family: Control, operands: &[opt("M"), opt("cond"), var("v_initial", 0)], results: &[var("v_final_and_scan_outputs", 0)],
        regions: 1, flags: 0, infer: control::needs_regions, infer_regions: Some(control::loop_) }
    /// Scan over slices of the scan inputs with carried state (opset 9+ form).
    Scan = "onnx.Scan" { family: Control, operands: &[var("initial_state_and_scan_inputs", 1)], results: &[var("final_state_and_scan_outputs", 1)],
        attrs: &[a_req("num_scan_inputs", Int), a("scan_input_axes", Ints), a("scan_input_directions", Ints),
            a("scan_output_axes", Ints), a("scan_output_directions", Ints)],
        regions: 1, flags: 0, infer: control::needs_regions, infer_regions: Some(control::scan) }

    /// Elementwise addition with numpy broadcasting.
    Add = "onnx.Add" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::binary_same }
    /// Elementwise subtraction with numpy broadcasting.
    Sub = "onnx.Sub" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::binary_same }
    /// Elementwise multiplication with numpy broadcasting.
    Mul = "onnx.Mul" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::binary_same }
    /// Elementwise division (integer division truncates) with numpy broadcasting.
    Div = "onnx.Div" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::binary_same }
    /// Elementwise power; the exponent may have another numeric type.
    Pow = "onnx.Pow" { family: Elementwise, operands: &[req("X"), req("Y")], results: &[req("Z")], flags: EW, infer: elementwise::pow }
    /// Elementwise remainder (`fmod = 1` for C fmod semantics).
    Mod = "onnx.Mod" { family: Elementwise, operands: AB, results: &[req("C")], attrs: &[a("fmod", Int)], flags: EW, infer: elementwise::binary_same }
    /// Elementwise maximum of any number of inputs with broadcasting.
    Max = "onnx.Max" { family: Elementwise, operands: &[var("data_0", 1)], results: &[req("max")], flags: EWC, infer: elementwise::variadic_same }
    /// Elementwise minimum of any number of inputs with broadcasting.
    Min = "onnx.Min" { family: Elementwise, operands: &[var("data_0", 1)], results: &[req("min")], flags: EWC, infer: elementwise::variadic_same }
    /// Elementwise sum of any number of inputs with broadcasting.
    Sum = "onnx.Sum" { family: Elementwise, operands: &[var("data_0", 1)], results: &[req("sum")], flags: EWC, infer: elementwise::variadic_same }
    /// Elementwise mean of any number of inputs with broadcasting.
    Mean = "onnx.Mean" { family: Elementwise, operands: &[var("data_0", 1)], results: &[req("mean")], flags: EWC, infer: elementwise::variadic_same }
    /// Parametric ReLU: `x < 0 ? slope * x : x`, slope broadcast to X.
    PRelu = "onnx.PRelu" { family: Elementwise, operands: &[req("X"), req("slope")], flags: EW, infer: elementwise::prelu }
    /// Elementwise equality, producing bool.
    Equal = "onnx.Equal" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::compare }
    /// Elementwise `A < B`, producing bool.
    Less = "onnx.Less" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::compare }
    /// Elementwise `A <= B`, producing bool.
    LessOrEqual = "onnx.LessOrEqual" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::compare }
    /// Elementwise `A > B`, producing bool.
    Greater = "onnx.Greater" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::compare }
    /// Elementwise `A >= B`, producing bool.
    GreaterOrEqual = "onnx.GreaterOrEqual" { family: Elementwise, operands: AB, results: &[req("C")], flags: EW, infer: elementwise::compare }
    /// Elementwise logical and of bools.
    And = "onnx.And" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::logic }
    /// Elementwise logical or of bools.
    Or = "onnx.Or" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::logic }
    /// Elementwise logical xor of bools.
    Xor = "onnx.Xor" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::logic }
    /// Elementwise logical not of bools.
    Not = "onnx.Not" { family: Elementwise, operands: X, flags: EW, infer: elementwise::logic_not }
    /// `condition ? X : Y` with three-way broadcasting.
    Where = "onnx.Where" { family: Elementwise, operands: &[req("condition"), req("X"), req("Y")], results: &[req("output")], flags: EW, infer: elementwise::where_ }

    /// Returns its input unchanged.
    Identity = "onnx.Identity" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_same }
    /// `max(x, 0)`.
    Relu = "onnx.Relu" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_signed }
    /// `x < 0 ? alpha * x : x` (alpha defaults to 0.01).
    LeakyRelu = "onnx.LeakyRelu" { family: Elementwise, operands: X, attrs: ALPHA, flags: EW, infer: elementwise::unary_float }
    /// `x < 0 ? alpha * (exp(x) - 1) : x`.
    Elu = "onnx.Elu" { family: Elementwise, operands: X, attrs: ALPHA, flags: EW, infer: elementwise::unary_float }
    /// Scaled ELU with `alpha` and `gamma`.
    Selu = "onnx.Selu" { family: Elementwise, operands: X, attrs: &[a("alpha", Float), a("gamma", Float)], flags: EW, infer: elementwise::unary_float }
    /// `1 / (1 + exp(-x))`.
    Sigmoid = "onnx.Sigmoid" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// `max(0, min(1, alpha * x + beta))`.
    HardSigmoid = "onnx.HardSigmoid" { family: Elementwise, operands: X, attrs: &[a("alpha", Float), a("beta", Float)], flags: EW, infer: elementwise::unary_float }
    /// `x * max(0, min(1, x / 6 + 1/2))`.
    HardSwish = "onnx.HardSwish" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Gaussian error linear unit, exact (`none`) or `tanh` approximation.
    Gelu = "onnx.Gelu" { family: Elementwise, operands: X, attrs: &[a("approximate", Enum(&["none", "tanh"]))], flags: EW, infer: elementwise::unary_float }
    /// Hyperbolic tangent.
    Tanh = "onnx.Tanh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// `exp(x)`.
    Exp = "onnx.Exp" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Natural logarithm.
    Log = "onnx.Log" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Square root.
    Sqrt = "onnx.Sqrt" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// `1 / x`.
    Reciprocal = "onnx.Reciprocal" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Gauss error function.
    Erf = "onnx.Erf" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// `ln(1 + exp(x))`.
    Softplus = "onnx.Softplus" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Sine.
    Sin = "onnx.Sin" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Cosine.
    Cos = "onnx.Cos" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Absolute value.
    Abs = "onnx.Abs" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_numeric }
    /// Negation.
    Neg = "onnx.Neg" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_signed }
    /// Sign: -1, 0 or 1.
    Sign = "onnx.Sign" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_numeric }
    /// Round down.
    Floor = "onnx.Floor" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Round up.
    Ceil = "onnx.Ceil" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Round half to even.
    Round = "onnx.Round" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Clamp to `[min, max]`; bounds are optional scalar operands.
    Clip = "onnx.Clip" { family: Elementwise, operands: &[req("input"), opt("min"), opt("max")], results: &[req("output")], flags: EW, infer: elementwise::clip }
    /// Element type conversion (`saturate` applies to float8 targets only).
    Cast = "onnx.Cast" { family: Elementwise, operands: &[req("input")], results: &[req("output")], attrs: &[a_req("to", Type), a("round_mode", Enum(&["up", "down", "nearest"])), a("saturate", Int)], flags: EW, infer: elementwise::cast }
    /// Inference-mode dropout: identity on `data`; optional mask output is all true.
    Dropout = "onnx.Dropout" { family: Elementwise, operands: &[req("data"), opt("ratio"), opt("training_mode")], results: &[req("output"), opt("mask")], attrs: &[a("seed", Int)], infer: elementwise::dropout }

    /// Matrix product with numpy batching (1-D operands promoted and squeezed).
    MatMul = "onnx.MatMul" { family: Linalg, operands: AB, infer: linalg::matmul }
    /// `alpha * op(A) @ op(B) + beta * C` on 2-D operands; C broadcasts.
    Gemm = "onnx.Gemm" { family: Linalg, operands: &[req("A"), req("B"), opt("C")], attrs: &[a("alpha", Float), a("beta", Float), a("transA", Int), a("transB", Int)], infer: linalg::gemm }
    /// N-D convolution (NCHW..., weights `M x C/group x k...`).
    Conv = "onnx.Conv" { family: Conv, operands: &[req("X"), req("W"), opt("B")], attrs: CONV_ATTRS, infer: conv::conv }
    /// N-D transposed convolution (weights `C x M/group x k...`).
    ConvTranspose = "onnx.ConvTranspose" { family: Conv, operands: &[req("X"), req("W"), opt("B")], attrs: &[
        a("auto_pad", AUTO_PAD), a("dilations", Ints), a("group", Int), a("kernel_shape", Ints),
        a("output_padding", Ints), a("output_shape", Ints), a("pads", Ints), a("strides", Ints),
    ], infer: conv::conv_transpose }
    /// Max pooling over spatial axes; optional flat indices output.
    MaxPool = "onnx.MaxPool" { family: Pool, operands: X, results: &[req("Y"), opt("Indices")], attrs: &[
        a("auto_pad", AUTO_PAD), a("ceil_mode", Int), a("dilations", Ints), a_req("kernel_shape", Ints),
        a("pads", Ints), a("storage_order", Int), a("strides", Ints),
    ], infer: pool::pool }
    /// Average pooling over spatial axes.
    AveragePool = "onnx.AveragePool" { family: Pool, operands: X, attrs: &[
        a("auto_pad", AUTO_PAD), a("ceil_mode", Int), a("count_include_pad", Int), a("dilations", Ints),
        a_req("kernel_shape", Ints), a("pads", Ints), a("strides", Ints),
    ], infer: pool::avg_pool }
    /// Mean over all spatial axes, keeping them as size 1.
    GlobalAveragePool = "onnx.GlobalAveragePool" { family: Pool, operands: X, infer: pool::global_pool }
    /// Max over all spatial axes, keeping them as size 1.
    GlobalMaxPool = "onnx.GlobalMaxPool" { family: Pool, operands: X, infer: pool::global_pool }
    /// Inference-mode batch normalization over axis 1.
    BatchNormalization = "onnx.BatchNormalization" {family: Norm,
        operands: &[req("X"), req("scale"), req("B"), req("input_mean"), req("input_var")],
        results: &[req("Y"), opt("running_mean"), opt("running_var")],
        attrs: &[a("epsilon", Float), a("momentum", Float), a("training_mode", Int)], infer: norm::batch_norm }
    /// Normalization over axes `[axis, rank)` then scale and optional bias.
    LayerNormalization = "onnx.LayerNormalization" {family: Norm,
        operands: &[req("X"), req("Scale"), opt("B")], results: &[req("Y"), opt("Mean"), opt("InvStdDev")],
        attrs: &[a("axis", Int), a("epsilon", Float), a("stash_type", Int)], infer: norm::layer_norm }
    /// Softmax along `axis` (default -1).
    Softmax = "onnx.Softmax" { family: Norm, operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: norm::softmax }
    /// Log-softmax along `axis` (default -1).
    LogSoftmax = "onnx.LogSoftmax" { family: Norm, operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: norm::softmax }
    /// Resize spatial (or any) axes by `scales` or to `sizes`.
    Resize = "onnx.Resize" { family: Resample, operands: &[req("X"), opt("roi"), opt("scales"), opt("sizes")], attrs: &[
        a("antialias", Int), a("axes", Ints),
        a("coordinate_transformation_mode", Enum(&["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"])),
        a("cubic_coeff_a", Float), a("exclude_outside", Int), a("extrapolation_value", Float),
        a("keep_aspect_ratio_policy", Enum(&["stretch", "not_larger", "not_smaller"])),
        a("mode", Enum(&["nearest", "linear", "cubic"])),
        a("nearest_mode", Enum(&["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])),
    ], infer: resample::resize }

    /// Reshape to `shape` (0 copies the input dim unless `allowzero`, -1 is inferred).
    Reshape = "onnx.Reshape" { family: Layout, operands: &[req("data"), req("shape")], results: &[req("reshaped")], attrs: &[a("allowzero", Int)], infer: layout::reshape }
    /// Permute axes (default: reverse them).
    Transpose = "onnx.Transpose" { family: Layout, operands: &[req("data")], results: &[req("transposed")], attrs: &[a("perm", Ints)], infer: layout::transpose }
    /// Concatenate along `axis`.
    Concat = "onnx.Concat" { family: Layout, operands: &[var("inputs", 1)], results: &[req("concat_result")], attrs: &[a_req("axis", Int)], infer: layout::concat }
    /// Split along `axis` into parts given by `split` or `num_outputs` equal parts.
    Split = "onnx.Split" { family: Layout, operands: &[req("input"), opt("split")], results: &[var("outputs", 1)], attrs: &[a("axis", Int), a("num_outputs", Int)], infer: layout::split }
    /// Strided slice with per-axis starts/ends/axes/steps operands.
    Slice = "onnx.Slice" { family: Layout, operands: &[req("data"), req("starts"), req("ends"), opt("axes"), opt("steps")], results: &[req("output")], infer: layout::slice }
    /// Gather entries along `axis` by an index tensor.
    Gather = "onnx.Gather" { family: Index, operands: &[req("data"), req("indices")], results: &[req("output")], attrs: &[a("axis", Int)], infer: index::gather }
    /// Remove size-1 axes (all of them if `axes` is omitted).
    Squeeze = "onnx.Squeeze" { family: Layout, operands: &[req("data"), opt("axes")], results: &[req("squeezed")], infer: layout::squeeze }
    /// Insert size-1 axes at `axes` (positions in the output).
    Unsqueeze = "onnx.Unsqueeze" { family: Layout, operands: &[req("data"), req("axes")], results: &[req("expanded")], infer: layout::unsqueeze }
    /// Collapse to 2-D around `axis` (default 1).
    Flatten = "onnx.Flatten" { family: Layout, operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: layout::flatten }
    /// Broadcast to `shape` (bidirectionally, numpy rules).
    Expand = "onnx.Expand" { family: Layout, operands: &[req("input"), req("shape")], results: &[req("output")], infer: layout::expand }
    /// The input's shape as a 1-D i64 tensor, optionally sliced by `start`/`end`.
    Shape = "onnx.Shape" { family: Layout, operands: &[req("data")], results: &[req("shape")], attrs: &[a("end", Int), a("start", Int)], infer: layout::shape_of }
    /// Pad with `constant`, `reflect`, `edge` or `wrap` mode.
    Pad = "onnx.Pad" { family: Layout, operands: &[req("data"), req("pads"), opt("constant_value"), opt("axes")], results: &[req("output")], attrs: &[a("mode", Enum(&["constant", "reflect", "edge", "wrap"]))], infer: layout::pad }
    /// Repeat the input `repeats[i]` times along each axis.
    Tile = "onnx.Tile" { family: Layout, operands: &[req("input"), req("repeats")], results: &[req("output")], infer: layout::tile }
    /// A tensor of the given shape filled with the scalar constant `value` (default f32 zero).
    ConstantOfShape = "onnx.ConstantOfShape" { family: Generate, operands: &[req("input")], results: &[req("output")], attrs: &[a("value", Sym)], infer: generate::constant_of_shape }

    /// Mean over `axes` (all if omitted, unless `noop_with_empty_axes`).
    ReduceMean = "onnx.ReduceMean" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum over `axes`.
    ReduceSum = "onnx.ReduceSum" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Maximum over `axes`.
    ReduceMax = "onnx.ReduceMax" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Minimum over `axes`.
    ReduceMin = "onnx.ReduceMin" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Product over `axes`.
    ReduceProd = "onnx.ReduceProd" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum of absolute values over `axes`.
    ReduceL1 = "onnx.ReduceL1" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Euclidean norm over `axes`.
    ReduceL2 = "onnx.ReduceL2" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum of squares over `axes`.
    ReduceSumSquare = "onnx.ReduceSumSquare" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// `log(sum(exp(x)))` over `axes`.
    ReduceLogSumExp = "onnx.ReduceLogSumExp" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Index of the maximum along `axis`, as i64.
    ArgMax = "onnx.ArgMax" { family: Reduce, operands: &[req("data")], results: &[req("reduced")], attrs: &[a("axis", Int), a("keepdims", Int), a("select_last_index", Int)], infer: reduce::arg_reduce }
    /// Index of the minimum along `axis`, as i64.
    ArgMin = "onnx.ArgMin" { family: Reduce, operands: &[req("data")], results: &[req("reduced")], attrs: &[a("axis", Int), a("keepdims", Int), a("select_last_index", Int)], infer: reduce::arg_reduce }

    /// Tangent.
    Tan = "onnx.Tan" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Arcsine (NaN outside `[-1, 1]`).
    Asin = "onnx.Asin" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Arccosine (NaN outside `[-1, 1]`).
    Acos = "onnx.Acos" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Arctangent.
    Atan = "onnx.Atan" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Hyperbolic sine.
    Sinh = "onnx.Sinh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Hyperbolic cosine.
    Cosh = "onnx.Cosh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Inverse hyperbolic sine.
    Asinh = "onnx.Asinh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Inverse hyperbolic cosine (NaN below 1).
    Acosh = "onnx.Acosh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// Inverse hyperbolic tangent.
    Atanh = "onnx.Atanh" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// `x / (1 + |x|)`.
    Softsign = "onnx.Softsign" { family: Elementwise, operands: &[req("input")], results: &[req("output")], flags: EW, infer: elementwise::unary_float }
    /// `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))` (alpha defaults to 1; f32 only).
    Celu = "onnx.Celu" { family: Elementwise, operands: X, attrs: ALPHA, flags: EW, infer: elementwise::unary_f32 }
    /// `x > alpha ? x : 0` (alpha defaults to 1).
    ThresholdedRelu = "onnx.ThresholdedRelu" { family: Elementwise, operands: X, attrs: ALPHA, flags: EW, infer: elementwise::unary_float }
    /// `x * tanh(softplus(x))`.
    Mish = "onnx.Mish" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// `x < -lambd ? x + bias : x > lambd ? x - bias : 0` (lambd defaults to 0.5, bias to 0).
    Shrink = "onnx.Shrink" { family: Elementwise, operands: &[req("input")], results: &[req("output")], attrs: &[a("bias", Float), a("lambd", Float)], flags: EW, infer: elementwise::shrink }
    /// `alpha * tanh(beta * x)` (both default to 1): onnxruntime's `com.microsoft` contrib op (and ONNX's experimental one before opset 10).
    ScaledTanh = "onnx.ScaledTanh" { family: Elementwise, operands: X, attrs: &[a("alpha", Float), a("beta", Float)], flags: EW, infer: elementwise::unary_float }
    /// True where the input is NaN.
    IsNaN = "onnx.IsNaN" { family: Elementwise, operands: X, flags: EW, infer: elementwise::float_predicate }
    /// True where the input is +inf (if `detect_positive`) or -inf (if `detect_negative`); both default to 1.
    IsInf = "onnx.IsInf" { family: Elementwise, operands: X, attrs: &[a("detect_negative", Int), a("detect_positive", Int)], flags: EW, infer: elementwise::float_predicate }
    /// Elementwise bitwise and of integers with broadcasting.
    BitwiseAnd = "onnx.BitwiseAnd" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::bitwise_binary }
    /// Elementwise bitwise or of integers with broadcasting.
    BitwiseOr = "onnx.BitwiseOr" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::bitwise_binary }
    /// Elementwise bitwise xor of integers with broadcasting.
    BitwiseXor = "onnx.BitwiseXor" { family: Elementwise, operands: AB, results: &[req("C")], flags: EWC, infer: elementwise::bitwise_binary }
    /// Elementwise bitwise not of integers.
    BitwiseNot = "onnx.BitwiseNot" { family: Elementwise, operands: X, flags: EW, infer: elementwise::bitwise_not }
    /// Shift unsigned integers `X` by `Y` bits toward `direction` (shifts of the bit width or more give 0).
    BitShift = "onnx.BitShift" { family: Elementwise, operands: &[req("X"), req("Y")], results: &[req("Z")], attrs: &[a_req("direction", Enum(&["LEFT", "RIGHT"]))], flags: EW, infer: elementwise::bit_shift }
    /// Cast `input` to the element type of `target_type` (`saturate`, `round_mode` only affect float8 targets).
    CastLike = "onnx.CastLike" { family: Elementwise, operands: &[req("input"), req("target_type")], results: &[req("output")], attrs: &[a("round_mode", Enum(&["up", "down", "nearest"])), a("saturate", Int)], infer: elementwise::cast_like }
    /// `saturate(round_half_even(x / y_scale) + y_zero_point)` per tensor, per `axis` or in blocks of `block_size`; integer outputs only.
    QuantizeLinear = "onnx.QuantizeLinear" { family: Quant, operands: &[req("x"), req("y_scale"), opt("y_zero_point")], results: &[req("y")], attrs: &[a("axis", Int), a("block_size", Int), a("output_dtype", Type), a("precision", Type), a("saturate", Int)], infer: quant::quantize_linear }
    /// `(x - x_zero_point) * x_scale` per tensor, per `axis` or in blocks of `block_size`.
    DequantizeLinear = "onnx.DequantizeLinear" { family: Quant, operands: &[req("x"), req("x_scale"), opt("x_zero_point")], results: &[req("y")], attrs: &[a("axis", Int), a("block_size", Int), a("output_dtype", Type)], infer: quant::dequantize_linear }
    /// u8 quantization of f32 data with a scale and zero point computed from its range.
    DynamicQuantizeLinear = "onnx.DynamicQuantizeLinear" { family: Quant, operands: &[req("x")], results: &[req("y"), req("y_scale"), req("y_zero_point")], infer: quant::dynamic_quantize_linear }
    /// Reinterpret each element's bits as `to` (same bit width; shape unchanged).
    BitCast = "onnx.BitCast" { family: Elementwise, operands: &[req("input")], results: &[req("output")], attrs: &[a_req("to", Type)], flags: EW, infer: elementwise::bitcast::bitcast }
    // @@ elementwise-additions @@ (new elementwise/quantization ops go above this line)

    /// 1 at the first maximum along `axis` (default -1), 0 elsewhere.
    Hardmax = "onnx.Hardmax" { family: Norm, operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: norm::softmax }
    /// `x / ||x||_p` along `axis` (default -1), `p` 1 or 2 (default 2); a zero norm gives 0.
    LpNormalization = "onnx.LpNormalization" { family: Norm, operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int), a("p", Int)], infer: norm::lp_normalization }
    /// Per-instance, per-channel normalization over the spatial axes, then `scale[c] * . + B[c]`.
    InstanceNormalization = "onnx.InstanceNormalization" { family: Norm, operands: &[req("input"), req("scale"), req("B")], results: &[req("output")], attrs: &[a("epsilon", Float)], infer: norm::instance_norm }
    /// Normalization over groups of channels (opset 21: `scale`/`bias` are per channel).
    GroupNormalization = "onnx.GroupNormalization" { family: Norm, operands: &[req("X"), req("scale"), req("bias")], attrs: &[a("epsilon", Float), a_req("num_groups", Int), a("stash_type", Int)], infer: norm::group_norm }
    /// `(X - E[X]) / (sqrt(E[X²] - E[X]²) + 1e-9)` over `axes` (default `[0, 2, 3]`).
    MeanVarianceNormalization = "onnx.MeanVarianceNormalization" { family: Norm, operands: X, attrs: &[a("axes", Ints)], infer: norm::mean_variance_norm }
    /// Local response normalization across `size` neighbouring channels.
    LRN = "onnx.LRN" { family: Norm, operands: X, attrs: &[a("alpha", Float), a("beta", Float), a("bias", Float), a_req("size", Int)], infer: norm::lrn }
    /// Lp-norm pooling (`p` default 2) over sliding windows; padding contributes 0.
    LpPool = "onnx.LpPool" { family: Pool, operands: X, attrs: &[
        a("auto_pad", AUTO_PAD), a("ceil_mode", Int), a("dilations", Ints), a_req("kernel_shape", Ints),
        a("p", Int), a("pads", Ints), a("strides", Ints),
    ], infer: pool::avg_pool }
    /// Lp norm over all spatial axes, keeping them as size 1.
    GlobalLpPool = "onnx.GlobalLpPool" { family: Pool, operands: X, attrs: &[a("p", Int)], infer: pool::global_pool }
    /// Move channel blocks into `blocksize x blocksize` spatial blocks (`DCR` or `CRD` order).
    DepthToSpace = "onnx.DepthToSpace" { family: Layout, operands: &[req("input")], results: &[req("output")], attrs: &[a_req("blocksize", Int), a("mode", Enum(&["DCR", "CRD"]))], infer: layout::depth_to_space }
    /// Move `blocksize x blocksize` spatial blocks into channels.
    SpaceToDepth = "onnx.SpaceToDepth" { family: Layout, operands: &[req("input")], results: &[req("output")], attrs: &[a_req("blocksize", Int)], infer: layout::space_to_depth }
    /// Einstein summation (explicit or implicit output, ellipsis, repeated labels).
    Einsum = "onnx.Einsum" { family: Linalg, operands: &[var("Inputs", 1)], results: &[req("Output")], attrs: &[a_req("equation", Str)], infer: linalg::einsum }
    /// Opset-9 Upsample: `floor(dims * scales)`, asymmetric coordinates; `nearest` rounds down on upscaled and up on downscaled axes (onnxruntime's rule), `linear` interpolates.
    Upsample = "onnx.Upsample" { family: Resample, operands: &[req("X"), req("scales")], attrs: &[a("mode", Enum(&["nearest", "linear"]))], infer: resample::upsample }
    /// Scatter pooled values back to the flat positions `I` of the unpooled shape.
    MaxUnpool = "onnx.MaxUnpool" { family: Pool, operands: &[req("X"), req("I"), opt("output_shape")], results: &[req("output")], attrs: &[a_req("kernel_shape", Ints), a("pads", Ints), a("strides", Ints)], infer: pool::max_unpool }
    /// Bilinear region-of-interest pooling (opset 16+ `coordinate_transformation_mode`).
    RoiAlign = "onnx.RoiAlign" { family: Resample, operands: &[req("X"), req("rois"), req("batch_indices")], attrs: &[
        a("coordinate_transformation_mode", Enum(&["half_pixel", "output_half_pixel"])), a("mode", Enum(&["avg", "max"])),
        a("output_height", Int), a("output_width", Int), a("sampling_ratio", Int), a("spatial_scale", Float),
    ], infer: resample::roi_align }
    /// Sample X at normalized grid coordinates (N-D; opset 20+ mode names).
    GridSample = "onnx.GridSample" { family: Resample, operands: &[req("X"), req("grid")], attrs: &[
        a("align_corners", Int), a("mode", Enum(&["linear", "nearest", "cubic"])),
        a("padding_mode", Enum(&["zeros", "border", "reflection"])),
    ], infer: resample::grid_sample }
    /// Sum column blocks `[N, C*prod(block), L]` back into images `[N, C, image_shape...]`.
    Col2Im = "onnx.Col2Im" { family: Conv, operands: &[req("input"), req("image_shape"), req("block_shape")], results: &[req("output")], attrs: &[a("dilations", Ints), a("pads", Ints), a("strides", Ints)], infer: conv::col2im }
    /// Elman recurrent network over a sequence (forward, reverse or bidirectional).
    RNN = "onnx.RNN" {family: Rnn,
        operands: &[req("X"), req("W"), req("R"), opt("B"), opt("sequence_lens"), opt("initial_h")],
        results: &[opt("Y"), opt("Y_h")], attrs: rnn::RNN_ATTRS, infer: rnn::rnn }
    /// Gated recurrent unit over a sequence (gates z, r, h; `linear_before_reset`).
    GRU = "onnx.GRU" {family: Rnn,
        operands: &[req("X"), req("W"), req("R"), opt("B"), opt("sequence_lens"), opt("initial_h")],
        results: &[opt("Y"), opt("Y_h")], attrs: &[
        a("activation_alpha", Floats), a("activation_beta", Floats), a("activations", Strs), a("clip", Float),
        a("direction", rnn::RNN_DIRECTION), a("hidden_size", Int), a("layout", Int), a("linear_before_reset", Int),
    ], infer: rnn::gru }
    /// Long short-term memory over a sequence (gates i, o, f, c; peepholes; `input_forget`).
    LSTM = "onnx.LSTM" {family: Rnn,
        operands: &[req("X"), req("W"), req("R"), opt("B"), opt("sequence_lens"), opt("initial_h"), opt("initial_c"), opt("P")],
        results: &[opt("Y"), opt("Y_h"), opt("Y_c")], attrs: &[
        a("activation_alpha", Floats), a("activation_beta", Floats), a("activations", Strs), a("clip", Float),
        a("direction", rnn::RNN_DIRECTION), a("hidden_size", Int), a("input_forget", Int), a("layout", Int),
    ], infer: rnn::lstm }
    /// `X / sqrt(mean(X²) over [axis, rank) + epsilon) * scale` (opset 23); Y has scale's type.
    RMSNormalization = "onnx.RMSNormalization" { family: Norm, operands: &[req("X"), req("scale")], attrs: &[a("axis", Int), a("epsilon", Float), a("stash_type", Int)], infer: norm::rms_norm }
    /// Scaled dot-product attention (opset 24 signature) with KV cache, masks, causal, GQA and softcap.
    Attention = "onnx.Attention" {family: Attention,
        operands: &[req("Q"), req("K"), req("V"), opt("attn_mask"), opt("past_key"), opt("past_value"), opt("nonpad_kv_seqlen")],
        results: &[req("Y"), opt("present_key"), opt("present_value"), opt("qk_matmul_output")], attrs: &[
        a("is_causal", Int), a("kv_num_heads", Int), a("q_num_heads", Int), a("qk_matmul_output_mode", Int),
        a("scale", Float), a("softcap", Float), a("softmax_precision", Int),
    ], infer: attention::attention }
    /// Rotary position embedding of the first `rotary_embedding_dim` features of each head (opset 23).
    RotaryEmbedding = "onnx.RotaryEmbedding" { family: Attention, operands: &[req("X"), req("cos_cache"), req("sin_cache"), opt("position_ids")], attrs: &[a("interleaved", Int), a("num_heads", Int), a("rotary_embedding_dim", Int)], infer: attention::rotary_embedding }

    // @@ nn-additions @@ (new nn ops go above this line)

    /// `log(sum(x))` over `axes`.
    ReduceLogSum = "onnx.ReduceLogSum" { family: Reduce, operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// `out[i][j] = data[indices[i][j]][j]` (for axis 0); negative indices count from the end.
    GatherElements = "onnx.GatherElements" { family: Index, operands: &[req("data"), req("indices")], results: &[req("output")], attrs: &[a("axis", Int)], infer: index::gather_elements }
    /// Gather slices addressed by index tuples in the last indices dim, after `batch_dims` shared dims.
    GatherND = "onnx.GatherND" { family: Index, operands: &[req("data"), req("indices")], results: &[req("output")], attrs: &[a("batch_dims", Int)], infer: index::gather_nd }
    /// Copy of `data` with `updates` written at `indices` along `axis`, optionally combined by `reduction`.
    ScatterElements = "onnx.ScatterElements" { family: Index, operands: &[req("data"), req("indices"), req("updates")], results: &[req("output")], attrs: &[a("axis", Int), a("reduction", Enum(&["none", "add", "mul", "max", "min"]))], infer: index::scatter_elements }
    /// Copy of `data` with `updates` written at the slices addressed by index tuples, optionally combined by `reduction`.
    ScatterND = "onnx.ScatterND" { family: Index, operands: &[req("data"), req("indices"), req("updates")], results: &[req("output")], attrs: &[a("reduction", Enum(&["none", "add", "mul", "max", "min"]))], infer: index::scatter_nd }
    /// One-hot encoding: a new `depth` axis at `axis` holding `values[1]` at the index, `values[0]` elsewhere.
    OneHot = "onnx.OneHot" { family: Index, operands: &[req("indices"), req("depth"), req("values")], results: &[req("output")], attrs: &[a("axis", Int)], infer: index::one_hot }
    /// Coordinates of the non-zero elements as i64 `[rank, count]`, in row-major order.
    NonZero = "onnx.NonZero" { family: Select, operands: X, infer: select::non_zero }
    /// The `K` largest (or smallest) entries along `axis` with their i64 indices; ties keep the lower index first.
    TopK = "onnx.TopK" { family: Select, operands: &[req("X"), req("K")], results: &[req("Values"), req("Indices")], attrs: &[a("axis", Int), a("largest", Int), a("sorted", Int)], infer: select::top_k }
    /// `start + i * delta` for `i < max(ceil((limit - start) / delta), 0)`; `stash_type` is f16/bf16 compute precision.
    Range = "onnx.Range" { family: Generate, operands: &[req("start"), req("limit"), req("delta")], results: &[req("output")], attrs: &[a("stash_type", Int)], infer: generate::range }
    /// Ones on diagonal `k` of a 2-D tensor shaped like the input, element type `dtype` (default: the input's).
    EyeLike = "onnx.EyeLike" { family: Generate, operands: &[req("input")], results: &[req("output")], attrs: &[a("dtype", Type), a("k", Int)], infer: generate::eye_like }
    /// Keep the upper (or lower) triangle of the last two axes from diagonal `k`, zeroing the rest.
    Trilu = "onnx.Trilu" { family: Generate, operands: &[req("input"), opt("k")], results: &[req("output")], attrs: &[a("upper", Int)], infer: generate::trilu }
    /// Running sums along the `axis` operand (`exclusive` skips the current element, `reverse` sums from the end).
    CumSum = "onnx.CumSum" { family: Reduce, operands: &[req("x"), req("axis")], results: &[req("y")], attrs: &[a("exclusive", Int), a("reverse", Int)], infer: reduce::cum_sum }
    /// The element count as a rank-0 i64.
    Size = "onnx.Size" { family: Layout, operands: &[req("data")], results: &[req("size")], infer: layout::size }
    /// Keep the slices along `axis` (or flattened elements if absent) where the bool `condition` is true.
    Compress = "onnx.Compress" { family: Select, operands: &[req("input"), req("condition")], results: &[req("output")], attrs: &[a("axis", Int)], infer: select::compress }
    /// Reverse the first `sequence_lens[b]` entries along `time_axis` of each batch entry `b` along `batch_axis`.
    ReverseSequence = "onnx.ReverseSequence" { family: Layout, operands: &[req("input"), req("sequence_lens")], results: &[req("Y")], attrs: &[a("batch_axis", Int), a("time_axis", Int)], infer: layout::reverse_sequence }
    /// Distinct elements (or slices along `axis`), sorted or in first-occurrence order, with indices, inverse indices and counts.
    Unique = "onnx.Unique" { family: Select, operands: X, results: &[req("Y"), opt("indices"), opt("inverse_indices"), opt("counts")], attrs: &[a("axis", Int), a("sorted", Int)], infer: select::unique }
    /// Center-crop or zero-pad the `axes` (default: all) to the sizes in `shape`.
    CenterCropPad = "onnx.CenterCropPad" { family: Layout, operands: &[req("input_data"), req("shape")], results: &[req("output_data")], attrs: &[a("axes", Ints)], infer: layout::center_crop_pad }
    /// Determinants of the square matrices in the last two axes.
    Det = "onnx.Det" { family: Linalg, operands: X, infer: linalg::det }
    /// Greedy per-class box selection by score with IoU suppression; i64 `[selected, 3]` rows of (batch, class, box).
    NonMaxSuppression = "onnx.NonMaxSuppression" { family: Select, operands: &[req("boxes"), req("scores"), opt("max_output_boxes_per_class"), opt("iou_threshold"), opt("score_threshold")], results: &[req("selected_indices")], attrs: &[a("center_point_box", Int)], infer: select::non_max_suppression }
    /// Drop stopword elements of a `[C]` or `[1, C]` string tensor and change case (no locale-specific rules).
    StringNormalizer = "onnx.StringNormalizer" { family: Strings, operands: X, results: &[req("Y")], attrs: &[a("case_change_action", Enum(&["LOWER", "UPPER", "NONE"])), a("is_case_sensitive", Int), a("locale", Str), a("stopwords", Strs)], infer: strings::string_normalizer }
    /// Elementwise string concatenation with numpy broadcasting.
    StringConcat = "onnx.StringConcat" { family: Strings, operands: &[req("X"), req("Y")], results: &[req("Z")], infer: strings::string_concat }
    /// Split strings by `delimiter` (whitespace runs if empty) at most `maxsplit` times; parts padded with "" and counts.
    StringSplit = "onnx.StringSplit" { family: Strings, operands: X, results: &[req("Y"), req("Z")], attrs: &[a("delimiter", Str), a("maxsplit", Int)], infer: strings::string_split }

    // @@ shape-additions @@ (new shape/index/reduction ops go above this line)

    /// Negative log-likelihood of `input [N, C, d...]` at the classes `target [N, d...]`, optionally class-weighted, with `ignore_index` and `reduction` (default mean).
    NegativeLogLikelihoodLoss = "onnx.NegativeLogLikelihoodLoss" { family: Loss, operands: &[req("input"), req("target"), opt("weight")], results: &[req("loss")], attrs: &[a("ignore_index", Int), a("reduction", Enum(&["none", "sum", "mean"]))], infer: loss::nll_loss }
    /// NegativeLogLikelihoodLoss of the log-softmax over axis 1 of `scores`; the optional `log_prob` result is that log-softmax.
    SoftmaxCrossEntropyLoss = "onnx.SoftmaxCrossEntropyLoss" { family: Loss, operands: &[req("scores"), req("labels"), opt("weights")], results: &[req("output"), opt("log_prob")], attrs: &[a("ignore_index", Int), a("reduction", Enum(&["none", "sum", "mean"]))], infer: loss::softmax_cross_entropy_loss }
    /// Running products along the `axis` operand (`exclusive` skips the current element, `reverse` multiplies from the end).
    CumProd = "onnx.CumProd" { family: Reduce, operands: &[req("x"), req("axis")], results: &[req("y")], attrs: &[a("exclusive", Int), a("reverse", Int)], infer: reduce::cum_sum }
    /// `x * sigmoid(alpha * x)` (alpha defaults to 1).
    Swish = "onnx.Swish" { family: Elementwise, operands: X, attrs: ALPHA, flags: EW, infer: elementwise::unary_float }
    /// Sampling grid `[N, H, W, 2]` or `[N, D, H, W, 3]` of the affine maps `theta` applied to normalized output positions (`size` is `[N, C, (D,) H, W]`).
    AffineGrid = "onnx.AffineGrid" { family: Resample, operands: &[req("theta"), req("size")], results: &[req("grid")], attrs: &[a("align_corners", Int)], infer: resample::affine_grid }
    /// Deformable N-D convolution: kernel taps moved by `offset` (multilinear sampling, zero outside) and scaled by the optional `mask`.
    DeformConv = "onnx.DeformConv" { family: Conv, operands: &[req("X"), req("W"), req("offset"), opt("B"), opt("mask")], attrs: &[
        a("dilations", Ints), a("group", Int), a("kernel_shape", Ints), a("offset_group", Int), a("pads", Ints), a("strides", Ints),
    ], infer: conv::deform_conv }
    /// KV-cache update: `past_cache` with `update` written along `axis` (default -2) at `write_indices[batch]`, `linear` or `circular`.
    TensorScatter = "onnx.TensorScatter" { family: Index, operands: &[req("past_cache"), req("update"), opt("write_indices")], results: &[req("present_cache")], attrs: &[a("axis", Int), a("mode", Enum(&["linear", "circular"]))], infer: index::tensor_scatter }

    // @@ loss-additions @@ (losses and other new ops of that helper go above this line)

    /// Forward/inverse DFT along `axis` of real `[..., 1]` or complex `[..., 2]` input; `onesided` gives RFFT/IRFFT. The axis is the opset-20 operand (default -2) or, for opsets 17-19, the `axis` attribute (never both).
    DFT = "onnx.DFT" { family: Signal, operands: &[req("input"), opt("dft_length"), opt("axis")], results: &[req("output")], attrs: &[a("axis", Int), a("inverse", Int), a("onesided", Int)], infer: signal::dft }
    /// Short-time Fourier transform of a `[batch, length, 1|2]` signal: `[batch, frames, bins, 2]` (`onesided` defaults to 1).
    STFT = "onnx.STFT" { family: Signal, operands: &[req("signal"), req("frame_step"), opt("window"), opt("frame_length")], results: &[req("output")], attrs: &[a("onesided", Int)], infer: signal::stft }
    /// Hann window `sin²(πi/N)` of `size` values of `output_datatype` (default f32); `N = size` if `periodic` (default) else `size - 1`.
    HannWindow = "onnx.HannWindow" { family: Signal, operands: &[req("size")], results: &[req("output")], attrs: &[a("output_datatype", Type), a("periodic", Int)], infer: signal::window }
    /// Hamming window `25/46 - 21/46 cos(2πi/N)` of `size` values of `output_datatype` (default f32).
    HammingWindow = "onnx.HammingWindow" { family: Signal, operands: &[req("size")], results: &[req("output")], attrs: &[a("output_datatype", Type), a("periodic", Int)], infer: signal::window }
    /// Blackman window `0.42 - 0.5 cos(2πi/N) + 0.08 cos(4πi/N)` of `size` values of `output_datatype` (default f32).
    BlackmanWindow = "onnx.BlackmanWindow" { family: Signal, operands: &[req("size")], results: &[req("output")], attrs: &[a("output_datatype", Type), a("periodic", Int)], infer: signal::window }
    /// `[dft_length / 2 + 1, num_mel_bins]` triangular mel filterbank of `output_datatype` (default f32).
    MelWeightMatrix = "onnx.MelWeightMatrix" { family: Signal, operands: &[req("num_mel_bins"), req("dft_length"), req("sample_rate"), req("lower_edge_hertz"), req("upper_edge_hertz")], results: &[req("output")], attrs: &[a("output_datatype", Type)], infer: signal::mel_weight_matrix }

    // @@ signal-additions @@ (signal-processing ops go above this line)

    /// `(A - a_zero_point) @ (B - b_zero_point)` on i8/u8 operands in i32 (numpy batching; per-row / per-column zero points).
    MatMulInteger = "onnx.MatMulInteger" { family: Quant, operands: &[req("A"), req("B"), opt("a_zero_point"), opt("b_zero_point")], infer: quant::matmul_integer }
    /// Quantized matmul: integer product of the centered i8/u8 operands, requantized by `a_scale * b_scale / y_scale` and `y_zero_point`.
    QLinearMatMul = "onnx.QLinearMatMul" { family: Quant, operands: &[req("a"), req("a_scale"), req("a_zero_point"), req("b"), req("b_scale"), req("b_zero_point"), req("y_scale"), req("y_zero_point")], results: &[req("y")], infer: quant::qlinear_matmul }
    /// N-D grouped convolution of i8/u8 `x - x_zero_point` and `w - w_zero_point` (per output channel) in i32.
    ConvInteger = "onnx.ConvInteger" { family: Quant, operands: &[req("x"), req("w"), opt("x_zero_point"), opt("w_zero_point")], results: &[req("y")], attrs: CONV_ATTRS, infer: quant::conv_integer }
    /// Quantized convolution: integer conv of the centered operands plus i32 bias `B`, requantized per output channel.
    QLinearConv = "onnx.QLinearConv" { family: Quant, operands: &[req("x"), req("x_scale"), req("x_zero_point"), req("w"), req("w_scale"), req("w_zero_point"), req("y_scale"), req("y_zero_point"), opt("B")], results: &[req("y")], attrs: CONV_ATTRS, infer: quant::qlinear_conv }
    /// Recurrent linear attention over packed `[B, T, H*D]` heads (`linear`, `gated`, `delta`, `gated_delta` state updates, GQA) with a `[B, Hkv, dk, dv]` state.
    LinearAttention = "onnx.LinearAttention" { family: Attention, operands: &[req("query"), req("key"), req("value"), opt("past_state"), opt("decay"), opt("beta")], results: &[req("output"), opt("present_state")],
        attrs: &[a("chunk_size", Int), a_req("kv_num_heads", Int), a_req("q_num_heads", Int), a("scale", Float), a("update_rule", Enum(&["linear", "gated", "delta", "gated_delta"]))],
        infer: attention::linear::linear_attention }
    /// Causal depthwise 1-D conv of `[B, C, L]` with weight `[C, 1, k]`, carried `[B, C, k-1]` state and optional SiLU.
    CausalConvWithState = "onnx.CausalConvWithState" { family: Attention, operands: &[req("input"), req("weight"), opt("bias"), opt("past_state")], results: &[req("output"), opt("present_state")],
        attrs: &[a("activation", Enum(&["none", "silu", "swish"]))], infer: attention::linear::causal_conv_with_state }
    /// `softmax((Q @ Kᵀ) * scale) @ V` on rank-4 heads with GQA (ai.onnx.preview; `score_mod`/`prob_mod` subgraphs unsupported).
    FlexAttention = "onnx.FlexAttention" { family: Attention, operands: &[req("Q"), req("K"), req("V")], attrs: &[a("scale", Float), a("softmax_precision", Int)],
        infer: attention::linear::flex_attention }
    // @@ qlinear-additions @@ (integer/quantized linear algebra and new attention ops go above this line)

    /// `act(Conv(X, W, B))`: onnx.Conv's attributes plus an activation epilogue (`act`, `act_alpha`, `act_beta`).
    CoreConv = "core.conv" { family: Conv, operands: &[req("X"), req("W"), opt("B")], attrs: CORE_CONV_ATTRS, infer: conv::core_conv }
    /// `act(ConvTranspose(X, W, B))`: onnx.ConvTranspose's attributes plus an activation epilogue.
    CoreConvTranspose = "core.conv_transpose" { family: Conv, operands: &[req("X"), req("W"), opt("B")], attrs: CORE_CONV_TRANSPOSE_ATTRS, infer: conv::core_conv_transpose }
    /// `act(MatMul(A, B') + bias)` with numpy batching; `B'` is B with its last two axes swapped if `trans_b = 1`; bias broadcasts to the product.
    CoreLinear = "core.linear" { family: Linalg, operands: &[req("A"), req("B"), opt("bias")], attrs: &[a("act", ACT), a("act_alpha", Float), a("act_beta", Float), a("trans_b", Int)], infer: linalg::core_linear }
    /// `softmax(Q @ Kᵀ * scale + mask, -1) @ V` over `[..., Sq, D]` heads; a bool mask (and `causal`, top-left aligned, and `window` W: only keys `|i - j| <= W`) puts `-inf` at masked keys.
    CoreAttention = "core.attention" { family: Attention, operands: &[req("Q"), req("K"), req("V"), opt("mask")], attrs: &[a("causal", Int), a_req("scale", Float), a("window", Int)], infer: attention::core_attention }
    /// SiLU `X * Sigmoid(X)` (the sigmoid rounded to X's type first, like the unfused pair).
    CoreSilu = "core.silu" { family: Elementwise, operands: X, flags: EW, infer: elementwise::unary_float }
    /// Integer conv in X's type (u8/i8), `acc = conv(X - x_zero_point, W) + B` in i32 (W i8, B i32 `[M]`), then either the fixed-point epilogue `clamp(requantize(acc, multiplier[m], shift[m]) + y_zero_point, qmin, qmax)` (i32 `multiplier`/`shift`, no `act`) or, with f32 `acc_scale` instead, the float-activation one `clamp(round(act(acc·acc_scale[m]) / y_scale) + y_zero_point, qmin, qmax)`; per-channel operands may be `[1]`; formulas in `edgec_numeric::quant`.
    QuantConv = "quant.conv" { family: Quant, operands: &[req("X"), req("W"), opt("B"), opt("multiplier"), opt("shift"), opt("acc_scale")], attrs: QUANT_CONV_ATTRS, infer: quant::quant_conv }
    /// `Q(Add(DQ(A), DQ(B)))` fused on u8/i8 operands of one type (B equal to A's shape, or broadcast along A's leading and trailing dims: `edgec_numeric::quant::broadcast_block`), with per-tensor scales and zero points as attributes; the same f32 steps as the unfused ops (`edgec_numeric::quant::qadd`), so it is exact. `qmin` (default the type's minimum) raises the result's lower clamp: `qmin = y_zero_point` is a fused Relu.
    QuantAdd = "quant.add" { family: Quant, operands: AB, attrs: QUANT_BINARY_ATTRS, infer: quant::quant_binary }
    /// `Q(Sub(DQ(A), DQ(B)))` fused like `quant.add` (`edgec_numeric::quant::qsub`; exact); B as in `quant.add`.
    QuantSub = "quant.sub" { family: Quant, operands: AB, attrs: QUANT_BINARY_ATTRS, infer: quant::quant_binary }
    /// `Q(Mul(DQ(A), DQ(B)))` fused like `quant.add` (`edgec_numeric::quant::qmul`: the unfused ops' f32 steps, so it is exact); B as in `quant.add`.
    QuantMul = "quant.mul" { family: Quant, operands: AB, attrs: QUANT_MUL_ATTRS, infer: quant::quant_binary }
    /// An 8-bit lookup: `Y[i] = Table[X[i] + 128·(X is i8)]`, Table `[256]` of u8/i8 (the result type); the exact form of `Q(f(DQ(X)))` for an elementwise unary `f`, its table the QDQ ops folded on every input value.
    QuantLut = "quant.lut" { family: Quant, operands: &[req("X"), req("Table")], infer: quant::quant_lut }
    /// `Q(GlobalAveragePool(DQ(X)))` on u8/i8 `[N, C, D...]` → `[N, C, 1...]`: the exact i32 sum `Σ(x − x_zero_point)` per plane, then `requantize_act(sum, mean_scale(x_scale, n), none, y_scale, y_zero_point)` (`edgec_numeric::quant`).
    QuantGlobalAvgPool = "quant.global_avg_pool" { family: Quant, operands: X, attrs: &[a_req("x_scale", Float), a_req("x_zero_point", Int), a_req("y_scale", Float), a_req("y_zero_point", Int)], infer: quant::quant_global_avg_pool }
    // @@ fused-additions @@ (fused/canonical core ops go above this line)

    /// `onnx.Reshape(X, shape)` with a static `shape`: dims >= 0 (0 is a zero-size dim, never a copy) and at most one -1 (not with a 0).
    CoreReshape = "core.reshape" { family: Layout, operands: X, attrs: &[a_req("shape", Ints)], infer: layout::canonical::reshape }
    /// `onnx.Squeeze(X, axes)` with static `axes`: non-empty, non-negative, strictly increasing.
    CoreSqueeze = "core.squeeze" { family: Layout, operands: X, attrs: &[a_req("axes", Ints)], infer: layout::canonical::squeeze }
    /// `onnx.Unsqueeze(X, axes)` with static `axes` (output positions): non-empty, non-negative, strictly increasing.
    CoreUnsqueeze = "core.unsqueeze" { family: Layout, operands: X, attrs: &[a_req("axes", Ints)], infer: layout::canonical::unsqueeze }
    /// `onnx.Reduce<kind>(X, axes) {keepdims}` with static `axes`: non-empty, non-negative, strictly increasing; `keepdims` 0 or 1.
    CoreReduce = "core.reduce" { family: Reduce, operands: X, attrs: &[a_req("axes", Ints), a_req("keepdims", Int), a_req("kind", reduce::REDUCE_KIND)], infer: reduce::core_reduce }
    /// `onnx.Slice(X, starts, ends, axes, steps)` with static lists of equal length; `axes` non-negative and strictly increasing, `steps` non-zero.
    CoreSlice = "core.slice" { family: Layout, operands: X, attrs: &[a_req("axes", Ints), a_req("ends", Ints), a_req("starts", Ints), a_req("steps", Ints)], infer: layout::canonical::slice }
    /// `onnx.Expand(X, shape)` with a static `shape` (dims >= 0).
    CoreExpand = "core.expand" { family: Layout, operands: X, attrs: &[a_req("shape", Ints)], infer: layout::canonical::expand }
    /// `core.attention` computed in `block_q` × `block_k` tiles with an online softmax (never more than `block_q·block_k` scores live); same result up to summation order.
    CoreAttentionBlocked = "core.attention_blocked" { family: Attention, operands: &[req("Q"), req("K"), req("V"), opt("mask")], attrs: &[a_req("block_k", Int), a_req("block_q", Int), a("causal", Int), a_req("scale", Float), a("window", Int)], infer: attention::core_attention_blocked }
    /// Runs the static specialization of a function for the smallest buckets that fit the runtime sizes of `dims` (operands padded at the end with `pad_values`, results sliced back); see `ops::control::dispatch`.
    CoreBucketDispatch = "core.bucket_dispatch" { family: Control, operands: &[var("inputs", 0)], results: &[var("outputs", 0)], flags: 0,
        attrs: &[a_req("bucket_counts", Ints), a_req("buckets", Ints), a_req("callees", Strs), a_req("dims", Strs),
            a_req("pad_axes", Ints), a_req("pad_values", Floats), a_req("slice_axes", Ints)],
        infer: control::dispatch::needs_module }
    /// Swin window partition: `X [B, H, W, C]` rolled by `-shift` on axes 1, 2 (optional), cut into row-major `window = [wh, ww]` windows `[B·nW, wh·ww, C]`.
    CoreWindowPartition = "core.window_partition" { family: Attention, operands: X, attrs: &[a("shift", Ints), a_req("window", Ints)], infer: attention::window::partition }
    /// Inverse of `core.window_partition` with the same `window`/`shift`: `[B·nW, N, C]` merged into `[B, H, W, C]` (`size = [H, W]`), then rolled by `+shift`.
    CoreWindowMerge = "core.window_merge" { family: Attention, operands: X, attrs: &[a("shift", Ints), a_req("size", Ints), a_req("window", Ints)], infer: attention::window::merge }
    /// `softmax(Q @ Kᵀ * scale + bias + mask[b % num_windows]) @ V` over `[B·nW, heads, N, D]` windows; bias broadcasts to `[1, heads, N, N]`, mask is `[nW, N, N]`.
    CoreWindowAttention = "core.window_attention" { family: Attention, operands: &[req("Q"), req("K"), req("V"), opt("bias"), opt("mask")], attrs: &[a_req("num_windows", Int), a_req("scale", Float)], infer: attention::window::attention }
    // @@ canonical-additions @@ (canonical core ops with static attributes go above this line)
}
