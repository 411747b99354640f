//! Rounding into the 16-bit float formats (IEEE binary16 and bfloat16):
//! one round-to-nearest-even from `f64`, for the interpreter, the text form
//! and the kernels (the `half` crate's `from_f64` rounds twice or drops
//! sticky bits on CPUs without hardware conversion: 1.1879888 became
//! 0x3CC0 instead of 0x3CC1 on Cortex-A53).

/// `x` as IEEE binary16 bits, rounded once to nearest-even.
pub const fn f16_bits(x: f64) -> u16 {
    narrow(x, 5, 10)
}

/// `x` as bfloat16 bits, rounded once to nearest-even.
pub const fn bf16_bits(x: f64) -> u16 {
    narrow(x, 8, 7)
}

/// `x` rounded to nearest-even into the 16-bit format with `e` exponent and
/// `m` mantissa bits (`1 + e + m == 16`), as its bit pattern.
pub const fn narrow(x: f64, e: u32, m: u32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 63) as u16) << 15;
    let exp = ((b >> 52) & 0x7ff) as i32;
    let man = b & ((1u64 << 52) - 1);
    let all_ones = ((1u32 << e) - 1) as u16;
    let inf = sign | all_ones << m;
    if exp == 0x7ff {
        if man == 0 {
            return inf;
        }
        // Quiet NaN with the payload's top bits.
        return inf | 1 << (m - 1) | (man >> (52 - m)) as u16;
    }
    if exp == 0 {
        // f64 zeros and subnormals are far below half the smallest step.
        return sign;
    }
    let bias = (1i32 << (e - 1)) - 1;
    let sig = man | 1u64 << 52; // x = sig * 2^(exp - 1075)
    let unbiased = exp - 1023;
    let min_normal = 1 - bias;
    let step = (if unbiased > min_normal { unbiased } else { min_normal }) - m as i32;
    let shift = (step - (exp - 1075)) as u32; // >= 52 - m
    if shift > 53 {
        // Below half the smallest subnormal step (sig < 2^53).
        return sign;
    }
    let kept = sig >> shift;
    let rem = sig & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let r = kept + (rem > half || (rem == half && kept & 1 == 1)) as u64;
    // A carry out of the mantissa increments the exponent field naturally.
    let bits = if unbiased >= min_normal { (((unbiased + bias) as u64) << m) + r - (1u64 << m) } else { r };
    if bits >= (all_ones as u64) << m {
        return inf;
    }
    sign | bits as u16
}
