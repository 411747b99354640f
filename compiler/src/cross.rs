//! Building a generated crate for another instruction set and running it
//! there: `edgec compile --triple`, `edgec run|verify CRATE --triple
//! [--runner CMD]`.
//!
//! A cross triple is one row of [`CROSS`]: the C linker cargo must link with,
//! the Debian packages that provide it, and the qemu-user emulator (with its
//! sysroot) that runs the binary on this host. The host's own triple needs
//! none of them. Every missing piece is reported at once, each with the
//! command that installs it.

use crate::driver::DriverError;
use std::path::{Path, PathBuf};

/// What building for and running on one foreign triple takes.
#[derive(Copy, Clone, Debug)]
pub struct Cross {
    /// The Rust target triple.
    pub triple: &'static str,
    /// The C compiler cargo links with (Debian's name for it).
    pub linker: &'static str,
    /// The Debian packages providing the linker and the target's libc.
    pub linker_packages: &'static str,
    /// The qemu-user emulator that runs the target's binaries on another host.
    pub qemu: &'static str,
    /// The target's libc root for qemu (`-L`), installed with the linker.
    pub sysroot: &'static str,
}

/// The cross triples edgec knows (edge CPUs).
pub const CROSS: &[Cross] = &[Cross {
    triple: "aarch64-unknown-linux-gnu",
    linker: "aarch64-linux-gnu-gcc",
    linker_packages: "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
    qemu: "qemu-aarch64",
    sysroot: "/usr/aarch64-linux-gnu",
}];

/// The triple this edgec runs on (Linux hosts: `<arch>-unknown-linux-gnu`).
pub fn host_triple() -> String {
    format!("{}-unknown-linux-gnu", std::env::consts::ARCH)
}

/// Where and how a crate is built and run: the host, or a cross triple with
/// the command that runs its binaries here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildTarget {
    /// `None`: the host (cargo's default target).
    pub triple: Option<String>,
    /// The program (and its arguments) the binary runs under; empty for a
    /// native run.
    pub runner: Vec<String>,
}

impl BuildTarget {
    /// The host: a native build and run.
    pub fn host() -> BuildTarget {
        BuildTarget { triple: None, runner: vec![] }
    }

    /// The target for `triple` (the host's own triple or a row of [`CROSS`]),
    /// run under `runner` (default for a foreign triple: its qemu-user with
    /// its sysroot). With `check_run`, the runner must exist too. Errors list
    /// every missing piece.
    pub fn new(triple: Option<&str>, runner: Option<&str>, check_run: bool) -> Result<BuildTarget, DriverError> {
        let runner: Vec<String> =
            runner.map(|r| r.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
        let Some(triple) = triple.filter(|t| *t != host_triple()) else {
            return Ok(BuildTarget { triple: None, runner });
        };
        let cross = cross(triple)?;
        let runner = if runner.is_empty() {
            vec![cross.qemu.to_string(), "-L".into(), cross.sysroot.to_string()]
        } else {
            runner
        };
        let t = BuildTarget { triple: Some(triple.to_string()), runner };
        t.preflight(cross, check_run)?;
        Ok(t)
    }

    /// Every missing tool, each with how to install it.
    fn preflight(&self, cross: &Cross, check_run: bool) -> Result<(), DriverError> {
        let mut missing = Vec::new();
        if !std_installed(cross.triple) {
            missing.push(format!(
                "the Rust standard library for {} is not installed: run `rustup target add {}`",
                cross.triple, cross.triple
            ));
        }
        if !on_path(cross.linker) && std::env::var_os(linker_env(cross.triple)).is_none() {
            missing.push(format!(
                "the linker {} is not on PATH: install the Debian packages {} (`apt-get install {}`)",
                cross.linker, cross.linker_packages, cross.linker_packages
            ));
        }
        if check_run {
            if let Some(prog) = self.runner.first().filter(|p| !on_path(p)) {
                let how = if prog == cross.qemu {
                    "install the Debian package qemu-user (`apt-get install qemu-user`)".to_string()
                } else {
                    format!("pass --runner with a program that runs {} binaries", cross.triple)
                };
                missing.push(format!("the runner {prog} is not on PATH: {how}"));
            }
        }
        match missing.is_empty() {
            true => Ok(()),
            false => Err(DriverError::Usage(format!("cannot build for {}:\n  {}", cross.triple, missing.join("\n  ")))),
        }
    }

    /// cargo's extra arguments and environment for building a crate.
    pub fn cargo_args(&self) -> (Vec<String>, Vec<(String, String)>) {
        let Some(triple) = &self.triple else { return (vec![], vec![]) };
        let mut env = vec![];
        if let Some(c) = CROSS.iter().find(|c| c.triple == triple) {
            if std::env::var_os(linker_env(triple)).is_none() {
                env.push((linker_env(triple), c.linker.to_string()));
            }
        }
        (vec!["--target".into(), triple.clone()], env)
    }

    /// The release binary `name` of a crate whose target directory is `target`.
    pub fn exe(&self, target: &Path, name: &str) -> PathBuf {
        let dir = match &self.triple {
            Some(t) => target.join(t),
            None => target.to_path_buf(),
        };
        dir.join("release").join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    }

    /// The command running binary `exe` (under the runner, if any).
    pub fn command(&self, exe: &Path) -> std::process::Command {
        match self.runner.split_first() {
            None => std::process::Command::new(exe),
            Some((prog, args)) => {
                let mut c = std::process::Command::new(prog);
                c.args(args).arg(exe);
                c
            }
        }
    }

    /// In words, for reports: `aarch64-unknown-linux-gnu under qemu-aarch64 -L ...`.
    pub fn describe(&self) -> String {
        match (&self.triple, self.runner.is_empty()) {
            (None, true) => "the host".into(),
            (None, false) => format!("the host, under {}", self.runner.join(" ")),
            (Some(t), true) => t.clone(),
            (Some(t), false) => format!("{t}, under {}", self.runner.join(" ")),
        }
    }
}

/// The row of [`CROSS`] for `triple`, or an error listing the known ones.
pub fn cross(triple: &str) -> Result<&'static Cross, DriverError> {
    CROSS.iter().find(|c| c.triple == triple).ok_or_else(|| {
        let known: Vec<&str> = CROSS.iter().map(|c| c.triple).collect();
        DriverError::Usage(format!(
            "unknown triple `{triple}`: edgec cross-builds for {} (and the host, {})",
            known.join(", "),
            host_triple()
        ))
    })
}

/// The `.cargo/config.toml` of a crate compiled for `triple`: the linker,
/// so `cargo build --target <triple>` links on a host with the cross
/// toolchain (and on the board itself, where Debian names its native gcc
/// the same).
pub fn cargo_config(cross: &Cross) -> String {
    format!(
        "# Written by `edgec compile --triple {t}`.\n\
         # Cross-build: cargo build --release --target {t}\n\
         # (needs `rustup target add {t}` and the Debian packages {p}).\n\
         [target.{t}]\nlinker = \"{l}\"\n",
        t = cross.triple,
        p = cross.linker_packages,
        l = cross.linker
    )
}

/// cargo's environment variable naming the linker of `triple`.
fn linker_env(triple: &str) -> String {
    format!("CARGO_TARGET_{}_LINKER", triple.to_uppercase().replace('-', "_"))
}

/// True if rustc's sysroot holds the standard library for `triple`.
fn std_installed(triple: &str) -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = std::process::Command::new(rustc).args(["--print", "sysroot"]).output() else { return false };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Path::new(&sysroot).join("lib").join("rustlib").join(triple).join("lib").is_dir()
}

/// True if `prog` is a path to a file or a program found on `PATH`.
fn on_path(prog: &str) -> bool {
    if prog.contains('/') {
        return Path::new(prog).is_file();
    }
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_triple_needs_nothing() {
        let t = BuildTarget::new(Some(&host_triple()), None, true).expect("host");
        assert_eq!(t, BuildTarget::host());
        assert!(t.cargo_args().0.is_empty());
    }

    #[test]
    fn unknown_triple_lists_the_known_ones() {
        let e = BuildTarget::new(Some("riscv64gc-unknown-linux-gnu"), None, false).unwrap_err().to_string();
        assert!(e.contains("unknown triple `riscv64gc-unknown-linux-gnu`"), "{e}");
        assert!(e.contains("aarch64-unknown-linux-gnu"), "{e}");
    }

    #[test]
    fn missing_runner_names_its_package() {
        let e = BuildTarget::new(Some("aarch64-unknown-linux-gnu"), Some("no-such-qemu-xyz -cpu max"), true)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("the runner no-such-qemu-xyz is not on PATH"), "{e}");
    }

    #[test]
    fn cargo_config_names_the_linker() {
        let c = cargo_config(cross("aarch64-unknown-linux-gnu").expect("known"));
        assert!(c.contains("[target.aarch64-unknown-linux-gnu]\nlinker = \"aarch64-linux-gnu-gcc\"\n"), "{c}");
    }
}
