//! Shape bucketing: specialize a function with symbolic dims into one static
//! function per bucket combination, behind a `core.bucket_dispatch`.
//!
//! After the `bucket` pass, `@main` keeps its signature (symbolic dims and
//! all) and holds one op, the dispatch; `@main__<dim>_<size>...` are copies of
//! the original body with every bucketed symbol replaced by the bucket size and
//! shape inference rerun, so later passes (folding, the NPU's static-shape
//! rules) see static shapes; `@main.reference` is the original body, kept so
//! `edgec verify` can compare the bucketed module with the unbucketed one
//! (backends do not emit reference functions).
//!
//! Whether padding is exact depends on the model (an attention mask padded
//! with 0 hides padded keys; a global pool averages the padding in), which is
//! why the reference stays beside the buckets.

pub mod auto;

use ir::infer::refine_function;
use ir::ops::control::dispatch::{AxisRef, Dispatch};
use ir::{Dim, Function, Loc, Module, Opcode, Symbol, TensorType};
use std::collections::BTreeMap;

/// Suffix of the function that keeps the unbucketed (exact) body.
pub const REFERENCE_SUFFIX: &str = ".reference";

/// The name of the reference function of `func`.
pub fn reference_name(func: &str) -> String {
    format!("{func}{REFERENCE_SUFFIX}")
}

/// What to bucket: dims with their sizes, pad values by input name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketSpec {
    /// `(dim name, bucket sizes)`, in command-line order.
    pub dims: Vec<(String, Vec<u64>)>,
    /// Pad value per input name (others pad with 0).
    pub pads: BTreeMap<String, f32>,
}

impl BucketSpec {
    /// Parse `DIM=a,b,c` (sizes sorted and deduplicated).
    pub fn parse_dim(arg: &str) -> Result<(String, Vec<u64>), String> {
        let (dim, list) =
            arg.split_once('=').ok_or_else(|| format!("--bucket expects DIM=SIZE,SIZE,..., got \"{arg}\""))?;
        let mut sizes = Vec::new();
        for s in list.split(',').map(str::trim) {
            match s.parse::<u64>() {
                Ok(n) if n > 0 => sizes.push(n),
                _ => return Err(format!("--bucket {dim}: \"{s}\" is not a positive size")),
            }
        }
        if dim.is_empty() || sizes.is_empty() {
            return Err(format!("--bucket expects DIM=SIZE,SIZE,..., got \"{arg}\""));
        }
        sizes.sort_unstable();
        sizes.dedup();
        Ok((dim.to_string(), sizes))
    }

    /// Parse `NAME=value` of `--pad`.
    pub fn parse_pad(arg: &str) -> Result<(String, f32), String> {
        let bad = || format!("--pad expects INPUT=NUMBER, got \"{arg}\"");
        let (name, v) = arg.split_once('=').ok_or_else(bad)?;
        let v: f32 = v.trim().parse().map_err(|_| bad())?;
        if name.is_empty() || !v.is_finite() {
            return Err(bad());
        }
        Ok((name.to_string(), v))
    }

    /// Every problem applying `self` to function `func` of `m` would hit.
    pub fn check(&self, m: &Module, func: &str) -> Result<(), Vec<String>> {
        let Some(f) = m.func(func) else { return Err(vec![format!("module has no function @{func}")]) };
        let mut errs = Vec::new();
        if f.live_ops().iter().any(|&id| f.ops[id].opcode == Opcode::CoreBucketDispatch) {
            errs.push(format!("@{func} is already bucketed"));
        }
        let input_dims = symbols_of(f.body.params.iter().map(|&p| f.ty(p)));
        let mut seen = Vec::new();
        for (d, _) in &self.dims {
            if seen.contains(&d) {
                errs.push(format!("dim `{d}` is bucketed twice"));
            }
            seen.push(d);
            if !input_dims.iter().any(|s| s == d) {
                let have = if input_dims.is_empty() { "none".to_string() } else { input_dims.join(", ") };
                errs.push(format!("dim `{d}` is not a symbolic dim of any input of @{func} (input dims: {have})"));
            }
        }
        let names = input_names(f);
        for p in self.pads.keys().filter(|p| !names.contains(p)) {
            errs.push(format!("--pad {p}: no such input of @{func} (inputs: {})", names.join(", ")));
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs)
        }
    }
}

fn input_names(f: &Function) -> Vec<String> {
    f.body.params.iter().enumerate().map(|(i, &p)| f.values[p].name.clone().unwrap_or(format!("input{i}"))).collect()
}

/// Symbolic dim names appearing in `types`, sorted.
fn symbols_of<'a>(types: impl Iterator<Item = &'a TensorType>) -> Vec<String> {
    let mut out: Vec<String> = types
        .flat_map(|t| {
            t.dims()
                .unwrap_or(&[])
                .iter()
                .filter_map(|d| if let Dim::Sym(s) = d { Some(s.as_str().to_string()) } else { None })
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Result axes that follow a bucketed dim: in every specialization the
/// axis is as long as the dim's bucket, and the buckets differ between
/// specializations or (a single bucket) the dim's probe at another size
/// agrees too, so a coincidence cannot pass. This finds what to slice back
/// even when inference names the result dim `?` (e.g. traced through a
/// Slice of a position table) and the model's declaration is not used.
fn following_axes(d: &Dispatch, specialized: &[Function], probes: &[Option<(u64, Function)>]) -> Vec<AxisRef> {
    let mut out = Vec::new();
    let Some(first) = specialized.first() else { return out };
    let size = |f: &Function, o: usize, axis: usize| f.result_types.get(o).and_then(|t| t.dims()?.get(axis).copied());
    for (o, t) in first.result_types.iter().enumerate() {
        for axis in 0..t.rank().unwrap_or(0) {
            for (dim, probe) in probes.iter().enumerate() {
                let mut sizes = Vec::new();
                let follows = specialized.iter().enumerate().all(|(ci, f)| {
                    let bucket = d.combination(ci)[dim];
                    sizes.push(bucket);
                    size(f, o, axis) == Some(Dim::Static(bucket))
                });
                // One bucket size cannot tell the dim from a constant of the
                // same value: the probe at another size can.
                let probed = match probe {
                    Some((n, p)) => size(p, o, axis) == Some(Dim::Static(*n)),
                    None => false,
                };
                sizes.sort_unstable();
                sizes.dedup();
                if follows && (sizes.len() > 1 || probed) {
                    out.push(AxisRef { tensor: o, axis, dim });
                }
            }
        }
    }
    out
}

/// For each bucketed dim with a single bucket size `b`, `orig` specialized
/// as the first combination but with that dim at `b - 1` (`2` for `b = 1`):
/// the size and the function, or `None` (several sizes, or the probe does
/// not specialize).
fn probes(m: &Module, orig: &Function, d: &Dispatch, syms: &[Symbol]) -> Vec<Option<(u64, Function)>> {
    let base = d.combination(0);
    (0..d.dims.len())
        .map(|dim| {
            if d.buckets[dim].len() != 1 {
                return None;
            }
            let n = if base[dim] > 1 { base[dim] - 1 } else { 2 };
            let mut sizes = base.clone();
            sizes[dim] = n;
            let subst: Vec<(Symbol, u64)> = syms.iter().copied().zip(sizes).collect();
            crate::specialize::specialized_copy(m, orig, "probe".into(), &subst).ok().map(|f| (n, f))
        })
        .collect()
}

/// `(tensor, axis, dim)` triples where the types carry one of `dims`.
fn axis_refs<'a>(types: impl Iterator<Item = &'a TensorType>, dims: &[Symbol]) -> Vec<AxisRef> {
    let mut out = Vec::new();
    for (tensor, t) in types.enumerate() {
        for (axis, d) in t.dims().unwrap_or(&[]).iter().enumerate() {
            if let Some(dim) = dims.iter().position(|s| *d == Dim::Sym(*s)) {
                out.push(AxisRef { tensor, axis, dim });
            }
        }
    }
    out
}

/// Name of the specialization of `func` for one bucket combination.
fn bucket_func_name(func: &str, dims: &[(String, Vec<u64>)], sizes: &[u64]) -> String {
    let mut s = func.to_string();
    for ((d, _), n) in dims.iter().zip(sizes) {
        s += &format!("__{d}_{n}");
    }
    s
}

/// What bucketing one function did (for `--explain`).
#[derive(Clone, Debug, Default)]
pub struct BucketReport {
    /// Human-readable lines.
    pub lines: Vec<String>,
}

impl std::fmt::Display for BucketReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.lines.iter().try_for_each(|l| writeln!(f, "{l}"))
    }
}

/// Bucket function `func` of `m` as `spec` says (see the module docs).
pub fn bucket_function(m: &mut Module, func: &str, spec: &BucketSpec) -> Result<BucketReport, String> {
    spec.check(m, func).map_err(|e| e.join("\n"))?;
    let fi = m.funcs.iter().position(|f| f.name == func).ok_or_else(|| format!("no function @{func}"))?;
    let mut orig = m.funcs[fi].clone();
    refine_function(m, &mut orig).map_err(|(id, e)| format!("@{func}: {} : {e}", orig.ops[id].opcode.name()))?;
    let syms: Vec<Symbol> = spec.dims.iter().map(|(d, _)| Symbol::new(d)).collect();
    let param_types: Vec<TensorType> = orig.body.params.iter().map(|&p| orig.ty(p).clone()).collect();
    let names = input_names(&orig);
    let mut d = Dispatch {
        dims: spec.dims.iter().map(|(n, _)| n.clone()).collect(),
        buckets: spec.dims.iter().map(|(_, b)| b.clone()).collect(),
        callees: Vec::new(),
        pads: axis_refs(param_types.iter(), &syms),
        pad_values: names.iter().map(|n| spec.pads.get(n).copied().unwrap_or(0.0)).collect(),
        slices: axis_refs(orig.result_types.iter(), &syms),
    };
    let combos: usize = d.buckets.iter().map(Vec::len).product();
    let mut specialized = Vec::with_capacity(combos);
    for ci in 0..combos {
        let sizes = d.combination(ci);
        let name = bucket_func_name(func, &spec.dims, &sizes);
        let subst: Vec<(Symbol, u64)> = syms.iter().copied().zip(sizes.iter().copied()).collect();
        specialized.push(crate::specialize::specialized_copy(m, &orig, name.clone(), &subst)?);
        d.callees.push(name);
    }
    let probes = probes(m, &orig, &d, &syms);
    for r in following_axes(&d, &specialized, &probes) {
        if !d.slices.contains(&r) {
            d.slices.push(r);
        }
    }
    let report = describe(&orig, &d, &names, &specialized);
    let dispatcher = dispatcher(&orig, &d, &specialized[0]);
    let mut reference = orig;
    reference.name = reference_name(func);
    m.funcs[fi] = dispatcher;
    let at = fi + 1;
    m.funcs.splice(at..at, specialized.into_iter().chain([reference]));
    let probe = m.funcs[fi].body.ops[0];
    let types = ir::infer::infer_op(m, &m.funcs[fi], &m.funcs[fi].ops[probe])?;
    let f = &mut m.funcs[fi];
    for (i, t) in types.into_iter().enumerate() {
        let v = f.ops[probe].results[i];
        f.values[v].ty = t;
    }
    Ok(report)
}

/// The new body of `func`: its parameters, one dispatch, its results.
fn dispatcher(orig: &Function, d: &Dispatch, first: &Function) -> Function {
    let mut f = Function::new(orig.name.clone());
    let params: Vec<_> =
        orig.body.params.iter().map(|&p| f.add_param(orig.values[p].name.clone(), orig.ty(p).clone())).collect();
    // Provisional result types; `bucket_function` re-infers them once the callees are in the module.
    let op = f.append_op(
        Opcode::CoreBucketDispatch,
        params.into_iter().map(Some),
        d.to_attrs(),
        first.result_types.clone(),
        Loc::Unknown,
    );
    f.body.results = f.ops[op].results.to_vec();
    f.result_types = orig.result_types.clone();
    f.result_names = orig.result_names.clone();
    f
}

fn describe(orig: &Function, d: &Dispatch, names: &[String], specialized: &[Function]) -> BucketReport {
    let mut lines = vec![];
    let dims: Vec<String> = d
        .dims
        .iter()
        .zip(&d.buckets)
        .map(|(n, b)| format!("`{n}` = {}", b.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")))
        .collect();
    lines.push(format!("bucketed @{}: {} -> {} static function(s)", orig.name, dims.join("; "), specialized.len()));
    let padded: Vec<String> = d
        .pads
        .iter()
        .map(|r| format!("{} (axis {}, `{}`) with {}", names[r.tensor], r.axis, d.dims[r.dim], d.pad_values[r.tensor]))
        .collect();
    lines.push(format!("  inputs padded at the end: {}", padded.join(", ")));
    let out_names: Vec<String> = (0..orig.result_types.len())
        .map(|i| orig.result_names.get(i).cloned().flatten().unwrap_or(format!("output{i}")))
        .collect();
    for (o, name) in out_names.iter().enumerate() {
        let axes: Vec<String> = d
            .slices
            .iter()
            .filter(|r| r.tensor == o)
            .map(|r| format!("axis {} (`{}`)", r.axis, d.dims[r.dim]))
            .collect();
        let how =
            if axes.is_empty() { "not sliced".to_string() } else { format!("sliced back along {}", axes.join(", ")) };
        lines.push(format!("  output {name}: {how}"));
    }
    let left = symbols_of(specialized.iter().flat_map(|g| g.values.iter().map(|(_, v)| &v.ty)));
    if !left.is_empty() {
        lines.push(format!(
            "  note: still symbolic in the buckets: {} (add --bucket {}=SIZE to make them static)",
            left.join(", "),
            left[0]
        ));
    }
    lines.push(format!(
        "  padding is exact only where the model ignores padded positions; @{} keeps the unbucketed body and `edgec verify` reports the deviation",
        reference_name(&orig.name)
    ));
    BucketReport { lines }
}

/// The `bucket` pass: [`bucket_function`] on `@main` with the pipeline's spec.
pub struct Bucket {
    spec: Option<BucketSpec>,
}

impl Bucket {
    /// The pass for the pipeline options' bucket spec (`PipelineOptions::bucket`).
    pub fn new(spec: Option<BucketSpec>) -> Self {
        Bucket { spec }
    }
}

impl crate::Pass for Bucket {
    fn name(&self) -> &'static str {
        "bucket"
    }
    fn run(&self, m: &mut Module, cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let why = "the bucket pass needs a bucket spec (edgec opt --bucket DIM=SIZES)";
        let spec = self.spec.as_ref().ok_or_else(|| self.fail(why.into()))?;
        if spec.dims.is_empty() {
            return Ok(crate::PassResult::changed(false));
        }
        let report = bucket_function(m, "main", spec).map_err(|e| self.fail(e))?;
        cx.text("bucket", report.to_string());
        Ok(crate::PassResult::changed(true))
    }
}
