//! Single-precision GEMM: `C = act(alpha · op(A) · op(B) + beta · bias)`,
//! cache-blocked with packed operands and register-blocked SIMD
//! micro-kernels (AVX-512F, AVX2+FMA, NEON, portable), the family chosen at
//! run time (see [`Isa`]). Single-threaded; never allocates except when
//! packing a constant operand ([`PackedB::new`]).
//!
//! Shared infrastructure: the engine that linalg (MatMul, Gemm), conv
//! (1×1, im2col, transposed), attention, rnn (the gates) and quant (shaped
//! integer matmul) drive.
//!
//! All matrices are row-major and contiguous. Results are deterministic for a
//! given family; families differ only in rounding (FMA, summation order).

mod driver;
mod epilogue;
mod gemv;
mod isa;
mod kernel;
pub(crate) mod matmul;
mod pack;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;

pub use epilogue::{Bias, Epilogue};
pub use isa::{current, detected, with_isa, Isa};
pub use matmul::{matmul, matmul_scratch_len};
pub use pack::PackedB;

pub(crate) use driver::Dims;
pub use pack::PIECE_ALIGN;
pub(crate) use pack::{join_pieces, pieces, BSource, PackedA, Panels, Raw};

use kernel::{MicroKernel, Scalar};
use pack::ASource;

/// A GEMM problem: A is `m × k` (stored `k × m` if `trans_a`), B is `k × n`
/// (stored `n × k` if `trans_b`), C is `m × n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Gemm {
    /// Rows of C.
    pub m: usize,
    /// Columns of C.
    pub n: usize,
    /// Depth.
    pub k: usize,
    /// A is stored transposed.
    pub trans_a: bool,
    /// B is stored transposed.
    pub trans_b: bool,
}

/// The tile sizes (packing geometry) of one micro-kernel family.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Blocking {
    pub mr: usize,
    pub nr: usize,
}

impl Blocking {
    /// The sizes of `isa`'s kernel (see [`Isa::tile`]).
    pub fn of(isa: Isa) -> Blocking {
        let (mr, nr) = isa.tile();
        Blocking { mr, nr }
    }
}

/// True if kernel `K` has the tile its family declares ([`Isa::tile`]).
const fn tiles<K: MicroKernel>(isa: Isa) -> bool {
    K::MR == isa.tile().0 && K::NR == isa.tile().1
}
const _: () = assert!(tiles::<Scalar>(Isa::Scalar));
#[cfg(target_arch = "x86_64")]
const _: () = assert!(tiles::<avx512::Kernel>(Isa::Avx512) && tiles::<avx2::Kernel>(Isa::Avx2));
#[cfg(target_arch = "aarch64")]
const _: () = assert!(tiles::<neon::Kernel>(Isa::Neon));

/// Scratch for a driver run with any family compiled into this build.
pub(crate) fn scratch_any(d: Dims, a_packed: bool, b_packed: bool) -> usize {
    let s = driver::scratch_len::<Scalar>(d, a_packed, b_packed);
    #[cfg(target_arch = "x86_64")]
    let s = s
        .max(driver::scratch_len::<avx2::Kernel>(d, a_packed, b_packed))
        .max(driver::scratch_len::<avx512::Kernel>(d, a_packed, b_packed));
    #[cfg(target_arch = "aarch64")]
    let s = s.max(driver::scratch_len::<neon::Kernel>(d, a_packed, b_packed));
    s
}

/// Run the driver with `isa`'s micro-kernel.
pub(crate) fn run_isa<A: ASource, B: BSource>(
    isa: Isa,
    d: Dims,
    a: &A,
    b: &B,
    c: &mut [f32],
    ep: &Epilogue<'_>,
    scratch: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    const GONE: &str = "operand packed for a CPU feature this CPU lacks";
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => driver::run(avx512::Kernel::new().expect(GONE), d, a, b, c, ep, scratch),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => driver::run(avx2::Kernel::new().expect(GONE), d, a, b, c, ep, scratch),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => driver::run(neon::Kernel, d, a, b, c, ep, scratch),
        _ => driver::run(Scalar, d, a, b, c, ep, scratch),
    }
}

/// Scratch elements [`sgemm`] needs for `g`.
pub fn scratch_len(g: &Gemm) -> usize {
    scratch_any(Dims { m: g.m, n: g.n, k: g.k, ldc: g.n }, false, false)
}

/// `c = ep(op(a) · op(b))` for the problem `g` (see [`Gemm`], [`Epilogue`]).
/// Asserts `a.len() == m·k`, `b.len() == k·n`, `c.len() == m·n` and
/// `scratch.len() >= scratch_len(g)`.
pub fn sgemm(g: &Gemm, a: &[f32], b: &[f32], c: &mut [f32], ep: &Epilogue<'_>, scratch: &mut [f32]) {
    let Gemm { m, n, k, trans_a, trans_b } = *g;
    assert_eq!(a.len(), m * k, "A has {} elements, expected {m}·{k}", a.len());
    assert_eq!(b.len(), k * n, "B has {} elements, expected {k}·{n}", b.len());
    assert_eq!(c.len(), m * n, "C has {} elements, expected {m}·{n}", c.len());
    if m == 1 && k > 0 {
        // One row (either storage of A is the same k values).
        ep.check(1, n);
        match trans_b {
            false => gemv::row_times_raw_b(a, b, n, c),
            true => gemv::row_times_raw_bt(a, b, n, c),
        }
        ep.apply(c, n, n, (0, 1), (0, n));
        return;
    }
    let ra = Raw { data: a, ld: if trans_a { m } else { k }, trans: trans_a };
    let rb = Raw { data: b, ld: if trans_b { k } else { n }, trans: trans_b };
    run_isa(isa::current(), Dims { m, n, k, ldc: n }, &ra, &rb, c, ep, scratch);
}

/// Scratch elements [`sgemm_packed`] needs for an `m`-row A.
pub fn packed_scratch_len(m: usize, b: &PackedB) -> usize {
    scratch_any(Dims { m, n: b.n(), k: b.k(), ldc: b.n() }, false, true)
}

/// `c = ep(a · b)` with `a` an `m × k` row-major matrix and `b` pre-packed.
/// Asserts `a.len() == m·k`, `c.len() == m·n` and the scratch length.
pub fn sgemm_packed(m: usize, a: &[f32], b: &PackedB, c: &mut [f32], ep: &Epilogue<'_>, scratch: &mut [f32]) {
    let (k, n) = (b.k(), b.n());
    assert_eq!(a.len(), m * k, "A has {} elements, expected {m}·{k}", a.len());
    assert_eq!(c.len(), m * n, "C has {} elements, expected {m}·{n}", c.len());
    if m == 1 {
        ep.check(1, n);
        gemv::row_times_packed_b(a, b, c);
        ep.apply(c, n, n, (0, 1), (0, n));
        return;
    }
    let ra = Raw { data: a, ld: k, trans: false };
    run_isa(b.isa(), Dims { m, n, k, ldc: n }, &ra, b, c, ep, scratch);
}

/// Scratch for [`gemm_packed_a`] with an `n`-column B source packed on the fly.
pub(crate) fn packed_a_scratch_len(m: usize, n: usize, k: usize) -> usize {
    scratch_any(Dims { m, n, k, ldc: n }, true, false)
}

/// `C = ep(a · B)` with a pre-packed A (`m × k`) and any B source; C has row
/// stride `ldc`.
pub(crate) fn gemm_packed_a<B: BSource>(
    a: &PackedA,
    n: usize,
    b: &B,
    c: &mut [f32],
    ldc: usize,
    ep: &Epilogue<'_>,
    scratch: &mut [f32],
) {
    run_isa(a.isa(), Dims { m: a.m(), n, k: a.k(), ldc }, a, b, c, ep, scratch);
}

/// `c = ep(a · x)` for one column `x` (`a.k()` values) with a pre-packed A;
/// C has row stride `ldc`.
pub(crate) fn packed_a_times_col(a: &PackedA, x: &[f32], c: &mut [f32], ldc: usize, ep: &Epilogue<'_>) {
    assert_eq!(x.len(), a.k(), "column has {} elements, A is {}×{}", x.len(), a.m(), a.k());
    assert!(a.m() == 0 || c.len() > (a.m() - 1) * ldc, "C too short for {} rows", a.m());
    ep.check(a.m(), 1);
    gemv::packed_a_times_col(a, x, c, ldc);
    ep.apply(c, ldc, 1, (0, a.m()), (0, 1));
}
