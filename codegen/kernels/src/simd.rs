//! Run-time instruction-set dispatch for auto-vectorized loops.
//! Shared infrastructure: the activations, the GEMM epilogue, pooling,
//! elementwise unary and depthwise conv loops run through it.
//!
//! The generated crates are built for the baseline target (no `-C
//! target-cpu`), so plain loops compile to SSE2. [`vectorized`] runs a
//! closure inside a function compiled with AVX-512 or AVX2+FMA enabled when
//! the CPU has them: the closure (and the `#[inline]` kernels it calls) is
//! inlined there and vectorized for that instruction set. The result is the
//! same function of the inputs on every path (up to FMA contraction, which
//! LLVM does not apply to plain `a * b + c` in Rust: results are identical).

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not probed yet, 1: baseline, 2: AVX2+FMA, 3: AVX-512F.
    static LEVEL: AtomicU8 = AtomicU8::new(0);

    pub fn level() -> u8 {
        match LEVEL.load(Ordering::Relaxed) {
            0 => {
                let detected = if std::is_x86_feature_detected!("avx512f") {
                    3
                } else if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                    2
                } else {
                    1
                };
                // `EDGEC_SIMD_LEVEL=1|2` caps the level (tests run every path
                // this way; it can never raise the level above the CPU's).
                let cap = std::env::var("EDGEC_SIMD_LEVEL").ok().and_then(|v| v.parse::<u8>().ok());
                let l = cap.map_or(detected, |c| c.clamp(1, detected));
                LEVEL.store(l, Ordering::Relaxed);
                l
            }
            l => l,
        }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f,avx2,fma")]
    /// # Safety
    /// The CPU must support AVX-512F (checked by the caller through [`level`]).
    pub unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2,fma")]
    /// # Safety
    /// The CPU must support AVX2 and FMA (checked by the caller through [`level`]).
    pub unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// The instruction-set level this CPU supports (x86_64: 1 baseline, 2
/// AVX2+FMA, 3 AVX-512F, capped by the environment variable
/// `EDGEC_SIMD_LEVEL`; other architectures: 1, their baseline: on aarch64
/// NEON is part of the baseline, so plain loops are already NEON code).
#[inline]
pub fn level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        x86::level()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1
    }
}

/// Define a function compiled three times (baseline, AVX2+FMA, AVX-512)
/// from one body, dispatched at run time: `multiversion! { /// docs
/// pub fn name(args) -> T { body } }`. The body is an `#[inline(always)]`
/// inner function, so the kernels it calls inline into each version.
#[macro_export]
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn inner($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[allow(unsafe_code)]
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn v3($($arg: $ty),*) $(-> $ret)? { inner($($arg),*) }
                #[allow(unsafe_code)]
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v2($($arg: $ty),*) $(-> $ret)? { inner($($arg),*) }
                match $crate::simd::level() {
                    // SAFETY: level 3 means the CPU reported AVX-512F, AVX2 and FMA.
                    #[allow(unsafe_code)]
                    3 => return unsafe { v3($($arg),*) },
                    // SAFETY: level 2 means the CPU reported AVX2 and FMA.
                    #[allow(unsafe_code)]
                    2 => return unsafe { v2($($arg),*) },
                    _ => {}
                }
            }
            inner($($arg),*)
        }
    };
}

/// Run `f` vectorized for the best instruction set this CPU has (when the
/// closure is inlined into the dispatch target; prefer [`multiversion!`]
/// for large bodies).
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        match x86::level() {
            // SAFETY: level 3 means the CPU reported AVX-512F (and AVX2/FMA).
            #[allow(unsafe_code)]
            3 => return unsafe { x86::avx512(f) },
            // SAFETY: level 2 means the CPU reported AVX2 and FMA.
            #[allow(unsafe_code)]
            2 => return unsafe { x86::avx2(f) },
            _ => {}
        }
    }
    f()
}

#[cfg(test)]
mod tests {
    /// With `EDGEC_SIMD_LEVEL` set (as `.ci/run` does, to reach every
    /// version of the multiversioned loops), the level is that cap, never
    /// above what the CPU has; without it, a level of this architecture.
    #[test]
    fn level_follows_the_cap() {
        let level = super::level();
        #[cfg(target_arch = "x86_64")]
        {
            let detected = if std::is_x86_feature_detected!("avx512f") {
                3
            } else if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                2
            } else {
                1
            };
            let cap = std::env::var("EDGEC_SIMD_LEVEL").ok().and_then(|v| v.parse::<u8>().ok());
            assert_eq!(level, cap.map_or(detected, |c| c.clamp(1, detected)));
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(level, 1);
    }
}
