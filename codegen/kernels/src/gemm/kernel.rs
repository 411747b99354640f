//! The micro-kernel contract shared by every instruction set, and the
//! portable (scalar) implementation.
//!
//! A micro-kernel multiplies one packed A micro-panel by one packed B
//! micro-panel into a tile of C:
//! `C[r][j] (+)= Σ_p a[p * rows + r] · b[p * NR + j]` for `r < rows ≤ MR`,
//! `j < cols ≤ NR`, `p < k`. The A panel holds `rows` values per depth step
//! (the last panel of a block may be shorter than `MR`); the B panel always
//! holds `NR` values per step (zero-padded past the matrix edge). C is
//! row-major with row stride `ldc`; only the `rows × cols` tile is touched.

/// The shape of one micro-kernel call.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Tile {
    /// Rows of C computed (`1..=MR`).
    pub rows: usize,
    /// Columns of C computed (`1..=NR`).
    pub cols: usize,
    /// Depth (number of rank-1 updates); may be 0.
    pub k: usize,
    /// Row stride of C.
    pub ldc: usize,
    /// Add to C (true) or overwrite it (false).
    pub accumulate: bool,
}

impl Tile {
    /// Assert the slice lengths the contract needs (a violation is a bug in
    /// the driver). Every SIMD kernel relies on this check for memory safety.
    pub fn check(&self, mr: usize, nr: usize, a: &[f32], b: &[f32], c: &[f32]) {
        assert!((1..=mr).contains(&self.rows) && (1..=nr).contains(&self.cols), "bad tile {self:?}");
        assert!(a.len() >= self.k * self.rows, "A panel too short for {self:?}");
        assert!(b.len() >= self.k * nr, "B panel too short for {self:?}");
        assert!(c.len() >= (self.rows - 1) * self.ldc + self.cols, "C too short for {self:?}");
        assert!(self.cols <= self.ldc || self.rows == 1, "ldc smaller than the tile width");
    }
}

/// A register-blocked micro-kernel with its cache-blocking parameters.
///
/// Invariants: `MC` is a multiple of `MR`, `NC` a multiple of `NR`.
pub(crate) trait MicroKernel: Copy {
    /// Rows of a full tile.
    const MR: usize;
    /// Columns of a full tile (B panel width).
    const NR: usize;
    /// Depth of a packed block (A micro-panel `MR × KC` stays in L1).
    const KC: usize;
    /// Rows of A packed at once.
    const MC: usize;
    /// Columns of B packed at once (`KC × NC` block stays in L2).
    const NC: usize;
    /// Compute one tile (see the module docs); panics if slices are too short.
    fn tile(self, t: Tile, a: &[f32], b: &[f32], c: &mut [f32]);
}

/// The portable micro-kernel: 4×16 tiles in plain Rust.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Scalar;

impl MicroKernel for Scalar {
    const MR: usize = 4;
    const NR: usize = 16;
    const KC: usize = 256;
    const MC: usize = 64;
    const NC: usize = 1024;

    fn tile(self, t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
        t.check(Self::MR, Self::NR, a, b, c);
        match t.rows {
            1 => scalar_tile::<1>(t, a, b, c),
            2 => scalar_tile::<2>(t, a, b, c),
            3 => scalar_tile::<3>(t, a, b, c),
            _ => scalar_tile::<4>(t, a, b, c),
        }
    }
}

/// `R` rows of the portable kernel.
fn scalar_tile<const R: usize>(t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
    const NR: usize = Scalar::NR;
    let mut acc = [[0.0f32; NR]; R];
    for (ap, bp) in a.chunks_exact(R).zip(b.chunks_exact(NR)).take(t.k) {
        for (row, &av) in acc.iter_mut().zip(ap) {
            for (x, &bv) in row.iter_mut().zip(bp) {
                *x += av * bv;
            }
        }
    }
    store_tile(t, &acc, c);
}

/// Copy the `rows × cols` tile of C into the front of a register-sized buffer
/// (the x86-64 kernels' partial tiles; NEON accumulates through [`store_tile`]).
#[cfg(target_arch = "x86_64")]
pub(crate) fn load_tile<const R: usize, const N: usize>(t: Tile, c: &[f32], buf: &mut [[f32; N]; R]) {
    for (r, row) in buf.iter_mut().enumerate().take(t.rows) {
        row[..t.cols].copy_from_slice(&c[r * t.ldc..r * t.ldc + t.cols]);
    }
}

/// Write (or add) a register tile held as `R` rows of `N` values into C.
pub(crate) fn store_tile<const R: usize, const N: usize>(t: Tile, acc: &[[f32; N]; R], c: &mut [f32]) {
    for (r, row) in acc.iter().enumerate() {
        let dst = &mut c[r * t.ldc..r * t.ldc + t.cols];
        if t.accumulate {
            dst.iter_mut().zip(row).for_each(|(d, &v)| *d += v);
        } else {
            dst.copy_from_slice(&row[..t.cols]);
        }
    }
}
