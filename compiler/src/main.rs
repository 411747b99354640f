//! The `edgec` command-line tool.
//!
//! Exit codes: 0 success, 1 user error (bad input, unknown pass, failed
//! verification of the input), 2 internal error (a pass broke the IR, a panic).

use anyhow::Result;
use clap::{Parser, Subcommand};
use compiler::driver::{load_eir, save_eir, DriverError};
use passes::{parse_pipeline, PassError, PassManager, PassOptions, REGISTRY};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "edgec", version, about = "Ahead-of-time ONNX compiler for edge NPUs and CPUs")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and verify an .eir file and print it in canonical form.
    Parse {
        /// Input .eir file, or `-` for standard input.
        file: String,
        /// Write to this .eir file (with a weights sidecar) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Run a pass pipeline over an .eir file.
    Opt {
        /// Input .eir file, or `-` for standard input.
        file: String,
        /// Comma-separated pass names, e.g. `canonicalize,dce` (see `edgec passes`).
        #[arg(long, value_name = "LIST")]
        passes: String,
        /// Write to this .eir file (with a weights sidecar) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print the IR after every pass to stderr.
        #[arg(long)]
        print_ir_after_all: bool,
        /// Print the IR after the named pass to stderr (repeatable).
        #[arg(long, value_name = "NAME")]
        print_ir_after: Vec<String>,
        /// Print per-pass timing and op counts to stderr.
        #[arg(long)]
        timings: bool,
        /// Skip the verifier between passes (it always runs on the input).
        #[arg(long)]
        no_verify_each: bool,
    },
    /// List the available passes.
    Passes,
}

/// An error classified by exit code.
enum Failure {
    User(anyhow::Error),
    Internal(anyhow::Error),
}

impl From<DriverError> for Failure {
    fn from(e: DriverError) -> Self {
        Failure::User(e.into())
    }
}

impl From<PassError> for Failure {
    fn from(e: PassError) -> Self {
        match e {
            PassError::UnknownPasses { .. } => Failure::User(e.into()),
            _ => Failure::Internal(e.into()),
        }
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "edgec: internal error: {info}\nThis is a bug in edgec; please report it with the input that caused it."
        );
        std::process::exit(2);
    }));
    let cli = Cli::parse();
    match run(cli.cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::User(e)) => {
            eprintln!("edgec: error: {e:#}");
            ExitCode::from(1)
        }
        Err(Failure::Internal(e)) => {
            eprintln!("edgec: internal error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::Parse { file, output } => {
            let parsed = load_eir(&file)?;
            emit(&parsed.module, output)
        }
        Command::Opt { file, passes, output, print_ir_after_all, print_ir_after, timings, no_verify_each } => {
            check_pass_names(&print_ir_after)?;
            let pipeline = parse_pipeline(&passes)?;
            let mut m = load_eir(&file)?.module;
            let opts = PassOptions {
                verify_each: !no_verify_each,
                print_after_all: print_ir_after_all,
                print_after: print_ir_after,
            };
            let report = PassManager::new(pipeline, opts).run(&mut m, &mut std::io::stderr())?;
            if timings {
                eprint!("{report}");
            }
            emit(&m, output)
        }
        Command::Passes => {
            for p in REGISTRY {
                println!("{:<16} {}", p.name, p.description);
            }
            Ok(())
        }
    }
}

fn check_pass_names(names: &[String]) -> Result<(), Failure> {
    let unknown: Vec<String> =
        names.iter().filter(|n| !REGISTRY.iter().any(|p| p.name == n.as_str())).cloned().collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(PassError::UnknownPasses { unknown, valid: REGISTRY.iter().map(|p| p.name).collect() }.into())
}

fn emit(m: &ir::Module, output: Option<PathBuf>) -> Result<(), Failure> {
    let elided = save_eir(m, output.as_deref())?;
    if elided > 0 {
        eprintln!("edgec: note: {elided} large constant(s) elided from stdout; use -o FILE.eir to keep the weights");
    }
    Ok(())
}
