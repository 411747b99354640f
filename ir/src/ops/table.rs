//! THE op table. One entry per op; everything else derives from it.

use super::{a, a_req, control, elementwise as ew, flags::*, nn, opt, reduce, req, shape, var, OpDef};
use crate::attr::AttrKind::{self, *};
use crate::interp as ik;

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
    infer: ew::unary_same,
    eval: None,
    infer_regions: None,
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
const REDUCE_ATTRS: &[super::AttrSpec] = &[a("keepdims", Int), a("noop_with_empty_axes", Int)];
const REDUCE_OPERANDS: &[super::SlotSpec] = &[req("data"), opt("axes")];
const ALPHA: &[super::AttrSpec] = &[a("alpha", Float)];
const EW: u32 = PURE | ELEMENTWISE;
const EWC: u32 = PURE | ELEMENTWISE | COMMUTATIVE;

define_ops! {
    /// A named constant from the module pool.
    CoreConst = "core.const" { operands: &[], attrs: &[a_req("value", Sym)], infer: shape::core_const, eval: Some(ik::shape::core_const) }

    /// Runs region 0 (`then`) if the scalar bool `cond` is true, else region 1 (`else`).
    If = "onnx.If" { operands: &[req("cond")], results: &[var("outputs", 1)], regions: 2, flags: 0,
        infer: control::needs_regions, infer_regions: Some(control::if_), eval: Some(ik::control::if_) }
    /// Loop: region params (iteration, cond, carried...), yields (cond, carried..., scan outputs...).
    Loop = "onnx.Loop" { operands: &[opt("M"), opt("cond"), var("v_initial", 0)], results: &[var("v_final_and_scan_outputs", 0)],
        regions: 1, flags: 0, infer: control::needs_regions, infer_regions: Some(control::loop_), eval: Some(ik::control::loop_) }
    /// Scan over slices of the scan inputs with carried state (opset 9+ form).
    Scan = "onnx.Scan" { operands: &[var("initial_state_and_scan_inputs", 1)], results: &[var("final_state_and_scan_outputs", 1)],
        attrs: &[a_req("num_scan_inputs", Int), a("scan_input_axes", Ints), a("scan_input_directions", Ints),
            a("scan_output_axes", Ints), a("scan_output_directions", Ints)],
        regions: 1, flags: 0, infer: control::needs_regions, infer_regions: Some(control::scan), eval: Some(ik::control::scan) }

    /// Elementwise addition with numpy broadcasting.
    Add = "onnx.Add" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::binary_same }
    /// Elementwise subtraction with numpy broadcasting.
    Sub = "onnx.Sub" { operands: AB, results: &[req("C")], flags: EW, infer: ew::binary_same }
    /// Elementwise multiplication with numpy broadcasting.
    Mul = "onnx.Mul" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::binary_same }
    /// Elementwise division (integer division truncates) with numpy broadcasting.
    Div = "onnx.Div" { operands: AB, results: &[req("C")], flags: EW, infer: ew::binary_same }
    /// Elementwise power; the exponent may have another numeric type.
    Pow = "onnx.Pow" { operands: &[req("X"), req("Y")], results: &[req("Z")], flags: EW, infer: ew::pow }
    /// Elementwise remainder (`fmod = 1` for C fmod semantics).
    Mod = "onnx.Mod" { operands: AB, results: &[req("C")], attrs: &[a("fmod", Int)], flags: EW, infer: ew::binary_same }
    /// Elementwise maximum of any number of inputs with broadcasting.
    Max = "onnx.Max" { operands: &[var("data_0", 1)], results: &[req("max")], flags: EWC, infer: ew::variadic_same }
    /// Elementwise minimum of any number of inputs with broadcasting.
    Min = "onnx.Min" { operands: &[var("data_0", 1)], results: &[req("min")], flags: EWC, infer: ew::variadic_same }
    /// Elementwise sum of any number of inputs with broadcasting.
    Sum = "onnx.Sum" { operands: &[var("data_0", 1)], results: &[req("sum")], flags: EWC, infer: ew::variadic_same }
    /// Elementwise mean of any number of inputs with broadcasting.
    Mean = "onnx.Mean" { operands: &[var("data_0", 1)], results: &[req("mean")], flags: EWC, infer: ew::variadic_same }
    /// Parametric ReLU: `x < 0 ? slope * x : x`, slope broadcast to X.
    PRelu = "onnx.PRelu" { operands: &[req("X"), req("slope")], flags: EW, infer: ew::prelu }
    /// Elementwise equality, producing bool.
    Equal = "onnx.Equal" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::compare }
    /// Elementwise `A < B`, producing bool.
    Less = "onnx.Less" { operands: AB, results: &[req("C")], flags: EW, infer: ew::compare }
    /// Elementwise `A <= B`, producing bool.
    LessOrEqual = "onnx.LessOrEqual" { operands: AB, results: &[req("C")], flags: EW, infer: ew::compare }
    /// Elementwise `A > B`, producing bool.
    Greater = "onnx.Greater" { operands: AB, results: &[req("C")], flags: EW, infer: ew::compare }
    /// Elementwise `A >= B`, producing bool.
    GreaterOrEqual = "onnx.GreaterOrEqual" { operands: AB, results: &[req("C")], flags: EW, infer: ew::compare }
    /// Elementwise logical and of bools.
    And = "onnx.And" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::logic }
    /// Elementwise logical or of bools.
    Or = "onnx.Or" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::logic }
    /// Elementwise logical xor of bools.
    Xor = "onnx.Xor" { operands: AB, results: &[req("C")], flags: EWC, infer: ew::logic }
    /// Elementwise logical not of bools.
    Not = "onnx.Not" { operands: X, flags: EW, infer: ew::logic_not }
    /// `condition ? X : Y` with three-way broadcasting.
    Where = "onnx.Where" { operands: &[req("condition"), req("X"), req("Y")], results: &[req("output")], flags: EW, infer: ew::where_ }

    /// Returns its input unchanged.
    Identity = "onnx.Identity" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_same }
    /// `max(x, 0)`.
    Relu = "onnx.Relu" { operands: X, flags: EW, infer: ew::unary_signed }
    /// `x < 0 ? alpha * x : x` (alpha defaults to 0.01).
    LeakyRelu = "onnx.LeakyRelu" { operands: X, attrs: ALPHA, flags: EW, infer: ew::unary_float }
    /// `x < 0 ? alpha * (exp(x) - 1) : x`.
    Elu = "onnx.Elu" { operands: X, attrs: ALPHA, flags: EW, infer: ew::unary_float }
    /// Scaled ELU with `alpha` and `gamma`.
    Selu = "onnx.Selu" { operands: X, attrs: &[a("alpha", Float), a("gamma", Float)], flags: EW, infer: ew::unary_float }
    /// `1 / (1 + exp(-x))`.
    Sigmoid = "onnx.Sigmoid" { operands: X, flags: EW, infer: ew::unary_float }
    /// `max(0, min(1, alpha * x + beta))`.
    HardSigmoid = "onnx.HardSigmoid" { operands: X, attrs: &[a("alpha", Float), a("beta", Float)], flags: EW, infer: ew::unary_float }
    /// `x * max(0, min(1, x / 6 + 1/2))`.
    HardSwish = "onnx.HardSwish" { operands: X, flags: EW, infer: ew::unary_float }
    /// Gaussian error linear unit, exact (`none`) or `tanh` approximation.
    Gelu = "onnx.Gelu" { operands: X, attrs: &[a("approximate", Enum(&["none", "tanh"]))], flags: EW, infer: ew::unary_float }
    /// Hyperbolic tangent.
    Tanh = "onnx.Tanh" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// `exp(x)`.
    Exp = "onnx.Exp" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// Natural logarithm.
    Log = "onnx.Log" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// Square root.
    Sqrt = "onnx.Sqrt" { operands: X, flags: EW, infer: ew::unary_float }
    /// `1 / x`.
    Reciprocal = "onnx.Reciprocal" { operands: X, flags: EW, infer: ew::unary_float }
    /// Gauss error function.
    Erf = "onnx.Erf" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// `ln(1 + exp(x))`.
    Softplus = "onnx.Softplus" { operands: X, flags: EW, infer: ew::unary_float }
    /// Sine.
    Sin = "onnx.Sin" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// Cosine.
    Cos = "onnx.Cos" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_float }
    /// Absolute value.
    Abs = "onnx.Abs" { operands: X, flags: EW, infer: ew::unary_numeric }
    /// Negation.
    Neg = "onnx.Neg" { operands: X, flags: EW, infer: ew::unary_signed }
    /// Sign: -1, 0 or 1.
    Sign = "onnx.Sign" { operands: &[req("input")], results: &[req("output")], flags: EW, infer: ew::unary_numeric }
    /// Round down.
    Floor = "onnx.Floor" { operands: X, flags: EW, infer: ew::unary_float }
    /// Round up.
    Ceil = "onnx.Ceil" { operands: X, flags: EW, infer: ew::unary_float }
    /// Round half to even.
    Round = "onnx.Round" { operands: X, flags: EW, infer: ew::unary_float }
    /// Clamp to `[min, max]`; bounds are optional scalar operands.
    Clip = "onnx.Clip" { operands: &[req("input"), opt("min"), opt("max")], results: &[req("output")], flags: EW, infer: ew::clip }
    /// Element type conversion (`saturate` applies to float8 targets only).
    Cast = "onnx.Cast" { operands: &[req("input")], results: &[req("output")], attrs: &[a_req("to", Type), a("saturate", Int)], flags: EW, infer: ew::cast }
    /// Inference-mode dropout: identity on `data`; optional mask output is all true.
    Dropout = "onnx.Dropout" { operands: &[req("data"), opt("ratio"), opt("training_mode")], results: &[req("output"), opt("mask")], attrs: &[a("seed", Int)], infer: ew::dropout }

    /// Matrix product with numpy batching (1-D operands promoted and squeezed).
    MatMul = "onnx.MatMul" { operands: AB, infer: nn::matmul }
    /// `alpha * op(A) @ op(B) + beta * C` on 2-D operands; C broadcasts.
    Gemm = "onnx.Gemm" { operands: &[req("A"), req("B"), opt("C")], attrs: &[a("alpha", Float), a("beta", Float), a("transA", Int), a("transB", Int)], infer: nn::gemm }
    /// N-D convolution (NCHW..., weights `M x C/group x k...`).
    Conv = "onnx.Conv" { operands: &[req("X"), req("W"), opt("B")], attrs: CONV_ATTRS, infer: nn::conv }
    /// N-D transposed convolution (weights `C x M/group x k...`).
    ConvTranspose = "onnx.ConvTranspose" { operands: &[req("X"), req("W"), opt("B")], attrs: &[
        a("auto_pad", AUTO_PAD), a("dilations", Ints), a("group", Int), a("kernel_shape", Ints),
        a("output_padding", Ints), a("output_shape", Ints), a("pads", Ints), a("strides", Ints),
    ], infer: nn::conv_transpose }
    /// Max pooling over spatial axes; optional flat indices output.
    MaxPool = "onnx.MaxPool" { operands: X, results: &[req("Y"), opt("Indices")], attrs: &[
        a("auto_pad", AUTO_PAD), a("ceil_mode", Int), a("dilations", Ints), a_req("kernel_shape", Ints),
        a("pads", Ints), a("storage_order", Int), a("strides", Ints),
    ], infer: nn::pool }
    /// Average pooling over spatial axes.
    AveragePool = "onnx.AveragePool" { operands: X, attrs: &[
        a("auto_pad", AUTO_PAD), a("ceil_mode", Int), a("count_include_pad", Int), a("dilations", Ints),
        a_req("kernel_shape", Ints), a("pads", Ints), a("strides", Ints),
    ], infer: nn::avg_pool }
    /// Mean over all spatial axes, keeping them as size 1.
    GlobalAveragePool = "onnx.GlobalAveragePool" { operands: X, infer: nn::global_pool }
    /// Max over all spatial axes, keeping them as size 1.
    GlobalMaxPool = "onnx.GlobalMaxPool" { operands: X, infer: nn::global_pool }
    /// Inference-mode batch normalization over axis 1.
    BatchNormalization = "onnx.BatchNormalization" {
        operands: &[req("X"), req("scale"), req("B"), req("input_mean"), req("input_var")],
        results: &[req("Y"), opt("running_mean"), opt("running_var")],
        attrs: &[a("epsilon", Float), a("momentum", Float), a("training_mode", Int)], infer: nn::batch_norm }
    /// Normalization over axes `[axis, rank)` then scale and optional bias.
    LayerNormalization = "onnx.LayerNormalization" {
        operands: &[req("X"), req("Scale"), opt("B")], results: &[req("Y"), opt("Mean"), opt("InvStdDev")],
        attrs: &[a("axis", Int), a("epsilon", Float), a("stash_type", Int)], infer: nn::layer_norm }
    /// Softmax along `axis` (default -1).
    Softmax = "onnx.Softmax" { operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: nn::softmax }
    /// Log-softmax along `axis` (default -1).
    LogSoftmax = "onnx.LogSoftmax" { operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: nn::softmax }
    /// Resize spatial (or any) axes by `scales` or to `sizes`.
    Resize = "onnx.Resize" { operands: &[req("X"), opt("roi"), opt("scales"), opt("sizes")], attrs: &[
        a("antialias", Int), a("axes", Ints),
        a("coordinate_transformation_mode", Enum(&["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"])),
        a("cubic_coeff_a", Float), a("exclude_outside", Int), a("extrapolation_value", Float),
        a("keep_aspect_ratio_policy", Enum(&["stretch", "not_larger", "not_smaller"])),
        a("mode", Enum(&["nearest", "linear", "cubic"])),
        a("nearest_mode", Enum(&["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])),
    ], infer: nn::resize }

    /// Reshape to `shape` (0 copies the input dim unless `allowzero`, -1 is inferred).
    Reshape = "onnx.Reshape" { operands: &[req("data"), req("shape")], results: &[req("reshaped")], attrs: &[a("allowzero", Int)], infer: shape::reshape }
    /// Permute axes (default: reverse them).
    Transpose = "onnx.Transpose" { operands: &[req("data")], results: &[req("transposed")], attrs: &[a("perm", Ints)], infer: shape::transpose }
    /// Concatenate along `axis`.
    Concat = "onnx.Concat" { operands: &[var("inputs", 1)], results: &[req("concat_result")], attrs: &[a_req("axis", Int)], infer: shape::concat }
    /// Split along `axis` into parts given by `split` or `num_outputs` equal parts.
    Split = "onnx.Split" { operands: &[req("input"), opt("split")], results: &[var("outputs", 1)], attrs: &[a("axis", Int), a("num_outputs", Int)], infer: shape::split }
    /// Strided slice with per-axis starts/ends/axes/steps operands.
    Slice = "onnx.Slice" { operands: &[req("data"), req("starts"), req("ends"), opt("axes"), opt("steps")], results: &[req("output")], infer: shape::slice }
    /// Gather entries along `axis` by an index tensor.
    Gather = "onnx.Gather" { operands: &[req("data"), req("indices")], results: &[req("output")], attrs: &[a("axis", Int)], infer: shape::gather }
    /// Remove size-1 axes (all of them if `axes` is omitted).
    Squeeze = "onnx.Squeeze" { operands: &[req("data"), opt("axes")], results: &[req("squeezed")], infer: shape::squeeze }
    /// Insert size-1 axes at `axes` (positions in the output).
    Unsqueeze = "onnx.Unsqueeze" { operands: &[req("data"), req("axes")], results: &[req("expanded")], infer: shape::unsqueeze }
    /// Collapse to 2-D around `axis` (default 1).
    Flatten = "onnx.Flatten" { operands: &[req("input")], results: &[req("output")], attrs: &[a("axis", Int)], infer: shape::flatten }
    /// Broadcast to `shape` (bidirectionally, numpy rules).
    Expand = "onnx.Expand" { operands: &[req("input"), req("shape")], results: &[req("output")], infer: shape::expand }
    /// The input's shape as a 1-D i64 tensor, optionally sliced by `start`/`end`.
    Shape = "onnx.Shape" { operands: &[req("data")], results: &[req("shape")], attrs: &[a("end", Int), a("start", Int)], infer: shape::shape_of }
    /// Pad with `constant`, `reflect`, `edge` or `wrap` mode.
    Pad = "onnx.Pad" { operands: &[req("data"), req("pads"), opt("constant_value"), opt("axes")], results: &[req("output")], attrs: &[a("mode", Enum(&["constant", "reflect", "edge", "wrap"]))], infer: shape::pad }
    /// Repeat the input `repeats[i]` times along each axis.
    Tile = "onnx.Tile" { operands: &[req("input"), req("repeats")], results: &[req("output")], infer: shape::tile }
    /// A tensor of the given shape filled with the scalar constant `value` (default f32 zero).
    ConstantOfShape = "onnx.ConstantOfShape" { operands: &[req("input")], results: &[req("output")], attrs: &[a("value", Sym)], infer: shape::constant_of_shape }

    /// Mean over `axes` (all if omitted, unless `noop_with_empty_axes`).
    ReduceMean = "onnx.ReduceMean" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum over `axes`.
    ReduceSum = "onnx.ReduceSum" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Maximum over `axes`.
    ReduceMax = "onnx.ReduceMax" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Minimum over `axes`.
    ReduceMin = "onnx.ReduceMin" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Product over `axes`.
    ReduceProd = "onnx.ReduceProd" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum of absolute values over `axes`.
    ReduceL1 = "onnx.ReduceL1" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Euclidean norm over `axes`.
    ReduceL2 = "onnx.ReduceL2" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Sum of squares over `axes`.
    ReduceSumSquare = "onnx.ReduceSumSquare" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// `log(sum(exp(x)))` over `axes`.
    ReduceLogSumExp = "onnx.ReduceLogSumExp" { operands: REDUCE_OPERANDS, results: &[req("reduced")], attrs: REDUCE_ATTRS, infer: reduce::reduce }
    /// Index of the maximum along `axis`, as i64.
    ArgMax = "onnx.ArgMax" { operands: &[req("data")], results: &[req("reduced")], attrs: &[a("axis", Int), a("keepdims", Int), a("select_last_index", Int)], infer: reduce::arg_reduce }
    /// Index of the minimum along `axis`, as i64.
    ArgMin = "onnx.ArgMin" { operands: &[req("data")], results: &[req("reduced")], attrs: &[a("axis", Int), a("keepdims", Int), a("select_last_index", Int)], infer: reduce::arg_reduce }

    // @@ elementwise-additions @@ (new elementwise/quantization ops go above this line)

    // @@ nn-additions @@ (new nn ops go above this line)

    // @@ shape-additions @@ (new shape/index/reduction ops go above this line)
}
