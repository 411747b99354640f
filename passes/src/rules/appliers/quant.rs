//! Appliers of the `quant` rule family (`passes/rules/quant.rules`): a conv
//! between QDQ pairs, `Q(act(conv(DQ(x), DQ(w), DQ(b))))`, becomes the integer
//! `quant.conv` with a fixed-point requantize epilogue.
//!
//! Invariant: the applier only folds what the integer op computes up to the
//! requantize rounding: the input and output are per-tensor 8-bit with one
//! type, the weights symmetric i8 (per tensor or per output channel), the bias
//! i32 at scale `s_x·s_w[m]` (the grid the sum is accumulated on). Relu and
//! clip become the clamp range of the fixed-point epilogue (exact, since
//! rounding is monotonic); any other activation takes the float-activation
//! epilogue (`acc_scale = s_x·s_w[m]`, `y_scale = s_y`: QDQ's own arithmetic
//! on the exact integer sum). Anything else declines with the reason.
//!
//! A target that computes TFLite's arithmetic (`arithmetic = "tflite"` in
//! its profile) gets its fixed-point epilogues and MULs with LiteRT's
//! rounding, and its LeakyRelu and PRelu tables computed by LiteRT's integer
//! kernels rather than the QDQ ops (the `-tflite` rules, approximations of
//! the QDQ form): the integer module then computes what LiteRT does.

use super::ApplierDef;
use crate::egraph::analysis::EAnalysis;
use crate::rules::args::ArgVal;
use crate::rules::env::ApplyEnv;
use edgec_numeric::act::Activation;
use edgec_numeric::fixed::{Arithmetic, Rounding};
use edgec_numeric::quant::quantize_multiplier;
use egg::Id;
use ir::{Attr, Attrs, ConstData, Constant, DType, Opcode, TensorType};

mod tables;

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "quant_add",
        arity: 8..=8,
        signature: "a, sa, za, b, sb, zb, sy, zy",
        doc: "Q(Add(DQ(a), DQ(b))) as quant.add (one 8-bit type, per-tensor grids, one operand equal to the other's \
          shape or broadcast along its leading and trailing dims): the same f32 steps, fused",
        apply: quant_add,
    },
    ApplierDef {
        name: "quant_add_relu",
        arity: 8..=8,
        signature: "a, sa, za, b, sb, zb, sy, zy",
        doc: "Q(Relu(Add(DQ(a), DQ(b)))) as quant.add with qmin = zy (like quant_add; relu(s) rounds to zy exactly \
          when s ≤ 0)",
        apply: quant_add_relu,
    },
    ApplierDef {
        name: "quant_sub",
        arity: 8..=8,
        signature: "a, sa, za, b, sb, zb, sy, zy",
        doc: "Q(Sub(DQ(a), DQ(b))) as quant.sub (like quant_add; only b may broadcast)",
        apply: quant_sub,
    },
    ApplierDef {
        name: "quant_mul",
        arity: 8..=8,
        signature: "a, sa, za, b, sb, zb, sy, zy",
        doc: "Q(Mul(DQ(a), DQ(b))) as quant.mul (like quant_add)",
        apply: quant_mul,
    },
    ApplierDef {
        name: "quant_mul_tflite",
        arity: 8..=8,
        signature: "a, sa, za, b, sb, zb, sy, zy",
        doc: "Q(Mul(DQ(a), DQ(b))) as quant.mul with rounding = gemmlowp: TFLite's MUL, the integer product scaled \
          by the fixed-point multiplier sa·sb/sy (like quant_add otherwise)",
        apply: quant_mul_tflite,
    },
    ApplierDef {
        name: "quant_lut",
        arity: 7..=7,
        signature: "x, sx, zx, sy, zy, Op, op_attrs",
        doc:
            "Q(op(DQ(x))) for an elementwise unary onnx.Op (or core.Op) as quant.lut(x, table): the QDQ ops folded on \
          all 256 values of x's type (exact)",
        apply: quant_lut,
    },
    ApplierDef {
        name: "quant_lut_tflite",
        arity: 7..=7,
        signature: "x, sx, zx, sy, zy, Op, op_attrs",
        doc: "Q(op(DQ(x))) as quant.lut(x, table) holding LiteRT's integer kernel of op on all 256 values of x's \
          type (LeakyRelu: two fixed-point multipliers, gemmlowp's rounding)",
        apply: tables::quant_lut_tflite,
    },
    ApplierDef {
        name: "quant_lut_prelu",
        arity: 8..=9,
        signature: "x, sx, zx, k, sk, zk, sy, zy, [tflite]",
        doc: "Q(PRelu(DQ(x), DQ(k))) for a constant k with one slope or one per channel (x's axis 1) as \
          quant.lut(x, table) with a row per channel: the QDQ ops on all 256 values (exact), or with `tflite` \
          LiteRT's integer PRELU (the TFLite writer's form for slopes outside [0, 1])",
        apply: tables::quant_lut_prelu,
    },
    ApplierDef {
        name: "quant_global_avg_pool",
        arity: 5..=5,
        signature: "x, sx, zx, sy, zy",
        doc: "Q(GlobalAveragePool(DQ(x))) as quant.global_avg_pool: exact i32 plane sums, one f32 rescale (static \
          planes up to 2^23 elements)",
        apply: quant_global_avg_pool,
    },
    ApplierDef {
        name: "quant_conv",
        arity: 10..=13,
        signature: "x, sx, zx, w, sw, zw, w_attrs, [b, sb, zb,] conv_attrs, sy, zy",
        doc: "Q(act(core.conv(DQ(x), DQ(w), DQ(b)))) as quant.conv: i32 accumulation, multiplier sx·sw[m]/sy in Q31 \
          fixed point with relu/clip as the clamp range, other activations in the float epilogue; b may be absent",
        apply: quant_conv,
    },
];

/// Conditions only this family uses.
pub static CONDS: &[super::CondDef] = &[];

/// The constant of an argument's class.
fn konst<'e>(a: &'e ApplyEnv<'_>, arg: &ArgVal, what: &str) -> Result<&'e Constant, String> {
    EAnalysis::const_of(a.eg, a.class(arg)?).map(|c| &**c).ok_or_else(|| format!("{what} is not a constant"))
}

/// The f32 values of a scale constant.
fn scales(c: &Constant, what: &str) -> Result<Vec<f64>, String> {
    match c.ty.dtype {
        DType::F32 => c.to_f64s().ok_or_else(|| format!("{what} has no values")),
        other => Err(format!("{what} has element type {other}, expected f32")),
    }
}

/// A single integer zero point.
fn zero_point(c: &Constant, what: &str) -> Result<i64, String> {
    match c.to_f64s().as_deref() {
        Some([z]) => Ok(*z as i64),
        _ => Err(format!("{what} is not a single value")),
    }
}

fn i32_const(vals: &[i32]) -> Constant {
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    Constant {
        name: String::new(),
        ty: TensorType::fixed(DType::I32, &[vals.len() as u64]),
        data: ConstData::Bytes(bytes.into()),
    }
}

/// The clamp range `[lo, hi]` of the result: the type's range narrowed by the
/// activation (relu: ≥ zy; clip: the quantized bounds; others: the type's).
fn clamp_range(act: Activation, dt: DType, sy: f64, zy: i64) -> (i64, i64) {
    let (lo, hi) = if dt == DType::U8 { (0, 255) } else { (-128, 127) };
    let q = |v: f32| -> i64 {
        let r = (f64::from(v) / sy).round_ties_even() + zy as f64;
        r.clamp(lo as f64, hi as f64) as i64
    };
    match act {
        Activation::Relu => (zy.max(lo), hi),
        Activation::Clip { min, max } => {
            (if min.is_finite() { q(min) } else { lo }, if max.is_finite() { q(max) } else { hi })
        }
        _ => (lo, hi),
    }
}

fn quant_conv(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let x = a.class(&args[0])?;
    let xt = a.eg[x].data.ty().cloned().ok_or("x has no type")?;
    if !matches!(xt.dtype, DType::U8 | DType::I8) {
        return Err(format!("x has element type {}, expected u8 or i8", xt.dtype));
    }
    // Grids are f32 constants; the multipliers are computed from them in f64 (exact widening).
    let (sx, zx) = grid(a, &args[1], &args[2], xt.dtype, "x").map(|(s, z)| (f64::from(s), z))?;
    let w = konst(a, &args[3], "the weights")?.clone();
    if w.ty.dtype != DType::I8 {
        return Err(format!("weights of element type {}, expected i8", w.ty.dtype));
    }
    let m = w.ty.shape.static_dims().and_then(|d| d.first().copied()).ok_or("weights of unknown shape")? as usize;
    let sw = scales(konst(a, &args[4], "weight scale")?, "weight scale")?;
    let zw = konst(a, &args[5], "weight zero point")?.to_f64s().unwrap_or_default();
    if zw.iter().any(|&z| z != 0.0) {
        return Err("weights are not symmetric (non-zero zero point)".into());
    }
    let wq_attrs = a.env().attrs(&args[6]).cloned().unwrap_or_default();
    let per_channel = match sw.len() {
        1 => false,
        n if n == m && wq_attrs.int("axis").unwrap_or(1) == 0 => true,
        n => return Err(format!("{n} weight scales for {m} output channels along axis {:?}", wq_attrs.int("axis"))),
    };
    let s_w = |c: usize| if per_channel { sw[c] } else { sw[0] };
    // Without a bias the call has 10 arguments: the last three are shared.
    let (bias_args, rest) = args[7..].split_at(args.len() - 10);
    let bias = match bias_args {
        [b, sb, zb] => bias(a, b, sb, zb, m, |c| (sx * s_w(c)) as f32)?,
        _ => a.none(),
    };
    let conv_attrs = a.env().attrs(&rest[0]).cloned().ok_or("conv attributes are not bound")?;
    let act = Activation::from_attrs(&conv_attrs)?;
    let (sy, zy) = grid(a, &rest[1], &rest[2], xt.dtype, "y").map(|(s, z)| (f64::from(s), z))?;
    let (qmin, qmax) = clamp_range(act, xt.dtype, sy, zy);
    let mut attrs = Attrs::new();
    for k in ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"] {
        if let Some(v) = conv_attrs.get(k) {
            attrs.set(k, v.clone());
        }
    }
    for (k, v) in [("x_zero_point", zx), ("y_zero_point", zy), ("qmin", qmin), ("qmax", qmax)] {
        attrs.set(k, Attr::Int(v));
    }
    let wc = a.add_const(w);
    if !matches!(act, Activation::None | Activation::Relu | Activation::Clip { .. }) {
        act.to_attrs(&mut attrs);
        attrs.set("y_scale", Attr::Float(sy as f32));
        let acc: Vec<f32> = (0..m).map(|c| (sx * s_w(c)) as f32).collect();
        let bytes: Vec<u8> = acc.iter().flat_map(|v| v.to_le_bytes()).collect();
        let ty = TensorType::fixed(DType::F32, &[m as u64]);
        let sc = a.add_const(Constant { name: String::new(), ty, data: ConstData::Bytes(bytes.into()) });
        let none = a.none();
        return a.add_op(Opcode::QuantConv, &[x, wc, bias, none, none, sc], &attrs);
    }
    let mut mult = Vec::with_capacity(m);
    let mut shift = Vec::with_capacity(m);
    for c in 0..m {
        let r = sx * s_w(c) / sy;
        let (mm, s) = quantize_multiplier(r).ok_or_else(|| format!("multiplier {r} of channel {c} out of range"))?;
        mult.push(mm);
        shift.push(s);
    }
    let rounding = a.env().arithmetic().conv();
    if rounding != Rounding::Single {
        attrs.set("rounding", Attr::Str(rounding.name().into()));
    }
    let (mc, sc) = (a.add_const(i32_const(&mult)), a.add_const(i32_const(&shift)));
    a.add_op(Opcode::QuantConv, &[x, wc, bias, mc, sc], &attrs)
}

/// The i32 bias class (or the absent leaf): it must be dequantized with zero
/// point 0 and, per channel, exactly the accumulator's scale `sx·sw[c]`.
fn bias(
    a: &mut ApplyEnv<'_>,
    b: &ArgVal,
    sb: &ArgVal,
    zb: &ArgVal,
    m: usize,
    acc_scale: impl Fn(usize) -> f32,
) -> Result<Id, String> {
    let bc = a.class(b)?;
    let bk = konst(a, b, "the bias")?;
    if bk.ty.dtype != DType::I32 || bk.ty.shape.static_dims() != Some(vec![m as u64]) {
        return Err(format!("bias {} is not i32 [{m}]", bk.ty));
    }
    let s = scales(konst(a, sb, "bias scale")?, "bias scale")?;
    if konst(a, zb, "bias zero point")?.to_f64s().unwrap_or_default().iter().any(|&z| z != 0.0) {
        return Err("the bias has a non-zero zero point".into());
    }
    let ok = (0..m).all(|c| s.get(if s.len() == 1 { 0 } else { c }).is_some_and(|&v| v as f32 == acc_scale(c)));
    if !ok || (s.len() != 1 && s.len() != m) {
        return Err("the bias scale is not x_scale·w_scale per channel".into());
    }
    Ok(bc)
}

/// A per-tensor f32 scale and integer zero point of the type `dt`.
fn grid(a: &ApplyEnv<'_>, s: &ArgVal, z: &ArgVal, dt: DType, what: &str) -> Result<(f32, i64), String> {
    let sv = match scales(konst(a, s, what)?, what)?.as_slice() {
        [v] => *v as f32,
        _ => return Err(format!("{what} is not quantized per tensor")),
    };
    let zc = konst(a, z, what)?;
    if zc.ty.dtype != dt {
        return Err(format!("{what} has zero point type {}, expected {dt}", zc.ty.dtype));
    }
    Ok((sv, zero_point(zc, what)?))
}

/// The `{k}_scale` / `{k}_zero_point` attributes of the byte ops.
fn grid_attrs(grids: &[(&str, (f32, i64))]) -> Attrs {
    let mut attrs = Attrs::new();
    for &(k, (s, z)) in grids {
        attrs.set(format!("{k}_scale"), Attr::Float(s));
        attrs.set(format!("{k}_zero_point"), Attr::Int(z));
    }
    attrs
}

fn quant_add(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    quant_binary(a, args, Opcode::QuantAdd, false, Rounding::Single)
}

fn quant_add_relu(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    quant_binary(a, args, Opcode::QuantAdd, true, Rounding::Single)
}

fn quant_sub(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    quant_binary(a, args, Opcode::QuantSub, false, Rounding::Single)
}

fn quant_mul(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    quant_binary(a, args, Opcode::QuantMul, false, Rounding::Single)
}

/// Static dims of a class's type as `usize`.
fn static_dims(t: &TensorType) -> Option<Vec<usize>> {
    t.shape.static_dims().map(|d| d.into_iter().map(|v| v as usize).collect())
}

/// `Q(op(DQ(a), DQ(b)))` as `quant.add` / `quant.sub` / `quant.mul`: for
/// add and mul the operand that broadcasts becomes B (both commute exactly
/// in f32); a sub keeps its order, so only B may broadcast. `relu`: the
/// result clamped below at its zero point (`qmin`).
fn quant_mul_tflite(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    quant_binary(a, args, Opcode::QuantMul, false, Arithmetic::Tflite.elementwise())
}

fn quant_binary(
    a: &mut ApplyEnv<'_>,
    args: &[ArgVal],
    op: Opcode,
    relu: bool,
    rounding: Rounding,
) -> Result<Id, String> {
    let (x, y) = (a.class(&args[0])?, a.class(&args[3])?);
    let (xt, yt) = (a.eg[x].data.ty().cloned(), a.eg[y].data.ty().cloned());
    let (Some(xt), Some(yt)) = (xt, yt) else { return Err("operands without types".into()) };
    if !matches!(xt.dtype, DType::U8 | DType::I8) || xt.dtype != yt.dtype {
        return Err(format!("operands {} and {} are not one 8-bit type", xt.dtype, yt.dtype));
    }
    let block = |p: &TensorType, q: &TensorType| {
        static_dims(p).zip(static_dims(q)).and_then(|(p, q)| edgec_numeric::quant::broadcast_block(&p, &q))
    };
    // Operand index of A (the full-shape one) in args: 0 or 3.
    let first = if xt.shape == yt.shape || block(&xt, &yt).is_some() {
        0
    } else if block(&yt, &xt).is_some() && op != Opcode::QuantSub {
        3
    } else {
        return Err(format!("operands {xt} and {yt}: neither broadcasts along the other's leading and trailing dims"));
    };
    let second = 3 - first;
    let (sa, za) = grid(a, &args[first + 1], &args[first + 2], xt.dtype, "A")?;
    let (sb, zb) = grid(a, &args[second + 1], &args[second + 2], xt.dtype, "B")?;
    let (sy, zy) = grid(a, &args[6], &args[7], xt.dtype, "the result")?;
    let mut attrs = grid_attrs(&[("a", (sa, za)), ("b", (sb, zb)), ("y", (sy, zy))]);
    if relu {
        attrs.set("qmin".to_string(), Attr::Int(zy));
    }
    if rounding != Rounding::Single {
        attrs.set("rounding".to_string(), Attr::Str(rounding.name().into()));
    }
    let (ca, cb) = if first == 0 { (x, y) } else { (y, x) };
    a.add_op(op, &[ca, cb], &attrs)
}

/// Planes above this many elements are not pooled in i32 (the sum of 8-bit
/// values could overflow it).
const MAX_POOL_PLANE: usize = 1 << 23;

fn quant_global_avg_pool(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let x = a.class(&args[0])?;
    let xt = a.eg[x].data.ty().cloned().ok_or("x has no type")?;
    if !matches!(xt.dtype, DType::U8 | DType::I8) {
        return Err(format!("x has element type {}, expected u8 or i8", xt.dtype));
    }
    match static_dims(&xt) {
        Some(d) if d.len() >= 3 && d[2..].iter().product::<usize>() <= MAX_POOL_PLANE => {}
        Some(d) if d.len() >= 3 => return Err(format!("planes of {xt} exceed {MAX_POOL_PLANE} elements")),
        _ => return Err(format!("x {xt} is not of static rank ≥ 3")),
    }
    let (sx, zx) = grid(a, &args[1], &args[2], xt.dtype, "x")?;
    let (sy, zy) = grid(a, &args[3], &args[4], xt.dtype, "y")?;
    a.add_op(Opcode::QuantGlobalAvgPool, &[x], &grid_attrs(&[("x", (sx, zx)), ("y", (sy, zy))]))
}

/// `Q(op(DQ(x)))` as `quant.lut(x, table)`: the table is the same three ops
/// run by the reference interpreter on a constant holding every value of x's
/// type, so each entry is the QDQ result bit for bit.
fn quant_lut(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    use super::recognition::eval1;
    use crate::egraph::analysis::tensor_to_const;
    use ir::interp::Tensor;
    let x = a.class(&args[0])?;
    let xt = a.eg[x].data.ty().cloned().ok_or("x has no type")?;
    let values: Vec<u8> = match xt.dtype {
        DType::U8 => (0..=255u8).collect(),
        DType::I8 => (-128..=127i8).map(|v| v as u8).collect(),
        other => return Err(format!("x has element type {other}, expected u8 or i8")),
    };
    grid(a, &args[1], &args[2], xt.dtype, "x")?;
    let yt = konst(a, &args[4], "y zero point")?.ty.dtype;
    if !matches!(yt, DType::U8 | DType::I8) {
        return Err(format!("y has element type {yt}, expected u8 or i8"));
    }
    grid(a, &args[3], &args[4], yt, "y")?;
    let op = super::op_word(&args[5])?;
    let op_attrs = a.env().attrs(&args[6]).cloned().unwrap_or_default();
    let all = Constant {
        name: String::new(),
        ty: TensorType::fixed(xt.dtype, &[256]),
        data: ConstData::Bytes(values.into()),
    };
    let tensor = |arg: &ArgVal, what: &str| Tensor::from_constant(konst(a, arg, what)?);
    let (sx, zx, sy, zy) =
        (tensor(&args[1], "x")?, tensor(&args[2], "x")?, tensor(&args[3], "y")?, tensor(&args[4], "y")?);
    let dq = eval1(Opcode::DequantizeLinear, vec![Tensor::from_constant(&all)?, sx, zx], Attrs::new())?;
    let f = eval1(op, vec![dq], op_attrs)?;
    let q = eval1(Opcode::QuantizeLinear, vec![f, sy, zy], Attrs::new())?;
    let table = tensor_to_const(&q).ok_or("the table cannot be stored")?;
    let t = a.add_const(table);
    a.add_op(Opcode::QuantLut, &[x, t], &Attrs::new())
}
