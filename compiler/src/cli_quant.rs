//! The quantization options of `edgec quantize` and `edgec compile --quantize int8`.

use compiler::pipeline::Failure;
use std::path::{Path, PathBuf};

/// INT8 post-training quantization.
#[derive(clap::Args, Clone, Debug)]
pub struct QuantArgs {
    /// Calibration data: ONNX test-layout directories (test_data_set_*/input_K.pb), one such
    /// directory, one directory per sample holding <input name>.npy, <sample>.npz files holding
    /// the inputs by name, or one .npz with the samples along each array's first axis.
    #[arg(long, value_name = "DIR")]
    pub calib: Option<PathBuf>,
    /// Evaluation data for the report (same layouts); default: the calibration set.
    #[arg(long, value_name = "DIR")]
    pub eval: Option<PathBuf>,
    /// How activation ranges are chosen: minmax, percentile:P, entropy or mse.
    #[arg(long, value_name = "METHOD", default_value = "mse")]
    pub calib_method: String,
    /// Weights quantized per output channel (the default).
    #[arg(long, conflicts_with = "per_tensor")]
    pub per_channel: bool,
    /// Weights quantized with one scale per tensor.
    #[arg(long)]
    pub per_tensor: bool,
    /// Weights on -64..=64 instead of -127..=127 (onnxruntime's reduce_range): one bit of
    /// weight precision less, and CPUs with AVX2 but no VNNI then multiply bytes directly
    /// (vpmaddubsw, whose i16 pair sums full-range weights could saturate).
    #[arg(long)]
    pub reduce_range: bool,
    /// Activation type: u8 or i8 (asymmetric), i16 (symmetric).
    #[arg(long, value_name = "TYPE", default_value = "u8")]
    pub act_type: String,
    /// Keep ops in float: an op type (Conv, onnx.Softmax, core.conv) or an ONNX node name (repeatable).
    #[arg(long, value_name = "OPTYPE|NODE")]
    pub keep_float: Vec<String>,
    /// Quantize the results of these ops as symmetric i16 instead of 8 bits: an op type or an
    /// ONNX node name (repeatable; what `--auto-mixed` does to the activations costing most).
    #[arg(long, value_name = "OPTYPE|NODE")]
    pub i16: Vec<String>,
    /// Until every output's cosine with the float model reaches COSINE, one at a time: widen
    /// to i16 the 8-bit activations whose rounding alone costs most (a sensitivity run per
    /// activation on two samples), then move the int8 ops that lose most back to float.
    #[arg(long, value_name = "COSINE")]
    pub auto_mixed: Option<f64>,
    /// A mixed-precision policy file replacing the default (passes/policy/quant-default.toml), or
    /// a built-in one by name: `default`, `tflite` (what `--emit tflite` uses).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Keep the QDQ form: do not fold QDQ patterns into integer ops (quant.conv).
    #[arg(long)]
    pub qdq: bool,
    /// Keep the biases as rounded: no correction of the mean shift int8 rounding puts into each
    /// conv and linear layer (measured on the calibration set; on by default).
    #[arg(long)]
    pub no_bias_correction: bool,
    /// Do not equalize: by default a conv whose result only a depthwise conv reads has its
    /// output channels rescaled by powers of two (and the depthwise weights back), which
    /// changes no float result and evens out the channel ranges the activation's grid covers
    /// (with per-channel weights only: `--per-tensor` turns it off).
    #[arg(long)]
    pub no_equalize: bool,
}

/// How `compile` quantizes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum QuantMode {
    /// INT8 post-training quantization (needs --calib).
    Int8,
}

impl QuantArgs {
    fn request(&self, target: &str) -> Result<compiler::quantize::Request, Failure> {
        let Some(calib) = self.calib.clone() else {
            return Err(Failure::User(anyhow::anyhow!("quantization needs calibration data: --calib DIR")));
        };
        Ok(compiler::quantize::Request {
            calib,
            eval: self.eval.clone(),
            method: self.calib_method.clone(),
            act_type: self.act_type.clone(),
            per_tensor: self.per_tensor,
            reduce_range: self.reduce_range,
            keep_float: self.keep_float.clone(),
            i16: self.i16.clone(),
            auto_mixed: self.auto_mixed,
            policy: self.policy.clone(),
            integer: !self.qdq,
            target: target.to_string(),
            bias_correction: !self.no_bias_correction,
            equalize: !self.no_equalize,
        })
    }

    /// Quantization options given without `--quantize int8` would be ignored: refuse them.
    pub fn unused(&self) -> Result<(), Failure> {
        let given = self.calib.is_some() || self.eval.is_some() || !self.keep_float.is_empty() || !self.i16.is_empty();
        let switched = self.qdq || self.no_bias_correction || self.no_equalize || self.reduce_range;
        if given || self.auto_mixed.is_some() || switched {
            return Err(Failure::User(anyhow::anyhow!(
                "--calib, --eval, --keep-float, --i16, --auto-mixed, --qdq, --no-bias-correction, --no-equalize and --reduce-range apply with --quantize int8"
            )));
        }
        Ok(())
    }

    /// Quantize `m` in place; print the report, and write it as JSON to `report` if given.
    /// `target` decides which QDQ patterns fold into integer ops. Returns the
    /// QDQ module (what `.onnx` export writes).
    pub fn apply(&self, m: &mut ir::Module, report: Option<&Path>, target: &str) -> Result<ir::Module, Failure> {
        let (q, r, out) = compiler::quantize::run(m, &self.request(target)?).map_err(Failure::User)?;
        eprint!("{}", r.text());
        if let Some(p) = report {
            let json = serde_json::to_string_pretty(&r).map_err(|e| Failure::Internal(e.into()))?;
            std::fs::write(p, json + "\n").map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", p.display())))?;
        }
        *m = out;
        Ok(q.module)
    }
}
