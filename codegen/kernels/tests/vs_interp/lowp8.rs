//! The sub-16-bit element types vs the interpreter's `ir::interp::lowp`:
//! every bit pattern decoded, and encoding of every representable value of
//! every format, the midpoints between neighbours (ties), values around the
//! overflow and underflow thresholds, ±inf, NaN and random f32 bit patterns,
//! with and without `saturate` (and each E8M0 rounding mode).

use edgec_kernels::lowp8::{self, RoundMode};
use edgec_kernels::{F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, I2, I4, U2, U4};
use ir::interp::lowp;
use ir::DType;
use proptest::prelude::*;

type Codec = (DType, fn(u8) -> f64, fn(f64, bool) -> u8, u32);

fn codecs() -> Vec<Codec> {
    vec![
        (DType::F8E4M3FN, |b| F8E4M3FN(b).to_f64(), |x, s| F8E4M3FN::encode(x, s).0, 8),
        (DType::F8E4M3FNUZ, |b| F8E4M3FNUZ(b).to_f64(), |x, s| F8E4M3FNUZ::encode(x, s).0, 8),
        (DType::F8E5M2, |b| F8E5M2(b).to_f64(), |x, s| F8E5M2::encode(x, s).0, 8),
        (DType::F8E5M2FNUZ, |b| F8E5M2FNUZ(b).to_f64(), |x, s| F8E5M2FNUZ::encode(x, s).0, 8),
        (DType::F4E2M1, |b| F4E2M1(b).to_f64(), |x, s| F4E2M1::encode(x, s).0, 4),
    ]
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Every decoded value of every format, their midpoints, and the specials.
fn probe_values() -> Vec<f64> {
    let mut v: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300, -1e300, 1e-300, 1e-45];
    for (dt, ..) in codecs() {
        let mut vals: Vec<f64> = (0..=255u8).map(|b| lowp::decode(dt, b)).filter(|x| x.is_finite()).collect();
        vals.sort_by(f64::total_cmp);
        for w in vals.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            v.extend([w[0], mid, mid.next_up(), mid.next_down(), w[0] * 1.0001]);
        }
        let max = vals.last().copied().unwrap_or(0.0);
        v.extend([max * 1.0625, max * 1.125, max * 2.0, -max * 1.125]);
    }
    v
}

#[test]
fn every_bit_pattern_decodes_like_the_interpreter() {
    for (dt, dec, _, width) in codecs() {
        for b in 0..(1u32 << width) as u16 {
            let (got, want) = (dec(b as u8), lowp::decode(dt, b as u8));
            assert!(same(got, want), "{dt} {b:#x}: {got} != {want}");
        }
    }
    for b in 0..=255u8 {
        let (got, want) = (lowp8::decode_e8m0(b), lowp::decode(DType::F8E8M0, b));
        assert!(same(got, want), "e8m0 {b:#x}: {got} != {want}");
    }
}

#[test]
fn probe_values_encode_like_the_interpreter() {
    let vals = probe_values();
    for (dt, _, enc, _) in codecs() {
        for &x in &vals {
            for s in [false, true] {
                assert_eq!(enc(x, s), lowp::encode(dt, x, s), "{dt} encode({x:e}, saturate {s})");
            }
        }
    }
    let modes = [
        (RoundMode::Up, lowp::RoundMode::Up),
        (RoundMode::Down, lowp::RoundMode::Down),
        (RoundMode::Nearest, lowp::RoundMode::Nearest),
    ];
    for &x in &vals {
        for (m, im) in modes {
            for s in [false, true] {
                assert_eq!(lowp8::encode_e8m0(x, s, m), lowp::encode_e8m0(x, s, im), "e8m0 {x:e} {m:?} {s}");
            }
        }
    }
}

#[test]
fn small_integers_wrap_like_the_interpreter() {
    for v in -300i128..300 {
        assert_eq!(I4::wrap(v).get() as i128, lowp::wrap_small_int(DType::I4, v), "i4 {v}");
        assert_eq!(U4::wrap(v).get() as i128, lowp::wrap_small_int(DType::U4, v), "u4 {v}");
        assert_eq!(I2::wrap(v).get() as i128, lowp::wrap_small_int(DType::I2, v), "i2 {v}");
        assert_eq!(U2::wrap(v).get() as i128, lowp::wrap_small_int(DType::U2, v), "u2 {v}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn random_f32_bits_encode_like_the_interpreter(bits in any::<u32>(), s in any::<bool>()) {
        let x = f32::from_bits(bits) as f64;
        for (dt, _, enc, _) in codecs() {
            prop_assert_eq!(enc(x, s), lowp::encode(dt, x, s), "{} encode({:e})", dt, x);
        }
        prop_assert_eq!(lowp8::encode_e8m0(x, s, RoundMode::Nearest), lowp::encode_e8m0(x, s, lowp::RoundMode::Nearest));
    }
}
