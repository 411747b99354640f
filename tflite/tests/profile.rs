//! The Ethos-U profile's support list is the TFLite writer's: an op the
//! profile places on the NPU has a TFLite form (or `edgec report` would
//! promise what `--emit tflite` cannot write), and every op the writer
//! handles is placed on the NPU (or extraction would avoid it for nothing);
//! an op the writer writes only in float32 is placed on the CPU with that
//! reason.

use ir::ops::Family;
use ir::Opcode;
use passes::target::TargetProfile;

#[test]
fn the_ethos_profiles_support_exactly_the_writers_ops() {
    let ethos: Vec<&str> = codegen::targets::names().iter().copied().filter(|n| n.starts_with("ethos-u")).collect();
    assert_eq!(ethos.len(), 4, "{ethos:?}");
    for name in ethos {
        // The shipped profile, as the driver loads it.
        let profile = codegen::targets::builtin(name).unwrap_or_else(|| panic!("{name} does not load"));
        let differ = differences(&profile);
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
        // An op written only in float: the profile says it runs on the CPU, and why.
        let reason = profile.rule(op).reason.as_deref().unwrap_or("");
        if edgec_tflite::has_cpu_form(op) && !writer && !reason.contains("float32") {
            differ.push(format!("{} (a CPU island in the writer, the profile's reason: {reason:?})", op.name()));
        }
    }
    differ
}
