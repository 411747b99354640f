#!/usr/bin/env bash
# Vela's estimated cycles for edgec's INT8 TFLite against onnx2tf's
# full-integer TFLite of the same published model (the usual route to an
# Ethos-U), with the layout transposes each file has.
#
# Usage: bash benches/tflite/vs_onnx2tf.sh [MODEL [SIZE]]
#   MODEL  a wild-corpus model with one NCHW image input (default ppocrv4_det)
#   SIZE   the square input size (default 640)
# Environment: EDGEC (default target/release/edgec, built if missing).
# Installs nothing globally: a venv under target/onnx2tf-venv gets the
# pinned onnx2tf, TensorFlow and Vela (onnx2tf-requirements.txt; ~2 GB).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
MODEL="${1:-ppocrv4_det}"
SIZE="${2:-640}"
VENV=target/onnx2tf-venv
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import onnx2tf, ethosu.vela" 2>/dev/null; then
    echo "vs_onnx2tf: creating $VENV (onnx2tf, tensorflow, ethos-u-vela from PyPI)"
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r benches/tflite/onnx2tf-requirements.txt
fi
if [[ -z "${EDGEC:-}" ]]; then
    cargo build -q --release -p compiler --bin edgec
    EDGEC=target/release/edgec
fi
bash testsuite/wild/fetch.sh "$MODEL"
# onnx2tf runs onnxsim as a program: the venv's bin first on PATH.
PATH="$ROOT/$VENV/bin:$PATH" "$VENV/bin/python" benches/tflite/vs_onnx2tf.py --edgec "$EDGEC" \
    --model "target/wild/models/$MODEL/model.onnx" --size "$SIZE" --out "target/vs-onnx2tf/$MODEL-$SIZE"
