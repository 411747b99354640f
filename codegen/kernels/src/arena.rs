//! Borrowing operands and results out of one arena without `unsafe`.
//! Shared infrastructure: every generated model's op calls borrow through
//! it, whatever the op's family.
//!
//! A generated model keeps every intermediate of one element type in one
//! `Vec`, at offsets fixed by the memory plan. An op reads some regions and
//! writes one; [`carve`] splits the arena around the written region so the
//! read regions (which the plan guarantees do not overlap it) can be borrowed
//! at the same time.

/// A region of an arena: `len` elements from `off`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// First element.
    pub off: usize,
    /// Number of elements.
    pub len: usize,
}

impl Region {
    /// `len` elements from `off`.
    pub const fn new(off: usize, len: usize) -> Region {
        Region { off, len }
    }
    /// One past the last element.
    pub const fn end(self) -> usize {
        self.off + self.len
    }
}

/// The read-only rest of an arena around a written region.
#[derive(Copy, Clone, Debug)]
pub struct Rest<'a, T> {
    lo: &'a [T],
    hi: &'a [T],
    hole: Region,
}

impl<'a, T> Rest<'a, T> {
    /// The region `r`, which must not overlap the written one.
    pub fn get(&self, r: Region) -> &'a [T] {
        if r.end() <= self.hole.off {
            &self.lo[r.off..r.end()]
        } else {
            assert!(r.off >= self.hole.end(), "region {r:?} overlaps the written region {:?}", self.hole);
            let base = self.hole.end();
            &self.hi[r.off - base..r.end() - base]
        }
    }
}

/// Split `arena` into the writable region `out` and the readable rest.
pub fn carve<T>(arena: &mut [T], out: Region) -> (Rest<'_, T>, &mut [T]) {
    let (lo, rest) = arena.split_at_mut(out.off);
    let (mid, hi) = rest.split_at_mut(out.len);
    (Rest { lo, hi, hole: out }, mid)
}

/// Split `arena` into two disjoint writable regions (for ops with two results).
pub fn carve2<T>(arena: &mut [T], a: Region, b: Region) -> (Rest<'_, T>, &mut [T], &mut [T]) {
    let swap = b.off < a.off;
    let (first, second) = if swap { (b, a) } else { (a, b) };
    assert!(first.end() <= second.off, "written regions {a:?} and {b:?} overlap");
    let (lo, rest) = arena.split_at_mut(first.off);
    let (m1, rest) = rest.split_at_mut(first.len);
    let (_gap, rest) = rest.split_at_mut(second.off - first.end());
    let (m2, hi) = rest.split_at_mut(second.len);
    // Reads between the two written regions are not supported (the emitter
    // copies such an operand first); reads below and above are.
    let hole = Region::new(first.off, second.end() - first.off);
    let rest = Rest { lo, hi, hole };
    if swap {
        (rest, m2, m1)
    } else {
        (rest, m1, m2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_around_the_written_region() {
        let mut a: Vec<u32> = (0..10).collect();
        let (rest, out) = carve(&mut a, Region::new(3, 4));
        assert_eq!(rest.get(Region::new(0, 3)), &[0, 1, 2]);
        assert_eq!(rest.get(Region::new(7, 2)), &[7, 8]);
        out.iter_mut().for_each(|x| *x += 100);
        assert_eq!(a[3..7], [103, 104, 105, 106]);
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn overlapping_read_is_a_bug() {
        let mut a = vec![0u8; 8];
        let (rest, _) = carve(&mut a, Region::new(2, 4));
        rest.get(Region::new(5, 2));
    }

    #[test]
    fn two_outputs() {
        let mut a: Vec<u32> = (0..12).collect();
        let (rest, x, y) = carve2(&mut a, Region::new(8, 2), Region::new(2, 3));
        assert_eq!((x.len(), y.len()), (2, 3));
        assert_eq!(rest.get(Region::new(0, 2)), &[0, 1]);
        assert_eq!(rest.get(Region::new(10, 2)), &[10, 11]);
    }
}
