//! Differential property tests of the `resize` rules: random `onnx.Resize` (and
//! opset-9 `onnx.Upsample`) nodes over modes × coordinate transformations ×
//! nearest roundings × `exclude_outside`/antialias/`cubic_coeff_a` × factors 1–4
//! (plus non-integer and downsampling factors) × rank 3–5 shapes, in the scales
//! and sizes forms, through `shape-infer,resize-to-conv,dce`. Where an exact conv
//! form exists (the table in `passes/rules/resize.rules`, mirrored by
//! [`exact_axis`]) the rule must fire and no Resize may remain; elsewhere it must
//! decline. Outputs must match the original Resize within rtol 1e-4 / atol 1e-5.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use passes::{parse_pipeline_with, PassManager, PassOptions};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, options};

const PIPELINE: &str = "shape-infer,resize-to-conv,dce";
const TOL: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };
const MODES: [&str; 3] = ["nearest", "linear", "cubic"];
const CTMS: [&str; 5] = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"];
const ROUNDINGS: [&str; 4] = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];

/// Whether one axis of `n` inputs upsampled by the integer `s >= 2` has a conv
/// form (the documented table; `passes` checks its solver against it too).
fn exact_axis(mode: &str, ctm: &str, rounding: &str, exclude: bool, n: usize, s: usize) -> bool {
    let shift_invariant = ctm != "align_corners";
    match mode {
        "nearest" => {
            let inside = !exclude
                || match ctm {
                    "asymmetric" => rounding == "floor" || (rounding == "round_prefer_floor" && s == 2),
                    "align_corners" => true,
                    _ => rounding.starts_with("round"),
                };
            inside && (shift_invariant || n <= 2 || s == 2)
        }
        "linear" => shift_invariant || n <= 2,
        _ => n <= 2 || (shift_invariant && !exclude),
    }
}

/// One random case.
#[derive(Clone, Debug)]
struct Case {
    /// `onnx.Upsample` instead of `onnx.Resize`.
    upsample: bool,
    /// Input shape (batch, channels, spatial...).
    shape: Vec<usize>,
    /// Factor per spatial axis (1.5 and 0.5 are the inexact ones).
    factors: Vec<f64>,
    mode: &'static str,
    ctm: &'static str,
    rounding: &'static str,
    exclude: bool,
    antialias: bool,
    cubic_a: f32,
    /// Give `sizes` instead of `scales`.
    sizes: bool,
    /// Give the `axes` attribute (the spatial axes, negative if `neg_axes`).
    axes: bool,
    neg_axes: bool,
    /// Declare the batch dim symbolic (scales form only).
    sym_batch: bool,
    /// Run for rk3588-npu instead of no target.
    npu: bool,
    seed: u64,
}

impl Case {
    fn out_shape(&self) -> Vec<usize> {
        let mut out = self.shape.clone();
        for (i, f) in self.factors.iter().enumerate() {
            out[2 + i] = (f * self.shape[2 + i] as f64).floor() as usize;
        }
        out
    }

    /// Whether the rule must fire.
    fn exact(&self) -> bool {
        let (mode, ctm, rounding, exclude) = if self.upsample {
            (self.mode, "asymmetric", "floor", false)
        } else {
            (self.mode, self.ctm, self.rounding, self.exclude)
        };
        self.factors.iter().zip(&self.shape[2..]).all(|(&f, &n)| {
            // The sizes form's factor is out / in (1.5 on one input is an identity then).
            let f = if self.sizes && !self.upsample { (f * n as f64).floor() / n as f64 } else { f };
            f == 1.0 || (f.fract() == 0.0 && f > 1.0 && exact_axis(mode, ctm, rounding, exclude, n, f as usize))
        })
    }

    fn attrs(&self) -> String {
        let mut a = vec![format!("mode = \"{}\"", self.mode)];
        if !self.upsample {
            a.push(format!("coordinate_transformation_mode = \"{}\"", self.ctm));
            a.push(format!("nearest_mode = \"{}\"", self.rounding));
            a.push(format!("exclude_outside = {}", self.exclude as i64));
            a.push(format!("cubic_coeff_a = {:?}", self.cubic_a));
            if self.antialias {
                a.push("antialias = 1".into());
            }
            if self.axes {
                let r = self.shape.len() as i64;
                let axes: Vec<String> =
                    (2..r).map(|x| if self.neg_axes { x - r } else { x }).map(|x| x.to_string()).collect();
                a.push(format!("axes = [{}]", axes.join(", ")));
            }
        }
        a.sort();
        a.join(", ")
    }

    /// The module text.
    fn module(&self) -> String {
        let dims = |s: &[usize], sym: bool| {
            let v: Vec<String> =
                s.iter().enumerate().map(|(i, d)| if i == 0 && sym { "n".into() } else { d.to_string() }).collect();
            format!("f32[{}]", v.join(", "))
        };
        let sym = self.sym_batch && !self.sizes;
        let (tx, ty) = (dims(&self.shape, sym), dims(&self.out_shape(), sym));
        let lead = if self.axes && !self.upsample { 0 } else { 2 };
        let (konst, operands) = if self.sizes && !self.upsample {
            let mut v: Vec<String> = self.out_shape().iter().map(|d| d.to_string()).collect();
            v.drain(..2 - lead);
            (format!("const @k : i64[{}] = dense<[{}]>", v.len(), v.join(", ")), "none, none, %k")
        } else {
            let mut v: Vec<String> = vec!["1.0".into(); lead];
            v.extend(self.factors.iter().map(|f| format!("{f:?}")));
            (format!("const @k : f32[{}] = dense<[{}]>", v.len(), v.join(", ")), "none, %k")
        };
        let kty = konst.split(" : ").nth(1).and_then(|s| s.split(" = ").next()).unwrap_or("f32[0]").to_owned();
        let op = if self.upsample { "onnx.Upsample %x, %k".to_owned() } else { format!("onnx.Resize %x, {operands}") };
        format!(
            "module @m attributes {{phase = \"onnx\"}} {{
  {konst}

  func @main(%x: {tx}) -> ({ty}) {{
    %k = core.const {{value = @k}} : {kty}
    %0 = {op} {{{}}} : {ty}
    return %0
  }}
}}
",
            self.attrs()
        )
    }

    fn input(&self) -> Tensor {
        let n: usize = self.shape.iter().product();
        let mut s = self.seed | 1;
        let v = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0) as f32
            })
            .collect();
        Tensor::new(self.shape.clone(), Data::F32(v))
    }
}

fn factor() -> impl Strategy<Value = f64> {
    prop_oneof![12 => (1u32..=4).prop_map(f64::from), 1 => Just(1.5), 1 => Just(0.5)]
}

fn case() -> impl Strategy<Value = Case> {
    let shape = (3usize..=5).prop_flat_map(|r| {
        let max = [7, 5, 3][r - 3];
        (1usize..=2, 1usize..=3, prop::collection::vec(1usize..=max, r - 2), prop::collection::vec(factor(), r - 2))
    });
    let modes = (0usize..3, 0usize..5, 0usize..4, prop::bool::weighted(0.25), prop::bool::weighted(0.2));
    let forms = (prop::bool::weighted(0.1), any::<bool>(), prop::bool::weighted(0.3), any::<bool>(), any::<bool>());
    let misc = (prop::sample::select(vec![-0.75f32, -0.5, -0.6]), any::<bool>(), any::<u64>());
    (shape, modes, forms, misc).prop_map(|((b, c, sp, mut fs), (m, ct, nr, ex, aa), (up, sz, ax, na, sym), misc)| {
        // A downsampled axis of 1 would be empty: make it a 1.5 upsample instead.
        for (f, &n) in fs.iter_mut().zip(&sp) {
            if *f == 0.5 && n < 2 {
                *f = 1.5;
            }
        }
        let mut shape = vec![b, c];
        shape.extend(&sp);
        let mode = if up { MODES[m % 2] } else { MODES[m] };
        Case {
            upsample: up,
            shape,
            factors: fs,
            mode,
            ctm: CTMS[ct],
            rounding: ROUNDINGS[nr],
            exclude: ex,
            antialias: aa && mode != "nearest",
            cubic_a: misc.0,
            sizes: sz,
            axes: ax,
            neg_axes: na,
            sym_batch: sym,
            npu: misc.1,
            seed: misc.2,
        }
    })
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let src = c.module();
    let m = ir::text::parse_module(&src, "case", None).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?.module;
    let target = c.npu.then_some("rk3588-npu");
    let run = optimize_and_compare(&m, PIPELINE, target, &[c.input()], TOL)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
    let rule = if c.upsample { "upsample-to-conv" } else { "resize-to-conv" };
    let out = ir::text::print_module(&run.optimized);
    let left = out.contains("onnx.Resize") || out.contains("onnx.Upsample");
    if c.exact() {
        prop_assert!(run.count(rule) > 0, "{rule} did not fire on an exact case:\n{src}");
        prop_assert!(!left, "a Resize/Upsample remains:\n{out}");
    } else {
        prop_assert_eq!(run.count(rule), 0, "{} fired on an inexact case:\n{}\n{}", rule, src, out);
        prop_assert!(left, "the inexact Resize disappeared:\n{out}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 640, ..ProptestConfig::default() })]

    #[test]
    fn resize_matches_its_conv_form(c in case()) {
        check(&c)?;
    }
}

/// The exhaustive grid on one small 2-D shape per factor: every mode ×
/// coordinate transformation × rounding × exclude_outside × factor 2–4.
#[test]
fn every_mode_combination() {
    let mut fired = 0;
    for (mode, ctm, rounding, exclude, f) in MODES.iter().flat_map(|&m| {
        CTMS.iter().flat_map(move |&c| {
            ROUNDINGS.iter().flat_map(move |&r| {
                [false, true].into_iter().flat_map(move |e| (2..=4).map(move |f| (m, c, r, e, f as f64)))
            })
        })
    }) {
        let c = Case {
            upsample: false,
            shape: vec![1, 2, 4, 3],
            factors: vec![f, 2.0],
            mode,
            ctm,
            rounding,
            exclude,
            antialias: false,
            cubic_a: -0.75,
            sizes: false,
            axes: false,
            neg_axes: false,
            sym_batch: false,
            npu: false,
            seed: 7,
        };
        check(&c).unwrap_or_else(|e| panic!("{mode}/{ctm}/{rounding}/ex{exclude} x{f}: {e}"));
        fired += c.exact() as usize;
    }
    assert!(fired > 200, "only {fired} exact combinations");
}

/// The reasons `--explain` shows for declined Resizes.
#[test]
fn decline_reasons() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests/rules/resize-neg-declines.eir"),
    )
    .expect("filetest");
    let mut m = ir::text::parse_module(&src, "neg", None).expect("parses").module;
    let opts = options(None).expect("options");
    let passes = parse_pipeline_with(PIPELINE, &opts).expect("pipeline");
    let run = PassManager::new(passes, PassOptions::default()).run(&mut m, &mut std::io::sink()).expect("runs");
    let reasons: Vec<String> = run
        .cx
        .egraphs()
        .flat_map(|(_, r)| r.rules.declined.get("resize-to-conv").into_iter().flatten())
        .map(|(k, _)| k.clone())
        .collect();
    for want in [
        "align_corners is not shift-invariant for these sizes (axis 2: 5 -> 10)",
        "non-integer scale 1.5 on axis 2",
        "downsampling (scale 0.5 on axis 2)",
        "scale 2 on axis 1",
        "cubic with exclude_outside renormalizes near the borders",
        "tf_crop_and_resize",
        "element type i64",
    ] {
        assert!(reasons.iter().any(|r| r.contains(want)), "no reason containing {want:?} in {reasons:#?}");
    }
}

/// A YOLO-style neck (1x1 conv + SiLU, nearest x2 Resize in the scales form,
/// concat with the skip feature, 3x3 conv) and a bilinear / bicubic head: on
/// rk3588-npu the default pipeline leaves no Resize and still matches; on cpu
/// every Resize stays.
#[test]
fn neck_and_heads_on_both_targets() {
    let neck = "module @m attributes {phase = \"onnx\"} {
  const @w1 : f32[4, 8, 1, 1] = dense<[0.1, -0.2, 0.3, 0.05, -0.15, 0.25, 0.2, -0.1, 0.3, 0.1, -0.3, 0.2, 0.15, -0.05, 0.1, 0.25, -0.2, 0.3, 0.1, -0.1, 0.05, 0.2, -0.25, 0.15, 0.2, 0.1, 0.05, -0.3, 0.25, -0.15, 0.1, 0.3]>
  const @sc : f32[4] = dense<[1.0, 1.0, 2.0, 2.0]>
  const @lin : f32[4] = dense<[1.0, 1.0, 2.0, 2.0]>
  const @cub : f32[4] = dense<[1.0, 1.0, 4.0, 4.0]>
  const @w2 : f32[2, 8, 3, 3] = dense<[W2]>

  func @main(%deep: f32[1, 8, 3, 4], %skip: f32[1, 4, 6, 8]) -> (f32[1, 2, 6, 8], f32[1, 4, 6, 8], f32[1, 4, 12, 16]) {
    %w1 = core.const {value = @w1} : f32[4, 8, 1, 1]
    %sc = core.const {value = @sc} : f32[4]
    %lin = core.const {value = @lin} : f32[4]
    %cub = core.const {value = @cub} : f32[4]
    %w2 = core.const {value = @w2} : f32[2, 8, 3, 3]
    %0 = onnx.Conv %deep, %w1 {kernel_shape = [1, 1]} : f32[1, 4, 3, 4]
    %1 = onnx.Sigmoid %0 : f32[1, 4, 3, 4]
    %2 = onnx.Mul %0, %1 : f32[1, 4, 3, 4]
    %3 = onnx.Resize %2, none, %sc {coordinate_transformation_mode = \"asymmetric\", mode = \"nearest\", nearest_mode = \"floor\"} : f32[1, 4, 6, 8]
    %4 = onnx.Concat %3, %skip {axis = 1} : f32[1, 8, 6, 8]
    %5 = onnx.Conv %4, %w2 {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : f32[1, 2, 6, 8]
    %6 = onnx.Resize %2, none, %lin {coordinate_transformation_mode = \"half_pixel\", mode = \"linear\"} : f32[1, 4, 6, 8]
    %7 = onnx.Resize %2, none, %cub {coordinate_transformation_mode = \"half_pixel\", mode = \"cubic\"} : f32[1, 4, 12, 16]
    return %5, %6, %7
  }
}
";
    let w2: Vec<String> = (0..144).map(|i| format!("{:?}", ((i * 37 % 17) as f32 - 8.0) / 64.0)).collect();
    let neck = neck.replace("W2", &w2.join(", "));
    let m = ir::text::parse_module(&neck, "neck", None).expect("parses").module;
    let inputs = [
        Case { shape: vec![1, 8, 3, 4], seed: 3, ..base_case() }.input(),
        Case { shape: vec![1, 4, 6, 8], seed: 5, ..base_case() }.input(),
    ];
    let npu = optimize_and_compare(&m, "shape-infer,canonicalize,optimize,dce", Some("rk3588-npu"), &inputs, TOL)
        .expect("npu optimizes and matches");
    let text = ir::text::print_module(&npu.optimized);
    assert_eq!(npu.count("resize-to-conv"), 3, "{text}");
    assert!(!text.contains("onnx.Resize"), "{text}");
    let cpu = optimize_and_compare(&m, "shape-infer,canonicalize,optimize,dce", Some("cpu"), &inputs, TOL)
        .expect("cpu optimizes and matches");
    assert_eq!(cpu.count("resize-to-conv"), 0);
    assert_eq!(ir::text::print_module(&cpu.optimized).matches("onnx.Resize").count(), 3);
}

fn base_case() -> Case {
    Case {
        upsample: false,
        shape: vec![1, 1, 1],
        factors: vec![1.0],
        mode: "nearest",
        ctm: "half_pixel",
        rounding: "round_prefer_floor",
        exclude: false,
        antialias: false,
        cubic_a: -0.75,
        sizes: false,
        axes: false,
        neg_axes: false,
        sym_batch: false,
        npu: false,
        seed: 1,
    }
}
