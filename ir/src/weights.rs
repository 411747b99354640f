//! The binary weights sidecar written next to a `.eir` file.
//!
//! Layout (all integers little-endian):
//! - bytes 0..8: magic `EDGEW\0\0\x01` (format version 1);
//! - then each constant's raw bytes, each starting at a multiple of 64 bytes
//!   from the file start (zero padding between them).
//!
//! The `.eir` text references a blob as
//! `external<offset = O, size = S, hash = H>` where `H` is the FNV-1a 64-bit
//! hash of the blob; the reader checks bounds and hash, so a truncated or
//! mismatched sidecar is an error naming the constant, never wrong weights.

/// Magic bytes at the start of every sidecar.
pub const MAGIC: &[u8; 8] = b"EDGEW\0\0\x01";
/// Alignment of each blob.
pub const ALIGN: usize = 64;

/// FNV-1a, 64-bit.
pub use edgec_numeric::hash::fnv1a64;

/// Accumulates blobs into sidecar bytes.
#[derive(Debug)]
pub struct SidecarWriter {
    buf: Vec<u8>,
}

impl Default for SidecarWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl SidecarWriter {
    /// A sidecar containing only the magic.
    pub fn new() -> Self {
        SidecarWriter { buf: MAGIC.to_vec() }
    }
    /// Append a blob, returning its offset.
    pub fn add(&mut self, data: &[u8]) -> u64 {
        let pad = (ALIGN - self.buf.len() % ALIGN) % ALIGN;
        self.buf.resize(self.buf.len() + pad, 0);
        let off = self.buf.len() as u64;
        self.buf.extend_from_slice(data);
        off
    }
    /// The finished file contents.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Read a blob out of sidecar bytes, checking magic, bounds and hash.
pub fn read_blob(sidecar: &[u8], offset: u64, size: u64, hash: u64) -> Result<&[u8], String> {
    if sidecar.len() < MAGIC.len() || &sidecar[..MAGIC.len()] != MAGIC {
        return Err("weights sidecar has a bad magic number (not an edgec weights file, or another version)".into());
    }
    let end = offset.checked_add(size).ok_or("blob offset + size overflows")?;
    if offset < MAGIC.len() as u64 || end > sidecar.len() as u64 {
        return Err(format!(
            "blob at offset {offset} with size {size} lies outside the weights sidecar ({} bytes)",
            sidecar.len()
        ));
    }
    let blob = &sidecar[offset as usize..end as usize];
    let actual = fnv1a64(blob);
    if actual != hash {
        return Err(format!("blob hash mismatch: expected {hash:#018x}, found {actual:#018x} (stale sidecar?)"));
    }
    Ok(blob)
}
