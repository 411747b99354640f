//! CumSum/CumProd and BitCast vs the interpreter: f32 (accumulated in f64
//! and rounded once per output, so bit-exact), wrapping i32, and byte
//! reinterpretation between f32 and i32 (NaN payloads and -0 included).

use super::common::*;
use edgec_kernels::ew::bitcast;
use edgec_kernels::misc::cum::{cum, Cum, Fold};
use ir::interp::{Data, Tensor};
use ir::{Attr, DType, Opcode};
use proptest::prelude::*;

fn params(s: &[usize], ax: usize, fold: Fold, exclusive: bool, reverse: bool) -> Cum {
    Cum { fold, outer: numel(&s[..ax]), n: s[ax], inner: numel(&s[ax + 1..]), exclusive, reverse }
}

fn run_interp(fold: Fold, x: Tensor, ax: usize, exclusive: bool, reverse: bool) -> Tensor {
    let op = if fold == Fold::Sum { Opcode::CumSum } else { Opcode::CumProd };
    let at = attrs(vec![("exclusive", Attr::Int(exclusive as i64)), ("reverse", Attr::Int(reverse as i64))]);
    interp(op, vec![Some(x), Some(i64t(&[], &[ax as i64]))], at, 1).remove(0)
}

fn fold() -> impl Strategy<Value = Fold> {
    prop::sample::select(vec![Fold::Sum, Fold::Prod])
}

/// A shape and an axis of it.
fn shape_axis() -> impl Strategy<Value = (Vec<usize>, usize)> {
    shape(1..=4, 5).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r)
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn f32_scans_match_bitwise(f in fold(), ex in any::<bool>(), rev in any::<bool>(),
                               (s, ax) in shape_axis(), seed in prop::collection::vec(-3.0f32..3.0, 625)) {
        let x = &seed[..numel(&s)];
        let want = as_f32(&run_interp(f, f32t(&s, x), ax, ex, rev));
        let mut y = vec![0.0f32; x.len()];
        cum(&params(&s, ax, f, ex, rev), x, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn i32_scans_wrap_like_the_interpreter(f in fold(), ex in any::<bool>(), rev in any::<bool>(),
                                           (s, ax) in shape_axis(), seed in prop::collection::vec(any::<i32>(), 625)) {
        let x = &seed[..numel(&s)];
        let Data::I32(want) = run_interp(f, i32t(&s, x), ax, ex, rev).data else { panic!("not i32") };
        let mut y = vec![0i32; x.len()];
        cum(&params(&s, ax, f, ex, rev), x, &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn bitcast_f32_i32_round_trips_like_the_interpreter(bits in prop::collection::vec(any::<u32>(), 0..40)) {
        let x: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let at = attrs(vec![("to", Attr::Type(DType::I32))]);
        let out = interp(Opcode::BitCast, vec![Some(f32t(&[x.len()], &x))], at, 1).remove(0);
        let Data::I32(want) = out.data else { panic!("not i32") };
        let mut y = vec![0i32; x.len()];
        bitcast(&x, &mut y);
        prop_assert_eq!(&y, &want);
        let mut back = vec![0.0f32; x.len()];
        bitcast(&y, &mut back);
        prop_assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits);
    }
}
