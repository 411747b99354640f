#!/usr/bin/env bash
# Latency of edgec's generated Rust crates against onnxruntime, on one thread
# and (THREADS) on more.
#
# Usage: bash benches/rust_vs_ort.sh        (from anywhere; a fresh machine needs
#        cargo and python3 with venv: onnxruntime, onnx and numpy come from PyPI)
# Env:   RUNS=50        timed inferences per measurement (after RUNS/10, >= 3, warm-ups)
#        ROUNDS=3       interleaved rounds (edgec, onnxruntime, edgec, ...); the
#                       median of the rounds' medians is reported
#        MODELS="..."   model paths (default: the ONNX light models and the static
#                       real/bundled models)
#        GEMM=1         also run the GEMM and depthwise micro-benchmarks (default 1)
#        PACK=native    the crates' --pack-for (weights packed for this CPU at compile time)
#        THREADS="1 2"  thread counts, each a column group (edgec `--threads N`,
#                       onnxruntime intra-op threads N); for each count above
#                       1 the table adds both speed-ups over one thread
#
# For each model: `edgec compile --emit rust`, `cargo build --release` of the crate
# (one shared target dir), the same inputs for both (a test_data_set_0 beside the
# model, else ONNX's `arange(n)/n` dummy input), then interleaved timing: the
# crate's `--bench RUNS --threads N` against onnxruntime with N intra-op threads,
# one inter-op thread, sequential execution and ORT_ENABLE_ALL. Prints a markdown table with the ratio
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
PACK="${PACK:-native}"
read -r -a TH <<< "${THREADS:-1}"
OUT="$ROOT/target/bench-rust"
mkdir -p "$OUT"

[[ -d target/onnx-tests/light ]] || bash testsuite/conformance/fetch.sh >/dev/null
# shellcheck source=benches/common.sh
source benches/common.sh

if [[ -z "${MODELS:-}" ]]; then
    MODELS="$(ls target/onnx-tests/light/*.onnx) $(ls testsuite/models/real/{mobilenetv3_small_paddle,ppocr_det_paddle,vit_tiny_paddle,bert_encoder_paddle_static,bert12_paddle}/model.onnx) $(ls testsuite/models/{paddle_cnn,tf_mobilenet,det_head,vit_decoder,swin_block}/model.onnx)"
fi

kind() { # cnn or transformer, for the geometric means
    case "$1" in
        *bert*|*vit*|*swin*) echo transformer ;;
        *) echo cnn ;;
    esac
}

export CARGO_TARGET_DIR="$OUT/target"
head="| model | kind |"; rule="|---|---|"
for t in "${TH[@]}"; do
    head+=" edgec ${t}t (ms) | onnxruntime ${t}t (ms) | edgec / ort ${t}t |"; rule+="---:|---:|---:|"
    [[ "$t" == 1 ]] || { head+=" edgec ${t}t speed-up | ort ${t}t speed-up |"; rule+="---:|---:|"; }
done
printf '%s\n%s\n' "$head" "$rule" > "$OUT/table.md"
for model in $MODELS; do
    name="$(basename "$model" .onnx)"
    [[ "$name" == model ]] && name="$(basename "$(dirname "$model")")"
    crate="$OUT/$name"
    if ! "$EDGEC" compile "$model" -o "$crate" --name "$name" --pack-for "$PACK" --report "$crate.json" 2>"$crate.log"; then
        echo "$name: compile failed (see $crate.log)"
        continue
    fi
    cargo build -q --release --offline --manifest-path "$crate/Cargo.toml"
    mapfile -t feeds < <("$PY" benches/inputs.py "$model" "$OUT/$name-inputs")
    args=()
    for f in "${feeds[@]}"; do args+=(--input "$f"); done
    row="| $name | $(kind "$name") |"
    e1=""; o1=""
    for t in "${TH[@]}"; do
        e_runs=(); o_runs=()
        for _ in $(seq "$ROUNDS"); do
            e_runs+=("$("$CARGO_TARGET_DIR/release/$name" "${args[@]}" --bench "$RUNS" --threads "$t" | field median_ms)")
            o_runs+=("$("$PY" benches/ort_time.py "$model" "$RUNS" --threads "$t" "${feeds[@]}" | field median_ms)")
        done
        e="$(printf '%s\n' "${e_runs[@]}" | median)"
        o="$(printf '%s\n' "${o_runs[@]}" | median)"
        [[ "$t" == 1 ]] && { e1=$e; o1=$o; }
        row+="$(awk -v e="$e" -v o="$o" 'BEGIN {printf " %.3f | %.3f | %.3f |", e, o, e / o}')"
        if [[ "$t" != 1 ]]; then
            row+="$(awk -v e="$e" -v o="$o" -v e1="${e1:-0}" -v o1="${o1:-0}" 'BEGIN {
                if (e1 > 0) printf " %.2f | %.2f |", e1 / e, o1 / o; else printf " - | - |" }')"
        fi
    done
    echo "$row" | tee -a "$OUT/table.md"
done
# Geometric means of each edgec / ort column (by kind).
awk -F'|' 'NR == 1 { for (i = 2; i < NF; i++) if ($i ~ /edgec \/ ort/) { col[i] = $i } }
    NR > 2 {
        k = $3; gsub(/ /, "", k)
        for (i in col) { r = $i + 0; all[i] += log(r); n[i]++; if (k == "cnn") { c[i] += log(r); nc[i]++ } else { t[i] += log(r); nt[i]++ } }
    }
    END {
        for (i in col) {
            name = col[i]; gsub(/^ +| +$/, "", name)
            if (nc[i]) printf "geometric mean %s, CNN models (%d): %.3f\n", name, nc[i], exp(c[i] / nc[i])
            if (nt[i]) printf "geometric mean %s, transformer models (%d): %.3f\n", name, nt[i], exp(t[i] / nt[i])
            printf "geometric mean %s, all models (%d): %.3f\n", name, n[i], exp(all[i] / n[i])
        }
    }' "$OUT/table.md" | sort | tee "$OUT/summary.txt"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; threads: ${TH[*]}" | tee -a "$OUT/summary.txt"
if [[ "$GEMM" == 1 ]]; then
    cargo run -q --release -p edgec-kernels --example gemm_bench | tee "$OUT/gemm.txt"
    cargo run -q --release -p edgec-kernels --example dw_bench | tee "$OUT/depthwise.txt"
fi
