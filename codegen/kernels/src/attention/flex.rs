//! FlexAttention in f64 (without `score_mod`/`prob_mod`): direct loops with
//! the reference interpreter's summation order (sequential from 0), so the
//! results match it within an f64 rounding. Nothing is allocated: the caller
//! hands in the score row as scratch.

/// The geometry of a FlexAttention: `Q [b, hq, l, e]`, `K [b, hkv, s, e]`,
/// `V [b, hkv, s, ev]`, `Y [b, hq, l, ev]`.
#[derive(Copy, Clone, Debug)]
pub struct Flex {
    /// Batch.
    pub b: usize,
    /// Query heads (a multiple of `hkv`).
    pub hq: usize,
    /// Query length.
    pub l: usize,
    /// Query/key head size.
    pub e: usize,
    /// Key/value heads.
    pub hkv: usize,
    /// Key/value length.
    pub s: usize,
    /// Value head size.
    pub ev: usize,
    /// `scale` (Q and K are each multiplied by `sqrt(scale)`, the root taken in f32).
    pub scale: f32,
}

/// f64 FlexAttention without `score_mod`/`prob_mod` (softmax in f64); `row`
/// is scratch of `s` values.
pub fn flex_attention(p: &Flex, q: &[f64], k: &[f64], v: &[f64], row: &mut [f64], y: &mut [f64]) {
    let Flex { b, hq, l, e, hkv, s, ev, .. } = *p;
    assert!(hkv > 0 && hq % hkv == 0, "FlexAttention: {hq} query heads for {hkv} key/value heads");
    assert_eq!(q.len(), b * hq * l * e, "FlexAttention: Q holds {} values", q.len());
    assert_eq!(k.len(), b * hkv * s * e, "FlexAttention: K holds {} values", k.len());
    assert_eq!(v.len(), b * hkv * s * ev, "FlexAttention: V holds {} values", v.len());
    assert_eq!(y.len(), b * hq * l * ev, "FlexAttention: Y holds {} values", y.len());
    let row = &mut row[..s];
    let ss = p.scale.sqrt() as f64;
    let group = hq / hkv;
    for bi in 0..b {
        for h in 0..hq {
            let kvh = bi * hkv + h / group;
            for i in 0..l {
                let qr = &q[((bi * hq + h) * l + i) * e..][..e];
                for (j, r) in row.iter_mut().enumerate() {
                    let kr = &k[(kvh * s + j) * e..][..e];
                    *r = (0..e).fold(0.0, |acc, x| acc + (qr[x] * ss) * (kr[x] * ss));
                }
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                row.iter_mut().for_each(|x| *x = (*x - max).exp());
                let sum = row.iter().fold(0.0, |acc, &x| acc + x);
                row.iter_mut().for_each(|x| *x /= sum);
                let out = &mut y[((bi * hq + h) * l + i) * ev..][..ev];
                for (m, o) in out.iter_mut().enumerate() {
                    *o = (0..s).fold(0.0, |acc, j| acc + row[j] * v[(kvh * s + j) * ev + m]);
                }
            }
        }
    }
}
