//! Numpy broadcasting and axis helpers shared by the kernels. Infrastructure:
//! kernels of many families (elementwise, quant, linalg, norm, layout, index,
//! strings, ...) broadcast operands or normalize `axis` attributes alike.

/// The numpy broadcast of several shapes, or an error naming them.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(format!("shapes {shapes:?} do not broadcast"));
            }
        }
    }
    Ok(out)
}

/// For each flat index of `out_shape`, the flat index of the element of a
/// tensor of shape `in_shape` that broadcasts to it.
pub fn broadcast_map(in_shape: &[usize], out_shape: &[usize]) -> Vec<usize> {
    let n: usize = out_shape.iter().product();
    if in_shape == out_shape {
        return (0..n).collect();
    }
    let rank = out_shape.len();
    let off = rank - in_shape.len();
    // Input stride per output axis; 0 where the input is broadcast.
    let in_strides = super::strides(in_shape);
    let mut step = vec![0usize; rank];
    for i in 0..in_shape.len() {
        step[off + i] = if in_shape[i] == 1 { 0 } else { in_strides[i] };
    }
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; rank];
    let mut flat = 0usize;
    for _ in 0..n {
        out.push(flat);
        for ax in (0..rank).rev() {
            idx[ax] += 1;
            flat += step[ax];
            if idx[ax] < out_shape[ax] {
                break;
            }
            flat -= step[ax] * idx[ax];
            idx[ax] = 0;
        }
    }
    out
}

/// Normalize a possibly negative axis into `0..rank`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    edgec_numeric::axis::normalize_axis(axis, rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_map_matches_manual_indexing() {
        // [3,1] broadcast to [2,3,4]: element (i,j,k) reads input (j,0).
        let m = broadcast_map(&[3, 1], &[2, 3, 4]);
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    assert_eq!(m[i * 12 + j * 4 + k], j);
                }
            }
        }
        assert_eq!(broadcast_shapes(&[&[2, 1, 4], &[3, 1]]).unwrap(), vec![2, 3, 4]);
        assert!(broadcast_shapes(&[&[2], &[3]]).is_err());
        assert_eq!(broadcast_map(&[], &[2, 2]), vec![0, 0, 0, 0]);
    }
}
