//! Convolutions and fully connected layers: CONV_2D, DEPTHWISE_CONV_2D,
//! TRANSPOSE_CONV and FULLY_CONNECTED with int8 weights per output channel
//! in TFLite's layouts (OHWI, 1HWC, `[out, in]`) and int32 biases; ONNX
//! pads TFLite's SAME and VALID do not cover become an explicit PAD.

use super::{activation_of, finish_same_grid, fused, ints, same_grid_output, weight, Quant, TensorId, Weight, B, O};
use crate::emit::layout::{self, Padding};
use crate::emit::Emitter;
use crate::schema as tfl;
use ir::{DType, OpData, Opcode};

/// The padding of a 2-D window op over NCHW `x` giving NCHW `y`, with an
/// explicit PAD (of `pad_value`, or the zero point) written when TFLite's
/// SAME and VALID differ from the ONNX pads. Returns the tensor the window
/// reads and its padding.
fn window_input(
    e: &mut Emitter<'_>,
    op: &OpData,
    t: TensorId,
    xd: &[usize],
    yd: &[usize],
    kernel: &[usize],
    pad_value: Option<i16>,
) -> Result<(TensorId, tfl::Padding), String> {
    if op.attrs.str("auto_pad") == Some("SAME_LOWER") {
        return Err("`auto_pad` = SAME_LOWER has no TFLite form".into());
    }
    if op.attrs.int("ceil_mode").unwrap_or(0) != 0 {
        return Err("`ceil_mode` = 1 has no TFLite form".into());
    }
    let strides = ints(op, "strides", 2, 1)?;
    let dil = ints(op, "dilations", 2, 1)?;
    let pads = match op.attrs.str("auto_pad") {
        Some("VALID") => vec![0; 4],
        Some("SAME_UPPER") => layout::same_pads(&xd[2..], kernel, &strides, &dil),
        _ => ints(op, "pads", 4, 0)?,
    };
    match layout::padding(&xd[2..], kernel, &strides, &dil, &pads, &yd[2..]) {
        Padding::Same => Ok((t, tfl::Padding::Same)),
        Padding::Valid => Ok((t, tfl::Padding::Valid)),
        Padding::Explicit => {
            let shape = [xd[0], xd[2] + pads[0] + pads[2], xd[3] + pads[1] + pads[3], xd[1]];
            let q = e.g.quant(t);
            let padded = e.g.tensor(&format!("{}.pad", e.value_name(op.results[0])), &shape, e.g.dtype(t), q);
            let p = [0, 0, pads[0], pads[2], pads[1], pads[3], 0, 0].map(|x| x as i32);
            let paddings = e.g.ints(&format!("{}.paddings", e.value_name(op.results[0])), &[4, 2], &p);
            match pad_value {
                None => e.g.op(B::Pad, &[t, paddings], &[padded], Some(O::PadOptions(Box::default()))),
                Some(v) => {
                    let vt = e.g.constant(
                        &format!("{}.pad_value", e.value_name(op.results[0])),
                        &[],
                        e.g.dtype(t),
                        e.g.quant(t),
                        if e.g.dtype(t) == tfl::TensorType::Int16 {
                            v.to_le_bytes().to_vec()
                        } else {
                            vec![v as i8 as u8]
                        },
                    );
                    e.g.op(B::Padv2, &[t, paddings, vt], &[padded], Some(O::PadV2Options(Box::default())));
                }
            }
            Ok((padded, tfl::Padding::Valid))
        }
    }
}

/// `core.conv`: CONV_2D (group 1) or DEPTHWISE_CONV_2D (one input channel
/// per group), weights OHWI / 1HWC, a PAD where ONNX pads are not SAME.
pub(super) fn conv(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let (xd, yd) = (e.dims(x)?, e.dims(op.results[0])?);
    let w = weight(e, op.operand(1).ok_or("no weights")?)?;
    if xd.len() != 4 || w.dims.len() != 4 {
        return Err(format!("only 2-D convolutions are written (input {xd:?}, weights {:?})", w.dims));
    }
    check_weight(&w, 0)?;
    let group = op.attrs.int("group").unwrap_or(1) as usize;
    let (cout, cin) = (w.dims[0], xd[1]);
    let depthwise = group > 1 && group == cin && w.dims[1] == 1 && cout % cin == 0;
    if group != 1 && !depthwise {
        return Err(format!("a grouped convolution (group {group} of {cin} channels) has no TFLite form"));
    }
    let kernel = [w.dims[2], w.dims[3]];
    let (tin, padding) = window_input(e, op, tx, &xd, &yd, &kernel, None)?;
    let ty = e.output(op)?;
    let act = fused(e, activation_of(op)?, ty)?;
    let name = e.value_name(op.results[0]);
    let (perm, axis) = if depthwise { ([1, 2, 3, 0], 3) } else { ([0, 2, 3, 1], 0) };
    let tw = weight_tensor(e, &name, &w, &perm, axis);
    let tb = bias(e, op, &name, tx, &w, cout)?;
    let strides = ints(op, "strides", 2, 1)?;
    let dil = ints(op, "dilations", 2, 1)?;
    let options = if depthwise {
        O::DepthwiseConv2DOptions(Box::new(tfl::DepthwiseConv2DOptions {
            padding,
            stride_w: strides[1] as i32,
            stride_h: strides[0] as i32,
            depth_multiplier: (cout / cin) as i32,
            fused_activation_function: act,
            dilation_w_factor: dil[1] as i32,
            dilation_h_factor: dil[0] as i32,
        }))
    } else {
        O::Conv2DOptions(Box::new(tfl::Conv2DOptions {
            padding,
            stride_w: strides[1] as i32,
            stride_h: strides[0] as i32,
            fused_activation_function: act,
            dilation_w_factor: dil[1] as i32,
            dilation_h_factor: dil[0] as i32,
            quantized_bias_type: tfl::TensorType::Float32,
        }))
    };
    let code = if depthwise { B::DepthwiseConv2d } else { B::Conv2d };
    e.g.op(code, &[tin, tw, tb], &[ty], Some(options));
    Ok(())
}

/// `core.conv_transpose` (group 1, no dilation): TRANSPOSE_CONV with OHWI
/// weights, VALID when ONNX pads nothing, SAME when the output is the input
/// times the stride and ONNX pads as SAME would.
pub(super) fn conv_transpose(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let (xd, yd) = (e.dims(x)?, e.dims(op.results[0])?);
    let w = weight(e, op.operand(1).ok_or("no weights")?)?;
    if xd.len() != 4 || w.dims.len() != 4 {
        return Err("only 2-D transposed convolutions are written".into());
    }
    if op.attrs.int("group").unwrap_or(1) != 1 || ints(op, "dilations", 2, 1)? != [1, 1] {
        return Err("grouped or dilated transposed convolutions have no TFLite form".into());
    }
    if op.attrs.str("auto_pad").is_some_and(|a| a != "NOTSET") {
        return Err("`auto_pad` on a transposed convolution is not written yet".into());
    }
    check_weight(&w, 1)?;
    let (strides, pads) = (ints(op, "strides", 2, 1)?, ints(op, "pads", 4, 0)?);
    let kernel = [w.dims[2], w.dims[3]];
    let same = (0..2).all(|i| {
        let total = kernel[i].saturating_sub(strides[i]);
        yd[2 + i] == xd[2 + i] * strides[i] && pads[i] == total / 2 && pads[2 + i] == total - total / 2
    });
    let valid = pads.iter().all(|&p| p == 0) && (0..2).all(|i| yd[2 + i] == (xd[2 + i] - 1) * strides[i] + kernel[i]);
    let padding = match (valid, same) {
        (true, _) => tfl::Padding::Valid,
        (_, true) => tfl::Padding::Same,
        _ => return Err(format!("pads {pads:?} (output {yd:?}) are neither TFLite's SAME nor VALID")),
    };
    let ty = e.output(op)?;
    fused(e, activation_of(op)?, ty)
        .ok()
        .filter(|&a| a == tfl::ActivationFunctionType::None)
        .ok_or("TFLite's TRANSPOSE_CONV fuses no activation")?;
    let name = e.value_name(op.results[0]);
    let tw = weight_tensor(e, &name, &w, &[1, 2, 3, 0], 0);
    let tb = bias(e, op, &name, tx, &w, w.dims[1])?;
    let out: Vec<i32> = layout::stored(&yd).iter().map(|&d| d as i32).collect();
    let ts = e.g.ints(&format!("{name}.output_shape"), &[4], &out);
    let options = O::TransposeConvOptions(Box::new(tfl::TransposeConvOptions {
        padding,
        stride_w: strides[1] as i32,
        stride_h: strides[0] as i32,
        fused_activation_function: tfl::ActivationFunctionType::None,
        quantized_bias_type: tfl::TensorType::Float32,
    }));
    e.g.op(B::TransposeConv, &[ts, tw, tx, tb], &[ty], Some(options));
    Ok(())
}

/// The int8 weight tensor of `w` with its axes permuted by `perm` (result
/// axis `i` is weight axis `perm[i]`), per-channel along result axis `axis`.
fn weight_tensor(e: &mut Emitter<'_>, name: &str, w: &Weight, perm: &[usize], axis: i32) -> TensorId {
    let data = layout::permute(&w.data, 1, &w.dims, perm);
    let shape: Vec<usize> = perm.iter().map(|&p| w.dims[p]).collect();
    let wq = Quant { scale: w.scale.clone(), zero_point: w.zero_point.clone(), axis };
    e.g.constant(&format!("{name}.weights"), &shape, tfl::TensorType::Int8, Some(wq), data)
}

/// Weights must be int8 with zero point 0, per tensor or per output channel
/// (`axis`).
fn check_weight(w: &Weight, axis: usize) -> Result<(), String> {
    if w.dtype != DType::I8 {
        return Err(format!("{} weights: TFLite int8 operators take int8 weights", w.dtype));
    }
    if w.zero_point.iter().any(|&z| z != 0) {
        return Err("weights with a nonzero zero point: TFLite's int8 weights are symmetric".into());
    }
    if w.scale.len() > 1 && w.axis != axis {
        return Err(format!("weights quantized along axis {} (TFLite needs the output channel, axis {axis})", w.axis));
    }
    Ok(())
}

/// The int32 bias (int64 on an int16 input) of a conv or linear op on input `tx` with weights `w`:
/// the op's dequantized i32 constant, or zeros; its scales are
/// `input scale × weight scale` per channel, as TFLite requires.
fn bias(e: &mut Emitter<'_>, op: &OpData, name: &str, tx: TensorId, w: &Weight, n: usize) -> Result<TensorId, String> {
    let sx = e.g.quant(tx).map_or(1.0, |q| q.scale[0]);
    let scales: Vec<f32> = (0..n).map(|c| sx * w.scale[if w.scale.len() > 1 { c } else { 0 }]).collect();
    let data = match op.operand(2) {
        Some(b) => {
            let bw = weight(e, b)?;
            if bw.dtype != DType::I32 || bw.data.len() != 4 * n {
                return Err(format!("bias {}: expected {n} i32 values", e.value_name(b)));
            }
            // An 8-bit input read through its 16-bit copy (`widths`) has a
            // scale 128 times finer: the bias is the same real on that grid.
            let k: &[f32] = if e.g.dtype(tx) == tfl::TensorType::Int16 { &[1.0, 128.0] } else { &[1.0] };
            let mut times = None;
            for (c, (&have, &want)) in bw.scale.iter().cycle().zip(&scales).enumerate().take(n) {
                let same = k.iter().find(|&&k| ((have - want * k) / (want * k)).abs() <= 1e-5).map(|&k| k as i64);
                if same.is_none() || times.is_some_and(|t| Some(t) != same) {
                    return Err(format!("bias scale {have} of channel {c} is not input × weight scale {want}"));
                }
                times = same;
            }
            let times = times.unwrap_or(1);
            bw.data.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64 * times).collect()
        }
        None => vec![0; n],
    };
    let q = Quant { scale: scales, zero_point: vec![0; n], axis: 0 };
    bias_tensor(e, &format!("{name}.bias"), tx, q, &data)
}

/// A bias of `values` for an op reading `tx`: int32, or int64 when `tx` is
/// int16, as TFLite's 16x8 kernels take; an int32 bias out of range is an
/// error.
pub(super) fn bias_tensor(
    e: &mut Emitter<'_>,
    name: &str,
    tx: TensorId,
    q: Quant,
    values: &[i64],
) -> Result<TensorId, String> {
    let n = values.len();
    if e.g.dtype(tx) == tfl::TensorType::Int16 {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        return Ok(e.g.constant(name, &[n], tfl::TensorType::Int64, Some(q), data));
    }
    let narrow: Option<Vec<i32>> = values.iter().map(|&v| i32::try_from(v).ok()).collect();
    let data =
        narrow.ok_or_else(|| format!("{name}: a bias outside int32"))?.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(e.g.constant(name, &[n], tfl::TensorType::Int32, Some(q), data))
}

/// `core.linear`: FULLY_CONNECTED with `[out, in]` weights. An input of
/// rank 3 (or above 4: any rank whose default layout is the value's own
/// order) is read as its `[rows, K]` flattening, which FULLY_CONNECTED
/// takes as it is, and the `[rows, N]` result is reshaped to the op's.
pub(super) fn linear(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let a = op.operand(0).ok_or("no input")?;
    let ta = e.activation(a)?;
    let ad = e.dims(a)?;
    let w = weight(e, op.operand(1).ok_or("no weights")?)?;
    if ad.len() < 2 || ad.len() == 4 || w.dims.len() != 2 {
        return Err(format!(
            "only [.., M, K] × [K, N] products with A of a rank other than 4 are written (A {ad:?}, B {:?})",
            w.dims
        ));
    }
    if op.opcode == Opcode::Gemm {
        let one = |k: &str| op.attrs.float(k).is_none_or(|v| v == 1.0);
        if op.attrs.int("transA").unwrap_or(0) != 0 || !one("alpha") || !one("beta") {
            return Err("Gemm with transA, alpha or beta is not written yet".into());
        }
    }
    let trans = op.attrs.int("trans_b").or(op.attrs.int("transB")).unwrap_or(0) != 0;
    check_weight(&w, if trans { 0 } else { 1 })?;
    // FULLY_CONNECTED takes [out, in]: B itself when transposed, else Bᵀ.
    let perm = if trans { [0, 1] } else { [1, 0] };
    let ty = e.output(op)?;
    let act = fused(e, activation_of(op)?, ty)?;
    let name = e.value_name(op.results[0]);
    let tw = weight_tensor(e, &name, &w, &perm, 0);
    let tb = bias(e, op, &name, ta, &w, w.dims[perm[0]])?;
    let options = O::FullyConnectedOptions(Box::new(tfl::FullyConnectedOptions {
        fused_activation_function: act,
        ..Default::default()
    }));
    if ad.len() == 2 {
        e.g.op(B::FullyConnected, &[ta, tw, tb], &[ty], Some(options));
        return Ok(());
    }
    let yd = e.g.shape(ty);
    let rows = ad[..ad.len() - 1].iter().product::<usize>();
    let flat = e.g.tensor(&format!("{name}.rows"), &[rows, w.dims[perm[0]]], e.g.dtype(ty), e.g.quant(ty));
    e.g.op(B::FullyConnected, &[ta, tw, tb], &[flat], Some(options));
    super::movement::reshape_into(e, flat, ty, &yd, &name);
    Ok(())
}

/// MaxPool / AveragePool: MAX_POOL_2D / AVERAGE_POOL_2D (on the input's grid).
pub(super) fn pool(e: &mut Emitter<'_>, op: &OpData, code: tfl::BuiltinOperator) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let (xd, yd) = (e.dims(x)?, e.dims(op.results[0])?);
    if xd.len() != 4 {
        return Err("only 2-D pooling is written".into());
    }
    if ints(op, "dilations", 2, 1)? != [1, 1] {
        return Err("dilated pooling has no TFLite form".into());
    }
    let kernel = ints(op, "kernel_shape", 2, 1)?;
    // A max pool's explicit padding is the type's lowest value (never wins).
    let lowest = if e.g.dtype(tx) == tfl::TensorType::Int16 { i16::MIN } else { i8::MIN as i16 };
    let pad_value = (code == B::MaxPool2d).then_some(lowest);
    let (tin, padding) = window_input(e, op, tx, &xd, &yd, &kernel, pad_value)?;
    if code == B::AveragePool2d && tin != tx {
        return Err("average pooling over pads that are not TFLite's SAME".into());
    }
    if code == B::AveragePool2d && padding == tfl::Padding::Same && op.attrs.int("count_include_pad").unwrap_or(0) != 0
    {
        return Err("`count_include_pad` = 1: TFLite's SAME averages exclude the pads".into());
    }
    let (tmp, ty) = same_grid_output(e, op, tx)?;
    let strides = ints(op, "strides", 2, 1)?;
    let options = O::Pool2DOptions(Box::new(tfl::Pool2DOptions {
        padding,
        stride_w: strides[1] as i32,
        stride_h: strides[0] as i32,
        filter_width: kernel[1] as i32,
        filter_height: kernel[0] as i32,
        fused_activation_function: tfl::ActivationFunctionType::None,
    }));
    e.g.op(code, &[tin], &[tmp], Some(options));
    finish_same_grid(e, tmp, ty);
    Ok(())
}
