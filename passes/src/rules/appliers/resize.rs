//! Appliers of the `resize` rule family (`passes/rules/resize.rules`):
//! `onnx.Resize` / `onnx.Upsample` with integer upsampling factors as
//!
//! 1. a nearest upsample: a depthwise `core.conv_transpose` with a ones kernel
//!    of size `s` and stride `s` per spatial axis (`group = C`), which replicates
//!    every input element `s` times along each axis, exactly;
//! 2. `onnx.Pad` with `mode = "edge"` (the reference's index clamping);
//! 3. a depthwise `core.conv` (`group = C`, stride 1, no padding) whose kernel is
//!    the outer product of one 1-D kernel per spatial axis (see [`kernel`]).
//!
//! Steps that would do nothing are left out (a pure nearest upsample is step 1
//! alone). Invariant: an applier only returns a form whose every output equals
//! the Resize's up to float rounding, borders included; [`kernel::solve`] checks
//! that on every output position of every axis, and declines otherwise.
//! Supported: rank 3–5 inputs (1-D to 3-D spatial), f32/f64, static spatial
//! sizes and channel count (the batch may be symbolic), constant `scales` or
//! `sizes`, scale 1 on the batch and channel axes.

mod force;
pub mod kernel;

pub use force::{lower_resize_target, RESIZE_PENALTY};

use super::ApplierDef;
use crate::egraph::analysis::EAnalysis;
use crate::rules::args::ArgVal;
use crate::rules::conds::CondDef;
use crate::rules::env::ApplyEnv;
use egg::Id;
use ir::interp::resample::resize::output_sizes;
use ir::{Attr, Attrs, ConstData, Constant, DType, Opcode, TensorType};
use kernel::{Ctm, Inexact, Interp, Kernel1d, Mode};

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "resize_to_conv",
        arity: 5..=5,
        signature: "X, roi, scales, sizes, attrs",
        doc: "onnx.Resize with integer upsampling factors on spatial axes as depthwise conv_transpose (nearest \
              upsample) + edge Pad + depthwise conv with the interpolation kernel; declines where no fixed kernel \
              is exact",
        apply: resize_to_conv,
    },
    ApplierDef {
        name: "upsample_to_conv",
        arity: 3..=3,
        signature: "X, scales, attrs",
        doc: "onnx.Upsample (opset 9: asymmetric, nearest rounds down) with integer factors as resize_to_conv",
        apply: upsample_to_conv,
    },
];

/// Bound on the elements of either weight constant (`C · prod(kernel)`), so a huge
/// factor (e.g. 1x1 -> 512x512) cannot create a giant constant.
pub const MAX_WEIGHTS: u64 = 1 << 22;

/// Conditions only this family uses (none: the rules use the shared ones).
pub static CONDS: &[CondDef] = &[];

/// The input of the Resize: element type, dims (`None` where symbolic), channels.
struct Input {
    dtype: DType,
    dims: Vec<Option<u64>>,
    channels: u64,
}

fn input(a: &ApplyEnv<'_>, x: Id) -> Result<Input, String> {
    let t = a.eg[x].data.ty().ok_or("the input has no type")?;
    let dims: Vec<Option<u64>> = t.dims().ok_or("the input has unknown rank")?.iter().map(|d| d.as_static()).collect();
    if !(3..=5).contains(&dims.len()) {
        return Err(format!("rank {}: the conv form handles 1-D to 3-D spatial inputs (rank 3 to 5)", dims.len()));
    }
    if !matches!(t.dtype, DType::F32 | DType::F64) {
        return Err(format!("element type {}: the conv form is built for f32/f64", t.dtype));
    }
    let channels = dims[1].ok_or("the channel count is not static")?;
    if let Some(a) = (2..dims.len()).find(|&a| dims[a].is_none()) {
        return Err(format!("spatial axis {a} has a symbolic size"));
    }
    Ok(Input { dtype: t.dtype, dims, channels })
}

/// The values of an optional operand: `None` if omitted or empty.
fn values(a: &ApplyEnv<'_>, arg: &ArgVal, what: &str) -> Result<Option<Constant>, String> {
    let c = a.class(arg)?;
    if a.absent(c) {
        return Ok(None);
    }
    let k = EAnalysis::const_of(a.eg, c).ok_or_else(|| format!("`{what}` is not a constant"))?;
    Ok((k.num_elements() > 0).then(|| (**k).clone()))
}

/// A float constant of type `dt` (f32 or f64).
fn float_const(dt: DType, dims: &[u64], vals: &[f64]) -> Constant {
    let bytes: Vec<u8> = match dt {
        DType::F64 => vals.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        _ => vals.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    };
    Constant { name: String::new(), ty: TensorType::fixed(dt, dims), data: ConstData::Bytes(bytes.into()) }
}

/// `@resize_to_conv(?x, ?roi, ?scales, ?sizes, ?a)`.
fn resize_to_conv(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let x = a.class(&args[0])?;
    let attrs = a.env().attrs(&args[4]).cloned().ok_or("Resize attributes are not bound")?;
    let it = Interp::resize(&attrs)?;
    if let Some(roi) = values(a, &args[1], "roi")? {
        let v = roi.to_f64s().ok_or("`roi` is not numeric")?;
        let (starts, ends) = v.split_at(v.len() / 2);
        if !(starts.iter().all(|&s| s == 0.0) && ends.iter().all(|&e| e == 1.0)) {
            return Err(
                "a non-trivial `roi` (only tf_crop_and_resize reads it, but it also un-skips identity axes)".into()
            );
        }
    }
    let scales = values(a, &args[2], "scales")?.map(|k| k.to_f64s().ok_or("`scales` is not numeric")).transpose()?;
    let sizes = values(a, &args[3], "sizes")?.map(|k| k.to_i64s().ok_or("`sizes` is not integer")).transpose()?;
    if scales.is_some() && sizes.is_some() {
        return Err("both `scales` and `sizes` are given (the Resize is invalid)".into());
    }
    let inp = input(a, x)?;
    let rank = inp.dims.len();
    let axes: Vec<usize> = match attrs.ints("axes") {
        None => (0..rank).collect(),
        Some(v) => v
            .iter()
            .map(|&x| usize::try_from(if x < 0 { x + rank as i64 } else { x }).ok().filter(|&x| x < rank))
            .collect::<Option<Vec<_>>>()
            .ok_or("attribute `axes` is out of range")?,
    };
    let policy = attrs.str("keep_aspect_ratio_policy").unwrap_or("stretch");
    let factors = factors(&inp, &axes, scales.as_deref(), sizes.as_deref(), policy, true)?;
    lower(a, x, &inp, &it, &factors)
}

/// `@upsample_to_conv(?x, ?scales, ?a)`.
fn upsample_to_conv(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let x = a.class(&args[0])?;
    let attrs = a.env().attrs(&args[2]).cloned().ok_or("Upsample attributes are not bound")?;
    let it = Interp::upsample(&attrs)?;
    let scales = values(a, &args[1], "scales")?.ok_or("`scales` is empty")?;
    let scales = scales.to_f64s().ok_or("`scales` is not numeric")?;
    let inp = input(a, x)?;
    let axes: Vec<usize> = (0..inp.dims.len()).collect();
    let factors = factors(&inp, &axes, Some(&scales), None, "stretch", false)?;
    lower(a, x, &inp, &it, &factors)
}

/// The integer upsampling factor of every axis (1 where the reference leaves
/// the axis alone), as the reference's `output_sizes` and identity test give
/// them (`close`: Resize's relative 1e-9 test; Upsample compares exactly).
fn factors(
    inp: &Input,
    axes: &[usize],
    scales: Option<&[f64]>,
    sizes: Option<&[i64]>,
    policy: &str,
    close: bool,
) -> Result<Vec<usize>, String> {
    let mut ins = Vec::with_capacity(axes.len());
    for (i, &ax) in axes.iter().enumerate() {
        // A symbolic batch is fine when its scale is exactly 1 (any size stays itself).
        match (inp.dims[ax], scales.and_then(|s| s.get(i))) {
            (Some(d), _) => ins.push(d),
            (None, Some(&s)) if s == 1.0 && sizes.is_none() => ins.push(1),
            (None, _) => return Err(format!("axis {ax} has a symbolic size")),
        }
    }
    let (outs, fs) = output_sizes(&ins, scales, sizes, policy)?;
    let mut out = vec![1; inp.dims.len()];
    for (i, &ax) in axes.iter().enumerate() {
        let f = fs[i];
        let one = if close { (f - 1.0).abs() <= 1e-9 * f.abs().max(1.0) } else { f == 1.0 };
        if one && outs[i] == ins[i] {
            continue;
        }
        if ax < 2 {
            return Err(format!("scale {f} on axis {ax}: only spatial axes (2 and up) become convolutions"));
        }
        if f < 1.0 {
            return Err(format!("downsampling (scale {f} on axis {ax})"));
        }
        if f.fract() != 0.0 || outs[i] != f as u64 * ins[i] {
            return Err(format!("non-integer scale {f} on axis {ax}"));
        }
        out[ax] = f as usize;
    }
    Ok(out)
}

/// Why axis `ax` (`n` inputs, factor `s`) has no conv form, for `--explain`.
fn explain(e: Inexact, it: &Interp, ax: usize, n: usize, s: usize) -> String {
    let sizes = format!("axis {ax}: {n} -> {}", n * s);
    match e {
        Inexact::RowSum { y, sum } if it.mode == Mode::Nearest => {
            format!("nearest with exclude_outside reads outside the input at output {y} ({sizes}; weight {sum})")
        }
        Inexact::RowSum { y, sum } => format!("the weights of output {y} sum to {sum}, not 1 ({sizes})"),
        Inexact::Conflict if it.ctm == Ctm::AlignCorners => {
            format!("align_corners is not shift-invariant for these sizes ({sizes})")
        }
        Inexact::Conflict if it.exclude_outside && it.mode == Mode::Cubic => {
            format!("cubic with exclude_outside renormalizes near the borders ({sizes}): no fixed kernel")
        }
        Inexact::Conflict => format!("no fixed kernel reproduces {:?}/{:?} ({sizes})", it.mode, it.ctm),
    }
}

/// The conv form of a Resize with per-axis `factors` (see the module docs).
fn lower(a: &mut ApplyEnv<'_>, x: Id, inp: &Input, it: &Interp, factors: &[usize]) -> Result<Id, String> {
    let ones = factors[2..].iter().fold(inp.channels, |p, &s| p.saturating_mul(s as u64));
    if ones > MAX_WEIGHTS {
        return Err(format!("the nearest upsample needs a {ones}-element kernel (limit {MAX_WEIGHTS})"));
    }
    let mut kernels = Vec::with_capacity(factors.len() - 2);
    for (ax, (&s, d)) in factors.iter().zip(&inp.dims).enumerate().skip(2) {
        let n = d.unwrap_or(0) as usize;
        kernels.push(if s == 1 {
            Kernel1d::identity()
        } else {
            kernel::solve(it, n, s).map_err(|e| explain(e, it, ax, n, s))?
        });
    }
    let taps = kernels.iter().fold(inp.channels, |p, k| p.saturating_mul(k.weights.len() as u64));
    if taps > MAX_WEIGHTS {
        return Err(format!("the conv form needs a {taps}-element kernel (limit {MAX_WEIGHTS})"));
    }
    let mut cur = upsample(a, x, inp, &factors[2..])?;
    cur = pad_and_crop(a, cur, inp, &factors[2..], &kernels)?;
    if kernels.iter().any(|k| !k.is_delta()) {
        cur = kernel_conv(a, cur, inp, &kernels)?;
    }
    Ok(cur)
}

/// The depthwise `core.conv` (stride 1, no padding) with the outer product of `kernels`.
fn kernel_conv(a: &mut ApplyEnv<'_>, x: Id, inp: &Input, kernels: &[Kernel1d]) -> Result<Id, String> {
    let c = inp.channels;
    let lens: Vec<u64> = kernels.iter().map(|k| k.weights.len() as u64).collect();
    let mut w = vec![1.0];
    for k in kernels {
        w = w.iter().flat_map(|&p| k.weights.iter().map(move |&q| p * q)).collect();
    }
    let all: Vec<f64> = (0..c).flat_map(|_| w.iter().copied()).collect();
    let mut dims = vec![c, 1];
    dims.extend(&lens);
    let w = a.add_const(float_const(inp.dtype, &dims, &all));
    let attrs = Attrs::new()
        .with("group", Attr::Int(c as i64))
        .with("kernel_shape", Attr::Ints(lens.iter().map(|&l| l as i64).collect()))
        .with("strides", Attr::Ints(vec![1; lens.len()]));
    a.add_op(Opcode::CoreConv, &[x, w], &attrs)
}

/// Nearest upsampling of `x` by the spatial factors `ss`: a depthwise
/// `core.conv_transpose` with a ones kernel of size and stride `s` (`x` itself if all are 1).
fn upsample(a: &mut ApplyEnv<'_>, x: Id, inp: &Input, ss: &[usize]) -> Result<Id, String> {
    if ss.iter().all(|&s| s == 1) {
        return Ok(x);
    }
    let c = inp.channels;
    let ss: Vec<i64> = ss.iter().map(|&s| s as i64).collect();
    let mut dims = vec![c, 1];
    dims.extend(ss.iter().map(|&s| s as u64));
    let ones = vec![1.0; dims.iter().product::<u64>() as usize];
    let w = a.add_const(float_const(inp.dtype, &dims, &ones));
    let attrs = Attrs::new()
        .with("group", Attr::Int(c as i64))
        .with("kernel_shape", Attr::Ints(ss.clone()))
        .with("strides", Attr::Ints(ss));
    a.add_op(Opcode::CoreConvTranspose, &[x, w], &attrs)
}

/// Edge padding for the kernels' taps, then a Slice dropping what kernels
/// whose taps all lie on one side (shifts) do not read.
fn pad_and_crop(a: &mut ApplyEnv<'_>, u: Id, inp: &Input, ss: &[usize], kernels: &[Kernel1d]) -> Result<Id, String> {
    let r = inp.dims.len();
    let mut cur = u;
    if kernels.iter().any(|k| k.pad_before() + k.pad_after() > 0) {
        let mut pads = vec![0i64; 2 * r];
        for (i, k) in kernels.iter().enumerate() {
            pads[2 + i] = k.pad_before();
            pads[r + 2 + i] = k.pad_after();
        }
        let p = a.add_const(Constant::from_i64s("", &[pads.len() as u64], &pads));
        cur = a.add_op(Opcode::Pad, &[cur, p], &Attrs::new().with("mode", Attr::Str("edge".into())))?;
    }
    if kernels.iter().any(|k| k.crop_start() + k.crop_end() > 0) {
        let mut starts = Vec::with_capacity(kernels.len());
        let mut ends = Vec::with_capacity(kernels.len());
        for (i, k) in kernels.iter().enumerate() {
            let len = (inp.dims[2 + i].unwrap_or(0) * ss[i] as u64) as i64 + k.pad_before() + k.pad_after();
            starts.push(k.crop_start());
            ends.push(len - k.crop_end());
        }
        let axes: Vec<i64> = (2..r as i64).collect();
        let n = kernels.len() as u64;
        let operands = [
            cur,
            a.add_const(Constant::from_i64s("", &[n], &starts)),
            a.add_const(Constant::from_i64s("", &[n], &ends)),
            a.add_const(Constant::from_i64s("", &[n], &axes)),
        ];
        cur = a.add_op(Opcode::Slice, &operands, &Attrs::new())?;
    }
    Ok(cur)
}

#[cfg(test)]
mod tests;
