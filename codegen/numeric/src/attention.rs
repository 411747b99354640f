//! The state update of linear attention, in f32 like the ONNX reference.

/// One token's update of a `[dk, dv]` row-major state `s` of one batch entry
/// and KV head: decay (`s[d, ..] *= exp(g[d])`, or `exp(g[0])` unless
/// `per_dim`), delta correction (`v = beta (v − sᵀ k)`, `v` overwritten), then
/// the write `s += k vᵀ`.
pub fn linear_update(
    s: &mut [f32],
    (dk, dv): (usize, usize),
    kt: &[f32],
    v: &mut [f32],
    decay: Option<(&[f32], bool)>,
    beta: Option<f32>,
) {
    if let Some((g, per_dim)) = decay {
        for d in 0..dk {
            let e = g[if per_dim { d } else { 0 }].exp();
            s[d * dv..(d + 1) * dv].iter_mut().for_each(|x| *x *= e);
        }
    }
    if let Some(beta) = beta {
        for (m, vm) in v.iter_mut().enumerate() {
            let retrieved: f32 = (0..dk).map(|d| s[d * dv + m] * kt[d]).sum();
            *vm = beta * (*vm - retrieved);
        }
    }
    for d in 0..dk {
        for m in 0..dv {
            s[d * dv + m] += kt[d] * v[m];
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn delta_rule_write() {
        let mut s = [1.0, 0.0, 0.0, 1.0];
        let mut v = [2.0, 3.0];
        super::linear_update(&mut s, (2, 2), &[1.0, 0.0], &mut v, None, Some(1.0));
        assert_eq!(v, [1.0, 3.0]);
        assert_eq!(s, [2.0, 3.0, 0.0, 1.0]);
    }
}
