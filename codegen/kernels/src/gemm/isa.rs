//! Which micro-kernel family runs: detected once per process (cached in a
//! `OnceLock`), capped by `EDGEC_SIMD_LEVEL` like the other kernels, and
//! overridable per thread so tests can exercise every path the machine
//! supports.

use std::cell::Cell;
use std::sync::OnceLock;

/// A micro-kernel family (instruction set).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable Rust (auto-vectorized by the compiler for the baseline target).
    Scalar,
    /// x86_64 AVX2 + FMA (6×16 tiles).
    Avx2,
    /// x86_64 AVX-512F (12×32 tiles).
    Avx512,
    /// aarch64 NEON (8×8 tiles).
    Neon,
}

impl Isa {
    /// Every family, fastest first.
    pub const ALL: [Isa; 4] = [Isa::Avx512, Isa::Avx2, Isa::Neon, Isa::Scalar];

    /// The `(MR, NR)` tile of the family's micro-kernel: the geometry of
    /// the operands it reads packed. Defined on every architecture, so that
    /// a compiler running on one packs weights for another.
    pub const fn tile(self) -> (usize, usize) {
        match self {
            Isa::Avx512 => (12, 32),
            Isa::Avx2 => (6, 16),
            Isa::Neon => (8, 8),
            Isa::Scalar => (4, 16),
        }
    }

    /// The family's name (`avx512`, `avx2`, `neon`, `scalar`).
    pub const fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "avx512",
            Isa::Avx2 => "avx2",
            Isa::Neon => "neon",
            Isa::Scalar => "scalar",
        }
    }

    /// The family named `name` (see [`Isa::name`]).
    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|i| i.name() == name)
    }

    /// True if this CPU (and this build's target architecture) can run
    /// `self` and `EDGEC_SIMD_LEVEL` allows it (as for every other kernel:
    /// a capped run must not keep the AVX-512 GEMM).
    pub fn available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => crate::simd::level() >= 2 && super::avx2::Kernel::new().is_some(),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => crate::simd::level() >= 3 && super::avx512::Kernel::new().is_some(),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }
}

static DETECTED: OnceLock<Isa> = OnceLock::new();

std::thread_local! {
    static FORCED: Cell<Option<Isa>> = const { Cell::new(None) };
}

/// The fastest family this CPU runs (detected on first use).
pub fn detected() -> Isa {
    *DETECTED.get_or_init(|| Isa::ALL.into_iter().find(|i| i.available()).unwrap_or(Isa::Scalar))
}

/// The family GEMMs started on this thread use: the one forced by
/// [`with_isa`] if any, else [`detected`].
pub fn current() -> Isa {
    FORCED.with(|f| f.get()).unwrap_or_else(detected)
}

/// Run `f` with every GEMM (and packing) started on this thread using `isa`
/// (a test hook: results must match whatever the family). Panics if the CPU
/// cannot run `isa`.
#[doc(hidden)]
pub fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> R {
    assert!(isa.available(), "{isa:?} kernels are not available on this CPU");
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(isa))));
    f()
}
