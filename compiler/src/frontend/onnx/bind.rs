//! Binding graph inputs to constant values before import (`--const
//! NAME=FILE`): the bound input becomes an initializer, so shape inference
//! sees its value and shapes that depend on it (a Reshape target, Resize
//! sizes, Pad amounts, Range bounds) become static. The compiled model
//! then no longer takes that input.

use super::import::import_model;
use super::proto::ModelProto;
use super::tensor::tensor_to_proto;
use super::value_info::type_of;
use super::{ImportError, Problems};
use ir::interp::Tensor;
use ir::Dim;
use prost::Message;
use std::path::Path;

/// Import `path` with the graph inputs named in `binds` fixed to their tensors.
/// Every bad binding (no such input, a type or shape that does not fit) is
/// reported at once.
pub fn import_file_bound(path: &Path, binds: &[(String, Tensor)]) -> Result<super::Imported, ImportError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError::Io { path: path.display().to_string(), message: e.to_string() })?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let mut model = ModelProto::decode(bytes.as_slice()).map_err(|e| ImportError::Decode(e.to_string()))?;
    let positions = bound_positions(&model, binds);
    bind_inputs(&mut model, binds)?;
    let mut imported = import_model(&model, path.parent(), &name)?;
    if !positions.is_empty() {
        imported.module.attrs.set(BOUND_INPUTS, ir::Attr::Ints(positions));
    }
    Ok(imported)
}

/// Module attribute: positions, among the model's original inputs, of the
/// inputs bound by `--const` (data sets still hold a value for each).
pub const BOUND_INPUTS: &str = "onnx.bound_inputs";

/// Positions of the bound inputs among the graph inputs that are not initializers.
fn bound_positions(model: &ModelProto, binds: &[(String, Tensor)]) -> Vec<i64> {
    let Some(g) = &model.graph else { return vec![] };
    let inits: std::collections::HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
    g.input
        .iter()
        .filter(|vi| !inits.contains(vi.name.as_str()))
        .enumerate()
        .filter(|(_, vi)| binds.iter().any(|(n, _)| n == &vi.name))
        .map(|(i, _)| i as i64)
        .collect()
}

/// Turn each bound graph input of `model` into an initializer holding its tensor.
pub fn bind_inputs(model: &mut ModelProto, binds: &[(String, Tensor)]) -> Result<(), ImportError> {
    let g = model.graph.as_mut().ok_or_else(|| ImportError::Decode("model has no graph".into()))?;
    let mut errors = Vec::new();
    for (name, t) in binds {
        let Some(vi) = g.input.iter().find(|vi| &vi.name == name) else {
            let names: Vec<&str> = g.input.iter().map(|vi| vi.name.as_str()).collect();
            errors.push(format!("--const {name}: the model has no input `{name}` (inputs: {})", names.join(", ")));
            continue;
        };
        if let Err(e) = fits(vi, t) {
            errors.push(format!("--const {name}: {e}"));
            continue;
        }
        g.initializer.retain(|i| &i.name != name);
        g.initializer.push(tensor_to_proto(t, name));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ImportError::Problems(Problems { unsupported: vec![], errors }))
    }
}

/// Check that tensor `t` can stand for graph input `vi` (same element
/// type, same rank, equal static dims).
fn fits(vi: &super::proto::ValueInfoProto, t: &Tensor) -> Result<(), String> {
    let Some(want) = type_of(vi)? else { return Ok(()) };
    let got = t.ty();
    if want.dtype != got.dtype {
        return Err(format!("the input is {}, the file holds {}", want.dtype, got.dtype));
    }
    let (Some(w), Some(g)) = (want.shape.dims(), got.shape.dims()) else { return Ok(()) };
    let ok = w.len() == g.len()
        && w.iter().zip(g).all(|(a, b)| match (a, b) {
            (Dim::Static(x), Dim::Static(y)) => x == y,
            _ => true,
        });
    if !ok {
        return Err(format!("the input has shape {}, the file holds {}", want.shape, got.shape));
    }
    Ok(())
}
