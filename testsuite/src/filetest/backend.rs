//! Backend filetests:
//! - `// test: emit rust` — the Rust backend's preparation passes, then its
//!   emitter; the output is each generated method (`f_*` runs a function,
//!   `h_*` computes its constants once), as Cranelift's `precise-output`
//!   shows the code of one function.
//! - `// test: run backends=interp,rust` — the crate is built and run on
//!   deterministic inputs; every output must match the reference
//!   interpreter within [`Tolerance::CRATE_VS_INTERPRETER`]; the output lists
//!   the interpreter's values (the first 8 of each output).

use compiler::check::{compare, Tolerance};
use ir::interp::{Data, Tensor};
use ir::{DType, Module};
use std::path::PathBuf;

/// The generated methods of `m`'s crate.
pub fn emit_rust(m: &Module, name: &str) -> Result<String, String> {
    let opts = codegen::rust::EmitOptions {
        name: "filetest".into(),
        source: name.into(),
        pack_for: codegen::rust::DEFAULT_PACK_FOR,
    };
    let g = codegen::rust::generate(m, &opts).map_err(|e| e.to_string())?;
    let lib = g.files.iter().find(|(p, _)| p == "src/lib.rs").ok_or("no src/lib.rs")?;
    Ok(methods(&String::from_utf8_lossy(&lib.1)))
}

/// Every `fn f_*` / `fn h_*` method of a generated `lib.rs`, as written.
fn methods(lib: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in lib.lines() {
        if line.starts_with("    fn f_") || line.starts_with("    fn h_") {
            inside = true;
        }
        if inside {
            out += line;
            out.push('\n');
        }
        if inside && line == "    }" {
            inside = false;
        }
    }
    out
}

/// Build and run `m`'s crate against the interpreter (`arg`: `backends=interp,rust`).
pub fn run(m: &Module, name: &str, arg: &str) -> Result<String, String> {
    if arg.trim() != "backends=interp,rust" {
        return Err(format!("`run` takes `backends=interp,rust`, not `{arg}`"));
    }
    let main = m.func("main").ok_or("no @main")?;
    let inputs: Vec<Tensor> = main.body.params.iter().map(|&p| input(main.ty(p))).collect::<Result<_, _>>()?;
    let want = ir::interp::run(m, "main", inputs.clone()).map_err(|e| format!("interpreter: {e}"))?;
    // One crate directory for every run filetest: the kernel runtime is
    // compiled once and each test rebuilds only its model.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/filetest-crate");
    compiler::compile::write_crate(m, &dir, ("filetest", name), (None, codegen::rust::DEFAULT_PACK_FOR), None)
        .map_err(|e| e.to_string())?;
    let exe = compiler::compile::build_crate(&dir, &compiler::cross::BuildTarget::host()).map_err(|e| e.to_string())?;
    let got = compiler::compile::run_crate(&dir, &exe, &inputs, &compiler::cross::BuildTarget::host())?;
    let mut out = String::new();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let c = compare(i, g, w, Tolerance::CRATE_VS_INTERPRETER);
        if let Some(f) = c.failure {
            return Err(format!("output #{i}: rust differs from the interpreter: {f}"));
        }
        let first: Vec<String> = w.to_f64s().iter().take(8).map(|x| format!("{x:.4}")).collect();
        out += &format!("output #{i} {:?}: rust == interp; interp = [{}", w.shape, first.join(", "));
        out += if w.len() > 8 { ", ...]\n" } else { "]\n" };
    }
    Ok(out)
}

/// A deterministic input of type `ty` (static shape; f32, i64 or bool).
fn input(ty: &ir::TensorType) -> Result<Tensor, String> {
    let dims = ty.shape.static_dims().ok_or_else(|| format!("run filetests take static inputs, not {ty}"))?;
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let n: usize = shape.iter().product();
    let data = match ty.dtype {
        DType::F32 => Data::F32((0..n).map(|i| ((i * 37 + 11) % 101) as f32 / 50.0 - 1.0).collect()),
        DType::I64 => Data::I64((0..n).map(|i| (i % 3) as i64).collect()),
        DType::Bool => Data::Bool((0..n).map(|i| i % 2 == 0).collect()),
        d => return Err(format!("run filetests take f32, i64 or bool inputs, not {d}")),
    };
    Ok(Tensor::new(shape, data))
}
