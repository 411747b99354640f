//! The Ethos-U profile's support list is the TFLite writer's: an op the
//! profile places on the NPU has a TFLite form (or `edgec report` would
//! promise what `--emit tflite` cannot write), and every op the writer
//! handles is placed on the NPU (or extraction would avoid it for nothing).

use ir::ops::Family;
use ir::Opcode;
use passes::target::TargetProfile;

#[test]
fn the_ethos_profiles_support_exactly_the_writers_ops() {
    for name in ["ethos-u55-256", "ethos-u55-128", "ethos-u65-512", "ethos-u85-256"] {
        // Loaded as `codegen::targets` loads it: the accelerator's figures, then the shared rules.
        let dir = format!("{}/../codegen/targets", env!("CARGO_MANIFEST_DIR"));
        let path = format!("{dir}/{name}.toml");
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        let src = format!("{}\n{}", read(&path), read(&format!("{dir}/ethos-u-ops.toml")));
        let differ = differences(&TargetProfile::parse(&src, &path).unwrap());
        assert!(differ.is_empty(), "{name}: profile and writer differ on: {}", differ.join(", "));
    }
}

/// The ops on which `profile`'s support and the writer's forms differ.
fn differences(profile: &TargetProfile) -> Vec<String> {
    let mut differ = Vec::new();
    for &op in Opcode::ALL {
        let supported = profile.rule(op).supported || op == Opcode::CoreConst;
        // Integer ops of the folded module (the quantizer's accuracy report)
        // never reach the writer, which reads the QDQ form.
        let writer = edgec_tflite::has_form(op) || (op.family() == Family::Quant && op.name().starts_with("quant."));
        if supported != writer {
            differ.push(format!("{} (profile: {supported}, writer: {writer})", op.name()));
        }
    }
    differ
}
