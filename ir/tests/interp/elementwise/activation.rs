//! The fused activations (`act` attributes of the `core.*` ops) and `core.silu` against the
//! unfused elementwise ops, on special values and in every float type.

use crate::common::fused::*;

#[test]
fn every_activation_matches_the_unfused_op_on_special_values() {
    for dt in [DType::F32, DType::F16, DType::F64] {
        let x = as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), dt);
        for &act in ALL_ACTS {
            let fused = ir::interp::elementwise::apply_activation(act, x.clone()).unwrap();
            check(&fused, &unfused_act(act, x.clone()));
        }
    }
}

#[test]
fn apply_f32_and_f64_agree_with_the_tensor_form() {
    for &act in ALL_ACTS {
        let y32 = unfused_act(act, f32t(&[SPECIAL.len()], SPECIAL));
        let y64 = unfused_act(act, as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), DType::F64));
        for (i, &x) in SPECIAL.iter().enumerate() {
            let (a, b) = (act.apply_f32(x), y32.to_f64s()[i] as f32);
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{act:?}({x}): {a} vs {b}");
            let (a, b) = (act.apply_f64(x as f64), y64.to_f64s()[i]);
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{act:?}({x}) f64: {a} vs {b}");
        }
    }
}

#[test]
fn activation_attributes_round_trip() {
    for &act in ALL_ACTS {
        let mut attrs = Attrs::new().with("act_alpha", Attr::Float(9.0)).with("group", Attr::Int(1));
        act.to_attrs(&mut attrs);
        assert_eq!(Activation::from_attrs(&attrs), Ok(act), "{attrs:?}");
        assert_eq!(attrs.int("group"), Some(1));
        if act == Activation::None {
            assert!(attrs.get("act").is_none() && attrs.get("act_alpha").is_none());
        }
    }
    let defaults = |name: &str| Activation::from_attrs(&Attrs::new().with("act", Attr::Str(name.into())));
    assert_eq!(defaults("clip"), Ok(Activation::Clip { min: f32::NEG_INFINITY, max: f32::INFINITY }));
    assert_eq!(defaults("hard_sigmoid"), Ok(Activation::HardSigmoid { alpha: 0.2, beta: 0.5 }));
    assert_eq!(defaults("leaky_relu"), Ok(Activation::LeakyRelu { alpha: 0.01 }));
    assert_eq!(Activation::from_attrs(&Attrs::new()), Ok(Activation::None));
    assert!(defaults("swish").unwrap_err().contains("is not one of"));
    let stray = Attrs::new().with("act", Attr::Str("relu".into())).with("act_alpha", Attr::Float(1.0));
    assert_eq!(Activation::from_attrs(&stray).unwrap_err(), "attribute `act_alpha` is not used by act = \"relu\"");
    let stray = Attrs::new().with("act", Attr::Str("leaky_relu".into())).with("act_beta", Attr::Float(1.0));
    assert!(Activation::from_attrs(&stray).is_err());
}

#[test]
fn silu_matches_mul_sigmoid_in_every_float_type() {
    for dt in [DType::F32, DType::F16, DType::F64] {
        let x = as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), dt);
        let fused = run(Opcode::CoreSilu, &[Some(x.clone())], Attrs::new());
        check(&fused, &unfused_act(Activation::Silu, x));
    }
}
