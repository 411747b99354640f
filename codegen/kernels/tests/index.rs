//! Index kernels against the reference interpreter: ScatterElements /
//! ScatterND (every reduction, negative indices, duplicates), GatherND (batch
//! dims) and OneHot, over random shapes and values; out-of-range indices must
//! be reported, not read.

mod common;

use common::*;
use edgec_kernels::index::{one_hot, scatter};
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn reduction() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("none"), Just("add"), Just("mul"), Just("max"), Just("min")]
}

fn combine_f32(r: &str) -> fn(f32, f32) -> f32 {
    match r {
        "none" => scatter::overwrite,
        "add" => scatter::ScatterReduction::Add.combine(),
        "mul" => scatter::ScatterReduction::Mul.combine(),
        "max" => scatter::ScatterReduction::Max.combine(),
        _ => scatter::ScatterReduction::Min.combine(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn scatter_elements_matches(s in shape(), ax in 0usize..3, shrink in prop::collection::vec(0usize..3, 3), r in reduction(), seed in any::<u64>()) {
        let ax = ax % s.len();
        let is: Vec<usize> = s.iter().enumerate().map(|(d, &n)| if d == ax { 1 + shrink[d] } else { (n - shrink[d].min(n - 1)).max(1) }).collect();
        let n = s[ax] as i64;
        let idx = rand_ints(numel(&is), seed, -n, n);
        let (x, u) = (values(numel(&s), seed ^ 1), values(numel(&is), seed ^ 2));
        let a = attrs(&[("axis", Attr::Int(ax as i64)), ("reduction", Attr::Str(r.into()))]);
        let want = run(Opcode::ScatterElements, &[t_(&s, &x), ti(&is, idx.clone()), t_(&is, &u)], a, 1);
        let mut y = vec![0f32; x.len()];
        scatter::scatter_elements(&s, ax, &x, &is, &idx, &u, combine_f32(r), &mut y);
        assert_close(&y, &f32s(&want[0]), "scatter_elements");
        // The run-time shape check accepts exactly what fits.
        prop_assert!(scatter::scatter_check(&s, Some(ax), &is, &is).is_ok());
        let mut wide = is.clone();
        wide[(ax + 1) % s.len()] = s[(ax + 1) % s.len()] + 1;
        prop_assert_eq!(scatter::scatter_check(&s, Some(ax), &wide, &wide).is_ok(), s.len() == 1);
        prop_assert!(scatter::scatter_check(&s, Some(ax), &is, &[is.clone(), vec![1]].concat()).is_err());
    }

    #[test]
    fn scatter_nd_matches(s in shape(), k in 1usize..4, rows in prop::collection::vec(1usize..4, 0..2), r in reduction(), seed in any::<u64>()) {
        let k = k.min(s.len());
        let is = [rows.clone(), vec![k]].concat();
        let us = [rows, s[k..].to_vec()].concat();
        let mut idx = Vec::new();
        for row in 0..numel(&is) / k {
            for (j, &d) in s[..k].iter().enumerate() {
                idx.push(rand_ints(1, seed ^ (row * 8 + j) as u64, -(d as i64), d as i64)[0]);
            }
        }
        let (x, u) = (values(numel(&s), seed ^ 1), values(numel(&us), seed ^ 2));
        let a = attrs(&[("reduction", Attr::Str(r.into()))]);
        let want = run(Opcode::ScatterND, &[t_(&s, &x), ti(&is, idx.clone()), t_(&us, &u)], a, 1);
        let mut y = vec![0f32; x.len()];
        scatter::scatter_nd(&s, &x, &is, &idx, &u, combine_f32(r), &mut y);
        assert_close(&y, &f32s(&want[0]), "scatter_nd");
        prop_assert!(scatter::scatter_check(&s, None, &is, &us).is_ok());
        prop_assert!(scatter::scatter_check(&s, None, &is, &[us.clone(), vec![2]].concat()).is_err());
        prop_assert!(scatter::scatter_check(&s, None, &[is[..is.len() - 1].to_vec(), vec![s.len() + 1]].concat(), &us).is_err());
    }

    #[test]
    fn gather_nd_matches(s in prop::collection::vec(1usize..4, 2..4), b in 0usize..2, k in 1usize..3, rows in 1usize..4, seed in any::<u64>()) {
        let b = b.min(s.len() - 1);
        let k = k.min(s.len() - b);
        let is = [s[..b].to_vec(), vec![rows, k]].concat();
        let idx: Vec<i64> = (0..numel(&is)).map(|f| {
            let d = s[b + f % k] as i64;
            rand_ints(1, seed ^ f as u64, -d, d)[0]
        }).collect();
        let x: Vec<i64> = (0..numel(&s) as i64).collect();
        let a = attrs(&[("batch_dims", Attr::Int(b as i64))]);
        let want = run(Opcode::GatherND, &[ti(&s, x.clone()), ti(&is, idx.clone())], a, 1);
        let mut y = vec![0i64; numel(&want[0].shape)];
        scatter::gather_nd(&s, b, &x, &is, &idx, &mut y);
        prop_assert_eq!(y, i64s(&want[0]));
    }

    #[test]
    fn one_hot_matches(s in prop::collection::vec(1usize..4, 0..3), ax in 0usize..4, depth in 1usize..5, seed in any::<u64>()) {
        let ax = ax % (s.len() + 1);
        let d = depth as i64;
        let idx = rand_ints(numel(&s), seed, -d - 1, d + 2);
        let vals = [-1.5f32, 2.5];
        let a = attrs(&[("axis", Attr::Int(ax as i64))]);
        let want = run(Opcode::OneHot, &[ti(&s, idx.clone()), ti(&[], vec![d]), t_(&[2], &vals)], a, 1);
        let mut y = vec![0f32; numel(&want[0].shape)];
        one_hot::one_hot(&s, ax, depth, &idx, &vals, &mut y);
        assert_close(&y, &f32s(&want[0]), "one_hot");
    }
}

#[test]
#[should_panic(expected = "ScatterElements: index 3 is out of range")]
fn scatter_elements_rejects_out_of_range_indices() {
    let mut y = [0f32; 3];
    scatter::scatter_elements(&[3], 0, &[1.0; 3], &[1], &[3i64], &[2.0], scatter::overwrite, &mut y);
}

#[test]
#[should_panic(expected = "GatherND: index -3 is out of range")]
fn gather_nd_rejects_out_of_range_indices() {
    let mut y = [0f32; 1];
    scatter::gather_nd(&[2], 0, &[1.0; 2], &[1, 1], &[-3i64], &mut y);
}

#[test]
#[should_panic(expected = "ScatterND: index 2 is out of range")]
fn scatter_nd_rejects_out_of_range_indices() {
    let mut y = [0i64; 4];
    scatter::scatter_nd(&[2, 2], &[0; 4], &[1, 2], &[0i32, 2], &[5], scatter::overwrite, &mut y);
}
