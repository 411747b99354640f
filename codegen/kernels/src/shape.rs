//! Run-time shape arithmetic of models with symbolic dims: the size
//! formulas the compiler folds for static models, evaluated when the sizes
//! are known. Each function checks what ONNX requires of its operands and
//! returns an [`Error`] naming the op (`what`) otherwise.
//! Shared infrastructure: the shape formulas of ops of every family.

use crate::rt::Error;

/// The broadcast of dims `a` and `b` (numpy rules).
pub fn bcast(what: &str, a: usize, b: usize) -> Result<usize, Error> {
    match (a, b) {
        _ if a == b => Ok(a),
        (1, _) => Ok(b),
        (_, 1) => Ok(a),
        _ => Err(Error(format!("{what}: dims {a} and {b} do not broadcast"))),
    }
}

/// `Err` unless dim `axis` of `what` is `want` (a size the model declares or
/// the compiler derived).
pub fn expect(what: &str, axis: usize, got: usize, want: usize) -> Result<usize, Error> {
    if got == want {
        Ok(got)
    } else {
        Err(Error(format!("{what}: dim {axis} is {got}, the model declares {want}")))
    }
}

/// `Err` unless two occurrences of the symbolic dim `sym` agree.
pub fn same(sym: &str, a: usize, b: usize) -> Result<usize, Error> {
    if a == b {
        Ok(a)
    } else {
        Err(Error(format!("dim `{sym}` is {b} here but {a} on an earlier input")))
    }
}

/// Output size of a sliding window (conv, pooling) over `input` padded by
/// `pb` + `pe`: `floor((padded − dilated kernel) / stride) + 1`, or with
/// `ceil` the positions rounded up and a last window that would start in the
/// end padding dropped (ONNX pooling's `ceil_mode`). `Err` when the dilated
/// kernel does not fit the padded input.
#[allow(clippy::too_many_arguments)]
pub fn window(
    what: &str,
    input: usize,
    pb: usize,
    pe: usize,
    k: usize,
    stride: usize,
    dil: usize,
    ceil: bool,
) -> Result<usize, Error> {
    let ek = dil * (k.max(1) - 1) + 1;
    let padded = input + pb + pe;
    let Some(span) = padded.checked_sub(ek) else {
        return Err(Error(format!(
            "{what}: input size {input} plus pads {pb}+{pe} is smaller than the dilated kernel extent {ek}"
        )));
    };
    let s = stride.max(1);
    let positions = if ceil { span.div_ceil(s) } else { span / s };
    let dropped = ceil && positions * s >= input + pb;
    Ok(positions + 1 - dropped as usize)
}

pub use edgec_numeric::window::same_pads;

/// The shape a Reshape to `target` gives `input` (`0` copies the input dim
/// unless `allowzero`, one `-1` takes the rest), as an array of the rank the
/// model expects.
pub fn reshape<const R: usize>(
    what: &str,
    input: &[usize],
    target: &[i64],
    allowzero: bool,
) -> Result<[usize; R], Error> {
    if target.len() != R {
        return Err(Error(format!("{what}: cannot reshape {input:?} to {target:?}: the model expects rank {R}")));
    }
    let mut out = [0usize; R];
    reshape_into(what, input, target, allowzero, &mut out)?;
    Ok(out)
}

/// [`reshape`] into `out` (of `target`'s length).
pub fn reshape_into(
    what: &str,
    input: &[usize],
    target: &[i64],
    allowzero: bool,
    out: &mut [usize],
) -> Result<(), Error> {
    let bad = |why: String| Error(format!("{what}: cannot reshape {input:?} to {target:?}: {why}"));
    let total: usize = input.iter().product();
    let mut infer = None;
    let mut known = 1usize;
    for (i, &t) in target.iter().enumerate() {
        out[i] = match t {
            -1 if infer.is_none() => {
                infer = Some(i);
                1
            }
            0 if !allowzero => *input.get(i).ok_or_else(|| bad(format!("0 at axis {i} copies no input dim")))?,
            t if t >= 0 => t as usize,
            _ => return Err(bad(format!("bad target dim {t}"))),
        };
        if infer != Some(i) {
            known *= out[i];
        }
    }
    match infer {
        Some(i) if known > 0 && total.is_multiple_of(known) => out[i] = total / known,
        Some(_) => return Err(bad("the sizes do not divide".into())),
        None if known != total => return Err(bad(format!("{total} elements in, {known} out"))),
        None => {}
    }
    Ok(())
}

/// Axes given as values (a Reduce or Squeeze `axes` input): normalized,
/// sorted and deduplicated, at most 8.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Axes {
    a: [usize; 8],
    n: usize,
}

impl Axes {
    /// The axes `vals` of a rank-`rank` tensor; an empty list means every
    /// axis, or none when `noop_empty` (ONNX `noop_with_empty_axes`).
    pub fn new(what: &str, vals: &[i64], rank: usize, noop_empty: bool) -> Result<Axes, Error> {
        let mut out = Axes { a: [0; 8], n: 0 };
        if vals.is_empty() && !noop_empty {
            out.n = rank.min(8);
            for (i, a) in out.a.iter_mut().enumerate().take(out.n) {
                *a = i;
            }
            return Ok(out);
        }
        for &v in vals {
            let r = rank as i64;
            let x = if v < 0 { v + r } else { v };
            if !(0..r).contains(&x) {
                return Err(Error(format!("{what}: axis {v} is out of range for rank {rank}")));
            }
            if !out.a[..out.n].contains(&(x as usize)) {
                if out.n == 8 {
                    return Err(Error(format!("{what}: more than 8 axes")));
                }
                out.a[out.n] = x as usize;
                out.n += 1;
            }
        }
        out.a[..out.n].sort_unstable();
        Ok(out)
    }
    /// The axes.
    pub fn as_slice(&self) -> &[usize] {
        &self.a[..self.n]
    }
}

/// `floor(input × scale)`, the output size of a Resize by `scale`.
pub fn scaled(input: usize, scale: f32) -> usize {
    (input as f64 * scale as f64).floor().max(0.0) as usize
}

/// The dim an ONNX shape-parameter value gives (`what` names the op): a
/// negative entry is an error.
pub fn nonneg(what: &str, v: i64) -> Result<usize, Error> {
    usize::try_from(v).map_err(|_| Error(format!("{what}: size {v} is negative")))
}

/// An axis read when the model runs (`what` names the op): `a` in
/// `[-rank, rank)`, negative counting from the end.
pub fn axis(what: &str, a: i64, rank: usize) -> Result<usize, Error> {
    edgec_numeric::axis::normalize_axis(a, rank)
        .ok_or_else(|| Error(format!("{what}: axis {a} is out of range for rank {rank}")))
}

fn rank_error(what: &str, got: usize, want: usize) -> Error {
    Error(format!("{what}: the axes give a rank-{got} result, the model declares rank {want}"))
}

/// Dims of a reduction of `dims` over `axes` (each reduced dim kept as 1,
/// or dropped), as many as the rank `R` the model's IR gives the result.
pub fn reduced<const R: usize>(what: &str, dims: &[usize], axes: &Axes, keep: bool) -> Result<[usize; R], Error> {
    let mut out = [0; R];
    let mut n = 0;
    for (i, &d) in dims.iter().enumerate() {
        let r = axes.as_slice().contains(&i);
        if r && !keep {
            continue;
        }
        if n < R {
            out[n] = if r { 1 } else { d };
        }
        n += 1;
    }
    if n != R {
        return Err(rank_error(what, n, R));
    }
    Ok(out)
}

/// Dims of a Squeeze of `dims` over the run-time `axes` (all size-1 dims
/// when empty); every squeezed dim must be 1.
pub fn squeezed<const R: usize>(what: &str, dims: &[usize], axes: &[i64]) -> Result<[usize; R], Error> {
    let ax = Axes::new(what, axes, dims.len(), true)?;
    let gone = |i: usize| if axes.is_empty() { dims[i] == 1 } else { ax.as_slice().contains(&i) };
    if let Some(&i) = ax.as_slice().iter().find(|&&i| dims[i] != 1) {
        return Err(Error(format!("{what}: axis {i} has size {}, not 1", dims[i])));
    }
    let mut out = [0; R];
    let mut n = 0;
    for (_, &d) in dims.iter().enumerate().filter(|&(i, _)| !gone(i)) {
        if n < R {
            out[n] = d;
        }
        n += 1;
    }
    if n != R {
        return Err(rank_error(what, n, R));
    }
    Ok(out)
}

/// Dims of an Unsqueeze of `dims` inserting size-1 dims at the run-time
/// `axes` (positions in the result, no repeats).
pub fn unsqueezed<const R: usize>(what: &str, dims: &[usize], axes: &[i64]) -> Result<[usize; R], Error> {
    if dims.len() + axes.len() != R {
        return Err(rank_error(what, dims.len() + axes.len(), R));
    }
    let ax = Axes::new(what, axes, R, true)?;
    if ax.as_slice().len() != axes.len() {
        return Err(Error(format!("{what}: repeated axes {axes:?}")));
    }
    let mut it = dims.iter();
    let mut out = [1; R];
    for (i, o) in out.iter_mut().enumerate() {
        if !ax.as_slice().contains(&i) {
            *o = it.next().copied().unwrap_or(1);
        }
    }
    Ok(out)
}

/// The per-dim ranges of an ONNX Slice with run-time `starts`, `ends`,
/// `axes` (`None`: the first dims) and `steps` (`None`: all 1).
pub fn slice_ranges<const R: usize>(
    what: &str,
    dims: &[usize],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Result<[crate::layout::SliceAxis; R], Error> {
    use crate::layout::{slice_axis, SliceAxis};
    if dims.len() != R {
        return Err(rank_error(what, dims.len(), R));
    }
    let n = starts.len();
    if ends.len() != n || axes.is_some_and(|a| a.len() != n) || steps.is_some_and(|s| s.len() != n) {
        return Err(Error(format!("{what}: starts, ends, axes and steps differ in length")));
    }
    let mut out = [SliceAxis { start: 0, step: 1, len: 0 }; R];
    for (o, &d) in out.iter_mut().zip(dims) {
        o.len = d;
    }
    let mut seen = [false; R];
    for i in 0..n {
        let k = axis(what, axes.map_or(i as i64, |a| a[i]), R)?;
        let step = steps.map_or(1, |s| s[i]);
        if step == 0 {
            return Err(Error(format!("{what}: step 0 on axis {k}")));
        }
        if std::mem::replace(&mut seen[k], true) {
            return Err(Error(format!("{what}: axis {k} is sliced twice")));
        }
        out[k] = slice_axis(dims[k], starts[i], ends[i], step);
    }
    Ok(out)
}

/// Begin and end padding per dim, and the padded dims.
pub type PadAmounts<const R: usize> = ([isize; R], [isize; R], [usize; R]);

/// Begin and end padding per dim of an ONNX Pad with run-time `pads`
/// (`[begins..., ends...]`) over `axes` (`None`: every dim), and the
/// padded dims; a dim may shrink (negative pads) but not below 0.
pub fn pad_amounts<const R: usize>(
    what: &str,
    dims: &[usize],
    pads: &[i64],
    axes: Option<&[i64]>,
) -> Result<PadAmounts<R>, Error> {
    if dims.len() != R {
        return Err(rank_error(what, dims.len(), R));
    }
    let n = axes.map_or(R, <[i64]>::len);
    if pads.len() != 2 * n {
        return Err(Error(format!("{what}: {} pads for {n} axes", pads.len())));
    }
    let (mut b, mut e, mut y) = ([0isize; R], [0isize; R], [0usize; R]);
    for i in 0..n {
        let k = axis(what, axes.map_or(i as i64, |a| a[i]), R)?;
        (b[k], e[k]) = (pads[i] as isize, pads[i + n] as isize);
    }
    for k in 0..R {
        y[k] = nonneg(what, dims[k] as i64 + b[k] as i64 + e[k] as i64)?;
    }
    Ok((b, e, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows() {
        assert_eq!(window("c", 224, 1, 1, 3, 2, 1, false), Ok(112));
        assert_eq!(window("p", 5, 0, 0, 2, 2, 1, true), Ok(3));
        assert_eq!(window("p", 4, 1, 1, 2, 2, 1, true), Ok(3));
        assert_eq!(window("p", 6, 0, 0, 2, 2, 1, true), Ok(3));
        assert!(window("c", 2, 0, 0, 3, 1, 1, false).is_err());
    }

    #[test]
    fn reshapes_resolve_zero_and_minus_one() {
        assert_eq!(reshape::<3>("r", &[2, 3, 4], &[0, -1, 2], false), Ok([2, 6, 2]));
        assert_eq!(reshape::<2>("r", &[2, 3, 4], &[4, 6], false), Ok([4, 6]));
        assert!(reshape::<2>("r", &[2, 3, 4], &[5, -1], false).is_err());
        assert!(reshape::<2>("r", &[2, 3, 4], &[4, 5], false).is_err());
    }

    #[test]
    fn run_time_axes() {
        let ax = Axes::new("r", &[-1, 0], 3, false).unwrap();
        assert_eq!(reduced::<3>("r", &[2, 3, 4], &ax, true), Ok([1, 3, 1]));
        assert_eq!(reduced::<1>("r", &[2, 3, 4], &ax, false), Ok([3]));
        assert!(reduced::<2>("r", &[2, 3, 4], &ax, false).is_err());
        assert_eq!(squeezed::<2>("s", &[2, 1, 4], &[1]), Ok([2, 4]));
        assert_eq!(squeezed::<1>("s", &[1, 1, 4], &[]), Ok([4]));
        assert!(squeezed::<2>("s", &[2, 3, 4], &[1]).is_err());
        assert_eq!(unsqueezed::<4>("u", &[2, 3], &[0, -1]), Ok([1, 2, 3, 1]));
        assert!(unsqueezed::<4>("u", &[2, 3], &[1, 1]).is_err());
        let r = slice_ranges::<2>("s", &[5, 6], &[1], &[-1], Some(&[1]), Some(&[2])).unwrap();
        assert_eq!((r[0].len, r[1].start, r[1].len), (5, 1, 2));
        assert!(slice_ranges::<2>("s", &[5, 6], &[0], &[1], Some(&[0]), Some(&[0])).is_err());
        assert!(slice_ranges::<2>("s", &[5, 6], &[0, 0], &[1, 1], Some(&[0, -2]), None).is_err());
        assert_eq!(pad_amounts::<2>("p", &[2, 3], &[1, -1], Some(&[1])), Ok(([0, 1], [0, -1], [2, 3])));
        assert!(pad_amounts::<2>("p", &[2, 3], &[0, 0, -3, 0], None).is_err());
    }
}
