//! The mirrored taps against the reference interpreter, and known kernels.

use super::kernel::{solve, Interp, Kernel1d};
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};

const MODES: [&str; 3] = ["nearest", "linear", "cubic"];
const CTMS: [&str; 5] = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"];
const ROUNDINGS: [&str; 4] = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];

fn attrs(mode: &str, ctm: &str, rounding: &str, exclude: bool, antialias: bool) -> Attrs {
    let mut a = Attrs::new()
        .with("mode", Attr::Str(mode.into()))
        .with("coordinate_transformation_mode", Attr::Str(ctm.into()))
        .with("nearest_mode", Attr::Str(rounding.into()))
        .with("exclude_outside", Attr::Int(exclude as i64));
    if antialias && mode != "nearest" {
        a.set("antialias", Attr::Int(1));
    }
    a
}

/// The reference's 1-D operator `M[y][i]` (output y, input i), probed with one-hot rows.
fn reference(a: &Attrs, n: usize, s: usize) -> Vec<Vec<f64>> {
    let eye: Vec<f64> = (0..n * n).map(|k| (k / n == k % n) as u8 as f64).collect();
    let x = Tensor::new(vec![n, 1, n], Data::F64(eye));
    let scales = Tensor::new(vec![3], Data::F32(vec![1.0, 1.0, s as f32]));
    let out = eval_op(Opcode::Resize, &[Some(x), None, Some(scales)], a.clone(), 1).expect("reference Resize");
    let v = out[0].to_f64s();
    let m = n * s;
    (0..m).map(|y| (0..n).map(|i| v[i * m + y]).collect()).collect()
}

fn mirrored(it: &Interp, n: usize, s: usize) -> Vec<Vec<f64>> {
    (0..n * s)
        .map(|y| {
            let mut row = vec![0.0; n];
            it.taps(y, n, s).into_iter().for_each(|(i, w)| row[i] += w);
            row
        })
        .collect()
}

/// The conv form's operator: nearest upsample, edge clamp, correlation with `k`.
fn conv_form(k: &Kernel1d, n: usize, s: usize) -> Vec<Vec<f64>> {
    (0..n * s)
        .map(|y| {
            let mut row = vec![0.0; n];
            for (j, &w) in k.weights.iter().enumerate() {
                let pos = y as i64 + j as i64 + k.first;
                row[(pos.div_euclid(s as i64)).clamp(0, n as i64 - 1) as usize] += w;
            }
            row
        })
        .collect()
}

fn close(a: &[Vec<f64>], b: &[Vec<f64>], tol: f64) -> bool {
    a.iter().flatten().zip(b.iter().flatten()).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn taps_match_the_reference() {
    for mode in MODES {
        for ctm in CTMS {
            for rounding in ROUNDINGS {
                for (exclude, aa) in [(false, false), (true, false), (false, true)] {
                    let a = attrs(mode, ctm, rounding, exclude, aa);
                    let it = Interp::resize(&a).expect("supported");
                    for n in 1..7 {
                        for s in 2..6 {
                            let (want, got) = (reference(&a, n, s), mirrored(&it, n, s));
                            assert!(close(&want, &got, 1e-12), "{mode}/{ctm}/{rounding}/ex{exclude} n={n} s={s}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn solved_kernels_reproduce_the_reference() {
    let mut exact = 0;
    for mode in MODES {
        for ctm in CTMS {
            for rounding in ROUNDINGS {
                for exclude in [false, true] {
                    let a = attrs(mode, ctm, rounding, exclude, false);
                    let it = Interp::resize(&a).expect("supported");
                    for n in 1..9 {
                        for s in 2..6 {
                            if let Ok(k) = solve(&it, n, s) {
                                exact += 1;
                                assert!(k.weights[0] != 0.0 && k.weights[k.weights.len() - 1] != 0.0);
                                let ok = close(&reference(&a, n, s), &conv_form(&k, n, s), 1e-9);
                                assert!(ok, "{mode}/{ctm}/{rounding}/ex{exclude} n={n} s={s}: {k:?}");
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(exact > 1000, "only {exact} exact cases");
}

#[test]
fn known_kernels() {
    let lin = Interp::resize(&attrs("linear", "half_pixel", "floor", false, false)).expect("linear");
    let k = solve(&lin, 8, 2).expect("linear half_pixel x2 is exact");
    assert_eq!((k.weights.as_slice(), k.first), ([0.25, 0.5, 0.25].as_slice(), -1));
    let near = Interp::resize(&attrs("nearest", "asymmetric", "floor", false, false)).expect("nearest");
    assert_eq!(solve(&near, 8, 3).expect("nearest floor"), Kernel1d::identity());
    let ceil = Interp::resize(&attrs("nearest", "asymmetric", "round_prefer_ceil", false, false)).expect("nearest");
    let k = solve(&ceil, 8, 2).expect("nearest round_prefer_ceil x2 is a shift");
    assert_eq!((k.weights.as_slice(), k.first), ([1.0].as_slice(), 1));
    let ac = Interp::resize(&attrs("linear", "align_corners", "floor", false, false)).expect("align_corners");
    assert!(solve(&ac, 5, 2).is_err(), "align_corners 5 -> 10 is not shift-invariant");
    let k = solve(&ac, 2, 3).expect("any mode on 2 inputs is exact");
    assert_eq!(k.weights.len(), 5);
}

/// The exactness table documented in `passes/rules/resize.rules`, per axis of
/// `n` inputs upsampled by `s >= 2`.
fn documented(mode: &str, ctm: &str, rounding: &str, exclude: bool, n: usize, s: usize) -> bool {
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

#[test]
fn exactness_table() {
    for mode in MODES {
        for ctm in CTMS {
            for rounding in ROUNDINGS {
                for exclude in [false, true] {
                    let it = Interp::resize(&attrs(mode, ctm, rounding, exclude, false)).expect("supported");
                    for n in 1..11 {
                        for s in 2..6 {
                            let want = documented(mode, ctm, rounding, exclude, n, s);
                            let got = solve(&it, n, s).is_ok();
                            assert_eq!(got, want, "{mode}/{ctm}/{rounding}/ex{exclude} n={n} s={s}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn resize_rules_load() {
    use crate::rules::{RuleSet, BUILTIN};
    let (file, src) = BUILTIN.iter().find(|(f, _)| *f == "resize.rules").expect("resize.rules is built in");
    let mut rs = RuleSet::default();
    rs.add_source(file, src).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = rs.rules.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["resize-to-conv", "upsample-to-conv"]);
    assert!(rs.rules.iter().all(|r| r.topic == "resize" && !r.doc.trim().is_empty()));
}
