//! The `edgec` command-line tool.
//!
//! Exit codes: 0 success, 1 user error (bad input, unknown pass, failed
//! verification of the input), 2 internal error (a pass broke the IR, a panic).

use anyhow::Result;
use clap::{Parser, Subcommand};
use compiler::check::Tolerance;
use compiler::driver::{load_eir, load_model, save_eir, DriverError};
use compiler::run::{bind_inputs, io_names, parse_bindings, run_main, verify_data};
use passes::{parse_pipeline_with, PassError, PassManager, PassOptions, REGISTRY};
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
    /// Optimize a model (.onnx or .eir): by default the full optimizing pipeline.
    Opt {
        /// Input .onnx or .eir file (`-` reads .eir from standard input).
        file: String,
        /// Comma-separated pass names (see `edgec passes`); default: the full optimizing pipeline.
        #[arg(long, value_name = "LIST", default_value = passes::DEFAULT_PIPELINE)]
        passes: String,
        /// Target profile: a built-in name (`cpu`, `rk3588-npu`) or a .toml profile path.
        #[arg(long, default_value = "cpu")]
        target: String,
        /// Extra rule file (repeatable); rules are validated before anything runs.
        #[arg(long, value_name = "FILE")]
        rules: Vec<PathBuf>,
        /// E-graph limit: stop when the e-graph holds more e-nodes than this.
        #[arg(long, value_name = "N", default_value_t = passes::egraph::Limits::default().max_enodes)]
        max_enodes: usize,
        /// E-graph limit: stop after this many saturation iterations.
        #[arg(long, value_name = "N", default_value_t = passes::egraph::Limits::default().max_iters)]
        max_iters: usize,
        /// Print the rules that fired (and why others did not), op counts before and after,
        /// and which ops the target runs on its fallback.
        #[arg(long)]
        explain: bool,
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
        #[command(flatten)]
        bucketing: BucketArgs,
        /// APPROXIMATION (opt-in): every self-attention attends only to keys within W positions
        /// (|i - j| <= W, sliding window). Recorded in the module; `edgec verify` reports the deviation.
        #[arg(long, value_name = "W")]
        attention_window: Option<u64>,
    },
    /// Import an ONNX model into edgec IR (text + weights sidecar).
    Import {
        /// The .onnx model.
        model: PathBuf,
        /// Write to this .eir file (with a weights sidecar) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Summarize an ONNX model: opsets, inputs/outputs, op histogram, parameters, import status.
    Inspect {
        /// The .onnx model.
        model: PathBuf,
    },
    /// Run a model (.onnx or .eir) on the reference interpreter.
    Run {
        /// The model.
        model: String,
        /// An input as NAME=FILE.npy (repeatable).
        #[arg(long = "input", value_name = "NAME=FILE")]
        inputs: Vec<String>,
        /// Write each output as DIR/NAME.npy.
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// Check a model against ONNX test data (test_data_set_* with input_K.pb/output_K.pb).
    Verify {
        /// The model (.onnx or .eir).
        model: String,
        /// Data set directories (default: every test_data_set_* beside the model).
        #[arg(long = "data", value_name = "DIR")]
        data: Vec<PathBuf>,
        /// Relative tolerance.
        #[arg(long, default_value_t = 1e-3)]
        rtol: f64,
        /// Absolute tolerance.
        #[arg(long, default_value_t = 1e-4)]
        atol: f64,
    },
    /// List the available passes.
    Passes,
    /// List the rewrite rules (built-in and from --rules files), conditions and appliers.
    Rules {
        /// Extra rule file to validate and list (repeatable).
        #[arg(long, value_name = "FILE")]
        rules: Vec<PathBuf>,
    },
}

/// Shape-bucketing flags (shared by the commands that run the pipeline).
#[derive(clap::Args)]
struct BucketArgs {
    /// Bucket a symbolic dim: DIM=SIZE,SIZE,... or DIM=auto:FILE (observed sizes, one per line;
    /// picks at most --buckets-max buckets minimizing expected padded compute). Repeatable.
    #[arg(long, value_name = "DIM=SIZES")]
    bucket: Vec<String>,
    /// Pad value of an input when bucketing: NAME=VALUE (repeatable; default 0 for every input,
    /// so attention masks pad with 0 = masked and token ids with 0).
    #[arg(long, value_name = "NAME=VALUE")]
    pad: Vec<String>,
    /// Most buckets `DIM=auto:FILE` may choose.
    #[arg(long, value_name = "K", default_value_t = compiler::bucket::DEFAULT_MAX_BUCKETS)]
    buckets_max: usize,
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
        Command::Opt {
            file,
            passes,
            target,
            rules,
            max_enodes,
            max_iters,
            explain,
            output,
            print_ir_after_all,
            print_ir_after,
            timings,
            no_verify_each,
            bucketing,
            attention_window,
        } => {
            check_pass_names(&print_ir_after)?;
            let (mut popts, profile) = compiler::optimize::pipeline_options(&target, &rules).map_err(Failure::User)?;
            popts.limits.max_enodes = max_enodes;
            popts.limits.max_iters = max_iters;
            let (spec, autos) =
                compiler::bucket::bucket_spec(&bucketing.bucket, &bucketing.pad, bucketing.buckets_max)?;
            let mut m = if file == "-" { load_eir(&file)?.module } else { load_model(&file)? };
            let passes = if spec.dims.is_empty() {
                passes
            } else {
                spec.check(&m, "main").map_err(|e| Failure::User(anyhow::anyhow!(e.join("\n"))))?;
                popts.bucket = Some(spec);
                if passes.split(',').any(|p| p.trim() == "bucket") {
                    passes
                } else {
                    format!("bucket,{passes}")
                }
            };
            let passes = match attention_window {
                Some(w) => {
                    popts.attention_window = Some(w);
                    let has = passes.split(',').any(|p| p.trim() == "attention-window");
                    if has {
                        passes
                    } else {
                        format!("{passes},attention-window")
                    }
                }
                None => passes,
            };
            let pipeline = parse_pipeline_with(&passes, &popts)?;
            let before = compiler::optimize::op_histogram(&m);
            let opts = PassOptions {
                verify_each: !no_verify_each,
                print_after_all: print_ir_after_all,
                print_after: print_ir_after,
            };
            let report = PassManager::new(pipeline, opts).run(&mut m, &mut std::io::stderr())?;
            if timings {
                eprint!("{report}");
            }
            if let Some(ir::Attr::Strs(a)) = m.attrs.get(passes::approx::APPROXIMATIONS) {
                for what in a {
                    eprintln!("edgec: warning: approximation applied: {what}");
                }
            }
            if explain {
                let reports = popts.reports.lock().map_err(|e| Failure::Internal(anyhow::anyhow!("{e}")))?;
                let notes = popts.notes.lock().map_err(|e| Failure::Internal(anyhow::anyhow!("{e}")))?;
                for a in &autos {
                    eprint!("== {a}");
                }
                eprint!("{}", compiler::optimize::explain(&before, &m, &reports, &notes, &profile));
            }
            emit(&m, output)
        }
        Command::Import { model, output } => {
            let m = load_model(&model.display().to_string())?;
            emit(&m, output)
        }
        Command::Inspect { model } => {
            print!("{}", compiler::inspect::inspect(&model).map_err(|e| Failure::User(anyhow::anyhow!(e)))?);
            Ok(())
        }
        Command::Run { model, inputs, output } => run_model(&model, &inputs, output),
        Command::Verify { model, data, rtol, atol } => verify_model(&model, &data, Tolerance { rtol, atol }),
        Command::Rules { rules } => {
            let (popts, _) = compiler::optimize::pipeline_options("cpu", &rules).map_err(Failure::User)?;
            print!("{}", compiler::optimize::list_rules(&popts.rules));
            Ok(())
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

fn run_model(model: &str, inputs: &[String], output: Option<PathBuf>) -> Result<(), Failure> {
    let m = load_model(model)?;
    let bindings = parse_bindings(inputs)?;
    let tensors = bind_inputs(&m, &bindings)?;
    let outs = run_main(&m, tensors)?;
    let (_, names) = io_names(&m);
    if let Some(dir) = &output {
        std::fs::create_dir_all(dir).map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", dir.display())))?;
    }
    for (name, t) in names.iter().zip(&outs) {
        println!("{name}: {}{:?}", t.dtype(), t.shape);
        if let Some(dir) = &output {
            let file: String =
                name.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
            let path = dir.join(format!("{file}.npy"));
            std::fs::write(&path, compiler::npy::write_npy(t))
                .map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", path.display())))?;
        }
    }
    Ok(())
}

fn verify_model(model: &str, data: &[PathBuf], tol: Tolerance) -> Result<(), Failure> {
    let m = load_model(model)?;
    let reports = verify_data(&m, std::path::Path::new(model), data, tol)?;
    let (_, names) = io_names(&m);
    let name = |i: usize| names.get(i).map_or("?", |s| s.as_str());
    let mut failed = 0;
    for r in &reports {
        println!("{}:", r.dir.display());
        for n in &r.notes {
            println!("  {n}");
        }
        if r.against == compiler::run::Against::Reference {
            println!("  (no expected outputs in the data set: comparing with @main.reference)");
        }
        match &r.outputs {
            Err(e) => println!("  ERROR {e}"),
            Ok(checks) => {
                for c in checks {
                    let verdict = c.failure.as_deref().map_or("PASS".to_string(), |f| format!("FAIL ({f})"));
                    println!("  {}: max_abs={:.3e} max_rel={:.3e} {verdict}", name(c.index), c.max_abs, c.max_rel);
                }
            }
        }
        if let (Some(dev), compiler::run::Against::Expected) = (&r.reference, r.against) {
            println!("  deviation from the exact @main.reference (bucketing padding / approximations):");
            match dev {
                Err(e) => println!("    ERROR {e}"),
                Ok(checks) => {
                    for c in checks {
                        let verdict = c
                            .failure
                            .as_deref()
                            .map_or("within tolerance".to_string(), |f| format!("beyond tolerance ({f})"));
                        println!(
                            "    {}: max_abs={:.3e} max_rel={:.3e} {verdict}",
                            name(c.index),
                            c.max_abs,
                            c.max_rel
                        );
                    }
                }
            }
        }
        failed += usize::from(!r.passed());
    }
    println!(
        "{} of {} data set(s) passed (rtol {}, atol {})",
        reports.len() - failed,
        reports.len(),
        tol.rtol,
        tol.atol
    );
    if failed > 0 {
        return Err(Failure::User(anyhow::anyhow!("{failed} data set(s) failed verification")));
    }
    Ok(())
}
