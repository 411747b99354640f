//! Shape rules of data movement, reductions and shape-computing ops.

use super::{axis, ShapeCx, Sz, Vals};
use ir::Opcode;

type Shapes = Result<Option<Vec<Vec<Sz>>>, String>;

/// The rule for `sc.op` if it is one of these families.
pub fn shapes(sc: &mut ShapeCx<'_>) -> Shapes {
    use Opcode::*;
    let op = sc.op;
    let a = &op.attrs;
    Ok(Some(match op.opcode {
        Reshape => vec![reshape(sc, sc.need_vals(1, "target shape")?, sc.int("allowzero", 0) != 0)?],
        CoreReshape => {
            let s = a.ints("shape").ok_or("missing `shape`")?.iter().map(|&x| x as f64).collect();
            vec![reshape(sc, Vals::Lit(s), false)?]
        }
        Flatten => {
            let x = sc.dims(0)?.to_vec();
            let k = axis(sc.int("axis", 1), x.len() + 1)?;
            vec![vec![Sz::product(&x[..k]), Sz::product(&x[k..])]]
        }
        Squeeze | CoreSqueeze => vec![squeeze(sc)?],
        Unsqueeze | CoreUnsqueeze => vec![unsqueeze(sc)?],
        Transpose => {
            let x = sc.dims(0)?.to_vec();
            let perm: Vec<usize> = match a.ints("perm") {
                Some(p) => p.iter().map(|&i| i as usize).collect(),
                None => (0..x.len()).rev().collect(),
            };
            vec![perm.iter().map(|&i| x.get(i).cloned().ok_or("bad perm")).collect::<Result<_, _>>()?]
        }
        Concat => {
            let first = sc.dims(0)?.to_vec();
            let k = axis(sc.int("axis", 0), first.len())?;
            let parts: Vec<Sz> = sc.ins.iter().flatten().map(|d| d[k].clone()).collect();
            let mut y = first;
            y[k] = Sz::sum(&parts);
            vec![y]
        }
        Split => split(sc)?,
        Slice => vec![slice_rt(sc)?],
        CoreSlice => {
            let x = sc.dims(0)?.to_vec();
            let get = |k: &str| a.ints(k).map(<[i64]>::to_vec).ok_or(format!("missing `{k}`"));
            let (st, en, ax, sp) = (get("starts")?, get("ends")?, get("axes")?, get("steps")?);
            let mut y = x.clone();
            for i in 0..ax.len() {
                let k = axis(ax[i], x.len())?;
                y[k] = slice_len(sc, &x[k], &st[i].to_string(), &en[i].to_string(), sp[i]);
            }
            vec![y]
        }
        Gather => {
            let (x, idx) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
            let k = axis(sc.int("axis", 0), x.len())?;
            vec![[&x[..k], &idx[..], &x[k + 1..]].concat()]
        }
        GatherElements => vec![sc.dims(1)?.to_vec()],
        GatherND => vec![gather_nd(sc)?],
        Pad => vec![pad(sc)?],
        Resize | Upsample => vec![resize(sc)?],
        Expand | CoreExpand => {
            let x = sc.dims(0)?.to_vec();
            let target: Vec<Sz> = match op.opcode {
                CoreExpand => a.ints("shape").ok_or("missing `shape`")?.iter().map(|&d| Sz::Lit(d as usize)).collect(),
                _ => vals_dims(sc, &sc.need_vals(1, "shape")?, "Expand")?,
            };
            vec![sc.bcast_all(&[x, target])?]
        }
        Tile => {
            let x = sc.dims(0)?.to_vec();
            let reps = vals_dims(sc, &sc.need_vals(1, "repeats")?, "Tile")?;
            vec![x.iter().zip(&reps).map(|(d, r)| d * r).collect()]
        }
        ReduceMean | ReduceSum | ReduceMax | ReduceMin | ReduceProd | ReduceL1 | ReduceL2 | ReduceSumSquare
        | ReduceLogSumExp | ReduceLogSum => {
            let (keep, noop) = (sc.int("keepdims", 1) != 0, sc.int("noop_with_empty_axes", 0) != 0);
            let axes = match op.operand(1) {
                Some(_) => sc.need_vals(1, "axes")?,
                None => Vals::Lit(vec![]),
            };
            match axes.lit_ints() {
                Some(a) => vec![reduce(sc, &a, keep, noop)?],
                None => vec![reduce_rt(sc, &axes, keep, noop)?],
            }
        }
        CoreReduce => {
            let axes = a.ints("axes").ok_or("missing `axes`")?.to_vec();
            vec![reduce(sc, &axes, sc.int("keepdims", 1) != 0, false)?]
        }
        ArgMax | ArgMin => vec![reduce(sc, &[sc.int("axis", 0)], sc.int("keepdims", 1) != 0, false)?],
        Shape => {
            let r = sc.dims(0)?.len() as i64;
            let norm = |x: i64| if x < 0 { (x + r).max(0) } else { x.min(r) };
            let (s, e) = (norm(sc.int("start", 0)), norm(a.int("end").unwrap_or(r)));
            vec![vec![Sz::Lit((e - s).max(0) as usize)]]
        }
        Size => vec![vec![]],
        Range => vec![vec![range_len(sc)?]],
        ConstantOfShape => vec![vals_dims(sc, &sc.need_vals(0, "shape")?, "ConstantOfShape")?],
        DepthToSpace | SpaceToDepth => {
            let x = sc.dims(0)?.to_vec();
            let b = sc.int("blocksize", 1).max(1) as usize;
            let (c, h, w) = (&x[1], &x[2], &x[3]);
            vec![if op.opcode == DepthToSpace {
                vec![x[0].clone(), c / (b * b), h * b, w * b]
            } else {
                vec![x[0].clone(), c * (b * b), h / b, w / b]
            }]
        }
        TopK => {
            let mut x = sc.dims(0)?.to_vec();
            let k = axis(sc.int("axis", -1), x.len())?;
            let kv = sc.need_vals(1, "K")?;
            x[k] = match kv.lit_int(0) {
                Some(n) => Sz::Lit(n.max(0) as usize),
                None => {
                    let what = sc.what.clone();
                    sc.bind(format!("k::shape::nonneg({what:?}, {})?", kv.int(0)))
                }
            };
            vec![x.clone(), x]
        }
        _ => return Ok(None),
    }))
}

/// Dims given by the values `v` (a Expand/Tile/ConstantOfShape operand).
fn vals_dims(sc: &mut ShapeCx<'_>, v: &Vals, what: &str) -> Result<Vec<Sz>, String> {
    let mut out = Vec::new();
    for j in 0..v.len() {
        out.push(match v.lit_int(j) {
            Some(n) if n >= 0 => Sz::Lit(n as usize),
            Some(n) => return Err(format!("{what}: size {n} is negative")),
            None => {
                let w = sc.what.clone();
                sc.bind(format!("k::shape::nonneg({w:?}, {})?", v.int(j)))
            }
        });
    }
    Ok(out)
}

/// Reshape of operand 0 to `target`: resolved when generating if the input
/// dims and the target are known, else by `k::shape::reshape` at run time.
fn reshape(sc: &mut ShapeCx<'_>, target: Vals, allowzero: bool) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let r = target.len();
    if let (Some(t), Some(xs)) = (target.lit_ints(), Sz::all_lit(&x)) {
        return resolve_static(&xs, &t, allowzero).map(|d| Sz::lits(&d));
    }
    // A literal target without -1 (and 0 only where the input dim is known
    // or copied) needs no run-time resolution.
    if let Some(t) = target.lit_ints() {
        if !t.contains(&-1) {
            return Ok(t
                .iter()
                .enumerate()
                .map(|(i, &d)| if d == 0 && !allowzero { x[i].clone() } else { Sz::Lit(d.max(0) as usize) })
                .collect());
        }
    }
    let vals: Vec<String> = (0..r).map(|j| target.int(j)).collect();
    let name = format!("{}_r", sc.tag);
    sc.lines.push(format!(
        "let {name}: [usize; {r}] = k::shape::reshape::<{r}>({:?}, {}, &[{}], {allowzero})?;",
        sc.what,
        Sz::slice(&x),
        vals.join(", ")
    ));
    Ok((0..r).map(|j| Sz::Expr(format!("{name}[{j}]"))).collect())
}

/// Reshape with every size known (the kernels' rule, applied now).
fn resolve_static(x: &[usize], t: &[i64], allowzero: bool) -> Result<Vec<usize>, String> {
    let mut out = vec![0; t.len()];
    edgec_kernels::shape::reshape_into("Reshape", x, t, allowzero, &mut out).map_err(|e| e.0)?;
    Ok(out)
}

/// `&[e0, e1, ...]`: the values `v` as an `i64` slice expression.
fn int_slice(v: &Vals) -> String {
    let e: Vec<String> = (0..v.len()).map(|j| v.int(j)).collect();
    format!("&[{}]", e.join(", "))
}

/// Dims `{name}[0..r]` bound by a kernel call returning `[usize; r]`.
fn bound_dims(sc: &mut ShapeCx<'_>, suffix: &str, r: usize, call: String) -> Vec<Sz> {
    let name = format!("{}_{suffix}", sc.tag);
    sc.lines.push(format!("let {name}: [usize; {r}] = {call}?;"));
    (0..r).map(|j| Sz::Expr(format!("{name}[{j}]"))).collect()
}

/// A reduction over axes read when the model runs (a non-empty list: the
/// result rank follows from its length).
fn reduce_rt(sc: &mut ShapeCx<'_>, axes: &Vals, keep: bool, noop: bool) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let r = if keep { x.len() } else { x.len().checked_sub(axes.len()).ok_or("more reduction axes than dims")? };
    let (what, a) = (sc.what.clone(), int_slice(axes));
    let ax = format!("{}_ax", sc.tag);
    sc.lines.push(format!("let {ax} = k::shape::Axes::new({what:?}, {a}, {}, {noop})?;", x.len()));
    Ok(bound_dims(sc, "rd", r, format!("k::shape::reduced::<{r}>({what:?}, {}, &{ax}, {keep})", Sz::slice(&x))))
}

fn squeeze(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let axes: Option<Vec<i64>> = match sc.op.opcode {
        Opcode::CoreSqueeze => sc.op.attrs.ints("axes").map(<[i64]>::to_vec),
        _ if sc.has(1) => {
            let v = sc.need_vals(1, "axes")?;
            match v.lit_ints() {
                Some(a) => Some(a),
                None => {
                    let r = x.len().checked_sub(v.len()).ok_or("more Squeeze axes than dims")?;
                    let call =
                        format!("k::shape::squeezed::<{r}>({:?}, {}, {})", sc.what, Sz::slice(&x), int_slice(&v));
                    return Ok(bound_dims(sc, "sq", r, call));
                }
            }
        }
        _ => None,
    };
    let axes: Vec<usize> = match axes {
        Some(a) => a.iter().map(|&k| axis(k, x.len())).collect::<Result<_, _>>()?,
        None => {
            // Without axes every size-1 dim goes; whether a symbolic dim is 1
            // is a fact the variant of the function settles.
            (0..x.len())
                .filter(|&i| x[i].is(1) || (x[i].lit().is_none() && sc.decide(format!("{} == 1", x[i]))))
                .collect()
        }
    };
    Ok(x.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, d)| d.clone()).collect())
}

fn unsqueeze(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let axes: Vec<i64> = match sc.op.opcode {
        Opcode::CoreUnsqueeze => sc.op.attrs.ints("axes").ok_or("missing `axes`")?.to_vec(),
        _ => {
            let v = sc.need_vals(1, "axes")?;
            match v.lit_ints() {
                Some(a) => a,
                None => {
                    let r = x.len() + v.len();
                    let call =
                        format!("k::shape::unsqueezed::<{r}>({:?}, {}, {})", sc.what, Sz::slice(&x), int_slice(&v));
                    return Ok(bound_dims(sc, "usq", r, call));
                }
            }
        }
    };
    let rank = x.len() + axes.len();
    let mut ax: Vec<usize> = axes.iter().map(|&k| axis(k, rank)).collect::<Result<_, _>>()?;
    ax.sort_unstable();
    let mut it = x.into_iter();
    Ok((0..rank).map(|i| if ax.contains(&i) { Sz::Lit(1) } else { it.next().unwrap_or(Sz::Lit(1)) }).collect())
}

fn split(sc: &mut ShapeCx<'_>) -> Result<Vec<Vec<Sz>>, String> {
    let x = sc.dims(0)?.to_vec();
    let k = axis(sc.int("axis", 0), x.len())?;
    let n = sc.op.results.len();
    let sizes: Vec<Sz> = if sc.has(1) {
        let v = sc.need_vals(1, "split")?;
        (0..n)
            .map(|j| v.lit_int(j).map(|s| Sz::Lit(s.max(0) as usize)).unwrap_or(Sz::expr(v.int(j) + " as usize")))
            .collect()
    } else {
        // Equal parts, the last one smaller (ONNX 18 `num_outputs`).
        let part = x[k].div_ceil(&Sz::Lit(n));
        (0..n).map(|j| if j + 1 < n { part.clone() } else { x[k].sat_sub(&(&part * (n - 1))) }).collect()
    };
    Ok(sizes
        .into_iter()
        .map(|s| {
            let mut y = x.clone();
            y[k] = s;
            y
        })
        .collect())
}

/// Elements kept by a Slice of a dim of size `d` (the kernels' `slice_axis` rule).
fn slice_len(sc: &mut ShapeCx<'_>, d: &Sz, start: &str, end: &str, step: i64) -> Sz {
    let parse = |s: &str| s.trim_end_matches("i64").parse::<i64>().ok();
    if let (Some(n), Some(s), Some(e)) = (d.lit(), parse(start), parse(end)) {
        return Sz::Lit(edgec_kernels::layout::slice_axis(n, s, e, step).len);
    }
    if step == 1 && parse(start) == Some(0) && parse(end).is_some_and(|e| e == i64::MAX || e >= i32::MAX as i64) {
        return d.clone();
    }
    sc.bind(format!("k::layout::slice_axis({d}, {start}, {end}, {step}).len"))
}

/// `onnx.Slice` with bounds from constants or run-time values.
fn slice_rt(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let (starts, ends) = (sc.need_vals(1, "starts")?, sc.need_vals(2, "ends")?);
    let (axes_v, steps_v) = (sc.has(3).then(|| sc.need_vals(3, "axes")), sc.has(4).then(|| sc.need_vals(4, "steps")));
    let (axes_v, steps_v) = (axes_v.transpose()?, steps_v.transpose()?);
    let axes = match &axes_v {
        Some(v) => v.lit_ints(),
        None => Some((0..starts.len() as i64).collect()),
    };
    let steps = match &steps_v {
        Some(v) => v.lit_ints(),
        None => Some(vec![1; starts.len()]),
    };
    let (Some(axes), Some(steps)) = (axes, steps) else {
        // Axes or steps read when the model runs: the kernels' ranges.
        let r = x.len();
        let opt = |v: &Option<Vals>| v.as_ref().map_or("None".to_string(), |v| format!("Some({})", int_slice(v)));
        let name = format!("{}_sl", sc.tag);
        sc.lines.push(format!(
            "let {name}: [k::layout::SliceAxis; {r}] = k::shape::slice_ranges::<{r}>({:?}, {}, {}, {}, {}, {})?;",
            sc.what,
            Sz::slice(&x),
            int_slice(&starts),
            int_slice(&ends),
            opt(&axes_v),
            opt(&steps_v)
        ));
        return Ok((0..r).map(|j| Sz::Expr(format!("{name}[{j}].len"))).collect());
    };
    let mut y = x.clone();
    for i in 0..axes.len() {
        let k = axis(axes[i], x.len())?;
        y[k] = slice_len(sc, &x[k], &starts.int(i), &ends.int(i), steps[i]);
    }
    Ok(y)
}

fn pad(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let p = sc.need_vals(1, "pads")?;
    let axes: Vec<usize> = match sc.has(3) {
        true => {
            let v = sc.need_vals(3, "axes")?;
            let Some(a) = v.lit_ints() else {
                let r = x.len();
                let name = format!("{}_pd", sc.tag);
                sc.lines.push(format!(
                    "let (_, _, {name}) = k::shape::pad_amounts::<{r}>({:?}, {}, {}, Some({}))?;",
                    sc.what,
                    Sz::slice(&x),
                    int_slice(&p),
                    int_slice(&v)
                ));
                return Ok((0..r).map(|j| Sz::Expr(format!("{name}[{j}]"))).collect());
            };
            a.iter().map(|&k| axis(k, x.len())).collect::<Result<_, _>>()?
        }
        false => (0..x.len()).collect(),
    };
    let n = axes.len();
    let mut y = x.clone();
    for (i, &k) in axes.iter().enumerate() {
        y[k] = match (p.lit_int(i), p.lit_int(i + n)) {
            (Some(b), Some(e)) if b >= 0 && e >= 0 => &x[k] + (b + e) as usize,
            _ => {
                let what = sc.what.clone();
                sc.bind(format!("k::shape::nonneg({what:?}, {} as i64 + {} + {})?", x[k], p.int(i), p.int(i + n)))
            }
        };
    }
    Ok(y)
}

fn resize(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    let (scales, sizes) = match sc.op.opcode {
        Opcode::Upsample => (sc.vals(1), None),
        _ => (sc.has(2).then(|| sc.vals(2)).flatten(), sc.has(3).then(|| sc.vals(3)).flatten()),
    };
    let axes: Vec<usize> = match sc.op.attrs.ints("axes") {
        Some(a) => a.iter().map(|&k| axis(k, x.len())).collect::<Result<_, _>>()?,
        None => (0..x.len()).collect(),
    };
    if sc.op.attrs.str("keep_aspect_ratio_policy").is_some_and(|p| p != "stretch") {
        return Err("Resize with keep_aspect_ratio_policy on symbolic dims".into());
    }
    let mut y = x.clone();
    match (sizes.filter(|s| !s.is_empty()), scales.filter(|s| !s.is_empty())) {
        (Some(s), _) => {
            for (i, &k) in axes.iter().enumerate() {
                y[k] = match s.lit_int(i) {
                    Some(n) => Sz::Lit(n.max(0) as usize),
                    None => {
                        let what = sc.what.clone();
                        sc.bind(format!("k::shape::nonneg({what:?}, {})?", s.int(i)))
                    }
                };
            }
        }
        (None, Some(sc_)) => {
            for (i, &k) in axes.iter().enumerate() {
                y[k] = match (&sc_, x[k].lit()) {
                    (Vals::Lit(v), Some(n)) => Sz::Lit((n as f64 * v[i] as f32 as f64).floor().max(0.0) as usize),
                    (Vals::Lit(v), None) if v[i] == 1.0 => x[k].clone(),
                    (Vals::Lit(v), None) if v[i].fract() == 0.0 && v[i] >= 1.0 => &x[k] * (v[i] as usize),
                    (Vals::Lit(v), None) => sc.bind(format!("k::shape::scaled({}, {:?}f32)", x[k], v[i] as f32)),
                    (Vals::Floats(v), _) => sc.bind(format!("k::shape::scaled({}, {} as f32)", x[k], v[i])),
                    (Vals::Sym(_), _) => return Err("Resize scales computed when the model runs".into()),
                };
            }
        }
        (None, None) => return Err("Resize needs scales or sizes".into()),
    }
    Ok(y)
}

fn reduce(sc: &mut ShapeCx<'_>, axes: &[i64], keep: bool, noop_empty: bool) -> Result<Vec<Sz>, String> {
    let x = sc.dims(0)?.to_vec();
    if axes.is_empty() && noop_empty {
        return Ok(x);
    }
    let ax: Vec<usize> = if axes.is_empty() {
        (0..x.len()).collect()
    } else {
        axes.iter().map(|&k| axis(k, x.len())).collect::<Result<_, _>>()?
    };
    Ok(x.iter()
        .enumerate()
        .filter_map(|(i, d)| match (ax.contains(&i), keep) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(Sz::Lit(1)),
            (true, false) => None,
        })
        .collect())
}

/// Elements of a Range: `max(ceil((limit - start) / delta), 0)` in the
/// result's arithmetic (integers exactly, floats in f64 of their values).
fn range_len(sc: &mut ShapeCx<'_>) -> Result<Sz, String> {
    use edgec_kernels::generate::{range_len_float, range_len_int};
    let float = sc.f.ty(sc.op.results[0]).dtype.is_float();
    let v = [sc.need_vals(0, "start")?, sc.need_vals(1, "limit")?, sc.need_vals(2, "delta")?];
    if let [Vals::Lit(s), Vals::Lit(l), Vals::Lit(d)] = &v {
        let (s, l, d) = (s.first().copied(), l.first().copied(), d.first().copied());
        let (Some(s), Some(l), Some(d)) = (s, l, d) else { return Err("Range operands must hold one value".into()) };
        let n = match float {
            true => range_len_float(s, l, d),
            false => range_len_int(s as i64, l as i64, d as i64),
        };
        return n.map(Sz::Lit).map_err(|e| e.0);
    }
    if v.iter().any(Vals::is_empty) {
        return Err("Range operands must hold one value".into());
    }
    let e: Vec<String> = v
        .iter()
        .map(|x| match (x, float) {
            (Vals::Floats(f), true) => f[0].clone(),
            (Vals::Lit(l), true) => format!("{:?}f64", l[0]),
            (_, true) => format!("({} as f64)", x.int(0)),
            (_, false) => x.int(0),
        })
        .collect();
    let kind = if float { "float" } else { "int" };
    Ok(sc.bind(format!("k::generate::range_len_{kind}({}, {}, {})?", e[0], e[1], e[2])))
}

/// GatherND: `indices.shape[..-1] ++ data.shape[batch_dims + k..]` where
/// `k`, the index tuple length (the last dim of the indices), must be known
/// when generating; the batch dims of data and indices must agree.
fn gather_nd(sc: &mut ShapeCx<'_>) -> Result<Vec<Sz>, String> {
    let (x, i) = (sc.dims(0)?.to_vec(), sc.dims(1)?.to_vec());
    let b = usize::try_from(sc.int("batch_dims", 0)).map_err(|_| "GatherND: negative batch_dims")?;
    let k = i.last().and_then(Sz::lit).ok_or("GatherND: the index tuple length must be known when generating")?;
    if b >= i.len().min(x.len()) || k > x.len() - b {
        return Err(format!("GatherND: rank-{} indices with tuples of {k} do not fit rank-{} data", i.len(), x.len()));
    }
    for j in 0..b {
        if x[j] != i[j] {
            let what = sc.what.clone();
            sc.lines.push(format!("k::shape::same({what:?}, {}, {})?;", x[j], i[j]));
        }
    }
    Ok([&i[..i.len() - 1], &x[b + k..]].concat())
}
