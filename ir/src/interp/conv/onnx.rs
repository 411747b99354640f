//! Conv, ConvTranspose and Col2Im.

use super::window::{self, Geom};
use crate::interp::tensor::real::{float_kernel, next_index, numel, reals, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};

/// Input position of kernel tap `k` for output position `o` on axis `i`, if inside the input.
fn tap(g: &Geom, i: usize, o: usize, k: usize) -> Option<usize> {
    let p = (o * g.strides[i] + k * g.dilations[i]) as i64 - g.begin[i];
    (p >= 0 && (p as usize) < g.input[i]).then_some(p as usize)
}

/// Row-major flat offset of a spatial multi-index.
fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Check the conv operands: same float type, rank ≥ 3, channel counts and bias.
fn check_operands(x: &Tensor, w: &Tensor, b: Option<&Tensor>, group: usize, transposed: bool) -> Result<(), String> {
    if w.dtype() != x.dtype() || b.is_some_and(|b| b.dtype() != x.dtype()) {
        return Err("X, W and B must have the same element type".into());
    }
    if x.rank() < 3 || w.rank() != x.rank() {
        return Err(format!("X {:?} and W {:?} must have the same rank ≥ 3", x.shape, w.shape));
    }
    let (c, m) = if transposed { (w.shape[0], w.shape[1] * group) } else { (w.shape[1] * group, w.shape[0]) };
    if x.shape[1] != c || (transposed && c % group != 0) || (!transposed && m % group != 0) {
        return Err(format!("X {:?} and W {:?} do not agree for group {group}", x.shape, w.shape));
    }
    if let Some(b) = b {
        if b.shape != [m] {
            return Err(format!("B {:?} must have shape [{m}]", b.shape));
        }
    }
    Ok(())
}

fn group_of(ctx: &EvalCtx<'_>) -> Result<usize, String> {
    match ctx.int("group", 1) {
        g if g >= 1 => Ok(g as usize),
        g => Err(format!("attribute `group` = {g} must be ≥ 1")),
    }
}

/// `onnx.Conv`: N-D grouped convolution with strides, dilations, pads/auto_pad and bias.
pub fn conv(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, w, b) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2));
    let group = group_of(ctx)?;
    check_operands(x, w, b, group, false)?;
    let g = window::forward(ctx, &x.shape[2..], Some(&w.shape[2..]))?;
    Ok(vec![float_kernel!(x.dtype(), conv_t(x, w, b, group, &g))?])
}

fn conv_t<T: Real>(x: &Tensor, w: &Tensor, b: Option<&Tensor>, group: usize, g: &Geom) -> Result<Tensor, String> {
    let (xv, wv, bv) = (reals::<T>(x), reals::<T>(w), b.map(reals::<T>));
    let (n, m, cg) = (x.shape[0], w.shape[0], w.shape[1]);
    let mg = m / group;
    let (xs, os) = (numel(&g.input)?, numel(&g.output)?);
    let ks = numel(&g.kernel)?;
    let taps = tap_offsets(g, os, ks);
    let mut out = Vec::with_capacity(n * m * os);
    for bi in 0..n {
        for mi in 0..m {
            let c0 = (mi / mg) * cg;
            for o in 0..os {
                let mut acc = bv.as_ref().map_or(T::ZERO, |b| b[mi]);
                for ci in 0..cg {
                    let xbase = (bi * x.shape[1] + c0 + ci) * xs;
                    let wbase = (mi * cg + ci) * ks;
                    for (kf, tap) in taps[o * ks..(o + 1) * ks].iter().enumerate() {
                        if let Some(off) = tap {
                            acc += xv[xbase + off] * wv[wbase + kf];
                        }
                    }
                }
                out.push(acc);
            }
        }
    }
    let mut shape = vec![n, m];
    shape.extend(&g.output);
    to_tensor(x.dtype(), shape, out)
}

/// For each (output position, kernel tap), the input offset within one
/// channel plane, or `None` where the tap falls in the padding.
fn tap_offsets(g: &Geom, os: usize, ks: usize) -> Vec<Option<usize>> {
    let mut taps = Vec::with_capacity(os * ks);
    let mut o = vec![0; g.output.len()];
    for _ in 0..os {
        let mut k = vec![0; g.kernel.len()];
        for _ in 0..ks {
            let pos: Option<Vec<usize>> = (0..k.len()).map(|i| tap(g, i, o[i], k[i])).collect();
            taps.push(pos.map(|p| flat(&p, &g.input)));
            next_index(&mut k, &g.kernel);
        }
        next_index(&mut o, &g.output);
    }
    taps
}

/// `onnx.ConvTranspose`: N-D grouped transposed convolution (`W [C, M/group, k...]`)
/// with output_padding, output_shape and auto_pad (pads derived as in the ONNX reference).
pub fn conv_transpose(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, w, b) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2));
    let group = group_of(ctx)?;
    check_operands(x, w, b, group, true)?;
    let g = window::transposed(ctx, &x.shape[2..], &w.shape[2..])?;
    Ok(vec![float_kernel!(x.dtype(), conv_transpose_t(x, w, b, group, &g))?])
}

fn conv_transpose_t<T: Real>(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    group: usize,
    g: &Geom,
) -> Result<Tensor, String> {
    let (xv, wv) = (reals::<T>(x), reals::<T>(w));
    let (n, c, mg) = (x.shape[0], x.shape[1], w.shape[1]);
    let (m, cg) = (mg * group, c / group);
    let (xs, os, ks) = (numel(&g.input)?, numel(&g.output)?, numel(&g.kernel)?);
    let mut out = vec![T::ZERO; n * m * os];
    for bi in 0..n {
        for ci in 0..c {
            let m0 = (ci / cg) * mg;
            let mut ip = vec![0; g.input.len()];
            for xf in 0..xs {
                let xval = xv[(bi * c + ci) * xs + xf];
                let mut k = vec![0; g.kernel.len()];
                for kf in 0..ks {
                    if let Some(o) = transposed_pos(g, &ip, &k) {
                        for mj in 0..mg {
                            out[(bi * m + m0 + mj) * os + flat(&o, &g.output)] += xval * wv[(ci * mg + mj) * ks + kf];
                        }
                    }
                    next_index(&mut k, &g.kernel);
                }
                next_index(&mut ip, &g.input);
            }
        }
    }
    if let Some(b) = b {
        let bv = reals::<T>(b);
        for (i, y) in out.iter_mut().enumerate() {
            *y += bv[(i / os) % m];
        }
    }
    let mut shape = vec![n, m];
    shape.extend(&g.output);
    to_tensor(x.dtype(), shape, out)
}

/// Output position `i * s + k * d - begin` of input position `ip` and tap `k`, if inside.
fn transposed_pos(g: &Geom, ip: &[usize], k: &[usize]) -> Option<Vec<usize>> {
    (0..ip.len())
        .map(|a| {
            let o = (ip[a] * g.strides[a] + k[a] * g.dilations[a]) as i64 - g.begin[a];
            (o >= 0 && (o as usize) < g.output[a]).then_some(o as usize)
        })
        .collect()
}

/// Col2Im parameters: image and block sizes, strides, dilations, begin/end pads.
struct Col2ImGeom {
    image: Vec<usize>,
    block: Vec<usize>,
    blocks: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    pads: Vec<usize>,
}

fn col2im_geom(ctx: &EvalCtx<'_>, image: &Tensor, block: &Tensor) -> Result<Col2ImGeom, String> {
    let to_sizes = |t: &Tensor, what: &str| -> Result<Vec<usize>, String> {
        let v = t.to_i64s();
        if t.rank() != 1 || v.iter().any(|&d| d < 1) {
            return Err(format!("`{what}` must be a 1-D list of positive sizes, found {v:?}"));
        }
        Ok(v.iter().map(|&d| d as usize).collect())
    };
    let (image, block) = (to_sizes(image, "image_shape")?, to_sizes(block, "block_shape")?);
    let n = image.len();
    if block.len() != n {
        return Err(format!("`image_shape` {image:?} and `block_shape` {block:?} differ in length"));
    }
    let list = |name: &str, len: usize, def: i64, min: i64| -> Result<Vec<usize>, String> {
        let v = ctx.attrs.ints(name).map_or_else(|| vec![def; len], <[i64]>::to_vec);
        if v.len() != len || v.iter().any(|&x| x < min) {
            return Err(format!("attribute `{name}` = {v:?} must have {len} values ≥ {min}"));
        }
        Ok(v.iter().map(|&x| x as usize).collect())
    };
    let (strides, dilations, pads) =
        (list("strides", n, 1, 1)?, list("dilations", n, 1, 1)?, list("pads", 2 * n, 0, 0)?);
    let mut blocks = Vec::with_capacity(n);
    for i in 0..n {
        let ek = dilations[i] * (block[i] - 1) + 1;
        let padded = image[i] + pads[i] + pads[i + n];
        if padded < ek {
            return Err(format!("axis {i}: padded image size {padded} is smaller than the block extent {ek}"));
        }
        blocks.push((padded - ek) / strides[i] + 1);
    }
    Ok(Col2ImGeom { image, block, blocks, strides, dilations, pads })
}

/// Scatter-add the columns of one `[C*K, L]` batch item into `[C, image...]`.
fn col2im_core<T: crate::interp::tensor::real::Ring>(data: &[T], c: usize, g: &Col2ImGeom) -> Vec<T> {
    let (ks, ls, is) =
        (g.block.iter().product::<usize>(), g.blocks.iter().product::<usize>(), g.image.iter().product::<usize>());
    let n = g.image.len();
    let mut out = vec![T::ZERO; c * is];
    for ci in 0..c {
        let mut k = vec![0; n];
        for kf in 0..ks {
            let mut l = vec![0; n];
            for lf in 0..ls {
                let pos: Option<Vec<usize>> = (0..n)
                    .map(|i| {
                        let p = (l[i] * g.strides[i] + k[i] * g.dilations[i]) as i64 - g.pads[i] as i64;
                        (p >= 0 && (p as usize) < g.image[i]).then_some(p as usize)
                    })
                    .collect();
                if let Some(p) = pos {
                    let o: &mut T = &mut out[ci * is + flat(&p, &g.image)];
                    *o = o.add(data[(ci * ks + kf) * ls + lf]);
                }
                next_index(&mut l, &g.blocks);
            }
            next_index(&mut k, &g.block);
        }
    }
    out
}

/// `onnx.Col2Im`: rearrange `[N, C*prod(block_shape), L]` column blocks into
/// `[N, C, image_shape...]`, summing overlapping values (integers wrap).
pub fn col2im(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    use crate::interp::tensor::real::{from_int_bits, int_bits};
    let x = ctx.input(0)?;
    let g = col2im_geom(ctx, ctx.input(1)?, ctx.input(2)?)?;
    let ks: usize = g.block.iter().product();
    if x.rank() != 3 || x.shape[1] % ks != 0 || x.shape[2] != g.blocks.iter().product::<usize>() {
        return Err(format!("input {:?} does not match blocks {:?} of size {:?}", x.shape, g.blocks, g.block));
    }
    let (n, c) = (x.shape[0], x.shape[1] / ks);
    let item = x.shape[1] * x.shape[2];
    let mut shape = vec![n, c];
    shape.extend(&g.image);
    let dt = x.dtype();
    let y = if dt == crate::types::DType::F64 {
        let v = reals::<f64>(x);
        to_tensor(dt, shape, (0..n).flat_map(|b| col2im_core(&v[b * item..(b + 1) * item], c, &g)).collect())?
    } else if dt.is_float() {
        let v = reals::<f32>(x);
        to_tensor(dt, shape, (0..n).flat_map(|b| col2im_core(&v[b * item..(b + 1) * item], c, &g)).collect())?
    } else if dt.is_int() {
        let v = int_bits(&x.data);
        let out: Vec<u64> = (0..n).flat_map(|b| col2im_core(&v[b * item..(b + 1) * item], c, &g)).collect();
        from_int_bits(dt, shape, &out)?
    } else {
        return Err(format!("Col2Im does not support element type {dt}"));
    };
    Ok(vec![y])
}
