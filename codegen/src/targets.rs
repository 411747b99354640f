//! The shipped target profiles and loading of user profiles: the one place a
//! target is loaded. The driver loads it once and passes it down.
//!
//! Builtin profiles are the TOML files in `codegen/targets/`, compiled into the
//! binary; their format is documented in `codegen/targets/README.md` and parsed
//! by [`passes::target::TargetProfile`]. A profile's `fallback` must name a
//! builtin target; a profile that names a `backend` takes its support and
//! costs from that backend's op table ([`crate::backend::Backend::apply`]).

pub use passes::target::{Support, TargetError, TargetProfile};

/// An Ethos-U accelerator's figures followed by the op rules and cycle
/// forms all Ethos-U profiles share.
macro_rules! ethos_u {
    ($file:literal) => {
        concat!(include_str!(concat!("../targets/", $file)), "\n", include_str!("../targets/ethos-u-ops.toml"))
    };
}

/// Builtin profiles: (name, file name, TOML text).
const BUILTIN: &[(&str, &str, &str)] = &[
    ("cpu", "cpu.toml", include_str!("../targets/cpu.toml")),
    ("rk3588-npu", "rk3588-npu.toml", include_str!("../targets/rk3588-npu.toml")),
    ("ethos-u55-256", "ethos-u55-256.toml", ethos_u!("ethos-u55-256.toml")),
    ("ethos-u55-128", "ethos-u55-128.toml", ethos_u!("ethos-u55-128.toml")),
    ("ethos-u65-512", "ethos-u65-512.toml", ethos_u!("ethos-u65-512.toml")),
    ("ethos-u85-256", "ethos-u85-256.toml", ethos_u!("ethos-u85-256.toml")),
];

/// Names of the builtin targets, in a fixed order.
pub fn names() -> &'static [&'static str] {
    const NAMES: &[&str] = &["cpu", "rk3588-npu", "ethos-u55-256", "ethos-u55-128", "ethos-u65-512", "ethos-u85-256"];
    NAMES
}

/// The builtin profile `name`, or `None` if there is none. A builtin profile
/// that fails to parse is a build defect (the test suite parses every one), so
/// it is reported as absent here rather than panicking.
pub fn builtin(name: &str) -> Option<TargetProfile> {
    let (_, file, src) = BUILTIN.iter().find(|(n, _, _)| *n == name)?;
    parse_builtin(file, src).ok()
}

fn parse_builtin(file: &str, src: &str) -> Result<TargetProfile, TargetError> {
    with_backend(TargetProfile::parse_with_targets(src, &format!("codegen/targets/{file}"), names())?)
}

/// `p` with its backend's support and costs applied.
fn with_backend(mut p: TargetProfile) -> Result<TargetProfile, TargetError> {
    if let Some(name) = p.backend.clone() {
        let Some(b) = crate::backend::get(&name) else {
            let known: Vec<&str> = crate::backend::BACKENDS.iter().map(|b| b.name).collect();
            return Err(TargetError::UnknownBackend { file: p.source.clone(), name, known: known.join(", ") });
        };
        b.apply(&mut p);
    }
    Ok(p)
}

/// Load a target by builtin name, or from a path to a `.toml` profile file.
/// A user profile's `fallback` must name a builtin target.
pub fn load(name_or_path: &str) -> Result<TargetProfile, TargetError> {
    if let Some((_, file, src)) = BUILTIN.iter().find(|(n, _, _)| *n == name_or_path) {
        return parse_builtin(file, src);
    }
    let path = std::path::Path::new(name_or_path);
    if path.extension().is_some_and(|e| e == "toml") || path.exists() {
        let src = std::fs::read_to_string(path)
            .map_err(|source| TargetError::Io { path: name_or_path.to_string(), source })?;
        return with_backend(TargetProfile::parse_with_targets(&src, name_or_path, names())?);
    }
    Err(TargetError::Unknown { name: name_or_path.to_string(), known: names().join(", ") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_builtin_table() {
        let from_table: Vec<&str> = BUILTIN.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(from_table, names());
        for (name, file, src) in BUILTIN {
            let p = parse_builtin(file, src).unwrap_or_else(|e| panic!("{name}:\n{e}"));
            assert_eq!(p.name, *name, "profile name must match its builtin name");
        }
    }
}
