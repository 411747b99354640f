//! Run-time shape arithmetic of models with symbolic dims: the size
//! formulas the compiler folds for static models, evaluated when the sizes
//! are known. Each function checks what ONNX requires of its operands and
//! returns an [`Error`] naming the op (`what`) otherwise.

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

/// `(begin, end)` padding of `auto_pad` SAME_UPPER (`lower` false) or
/// SAME_LOWER for an output of `ceil(input / stride)`.
pub fn same_pads(input: usize, k: usize, stride: usize, dil: usize, lower: bool) -> (usize, usize) {
    let out = input.div_ceil(stride.max(1));
    let need = (out.saturating_sub(1)) * stride + (k.max(1) - 1) * dil + 1;
    let total = need.saturating_sub(input);
    let small = total / 2;
    if lower {
        (total - small, small)
    } else {
        (small, total - small)
    }
}

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
    let r = rank as i64;
    let x = if a < 0 { a + r } else { a };
    if (0..r).contains(&x) {
        Ok(x as usize)
    } else {
        Err(Error(format!("{what}: axis {a} is out of range for rank {rank}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_same_padding() {
        assert_eq!(window("c", 224, 1, 1, 3, 2, 1, false), Ok(112));
        assert_eq!(window("p", 5, 0, 0, 2, 2, 1, true), Ok(3));
        assert_eq!(window("p", 4, 1, 1, 2, 2, 1, true), Ok(3));
        assert_eq!(window("p", 6, 0, 0, 2, 2, 1, true), Ok(3));
        assert!(window("c", 2, 0, 0, 3, 1, 1, false).is_err());
        assert_eq!(same_pads(5, 3, 2, 1, false), (1, 1));
        assert_eq!(same_pads(6, 3, 2, 1, false), (0, 1));
        assert_eq!(same_pads(6, 3, 2, 1, true), (1, 0));
    }

    #[test]
    fn reshapes_resolve_zero_and_minus_one() {
        assert_eq!(reshape::<3>("r", &[2, 3, 4], &[0, -1, 2], false), Ok([2, 6, 2]));
        assert_eq!(reshape::<2>("r", &[2, 3, 4], &[4, 6], false), Ok([4, 6]));
        assert!(reshape::<2>("r", &[2, 3, 4], &[5, -1], false).is_err());
        assert!(reshape::<2>("r", &[2, 3, 4], &[4, 5], false).is_err());
    }
}
