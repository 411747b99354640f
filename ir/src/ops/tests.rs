//! Table-wide consistency tests; per-op inference tests live in `ir/tests/`.

use super::*;

#[test]
fn table_is_indexed_by_opcode_and_names_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for (i, &op) in Opcode::ALL.iter().enumerate() {
        assert_eq!(op as usize, i);
        assert!(seen.insert(op.name()), "duplicate op name {}", op.name());
        assert_eq!(Opcode::from_name(op.name()), Some(op));
        let d = op.def();
        assert!(!d.doc.is_empty(), "{} lacks a doc line", d.name);
        assert!(d.name.contains('.'), "{} lacks a dialect prefix", d.name);
        for slots in [d.operands, d.results] {
            for (si, s) in slots.iter().enumerate() {
                if matches!(s.slot, Slot::Variadic(_)) {
                    assert_eq!(si + 1, slots.len(), "{}: variadic slot `{}` not last", d.name, s.name);
                }
            }
        }
    }
}
