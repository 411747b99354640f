#!/usr/bin/env bash
# Latency of edgec's generated Rust crates against onnxruntime, single-threaded.
#
# Usage: bash benches/rust_vs_ort.sh        (from anywhere; a fresh machine needs
#        cargo and python3 with venv: onnxruntime, onnx and numpy come from PyPI)
# Env:   RUNS=50        timed inferences per measurement (after RUNS/10, >= 3, warm-ups)
#        ROUNDS=3       interleaved rounds (edgec, onnxruntime, edgec, ...); the
#                       median of the rounds' medians is reported
#        MODELS="..."   model paths (default: the ONNX light models and the static
#                       real/bundled models)
#        GEMM=1         also run the GEMM and depthwise micro-benchmarks (default 1)
#
# For each model: `edgec compile --emit rust`, `cargo build --release` of the crate
# (one shared target dir), the same inputs for both (a test_data_set_0 beside the
# model, else ONNX's `arange(n)/n` dummy input), then interleaved timing: the
# crate's `--bench RUNS` against onnxruntime with intra/inter-op threads 1,
# sequential execution and ORT_ENABLE_ALL. Prints a markdown table with the ratio
# edgec/onnxruntime per model and the geometric means (CNNs, transformers, all),
# then the GEMM GFLOP/s against the measured single-core FMA peak and the
# depthwise 3x3 layers against their roofline (codegen/kernels/examples/dw_bench.rs).
# Work files go to target/bench-rust/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-50}"
ROUNDS="${ROUNDS:-3}"
GEMM="${GEMM:-1}"
OUT="$ROOT/target/bench-rust"
VENV="$ROOT/target/bench-venv"
mkdir -p "$OUT"

if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q onnxruntime onnx numpy
fi
PY="$VENV/bin/python"
[[ -d target/onnx-tests/light ]] || bash testsuite/conformance/fetch.sh >/dev/null
cargo build -q --release -p compiler --bin edgec
EDGEC="$ROOT/target/release/edgec"

if [[ -z "${MODELS:-}" ]]; then
    MODELS="$(ls target/onnx-tests/light/*.onnx) $(ls testsuite/models/real/{mobilenetv3_small_paddle,ppocr_det_paddle,vit_tiny_paddle,bert_encoder_paddle_static,bert12_paddle}/model.onnx) $(ls testsuite/models/{paddle_cnn,tf_mobilenet,det_head,vit_decoder,swin_block}/model.onnx)"
fi

kind() { # cnn or transformer, for the geometric means
    case "$1" in
        *bert*|*vit*|*swin*) echo transformer ;;
        *) echo cnn ;;
    esac
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Reads all of its input (an early close would break the writer's pipe).
field() { awk -F= -v k="$1" '$1 == k && !found { print $2; found = 1 }'; }

export CARGO_TARGET_DIR="$OUT/target"
printf '| model | kind | edgec (ms) | onnxruntime (ms) | edgec / ort |\n|---|---|---:|---:|---:|\n' > "$OUT/table.md"
for model in $MODELS; do
    name="$(basename "$model" .onnx)"
    [[ "$name" == model ]] && name="$(basename "$(dirname "$model")")"
    crate="$OUT/$name"
    if ! "$EDGEC" compile "$model" -o "$crate" --name "$name" --report "$crate.json" 2>"$crate.log"; then
        echo "$name: compile failed (see $crate.log)"
        continue
    fi
    cargo build -q --release --offline --manifest-path "$crate/Cargo.toml"
    mapfile -t feeds < <("$PY" benches/inputs.py "$model" "$OUT/$name-inputs")
    args=()
    for f in "${feeds[@]}"; do args+=(--input "$f"); done
    e_runs=(); o_runs=()
    for _ in $(seq "$ROUNDS"); do
        e_runs+=("$("$CARGO_TARGET_DIR/release/$name" "${args[@]}" --bench "$RUNS" | field median_ms)")
        o_runs+=("$("$PY" benches/ort_time.py "$model" "$RUNS" "${feeds[@]}" | field median_ms)")
    done
    e="$(printf '%s\n' "${e_runs[@]}" | median)"
    o="$(printf '%s\n' "${o_runs[@]}" | median)"
    ratio="$(awk -v e="$e" -v o="$o" 'BEGIN {printf "%.3f", e / o}')"
    printf '| %s | %s | %.3f | %.3f | %s |\n' "$name" "$(kind "$name")" "$e" "$o" "$ratio" | tee -a "$OUT/table.md"
done
awk -F'|' 'NR > 2 {
        r = $6 + 0; k = $3; gsub(/ /, "", k)
        all += log(r); n++
        if (k == "cnn") { c += log(r); nc++ } else { t += log(r); nt++ }
    }
    END {
        if (nc) printf "geometric mean edgec/ort, CNN models (%d): %.3f\n", nc, exp(c / nc)
        if (nt) printf "geometric mean edgec/ort, transformer models (%d): %.3f\n", nt, exp(t / nt)
        printf "geometric mean edgec/ort, all models (%d): %.3f\n", n, exp(all / n)
    }' "$OUT/table.md" | tee "$OUT/summary.txt"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; single-threaded runs" | tee -a "$OUT/summary.txt"
if [[ "$GEMM" == 1 ]]; then
    cargo run -q --release -p edgec-kernels --example gemm_bench | tee "$OUT/gemm.txt"
    cargo run -q --release -p edgec-kernels --example dw_bench | tee "$OUT/depthwise.txt"
fi
