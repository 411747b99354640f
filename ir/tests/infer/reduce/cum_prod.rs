//! Shape inference of CumProd (the test also covers Swish, an elementwise op, in the same
//! function; it is kept whole).

use crate::common::listed_consts::*;

#[test]
fn cum_prod_and_swish_shapes() {
    assert_eq!(one(Opcode::CumProd, &["i32[N, 3]", "i64[]"], &[]), "i32[N, 3]");
    assert!(err(Opcode::CumProd, &["bool[2]", "i64[]"], &[]).contains("numeric"));
    assert_eq!(one(Opcode::Swish, &["f16[N, ?]"], &[]), "f16[N, ?]");
    assert!(err(Opcode::Swish, &["i32[2]"], &[]).contains("float"));
}
