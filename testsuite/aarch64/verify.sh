#!/usr/bin/env bash
# Compiles models to Rust crates for aarch64-unknown-linux-gnu
# (`edgec compile --triple`), cross-builds each and verifies it under
# qemu-user against its data sets and the reference interpreter
# (`edgec verify CRATE`, which reads the triple from the crate). Prints a
# markdown table (model, what it is, worst max abs error, seconds) and fails
# if any model fails.
#
#   verify.sh --ci      the fixed CI set (bundled models + wild CI models)
#   verify.sh --wild [ID ...]   every wild-corpus model, or the named ones
#                               (testsuite/wild/fetch.sh first)
#
# EDGEC=path/to/edgec picks the compiler (default: build target/debug/edgec).
# Generated crates build with warnings denied.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
mode="${1:---ci}"
bash testsuite/aarch64/setup.sh
if [ -z "${EDGEC:-}" ]; then
    cargo build -q -p compiler --bin edgec
    EDGEC=$ROOT/target/debug/edgec
fi
WILD=$ROOT/target/wild/models
OUT=$ROOT/target/aarch64
mkdir -p "$OUT"
# One target directory and one kernel runtime (`--runtime`) for every crate:
# the runtime is cross-compiled once.
export CARGO_TARGET_DIR=$OUT/target
export RUSTFLAGS="-D warnings"

# model path | what it is
CI_SET=(
    "testsuite/models/real/mobilenetv3_small_paddle/model.onnx|CNN classifier (MobileNetV3-small, Paddle export)"
    "testsuite/models/bert_tiny/model.onnx|transformer encoder (BERT-tiny)"
    "testsuite/models/audio_rnn/model.onnx|RNN (GRU/LSTM audio model)"
    "testsuite/models/det_head/model.onnx|detector head (NMS)"
    "testsuite/models/cnn_dynamic/model.onnx|CNN with symbolic dims (plan at run time)"
    "$WILD/nudenet_320n/model.onnx|detector (wild: NudeNet YOLOv8n 320)"
    "$WILD/ppocrv2_rec_lstm/model.onnx|CNN + LSTM text recognizer (wild: PP-OCRv2 rec)"
    "$WILD/owwk_melspec/model.onnx|audio front end (wild: openWakeWord mel spectrogram)"
    "$WILD/silero_v5/model.onnx|VAD with control flow (wild: Silero v5)"
)
case "$mode" in
    --ci) set_=("${CI_SET[@]}") ;;
    --wild)
        set_=()
        ids=("${@:2}")
        if ((${#ids[@]} == 0)); then
            for d in "$WILD"/*/; do ids+=("$(basename "$d")"); done
        fi
        for id in "${ids[@]}"; do
            set_+=("$WILD/$id/model.onnx|wild: $id")
        done
        ;;
    *) echo "usage: $0 [--ci|--wild]" >&2; exit 2 ;;
esac

# Per-model tolerances of the wild corpus (`tolerance.rust`, else
# `tolerance.all`, in testsuite/wild/models.toml), as "id rtol atol" lines,
# and the models whose reference is `unstable` (run and reported, not
# compared, as the native wild harness does), as "id unstable" lines.
TOLS=$(python3 - <<'PY'
import tomllib
for m in tomllib.load(open("testsuite/wild/models.toml", "rb"))["model"]:
    t = m.get("tolerance", {})
    t = t.get("rust", t.get("all"))
    if t:
        print(m["id"], t[0], t[1])
    if m.get("reference") == "unstable":
        print(m["id"], "unstable")
PY
)

failed=()
rows=()
for entry in "${set_[@]}"; do
    model="${entry%%|*}"
    what="${entry#*|}"
    id=$(basename "$(dirname "$model")")
    if [ ! -f "$model" ]; then
        failed+=("$id (missing: $model)")
        rows+=("| $id | $what | missing | |")
        continue
    fi
    dir=$OUT/crates/$id
    tol=()
    read -r _ rtol atol <<<"$(grep "^$id [0-9]" <<<"$TOLS" || true)"
    [ -n "${rtol:-}" ] && tol=(--rtol "$rtol" --atol "$atol")
    unstable=$(grep -c "^$id unstable" <<<"$TOLS" || true)
    t0=$SECONDS
    log=$OUT/$id.log
    if "$EDGEC" compile "$model" -o "$dir" --name "m_$(echo "$id" | tr -c 'a-z0-9_\n' '_')" \
        --triple aarch64-unknown-linux-gnu --runtime "$OUT/runtime" >"$log" 2>&1 &&
        "$EDGEC" verify "$dir" "${tol[@]}" >>"$log" 2>&1; then
        status=PASS
    elif ((unstable)) && grep -q "max_abs=" "$log"; then
        status="ran (unstable reference: not compared)"
    else
        status=FAIL
        failed+=("$id")
    fi
    dt=$((SECONDS - t0))
    worst=$(grep -o 'max_abs=[0-9.e+-]*' "$log" | cut -d= -f2 | sort -g | tail -1 || true)
    echo "$status $id (${dt}s, max abs error ${worst:-?}; log: $log)"
    rows+=("| $id | $what | ${worst:-–} | $status | $dt |")
done

{
    echo "| model | what it is | max abs error | result | seconds (compile + cross-build + run under qemu) |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$OUT/results-${mode#--}${2:+-subset}.md"
if ((${#failed[@]})); then
    echo "aarch64 verify: FAILED: ${failed[*]}" >&2
    exit 1
fi
passed=$(printf '%s\n' "${rows[@]}" | grep -c '| PASS |' || true)
others=""
((passed < ${#rows[@]})) && others=" (the others: unstable reference, run and reported)"
echo "aarch64 verify: $passed of ${#rows[@]} crates verified under qemu-aarch64$others"
