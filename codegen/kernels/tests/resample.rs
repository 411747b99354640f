//! GridSample against the reference interpreter (every mode, padding mode and
//! `align_corners`, coordinates partly outside the image).

mod common;

use common::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn grid_sample_matches(
        n in 1usize..3, c in 1usize..3, dims in prop::collection::vec(1usize..5, 1..4), outs in prop::collection::vec(1usize..4, 1..3),
        mode in 0usize..3, padding in 0usize..3, align in any::<bool>(), seed in any::<u64>(),
    ) {
        use edgec_kernels::resample::grid::{self, GridMode, GridPadding};
        let r = dims.len();
        let out: Vec<usize> = (0..r).map(|i| outs[i % outs.len()]).collect();
        let xs = [vec![n, c], dims.clone()].concat();
        let gs = [vec![n], out.clone(), vec![r]].concat();
        let x = values(numel(&xs), seed);
        // Normalized coordinates in about [-1.6, 1.6], some outside the image.
        let g: Vec<f32> = values(numel(&gs), seed ^ 3).iter().map(|v| v * 0.8 + 0.05).collect();
        let (m, mn) = [(GridMode::Nearest, "nearest"), (GridMode::Linear, "linear"), (GridMode::Cubic, "cubic")][mode];
        let (pd, pn) = [(GridPadding::Zeros, "zeros"), (GridPadding::Border, "border"), (GridPadding::Reflection, "reflection")][padding];
        let a = attrs(&[("mode", Attr::Str(mn.into())), ("padding_mode", Attr::Str(pn.into())), ("align_corners", Attr::Int(align as i64))]);
        let want = run(Opcode::GridSample, &[t_(&xs, &x), t_(&gs, &g)], a, 1);
        let p = grid::GridSample { n, c, dims: &dims, outs: numel(&out), mode: m, padding: pd, align_corners: align };
        let mut y = vec![0f32; n * c * numel(&out)];
        grid::grid_sample(&p, &x, &g, &mut y);
        assert_close(&y, &f32s(&want[0]), "grid_sample");
    }
}
