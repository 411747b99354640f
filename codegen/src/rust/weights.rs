//! The weights file of a generated crate: every constant the emitted
//! functions read, grouped by storage class, in first-use order. Layout (read
//! by `edgec_kernels::weights`): the magic, the u64 section lengths
//! (elements of each class, in `Class::ALL` order), then the sections,
//! little-endian, each padded to 64 bytes. The generated code embeds its
//! FNV-1a hash and checks it on weights loaded at run time.

use crate::plan::Class;
use ir::{Constant, Module};
use std::collections::HashMap;

/// Where each constant lives in the weights sections.
#[derive(Debug, Default)]
pub struct WeightLayout {
    /// Constant name → (class, element offset, element count).
    pub at: HashMap<String, (Class, usize, usize)>,
    /// Weights packed at compile time (f32), by key → (element offset, count).
    blobs: HashMap<String, (usize, usize)>,
    sections: [Vec<u8>; SECTIONS],
    counts: [usize; SECTIONS],
}

const SECTIONS: usize = edgec_kernels::rt::SECTIONS;

/// The section of class `c`: its index in [`Class::ALL`].
fn section(c: Class) -> usize {
    Class::ALL.iter().position(|&k| k == c).unwrap_or(0)
}

impl WeightLayout {
    /// Add constant `name` of `m` (once); returns its place.
    pub fn add(&mut self, m: &Module, name: &str) -> Result<(Class, usize, usize), String> {
        if let Some(&p) = self.at.get(name) {
            return Ok(p);
        }
        let id = m.const_by_name(name).ok_or_else(|| format!("constant @{name} is missing"))?;
        let c: &Constant = &m.consts[id];
        let class = Class::of(c.ty.dtype).ok_or_else(|| format!("constant @{name} has element type {}", c.ty.dtype))?;
        let bytes = c.bytes().ok_or_else(|| format!("constant @{name} is a string constant"))?;
        let s = section(class);
        let place = (class, self.counts[s], c.num_elements());
        // Constants are stored little-endian with the class's element size already.
        self.sections[s].extend_from_slice(bytes);
        self.counts[s] += c.num_elements();
        self.at.insert(name.to_string(), place);
        Ok(place)
    }

    /// Add the f32 blob `make()` (weights packed at compile time) under
    /// `key` (once), 64-byte aligned; returns its (element offset, length)
    /// in the f32 section.
    pub fn add_blob(&mut self, key: &str, make: impl FnOnce() -> Vec<f32>) -> (usize, usize) {
        if let Some(&place) = self.blobs.get(key) {
            return place;
        }
        let s = section(Class::F32);
        let start = self.counts[s].next_multiple_of(edgec_kernels::gemm::PIECE_ALIGN);
        self.sections[s].resize(start * 4, 0);
        let blob = make();
        for v in &blob {
            self.sections[s].extend_from_slice(&v.to_le_bytes());
        }
        self.counts[s] = start + blob.len();
        self.blobs.insert(key.to_string(), (start, blob.len()));
        (start, blob.len())
    }

    /// Element counts per section.
    pub fn counts(&self) -> [usize; SECTIONS] {
        self.counts
    }

    /// The weights file.
    pub fn file(&self) -> Vec<u8> {
        let mut out = edgec_kernels::rt::WEIGHTS_MAGIC.to_vec();
        for c in self.counts {
            out.extend((c as u64).to_le_bytes());
        }
        for s in &self.sections {
            out.extend_from_slice(s);
            out.resize(out.len().next_multiple_of(edgec_kernels::weights::SECTION_ALIGN), 0);
        }
        out
    }
}

/// FNV-1a 64 (the same function as `edgec_kernels::rt::fnv1a64`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    edgec_kernels::rt::fnv1a64(bytes)
}
