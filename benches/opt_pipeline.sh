#!/usr/bin/env bash
# Benchmark of the full `edgec opt` pipeline (shape-infer,canonicalize,optimize,dce)
# on the real bert12_paddle model (1,570 ONNX nodes) and on synthetic transformer
# encoders of 6/12/24/48 layers (examples/src/bin/gen_transformer.rs).
#
# Usage: bash benches/opt_pipeline.sh            (from anywhere; needs only cargo)
# Env:   RUNS=3          runs per model (the median wall and optimize-pass times are reported)
#        LAYERS="6 12 24 48"
#        EDGEC_OPT_ARGS  extra arguments to `edgec opt` (e.g. "--target rk3588-npu")
#
# Prints a markdown table (model | ONNX nodes | IR ops before opt (weights count as
# core.const ops) | ops after opt | wall time | CPU time (user+sys, steadier than wall
# time on a busy machine) | optimize pass time | peak RSS; times are medians), the
# 48/6-layer time ratios against linear growth (8x), a determinism check (two runs on
# the 24-layer model must write identical .eir and .weights files) and correctness
# checks: the optimized bert12_paddle against its ONNX test data (`edgec verify`) and,
# when python3 is present, original vs optimized synthetic models on the same random
# input. Exits non-zero if a check fails. Work files go to target/bench/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-3}"
LAYERS="${LAYERS:-6 12 24 48}"
read -r -a EXTRA <<<"${EDGEC_OPT_ARGS:-}"
OUT="$ROOT/target/bench"
EDGEC="$ROOT/target/release/edgec"
GEN="$ROOT/target/release/gen_transformer"
BERT="$ROOT/testsuite/models/real/bert12_paddle/model.onnx"
mkdir -p "$OUT"

echo "building release edgec and gen_transformer..." >&2
cargo build --release --quiet -p compiler --bin edgec
cargo build --release --quiet -p edgec-examples --bin gen_transformer

TIME_BIN=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    TIME_BIN=/usr/bin/time
else
    echo "note: /usr/bin/time (GNU) not found; peak RSS is reported as n/a" >&2
fi

# wall-clock seconds with sub-millisecond resolution (bash 5's EPOCHREALTIME, else date)
now() { if [[ -n "${EPOCHREALTIME:-}" ]]; then echo "$EPOCHREALTIME"; else date +%s.%N; fi; }

# user+sys CPU seconds of the finished children, from a file written by the `times`
# builtin (run in the measuring shell itself: a subshell has no children yet)
child_cpu() { awk 'NR == 2 {t = 0; for (i = 1; i <= 2; i++) {split($i, p, /[ms]/); t += p[1] * 60 + p[2]} print t}' "$1"; }

# median of the numbers given as arguments (the middle one; upper middle for even counts)
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int(NR/2)+1]}'; }

# run_opt MODEL OUT_EIR LOG: one `edgec opt` run; prints "WALL_S CPU_S RSS_KB" (RSS "n/a" without GNU time)
run_opt() {
    local model="$1" eir="$2" log="$3" t0 t1 c0 c1 rss="n/a"
    times >"$log.cpu0"
    t0=$(now)
    if [[ -n "$TIME_BIN" ]]; then
        "$TIME_BIN" -f "RSS_KB %M" -o "$log.rss" "$EDGEC" opt "$model" --explain --timings "${EXTRA[@]}" \
            -o "$eir" >"$log" 2>&1
    else
        "$EDGEC" opt "$model" --explain --timings "${EXTRA[@]}" -o "$eir" >"$log" 2>&1
    fi
    t1=$(now)
    times >"$log.cpu1"
    c0=$(child_cpu "$log.cpu0")
    c1=$(child_cpu "$log.cpu1")
    [[ -n "$TIME_BIN" ]] && rss=$(awk '/^RSS_KB/ {print $2}' "$log.rss")
    echo "$(awk -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" 'BEGIN {printf "%.4f %.4f", b - a, d - c}') $rss"
}

# bench NAME MODEL: RUNS runs; appends a table row to $ROWS and records the median time in TIMES[NAME]
declare -A TIMES CPU_TIMES PASS_TIMES
ROWS=""
bench() {
    local name="$1" model="$2" walls=() cpus=() passes=() rsses=() i r out log nodes before after
    for ((i = 1; i <= RUNS; i++)); do
        log="$OUT/$name.run$i.log"
        out=$(run_opt "$model" "$OUT/$name.eir" "$log") || { echo "edgec opt failed on $model; see $log" >&2; exit 1; }
        read -r -a r <<<"$out"
        walls+=("${r[0]}")
        cpus+=("${r[1]}")
        rsses+=("${r[2]}")
        passes+=("$(awk '$1 == "optimize" {print $2 / 1000}' "$log")")
    done
    nodes=$("$EDGEC" inspect "$model" | sed -n 's/^ops (\([0-9]*\) nodes.*/\1/p')
    before=$(sed -n 's/^== ops: \([0-9]*\) -> [0-9]* ==.*/\1/p' "$OUT/$name.run1.log")
    after=$(sed -n 's/^== ops: [0-9]* -> \([0-9]*\) ==.*/\1/p' "$OUT/$name.run1.log")
    local wall cpu pass rss="n/a"
    wall=$(median "${walls[@]}")
    cpu=$(median "${cpus[@]}")
    pass=$(median "${passes[@]:-0}")
    [[ "${rsses[0]}" != "n/a" ]] && rss=$(printf '%s\n' "${rsses[@]}" | sort -g | tail -1 | awk '{printf "%.1f", $1 / 1024}')
    TIMES[$name]=$wall
    PASS_TIMES[$name]=$pass
    CPU_TIMES[$name]=$cpu
    ROWS+=$(printf '| %s | %s | %s | %s | %.3f | %.3f | %.3f | %s |' \
        "$name" "$nodes" "${before:-?}" "${after:-?}" "$wall" "$cpu" "$pass" "$rss")$'\n'
    echo "  $name: wall ${walls[*]} s; cpu ${cpus[*]} s; optimize pass ${passes[*]} s" >&2
}

for l in $LAYERS; do
    "$GEN" --layers "$l" -o "$OUT/transformer_${l}l.onnx" --input-npy "$OUT/transformer_${l}l.x.npy" 2>/dev/null
done

echo "running edgec opt ($RUNS runs each)..." >&2
bench bert12_paddle "$BERT"
for l in $LAYERS; do bench "transformer_${l}l" "$OUT/transformer_${l}l.onnx"; done

echo
echo "| model | ONNX nodes | IR ops before opt | ops after opt | opt time (s, median of $RUNS) | CPU time (s) | optimize pass (s) | peak RSS (MB) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s' "$ROWS"
echo
if [[ -n "${TIMES[transformer_48l]:-}" && -n "${TIMES[transformer_6l]:-}" ]]; then
    awk -v a="${TIMES[transformer_48l]}" -v b="${TIMES[transformer_6l]}" \
        'BEGIN {printf "time(48 layers) / time(6 layers) = %.2f (linear growth: 8.00)\n", a / b}'
    awk -v a="${CPU_TIMES[transformer_48l]}" -v b="${CPU_TIMES[transformer_6l]}" \
        'BEGIN {printf "CPU time: time(48) / time(6) = %.2f (linear growth: 8.00)\n", a / b}'
    awk -v a="${PASS_TIMES[transformer_48l]}" -v b="${PASS_TIMES[transformer_6l]}" \
        'BEGIN {printf "optimize pass alone: time(48) / time(6) = %.2f (linear growth: 8.00)\n", a / b}'
fi
awk -v t="${TIMES[bert12_paddle]}" \
    'BEGIN {printf "bert12_paddle: %.3f s (goal <= 2 s): %s\n", t, (t <= 2 ? "met" : "NOT met")}'

FAILED=0
# Determinism: two runs must write byte-identical outputs.
if [[ " $LAYERS " == *" 24 "* ]]; then
    m="$OUT/transformer_24l.onnx"
    # Same file name in two folders: the .eir names its sidecar.
    mkdir -p "$OUT/det_a" "$OUT/det_b"
    "$EDGEC" opt "$m" "${EXTRA[@]}" -o "$OUT/det_a/model.eir" 2>/dev/null
    "$EDGEC" opt "$m" "${EXTRA[@]}" -o "$OUT/det_b/model.eir" 2>/dev/null
    if cmp -s "$OUT/det_a/model.eir" "$OUT/det_b/model.eir" \
        && cmp -s "$OUT/det_a/model.weights" "$OUT/det_b/model.weights"; then
        echo "determinism (transformer_24l, 2 runs): .eir and .weights identical"
    else
        echo "determinism (transformer_24l, 2 runs): OUTPUTS DIFFER"
        FAILED=1
    fi
fi

# Correctness: the optimized real model passes its test data; original and optimized
# synthetic models agree on the same random input.
if "$EDGEC" verify "$OUT/bert12_paddle.eir" --data "$(dirname "$BERT")/test_data_set_0" >"$OUT/verify.log" 2>&1; then
    echo "correctness bert12_paddle (optimized, edgec verify): ok"
else
    echo "correctness bert12_paddle (optimized, edgec verify): FAILED (see $OUT/verify.log)"
    FAILED=1
fi
if ! command -v python3 >/dev/null; then
    echo "synthetic correctness checks skipped (python3 not found)"
    exit "$FAILED"
fi
for l in $LAYERS; do
    n="transformer_${l}l"
    "$EDGEC" run "$OUT/$n.onnx" --input "x=$OUT/$n.x.npy" -o "$OUT/$n.ref" >/dev/null
    "$EDGEC" run "$OUT/$n.eir" --input "x=$OUT/$n.x.npy" -o "$OUT/$n.opt" >/dev/null
    printf 'correctness %s: ' "$n"
    python3 - "$OUT/$n.ref/y.npy" "$OUT/$n.opt/y.npy" <<'EOF' || FAILED=1
import ast, struct, sys
def load(path):
    b = open(path, "rb").read()
    hl, off = (struct.unpack("<H", b[8:10])[0], 10) if b[6] == 1 else (struct.unpack("<I", b[8:12])[0], 12)
    h = ast.literal_eval(b[off:off + hl].decode("latin1"))
    assert h["descr"] == "<f4", h
    body = b[off + hl:]
    return h["shape"], struct.unpack("<%df" % (len(body) // 4), body)
(sa, a), (sb, b) = load(sys.argv[1]), load(sys.argv[2])
diff = max(abs(x - y) for x, y in zip(a, b)) if sa == sb else float("inf")
scale = max(abs(x) for x in a)
ok = sa == sb and all(x == x and abs(x) != float("inf") for x in a) and diff <= 1e-4 * max(1.0, scale)
print(f"max|ref-opt| = {diff:.3g} (max|ref| = {scale:.3g}): {'ok' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
EOF
done
exit "$FAILED"
