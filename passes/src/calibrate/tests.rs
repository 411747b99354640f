use super::*;
use proptest::prelude::*;

/// Deterministic pseudo-random values in [0, 1) (a 64-bit LCG).
fn uniform(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// Roughly normal values (sum of 12 uniforms, minus 6): mean 0, sigma 1.
fn normal(n: usize, seed: u64) -> Vec<f32> {
    let u = uniform(12 * n, seed);
    u.chunks(12).map(|c| c.iter().sum::<f32>() - 6.0).collect()
}

fn observed(batches: &[&[f32]]) -> Observer {
    let mut o = Observer::default();
    for b in batches {
        o.observe_range(b);
    }
    o.freeze();
    for b in batches {
        o.observe_hist(b);
    }
    o
}

#[test]
fn methods_parse_and_bad_ones_are_named() {
    assert_eq!(Method::parse("minmax"), Ok(Method::MinMax));
    assert_eq!(Method::parse("percentile:99.99"), Ok(Method::Percentile(99.99)));
    assert_eq!(Method::parse("entropy"), Ok(Method::Entropy));
    assert_eq!(Method::parse("mse"), Ok(Method::Mse));
    assert!(Method::parse("percentile:120").unwrap_err().contains("(0, 100]"));
    assert!(Method::parse("percentile:x").unwrap_err().contains("(0, 100]"));
    assert!(Method::parse("kl").unwrap_err().contains("known: minmax, percentile:P, entropy, mse"));
}

#[test]
fn qparams_follow_the_onnx_conventions() {
    // Asymmetric u8: [-1, 3] over 0..=255; zero exact.
    let p = qparams(-1.0, 3.0, QType::U8, false);
    assert_eq!(p.zero_point, 64);
    assert!((p.scale - 4.0 / 255.0).abs() < 1e-9);
    // A range without 0 is extended to contain it.
    assert_eq!(qparams(2.0, 4.0, QType::U8, false), qparams(0.0, 4.0, QType::U8, false));
    assert_eq!(qparams(2.0, 4.0, QType::U8, false).zero_point, 0);
    // Symmetric i8: ±2 over -127..=127.
    let s = qparams(-2.0, 1.0, QType::I8, true);
    assert_eq!(s.zero_point, 0);
    assert!((s.scale - 2.0 / 127.0).abs() < 1e-9);
    // Symmetric u8 centres on 128; i16 on 0.
    assert_eq!(qparams(-1.0, 1.0, QType::U8, true).zero_point, 128);
    assert_eq!(qparams(-1.0, 1.0, QType::I16, true), QParams { scale: (1.0f64 / 32767.0) as f32, zero_point: 0 });
    // Zero width.
    assert_eq!(qparams(0.0, 0.0, QType::I8, false), QParams { scale: 1.0, zero_point: 0 });
}

#[test]
fn minmax_is_the_extremes_with_zero() {
    let o = observed(&[&[0.5, 2.0], &[1.0, 3.5, f32::NAN]]);
    assert_eq!(o.range(Method::MinMax, QType::U8), (0.0, 3.5));
    let o = observed(&[&[-4.0, -1.0]]);
    assert_eq!(o.range(Method::MinMax, QType::I8), (-4.0, 0.0));
}

#[test]
fn percentile_clips_rare_outliers() {
    let mut xs = uniform(100_000, 1);
    xs.extend([1000.0, -500.0]);
    let o = observed(&[&xs]);
    let (lo, hi) = o.range(Method::Percentile(99.99), QType::U8);
    // The histogram spans [-500, 1000]: the range is exact to within a bin
    // (1500 / BINS) of the bulk [0, 1).
    let width = 1500.0 / BINS as f32;
    assert!(lo <= 0.0 && lo > -width, "{lo}");
    assert!(hi >= 0.99 && hi < 1.0 + 2.0 * width, "{hi}");
    // 100 keeps everything.
    assert_eq!(o.range(Method::Percentile(100.0), QType::U8), (-500.0, 1000.0));
}

#[test]
fn entropy_clips_the_tail_of_a_normal_distribution() {
    let mut xs = normal(50_000, 7);
    xs.push(40.0);
    let o = observed(&[&xs]);
    let (lo, hi) = o.range(Method::Entropy, QType::I8);
    assert!((2.0..20.0).contains(&hi), "threshold {hi} should sit between the bulk and the outlier");
    assert!(lo < 0.0 && lo >= -hi - 1e-3, "{lo} {hi}");
}

/// Laplace-distributed values (scale 1): a long, thin tail.
fn laplace(n: usize, seed: u64) -> Vec<f32> {
    let u = uniform(2 * n, seed);
    u.chunks(2).map(|c| -(1.0 - c[0]).ln() * if c[1] < 0.5 { -1.0 } else { 1.0 }).collect()
}

#[test]
fn mse_keeps_a_uniform_range_and_trims_a_long_thin_tail() {
    let o = observed(&[&uniform(20_000, 3)]);
    let (_, hi) = o.range(Method::Mse, QType::U8);
    assert!(hi > 0.9, "{hi}");
    // Laplace: clipping the few largest values costs less than the coarser
    // steps of the full range.
    let o = observed(&[&laplace(200_000, 5)]);
    let (lo, hi) = o.range(Method::Mse, QType::I8);
    let (min, max) = o.extremes();
    assert!(hi < 0.95 * max && lo > 0.95 * min, "[{lo}, {hi}] of [{min}, {max}]");
}

#[test]
fn mse_moves_each_end_on_its_own() {
    // hard_swish's shape: most values bunched just above its floor -0.375,
    // an exponential tail and one outlier at 10. Clipping the tail must not
    // clip the floor (scaling both ends together would).
    let u = uniform(100_000, 9);
    let mut xs: Vec<f32> = u
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 20 == 0 { 0.3 - 0.3 * (1.0 - x).ln() } else { -0.375 + 0.6 * x * x })
        .collect();
    xs.push(10.0);
    let o = observed(&[&xs]);
    let (lo, hi) = o.range(Method::Mse, QType::U8);
    assert!(lo < -0.36, "the floor is kept: {lo}");
    assert!(hi < 9.5, "the tail is clipped: {hi}");
}

#[test]
fn outside_counts_the_share_of_values_a_range_clips() {
    // 0.5, 1.5, ..., 99.5: a range of [10, 89.9] leaves 10 below and 10 above.
    let xs: Vec<f32> = (0..100).map(|i| i as f32 + 0.5).collect();
    let o = observed(&[&xs]);
    assert_eq!(o.outside(0.0, 100.0), 0.0);
    assert!((o.outside(10.0, 89.9) - 0.2).abs() < 1e-9, "{}", o.outside(10.0, 89.9));
    assert_eq!(Observer::default().outside(0.0, 1.0), 0.0);
}

#[test]
fn calibration_does_not_depend_on_batch_order() {
    let (a, b) = (normal(5000, 11), uniform(5000, 12));
    for m in [Method::MinMax, Method::Percentile(99.9), Method::Entropy, Method::Mse] {
        assert_eq!(observed(&[&a, &b]).range(m, QType::U8), observed(&[&b, &a]).range(m, QType::U8), "{m:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn ranges_contain_zero_and_stay_within_the_extremes(
        xs in prop::collection::vec(-1e4f32..1e4, 1..400),
        m in prop::sample::select(vec![Method::MinMax, Method::Percentile(99.0), Method::Entropy, Method::Mse]),
        q in prop::sample::select(vec![QType::U8, QType::I8]),
    ) {
        let o = observed(&[&xs]);
        let (lo, hi) = o.range(m, q);
        let (min, max) = o.extremes();
        prop_assert!(lo <= 0.0 && hi >= 0.0, "{lo} {hi}");
        prop_assert!(lo >= min && hi <= max, "{lo} {hi} outside {min} {max}");
        let p = qparams(lo, hi, q, false);
        let (qmin, qmax) = q.bounds();
        prop_assert!(p.scale > 0.0 && (qmin..=qmax).contains(&p.zero_point));
    }
}

const MODULE: &str = r#"module @m {
  func @main(%x: f32[4]) -> (f32[4]) {
    %r = onnx.Relu %x : f32[4]
    %y = onnx.Mul %r, %x : f32[4]
    return %y
  }
}"#;

#[test]
fn observe_watches_every_computed_f32_value_over_the_set() {
    let m = ir::text::parse_module(MODULE, "calib.eir", None).expect("parses").module;
    let sample = |xs: [f32; 4]| vec![Tensor::new(vec![4], Data::F32(xs.to_vec()))];
    let set = [sample([-1.0, 0.5, 2.0, -3.0]), sample([4.0, -2.0, 0.0, 1.0])];
    let obs = observe(&m, &set).expect("calibrates");
    let main = m.func("main").expect("main");
    let ops = main.live_ops();
    let result = |i: usize| obs.get(&main.ops[ops[i]].results[0]).expect("op result observed");
    let input = obs.get(&main.body.params[0]).expect("inputs are observed");
    assert_eq!(input.range(Method::MinMax, QType::U8), (-3.0, 4.0));
    assert_eq!(result(0).range(Method::MinMax, QType::U8), (0.0, 4.0));
    // Relu(x) * x over both samples: 0.25, 4, 16, 1 and zeros.
    assert_eq!(result(1).range(Method::MinMax, QType::U8), (0.0, 16.0));
    assert_eq!(obs.len(), 3);
    assert_eq!(observe(&m, &[]).unwrap_err(), CalibError::Empty);
    let bad = [sample([1.0; 4]), vec![Tensor::new(vec![3], Data::F32(vec![0.0; 3]))]];
    let e = observe(&m, &bad).unwrap_err().to_string();
    assert!(e.starts_with("calibration sample #1: "), "{e}");
}

#[test]
fn entropy_keeps_the_extremes_of_sparse_tensors() {
    // A squeeze-excite scale: a few hundred values. KL between histograms this
    // sparse picks thresholds that clip nearly everything; the extremes stay.
    let few: Vec<f32> = uniform(300, 3).iter().map(|x| 0.3 + x * 0.6).collect();
    let o = observed(&[&few]);
    assert_eq!(o.range(Method::Entropy, QType::U8), o.range(Method::MinMax, QType::U8));
}

#[test]
fn entropy_clips_a_rare_outlier_but_not_the_bulk() {
    let mut xs: Vec<f32> = normal(40000, 5).iter().map(|x| x.max(0.0)).collect();
    xs[7] = 40.0;
    let o = observed(&[&xs]);
    let (lo, hi) = o.range(Method::Entropy, QType::U8);
    assert_eq!(lo, 0.0);
    assert!(hi > 1.5 && hi < 10.0, "threshold {hi}");
}
