//! The N-D window geometry shared by the integer and deformable
//! convolutions and the integer max pool: input, kernel and output sizes,
//! strides, dilations and begin pads per spatial axis, walked without
//! allocating (at most [`MAX_RANK`] spatial axes).

/// Most spatial axes a window walk supports.
pub const MAX_RANK: usize = 6;

/// An N-D sliding window. Invariants (asserted by [`Window::check`]): every
/// slice has the spatial rank, at most [`MAX_RANK`], strides and
/// dilations ≥ 1.
#[derive(Copy, Clone, Debug)]
pub struct Window<'a> {
    /// Input spatial sizes.
    pub input: &'a [usize],
    /// Kernel sizes.
    pub kernel: &'a [usize],
    /// Output spatial sizes.
    pub output: &'a [usize],
    /// Strides.
    pub strides: &'a [usize],
    /// Dilations.
    pub dilations: &'a [usize],
    /// Padding before each axis.
    pub pads: &'a [usize],
}

impl Window<'_> {
    /// Assert the invariants.
    pub fn check(&self) {
        let r = self.input.len();
        assert!(r <= MAX_RANK, "window over {r} spatial axes (at most {MAX_RANK})");
        let lens = [self.kernel.len(), self.output.len(), self.strides.len(), self.dilations.len(), self.pads.len()];
        assert!(lens.iter().all(|&l| l == r), "window: inconsistent ranks {self:?}");
        assert!(self.strides.iter().chain(self.dilations).all(|&s| s >= 1), "window: zero stride or dilation");
    }
    /// Spatial rank.
    pub fn rank(&self) -> usize {
        self.input.len()
    }
    /// Elements of one input plane.
    pub fn in_size(&self) -> usize {
        self.input.iter().product()
    }
    /// Taps of the kernel.
    pub fn taps(&self) -> usize {
        self.kernel.iter().product()
    }
    /// Positions of one output plane.
    pub fn out_size(&self) -> usize {
        self.output.iter().product()
    }
    /// The input position (per axis, possibly outside the input) of tap `k`
    /// at output position `o` (both flat), in `pos[..rank]`.
    #[inline]
    pub fn position(&self, o: usize, k: usize, pos: &mut [i64; MAX_RANK]) {
        let (mut o, mut k) = (o, k);
        for a in (0..self.rank()).rev() {
            let (oa, ka) = (o % self.output[a], k % self.kernel[a]);
            (o, k) = (o / self.output[a], k / self.kernel[a]);
            pos[a] = (oa * self.strides[a] + ka * self.dilations[a]) as i64 - self.pads[a] as i64;
        }
    }
    /// The flat input offset of tap `k` at output position `o`, or `None` in the padding.
    #[inline]
    pub fn offset(&self, o: usize, k: usize) -> Option<usize> {
        let mut pos = [0i64; MAX_RANK];
        self.position(o, k, &mut pos);
        let mut flat = 0usize;
        for (a, &p) in pos[..self.rank()].iter().enumerate() {
            if p < 0 || p as usize >= self.input[a] {
                return None;
            }
            flat = flat * self.input[a] + p as usize;
        }
        Some(flat)
    }
}
