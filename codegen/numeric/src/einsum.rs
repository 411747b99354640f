//! Einsum equations: parsing (explicit and implicit outputs, ellipsis
//! broadcasting, repeated labels), label sizes and the loop nest that the
//! interpreter and the generated code both run; shape inference reads the
//! output dims from here too.

use crate::axis::strides;
use std::collections::BTreeMap;

/// A dimension label: a letter, or the i-th (right-aligned) ellipsis dim.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Ell(usize),
    Letter(char),
}

/// Parse one term (`ab...c`) into letters with an optional ellipsis position.
fn parse_term(term: &str) -> Result<(Vec<char>, Option<usize>), String> {
    let (mut letters, mut ell) = (Vec::new(), None);
    let mut rest = term;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if ell.replace(letters.len()).is_some() {
                return Err(format!("term `{term}` has more than one ellipsis"));
            }
            rest = r;
            continue;
        }
        let ch = rest.chars().next().unwrap_or(' ');
        if !ch.is_ascii_alphabetic() {
            return Err(format!("term `{term}` contains the invalid character {ch:?}"));
        }
        letters.push(ch);
        rest = &rest[1..];
    }
    Ok((letters, ell))
}

/// The labels of a term for a given ellipsis rank.
fn expand(letters: &[char], ell: Option<usize>, ell_rank: usize, total_ell: usize) -> Vec<Label> {
    let mut out: Vec<Label> = letters.iter().map(|&c| Label::Letter(c)).collect();
    if let Some(p) = ell {
        let e = (total_ell - ell_rank..total_ell).map(Label::Ell);
        out.splice(p..p, e);
    }
    out
}

/// Operand labels, output labels and the size of every label.
struct Plan {
    inputs: Vec<Vec<Label>>,
    output: Vec<Label>,
    sizes: BTreeMap<Label, usize>,
}

fn plan(equation: &str, shapes: &[&[usize]]) -> Result<Plan, String> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<(Vec<char>, Option<usize>)> = lhs.split(',').map(parse_term).collect::<Result<_, _>>()?;
    if terms.len() != shapes.len() {
        return Err(format!("equation `{equation}` has {} operands, {} given", terms.len(), shapes.len()));
    }
    let mut ell_ranks = Vec::new();
    for ((letters, ell), shape) in terms.iter().zip(shapes) {
        let e = shape.len().checked_sub(letters.len()).filter(|&e| e == 0 || ell.is_some());
        ell_ranks.push(e.ok_or_else(|| format!("term {:?} does not match operand rank {}", letters, shape.len()))?);
    }
    let total_ell = ell_ranks.iter().copied().max().unwrap_or(0);
    let inputs: Vec<Vec<Label>> =
        terms.iter().zip(&ell_ranks).map(|((l, e), &r)| expand(l, *e, r, total_ell)).collect();
    let mut sizes = BTreeMap::new();
    for (labels, shape) in inputs.iter().zip(shapes) {
        for (&l, &d) in labels.iter().zip(shape.iter()) {
            let s = sizes.entry(l).or_insert(d);
            match (l, *s, d) {
                (_, a, b) if a == b => {}
                (Label::Ell(_), 1, b) => *s = b,
                (Label::Ell(_), _, 1) => {}
                _ => return Err(format!("label {l:?} has sizes {s} and {d} in equation `{equation}`")),
            }
        }
    }
    let output = match rhs {
        Some(r) => {
            let (letters, ell) = parse_term(r)?;
            if letters.iter().any(|c| !sizes.contains_key(&Label::Letter(*c))) {
                return Err(format!("output `{r}` uses a label not in the inputs"));
            }
            expand(&letters, ell, if ell.is_some() { total_ell } else { 0 }, total_ell)
        }
        None => {
            let mut count: BTreeMap<char, usize> = BTreeMap::new();
            terms.iter().flat_map(|(l, _)| l).for_each(|&c| *count.entry(c).or_default() += 1);
            let mut out: Vec<Label> = (0..total_ell).map(Label::Ell).collect();
            out.extend(count.iter().filter(|(_, &n)| n == 1).map(|(&c, _)| Label::Letter(c)));
            out
        }
    };
    Ok(Plan { inputs, output, sizes })
}

/// The loop nest of an Einsum over static shapes: every label gets one loop
/// (output labels first, in output order, then the summed ones); operand `k`
/// reads element `sum(idx[pos] * stride)` over its `access[k]` pairs (stride
/// 0 on a broadcast axis). The generated Rust code runs the same nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopNest {
    /// Size of every loop.
    pub dims: Vec<usize>,
    /// The leading loops that index the output.
    pub out_shape: Vec<usize>,
    /// Per operand, `(loop, stride)` of each of its axes.
    pub access: Vec<Vec<(usize, usize)>>,
}

/// The [`LoopNest`] of `equation` over operands of `shapes`.
pub fn loop_nest(equation: &str, shapes: &[&[usize]]) -> Result<LoopNest, String> {
    let p = plan(equation, shapes)?;
    let summed: Vec<Label> = p.sizes.keys().copied().filter(|l| !p.output.contains(l)).collect();
    let all: Vec<Label> = p.output.iter().chain(&summed).copied().collect();
    let dims: Vec<usize> = all.iter().map(|l| p.sizes[l]).collect();
    let out_shape: Vec<usize> = p.output.iter().map(|l| p.sizes[l]).collect();
    let access = p
        .inputs
        .iter()
        .zip(shapes)
        .map(|(labels, shape)| {
            let st = strides(shape);
            labels
                .iter()
                .enumerate()
                .map(|(i, l)| (all.iter().position(|a| a == l).unwrap_or(0), if shape[i] == 1 { 0 } else { st[i] }))
                .collect()
        })
        .collect();
    Ok(LoopNest { dims, out_shape, access })
}

/// The output rank and dims of an Einsum (for shape inference): `None` per unknown
/// dim. `shapes` are the operand dims with `None` for unknown sizes.
pub fn infer_dims(equation: &str, shapes: &[Vec<Option<usize>>]) -> Result<Vec<Option<usize>>, String> {
    // Unknown sizes are stood in by a sentinel so the label bookkeeping can be reused.
    const UNKNOWN: usize = usize::MAX;
    let concrete: Vec<Vec<usize>> = shapes.iter().map(|s| s.iter().map(|d| d.unwrap_or(UNKNOWN)).collect()).collect();
    let refs: Vec<&[usize]> = concrete.iter().map(|s| &s[..]).collect();
    let p = plan_lenient(equation, &refs)?;
    Ok(p.output.iter().map(|l| Some(p.sizes[l]).filter(|&d| d != UNKNOWN)).collect())
}

/// Like [`plan`] but an unknown size agrees with anything.
fn plan_lenient(equation: &str, shapes: &[&[usize]]) -> Result<Plan, String> {
    const UNKNOWN: usize = usize::MAX;
    let ones: Vec<Vec<usize>> = shapes.iter().map(|s| s.iter().map(|_| 1).collect()).collect();
    let refs: Vec<&[usize]> = ones.iter().map(|s| &s[..]).collect();
    let mut p = plan(equation, &refs)?;
    for l in p.sizes.values_mut() {
        *l = UNKNOWN;
    }
    for (labels, shape) in p.inputs.iter().zip(shapes) {
        for (l, &d) in labels.iter().zip(shape.iter()) {
            let s = p.sizes.get_mut(l).expect("label");
            if *s == UNKNOWN || *s == 1 {
                *s = d;
            } else if d != UNKNOWN && d != 1 && d != *s {
                return Err(format!("label {l:?} has sizes {s} and {d} in equation `{equation}`"));
            }
        }
    }
    Ok(p)
}
