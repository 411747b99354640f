#!/usr/bin/env bash
# What symbolic dims cost in generated Rust: each model compiled twice, with no
# flags (its dynamic dims stay symbolic: sizes and the memory plan are computed
# when it runs) and with `--shape` fixing every input to the shape of its
# test_data_set_0 (fully static), both run on those same inputs, side by side
# with onnxruntime on the same inputs, single-threaded.
#
# Usage: bash benches/dynamic_vs_static.sh
# Env:   RUNS=30 ROUNDS=3   as in rust_vs_ort.sh (interleaved rounds: static,
#                           dynamic, onnxruntime; median of the rounds' medians)
#        MODELS="..."       model paths (default: the bundled dynamic models and
#                           the wild corpus's models with symbolic dims that
#                           fetch.sh prepared under target/wild/models)
#
# Prints a markdown table: static, dynamic and onnxruntime median ms, and the
# ratios dynamic/static and static/onnxruntime, then the geometric mean of
# dynamic/static. Work files go to target/bench-dyn/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-30}"
ROUNDS="${ROUNDS:-3}"
OUT="$ROOT/target/bench-dyn"
mkdir -p "$OUT"

# shellcheck source=benches/common.sh
source benches/common.sh

if [[ -z "${MODELS:-}" ]]; then
    MODELS="$(ls testsuite/models/{bert_dynamic,cnn_dynamic}/model.onnx)"
    for id in ppocrv3_det_anon ppocrv4_rec ppocrv2_rec_lstm captcha_gru khmersm silero_v5 dnsmos_v8 mtcnn_pnet; do
        [[ -f target/wild/models/$id/model.onnx ]] && MODELS="$MODELS target/wild/models/$id/model.onnx"
    done
fi

# `--shape NAME=D0,D1,...` for every input file given as NAME=FILE.npy.
shape_args() {
    "$PY" -c 'import sys, numpy as np
for a in sys.argv[1:]:
    n, p = a.split("=", 1)
    print("--shape"); print(n + "=" + ",".join(map(str, np.load(p).shape)))' "$@"
}

export CARGO_TARGET_DIR="$OUT/target"
printf '| model | static (ms) | dynamic (ms) | onnxruntime (ms) | dynamic / static | static / ort |\n|---|---:|---:|---:|---:|---:|\n' > "$OUT/table.md"
for model in $MODELS; do
    name="$(basename "$(dirname "$model")")"
    mapfile -t feeds < <("$PY" benches/inputs.py "$model" "$OUT/$name-inputs")
    args=()
    for f in "${feeds[@]}"; do args+=(--input "$f"); done
    mapfile -t fix < <(shape_args "${feeds[@]}")
    ok=1
    for kind in dyn st; do
        extra=()
        [[ "$kind" == st ]] && extra=("${fix[@]}")
        if ! "$EDGEC" compile "$model" -o "$OUT/${name}_$kind" --name "${name}_$kind" "${extra[@]}" 2>"$OUT/${name}_$kind.log"; then
            echo "$name ($kind): compile failed (see $OUT/${name}_$kind.log)"
            ok=0
            break
        fi
        cargo build -q --release --offline --manifest-path "$OUT/${name}_$kind/Cargo.toml"
    done
    [[ "$ok" == 1 ]] || continue
    grep -q 'symbolic dims' "$OUT/${name}_dyn.log" || echo "$name: note: no symbolic dims (both crates static)"
    s_runs=(); d_runs=(); o_runs=()
    for _ in $(seq "$ROUNDS"); do
        s_runs+=("$("$CARGO_TARGET_DIR/release/${name}_st" "${args[@]}" --bench "$RUNS" | field median_ms)")
        d_runs+=("$("$CARGO_TARGET_DIR/release/${name}_dyn" "${args[@]}" --bench "$RUNS" | field median_ms)")
        o_runs+=("$("$PY" benches/ort_time.py "$model" "$RUNS" "${feeds[@]}" | field median_ms)")
    done
    s="$(printf '%s\n' "${s_runs[@]}" | median)"
    d="$(printf '%s\n' "${d_runs[@]}" | median)"
    o="$(printf '%s\n' "${o_runs[@]}" | median)"
    printf '| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n' "$name" "$s" "$d" "$o" \
        "$(awk -v a="$d" -v b="$s" 'BEGIN {print a / b}')" "$(awk -v a="$s" -v b="$o" 'BEGIN {print a / b}')" |
        tee -a "$OUT/table.md"
done
awk -F'|' 'NR > 2 { r = $6 + 0; l += log(r); n++; if (r > m) m = r }
    END { if (n) printf "dynamic/static over %d models: geometric mean %.3f, worst %.3f\n", n, exp(l / n), m }' \
    "$OUT/table.md" | tee "$OUT/summary.txt"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; single-threaded runs" |
    tee -a "$OUT/summary.txt"
