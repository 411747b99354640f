//! Shape rules of the compute families: convolutions and pooling (the
//! sliding-window formula), matrix products, normalization, attention and
//! recurrent layers (the quantized forms are in `quant`).

use super::{ShapeCx, Sz};
use ir::Opcode;

type Shapes = Result<Option<Vec<Vec<Sz>>>, String>;

/// The rule for `sc.op` if it is one of these families.
pub fn shapes(sc: &mut ShapeCx<'_>) -> Shapes {
    use Opcode::*;
    let op = sc.op;
    Ok(Some(match op.opcode {
        Einsum => vec![einsum(sc)?],
        CoreConv => {
            let wd = sc.dims(1)?.to_vec();
            let kernel: Vec<Sz> = wd[2..].to_vec();
            let mut y = window_shape(sc, 0, &kernel, false)?;
            y[1] = wd[0].clone();
            vec![y]
        }
        MaxPool | AveragePool | LpPool => {
            let r = sc.dims(0)?.len().saturating_sub(2);
            let k = sc.op.attrs.ints("kernel_shape").ok_or("missing `kernel_shape`")?;
            let kernel: Vec<Sz> = k.iter().take(r).map(|&x| Sz::Lit(x.max(1) as usize)).collect();
            let ceil = sc.int("ceil_mode", 0) != 0;
            let y = window_shape(sc, 0, &kernel, ceil)?;
            vec![y.clone(); op.results.len()]
        }
        GlobalAveragePool | GlobalMaxPool | GlobalLpPool => {
            let x = sc.dims(0)?;
            let mut y = x[..2.min(x.len())].to_vec();
            y.resize(x.len(), Sz::Lit(1));
            vec![y]
        }
        CoreConvTranspose => vec![conv_transpose(sc)?],
        MatMul => {
            let (a, b) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
            vec![matmul(sc, &a, &b)?]
        }
        CoreLinear => {
            let (a, mut b) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
            if sc.int("trans_b", 0) != 0 && b.len() >= 2 {
                let n = b.len();
                b.swap(n - 1, n - 2);
            }
            let y = matmul(sc, &a, &b)?;
            match sc.ins.get(2).cloned().flatten() {
                Some(bias) => vec![sc.bcast_all(&[y, bias])?],
                None => vec![y],
            }
        }
        Gemm => {
            let (a, b) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
            let m = if sc.int("transA", 0) != 0 { &a[1] } else { &a[0] };
            let n = if sc.int("transB", 0) != 0 { &b[0] } else { &b[1] };
            let y = vec![m.clone(), n.clone()];
            match sc.ins.get(2).cloned().flatten() {
                Some(c) => vec![sc.bcast_all(&[y, c])?],
                None => vec![y],
            }
        }
        BatchNormalization => {
            let x = sc.dims(0)?.to_vec();
            let c = x.get(1).cloned().unwrap_or(Sz::Lit(1));
            let mut out = vec![x];
            out.extend((1..op.results.len()).map(|_| vec![c.clone()]));
            out
        }
        LayerNormalization => {
            let x = sc.dims(0)?.to_vec();
            let a = super::axis(sc.int("axis", -1), x.len())?;
            let stat: Vec<Sz> = x.iter().enumerate().map(|(i, d)| if i < a { d.clone() } else { Sz::Lit(1) }).collect();
            let mut out = vec![x];
            out.extend((1..op.results.len()).map(|_| stat.clone()));
            out
        }
        CoreAttention | CoreAttentionBlocked => {
            let (q, v) = (sc.dims(0)?.to_vec(), sc.dims(2)?.to_vec());
            let mut y = q.clone();
            if let (Some(last), Some(dv)) = (y.last_mut(), v.last()) {
                *last = dv.clone();
            }
            vec![y]
        }
        LSTM | GRU | RNN => recurrent(sc)?,
        _ => return Ok(None),
    }))
}

/// `[N, C, spatial...]` of a sliding window with `kernel` over operand `x`
/// (channels copied from the input; callers set them for convolutions).
pub(super) fn window_shape(sc: &mut ShapeCx<'_>, x: usize, kernel: &[Sz], ceil: bool) -> Result<Vec<Sz>, String> {
    let xd = sc.dims(x)?.to_vec();
    let r = xd.len().checked_sub(2).ok_or("input must have rank >= 3")?;
    let ints = |k: &str, n: usize, d: i64| -> Vec<usize> {
        sc.op.attrs.ints(k).map_or(vec![d as usize; n], |v| v.iter().map(|&x| x.max(0) as usize).collect())
    };
    let (strides, dils, pads) = (ints("strides", r, 1), ints("dilations", r, 1), ints("pads", 2 * r, 0));
    let auto = sc.op.attrs.str("auto_pad").unwrap_or("NOTSET").to_string();
    let mut y = xd[..2].to_vec();
    for i in 0..r {
        let input = &xd[2 + i];
        let k = kernel.get(i).and_then(Sz::lit).ok_or("kernel size must be known when generating")?;
        let out = match auto.as_str() {
            "SAME_UPPER" | "SAME_LOWER" => input.div_ceil(&Sz::Lit(strides[i])),
            "VALID" => window(sc, input, (0, 0), k, strides[i], dils[i], ceil),
            _ => window(sc, input, (pads[i], pads[i + r]), k, strides[i], dils[i], ceil),
        };
        y.push(out);
    }
    Ok(y)
}

/// One axis of the sliding-window formula.
fn window(sc: &mut ShapeCx<'_>, input: &Sz, (pb, pe): (usize, usize), k: usize, s: usize, d: usize, ceil: bool) -> Sz {
    let ek = d * (k.max(1) - 1) + 1;
    if s == 1 && pb + pe + 1 == ek && !ceil {
        return input.clone();
    }
    if let Some(x) = input.lit() {
        if x + pb + pe >= ek {
            let span = x + pb + pe - ek;
            let pos = if ceil { span.div_ceil(s) } else { span / s };
            let dropped = ceil && pos * s >= x + pb;
            return Sz::Lit(pos + 1 - dropped as usize);
        }
    }
    let what = sc.what.clone();
    sc.bind(format!("k::shape::window({what:?}, {input}, {pb}, {pe}, {k}, {s}, {d}, {ceil})?"))
}

/// Transposed convolution: `stride·(in−1) + output_padding + dilated kernel − pads`,
/// or `output_shape` when given.
fn conv_transpose(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let (xd, wd) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
    let r = xd.len().checked_sub(2).ok_or("input must have rank >= 3")?;
    let groups = sc.int("group", 1).max(1) as usize;
    let c_out = &wd[1] * groups;
    let ints = |k: &str, n: usize, d: i64| -> Vec<usize> {
        sc.op.attrs.ints(k).map_or(vec![d as usize; n], |v| v.iter().map(|&x| x.max(0) as usize).collect())
    };
    let mut y = vec![xd[0].clone(), c_out];
    if let Some(os) = sc.op.attrs.ints("output_shape") {
        y.extend(os.iter().rev().take(r).rev().map(|&d| Sz::Lit(d.max(0) as usize)));
        return Ok(y);
    }
    let (strides, dils, pads, opad) =
        (ints("strides", r, 1), ints("dilations", r, 1), ints("pads", 2 * r, 0), ints("output_padding", r, 0));
    let same = matches!(sc.op.attrs.str("auto_pad"), Some("SAME_UPPER" | "SAME_LOWER"));
    for i in 0..r {
        let k = wd[2 + i].lit().ok_or("kernel size must be known when generating")?;
        let ek = dils[i] * (k.max(1) - 1) + 1;
        let x = &xd[2 + i];
        let out = if same {
            x * strides[i]
        } else {
            let grown = &(&(x.sat_sub(&Sz::Lit(1))) * strides[i]) + (opad[i] + ek);
            grown.sat_sub(&Sz::Lit(pads[i] + pads[i + r]))
        };
        y.push(out);
    }
    Ok(y)
}

/// `a @ b` with numpy matmul broadcasting (1-D operands promoted and dropped).
pub(super) fn matmul(sc: &mut ShapeCx<'_>, a: &[Sz], b: &[Sz]) -> Result<Vec<Sz>, String> {
    let (a1, b1) = (a.len() == 1, b.len() == 1);
    let a: Vec<Sz> = if a1 { vec![Sz::Lit(1), a[0].clone()] } else { a.to_vec() };
    let b: Vec<Sz> = if b1 { vec![b[0].clone(), Sz::Lit(1)] } else { b.to_vec() };
    let (ra, rb) = (a.len(), b.len());
    if ra < 2 || rb < 2 {
        return Err("matmul operands must have rank >= 1".into());
    }
    let batch = sc.bcast_all(&[a[..ra - 2].to_vec(), b[..rb - 2].to_vec()])?;
    let mut y = batch;
    if !a1 {
        y.push(a[ra - 2].clone());
    }
    if !b1 {
        y.push(b[rb - 1].clone());
    }
    Ok(y)
}

/// LSTM/GRU/RNN: `Y [seq, dirs, batch, hidden]` (or batch-first with
/// `layout` 1), `Y_h`/`Y_c` `[dirs, batch, hidden]`.
fn recurrent(sc: &mut ShapeCx<'_>) -> Result<Vec<Vec<Sz>>, String> {
    let x = sc.dims(0)?.to_vec();
    if x.len() != 3 {
        return Err(format!("recurrent input of rank {}", x.len()));
    }
    let hidden = Sz::Lit(sc.int("hidden_size", 0).max(0) as usize);
    let dirs = Sz::Lit(if sc.op.attrs.str("direction") == Some("bidirectional") { 2 } else { 1 });
    let batch_first = sc.int("layout", 0) == 1;
    let (seq, batch) = if batch_first { (x[1].clone(), x[0].clone()) } else { (x[0].clone(), x[1].clone()) };
    let y = if batch_first {
        vec![batch.clone(), seq, dirs.clone(), hidden.clone()]
    } else {
        vec![seq, dirs.clone(), batch.clone(), hidden.clone()]
    };
    let state = if batch_first { vec![batch, dirs, hidden] } else { vec![dirs, batch, hidden] };
    let mut out = vec![y];
    out.extend((1..sc.op.results.len()).map(|_| state.clone()));
    Ok(out)
}

/// The loop of every operand axis of Einsum `equation` over operands of
/// ranks `ranks` (output loops first), the number of loops and of output
/// loops: the equation's structure, independent of the sizes.
pub fn einsum_labels(equation: &str, ranks: &[usize]) -> Result<(Vec<Vec<usize>>, usize, usize), String> {
    let ones: Vec<Vec<usize>> = ranks.iter().map(|&r| vec![1; r]).collect();
    let refs: Vec<&[usize]> = ones.iter().map(Vec::as_slice).collect();
    let nest = edgec_numeric::einsum::loop_nest(equation, &refs).map_err(|e| format!("Einsum: {e}"))?;
    let loops = nest.access.iter().map(|a| a.iter().map(|&(l, _)| l).collect()).collect();
    Ok((loops, nest.dims.len(), nest.out_shape.len()))
}

/// Einsum: each output dim is the size its label takes over the operands.
fn einsum(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let eq = sc.op.attrs.str("equation").ok_or("Einsum: missing `equation`")?.to_string();
    let shapes: Vec<Vec<Sz>> =
        (0..sc.op.operands.len()).map(|i| sc.dims(i).map(<[Sz]>::to_vec)).collect::<Result<_, _>>()?;
    let (loops, _, n_out) = einsum_labels(&eq, &shapes.iter().map(Vec::len).collect::<Vec<_>>())?;
    let mut out = Vec::with_capacity(n_out);
    for l in 0..n_out {
        let occ: Vec<Sz> = loops
            .iter()
            .zip(&shapes)
            .flat_map(|(ls, s)| ls.iter().zip(s).filter(|(&x, _)| x == l).map(|(_, d)| d.clone()))
            .collect();
        let lits: Vec<usize> = occ.iter().filter_map(Sz::lit).filter(|&d| d != 1).collect();
        out.push(match lits.first() {
            Some(&d) if lits.iter().all(|&x| x == d) && occ.iter().all(|o| o.lit().is_some()) => Sz::Lit(d),
            None if occ.iter().all(|o| o.is(1)) => Sz::Lit(1),
            _ => {
                let what = sc.what.clone();
                sc.bind(format!("k::linalg::einsum::label_size({what:?}, {})?", Sz::slice(&occ)))
            }
        });
    }
    Ok(out)
}
