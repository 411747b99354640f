//! Which integer micro-kernel runs: detected once per process, capped by
//! `EDGEC_SIMD_LEVEL` on x86_64 like the float kernels, and overridable per
//! thread so tests reach every path the machine has.

use std::cell::Cell;
use std::sync::OnceLock;

/// An integer micro-kernel family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable Rust.
    Scalar,
    /// x86_64 AVX2: `vpmaddubsw` on the bytes where the conv's weight pairs
    /// cannot saturate it (weights within ±64 never do), else bytes widened
    /// to i16 and `vpmaddwd`.
    Avx2,
    /// x86_64 AVX-512 VNNI: `vpdpbusd` (u8 × i8, 4 taps per i32 lane).
    Vnni512,
    /// x86_64 AVX-VNNI: the VEX-coded `vpdpbusd` on ymm (CPUs with AVX2 and
    /// no AVX-512 since Alder Lake, e.g. the Intel N100).
    AvxVnni,
    /// aarch64 dot product: `sdot` (i8 × i8) through `asm!`.
    Sdot,
}

impl Isa {
    /// Every family, fastest first.
    pub const ALL: [Isa; 5] = [Isa::Vnni512, Isa::AvxVnni, Isa::Avx2, Isa::Sdot, Isa::Scalar];

    /// The family's name in `EDGEC_INT8_KERNEL`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Vnni512 => "vnni512",
            Isa::AvxVnni => "avxvnni",
            Isa::Sdot => "sdot",
        }
    }

    /// True if this CPU (and build) runs `self` and the level cap allows it.
    pub fn available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => crate::simd::level() >= 2,
            #[cfg(target_arch = "x86_64")]
            Isa::AvxVnni => crate::simd::level() >= 2 && std::is_x86_feature_detected!("avxvnni"),
            #[cfg(target_arch = "x86_64")]
            Isa::Vnni512 => {
                crate::simd::level() >= 3
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vnni")
            }
            #[cfg(target_arch = "aarch64")]
            Isa::Sdot => std::arch::is_aarch64_feature_detected!("dotprod"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// What the micro-kernel subtracts from each activation byte before
    /// multiplying (`sdot` multiplies signed bytes: `b ^ 0x80 = b − 128`).
    pub fn offset(self) -> i32 {
        match self {
            Isa::Sdot => 128,
            _ => 0,
        }
    }
}

static DETECTED: OnceLock<Isa> = OnceLock::new();

std::thread_local! {
    static FORCED: Cell<Option<Isa>> = const { Cell::new(None) };
}

/// The fastest family this CPU runs, or the fastest one no faster than
/// `EDGEC_INT8_KERNEL` names (`vnni512`, `avxvnni`, `avx2`, `sdot`,
/// `scalar`; how benchmarks measure AVX2 alone on a CPU with AVX-VNNI). An
/// unknown name is reported on stderr once and ignored.
pub fn detected() -> Isa {
    *DETECTED.get_or_init(|| {
        let cap = std::env::var("EDGEC_INT8_KERNEL").ok();
        let from = match cap.as_deref().map(|c| Isa::ALL.iter().position(|i| i.name() == c)) {
            None => 0,
            Some(Some(at)) => at,
            Some(None) => {
                let names: Vec<&str> = Isa::ALL.iter().map(|i| i.name()).collect();
                eprintln!("EDGEC_INT8_KERNEL={}: not one of {}; ignored", cap.unwrap_or_default(), names.join(", "));
                0
            }
        };
        Isa::ALL[from..].iter().copied().find(|i| i.available()).unwrap_or(Isa::Scalar)
    })
}

/// The family in use on this thread.
pub fn current() -> Isa {
    FORCED.with(Cell::get).unwrap_or_else(detected)
}

/// Run `f` with `isa` forced on this thread. Panics if the CPU cannot run it.
#[doc(hidden)]
pub fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> R {
    assert!(isa.available(), "{isa:?} integer kernels are not available on this CPU");
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(isa))));
    f()
}
