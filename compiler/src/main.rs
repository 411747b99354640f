//! The `edgec` command-line tool.
//!
//! Exit codes: 0 success, 1 user error (bad input, unknown pass, failed
//! verification of the input), 2 internal error (a pass broke the IR, a panic).

mod cli_args;
mod cli_quant;
mod cli_tflite;

use cli_args::{CrossArgs, PipeArgs, ShapeArgs};

use anyhow::Result;
use clap::{Parser, Subcommand};
use compiler::check::Tolerance;
use compiler::driver::{load_eir, load_model_with, save_eir};
use compiler::pipeline::Failure;
use compiler::run::{bind_inputs, io_names, parse_bindings, run_main, verify_data};
use passes::{PassError, PassOptions, REGISTRY};
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
        #[command(flatten)]
        pipe: PipeArgs,
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
    /// Compile a model for a target: the full pipeline, then a backend artifact
    /// (`--emit rust`: a standalone Cargo crate in the output directory; `--emit ir`: the optimized IR).
    Compile {
        /// Input .onnx or .eir file.
        file: String,
        #[command(flatten)]
        pipe: PipeArgs,
        /// What to write.
        #[arg(long, value_enum, default_value = "rust")]
        emit: Emit,
        /// Output: the crate directory (`--emit rust`), the .eir file (`--emit ir`), the .tflite
        /// file (`--emit tflite`) or the directory for edgec's and Vela's files (`--emit vela`).
        #[arg(short, long)]
        output: PathBuf,
        /// Crate name (default: from the model file name).
        #[arg(long)]
        name: Option<String>,
        /// Write the compile report (memory plan, ops, weights) as JSON to this file.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Print the IR after every pass (the optimizing pipeline, then the backend's
        /// preparation passes) to stderr.
        #[arg(long)]
        print_ir_after_all: bool,
        /// Print the IR after the named pass to stderr (repeatable).
        #[arg(long, value_name = "NAME")]
        print_ir_after: Vec<String>,
        /// The target triple the crate will be built for (`--emit rust`): a foreign one, e.g.
        /// aarch64-unknown-linux-gnu, gets a .cargo/config.toml naming its linker, and
        /// `edgec run|verify` build it for that triple (under qemu-user).
        #[arg(long, value_name = "TRIPLE")]
        triple: Option<String>,
        /// The GEMM family whose layout constant weights are packed in at compile time
        /// (`--emit rust`): neon (the default: edge CPUs are Arm), avx512, avx2, scalar,
        /// native (this machine's, which makes the crate depend on where it was compiled) or
        /// none (pack at construction). A CPU that cannot run the family packs again once,
        /// at construction; results are the same either way.
        #[arg(long, value_name = "FAMILY", default_value = "neon")]
        pack_for: String,
        /// Write the kernel runtime to DIR instead of a copy inside the crate (`--emit rust`):
        /// crates compiled with the same DIR share one build of it (one cargo target directory).
        #[arg(long, value_name = "DIR")]
        runtime: Option<PathBuf>,
        /// Quantize after optimizing (see `edgec quantize` for the options).
        #[arg(long, value_enum)]
        quantize: Option<cli_quant::QuantMode>,
        #[command(flatten)]
        quant: cli_quant::QuantArgs,
        /// Arm's Vela for `--emit vela` (default: `vela` on PATH).
        #[arg(long, value_name = "PATH")]
        vela: Option<PathBuf>,
    },
    /// INT8 post-training quantization: optimize, calibrate on --calib data, quantize by the
    /// mixed-precision policy, and report the accuracy against the float model.
    Quantize {
        /// Input .onnx or .eir file.
        file: String,
        #[command(flatten)]
        pipe: PipeArgs,
        #[command(flatten)]
        quant: cli_quant::QuantArgs,
        /// Write the quantization report as JSON to this file.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// The quantized module: .eir (with a weights sidecar; integer ops unless --qdq), or .onnx (QDQ ONNX that onnxruntime runs).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Import an ONNX model into edgec IR (text + weights sidecar).
    Import {
        /// The .onnx model.
        model: PathBuf,
        #[command(flatten)]
        shapes: ShapeArgs,
        /// Write to this .eir file (with a weights sidecar) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Summarize an ONNX model (opsets, inputs/outputs, op histogram, parameters, import status)
    /// or list a TFLite model's tensors, quantization and operators.
    Inspect {
        /// The .onnx or .tflite model.
        model: PathBuf,
    },
    /// Before compiling: where each op of the optimized model runs on --target (and why an op
    /// falls back), predicted cycles or time per op, device/fallback segments and the bytes
    /// between them, peak activation memory; with --vela, Vela's estimate beside it.
    Report {
        /// Input .onnx or .eir file.
        file: String,
        #[command(flatten)]
        pipe: PipeArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Vela's per-layer CSV of the compiled model (`vela --verbose-performance`).
        #[arg(long, value_name = "CSV")]
        vela: Option<PathBuf>,
    },
    /// Run a model (.onnx or .eir) on the reference interpreter, or a crate directory
    /// written by `edgec compile --emit rust` (built in release mode first).
    Run {
        /// The model.
        model: String,
        /// An input as NAME=FILE.npy (repeatable).
        #[arg(long = "input", value_name = "NAME=FILE")]
        inputs: Vec<String>,
        /// Write each output as DIR/NAME.npy.
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        #[command(flatten)]
        shapes: ShapeArgs,
        #[command(flatten)]
        cross: CrossArgs,
    },
    /// Check a model (.onnx, .eir, or a generated crate directory, which is built and run)
    /// against ONNX test data (test_data_set_* with input_K.pb/output_K.pb).
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
        #[command(flatten)]
        shapes: ShapeArgs,
        #[command(flatten)]
        cross: CrossArgs,
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

/// Backend artifacts of `edgec compile`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Emit {
    /// A standalone Cargo crate (target cpu).
    Rust,
    /// The optimized IR (.eir + weights sidecar).
    Ir,
    /// An INT8 TFLite flatbuffer (with --quantize int8): what Arm's Vela compiles for Ethos-U NPUs.
    Tflite,
    /// The TFLite file compiled by Arm's Vela for the target's Ethos-U (an output directory).
    Vela,
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
        Command::Opt { file, passes, pipe, output, print_ir_after_all, print_ir_after, timings, no_verify_each } => {
            check_pass_names(&print_ir_after)?;
            let popts = PassOptions {
                verify_each: !no_verify_each,
                print_after_all: print_ir_after_all,
                print_after: print_ir_after,
            };
            let out = optimize(&pipe, &file, &passes, popts)?;
            if timings {
                eprint!("{}", out.timings);
            }
            emit(&out.module, output)
        }
        Command::Compile {
            file,
            pipe,
            emit: what,
            output,
            name,
            report,
            print_ir_after_all,
            print_ir_after,
            triple,
            pack_for,
            runtime,
            quantize,
            quant,
            vela,
        } => {
            let pack_for = compiler::compile::pack_family(&pack_for).map_err(|e| Failure::User(anyhow::anyhow!(e)))?;
            check_pass_names(&print_ir_after)?;
            if runtime.is_some() && !matches!(what, Emit::Rust) {
                return Err(Failure::User(anyhow::anyhow!("--runtime applies to --emit rust")));
            }
            if let Some(t) = triple.as_deref().filter(|t| *t != compiler::cross::host_triple()) {
                compiler::cross::cross(t)?;
            }
            let popts =
                PassOptions { verify_each: true, print_after_all: print_ir_after_all, print_after: print_ir_after };
            let mut quant = quant;
            if matches!(what, Emit::Tflite | Emit::Vela) && quant.policy.is_none() {
                // The TFLite backend's int8 operator forms (passes/policy/quant-tflite.toml).
                quant.policy = Some("tflite".into());
            }
            let quant = match quantize {
                Some(cli_quant::QuantMode::Int8) => Some(quant),
                None => quant.unused().map(|()| None)?,
            };
            let out = CompileOut {
                emit: what,
                output: &output,
                name,
                report: report.as_deref(),
                triple: triple.as_deref(),
                pack_for,
                runtime: runtime.as_deref(),
                quant: quant.as_ref(),
                vela: vela.as_deref(),
            };
            compile(&pipe, &file, out, popts)
        }
        Command::Quantize { file, pipe, quant, report, output } => {
            let mut out = optimize(&pipe, &file, passes::DEFAULT_PIPELINE, PassOptions::default())?;
            let qdq = quant.apply(&mut out.module, report.as_deref(), &pipe.target)?;
            if output.extension().is_some_and(|e| e == "onnx") {
                // ONNX has no fixed-point requantize: the export is the QDQ form.
                let bytes = compiler::export_onnx::to_bytes(&qdq).map_err(|e| Failure::User(e.into()))?;
                return std::fs::write(&output, bytes)
                    .map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", output.display())));
            }
            emit(&out.module, Some(output))
        }
        Command::Import { model, output, shapes } => {
            let m = load_model_with(&model.display().to_string(), &shapes.load_options()?)?;
            emit(&m, output)
        }
        Command::Inspect { model } if model.extension().is_some_and(|e| e == "tflite") => {
            let bytes =
                std::fs::read(&model).map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", model.display())))?;
            let listing = edgec_tflite::inspect(&bytes)
                .map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", model.display())))?;
            print!("{listing}");
            Ok(())
        }
        Command::Inspect { model } => {
            print!("{}", compiler::inspect::inspect(&model).map_err(|e| Failure::User(anyhow::anyhow!(e)))?);
            Ok(())
        }
        Command::Report { file, pipe, json, vela } => {
            let out = optimize(&pipe, &file, passes::DEFAULT_PIPELINE, PassOptions::default())?;
            let text = compiler::report::render(&out.module, &out.profile, &file, vela.as_deref(), json);
            print!("{}", text.map_err(|e| Failure::User(anyhow::anyhow!(e)))?);
            Ok(())
        }
        Command::Run { model, inputs, output, shapes, cross } => run_model(&model, &inputs, output, &shapes, &cross),
        Command::Verify { model, data, rtol, atol, shapes, cross } => {
            verify_model(&model, &data, Tolerance { rtol, atol }, &shapes, &cross)
        }
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

/// Run the pipeline; warn about approximations, print `--explain`.
fn optimize(
    pipe: &PipeArgs,
    file: &str,
    passes: &str,
    popts: PassOptions,
) -> Result<compiler::pipeline::Outcome, Failure> {
    let out = compiler::pipeline::run(&pipe.request(file, passes), popts)?;
    for what in &out.approximations {
        eprintln!("edgec: warning: approximation applied: {what}");
    }
    if pipe.explain {
        eprint!("{}", out.explain);
    }
    Ok(out)
}

/// What `edgec compile` writes, and where.
struct CompileOut<'a> {
    emit: Emit,
    output: &'a std::path::Path,
    name: Option<String>,
    report: Option<&'a std::path::Path>,
    triple: Option<&'a str>,
    pack_for: Option<edgec_kernels::gemm::Isa>,
    runtime: Option<&'a std::path::Path>,
    quant: Option<&'a cli_quant::QuantArgs>,
    vela: Option<&'a std::path::Path>,
}

fn compile(pipe: &PipeArgs, file: &str, co: CompileOut<'_>, popts: PassOptions) -> Result<(), Failure> {
    let CompileOut { emit: what, output, name, report, triple, pack_for, runtime, quant, vela } = co;
    let mut out = optimize(pipe, file, passes::DEFAULT_PIPELINE, popts.clone())?;
    // `--emit vela` puts the prediction beside Vela's estimate: of the float module, before quantizing.
    let predicted = match (what, out.profile.vela_accelerator.clone()) {
        (Emit::Vela, Some(accel)) => {
            let r = compiler::report::build(&out.module, &out.profile, file).map_err(|e| anyhow::anyhow!(e));
            Some((accel, r.map_err(Failure::User)?))
        }
        (Emit::Vela, None) => {
            let t = &out.profile.name;
            let why =
                format!("--emit vela needs an Ethos-U target (a profile with `vela_accelerator`); `{t}` has none");
            return Err(Failure::User(anyhow::anyhow!(why)));
        }
        _ => None,
    };
    let qdq = match quant {
        Some(q) => Some(q.apply(&mut out.module, None, &pipe.target)?),
        None => None,
    };
    match what {
        Emit::Tflite | Emit::Vela => {
            let qdq = qdq.ok_or_else(|| {
                Failure::User(anyhow::anyhow!("--emit tflite writes an INT8 model: add --quantize int8 --calib DIR"))
            })?;
            match predicted {
                Some((accel, p)) => cli_tflite::write_vela(&qdq, output, p, &accel, vela, pipe.explain),
                None => cli_tflite::write_tflite(&qdq, output, report, pipe.explain),
            }
        }
        Emit::Ir if triple.is_some() => Err(Failure::User(anyhow::anyhow!("--triple applies to --emit rust"))),
        Emit::Ir => emit(&out.module, Some(output.to_path_buf())),
        Emit::Rust => {
            let backend = out.profile.backend.as_deref().and_then(codegen::backend::get);
            let Some(backend) = backend.filter(|b| b.name == "rust") else {
                return Err(Failure::User(anyhow::anyhow!(
                    "--emit rust generates portable CPU code; use --target cpu (target `{}` has no Rust backend)",
                    pipe.target
                )));
            };
            let name = name.unwrap_or_else(|| compiler::compile::default_name(std::path::Path::new(file)));
            compiler::compile::check_name(&name).map_err(|e| Failure::User(anyhow::anyhow!(e)))?;
            let mut m = out.module;
            backend.prepare_module(&mut m, popts, &mut std::io::stderr())?;
            let r = compiler::compile::write_crate(&m, output, (&name, file), (triple, pack_for), runtime)
                .map_err(Failure::User)?;
            if r.dynamic {
                eprintln!(
                    "edgec: wrote crate `{name}` to {} (symbolic dims: memory planned when it runs, per input-shape signature; weights {} bytes)",
                    output.display(),
                    r.weights_bytes
                );
            } else {
                eprintln!(
                    "edgec: wrote crate `{name}` to {} (arena {} bytes, lower bound {}, weights {} bytes)",
                    output.display(),
                    r.arena_bytes,
                    r.lower_bound_bytes,
                    r.weights_bytes
                );
            }
            if let Some(p) = report {
                let json = serde_json::to_string_pretty(&r).map_err(|e| Failure::Internal(e.into()))?;
                std::fs::write(p, json + "\n").map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", p.display())))?;
            }
            Ok(())
        }
    }
}

/// Every name in `names` is a registered pass or a backend's preparation pass.
fn check_pass_names(names: &[String]) -> Result<(), Failure> {
    let mut valid: Vec<&'static str> = REGISTRY.iter().map(|p| p.name).collect();
    let prepare: Vec<&'static str> =
        codegen::backend::prepare_pass_names().into_iter().filter(|n| !valid.contains(n)).collect();
    valid.extend(prepare);
    let unknown: Vec<String> = names.iter().filter(|n| !valid.contains(&n.as_str())).cloned().collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(PassError::UnknownPasses { unknown, valid }.into())
}

fn emit(m: &ir::Module, output: Option<PathBuf>) -> Result<(), Failure> {
    let elided = save_eir(m, output.as_deref())?;
    if elided > 0 {
        eprintln!("edgec: note: {elided} large constant(s) elided from stdout; use -o FILE.eir to keep the weights");
    }
    Ok(())
}

/// `--shape`/`--dim` fix sizes at compile time: a built crate cannot take them.
fn no_shapes_for_crate(shapes: &ShapeArgs, path: &std::path::Path) -> Result<(), Failure> {
    if compiler::compile::is_crate_dir(path) && !shapes.is_empty() {
        return Err(Failure::User(anyhow::anyhow!(
            "{}: --shape/--dim apply when compiling (`edgec compile --shape ...`), not to a built crate",
            path.display()
        )));
    }
    Ok(())
}

fn run_model(
    model: &str,
    inputs: &[String],
    output: Option<PathBuf>,
    shapes: &ShapeArgs,
    cross: &CrossArgs,
) -> Result<(), Failure> {
    let path = std::path::Path::new(model);
    no_shapes_for_crate(shapes, path)?;
    let target = cross.target(path)?;
    let crate_dir = compiler::compile::is_crate_dir(path);
    let m = if crate_dir {
        load_eir(&path.join("edgec").join("model.eir").display().to_string())?.module
    } else {
        load_model_with(model, &shapes.load_options()?)?
    };
    let bindings = parse_bindings(inputs)?;
    let tensors = bind_inputs(&m, &bindings)?;
    let outs = if crate_dir {
        let exe = compiler::compile::build_crate(path, &target)?;
        compiler::compile::run_crate(path, &exe, &tensors, &target).map_err(|e| Failure::User(anyhow::anyhow!(e)))?
    } else {
        run_main(&m, tensors)?
    };
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

fn verify_model(
    model: &str,
    data: &[PathBuf],
    tol: Tolerance,
    shapes: &ShapeArgs,
    cross: &CrossArgs,
) -> Result<(), Failure> {
    let path = std::path::Path::new(model);
    no_shapes_for_crate(shapes, path)?;
    let target = cross.target(path)?;
    let (reports, names, reference) = if compiler::compile::is_crate_dir(path) {
        let meta = compiler::compile::read_meta(path)?;
        let v = compiler::compile::verify_crate(path, data, tol, &target)?;
        (v.reports, meta.outputs, v.reference)
    } else {
        let m = load_model_with(model, &shapes.load_options()?)?;
        let reports = verify_data(&m, path, data, tol)?;
        (reports, io_names(&m).1, "the exact @main.reference (bucketing padding / approximations)".to_string())
    };
    let (text, failed) = compiler::run::render_reports(&reports, &names, &reference, tol);
    print!("{text}");
    if failed > 0 {
        return Err(Failure::User(anyhow::anyhow!("{failed} data set(s) failed verification")));
    }
    Ok(())
}
