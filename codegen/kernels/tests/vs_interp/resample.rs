//! Resize vs the interpreter: every mode, coordinate transformation, nearest
//! rounding, `exclude_outside`, antialias, `tf_crop_and_resize` and
//! `keep_aspect_ratio_policy`, on 1 to 3 resized axes (and all axes).
//!
//! Nearest mode is exact. Linear/cubic interpolate in f32 with f32 weights
//! here and in f64 in the interpreter: for data in [-10, 10] the difference
//! is a few ulps of 10 per pass, hence atol 1e-5 (rtol 1e-5).

use super::common::*;
use edgec_kernels::resample::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Spec {
    Scales(Vec<f32>),
    Sizes(Vec<usize>, &'static str),
}

#[derive(Clone, Debug)]
struct Case {
    shape: Vec<usize>,
    /// Resized axes; `None`: all (no `axes` attribute).
    axes: Option<Vec<usize>>,
    spec: Spec,
    p: ResizeParams,
    roi: Vec<f32>,
}

const MODES: [(ResizeMode, &str); 3] =
    [(ResizeMode::Nearest, "nearest"), (ResizeMode::Linear, "linear"), (ResizeMode::Cubic, "cubic")];
const COORDS: [(CoordMode, &str); 6] = [
    (CoordMode::HalfPixel, "half_pixel"),
    (CoordMode::HalfPixelSymmetric, "half_pixel_symmetric"),
    (CoordMode::PytorchHalfPixel, "pytorch_half_pixel"),
    (CoordMode::AlignCorners, "align_corners"),
    (CoordMode::Asymmetric, "asymmetric"),
    (CoordMode::TfCropAndResize, "tf_crop_and_resize"),
];
const NEAREST: [(NearestMode, &str); 4] = [
    (NearestMode::RoundPreferFloor, "round_prefer_floor"),
    (NearestMode::RoundPreferCeil, "round_prefer_ceil"),
    (NearestMode::Floor, "floor"),
    (NearestMode::Ceil, "ceil"),
];

fn params(nearest_only: bool) -> impl Strategy<Value = ResizeParams> {
    let modes = if nearest_only { 0..1usize } else { 0..3usize };
    (modes, 0..6usize, 0..4usize, prop::sample::select(vec![-0.75f32, -0.5]), any::<bool>(), any::<bool>(), -3i32..3)
        .prop_map(|(m, c, n, cubic_a, exclude_outside, antialias, ext)| ResizeParams {
            mode: MODES[m].0,
            coord: COORDS[c].0,
            nearest: NEAREST[n].0,
            cubic_a,
            exclude_outside,
            antialias: antialias && m != 0,
            extrapolation: ext as f32,
            roi_f32: true,
        })
}

fn case(nearest_only: bool) -> impl Strategy<Value = Case> {
    (shape(3..=4, 6), 1..=3usize, any::<bool>(), params(nearest_only)).prop_flat_map(|(shape, k, all, p)| {
        let r = shape.len();
        let axes: Option<Vec<usize>> = if all { None } else { Some((r - k.min(r)..r).collect()) };
        let n = axes.as_ref().map_or(r, |a| a.len());
        let scale = prop::sample::select(vec![0.35f32, 0.5, 0.6, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0]);
        let spec = prop_oneof![
            prop::collection::vec(scale, n).prop_map(Spec::Scales),
            (prop::collection::vec(1..=9usize, n), prop::sample::select(vec!["stretch", "not_larger", "not_smaller"]))
                .prop_map(|(s, pol)| Spec::Sizes(s, pol)),
        ];
        let roi =
            (prop::collection::vec(-0.2f32..0.6, n), prop::collection::vec(0.4f32..1.3, n)).prop_map(|(mut a, b)| {
                a.extend(b);
                a
            });
        (Just(shape), Just(axes), spec, Just(p), roi).prop_map(|(shape, axes, spec, p, roi)| Case {
            shape,
            axes,
            spec,
            p,
            roi,
        })
    })
}

/// The kernel's axes, or `None` if some output size would be 0.
fn plan_axes(c: &Case) -> Option<Vec<ResizeAxis>> {
    let axes: Vec<usize> = c.axes.clone().unwrap_or_else(|| (0..c.shape.len()).collect());
    let ins: Vec<usize> = axes.iter().map(|&a| c.shape[a]).collect();
    let k = axes.len();
    let mut out = match &c.spec {
        Spec::Scales(s) => {
            axes.iter().zip(s).map(|(&a, &s)| ResizeAxis::scaled(a, c.shape[a], s as f64)).collect::<Vec<_>>()
        }
        Spec::Sizes(s, "stretch") => axes.iter().zip(s).map(|(&a, &s)| ResizeAxis::sized(a, c.shape[a], s)).collect(),
        Spec::Sizes(s, pol) => {
            let ratios = s.iter().zip(&ins).map(|(&s, &d)| s as f64 / d as f64);
            let one =
                if *pol == "not_larger" { ratios.fold(f64::INFINITY, f64::min) } else { ratios.fold(0.0, f64::max) };
            let o = |d: usize| (one * d as f64 + 0.5).floor() as usize;
            axes.iter().zip(&ins).map(|(&a, &d)| ResizeAxis { axis: a, out: o(d), scale: one, roi: None }).collect()
        }
    };
    if c.p.coord == CoordMode::TfCropAndResize {
        out.iter_mut().enumerate().for_each(|(i, a)| a.roi = Some((c.roi[i] as f64, c.roi[i + k] as f64)));
    }
    out.iter().all(|a| a.out > 0).then_some(out)
}

/// The ONNX name of an enum value.
fn name<T: PartialEq>(list: &[(T, &'static str)], v: T) -> String {
    list.iter().find(|(m, _)| *m == v).map(|(_, n)| n.to_string()).unwrap()
}

fn interp_resize(c: &Case, x: ir::interp::Tensor) -> ir::interp::Tensor {
    let mut at = vec![
        ("mode", Attr::Str(name(&MODES, c.p.mode))),
        ("coordinate_transformation_mode", Attr::Str(name(&COORDS, c.p.coord))),
        ("nearest_mode", Attr::Str(name(&NEAREST, c.p.nearest))),
        ("cubic_coeff_a", Attr::Float(c.p.cubic_a)),
        ("exclude_outside", Attr::Int(c.p.exclude_outside as i64)),
        ("antialias", Attr::Int(c.p.antialias as i64)),
        ("extrapolation_value", Attr::Float(c.p.extrapolation)),
    ];
    if let Some(a) = &c.axes {
        at.push(("axes", Attr::Ints(a.iter().map(|&a| a as i64).collect())));
    }
    let roi = (c.p.coord == CoordMode::TfCropAndResize).then(|| f32t(&[c.roi.len()], &c.roi));
    let (scales, sizes) = match &c.spec {
        Spec::Scales(s) => (Some(f32t(&[s.len()], s)), None),
        Spec::Sizes(s, pol) => {
            at.push(("keep_aspect_ratio_policy", Attr::Str(pol.to_string())));
            (None, Some(ints(&s.iter().map(|&v| v as i64).collect::<Vec<_>>())))
        }
    };
    interp(Opcode::Resize, vec![Some(x), roi, scales, sizes], attrs(at), 1).remove(0)
}

proptest! {
    // The parameter space is large (3 modes x 6 coordinate modes x ...).
    #![proptest_config(ProptestConfig { cases: 8 * CASES, ..config() })]

    #[test]
    fn resize_matches_interpreter(c in case(false), seed in any::<u32>()) {
        let Some(axes) = plan_axes(&c) else { return Ok(()) };
        let x: Vec<f32> = (0..numel(&c.shape)).map(|i| (i as f32 * 0.731 + seed as f32 * 1e-3).sin() * 10.0).collect();
        let want = interp_resize(&c, f32t(&c.shape, &x));
        let plan = ResizePlan::new(&c.shape, &axes, &c.p);
        prop_assert_eq!(plan.out_shape(), &want.shape[..]);
        let mut y = vec![0.0; want.len()];
        let mut scratch = vec![0.0; plan.scratch_len()];
        resize(&plan, &x, &mut y, &mut scratch);
        let tol = if c.p.mode == ResizeMode::Nearest { 0.0 } else { 1e-5 };
        check_close(&y, &as_f32(&want), tol, tol)?;
    }

    #[test]
    fn resize_nearest_i64_matches_interpreter(c in case(true)) {
        let Some(axes) = plan_axes(&c) else { return Ok(()) };
        let x: Vec<i64> = (0..numel(&c.shape) as i64).map(|i| i * 7 - 40).collect();
        let want = as_i64(&interp_resize(&c, i64t(&c.shape, &x)));
        let plan = ResizePlan::new(&c.shape, &axes, &c.p);
        let mut y = vec![0i64; want.len()];
        resize_nearest(&plan, &x, &mut y, c.p.extrapolation as i64, 0);
        prop_assert_eq!(&y, &want);
    }
}

/// The scratch buffers of three linear passes ping-pong correctly.
#[test]
fn three_axis_trilinear() {
    let c = Case {
        shape: vec![1, 2, 3, 4, 5],
        axes: Some(vec![2, 3, 4]),
        spec: Spec::Scales(vec![2.0, 0.5, 1.5]),
        p: ResizeParams { mode: ResizeMode::Linear, ..ResizeParams::default() },
        roi: vec![],
    };
    let x: Vec<f32> = (0..120).map(|i| (i as f32 * 0.37).cos() * 4.0).collect();
    let want = as_f32(&interp_resize(&c, f32t(&c.shape, &x)));
    let plan = ResizePlan::new(&c.shape, &plan_axes(&c).unwrap(), &c.p);
    assert!(plan.scratch_len() > 0);
    let mut y = vec![0.0; want.len()];
    resize(&plan, &x, &mut y, &mut vec![0.0; plan.scratch_len()]);
    check_close(&y, &want, 1e-5, 1e-5).unwrap();
}
