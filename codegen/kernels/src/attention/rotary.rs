//! `onnx.RotaryEmbedding` (opset 23): rotate the first `rot` features of
//! every head by the cached cos/sin values of its position. The pairs are
//! `(j, j + rot/2)` (halves) or `(2j, 2j + 1)` (interleaved), `j < rot/2`:
//! `x1' = cos·x1 − sin·x2`, `x2' = sin·x1 + cos·x2`; features past `rot`
//! are copied.

/// Layout and sizes, resolved at compile time. Invariants (asserted):
/// `rot` even and `≤ head`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rotary {
    /// Batch size.
    pub batch: usize,
    /// Sequence length.
    pub seq: usize,
    /// Heads.
    pub heads: usize,
    /// Features per head.
    pub head: usize,
    /// Rotated features per head.
    pub rot: usize,
    /// Pairs are adjacent features (else the two halves of `rot`).
    pub interleaved: bool,
    /// X is `[B, H, S, D]` (else `[B, S, H·D]`).
    pub four_d: bool,
}

/// Apply the rotation (see the module docs). `cos` and `sin` hold rows of
/// `rot / 2` values: with `positions` (`[B·S]`) the row of each
/// `(batch, position)` is its position id (which must index a row; a bad id
/// panics), without them row `b·S + s` (a `[B, S, rot/2]` cache).
pub fn rotary_embedding(p: &Rotary, x: &[f32], cos: &[f32], sin: &[f32], positions: Option<&[i64]>, y: &mut [f32]) {
    let half = p.rot / 2;
    assert!(p.rot.is_multiple_of(2) && p.rot <= p.head, "rotary dim {} of head size {}", p.rot, p.head);
    assert_eq!(x.len(), p.batch * p.seq * p.heads * p.head, "rotary X length");
    assert_eq!(y.len(), x.len(), "rotary Y length");
    assert_eq!(cos.len(), sin.len(), "rotary cos/sin caches differ in length");
    assert!(positions.is_none_or(|ps| ps.len() == p.batch * p.seq), "rotary position_ids length");
    y.copy_from_slice(x);
    if half == 0 {
        return;
    }
    let rows = cos.len() / half;
    assert!(
        positions.is_some() || rows >= p.batch * p.seq,
        "rotary cache has {rows} rows for {} positions",
        p.batch * p.seq
    );
    for b in 0..p.batch {
        for s in 0..p.seq {
            let row = match positions {
                Some(ps) => {
                    let r = ps[b * p.seq + s];
                    usize::try_from(r)
                        .ok()
                        .filter(|&r| r < rows)
                        .unwrap_or_else(|| panic!("position id {r} is out of range"))
                }
                None => b * p.seq + s,
            };
            let (c, sn) = (&cos[row * half..(row + 1) * half], &sin[row * half..(row + 1) * half]);
            for h in 0..p.heads {
                let at = if p.four_d {
                    ((b * p.heads + h) * p.seq + s) * p.head
                } else {
                    ((b * p.seq + s) * p.heads + h) * p.head
                };
                rotate(p.interleaved, &x[at..at + p.rot], c, sn, &mut y[at..at + p.rot]);
            }
        }
    }
}

/// Rotate the `rot` features of one head.
fn rotate(interleaved: bool, x: &[f32], c: &[f32], s: &[f32], y: &mut [f32]) {
    let half = c.len();
    for j in 0..half {
        let (i1, i2) = if interleaved { (2 * j, 2 * j + 1) } else { (j, j + half) };
        let (x1, x2) = (x[i1], x[i2]);
        y[i1] = c[j] * x1 - s[j] * x2;
        y[i2] = s[j] * x1 + c[j] * x2;
    }
}
