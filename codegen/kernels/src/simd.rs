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
/// pub fn name(args) -> T { body } }` (or `fn name<X: Bound>(args)`). The body is an `#[inline(always)]`
/// inner function, so the kernels it calls inline into each version.
#[macro_export]
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident $(<$g:ident: $b:path>)? ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name $(<$g: $b>)? ($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn inner $(<$g: $b>)? ($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[allow(unsafe_code)]
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn v3 $(<$g: $b>)? ($($arg: $ty),*) $(-> $ret)? { inner($($arg),*) }
                #[allow(unsafe_code)]
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v2 $(<$g: $b>)? ($($arg: $ty),*) $(-> $ret)? { inner($($arg),*) }
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

/// `map16!(x, out, |v| f(v))`: `out[i] = f(x[i])` in blocks of 16, the
/// last block ending at the last element (overlapping the one before it,
/// which recomputes the same values), so every block is whole vectors
/// whatever the length ≥ 16. (A plain loop is vectorized with its unrolled
/// width, 64 or 128 elements at AVX-512, and a shorter row, a 7×7 or 14×14
/// plane, runs its scalar remainder.) A macro so `f` is always inlined; use
/// it inside a [`multiversion!`] body.
#[macro_export]
macro_rules! map16 {
    ($x:expr, $out:expr, |$v:ident| $f:expr) => {{
        let (x, out) = ($x, $out);
        let n = x.len().min(out.len());
        if n < 16 {
            for (o, &$v) in out[..n].iter_mut().zip(&x[..n]) {
                *o = $f;
            }
        } else {
            let mut s = 0;
            loop {
                let at = s.min(n - 16);
                let o: &mut [_; 16] = (&mut out[at..at + 16]).try_into().expect("16");
                let a: &[_; 16] = x[at..at + 16].try_into().expect("16");
                for j in 0..16 {
                    let $v = a[j];
                    o[j] = $f;
                }
                if at + 16 == n {
                    break;
                }
                s += 16;
            }
        }
    }};
}

/// `map16_stride2!(x, out, |v| f(v))`: `out[i] = f(x[2i])` (`x` holds at
/// least `2·out.len() − 1` values), in blocks of 16 outputs from 32 inputs
/// like [`map16!`]; the elements no whole block reaches run one by one.
#[macro_export]
macro_rules! map16_stride2 {
    ($x:expr, $out:expr, |$v:ident| $f:expr) => {{
        let (x, out) = ($x, $out);
        let n = out.len();
        assert!(n == 0 || 2 * n - 1 <= x.len(), "map16_stride2: {} inputs for {n} outputs", x.len());
        let mut k = 0;
        while k < n {
            // The next whole block, or the one ending at the last output.
            let at = if k + 16 <= n && 2 * k + 32 <= x.len() {
                k
            } else if n >= 16 && 2 * n <= x.len() {
                n - 16
            } else {
                break;
            };
            let o: &mut [_; 16] = (&mut out[at..at + 16]).try_into().expect("16");
            let a: &[_; 32] = x[2 * at..2 * at + 32].try_into().expect("32");
            for j in 0..16 {
                let $v = a[2 * j];
                o[j] = $f;
            }
            k = at + 16;
        }
        for (o, &$v) in out[k..].iter_mut().zip(x[2 * k..].iter().step_by(2)) {
            *o = $f;
        }
    }};
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

    #[test]
    fn map16_covers_every_length_once_per_value() {
        for n in [0usize, 1, 5, 15, 16, 17, 31, 32, 49, 64, 196] {
            let x: Vec<i32> = (0..n as i32).map(|i| i * 7 - 30).collect();
            let mut out = vec![0i64; n];
            crate::map16!(&x, &mut out, |v| v as i64 * 3 + 1);
            assert_eq!(out, x.iter().map(|&v| v as i64 * 3 + 1).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn map16_stride2_reads_every_other_value_at_every_length() {
        for n in [0usize, 1, 7, 15, 16, 17, 28, 56, 112] {
            for extra in [-1i32, 0, 1] {
                let len = (2 * n as i32 + extra).max(0) as usize;
                if n > 0 && len < 2 * n - 1 {
                    continue;
                }
                let x: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
                let mut out = vec![0i16; n];
                crate::map16_stride2!(&x, &mut out, |v| v as i16 - 9);
                let want: Vec<i16> = (0..n).map(|i| x[2 * i] as i16 - 9).collect();
                assert_eq!(out, want, "n = {n}, len = {len}");
            }
        }
    }
}
