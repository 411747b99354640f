//! TOML -> [`TargetProfile`]: parsing and validation with positioned diagnostics.
//!
//! The document is parsed into a span-carrying tree first (all syntax errors are
//! reported together). The header keys, `[default]`, and each `[ops."name"]`
//! entry are then deserialized separately, so one bad entry does not hide the
//! problems of the others; semantic checks (op names, element types, costs,
//! attribute constraints) collect every problem as well.

use super::{
    limits::{self, Limit},
    work, AttrRule, CostModel, CycleModel, Diagnostic, Form, OpCycles, OpRule, TargetError, TargetProfile, Transfer,
    DEFAULT_FALLBACK_COSTS,
};
use edgec_numeric::fixed::Arithmetic;
use ir::ops::AttrSpec;
use ir::{Attr, AttrKind, DType, Opcode};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// Default transfer parameters when a profile has no `[transfer]` table.
const DEFAULT_TRANSFER: Transfer = Transfer { bytes_per_ns: 10.0, latency_ns: 0.0 };

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a target profile table")]
struct RawHeader {
    // `name` and `description` are required; they are optional here so that a
    // header key dropped after an error does not also read as missing.
    name: Option<Spanned<String>>,
    description: Option<String>,
    #[serde(default)]
    simulated: bool,
    #[serde(default)]
    static_shapes: bool,
    dtypes: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    convert_from: Vec<Spanned<String>>,
    max_rank: Option<u32>,
    fallback: Option<Spanned<String>>,
    backend: Option<String>,
    vela_accelerator: Option<String>,
    fold_bytes: Option<u64>,
    arithmetic: Option<Spanned<String>>,
    transfer: Option<RawTransfer>,
    memory: Option<RawMemory>,
    fallback_costs: Option<RawCost>,
    cycles: Option<RawCycles>,
    // `[default]` and `[ops]` are split off and deserialized on their own; these
    // two fields only make "unknown field" messages list them as valid keys.
    #[allow(dead_code)]
    default: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    ops: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [transfer] table")]
struct RawTransfer {
    bytes_per_ns: Spanned<f64>,
    latency_ns: Spanned<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [memory] table")]
struct RawMemory {
    onchip_bytes: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [fallback_costs] table")]
struct RawCost {
    ns_per_mac: Option<Spanned<f64>>,
    ns_per_elem: Option<Spanned<f64>>,
    ns_fixed: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [cycles] table")]
struct RawCycles {
    clock_mhz: Spanned<f64>,
    ofm_ublock: Spanned<[u32; 3]>,
    ifm_ublock_depth: Spanned<u32>,
    #[serde(default)]
    cores: Option<Spanned<u32>>,
    sram_bytes_per_cycle: Spanned<f64>,
    elementwise_bytes_per_cycle: Spanned<f64>,
    const_bytes_per_cycle: Spanned<f64>,
    streamed_const_bytes_per_elem: Spanned<f64>,
    #[serde(default)]
    output_cycles_per_elem: Option<Spanned<f64>>,
    #[serde(default)]
    lut_cycles_per_elem: Option<Spanned<f64>>,
    bytes_per_elem: Spanned<f64>,
    #[serde(default)]
    ops: BTreeMap<Spanned<String>, RawOpCycles>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table { form = \"conv\", factor = 1.5 }")]
struct RawOpCycles {
    form: Spanned<String>,
    factor: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an op rule table")]
struct RawOp {
    supported: Option<bool>,
    reason: Option<Spanned<String>>,
    ns_per_mac: Option<Spanned<f64>>,
    ns_per_elem: Option<Spanned<f64>>,
    ns_fixed: Option<Spanned<f64>>,
    dtypes: Option<Vec<Spanned<String>>>,
    max_rank: Option<u32>,
    #[serde(default)]
    attrs: BTreeMap<Spanned<String>, RawAttrRule>,
    #[serde(default)]
    limits: Vec<Spanned<RawLimit>>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a window limit { measure = \"stride\", max = 3, when = [\"depthwise\"], reason = \"...\" }"
)]
struct RawLimit {
    measure: Spanned<String>,
    max: i64,
    #[serde(default)]
    when: Vec<Spanned<String>>,
    reason: String,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an attribute constraint table { allow = [...], default = ..., reason = \"...\" }"
)]
struct RawAttrRule {
    allow: Spanned<Vec<Spanned<RawAttrValue>>>,
    default: Option<Spanned<RawAttrValue>>,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged, expecting = "an integer or a string")]
enum RawAttrValue {
    Int(i64),
    Str(String),
}

impl RawAttrValue {
    fn to_attr(&self) -> Attr {
        match self {
            RawAttrValue::Int(i) => Attr::Int(*i),
            RawAttrValue::Str(s) => Attr::Str(s.clone()),
        }
    }
}

/// Collects diagnostics against one source text.
struct Diags<'a> {
    src: &'a str,
    file: &'a str,
    list: Vec<(usize, Diagnostic)>,
}

impl Diags<'_> {
    fn at(&mut self, span: Range<usize>, message: impl Into<String>) {
        let start = span.start.min(self.src.len());
        let before = &self.src[..start];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let d = Diagnostic { file: self.file.to_string(), line, col, message: message.into() };
        self.list.push((start, d));
    }

    fn toml(&mut self, e: toml::de::Error, fallback: Range<usize>) {
        let msg = e.message().trim_end().to_string();
        self.at(e.span().unwrap_or(fallback), msg);
    }

    /// Deserialize `value` as `T`, recording an error on failure.
    fn de<T: DeserializeOwned>(&mut self, value: Spanned<DeValue<'_>>) -> Option<T> {
        let span = value.span();
        T::deserialize(ValueDeserializer::from(value)).map_err(|e| self.toml(e, span)).ok()
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        self.list.sort_by_key(|(pos, _)| *pos);
        self.list.into_iter().map(|(_, d)| d).collect()
    }
}

/// Parse `src` (named `file`); if `targets` is given, `fallback` must be one of them.
pub(super) fn parse(src: &str, file: &str, targets: Option<&[&str]>) -> Result<TargetProfile, TargetError> {
    let mut d = Diags { src, file, list: Vec::new() };
    let (root, errors) = DeTable::parse_recoverable(src);
    if !errors.is_empty() {
        for e in errors {
            d.toml(e, 0..0);
        }
        return Err(TargetError::Invalid(d.finish()));
    }
    let whole = root.span();
    let mut header = DeTable::new();
    let (mut default, mut ops) = (None, None);
    for (k, v) in root.into_inner() {
        match k.get_ref().as_ref() {
            "default" => default = Some(v),
            "ops" => ops = Some(v),
            _ => {
                header.insert(k, v);
            }
        }
    }
    let header = de_header(&mut d, whole, header);
    let default = match default.and_then(|v| d.de::<RawOp>(v)) {
        Some(raw) => rule(&mut d, &raw, Entry::Default, &BASE_RULE),
        None => BASE_RULE.clone(),
    };
    let ops = ops.map(|v| op_rules(&mut d, v, &default)).unwrap_or_default();
    let profile = header.map(|(h, dropped)| build(&mut d, h, &dropped, default, ops, targets));
    match profile {
        Some(p) if d.list.is_empty() => Ok(p),
        _ => Err(TargetError::Invalid(d.finish())),
    }
}

/// Deserialize the header keys. After an error, the key it points into is
/// dropped and the rest is tried again, so every bad header key is reported.
/// Returns the header and the names of the dropped keys.
fn de_header(d: &mut Diags, whole: Range<usize>, mut table: DeTable<'_>) -> Option<(RawHeader, Vec<String>)> {
    let mut dropped = Vec::new();
    loop {
        let value = Spanned::new(whole.clone(), DeValue::Table(table.clone()));
        let err = match RawHeader::deserialize(ValueDeserializer::from(value)) {
            Ok(h) => return Some((h, dropped)),
            Err(e) => e,
        };
        let at = err.span().map(|s| s.start);
        d.toml(err, whole.clone());
        let inside = |r: Range<usize>| at.is_some_and(|a| r.contains(&a));
        let bad = table.iter().find(|(k, v)| inside(k.span()) || inside(v.span())).map(|(k, _)| k.clone());
        let bad = bad?.into_inner();
        table.remove(bad.as_ref());
        dropped.push(bad.into_owned());
    }
}

/// Which rule is being validated.
#[derive(Copy, Clone)]
enum Entry {
    /// `[default]`.
    Default,
    /// `[ops."name"]` of a known op.
    Op(Opcode),
    /// `[ops."name"]` of an unknown op (already reported): only op-independent checks.
    Unknown,
}

/// `[default]` when the file has none, and the base `[default]` inherits from.
const BASE_RULE: OpRule = OpRule {
    supported: true,
    reason: None,
    cost: CostModel { ns_per_mac: 0.0, ns_per_elem: 0.0, ns_fixed: 0.0 },
    dtypes: None,
    max_rank: None,
    attrs: Vec::new(),
    limits: Vec::new(),
};

fn op_rules(d: &mut Diags, v: Spanned<DeValue<'_>>, default: &OpRule) -> BTreeMap<Opcode, OpRule> {
    let span = v.span();
    let DeValue::Table(table) = v.into_inner() else {
        d.at(span, "`ops` must be a table of `[ops.\"dialect.Name\"]` entries");
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for (k, v) in table {
        let op = Opcode::from_name(k.get_ref());
        if op.is_none() {
            d.at(k.span(), format!("unknown op `{}` (not in the op table; names look like `onnx.Conv`)", k.get_ref()));
        }
        let Some(raw) = d.de::<RawOp>(v) else { continue };
        match op {
            Some(op) => {
                let r = rule(d, &raw, Entry::Op(op), default);
                out.insert(op, r);
            }
            None => {
                rule(d, &raw, Entry::Unknown, default);
            }
        }
    }
    out
}

/// Validate one op rule; unset fields inherit from `base`.
fn rule(d: &mut Diags, raw: &RawOp, entry: Entry, base: &OpRule) -> OpRule {
    let supported = raw.supported.unwrap_or(true);
    if let (true, Some(r)) = (supported, &raw.reason) {
        d.at(r.span(), "`reason` only applies to unsupported ops (`supported = false`)");
    }
    if let (Entry::Op(op), Some(m)) = (entry, &raw.ns_per_mac) {
        if work::mac_kind(op).is_none() {
            d.at(m.span(), format!("`ns_per_mac` given, but {} has no MAC count; use `ns_per_elem`", op.name()));
        }
    }
    let cost = CostModel {
        ns_per_mac: coef(d, "ns_per_mac", &raw.ns_per_mac).unwrap_or(base.cost.ns_per_mac),
        ns_per_elem: coef(d, "ns_per_elem", &raw.ns_per_elem).unwrap_or(base.cost.ns_per_elem),
        ns_fixed: coef(d, "ns_fixed", &raw.ns_fixed).unwrap_or(base.cost.ns_fixed),
    };
    let attrs = match entry {
        Entry::Op(op) => raw.attrs.iter().filter_map(|(name, r)| attr_rule(d, op, name, r)).collect(),
        Entry::Unknown => Vec::new(),
        Entry::Default => {
            if let Some((name, _)) = raw.attrs.iter().next() {
                d.at(name.span(), "attribute constraints belong in `[ops.\"dialect.Name\"]` entries, not `[default]`");
            }
            Vec::new()
        }
    };
    let limits = match entry {
        Entry::Op(op) => raw.limits.iter().filter_map(|l| limit(d, op, l)).collect(),
        Entry::Unknown => Vec::new(),
        Entry::Default => {
            if let Some(l) = raw.limits.first() {
                d.at(l.span(), "window limits belong in `[ops.\"dialect.Name\"]` entries, not `[default]`");
            }
            Vec::new()
        }
    };
    OpRule {
        supported,
        reason: raw.reason.as_ref().map(|r| r.get_ref().clone()),
        cost,
        dtypes: raw.dtypes.as_ref().map(|v| dtypes(d, v)).or_else(|| base.dtypes.clone()),
        max_rank: raw.max_rank.or(base.max_rank),
        attrs,
        limits,
    }
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
}

/// Validate one window limit of `op`'s rule; every bad name is reported.
fn limit(d: &mut Diags, op: Opcode, raw: &Spanned<RawLimit>) -> Option<Limit> {
    let r = raw.get_ref();
    let measure = limits::MEASURES.iter().find(|(n, _)| *n == r.measure.get_ref()).map(|(_, m)| *m);
    let measure = match measure {
        None => {
            d.at(
                r.measure.span(),
                format!(
                    "unknown measure `{}` (known: {})",
                    r.measure.get_ref(),
                    names(limits::MEASURES.iter().map(|(n, _)| *n))
                ),
            );
            None
        }
        Some(m) => match m.applies(op) {
            Ok(()) => Some(m),
            Err(e) => {
                d.at(r.measure.span(), e);
                None
            }
        },
    };
    let mut when = Vec::new();
    for c in &r.when {
        match limits::CONDS.iter().find(|(n, _)| *n == c.get_ref()) {
            Some((_, cond)) => when.push(*cond),
            None => d.at(
                c.span(),
                format!(
                    "unknown condition `{}` (known: {})",
                    c.get_ref(),
                    names(limits::CONDS.iter().map(|(n, _)| *n))
                ),
            ),
        }
    }
    if r.max < 0 {
        d.at(raw.span(), format!("`max` must be >= 0, found {}", r.max));
    }
    let ok = when.len() == r.when.len() && r.max >= 0;
    Some(Limit { measure: measure?, max: r.max, when, reason: r.reason.clone() }).filter(|_| ok)
}

/// A cost coefficient: must be finite and `>= 0`.
fn coef(d: &mut Diags, key: &str, v: &Option<Spanned<f64>>) -> Option<f64> {
    let v = v.as_ref()?;
    let x = *v.get_ref();
    if !(x.is_finite() && x >= 0.0) {
        d.at(v.span(), format!("`{key}` must be a finite number >= 0, found {x}"));
        return Some(0.0);
    }
    Some(x)
}

fn dtypes(d: &mut Diags, names: &[Spanned<String>]) -> Vec<DType> {
    let mut out = Vec::new();
    for n in names {
        match DType::from_name(n.get_ref()) {
            Some(t) => out.push(t),
            None => {
                let known = DType::ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
                d.at(n.span(), format!("unknown element type `{}` (known: {known})", n.get_ref()));
            }
        }
    }
    out
}

fn attr_rule(d: &mut Diags, op: Opcode, name: &Spanned<String>, r: &RawAttrRule) -> Option<AttrRule> {
    let def = op.def();
    let Some(spec) = def.attr(name.get_ref()) else {
        let known = def.attrs.iter().map(|a| a.name).collect::<Vec<_>>().join(", ");
        d.at(name.span(), format!("{} has no attribute `{}` (attributes: {known})", op.name(), name.get_ref()));
        return None;
    };
    if r.allow.get_ref().is_empty() {
        d.at(r.allow.span(), "`allow` must list at least one value");
    }
    // Check every value (no short-circuit), so each bad one is reported.
    let bad = r.allow.get_ref().iter().chain(&r.default).filter(|v| !attr_value_ok(d, op, spec, v)).count();
    let ok = bad == 0;
    ok.then(|| AttrRule {
        name: name.get_ref().clone(),
        allow: r.allow.get_ref().iter().map(|v| v.get_ref().to_attr()).collect(),
        default: r.default.as_ref().map(|v| v.get_ref().to_attr()),
        reason: r.reason.clone(),
    })
}

/// Check one constraint value against the attribute's schema kind.
fn attr_value_ok(d: &mut Diags, op: Opcode, spec: &AttrSpec, v: &Spanned<RawAttrValue>) -> bool {
    let problem = match (spec.kind, v.get_ref()) {
        (AttrKind::Int, RawAttrValue::Int(_)) | (AttrKind::Str, RawAttrValue::Str(_)) => None,
        (AttrKind::Enum(vals), RawAttrValue::Str(s)) if vals.contains(&s.as_str()) => None,
        (AttrKind::Int | AttrKind::Str | AttrKind::Enum(_), _) => {
            Some(format!("{}.{} takes {}, found {}", op.name(), spec.name, spec.kind.describe(), v.get_ref().to_attr()))
        }
        (kind, _) => Some(format!(
            "{}.{} is a {} attribute; constraints support int, string and enum attributes",
            op.name(),
            spec.name,
            kind.describe()
        )),
    };
    if let Some(p) = &problem {
        d.at(v.span(), p.clone());
    }
    problem.is_none()
}

fn build(
    d: &mut Diags,
    h: RawHeader,
    dropped: &[String],
    default: OpRule,
    ops: BTreeMap<Opcode, OpRule>,
    targets: Option<&[&str]>,
) -> TargetProfile {
    let name = header_name(d, h.name, dropped);
    if h.description.is_none() && !dropped.iter().any(|k| k == "description") {
        d.at(0..0, "missing key `description`");
    }
    if let Some(f) = &h.fallback {
        if *f.get_ref() == name {
            d.at(f.span(), "a target cannot fall back to itself");
        } else if let Some(known) = targets.filter(|t| !t.contains(&f.get_ref().as_str())) {
            d.at(f.span(), format!("unknown fallback target `{}` (known: {})", f.get_ref(), known.join(", ")));
        }
    }
    let transfer = h.transfer.map_or(DEFAULT_TRANSFER, |t| transfer(d, t));
    let arithmetic = h.arithmetic.map_or(Arithmetic::Single, |r| {
        Arithmetic::from_name(r.get_ref()).unwrap_or_else(|| {
            d.at(r.span(), format!("`arithmetic` is `single` or `tflite`, found `{}`", r.get_ref()));
            Arithmetic::Single
        })
    });
    let fallback_costs = h.fallback_costs.map_or(DEFAULT_FALLBACK_COSTS, |c| CostModel {
        ns_per_mac: coef(d, "ns_per_mac", &c.ns_per_mac).unwrap_or(DEFAULT_FALLBACK_COSTS.ns_per_mac),
        ns_per_elem: coef(d, "ns_per_elem", &c.ns_per_elem).unwrap_or(DEFAULT_FALLBACK_COSTS.ns_per_elem),
        ns_fixed: coef(d, "ns_fixed", &c.ns_fixed).unwrap_or(DEFAULT_FALLBACK_COSTS.ns_fixed),
    });
    TargetProfile {
        name,
        description: h.description.unwrap_or_default(),
        source: d.file.to_string(),
        simulated: h.simulated,
        static_shapes: h.static_shapes,
        dtypes: h.dtypes.map(|v| dtypes(d, &v)),
        convert_from: dtypes(d, &h.convert_from),
        max_rank: h.max_rank,
        fallback: h.fallback.map(Spanned::into_inner),
        backend: h.backend,
        transfer,
        onchip_bytes: h.memory.and_then(|m| m.onchip_bytes),
        default,
        ops,
        fallback_costs,
        vela_accelerator: h.vela_accelerator,
        fold_bytes: h.fold_bytes,
        arithmetic,
        cycles: h.cycles.map(|c| cycle_model(d, c)),
    }
}

/// `[cycles]`: rates and the clock finite and `> 0`, micro-block dims `>= 1`,
/// known op names and forms, factors finite and `>= 0`.
fn cycle_model(d: &mut Diags, c: RawCycles) -> CycleModel {
    let mut rate = |key: &str, v: &Spanned<f64>| {
        let x = *v.get_ref();
        if x.is_finite() && x > 0.0 {
            x
        } else {
            d.at(v.span(), format!("`{key}` must be a finite number > 0, found {x}"));
            1.0
        }
    };
    let clock_mhz = rate("clock_mhz", &c.clock_mhz);
    let sram_bytes_per_cycle = rate("sram_bytes_per_cycle", &c.sram_bytes_per_cycle);
    let elementwise_bytes_per_cycle = rate("elementwise_bytes_per_cycle", &c.elementwise_bytes_per_cycle);
    let const_bytes_per_cycle = rate("const_bytes_per_cycle", &c.const_bytes_per_cycle);
    let bytes_per_elem = rate("bytes_per_elem", &c.bytes_per_elem);
    let streamed = coef(d, "streamed_const_bytes_per_elem", &Some(c.streamed_const_bytes_per_elem)).unwrap_or(0.0);
    if c.ofm_ublock.get_ref().contains(&0) || *c.ifm_ublock_depth.get_ref() == 0 {
        d.at(c.ofm_ublock.span(), "micro-block dims (`ofm_ublock`, `ifm_ublock_depth`) must be >= 1");
    }
    if let Some(n) = c.cores.as_ref().filter(|n| *n.get_ref() == 0) {
        d.at(n.span(), "`cores` must be >= 1");
    }
    let mut ops = BTreeMap::new();
    for (name, raw) in &c.ops {
        let op = Opcode::from_name(name.get_ref());
        if op.is_none() {
            d.at(name.span(), format!("unknown op `{}` (names look like `onnx.Conv`)", name.get_ref()));
        }
        let form = Form::from_name(raw.form.get_ref());
        if form.is_none() {
            let known: Vec<&str> = Form::ALL.iter().map(|(n, _)| *n).collect();
            d.at(raw.form.span(), format!("unknown form `{}` (forms: {})", raw.form.get_ref(), known.join(", ")));
        }
        let factor = coef(d, "factor", &raw.factor).unwrap_or(1.0);
        if let (Some(op), Some(form)) = (op, form) {
            ops.insert(op, OpCycles { form, factor });
        }
    }
    CycleModel {
        clock_mhz,
        ofm_ublock: c.ofm_ublock.into_inner().map(|x| x.max(1)),
        ifm_ublock_depth: c.ifm_ublock_depth.into_inner().max(1),
        cores: c.cores.map_or(1, |n| n.into_inner().max(1)),
        sram_bytes_per_cycle,
        elementwise_bytes_per_cycle,
        const_bytes_per_cycle,
        streamed_const_bytes_per_elem: streamed,
        output_cycles_per_elem: coef(d, "output_cycles_per_elem", &c.output_cycles_per_elem).unwrap_or(0.0),
        lut_cycles_per_elem: coef(d, "lut_cycles_per_elem", &c.lut_cycles_per_elem).unwrap_or(0.0),
        bytes_per_elem,
        ops,
    }
}

/// The profile name: present and non-empty (a key dropped after an error is not "missing").
fn header_name(d: &mut Diags, name: Option<Spanned<String>>, dropped: &[String]) -> String {
    match name {
        Some(n) if n.get_ref().trim().is_empty() => {
            d.at(n.span(), "`name` must not be empty");
            String::new()
        }
        Some(n) => n.into_inner(),
        None => {
            if !dropped.iter().any(|k| k == "name") {
                d.at(0..0, "missing key `name`");
            }
            String::new()
        }
    }
}

/// `[transfer]`: bandwidth finite and `> 0`, latency finite and `>= 0`.
fn transfer(d: &mut Diags, t: RawTransfer) -> Transfer {
    let bw = *t.bytes_per_ns.get_ref();
    let bytes_per_ns = if bw.is_finite() && bw > 0.0 {
        bw
    } else {
        d.at(t.bytes_per_ns.span(), format!("`bytes_per_ns` must be a finite number > 0, found {bw}"));
        1.0
    };
    let latency_ns = coef(d, "latency_ns", &Some(t.latency_ns)).unwrap_or(0.0);
    Transfer { bytes_per_ns, latency_ns }
}
