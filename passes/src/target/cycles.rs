//! Cycle estimates of one op on an NPU's MAC array (`edgec report`).
//!
//! A profile's `[cycles]` table describes the array: its clock, the output
//! micro-block it computes per step (`ofm_ublock`, H×W×C) and the input depth
//! it consumes per step, the bandwidths of its working memory (SRAM) and of
//! the storage constants are read from, and the bytes an element takes on the
//! device. `[cycles.ops]` names each op's formula family ([`Form`]) and an
//! efficiency factor. An op's estimate is the largest of its compute, its
//! SRAM traffic and its constant traffic: the bottleneck, as Vela's
//! performance estimate takes it per operation.
//!
//! Invariants (of parsed models): the clock, the bandwidths and the element
//! size are finite and `> 0`, the micro-block dims `>= 1`, factors finite and
//! `>= 0`; so every estimate is finite and `>= 0`. Operands the caller marks
//! constant are weights: read from constant storage, not from SRAM. Shapes
//! are NCHW (the IR's ONNX layout); a missing or symbolic dim counts as
//! [`super::NOMINAL_DIM`] (as in [`super::work`]).

use super::work::{dims as work_dims, elems};
use super::OpQuery;
use ir::{Opcode, TensorType};
use std::collections::BTreeMap;

/// The formula family of an op's compute cycles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// Convolution (`group`, depthwise and transposed included): output
    /// micro-blocks × input-depth steps × kernel taps.
    Conv,
    /// Matrix product: rows × output-channel blocks × input-depth steps.
    Linear,
    /// Windowed pooling: output micro-blocks × kernel taps.
    Pool,
    /// Global pooling and whole-axis reductions: one step per input element.
    GlobalPool,
    /// Resampling: one step per output element.
    Resize,
    /// Elementwise work: limited by `elementwise_bytes_per_cycle` over all
    /// operand and result bytes.
    Elementwise,
    /// Elementwise, and a broadcast constant operand is re-read from constant
    /// storage for every output element (`streamed_const_bytes_per_elem`).
    StreamedConst,
    /// Softmax as a chain of elementwise steps over every element plus
    /// per-row steps (the row's max, sum and reciprocal): input elements ×
    /// (1 + 3 / the softmax axis' length).
    Softmax,
    /// An activation through a lookup table: output elements ×
    /// `lut_cycles_per_elem`. Fused into the output stage of the MAC-array
    /// op it reads (see [`Fusion`]), it has no cycles of its own.
    Lut,
    /// Fused into its neighbour or a view (reshapes, concatenation written
    /// in place): no cycles of its own.
    Free,
}

impl Form {
    /// Every form with its name in profiles.
    pub const ALL: [(&'static str, Form); 10] = [
        ("conv", Form::Conv),
        ("linear", Form::Linear),
        ("pool", Form::Pool),
        ("global_pool", Form::GlobalPool),
        ("resize", Form::Resize),
        ("elementwise", Form::Elementwise),
        ("streamed_const", Form::StreamedConst),
        ("softmax", Form::Softmax),
        ("lut", Form::Lut),
        ("free", Form::Free),
    ];

    /// The form named `s` in a profile.
    pub fn from_name(s: &str) -> Option<Form> {
        Form::ALL.iter().find(|(n, _)| *n == s).map(|&(_, f)| f)
    }

    /// The forms computed on the MAC array, whose results leave through
    /// its output stage (`output_cycles_per_elem`).
    pub fn on_mac_array(self) -> bool {
        matches!(self, Form::Conv | Form::Linear | Form::Pool | Form::GlobalPool)
    }
}

/// How an op shares its output stage with a neighbour: a [`Form::Lut`]
/// activation that is the only reader of a MAC-array op's result runs in
/// that op's output stage (as Vela fuses it), at the table's rate.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Fusion {
    /// Estimated on its own.
    #[default]
    None,
    /// A MAC-array op whose result goes through a table activation.
    LutEpilogue,
    /// The table activation fused into the op it reads: no cycles.
    IntoProducer,
}

/// How one op is estimated.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct OpCycles {
    /// Its formula family.
    pub form: Form,
    /// Multiplies the compute cycles (array utilization; `>= 0`).
    pub factor: f64,
}

/// The NPU's cycle model (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CycleModel {
    /// NPU clock in MHz.
    pub clock_mhz: f64,
    /// Output micro-block the array computes per step: H, W, C.
    pub ofm_ublock: [u32; 3],
    /// Input channels consumed per step.
    pub ifm_ublock_depth: u32,
    /// Cores sharing each op's output blocks (Ethos-U65-512: 2): the
    /// compute of every form but `lut` divides by it; the per-element
    /// figures (output stage, tables) and memory traffic are the whole NPU's.
    pub cores: u32,
    /// Cycles per output element of the MAC array's output stage: a floor
    /// on every [`Form::on_mac_array`] op (0: none).
    pub output_cycles_per_elem: f64,
    /// Cycles per output element of a table activation ([`Form::Lut`]),
    /// alone or in a MAC-array op's output stage.
    pub lut_cycles_per_elem: f64,
    /// Working-memory (SRAM) bytes per cycle.
    pub sram_bytes_per_cycle: f64,
    /// Bytes per cycle of elementwise operations (operands plus results).
    pub elementwise_bytes_per_cycle: f64,
    /// Bytes per cycle read from constant storage (weights).
    pub const_bytes_per_cycle: f64,
    /// Constant bytes re-read per output element by [`Form::StreamedConst`].
    pub streamed_const_bytes_per_elem: f64,
    /// Bytes of one element on the device (1 for int8).
    pub bytes_per_elem: f64,
    /// Ops without an entry in `ops`: [`Form::Elementwise`] with factor 1.
    pub ops: BTreeMap<Opcode, OpCycles>,
}

/// An op's estimate: the three limits and the bottleneck.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Cycles {
    /// MAC-array (or elementwise-unit) cycles, factor applied.
    pub compute: f64,
    /// Cycles moving non-constant operands and results through SRAM.
    pub sram: f64,
    /// Cycles reading constant operands.
    pub consts: f64,
}

impl Cycles {
    /// The bottleneck: the largest of the three.
    pub fn total(&self) -> f64 {
        self.compute.max(self.sram).max(self.consts)
    }
}

const ELEMENTWISE: OpCycles = OpCycles { form: Form::Elementwise, factor: 1.0 };

impl CycleModel {
    /// How `op` is estimated.
    pub fn op(&self, op: Opcode) -> OpCycles {
        self.ops.get(&op).copied().unwrap_or(ELEMENTWISE)
    }

    /// Whether a `consumer` that is the only reader of a `producer`'s
    /// result runs in the producer's output stage.
    pub fn fuses(&self, producer: Opcode, consumer: Opcode) -> bool {
        self.op(producer).form.on_mac_array() && self.op(consumer).form == Form::Lut
    }

    /// Estimate `q`; `is_const[i]` says whether operand `i` is a constant.
    pub fn estimate(&self, q: &OpQuery, is_const: &[bool], fusion: Fusion) -> Cycles {
        let oc = self.op(q.opcode);
        if oc.form == Form::Free || q.opcode == Opcode::CoreConst || fusion == Fusion::IntoProducer {
            return Cycles::default();
        }
        let konst = |i: usize| is_const.get(i).copied().unwrap_or(false);
        let (mut var_elems, mut const_elems, mut broadcast_const) = (0.0, 0.0, false);
        let out_elems: f64 = q.outputs.iter().map(elems).sum();
        for (i, t) in q.inputs.iter().enumerate() {
            let Some(t) = t else { continue };
            if konst(i) {
                const_elems += elems(t);
                broadcast_const |= elems(t) < out_elems;
            } else {
                var_elems += elems(t);
            }
        }
        let (bytes, cores) = (self.bytes_per_elem, f64::from(self.cores));
        let compute = match oc.form {
            Form::Elementwise | Form::StreamedConst => {
                (var_elems + const_elems + out_elems) * bytes / self.elementwise_bytes_per_cycle * oc.factor / cores
            }
            // Per-element figures (output stage, tables) are the whole NPU's.
            Form::Lut => out_elems * self.lut_cycles_per_elem * oc.factor,
            f if f.on_mac_array() => {
                let lut = if fusion == Fusion::LutEpilogue { self.lut_cycles_per_elem } else { 0.0 };
                let stage = out_elems * self.output_cycles_per_elem.max(lut);
                (self.compute(f, q) * oc.factor / cores).max(stage)
            }
            f => self.compute(f, q) * oc.factor / cores,
        };
        let mut c = Cycles {
            compute,
            sram: (var_elems + out_elems) * bytes / self.sram_bytes_per_cycle,
            consts: const_elems * bytes / self.const_bytes_per_cycle,
        };
        if oc.form == Form::StreamedConst && broadcast_const {
            c.consts = out_elems * self.streamed_const_bytes_per_elem / self.const_bytes_per_cycle;
        }
        c
    }

    /// Compute cycles before the factor.
    fn compute(&self, form: Form, q: &OpQuery) -> f64 {
        let [uh, uw, uc] = self.ofm_ublock.map(f64::from);
        let ud = f64::from(self.ifm_ublock_depth);
        let input = |i: usize| q.inputs.get(i).copied().flatten();
        match form {
            Form::Conv => {
                let Some(out) = q.outputs.first() else { return 0.0 };
                let (n, c, h, w) = nchw(out);
                let wd = dims(input(1));
                let taps: f64 = wd.iter().skip(2).product();
                let group = q.attrs.int("group").unwrap_or(1).max(1) as f64;
                let blocks = n * (h / uh).ceil() * (w / uw).ceil();
                // Weights: [C_out, C_in/group, k...]; transposed: [C_in, C_out/group, k...].
                let transposed = matches!(q.opcode, Opcode::CoreConvTranspose | Opcode::ConvTranspose);
                let c_in_g = if transposed { wd.first().copied().unwrap_or(1.0) / group } else { at(&wd, 1) };
                if c_in_g <= 1.0 && group > 1.0 {
                    // Depthwise: each output channel reads one input channel.
                    blocks * (c / uc).ceil() * taps
                } else {
                    blocks * group * (c / group / uc).ceil() * (c_in_g / ud).ceil() * taps
                }
            }
            Form::Linear => {
                let Some(out) = q.outputs.first() else { return 0.0 };
                let od = dims(Some(out));
                let c_out = od.last().copied().unwrap_or(1.0);
                let k = dims(input(0)).last().copied().unwrap_or(1.0);
                elems(out) / c_out.max(1.0) * (c_out / uc).ceil() * (k / ud).ceil()
            }
            Form::Pool => {
                let Some(out) = q.outputs.first() else { return 0.0 };
                let taps = super::limits::kernel(q).map_or(1.0, |k| k.iter().map(|&x| x.max(1) as f64).product());
                elems(out) / (uh * uw * uc) * taps
            }
            Form::GlobalPool => input(0).map_or(0.0, elems),
            Form::Resize => q.outputs.iter().map(elems).sum(),
            Form::Softmax => {
                let d = dims(input(0));
                let axis = q.attrs.int("axis").unwrap_or(-1);
                let axis = if axis < 0 { axis + d.len() as i64 } else { axis };
                let row = usize::try_from(axis).ok().and_then(|a| d.get(a)).copied().unwrap_or(1.0).max(1.0);
                input(0).map_or(0.0, elems) * (1.0 + 3.0 / row)
            }
            Form::Elementwise | Form::StreamedConst | Form::Lut | Form::Free => 0.0,
        }
    }

    /// Cycles to nanoseconds at the NPU clock.
    pub fn ns(&self, cycles: f64) -> f64 {
        cycles * 1000.0 / self.clock_mhz
    }
}

/// Static dims (nominal where unknown; none for an unranked tensor).
fn dims(t: Option<&TensorType>) -> Vec<f64> {
    work_dims(t, 0)
}

fn at(d: &[f64], i: usize) -> f64 {
    d.get(i).copied().unwrap_or(1.0)
}

/// N, C, H, W of an NCHW result (1-D convolutions: H = 1).
fn nchw(t: &TensorType) -> (f64, f64, f64, f64) {
    let d = dims(Some(t));
    match d.len() {
        0..=2 => (1.0, at(&d, 1), 1.0, 1.0),
        3 => (d[0], d[1], 1.0, d[2]),
        _ => (d[0], d[1], d[2], d[3..].iter().product()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{TargetError, TargetProfile};
    use super::*;
    use ir::{Attr, Attrs, DType};

    const PROFILE: &str = r#"
name = "toy-npu"
description = "a MAC array of 2x2x8 outputs by 8 input channels"
[cycles]
clock_mhz = 500.0
ofm_ublock = [2, 2, 8]
ifm_ublock_depth = 8
sram_bytes_per_cycle = 8.0
elementwise_bytes_per_cycle = 4.0
const_bytes_per_cycle = 1.0
streamed_const_bytes_per_elem = 8.0
bytes_per_elem = 1.0
[cycles.ops]
"core.conv" = { form = "conv", factor = 1.5 }
"onnx.PRelu" = { form = "streamed_const" }
"onnx.HardSwish" = { form = "free" }
"onnx.Softmax" = { form = "softmax", factor = 2.0 }
"#;

    fn model() -> CycleModel {
        TargetProfile::parse(PROFILE, "toy.toml").expect("parses").cycles.expect("has [cycles]")
    }

    fn t(dims: &[u64]) -> TensorType {
        TensorType::fixed(DType::F32, dims)
    }

    fn est(op: &str, attrs: &Attrs, ins: &[(TensorType, bool)], out: TensorType) -> Cycles {
        let inputs: Vec<Option<&TensorType>> = ins.iter().map(|(t, _)| Some(t)).collect();
        let consts: Vec<bool> = ins.iter().map(|(_, c)| *c).collect();
        let outputs = [out];
        let q =
            OpQuery { opcode: Opcode::from_name(op).unwrap(), attrs, inputs: &inputs, outputs: &outputs, consts: &[] };
        model().estimate(&q, &consts, Fusion::None)
    }

    fn conv(c_in: u64, group: i64) -> Cycles {
        let mut a = Attrs::new();
        a.set("group", Attr::Int(group));
        let x = (t(&[1, c_in.max(group as u64), 20, 20]), false);
        est("core.conv", &a, &[x, (t(&[16, c_in, 3, 3]), true)], t(&[1, 16, 10, 10]))
    }

    #[test]
    fn convolutions_count_micro_blocks_rounded_up() {
        // 5x5 blocks of 2x2 pixels, 2 blocks of 8 output channels, 1 step of
        // 8 input channels, 9 taps, factor 1.5.
        assert_eq!(conv(8, 1).compute, 25.0 * 2.0 * 9.0 * 1.5);
        // 3 input channels take a whole 8-channel step.
        assert_eq!(conv(3, 1).compute, conv(8, 1).compute);
        assert_eq!(conv(9, 1).compute, 2.0 * conv(8, 1).compute);
        // Depthwise: one input channel per output channel, 8 channels a step.
        assert_eq!(conv(1, 16).compute, 25.0 * 2.0 * 9.0 * 1.5);
        // Weights come from constant storage (1 byte/cycle); activations
        // from SRAM (8 bytes/cycle): 20x20x8 in + 10x10x16 out = 4800 bytes.
        let c = conv(8, 1);
        assert_eq!((c.consts, c.sram), (16.0 * 8.0 * 9.0, 4800.0 / 8.0));
        assert_eq!(c.total(), c.compute.max(c.sram).max(c.consts));
    }

    #[test]
    fn elementwise_streamed_constants_and_free_ops() {
        let x = || (t(&[1, 8, 4, 4]), false);
        let none = Attrs::new();
        // Unlisted ops are elementwise: 3 x 128 bytes at 4 bytes per cycle.
        let add = est("onnx.Add", &none, &[x(), x()], t(&[1, 8, 4, 4]));
        assert_eq!(add.total(), 96.0);
        // A broadcast constant re-read per output element: 128 x 8 bytes.
        let prelu = est("onnx.PRelu", &none, &[x(), (t(&[8, 1, 1]), true)], t(&[1, 8, 4, 4]));
        assert_eq!((prelu.consts, prelu.total()), (1024.0, 1024.0));
        let hs = est("onnx.HardSwish", &none, &[x()], t(&[1, 8, 4, 4]));
        assert_eq!(hs, Cycles::default());
        assert_eq!(model().ns(500.0), 1000.0);
    }

    /// [`PROFILE`] with an output stage, table activations and `cores`.
    fn staged(cores: u32) -> CycleModel {
        let src = PROFILE
            .replace(
                "bytes_per_elem = 1.0",
                &format!(
                    "bytes_per_elem = 1.0\noutput_cycles_per_elem = 0.25\nlut_cycles_per_elem = 1.0\ncores = {cores}"
                ),
            )
            .replace(
                "\"onnx.HardSwish\" = { form = \"free\" }",
                "\"onnx.HardSwish\" = { form = \"lut\", factor = 0.5 }",
            )
            .replace("\"onnx.Softmax\"", "\"onnx.MaxPool\" = { form = \"pool\" }\n\"onnx.Softmax\"");
        TargetProfile::parse(&src, "staged.toml").expect("parses").cycles.expect("has [cycles]")
    }

    fn query<R>(op: &str, attrs: &Attrs, ins: &[TensorType], out: TensorType, k: impl FnOnce(&OpQuery) -> R) -> R {
        let inputs: Vec<Option<&TensorType>> = ins.iter().map(Some).collect();
        let outputs = [out];
        k(&OpQuery { opcode: Opcode::from_name(op).unwrap(), attrs, inputs: &inputs, outputs: &outputs, consts: &[] })
    }

    #[test]
    fn output_stage_floors_mac_ops_and_runs_fused_tables() {
        let (m, none) = (staged(1), Attrs::new());
        // A 1x1 conv from 8 channels: 2x4x4 blocks x 2 channel blocks x 1 step x 1.5
        // = 48 cycles of MACs, below the output stage's 0.25 x 1024 = 256.
        let ins = [t(&[1, 8, 8, 8]), t(&[16, 8, 1, 1])];
        let conv = |f| query("core.conv", &none, &ins, t(&[1, 16, 8, 8]), |q| m.estimate(q, &[false, true], f));
        assert_eq!(conv(Fusion::None).compute, 256.0);
        // With a table activation in its output stage: 1 cycle per element.
        assert_eq!(conv(Fusion::LutEpilogue).compute, 1024.0);
        let x = [t(&[1, 16, 8, 8])];
        let hs = |f| query("onnx.HardSwish", &none, &x, t(&[1, 16, 8, 8]), |q| m.estimate(q, &[false], f));
        assert_eq!(hs(Fusion::IntoProducer), Cycles::default());
        // Alone: 1024 elements x 1 cycle x factor 0.5.
        assert_eq!(hs(Fusion::None).compute, 512.0);
        assert!(m.fuses(Opcode::CoreConv, Opcode::HardSwish) && m.fuses(Opcode::MaxPool, Opcode::HardSwish));
        assert!(!m.fuses(Opcode::Add, Opcode::HardSwish) && !m.fuses(Opcode::CoreConv, Opcode::Add));
        // Two cores split the MAC array's work, not the output stage.
        let deep = [t(&[1, 64, 8, 8]), t(&[16, 64, 3, 3])];
        let big = |m: &CycleModel| {
            query("core.conv", &none, &deep, t(&[1, 16, 8, 8]), |q| m.estimate(q, &[false, true], Fusion::None))
        };
        assert_eq!(big(&m).compute, 16.0 * 2.0 * 8.0 * 9.0 * 1.5);
        assert_eq!(big(&staged(2)).compute, big(&m).compute / 2.0);
        assert_eq!(
            query("core.conv", &none, &ins, t(&[1, 16, 8, 8]), |q| staged(2).estimate(q, &[false, true], Fusion::None))
                .compute,
            256.0
        );
    }

    #[test]
    fn pooling_counts_output_blocks_times_taps() {
        let m = staged(1);
        let mut a = Attrs::new();
        a.set("kernel_shape", Attr::Ints(vec![3, 3]));
        // 16x16x8 outputs: 64 blocks of 2x2x8, 9 taps each (the output stage: 0.25 x 2048 = 512).
        let pool = query("onnx.MaxPool", &a, &[t(&[1, 8, 16, 16])], t(&[1, 8, 16, 16]), |q| {
            m.estimate(q, &[false], Fusion::None)
        });
        assert_eq!(pool.compute, 64.0 * 9.0);
    }

    #[test]
    fn softmax_pays_per_element_and_per_row() {
        let sm = |axis: Option<i64>, d: &[u64]| {
            let mut a = Attrs::new();
            if let Some(x) = axis {
                a.set("axis", Attr::Int(x));
            }
            est("onnx.Softmax", &a, &[(t(d), false)], t(d)).compute
        };
        // 64 elements in rows of 16 (the last axis by default): 64 + 3 x 4 rows, factor 2.
        assert_eq!(sm(None, &[1, 4, 16]), (64.0 + 12.0) * 2.0);
        // Rows of 2 along axis 1: 64 + 3 x 32.
        assert_eq!(sm(Some(1), &[1, 2, 32]), (64.0 + 96.0) * 2.0);
        assert_eq!(sm(Some(-2), &[1, 2, 32]), sm(Some(1), &[1, 2, 32]));
    }

    #[test]
    fn bad_cycle_tables_report_every_problem() {
        let src = PROFILE
            .replace("clock_mhz = 500.0", "clock_mhz = -1.0")
            .replace("ofm_ublock = [2, 2, 8]", "ofm_ublock = [2, 0, 8]\ncores = 0")
            .replace("form = \"free\"", "form = \"magic\"")
            .replace("\"onnx.PRelu\"", "\"onnx.NoSuchOp\"");
        let Err(TargetError::Invalid(d)) = TargetProfile::parse(&src, "bad.toml") else { panic!("accepted") };
        let all: Vec<String> = d.iter().map(|d| d.to_string()).collect();
        let want = [
            "`clock_mhz` must be a finite number > 0",
            "micro-block dims",
            "`cores` must be >= 1",
            "unknown form `magic`",
            "unknown op `onnx.NoSuchOp`",
        ];
        for w in want {
            assert!(all.iter().any(|m| m.contains(w) && m.starts_with("bad.toml:")), "missing {w}: {all:?}");
        }
    }
}
