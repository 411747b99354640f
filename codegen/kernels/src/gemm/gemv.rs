//! Products with a single row or column against a packed operand (or a
//! row against a B that is not packed): each panel is read once, in its
//! own order, with the panel's `R` sums in registers. (The driver would pad
//! the single row or column to a whole micro-kernel tile and compute `MR`
//! or `NR` times the work: a linear layer on one token, a squeeze-excite
//! conv on a 1×1 map.)
//!
//! Both packed layouts store a panel as `k` consecutive groups of `R`
//! values (`R` rows of A or columns of B at one depth), so both products
//! are `out[r] = Σ_l panel[l·R + r] · x[l]`.

use super::pack::{PackedA, PackedB};

/// Partial sums per panel lane kept apart (each lane's adds form
/// `CHAINS` independent chains, which overlap instead of waiting on each
/// other).
const CHAINS: usize = 4;

crate::multiversion! {
    /// `c[j] = Σ_l x[l]·B[l][j]` for the `n` columns of `b` (`x`: `k` values).
    pub(crate) fn row_times_packed_b(x: &[f32], b: &PackedB, c: &mut [f32]) {
        let (k, n, nr) = (b.k(), b.n(), b.nr());
        for (p, out) in c[..n].chunks_mut(nr).enumerate() {
            let panel = &b.data()[p * nr * k..(p + 1) * nr * k];
            panel_sums(panel, nr, x, out);
        }
    }
}

crate::multiversion! {
    /// `c[i·ldc] = Σ_l A[i][l]·x[l]` for the `m` rows of `a` (`x`: `k` values).
    pub(crate) fn packed_a_times_col(a: &PackedA, x: &[f32], c: &mut [f32], ldc: usize) {
        let (m, k, mr) = (a.m(), a.k(), a.mr());
        let mut sums = [0f32; MAX_R];
        for (p, r0) in (0..m).step_by(mr).enumerate() {
            // The last panel holds the remaining rows only.
            let rows = mr.min(m - r0);
            let panel = &a.data()[p * mr * k..p * mr * k + rows * k];
            panel_sums(panel, rows, x, &mut sums[..rows]);
            for (r, &s) in sums[..rows].iter().enumerate() {
                c[(r0 + r) * ldc] = s;
            }
        }
    }
}

/// Most columns of a row-major B summed together by [`row_times_raw_b`]:
/// each row of a block is one contiguous run, and the block's partial sums
/// (16 KiB) stay in L1.
const RAW_COLS: usize = 1024;

crate::multiversion! {
    /// `c[j] = Σ_l x[l]·b[l·n + j]` for a row-major `k × n` B that is not
    /// packed (a run-time operand), reading B once, row by row within
    /// blocks of columns (packing B for one row would copy all of it to
    /// read it once). The sums run in [`sums`]' order, so the result equals
    /// the packed product's bit for bit. Narrow products take narrow blocks
    /// (whose partial sums are cleared per block).
    pub(crate) fn row_times_raw_b(x: &[f32], b: &[f32], n: usize, c: &mut [f32]) {
        match n {
            0..=64 => raw_blocks::<64>(x, b, n, c),
            65..=256 => raw_blocks::<256>(x, b, n, c),
            _ => raw_blocks::<RAW_COLS>(x, b, n, c),
        }
    }
}

/// [`row_times_raw_b`] in blocks of `W` columns.
#[inline(always)]
fn raw_blocks<const W: usize>(x: &[f32], b: &[f32], n: usize, c: &mut [f32]) {
    let full = x.len() / CHAINS * CHAINS;
    let mut acc = [[0f32; W]; CHAINS];
    for j0 in (0..n).step_by(W) {
        let w = W.min(n - j0);
        if j0 > 0 {
            acc.iter_mut().for_each(|a| a[..w].fill(0.0));
        }
        for (l, &xl) in x.iter().enumerate() {
            let chain = if l < full { l % CHAINS } else { 0 };
            let row = &b[l * n + j0..l * n + j0 + w];
            for (a, &v) in acc[chain][..w].iter_mut().zip(row) {
                *a += v * xl;
            }
        }
        for (r, o) in c[j0..j0 + w].iter_mut().enumerate() {
            *o = 0.0 + acc[0][r] + acc[1][r] + acc[2][r] + acc[3][r];
        }
    }
}

crate::multiversion! {
    /// `c[j] = Σ_l x[l]·b[j·k + l]` for a B stored transposed (`n × k`, an
    /// RNN's W or R as ONNX lays them out) that is not packed: one dot
    /// product per column, each B row read once.
    pub(crate) fn row_times_raw_bt(x: &[f32], b: &[f32], n: usize, c: &mut [f32]) {
        let k = x.len();
        for (j, o) in c[..n].iter_mut().enumerate() {
            *o = dot(&b[j * k..(j + 1) * k], x);
        }
    }
}

/// `Σ a[l]·b[l]`: 16-lane partial sums in [`CHAINS`] chains over blocks of
/// 64, then the lanes in a fixed order.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    const L: usize = 16;
    let [mut a0, mut a1, mut a2, mut a3] = [[0f32; L]; CHAINS];
    let (mut ca, mut cb) = (a.chunks_exact(L * CHAINS), b.chunks_exact(L * CHAINS));
    for (u, v) in (&mut ca).zip(&mut cb) {
        for i in 0..L {
            a0[i] += u[i] * v[i];
            a1[i] += u[L + i] * v[L + i];
            a2[i] += u[2 * L + i] * v[2 * L + i];
            a3[i] += u[3 * L + i] * v[3 * L + i];
        }
    }
    let (ra, rb) = (ca.remainder(), cb.remainder());
    let (mut ta, mut tb) = (ra.chunks_exact(L), rb.chunks_exact(L));
    for (u, v) in (&mut ta).zip(&mut tb) {
        for i in 0..L {
            a0[i] += u[i] * v[i];
        }
    }
    let tail: f32 = ta.remainder().iter().zip(tb.remainder()).map(|(u, v)| u * v).sum();
    let lanes: [f32; L] = std::array::from_fn(|i| (a0[i] + a1[i]) + (a2[i] + a3[i]));
    lanes.iter().sum::<f32>() + tail
}

/// Widest panel (`MR` or `NR` of any micro-kernel family).
const MAX_R: usize = 32;

/// `out[r] = Σ_l panel[l·w + r] · x[l]` for `r < out.len() ≤ w ≤ MAX_R`.
#[inline(always)]
fn panel_sums(panel: &[f32], w: usize, x: &[f32], out: &mut [f32]) {
    match w {
        32 => sums::<32>(panel, x, out),
        16 => sums::<16>(panel, x, out),
        12 => sums::<12>(panel, x, out),
        8 => sums::<8>(panel, x, out),
        6 => sums::<6>(panel, x, out),
        4 => sums::<4>(panel, x, out),
        _ => sums_any(panel, w, x, out),
    }
}

/// [`panel_sums`] for a panel `R` wide, in `CHAINS` interleaved chains
/// (named accumulators: an array of them was scalarized through memory).
#[inline(always)]
fn sums<const R: usize>(panel: &[f32], x: &[f32], out: &mut [f32]) {
    let [mut a0, mut a1, mut a2, mut a3] = [[0f32; R]; CHAINS];
    let mut groups = panel.chunks_exact(R * CHAINS).zip(x.chunks_exact(CHAINS));
    for (g, xs) in &mut groups {
        madd(&mut a0, xs[0], &g[..R]);
        madd(&mut a1, xs[1], &g[R..2 * R]);
        madd(&mut a2, xs[2], &g[2 * R..3 * R]);
        madd(&mut a3, xs[3], &g[3 * R..4 * R]);
    }
    let done = panel.len() / (R * CHAINS) * CHAINS;
    for (v, &xl) in panel[done * R..].chunks_exact(R).zip(&x[done..]) {
        madd(&mut a0, xl, v);
    }
    for (r, o) in out.iter_mut().enumerate() {
        *o = 0.0 + a0[r] + a1[r] + a2[r] + a3[r];
    }
}

/// `a += w · v[..R]`.
#[inline(always)]
fn madd<const R: usize>(a: &mut [f32; R], w: f32, v: &[f32]) {
    let v: &[f32; R] = v[..R].try_into().expect("R");
    for r in 0..R {
        a[r] += v[r] * w;
    }
}

/// [`sums`] for any width up to [`MAX_R`], in the same order (so a row of
/// a short last panel rounds as the rows of full panels do: equal weights
/// give equal results wherever they sit).
#[inline(always)]
fn sums_any(panel: &[f32], w: usize, x: &[f32], out: &mut [f32]) {
    let mut acc = [[0f32; MAX_R]; CHAINS];
    let mut groups = panel.chunks_exact(w * CHAINS).zip(x.chunks_exact(CHAINS));
    for (g, xs) in &mut groups {
        for (c, a) in acc.iter_mut().enumerate() {
            for (r, &v) in g[c * w..(c + 1) * w].iter().enumerate() {
                a[r] += v * xs[c];
            }
        }
    }
    let done = panel.len() / (w * CHAINS) * CHAINS;
    for (v, &xl) in panel[done * w..].chunks_exact(w).zip(&x[done..]) {
        for (r, &vr) in v.iter().enumerate() {
            acc[0][r] += vr * xl;
        }
    }
    for (r, o) in out.iter_mut().enumerate() {
        *o = 0.0 + acc[0][r] + acc[1][r] + acc[2][r] + acc[3][r];
    }
}
