//! Swin window partition and merge (`core.window_partition`,
//! `core.window_merge`): direct index maps with the cyclic shift folded in.
//!
//! Partition: `y[b·nW + i·(W/ww) + j, r·ww + s, c] = x[b, (i·wh + r + sh) % H,
//! (j·ww + s + sw) % W, c]` (a roll by `-shift`, then row-major windows);
//! merge is its exact inverse.

/// The geometry of a window partition of `[b, h, w, c]` into `wh × ww` windows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Windows {
    /// Batch.
    pub b: usize,
    /// Height.
    pub h: usize,
    /// Width.
    pub w: usize,
    /// Channels.
    pub c: usize,
    /// Window height (divides `h`).
    pub wh: usize,
    /// Window width (divides `w`).
    pub ww: usize,
    /// Cyclic shift along the height (`< h`).
    pub sh: usize,
    /// Cyclic shift along the width (`< w`).
    pub sw: usize,
}

impl Windows {
    fn check(&self, x: usize, y: usize) {
        assert!(
            self.wh > 0 && self.ww > 0 && self.h.is_multiple_of(self.wh) && self.w.is_multiple_of(self.ww),
            "windows: {self:?}"
        );
        assert!(self.sh < self.h.max(1) && self.sw < self.w.max(1), "windows: shift out of range: {self:?}");
        let n = self.b * self.h * self.w * self.c;
        assert!(x == n && y == n, "windows: {x} and {y} elements for {self:?}");
    }

    /// Call `f(window_offset, image_offset)` for every pixel (`c` elements each).
    fn for_each(&self, mut f: impl FnMut(usize, usize)) {
        let (nwh, nww) = (self.h / self.wh, self.w / self.ww);
        let mut win = 0;
        for b in 0..self.b {
            for i in 0..nwh {
                for j in 0..nww {
                    for r in 0..self.wh {
                        let row = (i * self.wh + r + self.sh) % self.h;
                        for s in 0..self.ww {
                            let col = (j * self.ww + s + self.sw) % self.w;
                            f(win, ((b * self.h + row) * self.w + col) * self.c);
                            win += self.c;
                        }
                    }
                }
            }
        }
    }
}

/// `core.window_partition`: `x [b, h, w, c]` → `y [b·nW, wh·ww, c]`.
pub fn window_partition<T: Copy>(p: &Windows, x: &[T], y: &mut [T]) {
    p.check(x.len(), y.len());
    let c = p.c;
    p.for_each(|wo, io| y[wo..wo + c].copy_from_slice(&x[io..io + c]));
}

/// `core.window_merge`: `x [b·nW, wh·ww, c]` → `y [b, h, w, c]`.
pub fn window_merge<T: Copy>(p: &Windows, x: &[T], y: &mut [T]) {
    p.check(x.len(), y.len());
    let c = p.c;
    p.for_each(|wo, io| y[io..io + c].copy_from_slice(&x[wo..wo + c]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_inverts_partition() {
        let p = Windows { b: 2, h: 4, w: 6, c: 3, wh: 2, ww: 3, sh: 1, sw: 2 };
        let x: Vec<u32> = (0..2 * 4 * 6 * 3).collect();
        let (mut y, mut z) = (vec![0; x.len()], vec![0; x.len()]);
        window_partition(&p, &x, &mut y);
        window_merge(&p, &y, &mut z);
        assert_eq!(x, z);
        // The first window starts at the shifted origin (1, 2).
        assert_eq!(&y[..3], &x[(6 + 2) * 3..(6 + 2) * 3 + 3]);
    }
}
