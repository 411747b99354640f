//! Flags shared by several `edgec` commands: the pipeline's (target, rules,
//! limits, bucketing, approximations, shapes) and running on another triple.

use compiler::pipeline::Failure;
use std::path::PathBuf;

/// Shape-bucketing flags (shared by the commands that run the pipeline).
#[derive(clap::Args)]
pub(crate) struct BucketArgs {
    /// Bucket a symbolic dim: DIM=SIZE,SIZE,... or DIM=auto:FILE (observed sizes, one per line;
    /// picks at most --buckets-max buckets minimizing expected padded compute). Repeatable.
    #[arg(long, value_name = "DIM=SIZES")]
    pub(crate) bucket: Vec<String>,
    /// Pad value of an input when bucketing: NAME=VALUE (repeatable; default 0 for every input,
    /// so attention masks pad with 0 = masked and token ids with 0).
    #[arg(long, value_name = "NAME=VALUE")]
    pub(crate) pad: Vec<String>,
    /// Most buckets `DIM=auto:FILE` may choose.
    #[arg(long, value_name = "K", default_value_t = compiler::bucket::DEFAULT_MAX_BUCKETS)]
    pub(crate) buckets_max: usize,
}

/// Options of the optimizing pipeline (shared by `opt` and `compile`).
#[derive(clap::Args)]
pub(crate) struct PipeArgs {
    /// Target profile: a built-in name (`cpu`, `rk3588-npu`, `ethos-u55-256`, `ethos-u55-128`, `ethos-u65-512`, `ethos-u85-256`) or a .toml profile path.
    #[arg(long, default_value = "cpu")]
    pub(crate) target: String,
    /// Extra rule file (repeatable); rules are validated before anything runs.
    #[arg(long, value_name = "FILE")]
    pub(crate) rules: Vec<PathBuf>,
    /// E-graph limit: stop when the e-graph holds more e-nodes than this.
    #[arg(long, value_name = "N", default_value_t = passes::egraph::Limits::default().max_enodes)]
    pub(crate) max_enodes: usize,
    /// E-graph limit: stop after this many saturation iterations.
    #[arg(long, value_name = "N", default_value_t = passes::egraph::Limits::default().max_iters)]
    pub(crate) max_iters: usize,
    /// Print the rules that fired (and why others did not), op counts before and after,
    /// and which ops the target runs on its fallback.
    #[arg(long)]
    pub(crate) explain: bool,
    #[command(flatten)]
    pub(crate) bucketing: BucketArgs,
    /// APPROXIMATION (opt-in): every self-attention attends only to keys within W positions
    /// (|i - j| <= W, sliding window). Recorded in the module; `edgec verify` reports the deviation.
    #[arg(long, value_name = "W")]
    pub(crate) attention_window: Option<u64>,
    /// APPROXIMATION (opt-in): let the approximate rewrite rule NAME run (repeatable; `edgec
    /// rules` marks them, e.g. gelu-erf-to-tanh). Recorded in the module; `edgec verify`
    /// reports the deviation from the exact function.
    #[arg(long, value_name = "NAME")]
    pub(crate) approximate: Vec<String>,
    /// Fix a graph input to a value: NAME=FILE (.npy, or .pb TensorProto). The input leaves the
    /// signature and its value is folded in, so shapes computed from it become static
    /// (e.g. a Reshape target or Resize sizes given as an input). Repeatable.
    #[arg(long = "const", value_name = "NAME=FILE")]
    pub(crate) consts: Vec<String>,
    #[command(flatten)]
    pub(crate) shapes: ShapeArgs,
}

/// Fixing input sizes (every command that takes a model).
#[derive(clap::Args, Default)]
pub(crate) struct ShapeArgs {
    /// Fix an input's shape: NAME=D0,D1,... (repeatable). Every dim computed from it becomes
    /// static: the fastest code, and what static-shape targets (NPUs) need.
    #[arg(long = "shape", value_name = "NAME=D0,D1,...")]
    pub(crate) shapes: Vec<String>,
    /// Fix a symbolic dim everywhere: SYMBOL=N (repeatable; `edgec inspect` lists the symbols,
    /// e.g. `x.d2` for an unnamed dim 2 of input `x`).
    #[arg(long = "dim", value_name = "SYMBOL=N")]
    pub(crate) dims: Vec<String>,
}

/// Where a generated crate is built and run (`edgec run|verify CRATE`).
#[derive(clap::Args, Default)]
pub(crate) struct CrossArgs {
    /// Build the crate for this target triple (default: the one it was compiled for, else the
    /// host); a foreign triple runs under qemu-user (e.g. aarch64-unknown-linux-gnu).
    #[arg(long, value_name = "TRIPLE")]
    pub(crate) triple: Option<String>,
    /// Run the crate's binary under this command (e.g. "qemu-aarch64 -cpu cortex-a53 -L
    /// /usr/aarch64-linux-gnu"; default for a foreign triple: its qemu-user).
    #[arg(long, value_name = "CMD")]
    pub(crate) runner: Option<String>,
}

impl CrossArgs {
    /// The build target for crate `dir`; an error for a model that is not a crate.
    pub(crate) fn target(&self, dir: &std::path::Path) -> Result<compiler::cross::BuildTarget, Failure> {
        if !compiler::compile::is_crate_dir(dir) {
            if self.triple.is_some() || self.runner.is_some() {
                return Err(Failure::User(anyhow::anyhow!(
                    "{}: --triple/--runner apply to a generated crate directory (`edgec compile --emit rust`)",
                    dir.display()
                )));
            }
            return Ok(compiler::cross::BuildTarget::host());
        }
        let meta = compiler::compile::read_meta(dir)?;
        let triple = self.triple.clone().or(meta.triple);
        Ok(compiler::cross::BuildTarget::new(triple.as_deref(), self.runner.as_deref(), true)?)
    }
}

impl ShapeArgs {
    pub(crate) fn load_options(&self) -> Result<compiler::driver::LoadOptions, Failure> {
        let shapes = compiler::pipeline::shape_spec(&self.shapes, &self.dims)?;
        Ok(compiler::driver::LoadOptions { consts: vec![], shapes })
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.shapes.is_empty() && self.dims.is_empty()
    }
}

impl PipeArgs {
    pub(crate) fn request(&self, file: &str, passes: &str) -> compiler::pipeline::Request {
        compiler::pipeline::Request {
            file: file.to_string(),
            passes: passes.to_string(),
            target: self.target.clone(),
            rules: self.rules.clone(),
            max_enodes: self.max_enodes,
            max_iters: self.max_iters,
            bucket: self.bucketing.bucket.clone(),
            pad: self.bucketing.pad.clone(),
            buckets_max: self.bucketing.buckets_max,
            attention_window: self.attention_window,
            approximate: self.approximate.clone(),
            consts: self.consts.clone(),
            shapes: self.shapes.shapes.clone(),
            dims: self.shapes.dims.clone(),
        }
    }
}
