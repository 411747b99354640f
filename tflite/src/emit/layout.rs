//! NCHW → NHWC: every rank-4 activation of the module is stored NHWC in the
//! TFLite graph (what TFLite's spatial kernels and Vela read), every other
//! rank as it is. Axes, shapes and constant data are mapped here; where an
//! op needs the NCHW element order of a rank-4 tensor (a Reshape that moves
//! channels and pixels across each other), the emitter inserts a TRANSPOSE
//! and reports it.

/// `perm[i]` is the NCHW axis stored at NHWC position `i`.
pub const TO_NHWC: [usize; 4] = [0, 2, 3, 1];

/// The default layout of a value of rank `rank`: NHWC for rank 4, the
/// value's own order otherwise (`perm[i]` is the axis stored at `i`).
pub fn default_perm(rank: usize) -> Vec<usize> {
    if rank == 4 {
        TO_NHWC.to_vec()
    } else {
        (0..rank).collect()
    }
}

/// The stored shape of a value of shape `dims`.
pub fn stored(dims: &[usize]) -> Vec<usize> {
    if dims.len() == 4 {
        TO_NHWC.iter().map(|&a| dims[a]).collect()
    } else {
        dims.to_vec()
    }
}

/// Axis `axis` (negative counts from the end) of a rank-`rank` value as a
/// value axis in `0..rank`; `None` if out of range.
pub fn value_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    (-r..r).contains(&axis).then(|| axis.rem_euclid(r) as usize)
}

/// The stored position of axis `axis` (negative counts from the end) of a
/// rank-`rank` value in the default layout; `None` if out of range.
pub fn stored_axis(axis: i64, rank: usize) -> Option<usize> {
    let a = value_axis(axis, rank)?;
    Some(if rank == 4 { TO_NHWC.iter().position(|&x| x == a).unwrap_or(a) } else { a })
}

/// `data` (row-major elements of `elem` bytes, shape `dims`) with its axes
/// permuted: result axis `i` is input axis `perm[i]`.
pub fn permute(data: &[u8], elem: usize, dims: &[usize], perm: &[usize]) -> Vec<u8> {
    let rank = dims.len();
    let n: usize = dims.iter().product();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let mut out = Vec::with_capacity(n * elem);
    let mut idx = vec![0usize; rank];
    for _ in 0..n {
        let src: usize = idx.iter().zip(perm).map(|(&i, &p)| i * strides[p]).sum();
        out.extend_from_slice(&data[src * elem..(src + 1) * elem]);
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < out_dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// The ONNX pads (`[begin..., end...]`) of SAME_UPPER, which are TFLite's
/// SAME: the odd row or column after.
pub fn same_pads(input: &[usize], kernel: &[usize], strides: &[usize], dil: &[usize]) -> Vec<usize> {
    let n = input.len();
    let mut pads = vec![0; 2 * n];
    for i in 0..n {
        (pads[i], pads[n + i]) = edgec_numeric::window::same_pads(input[i], kernel[i], strides[i], dil[i], false);
    }
    pads
}

/// How a window's padding is written in TFLite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// TFLite's SAME (the extra row or column after).
    Same,
    /// No padding.
    Valid,
    /// Neither: an explicit PAD before a VALID window.
    Explicit,
}

/// The padding of a window over spatial sizes `input` with kernel, strides,
/// dilations and ONNX pads (`[begin..., end...]`), given the output sizes.
pub fn padding(
    input: &[usize],
    kernel: &[usize],
    strides: &[usize],
    dil: &[usize],
    pads: &[usize],
    out: &[usize],
) -> Padding {
    let n = input.len();
    if pads.iter().all(|&p| p == 0) {
        return Padding::Valid;
    }
    let same = (0..n).all(|i| input[i].div_ceil(strides[i]) == out[i]);
    if same && same_pads(input, kernel, strides, dil) == pads {
        Padding::Same
    } else {
        Padding::Explicit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_nchw_to_nhwc() {
        // [1, 2, 2, 3]: element value = its NCHW linear index.
        let dims = [1, 2, 2, 3];
        let data: Vec<u8> = (0..12).collect();
        let out = permute(&data, 1, &dims, &TO_NHWC);
        // NHWC [1, 2, 3, 2]: (h, w, c) holds c*6 + h*3 + w.
        assert_eq!(out, vec![0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]);
        assert_eq!(permute(&out, 1, &stored(&dims), &[0, 3, 1, 2]), data);
    }

    #[test]
    fn axes_map_to_nhwc() {
        assert_eq!(stored_axis(1, 4), Some(3));
        assert_eq!(stored_axis(-1, 4), Some(2));
        assert_eq!(stored_axis(2, 4), Some(1));
        assert_eq!(stored_axis(1, 2), Some(1));
        assert_eq!(stored_axis(4, 4), None);
    }

    #[test]
    fn same_valid_and_explicit_padding() {
        // 3x3 stride 1 pad 1: SAME.
        assert_eq!(padding(&[8, 8], &[3, 3], &[1, 1], &[1, 1], &[1, 1, 1, 1], &[8, 8]), Padding::Same);
        // 3x3 stride 2 pad 1 on an even size: SAME pads (0, 1), ONNX (1, 1).
        assert_eq!(padding(&[8, 8], &[3, 3], &[2, 2], &[1, 1], &[1, 1, 1, 1], &[4, 4]), Padding::Explicit);
        // ... on an odd size SAME pads (1, 1).
        assert_eq!(padding(&[9, 9], &[3, 3], &[2, 2], &[1, 1], &[1, 1, 1, 1], &[5, 5]), Padding::Same);
        assert_eq!(padding(&[8, 8], &[2, 2], &[2, 2], &[1, 1], &[0, 0, 0, 0], &[4, 4]), Padding::Valid);
    }
}
