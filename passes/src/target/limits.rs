//! Window limits of a target's op rules (`limits = [...]` in a profile): a
//! measured quantity of a convolution or pooling op (its largest stride, its
//! kernel's height, ...), or whether a divisor is an activation, must not exceed a maximum, optionally only when
//! conditions on the op hold (depthwise, SAME padding, dilated). Vela's
//! operator constraints for the Ethos-U are written this way.
//!
//! Invariant: a measure or condition that cannot be computed for an op (a
//! symbolic dim, a missing attribute the op's schema does not default) makes
//! the limit fail, so a prediction never calls an op supported on a guess.

use super::OpQuery;
use ir::Opcode;

/// A quantity of a windowed op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The largest of `strides` (1 when absent).
    Stride,
    /// The kernel's first spatial extent (`kernel_shape`, else the weight's dim 2).
    KernelH,
    /// The kernel's last spatial extent.
    KernelW,
    /// The product of the kernel's spatial extents.
    KernelArea,
    /// A slice's largest step over an axis other than height and width
    /// (1 when none): the model's axes 2 and 3 at rank 4, the axes before
    /// the last at rank 2 and 3 (TFLite shapes padded to NHWC).
    StepOffHw,
    /// How many of a slice's steps are negative.
    NegativeSteps,
    /// 1 when the second operand (a divisor) is an activation, 0 when it
    /// is known when the model is built.
    ActivationDivisor,
}

/// A condition under which a limit applies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `group` equals the input's channel count (> 1): a depthwise conv.
    Depthwise,
    /// Padded exactly as TFLite's SAME (the odd row or column after): what
    /// a TFLite writer emits as SAME rather than an explicit PAD and VALID.
    SamePadding,
    /// Some dilation above 1.
    Dilated,
}

/// Measure names as written in profiles.
pub(super) const MEASURES: &[(&str, Measure)] = &[
    ("stride", Measure::Stride),
    ("kernel_h", Measure::KernelH),
    ("kernel_w", Measure::KernelW),
    ("kernel_area", Measure::KernelArea),
    ("step_off_hw", Measure::StepOffHw),
    ("negative_steps", Measure::NegativeSteps),
    ("activation_divisor", Measure::ActivationDivisor),
];

/// Condition names as written in profiles.
pub(super) const CONDS: &[(&str, Cond)] =
    &[("depthwise", Cond::Depthwise), ("same_padding", Cond::SamePadding), ("dilated", Cond::Dilated)];

/// One limit of an op rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    /// What is measured.
    pub measure: Measure,
    /// Its largest supported value.
    pub max: i64,
    /// The limit applies only when all of these hold.
    pub when: Vec<Cond>,
    /// Why (shown in support reports).
    pub reason: String,
}

impl Measure {
    /// The profile name.
    pub fn name(self) -> &'static str {
        MEASURES.iter().find(|(_, m)| *m == self).map_or("?", |(n, _)| n)
    }

    /// Whether ops with `op`'s schema can be measured (the problem if not).
    pub(super) fn applies(self, op: Opcode) -> Result<(), String> {
        let def = op.def();
        let has = |a: &str| def.attr(a).is_some();
        let ok = match self {
            Measure::Stride => has("strides"),
            Measure::StepOffHw | Measure::NegativeSteps => has("steps"),
            Measure::ActivationDivisor => def.operands.len() >= 2,
            _ => has("kernel_shape") || def.operands.iter().any(|o| o.name == "W"),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("`{}` does not apply to {} (no window attributes)", self.name(), op.name()))
        }
    }

    /// The value for `q`, if it can be computed.
    pub(super) fn of(self, q: &OpQuery<'_>) -> Option<i64> {
        match self {
            Measure::Stride => Some(q.attrs.ints("strides").map_or(1, |s| s.iter().copied().max().unwrap_or(1))),
            Measure::KernelH => kernel(q)?.first().copied(),
            Measure::KernelW => kernel(q)?.last().copied(),
            Measure::KernelArea => kernel(q).map(|k| k.iter().product()),
            Measure::StepOffHw => step_off_hw(q),
            Measure::NegativeSteps => Some(q.attrs.ints("steps")?.iter().filter(|&&s| s < 0).count() as i64),
            Measure::ActivationDivisor => q.consts.get(1).map(|&c| i64::from(!c)),
        }
    }
}

impl Cond {
    /// The profile name.
    pub fn name(self) -> &'static str {
        CONDS.iter().find(|(_, c)| *c == self).map_or("?", |(n, _)| n)
    }

    /// Whether the condition holds for `q` (`None`: cannot tell).
    pub(super) fn holds(self, q: &OpQuery<'_>) -> Option<bool> {
        match self {
            Cond::Depthwise => {
                let group = if q.attrs.get("group").is_some() { q.attrs.int("group")? } else { 1 };
                let channels = *dims(q.inputs.first().copied().flatten()?)?.get(1)?;
                Some(group > 1 && group == channels)
            }
            Cond::Dilated => Some(q.attrs.ints("dilations").is_some_and(|d| d.iter().any(|&x| x > 1))),
            Cond::SamePadding => same_padding(q),
        }
    }
}

/// A static type's dims.
fn dims(t: &ir::TensorType) -> Option<Vec<i64>> {
    t.shape.static_dims()?.iter().map(|&d| i64::try_from(d).ok()).collect()
}

/// The spatial extents of the op's window.
pub(super) fn kernel(q: &OpQuery<'_>) -> Option<Vec<i64>> {
    if let Some(k) = q.attrs.ints("kernel_shape") {
        return Some(k.to_vec());
    }
    let w = dims(q.inputs.get(1).copied().flatten()?)?;
    Some(w.get(2..)?.to_vec())
}

/// [`Measure::StepOffHw`]: `None` at rank 1 or above 4, or for an axis out of range.
fn step_off_hw(q: &OpQuery<'_>) -> Option<i64> {
    let rank = dims(q.inputs.first().copied().flatten()?)?.len() as i64;
    let hw: &[i64] = match rank {
        4 => &[2, 3],
        2 | 3 => &[rank - 2, rank - 3],
        _ => return None,
    };
    let (axes, steps) = (q.attrs.ints("axes")?, q.attrs.ints("steps")?);
    let mut worst = 1;
    for (&a, &s) in axes.iter().zip(steps) {
        // core.slice's axes are non-negative (sorted); other ops' need not be.
        let a = if a < 0 { a + rank } else { a };
        if !(0..rank).contains(&a) {
            return None;
        }
        if !hw.contains(&a) {
            worst = worst.max(s.abs());
        }
    }
    Some(worst)
}

/// Whether the op's padding is TFLite's SAME, as a TFLite writer decides it
/// (`tflite::emit::layout::padding`): non-zero pads (given, or those of
/// `auto_pad = SAME_UPPER`) equal to SAME's for an output of
/// `ceil(in / stride)`. All-zero pads are VALID; other pads an explicit PAD.
fn same_padding(q: &OpQuery<'_>) -> Option<bool> {
    let u = |x: i64| usize::try_from(x).ok();
    let input: Vec<usize> = dims(q.inputs.first().copied().flatten()?)?.into_iter().map(u).collect::<Option<_>>()?;
    let output = dims(q.outputs.first()?)?;
    let (ins, outs) = (input.get(2..)?, output.get(2..)?);
    let n = ins.len();
    let kernel: Vec<usize> = kernel(q)?.into_iter().map(u).collect::<Option<_>>()?;
    let at = |name: &str, i: usize| q.attrs.ints(name).and_then(|v| v.get(i).copied()).map_or(Some(1), u);
    let mut same = vec![0; 2 * n];
    for i in 0..n {
        let (s, d) = (at("strides", i)?, at("dilations", i)?);
        (same[i], same[n + i]) = edgec_numeric::window::same_pads(ins[i], *kernel.get(i)?, s, d, false);
        if u(outs[i])? != ins[i].div_ceil(s.max(1)) {
            return Some(false);
        }
    }
    let pads: Vec<usize> = match q.attrs.str("auto_pad") {
        Some("SAME_UPPER") => same.clone(),
        Some(p) if p != "NOTSET" => return Some(false),
        _ => q.attrs.ints("pads").map_or(Some(vec![0; 2 * n]), |p| p.iter().map(|&x| u(x)).collect())?,
    };
    Some(pads.iter().any(|&p| p != 0) && pads == same)
}

impl Limit {
    /// The measured value when the limit applies to `q` and is exceeded (or
    /// cannot be computed: `None` inside).
    pub(super) fn violated(&self, q: &OpQuery<'_>) -> Option<Option<i64>> {
        for c in &self.when {
            match c.holds(q) {
                Some(true) => {}
                Some(false) => return None,
                None => return Some(None),
            }
        }
        match self.measure.of(q) {
            Some(v) if v <= self.max => None,
            v => Some(v),
        }
    }

    /// The report text of a violation with value `v`.
    pub(super) fn describe(&self, v: Option<i64>) -> String {
        let when = if self.when.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.when.iter().map(|c| c.name()).collect::<Vec<_>>().join(", "))
        };
        let shown = v.map_or_else(|| "unknown".to_string(), |v| v.to_string());
        format!("{} = {shown} exceeds {}{when}: {}", self.measure.name(), self.max, self.reason)
    }
}
