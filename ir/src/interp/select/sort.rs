//! Order-based kernels: TopK and Unique. Elements compare numerically (NaN
//! greater than every number, equal to itself) and strings lexicographically
//! by bytes; ties are always broken by the lower index.

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{keys, numel, scalar_int, to_wide, unravel, Key};
use crate::interp::{Data, EvalCtx, Tensor};
use std::cmp::Ordering;

type Out = Result<Vec<Tensor>, String>;

/// `onnx.TopK`: the `K` largest (or smallest) entries along `axis` and their
/// indices, in sorted order; equal values keep index order. (`sorted = 0` leaves the
/// order unspecified, so the sorted order is returned then too.)
pub fn top_k(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let k = scalar_int(ctx.input(1)?, "K")?;
    let ax = norm_axis(ctx.int("axis", -1), x.rank())?;
    let n = x.shape[ax];
    if k < 0 || k as usize > n {
        return Err(format!("`K` {k} is out of range for axis {ax} of size {n}"));
    }
    let k = k as usize;
    let vals = to_wide(&x.data)?;
    let largest = ctx.int("largest", 1) != 0;
    let mut shape = x.shape.clone();
    shape[ax] = k;
    let (outer, inner) = (numel(&x.shape[..ax]), numel(&x.shape[ax + 1..]));
    let (mut map, mut indices) = (vec![0; numel(&shape)], vec![0i64; numel(&shape)]);
    for o in 0..outer {
        for i in 0..inner {
            let flat = |j: usize| (o * n + j) * inner + i;
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| {
                let c = vals[flat(a)].cmp_total(vals[flat(b)]);
                if largest {
                    c.reverse()
                } else {
                    c
                }
            });
            for (slot, &j) in order.iter().take(k).enumerate() {
                let out = (o * k + slot) * inner + i;
                (map[out], indices[out]) = (flat(j), j as i64);
            }
        }
    }
    let values = Tensor::new(shape.clone(), x.data.gather(&map));
    Ok(vec![values, Tensor::new(shape, Data::I64(indices))])
}

/// Lexicographic order of two key sequences.
fn cmp_keys(a: &[Key], b: &[Key]) -> Ordering {
    a.iter().zip(b).map(|(x, y)| x.order(y)).find(|c| c.is_ne()).unwrap_or(a.len().cmp(&b.len()))
}

/// The items Unique compares: single elements, or whole slices along `axis`.
/// Returns the key of each item and, per item, the flat data indices it covers.
fn unique_items(x: &Tensor, axis: Option<usize>) -> (Vec<Vec<Key>>, Vec<Vec<usize>>) {
    let all = keys(&x.data);
    let Some(ax) = axis else {
        return (all.into_iter().map(|k| vec![k]).collect(), (0..x.len()).map(|i| vec![i]).collect());
    };
    let mut members = vec![Vec::new(); x.shape[ax]];
    for f in 0..x.len() {
        members[unravel(f, &x.shape)[ax]].push(f);
    }
    let item_keys = members.iter().map(|m| m.iter().map(|&f| all[f].clone()).collect()).collect();
    (item_keys, members)
}

/// `onnx.Unique`: the distinct elements (or slices along `axis`), sorted or in
/// order of first occurrence, with first-occurrence `indices`, `inverse_indices`
/// and `counts` as further optional results.
pub fn unique(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let axis = ctx.attrs.int("axis").map(|a| norm_axis(a, x.rank())).transpose()?;
    let (item_keys, members) = unique_items(x, axis);
    let n = item_keys.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp_keys(&item_keys[a], &item_keys[b]));
    // Groups of equal items; the first member of each is its first occurrence.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in &order {
        match groups.last_mut() {
            Some(g) if cmp_keys(&item_keys[g[0]], &item_keys[i]).is_eq() => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    if ctx.int("sorted", 1) == 0 {
        groups.sort_by_key(|g| g[0]);
    }
    let mut inverse = vec![0i64; n];
    for (gi, g) in groups.iter().enumerate() {
        g.iter().for_each(|&i| inverse[i] = gi as i64);
    }
    let map: Vec<usize> = groups.iter().flat_map(|g| members[g[0]].iter().copied()).collect();
    let shape = match axis {
        None => vec![groups.len()],
        Some(ax) => {
            let mut s = x.shape.clone();
            s[ax] = groups.len();
            s
        }
    };
    // Slices along `axis` were collected in row-major order; put them back in place.
    let y = match axis {
        Some(ax) if ax > 0 => regroup(x, &map, &shape, ax),
        _ => x.data.gather(&map),
    };
    let first: Vec<i64> = groups.iter().map(|g| g[0] as i64).collect();
    let counts: Vec<i64> = groups.iter().map(|g| g.len() as i64).collect();
    let outs = [Tensor::new(shape, y), Tensor::from_i64s(first), Tensor::from_i64s(inverse), Tensor::from_i64s(counts)];
    Ok(outs.into_iter().take(ctx.num_results().max(1)).collect())
}

/// The Unique result along `ax > 0`: `map` lists the chosen slices one after another.
fn regroup(x: &Tensor, map: &[usize], shape: &[usize], ax: usize) -> Data {
    let slice = x.len() / x.shape[ax].max(1);
    let idx: Vec<usize> = (0..numel(shape))
        .map(|f| {
            let mut c = unravel(f, shape);
            let item = std::mem::replace(&mut c[ax], 0);
            // Position of this element inside its slice, in row-major order without `ax`.
            c.remove(ax);
            let mut rest = x.shape.clone();
            rest.remove(ax);
            map[item * slice + crate::interp::tensor::wide::ravel(&c, &crate::interp::strides(&rest))]
        })
        .collect();
    x.data.gather(&idx)
}
