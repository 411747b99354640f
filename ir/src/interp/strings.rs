//! Reference kernels: strings family (StringConcat, StringSplit and
//! StringNormalizer).

use crate::interp::broadcast::{broadcast_map, broadcast_shapes};
use crate::interp::{Data, EvalCtx, Tensor};

type Out = Result<Vec<Tensor>, String>;

/// The strings of a string operand.
fn strings<'a>(t: &'a Tensor, name: &str) -> Result<&'a [String], String> {
    match &t.data {
        Data::String(v) => Ok(v),
        _ => Err(format!("`{name}` has element type {}, expected string", t.dtype())),
    }
}

/// `onnx.StringConcat`: elementwise `X + Y` with numpy broadcasting.
pub fn string_concat(ctx: &EvalCtx<'_>) -> Out {
    let (x, y) = (ctx.input(0)?, ctx.input(1)?);
    let (xs, ys) = (strings(x, "X")?, strings(y, "Y")?);
    let shape = broadcast_shapes(&[&x.shape, &y.shape])?;
    let (mx, my) = (broadcast_map(&x.shape, &shape), broadcast_map(&y.shape, &shape));
    let out = mx.iter().zip(&my).map(|(&i, &j)| format!("{}{}", xs[i], ys[j])).collect();
    Ok(vec![Tensor::new(shape, Data::String(out))])
}

/// Python's `str.isspace` for one character.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `s.split(None, maxsplit)`: runs of whitespace separate, ends are trimmed.
fn split_whitespace(s: &str, maxsplit: Option<usize>) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = s.trim_start_matches(is_space);
    while !rest.is_empty() {
        if maxsplit.is_some_and(|m| parts.len() >= m) {
            parts.push(rest.to_string());
            break;
        }
        let end = rest.find(is_space).unwrap_or(rest.len());
        parts.push(rest[..end].to_string());
        rest = rest[end..].trim_start_matches(is_space);
    }
    parts
}

/// Python's `s.split(sep, maxsplit)` for a non-empty separator.
fn split_on(s: &str, sep: &str, maxsplit: Option<usize>) -> Vec<String> {
    match maxsplit {
        Some(m) => s.splitn(m.saturating_add(1), sep).map(str::to_string).collect(),
        None => s.split(sep).map(str::to_string).collect(),
    }
}

/// `onnx.StringSplit`: split each string by `delimiter` (runs of whitespace if
/// absent or empty) at most `maxsplit` times. `Y` pads the parts with empty
/// strings to the longest count; `Z` holds each count.
pub fn string_split(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let xs = strings(x, "X")?;
    let maxsplit = ctx.attrs.int("maxsplit").map(|m| usize::try_from(m).unwrap_or(usize::MAX));
    let parts: Vec<Vec<String>> = match ctx.str("delimiter", "") {
        "" => xs.iter().map(|s| split_whitespace(s, maxsplit)).collect(),
        d => xs.iter().map(|s| split_on(s, d, maxsplit)).collect(),
    };
    let width = parts.iter().map(Vec::len).max().unwrap_or(0);
    let mut y = Vec::with_capacity(xs.len() * width);
    for p in &parts {
        y.extend(p.iter().cloned().chain(std::iter::repeat_n(String::new(), width - p.len())));
    }
    let mut shape = x.shape.clone();
    shape.push(width);
    let counts = parts.iter().map(|p| p.len() as i64).collect();
    Ok(vec![Tensor::new(shape, Data::String(y)), Tensor::new(x.shape.clone(), Data::I64(counts))])
}

/// `onnx.StringNormalizer`: drop elements equal to a stopword (compared after
/// lowercasing unless `is_case_sensitive`), then change case. Input is `[C]` or
/// `[1, C]`; if every element is dropped the result is one empty string. The
/// reference implementation's extra accent stripping and per-word stopword
/// removal inside an element are not part of the spec and are not done.
pub fn string_normalizer(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let xs = strings(x, "X")?;
    let two_d = match x.shape[..] {
        [_] => false,
        [1, _] => true,
        _ => return Err(format!("input must be [C] or [1, C], found {:?}", x.shape)),
    };
    let sensitive = ctx.int("is_case_sensitive", 0) != 0;
    let fold = |s: &str| if sensitive { s.to_string() } else { s.to_lowercase() };
    let stops: Vec<String> = match ctx.attrs.get("stopwords") {
        Some(crate::Attr::Strs(v)) => v.iter().map(|s| fold(s)).collect(),
        _ => Vec::new(),
    };
    let action = ctx.str("case_change_action", "NONE");
    let mut out: Vec<String> = Vec::new();
    for s in xs.iter().filter(|s| !stops.contains(&fold(s))) {
        out.push(match action {
            "LOWER" => s.to_lowercase(),
            "UPPER" => s.to_uppercase(),
            "NONE" => s.clone(),
            a => return Err(format!("unknown case_change_action `{a}`")),
        });
    }
    if out.is_empty() {
        out.push(String::new());
    }
    let shape = if two_d { vec![1, out.len()] } else { vec![out.len()] };
    Ok(vec![Tensor::new(shape, Data::String(out))])
}
