//! Calibration of INT8 post-training quantization (issue 16): the range of
//! each activation tensor, observed over a calibration set, and the scale and
//! zero point that quantize it.
//!
//! An [`Observer`] watches one tensor in two passes over the calibration
//! set, as TensorRT's calibrators do: the first pass records the extremes,
//! the second fills histograms over that fixed range (a signed one over
//! `[min, max]` and one of magnitudes over `[0, max |x|]`, [`BINS`] bins
//! each), so no activation is kept in memory. [`Observer::range`] then picks
//! the clipping range by a [`Method`]: the extremes, a percentile of each
//! tail, the threshold minimizing the KL divergence between the magnitude
//! distribution and its quantized form (entropy), or the range minimizing
//! the expected squared quantization error (MSE).
//!
//! Invariants: every range returned contains 0 (so zero is exact, as padding
//! and ReLU need) and lies within the observed `[min, max]` extended to 0;
//! NaNs are ignored, infinities clamp to the finite extremes; results depend
//! only on the values observed and their order within a pass does not
//! matter (histogram counts), so calibration is deterministic.

use ir::interp::{Data, InterpError, Tensor};
use ir::{Module, Value};
use std::collections::BTreeMap;

/// Histogram bins per tensor (TensorRT and onnxruntime use 2048).
pub const BINS: usize = 2048;

/// Fewer observed values than this leave the histogram too sparse for the
/// entropy method, which then keeps the extremes (4 values per bin).
pub const SPARSE: u64 = 4 * BINS as u64;

/// How the clipping range is chosen from the observed values.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Method {
    /// The observed extremes.
    MinMax,
    /// The given percentile of the upper tail and its mirror of the lower
    /// tail (e.g. 99.99).
    Percentile(f64),
    /// The magnitude threshold minimizing the KL divergence (TensorRT's
    /// entropy calibration).
    Entropy,
    /// The range minimizing the expected squared quantization error.
    Mse,
}

impl Method {
    /// Parse `minmax`, `percentile:P` (0 < P ≤ 100), `entropy` or `mse`.
    pub fn parse(s: &str) -> Result<Method, String> {
        match s {
            "minmax" => Ok(Method::MinMax),
            "entropy" => Ok(Method::Entropy),
            "mse" => Ok(Method::Mse),
            _ => match s.strip_prefix("percentile:").map(str::parse::<f64>) {
                Some(Ok(p)) if p > 0.0 && p <= 100.0 => Ok(Method::Percentile(p)),
                Some(_) => Err(format!("calibration method `{s}`: the percentile must be a number in (0, 100]")),
                None => Err(format!("unknown calibration method `{s}` (known: minmax, percentile:P, entropy, mse)")),
            },
        }
    }
}

/// A quantized element type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QType {
    /// Unsigned 8-bit, asymmetric (zero point in 0..=255).
    U8,
    /// Signed 8-bit; symmetric (zero point 0) when asked.
    I8,
    /// Signed 16-bit, symmetric.
    I16,
}

impl QType {
    /// The type's integer range.
    pub fn bounds(self) -> (i32, i32) {
        match self {
            QType::U8 => (0, 255),
            QType::I8 => (-128, 127),
            QType::I16 => (-32768, 32767),
        }
    }
}

/// Scale and zero point: `x ≈ (q - zero_point) * scale`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct QParams {
    /// Step between adjacent quantized values (> 0).
    pub scale: f32,
    /// The integer that represents 0.0 exactly.
    pub zero_point: i32,
}

/// The parameters quantizing `[lo, hi]` (extended to contain 0) to `q`.
/// Symmetric parameters map `±max(|lo|, |hi|)` onto `-qmax..=qmax` for a
/// signed type (zero point 0, one code unused, as onnxruntime and TFLite do)
/// and onto `0..=255` around 128 for u8. A range of zero width gets scale 1.
pub fn qparams(lo: f32, hi: f32, q: QType, symmetric: bool) -> QParams {
    let (lo, hi) = (f64::from(lo.min(0.0)), f64::from(hi.max(0.0)));
    let (qmin, qmax) = q.bounds();
    if symmetric {
        let m = lo.abs().max(hi);
        let (qlo, qhi) = if qmin < 0 { (-qmax, qmax) } else { (qmin, qmax) };
        let scale = if m > 0.0 { 2.0 * m / f64::from(qhi - qlo) } else { 1.0 };
        let zero_point = (f64::from(qlo + qhi) / 2.0).round_ties_even() as i32;
        return QParams { scale: scale as f32, zero_point };
    }
    if hi == lo {
        return QParams { scale: 1.0, zero_point: 0.max(qmin) };
    }
    let scale = (hi - lo) / f64::from(qmax - qmin);
    let zp = (f64::from(qmin) - lo / scale).round_ties_even();
    QParams { scale: scale as f32, zero_point: (zp as i32).clamp(qmin, qmax) }
}

/// The calibration state of one tensor; see the module docs.
#[derive(Clone, Debug)]
pub struct Observer {
    min: f64,
    max: f64,
    seen: u64,
    /// Counts over `[lo, hi]` after [`Observer::freeze`].
    signed: Vec<u64>,
    /// Counts of `|x|` over `[0, max |x|]`.
    magnitude: Vec<u64>,
    lo: f64,
    hi: f64,
}

impl Default for Observer {
    fn default() -> Self {
        Observer { min: 0.0, max: 0.0, seen: 0, signed: vec![], magnitude: vec![], lo: 0.0, hi: 0.0 }
    }
}

impl Observer {
    /// First pass: widen the extremes by `xs`.
    pub fn observe_range(&mut self, xs: &[f32]) {
        for &x in xs.iter().filter(|x| !x.is_nan()) {
            let x = f64::from(x.clamp(f32::MIN, f32::MAX));
            self.min = self.min.min(x);
            self.max = self.max.max(x);
            self.seen += 1;
        }
    }

    /// End the first pass: fix the histogram range (the extremes, with 0).
    pub fn freeze(&mut self) {
        (self.lo, self.hi) = (self.min.min(0.0), self.max.max(0.0));
        self.signed = vec![0; BINS];
        self.magnitude = vec![0; BINS];
    }

    /// Second pass: count `xs` (values outside the frozen range go to the
    /// end bins). Call [`Observer::freeze`] first.
    pub fn observe_hist(&mut self, xs: &[f32]) {
        assert_eq!(self.signed.len(), BINS, "Observer::freeze comes before observe_hist");
        let mag = self.lo.abs().max(self.hi);
        for &x in xs.iter().filter(|x| !x.is_nan()) {
            let x = f64::from(x);
            self.signed[bin(x - self.lo, self.hi - self.lo)] += 1;
            self.magnitude[bin(x.abs(), mag)] += 1;
        }
    }

    /// The share of the observed values outside `[lo, hi]`, counted by
    /// histogram bin (a bin counts when its centre lies outside); 0 before
    /// the second pass.
    pub fn outside(&self, lo: f32, hi: f32) -> f64 {
        let total: u64 = self.signed.iter().sum();
        let (lo, hi) = (f64::from(lo), f64::from(hi));
        let out: u64 =
            self.signed.iter().enumerate().filter(|(i, _)| !(lo..=hi).contains(&self.centre(*i))).map(|(_, n)| n).sum();
        if total == 0 {
            0.0
        } else {
            out as f64 / total as f64
        }
    }

    /// The observed extremes, extended to contain 0.
    pub fn extremes(&self) -> (f32, f32) {
        (self.min.min(0.0) as f32, self.max.max(0.0) as f32)
    }

    /// The clipping range chosen by `method` for quantization to `q`.
    pub fn range(&self, method: Method, q: QType) -> (f32, f32) {
        if self.signed.is_empty() || self.seen == 0 || method == Method::MinMax {
            return self.extremes();
        }
        let (lo, hi) = match method {
            Method::MinMax => (self.lo, self.hi),
            Method::Percentile(p) => self.percentile(p),
            // KL divergence between sparse histograms says nothing: too few
            // values (a squeeze-excite scale, a pooled vector) keep their extremes.
            Method::Entropy if self.seen < SPARSE => (self.lo, self.hi),
            Method::Entropy => {
                let t = self.entropy_threshold(q);
                (self.lo.max(-t), self.hi.min(t))
            }
            Method::Mse => self.mse(q),
        };
        (lo.min(0.0) as f32, hi.max(0.0) as f32)
    }

    /// Bin centre `i` of the signed histogram.
    fn centre(&self, i: usize) -> f64 {
        self.lo + (i as f64 + 0.5) * (self.hi - self.lo) / BINS as f64
    }

    fn percentile(&self, p: f64) -> (f64, f64) {
        let total: u64 = self.signed.iter().sum();
        let tail = ((1.0 - p / 100.0) * total as f64).floor() as u64;
        let width = (self.hi - self.lo) / BINS as f64;
        // Drop at most `tail` values from each end, whole bins at a time.
        let (mut lo_bin, mut dropped) = (0, 0);
        while lo_bin < BINS - 1 && dropped + self.signed[lo_bin] <= tail {
            dropped += self.signed[lo_bin];
            lo_bin += 1;
        }
        let (mut hi_bin, mut dropped) = (BINS - 1, 0);
        while hi_bin > lo_bin && dropped + self.signed[hi_bin] <= tail {
            dropped += self.signed[hi_bin];
            hi_bin -= 1;
        }
        (self.lo + lo_bin as f64 * width, self.lo + (hi_bin + 1) as f64 * width)
    }

    /// TensorRT's entropy calibration on the magnitude histogram: the
    /// threshold whose clipped distribution, merged into as many bins as the
    /// type has magnitude levels, loses the least information.
    fn entropy_threshold(&self, q: QType) -> f64 {
        let mag = self.lo.abs().max(self.hi);
        let levels = match q {
            QType::U8 if self.lo >= 0.0 => 256,
            _ => 128,
        };
        let h = &self.magnitude;
        let (mut best, mut best_kl) = (BINS, f64::INFINITY);
        for i in levels..=BINS {
            let mut p: Vec<f64> = h[..i].iter().map(|&c| c as f64).collect();
            p[i - 1] += h[i..].iter().map(|&c| c as f64).sum::<f64>();
            let kl = kl_to_merged(&p, &h[..i], levels);
            if kl < best_kl {
                (best, best_kl) = (i, kl);
            }
        }
        best as f64 * mag / BINS as f64
    }

    /// The range with the least expected squared error over the signed
    /// histogram: values inside the grid's range cost the uniform rounding
    /// noise `step²/12`, values outside it their distance to the nearer end.
    /// The two ends move independently (coordinate descent from the
    /// extremes, each end over [`FRACTIONS`] fractions of its extreme).
    fn mse(&self, q: QType) -> (f64, f64) {
        let (mut lo, mut hi) = (self.lo, self.hi);
        let mut best = self.mse_error(lo, hi, q);
        for _ in 0..3 {
            let before = (lo, hi);
            for t in fractions() {
                let e = self.mse_error(lo, self.hi * t, q);
                if e < best {
                    (best, hi) = (e, self.hi * t);
                }
            }
            for t in fractions() {
                let e = self.mse_error(self.lo * t, hi, q);
                if e < best {
                    (best, lo) = (e, self.lo * t);
                }
            }
            if (lo, hi) == before {
                break;
            }
        }
        (lo, hi)
    }

    /// Expected squared error of quantizing the histogram over `[lo, hi]`.
    fn mse_error(&self, lo: f64, hi: f64, q: QType) -> f64 {
        let (qmin, qmax) = q.bounds();
        let qp = qparams(lo as f32, hi as f32, q, false);
        let (scale, zp) = (f64::from(qp.scale), f64::from(qp.zero_point));
        let (a, b) = ((f64::from(qmin) - zp) * scale, (f64::from(qmax) - zp) * scale);
        let noise = scale * scale / 12.0;
        let mut err = 0.0;
        for (i, &n) in self.signed.iter().enumerate().filter(|(_, &n)| n > 0) {
            let c = self.centre(i);
            let d = if c < a {
                a - c
            } else if c > b {
                c - b
            } else {
                0.0
            };
            err += n as f64 * (d * d + noise);
        }
        err
    }
}

/// How many fractions of an extreme the MSE search tries per end.
pub const FRACTIONS: u32 = 120;

/// The fractions of an extreme the MSE search tries: 1 down to 0.01,
/// geometrically (finer where the clip is mild).
fn fractions() -> impl Iterator<Item = f64> {
    (0..FRACTIONS).map(|k| 0.01f64.powf(f64::from(k) / f64::from(FRACTIONS - 1)))
}

/// A calibration run that could not complete.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibError {
    /// No samples were given.
    #[error("the calibration set is empty")]
    Empty,
    /// The interpreter failed on a sample.
    #[error("calibration sample #{sample}: {source}")]
    Run {
        /// Index of the sample in the set.
        sample: usize,
        /// What the interpreter reported (it names the op and ONNX node).
        source: InterpError,
    },
}

/// Observe every f32 value of `@main`: its inputs and the results of the
/// ops of its body (not values inside regions) over `samples` (one input list per sample),
/// running the reference interpreter twice per sample: once for the
/// extremes, once for the histograms. Keyed by value, in value order.
pub fn observe(m: &Module, samples: &[Vec<Tensor>]) -> Result<BTreeMap<Value, Observer>, CalibError> {
    observe_with(m, samples, &mut || {})
}

/// [`observe`], calling `tick` after each of the `2 × samples` runs.
pub fn observe_with(
    m: &Module,
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<BTreeMap<Value, Observer>, CalibError> {
    if samples.is_empty() {
        return Err(CalibError::Empty);
    }
    let mut obs: BTreeMap<Value, Observer> = BTreeMap::new();
    for pass in 0..2 {
        for (sample, inputs) in samples.iter().enumerate() {
            let (_, env) = ir::interp::run_traced(m, "main", inputs.clone())
                .map_err(|source| CalibError::Run { sample, source })?;
            for (v, t) in &env {
                let Data::F32(xs) = &t.data else { continue };
                let o = obs.entry(*v).or_default();
                if pass == 0 {
                    o.observe_range(xs);
                } else {
                    o.observe_hist(xs);
                }
            }
            tick();
        }
        if pass == 0 {
            obs.values_mut().for_each(Observer::freeze);
        }
    }
    Ok(obs)
}

/// The bin of a value `v` in `[0, width]` among [`BINS`] (clamped).
fn bin(v: f64, width: f64) -> usize {
    if width <= 0.0 {
        return 0;
    }
    ((v / width * BINS as f64) as usize).min(BINS - 1)
}

/// KL(P ‖ Q), where P is the clipped distribution (the tail folded into its
/// last bin) and Q merges the unclipped counts `orig` of the same bins into
/// `levels` groups, spreading each group's mass evenly over the bins where P
/// is non-empty (TensorRT's and MXNet's construction: the tail mass is what Q
/// lacks, so a threshold that clips much scores badly). Both are normalized.
fn kl_to_merged(p: &[f64], orig: &[u64], levels: usize) -> f64 {
    let n = p.len();
    let mut qd = vec![0.0; n];
    for g in 0..levels {
        let (s, e) = (g * n / levels, ((g + 1) * n / levels).max(g * n / levels + 1).min(n));
        let mass: f64 = orig[s..e].iter().map(|&c| c as f64).sum();
        let nonzero = (s..e).filter(|&j| p[j] > 0.0).count();
        if nonzero > 0 {
            for j in (s..e).filter(|&j| p[j] > 0.0) {
                qd[j] = mass / nonzero as f64;
            }
        }
    }
    let (ps, qs): (f64, f64) = (p.iter().sum(), qd.iter().sum());
    if ps == 0.0 || qs == 0.0 {
        return f64::INFINITY;
    }
    // Smooth Q as MXNet does: empty bins get EPS of the mass, taken evenly
    // from the others, so a tail Q lacks costs much but finitely.
    const EPS: f64 = 1e-4;
    let zeros = qd.iter().filter(|&&q| q == 0.0).count();
    let take = EPS * zeros as f64 / (n - zeros).max(1) as f64;
    let mut kl = 0.0;
    for (&pj, &qj) in p.iter().zip(&qd) {
        if pj > 0.0 {
            let qj = if qj == 0.0 { EPS } else { (qj / qs - take).max(EPS) };
            let pj = pj / ps;
            kl += pj * (pj / qj).ln();
        }
    }
    kl
}

#[cfg(test)]
#[path = "calibrate/tests.rs"]
mod tests;
