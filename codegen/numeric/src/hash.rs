//! Content hashes.

/// 64-bit FNV-1a of `bytes`: the checksum of weights sidecars and generated
/// weights files (the compiler writes it, the runtime checks it, so both
/// must agree on every byte).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
