//! Shape rules of ops whose result sizes follow from operand values (a
//! window's size, OneHot's depth, STFT's frame length, Col2Im's image, …)
//! or from the data itself (NonZero, Compress, Unique, NonMaxSuppression:
//! their counts are [`ShapeCx::counted`] dims, set by the op when it runs).
//!
//! Values come from constants when generating, else from inputs or shapes
//! when the model runs, else from the operand's slice right before the op
//! (`dynamic::Walk::late_retry`). A size known when generating is checked
//! then; the others by `k::shape` and the kernels' size functions when the
//! model runs (errors naming the op).

use super::{axis, ShapeCx, Sz, Vals};
use ir::ops::signal::{dft_axis, dft_check_last, dft_length, dft_out_len, flag, stft_frame_length, stft_frames};
use ir::Opcode;

type Shapes = Result<Option<Vec<Vec<Sz>>>, String>;

/// The rule for `sc.op` if it is one of these ops.
pub fn shapes(sc: &mut ShapeCx<'_>) -> Shapes {
    use Opcode::*;
    Ok(Some(match sc.op.opcode {
        NonZero => vec![vec![Sz::Lit(sc.dims(0)?.len()), counted(sc, 0, 1)]],
        Compress => vec![compress(sc)?],
        Unique => unique(sc)?,
        NonMaxSuppression => {
            let (b, s) = (sc.dims(0)?, sc.dims(1)?);
            if b.len() != 3 || s.len() != 3 {
                return Err("boxes must be [batches, boxes, 4] and scores [batches, classes, boxes]".into());
            }
            vec![vec![counted(sc, 0, 0), Sz::Lit(3)]]
        }
        OneHot => {
            let mut y = sc.dims(0)?.to_vec();
            let a = axis(sc.int("axis", -1), y.len() + 1)?;
            let depth = one(sc, 1, "depth")?;
            y.insert(a, size(sc, &depth, 0)?);
            vec![y]
        }
        CenterCropPad => vec![center_crop_pad(sc)?],
        Col2Im => vec![col2im(sc)?],
        AffineGrid => vec![affine_grid(sc)?],
        HannWindow | HammingWindow | BlackmanWindow => {
            let n = one(sc, 0, "size")?;
            vec![vec![size(sc, &n, 0)?]]
        }
        MelWeightMatrix => {
            let (bins, len) = (one(sc, 0, "num_mel_bins")?, one(sc, 1, "dft_length")?);
            let rows = &size(sc, &len, 0)? / 2 + 1;
            vec![vec![rows, size(sc, &bins, 0)?]]
        }
        STFT => vec![stft(sc)?],
        DFT => vec![dft(sc)?],
        MaxUnpool => vec![max_unpool(sc)?],
        _ => return Ok(None),
    }))
}

/// Dim `k` of result `j`, which the op sets from the data (a placeholder here).
fn counted(sc: &mut ShapeCx<'_>, j: usize, k: usize) -> Sz {
    sc.counted.push((j, k));
    Sz::Lit(0)
}

/// The values of operand `i`, which must hold one element.
fn one(sc: &ShapeCx<'_>, i: usize, role: &str) -> Result<Vals, String> {
    let v = sc.need_vals(i, role)?;
    match v.len() {
        1 => Ok(v),
        n => Err(format!("`{role}` must hold one value, found {n}")),
    }
}

/// Element `j` of `v` as a size: a literal when known (negative is an
/// error now), else checked when the model runs.
fn size(sc: &mut ShapeCx<'_>, v: &Vals, j: usize) -> Result<Sz, String> {
    match v.lit_int(j) {
        Some(n) if n >= 0 => Ok(Sz::Lit(n as usize)),
        Some(n) => Err(format!("size {n} is negative")),
        None => {
            let what = sc.what.clone();
            Ok(sc.bind(format!("k::shape::nonneg({what:?}, {})?", v.int(j))))
        }
    }
}

fn compress(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    match sc.op.attrs.int("axis") {
        Some(a) => {
            let k = axis(a, x.len())?;
            let mut y = x;
            y[k] = counted(sc, 0, k);
            Ok(y)
        }
        None => Ok(vec![counted(sc, 0, 0)]),
    }
}

/// Unique's `Y`, `indices`, `inverse_indices` (one per item) and `counts`.
fn unique(sc: &mut ShapeCx<'_>) -> Result<Vec<Vec<Sz>>, String> {
    let x = sc.dims(0)?.to_vec();
    let (y, items) = match sc.op.attrs.int("axis") {
        Some(a) => {
            let k = axis(a, x.len())?;
            let mut y = x.clone();
            y[k] = counted(sc, 0, k);
            (y, x[k].clone())
        }
        None => (vec![counted(sc, 0, 0)], Sz::product(&x)),
    };
    let mut out = vec![y, vec![counted(sc, 1, 0)], vec![items], vec![counted(sc, 3, 0)]];
    let n = sc.op.results.len();
    out.truncate(n);
    sc.counted.retain(|c| c.0 < n);
    Ok(out)
}

fn center_crop_pad(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let mut y = sc.dims(0)?.to_vec();
    let axes: Vec<usize> = match sc.op.attrs.ints("axes") {
        Some(a) => a.iter().map(|&k| axis(k, y.len())).collect::<Result<_, _>>()?,
        None => (0..y.len()).collect(),
    };
    let v = sc.need_vals(1, "shape")?;
    if v.len() != axes.len() {
        return Err(format!("`shape` has {} entries for {} axes", v.len(), axes.len()));
    }
    for (j, &a) in axes.iter().enumerate() {
        y[a] = size(sc, &v, j)?;
    }
    Ok(y)
}

/// `[N, C, image...]` with `C` the input's rows over the block's size.
fn col2im(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let (image, block) = (sc.need_vals(1, "image_shape")?, sc.need_vals(2, "block_shape")?);
    let n = image.len();
    if x.len() != 3 || n == 0 || block.len() != n {
        return Err(format!("input of rank {} with image_shape of {n} and block_shape of {}", x.len(), block.len()));
    }
    let channels = match (x[1].lit(), block.lit_ints()) {
        (Some(rows), Some(b)) => {
            let k = b.iter().try_fold(1usize, |k, &d| usize::try_from(d).ok().filter(|&d| d >= 1).map(|d| k * d));
            match k.filter(|&k| rows % k == 0) {
                Some(k) => Sz::Lit(rows / k),
                None => return Err(format!("block_shape {b:?} does not divide {rows} input rows")),
            }
        }
        _ => {
            let b: Vec<String> = (0..n).map(|j| block.int(j)).collect();
            sc.bind(format!("k::conv::col2im::col2im_channels({}, &[{}])?", x[1], b.join(", ")))
        }
    };
    let mut y = vec![x[0].clone(), channels];
    for j in 0..n {
        y.push(size(sc, &image, j)?);
    }
    Ok(y)
}

/// `[N, spatial..., r]` from theta `[N, r, r + 1]` and `size` `[N, C, spatial...]`.
fn affine_grid(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let t = sc.dims(0)?.to_vec();
    let v = sc.need_vals(1, "size")?;
    let r = match v.len() {
        4 => 2,
        5 => 3,
        l => return Err(format!("`size` has {l} entries, expected 4 or 5")),
    };
    if t.len() != 3 || !t[1].is(r) || !t[2].is(r + 1) {
        return Err(format!("theta must be [N, {r}, {}] for a {r}-D grid", r + 1));
    }
    let n = match (v.lit_int(0), t[0].lit()) {
        (Some(a), Some(b)) if a == b as i64 => Sz::Lit(b),
        (Some(a), Some(b)) => return Err(format!("`size` says N = {a}, theta holds {b} matrices")),
        _ => sc.bind(format!("k::resample::affine::batch({}, {})?", v.int(0), t[0])),
    };
    let mut y = vec![n];
    for j in 2..v.len() {
        y.push(size(sc, &v, j)?);
    }
    y.push(Sz::Lit(r));
    Ok(y)
}

/// `[batch, frames, bins, 2]`: known now if the signal length, step and
/// frame length are; the frame length alone gives the bins.
fn stft(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    if x.len() != 3 {
        return Err("the signal must be [batch, length, 1 or 2]".into());
    }
    let onesided = flag(sc.int("onesided", 1), "onesided")?;
    let step = one(sc, 1, "frame_step")?;
    let fl = if sc.has(3) { Some(one(sc, 3, "frame_length")?) } else { None };
    let win = match sc.has(2) {
        true => match sc.dims(2)? {
            [w] => Some(w.clone()),
            _ => return Err("the window must be 1-D".into()),
        },
        false => None,
    };
    // The frame length, if known now.
    let n = match (&fl, &win) {
        (Some(f), _) => {
            f.lit_int(0).map(|f| stft_frame_length(Some(f), win.as_ref().and_then(Sz::lit).map(|w| w as u64), 0))
        }
        (None, Some(w)) => w.lit().map(|w| stft_frame_length(None, Some(w as u64), 0)),
        (None, None) => x[1].lit().map(|l| stft_frame_length(None, None, l as u64)),
    }
    .transpose()?;
    let bins = |n: u64| Sz::Lit(if onesided { n / 2 + 1 } else { n } as usize);
    if let (Some(n), Some(len), Some(st)) = (n, x[1].lit(), step.lit_int(0)) {
        let frames = stft_frames(len as u64, n, st)?;
        return Ok(vec![x[0].clone(), Sz::Lit(frames as usize), bins(n), Sz::Lit(2)]);
    }
    let name = format!("{}_stft", sc.tag);
    let fl = fl.map_or("None".into(), |f| format!("Some({})", f.int(0)));
    let win = win.map_or("None".into(), |w| format!("Some({w})"));
    sc.lines.push(format!(
        "let {name}: [usize; 2] = k::signal::dft::stft_dims({}, {}, {fl}, {win}, {onesided})?;",
        x[1],
        step.int(0)
    ));
    let b = n.map_or_else(|| Sz::expr(format!("{name}[1]")), bins);
    Ok(vec![x[0].clone(), Sz::expr(format!("{name}[0]")), b, Sz::Lit(2)])
}

/// The input's dims with the axis resized and the last dim 2 (1 for IRFFT).
fn dft(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let r = x.len();
    let inverse = flag(sc.int("inverse", 0), "inverse")?;
    let onesided = flag(sc.int("onesided", 0), "onesided")?;
    if r < 2 {
        return Err("the input needs rank >= 2 (the last dim holds real/imaginary parts)".into());
    }
    if let Some(last) = x[r - 1].lit() {
        dft_check_last(last as u64, inverse, onesided)?;
    }
    let len = if sc.has(1) { Some(one(sc, 1, "dft_length")?) } else { None };
    let ax = if sc.has(2) { one(sc, 2, "axis")? } else { Vals::Lit(vec![sc.int("axis", -2) as f64]) };
    let a = ax.lit_int(0).map(|a| dft_axis(a, r)).transpose()?;
    // The output length along the axis, if known now.
    let out_len = match (a, &len) {
        (Some(_), Some(l)) => l.lit_int(0).map(|l| dft_length(Some(l), 0, inverse, onesided)).transpose()?,
        (Some(a), None) => x[a].lit().map(|m| dft_length(None, m as u64, inverse, onesided)).transpose()?,
        (None, _) => None,
    }
    .map(|n| Sz::Lit(dft_out_len(n, inverse, onesided) as usize));
    let last = Sz::Lit(if inverse && onesided { 1 } else { 2 });
    if let (Some(a), Some(o), true) = (a, &out_len, x[r - 1].lit().is_some()) {
        let mut y = x.clone();
        y[a] = o.clone();
        y[r - 1] = last;
        return Ok(y);
    }
    let name = format!("{}_dft", sc.tag);
    let len = len.map_or("None".into(), |l| format!("Some({})", l.int(0)));
    sc.lines.push(format!(
        "let mut {name} = [0usize; {r}]; k::signal::dft::dft_dims({}, {inverse}, {onesided}, {}, {len}, &mut {name})?;",
        Sz::slice(&x),
        ax.int(0)
    ));
    Ok((0..r)
        .map(|k| match (a, &out_len) {
            _ if k == r - 1 => last.clone(),
            (Some(a), Some(o)) if k == a => o.clone(),
            (Some(a), _) if k != a => x[k].clone(),
            _ => Sz::expr(format!("{name}[{k}]")),
        })
        .collect())
}

/// `output_shape` if given, else `(x − 1) · stride − pads + kernel` per axis.
fn max_unpool(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let a = &sc.op.attrs;
    let ks = a.ints("kernel_shape").ok_or("missing `kernel_shape`")?.to_vec();
    let n = ks.len();
    let strides = a.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = a.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    if x.len() != n + 2 || strides.len() != n || pads.len() != 2 * n {
        return Err(format!("X of rank {} does not match kernel_shape {ks:?}", x.len()));
    }
    if sc.has(2) {
        let v = sc.need_vals(2, "output_shape")?;
        if v.len() != n + 2 {
            return Err(format!("`output_shape` has {} entries for rank {}", v.len(), n + 2));
        }
        return (0..n + 2).map(|j| size(sc, &v, j)).collect();
    }
    let mut y = x[..2].to_vec();
    for i in 0..n {
        let (k, s, pb, pe) = (ks[i], strides[i], pads[i], pads[i + n]);
        y.push(match x[i + 2].lit() {
            Some(d) => {
                let o = (d as i64 - 1) * s - pb - pe + k;
                Sz::Lit(usize::try_from(o).map_err(|_| format!("spatial axis {i}: unpooled size {o} is negative"))?)
            }
            None => sc.bind(format!("k::pool::unpool::unpool_size({}, {k}, {s}, {pb}, {pe})?", x[i + 2])),
        });
    }
    Ok(y)
}
