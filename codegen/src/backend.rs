//! The backends edgec generates code with, registered by name. A target
//! profile names its backend (`backend = "rust"` in its TOML); the backend
//! then decides what the target supports and what each op costs (its op
//! table), and which preparation passes turn an optimized module into the
//! `target` phase it accepts.
//!
//! Adding a backend: a module with an op table and an `emit` that accepts
//! only `Phase::Target` modules, and one entry in [`BACKENDS`].

use ir::{Module, Opcode};
use passes::target::{CostModel, OpRule, TargetProfile};
use passes::{Pass, PassError, PassOptions, PassReport};

/// A registered backend.
pub struct Backend {
    /// Name, as a target profile's `backend` key spells it.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// The ops it compiles, with their cost where the table gives one.
    pub ops: fn() -> Vec<(Opcode, Option<CostModel>)>,
    /// Its preparation passes, in order (for listings).
    pub passes: fn() -> Vec<Box<dyn Pass>>,
    /// Runs the preparation passes (verifying after each, dumping IR as the
    /// options ask), then enters the `target` phase and verifies.
    pub prepare: fn(&mut Module, PassOptions, &mut dyn std::io::Write) -> Result<PassReport, PassError>,
}

/// Every backend.
pub static BACKENDS: &[Backend] = &[Backend {
    name: "rust",
    description: "a standalone Cargo crate calling edgec's kernel runtime (portable CPU code)",
    ops: rust_ops,
    passes: crate::rust::prepare_passes,
    prepare: crate::rust::prepare,
}];

fn rust_ops() -> Vec<(Opcode, Option<CostModel>)> {
    crate::rust::ops::TABLE.iter().map(|r| (r.opcode, r.cost)).collect()
}

/// The backend named `name`.
pub fn get(name: &str) -> Option<&'static Backend> {
    BACKENDS.iter().find(|b| b.name == name)
}

/// Names of every backend's preparation passes (for `--print-ir-after`).
pub fn prepare_pass_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = BACKENDS.iter().flat_map(|b| (b.passes)()).map(|p| p.name()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

impl Backend {
    /// Run the preparation passes on `m` (see [`Backend::prepare`]).
    pub fn prepare_module(
        &self,
        m: &mut Module,
        opts: PassOptions,
        dump: &mut dyn std::io::Write,
    ) -> Result<PassReport, PassError> {
        (self.prepare)(m, opts, dump)
    }

    /// Make `profile`'s support and costs this backend's: every op in its
    /// table is supported (costed by the table, else by the profile's
    /// `[default]`), every other op is not. Rules the profile gives itself
    /// for an op win.
    pub fn apply(&self, profile: &mut TargetProfile) {
        let default = profile.default.clone();
        for (op, cost) in (self.ops)() {
            let rule = OpRule { supported: true, reason: None, cost: cost.unwrap_or(default.cost), ..default.clone() };
            profile.ops.entry(op).or_insert(rule);
        }
        profile.default.supported = false;
        profile.default.reason = Some(format!("the {} backend has no lowering for this op", self.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::{emit, generate, EmitOptions};

    const CONV: &str = r#"module @m attributes {phase = "PHASE"} {
  func @main(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 3, 3]) -> (f32[1, 2, 4, 4]) {
    %0 = onnx.Conv %x, %w {pads = [1, 1, 1, 1]} : f32[1, 2, 4, 4]
    return %0
  }
}"#;

    fn opts() -> EmitOptions {
        EmitOptions { name: "m".into(), source: "test".into(), pack_for: crate::rust::DEFAULT_PACK_FOR }
    }

    fn module(phase: &str) -> Module {
        ir::text::parse_module(&CONV.replace("PHASE", phase), "conv.eir", None).expect("parses").module
    }

    #[test]
    fn the_rust_backend_rejects_an_onnx_op_with_a_core_form() {
        let e = emit(&module("target"), &opts()).expect_err("onnx.Conv must not reach the backend").to_string();
        assert!(e.contains("`onnx.Conv` is not allowed in phase `target`"), "{e}");
        assert!(e.contains("core.conv"), "{e}");
    }

    #[test]
    fn the_rust_backend_takes_only_the_target_phase() {
        let e = emit(&module("onnx"), &opts()).expect_err("an onnx-phase module is refused").to_string();
        assert!(e.contains("phase `onnx`") && e.contains("legalize-core, widen-half"), "{e}");
        let g = generate(&module("onnx"), &opts()).expect("prepared, then emitted");
        let lib = g.files.iter().find(|(p, _)| p == "src/lib.rs").expect("lib.rs");
        assert!(String::from_utf8_lossy(&lib.1).contains("core.conv"));
    }

    #[test]
    fn the_cpu_target_supports_exactly_the_rust_table() {
        let cpu = crate::targets::load("cpu").expect("cpu loads");
        assert_eq!(cpu.backend.as_deref(), Some("rust"));
        assert!(!cpu.default.supported);
        for row in crate::rust::ops::TABLE {
            assert!(cpu.rule(row.opcode).supported, "{} is in the table", row.opcode.name());
        }
        assert!(!cpu.rule(Opcode::Conv).supported, "onnx.Conv lowers as core.conv");
        let silu = cpu.rule(Opcode::CoreSilu).cost;
        assert_eq!((silu.ns_per_mac, silu.ns_per_elem, silu.ns_fixed), (0.03, 2.2, 50.0));
    }
}
