//! Build a module with the IR API, infer its shapes, and print it.
//!
//! `cargo run -p edgec-examples --example build_module`

use ir::{Attr, Attrs, Constant, DType, Dim, Function, Loc, Module, Opcode, Shape, Symbol, TensorType};
use passes::{parse_pipeline, PassManager, PassOptions};

fn main() {
    let mut m = Module::new("example");
    m.add_const(Constant::from_f32s("scale", &[4], &[1.0, 1.0, 1.0, 1.0])).expect("fresh name");
    let mut f = Function::new("main");
    let seq = Dim::Sym(Symbol::new("seq"));
    let x = f.add_param(Some("x".into()), TensorType::new(DType::F32, Shape::from_dims([seq, Dim::Static(4)])));
    // Result types may be left unknown; `shape-infer` refines them.
    let unknown = TensorType::new(DType::F32, Shape::from_dims([Dim::Unknown, Dim::Unknown]));
    let k = f.append_op(
        Opcode::CoreConst,
        [],
        Attrs::new().with("value", Attr::Sym("scale".into())),
        [TensorType::fixed(DType::F32, &[4])],
        Loc::Unknown,
    );
    let k = f.result(k);
    let mul = f.append_op(Opcode::Mul, [Some(x), Some(k)], Attrs::new(), [unknown.clone()], Loc::onnx("scale", "Mul"));
    let mul = f.result(mul);
    let relu = f.append_op(Opcode::Relu, [Some(mul)], Attrs::new(), [unknown.clone()], Loc::onnx("act", "Relu"));
    f.body.results.push(f.result(relu));
    f.result_types.push(unknown);
    m.funcs.push(f);

    let pipeline = parse_pipeline("shape-infer,canonicalize,dce").expect("registered passes");
    let report =
        PassManager::new(pipeline, PassOptions::default()).run(&mut m, &mut std::io::stderr()).expect("passes");
    print!("{}", ir::text::print_module(&m));
    eprint!("{report}");
}
